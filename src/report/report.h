/* SPDX-License-Identifier: GPL-2.0-only */
/* Results for people and programs: the terminal table and the JSON document. */
#ifndef NR_REPORT_REPORT_H
#define NR_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/sample.h"
#include "stats/table.h"

/* Print the readable table of one sample. */
void report_sample_table(FILE *out, const struct base_sample *s);

/* The compare table of one configuration: shown rows, then the notes.
 * label_a and label_b head the columns. */
void report_compare_table(FILE *out, const struct stats_table *t,
			  const char *label_a, const char *label_b);
/* The same as JSON (new reference) and as CSV rows (header once). */
json_t *report_compare_json(const struct stats_table *t);
void report_compare_csv_header(FILE *out);
void report_compare_csv(FILE *out, const struct stats_table *t,
			const char *label_a, const char *label_b);
/*
 * What went with the headline metric of test (stats_headline_metric())
 * across n samples of one configuration (s[0]'s metrics are the
 * candidates, those report_explains() admits): up to `top` metrics whose
 * Kendall tau with it has a Benjamini-Hochberg q < alpha, most significant
 * first, or a line naming the closest when none did; then a blank line.
 * Prints nothing for fewer than STATS_COVARY_MIN_N samples or when no
 * metric could be tested. Returns 0 or -ENOMEM.
 */
int report_explain(FILE *out, const struct base_sample *s, size_t n,
		   const char *test, size_t top, double alpha);
/* Whether a metric may explain the headline's spread in a test rather than
 * restate it: shares (_pct), figures per MB, write, read or transaction,
 * host.speed, profile shares, the TCP round trip and window; not the
 * headline's relatives (throughput, transactions, latency, service demand,
 * window.), nor the other protocol's counters (TCP ones in a UDP test:
 * the control connection). */
bool report_explains(const char *name, const char *test);
/* "inconclusive (about 12 runs needed)", "REGRESSION", ... */
void report_verdict_text(const struct stats_row *r, char *buf, size_t len);

#endif
