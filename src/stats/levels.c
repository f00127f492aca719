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

/* Where [lo, hi) splits into two levels, or 0 when it does not. */
static size_t split(const struct sums *s, size_t lo, size_t hi, double min_diff)
{
	size_t n = hi - lo, best = 0;
	double best_stat = -1, d, df, sp, t;

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
	d = fabs(seg_mean(s, lo, best) - seg_mean(s, best, hi));
	if (d < min_diff)
		return 0;
	df = (double)(n - 2);
	sp = sqrt((seg_ss(s, lo, best) + seg_ss(s, best, hi)) / df);
	if (sp == 0)
		return best; /* two exact levels */
	t = d / (sp * sqrt(1.0 / (double)(best - lo) + 1.0 / (double)(hi - best)));
	return 2 * gsl_cdf_tdist_Q(t, df) < STATS_LEVEL_P ? best : 0;
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
}

int stats_levels(const double *rates, size_t n, struct stats_levels *out)
{
	double *p = NULL, *q = NULL, mean = 0, ss = 0, sp;
	struct seg *segs = NULL, *stack = NULL;
	size_t nseg = 0, top = 0, cap;
	struct sums s;
	int ret = 0;

	if (!rates || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (stats_check_finite(rates, n))
		return -EINVAL;
	if (n < 2 * STATS_LEVEL_MIN_N)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += rates[i];
	mean /= (double)n;
	if (!(mean > 0))
		return 0;
	/* every stretch, pending or final, holds at least STATS_LEVEL_MIN_N
	 * rates and they never overlap: cap bounds both arrays */
	cap = n / STATS_LEVEL_MIN_N + 1;
	p = malloc((n + 1) * sizeof(*p));
	q = malloc((n + 1) * sizeof(*q));
	segs = malloc(cap * sizeof(*segs));
	stack = malloc(cap * sizeof(*stack));
	if (!p || !q || !segs || !stack) {
		ret = -ENOMEM;
		goto out;
	}
	p[0] = q[0] = 0;
	for (size_t i = 0; i < n; i++) {
		double y = rates[i] - mean;

		p[i + 1] = p[i] + y;
		q[i + 1] = q[i] + y * y;
	}
	s = (struct sums){ p, q };
	/* depth first, left before right: final stretches come in time order */
	stack[top++] = (struct seg){ 0, n };
	while (top) {
		struct seg g = stack[--top];
		size_t k = split(&s, g.lo, g.hi, STATS_LEVEL_PCT / 100 * mean);

		if (!k) {
			segs[nseg++] = g;
			continue;
		}
		stack[top++] = (struct seg){ k, g.hi };
		stack[top++] = (struct seg){ g.lo, k };
	}
	for (size_t i = 0; i < nseg; i++)
		ss += seg_ss(&s, segs[i].lo, segs[i].hi);
	sp = n > nseg ? sqrt(ss / (double)(n - nseg)) : 0;
	nseg = merge(&s, segs, nseg,
		     fmax(STATS_LEVEL_PCT / 100 * mean, STATS_LEVEL_SD * sp));
	describe(&s, segs, nseg, mean, out);
out:
	free(p);
	free(q);
	free(segs);
	free(stack);
	return ret;
}
