/* SPDX-License-Identifier: GPL-2.0-only */
/* The smallest rank-test p over every split, for the tests of stats_mwu_min_p(). */
#ifndef NR_TESTS_MWU_SPLITS_H
#define NR_TESTS_MWU_SPLITS_H

#include <errno.h>
#include <math.h>
#include <string.h>

#include "stats/mwu.h"

/* The largest na + nb the enumeration takes: 2^16 splits at most. */
#define MWU_SPLITS_MAX 16

/*
 * The smallest p stats_mann_whitney() gives over every split of the
 * values of a and b into na and nb, na + nb <= MWU_SPLITS_MAX, by
 * enumeration: what stats_mwu_min_p() must equal. Returns 0 and sets *p,
 * or the first error of stats_mann_whitney() (test_mwu.c, fuzz_stats.c).
 */
static inline int mwu_min_p_enumerated(const double *a, size_t na, const double *b, size_t nb,
				       double *p)
{
	size_t n = na + nb;
	double v[MWU_SPLITS_MAX], x[MWU_SPLITS_MAX], y[MWU_SPLITS_MAX], best = 1;
	struct stats_mwu r;
	int ret;

	if (n > MWU_SPLITS_MAX)
		return -EINVAL;
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	for (unsigned int m = 0; m < 1u << n; m++) {
		size_t kx = 0, ky = 0;

		if ((size_t)__builtin_popcount(m) != na)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (m & 1u << i)
				x[kx++] = v[i];
			else
				y[ky++] = v[i];
		}
		if ((ret = stats_mann_whitney(x, na, y, nb, &r)))
			return ret;
		best = fmin(best, r.p);
	}
	*p = best;
	return 0;
}

#endif
