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
	double slope_p;  /* two-sided t test, n - 3 degrees of freedom; NaN untested */
	double r2;       /* share of the within-side variance of ln y that went with ln x */
	double x_ref;    /* geometric mean of x over both sides: where the adjusted values sit */
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
 * x constant within both sides) or -EINVAL (NULL). Any thread.
 */
int stats_adjust_log(const double *ya, const double *xa, size_t na,
		     const double *yb, const double *xb, size_t nb,
		     double *ya_out, double *yb_out, struct stats_adjust *out);

#endif
