/* SPDX-License-Identifier: GPL-2.0-only */
/* Checks on one side's runs before trusting them: outliers and drift. */
#ifndef NR_STATS_GUARD_H
#define NR_STATS_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* Iglewicz and Hoaglin's cut-off for |modified z-score|. */
#define STATS_OUTLIER_Z 3.5

/*
 * Number of outliers among x[0..n), n >= 1: values whose modified z-score
 * |0.6745 * (x - median) / MAD| exceeds STATS_OUTLIER_Z (Iglewicz and
 * Hoaglin 1993; MAD unscaled, see stats_mad()). When more than half the
 * values equal the median (MAD = 0, common with counters) the score falls
 * back to |x - median| / (1.253314 * MeanAD), MeanAD the mean absolute
 * deviation from the median (1.253314 = sqrt(pi/2) makes it a normal
 * sigma); when that is 0 too, every value is the median: no outliers.
 * Values must be finite. Returns 0 and stores the count in *count, or
 * -EINVAL or -ENOMEM. Only reads x, keeps no pointer; a temporary sorted
 * copy is freed before it returns. Any thread.
 */
int stats_outliers(const double *x, size_t n, size_t *count);

/* Mann-Kendall trend test of values in run order. */
struct stats_trend {
	bool tested; /* false when n < 4: nothing below is meaningful */
	double s; /* sum over i < j of sign(x_j - x_i) */
	double var_s; /* variance of S under no trend, tie-corrected */
	double tau; /* S / (n (n - 1) / 2) in [-1, 1]: > 0 rising */
	double z; /* (S - sign(S)) / sqrt(var_s), 0 when var_s is 0 */
	double p; /* two-sided p-value from the normal z; NaN if !tested */
	/* stats_steady only: the rates' persistence (stats_levels_rho, taken
	 * as at least 0 and at most STATS_STEADY_RHO_MAX) and the factor it
	 * widened var_s by for z and p; 0 and 1 for a plain test */
	double rho, var_factor;
};

/*
 * Mann-Kendall test for a monotone trend (drift) in x[0..n), the values of
 * one side in the order the runs were made: S as above,
 * var(S) = (n(n-1)(2n+5) - sum over tie groups of t(t-1)(2t+5)) / 18,
 * z with continuity correction, p = 2 * (1 - Phi(|z|)) (Kendall 1975;
 * Hipel and McLeod 1994). For n < 4 there is no test: ->tested is false,
 * tau and p are NaN, and the return value is still 0. Values must be
 * finite. Returns 0 and fills *out, or -EINVAL or -ENOMEM. O(n^2). Only
 * reads x, keeps no pointer. Any thread.
 */
int stats_mann_kendall(const double *x, size_t n, struct stats_trend *out);

/*
 * Kendall's rank correlation of y with x over n pairs, as a Mann-Kendall
 * test of y taken in the order of x: tau in [-1, 1] (> 0: y rises with x),
 * S, its tie-corrected variance (ties in y) and the two-sided p. Pairs tied
 * in x count as ordered by their position, so meant for continuous x (a
 * measured speed). Fewer than 4 pairs: not tested. Returns 0, -EINVAL
 * (NULL, non-finite values) or -ENOMEM.
 */
int stats_kendall(const double *x, const double *y, size_t n,
		  struct stats_trend *out);

/*
 * Steady state of a window from its interval rates (in time order). The
 * 100 ms rates are not independent: a quiet window's carry part of one
 * interval's deviation into the next, and the plain Mann-Kendall test,
 * which assumes they carry none, then calls trends in quiet windows far
 * more often than its p says (docs/methodology.md, "Steady state", gives
 * the measured and simulated rates). So the variance of S is
 * widened for the rates' own persistence rho (stats_levels_rho), as Hamed
 * and Rao (1998) do, with the ranks' autocorrelation at lag k taken from
 * a first-order autoregression, (6 / pi) asin(rho^k / 2):
 *   var_factor = 1 + 2 / (n (n-1) (n-2)) sum over k = 1 .. n-3 of
 *                (n-k) (n-k-1) (n-k-2) (6 / pi) asin(rho^k / 2).
 * Persistence estimated about the levels' lines leaves a window's own
 * steps and slopes out of it; a negative one widens nothing.
 * Not steady: the widened trend is significant (p < STATS_STEADY_P) and
 * strong (|tau| > STATS_STEADY_TAU, so that a long window's tiny drift
 * does not count), or the rates moved to another level and stayed there
 * (stats_levels: the last level STATS_LEVEL_PCT of the mean or more from
 * the first), which a rank test of persistent rates can miss however
 * large the step.
 * Fewer than 8 rates: not tested (tr->tested false, *not_steady false).
 */
#define STATS_STEADY_P 0.01
#define STATS_STEADY_TAU 0.25
#define STATS_STEADY_RHO_MAX 0.95
int stats_steady(const double *rates, size_t n, struct stats_trend *tr,
		 bool *not_steady);

/* The host's part in a window: see stats_host_trend(). */
struct stats_host_trend {
	bool tested;                   /* at least 8 ticks with a speed */
	struct stats_trend speed;      /* Mann-Kendall of the speeds, in time order */
	struct stats_trend rate_speed; /* Kendall of the rates against the speeds */
	/* the window was not steady and the speeds trended significantly
	 * (p < STATS_STEADY_P) the same way as the rates */
	bool host_trend;
};

/*
 * Whether the host's speed moved the rate within a window: rates[i] and
 * speeds[i] belong to the same 100 ms tick (the CPU speed probe's rate in
 * it, collect/speed.h); a NaN speed leaves its tick out. rate_tr and
 * not_steady are the window's own steady-state result (stats_steady on
 * all the rates). Returns 0 (out->tested false with fewer than 8 speeds),
 * -EINVAL (NULL) or -ENOMEM.
 */
int stats_host_trend(const double *rates, const double *speeds, size_t n,
		     const struct stats_trend *rate_tr, bool not_steady,
		     struct stats_host_trend *out);

/* The host moved the test's CPUs apart or together when the cross-CPU
 * round trip's levels within a window are this far apart (highest over
 * lowest): above the probe's jitter at one placement, below the step
 * between two (docs/results.md, window.xcpu_moved, gives the ratios
 * measured). */
#define STATS_XCPU_MOVED_RATIO 1.5

struct stats_levels;

/* Whether a window's round-trip levels (stats_levels of its ticks' round
 * trips) say the host moved the CPUs: more than one, the highest at least
 * STATS_XCPU_MOVED_RATIO times the lowest. */
bool stats_xcpu_levels_moved(const struct stats_levels *lv);

/* The host's placement in a window: see stats_host_moved(). */
struct stats_host_moved {
	bool tested;        /* enough ticks with a round trip for stats_levels */
	size_t levels;      /* levels of the round trip (stats_levels) */
	double lo_ns, hi_ns; /* its lowest and highest level */
	/* hi_ns / lo_ns >= STATS_XCPU_MOVED_RATIO */
	bool moved;
	/* moved: the share of the ticks with a round trip whose round trip
	 * was at or past the geometric middle of lo_ns and hi_ns (far
	 * apart), in %; and the mean rate of those ticks as % of the mean
	 * rate of the others (NAN when the others' is not positive): how
	 * much of the window the host kept the CPUs far apart, and what
	 * the rate did there. 0 and NAN when not moved. */
	double far_pct, rate_far_pct;
	/* Kendall of the rates against the round trips (tested with at
	 * least 4 ticks): tau < 0 when the rate fell as the CPUs moved apart */
	struct stats_trend rate_xcpu;
};

/*
 * Whether the host moved the test's CPUs within a window: rates[i] and
 * xcpus[i] belong to the same 100 ms tick (the mean round trip of a cache
 * line between the test's CPUs in it, collect/xcpu.h); a NaN round trip
 * leaves its tick out. Returns 0 (out->tested false with too few ticks:
 * no levels, the correlation still when there are 4), -EINVAL (NULL, a
 * non-finite rate) or -ENOMEM.
 */
int stats_host_moved(const double *rates, const double *xcpus, size_t n,
		     struct stats_host_moved *out);

/* Where two sides' samples sat: see stats_xcpu_mix(). */
struct stats_xcpu_mix {
	bool split;                /* two distances */
	double lo_ns[2], hi_ns[2]; /* the near one's range, the far one's */
	size_t n[2], far[2];       /* each side's samples, those far */
	/* the median of y of side s at distance d, median[d][s] (d 1: far);
	 * NaN where the side had no sample there, or no y was given */
	double median[2][2];
};

/*
 * Where the host kept the test's CPUs for two sides' samples, from their
 * cross-CPU round trips (host.xcpu_ns) xa[0..na) and xb[0..nb): split at
 * the widest gap between them sorted, when that gap is a move
 * (STATS_XCPU_MOVED_RATIO), else one distance (split false); with ya and
 * yb (may be NULL) a figure of each sample, its median per side and
 * distance. A round trip that is not a positive number leaves nothing to
 * say (split false). Returns 0, -EINVAL (NULL) or -ENOMEM.
 */
int stats_xcpu_mix(const double *xa, const double *ya, size_t na, const double *xb,
		   const double *yb, size_t nb, struct stats_xcpu_mix *out);

/* Whether the sides sat at the far distance in different shares. */
bool stats_xcpu_mix_differs(const struct stats_xcpu_mix *m);
/* The samples of side (0, 1) at distance d (0 near, 1 far). */
size_t stats_xcpu_mix_count(const struct stats_xcpu_mix *m, size_t d, size_t side);

#endif
