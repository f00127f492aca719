// SPDX-License-Identifier: GPL-2.0-only
/* The parameter table: keys and JSON as before it, CLI and YAML through it, --mss. */
#include <errno.h>
#include <getopt.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/confopts.h"
#include "job/config.h"
#include "job/jobfile.h"
#include "job/params.h"
#include "params_golden.h"

static const struct base_cpulist four = { .n = 4, .cpu = { 0, 1, 2, 3 } };

/* argv from "tcp_rr -r 64,1K": split at spaces into buf */
static int split(const char *s, char *buf, size_t len, char **argv, int max)
{
	int argc = 0;

	snprintf(buf, len, "%s", s);
	argv[argc++] = "run";
	for (char *t = strtok(buf, " "); t && argc < max - 1; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	return argc;
}

/* The workload flags of args applied to c as run does; the CLI's result
 * of the last one (1 all applied, -1 a bad value). */
static int parse_args(const char *args, struct job_config *c)
{
	static const struct option own[] = { { NULL, 0, NULL, 0 } };
	struct option opts[CLI_MAX_OPTIONS];
	char shorts[64], buf[512], *argv[64];
	int argc = split(args, buf, sizeof(buf), argv, 64), opt, r = 1;

	assert_int_equal(cli_config_getopt(own, "", opts, shorts, sizeof(shorts)), 0);
	job_config_init(c);
	optind = 0; /* glibc: start afresh, argv is another one */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1)
		if ((r = cli_config_opt(opt, optarg, c)) <= 0)
			return r ? r : -2;
	if (optind < argc)
		assert_int_equal(job_test_parse(argv[optind], &c->test, NULL), 0);
	return r;
}

static void test_keys_and_json_are_those_stored_before_the_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(golden_cli) / sizeof(golden_cli[0]); i++) {
		struct job_config c, back;
		struct base_err err = { "" };
		char key[4096], key2[4096];
		json_t *j, *want;

		if (parse_args(golden_cli[i].args, &c) != 1)
			fail_msg("%s: not parsed", golden_cli[i].args);
		assert_int_equal(job_config_finalize(&c, &four, &err), 0);
		assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
		if (strcmp(key, golden_cli[i].key))
			fail_msg("%s:\n got  %s\n want %s", golden_cli[i].args, key,
				 golden_cli[i].key);
		j = job_config_to_json(&c);
		want = json_loads(golden_cli[i].json, 0, NULL);
		assert_non_null(j);
		assert_non_null(want);
		if (!json_equal(j, want))
			fail_msg("%s: the JSON form differs", golden_cli[i].args);
		/* and what a peer reads back has the same key */
		assert_int_equal(job_config_from_json(j, &back, &err), 0);
		assert_int_equal(job_config_key(&back, key2, sizeof(key2)), 0);
		assert_string_equal(key2, key);
		json_decref(j);
		json_decref(want);
	}
}

static unsigned long long fnv1a(unsigned long long h, const char *s)
{
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static void test_job_file_cells_keep_their_keys(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(golden_yaml) / sizeof(golden_yaml[0]); i++) {
		struct base_err err = { "" };
		struct job_file *jf = NULL;
		struct job_cell *cells = NULL;
		unsigned long long h = 0xcbf29ce484222325ULL;
		size_t n = 0;
		char key[4096];

		assert_int_equal(job_file_parse(golden_yaml[i].text, strlen(golden_yaml[i].text),
						"t.yaml", &jf, &err), 0);
		assert_int_equal(job_file_expand(jf, &four, &cells, &n, &err), 0);
		assert_int_equal(n, golden_yaml[i].ncells);
		for (size_t k = 0; k < n; k++) {
			assert_int_equal(job_config_key(&cells[k].cfg, key, sizeof(key)), 0);
			if (k)
				h = fnv1a(h, "\n");
			h = fnv1a(h, key);
		}
		assert_true(h == golden_yaml[i].fnv);
		job_cells_free(cells, n);
		job_file_free(jf);
	}
}

/* Every row is reachable by the names it has, and no two rows share one. */
static void test_rows_have_distinct_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];

		if (p->yaml)
			assert_ptr_equal(job_pdef_by_yaml(p->yaml), p);
		if (p->lopt)
			assert_ptr_equal(job_pdef_by_lopt(p->lopt), p);
		if (p->sopt)
			assert_ptr_equal(job_pdef_by_sopt(p->sopt), p);
		if (p->json)
			assert_true(job_params_known(p->json));
		for (size_t k = 0; k < i; k++)
			if (p->name && job_pdefs[k].name)
				assert_string_not_equal(p->name, job_pdefs[k].name);
		/* an option the CLI offers says what it does */
		if (p->lopt || p->sopt)
			assert_non_null(p->help);
	}
}

/* The key's order is the table's: what job_key_diff() and stored keys
 * expect (rmsg sorts before req and resp, as every key stored has it). */
static void test_key_names_follow_the_stored_order(void **state)
{
	const char *prev = NULL;

	(void)state;
	for (size_t i = 0; i < job_npdefs; i++) {
		const char *n = job_pdefs[i].name;

		if (!n)
			continue;
		if (prev && strcmp(prev, "rmsg"))
			assert_true(strcmp(prev, n) < 0);
		prev = n;
	}
}

/* --mss: the option, the key pair only when set, the wire field, the
 * file key, the range and the tcp-only rule. */
static void test_mss_from_cli_file_and_wire(void **state)
{
	static const char yaml[] = "params:\n  test: tcp_rr\n  mss: [1000, 1460]\n";
	struct job_config c, back;
	struct base_err err = { "" };
	struct job_file *jf = NULL;
	struct job_cell *cells = NULL;
	size_t n = 0, len;
	char key[4096];
	const char *v;
	json_t *j;

	(void)state;
	assert_int_equal(parse_args("tcp_stream --mss 1000", &c), 1);
	assert_int_equal(job_config_finalize(&c, &four, &err), 0);
	assert_int_equal(c.mss, 1000);
	assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
	assert_non_null(strstr(key, " msg=131072 mss=1000 nodelay=0 "));
	j = job_config_to_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "mss")), 1000);
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.mss, 1000);
	json_decref(j);
	/* unset: in neither the key nor the wire form, as before it */
	assert_int_equal(parse_args("tcp_stream", &c), 1);
	assert_int_equal(job_config_finalize(&c, &four, &err), 0);
	assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
	assert_null(job_key_value(key, "mss", &len));
	j = job_config_to_json(&c);
	assert_null(json_object_get(j, "mss"));
	json_object_set_new(j, "mss", json_integer(40));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	assert_string_equal(err.msg, "configuration field 'mss' = 40: expected 88 to 65535");
	json_decref(j);
	assert_int_equal(job_pdef_cli(job_pdef_by_lopt("mss"), "--mss", "80", &c, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid --mss: invalid number '80': expected an integer from 88 to 65535");
	c.mss = 70000;
	assert_int_equal(job_config_finalize(&c, &four, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid mss 70000: expected 88 to 65535 bytes");
	assert_int_equal(parse_args("udp_stream --mss 1000", &c), 1);
	assert_int_equal(job_config_finalize(&c, &four, &err), -EINVAL);
	assert_string_equal(err.msg, "mss (TCP_MAXSEG) applies to tcp tests only");
	/* and a job file's axis */
	assert_int_equal(job_file_parse(yaml, strlen(yaml), "t.yaml", &jf, &err), 0);
	assert_int_equal(job_file_expand(jf, &four, &cells, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(job_config_key(&cells[1].cfg, key, sizeof(key)), 0);
	v = job_key_value(key, "mss", &len);
	assert_non_null(v);
	assert_int_equal(strncmp(v, "1460", len), 0);
	job_cells_free(cells, n);
	job_file_free(jf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_json_are_those_stored_before_the_table),
		cmocka_unit_test(test_job_file_cells_keep_their_keys),
		cmocka_unit_test(test_rows_have_distinct_names),
		cmocka_unit_test(test_key_names_follow_the_stored_order),
		cmocka_unit_test(test_mss_from_cli_file_and_wire),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
