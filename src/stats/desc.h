/* SPDX-License-Identifier: GPL-2.0-only */
/* Descriptive statistics of one sample: centre, spread and quantiles. */
#ifndef NR_STATS_DESC_H
#define NR_STATS_DESC_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Rules shared by every function in this header:
 *
 * - x points to n values in any order, is never modified and is not kept
 *   after the call (the caller owns it and *out); a function
 *   that needs the values in order sorts a private copy (malloc'ed and
 *   freed before it returns, so none of them belongs in a measured loop).
 * - Every value must be finite: a NaN or an infinity gives -EINVAL.
 * - The result goes to *out, in the unit of x unless stated otherwise.
 *   Returns 0, or a negative errno and leaves *out untouched: -EINVAL for a
 *   NULL pointer, too few values or an argument out of range, -EDOM when
 *   the statistic is undefined for these data, -ENOMEM when the private
 *   copy cannot be allocated.
 * - No global state and no I/O: any thread may call them, on any data that
 *   no other thread is writing.
 */

/* Arithmetic mean of n >= 1 values. */
int stats_mean(const double *x, size_t n, double *out);

/* Median of n >= 1 values (mean of the two middle ones when n is even). */
int stats_median(const double *x, size_t n, double *out);

/* Sample standard deviation with the n - 1 denominator, n >= 2. */
int stats_sd(const double *x, size_t n, double *out);

/*
 * Coefficient of variation in percent: 100 * sd / |mean|, n >= 2 (the
 * "%stddev" column of kernel A/B tables). -EDOM when the mean is 0.
 */
int stats_cv_pct(const double *x, size_t n, double *out);

/*
 * Quantile at probability p in [0, 1], n >= 1: R's default type 7, the
 * linear interpolation between order statistics at h = (n - 1) * p
 * (0-based). p = 0.5 gives the median.
 */
int stats_quantile(const double *x, size_t n, double p, double *out);

/*
 * Median absolute deviation, n >= 1: median(|x - median(x)|), unscaled.
 * R's mad() multiplies this by 1.4826 to estimate a normal sigma.
 */
int stats_mad(const double *x, size_t n, double *out);

/*
 * Half-width of the conf (e.g. 0.95) confidence interval of the mean, in
 * percent of the mean: t(conf, n-1) * sd / sqrt(n) / |mean| * 100 (Student
 * t from GSL). Returns 0, -EINVAL (n < 2, conf outside (0, 1), NULL) or
 * -EDOM (mean 0). Used to stop adding repetitions once a mean is known
 * well enough.
 */
int stats_ci_half_pct(const double *x, size_t n, double conf, double *out);

/* --until-ci (run and matrix): an interval counts from this many values */
#define STATS_SETTLE_MIN_N 3

/*
 * The half-width of the 95% interval of the mean of x[0..n), in percent
 * of the mean (stats_ci_half_pct), once there are STATS_SETTLE_MIN_N
 * values; +inf before that or when there is none. --until-ci PCT stops
 * when it is <= PCT. Any thread.
 */
double stats_settle_half_pct(const double *x, size_t n);

/* The geometric mean of paired ratios, with its confidence interval. */
struct stats_ratio {
	size_t n;
	double geomean; /* exp(mean(log(num[i] / den[i]))) */
	double lo, hi;  /* exp(mean -+ t(conf, n-1) * sd(log) / sqrt(n)) */
	double sd_log;  /* sd(log(num[i] / den[i])) */
	/* two-sided Student t p of mean(log) = 0; with sd_log 0: 1 when
	 * every ratio is 1, else 0 */
	double p;
};

/*
 * Paired ratios num[i] / den[i] of n >= 2 pairs (measured side by side, so
 * that what drifts hits both), summarized on the log scale: the geometric
 * mean and the conf (e.g. 0.95) Student t interval of it. Returns 0,
 * -EINVAL (n < 2, conf outside (0, 1), NULL, a value not finite) or -EDOM
 * (a value <= 0).
 */
int stats_paired_ratio(const double *num, const double *den, size_t n,
		       double conf, struct stats_ratio *out);

/*
 * The same from n pairs run in either order, a 2 x 2 crossover: in the
 * pairs with den_first[i] the num run came second, in the others first.
 * The log ratios of each order are averaged apart; the mean of the two
 * averages is the change (*change), free of what the order does, and
 * half their difference is that (*period: the second run of a pair over
 * the first), each with its conf Student t interval and two-sided p on
 * n - 2 degrees of freedom from the sd pooled within the orders (sd_log,
 * the same in both). Needs a pair of each order and 3 in all; returns
 * -EINVAL otherwise and as stats_paired_ratio does, -EDOM as there.
 */
int stats_crossover_ratio(const double *num, const double *den, const bool *den_first,
			  size_t n, double conf, struct stats_ratio *change,
			  struct stats_ratio *period);

#endif
