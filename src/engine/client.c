// SPDX-License-Identifier: GPL-2.0-only
/* The client end: connect, agree on the test, drive the window, collect both reports. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "engine/engine.h"
#include "engine/meter.h"
#include "engine/session.h"
#include "proto/frame.h"

#define TOOL_VERSION "netregress 0.1.0"
#define STEP_TIMEOUT_NS (10 * NS_PER_S)

#define TICKS_MAX 36000 /* an hour of 100 ms ticks */
#define WARMUP_AUTO_MIN (1 * NS_PER_S) /* --warmup auto runs at least this */
#define WARMUP_AUTO_RATES 10 /* and then until this many rates are steady */

struct tick {
	int64_t t_ns;
	double work; /* receiver bytes of both directions, or transactions */
	/* the speed probe's totals when the tick came (has_speed) */
	bool has_speed;
	double speed_steps, speed_ns;
	/* the cross-CPU probe's totals then (has_xcpu) */
	bool has_xcpu;
	double xcpu_rounds, xcpu_sum_ns;
};

/* Work per second between two ticks (b later than a). */
static double tick_rate(const struct tick *a, const struct tick *b)
{
	return (b->work - a->work) / (double)(b->t_ns - a->t_ns) * NS_PER_S;
}

/* --overhead: a collector phase that the server announced in a tick */
struct phase_start {
	size_t tick; /* index into ticks */
	int64_t phase;
	bool on;
};

struct client {
	const struct engine_client_opts *o;
	const struct job_config *cfg;
	int ctl;
	struct engine_addr server, local;
	struct engine *eng;
	struct engine_meter meter;
	bool meter_ok;
	int *udp_fds;
	uint32_t nflows;
	int64_t t_go, last_heard;
	/* interval bookkeeping */
	int64_t iv_t;
	uint64_t iv_srv_rx, iv_cli_rx, iv_trans;
	/* the probes' totals at the last interval line (0 before they ran) */
	double iv_xrounds, iv_xsum_ns, iv_ssteps, iv_sns;
	struct tick *ticks; /* every tick of the run, for the steady-state check */
	size_t nticks;
	struct phase_start *phases; /* --overhead, in order; TICKS_MAX */
	size_t nphases;
	bool marked; /* the window is open: ticks count for --overhead */
	bool stop_ack; /* the server answers "stop" {closed} with "closed" */
	int64_t warmup_ns; /* the warm-up that ran */
};

/* Receive the next message of `type`, skipping interval ticks, which the
 * server may send at any time after the start. */
static int expect(struct client *c, const char *type, int64_t timeout_ns,
		  json_t **msg, struct base_err *err)
{
	int64_t deadline = base_now_ns() + timeout_ns;
	json_t *m = NULL;
	int ret;

	do {
		json_decref(m);
		m = NULL;
		ret = proto_recv(c->ctl, &m, deadline, err);
		if (ret) {
			if (ret == -ECONNRESET)
				base_err_set(err, ret,
					     "server %s closed the control connection",
					     c->o->host);
			return ret;
		}
	} while (!strcmp(proto_type(m), "tick"));
	if (!strcmp(proto_type(m), "error")) {
		const char *why = json_string_value(json_object_get(m, "message"));

		ret = base_err_set(err, -ECONNREFUSED, "server refused: %.400s",
				   why ? why : "(no reason given)");
		json_decref(m);
		return ret;
	}
	if (strcmp(proto_type(m), type)) {
		char q[BASE_QUOTE_LEN];

		ret = base_err_set(err, -EPROTO,
				   "server sent '%s' where '%s' was expected",
				   base_quote(proto_type(m), q), type);
		json_decref(m);
		return ret;
	}
	*msg = m;
	return 0;
}

static int send_msg(struct client *c, json_t *m, struct base_err *err)
{
	int ret;

	if (!m)
		return base_err_set(err, -ENOMEM, "out of memory");
	ret = proto_send(c->ctl, m, base_now_ns() + STEP_TIMEOUT_NS, err);
	json_decref(m);
	return ret;
}

static int handshake(struct client *c, struct engine_run *out,
		     struct base_err *err)
{
	json_t *m = NULL;
	int64_t v;
	int ret;

	/* rx_tcp_info: this client takes a receiving flow's TCP_INFO counts
	 * in the result (an older one refuses them) */
	ret = send_msg(c, proto_msg("hello", json_pack("{s:i, s:s, s:o, s:b}",
				"version", PROTO_VERSION, "tool", TOOL_VERSION,
				"env", json_incref(out->env_local), "rx_tcp_info", 1)), err);
	if (ret)
		return ret;
	ret = expect(c, "hello_ok", c->o->control_timeout_ns, &m, err);
	if (ret) {
		if (ret == -EPROTO || ret == -EMSGSIZE)
			base_err_prefix(err, "%s:%u does not speak this netregress protocol",
					c->o->host, c->o->port);
		return ret;
	}
	if ((ret = proto_get_i64(m, "version", 0, 255, &v, err)))
		goto out;
	if (v != PROTO_VERSION) {
		ret = base_err_set(err, -EPROTO,
				   "server speaks protocol version %" PRId64 ", this client %d",
				   v, PROTO_VERSION);
		goto out;
	}
	c->stop_ack = json_is_true(json_object_get(m, "stop_ack"));
	if (proto_env_check(json_object_get(m, "env"), err) == 0)
		out->env_remote = json_incref(json_object_get(m, "env"));
	else
		out->env_remote = json_object();
	ret = 0;
out:
	json_decref(m);
	return ret;
}

/* UDP sockets exist before setup so that the server learns their ports. */
static int udp_prepare(struct client *c, json_t *ports, struct base_err *err)
{
	const struct job_config *cfg = c->cfg;
	struct engine_sockopts so = { .sndbuf = cfg->sndbuf, .rcvbuf = cfg->rcvbuf };
	struct engine_addr a = c->local;
	int ret;

	engine_addr_set_port(&a, 0);
	for (uint32_t i = 0; i < c->nflows; i++) {
		struct engine_addr got = { .len = sizeof(got.ss) };

		ret = engine_sock_bind(&a, SOCK_DGRAM, false, &so, 0, &c->udp_fds[i], err);
		if (ret)
			return ret;
		getsockname(c->udp_fds[i], (struct sockaddr *)&got.ss, &got.len);
		json_array_append_new(ports, json_integer(engine_addr_port(&got)));
	}
	return 0;
}

static int get_ports(const json_t *m, const char *key, uint32_t n,
		     uint16_t *ports, struct base_err *err)
{
	const json_t *arr = json_object_get(m, key);

	if (!json_is_array(arr) || json_array_size(arr) != n)
		return base_err_set(err, -EPROTO,
				    "server's setup_ok lacks %u '%s'", n, key);
	for (uint32_t i = 0; i < n; i++) {
		const json_t *p = json_array_get(arr, i);

		if (!json_is_integer(p) || json_integer_value(p) < 1 ||
		    json_integer_value(p) > 65535)
			return base_err_set(err, -EPROTO,
					    "server sent an invalid port in '%s'", key);
		ports[i] = (uint16_t)json_integer_value(p);
	}
	return 0;
}

static int connect_flows(struct client *c, const json_t *ok,
			 struct base_err *err)
{
	const struct job_config *cfg = c->cfg;
	struct engine_sockopts so = {
		.sndbuf = cfg->sndbuf, .rcvbuf = cfg->rcvbuf,
		.nodelay = cfg->nodelay, .cc = cfg->cc, .mss = cfg->mss,
	};
	int64_t deadline = base_now_ns() + c->o->connect_timeout_ns;
	int64_t port, cookie;
	uint16_t *ports = NULL;
	int ret;

	if (job_test_is_udp(cfg->test)) {
		ports = calloc(c->nflows, sizeof(*ports));
		if (!ports)
			return base_err_set(err, -ENOMEM, "out of memory");
		ret = get_ports(ok, "udp_ports", c->nflows, ports, err);
		for (uint32_t i = 0; !ret && i < c->nflows; i++) {
			struct engine_addr to = c->server;

			engine_addr_set_port(&to, ports[i]);
			ret = engine_sock_connect(c->udp_fds[i], &to, deadline, err);
			if (!ret) {
				ret = engine_add_flow(c->eng, i, c->udp_fds[i],
						      job_config_flow_c2s(cfg, i), err);
				c->udp_fds[i] = -1;
			}
		}
		free(ports);
		return ret;
	}
	if (job_test_kind(cfg->test) == JOB_KIND_CRR) {
		ports = calloc(c->nflows, sizeof(*ports));
		if (!ports)
			return base_err_set(err, -ENOMEM, "out of memory");
		ret = get_ports(ok, "crr_ports", c->nflows, ports, err);
		for (uint32_t i = 0; !ret && i < c->nflows; i++) {
			struct engine_addr to = c->server;

			engine_addr_set_port(&to, ports[i]);
			ret = engine_add_connector(c->eng, i, &to, &so, err);
		}
		free(ports);
		return ret;
	}
	if ((ret = proto_get_i64(ok, "data_port", 1, 65535, &port, err)) ||
	    (ret = proto_get_i64(ok, "cookie", 0, INT64_MAX, &cookie, err)))
		return ret;
	for (uint32_t i = 0; i < c->nflows; i++) {
		struct engine_addr to = c->server;
		uint8_t hdr[ENGINE_DATA_HDR_BYTES];
		uint64_t ck = (uint64_t)cookie;
		int fd;

		engine_addr_set_port(&to, (uint16_t)port);
		ret = engine_tcp_connect(&to, &so, deadline, &fd, err);
		if (ret) {
			base_err_prefix(err, "data connection %u", i);
			return ret;
		}
		memcpy(hdr, ENGINE_DATA_MAGIC, 4);
		hdr[4] = (uint8_t)(i >> 24);
		hdr[5] = (uint8_t)(i >> 16);
		hdr[6] = (uint8_t)(i >> 8);
		hdr[7] = (uint8_t)i;
		for (int b = 0; b < 8; b++)
			hdr[8 + b] = (uint8_t)(ck >> (56 - 8 * b));
		/* 16 bytes into an empty socket buffer cannot be short */
		if (send(fd, hdr, sizeof(hdr), MSG_NOSIGNAL) != (ssize_t)sizeof(hdr)) {
			ret = base_err_set(err, -errno, "data connection %u: %s", i,
					   strerror(errno));
			close(fd);
			return ret;
		}
		ret = engine_add_flow(c->eng, i, fd, job_config_flow_c2s(cfg, i), err);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * --overhead: a tick that starts a new collector phase (the server's
 * schedule, see send_tick in server.c) switches this end's collectors too,
 * right after its work was read, and is remembered as a phase boundary.
 */
static void overhead_tick(struct client *c, const json_t *tick)
{
	struct phase_start *ps;
	int64_t phase;
	bool on;

	if (!c->o->overhead || !c->marked ||
	    proto_get_i64(tick, "phase", 0, INT64_MAX, &phase, NULL) ||
	    proto_get_bool(tick, "on", &on, NULL))
		return;
	if (c->nphases && c->phases[c->nphases - 1].phase == phase)
		return;
	ps = &c->phases[c->nphases++];
	ps->tick = c->nticks - 1;
	ps->phase = phase;
	ps->on = on;
	engine_meter_pause(&c->meter, !on);
}

/*
 * The rate of every phase that ended inside the window (one that the next
 * phase's tick closed), for the caller's paired comparison.
 */
static int overhead_rates(const struct client *c, struct engine_run *out,
			  struct base_err *err)
{
	size_t n = 0;

	if (!c->nphases)
		return base_err_set(err, -EPROTO,
				    "--overhead: server %s announced no collector phases (a server older than --overhead?)",
				    c->o->host);
	out->phases = calloc(c->nphases, sizeof(*out->phases));
	if (!out->phases)
		return base_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i + 1 < c->nphases; i++) {
		const struct phase_start *a = &c->phases[i], *b = &c->phases[i + 1];
		const struct tick *ta = &c->ticks[a->tick], *tb = &c->ticks[b->tick];

		if (b->phase != a->phase + 1 || tb->t_ns <= ta->t_ns)
			continue;
		out->phases[n].phase = a->phase;
		out->phases[n].on = a->on;
		out->phases[n].rate = tick_rate(ta, tb);
		n++;
	}
	out->nphases = n;
	return 0;
}

/* The probes over the interval that ends now, into iv (NaN without). */
static void interval_probes(struct client *c, struct engine_interval *iv)
{
	double xr = 0, xs = 0, ss = 0, sn = 0;
	bool x = c->meter_ok && engine_meter_xcpu_totals(&c->meter, &xr, &xs);
	bool s = c->meter_ok && engine_meter_speed_totals(&c->meter, &ss, &sn);

	/* they measure the window: a warm-up interval has at most its tail */
	iv->xcpu_ns = x && !iv->warmup && xr > c->iv_xrounds ?
		(xs - c->iv_xsum_ns) / (xr - c->iv_xrounds) : NAN;
	iv->speed = s && !iv->warmup && sn > c->iv_sns ?
		(ss - c->iv_ssteps) * 1000.0 / (sn - c->iv_sns) : NAN;
	c->iv_xrounds = xr;
	c->iv_xsum_ns = xs;
	c->iv_ssteps = ss;
	c->iv_sns = sn;
}

/* One tick of the server: remember it for the steady-state check, and
 * print an interval line when -i asked for one and its time has come. */
static void on_tick(struct client *c, const json_t *tick)
{
	struct engine_interval iv = { 0 };
	uint64_t rx, tx, n = 0;
	int64_t t, srv_rx;

	if (proto_get_i64(tick, "t_ns", 0, INT64_MAX, &t, NULL) ||
	    proto_get_i64(tick, "rx_bytes", 0, INT64_MAX, &srv_rx, NULL))
		return;
	engine_totals(c->eng, &rx, &tx);
	if (job_test_kind(c->cfg->test) != JOB_KIND_STREAM)
		n = engine_transactions(c->eng);
	if (c->nticks < TICKS_MAX) {
		struct tick *k = &c->ticks[c->nticks++];

		k->t_ns = t;
		k->work = job_test_kind(c->cfg->test) != JOB_KIND_STREAM ?
			  (double)n : (double)((uint64_t)srv_rx + rx);
		k->has_speed = c->meter_ok &&
			       engine_meter_speed_totals(&c->meter, &k->speed_steps, &k->speed_ns);
		k->has_xcpu = c->meter_ok &&
			      engine_meter_xcpu_totals(&c->meter, &k->xcpu_rounds, &k->xcpu_sum_ns);
		overhead_tick(c, tick);
	}
	/* half a tick early is on time */
	if (!c->o->on_interval || !c->cfg->interval_ns ||
	    t - c->iv_t < c->cfg->interval_ns - ENGINE_TICK_NS / 2)
		return;
	if (job_test_kind(c->cfg->test) != JOB_KIND_STREAM) {
		iv.rr = true;
		iv.tps = (double)(n - c->iv_trans) * NS_PER_S / (double)(t - c->iv_t);
		c->iv_trans = n;
	}
	iv.t0_s = (double)c->iv_t / NS_PER_S;
	iv.t1_s = (double)t / NS_PER_S;
	iv.c2s_gbps = (double)((uint64_t)srv_rx - c->iv_srv_rx) * 8 / (double)(t - c->iv_t);
	iv.s2c_gbps = (double)(rx - c->iv_cli_rx) * 8 / (double)(t - c->iv_t);
	/* the interval belongs where most of it lies: a late tick ends the
	 * last warm-up interval a little after the mark */
	iv.warmup = c->iv_t + (t - c->iv_t) / 2 < c->warmup_ns;
	interval_probes(c, &iv);
	c->iv_t = t;
	c->iv_srv_rx = (uint64_t)srv_rx;
	c->iv_cli_rx = rx;
	c->o->on_interval(c->o->ctx, &iv);
}

/* The 100 ms receiver-side rates inside the window, for the caller's
 * steady-state check, the speed probe's rate and the cross-CPU probe's
 * mean round trip over each of them. */
static void window_rates(const struct client *c, struct engine_run *out)
{
	int64_t lo = c->warmup_ns, hi = lo + c->cfg->duration_ns;
	size_t cap = c->nticks ? c->nticks : 1;
	bool probed = false, xprobed = false;

	out->rates = malloc(cap * sizeof(*out->rates));
	if (!out->rates)
		return;
	/* without memory for the probes' series, the rates alone */
	out->speeds = malloc(cap * sizeof(*out->speeds));
	out->xcpus = malloc(cap * sizeof(*out->xcpus));
	for (size_t i = 1; i < c->nticks; i++) {
		const struct tick *a = &c->ticks[i - 1], *b = &c->ticks[i];
		double ns = b->speed_ns - a->speed_ns;
		double rounds = b->xcpu_rounds - a->xcpu_rounds;

		if (a->t_ns < lo || b->t_ns > hi || b->t_ns <= a->t_ns)
			continue;
		/* NaN: no burst (no round) of the probe ended within this tick */
		if (out->speeds)
			out->speeds[out->nrates] = a->has_speed && b->has_speed && ns > 0 ?
				(b->speed_steps - a->speed_steps) * 1000.0 / ns : NAN;
		probed |= out->speeds && a->has_speed && b->has_speed;
		if (out->xcpus)
			out->xcpus[out->nrates] = a->has_xcpu && b->has_xcpu && rounds > 0 ?
				(b->xcpu_sum_ns - a->xcpu_sum_ns) / rounds : NAN;
		xprobed |= out->xcpus && a->has_xcpu && b->has_xcpu;
		out->rates[out->nrates++] = tick_rate(a, b);
	}
	if (!probed) {
		free(out->speeds);
		out->speeds = NULL;
	}
	if (!xprobed) {
		free(out->xcpus);
		out->xcpus = NULL;
	}
}

/*
 * Wait until `until` (CLOCK_MONOTONIC) while watching the server, the local
 * workers and the user's Ctrl-C. Returns 0 when the time came.
 */
static int watch(struct client *c, int64_t until, struct base_err *err)
{
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = c->ctl, .events = POLLIN },
			{ .fd = engine_event_fd(c->eng), .events = POLLIN },
		};
		int64_t now = base_now_ns(), left = until - now;
		int n, ret;

		if (c->o->interrupted && *c->o->interrupted)
			return base_err_set(err, -EINTR, "interrupted");
		if ((ret = engine_failure(c->eng, err)))
			return ret;
		if (now - c->last_heard > c->o->control_timeout_ns)
			return base_err_set(err, -ETIMEDOUT,
					    "server %s stopped answering: no message for %.1f s",
					    c->o->host,
					    (double)(now - c->last_heard) / NS_PER_S);
		if (left <= 0)
			return 0;
		if (left > 250 * NS_PER_MS)
			left = 250 * NS_PER_MS;
		n = poll(p, 2, (int)((left + NS_PER_MS - 1) / NS_PER_MS));
		if (n < 0 && errno != EINTR)
			return base_err_set(err, -errno, "poll: %s", strerror(errno));
		if (n > 0 && p[1].revents) {
			uint64_t v;

			if (read(p[1].fd, &v, sizeof(v)) < 0) {
				/* already consumed */
			}
		}
		if (n > 0 && p[0].revents) {
			json_t *m = NULL;

			ret = proto_recv(c->ctl, &m, base_now_ns() + STEP_TIMEOUT_NS, err);
			if (ret) {
				if (ret == -ECONNRESET)
					base_err_set(err, ret,
						     "server %s closed the control connection during the test",
						     c->o->host);
				return ret;
			}
			c->last_heard = base_now_ns();
			if (!strcmp(proto_type(m), "tick")) {
				on_tick(c, m);
			} else if (!strcmp(proto_type(m), "error")) {
				const char *why = json_string_value(json_object_get(m, "message"));

				ret = base_err_set(err, -EIO, "server failed: %.400s",
						   why ? why : "(no reason given)");
				json_decref(m);
				return ret;
			}
			json_decref(m);
		}
	}
}

/*
 * --warmup auto: after WARMUP_AUTO_MIN, look at the last WARMUP_AUTO_RATES
 * 100 ms rates every tick and end the warm-up once they stop trending, or
 * at the bound (cfg->warmup_ns). Sets c->warmup_ns to what ran.
 */
static int auto_warmup(struct client *c, bool *capped, struct base_err *err)
{
	int64_t t = c->t_go + WARMUP_AUTO_MIN;
	double rates[WARMUP_AUTO_RATES];
	int ret;

	*capped = false;
	for (;;) {
		int64_t now;
		size_t n = 0;

		if (t > c->t_go + c->cfg->warmup_ns)
			t = c->t_go + c->cfg->warmup_ns;
		if ((ret = watch(c, t, err)))
			return ret;
		now = base_now_ns();
		for (size_t i = c->nticks > WARMUP_AUTO_RATES ? c->nticks - WARMUP_AUTO_RATES : 1;
		     i < c->nticks; i++) {
			const struct tick *a = &c->ticks[i - 1], *b = &c->ticks[i];

			if (b->t_ns > a->t_ns)
				rates[n++] = tick_rate(a, b);
		}
		if (n == WARMUP_AUTO_RATES && c->o->steady(rates, n))
			break;
		if (now - c->t_go >= c->cfg->warmup_ns) {
			*capped = true;
			break;
		}
		t = now + ENGINE_TICK_NS;
	}
	c->warmup_ns = base_now_ns() - c->t_go;
	return 0;
}

/*
 * What this end collects: its own CPUs, or on a shared machine both ends'
 * (every CPU unless both ends are pinned).
 */
static void local_collect(const struct engine_client_opts *o,
			  const struct engine_run *run, struct engine_collect *col)
{
	const struct job_config *cfg = &o->cfg;

	memset(col, 0, sizeof(*col));
	col->others = true;
	col->exits = o->exits;
	col->nown = engine_env_peer_pids(run->env_local, run->env_remote, col->own_pids);
	col->counters = o->counters;
	col->perf = o->perf;
	col->profile = cfg->profile;
	col->profile_min_pct = o->profile_min_pct;
	col->speed = o->speed;
	col->cpus = cfg->cpus;
	col->xcpu_asked = o->xcpu;
	if (o->xcpu) {
		struct base_cpulist online;

		if (base_cpus_allowed(&online))
			online.n = 0;
		col->xcpu_npairs = collect_xcpu_pairs(&cfg->cpus, &cfg->remote_cpus,
						      &online, col->xcpu_pairs);
	}
	if (o->same_host) {
		if (!cfg->cpus.n || !cfg->remote_cpus.n) {
			col->cpus.n = 0;
			return;
		}
		for (int i = 0; i < cfg->remote_cpus.n; i++) {
			bool seen = false;

			for (int k = 0; k < col->cpus.n && !seen; k++)
				seen = col->cpus.cpu[k] == cfg->remote_cpus.cpu[i];
			if (!seen && col->cpus.n < BASE_CPU_MAX)
				col->cpus.cpu[col->cpus.n++] = cfg->remote_cpus.cpu[i];
		}
	}
}

static int run_test(struct client *c, struct engine_run *out,
		    struct base_err *err)
{
	const struct job_config *cfg = c->cfg;
	struct engine_opts eo = {
		.kind = engine_kind_of(cfg),
		.udp = job_test_is_udp(cfg->test),
		.msg_bytes = cfg->msg_bytes,
		.rmsg_bytes = cfg->rmsg_bytes,
		.buf_offset = cfg->buf_offset,
		.transfer_bytes = cfg->transfer_bytes,
		.sendfile = cfg->test == JOB_TEST_TCP_SENDFILE,
		.sendfile_memfd = cfg->sendfile_from == JOB_SENDFILE_MEMFD,
		.req_bytes = cfg->req_bytes,
		.resp_bytes = cfg->resp_bytes,
		.burst = cfg->burst,
		.rate = cfg->rate,
		.rr_timeout_ns = cfg->rr_timeout_ns,
		.nodelay = cfg->nodelay,
		.connect_only = cfg->test == JOB_TEST_TCP_CC,
		.batch = cfg->batch,
		.udp_gso = cfg->udp_gso,
		.udp_gro = cfg->udp_gro,
		.peer_rcvbuf = cfg->remote_rcvbuf,
		.threads = cfg->threads,
		.cpus = cfg->cpus,
		.cpus_shared = job_config_ends_share_cpus(cfg),
		.drain_ns = 5 * NS_PER_S,
		.hold_cpu_latency = cfg->hold_cpu_latency,
		.cpu_latency_us = cfg->cpu_latency_us,
		.spin = cfg->spin,
		.tcpi_rx = true,
	};
	json_t *m = NULL, *ports = json_array(), *res = NULL;
	struct engine_collect col;
	int64_t t_end;
	int ret, jret;

	if (!ports)
		return base_err_set(err, -ENOMEM, "out of memory");
	if (eo.udp && (ret = udp_prepare(c, ports, err)))
		goto out;
	local_collect(c->o, out, &col);
	/* the other tasks of a server's machine, when it is not this one
	 * (whose tasks this end counts) */
	m = json_pack("{s:o, s:O, s:{s:b, s:b, s:b, s:b}}",
		      "config", job_config_to_json(cfg),
		      "udp_ports", ports, "collect",
		      "counters", c->o->counters && !c->o->same_host,
		      "perf", c->o->perf && !c->o->same_host,
		      "profile", cfg->profile && !c->o->same_host,
		      "tasks", !c->o->same_host &&
			      !engine_env_same_boot(out->env_local, out->env_remote));
	/* only when asked: a server older than --overhead refuses nothing
	 * else, and the missing phases tell (overhead_rates) */
	if (m && c->o->overhead)
		json_object_set_new(json_object_get(m, "collect"), "overhead", json_true());
	if (m && c->o->speed && !c->o->same_host)
		json_object_set_new(json_object_get(m, "collect"), "speed", json_true());
	/* a server that predates it ignores it and keeps its top 50 */
	if (m && cfg->profile && !c->o->same_host)
		json_object_set_new(json_object_get(m, "collect"), "profile_min_pct",
				    json_real(c->o->profile_min_pct));
	ret = send_msg(c, proto_msg("setup", m), err);
	m = NULL;
	if (ret)
		goto out;
	if ((ret = expect(c, "setup_ok", c->o->control_timeout_ns, &m, err)))
		goto out;
	c->eng = engine_new(&eo, err);
	if (!c->eng) {
		ret = -ENOMEM;
		goto out;
	}
	if ((ret = connect_flows(c, m, err)) ||
	    (ret = engine_launch(c->eng, err)) ||
	    (ret = engine_meter_init(&c->meter, &cfg->cpus, &col, err)))
		goto out;
	c->meter_ok = true;
	json_decref(m);
	m = NULL;
	out->sysenv_local = engine_sysenv_json(&c->local);
	if ((ret = send_msg(c, proto_msg("connected", NULL), err)) ||
	    (ret = expect(c, "ready", c->o->control_timeout_ns + c->o->connect_timeout_ns, &m, err)))
		goto out;
	if (json_object_get(m, "sysenv")) {
		if ((ret = engine_sysenv_check(json_object_get(m, "sysenv"), err))) {
			base_err_prefix(err, "server's ready");
			goto out;
		}
		out->sysenv_remote = json_incref(json_object_get(m, "sysenv"));
	}
	/* the start barrier: the server releases its workers on "start" */
	if ((ret = send_msg(c, proto_msg("start", NULL), err)))
		goto out;
	c->t_go = base_now_ns();
	engine_meter_ticks_from(&c->meter, c->t_go);
	out->wall_start_ns = base_wall_ns();
	engine_go(c->eng);
	c->last_heard = c->t_go;
	c->warmup_ns = cfg->warmup_ns;
	if (cfg->warmup_auto)
		ret = auto_warmup(c, &out->warmup_capped, err);
	else
		ret = watch(c, c->t_go + cfg->warmup_ns, err);
	if (ret)
		goto out;
	out->warmup_ns = c->warmup_ns;
	engine_meter_mark(&c->meter, c->eng, 0);
	if ((ret = send_msg(c, proto_msg("mark", NULL), err)))
		goto out;
	c->marked = true;
	t_end = c->t_go + c->warmup_ns + cfg->duration_ns;
	if ((ret = watch(c, t_end, err)))
		goto out;
	/* the server closes its window on "stop": this end's slower
	 * collectors wait until it has (a server that says so), so that
	 * neither window takes them in */
	engine_meter_close(&c->meter, c->eng);
	ret = send_msg(c, proto_msg("stop", c->stop_ack ? json_pack("{s:b}", "closed", 1) : NULL),
		       err);
	if (!ret && c->stop_ack) {
		json_t *closed = NULL;

		ret = expect(c, "closed", c->o->control_timeout_ns, &closed, err);
		json_decref(closed);
	}
	engine_meter_mark(&c->meter, c->eng, 1);
	c->marked = false;
	if (ret)
		goto out;
	engine_stop(c->eng);
	jret = engine_join(c->eng);
	if ((ret = engine_failure(c->eng, err)))
		goto out;
	ret = expect(c, "result", c->o->control_timeout_ns, &res, err);
	if (ret)
		goto out;
	ret = proto_end_report_from_json(json_object_get(res, "report"),
					 c->nflows, &out->remote, err);
	if (ret) {
		base_err_prefix(err, "server's result");
		goto out;
	}
	if (out->remote.nflows != c->nflows) {
		ret = base_err_set(err, -EPROTO, "server reported %u flows, expected %u",
				   out->remote.nflows, c->nflows);
		goto out;
	}
	ret = engine_meter_report(&c->meter, c->eng, jret == -ETIMEDOUT,
				  &out->local, err);
	window_rates(c, out);
	if (!ret && c->o->overhead)
		ret = overhead_rates(c, out, err);
	if (!ret && (eo.kind != ENGINE_STREAM || eo.transfer_bytes)) {
		out->latency = engine_latency(c->eng);
		if (!out->latency)
			ret = base_err_set(err, -ENOMEM, "out of memory");
	}
	send_msg(c, proto_msg("bye", NULL), NULL);
out:
	json_decref(m);
	json_decref(res);
	json_decref(ports);
	return ret;
}

int engine_client_run(const struct engine_client_opts *o,
		      struct engine_run *out, struct base_err *err)
{
	struct client c = { .o = o, .cfg = &o->cfg, .ctl = -1 };
	int ret, one = 1;

	memset(out, 0, sizeof(*out));
	if (o->cfg.warmup_auto && !o->steady)
		return base_err_set(err, -EINVAL, "--warmup auto needs a steadiness test");
	c.nflows = job_config_nflows(&o->cfg);
	c.udp_fds = malloc(c.nflows * sizeof(*c.udp_fds));
	c.ticks = malloc(TICKS_MAX * sizeof(*c.ticks));
	c.phases = o->overhead ? malloc(TICKS_MAX * sizeof(*c.phases)) : NULL;
	if (!c.udp_fds || !c.ticks || (o->overhead && !c.phases)) {
		free(c.udp_fds);
		free(c.ticks);
		free(c.phases);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < c.nflows; i++)
		c.udp_fds[i] = -1;
	out->env_local = engine_env_json();
	ret = engine_addr_resolve(o->host, o->port, o->cfg.ipv, &c.server, err);
	if (ret)
		goto out;
	engine_addr_str(&c.server, true, out->server, sizeof(out->server));
	ret = engine_tcp_connect(&c.server, NULL,
				 base_now_ns() + o->connect_timeout_ns, &c.ctl, err);
	if (ret) {
		if (ret == -ECONNREFUSED)
			base_err_set(err, ret,
				     "cannot connect to %s: connection refused (is `netregress serve` running there?)",
				     out->server);
		goto out;
	}
	setsockopt(c.ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c.local.len = sizeof(c.local.ss);
	getsockname(c.ctl, (struct sockaddr *)&c.local.ss, &c.local.len);
	if ((ret = handshake(&c, out, err)))
		goto out;
	ret = run_test(&c, out, err);
out:
	if (c.meter_ok)
		engine_meter_release(&c.meter);
	engine_free(c.eng);
	for (uint32_t i = 0; i < c.nflows; i++)
		if (c.udp_fds[i] >= 0)
			close(c.udp_fds[i]);
	free(c.udp_fds);
	free(c.ticks);
	free(c.phases);
	if (c.ctl >= 0)
		close(c.ctl);
	return ret;
}

void engine_run_release(struct engine_run *r)
{
	proto_end_report_release(&r->local);
	proto_end_report_release(&r->remote);
	json_decref(r->env_local);
	json_decref(r->env_remote);
	json_decref(r->sysenv_local);
	json_decref(r->sysenv_remote);
	free(r->latency);
	free(r->rates);
	free(r->speeds);
	free(r->xcpus);
	free(r->phases);
	memset(r, 0, sizeof(*r));
}
