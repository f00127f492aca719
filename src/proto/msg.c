// SPDX-License-Identifier: GPL-2.0-only
/* Reports on the wire and strict field readers; nothing a peer sends is trusted. */
#include "proto/msg.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int proto_get_i64(const json_t *obj, const char *key, int64_t min, int64_t max,
		  int64_t *out, struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);
	char type[BASE_QUOTE_LEN];

	base_quote(proto_type_or(obj), type);
	if (!json_is_integer(v))
		return base_err_set(err, -EPROTO,
				    "'%s' message: field '%s' must be an integer",
				    type, key);
	*out = json_integer_value(v);
	if (*out < min || *out > max)
		return base_err_set(err, -EPROTO,
				    "'%s' message: field '%s' = %" PRId64
				    " is out of range %" PRId64 "..%" PRId64,
				    type, key, *out, min, max);
	return 0;
}

int proto_get_str(const json_t *obj, const char *key, size_t max_len,
		  const char **out, struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);
	char q[BASE_QUOTE_LEN];

	if (!json_is_string(v) || json_string_length(v) > max_len ||
	    strlen(json_string_value(v)) != json_string_length(v) ||
	    base_has_control(json_string_value(v)))
		return base_err_set(err, -EPROTO,
				    "'%s' message: field '%s' must be a string of at most %zu bytes, no control character",
				    base_quote(proto_type_or(obj), q), key, max_len);
	*out = json_string_value(v);
	return 0;
}

int proto_get_bool(const json_t *obj, const char *key, bool *out,
		   struct base_err *err)
{
	const json_t *v = json_object_get(obj, key);
	char q[BASE_QUOTE_LEN];

	if (!json_is_boolean(v))
		return base_err_set(err, -EPROTO,
				    "'%s' message: field '%s' must be true or false",
				    base_quote(proto_type_or(obj), q), key);
	*out = json_is_true(v);
	return 0;
}

const char *proto_type_or(const json_t *obj)
{
	const char *t = json_string_value(json_object_get(obj, "type"));

	return t ? t : "result";
}

json_t *proto_msg(const char *type, json_t *extra)
{
	json_t *m = json_object();

	if (!m) {
		json_decref(extra);
		return NULL;
	}
	if (extra) {
		json_object_update(m, extra);
		json_decref(extra);
	}
	json_object_set_new(m, "type", json_string(type));
	return m;
}

static json_t *cpu_to_json(const struct proto_cpu *c)
{
	if (!c->valid)
		return json_null();
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}",
			 "user", c->user, "sys", c->sys, "softirq", c->softirq,
			 "irq", c->irq, "idle", c->idle, "iowait", c->iowait,
			 "steal", c->steal, "busy", c->busy, "busy_ticks", c->busy_ticks);
}

static int cpu_from_json(const json_t *j, struct proto_cpu *c,
			 struct base_err *err)
{
	/* busy_ticks, last, may be missing: a peer from before it sent busy
	 * from the ticks alone */
	static const char *const keys[] = { "user", "sys", "softirq", "irq", "idle",
					    "iowait", "steal", "busy", "busy_ticks" };
	double *fields[] = { &c->user, &c->sys, &c->softirq, &c->irq, &c->idle,
			     &c->iowait, &c->steal, &c->busy, &c->busy_ticks };

	memset(c, 0, sizeof(*c));
	if (json_is_null(j))
		return 0;
	if (!json_is_object(j))
		return base_err_set(err, -EPROTO, "report: cpu must be an object or null");
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const json_t *v = json_object_get(j, keys[i]);
		double d;

		if (!v && fields[i] == &c->busy_ticks) {
			c->busy_ticks = c->busy;
			continue;
		}
		if (!json_is_number(v))
			return base_err_set(err, -EPROTO,
					    "report: cpu field '%s' must be a number",
					    keys[i]);
		d = json_number_value(v);
		if (!isfinite(d) || d < 0 || d > 100.0001)
			return base_err_set(err, -EPROTO,
					    "report: cpu field '%s' = %g is not a percentage",
					    keys[i], d);
		*fields[i] = d;
	}
	c->valid = true;
	return 0;
}

static json_t *flow_to_json(const struct proto_flow_report *f)
{
	json_t *j = json_pack(
		"{s:I, s:b, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:i, s:I}",
		"id", (json_int_t)f->id, "tx", f->tx,
		"win_bytes", (json_int_t)f->win_bytes,
		"win_msgs", (json_int_t)f->win_msgs,
		"win_calls", (json_int_t)f->win_calls,
		"total_bytes", (json_int_t)f->total_bytes,
		"total_msgs", (json_int_t)f->total_msgs,
		"udp_lost", (json_int_t)f->udp_lost,
		"udp_reordered", (json_int_t)f->udp_reordered,
		"udp_dup", (json_int_t)f->udp_dup,
		"sndbuf", (json_int_t)f->sndbuf, "rcvbuf", (json_int_t)f->rcvbuf,
		"sndbuf_end", (json_int_t)f->sndbuf_end,
		"rcvbuf_end", (json_int_t)f->rcvbuf_end, "eof", f->eof,
		"err", f->err, "fails", (json_int_t)f->fails);

	if (j && f->has_tcpi)
		json_object_set_new(
			j, "tcp_info",
			json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				  "total_retrans", (json_int_t)f->tcpi.total_retrans,
				  "rtt_us", (json_int_t)f->tcpi.rtt_us,
				  "rttvar_us", (json_int_t)f->tcpi.rttvar_us,
				  "snd_cwnd", (json_int_t)f->tcpi.snd_cwnd,
				  "snd_mss", (json_int_t)f->tcpi.snd_mss,
				  "delivery_rate_bps", (json_int_t)f->tcpi.delivery_rate_bps,
				  "bytes_retrans", (json_int_t)f->tcpi.bytes_retrans));
	if (j && f->has_tcpi && f->tcpi.cc[0])
		json_object_set_new(json_object_get(j, "tcp_info"), "cc",
				    json_string(f->tcpi.cc));
	if (j && f->has_tcpi && f->tcpi.has_wscale)
		json_object_set_new(json_object_get(j, "tcp_info"), "snd_wscale",
				    json_integer(f->tcpi.snd_wscale));
	if (j && f->has_tcpi_rx)
		json_object_set_new(
			j, "tcp_info_rx",
			json_pack("{s:I, s:I, s:I, s:I}",
				  "rcv_space", (json_int_t)f->tcpi_rx.rcv_space,
				  "rcv_ssthresh", (json_int_t)f->tcpi_rx.rcv_ssthresh,
				  "rcv_wscale", (json_int_t)f->tcpi_rx.rcv_wscale,
				  "advmss", (json_int_t)f->tcpi_rx.advmss));
	if (j && f->has_sock_drops)
		json_object_set_new(j, "sock_drops", json_integer((json_int_t)f->sock_drops));
	if (j && f->has_tcpi_win)
		json_object_set_new(
			j, "tcp_info_window",
			json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
				  "data_segs_out", (json_int_t)f->tcpi_win.data_segs_out,
				  "bytes_sent", (json_int_t)f->tcpi_win.bytes_sent,
				  "retrans", (json_int_t)f->tcpi_win.retrans,
				  "dsack_dups", (json_int_t)f->tcpi_win.dsack_dups,
				  "reord_seen", (json_int_t)f->tcpi_win.reord_seen,
				  "busy_us", (json_int_t)f->tcpi_win.busy_us,
				  "rwnd_limited_us", (json_int_t)f->tcpi_win.rwnd_limited_us,
				  "sndbuf_limited_us", (json_int_t)f->tcpi_win.sndbuf_limited_us));
	if (j && f->has_tcpi_win && f->tcpi_win.has_segs)
		json_object_update_new(json_object_get(j, "tcp_info_window"),
				       json_pack("{s:I, s:I}",
						 "segs_out", (json_int_t)f->tcpi_win.segs_out,
						 "data_segs_in", (json_int_t)f->tcpi_win.data_segs_in));
	return j;
}

#define U32_FIELD(obj, key, dst)                                              \
	do {                                                                  \
		int64_t v_;                                                   \
		if ((ret = proto_get_i64(obj, key, 0, UINT32_MAX, &v_, err))) \
			return ret;                                           \
		dst = (uint32_t)v_;                                           \
	} while (0)

#define U64_FIELD(obj, key, dst)                                              \
	do {                                                                  \
		int64_t v_;                                                   \
		if ((ret = proto_get_i64(obj, key, 0, INT64_MAX, &v_, err)))  \
			return ret;                                           \
		dst = (uint64_t)v_;                                           \
	} while (0)

/* The kernel's largest window scale (RFC 7323, TCP_MAX_WSCALE). */
#define PROTO_WSCALE_MAX 14

/* A window scale field of obj: 0 to PROTO_WSCALE_MAX. */
static int wscale_from_json(const json_t *obj, const char *key, uint8_t *out,
			    struct base_err *err)
{
	int64_t v;
	int ret = proto_get_i64(obj, key, 0, PROTO_WSCALE_MAX, &v, err);

	if (!ret)
		*out = (uint8_t)v;
	return ret;
}

/* A sender's "tcp_info" (ti, an object). */
static int tcpi_from_json(const json_t *ti, struct proto_tcpi *t,
			  struct base_err *err)
{
	int ret;

	U32_FIELD(ti, "total_retrans", t->total_retrans);
	U32_FIELD(ti, "rtt_us", t->rtt_us);
	U32_FIELD(ti, "rttvar_us", t->rttvar_us);
	U32_FIELD(ti, "snd_cwnd", t->snd_cwnd);
	U32_FIELD(ti, "snd_mss", t->snd_mss);
	U64_FIELD(ti, "delivery_rate_bps", t->delivery_rate_bps);
	U64_FIELD(ti, "bytes_retrans", t->bytes_retrans);
	/* an end older than the name sends none */
	if (json_object_get(ti, "cc")) {
		const char *cc;

		if ((ret = proto_get_str(ti, "cc", sizeof(t->cc) - 1, &cc, err)))
			return ret;
		snprintf(t->cc, sizeof(t->cc), "%s", cc);
	}
	/* nor the window scale */
	if (json_object_get(ti, "snd_wscale")) {
		if ((ret = wscale_from_json(ti, "snd_wscale", &t->snd_wscale, err)))
			return ret;
		t->has_wscale = true;
	}
	return 0;
}

/* What only a receiver reports (what: its member) refused on a flow
 * this end sent on. */
static int receiver_only(const struct proto_flow_report *f, const char *what,
			 struct base_err *err)
{
	if (!f->tx)
		return 0;
	return base_err_set(err, -EPROTO, "report: %s on flow %u, which this end sent on",
			    what, f->id);
}

/* A receiver's "tcp_info_rx" (ti, present) on flow f. */
static int tcpi_rx_from_json(const json_t *ti, struct proto_flow_report *f,
			     struct base_err *err)
{
	struct proto_tcpi_rx *t = &f->tcpi_rx;
	int ret;

	if (!json_is_object(ti))
		return base_err_set(err, -EPROTO, "report: tcp_info_rx must be an object");
	if ((ret = receiver_only(f, "tcp_info_rx", err)))
		return ret;
	U32_FIELD(ti, "rcv_space", t->rcv_space);
	U32_FIELD(ti, "rcv_ssthresh", t->rcv_ssthresh);
	U32_FIELD(ti, "advmss", t->advmss);
	if ((ret = wscale_from_json(ti, "rcv_wscale", &t->rcv_wscale, err)))
		return ret;
	f->has_tcpi_rx = true;
	return 0;
}

static int flow_from_json(const json_t *j, struct proto_flow_report *f,
			  struct base_err *err)
{
	const json_t *ti;
	int64_t v;
	int ret;

	memset(f, 0, sizeof(*f));
	if (!json_is_object(j))
		return base_err_set(err, -EPROTO, "report: a flow must be an object");
	if ((ret = proto_get_i64(j, "id", 0, UINT32_MAX, &v, err)))
		return ret;
	f->id = (uint32_t)v;
	if ((ret = proto_get_bool(j, "tx", &f->tx, err)) ||
	    (ret = proto_get_bool(j, "eof", &f->eof, err)))
		return ret;
	U64_FIELD(j, "win_bytes", f->win_bytes);
	U64_FIELD(j, "win_msgs", f->win_msgs);
	U64_FIELD(j, "win_calls", f->win_calls);
	U64_FIELD(j, "total_bytes", f->total_bytes);
	U64_FIELD(j, "total_msgs", f->total_msgs);
	U64_FIELD(j, "udp_lost", f->udp_lost);
	U64_FIELD(j, "udp_reordered", f->udp_reordered);
	U64_FIELD(j, "udp_dup", f->udp_dup);
	U64_FIELD(j, "fails", f->fails);
	U64_FIELD(j, "sndbuf", f->sndbuf);
	U64_FIELD(j, "rcvbuf", f->rcvbuf);
	U64_FIELD(j, "sndbuf_end", f->sndbuf_end);
	U64_FIELD(j, "rcvbuf_end", f->rcvbuf_end);
	if ((ret = proto_get_i64(j, "err", 0, 4095, &v, err)))
		return ret;
	f->err = (int)v;
	ti = json_object_get(j, "tcp_info");
	if (ti) {
		if (!json_is_object(ti))
			return base_err_set(err, -EPROTO, "report: tcp_info must be an object");
		f->has_tcpi = true;
		if ((ret = tcpi_from_json(ti, &f->tcpi, err)))
			return ret;
	}
	/* an end older than the receiver's state sends none */
	ti = json_object_get(j, "tcp_info_rx");
	if (ti && (ret = tcpi_rx_from_json(ti, f, err)))
		return ret;
	/* an end older than the window's figures sends none */
	if (json_object_get(j, "sock_drops")) {
		if ((ret = receiver_only(f, "sock_drops", err)))
			return ret;
		U32_FIELD(j, "sock_drops", f->sock_drops);
		f->has_sock_drops = true;
	}
	ti = json_object_get(j, "tcp_info_window");
	if (ti) {
		struct proto_tcpi_win *w = &f->tcpi_win;

		if (!json_is_object(ti))
			return base_err_set(err, -EPROTO, "report: tcp_info_window must be an object");
		U32_FIELD(ti, "data_segs_out", w->data_segs_out);
		U64_FIELD(ti, "bytes_sent", w->bytes_sent);
		U32_FIELD(ti, "retrans", w->retrans);
		U32_FIELD(ti, "dsack_dups", w->dsack_dups);
		U32_FIELD(ti, "reord_seen", w->reord_seen);
		U64_FIELD(ti, "busy_us", w->busy_us);
		U64_FIELD(ti, "rwnd_limited_us", w->rwnd_limited_us);
		U64_FIELD(ti, "sndbuf_limited_us", w->sndbuf_limited_us);
		if (w->rwnd_limited_us + w->sndbuf_limited_us > w->busy_us)
			return base_err_set(err, -EPROTO,
					    "report: tcp_info_window of flow %u: limited %llu + %llu us exceeds busy %llu us",
					    f->id, (unsigned long long)w->rwnd_limited_us,
					    (unsigned long long)w->sndbuf_limited_us,
					    (unsigned long long)w->busy_us);
		/* an end older than the segment counts sends neither */
		if (json_object_get(ti, "segs_out") || json_object_get(ti, "data_segs_in")) {
			U32_FIELD(ti, "segs_out", w->segs_out);
			U32_FIELD(ti, "data_segs_in", w->data_segs_in);
			if (w->data_segs_out > w->segs_out)
				return base_err_set(err, -EPROTO,
						    "report: tcp_info_window of flow %u: %u data segments out of %u segments",
						    f->id, w->data_segs_out, w->segs_out);
			w->has_segs = true;
		}
		f->has_tcpi_win = true;
	}
	return 0;
}

/* A metric name: dotted words of [A-Za-z0-9_+:-], as collectors make them. */
static bool metric_name_ok(const char *k)
{
	size_t n = strlen(k);

	if (!n || n > PROTO_METRIC_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = k[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-' ||
		      c == '+' || c == ':'))
			return false;
	}
	return true;
}

static int metrics_from_json(const json_t *m, json_t **out,
			     struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *k;
	const json_t *v;

	*out = NULL;
	if (!m)
		return 0;
	if (!json_is_object(m) || json_object_size(m) > PROTO_MAX_METRICS)
		return base_err_set(err, -EPROTO,
				    "report: metrics must be an object of at most %d numbers",
				    PROTO_MAX_METRICS);
	json_object_foreach((json_t *)m, k, v) {
		if (!metric_name_ok(k))
			return base_err_set(err, -EPROTO,
					    "report: invalid metric name '%s'", base_quote(k, q));
		if (!json_is_number(v) || !isfinite(json_number_value(v)))
			return base_err_set(err, -EPROTO,
					    "report: metric '%s' must be a finite number", k);
	}
	*out = json_incref((json_t *)m);
	return 0;
}

static int notes_from_json(const json_t *m, json_t **out, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *k;
	const json_t *v;

	*out = NULL;
	if (!m)
		return 0;
	if (!json_is_object(m) || json_object_size(m) > 256)
		return base_err_set(err, -EPROTO,
				    "report: notes must be an object of at most 256 strings");
	json_object_foreach((json_t *)m, k, v) {
		if (!metric_name_ok(k) || !json_is_string(v) ||
		    json_string_length(v) >= PROTO_STR_MAX ||
		    base_has_control(json_string_value(v)))
			return base_err_set(err, -EPROTO,
					    "report: note '%s' must be a short string with no control character", base_quote(k, q));
	}
	*out = json_incref((json_t *)m);
	return 0;
}

void proto_end_report_release(struct proto_end_report *r)
{
	free(r->flows);
	json_decref(r->metrics);
	json_decref(r->notes);
	memset(r, 0, sizeof(*r));
}

json_t *proto_end_report_to_json(const struct proto_end_report *r)
{
	json_t *flows = json_array(), *j;

	for (uint32_t i = 0; flows && i < r->nflows; i++) {
		json_t *f = flow_to_json(&r->flows[i]);

		/* a report missing a flow would be misread: all or nothing */
		if (!f || json_array_append_new(flows, f)) {
			json_decref(flows);
			return NULL;
		}
	}
	if (!flows)
		return NULL;
	j = json_pack("{s:I, s:I, s:I, s:I, s:I, s:o, s:o, s:b, s:o}",
		      "window_ns", (json_int_t)r->window_ns,
		      "user_ns", (json_int_t)r->user_ns,
		      "sys_ns", (json_int_t)r->sys_ns,
		      "nvcsw", (json_int_t)r->nvcsw,
		      "nivcsw", (json_int_t)r->nivcsw,
		      "cpu_all", cpu_to_json(&r->cpu_all),
		      "cpu_test", cpu_to_json(&r->cpu_test),
		      "drain_timeout", r->drain_timeout, "flows", flows);
	if (j && json_object_update_new(j, json_pack("{s:I, s:I, s:I, s:I, s:s}",
						     "cpu_ns", (json_int_t)r->cpu_ns,
						     "workers_ns", (json_int_t)r->workers_ns,
						     "runq_wait_ns", (json_int_t)r->runq_wait_ns,
						     "nworkers", (json_int_t)r->nworkers,
						     "worker_cpus", r->worker_cpus))) {
		json_decref(j);
		return NULL;
	}
	if (j && r->metrics)
		json_object_set(j, "metrics", r->metrics);
	if (j && r->notes)
		json_object_set(j, "notes", r->notes);
	return j;
}

int proto_end_report_from_json(const json_t *j, uint32_t max_flows,
			       struct proto_end_report *r,
			       struct base_err *err)
{
	const json_t *flows;
	const char *wc = NULL;
	int64_t nw = 0;
	int ret;

	memset(r, 0, sizeof(*r));
	if (!json_is_object(j))
		return base_err_set(err, -EPROTO, "report must be an object");
	if ((ret = proto_get_i64(j, "window_ns", 0, INT64_MAX, &r->window_ns, err)) ||
	    (ret = proto_get_i64(j, "user_ns", 0, INT64_MAX, &r->user_ns, err)) ||
	    (ret = proto_get_i64(j, "sys_ns", 0, INT64_MAX, &r->sys_ns, err)) ||
	    (ret = proto_get_i64(j, "nvcsw", 0, INT64_MAX, &r->nvcsw, err)) ||
	    (ret = proto_get_i64(j, "nivcsw", 0, INT64_MAX, &r->nivcsw, err)) ||
	    (ret = proto_get_i64(j, "cpu_ns", -1, INT64_MAX, &r->cpu_ns, err)) ||
	    (ret = proto_get_i64(j, "workers_ns", -1, INT64_MAX, &r->workers_ns, err)) ||
	    (ret = proto_get_i64(j, "runq_wait_ns", -1, INT64_MAX, &r->runq_wait_ns, err)) ||
	    (ret = proto_get_i64(j, "nworkers", 0, UINT32_MAX, &nw, err)) ||
	    (ret = proto_get_str(j, "worker_cpus", PROTO_STR_MAX - 1, &wc, err)) ||
	    (ret = proto_get_bool(j, "drain_timeout", &r->drain_timeout, err)) ||
	    (ret = cpu_from_json(json_object_get(j, "cpu_all"), &r->cpu_all, err)) ||
	    (ret = cpu_from_json(json_object_get(j, "cpu_test"), &r->cpu_test, err)))
		return ret;
	if (strspn(wc, "0123456789,-") != strlen(wc))
		return base_err_set(err, -EPROTO,
				    "'result' message: field 'worker_cpus' must be a cpu list like 0,1");
	r->nworkers = (uint32_t)nw;
	snprintf(r->worker_cpus, sizeof(r->worker_cpus), "%s", wc);
	if ((ret = metrics_from_json(json_object_get(j, "metrics"), &r->metrics, err)) ||
	    (ret = notes_from_json(json_object_get(j, "notes"), &r->notes, err))) {
		proto_end_report_release(r);
		return ret;
	}
	flows = json_object_get(j, "flows");
	if (!json_is_array(flows) || json_array_size(flows) > max_flows) {
		proto_end_report_release(r);
		return base_err_set(err, -EPROTO,
				    "report: flows must be an array of at most %u entries",
				    max_flows);
	}
	r->nflows = (uint32_t)json_array_size(flows);
	r->flows = calloc(r->nflows ? r->nflows : 1, sizeof(*r->flows));
	if (!r->flows) {
		proto_end_report_release(r);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < r->nflows; i++) {
		ret = flow_from_json(json_array_get(flows, i), &r->flows[i], err);
		if (ret) {
			proto_end_report_release(r);
			return ret;
		}
	}
	return 0;
}

int proto_env_check(const json_t *env, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *key;
	const json_t *v;

	if (!json_is_object(env) || json_object_size(env) > PROTO_ENV_MAX_KEYS)
		return base_err_set(err, -EPROTO,
				    "environment must be an object of at most %d keys",
				    PROTO_ENV_MAX_KEYS);
	json_object_foreach((json_t *)env, key, v) {
		if (strlen(key) >= 64 || base_has_control(key) ||
		    !(json_is_number(v) ||
		      (json_is_string(v) && json_string_length(v) < PROTO_STR_MAX &&
		       !base_has_control(json_string_value(v)))))
			return base_err_set(err, -EPROTO,
					    "environment entry '%s' must be a short string or a number, with no control character in either",
					    base_quote(key, q));
	}
	return 0;
}
