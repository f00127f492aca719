/* SPDX-License-Identifier: GPL-2.0-only */
/* The report of several labels: one self-contained HTML page with SVG charts, or Markdown. */
#ifndef NR_REPORT_PAGE_H
#define NR_REPORT_PAGE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/hist.h"
#include "base/sample.h"
#include "stats/table.h"

/*
 * The CLI queries the store and hands the rows over: the samples of each
 * label and configuration (report_doc_add_samples) and the compare tables
 * it built (report_doc_add_table). The document keeps only what the page
 * draws: the headline value and the latency percentiles of every sample,
 * each configuration's parameters and each label's environment. Nothing
 * here touches the store; nothing prints but report_html() and report_md().
 * One thread at a time per document.
 */

#define REPORT_MAX_LABELS 64
#define REPORT_NLAT 4 /* latency percentiles drawn: p50, p90, p99, p99.9 */

/* "latency.p50_us" ... and their column titles "p50" ... */
extern const char *const report_lat_metric[REPORT_NLAT];
extern const char *const report_lat_name[REPORT_NLAT];

/* One configuration (a distinct config key) of any label. */
struct report_config {
	char key[1024];
	char test[32];
	const char *headline; /* the document's headline, or stats_headline_metric(test) */
	char unit[16];        /* the headline's, from the first sample with it */
	/* the test's rate, stats_headline_metric(test), that the windows
	 * keep over their intervals, and its unit likewise */
	const char *rate;
	char rate_unit[16];
	struct sample_kv *params; /* in key order, from the first sample */
	size_t nparams;
	bool rr; /* a request/response test: latency percentiles drawn */
	bool series; /* some sample kept its interval rates: drawn over time */
	/* some sample kept probe k's figures beside them: drawn under them */
	bool probe[BASE_TICK_PROBES];
};

struct report_label {
	char name[128];
	struct sample_kv *env; /* of the label's first sample: client.*, server.* */
	size_t nenv;
	json_t *sysenv;        /* its full snapshots (a reference), or NULL */
	char fingerprint[256]; /* its client.env_fingerprint, "" when absent */
	bool env_changed;      /* its samples carry more than one fingerprint */
	size_t nsamples, nconfigs;
};

/* The samples of one label in one configuration, reduced to what is drawn. */
struct report_cell {
	size_t label, config;    /* indexes into the document's arrays */
	double *headline;        /* per sample, in run order; NaN when missing */
	size_t n;
	double *lat[REPORT_NLAT]; /* per sample latency percentiles (us), n each; NaN when missing */
	struct base_hist *hist;  /* merged latency histogram, when every sample had one */
	/* per sample, the window's interval rates in the headline's unit
	 * (base_sample.series), series_step_s apart: NULL when no sample
	 * kept them, series[i] NULL for a sample that did not */
	double **series;
	size_t *nseries;
	double series_step_s;
	/* per sample, probe k's figure in each of those intervals
	 * (base_sample.series_probe, NaN: none), nseries[i] of them: NULL
	 * when no sample kept them, probe[k][i] NULL for one that did not */
	double **probe[BASE_TICK_PROBES];
};

/* The compare table of label b against label a in one configuration. */
struct report_cmp {
	size_t a, b, config;
	struct stats_table t;
};

struct report_doc {
	struct report_label *labels;
	size_t nlabels;
	size_t baseline; /* index of the label the others are compared against */
	/* the metric every configuration is summarized and drawn by in place
	 * of its test's headline (report --headline; NULL: each test's); set
	 * before the first samples, it must outlive the document */
	const char *headline;
	struct report_config *configs; /* sorted by key */
	size_t nconfigs;
	struct report_cell *cells;
	size_t ncells;
	struct report_cmp *cmps;
	size_t ncmps;
	size_t cap_cells, cap_cmps;
};

void report_doc_init(struct report_doc *d);
/* Once every configuration's tables are in: the verdicts of each label
 * against the baseline over all its configurations at once
 * (stats_tables_fdr). Returns 0 or -ENOMEM. */
int report_doc_fdr(struct report_doc *d, const struct stats_table_opts *o);

/* Frees what the document owns, tables included. NULL is fine. */
void report_doc_release(struct report_doc *d);

/* Add a label; its index is the order of the calls. Returns 0, -EINVAL (a
 * duplicate, too many, too long) or -ENOMEM. */
int report_doc_add_label(struct report_doc *d, const char *name);
/* Mark the label the others are compared against (default: the first). */
int report_doc_set_baseline(struct report_doc *d, const char *name);

/*
 * Add the n samples (run order) of label `label` in one configuration: all
 * of them share s[0]->config_key, and a (label, configuration) is added at
 * most once. The values are copied; the samples are not kept. Returns 0,
 * -EINVAL (bad index, n 0, a second call for the same pair, mixed keys) or
 * -ENOMEM.
 */
int report_doc_add_samples(struct report_doc *d, size_t label,
			   const struct base_sample *const *s, size_t n);

/* Take t (built from samples of b against a, both added before) into the
 * document: on success *t is emptied and the document releases it. Returns
 * 0, -EINVAL or -ENOMEM (t then stays the caller's). */
int report_doc_add_table(struct report_doc *d, size_t a, size_t b,
			 struct stats_table *t);

/* Index of the configuration with this key, or -1. */
long report_doc_config(const struct report_doc *d, const char *key);
/* The cell of label + configuration, or NULL. */
const struct report_cell *report_doc_cell(const struct report_doc *d,
					  size_t label, size_t config);

/*
 * Write the page: environment side by side, a summary, the headline
 * against each axis of the matrix (one chart per axis and combination of
 * the other parameters), the compare tables (sortable by a small inline
 * script), and the latency percentiles of request/response tests on a log
 * scale. No network, no external script, style or font. Counts of charts
 * go to *ncharts (may be NULL). Returns 0 or -EIO when out failed.
 */
int report_html(FILE *out, const struct report_doc *d, size_t *ncharts);

/* The same tables as Markdown (GitHub flavour), stable for the same input. */
int report_md(FILE *out, const struct report_doc *d);

#endif
