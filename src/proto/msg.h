/* SPDX-License-Identifier: GPL-2.0-only */
/* Control-channel message schema: the reports that cross the wire, and strict field readers. */
#ifndef NR_PROTO_MSG_H
#define NR_PROTO_MSG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"

#define PROTO_CC_MAX 16 /* the kernel's TCP_CA_NAME_MAX */

/* Sender's TCP_INFO at the end of a run. */
struct proto_tcpi {
	uint32_t total_retrans, rtt_us, rttvar_us, snd_cwnd, snd_mss;
	uint64_t delivery_rate_bps, bytes_retrans;
	/* the congestion control the socket ran (TCP_CONGESTION), as the
	 * kernel reports it; "" where unknown (older ends) */
	char cc[PROTO_CC_MAX];
	/* the shift the sender applies to its peer's advertised window
	 * (tcpi_snd_wscale, 0-14; 0 without window scaling); has_wscale
	 * false from older ends */
	bool has_wscale;
	uint8_t snd_wscale;
};

/*
 * A tcp receiver's TCP_INFO at stop: what its kernel sized the receive
 * side to. rcv_space (tcpi_rcv_space) is the receive-buffer autotuning's
 * estimate of what the application reads per round trip, rcv_ssthresh
 * the window it may currently advertise, rcv_wscale the shift it
 * announced for its window (0-14), advmss the MSS it advertised to its
 * peer (from the route's MTU).
 */
struct proto_tcpi_rx {
	uint32_t rcv_space, rcv_ssthresh, advmss;
	uint8_t rcv_wscale;
};

/*
 * What the sender's TCP_INFO counted between the window's two marks: the
 * segments that carried data and their bytes (retransmissions included),
 * its retransmitted segments, the retransmissions the receiver
 * reported as duplicates (DSACK: they were not needed), the reorderings it
 * detected, and the time, in microseconds (the kernel counts in jiffies),
 * that it had data outstanding (busy) and, of that, that the receive
 * window or the send buffer held it back. And, where has_segs (absent from
 * older ends), every segment it sent (data or not: segs_out less
 * data_segs_out is its pure ACKs) and the data segments it received. A
 * receiving socket's too, where the client asked for them in its hello
 * ("rx_tcp_info"): a stream receiver sends ACKs only, both ends of
 * request/response send data.
 */
struct proto_tcpi_win {
	uint32_t data_segs_out, retrans, dsack_dups, reord_seen;
	uint64_t bytes_sent, busy_us, rwnd_limited_us, sndbuf_limited_us;
	bool has_segs;
	uint32_t segs_out, data_segs_in;
};

/* One end's view of one flow; window = between the two marks. */
struct proto_flow_report {
	uint32_t id;
	bool tx; /* this end sent on the flow */
	uint64_t win_bytes, win_msgs;
	uint64_t win_calls; /* streams: send/recv(mmsg) calls that moved data */
	uint64_t total_bytes, total_msgs; /* launch to drain */
	uint64_t udp_lost, udp_reordered, udp_dup; /* receiver, window; udp_rr:
						      * timed out, -, late */
	uint64_t fails; /* tcp_crr: failed connects in the window */
	uint64_t sndbuf, rcvbuf;         /* granted, at launch */
	uint64_t sndbuf_end, rcvbuf_end; /* granted, at stop */
	bool eof;      /* tcp receiver saw the peer's FIN */
	int err;       /* errno of a data failure, 0 if none */
	bool has_tcpi; /* sender's TCP_INFO at stop */
	struct proto_tcpi tcpi;
	bool has_tcpi_win; /* sender's TCP_INFO over the window (absent from
			    * older ends and kernels before 4.19) */
	struct proto_tcpi_win tcpi_win;
	/* a udp_stream receiver: what the kernel dropped at its socket over
	 * the window (SO_MEMINFO's SK_MEMINFO_DROPS: a full receive buffer,
	 * and the rest of sk_drops); absent from older ends */
	bool has_sock_drops;
	uint64_t sock_drops;
	/* a tcp receiver's TCP_INFO at stop: absent from older ends, and
	 * from a server the client's hello did not ask (rx_tcp_info) */
	bool has_tcpi_rx;
	struct proto_tcpi_rx tcpi_rx;
};

/* Split of CPU time in percent over the window (valid false: unknown). */
struct proto_cpu {
	bool valid;
	double user, sys, softirq, irq, idle, iowait, steal, busy;
	double busy_ticks; /* busy as the ticks alone give it (collect/cpu.h) */
};

/* What one end measured over the window. */
#define PROTO_STR_MAX 256

struct proto_end_report {
	int64_t window_ns;       /* its own CLOCK_MONOTONIC */
	int64_t user_ns, sys_ns; /* the process's CPU (getrusage) */
	int64_t nvcsw, nivcsw;
	/* exact accounting (-1 unknown): the process's CPU clock, its worker
	 * threads' run time and run-queue wait (schedstat), and the CPU each
	 * worker last ran on, "0,1" */
	int64_t cpu_ns, workers_ns, runq_wait_ns;
	uint32_t nworkers;
	char worker_cpus[PROTO_STR_MAX];
	struct proto_cpu cpu_all;  /* machine-wide, /proc/stat */
	struct proto_cpu cpu_test; /* the CPUs the workers were pinned to */
	bool drain_timeout;
	uint32_t nflows;
	struct proto_flow_report *flows; /* owned */
	/* collectors' results: {"snmp.Udp.RcvbufErrors": 12, ...}; owned
	 * reference, NULL when none */
	json_t *metrics;
	/* collectors' notes: {"perf.cycles": "not supported by this machine"} */
	json_t *notes;
};

#define PROTO_MAX_METRICS 16384
#define PROTO_METRIC_NAME_MAX 111

#define PROTO_ENV_MAX_KEYS 64

void proto_end_report_release(struct proto_end_report *r);
/* New JSON object for r; NULL when out of memory. */
json_t *proto_end_report_to_json(const struct proto_end_report *r);
/* Parse a peer's report, every field type- and range-checked; at most
 * max_flows flows. On success r owns an array to release. */
int proto_end_report_from_json(const json_t *j, uint32_t max_flows,
			       struct proto_end_report *r,
			       struct base_err *err);

/* An environment object from a peer: at most PROTO_ENV_MAX_KEYS keys, each
 * value a string of < PROTO_STR_MAX bytes or a number. */
int proto_env_check(const json_t *env, struct base_err *err);

/* The message type for error texts ("result" when absent). */
const char *proto_type_or(const json_t *obj);

/* Strict readers for a field of obj; err names the message and field. */
int proto_get_i64(const json_t *obj, const char *key, int64_t min, int64_t max,
		  int64_t *out, struct base_err *err);
int proto_get_str(const json_t *obj, const char *key, size_t max_len,
		  const char **out, struct base_err *err);
int proto_get_bool(const json_t *obj, const char *key, bool *out,
		   struct base_err *err);
/* A message {"type": type} plus the fields of extra (stolen, may be NULL). */
json_t *proto_msg(const char *type, json_t *extra);

#endif
