// SPDX-License-Identifier: GPL-2.0-only
/* The report as Markdown: the tables of the HTML page, for a mailing-list post or an issue. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/internal.h"
#include "report/report.h"

void report_md_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (strchr("|\\`*_[]<>#", *s))
			fputc('\\', out);
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
}

/* A code span in a table cell: backticks become quotes, pipes stay escaped
 * (GitHub splits cells on them even inside code). */
static void md_code(FILE *out, const char *s)
{
	fputc('`', out);
	for (; *s; s++) {
		if (*s == '|')
			fputs("\\|", out);
		else if (*s == '`')
			fputc('\'', out);
		else
			fputc(*s == '\n' || *s == '\r' ? ' ' : *s, out);
	}
	fputc('`', out);
}

/* The line under a table's titles: one letter per column, l (left) or r. */
static void md_sep(FILE *out, const char *align)
{
	fputc('|', out);
	for (; *align; align++)
		fputs(*align == 'r' ? " ---: |" : " --- |", out);
	fputc('\n', out);
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

static void md_labels_header(FILE *out, const struct report_doc *d,
			     const char *first)
{
	fprintf(out, "| %s |", first);
	for (size_t l = 0; l < d->nlabels; l++) {
		fputc(' ', out);
		report_md_escape(out, d->labels[l].name);
		fputs(" |", out);
	}
	fputc('\n', out);
	fputs("| --- |", out);
	for (size_t l = 0; l < d->nlabels; l++)
		fputs(" --- |", out);
	fputc('\n', out);
}

static void md_environment(FILE *out, const struct report_doc *d)
{
	static const char *const sides[] = { "client", "server" };
	size_t ndiff = 0;
	bool any_snap = false;

	fputs("## Environment\n\nThe environment of each label's first sample; entries in bold differ between labels.\n\n", out);
	md_labels_header(out, d, "entry");
	fputs("| samples (configurations) |", out);
	for (size_t l = 0; l < d->nlabels; l++)
		fprintf(out, " %zu (%zu) |", d->labels[l].nsamples, d->labels[l].nconfigs);
	fputc('\n', out);
	/* the union of the keys: the first label's order, then new ones */
	for (size_t l = 0; l < d->nlabels; l++) {
		for (size_t i = 0; i < d->labels[l].nenv; i++) {
			const char *key = d->labels[l].env[i].key, *v0;
			bool seen = false, diff = false, f0, f;

			for (size_t m = 0; m < l && !seen; m++)
				kv_val(d->labels[m].env, d->labels[m].nenv, key, &seen);
			if (seen)
				continue;
			v0 = kv_val(d->labels[0].env, d->labels[0].nenv, key, &f0);
			for (size_t m = 1; m < d->nlabels; m++) {
				const char *v = kv_val(d->labels[m].env, d->labels[m].nenv, key, &f);

				diff |= f != f0 || strcmp(v, v0);
			}
			fputs(diff ? "| **" : "| ", out);
			report_md_escape(out, key);
			fputs(diff ? "** |" : " |", out);
			for (size_t m = 0; m < d->nlabels; m++) {
				const char *v = kv_val(d->labels[m].env, d->labels[m].nenv, key, &f);

				fputc(' ', out);
				report_md_escape(out, f ? v : "-");
				fputs(" |", out);
			}
			fputc('\n', out);
		}
	}
	fputc('\n', out);
	for (size_t l = 0; l < d->nlabels; l++) {
		any_snap |= d->labels[l].sysenv != NULL;
		if (!d->labels[l].env_changed)
			continue;
		fputs("Note: the samples of ", out);
		report_md_escape(out, d->labels[l].name);
		fputs(" ran in more than one environment (their fingerprints differ): only the first is shown.\n\n", out);
	}
	if (!any_snap)
		return;
	/* the entries of the full snapshots that differ */
	for (size_t s = 0; s < ARRAY_SIZE(sides); s++) {
		for (size_t l = 0; l < d->nlabels; l++) {
			json_t *entries = json_object_get(json_object_get(d->labels[l].sysenv, sides[s]), "entries");
			const char *name;
			json_t *v;

			json_object_foreach(entries, name, v) {
				const char *vals[REPORT_MAX_LABELS];
				bool first = true, diff = false;

				for (size_t m = 0; m < d->nlabels; m++) {
					json_t *e = json_object_get(json_object_get(json_object_get(d->labels[m].sysenv, sides[s]), "entries"), name);

					vals[m] = json_string_value(e);
					if (m < l && vals[m])
						first = false;
					if (m && (!vals[m] != !vals[0] ||
						  (vals[m] && strcmp(vals[m], vals[0]))))
						diff = true;
				}
				if (!first || !diff || !report_env_comparable(name))
					continue;
				if (!ndiff++) {
					fputs("Entries of the full environment snapshots (sysctls, CPU, interface) that differ (sysctls that change by themselves left out):\n\n", out);
					md_labels_header(out, d, "entry");
				}
				fprintf(out, "| %s.", sides[s]);
				report_md_escape(out, name);
				fputs(" |", out);
				for (size_t m = 0; m < d->nlabels; m++) {
					fputc(' ', out);
					report_md_escape(out, vals[m] ? vals[m] : "-");
					fputs(" |", out);
				}
				fputc('\n', out);
			}
		}
	}
	if (ndiff)
		fputc('\n', out);
	else
		fputs("The full environment snapshots do not differ.\n\n", out);
}

static const struct report_cmp *find_cmp(const struct report_doc *d, size_t l,
					 size_t c)
{
	for (size_t i = 0; i < d->ncmps; i++)
		if (d->cmps[i].a == d->baseline && d->cmps[i].b == l &&
		    d->cmps[i].config == c)
			return &d->cmps[i];
	return NULL;
}

static void md_summary(FILE *out, const struct report_doc *d,
		const char *const *descs)
{
	fputs("## Summary\n\nThe headline metric of each configuration: median, %stddev and (samples) per label; "
	      "beside each other label, its change against the baseline and the verdict.\n\n", out);
	fputs("| configuration | metric |", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		fputc(' ', out);
		report_md_escape(out, d->labels[l].name);
		fputs(l == d->baseline && d->nlabels > 1 ? " (baseline) |" : " |", out);
	}
	fputc('\n', out);
	fputs("| --- | --- |", out);
	for (size_t l = 0; l < d->nlabels; l++)
		fputs(" ---: |", out);
	fputc('\n', out);
	for (size_t c = 0; c < d->nconfigs; c++) {
				fputs("| ", out);
		md_code(out, descs[c]);
		fputs(" | ", out);
		report_md_escape(out, d->configs[c].headline);
		fprintf(out, " (%s) |", d->configs[c].unit);
		for (size_t l = 0; l < d->nlabels; l++) {
			const struct report_cell *cell = report_doc_cell(d, l, c);
			const struct report_cmp *cmp = find_cmp(d, l, c);
			const struct stats_row *r;
			char med[32], sd[32], ch[24];

			if (!cell) {
				fputs(" - |", out);
				continue;
			}
			report_fmt_num(med, sizeof(med), report_median(cell->headline, cell->n));
			report_fmt_sd(sd, sizeof(sd), report_cv_pct(cell->headline, cell->n));
			fprintf(out, " %s %s (%zu)", med, sd, cell->n);
			if ((r = cmp ? stats_table_headline(&cmp->t) : NULL)) {
				report_fmt_pct(ch, sizeof(ch), r->c.change_mean_pct);
				fprintf(out, " %s %s", ch, stats_verdict_name(r->c.verdict));
			}
			fputs(" |", out);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
}

static void md_row(FILE *out, const char *desc, const struct stats_row *r)
{
	char buf[5][32], sh[3][32], p[32], v[96];
	double pv = r->headline ? r->c.p : r->q;

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
	if (isnan(pv))
		snprintf(p, sizeof(p), "-");
	else
		snprintf(p, sizeof(p), "%.4f", pv);
	report_verdict_text(r, v, sizeof(v));
	fputs("| ", out);
	md_code(out, desc);
	fputs(" | ", out);
	report_md_escape(out, r->metric);
	fprintf(out, " (%s) | %s | %s | %zu | %s | %s [%s, %s] | %s | %s | %zu | %s | %s%s%s |\n",
		base_metric_dir_name(r->dir), buf[0], buf[1], r->c.na, buf[2],
		sh[0], sh[1], sh[2], buf[3], buf[4], r->c.nb, p,
		r->c.verdict == STATS_REGRESSION || r->c.verdict == STATS_IMPROVEMENT ? "**" : "",
		v,
		r->c.verdict == STATS_REGRESSION || r->c.verdict == STATS_IMPROVEMENT ? "**" : "");
}

static void md_notes(FILE *out, const struct report_doc *d,
		     const struct report_cmp *cmp, const char *desc)
{
	const struct stats_notes *nt = &cmp->t.notes;
	const char *a = d->labels[cmp->a].name, *b = d->labels[cmp->b].name;

	if (nt->too_few) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": fewer than 4 samples a side: no test is possible, measure more (--reps)\n", out);
	}
	if (nt->outliers_a || nt->outliers_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": outliers in the headline (modified z-score > 3.5, kept): %zu in ",
			nt->outliers_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->outliers_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->disturbed_a || nt->disturbed_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": left out as disturbed by foreign CPU load: %zu in ", nt->disturbed_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->disturbed_b);
		report_md_escape(out, b);
		report_disturbed_parts(out, nt);
		fputs(" (--keep-disturbed pools them)\n", out);
	}
	if (nt->all_disturbed_a || nt->all_disturbed_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": compared although flagged disturbed by foreign CPU load, as every sample of the side was: %zu in ",
			nt->all_disturbed_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->all_disturbed_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->not_steady_a || nt->not_steady_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": samples whose rate trended or moved to another level within the window (not steady): %zu in ",
			nt->not_steady_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->not_steady_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->host_trend_a || nt->host_trend_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": of those, with the host's CPU speed (speed probe) trending the same way: %zu in ",
			nt->host_trend_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->host_trend_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->mixed_a || nt->mixed_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": samples whose 100 ms rate left a level and came back within the window (levels up to %.0f%% of the mean apart): %zu in ",
			fmax(nt->mixed_gap_a, nt->mixed_gap_b), nt->mixed_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->mixed_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->speed_changed) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": the CPU speed probe (host.speed) moved %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): ",
			nt->speed_shift_pct, nt->speed_lo_pct, nt->speed_hi_pct, nt->speed_p);
		report_speed_why(out, nt);
		fputc('\n', out);
	}
	for (size_t i = 0; i < nt->nredef; i++) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": measured by netregress builds that define a metric differently: ", out);
		report_redef_text(out, nt, i, a, b, report_md_escape);
		fputc('\n', out);
	}
	if (nt->cc_differ) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": the tcp senders ran another congestion control, as their sockets reported it (env tcp.cc): ", out);
		report_md_escape(out, nt->cc_a);
		fputs(" in ", out);
		report_md_escape(out, a);
		fputs(", ", out);
		report_md_escape(out, nt->cc_b);
		fputs(" in ", out);
		report_md_escape(out, b);
		fputs("; every figure of a tcp test moves with it\n", out);
	}
	if (nt->xcpu_moved_a || nt->xcpu_moved_b) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": samples in which the host moved the test's CPUs within the window (the round trip of a cache line between them changed level): %zu in ",
			nt->xcpu_moved_a);
		report_md_escape(out, a);
		fprintf(out, ", %zu in ", nt->xcpu_moved_b);
		report_md_escape(out, b);
		fputc('\n', out);
	}
	if (nt->xcpu_changed) {
		fputs("- ", out);
		md_code(out, desc);
		fprintf(out, ": the test's CPUs sat %s: the round trip of a cache line between them (host.xcpu_ns) went from %.0f to %.0f ns, %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): part of a change may be the host's placement\n",
			nt->xcpu_shift_pct > 0 ? "farther apart" : "closer together", nt->xcpu_a_ns, nt->xcpu_b_ns,
			nt->xcpu_shift_pct, nt->xcpu_lo_pct, nt->xcpu_hi_pct, nt->xcpu_p);
	}
	if (nt->xcpu_mix) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": ", out);
		report_mix_text(out, &nt->mix, a, b, report_md_escape);
		fputc('\n', out);
	}
	if (nt->adj_applied) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": ", out);
		report_adj_note(out, nt);
		fputc('\n', out);
	}
	if (nt->pairs) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": ", out);
		report_paired_note(out, nt);
		fputc('\n', out);
	}
	if (nt->fdr_downgraded) {
		fputs("- ", out);
		md_code(out, desc);
		fputs(": ", out);
		report_fdr_note(out, nt);
		fputc('\n', out);
	}
	for (size_t i = 0; i < cmp->t.nrows; i++) {
		char *text;

		if (!report_fdr_row_due(&cmp->t.rows[i]))
			continue;
		fputs("- ", out);
		md_code(out, desc);
		fputs(": ", out);
		text = report_fdr_row_text(&cmp->t.rows[i]);
		report_md_escape(out, text ? text : "(out of memory)");
		free(text);
		fputc('\n', out);
	}
	for (int side = 0; side < 2; side++) {
		double p = side ? nt->drift_p_b : nt->drift_p_a;
		const char *diff = side ? nt->env_diff_b : nt->env_diff_a;

		if (p < 0.05) {
			fputs("- ", out);
			md_code(out, desc);
			fputs(": ", out);
			report_md_escape(out, side ? b : a);
			fprintf(out, " drifts with run order (Mann-Kendall p = %.3f): the machine changed during the runs\n",
				p);
		}
		if (diff[0]) {
			fputs("- ", out);
			md_code(out, desc);
			fputs(": samples of ", out);
			report_md_escape(out, side ? b : a);
			fputs(" ran in different environments: ", out);
			report_md_escape(out, diff);
			fputc('\n', out);
		}
	}
}

/* What moved with each configuration's headline, before its table. */
static void md_why_head(FILE *out, const char *desc)
{
	fputs("What moved with the headline of ", out);
	md_code(out, desc);
	fputs(", the likely cause first:\n\n", out);
}

static void md_why_item(FILE *out, size_t k, const char *line)
{
	fprintf(out, "%zu. ", k + 1);
	report_md_escape(out, line);
	fputc('\n', out);
}

static void md_why_tail(FILE *out)
{
	fputc('\n', out);
}

static const struct report_why_fmt md_why = { md_why_head, md_why_item, md_why_tail };

static void md_pair(FILE *out, const struct report_doc *d,
		const char *const *descs, size_t b)
{
	size_t a = d->baseline, nconf = 0, hidden = 0, regressed = 0, nnotes = 0, paired = 0;
		fputs("## ", out);
	report_md_escape(out, d->labels[b].name);
	fputs(" against ", out);
	report_md_escape(out, d->labels[a].name);
	fputs("\n\n", out);
	for (size_t i = 0; i < d->ncmps; i++)
		nconf += d->cmps[i].a == a && d->cmps[i].b == b;
	if (!nconf) {
		fputs("These labels share no configuration.\n\n", out);
		return;
	}
	report_why_doc(out, d, descs, b, &md_why);
	fputs("| configuration | metric (better) | ", out);
	report_md_escape(out, d->labels[a].name);
	fputs(" median | ±%sd | n | %change | shift [95% CI] | ", out);
	report_md_escape(out, d->labels[b].name);
	fputs(" median | ±%sd | n | p / q | verdict |\n", out);
	md_sep(out, "llrrrrrrrrrl");
	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];

		if (cmp->a != a || cmp->b != b)
			continue;
		regressed += cmp->t.regressed;
		paired += cmp->t.paired_regressed;
		nnotes += stats_notes_any(&cmp->t.notes);
		hidden += cmp->t.hidden;
		for (size_t k = 0; k < cmp->t.nrows; k++) {
			if (cmp->t.rows[k].shown)
				md_row(out, descs[cmp->config], &cmp->t.rows[k]);
			else
				hidden++;
		}
	}
	fprintf(out, "\n%zu configuration%s compared: ", nconf, nconf == 1 ? "" : "s");
	report_headline_summary(out, regressed, d->headline, report_md_escape);
	fputc('.', out);
	report_paired_summary(out, paired, " Note: ", false);
	if (paired)
		fputc('.', out);
	report_fdr_summary(out, nconf, " Note: ");
	if (nconf > 1)
		fputc('.', out);
	if (hidden)
		fprintf(out, " %zu other metric row%s did not change and %s not listed ('compare --all' lists them).",
			hidden, hidden == 1 ? "" : "s", hidden == 1 ? "is" : "are");
	fputs("\n\n", out);
	if (!nnotes)
		return;
	fputs("Notes:\n\n", out);
	for (size_t i = 0; i < d->ncmps; i++) {
		const struct report_cmp *cmp = &d->cmps[i];

		if (cmp->a != a || cmp->b != b || !stats_notes_any(&cmp->t.notes))
			continue;
		md_notes(out, d, cmp, descs[cmp->config]);
	}
	fputc('\n', out);
}

static void md_latency(FILE *out, const struct report_doc *d,
		const char *const *descs)
{
	bool any = false;

	for (size_t c = 0; c < d->nconfigs; c++)
		any |= d->configs[c].rr;
	if (!any)
		return;
	fputs("## Latency of request/response tests\n\n"
	      "Percentiles in microseconds: of all samples' merged histograms where every sample has one, "
	      "else the median of the samples' own.\n\n", out);
	for (size_t c = 0; c < d->nconfigs; c++) {
		char v[32];

		if (!d->configs[c].rr)
			continue;
		fputs("### ", out);
		md_code(out, descs[c]);
		fputs("\n\n| label |", out);
		for (size_t k = 0; k < REPORT_NLAT; k++)
			fprintf(out, " %s (us) |", report_lat_name[k]);
		fputs(" samples | from |\n", out);
		md_sep(out, "lrrrrrl");
		for (size_t l = 0; l < d->nlabels; l++) {
			const struct report_cell *cell = report_doc_cell(d, l, c);

			if (!cell)
				continue;
			fputs("| ", out);
			report_md_escape(out, d->labels[l].name);
			fputs(" |", out);
			for (size_t k = 0; k < REPORT_NLAT; k++) {
				report_fmt_num(v, sizeof(v), report_lat_line(cell, k));
				fprintf(out, " %s |", v);
			}
			fprintf(out, " %zu | %s |\n", cell->n,
				cell->hist ? "histograms" : "medians");
		}
		fputc('\n', out);
	}
}

/* The parameters every configuration shares, then those of each test. */
static void md_params(FILE *out, const struct report_doc *d)
{
	const char **tests = report_tests(d);
	char text[4096];
	size_t n = 0;

	if (!report_params_text(d, NULL, text, sizeof(text)) && text[0]) {
		fputs("Parameters of every configuration: ", out);
		md_code(out, text);
		fputs("\n\n", out);
	}
	for (size_t i = 0; tests && tests[i]; i++) {
		if (report_params_text(d, tests[i], text, sizeof(text)) || !text[0])
			continue;
		if (!n++)
			fputs("And of every configuration of one test:\n\n", out);
		fputs("- ", out);
		md_code(out, tests[i]);
		fputs(": ", out);
		md_code(out, text);
		fputc('\n', out);
	}
	if (n)
		fputc('\n', out);
	free(tests);
}

struct md_answer_ctx {
	FILE *out;
	const struct report_doc *d;
};

static void md_answer_line(void *ctx, size_t b, const char *line)
{
	struct md_answer_ctx *c = ctx;

	fputs("- ", c->out);
	report_md_escape(c->out, c->d->labels[b].name);
	fputs(": ", c->out);
	report_md_escape(c->out, line);
	fputc('\n', c->out);
}

/* The answer first: each label's calls and their likely causes. */
static void md_answer(FILE *out, const struct report_doc *d, const char *const *descs)
{
	struct md_answer_ctx c = { out, d };

	if (d->nlabels < 2)
		return;
	fputs("## Answer\n\n", out);
	if (!report_answers(d, descs, md_answer_line, &c))
		fputs("No headline metric changed against the baseline.\n", out);
	fputc('\n', out);
}

int report_md(FILE *out, const struct report_doc *d)
{
	char **descs = report_config_descs(d);

	if (!descs)
		return -ENOMEM;
	fputs("# netregress report: ", out);
	for (size_t l = 0; l < d->nlabels; l++) {
		if (l)
			fputs(", ", out);
		report_md_escape(out, d->labels[l].name);
	}
	fputs("\n\n", out);
	if (d->nlabels > 1) {
		fputs("Baseline: ", out);
		report_md_escape(out, d->labels[d->baseline].name);
		fputs("; compared against it: ", out);
		for (size_t l = 0, k = 0; l < d->nlabels; l++) {
			if (l == d->baseline)
				continue;
			if (k++)
				fputs(", ", out);
			report_md_escape(out, d->labels[l].name);
		}
		fputs(".\n", out);
	}
	fprintf(out, "%zu configuration%s.", d->nconfigs, d->nconfigs == 1 ? "" : "s");
	fputs("\n\n", out);
	md_answer(out, d, (const char *const *)descs);
	md_params(out, d);
	md_environment(out, d);
	md_summary(out, d, (const char *const *)descs);
	for (size_t b = 0; b < d->nlabels; b++)
		if (b != d->baseline)
			md_pair(out, d, (const char *const *)descs, b);
	md_latency(out, d, (const char *const *)descs);
	/* Extension point (#8): the bisect steps table goes here once bisect/ exists. */
	report_config_descs_free(descs, d->nconfigs);
	return ferror(out) ? -EIO : 0;
}
