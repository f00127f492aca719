/* SPDX-License-Identifier: GPL-2.0-only */
/* Results for people and programs: the terminal table and the JSON document. */
#ifndef NR_REPORT_REPORT_H
#define NR_REPORT_REPORT_H

#include <jansson.h>
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
/* "inconclusive (about 12 runs needed)", "REGRESSION", ... */
void report_verdict_text(const struct stats_row *r, char *buf, size_t len);

#endif
