// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/: every reference number comes from SciPy/NumPy. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/time.h"
#include "report/report.h"
#include "stats/bh.h"
#include "stats/covary.h"
#include "stats/desc.h"
#include "stats/adjust.h"
#include "stats/guard.h"
#include "stats/hl.h"
#include "stats/levels.h"
#include "stats/mwu.h"
#include "stats/power.h"
#include "stats/table.h"
#include "stats/verdict.h"
#include "mwu_splits.h"

/*
 * References were computed with Debian's python3-scipy 1.10.1 and numpy
 * 1.24.2 (/usr/bin/python3; `from scipy import stats`, `import numpy as
 * np`, `import math`, `import itertools`). Helpers used in the comments,
 * written independently of the C code:
 *
 * def brute_tied(a, b):  # exact two-sided p over all splits of midranks
 *     pooled = list(a) + list(b); r = stats.rankdata(pooled); na = len(a)
 *     w = sum(r[:na]); le = ge = tot = 0
 *     for c in itertools.combinations(range(len(pooled)), na):
 *         s = sum(r[i] for i in c); tot += 1
 *         le += s <= w + 1e-9; ge += s >= w - 1e-9
 *     return w - na * (na + 1) / 2, min(1.0, 2 * min(le, ge) / tot)
 *
 * def dp_tied(a, b):  # the same by convolution over tie groups, big ints
 *     pooled = list(a) + list(b); na = len(a)
 *     r2 = (2 * stats.rankdata(pooled)).astype(int); w = int(sum(r2[:na]))
 *     dist = {(0, 0): 1}
 *     for rv, t in collections.Counter(r2.tolist()).items():
 *         nd = collections.defaultdict(int)
 *         for (k, s), c in dist.items():
 *             for j in range(0, min(t, na - k) + 1):
 *                 nd[(k + j, s + j * rv)] += c * math.comb(t, j)
 *         dist = nd
 *     fin = {s: c for (k, s), c in dist.items() if k == na}
 *     tot = sum(fin.values())
 *     le = sum(c for s, c in fin.items() if s <= w)
 *     ge = sum(c for s, c in fin.items() if s >= w)
 *     return w / 2 - na * (na + 1) / 2, min(1.0, 2 * min(le, ge) / tot)
 *
 * def hl_ci_exact(a, b, conf):  # R's wilcox.test(conf.int=TRUE) rule
 *     m, n = len(a), len(b); cnt = [0] * (m * n + 1)
 *     for c in itertools.combinations(range(1, m + n + 1), m):
 *         cnt[sum(c) - m * (m + 1) // 2] += 1
 *     cdf = np.cumsum(cnt) / sum(cnt); alpha = 1 - conf
 *     q = next(i for i in range(len(cdf))
 *              if cdf[i] >= alpha / 2 - 10 * 2.220446049250313e-16)
 *     q = max(q, 1); d = np.sort(np.subtract.outer(b, a).ravel())
 *     return np.median(d), d[q - 1], d[m * n - q], q, 1 - 2 * cdf[q - 1]
 *
 * def bh(p):  # R's p.adjust(p, "BH")
 *     p = np.asarray(p, float); n = len(p)
 *     o = np.argsort(-p, kind='stable'); i = np.arange(n, 0, -1)
 *     q = np.minimum(1, np.minimum.accumulate(n / i * p[o]))
 *     out = np.empty(n); out[o] = q; return out
 *
 * def runs(cva, cvb, chg, alpha=0.05, power=0.8):
 *     sa = math.sqrt(math.log1p((cva / 100)**2))
 *     sb = math.sqrt(math.log1p((cvb / 100)**2))
 *     d = abs(math.log1p(chg / 100))
 *     nt = (stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))**2 \
 *          * (sa * sa + sb * sb) / d**2
 *     return max(4, math.ceil(nt / (3 / math.pi)))
 *
 * def mk(x):  # Mann-Kendall: S, var(S), tau, z, p
 *     n = len(x)
 *     s = sum(np.sign(x[j] - x[i]) for i in range(n)
 *             for j in range(i + 1, n))
 *     _, t = np.unique(x, return_counts=True)
 *     var = (n * (n - 1) * (2 * n + 5) - sum(t * (t - 1) * (2 * t + 5))) / 18
 *     z = (s - np.sign(s)) / math.sqrt(var) if var > 0 else 0
 *     return s, var, s / (n * (n - 1) / 2), z, 2 * stats.norm.sf(abs(z))
 *
 * def hlpct(a, b):
 *     ld = np.subtract.outer(np.log(b), np.log(a)).ravel()
 *     return 100 * np.expm1(np.median(ld))
 */

#define N(x) (sizeof(x) / sizeof((x)[0]))

#define assert_close(x, ref, rtol) \
	assert_close_at((x), (ref), (rtol), #x, __FILE__, __LINE__)

static void assert_close_at(double x, double ref, double rtol,
			    const char *what, const char *file, int line)
{
	if (x == ref || fabs(x - ref) <= rtol * fabs(ref))
		return;
	fail_msg("%s:%d: %s = %.17g, expected %.17g (rtol %g)", file, line,
		 what, x, ref, rtol);
}

/*
 * Deterministic data shared with the Python references: integer
 * arithmetic, then one exact division, so both sides get the same doubles.
 * fill(x, n, mul, add, mod, div, off): x[i] = ((i*mul + add) % mod) / div + off
 */
static void fill(double *x, size_t n, unsigned mul, unsigned add,
		 unsigned mod, double div, double off)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = (double)((i * mul + add) % mod) / div + off;
}

/* ---- desc ---- */

static const double desc_x[] = { 10.2, 9.8, 10.5, 11.1, 9.9, 10.0, 12.3 };

static void test_desc_matches_numpy(void **state)
{
	double v;

	(void)state;
	/* np.mean(x) with x = desc_x */
	assert_int_equal(stats_mean(desc_x, N(desc_x), &v), 0);
	assert_close(v, 10.542857142857143, 1e-15);
	/* np.median(x) */
	assert_int_equal(stats_median(desc_x, N(desc_x), &v), 0);
	assert_close(v, 10.2, 0);
	/* np.std(x, ddof=1) */
	assert_int_equal(stats_sd(desc_x, N(desc_x), &v), 0);
	assert_close(v, 0.892295061171178, 1e-14);
	/* 100*np.std(x, ddof=1)/abs(np.mean(x)) */
	assert_int_equal(stats_cv_pct(desc_x, N(desc_x), &v), 0);
	assert_close(v, 8.463503290241524, 1e-14);
	/* stats.median_abs_deviation(x) (scale=1.0: unscaled) */
	assert_int_equal(stats_mad(desc_x, N(desc_x), &v), 0);
	assert_close(v, 0.3000000000000007, 1e-14);
}

static void test_desc_quantile_is_type_7(void **state)
{
	static const double y[] = { 4.0, 1.0, 3.0, 2.0, 8.0, 5.0 };
	double v;

	(void)state;
	/* np.quantile(x, p, method='linear'), numpy's name for R's type 7 */
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.0, &v), 0);
	assert_close(v, 9.8, 0);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.1, &v), 0);
	assert_close(v, 9.860000000000001, 1e-14);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.25, &v), 0);
	assert_close(v, 9.95, 1e-15);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 0.9, &v), 0);
	assert_close(v, 11.58, 1e-14);
	assert_int_equal(stats_quantile(desc_x, N(desc_x), 1.0, &v), 0);
	assert_close(v, 12.3, 0);
	/* np.quantile(y, 0.33) */
	assert_int_equal(stats_quantile(y, N(y), 0.33, &v), 0);
	assert_close(v, 2.6500000000000004, 1e-14);
	/* np.median(y): even n */
	assert_int_equal(stats_median(y, N(y), &v), 0);
	assert_close(v, 3.5, 0);
	/* stats.median_abs_deviation(y) */
	assert_int_equal(stats_mad(y, N(y), &v), 0);
	assert_close(v, 1.5, 0);
}

static void test_desc_does_not_modify_input(void **state)
{
	double x[N(desc_x)], v;

	(void)state;
	memcpy(x, desc_x, sizeof(x));
	assert_int_equal(stats_median(x, N(x), &v), 0);
	assert_int_equal(stats_quantile(x, N(x), 0.3, &v), 0);
	assert_int_equal(stats_mad(x, N(x), &v), 0);
	assert_int_equal(stats_sd(x, N(x), &v), 0);
	assert_memory_equal(x, desc_x, sizeof(x));
}

static void test_desc_single_value_and_rejects_bad_input(void **state)
{
	static const double one[] = { 42.0 };
	static const double zero_mean[] = { -1.0, 1.0 };
	double bad[] = { 1.0, NAN, 2.0 };
	double v = -7;

	(void)state;
	assert_int_equal(stats_median(one, 1, &v), 0);
	assert_close(v, 42.0, 0);
	assert_int_equal(stats_quantile(one, 1, 0.9, &v), 0);
	assert_close(v, 42.0, 0);
	assert_int_equal(stats_mad(one, 1, &v), 0);
	assert_close(v, 0.0, 0);

	v = -7;
	assert_int_equal(stats_sd(one, 1, &v), -EINVAL);
	assert_int_equal(stats_cv_pct(one, 1, &v), -EINVAL);
	assert_int_equal(stats_mean(one, 0, &v), -EINVAL);
	assert_int_equal(stats_median(NULL, 3, &v), -EINVAL);
	assert_int_equal(stats_mean(one, 1, NULL), -EINVAL);
	assert_int_equal(stats_quantile(one, 1, 1.5, &v), -EINVAL);
	assert_int_equal(stats_quantile(one, 1, NAN, &v), -EINVAL);
	assert_int_equal(stats_median(bad, N(bad), &v), -EINVAL);
	bad[1] = INFINITY;
	assert_int_equal(stats_mean(bad, N(bad), &v), -EINVAL);
	assert_int_equal(stats_cv_pct(zero_mean, 2, &v), -EDOM);
	assert_close(v, -7, 0); /* failures leave *out alone */
}

/* ---- Mann-Whitney ---- */

struct mwu_case {
	double a[12], b[12];
	size_t na, nb;
	double u, p;
};

static void check_mwu(const struct mwu_case *c, size_t n, bool exact)
{
	struct stats_mwu r;
	size_t i;

	for (i = 0; i < n; i++) {
		assert_int_equal(stats_mann_whitney(c[i].a, c[i].na, c[i].b,
						    c[i].nb, &r),
				 0);
		assert_close(r.u, c[i].u, 0);
		assert_close(r.p, c[i].p, 1e-12);
		assert_true(r.exact == exact);
	}
}

static void test_mwu_exact_p_without_ties_matches_scipy(void **state)
{
	/* stats.mannwhitneyu(a, b, method='exact'): .statistic, .pvalue */
	static const struct mwu_case c[] = {
		{ { 1.1, 2.3, 3.5 }, { 0.4, 4.2, 5.0, 6.1 }, 3, 4, 3.0, 0.4 },
		{ { 10.1, 10.4, 9.8, 10.0, 10.3 },
		  { 9.1, 9.5, 9.7, 9.3, 9.6 }, 5, 5, 25.0,
		  0.007936507936507936 },
		{ { 3.1, 4.7, 2.2, 5.9, 6.4, 1.8 },
		  { 7.2, 8.8, 4.1, 9.5, 6.6, 10.3, 7.7, 5.1 }, 6, 8, 5.0,
		  0.012654012654012654 },
		/* R's ?wilcox.test depression data: W = 35, p = 0.2544 */
		{ { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73,
		    1.46 },
		  { 1.15, 0.88, 0.90, 0.74, 1.21 }, 10, 5, 35.0,
		  0.2544122544122544 },
	};

	(void)state;
	check_mwu(c, N(c), true);
}

static void test_mwu_exact_p_with_ties_matches_bruteforce(void **state)
{
	/* brute_tied(a, b) (helper at the top): (U, p) */
	static const struct mwu_case c[] = {
		{ { 1, 2, 2, 3, 5 }, { 2, 3, 3, 4, 6, 6 }, 5, 6, 7.0,
		  0.17316017316017315 },
		{ { 0, 0, 0, 1, 0 }, { 0, 1, 1, 2, 1 }, 5, 5, 4.5,
		  0.16666666666666666 },
		/* na > nb: the enumeration runs over the smaller side */
		{ { 7, 7, 8, 9, 9, 9, 10 }, { 6, 7, 7, 8 }, 7, 4, 23.5,
		  0.10303030303030303 },
		{ { 3, 3, 3, 3 }, { 3, 3, 3, 4 }, 4, 4, 6.0, 1.0 },
		{ { 1.5, 2.5, 2.5, 4.0, 4.0, 4.0 },
		  { 4.0, 5.5, 5.5, 6.0, 2.5, 7.0, 7.0 }, 6, 7, 5.5,
		  0.030303030303030304 },
	};

	(void)state;
	check_mwu(c, N(c), true);
}

static void test_mwu_exact_with_ties_at_larger_n_matches_python_dp(void **state)
{
	double a[49], b[49];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*7)%5 for i in range(15)]; b = [(j*5+2)%7 for j in range(18)]
	 * dp_tied(a, b) -> (100.5, 0.21685898253219432) */
	fill(a, 15, 7, 0, 5, 1, 0);
	fill(b, 18, 5, 2, 7, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 15, b, 18, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 100.5, 0);
	assert_close(r.p, 0.21685898253219432, 1e-12);

	/* a = [(i*11+3)%9 for i in range(49)]; b = [(j*13+1)%10 for j in
	 * range(40)]; dp_tied(a, b) -> (878.0, 0.398408044860534): the
	 * largest exact case, 89 values in 10 tie groups */
	fill(a, 49, 11, 3, 9, 1, 0);
	fill(b, 40, 13, 1, 10, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 49, b, 40, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 878.0, 0);
	assert_close(r.p, 0.398408044860534, 1e-12);

	/* a = [(i*11+3)%9 for i in range(12)]; b = [(j*13+1)%10 for j in
	 * range(45)]; dp_tied(a, b) -> (266.5, 0.9616499792346138) */
	fill(a, 12, 11, 3, 9, 1, 0);
	fill(b, 45, 13, 1, 10, 1, 0);
	assert_int_equal(stats_mann_whitney(a, 12, b, 45, &r), 0);
	assert_close(r.u, 266.5, 0);
	assert_close(r.p, 0.9616499792346138, 1e-12);
}

static void test_mwu_exact_p_at_49_per_side_matches_scipy(void **state)
{
	double a[49], b[49];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*37)%101+0.25 for i in range(49)];
	 * b = [(j*53)%97+0.75+20 for j in range(49)]  (no ties)
	 * r = stats.mannwhitneyu(a, b, method='exact')
	 * -> statistic 841.0, pvalue 0.010315756261170565 */
	fill(a, 49, 37, 0, 101, 1, 0.25);
	fill(b, 49, 53, 0, 97, 1, 20.75);
	assert_int_equal(stats_mann_whitney(a, 49, b, 49, &r), 0);
	assert_true(r.exact);
	assert_close(r.u, 841.0, 0);
	assert_close(r.p, 0.010315756261170565, 1e-11);
}

static void test_mwu_normal_approx_matches_scipy_asymptotic(void **state)
{
	double a[200], b[200];
	struct stats_mwu r;

	(void)state;
	/* a = [(i*37)%101/10 for i in range(200)];
	 * b = [(j*53)%97/10+1.0 for j in range(200)]  (many ties)
	 * stats.mannwhitneyu(a, b, method='asymptotic', use_continuity=True)
	 * -> statistic 17072.0, pvalue 0.01133358043954331 */
	fill(a, 200, 37, 0, 101, 10, 0);
	fill(b, 200, 53, 0, 97, 10, 1.0);
	assert_int_equal(stats_mann_whitney(a, 200, b, 200, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 17072.0, 0);
	assert_close(r.p, 0.01133358043954331, 1e-9);
	assert_true(r.z < 0); /* a tends to be smaller */

	/* b + 1.5 instead of 1.0: pvalue 4.1855537893634424e-05 */
	fill(b, 200, 53, 0, 97, 10, 1.5);
	assert_int_equal(stats_mann_whitney(a, 200, b, 200, &r), 0);
	assert_close(r.u, 15263.0, 0);
	assert_close(r.p, 4.1855537893634424e-05, 1e-9);

	/* a = [(i*37)%101+0.25 for i in range(50)];
	 * b = [(j*53)%97+0.75+3 for j in range(60)]: 50 > the exact limit
	 * -> statistic 1525.0, pvalue 0.883073962786097 */
	fill(a, 50, 37, 0, 101, 1, 0.25);
	fill(b, 60, 53, 0, 97, 1, 3.75);
	assert_int_equal(stats_mann_whitney(a, 50, b, 60, &r), 0);
	assert_false(r.exact);
	assert_close(r.u, 1525.0, 0);
	assert_close(r.p, 0.883073962786097, 1e-9);
}

static void test_mwu_edge_cases(void **state)
{
	static const double five[] = { 5, 5, 5 };
	static const double x1[] = { 1.0 }, y1[] = { 2.0 };
	struct stats_mwu r;
	double bad[] = { 1.0, NAN };

	(void)state;
	/* every value tied: p = 1, z = 0 (brute_tied([5]*3, [5]*3)) */
	assert_int_equal(stats_mann_whitney(five, 3, five, 3, &r), 0);
	assert_close(r.u, 4.5, 0);
	assert_close(r.p, 1.0, 0);
	assert_close(r.z, 0.0, 0);
	/* one value each: two equally likely orders, p = 1 */
	assert_int_equal(stats_mann_whitney(x1, 1, y1, 1, &r), 0);
	assert_close(r.u, 0.0, 0);
	assert_close(r.p, 1.0, 0);
	assert_true(r.exact);

	assert_int_equal(stats_mann_whitney(x1, 0, y1, 1, &r), -EINVAL);
	assert_int_equal(stats_mann_whitney(x1, 1, NULL, 1, &r), -EINVAL);
	assert_int_equal(stats_mann_whitney(x1, 1, y1, 1, NULL), -EINVAL);
	assert_int_equal(stats_mann_whitney(bad, 2, y1, 1, &r), -EINVAL);
}

/*
 * stats_mwu_min_p(): 2 / C(n, na) without ties, 1 when every value is the
 * same or a counter read 0 in all but one of 6 + 6, and in 300 random
 * tie patterns (1 to 8 a side, values from 0 to 3 or 0 to 9) the smallest
 * p of every split, enumerated. Above the exact limit, the extreme split's
 * normal p, whichever way the values came; never above the data's p.
 */
static void test_mwu_min_p_is_the_smallest_p_of_any_split(void **state)
{
	static const double three_a[] = { 1, 2, 3 }, three_b[] = { 4, 5, 6 };
	static const double four_a[] = { 8, 1, 6, 3 }, four_b[] = { 2, 7, 4, 5 };
	double a[80], b[80], p, q;
	unsigned int seed = 12345;
	struct stats_mwu r;

	(void)state;
	assert_int_equal(stats_mwu_min_p(three_a, 3, three_b, 3, &p), 0);
	assert_close(p, 0.1, 1e-12);
	assert_int_equal(stats_mwu_min_p(four_a, 4, four_b, 4, &p), 0);
	assert_close(p, 2.0 / 70, 1e-12);
	for (size_t i = 0; i < 6; i++)
		a[i] = b[i] = 0;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 1, 0);
	b[5] = 1;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 1, 0);
	/* two of 12 moved: C(10, 4) / C(12, 6) ways to the extreme, p = 0.45 */
	b[4] = 1;
	assert_int_equal(stats_mwu_min_p(a, 6, b, 6, &p), 0);
	assert_close(p, 2.0 * 210 / 924, 1e-12);
	assert_int_equal(mwu_min_p_enumerated(a, 6, b, 6, &q), 0);
	assert_close(p, q, 1e-12);

	for (int k = 0; k < 300; k++) {
		size_t na, nb;
		unsigned int span;

		seed = seed * 1103515245u + 12345u;
		na = 1 + (seed >> 16) % 8;
		seed = seed * 1103515245u + 12345u;
		nb = 1 + (seed >> 16) % 8;
		span = k % 2 ? 4 : 10;
		for (size_t i = 0; i < na + nb; i++) {
			seed = seed * 1103515245u + 12345u;
			(i < na ? a : b)[i < na ? i : i - na] = (double)((seed >> 16) % span);
		}
		assert_int_equal(stats_mwu_min_p(a, na, b, nb, &p), 0);
		assert_int_equal(mwu_min_p_enumerated(a, na, b, nb, &q), 0);
		if (fabs(p - q) > 1e-12)
			fail_msg("case %d (%zu + %zu): %.17g, enumerated %.17g", k, na, nb, p, q);
	}

	/* 60 + 60, 12 tie groups: the split a = the 60 smallest gives the floor,
	 * and interleaving the same values leaves it */
	for (size_t i = 0; i < 60; i++) {
		a[i] = (double)(i / 10);
		b[i] = (double)(6 + i / 10);
	}
	assert_int_equal(stats_mann_whitney(a, 60, b, 60, &r), 0);
	assert_false(r.exact);
	assert_int_equal(stats_mwu_min_p(a, 60, b, 60, &p), 0);
	assert_close(p, r.p, 0);
	for (size_t i = 0; i < 60; i += 2) {
		double t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
	assert_int_equal(stats_mwu_min_p(b, 60, a, 60, &q), 0);
	assert_close(q, p, 0);
	assert_int_equal(stats_mann_whitney(a, 60, b, 60, &r), 0);
	assert_true(q < r.p);

	assert_int_equal(stats_mwu_min_p(a, 0, b, 1, &p), -EINVAL);
	assert_int_equal(stats_mwu_min_p(a, 1, b, 1, NULL), -EINVAL);
	a[0] = NAN;
	assert_int_equal(stats_mwu_min_p(a, 1, b, 1, &p), -EINVAL);
}

/* ---- Hodges-Lehmann ---- */

struct hl_case {
	double a[12], b[12];
	size_t na, nb;
	double conf, shift, lo, hi;
	size_t k;
	double achieved;
};

static void test_hl_exact_ci_matches_bruteforce_construction(void **state)
{
	/* hl_ci_exact(a, b, conf) (helper at the top):
	 * (median, lo, hi, k, achieved confidence) */
	static const struct hl_case c[] = {
		{ { 10.1, 10.4, 9.8, 10.0, 10.3 }, { 9.1, 9.5, 9.7, 9.3, 9.6 },
		  5, 5, 0.95, -0.7000000000000011, -1.0999999999999996,
		  -0.3000000000000007, 3, 0.9682539682539683 },
		{ { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73,
		    1.46 },
		  { 1.15, 0.88, 0.90, 0.74, 1.21 }, 10, 5, 0.95,
		  -0.30500000000000005, -0.7599999999999999,
		  0.15000000000000002, 9, 0.9600399600399601 },
		/* too small for 95%: the whole range, 80% */
		{ { 1.0, 2.0 }, { 1.5, 3.0, 4.0 }, 2, 3, 0.95, 1.5, -0.5, 3.0,
		  1, 0.8 },
		{ { 5.0, 5.0, 6.0, 7.5, 8.0, 8.0, 9.0 },
		  { 6.0, 7.0, 7.0, 9.5, 10.0, 11.0 }, 7, 6, 0.90, 1.75, -1.0,
		  3.5, 9, 0.9265734265734266 },
		{ { 3.1, 4.7, 2.2, 5.9, 6.4, 1.8, 4.4, 5.0 },
		  { 7.2, 8.8, 4.1, 9.5, 6.6, 10.3, 7.7, 5.1 }, 8, 8, 0.99,
		  3.1999999999999997, 0.09999999999999964, 6.4, 8,
		  0.993006993006993 },
	};
	struct stats_hl r;
	size_t i;

	(void)state;
	for (i = 0; i < N(c); i++) {
		assert_int_equal(stats_hodges_lehmann(c[i].a, c[i].na, c[i].b,
						      c[i].nb, c[i].conf, &r),
				 0);
		assert_true(r.exact);
		assert_close(r.shift, c[i].shift, 1e-13);
		assert_close(r.lo, c[i].lo, 1e-13);
		assert_close(r.hi, c[i].hi, 1e-13);
		assert_int_equal(r.k, c[i].k);
		assert_close(r.conf, c[i].achieved, 1e-12);
	}
}

static void test_hl_normal_ci_matches_python_formula(void **state)
{
	double a[50], b[60];
	struct stats_hl r;

	(void)state;
	/* a = np.array([(i*37)%101+0.25 for i in range(50)]);
	 * b = np.array([(j*53)%97+0.75+3 for j in range(60)]); mn = 3000
	 * d = np.sort(np.subtract.outer(b, a).ravel())
	 * k = math.floor(mn/2 + 0.5 - stats.norm.ppf(1-(1-conf)/2)
	 *                * math.sqrt(mn*(50+60+1)/12))
	 * conf 0.95: np.median(d) -0.5, k 1174, d[k-1] -12.5, d[mn-k] 10.5,
	 * achieved 1-2*stats.norm.cdf((k-0.5-mn/2)/sigma) 0.9500018995160686
	 * conf 0.80: k 1287, d[k-1] -8.5, d[mn-k] 6.5, 0.800031382649653 */
	fill(a, 50, 37, 0, 101, 1, 0.25);
	fill(b, 60, 53, 0, 97, 1, 3.75);
	assert_int_equal(stats_hodges_lehmann(a, 50, b, 60, 0.95, &r), 0);
	assert_false(r.exact);
	assert_close(r.shift, -0.5, 0);
	assert_int_equal(r.k, 1174);
	assert_close(r.lo, -12.5, 0);
	assert_close(r.hi, 10.5, 0);
	assert_close(r.conf, 0.9500018995160686, 1e-9);
	assert_int_equal(stats_hodges_lehmann(a, 50, b, 60, 0.80, &r), 0);
	assert_int_equal(r.k, 1287);
	assert_close(r.lo, -8.5, 0);
	assert_close(r.hi, 6.5, 0);
	assert_close(r.conf, 0.800031382649653, 1e-9);
}

static void test_hl_ci_covers_true_shift_at_its_level(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[8], b[8];
	struct stats_hl r;
	int rep, covered = 0, reps = 1000;
	size_t i;

	(void)state;
	gsl_rng_set(rng, 20240601);
	for (rep = 0; rep < reps; rep++) {
		for (i = 0; i < 8; i++) {
			a[i] = gsl_ran_gaussian(rng, 1.0);
			b[i] = 0.7 + gsl_ran_gaussian(rng, 1.0);
		}
		assert_int_equal(stats_hodges_lehmann(a, 8, b, 8, 0.95, &r),
				 0);
		covered += r.lo <= 0.7 && 0.7 <= r.hi;
	}
	gsl_rng_free(rng);
	/* achieved level for 8 + 8 is 1 - 2 * 0.0249 = 0.950; 1000 trials
	 * have a standard error of 0.007 */
	print_message("hl 95%% interval, 8+8 normal: coverage %.3f\n",
		      (double)covered / reps);
	assert_true(covered >= 0.93 * reps);
}

/*
 * The median of an even count of differences lies between the middle
 * two: with two differences of 3 units of the least subnormal, halving
 * each (1.5 -> 2 units) and adding gave 4, above both, and the shift
 * fell outside its own interval (tests/fuzz/corpus/stats). Near DBL_MAX
 * the midpoint stays finite.
 */
static void test_hl_midpoint_between_the_middle_two(void **state)
{
	const double tiny = 3 * 4.9406564584124654e-324;
	const double a0[] = { 0 }, b0[] = { tiny, tiny };
	const double big_b[] = { 1.6e308, 1.7e308 };
	struct stats_hl r;

	(void)state;
	assert_int_equal(stats_hodges_lehmann(a0, 1, b0, 2, 0.95, &r), 0);
	assert_true(r.shift == tiny);
	assert_true(r.lo <= r.shift && r.shift <= r.hi);
	assert_int_equal(stats_hodges_lehmann(a0, 1, big_b, 2, 0.95, &r), 0);
	assert_true(isfinite(r.shift) && r.shift >= 1.6e308 && r.shift <= 1.7e308);
}

static void test_shift_pct_works_on_logs(void **state)
{
	static const double a[] = { 100, 102, 98, 101, 99 };
	static const double b[] = { 95, 96, 94, 97, 93.5 };
	static const double z[] = { 100, 0, 98 };
	struct stats_hl r;

	(void)state;
	/* ld = np.sort(np.subtract.outer(np.log(b), np.log(a)).ravel())
	 * 100*np.expm1(np.median(ld)) -4.950495049504985,
	 * 100*np.expm1(ld[2]) -7.425742574257435 (k = 3, as for 5+5),
	 * 100*np.expm1(ld[22]) -2.0408163265305763 */
	assert_int_equal(stats_shift_pct(a, 5, b, 5, 0.95, &r), 0);
	assert_close(r.shift, -4.950495049504985, 1e-12);
	assert_close(r.lo, -7.425742574257435, 1e-12);
	assert_close(r.hi, -2.0408163265305763, 1e-12);
	assert_int_equal(stats_shift_pct(a, 5, z, 3, 0.95, &r), -EDOM);
	assert_int_equal(stats_shift_pct(a, 5, b, 5, 1.0, &r), -EINVAL);
	assert_int_equal(stats_hodges_lehmann(a, 5, b, 0, 0.95, &r), -EINVAL);
}

/* ---- Benjamini-Hochberg ---- */

static void test_bh_matches_r_p_adjust(void **state)
{
	static const double p[] = { 0.01, 0.04, 0.03, 0.005, 0.2, 0.04, 0.9 };
	/* bh(p) (helper at the top) */
	static const double ref[] = { 0.035, 0.055999999999999994,
				      0.055999999999999994, 0.035,
				      0.23333333333333336,
				      0.055999999999999994, 0.9 };
	double q[N(p)];
	size_t i;

	(void)state;
	assert_int_equal(stats_bh(p, N(p), q), 0);
	for (i = 0; i < N(p); i++)
		assert_close(q[i], ref[i], 1e-15);
}

static void test_bh_in_place_caps_at_one_and_rejects_bad_p(void **state)
{
	double p[] = { 0.5, 0.9, 0.99, 1.0 };
	double bad[] = { 0.1, 1.5 }, q[2] = { -1, -1 };
	size_t i;

	(void)state;
	/* bh([0.5, 0.9, 0.99, 1.0]) -> all 1.0 */
	assert_int_equal(stats_bh(p, N(p), p), 0);
	for (i = 0; i < N(p); i++)
		assert_close(p[i], 1.0, 0);
	assert_int_equal(stats_bh(bad, 2, q), -EINVAL);
	assert_close(q[0], -1, 0);
	bad[1] = NAN;
	assert_int_equal(stats_bh(bad, 2, q), -EINVAL);
	assert_int_equal(stats_bh(NULL, 0, NULL), 0);
}

/* ---- power ---- */

static void test_runs_needed_matches_formula(void **state)
{
	size_t n;

	(void)state;
	/* runs(5, 5, 2) -> 105 */
	assert_int_equal(stats_runs_needed(5, 5, 2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 105);
	/* runs(3, 8, 2) -> 153 */
	assert_int_equal(stats_runs_needed(3, 8, 2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 153);
	/* runs(10, 10, 5, 0.05, 0.9) -> 92 */
	assert_int_equal(stats_runs_needed(10, 10, 5, 0.05, 0.9, &n), 0);
	assert_int_equal(n, 92);
	/* runs(18, 18, 10) -> 58: bulk TCP noise from DESIGN.md */
	assert_int_equal(stats_runs_needed(18, 18, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 58);
	/* runs(5, 5, -2) -> 101: a drop of 2% is a bigger log step */
	assert_int_equal(stats_runs_needed(5, 5, -2, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 101);
	/* runs(2, 2, 1, 0.01, 0.8) -> 99 */
	assert_int_equal(stats_runs_needed(2, 2, 1, 0.01, 0.8, &n), 0);
	assert_int_equal(n, 99);
}

static void test_runs_needed_floor_and_bad_input(void **state)
{
	size_t n = 0;

	(void)state;
	/* runs(1, 1, 10) -> 4 (formula alone: 0.18) */
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, STATS_RUNS_MIN);
	assert_int_equal(stats_runs_needed(0, 0, 10, 0.05, 0.8, &n), 0);
	assert_int_equal(n, 4);
	/* at alpha 0.01 four runs a side cannot reach it: 2/C(8,4) = 0.029,
	 * 2/C(10,5) = 0.0079 */
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.01, 0.8, &n), 0);
	assert_int_equal(n, 5);
	assert_int_equal(stats_runs_needed(1, 1, 10, 0.001, 0.8, &n), 0);
	assert_int_equal(n, 7); /* 2/C(12,6) = 0.0022, 2/C(14,7) = 0.00058 */
	assert_int_equal(stats_runs_needed(50, 50, 0.001, 0.05, 0.8, &n),
			 -ERANGE);
	assert_int_equal(stats_runs_needed(5, 5, 0, 0.05, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, -100, 0.05, 0.8, &n),
			 -EINVAL);
	assert_int_equal(stats_runs_needed(-1, 5, 2, 0.05, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, 2, 0, 0.8, &n), -EINVAL);
	assert_int_equal(stats_runs_needed(5, 5, 2, 0.05, 1, &n), -EINVAL);
	assert_int_equal(stats_runs_needed_sd(1, 1, NAN, 0.05, 0.8, &n),
			 -EINVAL);
	assert_int_equal(stats_runs_needed_sd(1, 1, 1, 0.05, 0.8, NULL),
			 -EINVAL);
}

/* ---- guard ---- */

static void test_outliers_by_modified_z(void **state)
{
	static const double one[] = { 10, 10.1, 9.9, 10.05, 9.95, 13 };
	static const double two[] = { 10, 10.1, 9.9, 10.05, 9.95, 10.6, 9.4,
				      10.3 };
	static const double none[] = { 10, 10.1, 9.9, 10.05, 9.95 };
	size_t c = 99;

	(void)state;
	/* med = np.median(x); mad = np.median(np.abs(x - med))
	 * np.sum(np.abs(0.6745*(x - med)/mad) > 3.5): 1 (z 26.76), 2 (z
	 * 3.878 and -4.216), 0 */
	assert_int_equal(stats_outliers(one, N(one), &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(stats_outliers(two, N(two), &c), 0);
	assert_int_equal(c, 2);
	assert_int_equal(stats_outliers(none, N(none), &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(none, 1, &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(none, 0, &c), -EINVAL);
}

static void test_outliers_fall_back_to_mean_ad_when_mad_is_zero(void **state)
{
	static const double spike[] = { 0, 0, 0, 0, 5 };
	static const double steps[] = { 1, 1, 1, 2, 2 };
	static const double flat[] = { 3, 3, 3 };
	size_t c = 99;

	(void)state;
	/* MAD 0: z = (x - med)/(1.253314*np.mean(np.abs(x - med)))
	 * spike: z 3.989 -> 1; steps: z 1.995 -> 0 */
	assert_int_equal(stats_outliers(spike, N(spike), &c), 0);
	assert_int_equal(c, 1);
	assert_int_equal(stats_outliers(steps, N(steps), &c), 0);
	assert_int_equal(c, 0);
	assert_int_equal(stats_outliers(flat, N(flat), &c), 0);
	assert_int_equal(c, 0);
}

static void test_mann_kendall_matches_python(void **state)
{
	static const double up[] = { 10.0, 10.2, 10.1, 10.4,
				     10.4, 10.6, 10.5, 10.9 };
	static const double down[] = { 5.0, 3.0, 4.0, 4.0, 2.0, 3.0, 1.0 };
	static const double four[] = { 1.0, 3.0, 2.0, 4.0 };
	struct stats_trend t;

	(void)state;
	/* mk(up) -> (23, 64.33333333333333, 0.8214285714285714,
	 *            2.7428663952471632, 0.00609054605657881) */
	assert_int_equal(stats_mann_kendall(up, N(up), &t), 0);
	assert_true(t.tested);
	assert_close(t.s, 23, 0);
	assert_close(t.var_s, 64.33333333333333, 1e-14);
	assert_close(t.tau, 0.8214285714285714, 1e-14);
	assert_close(t.z, 2.7428663952471632, 1e-13);
	assert_close(t.p, 0.00609054605657881, 1e-10);
	/* mk(down) -> (-13, 42.333333333333336, -0.6190476190476191,
	 *              -1.8443358704828159, 0.06513420695564257) */
	assert_int_equal(stats_mann_kendall(down, N(down), &t), 0);
	assert_close(t.s, -13, 0);
	assert_close(t.var_s, 42.333333333333336, 1e-14);
	assert_close(t.tau, -0.6190476190476191, 1e-14);
	assert_close(t.z, -1.8443358704828159, 1e-13);
	assert_close(t.p, 0.06513420695564257, 1e-10);
	/* mk([1.0, 3.0, 2.0, 4.0]) -> (4, 8.666666666666666, 0.667, 1.019,
	 *                              0.308179547467054) */
	assert_int_equal(stats_mann_kendall(four, N(four), &t), 0);
	assert_close(t.var_s, 8.666666666666666, 1e-14);
	assert_close(t.p, 0.308179547467054, 1e-10);
}

static void test_mann_kendall_needs_four_values_flat_has_no_trend(
	void **state)
{
	static const double three[] = { 1.0, 2.0, 3.0 };
	static const double flat[] = { 2.0, 2.0, 2.0, 2.0, 2.0 };
	struct stats_trend t;

	(void)state;
	assert_int_equal(stats_mann_kendall(three, 3, &t), 0);
	assert_false(t.tested);
	assert_true(isnan(t.p));
	assert_int_equal(stats_mann_kendall(flat, 5, &t), 0);
	assert_true(t.tested);
	assert_close(t.s, 0, 0);
	assert_close(t.var_s, 0, 0);
	assert_close(t.p, 1.0, 0);
	assert_int_equal(stats_mann_kendall(NULL, 5, &t), -EINVAL);
}

/* ---- verdict ---- */

static void test_verdict_names_and_default_opts(void **state)
{
	struct stats_compare_opts o;

	(void)state;
	assert_string_equal(stats_verdict_name(STATS_REGRESSION),
			    "REGRESSION");
	assert_string_equal(stats_verdict_name(STATS_IMPROVEMENT),
			    "IMPROVEMENT");
	assert_string_equal(stats_verdict_name(STATS_CHANGED), "changed");
	assert_string_equal(stats_verdict_name(STATS_MINOR), "minor");
	assert_string_equal(stats_verdict_name(STATS_SAME), "same");
	assert_string_equal(stats_verdict_name(STATS_INCONCLUSIVE),
			    "inconclusive");
	assert_string_equal(stats_verdict_name(STATS_TOO_FEW), "too few");
	assert_string_equal(stats_verdict_name((enum stats_verdict_kind)99),
			    "?");
	stats_compare_opts_init(&o);
	assert_close(o.alpha, 0.05, 0);
	assert_close(o.min_change_pct, 2.0, 0);
	assert_close(o.conf, 0.95, 0);
	assert_close(o.power, 0.8, 0);
	assert_int_equal(o.min_n, 4);
}

static const double reg_a[] = { 10.02, 9.95, 10.10, 9.98, 10.05, 10.01 };
static const double reg_b[] = { 9.01, 9.10, 8.95, 9.05, 8.98, 9.03 };

static void test_compare_clear_drop_by_direction(void **state)
{
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_REGRESSION);
	assert_true(r.log_scale);
	assert_false(r.shift_abs);
	assert_true(r.exact);
	/* stats.mannwhitneyu(a, b, method='exact').pvalue */
	assert_close(r.p, 0.0021645021645021645, 1e-12);
	/* np.median(a), np.median(b) */
	assert_close(r.median_a, 10.015, 1e-15);
	assert_close(r.median_b, 9.02, 1e-15);
	/* hlpct(a, b) */
	assert_close(r.shift_pct, -9.970131568157779, 1e-12);
	assert_true(r.shift_lo_pct <= r.shift_pct &&
		    r.shift_pct <= r.shift_hi_pct);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, -9.965064049243034, 1e-12);
	/* 100*np.std(a, ddof=1)/abs(np.mean(a)), same for b */
	assert_close(r.sd_pct_a, 0.5259765665243964, 1e-12);
	assert_close(r.sd_pct_b, 0.5866410889278479, 1e-12);
	assert_int_equal(r.runs_needed, 0);
	assert_int_equal(r.na, 6);

	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_LOWER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_NEUTRAL, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_CHANGED);
	/* the other way round, b better */
	assert_int_equal(stats_compare_samples(reg_b, 6, reg_a, 6,
					       STATS_HIGHER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_true(r.shift_pct > 0);
}

static void test_compare_significant_but_small_is_minor(void **state)
{
	static const double a[] = { 100.0, 100.1, 99.9, 100.05,
				    99.95, 100.02, 99.98, 100.03 };
	double b[8];
	struct stats_compare r;
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		b[i] = a[i] + 0.5;
	assert_int_equal(stats_compare_samples(a, 8, b, 8, STATS_HIGHER,
					       NULL, &r),
			 0);
	/* every b above every a: p = 2/C(16,8) */
	assert_close(r.p, 2.0 / 12870, 1e-12);
	assert_true(r.shift_pct > 0.45 && r.shift_pct < 0.55);
	assert_int_equal(r.verdict, STATS_MINOR);
}

static void test_compare_quiet_equal_samples_are_same(void **state)
{
	static const double a[] = { 100.0, 100.2, 99.8, 100.1, 99.9,
				    100.05, 99.95, 100.15, 99.85, 100.02 };
	static const double b[] = { 100.1, 99.9, 100.0, 100.2, 99.8,
				    99.95, 100.05, 99.85, 100.15, 99.98 };
	static const double seven[] = { 7, 7, 7, 7, 7 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 10, b, 10, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_true(r.p > 0.5);
	assert_true(r.shift_lo_pct >= -2 && r.shift_hi_pct <= 2);
	assert_int_equal(r.verdict, STATS_SAME);

	/* identical values on both sides */
	assert_int_equal(stats_compare_samples(seven, 5, seven, 5,
					       STATS_LOWER, NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_SAME);
	assert_close(r.p, 1.0, 0);
	assert_close(r.shift_pct, 0.0, 0);
	assert_close(r.sd_pct_a, 0.0, 0);
	assert_int_equal(r.outliers_a, 0);
}

static void test_compare_noisy_is_inconclusive_with_runs_needed(void **state)
{
	static const double a[] = { 100, 112, 91, 105, 96 };
	static const double b[] = { 98, 85, 107, 93, 101 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	/* stats.mannwhitneyu(a, b, method='exact').pvalue */
	assert_close(r.p, 0.6904761904761905, 1e-12);
	/* hlpct(a, b) */
	assert_close(r.shift_pct, -3.809523809523759, 1e-10);
	/* sa = np.std(np.log(a), ddof=1); sb likewise; d = math.log1p(0.02)
	 * nt = (stats.norm.ppf(0.975)+stats.norm.ppf(0.8))**2
	 *      * (sa*sa+sb*sb)/d**2; math.ceil(nt/(3/math.pi)) -> 294 */
	assert_int_equal(r.runs_needed, 294);
}

static void test_compare_zeros_fall_back_to_raw_shift(void **state)
{
	static const double a[] = { 0, 2, 3, 1, 2 };
	static const double b[] = { 5, 6, 7, 5, 8 };
	struct stats_compare r;

	(void)state;
	/* a counter, lower is better */
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_LOWER, NULL,
					       &r),
			 0);
	assert_false(r.log_scale);
	assert_false(r.shift_abs);
	/* 100*np.median(np.subtract.outer(b, a))/2 (2 = |median(a)|) */
	assert_close(r.shift_pct, 250.0, 1e-14);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, 287.49999999999994, 1e-12);
	/* no b at or below any a: brute_tied(a, b)[1] = 2/252 */
	assert_close(r.p, 2.0 / 252, 1e-12);
	assert_int_equal(r.verdict, STATS_REGRESSION);
}

static void test_compare_zero_median_gives_absolute_shift(void **state)
{
	static const double zeros[] = { 0, 0, 0, 0, 0, 0 };
	static const double errs[] = { 3, 4, 5, 2, 6, 3 };
	static const double few[] = { 0, 0, 0, 1, 0 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(zeros, 6, errs, 6, STATS_LOWER,
					       NULL, &r),
			 0);
	assert_true(r.shift_abs);
	assert_false(r.log_scale);
	assert_true(isnan(r.change_mean_pct));
	/* np.median(np.subtract.outer(errs, zeros)) = np.median(errs) */
	assert_close(r.shift_pct, 3.5, 0);
	/* brute_tied([0]*6, errs)[1] = 2/924 */
	assert_close(r.p, 2.0 / 924, 1e-12);
	assert_int_equal(r.verdict, STATS_REGRESSION);

	/* one stray error: not significant, no percentages: inconclusive,
	 * and no run count can be promised */
	assert_int_equal(stats_compare_samples(zeros, 5, few, 5, STATS_LOWER,
					       NULL, &r),
			 0);
	assert_true(r.shift_abs);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal(r.runs_needed, 0);
}

static void test_compare_negative_values_use_raw_shift(void **state)
{
	static const double a[] = { -5.0, -4.8, -5.2, -4.9, -5.1 };
	static const double b[] = { -4.0, -3.9, -4.1, -4.2, -3.8 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_NEUTRAL,
					       NULL, &r),
			 0);
	assert_false(r.log_scale);
	/* 100*np.median(np.subtract.outer(b, a))/5 */
	assert_close(r.shift_pct, 20.0, 1e-13);
	/* 100*(np.mean(b)-np.mean(a))/abs(np.mean(a)) */
	assert_close(r.change_mean_pct, 20.0, 1e-13);
	assert_int_equal(r.verdict, STATS_CHANGED);
}

static void test_compare_too_few_still_fills_what_it_can(void **state)
{
	static const double a[] = { 10, 11, 10.5 };
	static const double b[] = { 9, 9.5, 9.2, 9.1 };
	struct stats_compare r;
	struct stats_compare_opts o;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 3, b, 4, STATS_HIGHER, NULL,
					       &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_close(r.median_a, 10.5, 0);
	assert_close(r.median_b, 9.15, 1e-15);
	assert_false(isnan(r.p));
	assert_true(r.runs_needed >= 4);
	assert_true(isnan(r.drift_p_a)); /* 3 values: no trend test */
	assert_false(isnan(r.drift_p_b));

	/* one run a side never decides, whatever min_n says */
	stats_compare_opts_init(&o);
	o.min_n = 1;
	assert_int_equal(stats_compare_samples(a, 1, b, 1, STATS_HIGHER, &o,
					       &r),
			 -EINVAL);
	o.min_n = 2;
	assert_int_equal(stats_compare_samples(a, 1, b, 1, STATS_HIGHER, &o,
					       &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_close(r.p, 1.0, 0);
	assert_true(isnan(r.sd_pct_a));

	/* an empty side */
	assert_int_equal(stats_compare_samples(NULL, 0, b, 4, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_true(isnan(r.median_a));
	assert_true(isnan(r.p));
	assert_close(r.median_b, 9.15, 1e-15);
}

static void test_compare_rejects_bad_input(void **state)
{
	double bad[] = { 1, 2, NAN, 4 };
	struct stats_compare_opts o;
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(bad, 4, reg_b, 6, STATS_HIGHER,
					       NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       (enum stats_better)7, NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, NULL, 6, STATS_HIGHER,
					       NULL, &r),
			 -EINVAL);
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, NULL, NULL),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.alpha = 0;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.conf = 1;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
	stats_compare_opts_init(&o);
	o.min_change_pct = -1;
	assert_int_equal(stats_compare_samples(reg_a, 6, reg_b, 6,
					       STATS_HIGHER, &o, &r),
			 -EINVAL);
}

static void test_compare_paired_tests_the_ratios(void **state)
{
	/* B 10% below A in every pair, whatever the pair's level */
	static const double a[] = { 10, 20, 30, 40, 50 };
	static const double b[] = { 9, 18, 27, 36, 45 };
	/* ratios 0.97..1.03 around 1 */
	static const double c[] = { 9.7, 20.6, 29.4, 41.2, 50.5 };
	static const double zero[] = { 10, 20, 0, 40, 50 };
	const double nan_[] = { 10, 20, NAN, 40, 50 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.na, 5);
	assert_int_equal(r.nb, 5);
	assert_true(r.log_scale && !r.exact);
	assert_float_equal(r.shift_pct, -10, 1e-9);
	assert_float_equal(r.shift_lo_pct, -10, 1e-9);
	assert_float_equal(r.shift_hi_pct, -10, 1e-9);
	assert_float_equal(r.p, 0, 0);
	assert_int_equal(r.verdict, STATS_REGRESSION);
	/* the unpaired test sees the levels, not the ratio */
	assert_int_equal(stats_compare_samples(a, 5, b, 5, STATS_HIGHER, NULL, &r), 0);
	assert_true(r.p > 0.5);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_LOWER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_IMPROVEMENT);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_NEUTRAL, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_CHANGED);

	/* ratios around 1, spread +-3%: no call, and how many pairs would do */
	assert_int_equal(stats_compare_paired(a, c, 5, STATS_HIGHER, NULL, &r), 0);
	assert_true(r.p > 0.05);
	assert_true(r.shift_lo_pct < 0 && r.shift_pct > -3 && r.shift_pct < 3 && r.shift_hi_pct > 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_true(r.runs_needed > 5);

	/* the same values: same; too few pairs: too few */
	assert_int_equal(stats_compare_paired(a, a, 5, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_SAME);
	assert_int_equal(stats_compare_paired(a, b, 3, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_TOO_FEW);
	assert_int_equal(r.runs_needed, 4);

	/* no ratio of a value <= 0; bad input */
	assert_int_equal(stats_compare_paired(a, zero, 5, STATS_HIGHER, NULL, &r), -EDOM);
	assert_int_equal(stats_compare_paired(a, nan_, 5, STATS_HIGHER, NULL, &r), -EINVAL);
	assert_int_equal(stats_compare_paired(NULL, b, 5, STATS_HIGHER, NULL, &r), -EINVAL);
	assert_int_equal(stats_compare_paired(a, b, 5, STATS_HIGHER, NULL, NULL), -EINVAL);
	assert_int_equal(stats_compare_paired(a, b, 5, (enum stats_better)7, NULL, &r), -EINVAL);
}

static void test_compare_large_n_uses_normal_approximation(void **state)
{
	double a[200], b[200];
	struct stats_compare r;

	(void)state;
	/* a = [(i*37)%101/10+20 for i in range(200)];
	 * b = [(j*53)%97/10+20.5 for j in range(200)]
	 * stats.mannwhitneyu(a, b, method='asymptotic').pvalue
	 *   0.37832417761792525
	 * hlpct(a, b) 1.030927835051541; the normal-rule interval on logs,
	 * k = 17734: 100*np.expm1(ld[k-1]) -1.2931034482758252,
	 * 100*np.expm1(ld[mn-k]) 3.4146341463414207 */
	fill(a, 200, 37, 0, 101, 10, 20);
	fill(b, 200, 53, 0, 97, 10, 20.5);
	assert_int_equal(stats_compare_samples(a, 200, b, 200, STATS_HIGHER,
					       NULL, &r),
			 0);
	assert_false(r.exact);
	assert_close(r.p, 0.37832417761792525, 1e-9);
	assert_close(r.shift_pct, 1.030927835051541, 1e-10);
	assert_close(r.shift_lo_pct, -1.2931034482758252, 1e-10);
	assert_close(r.shift_hi_pct, 3.4146341463414207, 1e-10);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_true(r.runs_needed > 0);
}

static void test_compare_reports_drift_and_outliers(void **state)
{
	static const double a[] = { 10.0, 10.2, 10.1, 10.4,
				    10.4, 10.6, 10.5, 10.9 };
	static const double b[] = { 10, 10.1, 9.9, 10.05, 9.95, 10.6, 9.4,
				    10.3 };
	struct stats_compare r;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 8, b, 8, STATS_HIGHER, NULL,
					       &r),
			 0);
	/* mk(a)[4], as in test_mann_kendall_matches_python */
	assert_close(r.drift_p_a, 0.00609054605657881, 1e-10);
	assert_true(r.drift_p_b > 0.05);
	assert_int_equal(r.outliers_a, 0);
	assert_int_equal(r.outliers_b, 2); /* see test_outliers_by_modified_z */
}

/* ---- calibration ---- */

enum shape { SHAPE_NORMAL, SHAPE_LOGNORMAL, SHAPE_MIXTURE };

static const char *const shape_name[] = { "normal", "lognormal",
					  "mixture" };

/*
 * One run's value around 100 with a coefficient of variation of cv_pct:
 * normal, lognormal, or a skewed mixture, 100 * (1 + c * (Z - 3 * B * E))
 * with Z standard normal, B Bernoulli(0.2), E Exp(1): one run in five is
 * slowed (a busy host). Var(Z - 3BE) = 1 + 9 * (0.2 * 2 - 0.2^2) = 4.24,
 * so c = cv / sqrt(4.24) gives the mixture the stated CV.
 */
static double draw(gsl_rng *rng, enum shape s, double cv_pct)
{
	double c = cv_pct / 100;

	if (s == SHAPE_MIXTURE)
		c /= sqrt(4.24);

	switch (s) {
	case SHAPE_NORMAL:
		return 100 * (1 + gsl_ran_gaussian(rng, c));
	case SHAPE_LOGNORMAL:
		return 100 * exp(gsl_ran_gaussian(rng, sqrt(log1p(c * c))));
	case SHAPE_MIXTURE:
		if (gsl_rng_uniform(rng) < 0.2)
			return 100 * (1 + gsl_ran_gaussian(rng, c) -
				      gsl_ran_exponential(rng, 3 * c));
		return 100 * (1 + gsl_ran_gaussian(rng, c));
	}
	return 100;
}

#define CAL_REPS 500

static void test_compare_aa_false_regression_rate_at_most_alpha(void **state)
{
	static const double cvs[] = { 1, 2, 5 };
	static const size_t ns[] = { 5, 10 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[10], b[10], rate, worst = 0;
	struct stats_compare r;
	size_t si, ci, ni, i;
	int rep, reg, sig;

	(void)state;
	gsl_rng_set(rng, 12345);
	for (si = 0; si < 3; si++)
		for (ci = 0; ci < N(cvs); ci++)
			for (ni = 0; ni < N(ns); ni++) {
				reg = sig = 0;
				for (rep = 0; rep < CAL_REPS; rep++) {
					for (i = 0; i < ns[ni]; i++) {
						a[i] = draw(rng, si, cvs[ci]);
						b[i] = draw(rng, si, cvs[ci]);
					}
					assert_int_equal(
						stats_compare_samples(
							a, ns[ni], b, ns[ni],
							STATS_HIGHER, NULL, &r),
						0);
					reg += r.verdict == STATS_REGRESSION;
					sig += r.p < 0.05;
				}
				rate = (double)reg / CAL_REPS;
				print_message("A/A %-9s cv %g%% n %2zu: "
					      "false REGRESSION %.3f, "
					      "p < 0.05 %.3f\n",
					      shape_name[si], cvs[ci], ns[ni],
					      rate, (double)sig / CAL_REPS);
				if (rate > worst)
					worst = rate;
				assert_true(rate <= 0.05);
			}
	print_message("A/A worst false REGRESSION rate %.3f\n", worst);
	gsl_rng_free(rng);
}

static void test_compare_finds_injected_5pct_regression(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double a[6], b[6], rate;
	struct stats_compare r;
	size_t si, i;
	int rep, reg;

	(void)state;
	gsl_rng_set(rng, 54321);
	for (si = 0; si < 3; si++) {
		reg = 0;
		for (rep = 0; rep < CAL_REPS; rep++) {
			for (i = 0; i < 6; i++) {
				a[i] = draw(rng, si, 2);
				b[i] = 0.95 * draw(rng, si, 2);
			}
			assert_int_equal(stats_compare_samples(a, 6, b, 6,
							       STATS_HIGHER,
							       NULL, &r),
					 0);
			reg += r.verdict == STATS_REGRESSION;
		}
		rate = (double)reg / CAL_REPS;
		print_message("5%% drop, cv 2%%, 6+6 %-9s: REGRESSION %.3f\n",
			      shape_name[si], rate);
		assert_true(rate >= 0.8);
	}
	gsl_rng_free(rng);
}

/*
 * Half-width of the 95% t interval of the mean, in percent of the mean.
 * Reference (/usr/bin/python3, SciPy 1.10.1):
 *   x=[1,2,3,4,5]; stats.t.ppf(0.975, 4) * np.std(x, ddof=1) /
 *   np.sqrt(5) / 3 * 100 = 65.44144
 */
static void test_ci_half_pct_matches_scipy(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5 }, z[] = { -1, 1 };
	double h;

	(void)state;
	assert_int_equal(stats_ci_half_pct(x, 5, 0.95, &h), 0);
	assert_true(fabs(h - 65.44144) < 1e-4);
	assert_int_equal(stats_ci_half_pct(x, 1, 0.95, &h), -EINVAL);
	assert_int_equal(stats_ci_half_pct(x, 5, 1.0, &h), -EINVAL);
	assert_int_equal(stats_ci_half_pct(z, 2, 0.95, &h), -EDOM);
	/* --until-ci's figure: the same once there are 3 values, +inf before
	 * and when there is none */
	assert_true(fabs(stats_settle_half_pct(x, 5) - 65.44144) < 1e-4);
	assert_true(isinf(stats_settle_half_pct(x, 2)));
	assert_true(isinf(stats_settle_half_pct(z, 2)));
	assert_true(stats_settle_half_pct(x, 3) > 0);
}

/*
 * Geometric mean of paired ratios and its 95% t interval on the logs.
 * Reference (/usr/bin/python3, SciPy 1.10.1):
 *   l = np.log(num / den); h = stats.t.ppf(0.975, 4) * l.std(ddof=1) /
 *   np.sqrt(5); np.exp([l.mean(), l.mean() - h, l.mean() + h])
 *   = 1.00376752, 0.97417750, 1.03425632
 */
static void test_paired_ratio_matches_scipy(void **state)
{
	const double num[] = { 10.2, 9.9, 20.2, 4.85, 10.3 };
	const double den[] = { 10, 10, 20, 5, 10 };
	const double same[] = { 3, 3 }, zero[] = { 1, 0 }, inf[] = { 1, INFINITY };
	struct stats_ratio r;

	(void)state;
	assert_int_equal(stats_paired_ratio(num, den, 5, 0.95, &r), 0);
	assert_int_equal(r.n, 5);
	assert_true(fabs(r.geomean - 1.00376752) < 1e-7);
	assert_true(fabs(r.lo - 0.97417750) < 1e-7);
	assert_true(fabs(r.hi - 1.03425632) < 1e-7);
	/* the interval is that of num / den turned over */
	assert_int_equal(stats_paired_ratio(den, num, 5, 0.95, &r), 0);
	assert_true(fabs(r.geomean - 1 / 1.00376752) < 1e-7);
	assert_true(fabs(r.hi - 1 / 0.97417750) < 1e-7);
	/* identical ratios: no spread, a zero-width interval */
	assert_int_equal(stats_paired_ratio(same, same, 2, 0.95, &r), 0);
	assert_true(r.lo == 1 && r.geomean == 1 && r.hi == 1);
	assert_int_equal(stats_paired_ratio(num, den, 1, 0.95, &r), -EINVAL);
	assert_int_equal(stats_paired_ratio(num, den, 5, 0, &r), -EINVAL);
	assert_int_equal(stats_paired_ratio(zero, same, 2, 0.95, &r), -EDOM);
	assert_int_equal(stats_paired_ratio(same, zero, 2, 0.95, &r), -EDOM);
	assert_int_equal(stats_paired_ratio(inf, same, 2, 0.95, &r), -EINVAL);
}

/*
 * The 2 x 2 crossover by hand: pairs whose A ran first read ln(B/A) 0.12
 * +- 0.01, the others 0.08 +- 0.01: a change of 0.10 and a second run
 * 0.02 higher, each with the pooled sd 0.0141 over 2 degrees of freedom
 * and the standard error sd / 2 x sqrt(1/2 + 1/2); one order alone is
 * refused.
 */
static void test_crossover_ratio_by_hand(void **state)
{
	const double d[] = { 0.13, 0.11, 0.09, 0.07 };
	const bool a_first[] = { true, true, false, false }, one_order[] = { true, true, true, true };
	double a[4], b[4], se = sqrt(0.0002) / 2, h = gsl_cdf_tdist_Qinv(0.025, 2) * se;
	struct stats_ratio c, p;

	(void)state;
	for (int i = 0; i < 4; i++) {
		a[i] = 10 + i;
		b[i] = a[i] * exp(d[i]);
	}
	assert_int_equal(stats_crossover_ratio(b, a, a_first, 4, 0.95, &c, &p), 0);
	assert_int_equal(c.n, 4);
	assert_true(fabs(log(c.geomean) - 0.10) < 1e-12);
	assert_true(fabs(log(p.geomean) - 0.02) < 1e-12);
	assert_true(fabs(c.sd_log - sqrt(0.0002)) < 1e-12 && p.sd_log == c.sd_log);
	assert_true(fabs(log(c.lo) - (0.10 - h)) < 1e-12 && fabs(log(c.hi) - (0.10 + h)) < 1e-12);
	assert_true(fabs(c.p - 2 * gsl_cdf_tdist_Q(0.10 / se, 2)) < 1e-12);
	assert_true(fabs(p.p - 2 * gsl_cdf_tdist_Q(0.02 / se, 2)) < 1e-12);
	assert_int_equal(stats_crossover_ratio(b, a, one_order, 4, 0.95, &c, &p), -EINVAL);
	a[2] = 0;
	assert_int_equal(stats_crossover_ratio(b, a, a_first, 4, 0.95, &c, &p), -EDOM);
}

/*
 * How many pairs a crossover needs: pairs of A first read ln(B/A) 0.03,
 * 0.01, 0.05 and of B first 0.01, -0.01, 0.03: a change of 0.02 with a
 * pooled sd of 0.02 over 4 degrees of freedom, p about 0.07, so no call at
 * a 2% floor. Its mean has the paired t's standard error sd / sqrt(n),
 * and its t loses 2 degrees of freedom, not 1: ceil(z^2 sd^2 /
 * ln(1.02)^2) = ceil(8.006) = 9, + 2 = 11 pairs (the paired t's + 1
 * made it 10). The paired t over the same ratios, orders ignored (sd
 * 0.0210), needs ceil(8.807) + 1 = 10.
 */
static void test_crossover_runs_needed_counts_its_lost_degrees(void **state)
{
	static const double d[] = { 0.03, 0.01, 0.01, -0.01, 0.05, 0.03 };
	static const bool a_first[] = { true, false, true, false, true, false };
	double a[6], b[6], z = gsl_cdf_ugaussian_Pinv(0.975) + gsl_cdf_ugaussian_Pinv(0.8);
	struct stats_compare r;
	struct stats_ratio per;

	(void)state;
	for (int i = 0; i < 6; i++) {
		a[i] = 100 + 3 * i;
		b[i] = a[i] * exp(d[i]);
	}
	assert_int_equal(stats_compare_crossover(a, b, a_first, 6, STATS_HIGHER, NULL, &r, &per), 0);
	assert_true(fabs(r.shift_pct - 100 * expm1(0.02)) < 1e-9);
	assert_true(fabs(per.sd_log - 0.02) < 1e-12);
	assert_true(r.p > 0.05 && r.p < 0.1);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal((int)ceil(z * z * 0.0004 / (log(1.02) * log(1.02))), 9);
	assert_int_equal(r.runs_needed, 11);
	assert_int_equal(stats_compare_paired(a, b, 6, STATS_HIGHER, NULL, &r), 0);
	assert_int_equal(r.verdict, STATS_INCONCLUSIVE);
	assert_int_equal(r.runs_needed, 10);
	/* fewer than min_n pairs: the same formula, not the floor */
	{
		struct stats_compare_opts o;

		stats_compare_opts_init(&o);
		o.min_n = 7;
		assert_int_equal(stats_compare_crossover(a, b, a_first, 6, STATS_HIGHER, &o, &r,
							 &per), 0);
		assert_int_equal(r.verdict, STATS_TOO_FEW);
		assert_int_equal(r.runs_needed, 11);
	}
}

static void test_kendall_matches_scipy(void **state)
{
	/* scipy.stats.kendalltau(x, y): tau 0.7575757575757575 (no ties);
	 * S = 50, var(S) = 12 * 11 * 29 / 18, and the continuity-corrected
	 * normal p, 2 * norm.sf((50 - 1) / sqrt(212.667)) = 0.00077926997 */
	static const double x[] = { 3.1, 1.2, 4.5, 2.2, 5.9, 0.7, 6.3, 7.7, 2.9, 8.1, 9.4, 4.1 };
	static const double y[] = { 10.0, 9.1, 12.5, 11.0, 12.0, 8.7, 11.9, 14.2, 10.4, 13.0, 15.1, 10.9 };
	static const double nan_x[] = { 1, 2, NAN, 4 };
	struct stats_trend t;
	double neg[12];

	(void)state;
	assert_int_equal(stats_kendall(x, y, 12, &t), 0);
	assert_true(t.tested);
	assert_float_equal(t.tau, 0.7575757575757575, 1e-12);
	assert_float_equal(t.s, 50, 0);
	assert_float_equal(t.var_s, 212.66666666666666, 1e-9);
	assert_float_equal(t.p, 0.0007792699724176719, 1e-12);
	/* y falling as x rises: the same strength, the other sign */
	for (int i = 0; i < 12; i++)
		neg[i] = -y[i];
	assert_int_equal(stats_kendall(x, neg, 12, &t), 0);
	assert_float_equal(t.tau, -0.7575757575757575, 1e-12);
	assert_int_equal(stats_kendall(x, y, 3, &t), 0);
	assert_false(t.tested);
	assert_int_equal(stats_kendall(nan_x, y, 4, &t), -EINVAL);
	assert_int_equal(stats_kendall(NULL, y, 4, &t), -EINVAL);
}

/* 40 ticks: a level that steps from `before` to `after` at tick 20, with a
 * fixed +-3% zigzag so that no two values tie */
static void stepped(double *v, double before, double after)
{
	for (int i = 0; i < 40; i++)
		v[i] = (i < 20 ? before : after) * (1 + 0.03 * ((i % 4) - 1.5) / 1.5) + 0.001 * i;
}

static void test_host_trend_only_when_the_speed_moved_with_the_rate(void **state)
{
	double rates[40], down[40], flat[40], up[40], gappy[40];
	struct stats_trend rt;
	struct stats_host_trend h;
	bool not_steady;

	(void)state;
	stepped(rates, 3600, 2700);
	stepped(down, 380, 300);
	stepped(flat, 380, 380);
	stepped(up, 300, 380);
	assert_int_equal(stats_steady(rates, 40, &rt, &not_steady), 0);
	assert_true(not_steady && rt.tau < 0);
	/* the host slowed when the rate fell: the host's doing */
	assert_int_equal(stats_host_trend(rates, down, 40, &rt, not_steady, &h), 0);
	assert_true(h.tested && h.host_trend);
	assert_true(h.speed.tau < -0.25 && h.speed.p < 0.01);
	assert_true(h.rate_speed.tau > 0.25 && h.rate_speed.p < 0.01);
	/* the host held its speed: the rate fell for another reason */
	assert_int_equal(stats_host_trend(rates, flat, 40, &rt, not_steady, &h), 0);
	assert_true(h.tested);
	assert_false(h.host_trend);
	/* the host sped up while the rate fell: not the host either */
	assert_int_equal(stats_host_trend(rates, up, 40, &rt, not_steady, &h), 0);
	assert_false(h.host_trend);
	assert_true(h.rate_speed.tau < 0);
	/* a steady window is never the host's, whatever the speed did */
	assert_int_equal(stats_host_trend(rates, down, 40, &rt, false, &h), 0);
	assert_false(h.host_trend);
	/* ticks without a burst are left out; under 8 left: not tested */
	for (int i = 0; i < 40; i++)
		gappy[i] = i % 6 ? NAN : down[i];
	assert_int_equal(stats_host_trend(rates, gappy, 40, &rt, not_steady, &h), 0);
	assert_false(h.tested);
	assert_false(h.host_trend);
	assert_int_equal(stats_host_trend(NULL, down, 40, &rt, not_steady, &h), -EINVAL);
}

static void test_host_moved_when_the_round_trip_changed_level(void **state)
{
	double rates[40], apart[40], jitter[40], gappy[40], flat[40];
	struct stats_host_moved h;

	(void)state;
	/* the host moved the vCPUs apart half-way (120 ns to 430 ns, as on
	 * the EPYC guest) and the rate halved with it */
	stepped(rates, 30, 15);
	/* a jitter of its own, not the rates' zigzag */
	for (int i = 0; i < 40; i++)
		apart[i] = (i < 20 ? 120 : 430) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), 0);
	assert_true(h.tested && h.moved);
	assert_int_equal(h.levels, 2);
	assert_float_equal(h.lo_ns, 120, 3);
	assert_float_equal(h.hi_ns, 430, 10);
	assert_true(h.rate_xcpu.tested && h.rate_xcpu.tau < -0.25 && h.rate_xcpu.p < 0.01);
	/* far apart half the window, at half the rate */
	assert_float_equal(h.far_pct, 50, 1e-9);
	assert_float_equal(h.rate_far_pct, 50, 0.5);
	/* moved apart for one second of four in the middle: found too */
	for (int i = 0; i < 40; i++)
		apart[i] = (i >= 15 && i < 25 ? 430 : 120) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), 0);
	assert_true(h.tested && h.moved);
	assert_int_equal(h.levels, 3);
	/* 10 ticks of 40, half of them before the rate's step and half
	 * after, as the other ticks: the same mean rate */
	assert_float_equal(h.far_pct, 25, 1e-9);
	assert_float_equal(h.rate_far_pct, 100, 2);
	/* apart for the 12 ticks from the 25th while the rate held: the
	 * share, at its rate */
	stepped(flat, 20, 20);
	for (int i = 0; i < 40; i++)
		apart[i] = i >= 25 && i < 37 ? 350 : 85;
	assert_int_equal(stats_host_moved(flat, apart, 40, &h), 0);
	assert_true(h.moved);
	assert_float_equal(h.far_pct, 30, 1e-9);
	assert_float_equal(h.rate_far_pct, 100, 3);
	/* a rate of 0 near them leaves no ratio */
	for (int i = 0; i < 40; i++)
		flat[i] = i >= 25 && i < 37 ? 5 : 0;
	assert_int_equal(stats_host_moved(flat, apart, 40, &h), 0);
	assert_true(h.moved);
	assert_true(isnan(h.rate_far_pct));
	for (int i = 0; i < 40; i++)
		apart[i] = (i < 20 ? 120 : 430) * (1 + 0.02 * ((i * 7 % 5) - 2) / 2);
	/* a step of 115 to 135 ns within one placement is a level, not a move */
	stepped(jitter, 115, 135);
	assert_int_equal(stats_host_moved(rates, jitter, 40, &h), 0);
	assert_true(h.tested);
	assert_false(h.moved);
	assert_float_equal(h.far_pct, 0, 0);
	assert_true(isnan(h.rate_far_pct));
	/* one placement throughout: one level */
	stepped(flat, 120, 120);
	assert_int_equal(stats_host_moved(rates, flat, 40, &h), 0);
	assert_int_equal(h.levels, 1);
	assert_false(h.moved);
	/* ticks without a round are left out: too few for levels, still a
	 * correlation */
	for (int i = 0; i < 40; i++)
		gappy[i] = i % 4 ? NAN : apart[i];
	assert_int_equal(stats_host_moved(rates, gappy, 40, &h), 0);
	assert_false(h.tested);
	assert_false(h.moved);
	assert_true(isnan(h.rate_far_pct));
	assert_true(h.rate_xcpu.tested && h.rate_xcpu.tau < 0);
	assert_int_equal(stats_host_moved(NULL, apart, 40, &h), -EINVAL);
	rates[3] = NAN;
	assert_int_equal(stats_host_moved(rates, apart, 40, &h), -EINVAL);
}

/*
 * 100 ms rates of a 10 s loopback tcp_stream on the 2-vCPU test machine
 * (kernel 6.18): about 40 Gbps for 2.8 s, 32 Gbps for 2.1 s, then 38 Gbps,
 * the socket-backlog bistability of DESIGN.md's machine notes.
 */
static const double flipping_gbps[] = {
	40.789, 39.703, 40.565, 40.932, 39.622, 40.391, 40.433, 40.583, 40.407, 41.046,
	40.721, 40.365, 39.940, 40.162, 40.057, 40.227, 40.365, 40.433, 40.262, 40.336,
	39.867, 40.854, 39.904, 42.201, 41.490, 41.161, 40.962, 41.505, 33.108, 32.920,
	32.952, 32.993, 33.268, 32.245, 33.088, 33.254, 33.127, 32.995, 32.437, 32.299,
	31.346, 31.254, 31.775, 31.391, 31.695, 32.400, 32.003, 31.882, 31.972, 38.913,
	38.205, 37.134, 37.430, 39.272, 39.667, 39.359, 38.946, 40.048, 39.725, 39.635,
	39.296, 39.481, 39.293, 38.824, 38.900, 39.320, 39.512, 39.584, 37.975, 39.633,
	39.289, 39.625, 40.120, 31.950, 36.871, 37.616, 38.934, 34.367, 38.747, 39.635,
	37.305, 37.273, 36.249, 36.220, 39.274, 35.213, 38.822, 39.421, 38.352, 39.296,
	38.693, 38.059, 38.170, 38.740, 38.403, 39.696, 37.880, 38.392, 36.170, 33.348,
	37.942,
};

/* n rates around mean: AR(1) noise with lag-1 correlation phi and a
 * stationary coefficient of variation of cv_pct */
static void ar1(gsl_rng *rng, double *x, size_t n, double mean, double phi, double cv_pct)
{
	double e = 0, sd = mean * cv_pct / 100 * sqrt(1 - phi * phi);

	for (size_t i = 0; i < n; i++) {
		e = phi * e + gsl_ran_gaussian(rng, sd);
		x[i] = mean + e;
	}
}

static void test_levels_find_steps_and_flips(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_levels lv;
	double x[100];

	(void)state;
	gsl_rng_set(rng, 7);
	/* the real trace: three levels, down and back up */
	assert_int_equal(stats_levels(flipping_gbps, N(flipping_gbps), &lv), 0);
	assert_true(lv.tested);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	assert_true(lv.lo_pct > 83 && lv.lo_pct < 88);   /* 32.4 of 37.7 */
	assert_true(lv.hi_pct > 105 && lv.hi_pct < 110); /* 40.5 */
	/* one step, 30 -> 40 with 2.5 % noise: two levels, not mixed */
	ar1(rng, x, 100, 30, 0.35, 2.5);
	for (size_t i = 50; i < 100; i++)
		x[i] += 10;
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 2);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 30.0 / 35) < 2);
	assert_true(fabs(lv.hi_pct - 100 * 40.0 / 35) < 2);
	/* a 1.5 s dip of 20 % in the middle: left and came back */
	ar1(rng, x, 100, 40, 0.35, 2.5);
	for (size_t i = 40; i < 55; i++)
		x[i] *= 0.8;
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	/* a 1 s move of 10 % in the middle of 10 s, and of 3 s: one cut
	 * leaves neither side at one level, so binary segmentation alone
	 * found it in none of these, the stretch against the rest in nearly
	 * all */
	for (size_t n = 100; n; n = n == 100 ? 30 : 0) {
		int found = 0;

		for (int r = 0; r < 200; r++) {
			ar1(rng, x, n, 30, 0.35, 2.5);
			for (size_t i = n / 2 - 5; i < n / 2 + 5; i++)
				x[i] *= 1.1;
			assert_int_equal(stats_levels(x, n, &lv), 0);
			found += lv.count == 3 && lv.mixed;
		}
		print_message("a 1 s move in %zu rates: found in %d of 200\n", n, found);
		assert_true(found >= (n == 100 ? 195 : 160));
	}
	/* the same, exact: the one cut's best t test gives p = 0.005 */
	for (size_t i = 0; i < 30; i++)
		x[i] = i >= 10 && i < 20 ? 120 : 100;
	assert_int_equal(stats_levels(x, 30, &lv), 0);
	assert_int_equal(lv.count, 3);
	assert_true(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 100 / (320 / 3.0)) < 1e-9);
	assert_true(fabs(lv.first_pct - lv.last_pct) < 1e-9);
	/* exact levels, no noise at all */
	for (size_t i = 0; i < 40; i++)
		x[i] = i < 20 ? 100 : 120;
	assert_int_equal(stats_levels(x, 40, &lv), 0);
	assert_int_equal(lv.count, 2);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100 * 100.0 / 110) < 1e-9);
	gsl_rng_free(rng);
}

static void test_levels_hold_one_level_on_noise_small_shifts_and_blips(void **state)
{
	static const double phis[] = { 0, 0.35, 0.6 }, cvs[] = { 2.5, 5 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_levels lv;
	double x[100];
	int split = 0, mixed = 0, reps = 0;

	(void)state;
	gsl_rng_set(rng, 11);
	/* correlated noise alone: rarely more than one level, never mixed */
	for (size_t a = 0; a < N(phis); a++)
		for (size_t b = 0; b < N(cvs); b++)
			for (int r = 0; r < 200; r++, reps++) {
				ar1(rng, x, 100, 30, phis[a], cvs[b]);
				assert_int_equal(stats_levels(x, 100, &lv), 0);
				assert_true(lv.tested);
				split += lv.count > 1;
				mixed += lv.mixed;
			}
	print_message("levels on AR(1) noise: %d of %d split, %d mixed\n", split, reps, mixed);
	assert_true(split <= reps / 50);
	assert_true(mixed <= reps / 200);
	/* a 3 % step is below STATS_LEVEL_PCT */
	for (size_t i = 0; i < 100; i++)
		x[i] = (i < 50 ? 100 : 103) + 0.2 * (double)(i % 3);
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_int_equal(lv.count, 1);
	assert_false(lv.mixed);
	assert_true(fabs(lv.lo_pct - 100) < 1e-9 && fabs(lv.hi_pct - 100) < 1e-9);
	/* a 30 % dip shorter than STATS_LEVEL_MIN_N intervals is no level,
	 * in the middle or at either end of the window (a cut or a stretch
	 * of STATS_LEVEL_MIN_N around it would be half dip, half not) */
	for (size_t at = 0; at <= 95; at += 5) {
		for (size_t i = 0; i < 100; i++)
			x[i] = (i >= at && i < at + 5 ? 70 : 100) + 0.2 * (double)(i % 3);
		assert_int_equal(stats_levels(x, 100, &lv), 0);
		assert_int_equal(lv.count, 1);
	}
	/* too few rates, a zero mean: not tested; bad input */
	assert_int_equal(stats_levels(x, 2 * STATS_LEVEL_MIN_N - 1, &lv), 0);
	assert_false(lv.tested);
	memset(x, 0, sizeof(x));
	assert_int_equal(stats_levels(x, 100, &lv), 0);
	assert_false(lv.tested);
	x[3] = NAN;
	assert_int_equal(stats_levels(x, 100, &lv), -EINVAL);
	assert_int_equal(stats_levels(NULL, 100, &lv), -EINVAL);
	assert_int_equal(stats_levels(x, 100, NULL), -EINVAL);
	gsl_rng_free(rng);
}

static void test_levels_rho_is_persistence_beside_steps_and_slopes(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	double x[400], rho, mean_rho = 0;

	(void)state;
	gsl_rng_set(rng, 23);
	/* AR(1) noise: its own coefficient, within sampling error */
	for (int r = 0; r < 20; r++) {
		ar1(rng, x, 400, 30, 0.7, 4);
		assert_int_equal(stats_levels_rho(x, 400, &rho), 0);
		mean_rho += rho / 20;
	}
	assert_true(fabs(mean_rho - 0.7) < 0.05);
	/* a 30 % step on white noise: the levels take it out (about the
	 * window's mean the lag-1 autocorrelation would be near 0.9) */
	ar1(rng, x, 100, 30, 0, 2.5);
	for (size_t i = 50; i < 100; i++)
		x[i] += 9;
	assert_int_equal(stats_levels_rho(x, 100, &rho), 0);
	assert_true(fabs(rho) < 0.3);
	/* a slope on white noise, in a window too short for levels: the line
	 * takes it out */
	ar1(rng, x, 15, 30, 0, 2.5);
	for (size_t i = 0; i < 15; i++)
		x[i] += (double)i;
	assert_int_equal(stats_levels_rho(x, 15, &rho), 0);
	assert_true(fabs(rho) < 0.5);
	/* an exact line, however the levels cut it, or a flat window:
	 * nothing carries over */
	for (size_t i = 0; i < 40; i++)
		x[i] = 100 + 0.5 * (double)i;
	assert_int_equal(stats_levels_rho(x, 40, &rho), 0);
	assert_float_equal(rho, 0, 0);
	for (size_t i = 0; i < 40; i++)
		x[i] = 100;
	assert_int_equal(stats_levels_rho(x, 40, &rho), 0);
	assert_float_equal(rho, 0, 0);
	assert_int_equal(stats_levels_rho(x, 2, &rho), 0);
	assert_float_equal(rho, 0, 0);
	x[3] = NAN;
	assert_int_equal(stats_levels_rho(x, 40, &rho), -EINVAL);
	assert_int_equal(stats_levels_rho(NULL, 40, &rho), -EINVAL);
	assert_int_equal(stats_levels_rho(x, 40, NULL), -EINVAL);
	gsl_rng_free(rng);
}

/*
 * Not steady on windows of 50 rates (5 s): on persistent noise alone, under
 * half as often as the plain test called trends (which was in one window
 * in seven or more); a throttle to half the rate always, a step of 20 % or
 * a slope of 30 % over the window nearly always.
 */
static void test_steady_widens_for_persistence_and_keeps_throttles(void **state)
{
	static const double phis[] = { 0.5, 0.7 };
	static const struct {
		double step, slope;
		int at_least;
	} moves[] = { { 0.5, 0, 100 }, { 0.2, 0, 85 }, { 0, 0.3, 85 } };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct stats_trend tr, plain;
	int flagged, naive, reps = 400;
	bool ns;
	double x[50];

	(void)state;
	gsl_rng_set(rng, 31);
	for (size_t a = 0; a < N(phis); a++) {
		flagged = naive = 0;
		for (int r = 0; r < reps; r++) {
			ar1(rng, x, 50, 30, phis[a], 5);
			assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
			assert_int_equal(stats_mann_kendall(x, 50, &plain), 0);
			assert_true(tr.var_factor >= 1 && tr.rho >= 0 && tr.rho <= STATS_STEADY_RHO_MAX);
			assert_float_equal(tr.s, plain.s, 0);
			assert_true(tr.p >= plain.p);
			flagged += ns;
			naive += plain.p < STATS_STEADY_P && fabs(plain.tau) > STATS_STEADY_TAU;
		}
		print_message("AR(1) %.1f, 50 rates: not steady in %d of %d, the plain test %d\n",
			      phis[a], flagged, reps, naive);
		assert_true(naive >= reps / 7);
		assert_true(flagged <= reps / 10 && 5 * flagged <= 2 * naive);
	}
	/* on noise of persistence 0.7 */
	for (size_t m = 0; m < N(moves); m++) {
		flagged = 0;
		for (int r = 0; r < 100; r++) {
			ar1(rng, x, 50, 30, 0.7, 5);
			for (size_t i = 0; i < 50; i++)
				x[i] *= (i >= 25 ? 1 - moves[m].step : 1) -
					moves[m].slope * (double)i / 50;
			assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
			flagged += ns;
		}
		print_message("a step of %.0f %%, a slope of %.0f %%: not steady in %d of 100\n",
			      100 * moves[m].step, 100 * moves[m].slope, flagged);
		assert_true(flagged >= moves[m].at_least);
	}
	/* white noise: no widening to speak of */
	ar1(rng, x, 50, 30, 0, 5);
	assert_int_equal(stats_steady(x, 50, &tr, &ns), 0);
	assert_true(tr.var_factor < 1.5);
	/* a plain test reports no widening; too few rates, not tested */
	assert_int_equal(stats_mann_kendall(x, 50, &plain), 0);
	assert_float_equal(plain.var_factor, 1, 0);
	assert_float_equal(plain.rho, 0, 0);
	assert_int_equal(stats_steady(x, 7, &tr, &ns), 0);
	assert_false(tr.tested || ns);
	gsl_rng_free(rng);
}

/* n samples of one tcp_stream configuration: throughput gbps[i], and the
 * probe's host.speed speed[i] (none when speed is NULL) */
static struct base_sample *speed_samples(size_t n, const double *gbps,
					 const double *speed)
{
	struct base_sample *s = calloc(n, sizeof(*s));

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		base_sample_init(&s[i]);
		snprintf(s[i].config_key, sizeof(s[i].config_key), "test=tcp_stream");
		assert_int_equal(base_sample_param(&s[i], "test", "tcp_stream"), 0);
		assert_int_equal(base_sample_set(&s[i], "throughput.gbps", "Gbps", gbps[i]), 0);
		if (speed)
			assert_int_equal(base_sample_set(&s[i], "host.speed", "op/us", speed[i]), 0);
	}
	return s;
}

static void free_samples(struct base_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		base_sample_release(&s[i]);
	free(s);
}

/* Rounds 25 s apart, a round's two runs 3 s apart, A's first where
 * a_first[r]: sets every sample's start and the pointer arrays. */
static void place_rounds(struct base_sample *a, struct base_sample *b, const bool *a_first,
			 size_t n, const struct base_sample **pa, const struct base_sample **pb)
{
	for (size_t r = 0; r < n; r++) {
		a[r].wall_start_ns = (int64_t)(25 * r + 3 * !a_first[r]) * NS_PER_S;
		b[r].wall_start_ns = (int64_t)(25 * r + 3 * a_first[r]) * NS_PER_S;
		pa[r] = &a[r];
		pb[r] = &b[r];
	}
}

/* The table's .paired row; fails the test when it has none. */
static const struct stats_row *paired_of(const struct stats_table *t)
{
	const struct stats_row *pr = NULL;

	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].paired)
			pr = &t->rows[i];
	assert_non_null(pr);
	return pr;
}

/* The table of tcp_stream samples of rates ga against gb, n a side:
 * interleaved in rounds by a_first (place_rounds), or with a_first NULL
 * all started at once (no .paired row). */
static void table_of(const double *ga, const double *gb, size_t n, const bool *a_first,
		     const struct stats_table_opts *o, struct stats_table *t)
{
	const struct base_sample **pa = calloc(n, sizeof(*pa)), **pb = calloc(n, sizeof(*pb));
	struct base_sample *a = speed_samples(n, ga, NULL), *b = speed_samples(n, gb, NULL);

	assert_true(pa && pb);
	if (a_first) {
		place_rounds(a, b, a_first, n, pa, pb);
	} else {
		for (size_t i = 0; i < n; i++) {
			pa[i] = &a[i];
			pb[i] = &b[i];
		}
	}
	assert_int_equal(stats_table_build(pa, n, pb, n, o, t), 0);
	free_samples(a, n);
	free_samples(b, n);
	free(pa);
	free(pb);
}

/* Two labels of n samples from speed_samples (headlines g), their
 * pointer arrays, and the default options. */
struct two_labels {
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	size_t n;
	struct stats_table_opts o;
};

static void two_labels_init(struct two_labels *l, size_t n, const double *g)
{
	assert_true(n <= 8);
	l->n = n;
	l->a = speed_samples(n, g, NULL);
	l->b = speed_samples(n, g, NULL);
	for (size_t i = 0; i < n; i++) {
		l->pa[i] = &l->a[i];
		l->pb[i] = &l->b[i];
	}
	stats_table_opts_init(&l->o);
}

static void two_labels_release(struct two_labels *l)
{
	free_samples(l->a, l->n);
	free_samples(l->b, l->n);
}

/* Whether the table shows the metric (the rows not shown leave it). */
static bool row_shown(const struct stats_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return t->rows[i].shown;
	return false;
}

/*
 * The other metrics' floors go by what a figure is: events counted (count,
 * seg, msg) must move 100 a run, a share in % one point, and figures of
 * any other unit (op/us, ns, s) 2%, as the per-unit ones. Each of these
 * moved beyond doubt (6 against 6, no overlap).
 */
static void test_other_metrics_held_to_their_unit_floor(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	static const struct {
		const char *name, *unit;
		double a, b;
		bool shown;
	} m[] = {
		{ "tcp.busy_pct", "%", 99.5, 60, true },      /* 39.5 points */
		{ "tcp.rwnd_limited_pct", "%", 0.02, 0.5, false }, /* under a point */
		{ "host.speed", "op/us", 870, 800, true },    /* -8% */
		{ "host.xcpu_ns", "ns", 85, 120, true },      /* +41% */
		{ "tasks.ksoftirqd_s", "s", 0.1, 0.9, true },
		{ "host.speed.core", "op/us", 880, 879, false }, /* -0.1% */
		{ "snmp.Tcp.RetransSegs", "count", 2, 15, false }, /* 13 a run */
		{ "tcp.dsack_dups", "seg", 20, 400, true },   /* 380 a run */
	};
	struct two_labels l;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++)
		for (size_t k = 0; k < ARRAY_SIZE(m); k++) {
			double d = 1e-4 * (double)i * m[k].a; /* no overlap */

			assert_int_equal(base_sample_set(&l.a[i], m[k].name, m[k].unit, m[k].a + d), 0);
			assert_int_equal(base_sample_set(&l.b[i], m[k].name, m[k].unit, m[k].b + d), 0);
		}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	for (size_t k = 0; k < ARRAY_SIZE(m); k++)
		if (row_shown(&t, m[k].name) != m[k].shown)
			fail_msg("%s: shown %d, expected %d", m[k].name, !m[k].shown, m[k].shown);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * A metric that read the same in every sample of both labels (a counter
 * that stayed 0) could not tell them apart and stays out of the others'
 * BH family: 30 such beside one that moved beyond doubt (6 against 6, no
 * overlap: p = 2/924) leave its q at its p, where a family of 31 would
 * have made it 0.067 and hidden it. One that moved in a single sample
 * stays out too (no split of eleven 0s and a 1 reaches p < 0.05: both
 * ends have 462 of the 924 ways), nor one that moved in four (28 ways
 * to the four 1s on one side: 2 x 28 / 924 = 0.061), and one that moved
 * in five, in either label, joins (7 ways: p = 0.015).
 */
static void test_metrics_the_same_everywhere_not_in_the_family(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct stats_table t;
	char name[64];

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(base_sample_set(&l.a[i], "tcp.busy_pct", "%", 99 + 0.1 * (double)i), 0);
		assert_int_equal(base_sample_set(&l.b[i], "tcp.busy_pct", "%", 60 + 0.1 * (double)i), 0);
		for (int k = 0; k < 30; k++) {
			snprintf(name, sizeof(name), "snmp.Icmp.Zero%d", k);
			assert_int_equal(base_sample_set(&l.a[i], name, "count", 0), 0);
			assert_int_equal(base_sample_set(&l.b[i], name, "count", 0), 0);
		}
	}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	assert_true(row_shown(&t, "tcp.busy_pct"));
	for (size_t i = 0; i < t.nrows; i++)
		if (!strcmp(t.rows[i].metric, "tcp.busy_pct"))
			assert_float_equal(t.rows[i].q, 2.0 / 924, 1e-9);
	stats_table_release(&t);
	/* one counter that moved once stays out */
	assert_int_equal(base_sample_set(&l.b[5], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	stats_table_release(&t);
	/* moved in four, two of them in A: out */
	assert_int_equal(base_sample_set(&l.b[4], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(base_sample_set(&l.a[0], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(base_sample_set(&l.a[3], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	stats_table_release(&t);
	/* in five joins the family: q = p x 2 */
	assert_int_equal(base_sample_set(&l.a[1], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 2);
	assert_float_equal(t.alpha, 0.05, 0);
	for (size_t i = 0; i < t.nrows; i++)
		if (!strcmp(t.rows[i].metric, "tcp.busy_pct"))
			assert_float_equal(t.rows[i].q, 2 * 2.0 / 924, 1e-9);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Samples that straddle a change of a metric's definition (some with the
 * metric the new one came with, some without) get a note naming it, with
 * the counts a side, disturbed samples included; none when every sample,
 * or none, was measured the new way.
 */
static void test_redefined_metrics_noted_where_samples_straddle(void **state)
{
	static const double g[4] = { 10, 10.1, 9.9, 10 };
	struct two_labels l;
	struct base_sample *a, *b;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 4, g);
	a = l.a;
	b = l.b;
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 0);
	stats_table_release(&t);
	/* B measured the new way, one of its samples disturbed */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(base_sample_set(&b[i], "cpu.client.busy_ticks_pct", "%", 30), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_tasks_pct", "%", i == 3 ? 40 : 0.2), 0);
		assert_int_equal(base_sample_set(&b[i], "window.starved", "", 0), 0);
		assert_int_equal(base_sample_set(&b[i], "window.trend_rho", "", 0.4), 0);
	}
	assert_int_equal(base_sample_set(&b[3], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[2], "cpu.foreign_tasks_pct", "%", 0.1), 0);
	assert_int_equal(base_sample_set(&a[1], "window.starved", "", 0), 0);
	assert_int_equal(base_sample_set(&a[2], "window.starved", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 4);
	assert_string_equal(t.notes.redef[0].marker, "cpu.client.busy_ticks_pct");
	assert_non_null(strstr(t.notes.redef[0].what, "busy_pct"));
	assert_int_equal(t.notes.redef[0].a, 0);
	assert_int_equal(t.notes.redef[0].na, 4);
	assert_int_equal(t.notes.redef[0].b, 4);
	assert_int_equal(t.notes.redef[0].nb, 4);
	assert_string_equal(t.notes.redef[1].marker, "cpu.foreign_tasks_pct");
	assert_non_null(strstr(t.notes.redef[1].what, "window.disturbed"));
	assert_int_equal(t.notes.redef[1].a, 1);
	assert_int_equal(t.notes.redef[1].b, 4);
	/* a worker kept from its CPU flags a sample: a third definition */
	assert_string_equal(t.notes.redef[2].marker, "window.starved");
	assert_non_null(strstr(t.notes.redef[2].what, "window.disturbed is also raised by a worker kept from its CPU"));
	assert_int_equal(t.notes.redef[2].a, 2);
	assert_int_equal(t.notes.redef[2].b, 4);
	/* the trend test widened for persistence: a fourth */
	assert_string_equal(t.notes.redef[3].marker, "window.trend_rho");
	assert_non_null(strstr(t.notes.redef[3].what, "window.not_steady"));
	assert_int_equal(t.notes.redef[3].a, 0);
	assert_int_equal(t.notes.redef[3].b, 4);
	stats_table_release(&t);
	/* every sample the new way: nothing to say */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(base_sample_set(&a[i], "cpu.client.busy_ticks_pct", "%", 30), 0);
		assert_int_equal(base_sample_set(&a[i], "cpu.foreign_tasks_pct", "%", 0.1), 0);
		assert_int_equal(base_sample_set(&a[i], "window.starved", "", 0), 0);
		assert_int_equal(base_sample_set(&a[i], "window.trend_rho", "", 0.6), 0);
	}
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 0);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Of the samples left out as disturbed, those whose foreign CPU was mostly
 * other processes are counted, and the busiest process of the one they
 * held most is kept (the ended ones by name), with what a report could
 * misread made '?'.
 */
static void test_disturbed_samples_counted_with_other_processes(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct base_sample *a, *b;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	a = l.a;
	b = l.b;
	/* a: one by a compiler (the ticks saw less of it), one by the host */
	assert_int_equal(base_sample_set(&a[1], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[1], "cpu.foreign_busy_pct", "%", 11), 0);
	assert_int_equal(base_sample_set(&a[1], "cpu.foreign_tasks_pct", "%", 12), 0);
	assert_int_equal(base_sample_env(&a[1], "client.collect.tasks.top", "%s", "cc1[300] 1.200 s, make[299] 0.100 s"), 0);
	assert_int_equal(base_sample_set(&a[4], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_busy_pct", "%", 25), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_steal_pct", "%", 20), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_tasks_pct", "%", 2), 0);
	assert_int_equal(base_sample_env(&a[4], "client.collect.tasks.top", "%s", "sshd[801] 0.200 s"), 0);
	/* b: one by a process with an odd name, more of the machine */
	assert_int_equal(base_sample_set(&b[2], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&b[2], "cpu.foreign_busy_pct", "%", 4), 0);
	assert_int_equal(base_sample_set(&b[2], "cpu.foreign_tasks_pct", "%", 30), 0);
	assert_int_equal(base_sample_env(&b[2], "client.collect.tasks.top", "%s", "stress ng<x>[77] 3.000 s"), 0);
	/* a's compiler also kept a worker from its CPU; b[3] starved, not disturbed: kept */
	assert_int_equal(base_sample_set(&a[1], "window.starved", "", 1), 0);
	assert_int_equal(base_sample_set(&a[4], "window.starved", "", 0), 0);
	assert_int_equal(base_sample_set(&b[3], "window.starved", "", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_a, 2);
	assert_int_equal(t.notes.disturbed_b, 1);
	assert_int_equal(t.notes.disturbed_steal_a, 1);
	assert_int_equal(t.notes.disturbed_procs_a, 1);
	assert_int_equal(t.notes.disturbed_procs_b, 1);
	assert_int_equal(t.notes.disturbed_starved_a, 1);
	assert_int_equal(t.notes.disturbed_starved_b, 0);
	assert_string_equal(t.notes.disturbed_busiest, "stress ng?x?[77]");
	stats_table_release(&t);
	/* without b's, a's compiler is the busiest */
	assert_int_equal(base_sample_set(&b[2], "window.disturbed", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_procs_b, 0);
	assert_string_equal(t.notes.disturbed_busiest, "cc1[300]");
	stats_table_release(&t);
	/* the processes that ended in the window, by name, or one alone,
	 * each in a sample they held more than the last */
	static const struct {
		size_t i;
		double pct;
		const char *top, *busiest;
	} ended[] = {
		{ 2, 39, "true (3683 ended) 2.307 s, bash[16893] 0.472 s", "true (3683 ended)" },
		{ 3, 49, "sh[4968, ended] 0.490 s", "sh[4968, ended]" },
	};
	for (size_t k = 0; k < sizeof(ended) / sizeof(ended[0]); k++) {
		struct base_sample *e = &a[ended[k].i];

		assert_int_equal(base_sample_set(e, "window.disturbed", "", 1), 0);
		assert_int_equal(base_sample_set(e, "cpu.foreign_busy_pct", "%", ended[k].pct + 1), 0);
		assert_int_equal(base_sample_set(e, "cpu.foreign_tasks_pct", "%", ended[k].pct), 0);
		assert_int_equal(base_sample_env(e, "client.collect.tasks.top", "%s", ended[k].top), 0);
		assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
		assert_string_equal(t.notes.disturbed_busiest, ended[k].busiest);
		stats_table_release(&t);
	}
	l.o.keep_disturbed = true;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_procs_a, 0);
	assert_int_equal(t.notes.disturbed_starved_a, 0);
	assert_string_equal(t.notes.disturbed_busiest, "");
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * A side whose every sample was flagged disturbed keeps them all (it would
 * have none) and the note counts them; with one clean sample the others
 * are left out as ever, and --keep-disturbed pools them with no note.
 */
static void test_all_disturbed_side_is_compared_and_noted(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(base_sample_set(&l.b[i], "window.disturbed", "", 1), 0);
		assert_int_equal(base_sample_set(&l.b[i], "cpu.foreign_busy_pct", "%", 20), 0);
	}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_a, 0);
	assert_int_equal(t.notes.all_disturbed_b, 6);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(stats_table_headline(&t)->c.nb, 6);
	assert_true(stats_notes_any(&t.notes));
	stats_table_release(&t);

	assert_int_equal(base_sample_set(&l.b[3], "window.disturbed", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_b, 5);
	assert_int_equal(stats_table_headline(&t)->c.nb, 1);
	stats_table_release(&t);

	assert_int_equal(base_sample_set(&l.b[3], "window.disturbed", "", 1), 0);
	l.o.keep_disturbed = true;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(stats_table_headline(&t)->c.nb, 6);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Samples flagged disturbed are left out and counted, and so are those of
 * them whose foreign CPU was mostly the host's steal, on whichever end had
 * more of it, or that the host's steal on the test's CPUs flagged
 * (window.stolen); --keep-disturbed pools them and counts none.
 */
static void test_disturbed_samples_counted_with_the_hosts_steal(void **state)
{
	static const double ga[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 }, gb[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	/* foreign, steal; server foreign, server steal (-1: none) */
	static const double fb[6][4] = {
		{ 0, 0, -1, -1 }, { 0, 0, -1, -1 }, { 30, 25, -1, -1 }, { 30, 5, -1, -1 },
		{ 12, 0, 40, 30 }, { 0, 0, -1, -1 },
	};
	struct base_sample *a = speed_samples(6, ga, NULL), *b = speed_samples(6, gb, NULL);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	stats_table_opts_init(&o);
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		assert_int_equal(base_sample_set(&b[i], "window.disturbed", "", fb[i][0] > 10), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_busy_pct", "%", fb[i][0]), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_steal_pct", "%", fb[i][1]), 0);
		if (fb[i][2] >= 0) {
			assert_int_equal(base_sample_set(&b[i], "cpu.server.foreign_busy_pct", "%", fb[i][2]), 0);
			assert_int_equal(base_sample_set(&b[i], "cpu.server.foreign_steal_pct", "%", fb[i][3]), 0);
		}
	}
	/* a stream's 3.5% foreign, 0.5 of it steal, but 2.4% of the
	 * window stolen from its two CPUs */
	assert_int_equal(base_sample_set(&b[5], "cpu.foreign_busy_pct", "%", 3.5), 0);
	assert_int_equal(base_sample_set(&b[5], "cpu.foreign_steal_pct", "%", 0.5), 0);
	assert_int_equal(base_sample_set(&b[5], "window.stolen", "", 1), 0);
	assert_int_equal(base_sample_set(&b[5], "window.disturbed", "", 1), 0);
	/* stolen too, but 6 of its 8 points were other processes */
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_busy_pct", "%", 8), 0);
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_steal_pct", "%", 1), 0);
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_tasks_pct", "%", 6), 0);
	assert_int_equal(base_sample_set(&b[1], "window.stolen", "", 1), 0);
	assert_int_equal(base_sample_set(&b[1], "window.disturbed", "", 1), 0);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.disturbed_a, 0);
	assert_int_equal(t.notes.disturbed_b, 5);
	/* 25 of 30 on the client; 30 of the server's 40; the stolen one
	 * that other processes did not mostly take */
	assert_int_equal(t.notes.disturbed_steal_b, 3);
	assert_int_equal(t.notes.disturbed_procs_b, 1);
	assert_int_equal(t.notes.disturbed_steal_a, 0);
	stats_table_release(&t);
	o.keep_disturbed = true;
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_steal_b, 0);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
}

/*
 * Many configurations compared at once, 6 samples a side, 5% noise. With
 * no change anywhere, the rank test at 5% called a regression somewhere
 * in 104 of 200 sets of 40 configurations; over the family
 * (stats_tables_fdr) in 3. With B 10% slower in a corner of 10 of the 40,
 * the family called 1038 of those 2000 (each alone: 1729), and 19 of the
 * 6000 others. A table alone is as it was.
 */
static void test_tables_fdr_calls_a_matrix_clean_and_keeps_a_corner(void **state)
{
	enum { SETS = 200, CONFIGS = 40, CORNER = 10, N = 6 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t any_raw = 0, any_fdr = 0, corner_raw = 0, corner_called = 0, elsewhere_called = 0;
	size_t notes = 0;

	(void)state;
	gsl_rng_set(rng, 20261203);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			struct stats_table t[CONFIGS], *tp[CONFIGS];
			struct stats_table_opts o;
			bool raw = false, fdr = false;

			stats_table_opts_init(&o);
			for (int c = 0; c < CONFIGS; c++) {
				double ga[N], gb[N];
				double f = change && c < CORNER ? 0.90 : 1;

				for (int i = 0; i < N; i++) {
					ga[i] = 30 * exp(gsl_ran_gaussian(rng, 0.05));
					gb[i] = 30 * f * exp(gsl_ran_gaussian(rng, 0.05));
				}
				table_of(ga, gb, N, NULL, &o, &t[c]);
				raw |= t[c].regressed;
				corner_raw += change && c < CORNER && t[c].regressed;
				tp[c] = &t[c];
			}
			assert_int_equal(stats_tables_fdr(tp, CONFIGS, &o), 0);
			for (int c = 0; c < CONFIGS; c++) {
				const struct stats_row *h = &t[c].rows[0];

				assert_true(h->headline);
				assert_int_equal(t[c].notes.fdr_n, CONFIGS);
				assert_true(h->q >= h->c.p);
				assert_true(t[c].regressed == (h->c.verdict == STATS_REGRESSION));
				assert_true(!t[c].regressed || h->q < o.cmp.alpha);
				if (t[c].notes.fdr_downgraded) {
					notes++;
					assert_true(h->c.p < o.cmp.alpha && h->q >= o.cmp.alpha);
					assert_true(h->c.verdict == STATS_SAME ||
						    h->c.verdict == STATS_INCONCLUSIVE);
				}
				fdr |= t[c].regressed;
				if (change && c < CORNER)
					corner_called += t[c].regressed;
				else if (change)
					elsewhere_called += t[c].regressed;
				stats_table_release(&t[c]);
			}
			if (!change) {
				any_raw += raw;
				any_fdr += fdr;
			}
		}
	print_message("A/A over %d configurations, %d sets: a regression somewhere in %zu sets, in %zu over the family; corner of %d at -10%%: %zu of %d called alone, %zu over the family, %zu elsewhere; %zu downgrade notes\n",
		      CONFIGS, SETS, any_raw, any_fdr, CORNER, corner_raw, SETS * CORNER,
		      corner_called, elsewhere_called, notes);
	assert_true(any_raw > SETS / 3);
	assert_true(any_fdr <= SETS / 20);
	assert_true(corner_called > SETS * CORNER * 2 / 5);
	assert_true(elsewhere_called <= SETS * (CONFIGS - CORNER) / 100);
	assert_true(notes > 0);
	/* one table: nothing to adjust */
	{
		const double ga[N] = { 30, 31, 29, 30, 32, 31 }, gb[N] = { 25, 26, 24, 25, 26, 25 };
		struct stats_table one, *op = &one;
		struct stats_table_opts o;

		stats_table_opts_init(&o);
		table_of(ga, gb, N, NULL, &o, &one);
		assert_true(one.regressed);
		assert_int_equal(stats_tables_fdr(&op, 1, &o), 0);
		assert_true(one.regressed);
		assert_int_equal(one.notes.fdr_n, 0);
		stats_table_release(&one);
	}
	gsl_rng_free(rng);
}

/*
 * The .paired rows of many configurations are a family of their own: over
 * 100 sets of 20 configurations of interleaved rounds with no change, the
 * crossover's t at 5% called a regression somewhere in 21 sets, the family
 * in 1; a paired row it does not call says no runs needed (its ratios'
 * spread is not kept), and paired_regressed follows its verdict.
 */
static void test_tables_fdr_takes_the_paired_rows_as_a_family(void **state)
{
	enum { SETS = 100, CONFIGS = 20, ROUNDS = 8 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t any_raw = 0, any_fdr = 0, down = 0;

	(void)state;
	gsl_rng_set(rng, 20261204);
	for (int set = 0; set < SETS; set++) {
		struct stats_table t[CONFIGS], *tp[CONFIGS];
		struct stats_table_opts o;
		bool raw = false, fdr = false;

		stats_table_opts_init(&o);
		for (int c = 0; c < CONFIGS; c++) {
			double ga[ROUNDS], gb[ROUNDS];
			bool af[ROUNDS];

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				ga[r] = level * exp(gsl_ran_gaussian(rng, 0.02));
				gb[r] = level * exp(gsl_ran_gaussian(rng, 0.02));
				af[r] = r % 2;
			}
			table_of(ga, gb, ROUNDS, af, &o, &t[c]);
			raw |= t[c].paired_regressed;
			tp[c] = &t[c];
		}
		assert_int_equal(stats_tables_fdr(tp, CONFIGS, &o), 0);
		for (int c = 0; c < CONFIGS; c++) {
			const struct stats_row *pr = paired_of(&t[c]);

			assert_true(pr->q >= pr->c.p);
			assert_int_equal(pr->fdr_n, CONFIGS);
			assert_true(t[c].paired_regressed == (pr->c.verdict == STATS_REGRESSION));
			/* a call taken back is marked, for its note */
			if (pr->fdr_downgraded)
				assert_true(pr->c.p < o.cmp.alpha && pr->q >= o.cmp.alpha &&
					    (pr->c.verdict == STATS_INCONCLUSIVE || pr->c.verdict == STATS_SAME));
			if (pr->c.p < o.cmp.alpha && pr->q >= o.cmp.alpha &&
			    fabs(pr->c.shift_pct) >= o.cmp.min_change_pct) {
				down++;
				assert_true(pr->fdr_downgraded);
				assert_int_equal(pr->c.verdict, STATS_INCONCLUSIVE);
				assert_int_equal(pr->c.runs_needed, 0);
			}
			fdr |= t[c].paired_regressed;
			stats_table_release(&t[c]);
		}
		any_raw += raw;
		any_fdr += fdr;
	}
	print_message("paired rows, %d sets of %d configurations, no change: a regression somewhere in %zu sets, in %zu over the family; %zu rows not called\n",
		      SETS, CONFIGS, any_raw, any_fdr, down);
	assert_true(any_raw >= SETS / 10);
	assert_true(any_fdr <= SETS / 20);
	assert_true(down > 0);
	gsl_rng_free(rng);
}

/* A verdict that calls a change, minor ones too. */
static bool calls_change(enum stats_verdict_kind v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT || v == STATS_MINOR;
}

/*
 * Rounds of an interleaved matrix on a machine whose level drifts by 10%
 * (sd) from one round to the next, 1% within a round: A and B once per
 * round, in an order drawn per round. With B 3% slower the paired row
 * calls a regression where the rank test over all runs mostly cannot;
 * with no change it calls one no more often than its alpha. Runs of B
 * after all of A's pair once, samples that all started at once not at
 * all: no row.
 */
static void test_table_paired_row_takes_out_what_drifted_between_rounds(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int paired_called[2] = { 0 }, raw_called[2] = { 0 };
	enum { SETS = 200, ROUNDS = 8 };

	(void)state;
	gsl_rng_set(rng, 20261202);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			const struct base_sample *pa[ROUNDS], *pb[ROUNDS];
			double ga[ROUNDS], gb[ROUNDS];
			struct base_sample *a, *b;
			struct stats_table_opts o;
			struct stats_table t;
			const struct stats_row *pr;
			bool af[ROUNDS];
			size_t a_first = 0;

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				ga[r] = level * exp(gsl_ran_gaussian(rng, 0.01));
				gb[r] = level * (change ? 0.97 : 1) * exp(gsl_ran_gaussian(rng, 0.01));
			}
			a = speed_samples(ROUNDS, ga, NULL);
			b = speed_samples(ROUNDS, gb, NULL);
			for (int r = 0; r < ROUNDS; r++) {
				af[r] = !(gsl_rng_uniform(rng) < 0.5);
				a_first += af[r];
			}
			place_rounds(a, b, af, ROUNDS, pa, pb);
			stats_table_opts_init(&o);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			pr = paired_of(&t);
			assert_string_equal(pr->metric, "throughput.gbps.paired");
			assert_int_equal(t.notes.pairs, ROUNDS);
			assert_int_equal(t.notes.unpaired, 0);
			assert_int_equal(t.notes.pairs_a_first, a_first);
			assert_int_equal(pr->c.na, ROUNDS);
			assert_true(pr->c.shift_lo_pct <= pr->c.shift_pct &&
				    pr->c.shift_pct <= pr->c.shift_hi_pct);
			assert_int_equal(t.paired_regressed, pr->c.verdict == STATS_REGRESSION);
			paired_called[change] += calls_change(pr->c.verdict);
			raw_called[change] += calls_change(t.rows[0].c.verdict);
			stats_table_release(&t);

			/* A first in every round, as runs by hand in a fixed
			 * order go: the same pairs, all in one order */
			for (int r = 0; r < ROUNDS; r++)
				af[r] = true;
			place_rounds(a, b, af, ROUNDS, pa, pb);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			assert_int_equal(t.notes.pairs, ROUNDS);
			assert_int_equal(t.notes.pairs_a_first, ROUNDS);
			stats_table_release(&t);

			/* all of B after all of A: one pair, no row */
			for (int r = 0; r < ROUNDS; r++) {
				a[r].wall_start_ns = r * NS_PER_S;
				b[r].wall_start_ns = (ROUNDS + r) * NS_PER_S;
			}
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			for (size_t i = 0; i < t.nrows; i++)
				assert_false(t.rows[i].paired);
			assert_int_equal(t.notes.pairs, 0);
			assert_false(t.paired_regressed);
			stats_table_release(&t);
			/* copies of one sample, all started at once: no order, no pairs */
			for (int r = 0; r < ROUNDS; r++)
				a[r].wall_start_ns = b[r].wall_start_ns = NS_PER_S;
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			assert_int_equal(t.notes.pairs, 0);
			stats_table_release(&t);
			free_samples(a, ROUNDS);
			free_samples(b, ROUNDS);
		}
	print_message("rounds drifting 10%%, %d sets of %d pairs: no change: paired row called one in %d, rank test in %d; B 3%% slower: paired %d, rank test %d\n",
		      SETS, ROUNDS, paired_called[0], raw_called[0], paired_called[1], raw_called[1]);
	assert_true(paired_called[0] <= SETS / 20 + 6);
	assert_true(paired_called[1] >= SETS * 8 / 10);
	assert_true(raw_called[1] <= SETS * 3 / 10);
	gsl_rng_free(rng);
}

/*
 * The same rounds when the second run of a pair reads 5% higher than the
 * first (what it left behind), the order drawn per round: the row, a 2 x 2
 * crossover when it has pairs of both orders, estimates that effect, keeps
 * its false calls near alpha with no change, and finds B 3% slower far
 * more often than the paired t that ignores the order.
 */
static void test_table_paired_row_is_a_crossover(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int called[2] = { 0 }, plain[2] = { 0 }, crossed = 0;
	double period_sum = 0;
	enum { SETS = 200, ROUNDS = 8 };

	(void)state;
	gsl_rng_set(rng, 20261203);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			const struct base_sample *pa[ROUNDS], *pb[ROUNDS];
			double ga[ROUNDS], gb[ROUNDS];
			struct base_sample *a, *b;
			struct stats_table_opts o;
			struct stats_compare pc;
			struct stats_table t;
			const struct stats_row *pr;
			bool first[ROUNDS];

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				first[r] = gsl_rng_uniform(rng) < 0.5; /* A first */
				ga[r] = level * (first[r] ? 1 : 1.05) * exp(gsl_ran_gaussian(rng, 0.01));
				gb[r] = level * (change ? 0.97 : 1) * (first[r] ? 1.05 : 1) *
					exp(gsl_ran_gaussian(rng, 0.01));
			}
			a = speed_samples(ROUNDS, ga, NULL);
			b = speed_samples(ROUNDS, gb, NULL);
			place_rounds(a, b, first, ROUNDS, pa, pb);
			stats_table_opts_init(&o);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			pr = paired_of(&t);
			if (t.notes.period_tested) {
				crossed++;
				period_sum += t.notes.period_pct;
				assert_true(t.notes.period_lo_pct <= t.notes.period_pct &&
					    t.notes.period_pct <= t.notes.period_hi_pct);
			}
			called[change] += calls_change(pr->c.verdict);
			assert_int_equal(stats_compare_paired(ga, gb, ROUNDS, STATS_HIGHER, &o.cmp, &pc), 0);
			plain[change] += calls_change(pc.verdict);
			stats_table_release(&t);
			free_samples(a, ROUNDS);
			free_samples(b, ROUNDS);
		}
	print_message("second run +5%%, %d sets of %d rounds: crossover in %d; no change: row called one in %d, paired t in %d; B 3%% slower: row %d, paired t %d; mean period %.2f%%\n",
		      SETS, ROUNDS, crossed, called[0], plain[0], called[1], plain[1],
		      period_sum / crossed);
	assert_true(crossed >= 2 * SETS * 95 / 100);
	assert_true(fabs(period_sum / crossed - 5) < 0.5);
	assert_true(called[0] <= SETS / 20 + 6);
	assert_true(called[1] >= SETS * 9 / 10);
	assert_true(called[1] > plain[1] + SETS / 10);
	gsl_rng_free(rng);
}

/* Per second from per unit: only a figure per unit of its own headline. */
static void test_per_second_scale_of_a_figure_per_unit(void **state)
{
	(void)state;
	assert_float_equal(stats_per_second_scale("irq.CAL.per_mb", "throughput.gbps"), 125, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_trans", "transactions.per_s"), 1, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_trans", "throughput.gbps"), 0, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_mb", "transactions.per_s"), 0, 0);
	assert_float_equal(stats_per_second_scale("snmp.Tcp.OutSegs.per_write", "throughput.gbps"), 0, 0);
	assert_float_equal(stats_per_second_scale(".per_mb", "throughput.gbps"), 0, 0);
}

static void test_table_notes_a_host_speed_change(void **state)
{
	/* B's throughput is 10% lower, and so was the host's speed */
	static const double ga[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	static const double gb[] = { 27.1, 26.9, 27.3, 27.0, 26.8, 27.2 };
	static const double sa[] = { 601, 598, 603, 600, 599, 602 };
	static const double sb[] = { 541, 539, 542, 540, 538, 543 };
	static const double same[] = { 600, 602, 598, 601, 599, 603 };
	struct base_sample *a = speed_samples(6, ga, sa), *b = speed_samples(6, gb, sb);
	struct base_sample *c = speed_samples(6, gb, same), *d = speed_samples(6, gb, NULL);
	const struct base_sample *pa[6], *pb[6], *pc[6], *pd[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
		pd[i] = &d[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.regressed);
	assert_true(t.notes.speed_changed);
	/* 540 / 600: -10%, the interval around it, exact p of 6 vs 6 with
	 * no overlap, 2 / C(12, 6) = 0.00216 */
	assert_true(t.notes.speed_shift_pct < -9 && t.notes.speed_shift_pct > -11);
	assert_true(t.notes.speed_lo_pct <= t.notes.speed_shift_pct &&
		    t.notes.speed_shift_pct <= t.notes.speed_hi_pct);
	assert_float_equal(t.notes.speed_p, 2.0 / 924, 1e-9);
	assert_false(t.notes.builds_differ);
	stats_table_release(&t);
	/* measured by another build of netregress: the note says the probe's
	 * unit may be the build's */
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(base_sample_env(&b[i], "client.build", "%s", "git 0123456789ab"), 0);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.builds_differ);
	stats_table_release(&t);
	/* the same speed on both sides: the regression stands alone */
	assert_int_equal(stats_table_build(pa, 6, pc, 6, &o, &t), 0);
	assert_true(t.regressed);
	assert_false(t.notes.speed_changed);
	stats_table_release(&t);
	/* one side without the probe: nothing to say */
	assert_int_equal(stats_table_build(pa, 6, pd, 6, &o, &t), 0);
	assert_false(t.notes.speed_changed);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
	free_samples(c, 6);
	free_samples(d, 6);
}

/* speed_samples with the probe's core pace too. */
static struct base_sample *core_samples(size_t n, const double *gbps, const double *speed,
					const double *core)
{
	struct base_sample *s = speed_samples(n, gbps, speed);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(base_sample_set(&s[i], "host.speed.core", "op/us", core[i]), 0);
	return s;
}

static void test_table_speed_note_says_whether_the_core_moved(void **state)
{
	/* host.speed 10% lower in B: with the core's pace held, the time went
	 * to interruptions (the guest's softirqs take it as well as the host);
	 * with the core 10% slower, the host's clock moved */
	static const double ga[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	static const double gb[] = { 27.1, 26.9, 27.3, 27.0, 26.8, 27.2 };
	static const double sa[] = { 601, 598, 603, 600, 599, 602 };
	static const double sb[] = { 541, 539, 542, 540, 538, 543 };
	static const double ca[] = { 700, 701, 699, 702, 700, 698 };
	static const double held[] = { 701, 699, 700, 698, 702, 700 };
	static const double slow[] = { 630, 631, 629, 632, 630, 628 };
	struct base_sample *a = core_samples(6, ga, sa, ca), *b = core_samples(6, gb, sb, held);
	struct base_sample *c = core_samples(6, gb, sb, slow);
	const struct base_sample *pa[6], *pb[6], *pc[6];
	struct stats_table_opts o;
	struct stats_table t;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.speed_core_known);
	assert_false(t.notes.speed_core_changed);
	assert_true(fabs(t.notes.speed_core_shift_pct) < 0.5 && t.notes.speed_core_p > 0.05);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_compare_table(out, &t, "A", "B", NULL);
	fclose(out);
	assert_non_null(strstr(text, "(host.speed.core) held"));
	assert_non_null(strstr(text, "need not be the host's"));
	free(text);
	stats_table_release(&t);
	assert_int_equal(stats_table_build(pa, 6, pc, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.speed_core_known && t.notes.speed_core_changed);
	assert_true(t.notes.speed_core_shift_pct < -9 && t.notes.speed_core_shift_pct > -11);
	assert_true(t.notes.speed_core_lo_pct <= t.notes.speed_core_shift_pct &&
		    t.notes.speed_core_shift_pct <= t.notes.speed_core_hi_pct);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_compare_table(out, &t, "A", "B", NULL);
	fclose(out);
	assert_non_null(strstr(text, "(host.speed.core) moved -"));
	assert_non_null(strstr(text, "may be the host's"));
	free(text);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
	free_samples(c, 6);
}

static void test_table_counts_mixed_windows_and_their_widest_gap(void **state)
{
	static const double g[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	struct base_sample *a = speed_samples(6, g, NULL), *b = speed_samples(6, g, NULL);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		/* A: samples 1 and 4 mixed, 80-104 % and 75-110 %; sample 2 had
		 * two levels without coming back, which does not count */
		assert_int_equal(base_sample_set(&a[i], "window.mixed", "", i == 1 || i == 4), 0);
		assert_int_equal(base_sample_set(&a[i], "window.level_lo_pct", "%",
						 i == 1 ? 80 : i == 4 ? 75 : i == 2 ? 60 : 100), 0);
		assert_int_equal(base_sample_set(&a[i], "window.level_hi_pct", "%",
						 i == 1 ? 104 : i == 4 ? 110 : i == 2 ? 120 : 100), 0);
		assert_int_equal(base_sample_set(&b[i], "window.mixed", "", 0), 0);
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.mixed_a, 2);
	assert_int_equal(t.notes.mixed_b, 0);
	assert_float_equal(t.notes.mixed_gap_a, 35, 1e-9);
	assert_float_equal(t.notes.mixed_gap_b, 0, 1e-9);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
}

/*
 * Loopback figures at two distances between the test's vCPUs, as on the
 * EPYC guest: 120 ns and 450 ns, the rate falling as (x / 120)^-0.45, with
 * a fixed +-3% wobble that does not follow x. k: the rate at 120 ns.
 */
static void placed(double k, const double *x, size_t n, double *y)
{
	static const double wobble[] = { 0.02, -0.03, 0.01, 0.03, -0.01, -0.02, 0.0, 0.015 };

	for (size_t i = 0; i < n; i++)
		y[i] = k * pow(x[i] / 120, -0.45) * (1 + wobble[i % 8]);
}

static void test_adjust_log_takes_out_what_went_with_the_distance(void **state)
{
	/* A half near and half far; B 10% slower at every distance, and far
	 * in 6 of its 8 samples */
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	double ya[8], yb[8], aa[8], ab[8], mean_a = 0, mean_b = 0, ref, ref8[8];
	struct stats_adjust ad;

	(void)state;
	placed(30, xa, 8, ya);
	placed(27, xb, 8, yb);
	assert_int_equal(stats_adjust_log(ya, xa, 8, yb, xb, 8, aa, ab, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.03);
	assert_true(ad.slope_p < 1e-6 && ad.r2 > 0.9);
	/* the geometric mean of every x */
	ref = 0;
	for (int i = 0; i < 8; i++)
		ref += log(xa[i]) + log(xb[i]);
	assert_float_equal(ad.x_ref, exp(ref / 16), 1e-6);
	/* moved to x_ref, each side is its own rate there, +- its wobble */
	for (int i = 0; i < 8; i++) {
		assert_float_equal(aa[i] / (30 * pow(ad.x_ref / 120, -0.45)), 1, 0.05);
		assert_float_equal(ab[i] / (27 * pow(ad.x_ref / 120, -0.45)), 1, 0.05);
		mean_a += aa[i] / 8;
		mean_b += ab[i] / 8;
	}
	assert_float_equal(mean_b / mean_a, 0.9, 0.02);
	/* the slope's interval: +- t(13) standard errors */
	assert_true(fabs(ad.slope_hi - ad.slope - gsl_cdf_tdist_Pinv(0.975, 13) * ad.slope_se) < 1e-12);
	assert_true(fabs((ad.slope - ad.slope_lo) - (ad.slope_hi - ad.slope)) < 1e-12);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	/* moved along the fitted slope by hand: the same figures */
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, ad.x_ref, ref8), 0);
	for (int i = 0; i < 8; i++)
		assert_true(fabs(ref8[i] - aa[i]) < 1e-9 * aa[i]);
	/* along slope 0 nothing moves; a slope that overflows; bad input */
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, 0, ad.x_ref, ref8), 0);
	for (int i = 0; i < 8; i++)
		assert_true(fabs(ref8[i] - ya[i]) < 1e-12 * ya[i]);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, -1e6, ad.x_ref, ref8), -ERANGE);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, NAN, ad.x_ref, ref8), -EINVAL);
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, 0, ref8), -EINVAL);
	assert_int_equal(stats_adjust_log_at(ya, NULL, 8, ad.slope, ad.x_ref, ref8), -EINVAL);
	ya[3] = -1;
	assert_int_equal(stats_adjust_log_at(ya, xa, 8, ad.slope, ad.x_ref, ref8), -EINVAL);
}

static void test_adjust_log_leaves_alone_what_it_cannot_separate(void **state)
{
	/* A all near, B all far: the distance moved with the label, never
	 * within one, and the wobble does not go with the little x left */
	static const double xa[] = { 120, 121, 119, 120, 122, 118 };
	static const double xb[] = { 450, 452, 448, 451, 449, 450 };
	static const double xa_moved[] = { 120, 121, 119, 120, 181, 118 };
	static const double flat[] = { 120, 120, 120, 120 };
	double ya[6], yb[6], aa[6], ab[6], neg[6];
	struct stats_adjust ad;

	(void)state;
	placed(30, xa, 6, ya);
	placed(30, xb, 6, yb);
	/* within the sides x only jittered (under STATS_XCPU_MOVED_RATIO):
	 * the probe's noise, not a move to fit a slope to */
	assert_int_equal(stats_adjust_log(ya, xa, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	assert_false(ad.applied);
	assert_memory_equal(aa, ya, sizeof(ya));
	assert_memory_equal(ab, yb, sizeof(yb));
	/* one of A's samples 1.5 times as far: a move, tested; the wobble
	 * does not go with it, so nothing is applied */
	assert_int_equal(stats_adjust_log(ya, xa_moved, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_true(ad.tested);
	assert_false(ad.applied);
	assert_true(ad.slope_p > STATS_ADJUST_P);
	assert_memory_equal(aa, ya, sizeof(ya));
	assert_memory_equal(ab, yb, sizeof(yb));
	/* x the same everywhere within the sides: nothing to estimate */
	assert_int_equal(stats_adjust_log(ya, flat, 4, yb, flat, 4, aa, ab, &ad), 0);
	assert_false(ad.tested);
	/* too few, or a figure that is not a positive ratio */
	assert_int_equal(stats_adjust_log(ya, xa, 3, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	memcpy(neg, ya, sizeof(neg));
	neg[2] = 0;
	assert_int_equal(stats_adjust_log(neg, xa, 6, yb, xb, 6, aa, ab, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_log(NULL, xa, 6, yb, xb, 6, aa, ab, &ad), -EINVAL);
}

/* One set's fit (show, run --reps, matrix's adj column): the spread left
 * with the distance taken out, on the terms compare's samples fit has. */
static void test_adjust_log_cv_takes_it_out_of_one_set(void **state)
{
	static const double x[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double jitter[] = { 450, 452, 448, 451, 449, 450, 455, 446 };
	static const double near[] = { 120, 120, 120, 120, 120, 120, 120, 120 };
	double y[8], flat[8], bad[8], cv, raw;
	struct stats_adjust ad;

	(void)state;
	placed(30, x, 8, y);
	assert_int_equal(stats_cv_pct(y, 8, &raw), 0);
	assert_int_equal(stats_adjust_log_cv(y, x, 8, &ad, &cv), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.03);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.x_ref > 120 && ad.x_ref < 450 && ad.r2 > 0.9);
	/* what is left is the 2-3% wobble */
	assert_true(raw > 20 && cv > 1 && cv < 3);
	/* the round trips jittered around one placement: nothing to fit */
	assert_int_equal(stats_adjust_log_cv(y, jitter, 8, &ad, &cv), 0);
	assert_false(ad.tested);
	assert_true(isnan(cv));
	/* a move the figures did not follow: tested, nothing taken out */
	placed(30, near, 8, flat);
	assert_int_equal(stats_adjust_log_cv(flat, x, 8, &ad, &cv), 0);
	assert_true(ad.tested && !ad.applied && ad.slope_p > STATS_ADJUST_P);
	assert_true(isnan(cv));
	/* too few, a sample without a round trip, NULL */
	assert_int_equal(stats_adjust_log_cv(y, x, STATS_ADJUST_MIN_N - 1, &ad, &cv), 0);
	assert_false(ad.tested);
	memcpy(bad, x, sizeof(bad));
	bad[3] = NAN;
	assert_int_equal(stats_adjust_log_cv(y, bad, 8, &ad, &cv), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_log_cv(y, NULL, 8, &ad, &cv), -EINVAL);
}

/* The tally of an A/A simulation of the adjustment. */
struct aa_tally {
	int trials, applied, fp, raw_fp;
};

/*
 * Count one A/A trial of n values a side: raw ya/yb, adjusted aa/ab as ad
 * left them (nothing when ad tested nothing); a change is a rank test at
 * alpha 0.05.
 */
static void aa_count(struct aa_tally *k, const struct stats_adjust *ad, const double *ya,
		     const double *yb, const double *aa, const double *ab, size_t n)
{
	struct stats_compare_opts co;
	struct stats_compare c;

	if (!ad->tested)
		return;
	stats_compare_opts_init(&co);
	k->trials++;
	k->applied += ad->applied;
	assert_int_equal(stats_compare_samples(aa, n, ab, n, STATS_HIGHER, &co, &c), 0);
	k->fp += c.p < 0.05;
	assert_int_equal(stats_compare_samples(ya, n, yb, n, STATS_HIGHER, &co, &c), 0);
	k->raw_fp += c.p < 0.05;
}

/*
 * A/A with the distance mixed differently on the two sides: the adjusted
 * comparison must not call changes more often than alpha. Each trial: 8
 * samples a side, A far with probability 0.5 and B with 0.75 (120 or 450
 * ns, +-3%), the same rate law (x / 120)^-0.45 and 5% lognormal noise on
 * both; the rank test of the adjusted values at alpha 0.05.
 */
static void test_adjust_log_aa_keeps_the_false_positive_rate(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	struct aa_tally k = { 0 };

	(void)state;
	gsl_rng_set(rng, 23);
	for (int r = 0; r < 400; r++) {
		double xa[8], xb[8], ya[8], yb[8], aa[8], ab[8];
		struct stats_adjust ad;

		for (int i = 0; i < 8; i++) {
			xa[i] = (gsl_rng_uniform(rng) < 0.5 ? 450 : 120) * (1 + 0.03 * gsl_rng_uniform_pos(rng));
			xb[i] = (gsl_rng_uniform(rng) < 0.75 ? 450 : 120) * (1 + 0.03 * gsl_rng_uniform_pos(rng));
			ya[i] = 30 * pow(xa[i] / 120, -0.45) * exp(gsl_ran_gaussian(rng, 0.05));
			yb[i] = 30 * pow(xb[i] / 120, -0.45) * exp(gsl_ran_gaussian(rng, 0.05));
		}
		assert_int_equal(stats_adjust_log(ya, xa, 8, yb, xb, 8, aa, ab, &ad), 0);
		aa_count(&k, &ad, ya, yb, aa, ab, 8);
	}
	print_message("adjusted A/A: %d trials, slope applied in %d, p < 0.05 in %d (raw %d)\n",
		      k.trials, k.applied, k.fp, k.raw_fp);
	assert_true(k.trials > 380 && k.applied > k.trials * 9 / 10);
	/* 5% of 400 is 20; binomial sd 4.4 */
	assert_true(k.fp <= 30);
	gsl_rng_free(rng);
}

/* speed_samples() with host.xcpu_ns x[i] */
static struct base_sample *xcpu_samples(size_t n, const double *gbps, const double *x)
{
	struct base_sample *s = speed_samples(n, gbps, NULL);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(base_sample_set(&s[i], "host.xcpu_ns", "ns", x[i]), 0);
	return s;
}

/* How host_window() draws a window. */
struct host_law {
	double slope;    /* the rate goes with (x / 120)^slope */
	double p_switch; /* chance per interval that the host moves the vCPUs */
	double spell_sd; /* 0, or the sd of ln rate's own spells (its level) */
	double p_spell;  /* chance per interval that a new spell starts */
};

/*
 * A window of n 100 ms intervals on a host that moves the vCPUs: spells
 * near (120 ns) or far (450 ns), +-5%, starting far with probability
 * p_far and switching with probability law->p_switch an interval; the
 * rate k * (x / 120)^slope with AR(1) noise of 3% (0.7 from one interval
 * to the next) and, with spell_sd, a level of its own that the host
 * changes now and then, whatever the distance; 1 interval in 20 without
 * a round (NaN). Returns the window's mean rate (its headline).
 */
static double host_window(gsl_rng *rng, const struct host_law *law, double k, double p_far,
			  double *rate, double *x, size_t n)
{
	bool far = gsl_rng_uniform(rng) < p_far;
	double e = 0, lvl = 0, sum = 0;

	if (law->spell_sd > 0)
		lvl = gsl_ran_gaussian(rng, law->spell_sd);
	for (size_t t = 0; t < n; t++) {
		double xt;

		if (gsl_rng_uniform(rng) < law->p_switch)
			far = !far;
		if (law->spell_sd > 0 && gsl_rng_uniform(rng) < law->p_spell)
			lvl = gsl_ran_gaussian(rng, law->spell_sd);
		xt = (far ? 450 : 120) * (1 + 0.05 * (2 * gsl_rng_uniform(rng) - 1));
		e = 0.7 * e + gsl_ran_gaussian(rng, 0.03);
		rate[t] = k * pow(xt / 120, law->slope) * exp(e + lvl);
		x[t] = gsl_rng_uniform(rng) < 0.05 ? NAN : xt;
		sum += rate[t];
	}
	return sum / (double)n;
}

/* host_window() with a slope of -0.45 and a move every 3 s or so */
static double moving_window(gsl_rng *rng, double k, double p_far, double *rate,
			    double *x, size_t n)
{
	static const struct host_law law = { .slope = -0.45, .p_switch = 0.03 };

	return host_window(rng, &law, k, p_far, rate, x, n);
}

static void test_adjust_windows_takes_out_the_moves_within_windows(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[8][100], xa[8][100], rb[8][100], xb[8][100];
	struct stats_window wa[8], wb[8];
	double ya[8], yb[8], aa[8], ab[8], again[8], mean_a = 0, mean_b = 0, raw_a = 0, raw_b = 0;
	struct stats_adjust ad;

	(void)state;
	gsl_rng_set(rng, 5);
	/* B 10% slower at every distance, and far more often */
	for (size_t i = 0; i < 8; i++) {
		ya[i] = moving_window(rng, 30, 0.25, ra[i], xa[i], 100);
		yb[i] = moving_window(rng, 27, 0.75, rb[i], xb[i], 100);
		wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
		wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
	}
	assert_int_equal(stats_adjust_windows(ya, wa, 8, yb, wb, 8, aa, ab, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.05);
	assert_true(ad.slope_p < 0.001 && ad.r2 > 0.5 && ad.slope_se > 0);
	assert_true(ad.windows >= 3 && ad.windows <= 16);
	/* the host moved the vCPUs in most windows: a move every 3 s or so */
	assert_true(ad.stepped >= 12 && ad.stepped <= ad.windows);
	assert_true(ad.ticks > 1400 && ad.ticks < 1600);
	assert_true(ad.x_ref > 120 && ad.x_ref < 450);
	for (size_t i = 0; i < 8; i++) {
		mean_a += aa[i] / 8;
		mean_b += ab[i] / 8;
		raw_a += ya[i] / 8;
		raw_b += yb[i] / 8;
	}
	/* the raw means mix the distances; moved to one, 0.9 is left */
	assert_true(raw_b / raw_a < 0.85);
	assert_float_equal(mean_b / mean_a, 0.9, 0.03);
	/* the jackknife's interval holds the slope the windows were drawn
	 * with, and is narrow with 16 windows that moved */
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.slope_hi - ad.slope_lo < 0.1);
	/* moved along the fitted slope again: the same figures */
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, ad.slope, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - aa[i]) < 1e-9 * aa[i]);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, 0, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - ya[i]) < 1e-12 * ya[i]);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, 1e6, ad.x_ref, again), -ERANGE);
	assert_int_equal(stats_adjust_windows_at(ya, wa, 8, ad.slope, -1, again), -EINVAL);
	assert_int_equal(stats_adjust_windows_at(NULL, wa, 8, ad.slope, ad.x_ref, again), -EINVAL);
	gsl_rng_free(rng);
}

/* One set of samples: what of its spread went with the distance. */
static void test_adjust_windows_one_takes_it_out_of_one_set(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[8][100], x[8][100];
	struct stats_window w[8];
	double y[8], out[8], again[8], cv_raw, cv_adj, cv_again;
	struct stats_adjust ad;

	(void)state;
	gsl_rng_set(rng, 17);
	for (size_t i = 0; i < 8; i++) {
		y[i] = moving_window(rng, 30, 0.5, r[i], x[i], 100);
		w[i] = (struct stats_window){ r[i], x[i], 100 };
	}
	assert_int_equal(stats_adjust_windows_one(y, w, 8, out, &ad), 0);
	assert_true(ad.tested && ad.applied);
	assert_float_equal(ad.slope, -0.45, 0.05);
	assert_true(ad.slope_lo < -0.45 && -0.45 < ad.slope_hi);
	assert_true(ad.ticks > 700 && ad.windows >= 3);
	assert_int_equal(stats_cv_pct(y, 8, &cv_raw), 0);
	assert_int_equal(stats_cv_pct(out, 8, &cv_adj), 0);
	print_message("one set of 8 windows: cov %.2f%% raw, %.2f%% adjusted\n", cv_raw, cv_adj);
	assert_true(cv_adj < cv_raw / 3);
	/* each moved along the slope to x_ref, as _at moves them */
	assert_int_equal(stats_adjust_windows_at(y, w, 8, ad.slope, ad.x_ref, again), 0);
	for (size_t i = 0; i < 8; i++)
		assert_true(fabs(again[i] - out[i]) < 1e-12 * out[i]);
	/* too few samples: a copy; NULL */
	assert_int_equal(stats_adjust_windows_one(y, w, 3, out, &ad), 0);
	assert_false(ad.tested);
	assert_memory_equal(out, y, 3 * sizeof(*y));
	assert_int_equal(stats_adjust_windows_one(y, NULL, 8, out, &ad), -EINVAL);
	/* the cov that matrix's summary and report_windows_spread print:
	 * the moved figures', or NaN where nothing was moved */
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(ad.applied && fabs(cv_again - cv_adj) < 1e-12 * cv_adj);
	assert_int_equal(stats_adjust_windows_cv(y, w, 3, &ad, &cv_again), 0);
	assert_true(!ad.tested && isnan(cv_again));
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, NULL), -EINVAL);
	assert_int_equal(stats_adjust_windows_cv(y, NULL, 8, &ad, &cv_again), -EINVAL);
	assert_true(isnan(cv_again));
	/* the distance held within all but two windows: too few to test, and
	 * the fit says how many moved (report_windows_spread prints it) */
	for (size_t i = 2; i < 8; i++)
		for (size_t t = 0; t < 100; t++)
			x[i][t] = 120;
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(!ad.tested && isnan(cv_again));
	assert_int_equal(ad.windows, 2);
	assert_true(ad.ticks > 700);
	/* a window with fewer than STATS_ADJUST_MIN_TICKS intervals: no count */
	w[5].n = STATS_ADJUST_MIN_TICKS - 1;
	assert_int_equal(stats_adjust_windows_cv(y, w, 8, &ad, &cv_again), 0);
	assert_true(!ad.tested && ad.windows == 0 && ad.ticks == 0);
	gsl_rng_free(rng);
}

/* The compare table takes the windows when every sample kept them, and
 * prefers them to the samples' medians. */
/* n samples with headline y[i], each keeping its window of 100 intervals
 * (rates r[i], round trips x[i]) and the median round trip as
 * host.xcpu_ns; p[i] points at each */
static struct base_sample *window_samples(size_t n, const double *y, double (*r)[100],
					  double (*x)[100], const struct base_sample **p)
{
	double med[16];
	struct base_sample *s;

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++) {
		double tmp[100];
		size_t k = 0;

		for (size_t j = 0; j < 100; j++)
			if (!isnan(x[i][j]))
				tmp[k++] = x[i][j];
		assert_int_equal(stats_median(tmp, k, &med[i]), 0);
	}
	s = xcpu_samples(n, y, med);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(base_sample_set_series(&s[i], "Gbps", 0.1, r[i], 100, 1), 0);
		assert_int_equal(base_sample_set_series_probe(&s[i], BASE_TICK_XCPU, x[i], 100), 0);
		p[i] = &s[i];
	}
	return s;
}

static void test_table_adjusts_from_the_windows(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[16][100], x[16][100];
	double y[16];
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	gsl_rng_set(rng, 11);
	for (size_t i = 0; i < 16; i++)
		y[i] = moving_window(rng, i < 8 ? 30 : 27, i < 8 ? 0.25 : 0.75, r[i], x[i], 100);
	a = window_samples(8, y, r, x, pa);
	b = window_samples(8, y + 8, r + 8, x + 8, pb);
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested && t.notes.adj_applied);
	assert_true(t.notes.adj_windows >= 3 && t.notes.adj_ticks > 1400);
	assert_true(t.notes.adj_moved_windows >= 3 &&
		    t.notes.adj_moved_windows <= t.notes.adj_windows);
	assert_float_equal(t.notes.adj_slope, -0.45, 0.05);
	assert_true(t.rows[1].adjusted);
	assert_int_equal(t.rows[1].c.verdict, STATS_REGRESSION);
	assert_true(t.rows[1].c.shift_lo_pct < -10 && -10 < t.rows[1].c.shift_hi_pct);
	stats_table_release(&t);
	/* without B's windows: from the samples' medians */
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(base_sample_set_series(&b[i], "Gbps", 0.1, NULL, 0, 1), 0);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested);
	assert_int_equal(t.notes.adj_windows, 0);
	assert_int_equal(t.notes.adj_ticks, 0);
	assert_int_equal(t.notes.adj_moved_windows, 0);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
	gsl_rng_free(rng);
}

/* A change called at one estimate and not at another is not called. */
static void test_compare_union_takes_the_worst_of_its_parts(void **state)
{
	static const double a[] = { 100, 101, 99, 100.5, 99.5, 100.2 };
	static const double b0[] = { 90, 90.9, 89.1, 90.45, 89.55, 90.18 };
	static const double b1[] = { 99.8, 98.1, 100.9, 97.6, 99.9, 98.4 };
	static const double neg[] = { 90, -1, 89.1, 90.45, 89.55, 90.18 };
	struct stats_compare parts[3], u;

	(void)state;
	assert_int_equal(stats_compare_samples(a, 6, b0, 6, STATS_HIGHER, NULL, &parts[0]), 0);
	assert_int_equal(stats_compare_samples(a, 6, b1, 6, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(parts[0].verdict, STATS_REGRESSION);
	assert_true(parts[1].p > 0.05);
	/* one part: itself */
	assert_int_equal(stats_compare_union(parts, 1, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_memory_equal(&u, &parts[0], sizeof(u));
	/* both: the larger p, the union of the intervals, parts[0]'s shift;
	 * no longer a regression, and runs_needed from parts[0]'s values */
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_true(u.p == parts[1].p);
	assert_true(u.shift_pct == parts[0].shift_pct);
	assert_true(u.shift_lo_pct == fmin(parts[0].shift_lo_pct, parts[1].shift_lo_pct));
	assert_true(u.shift_hi_pct == fmax(parts[0].shift_hi_pct, parts[1].shift_hi_pct));
	assert_true(u.median_b == parts[0].median_b);
	assert_int_equal(u.verdict, STATS_INCONCLUSIVE);
	assert_true(u.runs_needed > 0);
	/* the same part twice changes nothing */
	parts[2] = parts[0];
	assert_int_equal(stats_compare_union(parts + 1, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_INCONCLUSIVE);
	parts[1] = parts[0];
	assert_int_equal(stats_compare_union(parts, 3, a, 6, b0, 6, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_REGRESSION);
	/* too few stays too few */
	assert_int_equal(stats_compare_samples(a, 3, b0, 3, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(stats_compare_union(parts + 1, 1, a, 3, b0, 3, STATS_HIGHER, NULL, &u), 0);
	assert_int_equal(u.verdict, STATS_TOO_FEW);
	/* sizes that differ, a part not in log scale, nothing, NULL */
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_samples(a, 6, neg, 6, STATS_HIGHER, NULL, &parts[1]), 0);
	assert_int_equal(stats_compare_union(parts, 2, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(parts, 0, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(NULL, 1, a, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
	assert_int_equal(stats_compare_union(parts, 1, NULL, 6, b0, 6, STATS_HIGHER, NULL, &u), -EINVAL);
}

/*
 * The adjusted row when the labels sat at different distances: A's runs
 * all near, B's all far, the host moving the vCPUs in about one window in
 * five and the rates moving in spells of their own (15%, one every 10 s
 * or so); no change between the labels. The slope then rests on a few
 * windows and the whole A/B difference is taken out along it: compared
 * at the fitted slope alone, the adjusted figures called a change in
 * about 12% of such sets, so the row must also hold at both ends of the
 * slope's interval.
 */
static void test_table_adjusted_row_holds_over_the_slope_interval(void **state)
{
	static const struct host_law law = { .slope = -0.45, .p_switch = 0.002,
					     .spell_sd = 0.15, .p_spell = 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[12][100], x[12][100];
	int rows = 0, called = 0, raw = 0;

	(void)state;
	gsl_rng_set(rng, 43);
	for (int set = 0; set < 200; set++) {
		const struct base_sample *pa[6], *pb[6];
		struct base_sample *a, *b;
		struct stats_table_opts o;
		struct stats_table t;
		double y[12];

		for (size_t i = 0; i < 12; i++)
			y[i] = host_window(rng, &law, 30, i < 6 ? 0 : 1, r[i], x[i], 100);
		a = window_samples(6, y, r, x, pa);
		b = window_samples(6, y + 6, r + 6, x + 6, pb);
		stats_table_opts_init(&o);
		assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
		raw += t.rows[0].c.p < 0.05;
		if (t.nrows > 1 && t.rows[1].adjusted) {
			const struct stats_compare *c = &t.rows[1].c;

			rows++;
			called += c->verdict == STATS_REGRESSION || c->verdict == STATS_IMPROVEMENT ||
				  c->verdict == STATS_MINOR;
			/* the interval is the slope's too: it holds the row's shift */
			assert_true(t.notes.adj_slope_lo <= t.notes.adj_slope &&
				    t.notes.adj_slope <= t.notes.adj_slope_hi);
			assert_true(c->shift_lo_pct <= c->shift_pct && c->shift_pct <= c->shift_hi_pct);
		}
		stats_table_release(&t);
		free_samples(a, 6);
		free_samples(b, 6);
	}
	print_message("labels near/far: %d adjusted rows, a change called in %d; raw p < 0.05 in %d of 200\n",
		      rows, called, raw);
	assert_true(rows >= 100);
	/* 5% of the rows, and some */
	assert_true(called <= rows / 20 + 4);
	assert_true(raw >= 100);
	gsl_rng_free(rng);
}

static void test_adjust_windows_needs_moves_within_windows(void **state)
{
	static double p[8][30], r[8][30], x[8][30];
	struct stats_window w[8];
	double y[8], out[8], jitter = 0.01;
	struct stats_adjust ad;

	(void)state;
	for (size_t i = 0; i < 8; i++) {
		for (size_t t = 0; t < 30; t++)
			p[i][t] = i % 2 ? 450 : 120;
		y[i] = 30 * pow(p[i][0] / 120, -0.45);
		w[i] = (struct stats_window){ r[i], x[i], 30 };
	}
	/* each interval's round trip: where the host had the vCPUs (p), with
	 * the probe's jitter; the rate goes with it */
#define PLACE()                                                                        \
	for (size_t i = 0; i < 8; i++)                                                 \
		for (size_t t = 0; t < 30; t++) {                                      \
			x[i][t] = p[i][t] * (1 + jitter * ((int)((t * 5 + i) % 3) - 1)); \
			r[i][t] = 30 * pow((isnan(x[i][t]) ? 120 : x[i][t]) / 120, -0.45) * \
				  (1 + 0.01 * (double)(t % 3));                        \
		}
	PLACE();
	/* each window at one distance: the windows say nothing */
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.windows, 8);
	assert_int_equal(ad.stepped, 0);
	assert_memory_equal(out, y, sizeof(y));
	/* jittering by 5% (around one placement) steps nowhere either */
	jitter = 0.05;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 0);
	assert_memory_equal(out, y, sizeof(y));
	jitter = 0.01;
	/* the host moved the vCPUs a second before the end of two windows:
	 * not enough */
	for (size_t t = 20; t < 30; t++) {
		p[0][t] = 450;
		p[5][t] = 120;
	}
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 2);
	/* a blip of one interval is no move (a level needs a second) */
	p[2][1] = 450;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(ad.stepped, 2);
	/* and a move in a third: tested */
	for (size_t t = 15; t < 30; t++)
		p[2][t] = 450;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_true(ad.tested);
	assert_int_equal(ad.windows, 8);
	assert_int_equal(ad.stepped, 3);
	assert_int_equal(ad.ticks, 240);
	assert_float_equal(ad.slope, -0.45, 0.02);
	/* the slope from the three windows that stepped (the jitter of the
	 * other five adds little); its p from all eight as clusters */
	assert_true(ad.slope_p < 0.05);
	/* a window with fewer than 5 intervals with a round, too few
	 * samples, a headline that is not positive, NULL */
	for (size_t t = 0; t < 26; t++)
		p[3][t] = NAN;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	p[3][0] = 120;
	PLACE();
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_true(ad.tested);
	assert_int_equal(stats_adjust_windows(y, w, 3, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	y[1] = 0;
	assert_int_equal(stats_adjust_windows(y, w, 4, y + 4, w + 4, 4, out, out + 4, &ad), 0);
	assert_false(ad.tested);
	assert_int_equal(stats_adjust_windows(y, NULL, 4, y + 4, w + 4, 4, out, out + 4, &ad), -EINVAL);
#undef PLACE
}

/*
 * A/A from the windows: 300 trials of 6 windows a side, A starting far
 * with probability 0.25 and B with 0.75, the same rate law and noise;
 * the rank test of the adjusted values at alpha 0.05 must not call a
 * change more often than alpha.
 */
static void test_adjust_windows_aa_keeps_the_false_positive_rate(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[6][100], xa[6][100], rb[6][100], xb[6][100];
	struct aa_tally k = { 0 };

	(void)state;
	gsl_rng_set(rng, 29);
	for (int r = 0; r < 300; r++) {
		struct stats_window wa[6], wb[6];
		double ya[6], yb[6], aa[6], ab[6];
		struct stats_adjust ad;

		for (size_t i = 0; i < 6; i++) {
			ya[i] = moving_window(rng, 30, 0.25, ra[i], xa[i], 100);
			yb[i] = moving_window(rng, 30, 0.75, rb[i], xb[i], 100);
			wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
			wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
		}
		assert_int_equal(stats_adjust_windows(ya, wa, 6, yb, wb, 6, aa, ab, &ad), 0);
		aa_count(&k, &ad, ya, yb, aa, ab, 6);
	}
	print_message("adjusted A/A from windows: %d trials, slope applied in %d, p < 0.05 in %d (raw %d)\n",
		      k.trials, k.applied, k.fp, k.raw_fp);
	assert_true(k.trials > 270 && k.applied > k.trials * 9 / 10);
	/* 5% of 300 is 15; binomial sd 3.8 */
	assert_true(k.fp <= 24);
	gsl_rng_free(rng);
}


/*
 * A slope of 0: the rate moves in spells of its own (8%, a new one every
 * 3 s or so) and the host moves the vCPUs in about one window in six.
 * Those few windows carry the whole slope, and with every other window's
 * jitter counted as a cluster a t test with G - 1 degrees of freedom
 * applied it in 41% of such sets. The wild bootstrap must keep it near
 * alpha; the same sets with a real slope of -0.45 must still find it.
 */
static void test_adjust_windows_few_moves_make_no_slope(void **state)
{
	static const struct host_law flat = { .slope = 0, .p_switch = 0.002,
					      .spell_sd = 0.08, .p_spell = 0.03 };
	struct host_law real = flat;
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double ra[6][100], xa[6][100], rb[6][100], xb[6][100];
	int trials = 0, tested = 0, applied = 0, found = 0;

	(void)state;
	real.slope = -0.45;
	real.p_switch = 0.03;
	gsl_rng_set(rng, 41);
	for (int r = 0; r < 600; r++) {
		const struct host_law *law = r % 2 ? &real : &flat;
		struct stats_window wa[6], wb[6];
		double ya[6], yb[6], aa[6], ab[6];
		struct stats_adjust ad;

		for (size_t i = 0; i < 6; i++) {
			ya[i] = host_window(rng, law, 30, 0.25, ra[i], xa[i], 100);
			yb[i] = host_window(rng, law, 30, 0.75, rb[i], xb[i], 100);
			wa[i] = (struct stats_window){ ra[i], xa[i], 100 };
			wb[i] = (struct stats_window){ rb[i], xb[i], 100 };
		}
		assert_int_equal(stats_adjust_windows(ya, wa, 6, yb, wb, 6, aa, ab, &ad), 0);
		if (r % 2) {
			/* a move every 3 s or so: enough windows stepped */
			assert_true(ad.tested);
			found += ad.applied;
			continue;
		}
		/* one window in five moved: tested only with 3 that did */
		assert_true(ad.tested == (ad.stepped >= STATS_ADJUST_MIN_WINDOWS));
		tested += ad.tested;
		trials++;
		applied += ad.applied;
		if (!ad.applied)
			assert_memory_equal(aa, ya, sizeof(ya));
	}
	print_message("slope 0, few moves: tested in %d and applied in %d of %d sets; slope -0.45: found in %d of 300\n",
		      tested, applied, trials, found);
	/* 5% of 300 is 15, binomial sd 3.8 */
	assert_true(applied <= 24);
	assert_true(found >= 285);
	gsl_rng_free(rng);
}

static void test_table_adjusts_the_headline_for_the_distance(void **state)
{
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	double ga[8], gb[8], gc[8];
	struct base_sample *a, *b, *c;
	const struct base_sample *pa[8], *pb[8], *pc[8];
	const struct stats_row *adj = NULL;
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	placed(30, xa, 8, ga);
	placed(27, xb, 8, gb);
	placed(30, xb, 8, gc); /* A's rates, B's distances: no change */
	a = xcpu_samples(8, ga, xa);
	b = xcpu_samples(8, gb, xb);
	c = xcpu_samples(8, gc, xb);
	for (size_t i = 0; i < 8; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
	}
	stats_table_opts_init(&o);
	/* 10% slower at every distance: the adjusted row says about -10%
	 * with an interval far narrower than the raw one */
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested && t.notes.adj_applied);
	/* the adjusted row takes the distance up: no note of the mix */
	assert_false(t.notes.xcpu_mix);
	assert_float_equal(t.notes.adj_slope, -0.45, 0.03);
	assert_true(t.rows[0].headline);
	adj = &t.rows[1];
	assert_true(adj->adjusted && adj->shown);
	assert_string_equal(adj->metric, "throughput.gbps.xcpu_adj");
	assert_string_equal(adj->unit, "Gbps");
	assert_int_equal(adj->c.verdict, STATS_REGRESSION);
	assert_true(adj->c.shift_lo_pct < -10 && adj->c.shift_hi_pct > -10 && adj->c.shift_pct < -7);
	assert_true(adj->c.shift_hi_pct - adj->c.shift_lo_pct <
		    (t.rows[0].c.shift_hi_pct - t.rows[0].c.shift_lo_pct) / 2);
	assert_true(stats_notes_any(&t.notes));
	stats_table_release(&t);
	/* the same rates, only more of B far: raw cannot tell (its interval
	 * spans -44% to +3%), the adjusted row sees no change within a few
	 * percent */
	assert_int_equal(stats_table_build(pa, 8, pc, 8, &o, &t), 0);
	assert_int_equal(t.rows[0].c.verdict, STATS_INCONCLUSIVE);
	assert_true(t.rows[0].c.shift_hi_pct - t.rows[0].c.shift_lo_pct > 30);
	assert_true(t.rows[1].adjusted);
	assert_true(t.rows[1].c.verdict != STATS_REGRESSION &&
		    t.rows[1].c.verdict != STATS_IMPROVEMENT);
	assert_true(fabs(t.rows[1].c.shift_pct) < 3);
	assert_true(t.rows[1].c.shift_hi_pct - t.rows[1].c.shift_lo_pct < 10);
	stats_table_release(&t);
	/* one side without the probe: no adjustment */
	free_samples(c, 8);
	c = speed_samples(8, gc, NULL);
	for (size_t i = 0; i < 8; i++)
		pc[i] = &c[i];
	assert_int_equal(stats_table_build(pa, 8, pc, 8, &o, &t), 0);
	assert_false(t.notes.adj_tested);
	for (size_t i = 0; i < t.nrows; i++)
		assert_false(t.rows[i].adjusted);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
	free_samples(c, 8);
}

/* The row of metric in t; NULL when it has none. */
static const struct stats_row *row_of(const struct stats_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return &t->rows[i];
	return NULL;
}

/*
 * --headline: a table built with another metric as its headline judges
 * that one. The rate flat (the same six rates a side, within 0.2%) while
 * latency.p99_us rose 30% (6 against 6, no overlap: p = 2/924, its
 * interval far beyond 2%): the test's headline calls no regression;
 * latency.p99_us as the headline (lower is better, from the store) is
 * the first row and a REGRESSION, the table's, and the rate becomes one
 * of the other metrics. A profile share the store calls neutral that
 * rose 3 points is CHANGED by the store's direction and nothing
 * regressed; told lower is better it is a REGRESSION, higher an
 * IMPROVEMENT. A metric the samples lack makes no headline row (what the
 * CLI refuses). A figure per MB stays compared per second against the
 * rate, whatever the headline.
 */
static void test_table_headline_option_judges_that_metric(void **state)
{
	static const struct {
		enum metric_dir dir;
		enum stats_verdict_kind verdict;
	} told[] = {
		{ METRIC_NEUTRAL, STATS_CHANGED },
		{ METRIC_LOWER, STATS_REGRESSION },
		{ METRIC_HIGHER, STATS_IMPROVEMENT },
	};
	static const double g[6] = { 10, 10.01, 9.99, 10, 10.02, 9.98 };
	struct two_labels l;
	struct stats_table t;
	const struct stats_row *h;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		double d = 0.5 * (double)i;

		assert_int_equal(base_sample_set(&l.a[i], "latency.p99_us", "us", 100 + d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "latency.p99_us", "us", 130 + d), 0);
		assert_int_equal(base_sample_set(&l.a[i], "profile.self.memcpy", "%", 5 + 0.1 * d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "profile.self.memcpy", "%", 8 + 0.1 * d), 0);
		assert_int_equal(base_sample_set(&l.a[i], "stat.ctxt.per_mb", "",
						 1000 + d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "stat.ctxt.per_mb", "",
						 1300 + d), 0);
	}
	/* the test's headline: the rate, unchanged */
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_string_equal(t.headline, "throughput.gbps");
	assert_non_null(h = stats_table_headline(&t));
	assert_string_equal(h->metric, "throughput.gbps");
	assert_int_equal(h->c.verdict, STATS_SAME);
	assert_false(t.regressed);
	assert_true(row_of(&t, "latency.p99_us") && !row_of(&t, "latency.p99_us")->headline);
	stats_table_release(&t);
	/* --headline latency.p99_us */
	l.o.headline = "latency.p99_us";
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_string_equal(t.headline, "latency.p99_us");
	assert_true(t.rows[0].headline);
	assert_string_equal(t.rows[0].metric, "latency.p99_us");
	assert_int_equal(t.rows[0].dir, METRIC_LOWER);
	assert_int_equal(t.rows[0].c.verdict, STATS_REGRESSION);
	assert_float_equal(t.rows[0].c.p, 2.0 / 924, 1e-9);
	assert_true(t.regressed);
	for (size_t i = 1; i < t.nrows; i++)
		assert_false(t.rows[i].headline);
	/* the per-MB row: per second against the rate, not the latency */
	assert_non_null(h = row_of(&t, "stat.ctxt.per_mb"));
	assert_true(h->per_s_tested);
	assert_float_equal(h->per_s.median_a, 125 * 10 * (1000 + 1.25), 125 * 10 * 1000 * 0.03);
	stats_table_release(&t);
	/* a neutral share: changed, no regression, until told which way is
	 * better; the direction given is the headline's alone */
	l.o.headline = "profile.self.memcpy";
	for (size_t k = 0; k < ARRAY_SIZE(told); k++) {
		l.o.headline_dir = told[k].dir;
		assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
		assert_string_equal(t.rows[0].metric, "profile.self.memcpy");
		assert_int_equal(t.rows[0].dir, told[k].dir);
		assert_int_equal(t.rows[0].c.verdict, told[k].verdict);
		assert_int_equal(t.regressed, told[k].verdict == STATS_REGRESSION);
		assert_int_equal(row_of(&t, "latency.p99_us")->dir, METRIC_LOWER);
		stats_table_release(&t);
	}
	/* a metric no sample has: no headline row */
	l.o.headline = "latency.p99.9_us";
	l.o.headline_dir = METRIC_NEUTRAL;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_null(stats_table_headline(&t));
	assert_false(t.regressed);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * With another headline than the rate: the .xcpu_adj row is the rate's
 * alone (its windows and its fit are the rate's), so the samples that
 * make one for the rate (test_table_adjusts_the_headline_for_the_distance)
 * make none for a latency; the .paired row is made for any headline, from
 * the same rounds: a latency 30% higher in B in every round is a paired
 * REGRESSION.
 */
static void test_table_other_headline_paired_not_adjusted(void **state)
{
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	static const bool a_first[8] = { true, false, true, true, false, false, true, false };
	double ga[8], gb[8];
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	const struct stats_row *pr;
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	placed(30, xa, 8, ga);
	placed(27, xb, 8, gb);
	a = xcpu_samples(8, ga, xa);
	b = xcpu_samples(8, gb, xb);
	for (size_t i = 0; i < 8; i++) {
		double d = (double)(i % 3);

		assert_int_equal(base_sample_set(&a[i], "latency.p99_us", "us", 100 + 4 * d), 0);
		assert_int_equal(base_sample_set(&b[i], "latency.p99_us", "us", 130 + 5 * d), 0);
	}
	place_rounds(a, b, a_first, 8, pa, pb);
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_applied);
	assert_true(t.rows[1].adjusted);
	stats_table_release(&t);
	o.headline = "latency.p99_us";
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_false(t.notes.adj_tested);
	for (size_t i = 0; i < t.nrows; i++)
		assert_false(t.rows[i].adjusted);
	assert_string_equal(t.rows[0].metric, "latency.p99_us");
	assert_int_equal(t.rows[0].c.verdict, STATS_REGRESSION);
	pr = paired_of(&t);
	assert_string_equal(pr->metric, "latency.p99_us.paired");
	assert_int_equal(pr->dir, METRIC_LOWER);
	assert_int_equal(pr->c.verdict, STATS_REGRESSION);
	assert_true(t.paired_regressed);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
}

/* stats_table_build() of samples a and b (headlines ga, gb; host.xcpu_ns
 * xa, xb, 6 a side) into t */
static void mix_table(const double *ga, const double *xa, const double *gb, const double *xb,
		      struct stats_table *t)
{
	struct base_sample *a = xcpu_samples(6, ga, xa), *b = xcpu_samples(6, gb, xb);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;

	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, t), 0);
	free_samples(a, 6);
	free_samples(b, 6);
}

/*
 * Both labels at both distances, B far more often: the rank test of
 * host.xcpu_ns cannot call the shift with 6 a side and no slope passes
 * (the rates follow the distance too little against their noise), so the
 * note says how the samples split and gives each label's median at each
 * distance.
 */
static void test_table_notes_a_different_mix_of_two_distances(void **state)
{
	static const double xa[] = { 118, 452, 121, 119, 122, 120 };
	static const double xb[] = { 447, 120, 455, 118, 450, 449 };
	static const double xs[] = { 121, 449, 119, 451, 118, 453 };
	static const double xc[] = { 120, 180, 150, 200, 160, 170 };
	static const double xd[] = { 118, 190, 140, 175, 155, 165 };
	static const double xn[] = { 118, 120, 121, 119, 122, 120 };
	static const double ga[] = { 30.0, 29.0, 30.4, 28.9, 30.2, 29.5 };
	static const double gb[] = { 29.2, 30.3, 30.0, 29.9, 28.8, 29.6 };
	struct stats_table t;
	double x[6];

	(void)state;
	mix_table(ga, xa, gb, xb, &t);
	assert_false(t.notes.xcpu_changed);
	assert_false(t.notes.adj_applied);
	assert_true(t.notes.xcpu_mix);
	assert_true(stats_notes_any(&t.notes));
	assert_float_equal(t.notes.mix.lo_ns[0], 118, 1e-9);
	assert_float_equal(t.notes.mix.hi_ns[0], 122, 1e-9);
	assert_float_equal(t.notes.mix.lo_ns[1], 447, 1e-9);
	assert_float_equal(t.notes.mix.hi_ns[1], 455, 1e-9);
	assert_int_equal(t.notes.mix.n[0], 6);
	assert_int_equal(t.notes.mix.n[1], 6);
	assert_int_equal(t.notes.mix.far[0], 1);
	assert_int_equal(t.notes.mix.far[1], 4);
	/* near: A 30.0 30.4 28.9 30.2 29.5, B 30.3 29.9; far: A 29.0, B
	 * 29.2 30.0 28.8 29.6 */
	assert_float_equal(t.notes.mix.median[0][0], 30.0, 1e-9);
	assert_float_equal(t.notes.mix.median[0][1], 30.1, 1e-9);
	assert_float_equal(t.notes.mix.median[1][0], 29.0, 1e-9);
	assert_float_equal(t.notes.mix.median[1][1], 29.4, 1e-9);
	stats_table_release(&t);
	/* the same share far on both sides (2 of 6): nothing to say */
	mix_table(ga, xs, gb, xs, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
	/* no gap of a move among the round trips (118-200 ns): one distance */
	mix_table(ga, xc, gb, xd, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
	/* B all near, one sample of A far: A 1 of 6, B none there */
	memcpy(x, xa, sizeof(x));
	x[1] = 121;
	x[3] = 900;
	mix_table(ga, x, gb, xn, &t);
	assert_true(t.notes.xcpu_mix);
	assert_int_equal(t.notes.mix.far[0], 1);
	assert_int_equal(t.notes.mix.far[1], 0);
	assert_true(isnan(t.notes.mix.median[1][1]));
	assert_float_equal(t.notes.mix.lo_ns[1], 900, 1e-9);
	stats_table_release(&t);
	/* a sample without a round trip: nothing is said */
	memcpy(x, xa, sizeof(x));
	x[2] = NAN;
	mix_table(ga, x, gb, xb, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
}

/* stats_xcpu_mix() on its own: without figures, one side empty, one
 * sample, a round trip that is not a number, NULL */
static void test_xcpu_mix_splits_at_the_widest_gap_that_is_a_move(void **state)
{
	static const double xa[] = { 450, 120, 125 }, xb[] = { 118, 460, 470, 455 };
	static const double bad[] = { 120, 0, 450 };
	struct stats_xcpu_mix m;

	(void)state;
	assert_int_equal(stats_xcpu_mix(xa, NULL, 3, xb, NULL, 4, &m), 0);
	assert_true(m.split && stats_xcpu_mix_differs(&m));
	assert_int_equal(m.far[0], 1);
	assert_int_equal(m.far[1], 3);
	assert_float_equal(m.hi_ns[0], 125, 0);
	assert_float_equal(m.lo_ns[1], 450, 0);
	assert_true(isnan(m.median[0][0]) && isnan(m.median[1][1]));
	/* B alone: two distances, but no other side to differ from */
	assert_int_equal(stats_xcpu_mix(NULL, NULL, 0, xb, NULL, 4, &m), 0);
	assert_true(m.split);
	assert_false(stats_xcpu_mix_differs(&m));
	assert_int_equal(stats_xcpu_mix(xa, NULL, 1, xb, NULL, 0, &m), 0);
	assert_false(m.split);
	assert_int_equal(stats_xcpu_mix(bad, NULL, 3, xb, NULL, 4, &m), 0);
	assert_false(m.split);
	assert_int_equal(stats_xcpu_mix(xa, NULL, 3, xb, NULL, 4, NULL), -EINVAL);
	assert_int_equal(stats_xcpu_mix(NULL, NULL, 3, xb, NULL, 4, &m), -EINVAL);
}

static void test_covary_ranks_what_went_with_y_and_adjusts_for_many(void **state)
{
	/* y rises; a follows it, b goes against it with ties, c is flat,
	 * d has a gap, e wanders, f is unrelated by construction */
	static const double y[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	static const double a[] = { 10, 12, 13, 15, 16, 18, 19, 21, 23, 24 };
	static const double b[] = { 9, 9, 8, 7, 7, 5, 4, 3, 3, 1 };
	static const double c[] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	static const double d[] = { 1, 2, NAN, 4, 5, 6, 7, 8, 9, 10 };
	static const double e[] = { 5, 3, 6, 2, 7, 1, 8, 4, 9, 0 };
	static const double f[] = { 3, 1, 4, 1, 5, 9, 2, 6, 5, 3 };
	const double *const x[] = { a, b, c, d, e, f };
	struct stats_covary cv[6];
	struct stats_trend t;
	double p[4], q[4];
	size_t n;

	(void)state;
	assert_int_equal(stats_covary(y, x, 6, 10, cv, &n), 0);
	/* c (flat) and d (not finite) are not tested */
	assert_int_equal(n, 4);
	assert_int_equal(cv[0].index, 0);
	assert_float_equal(cv[0].tau, 1, 1e-12);
	assert_int_equal(cv[1].index, 1);
	assert_true(cv[1].tau < -0.9);
	/* the same tau and p as stats_kendall, y first */
	assert_int_equal(stats_kendall(y, b, 10, &t), 0);
	assert_float_equal(cv[1].tau, t.tau, 1e-12);
	assert_float_equal(cv[1].p, t.p, 1e-12);
	/* ascending p; q is Benjamini-Hochberg over the 4 tested */
	for (size_t i = 0; i < n; i++) {
		p[i] = cv[i].p;
		if (i)
			assert_true(cv[i].p >= cv[i - 1].p);
	}
	assert_int_equal(stats_bh(p, 4, q), 0);
	for (size_t i = 0; i < n; i++)
		assert_float_equal(cv[i].q, q[i], 1e-12);
	assert_true(cv[0].q < 0.01 && cv[3].q > 0.05);
	/* too few samples, a flat y, bad arguments */
	assert_int_equal(stats_covary(y, x, 6, STATS_COVARY_MIN_N - 1, cv, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(stats_covary(c, x, 6, 10, cv, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(stats_covary(NULL, x, 6, 10, cv, &n), -EINVAL);
	assert_int_equal(stats_covary(y, x, 6, 10, NULL, &n), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ci_half_pct_matches_scipy),
		cmocka_unit_test(test_paired_ratio_matches_scipy),
		cmocka_unit_test(test_desc_matches_numpy),
		cmocka_unit_test(test_desc_quantile_is_type_7),
		cmocka_unit_test(test_desc_does_not_modify_input),
		cmocka_unit_test(test_desc_single_value_and_rejects_bad_input),
		cmocka_unit_test(test_mwu_exact_p_without_ties_matches_scipy),
		cmocka_unit_test(test_mwu_exact_p_with_ties_matches_bruteforce),
		cmocka_unit_test(test_mwu_min_p_is_the_smallest_p_of_any_split),
		cmocka_unit_test(
			test_mwu_exact_with_ties_at_larger_n_matches_python_dp),
		cmocka_unit_test(test_mwu_exact_p_at_49_per_side_matches_scipy),
		cmocka_unit_test(
			test_mwu_normal_approx_matches_scipy_asymptotic),
		cmocka_unit_test(test_mwu_edge_cases),
		cmocka_unit_test(
			test_hl_exact_ci_matches_bruteforce_construction),
		cmocka_unit_test(test_hl_normal_ci_matches_python_formula),
		cmocka_unit_test(test_hl_ci_covers_true_shift_at_its_level),
		cmocka_unit_test(test_hl_midpoint_between_the_middle_two),
		cmocka_unit_test(test_shift_pct_works_on_logs),
		cmocka_unit_test(test_bh_matches_r_p_adjust),
		cmocka_unit_test(
			test_bh_in_place_caps_at_one_and_rejects_bad_p),
		cmocka_unit_test(test_runs_needed_matches_formula),
		cmocka_unit_test(test_runs_needed_floor_and_bad_input),
		cmocka_unit_test(test_outliers_by_modified_z),
		cmocka_unit_test(
			test_outliers_fall_back_to_mean_ad_when_mad_is_zero),
		cmocka_unit_test(test_mann_kendall_matches_python),
		cmocka_unit_test(
			test_mann_kendall_needs_four_values_flat_has_no_trend),
		cmocka_unit_test(test_verdict_names_and_default_opts),
		cmocka_unit_test(test_compare_clear_drop_by_direction),
		cmocka_unit_test(test_compare_significant_but_small_is_minor),
		cmocka_unit_test(test_compare_quiet_equal_samples_are_same),
		cmocka_unit_test(
			test_compare_noisy_is_inconclusive_with_runs_needed),
		cmocka_unit_test(test_compare_zeros_fall_back_to_raw_shift),
		cmocka_unit_test(
			test_compare_zero_median_gives_absolute_shift),
		cmocka_unit_test(test_compare_negative_values_use_raw_shift),
		cmocka_unit_test(test_compare_too_few_still_fills_what_it_can),
		cmocka_unit_test(test_compare_rejects_bad_input),
		cmocka_unit_test(test_compare_paired_tests_the_ratios),
		cmocka_unit_test(
			test_compare_large_n_uses_normal_approximation),
		cmocka_unit_test(test_compare_reports_drift_and_outliers),
		cmocka_unit_test(
			test_compare_aa_false_regression_rate_at_most_alpha),
		cmocka_unit_test(test_compare_finds_injected_5pct_regression),
		cmocka_unit_test(test_per_second_scale_of_a_figure_per_unit),
		cmocka_unit_test(test_table_notes_a_host_speed_change),
		cmocka_unit_test(test_table_speed_note_says_whether_the_core_moved),
		cmocka_unit_test(test_table_paired_row_takes_out_what_drifted_between_rounds),
		cmocka_unit_test(test_table_paired_row_is_a_crossover),
		cmocka_unit_test(test_crossover_ratio_by_hand),
		cmocka_unit_test(test_crossover_runs_needed_counts_its_lost_degrees),
		cmocka_unit_test(test_tables_fdr_calls_a_matrix_clean_and_keeps_a_corner),
		cmocka_unit_test(test_tables_fdr_takes_the_paired_rows_as_a_family),
		cmocka_unit_test(test_disturbed_samples_counted_with_the_hosts_steal),
		cmocka_unit_test(test_all_disturbed_side_is_compared_and_noted),
		cmocka_unit_test(test_disturbed_samples_counted_with_other_processes),
		cmocka_unit_test(test_redefined_metrics_noted_where_samples_straddle),
		cmocka_unit_test(test_other_metrics_held_to_their_unit_floor),
		cmocka_unit_test(test_metrics_the_same_everywhere_not_in_the_family),
		cmocka_unit_test(test_kendall_matches_scipy),
		cmocka_unit_test(test_host_trend_only_when_the_speed_moved_with_the_rate),
		cmocka_unit_test(test_host_moved_when_the_round_trip_changed_level),
		cmocka_unit_test(test_adjust_log_takes_out_what_went_with_the_distance),
		cmocka_unit_test(test_adjust_log_leaves_alone_what_it_cannot_separate),
		cmocka_unit_test(test_adjust_log_cv_takes_it_out_of_one_set),
		cmocka_unit_test(test_adjust_log_aa_keeps_the_false_positive_rate),
		cmocka_unit_test(test_table_adjusts_the_headline_for_the_distance),
		cmocka_unit_test(test_table_headline_option_judges_that_metric),
		cmocka_unit_test(test_table_other_headline_paired_not_adjusted),
		cmocka_unit_test(test_table_notes_a_different_mix_of_two_distances),
		cmocka_unit_test(test_xcpu_mix_splits_at_the_widest_gap_that_is_a_move),
		cmocka_unit_test(test_adjust_windows_takes_out_the_moves_within_windows),
		cmocka_unit_test(test_adjust_windows_needs_moves_within_windows),
		cmocka_unit_test(test_table_adjusts_from_the_windows),
		cmocka_unit_test(test_adjust_windows_aa_keeps_the_false_positive_rate),
		cmocka_unit_test(test_adjust_windows_few_moves_make_no_slope),
		cmocka_unit_test(test_adjust_windows_one_takes_it_out_of_one_set),
		cmocka_unit_test(test_compare_union_takes_the_worst_of_its_parts),
		cmocka_unit_test(test_table_adjusted_row_holds_over_the_slope_interval),
		cmocka_unit_test(test_levels_find_steps_and_flips),
		cmocka_unit_test(test_covary_ranks_what_went_with_y_and_adjusts_for_many),
		cmocka_unit_test(test_table_counts_mixed_windows_and_their_widest_gap),
		cmocka_unit_test(test_levels_hold_one_level_on_noise_small_shifts_and_blips),
		cmocka_unit_test(test_levels_rho_is_persistence_beside_steps_and_slopes),
		cmocka_unit_test(test_steady_widens_for_persistence_and_keeps_throttles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
