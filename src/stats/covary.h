/* SPDX-License-Identifier: GPL-2.0-only */
/* What went with a metric from sample to sample: rank correlations and their false discovery rate. */
#ifndef NR_STATS_COVARY_H
#define NR_STATS_COVARY_H

#include <stddef.h>

/* Fewer samples than this: nothing is tested. */
#define STATS_COVARY_MIN_N 5

struct stats_covary {
	size_t index; /* of the candidate, in x[] */
	double tau;   /* Kendall's tau of the candidate with y, in [-1, 1] */
	double p;     /* its two-sided p-value (tie-corrected normal) */
	double q;     /* Benjamini-Hochberg over every candidate tested */
};

/*
 * Kendall's rank correlation of each candidate x[k][0..n) with y[0..n)
 * (the samples in any order, the same in every array). A candidate is
 * tested when all its n values are finite and not all equal; with
 * n < STATS_COVARY_MIN_N, a y that is not finite or all equal, nothing is.
 * out[] (room for nx entries) gets the tested candidates, ascending p and
 * then descending |tau|; *nout their count. Returns 0, -EINVAL (NULL
 * arrays) or -ENOMEM. Only reads its inputs. Any thread.
 */
int stats_covary(const double *y, const double *const *x, size_t nx, size_t n,
		 struct stats_covary *out, size_t *nout);

#endif
