/* SPDX-License-Identifier: GPL-2.0-only */
/* The bisect log: one row per commit looked at, the culprit confirmed against its parent, as text or JSON. */
#ifndef NR_BISECT_LOG_H
#define NR_BISECT_LOG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bisect/rule.h"

/*
 * The caller (cli/) fills these from the store; the module computes the
 * medians, the culprit and the direct comparison with the parent, and
 * formats. Pointers are borrowed for the life of the struct. No global
 * state: any thread, one struct per thread.
 */
struct bisect_log_step {
	const char *commit;
	enum bisect_verdict verdict;
	size_t n;                 /* runs the verdict was made from */
	const double *values;     /* every run stored, in run order (>= n
				   * when runs came after, e.g. interrupted) */
	size_t nvalues;
	size_t ndisturbed;        /* of them, flagged disturbed (foreign CPU) */
	struct bisect_position pos; /* as decided */
	double llr;               /* as decided: a partial step's side (NaN: none) */
	const char *parent;       /* its first parent's id, NULL: unknown */
	/* filled by bisect_log_finish() */
	double median;            /* of values; NaN without any */
	bool candidate;           /* bad, with a parent decided good */
	enum bisect_side toward;  /* what git was told (bisect_toward()) */
};

struct bisect_log {
	int64_t id;
	const char *good_label, *bad_label, *config_key, *metric, *unit;
	const double *good, *bad; /* the endpoints' values */
	size_t ngood, nbad;
	const char *good_commit;  /* what good_label names in git, or NULL */
	const char *bad_commit;   /* what bad_label names in git, or NULL */
	const char *bad_parent;   /* its first parent, or NULL */
	double conf;              /* of the positions' intervals */
	struct bisect_log_step *steps; /* in step order */
	size_t nsteps;

	/* filled by bisect_log_finish() */
	double median_good, median_bad;
	double gap_pct;           /* bad against good, Hodges-Lehmann, % */
	double noise_pct;         /* pooled CV of the endpoints, % */
	/* the one candidate, or NULL: a step, or bad_step */
	const struct bisect_log_step *culprit;
	const char *culprit_source; /* "step" or "bad endpoint" */
	struct bisect_log_step bad_step; /* the bad endpoint as a commit */
	size_t ncandidates;
	const char *parent_source; /* "step" or "good endpoint" */
	const double *parent_values; /* the parent's runs */
	size_t nparent;
	/* culprit against its parent: stats_shift_pct() at conf */
	double shift_pct, shift_lo_pct, shift_hi_pct;
	char note[256];           /* why nothing is confirmed, or "" */
};

/*
 * Compute what the log shows besides the rows: medians, gap and noise of
 * the endpoints, and the culprit. A partial step counts on the side git
 * was told (bisect_toward() of its llr): the culprit of the larger part
 * of the change is named, and the log lists the partial steps beside it.
 * A bad step is a candidate when its
 * parent (step->parent, from git) is a step decided good, or is
 * good_commit (the good endpoint, measured under good_label); so is the
 * bad endpoint itself (bad_commit, with bad_parent; git never tests it as
 * a step) unless it is a step too. With
 * exactly one candidate it is the culprit, confirmed against its parent;
 * its runs are compared with the parent's (Hodges-Lehmann shift with its
 * interval). Otherwise note says why none is named: no parents known, no
 * bad commit with a parent decided good (measure that parent), or several
 * (a change that is not monotone). Returns 0, -EINVAL or -ENOMEM.
 * No I/O.
 */
int bisect_log_finish(struct bisect_log *l);

/*
 * The log as text: a header (bisect, configuration, endpoints with n,
 * median, gap and noise), a table commit | verdict | n | median | each
 * run's value | position [interval], then the culprit line and, when
 * there were any, the partial steps with their level, position and the
 * side git was told. Commit ids of 40 or 64 hex digits are cut to 12.
 * The table kernel developers post.
 */
void bisect_log_text(FILE *f, const struct bisect_log *l);

/*
 * The log as one JSON object: "bisect" (the header), "steps" (each with
 * commit, verdict, toward, n, median, values, position, position_lo,
 * position_hi, parent, candidate, disturbed), "culprit" (null, or commit, source, parent,
 * parent_source, confirmed, shift_pct, shift_lo_pct, shift_hi_pct) and "note". Values
 * that are not finite (an unbounded interval) are null. New reference,
 * NULL on ENOMEM.
 */
json_t *bisect_log_json(const struct bisect_log *l);

#endif
