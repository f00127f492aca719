// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/levels.c: the levels a window's rates sit at. */
#include "stats_fixtures.h"

#include "stats/levels.h"

/*
 * 100 ms rates of a 10 s loopback tcp_stream on the 2-vCPU test machine
 * (kernel 6.18): about 40 Gbps for 2.8 s, 32 Gbps for 2.1 s, then 38 Gbps,
 * the socket-backlog bistability of DESIGN.md's machine notes.
 */
static const double flipping_gbps[] = {
	40.789, 39.703, 40.565, 40.932, 39.622, 40.391, 40.433, 40.583, 40.407, 41.046,
	40.721, 40.365, 39.940, 40.162, 40.057, 40.227, 40.365, 40.433, 40.262, 40.336,
	39.867, 40.854, 39.904, 42.201, 41.490, 41.161, 40.962, 41.505, 33.108, 32.920,
	32.952, 32.993, 33.268, 32.245, 33.088, 33.254, 33.127, 32.995, 32.437, 32.299,
	31.346, 31.254, 31.775, 31.391, 31.695, 32.400, 32.003, 31.882, 31.972, 38.913,
	38.205, 37.134, 37.430, 39.272, 39.667, 39.359, 38.946, 40.048, 39.725, 39.635,
	39.296, 39.481, 39.293, 38.824, 38.900, 39.320, 39.512, 39.584, 37.975, 39.633,
	39.289, 39.625, 40.120, 31.950, 36.871, 37.616, 38.934, 34.367, 38.747, 39.635,
	37.305, 37.273, 36.249, 36.220, 39.274, 35.213, 38.822, 39.421, 38.352, 39.296,
	38.693, 38.059, 38.170, 38.740, 38.403, 39.696, 37.880, 38.392, 36.170, 33.348,
	37.942,
};

static void test_levels_find_steps_and_flips(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_levels lv;
	double x[100];

	(void)state;
	gsl_rng_set(rng, 7);
	/* the real trace: three levels, down and back up */
	assert_int_equal(stats_levels(flipping_gbps, N(flipping_gbps), &lv), 0);
	assert_true(lv.tested);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	assert_true(lv.lo_pct > 83 && lv.lo_pct < 88);   /* 32.4 of 37.7 */
	assert_true(lv.hi_pct > 105 && lv.hi_pct < 110); /* 40.5 */
	/* one step, 30 -> 40 with 2.5 % noise: two levels, not mixed */
	ar1(rng, x, 100, 30, 0.35, 2.5);
	for (size_t i = 50; i < 100; i++)
		x[i] += 10;
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 2);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 30.0 / 35) < 2);
	assert_true(fabs(lv.hi_pct - 100 * 40.0 / 35) < 2);
	/* a 1.5 s dip of 20 % in the middle: left and came back */
	ar1(rng, x, 100, 40, 0.35, 2.5);
	for (size_t i = 40; i < 55; i++)
		x[i] *= 0.8;
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	/* a 1 s move of 10 % in the middle of 10 s, and of 3 s: one cut
	 * leaves neither side at one level, so binary segmentation alone
	 * found it in none of these, the stretch against the rest in nearly
	 * all */
	for (size_t n = 100; n; n = n == 100 ? 30 : 0) {
		int found = 0;

		for (int r = 0; r < 200; r++) {
			ar1(rng, x, n, 30, 0.35, 2.5);
			for (size_t i = n / 2 - 5; i < n / 2 + 5; i++)
				x[i] *= 1.1;
			assert_int_equal(stats_levels(x, n, &lv), 0);
			found += lv.count == 3 && lv.mixed;
		}
		print_message("a 1 s move in %zu rates: found in %d of 200\n", n, found);
		assert_true(found >= (n == 100 ? 195 : 160));
	}
	/* the same, exact: the one cut's best t test gives p = 0.005 */
	for (size_t i = 0; i < 30; i++)
		x[i] = i >= 10 && i < 20 ? 120 : 100;
	assert_int_equal(stats_levels(x, 30, &lv), 0);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 100 / (320 / 3.0)) < 1e-9);
	assert_true(fabs(lv.first_pct - lv.last_pct) < 1e-9);
	/* exact levels, no noise at all */
	for (size_t i = 0; i < 40; i++)
		x[i] = i < 20 ? 100 : 120;
	assert_int_equal(stats_levels(x, 40, &lv), 0);
	assert_int_equal(lv.count, 2);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 100.0 / 110) < 1e-9);
	gsl_rng_free(rng);
}

static void test_levels_hold_one_level_on_noise_small_shifts_and_blips(void **state)
{
	static const double phis[] = { 0, 0.35, 0.6 }, cvs[] = { 2.5, 5 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_levels lv;
	double x[100];
	int split = 0, mixed = 0, reps = 0;

	(void)state;
	gsl_rng_set(rng, 11);
	/* correlated noise alone: rarely more than one level, never mixed */
	for (size_t a = 0; a < N(phis); a++)
		for (size_t b = 0; b < N(cvs); b++)
			for (int r = 0; r < 200; r++, reps++) {
				ar1(rng, x, 100, 30, phis[a], cvs[b]);
				assert_int_equal(stats_levels(x, 100, &lv), 0);
				assert_true(lv.tested);
				split += lv.count > 1;
				mixed += lv.mixed;
			}
	print_message("levels on AR(1) noise: %d of %d split, %d mixed\n", split, reps, mixed);
	assert_true(split <= reps / 50);
	assert_true(mixed <= reps / 200);
	/* a 3 % step is below STATS_LEVEL_PCT */
	for (size_t i = 0; i < 100; i++)
		x[i] = (i < 50 ? 100 : 103) + 0.2 * (double)(i % 3);
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 1);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100) < 1e-9 && fabs(lv.hi_pct - 100) < 1e-9);
	/* a 30 % dip shorter than STATS_LEVEL_MIN_N intervals is no level,
	 * in the middle or at either end of the window (a cut or a stretch
	 * of STATS_LEVEL_MIN_N around it would be half dip, half not) */
	for (size_t at = 0; at <= 95; at += 5) {
		for (size_t i = 0; i < 100; i++)
			x[i] = (i >= at && i < at + 5 ? 70 : 100) + 0.2 * (double)(i % 3);
		assert_int_equal(stats_levels(x, 100, &lv), 0);
		assert_int_equal(lv.count, 1);
	}
	/* too few rates, a zero mean: not tested; bad input */
	assert_int_equal(stats_levels(x, 2 * STATS_LEVEL_MIN_N - 1, &lv), 0);
	assert_false(lv.tested);
	memset(x, 0, sizeof(x));
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_false(lv.tested);
	x[3] = NAN;
	assert_int_equal(stats_levels(x, 100, &lv), -EINVAL);
	assert_int_equal(stats_levels(NULL, 100, &lv), -EINVAL);
	assert_int_equal(stats_levels(x, 100, NULL), -EINVAL);
	gsl_rng_free(rng);
}

static void test_levels_rho_is_persistence_beside_steps_and_slopes(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[400], rho, mean_rho = 0;

	(void)state;
	gsl_rng_set(rng, 23);
	/* AR(1) noise: its own coefficient, within sampling error */
	for (int r = 0; r < 20; r++) {
		ar1(rng, x, 400, 30, 0.7, 4);
		assert_int_equal(stats_levels_rho(x, 400, &rho), 0);
		mean_rho += rho / 20;
	}
	assert_true(fabs(mean_rho - 0.7) < 0.05);
	/* a 30 % step on white noise: the levels take it out (about the
	 * window's mean the lag-1 autocorrelation would be near 0.9) */
	ar1(rng, x, 100, 30, 0, 2.5);
	for (size_t i = 50; i < 100; i++)
		x[i] += 9;
	assert_int_equal(stats_levels_rho(x, 100, &rho), 0);
	assert_true(fabs(rho) < 0.3);
	/* a slope on white noise, in a window too short for levels: the line
	 * takes it out */
	ar1(rng, x, 15, 30, 0, 2.5);
	for (size_t i = 0; i < 15; i++)
		x[i] += (double)i;
	assert_int_equal(stats_levels_rho(x, 15, &rho), 0);
	assert_true(fabs(rho) < 0.5);
	/* an exact line, however the levels cut it, or a flat window:
	 * nothing carries over */
	for (size_t i = 0; i < 40; i++)
		x[i] = 100 + 0.5 * (double)i;
	assert_int_equal(stats_levels_rho(x, 40, &rho), 0);
	assert_float_equal(rho, 0, 0);
	for (size_t i = 0; i < 40; i++)
		x[i] = 100;
	assert_int_equal(stats_levels_rho(x, 40, &rho), 0);
	assert_float_equal(rho, 0, 0);
	assert_int_equal(stats_levels_rho(x, 2, &rho), 0);
	assert_float_equal(rho, 0, 0);
	x[3] = NAN;
	assert_int_equal(stats_levels_rho(x, 40, &rho), -EINVAL);
	assert_int_equal(stats_levels_rho(NULL, 40, &rho), -EINVAL);
	assert_int_equal(stats_levels_rho(x, 40, NULL), -EINVAL);
	gsl_rng_free(rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_levels_find_steps_and_flips),
		cmocka_unit_test(test_levels_hold_one_level_on_noise_small_shifts_and_blips),
		cmocka_unit_test(test_levels_rho_is_persistence_beside_steps_and_slopes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
