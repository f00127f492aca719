/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the files of stats/ only; not part of its public API. */
#ifndef NR_STATS_INTERNAL_H
#define NR_STATS_INTERNAL_H

#include <stddef.h>

/* 0 when x[0..n) are all finite (x may be NULL only if n is 0), else
 * -EINVAL. */
int stats_check_finite(const double *x, size_t n);

/* qsort() comparator for doubles, ascending; inputs are finite. */
int stats_cmp_double(const void *pa, const void *pb);

/* *out = a malloc'ed ascending copy of x[0..n), n >= 1; the caller frees
 * it. Returns 0 or -ENOMEM. */
int stats_sorted_copy(const double *x, size_t n, double **out);

/* Type 7 quantile (R's default) of n >= 1 ascending values, p in [0, 1]. */
double stats_sorted_quantile(const double *s, size_t n, double p);

/* Median of n >= 1 ascending values. */
double stats_sorted_median(const double *s, size_t n);

/*
 * Null distribution of the Mann-Whitney U of a sample of m against one of
 * n, without ties (every arrangement of the m + n distinct values is
 * equally likely): *cdf_out = malloc'ed array of m * n + 1 values,
 * cdf[u] = P(U <= u). The caller frees it. Cost O(m * n * m * n); meant
 * for m, n <= STATS_MWU_EXACT_MAX_N. Returns 0, -EINVAL (m or n is 0, or
 * m * n overflows) or -ENOMEM.
 */
int stats_u_null_cdf(size_t m, size_t n, double **cdf_out);

#endif
