// SPDX-License-Identifier: GPL-2.0-only
/* A sample as the JSON result document of docs/results.md, and back. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "base/sample.h"
#include "base/time.h"

static void iso_time(int64_t wall_ns, char *buf, size_t len)
{
	time_t t = (time_t)(wall_ns / NS_PER_S);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, len, "?");
}

static json_t *flow_json(const struct sample_flow *f, bool udp)
{
	json_t *j = json_pack(
		"{s:I, s:s, s:f, s:f, s:I, s:I, s:I, s:I, s:I, s:I, s:{s:I, s:I, s:I, s:I}, s:{s:I, s:I, s:I, s:I}}",
		"id", (json_int_t)f->id, "dir", f->dir,
		"receiver_gbps", f->rx_gbps, "sender_gbps", f->tx_gbps,
		"receiver_bytes", (json_int_t)f->rx_win_bytes,
		"receiver_msgs", (json_int_t)f->rx_win_msgs,
		"sender_bytes", (json_int_t)f->tx_win_bytes,
		"sender_msgs", (json_int_t)f->tx_win_msgs,
		"receiver_total_bytes", (json_int_t)f->rx_total_bytes,
		"sender_total_bytes", (json_int_t)f->tx_total_bytes,
		"sockbuf_start", "client_sndbuf", (json_int_t)f->client_sndbuf,
		"client_rcvbuf", (json_int_t)f->client_rcvbuf,
		"server_sndbuf", (json_int_t)f->server_sndbuf,
		"server_rcvbuf", (json_int_t)f->server_rcvbuf,
		"sockbuf_end", "client_sndbuf", (json_int_t)f->client_sndbuf_end,
		"client_rcvbuf", (json_int_t)f->client_rcvbuf_end,
		"server_sndbuf", (json_int_t)f->server_sndbuf_end,
		"server_rcvbuf", (json_int_t)f->server_rcvbuf_end);

	if (!j)
		return NULL;
	if (f->tps > 0 || f->fails)
		json_object_set_new(j, "rr", json_pack("{s:f, s:I}",
				"transactions_per_s", f->tps,
				"connect_failures", (json_int_t)f->fails));
	if (udp)
		json_object_set_new(j, "udp", json_pack("{s:I, s:I, s:I}",
				"lost", (json_int_t)f->udp_lost,
				"reordered", (json_int_t)f->udp_reordered,
				"duplicates", (json_int_t)f->udp_dup));
	if (f->has_tcp_info)
		json_object_set_new(j, "tcp_info", json_pack("{s:I, s:I, s:I, s:I, s:I, s:f}",
				"retransmits", (json_int_t)f->tcpi_retrans,
				"rtt_us", (json_int_t)f->tcpi_rtt_us,
				"rttvar_us", (json_int_t)f->tcpi_rttvar_us,
				"snd_cwnd", (json_int_t)f->tcpi_snd_cwnd,
				"snd_mss", (json_int_t)f->tcpi_snd_mss,
				"delivery_rate_gbps", (double)f->tcpi_delivery_rate_bps / 1e9));
	return j;
}

/* n values as a JSON array, NaN as null; NULL on ENOMEM */
static json_t *reals_to_json(const double *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, isnan(v[i]) ? json_null() : json_real(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* "window_series": {"step_s", "unit", "values": [...], and each probe's
 * [...] the sample kept}; nonzero on failure */
static int series_to_json(const struct base_sample *s, json_t *doc)
{
	json_t *vals = reals_to_json(s->series, s->nseries), *o;

	o = vals ? json_pack("{s:f, s:s, s:o}", "step_s", s->series_step_s,
			     "unit", s->series_unit, "values", vals) : NULL;
	for (size_t k = 0; o && k < BASE_TICK_PROBES; k++)
		if (s->series_probe[k] &&
		    json_object_set_new(o, base_tick_probe_key[k],
					reals_to_json(s->series_probe[k], s->nseries))) {
			json_decref(o);
			o = NULL;
		}
	return !o || json_object_set_new(doc, "window_series", o);
}

json_t *base_sample_to_json(const struct base_sample *s)
{
	json_t *doc, *params = json_object(), *env = json_object(),
		*metrics = json_object(), *flows = json_array();
	const char *test = base_sample_param_get(s, "test", "?");
	bool udp = !strcmp(test, "udp_stream") || !strcmp(test, "udp_rr");
	char when[32];

	if (!params || !env || !metrics || !flows)
		goto fail;
	for (size_t i = 0; i < s->nparams; i++)
		json_object_set_new(params, s->params[i].key,
				    json_string(s->params[i].val));
	for (size_t i = 0; i < s->nenv; i++) {
		const char *k = s->env[i].key, *dot = strchr(k, '.');
		char side[32];
		json_t *o;

		if (!dot || (size_t)(dot - k) >= sizeof(side))
			continue;
		snprintf(side, sizeof(side), "%.*s", (int)(dot - k), k);
		o = json_object_get(env, side);
		if (!o) {
			o = json_object();
			json_object_set_new(env, side, o);
		}
		json_object_set_new(o, dot + 1, json_string(s->env[i].val));
	}
	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct sample_metric *m = &s->metrics[i];

		json_object_set_new(metrics, m->name, json_pack("{s:f, s:s, s:s}",
				"value", m->value, "unit", m->unit,
				"better", base_metric_dir_name(base_metric_dir(m->name))));
	}
	for (size_t i = 0; i < s->nflows; i++)
		json_array_append_new(flows, flow_json(&s->flows[i], udp));
	iso_time(s->wall_start_ns, when, sizeof(when));
	doc = json_pack("{s:i, s:s, s:s, s:s, s:s, s:I, s:{s:s, s:o}, s:{s:I, s:I, s:s}, s:o, s:o, s:o}",
			"schema_version", SAMPLE_SCHEMA_VERSION,
			"tool", BASE_TOOL, "sample_id", s->id, "label", s->label,
			"started_at", when, "started_at_ns", (json_int_t)s->wall_start_ns,
			"config", "key", s->config_key, "params", params,
			"run", "duration_ns", (json_int_t)s->duration_ns,
			"warmup_ns", (json_int_t)s->warmup_ns, "server", s->server,
			"env", env, "metrics", metrics, "flows", flows);
	if (doc && s->sysenv &&
	    json_object_set(doc, "sysenv", s->sysenv)) {
		json_decref(doc);
		return NULL;
	}
	if (doc && s->series && series_to_json(s, doc)) {
		json_decref(doc);
		return NULL;
	}
	if (doc && s->latency) {
		json_t *h = base_hist_to_json(s->latency);

		if (!h || json_object_set_new(doc, "latency_histogram_ns", h)) {
			json_decref(doc);
			return NULL;
		}
	}
	return doc;
fail:
	json_decref(params);
	json_decref(env);
	json_decref(metrics);
	json_decref(flows);
	return NULL;
}


/*
 * Reading a result document back. Every field is type-checked and every
 * string must fit its buffer: a document that does not fit is refused, never
 * truncated. The first problem is reported with its path in the document.
 */
#define DOC_ERR "result document: "

struct doc_reader {
	struct base_err *err;
	char path[192]; /* the object being read, "" for the top level */
};

/*
 * Names and strings are printed as they are by show, compare and report:
 * no control character (a newline would forge a line, an escape sequence
 * drive a terminal). netregress never writes one; a document that has one
 * was made elsewhere.
 */
#define CONTROL_IN_NAME "has a control character in its name"
#define CONTROL_IN_VALUE "must not contain a control character"

/* "<parent>.<key>" of the field being read, shortened for messages only. */
static const char *field_path(const struct doc_reader *r, const char *key,
			      char *buf, size_t len)
{
	if (!r->path[0])
		snprintf(buf, len, "%.120s", key);
	else if (!key)
		snprintf(buf, len, "%s", r->path);
	else
		snprintf(buf, len, "%s.%.120s", r->path, key);
	return buf;
}

static int doc_bad(const struct doc_reader *r, const char *key,
		   const char *what)
{
	char p[320];

	return base_err_set(r->err, -EINVAL, DOC_ERR "'%s' %s",
			    field_path(r, key, p, sizeof(p)), what);
}

/* The member key of the current object: NULL and an error when missing. */
static const json_t *doc_member(const struct doc_reader *r, const json_t *obj,
				const char *key, bool required, int *ret)
{
	const json_t *v = json_object_get(obj, key);

	*ret = 0;
	if (!v && required)
		*ret = doc_bad(r, key, "is missing");
	return v;
}

static int doc_string(const struct doc_reader *r, const json_t *v,
		      const char *key, char *dst, size_t cap)
{
	char what[64];
	size_t len;

	if (!json_is_string(v))
		return doc_bad(r, key, "must be a string");
	len = json_string_length(v);
	if (strlen(json_string_value(v)) != len)
		return doc_bad(r, key, "must not contain a nul character");
	if (base_has_control(json_string_value(v)))
		return doc_bad(r, key, CONTROL_IN_VALUE);
	if (len >= cap) {
		snprintf(what, sizeof(what), "is too long (%zu bytes, at most %zu)",
			 len, cap - 1);
		return doc_bad(r, key, what);
	}
	memcpy(dst, json_string_value(v), len + 1);
	return 0;
}

static int doc_get_string(const struct doc_reader *r, const json_t *obj,
			  const char *key, char *dst, size_t cap)
{
	int ret;
	const json_t *v = doc_member(r, obj, key, true, &ret);

	return ret ? ret : doc_string(r, v, key, dst, cap);
}

/* An optional informational string: checked for its type only. */
static int doc_check_string(const struct doc_reader *r, const json_t *obj,
			    const char *key)
{
	const json_t *v = json_object_get(obj, key);

	if (v && !json_is_string(v))
		return doc_bad(r, key, "must be a string");
	return 0;
}

static int doc_get_int(const struct doc_reader *r, const json_t *obj,
		       const char *key, int64_t min, int64_t max, int64_t *out)
{
	char what[96];
	int ret;
	const json_t *v = doc_member(r, obj, key, true, &ret);

	if (ret)
		return ret;
	if (!json_is_integer(v))
		return doc_bad(r, key, "must be an integer");
	*out = json_integer_value(v);
	if (*out < min || *out > max) {
		snprintf(what, sizeof(what), "is out of range (%" PRId64 ", want %" PRId64 "..%" PRId64 ")",
			 *out, min, max);
		return doc_bad(r, key, what);
	}
	return 0;
}

static int doc_get_u64(const struct doc_reader *r, const json_t *obj,
		       const char *key, uint64_t *out)
{
	int64_t v;
	int ret = doc_get_int(r, obj, key, 0, INT64_MAX, &v);

	if (!ret)
		*out = (uint64_t)v;
	return ret;
}

static int doc_get_u32(const struct doc_reader *r, const json_t *obj,
		       const char *key, uint32_t *out)
{
	int64_t v;
	int ret = doc_get_int(r, obj, key, 0, UINT32_MAX, &v);

	if (!ret)
		*out = (uint32_t)v;
	return ret;
}

static int doc_get_number(const struct doc_reader *r, const json_t *obj,
			  const char *key, double *out)
{
	int ret;
	const json_t *v = doc_member(r, obj, key, true, &ret);

	if (ret)
		return ret;
	if (!json_is_number(v))
		return doc_bad(r, key, "must be a number");
	*out = json_number_value(v);
	return 0;
}

static int doc_get_object(const struct doc_reader *r, const json_t *obj,
			  const char *key, bool required, const json_t **out)
{
	int ret;
	const json_t *v = doc_member(r, obj, key, required, &ret);

	*out = v;
	if (ret)
		return ret;
	if (v && !json_is_object(v))
		return doc_bad(r, key, "must be an object");
	return 0;
}

/* Descend into key: later messages name fields below it. */
static void doc_enter(struct doc_reader *r, const char *key)
{
	size_t len = strlen(r->path);

	snprintf(r->path + len, sizeof(r->path) - len, "%s%.120s",
		 len ? "." : "", key);
}

static void doc_leave(struct doc_reader *r, size_t len)
{
	r->path[len] = '\0';
}

static int sockbuf_from_json(struct doc_reader *r, const json_t *f,
			     const char *key, uint64_t *csnd, uint64_t *crcv,
			     uint64_t *ssnd, uint64_t *srcv)
{
	size_t len = strlen(r->path);
	const json_t *o;
	int ret;

	if ((ret = doc_get_object(r, f, key, true, &o)))
		return ret;
	doc_enter(r, key);
	if (!(ret = doc_get_u64(r, o, "client_sndbuf", csnd)) &&
	    !(ret = doc_get_u64(r, o, "client_rcvbuf", crcv)) &&
	    !(ret = doc_get_u64(r, o, "server_sndbuf", ssnd)))
		ret = doc_get_u64(r, o, "server_rcvbuf", srcv);
	doc_leave(r, len);
	return ret;
}

static int udp_from_json(struct doc_reader *r, const json_t *f, bool required,
			 struct sample_flow *fl)
{
	size_t len = strlen(r->path);
	const json_t *o;
	int ret;

	if ((ret = doc_get_object(r, f, "udp", required, &o)) || !o)
		return ret;
	doc_enter(r, "udp");
	if (!(ret = doc_get_u64(r, o, "lost", &fl->udp_lost)) &&
	    !(ret = doc_get_u64(r, o, "reordered", &fl->udp_reordered)))
		ret = doc_get_u64(r, o, "duplicates", &fl->udp_dup);
	doc_leave(r, len);
	return ret;
}

static int rr_from_json(struct doc_reader *r, const json_t *f,
			struct sample_flow *fl)
{
	size_t len = strlen(r->path);
	const json_t *o;
	int ret;

	if ((ret = doc_get_object(r, f, "rr", false, &o)) || !o)
		return ret;
	doc_enter(r, "rr");
	if (!(ret = doc_get_number(r, o, "transactions_per_s", &fl->tps)) &&
	    !(ret = doc_get_u64(r, o, "connect_failures", &fl->fails)) &&
	    !(fl->tps >= 0))
		ret = doc_bad(r, "transactions_per_s", "must not be negative");
	doc_leave(r, len);
	return ret;
}

static int tcp_info_from_json(struct doc_reader *r, const json_t *f,
			      struct sample_flow *fl)
{
	size_t len = strlen(r->path);
	const json_t *o;
	double gbps;
	int ret;

	if ((ret = doc_get_object(r, f, "tcp_info", false, &o)) || !o)
		return ret;
	doc_enter(r, "tcp_info");
	if ((ret = doc_get_u32(r, o, "retransmits", &fl->tcpi_retrans)) ||
	    (ret = doc_get_u32(r, o, "rtt_us", &fl->tcpi_rtt_us)) ||
	    (ret = doc_get_u32(r, o, "rttvar_us", &fl->tcpi_rttvar_us)) ||
	    (ret = doc_get_u32(r, o, "snd_cwnd", &fl->tcpi_snd_cwnd)) ||
	    (ret = doc_get_u32(r, o, "snd_mss", &fl->tcpi_snd_mss)) ||
	    (ret = doc_get_number(r, o, "delivery_rate_gbps", &gbps)))
		goto out;
	/* written as bps / 1e9; rounding recovers the integer exactly */
	if (!(gbps >= 0 && gbps * 1e9 < 0x1p63)) {
		ret = doc_bad(r, "delivery_rate_gbps", "is out of range");
		goto out;
	}
	fl->tcpi_delivery_rate_bps = (uint64_t)(gbps * 1e9 + 0.5);
	fl->has_tcp_info = true;
out:
	doc_leave(r, len);
	return ret;
}

static int flow_from_json(struct doc_reader *r, const json_t *f, bool udp,
			  struct sample_flow *fl)
{
	int ret;

	if (!json_is_object(f))
		return doc_bad(r, NULL, "must be an object");
	if ((ret = doc_get_u32(r, f, "id", &fl->id)) ||
	    (ret = doc_get_string(r, f, "dir", fl->dir, sizeof(fl->dir))) ||
	    (ret = doc_get_number(r, f, "receiver_gbps", &fl->rx_gbps)) ||
	    (ret = doc_get_number(r, f, "sender_gbps", &fl->tx_gbps)) ||
	    (ret = doc_get_u64(r, f, "receiver_bytes", &fl->rx_win_bytes)) ||
	    (ret = doc_get_u64(r, f, "receiver_msgs", &fl->rx_win_msgs)) ||
	    (ret = doc_get_u64(r, f, "sender_bytes", &fl->tx_win_bytes)) ||
	    (ret = doc_get_u64(r, f, "sender_msgs", &fl->tx_win_msgs)) ||
	    (ret = doc_get_u64(r, f, "receiver_total_bytes", &fl->rx_total_bytes)) ||
	    (ret = doc_get_u64(r, f, "sender_total_bytes", &fl->tx_total_bytes)) ||
	    (ret = sockbuf_from_json(r, f, "sockbuf_start", &fl->client_sndbuf,
				     &fl->client_rcvbuf, &fl->server_sndbuf,
				     &fl->server_rcvbuf)) ||
	    (ret = sockbuf_from_json(r, f, "sockbuf_end", &fl->client_sndbuf_end,
				     &fl->client_rcvbuf_end, &fl->server_sndbuf_end,
				     &fl->server_rcvbuf_end)) ||
	    (ret = rr_from_json(r, f, fl)) ||
	    (ret = udp_from_json(r, f, udp, fl)))
		return ret;
	return tcp_info_from_json(r, f, fl);
}

static int params_from_json(struct doc_reader *r, const json_t *params,
			    struct base_sample *s)
{
	struct sample_kv kv;
	const char *key;
	json_t *v;
	int ret;

	json_object_foreach((json_t *)params, key, v) {
		if (!key[0])
			return doc_bad(r, "", "is not a parameter name");
		if (strlen(key) >= sizeof(kv.key))
			return doc_bad(r, key, "has a name that is too long");
		if (base_has_control(key))
			return doc_bad(r, key, CONTROL_IN_NAME);
		if ((ret = doc_string(r, v, key, kv.val, sizeof(kv.val))))
			return ret;
		if ((ret = base_sample_param(s, key, "%s", kv.val)))
			return base_err_set(r->err, ret, "out of memory");
	}
	return 0;
}

static int env_from_json(struct doc_reader *r, const json_t *env,
			 struct base_sample *s)
{
	size_t len = strlen(r->path);
	struct sample_kv kv;
	const char *side, *key;
	json_t *o, *v;
	int ret;

	/* to_json splits "side.key" at the first dot into a 31-byte side */
	json_object_foreach((json_t *)env, side, o) {
		if (!side[0] || strchr(side, '.') || strlen(side) >= 32)
			return doc_bad(r, side, "is not an environment side (1 to 31 characters, no dot)");
		if (base_has_control(side))
			return doc_bad(r, side, CONTROL_IN_NAME);
		if (!json_is_object(o))
			return doc_bad(r, side, "must be an object");
		doc_enter(r, side);
		json_object_foreach(o, key, v) {
			if (!key[0] || strlen(side) + 1 + strlen(key) >= sizeof(kv.key)) {
				ret = doc_bad(r, key, "is not a valid environment key (empty or too long)");
				goto out;
			}
			if (base_has_control(key)) {
				ret = doc_bad(r, key, CONTROL_IN_NAME);
				goto out;
			}
			if ((ret = doc_string(r, v, key, kv.val, sizeof(kv.val))))
				goto out;
			snprintf(kv.key, sizeof(kv.key), "%s.%s", side, key);
			if ((ret = base_sample_env(s, kv.key, "%s", kv.val))) {
				ret = base_err_set(r->err, ret, "out of memory");
				goto out;
			}
		}
		doc_leave(r, len);
	}
	return 0;
out:
	doc_leave(r, len);
	return ret;
}

static int metrics_from_json(struct doc_reader *r, const json_t *metrics,
			     struct base_sample *s)
{
	size_t len = strlen(r->path);
	struct sample_metric m;
	const char *name;
	json_t *o;
	int ret = 0;

	/* names this version does not know are kept: later versions add metrics */
	json_object_foreach((json_t *)metrics, name, o) {
		if (!name[0])
			return doc_bad(r, "", "is not a metric name");
		if (strlen(name) >= sizeof(m.name))
			return doc_bad(r, name, "has a name that is too long");
		if (base_has_control(name))
			return doc_bad(r, name, CONTROL_IN_NAME);
		if (!json_is_object(o))
			return doc_bad(r, name, "must be an object");
		doc_enter(r, name);
		if ((ret = doc_get_number(r, o, "value", &m.value)) ||
		    (ret = doc_get_string(r, o, "unit", m.unit, sizeof(m.unit))) ||
		    (ret = doc_check_string(r, o, "better")))
			break;
		doc_leave(r, len);
		/* an object's names are unique */
		if ((ret = base_sample_append(s, name, m.unit, m.value)))
			return base_err_set(r->err, ret, "out of memory");
	}
	doc_leave(r, len);
	return ret;
}

/*
 * window_series' optional member key: probe p's figure in each interval,
 * as many as the values, each a number > 0 or null (no figure). v has
 * room for them.
 */
static int probe_from_json(struct doc_reader *r, const json_t *o, const char *key,
			   enum base_tick_probe p, struct base_sample *s, double *v)
{
	const json_t *a = json_object_get(o, key);
	char what[128];
	size_t n;
	int ret;

	if (!a)
		return 0;
	if (!json_is_array(a))
		return doc_bad(r, key, "must be an array");
	n = json_array_size(a);
	if (n != s->nseries) {
		snprintf(what, sizeof(what), "has %zu values, expected one for each of the %zu in 'values'",
			 n, s->nseries);
		return doc_bad(r, key, what);
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(a, i);

		v[i] = json_is_null(x) ? NAN : json_is_number(x) ? json_number_value(x) : -1;
		if (!isnan(v[i]) && !(isfinite(v[i]) && v[i] > 0)) {
			snprintf(what, sizeof(what), "%s[%zu]", key, i);
			return doc_bad(r, what, "must be a number > 0 or null");
		}
	}
	ret = base_sample_set_series_probe(s, p, v, n);
	if (ret == -ENOMEM)
		return base_err_set(r->err, ret, "out of memory");
	return ret ? doc_bad(r, key, "cannot be kept") : 0;
}

/* The window's interval rates, and the probes' figures in the same
 * intervals, when the sample kept them. */
static int series_from_json(struct doc_reader *r, const json_t *doc,
			    struct base_sample *s)
{
	const json_t *o, *vals;
	char unit[sizeof(s->series_unit)], what[96];
	size_t n;
	double step, *v;
	int ret;

	if ((ret = doc_get_object(r, doc, "window_series", false, &o)) || !o)
		return ret;
	doc_enter(r, "window_series");
	if ((ret = doc_get_number(r, o, "step_s", &step)) ||
	    (ret = doc_get_string(r, o, "unit", unit, sizeof(unit))))
		return ret;
	if (!(step > 0 && step <= 3600))
		return doc_bad(r, "step_s", "must be a number of seconds in (0, 3600]");
	vals = json_object_get(o, "values");
	if (!vals)
		return doc_bad(r, "values", "is missing");
	if (!json_is_array(vals))
		return doc_bad(r, "values", "must be an array");
	n = json_array_size(vals);
	if (n > SAMPLE_SERIES_MAX) {
		snprintf(what, sizeof(what), "has %zu values, at most %d", n,
			 SAMPLE_SERIES_MAX);
		return doc_bad(r, "values", what);
	}
	v = malloc((n ? n : 1) * sizeof(*v));
	if (!v)
		return base_err_set(r->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n; i++) {
		const json_t *x = json_array_get(vals, i);

		if (!json_is_number(x)) {
			free(v);
			snprintf(what, sizeof(what), "values[%zu]", i);
			return doc_bad(r, what, "must be a number");
		}
		v[i] = json_number_value(x);
	}
	ret = base_sample_set_series(s, unit, step, v, n, 1);
	if (ret == -ENOMEM) {
		free(v);
		return base_err_set(r->err, ret, "out of memory");
	}
	if (ret) {
		free(v);
		return doc_bad(r, "values", "must be finite numbers");
	}
	for (size_t k = 0; k < BASE_TICK_PROBES && !ret; k++)
		ret = probe_from_json(r, o, base_tick_probe_key[k], (enum base_tick_probe)k,
				      s, v);
	free(v);
	if (ret)
		return ret;
	doc_leave(r, 0);
	return 0;
}

/* Request/response tests carry their merged latency histogram. */
static int latency_from_json(struct doc_reader *r, const json_t *doc,
			     struct base_sample *s)
{
	const json_t *h = json_object_get(doc, "latency_histogram_ns");
	int ret;

	if (!h)
		return 0;
	s->latency = malloc(sizeof(*s->latency));
	if (!s->latency)
		return base_err_set(r->err, -ENOMEM, "out of memory");
	ret = base_hist_from_json(h, s->latency, r->err);
	if (ret)
		base_err_prefix(r->err, DOC_ERR "'latency_histogram_ns'");
	return ret;
}

/*
 * The environment snapshots of both ends, as engine_sysenv_json() makes each
 * side: {"fingerprint": "<16 hex>", "entries": {name: value}}, or {"error":
 * "<why>"} when a side could not be read. Checked as strictly as the engine
 * checks a peer's (engine_sysenv_check(), with the collector's limits), and
 * no other members: the store keeps each side whole, by its fingerprint.
 */
#define SYSENV_ENTRIES_MAX 2048 /* COLLECT_SYSENV_MAX */
#define SYSENV_NAME_MAX 255     /* bytes of an entry's name */
#define SYSENV_VALUE_MAX 4096   /* bytes of a value, or of an error */
#define SYSENV_FINGERPRINT_LEN 16

static bool is_fingerprint(const json_t *v)
{
	const char *p = json_string_value(v);

	if (!p || json_string_length(v) != SYSENV_FINGERPRINT_LEN)
		return false;
	for (size_t i = 0; i < SYSENV_FINGERPRINT_LEN; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return false;
	return true;
}

/* A string without nul characters of at most max bytes. */
static int sysenv_string(const struct doc_reader *r, const json_t *v,
			 const char *key, size_t max)
{
	char what[64];
	size_t len;

	if (!json_is_string(v))
		return doc_bad(r, key, "must be a string");
	len = json_string_length(v);
	if (strlen(json_string_value(v)) != len)
		return doc_bad(r, key, "must not contain a nul character");
	if (base_has_control(json_string_value(v)))
		return doc_bad(r, key, CONTROL_IN_VALUE);
	if (len > max) {
		snprintf(what, sizeof(what), "is too long (%zu bytes, at most %zu)",
			 len, max);
		return doc_bad(r, key, what);
	}
	return 0;
}

static int sysenv_side_from_json(struct doc_reader *r, const json_t *side)
{
	size_t len = strlen(r->path);
	const json_t *entries, *v;
	const char *key;
	char what[64];
	int ret = 0;

	if (json_object_get(side, "error")) {
		if (json_object_size(side) != 1)
			return doc_bad(r, NULL, "must hold an \"error\" alone, or a \"fingerprint\" and \"entries\"");
		return sysenv_string(r, json_object_get(side, "error"), "error",
				     SYSENV_VALUE_MAX);
	}
	json_object_foreach((json_t *)side, key, v) {
		if (strcmp(key, "fingerprint") && strcmp(key, "entries"))
			return doc_bad(r, key, "is not a snapshot field (fingerprint, entries or error)");
	}
	v = json_object_get(side, "fingerprint");
	if (!v)
		return doc_bad(r, "fingerprint", "is missing");
	if (!is_fingerprint(v))
		return doc_bad(r, "fingerprint", "must be 16 lowercase hex digits");
	if ((ret = doc_get_object(r, side, "entries", true, &entries)))
		return ret;
	if (json_object_size(entries) > SYSENV_ENTRIES_MAX) {
		snprintf(what, sizeof(what), "has too many entries (%zu, at most %d)",
			 json_object_size(entries), SYSENV_ENTRIES_MAX);
		return doc_bad(r, "entries", what);
	}
	doc_enter(r, "entries");
	json_object_foreach((json_t *)entries, key, v) {
		if (!key[0] || strlen(key) > SYSENV_NAME_MAX) {
			ret = doc_bad(r, key, "is not a valid entry name (empty or longer than 255 bytes)");
			break;
		}
		if (base_has_control(key)) {
			ret = doc_bad(r, key, CONTROL_IN_NAME);
			break;
		}
		if ((ret = sysenv_string(r, v, key, SYSENV_VALUE_MAX)))
			break;
	}
	doc_leave(r, len);
	return ret;
}

static int sysenv_from_json(struct doc_reader *r, const json_t *doc,
			    struct base_sample *s)
{
	const json_t *sysenv, *side;
	const char *key;
	size_t len;
	int ret;

	if ((ret = doc_get_object(r, doc, "sysenv", false, &sysenv)) || !sysenv)
		return ret;
	doc_enter(r, "sysenv");
	len = strlen(r->path);
	json_object_foreach((json_t *)sysenv, key, side) {
		if (strcmp(key, "client") && strcmp(key, "server"))
			ret = doc_bad(r, key, "is not a side (client or server)");
		else if (!json_is_object(side))
			ret = doc_bad(r, key, "must be an object");
		if (ret)
			break;
		doc_enter(r, key);
		ret = sysenv_side_from_json(r, side);
		doc_leave(r, len);
		if (ret)
			break;
	}
	doc_leave(r, 0);
	/* checked, and json is never modified once made: share it */
	if (!ret)
		s->sysenv = json_incref((json_t *)sysenv);
	return ret;
}

static int sample_from_json(struct doc_reader *r, const json_t *doc,
			    struct base_sample *s)
{
	const json_t *config, *params, *run, *env, *metrics, *flows;
	const char *test;
	int64_t version;
	size_t i;
	int ret;

	if (!json_is_object(doc))
		return base_err_set(r->err, -EINVAL, DOC_ERR "not a json object");
	if ((ret = doc_get_int(r, doc, "schema_version", 1, INT64_MAX, &version)))
		return ret;
	if (version > SAMPLE_SCHEMA_VERSION)
		return base_err_set(r->err, -EINVAL,
				    DOC_ERR "schema_version %" PRId64 " is newer than this netregress reads (%d)",
				    version, SAMPLE_SCHEMA_VERSION);
	if ((ret = doc_check_string(r, doc, "tool")) ||
	    (ret = doc_check_string(r, doc, "started_at")) ||
	    (ret = doc_get_string(r, doc, "sample_id", s->id, sizeof(s->id))) ||
	    (ret = doc_get_string(r, doc, "label", s->label, sizeof(s->label))) ||
	    (ret = doc_get_int(r, doc, "started_at_ns", INT64_MIN, INT64_MAX,
			       &s->wall_start_ns)))
		return ret;
	if (!s->id[0])
		return doc_bad(r, "sample_id", "must not be empty");

	if ((ret = doc_get_object(r, doc, "config", true, &config)))
		return ret;
	doc_enter(r, "config");
	if ((ret = doc_get_string(r, config, "key", s->config_key,
				  sizeof(s->config_key))) ||
	    (ret = doc_get_object(r, config, "params", true, &params)))
		return ret;
	doc_enter(r, "params");
	if ((ret = params_from_json(r, params, s)))
		return ret;
	doc_leave(r, 0);

	if ((ret = doc_get_object(r, doc, "run", true, &run)))
		return ret;
	doc_enter(r, "run");
	if ((ret = doc_get_int(r, run, "duration_ns", INT64_MIN, INT64_MAX,
			       &s->duration_ns)) ||
	    (ret = doc_get_int(r, run, "warmup_ns", INT64_MIN, INT64_MAX,
			       &s->warmup_ns)) ||
	    (ret = doc_get_string(r, run, "server", s->server, sizeof(s->server))))
		return ret;
	doc_leave(r, 0);

	if ((ret = doc_get_object(r, doc, "env", true, &env)))
		return ret;
	doc_enter(r, "env");
	if ((ret = env_from_json(r, env, s)))
		return ret;
	doc_leave(r, 0);

	if ((ret = doc_get_object(r, doc, "metrics", true, &metrics)))
		return ret;
	doc_enter(r, "metrics");
	if ((ret = metrics_from_json(r, metrics, s)))
		return ret;
	doc_leave(r, 0);

	flows = json_object_get(doc, "flows");
	if (!flows)
		return doc_bad(r, "flows", "is missing");
	if (!json_is_array(flows))
		return doc_bad(r, "flows", "must be an array");
	if ((ret = base_sample_alloc_flows(s, json_array_size(flows))))
		return base_err_set(r->err, ret, "out of memory");
	test = base_sample_param_get(s, "test", "?");
	for (i = 0; i < s->nflows; i++) {
		/* to_json writes "udp" for every flow of a UDP test */
		bool udp = !strcmp(test, "udp_stream") || !strcmp(test, "udp_rr");

		snprintf(r->path, sizeof(r->path), "flows[%zu]", i);
		if ((ret = flow_from_json(r, json_array_get(flows, i), udp,
					  &s->flows[i])))
			return ret;
	}
	doc_leave(r, 0);
	if ((ret = sysenv_from_json(r, doc, s)))
		return ret;
	if ((ret = series_from_json(r, doc, s)))
		return ret;
	return latency_from_json(r, doc, s);
}

int base_sample_from_json(const json_t *doc, struct base_sample *s,
			  struct base_err *err)
{
	struct doc_reader r = { .err = err };
	int ret = sample_from_json(&r, doc, s);

	if (ret)
		base_sample_release(s);
	return ret;
}
