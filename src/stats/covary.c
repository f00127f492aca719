// SPDX-License-Identifier: GPL-2.0-only
/* Rank correlations of many candidates with one metric, and their q-values. */
#include "stats/covary.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "stats/bh.h"
#include "stats/guard.h"

/* finite and not all equal */
static bool varies(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return false;
	for (size_t i = 1; i < n; i++)
		if (v[i] != v[0])
			return true;
	return false;
}

static int by_p(const void *pa, const void *pb)
{
	const struct stats_covary *a = pa, *b = pb;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	if (fabs(a->tau) != fabs(b->tau))
		return fabs(a->tau) > fabs(b->tau) ? -1 : 1;
	return (a->index > b->index) - (a->index < b->index);
}

int stats_covary(const double *y, const double *const *x, size_t nx, size_t n,
		 struct stats_covary *out, size_t *nout)
{
	double *p = NULL;
	size_t k = 0;
	int ret = 0;

	if (!y || (nx && (!x || !out)) || !nout)
		return -EINVAL;
	*nout = 0;
	if (n < STATS_COVARY_MIN_N || !varies(y, n) || !nx)
		return 0;
	for (size_t i = 0; i < nx; i++) {
		struct stats_trend t;

		if (!x[i] || !varies(x[i], n))
			continue;
		/* y first: ties are allowed in the second array (counters) */
		if ((ret = stats_kendall(y, x[i], n, &t)))
			return ret;
		if (!t.tested || !isfinite(t.p))
			continue;
		out[k++] = (struct stats_covary){ .index = i, .tau = t.tau, .p = t.p };
	}
	p = malloc((k ? k : 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		p[i] = fmin(1, fmax(0, out[i].p));
	ret = stats_bh(p, k, p);
	for (size_t i = 0; !ret && i < k; i++)
		out[i].q = p[i];
	free(p);
	if (ret)
		return ret;
	qsort(out, k, sizeof(*out), by_p);
	*nout = k;
	return 0;
}
