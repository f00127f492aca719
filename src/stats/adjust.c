// SPDX-License-Identifier: GPL-2.0-only
/* A headline adjusted for a nuisance the change under test cannot move: ANCOVA on logs. */
#include "stats/adjust.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rng.h>

#include "stats/desc.h"
#include "stats/guard.h"
#include "stats/levels.h"

/* Within-side sums of one side: squares and products around its means. */
struct side_sums {
	double mean_lx, sum_lx;
	double sxx, sxy, syy;
};

static bool side(const double *y, const double *x, size_t n, struct side_sums *s)
{
	double my = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(y[i]) || !isfinite(x[i]) || y[i] <= 0 || x[i] <= 0)
			return false;
		s->sum_lx += log(x[i]);
		my += log(y[i]);
	}
	s->mean_lx = s->sum_lx / (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		double dx = log(x[i]) - s->mean_lx, dy = log(y[i]) - my;

		s->sxx += dx * dx;
		s->sxy += dx * dy;
		s->syy += dy * dy;
	}
	return true;
}

static void move(const double *y, const double *x, size_t n, double slope,
		 double mean_lx, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = exp(log(y[i]) - slope * (log(x[i]) - mean_lx));
}

/* Nothing adjusted (yet): out cleared, its p and interval NaN, the
 * outputs copies of the inputs (nb may be 0, yb and yb_out then unused). */
static void unadjusted(const double *ya, size_t na, const double *yb, size_t nb,
		       double *ya_out, double *yb_out, struct stats_adjust *out)
{
	memset(out, 0, sizeof(*out));
	out->slope_p = out->slope_lo = out->slope_hi = NAN;
	memmove(ya_out, ya, na * sizeof(*ya));
	if (nb)
		memmove(yb_out, yb, nb * sizeof(*yb));
}

/* Whether x[0..n) spans STATS_XCPU_MOVED_RATIO: the host moved the CPUs
 * between these samples, not only the probe's jitter around one place. */
static bool spans_a_move(const double *x, size_t n)
{
	double lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, x[i]);
		hi = fmax(hi, x[i]);
	}
	return n && lo > 0 && hi / lo >= STATS_XCPU_MOVED_RATIO;
}

/*
 * The slope of ln y on ln x from the within-side sums, its t test with df
 * degrees of freedom and its 95% interval, into out (tested); applied
 * when it passed.
 */
static void log_fit(double sxx, double sxy, double syy, size_t df, double mean_lx,
		    struct stats_adjust *out)
{
	double rss, half;

	out->tested = true;
	out->x_ref = exp(mean_lx);
	out->slope = sxy / sxx;
	out->r2 = syy > 0 ? out->slope * sxy / syy : 0;
	rss = syy - out->slope * sxy;
	if (!(rss > 0)) {
		/* every value on its side's line: exact, nothing left to test */
		out->slope_se = 0;
		out->slope_p = syy > 0 ? 0 : NAN;
	} else {
		out->slope_se = sqrt(rss / (double)df / sxx);
		out->slope_p = 2 * gsl_cdf_tdist_Q(fabs(out->slope) / out->slope_se, (double)df);
	}
	half = gsl_cdf_tdist_Pinv(0.975, (double)df) * out->slope_se;
	out->slope_lo = out->slope - half;
	out->slope_hi = out->slope + half;
	out->applied = !isnan(out->slope_p) && out->slope_p < STATS_ADJUST_P;
}

int stats_adjust_log(const double *ya, const double *xa, size_t na,
		     const double *yb, const double *xb, size_t nb,
		     double *ya_out, double *yb_out, struct stats_adjust *out)
{
	struct side_sums a, b;
	double mean_lx;

	if (!ya || !xa || !yb || !xb || !ya_out || !yb_out || !out)
		return -EINVAL;
	unadjusted(ya, na, yb, nb, ya_out, yb_out, out);
	if (na < STATS_ADJUST_MIN_N || nb < STATS_ADJUST_MIN_N ||
	    !side(ya, xa, na, &a) || !side(yb, xb, nb, &b))
		return 0;
	/* x did not move within either side: the slope is not estimable;
	 * it only jittered: what the slope would rest on is mostly noise */
	if (!(a.sxx + b.sxx > 1e-12) || !(spans_a_move(xa, na) || spans_a_move(xb, nb)))
		return 0;
	mean_lx = (a.sum_lx + b.sum_lx) / (double)(na + nb);
	/* two means and the slope */
	log_fit(a.sxx + b.sxx, a.sxy + b.sxy, a.syy + b.syy, na + nb - 3, mean_lx, out);
	if (!out->applied)
		return 0;
	move(ya, xa, na, out->slope, mean_lx, ya_out);
	move(yb, xb, nb, out->slope, mean_lx, yb_out);
	return 0;
}

int stats_adjust_log_cv(const double *y, const double *x, size_t n,
			struct stats_adjust *out, double *cv)
{
	struct side_sums s;
	double *adj;

	if (!y || !x || !out || !cv)
		return -EINVAL;
	*cv = NAN;
	adj = malloc((n ? n : 1) * sizeof(*adj));
	if (!adj)
		return -ENOMEM;
	unadjusted(y, n, NULL, 0, adj, NULL, out);
	/* one mean and the slope */
	if (n >= STATS_ADJUST_MIN_N && side(y, x, n, &s) && s.sxx > 1e-12 &&
	    spans_a_move(x, n)) {
		log_fit(s.sxx, s.sxy, s.syy, n - 2, s.mean_lx, out);
		if (out->applied) {
			move(y, x, n, out->slope, s.mean_lx, adj);
			if (stats_cv_pct(adj, n, cv))
				*cv = NAN;
		}
	}
	free(adj);
	return 0;
}

int stats_adjust_log_at(const double *y, const double *x, size_t n, double slope,
			double x_ref, double *out)
{
	if ((n && (!y || !x || !out)) || !isfinite(slope) || !(x_ref > 0))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(y[i] > 0) || !(x[i] > 0) || !isfinite(y[i]) || !isfinite(x[i]))
			return -EINVAL;
	move(y, x, n, slope, log(x_ref), out);
	for (size_t i = 0; i < n; i++)
		if (!isfinite(out[i]) || !(out[i] > 0))
			return -ERANGE;
	return 0;
}

/* A window's intervals that enter the fit: a rate > 0 and a figure > 0. */
static bool tick_ok(const struct stats_window *w, size_t t)
{
	return isfinite(w->rate[t]) && w->rate[t] > 0 && isfinite(w->x[t]) && w->x[t] > 0;
}

/* An interval's ln x and ln rate around its window's means mx, my. */
static bool tick_dev(const struct stats_window *w, size_t t, double mx, double my,
		     double *dx, double *dy)
{
	if (!tick_ok(w, t))
		return false;
	*dx = log(w->x[t]) - mx;
	*dy = log(w->rate[t]) - my;
	return true;
}

/* The means of ln x and ln rate over a window's intervals that enter the
 * fit; false when fewer than STATS_ADJUST_MIN_TICKS do. */
static bool window_means(const struct stats_window *w, double *mx, double *my)
{
	size_t k = 0;

	*mx = *my = 0;
	if (!w->rate || !w->x)
		return false;
	for (size_t t = 0; t < w->n; t++) {
		if (!tick_ok(w, t))
			continue;
		*mx += log(w->x[t]);
		*my += log(w->rate[t]);
		k++;
	}
	if (k < STATS_ADJUST_MIN_TICKS)
		return false;
	*mx /= (double)k;
	*my /= (double)k;
	return true;
}

/*
 * Whether the host moved the CPUs within the window: its round trips
 * stepped between levels STATS_XCPU_MOVED_RATIO apart, as
 * window.xcpu_moved says. *stepped is false when too few intervals have
 * a round trip to tell.
 */
static int window_stepped(const struct stats_window *w, bool *stepped)
{
	double *x = malloc((w->n ? w->n : 1) * sizeof(*x));
	struct stats_levels lv;
	size_t k = 0;
	int ret;

	*stepped = false;
	if (!x)
		return -ENOMEM;
	for (size_t t = 0; t < w->n; t++)
		if (tick_ok(w, t))
			x[k++] = w->x[t];
	ret = stats_levels(x, k, &lv);
	if (!ret)
		*stepped = stats_xcpu_levels_moved(&lv);
	free(x);
	return ret;
}

/* Scale y by the window's rates moved along the slope to lx_ref. */
static double window_moved(double y, const struct stats_window *w, double mx,
			   double slope, double lx_ref)
{
	double sum = 0, moved = 0;

	for (size_t t = 0; t < w->n; t++) {
		double lx = isfinite(w->x[t]) && w->x[t] > 0 ? log(w->x[t]) : mx;

		if (!isfinite(w->rate[t]) || w->rate[t] <= 0)
			continue;
		sum += w->rate[t];
		moved += w->rate[t] * exp(-slope * (lx - lx_ref));
	}
	return sum > 0 ? y * moved / sum : y;
}

/*
 * Webb's six-point weights: +-sqrt(1/2), +-1, +-sqrt(3/2), each 1/6. With
 * few clusters they give far more distinct bootstrap draws than +-1 do.
 */
static const double webb[6] = { -1.224744871391589, -1.0, -0.7071067811865476,
				0.7071067811865476, 1.0, 1.224744871391589 };

/* The CR1 t of the slope from the clusters' sums: each cluster's score is
 * sxy - slope * sxx; NaN when the variance is 0. */
static double cr1_t(const double *sxx, const double *sxy, size_t g, double sxx_all)
{
	double slope = 0, meat = 0, v;

	for (size_t k = 0; k < g; k++)
		slope += sxy[k];
	slope /= sxx_all;
	for (size_t k = 0; k < g; k++) {
		double s = sxy[k] - slope * sxx[k];

		meat += s * s;
	}
	v = (double)g / (double)(g - 1) * meat / (sxx_all * sxx_all);
	return v > 0 ? slope / sqrt(v) : NAN;
}

#define ADJUST_WILD_ENUM_MAX 6
#define ADJUST_WILD_DRAWS 9999
#define ADJUST_WILD_SEED 0x6e7265677265UL /* "nregre" */

/*
 * The slope's 95% interval from the leave-one-window-out jackknife (CV3:
 * (G - 1) / G * sum of (slope without window k - their mean)^2, t with
 * G - 1 degrees of freedom). A slope that rests on one or two windows
 * moves far when one of them is left out, and its interval says so, where
 * CR1's, with every jittering window counted, would not.
 */
static void jackknife(const double *sxx, const double *sxy, size_t g, double sxx_all,
		      double sxy_all, double slope, double *lo, double *hi)
{
	double mean = 0, v = 0, half;

	for (size_t k = 0; k < g; k++)
		mean += (sxy_all - sxy[k]) / (sxx_all - sxx[k]);
	mean /= (double)g;
	for (size_t k = 0; k < g; k++) {
		double d = (sxy_all - sxy[k]) / (sxx_all - sxx[k]) - mean;

		v += d * d;
	}
	half = gsl_cdf_tdist_Pinv(0.975, (double)(g - 1)) * sqrt(v * (double)(g - 1) / (double)g);
	*lo = slope - half;
	*hi = slope + half;
}

/*
 * p of the slope's t by the wild cluster bootstrap restricted to a slope
 * of 0 (WCR-C): every cluster's ln rates around its mean are multiplied by
 * one weight, the slope and its CR1 t refitted, and p is the share of
 * those t at least as far from 0 as t0. Clusters whose x hardly moved
 * count for as little in the draws as they do in the fit, so a slope that
 * rests on one or two windows is not called significant just because
 * many windows jittered. Up to 6 clusters every combination of weights is
 * taken (6^6 = 46656); beyond, ADJUST_WILD_DRAWS draws from a fixed seed,
 * so the same windows always give the same p. wxy is scratch of g values.
 */
static int wild_p(const double *sxx, const double *sxy, double *wxy, size_t g,
		  double sxx_all, double t0, double *p)
{
	/* a draw that only scales every cluster alike gives t0 again, up to
	 * rounding: it ties */
	double t_tie = fabs(t0) * (1 - 1e-9);
	size_t hits = 0, draws = 0;
	gsl_rng *rng;

	if (g <= ADJUST_WILD_ENUM_MAX) {
		size_t idx[ADJUST_WILD_ENUM_MAX] = { 0 };

		for (;;) {
			size_t k = 0;
			double t;

			for (size_t j = 0; j < g; j++)
				wxy[j] = webb[idx[j]] * sxy[j];
			t = cr1_t(sxx, wxy, g, sxx_all);
			hits += !(fabs(t) < t_tie); /* a NaN t counts against */
			draws++;
			while (k < g && ++idx[k] == 6)
				idx[k++] = 0;
			if (k == g)
				break;
		}
		*p = (double)hits / (double)draws;
		return 0;
	}
	rng = gsl_rng_alloc(gsl_rng_mt19937);
	if (!rng)
		return -ENOMEM;
	gsl_rng_set(rng, ADJUST_WILD_SEED);
	for (draws = 0; draws < ADJUST_WILD_DRAWS; draws++) {
		for (size_t j = 0; j < g; j++)
			wxy[j] = webb[gsl_rng_uniform_int(rng, 6)] * sxy[j];
		hits += !(fabs(cr1_t(sxx, wxy, g, sxx_all)) < t_tie);
	}
	gsl_rng_free(rng);
	*p = (double)(hits + 1) / (double)(draws + 1);
	return 0;
}

/*
 * The fit of stats_adjust_windows over one or two sides (nb may be 0, yb,
 * wb and yb_out then unused); out is cleared and the outputs are copies
 * until the slope is applied.
 */
static int windows_fit(const double *ya, const struct stats_window *wa, size_t na,
		       const double *yb, const struct stats_window *wb, size_t nb,
		       double *ya_out, double *yb_out, struct stats_adjust *out)
{
	size_t n = na + nb, g = 0, ticks = 0, stepped_n = 0;
	double *mx, *my, *gxx, *gxy, *scratch, sxx = 0, sxy = 0, syy = 0, lx_sum = 0, t0;
	int ret = 0;

	unadjusted(ya, na, yb, nb, ya_out, yb_out, out);
	mx = malloc(5 * n * sizeof(*mx));
	if (!mx)
		return -ENOMEM;
	my = mx + n;
	gxx = my + n; /* per cluster: the windows in which x moved */
	gxy = gxx + n;
	scratch = gxy + n;
	for (size_t i = 0; i < n; i++) {
		const struct stats_window *w = i < na ? &wa[i] : &wb[i - na];
		double y = i < na ? ya[i] : yb[i - na], wxx = 0, wxy = 0;
		bool stepped;

		if (!isfinite(y) || y <= 0 || !window_means(w, &mx[i], &my[i]))
			goto out;
		if ((ret = window_stepped(w, &stepped)))
			goto out;
		stepped_n += stepped;
		for (size_t t = 0; t < w->n; t++) {
			double dx, dy;

			if (!tick_dev(w, t, mx[i], my[i], &dx, &dy))
				continue;
			wxx += dx * dx;
			wxy += dx * dy;
			syy += dy * dy;
			lx_sum += log(w->x[t]);
			ticks++;
		}
		sxx += wxx;
		sxy += wxy;
		if (wxx > 1e-12) {
			gxx[g] = wxx;
			gxy[g++] = wxy;
		}
	}
	/* every window counted: how many moved, whether or not enough did */
	out->ticks = ticks;
	out->windows = g;
	out->stepped = stepped_n;
	/* the host moved the CPUs within too few windows: no slope to test */
	if (stepped_n < STATS_ADJUST_MIN_WINDOWS || !(sxx > 1e-12))
		goto out;
	out->tested = true;
	out->slope = sxy / sxx;
	out->x_ref = exp(lx_sum / (double)ticks);
	out->r2 = syy > 0 ? out->slope * sxy / syy : 0;
	t0 = cr1_t(gxx, gxy, g, sxx);
	jackknife(gxx, gxy, g, sxx, sxy, out->slope, &out->slope_lo, &out->slope_hi);
	if (isnan(t0)) {
		/* every interval on its window's line: exact */
		out->slope_se = 0;
		out->slope_p = syy > 0 ? 0 : NAN;
	} else {
		out->slope_se = out->slope / t0;
		ret = wild_p(gxx, gxy, scratch, g, sxx, t0, &out->slope_p);
		if (ret)
			goto out;
	}
	out->applied = !isnan(out->slope_p) && out->slope_p < STATS_ADJUST_P;
	if (out->applied) {
		double lx_ref = log(out->x_ref);

		for (size_t i = 0; i < na; i++)
			ya_out[i] = window_moved(ya[i], &wa[i], mx[i], out->slope, lx_ref);
		for (size_t i = 0; i < nb; i++)
			yb_out[i] = window_moved(yb[i], &wb[i], mx[na + i], out->slope, lx_ref);
	}
out:
	free(mx);
	return ret;
}

int stats_adjust_windows(const double *ya, const struct stats_window *wa, size_t na,
			 const double *yb, const struct stats_window *wb, size_t nb,
			 double *ya_out, double *yb_out, struct stats_adjust *out)
{
	if (!ya || !wa || !yb || !wb || !ya_out || !yb_out || !out)
		return -EINVAL;
	if (na < STATS_ADJUST_MIN_N || nb < STATS_ADJUST_MIN_N) {
		unadjusted(ya, na, yb, nb, ya_out, yb_out, out);
		return 0;
	}
	return windows_fit(ya, wa, na, yb, wb, nb, ya_out, yb_out, out);
}

int stats_adjust_windows_one(const double *y, const struct stats_window *w, size_t n,
			     double *y_out, struct stats_adjust *out)
{
	if (!y || !w || !y_out || !out)
		return -EINVAL;
	if (n < STATS_ADJUST_MIN_N) {
		unadjusted(y, n, NULL, 0, y_out, NULL, out);
		return 0;
	}
	return windows_fit(y, w, n, NULL, NULL, 0, y_out, NULL, out);
}

int stats_adjust_windows_cv(const double *y, const struct stats_window *w, size_t n,
			    struct stats_adjust *out, double *cv)
{
	double *adj;
	int ret;

	if (!cv)
		return -EINVAL;
	*cv = NAN;
	adj = malloc((n ? n : 1) * sizeof(*adj));
	if (!adj)
		return -ENOMEM;
	ret = stats_adjust_windows_one(y, w, n, adj, out);
	if (!ret && out->applied && stats_cv_pct(adj, n, cv))
		*cv = NAN;
	free(adj);
	return ret;
}

int stats_adjust_one_cv(const double *y, const struct stats_window *w, const double *x,
			size_t n, struct stats_adjust *win, struct stats_adjust *smp, double *cv)
{
	int ret;

	if (!y || !win || !smp || !cv)
		return -EINVAL;
	*cv = NAN;
	memset(win, 0, sizeof(*win));
	win->slope_p = win->slope_lo = win->slope_hi = NAN;
	*smp = *win;
	if (w && (ret = stats_adjust_windows_cv(y, w, n, win, cv)))
		return ret;
	if (win->tested || !x)
		return 0;
	return stats_adjust_log_cv(y, x, n, smp, cv);
}

int stats_adjust_windows_at(const double *y, const struct stats_window *w, size_t n,
			    double slope, double x_ref, double *out)
{
	if ((n && (!y || !w || !out)) || !isfinite(slope) || !(x_ref > 0))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		double mx, my;

		if (!(y[i] > 0) || !isfinite(y[i]) || !window_means(&w[i], &mx, &my))
			return -EINVAL;
		out[i] = window_moved(y[i], &w[i], mx, slope, log(x_ref));
		if (!isfinite(out[i]) || !(out[i] > 0))
			return -ERANGE;
	}
	return 0;
}
