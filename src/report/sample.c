// SPDX-License-Identifier: GPL-2.0-only
/* One sample as a terminal table or as the JSON result document. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "base/parse.h"
#include "base/time.h"
#include "report/report.h"

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

json_t *report_sample_json(const struct base_sample *s)
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
	doc = json_pack("{s:i, s:s, s:s, s:s, s:I, s:{s:s, s:o}, s:{s:I, s:I, s:s}, s:o, s:o, s:o}",
			"schema_version", SAMPLE_SCHEMA_VERSION,
			"tool", REPORT_TOOL, "label", s->label,
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

static const char *env(const struct base_sample *s, const char *key)
{
	for (size_t i = 0; i < s->nenv; i++)
		if (!strcmp(s->env[i].key, key))
			return s->env[i].val;
	return "?";
}

static void fmt_buf(uint64_t v, char *buf, size_t len)
{
	if (v)
		base_format_size(v, buf, len);
	else
		snprintf(buf, len, "-");
}

void report_sample_table(FILE *out, const struct base_sample *s)
{
	bool udp = !strcmp(param(s, "test"), "udp_stream");
	char dur[BASE_DURATION_STRLEN], wu[BASE_DURATION_STRLEN];

	base_format_duration(s->duration_ns, dur, sizeof(dur));
	base_format_duration(s->warmup_ns, wu, sizeof(wu));
	fprintf(out, "%s  label %s  server %s (%s)  %s after %s warm-up\n",
		param(s, "test"), s->label, s->server, env(s, "server.kernel"),
		dur, wu);
	fprintf(out, "config: %s\n\n", s->config_key);
	fprintf(out, "%4s %-4s %12s %12s %9s %9s %9s %9s", "flow", "dir",
		"recv Gbps", "send Gbps", "c.sndbuf", "c.rcvbuf", "s.sndbuf",
		"s.rcvbuf");
	if (udp)
		fprintf(out, " %10s %8s %6s\n", "lost", "reorder", "dup");
	else
		fprintf(out, " %7s %7s %6s\n", "retrans", "rtt_us", "cwnd");
	for (size_t i = 0; i < s->nflows; i++) {
		const struct sample_flow *f = &s->flows[i];
		char b[4][BASE_SIZE_STRLEN];

		fmt_buf(f->client_sndbuf, b[0], sizeof(b[0]));
		fmt_buf(f->client_rcvbuf, b[1], sizeof(b[1]));
		fmt_buf(f->server_sndbuf, b[2], sizeof(b[2]));
		fmt_buf(f->server_rcvbuf, b[3], sizeof(b[3]));
		fprintf(out, "%4u %-4s %12.3f %12.3f %9s %9s %9s %9s", f->id, f->dir,
			f->rx_gbps, f->tx_gbps, b[0], b[1], b[2], b[3]);
		if (udp)
			fprintf(out, " %10" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
				f->udp_lost, f->udp_reordered, f->udp_dup);
		else if (f->has_tcp_info)
			fprintf(out, " %7u %7u %6u\n", f->tcpi_retrans,
				f->tcpi_rtt_us, f->tcpi_snd_cwnd);
		else
			fprintf(out, "\n");
	}
	fprintf(out, "\n%-32s %14s  %-6s %s\n", "metric", "value", "unit", "better");
	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct sample_metric *m = &s->metrics[i];

		fprintf(out, "%-32s %14.4g  %-6s %s\n", m->name, m->value, m->unit,
			base_metric_dir_name(base_metric_dir(m->name)));
	}
}
