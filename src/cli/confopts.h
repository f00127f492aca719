/* SPDX-License-Identifier: GPL-2.0-only */
/* The workload flags every measuring command shares (run, bisect), from the parameter table. */
#ifndef NR_CLI_CONFOPTS_H
#define NR_CLI_CONFOPTS_H

#include <getopt.h>
#include <stdio.h>

#include "job/config.h"

/* getopt_long's value of the table's row i with a long option and no
 * short letter (a row with a letter returns the letter); above any
 * command's own values. */
#define CLI_OPT_PARAM 512

/* Room for a command's options and the table's. */
#define CLI_MAX_OPTIONS 128

/*
 * Build a getopt_long table into out (CLI_MAX_OPTIONS entries): the
 * command's own options `own` (terminated by a NULL name) followed by the
 * table's, then the terminator; and into shortopts (len bytes) the
 * command's own short letters `own_short` followed by the table's.
 * Returns 0, or -ENOSPC (a BUG: raise CLI_MAX_OPTIONS).
 */
int cli_config_getopt(const struct option *own, const char *own_short,
		      struct option *out, char *shortopts, size_t len);

/*
 * Apply one workload flag to c: 1 when opt was one of them, 0 when not,
 * -1 on a bad value (the error is printed, naming the value).
 */
int cli_config_opt(int opt, const char *arg, struct job_config *c);

/* Whether the short letter is a workload flag that takes a value. */
bool cli_config_needs_value(int letter);

/* The workload options for --help: "  -m, --msg SIZE   text", the text
 * from column 26 as run --help has always laid it out. */
void cli_config_help(FILE *f);
/* The same as a man page's tagged paragraphs (groff man). */
void cli_config_man(FILE *f);

#endif
