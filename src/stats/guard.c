// SPDX-License-Identifier: GPL-2.0-only
/* Outlier count by modified z-scores and the Mann-Kendall drift test. */
#include "stats/guard.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

#include "stats/desc.h"
#include "stats/internal.h"
#include "stats/levels.h"

int stats_outliers(const double *x, size_t n, size_t *count)
{
	double *s = NULL, med, mad, mean_ad = 0, scale;
	size_t i, c = 0;
	int ret;

	if (!x || !count || !n)
		return -EINVAL;
	if (stats_check_finite(x, n))
		return -EINVAL;
	ret = stats_sorted_copy(x, n, &s);
	if (ret)
		return ret;
	med = stats_sorted_median(s, n);
	for (i = 0; i < n; i++) {
		s[i] = fabs(x[i] - med);
		mean_ad += s[i];
	}
	mean_ad /= (double)n;
	qsort(s, n, sizeof(*s), stats_cmp_double);
	mad = stats_sorted_median(s, n);
	/* distance from the median that makes a score of exactly 1 */
	scale = mad > 0 ? mad / 0.6745 : 1.253314 * mean_ad;
	if (scale > 0)
		for (i = 0; i < n; i++)
			if (fabs(x[i] - med) / scale > STATS_OUTLIER_Z)
				c++;
	*count = c;
	free(s);
	return 0;
}

static int sgn(double d)
{
	return (d > 0) - (d < 0);
}

int stats_mann_kendall(const double *x, size_t n, struct stats_trend *out)
{
	struct stats_trend res = { 0 };
	double *s = NULL, ties = 0, t, dn = (double)n;
	long long sum = 0;
	size_t i, j;
	int ret;

	if (!x || !out)
		return -EINVAL;
	if (stats_check_finite(x, n))
		return -EINVAL;
	if (n < 4) {
		res.tau = NAN;
		res.p = NAN;
		*out = res;
		return 0;
	}
	ret = stats_sorted_copy(x, n, &s);
	if (ret)
		return ret;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && s[j] == s[i]; j++)
			;
		t = (double)(j - i);
		ties += t * (t - 1) * (2 * t + 5);
	}
	free(s);
	for (i = 0; i + 1 < n; i++)
		for (j = i + 1; j < n; j++)
			sum += sgn(x[j] - x[i]);
	res.tested = true;
	res.var_factor = 1;
	res.s = (double)sum;
	res.var_s = (dn * (dn - 1) * (2 * dn + 5) - ties) / 18;
	res.tau = res.s / (dn * (dn - 1) / 2);
	if (res.var_s > 0 && sum != 0)
		res.z = (res.s - sgn(res.s)) / sqrt(res.var_s);
	res.p = 2 * gsl_cdf_ugaussian_Q(fabs(res.z));
	if (res.p > 1)
		res.p = 1;
	*out = res;
	return 0;
}

struct xy {
	double x, y;
};

static int by_x(const void *a, const void *b)
{
	double p = ((const struct xy *)a)->x, q = ((const struct xy *)b)->x;

	return (p > q) - (p < q);
}

int stats_kendall(const double *x, const double *y, size_t n,
		  struct stats_trend *out)
{
	struct xy *v;
	double *ys;
	int ret;

	if (!x || !y || !out)
		return -EINVAL;
	if (stats_check_finite(x, n) || stats_check_finite(y, n))
		return -EINVAL;
	v = malloc((n ? n : 1) * sizeof(*v));
	ys = malloc((n ? n : 1) * sizeof(*ys));
	if (!v || !ys) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = (struct xy){ x[i], y[i] };
	/* qsort is not stable: tied x keep no order, which such x never have */
	qsort(v, n, sizeof(*v), by_x);
	for (size_t i = 0; i < n; i++)
		ys[i] = v[i].y;
	ret = stats_mann_kendall(ys, n, out);
out:
	free(v);
	free(ys);
	return ret;
}

/* The factor that widens var(S) for a persistence rho (stats_steady). */
static double var_factor(size_t n, double rho)
{
	double dn = (double)n, f = 0, rk = 1;

	rho = fmin(fmax(rho, 0), STATS_STEADY_RHO_MAX);
	for (size_t k = 1; k + 2 < n; k++) {
		double dk = (double)k;

		rk *= rho;
		if (rk < 1e-12)
			break;
		f += (dn - dk) * (dn - dk - 1) * (dn - dk - 2) * (6 / M_PI) * asin(rk / 2);
	}
	return 1 + 2 * f / (dn * (dn - 1) * (dn - 2));
}

int stats_steady(const double *rates, size_t n, struct stats_trend *tr,
		 bool *not_steady)
{
	struct stats_levels lv;
	double rho;
	int ret;

	*not_steady = false;
	memset(tr, 0, sizeof(*tr));
	if (n < 8)
		return 0;
	if ((ret = stats_mann_kendall(rates, n, tr)) ||
	    (ret = stats_levels_rho(rates, n, &rho)) ||
	    (ret = stats_levels(rates, n, &lv)))
		return ret;
	tr->rho = fmin(fmax(rho, 0), STATS_STEADY_RHO_MAX);
	tr->var_factor = var_factor(n, rho);
	if (tr->var_s > 0 && tr->s != 0) {
		tr->z = (tr->s - sgn(tr->s)) / sqrt(tr->var_s * tr->var_factor);
		tr->p = fmin(1, 2 * gsl_cdf_ugaussian_Q(fabs(tr->z)));
	}
	*not_steady = (tr->p < STATS_STEADY_P && fabs(tr->tau) > STATS_STEADY_TAU) ||
		      (lv.tested && fabs(lv.last_pct - lv.first_pct) >= STATS_LEVEL_PCT);
	return 0;
}

int stats_host_trend(const double *rates, const double *speeds, size_t n,
		     const struct stats_trend *rate_tr, bool not_steady,
		     struct stats_host_trend *out)
{
	double *sp, *rt;
	bool moved;
	size_t k = 0;
	int ret = 0;

	if (!rates || !speeds || !rate_tr || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	sp = malloc((n ? n : 1) * sizeof(*sp));
	rt = malloc((n ? n : 1) * sizeof(*rt));
	if (!sp || !rt) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(speeds[i]) || !isfinite(rates[i]))
			continue;
		sp[k] = speeds[i];
		rt[k++] = rates[i];
	}
	if ((ret = stats_steady(sp, k, &out->speed, &moved)) || !out->speed.tested)
		goto out;
	if ((ret = stats_kendall(sp, rt, k, &out->rate_speed)))
		goto out;
	out->tested = true;
	out->host_trend = not_steady && rate_tr->tested && out->speed.p < STATS_STEADY_P &&
			  (out->speed.tau > 0) == (rate_tr->tau > 0);
out:
	free(sp);
	free(rt);
	return ret;
}

bool stats_xcpu_levels_moved(const struct stats_levels *lv)
{
	return lv->tested && lv->count > 1 && lv->lo_pct > 0 &&
	       lv->hi_pct / lv->lo_pct >= STATS_XCPU_MOVED_RATIO;
}

/* The ticks at or past mid (far apart) of a moved window: their share and
 * their mean rate against the others'. Levels more than one apart hold
 * ticks on both sides of their geometric middle. */
static void far_share(const double *x, const double *rt, size_t k, double mid,
		      struct stats_host_moved *out)
{
	double sum[2] = { 0, 0 };
	size_t cnt[2] = { 0, 0 };

	for (size_t i = 0; i < k; i++) {
		size_t far = x[i] >= mid;

		sum[far] += rt[i];
		cnt[far]++;
	}
	out->far_pct = 100.0 * (double)cnt[1] / (double)k;
	if (cnt[0] && cnt[1] && sum[0] > 0)
		out->rate_far_pct = 100.0 * (sum[1] / (double)cnt[1]) / (sum[0] / (double)cnt[0]);
}

int stats_host_moved(const double *rates, const double *xcpus, size_t n,
		     struct stats_host_moved *out)
{
	struct stats_levels lv;
	double *x, *rt, sum = 0;
	size_t k = 0;
	int ret = 0;

	if (!rates || !xcpus || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->rate_far_pct = NAN;
	x = malloc((n ? n : 1) * sizeof(*x));
	rt = malloc((n ? n : 1) * sizeof(*rt));
	if (!x || !rt) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(rates[i])) {
			ret = -EINVAL;
			goto out;
		}
		if (!isfinite(xcpus[i]) || xcpus[i] <= 0)
			continue;
		x[k] = xcpus[i];
		rt[k++] = rates[i];
		sum += xcpus[i];
	}
	if ((ret = stats_kendall(x, rt, k, &out->rate_xcpu)))
		goto out;
	if ((ret = stats_levels(x, k, &lv)) || !lv.tested)
		goto out;
	out->tested = true;
	out->levels = lv.count;
	out->lo_ns = lv.lo_pct * (sum / (double)k) / 100;
	out->hi_ns = lv.hi_pct * (sum / (double)k) / 100;
	out->moved = stats_xcpu_levels_moved(&lv);
	if (out->moved)
		far_share(x, rt, k, sqrt(out->lo_ns * out->hi_ns), out);
out:
	free(x);
	free(rt);
	return ret;
}

struct placed {
	double x, y;
	size_t side;
};

static int by_round_trip(const void *p, const void *q)
{
	double x = ((const struct placed *)p)->x, y = ((const struct placed *)q)->x;

	return (x > y) - (x < y);
}

/* The median of y of side's samples among pl[from..to), NaN when it had
 * none there; v is scratch. */
static double side_median(const struct placed *pl, size_t from, size_t to, size_t side,
			  double *v)
{
	double med = NAN;
	size_t k = 0;

	for (size_t i = from; i < to; i++)
		if (pl[i].side == side && !isnan(pl[i].y))
			v[k++] = pl[i].y;
	if (k)
		stats_median(v, k, &med);
	return med;
}

int stats_xcpu_mix(const double *xa, const double *ya, size_t na, const double *xb,
		   const double *yb, size_t nb, struct stats_xcpu_mix *out)
{
	size_t n = na + nb, cut = 0;
	struct placed *pl;
	double *v, gap = 0;

	if (!out || (na && !xa) || (nb && !xb))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->n[0] = na;
	out->n[1] = nb;
	if (n < 2)
		return 0;
	pl = malloc(n * sizeof(*pl));
	v = malloc(n * sizeof(*v));
	if (!pl || !v) {
		free(pl);
		free(v);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		size_t side = i >= na, k = side ? i - na : i;
		const double *y = side ? yb : ya;

		pl[i] = (struct placed){ side ? xb[k] : xa[k], y ? y[k] : NAN, side };
		if (!(pl[i].x > 0) || !isfinite(pl[i].x))
			goto out;
	}
	qsort(pl, n, sizeof(*pl), by_round_trip);
	for (size_t i = 1; i < n; i++) {
		if (pl[i].x / pl[i - 1].x > gap) {
			gap = pl[i].x / pl[i - 1].x;
			cut = i;
		}
	}
	if (gap < STATS_XCPU_MOVED_RATIO)
		goto out;
	out->split = true;
	for (size_t i = cut; i < n; i++)
		out->far[pl[i].side]++;
	out->lo_ns[0] = pl[0].x;
	out->hi_ns[0] = pl[cut - 1].x;
	out->lo_ns[1] = pl[cut].x;
	out->hi_ns[1] = pl[n - 1].x;
	for (size_t d = 0; d < 2; d++)
		for (size_t side = 0; side < 2; side++)
			out->median[d][side] = side_median(pl, d ? cut : 0, d ? n : cut, side, v);
out:
	free(pl);
	free(v);
	return 0;
}

bool stats_xcpu_mix_differs(const struct stats_xcpu_mix *m)
{
	return m->split && m->far[0] * m->n[1] != m->far[1] * m->n[0];
}

size_t stats_xcpu_mix_count(const struct stats_xcpu_mix *m, size_t d, size_t side)
{
	return d ? m->far[side] : m->n[side] - m->far[side];
}
