// SPDX-License-Identifier: GPL-2.0-only
/* Levels of a window's interval rates by binary segmentation. */
#include "stats/levels.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

#include "stats/internal.h"

/* a stretch [lo, hi) of the rates */
struct seg {
	size_t lo, hi;
};

/*
 * p[i], q[i]: sums of y and y^2 over the first i rates, y = rate - mean
 * (centred, so that the sums of squares keep their precision).
 */
struct sums {
	const double *p, *q;
	const double *rates;
	double mean;
};

static double seg_mean(const struct sums *s, size_t lo, size_t hi)
{
	return (s->p[hi] - s->p[lo]) / (double)(hi - lo);
}

/* sum of squared deviations from the stretch's own mean */
static double seg_ss(const struct sums *s, size_t lo, size_t hi)
{
	double sum = s->p[hi] - s->p[lo];
	double ss = s->q[hi] - s->q[lo] - sum * sum / (double)(hi - lo);

	return ss > 0 ? ss : 0;
}

/*
 * Whether [lo, hi), of mean level beside a level other, may be a level: a
 * stretch too short to split again must hold its level throughout, at
 * least 3/4 of its rates on its side of the midpoint between the two, so
 * that a dip shorter than a level, with ordinary rates around it, does not
 * make one. A longer one may still split where the rates changed.
 */
static bool holds(const struct sums *s, size_t lo, size_t hi, double level, double other)
{
	double mid = (level + other) / 2, sgn = level > other ? 1 : -1;
	size_t on = 0;

	if (hi - lo >= 2 * STATS_LEVEL_MIN_N)
		return true;
	for (size_t k = lo; k < hi; k++)
		on += (s->rates[k] - s->mean - mid) * sgn > 0;
	return 4 * on >= 3 * (hi - lo);
}

/* Two-sided p of a pooled t test between m rates of mean difference d from
 * the other n - m, with ss their squared deviations about their own means. */
static double t_p(double d, double ss, size_t m, size_t n)
{
	double df = (double)(n - 2), sp = sqrt(ss / df);

	if (sp == 0)
		return 0; /* exact levels */
	return 2 * gsl_cdf_tdist_Q(d / (sp * sqrt(1.0 / (double)m + 1.0 / (double)(n - m))), df);
}

/* Where [lo, hi) splits into two levels, or 0 when it does not. */
static size_t split(const struct sums *s, size_t lo, size_t hi, double min_diff)
{
	size_t n = hi - lo, best = 0;
	double best_stat = -1, d, ml, mr;

	if (n < 2 * STATS_LEVEL_MIN_N)
		return 0;
	for (size_t k = lo + STATS_LEVEL_MIN_N; k + STATS_LEVEL_MIN_N <= hi; k++) {
		double nl = (double)(k - lo), nr = (double)(hi - k);
		double stat = fabs(seg_mean(s, lo, k) - seg_mean(s, k, hi)) *
			      sqrt(nl * nr / (double)n);

		if (stat > best_stat) {
			best_stat = stat;
			best = k;
		}
	}
	ml = seg_mean(s, lo, best);
	mr = seg_mean(s, best, hi);
	d = fabs(ml - mr);
	if (d < min_diff || !holds(s, lo, best, ml, mr) || !holds(s, best, hi, mr, ml))
		return 0;
	return t_p(d, seg_ss(s, lo, best) + seg_ss(s, best, hi), best - lo, n) <
			       STATS_LEVEL_P ? best : 0;
}

/* sum of squared deviations of [lo, hi) without [i, j) from their own mean */
static double outer_ss(const struct sums *s, size_t lo, size_t i, size_t j, size_t hi)
{
	double sum = s->p[i] - s->p[lo] + s->p[hi] - s->p[j];
	double ss = s->q[i] - s->q[lo] + s->q[hi] - s->q[j] -
		    sum * sum / (double)(i - lo + hi - j);

	return ss > 0 ? ss : 0;
}

/* Lag-1 autocorrelation of the rates of [lo, hi) about out (outside
 * [i, j)) and in (inside it), at least 0 and at most 0.9. */
static double resid_rho(const struct sums *s, size_t lo, size_t i, size_t j, size_t hi,
			double out, double in)
{
	double sxy = 0, sxx = 0, prev = 0, rho;

	for (size_t k = lo; k < hi; k++) {
		double r = s->rates[k] - s->mean - (k >= i && k < j ? in : out);

		if (k > lo)
			sxy += r * prev;
		sxx += r * r;
		prev = r;
	}
	if (!(sxx > 0))
		return 0;
	/* about three means of about (hi - lo) / 3 rates each it reads low
	 * by about (1 + 3 rho) / len (Kendall 1954) */
	rho = sxy / sxx;
	rho += (1 + 3 * rho) * 3 / (double)(hi - lo);
	return fmin(fmax(rho, 0), 0.9);
}

/*
 * The stretch [*bi, *bj) of [lo, hi), its start in [i0, i1) and its end in
 * [j0, j1), every step-th of each, whose mean differs most from the rest's,
 * weighted by sqrt(m (n - m) / n), if it beats *best. Each of the three
 * parts holds at least STATS_LEVEL_MIN_N rates.
 */
static void stretch_search(const struct sums *s, size_t lo, size_t hi, size_t i0, size_t i1,
			   size_t j0, size_t j1, size_t step, size_t *bi, size_t *bj,
			   double *best)
{
	double n = (double)(hi - lo), tot = s->p[hi] - s->p[lo];

	i0 = i0 > lo + STATS_LEVEL_MIN_N ? i0 : lo + STATS_LEVEL_MIN_N;
	for (size_t i = i0; i < i1 && i + 2 * STATS_LEVEL_MIN_N <= hi; i += step) {
		size_t j = j0 > i + STATS_LEVEL_MIN_N ? j0 : i + STATS_LEVEL_MIN_N;

		for (; j < j1 && j + STATS_LEVEL_MIN_N <= hi; j += step) {
			double m = (double)(j - i), sum = s->p[j] - s->p[i];
			double stat = fabs(sum / m - (tot - sum) / (n - m)) * sqrt(m * (n - m) / n);

			if (stat > *best) {
				*best = stat;
				*bi = i;
				*bj = j;
			}
		}
	}
}

/*
 * Where [lo, hi) left its level and came back: the stretch [*i, *j) inside
 * it, each of the three parts at least STATS_LEVEL_MIN_N rates, whose mean
 * differs most from the rest's, weighted by sqrt(m (n - m) / n) (circular
 * binary segmentation, Olshen et al. 2004). One cut splits such a window
 * where neither side is at one level, so split() can miss it: a 1 s move
 * in the middle of 3 s. Taken when the means differ by min_diff and a
 * pooled t test of the stretch against the rest gives p < STATS_LEVEL_P /
 * STATS_LEVEL_EPI_DIV (the search is over n^2 / 2 stretches, not n cuts).
 * Over more than STATS_LEVEL_EPI_GRID rates the search takes every g-th
 * start and end first (g = n / STATS_LEVEL_EPI_GRID + 1), then every one
 * near the best: O(STATS_LEVEL_EPI_GRID^2 + g^2) rather than O(n^2), and a
 * stretch much shorter than g is found only when its move is large.
 * Returns whether it found one.
 */
static bool split_epidemic(const struct sums *s, size_t lo, size_t hi, double min_diff,
			   size_t *bi, size_t *bj)
{
	size_t n = hi - lo, g = n / STATS_LEVEL_EPI_GRID + 1;
	double best_stat = -1, tot = s->p[hi] - s->p[lo], d, rho, out, in;

	if (n < 3 * STATS_LEVEL_MIN_N)
		return false;
	/* every g-th start and end, then every one within g of the best */
	stretch_search(s, lo, hi, lo, hi, lo, hi, g, bi, bj, &best_stat);
	if (g > 1)
		stretch_search(s, lo, hi, *bi > g ? *bi - g : 0, *bi + g + 1,
			       *bj > g ? *bj - g : 0, *bj + g + 1, 1, bi, bj, &best_stat);
	out = (tot - (s->p[*bj] - s->p[*bi])) / (double)(n - (*bj - *bi));
	in = seg_mean(s, *bi, *bj);
	d = fabs(in - out);
	if (d < min_diff || !holds(s, *bi, *bj, in, out) || !holds(s, lo, *bi, out, in) ||
	    !holds(s, *bj, hi, out, in))
		return false;
	rho = resid_rho(s, lo, *bi, *bj, hi, out, in);
	/* a mean of m rates whose neighbours carry rho of each other varies
	 * (1 + rho) / (1 - rho) times as much as one of m independent ones */
	return t_p(d * sqrt((1 - rho) / (1 + rho)),
		   seg_ss(s, *bi, *bj) + outer_ss(s, lo, *bi, *bj, hi), *bj - *bi, n) <
	       STATS_LEVEL_P / STATS_LEVEL_EPI_DIV;
}

/* Merge adjacent levels closer than thr, closest first; returns the count. */
static size_t merge(const struct sums *s, struct seg *segs, size_t nseg, double thr)
{
	while (nseg > 1) {
		double dmin = INFINITY;
		size_t j = 0;

		for (size_t i = 0; i + 1 < nseg; i++) {
			double d = fabs(seg_mean(s, segs[i + 1].lo, segs[i + 1].hi) -
					seg_mean(s, segs[i].lo, segs[i].hi));

			if (d < dmin) {
				dmin = d;
				j = i;
			}
		}
		if (dmin >= thr)
			break;
		segs[j].hi = segs[j + 1].hi;
		memmove(&segs[j + 1], &segs[j + 2], (nseg - j - 2) * sizeof(*segs));
		nseg--;
	}
	return nseg;
}

static void describe(const struct sums *s, const struct seg *segs, size_t nseg,
		     double mean, struct stats_levels *out)
{
	double lo = INFINITY, hi = -INFINITY, prev_step = 0;

	for (size_t i = 0; i < nseg; i++) {
		double m = seg_mean(s, segs[i].lo, segs[i].hi);

		lo = fmin(lo, m);
		hi = fmax(hi, m);
		if (i) {
			double step = m - seg_mean(s, segs[i - 1].lo, segs[i - 1].hi);

			if (prev_step != 0 && (step > 0) != (prev_step > 0))
				out->mixed = true;
			prev_step = step;
		}
	}
	out->tested = true;
	out->count = nseg;
	out->lo_pct = 100 * (mean + lo) / mean;
	out->hi_pct = 100 * (mean + hi) / mean;
	out->first_pct = 100 * (mean + seg_mean(s, segs[0].lo, segs[0].hi)) / mean;
	out->last_pct = 100 * (mean + seg_mean(s, segs[nseg - 1].lo, segs[nseg - 1].hi)) / mean;
}

/* The levels of rates[0..n) (n >= 2 * STATS_LEVEL_MIN_N, mean > 0),
 * each a stretch of the rates, in time order. */
struct fit {
	double *p, *q;
	struct seg *segs;
	size_t nseg;
	struct sums s;
};

static void fit_free(struct fit *f)
{
	free(f->p);
	free(f->q);
	free(f->segs);
}

static int fit_levels(const double *rates, size_t n, double mean, struct fit *f)
{
	struct seg *stack;
	size_t top = 0, cap;
	double ss = 0, sp;

	memset(f, 0, sizeof(*f));
	/* every stretch, pending or final, holds at least STATS_LEVEL_MIN_N
	 * rates and they never overlap: cap bounds both arrays */
	cap = n / STATS_LEVEL_MIN_N + 1;
	f->p = malloc((n + 1) * sizeof(*f->p));
	f->q = malloc((n + 1) * sizeof(*f->q));
	f->segs = malloc(cap * sizeof(*f->segs));
	stack = malloc(cap * sizeof(*stack));
	if (!f->p || !f->q || !f->segs || !stack) {
		free(stack);
		fit_free(f);
		return -ENOMEM;
	}
	f->p[0] = f->q[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double y = rates[i] - mean;

		f->p[i + 1] = f->p[i] + y;
		f->q[i + 1] = f->q[i] + y * y;
	}
	f->s = (struct sums){ f->p, f->q, rates, mean };
	/* depth first, left before right: final stretches come in time order */
	stack[top++] = (struct seg){ 0, n };
	while (top) {
		struct seg g = stack[--top];
		double min_diff = STATS_LEVEL_PCT / 100 * mean;
		size_t k = split(&f->s, g.lo, g.hi, min_diff), i = 0, j = 0;

		if (k) {
			stack[top++] = (struct seg){ k, g.hi };
			stack[top++] = (struct seg){ g.lo, k };
		} else if (split_epidemic(&f->s, g.lo, g.hi, min_diff, &i, &j)) {
			stack[top++] = (struct seg){ j, g.hi };
			stack[top++] = (struct seg){ i, j };
			stack[top++] = (struct seg){ g.lo, i };
		} else {
			f->segs[f->nseg++] = g;
		}
	}
	free(stack);
	for (size_t i = 0; i < f->nseg; i++)
		ss += seg_ss(&f->s, f->segs[i].lo, f->segs[i].hi);
	sp = n > f->nseg ? sqrt(ss / (double)(n - f->nseg)) : 0;
	f->nseg = merge(&f->s, f->segs, f->nseg,
			fmax(STATS_LEVEL_PCT / 100 * mean, STATS_LEVEL_SD * sp));
	return 0;
}

static double mean_of(const double *x, size_t n)
{
	double m = 0;

	for (size_t i = 0; i < n; i++)
		m += x[i];
	return n ? m / (double)n : 0;
}

int stats_levels(const double *rates, size_t n, struct stats_levels *out)
{
	struct fit f;
	double mean;

	if (!rates || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (stats_check_finite(rates, n))
		return -EINVAL;
	if (n < 2 * STATS_LEVEL_MIN_N)
		return 0;
	mean = mean_of(rates, n);
	if (!(mean > 0))
		return 0;
	if (fit_levels(rates, n, mean, &f))
		return -ENOMEM;
	describe(&f.s, f.segs, f.nseg, mean, out);
	fit_free(&f);
	return 0;
}

/* Residuals of x[0..n) about their least-squares line, added into the
 * lag-1 sums: sxy over successive residuals, sxx over all. */
static void line_resid(const double *x, size_t n, double *sxy, double *sxx)
{
	double tm = ((double)n - 1) / 2, ym = mean_of(x, n), stt = 0, sty = 0, b, prev = 0;

	for (size_t i = 0; i < n; i++) {
		stt += ((double)i - tm) * ((double)i - tm);
		sty += ((double)i - tm) * (x[i] - ym);
	}
	b = stt > 0 ? sty / stt : 0;
	for (size_t i = 0; i < n; i++) {
		double r = x[i] - ym - b * ((double)i - tm);

		if (i)
			*sxy += r * prev;
		*sxx += r * r;
		prev = r;
	}
}

int stats_levels_rho(const double *rates, size_t n, double *rho)
{
	double sxy = 0, sxx = 0, tot = 0, mean, len;
	struct fit f = { 0 };

	if (!rates || !rho)
		return -EINVAL;
	*rho = 0;
	if (stats_check_finite(rates, n))
		return -EINVAL;
	if (n < 3)
		return 0;
	mean = mean_of(rates, n);
	for (size_t i = 0; i < n; i++)
		tot += (rates[i] - mean) * (rates[i] - mean);
	if (n >= 2 * STATS_LEVEL_MIN_N && mean > 0) {
		if (fit_levels(rates, n, mean, &f))
			return -ENOMEM;
		for (size_t i = 0; i < f.nseg; i++)
			line_resid(rates + f.segs[i].lo, f.segs[i].hi - f.segs[i].lo, &sxy, &sxx);
		len = (double)n / (double)f.nseg;
		fit_free(&f);
	} else {
		line_resid(rates, n, &sxy, &sxx);
		len = (double)n;
	}
	/* rates on exact lines leave only rounding: nothing carries over */
	if (!(sxx > 1e-12 * tot))
		return 0;
	*rho = sxy / sxx;
	/* a short stretch's autocorrelation about its own line reads low:
	 * (1 + 3 rho) / len about a mean (Kendall 1954), about a line
	 * (2 + 4 rho) / len on AR(1) series of 20-100 rates here */
	*rho = fmin(1, *rho + (2 + 4 * *rho) / len);
	return 0;
}
