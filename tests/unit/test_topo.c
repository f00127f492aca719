// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for topo: names, TBF parameters, rates, cgroup choice, commands, clean-up on a fake tree. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "topo/internal.h"
#include "topo/topo.h"

/* A fresh temporary directory per test, removed afterwards. */
static char tmp[64];

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int setup_tmp(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/nrtest-topo.XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int teardown_tmp(void **state)
{
	(void)state;
	return nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* mkdir -p of tmp/<rel> */
static void mk(const char *fmt, ...)
{
	char rel[256], path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	for (char *p = path + strlen(tmp) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

/* write tmp/<rel> with content */
static void put(const char *rel, const char *content)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "w");
	if (!f)
		fail_msg("fopen %s: %s", path, strerror(errno));
	fputs(content, f);
	fclose(f);
}

static bool exists(const char *fmt, ...)
{
	char rel[256], path[PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	return !access(path, F_OK);
}

static void test_name_format_and_parse_round_trip(void **state)
{
	char buf[TOPO_NAME_MAX];
	enum topo_side side;
	unsigned int n;
	pid_t pid;

	(void)state;
	assert_int_equal(topo_name_format(buf, sizeof(buf), 1234, 0, TOPO_CLIENT), 0);
	assert_string_equal(buf, "nr-1234-0-c");
	assert_int_equal(topo_name_parse(buf, &pid, &n, &side), 0);
	assert_int_equal(pid, 1234);
	assert_int_equal(n, 0);
	assert_int_equal(side, TOPO_CLIENT);

	assert_int_equal(topo_name_format(buf, sizeof(buf), INT_MAX, UINT_MAX,
					  TOPO_SERVER), 0);
	assert_string_equal(buf, "nr-2147483647-4294967295-s");
	assert_int_equal(topo_name_parse(buf, &pid, &n, &side), 0);
	assert_int_equal(pid, INT_MAX);
	assert_int_equal(n, UINT_MAX);
	assert_int_equal(side, TOPO_SERVER);
	/* outputs are optional */
	assert_int_equal(topo_name_parse("nr-7-1-s", NULL, NULL, NULL), 0);
}

static void test_name_format_rejects_bad_pid_and_short_buffer(void **state)
{
	char buf[TOPO_NAME_MAX];

	(void)state;
	assert_int_equal(topo_name_format(buf, sizeof(buf), 0, 0, TOPO_CLIENT), -EINVAL);
	assert_int_equal(topo_name_format(buf, sizeof(buf), -5, 0, TOPO_CLIENT), -EINVAL);
	assert_int_equal(topo_name_format(buf, 11, 1234, 0, TOPO_CLIENT), -ENOSPC);
	assert_int_equal(topo_name_format(buf, 12, 1234, 0, TOPO_CLIENT), 0);
	/* the longest name fits TOPO_NAME_MAX */
	assert_true(strlen("nr-2147483647-4294967295-s") < TOPO_NAME_MAX);
}

static void test_name_parse_rejects_everything_not_exactly_ours(void **state)
{
	static const char *const bad[] = {
		"", "nr-", "nr-1", "nr-1-", "nr-1-2", "nr-1-2-", "nr-1-2-x",
		"nr-1-2-cs", "nr-1-2-c ", " nr-1-2-c", "nr-0-2-c", "nr-01-2-c",
		"nr-1-02-c", "nr--1-2-c", "nr-+1-2-c", "nr-1--2-c",
		"nr-2147483648-0-c", "nr-1-4294967296-c", "NR-1-2-c", "nr_1_2_c",
		"nrtest-1-2-c", "nrtest-20488-1172", "nr-1-2-c/..", "nr-a-2-c",
		"nr-1-b-c", "xnr-1-2-c", "nr-1-2-C", "nr-1-2-c\n",
	};
	pid_t pid = 99;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (topo_name_parse(bad[i], &pid, NULL, NULL) != -EINVAL)
			fail_msg("'%s' parsed as ours", bad[i]);
	assert_int_equal(pid, 99); /* untouched on failure */
}

static void test_spec_init_gives_1500_and_device_defaults(void **state)
{
	struct topo_spec s;

	(void)state;
	memset(&s, 0x55, sizeof(s));
	topo_spec_init(&s);
	assert_int_equal(s.mtu, 1500);
	assert_int_equal(s.gro, -1);
	assert_int_equal(s.gso, -1);
	assert_int_equal(s.tso, -1);
	assert_int_equal(s.tbf_rate_bps, 0);
	assert_int_equal(s.cpu_quota_pct, 0);
}

static void test_up_rejects_a_bad_spec_before_making_anything(void **state)
{
	struct base_err err = { "" };
	struct topo *t = (struct topo *)&err;
	struct topo_spec s;

	(void)state;
	topo_spec_init(&s);
	s.mtu = 1279;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);
	assert_null(t);
	assert_string_equal(err.msg, "invalid mtu 1279: expected 1280 to 65535");

	topo_spec_init(&s);
	s.mtu = 70000;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid mtu 70000: expected 1280 to 65535");

	topo_spec_init(&s);
	s.gso = 2;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "offload"));

	topo_spec_init(&s);
	s.tbf_rate_bps = 999999;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "invalid tbf rate 999999 bit/s"));

	topo_spec_init(&s);
	s.tbf_rate_bps = TOPO_TBF_MAX_BPS + 1;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);

	topo_spec_init(&s);
	s.cpu_quota_pct = TOPO_CPU_QUOTA_MAX_PCT + 1;
	assert_int_equal(topo_up(&s, &t, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid cpu quota 102401%: expected 1 to 102400");
	assert_null(t);
}

static void test_down_free_detach_accept_null(void **state)
{
	(void)state;
	topo_down(NULL);
	topo_free(NULL);
	topo_detach(NULL);
	assert_int_equal(topo_leave(-1), 0);
}

static void test_tbf_params_burst_is_4ms_or_three_frames(void **state)
{
	uint64_t burst, limit;

	(void)state;
	/* 200 Mbit/s = 25 MB/s: 4 ms is 100000 B, over 3 * 9014 */
	topo_tbf_params(200000000, 9000, &burst, &limit);
	assert_int_equal(burst, 100000);
	assert_int_equal(limit, 100000 + 1250000);
	/* 10 Mbit/s: 4 ms is 5000 B, over 3 * 1514 = 4542 */
	topo_tbf_params(10000000, 1500, &burst, &limit);
	assert_int_equal(burst, 5000);
	assert_int_equal(limit, 5000 + 62500);
	/* 1 Mbit/s, 9000: three frames win */
	topo_tbf_params(1000000, 9000, &burst, &limit);
	assert_int_equal(burst, 27042);
	assert_int_equal(limit, 27042 + 6250);
	/* the largest rate and MTU: tc's 32-bit limit still holds it */
	topo_tbf_params(TOPO_TBF_MAX_BPS, TOPO_MTU_MAX, &burst, &limit);
	assert_int_equal(burst, 200000000);
	assert_true(limit <= UINT32_MAX);
	topo_tbf_params(TOPO_TBF_MIN_BPS, TOPO_MTU_MAX, &burst, &limit);
	assert_int_equal(burst, 3 * (65535 + 14));
	assert_true(burst >= TOPO_MTU_MAX + 14);
}

static void test_parse_rate_takes_tc_units(void **state)
{
	static const struct {
		const char *s;
		uint64_t bps;
	} ok[] = {
		{ "200mbit", 200000000 },   { "200Mbit", 200000000 },
		{ "200M", 200000000 },      { "1.5gbit", 1500000000 },
		{ "1.50kbit", 1500 },       { "800k", 800000 },
		{ "1000000", 1000000 },     { "1000000bit", 1000000 },
		{ "2t", 2000000000000ULL }, { "0.001gbit", 1000000 },
		{ "0", 0 },                 { "007mbit", 7000000 },
		{ "18446744073709551615", UINT64_MAX },
	};
	struct base_err err = { "" };
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		v = 42;
		if (topo_parse_rate_bps(ok[i].s, &v, &err))
			fail_msg("'%s': %s", ok[i].s, err.msg);
		if (v != ok[i].bps)
			fail_msg("'%s' gave %llu", ok[i].s, (unsigned long long)v);
	}
}

static void test_parse_rate_rejects_bad_syntax_fractions_and_overflow(void **state)
{
	static const char *const bad[] = {
		"", "mbit", "1.5", "1.5bit", "1.", ".5m", "1e6", "-1m", "+1m",
		"1 mbit", " 1m", "1m ", "200mbps", "200MB", "200kbps", "1.2.3m",
		"1,5m", "0x10", "1.0001k", "1mbitx",
	};
	struct base_err err = { "" };
	uint64_t v = 42;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (topo_parse_rate_bps(bad[i], &v, &err) != -EINVAL)
			fail_msg("'%s' accepted (%llu)", bad[i], (unsigned long long)v);
	assert_int_equal(v, 42);
	assert_int_equal(topo_parse_rate_bps("200mbps", &v, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid rate '200mbps': expected bits per second with an optional suffix kbit, mbit, gbit or tbit (like 200mbit)");
	assert_int_equal(topo_parse_rate_bps("1.5", &v, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid rate '1.5': not a whole number of bits per second");
	assert_int_equal(topo_parse_rate_bps("18446744073709551616", &v, &err), -ERANGE);
	assert_string_equal(err.msg, "invalid rate '18446744073709551616': too large");
	assert_int_equal(topo_parse_rate_bps("18446744073709552t", &v, &err), -ERANGE);
	assert_int_equal(topo_parse_rate_bps("99999999999999999999999999gbit", &v, &err),
			 -ERANGE);
	/* control characters are not echoed */
	assert_int_equal(topo_parse_rate_bps("1\nm", &v, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'1?m'"));
	assert_int_equal(v, 42);
}

static void test_cg_quota_is_pct_of_a_100ms_period(void **state)
{
	uint64_t q, p;

	(void)state;
	assert_int_equal(topo_cg_quota(25, &q, &p), 0);
	assert_int_equal(q, 25000);
	assert_int_equal(p, 100000);
	assert_int_equal(topo_cg_quota(1, &q, &p), 0);
	assert_int_equal(q, 1000); /* the kernel's minimum quota: 1 ms */
	assert_int_equal(topo_cg_quota(250, &q, &p), 0);
	assert_int_equal(q, 250000);
	assert_int_equal(topo_cg_quota(TOPO_CPU_QUOTA_MAX_PCT, &q, &p), 0);
	assert_int_equal(q, 102400000);
	q = p = 7;
	assert_int_equal(topo_cg_quota(0, &q, &p), -EINVAL);
	assert_int_equal(topo_cg_quota(TOPO_CPU_QUOTA_MAX_PCT + 1, &q, &p), -EINVAL);
	assert_int_equal(q, 7);
}

static void test_cg_probe_prefers_v2_with_cpu(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r;

	(void)state;
	put("cgroup.controllers", "cpuset cpu io memory pids\n");
	mk("cpu");
	put("cpu/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(topo_cg_probe(tmp, &r, &err), 0);
	assert_int_equal(r.version, 2);
	assert_string_equal(r.dir, tmp);
}

static void test_cg_probe_v2_without_cpu_falls_to_v1(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r;
	char want[PATH_MAX];

	(void)state;
	/* "cpuset" is not "cpu" */
	put("cgroup.controllers", "cpuset io memory\n");
	mk("cpu");
	put("cpu/cpu.cfs_quota_us", "-1\n");
	assert_int_equal(topo_cg_probe(tmp, &r, &err), 0);
	assert_int_equal(r.version, 1);
	snprintf(want, sizeof(want), "%s/cpu", tmp);
	assert_string_equal(r.dir, want);
}

static void test_cg_probe_finds_v1_cpu_cpuacct(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r;
	char want[PATH_MAX];

	(void)state;
	mk("cpuacct");
	mk("cpu,cpuacct");
	put("cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
	/* a cpu directory without bandwidth control does not count */
	mk("cpu");
	assert_int_equal(topo_cg_probe(tmp, &r, &err), 0);
	assert_int_equal(r.version, 1);
	snprintf(want, sizeof(want), "%s/cpu,cpuacct", tmp);
	assert_string_equal(r.dir, want);
}

static void test_cg_probe_finds_hybrid_unified_with_cpu(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r;
	char want[PATH_MAX];

	(void)state;
	mk("unified");
	put("unified/cgroup.controllers", "cpu memory\n");
	mk("memory");
	assert_int_equal(topo_cg_probe(tmp, &r, &err), 0);
	assert_int_equal(r.version, 2);
	snprintf(want, sizeof(want), "%s/unified", tmp);
	assert_string_equal(r.dir, want);
}

static void test_cg_probe_without_cpu_controller_is_eopnotsupp(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r;

	(void)state;
	/* this machine's layout, minus the cpu hierarchy */
	mk("unified");
	put("unified/cgroup.controllers", "hugetlb\n");
	mk("memory");
	assert_int_equal(topo_cg_probe(tmp, &r, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "no cgroup cpu controller under '"));
	assert_non_null(strstr(err.msg, tmp));
}

static void test_cg_create_v2_enables_cpu_and_needs_cpu_max(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r = { .version = 2 };
	char path[PATH_MAX], file[PATH_MAX], buf[PATH_MAX] = "";
	bool made = false;
	FILE *f;

	(void)state;
	snprintf(r.dir, sizeof(r.dir), "%s", tmp);
	put("cgroup.subtree_control", "memory\n");
	/* a fake tree has no cpu.max in the new directory */
	assert_int_equal(topo_cg_create(&r, "nr-1-0-s", 25, false, path,
					sizeof(path), &made, &err), -EOPNOTSUPP);
	assert_true(made);
	assert_non_null(strstr(err.msg, "cpu quota unsupported: no '"));
	assert_true(exists("nr-1-0-s"));
	snprintf(buf, sizeof(buf), "%s/nr-1-0-s", tmp);
	assert_string_equal(path, buf);
	/* +cpu went to the parent's subtree_control */
	snprintf(file, sizeof(file), "%s/cgroup.subtree_control", tmp);
	f = fopen(file, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_memory_equal(buf, "+cpu", 4);
	assert_int_equal(topo_cg_remove(path), 0);
	assert_false(exists("nr-1-0-s"));
	/* removing what is gone is fine */
	assert_int_equal(topo_cg_remove(path), 0);
}

static void test_cg_create_v1_reports_made_before_a_later_failure(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root r = { .version = 1 };
	char path[PATH_MAX];
	bool made = false;

	(void)state;
	mk("cpu");
	snprintf(r.dir, sizeof(r.dir), "%s/cpu", tmp);
	assert_int_equal(topo_cg_create(&r, "nr-1-0-s", 25, false, path,
					sizeof(path), &made, &err), -EOPNOTSUPP);
	assert_true(made);
	assert_non_null(strstr(err.msg, "cpu.cfs_quota_us"));
	assert_int_equal(topo_cg_remove(path), 0);

	/* the test hook fails after the mkdir */
	made = false;
	assert_int_equal(topo_cg_create(&r, "nr-1-1-s", 25, true, path,
					sizeof(path), &made, &err), -EIO);
	assert_true(made);
	assert_string_equal(err.msg, "injected failure at step quota");
	assert_int_equal(topo_cg_remove(path), 0);

	/* a bad quota makes nothing */
	made = true;
	assert_int_equal(topo_cg_create(&r, "nr-1-2-s", 0, false, path,
					sizeof(path), &made, &err), -EINVAL);
	assert_false(made);
	assert_false(exists("cpu/nr-1-2-s"));
	/* an existing directory is an error, not adopted */
	mk("cpu/nr-1-3-s");
	assert_int_equal(topo_cg_create(&r, "nr-1-3-s", 25, false, path,
					sizeof(path), &made, &err), -EEXIST);
	assert_false(made);
}

static void test_cg_remove_of_a_non_empty_directory_fails(void **state)
{
	char path[PATH_MAX];

	(void)state;
	mk("cpu/nr-1-0-s");
	put("cpu/nr-1-0-s/other", "x");
	snprintf(path, sizeof(path), "%s/cpu/nr-1-0-s", tmp);
	assert_int_equal(topo_cg_remove(path), -ENOTEMPTY);
}

static void test_netns_remove_takes_plain_and_missing_files(void **state)
{
	char path[PATH_MAX];

	(void)state;
	put("nr-1-0-c", "");
	snprintf(path, sizeof(path), "%s/nr-1-0-c", tmp);
	assert_int_equal(topo_netns_remove(path), 0);
	assert_false(exists("nr-1-0-c"));
	assert_int_equal(topo_netns_remove(path), 0);
}

/* what a walk saw, one "kind name live" line each */
struct seen {
	char text[2048];
	int n;
};

static int record(void *ctx, const struct topo_entry *e)
{
	struct seen *s = ctx;
	size_t off = strlen(s->text);

	snprintf(s->text + off, sizeof(s->text) - off, "%s %s %s\n", e->kind,
		 e->name, e->live ? "live" : "dead");
	s->n++;
	return 0;
}

static int stop_at_first(void *ctx, const struct topo_entry *e)
{
	(void)ctx;
	(void)e;
	return 7;
}

/* A pid no process can have: pids are below pid_max. */
static pid_t dead_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long v = 4194304;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = 4194304;
		fclose(f);
	}
	return (pid_t)v;
}

static void fake_machine(pid_t live, pid_t dead)
{
	char n[64];

	mk("netns");
	mk("cg/cpu");
	put("cg/cpu/cpu.cfs_quota_us", "-1\n");
	snprintf(n, sizeof(n), "netns/nr-%d-0-c", (int)live);
	put(n, "");
	snprintf(n, sizeof(n), "netns/nr-%d-0-s", (int)live);
	put(n, "");
	snprintf(n, sizeof(n), "netns/nr-%d-3-c", (int)dead);
	put(n, "");
	snprintf(n, sizeof(n), "netns/nr-%d-3-s", (int)dead);
	put(n, "");
	put("netns/nrtest-20488-1172", "");
	put("netns/nr-x", "");
	put("netns/other", "");
	mk("cg/cpu/nr-%d-0-s", (int)live);
	mk("cg/cpu/nr-%d-3-s", (int)dead);
	mk("cg/cpu/nr-%d-4-x", (int)dead);
	mk("cg/cpu/system.slice");
	snprintf(n, sizeof(n), "cg/cpu/nr-%d-5-s", (int)dead);
	put(n, ""); /* a file, not a cgroup */
}

static void test_list_finds_exactly_ours_sorted_with_owner_state(void **state)
{
	struct base_err err = { "" };
	struct topo_paths p = { 0 };
	char nsdir[PATH_MAX], cgroot[PATH_MAX], want[1024];
	struct seen s = { "", 0 };
	pid_t live = getpid(), dead = dead_pid();

	(void)state;
	fake_machine(live, dead);
	snprintf(nsdir, sizeof(nsdir), "%s/netns", tmp);
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmp);
	p.netns_dir = nsdir;
	p.cgroup_root = cgroot;
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	/* sorted by name: "nr-<dead>" vs "nr-<live>" compare as strings */
	{
		char a[128], b[128], c[128], d[128];

		snprintf(a, sizeof(a), "netns nr-%d-3-c dead\nnetns nr-%d-3-s dead\n",
			 (int)dead, (int)dead);
		snprintf(b, sizeof(b), "netns nr-%d-0-c live\nnetns nr-%d-0-s live\n",
			 (int)live, (int)live);
		snprintf(c, sizeof(c), "cgroup nr-%d-3-s dead\n", (int)dead);
		snprintf(d, sizeof(d), "cgroup nr-%d-0-s live\n", (int)live);
		snprintf(want, sizeof(want), "%s%s%s%s",
			 strcmp(a, b) < 0 ? a : b, strcmp(a, b) < 0 ? b : a,
			 strcmp(c, d) < 0 ? c : d, strcmp(c, d) < 0 ? d : c);
	}
	assert_string_equal(s.text, want);
	assert_int_equal(s.n, 6);
	/* a non-zero return stops the walk */
	assert_int_equal(topo_list_in(&p, stop_at_first, NULL, &err), 7);
}

static void test_list_of_a_machine_without_netns_or_cgroups_is_empty(void **state)
{
	struct base_err err = { "" };
	struct topo_paths p = { 0 };
	char nsdir[PATH_MAX];
	struct seen s = { "", 0 };

	(void)state;
	snprintf(nsdir, sizeof(nsdir), "%s/missing", tmp);
	p.netns_dir = nsdir;
	p.cgroup_root = nsdir;
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	assert_int_equal(s.n, 0);
}

static void test_down_all_removes_dead_then_all_and_nothing_foreign(void **state)
{
	struct base_err err = { "" };
	struct topo_paths p = { 0 };
	char nsdir[PATH_MAX], cgroot[PATH_MAX];
	struct seen s = { "", 0 };
	pid_t live = getpid(), dead = dead_pid();
	unsigned int removed = 99;

	(void)state;
	fake_machine(live, dead);
	snprintf(nsdir, sizeof(nsdir), "%s/netns", tmp);
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmp);
	p.netns_dir = nsdir;
	p.cgroup_root = cgroot;

	assert_int_equal(topo_down_all_in(&p, true, 0, record, &s, &removed, &err), 0);
	assert_int_equal(removed, 3);
	assert_int_equal(s.n, 3);
	/* cgroups go first */
	assert_memory_equal(s.text, "cgroup ", 7);
	assert_false(exists("netns/nr-%d-3-c", (int)dead));
	assert_false(exists("netns/nr-%d-3-s", (int)dead));
	assert_false(exists("cg/cpu/nr-%d-3-s", (int)dead));
	assert_true(exists("netns/nr-%d-0-c", (int)live));
	assert_true(exists("netns/nr-%d-0-s", (int)live));
	assert_true(exists("cg/cpu/nr-%d-0-s", (int)live));

	/* another owner's only */
	assert_int_equal(topo_down_all_in(&p, false, dead, NULL, NULL, &removed, &err), 0);
	assert_int_equal(removed, 0);
	assert_int_equal(topo_down_all_in(&p, false, live, NULL, NULL, &removed, &err), 0);
	assert_int_equal(removed, 3);
	assert_false(exists("netns/nr-%d-0-c", (int)live));
	assert_false(exists("cg/cpu/nr-%d-0-s", (int)live));
	/* nothing without our exact name pattern was touched */
	assert_true(exists("netns/nrtest-20488-1172"));
	assert_true(exists("netns/nr-x"));
	assert_true(exists("netns/other"));
	assert_true(exists("cg/cpu/nr-%d-4-x", (int)dead));
	assert_true(exists("cg/cpu/nr-%d-5-s", (int)dead));
	assert_true(exists("cg/cpu/system.slice"));
	assert_true(exists("cg/cpu/cpu.cfs_quota_us"));

	assert_int_equal(topo_down_all_in(&p, false, 0, NULL, NULL, &removed, &err), 0);
	assert_int_equal(removed, 0);
}

static void test_down_all_tries_everything_and_reports_the_first_error(void **state)
{
	struct base_err err = { "" };
	struct topo_paths p = { 0 };
	char nsdir[PATH_MAX], cgroot[PATH_MAX], n[64];
	unsigned int removed = 0;
	pid_t dead = dead_pid();

	(void)state;
	mk("netns");
	mk("cg/cpu");
	put("cg/cpu/cpu.cfs_quota_us", "-1\n");
	mk("cg/cpu/nr-%d-1-s", (int)dead);
	snprintf(n, sizeof(n), "cg/cpu/nr-%d-1-s/stray", (int)dead);
	put(n, ""); /* rmdir: not empty */
	snprintf(n, sizeof(n), "netns/nr-%d-1-c", (int)dead);
	put(n, "");
	snprintf(nsdir, sizeof(nsdir), "%s/netns", tmp);
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmp);
	p.netns_dir = nsdir;
	p.cgroup_root = cgroot;
	assert_int_equal(topo_down_all_in(&p, true, 0, NULL, NULL, &removed, &err),
			 -ENOTEMPTY);
	assert_int_equal(removed, 1);
	assert_non_null(strstr(err.msg, "cannot remove cgroup '"));
	assert_false(exists("netns/nr-%d-1-c", (int)dead));
}

static void test_pid_live(void **state)
{
	(void)state;
	assert_true(topo_pid_live(getpid()));
	assert_true(topo_pid_live(1)); /* EPERM or not, it exists */
	assert_false(topo_pid_live(dead_pid()));
	assert_false(topo_pid_live(0));
	assert_false(topo_pid_live(-1));
}

static void test_run_succeeds_on_exit_0(void **state)
{
	const char *argv[] = { "true", NULL };
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(topo_run(argv, &err), 0);
	assert_string_equal(err.msg, "");
}

static void test_run_names_the_command_and_its_output_on_failure(void **state)
{
	const char *argv[] = { "sh", "-c", "echo out; echo 'err line' >&2; exit 3",
			       NULL };
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(topo_run(argv, &err), -EIO);
	assert_string_equal(err.msg,
			    "'sh -c echo out; echo 'err line' >&2; exit 3' failed (exit 3): out; err line");
}

static void test_run_reports_a_missing_program_and_a_signal(void **state)
{
	const char *missing[] = { "nr-no-such-program-here", "x", NULL };
	const char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(topo_run(missing, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "cannot run 'nr-no-such-program-here x'"));
	assert_int_equal(topo_run(killed, &err), -EIO);
	assert_non_null(strstr(err.msg, "killed by signal 9"));
}

static void test_run_puts_the_child_in_its_own_process_group(void **state)
{
	/* field 5 of /proc/<pid>/stat is the process group */
	const char *argv[] = {
		"sh", "-c",
		"set -- $(cat /proc/$$/stat); [ \"$5\" = \"$$\" ] && [ \"$5\" != \"$PPGRP\" ]",
		NULL
	};
	struct base_err err = { "" };
	char pg[24];

	(void)state;
	snprintf(pg, sizeof(pg), "%d", (int)getpgrp());
	setenv("PPGRP", pg, 1);
	if (topo_run(argv, &err))
		fail_msg("%s", err.msg);
	unsetenv("PPGRP");
}

static void test_run_drains_long_output_and_keeps_the_start(void **state)
{
	const char *argv[] = { "sh", "-c", "i=0; while [ $i -lt 3000 ]; do echo line$i; i=$((i+1)); done; exit 1",
			       NULL };
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(topo_run(argv, &err), -EIO);
	assert_non_null(strstr(err.msg, "failed (exit 1): line0; line1; line2"));
	assert_null(strstr(err.msg, "line2999"));
}

static void test_run_gives_stdin_dev_null(void **state)
{
	/* read would block on a terminal or pipe; /dev/null gives EOF */
	const char *argv[] = { "sh", "-c", "read x; [ -z \"$x\" ]", NULL };
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(topo_run(argv, &err), 0);
}

/*
 * Live: a real topology (root and iproute2 needed, skipped otherwise).
 * What the job runner relies on: threads enter a side and back, threads
 * they create inherit it, a socket from each side connects over the veth,
 * a process moves into the server cgroup, and nothing stays after
 * topo_free() or a failed topo_up().
 */
/* freed by the teardown too, so that a failed assertion leaves nothing */
static struct topo *live;

static int teardown_live(void **state)
{
	(void)state;
	topo_free(live);
	live = NULL;
	return 0;
}

static bool can_make_topologies(void)
{
	const char *argv[] = { "ip", "-V", NULL };

	return geteuid() == 0 && !topo_run(argv, NULL) &&
	       !access("/proc/thread-self/ns/net", R_OK);
}

/* whether this thread's namespace has the interface */
static bool sees(const char *ifname)
{
	char line[256];
	bool found = false;
	FILE *f = fopen("/proc/thread-self/net/dev", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, ifname))
			found = true;
	fclose(f);
	return found;
}

static void *sees_client_end(void *arg)
{
	(void)arg;
	return sees("nr-veth-c") ? (void *)1 : NULL;
}

/* names of ours with this process's pid under /run/netns */
/* Our namespaces and owner records on the machine. */
static int own_netns_count(void)
{
	char prefix[32], path[PATH_MAX];
	int n = 0;

	snprintf(prefix, sizeof(prefix), "nr-%d-", (int)getpid());
	for (unsigned int i = 0; i < 64; i++) {
		for (int side = 0; side < 2; side++) {
			snprintf(path, sizeof(path), "/run/netns/%s%u-%c", prefix, i,
				 side ? 's' : 'c');
			n += !access(path, F_OK);
		}
		snprintf(path, sizeof(path), "/run/netregress/topo-%d-%u", (int)getpid(), i);
		n += !access(path, F_OK);
	}
	return n;
}

static void test_live_up_enter_connect_prepare_free(void **state)
{
	struct base_err err = { "" };
	struct topo_cg_root cg;
	struct topo_spec s;
	struct topo *t;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char nspath[2][PATH_MAX], cgdir[PATH_MAX] = "", file[PATH_MAX], owner[PATH_MAX];
	int saved = -1, lfd, cfd, afd, pfd[2];
	pthread_t th;
	void *seen = NULL;
	pid_t pid, child;
	unsigned int seq;

	(void)state;
	if (!can_make_topologies())
		skip();
	topo_spec_init(&s);
	s.mtu = 9000;
	s.tbf_rate_bps = 100000000;
	if (!topo_cg_probe("/sys/fs/cgroup", &cg, NULL))
		s.cpu_quota_pct = 50;
	if (topo_up(&s, &live, &err))
		fail_msg("topo_up: %s", err.msg);
	t = live;
	assert_int_equal(topo_name_parse(topo_netns(t, TOPO_CLIENT), &pid, &seq, NULL), 0);
	assert_int_equal(pid, getpid());
	/* its owner record says when this process started */
	{
		char text[512];
		unsigned long long start;

		snprintf(owner, sizeof(owner), "/run/netregress/topo-%d-%u", (int)pid, seq);
		assert_int_equal(topo_read_small(owner, text, sizeof(text)), 0);
		assert_int_equal(topo_pid_starttime(pid, &start), 0);
		snprintf(file, sizeof(file), "# pid %d started %llu clock ticks after boot\n",
			 (int)pid, start);
		assert_non_null(strstr(text, file));
		assert_true(topo_writer_live(pid, text));
	}
	for (int side = 0; side < 2; side++) {
		snprintf(nspath[side], sizeof(nspath[side]), "%s", topo_netns_path(t, side));
		assert_int_equal(access(nspath[side], F_OK), 0);
	}
	assert_string_equal(topo_addr(t, TOPO_SERVER, 4), "198.18.0.2");
	assert_string_equal(topo_addr(t, TOPO_CLIENT, 4), "198.18.0.1");
	assert_null(topo_addr(t, TOPO_SERVER, 5));
	assert_string_equal(topo_ifname(t, TOPO_SERVER), "nr-veth-s");
	assert_false(sees("nr-veth-c"));

	/* a listener in the server namespace */
	if (topo_enter(t, TOPO_SERVER, &saved, &err))
		fail_msg("enter: %s", err.msg);
	assert_true(sees("nr-veth-s"));
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(lfd >= 0);
	inet_pton(AF_INET, "198.18.0.2", &sa.sin_addr);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 4), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	assert_int_equal(topo_leave(saved), 0);
	assert_false(sees("nr-veth-s"));

	/* the client side connects to it; its threads are there too */
	if (topo_enter(t, TOPO_CLIENT, &saved, &err))
		fail_msg("enter: %s", err.msg);
	assert_true(sees("nr-veth-c"));
	assert_int_equal(pthread_create(&th, NULL, sees_client_end, NULL), 0);
	pthread_join(th, &seen);
	assert_non_null(seen);
	cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(topo_leave(saved), 0);
	assert_false(sees("nr-veth-c"));
	afd = accept(lfd, NULL, NULL);
	assert_true(afd >= 0);
	assert_int_equal(write(cfd, "x", 1), 1);
	{
		char c = 0;

		assert_int_equal(read(afd, &c, 1), 1);
		assert_int_equal(c, 'x');
	}
	close(afd);
	close(cfd);
	close(lfd);

	/* a process moves into the server cgroup */
	if (topo_cgroup(t)) {
		snprintf(cgdir, sizeof(cgdir), "%s", topo_cgroup(t));
		assert_int_equal(pipe(pfd), 0);
		child = fork();
		assert_true(child >= 0);
		if (child == 0) {
			char c;

			close(pfd[1]);
			_exit(read(pfd[0], &c, 1) < 0);
		}
		close(pfd[0]);
		if (topo_server_prepare(t, child, &err))
			fail_msg("prepare: %s", err.msg);
		snprintf(file, sizeof(file), "%s/cgroup.procs", cgdir);
		{
			FILE *f = fopen(file, "r");
			long v = 0;

			assert_non_null(f);
			assert_int_equal(fscanf(f, "%ld", &v), 1);
			fclose(f);
			assert_int_equal(v, child);
		}
		close(pfd[1]); /* the child exits */
		waitpid(child, NULL, 0);
	} else {
		assert_int_equal(topo_server_prepare(t, 0, &err), 0);
	}

	topo_free(t);
	live = NULL;
	for (int side = 0; side < 2; side++)
		assert_int_equal(access(nspath[side], F_OK), -1);
	if (cgdir[0])
		assert_int_equal(access(cgdir, F_OK), -1);
	assert_int_equal(access(owner, F_OK), -1);
}

static void test_live_a_failed_up_leaves_nothing(void **state)
{
	struct base_err err = { "" };
	struct topo_spec s;
	struct topo *t;
	int before;

	(void)state;
	if (!can_make_topologies())
		skip();
	before = own_netns_count();
	topo_spec_init(&s);
	s.tbf_rate_bps = 100000000;
	setenv("NETREGRESS_TOPO_FAIL_AT", "tbf", 1);
	assert_int_equal(topo_up(&s, &live, &err), -EIO);
	unsetenv("NETREGRESS_TOPO_FAIL_AT");
	assert_null(live);
	assert_string_equal(err.msg, "injected failure at step tbf");
	assert_int_equal(own_netns_count(), before);

	/* topo_down is idempotent and keeps the handle usable */
	assert_int_equal(topo_up(NULL, &live, &err), 0);
	t = live;
	topo_down(t);
	topo_down(t);
	assert_int_equal(access(topo_netns_path(t, TOPO_SERVER), F_OK), -1);
	assert_string_equal(topo_addr(t, TOPO_SERVER, 4), "198.18.0.2");
	topo_free(t);
	live = NULL;
	assert_int_equal(own_netns_count(), before);
}

/* read tmp/<rel> whole */
static void get(const char *rel, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", tmp, rel);
	f = fopen(path, "r");
	if (!f)
		fail_msg("fopen %s: %s", path, strerror(errno));
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A fake /proc/sys at tmp and the journals in tmp/journal (jdir gets
 * the path; NULL: no journals). */
static struct topo_paths sys_paths(char *jdir, size_t len)
{
	struct topo_paths p = { 0 };

	p.sysctl_root = tmp;
	if (jdir) {
		snprintf(jdir, len, "%s/journal", tmp);
		p.journal_dir = jdir;
	}
	return p;
}

/* The fake tree's net/core and net/ipv4, with tcp_rmem as the kernel
 * writes it (its words apart with tabs). */
static void sys_tree(void)
{
	mk("net/core");
	mk("net/ipv4");
	put("net/ipv4/tcp_rmem", "4096\t131072\t6291456\n");
}

static void test_sysctls_read_set_and_put_back(void **state)
{
	static const char *const names[] = { "net.core.rmem_default", "net.ipv4.tcp_rmem" };
	const char *small[] = { "65536", NULL };
	const char *vec[] = { NULL, "4096  8192\t8192" };
	struct topo_paths p = sys_paths(NULL, 0);
	struct base_err err = { "" };
	struct topo_sysctls *t = NULL;
	char buf[256];

	(void)state;
	sys_tree();
	put("net/core/rmem_default", "212992\n");
	if (topo_sysctls_new_in(&p, names, 2, &t, &err))
		fail_msg("new: %s", err.msg);
	assert_int_equal(topo_sysctls_count(t), 2);
	assert_string_equal(topo_sysctls_name(t, 1), "net.ipv4.tcp_rmem");
	/* blanks squeezed: the kernel writes a vector's words apart with tabs */
	assert_string_equal(topo_sysctls_original(t, 0), "212992");
	assert_string_equal(topo_sysctls_original(t, 1), "4096 131072 6291456");
	assert_int_equal(topo_sysctls_apply(t, small, &err), 0);
	get("net/core/rmem_default", buf, sizeof(buf));
	assert_string_equal(buf, "65536");
	get("net/ipv4/tcp_rmem", buf, sizeof(buf));
	assert_string_equal(buf, "4096\t131072\t6291456\n"); /* not written: it was right */
	/* NULL: back to the original, and the other one set */
	assert_int_equal(topo_sysctls_apply(t, vec, &err), 0);
	get("net/core/rmem_default", buf, sizeof(buf));
	assert_string_equal(buf, "212992");
	get("net/ipv4/tcp_rmem", buf, sizeof(buf));
	assert_string_equal(buf, "4096 8192 8192");
	assert_int_equal(topo_sysctls_restore(t, &err), 0);
	get("net/ipv4/tcp_rmem", buf, sizeof(buf));
	assert_string_equal(buf, "4096 131072 6291456");
	topo_sysctls_free(t);
	assert_int_equal(topo_sysctls_restore(NULL, &err), 0);
	topo_sysctls_free(NULL);
}

static void test_sysctls_refuse_missing_bad_and_twice_named(void **state)
{
	static const char *const missing[] = { "net.core.no_such" };
	static const char *const notnet[] = { "kernel.panic" };
	static const char *const twice[] = { "net.core.a", "net.core.a" };
	struct topo_paths p = sys_paths(NULL, 0);
	struct base_err err = { "" };
	struct topo_sysctls *t = (struct topo_sysctls *)&err;
	char want[PATH_MAX + 128];

	(void)state;
	mk("net/core");
	put("net/core/a", "1\n");
	assert_int_equal(topo_sysctls_new_in(&p, missing, 1, &t, &err), -ENOENT);
	assert_null(t);
	snprintf(want, sizeof(want),
		 "no sysctl net.core.no_such (%s/net/core/no_such): this kernel does not have it", tmp);
	assert_string_equal(err.msg, want);
	assert_int_equal(topo_sysctls_new_in(&p, notnet, 1, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "invalid sysctl name 'kernel.panic'"));
	assert_int_equal(topo_sysctls_new_in(&p, twice, 2, &t, &err), -EINVAL);
	assert_string_equal(err.msg, "sysctl net.core.a is named twice");
	assert_null(t);
}

/* In one of our namespaces: a name it has no file for is the machine's,
 * left out; the rest in order, and no journal (the namespace takes its
 * values with it). A bad name is still refused. */
static void test_sysctls_netns_leave_out_what_the_namespace_lacks(void **state)
{
	static const char *const names[] = { "net.core.rmem_default", "net.ipv4.tcp_rmem",
					     "net.core.somaxconn" };
	static const char *const notnet[] = { "kernel.panic" };
	const char *small[] = { "4096 8192 8192", "128" };
	char jdir[PATH_MAX];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	struct base_err err = { "" };
	struct topo_sysctls *t = NULL;
	char buf[256];

	(void)state;
	sys_tree();
	put("net/core/somaxconn", "4096\n");
	if (topo_sysctls_new_netns_in(&p, names, 3, &t, &err))
		fail_msg("new: %s", err.msg);
	assert_int_equal(topo_sysctls_count(t), 2);
	assert_string_equal(topo_sysctls_name(t, 0), "net.ipv4.tcp_rmem");
	assert_string_equal(topo_sysctls_name(t, 1), "net.core.somaxconn");
	assert_string_equal(topo_sysctls_original(t, 0), "4096 131072 6291456");
	assert_null(topo_sysctls_journal(t));
	assert_false(exists("journal"));
	assert_int_equal(topo_sysctls_apply(t, small, &err), 0);
	get("net/core/somaxconn", buf, sizeof(buf));
	assert_string_equal(buf, "128");
	topo_sysctls_free(t);
	/* none of them here: an empty set */
	assert_int_equal(topo_sysctls_new_netns_in(&p, names, 1, &t, &err), 0);
	assert_int_equal(topo_sysctls_count(t), 0);
	topo_sysctls_free(t);
	t = (struct topo_sysctls *)&err;
	assert_int_equal(topo_sysctls_new_netns_in(&p, notnet, 1, &t, &err), -EINVAL);
	assert_null(t);
}

/* Integer words compare as integers: "08192" is the value 8192 already
 * holds (nothing written), "8193" is another. */
static void test_sysctls_compare_integer_words_as_integers(void **state)
{
	static const char *const names[] = { "net.core.a" };
	const char *same[] = { "08192" }, *other[] = { "8193" };
	struct topo_paths p = sys_paths(NULL, 0);
	struct base_err err = { "" };
	struct topo_sysctls *t = NULL;
	char buf[64];

	(void)state;
	mk("net/core");
	put("net/core/a", "8192\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), 0);
	assert_int_equal(topo_sysctls_apply(t, same, &err), 0);
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "8192\n"); /* the same value: not written */
	assert_int_equal(topo_sysctls_apply(t, other, &err), 0);
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "8193");
	assert_int_equal(topo_sysctls_restore(t, &err), 0);
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "8192");
	topo_sysctls_free(t);
}

/* A journal file of pid's under tmp/journal. */
static void put_journal(pid_t pid, const char *content)
{
	char rel[64];

	mk("journal");
	snprintf(rel, sizeof(rel), "journal/sysctl-%d", (int)pid);
	put(rel, content);
}

/* The journal holds the originals from new() until they hold again: a
 * SIGKILL between apply() and restore() leaves it for `topo down`. */
static void test_sysctls_journal_kept_while_a_value_may_be_the_jobs(void **state)
{
	static const char *const names[] = { "net.core.a", "net.ipv4.v" };
	const char *set[] = { "65536", NULL };
	struct base_err err = { "" };
	struct topo_sysctls *t = NULL;
	char jdir[PATH_MAX], buf[512], want[PATH_MAX + 64];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	int pid = (int)getpid();

	(void)state;
	mk("net/core");
	mk("net/ipv4");
	put("net/core/a", "8192\n");
	put("net/ipv4/v", "4096\t87380\t6291456\n");
	/* made with the journal directory; named by our pid */
	if (topo_sysctls_new_in(&p, names, 2, &t, &err))
		fail_msg("new: %s", err.msg);
	snprintf(want, sizeof(want), "%s/sysctl-%d", jdir, pid);
	assert_string_equal(topo_sysctls_journal(t), want);
	snprintf(want, sizeof(want), "journal/sysctl-%d", pid);
	get(want, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\nnet.core.a 8192\nnet.ipv4.v 4096 87380 6291456\n"));
	assert_int_equal(buf[0], '#');
	/* and when its writer started, in the clock of /proc/<pid>/stat */
	{
		unsigned long long st;
		char line[96];

		assert_int_equal(topo_pid_starttime(pid, &st), 0);
		snprintf(line, sizeof(line), "\n# pid %d started %llu clock ticks after boot\n", pid, st);
		assert_non_null(strstr(buf, line));
	}
	assert_false(exists("journal/.sysctl-%d.tmp", pid));
	/* nothing written: freed, the journal goes */
	topo_sysctls_free(t);
	assert_false(exists("journal/sysctl-%d", pid));

	/* written and put back: it goes */
	assert_int_equal(topo_sysctls_new_in(&p, names, 2, &t, &err), 0);
	assert_int_equal(topo_sysctls_apply(t, set, &err), 0);
	assert_int_equal(topo_sysctls_restore(t, &err), 0);
	topo_sysctls_free(t);
	assert_false(exists("journal/sysctl-%d", pid));

	/* written, not put back (as if killed): it stays */
	assert_int_equal(topo_sysctls_new_in(&p, names, 2, &t, &err), 0);
	assert_int_equal(topo_sysctls_apply(t, set, &err), 0);
	topo_sysctls_free(t);
	assert_true(exists("journal/sysctl-%d", pid));
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "65536");
}

/* Another process's journal: a running one holds its sysctls; one that
 * ended holds them only while a value is not the original it recorded. */
static void test_sysctls_refuse_what_another_journal_holds(void **state)
{
	static const char *const names[] = { "net.core.a" };
	static const char *const other[] = { "net.core.b" };
	struct base_err err = { "" };
	struct topo_sysctls *t = (struct topo_sysctls *)&err;
	char jdir[PATH_MAX], want[PATH_MAX + 256];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	pid_t dead = dead_pid();

	(void)state;
	mk("net/core");
	put("net/core/a", "65536\n");
	put("net/core/b", "1\n");
	put_journal(dead, "# comment\nnet.core.a 8192\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), -EBUSY);
	assert_null(t);
	snprintf(want, sizeof(want),
		 "sysctl net.core.a is '65536', not '8192' as before netregress pid %d set it; that process ended without putting it back: 'netregress topo down' does (its journal: %s/sysctl-%d)",
		 (int)dead, jdir, (int)dead);
	assert_string_equal(err.msg, want);
	assert_false(exists("journal/sysctl-%d", (int)getpid()));
	/* a sysctl it does not name is free */
	assert_int_equal(topo_sysctls_new_in(&p, other, 1, &t, &err), 0);
	topo_sysctls_free(t);
	/* its value back at the original: the journal is stale, not a reason */
	put("net/core/a", "8192\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), 0);
	topo_sysctls_free(t);
	/* a process still running (pid 1) holds it, whatever the value */
	put_journal(1, "net.core.a 8192\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), -EBUSY);
	assert_non_null(strstr(err.msg, "sysctl net.core.a is set by netregress pid 1, still running"));
	/* a journal that is not one of ours: refused, naming file and line */
	put_journal(1, "net.core.b 1\nnet.core.a\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), -EINVAL);
	snprintf(want, sizeof(want),
		 "sysctl journal %s/sysctl-1, line 2: expected '<sysctl> <value>'", jdir);
	assert_string_equal(err.msg, want);
	put_journal(1, "net.core.a 8192");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 1: cut short (no newline)"));
	put_journal(1, "kernel.panic 1\n");
	assert_int_equal(topo_sysctls_new_in(&p, names, 1, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 1: invalid sysctl name 'kernel.panic'"));
}

static void test_down_puts_back_what_ended_jobs_left(void **state)
{
	struct base_err err = { "" };
	char jdir[PATH_MAX], missing[PATH_MAX], buf[256], want[PATH_MAX + 128];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	struct seen s = { "", 0 };
	unsigned int n = 99;
	pid_t dead = dead_pid();

	(void)state;
	snprintf(missing, sizeof(missing), "%s/missing", tmp);
	p.netns_dir = missing;
	p.cgroup_root = missing;
	mk("net/core");
	mk("net/ipv4");
	put("net/core/a", "65536\n");
	put("net/ipv4/v", "8192\n");
	put("net/core/b", "3\n");
	put_journal(dead, "# comment\nnet.core.a 8192\nnet.ipv4.v 8192\n");
	put_journal(1, "net.core.b 1\n");           /* running: kept */
	/* above pid_max: ended too */
	put_journal(dead + 1, "net.core.gone 1\n"); /* no such sysctl now */
	put_journal(dead + 2, "junk\n");            /* not a journal */
	mk("net/core/dir");
	put_journal(dead + 3, "net.core.dir 1\n");  /* cannot be read */
	put("journal/sysctl-0012", "net.core.b 1\n"); /* not our name */

	/* sorted by name, the bad one reported after the others are listed */
	assert_int_equal(topo_list_in(&p, record, &s, &err), -EINVAL);
	assert_string_equal(s.text, "sysctl net.core.b live\nsysctl net.core.a dead\n"
				    "sysctl net.ipv4.v dead\nsysctl net.core.gone dead\n"
				    "sysctl net.core.dir dead\n");
	snprintf(want, sizeof(want), "sysctl journal %s/sysctl-%d, line 1: expected '<sysctl> <value>'",
		 jdir, (int)dead + 2);
	assert_string_equal(err.msg, want);

	s.text[0] = '\0';
	s.n = 0;
	assert_int_equal(topo_down_all_in(&p, true, 0, record, &s, &n, &err), -EINVAL);
	/* the first error, after trying everything */
	assert_non_null(strstr(err.msg, "line 1: expected '<sysctl> <value>'"));
	/* a sysctl the kernel no longer has: nothing left to put back */
	assert_int_equal(n, 3);
	assert_string_equal(s.text, "sysctl net.core.a dead\nsysctl net.ipv4.v dead\n"
				    "sysctl net.core.gone dead\n");
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "8192");
	get("net/ipv4/v", buf, sizeof(buf));
	assert_string_equal(buf, "8192\n"); /* right already: not written */
	assert_false(exists("journal/sysctl-%d", (int)dead));
	assert_false(exists("journal/sysctl-%d", (int)dead + 1));
	assert_true(exists("journal/sysctl-%d", (int)dead + 2));
	/* one that could not be put back keeps its journal */
	assert_true(exists("journal/sysctl-%d", (int)dead + 3));
	assert_true(exists("journal/sysctl-1"));
	assert_true(exists("journal/sysctl-0012"));
	get("net/core/b", buf, sizeof(buf));
	assert_string_equal(buf, "3\n");

	/* --owner 1 --all: the running one's too */
	assert_int_equal(topo_down_all_in(&p, false, 1, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 1);
	get("net/core/b", buf, sizeof(buf));
	assert_string_equal(buf, "1");
	assert_false(exists("journal/sysctl-1"));
	assert_true(exists("journal/sysctl-0012"));
}

/* A journal records when its writer started: a process with the pid and
 * another start is not the writer (the writer ended, its pid went on). */
static void test_journal_of_a_pid_used_again_is_dead(void **state)
{
	struct base_err err = { "" };
	char jdir[PATH_MAX], missing[PATH_MAX], text[256], buf[64];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	unsigned long long ours, init;
	struct seen s = { "", 0 };
	unsigned int n = 0;

	(void)state;
	snprintf(missing, sizeof(missing), "%s/missing", tmp);
	p.netns_dir = missing;
	p.cgroup_root = missing;
	mk("net/core");
	put("net/core/a", "65536\n");
	assert_int_equal(topo_pid_starttime(getpid(), &ours), 0);
	assert_int_equal(topo_pid_starttime(1, &init), 0);
	assert_true(init <= ours);
	assert_int_equal(topo_pid_starttime(dead_pid(), &init), -ENOENT);

	/* written by this very process: running */
	snprintf(text, sizeof(text), "# pid %d started %llu clock ticks after boot\nnet.core.a 8192\n",
		 (int)getpid(), ours);
	put_journal(getpid(), text);
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	assert_string_equal(s.text, "sysctl net.core.a live\n");
	/* without the line (an older build's journal): its pid's while it runs */
	put_journal(getpid(), "net.core.a 8192\n");
	s.text[0] = '\0';
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	assert_string_equal(s.text, "sysctl net.core.a live\n");
	assert_int_equal(topo_down_all_in(&p, true, 0, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);

	/* by a process with our pid that started a tick earlier: ended */
	snprintf(text, sizeof(text), "# pid %d started %llu clock ticks after boot\nnet.core.a 8192\n",
		 (int)getpid(), ours - 1);
	put_journal(getpid(), text);
	s.text[0] = '\0';
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	assert_string_equal(s.text, "sysctl net.core.a dead\n");
	/* topo down's only-dead puts it back and removes the journal */
	s.text[0] = '\0';
	assert_int_equal(topo_down_all_in(&p, true, 0, record, &s, &n, &err), 0);
	assert_int_equal(n, 1);
	get("net/core/a", buf, sizeof(buf));
	assert_string_equal(buf, "8192");
	assert_false(exists("journal/sysctl-%d", (int)getpid()));
}

/* A topology's owner record says when its maker started: names with our
 * pid but another start are a crashed process's, whose pid went on. */
static void test_names_of_a_pid_used_again_are_dead(void **state)
{
	struct base_err err = { "" };
	char jdir[PATH_MAX], nsdir[PATH_MAX], cgroot[PATH_MAX], text[256], want[256];
	struct topo_paths p = sys_paths(jdir, sizeof(jdir));
	pid_t me = getpid(), dead = dead_pid();
	unsigned long long ours;
	struct seen s = { "", 0 };
	unsigned int n = 0;

	(void)state;
	mk("netns");
	mk("journal");
	mk("cg/cpu");
	put("cg/cpu/cpu.cfs_quota_us", "-1\n");
	snprintf(nsdir, sizeof(nsdir), "%s/netns", tmp);
	snprintf(cgroot, sizeof(cgroot), "%s/cg", tmp);
	p.netns_dir = nsdir;
	p.cgroup_root = cgroot;
	assert_int_equal(topo_pid_starttime(me, &ours), 0);
	snprintf(text, sizeof(text), "netns/nr-%d-4-c", (int)me);
	put(text, "");
	snprintf(text, sizeof(text), "netns/nr-%d-4-s", (int)me);
	put(text, "");
	mk("cg/cpu/nr-%d-4-s", (int)me);

	/* no record (an older build's names): our pid's while we run */
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	snprintf(want, sizeof(want), "netns nr-%d-4-c live\nnetns nr-%d-4-s live\ncgroup nr-%d-4-s live\n",
		 (int)me, (int)me, (int)me);
	assert_string_equal(s.text, want);

	/* a record with our start: ours, and only-dead keeps it all */
	snprintf(text, sizeof(text), "# netregress pid %d made them\n# pid %d started %llu clock ticks after boot\n",
		 (int)me, (int)me, ours);
	snprintf(want, sizeof(want), "journal/topo-%d-4", (int)me);
	put(want, text);
	s.text[0] = '\0';
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	assert_non_null(strstr(s.text, "cgroup nr-"));
	assert_null(strstr(s.text, "dead"));
	assert_int_equal(topo_down_all_in(&p, true, 0, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_true(exists("journal/topo-%d-4", (int)me));

	/* the same pid, a start a tick earlier: a crashed maker's, removed
	 * with its record */
	snprintf(text, sizeof(text), "# pid %d started %llu clock ticks after boot\n", (int)me,
		 ours - 1);
	put(want, text);
	s.text[0] = '\0';
	assert_int_equal(topo_list_in(&p, record, &s, &err), 0);
	snprintf(want, sizeof(want), "netns nr-%d-4-c dead\nnetns nr-%d-4-s dead\ncgroup nr-%d-4-s dead\n",
		 (int)me, (int)me, (int)me);
	assert_string_equal(s.text, want);
	assert_int_equal(topo_down_all_in(&p, true, 0, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_false(exists("netns/nr-%d-4-c", (int)me));
	assert_false(exists("cg/cpu/nr-%d-4-s", (int)me));
	assert_false(exists("journal/topo-%d-4", (int)me));

	/* records that speak for nothing: an ended owner's goes, a running
	 * one's (between its record and its first namespace) stays, and
	 * names not exactly ours are not touched */
	snprintf(text, sizeof(text), "journal/topo-%d-0", (int)dead);
	put(text, "# pid 1 started 1 clock ticks after boot\n");
	snprintf(text, sizeof(text), "journal/topo-%d-1", (int)me);
	put(text, "");
	put("journal/topo-01-1", "");
	put("journal/topo-5", "");
	assert_int_equal(topo_down_all_in(&p, true, 0, NULL, NULL, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_false(exists("journal/topo-%d-0", (int)dead));
	assert_true(exists("journal/topo-%d-1", (int)me));
	assert_true(exists("journal/topo-01-1"));
	assert_true(exists("journal/topo-5"));
	/* only another owner's: ours stays; all of ours: it goes */
	assert_int_equal(topo_down_all_in(&p, false, dead, NULL, NULL, &n, &err), 0);
	assert_true(exists("journal/topo-%d-1", (int)me));
	assert_int_equal(topo_down_all_in(&p, false, me, NULL, NULL, &n, &err), 0);
	assert_false(exists("journal/topo-%d-1", (int)me));
}

#define T(f) cmocka_unit_test(f)
#define TT(f) cmocka_unit_test_setup_teardown(f, setup_tmp, teardown_tmp)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_name_format_and_parse_round_trip),
		T(test_name_format_rejects_bad_pid_and_short_buffer),
		T(test_name_parse_rejects_everything_not_exactly_ours),
		T(test_spec_init_gives_1500_and_device_defaults),
		T(test_up_rejects_a_bad_spec_before_making_anything),
		T(test_down_free_detach_accept_null),
		T(test_tbf_params_burst_is_4ms_or_three_frames),
		T(test_parse_rate_takes_tc_units),
		T(test_parse_rate_rejects_bad_syntax_fractions_and_overflow),
		T(test_cg_quota_is_pct_of_a_100ms_period),
		TT(test_sysctls_read_set_and_put_back),
		TT(test_sysctls_refuse_missing_bad_and_twice_named),
		TT(test_sysctls_netns_leave_out_what_the_namespace_lacks),
		TT(test_sysctls_compare_integer_words_as_integers),
		TT(test_sysctls_journal_kept_while_a_value_may_be_the_jobs),
		TT(test_sysctls_refuse_what_another_journal_holds),
		TT(test_down_puts_back_what_ended_jobs_left),
		TT(test_cg_probe_prefers_v2_with_cpu),
		TT(test_cg_probe_v2_without_cpu_falls_to_v1),
		TT(test_cg_probe_finds_v1_cpu_cpuacct),
		TT(test_cg_probe_finds_hybrid_unified_with_cpu),
		TT(test_cg_probe_without_cpu_controller_is_eopnotsupp),
		TT(test_cg_create_v2_enables_cpu_and_needs_cpu_max),
		TT(test_cg_create_v1_reports_made_before_a_later_failure),
		TT(test_cg_remove_of_a_non_empty_directory_fails),
		TT(test_netns_remove_takes_plain_and_missing_files),
		TT(test_list_finds_exactly_ours_sorted_with_owner_state),
		TT(test_list_of_a_machine_without_netns_or_cgroups_is_empty),
		TT(test_down_all_removes_dead_then_all_and_nothing_foreign),
		TT(test_down_all_tries_everything_and_reports_the_first_error),
		T(test_pid_live),
		TT(test_journal_of_a_pid_used_again_is_dead),
		TT(test_names_of_a_pid_used_again_are_dead),
		T(test_run_succeeds_on_exit_0),
		T(test_run_names_the_command_and_its_output_on_failure),
		T(test_run_reports_a_missing_program_and_a_signal),
		T(test_run_puts_the_child_in_its_own_process_group),
		T(test_run_drains_long_output_and_keeps_the_start),
		T(test_run_gives_stdin_dev_null),
		cmocka_unit_test_teardown(test_live_up_enter_connect_prepare_free,
					  teardown_live),
		cmocka_unit_test_teardown(test_live_a_failed_up_leaves_nothing,
					  teardown_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
