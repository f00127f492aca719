// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for base/sample: the metric direction table, Jain's index and the metric map. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/sample.h"

/* cmocka 1.1's assert_float_equal() compares floats; these need doubles. */
#define expect_near(got, want, tol) \
	expect_near_at((got), (want), (tol), #got, __LINE__)

static void expect_near_at(double got, double want, double tol,
			   const char *what, int line)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("line %d: %s = %.17g, want %.17g (+- %g)", line, what,
			 got, want, tol);
}

struct dir_case {
	const char *name;
	enum metric_dir dir;
};

static void check_dirs(const struct dir_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		enum metric_dir d = base_metric_dir(c[i].name);

		if (d != c[i].dir)
			fail_msg("'%s' is %s, want %s", c[i].name,
				 base_metric_dir_name(d),
				 base_metric_dir_name(c[i].dir));
	}
}

static void test_metric_dir_throughput_is_higher_better(void **state)
{
	static const struct dir_case c[] = {
		{ "throughput.gbps", METRIC_HIGHER },
		{ "throughput.flow_min_gbps", METRIC_HIGHER },
		{ "throughput.msgs_per_s", METRIC_HIGHER },
		{ "fairness.jain", METRIC_HIGHER },
	};

	(void)state;
	check_dirs(c, ARRAY_SIZE(c));
}

static void test_metric_dir_latency_and_loss_are_lower_better(void **state)
{
	static const struct dir_case c[] = {
		{ "latency.p50_us", METRIC_LOWER },
		{ "latency.p99_us", METRIC_LOWER },
		{ "udp.loss_pct", METRIC_LOWER },
		{ "udp.lost", METRIC_LOWER },
		{ "tcp.retransmits", METRIC_LOWER },
		{ "tcp.rtt_us", METRIC_LOWER },
	};

	(void)state;
	check_dirs(c, ARRAY_SIZE(c));
}

static void test_metric_dir_cpu_is_neutral(void **state)
{
	static const struct dir_case c[] = {
		{ "cpu.busy_pct", METRIC_NEUTRAL },
		{ "cpu.client.sys_pct", METRIC_NEUTRAL },
		{ "cpu.service_demand", METRIC_NEUTRAL }, /* not the prefix */
		{ "window.ns", METRIC_NEUTRAL },
		{ "sockbuf.client_sndbuf", METRIC_NEUTRAL },
		/* one instant's rate sample, in MSS units: no verdict */
		{ "tcp.delivery_rate_gbps", METRIC_NEUTRAL },
	};

	(void)state;
	check_dirs(c, ARRAY_SIZE(c));
}

/* "cpu." says neutral, the longer "cpu.service_demand." says lower: the
 * longer entry must win. */
static void test_metric_dir_service_demand_is_lower_better_by_longest_match(void **state)
{
	static const struct dir_case c[] = {
		{ "cpu.service_demand.client_us_per_gb", METRIC_LOWER },
		{ "cpu.service_demand.server_us_per_gb", METRIC_LOWER },
	};

	(void)state;
	check_dirs(c, ARRAY_SIZE(c));
}

static void test_metric_dir_unknown_and_partial_names_are_neutral(void **state)
{
	static const struct dir_case c[] = {
		{ "", METRIC_NEUTRAL },
		{ "bogus", METRIC_NEUTRAL },
		{ "throughput", METRIC_NEUTRAL }, /* a prefix needs its dot */
		{ "throughputx.gbps", METRIC_NEUTRAL },
		{ "Throughput.gbps", METRIC_NEUTRAL },
		{ "udp.loss_pct_max", METRIC_NEUTRAL }, /* exact entry, not a prefix */
		{ "udp.loss", METRIC_NEUTRAL },
		{ "x.throughput.gbps", METRIC_NEUTRAL },
	};

	(void)state;
	check_dirs(c, ARRAY_SIZE(c));
}

static void test_metric_dir_name_spells_each_direction(void **state)
{
	(void)state;
	assert_string_equal(base_metric_dir_name(METRIC_HIGHER), "higher");
	assert_string_equal(base_metric_dir_name(METRIC_LOWER), "lower");
	assert_string_equal(base_metric_dir_name(METRIC_NEUTRAL), "neutral");
	assert_string_equal(base_metric_dir_name((enum metric_dir)42), "neutral");
}

/*
 * Jain's index, J = (sum x)^2 / (n * sum x^2): R. Jain, D. Chiu, W. Hawe,
 * "A Quantitative Measure of Fairness and Discrimination for Resource
 * Allocation in Shared Computer Systems", DEC-TR-301, 1984.
 */
static void test_jain_index_of_equal_values_is_one(void **state)
{
	double x[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(x); i++)
		x[i] = 7.5;
	expect_near(base_jain_index(x, 1), 1.0, 1e-12);
	expect_near(base_jain_index(x, 3), 1.0, 1e-12);
	expect_near(base_jain_index(x, 64), 1.0, 1e-12);
}

static void test_jain_index_of_one_nonzero_among_n_is_one_over_n(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 16; n++) {
		double x[16] = { 0 };

		x[n / 2] = 40.0;
		expect_near(base_jain_index(x, n), 1.0 / (double)n,
				   1e-12);
	}
}

static void test_jain_index_of_nothing_is_zero(void **state)
{
	double zeros[4] = { 0 };

	(void)state;
	expect_near(base_jain_index(NULL, 0), 0.0, 0.0);
	expect_near(base_jain_index(zeros, 4), 0.0, 0.0);
}

/* {1,2,3,4}: 100 / (4 * 30) = 5/6, computed independently in Python:
 * sum(x)**2 / (len(x) * sum(v*v for v in x)) == 0.8333333333333334. */
static void test_jain_index_matches_independent_value_and_ignores_scale(void **state)
{
	const double x[] = { 1, 2, 3, 4 };
	const double scaled[] = { 2.5, 5, 7.5, 10 };

	(void)state;
	expect_near(base_jain_index(x, 4), 0.8333333333333334, 1e-15);
	expect_near(base_jain_index(scaled, 4), 0.8333333333333334,
			   1e-15);
}

static void test_sample_set_adds_then_gets_metrics(void **state)
{
	struct base_sample s;
	const struct sample_metric *m;

	(void)state;
	base_sample_init(&s);
	assert_null(base_sample_get(&s, "throughput.gbps"));
	assert_int_equal(base_sample_set(&s, "throughput.gbps", "Gbps", 9.5), 0);
	assert_int_equal(base_sample_set(&s, "udp.loss_pct", "%", 0.25), 0);
	assert_int_equal(s.nmetrics, 2);
	m = base_sample_get(&s, "throughput.gbps");
	assert_non_null(m);
	assert_string_equal(m->unit, "Gbps");
	expect_near(m->value, 9.5, 0.0);
	m = base_sample_get(&s, "udp.loss_pct");
	assert_non_null(m);
	expect_near(m->value, 0.25, 0.0);
	assert_null(base_sample_get(&s, "throughput"));
	base_sample_release(&s);
	assert_null(s.metrics);
	assert_int_equal(s.nmetrics, 0);
}

static void test_sample_set_replaces_existing_metric(void **state)
{
	struct base_sample s;
	const struct sample_metric *m;

	(void)state;
	base_sample_init(&s);
	assert_int_equal(base_sample_set(&s, "a", "s", 1.0), 0);
	assert_int_equal(base_sample_set(&s, "throughput.gbps", "Gbps", 1.0), 0);
	assert_int_equal(base_sample_set(&s, "z", "s", 3.0), 0);
	assert_int_equal(base_sample_set(&s, "throughput.gbps", "Gbps", 2.0), 0);
	assert_int_equal(s.nmetrics, 3);
	m = base_sample_get(&s, "throughput.gbps");
	assert_non_null(m);
	expect_near(m->value, 2.0, 0.0);
	/* the neighbours are untouched */
	expect_near(base_sample_get(&s, "a")->value, 1.0, 0.0);
	expect_near(base_sample_get(&s, "z")->value, 3.0, 0.0);
	/* replacing replaces the unit too */
	assert_int_equal(base_sample_set(&s, "a", "ms", 4.0), 0);
	assert_string_equal(base_sample_get(&s, "a")->unit, "ms");
	base_sample_release(&s);
}

static void test_sample_set_keeps_every_metric_while_growing(void **state)
{
	struct base_sample s;
	char name[32];

	(void)state;
	base_sample_init(&s);
	for (int i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "m.%d", i);
		assert_int_equal(base_sample_set(&s, name, "", i), 0);
	}
	assert_int_equal(s.nmetrics, 100);
	for (int i = 0; i < 100; i++) {
		const struct sample_metric *m;

		snprintf(name, sizeof(name), "m.%d", i);
		m = base_sample_get(&s, name);
		assert_non_null(m);
		expect_near(m->value, i, 0.0);
	}
	base_sample_release(&s);
}

static void test_sample_set_rejects_name_or_unit_that_does_not_fit(void **state)
{
	struct sample_metric probe;
	char name[sizeof(probe.name) + 1];
	char unit[sizeof(probe.unit) + 1];
	struct base_sample s;

	(void)state;
	base_sample_init(&s);
	memset(name, 'n', sizeof(probe.name) - 1);
	name[sizeof(probe.name) - 1] = '\0';
	assert_int_equal(base_sample_set(&s, name, "x", 1.0), 0);
	name[sizeof(probe.name) - 1] = 'n';
	name[sizeof(probe.name)] = '\0';
	assert_int_equal(base_sample_set(&s, name, "x", 1.0), -EINVAL);

	memset(unit, 'u', sizeof(probe.unit));
	unit[sizeof(probe.unit)] = '\0';
	assert_int_equal(base_sample_set(&s, "ok", unit, 1.0), -EINVAL);
	assert_int_equal(s.nmetrics, 1);
	base_sample_release(&s);
}

/* Replacing a metric's unit with one too long is refused and keeps it. */
static void test_sample_set_replacing_refuses_a_unit_too_long(void **state)
{
	struct sample_metric probe;
	char unit[sizeof(probe.unit) + 1];
	struct base_sample s;

	(void)state;
	base_sample_init(&s);
	memset(unit, 'u', sizeof(probe.unit));
	unit[sizeof(probe.unit)] = '\0';
	assert_int_equal(base_sample_set(&s, "a", "s", 1.0), 0);
	assert_int_equal(base_sample_set(&s, "a", unit, 2.0), -EINVAL);
	assert_int_equal(s.nmetrics, 1);
	assert_string_equal(base_sample_get(&s, "a")->unit, "s");
	assert_true(base_sample_get(&s, "a")->value == 1.0);
	base_sample_release(&s);
}

/* get_near finds a metric at its hint, anywhere else, or not at all, as
 * get does; append adds without looking. */
static void test_sample_get_near_and_append(void **state)
{
	struct base_sample s;
	const char *names[] = { "a", "b", "c", "d" };

	(void)state;
	base_sample_init(&s);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(base_sample_append(&s, names[i], "x", (double)i), 0);
	for (size_t i = 0; i < 4; i++)
		for (size_t hint = 0; hint < 6; hint++) {
			const struct sample_metric *m = base_sample_get_near(&s, names[i], hint);

			assert_ptr_equal(m, base_sample_get(&s, names[i]));
			assert_ptr_equal(m, &s.metrics[i]);
		}
	assert_null(base_sample_get_near(&s, "e", 0));
	assert_null(base_sample_get_near(&s, "e", 9));
	assert_int_equal(base_sample_append(&s, "e", "x", 4.0), 0);
	assert_ptr_equal(base_sample_get_near(&s, "e", 4), &s.metrics[4]);
	assert_int_equal(s.nmetrics, 5);
	base_sample_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metric_dir_throughput_is_higher_better),
		cmocka_unit_test(test_metric_dir_latency_and_loss_are_lower_better),
		cmocka_unit_test(test_metric_dir_cpu_is_neutral),
		cmocka_unit_test(test_metric_dir_service_demand_is_lower_better_by_longest_match),
		cmocka_unit_test(test_metric_dir_unknown_and_partial_names_are_neutral),
		cmocka_unit_test(test_metric_dir_name_spells_each_direction),
		cmocka_unit_test(test_jain_index_of_equal_values_is_one),
		cmocka_unit_test(test_jain_index_of_one_nonzero_among_n_is_one_over_n),
		cmocka_unit_test(test_jain_index_of_nothing_is_zero),
		cmocka_unit_test(test_jain_index_matches_independent_value_and_ignores_scale),
		cmocka_unit_test(test_sample_set_adds_then_gets_metrics),
		cmocka_unit_test(test_sample_set_replaces_existing_metric),
		cmocka_unit_test(test_sample_set_keeps_every_metric_while_growing),
		cmocka_unit_test(test_sample_set_rejects_name_or_unit_that_does_not_fit),
		cmocka_unit_test(test_sample_set_replacing_refuses_a_unit_too_long),
		cmocka_unit_test(test_sample_get_near_and_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
