// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for cli/load's --where (which configurations compare, report and show take) and --headline's parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "cli/load.h"

static const char k64[] = "ipv=4 msg=64 rcvbuf=auto streams=1 test=udp_stream";
static const char k1472[] = "ipv=4 msg=1472 rcvbuf=auto streams=2 test=udp_stream";
static const char k64k[] = "ipv=6 msg=65536 rcvbuf=8192 streams=1 test=udp_stream";
static const char krr[] = "ipv=4 req=1 resp=1 streams=1 test=tcp_rr";

static void where_of(struct cli_where *w, const char *const *args, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(cli_where_add(w, args[i]), EXIT_OK);
}

static void keys_of(struct cli_keys *k, const char *const *keys, size_t n)
{
	k->key = calloc(n, sizeof(*k->key));
	assert_non_null(k->key);
	for (k->n = 0; k->n < n; k->n++)
		assert_non_null(k->key[k->n] = strdup(keys[k->n]));
	k->cap = n;
}

static void test_no_term_takes_everything(void **state)
{
	struct cli_where w = { 0 };

	(void)state;
	assert_true(cli_where_match(&w, k64));
	assert_true(cli_where_match(&w, ""));
}

static void test_names_and_values_of_one_name(void **state)
{
	static const char *const args[] = { "msg=64", "streams=1", "msg=1472" };
	struct cli_where w = { 0 };
	char *text;

	(void)state;
	where_of(&w, args, 3);
	/* msg is 64 or 1472, and streams is 1 */
	assert_true(cli_where_match(&w, k64));
	assert_false(cli_where_match(&w, k1472));
	assert_false(cli_where_match(&w, k64k));
	/* a key without the parameter does not pass */
	assert_false(cli_where_match(&w, krr));
	/* a value is the whole value, not a prefix or a part of another pair */
	assert_false(cli_where_match(&w, "msg=640 streams=1"));
	assert_false(cli_where_match(&w, "rmsg=64 streams=1"));
	assert_true(cli_where_match(&w, "streams=1 msg=64"));
	text = cli_where_text(&w);
	assert_string_equal(text, "msg=64 streams=1 msg=1472");
	free(text);
	cli_where_release(&w);
}

static void test_sizes_match_byte_counts(void **state)
{
	static const char *const args[] = { "msg=64K", "rcvbuf=8kib" };
	static const char *const plain[] = { "rcvbuf=auto" };
	struct cli_where w = { 0 }, a = { 0 };

	(void)state;
	where_of(&w, args, 2);
	assert_true(cli_where_match(&w, k64k));
	assert_false(cli_where_match(&w, k64));
	/* a word is a word: auto is not a size */
	where_of(&a, plain, 1);
	assert_true(cli_where_match(&a, k64));
	assert_false(cli_where_match(&a, k64k));
	cli_where_release(&w);
	cli_where_release(&a);
}

static void test_bad_terms_are_refused(void **state)
{
	static const char *const bad[] = { "msg", "=64", "msg=", "Msg=64", "msg=6 4",
					   "msg=64\n", "m-sg=64", "" };
	struct cli_where w = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(cli_where_add(&w, bad[i]), EXIT_USAGE);
	assert_int_equal(w.n, 0);
	cli_where_release(&w);
}

static void test_apply_keeps_what_passes_and_refuses_what_names_nothing(void **state)
{
	static const char *const ka[] = { k64, k1472, krr }, *const kb[] = { k64, k64k };
	static const char *const labels[] = { "a", "b" };
	static const char *const ok[] = { "test=udp_stream", "ipv=4" };
	static const char *const no_value[] = { "msg=100" };
	static const char *const no_name[] = { "mgs=64" };
	static const char *const none_in_b[] = { "msg=1472" };
	struct cli_keys k[2] = { { 0 } };
	struct cli_where w = { 0 };

	(void)state;
	keys_of(&k[0], ka, 3);
	keys_of(&k[1], kb, 2);
	where_of(&w, no_value, 1);
	assert_int_equal(cli_where_apply(&w, k, labels, 2), EXIT_USAGE);
	cli_where_release(&w);
	where_of(&w, no_name, 1);
	assert_int_equal(cli_where_apply(&w, k, labels, 2), EXIT_USAGE);
	cli_where_release(&w);
	/* refused before anything was dropped */
	assert_int_equal(k[0].n, 3);
	assert_int_equal(k[1].n, 2);
	where_of(&w, ok, 2);
	assert_int_equal(cli_where_apply(&w, k, labels, 2), EXIT_OK);
	assert_int_equal(k[0].n, 2);
	assert_string_equal(k[0].key[0], k64);
	assert_string_equal(k[0].key[1], k1472);
	assert_int_equal(k[1].n, 1);
	assert_string_equal(k[1].key[0], k64);
	cli_where_release(&w);
	/* a value one label has and the other not: that label is left empty */
	where_of(&w, none_in_b, 1);
	assert_int_equal(cli_where_apply(&w, k, labels, 2), EXIT_RUNTIME);
	cli_where_release(&w);
	cli_keys_release(&k[0]);
	cli_keys_release(&k[1]);
}

/*
 * --headline METRIC[:higher|lower]: a metric with a direction in the
 * store takes it (a suffix may repeat it, not contradict it); a neutral
 * one is refused without a suffix and takes the one given; a name that is
 * empty, too long for a metric, has a space or an unknown suffix is
 * refused. Every refusal is a usage error.
 */
static void test_headline_parse_takes_directions_and_refuses_neutral(void **state)
{
	static const struct {
		const char *arg, *metric;
		int code;
		enum metric_dir dir;
	} c[] = {
		{ "latency.p99_us", "latency.p99_us", EXIT_OK, METRIC_NEUTRAL },
		{ "throughput.msgs_per_s", "throughput.msgs_per_s", EXIT_OK, METRIC_NEUTRAL },
		{ "latency.p99_us:lower", "latency.p99_us", EXIT_OK, METRIC_LOWER },
		{ "latency.p99_us:higher", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "cpu.service_demand.client_us_per_kb", "cpu.service_demand.client_us_per_kb",
		  EXIT_OK, METRIC_NEUTRAL },
		{ "profile.self.memcpy", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "profile.self.memcpy:lower", "profile.self.memcpy", EXIT_OK, METRIC_LOWER },
		{ "profile.self.memcpy:higher", "profile.self.memcpy", EXIT_OK, METRIC_HIGHER },
		{ "profile.self.memcpy:neutral", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "profile.self.memcpy:", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ ":lower", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "latency p99", NULL, EXIT_USAGE, METRIC_NEUTRAL },
		{ "latency.p99_us:lower:lower", NULL, EXIT_USAGE, METRIC_NEUTRAL },
	};
	struct cli_headline h;
	char longname[160];

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int code = cli_headline_parse(c[i].arg, &h);

		if (code != c[i].code)
			fail_msg("'%s': %d, expected %d", c[i].arg, code, c[i].code);
		if (code)
			continue;
		assert_string_equal(h.metric, c[i].metric);
		assert_int_equal(h.dir, c[i].dir);
	}
	/* the longest name a sample holds, and one more */
	memset(longname, 'a', sizeof(longname));
	memcpy(longname, "latency.", 8);
	longname[sizeof(h.metric) - 1] = '\0';
	assert_int_equal(cli_headline_parse(longname, &h), EXIT_OK);
	longname[sizeof(h.metric) - 1] = 'a';
	longname[sizeof(h.metric)] = '\0';
	assert_int_equal(cli_headline_parse(longname, &h), EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_term_takes_everything),
		cmocka_unit_test(test_names_and_values_of_one_name),
		cmocka_unit_test(test_sizes_match_byte_counts),
		cmocka_unit_test(test_bad_terms_are_refused),
		cmocka_unit_test(test_apply_keeps_what_passes_and_refuses_what_names_nothing),
		cmocka_unit_test(test_headline_parse_takes_directions_and_refuses_neutral),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
