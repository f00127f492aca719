// SPDX-License-Identifier: GPL-2.0-only
/* Test configurations: defaults, validation, canonical key, JSON form. */
#include "job/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/time.h"

static const char *const test_names[JOB_TEST_COUNT] = {
	[JOB_TEST_TCP_STREAM] = "tcp_stream",
	[JOB_TEST_UDP_STREAM] = "udp_stream",
	[JOB_TEST_TCP_RR] = "tcp_rr",
	[JOB_TEST_UDP_RR] = "udp_rr",
	[JOB_TEST_TCP_CRR] = "tcp_crr",
	[JOB_TEST_TCP_SENDFILE] = "tcp_sendfile",
	[JOB_TEST_TCP_CC] = "tcp_cc",
};

static const char *const dir_names[JOB_DIR_COUNT] = {
	[JOB_DIR_SEND] = "send",
	[JOB_DIR_RECV] = "recv",
	[JOB_DIR_BIDIR] = "bidir",
};

const char *job_test_name(enum job_test t)
{
	return (unsigned)t < JOB_TEST_COUNT ? test_names[t] : "?";
}

int job_test_parse(const char *s, enum job_test *t, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];

	for (int i = 0; i < JOB_TEST_COUNT; i++) {
		if (!strcmp(s, test_names[i])) {
			*t = i;
			return 0;
		}
	}
	return base_err_set(err, -EINVAL,
			    "unknown test '%s': expected " JOB_TEST_NAMES,
			    base_quote(s, q));
}

static const char *const placement_names[JOB_PLACE_COUNT] = {
	[JOB_PLACE_SPLIT] = "split",
	[JOB_PLACE_FREE] = "free",
	[JOB_PLACE_PAIR] = "pair",
	[JOB_PLACE_AUTO] = "auto",
};

const char *job_placement_name(enum job_placement p)
{
	return (unsigned)p < JOB_PLACE_COUNT ? placement_names[p] : "?";
}

static const char *const sendfile_from_names[JOB_SENDFILE_COUNT] = {
	[JOB_SENDFILE_UNSET] = "", [JOB_SENDFILE_TMP] = "tmp",
	[JOB_SENDFILE_MEMFD] = "memfd",
};

const char *job_sendfile_from_name(enum job_sendfile_from f)
{
	return (unsigned)f < JOB_SENDFILE_COUNT ? sendfile_from_names[f] : "?";
}

int job_sendfile_from_parse(const char *s, enum job_sendfile_from *out)
{
	for (int i = JOB_SENDFILE_TMP; i < JOB_SENDFILE_COUNT; i++) {
		if (!strcmp(s, sendfile_from_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int job_placement_parse(const char *s, enum job_placement *out)
{
	for (int i = 0; i < JOB_PLACE_COUNT; i++) {
		if (!strcmp(s, placement_names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

int job_parse_warmup(const char *s, int64_t *ns, bool *autow,
		     struct base_err *err)
{
	int64_t v = JOB_WARMUP_AUTO_MAX;
	char q[BASE_QUOTE_LEN];

	if (!strncmp(s, "auto", 4) && (!s[4] || s[4] == ':')) {
		if (s[4] && (base_parse_duration_ns(s + 5, &v, NULL) ||
			     v < NS_PER_S || v > JOB_WARMUP_MAX))
			return base_err_set(err, -EINVAL,
					    "invalid warm-up '%s': expected auto or auto:MAX with MAX from 1s to 1h",
					    base_quote(s, q));
		*ns = v;
		*autow = true;
		return 0;
	}
	if (base_parse_duration_ns(s, &v, NULL) || v < 0 || v > JOB_WARMUP_MAX)
		return base_err_set(err, -EINVAL,
				    "invalid warm-up '%s': expected a duration from 0 to 1h (like 2s), auto or auto:MAX",
				    base_quote(s, q));
	*ns = v;
	*autow = false;
	return 0;
}

const char *job_dir_name(enum job_dir d)
{
	return (unsigned)d < JOB_DIR_COUNT ? dir_names[d] : "?";
}

int job_dir_parse(const char *s, enum job_dir *d, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];

	for (int i = 0; i < JOB_DIR_COUNT; i++) {
		if (!strcmp(s, dir_names[i])) {
			*d = i;
			return 0;
		}
	}
	return base_err_set(err, -EINVAL,
			    "invalid direction '%s': expected send, recv or bidir",
			    base_quote(s, q));
}

bool job_test_is_udp(enum job_test t)
{
	return t == JOB_TEST_UDP_STREAM || t == JOB_TEST_UDP_RR;
}

bool job_test_is_tcp_stream(enum job_test t)
{
	return t == JOB_TEST_TCP_STREAM || t == JOB_TEST_TCP_SENDFILE;
}

enum job_kind job_test_kind(enum job_test t)
{
	switch (t) {
	case JOB_TEST_TCP_RR:
	case JOB_TEST_UDP_RR:
		return JOB_KIND_RR;
	case JOB_TEST_TCP_CRR:
	case JOB_TEST_TCP_CC:
		return JOB_KIND_CRR;
	default:
		return JOB_KIND_STREAM;
	}
}

bool job_test_speed_default(enum job_test t)
{
	return job_test_kind(t) == JOB_KIND_STREAM;
}

void job_config_init(struct job_config *c)
{
	memset(c, 0, sizeof(*c));
	c->test = JOB_TEST_TCP_STREAM;
	c->dir = JOB_DIR_SEND;
	c->streams = 1;
	c->ipv = 4;
	c->duration_ns = 10 * NS_PER_S;
	c->warmup_ns = 2 * NS_PER_S;
	c->rr_timeout_ns = 200 * NS_PER_MS;
	snprintf(c->topology, sizeof(c->topology), "loopback");
	c->gro = c->gso = c->tso = -1;
	c->placement = JOB_PLACE_AUTO;
}

bool job_config_is_veth(const struct job_config *c)
{
	return !strcmp(c->topology, "veth");
}

uint32_t job_config_nflows(const struct job_config *c)
{
	return c->dir == JOB_DIR_BIDIR ? 2 * c->streams : c->streams;
}

bool job_config_flow_c2s(const struct job_config *c, uint32_t id)
{
	/* request/response flows are driven by the client */
	if (job_test_kind(c->test) != JOB_KIND_STREAM)
		return true;
	switch (c->dir) {
	case JOB_DIR_SEND:
		return true;
	case JOB_DIR_RECV:
		return false;
	default:
		return id < c->streams;
	}
}

static bool valid_cc(const char *cc)
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

/* The request/response knobs: sizes, burst, open-loop rate. */
/*
 * A transfer size: tcp_stream from the server (dir recv), as bw_tcp moves
 * its bytes, in whole messages, as bw_tcp rounds -M up to a multiple of -m
 * (here the caller says which multiple). After the message size is set.
 */
static int finalize_transfer(const struct job_config *c, struct base_err *err)
{
	if (!c->transfer_bytes)
		return 0;
	if (c->test != JOB_TEST_TCP_STREAM)
		return base_err_set(err, -EINVAL,
				    "transfer applies to tcp_stream only, not %s",
				    job_test_name(c->test));
	if (c->dir != JOB_DIR_RECV)
		return base_err_set(err, -EINVAL,
				    "transfer applies to dir recv only, not %s (the server sends each transfer, as lmbench's bw_tcp)",
				    job_dir_name(c->dir));
	if (c->transfer_bytes > JOB_MAX_TRANSFER)
		return base_err_set(err, -EINVAL,
				    "invalid transfer %" PRIu64 ": expected 1 to %llu bytes",
				    c->transfer_bytes, JOB_MAX_TRANSFER);
	if (c->transfer_bytes % c->msg_bytes)
		return base_err_set(err, -EINVAL,
				    "invalid transfer %" PRIu64 " for %" PRIu64
				    "-byte messages: expected a multiple of the message size (msg)",
				    c->transfer_bytes, c->msg_bytes);
	return 0;
}

static int finalize_rr(struct job_config *c, uint64_t udp_max,
		       struct base_err *err)
{
	uint64_t max = job_test_is_udp(c->test) ? udp_max : JOB_MAX_MSG;

	if (c->dir != JOB_DIR_SEND)
		return base_err_set(err, -EINVAL,
				    "direction %s applies to stream tests only: request/response flows are driven by the client",
				    job_dir_name(c->dir));
	if (c->test == JOB_TEST_TCP_CC) {
		/* no data: the sizes stay 0, the engine's buffers 1 byte (an
		 * earlier pass set that) */
		if (c->req_bytes || c->resp_bytes)
			return base_err_set(err, -EINVAL,
					    "tcp_cc connects and closes, moving no data: no request,response sizes (-r)");
		if (c->msg_bytes > 1)
			return base_err_set(err, -EINVAL,
					    "message size applies to stream tests: tcp_cc moves no data");
		if (c->burst > 1 || c->rate)
			return base_err_set(err, -EINVAL,
					    "tcp_cc runs closed loop, one connection per flow at a time: no --burst or --rate");
		if (c->batch > 1)
			return base_err_set(err, -EINVAL, "batch applies to udp_stream only");
		c->burst = 1;
		c->msg_bytes = 1;
		c->batch = 1;
		return 0;
	}
	if (!c->req_bytes)
		c->req_bytes = 1;
	if (!c->resp_bytes)
		c->resp_bytes = 1;
	/* finalize may run twice (the server checks the client's): accept
	 * what an earlier pass set */
	if (c->msg_bytes && c->msg_bytes != (c->req_bytes > c->resp_bytes ?
					     c->req_bytes : c->resp_bytes))
		return base_err_set(err, -EINVAL,
				    "message size applies to stream tests: use request,response sizes (-r 64,1K)");
	if (c->batch > 1)
		return base_err_set(err, -EINVAL, "batch applies to udp_stream only");
	if (c->req_bytes > max || c->resp_bytes > max)
		return base_err_set(err, -EINVAL,
				    "invalid request,response sizes %" PRIu64 ",%" PRIu64
				    " for %s: expected 1 to %" PRIu64 " bytes",
				    c->req_bytes, c->resp_bytes,
				    job_test_name(c->test), max);
	if (!c->burst)
		c->burst = 1;
	if (c->burst > JOB_MAX_BURST)
		return base_err_set(err, -EINVAL,
				    "invalid burst %" PRIu32 ": expected 1 to %d",
				    c->burst, JOB_MAX_BURST);
	if (!(c->rate >= 0 && c->rate <= JOB_MAX_RATE))
		return base_err_set(err, -EINVAL,
				    "invalid rate %g: expected 0 (closed loop) to %g transactions/s per flow",
				    c->rate, JOB_MAX_RATE);
	if (c->rate && c->burst > 1)
		return base_err_set(err, -EINVAL,
				    "burst and rate exclude each other: the rate sets how many are in flight");
	if (c->test == JOB_TEST_TCP_CRR && (c->burst > 1 || c->rate))
		return base_err_set(err, -EINVAL,
				    "tcp_crr runs closed loop, one connection per flow at a time: no --burst or --rate");
	if (c->rr_timeout_ns < NS_PER_MS || c->rr_timeout_ns > 60 * NS_PER_S)
		return base_err_set(err, -EINVAL,
				    "invalid reply timeout %" PRId64
				    " ns: expected 1ms to 60s",
				    c->rr_timeout_ns);
	/* the stream fields stay fixed so that engines see one shape */
	c->msg_bytes = c->req_bytes > c->resp_bytes ? c->req_bytes : c->resp_bytes;
	c->batch = 1;
	return 0;
}

/* out = the allowed CPUs not in `taken`, in order. */
static void cpus_minus(const struct base_cpulist *allowed,
		       const struct base_cpulist *taken, struct base_cpulist *out)
{
	out->n = 0;
	for (uint16_t i = 0; i < allowed->n; i++) {
		bool used = false;

		for (uint16_t k = 0; k < taken->n && !used; k++)
			used = taken->cpu[k] == allowed->cpu[i];
		if (!used)
			out->cpu[out->n++] = allowed->cpu[i];
	}
}

/* The pair policy, neither end pinned: every allowed CPU for each end,
 * in the same order. */
static void pair(struct job_config *c, const struct base_cpulist *allowed)
{
	c->cpus = *allowed;
	c->remote_cpus = *allowed;
	c->placed = 4;
	c->placed_shared = true;
}

/*
 * The split policy: an end the user did not pin gets the allowed CPUs the
 * other end does not use (both unpinned: the first half and the second
 * half); with nothing left, it shares the other end's CPUs and says so.
 */
static void place(struct job_config *c, const struct base_cpulist *allowed)
{
	struct base_cpulist *rest;

	c->placed = 0;
	c->placed_shared = false;
	if (c->placement == JOB_PLACE_FREE || !allowed || !allowed->n ||
	    (c->cpus.n && c->remote_cpus.n))
		return;
	if (c->placement == JOB_PLACE_PAIR && !c->cpus.n && !c->remote_cpus.n) {
		pair(c, allowed);
		return;
	}
	rest = malloc(sizeof(*rest));
	if (!rest)
		return; /* unpinned: the placement is then recorded as free */
	if (!c->cpus.n && !c->remote_cpus.n) {
		uint16_t half = allowed->n / 2;

		if (!half) {
			c->cpus.n = c->remote_cpus.n = 1;
			c->cpus.cpu[0] = c->remote_cpus.cpu[0] = allowed->cpu[0];
			c->placed_shared = true;
		} else {
			c->cpus.n = half;
			memcpy(c->cpus.cpu, allowed->cpu, half * sizeof(c->cpus.cpu[0]));
			c->remote_cpus.n = allowed->n - half;
			memcpy(c->remote_cpus.cpu, allowed->cpu + half,
			       c->remote_cpus.n * sizeof(c->cpus.cpu[0]));
		}
		c->placed = 3;
	} else {
		struct base_cpulist *given = c->cpus.n ? &c->cpus : &c->remote_cpus;
		struct base_cpulist *other = c->cpus.n ? &c->remote_cpus : &c->cpus;

		cpus_minus(allowed, given, rest);
		if (!rest->n) {
			*rest = *given;
			c->placed_shared = true;
		}
		*other = *rest;
		c->placed = c->cpus.n && other == &c->cpus ? 1 : 2;
	}
	free(rest);
}

const char *job_config_placement_desc(const struct job_config *c)
{
	switch (c->placed) {
	case 4:
		return "pair";
	case 3:
		return c->placed_shared ? "split, shared cpu" : "split";
	case 2:
		return c->placed_shared ? "explicit client, server shares its cpus" :
					  "explicit client, split server";
	case 1:
		return c->placed_shared ? "explicit server, client shares its cpus" :
					  "explicit server, split client";
	default:
		if (c->cpus.n || c->remote_cpus.n)
			return "explicit";
		return "free";
	}
}

int job_config_finalize(struct job_config *c, const struct base_cpulist *allowed,
			struct base_err *err)
{
	bool udp = job_test_is_udp(c->test);
	uint64_t udp_max = c->ipv == 6 ? 65527 : 65507;
	char q[BASE_QUOTE_LEN];
	uint32_t nflows;
	int ret;

	if ((unsigned)c->test >= JOB_TEST_COUNT)
		return base_err_set(err, -EINVAL, "invalid test %d", c->test);
	if ((unsigned)c->dir >= JOB_DIR_COUNT)
		return base_err_set(err, -EINVAL, "invalid direction %d", c->dir);
	if (c->ipv != 4 && c->ipv != 6)
		return base_err_set(err, -EINVAL,
				    "invalid ip version %d: expected 4 or 6", c->ipv);
	if (c->streams_pct) {
		uint64_t n = ((uint64_t)allowed->n * c->streams_pct + 50) / 100;

		if (c->streams_pct > JOB_MAX_STREAMS_PCT)
			return base_err_set(err, -EINVAL,
					    "invalid streams %" PRIu32 "%%: expected 1%% to %d%% of the cpus",
					    c->streams_pct, JOB_MAX_STREAMS_PCT);
		if (n > JOB_MAX_STREAMS)
			return base_err_set(err, -EINVAL,
					    "invalid streams %" PRIu32 "%% of %u cpus: %" PRIu64
					    " flows, expected at most %d",
					    c->streams_pct, (unsigned)allowed->n, n, JOB_MAX_STREAMS);
		c->streams = n ? (uint32_t)n : 1;
		c->streams_pct = 0;
	}
	if (c->streams < 1 || c->streams > JOB_MAX_STREAMS)
		return base_err_set(err, -EINVAL,
				    "invalid streams %" PRIu32 ": expected 1 to %d",
				    c->streams, JOB_MAX_STREAMS);
	if (job_test_kind(c->test) != JOB_KIND_STREAM) {
		if ((ret = finalize_rr(c, udp_max, err)))
			return ret;
	} else if (c->req_bytes || c->resp_bytes || c->burst || c->rate) {
		return base_err_set(err, -EINVAL,
				    "request/response options apply to tcp_rr, udp_rr and tcp_crr only");
	}
	if (!c->msg_bytes)
		c->msg_bytes = udp ? (c->ipv == 6 ? 1452 : 1472) : 128 * 1024;
	if (job_test_kind(c->test) == JOB_KIND_STREAM && udp && (c->msg_bytes < JOB_UDP_HDR_BYTES || c->msg_bytes > udp_max))
		return base_err_set(err, -EINVAL,
				    "invalid message size %" PRIu64
				    " for udp over ipv%d: expected %d to %" PRIu64
				    " bytes",
				    c->msg_bytes, c->ipv, JOB_UDP_HDR_BYTES, udp_max);
	if (c->msg_bytes > JOB_MAX_MSG)
		return base_err_set(err, -EINVAL,
				    "invalid message size %" PRIu64
				    ": expected 1 to %llu bytes",
				    c->msg_bytes, JOB_MAX_MSG);
	if (job_test_kind(c->test) != JOB_KIND_STREAM) {
		/* finalize_rr set batch */
	} else if (udp) {
		if (!c->batch)
			c->batch = 32;
		if (c->batch > JOB_MAX_BATCH)
			return base_err_set(err, -EINVAL,
					    "invalid batch %" PRIu32
					    ": expected 1 to %d",
					    c->batch, JOB_MAX_BATCH);
	} else {
		c->batch = 1;
	}
	if (c->buf_offset < JOB_BUF_OFFSET_HEAP ||
	    c->buf_offset > JOB_MAX_BUF_OFFSET)
		return base_err_set(err, -EINVAL,
				    "invalid buf_offset %" PRId32
				    ": expected 0 to %d bytes past a page boundary",
				    c->buf_offset, JOB_MAX_BUF_OFFSET);
	if (c->hold_cpu_latency && c->cpu_latency_us > JOB_MAX_CPU_LATENCY_US)
		return base_err_set(err, -EINVAL,
				    "invalid cpu_latency %" PRIu32
				    ": expected 0 to %d microseconds",
				    c->cpu_latency_us, JOB_MAX_CPU_LATENCY_US);
	if ((unsigned)c->sendfile_from >= JOB_SENDFILE_COUNT)
		return base_err_set(err, -EINVAL,
				    "invalid sendfile_from %d: expected tmp or memfd",
				    (int)c->sendfile_from);
	if (c->sendfile_from && c->test != JOB_TEST_TCP_SENDFILE)
		return base_err_set(err, -EINVAL,
				    "sendfile_from applies to tcp_sendfile only, not %s",
				    job_test_name(c->test));
	if (c->test == JOB_TEST_TCP_SENDFILE && !c->sendfile_from)
		c->sendfile_from = JOB_SENDFILE_TMP;
	if ((c->udp_gso || c->udp_gro) &&
	    (!udp || job_test_kind(c->test) != JOB_KIND_STREAM))
		return base_err_set(err, -EINVAL,
				    "%s applies to udp_stream only",
				    c->udp_gso ? "udp_gso (UDP_SEGMENT)" : "udp_gro (UDP_GRO)");
	if (c->udp_gso) {
		uint64_t segs = (c->msg_bytes + c->udp_gso - 1) / c->udp_gso;
		uint32_t hdr = c->ipv == 6 ? 48 : 28;

		if (c->udp_gso < JOB_UDP_HDR_BYTES || c->udp_gso >= c->msg_bytes)
			return base_err_set(err, -EINVAL,
					    "invalid udp_gso %" PRIu32 " for %" PRIu64
					    "-byte sends: expected %d bytes up to less than the message size (-m), which it cuts into datagrams",
					    c->udp_gso, c->msg_bytes, JOB_UDP_HDR_BYTES);
		if (c->msg_bytes % c->udp_gso &&
		    c->msg_bytes % c->udp_gso < JOB_UDP_HDR_BYTES)
			return base_err_set(err, -EINVAL,
					    "invalid udp_gso %" PRIu32 " for %" PRIu64
					    "-byte sends: their last datagram would be %" PRIu64
					    " bytes, expected at least %d (each carries a sequence number)",
					    c->udp_gso, c->msg_bytes,
					    c->msg_bytes % c->udp_gso, JOB_UDP_HDR_BYTES);
		if (segs > JOB_MAX_GSO_SEGS)
			return base_err_set(err, -EINVAL,
					    "invalid udp_gso %" PRIu32 ": %" PRIu64
					    "-byte sends would be %" PRIu64
					    " datagrams each, expected at most %d (a larger udp_gso or a smaller -m)",
					    c->udp_gso, c->msg_bytes, segs, JOB_MAX_GSO_SEGS);
		if (job_config_is_veth(c) && c->udp_gso + hdr > (c->mtu ? c->mtu : 1500))
			return base_err_set(err, -EINVAL,
					    "invalid udp_gso %" PRIu32
					    ": a datagram and its %" PRIu32 " header bytes must fit the veth mtu %" PRIu32,
					    c->udp_gso, hdr, c->mtu ? c->mtu : 1500);
	}
	if (!valid_cc(c->cc))
		return base_err_set(err, -EINVAL,
				    "invalid congestion control '%s': expected a name like cubic or bbr",
				    base_quote(c->cc, q));
	if (udp && c->nodelay)
		return base_err_set(err, -EINVAL,
				    "nodelay applies to tcp tests only");
	if (udp && c->cc[0])
		return base_err_set(err, -EINVAL,
				    "congestion control applies to tcp tests only");
	if (c->rmsg_bytes && !job_test_is_tcp_stream(c->test))
		return base_err_set(err, -EINVAL,
				    "receive size applies to tcp_stream and tcp_sendfile only (udp reads whole datagrams)");
	/* netperf's receiver reads a socket buffer's worth, not a message:
	 * at least 128K unless --rmsg says otherwise */
	if (job_test_is_tcp_stream(c->test) && !c->rmsg_bytes)
		c->rmsg_bytes = c->msg_bytes > 128 * 1024 ? c->msg_bytes : 128 * 1024;
	if (c->rmsg_bytes > JOB_MAX_MSG)
		return base_err_set(err, -EINVAL,
				    "invalid receive size %" PRIu64 ": expected 1 to %llu bytes",
				    c->rmsg_bytes, JOB_MAX_MSG);
	if ((ret = finalize_transfer(c, err)))
		return ret;
	if (strcmp(c->topology, "loopback") && strcmp(c->topology, "veth"))
		return base_err_set(err, -EINVAL,
				    "invalid topology '%s': expected loopback or veth",
				    base_quote(c->topology, q));
	if (!job_config_is_veth(c) && (c->mtu || c->gro >= 0 || c->gso >= 0 ||
				       c->tso >= 0 || c->tbf_rate_bps || c->cpu_quota_pct))
		return base_err_set(err, -EINVAL,
				    "mtu, offloads, tbf rate and cpu quota need the veth topology");
	if (job_config_is_veth(c) && !c->mtu)
		c->mtu = 1500;
	if (c->mtu && (c->mtu < 1280 || c->mtu > 65535))
		return base_err_set(err, -EINVAL,
				    "invalid mtu %" PRIu32 ": expected 1280 to 65535", c->mtu);
	if (c->gro > 1 || c->gso > 1 || c->tso > 1 || c->gro < -1 || c->gso < -1 || c->tso < -1)
		return base_err_set(err, -EINVAL, "offload toggles are -1, 0 or 1");
	if (c->cpu_quota_pct > 100 * BASE_CPU_MAX)
		return base_err_set(err, -EINVAL,
				    "invalid cpu quota %" PRIu32 "%%: expected 1 to %d",
				    c->cpu_quota_pct, 100 * BASE_CPU_MAX);
	nflows = job_config_nflows(c);
	if (c->threads > JOB_MAX_THREADS)
		return base_err_set(err, -EINVAL,
				    "invalid threads %" PRIu32 ": expected 1 to %d",
				    c->threads, JOB_MAX_THREADS);
	if ((unsigned)c->placement >= JOB_PLACE_COUNT)
		return base_err_set(err, -EINVAL,
				    "invalid placement %d: expected auto, split, pair or free",
				    c->placement);
	/* a flow's two ends on one CPU let many streams use every CPU and
	 * respond to their buffers; one flow keeps an end per CPU, where
	 * a worker that waits can be judged starved (docs/methodology.md,
	 * "CPU placement") */
	if (c->placement == JOB_PLACE_AUTO)
		c->placement = job_test_kind(c->test) == JOB_KIND_STREAM && nflows >= 2 ?
				       JOB_PLACE_PAIR :
				       JOB_PLACE_SPLIT;
	place(c, allowed);
	if (!c->threads) {
		/* one worker per CPU an end may use, at most one per flow */
		uint32_t cpus = allowed && allowed->n ? allowed->n : 1;

		if (c->cpus.n || c->remote_cpus.n)
			cpus = c->cpus.n > c->remote_cpus.n ? c->cpus.n : c->remote_cpus.n;
		c->threads = nflows < cpus ? nflows : cpus;
		if (c->threads > JOB_MAX_THREADS)
			c->threads = JOB_MAX_THREADS;
	}
	if (c->threads > nflows)
		c->threads = nflows;
	if (c->duration_ns < 100 * NS_PER_MS || c->duration_ns > 86400 * NS_PER_S)
		return base_err_set(err, -EINVAL,
				    "invalid duration %" PRId64
				    " ns: expected 100ms to 24h",
				    c->duration_ns);
	if (c->warmup_ns < 0 || c->warmup_ns > 3600 * NS_PER_S)
		return base_err_set(err, -EINVAL,
				    "invalid warm-up %" PRId64 " ns: expected 0 to 1h",
				    c->warmup_ns);
	if (c->warmup_auto && c->warmup_ns < NS_PER_S)
		return base_err_set(err, -EINVAL,
				    "invalid warm-up bound %" PRId64 " ns: auto needs at least 1s",
				    c->warmup_ns);
	if (c->interval_ns && (c->interval_ns < 100 * NS_PER_MS ||
			       c->interval_ns > c->duration_ns))
		return base_err_set(err, -EINVAL,
				    "invalid interval %" PRId64
				    " ns: expected 100ms up to the duration",
				    c->interval_ns);
	return 0;
}

static const char *toggle(int8_t t)
{
	return t < 0 ? "default" : t ? "on" : "off";
}

static void fmt_buf(uint64_t v, char *buf, size_t len)
{
	if (v)
		snprintf(buf, len, "%" PRIu64, v);
	else
		snprintf(buf, len, "auto");
}

static void fmt_cpus(const struct base_cpulist *l, char *buf, size_t len)
{
	if (!l->n || base_format_cpulist(l, buf, len))
		snprintf(buf, len, "none");
}

void job_config_each_param(const struct job_config *c,
			   void (*fn)(void *ctx, const char *name,
				      const char *value),
			   void *ctx)
{
	char v[BASE_CPU_MAX * 6];

	bool stream = job_test_kind(c->test) == JOB_KIND_STREAM;
	bool veth = job_config_is_veth(c);

	/* alphabetical: this order is the canonical key */
	if (stream && job_test_is_udp(c->test)) {
		snprintf(v, sizeof(v), "%" PRIu32, c->batch);
		fn(ctx, "batch", v);
	}
	/* every sample since the buffers are page-aligned has it; those
	 * stored before (malloc'd buffers) keep their keys and stand apart */
	if (c->buf_offset >= 0) {
		snprintf(v, sizeof(v), "%" PRId32, c->buf_offset);
		fn(ctx, "buf_offset", v);
	}
	if (!stream) {
		snprintf(v, sizeof(v), "%" PRIu32, c->burst);
		fn(ctx, "burst", v);
	}
	fn(ctx, "cc", c->cc[0] ? c->cc : "default");
	/* only when held: every sample before and without it keeps its key */
	if (c->hold_cpu_latency) {
		snprintf(v, sizeof(v), "%" PRIu32, c->cpu_latency_us);
		fn(ctx, "cpu_latency", v);
	}
	if (veth) {
		snprintf(v, sizeof(v), "%" PRIu32, c->cpu_quota_pct);
		fn(ctx, "cpu_quota", v);
	}
	fmt_cpus(&c->cpus, v, sizeof(v));
	fn(ctx, "cpus", v);
	if (stream)
		fn(ctx, "dir", job_dir_name(c->dir));
	if (veth)
		fn(ctx, "gro", toggle(c->gro));
	if (veth)
		fn(ctx, "gso", toggle(c->gso));
	snprintf(v, sizeof(v), "%d", c->ipv);
	fn(ctx, "ipv", v);
	if (stream) {
		snprintf(v, sizeof(v), "%" PRIu64, c->msg_bytes);
		fn(ctx, "msg", v);
	}
	if (veth) {
		snprintf(v, sizeof(v), "%" PRIu32, c->mtu);
		fn(ctx, "mtu", v);
	}
	fn(ctx, "nodelay", c->nodelay ? "1" : "0");
	/* only when on, like udp_gro below */
	if (c->profile)
		fn(ctx, "profile", "1");
	if (!stream) {
		snprintf(v, sizeof(v), "%.15g", c->rate);
		fn(ctx, "rate", v);
	}
	fmt_buf(c->rcvbuf, v, sizeof(v));
	fn(ctx, "rcvbuf", v);
	fmt_cpus(&c->remote_cpus, v, sizeof(v));
	fn(ctx, "remote_cpus", v);
	fmt_buf(c->remote_rcvbuf, v, sizeof(v));
	fn(ctx, "remote_rcvbuf", v);
	fmt_buf(c->remote_sndbuf, v, sizeof(v));
	fn(ctx, "remote_sndbuf", v);
	if (job_test_is_tcp_stream(c->test)) {
		snprintf(v, sizeof(v), "%" PRIu64, c->rmsg_bytes);
		fn(ctx, "rmsg", v);
	}
	if (!stream) {
		snprintf(v, sizeof(v), "%" PRIu64, c->req_bytes);
		fn(ctx, "req", v);
		snprintf(v, sizeof(v), "%" PRIu64, c->resp_bytes);
		fn(ctx, "resp", v);
	}
	/* always with tcp_sendfile: samples stored before it sent from a
	 * memfd, and stand apart from both kinds */
	if (c->test == JOB_TEST_TCP_SENDFILE)
		fn(ctx, "sendfile_from", job_sendfile_from_name(c->sendfile_from));
	fmt_buf(c->sndbuf, v, sizeof(v));
	fn(ctx, "sndbuf", v);
	/* only when on, like udp_gro below */
	if (c->spin)
		fn(ctx, "spin", "1");
	snprintf(v, sizeof(v), "%" PRIu32, c->streams);
	fn(ctx, "streams", v);
	if (veth) {
		snprintf(v, sizeof(v), "%" PRIu64, c->tbf_rate_bps);
		fn(ctx, "tbf_rate", v);
	}
	fn(ctx, "test", job_test_name(c->test));
	snprintf(v, sizeof(v), "%" PRIu32, c->threads);
	fn(ctx, "threads", v);
	fn(ctx, "topology", c->topology);
	/* only when set, like udp_gso below */
	if (c->transfer_bytes) {
		snprintf(v, sizeof(v), "%" PRIu64, c->transfer_bytes);
		fn(ctx, "transfer", v);
	}
	if (veth)
		fn(ctx, "tso", toggle(c->tso));
	/* only when on: the keys of samples taken without them stay as they
	 * were, and such samples pool with later ones */
	if (c->udp_gro)
		fn(ctx, "udp_gro", "1");
	if (c->udp_gso) {
		snprintf(v, sizeof(v), "%" PRIu32, c->udp_gso);
		fn(ctx, "udp_gso", v);
	}
}

struct key_ctx {
	char *buf;
	size_t len, off;
	int ret;
};

static void key_add(void *ctx, const char *name, const char *value)
{
	struct key_ctx *k = ctx;
	int n;

	if (k->ret)
		return;
	n = snprintf(k->buf + k->off, k->len - k->off, "%s%s=%s",
		     k->off ? " " : "", name, value);
	if (n < 0 || (size_t)n >= k->len - k->off)
		k->ret = -ENOSPC;
	else
		k->off += (size_t)n;
}

int job_config_key(const struct job_config *c, char *buf, size_t len)
{
	struct key_ctx k = { .buf = buf, .len = len };

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	job_config_each_param(c, key_add, &k);
	return k.ret;
}

bool job_key_next(const char **s, struct job_key_pair *kp)
{
	const char *eq;

	while (**s == ' ')
		(*s)++;
	if (!**s)
		return false;
	kp->p = *s;
	kp->all = strcspn(*s, " ");
	eq = memchr(*s, '=', kp->all);
	kp->name = eq ? (size_t)(eq - *s) : kp->all;
	*s += kp->all;
	return true;
}

const char *job_key_value(const char *key, const char *name, size_t *len)
{
	size_t nl = strlen(name);
	struct job_key_pair kp;

	while (job_key_next(&key, &kp)) {
		if (kp.name == nl && kp.all > nl && !memcmp(kp.p, name, nl)) {
			*len = kp.all - nl - 1;
			return kp.p + nl + 1;
		}
	}
	return NULL;
}

/* A pair's value, "(none)" for a pair that is not there. */
static const char *pair_value(const struct job_key_pair *kp, int *vlen)
{
	if (!kp) {
		*vlen = (int)strlen("(none)");
		return "(none)";
	}
	if (kp->name == kp->all) {
		*vlen = 0;
		return kp->p + kp->all;
	}
	*vlen = (int)(kp->all - kp->name - 1);
	return kp->p + kp->name + 1;
}

/* Append "name A -> B" to out (", " between), at most len in all. */
static void diff_add(char *out, size_t len, size_t *used, const struct job_key_pair *name,
		     const struct job_key_pair *a, const struct job_key_pair *b)
{
	int n, la, lb;
	const char *va = pair_value(a, &la), *vb = pair_value(b, &lb);

	if (*used >= len)
		return;
	n = snprintf(out + *used, len - *used, "%s%.*s %.*s -> %.*s",
		     *used ? ", " : "", (int)name->name, name->p, la, va, lb, vb);
	if (n < 0 || (size_t)n >= len - *used)
		*used = len;
	else
		*used += (size_t)n;
}

size_t job_key_diff(const char *a, const char *b, char *out, size_t len)
{
	struct job_key_pair pa, pb;
	bool ha, hb;
	size_t n = 0, used = 0;

	if (len)
		out[0] = '\0';
	ha = job_key_next(&a, &pa);
	hb = job_key_next(&b, &pb);
	while (ha || hb) {
		int c;

		if (!ha)
			c = 1;
		else if (!hb)
			c = -1;
		else {
			size_t m = pa.name < pb.name ? pa.name : pb.name;

			c = strncmp(pa.p, pb.p, m);
			if (!c)
				c = pa.name < pb.name ? -1 : pa.name > pb.name;
		}
		if (c < 0) {
			diff_add(out, len, &used, &pa, &pa, NULL);
			n++;
			ha = job_key_next(&a, &pa);
		} else if (c > 0) {
			diff_add(out, len, &used, &pb, NULL, &pb);
			n++;
			hb = job_key_next(&b, &pb);
		} else {
			if (pa.all != pb.all || memcmp(pa.p, pb.p, pa.all)) {
				diff_add(out, len, &used, &pa, &pa, &pb);
				n++;
			}
			ha = job_key_next(&a, &pa);
			hb = job_key_next(&b, &pb);
		}
	}
	return n;
}

/* Whether the canonical key holds the pair kp, as a whole pair. */
static bool key_has(const char *key, const struct job_key_pair *kp)
{
	struct job_key_pair q;

	while (job_key_next(&key, &q))
		if (q.all == kp->all && !memcmp(q.p, kp->p, kp->all))
			return true;
	return false;
}

/* Append the pair to out (joined by single spaces, cut to fit len). */
static void pair_add(char *out, size_t len, size_t *used, const struct job_key_pair *kp)
{
	int w;

	if (*used >= len)
		return;
	w = snprintf(out + *used, len - *used, "%s%.*s", *used ? " " : "", (int)kp->all, kp->p);
	if (w > 0)
		*used = *used + (size_t)w < len ? *used + (size_t)w : len;
}

size_t job_keys_common(const char *const *keys, size_t n, char *out, size_t len)
{
	const char *k = n ? keys[0] : "";
	struct job_key_pair kp;
	size_t used = 0, count = 0;

	if (len)
		out[0] = '\0';
	while (job_key_next(&k, &kp)) {
		size_t i = 1;

		while (i < n && key_has(keys[i], &kp))
			i++;
		if (i == n) {
			pair_add(out, len, &used, &kp);
			count++;
		}
	}
	return count;
}

bool job_key_holds(const char *key, const char *pairs)
{
	struct job_key_pair kp;

	while (job_key_next(&pairs, &kp))
		if (!key_has(key, &kp))
			return false;
	return true;
}

void job_key_without(const char *key, const char *common, char *out, size_t len)
{
	struct job_key_pair kp;
	size_t used = 0;

	if (len)
		out[0] = '\0';
	while (job_key_next(&key, &kp))
		if (!key_has(common, &kp))
			pair_add(out, len, &used, &kp);
}

json_t *job_config_to_json(const struct job_config *c)
{
	json_t *j;
	char cpus[BASE_CPU_MAX * 6], rcpus[BASE_CPU_MAX * 6];

	if (base_format_cpulist(&c->cpus, cpus, sizeof(cpus)))
		cpus[0] = '\0';
	if (base_format_cpulist(&c->remote_cpus, rcpus, sizeof(rcpus)))
		rcpus[0] = '\0';
	j = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:i, s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:s, s:I, s:i, s:i, s:i, s:I, s:I, s:s, s:b}",
			 "test", job_test_name(c->test),
			 "dir", job_dir_name(c->dir),
			 "streams", (json_int_t)c->streams,
			 "threads", (json_int_t)c->threads,
			 "msg", (json_int_t)c->msg_bytes,
			 "sndbuf", (json_int_t)c->sndbuf,
			 "rcvbuf", (json_int_t)c->rcvbuf,
			 "remote_sndbuf", (json_int_t)c->remote_sndbuf,
			 "remote_rcvbuf", (json_int_t)c->remote_rcvbuf,
			 "nodelay", c->nodelay,
			 "ipv", c->ipv,
			 "cc", c->cc,
			 "batch", (json_int_t)c->batch,
			 "cpus", cpus,
			 "remote_cpus", rcpus,
			 "duration_ns", (json_int_t)c->duration_ns,
			 "warmup_ns", (json_int_t)c->warmup_ns,
			 "interval_ns", (json_int_t)c->interval_ns,
			 "req", (json_int_t)c->req_bytes,
			 "resp", (json_int_t)c->resp_bytes,
			 "burst", (json_int_t)c->burst,
			 "rate", c->rate,
			 "rr_timeout_ns", (json_int_t)c->rr_timeout_ns,
			 "rmsg", (json_int_t)c->rmsg_bytes,
			 "topology", c->topology, "mtu", (json_int_t)c->mtu,
			 "gro", (int)c->gro, "gso", (int)c->gso, "tso", (int)c->tso,
			 "tbf_rate", (json_int_t)c->tbf_rate_bps,
			 "cpu_quota", (json_int_t)c->cpu_quota_pct,
			 "placement", job_placement_name(c->placement),
			 "warmup_auto", c->warmup_auto);
	/* the udp offloads only when on, as in the key: a peer that predates
	 * them reads every configuration it can run */
	if (j && c->udp_gso)
		json_object_set_new(j, "udp_gso", json_integer(c->udp_gso));
	if (j && c->udp_gro)
		json_object_set_new(j, "udp_gro", json_true());
	if (j && c->profile)
		json_object_set_new(j, "profile", json_true());
	/* only when on: a peer that predates it refuses the field, where it
	 * would otherwise sleep under a key that says it spun */
	if (j && c->spin)
		json_object_set_new(j, "spin", json_true());
	/* a peer that predates it refuses the field: it would send from a
	 * memfd under a key that says otherwise */
	if (j && c->sendfile_from)
		json_object_set_new(j, "sendfile_from",
				    json_string(job_sendfile_from_name(c->sendfile_from)));
	/* likewise: a peer that predates it would use a malloc'd buffer */
	if (j && c->buf_offset >= 0)
		json_object_set_new(j, "buf_offset", json_integer(c->buf_offset));
	/* likewise: a peer that predates it would not hold the request */
	if (j && c->hold_cpu_latency)
		json_object_set_new(j, "cpu_latency", json_integer(c->cpu_latency_us));
	/* likewise: a peer that predates it would stop mid-transfer */
	if (j && c->transfer_bytes)
		json_object_set_new(j, "transfer", json_integer((json_int_t)c->transfer_bytes));
	return j;
}

static int get_int(const json_t *obj, const char *key, int64_t min,
		   int64_t max, int64_t *out, struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);

	if (!v)
		return base_err_set(err, -EINVAL, "configuration lacks '%s'", key);
	if (!json_is_integer(v))
		return base_err_set(err, -EINVAL,
				    "configuration field '%s': expected an integer",
				    key);
	*out = json_integer_value(v);
	if (*out < min || *out > max)
		return base_err_set(err, -EINVAL,
				    "configuration field '%s' = %" PRId64
				    ": expected %" PRId64 " to %" PRId64,
				    key, *out, min, max);
	return 0;
}

/* A field that may be absent (false, as in what versions before it sent)
 * or true or false. */
static int get_opt_bool(const json_t *obj, const char *key, bool *out,
			struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);

	if (v && !json_is_boolean(v))
		return base_err_set(err, -EINVAL,
				    "configuration field '%s': expected true or false",
				    key);
	*out = json_is_true(v);
	return 0;
}

static int get_str(const json_t *obj, const char *key, const char **out,
		   struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);

	if (!v || !json_is_string(v))
		return base_err_set(err, -EINVAL,
				    "configuration field '%s': expected a string",
				    key);
	*out = json_string_value(v);
	return 0;
}

int job_config_from_json(const json_t *obj, struct job_config *c,
			 struct base_err *err)
{
	static const char *const known[] = {
		"test", "dir", "streams", "threads", "msg", "sndbuf",
		"rcvbuf", "remote_sndbuf", "remote_rcvbuf", "nodelay", "ipv",
		"cc", "batch", "cpus", "remote_cpus", "duration_ns",
		"warmup_ns", "interval_ns", "req", "resp", "burst", "rate",
		"rr_timeout_ns", "rmsg", "topology", "mtu", "gro", "gso", "tso",
		"tbf_rate", "cpu_quota", "placement", "warmup_auto",
		"udp_gso", "udp_gro", "sendfile_from", "buf_offset", "profile",
		"cpu_latency", "spin", "transfer",
	};
	const char *key, *s = NULL;
	char q[BASE_QUOTE_LEN];
	const json_t *v;
	int64_t n;
	int ret;

	if (!json_is_object(obj))
		return base_err_set(err, -EINVAL,
				    "configuration: expected a json object");
	json_object_foreach((json_t *)obj, key, v) {
		size_t i;

		for (i = 0; i < ARRAY_SIZE(known); i++)
			if (!strcmp(key, known[i]))
				break;
		if (i == ARRAY_SIZE(known))
			return base_err_set(err, -EINVAL,
					    "configuration has unknown field '%s'",
					    base_quote(key, q));
	}
	job_config_init(c);
	if ((ret = get_str(obj, "test", &s, err)) ||
	    (ret = job_test_parse(s, &c->test, err)) ||
	    (ret = get_str(obj, "dir", &s, err)) ||
	    (ret = job_dir_parse(s, &c->dir, err)))
		return ret;
#define INT_FIELD(name, field, min, max)                                      \
	do {                                                                  \
		if ((ret = get_int(obj, name, min, max, &n, err)))            \
			return ret;                                           \
		c->field = n;                                                 \
	} while (0)
	INT_FIELD("streams", streams, 1, JOB_MAX_STREAMS);
	INT_FIELD("threads", threads, 0, JOB_MAX_THREADS);
	INT_FIELD("msg", msg_bytes, 0, (int64_t)JOB_MAX_MSG);
	INT_FIELD("sndbuf", sndbuf, 0, INT32_MAX);
	INT_FIELD("rcvbuf", rcvbuf, 0, INT32_MAX);
	INT_FIELD("remote_sndbuf", remote_sndbuf, 0, INT32_MAX);
	INT_FIELD("remote_rcvbuf", remote_rcvbuf, 0, INT32_MAX);
	INT_FIELD("ipv", ipv, 4, 6);
	if (c->ipv == 5)
		return base_err_set(err, -EINVAL,
				    "configuration field 'ipv' = 5: expected 4 or 6");
	INT_FIELD("batch", batch, 0, JOB_MAX_BATCH);
	INT_FIELD("duration_ns", duration_ns, 0, INT64_MAX);
	INT_FIELD("warmup_ns", warmup_ns, 0, INT64_MAX);
	INT_FIELD("interval_ns", interval_ns, 0, INT64_MAX);
	INT_FIELD("req", req_bytes, 0, (int64_t)JOB_MAX_MSG);
	INT_FIELD("resp", resp_bytes, 0, (int64_t)JOB_MAX_MSG);
	INT_FIELD("burst", burst, 0, JOB_MAX_BURST);
	INT_FIELD("rr_timeout_ns", rr_timeout_ns, 0, INT64_MAX);
	INT_FIELD("rmsg", rmsg_bytes, 0, (int64_t)JOB_MAX_MSG);
	INT_FIELD("mtu", mtu, 0, 65535);
	INT_FIELD("gro", gro, -1, 1);
	INT_FIELD("gso", gso, -1, 1);
	INT_FIELD("tso", tso, -1, 1);
	INT_FIELD("tbf_rate", tbf_rate_bps, 0, INT64_MAX);
	INT_FIELD("cpu_quota", cpu_quota_pct, 0, 100 * BASE_CPU_MAX);
	/* optional: absent is off (documents from before they existed) */
	if (json_object_get(obj, "udp_gso"))
		INT_FIELD("udp_gso", udp_gso, 0, 65535);
	/* absent: what older versions ran, a malloc'd buffer */
	c->buf_offset = JOB_BUF_OFFSET_HEAP;
	if (json_object_get(obj, "buf_offset"))
		INT_FIELD("buf_offset", buf_offset, 0, JOB_MAX_BUF_OFFSET);
	/* absent: off */
	if (json_object_get(obj, "transfer"))
		INT_FIELD("transfer", transfer_bytes, 1, (int64_t)JOB_MAX_TRANSFER);
	/* absent: not held */
	if (json_object_get(obj, "cpu_latency")) {
		INT_FIELD("cpu_latency", cpu_latency_us, 0, JOB_MAX_CPU_LATENCY_US);
		c->hold_cpu_latency = true;
	}
	if ((ret = get_str(obj, "topology", &s, err)))
		return ret;
	if (strlen(s) >= sizeof(c->topology))
		return base_err_set(err, -EINVAL, "configuration field 'topology': invalid name");
	snprintf(c->topology, sizeof(c->topology), "%s", s);
#undef INT_FIELD
	v = json_object_get(obj, "rate");
	if (!json_is_number(v) || !(json_number_value(v) >= 0 &&
				    json_number_value(v) <= JOB_MAX_RATE))
		return base_err_set(err, -EINVAL,
				    "configuration field 'rate': expected a number from 0 to %g",
				    JOB_MAX_RATE);
	c->rate = json_number_value(v);
	v = json_object_get(obj, "nodelay");
	if (!json_is_boolean(v))
		return base_err_set(err, -EINVAL,
				    "configuration field 'nodelay': expected true or false");
	c->nodelay = json_is_true(v);
	if ((ret = get_str(obj, "cc", &s, err)))
		return ret;
	if (strlen(s) >= sizeof(c->cc) || !valid_cc(s))
		return base_err_set(err, -EINVAL,
				    "configuration field 'cc': invalid name");
	snprintf(c->cc, sizeof(c->cc), "%s", s);
	if ((ret = get_str(obj, "cpus", &s, err)))
		return ret;
	if (*s && (ret = base_parse_cpulist(s, &c->cpus, err)))
		return ret;
	if ((ret = get_str(obj, "remote_cpus", &s, err)))
		return ret;
	if (*s && (ret = base_parse_cpulist(s, &c->remote_cpus, err)))
		return ret;
	/* absent: not profiled (and so were those stored before the field);
	 * the workers slept in their waits (spin) */
	if ((ret = get_opt_bool(obj, "warmup_auto", &c->warmup_auto, err)) ||
	    (ret = get_opt_bool(obj, "udp_gro", &c->udp_gro, err)) ||
	    (ret = get_opt_bool(obj, "profile", &c->profile, err)) ||
	    (ret = get_opt_bool(obj, "spin", &c->spin, err)))
		return ret;
	/* absent: what older versions ran, a memfd */
	v = json_object_get(obj, "sendfile_from");
	if (!v && c->test == JOB_TEST_TCP_SENDFILE)
		c->sendfile_from = JOB_SENDFILE_MEMFD;
	if (v && ((ret = get_str(obj, "sendfile_from", &s, err)) ||
		  job_sendfile_from_parse(s, &c->sendfile_from)))
		return ret ? ret : base_err_set(err, -EINVAL,
						"configuration field 'sendfile_from' = '%s': expected tmp or memfd",
						base_quote(s, q));
	/* absent in what older versions stored: those ran unpinned or as told */
	c->placement = JOB_PLACE_FREE;
	if (json_object_get(obj, "placement") &&
	    ((ret = get_str(obj, "placement", &s, err)) ||
	     job_placement_parse(s, &c->placement)))
		return ret ? ret : base_err_set(err, -EINVAL,
						"configuration field 'placement' = '%s': expected auto, split, pair or free",
						base_quote(s, q));
	return 0;
}
