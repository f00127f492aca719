// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/desc.c: descriptive statistics, confidence intervals and paired ratios. */
#include "stats_fixtures.h"

#include "stats/desc.h"

static const double desc_x[] = { 10.2, 9.8, 10.5, 11.1, 9.9, 10.0, 12.3 };

static void test_desc_matches_numpy(void **state)
{
	double v;

	(void)state;
	/* np.mean(x) with x = desc_x */
	assert_int_equal(stats_mean(desc_x, N(desc_x), &v), 0);
	assert_close(v, 10.542857142857143, 1e-15);
	/* np.median(x) */
	assert_int_equal(stats_median(desc_x, N(desc_x), &v), 0);
	assert_close(v, 10.2, 0);
	/* np.std(x, ddof=1) */
	assert_int_equal(stats_sd(desc_x, N(desc_x), &v), 0);
	assert_close(v, 0.892295061171178, 1e-14);
	/* 100*np.std(x, ddof=1)/abs(np.mean(x)) */
	assert_int_equal(stats_cv_pct(desc_x, N(desc_x), &v), 0);
	assert_close(v, 8.463503290241524, 1e-14);
	/* stats.median_abs_deviation(x) (scale=1.0: unscaled) */
	assert_int_equal(stats_mad(desc_x, N(desc_x), &v), 0);
	assert_close(v, 0.3000000000000007, 1e-14);
}

static void test_desc_quantile_is_type_7(void **state)
{
	static const double y[] = { 4.0, 1.0, 3.0, 2.0, 8.0, 5.0 };
	double v;

	(void)state;
	/* np.quantile(x, p, method='linear'), numpy's name for R's type 7 */
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.0, &v), 0);
	assert_close(v, 9.8, 0);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.1, &v), 0);
	assert_close(v, 9.860000000000001, 1e-14);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.25, &v), 0);
	assert_close(v, 9.95, 1e-15);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.9, &v), 0);
	assert_close(v, 11.58, 1e-14);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 1.0, &v), 0);
	assert_close(v, 12.3, 0);
	/* np.quantile(y, 0.33) */
	assert_int_equal(stats_quantile(y, N(y), 0.33, &v), 0);
	assert_close(v, 2.6500000000000004, 1e-14);
	/* np.median(y): even n */
	assert_int_equal(stats_median(y, N(y), &v), 0);
	assert_close(v, 3.5, 0);
	/* stats.median_abs_deviation(y) */
	assert_int_equal(stats_mad(y, N(y), &v), 0);
	assert_close(v, 1.5, 0);
}

static void test_desc_does_not_modify_input(void **state)
{
	double x[N(desc_x)], v;

	(void)state;
	memcpy(x, desc_x, sizeof(x));
	assert_int_equal(stats_median(x, N(x), &v), 0);
	assert_int_equal(stats_quantile(x, N(x), 0.3, &v), 0);
	assert_int_equal(stats_mad(x, N(x), &v), 0);
	assert_int_equal(stats_sd(x, N(x), &v), 0);
	assert_memory_equal(x, desc_x, sizeof(x));
}

static void test_desc_single_value_and_rejects_bad_input(void **state)
{
	static const double one[] = { 42.0 };
	static const double zero_mean[] = { -1.0, 1.0 };
	double bad[] = { 1.0, NAN, 2.0 };
	double v = -7;

	(void)state;
	assert_int_equal(stats_median(one, 1, &v), 0);
	assert_close(v, 42.0, 0);
	assert_int_equal(stats_quantile(one, 1, 0.9, &v), 0);
	assert_close(v, 42.0, 0);
	assert_int_equal(stats_mad(one, 1, &v), 0);
	assert_close(v, 0.0, 0);

	v = -7;
	assert_int_equal(stats_sd(one, 1, &v), -EINVAL);
	assert_int_equal(stats_cv_pct(one, 1, &v), -EINVAL);
	assert_int_equal(stats_mean(one, 0, &v), -EINVAL);
	assert_int_equal(stats_median(NULL, 3, &v), -EINVAL);
	assert_int_equal(stats_mean(one, 1, NULL), -EINVAL);
	assert_int_equal(stats_quantile(one, 1, 1.5, &v), -EINVAL);
	assert_int_equal(stats_quantile(one, 1, NAN, &v), -EINVAL);
	assert_int_equal(stats_median(bad, N(bad), &v), -EINVAL);
	bad[1] = INFINITY;
	assert_int_equal(stats_mean(bad, N(bad), &v), -EINVAL);
	assert_int_equal(stats_cv_pct(zero_mean, 2, &v), -EDOM);
	assert_close(v, -7, 0); /* failures leave *out alone */
}

/*
 * Half-width of the 95% t interval of the mean, in percent of the mean.
 * Reference (/usr/bin/python3, SciPy 1.10.1):
 *   x=[1,2,3,4,5]; stats.t.ppf(0.975, 4) * np.std(x, ddof=1) /
 *   np.sqrt(5) / 3 * 100 = 65.44144
 */
static void test_ci_half_pct_matches_scipy(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5 }, z[] = { -1, 1 };
	double h;

	(void)state;
	assert_int_equal(stats_ci_half_pct(x, 5, 0.95, &h), 0);
	assert_true(fabs(h - 65.44144) < 1e-4);
	assert_int_equal(stats_ci_half_pct(x, 1, 0.95, &h), -EINVAL);
	assert_int_equal(stats_ci_half_pct(x, 5, 1.0, &h), -EINVAL);
	assert_int_equal(stats_ci_half_pct(z, 2, 0.95, &h), -EDOM);
	/* --until-ci's figure: the same once there are 3 values, +inf before
	 * and when there is none */
	assert_true(fabs(stats_settle_half_pct(x, 5) - 65.44144) < 1e-4);
	assert_true(isinf(stats_settle_half_pct(x, 2)));
	assert_true(isinf(stats_settle_half_pct(z, 2)));
	assert_true(stats_settle_half_pct(x, 3) > 0);
}

/*
 * Geometric mean of paired ratios and its 95% t interval on the logs.
 * Reference (/usr/bin/python3, SciPy 1.10.1):
 *   l = np.log(num / den); h = stats.t.ppf(0.975, 4) * l.std(ddof=1) /
 *   np.sqrt(5); np.exp([l.mean(), l.mean() - h, l.mean() + h])
 *   = 1.00376752, 0.97417750, 1.03425632
 */
static void test_paired_ratio_matches_scipy(void **state)
{
	const double num[] = { 10.2, 9.9, 20.2, 4.85, 10.3 };
	const double den[] = { 10, 10, 20, 5, 10 };
	const double same[] = { 3, 3 }, zero[] = { 1, 0 }, inf[] = { 1, INFINITY };
	struct stats_ratio r;

	(void)state;
	assert_int_equal(stats_paired_ratio(num, den, 5, 0.95, &r), 0);
	assert_int_equal(r.n, 5);
	assert_true(fabs(r.geomean - 1.00376752) < 1e-7);
	assert_true(fabs(r.lo - 0.97417750) < 1e-7);
	assert_true(fabs(r.hi - 1.03425632) < 1e-7);
	/* the interval is that of num / den turned over */
	assert_int_equal(stats_paired_ratio(den, num, 5, 0.95, &r), 0);
	assert_true(fabs(r.geomean - 1 / 1.00376752) < 1e-7);
	assert_true(fabs(r.hi - 1 / 0.97417750) < 1e-7);
	/* identical ratios: no spread, a zero-width interval */
	assert_int_equal(stats_paired_ratio(same, same, 2, 0.95, &r), 0);
	assert_true(r.lo == 1 && r.geomean == 1 && r.hi == 1);
	assert_int_equal(stats_paired_ratio(num, den, 1, 0.95, &r), -EINVAL);
	assert_int_equal(stats_paired_ratio(num, den, 5, 0, &r), -EINVAL);
	assert_int_equal(stats_paired_ratio(zero, same, 2, 0.95, &r), -EDOM);
	assert_int_equal(stats_paired_ratio(same, zero, 2, 0.95, &r), -EDOM);
	assert_int_equal(stats_paired_ratio(inf, same, 2, 0.95, &r), -EINVAL);
}

/*
 * The 2 x 2 crossover by hand: pairs whose A ran first read ln(B/A) 0.12
 * +- 0.01, the others 0.08 +- 0.01: a change of 0.10 and a second run
 * 0.02 higher, each with the pooled sd 0.0141 over 2 degrees of freedom
 * and the standard error sd / 2 x sqrt(1/2 + 1/2); one order alone is
 * refused.
 */
static void test_crossover_ratio_by_hand(void **state)
{
	const double d[] = { 0.13, 0.11, 0.09, 0.07 };
	const bool a_first[] = { true, true, false, false }, one_order[] = { true, true, true, true };
	double a[4], b[4], se = sqrt(0.0002) / 2, h = gsl_cdf_tdist_Qinv(0.025, 2) * se;
	struct stats_ratio c, p;

	(void)state;
	for (int i = 0; i < 4; i++) {
		a[i] = 10 + i;
		b[i] = a[i] * exp(d[i]);
	}
	assert_int_equal(stats_crossover_ratio(b, a, a_first, 4, 0.95, &c, &p), 0);
	assert_int_equal(c.n, 4);
	assert_true(fabs(log(c.geomean) - 0.10) < 1e-12);
	assert_true(fabs(log(p.geomean) - 0.02) < 1e-12);
	assert_true(fabs(c.sd_log - sqrt(0.0002)) < 1e-12 && p.sd_log == c.sd_log);
	assert_true(fabs(log(c.lo) - (0.10 - h)) < 1e-12 && fabs(log(c.hi) - (0.10 + h)) < 1e-12);
	assert_true(fabs(c.p - 2 * gsl_cdf_tdist_Q(0.10 / se, 2)) < 1e-12);
	assert_true(fabs(p.p - 2 * gsl_cdf_tdist_Q(0.02 / se, 2)) < 1e-12);
	assert_int_equal(stats_crossover_ratio(b, a, one_order, 4, 0.95, &c, &p), -EINVAL);
	a[2] = 0;
	assert_int_equal(stats_crossover_ratio(b, a, a_first, 4, 0.95, &c, &p), -EDOM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ci_half_pct_matches_scipy),
		cmocka_unit_test(test_paired_ratio_matches_scipy),
		cmocka_unit_test(test_desc_matches_numpy),
		cmocka_unit_test(test_desc_quantile_is_type_7),
		cmocka_unit_test(test_desc_does_not_modify_input),
		cmocka_unit_test(test_desc_single_value_and_rejects_bad_input),
		cmocka_unit_test(test_crossover_ratio_by_hand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
