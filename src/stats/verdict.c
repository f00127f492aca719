// SPDX-License-Identifier: GPL-2.0-only
/* A/B verdict from a rank test, a shift interval and a minimum change. */
#include "stats/verdict.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/desc.h"
#include "stats/guard.h"
#include "stats/hl.h"
#include "stats/internal.h"
#include "stats/mwu.h"
#include "stats/power.h"

void stats_compare_opts_init(struct stats_compare_opts *o)
{
	o->alpha = 0.05;
	o->min_change_pct = 2.0;
	o->conf = 0.95;
	o->power = 0.8;
	o->min_n = 4;
}

const char *stats_verdict_name(enum stats_verdict_kind v)
{
	switch (v) {
	case STATS_REGRESSION:
		return "REGRESSION";
	case STATS_IMPROVEMENT:
		return "IMPROVEMENT";
	case STATS_CHANGED:
		return "changed";
	case STATS_MINOR:
		return "minor";
	case STATS_SAME:
		return "same";
	case STATS_INCONCLUSIVE:
		return "inconclusive";
	case STATS_TOO_FEW:
		return "too few";
	}
	return "?";
}

static bool opts_ok(const struct stats_compare_opts *o)
{
	return o->alpha > 0 && o->alpha < 1 && o->conf > 0 && o->conf < 1 &&
	       o->power > 0 && o->power < 1 && isfinite(o->min_change_pct) &&
	       o->min_change_pct >= 0 && o->min_n >= 2;
}

/* Centre, spread and guards of one side; NaN where undefined. */
static int describe(const double *x, size_t n, double *median, double *mean,
		    double *sd_pct, size_t *outliers, double *drift_p)
{
	struct stats_trend tr;
	int ret;

	*median = *mean = *sd_pct = *drift_p = NAN;
	*outliers = 0;
	if (!n)
		return 0;
	ret = stats_median(x, n, median);
	if (!ret)
		ret = stats_mean(x, n, mean);
	if (!ret && n >= 2 && *mean != 0)
		ret = stats_cv_pct(x, n, sd_pct);
	if (!ret)
		ret = stats_outliers(x, n, outliers);
	if (!ret)
		ret = stats_mann_kendall(x, n, &tr);
	if (!ret)
		*drift_p = tr.p;
	return ret;
}

/* Standard deviation of x, or of log(x) in log scale; NaN if n < 2. */
static int spread(const double *x, size_t n, bool log_scale, double *sd)
{
	double *l;
	size_t i;
	int ret;

	*sd = NAN;
	if (n < 2)
		return 0;
	if (!log_scale)
		return stats_sd(x, n, sd);
	l = malloc(n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		l[i] = log(x[i]);
	ret = stats_sd(l, n, sd);
	free(l);
	return ret;
}

/*
 * runs_needed from the spread of each side (one side's for both when the
 * other has too few values); 0 when it cannot be estimated.
 */
static int estimate_runs(const double *a, size_t na, const double *b,
			 size_t nb, const struct stats_compare_opts *o,
			 struct stats_compare *r, size_t *runs)
{
	double sa, sb, delta;
	int ret;

	*runs = 0;
	if (r->shift_abs || o->min_change_pct == 0)
		return 0;
	ret = spread(a, na, r->log_scale, &sa);
	if (!ret)
		ret = spread(b, nb, r->log_scale, &sb);
	if (ret)
		return ret;
	if (isnan(sa))
		sa = sb;
	if (isnan(sb))
		sb = sa;
	if (isnan(sa))
		return 0;
	if (r->log_scale)
		delta = log1p(o->min_change_pct / 100);
	else
		delta = o->min_change_pct / 100 * fabs(r->median_a);
	/* -ERANGE and such leave 0: "cannot say", not a failure */
	if (stats_runs_needed_sd(sa, sb, delta, o->alpha, o->power, runs))
		*runs = 0;
	return 0;
}

static bool all_equal(const double *a, size_t na, const double *b, size_t nb)
{
	size_t i;

	for (i = 0; i < na; i++)
		if (a[i] != a[0])
			return false;
	for (i = 0; i < nb; i++)
		if (b[i] != a[0])
			return false;
	return true;
}

static bool all_positive(const double *x, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!(x[i] > 0))
			return false;
	return true;
}

/* p-value and shift; both sides have values. */
static int test_shift(const double *a, size_t na, const double *b, size_t nb,
		      const struct stats_compare_opts *o,
		      struct stats_compare *r)
{
	struct stats_mwu mw;
	struct stats_hl hl;
	double ref;
	int ret;

	ret = stats_mann_whitney(a, na, b, nb, &mw);
	if (ret)
		return ret;
	r->p = mw.p;
	r->exact = mw.exact;
	r->log_scale = all_positive(a, na) && all_positive(b, nb);
	if (r->log_scale) {
		ret = stats_shift_pct(a, na, b, nb, o->conf, &hl);
		if (ret)
			return ret;
		r->shift_pct = hl.shift;
		r->shift_lo_pct = hl.lo;
		r->shift_hi_pct = hl.hi;
		return 0;
	}
	ret = stats_hodges_lehmann(a, na, b, nb, o->conf, &hl);
	if (ret)
		return ret;
	ref = fabs(r->median_a);
	r->shift_abs = ref == 0;
	if (r->shift_abs)
		ref = 100; /* 100 * d / 100 = d: raw differences */
	r->shift_pct = 100 * hl.shift / ref;
	r->shift_lo_pct = 100 * hl.lo / ref;
	r->shift_hi_pct = 100 * hl.hi / ref;
	return 0;
}

static enum stats_verdict_kind judge(const struct stats_compare *r,
				     enum stats_better better,
				     const struct stats_compare_opts *o)
{
	double s = r->shift_pct, m = o->min_change_pct;
	bool large, inside;

	if (r->shift_abs) {
		large = s != 0;
		inside = r->shift_lo_pct == 0 && r->shift_hi_pct == 0;
	} else {
		large = s != 0 && fabs(s) >= m;
		inside = r->shift_lo_pct >= -m && r->shift_hi_pct <= m;
	}
	if (r->p < o->alpha && large) {
		if (better == STATS_NEUTRAL)
			return STATS_CHANGED;
		if ((s > 0) == (better == STATS_HIGHER))
			return STATS_IMPROVEMENT;
		return STATS_REGRESSION;
	}
	if (r->p < o->alpha)
		return STATS_MINOR;
	if (inside)
		return STATS_SAME;
	return STATS_INCONCLUSIVE;
}

/* r's verdict from its p and interval, and runs_needed when that is
 * INCONCLUSIVE. */
static int judge_runs(const double *a, size_t na, const double *b, size_t nb,
		      enum stats_better better, const struct stats_compare_opts *o,
		      struct stats_compare *r)
{
	size_t runs;
	int ret;

	r->verdict = judge(r, better, o);
	if (r->verdict != STATS_INCONCLUSIVE)
		return 0;
	ret = estimate_runs(a, na, b, nb, o, r, &runs);
	if (ret)
		return ret;
	r->runs_needed = runs;
	return 0;
}

int stats_compare_samples(const double *a, size_t na, const double *b,
			  size_t nb, enum stats_better better,
			  const struct stats_compare_opts *o,
			  struct stats_compare *out)
{
	struct stats_compare_opts def;
	struct stats_compare r = { 0 };
	size_t runs;
	int ret;

	if (!o) {
		stats_compare_opts_init(&def);
		o = &def;
	}
	if (!out || !opts_ok(o) ||
	    (better != STATS_HIGHER && better != STATS_LOWER &&
	     better != STATS_NEUTRAL))
		return -EINVAL;
	if ((na && !a) || (nb && !b) || stats_check_finite(a, na) ||
	    stats_check_finite(b, nb))
		return -EINVAL;

	r.na = na;
	r.nb = nb;
	ret = describe(a, na, &r.median_a, &r.mean_a, &r.sd_pct_a,
		       &r.outliers_a, &r.drift_p_a);
	if (!ret)
		ret = describe(b, nb, &r.median_b, &r.mean_b, &r.sd_pct_b,
			       &r.outliers_b, &r.drift_p_b);
	if (ret)
		return ret;
	r.change_mean_pct = NAN;
	if (na && nb && r.mean_a != 0)
		r.change_mean_pct =
			100 * (r.mean_b - r.mean_a) / fabs(r.mean_a);
	r.p = r.shift_pct = r.shift_lo_pct = r.shift_hi_pct = NAN;
	if (na && nb) {
		ret = test_shift(a, na, b, nb, o, &r);
		if (ret)
			return ret;
	}

	if (na < o->min_n || nb < o->min_n) {
		r.verdict = STATS_TOO_FEW;
		ret = estimate_runs(a, na, b, nb, o, &r, &runs);
		if (ret)
			return ret;
		r.runs_needed = runs > o->min_n ? runs : o->min_n;
	} else if (all_equal(a, na, b, nb)) {
		r.verdict = STATS_SAME;
	} else {
		ret = judge_runs(a, na, b, nb, better, o, &r);
		if (ret)
			return ret;
	}
	*out = r;
	return 0;
}

int stats_compare_union(const struct stats_compare *parts, size_t nparts,
			const double *a, size_t na, const double *b, size_t nb,
			enum stats_better better, const struct stats_compare_opts *o,
			struct stats_compare *out)
{
	struct stats_compare_opts def;
	struct stats_compare r;
	int ret;

	if (!o) {
		stats_compare_opts_init(&def);
		o = &def;
	}
	if (!parts || !nparts || !out || !opts_ok(o) || (na && !a) || (nb && !b))
		return -EINVAL;
	for (size_t k = 0; k < nparts; k++)
		if (!parts[k].log_scale || parts[k].na != na || parts[k].nb != nb)
			return -EINVAL;
	r = parts[0];
	/* too few values, or nothing differed: no estimate changes that */
	if (r.verdict == STATS_TOO_FEW || (r.verdict == STATS_SAME && all_equal(a, na, b, nb))) {
		*out = r;
		return 0;
	}
	for (size_t k = 1; k < nparts; k++) {
		r.p = fmax(r.p, parts[k].p);
		r.exact = r.exact && parts[k].exact;
		r.shift_lo_pct = fmin(r.shift_lo_pct, parts[k].shift_lo_pct);
		r.shift_hi_pct = fmax(r.shift_hi_pct, parts[k].shift_hi_pct);
	}
	r.runs_needed = 0;
	ret = judge_runs(a, na, b, nb, better, o, &r);
	if (ret)
		return ret;
	*out = r;
	return 0;
}

/* Pairs to find a change of delta in ln with a paired t test at alpha and
 * power, from the log ratios' sd: the normal approximation plus the
 * degrees of freedom the t loses, lost (1 for the paired t; 2 for a
 * crossover, whose two orders, half the pairs each, give its mean the
 * paired t's standard error); 0 when it cannot be said. */
static size_t paired_runs(double sd, double delta, unsigned lost,
			  const struct stats_compare_opts *o)
{
	double z = gsl_cdf_ugaussian_Pinv(1 - o->alpha / 2) + gsl_cdf_ugaussian_Pinv(o->power);
	double n;

	if (!(sd > 0) || !(delta > 0))
		return 0;
	n = ceil(z * z * sd * sd / (delta * delta)) + lost;
	if (!(n <= STATS_RUNS_MAX))
		return 0;
	return n < STATS_RUNS_MIN ? STATS_RUNS_MIN : (size_t)n;
}

int stats_compare_paired(const double *a, const double *b, size_t n,
			 enum stats_better better, const struct stats_compare_opts *o,
			 struct stats_compare *out)
{
	return stats_compare_crossover(a, b, NULL, n, better, o, out, NULL);
}

/* Whether the pairs make a crossover: both orders, 3 pairs or more. */
static bool both_orders(const bool *a_first, size_t n)
{
	size_t k = 0;

	if (!a_first || n < 3)
		return false;
	for (size_t i = 0; i < n; i++)
		k += a_first[i];
	return k && k < n;
}

int stats_compare_crossover(const double *a, const double *b, const bool *a_first,
			    size_t n, enum stats_better better,
			    const struct stats_compare_opts *o, struct stats_compare *out,
			    struct stats_ratio *period)
{
	struct stats_compare_opts def;
	struct stats_compare r = { 0 };
	struct stats_ratio q = { .sd_log = NAN }, per = { 0 };
	bool crossover = both_orders(a_first, n);
	unsigned lost = crossover ? 2 : 1;
	int ret;

	if (!o) {
		stats_compare_opts_init(&def);
		o = &def;
	}
	if (!out || !opts_ok(o) || (n && (!a || !b)) ||
	    (better != STATS_HIGHER && better != STATS_LOWER && better != STATS_NEUTRAL))
		return -EINVAL;
	if (stats_check_finite(a, n) || stats_check_finite(b, n))
		return -EINVAL;
	if (!all_positive(a, n) || !all_positive(b, n))
		return -EDOM;
	r.na = r.nb = n;
	r.log_scale = true;
	if ((ret = describe(a, n, &r.median_a, &r.mean_a, &r.sd_pct_a, &r.outliers_a,
			    &r.drift_p_a)) ||
	    (ret = describe(b, n, &r.median_b, &r.mean_b, &r.sd_pct_b, &r.outliers_b,
			    &r.drift_p_b)))
		return ret;
	r.change_mean_pct = n ? 100 * (r.mean_b - r.mean_a) / r.mean_a : NAN;
	r.p = r.shift_pct = r.shift_lo_pct = r.shift_hi_pct = NAN;
	if (n >= 2) {
		ret = crossover ? stats_crossover_ratio(b, a, a_first, n, o->conf, &q, &per) :
				  stats_paired_ratio(b, a, n, o->conf, &q);
		if (ret)
			return ret;
		r.p = q.p;
		r.shift_pct = 100 * (q.geomean - 1);
		r.shift_lo_pct = 100 * (q.lo - 1);
		r.shift_hi_pct = 100 * (q.hi - 1);
	}
	if (n < o->min_n) {
		size_t runs = isnan(q.sd_log) ? 0 :
			      paired_runs(q.sd_log, log1p(o->min_change_pct / 100), lost, o);

		r.verdict = STATS_TOO_FEW;
		r.runs_needed = runs > o->min_n ? runs : o->min_n;
	} else if (all_equal(a, n, b, n)) {
		r.verdict = STATS_SAME;
	} else {
		r.verdict = judge(&r, better, o);
		if (r.verdict == STATS_INCONCLUSIVE)
			r.runs_needed = paired_runs(q.sd_log, log1p(o->min_change_pct / 100), lost, o);
	}
	*out = r;
	if (period)
		*period = per;
	return 0;
}
