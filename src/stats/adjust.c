// SPDX-License-Identifier: GPL-2.0-only
/* A headline adjusted for a nuisance the change under test cannot move: ANCOVA on logs. */
#include "stats/adjust.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>

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

int stats_adjust_log(const double *ya, const double *xa, size_t na,
		     const double *yb, const double *xb, size_t nb,
		     double *ya_out, double *yb_out, struct stats_adjust *out)
{
	struct side_sums a, b;
	double sxx, sxy, syy, rss, mean_lx;
	size_t df;

	if (!ya || !xa || !yb || !xb || !ya_out || !yb_out || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->slope_p = NAN;
	memmove(ya_out, ya, na * sizeof(*ya));
	memmove(yb_out, yb, nb * sizeof(*yb));
	if (na < STATS_ADJUST_MIN_N || nb < STATS_ADJUST_MIN_N ||
	    !side(ya, xa, na, &a) || !side(yb, xb, nb, &b))
		return 0;
	sxx = a.sxx + b.sxx;
	sxy = a.sxy + b.sxy;
	syy = a.syy + b.syy;
	/* x did not move within either side: the slope is not estimable */
	if (!(sxx > 1e-12))
		return 0;
	mean_lx = (a.sum_lx + b.sum_lx) / (double)(na + nb);
	out->tested = true;
	out->x_ref = exp(mean_lx);
	out->slope = sxy / sxx;
	out->r2 = syy > 0 ? out->slope * sxy / syy : 0;
	df = na + nb - 3;
	rss = syy - out->slope * sxy;
	if (!(rss > 0)) {
		/* every value on its side's line: exact, nothing left to test */
		out->slope_se = 0;
		out->slope_p = syy > 0 ? 0 : NAN;
	} else {
		out->slope_se = sqrt(rss / (double)df / sxx);
		out->slope_p = 2 * gsl_cdf_tdist_Q(fabs(out->slope) / out->slope_se, (double)df);
	}
	out->applied = !isnan(out->slope_p) && out->slope_p < STATS_ADJUST_P;
	if (!out->applied)
		return 0;
	move(ya, xa, na, out->slope, mean_lx, ya_out);
	move(yb, xb, nb, out->slope, mean_lx, yb_out);
	return 0;
}
