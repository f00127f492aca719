/* SPDX-License-Identifier: GPL-2.0-only */
/* A test configuration: the workload parameters, defaults, validation, canonical key. */
#ifndef NR_JOB_CONFIG_H
#define NR_JOB_CONFIG_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/err.h"
#include "base/parse.h"
#include "base/time.h"

enum job_test {
	JOB_TEST_TCP_STREAM = 0,
	JOB_TEST_UDP_STREAM,
	JOB_TEST_TCP_RR,  /* request/response on a standing connection */
	JOB_TEST_UDP_RR,
	JOB_TEST_TCP_CRR, /* connect, request, response, close */
	JOB_TEST_TCP_SENDFILE, /* tcp_stream, the sender writing with sendfile(2) */
	JOB_TEST_TCP_CC,  /* connect, close: no data (netperf's TCP_CC) */
	JOB_TEST_COUNT,
};

/* For messages: every test's name. */
#define JOB_TEST_NAMES \
	"tcp_stream, tcp_sendfile, udp_stream, tcp_rr, udp_rr, tcp_crr or tcp_cc"

enum job_kind {
	JOB_KIND_STREAM,
	JOB_KIND_RR,
	JOB_KIND_CRR,
};

enum job_dir {
	JOB_DIR_SEND = 0, /* client -> server */
	JOB_DIR_RECV,     /* server -> client */
	JOB_DIR_BIDIR,    /* both: `streams` flows each way */
	JOB_DIR_COUNT,
};

#define JOB_MAX_STREAMS 1024
#define JOB_MAX_STREAMS_PCT 10000 /* -n 10000%: a hundred flows a CPU */
#define JOB_MAX_THREADS 256
#define JOB_MAX_MSG (64ULL << 20)
#define JOB_MAX_BUF_OFFSET 4095
#define JOB_MAX_TRANSFER (1ULL << 40) /* tcp_stream --transfer: 1T */
#define JOB_MIN_MSS 88 /* the kernel's TCP_MIN_MSS */
#define JOB_MAX_MSS 65535
#define JOB_BUF_OFFSET_HEAP (-1)
#define JOB_MAX_CPU_LATENCY_US 1000000
#define JOB_UDP_HDR_BYTES 8 /* the sequence number every datagram carries */
#define JOB_MAX_BATCH 64
/* datagrams one UDP_SEGMENT send may become (the kernel's limit until 6.9) */
#define JOB_MAX_GSO_SEGS 64
#define JOB_CC_MAX 16
#define JOB_MAX_BURST 1024
#define JOB_MAX_RATE 10000000.0 /* transactions/s per flow */

/*
 * Where the workers run when --cpus/--remote-cpus do not say: split puts
 * the client's workers on the first half of the allowed CPUs and the
 * server's on the second half (both on the first CPU when there is only
 * one); pair gives each end every allowed CPU in the same order, client
 * worker i and server worker i on cpu i, so the two ends of a flow share
 * a CPU (where the scheduler's wake-ups put them on loopback when nothing
 * is pinned) and every CPU carries its own pairs; free pins nothing and
 * leaves it to the scheduler; auto, the default, is pair for a tcp
 * stream (tcp_stream, tcp_sendfile) of two flows or more and split for
 * the others (finalize resolves it, and the configuration then names
 * the one chosen). With one end
 * pinned, pair places the other as split does. The resolved CPU lists are
 * part of the key, so samples of different placement never pool.
 */
enum job_placement {
	JOB_PLACE_SPLIT,
	JOB_PLACE_FREE,
	JOB_PLACE_PAIR,
	JOB_PLACE_AUTO,
	JOB_PLACE_COUNT,
};

/*
 * tcp_sendfile: the file the senders sendfile(2) from. tmp: an unnamed file
 * in the sending end's $TMPDIR or /tmp, as iperf3 -Z and netperf's
 * TCP_SENDFILE send (that filesystem's page cache); memfd: shmem pages
 * (what netregress sent before the choice existed, and what a document
 * without the field ran). From an ext4 /tmp, 1.3-1.4x the memfd's here.
 */
enum job_sendfile_from {
	JOB_SENDFILE_UNSET, /* finalize: tmp for tcp_sendfile */
	JOB_SENDFILE_TMP,
	JOB_SENDFILE_MEMFD,
	JOB_SENDFILE_COUNT,
};

/*
 * Everything that defines the workload of one test; the run-control fields
 * at the end (duration, warm-up, interval) are recorded with each sample but
 * are not part of the canonical key.
 */
struct job_config {
	enum job_test test;
	enum job_dir dir;
	uint32_t streams;      /* flows per direction */
	/* set: streams is this share of the CPUs this process may use, as
	 * lkp's nr_threads: 200 = twice as many flows as CPUs (at least 1);
	 * finalize resolves it into streams and clears it */
	uint32_t streams_pct;
	uint32_t threads;      /* workers per end; 0 = min(flows, online CPUs) */
	uint64_t msg_bytes;    /* 0 = the test's default */
	uint64_t rmsg_bytes;   /* tcp_stream: bytes per recv; 0 = msg_bytes */
	uint64_t sndbuf, rcvbuf;               /* local; 0 = autotuned */
	uint64_t remote_sndbuf, remote_rcvbuf; /* server's; 0 = autotuned */
	bool nodelay;
	uint32_t mss; /* TCP_MAXSEG on both ends' tcp sockets; 0: the route's */
	/* the sampling profiler (--profile) runs on the test's CPUs through
	 * the window: its timer interrupts slow what it measures (about 11%
	 * on a 2-vCPU guest), so it is part of the key when on */
	bool profile;
	int ipv; /* 4 or 6 */
	char cc[JOB_CC_MAX]; /* "" = the system default */
	uint32_t batch;      /* UDP datagrams per sendmmsg/recvmmsg; 0 = default */
	/* udp_stream: senders cut each send into datagrams of udp_gso bytes
	 * (UDP_SEGMENT; 0 = off); receivers take coalesced datagrams (UDP_GRO) */
	uint32_t udp_gso;
	bool udp_gro;
	enum job_sendfile_from sendfile_from; /* tcp_sendfile only */
	/* where each end's data buffer (the one its sends copy from and its
	 * receives copy into) starts past a page boundary, 0 to
	 * JOB_MAX_BUF_OFFSET bytes; default 0, page-aligned.
	 * JOB_BUF_OFFSET_HEAP: the buffer came from malloc, wherever the heap
	 * put it, as in what versions before the field stored (a document
	 * without it). On some CPUs (AMD Zen here) the kernel's copy to or
	 * from user memory costs several times more at some offsets from the
	 * kernel's data than at others: a 128K malloc'd buffer, 16 bytes past
	 * a page, halved loopback tcp_stream against a page-aligned one. */
	int32_t buf_offset;
	/* tcp_stream with dir recv: the stream is cut into transfers of this
	 * many bytes, a multiple of msg_bytes, as lmbench's bw_tcp reads its
	 * -M bytes at a time: the client times each transfer and the server
	 * stops at the end of one, so both ends move whole transfers. 0: off */
	uint64_t transfer_bytes;
	/* hold_cpu_latency: both ends hold the kernel's CPU latency QoS
	 * request (/dev/cpu_dma_latency) at cpu_latency_us through the test,
	 * so the idle governor picks no state slower to leave than that; 0
	 * keeps idle CPUs polling. On a 2-vCPU guest whose idle CPUs halt,
	 * waking one is the hypervisor's: 64 B tcp_rr across the vCPUs read
	 * 14k transactions/s halting and 48-73k polling (the host moving the
	 * vCPUs apart and together) */
	bool hold_cpu_latency;
	uint32_t cpu_latency_us;
	/* spin: both ends' workers poll their sockets without ever sleeping
	 * (non-blocking calls, epoll with no timeout), so no transaction or
	 * batch waits on a wake-up; each worker keeps its CPU fully busy */
	bool spin;
	uint64_t req_bytes, resp_bytes; /* request/response sizes; 0 = 1 */
	uint32_t burst;      /* transactions in flight per flow; 0 = 1 */
	double rate;         /* open loop: transactions/s per flow; 0 = closed */
	struct base_cpulist cpus, remote_cpus; /* n == 0: not pinned */
	enum job_placement placement;
	/* set by finalize: the ends whose CPUs the policy chose (1 client,
	 * 2 server), and whether both ends had to share CPUs */
	uint8_t placed;
	bool placed_shared;

	/* where the ends run: "loopback" (default), or "veth" (two network
	 * namespaces joined by a veth pair: see topo/) with its knobs */
	char topology[16];
	uint32_t mtu;           /* veth: 0 = 1500 */
	int8_t gro, gso, tso;   /* veth offloads: -1 the default, 0 off, 1 on */
	uint64_t tbf_rate_bps;  /* veth: token bucket on each egress; 0 = none */
	uint32_t cpu_quota_pct; /* veth: the server's CPU quota, % of one CPU; 0 = none */

	int64_t duration_ns, warmup_ns, interval_ns; /* interval 0 = none */
	/* warm-up until the 100 ms rates stop trending, at most warmup_ns */
	bool warmup_auto;
	int64_t rr_timeout_ns; /* udp_rr: a reply later than this is lost */
};

/* Fill with the defaults (tcp_stream, send, 1 stream, 10 s, 2 s warm-up). */
void job_config_init(struct job_config *c);

/* Resolve the defaults that depend on the test or the machine (message
 * size, batch, placement and threads given the CPUs this process may use,
 * `allowed`, ascending) and check every field. Returns 0 or -EINVAL with
 * err naming the bad value. */
int job_config_finalize(struct job_config *c, const struct base_cpulist *allowed,
			struct base_err *err);

/* How the workers were placed, for a sample's environment: "split",
 * "split, shared cpu" (one CPU for both ends), "free", "explicit",
 * "explicit client, split server", ... Static storage. */
const char *job_config_placement_desc(const struct job_config *c);

#define JOB_WARMUP_AUTO_MAX (10 * NS_PER_S) /* "auto": the default bound */
#define JOB_WARMUP_MAX (3600 * NS_PER_S)

/* A warm-up: a duration from 0 to 1h, "auto" (until steady, at most 10 s)
 * or "auto:MAX" (MAX from 1s to 1h). Returns 0, or -EINVAL with err
 * naming the text and what was expected. */
int job_parse_warmup(const char *s, int64_t *ns, bool *autow,
		     struct base_err *err);

const char *job_placement_name(enum job_placement p);
/* "split" or "free"; -EINVAL otherwise. */
int job_placement_parse(const char *s, enum job_placement *out);
/* tmp, memfd ("" unset); parse takes tmp or memfd. */
const char *job_sendfile_from_name(enum job_sendfile_from f);
int job_sendfile_from_parse(const char *s, enum job_sendfile_from *out);

/* Whether both ends are pinned and share a CPU number (the pair
 * placement): on one machine, the other end's workers run there too. */
bool job_config_ends_share_cpus(const struct job_config *c);

/* Flows on the wire: streams, twice that for bidir. */
uint32_t job_config_nflows(const struct job_config *c);
/* Whether flow `id` carries data from the client to the server. */
bool job_config_flow_c2s(const struct job_config *c, uint32_t id);

/* The canonical key: sorted name=value pairs of the workload parameters,
 * separated by single spaces. Returns 0 or -ENOSPC. */
int job_config_key(const struct job_config *c, char *buf, size_t len);

/*
 * The parameters in which two canonical keys differ, written to out as
 * "name A -> B" joined by ", ", "(none)" for a parameter one key lacks
 * (truncated to fit len). Returns how many differ. Keys that are not in
 * canonical order compare as far as they are.
 */
size_t job_key_diff(const char *a, const char *b, char *out, size_t len);

/* One name=value pair of a key: where it starts, its name's length and
 * its whole length (name == all: a pair without '='). */
struct job_key_pair {
	const char *p;
	size_t name, all;
};

/* The pair at *s in a key (pairs separated by spaces), *s moved past it;
 * false at the end. */
bool job_key_next(const char **s, struct job_key_pair *kp);
/* The value of parameter name in a key, its length in *len; NULL when the
 * key has no such pair. */
const char *job_key_value(const char *key, const char *name, size_t *len);

/*
 * The name=value pairs that every one of the n canonical keys has, joined
 * by single spaces into out in key order (truncated to fit len). Returns
 * how many.
 */
size_t job_keys_common(const char *const *keys, size_t n, char *out, size_t len);
/* The pairs of key that common (as job_keys_common() wrote it) does not
 * hold, joined by single spaces into out (truncated to fit len). */
void job_key_without(const char *key, const char *common, char *out, size_t len);
/* Whether key has every name=value pair of pairs (pairs joined by single
 * spaces, as job_keys_common() writes them; "" holds in every key). */
bool job_key_holds(const char *key, const char *pairs);

/* Call fn(ctx, name, value) for each workload parameter in key order. */
void job_config_each_param(const struct job_config *c,
			   void (*fn)(void *ctx, const char *name,
				      const char *value),
			   void *ctx);

/* The configuration as a JSON object of its parameters (new reference). */
json_t *job_config_to_json(const struct job_config *c);
/* Parse and validate what job_config_to_json() made, as received from a
 * peer or a file: every field type-checked, unknown keys rejected. */
int job_config_from_json(const json_t *obj, struct job_config *c,
			 struct base_err *err);

const char *job_test_name(enum job_test t);
int job_test_parse(const char *s, enum job_test *t, struct base_err *err);
const char *job_dir_name(enum job_dir d);
int job_dir_parse(const char *s, enum job_dir *d, struct base_err *err);
bool job_test_is_udp(enum job_test t);
/* tcp_stream or tcp_sendfile: a bulk TCP stream (reads rmsg bytes). */
bool job_test_is_tcp_stream(enum job_test t);
/* Whether the configuration runs in namespaces (a veth topology). */
bool job_config_is_veth(const struct job_config *c);
enum job_kind job_test_kind(enum job_test t);
/*
 * Whether the CPU speed probe (collect/speed.h) runs when not asked either
 * way: for streams only. On a request/response test its bursts would hold
 * up about 1 in 500 transactions by up to a burst, which shows in p99.9.
 */
bool job_test_speed_default(enum job_test t);

#endif
