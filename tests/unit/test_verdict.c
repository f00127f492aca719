// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/verdict.c: one metric's verdict between two labels. */
#include "stats_fixtures.h"

#include "stats/desc.h"
#include "stats/verdict.h"

static void test_verdict_names_and_default_opts(void **state)
{
	struct stats_compare_opts o;

	(void)state;
	assert_string_equal(stats_verdict_name(STATS_REGRESSION),
			    "REGRESSION");
	assert_string_equal(stats_verdict_name(STATS_IMPROVEMENT),
			    "IMPROVEMENT");
	assert_string_equal(stats_verdict_name(STATS_CHANGED), "changed");
	assert_string_equal(stats_verdict_name(STATS_MINOR), "minor");
	assert_string_equal(stats_verdict_name(STATS_SAME), "same");
	assert_string_equal(stats_verdict_name(STATS_INCONCLUSIVE),
			    "inconclusive");
	assert_string_equal(stats_verdict_name(STATS_TOO_FEW), "too few");
	assert_string_equal(stats_verdict_name((enum stats_verdict_kind)99),
			    "?");
	stats_compare_opts_init(&o);
	assert_close(o.alpha, 0.05, 0);
	assert_close(o.min_change_pct, 2.0, 0);
	assert_close(o.conf, 0.95, 0);
	assert_close(o.power, 0.8, 0);
	assert_int_equal(o.min_n, 4);
}

static const double reg_a[] = { 10.02, 9.95, 10.10, 9.98, 10.05, 10.01 };

static const double reg_b[] = { 9.01, 9.10, 8.95, 9.05, 8.98, 9.03 };

static void test_compare_clear_drop_by_direction(void **state)
{
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_REGRESSION);
	assert_true(r.log_scale);
	assert_false(r.shift_abs);
	assert_true(r.exact);
	/* stats.mannwhitneyu(a, b, method='exact').pvalue */
	assert_close(r.p, 0.0021645021645021645, 1e-12);
	/* np.median(a), np.median(b) */
	assert_close(r.median_a, 10.015, 1e-15);
	assert_close(r.median_b, 9.02, 1e-15);
	/* hlpct(a, b) */
	assert_close(r.shift_pct, -9.970131568157779, 1e-12);
	assert_true(r.shift_lo_pct <= r.shift_pct &&
		    r.shift_pct <= r.shift_hi_pct);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, -9.965064049243034, 1e-12);
	/* 100*np.std(a, ddof=1)/abs(np.mean(a)), same for b */
	assert_close(r.sd_pct_a, 0.5259765665243964, 1e-12);
	assert_close(r.sd_pct_b, 0.5866410889278479, 1e-12);
	assert_int_equal(r.runs_needed, 0);
	assert_int_equal(r.na, 6);

	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_LOWER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_NEUTRAL, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_CHANGED);
	/* the other way round, b better */
	assert_int_equal(stats_compare_samples(reg_b, 6, reg_a, 6,
					       STATS_HIGHER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_true(r.shift_pct > 0);
}

static void test_compare_significant_but_small_is_minor(void **state)
{
	static const double a[] = { 100.0, 100.1, 99.9, 100.05,
				    99.95, 100.02, 99.98, 100.03 };
	double b[8];
	struct stats_compare r;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		b[i] = a[i] + 0.5;
	assert_int_equal(stats_compare_samples(a, 8, b, 8, STATS_HIGHER,
					       NULL, &r),
			 0);
	/* every b above every a: p = 2/C(16,8) */
	assert_close(r.p, 2.0 / 12870, 1e-12);
	assert_true(r.shift_pct > 0.45 && r.shift_pct < 0.55);
	assert_int_equal(r.verdict, STATS_MINOR);
}

static void test_compare_quiet_equal_samples_are_same(void **state)
{
	static const double a[] = { 100.0, 100.2, 99.8, 100.1, 99.9,
				    100.05, 99.95, 100.15, 99.85, 100.02 };
	static const double b[] = { 100.1, 99.9, 100.0, 100.2, 99.8,
				    99.95, 100.05, 99.85, 100.15, 99.98 };
	static const double seven[] = { 7, 7, 7, 7, 7 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 10, b, 10, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_true(r.p > 0.5);
	assert_true(r.shift_lo_pct >= -2 && r.shift_hi_pct <= 2);
	assert_int_equal(r.verdict, STATS_SAME);

	/* identical values on both sides */
	assert_int_equal(stats_compare_samples(seven, 5, seven, 5,
					       STATS_LOWER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_SAME);
	assert_close(r.p, 1.0, 0);
	assert_close(r.shift_pct, 0.0, 0);
	assert_close(r.sd_pct_a, 0.0, 0);
	assert_int_equal(r.outliers_a, 0);
}

static void test_compare_noisy_is_inconclusive_with_runs_needed(void **state)
{
	static const double a[] = { 100, 112, 91, 105, 96 };
	static const double b[] = { 98, 85, 107, 93, 101 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	/* stats.mannwhitneyu(a, b, method='exact').pvalue */
	assert_close(r.p, 0.6904761904761905, 1e-12);
	/* hlpct(a, b) */
	assert_close(r.shift_pct, -3.809523809523759, 1e-10);
	/* sa = np.std(np.log(a), ddof=1); sb likewise; d = math.log1p(0.02)
	 * nt = (stats.norm.ppf(0.975)+stats.norm.ppf(0.8))**2
	 *      * (sa*sa+sb*sb)/d**2; math.ceil(nt/(3/math.pi)) -> 294 */
	assert_int_equal(r.runs_needed, 294);
}

static void test_compare_zeros_fall_back_to_raw_shift(void **state)
{
	static const double a[] = { 0, 2, 3, 1, 2 };
	static const double b[] = { 5, 6, 7, 5, 8 };
	struct stats_compare r;

	(void)state;
	/* a counter, lower is better */
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_LOWER, NULL,
					       &r),
			 0);
	assert_false(r.log_scale);
	assert_false(r.shift_abs);
	/* 100*np.median(np.subtract.outer(b, a))/2 (2 = |median(a)|) */
	assert_close(r.shift_pct, 250.0, 1e-14);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, 287.49999999999994, 1e-12);
	/* no b at or below any a: brute_tied(a, b)[1] = 2/252 */
	assert_close(r.p, 2.0 / 252, 1e-12);
	assert_int_equal(r.verdict, STATS_REGRESSION);
}

static void test_compare_zero_median_gives_absolute_shift(void **state)
{
	static const double zeros[] = { 0, 0, 0, 0, 0, 0 };
	static const double errs[] = { 3, 4, 5, 2, 6, 3 };
	static const double few[] = { 0, 0, 0, 1, 0 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(zeros, 6, errs, 6, STATS_LOWER,
					       NULL, &r),
			 0);
	assert_true(r.shift_abs);
	assert_false(r.log_scale);
	assert_true(isnan(r.change_mean_pct));
	/* np.median(np.subtract.outer(errs, zeros)) = np.median(errs) */
	assert_close(r.shift_pct, 3.5, 0);
	/* brute_tied([0]*6, errs)[1] = 2/924 */
	assert_close(r.p, 2.0 / 924, 1e-12);
	assert_int_equal(r.verdict, STATS_REGRESSION);

	/* one stray error: not significant, no percentages: inconclusive,
	 * and no run count can be promised */
	assert_int_equal(stats_compare_samples(zeros, 5, few, 5, STATS_LOWER,
					       NULL, &r),
			 0);
	assert_true(r.shift_abs);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal(r.runs_needed, 0);
}

static void test_compare_negative_values_use_raw_shift(void **state)
{
	static const double a[] = { -5.0, -4.8, -5.2, -4.9, -5.1 };
	static const double b[] = { -4.0, -3.9, -4.1, -4.2, -3.8 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_NEUTRAL,
					       NULL, &r),
			 0);
	assert_false(r.log_scale);
	/* 100*np.median(np.subtract.outer(b, a))/5 */
	assert_close(r.shift_pct, 20.0, 1e-13);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, 20.0, 1e-13);
	assert_int_equal(r.verdict, STATS_CHANGED);
}

static void test_compare_too_few_still_fills_what_it_can(void **state)
{
	static const double a[] = { 10, 11, 10.5 };
	static const double b[] = { 9, 9.5, 9.2, 9.1 };
	struct stats_compare r;
	struct stats_compare_opts o;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 3, b, 4, STATS_HIGHER, NULL,
					       &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_close(r.median_a, 10.5, 0);
	assert_close(r.median_b, 9.15, 1e-15);
	assert_false(isnan(r.p));
	assert_true(r.runs_needed >= 4);
	assert_true(isnan(r.drift_p_a)); /* 3 values: no trend test */
	assert_false(isnan(r.drift_p_b));

	/* one run a side never decides, whatever min_n says */
	stats_compare_opts_init(&o);
	o.min_n = 1;
	assert_int_equal(stats_compare_samples(a, 1, b, 1, STATS_HIGHER, &o,
					       &r),
			 -EINVAL);
	o.min_n = 2;
	assert_int_equal(stats_compare_samples(a, 1, b, 1, STATS_HIGHER, &o,
					       &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_close(r.p, 1.0, 0);
	assert_true(isnan(r.sd_pct_a));

	/* an empty side */
	assert_int_equal(stats_compare_samples(NULL, 0, b, 4, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_true(isnan(r.median_a));
	assert_true(isnan(r.p));
	assert_close(r.median_b, 9.15, 1e-15);
}

static void test_compare_rejects_bad_input(void **state)
{
	double bad[] = { 1, 2, NAN, 4 };
	struct stats_compare_opts o;
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(bad, 4, reg_b, 6, STATS_HIGHER,
					       NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       (enum stats_better)7, NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, NULL, 6, STATS_HIGHER,
					       NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, NULL, NULL),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.alpha = 0;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.conf = 1;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.min_change_pct = -1;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
}

static void test_compare_paired_tests_the_ratios(void **state)
{
	/* B 10% below A in every pair, whatever the pair's level */
	static const double a[] = { 10, 20, 30, 40, 50 };
	static const double b[] = { 9, 18, 27, 36, 45 };
	/* ratios 0.97..1.03 around 1 */
	static const double c[] = { 9.7, 20.6, 29.4, 41.2, 50.5 };
	static const double zero[] = { 10, 20, 0, 40, 50 };
	const double nan_[] = { 10, 20, NAN, 40, 50 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.na, 5);
	assert_int_equal(r.nb, 5);
	assert_true(r.log_scale && !r.exact);
	assert_float_equal(r.shift_pct, -10, 1e-9);
	assert_float_equal(r.shift_lo_pct, -10, 1e-9);
	assert_float_equal(r.shift_hi_pct, -10, 1e-9);
	assert_float_equal(r.p, 0, 0);
	assert_int_equal(r.verdict, STATS_REGRESSION);
	/* the unpaired test sees the levels, not the ratio */
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_HIGHER, NULL, &r), 0);
	assert_true(r.p > 0.5);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_LOWER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_NEUTRAL, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_CHANGED);

	/* ratios around 1, spread +-3%: no call, and how many pairs would do */
	assert_int_equal(stats_compare_paired(a, c, 5, STATS_HIGHER, NULL, &r), 0);
	assert_true(r.p > 0.05);
	assert_true(r.shift_lo_pct < 0 && r.shift_pct > -3 && r.shift_pct < 3 && r.shift_hi_pct > 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_true(r.runs_needed > 5);

	/* the same values: same; too few pairs: too few */
	assert_int_equal(stats_compare_paired(a, a, 5, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SAME);
	assert_int_equal(stats_compare_paired(a, b, 3, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_int_equal(r.runs_needed, 4);

	/* no ratio of a value <= 0; bad input */
	assert_int_equal(stats_compare_paired(a, zero, 5, STATS_HIGHER, NULL, &r), -EDOM);
	assert_int_equal(stats_compare_paired(a, nan_, 5, STATS_HIGHER, NULL, &r), -EINVAL);
	assert_int_equal(stats_compare_paired(NULL, b, 5, STATS_HIGHER, NULL, &r), -EINVAL);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_HIGHER, NULL, NULL), -EINVAL);
	assert_int_equal(stats_compare_paired(a, b, 5, (enum stats_better)7, NULL, &r), -EINVAL);
}

static void test_compare_large_n_uses_normal_approximation(void **state)
{
	double a[200], b[200];
	struct stats_compare r;

	(void)state;
	/* a = [(i*37)%101/10+20 for i in range(200)];
	 * b = [(j*53)%97/10+20.5 for j in range(200)]
	 * stats.mannwhitneyu(a, b, method='asymptotic').pvalue
	 *   0.37832417761792525
	 * hlpct(a, b) 1.030927835051541; the normal-rule interval on logs,
	 * k = 17734: 100*np.expm1(ld[k-1]) -1.2931034482758252,
	 * 100*np.expm1(ld[mn-k]) 3.4146341463414207 */
	fill(a, 200, 37, 0, 101, 10, 20);
	fill(b, 200, 53, 0, 97, 10, 20.5);
	assert_int_equal(stats_compare_samples(a, 200, b, 200, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_false(r.exact);
	assert_close(r.p, 0.37832417761792525, 1e-9);
	assert_close(r.shift_pct, 1.030927835051541, 1e-10);
	assert_close(r.shift_lo_pct, -1.2931034482758252, 1e-10);
	assert_close(r.shift_hi_pct, 3.4146341463414207, 1e-10);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_true(r.runs_needed > 0);
}

static void test_compare_reports_drift_and_outliers(void **state)
{
	static const double a[] = { 10.0, 10.2, 10.1, 10.4,
				    10.4, 10.6, 10.5, 10.9 };
	static const double b[] = { 10, 10.1, 9.9, 10.05, 9.95, 10.6, 9.4,
				    10.3 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 8, b, 8, STATS_HIGHER, NULL,
					       &r),
			 0);
	/* mk(a)[4], as in test_mann_kendall_matches_python */
	assert_close(r.drift_p_a, 0.00609054605657881, 1e-10);
	assert_true(r.drift_p_b > 0.05);
	assert_int_equal(r.outliers_a, 0);
	assert_int_equal(r.outliers_b, 2); /* see test_outliers_by_modified_z */
}

enum shape { SHAPE_NORMAL, SHAPE_LOGNORMAL, SHAPE_MIXTURE };

static const char *const shape_name[] = { "normal", "lognormal",
					  "mixture" };

/*
 * One run's value around 100 with a coefficient of variation of cv_pct:
 * normal, lognormal, or a skewed mixture, 100 * (1 + c * (Z - 3 * B * E))
 * with Z standard normal, B Bernoulli(0.2), E Exp(1): one run in five is
 * slowed (a busy host). Var(Z - 3BE) = 1 + 9 * (0.2 * 2 - 0.2^2) = 4.24,
 * so c = cv / sqrt(4.24) gives the mixture the stated CV.
 */
static double draw(gsl_rng *rng, enum shape s, double cv_pct)
{
	double c = cv_pct / 100;

	if (s == SHAPE_MIXTURE)
		c /= sqrt(4.24);

	switch (s) {
	case SHAPE_NORMAL:
		return 100 * (1 + gsl_ran_gaussian(rng, c));
	case SHAPE_LOGNORMAL:
		return 100 * exp(gsl_ran_gaussian(rng, sqrt(log1p(c * c))));
	case SHAPE_MIXTURE:
		if (gsl_rng_uniform(rng) < 0.2)
			return 100 * (1 + gsl_ran_gaussian(rng, c) -
				      gsl_ran_exponential(rng, 3 * c));
		return 100 * (1 + gsl_ran_gaussian(rng, c));
	}
	return 100;
}

#define CAL_REPS 500

static void test_compare_aa_false_regression_rate_at_most_alpha(void **state)
{
	static const double cvs[] = { 1, 2, 5 };
	static const size_t ns[] = { 5, 10 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[10], b[10], rate, worst = 0;
	struct stats_compare r;
	size_t si, ci, ni, i;
	int rep, reg, sig;

	(void)state;
	gsl_rng_set(rng, 12345);
	for (si = 0; si < 3; si++)
		for (ci = 0; ci < N(cvs); ci++)
			for (ni = 0; ni < N(ns); ni++) {
				reg = sig = 0;
				for (rep = 0; rep < CAL_REPS; rep++) {
					for (i = 0; i < ns[ni]; i++) {
						a[i] = draw(rng, si, cvs[ci]);
						b[i] = draw(rng, si, cvs[ci]);
					}
					assert_int_equal(
						stats_compare_samples(
							a, ns[ni], b, ns[ni],
							STATS_HIGHER, NULL, &r),
						0);
					reg += r.verdict == STATS_REGRESSION;
					sig += r.p < 0.05;
				}
				rate = (double)reg / CAL_REPS;
				print_message("A/A %-9s cv %g%% n %2zu: "
					      "false REGRESSION %.3f, "
					      "p < 0.05 %.3f\n",
					      shape_name[si], cvs[ci], ns[ni],
					      rate, (double)sig / CAL_REPS);
				if (rate > worst)
					worst = rate;
				assert_true(rate <= 0.05);
			}
	print_message("A/A worst false REGRESSION rate %.3f\n", worst);
	gsl_rng_free(rng);
}

static void test_compare_finds_injected_5pct_regression(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[6], b[6], rate;
	struct stats_compare r;
	size_t si, i;
	int rep, reg;

	(void)state;
	gsl_rng_set(rng, 54321);
	for (si = 0; si < 3; si++) {
		reg = 0;
		for (rep = 0; rep < CAL_REPS; rep++) {
			for (i = 0; i < 6; i++) {
				a[i] = draw(rng, si, 2);
				b[i] = 0.95 * draw(rng, si, 2);
			}
			assert_int_equal(stats_compare_samples(a, 6, b, 6,
							       STATS_HIGHER,
							       NULL, &r),
					 0);
			reg += r.verdict == STATS_REGRESSION;
		}
		rate = (double)reg / CAL_REPS;
		print_message("5%% drop, cv 2%%, 6+6 %-9s: REGRESSION %.3f\n",
			      shape_name[si], rate);
		assert_true(rate >= 0.8);
	}
	gsl_rng_free(rng);
}

/*
 * How many pairs a crossover needs: pairs of A first read ln(B/A) 0.03,
 * 0.01, 0.05 and of B first 0.01, -0.01, 0.03: a change of 0.02 with a
 * pooled sd of 0.02 over 4 degrees of freedom, p about 0.07, so no call at
 * a 2% floor. Its mean has the paired t's standard error sd / sqrt(n),
 * and its t loses 2 degrees of freedom, not 1: ceil(z^2 sd^2 /
 * ln(1.02)^2) = ceil(8.006) = 9, + 2 = 11 pairs (the paired t's + 1
 * made it 10). The paired t over the same ratios, orders ignored (sd
 * 0.0210), needs ceil(8.807) + 1 = 10.
 */
static void test_crossover_runs_needed_counts_its_lost_degrees(void **state)
{
	static const double d[] = { 0.03, 0.01, 0.01, -0.01, 0.05, 0.03 };
	static const bool a_first[] = { true, false, true, false, true, false };
	double a[6], b[6], z = gsl_cdf_ugaussian_Pinv(0.975) + gsl_cdf_ugaussian_Pinv(0.8);
	struct stats_compare r;
	struct stats_ratio per;

	(void)state;
	for (int i = 0; i < 6; i++) {
		a[i] = 100 + 3 * i;
		b[i] = a[i] * exp(d[i]);
	}
	assert_int_equal(stats_compare_crossover(a, b, a_first, 6, STATS_HIGHER, NULL, &r, &per), 0);
	assert_true(fabs(r.shift_pct - 100 * expm1(0.02)) < 1e-9);
	assert_true(fabs(per.sd_log - 0.02) < 1e-12);
	assert_true(r.p > 0.05 && r.p < 0.1);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal((int)ceil(z * z * 0.0004 / (log(1.02) * log(1.02))), 9);
	assert_int_equal(r.runs_needed, 11);
	assert_int_equal(stats_compare_paired(a, b, 6, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal(r.runs_needed, 10);
	/* fewer than min_n pairs: the same formula, not the floor */
	{
		struct stats_compare_opts o;

		stats_compare_opts_init(&o);
		o.min_n = 7;
		assert_int_equal(stats_compare_crossover(a, b, a_first, 6, STATS_HIGHER, &o, &r,
							 &per), 0);
		assert_int_equal(r.verdict, STATS_TOO_FEW);
		assert_int_equal(r.runs_needed, 11);
	}
}

/* A change called at one estimate and not at another is not called. */
static void test_compare_union_takes_the_worst_of_its_parts(void **state)
{
	static const double a[] = { 100, 101, 99, 100.5, 99.5, 100.2 };
	static const double b0[] = { 90, 90.9, 89.1, 90.45, 89.55, 90.18 };
	static const double b1[] = { 99.8, 98.1, 100.9, 97.6, 99.9, 98.4 };
	static const double neg[] = { 90, -1, 89.1, 90.45, 89.55, 90.18 };
	struct stats_compare parts[3], u;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 6, b0, 6, STATS_HIGHER, NULL, &parts[0]), 0);
	assert_int_equal(stats_compare_samples(a, 6, b1, 6, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(parts[0].verdict, STATS_REGRESSION);
	assert_true(parts[1].p > 0.05);
	/* one part: itself */
	assert_int_equal(stats_compare_union(parts, 1, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_memory_equal(&u, &parts[0], sizeof(u));
	/* both: the larger p, the union of the intervals, parts[0]'s shift;
	 * no longer a regression, and runs_needed from parts[0]'s values */
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_true(u.p == parts[1].p);
	assert_true(u.shift_pct == parts[0].shift_pct);
	assert_true(u.shift_lo_pct == fmin(parts[0].shift_lo_pct, parts[1].shift_lo_pct));
	assert_true(u.shift_hi_pct == fmax(parts[0].shift_hi_pct, parts[1].shift_hi_pct));
	assert_true(u.median_b == parts[0].median_b);
	assert_int_equal(u.verdict, STATS_INCONCLUSIVE);
	assert_true(u.runs_needed > 0);
	/* the same part twice changes nothing */
	parts[2] = parts[0];
	assert_int_equal(stats_compare_union(parts + 1, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_INCONCLUSIVE);
	parts[1] = parts[0];
	assert_int_equal(stats_compare_union(parts, 3, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_REGRESSION);
	/* too few stays too few */
	assert_int_equal(stats_compare_samples(a, 3, b0, 3, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(stats_compare_union(parts + 1, 1, a, 3, b0, 3, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_TOO_FEW);
	/* sizes that differ, a part not in log scale, nothing, NULL */
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_samples(a, 6, neg, 6, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(parts, 0, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(NULL, 1, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(parts, 1, NULL, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_verdict_names_and_default_opts),
		cmocka_unit_test(test_compare_clear_drop_by_direction),
		cmocka_unit_test(test_compare_significant_but_small_is_minor),
		cmocka_unit_test(test_compare_quiet_equal_samples_are_same),
		cmocka_unit_test(test_compare_noisy_is_inconclusive_with_runs_needed),
		cmocka_unit_test(test_compare_zeros_fall_back_to_raw_shift),
		cmocka_unit_test(test_compare_zero_median_gives_absolute_shift),
		cmocka_unit_test(test_compare_negative_values_use_raw_shift),
		cmocka_unit_test(test_compare_too_few_still_fills_what_it_can),
		cmocka_unit_test(test_compare_rejects_bad_input),
		cmocka_unit_test(test_compare_paired_tests_the_ratios),
		cmocka_unit_test(test_compare_large_n_uses_normal_approximation),
		cmocka_unit_test(test_compare_reports_drift_and_outliers),
		cmocka_unit_test(test_compare_aa_false_regression_rate_at_most_alpha),
		cmocka_unit_test(test_compare_finds_injected_5pct_regression),
		cmocka_unit_test(test_crossover_runs_needed_counts_its_lost_degrees),
		cmocka_unit_test(test_compare_union_takes_the_worst_of_its_parts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
