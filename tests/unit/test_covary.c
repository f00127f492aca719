// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/covary.c: what went with the headline, ranked and adjusted for many. */
#include "stats_fixtures.h"

#include "stats/bh.h"
#include "stats/covary.h"
#include "stats/guard.h"

static void test_covary_ranks_what_went_with_y_and_adjusts_for_many(void **state)
{
	/* y rises; a follows it, b goes against it with ties, c is flat,
	 * d has a gap, e wanders, f is unrelated by construction */
	static const double y[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const double a[] = { 10, 12, 13, 15, 16, 18, 19, 21, 23, 24 };
	static const double b[] = { 9, 9, 8, 7, 7, 5, 4, 3, 3, 1 };
	static const double c[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	static const double d[] = { 1, 2, NAN, 4, 5, 6, 7, 8, 9, 10 };
	static const double e[] = { 5, 3, 6, 2, 7, 1, 8, 4, 9, 0 };
	static const double f[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 };
	const double *const x[] = { a, b, c, d, e, f };
	struct stats_covary cv[6];
	struct stats_trend t;
	double p[4], q[4];
	size_t n;

	(void)state;
	assert_int_equal(stats_covary(y, x, 6, 10, cv, &n), 0);
	/* c (flat) and d (not finite) are not tested */
	assert_int_equal(n, 4);
	assert_int_equal(cv[0].index, 0);
	assert_float_equal(cv[0].tau, 1, 1e-12);
	assert_int_equal(cv[1].index, 1);
	assert_true(cv[1].tau < -0.9);
	/* the same tau and p as stats_kendall, y first */
	assert_int_equal(stats_kendall(y, b, 10, &t), 0);
	assert_float_equal(cv[1].tau, t.tau, 1e-12);
	assert_float_equal(cv[1].p, t.p, 1e-12);
	/* ascending p; q is Benjamini-Hochberg over the 4 tested */
	for (size_t i = 0; i < n; i++) {
		p[i] = cv[i].p;
		if (i)
			assert_true(cv[i].p >= cv[i - 1].p);
	}
	assert_int_equal(stats_bh(p, 4, q), 0);
	for (size_t i = 0; i < n; i++)
		assert_float_equal(cv[i].q, q[i], 1e-12);
	assert_true(cv[0].q < 0.01 && cv[3].q > 0.05);
	/* too few samples, a flat y, bad arguments */
	assert_int_equal(stats_covary(y, x, 6, STATS_COVARY_MIN_N - 1, cv, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(stats_covary(c, x, 6, 10, cv, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(stats_covary(NULL, x, 6, 10, cv, &n), -EINVAL);
	assert_int_equal(stats_covary(y, x, 6, 10, NULL, &n), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_covary_ranks_what_went_with_y_and_adjusts_for_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
