/* SPDX-License-Identifier: GPL-2.0-only */
/* Machine-wide and per-CPU time from /proc/stat, and its split in percent. */
#ifndef NR_COLLECT_CPU_H
#define NR_COLLECT_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* CPU indexes 0 .. COLLECT_CPU_MAX - 1 are supported; a higher one is an
 * error, never silently dropped. */
#define COLLECT_CPU_MAX 1024

/* One /proc/stat cpu line in USER_HZ ticks (normally 1/100 s). guest and
 * guest_nice are already included in user and nice by the kernel, so they
 * are not kept. Columns missing on old kernels read as 0. */
struct collect_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/*
 * One snapshot of /proc/stat. About 75 KiB: allocate it with
 * collect_cpustat_new(), not on a (worker thread) stack.
 *
 * Offline CPUs have no line in /proc/stat: present[i] says whether cpu i
 * had one. ncpu is the highest present index + 1, so CPUs below ncpu may
 * be absent. The "cpu" total line is the kernel's sum over online CPUs.
 */
struct collect_cpustat {
	int64_t t_ns; /* CLOCK_MONOTONIC ns at the read; 0 after parse */
	long hz;      /* USER_HZ, the ticks' rate, at the read; 0 after parse */
	int ncpu; /* highest cpu index + 1 */
	struct collect_cpu_times total;
	struct collect_cpu_times cpu[COLLECT_CPU_MAX];
	bool present[COLLECT_CPU_MAX];
	uint64_t ctxt; /* context switches since boot; 0 if no ctxt line */
	uint64_t intr; /* interrupts since boot; 0 if no intr line */
};

/* Allocate a zeroed snapshot. Returns NULL when out of memory. The caller
 * owns it and releases it with collect_cpustat_free(). Any thread. */
struct collect_cpustat *collect_cpustat_new(void);

/* Release a snapshot from collect_cpustat_new(); NULL is a no-op. */
void collect_cpustat_free(struct collect_cpustat *st);

/*
 * Parse the text of /proc/stat (len bytes, need not be NUL-terminated) into
 * *out, which is overwritten (t_ns set to 0).
 *
 * Reads the "cpu" total line (required), "cpuN" lines, and the first number
 * of "ctxt" and "intr". Cpu lines need at least 4 columns (user nice system
 * idle); fewer than the 8 kept columns, as on old kernels, read as 0; extra
 * columns (guest, guest_nice, future ones) must be numbers and are ignored.
 * Other keys are ignored. A line that is empty, malformed, duplicated, or
 * names a cpu >= COLLECT_CPU_MAX is rejected and err names the line.
 *
 * Returns 0, -EINVAL on malformed text, -ERANGE on a number that does not
 * fit 64 bits or a cpu index that is too high. On error *out is partly
 * filled and must not be used.
 * Pure function; any thread.
 */
int collect_cpustat_parse(const char *text, size_t len,
			  struct collect_cpustat *out, struct base_err *err);

/*
 * Read /proc/stat into *out and set out->t_ns to CLOCK_MONOTONIC ns at the
 * middle of the read. The file is read whole into a temporary 256 KiB heap
 * buffer (one large read gets the kernel's one consistent snapshot); a
 * larger file is an error, not a truncation.
 *
 * Returns 0, a negative errno from open/read/malloc, -EFBIG if /proc/stat
 * is over 256 KiB, or what collect_cpustat_parse() returns; err says what
 * failed. Allocates and does file I/O: not for the measured loop. A worker
 * thread may call it (it only reads a file).
 */
int collect_cpustat_read(struct collect_cpustat *out, struct base_err *err);

/* The CPUs a snapshot has a line for: the machine's online CPUs, whose
 * time its "cpu" total sums. Pure; any thread. */
int collect_cpustat_ncpu(const struct collect_cpustat *st);

/* Split of CPU time over an interval, in percent (0..100) of the selected
 * CPUs' time. user includes nice; sys is system; busy is
 * 100 - idle - iowait. The fields except busy sum to 100, but for a
 * busy share in which no user, system, irq or softirq tick fell (then
 * those read 0). */
struct collect_cpu_pct {
	double user, sys, softirq, irq, idle, iowait, steal, busy;
	double busy_ticks; /* 100 - idle - iowait as shares of the ticks' sum */
};

/*
 * Compute the CPU time split between snapshots a (earlier) and b (later).
 *
 * cpus == NULL uses the "cpu" total line (the whole machine: on 2 CPUs each
 * field is a share of both CPUs' time). Otherwise cpus points to
 * COLLECT_CPU_MAX flags and the ticks of every selected cpu present in both
 * snapshots are summed. A counter that went backwards (CPU hotplug) counts
 * as 0 for that field and cpu.
 *
 * The time is the wall time between the reads (t_ns, hz) on each CPU, or
 * idle, iowait and steal's sum when that is larger (a read that lagged its
 * stamp), or the ticks' sum when the reads' times are unknown. A tickless
 * kernel counts idle and iowait exactly (the sleeps' length) and steal from the host's
 * steal clock, but user, system, irq and softirq only at the ticks that
 * fire while the CPU is busy: a CPU busy in bursts shorter than a tick,
 * idle between them, loses most of its busy ticks (docs/methodology.md,
 * "Exact CPU accounting"). So busy is the time less idle
 * and iowait, steal its own share, and user, system, irq and softirq split
 * the rest in the ratio of their ticks. busy_ticks is the busy share the
 * ticks alone give, at most busy (a load in step with the tick puts
 * every tick in a burst); the test's foreign CPU is reckoned from it (the
 * busy time sleeps leave over also holds the kernel's idle exits and wakeups
 * on behalf of the test, which no task is charged with).
 *
 * Returns 0, or -EINVAL when an argument is NULL, no selected cpu is present
 * in both snapshots, or no ticks elapsed (out is then zeroed). Pure
 * function; any thread.
 */
int collect_cpu_pct(const struct collect_cpustat *a,
		    const struct collect_cpustat *b, const bool *cpus,
		    struct collect_cpu_pct *out);

#endif
