/* SPDX-License-Identifier: GPL-2.0-only */
/* Hardware and software perf counters over a window, per CPU set or process. */
#ifndef NR_COLLECT_PERF_H
#define NR_COLLECT_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/parse.h"

struct perf_event_attr;

/*
 * How long a collector was paused inside its window (collect_perf_pause,
 * collect_profile_pause): the caller switches the events, this keeps time.
 */
struct collect_pause_clock {
	bool paused;
	int64_t since_ns; /* CLOCK_MONOTONIC of the last pause */
	int64_t total_ns; /* paused time of the window so far */
};

/* Enter (paused true) or leave a pause at now_ns; a no-op in that state. */
static inline void collect_pause_clock_set(struct collect_pause_clock *c,
					   bool paused, int64_t now_ns)
{
	if (c->paused == paused)
		return;
	if (paused)
		c->since_ns = now_ns;
	else
		c->total_ns += now_ns - c->since_ns;
	c->paused = paused;
}

/*
 * The system calls behind every counter and the profiler (profile.h),
 * behind a table so that tests can inject a fake kernel: the hardware path
 * (all counters present, multiplexing) is tested on machines that lack it.
 * Unlike the libc calls they return a negative errno on failure, never -1
 * with errno set: open returns a file descriptor or -errno, read the byte
 * count or -errno, close and ioctl 0 or -errno. mmap returns the mapping or
 * MAP_FAILED with *errnum set; munmap returns 0 or -errno. mmap and munmap
 * are used by the profiler only; a counter-only fake may leave them NULL.
 */
struct collect_perf_ops {
	int (*open)(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags);
	ssize_t (*read)(int fd, void *buf, size_t len);
	int (*close)(int fd);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	void *(*mmap)(size_t len, int fd, int *errnum);
	int (*munmap)(void *addr, size_t len);
};

/* The real system calls (perf_event_open, read, close, ioctl, mmap). */
extern const struct collect_perf_ops collect_perf_sys_ops;

/* The counted events, in the order of collect_perf_result.ev[]. */
enum collect_perf_event {
	COLLECT_PERF_CYCLES,
	COLLECT_PERF_INSTRUCTIONS,
	COLLECT_PERF_CACHE_REFERENCES,
	COLLECT_PERF_CACHE_MISSES,
	COLLECT_PERF_BRANCH_MISSES,
	COLLECT_PERF_CLOCK, /* task-clock (process) or cpu-clock (CPUs), ns */
	COLLECT_PERF_CONTEXT_SWITCHES,
	COLLECT_PERF_CPU_MIGRATIONS,
	COLLECT_PERF_PAGE_FAULTS,
	COLLECT_PERF_NEVENTS
};

enum collect_perf_scope {
	/*
	 * This process: pid 0, cpu -1, inherited by threads (and children)
	 * created after collect_perf_open(), kernel work done on its behalf
	 * included. COLLECT_PERF_CLOCK is task-clock: CPU time of the
	 * process's threads, ns.
	 */
	COLLECT_PERF_PROCESS,
	/*
	 * Every task on the listed CPUs, kernel and interrupts included (pid
	 * -1, one counter per CPU, summed): what the test's CPUs did.
	 * COLLECT_PERF_CLOCK is cpu-clock, idle time included, so it is about
	 * window x number of CPUs. Needs root or CAP_PERFMON when
	 * perf_event_paranoid > 0.
	 */
	COLLECT_PERF_CPUS,
};

struct collect_perf_opts {
	enum collect_perf_scope scope;
	/* COLLECT_PERF_CPUS: the CPUs (at least one); ignored otherwise.
	 * Borrowed during collect_perf_open() only. */
	const struct base_cpulist *cpus;
	/* NULL: collect_perf_sys_ops. Borrowed until collect_perf_free(). */
	const struct collect_perf_ops *ops;
};

/* One event over the window between collect_perf_start() and _stop(). */
struct collect_perf_count {
	/* Stable metric name without prefix: "cycles", "instructions",
	 * "cache_references", "cache_misses", "branch_misses",
	 * "task_clock_ns" or "cpu_clock_ns", "context_switches",
	 * "cpu_migrations", "page_faults". */
	const char *name;
	/* false: the event could not be opened (or read); reason says why,
	 * errnum holds the negative errno, and the numbers are 0. */
	bool supported;
	int errnum;
	/* Why it is unsupported: "not supported by this machine"
	 * (ENOENT, EOPNOTSUPP, ENODEV), "perf_event_paranoid forbids it"
	 * (EACCES, EPERM), ...; "" when supported. */
	char reason[96];
	/* Process scope only: the kernel refused to count kernel mode
	 * (paranoid), so the event counts user space alone. */
	bool user_only;
	/* Supported and the PMU ran it for part of the window, so count is
	 * meaningful. A supported event that never got a PMU slot (heavy
	 * multiplexing) has counted == false and count 0. */
	bool counted;
	/* Estimated count over the window: for every CPU (or the process)
	 * the raw delta x time_enabled / time_running, summed, rounded. */
	uint64_t count;
	/* Sum of the unscaled deltas. */
	uint64_t raw;
	/* Share of the enabled time the event was on the PMU, 0..100; 100
	 * when not multiplexed. */
	double running_pct;
};

struct collect_perf_result {
	int64_t window_ns; /* CLOCK_MONOTONIC between start and stop */
	/* the part of the window the events were not paused (collect_perf_pause);
	 * when less than window_ns, every count is extrapolated to the window
	 * (x window_ns / active_ns), like multiplexing is */
	int64_t active_ns;
	struct collect_perf_count ev[COLLECT_PERF_NEVENTS];
	/*
	 * Derived values; each has_* is false (and the value 0) when an input
	 * is unsupported, not counted or a divisor is 0.
	 *   ipc            instructions / cycles
	 *   cpi            cycles / instructions
	 *   cache_miss_pct 100 x cache_misses / cache_references
	 *   mpki           cache_misses per 1000 instructions
	 * Instructions per unit of work (per byte, per message) is left to
	 * the caller, which knows the work.
	 */
	bool has_ipc, has_cpi, has_cache_miss_pct, has_mpki;
	double ipc, cpi, cache_miss_pct, mpki;
};

struct collect_perf;

/*
 * Open every event independently (not as one group, so that a machine
 * that has some of them still counts those) with read_format
 * TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING, enabled at once. An event that
 * fails to open on any CPU is closed on all and recorded as unsupported
 * with its reason; that is never an error, not even when every event is
 * unsupported.
 *
 * Returns 0 and the new counter set in *out (free with collect_perf_free),
 * or -EINVAL for bad opts (COLLECT_PERF_CPUS without CPUs), -ENODEV when
 * a listed CPU is offline or absent (the kernel refuses even software
 * events there), -ENOMEM; err names the cause. Opens 9 fds (9 per CPU).
 * Not for the measured loop; call from the thread that runs the test, and
 * for process scope before starting the threads to be counted.
 */
int collect_perf_open(struct collect_perf **out,
		      const struct collect_perf_opts *opts,
		      struct base_err *err);

/* Close every counter and free p; NULL is a no-op. */
void collect_perf_free(struct collect_perf *p);

/*
 * Snapshot every counter at the window's start mark (one read() per open
 * counter and CPU; about a microsecond each). A counter whose read fails
 * becomes unsupported with the reason, never an error. May be called
 * again to start a new window. Returns 0, or -EINVAL if p is NULL.
 * Call from one thread at a time, outside the measured loop.
 */
int collect_perf_start(struct collect_perf *p);

/* Snapshot at the window's end mark; as collect_perf_start(). Returns 0,
 * or -EINVAL if p is NULL or not started. */
int collect_perf_stop(struct collect_perf *p);

/*
 * Pause (paused true) or resume every counter inside the window: one
 * PERF_EVENT_IOC_DISABLE or _ENABLE per counter and CPU, which costs an
 * interprocessor call per CPU. A paused counter counts nothing and costs
 * nothing; the result extrapolates the counted part to the window. Used by
 * --overhead to measure what counting costs. Returns 0 (also when already
 * in that state), -EINVAL (NULL, or outside the window) or the
 * first negative errno of an ioctl. A window may end paused; stop resumes.
 */
int collect_perf_pause(struct collect_perf *p, bool paused);

/*
 * The window between the last start and stop: scaled counts, reasons for
 * the unsupported events and the derived ratios, in *out. Returns 0, or
 * -EINVAL if p or out is NULL or the window is not closed (start without
 * stop). Pure; any thread once stop has returned.
 */
int collect_perf_result(const struct collect_perf *p,
			struct collect_perf_result *out);

/* Compute the has_* / derived fields of r from its ev[] counts. Called by
 * collect_perf_result(); exported for callers that build counts by hand. */
void collect_perf_derive(struct collect_perf_result *r);

/*
 * Write the reason for a perf_event_open failure (negative errno) into buf
 * (len bytes, NUL included, cut to fit): "not supported by this machine"
 * for ENOENT, EOPNOTSUPP and ENODEV, "perf_event_paranoid forbids it" for
 * EACCES and EPERM, "perf_event_open is not in this kernel" for ENOSYS,
 * "too many open files" for EMFILE and ENFILE, "busy: used by another
 * tool" for EBUSY, "rejected by the kernel: invalid argument" for EINVAL,
 * else "perf_event_open failed: <strerror>". Thread-safe.
 */
void collect_perf_strerror(int errnum, char *buf, size_t len);

#endif
