/* SPDX-License-Identifier: GPL-2.0-only */
/* What the tests of stats/ share: close-enough asserts, fixed data, drawn
 * windows, and where the reference figures come from. Functions are static
 * inline: each test_*.c is a program of its own that uses some of them. */
#ifndef NR_TESTS_STATS_FIXTURES_H
#define NR_TESTS_STATS_FIXTURES_H

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

static inline void assert_close_at(double x, double ref, double rtol,
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
static inline void fill(double *x, size_t n, unsigned mul, unsigned add,
			unsigned mod, double div, double off)
{
	size_t i;

	for (i = 0; i < n; i++)
		x[i] = (double)((i * mul + add) % mod) / div + off;
}

/* 40 ticks: a level that steps from `before` to `after` at tick 20, with a
 * fixed +-3% zigzag so that no two values tie */
static inline void stepped(double *v, double before, double after)
{
	for (int i = 0; i < 40; i++)
		v[i] = (i < 20 ? before : after) * (1 + 0.03 * ((i % 4) - 1.5) / 1.5) + 0.001 * i;
}

/* n rates around mean: AR(1) noise with lag-1 correlation phi and a
 * stationary coefficient of variation of cv_pct */
static inline void ar1(gsl_rng *rng, double *x, size_t n, double mean, double phi, double cv_pct)
{
	double e = 0, sd = mean * cv_pct / 100 * sqrt(1 - phi * phi);

	for (size_t i = 0; i < n; i++) {
		e = phi * e + gsl_ran_gaussian(rng, sd);
		x[i] = mean + e;
	}
}

/*
 * Loopback figures at two distances between the test's vCPUs, as on the
 * EPYC guest: 120 ns and 450 ns, the rate falling as (x / 120)^-0.45, with
 * a fixed +-3% wobble that does not follow x. k: the rate at 120 ns.
 */
static inline void placed(double k, const double *x, size_t n, double *y)
{
	static const double wobble[] = { 0.02, -0.03, 0.01, 0.03, -0.01, -0.02, 0.0, 0.015 };

	for (size_t i = 0; i < n; i++)
		y[i] = k * pow(x[i] / 120, -0.45) * (1 + wobble[i % 8]);
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
static inline double host_window(gsl_rng *rng, const struct host_law *law, double k, double p_far,
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
static inline double moving_window(gsl_rng *rng, double k, double p_far, double *rate,
				   double *x, size_t n)
{
	static const struct host_law law = { .slope = -0.45, .p_switch = 0.03 };

	return host_window(rng, &law, k, p_far, rate, x, n);
}

#endif
