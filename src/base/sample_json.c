// SPDX-License-Identifier: GPL-2.0-only
/* A sample as the JSON result document of docs/results.md, and back. */
#include <errno.h>
#include <inttypes.h>
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

static const char *param(const struct base_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nparams; i++)
		if (!strcmp(s->params[i].key, key))
			return s->params[i].val;
	return "?";
}

json_t *base_sample_to_json(const struct base_sample *s)
{
	json_t *doc, *params = json_object(), *env = json_object(),
		*metrics = json_object(), *flows = json_array();
	bool udp = !strcmp(param(s, "test"), "udp_stream");
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
	return doc;
fail:
	json_decref(params);
	json_decref(env);
	json_decref(metrics);
	json_decref(flows);
	return NULL;
}

