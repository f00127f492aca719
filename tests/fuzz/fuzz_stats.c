// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the rank test and the comparison of two labels' values. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "stats/mwu.h"
#include "stats/verdict.h"
#include "../unit/mwu_splits.h"

/*
 * The values compare gets come from stored samples, and a store takes
 * whatever `import` accepted: any finite double, ties of every shape. The
 * input is two sizes (1 to 64 a side) and then the values, each one byte:
 * below 0xf0 a small integer (byte % 8: ties, zeros, counters), else the
 * next 8 bytes as a double (huge, tiny, negative, subnormal, -0; not
 * finite: refused). Promised (stats/mwu.h, stats/verdict.h):
 *
 * - a non-finite value is refused with -EINVAL, anything else gives 0;
 * - p is in [0, 1] and the same with the sides swapped;
 * - stats_mwu_min_p() is in (0, 1], the same with the sides swapped and
 *   at most p, and up to 12 values the smallest p of every split;
 * - the shift lies in its interval, a REGRESSION or IMPROVEMENT has
 *   p < alpha, and a verdict exists for every pair of sizes.
 */

#define MAX_SIDE 64

static bool read_value(const uint8_t **d, const uint8_t *end, double *v)
{
	uint8_t tag;

	if (*d >= end)
		return false;
	tag = *(*d)++;
	if (tag < 0xf0) {
		*v = (double)(tag % 8);
		return true;
	}
	if (end - *d < 8)
		return false;
	memcpy(v, *d, sizeof(*v));
	*d += 8;
	return true;
}

static bool all_finite(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return false;
	return true;
}

static bool close_to(double x, double y)
{
	return fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)) + 1e-300;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *d = data, *end = data + size;
	double a[MAX_SIDE], b[MAX_SIDE], floor, floor2;
	struct stats_mwu ab, ba;
	struct stats_compare c;
	size_t na, nb, i;
	bool finite;
	int ret;

	if (size < 2)
		return 0;
	na = 1 + d[0] % MAX_SIDE;
	nb = 1 + d[1] % MAX_SIDE;
	d += 2;
	for (i = 0; i < na + nb; i++)
		if (!read_value(&d, end, i < na ? &a[i] : &b[i - na]))
			return 0;
	finite = all_finite(a, na) && all_finite(b, nb);

	ret = stats_mann_whitney(a, na, b, nb, &ab);
	FUZZ_CHECK(ret == (finite ? 0 : -EINVAL) || ret == -ENOMEM);
	ret = stats_mwu_min_p(a, na, b, nb, &floor);
	FUZZ_CHECK(ret == (finite ? 0 : -EINVAL) || ret == -ENOMEM);
	ret = stats_compare_samples(a, na, b, nb, STATS_HIGHER, NULL, &c);
	FUZZ_CHECK(ret == (finite ? 0 : -EINVAL) || ret == -ENOMEM);
	if (!finite || ret)
		return 0;

	FUZZ_CHECK(ab.p >= 0 && ab.p <= 1);
	FUZZ_CHECK(stats_mann_whitney(b, nb, a, na, &ba) == 0);
	FUZZ_CHECK(close_to(ab.p, ba.p));
	FUZZ_CHECK(floor > 0 && floor <= 1);
	FUZZ_CHECK(floor <= ab.p * (1 + 1e-9));
	FUZZ_CHECK(stats_mwu_min_p(b, nb, a, na, &floor2) == 0);
	FUZZ_CHECK(close_to(floor, floor2));
	if (na + nb <= 12) {
		FUZZ_CHECK(mwu_min_p_enumerated(a, na, b, nb, &floor2) == 0);
		FUZZ_CHECK(close_to(floor, floor2));
	}

	if (c.verdict == STATS_REGRESSION || c.verdict == STATS_IMPROVEMENT)
		FUZZ_CHECK(c.p < 0.05);
	if (!isnan(c.shift_pct) && !isnan(c.shift_lo_pct) && !isnan(c.shift_hi_pct))
		FUZZ_CHECK(c.shift_lo_pct <= c.shift_pct && c.shift_pct <= c.shift_hi_pct);
	FUZZ_CHECK(c.verdict == STATS_TOO_FEW || (na >= 4 && nb >= 4));
	return 0;
}
