// SPDX-License-Identifier: GPL-2.0-only
/* SVG charts of the report: number formats, scales and ticks, the axes of the matrix, and the charts drawn on them. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "report/internal.h"
#include "stats/desc.h"

void report_fmt_num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		snprintf(buf, len, "%.3e", v);
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f", v); /* 40596, not 4.06e+04 */
	else
		snprintf(buf, len, "%.4g", v);
}

void report_fmt_pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", v);
}

void report_fmt_sd(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "±%.1f%%", v);
}

void report_fmt_si(char *buf, size_t len, double v)
{
	static const struct {
		double scale;
		const char *suffix;
	} si[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(si); i++) {
		if (a >= si[i].scale) {
			snprintf(buf, len, "%.6g%s", v / si[i].scale, si[i].suffix);
			return;
		}
	}
	/* 0.30000000000000004 is 0.3; a tiny value next to 0 is 0 */
	snprintf(buf, len, "%.6g", a < 1e-12 ? 0.0 : v);
}

static bool is_size_param(const char *key)
{
	static const char *const sizes[] = { "msg", "rmsg", "req", "resp",
					     "sndbuf", "rcvbuf", "remote_sndbuf",
					     "remote_rcvbuf" };

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!strcmp(key, sizes[i]))
			return true;
	return false;
}

/* A plain non-negative decimal integer. */
static bool is_uint(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !*end && !errno;
}

void report_fmt_param(char *buf, size_t len, const char *key, const char *val)
{
	uint64_t v;

	if (is_size_param(key) && is_uint(val, &v))
		base_format_size(v, buf, len);
	else
		snprintf(buf, len, "%s", val);
}

double report_median(const double *v, size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof(*x)), m = NAN;
	size_t k = 0;

	if (!x)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			x[k++] = v[i];
	if (k && stats_median(x, k, &m))
		m = NAN;
	free(x);
	return m;
}

double report_cv_pct(const double *v, size_t n)
{
	double *x = malloc((n ? n : 1) * sizeof(*x)), cv = NAN;
	size_t k = 0;

	if (!x)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			x[k++] = v[i];
	if (k < 2 || stats_cv_pct(x, k, &cv))
		cv = NAN;
	free(x);
	return cv;
}

const char *report_color(size_t i)
{
	/* Okabe-Ito, without the yellow that vanishes on white */
	static const char *const palette[REPORT_NCOLORS] = {
		"#0072B2", "#D55E00", "#009E73", "#CC79A7",
		"#E69F00", "#56B4E9", "#000000", "#999999",
	};

	return palette[i % REPORT_NCOLORS];
}

int report_ticks_linear(double lo, double hi, size_t target,
			struct report_ticks *t)
{
	double raw, mag, norm, step, first;

	memset(t, 0, sizeof(*t));
	if (!isfinite(lo) || !isfinite(hi) || lo > hi || target < 2 || target > 20)
		return -EINVAL;
	if (lo == hi) {
		double pad = lo == 0 ? 1 : fabs(lo) * 0.1;

		hi = lo + pad;
		lo = lo == 0 ? 0 : lo - pad;
	}
	raw = (hi - lo) / (double)target;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * mag;
	first = floor(lo / step + 1e-9) * step;
	t->lo = first;
	t->hi = ceil(hi / step - 1e-9) * step;
	for (double x = first; t->n < REPORT_MAX_TICKS && x <= t->hi + step * 1e-9;
	     x = first + step * (double)t->n)
		t->v[t->n++] = fabs(x) < step * 1e-9 ? 0 : x;
	return 0;
}

int report_ticks_log(double lo, double hi, struct report_ticks *t)
{
	static const double sub[] = { 1, 2, 5 };
	int e0, e1;

	memset(t, 0, sizeof(*t));
	t->log = true;
	if (!isfinite(lo) || !isfinite(hi) || lo <= 0 || lo > hi)
		return -EINVAL;
	e0 = (int)floor(log10(lo) + 1e-9);
	e1 = (int)ceil(log10(hi) - 1e-9);
	if (e1 <= e0)
		e1 = e0 + 1;
	if (e1 - e0 > REPORT_MAX_TICKS - 1)
		return -EINVAL;
	t->lo = pow(10, e0);
	t->hi = pow(10, e1);
	for (int e = e0; e <= e1 && t->n < REPORT_MAX_TICKS; e++) {
		for (size_t i = 0; i < ARRAY_SIZE(sub) && t->n < REPORT_MAX_TICKS; i++) {
			if (i && (e1 - e0 > 2 || e == e1))
				break;
			t->v[t->n++] = sub[i] * pow(10, e);
		}
	}
	return 0;
}

double report_ticks_map(const struct report_ticks *t, double v, double px_lo,
			double px_hi)
{
	double f;

	if (t->log) {
		if (!(v > 0))
			return px_lo;
		f = (log10(v) - log10(t->lo)) / (log10(t->hi) - log10(t->lo));
	} else {
		f = (v - t->lo) / (t->hi - t->lo);
	}
	return px_lo + f * (px_hi - px_lo);
}

const char *report_param(const struct report_doc *d, size_t c, const char *key)
{
	const struct report_config *cf = &d->configs[c];

	for (size_t i = 0; i < cf->nparams; i++)
		if (!strcmp(cf->params[i].key, key))
			return cf->params[i].val;
	return "";
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The parameter names of the configurations idx[0..n) (all when idx is
 * NULL), sorted, without "test"; NULL-terminated, names borrowed. */
static const char **param_union(const struct report_doc *d, const size_t *idx,
				size_t n, size_t *nkeys)
{
	size_t cap = 1, k = 0;
	const char **keys;

	for (size_t i = 0; i < n; i++)
		cap += d->configs[idx ? idx[i] : i].nparams;
	keys = malloc(cap * sizeof(*keys));
	if (!keys)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const struct report_config *cf = &d->configs[idx ? idx[i] : i];

		for (size_t j = 0; j < cf->nparams; j++) {
			const char *key = cf->params[j].key;
			bool seen = !strcmp(key, "test");

			for (size_t m = 0; m < k && !seen; m++)
				seen = !strcmp(keys[m], key);
			if (!seen)
				keys[k++] = key;
		}
	}
	qsort(keys, k, sizeof(*keys), by_str);
	keys[k] = NULL;
	*nkeys = k;
	return keys;
}

static bool varies(const struct report_doc *d, const size_t *idx, size_t n,
		   const char *key)
{
	const char *first = n ? report_param(d, idx ? idx[0] : 0, key) : "";

	for (size_t i = 1; i < n; i++)
		if (strcmp(first, report_param(d, idx ? idx[i] : i, key)))
			return true;
	return false;
}

/* The configurations of test (NULL: all) in idx; how many. */
static size_t configs_of(const struct report_doc *d, const char *test,
			 size_t *idx)
{
	size_t k = 0;

	for (size_t c = 0; c < d->nconfigs; c++)
		if (!test || !strcmp(d->configs[c].test, test))
			idx[k++] = c;
	return k;
}

int report_params_split(const struct report_doc *d, const char *test,
			const char ***varying, const char ***common)
{
	size_t nkeys, nv = 0, nc = 0, n;
	size_t *idx = malloc((d->nconfigs ? d->nconfigs : 1) * sizeof(*idx));
	const char **keys = NULL;

	*varying = *common = NULL;
	if (!idx)
		return -ENOMEM;
	n = configs_of(d, test, idx);
	keys = param_union(d, idx, n, &nkeys);
	if (keys) {
		*varying = malloc((nkeys + 1) * sizeof(**varying));
		*common = malloc((nkeys + 1) * sizeof(**common));
	}
	if (!keys || !*varying || !*common) {
		free(idx);
		free(keys);
		free(*varying);
		free(*common);
		*varying = *common = NULL;
		return -ENOMEM;
	}
	for (size_t i = 0; i < nkeys; i++) {
		bool everywhere = true;

		for (size_t j = 0; j < n && everywhere; j++)
			everywhere = *report_param(d, idx[j], keys[i]) != '\0';
		if (varies(d, idx, n, keys[i]))
			(*varying)[nv++] = keys[i];
		else if (everywhere)
			(*common)[nc++] = keys[i];
	}
	(*varying)[nv] = NULL;
	(*common)[nc] = NULL;
	free(idx);
	free(keys);
	return 0;
}

/* Append "key=value" (value formatted) to buf at *off, space-separated. */
static void append_kv(char *buf, size_t len, size_t *off, const char *key,
		      const char *val)
{
	char v[272];
	int w;

	if (*off >= len)
		return;
	report_fmt_param(v, sizeof(v), key, val);
	w = snprintf(buf + *off, len - *off, "%s%s=%s", *off ? " " : "", key, v);
	if (w > 0)
		*off = *off + (size_t)w < len ? *off + (size_t)w : len;
}

char **report_config_descs(const struct report_doc *d)
{
	char **desc = calloc(d->nconfigs + 1, sizeof(*desc));
	const char **tests = report_tests(d);
	int ret = desc && tests ? 0 : -ENOMEM;

	/* per test: what varies among its configurations names each of them */
	for (size_t t = 0; !ret && tests[t]; t++) {
		const char **varying = NULL, **common = NULL;

		if ((ret = report_params_split(d, tests[t], &varying, &common)))
			break;
		for (size_t c = 0; c < d->nconfigs && !ret; c++) {
			char buf[1024];
			size_t off = 0;

			if (strcmp(d->configs[c].test, tests[t]))
				continue;
			buf[0] = '\0';
			append_kv(buf, sizeof(buf), &off, "test", d->configs[c].test);
			for (size_t i = 0; varying[i]; i++) {
				const char *v = report_param(d, c, varying[i]);

				if (*v)
					append_kv(buf, sizeof(buf), &off, varying[i], v);
			}
			desc[c] = strdup(buf);
			if (!desc[c])
				ret = -ENOMEM;
		}
		free(varying);
		free(common);
	}
	free(tests);
	if (ret) {
		report_config_descs_free(desc, d->nconfigs);
		return NULL;
	}
	return desc;
}

void report_config_descs_free(char **desc, size_t n)
{
	for (size_t i = 0; desc && i < n; i++)
		free(desc[i]);
	free(desc);
}

const char **report_tests(const struct report_doc *d)
{
	const char **t = malloc((d->nconfigs + 1) * sizeof(*t));
	size_t n = 0;

	if (!t)
		return NULL;
	for (size_t c = 0; c < d->nconfigs; c++) {
		bool seen = false;

		for (size_t i = 0; i < n && !seen; i++)
			seen = !strcmp(t[i], d->configs[c].test);
		if (!seen)
			t[n++] = d->configs[c].test;
	}
	t[n] = NULL;
	return t;
}

int report_params_text(const struct report_doc *d, const char *test,
		       char *buf, size_t len)
{
	const char **vary = NULL, **common = NULL, **gv = NULL, **gc = NULL;
	size_t off = 0, first = 0;
	int ret;

	if (len)
		buf[0] = '\0';
	if ((ret = report_params_split(d, test, &vary, &common)))
		return ret;
	if (test && (ret = report_params_split(d, NULL, &gv, &gc)))
		goto out;
	for (size_t c = 0; c < d->nconfigs && test; c++)
		if (!strcmp(d->configs[c].test, test)) {
			first = c;
			break;
		}
	for (size_t i = 0; common[i]; i++) {
		bool everywhere = false;

		for (size_t j = 0; gc && gc[j] && !everywhere; j++)
			everywhere = !strcmp(gc[j], common[i]);
		if (!everywhere)
			append_kv(buf, len, &off, common[i],
				  report_param(d, first, common[i]));
	}
out:
	free(vary);
	free(common);
	free(gv);
	free(gc);
	return ret;
}

/*
 * Is the value of vary[q] a function of the value of vary[p]? vid[i * nvary
 * + k] numbers the value of vary[k] in the i-th configuration (by the index
 * of its first occurrence, so below n): one pass over seen[n] answers.
 */
static bool determines(const size_t *vid, size_t n, size_t nvary, size_t p,
		       size_t q, size_t *seen)
{
	for (size_t i = 0; i < n; i++)
		seen[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		size_t a = vid[i * nvary + p], b = vid[i * nvary + q];

		if (seen[a] == SIZE_MAX)
			seen[a] = b;
		else if (seen[a] != b)
			return false;
	}
	return true;
}

static bool is_special(const char *v)
{
	return !*v || !strcmp(v, "auto") || !strcmp(v, "none") ||
	       !strcmp(v, "default");
}

static bool is_number(const char *v, double *x)
{
	char *end;

	if (!*v)
		return false;
	errno = 0;
	*x = strtod(v, &end);
	return !*end && !errno && isfinite(*x);
}

/* Order the categories: numbers ascending, then the special words, when
 * every value is one or the other; otherwise leave them as they came. */
static void order_categories(struct report_chart *c)
{
	double xi, xj;

	for (size_t i = 0; i < c->nx; i++)
		if (!is_special(c->xval[i]) && !is_number(c->xval[i], &xi))
			return;
	/* insertion sort: stable, so the special words keep their order */
	for (size_t i = 1; i < c->nx; i++) {
		for (size_t j = i; j > 0; j--) {
			const char *a = c->xval[j - 1], *b = c->xval[j];
			bool sa = is_special(a), sb = is_special(b), swap;

			if (sa || sb)
				swap = sa && !sb;
			else
				swap = is_number(a, &xi) && is_number(b, &xj) && xi > xj;
			if (!swap)
				break;
			c->xval[j - 1] = b;
			c->xval[j] = a;
			{
				size_t t = c->config[j - 1];

				c->config[j - 1] = c->config[j];
				c->config[j] = t;
			}
		}
	}
}

static int chart_push(struct report_chart **out, size_t *n, size_t *cap,
		      const struct report_chart *c)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct report_chart *p = realloc(*out, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*out = p;
		*cap = ncap;
	}
	(*out)[(*n)++] = *c;
	return 0;
}

/* The charts of axis p over the configurations idx[0..n) of one test;
 * vary[] are the parameters that vary there, dep[] marks those that
 * change with p. */
static int charts_of_axis(const struct report_doc *d, const size_t *idx,
			  size_t n, const char **vary, size_t nvary,
			  const size_t *vid, size_t p, const bool *dep,
			  struct report_chart **out, size_t *nout, size_t *cap)
{
	bool *done = calloc(n ? n : 1, sizeof(*done));
	int ret = 0;

	if (!done)
		return -ENOMEM;
	for (size_t g = 0; g < n && !ret; g++) {
		struct report_chart c;
		size_t off = 0;

		if (done[g])
			continue;
		memset(&c, 0, sizeof(c));
		c.test = d->configs[idx[g]].test;
		c.axis = vary[p];
		c.xval = malloc(n * sizeof(*c.xval));
		c.config = malloc(n * sizeof(*c.config));
		if (!c.xval || !c.config) {
			free(c.xval);
			free(c.config);
			ret = -ENOMEM;
			break;
		}
		/* the group of g: same values of every other independent key */
		for (size_t i = g; i < n; i++) {
			bool same = true;

			for (size_t k = 0; k < nvary && same; k++)
				if (k != p && !dep[k])
					same = vid[g * nvary + k] == vid[i * nvary + k];
			if (!same)
				continue;
			done[i] = true;
			c.xval[c.nx] = report_param(d, idx[i], vary[p]);
			c.config[c.nx++] = idx[i];
		}
		if (c.nx < 2) {
			free(c.xval);
			free(c.config);
			continue;
		}
		for (size_t k = 0; k < nvary; k++) {
			if (k != p && !dep[k])
				append_kv(c.fixed, sizeof(c.fixed), &off, vary[k],
					  report_param(d, idx[g], vary[k]));
		}
		off = 0;
		for (size_t k = 0; k < nvary; k++) {
			int w;

			if (!dep[k] || off >= sizeof(c.with))
				continue;
			w = snprintf(c.with + off, sizeof(c.with) - off, "%s%s",
				     off ? ", " : "", vary[k]);
			if (w > 0)
				off += (size_t)w;
		}
		order_categories(&c);
		ret = chart_push(out, nout, cap, &c);
		if (ret) {
			free(c.xval);
			free(c.config);
		}
	}
	free(done);
	return ret;
}

/* The charts of one test's configurations idx[0..n). */
static int charts_of_test(const struct report_doc *d, const size_t *idx,
			  size_t n, struct report_chart **out, size_t *nout,
			  size_t *cap)
{
	size_t nkeys, nvary = 0, *vid = NULL, *seen = NULL;
	const char **keys = param_union(d, idx, n, &nkeys);
	const char **vary = NULL;
	bool *dep = NULL;
	int ret = -ENOMEM;

	if (!keys)
		return -ENOMEM;
	vary = malloc((nkeys + 1) * sizeof(*vary));
	dep = calloc(nkeys + 1, sizeof(*dep));
	vid = malloc((n * nkeys + 1) * sizeof(*vid));
	seen = malloc((n + 1) * sizeof(*seen));
	if (!vary || !dep || !vid || !seen)
		goto out;
	for (size_t i = 0; i < nkeys; i++)
		if (varies(d, idx, n, keys[i]))
			vary[nvary++] = keys[i];
	/* number each value by its first occurrence */
	for (size_t k = 0; k < nvary; k++) {
		for (size_t i = 0; i < n; i++) {
			const char *v = report_param(d, idx[i], vary[k]);

			vid[i * nvary + k] = i;
			for (size_t j = 0; j < i; j++) {
				if (vid[j * nvary + k] == j &&
				    !strcmp(v, report_param(d, idx[j], vary[k]))) {
					vid[i * nvary + k] = j;
					break;
				}
			}
		}
	}
	ret = 0;
	for (size_t p = 0; p < nvary && !ret; p++) {
		bool twin = false;

		for (size_t q = 0; q < nvary; q++) {
			dep[q] = q != p && determines(vid, n, nvary, p, q, seen);
			/* one-to-one with an earlier axis: drawn with it */
			if (dep[q] && q < p && determines(vid, n, nvary, q, p, seen))
				twin = true;
		}
		if (!twin)
			ret = charts_of_axis(d, idx, n, vary, nvary, vid, p, dep,
					     out, nout, cap);
	}
out:
	free(keys);
	free(vary);
	free(dep);
	free(vid);
	free(seen);
	return ret;
}

int report_charts_find(const struct report_doc *d, struct report_chart **out,
		       size_t *n)
{
	size_t cap = 0, *idx = malloc((d->nconfigs ? d->nconfigs : 1) * sizeof(*idx));
	bool *seen = calloc(d->nconfigs ? d->nconfigs : 1, sizeof(*seen));
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (!idx || !seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < d->nconfigs && !ret; c++) {
		size_t k = 0;

		if (seen[c])
			continue;
		for (size_t i = c; i < d->nconfigs; i++) {
			if (!strcmp(d->configs[i].test, d->configs[c].test)) {
				seen[i] = true;
				idx[k++] = i;
			}
		}
		if (k >= 2)
			ret = charts_of_test(d, idx, k, out, n, &cap);
	}
	if (ret) {
		report_charts_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
out:
	free(idx);
	free(seen);
	return ret;
}

void report_charts_free(struct report_chart *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].xval);
		free(c[i].config);
	}
	free(c);
}

double report_lat_line(const struct report_cell *cell, size_t k)
{
	static const double q[REPORT_NLAT] = { 0.5, 0.9, 0.99, 0.999 };

	if (cell->hist && cell->hist->n)
		return base_hist_quantile(cell->hist, q[k]) / 1000.0;
	return report_median(cell->lat[k], cell->n);
}

/* The chart's frame: a viewBox, plot area, legend column. */
#define W 760.0
#define H 366.0
#define PL 78.0   /* plot left */
#define PR 560.0  /* plot right */
#define PT 24.0   /* plot top */
#define PB 306.0  /* plot bottom */
#define LX 578.0  /* legend */
#define LEGEND_CHARS 22

struct series_pt {
	double x, y;
};

/* The labels that have data among the configurations of a chart. */
static size_t chart_labels(const struct report_doc *d, const size_t *config,
			   size_t nconfig, bool *has)
{
	size_t k = 0;

	for (size_t l = 0; l < d->nlabels; l++) {
		has[l] = false;
		for (size_t i = 0; i < nconfig && !has[l]; i++)
			has[l] = report_doc_cell(d, l, config[i]) != NULL;
		k += has[l];
	}
	return k;
}

static void svg_open(FILE *out, const char *kind, size_t id, size_t nseries,
		     size_t npoints, size_t ncat, const char *title)
{
	fprintf(out, "<svg class=\"chart\" id=\"chart-%zu\" data-kind=\"%s\" data-series=\"%zu\" "
		     "data-points=\"%zu\" data-categories=\"%zu\" viewBox=\"0 0 %.0f %.0f\" "
		     "width=\"%.0f\" height=\"%.0f\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n",
		id, kind, nseries, npoints, ncat, W, H, W, H);
	fputs("<title>", out);
	report_html_escape(out, title);
	fputs("</title>\n", out);
	fprintf(out, "<rect class=\"bg\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n",
		W, H);
}

/* Grid, y ticks and the axis titles. */
static void svg_frame(FILE *out, const struct report_ticks *t,
		      const char *ytitle, const char *xtitle)
{
	char lab[32];

	fputs("<g class=\"axes\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n", out);
	for (size_t i = 0; i < t->n; i++) {
		double y = report_ticks_map(t, t->v[i], PB, PT);

		report_fmt_si(lab, sizeof(lab), t->v[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#dddddd\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			PL, y, PR, y, PL - 6, y + 4, lab);
	}
	fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
		     "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>\n",
		PL, PT, PL, PB, PL, PB, PR, PB);
	fprintf(out, "<text class=\"ytitle\" transform=\"translate(16 %.1f) rotate(-90)\" text-anchor=\"middle\">",
		(PT + PB) / 2);
	report_html_escape(out, ytitle);
	fprintf(out, "</text>\n<text class=\"xtitle\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">",
		(PL + PR) / 2, H - 10);
	report_html_escape(out, xtitle);
	fputs("</text>\n</g>\n", out);
}

/* Category labels under the x axis; slanted when they would touch. */
static void svg_categories(FILE *out, const char *const *names, size_t n)
{
	double band = (PR - PL) / (double)n;
	size_t longest = 0;
	bool slant;

	for (size_t i = 0; i < n; i++)
		longest = strlen(names[i]) > longest ? strlen(names[i]) : longest;
	slant = (double)longest * 7.0 + 6 > band;
	fputs("<g class=\"categories\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n", out);
	for (size_t i = 0; i < n; i++) {
		double x = PL + band * ((double)i + 0.5);

		if (slant)
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" transform=\"rotate(-35 %.1f %.1f)\">",
				x, PB + 16, x, PB + 16);
		else
			fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", x, PB + 18);
		report_html_escape(out, names[i]);
		fputs("</text>\n", out);
	}
	fputs("</g>\n", out);
}

/* The legend: one entry per label drawn, in label order. */
static void svg_legend(FILE *out, const struct report_doc *d, const bool *has)
{
	size_t row = 0;

	fputs("<g class=\"legend\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		const char *name = d->labels[l].name;
		double y = PT + 8 + 22.0 * (double)row;
		char shown[LEGEND_CHARS * 4 + 8];

		if (!has[l])
			continue;
		row++;
		/* cut long labels on a character boundary; the title holds all */
		if (strlen(name) > LEGEND_CHARS) {
			size_t cut = LEGEND_CHARS - 1;

			while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
				cut--;
			snprintf(shown, sizeof(shown), "%.*s…", (int)cut, name);
		} else {
			snprintf(shown, sizeof(shown), "%s", name);
		}
		fprintf(out, "<g class=\"legend-item\"><title>");
		report_html_escape(out, name);
		fprintf(out, "</title><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
			     "<circle class=\"key\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\">",
			LX, y, LX + 22, y, report_color(l), LX + 11, y, report_color(l),
			LX + 30, y + 4);
		report_html_escape(out, shown);
		fputs("</text></g>\n", out);
	}
	fputs("</g>\n", out);
}

/* Offset of series `rank` of `k` within a category band, and of dot j. */
static double dodge(size_t rank, size_t k, double band)
{
	double slot = fmin(band * 0.6 / (double)k, 24);

	return ((double)rank - ((double)k - 1) / 2.0) * slot;
}

static double jitter(size_t j, size_t k, double band)
{
	double slot = fmin(band * 0.6 / (double)k, 24);

	/* a fixed pattern over five positions: the same page every time */
	return ((double)((j * 3) % 5) - 2.0) * slot * 0.12;
}

/* One series: dots, median bars and the median line through them. */
static void svg_series(FILE *out, const char *label, size_t color,
		       const struct report_ticks *t, size_t ncat,
		       const double *const *vals, const size_t *nvals,
		       const double *line, size_t rank, size_t k)
{
	double band = (PR - PL) / (double)ncat, half = fmin(band * 0.6 / (double)k, 24) * 0.4;
	size_t npts = 0, nline = 0;

	for (size_t i = 0; i < ncat; i++)
		for (size_t j = 0; j < nvals[i]; j++)
			npts += isfinite(vals[i][j]);
	fprintf(out, "<g class=\"series\" data-label=\"");
	report_html_escape(out, label);
	fprintf(out, "\" data-points=\"%zu\" stroke=\"%s\" fill=\"%s\">\n", npts,
		report_color(color), report_color(color));
	fputs("<path class=\"median\" fill=\"none\" stroke-width=\"2\" d=\"", out);
	for (size_t i = 0; i < ncat; i++) {
		double x = PL + band * ((double)i + 0.5) + dodge(rank, k, band);

		if (!isfinite(line[i]))
			continue;
		fprintf(out, "%s%.1f %.1f", nline++ ? " L" : "M", x,
			report_ticks_map(t, line[i], PB, PT));
	}
	fputs("\"/>\n", out);
	for (size_t i = 0; i < ncat; i++) {
		double x = PL + band * ((double)i + 0.5) + dodge(rank, k, band);

		if (isfinite(line[i]))
			fprintf(out, "<line class=\"med\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke-width=\"3\"/>\n",
				x - half, report_ticks_map(t, line[i], PB, PT), x + half,
				report_ticks_map(t, line[i], PB, PT));
		for (size_t j = 0; j < nvals[i]; j++) {
			if (!isfinite(vals[i][j]))
				continue;
			fprintf(out, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill-opacity=\"0.5\"/>\n",
				x + jitter(j, k, band),
				report_ticks_map(t, vals[i][j], PB, PT));
		}
	}
	fputs("</g>\n", out);
}

static void range_of(const double *v, size_t n, double *lo, double *hi)
{
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i]))
			continue;
		*lo = fmin(*lo, v[i]);
		*hi = fmax(*hi, v[i]);
	}
}

void report_svg_axis(FILE *out, const struct report_doc *d,
		     const struct report_chart *c, size_t id)
{
	const struct report_config *cf0 = &d->configs[c->config[0]];
	size_t nx = c->nx, nseries, npoints = 0, rank = 0;
	bool has[REPORT_MAX_LABELS];
	const double **vals = calloc(nx, sizeof(*vals));
	size_t *nvals = calloc(nx, sizeof(*nvals));
	double *line = calloc(nx, sizeof(*line));
	const char **names = calloc(nx, sizeof(*names));
	char (*fmt)[64] = calloc(nx, sizeof(*fmt));
	char title[1024], ytitle[160], xtitle[400];
	double lo = 0, hi = -INFINITY;
	struct report_ticks t;

	if (!vals || !nvals || !line || !names || !fmt)
		goto out;
	nseries = chart_labels(d, c->config, nx, has);
	for (size_t i = 0; i < nx; i++) {
		report_fmt_param(fmt[i], sizeof(fmt[i]), c->axis, c->xval[i]);
		names[i] = *c->xval[i] ? fmt[i] : "(unset)";
	}
	for (size_t l = 0; l < d->nlabels; l++) {
		for (size_t i = 0; i < nx; i++) {
			const struct report_cell *cell = report_doc_cell(d, l, c->config[i]);

			if (!cell)
				continue;
			range_of(cell->headline, cell->n, &lo, &hi);
			for (size_t j = 0; j < cell->n; j++)
				npoints += isfinite(cell->headline[j]);
		}
	}
	if (!isfinite(hi))
		hi = 1;
	report_ticks_linear(fmin(lo, 0), hi, 5, &t);
	snprintf(title, sizeof(title), "%s: %s against %s%s%s", c->test,
		 cf0->headline, c->axis, c->fixed[0] ? ", " : "", c->fixed);
	snprintf(ytitle, sizeof(ytitle), "%s (%s)", cf0->headline,
		 cf0->unit[0] ? cf0->unit : "no unit");
	snprintf(xtitle, sizeof(xtitle), "%s%s%s%s", c->axis,
		 c->with[0] ? " (" : "", c->with,
		 !c->with[0] ? "" : strchr(c->with, ',') ? " change with it)" :
							 " changes with it)");
	svg_open(out, "axis", id, nseries, npoints, nx, title);
	fputs("<desc>", out);
	report_html_escape(out, "every sample is a dot; the line joins the medians");
	fputs("</desc>\n", out);
	svg_frame(out, &t, ytitle, xtitle);
	svg_categories(out, names, nx);
	for (size_t l = 0; l < d->nlabels; l++) {
		if (!has[l])
			continue;
		for (size_t i = 0; i < nx; i++) {
			const struct report_cell *cell = report_doc_cell(d, l, c->config[i]);

			vals[i] = cell ? cell->headline : NULL;
			nvals[i] = cell ? cell->n : 0;
			line[i] = cell ? report_median(cell->headline, cell->n) : NAN;
		}
		svg_series(out, d->labels[l].name, l, &t, nx, vals, nvals, line,
			   rank++, nseries);
	}
	svg_legend(out, d, has);
	fputs("</svg>\n", out);
out:
	free(vals);
	free(nvals);
	free(line);
	free(names);
	free(fmt);
}

void report_svg_latency(FILE *out, const struct report_doc *d, size_t c,
			const char *desc, size_t id)
{
	const double *vals[REPORT_NLAT];
	size_t nvals[REPORT_NLAT], nseries, npoints = 0, rank = 0;
	double line[REPORT_NLAT], lo = INFINITY, hi = -INFINITY;
	bool has[REPORT_MAX_LABELS], merged = true;
	char title[1200];
	struct report_ticks t;

	nseries = chart_labels(d, &c, 1, has);
	for (size_t l = 0; l < d->nlabels; l++) {
		const struct report_cell *cell = report_doc_cell(d, l, c);

		if (!cell)
			continue;
		merged &= cell->hist != NULL;
		for (size_t k = 0; k < REPORT_NLAT; k++) {
			double v = report_lat_line(cell, k);

			for (size_t j = 0; j < cell->n; j++) {
				if (isfinite(cell->lat[k][j]) && cell->lat[k][j] > 0) {
					npoints++;
					lo = fmin(lo, cell->lat[k][j]);
					hi = fmax(hi, cell->lat[k][j]);
				}
			}
			if (isfinite(v) && v > 0) {
				lo = fmin(lo, v);
				hi = fmax(hi, v);
			}
		}
	}
	if (!isfinite(lo)) {
		lo = 1;
		hi = 10;
	}
	report_ticks_log(lo, hi, &t);
	snprintf(title, sizeof(title), "%s: latency percentiles", desc);
	svg_open(out, "latency", id, nseries, npoints, REPORT_NLAT, title);
	fputs("<desc>", out);
	report_html_escape(out, merged ?
		"every sample is a dot; the line is the percentile of all samples' merged histograms" :
		"every sample is a dot; the line joins the medians");
	fputs("</desc>\n", out);
	svg_frame(out, &t, "latency (us, log scale)", "percentile");
	svg_categories(out, report_lat_name, REPORT_NLAT);
	for (size_t l = 0; l < d->nlabels; l++) {
		const struct report_cell *cell = report_doc_cell(d, l, c);
		double *pos[REPORT_NLAT] = { NULL };
		bool ok = true;

		if (!cell)
			continue;
		/* log scale: values <= 0 cannot be drawn */
		for (size_t k = 0; k < REPORT_NLAT; k++) {
			pos[k] = malloc((cell->n ? cell->n : 1) * sizeof(double));
			ok &= pos[k] != NULL;
			for (size_t j = 0; pos[k] && j < cell->n; j++)
				pos[k][j] = cell->lat[k][j] > 0 ? cell->lat[k][j] : NAN;
			vals[k] = pos[k];
			nvals[k] = cell->n;
			line[k] = report_lat_line(cell, k);
			if (!(line[k] > 0))
				line[k] = NAN;
		}
		if (ok)
			svg_series(out, d->labels[l].name, l, &t, REPORT_NLAT, vals,
				   nvals, line, rank++, nseries);
		for (size_t k = 0; k < REPORT_NLAT; k++)
			free(pos[k]);
	}
	svg_legend(out, d, has);
	fputs("</svg>\n", out);
}

/* x ticks of a numeric axis under the plot, as svg_categories places names */
static void svg_xticks(FILE *out, const struct report_ticks *t)
{
	char lab[32];

	fputs("<g class=\"xticks\" font-family=\"sans-serif\" font-size=\"12\" fill=\"#222\">\n", out);
	for (size_t i = 0; i < t->n; i++) {
		double x = report_ticks_map(t, t->v[i], PL, PR);

		report_fmt_si(lab, sizeof(lab), t->v[i]);
		fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#444\"/>"
			     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n",
			x, PB, x, PB + 5, x, PB + 18, lab);
	}
	fputs("</g>\n", out);
}

/* At most this many vertices per line: a long window's rates are averaged
 * in consecutive groups (an hour of 100 ms rates, 36 at a time). */
#define WINDOW_MAX_VERTICES 1000

/* One sample's rates as path data, at the middle of each interval or group. */
/* The line of one sample's n interval figures: averaged in groups when
 * there are more than WINDOW_MAX_VERTICES, broken where a group has no
 * figure (NaN), so a probe's missing rounds draw as gaps. */
static void window_path(FILE *out, const double *v, size_t n, double step,
			const struct report_ticks *tx, const struct report_ticks *ty)
{
	size_t group = (n + WINDOW_MAX_VERTICES - 1) / WINDOW_MAX_VERTICES;
	bool pen = false;

	for (size_t i = 0; i < n; i += group) {
		size_t k = n - i < group ? n - i : group, m = 0;
		double sum = 0;

		for (size_t g = 0; g < k; g++) {
			if (isnan(v[i + g]))
				continue;
			sum += v[i + g];
			m++;
		}
		if (!m) {
			pen = false;
			continue;
		}
		fprintf(out, "%s%.1f %.1f", pen ? " L" : i ? " M" : "M",
			report_ticks_map(tx, ((double)i + (double)k / 2) * step, PL, PR),
			report_ticks_map(ty, sum / (double)m, PB, PT));
		pen = true;
	}
}

/* What report_svg_window() draws: the rates, or a probe's figures. */
static const struct window_kind {
	const char *kind, *what, *desc, *unit;
} window_kinds[1 + BASE_TICK_PROBES] = {
	{ "window", NULL,
	  "every sample is a line: its rate over each interval of the window, "
	  "against seconds into the window", NULL },
	{ "window-xcpu_ns", "the cross-CPU round trip",
	  "every sample is a line: the mean round trip of a cache line between the "
	  "test's CPUs in each interval of the window (window_series.xcpu_ns), against "
	  "seconds into the window; a gap is an interval without a round", "ns" },
	{ "window-host_speed", "the host's CPU speed",
	  "every sample is a line: the CPU speed probe's steps per microsecond in each "
	  "interval of the window (window_series.host_speed), against seconds into the "
	  "window; a gap is an interval without a burst", "op/us" },
};

/* Sample j's line of the cell: its rates, or probe's figures (NULL: none). */
static const double *window_values(const struct report_cell *cell, size_t j, int probe)
{
	if (!cell->series)
		return NULL;
	if (probe < 0)
		return cell->series[j];
	return cell->probe[probe] ? cell->probe[probe][j] : NULL;
}

void report_svg_window(FILE *out, const struct report_doc *d, size_t c,
		       const char *desc, size_t id, int probe)
{
	double lo = INFINITY, hi = -INFINITY, tmax = 0, step = 0;
	const struct report_config *cf = &d->configs[c];
	const struct window_kind *wk = &window_kinds[probe + 1];
	struct report_ticks ty, tx;
	size_t nseries, npoints = 0;
	bool has[REPORT_MAX_LABELS];
	char title[1200], ytitle[64];

	nseries = chart_labels(d, &c, 1, has);
	for (size_t l = 0; l < d->nlabels; l++) {
		const struct report_cell *cell = report_doc_cell(d, l, c);

		if (!cell || !cell->series)
			continue;
		if (!step)
			step = cell->series_step_s;
		for (size_t j = 0; j < cell->n; j++) {
			const double *v = window_values(cell, j, probe);

			for (size_t i = 0; v && i < cell->nseries[j]; i++) {
				if (isnan(v[i]))
					continue;
				lo = fmin(lo, v[i]);
				hi = fmax(hi, v[i]);
				npoints++;
			}
			tmax = fmax(tmax, (double)cell->nseries[j] * cell->series_step_s);
		}
	}
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	report_ticks_linear(lo, hi, 6, &ty);
	report_ticks_linear(0, tmax > 0 ? tmax : 1, 8, &tx);
	snprintf(title, sizeof(title), "%s: %s within the window", desc,
		 wk->what ? wk->what : cf->rate);
	svg_open(out, wk->kind, id, nseries, npoints, 0, title);
	fputs("<desc>", out);
	report_html_escape(out, wk->desc);
	fputs("</desc>\n", out);
	snprintf(ytitle, sizeof(ytitle), "%s (%g s intervals)",
		 wk->unit ? wk->unit : cf->rate_unit[0] ? cf->rate_unit : "rate", step);
	svg_frame(out, &ty, ytitle, "seconds into the window");
	svg_xticks(out, &tx);
	for (size_t l = 0; l < d->nlabels; l++) {
		const struct report_cell *cell = report_doc_cell(d, l, c);
		size_t n = 0;

		if (!cell)
			continue;
		for (size_t j = 0; j < cell->n; j++) {
			const double *v = window_values(cell, j, probe);

			for (size_t i = 0; v && i < cell->nseries[j]; i++)
				n += !isnan(v[i]);
		}
		fputs("<g class=\"series\" data-label=\"", out);
		report_html_escape(out, d->labels[l].name);
		fprintf(out, "\" data-points=\"%zu\" stroke=\"%s\" fill=\"none\" stroke-width=\"1.2\" stroke-opacity=\"0.7\">\n",
			n, report_color(l));
		for (size_t j = 0; j < cell->n; j++) {
			const double *v = window_values(cell, j, probe);
			size_t m = 0;

			for (size_t i = 0; v && i < cell->nseries[j]; i++)
				m += !isnan(v[i]);
			if (!m)
				continue;
			fprintf(out, "<path class=\"window\" data-sample=\"%zu\" data-points=\"%zu\" d=\"", j, m);
			window_path(out, v, cell->nseries[j], cell->series_step_s, &tx, &ty);
			fputs("\"/>\n", out);
		}
		fputs("</g>\n", out);
	}
	svg_legend(out, d, has);
	fputs("</svg>\n", out);
}
