/* SPDX-License-Identifier: GPL-2.0-only */
/* The A/B verdict for one configuration and one metric: did it change? */
#ifndef NR_STATS_VERDICT_H
#define NR_STATS_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* Which direction of a metric is good. */
enum stats_better {
	STATS_HIGHER,
	STATS_LOWER,
	STATS_NEUTRAL,
};

enum stats_verdict_kind {
	STATS_REGRESSION, /* significant, at least min_change_pct, worse */
	STATS_IMPROVEMENT, /* as REGRESSION, but better */
	STATS_CHANGED, /* as those two, for a metric with no good direction */
	STATS_MINOR, /* significant, but smaller than the minimum change */
	STATS_SAME, /* not significant and the whole interval is within
		     * +-min_change, or every value identical */
	STATS_INCONCLUSIVE, /* neither: more runs needed (runs_needed) */
	STATS_TOO_FEW, /* fewer than min_n values on a side */
};

struct stats_compare_opts {
	double alpha; /* level of the rank test, in (0, 1); 0.05 */
	double min_change_pct; /* smallest change that matters, >= 0; 2.0 */
	double conf; /* level of the shift's interval, in (0, 1); 0.95 */
	double power; /* for runs_needed, in (0, 1); 0.8 */
	size_t min_n; /* values needed on each side, >= 2; 4 */
};

struct stats_compare {
	size_t na, nb;
	/* unit of the metric; NaN for a side with no values */
	double median_a, median_b, mean_a, mean_b;
	/* 100 * sd / |mean| per side ("%stddev"); NaN if n < 2 or mean 0 */
	double sd_pct_a, sd_pct_b;
	/* 100 * (mean_b - mean_a) / |mean_a|, the "%change" of kernel A/B
	 * tables; NaN when mean_a is 0 */
	double change_mean_pct;
	/*
	 * Hodges-Lehmann shift of b relative to a and its interval at
	 * opts->conf (stats_hl). log_scale: from logs, in percent
	 * (stats_shift_pct()). Otherwise from raw values, in percent of
	 * |median_a|; and if median_a is 0 as well (shift_abs), raw
	 * differences in the metric's unit. NaN when a side is empty.
	 */
	double shift_pct, shift_lo_pct, shift_hi_pct;
	double p; /* two-sided Mann-Whitney p-value; NaN when a side is empty */
	bool exact; /* p from the exact distribution */
	enum stats_verdict_kind verdict;
	/*
	 * Runs per side to settle the question (stats_runs_needed_sd() from
	 * the standard deviations of each side, of logs in log scale, against
	 * min_change_pct): for INCONCLUSIVE; for TOO_FEW at least min_n. The
	 * estimate can be below na or nb when the noise seen is low but the
	 * runs made still could not decide. 0 otherwise or when it cannot be
	 * computed (no spread estimate, min_change_pct 0, shift_abs, too big).
	 */
	size_t runs_needed;
	size_t outliers_a, outliers_b; /* stats_outliers() per side */
	/* stats_mann_kendall() p per side, values in the order given; NaN
	 * when a side has fewer than 4 values */
	double drift_p_a, drift_p_b;
	/* true when every value is > 0 and shifts are ratios from logs */
	bool log_scale;
	/* !log_scale and median_a is 0: shift_* are absolute differences */
	bool shift_abs;
};

/* Fill *o with the defaults above. Any thread. */
void stats_compare_opts_init(struct stats_compare_opts *o);

/*
 * Compare the values a[0..na) of label A with b[0..nb) of label B (same
 * configuration, same metric, each in run order) and decide, in this order:
 *
 * 1. na or nb < min_n: TOO_FEW (what can be computed is still filled).
 * 2. every value on both sides identical: SAME.
 * 3. p < alpha and |shift_pct| >= min_change_pct (and shift != 0):
 *    REGRESSION or IMPROVEMENT by the direction of the shift and better,
 *    CHANGED for STATS_NEUTRAL.
 * 4. p < alpha: MINOR. (A significant change is never called SAME, even
 *    when its interval lies inside +-min_change_pct.)
 * 5. -min_change_pct <= shift_lo_pct and shift_hi_pct <= min_change_pct:
 *    SAME.
 * 6. otherwise INCONCLUSIVE, with runs_needed.
 *
 * With shift_abs (median_a is 0, no percentage exists) any non-zero shift
 * counts as large in 3, and 5 needs an interval of exactly [0, 0].
 * The p-value is not adjusted for multiplicity: over many configurations,
 * pass the p's through stats_bh() and judge q instead.
 *
 * a and b must be non-NULL when na or nb is > 0; values finite. o may be
 * NULL for the defaults. Returns 0 and fills *out, or -EINVAL (NULL out,
 * bad pointer, non-finite value, bad option or better) or -ENOMEM, with
 * *out then untouched. Only reads a, b and o and keeps no pointer;
 * temporary memory is freed before it returns. No global state: any
 * thread, not in a measured loop.
 */
int stats_compare_samples(const double *a, size_t na, const double *b,
			  size_t nb, enum stats_better better,
			  const struct stats_compare_opts *o,
			  struct stats_compare *out);

/*
 * One verdict over several comparisons of the same samples moved by
 * different estimates of a nuisance (the headline adjusted at a slope and
 * at both ends of its interval): the largest p, the union of the shift's
 * intervals, parts[0]'s shift and descriptive figures; judged again as
 * stats_compare_samples judges, so a change is called only when it is
 * called at every estimate. runs_needed, when INCONCLUSIVE, from a and b
 * (parts[0]'s values). parts[0] as stats_compare_samples filled it from
 * a and b, every part with both sides > 0 (log scale). Returns 0, or
 * -EINVAL (NULL, nparts 0, a part not in log scale or of other sizes).
 * Any thread.
 */
int stats_compare_union(const struct stats_compare *parts, size_t nparts,
			const double *a, size_t na, const double *b, size_t nb,
			enum stats_better better, const struct stats_compare_opts *o,
			struct stats_compare *out);

/*
 * The same question from n pairs (a[i], b[i]) measured side by side, so
 * that what drifted between the pairs hit both of a pair alike: the
 * ratios b[i] / a[i] on the log scale, their mean tested against 0 with
 * Student's t (p two-sided, exact false) and its conf interval as the
 * shift, in percent; judged as stats_compare_samples judges (1 to 6 with
 * n for na and nb), runs_needed in pairs from the spread of the log
 * ratios. Descriptive figures per side as there. Every value > 0
 * (log_scale true), else -EDOM; -EINVAL as there. Any thread.
 */
int stats_compare_paired(const double *a, const double *b, size_t n,
			 enum stats_better better, const struct stats_compare_opts *o,
			 struct stats_compare *out);

struct stats_ratio;
/*
 * stats_compare_paired with the order of each pair (a_first[i]: a[i] ran
 * before b[i]; NULL: not known). With pairs of both orders, 3 or more in
 * all, the shift and its p come from the 2 x 2 crossover (stats_crossover_ratio),
 * which takes out what running second does to a run, and *period (may be
 * NULL) gets that effect, the second run over the first; otherwise the
 * pairs are taken as stats_compare_paired takes them and period->n is 0.
 */
int stats_compare_crossover(const double *a, const double *b, const bool *a_first,
			    size_t n, enum stats_better better,
			    const struct stats_compare_opts *o, struct stats_compare *out,
			    struct stats_ratio *period);

/* "REGRESSION", "IMPROVEMENT", "changed", "minor", "same", "inconclusive",
 * "too few"; "?" for a value outside the enum. Static strings; any thread. */
const char *stats_verdict_name(enum stats_verdict_kind v);

#endif
