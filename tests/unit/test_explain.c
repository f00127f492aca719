// SPDX-License-Identifier: GPL-2.0-only
/* The compare table's union of profile symbols and what moved with the headline (stats/explain). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/report.h"
#include "stats/explain.h"
#include "stats/table.h"

#define N 6

/* Two labels of N tcp_stream samples each, and their pointer arrays. */
struct labels {
	struct base_sample a[N], b[N];
	const struct base_sample *pa[N], *pb[N];
};

static void set(struct base_sample *s, const char *name, const char *unit, double v)
{
	assert_int_equal(base_sample_set(s, name, unit, v), 0);
}

/* A profiled sample: its rate, its CPU per KB, a common symbol. Small
 * deterministic jitter j keeps the values apart (no ties). */
static void sample_init(struct base_sample *s, double gbps, double us_per_kb, double j)
{
	base_sample_init(s);
	snprintf(s->config_key, sizeof(s->config_key), "test=tcp_stream");
	assert_int_equal(base_sample_param(s, "test", "tcp_stream"), 0);
	set(s, "throughput.gbps", "Gbps", gbps * (1 + j));
	set(s, "cpu.service_demand.client_host_us_per_kb", "us", us_per_kb * (1 + j));
	set(s, "profile.samples", "count", 4000);
	set(s, "profile.self.common_fn", "%", 20 + 10 * j);
}

static void labels_init(struct labels *l, double gbps_b, double us_b)
{
	for (size_t i = 0; i < N; i++) {
		double j = 0.01 * (double)i;

		sample_init(&l->a[i], 10, 1.0, j);
		sample_init(&l->b[i], gbps_b, us_b, j + 0.003);
		l->pa[i] = &l->a[i];
		l->pb[i] = &l->b[i];
	}
}

static void labels_release(struct labels *l)
{
	for (size_t i = 0; i < N; i++) {
		base_sample_release(&l->a[i]);
		base_sample_release(&l->b[i]);
	}
}

static const struct stats_row *row_of(const struct stats_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return &t->rows[i];
	return NULL;
}

static void build(struct labels *l, struct stats_table *t)
{
	struct stats_table_opts o;

	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(l->pa, N, l->pb, N, &o, t), 0);
}

static void test_symbol_only_in_b_gets_a_row_and_ranks_first(void **state)
{
	struct labels l;
	struct stats_table t;
	const struct stats_row *r;

	(void)state;
	labels_init(&l, 6, 1.6);
	for (size_t i = 0; i < N; i++)
		set(&l.b[i], "profile.self.hot_only_in_b", "%", 30 + (double)i);
	build(&l, &t);
	r = row_of(&t, "profile.self.hot_only_in_b");
	assert_non_null(r);
	assert_true(r->shown);
	assert_int_equal(r->c.na, N); /* A's samples count it as 0 */
	assert_true(r->c.median_a == 0);
	assert_true(r->c.median_b > 30);
	assert_true(t.nwhy >= 1);
	assert_string_equal(t.why[0].metric, "profile.self.hot_only_in_b");
	assert_int_equal(t.why[0].kind, STATS_WHY_COST);
	/* 0 -> 32.5% of 1.6 us per KB against A's 1.0: +52% of A's */
	assert_true(fabs(t.why[0].cost_pct_of_a - 100 * 0.325 * 1.6 * 1.0273) < 3);
	assert_true(t.why_basis.changed);
	assert_true(isfinite(t.why[0].account_pct));
	stats_table_release(&t);
	labels_release(&l);
}

static void test_symbol_only_in_a_compares_against_zero(void **state)
{
	struct labels l;
	struct stats_table t;
	const struct stats_row *r;

	(void)state;
	labels_init(&l, 10, 1.0);
	for (size_t i = 0; i < N; i++)
		set(&l.a[i], "profile.self.gone_in_b", "%", 12 + (double)i);
	build(&l, &t);
	r = row_of(&t, "profile.self.gone_in_b");
	assert_non_null(r);
	assert_int_equal(r->c.nb, N);
	assert_true(r->c.median_b == 0);
	assert_true(r->c.median_a > 12);
	stats_table_release(&t);
	labels_release(&l);
}

/* Under the threshold in some samples of A (absent: 0 there), over it in
 * others; a sample without a profile is not counted as 0. */
static void test_symbol_under_the_threshold_counts_as_zero_where_profiled(void **state)
{
	struct labels l;
	struct stats_table t;
	const struct stats_row *r;
	struct stats_table_opts o;

	(void)state;
	labels_init(&l, 10, 1.0);
	for (size_t i = 0; i < N; i++) {
		set(&l.b[i], "profile.self.sometimes", "%", 5 + (double)i);
		if (i % 2)
			set(&l.a[i], "profile.self.sometimes", "%", 0.5);
	}
	/* a sample of A measured without the profiler */
	base_sample_release(&l.a[0]);
	base_sample_init(&l.a[0]);
	snprintf(l.a[0].config_key, sizeof(l.a[0].config_key), "test=tcp_stream");
	assert_int_equal(base_sample_param(&l.a[0], "test", "tcp_stream"), 0);
	set(&l.a[0], "throughput.gbps", "Gbps", 10);
	stats_table_opts_init(&o);
	o.all = true;
	assert_int_equal(stats_table_build(l.pa, N, l.pb, N, &o, &t), 0);
	r = row_of(&t, "profile.self.sometimes");
	assert_non_null(r);
	assert_int_equal(r->c.na, N - 1);
	/* i = 1..5: 0.5, 0, 0.5, 0, 0.5: the two without it count */
	assert_true(r->c.median_a == 0.5);
	stats_table_release(&t);
	labels_release(&l);
}

/* A buffer the kernel granted differently comes first, even untested;
 * then a material cost, then other figures. */
static void test_a_granted_setting_ranks_before_costs_and_figures(void **state)
{
	struct labels l;
	struct stats_table t;
	char line[320];

	(void)state;
	labels_init(&l, 6, 1.6);
	for (size_t i = 0; i < N; i++) {
		set(&l.a[i], "granted.client.rcvbuf", "B", 16384);
		set(&l.b[i], "granted.client.rcvbuf", "B", 8192);
		set(&l.a[i], "profile.self.hot", "%", 1 + 0.1 * (double)i);
		set(&l.b[i], "profile.self.hot", "%", 30 + (double)i);
		set(&l.a[i], "softirq.NET_RX.per_mb", "", 100 + (double)i);
		set(&l.b[i], "softirq.NET_RX.per_mb", "", 160 + (double)i);
		/* the rcvbuf at stop moves with the traffic: not a setting */
		set(&l.a[i], "granted.client.rcvbuf_end", "B", 50000 + (double)i);
		set(&l.b[i], "granted.client.rcvbuf_end", "B", 50000 + (double)i);
	}
	build(&l, &t);
	assert_true(t.nwhy >= 3);
	assert_string_equal(t.why[0].metric, "granted.client.rcvbuf");
	assert_int_equal(t.why[0].kind, STATS_WHY_SETTING);
	assert_non_null(row_of(&t, "granted.client.rcvbuf"));
	assert_string_equal(t.why[1].metric, "profile.self.hot");
	assert_string_equal(t.why[2].metric, "softirq.NET_RX.per_mb");
	assert_int_equal(t.why[2].kind, STATS_WHY_FIGURE);
	for (size_t i = 0; i < t.nwhy; i++)
		assert_string_not_equal(t.why[i].metric, "granted.client.rcvbuf_end");
	report_why_text(&t.why[0], line, sizeof(line));
	assert_non_null(strstr(line, "16384 B -> 8192 B"));
	assert_non_null(strstr(line, "granted by the kernel"));
	stats_table_release(&t);
	labels_release(&l);
}

/* A cost that moved by a small part of the headline's change ranks after
 * the figures; children shares are not ranked. */
static void test_small_costs_rank_after_figures(void **state)
{
	struct labels l;
	struct stats_table t;

	(void)state;
	labels_init(&l, 5, 1.0);
	for (size_t i = 0; i < N; i++) {
		set(&l.a[i], "profile.self.small", "%", 2 + 0.01 * (double)i);
		set(&l.b[i], "profile.self.small", "%", 4 + 0.01 * (double)i);
		set(&l.a[i], "profile.children.entry", "%", 40 + 0.1 * (double)i);
		set(&l.b[i], "profile.children.entry", "%", 90 + 0.1 * (double)i);
		set(&l.a[i], "tcp.bytes_per_seg", "B", 65000 + (double)i);
		set(&l.b[i], "tcp.bytes_per_seg", "B", 1400 + (double)i);
	}
	build(&l, &t);
	assert_true(t.nwhy >= 2);
	assert_string_equal(t.why[0].metric, "tcp.bytes_per_seg");
	assert_string_equal(t.why[1].metric, "profile.self.small");
	for (size_t i = 0; i < t.nwhy; i++)
		assert_string_not_equal(t.why[i].metric, "profile.children.entry");
	assert_non_null(row_of(&t, "profile.children.entry"));
	stats_table_release(&t);
	labels_release(&l);
}

/* compare's first lines: the call and its likely cause; nothing for a
 * table whose headline called nothing. */
static void test_answer_names_the_call_and_its_likely_cause(void **state)
{
	struct labels l;
	struct stats_table t;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	labels_init(&l, 6, 1.6);
	for (size_t i = 0; i < N; i++)
		set(&l.b[i], "profile.self.hot_only_in_b", "%", 30 + (double)i);
	build(&l, &t);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_true(report_why_answer(f, &t, ""));
	fclose(f);
	if (!strstr(buf, "REGRESSION throughput.gbps -39.8% (p 0.0022) at test=tcp_stream\n"))
		fail_msg("got: %s", buf);
	assert_non_null(strstr(buf, "at test=tcp_stream\n  likely: profile.self.hot_only_in_b 0% -> "));
	free(buf);
	stats_table_release(&t);
	labels_release(&l);

	labels_init(&l, 10, 1.0);
	build(&l, &t);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_false(report_why_answer(f, &t, ""));
	fclose(f);
	assert_int_equal(len, 0);
	free(buf);
	stats_table_release(&t);
	labels_release(&l);
}

/* A setting made to the machine (a qdisc on the test's interface, a net
 * sysctl) goes first, as found in the two environments; an entry only
 * one kernel has is not a change. */
static void test_environment_settings_go_first(void **state)
{
	struct labels l;
	struct stats_table t;
	char line[320];

	(void)state;
	labels_init(&l, 6, 1.6);
	for (size_t i = 0; i < N; i++)
		set(&l.b[i], "profile.self.hot_only_in_b", "%", 30 + (double)i);
	/* the full snapshots of the client's machine, as the store holds them */
	l.a[0].sysenv = json_pack("{s:{s:s, s:{s:s, s:s}}}", "client", "fingerprint",
				  "0123456789abcdef", "entries", "if.veth0.qdisc", "noqueue",
				  "kernel.release", "6.1");
	l.b[0].sysenv = json_pack("{s:{s:s, s:{s:s, s:s, s:s}}}", "client", "fingerprint",
				  "fedcba9876543210", "entries", "if.veth0.qdisc", "tbf",
				  "kernel.release", "6.2", "sysctl.net.core.new_knob", "1");
	assert_non_null(l.a[0].sysenv);
	assert_non_null(l.b[0].sysenv);
	build(&l, &t);
	report_why_env(&t, &l.a[0], &l.b[0]);
	assert_true(t.nwhy >= 2);
	assert_true(t.why[0].env);
	report_why_text(&t.why[0], line, sizeof(line));
	assert_string_equal(line, "client.if.veth0.qdisc noqueue -> tbf: set so in B's environment");
	assert_string_equal(t.why[1].metric, "profile.self.hot_only_in_b");
	for (size_t i = 0; i < t.nwhy; i++)
		assert_null(strstr(t.why[i].metric, "new_knob"));
	stats_table_release(&t);
	labels_release(&l);
}

static void test_explains_admits_causes_not_the_headlines_relatives(void **state)
{
	(void)state;
	assert_true(stats_explains("profile.self.foo", "tcp_stream"));
	assert_true(stats_explains("server.profile.self.foo", "tcp_stream"));
	assert_true(stats_explains("granted.client.rcvbuf", "tcp_stream"));
	assert_true(stats_explains("softirq.NET_RX.per_mb", "udp_stream"));
	assert_false(stats_explains("throughput.gbps", "tcp_stream"));
	assert_false(stats_explains("cpu.service_demand.client_us_per_kb", "tcp_stream"));
	assert_false(stats_explains("snmp.Tcp.OutSegs.per_mb", "udp_stream"));
	assert_true(stats_why_is_setting("granted.server.sndbuf"));
	assert_true(stats_why_is_setting("granted.rx.rcv_wscale"));
	assert_false(stats_why_is_setting("granted.server.sndbuf_end"));
	assert_false(stats_why_is_setting("granted.rx.rcv_space"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symbol_only_in_b_gets_a_row_and_ranks_first),
		cmocka_unit_test(test_symbol_only_in_a_compares_against_zero),
		cmocka_unit_test(test_symbol_under_the_threshold_counts_as_zero_where_profiled),
		cmocka_unit_test(test_a_granted_setting_ranks_before_costs_and_figures),
		cmocka_unit_test(test_small_costs_rank_after_figures),
		cmocka_unit_test(test_answer_names_the_call_and_its_likely_cause),
		cmocka_unit_test(test_environment_settings_go_first),
		cmocka_unit_test(test_explains_admits_causes_not_the_headlines_relatives),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
