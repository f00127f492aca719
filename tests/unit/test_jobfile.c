// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for job/jobfile: YAML job files, their diagnostics and the matrix expansion. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/cpus.h"
#include "base/err.h"
#include "base/time.h"
#include "job/config.h"
#include "job/jobfile.h"

/* Fixtures live in tests/data/jobs; run from the top of the tree or set
 * NR_TEST_DATA to the data folder. */
static void fixture_path(const char *name, char *path, size_t len)
{
	const char *dir = getenv("NR_TEST_DATA");

	snprintf(path, len, "%s/jobs/%s", dir ? dir : "tests/data", name);
}

static struct job_file *load_ok(const char *name)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = NULL;
	char path[512];
	int ret;

	fixture_path(name, path, sizeof(path));
	ret = job_file_load(path, &jf, &err);
	if (ret)
		fail_msg("loading %s failed with %d: %s", path, ret, err.msg);
	return jf;
}

/* Load a fixture that must fail with -EINVAL and exactly
 * "<path>:<line>:<col>: <msg>". */
static void expect_load_error(const char *name, int line, int col,
			      const char *msg)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = (struct job_file *)&err; /* must become NULL */
	char path[512], want[1024];
	int ret;

	fixture_path(name, path, sizeof(path));
	ret = job_file_load(path, &jf, &err);
	snprintf(want, sizeof(want), "%s:%d:%d: %s", path, line, col, msg);
	if (ret != -EINVAL)
		fail_msg("%s: returned %d, want -EINVAL (%s)", path, ret, err.msg);
	assert_null(jf);
	assert_string_equal(err.msg, want);
}

static struct job_file *parse_ok(const char *text)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = NULL;
	int ret = job_file_parse(text, strlen(text), "x.yaml", &jf, &err);

	if (ret)
		fail_msg("parse failed with %d: %s\n---\n%s", ret, err.msg, text);
	return jf;
}

/* Parse text as "x.yaml"; expect -EINVAL and exactly msg. */
static void expect_parse_error(const char *text, const char *msg)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = (struct job_file *)&err;
	int ret = job_file_parse(text, strlen(text), "x.yaml", &jf, &err);

	if (ret != -EINVAL)
		fail_msg("returned %d, want -EINVAL with '%s' (got '%s')\n---\n%s",
			 ret, msg, err.msg, text);
	assert_null(jf);
	assert_string_equal(err.msg, msg);
}

/* The cpus 0-3, as a 4-cpu machine allows them. */
static const struct base_cpulist *cpus4(void)
{
	static struct base_cpulist l;

	base_cpus_first(&l, 4);
	return &l;
}

static size_t expand_ok(const struct job_file *jf, struct job_cell **cells)
{
	struct base_err err = { .msg = "" };
	size_t n = 0;
	int ret = job_file_expand(jf, cpus4(), cells, &n, &err);

	if (ret)
		fail_msg("expand failed with %d: %s", ret, err.msg);
	return n;
}

/* The number of cells text expands to. */
static size_t count_cells(const char *text)
{
	struct job_file *jf = parse_ok(text);
	struct job_cell *cells = NULL;
	size_t n = expand_ok(jf, &cells);

	job_cells_free(cells, n);
	job_file_free(jf);
	return n;
}

static void expect_expand_error(const char *text, const char *msg)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = parse_ok(text);
	struct job_cell *cells = (struct job_cell *)&err;
	size_t n = 99;
	int ret = job_file_expand(jf, cpus4(), &cells, &n, &err);

	if (ret != -EINVAL)
		fail_msg("expand returned %d, want -EINVAL with '%s'", ret, msg);
	assert_null(cells);
	assert_int_equal(n, 0);
	assert_string_equal(err.msg, msg);
	job_file_free(jf);
}

/* ---- the format ---- */

static void test_udp_matrix_reads_run_control_and_params_in_file_order(void **state)
{
	static const char *const names[] = { "test", "ipv", "topology", "mtu",
					     "msg", "streams", "dir" };
	static const bool axis[] = { false, true, false, true, true, true, true };
	static const size_t nvalues[] = { 1, 2, 1, 2, 3, 4, 2 };
	struct job_file *jf = load_ok("udp-matrix.yaml");

	(void)state;
	assert_string_equal(jf->name, "udp-matrix");
	assert_string_equal(jf->label, "my-kernel");
	assert_int_equal(jf->reps, 5);
	assert_int_equal(jf->duration_ns, 10 * NS_PER_S);
	assert_int_equal(jf->warmup_ns, 2 * NS_PER_S);
	assert_int_equal(jf->interval_ns, 0);
	assert_int_equal(jf->seed, 42);
	assert_false(jf->seed_chosen);
	assert_true(jf->collect.counters);
	assert_true(jf->collect.perf);
	assert_false(jf->collect.profile);
	assert_false(jf->collect.speed_set); /* per test: not in the file */
	assert_true(jf->collect.xcpu); /* on unless the file says */
	assert_false(jf->collect.profile_min_set); /* the command's default */
	assert_true(jf->no_fragmentation);
	assert_int_equal(jf->nparams, 7);
	assert_int_equal(jf->nexclude, 1);
	for (size_t i = 0; i < 7; i++) {
		assert_string_equal(jf->params[i].name, names[i]);
		assert_int_equal(jf->params[i].axis, axis[i]);
		assert_int_equal(jf->params[i].nvalues, nvalues[i]);
		assert_int_equal(jf->params[i].line, 10 + i);
		assert_int_equal(jf->params[i].col, 3);
	}
	assert_string_equal(jf->params[4].text[2], "8952");
	assert_int_equal(job_file_param_index(jf, "msg"), 4);
	assert_int_equal(job_file_param_index(jf, "rcvbuf"), -1);
	job_file_free(jf);
}

static void test_udp_matrix_expands_96_minus_16_with_first_axis_slowest(void **state)
{
	struct job_file *jf = load_ok("udp-matrix.yaml");
	struct job_cell *cells = NULL;
	size_t n = expand_ok(jf, &cells);
	const struct job_config *c = &cells[0].cfg;

	(void)state;
	/* 2 x 2 x 3 x 4 x 2 = 96, minus mtu 1500 with msg 8952 (2x4x2) */
	assert_int_equal(n, 80);
	assert_string_equal(cells[0].desc, "ipv=4 mtu=1500 msg=64 streams=1 dir=send");
	assert_string_equal(cells[1].desc, "ipv=4 mtu=1500 msg=64 streams=1 dir=bidir");
	assert_string_equal(cells[2].desc, "ipv=4 mtu=1500 msg=64 streams=8 dir=send");
	assert_string_equal(cells[39].desc, "ipv=4 mtu=9000 msg=8952 streams=24 dir=bidir");
	assert_string_equal(cells[40].desc, "ipv=6 mtu=1500 msg=64 streams=1 dir=send");
	assert_string_equal(cells[79].desc, "ipv=6 mtu=9000 msg=8952 streams=24 dir=bidir");
	assert_int_equal(c->test, JOB_TEST_UDP_STREAM);
	assert_int_equal(c->dir, JOB_DIR_SEND);
	assert_int_equal(c->ipv, 4);
	assert_string_equal(c->topology, "veth");
	assert_int_equal(c->mtu, 1500);
	assert_int_equal(c->msg_bytes, 64);
	assert_int_equal(c->streams, 1);
	assert_int_equal(c->batch, 32); /* finalized */
	assert_int_equal(c->duration_ns, 10 * NS_PER_S);
	assert_int_equal(c->warmup_ns, 2 * NS_PER_S);
	c = &cells[79].cfg;
	assert_int_equal(c->ipv, 6);
	assert_int_equal(c->mtu, 9000);
	assert_int_equal(c->msg_bytes, 8952);
	assert_int_equal(c->streams, 24);
	assert_int_equal(c->dir, JOB_DIR_BIDIR);
	assert_int_equal(c->threads, 2); /* split: min(48 flows, 2 cpus an end) */
	/* the value indexes point back at the params */
	assert_int_equal(cells[79].value[1], 1);
	assert_int_equal(cells[79].value[4], 2);
	assert_int_equal(cells[79].value[0], 0);
	job_cells_free(cells, n);
	job_file_free(jf);
}

static const char udp_base[] =
	"params:\n"
	"  test: udp_stream\n"
	"  ipv: [4, 6]\n"
	"  topology: veth\n"
	"  mtu: [1500, 9000]\n"
	"  msg: [64, 1452, 8952]\n"
	"  streams: [1, 8, 16, 24]\n"
	"  dir: [send, bidir]\n";

static void test_product_counts_with_and_without_excludes(void **state)
{
	char text[1024];

	(void)state;
	assert_int_equal(count_cells(udp_base), 96);
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtu: 1500, msg: 8952}\n", udp_base);
	assert_int_equal(count_cells(text), 80);
	/* two rules: either drops */
	snprintf(text, sizeof(text),
		 "%sexclude:\n  - {mtu: 1500, msg: 8952}\n  - {ipv: 6, dir: bidir}\n",
		 udp_base);
	assert_int_equal(count_cells(text), 80 - 20);
	/* a list in a rule matches any of its values */
	snprintf(text, sizeof(text), "%sexclude:\n  - {streams: [16, 24]}\n", udp_base);
	assert_int_equal(count_cells(text), 48);
	/* a rule on a scalar parameter drops everything it matches */
	snprintf(text, sizeof(text),
		 "%sexclude:\n  - {topology: veth, msg: 64}\n", udp_base);
	assert_int_equal(count_cells(text), 64);
	/* block style rules */
	snprintf(text, sizeof(text),
		 "%sexclude:\n  - mtu: 9000\n    msg: [64, 1452]\n", udp_base);
	assert_int_equal(count_cells(text), 96 - 32);
}

static void test_no_fragmentation_drops_udp_cells_over_mtu(void **state)
{
	char text[1024];

	(void)state;
	/* mtu 1500 drops 8952 for both ip versions (2 x 1 x 1 x 4 x 2) */
	snprintf(text, sizeof(text), "%sno_fragmentation: true\n", udp_base);
	assert_int_equal(count_cells(text), 80);
	snprintf(text, sizeof(text), "%sno_fragmentation: false\n", udp_base);
	assert_int_equal(count_cells(text), 96);
	/* the boundary: ipv4 carries mtu - 28, ipv6 mtu - 48 */
	assert_int_equal(count_cells("no_fragmentation: yes\n"
				     "params:\n"
				     "  test: udp_stream\n"
				     "  topology: veth\n"
				     "  ipv: [4, 6]\n"
				     "  msg: [1452, 1453, 1472, 1473]\n"),
			 3 + 1);
	/* request/response: the larger of request and response */
	assert_int_equal(count_cells("no_fragmentation: true\n"
				     "params:\n"
				     "  test: udp_rr\n"
				     "  topology: veth\n"
				     "  mtu: 1500\n"
				     "  req: 64\n"
				     "  resp: [1472, 1473]\n"),
			 1);
	/* tcp cells are never dropped */
	assert_int_equal(count_cells("no_fragmentation: true\n"
				     "params:\n"
				     "  test: [tcp_stream, udp_stream]\n"
				     "  topology: veth\n"
				     "  msg: 9000\n"),
			 1);
	/* udp_gso: the kernel's datagrams are udp_gso bytes, not msg */
	assert_int_equal(count_cells("no_fragmentation: true\n"
				     "params:\n"
				     "  test: udp_stream\n"
				     "  topology: veth\n"
				     "  msg: 60000\n"
				     "  udp_gso: [1472, 1473, 8952]\n"),
			 1);
	/* loopback: a 65536-byte mtu, so only the largest ipv6 datagrams */
	assert_int_equal(count_cells("no_fragmentation: true\n"
				     "params:\n"
				     "  test: udp_stream\n"
				     "  ipv: [4, 6]\n"
				     "  msg: [65488, 65489]\n"),
			 3);
}

/* collect.profile_min: the profile's threshold, kept for the command;
 * not part of any cell's configuration (it changes what is kept, not
 * what is measured) */
static void test_collect_profile_min_is_not_in_the_key(void **state)
{
	struct job_file *a, *b;
	struct job_cell *ca, *cb;
	char ka[1024], kb[1024];
	size_t na, nb;

	(void)state;
	a = parse_ok("collect: {profile: true, profile_min: 0.05}\nparams:\n  msg: 1K\n");
	b = parse_ok("collect: {profile: true}\nparams:\n  msg: 1K\n");
	assert_true(a->collect.profile_min_set);
	assert_float_equal(a->collect.profile_min_pct, 0.05, 0);
	assert_false(b->collect.profile_min_set);
	na = expand_ok(a, &ca);
	nb = expand_ok(b, &cb);
	assert_int_equal(na, 1);
	assert_int_equal(nb, 1);
	assert_int_equal(job_config_key(&ca[0].cfg, ka, sizeof(ka)), 0);
	assert_int_equal(job_config_key(&cb[0].cfg, kb, sizeof(kb)), 0);
	assert_string_equal(ka, kb);
	assert_non_null(strstr(ka, " profile=1 "));
	job_cells_free(ca, na);
	job_cells_free(cb, nb);
	job_file_free(a);
	job_file_free(b);
	/* 0 and 100 are percentages too */
	a = parse_ok("collect: {profile_min: 0}\n");
	assert_float_equal(a->collect.profile_min_pct, 0, 0);
	job_file_free(a);
	a = parse_ok("collect: {profile_min: 100}\n");
	assert_float_equal(a->collect.profile_min_pct, 100, 0);
	job_file_free(a);
}

static void test_scalar_is_not_an_axis_but_a_one_value_list_is(void **state)
{
	struct job_file *jf;
	struct job_cell *cells;
	size_t n;

	(void)state;
	jf = parse_ok("params:\n  ipv: 6\n  msg: 1K\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 1);
	assert_false(jf->params[0].axis);
	assert_string_equal(cells[0].desc, "");
	assert_int_equal(cells[0].cfg.ipv, 6);
	assert_int_equal(cells[0].cfg.msg_bytes, 1024);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("params:\n  ipv: [6]\n  msg: 1K\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 1);
	assert_true(jf->params[0].axis);
	assert_string_equal(cells[0].desc, "ipv=6");
	job_cells_free(cells, n);
	job_file_free(jf);

	/* an alias repeats a list */
	jf = parse_ok("params:\n  msg: &sizes [64, 1K]\n  rmsg: *sizes\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 4);
	assert_string_equal(cells[3].desc, "msg=1K rmsg=1K");
	job_cells_free(cells, n);
	job_file_free(jf);

	/* block lists and quoted values are values like any other */
	jf = parse_ok("params:\n  msg:\n    - 1K\n    - \"2K\"\n    - '4096'\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 3);
	assert_string_equal(cells[1].desc, "msg=2K");
	assert_int_equal(cells[2].cfg.msg_bytes, 4096);
	job_cells_free(cells, n);
	job_file_free(jf);
}

static void test_exclude_matches_values_not_spelling(void **state)
{
	(void)state;
	/* 1K is 1024, 2048 is 2K */
	assert_int_equal(count_cells("params:\n"
				     "  msg: [1024, 2K, 4K]\n"
				     "exclude:\n"
				     "  - {msg: [1K, 2048]}\n"),
			 1);
	assert_int_equal(count_cells("params:\n"
				     "  nodelay: [true, false]\n"
				     "  rcvbuf: [8K, auto]\n"
				     "exclude:\n"
				     "  - {nodelay: on, rcvbuf: 0}\n"),
			 3);
}

static void test_minimal_file_gives_documented_defaults(void **state)
{
	struct job_file *jf = load_ok("minimal.yaml");
	struct job_cell *cells;
	size_t n = expand_ok(jf, &cells);

	(void)state;
	assert_null(jf->name);
	assert_null(jf->label);
	assert_int_equal(jf->reps, 5);
	assert_int_equal(jf->duration_ns, 10 * NS_PER_S);
	assert_int_equal(jf->warmup_ns, 2 * NS_PER_S);
	assert_true(jf->seed_chosen);
	assert_true(jf->collect.counters);
	assert_true(jf->collect.perf);
	assert_false(jf->collect.profile);
	assert_false(jf->no_fragmentation);
	assert_int_equal(jf->nparams, 0);
	assert_int_equal(n, 1);
	assert_int_equal(cells[0].cfg.test, JOB_TEST_TCP_STREAM);
	assert_int_equal(cells[0].cfg.msg_bytes, 128 * 1024);
	job_cells_free(cells, n);
	job_file_free(jf);
}

static void test_other_fixtures_expand(void **state)
{
	struct job_file *jf;
	struct job_cell *cells;
	size_t n;

	(void)state;
	jf = load_ok("tcp-rcvbuf.yaml");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 5);
	assert_int_equal(jf->reps, 10);
	assert_int_equal(jf->duration_ns, 20 * NS_PER_S);
	assert_string_equal(cells[0].desc, "rcvbuf=8K");
	assert_string_equal(cells[4].desc, "rcvbuf=auto");
	assert_int_equal(cells[3].cfg.rcvbuf, 65536);
	assert_int_equal(cells[4].cfg.rcvbuf, 0);
	assert_int_equal(cells[4].cfg.sndbuf, 8192);
	assert_int_equal(cells[4].cfg.streams, 32);
	assert_int_equal(cells[4].cfg.dir, JOB_DIR_RECV);
	assert_true(cells[4].cfg.nodelay);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = load_ok("rr-latency.yaml");
	n = expand_ok(jf, &cells);
	/* 2 x 3 x 2 x 2, minus the half-pinned */
	assert_int_equal(n, 12);
	assert_int_equal(jf->seed, 7);
	assert_int_equal(jf->interval_ns, NS_PER_S);
	assert_false(jf->collect.perf);
	assert_true(jf->collect.profile);
	/* the profiler is part of every cell's key */
	assert_true(cells[0].cfg.profile);
	assert_false(jf->collect.speed_set);
	assert_false(jf->collect.xcpu);
	assert_string_equal(cells[0].desc, "test=tcp_rr resp=64 cpus=0 remote_cpus=1");
	assert_string_equal(cells[1].desc, "test=tcp_rr resp=64 cpus=none remote_cpus=none");
	assert_int_equal(cells[0].cfg.cpus.n, 1);
	assert_int_equal(cells[0].cfg.remote_cpus.cpu[0], 1);
	/* placement: free, so "none" stays unpinned */
	assert_int_equal(cells[1].cfg.cpus.n, 0);
	assert_int_equal(cells[1].cfg.remote_cpus.n, 0);
	assert_int_equal(cells[11].cfg.test, JOB_TEST_UDP_RR);
	assert_int_equal(cells[11].cfg.resp_bytes, 16384);
	assert_int_equal(cells[11].cfg.rr_timeout_ns, 500 * NS_PER_MS);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = load_ok("veth-shaping.yaml");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 36);
	assert_string_equal(cells[0].desc, "tbf_rate=900mbit gro=on cpu_quota=50 cc=cubic");
	assert_int_equal(cells[0].cfg.tbf_rate_bps, 900000000);
	assert_int_equal(cells[0].cfg.gro, 1);
	assert_int_equal(cells[0].cfg.gso, -1);
	assert_int_equal(cells[0].cfg.tso, 0);
	assert_int_equal(cells[0].cfg.mtu, 9000);
	assert_int_equal(cells[0].cfg.cpu_quota_pct, 50);
	assert_string_equal(cells[0].cfg.cc, "cubic");
	assert_int_equal(cells[35].cfg.tbf_rate_bps, 10000000000ULL);
	assert_int_equal(cells[35].cfg.cpu_quota_pct, 0);
	assert_string_equal(cells[35].cfg.cc, "");
	assert_int_equal(cells[2].cfg.cpu_quota_pct, 100); /* "100%" */
	job_cells_free(cells, n);
	job_file_free(jf);

	/* the cells do not multiply by the labels: the matrix does */
	jf = load_ok("labels-sysctl.yaml");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 2);
	assert_int_equal(jf->nlabels, 3);
	assert_string_equal(jf->labels[2].name, "small-tcp");
	assert_string_equal(job_label_sysctl(&jf->labels[2], "net.ipv4.tcp_wmem"), "4096 8192 8192");
	assert_null(job_label_sysctl(&jf->labels[2], "net.core.rmem_default"));
	job_cells_free(cells, n);
	job_file_free(jf);
}

static void test_every_parameter_reaches_the_configuration(void **state)
{
	struct job_file *jf;
	struct job_cell *cells;
	const struct job_config *c;
	size_t n;

	(void)state;
	jf = parse_ok("params:\n"
		      "  test: tcp_stream\n"
		      "  dir: bidir\n"
		      "  streams: 3\n"
		      "  threads: 2\n"
		      "  msg: 64K\n"
		      "  rmsg: 256K\n"
		      "  sndbuf: 1M\n"
		      "  rcvbuf: 2M\n"
		      "  remote_sndbuf: 3M\n"
		      "  remote_rcvbuf: 4M\n"
		      "  nodelay: yes\n"
		      "  cc: bbr\n"
		      "  ipv: 6\n"
		      "  cpus: 0-1,3\n"
		      "  remote_cpus: \"2\"\n"
		      "  topology: veth\n"
		      "  mtu: 9000\n"
		      "  gro: off\n"
		      "  gso: on\n"
		      "  tso: default\n"
		      "  tbf_rate: 1.5gbit\n"
		      "  cpu_quota: 250%\n"
		      "  placement: free\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 1);
	c = &cells[0].cfg;
	assert_int_equal(c->placement, JOB_PLACE_FREE);
	assert_int_equal(c->test, JOB_TEST_TCP_STREAM);
	assert_int_equal(c->dir, JOB_DIR_BIDIR);
	assert_int_equal(c->streams, 3);
	assert_int_equal(c->threads, 2);
	assert_int_equal(c->msg_bytes, 65536);
	assert_int_equal(c->rmsg_bytes, 262144);
	assert_int_equal(c->sndbuf, 1 << 20);
	assert_int_equal(c->rcvbuf, 2 << 20);
	assert_int_equal(c->remote_sndbuf, 3 << 20);
	assert_int_equal(c->remote_rcvbuf, 4 << 20);
	assert_true(c->nodelay);
	assert_string_equal(c->cc, "bbr");
	assert_int_equal(c->ipv, 6);
	assert_int_equal(c->cpus.n, 3);
	assert_int_equal(c->cpus.cpu[2], 3);
	assert_int_equal(c->remote_cpus.n, 1);
	assert_int_equal(c->remote_cpus.cpu[0], 2);
	assert_string_equal(c->topology, "veth");
	assert_int_equal(c->mtu, 9000);
	assert_int_equal(c->gro, 0);
	assert_int_equal(c->gso, 1);
	assert_int_equal(c->tso, -1);
	assert_int_equal(c->tbf_rate_bps, 1500000000);
	assert_int_equal(c->cpu_quota_pct, 250);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("duration: 1500ms\n"
		      "warmup: 0\n"
		      "interval: 500ms\n"
		      "params:\n"
		      "  test: udp_rr\n"
		      "  req: 32\n"
		      "  resp: 2K\n"
		      "  rate: 2500.5\n"
		      "  timeout: 50ms\n"
		      "  threads: auto\n"
		      "  streams: 4\n");
	n = expand_ok(jf, &cells);
	c = &cells[0].cfg;
	assert_int_equal(c->test, JOB_TEST_UDP_RR);
	assert_int_equal(c->req_bytes, 32);
	assert_int_equal(c->resp_bytes, 2048);
	assert_true(c->rate == 2500.5);
	assert_int_equal(c->rr_timeout_ns, 50 * NS_PER_MS);
	assert_int_equal(c->threads, 2); /* auto: min(4 flows, 2 cpus an end) */
	assert_int_equal(c->duration_ns, 1500 * NS_PER_MS);
	assert_int_equal(c->warmup_ns, 0);
	assert_int_equal(c->interval_ns, 500 * NS_PER_MS);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("params:\n  test: tcp_rr\n  burst: [1, 16]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 2);
	assert_int_equal(cells[1].cfg.burst, 16);
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("params:\n  test: udp_stream\n  batch: [1, 64]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(cells[1].cfg.batch, 64);
	job_cells_free(cells, n);
	job_file_free(jf);

	/* a share of the cpus, as lkp's nr_threads: 4 cpus here */
	jf = parse_ok("params:\n  streams: [2, 50%, 200%]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 3);
	assert_int_equal(cells[0].cfg.streams, 2);
	assert_int_equal(cells[1].cfg.streams, 2);
	assert_int_equal(cells[2].cfg.streams, 8);
	assert_string_equal(cells[2].desc, "streams=200%");
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("params:\n  test: udp_stream\n  msg: 14720\n"
		      "  udp_gso: [off, 1472]\n  udp_gro: [no, yes]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 4);
	assert_int_equal(cells[0].cfg.udp_gso, 0);
	assert_false(cells[0].cfg.udp_gro);
	assert_int_equal(cells[3].cfg.udp_gso, 1472);
	assert_true(cells[3].cfg.udp_gro);
	assert_string_equal(cells[3].desc, "udp_gso=1472 udp_gro=yes");
	job_cells_free(cells, n);
	job_file_free(jf);

	jf = parse_ok("params:\n  test: tcp_sendfile\n  sendfile_from: [tmp, memfd]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 2);
	assert_int_equal(cells[0].cfg.sendfile_from, JOB_SENDFILE_TMP);
	assert_int_equal(cells[1].cfg.sendfile_from, JOB_SENDFILE_MEMFD);
	assert_string_equal(cells[1].desc, "sendfile_from=memfd");
	job_cells_free(cells, n);
	job_file_free(jf);

	/* an axis of buffer offsets; a cell without it is page-aligned */
	jf = parse_ok("params:\n  buf_offset: [0, 16, 4095]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 3);
	assert_int_equal(cells[0].cfg.buf_offset, 0);
	assert_int_equal(cells[1].cfg.buf_offset, 16);
	assert_int_equal(cells[2].cfg.buf_offset, 4095);
	assert_string_equal(cells[1].desc, "buf_offset=16");
	job_cells_free(cells, n);
	job_file_free(jf);

	/* timed transfers, as bw_tcp -M: off is none, sizes as -m writes them */
	jf = parse_ok("params:\n  dir: recv\n  transfer: [off, 128K, 10M]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 3);
	assert_int_equal(cells[0].cfg.transfer_bytes, 0);
	assert_int_equal(cells[1].cfg.transfer_bytes, 131072);
	assert_int_equal(cells[2].cfg.transfer_bytes, 10485760);
	assert_string_equal(cells[2].desc, "transfer=10M");
	job_cells_free(cells, n);
	job_file_free(jf);

	/* the CPU latency request: none (not held) is not the 0 that polls */
	jf = parse_ok("params:\n  cpu_latency: [none, 0, 50]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 3);
	assert_false(cells[0].cfg.hold_cpu_latency);
	assert_true(cells[1].cfg.hold_cpu_latency);
	assert_int_equal(cells[1].cfg.cpu_latency_us, 0);
	assert_true(cells[2].cfg.hold_cpu_latency);
	assert_int_equal(cells[2].cfg.cpu_latency_us, 50);
	assert_string_equal(cells[1].desc, "cpu_latency=0");
	job_cells_free(cells, n);
	job_file_free(jf);
	expect_parse_error("params:\n  cpu_latency: [0, -1]\n",
			   "x.yaml:2:20: invalid value '-1' for 'cpu_latency': expected an integer from 0 to 1000000, or none");

	/* waits that sleep against waits that poll: one axis */
	jf = parse_ok("params:\n  test: tcp_rr\n  spin: [false, true]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 2);
	assert_false(cells[0].cfg.spin);
	assert_true(cells[1].cfg.spin);
	assert_string_equal(cells[1].desc, "spin=true");
	job_cells_free(cells, n);
	job_file_free(jf);
	expect_parse_error("params:\n  spin: always\n",
			   "x.yaml:2:9: invalid value 'always' for 'spin': expected true or false");
}

static void test_seed_is_drawn_when_absent_and_kept_when_given(void **state)
{
	struct job_file *jf;

	(void)state;
	jf = parse_ok("seed: 18446744073709551615\n");
	assert_false(jf->seed_chosen);
	assert_true(jf->seed == UINT64_MAX);
	job_file_free(jf);
	jf = parse_ok("seed: 0\n");
	assert_false(jf->seed_chosen);
	assert_int_equal(jf->seed, 0);
	job_file_free(jf);
	jf = parse_ok("repetitions: 2\n");
	assert_true(jf->seed_chosen);
	job_file_free(jf);
}

static void test_parse_reads_exactly_len_bytes(void **state)
{
	static const char text[] = "repetitions: 3\nbogus: 1\n";
	struct base_err err = { .msg = "" };
	struct job_file *jf = NULL;

	(void)state;
	/* only the first line: no terminator needed, the rest unseen */
	assert_int_equal(job_file_parse(text, 15, "x.yaml", &jf, &err), 0);
	assert_int_equal(jf->reps, 3);
	job_file_free(jf);
}

/* ---- errors, each naming the file, line, column and the key ---- */

static void test_tab_indentation_names_line_and_column(void **state)
{
	(void)state;
	expect_load_error("err-tab.yaml", 4, 1,
			  "invalid yaml: a tab character: indent with spaces");
}

static void test_unknown_parameter_names_key(void **state)
{
	(void)state;
	expect_load_error("err-unknown-key.yaml", 4, 3,
			  "unknown parameter 'rcvbuff' in params");
}

static void test_bad_size_names_value_and_key(void **state)
{
	(void)state;
	expect_load_error("err-bad-size.yaml", 7, 16,
			  "invalid value '8Q' for 'rcvbuf': expected a size like 8K or 1M, up to 1G, or auto");
}

static void test_empty_list_is_an_error(void **state)
{
	(void)state;
	expect_load_error("err-empty-list.yaml", 3, 8,
			  "empty list for 'msg': expected at least one value");
}

static void test_nested_mapping_is_an_error(void **state)
{
	(void)state;
	expect_load_error("err-nested-mapping.yaml", 4, 5,
			  "'msg' takes a value or a list of values, not a mapping");
}

static void test_duplicate_key_names_both_lines(void **state)
{
	(void)state;
	expect_load_error("err-duplicate-key.yaml", 6, 3,
			  "duplicate key 'msg' (first at line 4)");
}

static void test_exclude_key_must_be_in_params(void **state)
{
	(void)state;
	expect_load_error("err-exclude-key.yaml", 5, 15,
			  "exclude key 'ipv' is not in params");
}

static void test_unparseable_yaml_names_problem_and_context(void **state)
{
	(void)state;
	expect_load_error("err-syntax.yaml", 5, 10,
			  "invalid yaml: did not find expected ',' or ']' (while parsing a flow sequence at line 4 column 8)");
}

static void test_top_level_errors(void **state)
{
	(void)state;
	expect_parse_error("repetitions: 3\nrepeats: 4\n",
			   "x.yaml:2:1: unknown key 'repeats'");
	expect_parse_error("msg: 64\n",
			   "x.yaml:1:1: unknown key 'msg': parameters go under params");
	expect_parse_error("seed: 1\nseed: 2\n",
			   "x.yaml:2:1: duplicate key 'seed' (first at line 1)");
	expect_parse_error("repetitions: 0\n",
			   "x.yaml:1:14: invalid value '0' for 'repetitions': expected an integer from 1 to 100000");
	expect_parse_error("repetitions: [1, 2]\n",
			   "x.yaml:1:14: 'repetitions' takes one value, not a list");
	expect_parse_error("duration:\n",
			   "x.yaml:1:10: 'duration' has no value");
	expect_parse_error("duration: 50ms\n",
			   "x.yaml:1:11: invalid value '50ms' for 'duration': expected a duration like 10s or 500ms, from 100ms to 24h");
	expect_parse_error("warmup: 2 s\n",
			   "x.yaml:1:9: invalid value '2 s' for 'warmup': expected a duration from 0 to 1h (like 2s), auto or auto:MAX");
	expect_parse_error("warmup: auto:100ms\n",
			   "x.yaml:1:9: invalid value 'auto:100ms' for 'warmup': expected a duration from 0 to 1h (like 2s), auto or auto:MAX");
	expect_parse_error("duration: 1s\ninterval: 2s\n",
			   "x.yaml:2:11: invalid value '2s' for 'interval': expected a duration from 100ms up to the duration, or none");
	expect_parse_error("seed: -1\n",
			   "x.yaml:1:7: invalid value '-1' for 'seed': expected an integer from 0 to 18446744073709551615");
	expect_parse_error("name: my matrix\n",
			   "x.yaml:1:7: invalid value 'my matrix' for 'name': expected 1 to 63 letters, digits, '.', '_' or '-'");
	expect_parse_error("label: \"a\\tb\"\n",
			   "x.yaml:1:8: invalid value 'a\\x09b' for 'label': expected 1 to 127 printable characters");
	expect_parse_error("no_fragmentation: maybe\n",
			   "x.yaml:1:19: invalid value 'maybe' for 'no_fragmentation': expected true or false");
	expect_parse_error("collect: {counters: true, pref: true}\n",
			   "x.yaml:1:27: unknown collector 'pref': expected counters, perf, profile, speed, xcpu or profile_min");
	expect_parse_error("collect: {perf: 2}\n",
			   "x.yaml:1:17: invalid value '2' for 'perf': expected true or false");
	expect_parse_error("collect: true\n",
			   "x.yaml:1:10: 'collect' takes a mapping like {counters: true, perf: true, profile: false, speed: true, xcpu: true, profile_min: 0.1}");
	/* the profile's threshold is a percentage */
	expect_parse_error("collect: {profile: true, profile_min: -1}\n",
			   "x.yaml:1:39: invalid value '-1' for 'profile_min': expected a percentage from 0 to 100");
	expect_parse_error("collect: {profile: true, profile_min: 100.5}\n",
			   "x.yaml:1:39: invalid value '100.5' for 'profile_min': expected a percentage from 0 to 100");
	expect_parse_error("collect: {profile: true, profile_min: lots}\n",
			   "x.yaml:1:39: invalid value 'lots' for 'profile_min': expected a percentage from 0 to 100");
	expect_parse_error("[1, 2]\n",
			   "x.yaml:1:1: a job file is a mapping of keys like params and repetitions");
	expect_parse_error("",
			   "x.yaml:1:1: empty job file: expected a mapping with params, repetitions...");
	expect_parse_error("# only a comment\n",
			   "x.yaml:1:1: empty job file: expected a mapping with params, repetitions...");
	expect_parse_error("repetitions: 3\n---\nrepetitions: 4\n",
			   "x.yaml:2:1: a second yaml document: a job file holds one");
	expect_parse_error("? [a]\n: 1\n",
			   "x.yaml:1:3: a key must be a name, not a list or a mapping");
	expect_parse_error("repetitions: 3\n  seed: 4\n",
			   "x.yaml:2:7: invalid yaml: mapping values are not allowed in this context");
}

static void test_params_errors(void **state)
{
	(void)state;
	expect_parse_error("params: [msg, 64]\n",
			   "x.yaml:1:9: 'params' takes a mapping of parameter: value or [values]");
	expect_parse_error("params:\n  duration: 5s\n",
			   "x.yaml:2:3: unknown parameter 'duration' in params: 'duration' goes at the top level");
	expect_parse_error("params:\n  msg: [64, [128]]\n",
			   "x.yaml:2:13: 'msg': a list holds values, not lists");
	expect_parse_error("params:\n  msg: [64, {a: 1}]\n",
			   "x.yaml:2:13: 'msg': a list holds values, not mappings");
	expect_parse_error("params:\n  msg: [64, 1K, 1024]\n",
			   "x.yaml:2:17: duplicate value '1024' for 'msg'");
	expect_parse_error("params:\n  msg:\n",
			   "x.yaml:2:7: 'msg' has no value");
	expect_parse_error("params:\n  msg: [64, ~]\n  streams: 1\n",
			   "x.yaml:2:13: 'msg' has no value");
	expect_parse_error("params:\n  msg: null\n",
			   "x.yaml:2:8: 'msg' has no value");
	expect_parse_error("params:\n  msg: 0\n",
			   "x.yaml:2:8: invalid value '0' for 'msg': expected a size like 8K or 1M, from 1 byte to 64M");
	expect_parse_error("params:\n  test: tcp_strem\n",
			   "x.yaml:2:9: invalid value 'tcp_strem' for 'test': expected tcp_stream, tcp_sendfile, udp_stream, tcp_rr, udp_rr, tcp_crr or tcp_cc");
	expect_parse_error("params:\n  dir: [send, both]\n",
			   "x.yaml:2:15: invalid value 'both' for 'dir': expected send, recv or bidir");
	expect_parse_error("params:\n  streams: 1025\n",
			   "x.yaml:2:12: invalid value '1025' for 'streams': expected an integer from 1 to 1024, or a share of the cpus from 1% to 10000% (200%: two flows a cpu)");
	expect_parse_error("params:\n  threads: 0\n",
			   "x.yaml:2:12: invalid value '0' for 'threads': expected an integer from 1 to 256, or auto");
	expect_parse_error("params:\n  ipv: 5\n",
			   "x.yaml:2:8: invalid value '5' for 'ipv': expected 4 or 6");
	expect_parse_error("params:\n  nodelay: 2\n",
			   "x.yaml:2:12: invalid value '2' for 'nodelay': expected true or false");
	expect_parse_error("params:\n  cc: \"b b r\"\n",
			   "x.yaml:2:7: invalid value 'b b r' for 'cc': expected a congestion control like cubic or bbr, or default");
	expect_parse_error("params:\n  cpus: 0-3,2\n",
			   "x.yaml:2:9: invalid value '0-3,2' for 'cpus': expected a cpu list like 0-3,8, or none");
	expect_parse_error("params:\n  rate: -1\n",
			   "x.yaml:2:9: invalid value '-1' for 'rate': expected transactions/s per flow from 0 (closed loop) to 10000000");
	expect_parse_error("params:\n  timeout: 2m\n",
			   "x.yaml:2:12: invalid value '2m' for 'timeout': expected a duration from 1ms to 60s");
	expect_parse_error("params:\n  topology: netns\n",
			   "x.yaml:2:13: invalid value 'netns' for 'topology': expected loopback or veth");
	expect_parse_error("params:\n  placement: pinned\n",
			   "x.yaml:2:14: invalid value 'pinned' for 'placement': expected split or free");
	expect_parse_error("params:\n  mtu: 576\n",
			   "x.yaml:2:8: invalid value '576' for 'mtu': expected an integer from 1280 to 65535");
	expect_parse_error("params:\n  streams: 0%\n",
			   "x.yaml:2:12: invalid value '0%' for 'streams': expected an integer from 1 to 1024, or a share of the cpus from 1% to 10000% (200%: two flows a cpu)");
	expect_parse_error("params:\n  streams: [1, 2, 5x%]\n",
			   "x.yaml:2:19: invalid value '5x%' for 'streams': expected an integer from 1 to 1024, or a share of the cpus from 1% to 10000% (200%: two flows a cpu)");
	expect_parse_error("params:\n  udp_gso: 4\n",
			   "x.yaml:2:12: invalid value '4' for 'udp_gso': expected a size like 8K or 1M, from 8 bytes to 65535, or off");
	expect_parse_error("params:\n  udp_gso: auto\n",
			   "x.yaml:2:12: invalid value 'auto' for 'udp_gso': expected a size like 8K or 1M, from 8 bytes to 65535, or off");
	expect_parse_error("params:\n  sendfile_from: disk\n",
			   "x.yaml:2:18: invalid value 'disk' for 'sendfile_from': expected tmp (a file in $TMPDIR or /tmp) or memfd");
	expect_parse_error("params:\n  buf_offset: 4096\n",
			   "x.yaml:2:15: invalid value '4096' for 'buf_offset': expected an integer from 0 to 4095");
	expect_parse_error("params:\n  buf_offset: -16\n",
			   "x.yaml:2:15: invalid value '-16' for 'buf_offset': expected an integer from 0 to 4095");
	expect_parse_error("params:\n  transfer: 0\n",
			   "x.yaml:2:13: invalid value '0' for 'transfer': expected a size like 8K or 1M, from 1 byte to 1T, or off");
	expect_parse_error("params:\n  transfer: [10M, 2T]\n",
			   "x.yaml:2:19: invalid value '2T' for 'transfer': expected a size like 8K or 1M, from 1 byte to 1T, or off");
	expect_parse_error("params:\n  udp_gro: 1472\n",
			   "x.yaml:2:12: invalid value '1472' for 'udp_gro': expected true or false");
	expect_parse_error("params:\n  gro: auto\n",
			   "x.yaml:2:8: invalid value 'auto' for 'gro': expected on, off or default");
	expect_parse_error("params:\n  tbf_rate: 10mbps\n",
			   "x.yaml:2:13: invalid value '10mbps' for 'tbf_rate': expected bits/s like 900mbit, 1gbit or 10M, or none");
	expect_parse_error("params:\n  tbf_rate: 0\n",
			   "x.yaml:2:13: invalid value '0' for 'tbf_rate': expected bits/s like 900mbit, 1gbit or 10M, or none");
	expect_parse_error("params:\n  cpu_quota: half\n",
			   "x.yaml:2:14: invalid value 'half' for 'cpu_quota': expected a percentage of one cpu from 1 to 102400, or none");
	expect_parse_error("params:\n  cpu_quota: \"%\"\n",
			   "x.yaml:2:14: invalid value '%' for 'cpu_quota': expected a percentage of one cpu from 1 to 102400, or none");
	expect_parse_error("params:\n  sndbuf: 2G\n",
			   "x.yaml:2:11: invalid value '2G' for 'sndbuf': expected a size like 8K or 1M, up to 1G, or auto");
	/* 10^7 combinations */
	expect_parse_error("params:\n"
			   "  msg: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  rmsg: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  streams: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  sndbuf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  rcvbuf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  remote_sndbuf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"
			   "  remote_rcvbuf: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n",
			   "x.yaml:1:1: params make more than 1000000 combinations: split the job");
}

static void test_exclude_errors(void **state)
{
	static const char head[] = "params:\n  mtu: [1500, 9000]\n  topology: veth\n";
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtu: 1400}\n", head);
	expect_parse_error(text,
			   "x.yaml:5:11: exclude value '1400' for 'mtu' matches none of its values in params");
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtuu: 1500}\n", head);
	expect_parse_error(text, "x.yaml:5:6: unknown parameter 'mtuu' in exclude");
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtu: big}\n", head);
	expect_parse_error(text,
			   "x.yaml:5:11: invalid value 'big' for 'mtu': expected an integer from 1280 to 65535");
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtu: 1500, mtu: 9000}\n", head);
	expect_parse_error(text, "x.yaml:5:17: duplicate key 'mtu' (first at line 5)");
	snprintf(text, sizeof(text), "%sexclude:\n  - {}\n", head);
	expect_parse_error(text,
			   "x.yaml:5:5: empty exclude rule: it would drop every combination");
	snprintf(text, sizeof(text), "%sexclude:\n  - mtu\n", head);
	expect_parse_error(text,
			   "x.yaml:5:5: an exclude rule is a mapping like {mtu: 1500, msg: 8952}");
	snprintf(text, sizeof(text), "%sexclude: {mtu: 1500}\n", head);
	expect_parse_error(text,
			   "x.yaml:4:10: 'exclude' takes a list of rules like {mtu: 1500, msg: 8952}");
	snprintf(text, sizeof(text), "%sexclude:\n  - {mtu: []}\n", head);
	expect_parse_error(text,
			   "x.yaml:5:11: empty list for 'mtu': expected at least one value");
	/* exclude before params is fine: keys are checked against params */
	assert_int_equal(count_cells("exclude:\n  - {mtu: 1500}\n"
				     "params:\n  mtu: [1500, 9000]\n  topology: veth\n"),
			 1);
}

static void test_expand_names_the_combination_finalize_rejects(void **state)
{
	char path[512], want[1024];
	struct base_err err = { .msg = "" };
	struct job_file *jf = load_ok("err-combination.yaml");
	struct job_cell *cells = NULL;
	size_t n = 0;

	(void)state;
	fixture_path("err-combination.yaml", path, sizeof(path));
	assert_int_equal(job_file_expand(jf, cpus4(), &cells, &n, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s: combination test=udp_rr dir=bidir: direction bidir applies to stream tests only: request/response flows are driven by the client",
		 path);
	assert_string_equal(err.msg, want);
	assert_null(cells);
	job_file_free(jf);

	/* no axis: the reason alone */
	expect_expand_error("params:\n  test: udp_stream\n  nodelay: true\n",
			    "x.yaml: nodelay applies to tcp tests only");
	expect_expand_error("params:\n  mtu: 9000\n",
			    "x.yaml: mtu, offloads, tbf rate and cpu quota need the veth topology");
	expect_expand_error("params:\n  mtu: [1500, 9000]\n"
			    "exclude:\n  - {mtu: [1500, 9000]}\n",
			    "x.yaml: every combination is excluded");
	expect_expand_error("no_fragmentation: true\n"
			    "params:\n  test: udp_stream\n  topology: veth\n  msg: 2000\n",
			    "x.yaml: every combination is excluded");
}

static void test_load_reports_missing_and_oversized_files(void **state)
{
	struct base_err err = { .msg = "" };
	struct job_file *jf = NULL;
	char path[] = "/tmp/nr-jobfile-XXXXXX";
	char *big;
	int fd;

	(void)state;
	assert_int_equal(job_file_load("/nonexistent/x.yaml", &jf, &err), -ENOENT);
	assert_null(jf);
	assert_string_equal(err.msg,
			    "cannot open job file '/nonexistent/x.yaml': No such file or directory");

	fd = mkstemp(path);
	assert_true(fd >= 0);
	big = malloc(JOB_FILE_MAX_BYTES + 1);
	assert_non_null(big);
	memset(big, '#', JOB_FILE_MAX_BYTES + 1);
	assert_int_equal(write(fd, big, JOB_FILE_MAX_BYTES + 1), JOB_FILE_MAX_BYTES + 1);
	close(fd);
	free(big);
	assert_int_equal(job_file_load(path, &jf, &err), -EFBIG);
	assert_null(jf);
	assert_non_null(strstr(err.msg, "larger than 1048576 bytes"));
	unlink(path);
}

/* ---- rates ---- */

static void test_rate_parser_accepts_tc_and_suffix_forms(void **state)
{
	static const struct {
		const char *s;
		uint64_t bps;
	} ok[] = {
		{ "900mbit", 900000000ULL },   { "1gbit", 1000000000ULL },
		{ "10M", 10000000ULL },        { "10m", 10000000ULL },
		{ "1.5G", 1500000000ULL },     { "64000", 64000 },
		{ "64000bit", 64000 },         { "1.5kbit", 1500 },
		{ "0.001k", 1 },               { "2.50Mbit", 2500000 },
		{ "1T", 1000000000000ULL },    { "0", 0 },
		{ "18446744073709551615", UINT64_MAX },
		{ "007K", 7000 },
	};
	static const char *const bad[] = {
		"", "M", "-1", "+1", " 1M", "1M ", "1 M", "10mbps", "1kbps", "1e6",
		".5M", "5.M", "1..5M", "1.0005k", "1.5", "1.5bit", "10Mi", "1x",
	};
	struct base_err err = { .msg = "" };
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		v = 12345;
		if (job_parse_rate_bps(ok[i].s, &v, &err))
			fail_msg("'%s' rejected: %s", ok[i].s, err.msg);
		if (v != ok[i].bps)
			fail_msg("'%s' gave %" PRIu64 ", want %" PRIu64, ok[i].s, v,
				 ok[i].bps);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		v = 12345;
		if (job_parse_rate_bps(bad[i], &v, &err) != -EINVAL)
			fail_msg("'%s' not rejected with -EINVAL", bad[i]);
		assert_int_equal(v, 12345);
	}
	assert_int_equal(job_parse_rate_bps("10mbps", &v, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid rate '10mbps': expected bits/s like 900mbit, 1gbit or 10M");
	assert_int_equal(job_parse_rate_bps("18446744073709551616", &v, &err), -ERANGE);
	assert_int_equal(job_parse_rate_bps("18446744073709552k", &v, &err), -ERANGE);
	assert_int_equal(job_parse_rate_bps("18446744073709551.616k", &v, &err), -ERANGE);
	assert_int_equal(job_parse_rate_bps("18446744073709551.615k", &v, &err), 0);
	assert_true(v == UINT64_MAX);
}

/* warmup: auto reaches every cell, with its bound. */
static void test_warmup_auto(void **state)
{
	struct job_file *jf;
	struct job_cell *cells = NULL;
	size_t n;

	(void)state;
	jf = parse_ok("warmup: auto:20s\nparams:\n  streams: [1, 2]\n");
	n = expand_ok(jf, &cells);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		assert_true(cells[i].cfg.warmup_auto);
		assert_int_equal(cells[i].cfg.warmup_ns, 20 * NS_PER_S);
	}
	job_cells_free(cells, n);
	job_file_free(jf);
	jf = parse_ok("warmup: auto\nparams:\n  test: tcp_rr\n");
	n = expand_ok(jf, &cells);
	assert_true(cells[0].cfg.warmup_auto);
	assert_int_equal(cells[0].cfg.warmup_ns, JOB_WARMUP_AUTO_MAX);
	job_cells_free(cells, n);
	job_file_free(jf);
	jf = parse_ok("warmup: 3s\nparams:\n  test: tcp_rr\n");
	n = expand_ok(jf, &cells);
	assert_false(cells[0].cfg.warmup_auto);
	assert_int_equal(cells[0].cfg.warmup_ns, 3 * NS_PER_S);
	job_cells_free(cells, n);
	job_file_free(jf);
}

static void test_labels_read_in_file_order_with_their_sysctls(void **state)
{
	struct job_file *jf = parse_ok(
		"labels:\n"
		"  found:\n"
		"  small:\n"
		"    sysctl: {net.core.rmem_default: 65536, net.ipv4.tcp_rmem: 4096 8192 8192}\n"
		"  empty: {}\n"
		"params:\n"
		"  test: [tcp_stream, udp_stream]\n");

	(void)state;
	assert_null(jf->label);
	assert_int_equal(jf->nlabels, 3);
	assert_string_equal(jf->labels[0].name, "found");
	assert_int_equal(jf->labels[0].nsysctls, 0);
	assert_string_equal(jf->labels[1].name, "small");
	assert_int_equal(jf->labels[1].line, 3);
	assert_int_equal(jf->labels[1].col, 3);
	assert_int_equal(jf->labels[1].nsysctls, 2);
	assert_string_equal(jf->labels[1].sysctl_name[1], "net.ipv4.tcp_rmem");
	assert_string_equal(job_label_sysctl(&jf->labels[1], "net.ipv4.tcp_rmem"), "4096 8192 8192");
	assert_string_equal(job_label_sysctl(&jf->labels[1], "net.core.rmem_default"), "65536");
	assert_null(job_label_sysctl(&jf->labels[0], "net.core.rmem_default"));
	assert_int_equal(jf->labels[2].nsysctls, 0);
	assert_int_equal(count_cells("labels: {a: , b: }\nparams:\n  test: [tcp_stream, udp_stream]\n"), 2);
	job_file_free(jf);
}

static void test_labels_errors(void **state)
{
	(void)state;
	expect_parse_error("label: x\nlabels: {a: , b: }\n",
			   "x.yaml:2:1: 'labels' and 'label' exclude each other: 'label' names the one label of a job, 'labels' several");
	expect_parse_error("labels: [a, b]\n",
			   "x.yaml:1:9: 'labels' takes a mapping of label names, each with its settings, like {base: {}, small: {sysctl: {net.core.rmem_default: 65536}}}");
	expect_parse_error("labels: {}\n",
			   "x.yaml:1:9: 'labels' takes a mapping of label names, each with its settings, like {base: {}, small: {sysctl: {net.core.rmem_default: 65536}}}");
	expect_parse_error("labels: {a: 1}\n",
			   "x.yaml:1:13: label 'a' takes a mapping like {sysctl: {net.core.rmem_default: 65536}}, or nothing");
	expect_parse_error("labels: {a: {mtu: 9000}}\n",
			   "x.yaml:1:14: unknown key 'mtu' in label 'a': expected sysctl");
	expect_parse_error("labels: {a: {sysctl: 1}}\n",
			   "x.yaml:1:22: 'sysctl' takes a mapping of sysctl names to values, like {net.core.rmem_default: 65536}");
	expect_parse_error("labels: {a: {sysctl: {kernel.panic: 1}}}\n",
			   "x.yaml:1:23: invalid sysctl name 'kernel.panic': expected a dotted name under net. like net.core.rmem_default");
	expect_parse_error("labels: {a: {sysctl: {net.core.x: [1, 2]}}}\n",
			   "x.yaml:1:35: 'net.core.x' takes one value, not a list");
	expect_parse_error("labels: {a: {sysctl: {net.core.x: \"1\\n\"}}}\n",
			   "x.yaml:1:35: invalid sysctl value '1\\x0a': expected 1 to 256 printable characters, like 212992 or '4096 131072 6291456' for 'net.core.x'");
	expect_parse_error("labels: {a: , a: }\n",
			   "x.yaml:1:15: duplicate key 'a' (first at line 1)");
	expect_parse_error("labels: {a: {sysctl: {net.core.x: 1, net.core.x: 2}}}\n",
			   "x.yaml:1:38: duplicate key 'net.core.x' (first at line 1)");
	/* labels and veth go together, with sysctls or without (the matrix
	 * sets them inside the topology's namespaces too) */
	assert_int_equal(count_cells("labels: {a: {sysctl: {net.core.x: 1}}}\nparams:\n  topology: [loopback, veth]\n"), 2);
	assert_int_equal(count_cells("labels: {a: , b: }\nparams:\n  topology: veth\n"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_udp_matrix_reads_run_control_and_params_in_file_order),
		cmocka_unit_test(test_udp_matrix_expands_96_minus_16_with_first_axis_slowest),
		cmocka_unit_test(test_product_counts_with_and_without_excludes),
		cmocka_unit_test(test_no_fragmentation_drops_udp_cells_over_mtu),
		cmocka_unit_test(test_scalar_is_not_an_axis_but_a_one_value_list_is),
		cmocka_unit_test(test_collect_profile_min_is_not_in_the_key),
		cmocka_unit_test(test_exclude_matches_values_not_spelling),
		cmocka_unit_test(test_minimal_file_gives_documented_defaults),
		cmocka_unit_test(test_other_fixtures_expand),
		cmocka_unit_test(test_every_parameter_reaches_the_configuration),
		cmocka_unit_test(test_seed_is_drawn_when_absent_and_kept_when_given),
		cmocka_unit_test(test_parse_reads_exactly_len_bytes),
		cmocka_unit_test(test_tab_indentation_names_line_and_column),
		cmocka_unit_test(test_unknown_parameter_names_key),
		cmocka_unit_test(test_bad_size_names_value_and_key),
		cmocka_unit_test(test_empty_list_is_an_error),
		cmocka_unit_test(test_nested_mapping_is_an_error),
		cmocka_unit_test(test_duplicate_key_names_both_lines),
		cmocka_unit_test(test_exclude_key_must_be_in_params),
		cmocka_unit_test(test_unparseable_yaml_names_problem_and_context),
		cmocka_unit_test(test_top_level_errors),
		cmocka_unit_test(test_params_errors),
		cmocka_unit_test(test_exclude_errors),
		cmocka_unit_test(test_warmup_auto),
		cmocka_unit_test(test_expand_names_the_combination_finalize_rejects),
		cmocka_unit_test(test_load_reports_missing_and_oversized_files),
		cmocka_unit_test(test_rate_parser_accepts_tc_and_suffix_forms),
		cmocka_unit_test(test_labels_read_in_file_order_with_their_sysctls),
		cmocka_unit_test(test_labels_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
