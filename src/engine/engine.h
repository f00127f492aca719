/* SPDX-License-Identifier: GPL-2.0-only */
/* The traffic engine: worker threads, each owning an epoll loop and its flows. */
#ifndef NR_ENGINE_ENGINE_H
#define NR_ENGINE_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/hist.h"
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

enum engine_kind {
	ENGINE_STREAM, /* bulk data one way per flow */
	ENGINE_RR,     /* request/response on a standing connection */
	ENGINE_CRR,    /* a connection per transaction (tcp) */
};

struct engine_opts {
	enum engine_kind kind;
	bool udp;
	uint64_t msg_bytes;  /* bytes per send (a datagram for udp) */
	uint64_t rmsg_bytes; /* tcp stream: bytes per recv; 0 = msg_bytes */
	/* each worker's data buffer starts this many bytes past a page
	 * boundary; negative: from malloc (job_config's buf_offset) */
	int32_t buf_offset;
	/* tcp stream: the server's senders move whole transfers of this many
	 * bytes (a multiple of msg_bytes) and the client's receivers time
	 * each one into the latency histogram (job_config's transfer_bytes);
	 * 0: off */
	uint64_t transfer_bytes;
	bool sendfile;       /* tcp stream senders: sendfile(2) from a file
			      * of msg_bytes, not send() from a buffer */
	bool sendfile_memfd; /* that file: a memfd, not one in the temp dir */
	uint64_t req_bytes, resp_bytes; /* request/response sizes */
	uint32_t burst;      /* requests in flight per flow (closed loop) */
	double rate;         /* open loop: requests/s per flow; 0 = closed */
	int64_t rr_timeout_ns; /* udp: a reply later than this is lost */
	struct engine_addr peer; /* crr server: accept only from this host */
	bool nodelay;            /* crr server: for each accepted connection */
	bool connect_only;   /* crr kind, tcp_cc: connect and close, no data */
	uint32_t batch;      /* datagrams per sendmmsg/recvmmsg */
	uint32_t udp_gso;    /* udp stream senders: UDP_SEGMENT size; 0 = off */
	bool udp_gro;        /* udp stream receivers: UDP_GRO */
	uint64_t peer_rcvbuf; /* the SO_RCVBUF the peer asked for; 0 = its
			       * default (udp bidir sizes its send calls) */
	uint32_t threads;    /* workers; flows go round-robin */
	struct base_cpulist cpus; /* worker i on cpus[i % n]; n 0 = unpinned */
	/* the other end's workers are pinned to some of these CPUs (a
	 * flow's two ends on one CPU, job_config_ends_share_cpus): a worker
	 * shares its CPU even when the end has one worker per CPU */
	bool cpus_shared;
	int64_t drain_ns;    /* how long receivers may drain after stop */
	/* hold the CPU latency QoS request at cpu_latency_us from launch to
	 * free (job_config's hold_cpu_latency) */
	bool hold_cpu_latency;
	uint32_t cpu_latency_us;
	/* workers never sleep waiting on their sockets: every wait polls
	 * (job_config's spin) */
	bool spin;
	/* tcp: read TCP_INFO at the marks on the flows this end receives on
	 * too, not only on those it sends on */
	bool tcpi_rx;
};

struct job_config;
/* The engine kind that runs a configuration's test. */
enum engine_kind engine_kind_of(const struct job_config *c);

/* Returns NULL with err set on failure (bad options or out of memory). */
struct engine *engine_new(const struct engine_opts *o, struct base_err *err);
/* Hand a connected socket to the engine, which owns it from now on (also on
 * failure). tx: this end sends on it. Returns 0 or -errno. */
int engine_add_flow(struct engine *e, uint32_t id, int fd, bool tx,
		    struct base_err *err);
/* A tcp_crr client flow: it connects to `to` anew for every transaction. */
int engine_add_connector(struct engine *e, uint32_t id,
			 const struct engine_addr *to,
			 const struct engine_sockopts *so, struct base_err *err);
/* Start the workers; they wait for engine_go(). Returns 0 or -errno; with
 * hold_cpu_latency, also when the request cannot be held (not root). */
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
/* Worker threads after launch (0 before), and the thread id of worker i
 * (0 until it has started), for exact per-thread CPU accounting. */
uint32_t engine_nworkers(const struct engine *e);
int engine_worker_tid(const struct engine *e, uint32_t i);
/* Worker i's CPU time so far from its thread CPU clock (exact, the
 * running slice included), in ns; -1 when it cannot be read. */
int64_t engine_worker_cpu_ns(const struct engine *e, uint32_t i);
/* Cumulative transactions completed (rr and crr clients; any time). */
uint64_t engine_transactions(const struct engine *e);
/* The merged latency histogram (ns) of the window, after engine_join (with
 * transfer_bytes, the receivers' transfer times); a new object the caller
 * frees, NULL for other streams or when out of memory. */
struct base_hist *engine_latency(const struct engine *e);
/* Result of the i-th flow added (valid after engine_join). */
void engine_flow_result(const struct engine *e, uint32_t i,
			struct proto_flow_report *out);
void engine_free(struct engine *e);

#endif
