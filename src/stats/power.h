/* SPDX-License-Identifier: GPL-2.0-only */
/* How many runs per side a rank test needs to see a given change. */
#ifndef NR_STATS_POWER_H
#define NR_STATS_POWER_H

#include <stddef.h>

/* Never fewer runs per side than this (a verdict needs samples). */
#define STATS_RUNS_MIN 4
/* Above this the answer is -ERANGE rather than a number of runs. */
#define STATS_RUNS_MAX 1000000

/*
 * Runs per side for a two-sided Mann-Whitney test at level alpha to detect
 * a shift delta with probability power, given the standard deviations
 * sd_a and sd_b of one run on each side (delta, sd_a, sd_b in one unit):
 *
 *   n_t = (z_{1-alpha/2} + z_{power})^2 * (sd_a^2 + sd_b^2) / delta^2
 *   n   = ceil(n_t / (3 / pi))
 *
 * n_t is the normal-approximation sample size of the two-sample shift
 * (t/z) test; 3/pi = 0.955 is the asymptotic relative efficiency of
 * Mann-Whitney against it for normal data (it is >= 0.864 for any
 * distribution and above 1 for heavy tails, so this is mildly
 * conservative there). n is then raised to at least STATS_RUNS_MIN and to
 * the smallest n for which an exact test of n against n can reach alpha
 * at all (2 / C(2n, n) < alpha; e.g. 4 at 0.05, 5 at 0.01).
 *
 * alpha and power in (0, 1), delta > 0, sd_a, sd_b >= 0, all finite, else
 * -EINVAL; -ERANGE when n would exceed STATS_RUNS_MAX. Returns 0 and
 * stores n in *out. Pure computation: any thread.
 */
int stats_runs_needed_sd(double sd_a, double sd_b, double delta,
			 double alpha, double power, size_t *out);

/*
 * As stats_runs_needed_sd() with the noise given as coefficients of
 * variation in percent (pass the same value twice for a pooled CV) and
 * the smallest change that matters in percent (> -100, != 0; its sign
 * does not matter). The test runs on log values, where the change is
 * delta = |ln(1 + min_change_pct / 100)| and a CV of c percent is a
 * standard deviation of sqrt(ln(1 + (c / 100)^2)) (exact for lognormal
 * data, ~c / 100 for small c). Any thread.
 */
int stats_runs_needed(double cv_pct_a, double cv_pct_b,
		      double min_change_pct, double alpha, double power,
		      size_t *out);

#endif
