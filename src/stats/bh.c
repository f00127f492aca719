// SPDX-License-Identifier: GPL-2.0-only
/* Benjamini-Hochberg adjusted p-values (q-values); see bh.h. */
#include "stats/bh.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct ranked {
	double p;
	size_t i;
};

static int cmp_ranked(const void *pa, const void *pb)
{
	const struct ranked *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	/* stable, as R's order(): equal p-values end up with equal q anyway */
	return (a->i > b->i) - (a->i < b->i);
}

int stats_bh(const double *p, size_t n, double *q)
{
	struct ranked *r;
	double run = 1, v;
	size_t i;

	if (!n)
		return 0;
	if (!p || !q)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return -EINVAL;
	if (n > SIZE_MAX / sizeof(*r))
		return -ENOMEM;
	r = malloc(n * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		r[i] = (struct ranked){ p[i], i };
	qsort(r, n, sizeof(*r), cmp_ranked);
	/* running minimum from the largest p down; run starts at the cap */
	for (i = n; i-- > 0;) {
		v = (double)n / (double)(i + 1) * r[i].p;
		if (v < run)
			run = v;
		q[r[i].i] = run;
	}
	free(r);
	return 0;
}
