// SPDX-License-Identifier: GPL-2.0-only
/* Test configurations: defaults, validation, canonical key, JSON form. */
#include "job/config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/time.h"
#include "job/params.h"

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

bool job_config_ends_share_cpus(const struct job_config *c)
{
	for (uint16_t i = 0; i < c->cpus.n; i++)
		for (uint16_t j = 0; j < c->remote_cpus.n; j++)
			if (c->cpus.cpu[i] == c->remote_cpus.cpu[j])
				return true;
	return false;
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
	/* the rows of the parameter table that state their range */
	if ((ret = job_params_check(c, err)))
		return ret;
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
	if (!job_valid_cc(c->cc))
		return base_err_set(err, -EINVAL,
				    "invalid congestion control '%s': expected a name like cubic or bbr",
				    base_quote(c->cc, q));
	if (udp && c->nodelay)
		return base_err_set(err, -EINVAL,
				    "nodelay applies to tcp tests only");
	if (udp && c->mss)
		return base_err_set(err, -EINVAL,
				    "mss (TCP_MAXSEG) applies to tcp tests only");
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
	/* a flow's two ends on one CPU let many tcp streams use every CPU
	 * and respond to their buffers; udp streams go faster an end per
	 * CPU, and one flow keeps an end per CPU, where a worker that waits
	 * can be judged starved (docs/methodology.md, "CPU placement") */
	if (c->placement == JOB_PLACE_AUTO)
		c->placement = (c->test == JOB_TEST_TCP_STREAM || c->test == JOB_TEST_TCP_SENDFILE) &&
					       nflows >= 2 ?
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

void job_config_each_param(const struct job_config *c,
			   void (*fn)(void *ctx, const char *name,
				      const char *value),
			   void *ctx)
{
	char v[BASE_CPU_MAX * 6];

	/* the table's order is the canonical key's */
	for (size_t i = 0; i < job_npdefs; i++) {
		if (!job_pdef_in_key(&job_pdefs[i], c))
			continue;
		job_pdef_key_value(&job_pdefs[i], c, v, sizeof(v));
		fn(ctx, job_pdefs[i].name, v);
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
	json_t *j = json_object();

	if (j && job_params_to_json(c, j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

int job_config_from_json(const json_t *obj, struct job_config *c,
			 struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *key;
	const json_t *v;
	int ret;

	if (!json_is_object(obj))
		return base_err_set(err, -EINVAL,
				    "configuration: expected a json object");
	json_object_foreach((json_t *)obj, key, v) {
		if (!job_params_known(key))
			return base_err_set(err, -EINVAL,
					    "configuration has unknown field '%s'",
					    base_quote(key, q));
	}
	job_config_init(c);
	if ((ret = job_params_from_json(obj, c, err)))
		return ret;
	/* absent: what older versions ran, a memfd */
	if (!json_object_get(obj, "sendfile_from") && c->test == JOB_TEST_TCP_SENDFILE)
		c->sendfile_from = JOB_SENDFILE_MEMFD;
	return 0;
}
