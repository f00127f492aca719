// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/guard.c: the guards: outliers, trends, the host's moves and steadiness. */
#include "stats_fixtures.h"

#include "stats/guard.h"

static void test_outliers_by_modified_z(void **state)
{
	static const double one[] = { 10, 10.1, 9.9, 10.05, 9.95, 13 };
	static const double two[] = { 10, 10.1, 9.9, 10.05, 9.95, 10.6, 9.4,
				      10.3 };
	static const double none[] = { 10, 10.1, 9.9, 10.05, 9.95 };
	size_t c = 99;

	(void)state;
	/* med = np.median(x); mad = np.median(np.abs(x - med))
	 * np.sum(np.abs(0.6745*(x - med)/mad) > 3.5): 1 (z 26.76), 2 (z
	 * 3.878 and -4.216), 0 */
	assert_int_equal(stats_outliers(one, N(one), &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(stats_outliers(two, N(two), &c), 0);
	assert_int_equal(c, 2);
	assert_int_equal(stats_outliers(none, N(none), &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(none, 1, &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(none, 0, &c), -EINVAL);
}

static void test_outliers_fall_back_to_mean_ad_when_mad_is_zero(void **state)
{
	static const double spike[] = { 0, 0, 0, 0, 5 };
	static const double steps[] = { 1, 1, 1, 2, 2 };
	static const double flat[] = { 3, 3, 3 };
	size_t c = 99;

	(void)state;
	/* MAD 0: z = (x - med)/(1.253314*np.mean(np.abs(x - med)))
	 * spike: z 3.989 -> 1; steps: z 1.995 -> 0 */
	assert_int_equal(stats_outliers(spike, N(spike), &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(stats_outliers(steps, N(steps), &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(flat, N(flat), &c), 0);
	assert_int_equal(c, 0);
}

static void test_mann_kendall_matches_python(void **state)
{
	static const double up[] = { 10.0, 10.2, 10.1, 10.4,
				     10.4, 10.6, 10.5, 10.9 };
	static const double down[] = { 5.0, 3.0, 4.0, 4.0, 2.0, 3.0, 1.0 };
	static const double four[] = { 1.0, 3.0, 2.0, 4.0 };
	struct stats_trend t;

	(void)state;
	/* mk(up) -> (23, 64.33333333333333, 0.8214285714285714,
	 *            2.7428663952471632, 0.00609054605657881) */
	assert_int_equal(stats_mann_kendall(up, N(up), &t), 0);
	assert_true(t.tested);
	assert_close(t.s, 23, 0);
	assert_close(t.var_s, 64.33333333333333, 1e-14);
	assert_close(t.tau, 0.8214285714285714, 1e-14);
	assert_close(t.z, 2.7428663952471632, 1e-13);
	assert_close(t.p, 0.00609054605657881, 1e-10);
	/* mk(down) -> (-13, 42.333333333333336, -0.6190476190476191,
	 *              -1.8443358704828159, 0.06513420695564257) */
	assert_int_equal(stats_mann_kendall(down, N(down), &t), 0);
	assert_close(t.s, -13, 0);
	assert_close(t.var_s, 42.333333333333336, 1e-14);
	assert_close(t.tau, -0.6190476190476191, 1e-14);
	assert_close(t.z, -1.8443358704828159, 1e-13);
	assert_close(t.p, 0.06513420695564257, 1e-10);
	/* mk([1.0, 3.0, 2.0, 4.0]) -> (4, 8.666666666666666, 0.667, 1.019,
	 *                              0.308179547467054) */
	assert_int_equal(stats_mann_kendall(four, N(four), &t), 0);
	assert_close(t.var_s, 8.666666666666666, 1e-14);
	assert_close(t.p, 0.308179547467054, 1e-10);
}

static void test_mann_kendall_needs_four_values_flat_has_no_trend(
	void **state)
{
	static const double three[] = { 1.0, 2.0, 3.0 };
	static const double flat[] = { 2.0, 2.0, 2.0, 2.0, 2.0 };
	struct stats_trend t;

	(void)state;
	assert_int_equal(stats_mann_kendall(three, 3, &t), 0);
	assert_false(t.tested);
	assert_true(isnan(t.p));
	assert_int_equal(stats_mann_kendall(flat, 5, &t), 0);
	assert_true(t.tested);
	assert_close(t.s, 0, 0);
	assert_close(t.var_s, 0, 0);
	assert_close(t.p, 1.0, 0);
	assert_int_equal(stats_mann_kendall(NULL, 5, &t), -EINVAL);
}

static void test_kendall_matches_scipy(void **state)
{
	/* scipy.stats.kendalltau(x, y): tau 0.7575757575757575 (no ties);
	 * S = 50, var(S) = 12 * 11 * 29 / 18, and the continuity-corrected
	 * normal p, 2 * norm.sf((50 - 1) / sqrt(212.667)) = 0.00077926997 */
	static const double x[] = { 3.1, 1.2, 4.5, 2.2, 5.9, 0.7, 6.3, 7.7, 2.9, 8.1, 9.4, 4.1 };
	static const double y[] = { 10.0, 9.1, 12.5, 11.0, 12.0, 8.7, 11.9, 14.2, 10.4, 13.0, 15.1, 10.9 };
	static const double nan_x[] = { 1, 2, NAN, 4 };
	struct stats_trend t;
	double neg[12];

	(void)state;
	assert_int_equal(stats_kendall(x, y, 12, &t), 0);
	assert_true(t.tested);
	assert_float_equal(t.tau, 0.7575757575757575, 1e-12);
	assert_float_equal(t.s, 50, 0);
	assert_float_equal(t.var_s, 212.66666666666666, 1e-9);
	assert_float_equal(t.p, 0.0007792699724176719, 1e-12);
	/* y falling as x rises: the same strength, the other sign */
	for (int i = 0; i < 12; i++)
		neg[i] = -y[i];
	assert_int_equal(stats_kendall(x, neg, 12, &t), 0);
	assert_float_equal(t.tau, -0.7575757575757575, 1e-12);
	assert_int_equal(stats_kendall(x, y, 3, &t), 0);
	assert_false(t.tested);
	assert_int_equal(stats_kendall(nan_x, y, 4, &t), -EINVAL);
	assert_int_equal(stats_kendall(NULL, y, 4, &t), -EINVAL);
}

static void test_host_trend_only_when_the_speed_moved_with_the_rate(void **state)
{
	double rates[40], down[40], flat[40], up[40], gappy[40];
	struct stats_trend rt;
	struct stats_host_trend h;
	bool not_steady;

	(void)state;
	stepped(rates, 3600, 2700);
	stepped(down, 380, 300);
	stepped(flat, 380, 380);
	stepped(up, 300, 380);
	assert_int_equal(stats_steady(rates, 40, &rt, &not_steady), 0);
	assert_true(not_steady && rt.tau < 0);
	/* the host slowed when the rate fell: the host's doing */
	assert_int_equal(stats_host_trend(rates, down, 40, &rt, not_steady, &h), 0);
	assert_true(h.tested && h.host_trend);
	assert_true(h.speed.tau < -0.25 && h.speed.p < 0.01);
	assert_true(h.rate_speed.tau > 0.25 && h.rate_speed.p < 0.01);
	/* the host held its speed: the rate fell for another reason */
	assert_int_equal(stats_host_trend(rates, flat, 40, &rt, not_steady, &h), 0);
	assert_true(h.tested);
	assert_false(h.host_trend);
	/* the host sped up while the rate fell: not the host either */
	assert_int_equal(stats_host_trend(rates, up, 40, &rt, not_steady, &h), 0);
	assert_false(h.host_trend);
	assert_true(h.rate_speed.tau < 0);
	/* a steady window is never the host's, whatever the speed did */
	assert_int_equal(stats_host_trend(rates, down, 40, &rt, false, &h), 0);
	assert_false(h.host_trend);
	/* ticks without a burst are left out; under 8 left: not tested */
	for (int i = 0; i < 40; i++)
		gappy[i] = i % 6 ? NAN : down[i];
	assert_int_equal(stats_host_trend(rates, gappy, 40, &rt, not_steady, &h), 0);
	assert_false(h.tested);
	assert_false(h.host_trend);
	assert_int_equal(stats_host_trend(NULL, down, 40, &rt, not_steady, &h), -EINVAL);
}

static void test_host_moved_when_the_round_trip_changed_level(void **state)
{
	double rates[40], apart[40], jitter[40], gappy[40], flat[40];
	struct stats_host_moved h;

	(void)state;
	/* the host moved the vCPUs apart half-way (120 ns to 430 ns, as on
	 * the EPYC guest) and the rate halved with it */
	stepped(rates, 30, 15);
	/* a jitter of its own, not the rates' zigzag */
	for (int i = 0; i < 40; i++)
		apart[i] = (i < 20 ? 120 : 430) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), 0);
	assert_true(h.tested && h.moved);
	assert_int_equal(h.levels, 2);
	assert_float_equal(h.lo_ns, 120, 3);
	assert_float_equal(h.hi_ns, 430, 10);
	assert_true(h.rate_xcpu.tested && h.rate_xcpu.tau < -0.25 && h.rate_xcpu.p < 0.01);
	/* far apart half the window, at half the rate */
	assert_float_equal(h.far_pct, 50, 1e-9);
	assert_float_equal(h.rate_far_pct, 50, 0.5);
	/* moved apart for one second of four in the middle: found too */
	for (int i = 0; i < 40; i++)
		apart[i] = (i >= 15 && i < 25 ? 430 : 120) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), 0);
	assert_true(h.tested && h.moved);
	assert_int_equal(h.levels, 3);
	/* 10 ticks of 40, half of them before the rate's step and half
	 * after, as the other ticks: the same mean rate */
	assert_float_equal(h.far_pct, 25, 1e-9);
	assert_float_equal(h.rate_far_pct, 100, 2);
	/* apart for the 12 ticks from the 25th while the rate held: the
	 * share, at its rate */
	stepped(flat, 20, 20);
	for (int i = 0; i < 40; i++)
		apart[i] = i >= 25 && i < 37 ? 350 : 85;
	assert_int_equal(stats_host_moved(flat, apart, 40, &h), 0);
	assert_true(h.moved);
	assert_float_equal(h.far_pct, 30, 1e-9);
	assert_float_equal(h.rate_far_pct, 100, 3);
	/* a rate of 0 near them leaves no ratio */
	for (int i = 0; i < 40; i++)
		flat[i] = i >= 25 && i < 37 ? 5 : 0;
	assert_int_equal(stats_host_moved(flat, apart, 40, &h), 0);
	assert_true(h.moved);
	assert_true(isnan(h.rate_far_pct));
	for (int i = 0; i < 40; i++)
		apart[i] = (i < 20 ? 120 : 430) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	/* a step of 115 to 135 ns within one placement is a level, not a move */
	stepped(jitter, 115, 135);
	assert_int_equal(stats_host_moved(rates, jitter, 40, &h), 0);
	assert_true(h.tested);
	assert_false(h.moved);
	assert_float_equal(h.far_pct, 0, 0);
	assert_true(isnan(h.rate_far_pct));
	/* one placement throughout: one level */
	stepped(flat, 120, 120);
	assert_int_equal(stats_host_moved(rates, flat, 40, &h), 0);
	assert_int_equal(h.levels, 1);
	assert_false(h.moved);
	/* ticks without a round are left out: too few for levels, still a
	 * correlation */
	for (int i = 0; i < 40; i++)
		gappy[i] = i % 4 ? NAN : apart[i];
	assert_int_equal(stats_host_moved(rates, gappy, 40, &h), 0);
	assert_false(h.tested);
	assert_false(h.moved);
	assert_true(isnan(h.rate_far_pct));
	assert_true(h.rate_xcpu.tested && h.rate_xcpu.tau < 0);
	assert_int_equal(stats_host_moved(NULL, apart, 40, &h), -EINVAL);
	rates[3] = NAN;
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), -EINVAL);
}

/*
 * Not steady on windows of 50 rates (5 s): on persistent noise alone, under
 * half as often as the plain test called trends (which was in one window
 * in seven or more); a throttle to half the rate always, a step of 20 % or
 * a slope of 30 % over the window nearly always.
 */
static void test_steady_widens_for_persistence_and_keeps_throttles(void **state)
{
	static const double phis[] = { 0.5, 0.7 };
	static const struct {
		double step, slope;
		int at_least;
	} moves[] = { { 0.5, 0, 100 }, { 0.2, 0, 85 }, { 0, 0.3, 85 } };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_trend tr, plain;
	int flagged, naive, reps = 400;
	bool ns;
	double x[50];

	(void)state;
	gsl_rng_set(rng, 31);
	for (size_t a = 0; a < N(phis); a++) {
		flagged = naive = 0;
		for (int r = 0; r < reps; r++) {
			ar1(rng, x, 50, 30, phis[a], 5);
			assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
			assert_int_equal(stats_mann_kendall(x, 50, &plain), 0);
			assert_true(tr.var_factor >= 1 && tr.rho >= 0 && tr.rho <= STATS_STEADY_RHO_MAX);
			assert_float_equal(tr.s, plain.s, 0);
			assert_true(tr.p >= plain.p);
			flagged += ns;
			naive += plain.p < STATS_STEADY_P && fabs(plain.tau) > STATS_STEADY_TAU;
		}
		print_message("AR(1) %.1f, 50 rates: not steady in %d of %d, the plain test %d\n",
			      phis[a], flagged, reps, naive);
		assert_true(naive >= reps / 7);
		assert_true(flagged <= reps / 10 && 5 * flagged <= 2 * naive);
	}
	/* on noise of persistence 0.7 */
	for (size_t m = 0; m < N(moves); m++) {
		flagged = 0;
		for (int r = 0; r < 100; r++) {
			ar1(rng, x, 50, 30, 0.7, 5);
			for (size_t i = 0; i < 50; i++)
				x[i] *= (i >= 25 ? 1 - moves[m].step : 1) -
					moves[m].slope * (double)i / 50;
			assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
			flagged += ns;
		}
		print_message("a step of %.0f %%, a slope of %.0f %%: not steady in %d of 100\n",
			      100 * moves[m].step, 100 * moves[m].slope, flagged);
		assert_true(flagged >= moves[m].at_least);
	}
	/* white noise: no widening to speak of */
	ar1(rng, x, 50, 30, 0, 5);
	assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
	assert_true(tr.var_factor < 1.5);
	/* a plain test reports no widening; too few rates, not tested */
	assert_int_equal(stats_mann_kendall(x, 50, &plain), 0);
	assert_float_equal(plain.var_factor, 1, 0);
	assert_float_equal(plain.rho, 0, 0);
	assert_int_equal(stats_steady(x, 7, &tr, &ns), 0);
	assert_false(tr.tested || ns);
	gsl_rng_free(rng);
}

/* stats_xcpu_mix() on its own: without figures, one side empty, one
 * sample, a round trip that is not a number, NULL */
static void test_xcpu_mix_splits_at_the_widest_gap_that_is_a_move(void **state)
{
	static const double xa[] = { 450, 120, 125 }, xb[] = { 118, 460, 470, 455 };
	static const double bad[] = { 120, 0, 450 };
	struct stats_xcpu_mix m;

	(void)state;
	assert_int_equal(stats_xcpu_mix(xa, NULL, 3, xb, NULL, 4, &m), 0);
	assert_true(m.split && stats_xcpu_mix_differs(&m));
	assert_int_equal(m.far[0], 1);
	assert_int_equal(m.far[1], 3);
	assert_float_equal(m.hi_ns[0], 125, 0);
	assert_float_equal(m.lo_ns[1], 450, 0);
	assert_true(isnan(m.median[0][0]) && isnan(m.median[1][1]));
	/* B alone: two distances, but no other side to differ from */
	assert_int_equal(stats_xcpu_mix(NULL, NULL, 0, xb, NULL, 4, &m), 0);
	assert_true(m.split);
	assert_false(stats_xcpu_mix_differs(&m));
	assert_int_equal(stats_xcpu_mix(xa, NULL, 1, xb, NULL, 0, &m), 0);
	assert_false(m.split);
	assert_int_equal(stats_xcpu_mix(bad, NULL, 3, xb, NULL, 4, &m), 0);
	assert_false(m.split);
	assert_int_equal(stats_xcpu_mix(xa, NULL, 3, xb, NULL, 4, NULL), -EINVAL);
	assert_int_equal(stats_xcpu_mix(NULL, NULL, 3, xb, NULL, 4, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_outliers_by_modified_z),
		cmocka_unit_test(test_outliers_fall_back_to_mean_ad_when_mad_is_zero),
		cmocka_unit_test(test_mann_kendall_matches_python),
		cmocka_unit_test(test_mann_kendall_needs_four_values_flat_has_no_trend),
		cmocka_unit_test(test_kendall_matches_scipy),
		cmocka_unit_test(test_host_trend_only_when_the_speed_moved_with_the_rate),
		cmocka_unit_test(test_host_moved_when_the_round_trip_changed_level),
		cmocka_unit_test(test_xcpu_mix_splits_at_the_widest_gap_that_is_a_move),
		cmocka_unit_test(test_steady_widens_for_persistence_and_keeps_throttles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
