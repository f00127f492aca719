/* SPDX-License-Identifier: GPL-2.0-only */
/* Benjamini-Hochberg false discovery rate adjustment of many p-values. */
#ifndef NR_STATS_BH_H
#define NR_STATS_BH_H

#include <stddef.h>

/*
 * Benjamini-Hochberg q-values of the n p-values p[0..n), each in [0, 1],
 * as R's p.adjust(p, method = "BH"): with p sorted ascending at ranks
 * i = 1..n, q_(i) = min over j >= i of min(1, n * p_(j) / j), written to
 * q[i] in the order of p. q >= p, q is monotone in p and at most 1.
 * Declaring every comparison with q < alpha keeps the expected share of
 * false ones among them at most alpha (for independent or positively
 * dependent tests). q may be p (in place). n = 0 does nothing.
 *
 * Returns 0, or -EINVAL (NULL pointer with n > 0, a p-value NaN or out of
 * [0, 1]; q is then untouched) or -ENOMEM. The caller owns p and q (n
 * doubles each), nothing is kept; a temporary index array is freed before
 * it returns. No global state: any thread.
 */
int stats_bh(const double *p, size_t n, double *q);

#endif
