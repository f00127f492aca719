// SPDX-License-Identifier: GPL-2.0-only
/* Sample size of a two-sample rank test from the observed noise. */
#include "stats/power.h"

#include <errno.h>
#include <math.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>

static int ok_prob(double x)
{
	return x > 0 && x < 1;
}

/* smallest n with 2 / C(2n, n) < alpha: where the exact p can go below it */
static size_t min_n_exact(double alpha)
{
	double c = 2; /* C(2n, n) */
	size_t n = 1;

	/* C(2n, n) >= 2^n: a few steps, ~1100 for the smallest double */
	while (2 / c >= alpha) {
		c *= (double)(2 * n + 1) * (double)(2 * n + 2) /
		     ((double)(n + 1) * (double)(n + 1));
		n++;
	}
	return n;
}

int stats_runs_needed_sd(double sd_a, double sd_b, double delta,
			 double alpha, double power, size_t *out)
{
	double z, nt, n;
	size_t floor_n;

	if (!out || !ok_prob(alpha) || !ok_prob(power) || !isfinite(delta) ||
	    !(delta > 0) || !isfinite(sd_a) || !isfinite(sd_b) ||
	    !(sd_a >= 0) || !(sd_b >= 0))
		return -EINVAL;
	z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2) +
	    gsl_cdf_ugaussian_Pinv(power);
	nt = z * z * (sd_a * sd_a + sd_b * sd_b) / (delta * delta);
	n = ceil(nt / (3 / M_PI));
	if (!(n <= STATS_RUNS_MAX))
		return -ERANGE;
	floor_n = min_n_exact(alpha);
	if (floor_n < STATS_RUNS_MIN)
		floor_n = STATS_RUNS_MIN;
	if (floor_n > STATS_RUNS_MAX)
		return -ERANGE;
	*out = n < (double)floor_n ? floor_n : (size_t)n;
	return 0;
}

int stats_runs_needed(double cv_pct_a, double cv_pct_b,
		      double min_change_pct, double alpha, double power,
		      size_t *out)
{
	double ca = cv_pct_a / 100, cb = cv_pct_b / 100;

	if (!isfinite(ca) || !isfinite(cb) || !(ca >= 0) || !(cb >= 0) ||
	    !isfinite(min_change_pct) || !(min_change_pct > -100) ||
	    min_change_pct == 0)
		return -EINVAL;
	return stats_runs_needed_sd(sqrt(log1p(ca * ca)), sqrt(log1p(cb * cb)),
				    fabs(log1p(min_change_pct / 100)), alpha,
				    power, out);
}
