// SPDX-License-Identifier: GPL-2.0-only
/* The table of test parameters and the code that walks it; see params.h. */
#include "job/params.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "base/time.h"

/* Linux caps a socket buffer request at INT_MAX / 2. */
#define BUF_MAX (1ULL << 30)
#define STR_(x) #x
#define STR(x) STR_(x)

#define FIELD(f) .off = offsetof(struct job_config, f), \
		 .size = sizeof(((struct job_config *)0)->f)
#define U(f) .type = JOB_PT_UINT, FIELD(f)
#define I(f) .type = JOB_PT_INT, FIELD(f)
#define B(f) .type = JOB_PT_BOOL, FIELD(f)
/* a socket buffer: sizes up to 1G, auto (0) the kernel's autotuning */
#define BUFFER(f) .kind = JOB_PK_BUF, U(f), .max = BUF_MAX, .wmax = INT32_MAX, \
		  .zero_word = "auto", .key_zero = "auto"

static void set_streams(struct job_config *c, const struct job_pval *v)
{
	c->streams_pct = (uint32_t)v->i;
	c->streams = v->i ? 1 : (uint32_t)v->u;
}

static void set_cpu_latency(struct job_config *c, const struct job_pval *v)
{
	c->hold_cpu_latency = v->i >= 0;
	c->cpu_latency_us = (uint32_t)v->u;
}

static bool cpu_latency_set(const struct job_config *c)
{
	return c->hold_cpu_latency;
}

static void set_buffers(struct job_config *c, const struct job_pval *v)
{
	c->sndbuf = c->rcvbuf = v->u;
}

static void set_rbuffers(struct job_config *c, const struct job_pval *v)
{
	c->remote_sndbuf = c->remote_rcvbuf = v->u;
}

static void set_allbuf(struct job_config *c, const struct job_pval *v)
{
	c->sndbuf = c->rcvbuf = c->remote_sndbuf = c->remote_rcvbuf = v->u;
}

static int cli_streams(const struct job_pdef *p, const char *flag, const char *arg,
		       struct job_config *c, struct base_err *err);
static int cli_cpu_latency(const struct job_pdef *p, const char *flag, const char *arg,
			   struct job_config *c, struct base_err *err);
static int cli_rr(const struct job_pdef *p, const char *flag, const char *arg,
		  struct job_config *c, struct base_err *err);

/*
 * The rows in the order of the canonical key (alphabetical, but for rmsg
 * before req and resp, as every stored key has it); rows outside the key
 * sit beside their kin. --help and the man page list them in this order.
 */
const struct job_pdef job_pdefs[] = {
	{ .name = "batch", .yaml = "batch", .json = "batch", .lopt = "batch",
	  .metavar = "N", .kind = JOB_PK_INT, U(batch), .min = 1,
	  .max = JOB_MAX_BATCH, .wmax = JOB_MAX_BATCH, .key = JOB_KEY_UDP_STREAM,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "udp datagrams per sendmmsg/recvmmsg (default 32)" },
	/* every sample since the buffers are page-aligned has it; those
	 * stored before (malloc'd buffers, unset) keep their keys */
	{ .name = "buf_offset", .yaml = "buf_offset", .json = "buf_offset",
	  .lopt = "buf-offset", .metavar = "N", .kind = JOB_PK_INT, I(buf_offset),
	  .max = JOB_MAX_BUF_OFFSET, .wmax = JOB_MAX_BUF_OFFSET,
	  .unset = JOB_BUF_OFFSET_HEAP, .key = JOB_KEY_SET, .wire = JOB_WIRE_SET,
	  .check = " bytes past a page boundary",
	  .help = "both ends' data buffers start N bytes past a\n"
		  "page boundary (0-4095; default 0, page-aligned)" },
	{ .name = "burst", .yaml = "burst", .json = "burst", .lopt = "burst",
	  .metavar = "N", .kind = JOB_PK_INT, U(burst), .min = 1,
	  .max = JOB_MAX_BURST, .wmax = JOB_MAX_BURST, .key = JOB_KEY_RR,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "requests in flight per flow (closed loop)" },
	{ .name = "cc", .yaml = "cc", .json = "cc", .lopt = "cc", .metavar = "NAME",
	  .kind = JOB_PK_CC, .type = JOB_PT_STR, FIELD(cc), .zero_word = "default",
	  .key_zero = "default", .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS,
	  .cli_expect = "expected a name like cubic or bbr",
	  .help = "TCP congestion control on both ends" },
	/* only when held: every sample before and without it keeps its key */
	{ .name = "cpu_latency", .yaml = "cpu_latency", .json = "cpu_latency",
	  .lopt = "cpu-latency", .metavar = "US", .kind = JOB_PK_INT,
	  U(cpu_latency_us), .max = JOB_MAX_CPU_LATENCY_US,
	  .wmax = JOB_MAX_CPU_LATENCY_US, .zero_word = "none", .key = JOB_KEY_SET,
	  .wire = JOB_WIRE_SET, .check = " microseconds", .set = set_cpu_latency,
	  .cli = cli_cpu_latency, .is_set = cpu_latency_set,
	  .help = "both ends hold the kernel's CPU latency request\n"
		  "(/dev/cpu_dma_latency) at US microseconds through\n"
		  "the test: idle CPUs take no state slower to wake;\n"
		  "0 keeps them polling (default none; needs root)" },
	{ .name = "cpu_quota", .yaml = "cpu_quota", .json = "cpu_quota",
	  .kind = JOB_PK_PCT, U(cpu_quota_pct), .min = 1, .max = 100 * BASE_CPU_MAX,
	  .wmax = 100 * BASE_CPU_MAX, .zero_word = "none", .key = JOB_KEY_VETH,
	  .wire = JOB_WIRE_ALWAYS },
	{ .name = "cpus", .yaml = "cpus", .json = "cpus", .lopt = "cpus",
	  .metavar = "LIST", .kind = JOB_PK_CPUS, .type = JOB_PT_CPUS, FIELD(cpus),
	  .zero_word = "none", .key_zero = "none", .key = JOB_KEY_ALWAYS,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "pin local workers (worker i on the i-th cpu)" },
	{ .name = "dir", .yaml = "dir", .json = "dir", .lopt = "dir", .metavar = "DIR",
	  .kind = JOB_PK_DIR, I(dir), .key = JOB_KEY_STREAM, .wire = JOB_WIRE_ALWAYS,
	  .help = "send (client to server), recv or bidir" },
	{ .name = "gro", .yaml = "gro", .json = "gro", .kind = JOB_PK_TOGGLE, I(gro),
	  .wmin = -1, .wmax = 1, .unset = -1, .zero_word = "default",
	  .key = JOB_KEY_VETH, .wire = JOB_WIRE_ALWAYS },
	{ .name = "gso", .yaml = "gso", .json = "gso", .kind = JOB_PK_TOGGLE, I(gso),
	  .wmin = -1, .wmax = 1, .unset = -1, .zero_word = "default",
	  .key = JOB_KEY_VETH, .wire = JOB_WIRE_ALWAYS },
	{ .name = "ipv", .yaml = "ipv", .json = "ipv", .kind = JOB_PK_IPV, I(ipv),
	  .wmin = 4, .wmax = 6, .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS },
	{ .sopt = '4', .kind = JOB_PK_IPV, I(ipv), .flag_val = 4,
	  .help = "IPv4 (default)" },
	{ .sopt = '6', .kind = JOB_PK_IPV, I(ipv), .flag_val = 6, .help = "IPv6" },
	{ .name = "msg", .yaml = "msg", .json = "msg", .lopt = "msg", .sopt = 'm',
	  .metavar = "SIZE", .kind = JOB_PK_SIZE, U(msg_bytes), .min = 1,
	  .max = JOB_MAX_MSG, .wmax = JOB_MAX_MSG, .key = JOB_KEY_STREAM,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "bytes per send (tcp 128K, udp 1472/1452)" },
	/* only when set: the keys of samples taken without it stay */
	{ .name = "mss", .yaml = "mss", .json = "mss", .lopt = "mss",
	  .metavar = "BYTES", .kind = JOB_PK_INT, U(mss), .min = JOB_MIN_MSS,
	  .max = JOB_MAX_MSS, .wmin = JOB_MIN_MSS, .wmax = JOB_MAX_MSS,
	  .key = JOB_KEY_SET, .wire = JOB_WIRE_SET, .check = " bytes",
	  .help = "TCP_MAXSEG on both ends' tcp sockets before\n"
		  "connect and listen: the largest segment each\n"
		  "sends and the MSS it announces (88-65535;\n"
		  "default: the route's)" },
	{ .name = "mtu", .yaml = "mtu", .json = "mtu", .kind = JOB_PK_INT, U(mtu),
	  .min = 1280, .max = 65535, .wmax = 65535, .key = JOB_KEY_VETH,
	  .wire = JOB_WIRE_ALWAYS },
	{ .name = "nodelay", .yaml = "nodelay", .json = "nodelay", .lopt = "nodelay",
	  .sopt = 'D', .kind = JOB_PK_BOOL, B(nodelay), .key = JOB_KEY_ALWAYS,
	  .wire = JOB_WIRE_ALWAYS, .help = "TCP_NODELAY on both ends" },
	/* run --profile and a job's collect: profile set it */
	{ .name = "profile", .json = "profile", .kind = JOB_PK_BOOL, B(profile),
	  .key = JOB_KEY_SET, .wire = JOB_WIRE_SET },
	{ .name = "rate", .yaml = "rate", .json = "rate", .lopt = "rate",
	  .metavar = "R", .kind = JOB_PK_TPS, .type = JOB_PT_DOUBLE, FIELD(rate),
	  .min = 1, .max = (uint64_t)JOB_MAX_RATE, .wmax = (int64_t)JOB_MAX_RATE,
	  .key = JOB_KEY_RR, .wire = JOB_WIRE_ALWAYS,
	  .help = "open loop: R requests/s per flow; latency counts\n"
		  "from each request's intended send time" },
	{ .name = "rcvbuf", .yaml = "rcvbuf", .json = "rcvbuf", .lopt = "rcvbuf",
	  .metavar = "SIZE", BUFFER(rcvbuf), .key = JOB_KEY_ALWAYS,
	  .wire = JOB_WIRE_ALWAYS, .help = "local SO_RCVBUF" },
	{ .name = "remote_cpus", .yaml = "remote_cpus", .json = "remote_cpus",
	  .lopt = "remote-cpus", .metavar = "LIST", .kind = JOB_PK_CPUS,
	  .type = JOB_PT_CPUS, FIELD(remote_cpus), .zero_word = "none",
	  .key_zero = "none", .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS,
	  .help = "pin the server's workers" },
	{ .name = "remote_rcvbuf", .yaml = "remote_rcvbuf", .json = "remote_rcvbuf",
	  .lopt = "remote-rcvbuf", .metavar = "SIZE", BUFFER(remote_rcvbuf),
	  .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS,
	  .help = "the server's SO_RCVBUF" },
	{ .name = "remote_sndbuf", .yaml = "remote_sndbuf", .json = "remote_sndbuf",
	  .lopt = "remote-sndbuf", .metavar = "SIZE", BUFFER(remote_sndbuf),
	  .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS,
	  .help = "the server's SO_SNDBUF" },
	{ .name = "rmsg", .yaml = "rmsg", .json = "rmsg", .lopt = "rmsg",
	  .metavar = "SIZE", .kind = JOB_PK_SIZE, U(rmsg_bytes), .min = 1,
	  .max = JOB_MAX_MSG, .wmax = JOB_MAX_MSG, .key = JOB_KEY_TCP_STREAM,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "tcp streams: bytes per recv, netperf -M (default:\n"
		  "the message size, at least 128K)" },
	{ .sopt = 'r', .metavar = "REQ,RESP", .kind = JOB_PK_SIZE, U(req_bytes),
	  .cli = cli_rr, .help = "request/response sizes (default 1,1)" },
	{ .name = "req", .yaml = "req", .json = "req", .kind = JOB_PK_SIZE,
	  U(req_bytes), .min = 1, .max = JOB_MAX_MSG, .wmax = JOB_MAX_MSG,
	  .key = JOB_KEY_RR, .wire = JOB_WIRE_ALWAYS },
	{ .name = "resp", .yaml = "resp", .json = "resp", .kind = JOB_PK_SIZE,
	  U(resp_bytes), .min = 1, .max = JOB_MAX_MSG, .wmax = JOB_MAX_MSG,
	  .key = JOB_KEY_RR, .wire = JOB_WIRE_ALWAYS },
	/* always with tcp_sendfile: samples stored before it sent from a
	 * memfd, and stand apart from both kinds */
	{ .name = "sendfile_from", .yaml = "sendfile_from", .json = "sendfile_from",
	  .lopt = "sendfile-from", .metavar = "F", .kind = JOB_PK_SENDFILE,
	  I(sendfile_from), .key = JOB_KEY_SENDFILE, .wire = JOB_WIRE_SET,
	  .cli_expect = "expected tmp (a file in $TMPDIR or /tmp) or memfd",
	  .help = "tcp_sendfile: tmp (a file in $TMPDIR or /tmp,\n"
		  "as iperf3 -Z; default) or memfd (shmem pages)" },
	{ .name = "sndbuf", .yaml = "sndbuf", .json = "sndbuf", .lopt = "sndbuf",
	  .metavar = "SIZE", BUFFER(sndbuf), .key = JOB_KEY_ALWAYS,
	  .wire = JOB_WIRE_ALWAYS, .help = "local SO_SNDBUF (default: autotuned)" },
	/* both socket buffers of one end at once, and all four */
	{ .yaml = "buffers", .sopt = 's', .metavar = "SIZE", BUFFER(sndbuf),
	  .set = set_buffers, .help = "both local buffers" },
	{ .yaml = "remote_buffers", .sopt = 'S', .metavar = "SIZE",
	  BUFFER(remote_sndbuf), .set = set_rbuffers,
	  .help = "both remote buffers" },
	{ .yaml = "all_buffers", BUFFER(sndbuf), .set = set_allbuf },
	{ .name = "spin", .yaml = "spin", .json = "spin", .lopt = "spin",
	  .kind = JOB_PK_BOOL, B(spin), .key = JOB_KEY_SET, .wire = JOB_WIRE_SET,
	  .help = "both ends' workers poll their sockets and never\n"
		  "sleep in a wait (yielding the CPU when nothing\n"
		  "came): no wake-up in any transaction or batch;\n"
		  "each worker keeps its CPU busy" },
	{ .name = "streams", .yaml = "streams", .json = "streams", .lopt = "streams",
	  .sopt = 'n', .metavar = "N", .kind = JOB_PK_STREAMS, U(streams), .min = 1,
	  .max = JOB_MAX_STREAMS, .wmin = 1, .wmax = JOB_MAX_STREAMS,
	  .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS, .set = set_streams,
	  .cli = cli_streams,
	  .help = "flows per direction (default 1); N% of the cpus\n"
		  "this process may use, as lkp's nr_threads" },
	{ .name = "tbf_rate", .yaml = "tbf_rate", .json = "tbf_rate",
	  .kind = JOB_PK_BPS, U(tbf_rate_bps), .min = 1, .max = UINT64_MAX,
	  .wmax = INT64_MAX, .zero_word = "none", .key = JOB_KEY_VETH,
	  .wire = JOB_WIRE_ALWAYS },
	{ .name = "test", .yaml = "test", .json = "test", .kind = JOB_PK_TEST,
	  I(test), .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS },
	{ .name = "threads", .yaml = "threads", .json = "threads", .lopt = "threads",
	  .metavar = "N", .kind = JOB_PK_INT, U(threads), .min = 1,
	  .max = JOB_MAX_THREADS, .wmax = JOB_MAX_THREADS, .zero_word = "auto",
	  .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS,
	  .help = "workers per end (default min(flows, CPUs))" },
	{ .name = "topology", .yaml = "topology", .json = "topology",
	  .kind = JOB_PK_TOPOLOGY, .type = JOB_PT_STR, FIELD(topology),
	  .key = JOB_KEY_ALWAYS, .wire = JOB_WIRE_ALWAYS },
	/* only when set, like udp_gso */
	{ .name = "transfer", .yaml = "transfer", .json = "transfer",
	  .lopt = "transfer", .metavar = "SIZE", .kind = JOB_PK_SIZE,
	  U(transfer_bytes), .min = 1, .max = JOB_MAX_TRANSFER, .wmin = 1,
	  .wmax = JOB_MAX_TRANSFER, .zero_word = "off", .key = JOB_KEY_SET,
	  .wire = JOB_WIRE_SET,
	  .help = "tcp_stream --dir recv: the server sends transfers\n"
		  "of SIZE (a multiple of -m) and stops after a\n"
		  "whole one; the client times each, as lmbench's\n"
		  "bw_tcp -M (default off)" },
	{ .name = "tso", .yaml = "tso", .json = "tso", .kind = JOB_PK_TOGGLE, I(tso),
	  .wmin = -1, .wmax = 1, .unset = -1, .zero_word = "default",
	  .key = JOB_KEY_VETH, .wire = JOB_WIRE_ALWAYS },
	/* the udp offloads only when on: the keys of samples taken without
	 * them stay as they were, and such samples pool with later ones */
	{ .name = "udp_gro", .yaml = "udp_gro", .json = "udp_gro",
	  .lopt = "udp-gro", .kind = JOB_PK_BOOL, B(udp_gro), .key = JOB_KEY_SET,
	  .wire = JOB_WIRE_SET,
	  .help = "udp_stream receivers: UDP_GRO, take datagrams\n"
		  "the kernel kept coalesced in one read" },
	{ .name = "udp_gso", .yaml = "udp_gso", .json = "udp_gso",
	  .lopt = "udp-gso", .metavar = "SIZE", .kind = JOB_PK_SIZE, U(udp_gso),
	  .min = JOB_UDP_HDR_BYTES, .max = 65535, .wmax = 65535,
	  .zero_word = "off", .key = JOB_KEY_SET, .wire = JOB_WIRE_SET,
	  .cli_expect = "expected a datagram size of at least "
			STR(JOB_UDP_HDR_BYTES) " bytes",
	  .help = "udp_stream senders: UDP_SEGMENT, each -m send\n"
		  "leaves as datagrams of SIZE bytes (at most 64)" },
	/* not in the key: the CPU lists it resolves into are; what versions
	 * before it sent (absent) ran unpinned or as told */
	{ .yaml = "placement", .json = "placement", .lopt = "placement",
	  .metavar = "POLICY", .kind = JOB_PK_PLACEMENT, I(placement),
	  .unset = JOB_PLACE_FREE, .wire = JOB_WIRE_OPTIONAL,
	  .cli_expect = "expected split (client and server workers on distinct cpus), pair (each end on every cpu, a flow's two ends on one), auto (pair for tcp streams of 2 flows or more, else split) or free (not pinned)",
	  .help = "for an end not pinned above: auto (default:\n"
		  "pair for a tcp stream of 2 flows or more, else\n"
		  "split), split (client on the first half of\n"
		  "the allowed cpus, server on the rest), pair\n"
		  "(each end on every cpu: client and server\n"
		  "worker i on cpu i) or free (not pinned)" },
	{ .yaml = "timeout", .json = "rr_timeout_ns", .lopt = "timeout",
	  .metavar = "TIME", .kind = JOB_PK_TIMEOUT, I(rr_timeout_ns),
	  .min = NS_PER_MS, .max = 60 * NS_PER_S, .wmax = INT64_MAX,
	  .wire = JOB_WIRE_ALWAYS,
	  .help = "udp_rr: a reply later than this is lost (200ms)" },
	/* run control: recorded with each sample, not part of the key */
	{ .json = "duration_ns", .kind = JOB_PK_NS, I(duration_ns),
	  .wmax = INT64_MAX, .wire = JOB_WIRE_ALWAYS },
	{ .json = "warmup_ns", .kind = JOB_PK_NS, I(warmup_ns), .wmax = INT64_MAX,
	  .wire = JOB_WIRE_ALWAYS },
	{ .json = "interval_ns", .kind = JOB_PK_NS, I(interval_ns),
	  .wmax = INT64_MAX, .wire = JOB_WIRE_ALWAYS },
	{ .json = "warmup_auto", .kind = JOB_PK_BOOL, B(warmup_auto),
	  .wire = JOB_WIRE_OPTIONAL },
};

const size_t job_npdefs = sizeof(job_pdefs) / sizeof(job_pdefs[0]);

const struct job_pdef *job_pdef_by_yaml(const char *name)
{
	for (size_t i = 0; i < job_npdefs; i++)
		if (job_pdefs[i].yaml && !strcmp(job_pdefs[i].yaml, name))
			return &job_pdefs[i];
	return NULL;
}

const struct job_pdef *job_pdef_by_lopt(const char *name)
{
	for (size_t i = 0; i < job_npdefs; i++)
		if (job_pdefs[i].lopt && !strcmp(job_pdefs[i].lopt, name))
			return &job_pdefs[i];
	return NULL;
}

const struct job_pdef *job_pdef_by_sopt(int letter)
{
	for (size_t i = 0; i < job_npdefs; i++)
		if (letter && job_pdefs[i].sopt == letter)
			return &job_pdefs[i];
	return NULL;
}

bool job_valid_cc(const char *cc)
{
	size_t n = strlen(cc);

	if (n >= JOB_CC_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = cc[i];

		if (!(ch >= 'a' && ch <= 'z') && !(ch >= 'A' && ch <= 'Z') &&
		    !(ch >= '0' && ch <= '9') && ch != '_' && ch != '-')
			return false;
	}
	return true;
}

/* The field of p in c. */
static void *field(const struct job_pdef *p, const struct job_config *c)
{
	return (char *)c + p->off;
}

static int64_t get_int(const struct job_pdef *p, const struct job_config *c)
{
	const void *f = field(p, c);

	switch (p->size) {
	case 1:
		return *(const int8_t *)f;
	case 2:
		return *(const int16_t *)f;
	case 4:
		return *(const int32_t *)f;
	default:
		return *(const int64_t *)f;
	}
}

static uint64_t get_uint(const struct job_pdef *p, const struct job_config *c)
{
	const void *f = field(p, c);

	switch (p->size) {
	case 1:
		return *(const uint8_t *)f;
	case 2:
		return *(const uint16_t *)f;
	case 4:
		return *(const uint32_t *)f;
	default:
		return *(const uint64_t *)f;
	}
}

/* Store v in an integer field (signed or not: the same bytes). */
static void put_int(const struct job_pdef *p, struct job_config *c, uint64_t v)
{
	void *f = field(p, c);

	switch (p->size) {
	case 1:
		*(uint8_t *)f = (uint8_t)v;
		break;
	case 2:
		*(uint16_t *)f = (uint16_t)v;
		break;
	case 4:
		*(uint32_t *)f = (uint32_t)v;
		break;
	default:
		*(uint64_t *)f = v;
		break;
	}
}

/* Whether the kind's parsed value is in v->i (else v->u, d, s, cpus). */
static bool kind_in_i(enum job_pkind k)
{
	switch (k) {
	case JOB_PK_TEST:
	case JOB_PK_DIR:
	case JOB_PK_BOOL:
	case JOB_PK_IPV:
	case JOB_PK_PLACEMENT:
	case JOB_PK_TOGGLE:
	case JOB_PK_SENDFILE:
	case JOB_PK_NS:
		return true;
	default:
		return false;
	}
}

void job_pdef_set(const struct job_pdef *p, struct job_config *c,
		  const struct job_pval *v)
{
	if (p->set) {
		p->set(c, v);
		return;
	}
	switch (p->type) {
	case JOB_PT_BOOL:
		*(bool *)field(p, c) = v->i != 0;
		break;
	case JOB_PT_DOUBLE:
		*(double *)field(p, c) = v->d;
		break;
	case JOB_PT_STR:
		snprintf(field(p, c), p->size, "%s", v->s);
		break;
	case JOB_PT_CPUS: {
		struct base_cpulist *l = field(p, c);

		if (v->cpus)
			*l = *v->cpus;
		else
			l->n = 0;
		break;
	}
	default:
		put_int(p, c, kind_in_i(p->kind) ? (uint64_t)v->i : v->u);
		break;
	}
}

bool job_pdef_is_set(const struct job_pdef *p, const struct job_config *c)
{
	if (p->is_set)
		return p->is_set(c);
	switch (p->type) {
	case JOB_PT_BOOL:
		return *(const bool *)field(p, c);
	case JOB_PT_DOUBLE:
		return *(const double *)field(p, c) != 0;
	case JOB_PT_STR:
		return *(const char *)field(p, c) != '\0';
	case JOB_PT_CPUS:
		return ((const struct base_cpulist *)field(p, c))->n != 0;
	case JOB_PT_INT:
		return get_int(p, c) != p->unset;
	default:
		return get_uint(p, c) != (uint64_t)p->unset;
	}
}

bool job_pdef_in_key(const struct job_pdef *p, const struct job_config *c)
{
	bool stream = job_test_kind(c->test) == JOB_KIND_STREAM;

	if (!p->name)
		return false;
	switch (p->key) {
	case JOB_KEY_ALWAYS:
		return true;
	case JOB_KEY_SET:
		return job_pdef_is_set(p, c);
	case JOB_KEY_STREAM:
		return stream;
	case JOB_KEY_RR:
		return !stream;
	case JOB_KEY_UDP_STREAM:
		return stream && job_test_is_udp(c->test);
	case JOB_KEY_TCP_STREAM:
		return job_test_is_tcp_stream(c->test);
	case JOB_KEY_SENDFILE:
		return c->test == JOB_TEST_TCP_SENDFILE;
	case JOB_KEY_VETH:
		return job_config_is_veth(c);
	default:
		return false;
	}
}

/* An enum's name (NULL: the kind is not an enum). */
static const char *enum_name(enum job_pkind k, int64_t v)
{
	switch (k) {
	case JOB_PK_TEST:
		return job_test_name((enum job_test)v);
	case JOB_PK_DIR:
		return job_dir_name((enum job_dir)v);
	case JOB_PK_PLACEMENT:
		return job_placement_name((enum job_placement)v);
	case JOB_PK_SENDFILE:
		return job_sendfile_from_name((enum job_sendfile_from)v);
	default:
		return NULL;
	}
}

void job_pdef_key_value(const struct job_pdef *p, const struct job_config *c,
			char *buf, size_t len)
{
	const char *s;

	switch (p->type) {
	case JOB_PT_BOOL:
		snprintf(buf, len, "%s", *(const bool *)field(p, c) ? "1" : "0");
		return;
	case JOB_PT_DOUBLE:
		snprintf(buf, len, "%.15g", *(const double *)field(p, c));
		return;
	case JOB_PT_STR:
		s = field(p, c);
		snprintf(buf, len, "%s", !*s && p->key_zero ? p->key_zero : s);
		return;
	case JOB_PT_CPUS: {
		const struct base_cpulist *l = field(p, c);

		if (!l->n || base_format_cpulist(l, buf, len))
			snprintf(buf, len, "none");
		return;
	}
	case JOB_PT_INT:
		if (p->kind == JOB_PK_TOGGLE) {
			int64_t t = get_int(p, c);

			snprintf(buf, len, "%s", t < 0 ? "default" : t ? "on" : "off");
		} else if ((s = enum_name(p->kind, get_int(p, c)))) {
			snprintf(buf, len, "%s", s);
		} else {
			snprintf(buf, len, "%" PRId64, get_int(p, c));
		}
		return;
	default:
		if (!get_uint(p, c) && p->key_zero)
			snprintf(buf, len, "%s", p->key_zero);
		else
			snprintf(buf, len, "%" PRIu64, get_uint(p, c));
		return;
	}
}

int job_params_check(const struct job_config *c, struct base_err *err)
{
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];
		int64_t v;

		if (!p->check || !job_pdef_is_set(p, c))
			continue;
		v = p->type == JOB_PT_INT ? get_int(p, c) : (int64_t)get_uint(p, c);
		if (v < (int64_t)p->min || v > (int64_t)p->max)
			return base_err_set(err, -EINVAL,
					    "invalid %s %" PRId64 ": expected %" PRIu64
					    " to %" PRIu64 "%s",
					    p->name, v, p->min, p->max, p->check);
	}
	return 0;
}

/* A size for the CLI: "invalid --msg: ..." for text that is no size,
 * "invalid --msg '65M': expected at most 64M" above max. */
static int cli_size(const char *flag, const char *arg, uint64_t max,
		    uint64_t *out, struct base_err *err)
{
	struct base_err e;
	char lim[BASE_SIZE_STRLEN];

	if (base_parse_size(arg, out, &e))
		return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
	if (*out > max) {
		base_format_size(max, lim, sizeof(lim));
		return base_err_set(err, -EINVAL, "invalid %s '%s': expected at most %s",
				    flag, arg, lim);
	}
	return 0;
}

static int cli_u64(const char *flag, const char *arg, uint64_t min, uint64_t max,
		   uint64_t *out, struct base_err *err)
{
	struct base_err e;

	if (base_parse_u64(arg, min, max, out, &e))
		return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
	return 0;
}

/* "-n 8", or "200%": a share of the cpus, as lkp's nr_threads */
static int cli_streams(const struct job_pdef *p, const char *flag, const char *arg,
		       struct job_config *c, struct base_err *err)
{
	struct job_pval v = { 0 };
	size_t len = strlen(arg);
	char pct[16];

	if (len > 1 && arg[len - 1] == '%' && len - 1 < sizeof(pct)) {
		memcpy(pct, arg, len - 1);
		pct[len - 1] = '\0';
		if (base_parse_u64(pct, 1, JOB_MAX_STREAMS_PCT, &v.u, NULL))
			return base_err_set(err, -EINVAL,
					    "invalid %s '%s': expected a share of the cpus from 1%% to %d%%",
					    flag, arg, JOB_MAX_STREAMS_PCT);
		v.i = (int64_t)v.u;
	} else if (cli_u64(flag, arg, p->min, p->max, &v.u, err)) {
		return -EINVAL;
	}
	job_pdef_set(p, c, &v);
	return 0;
}

/* microseconds, or none */
static int cli_cpu_latency(const struct job_pdef *p, const char *flag, const char *arg,
			   struct job_config *c, struct base_err *err)
{
	struct job_pval v = { 0 };

	if (!strcmp(arg, p->zero_word))
		v.i = -1;
	else if (base_parse_u64(arg, p->min, p->max, &v.u, NULL))
		return base_err_set(err, -EINVAL,
				    "invalid %s '%s': expected microseconds from %" PRIu64
				    " to %" PRIu64 ", or %s",
				    flag, arg, p->min, p->max, p->zero_word);
	job_pdef_set(p, c, &v);
	return 0;
}

/* -r REQ,RESP: both sizes of a transaction */
static int cli_rr(const struct job_pdef *p, const char *flag, const char *arg,
		  struct job_config *c, struct base_err *err)
{
	const char *comma = strchr(arg, ',');
	char req[32], what[48];

	(void)p;
	if (!comma || (size_t)(comma - arg) >= sizeof(req))
		return base_err_set(err, -EINVAL,
				    "invalid %s '%s': expected REQ,RESP sizes like 1,1 or 64,1K",
				    flag, arg);
	snprintf(req, sizeof(req), "%.*s", (int)(comma - arg), arg);
	snprintf(what, sizeof(what), "%s (request)", flag);
	if (cli_size(what, req, JOB_MAX_MSG, &c->req_bytes, err))
		return -EINVAL;
	snprintf(what, sizeof(what), "%s (response)", flag);
	if (cli_size(what, comma + 1, JOB_MAX_MSG, &c->resp_bytes, err))
		return -EINVAL;
	if (!c->req_bytes || !c->resp_bytes)
		return base_err_set(err, -EINVAL,
				    "invalid %s '%s': sizes must be at least 1 byte",
				    flag, arg);
	return 0;
}

/* The kind's parse of a CLI value into v; messages name flag. */
static int cli_value(const struct job_pdef *p, const char *flag, const char *arg,
		     struct job_pval *v, struct base_err *err)
{
	struct base_err e;
	enum job_dir dir;
	enum job_placement pl;
	enum job_sendfile_from sf;

	switch (p->kind) {
	case JOB_PK_INT:
		if (base_parse_u64(arg, p->min, p->max, &v->u, &e))
			return p->cli_expect ?
				base_err_set(err, -EINVAL, "invalid %s '%s': %s", flag, arg, p->cli_expect) :
				base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
		return 0;
	case JOB_PK_SIZE:
	case JOB_PK_BUF:
		if (cli_size(flag, arg, p->max, &v->u, err))
			return -EINVAL;
		if (v->u >= p->min)
			return 0;
		if (p->min <= 1)
			return base_err_set(err, -EINVAL, "invalid %s '%s': expected at least 1 byte",
					    flag, arg);
		return base_err_set(err, -EINVAL, "invalid %s '%s': %s", flag, arg, p->cli_expect);
	case JOB_PK_CC:
		if (strlen(arg) >= p->size)
			return base_err_set(err, -EINVAL, "invalid %s '%s': %s", flag, arg,
					    p->cli_expect);
		snprintf(v->s, sizeof(v->s), "%s", arg);
		return 0;
	case JOB_PK_CPUS:
		v->cpus = malloc(sizeof(*v->cpus));
		if (!v->cpus)
			return base_err_set(err, -ENOMEM, "out of memory");
		if (base_parse_cpulist(arg, v->cpus, &e))
			return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
		return 0;
	case JOB_PK_TPS:
		if (base_parse_double(arg, (double)p->min, (double)p->max, &v->d, &e))
			return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
		return 0;
	case JOB_PK_TIMEOUT: {
		int64_t ns;

		if (base_parse_duration_ns(arg, &ns, &e))
			return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
		v->i = ns;
		v->u = (uint64_t)ns;
		return 0;
	}
	case JOB_PK_DIR:
		if (job_dir_parse(arg, &dir, &e))
			return base_err_set(err, -EINVAL, "invalid %s: %s", flag, e.msg);
		v->i = dir;
		return 0;
	case JOB_PK_PLACEMENT:
		if (job_placement_parse(arg, &pl))
			return base_err_set(err, -EINVAL, "invalid %s '%s': %s", flag, arg,
					    p->cli_expect);
		v->i = pl;
		return 0;
	case JOB_PK_SENDFILE:
		if (job_sendfile_from_parse(arg, &sf))
			return base_err_set(err, -EINVAL, "invalid %s '%s': %s", flag, arg,
					    p->cli_expect);
		v->i = sf;
		return 0;
	default:
		BUG("parameter kind without a CLI form");
	}
	return -EINVAL;
}

int job_pdef_cli(const struct job_pdef *p, const char *flag, const char *arg,
		 struct job_config *c, struct base_err *err)
{
	struct job_pval v = { 0 };
	int ret;

	if (p->cli)
		return p->cli(p, flag, arg, c, err);
	if (!p->metavar) {
		v.i = p->flag_val ? p->flag_val : 1;
		job_pdef_set(p, c, &v);
		return 0;
	}
	ret = cli_value(p, flag, arg, &v, err);
	if (!ret)
		job_pdef_set(p, c, &v);
	free(v.cpus);
	return ret;
}

bool job_params_known(const char *key)
{
	for (size_t i = 0; i < job_npdefs; i++)
		if (job_pdefs[i].json && !strcmp(job_pdefs[i].json, key))
			return true;
	return false;
}

/* The JSON form of p's value in c (new reference; NULL: no memory). */
static json_t *value_json(const struct job_pdef *p, const struct job_config *c)
{
	char cpus[BASE_CPU_MAX * 6];
	const char *s;

	switch (p->type) {
	case JOB_PT_BOOL:
		return json_boolean(*(const bool *)field(p, c));
	case JOB_PT_DOUBLE:
		return json_real(*(const double *)field(p, c));
	case JOB_PT_STR:
		return json_string(field(p, c));
	case JOB_PT_CPUS:
		if (base_format_cpulist(field(p, c), cpus, sizeof(cpus)))
			cpus[0] = '\0';
		return json_string(cpus);
	case JOB_PT_INT:
		if ((s = enum_name(p->kind, get_int(p, c))))
			return json_string(s);
		return json_integer((json_int_t)get_int(p, c));
	default:
		return json_integer((json_int_t)get_uint(p, c));
	}
}

int job_params_to_json(const struct job_config *c, json_t *j)
{
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];

		if (!p->json || !p->wire)
			continue;
		if (p->wire == JOB_WIRE_SET && !job_pdef_is_set(p, c))
			continue;
		if (json_object_set_new(j, p->json, value_json(p, c)))
			return -ENOMEM;
	}
	return 0;
}

/* A string field of p into *s. */
static int wire_str(const struct job_pdef *p, const json_t *v, const char **s,
		    struct base_err *err)
{
	if (!json_is_string(v))
		return base_err_set(err, -EINVAL,
				    "configuration field '%s': expected a string", p->json);
	*s = json_string_value(v);
	return 0;
}

/* The value of an enum or text field into out; 0 or -EINVAL. */
static int wire_text(const struct job_pdef *p, const json_t *v,
		     struct job_pval *out, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *s = NULL;
	enum job_test t;
	enum job_dir d;
	enum job_placement pl;
	enum job_sendfile_from sf;
	int ret;

	if ((ret = wire_str(p, v, &s, err)))
		return ret;
	switch (p->kind) {
	case JOB_PK_TEST:
		if ((ret = job_test_parse(s, &t, err)))
			return ret;
		out->i = t;
		return 0;
	case JOB_PK_DIR:
		if ((ret = job_dir_parse(s, &d, err)))
			return ret;
		out->i = d;
		return 0;
	case JOB_PK_PLACEMENT:
		if (job_placement_parse(s, &pl))
			return base_err_set(err, -EINVAL,
					    "configuration field '%s' = '%s': expected auto, split, pair or free",
					    p->json, base_quote(s, q));
		out->i = pl;
		return 0;
	case JOB_PK_SENDFILE:
		if (job_sendfile_from_parse(s, &sf))
			return base_err_set(err, -EINVAL,
					    "configuration field '%s' = '%s': expected tmp or memfd",
					    p->json, base_quote(s, q));
		out->i = sf;
		return 0;
	case JOB_PK_CPUS:
		if (!*s)
			return 0;
		out->cpus = malloc(sizeof(*out->cpus));
		if (!out->cpus)
			return base_err_set(err, -ENOMEM, "out of memory");
		return base_parse_cpulist(s, out->cpus, err);
	default: /* cc, topology */
		if (strlen(s) >= p->size || (p->kind == JOB_PK_CC && !job_valid_cc(s)))
			return base_err_set(err, -EINVAL,
					    "configuration field '%s': invalid name", p->json);
		snprintf(out->s, sizeof(out->s), "%s", s);
		return 0;
	}
}

/* One present wire field of p into out. */
static int wire_value(const struct job_pdef *p, const json_t *v,
		      struct job_pval *out, struct base_err *err)
{
	int64_t n;

	if (p->type == JOB_PT_BOOL) {
		if (!json_is_boolean(v))
			return base_err_set(err, -EINVAL,
					    "configuration field '%s': expected true or false",
					    p->json);
		out->i = json_is_true(v);
		return 0;
	}
	if (p->type == JOB_PT_DOUBLE) {
		if (!json_is_number(v) || !(json_number_value(v) >= (double)p->wmin &&
					    json_number_value(v) <= (double)p->wmax))
			return base_err_set(err, -EINVAL,
					    "configuration field '%s': expected a number from %g to %g",
					    p->json, (double)p->wmin, (double)p->wmax);
		out->d = json_number_value(v);
		return 0;
	}
	if (p->type == JOB_PT_STR || p->type == JOB_PT_CPUS || enum_name(p->kind, 0))
		return wire_text(p, v, out, err);
	if (!json_is_integer(v))
		return base_err_set(err, -EINVAL,
				    "configuration field '%s': expected an integer", p->json);
	n = json_integer_value(v);
	if (n < p->wmin || n > p->wmax)
		return base_err_set(err, -EINVAL,
				    "configuration field '%s' = %" PRId64
				    ": expected %" PRId64 " to %" PRId64,
				    p->json, n, p->wmin, p->wmax);
	if (p->kind == JOB_PK_IPV && n == 5)
		return base_err_set(err, -EINVAL,
				    "configuration field '%s' = 5: expected 4 or 6", p->json);
	if (kind_in_i(p->kind))
		out->i = n;
	else
		out->u = (uint64_t)n;
	return 0;
}

int job_params_from_json(const json_t *obj, struct job_config *c,
			 struct base_err *err)
{
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];
		const json_t *v;
		struct job_pval val = { 0 };
		int ret;

		if (!p->json || !p->wire)
			continue;
		v = json_object_get(obj, p->json);
		if (!v && p->wire == JOB_WIRE_ALWAYS &&
		    (p->type == JOB_PT_INT || p->type == JOB_PT_UINT) &&
		    !enum_name(p->kind, 0))
			return base_err_set(err, -EINVAL, "configuration lacks '%s'", p->json);
		if (!v && p->wire != JOB_WIRE_ALWAYS) {
			/* what versions before the field ran */
			if (p->type == JOB_PT_BOOL)
				*(bool *)field(p, c) = p->unset != 0;
			else
				put_int(p, c, (uint64_t)p->unset);
			continue;
		}
		ret = wire_value(p, v, &val, err);
		if (!ret)
			job_pdef_set(p, c, &val);
		free(val.cpus);
		if (ret)
			return ret;
	}
	return 0;
}
