/* SPDX-License-Identifier: GPL-2.0-only */
/* The decision rule of a bisect step: good, bad, partial, skip or abort, from the endpoints' samples and the step's. */
#ifndef NR_BISECT_RULE_H
#define NR_BISECT_RULE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/verdict.h"

/*
 * A bisect compares the samples of one commit (the step) with the samples
 * of two labels, good and bad (the endpoints), all of one configuration and
 * one metric (its headline). Everything happens on the natural logs of the
 * values (all must be > 0), where a relative change is a shift and the
 * noise of throughput is close to normal. The rule is the same whichever
 * endpoint is higher: bisecting an improvement works as well ("bad" is then
 * git bisect's "new").
 *
 * First, endpoint runs that are outliers are set aside (one disturbed run
 * of an endpoint would otherwise inflate the noise of the whole bisect): a
 * value more than BISECT_OUTLIER_Z robust standard deviations from its
 * endpoint's median, the scale being the MAD of both endpoints' distances
 * from their medians pooled (the modified z-score of Iglewicz and Hoaglin,
 * as stats_outliers()); at most one run in four of an endpoint, the
 * farthest first. A step's run is set aside likewise beyond
 * BISECT_STEP_OUTLIER_Z of that scale from the step's median (at most one
 * in four: none of 3, one of 4). Then, with the m good, k bad and n step
 * values kept, their
 * means g, b and x, and the pooled standard deviation s of all three
 * groups (each about its own mean, m + k + n - 3 degrees of freedom):
 *
 * - the position of the step between the endpoints is
 *   theta = (x - g) / (b - g): 0 at good, 1 at bad; its interval is
 *   Fieller's (1954) for a ratio of two normal means, which accounts for
 *   the noise of the endpoints' means as well as the step's (the
 *   numerator's and denominator's variances s^2 (1/n + 1/m) and
 *   s^2 (1/k + 1/m), covariance s^2 / m, Student t with the pooled degrees
 *   of freedom); when the gap itself is not significant at that level the
 *   interval is unbounded (-inf, +inf);
 * - Wald's sequential probability ratio test of "the step is distributed
 *   like good" against "like bad", both normal with the common s:
 *   LLR = sum over the step's values of ((y - g)^2 - (y - b)^2) / (2 s^2),
 *   y the value clipped to clip_sd standard deviations beyond the farther
 *   endpoint (Huber's clipped likelihood ratio: one wild run moves it by
 *   a bounded amount), with Wald's thresholds ln((1 - beta) / alpha) for
 *   bad and ln(beta / (1 - alpha)) for good.
 *
 * Each new run of the step makes the rule look again, from all the data
 * (s and the means are estimated anew); with n >= min_reps, in order:
 *
 * 1. abort:   the interval lies wholly below abort_lo or above abort_hi
 *             (the step is far outside both sides: the system moved
 *             beyond both; re-measure them);
 * 2. partial: the interval lies inside (partial_lo, partial_hi);
 * 3. bad:     LLR >= the bad threshold and the interval is above 1/2;
 * 4. good:    LLR <= the good threshold and the interval is below 1/2;
 * 5. at n >= max_reps: partial when the interval lies inside (0, 1) (the
 *    step differs from both sides), otherwise skip (not measured
 *    precisely enough: git tries the commit beside it);
 * 6. otherwise undecided: run again.
 *
 * A partial step is a finding, not a skip: git is told the side of the
 * larger part of the change (bisect_toward(): bad when the likelihood
 * ratio favours bad, which with one noise is pos >= 1/2: the step already
 * carries at least half of the change, so the larger change lies at or
 * before it; good otherwise), as Pinpoint follows the larger of
 * several culprits, and the log reports the step with its level and
 * interval. So git bisect only hears 125 (skip) for a step that could
 * not be measured, or not precisely enough within max_reps.
 *
 * The sides as they stand (bisect_decide_history()). The endpoints are
 * measured once, often on other boots hours before the last step; the
 * steps decided since are measurements of the same sides as the system is
 * now. So a side is every group of runs that belongs to it, in the order
 * measured: its endpoint, the steps decided to it (a partial step to the
 * side git was told), and re-anchors (the current good or bad commit
 * measured again, `bisect reanchor`). Each run of a side weighs
 * older_weight^r, r the number of that side's groups measured after its
 * own (the newest group 1, the one before 1/4, ...): the side's level is
 * the weighted mean of its runs, its uncertainty s^2 / n_eff with Kish's
 * effective size n_eff = (sum w)^2 / sum w^2, and Fieller's interval and
 * the SPRT above take these levels and sizes in place of the endpoints'.
 * The noise s is still pooled within groups (each group about its own
 * mean): a level that moves between groups (drift, a stream whose mode
 * changes from one boot to the next) moves the sides, not the noise. With
 * only the endpoints, this is the rule above, unchanged. When the sides
 * as they stand no longer differ in the endpoints' direction (a wrong
 * verdict could make them), the step is judged against the endpoints.
 *
 * Each side its own noise. When an F test of the two sides' pooled
 * within-group variances rejects equality at 0.1% (two-sided; a capped
 * stream reads 3-10 Gbps where the uncapped one reads 20-22), the noise is
 * split: the LLR becomes sum ln N(y; b, sb) - ln N(y; g, sg) (clipped to
 * clip_sd of the larger noise beyond the sides), the position's interval
 * takes each side's noise (the step's being the side the LLR favours),
 * and steps 2-5 below become: partial when the step's mean differs from
 * both sides, each tested on its own noise (t at side_conf), and its
 * position lies inside (partial_lo, partial_hi); bad when LLR >= the bad threshold and either the position
 * is >= 1/2 or the step differs from good; good likewise; at the cap
 * partial (tested at conf) or skip.
 *
 * Drift. A side drifted when the weighted level of its decided steps,
 * partial steps and re-anchors differs from its endpoint's mean by more
 * than its noise and significantly (|d| > t(0.999) s sqrt(1/n_endpoint +
 * 1/n_eff); 0.999 since it is looked at after every run). A partial step
 * or a drift asks for a re-anchor (the decision's reanchor) unless one is
 * among the newest 4 groups: measuring the current good and bad commits
 * now tells a moved system from a partial change.
 *
 * Error rates (docs/bisect.md; tests/unit/test_bisect_sim.c runs whole
 * simulated bisects of drifting, bimodal, two-culprit and A/A systems):
 * with the endpoints alone and normal noise, a step at good is called bad
 * at most alpha of the time and a step at bad good at most beta (Wald),
 * fewer because the position must agree; older_weight trades the noise of
 * a side's level (n_eff drops from the sum of the runs to about the newest
 * group's) for following a level that moves.
 *
 * Everything here is pure computation without I/O or global state: any
 * thread. Inputs are only read and no pointer is kept; temporary memory is
 * freed before return.
 */

enum bisect_verdict {
	BISECT_UNDECIDED = 0, /* more runs needed; not final */
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_PARTIAL, /* between the sides: git hears bisect_toward() */
	BISECT_SKIP,    /* could not be measured (precisely enough, at the cap) */
	BISECT_ABORT,   /* far outside both endpoints: re-measure them */
	BISECT_VERDICT_COUNT,
};

/* Exit codes of `bisect run`, as git bisect run reads them. */
#define BISECT_EXIT_GOOD 0
#define BISECT_EXIT_BAD 1
#define BISECT_EXIT_SKIP 125
#define BISECT_EXIT_ABORT 128

/* Modified z-score beyond which a run is set aside (Iglewicz-Hoaglin). */
#define BISECT_OUTLIER_Z 3.5
/* The same for a step's own runs, judged on the endpoints' scale. */
#define BISECT_STEP_OUTLIER_Z 5.0
/* An endpoint needs this many samples: the rule cannot re-measure a label. */
#define BISECT_ENDPOINT_MIN 5
/* Upper bound of the runs any estimate here considers. */
#define BISECT_REPS_LIMIT 1000

struct bisect_rule {
	double alpha;            /* SPRT: a good step called bad; 0.01 */
	double beta;             /* SPRT: a bad step called good; 0.01 */
	double conf;             /* the position's interval; 0.95 */
	double side_conf;        /* its level for good and bad; 0.99 */
	unsigned min_reps;       /* runs before any verdict, >= 2; 3 */
	unsigned max_reps;       /* the cap, >= min_reps; 10 */
	double clip_sd;          /* > 0; 2 */
	double partial_lo, partial_hi; /* 0 <= lo < 1/2 < hi <= 1; 0.2, 0.8 */
	double abort_lo, abort_hi;     /* < 0 and > 1; -1, 2 */
	double older_weight;     /* a side's run per newer group, (0, 1]; 1/4 */
};

/* The defaults above. */
void bisect_rule_init(struct bisect_rule *r);
/* 0 when every field is in range, else -EINVAL. */
int bisect_rule_check(const struct bisect_rule *r);

struct bisect_position {
	double pos;    /* point estimate: 0 good, 1 bad; NaN without a gap */
	double lo, hi; /* interval at conf; -INFINITY / INFINITY unbounded */
};

/*
 * The position of the step x[0..n) between good[0..ng) and bad[0..nb),
 * raw values (> 0), ng, nb >= 2, n >= 1, conf in (0, 1): Fieller's
 * interval as above. Returns 0, -EINVAL (NULL, too few values, a value not
 * finite, conf out of range), -EDOM (a value <= 0) or -ENOMEM.
 */
int bisect_position(const double *good, size_t ng, const double *bad,
		    size_t nb, const double *x, size_t n, double conf,
		    struct bisect_position *out);

/* A side of the bisect: good (git's "old") or bad ("new"). */
enum bisect_side {
	BISECT_SIDE_GOOD = 0,
	BISECT_SIDE_BAD = 1,
};

/* What a group of runs in a bisect's history is. */
enum bisect_group_kind {
	BISECT_GROUP_ENDPOINT, /* the label's samples: exactly one a side */
	BISECT_GROUP_STEP,     /* a step decided good or bad */
	BISECT_GROUP_PARTIAL,  /* a partial step, on the side git was told */
	BISECT_GROUP_ANCHOR,   /* the side measured again (bisect reanchor) */
};

/* One group of runs of a side; v is borrowed (raw values > 0). */
struct bisect_group {
	const double *v;
	size_t n;
	enum bisect_side side;
	enum bisect_group_kind kind;
};

/* How far a side's decided steps and re-anchors moved from its endpoint. */
struct bisect_drift {
	bool seen;       /* beyond the noise and significant (rule.h above) */
	size_t groups;   /* the side's steps and re-anchors looked at */
	double shift;    /* their level - the endpoint's mean, ln; NaN: none */
	double lo, hi;   /* its interval at side_conf, ln */
};

struct bisect_decision {
	enum bisect_verdict verdict;
	enum bisect_side toward; /* what git hears for good, bad, partial */
	size_t n;
	struct bisect_position pos;
	double llr;             /* ln L(bad) / L(good) of the step's values */
	double llr_bad, llr_good; /* the thresholds (llr_good < 0 < llr_bad) */
	double noise;           /* pooled sd of the log values */
	bool split;             /* the sides' noise differs (F test): each its own */
	double noise_good, noise_bad; /* each side's own, pooled within its groups */
	double gap;             /* mean ln(bad) - mean ln(good) */
	size_t out_good, out_bad; /* endpoint runs set aside as outliers */
	size_t out_step;        /* the step's runs set aside */
	double level_good, level_bad; /* the sides' levels judged against, ln */
	size_t groups_good, groups_bad; /* groups of each side they come from */
	bool endpoints_only;    /* judged against the endpoints alone */
	struct bisect_drift drift[2]; /* [BISECT_SIDE_GOOD], [BISECT_SIDE_BAD] */
	/* a verdict that re-anchoring may change: partial, or a side drifted;
	 * measure the current good and bad commits now (once) and decide again */
	bool reanchor;
	const char *why;        /* static text: what decided, for the log */
};

/*
 * Apply the rule to the step's values so far, x[0..n) (n may be 0:
 * undecided), against the endpoints alone. Same inputs and errors as
 * bisect_position(), plus -EINVAL for a rule that bisect_rule_check()
 * refuses. Fills *out on success.
 */
int bisect_decide(const double *good, size_t ng, const double *bad, size_t nb,
		  const double *x, size_t n, const struct bisect_rule *r,
		  struct bisect_decision *out);

/*
 * The same against the sides as they stand: hist[0..nh) every group of
 * runs of the bisect in the order measured (oldest first), with exactly
 * one BISECT_GROUP_ENDPOINT a side of at least 2 values and any other
 * group of at least 1, all values finite and > 0; the step's own runs
 * x[0..n) are not in it. Returns 0 and fills *out, -EINVAL (NULL, a
 * missing or second endpoint, too few values, a value not finite, a bad
 * rule), -EDOM (a value <= 0) or -ENOMEM. Pure; hist is only read.
 */
int bisect_decide_history(const struct bisect_group *hist, size_t nh,
			  const double *x, size_t n, const struct bisect_rule *r,
			  struct bisect_decision *out);

/* The side git is told for a verdict whose likelihood ratio is llr: good
 * and bad their own; partial bad when llr >= 0, else good. */
enum bisect_side bisect_toward(enum bisect_verdict v, double llr);

/*
 * Where the host kept the test's CPUs: on a guest, the cross-CPU round
 * trip of a sample (host.xcpu_ns) says how far apart the host put the two
 * vCPUs, and a move alone changes loopback figures (udp_stream 5.7 against
 * 10.4 Gbps on the EPYC guest this was built on). A step whose runs the
 * host placed where it placed no endpoint run may then be judged on the
 * placement, not the commit; bisect run says so.
 */
struct bisect_placement {
	bool tested;  /* every endpoint run has a round trip (> 0) */
	double lo_ns, hi_ns; /* the endpoint runs' lowest and highest */
	size_t elsewhere;    /* the step's runs outside them, below */
};

/*
 * Mark the step's runs elsewhere[0..n): a round trip sx[i] at least
 * STATS_XCPU_MOVED_RATIO above the endpoint runs' highest or below their
 * lowest (gx[0..ng), bx[0..nb)). A run without a round trip (NaN, <= 0)
 * is never elsewhere; nor is any run when an endpoint run lacks one (not
 * tested). Returns 0 or -EINVAL (NULL). Pure.
 */
int bisect_placed_elsewhere(const double *gx, size_t ng, const double *bx, size_t nb,
			    const double *sx, size_t n, bool *elsewhere,
			    struct bisect_placement *out);

/* What the rule does with steps at the endpoints, by simulation. */
struct bisect_sim {
	double reps[2];  /* mean runs of a step at good [0] and at bad [1] */
	double right[2]; /* share of such steps called good [0], bad [1] */
	double wrong[2]; /* share called the other side */
};

/*
 * Simulate `trials` steps sitting at each endpoint under rule r: each
 * trial draws ng good and nb bad endpoint values and then the step's,
 * one run at a time until the rule decides, all normal on the log scale
 * with noise 1 and the gap d > 0 (so d = |gap| / noise of real data).
 * Deterministic for a seed (GSL's MT19937). ng, nb in
 * 2..BISECT_REPS_LIMIT, trials >= 1. Returns 0, -EINVAL or -ENOMEM.
 * Costs about 5 us per run simulated.
 */
int bisect_simulate(double d, size_t ng, size_t nb, const struct bisect_rule *r,
		    unsigned trials, unsigned long seed, struct bisect_sim *out);

/*
 * The same with the bad side's noise sd_ratio times the good side's and
 * d = |gap| / the good side's noise (sd_ratio 1: bisect_simulate()).
 * sd_ratio > 0 and finite; otherwise as above.
 */
int bisect_simulate_sides(double d, double sd_ratio, size_t ng, size_t nb,
			  const struct bisect_rule *r, unsigned trials,
			  unsigned long seed, struct bisect_sim *out);

/* The simulation bisect_check_endpoints() runs: trials a side, seed. */
#define BISECT_SIM_TRIALS 400
#define BISECT_SIM_SEED 1
/* It refuses endpoints where fewer steps at either are called right. */
#define BISECT_START_DECIDED 0.9
/* It looks for the endpoint samples that would do up to this many. */
#define BISECT_ENDPOINT_MAX 60

/* Why `bisect start` refuses, or OK. */
enum bisect_start_status {
	BISECT_START_OK,
	BISECT_START_TOO_FEW,      /* fewer than BISECT_ENDPOINT_MIN a side */
	BISECT_START_SAME,         /* no change between the endpoints */
	BISECT_START_MINOR,        /* significant, below the minimum change */
	BISECT_START_INCONCLUSIVE, /* more endpoint samples may show one */
	BISECT_START_TOO_NOISY,    /* too many steps would end undecided */
};

struct bisect_start_check {
	enum bisect_start_status status;
	struct stats_compare cmp; /* bad against good (stats_compare_samples) */
	double noise;     /* pooled sd of the endpoints' log values */
	double noise_pct; /* the same as a coefficient of variation, % */
	double gap;       /* mean ln(bad) - mean ln(good) */
	double gap_noise; /* |gap| / noise */
	/* what the simulation took: the bad side's noise over the good's, and
	 * |gap| over the good side's noise */
	double sd_ratio, sim_gap_noise;
	size_t out_good, out_bad; /* runs set aside as outliers */
	struct bisect_sim sim; /* steps at the endpoints, as they are now */
	/* samples to add to each endpoint for status TOO_FEW, INCONCLUSIVE
	 * or TOO_NOISY (both 0 otherwise, or when no number was found) */
	size_t add_good, add_bad;
};

/*
 * Can these endpoints be bisected? In order: each side has at least
 * BISECT_ENDPOINT_MIN values (TOO_FEW); stats_compare_samples() with
 * min_change_pct and the default alpha 0.05 calls a change (SAME, MINOR,
 * INCONCLUSIVE otherwise, with the runs it names; `better` is the
 * metric's direction); and bisect_simulate() with the measured gap /
 * noise calls at least BISECT_START_DECIDED of the steps at each endpoint
 * right within max_reps (TOO_NOISY, with the fewest endpoint samples, up
 * to BISECT_ENDPOINT_MAX a side, that would). Raw values > 0, ng, nb >= 2.
 * Returns 0 and fills *out, or -EINVAL, -EDOM, -ENOMEM.
 */
int bisect_check_endpoints(const double *good, size_t ng, const double *bad,
			   size_t nb, enum stats_better better,
			   double min_change_pct, const struct bisect_rule *r,
			   struct bisect_start_check *out);

/* "good", "bad", "partial", "skip", "abort", "undecided". */
const char *bisect_verdict_name(enum bisect_verdict v);
/* The inverse; -EINVAL for anything else. */
int bisect_verdict_parse(const char *s, enum bisect_verdict *v);
/* The exit code of `bisect run` for a verdict with likelihood ratio llr
 * (partial: the side bisect_toward() names, skip when llr is NaN;
 * undecided: skip). */
int bisect_exit_code(enum bisect_verdict v, double llr);
/* Good, bad, partial and skip are final; undecided and abort are looked at again. */
bool bisect_verdict_final(enum bisect_verdict v);

#endif
