/* SPDX-License-Identifier: GPL-2.0-only */
/* The workload flags every measuring command shares (run, bisect). */
#ifndef NR_CLI_CONFOPTS_H
#define NR_CLI_CONFOPTS_H

#include <getopt.h>

#include "job/config.h"

/* Long-only options of the workload; above any command's own values. */
enum {
	CLI_OPT_THREADS = 512, CLI_OPT_RMSG, CLI_OPT_DIR, CLI_OPT_SNDBUF,
	CLI_OPT_RCVBUF, CLI_OPT_RSNDBUF, CLI_OPT_RRCVBUF, CLI_OPT_CC,
	CLI_OPT_BATCH, CLI_OPT_CPUS, CLI_OPT_RCPUS, CLI_OPT_BURST,
	CLI_OPT_RATE, CLI_OPT_RR_TIMEOUT, CLI_OPT_PLACEMENT, CLI_OPT_UDP_GSO,
	CLI_OPT_UDP_GRO, CLI_OPT_SENDFILE_FROM, CLI_OPT_BUF_OFFSET,
	CLI_OPT_CPU_LATENCY, CLI_OPT_SPIN, CLI_OPT_TRANSFER,
};

/* Their short letters, for getopt_long's optstring. */
#define CLI_CONFIG_SHORTOPTS "n:m:s:S:r:D46"

/* Their entries, to put inside a command's struct option table. */
#define CLI_CONFIG_OPTIONS                                                    \
	{ "streams", required_argument, NULL, 'n' },                          \
	{ "threads", required_argument, NULL, CLI_OPT_THREADS },              \
	{ "msg", required_argument, NULL, 'm' },                              \
	{ "rmsg", required_argument, NULL, CLI_OPT_RMSG },                    \
	{ "dir", required_argument, NULL, CLI_OPT_DIR },                      \
	{ "transfer", required_argument, NULL, CLI_OPT_TRANSFER },            \
	{ "sndbuf", required_argument, NULL, CLI_OPT_SNDBUF },                \
	{ "rcvbuf", required_argument, NULL, CLI_OPT_RCVBUF },                \
	{ "remote-sndbuf", required_argument, NULL, CLI_OPT_RSNDBUF },        \
	{ "remote-rcvbuf", required_argument, NULL, CLI_OPT_RRCVBUF },        \
	{ "nodelay", no_argument, NULL, 'D' },                                \
	{ "cc", required_argument, NULL, CLI_OPT_CC },                        \
	{ "batch", required_argument, NULL, CLI_OPT_BATCH },                  \
	{ "udp-gso", required_argument, NULL, CLI_OPT_UDP_GSO },              \
	{ "udp-gro", no_argument, NULL, CLI_OPT_UDP_GRO },                    \
	{ "sendfile-from", required_argument, NULL, CLI_OPT_SENDFILE_FROM },  \
	{ "buf-offset", required_argument, NULL, CLI_OPT_BUF_OFFSET },        \
	{ "cpu-latency", required_argument, NULL, CLI_OPT_CPU_LATENCY },      \
	{ "spin", no_argument, NULL, CLI_OPT_SPIN },                          \
	{ "cpus", required_argument, NULL, CLI_OPT_CPUS },                    \
	{ "remote-cpus", required_argument, NULL, CLI_OPT_RCPUS },            \
	{ "placement", required_argument, NULL, CLI_OPT_PLACEMENT },          \
	{ "rr", required_argument, NULL, 'r' },                               \
	{ "burst", required_argument, NULL, CLI_OPT_BURST },                  \
	{ "rate", required_argument, NULL, CLI_OPT_RATE },                    \
	{ "timeout", required_argument, NULL, CLI_OPT_RR_TIMEOUT }

/* Linux caps a socket buffer request at INT_MAX / 2. */
#define CLI_BUF_MAX (1ULL << 30)

/*
 * Apply one workload flag to c: 1 when opt was one of them, 0 when not,
 * -1 on a bad value (the error is printed, naming the value).
 */
int cli_config_opt(int opt, const char *arg, struct job_config *c);

#endif
