// SPDX-License-Identifier: GPL-2.0-only
/* Descriptive statistics of one sample; see desc.h. */
#include "stats/desc.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/internal.h"

int stats_check_finite(const double *x, size_t n)
{
	size_t i;

	if (n && !x)
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	return 0;
}

int stats_cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

int stats_sorted_copy(const double *x, size_t n, double **out)
{
	double *s;

	if (n > SIZE_MAX / sizeof(*s))
		return -ENOMEM;
	s = malloc(n * sizeof(*s));
	if (!s)
		return -ENOMEM;
	memcpy(s, x, n * sizeof(*s));
	qsort(s, n, sizeof(*s), stats_cmp_double);
	*out = s;
	return 0;
}

double stats_sorted_quantile(const double *s, size_t n, double p)
{
	double h = (double)(n - 1) * p, f;
	size_t i = (size_t)floor(h);

	if (i >= n - 1)
		return s[n - 1];
	f = h - (double)i;
	/* both terms, so that equal neighbours give exactly their value */
	return f == 0 ? s[i] : s[i] + f * (s[i + 1] - s[i]);
}

double stats_sorted_median(const double *s, size_t n)
{
	double lo, hi, m;

	if (n % 2)
		return s[n / 2];
	/* halves first: no overflow near DBL_MAX; a subnormal half rounds,
	 * so the midpoint is held between the two (fuzz_stats found one a
	 * unit of the last place outside) */
	lo = s[n / 2 - 1];
	hi = s[n / 2];
	m = lo / 2 + hi / 2;
	return m < lo ? lo : m > hi ? hi : m;
}

/* Mean with one correction pass, which removes most rounding error. */
static double mean_of(const double *x, size_t n)
{
	double sum = 0, m, corr = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += x[i];
	m = sum / (double)n;
	for (i = 0; i < n; i++)
		corr += x[i] - m;
	return m + corr / (double)n;
}

static double sd_of(const double *x, size_t n)
{
	double m = mean_of(x, n), ss = 0, d;
	size_t i;

	for (i = 0; i < n; i++) {
		d = x[i] - m;
		ss += d * d;
	}
	return sqrt(ss / (double)(n - 1));
}

static int check(const double *x, size_t n, size_t min_n, const double *out)
{
	if (!x || !out || n < min_n)
		return -EINVAL;
	return stats_check_finite(x, n);
}

int stats_mean(const double *x, size_t n, double *out)
{
	int ret = check(x, n, 1, out);

	if (ret)
		return ret;
	*out = mean_of(x, n);
	return 0;
}

int stats_median(const double *x, size_t n, double *out)
{
	return stats_quantile(x, n, 0.5, out);
}

int stats_sd(const double *x, size_t n, double *out)
{
	int ret = check(x, n, 2, out);

	if (ret)
		return ret;
	*out = sd_of(x, n);
	return 0;
}

int stats_cv_pct(const double *x, size_t n, double *out)
{
	int ret = check(x, n, 2, out);
	double m;

	if (ret)
		return ret;
	m = mean_of(x, n);
	if (m == 0)
		return -EDOM;
	*out = 100 * sd_of(x, n) / fabs(m);
	return 0;
}

int stats_quantile(const double *x, size_t n, double p, double *out)
{
	int ret = check(x, n, 1, out);
	double *s = NULL;

	if (ret)
		return ret;
	if (!(p >= 0 && p <= 1))
		return -EINVAL;
	ret = stats_sorted_copy(x, n, &s);
	if (ret)
		return ret;
	/* type 7 at p = 0.5 is the usual median, even n included */
	*out = p == 0.5 ? stats_sorted_median(s, n) :
			  stats_sorted_quantile(s, n, p);
	free(s);
	return 0;
}

int stats_mad(const double *x, size_t n, double *out)
{
	int ret = check(x, n, 1, out);
	double *s = NULL, med;
	size_t i;

	if (ret)
		return ret;
	ret = stats_sorted_copy(x, n, &s);
	if (ret)
		return ret;
	med = stats_sorted_median(s, n);
	for (i = 0; i < n; i++)
		s[i] = fabs(s[i] - med);
	qsort(s, n, sizeof(*s), stats_cmp_double);
	*out = stats_sorted_median(s, n);
	free(s);
	return 0;
}

int stats_ci_half_pct(const double *x, size_t n, double conf, double *out)
{
	double mean, sd;
	int ret;

	if (!x || !out || n < 2 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if ((ret = stats_mean(x, n, &mean)) || (ret = stats_sd(x, n, &sd)))
		return ret;
	if (mean == 0)
		return -EDOM;
	*out = gsl_cdf_tdist_Qinv((1 - conf) / 2, (double)(n - 1)) * sd /
	       sqrt((double)n) / fabs(mean) * 100.0;
	return 0;
}

double stats_settle_half_pct(const double *x, size_t n)
{
	double h;

	if (n < STATS_SETTLE_MIN_N || stats_ci_half_pct(x, n, 0.95, &h))
		return INFINITY;
	return h;
}

/* exp of a mean of logs with its t interval and p on df degrees */
static void log_estimate(double mean, double se, double sd, size_t n, double df, double conf,
			 struct stats_ratio *out)
{
	double h = gsl_cdf_tdist_Qinv((1 - conf) / 2, df) * se;

	out->n = n;
	out->geomean = exp(mean);
	out->lo = exp(mean - h);
	out->hi = exp(mean + h);
	out->sd_log = sd;
	out->p = se > 0 ? 2 * gsl_cdf_tdist_Q(fabs(mean) / se, df) : mean != 0 ? 0 : 1;
}

int stats_paired_ratio(const double *num, const double *den, size_t n,
		       double conf, struct stats_ratio *out)
{
	double *l, mean, sd;
	int ret;

	if (!num || !den || !out || n < 2 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if ((ret = stats_check_finite(num, n)) || (ret = stats_check_finite(den, n)))
		return ret;
	for (size_t i = 0; i < n; i++)
		if (!(num[i] > 0) || !(den[i] > 0))
			return -EDOM;
	l = malloc(n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		l[i] = log(num[i]) - log(den[i]); /* num / den may overflow */
	ret = stats_mean(l, n, &mean);
	if (!ret)
		ret = stats_sd(l, n, &sd);
	free(l);
	if (ret)
		return ret;
	log_estimate(mean, sd / sqrt((double)n), sd, n, (double)(n - 1), conf, out);
	return 0;
}

int stats_crossover_ratio(const double *num, const double *den, const bool *den_first,
			  size_t n, double conf, struct stats_ratio *change,
			  struct stats_ratio *period)
{
	double sum[2] = { 0, 0 }, ss[2] = { 0, 0 }, m[2], sd, se;
	size_t k[2] = { 0, 0 };
	int ret;

	if (!num || !den || !den_first || !change || !period || !(conf > 0 && conf < 1))
		return -EINVAL;
	if ((ret = stats_check_finite(num, n)) || (ret = stats_check_finite(den, n)))
		return ret;
	for (size_t i = 0; i < n; i++) {
		if (!(num[i] > 0) || !(den[i] > 0))
			return -EDOM;
		k[!den_first[i]]++;
	}
	if (!k[0] || !k[1] || n < 3)
		return -EINVAL;
	/* two passes: the means, then the squares about them */
	for (size_t i = 0; i < n; i++)
		sum[!den_first[i]] += log(num[i]) - log(den[i]);
	m[0] = sum[0] / (double)k[0];
	m[1] = sum[1] / (double)k[1];
	for (size_t i = 0; i < n; i++) {
		double d = log(num[i]) - log(den[i]) - m[!den_first[i]];

		ss[!den_first[i]] += d * d;
	}
	sd = sqrt((ss[0] + ss[1]) / (double)(n - 2));
	se = sd / 2 * sqrt(1 / (double)k[0] + 1 / (double)k[1]);
	log_estimate((m[0] + m[1]) / 2, se, sd, n, (double)(n - 2), conf, change);
	/* den first: num came second, and m[0] = change + period */
	log_estimate((m[0] - m[1]) / 2, se, sd, n, (double)(n - 2), conf, period);
	return 0;
}
