// SPDX-License-Identifier: GPL-2.0-only
/* Hodges-Lehmann shift estimate and interval from pairwise differences. */
#include "stats/hl.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/internal.h"
#include "stats/mwu.h"

/* k (1-based) and the confidence it achieves, see hl.h */
static int pick_k(size_t na, size_t nb, double conf, size_t *k_out,
		  double *conf_out, bool *exact_out)
{
	double alpha = 1 - conf, mn = (double)na * (double)nb;
	double *cdf = NULL, sigma, z, kd;
	size_t q, kmax = (na * nb + 1) / 2;
	int ret;

	if (na <= STATS_MWU_EXACT_MAX_N && nb <= STATS_MWU_EXACT_MAX_N) {
		ret = stats_u_null_cdf(na, nb, &cdf);
		if (ret)
			return ret;
		/* R's qwilcox(): the same small allowance for rounding */
		for (q = 0; cdf[q] < alpha / 2 - 10 * DBL_EPSILON; q++)
			;
		if (q == 0)
			q = 1;
		*k_out = q;
		*conf_out = 1 - 2 * cdf[q - 1];
		*exact_out = true;
		free(cdf);
		return 0;
	}
	sigma = sqrt(mn * (double)(na + nb + 1) / 12);
	z = gsl_cdf_ugaussian_Pinv(1 - alpha / 2);
	kd = floor(mn / 2 + 0.5 - z * sigma);
	q = kd < 1 ? 1 : (size_t)kd;
	if (q > kmax)
		q = kmax;
	*k_out = q;
	*conf_out = 1 - 2 * gsl_cdf_ugaussian_P(((double)q - 0.5 - mn / 2) /
						sigma);
	*exact_out = false;
	return 0;
}

int stats_hodges_lehmann(const double *a, size_t na, const double *b,
			 size_t nb, double conf, struct stats_hl *out)
{
	struct stats_hl res = { 0 };
	double *d = NULL;
	size_t i, j, m;
	int ret;

	if (!a || !b || !out || !na || !nb || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (stats_check_finite(a, na) || stats_check_finite(b, nb))
		return -EINVAL;
	if (na > SIZE_MAX / nb || na * nb > SIZE_MAX / sizeof(*d))
		return -ENOMEM;
	m = na * nb;
	d = malloc(m * sizeof(*d));
	if (!d)
		return -ENOMEM;
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[i * nb + j] = b[j] - a[i];
	qsort(d, m, sizeof(*d), stats_cmp_double);
	ret = pick_k(na, nb, conf, &res.k, &res.conf, &res.exact);
	if (ret)
		goto out;
	res.shift = stats_sorted_median(d, m);
	res.lo = d[res.k - 1];
	res.hi = d[m - res.k];
	*out = res;
out:
	free(d);
	return ret;
}

int stats_shift_pct(const double *a, size_t na, const double *b, size_t nb,
		    double conf, struct stats_hl *out)
{
	double *la = NULL, *lb = NULL;
	struct stats_hl res;
	size_t i;
	int ret;

	if (!a || !b || !out || !na || !nb)
		return -EINVAL;
	if (stats_check_finite(a, na) || stats_check_finite(b, nb))
		return -EINVAL;
	for (i = 0; i < na; i++)
		if (a[i] <= 0)
			return -EDOM;
	for (i = 0; i < nb; i++)
		if (b[i] <= 0)
			return -EDOM;
	ret = -ENOMEM;
	la = malloc(na * sizeof(*la));
	lb = malloc(nb * sizeof(*lb));
	if (!la || !lb)
		goto out;
	for (i = 0; i < na; i++)
		la[i] = log(a[i]);
	for (i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	ret = stats_hodges_lehmann(la, na, lb, nb, conf, &res);
	if (ret)
		goto out;
	res.shift = 100 * expm1(res.shift);
	res.lo = 100 * expm1(res.lo);
	res.hi = 100 * expm1(res.hi);
	*out = res;
out:
	free(la);
	free(lb);
	return ret;
}
