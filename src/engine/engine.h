/* SPDX-License-Identifier: GPL-2.0-only */
/* The traffic engine: worker threads, each owning an epoll loop and its flows. */
#ifndef NR_ENGINE_ENGINE_H
#define NR_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/parse.h"
#include "engine/sock.h"
#include "proto/msg.h"

/*
 * Lifetime, all from one control thread:
 *   engine_new -> engine_add_flow... -> engine_launch (threads pinned and
 *   parked) -> engine_go (start barrier) -> engine_mark(0) after warm-up ->
 *   engine_mark(1) at the end of the window -> engine_stop (senders stop,
 *   TCP senders shut down their side) -> engine_join (receivers drained) ->
 *   engine_flow_result... -> engine_free.
 * engine_free is valid at any point and stops and joins what runs.
 */
struct engine;

struct engine_opts {
	bool udp;
	uint64_t msg_bytes;  /* bytes per send (a datagram for udp) */
	uint32_t batch;      /* datagrams per sendmmsg/recvmmsg */
	uint32_t threads;    /* workers; flows go round-robin */
	struct base_cpulist cpus; /* worker i on cpus[i % n]; n 0 = unpinned */
	int64_t drain_ns;    /* how long receivers may drain after stop */
};

/* Returns NULL with err set on failure (bad options or out of memory). */
struct engine *engine_new(const struct engine_opts *o, struct base_err *err);
/* Hand a connected socket to the engine, which owns it from now on (also on
 * failure). tx: this end sends on it. Returns 0 or -errno. */
int engine_add_flow(struct engine *e, uint32_t id, int fd, bool tx,
		    struct base_err *err);
/* Start the workers; they wait for engine_go(). Returns 0 or -errno. */
int engine_launch(struct engine *e, struct base_err *err);
/* An eventfd that becomes readable when a worker fails or finishes. */
int engine_event_fd(const struct engine *e);
/* Release the start barrier: every flow starts now. */
void engine_go(struct engine *e);
/* Snapshot the counters: which 0 opens the measured window, 1 closes it.
 * Returns the CLOCK_MONOTONIC time of the snapshot. */
int64_t engine_mark(struct engine *e, int which);
/* Stop sending; receivers keep reading until EOF (tcp), a quiet period
 * (udp) or the drain time, then the workers end. */
void engine_stop(struct engine *e);
/* Wait for every worker to end. Returns 0, or -ETIMEDOUT when receivers did
 * not drain in time (the result is still valid, eof says which). */
int engine_join(struct engine *e);
/* Cumulative bytes received and sent so far over all flows (any time). */
void engine_totals(const struct engine *e, uint64_t *rx_bytes,
		   uint64_t *tx_bytes);
/* The first data failure, if any: 0 or -errno with err naming the flow. */
int engine_failure(const struct engine *e, struct base_err *err);
uint32_t engine_nflows(const struct engine *e);
/* Result of the i-th flow added (valid after engine_join). */
void engine_flow_result(const struct engine *e, uint32_t i,
			struct proto_flow_report *out);
void engine_free(struct engine *e);

#endif
