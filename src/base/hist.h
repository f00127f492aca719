/* SPDX-License-Identifier: GPL-2.0-only */
/* A log-linear latency histogram: bounded relative error, fixed memory, mergeable. */
#ifndef NR_BASE_HIST_H
#define NR_BASE_HIST_H

#include <jansson.h>
#include <stdint.h>

#include "base/err.h"

/*
 * Values are non-negative integers (nanoseconds for latency). Values below
 * 2^HIST_SUB_BITS have a bucket each; above, every power of two is split
 * into 2^HIST_SUB_BITS/2 equal buckets, so a bucket is at most 1/128 of
 * its lower bound wide and a reported value (the bucket's midpoint, clamped
 * to the observed min and max) is within 0.4% of the true order statistic.
 * Values above HIST_MAX go to the last bucket and are counted in `over`;
 * min and max stay exact up to INT64_MAX (larger values are recorded as
 * INT64_MAX, so that every field fits a JSON integer); sum is a double.
 *
 * Recording is a few instructions, touches one counter and never
 * allocates: one histogram per worker, merged after the join. Merging adds
 * counts, so the merge of two histograms is exactly the histogram of the
 * concatenated data.
 */
#define HIST_SUB_BITS 8
#define HIST_HALF (1u << (HIST_SUB_BITS - 1)) /* 128 */
#define HIST_MAX_BITS 42                      /* 2^42 ns: 73 minutes */
#define HIST_MAX ((1ULL << HIST_MAX_BITS) - 1)
#define HIST_BUCKETS ((HIST_MAX_BITS - HIST_SUB_BITS + 1) * HIST_HALF + HIST_HALF)
#define HIST_SCHEME "loglin-128"

struct base_hist {
	uint64_t n, over;
	uint64_t min, max;
	double sum; /* of values, for the mean */
	uint64_t count[HIST_BUCKETS];
};

void base_hist_init(struct base_hist *h);

/* Bucket index of v (v > HIST_MAX maps to the last bucket). */
static inline uint32_t base_hist_index(uint64_t v)
{
	uint32_t msb, shift;

	if (v > HIST_MAX)
		v = HIST_MAX;
	if (v < 2 * HIST_HALF)
		return (uint32_t)v;
	msb = 63u - (uint32_t)__builtin_clzll(v);
	shift = msb - (HIST_SUB_BITS - 1);
	return shift * HIST_HALF + (uint32_t)(v >> shift);
}

/* Record one value. Single writer; hot-path safe (no allocation, no locks). */
static inline void base_hist_record(struct base_hist *h, uint64_t v)
{
	if (v > (uint64_t)INT64_MAX)
		v = (uint64_t)INT64_MAX;
	if (v > HIST_MAX)
		h->over++;
	h->count[base_hist_index(v)]++;
	if (!h->n || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->n++;
	h->sum += (double)v;
}

/* Lowest value and width of bucket i. */
uint64_t base_hist_bucket_low(uint32_t i);
uint64_t base_hist_bucket_width(uint32_t i);

/* dst += src. */
void base_hist_merge(struct base_hist *dst, const struct base_hist *src);

/* The q-quantile (0 <= q <= 1) by nearest rank: the value of rank
 * ceil(q * n) (rank 1 for q = 0), as its bucket's midpoint clamped to
 * [min, max]. 0 for an empty histogram. */
double base_hist_quantile(const struct base_hist *h, double q);
double base_hist_mean(const struct base_hist *h);

/*
 * Compact JSON: {"scheme": "loglin-128", "n", "min", "max", "sum", "over",
 * "buckets": [index, count, index, count, ...]} with only the non-empty
 * buckets, in index order. from_json checks every field (scheme, bounds,
 * ascending indexes, counts that sum to n without overflow, over <= n,
 * min and max inside the first and last non-empty buckets) and returns 0
 * or -EINVAL.
 */
json_t *base_hist_to_json(const struct base_hist *h);
int base_hist_from_json(const json_t *j, struct base_hist *h,
			struct base_err *err);

#endif
