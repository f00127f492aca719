// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for job/: configuration defaults, validation, canonical key and JSON form. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/cpus.h"
#include "base/err.h"
#include "base/parse.h"
#include "base/time.h"
#include "job/config.h"

#define KEY_LEN 2048

/* Fail unless err->msg holds needle, showing the whole message. */
static void expect_msg_has(const struct base_err *err, const char *needle)
{
	if (!strstr(err->msg, needle))
		fail_msg("error text '%s' lacks '%s'", err->msg, needle);
}

/* Finalize c as on a machine whose process may use cpus 0..ncpus-1. */
static void finalize_ok(struct job_config *c, int ncpus)
{
	struct base_err err = { .msg = "" };
	struct base_cpulist allowed;
	int ret;

	base_cpus_first(&allowed, (unsigned)ncpus);
	ret = job_config_finalize(c, &allowed, &err);

	if (ret)
		fail_msg("finalize failed with %d: %s", ret, err.msg);
}

/* Finalize c; expect -EINVAL, needle and (unless NULL) needle2 in the text. */
static void expect_finalize_rejects(struct job_config *c, const char *needle,
				    const char *needle2)
{
	struct base_err err = { .msg = "" };
	struct base_cpulist allowed;
	int ret;

	base_cpus_first(&allowed, 8);
	ret = job_config_finalize(c, &allowed, &err);

	if (ret != -EINVAL)
		fail_msg("finalize returned %d, want -EINVAL (want text '%s')",
			 ret, needle);
	expect_msg_has(&err, needle);
	if (needle2)
		expect_msg_has(&err, needle2);
}

static void key_of(const struct job_config *c, char *buf)
{
	assert_int_equal(job_config_key(c, buf, KEY_LEN), 0);
}

/* A field set only when on: c (with it off) has it in neither its key,
 * which goes to plain, nor its JSON. */
static void expect_off_field(const struct job_config *c, const char *field,
			     char *plain)
{
	json_t *j = job_config_to_json(c);

	key_of(c, plain);
	assert_null(strstr(plain, field));
	assert_null(json_object_get(j, field));
	json_decref(j);
}

static void set_cpus(struct base_cpulist *l, const char *s)
{
	struct base_err err = { .msg = "" };

	assert_int_equal(base_parse_cpulist(s, l, &err), 0);
}

/* ---- defaults ---- */

static void test_init_gives_documented_defaults(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	assert_int_equal(c.test, JOB_TEST_TCP_STREAM);
	assert_int_equal(c.dir, JOB_DIR_SEND);
	assert_int_equal(c.streams, 1);
	assert_int_equal(c.ipv, 4);
	assert_int_equal(c.duration_ns, 10 * NS_PER_S);
	assert_int_equal(c.warmup_ns, 2 * NS_PER_S);
	assert_int_equal(c.interval_ns, 0);
	assert_int_equal(c.threads, 0);
	assert_int_equal(c.msg_bytes, 0);
	assert_string_equal(c.cc, "");
	assert_false(c.nodelay);
	assert_int_equal(c.cpus.n, 0);
	assert_int_equal(c.remote_cpus.n, 0);
}

static void test_finalize_tcp_defaults_to_128k_messages_and_batch_1(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	finalize_ok(&c, 8);
	assert_int_equal(c.msg_bytes, 131072);
	assert_int_equal(c.batch, 1);
	assert_int_equal(c.threads, 1);
	assert_int_equal(c.sndbuf, 0);
	assert_int_equal(c.rcvbuf, 0);
}

static void test_finalize_tcp_forces_batch_to_1(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.batch = 16;
	finalize_ok(&c, 8);
	assert_int_equal(c.batch, 1);
}

static void test_finalize_udp_default_message_fits_ipv4_and_ipv6_mtu(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	assert_int_equal(c.msg_bytes, 1472);
	assert_int_equal(c.batch, 32);

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.ipv = 6;
	finalize_ok(&c, 8);
	assert_int_equal(c.msg_bytes, 1452);
	assert_int_equal(c.batch, 32);
}

static void test_finalize_keeps_explicit_message_and_batch(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.msg_bytes = 9000;
	c.batch = 8;
	finalize_ok(&c, 8);
	assert_int_equal(c.msg_bytes, 9000);
	assert_int_equal(c.batch, 8);

	job_config_init(&c);
	c.msg_bytes = 256;
	finalize_ok(&c, 8);
	assert_int_equal(c.msg_bytes, 256);
}

static void test_finalize_threads_default_to_min_of_flows_and_cpus(void **state)
{
	/* free placement: one worker per allowed cpu, at most one per flow;
	 * split: one per cpu of the larger half */
	static const struct {
		uint32_t streams;
		int cpus;
		enum job_placement pl;
		uint32_t want;
	} cases[] = {
		{ 1, 8, JOB_PLACE_FREE, 1 }, { 8, 4, JOB_PLACE_FREE, 4 },
		{ 2, 4, JOB_PLACE_FREE, 2 }, { 4, 4, JOB_PLACE_FREE, 4 },
		{ 32, 1, JOB_PLACE_FREE, 1 }, { 1024, 64, JOB_PLACE_FREE, 64 },
		/* more cpus than JOB_MAX_THREADS, and no cpu known */
		{ 512, 512, JOB_PLACE_FREE, JOB_MAX_THREADS },
		{ 300, 0, JOB_PLACE_FREE, 1 }, { 300, 0, JOB_PLACE_SPLIT, 1 },
		{ 1, 8, JOB_PLACE_SPLIT, 1 }, { 8, 4, JOB_PLACE_SPLIT, 2 },
		{ 8, 2, JOB_PLACE_SPLIT, 1 }, { 8, 1, JOB_PLACE_SPLIT, 1 },
		{ 8, 3, JOB_PLACE_SPLIT, 2 }, { 1024, 64, JOB_PLACE_SPLIT, 32 },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_config c;

		job_config_init(&c);
		c.streams = cases[i].streams;
		c.placement = cases[i].pl;
		finalize_ok(&c, cases[i].cpus);
		if (c.threads != cases[i].want)
			fail_msg("%" PRIu32 " streams on %d cpus (%s) gave %" PRIu32
				 " threads, want %" PRIu32,
				 cases[i].streams, cases[i].cpus,
				 job_placement_name(cases[i].pl), c.threads,
				 cases[i].want);
	}
}

/* Split: client and server on distinct cpus, the flags override one end
 * or both, and a lone cpu is shared and said so. */
static void test_finalize_split_placement(void **state)
{
	static const struct {
		int cpus;
		const char *given, *rgiven; /* NULL: not pinned */
		const char *want, *rwant;   /* "" : not pinned */
		const char *desc;
	} cases[] = {
		{ 2, NULL, NULL, "0", "1", "split" },
		{ 8, NULL, NULL, "0-3", "4-7", "split" },
		{ 3, NULL, NULL, "0", "1-2", "split" },
		{ 1, NULL, NULL, "0", "0", "split, shared cpu" },
		{ 4, "1", NULL, "1", "0,2-3", "explicit client, split server" },
		{ 4, NULL, "3", "0-2", "3", "explicit server, split client" },
		{ 2, "0-1", NULL, "0-1", "0-1", "explicit client, server shares its cpus" },
		{ 4, "2", "2", "2", "2", "explicit" },
		{ 0, NULL, NULL, "", "", "free" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_config c;

		job_config_init(&c);
		c.placement = JOB_PLACE_SPLIT;
		if (cases[i].given)
			assert_int_equal(base_parse_cpulist(cases[i].given, &c.cpus, NULL), 0);
		if (cases[i].rgiven)
			assert_int_equal(base_parse_cpulist(cases[i].rgiven, &c.remote_cpus, NULL), 0);
		finalize_ok(&c, cases[i].cpus);
		assert_int_equal(base_format_cpulist(&c.cpus, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: client cpus '%s', want '%s'", i, buf, cases[i].want);
		assert_int_equal(base_format_cpulist(&c.remote_cpus, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i].rwant))
			fail_msg("case %zu: server cpus '%s', want '%s'", i, buf, cases[i].rwant);
		assert_string_equal(job_config_placement_desc(&c), cases[i].desc);
	}
}

/* pair: both ends on every allowed cpu in the same order (a flow's two
 * ends on one cpu), one worker per cpu at most one per flow; with one end
 * pinned the other is placed as split places it; its name survives JSON. */
static void test_finalize_pair_placement(void **state)
{
	static const struct {
		int cpus;
		uint32_t streams;
		const char *given, *want, *rwant, *desc;
		uint32_t threads;
	} cases[] = {
		{ 2, 4, NULL, "0-1", "0-1", "pair", 2 },
		{ 8, 3, NULL, "0-7", "0-7", "pair", 3 },
		{ 1, 2, NULL, "0", "0", "pair", 1 },
		{ 4, 4, "1", "1", "0,2-3", "explicit client, split server", 3 },
	};
	struct base_err err = { .msg = "" };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_config c, d;
		json_t *j;

		job_config_init(&c);
		c.placement = JOB_PLACE_PAIR;
		c.streams = cases[i].streams;
		if (cases[i].given)
			assert_int_equal(base_parse_cpulist(cases[i].given, &c.cpus, NULL), 0);
		finalize_ok(&c, cases[i].cpus);
		assert_int_equal(base_format_cpulist(&c.cpus, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i].want))
			fail_msg("case %zu: client cpus '%s', want '%s'", i, buf, cases[i].want);
		assert_int_equal(base_format_cpulist(&c.remote_cpus, buf, sizeof(buf)), 0);
		if (strcmp(buf, cases[i].rwant))
			fail_msg("case %zu: server cpus '%s', want '%s'", i, buf, cases[i].rwant);
		assert_string_equal(job_config_placement_desc(&c), cases[i].desc);
		assert_int_equal(c.threads, cases[i].threads);
		j = job_config_to_json(&c);
		assert_int_equal(job_config_from_json(j, &d, &err), 0);
		assert_int_equal(d.placement, JOB_PLACE_PAIR);
		json_decref(j);
	}
	assert_int_equal(job_placement_parse("pair", &(enum job_placement){ 0 }), 0);
}

/* auto, the default: pair for a tcp stream test of two flows or more
 * (bidir counts both ways), split for udp, one flow and request/response;
 * the configuration then names the policy chosen. */
static void test_finalize_auto_placement(void **state)
{
	static const struct {
		enum job_test test;
		enum job_dir dir;
		uint32_t streams;
		enum job_placement want;
	} cases[] = {
		{ JOB_TEST_TCP_STREAM, JOB_DIR_SEND, 1, JOB_PLACE_SPLIT },
		{ JOB_TEST_TCP_STREAM, JOB_DIR_SEND, 2, JOB_PLACE_PAIR },
		{ JOB_TEST_UDP_STREAM, JOB_DIR_SEND, 1, JOB_PLACE_SPLIT },
		{ JOB_TEST_UDP_STREAM, JOB_DIR_SEND, 2, JOB_PLACE_SPLIT },
		{ JOB_TEST_UDP_STREAM, JOB_DIR_BIDIR, 1, JOB_PLACE_SPLIT },
		{ JOB_TEST_TCP_STREAM, JOB_DIR_BIDIR, 1, JOB_PLACE_PAIR },
		{ JOB_TEST_TCP_SENDFILE, JOB_DIR_RECV, 4, JOB_PLACE_PAIR },
		{ JOB_TEST_TCP_RR, JOB_DIR_SEND, 4, JOB_PLACE_SPLIT },
		{ JOB_TEST_TCP_CRR, JOB_DIR_SEND, 1, JOB_PLACE_SPLIT },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct job_config c;

		job_config_init(&c);
		assert_int_equal(c.placement, JOB_PLACE_AUTO);
		c.test = cases[i].test;
		c.dir = cases[i].dir;
		c.streams = cases[i].streams;
		finalize_ok(&c, 2);
		if (c.placement != cases[i].want)
			fail_msg("case %zu: placement %s, want %s", i, job_placement_name(c.placement),
				 job_placement_name(cases[i].want));
	}
}

/* free pins nothing; the resolved lists survive a trip through JSON (the
 * server's finalize places nothing again) and old JSON reads as free. */
static void test_placement_free_and_json(void **state)
{
	struct base_cpulist allowed;
	struct base_err err = { .msg = "" };
	struct job_config c, d;
	json_t *j;
	char k1[KEY_LEN], k2[KEY_LEN];

	(void)state;
	job_config_init(&c);
	c.placement = JOB_PLACE_FREE;
	finalize_ok(&c, 4);
	assert_int_equal(c.cpus.n, 0);
	assert_int_equal(c.remote_cpus.n, 0);
	assert_string_equal(job_config_placement_desc(&c), "free");
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	assert_int_equal(d.placement, JOB_PLACE_FREE);
	base_cpus_first(&allowed, 4);
	assert_int_equal(job_config_finalize(&d, &allowed, &err), 0);
	assert_int_equal(d.cpus.n, 0);
	json_decref(j);

	job_config_init(&c);
	c.placement = JOB_PLACE_SPLIT;
	finalize_ok(&c, 4);
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	base_cpus_first(&allowed, 16); /* the server has more cpus */
	assert_int_equal(job_config_finalize(&d, &allowed, &err), 0);
	key_of(&c, k1);
	key_of(&d, k2);
	assert_string_equal(k1, k2);
	assert_true(strstr(k1, "cpus=0-1 ") != NULL);
	assert_true(strstr(k1, "remote_cpus=2-3 ") != NULL);
	/* a configuration stored before placement existed */
	json_object_del(j, "placement");
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	assert_int_equal(d.placement, JOB_PLACE_FREE);
	json_object_set_new(j, "placement", json_string("pinned"));
	assert_int_equal(job_config_from_json(j, &d, &err), -EINVAL);
	expect_msg_has(&err, "'placement' = 'pinned'");
	json_decref(j);
}

static void test_finalize_caps_explicit_threads_at_flows(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.streams = 2;
	c.threads = 16;
	finalize_ok(&c, 64);
	assert_int_equal(c.threads, 2);

	/* an explicit count is not limited by the cpus */
	job_config_init(&c);
	c.streams = 8;
	c.threads = 3;
	finalize_ok(&c, 2);
	assert_int_equal(c.threads, 3);
}

static void test_finalize_bidir_doubles_flows_for_threads(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.dir = JOB_DIR_BIDIR;
	c.streams = 3;
	finalize_ok(&c, 16);
	assert_int_equal(job_config_nflows(&c), 6);
	assert_int_equal(c.threads, 6);

	job_config_init(&c);
	c.dir = JOB_DIR_BIDIR;
	c.streams = 3;
	c.placement = JOB_PLACE_FREE;
	finalize_ok(&c, 4);
	assert_int_equal(c.threads, 4);
}

/* ---- canonical key ---- */

static void test_key_is_exact_for_known_config(void **state)
{
	/* tcp_sendfile: the same parameters, rmsg included, and the file it
	 * sends from */
	static const struct {
		enum job_test test;
		const char *name, *from;
	} tests[] = {
		{ JOB_TEST_TCP_STREAM, "tcp_stream", "" },
		{ JOB_TEST_TCP_SENDFILE, "tcp_sendfile", "sendfile_from=tmp " },
	};
	struct job_config c;
	char key[KEY_LEN], want[KEY_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
		job_config_init(&c);
		c.test = tests[i].test;
		c.dir = JOB_DIR_RECV;
		c.streams = 32;
		c.msg_bytes = 256;
		c.rcvbuf = 8192;
		c.sndbuf = 8192;
		c.nodelay = true;
		finalize_ok(&c, 4);
		key_of(&c, key);
		snprintf(want, sizeof(want),
			 "buf_offset=0 cc=default cpus=0-3 dir=recv ipv=4 msg=256 "
			 "nodelay=1 rcvbuf=8192 remote_cpus=0-3 "
			 "remote_rcvbuf=auto remote_sndbuf=auto rmsg=131072 "
			 "%ssndbuf=8192 streams=32 test=%s threads=4 "
			 "topology=loopback", tests[i].from, tests[i].name);
		assert_string_equal(key, want);
	}
}

/* key has nnames names, each strictly after the one before it. */
static void expect_sorted_names(const char *key, size_t nnames)
{
	char prev[64] = "", name[64];
	const char *p = key;
	size_t count = 0;

	while (*p) {
		const char *eq = strchr(p, '='), *sp;
		size_t n;

		assert_non_null(eq);
		n = (size_t)(eq - p);
		assert_true(n > 0 && n < sizeof(name));
		memcpy(name, p, n);
		name[n] = '\0';
		if (count && strcmp(prev, name) >= 0)
			fail_msg("key '%s': '%s' comes after '%s'", key, name,
				 prev);
		memcpy(prev, name, n + 1);
		count++;
		sp = strchr(eq, ' ');
		if (!sp)
			break;
		assert_true(sp[1] != '\0' && sp[1] != ' ');
		p = sp + 1;
	}
	assert_int_equal(count, nnames);
}

static void test_key_is_sorted_alphabetically_by_name(void **state)
{
	struct job_config c;
	char key[KEY_LEN];

	(void)state;
	job_config_init(&c);
	set_cpus(&c.cpus, "0-3,8");
	set_cpus(&c.remote_cpus, "5");
	snprintf(c.cc, sizeof(c.cc), "bbr");
	c.remote_rcvbuf = 65536;
	finalize_ok(&c, 8);
	key_of(&c, key);
	expect_sorted_names(key, 17); /* tcp_stream adds rmsg */

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	key_of(&c, key);
	expect_sorted_names(key, 17);

	/* veth adds cpu_quota, gro, gso, mtu, tbf_rate and tso */
	job_config_init(&c);
	snprintf(c.topology, sizeof(c.topology), "veth");
	c.mtu = 9000;
	c.gro = 0;
	finalize_ok(&c, 8);
	key_of(&c, key);
	expect_sorted_names(key, 23);
	assert_non_null(strstr(key, "gro=off gso=default ipv=4 msg=131072 mtu=9000 "));
}

static void test_key_for_udp_includes_batch_and_tcp_does_not(void **state)
{
	struct job_config c;
	char key[KEY_LEN];

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	key_of(&c, key);
	if (strncmp(key, "batch=32 ", 9))
		fail_msg("udp key '%s' does not start with batch=32", key);

	job_config_init(&c);
	finalize_ok(&c, 8);
	key_of(&c, key);
	if (strstr(key, "batch="))
		fail_msg("tcp key '%s' holds a batch", key);
}

struct mutation {
	const char *what;
	void (*apply)(struct job_config *c);
};

static void m_test_udp(struct job_config *c)
{
	c->test = JOB_TEST_UDP_STREAM;
}
static void m_dir_recv(struct job_config *c)
{
	c->dir = JOB_DIR_RECV;
}
static void m_dir_bidir(struct job_config *c)
{
	c->dir = JOB_DIR_BIDIR;
}
static void m_streams(struct job_config *c)
{
	c->streams = 5;
}
static void m_threads(struct job_config *c)
{
	c->threads = 2;
}
static void m_msg(struct job_config *c)
{
	c->msg_bytes = 65536;
}
static void m_sndbuf(struct job_config *c)
{
	c->sndbuf = 1 << 20;
}
static void m_rcvbuf(struct job_config *c)
{
	c->rcvbuf = 1 << 20;
}
static void m_rsndbuf(struct job_config *c)
{
	c->remote_sndbuf = 1 << 20;
}
static void m_rrcvbuf(struct job_config *c)
{
	c->remote_rcvbuf = 1 << 20;
}
static void m_nodelay(struct job_config *c)
{
	c->nodelay = true;
}
static void m_ipv6(struct job_config *c)
{
	c->ipv = 6;
}
static void m_cc(struct job_config *c)
{
	snprintf(c->cc, sizeof(c->cc), "bbr");
}
static void m_cpus(struct job_config *c)
{
	set_cpus(&c->cpus, "0-1");
}
static void m_rcpus(struct job_config *c)
{
	set_cpus(&c->remote_cpus, "2");
}

static void test_key_changes_with_every_workload_parameter(void **state)
{
	static const struct mutation muts[] = {
		{ "test", m_test_udp },      { "dir recv", m_dir_recv },
		{ "dir bidir", m_dir_bidir }, { "streams", m_streams },
		{ "threads", m_threads },    { "msg", m_msg },
		{ "sndbuf", m_sndbuf },      { "rcvbuf", m_rcvbuf },
		{ "remote_sndbuf", m_rsndbuf }, { "remote_rcvbuf", m_rrcvbuf },
		{ "nodelay", m_nodelay },    { "ipv", m_ipv6 },
		{ "cc", m_cc },              { "cpus", m_cpus },
		{ "remote_cpus", m_rcpus },
	};
	struct job_config base;
	char base_key[KEY_LEN], key[KEY_LEN];

	(void)state;
	job_config_init(&base);
	base.streams = 4;
	finalize_ok(&base, 64);
	key_of(&base, base_key);
	for (size_t i = 0; i < ARRAY_SIZE(muts); i++) {
		struct job_config c;

		job_config_init(&c);
		c.streams = 4;
		muts[i].apply(&c);
		finalize_ok(&c, 64);
		key_of(&c, key);
		if (!strcmp(key, base_key))
			fail_msg("changing %s left the key at '%s'",
				 muts[i].what, key);
	}
}

static void test_key_changes_with_udp_batch(void **state)
{
	struct job_config c;
	char a[KEY_LEN], b[KEY_LEN];

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	key_of(&c, a);
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.batch = 16;
	finalize_ok(&c, 8);
	key_of(&c, b);
	assert_string_not_equal(a, b);
}

/* Pinning order decides which worker lands where: "8,0-1" is not "0-1,8". */
static void test_key_keeps_cpu_order(void **state)
{
	struct job_config c;
	char a[KEY_LEN], b[KEY_LEN];

	(void)state;
	job_config_init(&c);
	set_cpus(&c.cpus, "8,0-1");
	finalize_ok(&c, 8);
	key_of(&c, a);
	assert_non_null(strstr(a, " cpus=8,0-1 "));
	job_config_init(&c);
	set_cpus(&c.cpus, "0-1,8");
	finalize_ok(&c, 8);
	key_of(&c, b);
	assert_string_not_equal(a, b);
}

static void test_key_ignores_duration_warmup_and_interval(void **state)
{
	struct job_config c;
	char a[KEY_LEN], b[KEY_LEN];

	(void)state;
	job_config_init(&c);
	finalize_ok(&c, 8);
	key_of(&c, a);
	job_config_init(&c);
	c.duration_ns = 30 * NS_PER_S;
	c.warmup_ns = 0;
	c.interval_ns = NS_PER_S;
	finalize_ok(&c, 8);
	key_of(&c, b);
	assert_string_equal(a, b);
}

static void test_key_reports_enospc_when_buffer_too_small(void **state)
{
	struct job_config c;
	char key[KEY_LEN], small[32];

	(void)state;
	job_config_init(&c);
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_int_equal(job_config_key(&c, small, sizeof(small)), -ENOSPC);
	assert_int_equal(job_config_key(&c, small, 0), -ENOSPC);
	/* exactly the key and its NUL fits */
	assert_int_equal(job_config_key(&c, key, strlen(key) + 1), 0);
	assert_int_equal(job_config_key(&c, key, strlen(key)), -ENOSPC);
}

struct param_list {
	char text[KEY_LEN];
	size_t n;
};

static void collect_param(void *ctx, const char *name, const char *value)
{
	struct param_list *l = ctx;
	size_t off = strlen(l->text);

	snprintf(l->text + off, sizeof(l->text) - off, "%s%s=%s",
		 l->n ? " " : "", name, value);
	l->n++;
}

static void test_each_param_walks_the_key_in_order(void **state)
{
	struct param_list l = { .text = "" };
	struct job_config c;
	char key[KEY_LEN];

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	key_of(&c, key);
	job_config_each_param(&c, collect_param, &l);
	assert_string_equal(l.text, key);
	assert_int_equal(l.n, 17);
}

/* ---- validation ---- */

static void test_finalize_rejects_udp_message_outside_datagram_limits(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.msg_bytes = 7;
	expect_finalize_rejects(&c, "size 7", "ipv4");

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.msg_bytes = 65508;
	expect_finalize_rejects(&c, "size 65508", "65507");

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.ipv = 6;
	c.msg_bytes = 65528;
	expect_finalize_rejects(&c, "size 65528", "ipv6");
}

static void test_finalize_accepts_udp_message_at_datagram_limits(void **state)
{
	static const struct {
		int ipv;
		uint64_t msg;
	} ok[] = { { 4, 8 }, { 4, 65507 }, { 6, 8 }, { 6, 65527 } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct job_config c;

		job_config_init(&c);
		c.test = JOB_TEST_UDP_STREAM;
		c.ipv = ok[i].ipv;
		c.msg_bytes = ok[i].msg;
		finalize_ok(&c, 8);
		assert_int_equal(c.msg_bytes, ok[i].msg);
	}
}

static void test_finalize_rejects_tcp_message_over_max(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.msg_bytes = JOB_MAX_MSG + 1;
	expect_finalize_rejects(&c, "size 67108865", NULL);
	job_config_init(&c);
	c.msg_bytes = JOB_MAX_MSG;
	finalize_ok(&c, 8);
}

static void test_finalize_rejects_nodelay_and_cc_with_udp(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.nodelay = true;
	expect_finalize_rejects(&c, "nodelay", "tcp");

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	snprintf(c.cc, sizeof(c.cc), "cubic");
	expect_finalize_rejects(&c, "congestion control", "tcp");
}

static void test_finalize_rejects_invalid_cc_names(void **state)
{
	/* each as the message quotes it: control characters escaped */
	static const char *const bad[][2] = {
		{ "bbr;rm", "'bbr;rm'" }, { "a/b", "'a/b'" },
		{ "cu bic", "'cu bic'" }, { "x.y", "'x.y'" },
		{ "\ttab", "'\\x09tab'" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct job_config c;

		job_config_init(&c);
		snprintf(c.cc, sizeof(c.cc), "%s", bad[i][0]);
		expect_finalize_rejects(&c, "congestion control", bad[i][1]);
	}
}

static void test_finalize_accepts_cc_names_with_dash_and_underscore(void **state)
{
	static const char *const good[] = { "cubic", "bbr", "bbr2", "dctcp",
					    "tcp-lp", "my_cc", "Reno" };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		struct job_config c;

		job_config_init(&c);
		snprintf(c.cc, sizeof(c.cc), "%s", good[i]);
		finalize_ok(&c, 8);
	}
}

static void test_finalize_rejects_duration_outside_100ms_to_24h(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.duration_ns = 100 * NS_PER_MS - 1;
	expect_finalize_rejects(&c, "duration 99999999", NULL);
	job_config_init(&c);
	c.duration_ns = 0;
	expect_finalize_rejects(&c, "duration 0", NULL);
	job_config_init(&c);
	c.duration_ns = 86400 * NS_PER_S + 1;
	expect_finalize_rejects(&c, "duration 86400000000001", NULL);

	job_config_init(&c);
	c.duration_ns = 100 * NS_PER_MS;
	finalize_ok(&c, 8);
	job_config_init(&c);
	c.duration_ns = 86400 * NS_PER_S;
	finalize_ok(&c, 8);
}

static void test_finalize_rejects_negative_or_huge_warmup(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.warmup_ns = -1;
	expect_finalize_rejects(&c, "warm-up -1", NULL);
	job_config_init(&c);
	c.warmup_ns = 3600 * NS_PER_S + 1;
	expect_finalize_rejects(&c, "warm-up", NULL);
	job_config_init(&c);
	c.warmup_ns = 0;
	finalize_ok(&c, 8);
}

static void test_finalize_rejects_interval_longer_than_duration(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.duration_ns = 2 * NS_PER_S;
	c.interval_ns = 2 * NS_PER_S + 1;
	expect_finalize_rejects(&c, "interval 2000000001", NULL);

	job_config_init(&c);
	c.interval_ns = 50 * NS_PER_MS;
	expect_finalize_rejects(&c, "interval 50000000", NULL);

	job_config_init(&c);
	c.duration_ns = 2 * NS_PER_S;
	c.interval_ns = 2 * NS_PER_S;
	finalize_ok(&c, 8);
	job_config_init(&c);
	c.interval_ns = 100 * NS_PER_MS;
	finalize_ok(&c, 8);
}

static void test_finalize_rejects_streams_outside_1_to_max(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.streams = 0;
	expect_finalize_rejects(&c, "streams 0", "1024");
	job_config_init(&c);
	c.streams = JOB_MAX_STREAMS + 1;
	expect_finalize_rejects(&c, "streams 1025", NULL);
	job_config_init(&c);
	c.streams = JOB_MAX_STREAMS;
	finalize_ok(&c, 8);
}

static void test_finalize_rejects_other_out_of_range_fields(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.threads = JOB_MAX_THREADS + 1;
	expect_finalize_rejects(&c, "threads 257", NULL);

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.batch = JOB_MAX_BATCH + 1;
	expect_finalize_rejects(&c, "batch 65", NULL);

	job_config_init(&c);
	c.ipv = 5;
	expect_finalize_rejects(&c, "ip version 5", NULL);

	job_config_init(&c);
	c.test = JOB_TEST_COUNT;
	{
		char want[32];

		snprintf(want, sizeof(want), "invalid test %d", (int)JOB_TEST_COUNT);
		expect_finalize_rejects(&c, want, NULL);
	}

	job_config_init(&c);
	c.dir = JOB_DIR_COUNT;
	expect_finalize_rejects(&c, "direction 3", NULL);
}

/* ---- JSON form ---- */

static void expect_json_round_trip(const struct job_config *in)
{
	struct base_err err = { .msg = "" };
	struct job_config out;
	char a[KEY_LEN], b[KEY_LEN];
	json_t *j = job_config_to_json(in);
	int ret;

	assert_non_null(j);
	ret = job_config_from_json(j, &out, &err);
	if (ret)
		fail_msg("from_json failed with %d: %s", ret, err.msg);
	key_of(in, a);
	key_of(&out, b);
	assert_string_equal(a, b);
	assert_int_equal(out.duration_ns, in->duration_ns);
	assert_int_equal(out.warmup_ns, in->warmup_ns);
	assert_int_equal(out.interval_ns, in->interval_ns);
	json_decref(j);
}

static void test_json_round_trip_keeps_the_key(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	finalize_ok(&c, 8);
	expect_json_round_trip(&c);

	job_config_init(&c);
	c.dir = JOB_DIR_BIDIR;
	c.streams = 6;
	c.threads = 3;
	c.msg_bytes = 1000;
	c.sndbuf = 8192;
	c.rcvbuf = 16384;
	c.remote_sndbuf = 32768;
	c.remote_rcvbuf = 65536;
	c.nodelay = true;
	c.ipv = 6;
	snprintf(c.cc, sizeof(c.cc), "bbr");
	set_cpus(&c.cpus, "8,0-3");
	set_cpus(&c.remote_cpus, "4-7:2");
	c.duration_ns = 3 * NS_PER_S;
	c.warmup_ns = 500 * NS_PER_MS;
	c.interval_ns = NS_PER_S;
	finalize_ok(&c, 8);
	expect_json_round_trip(&c);

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.dir = JOB_DIR_RECV;
	c.batch = 16;
	c.msg_bytes = 9000;
	finalize_ok(&c, 8);
	expect_json_round_trip(&c);
}

/* A finalized default configuration as JSON, for the rejection tests. */
static json_t *good_json(void)
{
	struct job_config c;
	json_t *j;

	job_config_init(&c);
	finalize_ok(&c, 8);
	j = job_config_to_json(&c);
	assert_non_null(j);
	return j;
}

/* Set key to value (stolen; NULL deletes key), expect want naming needle. */
static void expect_json_rejects_with(const char *key, json_t *value, int want,
				     const char *needle)
{
	struct base_err err = { .msg = "" };
	struct job_config c;
	json_t *j = good_json();
	int ret;

	if (value)
		json_object_set_new(j, key, value);
	else
		json_object_del(j, key);
	ret = job_config_from_json(j, &c, &err);
	if (ret != want)
		fail_msg("from_json with bad '%s' returned %d, want %d", key,
			 ret, want);
	expect_msg_has(&err, needle);
	json_decref(j);
}

static void expect_json_rejects(const char *key, json_t *value,
				const char *needle)
{
	expect_json_rejects_with(key, value, -EINVAL, needle);
}

static void test_from_json_rejects_unknown_fields(void **state)
{
	(void)state;
	expect_json_rejects("colour", json_string("red"), "unknown field 'colour'");
	expect_json_rejects("Streams", json_integer(1), "unknown field 'Streams'");
}

static void test_from_json_rejects_wrong_types(void **state)
{
	(void)state;
	expect_json_rejects("streams", json_string("4"), "'streams': expected an integer");
	expect_json_rejects("msg", json_real(1500.0), "'msg': expected an integer");
	expect_json_rejects("nodelay", json_integer(1), "'nodelay': expected true or false");
	expect_json_rejects("test", json_integer(0), "'test': expected a string");
	expect_json_rejects("dir", json_null(), "'dir': expected a string");
	expect_json_rejects("cc", json_false(), "'cc': expected a string");
	expect_json_rejects("cpus", json_integer(3), "'cpus': expected a string");
	expect_json_rejects("duration_ns", json_true(), "'duration_ns': expected an integer");
}

static void test_from_json_rejects_missing_fields(void **state)
{
	(void)state;
	expect_json_rejects("msg", NULL, "lacks 'msg'");
	expect_json_rejects("interval_ns", NULL, "lacks 'interval_ns'");
	expect_json_rejects("test", NULL, "'test'");
	expect_json_rejects("nodelay", NULL, "'nodelay'");
	expect_json_rejects("remote_cpus", NULL, "'remote_cpus'");
}

static void test_from_json_rejects_out_of_range_values(void **state)
{
	(void)state;
	expect_json_rejects("streams", json_integer(0), "'streams' = 0");
	expect_json_rejects("streams", json_integer(1025), "'streams' = 1025");
	expect_json_rejects("threads", json_integer(257), "'threads' = 257");
	expect_json_rejects("threads", json_integer(-1), "'threads' = -1");
	expect_json_rejects("ipv", json_integer(3), "'ipv' = 3");
	expect_json_rejects("batch", json_integer(65), "'batch' = 65");
	expect_json_rejects("sndbuf", json_integer(-1), "'sndbuf' = -1");
	expect_json_rejects("rcvbuf", json_integer((json_int_t)INT32_MAX + 1),
			    "'rcvbuf' = 2147483648");
	expect_json_rejects("msg", json_integer((json_int_t)JOB_MAX_MSG + 1),
			    "'msg' = 67108865");
	expect_json_rejects("duration_ns", json_integer(-5), "'duration_ns' = -5");
	expect_json_rejects("test", json_string("sctp_rr"), "'sctp_rr'");
	expect_json_rejects("dir", json_string("both"), "'both'");
	expect_json_rejects("cc", json_string("bbr;reboot"), "'cc'");
	expect_json_rejects("cc", json_string("abcdefghijklmnopq"), "'cc'");
}

/* The cpu list parser's own code comes through: -ERANGE for an id too big. */
static void test_from_json_rejects_bad_cpu_lists(void **state)
{
	static const struct {
		const char *s;
		int ret;
	} bad[] = {
		{ "1,1", -EINVAL }, { "abc", -EINVAL }, { "3-0", -EINVAL },
		{ "0-", -EINVAL },  { ",1", -EINVAL },  { " 1", -EINVAL },
		{ "2000", -ERANGE }, { "0-7:0", -ERANGE },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		expect_json_rejects_with("cpus", json_string(bad[i].s),
					 bad[i].ret, "cpu list");
		expect_json_rejects_with("remote_cpus", json_string(bad[i].s),
					 bad[i].ret, "cpu list");
	}
}

static void test_from_json_rejects_non_object(void **state)
{
	struct base_err err = { .msg = "" };
	struct job_config c;
	json_t *j = json_pack("[s]", "tcp_stream");

	(void)state;
	assert_int_equal(job_config_from_json(j, &c, &err), -EINVAL);
	expect_msg_has(&err, "json object");
	assert_int_equal(job_config_from_json(NULL, &c, &err), -EINVAL);
	json_decref(j);
}

/* from_json checks each field alone; the server then finalizes, which
 * catches what only the combination or finer ranges rule out. */
static void test_from_json_then_finalize_rejects_what_fields_alone_allow(void **state)
{
	struct base_cpulist allowed8;
	struct base_err err = { .msg = "" };
	struct job_config c;
	json_t *j = good_json();

	(void)state;
	json_object_set_new(j, "ipv", json_integer(5));
	assert_int_equal(job_config_from_json(j, &c, &err), -EINVAL);
	expect_msg_has(&err, "'ipv' = 5");
	json_decref(j);

	j = good_json();
	json_object_set_new(j, "test", json_string("udp_stream"));
	json_object_set_new(j, "msg", json_integer(1472));
	json_object_set_new(j, "nodelay", json_true());
	assert_int_equal(job_config_from_json(j, &c, &err), 0);
	base_cpus_first(&allowed8, 8);
	assert_int_equal(job_config_finalize(&c, &allowed8, &err), -EINVAL);
	expect_msg_has(&err, "nodelay");
	json_decref(j);
}

/* ---- flows and names ---- */

static void test_flow_c2s_follows_direction(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.streams = 3;
	c.dir = JOB_DIR_SEND;
	assert_int_equal(job_config_nflows(&c), 3);
	for (uint32_t id = 0; id < 3; id++)
		assert_true(job_config_flow_c2s(&c, id));
	c.dir = JOB_DIR_RECV;
	assert_int_equal(job_config_nflows(&c), 3);
	for (uint32_t id = 0; id < 3; id++)
		assert_false(job_config_flow_c2s(&c, id));
	c.dir = JOB_DIR_BIDIR;
	assert_int_equal(job_config_nflows(&c), 6);
	for (uint32_t id = 0; id < 6; id++)
		assert_int_equal(job_config_flow_c2s(&c, id), id < 3);
}

static void test_test_parse_round_trips_names_and_names_bad_value(void **state)
{
	struct base_err err = { .msg = "" };
	enum job_test t = JOB_TEST_COUNT;

	(void)state;
	for (int i = 0; i < JOB_TEST_COUNT; i++) {
		assert_int_equal(job_test_parse(job_test_name(i), &t, &err), 0);
		assert_int_equal(t, i);
	}
	assert_true(job_test_is_udp(JOB_TEST_UDP_STREAM));
	assert_false(job_test_is_udp(JOB_TEST_TCP_STREAM));
	/* tcp_sendfile is a tcp stream: rmsg, stream kind, the speed probe */
	assert_int_equal(job_test_parse("tcp_sendfile", &t, &err), 0);
	assert_int_equal(t, JOB_TEST_TCP_SENDFILE);
	assert_true(job_test_is_tcp_stream(JOB_TEST_TCP_SENDFILE));
	assert_true(job_test_is_tcp_stream(JOB_TEST_TCP_STREAM));
	assert_false(job_test_is_tcp_stream(JOB_TEST_UDP_STREAM));
	assert_false(job_test_is_udp(JOB_TEST_TCP_SENDFILE));
	assert_int_equal(job_test_kind(JOB_TEST_TCP_SENDFILE), JOB_KIND_STREAM);
	assert_true(job_test_speed_default(JOB_TEST_TCP_SENDFILE));
	t = JOB_TEST_COUNT;
	assert_true(job_test_is_udp(JOB_TEST_UDP_RR));
	assert_false(job_test_is_udp(JOB_TEST_TCP_CRR));
	assert_int_equal(job_test_parse("sctp_rr", &t, &err), -EINVAL);
	assert_int_equal(t, JOB_TEST_COUNT);
	expect_msg_has(&err, "'sctp_rr'");
	expect_msg_has(&err, "tcp_stream, tcp_sendfile, udp_stream, tcp_rr, udp_rr, tcp_crr or tcp_cc");
	assert_int_equal(job_test_parse("TCP_STREAM", &t, &err), -EINVAL);
	expect_msg_has(&err, "'TCP_STREAM'");
	assert_int_equal(job_test_parse("", &t, &err), -EINVAL);
	assert_string_equal(job_test_name(JOB_TEST_COUNT), "?");
}

static void test_dir_parse_round_trips_names_and_names_bad_value(void **state)
{
	struct base_err err = { .msg = "" };
	enum job_dir d = JOB_DIR_COUNT;

	(void)state;
	for (int i = 0; i < JOB_DIR_COUNT; i++) {
		assert_int_equal(job_dir_parse(job_dir_name(i), &d, &err), 0);
		assert_int_equal(d, i);
	}
	d = JOB_DIR_COUNT;
	assert_int_equal(job_dir_parse("both", &d, &err), -EINVAL);
	assert_int_equal(d, JOB_DIR_COUNT);
	expect_msg_has(&err, "'both'");
	expect_msg_has(&err, "send, recv or bidir");
	assert_int_equal(job_dir_parse("send ", &d, &err), -EINVAL);
	expect_msg_has(&err, "'send '");
	assert_string_equal(job_dir_name(JOB_DIR_COUNT), "?");
}

/* ---- request/response configurations ---- */

static void test_rr_defaults_and_exact_key(void **state)
{
	struct job_config c;
	char key[1024];

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.streams = 4;
	c.nodelay = true;
	finalize_ok(&c, 2);
	assert_int_equal(c.req_bytes, 1);
	assert_int_equal(c.resp_bytes, 1);
	assert_int_equal(c.burst, 1);
	assert_int_equal(c.batch, 1);
	assert_int_equal(c.threads, 1);
	assert_true(job_config_flow_c2s(&c, 3));
	assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
	assert_string_equal(key,
			    "buf_offset=0 burst=1 cc=default cpus=0 ipv=4 nodelay=1 rate=0 "
			    "rcvbuf=auto remote_cpus=1 remote_rcvbuf=auto "
			    "remote_sndbuf=auto req=1 resp=1 sndbuf=auto streams=4 "
			    "test=tcp_rr threads=1 topology=loopback");
}

/*
 * tcp_cc (netperf's TCP_CC): connect and close, no data. Its key says
 * req=0 resp=0; a second pass through JSON (the server's) keeps it; the
 * knobs of data-moving tests are refused by name.
 */
static void test_tcp_cc_moves_no_data(void **state)
{
	struct base_err err = { .msg = "" };
	struct job_config c, d;
	char key[1024], k2[1024];
	json_t *j;

	(void)state;
	assert_int_equal(job_test_parse("tcp_cc", &c.test, &err), 0);
	assert_int_equal(c.test, JOB_TEST_TCP_CC);
	assert_int_equal(job_test_kind(JOB_TEST_TCP_CC), JOB_KIND_CRR);
	assert_false(job_test_is_udp(JOB_TEST_TCP_CC));
	assert_false(job_test_speed_default(JOB_TEST_TCP_CC));
	job_config_init(&c);
	c.test = JOB_TEST_TCP_CC;
	finalize_ok(&c, 2);
	assert_int_equal(c.req_bytes, 0);
	assert_int_equal(c.resp_bytes, 0);
	assert_int_equal(c.burst, 1);
	assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
	assert_string_equal(key,
			    "buf_offset=0 burst=1 cc=default cpus=0 ipv=4 nodelay=0 rate=0 "
			    "rcvbuf=auto remote_cpus=1 remote_rcvbuf=auto "
			    "remote_sndbuf=auto req=0 resp=0 sndbuf=auto streams=1 "
			    "test=tcp_cc threads=1 topology=loopback");
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	finalize_ok(&d, 2);
	assert_int_equal(job_config_key(&d, k2, sizeof(k2)), 0);
	assert_string_equal(key, k2);
	json_decref(j);

	job_config_init(&c);
	c.test = JOB_TEST_TCP_CC;
	c.req_bytes = 64;
	expect_finalize_rejects(&c, "tcp_cc connects and closes, moving no data", "(-r)");
	job_config_init(&c);
	c.test = JOB_TEST_TCP_CC;
	c.rate = 100;
	expect_finalize_rejects(&c, "tcp_cc runs closed loop", "no --burst or --rate");
	job_config_init(&c);
	c.test = JOB_TEST_TCP_CC;
	c.msg_bytes = 64;
	expect_finalize_rejects(&c, "message size applies to stream tests", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_TCP_CC;
	c.dir = JOB_DIR_BIDIR;
	expect_finalize_rejects(&c, "direction bidir applies to stream tests only", NULL);
}

/*
 * -n 200%: a share of the cpus this process may use, as lkp's nr_threads,
 * rounded to the nearest flow and at least one. Finalize resolves it: the
 * key, the JSON and the server see the count.
 */
static void test_streams_as_a_share_of_the_cpus(void **state)
{
	static const struct {
		uint32_t pct;
		int ncpus;
		uint32_t want;
	} cases[] = {
		{ 200, 2, 4 }, { 100, 2, 2 }, { 50, 2, 1 }, { 25, 2, 1 },
		{ 1, 2, 1 }, { 25, 8, 2 }, { 150, 3, 5 }, { 10000, 8, 800 },
	};
	struct base_err err = { .msg = "" };
	struct base_cpulist allowed;
	struct job_config c, d;
	char key[1024];
	json_t *j;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		job_config_init(&c);
		c.streams_pct = cases[i].pct;
		finalize_ok(&c, cases[i].ncpus);
		if (c.streams != cases[i].want)
			fail_msg("%u%% of %d cpus gave %u flows, want %u", cases[i].pct,
				 cases[i].ncpus, c.streams, cases[i].want);
		assert_int_equal(c.streams_pct, 0);
	}
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.dir = JOB_DIR_BIDIR;
	c.streams_pct = 200;
	finalize_ok(&c, 2);
	assert_int_equal(job_config_nflows(&c), 8);
	assert_int_equal(job_config_key(&c, key, sizeof(key)), 0);
	assert_non_null(strstr(key, " streams=4 "));
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	assert_int_equal(d.streams, 4);
	json_decref(j);

	job_config_init(&c);
	c.streams_pct = 10000;
	base_cpus_first(&allowed, 16);
	assert_int_equal(job_config_finalize(&c, &allowed, &err), -EINVAL);
	expect_msg_has(&err, "invalid streams 10000% of 16 cpus: 1600 flows, expected at most 1024");
}

/* The server finalizes what the client finalized: a second pass is a no-op. */
static void test_rr_finalize_is_idempotent_through_json(void **state)
{
	struct base_err err = { .msg = "" };
	struct job_config c, d;
	char k1[1024], k2[1024];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_RR;
	c.req_bytes = 64;
	c.resp_bytes = 1024;
	c.rate = 2500.5;
	finalize_ok(&c, 2);
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &d, &err), 0);
	finalize_ok(&d, 2);
	assert_int_equal(job_config_key(&c, k1, sizeof(k1)), 0);
	assert_int_equal(job_config_key(&d, k2, sizeof(k2)), 0);
	assert_string_equal(k1, k2);
	assert_true(strstr(k1, "rate=2500.5 ") != NULL);
	assert_true(d.rate == 2500.5);
	assert_int_equal(d.rr_timeout_ns, c.rr_timeout_ns);
	json_decref(j);
}

static void test_rr_finalize_rejects_stream_knobs_and_bad_mixes(void **state)
{
	struct job_config c;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.dir = JOB_DIR_BIDIR;
	expect_finalize_rejects(&c, "bidir", "stream tests only");
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.msg_bytes = 256;
	expect_finalize_rejects(&c, "-r 64,1K", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_UDP_RR;
	c.req_bytes = 65508;
	expect_finalize_rejects(&c, "65508", "65507");
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.burst = 4;
	c.rate = 100;
	expect_finalize_rejects(&c, "exclude each other", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_TCP_CRR;
	c.burst = 2;
	expect_finalize_rejects(&c, "closed loop", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.burst = JOB_MAX_BURST + 1;
	expect_finalize_rejects(&c, "invalid burst 1025", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_UDP_RR;
	c.rr_timeout_ns = 1000;
	expect_finalize_rejects(&c, "reply timeout", "1ms to 60s");
	job_config_init(&c);
	c.burst = 2; /* a stream test */
	expect_finalize_rejects(&c, "apply to tcp_rr, udp_rr and tcp_crr only", NULL);
}

static void test_parse_warmup(void **state)
{
	static const struct {
		const char *s;
		int ret;
		int64_t ns;
		bool autow;
	} cases[] = {
		{ "2s", 0, 2 * NS_PER_S, false },
		{ "0", 0, 0, false },
		{ "1h", 0, 3600 * NS_PER_S, false },
		{ "auto", 0, JOB_WARMUP_AUTO_MAX, true },
		{ "auto:1s", 0, NS_PER_S, true },
		{ "auto:30s", 0, 30 * NS_PER_S, true },
		{ "auto:999ms", -EINVAL, 0, false },
		{ "auto:2h", -EINVAL, 0, false },
		{ "auto:", -EINVAL, 0, false },
		{ "autox", -EINVAL, 0, false },
		{ "61m", -EINVAL, 0, false },
		{ "-1s", -EINVAL, 0, false },
		{ "", -EINVAL, 0, false },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct base_err err = { .msg = "" };
		int64_t ns = -7;
		bool a = !cases[i].autow;
		int ret = job_parse_warmup(cases[i].s, &ns, &a, &err);

		if (ret != cases[i].ret)
			fail_msg("'%s' gave %d, want %d", cases[i].s, ret, cases[i].ret);
		if (ret) {
			expect_msg_has(&err, "invalid warm-up");
			continue;
		}
		assert_int_equal(ns, cases[i].ns);
		assert_int_equal(a, cases[i].autow);
	}
}

/*
 * A value from a peer or a file comes back in an error with its control
 * characters escaped, so that the message stays one line (found by
 * tests/fuzz: fuzz_parse, fuzz_proto).
 */
/*
 * sendfile_from: tcp_sendfile only, tmp unless set; always in its key and
 * JSON; a document without it ran from a memfd; a bad value is named.
 */
static void test_sendfile_from_key_json_and_default(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char key[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_TCP_SENDFILE;
	finalize_ok(&c, 8);
	assert_int_equal(c.sendfile_from, JOB_SENDFILE_TMP);
	key_of(&c, key);
	assert_non_null(strstr(key, " rmsg=131072 sendfile_from=tmp sndbuf=auto "));
	expect_sorted_names(key, 18);
	expect_json_round_trip(&c);
	j = job_config_to_json(&c);
	assert_string_equal(json_string_value(json_object_get(j, "sendfile_from")), "tmp");
	json_object_del(j, "sendfile_from");
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.sendfile_from, JOB_SENDFILE_MEMFD);
	json_object_set_new(j, "sendfile_from", json_string("disk"));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'sendfile_from' = 'disk': expected tmp or memfd");
	json_object_set_new(j, "sendfile_from", json_integer(1));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'sendfile_from': expected a string");
	json_decref(j);

	job_config_init(&c);
	c.test = JOB_TEST_TCP_SENDFILE;
	assert_int_equal(job_sendfile_from_parse("memfd", &c.sendfile_from), 0);
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_non_null(strstr(key, " sendfile_from=memfd "));
	expect_json_round_trip(&c);
	assert_int_equal(job_sendfile_from_parse("", &c.sendfile_from), -EINVAL);

	/* other tests: not in the key, refused when set */
	job_config_init(&c);
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_null(strstr(key, "sendfile_from"));
	j = job_config_to_json(&c);
	assert_null(json_object_get(j, "sendfile_from"));
	json_decref(j);
	job_config_init(&c);
	c.sendfile_from = JOB_SENDFILE_MEMFD;
	expect_finalize_rejects(&c, "sendfile_from applies to tcp_sendfile only, not tcp_stream", NULL);
}

/*
 * buf_offset: every test, 0 (page-aligned) unless set, always in the key and
 * the JSON; a document without it used a malloc'd buffer and keeps the key
 * it was stored under; out-of-range values are named.
 */
static void test_buf_offset_key_json_and_default(void **state)
{
	static const enum job_test tests[] = {
		JOB_TEST_TCP_STREAM, JOB_TEST_UDP_STREAM, JOB_TEST_TCP_RR,
		JOB_TEST_TCP_CRR,
	};
	struct job_config c, back;
	struct base_err err = { "" };
	char key[KEY_LEN], old[KEY_LEN];
	json_t *j, *jb;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
		job_config_init(&c);
		c.test = tests[i];
		finalize_ok(&c, 8);
		assert_int_equal(c.buf_offset, 0);
		key_of(&c, key);
		assert_true(strstr(key, "buf_offset=0 ") == key ||
			    strstr(key, " buf_offset=0 "));
		expect_json_round_trip(&c);
	}

	job_config_init(&c);
	c.buf_offset = 16;
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_non_null(strstr(key, "buf_offset=16 cc=default "));
	expect_json_round_trip(&c);
	j = job_config_to_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "buf_offset")), 16);

	/* stored before the field: a malloc'd buffer, and the old key */
	json_object_del(j, "buf_offset");
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.buf_offset, JOB_BUF_OFFSET_HEAP);
	key_of(&back, old);
	assert_null(strstr(old, "buf_offset"));
	assert_string_equal(old, strstr(key, "cc=default "));
	jb = job_config_to_json(&back);
	assert_null(json_object_get(jb, "buf_offset"));
	json_decref(jb);

	json_object_set_new(j, "buf_offset", json_integer(4096));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'buf_offset' = 4096: expected 0 to 4095");
	json_object_set_new(j, "buf_offset", json_integer(-1));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'buf_offset' = -1: expected 0 to 4095");
	json_object_set_new(j, "buf_offset", json_string("16"));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'buf_offset': expected an integer");
	json_decref(j);

	job_config_init(&c);
	c.buf_offset = 4096;
	expect_finalize_rejects(&c, "invalid buf_offset 4096: expected 0 to 4095 bytes past a page boundary", NULL);
	job_config_init(&c);
	c.buf_offset = -2;
	expect_finalize_rejects(&c, "invalid buf_offset -2", NULL);
}

/*
 * transfer: tcp_stream from the server (dir recv) only, a whole number of
 * messages; in the key and the JSON only when set, so every stream without
 * it keeps its key, and a document without it reads as off.
 */
static void test_transfer_key_json_and_limits(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char plain[KEY_LEN], key[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.dir = JOB_DIR_RECV;
	finalize_ok(&c, 8);
	assert_int_equal(c.transfer_bytes, 0);
	expect_off_field(&c, "transfer", plain);
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.transfer_bytes, 0);
	json_decref(j);

	/* bw_tcp -m 10M: 10 x 2^20 bytes a write, a read and a transfer */
	c.msg_bytes = 10 << 20;
	c.transfer_bytes = 10 << 20;
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_non_null(strstr(key, " topology=loopback transfer=10485760"));
	expect_sorted_names(key, 18);
	expect_json_round_trip(&c);
	j = job_config_to_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "transfer")), 10485760);
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.transfer_bytes, 10485760);
	/* the rest of the key is the plain stream's */
	c.transfer_bytes = 0;
	key_of(&c, plain);
	assert_int_equal(strncmp(plain, key, strlen(plain)), 0);
	assert_string_equal(key + strlen(plain), " transfer=10485760");

	json_object_set_new(j, "transfer", json_integer(0));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'transfer' = 0: expected 1 to 1099511627776");
	json_object_set_new(j, "transfer", json_string("10M"));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'transfer': expected an integer");
	json_decref(j);

	/* 80 messages of the default 128K: a whole number */
	job_config_init(&c);
	c.dir = JOB_DIR_RECV;
	c.transfer_bytes = 10 << 20;
	finalize_ok(&c, 8);
	c.transfer_bytes = (10 << 20) + 1;
	expect_finalize_rejects(&c, "invalid transfer 10485761 for 131072-byte messages",
				"expected a multiple of the message size");
	c.transfer_bytes = JOB_MAX_TRANSFER + 131072;
	expect_finalize_rejects(&c, "invalid transfer 1099511758848: expected 1 to 1099511627776 bytes", NULL);
	c.transfer_bytes = 10 << 20;
	c.dir = JOB_DIR_SEND;
	expect_finalize_rejects(&c, "transfer applies to dir recv only, not send", NULL);
	c.dir = JOB_DIR_BIDIR;
	expect_finalize_rejects(&c, "transfer applies to dir recv only, not bidir", NULL);
	c.dir = JOB_DIR_RECV;
	c.test = JOB_TEST_TCP_SENDFILE;
	expect_finalize_rejects(&c, "transfer applies to tcp_stream only, not tcp_sendfile", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	c.transfer_bytes = 1;
	expect_finalize_rejects(&c, "transfer applies to tcp_stream only, not tcp_rr", NULL);
}

/*
 * cpu_latency: held only when asked (0 is a value: keep idle CPUs polling),
 * in the key and the JSON only then, so every configuration without it
 * keeps its key; out-of-range values are named.
 */
static void test_cpu_latency_key_json_and_default(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char key[KEY_LEN], plain[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_TCP_RR;
	finalize_ok(&c, 2);
	assert_false(c.hold_cpu_latency);
	expect_off_field(&c, "cpu_latency", plain);

	c.hold_cpu_latency = true;
	c.cpu_latency_us = 0;
	finalize_ok(&c, 2);
	key_of(&c, key);
	assert_non_null(strstr(key, " cc=default cpu_latency=0 cpus="));
	expect_json_round_trip(&c);
	j = job_config_to_json(&c);
	assert_int_equal(json_integer_value(json_object_get(j, "cpu_latency")), 0);
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_true(back.hold_cpu_latency);
	assert_int_equal(back.cpu_latency_us, 0);

	/* absent: not held, and the key of a run without it */
	json_object_del(j, "cpu_latency");
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_false(back.hold_cpu_latency);
	key_of(&back, key);
	assert_string_equal(key, plain);

	json_object_set_new(j, "cpu_latency", json_integer(1000001));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'cpu_latency' = 1000001: expected 0 to 1000000");
	json_object_set_new(j, "cpu_latency", json_integer(-1));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'cpu_latency' = -1: expected 0 to 1000000");
	json_decref(j);

	job_config_init(&c);
	c.hold_cpu_latency = true;
	c.cpu_latency_us = 1000001;
	expect_finalize_rejects(&c, "invalid cpu_latency 1000001: expected 0 to 1000000 microseconds", NULL);
}

/*
 * spin: every test, in the key and the JSON only when on, so configurations
 * without it keep their keys; a non-boolean in a peer's JSON is named.
 */
static void test_spin_key_json_and_default(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char key[KEY_LEN], plain[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 2);
	assert_false(c.spin);
	expect_off_field(&c, "spin", plain);

	c.spin = true;
	finalize_ok(&c, 2);
	key_of(&c, key);
	assert_non_null(strstr(key, " sndbuf=auto spin=1 streams=1 "));
	expect_json_round_trip(&c);
	j = job_config_to_json(&c);
	assert_true(json_is_true(json_object_get(j, "spin")));
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_true(back.spin);

	/* absent: the workers slept, and the key of a run without it */
	json_object_del(j, "spin");
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_false(back.spin);
	key_of(&back, key);
	assert_string_equal(key, plain);

	json_object_set_new(j, "spin", json_integer(1));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "configuration field 'spin': expected true or false");
	json_decref(j);
}

/* job_key_diff names what sets two keys apart, pair by pair in key order. */
static void test_key_diff_names_each_parameter_that_differs(void **state)
{
	char d[256];

	(void)state;
	assert_int_equal(job_key_diff("cc=default cpus=0", "cc=default cpus=0", d, sizeof(d)), 0);
	assert_string_equal(d, "");
	assert_int_equal(job_key_diff("buf_offset=0 cc=default cpus=0", "cc=default cpus=0",
				      d, sizeof(d)), 1);
	assert_string_equal(d, "buf_offset 0 -> (none)");
	assert_int_equal(job_key_diff("cc=bbr cpus=0 test=tcp_sendfile",
				      "cc=cubic cpus=0 sendfile_from=tmp test=tcp_sendfile",
				      d, sizeof(d)), 2);
	assert_string_equal(d, "cc bbr -> cubic, sendfile_from (none) -> tmp");
	/* a name that is a prefix of another is a different name */
	assert_int_equal(job_key_diff("msg=1", "msgx=1", d, sizeof(d)), 2);
	assert_string_equal(d, "msg 1 -> (none), msgx (none) -> 1");
	assert_int_equal(job_key_diff("", "a=1 b=", d, sizeof(d)), 2);
	assert_string_equal(d, "a (none) -> 1, b (none) -> ");
	/* a small buffer: the count stays right, the text is cut */
	assert_int_equal(job_key_diff("a=1 b=2 c=3", "a=9 b=8 c=7", d, 12), 3);
	assert_string_equal(d, "a 1 -> 9, b");
	assert_int_equal(job_key_diff("a=1", "a=2", d, 0), 1);
}

/* What keys share, and what each has besides: whole pairs, in key order. */
static void test_keys_common_and_the_rest(void **state)
{
	static const char *const keys[] = { "ipv=4 msg=64 rmsg=64 test=udp_stream",
					    "ipv=4 msg=1472 rmsg=64 test=udp_stream",
					    "ipv=4 msg=640 rmsg=64 test=udp_stream" };
	static const char *const mixed[] = { "ipv=4 req=1 test=tcp_rr", "ipv=4 msg=64 test=udp_stream" };
	char common[256], rest[256];

	(void)state;
	assert_int_equal(job_keys_common(keys, 3, common, sizeof(common)), 3);
	assert_string_equal(common, "ipv=4 rmsg=64 test=udp_stream");
	job_key_without(keys[0], common, rest, sizeof(rest));
	assert_string_equal(rest, "msg=64");
	job_key_without(keys[2], common, rest, sizeof(rest));
	assert_string_equal(rest, "msg=640");
	assert_int_equal(job_keys_common(mixed, 2, common, sizeof(common)), 1);
	assert_string_equal(common, "ipv=4");
	job_key_without(mixed[0], common, rest, sizeof(rest));
	assert_string_equal(rest, "req=1 test=tcp_rr");
	/* one key: all of it; none: nothing; nothing in common: the key */
	assert_int_equal(job_keys_common(keys, 1, common, sizeof(common)), 4);
	assert_string_equal(common, keys[0]);
	assert_int_equal(job_keys_common(keys, 0, common, sizeof(common)), 0);
	assert_string_equal(common, "");
	job_key_without(keys[1], "", rest, sizeof(rest));
	assert_string_equal(rest, keys[1]);
	/* whole pairs held: msg=64 is not msg=640, and "" holds everywhere */
	assert_true(job_key_holds(keys[0], "msg=64 test=udp_stream"));
	assert_false(job_key_holds(keys[2], "msg=64"));
	assert_false(job_key_holds(keys[0], "msg=64 streams=1"));
	assert_true(job_key_holds(keys[2], ""));
	/* a small buffer cuts the text */
	assert_int_equal(job_keys_common(keys, 3, common, 8), 3);
	assert_string_equal(common, "ipv=4 r");
}

/*
 * udp_gso and udp_gro: udp_stream only, checked against the message size,
 * the kernel's segment limit and a veth mtu; in the key (and the JSON) only
 * when on, so that samples taken before they existed keep their keys.
 */
static void test_udp_offloads_key_json_and_limits(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char plain[KEY_LEN], key[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	finalize_ok(&c, 8);
	key_of(&c, plain);
	assert_null(strstr(plain, "udp_g"));
	j = job_config_to_json(&c);
	assert_null(json_object_get(j, "udp_gso"));
	assert_null(json_object_get(j, "udp_gro"));
	/* a document without them reads as off */
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_int_equal(back.udp_gso, 0);
	assert_false(back.udp_gro);
	json_decref(j);

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.msg_bytes = 14720;
	c.udp_gso = 1472;
	c.udp_gro = true;
	finalize_ok(&c, 8);
	key_of(&c, key);
	assert_non_null(strstr(key, " topology=loopback udp_gro=1 udp_gso=1472"));
	expect_sorted_names(key, 19);
	expect_json_round_trip(&c);

	/* each alone makes its own key */
	c.udp_gro = false;
	key_of(&c, plain);
	assert_non_null(strstr(plain, " topology=loopback udp_gso=1472"));
	assert_null(strstr(plain, "udp_gro"));

	job_config_init(&c);
	c.udp_gro = true;
	expect_finalize_rejects(&c, "udp_gro (UDP_GRO) applies to udp_stream only", NULL);
	job_config_init(&c);
	c.test = JOB_TEST_UDP_RR;
	c.udp_gso = 512;
	expect_finalize_rejects(&c, "udp_gso (UDP_SEGMENT) applies to udp_stream only", NULL);

	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	c.udp_gso = 1472; /* the default message, 1472 bytes: nothing to cut */
	expect_finalize_rejects(&c, "invalid udp_gso 1472 for 1472-byte sends", NULL);
	c.msg_bytes = 64000;
	c.udp_gso = 999; /* 65 datagrams */
	expect_finalize_rejects(&c, "would be 65 datagrams each, expected at most 64", NULL);
	c.udp_gso = 1000; /* 64: the limit */
	finalize_ok(&c, 8);
	/* every datagram, the last one too, holds its 8-byte sequence number */
	c.msg_bytes = 14725;
	c.udp_gso = 1472;
	expect_finalize_rejects(&c, "their last datagram would be 5 bytes, expected at least 8", NULL);
	c.msg_bytes = 14728; /* the last one 8 bytes */
	finalize_ok(&c, 8);
	c.msg_bytes = 64000;
	c.udp_gso = 4;
	expect_finalize_rejects(&c, "expected 8 bytes up to less than the message size", NULL);

	/* on veth a datagram must fit the mtu with its headers */
	job_config_init(&c);
	c.test = JOB_TEST_UDP_STREAM;
	snprintf(c.topology, sizeof(c.topology), "veth");
	c.msg_bytes = 60000;
	c.udp_gso = 1473;
	expect_finalize_rejects(&c, "must fit the veth mtu 1500", NULL);
	c.udp_gso = 1472;
	finalize_ok(&c, 8);
	c.ipv = 6;
	expect_finalize_rejects(&c, "its 48 header bytes must fit the veth mtu 1500", NULL);
	c.mtu = 9000;
	c.udp_gso = 8952;
	finalize_ok(&c, 8);

	/* from a peer: a wrong type or size is named */
	j = good_json();
	json_object_set_new(j, "udp_gro", json_string("yes"));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'udp_gro': expected true or false");
	json_decref(j);
	expect_json_rejects("udp_gso", json_integer(70000), "'udp_gso' = 70000");
}

/*
 * The profiler slows what it measures, so a profiled sample has a key of
 * its own: profile=1, only when on (the keys of samples without it stay as
 * they were), carried by the JSON a peer reads.
 */
static void test_profile_in_key_and_json(void **state)
{
	struct job_config c, back;
	struct base_err err = { "" };
	char plain[KEY_LEN], key[KEY_LEN];
	json_t *j;

	(void)state;
	job_config_init(&c);
	c.test = JOB_TEST_TCP_STREAM;
	finalize_ok(&c, 2);
	expect_off_field(&c, "profile", plain);
	j = job_config_to_json(&c);
	assert_int_equal(job_config_from_json(j, &back, &err), 0);
	assert_false(back.profile);
	json_decref(j);

	c.profile = true;
	key_of(&c, key);
	assert_non_null(strstr(key, " nodelay=0 profile=1 rcvbuf="));
	assert_string_not_equal(key, plain);
	expect_json_round_trip(&c);

	j = good_json();
	json_object_set_new(j, "profile", json_integer(1));
	assert_int_equal(job_config_from_json(j, &back, &err), -EINVAL);
	expect_msg_has(&err, "'profile': expected true or false");
	json_decref(j);
}

static void test_bad_values_are_quoted_escaped(void **state)
{
	struct job_config c;
	struct base_err err = { .msg = "" };
	enum job_test t;
	enum job_dir d;
	int64_t ns;
	bool autow;
	json_t *j;

	(void)state;
	assert_int_equal(job_parse_warmup("3\x02" "0", &ns, &autow, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid warm-up '3\\x020': expected a duration from 0 to 1h (like 2s), auto or auto:MAX");
	assert_int_equal(job_test_parse("tcp\n", &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "unknown test 'tcp\\x0a'"));
	assert_int_equal(job_dir_parse("\x1b[2Jsend", &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "invalid direction '\\x1b[2Jsend'"));
	j = json_pack("{s:i}", "streams\n", 1);
	assert_non_null(j);
	assert_int_equal(job_config_from_json(j, &c, &err), -EINVAL);
	assert_string_equal(err.msg, "configuration has unknown field 'streams\\x0a'");
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rr_defaults_and_exact_key),
		cmocka_unit_test(test_rr_finalize_is_idempotent_through_json),
		cmocka_unit_test(test_tcp_cc_moves_no_data),
		cmocka_unit_test(test_streams_as_a_share_of_the_cpus),
		cmocka_unit_test(test_rr_finalize_rejects_stream_knobs_and_bad_mixes),
		cmocka_unit_test(test_init_gives_documented_defaults),
		cmocka_unit_test(test_finalize_tcp_defaults_to_128k_messages_and_batch_1),
		cmocka_unit_test(test_finalize_tcp_forces_batch_to_1),
		cmocka_unit_test(test_finalize_udp_default_message_fits_ipv4_and_ipv6_mtu),
		cmocka_unit_test(test_finalize_keeps_explicit_message_and_batch),
		cmocka_unit_test(test_finalize_threads_default_to_min_of_flows_and_cpus),
		cmocka_unit_test(test_finalize_split_placement),
		cmocka_unit_test(test_finalize_pair_placement),
		cmocka_unit_test(test_finalize_auto_placement),
		cmocka_unit_test(test_placement_free_and_json),
		cmocka_unit_test(test_parse_warmup),
		cmocka_unit_test(test_finalize_caps_explicit_threads_at_flows),
		cmocka_unit_test(test_finalize_bidir_doubles_flows_for_threads),
		cmocka_unit_test(test_key_is_exact_for_known_config),
		cmocka_unit_test(test_key_is_sorted_alphabetically_by_name),
		cmocka_unit_test(test_key_for_udp_includes_batch_and_tcp_does_not),
		cmocka_unit_test(test_key_changes_with_every_workload_parameter),
		cmocka_unit_test(test_key_changes_with_udp_batch),
		cmocka_unit_test(test_key_keeps_cpu_order),
		cmocka_unit_test(test_sendfile_from_key_json_and_default),
		cmocka_unit_test(test_buf_offset_key_json_and_default),
		cmocka_unit_test(test_transfer_key_json_and_limits),
		cmocka_unit_test(test_cpu_latency_key_json_and_default),
		cmocka_unit_test(test_spin_key_json_and_default),
		cmocka_unit_test(test_key_diff_names_each_parameter_that_differs),
		cmocka_unit_test(test_keys_common_and_the_rest),
		cmocka_unit_test(test_udp_offloads_key_json_and_limits),
		cmocka_unit_test(test_profile_in_key_and_json),
		cmocka_unit_test(test_key_ignores_duration_warmup_and_interval),
		cmocka_unit_test(test_key_reports_enospc_when_buffer_too_small),
		cmocka_unit_test(test_each_param_walks_the_key_in_order),
		cmocka_unit_test(test_finalize_rejects_udp_message_outside_datagram_limits),
		cmocka_unit_test(test_finalize_accepts_udp_message_at_datagram_limits),
		cmocka_unit_test(test_finalize_rejects_tcp_message_over_max),
		cmocka_unit_test(test_finalize_rejects_nodelay_and_cc_with_udp),
		cmocka_unit_test(test_finalize_rejects_invalid_cc_names),
		cmocka_unit_test(test_finalize_accepts_cc_names_with_dash_and_underscore),
		cmocka_unit_test(test_finalize_rejects_duration_outside_100ms_to_24h),
		cmocka_unit_test(test_finalize_rejects_negative_or_huge_warmup),
		cmocka_unit_test(test_finalize_rejects_interval_longer_than_duration),
		cmocka_unit_test(test_finalize_rejects_streams_outside_1_to_max),
		cmocka_unit_test(test_finalize_rejects_other_out_of_range_fields),
		cmocka_unit_test(test_json_round_trip_keeps_the_key),
		cmocka_unit_test(test_from_json_rejects_unknown_fields),
		cmocka_unit_test(test_from_json_rejects_wrong_types),
		cmocka_unit_test(test_from_json_rejects_missing_fields),
		cmocka_unit_test(test_from_json_rejects_out_of_range_values),
		cmocka_unit_test(test_from_json_rejects_bad_cpu_lists),
		cmocka_unit_test(test_from_json_rejects_non_object),
		cmocka_unit_test(test_from_json_then_finalize_rejects_what_fields_alone_allow),
		cmocka_unit_test(test_flow_c2s_follows_direction),
		cmocka_unit_test(test_test_parse_round_trips_names_and_names_bad_value),
		cmocka_unit_test(test_dir_parse_round_trips_names_and_names_bad_value),
		cmocka_unit_test(test_bad_values_are_quoted_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
