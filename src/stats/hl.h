/* SPDX-License-Identifier: GPL-2.0-only */
/* Hodges-Lehmann shift between two samples and its rank-based interval. */
#ifndef NR_STATS_HL_H
#define NR_STATS_HL_H

#include <stdbool.h>
#include <stddef.h>

struct stats_hl {
	double shift; /* estimate of the shift b - a, unit of the input */
	double lo, hi; /* confidence interval of the shift, lo <= hi */
	/* confidence the interval actually has: >= the one asked for, except
	 * when the samples are too small for it (see below) */
	double conf;
	/* lo is the k-th smallest pairwise difference, hi the k-th largest */
	size_t k;
	bool exact; /* k from the exact U distribution, not the normal one */
};

/*
 * Hodges-Lehmann estimate of the shift b - a: the median of the na * nb
 * differences b_j - a_i, na, nb >= 1, and its distribution-free confidence
 * interval at level conf in (0, 1): [D_(k), D_(na*nb+1-k)] over the sorted
 * differences D (Bauer 1972; Hollander & Wolfe, Nonparametric Statistical
 * Methods, 4.3), the inversion of the Mann-Whitney test.
 *
 * k, with alpha = 1 - conf and U the Mann-Whitney statistic of two
 * continuous samples (no ties: the interval is built from shifted copies of
 * the data, whose cross-sample ties have probability 0):
 * - na, nb <= STATS_MWU_EXACT_MAX_N (as the test, stats_mann_whitney()):
 *   k = the smallest q with P(U <= q) >= alpha / 2, exactly as R's
 *   wilcox.test(conf.int = TRUE, exact = TRUE) does it. The achieved
 *   confidence is 1 - 2 * P(U <= k - 1) >= conf. When even the widest
 *   interval falls short (P(U = 0) >= alpha / 2, e.g. 3 + 3 values at
 *   conf 0.95) k is 1, lo and hi are the extreme differences, and ->conf
 *   says how much less than asked they give.
 * - above: the same rule with the normal approximation of U with
 *   continuity correction, k = floor(na*nb/2 + 0.5 - z * sigma),
 *   sigma^2 = na*nb*(na+nb+1)/12, z the 1 - alpha/2 normal quantile, k >= 1.
 *   (R's normal branch solves for the root of the tie-corrected score
 *   instead, so its bounds can differ slightly from these.)
 *
 * The caller passes log values to get a ratio (see stats_shift_pct()).
 * Holds all na * nb differences in memory (8 bytes each) and sorts them.
 * Returns 0 and fills *out, or -EINVAL (NULL pointer, na or nb is 0, a
 * value not finite, conf not in (0, 1)) or -ENOMEM, leaving *out
 * untouched. Only reads a and b and keeps no pointer; temporary memory is
 * freed before it returns. No global state: any thread, not in a measured
 * loop.
 */
int stats_hodges_lehmann(const double *a, size_t na, const double *b,
			 size_t nb, double conf, struct stats_hl *out);

/*
 * The relative change of b against a, in percent: stats_hodges_lehmann()
 * on the natural logs of the raw values a and b (all must be > 0, else
 * -EDOM), with shift, lo and hi converted by 100 * (exp(d) - 1). So
 * ->shift is the median ratio b/a minus one, in percent (-50 means b is
 * half of a), ->lo and ->hi its interval; k, conf and exact as above.
 * Returns as stats_hodges_lehmann(), plus -EDOM. Any thread.
 */
int stats_shift_pct(const double *a, size_t na, const double *b, size_t nb,
		    double conf, struct stats_hl *out);

#endif
