/* SPDX-License-Identifier: GPL-2.0-only */
/* Subcommands and the helpers they share for flags and messages. */
#ifndef NR_CLI_CLI_H
#define NR_CLI_CLI_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/parse.h"

/* Exit codes (STYLE.md). */
#define EXIT_OK 0
#define EXIT_FOUND 1
#define EXIT_USAGE 2
#define EXIT_RUNTIME 3

extern volatile sig_atomic_t cli_interrupted;

int cmd_run(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_labels(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_matrix(int argc, char **argv);
int cmd_bisect(int argc, char **argv);
int cmd_probe(int argc, char **argv);

struct store;
struct job_config;
struct engine_run;
struct base_sample;
struct base_err;
struct stats_window;
/* A run's sample: engine_run_sample() plus the checks made from its
 * interval rates (window.not_steady and the trend). Returns 0 or -errno. */
/* --warmup auto's test: n successive 100 ms rates show no trend
 * (Mann-Kendall, p >= 0.05). */
bool cli_steady(const double *rates, size_t n);

int cli_sample(const struct job_config *cfg, const struct engine_run *run,
	       const char *label, bool same_host, struct base_sample *s,
	       struct base_err *err);
/* The database: --db, else $NETREGRESS_DB, else ./netregress.db. */
const char *cli_db_path(const char *flag);
/* Open it (write: create and migrate); prints the error; exit code. */
int cli_db_open(const char *path, bool write, struct store **st);

/* Print "netregress: <msg>" to stderr; the caller returns the exit code. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parse a flag's value; on failure print "invalid --flag ..." and return
 * false. */
bool cli_size(const char *flag, const char *arg, uint64_t max, uint64_t *out);
bool cli_duration(const char *flag, const char *arg, int64_t *out);
bool cli_u64(const char *flag, const char *arg, uint64_t min, uint64_t max,
	     uint64_t *out);
bool cli_double(const char *flag, const char *arg, double min, double max, double *out);
bool cli_cpulist(const char *flag, const char *arg, struct base_cpulist *out);

/*
 * Headline values of samples in the order they came and, while every one
 * of them kept it, their windows (rates and cross-CPU round trips, owned):
 * what run --reps and matrix summarize.
 */
struct cli_tally {
	double *v;
	double *x; /* each sample's host.xcpu_ns, NaN without */
	struct stats_window *w;
	bool windows; /* every sample so far kept its window */
	size_t n, cap;
};
/* Add a sample's headline v and a copy of its window; -ENOMEM. */
int cli_tally_add(struct cli_tally *t, const struct base_sample *s, double v);
void cli_tally_release(struct cli_tally *t);
/* Whether a sample was flagged disturbed by foreign CPU load
 * (window.disturbed, engine/result.h). */
bool cli_disturbed(const struct base_sample *s);
/* A label that samples will be stored under (base_label_ok). */
bool cli_label(const char *flag, const char *arg);
/* Handlers for SIGINT/SIGTERM that set cli_interrupted; SIGPIPE ignored. */
void cli_signals(void);
/* getopt_long's message for an unknown flag or missing value already
 * went to stderr; this adds the hint line. */
int cli_usage_hint(const char *cmd);

#endif
