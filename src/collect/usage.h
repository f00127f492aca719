/* SPDX-License-Identifier: GPL-2.0-only */
/* This process's own CPU time and scheduling counts, from getrusage(). */
#ifndef NR_COLLECT_USAGE_H
#define NR_COLLECT_USAGE_H

#include <stdint.h>

/*
 * Resource use of the whole process (all threads). Exact accounting, unlike
 * the tick-sampled /proc/stat: this is how the tool measures its own CPU.
 * As a snapshot the counters are totals since the process started; as a
 * delta they cover the interval.
 */
struct collect_rusage {
	int64_t t_ns; /* CLOCK_MONOTONIC ns when read; interval in a delta */
	int64_t user_ns, sys_ns; /* CPU time in user and kernel mode, ns */
	long nvcsw, nivcsw; /* voluntary and involuntary context switches */
	long minflt, majflt; /* page faults without and with I/O */
};

/*
 * Fill *out from getrusage(RUSAGE_SELF) and CLOCK_MONOTONIC (read just
 * after). Returns 0 or a negative errno from getrusage (-EINVAL if out is
 * NULL). No allocation, no file I/O; any thread, including a worker.
 * Microsecond resolution: CPU times are multiples of 1000 ns.
 */
int collect_rusage_read(struct collect_rusage *out);

/*
 * *out = *b - *a, field by field, for a taken before b in the same process.
 * out may point to a or b. Any thread.
 */
void collect_rusage_delta(const struct collect_rusage *a,
			  const struct collect_rusage *b,
			  struct collect_rusage *out);

#endif
