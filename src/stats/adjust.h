/* SPDX-License-Identifier: GPL-2.0-only */
/* A headline adjusted for a nuisance the change under test cannot move: ANCOVA on logs. */
#ifndef NR_STATS_ADJUST_H
#define NR_STATS_ADJUST_H

#include <stdbool.h>
#include <stddef.h>

/* Fewer samples than this on a side: nothing is tested. */
#define STATS_ADJUST_MIN_N 4
/* The common slope must pass a t test at this level to be used. */
#define STATS_ADJUST_P 0.05

struct stats_adjust {
	/* both sides have STATS_ADJUST_MIN_N values, all > 0, and x varies
	 * within the sides */
	bool tested;
	/* tested, and the slope passed its t test: the adjusted values differ
	 * from the raw ones */
	bool applied;
	double slope;    /* d ln y / d ln x within the sides, pooled */
	double slope_se; /* its standard error */
	double slope_p;  /* two-sided: a t test with n - 3 degrees of freedom
			  * from the samples, the wild cluster bootstrap
			  * from the windows; NaN untested */
	/* the slope's 95% interval: slope +- t(n - 3) x slope_se from the
	 * samples; from the windows the leave-one-window-out jackknife's,
	 * t(G - 1); NaN untested. compare's adjusted row calls a change
	 * only when it is called at both ends too (stats_compare_union). */
	double slope_lo, slope_hi;
	double r2;       /* share of the within-side variance of ln y that went with ln x */
	double x_ref;    /* geometric mean of x over both sides: where the adjusted values sit */
	/* stats_adjust_windows(): the intervals fitted, the windows in
	 * which x moved (the clusters of the test), and those in which it
	 * stepped (the host moved the CPUs: window.xcpu_moved); set untested
	 * too when every window had its intervals (too few stepped), 0 when
	 * one had not */
	size_t ticks, windows, stepped;
};

/*
 * Analysis of covariance with one slope common to both sides, on logs: the
 * change of ln y per unit of ln x is estimated within each side (the
 * sides' own means taken out, so a difference between the sides does not
 * enter it) and pooled; each value is then moved along that slope to the
 * common x_ref:
 *
 *   ln y' = ln y - slope * (ln x - mean of ln x over both sides)
 *
 * Meant for a covariate the change cannot move (where the host put the
 * vCPUs, measured in each sample): the sides' difference at equal x stays,
 * the part of every sample's figure that went with x goes. When x moved
 * with the side and not within it, the slope is not estimable or not
 * significant, and nothing is adjusted: no statistics can tell the two
 * apart then. The t test of the slope has n - 3 degrees of freedom (two
 * means and the slope); the residual variance is of ln y around the two
 * parallel lines.
 *
 * ya/xa (na values) and yb/xb (nb) in the same order; ya_out and yb_out
 * get the adjusted values (copies of ya and yb when not applied). Returns
 * 0 (out->tested false for too few values, a value <= 0 or not finite, or
 * x spanning less than STATS_XCPU_MOVED_RATIO within both sides: only the
 * probe's jitter around one placement, noise the figure does not follow)
 * or -EINVAL (NULL). Any thread.
 */
int stats_adjust_log(const double *ya, const double *xa, size_t na,
		     const double *yb, const double *xb, size_t nb,
		     double *ya_out, double *yb_out, struct stats_adjust *out);

/*
 * The same fit over one set of samples (one label, the repetitions of a
 * run): ln y against ln x with one level, its t test with n - 2 degrees
 * of freedom, tested on the same terms (STATS_ADJUST_MIN_N values, x
 * spanning STATS_XCPU_MOVED_RATIO). When the slope applied, *cv is the
 * cov (%) of the values moved along it to x_ref, else NaN: how much of
 * one set's spread is left with the distance taken out. Returns 0 or
 * -EINVAL (NULL) or -ENOMEM. Any thread.
 */
int stats_adjust_log_cv(const double *y, const double *x, size_t n,
			struct stats_adjust *out, double *cv);

/*
 * y[0..n) with x[0..n) moved along a given slope to x_ref, as
 * stats_adjust_log moves them along its own: out[i] = y[i] * (x_ref /
 * x[i])^slope. For the ends of the slope's interval. Returns 0, -EINVAL
 * (NULL, a value <= 0 or not finite, x_ref <= 0) or -ERANGE (a moved
 * value overflowed or vanished). Any thread.
 */
int stats_adjust_log_at(const double *y, const double *x, size_t n, double slope,
			double x_ref, double *out);

/* A window has fewer intervals with a figure than this: nothing is tested. */
#define STATS_ADJUST_MIN_TICKS 5

/* x stepped (the host moved the CPUs) within fewer windows than this:
 * nothing is tested. */
#define STATS_ADJUST_MIN_WINDOWS 3

/* One sample's window: its interval rates and the covariate in each
 * interval (NaN where it had no figure), n of each. */
struct stats_window {
	const double *rate;
	const double *x;
	size_t n;
};

/*
 * The same adjustment from within the windows: the slope of ln(rate)
 * against ln(x) over the intervals of each window, each window's own
 * means taken out (a level per sample), pooled over the windows of both
 * sides. A window whose x stepped (the host moved the vCPUs in it) then
 * says how its rate went with x, whatever the sample medians did, and a
 * window that mixed two distances is adjusted by how long it spent at
 * each, which one figure per sample cannot do. It needs the host to have
 * moved the CPUs in at least STATS_ADJUST_MIN_WINDOWS windows (levels of
 * x STATS_XCPU_MOVED_RATIO apart, as window.xcpu_moved): where x only
 * jittered around one placement, that jitter is mostly the probe's own
 * noise, which the rate does not follow, so a slope fitted to it reads
 * near 0 even where the samples' medians at two placements show a steep
 * one (docs/methodology.md); compare then fits the samples' medians
 * (stats_adjust_log).
 *
 * The intervals of a window are not independent, so the slope's standard
 * error is the cluster-robust one with the windows as clusters (CR1:
 * G / (G - 1) * sum over windows of (sum of z * e)^2 / (sum of z^2)^2, z
 * the window-centred ln x, e the residual), G the windows in which x
 * moved at all (at least 3). Its t is not read against Student's t with
 * G - 1 degrees of freedom: when x stepped in a few windows and only
 * jittered in the rest, those few carry the slope and that test calls
 * chance significant (test_adjust_windows_few_moves_make_no_slope; the
 * simulated rates are in docs/methodology.md). p is the wild cluster
 * bootstrap's instead, restricted to a slope of 0 (WCR-C, Webb's
 * six-point weights, every combination up to 6 windows, else 9999 draws
 * from a fixed seed: the same windows give the same p), which weighs each
 * window by what it carries.
 * r2 is the share of the within-window variance of ln(rate) that went with
 * ln(x); x_ref the geometric mean of x over every interval with a figure.
 *
 * When applied, each value is scaled by its window's factor: the mean of
 * its rates each moved to x_ref (rate * (x_ref / x)^slope; an interval
 * without x moved by the window's geometric mean x) over the mean of the
 * rates. So ya_out stays in ya's definition (ya[i] is the sample's
 * headline, its window's rates the intervals of the same window).
 *
 * Needs STATS_ADJUST_MIN_N values on each side, every value > 0 and
 * finite, and STATS_ADJUST_MIN_TICKS intervals with a rate > 0 and a
 * figure in every window; else out->tested is false and the outputs are
 * copies. Returns 0, -EINVAL (NULL) or -ENOMEM. Any thread.
 */
int stats_adjust_windows(const double *ya, const struct stats_window *wa, size_t na,
			 const double *yb, const struct stats_window *wb, size_t nb,
			 double *ya_out, double *yb_out, struct stats_adjust *out);

/*
 * The same fit over one set of samples (one label, the repetitions of a
 * run): how much of their spread went with the distance within their
 * windows. The slope, its test and interval as above; when applied,
 * y_out[i] is y[i] scaled by its window's rates moved to x_ref. Needs
 * STATS_ADJUST_MIN_N samples and STATS_ADJUST_MIN_WINDOWS windows in
 * which the host moved the CPUs, else
 * out->tested is false and y_out a copy. Returns 0, -EINVAL (NULL) or
 * -ENOMEM. Any thread.
 */
int stats_adjust_windows_one(const double *y, const struct stats_window *w, size_t n,
			     double *y_out, struct stats_adjust *out);

/*
 * stats_adjust_windows_one's fit and, when it applied the slope, the cov
 * (%) of the moved figures in *cv, else NaN: how much of one set's spread
 * is left with the distance within its windows taken out. Returns 0,
 * -EINVAL (NULL) or -ENOMEM. Any thread.
 */
int stats_adjust_windows_cv(const double *y, const struct stats_window *w, size_t n,
			    struct stats_adjust *out, double *cv);

/*
 * One set's fit as compare makes it for two: from the windows (w, may be
 * NULL: a sample kept none) when that fit tested, else from the samples'
 * x (host.xcpu_ns, NaN without; may be NULL). *win gets the windows' fit
 * (untested without w), *smp the samples' (untested when the windows'
 * tested, or without x); *cv the cov (%) left by the one that applied,
 * else NaN. Returns 0, -EINVAL (NULL) or -ENOMEM. Any thread.
 */
int stats_adjust_one_cv(const double *y, const struct stats_window *w, const double *x,
			size_t n, struct stats_adjust *win, struct stats_adjust *smp, double *cv);

/*
 * y[0..n) scaled by their windows' rates moved along a given slope to
 * x_ref, as stats_adjust_windows scales them along its own. Returns 0,
 * -EINVAL (NULL, a value <= 0 or not finite, a window with fewer than
 * STATS_ADJUST_MIN_TICKS intervals with a figure, x_ref <= 0) or -ERANGE
 * (a scaled value overflowed or vanished). Any thread.
 */
int stats_adjust_windows_at(const double *y, const struct stats_window *w, size_t n,
			    double slope, double x_ref, double *out);

#endif
