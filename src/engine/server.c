// SPDX-License-Identifier: GPL-2.0-only
/* The server end: an accept loop that forks one child per client session. */
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "engine/engine.h"
#include "engine/meter.h"
#include "engine/session.h"
#include "proto/frame.h"

#define STEP_TIMEOUT_NS (10 * NS_PER_S)
#define HDR_TIMEOUT_NS (3 * NS_PER_S)
#define STOP_GRACE_NS (30 * NS_PER_S)

struct session {
	const struct engine_server_opts *o;
	int ctl, lfd;
	int *udp_fds;
	struct engine_addr peer, local;
	char peer_str[80];
	struct job_config cfg;
	uint32_t nflows;
	uint64_t cookie;
	struct engine *eng;
	struct engine_meter meter;
	struct engine_collect col;
	bool overhead; /* --overhead: collectors on and off in phases */
	bool meter_ok;
	bool tcpi_rx; /* the client takes receiving flows' TCP_INFO counts */
};

static void logf_(const struct engine_server_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct engine_server_opts *o, const char *fmt, ...)
{
	char line[640];
	va_list ap;

	if (!o->log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	o->log(o->log_ctx, line);
}

static bool terminating(const struct session *s)
{
	return s->o->terminate && *s->o->terminate;
}

static int send_msg(struct session *s, json_t *m, struct base_err *err)
{
	int ret;

	if (!m)
		return base_err_set(err, -ENOMEM, "out of memory");
	ret = proto_send(s->ctl, m, base_now_ns() + STEP_TIMEOUT_NS, err);
	json_decref(m);
	return ret;
}

/* Tell the client why; best effort, the session ends anyway. */
static void refuse(struct session *s, const char *why)
{
	send_msg(s, proto_msg("error", json_pack("{s:s}", "message", why)), NULL);
}

static int expect(struct session *s, const char *type, int64_t timeout_ns,
		  json_t **msg, struct base_err *err)
{
	json_t *m = NULL;
	int ret;

	ret = proto_recv(s->ctl, &m, base_now_ns() + timeout_ns, err);
	if (ret)
		return ret;
	if (strcmp(proto_type(m), type)) {
		char q[BASE_QUOTE_LEN];

		ret = base_err_set(err, -EPROTO,
				   "client sent '%s' where '%s' was expected",
				   base_quote(proto_type(m), q), type);
		json_decref(m);
		return ret;
	}
	*msg = m;
	return 0;
}

static int hello(struct session *s, struct base_err *err)
{
	json_t *m = NULL, *env;
	int64_t v;
	int ret;

	if ((ret = expect(s, "hello", STEP_TIMEOUT_NS, &m, err)))
		return ret;
	ret = proto_get_i64(m, "version", 0, 255, &v, err);
	s->tcpi_rx = json_is_true(json_object_get(m, "rx_tcp_info"));
	json_decref(m);
	if (ret)
		return ret;
	if (v != PROTO_VERSION) {
		ret = base_err_set(err, -EPROTO,
				   "client speaks protocol version %" PRId64
				   ", this server %d",
				   v, PROTO_VERSION);
		refuse(s, err->msg);
		return ret;
	}
	/* a session is a child of the listening server: the client leaves
	 * both out of the other tasks when it shares the machine */
	env = engine_env_json();
	if (env)
		json_object_set_new(env, "listener_pid", json_integer(getppid()));
	/* stop_ack: this server answers a "stop" that asks {closed: true}
	 * with "closed" once its window is closed (a server without it
	 * says nothing, and its client does not wait) */
	return send_msg(s, proto_msg("hello_ok", json_pack("{s:i, s:b, s:o, s:{s:I, s:I, s:I}}",
			"version", PROTO_VERSION, "stop_ack", 1, "env", env,
			"limits", "max_streams", (json_int_t)s->o->max_streams,
			"max_duration_ns", (json_int_t)s->o->max_duration_ns,
			"max_clients", (json_int_t)s->o->max_clients)), err);
}

/* Parse the client's configuration and hold it to this server's limits. */
static int accept_config(struct session *s, const json_t *m,
			 struct base_err *err)
{
	struct job_config *c = &s->cfg;
	struct base_cpulist allowed;
	int ret;

	base_cpus_allowed(&allowed);
	ret = job_config_from_json(json_object_get(m, "config"), c, err);
	if (!ret)
		ret = job_config_finalize(c, &allowed, err);
	if (ret)
		return ret;
	s->nflows = job_config_nflows(c);
	if (s->nflows > s->o->max_streams)
		return base_err_set(err, -EPERM,
				    "%u flows exceed this server's --max-streams %u",
				    s->nflows, s->o->max_streams);
	if (c->duration_ns + c->warmup_ns > s->o->max_duration_ns)
		return base_err_set(err, -EPERM,
				    "warm-up plus duration of %.1f s exceeds this server's --max-duration of %.1f s",
				    (double)(c->duration_ns + c->warmup_ns) / NS_PER_S,
				    (double)s->o->max_duration_ns / NS_PER_S);
	if (c->hold_cpu_latency && s->o->no_cpu_latency)
		return base_err_set(err, -EPERM,
				    "cpu_latency %" PRIu32 ": this server does not hold the CPU latency request for its clients (serve --no-cpu-latency)",
				    c->cpu_latency_us);
	for (int i = 0; i < c->remote_cpus.n; i++)
		if (c->remote_cpus.cpu[i] >= (int)sysconf(_SC_NPROCESSORS_CONF))
			return base_err_set(err, -EINVAL,
					    "remote cpu %u does not exist on this server (%ld cpus)",
					    c->remote_cpus.cpu[i],
					    sysconf(_SC_NPROCESSORS_CONF));
	return 0;
}

/* The collectors the client asks this end to run (all off when absent). */
static int accept_collect(struct session *s, const json_t *m,
			  struct base_err *err)
{
	const json_t *c = json_object_get(m, "collect");
	int ret;

	memset(&s->col, 0, sizeof(s->col));
	s->col.cpus = s->cfg.remote_cpus;
	s->col.profile_min_pct = COLLECT_PROFILE_MIN_PCT;
	s->overhead = false;
	if (!c)
		return 0;
	if (!json_is_object(c))
		return base_err_set(err, -EPROTO, "setup: 'collect' must be an object");
	if ((ret = proto_get_bool(c, "counters", &s->col.counters, err)) ||
	    (ret = proto_get_bool(c, "perf", &s->col.perf, err)) ||
	    (ret = proto_get_bool(c, "profile", &s->col.profile, err)))
		return ret;
	if (json_object_get(c, "speed") &&
	    (ret = proto_get_bool(c, "speed", &s->col.speed, err)))
		return ret;
	/* absent: a client that predates it, the default */
	if (json_object_get(c, "profile_min_pct") &&
	    (ret = proto_get_num(c, "profile_min_pct", 0, 100, &s->col.profile_min_pct, err)))
		return ret;
	if (json_object_get(c, "overhead") &&
	    (ret = proto_get_bool(c, "overhead", &s->overhead, err)))
		return ret;
	if (json_object_get(c, "tasks") &&
	    (ret = proto_get_bool(c, "tasks", &s->col.others, err)))
		return ret;
	/* the listening server that forked this session is the test's too */
	s->col.own_pids[0] = getppid();
	s->col.nown = 1;
	return 0;
}

static struct engine_sockopts server_sockopts(const struct job_config *c)
{
	return (struct engine_sockopts){
		.sndbuf = c->remote_sndbuf, .rcvbuf = c->remote_rcvbuf,
		.nodelay = c->nodelay, .cc = c->cc, .mss = c->mss,
	};
}

static int setup_udp(struct session *s, const json_t *m, json_t *reply,
		     struct base_err *err)
{
	struct engine_sockopts so = server_sockopts(&s->cfg);
	const json_t *ports = json_object_get(m, "udp_ports");
	json_t *mine = json_array();
	struct engine_addr a = s->local;
	int ret = 0;

	if (!mine)
		return base_err_set(err, -ENOMEM, "out of memory");
	json_object_set_new(reply, "udp_ports", mine);
	if (!json_is_array(ports) || json_array_size(ports) != s->nflows)
		return base_err_set(err, -EPROTO,
				    "setup needs %u udp ports, one per flow", s->nflows);
	engine_addr_set_port(&a, 0);
	for (uint32_t i = 0; i < s->nflows; i++) {
		const json_t *p = json_array_get(ports, i);
		struct engine_addr to = s->peer, got = { .len = sizeof(got.ss) };

		if (!json_is_integer(p) || json_integer_value(p) < 1 ||
		    json_integer_value(p) > 65535)
			return base_err_set(err, -EPROTO, "invalid udp port in setup");
		ret = engine_sock_bind(&a, SOCK_DGRAM, false, &so, 0, &s->udp_fds[i], err);
		if (ret)
			return ret;
		/* datagrams go only to the control peer's address */
		engine_addr_set_port(&to, (uint16_t)json_integer_value(p));
		ret = engine_sock_connect(s->udp_fds[i], &to, base_now_ns() + NS_PER_S, err);
		if (ret)
			return ret;
		getsockname(s->udp_fds[i], (struct sockaddr *)&got.ss, &got.len);
		json_array_append_new(mine, json_integer(engine_addr_port(&got)));
	}
	return 0;
}

static int setup_tcp(struct session *s, json_t *reply, struct base_err *err)
{
	struct engine_sockopts so = server_sockopts(&s->cfg);
	struct engine_addr a = s->local, got = { .len = sizeof(got.ss) };
	int ret;

	engine_addr_set_port(&a, 0);
	/* buffers on the listener, so that accepted sockets scale their window */
	ret = engine_sock_bind(&a, SOCK_STREAM, false, &so, (int)s->nflows + 8,
			       &s->lfd, err);
	if (ret)
		return ret;
	getsockname(s->lfd, (struct sockaddr *)&got.ss, &got.len);
	if (getrandom(&s->cookie, sizeof(s->cookie), 0) != sizeof(s->cookie))
		s->cookie = (uint64_t)base_now_ns() ^ (uint64_t)getpid() << 32;
	s->cookie &= INT64_MAX;
	json_object_set_new(reply, "data_port", json_integer(engine_addr_port(&got)));
	json_object_set_new(reply, "cookie", json_integer((json_int_t)s->cookie));
	return 0;
}

/* tcp_crr: one listener per client flow, each connection a transaction. */
static int setup_crr(struct session *s, json_t *reply, int *fds,
		     struct base_err *err)
{
	struct engine_sockopts so = server_sockopts(&s->cfg);
	struct engine_addr a = s->local;
	json_t *ports = json_array();
	int ret;

	if (!ports)
		return base_err_set(err, -ENOMEM, "out of memory");
	json_object_set_new(reply, "crr_ports", ports);
	engine_addr_set_port(&a, 0);
	for (uint32_t i = 0; i < s->nflows; i++) {
		struct engine_addr got = { .len = sizeof(got.ss) };

		ret = engine_sock_bind(&a, SOCK_STREAM, false, &so, 128, &fds[i], err);
		if (ret)
			return ret;
		getsockname(fds[i], (struct sockaddr *)&got.ss, &got.len);
		json_array_append_new(ports, json_integer(engine_addr_port(&got)));
	}
	return 0;
}

static int read_hdr(int fd, uint8_t *hdr, int64_t deadline)
{
	size_t off = 0;

	while (off < ENGINE_DATA_HDR_BYTES) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - base_now_ns();
		ssize_t n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(left / NS_PER_MS) + 1) < 0 && errno != EINTR)
			return -errno;
		n = recv(fd, hdr + off, ENGINE_DATA_HDR_BYTES - off, MSG_DONTWAIT);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n > 0)
			off += (size_t)n;
	}
	return 0;
}

/*
 * Accept one data connection per flow, from the control peer only. A
 * client that shuts down or loses its control connection meanwhile ends
 * the session at once, not at the step's timeout: its slot of
 * --max-clients is free for the next client. (Its "connected" may arrive
 * before the last accept: only a hang-up counts, not data.)
 */
static int accept_flows(struct session *s, int *fds, struct base_err *err)
{
	struct engine_sockopts so = server_sockopts(&s->cfg);
	int64_t deadline = base_now_ns() + STEP_TIMEOUT_NS;
	uint32_t got = 0;

	so.sndbuf = so.rcvbuf = 0; /* inherited from the listener */
	while (got < s->nflows) {
		struct pollfd p[2] = { { .fd = s->lfd, .events = POLLIN },
				       { .fd = s->ctl, .events = POLLRDHUP } };
		struct engine_addr from = { .len = sizeof(from.ss) };
		int64_t left = deadline - base_now_ns();
		uint8_t hdr[ENGINE_DATA_HDR_BYTES];
		uint64_t ck = 0;
		uint32_t id;
		int fd, ret;

		if (left <= 0 || terminating(s))
			return base_err_set(err, -ETIMEDOUT,
					    "only %u of %u data connections arrived",
					    got, s->nflows);
		if (poll(p, 2, (int)(left / NS_PER_MS) + 1) <= 0)
			continue;
		if (p[1].revents & (POLLRDHUP | POLLHUP | POLLERR))
			return base_err_set(err, -ECONNRESET,
					    "the client closed its control connection with %u of %u data connections made",
					    got, s->nflows);
		if (!(p[0].revents & POLLIN))
			continue;
		fd = accept4(s->lfd, (struct sockaddr *)&from.ss, &from.len,
			     SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			continue;
		if (!engine_addr_same_host(&from, &s->peer)) {
			char a[80];

			engine_addr_str(&from, true, a, sizeof(a));
			logf_(s->o, "%s: dropped a data connection from %s: not the control peer",
			      s->peer_str, a);
			close(fd);
			continue;
		}
		ret = read_hdr(fd, hdr, base_now_ns() + HDR_TIMEOUT_NS);
		id = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 |
		     (uint32_t)hdr[6] << 8 | hdr[7];
		for (int b = 0; b < 8; b++)
			ck = ck << 8 | hdr[8 + b];
		if (ret || memcmp(hdr, ENGINE_DATA_MAGIC, 4) || ck != s->cookie ||
		    id >= s->nflows || fds[id] >= 0) {
			logf_(s->o, "%s: dropped a data connection with a bad header",
			      s->peer_str);
			close(fd);
			continue;
		}
		ret = engine_sock_apply(fd, true, &so, err);
		if (ret) {
			close(fd);
			return ret;
		}
		fds[id] = fd;
		got++;
	}
	return 0;
}

/*
 * One tick; with --overhead, after the mark, it also says which collector
 * phase begins with it (the client keeps to it): ENGINE_OVERHEAD_TICKS
 * ticks per phase, collectors on in phases 0, 3, 4, 7, 8, ... and off in
 * 1, 2, 5, 6, ..., so that each pair (2i, 2i + 1) has one of each, in
 * turns on-off and off-on (a drift favours neither). This end switches its
 * own collectors after the tick is stamped and sent.
 */
static int send_tick(struct session *s, int64_t t_go, int64_t ticks_since_mark,
		     struct base_err *err)
{
	uint64_t rx, tx;
	json_t *t;
	int ret;

	int64_t phase = (ticks_since_mark - 1) / ENGINE_OVERHEAD_TICKS;
	bool phased = s->overhead && ticks_since_mark > 0;
	bool on = phase % 4 == 0 || phase % 4 == 3;

	engine_totals(s->eng, &rx, &tx);
	t = json_pack("{s:I, s:I, s:I}", "t_ns", (json_int_t)(base_now_ns() - t_go),
		      "rx_bytes", (json_int_t)rx, "tx_bytes", (json_int_t)tx);
	if (phased && t) {
		json_object_set_new(t, "phase", json_integer(phase));
		json_object_set_new(t, "on", json_boolean(on));
	}
	ret = send_msg(s, proto_msg("tick", t), err);
	if (phased)
		engine_meter_pause(&s->meter, !on);
	return ret;
}

/* From "start" to "stop": serve ticks, honour marks, watch the workers. */
static int measure(struct session *s, struct base_err *err)
{
	const struct job_config *c = &s->cfg;
	/* ticks every 100 ms: the client's steady-state check and its
	 * interval lines (at -i) are built from them */
	int64_t tick_ns = ENGINE_TICK_NS;
	int64_t t_go = base_now_ns(), next_tick = t_go + tick_ns;
	int64_t deadline = t_go + c->warmup_ns + c->duration_ns + STOP_GRACE_NS;
	int64_t ticks_since_mark = -1;
	bool want_closed = false; /* the client waits for "closed" */
	json_t *res;
	int jret, ret;

	engine_go(s->eng);
	for (;;) {
		struct pollfd p[2] = {
			{ .fd = s->ctl, .events = POLLIN },
			{ .fd = engine_event_fd(s->eng), .events = POLLIN },
		};
		int64_t now = base_now_ns();
		json_t *m = NULL;
		const char *type;

		if (terminating(s))
			return base_err_set(err, -EINTR, "server shutting down");
		if (now > deadline)
			return base_err_set(err, -ETIMEDOUT,
					    "client sent no stop within the test's time");
		if ((ret = engine_failure(s->eng, err)))
			return ret;
		if (now >= next_tick) {
			if (ticks_since_mark >= 0)
				ticks_since_mark++;
			if ((ret = send_tick(s, t_go, ticks_since_mark, err)))
				return ret;
			next_tick += tick_ns;
			continue;
		}
		if (poll(p, 2, (int)((next_tick - now) / NS_PER_MS) + 1) <= 0)
			continue;
		if (p[1].revents) {
			uint64_t v;

			if (read(p[1].fd, &v, sizeof(v)) < 0) {
				/* already consumed */
			}
		}
		if (!p[0].revents)
			continue;
		if ((ret = proto_recv(s->ctl, &m, base_now_ns() + STEP_TIMEOUT_NS, err)))
			return ret;
		type = proto_type(m);
		if (!strcmp(type, "mark")) {
			engine_meter_mark(&s->meter, s->eng, 0);
			ticks_since_mark = 0;
		} else if (!strcmp(type, "stop")) {
			want_closed = json_is_true(json_object_get(m, "closed"));
			json_decref(m);
			break;
		} else {
			char q[BASE_QUOTE_LEN];

			ret = base_err_set(err, -EPROTO,
					   "client sent '%s' during the test",
					   base_quote(type, q));
			json_decref(m);
			return ret;
		}
		json_decref(m);
	}
	if (!s->meter.marked[0] && !s->meter.t_ns[0])
		engine_meter_mark(&s->meter, s->eng, 0);
	/* the client reads its collectors once this end has closed */
	if (want_closed) {
		engine_meter_close(&s->meter, s->eng);
		if ((ret = send_msg(s, proto_msg("closed", NULL), err)))
			return ret;
	}
	engine_meter_mark(&s->meter, s->eng, 1);
	engine_stop(s->eng);
	jret = engine_join(s->eng);
	{
		struct proto_end_report r;

		ret = engine_meter_report(&s->meter, s->eng, jret == -ETIMEDOUT, &r, err);
		if (ret)
			return ret;
		res = proto_msg("result", json_pack("{s:o}", "report",
						     proto_end_report_to_json(&r)));
		proto_end_report_release(&r);
	}
	return send_msg(s, res, err);
}

static int session_run(struct session *s, struct base_err *err)
{
	struct engine_opts eo = { 0 };
	json_t *m = NULL, *reply = NULL;
	int *fds = NULL;
	int ret;

	if ((ret = hello(s, err)))
		return ret;
	if ((ret = expect(s, "setup", STEP_TIMEOUT_NS, &m, err)))
		return ret;
	if ((ret = accept_config(s, m, err)) || (ret = accept_collect(s, m, err))) {
		refuse(s, err->msg);
		goto out;
	}
	logf_(s->o, "%s: %s dir=%s flows=%u msg=%" PRIu64 " duration=%.1fs",
	      s->peer_str, job_test_name(s->cfg.test), job_dir_name(s->cfg.dir),
	      s->nflows, s->cfg.msg_bytes, (double)s->cfg.duration_ns / NS_PER_S);
	fds = malloc(s->nflows * sizeof(*fds));
	s->udp_fds = malloc(s->nflows * sizeof(*s->udp_fds));
	reply = proto_msg("setup_ok", NULL);
	if (!fds || !s->udp_fds || !reply) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < s->nflows; i++)
		fds[i] = s->udp_fds[i] = -1;
	if (job_test_kind(s->cfg.test) == JOB_KIND_CRR)
		ret = setup_crr(s, reply, fds, err);
	else if (job_test_is_udp(s->cfg.test))
		ret = setup_udp(s, m, reply, err);
	else
		ret = setup_tcp(s, reply, err);
	if (ret) {
		refuse(s, err->msg);
		goto out;
	}
	ret = send_msg(s, reply, err);
	reply = NULL;
	if (ret)
		goto out;
	eo.kind = engine_kind_of(&s->cfg);
	eo.udp = job_test_is_udp(s->cfg.test);
	eo.msg_bytes = s->cfg.msg_bytes;
	eo.rmsg_bytes = s->cfg.rmsg_bytes;
	eo.buf_offset = s->cfg.buf_offset;
	eo.transfer_bytes = s->cfg.transfer_bytes;
	eo.sendfile = s->cfg.test == JOB_TEST_TCP_SENDFILE;
	eo.sendfile_memfd = s->cfg.sendfile_from == JOB_SENDFILE_MEMFD;
	eo.req_bytes = s->cfg.req_bytes;
	eo.resp_bytes = s->cfg.resp_bytes;
	eo.burst = s->cfg.burst;
	eo.rate = s->cfg.rate;
	eo.rr_timeout_ns = s->cfg.rr_timeout_ns;
	eo.nodelay = s->cfg.nodelay;
	eo.connect_only = s->cfg.test == JOB_TEST_TCP_CC;
	eo.peer = s->peer;
	eo.batch = s->cfg.batch;
	eo.udp_gso = s->cfg.udp_gso;
	eo.udp_gro = s->cfg.udp_gro;
	eo.peer_rcvbuf = s->cfg.rcvbuf;
	eo.threads = s->cfg.threads;
	eo.cpus = s->cfg.remote_cpus;
	eo.cpus_shared = job_config_ends_share_cpus(&s->cfg);
	eo.drain_ns = 5 * NS_PER_S;
	eo.hold_cpu_latency = s->cfg.hold_cpu_latency;
	eo.cpu_latency_us = s->cfg.cpu_latency_us;
	eo.spin = s->cfg.spin;
	eo.tcpi_rx = s->tcpi_rx;
	s->eng = engine_new(&eo, err);
	if (!s->eng) {
		ret = -ENOMEM;
		goto out;
	}
	if (!eo.udp && eo.kind != ENGINE_CRR && (ret = accept_flows(s, fds, err))) {
		refuse(s, err->msg);
		goto out;
	}
	for (uint32_t i = 0; i < s->nflows; i++) {
		int *fdp = eo.udp ? &s->udp_fds[i] : &fds[i];

		/* a flow the client sends on is one this end receives */
		ret = engine_add_flow(s->eng, i, *fdp,
				      !job_config_flow_c2s(&s->cfg, i), err);
		*fdp = -1;
		if (ret)
			goto out;
	}
	json_decref(m);
	m = NULL;
	if ((ret = expect(s, "connected", STEP_TIMEOUT_NS, &m, err)))
		goto out;
	if ((ret = engine_launch(s->eng, err)) ||
	    (ret = engine_meter_init(&s->meter, &s->cfg.remote_cpus, &s->col, err))) {
		refuse(s, err->msg);
		goto out;
	}
	s->meter_ok = true;
	/* the full environment, read now: outside the measured window */
	if ((ret = send_msg(s, proto_msg("ready", json_pack("{s:o}", "sysenv",
					 engine_sysenv_json(&s->local))), err)))
		goto out;
	json_decref(m);
	m = NULL;
	if ((ret = expect(s, "start", STEP_TIMEOUT_NS, &m, err)))
		goto out;
	ret = measure(s, err);
	if (ret && ret != -ECONNRESET && ret != -EPIPE)
		refuse(s, err->msg);
out:
	json_decref(m);
	json_decref(reply);
	for (uint32_t i = 0; fds && i < s->nflows; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}

/* One client from hello to bye (in a child process of the server). */
int engine_server_session(const struct engine_server_opts *o, int ctl,
			  const struct engine_addr *peer)
{
	struct session s = { .o = o, .ctl = ctl, .lfd = -1, .peer = *peer };
	struct base_err err = { "" };
	int ret, one = 1;

	s.local.len = sizeof(s.local.ss);
	getsockname(ctl, (struct sockaddr *)&s.local.ss, &s.local.len);
	/* an IPv4 client of a listener on :: gets IPv4 data sockets */
	engine_addr_unmap(&s.local);
	engine_addr_unmap(&s.peer);
	engine_addr_str(&s.peer, true, s.peer_str, sizeof(s.peer_str));
	setsockopt(ctl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	ret = session_run(&s, &err);
	if (ret && ret != -ECONNRESET)
		logf_(o, "%s: session ended: %s", s.peer_str, err.msg);
	else if (ret)
		logf_(o, "%s: client went away", s.peer_str);
	else
		logf_(o, "%s: done", s.peer_str);
	if (s.meter_ok)
		engine_meter_release(&s.meter);
	engine_free(s.eng);
	for (uint32_t i = 0; s.udp_fds && i < s.nflows; i++)
		if (s.udp_fds[i] >= 0)
			close(s.udp_fds[i]);
	free(s.udp_fds);
	if (s.lfd >= 0)
		close(s.lfd);
	close(ctl);
	return ret ? 1 : 0;
}

static void busy(const struct engine_server_opts *o, int fd, uint32_t active)
{
	char why[160];
	json_t *m;

	snprintf(why, sizeof(why),
		 "server busy: %u clients already (--max-clients %u), try again later",
		 active, o->max_clients);
	m = proto_msg("error", json_pack("{s:s}", "message", why));
	if (m)
		proto_send(fd, m, base_now_ns() + NS_PER_S, NULL);
	json_decref(m);
	close(fd);
}

static void reap(pid_t *kids, uint32_t n, uint32_t *active)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) {
		for (uint32_t i = 0; i < n; i++) {
			if (kids[i] == pid) {
				kids[i] = 0;
				(*active)--;
			}
		}
	}
}

int engine_server_run(const struct engine_server_opts *o, struct base_err *err)
{
	struct engine_addr a, got = { .len = sizeof(got.ss) };
	uint32_t active = 0;
	pid_t *kids;
	char astr[80];
	int lfd = -1, ret;

	kids = calloc(o->max_clients ? o->max_clients : 1, sizeof(*kids));
	if (!kids)
		return base_err_set(err, -ENOMEM, "out of memory");
	ret = engine_addr_resolve(o->bind, o->port, 0, &a, err);
	if (ret)
		goto out;
	ret = engine_sock_bind(&a, SOCK_STREAM, false, NULL, 128, &lfd, err);
	if (ret)
		goto out;
	getsockname(lfd, (struct sockaddr *)&got.ss, &got.len);
	engine_addr_str(&got, true, astr, sizeof(astr));
	logf_(o, "listening on %s (max %u clients, %u streams, %.0f s%s)", astr,
	      o->max_clients, o->max_streams, (double)o->max_duration_ns / NS_PER_S,
	      o->no_cpu_latency ? "; no CPU latency requests" : "");
	if (o->ready_fd >= 0) {
		char line[16];
		int n = snprintf(line, sizeof(line), "%u\n", engine_addr_port(&got));

		if (write(o->ready_fd, line, (size_t)n) != n)
			logf_(o, "cannot report the port on the ready fd");
		close(o->ready_fd);
	}
	while (!(o->terminate && *o->terminate)) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		struct engine_addr peer = { .len = sizeof(peer.ss) };
		pid_t pid;
		int fd;

		reap(kids, o->max_clients, &active);
		if (poll(&p, 1, 200) <= 0)
			continue;
		fd = accept4(lfd, (struct sockaddr *)&peer.ss, &peer.len, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOMEM ||
			    errno == ENOBUFS) {
				logf_(o, "accept: %s; backing off", strerror(errno));
				usleep(100 * 1000);
			}
			continue;
		}
		if (active >= o->max_clients) {
			busy(o, fd, active);
			continue;
		}
		pid = fork();
		if (pid == 0) {
			close(lfd);
			_exit(engine_server_session(o, fd, &peer));
		}
		close(fd);
		if (pid < 0) {
			logf_(o, "fork: %s", strerror(errno));
			continue;
		}
		for (uint32_t i = 0; i < o->max_clients; i++) {
			if (!kids[i]) {
				kids[i] = pid;
				active++;
				break;
			}
		}
	}
	/* end only the sessions this server started, by PID */
	for (uint32_t i = 0; i < o->max_clients; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGTERM);
	for (int tries = 0; active && tries < 40; tries++) {
		usleep(50 * 1000);
		reap(kids, o->max_clients, &active);
	}
	for (uint32_t i = 0; i < o->max_clients; i++)
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	ret = 0;
out:
	if (lfd >= 0)
		close(lfd);
	free(kids);
	return ret;
}
