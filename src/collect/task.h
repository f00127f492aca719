/* SPDX-License-Identifier: GPL-2.0-only */
/* Exact CPU accounting of one thread: /proc/<pid>/task/<tid>/schedstat and stat. */
#ifndef NR_COLLECT_TASK_H
#define NR_COLLECT_TASK_H

#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/*
 * What the scheduler accounted to one thread, in nanoseconds, exactly
 * (sum_exec_runtime, not ticks), plus the CPU it last ran on. As a snapshot
 * the times are totals since the thread started; collect_task_delta()
 * makes them an interval's.
 */
struct collect_task {
	uint64_t run_ns;  /* time on a CPU */
	uint64_t wait_ns; /* time runnable but waiting on a run queue */
	uint64_t slices;  /* times it was scheduled in */
	int cpu;          /* the CPU it last ran on; -1 unknown */
};

/*
 * Parse the text of /proc/<pid>/task/<tid>/schedstat: three unsigned
 * decimals ("run wait slices"), a trailing newline allowed. Returns 0,
 * or -EINVAL with err quoting the text. Pure.
 */
int collect_schedstat_parse(const char *text, struct collect_task *out,
			    struct base_err *err);

/*
 * What a thread's /proc stat line gives: the command name, the kernel's
 * task flags, the start time (clock ticks since boot) and the CPU it last
 * ran on.
 */
struct collect_stat {
	char comm[16];
	uint64_t flags;
	uint64_t start_ticks;
	int cpu;
};

/*
 * Parse the text of /proc/<pid>/task/<tid>/stat: the command name between
 * the first '(' and the last ')' (it may hold blanks and parentheses), then
 * fields 9 (flags), 22 (starttime) and 39 (processor), counted as proc(5)
 * does. Returns 0, or -EINVAL with err quoting the text. Pure.
 */
int collect_stat_parse(const char *text, struct collect_stat *out,
		       struct base_err *err);

/*
 * Read thread tid of this process (both files). A thread that has exited
 * is -ENOENT. Returns 0 or a negative errno with err naming the file.
 * Not for the measured loop (opens files).
 */
int collect_task_read(pid_t tid, struct collect_task *out, struct base_err *err);

/* *out = *b - *a for the times (0 where b < a); cpu from b. */
void collect_task_delta(const struct collect_task *a,
			const struct collect_task *b, struct collect_task *out);

/* CPU time of the whole process, all threads including exited ones, in ns
 * (CLOCK_PROCESS_CPUTIME_ID: exact). -1 when the clock cannot be read. */
int64_t collect_process_cpu_ns(void);

#endif
