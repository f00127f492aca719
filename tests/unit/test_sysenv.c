// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for collect/sysenv: environment snapshot and its fingerprint. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "collect/sysenv.h"
#include "testdata.h"

static void add_ok(struct collect_sysenv *env, const char *key,
		   const char *value)
{
	struct base_err err = { "" };

	if (collect_sysenv_add(env, key, value, strlen(value), &err))
		fail_msg("add %s: %s", key, err.msg);
}

/* key must be there with this value */
static void expect(const struct collect_sysenv *env, const char *key,
		   const char *value)
{
	const char *v = collect_sysenv_get(env, key);

	if (!v)
		fail_msg("no %s", key);
	if (strcmp(v, value))
		fail_msg("%s is '%s', expected '%s'", key, v, value);
}

static void test_add_normalizes_blanks_and_newlines(void **state)
{
	struct collect_sysenv *env = collect_sysenv_new();

	(void)state;
	assert_non_null(env);
	add_ok(env, "sysctl.net.ipv4.tcp_rmem", "4096\t131072\t6291456\n");
	add_ok(env, "a", "  lead and trail \n");
	add_ok(env, "b", "one\n\ntwo\r\n\tthree\x01" "four");
	add_ok(env, "empty", "\n");
	add_ok(env, "utf8", "caf\xc3\xa9");
	expect(env, "sysctl.net.ipv4.tcp_rmem", "4096 131072 6291456");
	expect(env, "a", "lead and trail");
	expect(env, "b", "one two three four");
	expect(env, "empty", "");
	expect(env, "utf8", "caf\xc3\xa9");
	assert_null(collect_sysenv_get(env, "missing"));
	assert_int_equal(env->n, 5);
	/* the value need not be NUL-terminated: only len bytes count */
	{
		struct base_err err = { "" };

		assert_int_equal(collect_sysenv_add(env, "cut", "12345", 2, &err),
				 0);
		expect(env, "cut", "12");
	}
	collect_sysenv_free(env);
	collect_sysenv_free(NULL);
}

static void test_add_rejects_bad_keys_duplicates_and_over_caps(void **state)
{
	struct collect_sysenv *env = collect_sysenv_new();
	char key[COLLECT_SYSENV_KEY_MAX + 8], *big;
	struct base_err err = { "" };
	size_t i;

	(void)state;
	assert_int_equal(collect_sysenv_add(env, "", "x", 1, &err), -EINVAL);
	assert_int_equal(collect_sysenv_add(env, "a b", "x", 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'a b'"));
	assert_int_equal(collect_sysenv_add(env, "tab\tkey", "x", 1, &err),
			 -EINVAL);
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	assert_int_equal(collect_sysenv_add(env, key, "x", 1, &err), -EINVAL);

	add_ok(env, "sysctl.net.core.rmem_max", "212992");
	assert_int_equal(collect_sysenv_add(env, "sysctl.net.core.rmem_max",
					    "1", 1, &err),
			 -EEXIST);
	assert_non_null(strstr(err.msg, "sysctl.net.core.rmem_max"));

	big = malloc(COLLECT_SYSENV_VALUE_MAX + 1);
	assert_non_null(big);
	memset(big, '7', COLLECT_SYSENV_VALUE_MAX + 1);
	assert_int_equal(collect_sysenv_add(env, "big", big,
					    COLLECT_SYSENV_VALUE_MAX + 1, &err),
			 -E2BIG);
	assert_non_null(strstr(err.msg, "big: value is longer than 4096 bytes"));
	assert_int_equal(collect_sysenv_add(env, "big", big,
					    COLLECT_SYSENV_VALUE_MAX, &err),
			 0);
	free(big);

	collect_sysenv_clear(env);
	assert_int_equal(env->n, 0);
	assert_null(collect_sysenv_get(env, "big"));
	for (i = 0; i < COLLECT_SYSENV_MAX; i++) {
		snprintf(key, sizeof(key), "k%zu", i);
		add_ok(env, key, "v");
	}
	assert_int_equal(collect_sysenv_add(env, "one.more", "v", 1, &err),
			 -ENOSPC);
	expect(env, "k2047", "v");
	collect_sysenv_free(env);
}

static void test_sort_orders_by_key_and_keeps_lookups(void **state)
{
	struct collect_sysenv *env = collect_sysenv_new();

	(void)state;
	add_ok(env, "sysctl.net.ipv4.tcp_sack", "1");
	add_ok(env, "cmdline", "quiet");
	add_ok(env, "if.lo.mtu", "65536");
	collect_sysenv_sort(env);
	assert_string_equal(env->entries[0].key, "cmdline");
	assert_string_equal(env->entries[1].key, "if.lo.mtu");
	assert_string_equal(env->entries[2].key, "sysctl.net.ipv4.tcp_sack");
	expect(env, "if.lo.mtu", "65536");
	expect(env, "sysctl.net.ipv4.tcp_sack", "1");
	collect_sysenv_free(env);
}

static void test_in_fingerprint_lists_the_pooling_keys(void **state)
{
	static const char *const in[] = {
		"kernel.release", "kernel.version", "cmdline", "cpu.model",
		"cpu.microcode", "cpu.online", "cpu.smt", "cpu.smt.active",
		"numa.possible", "numa.online", "cpufreq.governor",
		"sysctl.net.core.rmem_max", "sysctl.net.ipv4.conf.all.rp_filter",
		"if.veth0.mtu", "if.lo.offload.rx-gro",
	};
	static const char *const out[] = {
		"sysctl.net.core.netdev_rss_key",
		"sysctl.net.ipv4.tcp_available_congestion_control",
		"sysctl.net.ipv4.tcp_available_ulp", "host.name", "kernel",
		"cpu.models", "iface.lo.mtu", "",
	};
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++)
		if (!collect_sysenv_in_fingerprint(in[i]))
			fail_msg("%s should be in the fingerprint", in[i]);
	for (i = 0; i < ARRAY_SIZE(out); i++)
		if (collect_sysenv_in_fingerprint(out[i]))
			fail_msg("%s should not be in the fingerprint", out[i]);
	assert_false(collect_sysenv_in_fingerprint(NULL));
}

static void fingerprint_of(const char *const (*kv)[2], size_t n,
			   char out[17])
{
	struct collect_sysenv *env = collect_sysenv_new();
	size_t i;

	assert_non_null(env);
	for (i = 0; i < n; i++)
		add_ok(env, kv[i][0], kv[i][1]);
	assert_int_equal(collect_sysenv_fingerprint(env, out), 0);
	collect_sysenv_free(env);
}

static void test_fingerprint_is_fnv1a_over_sorted_pairs(void **state)
{
	/* Expected values from an independent Python FNV-1a 64 over
	 * key NUL value NUL in key order. */
	static const char *const two[][2] = {
		{ "sysctl.net.core.rmem_max", "212992" },
		{ "kernel.release", "6.18.44" },
		{ "host.name", "not-in-the-fingerprint" },
	};
	char fp[17];

	(void)state;
	fingerprint_of(NULL, 0, fp);
	assert_string_equal(fp, "cbf29ce484222325");
	fingerprint_of(two, ARRAY_SIZE(two), fp);
	assert_string_equal(fp, "9af50014ad5c163f");
	assert_int_equal(collect_sysenv_fingerprint(NULL, fp), -EINVAL);
}

static void test_fingerprint_ignores_order_and_changes_with_a_value(void **state)
{
	static const char *const base[][2] = {
		{ "kernel.release", "6.18.44-fc-v657" },
		{ "cmdline", "console=ttyS0 quiet" },
		{ "cpu.model", "Intel(R) Xeon(R) Processor" },
		{ "sysctl.net.core.rmem_max", "212992" },
		{ "sysctl.net.ipv4.tcp_rmem", "4096 131072 6291456" },
		{ "if.lo.mtu", "65536" },
		{ "sysctl.net.core.netdev_rss_key", "aa:bb" },
	};
	const char *kv[ARRAY_SIZE(base)][2];
	char fp0[17], fp1[17];
	size_t i, n = ARRAY_SIZE(base);

	(void)state;
	fingerprint_of(base, n, fp0);

	/* reversed order: same */
	for (i = 0; i < n; i++) {
		kv[i][0] = base[n - 1 - i][0];
		kv[i][1] = base[n - 1 - i][1];
	}
	fingerprint_of((const char *const(*)[2])kv, n, fp1);
	assert_string_equal(fp0, fp1);

	/* one sysctl value changes: different */
	memcpy(kv, base, sizeof(kv));
	kv[3][1] = "4194304";
	fingerprint_of((const char *const(*)[2])kv, n, fp1);
	assert_string_not_equal(fp0, fp1);

	/* the interface's MTU changes: different */
	memcpy(kv, base, sizeof(kv));
	kv[5][1] = "9000";
	fingerprint_of((const char *const(*)[2])kv, n, fp1);
	assert_string_not_equal(fp0, fp1);

	/* a key moves its text to the value: different (fields separated) */
	memcpy(kv, base, sizeof(kv));
	kv[1][0] = "cmdlin";
	kv[1][1] = "econsole=ttyS0 quiet";
	fingerprint_of((const char *const(*)[2])kv, n, fp1);
	assert_string_not_equal(fp0, fp1);

	/* the per-boot RSS key changes: same */
	memcpy(kv, base, sizeof(kv));
	kv[6][1] = "cc:dd";
	fingerprint_of((const char *const(*)[2])kv, n, fp1);
	assert_string_equal(fp0, fp1);

	/* a key outside the fingerprint appears: same */
	{
		const char *more[ARRAY_SIZE(base) + 1][2];

		memcpy(more, base, sizeof(base));
		more[n][0] = "host.name";
		more[n][1] = "box";
		fingerprint_of((const char *const(*)[2])more, n + 1, fp1);
		assert_string_equal(fp0, fp1);
	}

	/* a fingerprint key disappears: different */
	fingerprint_of(base, n - 2, fp1);
	assert_string_not_equal(fp0, fp1);
}

static void test_add_sysctls_walks_a_tree_and_skips_per_interface(void **state)
{
	char dir[] = "/tmp/nr-sysenv-XXXXXX";
	struct collect_sysenv *env = collect_sysenv_new();
	struct base_err err = { "" };
	char *big;

	(void)state;
	assert_non_null(mkdtemp(dir));
	testdata_put(dir, "net/core/rmem_max", "212992\n");
	testdata_put(dir, "net/core/netdev_max_backlog", "1000\n");
	testdata_put(dir, "net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
	testdata_put(dir, "net/ipv4/tcp_fastopen_key", "00000000-00000000-00000000-00000000\n");
	testdata_put(dir, "net/ipv4/conf/all/rp_filter", "2\n");
	testdata_put(dir, "net/ipv4/conf/default/rp_filter", "1\n");
	testdata_put(dir, "net/ipv4/conf/eth0/rp_filter", "0\n");
	testdata_put(dir, "net/ipv4/neigh/default/gc_thresh1", "128\n");
	testdata_put(dir, "net/ipv4/neigh/lo/gc_stale_time", "60\n");
	testdata_put(dir, "net/ipv4/route/gc_timeout", "300\n");
	testdata_put(dir, "net/unix/max_dgram_qlen", "512\n");
	/* no net/ipv6: a kernel without IPv6 */

	assert_int_equal(collect_sysenv_add_sysctls(env, dir, &err), 0);
	collect_sysenv_sort(env);
	assert_int_equal(env->n, 7);
	expect(env, "sysctl.net.core.rmem_max", "212992");
	expect(env, "sysctl.net.ipv4.tcp_rmem", "4096 131072 6291456");
	expect(env, "sysctl.net.ipv4.conf.all.rp_filter", "2");
	expect(env, "sysctl.net.ipv4.conf.default.rp_filter", "1");
	expect(env, "sysctl.net.ipv4.neigh.default.gc_thresh1", "128");
	expect(env, "sysctl.net.ipv4.route.gc_timeout", "300");
	assert_null(collect_sysenv_get(env, "sysctl.net.ipv4.conf.eth0.rp_filter"));
	assert_null(collect_sysenv_get(env, "sysctl.net.ipv4.neigh.lo.gc_stale_time"));
	assert_null(collect_sysenv_get(env, "sysctl.net.ipv4.tcp_fastopen_key"));
	assert_null(collect_sysenv_get(env, "sysctl.net.unix.max_dgram_qlen"));

	/* a value over the cap is an error naming the sysctl */
	big = malloc(COLLECT_SYSENV_VALUE_MAX + 2);
	assert_non_null(big);
	memset(big, '1', COLLECT_SYSENV_VALUE_MAX + 1);
	big[COLLECT_SYSENV_VALUE_MAX + 1] = '\0';
	testdata_put(dir, "net/core/huge", big);
	free(big);
	collect_sysenv_clear(env);
	assert_int_equal(collect_sysenv_add_sysctls(env, dir, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "sysctl.net.core.huge is longer than 4096 bytes"));

	assert_int_equal(testdata_rmtree(dir), 0);
	collect_sysenv_free(env);
}

/*
 * The CPU's idle and mitigation state from a copy of /sys: the cpuidle
 * driver and governor, cpu0's idle states in order with the disabled one
 * marked, every vulnerability file with a plain name, THP; what the copy
 * lacks (haltpoll) is left out; all of it in the fingerprint.
 */
static void test_add_cpu_reads_idle_states_and_mitigations(void **state)
{
	char dir[] = "/tmp/nr-sysenv-XXXXXX";
	struct collect_sysenv *env = collect_sysenv_new();
	struct base_err err = { "" };

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* state3 missing: the list ends at state2, state4 is not read */
	testdata_put(dir, "devices/system/cpu/cpuidle/current_driver", "intel_idle\n");
	testdata_put(dir, "devices/system/cpu/cpuidle/current_governor", "menu\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/disable", "0\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state1/name", "C1\n");
	/* no disable file: an old kernel; counted as enabled */
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state2/name", "C6\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state2/disable", "1\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state4/name", "C10\n");
	testdata_put(dir, "devices/system/cpu/vulnerabilities/retbleed", "Mitigation: IBRS\n");
	testdata_put(dir, "devices/system/cpu/vulnerabilities/spectre_v2",
	    "Mitigation: Retpolines;  STIBP: disabled\n");
	testdata_put(dir, "devices/system/cpu/vulnerabilities/Odd Name", "x\n");
	testdata_put(dir, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n");

	assert_int_equal(collect_sysenv_add_cpu(env, dir, &err), 0);
	collect_sysenv_sort(env);
	assert_int_equal(env->n, 6);
	expect(env, "cpuidle.driver", "intel_idle");
	expect(env, "cpuidle.governor", "menu");
	expect(env, "cpuidle.states", "POLL, C1, C6 (disabled)");
	expect(env, "cpu.vuln.retbleed", "Mitigation: IBRS");
	expect(env, "cpu.vuln.spectre_v2", "Mitigation: Retpolines; STIBP: disabled");
	expect(env, "mm.thp.enabled", "always [madvise] never");
	assert_null(collect_sysenv_get(env, "cpuidle.haltpoll.guest_halt_poll_ns"));
	for (size_t i = 0; i < env->n; i++)
		assert_true(collect_sysenv_in_fingerprint(env->entries[i].key));

	/* a machine without any of it: nothing, no error */
	assert_int_equal(testdata_rmtree(dir), 0);
	collect_sysenv_clear(env);
	assert_int_equal(collect_sysenv_add_cpu(env, dir, &err), 0);
	assert_int_equal(env->n, 0);
	collect_sysenv_free(env);
}

static void test_add_if_rejects_bad_and_unknown_names(void **state)
{
	struct collect_sysenv *env = collect_sysenv_new();
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_sysenv_add_if(env, "", &err), -EINVAL);
	assert_int_equal(collect_sysenv_add_if(env, "a/b", &err), -EINVAL);
	assert_int_equal(collect_sysenv_add_if(env, "sixteen-chars-xx", &err),
			 -EINVAL);
	assert_int_equal(collect_sysenv_add_if(env, "nr-no-such0", &err),
			 -ENODEV);
	assert_string_equal(err.msg, "interface 'nr-no-such0' not found");
	assert_int_equal(env->n, 0);
	collect_sysenv_free(env);
}

static void test_read_this_machine(void **state)
{
	static const char *const lo[] = { "lo" };
	static const char *const lo_features[] = {
		"tx-generic-segmentation", "rx-gro", "tx-tcp-segmentation",
		"tx-checksum-ip-generic", "rx-checksum", "tx-scatter-gather",
	};
	struct collect_sysenv *a = collect_sysenv_new();
	struct collect_sysenv *b = collect_sysenv_new();
	struct base_err err = { "" };
	char fa[17], fb[17], fc[17], key[128];
	struct utsname u;
	size_t i, nsysctl = 0;
	const char *v;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	if (collect_sysenv_read(a, lo, 1, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(collect_sysenv_get(a, "kernel.release"), u.release);
	assert_non_null(collect_sysenv_get(a, "kernel.version"));
	assert_non_null(collect_sysenv_get(a, "cpu.model"));
	if (access("/sys/devices/system/cpu/online", R_OK) == 0)
		assert_non_null(collect_sysenv_get(a, "cpu.online"));
	if (access("/proc/cmdline", R_OK) == 0)
		assert_non_null(collect_sysenv_get(a, "cmdline"));

	for (i = 0; i < a->n; i++) {
		if (i > 0)
			assert_true(strcmp(a->entries[i - 1].key,
					   a->entries[i].key) < 0);
		if (!strncmp(a->entries[i].key, "sysctl.net.", 11))
			nsysctl++;
		/* per-interface subtrees other than all/default are out */
		assert_null(strstr(a->entries[i].key, ".conf.lo."));
		assert_null(strstr(a->entries[i].key, ".neigh.lo."));
		assert_null(strstr(a->entries[i].key, "fastopen_key"));
		assert_null(strchr(a->entries[i].value, '\n'));
		assert_null(strchr(a->entries[i].value, '\t'));
	}
	assert_true(nsysctl > 100);
	assert_non_null(collect_sysenv_get(a, "sysctl.net.core.rmem_max"));
	assert_non_null(collect_sysenv_get(a, "sysctl.net.ipv4.conf.all.forwarding"));
	v = collect_sysenv_get(a, "sysctl.net.ipv4.tcp_rmem");
	assert_non_null(v);
	assert_non_null(strchr(v, ' '));

	expect(a, "if.lo.mtu", "65536");
	assert_non_null(collect_sysenv_get(a, "if.lo.driver"));
	v = collect_sysenv_get(a, "if.lo.qdisc");
	assert_non_null(v);
	assert_true(strlen(v) > 0);
	for (i = 0; i < ARRAY_SIZE(lo_features); i++) {
		snprintf(key, sizeof(key), "if.lo.offload.%s", lo_features[i]);
		v = collect_sysenv_get(a, key);
		if (!v)
			fail_msg("no %s", key);
		assert_true(!strcmp(v, "on") || !strcmp(v, "off"));
	}
	/* loopback segments in software late and never checksums on the wire */
	expect(a, "if.lo.offload.tx-generic-segmentation", "on");

	/* the fingerprint is stable across reads, and sees the interfaces */
	assert_int_equal(collect_sysenv_fingerprint(a, fa), 0);
	assert_int_equal(collect_sysenv_read(b, lo, 1, &err), 0);
	assert_int_equal(collect_sysenv_fingerprint(b, fb), 0);
	assert_string_equal(fa, fb);
	assert_int_equal(strlen(fa), 16);
	assert_int_equal(collect_sysenv_read(b, NULL, 0, &err), 0);
	assert_null(collect_sysenv_get(b, "if.lo.mtu"));
	assert_int_equal(collect_sysenv_fingerprint(b, fc), 0);
	assert_string_not_equal(fa, fc);

	assert_int_equal(collect_sysenv_read(b, (const char *const[]){ "nr-no-such0" },
					     1, &err),
			 -ENODEV);
	collect_sysenv_free(a);
	collect_sysenv_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_normalizes_blanks_and_newlines),
		cmocka_unit_test(test_add_rejects_bad_keys_duplicates_and_over_caps),
		cmocka_unit_test(test_sort_orders_by_key_and_keeps_lookups),
		cmocka_unit_test(test_in_fingerprint_lists_the_pooling_keys),
		cmocka_unit_test(test_fingerprint_is_fnv1a_over_sorted_pairs),
		cmocka_unit_test(test_fingerprint_ignores_order_and_changes_with_a_value),
		cmocka_unit_test(test_add_sysctls_walks_a_tree_and_skips_per_interface),
		cmocka_unit_test(test_add_cpu_reads_idle_states_and_mitigations),
		cmocka_unit_test(test_add_if_rejects_bad_and_unknown_names),
		cmocka_unit_test(test_read_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
