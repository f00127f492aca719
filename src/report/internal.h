/* SPDX-License-Identifier: GPL-2.0-only */
/* Private to report/: number formats, chart scales, the matrix axes and escaping shared by the HTML, SVG and Markdown writers. */
#ifndef NR_REPORT_INTERNAL_H
#define NR_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report/page.h"

/* Numbers as the compare table prints them: "12.35", "1.235e+07", "-" for NaN. */
void report_fmt_num(char *buf, size_t len, double v);
/* "+1.2%", "-" for NaN. */
void report_fmt_pct(char *buf, size_t len, double v);
/* "±1.2%", "-" for NaN. */
void report_fmt_sd(char *buf, size_t len, double v);
/* A tick label: 0.5, 20, 1.5k, 12k, 2M, 1G. */
void report_fmt_si(char *buf, size_t len, double v);
/* A parameter's value for people: sizes in bytes as base_format_size()
 * writes them (65536 -> 64K) for the size parameters, others as they are. */
void report_fmt_param(char *buf, size_t len, const char *key, const char *val);

/* Median of the finite values among v[0..n); NaN when there are none. */
double report_median(const double *v, size_t n);
/* Their %stddev (100 sd / |mean|); NaN for fewer than 2 or a mean of 0. */
double report_cv_pct(const double *v, size_t n);

/* Colour of series i: a fixed colour-blind-safe palette (Okabe and Ito),
 * cycling after REPORT_NCOLORS. */
#define REPORT_NCOLORS 8
const char *report_color(size_t i);

#define REPORT_MAX_TICKS 32

/* An axis range and its ticks, linear or log10. */
struct report_ticks {
	double lo, hi;   /* the drawn range (log: the values, not their logs) */
	double v[REPORT_MAX_TICKS];
	size_t n;
	bool log;
};

/*
 * Nice linear ticks covering [lo, hi]: a step of 1, 2 or 5 times a power
 * of ten giving about `target` intervals (2..20), the range widened to
 * whole steps. lo == hi is widened around the value (to [0, 1] for 0).
 * Returns 0, or -EINVAL for non-finite bounds, lo > hi or a bad target.
 */
int report_ticks_linear(double lo, double hi, size_t target,
			struct report_ticks *t);
/*
 * Log ticks covering [lo, hi] (both > 0): the range widened to powers of
 * ten, a tick at each power; 2 and 5 times each power as well when the
 * range spans at most two decades. Returns 0 or -EINVAL.
 */
int report_ticks_log(double lo, double hi, struct report_ticks *t);
/* Position of v on [px_lo, px_hi] (px_lo maps t->lo); log scales clamp
 * v <= 0 to the bottom. */
double report_ticks_map(const struct report_ticks *t, double v, double px_lo,
			double px_hi);

/* A parameter's value in configuration c, or "" when it has none. */
const char *report_param(const struct report_doc *d, size_t c,
			 const char *key);

/* Parameters that differ among the configurations of test (NULL: of
 * every test), "test" excepted, and those they all have with one value;
 * key order, NULL-terminated arrays of borrowed names: free() the arrays.
 * Returns 0 or -ENOMEM. */
int report_params_split(const struct report_doc *d, const char *test,
			const char ***varying, const char ***common);
/* For each configuration, "test=tcp_stream msg=64K rcvbuf=auto": the test,
 * then the values of the parameters that vary among that test's
 * configurations. An array of d->nconfigs strings, or NULL when out of
 * memory; free with report_config_descs_free(). */
char **report_config_descs(const struct report_doc *d);
void report_config_descs_free(char **desc, size_t n);
/* The distinct tests of the configurations, in key order of their first
 * configuration; NULL-terminated, borrowed: free() the array. */
const char **report_tests(const struct report_doc *d);
/* "cc=default cpus=none ...": the parameters every configuration of test
 * has with one value; for a test, without those every configuration of
 * any test shares. Returns 0 or -ENOMEM. */
int report_params_text(const struct report_doc *d, const char *test,
		       char *buf, size_t len);

/* One chart of the headline metric against one axis of the matrix. */
struct report_chart {
	const char *test;     /* borrowed from the configurations */
	const char *axis;     /* the parameter on x */
	char with[256];       /* parameters that change with it, "" */
	char fixed[512];      /* the other varying parameters, "rcvbuf=auto" */
	size_t nx;
	const char **xval;    /* x categories in drawing order (borrowed) */
	size_t *config;       /* the configuration of each category */
};

/*
 * For each test, each parameter p that varies among its configurations,
 * and each combination of the other varying parameters (those that are a
 * function of p excepted: they change with it), a chart when p takes at
 * least two values there. A parameter in one-to-one correspondence with an
 * earlier one is drawn once, with it. Categories: numeric values ascending
 * then auto/none/default when every value is one or the other, otherwise
 * the order of the configurations. Returns 0 or -ENOMEM; free with
 * report_charts_free().
 */
int report_charts_find(const struct report_doc *d, struct report_chart **out,
		       size_t *n);
void report_charts_free(struct report_chart *c, size_t n);

/* The SVG of one chart: <svg class="chart" data-series data-points ...>. */
void report_svg_axis(FILE *out, const struct report_doc *d,
		     const struct report_chart *c, size_t id);
/* The latency percentiles of configuration c (described as desc), one
 * series per label, log y. */
void report_svg_latency(FILE *out, const struct report_doc *d, size_t c,
			const char *desc, size_t id);
/* The interval rates within the window of every sample of configuration c
 * (described as desc) that kept them: one line per sample, coloured by its
 * label, against seconds into the window. With probe >= 0 (an enum
 * base_tick_probe), that probe's figures in the same intervals instead,
 * the line broken where an interval has none. */
void report_svg_window(FILE *out, const struct report_doc *d, size_t c,
		       const char *desc, size_t id, int probe);
/* The line value of a latency percentile of a cell: from the merged
 * histogram when there is one, else the median of the samples. */
double report_lat_line(const struct report_cell *cell, size_t k);

/* Text for HTML and SVG, in an element or a quoted attribute: & < > " '
 * escaped, control characters replaced by U+FFFD. */
void report_html_escape(FILE *out, const char *s);

struct stats_notes;
/* The sentence of an applied .xcpu_adj row's note (its slope, from the
 * windows or from the samples), without a full stop: every format's. */
void report_adj_note(FILE *out, const struct stats_notes *nt);
/* The labels' mix of two distances of the test's CPUs (a note's
 * xcpu_mix), the labels a and b written by put (escaped as the format
 * needs). */
void report_mix_text(FILE *out, const struct stats_xcpu_mix *m, const char *a, const char *b,
		     void (*put)(FILE *, const char *));
/* What a change of the CPU speed probe (nt->speed_changed) may mean, the
 * words after its figures, without a full stop: every format's. */
void report_speed_why(FILE *out, const struct stats_notes *nt);
/* What the .paired row paired (nt->pairs > 0), no "note: " and no end. */
void report_paired_note(FILE *out, const struct stats_notes *nt);
/* Why the headline's verdict is not its p's (nt->fdr_downgraded), no
 * "note: " and no end; nothing to escape in any format. */
void report_fdr_note(FILE *out, const struct stats_notes *nt);
/* Whether a row other than the headline lost its call to the family's q
 * (a .paired or .xcpu_adj row over several configurations); and that, in
 * one sentence without its end. */
/* After the count of samples left out as disturbed: how many of them the
 * host's steal disturbed most, and how many other processes did (with the
 * busiest), each started by "; " (nothing for none), no end; nothing to
 * escape in any format (stats keeps the process name to safe bytes). */
void report_disturbed_parts(FILE *out, const struct stats_notes *nt);
/* Definition change i of nt (stats_notes.redef): what changed and how many
 * samples of each label were measured the new way, "... (the new way: 3 of
 * 8 samples of A, 8 of 8 of B)", the labels a and b written by put (which
 * escapes them for the format); no end; nothing else to escape. */
void report_redef_text(FILE *out, const struct stats_notes *nt, size_t i,
		       const char *a, const char *b, void (*put)(FILE *, const char *));
bool report_fdr_row_due(const struct stats_row *r);
void report_fdr_row_note(FILE *out, const struct stats_row *r);
/* The same as a string for a format to escape (free() it; NULL: out of
 * memory). */
char *report_fdr_row_text(const struct stats_row *r);
/* Markdown table cell text: | \ ` * _ [ ] < > # escaped with a backslash,
 * newlines as spaces. */
void report_md_escape(FILE *out, const char *s);

/* How one format writes what moved with a headline: its heading for a
 * configuration (desc), the k-th line (from 0) and the end. */
struct report_why_fmt {
	void (*head)(FILE *out, const char *desc);
	void (*item)(FILE *out, size_t k, const char *line);
	void (*tail)(FILE *out);
};
/* For each label against the baseline and each configuration whose
 * headline called a REGRESSION or an IMPROVEMENT, fn with the label's
 * index and one line: the call, its shift and p, the configuration
 * (descs[config]) and the first of what moved with it. Returns how many. */
size_t report_answers(const struct report_doc *d, const char *const *descs,
		      void (*fn)(void *ctx, size_t b, const char *line), void *ctx);
/* For each configuration of label b against the baseline that has some,
 * what moved with its headline (REPORT_WHY_TOP at most), through fmt. */
void report_why_doc(FILE *out, const struct report_doc *d, const char *const *descs, size_t b,
		    const struct report_why_fmt *fmt);

/* A snapshot entry that may tell two environments apart: one the
 * fingerprint covers (a sysctl, the command line, CPU, interfaces), not one
 * that changes by itself (sysctl.net.core.netdev_rss_key, at every boot). */
bool report_env_comparable(const char *name);

#endif
