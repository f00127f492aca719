// SPDX-License-Identifier: GPL-2.0-only
/* What went with a label's headline from sample to sample, for `show`. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "stats/covary.h"
#include "stats/desc.h"
#include "stats/explain.h"
#include "stats/table.h"

/* The candidates are the comparer's (stats_explains). */
bool report_explains(const char *name, const char *test)
{
	return stats_explains(name, test);
}

/* the value of name in each sample, NaN where missing */
static double *values(const struct base_sample *s, size_t n, const char *name)
{
	double *v = malloc(n * sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = base_sample_value(&s[i], name);
	return v;
}

/*
 * A figure per MB (streams) or per transaction (request/response) is a
 * count over the work done: one that kept its pace per second falls per
 * unit as the rate rises, a tau near -1 that says nothing but the rate.
 * After its row, that figure per second (x times the rate: MB/s is Gbps
 * x 125), its cov and its own tau with the headline, and when that tau is
 * not significant (p >= alpha) that it kept its pace.
 */
static void per_second(FILE *out, const char *name, const double *x, const double *y,
		       size_t n, const char *headline, double alpha)
{
	double scale = stats_per_second_scale(name, headline);
	double *ps = malloc(n * sizeof(*ps)), med = NAN, cv = NAN;
	const double *const cand[] = { ps };
	struct stats_covary c;
	size_t nc = 0;

	if (!ps || !scale) {
		free(ps);
		return;
	}
	for (size_t i = 0; i < n; i++)
		ps[i] = x[i] * y[i] * scale;
	if (!stats_covary(y, cand, 1, n, &c, &nc) && nc == 1 && !stats_median(ps, n, &med) &&
	    !stats_cv_pct(ps, n, &cv))
		fprintf(out, "; per second %.4g (cov %.1f%%), tau %+.2f, p %.2g%s", med, cv, c.tau,
			c.p, c.p >= alpha ? ": it kept its pace, per unit it follows the rate by construction" : "");
	free(ps);
}

int report_explain(FILE *out, const struct base_sample *s, size_t n,
		   const char *test, size_t top, double alpha)
{
	const char *headline = stats_headline_metric(test);
	const struct base_sample *first = &s[0];
	struct stats_covary *cv = NULL;
	double *y = NULL, **x = NULL;
	const char **names = NULL;
	size_t nx = 0, ncv = 0, shown = 0;
	int ret = -ENOMEM;

	if (n < STATS_COVARY_MIN_N)
		return 0;
	y = values(s, n, headline);
	x = calloc(first->nmetrics ? first->nmetrics : 1, sizeof(*x));
	names = calloc(first->nmetrics ? first->nmetrics : 1, sizeof(*names));
	cv = calloc(first->nmetrics ? first->nmetrics : 1, sizeof(*cv));
	if (!y || !x || !names || !cv)
		goto out;
	for (size_t m = 0; m < first->nmetrics; m++) {
		if (!report_explains(first->metrics[m].name, test))
			continue;
		names[nx] = first->metrics[m].name;
		if (!(x[nx++] = values(s, n, first->metrics[m].name)))
			goto out;
	}
	if ((ret = stats_covary(y, (const double *const *)x, nx, n, cv, &ncv)))
		goto out;
	for (size_t i = 0; i < ncv && shown < top; i++) {
		const struct sample_metric *unit = base_sample_get(first, names[cv[i].index]);
		double med = NAN;

		if (!(cv[i].q < alpha))
			break;
		if (!shown++)
			fprintf(out, "what went with %s from sample to sample (Kendall's tau over %zu samples, "
				     "Benjamini-Hochberg q < %g over the %zu metrics tested):\n",
				headline, n, alpha, ncv);
		stats_median(x[cv[i].index], n, &med);
		fprintf(out, "  %-44s tau %+.2f  q %.2g  median %.4g%s%s", names[cv[i].index],
			cv[i].tau, cv[i].q, med, unit && unit->unit[0] ? " " : "",
			unit ? unit->unit : "");
		per_second(out, names[cv[i].index], x[cv[i].index], y, n, headline, alpha);
		fputc('\n', out);
	}
	if (!shown && ncv)
		fprintf(out, "nothing went with %s from sample to sample (Kendall's tau over %zu samples, "
			     "none of the %zu metrics tested at Benjamini-Hochberg q < %g; the closest, "
			     "%s: tau %+.2f, q %.2g)\n",
			headline, n, ncv, alpha, names[cv[0].index], cv[0].tau, cv[0].q);
	if (ncv)
		fputc('\n', out);
	ret = 0;
out:
	for (size_t i = 0; x && i < nx; i++)
		free(x[i]);
	free(x);
	free(names);
	free(cv);
	free(y);
	return ret;
}

/* "; with it taken out ...: cov" or "; not significant" and the newline. */
static void spread_left(FILE *out, const struct stats_adjust *ad, double cv)
{
	if (!isnan(cv))
		fprintf(out, "; with it taken out (every sample at %.0f ns): cov %.2f%%, as compare's .xcpu_adj row sees it\n",
			ad->x_ref, cv);
	else
		fputs("; not significant: nothing taken out\n", out);
}

/* Which samples' windows w[0..n) the host moved the CPUs within (w NULL,
 * or a window without its round trips: not known, not moved); returns how
 * many, or -ENOMEM. */
static int moved_windows(const struct stats_window *w, size_t n, bool *moved)
{
	int k = 0;

	for (size_t i = 0; i < n; i++) {
		struct stats_host_moved hm;
		int ret = w ? stats_host_moved(w[i].rate, w[i].x, w[i].n, &hm) : -EINVAL;

		if (ret == -ENOMEM)
			return ret;
		moved[i] = !ret && hm.moved;
		k += moved[i];
	}
	return k;
}

/* The cov of y over the samples i with pick[i] and not moved[i] into *cv
 * (NaN under 2); returns how many there were. */
static size_t cov_left_in_place(const double *y, const bool *pick, const bool *moved, size_t n,
				double *v, double *cv)
{
	size_t k = 0;

	*cv = NAN;
	for (size_t i = 0; i < n; i++)
		if (pick[i] && !moved[i])
			v[k++] = y[i];
	if (k >= 2)
		stats_cv_pct(v, k, cv);
	return k;
}

int report_spread_split(FILE *out, const char *prefix, const double *y, const double *x,
			const struct stats_window *w, size_t n)
{
	struct stats_xcpu_mix m;
	double *v = NULL;
	bool *moved = NULL, *pick = NULL;
	int nmoved = 0, ret = x ? stats_xcpu_mix(x, y, n, NULL, NULL, 0, &m) : 0;

	if (ret || !x || !n)
		return ret;
	v = malloc(n * sizeof(*v));
	moved = calloc(n, sizeof(*moved));
	pick = calloc(n, sizeof(*pick));
	ret = -ENOMEM;
	if (!v || !moved || !pick || (nmoved = moved_windows(w, n, moved)) < 0)
		goto out;
	ret = 0;
	if (!m.split) {
		double cv_all = NAN, cv;
		size_t k;

		/* one distance between the samples (each with its round
		 * trip), but windows the host moved the CPUs within: what the
		 * others read */
		for (size_t i = 0; i < n; i++) {
			if (!(x[i] > 0))
				goto out;
			pick[i] = true;
		}
		k = cov_left_in_place(y, pick, moved, n, v, &cv);
		if (!nmoved || isnan(cv))
			goto out;
		stats_cv_pct(y, n, &cv_all);
		fprintf(out, "%sthe %zu samples whose window the host did not move the CPUs within (window.xcpu_moved): cov %.2f%% (all %zu: cov %.2f%%; the cov at one placement)\n",
			prefix, k, cv, n, cv_all);
		ret = 1;
		goto out;
	}
	fprintf(out, "%sthe CPUs at two distances between the samples (host.xcpu_ns):", prefix);
	for (size_t d = 0; d < 2; d++) {
		double cv = NAN, cv_in;
		size_t k = 0, at = 0, kin;

		for (size_t i = 0; i < n; i++) {
			pick[i] = (x[i] >= m.lo_ns[1]) == (d == 1);
			if (pick[i])
				v[k++] = y[i];
		}
		at = k;
		if (k >= 2)
			stats_cv_pct(v, k, &cv);
		fprintf(out, "%s %s %.0f-%.0f ns in %zu, median %.5g", d ? ";" : "", d ? "far" : "near",
			m.lo_ns[d], m.hi_ns[d], at, m.median[d][0]);
		if (!isnan(cv))
			fprintf(out, ", cov %.2f%%", cv);
		kin = cov_left_in_place(y, pick, moved, n, v, &cv_in);
		if (kin < at && !isnan(cv_in))
			fprintf(out, ", %.2f%% over the %zu whose window the host did not move", cv_in, kin);
	}
	fputs(" (the cov at one placement)\n", out);
	ret = 1;
out:
	free(v);
	free(moved);
	free(pick);
	return ret;
}

int report_windows_spread(FILE *out, const double *y, const struct stats_window *w,
			  const double *x, size_t n)
{
	struct stats_adjust win, smp;
	double cv;
	int ret;

	if (n < STATS_ADJUST_MIN_N)
		return 0;
	ret = stats_adjust_one_cv(y, w, x, n, &win, &smp, &cv);
	if (ret)
		return ret;
	if (w && win.tested) {
		fprintf(out, "the CPUs' distance within the windows: ln(rate) = %+.3f [%+.3f, %+.3f] x ln(round trip) (p = %.4f, %zu windows in which it varied, %.0f%% of the variance within them)",
			win.slope, win.slope_lo, win.slope_hi, win.slope_p, win.windows, 100 * win.r2);
		spread_left(out, &win, cv);
	} else if (w && win.ticks) {
		fprintf(out, "the CPUs' distance within the windows: not fitted: the host moved the CPUs within %zu of the %zu windows (window.xcpu_moved), a fit needs %d\n",
			win.stepped, n, STATS_ADJUST_MIN_WINDOWS);
	} else if (w) {
		fprintf(out, "the CPUs' distance within the windows: not fitted: a sample without its rate, or a window with fewer than %d intervals that have a rate and a round trip\n",
			STATS_ADJUST_MIN_TICKS);
	}
	/* the windows gave no fit: the samples' own, as compare takes it */
	if (smp.tested) {
		fprintf(out, "the CPUs' distance between the samples: ln(headline) = %+.3f [%+.3f, %+.3f] x ln(host.xcpu_ns) (p = %.4f, %zu samples, %.0f%% of their variance)",
			smp.slope, smp.slope_lo, smp.slope_hi, smp.slope_p, n, 100 * smp.r2);
		spread_left(out, &smp, cv);
	}
	if ((ret = report_spread_split(out, "", y, x, w, n)) < 0)
		return ret;
	return w || smp.tested || ret;
}
