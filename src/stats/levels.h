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
/* A stretch that left the level and came back (one cut cannot split it)
 * must pass its t test at STATS_LEVEL_P / this: it is the best of about
 * n^2 / 2 stretches rather than of n cuts. */
#define STATS_LEVEL_EPI_DIV 10.0
/* Over this many rates, that search starts on a coarser grid (an hour of
 * 100 ms rates would be 6.5e8 stretches). */
#define STATS_LEVEL_EPI_GRID 200

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
 * of the mean of all the rates, a side too short to split again (under
 * 2 STATS_LEVEL_MIN_N) holds its level throughout (3/4 of its rates on its
 * side of the midpoint: a shorter dip with ordinary rates around it makes
 * no level) and a pooled two-sample t test gives p < STATS_LEVEL_P; then
 * adjacent levels closer than the larger of
 * STATS_LEVEL_PCT of the mean and STATS_LEVEL_SD pooled within-level
 * standard deviations are merged, closest first (the test above ignores
 * that successive rates are correlated; this keeps slow wander from
 * counting). A stretch no cut splits may still have left its level and
 * come back (a 1 s move in the middle of 10 s): then the stretch inside it
 * whose mean differs most from the rest's splits it in three, under the
 * same rules, its t test's statistic scaled for the rates' lag-1
 * autocorrelation and held to p < STATS_LEVEL_P / STATS_LEVEL_EPI_DIV.
 * Too few rates, or a mean <= 0: not tested, 0 returned. Values must be
 * finite. Returns 0, -EINVAL or -ENOMEM. O((n + STATS_LEVEL_EPI_GRID^2)
 * x levels). Only reads rates. Any thread.
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
 * when the rates lie on their lines. Returns 0, -EINVAL (NULL, non-finite
 * values) or -ENOMEM. O((n + STATS_LEVEL_EPI_GRID^2) x levels). Only reads
 * rates. Any thread.
 */
int stats_levels_rho(const double *rates, size_t n, double *rho);

#endif
