/* SPDX-License-Identifier: GPL-2.0-only */
/* How far apart the test's CPUs are: a cache line's round trip between them. */
#ifndef NR_COLLECT_XCPU_H
#define NR_COLLECT_XCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/parse.h"

/*
 * Why: on a virtual machine the host decides where the guest's vCPUs run,
 * and moves them. Two vCPUs can share a core complex and its L3 one
 * minute, and sit on different dies or sockets the next. Nothing inside
 * the guest says so: not steal time, not the CPU's speed (each vCPU runs
 * as fast as before). But loopback traffic is cache lines moving from the
 * sender's CPU to the receiver's, and its rate follows how far they move
 * (docs/methodology.md, "Where the host keeps the CPUs", gives the
 * distances and rates measured).
 *
 * The probe: for each pair of CPUs (a client worker's and the server
 * worker's it talks to), a thread pinned to each (SCHED_FIFO priority 1
 * where allowed). Every period, one pair in turn: both wake at the same
 * deadline, the one on the first CPU waits (a bounded spin) until the
 * other is there, then bounces one cache line back and forth: it writes
 * an odd value, the other answers with the next even one. It times
 * XCPU_BATCHES batches of XCPU_PER_BATCH round trips; the round's figure
 * is the median batch over XCPU_PER_BATCH, in ns. A round whose partner
 * did not come, or whose answer took longer than a bound (a CPU taken by
 * the host or a higher-priority task), is missed and counted as such.
 *
 * Cost: one round per period (default 100 ms): COLLECT_XCPU_BATCHES x
 * COLLECT_XCPU_PER_BATCH round trips plus the time one thread waits for
 * the other to wake, on two CPUs. Far below the speed probe's 50 us every
 * 50 ms on every CPU.
 */

#define COLLECT_XCPU_PER_BATCH 4
#define COLLECT_XCPU_BATCHES 8
/* Pairs probed at most (in turn, one per period). */
#define COLLECT_XCPU_PAIRS_MAX 16

struct collect_xcpu_pair {
	uint16_t a, b; /* a leads (the client's), b answers; a != b */
};

struct collect_xcpu_opts {
	const struct collect_xcpu_pair *pairs; /* borrowed during _open only */
	size_t npairs;                         /* 1..COLLECT_XCPU_PAIRS_MAX */
	int64_t period_ns;                     /* 0: 100 ms; at least 1 ms */
	/* how long the leader waits for its partner to arrive (0: 200 us, as
	 * a run's: longer would take its CPU from the test when the partner's
	 * is busy). On an idle guest a timer wakes a halted vCPU late, at
	 * times by milliseconds, so two threads woken for one deadline can
	 * arrive far apart (docs/methodology.md): an idle machine's probe
	 * (netregress probe) waits longer. At most the period. */
	int64_t arrive_ns;
};

/* One pair over the window. */
struct collect_xcpu_pair_result {
	uint16_t a, b;
	uint32_t rounds; /* timed rounds; 0: no figure below */
	uint32_t missed; /* rounds whose partner or answer did not come */
	double median_ns, min_ns, max_ns; /* of the rounds' figures */
};

struct collect_xcpu_result {
	bool realtime; /* false: SCHED_FIFO refused, threads ran at normal priority */
	size_t npairs;
	struct collect_xcpu_pair_result pair[COLLECT_XCPU_PAIRS_MAX];
	uint32_t rounds, missed;      /* over every pair */
	double median_ns;             /* of every round's figure, all pairs */
};

struct collect_xcpu;

/*
 * The pairs to probe between a client on cpus `a` and a server on cpus `b`
 * (base_cpulist as placed; n 0: not pinned): worker i's CPUs
 * (a[i % na], b[i % nb]) for i < max(na, nb), each pair once, none on one
 * CPU; when each of those falls on one CPU (a flow's two ends together,
 * as the pair placement puts them), consecutive CPUs of `a` instead: the
 * distance between the CPUs the pairs run on. When either end is not
 * pinned, consecutive CPUs of `online`
 * instead: (o0, o1), (o1, o2), ... At most COLLECT_XCPU_PAIRS_MAX. Returns
 * the number of pairs written to out (0: nothing to probe, as when both
 * ends share one CPU). Pure.
 */
size_t collect_xcpu_pairs(const struct base_cpulist *a, const struct base_cpulist *b,
			  const struct base_cpulist *online,
			  struct collect_xcpu_pair out[COLLECT_XCPU_PAIRS_MAX]);

/*
 * Start one thread per distinct CPU of the pairs, pinned, idle until
 * collect_xcpu_start(). Returns 0 and *out (free with collect_xcpu_free),
 * -EINVAL for bad opts (no pairs, too many, a pair on one CPU, a period
 * under 1 ms, an arrival bound below 0 or past the period), or a negative
 * errno when a thread cannot start or be pinned, err naming the CPU.
 * Control thread, outside the window.
 */
int collect_xcpu_open(struct collect_xcpu **out, const struct collect_xcpu_opts *opts,
		      struct base_err *err);
void collect_xcpu_free(struct collect_xcpu *s);

/* Open and close the window (rounds before start and after stop do not
 * count; a round under way at a mark is dropped). The rounds fall at
 * beat_ns + k * period (CLOCK_MONOTONIC ns, any k, past or future), or with
 * beat_ns 0 one period after start and every period on. 0, or -EINVAL when
 * s is NULL (stop: or no window open). Control thread. */
int collect_xcpu_start(struct collect_xcpu *s, int64_t beat_ns);
int collect_xcpu_stop(struct collect_xcpu *s);
/* --overhead: a paused probe sleeps. 0, or -EINVAL outside the window. */
int collect_xcpu_pause(struct collect_xcpu *s, bool paused);

/*
 * The rounds counted so far in the window, over every pair, and the sum
 * of their figures (ns): the mean figure over part of the window is the
 * difference of two calls. 0, or -EINVAL for NULL. Control thread; cheap.
 */
int collect_xcpu_totals(struct collect_xcpu *s, double *rounds, double *sum_ns);

/* The last closed window. 0, or -EINVAL when none was closed. */
int collect_xcpu_result(const struct collect_xcpu *s, struct collect_xcpu_result *out);

/* The last time at or before t_start that a round of a beat would fall
 * on (t_start itself with beat_ns 0): rounds go at it + k * period_ns,
 * k >= 1. Pure. */
int64_t collect_xcpu_origin(int64_t t_start, int64_t beat_ns, int64_t period_ns);

/* A round's figure from its batch times (ns for XCPU_PER_BATCH round trips
 * each; reordered): the median batch / per_batch. 0 when n is 0. Pure. */
double collect_xcpu_figure(int64_t *batch_ns, size_t n, unsigned per_batch);

#endif
