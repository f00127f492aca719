// SPDX-License-Identifier: GPL-2.0-only
/* The bisect step's decision rule: Fieller's position interval and a clipped SPRT (see rule.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/err.h"
#include "bisect/rule.h"
#include "stats/guard.h"

/* A pooled sd below this (in ln units: 0.0001%) is taken as this, so
 * that identical values do not divide by zero. */
#define NOISE_FLOOR 1e-6
/* The sides' noise is split when an F test says they differ at this level
 * (two-sided; at 1%, 5 + 5 runs of one noise split 1 bisect step in 100
 * and called a bad step good once in 2000). */
#define SPLIT_P 0.001
/* A side drifted when its recent level is this sure to have moved: it is
 * looked at after every run of every step, hence more than side_conf. */
#define DRIFT_CONF 0.999
/* A re-anchor is asked for when none is among this many newest groups:
 * its two groups and two steps' more. */
#define REANCHOR_GROUPS 4
/* The noise of simulated log values; only the ratio gap / noise counts. */
#define SIM_SD 0.01

static const char *const verdict_names[BISECT_VERDICT_COUNT] = {
	[BISECT_UNDECIDED] = "undecided",
	[BISECT_GOOD] = "good",
	[BISECT_BAD] = "bad",
	[BISECT_PARTIAL] = "partial",
	[BISECT_SKIP] = "skip",
	[BISECT_ABORT] = "abort",
};

void bisect_rule_init(struct bisect_rule *r)
{
	r->alpha = 0.01;
	r->beta = 0.01;
	r->conf = 0.95;
	r->side_conf = 0.99;
	r->min_reps = 3;
	r->max_reps = 10;
	r->clip_sd = 2;
	r->partial_lo = 0.2;
	r->partial_hi = 0.8;
	r->abort_lo = -1;
	r->abort_hi = 2;
	r->older_weight = 0.25;
}

int bisect_rule_check(const struct bisect_rule *r)
{
	if (!r || !(r->alpha > 0 && r->alpha < 0.5) ||
	    !(r->beta > 0 && r->beta < 0.5) || !(r->conf > 0 && r->conf < 1) ||
	    !(r->side_conf > 0 && r->side_conf < 1) ||
	    r->min_reps < 2 || r->max_reps < r->min_reps ||
	    r->max_reps > BISECT_REPS_LIMIT || !(r->clip_sd > 0) ||
	    !isfinite(r->clip_sd) ||
	    !(r->partial_lo >= 0 && r->partial_lo < 0.5) ||
	    !(r->partial_hi > 0.5 && r->partial_hi <= 1) ||
	    !(r->abort_lo < 0) || !isfinite(r->abort_lo) ||
	    !(r->abort_hi > 1) || !isfinite(r->abort_hi) ||
	    !(r->older_weight > 0 && r->older_weight <= 1))
		return -EINVAL;
	return 0;
}


static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* The median of v[0..n), n >= 1, reordering v. */
static double median_inplace(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * Set aside the outliers of one group of n values, dev[i] the distance of
 * each from the group's median: those beyond cut, the farthest first, at
 * most one in four of the group (an endpoint whose runs really split in
 * two modes is noisy, not cleaned), so never the last two of a group.
 * keep[i] says what stays. Returns how many went.
 */
static size_t reject(const double *dev, size_t n, double cut, bool *keep)
{
	size_t max_out = n / 4, out = 0;

	for (size_t i = 0; i < n; i++)
		keep[i] = true;
	while (out < max_out) {
		size_t far = n;

		for (size_t i = 0; i < n; i++)
			if (keep[i] && dev[i] > cut && (far == n || dev[i] > dev[far]))
				far = i;
		if (far == n)
			break;
		keep[far] = false;
		out++;
	}
	return out;
}

/* Count, mean and sum of squares about it of the kept y[0..n). */
static void moments(const double *y, const bool *keep, size_t n, size_t *kept,
		    double *mean, double *ss)
{
	double sum = 0, acc = 0;
	size_t c = 0;

	for (size_t i = 0; i < n; i++) {
		if (keep[i]) {
			sum += y[i];
			c++;
		}
	}
	*mean = sum / (double)c;
	for (size_t i = 0; i < n; i++)
		if (keep[i])
			acc += (y[i] - *mean) * (y[i] - *mean);
	*ss = acc;
	*kept = c;
}

/*
 * The groups of a bisect's history and the step on the log scale, after
 * the runs set aside as outliers: for each group its count, mean and sum
 * of squares about the mean; the step (the last group) also its kept
 * values.
 */
struct groups {
	size_t k;              /* groups: the history's, then the step */
	size_t *n, *out;       /* values kept, set aside [k] */
	double *mean, *ss;     /* [k] */
	double *xs;            /* the step's kept log values [n[k - 1]] */
	void *mem;             /* owns all of the above */
};

static void groups_release(struct groups *g)
{
	free(g->mem);
	memset(g, 0, sizeof(*g));
}

/* Log values of v[0..n) into y; -EINVAL for one not finite, -EDOM <= 0. */
static int logs_of(const double *v, size_t n, double *y)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			return -EINVAL;
		if (v[i] <= 0)
			return -EDOM;
		y[i] = log(v[i]);
	}
	return 0;
}

/*
 * The cut beyond which a run is set aside, from the reference groups'
 * distances dev[0..nref) to their medians (len[j] a group), without the
 * zero distance of the middle value of an odd group, which would bias
 * the MAD low; INFINITY when every distance is 0. tmp has nref slots.
 */
static double outlier_cut(const double *dev, const size_t *len, size_t nref_groups,
			  double *tmp)
{
	size_t nscale = 0, off = 0;
	double mad, mean_ad = 0;

	for (size_t j = 0; j < nref_groups; j++) {
		bool skipped = !(len[j] % 2);

		for (size_t i = 0; i < len[j]; i++) {
			if (!skipped && dev[off + i] == 0) {
				skipped = true;
				continue;
			}
			tmp[nscale++] = dev[off + i];
		}
		off += len[j];
	}
	if (!nscale)
		return INFINITY;
	mad = median_inplace(tmp, nscale);
	if (mad > 0)
		return BISECT_OUTLIER_Z * mad / 0.6745;
	for (size_t i = 0; i < nscale; i++)
		mean_ad += tmp[i] / (double)nscale;
	return mean_ad > 0 ? BISECT_OUTLIER_Z * 1.253314 * mean_ad : INFINITY;
}

/*
 * The logs of every group with outliers set aside: a value more than
 * BISECT_OUTLIER_Z robust standard deviations from its group's median
 * (Iglewicz and Hoaglin's modified z-score, as stats_outliers(), with the
 * MAD of the reference groups' distances from their medians pooled, so
 * that a step of a few runs is judged on their scale; when that MAD is 0,
 * 1.253314 times their mean; when that is 0 too, nothing is set aside).
 * The step's runs are judged on that scale with the wider cut
 * BISECT_STEP_OUTLIER_Z: at 3.5, trimming the step's extreme runs after
 * every run pushed a halfway commit to a side more often (2.8% instead of
 * 2.1% a side at gap / noise 3.5, tests/unit/test_bisect.c's setting;
 * 2.2% at 5), while a wild run (a 12% dip among runs 0.3% apart, seen
 * here) inflated the step's noise until it was skipped. The history's
 * groups must be valid (see hist_check()). Release g with
 * groups_release() after a success.
 */
static int summarize_hist(const struct bisect_group *hist, size_t nh, const double *x,
			  size_t n, struct groups *g)
{
	size_t k = nh + 1, total = n, off = 0, *len;
	double *y, *dev, *tmp, cut;
	bool *keep;
	char *p;
	int ret = 0;

	for (size_t j = 0; j < nh; j++)
		total += hist[j].n;
	memset(g, 0, sizeof(*g));
	/* one block: n, out, len [k]; mean, ss [k]; xs, y, dev, tmp [total]; keep */
	g->mem = malloc(3 * k * sizeof(size_t) + 2 * k * sizeof(double) +
			4 * (total + 1) * sizeof(double) + (total + 1) * sizeof(bool));
	if (!g->mem)
		return -ENOMEM;
	p = g->mem;
	g->n = (size_t *)p;
	g->out = g->n + k;
	len = g->out + k;
	p += 3 * k * sizeof(size_t);
	g->mean = (double *)p;
	g->ss = g->mean + k;
	g->xs = g->ss + k;
	y = g->xs + total + 1;
	dev = y + total + 1;
	tmp = dev + total + 1;
	keep = (bool *)(tmp + total + 1);
	g->k = k;
	for (size_t j = 0; j < k; j++) {
		const double *v = j < nh ? hist[j].v : x;
		double med;

		len[j] = j < nh ? hist[j].n : n;
		if ((ret = logs_of(v, len[j], y + off)))
			goto out;
		if (len[j]) {
			memcpy(tmp, y + off, len[j] * sizeof(*tmp));
			med = median_inplace(tmp, len[j]);
			for (size_t i = 0; i < len[j]; i++)
				dev[off + i] = fabs(y[off + i] - med);
		}
		off += len[j];
	}
	cut = outlier_cut(dev, len, nh, tmp);
	off = 0;
	for (size_t j = 0; j < k; j++) {
		g->mean[j] = NAN;
		g->ss[j] = 0;
		g->n[j] = g->out[j] = 0;
		if (len[j]) {
			/* the step's cut is wider: see the comment above */
			g->out[j] = reject(dev + off, len[j],
					   j < nh ? cut : cut * BISECT_STEP_OUTLIER_Z / BISECT_OUTLIER_Z,
					   keep + off);
			moments(y + off, keep + off, len[j], &g->n[j], &g->mean[j], &g->ss[j]);
		}
		off += len[j];
	}
	for (size_t i = 0, c = 0; i < n; i++)
		if (keep[off - n + i])
			g->xs[c++] = y[off - n + i];
out:
	if (ret)
		groups_release(g);
	return ret;
}

/* The two endpoints as a history. */
static void endpoints_hist(const double *good, size_t ng, const double *bad, size_t nb,
			   struct bisect_group h[2])
{
	h[0] = (struct bisect_group){ good, ng, BISECT_SIDE_GOOD, BISECT_GROUP_ENDPOINT };
	h[1] = (struct bisect_group){ bad, nb, BISECT_SIDE_BAD, BISECT_GROUP_ENDPOINT };
}

/* Exactly one endpoint a side, of >= 2 values; other groups >= 1. */
static int hist_check(const struct bisect_group *hist, size_t nh)
{
	size_t ends[2] = { 0, 0 };

	if (!hist || nh < 2 || nh > BISECT_REPS_LIMIT)
		return -EINVAL;
	for (size_t j = 0; j < nh; j++) {
		const struct bisect_group *h = &hist[j];

		if (!h->v || (unsigned)h->side > BISECT_SIDE_BAD ||
		    (unsigned)h->kind > BISECT_GROUP_ANCHOR || !h->n ||
		    h->n > BISECT_REPS_LIMIT)
			return -EINVAL;
		if (h->kind == BISECT_GROUP_ENDPOINT) {
			if (h->n < 2)
				return -EINVAL;
			ends[h->side]++;
		}
	}
	return ends[0] == 1 && ends[1] == 1 ? 0 : -EINVAL;
}

static double pooled_df(const struct groups *g)
{
	double df = 0;

	for (size_t j = 0; j < g->k; j++)
		if (g->n[j])
			df += (double)(g->n[j] - 1);
	return df;
}

static double pooled_sd(const struct groups *g)
{
	double ss = 0, s;

	for (size_t j = 0; j < g->k; j++)
		ss += g->ss[j];
	s = sqrt(ss / pooled_df(g));
	return s > NOISE_FLOOR ? s : NOISE_FLOOR;
}

/* A side's level: weighted mean of its runs, Kish's effective size. */
struct level {
	double mean, neff;
	size_t groups;
};

/*
 * The level of `side` from the history's groups accepted by `use` (kinds
 * as a bit mask), each run weighing older_weight^r, r the accepted groups
 * of the side after its own. neff 0 when none.
 */
static struct level side_level(const struct bisect_group *hist, const struct groups *g,
			       enum bisect_side side, unsigned use, double older_weight)
{
	struct level l = { NAN, 0, 0 };
	double w = 1, sw = 0, sw2 = 0, swy = 0;

	for (size_t j = g->k - 1; j-- > 0;) {
		double nj = (double)g->n[j];

		if (hist[j].side != side || !(use & (1u << hist[j].kind)) || !g->n[j])
			continue;
		sw += w * nj;
		sw2 += w * w * nj;
		swy += w * nj * g->mean[j];
		w *= older_weight;
		l.groups++;
	}
	if (sw > 0) {
		l.mean = swy / sw;
		l.neff = sw * sw / sw2;
	}
	return l;
}

#define USE(kind) (1u << (kind))
#define USE_ALL                                                              \
	(USE(BISECT_GROUP_ENDPOINT) | USE(BISECT_GROUP_STEP) |                \
	 USE(BISECT_GROUP_PARTIAL) | USE(BISECT_GROUP_ANCHOR))

/*
 * What the step is judged against: the sides' levels and sizes, and the
 * noise: s pooled over every group (df), or, when split, each side's own
 * (sg, sb, pooled within that side's groups), the step's noise taken as
 * the side its likelihood favours (sx, dfx).
 */
struct frame {
	struct level good, bad;
	double mx, nx;  /* the step's mean and kept runs */
	double s, df;
	bool split;
	double sg, sb, dfg, dfb, sx, dfx;
};

/*
 * Fieller's interval for theta = (mx - mg) / (mb - mg): the thetas with
 * (a - theta b)^2 <= t^2 (v11 - 2 theta v12 + theta^2 v22), a quadratic
 * A2 theta^2 + A1 theta + A0 <= 0, with v11 = sx^2 / n + sg^2 / m,
 * v22 = sb^2 / k + sg^2 / m, v12 = sg^2 / m (one s for all when not
 * split; m and k the sides' effective sizes). With A2 > 0 (the gap is
 * significant at this level) it is the interval between the roots;
 * otherwise the set is unbounded and reported as (-inf, inf).
 */
static void fieller(const struct frame *f, double conf, struct bisect_position *out)
{
	double a = f->mx - f->good.mean, b = f->bad.mean - f->good.mean;
	double t = gsl_cdf_tdist_Pinv((1 + conf) / 2, f->split ? f->dfx : f->df);
	double sg2 = f->split ? f->sg * f->sg : f->s * f->s;
	double sb2 = f->split ? f->sb * f->sb : f->s * f->s;
	double sx2 = f->split ? f->sx * f->sx : f->s * f->s;
	double t2 = t * t;
	double v11 = sx2 / f->nx + sg2 / f->good.neff;
	double v22 = sb2 / f->bad.neff + sg2 / f->good.neff;
	double v12 = sg2 / f->good.neff;
	double a2 = b * b - t2 * v22;
	double a1 = -2 * (a * b - t2 * v12);
	double a0 = a * a - t2 * v11;
	double disc, r;

	out->pos = b != 0 ? a / b : NAN;
	if (!(a2 > 0)) {
		out->lo = -INFINITY;
		out->hi = INFINITY;
		return;
	}
	disc = a1 * a1 - 4 * a2 * a0;
	r = sqrt(disc > 0 ? disc : 0);
	out->lo = (-a1 - r) / (2 * a2);
	out->hi = (-a1 + r) / (2 * a2);
}

/* A side's own noise: pooled within its groups (any kind). */
static void side_noise(const struct bisect_group *hist, const struct groups *g,
		       enum bisect_side side, double *s, double *df)
{
	double ss = 0;

	*df = 0;
	for (size_t j = 0; j + 1 < g->k; j++) {
		if (hist[j].side != side || !g->n[j])
			continue;
		ss += g->ss[j];
		*df += (double)(g->n[j] - 1);
	}
	*s = *df > 0 ? sqrt(ss / *df) : NOISE_FLOOR;
	if (*s < NOISE_FLOOR)
		*s = NOISE_FLOOR;
}

/* The frame of the endpoints alone, or of the sides as they stand. */
static void frame_of(const struct bisect_group *hist, const struct groups *g, bool all,
		     double older_weight, struct frame *f)
{
	unsigned use = all ? USE_ALL : USE(BISECT_GROUP_ENDPOINT);
	double hi, lo, dfhi, dflo;

	f->good = side_level(hist, g, BISECT_SIDE_GOOD, use, older_weight);
	f->bad = side_level(hist, g, BISECT_SIDE_BAD, use, older_weight);
	f->nx = (double)g->n[g->k - 1];
	f->mx = g->mean[g->k - 1];
	f->s = pooled_sd(g);
	f->df = pooled_df(g);
	side_noise(hist, g, BISECT_SIDE_GOOD, &f->sg, &f->dfg);
	side_noise(hist, g, BISECT_SIDE_BAD, &f->sb, &f->dfb);
	/* split when the sides' spreads differ: F test, two-sided, at 1% */
	hi = fmax(f->sg, f->sb);
	lo = fmin(f->sg, f->sb);
	dfhi = f->sg > f->sb ? f->dfg : f->dfb;
	dflo = f->sg > f->sb ? f->dfb : f->dfg;
	f->split = dfhi > 0 && dflo > 0 &&
		   (hi * hi) / (lo * lo) > gsl_cdf_fdist_Qinv(SPLIT_P / 2, dfhi, dflo);
	f->sx = f->s;
	f->dfx = f->df;
}

int bisect_position(const double *good, size_t ng, const double *bad,
		    size_t nb, const double *x, size_t n, double conf,
		    struct bisect_position *out)
{
	struct bisect_group h[2];
	struct groups g;
	struct frame f;
	int ret;

	if (!out || n < 1 || !x || !good || !bad || ng < 2 || nb < 2 ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	endpoints_hist(good, ng, bad, nb, h);
	if ((ret = summarize_hist(h, 2, x, n, &g)))
		return ret;
	frame_of(h, &g, false, 1, &f);
	fieller(&f, conf, out);
	groups_release(&g);
	return 0;
}

/*
 * Wald's SPRT statistic of the kept step values, each clipped to clip_sd
 * (the larger side's) noise beyond the sides: ln N(y; mb, sb) - ln N(y;
 * mg, sg), summed; sg = sb = s when not split.
 */
static double clipped_llr(const struct frame *f, const double *xs, double clip_sd)
{
	double mg = f->good.mean, mb = f->bad.mean;
	double sg = f->split ? f->sg : f->s, sb = f->split ? f->sb : f->s;
	double lo = fmin(mg, mb) - clip_sd * fmax(sg, sb);
	double hi = fmax(mg, mb) + clip_sd * fmax(sg, sb);
	double llr = 0;

	for (size_t i = 0; i < (size_t)f->nx; i++) {
		double y = xs[i];

		y = y < lo ? lo : y > hi ? hi : y;
		llr += (y - mg) * (y - mg) / (2 * sg * sg) - (y - mb) * (y - mb) / (2 * sb * sb) +
		       log(sg / sb);
	}
	return llr;
}

/*
 * With split noise, whether the step's mean differs from a side's level
 * at side_conf: |mx - m| > t sqrt(s^2 / n + s^2 / neff), s the side's.
 */
static bool differs_from(const struct frame *f, const struct level *l, double s, double df,
			 double conf)
{
	double t = gsl_cdf_tdist_Pinv((1 + conf) / 2, df);

	return fabs(f->mx - l->mean) > t * s * sqrt(1 / f->nx + 1 / l->neff);
}

/* How far the side's steps and re-anchors moved from its endpoint. */
static struct bisect_drift side_drift(const struct bisect_group *hist, const struct groups *g,
				      enum bisect_side side, const struct frame *f,
				      const struct bisect_rule *r)
{
	struct bisect_drift d = { false, 0, NAN, NAN, NAN };
	struct level end = side_level(hist, g, side, USE(BISECT_GROUP_ENDPOINT), 1);
	struct level now = side_level(hist, g, side,
				      USE(BISECT_GROUP_STEP) | USE(BISECT_GROUP_PARTIAL) |
					      USE(BISECT_GROUP_ANCHOR),
				      r->older_weight);
	double se, t, s;

	d.groups = now.groups;
	if (!now.groups)
		return d;
	s = f->split ? (side ? f->sb : f->sg) : f->s;
	se = s * sqrt(1 / end.neff + 1 / now.neff);
	t = gsl_cdf_tdist_Pinv((1 + DRIFT_CONF) / 2, f->split ? (side ? f->dfb : f->dfg) : f->df);
	d.shift = now.mean - end.mean;
	d.lo = d.shift - t * se;
	d.hi = d.shift + t * se;
	d.seen = fabs(d.shift) > s && (d.lo > 0 || d.hi < 0);
	return d;
}

/*
 * At the cap without a verdict: partial when the step differs from both
 * sides; otherwise skip, a step that could not be measured precisely
 * enough. Calling the side the likelihood ratio favoured instead named a
 * wrong culprit in 1 of 12 bisects of bench/bisect.sh on a loaded machine
 * (a bad step's runs spread 9.6-17 Gbps), where a skip lets git try the
 * commit beside it.
 */
static void at_cap(struct bisect_decision *d, bool partial)
{
	if (partial) {
		d->verdict = BISECT_PARTIAL;
		d->why = "at the cap, different from both sides: a partial change, git follows the larger part";
	} else {
		d->verdict = BISECT_SKIP;
		d->why = "undecided at the cap: not measured precisely enough";
	}
}

/*
 * With split noise the position's interval mixes two scales, so a step is
 * partial when it differs from both sides, each on its own noise, and
 * lies between them; otherwise the likelihood ratio decides, when the
 * position's point estimate or the other side's noise agrees (a step
 * nearer bad, or significantly not good, for bad): a false split (a side
 * whose few runs happen to agree closely) cannot call a step sitting on
 * one side the other.
 */
static void verdict_split(struct bisect_decision *d, const struct frame *f,
			  const struct bisect_rule *r)
{
	const struct bisect_position *p = &d->pos;
	/* a step a hair from a side whose runs agree closely differs from
	 * it, yet is that side: between means within (partial_lo, partial_hi) */
	bool between = p->pos > r->partial_lo && p->pos < r->partial_hi;
	bool not_good = differs_from(f, &f->good, f->sg, f->dfg, r->side_conf);
	bool not_bad = differs_from(f, &f->bad, f->sb, f->dfb, r->side_conf);

	if (between && not_good && not_bad) {
		d->verdict = BISECT_PARTIAL;
		d->why = "between the sides, each on its own noise: a partial change, git follows the larger part";
	} else if (d->llr >= d->llr_bad && (not_good || p->pos >= 0.5)) {
		d->verdict = BISECT_BAD;
		d->why = "likelihood ratio says bad, the position or good's noise agrees (the sides' noise differs)";
	} else if (d->llr <= d->llr_good && (not_bad || p->pos < 0.5)) {
		d->verdict = BISECT_GOOD;
		d->why = "likelihood ratio says good, the position or bad's noise agrees (the sides' noise differs)";
	} else if (d->n >= r->max_reps) {
		at_cap(d, between && differs_from(f, &f->good, f->sg, f->dfg, r->conf) &&
				  differs_from(f, &f->bad, f->sb, f->dfb, r->conf));
	} else {
		d->why = "undecided: more runs";
	}
}

/* Whether a re-anchor is among the newest REANCHOR_GROUPS groups: the
 * sides as they stand are known, and measuring them again at every step
 * of a drifting system would double its cost. */
static bool anchored_lately(const struct bisect_group *hist, size_t nh)
{
	for (size_t j = nh; j-- > 0 && nh - j <= REANCHOR_GROUPS;)
		if (hist[j].kind == BISECT_GROUP_ANCHOR)
			return true;
	return false;
}

/* Steps 1 to 6 of the rule (rule.h) on a filled decision. */
static void verdict_of(struct bisect_decision *d, const struct bisect_position *side,
		       const struct frame *f, const struct bisect_rule *r)
{
	const struct bisect_position *p = &d->pos;

	if (d->n < r->min_reps) {
		d->why = "fewer runs than the minimum";
	} else if (p->hi < r->abort_lo || p->lo > r->abort_hi) {
		d->verdict = BISECT_ABORT;
		d->why = "far outside both sides: re-measure them";
	} else if (f->split) {
		verdict_split(d, f, r);
	} else if (p->lo > r->partial_lo && p->hi < r->partial_hi) {
		d->verdict = BISECT_PARTIAL;
		d->why = "between the sides: a partial change, git follows the larger part";
	} else if (d->llr >= d->llr_bad && side->lo > 0.5) {
		d->verdict = BISECT_BAD;
		d->why = "likelihood ratio and position say bad";
	} else if (d->llr <= d->llr_good && side->hi < 0.5) {
		d->verdict = BISECT_GOOD;
		d->why = "likelihood ratio and position say good";
	} else if (d->n >= r->max_reps) {
		at_cap(d, p->lo > 0 && p->hi < 1);
	} else {
		d->why = "undecided: more runs";
	}
	d->toward = bisect_toward(d->verdict, d->llr);
}

int bisect_decide_history(const struct bisect_group *hist, size_t nh,
			  const double *x, size_t n, const struct bisect_rule *r,
			  struct bisect_decision *out)
{
	struct bisect_decision d = { .verdict = BISECT_UNDECIDED, .n = n };
	struct bisect_position side;
	struct groups g;
	struct frame f, ends;
	int ret;

	if (!out || bisect_rule_check(r) || hist_check(hist, nh) || (n && !x))
		return -EINVAL;
	if ((ret = summarize_hist(hist, nh, x, n, &g)))
		return ret;
	frame_of(hist, &g, false, 1, &ends);
	frame_of(hist, &g, true, r->older_weight, &f);
	/* sides that no longer differ as the endpoints did: the endpoints */
	d.endpoints_only = !((f.bad.mean - f.good.mean) * (ends.bad.mean - ends.good.mean) > 0);
	if (d.endpoints_only)
		f = ends;
	d.endpoints_only |= f.good.groups == 1 && f.bad.groups == 1;
	d.noise = f.s;
	d.split = f.split;
	d.noise_good = f.sg;
	d.noise_bad = f.sb;
	d.gap = ends.bad.mean - ends.good.mean;
	d.level_good = f.good.mean;
	d.level_bad = f.bad.mean;
	d.groups_good = f.good.groups;
	d.groups_bad = f.bad.groups;
	for (size_t j = 0; j < nh; j++) {
		if (hist[j].kind == BISECT_GROUP_ENDPOINT)
			*(hist[j].side ? &d.out_bad : &d.out_good) += g.out[j];
	}
	d.out_step = g.out[nh];
	d.drift[BISECT_SIDE_GOOD] = side_drift(hist, &g, BISECT_SIDE_GOOD, &f, r);
	d.drift[BISECT_SIDE_BAD] = side_drift(hist, &g, BISECT_SIDE_BAD, &f, r);
	d.llr_bad = log((1 - r->beta) / r->alpha);
	d.llr_good = log(r->beta / (1 - r->alpha));
	d.pos.pos = d.pos.lo = d.pos.hi = NAN;
	d.toward = BISECT_SIDE_GOOD;
	if (!n) {
		d.why = "no runs yet";
	} else {
		d.llr = clipped_llr(&f, g.xs, r->clip_sd);
		/* split: the step's noise is that of the side it looks like */
		f.sx = d.llr >= 0 ? f.sb : f.sg;
		f.dfx = d.llr >= 0 ? f.dfb : f.dfg;
		fieller(&f, r->conf, &d.pos);
		fieller(&f, r->side_conf, &side);
		verdict_of(&d, &side, &f, r);
		d.reanchor = d.verdict != BISECT_UNDECIDED && d.verdict != BISECT_ABORT &&
			     (d.verdict == BISECT_PARTIAL || d.drift[0].seen || d.drift[1].seen) &&
			     !anchored_lately(hist, nh);
	}
	groups_release(&g);
	*out = d;
	return 0;
}

int bisect_decide(const double *good, size_t ng, const double *bad, size_t nb,
		  const double *x, size_t n, const struct bisect_rule *r,
		  struct bisect_decision *out)
{
	struct bisect_group h[2];

	if (!good || !bad || ng < 2 || nb < 2)
		return -EINVAL;
	endpoints_hist(good, ng, bad, nb, h);
	return bisect_decide_history(h, 2, x, n, r, out);
}

enum bisect_side bisect_toward(enum bisect_verdict v, double llr)
{
	if (v == BISECT_BAD)
		return BISECT_SIDE_BAD;
	if (v == BISECT_GOOD)
		return BISECT_SIDE_GOOD;
	return llr >= 0 ? BISECT_SIDE_BAD : BISECT_SIDE_GOOD;
}

/* Fold x[0..n) into the range [*lo, *hi]; false when one is not > 0. */
static bool xcpu_range(const double *x, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || !isfinite(x[i]))
			return false;
		*lo = fmin(*lo, x[i]);
		*hi = fmax(*hi, x[i]);
	}
	return true;
}

int bisect_placed_elsewhere(const double *gx, size_t ng, const double *bx, size_t nb,
			    const double *sx, size_t n, bool *elsewhere,
			    struct bisect_placement *out)
{
	if (!gx || !bx || (n && (!sx || !elsewhere)) || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (n)
		memset(elsewhere, 0, n * sizeof(*elsewhere));
	out->lo_ns = INFINITY;
	if (!ng || !nb || !xcpu_range(gx, ng, &out->lo_ns, &out->hi_ns) ||
	    !xcpu_range(bx, nb, &out->lo_ns, &out->hi_ns)) {
		out->lo_ns = out->hi_ns = NAN;
		return 0;
	}
	out->tested = true;
	for (size_t i = 0; i < n; i++) {
		if (!(sx[i] > 0) || !isfinite(sx[i]))
			continue;
		elsewhere[i] = sx[i] >= STATS_XCPU_MOVED_RATIO * out->hi_ns ||
			       sx[i] * STATS_XCPU_MOVED_RATIO <= out->lo_ns;
		out->elsewhere += elsewhere[i];
	}
	return 0;
}

/* One simulated step at position theta: runs until the rule decides. */
static int sim_step(gsl_rng *rng, const double *good, size_t ng,
		    const double *bad, size_t nb, double theta, double gap, double sd,
		    const struct bisect_rule *r, double *x,
		    struct bisect_decision *d)
{
	size_t n = 0;
	int ret;

	do {
		x[n] = exp(sd * gsl_ran_gaussian_ziggurat(rng, 1) + theta * gap);
		n++;
		if ((ret = bisect_decide(good, ng, bad, nb, x, n, r, d)))
			return ret;
	} while (d->verdict == BISECT_UNDECIDED);
	return 0;
}

int bisect_simulate(double d, size_t ng, size_t nb, const struct bisect_rule *r,
		    unsigned trials, unsigned long seed, struct bisect_sim *out)
{
	if (!(d > 0) || !isfinite(d))
		return -EINVAL;
	return bisect_simulate_sides(d, 1, ng, nb, r, trials, seed, out);
}

int bisect_simulate_sides(double d, double sd_ratio, size_t ng, size_t nb,
			  const struct bisect_rule *r, unsigned trials,
			  unsigned long seed, struct bisect_sim *out)
{
	double *good = NULL, *bad = NULL, *x = NULL, gap = d * SIM_SD;
	double sd_bad = SIM_SD * sd_ratio;
	struct bisect_sim sim;
	gsl_rng *rng = NULL;
	int ret = 0;

	if (!out || !(d > 0) || !isfinite(d) || !(sd_ratio > 0) || !isfinite(sd_ratio) ||
	    ng < 2 || nb < 2 ||
	    ng > BISECT_REPS_LIMIT || nb > BISECT_REPS_LIMIT || !trials ||
	    bisect_rule_check(r))
		return -EINVAL;
	memset(&sim, 0, sizeof(sim));
	good = malloc(ng * sizeof(*good));
	bad = malloc(nb * sizeof(*bad));
	x = malloc(r->max_reps * sizeof(*x));
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!good || !bad || !x || !rng) {
		ret = -ENOMEM;
		goto out;
	}
	gsl_rng_set(rng, seed);
	for (int side = 0; side < 2 && !ret; side++) {
		for (unsigned t = 0; t < trials && !ret; t++) {
			struct bisect_decision dec;

			for (size_t i = 0; i < ng; i++)
				good[i] = exp(SIM_SD * gsl_ran_gaussian_ziggurat(rng, 1));
			for (size_t i = 0; i < nb; i++)
				bad[i] = exp(sd_bad * gsl_ran_gaussian_ziggurat(rng, 1) + gap);
			ret = sim_step(rng, good, ng, bad, nb, side, gap, side ? sd_bad : SIM_SD,
				       r, x, &dec);
			if (ret)
				break;
			sim.reps[side] += (double)dec.n;
			if (dec.verdict == (side ? BISECT_BAD : BISECT_GOOD))
				sim.right[side] += 1;
			else if (dec.verdict == (side ? BISECT_GOOD : BISECT_BAD))
				sim.wrong[side] += 1;
		}
		sim.reps[side] /= trials;
		sim.right[side] /= trials;
		sim.wrong[side] /= trials;
	}
	if (!ret)
		*out = sim;
out:
	gsl_rng_free(rng);
	free(x);
	free(bad);
	free(good);
	return ret;
}

int bisect_check_endpoints(const double *good, size_t ng, const double *bad,
			   size_t nb, enum stats_better better,
			   double min_change_pct, const struct bisect_rule *r,
			   struct bisect_start_check *out)
{
	struct bisect_start_check c;
	struct stats_compare_opts o;
	struct bisect_decision ends;
	int ret;

	if (!out || bisect_rule_check(r) || !(min_change_pct >= 0))
		return -EINVAL;
	if ((ret = bisect_decide(good, ng, bad, nb, NULL, 0, r, &ends)))
		return ret;
	memset(&c, 0, sizeof(c));
	stats_compare_opts_init(&o);
	o.min_change_pct = min_change_pct;
	if ((ret = stats_compare_samples(good, ng, bad, nb, better, &o, &c.cmp)))
		return ret;
	c.noise = ends.noise;
	c.noise_pct = 100 * sqrt(expm1(c.noise * c.noise));
	c.gap = ends.gap;
	c.gap_noise = fabs(c.gap) / c.noise;
	c.out_good = ends.out_good;
	c.out_bad = ends.out_bad;
	/* each side simulated with its own noise: a bimodal capped stream's
	 * pooled noise would make steps at the quiet good side look hard */
	c.sd_ratio = ends.noise_bad / ends.noise_good;
	c.sim_gap_noise = fabs(c.gap) / ends.noise_good;
	if ((ret = bisect_simulate_sides(c.sim_gap_noise, c.sd_ratio, ng, nb, r,
					 BISECT_SIM_TRIALS, BISECT_SIM_SEED, &c.sim)))
		return ret;
	if (ng < BISECT_ENDPOINT_MIN || nb < BISECT_ENDPOINT_MIN) {
		c.status = BISECT_START_TOO_FEW;
		c.add_good = ng < BISECT_ENDPOINT_MIN ? BISECT_ENDPOINT_MIN - ng : 0;
		c.add_bad = nb < BISECT_ENDPOINT_MIN ? BISECT_ENDPOINT_MIN - nb : 0;
	} else if (c.cmp.verdict == STATS_SAME) {
		c.status = BISECT_START_SAME;
	} else if (c.cmp.verdict == STATS_MINOR) {
		c.status = BISECT_START_MINOR;
	} else if (c.cmp.verdict == STATS_INCONCLUSIVE ||
		   c.cmp.verdict == STATS_TOO_FEW) {
		c.status = BISECT_START_INCONCLUSIVE;
		c.add_good = c.cmp.runs_needed > ng ? c.cmp.runs_needed - ng : 0;
		c.add_bad = c.cmp.runs_needed > nb ? c.cmp.runs_needed - nb : 0;
	} else if (c.sim.right[0] < BISECT_START_DECIDED ||
		   c.sim.right[1] < BISECT_START_DECIDED) {
		struct bisect_sim more;

		c.status = BISECT_START_TOO_NOISY;
		for (size_t m = (ng > nb ? ng : nb) + 1; m <= BISECT_ENDPOINT_MAX; m++) {
			size_t mg = ng > m ? ng : m, mb = nb > m ? nb : m;

			if ((ret = bisect_simulate_sides(c.sim_gap_noise, c.sd_ratio, mg, mb, r,
							 BISECT_SIM_TRIALS,
							 BISECT_SIM_SEED, &more)))
				return ret;
			if (more.right[0] >= BISECT_START_DECIDED &&
			    more.right[1] >= BISECT_START_DECIDED) {
				c.add_good = mg - ng;
				c.add_bad = mb - nb;
				break;
			}
		}
	} else {
		c.status = BISECT_START_OK;
	}
	*out = c;
	return 0;
}

const char *bisect_verdict_name(enum bisect_verdict v)
{
	return (unsigned)v < BISECT_VERDICT_COUNT ? verdict_names[v] : "?";
}

int bisect_verdict_parse(const char *s, enum bisect_verdict *v)
{
	for (int i = 0; i < BISECT_VERDICT_COUNT; i++) {
		if (s && !strcmp(s, verdict_names[i])) {
			*v = (enum bisect_verdict)i;
			return 0;
		}
	}
	return -EINVAL;
}

int bisect_exit_code(enum bisect_verdict v, double llr)
{
	switch (v) {
	case BISECT_GOOD:
		return BISECT_EXIT_GOOD;
	case BISECT_BAD:
		return BISECT_EXIT_BAD;
	case BISECT_PARTIAL:
		if (isnan(llr))
			return BISECT_EXIT_SKIP;
		return bisect_toward(v, llr) == BISECT_SIDE_BAD ? BISECT_EXIT_BAD :
								  BISECT_EXIT_GOOD;
	case BISECT_ABORT:
		return BISECT_EXIT_ABORT;
	default:
		return BISECT_EXIT_SKIP;
	}
}

bool bisect_verdict_final(enum bisect_verdict v)
{
	return v == BISECT_GOOD || v == BISECT_BAD || v == BISECT_PARTIAL ||
	       v == BISECT_SKIP;
}
