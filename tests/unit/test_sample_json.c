// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for base/sample_json: the result document read back exactly, and every rejection. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/sample.h"

/* One end's environment snapshot as engine_sysenv_json() makes it. */
static json_t *snapshot(const char *fingerprint, const char *release)
{
	json_t *j = json_pack("{s:s, s:{s:s, s:s, s:s, s:s, s:s}}",
			      "fingerprint", fingerprint, "entries",
			      "kernel.release", release,
			      "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 \"quoted\" \\",
			      "sysctl.net.core.rmem_max", "212992",
			      "sysctl.net.ipv4.tcp_rmem", "4096 131072 6291456",
			      "if.lo.mtu", "65536");

	assert_non_null(j);
	return j;
}

/* A full sample as the engine makes one: params, both ends' env, metrics, flows. */
static void make_sample(struct base_sample *s, const char *test)
{
	bool udp = !strcmp(test, "udp_stream") || !strcmp(test, "udp_rr");
	bool rr = strstr(test, "_rr") || strstr(test, "_crr");

	base_sample_init(s);
	snprintf(s->id, sizeof(s->id), "%s", "0123456789abcdef0123456789abcdef");
	snprintf(s->label, sizeof(s->label), "%s", "6.1.0-18-amd64");
	snprintf(s->config_key, sizeof(s->config_key),
		 "dir=send msg=%d streams=2 test=%s", udp ? 1472 : 256, test);
	s->wall_start_ns = 1795982444871936266LL;
	s->duration_ns = 10000000000LL;
	s->warmup_ns = 1000000000LL;
	snprintf(s->server, sizeof(s->server), "%s", "127.0.0.1:33961");
	assert_int_equal(base_sample_param(s, "dir", "send"), 0);
	assert_int_equal(base_sample_param(s, "msg", "%d", udp ? 1472 : 256), 0);
	assert_int_equal(base_sample_param(s, "streams", "2"), 0);
	assert_int_equal(base_sample_param(s, "test", "%s", test), 0);
	if (rr) {
		s->latency = malloc(sizeof(*s->latency));
		assert_non_null(s->latency);
		base_hist_init(s->latency);
		for (uint64_t v = 7826; v < 1482000; v = v * 3 / 2)
			base_hist_record(s->latency, v);
		base_hist_record(s->latency, 1482000);
	}
	{
		/* the window's rates, with values that need every digit */
		static const double rates[] = { 8.4123456789012345, 8.1, 5.9e-3, 0, 1e21 / 3 };

		/* and the probes' figures in the same intervals, one missing */
		const double xcpu[] = { 120.5, NAN, 430, 99, 1e-3 };
		const double speed[] = { 700, 690.25, NAN, 1e5, 0.5 };

		assert_int_equal(base_sample_set_series(s, rr ? "trans/s" : "Gbps", 0.1, rates,
							ARRAY_SIZE(rates), 1), 0);
		assert_int_equal(base_sample_set_series_probe(s, BASE_TICK_XCPU, xcpu,
							      ARRAY_SIZE(xcpu)), 0);
		assert_int_equal(base_sample_set_series_probe(s, BASE_TICK_SPEED, speed,
							      ARRAY_SIZE(speed)), 0);
	}
	assert_int_equal(base_sample_env(s, "client.kernel", "6.1.0-18-amd64"), 0);
	assert_int_equal(base_sample_env(s, "client.cpu_model", "Intel(R) Xeon(R) \"quoted\" \\ back"), 0);
	assert_int_equal(base_sample_env(s, "client.cpu_governor", "%s", ""), 0);
	assert_int_equal(base_sample_env(s, "client.env_fingerprint", "0123456789abcdef"), 0);
	assert_int_equal(base_sample_env(s, "server.kernel", "6.1.0-18-amd64"), 0);
	assert_int_equal(base_sample_env(s, "server.online_cpus", "2"), 0);
	assert_int_equal(base_sample_env(s, "server.env_fingerprint", "fedcba9876543210"), 0);
	s->sysenv = json_pack("{s:o, s:o}", "client",
			      snapshot("0123456789abcdef", "6.1.0-18-amd64"),
			      "server", snapshot("fedcba9876543210", "6.1.0-17-amd64"));
	assert_non_null(s->sysenv);
	assert_int_equal(base_sample_set(s, "throughput.gbps", "Gbps", 8.4123456789012345), 0);
	assert_int_equal(base_sample_set(s, "fairness.jain", "", 0.99999999999999989), 0);
	assert_int_equal(base_sample_set(s, "cpu.client.sys_pct", "%", 1e-300), 0);
	assert_int_equal(base_sample_set(s, "udp.lost", "msg", 0), 0);
	assert_int_equal(base_sample_alloc_flows(s, 2), 0);
	for (uint32_t i = 0; i < 2; i++) {
		struct sample_flow *f = &s->flows[i];

		f->id = i;
		snprintf(f->dir, sizeof(f->dir), "%s", i ? "recv" : "send");
		f->rx_win_bytes = 5000000000ULL + i;
		f->rx_win_msgs = 19531250 + i;
		f->tx_win_bytes = 5000065536ULL;
		f->tx_win_msgs = 19531506;
		f->rx_total_bytes = 6000000000ULL;
		f->tx_total_bytes = 6000000001ULL;
		f->rx_gbps = 4.000000000001 + i;
		f->tx_gbps = 4.0000524288;
		f->client_sndbuf = 16384;
		f->client_rcvbuf = 131072;
		f->server_sndbuf = 16385;
		f->server_rcvbuf = 131073;
		f->client_sndbuf_end = 4194304;
		f->client_rcvbuf_end = 6291456;
		f->server_sndbuf_end = 4194305;
		f->server_rcvbuf_end = 6291457;
		if (rr) {
			f->tps = 15823.25 + i;
			f->fails = i;
		}
		if (udp) {
			f->udp_lost = 7 + i;
			f->udp_reordered = 3;
			f->udp_dup = 1;
		} else if (i == 0) {
			f->has_tcp_info = true;
			f->tcpi_retrans = 12;
			f->tcpi_rtt_us = 57;
			f->tcpi_rttvar_us = 9;
			f->tcpi_snd_cwnd = 10;
			f->tcpi_snd_mss = 65483;
			f->tcpi_delivery_rate_bps = 39123456789ULL;
		}
	}
}

static void expect_same_sample(const struct base_sample *a,
			       const struct base_sample *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->label, b->label);
	assert_string_equal(a->config_key, b->config_key);
	assert_true(a->wall_start_ns == b->wall_start_ns);
	assert_true(a->duration_ns == b->duration_ns);
	assert_true(a->warmup_ns == b->warmup_ns);
	assert_string_equal(a->server, b->server);
	assert_int_equal(a->nparams, b->nparams);
	for (size_t i = 0; i < a->nparams; i++) {
		assert_string_equal(a->params[i].key, b->params[i].key);
		assert_string_equal(a->params[i].val, b->params[i].val);
	}
	assert_int_equal(a->nenv, b->nenv);
	for (size_t i = 0; i < a->nenv; i++) {
		assert_string_equal(a->env[i].key, b->env[i].key);
		assert_string_equal(a->env[i].val, b->env[i].val);
	}
	assert_int_equal(a->nmetrics, b->nmetrics);
	for (size_t i = 0; i < a->nmetrics; i++) {
		assert_string_equal(a->metrics[i].name, b->metrics[i].name);
		assert_string_equal(a->metrics[i].unit, b->metrics[i].unit);
		/* bit for bit: the document keeps 17 significant digits */
		assert_memory_equal(&a->metrics[i].value, &b->metrics[i].value,
				    sizeof(double));
	}
	assert_int_equal(a->nflows, b->nflows);
	for (size_t i = 0; i < a->nflows; i++) {
		const struct sample_flow *x = &a->flows[i], *y = &b->flows[i];

		assert_int_equal(x->id, y->id);
		assert_string_equal(x->dir, y->dir);
		assert_true(x->rx_win_bytes == y->rx_win_bytes);
		assert_true(x->rx_win_msgs == y->rx_win_msgs);
		assert_true(x->tx_win_bytes == y->tx_win_bytes);
		assert_true(x->tx_win_msgs == y->tx_win_msgs);
		assert_true(x->rx_total_bytes == y->rx_total_bytes);
		assert_true(x->tx_total_bytes == y->tx_total_bytes);
		assert_memory_equal(&x->rx_gbps, &y->rx_gbps, sizeof(double));
		assert_memory_equal(&x->tx_gbps, &y->tx_gbps, sizeof(double));
		assert_true(x->udp_lost == y->udp_lost);
		assert_true(x->udp_reordered == y->udp_reordered);
		assert_true(x->udp_dup == y->udp_dup);
		assert_true(x->client_sndbuf == y->client_sndbuf);
		assert_true(x->client_rcvbuf == y->client_rcvbuf);
		assert_true(x->server_sndbuf == y->server_sndbuf);
		assert_true(x->server_rcvbuf == y->server_rcvbuf);
		assert_true(x->client_sndbuf_end == y->client_sndbuf_end);
		assert_true(x->client_rcvbuf_end == y->client_rcvbuf_end);
		assert_true(x->server_sndbuf_end == y->server_sndbuf_end);
		assert_true(x->server_rcvbuf_end == y->server_rcvbuf_end);
		assert_int_equal(x->has_tcp_info, y->has_tcp_info);
		assert_int_equal(x->tcpi_retrans, y->tcpi_retrans);
		assert_int_equal(x->tcpi_rtt_us, y->tcpi_rtt_us);
		assert_int_equal(x->tcpi_rttvar_us, y->tcpi_rttvar_us);
		assert_int_equal(x->tcpi_snd_cwnd, y->tcpi_snd_cwnd);
		assert_int_equal(x->tcpi_snd_mss, y->tcpi_snd_mss);
		assert_true(x->tcpi_delivery_rate_bps == y->tcpi_delivery_rate_bps);
		assert_memory_equal(&x->tps, &y->tps, sizeof(double));
		assert_true(x->fails == y->fails);
	}
	assert_int_equal(!a->latency, !b->latency);
	if (a->latency)
		assert_memory_equal(a->latency, b->latency, sizeof(*a->latency));
	assert_int_equal(!a->sysenv, !b->sysenv);
	if (a->sysenv)
		assert_true(json_equal(a->sysenv, b->sysenv));
	assert_int_equal(a->nseries, b->nseries);
	assert_int_equal(!a->series, !b->series);
	if (a->nseries) {
		assert_memory_equal(a->series, b->series, a->nseries * sizeof(*a->series));
		assert_memory_equal(&a->series_step_s, &b->series_step_s, sizeof(double));
		assert_string_equal(a->series_unit, b->series_unit);
	}
	for (size_t k = 0; k < BASE_TICK_PROBES; k++) {
		assert_int_equal(!a->series_probe[k], !b->series_probe[k]);
		for (size_t i = 0; a->series_probe[k] && i < a->nseries; i++) {
			assert_int_equal(isnan(a->series_probe[k][i]), isnan(b->series_probe[k][i]));
			if (!isnan(a->series_probe[k][i]))
				assert_memory_equal(&a->series_probe[k][i], &b->series_probe[k][i],
						    sizeof(double));
		}
	}
}

/* sample -> doc -> sample -> doc: both the struct and the document survive. */
static void round_trip(const char *test)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	json_t *doc, *again;
	char *text;

	make_sample(&a, test);
	doc = base_sample_to_json(&a);
	assert_non_null(doc);
	/* through text too, as the store and import see it */
	text = json_dumps(doc, JSON_COMPACT);
	assert_non_null(text);
	json_decref(doc);
	doc = json_loads(text, 0, NULL);
	free(text);
	assert_non_null(doc);

	base_sample_init(&b);
	if (base_sample_from_json(doc, &b, &err))
		fail_msg("from_json: %s", err.msg);
	expect_same_sample(&a, &b);
	again = base_sample_to_json(&b);
	assert_non_null(again);
	assert_true(json_equal(doc, again));
	json_decref(again);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

static void test_from_json_round_trips_a_tcp_sample(void **state)
{
	(void)state;
	round_trip("tcp_stream");
}

static void test_from_json_round_trips_a_udp_sample(void **state)
{
	(void)state;
	round_trip("udp_stream");
}

static void test_from_json_round_trips_request_response_samples(void **state)
{
	(void)state;
	round_trip("udp_rr");
	round_trip("tcp_rr");
	round_trip("tcp_crr");
}

static void test_from_json_round_trips_an_empty_sample(void **state)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	json_t *doc, *again;

	(void)state;
	base_sample_init(&a);
	snprintf(a.id, sizeof(a.id), "%s", "ffffffffffffffffffffffffffffffff");
	doc = base_sample_to_json(&a);
	assert_non_null(doc);
	base_sample_init(&b);
	if (base_sample_from_json(doc, &b, &err))
		fail_msg("from_json: %s", err.msg);
	expect_same_sample(&a, &b);
	again = base_sample_to_json(&b);
	assert_true(json_equal(doc, again));
	json_decref(again);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

static void test_from_json_keeps_unknown_metrics_and_ignores_unknown_fields(void **state)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	const struct sample_metric *m;
	json_t *doc;

	(void)state;
	make_sample(&a, "tcp_stream");
	doc = base_sample_to_json(&a);
	json_object_set_new(json_object_get(doc, "metrics"), "future.widgets_per_s",
			    json_pack("{s:f, s:s, s:s}", "value", 42.5, "unit",
				      "w/s", "better", "higher"));
	json_object_set_new(doc, "future_field", json_pack("[i]", 1));
	json_object_set_new(json_array_get(json_object_get(doc, "flows"), 0),
			    "future_counter", json_integer(3));
	base_sample_init(&b);
	if (base_sample_from_json(doc, &b, &err))
		fail_msg("from_json: %s", err.msg);
	m = base_sample_get(&b, "future.widgets_per_s");
	assert_non_null(m);
	assert_true(m->value == 42.5);
	assert_string_equal(m->unit, "w/s");
	assert_int_equal(b.nmetrics, a.nmetrics + 1);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

static void test_from_json_accepts_an_integer_metric_value(void **state)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	json_t *doc;

	(void)state;
	make_sample(&a, "tcp_stream");
	doc = base_sample_to_json(&a);
	json_object_set_new(json_object_get(json_object_get(doc, "metrics"),
					    "throughput.gbps"),
			    "value", json_integer(9));
	base_sample_init(&b);
	assert_int_equal(base_sample_from_json(doc, &b, &err), 0);
	assert_true(base_sample_get(&b, "throughput.gbps")->value == 9.0);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

/*
 * Rejections: a good document with one change at a dotted path ("flows.0"
 * indexes an array); value NULL deletes the member. Each must fail with
 * -EINVAL, leave the sample empty, and say exactly what is wrong.
 */
struct bad_case {
	const char *path;
	const char *json; /* the new value, or NULL to delete it */
	const char *msg;
};

static json_t *walk(json_t *doc, const char *path, char *last, size_t len)
{
	const char *slash;
	json_t *cur = doc;
	char tok[256];

	/* every '/' ends one step; what follows the last is the member */
	while ((slash = strchr(path, '/'))) {
		snprintf(tok, sizeof(tok), "%.*s", (int)(slash - path), path);
		cur = json_is_array(cur) ? json_array_get(cur, strtoul(tok, NULL, 10)) :
					   json_object_get(cur, tok);
		assert_non_null(cur);
		path = slash + 1;
	}
	snprintf(last, len, "%s", path);
	return cur;
}

static void check_bad(const struct bad_case *c, const char *test)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	json_t *doc, *parent, *v = NULL;
	char last[128];
	int ret;

	make_sample(&a, test);
	doc = base_sample_to_json(&a);
	assert_non_null(doc);
	parent = walk(doc, c->path, last, sizeof(last));
	if (c->json) {
		v = json_loads(c->json, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
		if (!v)
			fail_msg("bad test json %s", c->json);
	}
	if (json_is_array(parent)) {
		if (v)
			json_array_set_new(parent, strtoul(last, NULL, 10), v);
		else
			json_array_remove(parent, strtoul(last, NULL, 10));
	} else if (v) {
		json_object_set_new(parent, last, v);
	} else if (json_object_del(parent, last)) {
		fail_msg("%s: nothing to delete", c->path);
	}
	base_sample_init(&b);
	ret = base_sample_from_json(doc, &b, &err);
	if (ret != -EINVAL || strcmp(err.msg, c->msg))
		fail_msg("%s = %s: got %d '%s', want '%s'", c->path,
			 c->json ? c->json : "(deleted)", ret, err.msg, c->msg);
	assert_int_equal(b.nparams + b.nenv + b.nmetrics + b.nflows, 0);
	assert_null(b.params);
	assert_null(b.flows);
	assert_null(b.latency);
	assert_null(b.sysenv);
	assert_null(b.series);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

static void check_bad_cases(const struct bad_case *c, size_t n, const char *test)
{
	for (size_t i = 0; i < n; i++)
		check_bad(&c[i], test);
}

#define R "result document: "

static void test_from_json_rejects_a_bad_schema_version(void **state)
{
	static const struct bad_case c[] = {
		{ "schema_version", NULL, R "'schema_version' is missing" },
		{ "schema_version", "\"1\"", R "'schema_version' must be an integer" },
		{ "schema_version", "1.0", R "'schema_version' must be an integer" },
		{ "schema_version", "0", R "'schema_version' is out of range (0, want 1..9223372036854775807)" },
		{ "schema_version", "2", R "schema_version 2 is newer than this netregress reads (1)" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
}

static void test_from_json_rejects_bad_top_level_fields(void **state)
{
	static const struct bad_case c[] = {
		{ "sample_id", NULL, R "'sample_id' is missing" },
		{ "sample_id", "12", R "'sample_id' must be a string" },
		{ "sample_id", "\"\"", R "'sample_id' must not be empty" },
		{ "sample_id", "\"0123456789abcdef0123456789abcdef0\"",
		  R "'sample_id' is too long (33 bytes, at most 32)" },
		{ "label", NULL, R "'label' is missing" },
		{ "label", "null", R "'label' must be a string" },
		{ "tool", "1", R "'tool' must be a string" },
		{ "started_at", "true", R "'started_at' must be a string" },
		{ "started_at_ns", NULL, R "'started_at_ns' is missing" },
		{ "started_at_ns", "1.5e18", R "'started_at_ns' must be an integer" },
		{ "config", NULL, R "'config' is missing" },
		{ "config", "[]", R "'config' must be an object" },
		{ "config/key", "7", R "'config.key' must be a string" },
		{ "config/params", "[]", R "'config.params' must be an object" },
		{ "config/params/msg", "256", R "'config.params.msg' must be a string" },
		{ "run", NULL, R "'run' is missing" },
		{ "run/duration_ns", "\"10s\"", R "'run.duration_ns' must be an integer" },
		{ "run/warmup_ns", NULL, R "'run.warmup_ns' is missing" },
		{ "run/server", "{}", R "'run.server' must be a string" },
		{ "env", NULL, R "'env' is missing" },
		{ "env/client", "\"x\"", R "'env.client' must be an object" },
		{ "env/client/kernel", "6", R "'env.client.kernel' must be a string" },
		{ "env/cli.ent", "{}", R "'env.cli.ent' is not an environment side (1 to 31 characters, no dot)" },
		{ "metrics", "[]", R "'metrics' must be an object" },
		{ "flows", NULL, R "'flows' is missing" },
		{ "flows", "{}", R "'flows' must be an array" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
}

static void test_from_json_rejects_bad_metrics(void **state)
{
	static const struct bad_case c[] = {
		{ "metrics/throughput.gbps/value", "\"8.4\"",
		  R "'metrics.throughput.gbps.value' must be a number" },
		{ "metrics/throughput.gbps/value", NULL,
		  R "'metrics.throughput.gbps.value' is missing" },
		{ "metrics/throughput.gbps/unit", NULL,
		  R "'metrics.throughput.gbps.unit' is missing" },
		{ "metrics/throughput.gbps/unit", "\"gigabits-per-sec\"",
		  R "'metrics.throughput.gbps.unit' is too long (16 bytes, at most 15)" },
		{ "metrics/throughput.gbps/better", "1",
		  R "'metrics.throughput.gbps.better' must be a string" },
		{ "metrics/throughput.gbps", "8.4",
		  R "'metrics.throughput.gbps' must be an object" },
		{ "metrics/", "{\"value\": 1, \"unit\": \"\"}",
		  R "'metrics.' is not a metric name" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
}

static void test_from_json_rejects_bad_flows(void **state)
{
	static const struct bad_case c[] = {
		{ "flows/0", "3", R "'flows[0]' must be an object" },
		{ "flows/1/id", "4294967296", R "'flows[1].id' is out of range (4294967296, want 0..4294967295)" },
		{ "flows/0/dir", "\"sideways\"", R "'flows[0].dir' is too long (8 bytes, at most 7)" },
		{ "flows/0/receiver_gbps", "\"4\"", R "'flows[0].receiver_gbps' must be a number" },
		{ "flows/0/receiver_bytes", "-1", R "'flows[0].receiver_bytes' is out of range (-1, want 0..9223372036854775807)" },
		{ "flows/1/sender_total_bytes", NULL, R "'flows[1].sender_total_bytes' is missing" },
		{ "flows/0/sockbuf_start", NULL, R "'flows[0].sockbuf_start' is missing" },
		{ "flows/0/sockbuf_end/server_rcvbuf", "1.0", R "'flows[0].sockbuf_end.server_rcvbuf' must be an integer" },
		{ "flows/0/tcp_info", "[]", R "'flows[0].tcp_info' must be an object" },
		{ "flows/0/tcp_info/rtt_us", "\"57\"", R "'flows[0].tcp_info.rtt_us' must be an integer" },
		{ "flows/0/tcp_info/delivery_rate_gbps", "-1.0", R "'flows[0].tcp_info.delivery_rate_gbps' is out of range" },
		{ "flows/0/tcp_info/snd_mss", "-5", R "'flows[0].tcp_info.snd_mss' is out of range (-5, want 0..4294967295)" },
	};
	static const struct bad_case u[] = {
		{ "flows/1/udp", NULL, R "'flows[1].udp' is missing" },
		{ "flows/0/udp/lost", "\"7\"", R "'flows[0].udp.lost' must be an integer" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
	static const struct bad_case ws[] = {
		{ "window_series", "[]", R "'window_series' must be an object" },
		{ "window_series/step_s", NULL, R "'window_series.step_s' is missing" },
		{ "window_series/step_s", "0", R "'window_series.step_s' must be a number of seconds in (0, 3600]" },
		{ "window_series/step_s", "\"0.1\"", R "'window_series.step_s' must be a number" },
		{ "window_series/unit", "\"Gbps per second!\"", R "'window_series.unit' is too long (16 bytes, at most 15)" },
		{ "window_series/values", NULL, R "'window_series.values' is missing" },
		{ "window_series/values", "{}", R "'window_series.values' must be an array" },
		{ "window_series/values/2", "\"8.1\"", R "'window_series.values[2]' must be a number" },
		{ "window_series/xcpu_ns", "{}", R "'window_series.xcpu_ns' must be an array" },
		{ "window_series/xcpu_ns", "[1, 2]",
		  R "'window_series.xcpu_ns' has 2 values, expected one for each of the 5 in 'values'" },
		{ "window_series/xcpu_ns/1", "0", R "'window_series.xcpu_ns[1]' must be a number > 0 or null" },
		{ "window_series/host_speed/0", "\"7\"", R "'window_series.host_speed[0]' must be a number > 0 or null" },
		{ "window_series/host_speed/4", "-0.5", R "'window_series.host_speed[4]' must be a number > 0 or null" },
	};

	check_bad_cases(ws, ARRAY_SIZE(ws), "tcp_stream");
	static const struct bad_case rr[] = {
		{ "flows/1/udp", NULL, R "'flows[1].udp' is missing" },
		{ "flows/0/rr", "1", R "'flows[0].rr' must be an object" },
		{ "flows/0/rr/transactions_per_s", "\"many\"", R "'flows[0].rr.transactions_per_s' must be a number" },
		{ "flows/0/rr/transactions_per_s", "-1.5", R "'flows[0].rr.transactions_per_s' must not be negative" },
		{ "flows/1/rr/connect_failures", NULL, R "'flows[1].rr.connect_failures' is missing" },
		{ "latency_histogram_ns", "[]", R "'latency_histogram_ns': histogram must be an object" },
		{ "latency_histogram_ns/scheme", "\"hdr\"", R "'latency_histogram_ns': histogram scheme 'hdr' is not loglin-128" },
		{ "latency_histogram_ns/n", "1", R "'latency_histogram_ns': histogram counts add up to more than n = 1" },
	};

	check_bad_cases(u, ARRAY_SIZE(u), "udp_stream");
	check_bad_cases(rr, ARRAY_SIZE(rr), "udp_rr");
}

/* Strings that do not fit the struct's buffers are refused, not truncated. */
static void test_from_json_rejects_strings_that_do_not_fit(void **state)
{
	char big[1100], json[1200], msg[256];
	struct bad_case c;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* exactly one byte more than each buffer holds */
	static const struct {
		const char *path, *field;
		size_t len;
	} f[] = {
		{ "label", "label", 128 },
		{ "config/key", "config.key", 1024 },
		{ "run/server", "run.server", 80 },
		{ "config/params/msg", "config.params.msg", 256 },
		{ "env/client/kernel", "env.client.kernel", 256 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		snprintf(json, sizeof(json), "\"%.*s\"", (int)f[i].len, big);
		snprintf(msg, sizeof(msg), R "'%s' is too long (%zu bytes, at most %zu)",
			 f[i].field, f[i].len, f[i].len - 1);
		c = (struct bad_case){ f[i].path, json, msg };
		check_bad(&c, "tcp_stream");
	}
	/* a name that does not fit: params 64, metrics 112, env side.key 64 */
	snprintf(json, sizeof(json), "config/params/%.64s", big);
	snprintf(msg, sizeof(msg), R "'config.params.%.64s' has a name that is too long", big);
	c = (struct bad_case){ json, "\"1\"", msg };
	check_bad(&c, "tcp_stream");
	snprintf(json, sizeof(json), "metrics/%.112s", big);
	snprintf(msg, sizeof(msg), R "'metrics.%.112s' has a name that is too long", big);
	c = (struct bad_case){ json, "{\"value\": 1, \"unit\": \"\"}", msg };
	check_bad(&c, "tcp_stream");
	/* the name is quoted escaped: a control character cannot break the line */
	snprintf(json, sizeof(json), "metrics/%.111s\x7f", big);
	snprintf(msg, sizeof(msg), R "'metrics.%.111s\\x7f' has a name that is too long", big);
	c = (struct bad_case){ json, "{\"value\": 1, \"unit\": \"\"}", msg };
	check_bad(&c, "tcp_stream");
	snprintf(json, sizeof(json), "env/client/%.57s", big); /* "client." + 57 = 64 */
	snprintf(msg, sizeof(msg), R "'env.client.%.57s' is not a valid environment key (empty or too long)", big);
	c = (struct bad_case){ json, "\"v\"", msg };
	check_bad(&c, "tcp_stream");
}

/* The longest strings that do fit are read whole. */
static void test_from_json_accepts_strings_that_just_fit(void **state)
{
	struct base_sample a, b;
	struct base_err err = { "" };
	char big[1024];
	json_t *doc;

	(void)state;
	memset(big, 'y', sizeof(big));
	make_sample(&a, "tcp_stream");
	doc = base_sample_to_json(&a);
	json_object_set_new(doc, "label", json_stringn(big, 127));
	json_object_set_new(json_object_get(doc, "config"), "key",
			    json_stringn(big, 1023));
	base_sample_init(&b);
	if (base_sample_from_json(doc, &b, &err))
		fail_msg("from_json: %s", err.msg);
	assert_int_equal(strlen(b.label), 127);
	assert_int_equal(strlen(b.config_key), 1023);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

static void test_from_json_rejects_a_document_that_is_not_an_object(void **state)
{
	struct base_sample b;
	struct base_err err = { "" };
	json_t *doc = json_pack("[{}]");

	(void)state;
	base_sample_init(&b);
	assert_int_equal(base_sample_from_json(doc, &b, &err), -EINVAL);
	assert_string_equal(err.msg, R "not a json object");
	json_decref(doc);
	/* a NULL err is allowed */
	doc = json_object();
	assert_int_equal(base_sample_from_json(doc, &b, NULL), -EINVAL);
	json_decref(doc);
}

/* The snapshot is kept whole and the document comes back the same, one side an error or none. */
static void test_from_json_round_trips_sysenv_with_an_error_side_or_none(void **state)
{
	static const char *const shapes[] = {
		"{\"client\": {\"fingerprint\": \"00000000000000ff\", \"entries\": {}},"
		" \"server\": {\"error\": \"cannot read /proc/sys/net: Permission denied\"}}",
		"{\"server\": {\"fingerprint\": \"abcdefabcdef0123\", \"entries\": {\"a\": \"\"}}}",
		"{\"client\": {\"error\": \"\"}}",
		"{}",
	};
	struct base_err err = { "" };
	struct base_sample a, b;
	json_t *doc, *again;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(shapes); i++) {
		make_sample(&a, "tcp_stream");
		json_decref(a.sysenv);
		a.sysenv = json_loads(shapes[i], 0, NULL);
		assert_non_null(a.sysenv);
		doc = base_sample_to_json(&a);
		assert_true(json_equal(json_object_get(doc, "sysenv"), a.sysenv));
		base_sample_init(&b);
		if (base_sample_from_json(doc, &b, &err))
			fail_msg("shape %zu: %s", i, err.msg);
		expect_same_sample(&a, &b);
		again = base_sample_to_json(&b);
		assert_true(json_equal(doc, again));
		json_decref(again);
		json_decref(doc);
		base_sample_release(&a);
		base_sample_release(&b);
	}
	/* without one, none comes back */
	make_sample(&a, "tcp_stream");
	json_decref(a.sysenv);
	a.sysenv = NULL;
	doc = base_sample_to_json(&a);
	assert_null(json_object_get(doc, "sysenv"));
	base_sample_init(&b);
	assert_int_equal(base_sample_from_json(doc, &b, &err), 0);
	assert_null(b.sysenv);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
}

/*
 * show, compare and report print names and strings as they are: a newline
 * or an escape sequence in any of them is refused, and the message quotes
 * it escaped. A tab is refused too: netregress never writes one.
 */
static void test_from_json_refuses_control_characters(void **state)
{
	static const struct bad_case c[] = {
		{ "label", "\"A\\u001b[31m\"", R "'label' must not contain a control character" },
		{ "sample_id", "\"ab\\ncd\"", R "'sample_id' must not contain a control character" },
		{ "config/key", "\"test=tcp_stream\\u001b]0;x\\u0007\"",
		  R "'config.key' must not contain a control character" },
		{ "config/params/msg", "\"256\\t\"", R "'config.params.msg' must not contain a control character" },
		{ "config/params/m\x1bsg", "\"256\"", R "'config.params.m\\x1bsg' has a control character in its name" },
		{ "run/server", "\"127.0.0.1\\r\"", R "'run.server' must not contain a control character" },
		{ "env/client/kernel", "\"6.1\\nFORGED\"", R "'env.client.kernel' must not contain a control character" },
		{ "env/client/ker\nnel", "\"6.1\"", R "'env.client.ker\\x0anel' has a control character in its name" },
		{ "env/cli\x7f", "{}", R "'env.cli\\x7f' has a control character in its name" },
		{ "metrics/throughput\x1b.gbps", "{\"value\": 1, \"unit\": \"\"}",
		  R "'metrics.throughput\\x1b.gbps' has a control character in its name" },
		{ "metrics/throughput.gbps/unit", "\"Gb\\u001bps\"",
		  R "'metrics.throughput.gbps.unit' must not contain a control character" },
		{ "sysenv/client/entries/cmdline", "\"ro\\nquiet\"",
		  R "'sysenv.client.entries.cmdline' must not contain a control character" },
		{ "sysenv/client/entries/if.l\x1bo.mtu", "\"1500\"",
		  R "'sysenv.client.entries.if.l\\x1bo.mtu' has a control character in its name" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
}

static void test_from_json_rejects_a_bad_sysenv(void **state)
{
	static const struct bad_case c[] = {
		{ "sysenv", "[]", R "'sysenv' must be an object" },
		{ "sysenv", "\"linux\"", R "'sysenv' must be an object" },
		{ "sysenv/middlebox", "{}", R "'sysenv.middlebox' is not a side (client or server)" },
		{ "sysenv/client", "\"x\"", R "'sysenv.client' must be an object" },
		{ "sysenv/server", "null", R "'sysenv.server' must be an object" },
		{ "sysenv/client/fingerprint", NULL, R "'sysenv.client.fingerprint' is missing" },
		{ "sysenv/client/fingerprint", "\"0123\"", R "'sysenv.client.fingerprint' must be 16 lowercase hex digits" },
		{ "sysenv/client/fingerprint", "\"0123456789ABCDEF\"", R "'sysenv.client.fingerprint' must be 16 lowercase hex digits" },
		{ "sysenv/client/fingerprint", "\"0123456789abcdef0\"", R "'sysenv.client.fingerprint' must be 16 lowercase hex digits" },
		{ "sysenv/client/fingerprint", "\"0123456789abcdeg\"", R "'sysenv.client.fingerprint' must be 16 lowercase hex digits" },
		{ "sysenv/server/fingerprint", "81985529216486895", R "'sysenv.server.fingerprint' must be 16 lowercase hex digits" },
		{ "sysenv/server/entries", NULL, R "'sysenv.server.entries' is missing" },
		{ "sysenv/server/entries", "[]", R "'sysenv.server.entries' must be an object" },
		{ "sysenv/client/entries/kernel.release", "6", R "'sysenv.client.entries.kernel.release' must be a string" },
		{ "sysenv/client/entries/if.lo.mtu", "null", R "'sysenv.client.entries.if.lo.mtu' must be a string" },
		{ "sysenv/client/entries/cmdline", "\"a\\u0000b\"", R "'sysenv.client.entries.cmdline' must not contain a nul character" },
		{ "sysenv/client/entries/", "\"x\"", R "'sysenv.client.entries.' is not a valid entry name (empty or longer than 255 bytes)" },
		{ "sysenv/client/hostname", "\"h\"", R "'sysenv.client.hostname' is not a snapshot field (fingerprint, entries or error)" },
		{ "sysenv/client/error", "\"x\"", R "'sysenv.client' must hold an \"error\" alone, or a \"fingerprint\" and \"entries\"" },
		{ "sysenv/server", "{\"error\": 5}", R "'sysenv.server.error' must be a string" },
		{ "sysenv/server", "{\"error\": null}", R "'sysenv.server.error' must be a string" },
	};

	(void)state;
	check_bad_cases(c, ARRAY_SIZE(c), "tcp_stream");
}

/* Read one document with sysenv.client replaced by side; 0 or the error. */
static int from_json_with_client(json_t *side, struct base_err *err)
{
	struct base_sample a, b;
	json_t *doc;
	int ret;

	make_sample(&a, "tcp_stream");
	doc = base_sample_to_json(&a);
	assert_non_null(doc);
	assert_int_equal(json_object_set_new(json_object_get(doc, "sysenv"), "client", side), 0);
	base_sample_init(&b);
	ret = base_sample_from_json(doc, &b, err);
	assert_int_equal(!ret, !!b.sysenv);
	json_decref(doc);
	base_sample_release(&a);
	base_sample_release(&b);
	return ret;
}

/* The engine's limits: 2048 entries, names under 256 bytes, values and errors of 4096. */
static void test_from_json_sysenv_limits_are_the_collectors(void **state)
{
	char big[5000], name[64], msg[400];
	struct base_err err = { "" };
	json_t *entries;

	(void)state;
	memset(big, 'k', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';

	entries = json_object();
	json_object_set_new(entries, "v", json_stringn(big, 4096));
	json_object_setn_new(entries, big, 255, json_string("name of 255"));
	assert_int_equal(from_json_with_client(json_pack("{s:s, s:o}", "fingerprint",
							 "0000000000000001", "entries", entries), &err), 0);

	entries = json_pack("{s:s%}", "v", big, (size_t)4097);
	assert_int_equal(from_json_with_client(json_pack("{s:s, s:o}", "fingerprint",
							 "0000000000000001", "entries", entries), &err), -EINVAL);
	assert_string_equal(err.msg, R "'sysenv.client.entries.v' is too long (4097 bytes, at most 4096)");

	entries = json_object();
	json_object_setn_new(entries, big, 256, json_string("name of 256"));
	assert_int_equal(from_json_with_client(json_pack("{s:s, s:o}", "fingerprint",
							 "0000000000000001", "entries", entries), &err), -EINVAL);
	snprintf(msg, sizeof(msg), R "'sysenv.client.entries.%.120s' is not a valid entry name (empty or longer than 255 bytes)", big);
	assert_string_equal(err.msg, msg);

	entries = json_object();
	for (int i = 0; i < 2048; i++) {
		snprintf(name, sizeof(name), "sysctl.net.core.n%04d", i);
		json_object_set_new(entries, name, json_string("1"));
	}
	assert_int_equal(from_json_with_client(json_pack("{s:s, s:O}", "fingerprint",
							 "0000000000000001", "entries", entries), &err), 0);
	json_object_set_new(entries, "one.more", json_string("1"));
	assert_int_equal(from_json_with_client(json_pack("{s:s, s:o}", "fingerprint",
							 "0000000000000001", "entries", entries), &err), -EINVAL);
	assert_string_equal(err.msg, R "'sysenv.client.entries' has too many entries (2049, at most 2048)");

	assert_int_equal(from_json_with_client(json_pack("{s:s%}", "error", big, (size_t)4096), &err), 0);
	assert_int_equal(from_json_with_client(json_pack("{s:s%}", "error", big, (size_t)4097), &err), -EINVAL);
	assert_string_equal(err.msg, R "'sysenv.client.error' is too long (4097 bytes, at most 4096)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_json_round_trips_a_tcp_sample),
		cmocka_unit_test(test_from_json_round_trips_a_udp_sample),
		cmocka_unit_test(test_from_json_round_trips_request_response_samples),
		cmocka_unit_test(test_from_json_round_trips_an_empty_sample),
		cmocka_unit_test(test_from_json_keeps_unknown_metrics_and_ignores_unknown_fields),
		cmocka_unit_test(test_from_json_accepts_an_integer_metric_value),
		cmocka_unit_test(test_from_json_rejects_a_bad_schema_version),
		cmocka_unit_test(test_from_json_rejects_bad_top_level_fields),
		cmocka_unit_test(test_from_json_rejects_bad_metrics),
		cmocka_unit_test(test_from_json_rejects_bad_flows),
		cmocka_unit_test(test_from_json_rejects_strings_that_do_not_fit),
		cmocka_unit_test(test_from_json_accepts_strings_that_just_fit),
		cmocka_unit_test(test_from_json_rejects_a_document_that_is_not_an_object),
		cmocka_unit_test(test_from_json_round_trips_sysenv_with_an_error_side_or_none),
		cmocka_unit_test(test_from_json_rejects_a_bad_sysenv),
		cmocka_unit_test(test_from_json_refuses_control_characters),
		cmocka_unit_test(test_from_json_sysenv_limits_are_the_collectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
