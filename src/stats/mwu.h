/* SPDX-License-Identifier: GPL-2.0-only */
/* Mann-Whitney U rank test of two independent samples, two-sided. */
#ifndef NR_STATS_MWU_H
#define NR_STATS_MWU_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The p-value is exact when both samples have at most this many values
 * (R's wilcox.test cut-off, n < 50 per side), ties or not, and from the
 * normal approximation above. The exact distribution with ties costs
 * O(N * k * k * N) additions at most, N = na + nb, k = min(na, nb), and
 * adds only what can reach k items, which keeps it near the untied
 * distribution's cost (docs/compare.md gives the time measured).
 */
#define STATS_MWU_EXACT_MAX_N 49

struct stats_mwu {
	/* U of a: pairs (a_i, b_j) with a_i > b_j, each tie counting 1/2;
	 * equals the rank sum of a minus na * (na + 1) / 2, in [0, na * nb] */
	double u;
	double p; /* two-sided p-value, in [0, 1] */
	/*
	 * Normal score of U: (U - na*nb/2 - c) / sigma with the tie-corrected
	 * sigma and the continuity correction c = 0.5 * sign(U - na*nb/2);
	 * > 0 when a tends to be larger, 0 when sigma is 0 (all values tied).
	 * Filled in both modes; p comes from it only when exact is false.
	 */
	double z;
	bool exact; /* p is from the exact permutation distribution */
};

/*
 * Two-sided Mann-Whitney U test (Wilcoxon rank-sum) of a[0..na) against
 * b[0..nb), na, nb >= 1. Values are in any unit (only their order counts,
 * so logs or raw values give the same result) and must be finite.
 *
 * Ties get midranks. Exact mode (na, nb <= STATS_MWU_EXACT_MAX_N): the
 * permutation distribution of the rank sum of a over the observed
 * midranks, i.e. over every split of the pooled values into groups of na
 * and nb, enumerated by a subset-sum count over doubled midranks (which
 * are integers). Without ties this is the classic Mann-Whitney
 * distribution and p equals R's wilcox.test(exact = TRUE) and SciPy's
 * mannwhitneyu(method = "exact"). p = min(1, 2 * min(P(U <= u), P(U >= u))).
 * Normal mode: p = 2 * (1 - Phi(|z|)), capped at 1, as R's wilcox.test
 * (exact = FALSE, correct = TRUE) and SciPy's method = "asymptotic".
 *
 * Returns 0 and fills *out, or -EINVAL (NULL pointer, na or nb is 0, a
 * value is not finite) or -ENOMEM, leaving *out untouched. Only reads a
 * and b and keeps no pointer; allocates temporary memory, freed before it
 * returns. No global state: any thread, not in a measured loop.
 */
int stats_mann_whitney(const double *a, size_t na, const double *b,
		       size_t nb, struct stats_mwu *out);

/*
 * The smallest p stats_mann_whitney() can return for any split of the
 * pooled values of a and b into na and nb (which value came from which
 * side does not matter): the p of the most extreme split, where one side
 * holds the na smallest or the na largest. Without ties, 2 / C(na + nb,
 * na) in exact mode (0.1 at 3 + 3, 0.029 at 4 + 4); ties raise it (1 when
 * every value is the same; 1 for a counter that read 0 in 11 of 6 + 6
 * samples). A test whose floor is not below alpha cannot reject whatever
 * the labels (Tarone, 1990), and as the floor is a function of the pooled
 * values alone, which the labels do not order, leaving such tests out of
 * a Benjamini-Hochberg family keeps its false discovery rate.
 *
 * Exact mode: p = 2 * C(t, r) / C(n, na), the one tie group of t values
 * that straddles the edge of the extreme split and the r of it the split
 * needs, the smaller of the two ends; normal mode: stats_mann_whitney()
 * on the extreme splits. Returns 0 and sets *p, or -EINVAL, -ENOMEM as
 * stats_mann_whitney() does; *p untouched on error.
 */
int stats_mwu_min_p(const double *a, size_t na, const double *b, size_t nb,
		    double *p);

#endif
