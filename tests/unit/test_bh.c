// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/bh.c: the Benjamini-Hochberg false discovery rate. */
#include "stats_fixtures.h"

#include "stats/bh.h"

static void test_bh_matches_r_p_adjust(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9 };
	/* bh(p) (helper in stats_fixtures.h) */
	static const double ref[] = { 0.035, 0.055999999999999994,
				      0.055999999999999994, 0.035,
				      0.23333333333333336,
				      0.055999999999999994, 0.9 };
	double q[N(p)];
	size_t i;

	(void)state;
	assert_int_equal(stats_bh(p, N(p), q), 0);
	for (i = 0; i < N(p); i++)
		assert_close(q[i], ref[i], 1e-15);
}

static void test_bh_in_place_caps_at_one_and_rejects_bad_p(void **state)
{
	double p[] = { 0.5, 0.9, 0.99, 1.0 };
	double bad[] = { 0.1, 1.5 }, q[2] = { -1, -1 };
	size_t i;

	(void)state;
	/* bh([0.5, 0.9, 0.99, 1.0]) -> all 1.0 */
	assert_int_equal(stats_bh(p, N(p), p), 0);
	for (i = 0; i < N(p); i++)
		assert_close(p[i], 1.0, 0);
	assert_int_equal(stats_bh(bad, 2, q), -EINVAL);
	assert_close(q[0], -1, 0);
	bad[1] = NAN;
	assert_int_equal(stats_bh(bad, 2, q), -EINVAL);
	assert_int_equal(stats_bh(NULL, 0, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bh_matches_r_p_adjust),
		cmocka_unit_test(test_bh_in_place_caps_at_one_and_rejects_bad_p),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
