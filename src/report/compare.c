// SPDX-License-Identifier: GPL-2.0-only
/* The A/B compare table: terminal, JSON and CSV. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/config.h"
#include "report/internal.h"
#include "report/report.h"

void report_verdict_text(const struct stats_row *r, char *buf, size_t len)
{
	if (r->c.verdict == STATS_INCONCLUSIVE && r->c.runs_needed)
		snprintf(buf, len, "inconclusive (about %zu runs needed)",
			 r->c.runs_needed);
	else
		snprintf(buf, len, "%s", stats_verdict_name(r->c.verdict));
}

/* A number in 7 significant columns: 12345.6, 1.235e+07, - for NaN. */
static void num(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (v != 0 && (fabs(v) >= 1e7 || fabs(v) < 1e-3))
		snprintf(buf, len, "%.3e", v);
	else
		snprintf(buf, len, "%.4g", v);
}

static void pct(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%+.1f%%", v);
}

static void sdp(char *buf, size_t len, double v)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "±%.1f%%", v);
}

static const char *dir_word(enum metric_dir d)
{
	return d == METRIC_HIGHER ? "higher" : d == METRIC_LOWER ? "lower" : "neutral";
}

/* One row of the terminal table, formatted. */
struct cells {
	char name[160], ma[24], mb[24], sa[16], sb[16], ch[16], ci[64], p[16],
		v[64];
};

static void format_row(const struct stats_row *r, struct cells *c)
{
	char sh[16], lo[16], hi[16];

	snprintf(c->name, sizeof(c->name), "%s (%s)", r->metric, dir_word(r->dir));
	num(c->ma, sizeof(c->ma), r->c.median_a);
	num(c->mb, sizeof(c->mb), r->c.median_b);
	sdp(c->sa, sizeof(c->sa), r->c.sd_pct_a);
	sdp(c->sb, sizeof(c->sb), r->c.sd_pct_b);
	pct(c->ch, sizeof(c->ch), r->c.change_mean_pct);
	if (r->c.shift_abs) {
		num(sh, sizeof(sh), r->c.shift_pct);
		num(lo, sizeof(lo), r->c.shift_lo_pct);
		num(hi, sizeof(hi), r->c.shift_hi_pct);
	} else {
		pct(sh, sizeof(sh), r->c.shift_pct);
		pct(lo, sizeof(lo), r->c.shift_lo_pct);
		pct(hi, sizeof(hi), r->c.shift_hi_pct);
	}
	snprintf(c->ci, sizeof(c->ci), "%s [%s, %s]", sh, lo, hi);
	if (isnan(r->c.p))
		snprintf(c->p, sizeof(c->p), "-");
	else
		snprintf(c->p, sizeof(c->p), "%.4f", r->headline ? r->c.p : r->q);
	report_verdict_text(r, c->v, sizeof(c->v));
}

/* Display columns of a UTF-8 string ("±" is one). */
static int cols(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* s left- or right-aligned in w display columns. */
static void cell(FILE *out, const char *s, int w, bool left)
{
	int pad = w - cols(s);

	if (left)
		fputs(s, out);
	for (; pad > 0; pad--)
		fputc(' ', out);
	if (!left)
		fputs(s, out);
}

/* One label's columns: " median ±sd n | " (n SIZE_MAX: the header's "n"). */
static void side(FILE *out, const char *median, const char *sd, size_t n)
{
	fputc(' ', out);
	cell(out, median, 10, false);
	fputc(' ', out);
	cell(out, sd, 8, false);
	if (n == SIZE_MAX)
		fprintf(out, " %3s | ", "n");
	else
		fprintf(out, " %3zu | ", n);
}

void report_adj_note(FILE *out, const struct stats_notes *nt)
{
	if (nt->adj_windows)
		fprintf(out, "within each window the 100 ms rates went with the CPUs' distance: ln(rate) = %+.3f x ln(round trip) + a level per sample (%zu intervals; p = %.4f with the %zu windows in which it varied as clusters, the host moving the CPUs in %zu; %.0f%% of the variance within the windows); the .xcpu_adj row compares every sample with its rates moved along that slope to %.0f ns",
			nt->adj_slope, nt->adj_ticks, nt->adj_p, nt->adj_windows,
			nt->adj_moved_windows, 100 * nt->adj_r2, nt->adj_x_ref_ns);
	else
		fprintf(out, "within each label the headline went with the CPUs' distance: ln(headline) = %+.3f x ln(host.xcpu_ns) + a level per label (p = %.4f, %.0f%% of the variance within the labels); the .xcpu_adj row compares every sample moved along that slope to %.0f ns",
			nt->adj_slope, nt->adj_p, 100 * nt->adj_r2, nt->adj_x_ref_ns);
	if (nt->adj_applied)
		fprintf(out, ", and calls a change only if the slope's 95%% interval [%+.3f, %+.3f] calls it at both ends",
			nt->adj_slope_lo, nt->adj_slope_hi);
}

void report_speed_why(FILE *out, const struct stats_notes *nt)
{
	if (nt->builds_differ)
		fputs("but the labels were measured by different netregress builds (client.build), and the probe's figure is its build's own unit: it need not be the host's",
		      out);
	else if (!nt->speed_core_known)
		fputs("the host ran the test's CPUs at another speed, so part of a change of the same sign may be the host's",
		      out);
	else if (nt->speed_core_changed)
		fprintf(out, "the core's pace between interruptions (host.speed.core) moved %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): the host ran the test's CPUs at another clock or beside busier neighbours, so part of a change of the same sign may be the host's",
			nt->speed_core_shift_pct, nt->speed_core_lo_pct, nt->speed_core_hi_pct,
			nt->speed_core_p);
	else
		fprintf(out, "the core's pace between interruptions (host.speed.core) held (%+.1f%%, p = %.4f): the probe lost another share of its time to interruptions, which the guest's own interrupts and softirqs on the test's CPUs take as well as the host, so this need not be the host's",
			nt->speed_core_shift_pct, nt->speed_core_p);
}

void report_paired_note(FILE *out, const struct stats_notes *nt)
{
	fprintf(out, "the .paired row takes each run with the other label's run next to it in time as a pair (%zu pairs, %zu run%s without a partner) and tests the mean of ln(B/A) over the pairs (Student's t): what drifted from one pair to the next hit both of a pair",
		nt->pairs, nt->unpaired, nt->unpaired == 1 ? "" : "s");
	if (nt->pairs_a_first == nt->pairs || !nt->pairs_a_first)
		fprintf(out, "; %s's run came first in every pair, so what the order does (a drift within a pair, what one run leaves for the next) cannot be told from the change: a labels matrix runs each configuration in both orders",
			nt->pairs_a_first ? "A" : "B");
	else if (nt->period_tested)
		fprintf(out, "; A ran first in %zu pairs and B in %zu, and the pairs of each order are averaged apart so that what running second does cancels (a 2 x 2 crossover): the second run of a pair read %+.1f%% [%+.1f%%, %+.1f%%] against the first (p = %.4f)",
			nt->pairs_a_first, nt->pairs - nt->pairs_a_first, nt->period_pct,
			nt->period_lo_pct, nt->period_hi_pct, nt->period_p);
}

void report_fdr_note(FILE *out, const struct stats_notes *nt)
{
	fprintf(out, "the headline's p = %.4f is q = %.4f among the %zu configurations compared (Benjamini-Hochberg over their headlines): not called, as among %zu configurations a p that small can come by chance",
		nt->fdr_p, nt->fdr_q, nt->fdr_n, nt->fdr_n);
}

void report_disturbed_parts(FILE *out, const struct stats_notes *nt)
{
	size_t n = nt->disturbed_steal_a + nt->disturbed_steal_b;
	size_t p = nt->disturbed_procs_a + nt->disturbed_procs_b;
	size_t w = nt->disturbed_starved_a + nt->disturbed_starved_b;

	if (n)
		fprintf(out, "; in %zu of them mostly the host's steal (cpu.foreign_steal_pct), which nothing in the guest can stop",
			n);
	if (p)
		fprintf(out, "; in %zu%s mostly other processes (cpu.foreign_tasks_pct)%s%s", p,
			n ? "" : " of them", nt->disturbed_busiest[0] ? ", the busiest " : "",
			nt->disturbed_busiest);
	if (w)
		fprintf(out, "; in %zu%s a worker was kept from its CPU (window.starved)", w,
			n || p ? "" : " of them");
}

void report_redef_text(FILE *out, const struct stats_notes *nt, size_t i,
		       const char *a, const char *b, void (*put)(FILE *, const char *))
{
	fprintf(out, "%s (the new way: %zu of %zu samples of ", nt->redef[i].what,
		nt->redef[i].a, nt->redef[i].na);
	put(out, a);
	fprintf(out, ", %zu of %zu of ", nt->redef[i].b, nt->redef[i].nb);
	put(out, b);
	fputc(')', out);
}

/* The median of one label at one distance, and its count of samples there. */
static void mix_median_text(FILE *out, double med, size_t k)
{
	if (isnan(med))
		fprintf(out, " - (%zu)", k);
	else
		fprintf(out, " %.5g (%zu)", med, k);
}

/* One distance's medians of the headline in report_mix_text(). */
static void mix_medians(FILE *out, const struct stats_xcpu_mix *m, size_t d, const char *a,
			const char *b, void (*put)(FILE *, const char *))
{
	const double ma = m->median[d][0], mb = m->median[d][1];

	fprintf(out, "%s ", d ? "far" : "near");
	put(out, a);
	mix_median_text(out, ma, stats_xcpu_mix_count(m, d, 0));
	fputs(" and ", out);
	put(out, b);
	mix_median_text(out, mb, stats_xcpu_mix_count(m, d, 1));
	if (!isnan(ma) && !isnan(mb) && ma != 0)
		fprintf(out, ", %+.1f%%", 100 * (mb - ma) / ma);
}

void report_mix_text(FILE *out, const struct stats_xcpu_mix *m, const char *a, const char *b,
		     void (*put)(FILE *, const char *))
{
	fprintf(out, "the host kept the test's CPUs at two distances, a cache line's round trip (host.xcpu_ns) of %.0f-%.0f ns and of %.0f-%.0f ns, and the labels sat at the far one in different shares: %zu of %zu samples of ",
		m->lo_ns[0], m->hi_ns[0], m->lo_ns[1], m->hi_ns[1], m->far[0], m->n[0]);
	put(out, a);
	fprintf(out, ", %zu of %zu of ", m->far[1], m->n[1]);
	put(out, b);
	fputs(". Loopback traffic slows with the distance, so a difference of the pools may be the mix's; the headline's medians at one distance: ",
	      out);
	mix_medians(out, m, 0, a, b, put);
	fputs("; ", out);
	mix_medians(out, m, 1, a, b, put);
}

/* A label as it is, for the text table. */
static void put_plain(FILE *out, const char *s)
{
	fputs(s, out);
}

bool report_fdr_row_due(const struct stats_row *r)
{
	return r->shown && !r->headline && r->fdr_downgraded;
}

void report_fdr_row_note(FILE *out, const struct stats_row *r)
{
	fprintf(out, "the %s row's own p = %.4f is q = %.4f (its p / q column) among the %zu configurations' %s rows (Benjamini-Hochberg): not called",
		r->metric, r->c.p, r->q, r->fdr_n, r->paired ? ".paired" : ".xcpu_adj");
}

char *report_fdr_row_text(const struct stats_row *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	report_fdr_row_note(m, r);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

void report_fdr_summary(FILE *out, size_t n, const char *sep)
{
	if (n > 1)
		fprintf(out, "%sheadline verdicts take the %zu configurations as one family (Benjamini-Hochberg on their p values), so chance makes a call among them as rarely as in one configuration",
			sep, n);
}

void report_headline_summary(FILE *out, bool regressed, const char *headline,
			     void (*escape)(FILE *out, const char *s))
{
	if (!headline) {
		fputs(regressed ? "REGRESSION in a headline metric" : "no headline regression", out);
		return;
	}
	fputs(regressed ? "REGRESSION in the headline " : "no regression in the headline ", out);
	if (escape)
		escape(out, headline);
	else
		fputs(headline, out);
}

void report_paired_summary(FILE *out, size_t n, const char *sep, bool exit_by_pairs)
{
	if (n)
		fprintf(out, "%sthe .paired row called a REGRESSION in %zu (its runs side by side; the exit code follows %s)",
			sep, n, exit_by_pairs ? "it" : "the rank test");
}

int report_corner_of(const struct stats_table *const *t, size_t n, enum stats_verdict_kind v,
		     struct report_corner *c)
{
	const char **called = calloc(n ? n : 1, sizeof(*called));
	const char **all = calloc(n ? n : 1, sizeof(*all));
	char common[sizeof(c->pairs)], shared[sizeof(c->pairs)];

	memset(c, 0, sizeof(*c));
	if (!called || !all) {
		free(called);
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const struct stats_row *h = stats_table_headline(t[i]);

		all[i] = t[i]->config_key;
		if (h && h->c.verdict == v)
			called[c->n++] = t[i]->config_key;
	}
	if (c->n) {
		job_keys_common(all, n, common, sizeof(common));
		job_keys_common(called, c->n, shared, sizeof(shared));
		job_key_without(shared, common, c->pairs, sizeof(c->pairs));
		for (size_t i = 0; i < n; i++)
			c->with += job_key_holds(all[i], c->pairs);
	}
	free(called);
	free(all);
	return 0;
}

void report_corner_text(FILE *out, const struct report_corner *c, size_t n, const char *what)
{
	if (!c->n || n < 2)
		return;
	fprintf(out, "; %s in %zu of the %zu", what, c->n, n);
	if (!c->pairs[0])
		fputs(", which share no parameter the others lack", out);
	else
		fprintf(out, "%s%s", c->n == 1 ? ": " : ", all with ", c->pairs);
	if (c->pairs[0] && c->with > 1)
		fprintf(out, " (%zu of the %zu that have it)", c->n, c->with);
}

/*
 * The rows per MB or per transaction, per second: whether each kept its
 * pace (no significant change per second: per unit it moved with the
 * headline by construction) or moved per second too.
 */
static void per_second_note(FILE *out, const struct stats_table *t)
{
	/* per second against the test's rate, which --headline may not be */
	const char *rate = stats_headline_metric(t->test);
	const char *unit = strcmp(rate, "throughput.gbps") ? "transaction" : "MB";
	const char *with = strcmp(t->headline, rate) ? rate : "the headline";
	size_t k = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];
		const struct stats_compare *c = &r->per_s;

		if (!r->shown || !r->per_s_tested || isnan(c->p))
			continue;
		fprintf(out, k++ ? "; " : "note: the figures per %s above, per second: ", unit);
		fprintf(out, "%s %+.1f%% [%+.1f%%, %+.1f%%] (p = %.2g): ", r->metric, c->shift_pct,
			c->shift_lo_pct, c->shift_hi_pct, c->p);
		if (c->verdict == STATS_SAME)
			fprintf(out, "it kept its pace, and per unit moved with %s by construction",
				with);
		else
			fputs(c->verdict == STATS_INCONCLUSIVE ? "no change shown per second" :
			      c->verdict == STATS_MINOR ?
					"it moved per second, less than a change that matters" :
					"it moved per second too",
			      out);
	}
	if (k)
		fputc('\n', out);
}

/* The headline's verdict before the table: what the rest explains. */
static void headline_line(FILE *out, const struct stats_table *t)
{
	const struct stats_row *h = stats_table_headline(t);
	struct cells c;

	if (!h)
		return;
	format_row(h, &c);
	fprintf(out, "%s: %s -> %s %s, shift %s, p %s: %s\n", h->metric, c.ma, c.mb, h->unit,
		c.ci, c.p, c.v);
}

void report_compare_table(FILE *out, const struct stats_table *t,
			  const char *label_a, const char *label_b, const char *common)
{
	const struct stats_notes *nt = &t->notes;
	int wname = 34, wch = 8, wci = 22;
	char rest[sizeof(t->config_key)];
	struct cells c;
	size_t shown = 0;

	/* the widths of the columns that grow: the longest metric name and
	 * the widest change and interval shown */
	for (size_t i = 0; i < t->nrows; i++) {
		if (!t->rows[i].shown)
			continue;
		format_row(&t->rows[i], &c);
		if (cols(c.name) > wname)
			wname = cols(c.name);
		if (cols(c.ch) > wch)
			wch = cols(c.ch);
		if (cols(c.ci) > wci)
			wci = cols(c.ci);
	}
	if (common && *common)
		job_key_without(t->config_key, common, rest, sizeof(rest));
	fprintf(out, "config: %s\n", common && *common ? rest : t->config_key);
	headline_line(out, t);
	report_why_list(out, t, REPORT_WHY_TOP, "");
	cell(out, "metric (better)", wname, true);
	side(out, "A median", "±%sd", SIZE_MAX);
	cell(out, "%change", wch, false);
	fputc(' ', out);
	cell(out, "shift [95% CI]", wci, true);
	fputs(" |", out);
	side(out, "B median", "±%sd", SIZE_MAX);
	/* the headline's own p; every other row's q (its family's) */
	fprintf(out, "%7s | %s\n", "p / q", "verdict");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];

		if (!r->shown)
			continue;
		shown++;
		format_row(r, &c);
		cell(out, c.name, wname, true);
		side(out, c.ma, c.sa, r->c.na);
		cell(out, c.ch, wch, false);
		fputc(' ', out);
		cell(out, c.ci, wci, true);
		fputs(" |", out);
		side(out, c.mb, c.sb, r->c.nb);
		cell(out, c.p, 7, false);
		fprintf(out, " | %s\n", c.v);
	}
	if (t->hidden + t->nrows > shown)
		fprintf(out, "(%zu other metrics did not change; --all lists them; q adjusts p over the %zu other metrics whose values could reach p < %g)\n",
			t->hidden + t->nrows - shown, t->family, t->alpha);
	per_second_note(out, t);
	if (nt->too_few)
		fprintf(out, "note: fewer than 4 samples a side: no test is possible, measure more (--reps)\n");
	if (nt->fdr_downgraded) {
		fputs("note: ", out);
		report_fdr_note(out, nt);
		fputc('\n', out);
	}
	for (size_t i = 0; i < t->nrows; i++) {
		if (!report_fdr_row_due(&t->rows[i]))
			continue;
		fputs("note: ", out);
		report_fdr_row_note(out, &t->rows[i]);
		fputc('\n', out);
	}
	if (nt->outliers_a || nt->outliers_b)
		fprintf(out, "note: outliers in the headline (modified z-score > 3.5, kept): %zu in %s, %zu in %s\n",
			nt->outliers_a, label_a, nt->outliers_b, label_b);
	if (nt->drift_p_a < 0.05)
		fprintf(out, "note: %s drifts with run order (Mann-Kendall p = %.3f): the machine changed during the runs\n",
			label_a, nt->drift_p_a);
	if (nt->drift_p_b < 0.05)
		fprintf(out, "note: %s drifts with run order (Mann-Kendall p = %.3f): the machine changed during the runs\n",
			label_b, nt->drift_p_b);
	if (nt->disturbed_a || nt->disturbed_b) {
		fprintf(out, "note: left out as disturbed by foreign CPU load: %zu in %s, %zu in %s",
			nt->disturbed_a, label_a, nt->disturbed_b, label_b);
		report_disturbed_parts(out, nt);
		fputs(" (--keep-disturbed pools them)\n", out);
	}
	if (nt->all_disturbed_a || nt->all_disturbed_b)
		fprintf(out, "note: compared although flagged disturbed by foreign CPU load, as every sample of the side was (left out, none would remain): %zu in %s, %zu in %s; what disturbed them is in their figures\n",
			nt->all_disturbed_a, label_a, nt->all_disturbed_b, label_b);
	if (nt->not_steady_a || nt->not_steady_b)
		fprintf(out, "note: samples whose rate trended or moved to another level within the window (not steady): %zu in %s, %zu in %s\n",
			nt->not_steady_a, label_a, nt->not_steady_b, label_b);
	if (nt->host_trend_a || nt->host_trend_b)
		fprintf(out, "note: of those, the host's CPU speed (speed probe) trended the same way within the window: %zu in %s, %zu in %s\n",
			nt->host_trend_a, label_a, nt->host_trend_b, label_b);
	if (nt->mixed_a || nt->mixed_b)
		fprintf(out, "note: samples whose 100 ms rate left a level and came back within the window (window.mixed; levels up to %.0f%% of the mean apart): %zu in %s, %zu in %s: each mean depends on the time spent at each level\n",
			fmax(nt->mixed_gap_a, nt->mixed_gap_b), nt->mixed_a, label_a,
			nt->mixed_b, label_b);
	if (nt->speed_changed) {
		fprintf(out, "note: the CPU speed probe (host.speed) moved %+.1f%% [%+.1f%%, %+.1f%%] from %s to %s (p = %.4f): ",
			nt->speed_shift_pct, nt->speed_lo_pct, nt->speed_hi_pct,
			label_a, label_b, nt->speed_p);
		report_speed_why(out, nt);
		fputc('\n', out);
	}
	for (size_t i = 0; i < nt->nredef; i++) {
		fputs("note: measured by netregress builds that define a metric differently: ", out);
		report_redef_text(out, nt, i, label_a, label_b, put_plain);
		fputc('\n', out);
	}
	if (nt->cc_differ)
		fprintf(out, "note: the tcp senders ran another congestion control, as their sockets reported it (env tcp.cc): %s in %s, %s in %s; every figure of a tcp test moves with it, and the configuration key does not show a changed default (cc=default)\n",
			nt->cc_a, label_a, nt->cc_b, label_b);
	if (nt->xcpu_moved_a || nt->xcpu_moved_b)
		fprintf(out, "note: samples in which the host moved the test's CPUs within the window (window.xcpu_moved: the round trip of a cache line between them changed level): %zu in %s, %zu in %s\n",
			nt->xcpu_moved_a, label_a, nt->xcpu_moved_b, label_b);
	if (nt->xcpu_changed)
		fprintf(out, "note: the test's CPUs sat %s in %s: the round trip of a cache line between them (host.xcpu_ns) went from %.0f ns in %s to %.0f ns, %+.1f%% [%+.1f%%, %+.1f%%] (p = %.4f): the host placed the vCPUs differently, and loopback traffic slows with that distance, so part of a change may be the host's\n",
			nt->xcpu_shift_pct > 0 ? "farther apart" : "closer together", label_b,
			nt->xcpu_a_ns, label_a, nt->xcpu_b_ns, nt->xcpu_shift_pct,
			nt->xcpu_lo_pct, nt->xcpu_hi_pct, nt->xcpu_p);
	if (nt->xcpu_mix) {
		fputs("note: ", out);
		report_mix_text(out, &nt->mix, label_a, label_b, put_plain);
		fputc('\n', out);
	}
	if (nt->adj_applied) {
		fputs("note: ", out);
		report_adj_note(out, nt);
		fputc('\n', out);
	}
	if (nt->pairs) {
		fputs("note: ", out);
		report_paired_note(out, nt);
		fputc('\n', out);
	}
	if (nt->env_diff_a[0])
		fprintf(out, "note: samples of %s ran in different environments: %s\n",
			label_a, nt->env_diff_a);
	if (nt->env_diff_b[0])
		fprintf(out, "note: samples of %s ran in different environments: %s\n",
			label_b, nt->env_diff_b);
	fputc('\n', out);
}

/* A label's columns in the series table: median, ±%sd and n, then for a
 * label against the baseline the change of the mean and the verdict. */
enum { SER_MEDIAN, SER_SD, SER_N, SER_CHANGE, SER_VERDICT, SER_NF };

struct series_cell {
	char f[SER_NF][48];
};

static void series_fill(struct series_cell *c, const struct stats_row *r, bool baseline)
{
	num(c->f[SER_MEDIAN], sizeof(c->f[0]), baseline ? r->c.median_a : r->c.median_b);
	sdp(c->f[SER_SD], sizeof(c->f[0]), baseline ? r->c.sd_pct_a : r->c.sd_pct_b);
	snprintf(c->f[SER_N], sizeof(c->f[0]), "%zu", baseline ? r->c.na : r->c.nb);
	if (baseline)
		return;
	pct(c->f[SER_CHANGE], sizeof(c->f[0]), r->c.change_mean_pct);
	snprintf(c->f[SER_VERDICT], sizeof(c->f[0]), "%s", stats_verdict_name(r->c.verdict));
}

/* A row of the series table: the configuration and the headline's name,
 * then a label's columns each (the first row: the header). */
struct series_row {
	char config[sizeof(((struct stats_table *)0)->config_key)];
	char metric[sizeof(((struct stats_row *)0)->metric)];
	struct series_cell *cell;
};

int report_series_table(FILE *out, const struct stats_table *const *t, size_t nconf,
			const char *const *labels, size_t nlabels, const char *common)
{
	const size_t nb = nlabels - 1;
	struct series_row *row = calloc(nconf + 1, sizeof(*row));
	struct series_cell *cells = calloc((nconf + 1) * nlabels, sizeof(*cells));
	int (*w)[SER_NF] = calloc(nlabels, sizeof(*w));
	int wconf = 0, wmetric = 0;
	size_t rows = 1;

	if (!row || !cells || !w) {
		free(row);
		free(cells);
		free(w);
		return -ENOMEM;
	}
	snprintf(row[0].config, sizeof(row[0].config), "config");
	snprintf(row[0].metric, sizeof(row[0].metric), "headline");
	row[0].cell = cells;
	for (size_t l = 0; l < nlabels; l++) {
		struct series_cell *c = &cells[l];
		size_t k = strlen(labels[l]);

		/* at most 38 bytes of the label, not cutting a UTF-8 character */
		if (k > 38)
			for (k = 38; k && ((unsigned char)labels[l][k] & 0xc0) == 0x80; k--)
				;
		snprintf(c->f[SER_MEDIAN], sizeof(c->f[0]), "%.*s median", (int)k, labels[l]);
		snprintf(c->f[SER_SD], sizeof(c->f[0]), "±%%sd");
		snprintf(c->f[SER_N], sizeof(c->f[0]), "n");
		if (l) {
			snprintf(c->f[SER_CHANGE], sizeof(c->f[0]), "%%change");
			snprintf(c->f[SER_VERDICT], sizeof(c->f[0]), "verdict");
		}
	}
	for (size_t i = 0; i < nconf; i++) {
		const struct stats_table *first = NULL;
		const struct stats_row *r;
		struct series_row *sr = &row[rows];

		for (size_t l = 0; l < nb && !first; l++)
			first = t[i * nb + l];
		if (!first || !(r = stats_table_headline(first)))
			continue;
		sr->cell = cells + rows * nlabels;
		if (common && *common)
			job_key_without(first->config_key, common, sr->config, sizeof(sr->config));
		else
			snprintf(sr->config, sizeof(sr->config), "%s", first->config_key);
		snprintf(sr->metric, sizeof(sr->metric), "%s", r->metric);
		series_fill(&sr->cell[0], r, true);
		for (size_t l = 0; l < nb; l++) {
			const struct stats_table *tl = t[i * nb + l];
			const struct stats_row *rl = tl ? stats_table_headline(tl) : NULL;

			if (rl)
				series_fill(&sr->cell[l + 1], rl, false);
			else
				snprintf(sr->cell[l + 1].f[SER_MEDIAN], sizeof(sr->cell[0].f[0]), "-");
		}
		rows++;
	}
	for (size_t i = 0; i < rows; i++) {
		wconf = cols(row[i].config) > wconf ? cols(row[i].config) : wconf;
		wmetric = cols(row[i].metric) > wmetric ? cols(row[i].metric) : wmetric;
		for (size_t l = 0; l < nlabels; l++)
			for (int f = 0; f < SER_NF; f++)
				if (cols(row[i].cell[l].f[f]) > w[l][f])
					w[l][f] = cols(row[i].cell[l].f[f]);
	}
	fprintf(out, "headlines, each label against %s (the change of the mean, the verdict of its table above):\n",
		labels[0]);
	/* one configuration: its key above, no column for it */
	if (rows == 2)
		fprintf(out, "config: %s\n", row[1].config);
	for (size_t i = 0; i < rows; i++) {
		if (rows > 2) {
			cell(out, row[i].config, wconf, true);
			fputs("  ", out);
		}
		cell(out, row[i].metric, wmetric, true);
		for (size_t l = 0; l < nlabels; l++) {
			const struct series_cell *c = &row[i].cell[l];

			fputs(l ? " | " : "  ", out);
			cell(out, c->f[SER_MEDIAN], w[l][SER_MEDIAN], false);
			/* a label without this configuration: "-", nothing after */
			if (!c->f[SER_N][0] && l + 1 == nlabels)
				break;
			fputc(' ', out);
			cell(out, c->f[SER_SD], w[l][SER_SD], false);
			fputc(' ', out);
			cell(out, c->f[SER_N], w[l][SER_N], false);
			if (!l)
				continue;
			fputc(' ', out);
			cell(out, c->f[SER_CHANGE], w[l][SER_CHANGE], false);
			fputc(' ', out);
			cell(out, c->f[SER_VERDICT], l + 1 < nlabels ? w[l][SER_VERDICT] : 0, true);
		}
		fputc('\n', out);
	}
	fputc('\n', out);
	free(row);
	free(cells);
	free(w);
	return 0;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A figure of a note that holds (on), null when there is no such note. */
static json_t *note_num(bool on, double v)
{
	return on ? jnum(v) : json_null();
}

/* nt->xcpu_mix: each distance's range, samples and the labels' medians. */
static json_t *mix_json(const struct stats_xcpu_mix *m)
{
	json_t *d[2];

	for (size_t k = 0; k < 2; k++)
		d[k] = json_pack("{s:o, s:o, s:I, s:I, s:o, s:o}", "lo_ns", jnum(m->lo_ns[k]),
				 "hi_ns", jnum(m->hi_ns[k]),
				 "a_samples", (json_int_t)stats_xcpu_mix_count(m, k, 0),
				 "b_samples", (json_int_t)stats_xcpu_mix_count(m, k, 1),
				 "a_median", jnum(m->median[k][0]), "b_median", jnum(m->median[k][1]));
	return json_pack("{s:o, s:o}", "near", d[0], "far", d[1]);
}

json_t *report_compare_json(const struct stats_table *t)
{
	json_t *rows = json_array(), *j;

	for (size_t i = 0; rows && i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];
		char v[64];
		json_t *row;

		if (!r->shown)
			continue;
		report_verdict_text(r, v, sizeof(v));
		row = json_pack("{s:s, s:s, s:s, s:b, s:{s:o, s:o, s:o, s:I}, s:{s:o, s:o, s:o, s:I}, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:b, s:s, s:s, s:I}",
				"metric", r->metric, "unit", r->unit,
				"better", dir_word(r->dir), "headline", r->headline,
				"a", "median", jnum(r->c.median_a), "mean", jnum(r->c.mean_a),
				"stddev_pct", jnum(r->c.sd_pct_a), "n", (json_int_t)r->c.na,
				"b", "median", jnum(r->c.median_b), "mean", jnum(r->c.mean_b),
				"stddev_pct", jnum(r->c.sd_pct_b), "n", (json_int_t)r->c.nb,
				"change_mean_pct", jnum(r->c.change_mean_pct),
				"shift_pct", jnum(r->c.shift_pct),
				"shift_lo_pct", jnum(r->c.shift_lo_pct),
				"shift_hi_pct", jnum(r->c.shift_hi_pct),
				"shift_absolute", r->c.shift_abs,
				"p", jnum(r->c.p), "q", jnum(r->q), "exact", r->c.exact,
				"verdict", stats_verdict_name(r->c.verdict),
				"verdict_text", v, "runs_needed", (json_int_t)r->c.runs_needed);
		if (row && r->fdr_n)
			json_object_set_new(row, "fdr_downgraded", json_boolean(r->fdr_downgraded));
		if (row && r->per_s_tested)
			json_object_set_new(row, "per_second",
					    json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
						      "a_median", jnum(r->per_s.median_a),
						      "b_median", jnum(r->per_s.median_b),
						      "shift_pct", jnum(r->per_s.shift_pct),
						      "shift_lo_pct", jnum(r->per_s.shift_lo_pct),
						      "shift_hi_pct", jnum(r->per_s.shift_hi_pct),
						      "p", jnum(r->per_s.p)));
		json_array_append_new(rows, row);
	}
	j = json_pack("{s:s, s:s, s:s, s:o, s:b, s:{s:b, s:I, s:I, s:o, s:o, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:I, s:b, s:b}}",
		      "config_key", t->config_key, "test", t->test,
		      "headline", t->headline, "rows", rows, "regressed", t->regressed,
		      "notes", "too_few", t->notes.too_few,
		      "outliers_a", (json_int_t)t->notes.outliers_a,
		      "outliers_b", (json_int_t)t->notes.outliers_b,
		      "drift_p_a", jnum(t->notes.drift_p_a),
		      "drift_p_b", jnum(t->notes.drift_p_b),
		      "env_diff_a", t->notes.env_diff_a,
		      "env_diff_b", t->notes.env_diff_b,
		      "disturbed_a", (json_int_t)t->notes.disturbed_a,
		      "disturbed_b", (json_int_t)t->notes.disturbed_b,
		      "not_steady_a", (json_int_t)t->notes.not_steady_a,
		      "not_steady_b", (json_int_t)t->notes.not_steady_b,
		      "host_trend_a", (json_int_t)t->notes.host_trend_a,
		      "host_trend_b", (json_int_t)t->notes.host_trend_b,
		      "mixed_a", (json_int_t)t->notes.mixed_a,
		      "mixed_b", (json_int_t)t->notes.mixed_b,
		      "mixed_gap_pct_a", t->notes.mixed_gap_a,
		      "mixed_gap_pct_b", t->notes.mixed_gap_b,
		      "speed_shift_pct", note_num(t->notes.speed_changed, t->notes.speed_shift_pct),
		      "speed_lo_pct", note_num(t->notes.speed_changed, t->notes.speed_lo_pct),
		      "speed_hi_pct", note_num(t->notes.speed_changed, t->notes.speed_hi_pct),
		      "speed_p", note_num(t->notes.speed_changed, t->notes.speed_p),
		      "speed_core_shift_pct", note_num(t->notes.speed_core_known, t->notes.speed_core_shift_pct),
		      "speed_core_lo_pct", note_num(t->notes.speed_core_known, t->notes.speed_core_lo_pct),
		      "speed_core_hi_pct", note_num(t->notes.speed_core_known, t->notes.speed_core_hi_pct),
		      "speed_core_p", note_num(t->notes.speed_core_known, t->notes.speed_core_p),
		      "xcpu_moved_a", (json_int_t)t->notes.xcpu_moved_a,
		      "xcpu_moved_b", (json_int_t)t->notes.xcpu_moved_b,
		      "xcpu_a_ns", note_num(t->notes.xcpu_changed, t->notes.xcpu_a_ns),
		      "xcpu_b_ns", note_num(t->notes.xcpu_changed, t->notes.xcpu_b_ns),
		      "xcpu_shift_pct", note_num(t->notes.xcpu_changed, t->notes.xcpu_shift_pct),
		      "xcpu_lo_pct", note_num(t->notes.xcpu_changed, t->notes.xcpu_lo_pct),
		      "xcpu_hi_pct", note_num(t->notes.xcpu_changed, t->notes.xcpu_hi_pct),
		      "xcpu_p", note_num(t->notes.xcpu_changed, t->notes.xcpu_p),
		      "adj_tested", t->notes.adj_tested,
		      "adj_applied", t->notes.adj_applied,
		      "adj_slope", note_num(t->notes.adj_tested, t->notes.adj_slope),
		      "adj_slope_lo", note_num(t->notes.adj_tested, t->notes.adj_slope_lo),
		      "adj_slope_hi", note_num(t->notes.adj_tested, t->notes.adj_slope_hi),
		      "adj_p", note_num(t->notes.adj_tested, t->notes.adj_p),
		      "adj_r2", note_num(t->notes.adj_tested, t->notes.adj_r2),
		      "adj_x_ref_ns", note_num(t->notes.adj_tested, t->notes.adj_x_ref_ns),
		      "adj_from", !t->notes.adj_tested ? "" : t->notes.adj_windows ? "windows" : "samples",
		      "adj_intervals", (json_int_t)t->notes.adj_ticks,
		      "adj_windows", (json_int_t)t->notes.adj_windows,
		      "adj_moved_windows", (json_int_t)t->notes.adj_moved_windows,
		      "pairs", (json_int_t)t->notes.pairs,
		      "unpaired", (json_int_t)t->notes.unpaired,
		      "pairs_a_first", (json_int_t)t->notes.pairs_a_first,
		      "period_pct", note_num(t->notes.period_tested, t->notes.period_pct),
		      "period_p", note_num(t->notes.period_tested, t->notes.period_p),
		      "fdr_configs", (json_int_t)t->notes.fdr_n,
		      "fdr_downgraded", t->notes.fdr_downgraded,
		      "builds_differ", t->notes.builds_differ);
	if (j) {
		json_t *nt = json_object_get(j, "notes");

		json_object_set_new(j, "family", json_integer((json_int_t)t->family));
		json_object_set_new(j, "explained_by", report_why_json(t));
		if (t->why_basis.metric[0])
			json_object_set_new(j, "cost_basis",
					    json_pack("{s:s, s:o, s:o, s:b}", "metric",
						      t->why_basis.metric, "a", jnum(t->why_basis.a),
						      "b", jnum(t->why_basis.b), "changed",
						      t->why_basis.changed));
		if (t->notes.cc_differ) {
			json_object_set_new(nt, "cc_a", json_string(t->notes.cc_a));
			json_object_set_new(nt, "cc_b", json_string(t->notes.cc_b));
		}
		json_object_set_new(nt, "disturbed_steal_a", json_integer((json_int_t)t->notes.disturbed_steal_a));
		json_object_set_new(nt, "disturbed_steal_b", json_integer((json_int_t)t->notes.disturbed_steal_b));
		json_object_set_new(nt, "disturbed_procs_a", json_integer((json_int_t)t->notes.disturbed_procs_a));
		json_object_set_new(nt, "disturbed_procs_b", json_integer((json_int_t)t->notes.disturbed_procs_b));
		json_object_set_new(nt, "disturbed_starved_a", json_integer((json_int_t)t->notes.disturbed_starved_a));
		json_object_set_new(nt, "disturbed_starved_b", json_integer((json_int_t)t->notes.disturbed_starved_b));
		json_object_set_new(nt, "all_disturbed_a", json_integer((json_int_t)t->notes.all_disturbed_a));
		json_object_set_new(nt, "all_disturbed_b", json_integer((json_int_t)t->notes.all_disturbed_b));
		if (t->notes.disturbed_busiest[0])
			json_object_set_new(nt, "disturbed_busiest", json_string(t->notes.disturbed_busiest));
		if (t->notes.xcpu_mix)
			json_object_set_new(nt, "xcpu_mix", mix_json(&t->notes.mix));
		for (size_t i = 0; i < t->notes.nredef; i++) {
			json_t *rd = json_object_get(nt, "redefined");

			if (!rd) {
				rd = json_array();
				json_object_set_new(nt, "redefined", rd);
			}
			json_array_append_new(rd, json_pack("{s:s, s:I, s:I, s:I, s:I}",
							    "marker", t->notes.redef[i].marker,
							    "a", (json_int_t)t->notes.redef[i].a,
							    "a_samples", (json_int_t)t->notes.redef[i].na,
							    "b", (json_int_t)t->notes.redef[i].b,
							    "b_samples", (json_int_t)t->notes.redef[i].nb));
		}
	}
	return j;
}

void report_compare_csv_header(FILE *out)
{
	fprintf(out, "label_a,label_b,config,metric,unit,better,headline,a_median,a_stddev_pct,a_n,"
		     "change_mean_pct,shift_pct,shift_lo_pct,shift_hi_pct,b_median,b_stddev_pct,b_n,p,q,verdict,"
		     "explains\n");
}

/* CSV fields: quote when they hold a comma or a quote. */
static void csv_str(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_num(FILE *out, double v)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
}

void report_compare_csv(FILE *out, const struct stats_table *t,
			const char *label_a, const char *label_b)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];
		char v[64];

		if (!r->shown)
			continue;
		report_verdict_text(r, v, sizeof(v));
		csv_str(out, label_a);
		fputc(',', out);
		csv_str(out, label_b);
		fputc(',', out);
		csv_str(out, t->config_key);
		fprintf(out, ",%s,", r->metric);
		csv_str(out, r->unit);
		fprintf(out, ",%s,%d,", dir_word(r->dir), r->headline);
		csv_num(out, r->c.median_a);
		fputc(',', out);
		csv_num(out, r->c.sd_pct_a);
		fprintf(out, ",%zu,", r->c.na);
		csv_num(out, r->c.change_mean_pct);
		fputc(',', out);
		csv_num(out, r->c.shift_pct);
		fputc(',', out);
		csv_num(out, r->c.shift_lo_pct);
		fputc(',', out);
		csv_num(out, r->c.shift_hi_pct);
		fputc(',', out);
		csv_num(out, r->c.median_b);
		fputc(',', out);
		csv_num(out, r->c.sd_pct_b);
		fprintf(out, ",%zu,", r->c.nb);
		csv_num(out, r->c.p);
		fputc(',', out);
		csv_num(out, r->q);
		fputc(',', out);
		csv_str(out, v);
		fputc(',', out);
		for (size_t k = 0; k < t->nwhy; k++)
			if (!strcmp(t->why[k].metric, r->metric))
				fprintf(out, "%zu", k + 1);
		fputc('\n', out);
	}
}
