// SPDX-License-Identifier: GPL-2.0-only
/* The report document built from the rows the CLI hands over, and its self-contained HTML page. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/report.h"

const char *const report_lat_metric[REPORT_NLAT] = {
	"latency.p50_us", "latency.p90_us", "latency.p99_us", "latency.p999_us",
};
const char *const report_lat_name[REPORT_NLAT] = { "p50", "p90", "p99", "p99.9" };

void report_doc_init(struct report_doc *d)
{
	memset(d, 0, sizeof(*d));
}

static void cell_release(struct report_cell *c)
{
	free(c->headline);
	for (size_t k = 0; k < REPORT_NLAT; k++)
		free(c->lat[k]);
	free(c->hist);
	for (size_t i = 0; c->series && i < c->n; i++)
		free(c->series[i]);
	free(c->series);
	free(c->nseries);
	for (size_t k = 0; k < BASE_TICK_PROBES; k++) {
		for (size_t i = 0; c->probe[k] && i < c->n; i++)
			free(c->probe[k][i]);
		free(c->probe[k]);
	}
}

/* The cell's copies of its samples' figures of probe k, when any kept them. */
static int cell_probe(struct report_cell *c, const struct base_sample *const *s,
		      size_t k)
{
	bool any = false;

	for (size_t i = 0; i < c->n; i++)
		any |= s[i]->nseries && s[i]->series_probe[k];
	if (!any)
		return 0;
	c->probe[k] = calloc(c->n, sizeof(*c->probe[k]));
	if (!c->probe[k])
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		if (!s[i]->nseries || !s[i]->series_probe[k])
			continue;
		c->probe[k][i] = malloc(s[i]->nseries * sizeof(double));
		if (!c->probe[k][i])
			return -ENOMEM;
		memcpy(c->probe[k][i], s[i]->series_probe[k], s[i]->nseries * sizeof(double));
	}
	return 0;
}

/* The cell's copies of its samples' interval rates, when any kept them. */
static int cell_series(struct report_cell *c, const struct base_sample *const *s)
{
	bool any = false;

	for (size_t i = 0; i < c->n; i++)
		any |= s[i]->nseries > 0;
	if (!any)
		return 0;
	c->series = calloc(c->n, sizeof(*c->series));
	c->nseries = calloc(c->n, sizeof(*c->nseries));
	if (!c->series || !c->nseries)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++) {
		if (!s[i]->nseries)
			continue;
		c->series[i] = malloc(s[i]->nseries * sizeof(double));
		if (!c->series[i])
			return -ENOMEM;
		memcpy(c->series[i], s[i]->series, s[i]->nseries * sizeof(double));
		c->nseries[i] = s[i]->nseries;
		if (!c->series_step_s)
			c->series_step_s = s[i]->series_step_s;
	}
	for (size_t k = 0; k < BASE_TICK_PROBES; k++) {
		int ret = cell_probe(c, s, k);

		if (ret)
			return ret;
	}
	return 0;
}

void report_doc_release(struct report_doc *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nlabels; i++) {
		free(d->labels[i].env);
		json_decref(d->labels[i].sysenv);
	}
	for (size_t i = 0; i < d->nconfigs; i++)
		free(d->configs[i].params);
	for (size_t i = 0; i < d->ncells; i++)
		cell_release(&d->cells[i]);
	for (size_t i = 0; i < d->ncmps; i++)
		stats_table_release(&d->cmps[i].t);
	free(d->labels);
	free(d->configs);
	free(d->cells);
	free(d->cmps);
	memset(d, 0, sizeof(*d));
}

int report_doc_add_label(struct report_doc *d, const char *name)
{
	struct report_label *p;

	if (!*name || strlen(name) >= sizeof(d->labels->name) ||
	    d->nlabels >= REPORT_MAX_LABELS)
		return -EINVAL;
	for (size_t i = 0; i < d->nlabels; i++)
		if (!strcmp(d->labels[i].name, name))
			return -EINVAL;
	p = realloc(d->labels, (d->nlabels + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->labels = p;
	p = &d->labels[d->nlabels++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	return 0;
}

int report_doc_set_baseline(struct report_doc *d, const char *name)
{
	for (size_t i = 0; i < d->nlabels; i++) {
		if (!strcmp(d->labels[i].name, name)) {
			d->baseline = i;
			return 0;
		}
	}
	return -EINVAL;
}

long report_doc_config(const struct report_doc *d, const char *key)
{
	size_t lo = 0, hi = d->nconfigs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->configs[mid].key, key);

		if (!c)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

const struct report_cell *report_doc_cell(const struct report_doc *d,
					  size_t label, size_t config)
{
	for (size_t i = 0; i < d->ncells; i++)
		if (d->cells[i].label == label && d->cells[i].config == config)
			return &d->cells[i];
	return NULL;
}

/* The configuration of s, added in key order when new; its index. */
static int config_of(struct report_doc *d, const struct base_sample *const *s,
		     size_t n, size_t *out)
{
	const struct base_sample *s0 = s[0];
	struct report_config *p, *cf;
	size_t pos = 0;
	long at = report_doc_config(d, s0->config_key);

	if (at >= 0) {
		*out = (size_t)at;
		return 0;
	}
	while (pos < d->nconfigs && strcmp(d->configs[pos].key, s0->config_key) < 0)
		pos++;
	p = realloc(d->configs, (d->nconfigs + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	d->configs = p;
	cf = &d->configs[pos];
	memmove(cf + 1, cf, (d->nconfigs - pos) * sizeof(*cf));
	memset(cf, 0, sizeof(*cf));
	cf->params = malloc((s0->nparams ? s0->nparams : 1) * sizeof(*cf->params));
	if (!cf->params) {
		memmove(cf, cf + 1, (d->nconfigs - pos) * sizeof(*cf));
		return -ENOMEM;
	}
	d->nconfigs++;
	/* what pointed at or past pos moves up by one */
	for (size_t i = 0; i < d->ncells; i++)
		d->cells[i].config += d->cells[i].config >= pos;
	for (size_t i = 0; i < d->ncmps; i++)
		d->cmps[i].config += d->cmps[i].config >= pos;
	memcpy(cf->params, s0->params, s0->nparams * sizeof(*cf->params));
	cf->nparams = s0->nparams;
	snprintf(cf->key, sizeof(cf->key), "%s", s0->config_key);
	snprintf(cf->test, sizeof(cf->test), "%.31s",
		 base_sample_param_get(s0, "test", ""));
	cf->rate = stats_headline_metric(cf->test);
	cf->headline = d->headline ? d->headline : cf->rate;
	for (size_t i = 0; i < n && !cf->unit[0]; i++) {
		const struct sample_metric *m = base_sample_get(s[i], cf->headline);

		if (m)
			snprintf(cf->unit, sizeof(cf->unit), "%s", m->unit);
	}
	for (size_t i = 0; i < n && !cf->rate_unit[0]; i++) {
		const struct sample_metric *m = base_sample_get(s[i], cf->rate);

		if (m)
			snprintf(cf->rate_unit, sizeof(cf->rate_unit), "%s", m->unit);
	}
	*out = pos;
	return 0;
}

static int label_env(struct report_label *l, const struct base_sample *const *s,
		     size_t n)
{
	const char *fp;

	if (!l->nsamples) {
		l->env = malloc((s[0]->nenv ? s[0]->nenv : 1) * sizeof(*l->env));
		if (!l->env)
			return -ENOMEM;
		memcpy(l->env, s[0]->env, s[0]->nenv * sizeof(*l->env));
		l->nenv = s[0]->nenv;
		l->sysenv = json_incref(s[0]->sysenv);
		snprintf(l->fingerprint, sizeof(l->fingerprint), "%s",
			 base_sample_env_get(s[0], "client.env_fingerprint", ""));
	}
	for (size_t i = 0; i < n; i++) {
		fp = base_sample_env_get(s[i], "client.env_fingerprint", "");
		if (strcmp(fp, l->fingerprint))
			l->env_changed = true;
	}
	l->nsamples += n;
	l->nconfigs++;
	return 0;
}

int report_doc_add_samples(struct report_doc *d, size_t label,
			   const struct base_sample *const *s, size_t n)
{
	struct report_cell c = { 0 }, *p;
	bool all_hist = true, rr = false;
	size_t config;
	int ret;

	if (label >= d->nlabels || !n)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (strcmp(s[i]->config_key, s[0]->config_key))
			return -EINVAL;
	if (report_doc_config(d, s[0]->config_key) >= 0 &&
	    report_doc_cell(d, label, (size_t)report_doc_config(d, s[0]->config_key)))
		return -EINVAL;
	c.label = label;
	c.n = n;
	c.headline = malloc(n * sizeof(*c.headline));
	for (size_t k = 0; k < REPORT_NLAT; k++)
		c.lat[k] = malloc(n * sizeof(*c.lat[k]));
	if (d->ncells == d->cap_cells) {
		size_t ncap = d->cap_cells ? 2 * d->cap_cells : 16;

		p = realloc(d->cells, ncap * sizeof(*p));
		if (p) {
			d->cells = p;
			d->cap_cells = ncap;
		}
	}
	ret = -ENOMEM;
	if (!c.headline || !c.lat[0] || !c.lat[1] || !c.lat[2] || !c.lat[3] ||
	    d->ncells == d->cap_cells)
		goto fail;
	if ((ret = config_of(d, s, n, &config)))
		goto fail;
	c.config = config;
	for (size_t i = 0; i < n; i++) {
		const struct sample_metric *m = base_sample_get(s[i], d->configs[config].headline);

		c.headline[i] = m ? m->value : NAN;
		for (size_t k = 0; k < REPORT_NLAT; k++) {
			m = base_sample_get(s[i], report_lat_metric[k]);
			c.lat[k][i] = m ? m->value : NAN;
			rr |= m != NULL;
		}
		all_hist &= s[i]->latency != NULL;
	}
	if (rr && all_hist) {
		c.hist = malloc(sizeof(*c.hist));
		if (!c.hist)
			goto fail;
		base_hist_init(c.hist);
		for (size_t i = 0; i < n; i++)
			base_hist_merge(c.hist, s[i]->latency);
	}
	if ((ret = cell_series(&c, s)))
		goto fail;
	if ((ret = label_env(&d->labels[label], s, n)))
		goto fail;
	d->configs[config].rr |= rr;
	d->configs[config].series |= c.series != NULL;
	for (size_t k = 0; k < BASE_TICK_PROBES; k++)
		d->configs[config].probe[k] |= c.probe[k] != NULL;
	d->cells[d->ncells++] = c;
	return 0;
fail:
	cell_release(&c);
	return ret;
}

int report_doc_add_table(struct report_doc *d, size_t a, size_t b,
			 struct stats_table *t)
{
	long config = report_doc_config(d, t->config_key);
	struct report_cmp *p;

	if (a >= d->nlabels || b >= d->nlabels || config < 0)
		return -EINVAL;
	if (d->ncmps == d->cap_cmps) {
		size_t ncap = d->cap_cmps ? 2 * d->cap_cmps : 16;

		p = realloc(d->cmps, ncap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		d->cmps = p;
		d->cap_cmps = ncap;
	}
	p = &d->cmps[d->ncmps++];
	p->a = a;
	p->b = b;
	p->config = (size_t)config;
	p->t = *t;
	memset(t, 0, sizeof(*t));
	return 0;
}

int report_doc_fdr(struct report_doc *d, const struct stats_table_opts *o)
{
	struct stats_table **t = malloc((d->ncmps ? d->ncmps : 1) * sizeof(*t));
	int ret = t ? 0 : -ENOMEM;

	for (size_t b = 0; !ret && b < d->nlabels; b++) {
		size_t n = 0;

		for (size_t i = 0; i < d->ncmps; i++)
			if (d->cmps[i].b == b)
				t[n++] = &d->cmps[i].t;
		ret = stats_tables_fdr(t, n, o);
	}
	free(t);
	return ret;
}

void report_html_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		switch (ch) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			if ((ch < 0x20 && ch != '\t' && ch != '\n') || ch == 0x7f)
				fputs("&#xFFFD;", out);
			else
				fputc(ch, out);
		}
	}
}

static void esc(FILE *out, const char *s)
{
	report_html_escape(out, s);
}

static const char page_style[] =
	"body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
	"color:#1a1a1a;background:#fff;margin:1.5em auto;max-width:1240px;padding:0 1em;line-height:1.4}\n"
	"h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:2em}\n"
	"table{border-collapse:collapse;margin:.6em 0;font-size:.9em}\n"
	"th,td{border:1px solid #d0d0d0;padding:.25em .5em;text-align:left;vertical-align:top}\n"
	"th{background:#f2f2f2}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"table.sortable th{cursor:pointer;user-select:none}\n"
	"table.sortable th[aria-sort=ascending]::after{content:' \\25B2'}\n"
	"table.sortable th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"tr.diff td{background:#fff1b8}tr.diff td:first-child{font-weight:bold}\n"
	"tr.headline td{font-weight:600}\n"
	".v-REGRESSION{color:#b00020;font-weight:bold}.v-IMPROVEMENT{color:#11702f;font-weight:bold}\n"
	".v-changed{color:#8a4b00;font-weight:bold}\n"
	"code,.mono{font-family:ui-monospace,'DejaVu Sans Mono',monospace;font-size:.92em}\n"
	".swatch{display:inline-block;width:.8em;height:.8em;border-radius:50%;margin-right:.3em;vertical-align:-.05em}\n"
	"figure{margin:1.2em 0}figcaption{font-weight:600;margin-bottom:.3em}\n"
	"svg.chart{max-width:100%;height:auto;border:1px solid #e3e3e3}\n"
	".note{color:#555}nav a{margin-right:1em}\n";

/* Sorting by a click on a header: numbers by data-v, else by text. */
static const char page_script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  function key(td, num) {\n"
	"    if (!num) return td.textContent;\n"
	"    var v = parseFloat(td.getAttribute('data-v'));\n"
	"    return isNaN(v) ? -Infinity : v;\n"
	"  }\n"
	"  function sortBy(table, th, col) {\n"
	"    var asc = th.getAttribute('aria-sort') !== 'ascending';\n"
	"    var num = th.getAttribute('data-type') === 'num';\n"
	"    var ths = table.tHead.rows[0].cells, i;\n"
	"    for (i = 0; i < ths.length; i++) ths[i].removeAttribute('aria-sort');\n"
	"    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');\n"
	"    var body = table.tBodies[0];\n"
	"    var rows = Array.prototype.slice.call(body.rows);\n"
	"    rows.forEach(function (r, k) { r.setAttribute('data-i', k); });\n"
	"    rows.sort(function (a, b) {\n"
	"      var x = key(a.cells[col], num), y = key(b.cells[col], num), c;\n"
	"      c = num ? (x < y ? -1 : x > y ? 1 : 0) : String(x).localeCompare(String(y));\n"
	"      if (!asc) c = -c;\n"
	"      return c || a.getAttribute('data-i') - b.getAttribute('data-i');\n"
	"    });\n"
	"    rows.forEach(function (r) { body.appendChild(r); });\n"
	"  }\n"
	"  var tables = document.querySelectorAll('table.sortable');\n"
	"  Array.prototype.forEach.call(tables, function (table) {\n"
	"    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {\n"
	"      th.title = 'sort by this column';\n"
	"      th.addEventListener('click', function () { sortBy(table, th, col); });\n"
	"    });\n"
	"  });\n"
	"  document.body.setAttribute('data-ready', '1');\n"
	"})();\n";

static void label_chip(FILE *out, const struct report_doc *d, size_t l)
{
	fprintf(out, "<span class=\"swatch\" style=\"background:%s\"></span><span class=\"label\">",
		report_color(l));
	esc(out, d->labels[l].name);
	fputs("</span>", out);
}

static void num_td(FILE *out, double v, const char *text)
{
	if (isfinite(v))
		fprintf(out, "<td class=\"num\" data-v=\"%.10g\">", v);
	else
		fputs("<td class=\"num\" data-v=\"\">", out);
	esc(out, text);
	fputs("</td>", out);
}

static const char *kv_val(const struct sample_kv *kv, size_t n, const char *key,
			  bool *found)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(kv[i].key, key)) {
			*found = true;
			return kv[i].val;
		}
	}
	*found = false;
	return "";
}

/* The union of the labels' environment keys: the first label's order, then new ones. */
static const char **env_keys(const struct report_doc *d, size_t *n)
{
	size_t cap = 1, k = 0;
	const char **keys;

	for (size_t l = 0; l < d->nlabels; l++)
		cap += d->labels[l].nenv;
	keys = malloc(cap * sizeof(*keys));
	if (!keys)
		return NULL;
	for (size_t l = 0; l < d->nlabels; l++) {
		for (size_t i = 0; i < d->labels[l].nenv; i++) {
			const char *key = d->labels[l].env[i].key;
			bool seen = false;

			for (size_t j = 0; j < k && !seen; j++)
				seen = !strcmp(keys[j], key);
			if (!seen)
				keys[k++] = key;
		}
	}
	*n = k;
	return keys;
}

static bool env_differs(const struct report_doc *d, const char *key)
{
	bool f0, f;
	const char *v0 = kv_val(d->labels[0].env, d->labels[0].nenv, key, &f0);

	for (size_t l = 1; l < d->nlabels; l++) {
		const char *v = kv_val(d->labels[l].env, d->labels[l].nenv, key, &f);

		if (f != f0 || strcmp(v, v0))
			return true;
	}
	return false;
}

/* "client.net.core.rmem_max" -> value in a label's snapshot, or NULL. */
static const char *snap_val(const struct report_label *l, const char *side,
			    const char *entry)
{
	json_t *e = json_object_get(json_object_get(json_object_get(l->sysenv, side),
						    "entries"), entry);

	return json_string_value(e);
}

static void html_snapshot(FILE *out, const struct report_doc *d)
{
	static const char *const sides[] = { "client", "server" };
	size_t ndiff = 0, nall = 0;
	bool any = false;

	for (size_t l = 0; l < d->nlabels; l++)
		any |= d->labels[l].sysenv != NULL;
	if (!any)
		return;
	/* two passes: the differing entries, then every entry */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 0)
			fputs("<table class=\"env snapshot\" id=\"snapshot-diff\"><thead><tr><th>entry</th>", out);
		else
			fputs("<details><summary>every entry of the full snapshots</summary>\n"
			      "<table class=\"env snapshot\" id=\"snapshot-all\"><thead><tr><th>entry</th>", out);
		for (size_t l = 0; l < d->nlabels; l++) {
			fputs("<th>", out);
			label_chip(out, d, l);
			fputs("</th>", out);
		}
		fputs("</tr></thead><tbody>\n", out);
		for (size_t s = 0; s < ARRAY_SIZE(sides); s++) {
			for (size_t l = 0; l < d->nlabels; l++) {
				json_t *entries = json_object_get(json_object_get(d->labels[l].sysenv, sides[s]), "entries");
				const char *name;
				json_t *v;

				json_object_foreach(entries, name, v) {
					bool diff = false, first = true;
					const char *v0 = NULL;

					/* shown once: at the first label that has it */
					for (size_t m = 0; m < l && first; m++)
						first = !snap_val(&d->labels[m], sides[s], name);
					if (!first)
						continue;
					for (size_t m = 0; m < d->nlabels; m++) {
						const char *vm = snap_val(&d->labels[m], sides[s], name);

						if (!m)
							v0 = vm;
						else if (!vm != !v0 || (vm && strcmp(vm, v0)))
							diff = true;
					}
					if (pass == 0 && (!diff || !report_env_comparable(name)))
						continue;
					ndiff += pass == 0;
					nall += pass == 1;
					fprintf(out, "<tr%s><td class=\"mono\">%s.", diff ? " class=\"diff\"" : "",
						sides[s]);
					esc(out, name);
					fputs("</td>", out);
					for (size_t m = 0; m < d->nlabels; m++) {
						const char *vm = snap_val(&d->labels[m], sides[s], name);

						fputs("<td class=\"mono\">", out);
						esc(out, vm ? vm : "-");
						fputs("</td>", out);
					}
					fputs("</tr>\n", out);
				}
			}
		}
		fputs("</tbody></table>\n", out);
		if (pass == 0)
			fprintf(out, "<p class=\"note\">%zu entr%s of the full environment snapshots (sysctls, CPU, interface) differ between labels; sysctls that change by themselves are left out.</p>\n",
				ndiff, ndiff == 1 ? "y" : "ies");
		else
			fprintf(out, "<p class=\"note\">%zu entries.</p></details>\n", nall);
	}
}

static void html_environment(FILE *out, const struct report_doc *d)
{
	size_t nkeys = 0;
	const char **keys = env_keys(d, &nkeys);

	fputs("<section id=\"environment\">\n<h2>Environment</h2>\n"
	      "<p class=\"note\">The environment of each label's first sample; highlighted rows differ between labels.</p>\n"
	      "<table class=\"env\" id=\"env\"><thead><tr><th>entry</th>", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		fputs("<th>", out);
		label_chip(out, d, l);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	fputs("<tr><td>samples (configurations)</td>", out);
	for (size_t l = 0; l < d->nlabels; l++)
		fprintf(out, "<td class=\"num\">%zu (%zu)</td>", d->labels[l].nsamples,
			d->labels[l].nconfigs);
	fputs("</tr>\n", out);
	for (size_t i = 0; keys && i < nkeys; i++) {
		bool diff = d->nlabels > 1 && env_differs(d, keys[i]);

		fprintf(out, "<tr%s><td class=\"mono\">", diff ? " class=\"diff\"" : "");
		esc(out, keys[i]);
		fputs("</td>", out);
		for (size_t l = 0; l < d->nlabels; l++) {
			bool found;
			const char *v = kv_val(d->labels[l].env, d->labels[l].nenv, keys[i], &found);

			fputs("<td class=\"mono\">", out);
			esc(out, found ? v : "-");
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		if (!d->labels[l].env_changed)
			continue;
		fputs("<p class=\"note\">note: the samples of ", out);
		label_chip(out, d, l);
		fputs(" ran in more than one environment (their fingerprints differ): only the first is shown.</p>\n", out);
	}
	html_snapshot(out, d);
	fputs("</section>\n", out);
	free(keys);
}

/* The compare table of label l against the baseline in configuration c. */
static const struct report_cmp *find_cmp(const struct report_doc *d, size_t l,
					 size_t c)
{
	for (size_t i = 0; i < d->ncmps; i++)
		if (d->cmps[i].a == d->baseline && d->cmps[i].b == l &&
		    d->cmps[i].config == c)
			return &d->cmps[i];
	return NULL;
}

static void verdict_class(char *buf, size_t len, enum stats_verdict_kind v)
{
	const char *name = stats_verdict_name(v);
	size_t i = 0;

	i = (size_t)snprintf(buf, len, "v-");
	for (; *name && i + 1 < len; name++)
		buf[i++] = *name == ' ' ? '-' : *name;
	buf[i] = '\0';
}

static void html_summary(FILE *out, const struct report_doc *d,
		const char *const *descs)
{
	fputs("<section id=\"summary\">\n<h2>Summary</h2>\n"
	      "<p class=\"note\">The headline metric of each configuration: median, %stddev and samples per label; "
	      "beside each other label, its change against the baseline and the verdict.</p>\n"
	      "<table class=\"sortable\" id=\"summary-table\"><thead><tr><th>configuration</th><th>metric</th>", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		fputs("<th data-type=\"num\">", out);
		label_chip(out, d, l);
		if (l == d->baseline && d->nlabels > 1)
			fputs(" (baseline)", out);
		fputs("</th>", out);
	}
	fputs("</tr></thead><tbody>\n", out);
	for (size_t c = 0; c < d->nconfigs; c++) {
				fputs("<tr><td class=\"mono\">", out);
		esc(out, descs[c]);
		fputs("</td><td class=\"mono\">", out);
		esc(out, d->configs[c].headline);
		fputs(" (", out);
		esc(out, d->configs[c].unit);
		fputs(")</td>", out);
		for (size_t l = 0; l < d->nlabels; l++) {
			const struct report_cell *cell = report_doc_cell(d, l, c);
			const struct report_cmp *cmp = find_cmp(d, l, c);
			const struct stats_row *r = cmp ? stats_table_headline(&cmp->t) : NULL;
			char med[32], sd[32], text[128], vc[48], ch[24];
			double m, cv;

			if (!cell) {
				num_td(out, NAN, "-");
				continue;
			}
			m = report_median(cell->headline, cell->n);
			cv = report_cv_pct(cell->headline, cell->n);
			report_fmt_num(med, sizeof(med), m);
			report_fmt_sd(sd, sizeof(sd), cv);
			snprintf(text, sizeof(text), "%s %s (%zu)", med, sd, cell->n);
			if (isfinite(m))
				fprintf(out, "<td class=\"num\" data-v=\"%.10g\">", m);
			else
				fputs("<td class=\"num\" data-v=\"\">", out);
			esc(out, text);
			if (r) {
				verdict_class(vc, sizeof(vc), r->c.verdict);
				report_fmt_pct(ch, sizeof(ch), r->c.change_mean_pct);
				fprintf(out, "<br><span class=\"%s\">%s %s</span>", vc, ch,
					stats_verdict_name(r->c.verdict));
			}
			fputs("</td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</tbody></table>\n</section>\n", out);
}

static const char *dir_word(enum metric_dir dir)
{
	return base_metric_dir_name(dir);
}

/* One pair: the sortable table of every configuration both labels have. */
/* What moved with each configuration's headline, before the table. */
static void html_why_head(FILE *out, const char *desc)
{
	fputs("<p class=\"why\">What moved with the headline of <code>", out);
	esc(out, desc);
	fputs("</code>, the likely cause first:</p>\n<ol class=\"why\">\n", out);
}

static void html_why_item(FILE *out, size_t k, const char *line)
{
	(void)k;
	fputs("<li>", out);
	esc(out, line);
	fputs("</li>\n", out);
}

static void html_why_tail(FILE *out)
{
	fputs("</ol>\n", out);
}

static const struct report_why_fmt html_why = { html_why_head, html_why_item, html_why_tail };

static void html_pair(FILE *out, const struct report_doc *d,
		const char *const *descs, size_t b)
{
	size_t a = d->baseline, nconf = 0, hidden = 0, regressed = 0, paired = 0;

	fprintf(out, "<h3 id=\"compare-%zu\">", b);
	label_chip(out, d, b);
	fputs(" against ", out);
	label_chip(out, d, a);
	fputs("</h3>\n", out);
	for (size_t i = 0; i < d->ncmps; i++)
		nconf += d->cmps[i].a == a && d->cmps[i].b == b;
	if (!nconf) {
		fputs("<p class=\"note\">These labels share no configuration.</p>\n", out);
		return;
	}
	report_why_doc(out, d, descs, b, &html_why);
	fprintf(out, "<table class=\"sortable compare\" id=\"compare-table-%zu\"><thead><tr>"
		     "<th>configuration</th><th>metric (better)</th><th data-type=\"num\">", b);
	esc(out, d->labels[a].name);
	fputs(" median</th><th data-type=\"num\">±%sd</th><th data-type=\"num\">n</th>"
	      "<th data-type=\"num\">%change</th><th data-type=\"num\">shift [95% CI]</th><th data-type=\"num\">", out);
	esc(out, d->labels[b].name);
	fputs(" median</th><th data-type=\"num\">±%sd</th><th data-type=\"num\">n</th>"
	      "<th data-type=\"num\">p / q</th><th>verdict</th></tr></thead><tbody>\n", out);
	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];
				if (cmp->a != a || cmp->b != b)
			continue;
		regressed += cmp->t.regressed;
		paired += cmp->t.paired_regressed;
		hidden += cmp->t.hidden;
		for (size_t k = 0; k < cmp->t.nrows; k++) {
			const struct stats_row *r = &cmp->t.rows[k];
			char buf[6][32], sh[3][32], ci[112], v[96], vc[48], p[32];
			double pv = r->headline ? r->c.p : r->q;

			if (!r->shown) {
				hidden++;
				continue;
			}
			report_fmt_num(buf[0], sizeof(buf[0]), r->c.median_a);
			report_fmt_sd(buf[1], sizeof(buf[1]), r->c.sd_pct_a);
			report_fmt_pct(buf[2], sizeof(buf[2]), r->c.change_mean_pct);
			report_fmt_num(buf[3], sizeof(buf[3]), r->c.median_b);
			report_fmt_sd(buf[4], sizeof(buf[4]), r->c.sd_pct_b);
			if (r->c.shift_abs) {
				report_fmt_num(sh[0], sizeof(sh[0]), r->c.shift_pct);
				report_fmt_num(sh[1], sizeof(sh[1]), r->c.shift_lo_pct);
				report_fmt_num(sh[2], sizeof(sh[2]), r->c.shift_hi_pct);
			} else {
				report_fmt_pct(sh[0], sizeof(sh[0]), r->c.shift_pct);
				report_fmt_pct(sh[1], sizeof(sh[1]), r->c.shift_lo_pct);
				report_fmt_pct(sh[2], sizeof(sh[2]), r->c.shift_hi_pct);
			}
			snprintf(ci, sizeof(ci), "%s [%s, %s]", sh[0], sh[1], sh[2]);
			if (isnan(pv))
				snprintf(p, sizeof(p), "-");
			else
				snprintf(p, sizeof(p), "%.4f", pv);
			report_verdict_text(r, v, sizeof(v));
			verdict_class(vc, sizeof(vc), r->c.verdict);
			fprintf(out, "<tr%s><td class=\"mono\">", r->headline ? " class=\"headline\"" : "");
			esc(out, descs[cmp->config]);
			fputs("</td><td class=\"mono\">", out);
			esc(out, r->metric);
			fprintf(out, " (%s)</td>", dir_word(r->dir));
			num_td(out, r->c.median_a, buf[0]);
			num_td(out, r->c.sd_pct_a, buf[1]);
			fprintf(out, "<td class=\"num\" data-v=\"%zu\">%zu</td>", r->c.na, r->c.na);
			num_td(out, r->c.change_mean_pct, buf[2]);
			num_td(out, r->c.shift_pct, ci);
			num_td(out, r->c.median_b, buf[3]);
			num_td(out, r->c.sd_pct_b, buf[4]);
			fprintf(out, "<td class=\"num\" data-v=\"%zu\">%zu</td>", r->c.nb, r->c.nb);
			num_td(out, pv, p);
			fprintf(out, "<td class=\"%s\">", vc);
			esc(out, v);
			fputs("</td></tr>\n", out);
		}
	}
	fputs("</tbody></table>\n", out);
	fprintf(out, "<p class=\"note\">%zu configuration%s compared: ", nconf,
		nconf == 1 ? "" : "s");
	report_headline_summary(out, regressed, d->headline, report_html_escape);
	fputs(". ", out);
	/* digits and punctuation only: nothing to escape */
	report_paired_summary(out, paired, "Note: ", false);
	if (paired)
		fputs(". ", out);
	report_fdr_summary(out, nconf, "Note: ");
	if (nconf > 1)
		fputs(". ", out);
	if (hidden)
		fprintf(out, "%zu other metric row%s did not change and %s not listed ('compare --all' lists them).",
			hidden, hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are");
	fputs("</p>\n", out);
	/* the notes of each configuration, as the text table prints them */
	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];
		const struct stats_notes *nt = &cmp->t.notes;
				if (cmp->a != a || cmp->b != b)
			continue;
		if (!stats_notes_any(nt))
			continue;
		fputs("<p class=\"note\"><code>", out);
		esc(out, descs[cmp->config]);
		fputs("</code>:", out);
		if (nt->too_few)
			fputs(" fewer than 4 samples a side: no test is possible, measure more (--reps).", out);
		if (nt->outliers_a || nt->outliers_b)
			fprintf(out, " outliers in the headline (modified z-score &gt; 3.5, kept): %zu and %zu.",
				nt->outliers_a, nt->outliers_b);
		if (nt->drift_p_a < 0.05 || nt->drift_p_b < 0.05)
			fputs(" the headline drifts with run order: the machine changed during the runs.", out);
		if (nt->disturbed_a || nt->disturbed_b) {
			fprintf(out, " left out as disturbed by foreign CPU load: %zu and %zu",
				nt->disturbed_a, nt->disturbed_b);
			report_disturbed_parts(out, nt);
			fputs(" (--keep-disturbed pools them).", out);
		}
		if (nt->all_disturbed_a || nt->all_disturbed_b)
			fprintf(out, " compared although flagged disturbed by foreign CPU load, as every sample of the side was: %zu and %zu.",
				nt->all_disturbed_a, nt->all_disturbed_b);
		if (nt->not_steady_a || nt->not_steady_b)
			fprintf(out, " samples whose rate trended or moved to another level within the window (not steady): %zu and %zu.",
				nt->not_steady_a, nt->not_steady_b);
		if (nt->host_trend_a || nt->host_trend_b)
			fprintf(out, " of those, with the host's CPU speed trending the same way: %zu and %zu.",
				nt->host_trend_a, nt->host_trend_b);
		if (nt->mixed_a || nt->mixed_b)
			fprintf(out, " samples whose 100 ms rate left a level and came back within the window (levels up to %.0f%% of the mean apart): %zu and %zu.",
				fmax(nt->mixed_gap_a, nt->mixed_gap_b), nt->mixed_a, nt->mixed_b);
		if (nt->speed_changed) {
			fprintf(out, " the CPU speed probe (host.speed) moved %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): ",
				nt->speed_shift_pct, nt->speed_lo_pct, nt->speed_hi_pct, nt->speed_p);
			report_speed_why(out, nt);
			fputc('.', out);
		}
		for (size_t k = 0; k < nt->nredef; k++) {
			fputs(" measured by netregress builds that define a metric differently: ", out);
			report_redef_text(out, nt, k, d->labels[cmp->a].name,
					  d->labels[cmp->b].name, esc);
			fputc('.', out);
		}
		if (nt->cc_differ) {
			fputs(" the tcp senders ran another congestion control, as their sockets reported it (env tcp.cc): ", out);
			esc(out, nt->cc_a);
			fputs(" and ", out);
			esc(out, nt->cc_b);
			fputs("; every figure of a tcp test moves with it.", out);
		}
		if (nt->xcpu_moved_a || nt->xcpu_moved_b)
			fprintf(out, " samples in which the host moved the test's CPUs within the window (the round trip of a cache line between them changed level): %zu and %zu.",
				nt->xcpu_moved_a, nt->xcpu_moved_b);
		if (nt->xcpu_changed)
			fprintf(out, " the test's CPUs sat %s: the round trip of a cache line between them (host.xcpu_ns) went from %.0f to %.0f ns, %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): part of a change may be the host's placement.",
				nt->xcpu_shift_pct > 0 ? "farther apart" : "closer together", nt->xcpu_a_ns, nt->xcpu_b_ns,
				nt->xcpu_shift_pct, nt->xcpu_lo_pct, nt->xcpu_hi_pct, nt->xcpu_p);
		if (nt->xcpu_mix) {
			fputc(' ', out);
			report_mix_text(out, &nt->mix, d->labels[cmp->a].name, d->labels[cmp->b].name, esc);
			fputc('.', out);
		}
		if (nt->adj_applied) {
			/* digits, letters and punctuation only: nothing to escape */
			fputc(' ', out);
			report_adj_note(out, nt);
			fputc('.', out);
		}
		if (nt->pairs) {
			/* as above: nothing to escape */
			fputc(' ', out);
			report_paired_note(out, nt);
			fputc('.', out);
		}
		if (nt->fdr_downgraded) {
			fputc(' ', out);
			report_fdr_note(out, nt);
			fputc('.', out);
		}
		for (size_t r = 0; r < cmp->t.nrows; r++) {
			char *text;

			if (!report_fdr_row_due(&cmp->t.rows[r]))
				continue;
			fputc(' ', out);
			text = report_fdr_row_text(&cmp->t.rows[r]);
			esc(out, text ? text : "(out of memory)");
			free(text);
			fputc('.', out);
		}
		if (nt->env_diff_a[0] || nt->env_diff_b[0]) {
			fputs(" samples of one label ran in different environments: ", out);
			esc(out, nt->env_diff_a[0] ? nt->env_diff_a : nt->env_diff_b);
			fputc('.', out);
		}
		fputs("</p>\n", out);
	}
}

static void html_compare(FILE *out, const struct report_doc *d,
		const char *const *descs)
{
	if (d->nlabels < 2)
		return;
	fputs("<section id=\"compare\">\n<h2>Compare</h2>\n"
	      "<p class=\"note\">Each label against the baseline: the headline metric of every shared configuration, "
	      "then the metrics that changed with it. Click a column's title to sort.</p>\n", out);
	for (size_t b = 0; b < d->nlabels; b++)
		if (b != d->baseline)
			html_pair(out, d, descs, b);
	fputs("</section>\n", out);
}

static bool any_series(const struct report_doc *d)
{
	for (size_t c = 0; c < d->nconfigs; c++)
		if (d->configs[c].series)
			return true;
	return false;
}

static const char *const probe_caption[BASE_TICK_PROBES] = {
	"The cross-CPU round trip in the same intervals",
	"The host's CPU speed in the same intervals",
};

/* Each configuration's interval rates over the window, when kept, and
 * under them what the probes saw in the same intervals. */
static void html_window(FILE *out, const struct report_doc *d,
			const char *const *descs, size_t *id)
{
	if (!any_series(d))
		return;
	fputs("<section id=\"window\">\n<h2>Rates within the window</h2>\n"
	      "<p class=\"note\">Every sample's headline rate over each interval of its window "
	      "(the server's 100 ms ticks): a line that steps between levels and back is a sample "
	      "whose mean mixed operating points (window.mixed, counted in the compare notes). "
	      "Under them, when the probes ran, what they saw in the same intervals: the round trip "
	      "of a cache line between the test's CPUs (a step is the host moving the vCPUs, "
	      "window.xcpu_moved) and the CPU speed probe's rate (window.host_trend).</p>\n",
	      out);
	for (size_t c = 0; c < d->nconfigs; c++) {
		if (!d->configs[c].series)
			continue;
		fputs("<figure><figcaption>Within the window: <code>", out);
		esc(out, descs[c]);
		fputs("</code></figcaption>\n", out);
		report_svg_window(out, d, c, descs[c], (*id)++, -1);
		fputs("</figure>\n", out);
		for (size_t k = 0; k < BASE_TICK_PROBES; k++) {
			if (!d->configs[c].probe[k])
				continue;
			fprintf(out, "<figure><figcaption>%s: <code>", probe_caption[k]);
			esc(out, descs[c]);
			fputs("</code></figcaption>\n", out);
			report_svg_window(out, d, c, descs[c], (*id)++, (int)k);
			fputs("</figure>\n", out);
		}
	}
	fputs("</section>\n", out);
}

static void html_latency(FILE *out, const struct report_doc *d,
		const char *const *descs, size_t *id)
{
	bool any = false;

	for (size_t c = 0; c < d->nconfigs; c++)
		any |= d->configs[c].rr;
	if (!any)
		return;
	fputs("<section id=\"latency\">\n<h2>Latency of request/response tests</h2>\n", out);
	for (size_t c = 0; c < d->nconfigs; c++) {
		char v[32];

		if (!d->configs[c].rr)
			continue;
		fputs("<figure><figcaption>Latency percentiles: <code>", out);
		esc(out, descs[c]);
		fputs("</code></figcaption>\n", out);
		report_svg_latency(out, d, c, descs[c], (*id)++);
		fputs("</figure>\n<table class=\"latency\"><thead><tr><th>label</th>", out);
		for (size_t k = 0; k < REPORT_NLAT; k++)
			fprintf(out, "<th>%s (us)</th>", report_lat_name[k]);
		fputs("<th>samples</th></tr></thead><tbody>\n", out);
		for (size_t l = 0; l < d->nlabels; l++) {
			const struct report_cell *cell = report_doc_cell(d, l, c);

			if (!cell)
				continue;
			fputs("<tr><td>", out);
			label_chip(out, d, l);
			fputs("</td>", out);
			for (size_t k = 0; k < REPORT_NLAT; k++) {
				double x = report_lat_line(cell, k);

				report_fmt_num(v, sizeof(v), x);
				num_td(out, x, v);
			}
			fprintf(out, "<td class=\"num\">%zu</td></tr>\n", cell->n);
		}
		fputs("</tbody></table>\n", out);
	}
	fputs("</section>\n", out);
}

/* The parameters every configuration shares, then those of each test. */
static void html_params(FILE *out, const struct report_doc *d)
{
	const char **tests = report_tests(d);
	char text[4096];
	size_t n = 0;

	if (!report_params_text(d, NULL, text, sizeof(text)) && text[0]) {
		fputs("<p>Parameters of every configuration: <code>", out);
		esc(out, text);
		fputs("</code></p>\n", out);
	}
	for (size_t i = 0; tests && tests[i]; i++) {
		if (report_params_text(d, tests[i], text, sizeof(text)) || !text[0])
			continue;
		fputs(n++ ? "<li><code>" : "<p>And of every configuration of one test:</p>\n<ul>\n<li><code>", out);
		esc(out, tests[i]);
		fputs("</code>: <code>", out);
		esc(out, text);
		fputs("</code></li>\n", out);
	}
	if (n)
		fputs("</ul>\n", out);
	free(tests);
}

struct html_answer_ctx {
	FILE *out;
	const struct report_doc *d;
};

static void html_answer_line(void *ctx, size_t b, const char *line)
{
	struct html_answer_ctx *c = ctx;

	fputs("<li>", c->out);
	label_chip(c->out, c->d, b);
	fputs(": ", c->out);
	esc(c->out, line);
	fputs("</li>\n", c->out);
}

/* The answer first: each label's calls and their likely causes. */
static void html_answer(FILE *out, const struct report_doc *d, const char *const *descs)
{
	struct html_answer_ctx c = { out, d };

	if (d->nlabels < 2)
		return;
	fputs("<section id=\"answer\">\n<h2>Answer</h2>\n<ul class=\"answer\">\n", out);
	if (!report_answers(d, descs, html_answer_line, &c))
		fputs("<li>No headline metric changed against the baseline.</li>\n", out);
	fputs("</ul>\n</section>\n", out);
}

int report_html(FILE *out, const struct report_doc *d, size_t *ncharts)
{
	struct report_chart *charts = NULL;
	size_t ncharts_axis = 0, id = 0;
	char **descs = report_config_descs(d);
	int ret = -ENOMEM;

	if (!descs || (ret = report_charts_find(d, &charts, &ncharts_axis)))
		goto out;
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<meta name=\"generator\" content=\"" BASE_TOOL "\">\n<title>netregress report: ", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		if (l)
			fputs(", ", out);
		esc(out, d->labels[l].name);
	}
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>netregress report</h1>\n<p>Labels: ",
		page_style);
	for (size_t l = 0; l < d->nlabels; l++) {
		if (l)
			fputs(", ", out);
		label_chip(out, d, l);
		if (l == d->baseline && d->nlabels > 1)
			fputs(" (baseline)", out);
	}
	fprintf(out, ". %zu configuration%s.</p>\n", d->nconfigs, d->nconfigs == 1 ? "" : "s");
	html_params(out, d);
	fputs("<nav><a href=\"#environment\">Environment</a><a href=\"#summary\">Summary</a>"
	      "<a href=\"#axes\">Charts</a>", out);
	if (d->nlabels > 1)
		fputs("<a href=\"#compare\">Compare</a>", out);
	for (size_t c = 0; c < d->nconfigs; c++) {
		if (d->configs[c].rr) {
			fputs("<a href=\"#latency\">Latency</a>", out);
			break;
		}
	}
	if (any_series(d))
		fputs("<a href=\"#window\">Within the window</a>", out);
	fputs("</nav>\n", out);
	html_answer(out, d, (const char *const *)descs);
	html_environment(out, d);
	html_summary(out, d, (const char *const *)descs);
	fputs("<section id=\"axes\">\n<h2>The headline metric against each axis</h2>\n", out);
	if (!ncharts_axis)
		fputs("<p class=\"note\">No parameter varies between configurations of one test: there is no axis to draw.</p>\n", out);
	else
		fputs("<p class=\"note\">One chart per parameter that varies and per combination of the others: "
		      "every sample is a dot, the line joins the medians of each label.</p>\n", out);
	for (size_t i = 0; i < ncharts_axis; i++) {
		const struct report_chart *c = &charts[i];

		fputs("<figure><figcaption><code>", out);
		esc(out, c->test);
		fputs("</code>: ", out);
		esc(out, d->configs[c->config[0]].headline);
		fputs(" against <code>", out);
		esc(out, c->axis);
		fputs("</code>", out);
		if (c->fixed[0]) {
			fputs(" with <code>", out);
			esc(out, c->fixed);
			fputs("</code>", out);
		}
		fputs("</figcaption>\n", out);
		report_svg_axis(out, d, c, id++);
		fputs("</figure>\n", out);
	}
	fputs("</section>\n", out);
	html_compare(out, d, (const char *const *)descs);
	html_latency(out, d, (const char *const *)descs, &id);
	html_window(out, d, (const char *const *)descs, &id);
	/*
	 * Extension point (#8): the bisect commit strip goes here once
	 * bisect/ exists: one column per step, in commit order, each step's
	 * samples as dots and its good/bad/skip decision.
	 */
	fputs("<footer><p class=\"note\">Made by " BASE_TOOL ".</p></footer>\n<script>\n", out);
	fputs(page_script, out);
	fputs("</script>\n</body>\n</html>\n", out);
	if (ncharts)
		*ncharts = id;
out:
	report_charts_free(charts, ncharts_axis);
	report_config_descs_free(descs, d->nconfigs);
	if (ret)
		return ret;
	return ferror(out) ? -EIO : 0;
}
