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
	    !(r->abort_hi > 1) || !isfinite(r->abort_hi))
		return -EINVAL;
	return 0;
}

/*
 * The three groups on the log scale, after the runs set aside as
 * outliers: their counts, means and sums of squares about the means, and
 * the step's kept values.
 */
struct groups {
	double mg, mb, mx;
	double ssg, ssb, ssx;
	size_t m, k, n;        /* values kept */
	size_t out[3];         /* values set aside: good, bad, step */
	double *xs;            /* the step's log values [n]; owned */
};

static void groups_release(struct groups *g)
{
	free(g->xs);
	g->xs = NULL;
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
 * The logs of the three groups with the endpoints' outliers set aside: a
 * value more than BISECT_OUTLIER_Z robust standard deviations from its
 * group's median (Iglewicz and Hoaglin's modified z-score, as stats_outliers(),
 * with the MAD of the endpoints' distances from their medians pooled, so
 * that a step of a few runs is judged on the endpoints' scale; when that
 * MAD is 0, 1.253314 times their mean; when that is 0 too, nothing is set
 * aside). The step's runs are judged on the endpoints' scale with the
 * wider cut BISECT_STEP_OUTLIER_Z: at 3.5, trimming the step's extreme
 * runs after every run pushed a halfway commit to a side more often (2.8%
 * instead of 2.1% a side at gap / noise 3.5, tests/unit/test_bisect.c's
 * setting; 2.2% at 5), while a wild run (a 12% dip among runs 0.3% apart,
 * seen here) inflated the step's noise until it was skipped.
 * Release g with groups_release() after a success.
 */
static int summarize(const double *good, size_t ng, const double *bad,
		     size_t nb, const double *x, size_t n, struct groups *g)
{
	const double *in[3] = { good, bad, x };
	size_t len[3] = { ng, nb, n }, total = ng + nb + n, off = 0, nscale;
	size_t *kept[3] = { &g->m, &g->k, &g->n };
	double *mean[3] = { &g->mg, &g->mb, &g->mx };
	double *ss[3] = { &g->ssg, &g->ssb, &g->ssx };
	double *y = NULL, *dev = NULL, *tmp = NULL, cut = INFINITY, mad;
	bool *keep = NULL;
	int ret = 0;

	if (!good || !bad || ng < 2 || nb < 2 || (n && !x))
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	y = malloc(total * sizeof(*y));
	dev = malloc(total * sizeof(*dev));
	tmp = malloc(total * sizeof(*tmp));
	keep = malloc(total * sizeof(*keep));
	g->xs = malloc((n ? n : 1) * sizeof(*g->xs));
	if (!y || !dev || !tmp || !keep || !g->xs) {
		ret = -ENOMEM;
		goto out;
	}
	for (int j = 0; j < 3; j++) {
		double med;

		for (size_t i = 0; i < len[j]; i++) {
			if (!isfinite(in[j][i])) {
				ret = -EINVAL;
				goto out;
			}
			if (in[j][i] <= 0) {
				ret = -EDOM;
				goto out;
			}
			y[off + i] = log(in[j][i]);
		}
		if (len[j]) {
			memcpy(tmp, y + off, len[j] * sizeof(*tmp));
			med = median_inplace(tmp, len[j]);
			for (size_t i = 0; i < len[j]; i++)
				dev[off + i] = fabs(y[off + i] - med);
		}
		off += len[j];
	}
	/*
	 * The scale comes from the endpoints only (the step's few runs have
	 * an unsteady median), without the zero distance of the middle value
	 * of an odd group, which would bias the MAD low.
	 */
	nscale = 0;
	for (int j = 0; j < 2; j++) {
		size_t start = j ? ng : 0;
		bool skipped = !(len[j] % 2);

		for (size_t i = 0; i < len[j]; i++) {
			if (!skipped && dev[start + i] == 0) {
				skipped = true;
				continue;
			}
			tmp[nscale++] = dev[start + i];
		}
	}
	mad = median_inplace(tmp, nscale);
	if (mad > 0) {
		cut = BISECT_OUTLIER_Z * mad / 0.6745;
	} else {
		double mean_ad = 0;

		for (size_t i = 0; i < nscale; i++)
			mean_ad += tmp[i] / (double)nscale;
		if (mean_ad > 0)
			cut = BISECT_OUTLIER_Z * 1.253314 * mean_ad;
	}
	off = 0;
	for (int j = 0; j < 3; j++) {
		if (len[j]) {
			/* the step's cut is wider: see the comment above */
			g->out[j] = reject(dev + off, len[j],
					   j < 2 ? cut : cut * BISECT_STEP_OUTLIER_Z / BISECT_OUTLIER_Z,
					   keep + off);
			moments(y + off, keep + off, len[j], kept[j], mean[j], ss[j]);
		}
		off += len[j];
	}
	for (size_t i = 0, c = 0; i < n; i++)
		if (keep[ng + nb + i])
			g->xs[c++] = y[ng + nb + i];
out:
	free(keep);
	free(tmp);
	free(dev);
	free(y);
	if (ret)
		groups_release(g);
	return ret;
}

static double pooled_df(const struct groups *g)
{
	return (double)(g->m + g->k - 2) + (g->n ? (double)(g->n - 1) : 0);
}

static double pooled_sd(const struct groups *g)
{
	double s = sqrt((g->ssg + g->ssb + g->ssx) / pooled_df(g));

	return s > NOISE_FLOOR ? s : NOISE_FLOOR;
}

/*
 * Fieller's interval for theta = (mx - mg) / (mb - mg): the thetas with
 * (a - theta b)^2 <= t^2 s^2 (v11 - 2 theta v12 + theta^2 v22), a
 * quadratic A2 theta^2 + A1 theta + A0 <= 0. With A2 > 0 (the gap is
 * significant at this level) it is the interval between the roots;
 * otherwise the set is unbounded and reported as (-inf, inf).
 */
static void fieller(const struct groups *g, double s, double conf,
		    struct bisect_position *out)
{
	double a = g->mx - g->mg, b = g->mb - g->mg;
	double t = gsl_cdf_tdist_Pinv((1 + conf) / 2, pooled_df(g));
	double t2s2 = t * t * s * s;
	double v11 = 1.0 / (double)g->n + 1.0 / (double)g->m;
	double v22 = 1.0 / (double)g->k + 1.0 / (double)g->m;
	double v12 = 1.0 / (double)g->m;
	double a2 = b * b - t2s2 * v22;
	double a1 = -2 * (a * b - t2s2 * v12);
	double a0 = a * a - t2s2 * v11;
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

int bisect_position(const double *good, size_t ng, const double *bad,
		    size_t nb, const double *x, size_t n, double conf,
		    struct bisect_position *out)
{
	struct groups g;
	int ret;

	if (!out || n < 1 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if ((ret = summarize(good, ng, bad, nb, x, n, &g)))
		return ret;
	fieller(&g, pooled_sd(&g), conf, out);
	groups_release(&g);
	return 0;
}

/* Wald's SPRT statistic of the kept step values, each clipped beyond the
 * endpoints. */
static double clipped_llr(const struct groups *g, double s, double clip_sd)
{
	double lo = fmin(g->mg, g->mb) - clip_sd * s;
	double hi = fmax(g->mg, g->mb) + clip_sd * s;
	double llr = 0;

	for (size_t i = 0; i < g->n; i++) {
		double y = g->xs[i];

		y = y < lo ? lo : y > hi ? hi : y;
		llr += ((y - g->mg) * (y - g->mg) - (y - g->mb) * (y - g->mb)) /
		       (2 * s * s);
	}
	return llr;
}

int bisect_decide(const double *good, size_t ng, const double *bad, size_t nb,
		  const double *x, size_t n, const struct bisect_rule *r,
		  struct bisect_decision *out)
{
	struct bisect_decision d = { .verdict = BISECT_UNDECIDED, .n = n };
	const struct bisect_position *p = &d.pos;
	struct bisect_position side;
	struct groups g;
	double s;
	int ret;

	if (!out || bisect_rule_check(r))
		return -EINVAL;
	if ((ret = summarize(good, ng, bad, nb, x, n, &g)))
		return ret;
	s = pooled_sd(&g);
	d.noise = s;
	d.gap = g.mb - g.mg;
	d.out_good = g.out[0];
	d.out_bad = g.out[1];
	d.out_step = g.out[2];
	d.llr_bad = log((1 - r->beta) / r->alpha);
	d.llr_good = log(r->beta / (1 - r->alpha));
	d.pos.pos = d.pos.lo = d.pos.hi = NAN;
	if (!n) {
		d.why = "no runs yet";
		*out = d;
		groups_release(&g);
		return 0;
	}
	fieller(&g, s, r->conf, &d.pos);
	fieller(&g, s, r->side_conf, &side);
	d.llr = clipped_llr(&g, s, r->clip_sd);
	groups_release(&g);
	if (n < r->min_reps) {
		d.why = "fewer runs than the minimum";
	} else if (p->hi < r->abort_lo || p->lo > r->abort_hi) {
		d.verdict = BISECT_ABORT;
		d.why = "far outside both endpoints: re-measure them";
	} else if (p->lo > r->partial_lo && p->hi < r->partial_hi) {
		d.verdict = BISECT_PARTIAL;
		d.why = "between the endpoints";
	} else if (d.llr >= d.llr_bad && side.lo > 0.5) {
		d.verdict = BISECT_BAD;
		d.why = "likelihood ratio and position say bad";
	} else if (d.llr <= d.llr_good && side.hi < 0.5) {
		d.verdict = BISECT_GOOD;
		d.why = "likelihood ratio and position say good";
	} else if (n >= r->max_reps) {
		if (p->lo > 0 && p->hi < 1) {
			d.verdict = BISECT_PARTIAL;
			d.why = "at the cap, different from both endpoints";
		} else {
			d.verdict = BISECT_SKIP;
			d.why = "undecided at the cap";
		}
	} else {
		d.why = "undecided: more runs";
	}
	*out = d;
	return 0;
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
		    const double *bad, size_t nb, double theta, double gap,
		    const struct bisect_rule *r, double *x,
		    struct bisect_decision *d)
{
	size_t n = 0;
	int ret;

	do {
		x[n] = exp(SIM_SD * gsl_ran_gaussian_ziggurat(rng, 1) + theta * gap);
		n++;
		if ((ret = bisect_decide(good, ng, bad, nb, x, n, r, d)))
			return ret;
	} while (d->verdict == BISECT_UNDECIDED);
	return 0;
}

int bisect_simulate(double d, size_t ng, size_t nb, const struct bisect_rule *r,
		    unsigned trials, unsigned long seed, struct bisect_sim *out)
{
	double *good = NULL, *bad = NULL, *x = NULL, gap = d * SIM_SD;
	struct bisect_sim sim;
	gsl_rng *rng = NULL;
	int ret = 0;

	if (!out || !(d > 0) || !isfinite(d) || ng < 2 || nb < 2 ||
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
				bad[i] = exp(SIM_SD * gsl_ran_gaussian_ziggurat(rng, 1) + gap);
			ret = sim_step(rng, good, ng, bad, nb, side, gap, r, x, &dec);
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
	struct groups g;
	int ret;

	if (!out || bisect_rule_check(r) || !(min_change_pct >= 0))
		return -EINVAL;
	if ((ret = summarize(good, ng, bad, nb, NULL, 0, &g)))
		return ret;
	memset(&c, 0, sizeof(c));
	stats_compare_opts_init(&o);
	o.min_change_pct = min_change_pct;
	if ((ret = stats_compare_samples(good, ng, bad, nb, better, &o, &c.cmp)))
		return ret;
	c.noise = pooled_sd(&g);
	c.noise_pct = 100 * sqrt(expm1(c.noise * c.noise));
	c.gap = g.mb - g.mg;
	c.gap_noise = fabs(c.gap) / c.noise;
	c.out_good = g.out[0];
	c.out_bad = g.out[1];
	groups_release(&g);
	if ((ret = bisect_simulate(c.gap_noise, ng, nb, r, BISECT_SIM_TRIALS,
				   BISECT_SIM_SEED, &c.sim)))
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

			if ((ret = bisect_simulate(c.gap_noise, mg, mb, r,
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

int bisect_exit_code(enum bisect_verdict v)
{
	switch (v) {
	case BISECT_GOOD:
		return BISECT_EXIT_GOOD;
	case BISECT_BAD:
		return BISECT_EXIT_BAD;
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
