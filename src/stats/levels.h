/* SPDX-License-Identifier: GPL-2.0-only */
/* Levels in a window: where its interval rates shifted and whether they came back. */
#ifndef NR_STATS_LEVELS_H
#define NR_STATS_LEVELS_H

#include <stdbool.h>
#include <stddef.h>

/* Shortest level, in intervals: 10 of the 100 ms rates, a second. */
#define STATS_LEVEL_MIN_N 10
/* Smallest shift that counts, % of the window's mean rate. */
#define STATS_LEVEL_PCT 5.0
/* A split must pass a two-sample t test at this level... */
#define STATS_LEVEL_P 0.001
/* ...and, once every split is made, adjacent levels must differ by this
 * many standard deviations of the rates around their own level. */
#define STATS_LEVEL_SD 2.0

struct stats_levels {
	bool tested;  /* n >= 2 * STATS_LEVEL_MIN_N and a positive mean */
	size_t count; /* levels found: 1 when the rate held one level */
	double lo_pct, hi_pct; /* lowest and highest level, % of the mean rate */
	double first_pct, last_pct; /* the window's first and last level, ditto */
	/* the levels went up and then down, or down and then up: the window
	 * left an operating point and came back, so its mean is a mixture
	 * that depends on how long it stayed at each */
	bool mixed;
};

/*
 * The levels of rates[0..n) in time order, by binary segmentation: a
 * stretch splits where the difference of its two sides' means, weighted
 * by sqrt(n_left n_right / n), is largest, when both sides hold at least
 * STATS_LEVEL_MIN_N rates, their means differ by at least STATS_LEVEL_PCT
 * of the mean of all the rates, and a pooled two-sample t test gives
 * p < STATS_LEVEL_P; then adjacent levels closer than the larger of
 * STATS_LEVEL_PCT of the mean and STATS_LEVEL_SD pooled within-level
 * standard deviations are merged, closest first (the test above ignores
 * that successive rates are correlated; this keeps slow wander from
 * counting). Too few rates, or a mean <= 0: not tested, 0 returned.
 * Values must be finite. Returns 0, -EINVAL or -ENOMEM. O(n x levels).
 * Only reads rates. Any thread.
 */
int stats_levels(const double *rates, size_t n, struct stats_levels *out);

/*
 * How much of one interval's deviation carries into the next: the lag-1
 * autocorrelation of rates[0..n) about a least-squares line fitted within
 * each of their levels (as stats_levels finds them; one stretch when it
 * does not test), so that a step or a slope of the window does not count
 * as persistence, and raised by (2 + 4 rho) / (rates per level), which a
 * short stretch's autocorrelation about its own line reads low by (AR(1)
 * series of 20-100 rates). *rho at most 1; 0 with fewer than 3 rates or
 * when the rates lie on their lines. Returns 0, -EINVAL (NULL, non-finite values)
 * or -ENOMEM. O(n x levels). Only reads rates. Any thread.
 */
int stats_levels_rho(const double *rates, size_t n, double *rho);

#endif
