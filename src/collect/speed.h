/* SPDX-License-Identifier: GPL-2.0-only */
/* How fast each test CPU ran over a window: a short timed probe, every few ms. */
#ifndef NR_COLLECT_SPEED_H
#define NR_COLLECT_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/parse.h"

/*
 * Why: a virtual CPU's speed changes under the guest when the host takes
 * short slices of its time, or gives its core's other hyperthread, its
 * caches or its clock to someone else. Steal time need not show it (a
 * hypervisor may report none) and neither does any guest counter without
 * hardware events; slices of a few microseconds are each too short to
 * see as a gap in the guest's own clocks. docs/methodology.md ("Host
 * speed") gives what a pinned loop measured.
 *
 * This probe measures it: on every probed CPU a thread (pinned, SCHED_FIFO
 * priority 1 where allowed, so that the test's own threads do not cut into
 * a burst) wakes every period and runs a burst of back-to-back chunks of a
 * dependent chain through memory, timing each chunk. A burst's rate is the
 * work it did over its time (chain steps per microsecond): what the CPU
 * delivered, slices lost included. The time its chunks took beyond the
 * burst's median chunk is its lost time: interruptions, host or guest.
 * The pace of the burst's faster chunks, its lower quartile, is the
 * core's own speed between interruptions: what the host's clock, the
 * core's other hyperthread and the neighbours' use of the caches leave,
 * and interruptions (the guest's network softirqs among them) do not
 * enter it while fewer than three chunks in four are hit. The rate is
 * this machine's own unit: compare it only between samples of the same
 * machine and build.
 *
 * Cost: burst/period of each probed CPU (default 50 us every 50 ms,
 * 0.1%), taken from whatever runs there; a request/response test on such
 * a CPU waits up to one burst in about 1 in 500 transactions, which
 * shows in its p99.9 (job_test_speed_default).
 */

/* Steps of the dependent chain in one timed chunk (a few hundred ns). */
#define COLLECT_SPEED_STEPS 256
/* Timed chunks per burst at most; a burst ends at burst_ns or here. */
#define COLLECT_SPEED_CHUNKS 512

struct collect_speed_opts {
	/* CPUs to probe (at least one). Borrowed during _open only. */
	const struct base_cpulist *cpus;
	/* 0: the defaults, 50 ms and 50 us; burst_ns < period_ns */
	int64_t period_ns;
	int64_t burst_ns;
};

/* One burst, from its chunk times (collect_speed_of_chunks). */
struct collect_speed_burst {
	double steps;       /* chain steps done */
	double time_ns;     /* the chunks' total time */
	double lost_ns;     /* sum over chunks of the time beyond the median */
	double rate;        /* steps per microsecond over time_ns */
	double median_rate; /* steps per microsecond of the median chunk */
	double core_rate;   /* steps per microsecond of the lower quartile's chunk */
	double lost_pct;    /* 100 x lost_ns / time_ns */
};

/* One CPU over the window. */
struct collect_speed_cpu {
	int cpu;
	uint32_t bursts;  /* timed bursts in the window; 0: no figure */
	double mean;      /* steps per microsecond over all the bursts' time */
	double min, max;  /* slowest and fastest burst's rate */
	double cov_pct;   /* 100 x sd / mean of the bursts' rates */
	double lost_pct;  /* lost time over all the bursts' time, percent */
	double core;      /* mean of the bursts' core_rate */
};

struct collect_speed_result {
	/* false: the probes ran at ordinary priority (SCHED_FIFO refused),
	 * so the test's threads may have cut into bursts */
	bool realtime;
	size_t ncpu;
	struct collect_speed_cpu cpu[BASE_CPU_MAX];
	int64_t window_ns;
	int64_t active_ns; /* the part of the window not paused */
};

struct collect_speed;

/*
 * Start one probe thread per listed CPU, pinned to it, idle until
 * collect_speed_start(). Returns 0 and *out (free with
 * collect_speed_free), -EINVAL for bad opts (no CPUs, burst not shorter
 * than period), or a negative errno when a thread cannot be started or
 * pinned (an offline CPU: -EINVAL from the kernel), err naming the CPU.
 * Control thread only, outside the window.
 */
int collect_speed_open(struct collect_speed **out,
		       const struct collect_speed_opts *opts,
		       struct base_err *err);

/* Stop and join every probe thread, free s; NULL is a no-op. */
void collect_speed_free(struct collect_speed *s);

/*
 * Open the window: forget what earlier windows measured, time bursts from
 * now on. Stop closes it; bursts after stop are not counted. A burst that
 * straddles a mark is dropped. Return 0, or -EINVAL when s is NULL (stop:
 * or not started). Control thread only.
 */
int collect_speed_start(struct collect_speed *s);
int collect_speed_stop(struct collect_speed *s);

/*
 * Pause (true) or resume the bursts inside the window (--overhead): a
 * paused probe sleeps. Returns 0 (also when already in that state) or
 * -EINVAL (NULL, or outside the window).
 */
int collect_speed_pause(struct collect_speed *s, bool paused);

/*
 * The work and time of the bursts counted so far in the window (or the last
 * one), summed over every probe: a rate over part of the window is the
 * difference of two calls, steps x 1000 / ns per microsecond. Returns 0, or
 * -EINVAL when an argument is NULL. Control thread; cheap (one lock).
 */
int collect_speed_totals(struct collect_speed *s, double *steps, double *time_ns);

/* The last closed window in *out. Returns 0, or -EINVAL when s or out is
 * NULL or no window was closed. Control thread, after stop. */
int collect_speed_result(const struct collect_speed *s,
			 struct collect_speed_result *out);

/*
 * One burst from its chunk times ns[0..n) of `steps` steps each (reordered:
 * sorted). The median is the mean of the two middle ones for even n, the
 * lower quartile the chunk at n / 4 in ascending order. All zero when n is 0 or the times add up to nothing. Pure; for tests.
 */
void collect_speed_of_chunks(int64_t *ns, size_t n, unsigned steps,
			     struct collect_speed_burst *out);

#endif
