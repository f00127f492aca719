// SPDX-License-Identifier: GPL-2.0-only
/* Mann-Whitney U test with an exact null distribution that allows ties. */
#include "stats/mwu.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>

#include "stats/internal.h"

struct pooled {
	double v;
	int in_b;
};

static int cmp_pooled(const void *pa, const void *pb)
{
	const struct pooled *a = pa, *b = pb;

	return (a->v > b->v) - (a->v < b->v);
}

int stats_u_null_cdf(size_t m, size_t n, double **cdf_out)
{
	size_t mn, len, i, j, u;
	double *g, *row, v, total;

	if (!m || !n || m > SIZE_MAX / n)
		return -EINVAL;
	mn = m * n;
	len = mn + 1;
	if (n + 1 > SIZE_MAX / sizeof(*g) / len)
		return -ENOMEM;
	/*
	 * g[j][u]: arrangements of i values of a and j of b with U = u. Adding
	 * an a after j b's adds j to U, so g_i[j][u] = g_{i-1}[j][u - j] +
	 * g_i[j - 1][u]; updated in place, u descending. Only additions of
	 * non-negative counts: no cancellation even when C(m+n, m) > 2^53.
	 */
	g = calloc((n + 1) * len, sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (j = 0; j <= n; j++)
		g[j * len] = 1;
	for (i = 1; i <= m; i++) {
		for (j = 1; j <= n; j++) {
			row = g + j * len;
			for (u = i * j + 1; u-- > 0;) {
				v = u >= j ? row[u - j] : 0;
				row[u] = v + g[(j - 1) * len + u];
			}
		}
	}
	row = g + n * len;
	total = 0;
	for (u = 0; u < len; u++)
		total += row[u];
	/* cumulate into the first len slots; the rest is scratch */
	v = 0;
	for (u = 0; u < len; u++) {
		v += row[u];
		g[u] = v / total;
	}
	g[mn] = 1; /* not 1 - epsilon from rounding */
	*cdf_out = g;
	return 0;
}

/*
 * P(W <= w) and P(W >= w) for W the sum of k of the n doubled midranks r2
 * drawn without replacement, every k-subset equally likely.
 *
 * cnt[j][s]: the j-subsets of the items so far that sum to s. Only what
 * can be non-zero and can still reach row k is added: j from k - (items
 * left) up, s from the j smallest sums to the j largest of the items so
 * far (r2 ascending: prefix sums give both). Half the additions or less
 * at n = 2k, the same counts.
 */
static int tied_tails(const unsigned long *r2, size_t n, size_t k,
		      unsigned long w, double *le, double *ge)
{
	unsigned long smax = 0, s, top, *pre;
	size_t i, j, jmin, jmax, width;
	double *cnt, *dst, *src, total = 0, lo = 0, hi = 0;

	for (i = n - k; i < n; i++) /* r2 ascending: the k largest */
		smax += r2[i];
	width = (size_t)smax + 1;
	if (k + 1 > SIZE_MAX / sizeof(*cnt) / width)
		return -ENOMEM;
	cnt = calloc((k + 1) * width, sizeof(*cnt));
	pre = malloc((n + 1) * sizeof(*pre));
	if (!cnt || !pre) {
		free(cnt);
		free(pre);
		return -ENOMEM;
	}
	pre[0] = 0;
	for (i = 0; i < n; i++)
		pre[i + 1] = pre[i] + r2[i];
	cnt[0] = 1;
	for (i = 0; i < n; i++) {
		jmax = i + 1 < k ? i + 1 : k;
		jmin = k > n - 1 - i ? k - (n - 1 - i) : 1;
		/* j descending: row j - 1 still counts without item i */
		for (j = jmax; j >= jmin; j--) {
			dst = cnt + j * width;
			src = cnt + (j - 1) * width;
			top = pre[i + 1] - pre[i + 1 - j];
			for (s = r2[i] + pre[j - 1]; s <= top; s++)
				dst[s] += src[s - r2[i]];
		}
	}
	free(pre);
	dst = cnt + k * width;
	for (s = 0; s <= smax; s++) {
		total += dst[s];
		if (s <= w)
			lo += dst[s];
		if (s >= w)
			hi += dst[s];
	}
	*le = lo / total;
	*ge = hi / total;
	free(cnt);
	return 0;
}

int stats_mann_whitney(const double *a, size_t na, const double *b,
		       size_t nb, struct stats_mwu *out)
{
	size_t n = na + nb, i, j, k;
	struct pooled *pool = NULL;
	unsigned long *r2 = NULL, w2a = 0, w;
	double ties = 0, t, mu, sigma2, d, le, ge, p;
	double *cdf = NULL;
	struct stats_mwu res = { 0 };
	int ret;

	if (!a || !b || !out || !na || !nb)
		return -EINVAL;
	if (stats_check_finite(a, na) || stats_check_finite(b, nb))
		return -EINVAL;
	ret = -ENOMEM;
	pool = malloc(n * sizeof(*pool));
	r2 = malloc(n * sizeof(*r2));
	if (!pool || !r2)
		goto out;
	for (i = 0; i < na; i++)
		pool[i] = (struct pooled){ a[i], 0 };
	for (i = 0; i < nb; i++)
		pool[na + i] = (struct pooled){ b[i], 1 };
	qsort(pool, n, sizeof(*pool), cmp_pooled);

	/* positions i..j-1 (0-based) tie: doubled midrank (i+1) + j */
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && pool[j].v == pool[i].v; j++)
			;
		t = (double)(j - i);
		ties += t * t * t - t;
		for (k = i; k < j; k++) {
			r2[k] = (unsigned long)(i + 1 + j);
			if (!pool[k].in_b)
				w2a += r2[k];
		}
	}
	res.u = (double)w2a / 2 - (double)na * (double)(na + 1) / 2;

	mu = (double)na * (double)nb / 2;
	sigma2 = (double)na * (double)nb / 12 *
		 ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	d = res.u - mu;
	if (sigma2 > 0 && d != 0)
		res.z = (d - (d > 0 ? 0.5 : -0.5)) / sqrt(sigma2);

	if (na <= STATS_MWU_EXACT_MAX_N && nb <= STATS_MWU_EXACT_MAX_N) {
		res.exact = true;
		if (ties == 0) {
			size_t u = (size_t)res.u, mn = na * nb;

			ret = stats_u_null_cdf(na, nb, &cdf);
			if (ret)
				goto out;
			le = cdf[u];
			ge = cdf[mn - u]; /* the distribution is symmetric */
		} else {
			/* enumerate subsets of the smaller side: less work */
			k = na <= nb ? na : nb;
			w = na <= nb ? w2a : (unsigned long)(n * (n + 1)) - w2a;
			ret = tied_tails(r2, n, k, w, &le, &ge);
			if (ret)
				goto out;
		}
		p = 2 * (le < ge ? le : ge);
	} else {
		p = sigma2 > 0 ? 2 * gsl_cdf_ugaussian_Q(fabs(res.z)) : 1;
	}
	res.p = p > 1 ? 1 : p;
	*out = res;
	ret = 0;
out:
	free(cdf);
	free(r2);
	free(pool);
	return ret;
}

/* ln C(t, r) for the tie group of v[edge - 1 .. edge] in sorted v[0..n):
 * the split takes the first edge values, r of the group's t */
static double ln_edge_ways(const double *v, size_t n, size_t edge)
{
	size_t lo = edge - 1, hi = edge;

	while (lo > 0 && v[lo - 1] == v[edge - 1])
		lo--;
	while (hi < n && v[hi] == v[edge - 1])
		hi++;
	return gsl_sf_lnchoose((unsigned int)(hi - lo), (unsigned int)(edge - lo));
}

int stats_mwu_min_p(const double *a, size_t na, const double *b, size_t nb,
		    double *p)
{
	size_t n = na + nb;
	struct stats_mwu lo, hi;
	double *v, ways;
	int ret;

	if (!a || !b || !p || !na || !nb)
		return -EINVAL;
	if (stats_check_finite(a, na) || stats_check_finite(b, nb))
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, a, na * sizeof(*v));
	memcpy(v + na, b, nb * sizeof(*v));
	qsort(v, n, sizeof(*v), stats_cmp_double);
	if (na <= STATS_MWU_EXACT_MAX_N && nb <= STATS_MWU_EXACT_MAX_N) {
		/* a holds the na smallest, or the na largest: the nb smallest
		 * are b's; the fewer ways to reach the extreme, the smaller p */
		ways = fmin(ln_edge_ways(v, n, na), ln_edge_ways(v, n, nb));
		*p = fmin(1, 2 * exp(ways - gsl_sf_lnchoose((unsigned int)n, (unsigned int)na)));
		free(v);
		return 0;
	}
	ret = stats_mann_whitney(v, na, v + na, nb, &lo);
	if (!ret)
		ret = stats_mann_whitney(v + nb, na, v, nb, &hi);
	if (!ret)
		*p = fmin(lo.p, hi.p);
	free(v);
	return ret;
}
