// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/power.c: how many runs a change needs to be seen. */
#include "stats_fixtures.h"

#include "stats/power.h"

static void test_runs_needed_matches_formula(void **state)
{
	size_t n;

	(void)state;
	/* runs(5, 5, 2) -> 105 */
	assert_int_equal(stats_runs_needed(5, 5, 2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 105);
	/* runs(3, 8, 2) -> 153 */
	assert_int_equal(stats_runs_needed(3, 8, 2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 153);
	/* runs(10, 10, 5, 0.05, 0.9) -> 92 */
	assert_int_equal(stats_runs_needed(10, 10, 5, 0.05, 0.9, &n), 0);
	assert_int_equal(n, 92);
	/* runs(18, 18, 10) -> 58: bulk TCP noise from DESIGN.md */
	assert_int_equal(stats_runs_needed(18, 18, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 58);
	/* runs(5, 5, -2) -> 101: a drop of 2% is a bigger log step */
	assert_int_equal(stats_runs_needed(5, 5, -2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 101);
	/* runs(2, 2, 1, 0.01, 0.8) -> 99 */
	assert_int_equal(stats_runs_needed(2, 2, 1, 0.01, 0.8, &n), 0);
	assert_int_equal(n, 99);
}

static void test_runs_needed_floor_and_bad_input(void **state)
{
	size_t n = 0;

	(void)state;
	/* runs(1, 1, 10) -> 4 (formula alone: 0.18) */
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, STATS_RUNS_MIN);
	assert_int_equal(stats_runs_needed(0, 0, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 4);
	/* at alpha 0.01 four runs a side cannot reach it: 2/C(8,4) = 0.029,
	 * 2/C(10,5) = 0.0079 */
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.01, 0.8, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.001, 0.8, &n), 0);
	assert_int_equal(n, 7); /* 2/C(12,6) = 0.0022, 2/C(14,7) = 0.00058 */
	assert_int_equal(stats_runs_needed(50, 50, 0.001, 0.05, 0.8, &n),
			 -ERANGE);
	assert_int_equal(stats_runs_needed(5, 5, 0, 0.05, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, -100, 0.05, 0.8, &n),
			 -EINVAL);
	assert_int_equal(stats_runs_needed(-1, 5, 2, 0.05, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, 2, 0, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, 2, 0.05, 1, &n), -EINVAL);
	assert_int_equal(stats_runs_needed_sd(1, 1, NAN, 0.05, 0.8, &n),
			 -EINVAL);
	assert_int_equal(stats_runs_needed_sd(1, 1, 1, 0.05, 0.8, NULL),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_needed_matches_formula),
		cmocka_unit_test(test_runs_needed_floor_and_bad_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
