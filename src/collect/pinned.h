/* SPDX-License-Identifier: GPL-2.0-only */
/* What the probes share: a thread pinned to one CPU above the test's, timed waits, medians. */
#ifndef NR_COLLECT_PINNED_H
#define NR_COLLECT_PINNED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * Start fn(arg) in *th, pinned to cpu, with every signal blocked (signals
 * belong to the control thread), named "<tag>/<cpu>", at SCHED_FIFO
 * priority 1 (above the test's threads, below every other real-time
 * task). Without the privilege the thread runs at ordinary priority and
 * *realtime becomes false. Returns 0, or a negative errno with err
 * naming `what` and the CPU (an offline CPU: -EINVAL from the kernel).
 */
int collect_pinned_start(pthread_t *th, unsigned cpu, void *(*fn)(void *), void *arg,
			 const char *what, const char *tag, bool *realtime,
			 struct base_err *err);

/*
 * The window a probe measures in, and the lock and condition its threads
 * wait on (the condition's clock is CLOCK_MONOTONIC, for
 * collect_cond_wait_until). start opens it, stop closes it, pause holds
 * it; gen is bumped at each of those, so that a round or burst under way
 * across one is dropped. Fields under mu.
 */
struct collect_window {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool running, paused, quit, closed;
	uint32_t gen;
	int64_t t_start, t_stop;
};

void collect_window_init(struct collect_window *w);
void collect_window_destroy(struct collect_window *w);

/* Set quit under mu and wake every waiting thread, so that each leaves
 * its loop and can be joined. */
void collect_window_quit(struct collect_window *w);

/* Lock w for a change inside its window: 0 with the lock held, or -EINVAL
 * (no window open) without it. */
int collect_window_lock(struct collect_window *w);

/* With mu held (the probe's sums just reset): open the window at now and
 * wake the threads; mu is released. */
void collect_window_open(struct collect_window *w);

/* With mu held (collect_window_lock): close the window at now_ns, or
 * hold it or let it go on (paused), waking the threads; mu is released. */
void collect_window_close(struct collect_window *w, int64_t now_ns);
void collect_window_pause(struct collect_window *w, bool paused);

/* pthread_cond_timedwait until deadline_ns of CLOCK_MONOTONIC (cv made
 * with that clock), mu held. */
void collect_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ns);

/* The median of v[0..n) (sorted in place): the mean of the two middle
 * values for even n; 0 for n 0. */
double collect_median_i64(int64_t *v, size_t n);

#endif
