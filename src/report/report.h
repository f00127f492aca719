/* SPDX-License-Identifier: GPL-2.0-only */
/* Results for people and programs: the terminal table and the JSON document. */
#ifndef NR_REPORT_REPORT_H
#define NR_REPORT_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "base/sample.h"

/* Print the readable table of one sample. */
void report_sample_table(FILE *out, const struct base_sample *s);

#endif
