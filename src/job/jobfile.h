/* SPDX-License-Identifier: GPL-2.0-only */
/* Job files: a YAML matrix of test parameters, checked at load and expanded into cells. */
#ifndef NR_JOB_JOBFILE_H
#define NR_JOB_JOBFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "job/config.h"

/*
 * The format is documented in docs/jobs.md. In short: a mapping with the
 * run control (repetitions, duration, warmup, interval, seed, label,
 * collect) and `params`, a mapping of job_config parameters where a list
 * is an axis; the matrix is the cartesian product of the axes, minus the
 * `exclude` rules and, with `no_fragmentation`, minus the UDP cells whose
 * message does not fit the MTU.
 *
 * Nothing here opens a socket, prints or exits. Every function may be
 * called from any thread as long as no two threads share a struct
 * job_file that one of them frees.
 */

/* A job file is read whole; a bigger one is an error, not a truncation. */
#define JOB_FILE_MAX_BYTES (1024 * 1024)
/* The cartesian product of params, before excludes, is at most this. */
#define JOB_MAX_COMBINATIONS 1000000
/* The cells that remain after excludes are at most this (each holds a
 * struct job_config of about 4 KiB). */
#define JOB_MAX_CELLS 100000
/* repetitions: 1 to this */
#define JOB_MAX_REPS 100000

/* Which collectors run with each sample (the `collect` mapping). */
struct job_collect {
	bool counters; /* kernel counters: snmp, netstat, softirqs (default on) */
	bool perf;     /* perf software counters (default on) */
	bool profile;  /* the kernel profiler on the test's CPUs (default off) */
	/* the CPU speed probe on the test's CPUs; when !speed_set, per test
	 * (job_test_speed_default: streams only) */
	bool speed, speed_set;
	/* the cross-CPU probe between the client's and the server's CPUs
	 * (default on) */
	bool xcpu;
	/* `profile_min`: the profile's threshold in percent (0..100), when
	 * profile_min_set; otherwise the command's default */
	double profile_min_pct;
	bool profile_min_set;
};

/* A parsed value (job/params.h). */
struct job_pval;
/* An exclude rule; private to jobfile.c. */
struct job_rule;

/* One key of `params`, in the order of the file. */
struct job_param {
	const char *name;   /* the parameter's name: "msg", "rcvbuf"... */
	bool axis;          /* written as a list: shown in each cell's desc */
	size_t nvalues;     /* >= 1; 1 for a scalar */
	char **text;        /* [nvalues] each value as the file wrote it */
	struct job_pval *value; /* [nvalues] parsed */
	unsigned line, col; /* of the key, 1-based */
};

/* The most labels a job's `labels` may name. */
#define JOB_MAX_LABELS 64

/* One label of `labels`: the sysctls set before each of its runs. */
struct job_label {
	char *name;
	size_t nsysctls;
	char **sysctl_name;  /* [nsysctls] in file order, base_parse_sysctl_name */
	char **sysctl_value; /* [nsysctls] as the file wrote them */
	unsigned line, col;  /* of the label's key, 1-based */
};

/*
 * A loaded job file. Read-only for callers; job_file_free() releases it.
 */
struct job_file {
	char *path;  /* as given to job_file_load(), or the name to _parse() */
	char *name;  /* `name`, or NULL */
	char *label; /* `label`, or NULL: the caller uses the kernel release */
	unsigned reps;  /* `repetitions`: 1 to JOB_MAX_REPS (default 5) */
	int64_t duration_ns, warmup_ns, interval_ns; /* as job_config's */
	bool warmup_auto;
	uint64_t seed;    /* `seed`, or one drawn at load */
	bool seed_chosen; /* the file had no seed: record the one drawn */
	struct job_collect collect;
	bool no_fragmentation;
	struct job_param *params; /* [nparams] in file order */
	size_t nparams;
	struct job_rule *exclude; /* [nexclude] */
	size_t nexclude;
	/* `labels`: the matrix runs every cell under each of them, interleaved,
	 * setting each label's sysctls before its runs. NULL (nlabels 0):
	 * one label, `label` or the kernel release. Never both. */
	struct job_label *labels;
	size_t nlabels;
};

/* The value label l gives the sysctl name, or NULL when it sets none. */
const char *job_label_sysctl(const struct job_label *l, const char *name);

/*
 * Read and check the job file at path (at most JOB_FILE_MAX_BYTES). On
 * success *out owns a new job file (job_file_free() it) and 0 is returned.
 * On failure *out is NULL and the return is -ENOENT, -EACCES... (the file
 * could not be read), -EFBIG (too big), -ENOMEM, or -EINVAL with err
 * naming the file, line and column (1-based) and the offending key or
 * value, e.g. "jobs/x.yaml:7:11: invalid value '8Q' for 'rcvbuf':
 * expected a size like 8K or 1M, or auto".
 */
int job_file_load(const char *path, struct job_file **out,
		  struct base_err *err);

/*
 * As job_file_load(), from len bytes of text (need not be NUL-terminated);
 * name stands for the file in messages and in (*out)->path.
 */
int job_file_parse(const char *text, size_t len, const char *name,
		   struct job_file **out, struct base_err *err);

/* Release a job file; NULL is fine. */
void job_file_free(struct job_file *jf);

/* The index in jf->params of the parameter called name, or -1. */
int job_file_param_index(const struct job_file *jf, const char *name);

/* One combination of the matrix. */
struct job_cell {
	struct job_config cfg; /* finalized, run control from the job file */
	size_t *value; /* [jf->nparams]: index of each parameter's value */
	char *desc;    /* the axis values as written, "ipv=4 mtu=1500 msg=64";
			* "" when the file has no axis */
};

/*
 * Expand jf into its cells: the cartesian product of params in file order
 * (the first parameter varies slowest), minus the cells that match an
 * exclude rule and, with no_fragmentation, minus the UDP cells whose
 * message does not fit the MTU. Each cell is finalized with the allowed CPUs
 * (see job_config_finalize()).
 *
 * Returns 0 with *cells (job_cells_free() them) and *ncells >= 1, or
 * -EINVAL with err naming the file and the reason: a combination that
 * job_config_finalize() rejects ("jobs/x.yaml: combination test=udp_rr
 * dir=bidir: direction bidir applies to stream tests only..."), every
 * combination excluded, or more than JOB_MAX_CELLS cells; or -ENOMEM.
 * On failure *cells is NULL and *ncells 0.
 */
int job_file_expand(const struct job_file *jf, const struct base_cpulist *allowed,
		    struct job_cell **cells, size_t *ncells,
		    struct base_err *err);

/* Release what job_file_expand() made; NULL is fine. */
void job_cells_free(struct job_cell *cells, size_t ncells);

/*
 * Parse a rate in bits/s: a decimal number (a fraction is allowed when the
 * result is a whole number of bits/s) with an optional unit, all SI
 * (powers of 1000) and case-insensitive: bit, kbit, mbit, gbit, tbit as tc
 * writes them, or the bare suffixes K, M, G, T ("900mbit", "1gbit",
 * "10M", "1.5G", "64000"). tc's bps, kbps... are bytes/s and are rejected,
 * as is anything else. Returns 0, -EINVAL (bad syntax) or -ERANGE (above
 * UINT64_MAX); on failure *out is untouched and err says "invalid rate
 * '...': expected bits/s like 900mbit, 1gbit or 10M". Thread-safe.
 */
int job_parse_rate_bps(const char *s, uint64_t *out, struct base_err *err);

#endif
