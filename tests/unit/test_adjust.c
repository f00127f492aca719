// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/adjust.c: taking out what went with the cpus' distance. */
#include "stats_fixtures.h"

#include "stats/desc.h"
#include "stats/adjust.h"
#include "stats/verdict.h"

static void test_adjust_log_takes_out_what_went_with_the_distance(void **state)
{
	/* A half near and half far; B 10% slower at every distance, and far
	 * in 6 of its 8 samples */
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	double ya[8], yb[8], aa[8], ab[8], mean_a = 0, mean_b = 0, ref, ref8[8];
	struct stats_adjust ad;

	(void)state;
	placed(30, xa, 8, ya);
	placed(27, xb, 8, yb);
	assert_int_equal(stats_adjust_log(ya, xa, 8, yb, xb, 8, aa, ab, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.03);
	assert_true(ad.slope_p < 1e-6 && ad.r2 > 0.9);
	/* the geometric mean of every x */
	ref = 0;
	for (int i = 0; i < 8; i++)
		ref += log(xa[i]) + log(xb[i]);
	assert_float_equal(ad.x_ref, exp(ref / 16), 1e-6);
	/* moved to x_ref, each side is its own rate there, +- its wobble */
	for (int i = 0; i < 8; i++) {
		assert_float_equal(aa[i] / (30 * pow(ad.x_ref / 120, -0.45)), 1, 0.05);
		assert_float_equal(ab[i] / (27 * pow(ad.x_ref / 120, -0.45)), 1, 0.05);
		mean_a += aa[i] / 8;
		mean_b += ab[i] / 8;
	}
	assert_float_equal(mean_b / mean_a, 0.9, 0.02);
	/* the slope's interval: +- t(13) standard errors */
	assert_true(fabs(ad.slope_hi - ad.slope - gsl_cdf_tdist_Pinv(0.975, 13) * ad.slope_se) < 1e-12);
	assert_true(fabs((ad.slope - ad.slope_lo) - (ad.slope_hi - ad.slope)) < 1e-12);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	/* moved along the fitted slope by hand: the same figures */
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, ad.x_ref, ref8), 0);
	for (int i = 0; i < 8; i++)
		assert_true(fabs(ref8[i] - aa[i]) < 1e-9 * aa[i]);
	/* along slope 0 nothing moves; a slope that overflows; bad input */
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, 0, ad.x_ref, ref8), 0);
	for (int i = 0; i < 8; i++)
		assert_true(fabs(ref8[i] - ya[i]) < 1e-12 * ya[i]);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, -1e6, ad.x_ref, ref8), -ERANGE);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, NAN, ad.x_ref, ref8), -EINVAL);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, 0, ref8), -EINVAL);
	assert_int_equal(stats_adjust_log_at(ya, NULL, 8, ad.slope, ad.x_ref, ref8), -EINVAL);
	ya[3] = -1;
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, ad.x_ref, ref8), -EINVAL);
}

static void test_adjust_log_leaves_alone_what_it_cannot_separate(void **state)
{
	/* A all near, B all far: the distance moved with the label, never
	 * within one, and the wobble does not go with the little x left */
	static const double xa[] = { 120, 121, 119, 120, 122, 118 };
	static const double xb[] = { 450, 452, 448, 451, 449, 450 };
	static const double xa_moved[] = { 120, 121, 119, 120, 181, 118 };
	static const double flat[] = { 120, 120, 120, 120 };
	double ya[6], yb[6], aa[6], ab[6], neg[6];
	struct stats_adjust ad;

	(void)state;
	placed(30, xa, 6, ya);
	placed(30, xb, 6, yb);
	/* within the sides x only jittered (under STATS_XCPU_MOVED_RATIO):
	 * the probe's noise, not a move to fit a slope to */
	assert_int_equal(stats_adjust_log(ya, xa, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	assert_false(ad.applied);
	assert_memory_equal(aa, ya, sizeof(ya));
	assert_memory_equal(ab, yb, sizeof(yb));
	/* one of A's samples 1.5 times as far: a move, tested; the wobble
	 * does not go with it, so nothing is applied */
	assert_int_equal(stats_adjust_log(ya, xa_moved, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_true(ad.tested);
	assert_false(ad.applied);
	assert_true(ad.slope_p > STATS_ADJUST_P);
	assert_memory_equal(aa, ya, sizeof(ya));
	assert_memory_equal(ab, yb, sizeof(yb));
	/* x the same everywhere within the sides: nothing to estimate */
	assert_int_equal(stats_adjust_log(ya, flat, 4, yb, flat, 4, aa, ab, &ad), 0);
	assert_false(ad.tested);
	/* too few, or a figure that is not a positive ratio */
	assert_int_equal(stats_adjust_log(ya, xa, 3, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	memcpy(neg, ya, sizeof(neg));
	neg[2] = 0;
	assert_int_equal(stats_adjust_log(neg, xa, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_log(NULL, xa, 6, yb, xb, 6, aa, ab, &ad), -EINVAL);
}

/* One set's fit (show, run --reps, matrix's adj column): the spread left
 * with the distance taken out, on the terms compare's samples fit has. */
static void test_adjust_log_cv_takes_it_out_of_one_set(void **state)
{
	static const double x[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double jitter[] = { 450, 452, 448, 451, 449, 450, 455, 446 };
	static const double near[] = { 120, 120, 120, 120, 120, 120, 120, 120 };
	double y[8], flat[8], bad[8], cv, raw;
	struct stats_adjust ad;

	(void)state;
	placed(30, x, 8, y);
	assert_int_equal(stats_cv_pct(y, 8, &raw), 0);
	assert_int_equal(stats_adjust_log_cv(y, x, 8, &ad, &cv), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.03);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.x_ref > 120 && ad.x_ref < 450 && ad.r2 > 0.9);
	/* what is left is the 2-3% wobble */
	assert_true(raw > 20 && cv > 1 && cv < 3);
	/* the round trips jittered around one placement: nothing to fit */
	assert_int_equal(stats_adjust_log_cv(y, jitter, 8, &ad, &cv), 0);
	assert_false(ad.tested);
	assert_true(isnan(cv));
	/* a move the figures did not follow: tested, nothing taken out */
	placed(30, near, 8, flat);
	assert_int_equal(stats_adjust_log_cv(flat, x, 8, &ad, &cv), 0);
	assert_true(ad.tested && !ad.applied && ad.slope_p > STATS_ADJUST_P);
	assert_true(isnan(cv));
	/* too few, a sample without a round trip, NULL */
	assert_int_equal(stats_adjust_log_cv(y, x, STATS_ADJUST_MIN_N - 1, &ad, &cv), 0);
	assert_false(ad.tested);
	memcpy(bad, x, sizeof(bad));
	bad[3] = NAN;
	assert_int_equal(stats_adjust_log_cv(y, bad, 8, &ad, &cv), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_log_cv(y, NULL, 8, &ad, &cv), -EINVAL);
}

/* The tally of an A/A simulation of the adjustment. */
struct aa_tally {
	int trials, applied, fp, raw_fp;
};

/*
 * Count one A/A trial of n values a side: raw ya/yb, adjusted aa/ab as ad
 * left them (nothing when ad tested nothing); a change is a rank test at
 * alpha 0.05.
 */
static void aa_count(struct aa_tally *k, const struct stats_adjust *ad, const double *ya,
		     const double *yb, const double *aa, const double *ab, size_t n)
{
	struct stats_compare_opts co;
	struct stats_compare c;

	if (!ad->tested)
		return;
	stats_compare_opts_init(&co);
	k->trials++;
	k->applied += ad->applied;
	assert_int_equal(stats_compare_samples(aa, n, ab, n, STATS_HIGHER, &co, &c), 0);
	k->fp += c.p < 0.05;
	assert_int_equal(stats_compare_samples(ya, n, yb, n, STATS_HIGHER, &co, &c), 0);
	k->raw_fp += c.p < 0.05;
}

/*
 * A/A with the distance mixed differently on the two sides: the adjusted
 * comparison must not call changes more often than alpha. Each trial: 8
 * samples a side, A far with probability 0.5 and B with 0.75 (120 or 450
 * ns, +-3%), the same rate law (x / 120)^-0.45 and 5% lognormal noise on
 * both; the rank test of the adjusted values at alpha 0.05.
 */
static void test_adjust_log_aa_keeps_the_false_positive_rate(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct aa_tally k = { 0 };

	(void)state;
	gsl_rng_set(rng, 23);
	for (int r = 0; r < 400; r++) {
		double xa[8], xb[8], ya[8], yb[8], aa[8], ab[8];
		struct stats_adjust ad;

		for (int i = 0; i < 8; i++) {
			xa[i] = (gsl_rng_uniform(rng) < 0.5 ? 450 : 120) * (1 + 0.03 * gsl_rng_uniform_pos(rng));
			xb[i] = (gsl_rng_uniform(rng) < 0.75 ? 450 : 120) * (1 + 0.03 * gsl_rng_uniform_pos(rng));
			ya[i] = 30 * pow(xa[i] / 120, -0.45) * exp(gsl_ran_gaussian(rng, 0.05));
			yb[i] = 30 * pow(xb[i] / 120, -0.45) * exp(gsl_ran_gaussian(rng, 0.05));
		}
		assert_int_equal(stats_adjust_log(ya, xa, 8, yb, xb, 8, aa, ab, &ad), 0);
		aa_count(&k, &ad, ya, yb, aa, ab, 8);
	}
	print_message("adjusted A/A: %d trials, slope applied in %d, p < 0.05 in %d (raw %d)\n",
		      k.trials, k.applied, k.fp, k.raw_fp);
	assert_true(k.trials > 380 && k.applied > k.trials * 9 / 10);
	/* 5% of 400 is 20; binomial sd 4.4 */
	assert_true(k.fp <= 30);
	gsl_rng_free(rng);
}

static void test_adjust_windows_takes_out_the_moves_within_windows(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[8][100], xa[8][100], rb[8][100], xb[8][100];
	struct stats_window wa[8], wb[8];
	double ya[8], yb[8], aa[8], ab[8], again[8], mean_a = 0, mean_b = 0, raw_a = 0, raw_b = 0;
	struct stats_adjust ad;

	(void)state;
	gsl_rng_set(rng, 5);
	/* B 10% slower at every distance, and far more often */
	for (size_t i = 0; i < 8; i++) {
		ya[i] = moving_window(rng, 30, 0.25, ra[i], xa[i], 100);
		yb[i] = moving_window(rng, 27, 0.75, rb[i], xb[i], 100);
		wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
		wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
	}
	assert_int_equal(stats_adjust_windows(ya, wa, 8, yb, wb, 8, aa, ab, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.05);
	assert_true(ad.slope_p < 0.001 && ad.r2 > 0.5 && ad.slope_se > 0);
	assert_true(ad.windows >= 3 && ad.windows <= 16);
	/* the host moved the vCPUs in most windows: a move every 3 s or so */
	assert_true(ad.stepped >= 12 && ad.stepped <= ad.windows);
	assert_true(ad.ticks > 1400 && ad.ticks < 1600);
	assert_true(ad.x_ref > 120 && ad.x_ref < 450);
	for (size_t i = 0; i < 8; i++) {
		mean_a += aa[i] / 8;
		mean_b += ab[i] / 8;
		raw_a += ya[i] / 8;
		raw_b += yb[i] / 8;
	}
	/* the raw means mix the distances; moved to one, 0.9 is left */
	assert_true(raw_b / raw_a < 0.85);
	assert_float_equal(mean_b / mean_a, 0.9, 0.03);
	/* the jackknife's interval holds the slope the windows were drawn
	 * with, and is narrow with 16 windows that moved */
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.slope_hi - ad.slope_lo < 0.1);
	/* moved along the fitted slope again: the same figures */
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, ad.slope, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - aa[i]) < 1e-9 * aa[i]);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, 0, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - ya[i]) < 1e-12 * ya[i]);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, 1e6, ad.x_ref, again), -ERANGE);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, ad.slope, -1, again), -EINVAL);
	assert_int_equal(stats_adjust_windows_at(NULL, wa, 8, ad.slope, ad.x_ref, again), -EINVAL);
	gsl_rng_free(rng);
}

/* One set of samples: what of its spread went with the distance. */
static void test_adjust_windows_one_takes_it_out_of_one_set(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[8][100], x[8][100];
	struct stats_window w[8];
	double y[8], out[8], again[8], cv_raw, cv_adj, cv_again;
	struct stats_adjust ad;

	(void)state;
	gsl_rng_set(rng, 17);
	for (size_t i = 0; i < 8; i++) {
		y[i] = moving_window(rng, 30, 0.5, r[i], x[i], 100);
		w[i] = (struct stats_window){ r[i], x[i], 100 };
	}
	assert_int_equal(stats_adjust_windows_one(y, w, 8, out, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.05);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.ticks > 700 && ad.windows >= 3);
	assert_int_equal(stats_cv_pct(y, 8, &cv_raw), 0);
	assert_int_equal(stats_cv_pct(out, 8, &cv_adj), 0);
	print_message("one set of 8 windows: cov %.2f%% raw, %.2f%% adjusted\n", cv_raw, cv_adj);
	assert_true(cv_adj < cv_raw / 3);
	/* each moved along the slope to x_ref, as _at moves them */
	assert_int_equal(stats_adjust_windows_at(y, w, 8, ad.slope, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - out[i]) < 1e-12 * out[i]);
	/* too few samples: a copy; NULL */
	assert_int_equal(stats_adjust_windows_one(y, w, 3, out, &ad), 0);
	assert_false(ad.tested);
	assert_memory_equal(out, y, 3 * sizeof(*y));
	assert_int_equal(stats_adjust_windows_one(y, NULL, 8, out, &ad), -EINVAL);
	/* the cov that matrix's summary and report_windows_spread print:
	 * the moved figures', or NaN where nothing was moved */
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(ad.applied && fabs(cv_again - cv_adj) < 1e-12 * cv_adj);
	assert_int_equal(stats_adjust_windows_cv(y, w, 3, &ad, &cv_again), 0);
	assert_true(!ad.tested && isnan(cv_again));
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, NULL), -EINVAL);
	assert_int_equal(stats_adjust_windows_cv(y, NULL, 8, &ad, &cv_again), -EINVAL);
	assert_true(isnan(cv_again));
	/* the distance held within all but two windows: too few to test, and
	 * the fit says how many moved (report_windows_spread prints it) */
	for (size_t i = 2; i < 8; i++)
		for (size_t t = 0; t < 100; t++)
			x[i][t] = 120;
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(!ad.tested && isnan(cv_again));
	assert_int_equal(ad.windows, 2);
	assert_true(ad.ticks > 700);
	/* a window with fewer than STATS_ADJUST_MIN_TICKS intervals: no count */
	w[5].n = STATS_ADJUST_MIN_TICKS - 1;
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(!ad.tested && ad.windows == 0 && ad.ticks == 0);
	gsl_rng_free(rng);
}

static void test_adjust_windows_needs_moves_within_windows(void **state)
{
	static double p[8][30], r[8][30], x[8][30];
	struct stats_window w[8];
	double y[8], out[8], jitter = 0.01;
	struct stats_adjust ad;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		for (size_t t = 0; t < 30; t++)
			p[i][t] = i % 2 ? 450 : 120;
		y[i] = 30 * pow(p[i][0] / 120, -0.45);
		w[i] = (struct stats_window){ r[i], x[i], 30 };
	}
	/* each interval's round trip: where the host had the vCPUs (p), with
	 * the probe's jitter; the rate goes with it */
#define PLACE()                                                                        \
	for (size_t i = 0; i < 8; i++)                                                 \
		for (size_t t = 0; t < 30; t++) {                                      \
			x[i][t] = p[i][t] * (1 + jitter * ((int)((t * 5 + i) % 3) - 1)); \
			r[i][t] = 30 * pow((isnan(x[i][t]) ? 120 : x[i][t]) / 120, -0.45) * \
				  (1 + 0.01 * (double)(t % 3));                        \
		}
	PLACE();
	/* each window at one distance: the windows say nothing */
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.windows, 8);
	assert_int_equal(ad.stepped, 0);
	assert_memory_equal(out, y, sizeof(y));
	/* jittering by 5% (around one placement) steps nowhere either */
	jitter = 0.05;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 0);
	assert_memory_equal(out, y, sizeof(y));
	jitter = 0.01;
	/* the host moved the vCPUs a second before the end of two windows:
	 * not enough */
	for (size_t t = 20; t < 30; t++) {
		p[0][t] = 450;
		p[5][t] = 120;
	}
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 2);
	/* a blip of one interval is no move (a level needs a second) */
	p[2][1] = 450;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 2);
	/* and a move in a third: tested */
	for (size_t t = 15; t < 30; t++)
		p[2][t] = 450;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_true(ad.tested);
	assert_int_equal(ad.windows, 8);
	assert_int_equal(ad.stepped, 3);
	assert_int_equal(ad.ticks, 240);
	assert_float_equal(ad.slope, -0.45, 0.02);
	/* the slope from the three windows that stepped (the jitter of the
	 * other five adds little); its p from all eight as clusters */
	assert_true(ad.slope_p < 0.05);
	/* a window with fewer than 5 intervals with a round, too few
	 * samples, a headline that is not positive, NULL */
	for (size_t t = 0; t < 26; t++)
		p[3][t] = NAN;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	p[3][0] = 120;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_true(ad.tested);
	assert_int_equal(stats_adjust_windows(y, w, 3, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	y[1] = 0;
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_windows(y, NULL, 4, y + 4, w + 4, 4, out, out + 4, &ad), -EINVAL);
#undef PLACE
}

/*
 * A/A from the windows: 300 trials of 6 windows a side, A starting far
 * with probability 0.25 and B with 0.75, the same rate law and noise;

 * the rank test of the adjusted values at alpha 0.05 must not call a
 * change more often than alpha.
 */
static void test_adjust_windows_aa_keeps_the_false_positive_rate(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[6][100], xa[6][100], rb[6][100], xb[6][100];
	struct aa_tally k = { 0 };

	(void)state;
	gsl_rng_set(rng, 29);
	for (int r = 0; r < 300; r++) {
		struct stats_window wa[6], wb[6];
		double ya[6], yb[6], aa[6], ab[6];
		struct stats_adjust ad;

		for (size_t i = 0; i < 6; i++) {
			ya[i] = moving_window(rng, 30, 0.25, ra[i], xa[i], 100);
			yb[i] = moving_window(rng, 30, 0.75, rb[i], xb[i], 100);
			wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
			wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
		}
		assert_int_equal(stats_adjust_windows(ya, wa, 6, yb, wb, 6, aa, ab, &ad), 0);
		aa_count(&k, &ad, ya, yb, aa, ab, 6);
	}
	print_message("adjusted A/A from windows: %d trials, slope applied in %d, p < 0.05 in %d (raw %d)\n",
		      k.trials, k.applied, k.fp, k.raw_fp);
	assert_true(k.trials > 270 && k.applied > k.trials * 9 / 10);
	/* 5% of 300 is 15; binomial sd 3.8 */
	assert_true(k.fp <= 24);
	gsl_rng_free(rng);
}

/*
 * A slope of 0: the rate moves in spells of its own (8%, a new one every
 * 3 s or so) and the host moves the vCPUs in about one window in six.
 * Those few windows carry the whole slope, and with every other window's
 * jitter counted as a cluster a t test with G - 1 degrees of freedom
 * applied it in 41% of such sets. The wild bootstrap must keep it near
 * alpha; the same sets with a real slope of -0.45 must still find it.
 */
static void test_adjust_windows_few_moves_make_no_slope(void **state)
{
	static const struct host_law flat = { .slope = 0, .p_switch = 0.002,
					      .spell_sd = 0.08, .p_spell = 0.03 };
	struct host_law real = flat;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[6][100], xa[6][100], rb[6][100], xb[6][100];
	int trials = 0, tested = 0, applied = 0, found = 0;

	(void)state;
	real.slope = -0.45;
	real.p_switch = 0.03;
	gsl_rng_set(rng, 41);
	for (int r = 0; r < 600; r++) {
		const struct host_law *law = r % 2 ? &real : &flat;
		struct stats_window wa[6], wb[6];
		double ya[6], yb[6], aa[6], ab[6];
		struct stats_adjust ad;

		for (size_t i = 0; i < 6; i++) {
			ya[i] = host_window(rng, law, 30, 0.25, ra[i], xa[i], 100);
			yb[i] = host_window(rng, law, 30, 0.75, rb[i], xb[i], 100);
			wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
			wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
		}
		assert_int_equal(stats_adjust_windows(ya, wa, 6, yb, wb, 6, aa, ab, &ad), 0);
		if (r % 2) {
			/* a move every 3 s or so: enough windows stepped */
			assert_true(ad.tested);
			found += ad.applied;
			continue;
		}
		/* one window in five moved: tested only with 3 that did */
		assert_true(ad.tested == (ad.stepped >= STATS_ADJUST_MIN_WINDOWS));
		tested += ad.tested;
		trials++;
		applied += ad.applied;
		if (!ad.applied)
			assert_memory_equal(aa, ya, sizeof(ya));
	}
	print_message("slope 0, few moves: tested in %d and applied in %d of %d sets; slope -0.45: found in %d of 300\n",
		      tested, applied, trials, found);
	/* 5% of 300 is 15, binomial sd 3.8 */
	assert_true(applied <= 24);
	assert_true(found >= 285);
	gsl_rng_free(rng);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adjust_log_takes_out_what_went_with_the_distance),
		cmocka_unit_test(test_adjust_log_leaves_alone_what_it_cannot_separate),
		cmocka_unit_test(test_adjust_log_cv_takes_it_out_of_one_set),
		cmocka_unit_test(test_adjust_log_aa_keeps_the_false_positive_rate),
		cmocka_unit_test(test_adjust_windows_takes_out_the_moves_within_windows),
		cmocka_unit_test(test_adjust_windows_needs_moves_within_windows),
		cmocka_unit_test(test_adjust_windows_aa_keeps_the_false_positive_rate),
		cmocka_unit_test(test_adjust_windows_few_moves_make_no_slope),
		cmocka_unit_test(test_adjust_windows_one_takes_it_out_of_one_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
