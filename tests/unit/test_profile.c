// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for collect/ksyms and collect/profile: fake and real rings. */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/parse.h"
#include "base/time.h"
#include "collect/ksyms.h"
#include "collect/perf.h"
#include "collect/profile.h"

/*
 * Fixtures in tests/data (NR_TEST_DATA overrides the folder):
 *   kallsyms-excerpt   50 real lines of this 6.18 VM's /proc/kallsyms, in
 *                      file order (not sorted), aliases and end marks kept
 *   kallsyms-zeroed    the same, addresses as kptr_restrict shows them
 *   kallsyms-malformed real lines and one bad address on line 3
 *   kallsyms-modules   hand-made module lines in the kernel's format
 *                      ("%px %c %s\t[%s]"): the VM has no modules loaded
 */
static const char *data_path(const char *name)
{
	static char buf[4096];
	const char *dir = getenv("NR_TEST_DATA"), *f = __FILE__;
	const char *tail = strstr(f, "unit/test_profile.c");

	if (dir)
		snprintf(buf, sizeof(buf), "%s/%s", dir, name);
	else if (tail)
		snprintf(buf, sizeof(buf), "%.*sdata/%s", (int)(tail - f), f,
			 name);
	else
		snprintf(buf, sizeof(buf), "tests/data/%s", name);
	return buf;
}

static struct collect_ksyms *load_fixture(const char *name)
{
	struct collect_ksyms *ks = NULL;
	struct base_err err = { "" };
	int ret = collect_ksyms_load(&ks, data_path(name), &err);

	if (ret)
		fail_msg("load %s: %d %s", name, ret, err.msg);
	return ks;
}

/* Resolve and check the name (and the offset when want_off >= 0). */
static void expect_sym(const struct collect_ksyms *ks, uint64_t addr,
		       const char *want, long long want_off)
{
	struct collect_ksym s;
	int ret = collect_ksyms_resolve(ks, addr, &s);

	if (strcmp(s.name, want))
		fail_msg("0x%llx: got '%s', want '%s'",
			 (unsigned long long)addr, s.name, want);
	if (!strcmp(want, COLLECT_KSYMS_UNKNOWN)) {
		assert_int_equal(ret, -ENOENT);
		assert_int_equal(s.id, COLLECT_KSYMS_NO_ID);
		assert_null(s.module);
		return;
	}
	assert_int_equal(ret, 0);
	assert_true(s.id < collect_ksyms_count(ks));
	assert_int_equal(s.start + s.offset, addr);
	if (want_off >= 0)
		assert_int_equal(s.offset, want_off);
}

/* ---- ksyms ---- */

static void test_ksyms_excerpt_resolves_inside_functions(void **state)
{
	struct collect_ksyms *ks = load_fixture("kallsyms-excerpt");
	struct collect_ksym a, b;

	(void)state;
	/*
	 * 50 lines: 4 names share ffffffff81000000 and 3 share ...0f70 (one
	 * kept each: 45), and the end marks _etext, _einittext and the data
	 * symbols after each are two runs of 3 (one kept each: 41).
	 */
	assert_int_equal(collect_ksyms_count(ks), 41);
	expect_sym(ks, 0xffffffff82044400, "udp_sendmsg", 0);
	expect_sym(ks, 0xffffffff82044401, "udp_sendmsg", 1);
	expect_sym(ks, 0xffffffff8204513f, "udp_sendmsg", 0xd3f);
	expect_sym(ks, 0xffffffff82045140, "__pfx___udp_enqueue_schedule_skb",
		   0);
	expect_sym(ks, 0xffffffff820443f0, "__pfx_udp_sendmsg", 0);
	expect_sym(ks, 0xffffffff81e2f150, "__sys_sendto", 0x30);
	expect_sym(ks, 0xffffffff81e2f310, "__x64_sys_sendto", 0);
	expect_sym(ks, 0xffffffff81207612, "abort", 2); /* weak */
	expect_sym(ks, 0xffffffff8120759b, "smp_shutdown_nonboot_cpus.cold",
		   0);
	/* the same symbol from two addresses has one id */
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffff82044410, &a), 0);
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffff82044f00, &b), 0);
	assert_int_equal(a.id, b.id);
	assert_null(a.module);
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffff82044320, &b), 0);
	assert_true(a.id != b.id);
	collect_ksyms_free(ks);
}

static void test_ksyms_shared_address_keeps_one_name_like_perf(void **state)
{
	struct collect_ksyms *ks = load_fixture("kallsyms-excerpt");

	(void)state;
	/* T srso_alias_untrain_ret, _stext, _text, __pi__text: fewest
	 * leading underscores */
	expect_sym(ks, 0xffffffff81000000, "srso_alias_untrain_ret", 0);
	expect_sym(ks, 0xffffffff8100000f, "srso_alias_untrain_ret", 15);
	/* t common_interrupt_return, T swapgs_restore_regs_and_return_to_
	 * usermode, T __irqentry_text_end: global over local */
	expect_sym(ks, 0xffffffff81000f70,
		   "swapgs_restore_regs_and_return_to_usermode", 0);
	collect_ksyms_free(ks);
}

static void test_ksyms_gaps_and_end_marks_are_unknown(void **state)
{
	struct collect_ksyms *ks = load_fixture("kallsyms-excerpt");

	(void)state;
	expect_sym(ks, 0, COLLECT_KSYMS_UNKNOWN, -1);
	expect_sym(ks, 0xffffffff80ffffff, COLLECT_KSYMS_UNKNOWN, -1);
	/* the last function before _etext, then _etext itself */
	expect_sym(ks, 0xffffffff82209987, "__SCT__tp_func_ma_write", 7);
	expect_sym(ks, 0xffffffff82209988, COLLECT_KSYMS_UNKNOWN, -1);
	expect_sym(ks, 0xffffffff82300000, COLLECT_KSYMS_UNKNOWN, -1);
	/* read-only data */
	expect_sym(ks, 0xffffffff82400008, COLLECT_KSYMS_UNKNOWN, -1);
	/* init text, then _einittext and the data after it */
	expect_sym(ks, 0xffffffff837f890f, "use_tpause_delay", 0x1f);
	expect_sym(ks, 0xffffffff837f8910, COLLECT_KSYMS_UNKNOWN, -1);
	expect_sym(ks, 0xffffffff838ebb88, COLLECT_KSYMS_UNKNOWN, -1);
	/* beyond the last line */
	expect_sym(ks, 0xffffffffffffffff, COLLECT_KSYMS_UNKNOWN, -1);
	/* a span is capped: the excerpt jumps from __ia32_sys_sendto to
	 * udp_err, 2.4 MiB later */
	expect_sym(ks, 0xffffffff81e2f360 + COLLECT_KSYMS_MAX_SPAN_BYTES - 1,
		   "__ia32_sys_sendto", COLLECT_KSYMS_MAX_SPAN_BYTES - 1);
	expect_sym(ks, 0xffffffff81e2f360 + COLLECT_KSYMS_MAX_SPAN_BYTES,
		   COLLECT_KSYMS_UNKNOWN, -1);
	collect_ksyms_free(ks);
}

static void test_ksyms_modules_and_their_data(void **state)
{
	struct collect_ksyms *ks = load_fixture("kallsyms-modules");
	struct collect_ksym s;

	(void)state;
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffffc0201234, &s), 0);
	assert_string_equal(s.name, "nf_conntrack_in");
	assert_string_equal(s.module, "nf_conntrack");
	assert_int_equal(s.offset, 0x224);
	expect_sym(ks, 0xffffffffc02017ff, "nf_ct_get_tuple", 0x3ff);
	expect_sym(ks, 0xffffffffc0201800, "cleanup", 0);
	/* module data ends the text before it */
	expect_sym(ks, 0xffffffffc0203000, COLLECT_KSYMS_UNKNOWN, -1);
	expect_sym(ks, 0xffffffffc0208fff, COLLECT_KSYMS_UNKNOWN, -1);
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffffc0209010, &s), 0);
	assert_string_equal(s.name, "veth_xmit");
	assert_string_equal(s.module, "veth");
	expect_sym(ks, 0xffffffffc020a010, COLLECT_KSYMS_UNKNOWN, -1);
	/* the last symbol (a BPF program) spans at most the cap */
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffffc020b001, &s), 0);
	assert_string_equal(s.name, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
	assert_string_equal(s.module, "bpf");
	expect_sym(ks, 0xffffffffc020b000 + COLLECT_KSYMS_MAX_SPAN_BYTES,
		   COLLECT_KSYMS_UNKNOWN, -1);
	/* the image's text */
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffff81000020, &s), 0);
	assert_string_equal(s.name, "tcp_sendmsg");
	assert_null(s.module);
	expect_sym(ks, 0xffffffff81000900, COLLECT_KSYMS_UNKNOWN, -1);
	collect_ksyms_free(ks);
}

static void test_ksyms_zeroed_addresses_mean_kptr_restrict(void **state)
{
	struct collect_ksyms *ks = (struct collect_ksyms *)&ks;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_ksyms_load(&ks, data_path("kallsyms-zeroed"),
					    &err),
			 -EACCES);
	assert_null(ks);
	assert_non_null(strstr(err.msg,
			       ": kernel addresses hidden: kptr_restrict"));
	/* the same through the parser, without the path prefix */
	assert_int_equal(collect_ksyms_parse(&ks, "0000000000000000 T a\n"
						  "0000000000000000 t b\n",
					     42, &err),
			 -EACCES);
	assert_string_equal(err.msg, "kernel addresses hidden: kptr_restrict");
}

static void test_ksyms_malformed_fixture_names_the_line(void **state)
{
	struct collect_ksyms *ks = NULL;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_ksyms_load(&ks, data_path("kallsyms-malformed"),
					    &err),
			 -EINVAL);
	assert_null(ks);
	assert_non_null(strstr(err.msg, "kallsyms-malformed: kallsyms line 3 "
					"'ffffffff8100zz00 T entry_SYSCALL_64': "
					"expected a blank after the address"));
}

static void test_ksyms_rejects_malformed_lines(void **state)
{
	static char long_name[COLLECT_KSYMS_NAME_MAX + 40];
	static const struct {
		const char *text;
		const char *what;
	} cases[] = {
		{ "T foo\n", "expected a hex address" },
		{ "ffffffff81000000\n", "expected a blank after the address" },
		{ "ffffffff81000000 foo\n", "expected a one-letter symbol type" },
		{ "ffffffff81000000 TT foo\n",
		  "expected a one-letter symbol type" },
		{ "ffffffff81000000 T\n", "expected a one-letter symbol type" },
		{ "ffffffff81000000 T \n", "expected a symbol name" },
		{ "1ffffffff81000000 T foo\n", "address over 16 hex digits" },
		{ "ffffffff81000000 T foo bar\n",
		  "unexpected text after the name" },
		{ "ffffffff81000000 T foo\t[mod\n",
		  "expected a module as [name]" },
		{ "ffffffff81000000 T foo\t[]\n",
		  "expected a module as [name]" },
		{ "ffffffff81000000 T foo\t[a b]\n",
		  "expected a module as [name]" },
		{ "ffffffff81000000 T foo\t[mod] x\n",
		  "unexpected text after the module" },
		{ "ffffffff81000000 T foo\n\nffffffff81000010 T bar\n",
		  "expected a hex address" },
		{ "ffffffff81000000 1 foo\n",
		  "expected a one-letter symbol type" },
	};
	struct collect_ksyms *ks = NULL;
	struct base_err err;
	char *text;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret = collect_ksyms_parse(&ks, cases[i].text,
					      strlen(cases[i].text), &err);

		if (ret != -EINVAL || !strstr(err.msg, cases[i].what))
			fail_msg("case %zu: %d '%s'", i, ret, err.msg);
		assert_null(ks);
	}
	/* a name at the kernel's limit is fine, one more is not */
	memset(long_name, 'x', sizeof(long_name) - 1);
	text = malloc(sizeof(long_name) + 32);
	assert_non_null(text);
	snprintf(text, sizeof(long_name) + 32, "ffffffff81000000 T %.*s\n",
		 COLLECT_KSYMS_NAME_MAX, long_name);
	assert_int_equal(collect_ksyms_parse(&ks, text, strlen(text), &err), 0);
	collect_ksyms_free(ks);
	snprintf(text, sizeof(long_name) + 32, "ffffffff81000000 T %.*s\n",
		 COLLECT_KSYMS_NAME_MAX + 1, long_name);
	assert_int_equal(collect_ksyms_parse(&ks, text, strlen(text), &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "symbol name over 511 characters"));
	/* the quoted line is cut and its control characters masked */
	assert_non_null(strstr(err.msg, "xxx...'"));
	free(text);
}

static void test_ksyms_edge_inputs(void **state)
{
	static const char no_nl[] = "ffffffff81000000 T a\nffffffff81000010 t b";
	static const char spaces[] = "ffffffff81000000  T   a\t[m]\n";
	struct collect_ksyms *ks = NULL;
	struct base_err err = { "" };
	struct collect_ksym s;

	(void)state;
	/* no final newline; len bounds the text, not a NUL */
	assert_int_equal(collect_ksyms_parse(&ks, no_nl, sizeof(no_nl) - 1,
					     &err),
			 0);
	expect_sym(ks, 0xffffffff81000011, "b", 1);
	collect_ksyms_free(ks);
	assert_int_equal(collect_ksyms_parse(&ks, no_nl, 21, &err), 0);
	assert_int_equal(collect_ksyms_count(ks), 1);
	expect_sym(ks, 0xffffffff81000011, "a", 0x11);
	collect_ksyms_free(ks);
	/* blanks are separators, however many */
	assert_int_equal(collect_ksyms_parse(&ks, spaces, sizeof(spaces) - 1,
					     &err),
			 0);
	assert_int_equal(collect_ksyms_resolve(ks, 0xffffffff81000000, &s), 0);
	assert_string_equal(s.module, "m");
	collect_ksyms_free(ks);
	/* nothing, or data alone, is no symbol table */
	assert_int_equal(collect_ksyms_parse(&ks, "", 0, &err), -ENODATA);
	assert_int_equal(collect_ksyms_parse(&ks, NULL, 0, &err), -ENODATA);
	assert_int_equal(collect_ksyms_parse(&ks, "ffffffff82400000 D x\n",
					     21, &err),
			 -ENODATA);
	assert_int_equal(collect_ksyms_parse(&ks, NULL, 5, &err), -EINVAL);
	assert_int_equal(collect_ksyms_parse(&ks, "x",
					     COLLECT_KSYMS_CAP_BYTES + 1ul,
					     &err),
			 -EFBIG);
	/* a missing file names its path */
	assert_int_equal(collect_ksyms_load(&ks, "/nonexistent/kallsyms", &err),
			 -ENOENT);
	assert_string_equal(err.msg, "cannot open /nonexistent/kallsyms: "
				     "No such file or directory");
	/* NULL table resolves nothing */
	assert_int_equal(collect_ksyms_resolve(NULL, 1, &s), -ENOENT);
	assert_int_equal(collect_ksyms_count(NULL), 0);
	collect_ksyms_free(NULL);
}

/* The address of name in /proc/kallsyms, or 0. */
static uint64_t kallsyms_addr(const char *name)
{
	char line[600], n[520], t;
	unsigned long long a;
	uint64_t found = 0;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %519s", &a, &t, n) == 3 &&
		    !strcmp(n, name)) {
			found = a;
			break;
		}
	}
	fclose(f);
	return found;
}

static void test_ksyms_real_kallsyms(void **state)
{
	struct collect_ksyms *ks = NULL;
	struct base_err err = { "" };
	int64_t t0 = base_now_ns(), t1;
	uint64_t a;
	int ret;

	(void)state;
	ret = collect_ksyms_load(&ks, NULL, &err);
	t1 = base_now_ns();
	if (ret == -EACCES) {
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	if (ret)
		fail_msg("load: %s", err.msg);
	print_message("%zu entries loaded in %.1f ms\n",
		      collect_ksyms_count(ks), (double)(t1 - t0) / 1e6);
	assert_true(collect_ksyms_count(ks) > 1000);
	a = kallsyms_addr("udp_sendmsg");
	if (a) {
		expect_sym(ks, a, "udp_sendmsg", 0);
		expect_sym(ks, a + 16, "udp_sendmsg", 16);
	}
	a = kallsyms_addr("_etext");
	if (a)
		expect_sym(ks, a, COLLECT_KSYMS_UNKNOWN, -1);
	collect_ksyms_free(ks);
}

/* ---- metric names ---- */

static void test_metric_name_keeps_safe_characters(void **state)
{
	static const struct {
		const char *sym, *want;
	} cases[] = {
		{ "skb_defer_free_flush", "profile.self.skb_defer_free_flush" },
		{ "tcp_sendmsg.cold", "profile.self.tcp_sendmsg.cold" },
		{ "foo.isra.0", "profile.self.foo.isra.0" },
		{ "[user]", "profile.self._user_" },
		{ "[unknown]", "profile.self._unknown_" },
		{ "a-b c$d", "profile.self.a_b_c_d" },
		{ "Ab9_", "profile.self.Ab9_" },
		{ "", "profile.self._" },
	};
	char buf[COLLECT_PROFILE_METRIC_LEN];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(collect_profile_metric_name(cases[i].sym, buf,
							     sizeof(buf)),
				 0);
		assert_string_equal(buf, cases[i].want);
	}
}

static void test_metric_name_long_names_are_cut_and_stay_distinct(void **state)
{
	char sym[200], a[COLLECT_PROFILE_METRIC_LEN],
		b[COLLECT_PROFILE_METRIC_LEN], small[24];
	size_t room = COLLECT_PROFILE_METRIC_LEN - 1 -
		      strlen(COLLECT_PROFILE_METRIC_PREFIX);

	(void)state;
	/* exactly fits: unchanged */
	memset(sym, 'y', room);
	sym[room] = '\0';
	assert_int_equal(collect_profile_metric_name(sym, a, sizeof(a)), 0);
	assert_int_equal(strlen(a), COLLECT_PROFILE_METRIC_LEN - 1);
	assert_string_equal(a + strlen(COLLECT_PROFILE_METRIC_PREFIX), sym);
	/* one more: cut, '_' and 8 hex digits, same length */
	memset(sym, 'y', room + 1);
	sym[room + 1] = '\0';
	assert_int_equal(collect_profile_metric_name(sym, a, sizeof(a)), 0);
	assert_int_equal(strlen(a), COLLECT_PROFILE_METRIC_LEN - 1);
	assert_int_equal(a[COLLECT_PROFILE_METRIC_LEN - 10], '_');
	sym[room] = 'z';
	assert_int_equal(collect_profile_metric_name(sym, b, sizeof(b)), 0);
	assert_int_equal(strlen(b), COLLECT_PROFILE_METRIC_LEN - 1);
	assert_string_not_equal(a, b);
	assert_memory_equal(a, b, COLLECT_PROFILE_METRIC_LEN - 10);
	/* the buffer must hold the prefix and 10 characters */
	assert_int_equal(collect_profile_metric_name("x", small, 23),
			 -ENOSPC);
	assert_string_equal(small, "");
	assert_int_equal(collect_profile_metric_name("abcdefghijkl", small,
						     24),
			 0);
	/* room for 10: 1 kept, '_' and the hash */
	assert_int_equal(strlen(small), 23);
	assert_memory_equal(small, "profile.self.a_", 15);
	assert_int_equal(collect_profile_metric_name("x", NULL, 0), -ENOSPC);
}

/* ---- the fake kernel with rings ---- */

#define PFAKE_MAX 16
#define PFAKE_FD0 2000

struct pfake_ev {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	bool open;
	int enables, disables;
	void *map;
	size_t map_len;
};

static struct {
	int hw_err, hw_err_cpu; /* hw_err_cpu -2: every cpu */
	int sw_err, sw_err_cpu;
	int chain_err; /* refuse PERF_SAMPLE_CALLCHAIN with it */
	int mmap_err;
	bool no_layout;   /* leave data_offset/data_size 0, as old kernels */
	bool bad_layout;  /* a data_size that is not a power of 2 */
	int nev, nmapped;
	struct pfake_ev ev[PFAKE_MAX];
} pf;

static size_t page_bytes(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void pfake_reset(void)
{
	memset(&pf, 0, sizeof(pf));
	pf.hw_err_cpu = -2;
	pf.sw_err_cpu = -2;
}

static int pfake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		      int group_fd, unsigned long flags)
{
	struct pfake_ev *e;

	assert_int_equal(group_fd, -1);
	assert_true(flags & PERF_FLAG_FD_CLOEXEC);
	if (attr->type == PERF_TYPE_HARDWARE && pf.hw_err &&
	    (pf.hw_err_cpu == -2 || pf.hw_err_cpu == cpu))
		return pf.hw_err;
	if (attr->type == PERF_TYPE_SOFTWARE && pf.sw_err &&
	    (pf.sw_err_cpu == -2 || pf.sw_err_cpu == cpu))
		return pf.sw_err;
	if ((attr->sample_type & PERF_SAMPLE_CALLCHAIN) && pf.chain_err)
		return pf.chain_err;
	assert_true(pf.nev < PFAKE_MAX);
	e = &pf.ev[pf.nev];
	e->attr = *attr;
	e->pid = pid;
	e->cpu = cpu;
	e->open = true;
	return PFAKE_FD0 + pf.nev++;
}

static struct pfake_ev *pfake_ev(int fd)
{
	assert_true(fd >= PFAKE_FD0 && fd < PFAKE_FD0 + pf.nev);
	return &pf.ev[fd - PFAKE_FD0];
}

static int pfake_close(int fd)
{
	struct pfake_ev *e = pfake_ev(fd);

	assert_true(e->open);
	e->open = false;
	return 0;
}

static ssize_t pfake_read(int fd, void *buf, size_t len)
{
	(void)fd;
	(void)buf;
	(void)len;
	return -EIO;
}

static int pfake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	struct pfake_ev *e = pfake_ev(fd);

	assert_true(e->open);
	assert_int_equal(arg, 0);
	if (request == PERF_EVENT_IOC_ENABLE)
		e->enables++;
	else if (request == PERF_EVENT_IOC_DISABLE)
		e->disables++;
	else
		fail_msg("unexpected ioctl %lu", request);
	return 0;
}

static void *pfake_mmap(size_t len, int fd, int *errnum)
{
	struct pfake_ev *e = pfake_ev(fd);
	struct perf_event_mmap_page *pg;
	void *m;

	if (pf.mmap_err) {
		*errnum = pf.mmap_err;
		return MAP_FAILED;
	}
	assert_int_equal(len % page_bytes(), 0);
	m = aligned_alloc(page_bytes(), len);
	assert_non_null(m);
	memset(m, 0, len);
	pg = m;
	if (!pf.no_layout) {
		pg->data_offset = page_bytes();
		pg->data_size = len - page_bytes();
	}
	if (pf.bad_layout)
		pg->data_size = len - page_bytes() - 8;
	e->map = m;
	e->map_len = len;
	pf.nmapped++;
	return m;
}

static int pfake_munmap(void *addr, size_t len)
{
	for (int i = 0; i < pf.nev; i++) {
		if (pf.ev[i].map == addr) {
			assert_int_equal(pf.ev[i].map_len, len);
			free(addr);
			pf.ev[i].map = NULL;
			pf.nmapped--;
			return 0;
		}
	}
	fail_msg("munmap of an unknown map");
	return -EINVAL;
}

static const struct collect_perf_ops pfake_ops = {
	.open = pfake_open,
	.read = pfake_read,
	.close = pfake_close,
	.ioctl = pfake_ioctl,
	.mmap = pfake_mmap,
	.munmap = pfake_munmap,
};

static int pfake_open_fds(void)
{
	int n = 0;

	for (int i = 0; i < pf.nev; i++)
		n += pf.ev[i].open;
	return n;
}

/* The mapped page of the open event on cpu. */
static struct perf_event_mmap_page *ring_of(int cpu)
{
	for (int i = 0; i < pf.nev; i++)
		if (pf.ev[i].open && pf.ev[i].cpu == cpu && pf.ev[i].map)
			return pf.ev[i].map;
	fail_msg("no ring on cpu %d", cpu);
	return NULL;
}

static uint64_t ring_size(void)
{
	return page_bytes(); /* the tests map one data page */
}

/* Write n bytes at data_head, wrapping, and publish them as the kernel
 * does: the data first, then data_head with release order. */
static void ring_put(struct perf_event_mmap_page *pg, const void *rec,
		     size_t n)
{
	unsigned char *data = (unsigned char *)pg + page_bytes();
	uint64_t head = pg->data_head;
	uint64_t tail = __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE);

	assert_true(head - tail + n <= ring_size());
	for (size_t i = 0; i < n; i++)
		data[(head + i) & (ring_size() - 1)] =
			((const unsigned char *)rec)[i];
	__atomic_store_n(&pg->data_head, head + n, __ATOMIC_RELEASE);
}

/* ring_put(), then wait until the collector has consumed everything, so
 * that records published apart are also drained apart. */
static void ring_put_drained(struct perf_event_mmap_page *pg, const void *rec,
			     size_t n)
{
	ring_put(pg, rec, n);
	for (int i = 0; i < 2000; i++) {
		if (__atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE) ==
		    pg->data_head)
			return;
		usleep(1000);
	}
	fail_msg("the collector did not drain the ring in 2 s");
}

/* Start an empty ring at position pos, as after earlier traffic. */
static void ring_seek(struct perf_event_mmap_page *pg, uint64_t pos)
{
	pg->data_head = pos;
	pg->data_tail = pos;
}

/* Records, built into a byte buffer. */
struct recbuf {
	unsigned char b[4096];
	size_t n;
};

static void rec_add(struct recbuf *r, const void *p, size_t n)
{
	assert_true(r->n + n <= sizeof(r->b));
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void rec_sample(struct recbuf *r, uint16_t misc, uint64_t ip)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, misc, 24 };
	uint32_t pidtid[2] = { 4242, 4243 };

	rec_add(r, &h, sizeof(h));
	rec_add(r, &ip, 8);
	rec_add(r, pidtid, 8);
}

static void rec_kernel(struct recbuf *r, uint64_t ip, int times)
{
	for (int i = 0; i < times; i++)
		rec_sample(r, PERF_RECORD_MISC_KERNEL, ip);
}

static void rec_lost(struct recbuf *r, uint64_t lost)
{
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 24 };
	uint64_t id = 77;

	rec_add(r, &h, sizeof(h));
	rec_add(r, &id, 8);
	rec_add(r, &lost, 8);
}

static void rec_other(struct recbuf *r, uint32_t type, uint16_t size)
{
	struct perf_event_header h = { type, 0, size };
	unsigned char junk[256];

	assert_true(size >= sizeof(h) && size - sizeof(h) <= sizeof(junk));
	memset(junk, 0xa5, sizeof(junk));
	rec_add(r, &h, sizeof(h));
	rec_add(r, junk, size - sizeof(h));
}

static struct collect_profile *open_fake(const struct base_cpulist *cpus,
					 size_t max_ips)
{
	struct collect_profile_opts o = { .cpus = cpus,
					  .ring_pages = 1,
					  .drain_ms = 5,
					  .max_ips = max_ips,
					  .ops = &pfake_ops };
	struct collect_profile *p = NULL;
	struct base_err err = { "" };
	int ret = collect_profile_open(&p, &o, &err);

	if (ret)
		fail_msg("open: %d %s", ret, err.msg);
	return p;
}

static const struct collect_profile_row *
find_row(const struct collect_profile_result *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (!strcmp(r->rows[i].name, name))
			return &r->rows[i];
	return NULL;
}

static void check_row(const struct collect_profile_result *r, size_t i,
		      const char *name, uint64_t samples)
{
	assert_true(i < r->nrows);
	if (strcmp(r->rows[i].name, name) || r->rows[i].samples != samples)
		fail_msg("row %zu: '%s' %llu, want '%s' %llu", i,
			 r->rows[i].name,
			 (unsigned long long)r->rows[i].samples, name,
			 (unsigned long long)samples);
}

#define UDP_SENDMSG 0xffffffff82044400ull
#define SYS_SENDTO 0xffffffff81e2f120ull

static void test_profile_ring_records_wrap_lost_and_unknown(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_ksyms *ks = load_fixture("kallsyms-excerpt");
	struct collect_profile_result r;
	struct perf_event_mmap_page *pg;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 }, b = { .n = 0 };

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	pg = ring_of(0);
	/* 8 bytes before the end: the first sample's ip wraps to offset 0 */
	ring_seek(pg, ring_size() - 8);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_kernel(&a, UDP_SENDMSG + 0x10, 1);
	rec_lost(&a, 7);
	rec_other(&a, 99, 40); /* a type from a future kernel */
	rec_other(&a, PERF_RECORD_THROTTLE, 32);
	rec_sample(&a, PERF_RECORD_MISC_USER, 0x401000);
	rec_sample(&a, PERF_RECORD_MISC_GUEST_KERNEL, UDP_SENDMSG);
	ring_put(pg, a.b, a.n);
	/* later, from the start of the buffer */
	rec_kernel(&b, SYS_SENDTO + 0x20, 3);
	rec_kernel(&b, UDP_SENDMSG + 0x80, 2);
	rec_kernel(&b, 0xffffffff90000000ull, 1); /* no symbol covers it */
	ring_put(pg, b.b, b.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	/* everything read is handed back to the kernel */
	assert_int_equal(pg->data_tail, pg->data_head);
	assert_int_equal(pg->data_tail, ring_size() - 8 + a.n + b.n);

	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, NULL), 0);
	assert_string_equal(r.event, "cycles");
	assert_string_equal(r.fallback_reason, "");
	assert_int_equal(r.samples, 9);
	assert_int_equal(r.lost, 7);
	assert_int_equal(r.bad, 0);
	assert_int_equal(r.user, 1);
	assert_int_equal(r.kernel, 7);
	assert_true(r.kernel_resolved);
	assert_true(r.drains >= 1);
	assert_true(r.window_ns >= 0);
	assert_true(r.collector_cpu_ns > 0);
	assert_int_equal(r.nrows, 4);
	assert_int_equal(r.nrows_total, 4);
	/* ties by metric name: '_' sorts before 'u' */
	check_row(&r, 0, "__sys_sendto", 3);
	check_row(&r, 1, "udp_sendmsg", 3);
	check_row(&r, 2, COLLECT_KSYMS_UNKNOWN, 2);
	check_row(&r, 3, COLLECT_PROFILE_USER, 1);
	assert_string_equal(r.rows[0].metric, "profile.self.__sys_sendto");
	assert_string_equal(r.rows[2].metric, "profile.self._unknown_");
	assert_float_equal(r.rows[1].pct, 100.0 / 3, 1e-9);
	assert_float_equal(r.rows[3].pct, 100.0 / 9, 1e-9);
	assert_null(r.rows[1].module);
	collect_profile_result_release(&r);
	assert_null(r.rows);
	collect_profile_free(p);
	collect_ksyms_free(ks);
	assert_int_equal(pfake_open_fds(), 0);
	assert_int_equal(pf.nmapped, 0);
}

static void test_profile_record_tail_wraps_on_old_layout(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_profile_result r;
	struct perf_event_mmap_page *pg;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };

	(void)state;
	pfake_reset();
	pf.no_layout = true; /* data right after the first page */
	p = open_fake(&cpus, 0);
	pg = ring_of(0);
	/* 16 before the end: the pid/tid wraps; then a 40-byte unknown
	 * record whose header is at the end and body at the start */
	ring_seek(pg, 3 * ring_size() - 16);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_kernel(&a, UDP_SENDMSG, 1);
	rec_other(&a, 99, 40);
	rec_kernel(&a, UDP_SENDMSG + 4, 1);
	ring_put(pg, a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 2);
	assert_int_equal(r.bad, 0);
	assert_false(r.kernel_resolved);
	assert_int_equal(r.nrows, 1);
	check_row(&r, 0, COLLECT_PROFILE_KERNEL, 2);
	assert_string_equal(r.rows[0].metric, "profile.self._kernel_");
	assert_float_equal(r.rows[0].pct, 100.0, 0);
	collect_profile_result_release(&r);
	collect_profile_free(p);
}

static void test_profile_malformed_record_drops_the_rest(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct perf_event_header zero = { PERF_RECORD_SAMPLE, 0, 0 };
	struct perf_event_header huge = { PERF_RECORD_SAMPLE, 0, 4000 };
	uint64_t pad = 0;
	struct collect_profile_result r;
	struct perf_event_mmap_page *pg;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 }, b = { .n = 0 }, c = { .n = 0 };

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	pg = ring_of(0);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	/* a sample, a header of size 0 (no way to the next record), then a
	 * sample that is lost with it */
	rec_kernel(&a, UDP_SENDMSG, 1);
	rec_add(&a, &zero, sizeof(zero));
	rec_kernel(&a, UDP_SENDMSG, 1);
	ring_put_drained(pg, a.b, a.n);
	/* a size beyond what was published */
	rec_add(&b, &huge, sizeof(huge));
	rec_add(&b, &pad, sizeof(pad));
	ring_put_drained(pg, b.b, b.n);
	/* a sample too short to hold an ip */
	rec_other(&c, PERF_RECORD_SAMPLE, 8);
	rec_kernel(&c, SYS_SENDTO, 2);
	ring_put(pg, c.b, c.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(pg->data_tail, pg->data_head);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.bad, 3);
	assert_int_equal(r.samples, 3);
	collect_profile_result_release(&r);
	collect_profile_free(p);
}

static void test_profile_ip_table_overflow_counts_other(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 4);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	for (int i = 0; i < 10; i++)
		rec_kernel(&a, UDP_SENDMSG + (uint64_t)i, 1);
	rec_kernel(&a, UDP_SENDMSG, 3); /* a known ip still counts */
	rec_kernel(&a, 0, 1); /* no ip */
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 14);
	assert_int_equal(r.nrows, 3);
	check_row(&r, 0, COLLECT_PROFILE_KERNEL, 7);
	check_row(&r, 1, COLLECT_PROFILE_OTHER, 6);
	check_row(&r, 2, COLLECT_KSYMS_UNKNOWN, 1);
	assert_string_equal(r.rows[1].metric, "profile.self._other_");
	collect_profile_result_release(&r);
	collect_profile_free(p);
}

static void test_profile_rows_merge_same_name_across_modules(void **state)
{
	struct base_cpulist cpus = { .n = 2, .cpu = { 0, 1 } };
	struct collect_ksyms *ks = load_fixture("kallsyms-modules");
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 }, b = { .n = 0 };
	const struct collect_profile_row *row;

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_kernel(&a, 0xffffffffc0201400, 3); /* nf_ct_get_tuple */
	rec_kernel(&a, 0xffffffffc0201404, 2);
	rec_kernel(&a, 0xffffffffc0201810, 2); /* cleanup [nf_conntrack] */
	rec_kernel(&a, 0xffffffffc0203008, 1); /* module data: unknown */
	rec_kernel(&b, 0xffffffffc0209400, 2); /* cleanup [veth] */
	rec_kernel(&b, 0xffffffffc0209000, 4); /* veth_xmit */
	rec_kernel(&b, 0xffffffffc020b100, 1); /* the bpf program */
	rec_kernel(&b, 0xffffffff81000804, 1); /* after _etext */
	ring_put(ring_of(0), a.b, a.n);
	ring_put(ring_of(1), b.b, b.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, NULL), 0);
	assert_int_equal(r.samples, 16);
	assert_int_equal(r.nrows, 5);
	check_row(&r, 0, "nf_ct_get_tuple", 5);
	check_row(&r, 1, "cleanup", 4);
	check_row(&r, 2, "veth_xmit", 4);
	check_row(&r, 3, COLLECT_KSYMS_UNKNOWN, 2);
	check_row(&r, 4, "bpf_prog_6deef7357e7b4530_sd_fw_egress", 1);
	assert_string_equal(r.rows[0].module, "nf_conntrack");
	assert_null(r.rows[1].module); /* two modules: none named */
	assert_string_equal(r.rows[2].module, "veth");
	assert_string_equal(r.rows[2].metric, "profile.self.veth_xmit");
	row = find_row(&r, "bpf_prog_6deef7357e7b4530_sd_fw_egress");
	assert_non_null(row);
	assert_string_equal(row->module, "bpf");
	assert_float_equal(r.rows[0].pct, 31.25, 1e-12);
	collect_profile_result_release(&r);
	collect_profile_free(p);
	collect_ksyms_free(ks);
}

/* ring_put(), after waiting for the collector to make room: the tests'
 * rings hold one page. */
static void ring_put_room(struct perf_event_mmap_page *pg, const void *rec,
			  size_t n)
{
	for (int i = 0; i < 2000; i++) {
		if (pg->data_head - __atomic_load_n(&pg->data_tail, __ATOMIC_ACQUIRE) + n <=
		    ring_size()) {
			ring_put(pg, rec, n);
			return;
		}
		usleep(1000);
	}
	fail_msg("the collector made no room in the ring in 2 s");
}

/* A symbol table of n functions f0000.. of 0x100 bytes from F0. */
#define F0 0xffffffff81000000ull
static struct collect_ksyms *numbered_syms(int n)
{
	size_t cap = (size_t)n * 32 + 1, len = 0;
	struct collect_ksyms *ks = NULL;
	char *text = malloc(cap);

	assert_non_null(text);
	for (int i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len, "%016llx T f%04d\n",
					(unsigned long long)(F0 + (uint64_t)i * 0x100), i);
	assert_int_equal(collect_ksyms_parse(&ks, text, len, NULL), 0);
	free(text);
	return ks;
}

/* times kernel samples in function i of numbered_syms(), in batches. */
static void put_samples(struct perf_event_mmap_page *pg, int i, int times)
{
	while (times > 0) {
		struct recbuf a = { .n = 0 };
		int k = times < 100 ? times : 100;

		rec_kernel(&a, F0 + (uint64_t)i * 0x100 + 8, k);
		ring_put_room(pg, a.b, a.n);
		times -= k;
	}
}

/*
 * Every symbol whose share reaches the threshold is kept, whatever its
 * rank (80 of them over it, where the old cut kept the top 50); one at
 * exactly the threshold is kept, one just under it is not.
 */
static void test_profile_threshold_keeps_every_symbol_over_it(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_ksyms *ks = numbered_syms(82);
	struct collect_profile_result r;
	struct recbuf u = { .n = 0 };
	struct base_err err = { "" };
	struct collect_profile *p;

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	/* 80 x 11 + 10 + 9 + 101 user = 1000 samples */
	for (int i = 0; i < 80; i++)
		put_samples(ring_of(0), i, 11);
	put_samples(ring_of(0), 80, 10);
	put_samples(ring_of(0), 81, 9);
	for (int i = 0; i < 101; i++)
		rec_sample(&u, PERF_RECORD_MISC_USER, 0x401000);
	ring_put_room(ring_of(0), u.b, u.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);

	assert_int_equal(collect_profile_result(p, ks, 1.0, &r, &err), 0);
	assert_int_equal(r.samples, 1000);
	assert_float_equal(r.min_pct, 1.0, 0);
	assert_int_equal(r.nrows_total, 83);
	assert_int_equal(r.nrows_over, 82);
	assert_int_equal(r.nrows, 82);
	check_row(&r, 0, COLLECT_PROFILE_USER, 101);
	check_row(&r, 1, "f0000", 11);
	check_row(&r, 80, "f0079", 11);
	check_row(&r, 81, "f0080", 10);
	assert_float_equal(r.rows[81].pct, 1.0, 1e-12);
	assert_null(find_row(&r, "f0081"));
	/* no symbol table at open: no chains, no children rows */
	assert_int_equal(r.nchildren, 0);
	assert_int_equal(r.nchildren_total, 0);
	collect_profile_result_release(&r);

	/* just over the one at 1%: it goes too; 0 keeps every row */
	assert_int_equal(collect_profile_result(p, ks, 1.0001, &r, &err), 0);
	assert_int_equal(r.nrows, 81);
	assert_null(find_row(&r, "f0080"));
	collect_profile_result_release(&r);
	assert_int_equal(collect_profile_result(p, ks, 0, &r, &err), 0);
	assert_int_equal(r.nrows, 83);
	check_row(&r, 82, "f0081", 9);
	collect_profile_result_release(&r);
	/* the default, 0.1%, keeps them all */
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, &err), 0);
	assert_int_equal(r.nrows, 83);
	collect_profile_result_release(&r);

	/* a threshold that is no percentage */
	assert_int_equal(collect_profile_result(p, ks, -0.5, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "profile: threshold -0.5%: expected 0 to 100");
	assert_int_equal(collect_profile_result(p, ks, 100.5, &r, &err), -EINVAL);
	assert_string_equal(err.msg, "profile: threshold 100.5%: expected 0 to 100");
	assert_int_equal(collect_profile_result(p, ks, NAN, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "threshold nan%"));
	collect_profile_free(p);
	collect_ksyms_free(ks);
}

/* At most COLLECT_PROFILE_ROWS_MAX rows of each kind, the highest. */
static void test_profile_rows_are_capped(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	const int n = COLLECT_PROFILE_ROWS_MAX + 100;
	struct collect_ksyms *ks = numbered_syms(n);
	struct collect_profile_opts o = { .cpus = &cpus, .ring_pages = 1, .drain_ms = 5,
					  .ops = &pfake_ops, .ks = ks };
	struct collect_profile_result r;
	struct collect_profile *p = NULL;

	(void)state;
	pfake_reset();
	assert_int_equal(collect_profile_open(&p, &o, NULL), 0);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	/* f0000 twice, every other once */
	put_samples(ring_of(0), 0, 1);
	for (int i = 0; i < n; i++)
		put_samples(ring_of(0), i, 1);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, 0, &r, NULL), 0);
	assert_int_equal(r.samples, (uint64_t)n + 1);
	assert_int_equal(r.nrows_total, (size_t)n);
	assert_int_equal(r.nrows_over, (size_t)n);
	assert_int_equal(r.nrows, COLLECT_PROFILE_ROWS_MAX);
	check_row(&r, 0, "f0000", 2);
	assert_int_equal(r.nchildren_total, (size_t)n);
	assert_int_equal(r.nchildren_over, (size_t)n);
	assert_int_equal(r.nchildren, COLLECT_PROFILE_ROWS_MAX);
	assert_string_equal(r.children[0].metric, "profile.children.f0000");
	assert_int_equal(r.children[0].samples, 2);
	collect_profile_result_release(&r);
	collect_profile_free(p);
	collect_ksyms_free(ks);
}

/* ---- interrupts-off samples charged to the caller (cpu-clock) ---- */

static const char charge_syms[] =
	"ffffffff81100000 T pvm_irq_enable\n"
	"ffffffff81100040 T __raw_callee_save_pvm_irq_enable\n"
	"ffffffff81100080 T _raw_spin_unlock_irqrestore\n"
	"ffffffff811000c0 T sock_def_readable\n"
	"ffffffff81100200 T do_syscall_64\n"
	"ffffffff82044400 T udp_sendmsg\n"
	"ffffffff82045000 T udp_sendmsg_end\n";
#define PVM_IRQ_ENABLE 0xffffffff81100000ull
#define CALLEE_SAVE 0xffffffff81100040ull
#define UNLOCK_IRQRESTORE 0xffffffff81100080ull
#define SOCK_DEF_READABLE 0xffffffff811000c0ull
#define DO_SYSCALL_64 0xffffffff81100200ull

/* A kernel sample at ip with a callchain of nr frames (context marks
 * included) of which only keep are written: a record the kernel cut. */
static void rec_chain(struct recbuf *r, uint64_t ip, const uint64_t *frames,
		      uint64_t nr, uint64_t keep)
{
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
				       (uint16_t)(32 + 8 * keep) };
	uint32_t pidtid[2] = { 4242, 4243 };

	rec_add(r, &h, sizeof(h));
	rec_add(r, &ip, 8);
	rec_add(r, pidtid, 8);
	rec_add(r, &nr, 8);
	rec_add(r, frames, 8 * keep);
}

static struct collect_profile *open_charging(const struct base_cpulist *cpus,
					     const struct collect_ksyms *ks,
					     enum collect_profile_event ev)
{
	struct collect_profile_opts o = { .cpus = cpus, .ring_pages = 1, .drain_ms = 5,
					  .event = ev, .ops = &pfake_ops, .ks = ks };
	struct collect_profile *p = NULL;
	struct base_err err = { "" };

	if (collect_profile_open(&p, &o, &err))
		fail_msg("open: %s", err.msg);
	return p;
}

/* The children row of name: samples. */
static void expect_children(const struct collect_profile_result *r, const char *name,
			    uint64_t samples)
{
	for (size_t i = 0; i < r->nchildren; i++) {
		if (strcmp(r->children[i].name, name))
			continue;
		if (r->children[i].samples != samples)
			fail_msg("children of %s: %llu, want %llu", name,
				 (unsigned long long)r->children[i].samples,
				 (unsigned long long)samples);
		assert_float_equal(r->children[i].pct,
				   100.0 * (double)samples / (double)r->samples, 1e-9);
		return;
	}
	fail_msg("no children row for %s", name);
}

/* Every kernel symbol's self row has a children row at least as high,
 * named with the children prefix. */
static void expect_children_cover_self(const struct collect_profile_result *r)
{
	char want[COLLECT_PROFILE_METRIC_LEN];

	for (size_t i = 0; i < r->nrows; i++) {
		size_t k;

		if (r->rows[i].name[0] == '[')
			continue;
		assert_int_equal(collect_profile_children_metric_name(r->rows[i].name, want,
								      sizeof(want)),
				 0);
		for (k = 0; k < r->nchildren && strcmp(r->children[k].metric, want); k++)
			;
		if (k == r->nchildren)
			fail_msg("%s: no %s", r->rows[i].metric, want);
		if (r->children[k].samples < r->rows[i].samples)
			fail_msg("%s: children %llu below self %llu", r->rows[i].name,
				 (unsigned long long)r->children[k].samples,
				 (unsigned long long)r->rows[i].samples);
	}
}

/* A window of n samples in pvm_irq_enable on cpu 0, without chains: they
 * stay where they landed and the result says nothing was charged; their
 * children are the sampled symbol alone. */
static void expect_uncharged(struct collect_profile *p, const struct collect_ksyms *ks, int n,
			     bool chains)
{
	struct collect_profile_result r;
	struct recbuf a = { .n = 0 };

	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_kernel(&a, PVM_IRQ_ENABLE + 0x12, n);
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, NULL), 0);
	assert_false(r.charging);
	assert_int_equal(r.charged, 0);
	assert_int_equal(r.chains, chains);
	check_row(&r, 0, "pvm_irq_enable", (uint64_t)n);
	assert_int_equal(r.nchildren, 1);
	expect_children(&r, "pvm_irq_enable", (uint64_t)n);
	collect_profile_result_release(&r);
}

/*
 * With the symbols and cpu-clock, each event samples its kernel
 * callchain (8 frames at most, none of user space); a sample in a helper
 * that turned interrupts back on is counted at the first caller outside
 * the helpers (its return address less one), context marks skipped; one
 * whose chain holds only helpers, or whose record was cut before a
 * caller, stays where it landed; any other sample is counted where it
 * landed.
 */
static void test_profile_charges_interrupts_off_samples_to_the_caller(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_ksyms *ks = NULL;
	struct collect_profile_result r;
	struct perf_event_mmap_page *pg;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };
	const uint64_t ctx = (uint64_t)PERF_CONTEXT_KERNEL;
	const uint64_t unlock[] = { ctx, PVM_IRQ_ENABLE + 0x12, CALLEE_SAVE + 0x9,
				    UNLOCK_IRQRESTORE + 0x1c, SOCK_DEF_READABLE + 0x44,
				    UDP_SENDMSG + 0x100 };
	const uint64_t syscall[] = { ctx, PVM_IRQ_ENABLE + 0x12, DO_SYSCALL_64 + 0x30 };
	const uint64_t helpers[] = { ctx, PVM_IRQ_ENABLE + 0x12, CALLEE_SAVE + 0x9 };
	const uint64_t work[] = { ctx, UDP_SENDMSG + 0x10, DO_SYSCALL_64 + 0x30 };

	(void)state;
	assert_int_equal(collect_ksyms_parse(&ks, charge_syms, strlen(charge_syms), NULL), 0);
	pfake_reset();
	p = open_charging(&cpus, ks, COLLECT_PROFILE_CPU_CLOCK);
	assert_int_equal(pf.ev[0].attr.sample_type,
			 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN);
	assert_int_equal(pf.ev[0].attr.exclude_callchain_user, 1);
	assert_int_equal(pf.ev[0].attr.sample_max_stack, COLLECT_PROFILE_CHAIN_FRAMES);
	pg = ring_of(0);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	for (int i = 0; i < 3; i++)
		rec_chain(&a, PVM_IRQ_ENABLE + 0x12, unlock, 6, 6);
	rec_chain(&a, PVM_IRQ_ENABLE + 0x12, syscall, 3, 3);
	rec_chain(&a, PVM_IRQ_ENABLE + 0x12, helpers, 3, 3);
	/* the record says 6 frames but holds 3: no caller read past it */
	rec_chain(&a, PVM_IRQ_ENABLE + 0x12, unlock, 6, 3);
	rec_chain(&a, UDP_SENDMSG + 0x10, work, 3, 3);
	ring_put(pg, a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, NULL), 0);
	assert_int_equal(r.samples, 7);
	assert_int_equal(r.kernel, 7);
	assert_true(r.charging);
	assert_int_equal(r.charged, 4);
	assert_int_equal(r.bad, 0);
	assert_int_equal(r.nrows, 4);
	check_row(&r, 0, "sock_def_readable", 3);
	check_row(&r, 1, "pvm_irq_enable", 2);
	check_row(&r, 2, "do_syscall_64", 1);
	check_row(&r, 3, "udp_sendmsg", 1);
	/* the chains hold the helper and the caller the sample went to */
	assert_true(r.chains);
	expect_children(&r, "pvm_irq_enable", 6);
	expect_children(&r, "sock_def_readable", 3);
	expect_children(&r, "udp_sendmsg", 4);
	expect_children(&r, "do_syscall_64", 2);
	expect_children_cover_self(&r);
	collect_profile_result_release(&r);
	collect_profile_free(p);

	/* cycles (an NMI where the machine has it): counted where they land,
	 * with their chains for the children */
	pfake_reset();
	p = open_charging(&cpus, ks, COLLECT_PROFILE_CYCLES);
	assert_int_equal(pf.ev[0].attr.sample_type,
			 PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN);
	expect_uncharged(p, ks, 1, true);
	collect_profile_free(p);
	/* a kernel that refuses callchains: cpu-clock without them */
	pfake_reset();
	pf.chain_err = -EOVERFLOW;
	p = open_charging(&cpus, ks, COLLECT_PROFILE_CPU_CLOCK);
	assert_int_equal(pfake_open_fds(), 1);
	assert_int_equal(pf.ev[pf.nev - 1].attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	expect_uncharged(p, ks, 2, false);
	collect_profile_free(p);
	/* and cycles stays cycles, without them */
	pfake_reset();
	pf.chain_err = -EOVERFLOW;
	p = open_charging(&cpus, ks, COLLECT_PROFILE_AUTO);
	assert_int_equal(pfake_open_fds(), 1);
	assert_int_equal(pf.ev[pf.nev - 1].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(pf.ev[pf.nev - 1].attr.sample_type, PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	expect_uncharged(p, ks, 3, false);
	collect_profile_free(p);
	assert_int_equal(pfake_open_fds(), 0);
	collect_ksyms_free(ks);
}

/*
 * Children: a symbol counts once per sample however often its chain
 * holds it (recursion, or the sampled function called again above
 * itself), the sampled symbol included, and a sample without frames
 * counts its own symbol; so children >= self for every symbol.
 */
static void test_profile_children_count_each_symbol_once_per_sample(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_ksyms *ks = NULL;
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };
	const uint64_t ctx = (uint64_t)PERF_CONTEXT_KERNEL;
	/* udp_sendmsg called from sock_def_readable twice over (recursion),
	 * itself under do_syscall_64 twice */
	const uint64_t deep[] = { ctx, UDP_SENDMSG + 0x10, SOCK_DEF_READABLE + 0x44,
				  SOCK_DEF_READABLE + 0x50, DO_SYSCALL_64 + 0x30,
				  DO_SYSCALL_64 + 0x40 };
	/* sampled in sock_def_readable, which called it again */
	const uint64_t self_rec[] = { ctx, SOCK_DEF_READABLE + 0x10, SOCK_DEF_READABLE + 0x44,
				      DO_SYSCALL_64 + 0x30 };
	const uint64_t none[] = { ctx };

	(void)state;
	assert_int_equal(collect_ksyms_parse(&ks, charge_syms, strlen(charge_syms), NULL), 0);
	pfake_reset();
	p = open_charging(&cpus, ks, COLLECT_PROFILE_CYCLES);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_chain(&a, UDP_SENDMSG + 0x10, deep, 6, 6);
	rec_chain(&a, SOCK_DEF_READABLE + 0x10, self_rec, 4, 4);
	rec_chain(&a, DO_SYSCALL_64 + 0x8, none, 1, 1);
	rec_chain(&a, DO_SYSCALL_64 + 0x8, none, 0, 0);
	rec_sample(&a, PERF_RECORD_MISC_USER, 0x401000);
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, NULL), 0);
	assert_int_equal(r.samples, 5);
	assert_true(r.chains);
	assert_false(r.charging);
	check_row(&r, 0, "do_syscall_64", 2);
	expect_children(&r, "do_syscall_64", 4);
	expect_children(&r, "sock_def_readable", 2);
	expect_children(&r, "udp_sendmsg", 1);
	assert_int_equal(r.nchildren, 3);
	assert_int_equal(r.nchildren_total, 3);
	/* ranked, named with their own prefix */
	assert_string_equal(r.children[0].metric, "profile.children.do_syscall_64");
	assert_float_equal(r.children[0].pct, 80.0, 1e-12);
	assert_null(r.children[0].module);
	expect_children_cover_self(&r);
	collect_profile_result_release(&r);

	/* the threshold applies to the children share: 40% keeps two */
	assert_int_equal(collect_profile_result(p, ks, 40, &r, NULL), 0);
	assert_int_equal(r.nchildren, 2);
	assert_int_equal(r.nchildren_over, 2);
	assert_int_equal(r.nchildren_total, 3);
	collect_profile_result_release(&r);
	collect_profile_free(p);
	collect_ksyms_free(ks);
}

/* Two symbols of one name (static functions in two modules) are one
 * children row, counted once for a chain through both, as their self
 * rows are one row. */
static void test_profile_children_of_one_name_count_once(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_ksyms *ks = load_fixture("kallsyms-modules");
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };
	const uint64_t ctx = (uint64_t)PERF_CONTEXT_KERNEL;
	/* veth_xmit, called from cleanup [veth], called from cleanup
	 * [nf_conntrack] */
	const uint64_t both[] = { ctx, 0xffffffffc0209000, 0xffffffffc0209411,
				  0xffffffffc0201811 };

	(void)state;
	pfake_reset();
	p = open_charging(&cpus, ks, COLLECT_PROFILE_CYCLES);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_chain(&a, 0xffffffffc0209000, both, 4, 4);
	rec_kernel(&a, 0xffffffffc0209400, 1); /* in cleanup [veth] */
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, ks, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 2);
	assert_int_equal(r.nchildren, 2);
	expect_children(&r, "cleanup", 2);
	expect_children(&r, "veth_xmit", 1);
	expect_children_cover_self(&r);
	collect_profile_result_release(&r);
	collect_profile_free(p);
	collect_ksyms_free(ks);
}

static void test_profile_auto_falls_back_to_cpu_clock(void **state)
{
	struct base_cpulist cpus = { .n = 2, .cpu = { 0, 1 } };
	struct collect_profile_opts o = { .cpus = &cpus, .ops = &pfake_ops };
	struct collect_profile_result r;
	struct collect_profile *p;
	struct base_err err = { "" };

	(void)state;
	pfake_reset();
	pf.hw_err = -ENOENT;
	pf.hw_err_cpu = 1; /* cpu0 has cycles, cpu1 not: neither uses it */
	assert_int_equal(collect_profile_open(&p, &o, &err), 0);
	assert_int_equal(pfake_open_fds(), 2);
	for (int i = 0; i < pf.nev; i++) {
		const struct pfake_ev *e = &pf.ev[i];

		if (!e->open)
			continue;
		assert_int_equal(e->attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(e->attr.config, PERF_COUNT_SW_CPU_CLOCK);
		assert_int_equal(e->pid, -1);
		assert_int_equal(e->cpu, i - 1);
		assert_int_equal(e->attr.sample_type,
				 PERF_SAMPLE_IP | PERF_SAMPLE_TID);
		assert_int_equal(e->attr.freq, 1);
		assert_int_equal(e->attr.sample_freq, COLLECT_PROFILE_FREQ_HZ);
		assert_int_equal(e->attr.disabled, 1);
		assert_int_equal(e->attr.exclude_idle, 1);
		assert_int_equal(e->attr.inherit, 0);
		/* 1 + 64 pages by default */
		assert_int_equal(e->map_len,
				 (1 + COLLECT_PROFILE_RING_PAGES) *
					 page_bytes());
		assert_int_equal(e->enables, 0);
	}
	assert_int_equal(collect_profile_start(p, &err), 0);
	assert_int_equal(collect_profile_stop(p, &err), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, &err), 0);
	assert_string_equal(r.event, "cpu-clock");
	assert_string_equal(r.fallback_reason,
			    "cycles on cpu 1: not supported by this machine");
	assert_int_equal(r.samples, 0);
	assert_int_equal(r.nrows, 0);
	collect_profile_result_release(&r);
	collect_profile_free(p);
	assert_int_equal(pfake_open_fds(), 0);
}

static void test_profile_event_choice_and_errors(void **state)
{
	struct base_cpulist cpus = { .n = 2, .cpu = { 0, 5 } };
	struct collect_profile_opts o = { .cpus = &cpus,
					  .event = COLLECT_PROFILE_CYCLES,
					  .freq_hz = 4000,
					  .ring_pages = 8,
					  .ops = &pfake_ops };
	struct collect_profile *p = NULL;
	struct base_err err = { "" };

	(void)state;
	/* cycles when the machine has them */
	pfake_reset();
	assert_int_equal(collect_profile_open(&p, &o, &err), 0);
	assert_int_equal(pf.ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(pf.ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(pf.ev[0].attr.exclude_idle, 0);
	assert_int_equal(pf.ev[0].attr.sample_freq, 4000);
	assert_int_equal(pf.ev[1].cpu, 5);
	assert_int_equal(pf.ev[1].map_len, 9 * page_bytes());
	collect_profile_free(p);
	/* asked for cycles, none there */
	pfake_reset();
	pf.hw_err = -EOPNOTSUPP;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EOPNOTSUPP);
	assert_null(p);
	assert_string_equal(err.msg, "profile: cycles on cpu 0: "
				     "not supported by this machine");
	/* cpu-clock asked: cycles never tried */
	pfake_reset();
	pf.hw_err = -EACCES;
	o.event = COLLECT_PROFILE_CPU_CLOCK;
	assert_int_equal(collect_profile_open(&p, &o, &err), 0);
	assert_int_equal(pf.nev, 2);
	collect_profile_free(p);
	/* paranoid refuses both */
	pfake_reset();
	pf.hw_err = -EACCES;
	pf.sw_err = -EACCES;
	o.event = COLLECT_PROFILE_AUTO;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EACCES);
	assert_string_equal(err.msg, "profile: cpu-clock on cpu 0: "
				     "perf_event_paranoid forbids it");
	/* a cpu that is not there */
	pfake_reset();
	pf.hw_err = -ENOENT;
	pf.sw_err = -ENODEV;
	pf.sw_err_cpu = 5;
	assert_int_equal(collect_profile_open(&p, &o, &err), -ENODEV);
	assert_string_equal(err.msg, "profile: cpu 5: offline or absent");
	assert_int_equal(pfake_open_fds(), 0);
	/* mmap refused: everything closed */
	pfake_reset();
	pf.mmap_err = -EPERM;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EPERM);
	assert_non_null(strstr(err.msg, "profile: mmap of "));
	assert_int_equal(pfake_open_fds(), 0);
	/* a ring layout that is not a power of 2 */
	pfake_reset();
	pf.bad_layout = true;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EPROTO);
	assert_int_equal(pfake_open_fds(), 0);
	assert_int_equal(pf.nmapped, 0);
}

static void test_profile_bad_options_and_misuse(void **state)
{
	struct base_cpulist none = { .n = 0 }, one = { .n = 1, .cpu = { 0 } };
	struct collect_profile_opts o = { .cpus = &none, .ops = &pfake_ops };
	struct collect_profile_result r;
	struct collect_profile *p = NULL;
	struct base_err err = { "" };

	(void)state;
	pfake_reset();
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	assert_string_equal(err.msg, "profile: no cpus to sample");
	o.cpus = &one;
	o.ring_pages = 3;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	assert_string_equal(err.msg, "profile: ring of 3 pages: expected a "
				     "power of 2 up to 1024");
	o.ring_pages = 2048;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	o.ring_pages = 0;
	o.drain_ms = 5000;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	o.drain_ms = 0;
	o.freq_hz = 1000000;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	o.freq_hz = 0;
	o.max_ips = (size_t)1 << 30;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	o.max_ips = 0;
	o.event = (enum collect_profile_event)9;
	assert_int_equal(collect_profile_open(&p, &o, &err), -EINVAL);
	assert_int_equal(collect_profile_open(&p, NULL, &err), -EINVAL);
	assert_int_equal(pf.nev, 0);

	o.event = COLLECT_PROFILE_AUTO;
	assert_int_equal(collect_profile_open(&p, &o, &err), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, &err),
			 -EINVAL);
	assert_int_equal(collect_profile_stop(p, &err), -EINVAL);
	assert_string_equal(err.msg, "profile: not started");
	assert_int_equal(collect_profile_start(p, &err), 0);
	assert_int_equal(collect_profile_start(p, &err), -EINVAL);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, &err),
			 -EINVAL);
	assert_int_equal(pf.ev[0].enables, 1);
	assert_int_equal(pf.ev[0].disables, 0);
	/* free while running stops first */
	collect_profile_free(p);
	assert_int_equal(pf.ev[0].disables, 1);
	assert_int_equal(pfake_open_fds(), 0);
	collect_profile_free(NULL);
	collect_profile_result_release(NULL);
}

static void test_profile_second_window_starts_from_zero(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 0 } };
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	rec_kernel(&a, UDP_SENDMSG, 2);
	rec_lost(&a, 3);
	assert_int_equal(collect_profile_start(p, NULL), 0);
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 2);
	assert_int_equal(r.lost, 3);
	collect_profile_result_release(&r);

	assert_int_equal(collect_profile_start(p, NULL), 0);
	a.n = 0;
	rec_kernel(&a, SYS_SENDTO, 1);
	ring_put(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 1);
	assert_int_equal(r.lost, 0);
	check_row(&r, 0, COLLECT_PROFILE_KERNEL, 1);
	assert_int_equal(pf.ev[0].enables, 2);
	assert_int_equal(pf.ev[0].disables, 2);
	collect_profile_result_release(&r);
	collect_profile_free(p);
}

/*
 * --overhead: pausing disables every CPU's event once, resuming enables it
 * once, samples drained before, during and after still count, and the
 * result tells the active part of the window.
 */
static void test_profile_pause_switches_every_cpu_once(void **state)
{
	struct base_cpulist cpus = { .n = 2, .cpu = { 0, 1 } };
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	struct collect_profile_result r;
	struct collect_profile *p;
	struct recbuf a = { .n = 0 };
	struct base_err err = { "" };

	(void)state;
	pfake_reset();
	p = open_fake(&cpus, 0);
	assert_int_equal(collect_profile_pause(p, true, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "not started"));
	assert_int_equal(collect_profile_start(p, NULL), 0);
	rec_kernel(&a, UDP_SENDMSG, 3);
	ring_put_drained(ring_of(0), a.b, a.n);
	assert_int_equal(collect_profile_pause(p, true, NULL), 0);
	assert_int_equal(collect_profile_pause(p, true, NULL), 0);
	for (int i = 0; i < pf.nev; i++)
		assert_int_equal(pf.ev[i].disables, 1);
	nanosleep(&nap, NULL);
	assert_int_equal(collect_profile_pause(p, false, NULL), 0);
	for (int i = 0; i < pf.nev; i++)
		assert_int_equal(pf.ev[i].enables, 2);
	ring_put(ring_of(1), a.b, a.n);
	/* ends paused: stop disables again and counts the pause */
	assert_int_equal(collect_profile_pause(p, true, NULL), 0);
	nanosleep(&nap, NULL);
	assert_int_equal(collect_profile_stop(p, NULL), 0);
	assert_int_equal(collect_profile_result(p, NULL, 0, &r, NULL), 0);
	assert_int_equal(r.samples, 6);
	assert_true(r.active_ns > 0 && r.active_ns <= r.window_ns - 2 * 20 * 1000 * 1000);
	collect_profile_result_release(&r);
	assert_int_equal(collect_profile_pause(p, false, NULL), -EINVAL);
	collect_profile_free(p);
}

/* ---- the real kernel ---- */

struct udp_load {
	volatile int stop;
	int fd;
	struct sockaddr_in to;
	uint64_t sent;
};

static void *udp_sender(void *arg)
{
	struct udp_load *u = arg;
	char msg[256];

	memset(msg, 'u', sizeof(msg));
	while (!__atomic_load_n(&u->stop, __ATOMIC_RELAXED)) {
		if (sendto(u->fd, msg, sizeof(msg), 0,
			   (const struct sockaddr *)&u->to,
			   sizeof(u->to)) > 0)
			u->sent++;
	}
	return NULL;
}

static bool net_symbol(const char *name)
{
	static const char *const prefixes[] = {
		"udp_",	 "__udp", "ip_",     "__ip",
		"skb_",	 "__dev", "net_",    "__netif",
		"__x64_sys_sendto",  "__sys_sendto",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

static void test_profile_real_udp_loopback_shows_network_symbols(void **state)
{
	struct base_cpulist cpus = { .n = 0 };
	/* cpu-clock with the symbols: charged as on a machine without an
	 * NMI, whatever this one has */
	struct collect_profile_opts o = { .cpus = &cpus, .event = COLLECT_PROFILE_CPU_CLOCK };
	struct collect_profile_result r;
	struct collect_ksyms *ks = NULL;
	struct collect_profile *p = NULL;
	struct base_err err = { "" };
	struct udp_load u = { .fd = -1 };
	socklen_t alen = sizeof(u.to);
	int rx, ret;
	bool found = false;
	cpu_set_t set;
	pthread_t t;

	(void)state;
	ret = collect_ksyms_load(&ks, NULL, &err);
	if (ret == -EACCES) {
		print_message("skipped: %s\n", err.msg);
		skip();
	}
	if (ret)
		fail_msg("kallsyms: %s", err.msg);
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && cpus.n < BASE_CPU_MAX; c++)
		if (CPU_ISSET(c, &set))
			cpus.cpu[cpus.n++] = (uint16_t)c;
	o.ks = ks;
	ret = collect_profile_open(&p, &o, &err);
	if (ret == -EACCES || ret == -EPERM) {
		print_message("skipped: %s\n", err.msg);
		collect_ksyms_free(ks);
		skip();
	}
	if (ret)
		fail_msg("open: %s", err.msg);

	rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	u.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(rx >= 0 && u.fd >= 0);
	memset(&u.to, 0, sizeof(u.to));
	u.to.sin_family = AF_INET;
	u.to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(rx, (struct sockaddr *)&u.to, sizeof(u.to)), 0);
	assert_int_equal(getsockname(rx, (struct sockaddr *)&u.to, &alen), 0);

	assert_int_equal(collect_profile_start(p, &err), 0);
	assert_int_equal(pthread_create(&t, NULL, udp_sender, &u), 0);
	usleep(300 * 1000);
	__atomic_store_n(&u.stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(collect_profile_stop(p, &err), 0);
	assert_int_equal(collect_profile_result(p, ks, COLLECT_PROFILE_MIN_PCT, &r, &err), 0);

	print_message("%s (%s) on %u cpus: %llu samples in %.0f ms (%.0f/s), "
		      "%llu lost, %llu drains, collector %.2f ms cpu (%.2f%% "
		      "of one cpu), %llu datagrams, %llu charged to a caller\n",
		      r.event, r.fallback_reason[0] ? r.fallback_reason : "-",
		      cpus.n, (unsigned long long)r.samples,
		      (double)r.window_ns / 1e6,
		      (double)r.samples * 1e9 / (double)r.window_ns,
		      (unsigned long long)r.lost,
		      (unsigned long long)r.drains,
		      (double)r.collector_cpu_ns / 1e6,
		      100.0 * (double)r.collector_cpu_ns /
			      (double)r.window_ns,
		      (unsigned long long)u.sent, (unsigned long long)r.charged);
	for (size_t i = 0; i < r.nrows && i < 10; i++)
		print_message("  %5.1f%%  %s%s%s%s\n", r.rows[i].pct,
			      r.rows[i].name, r.rows[i].module ? " [" : "",
			      r.rows[i].module ? r.rows[i].module : "",
			      r.rows[i].module ? "]" : "");
	for (size_t i = 0; i < r.nrows; i++)
		found |= net_symbol(r.rows[i].name);
	assert_true(r.samples > 0);
	assert_true(u.sent > 0);
	assert_true(r.kernel_resolved);
	assert_int_equal(r.bad, 0);
	assert_true(found);
	/* a datagram's wake-up takes the receiver's queue lock with
	 * interrupts off: some samples fall due there and are charged */
	if (r.charging)
		assert_true(r.charged > 0 && r.charged <= r.kernel);
	else
		print_message("the kernel took no callchains: nothing charged\n");
	/* the chains name the callers: every kernel self row has its
	 * children row, at least as high */
	print_message("%zu self rows of %zu, %zu children rows of %zu at %g%%\n", r.nrows,
		      r.nrows_total, r.nchildren, r.nchildren_total, r.min_pct);
	assert_true(r.nchildren > 0);
	expect_children_cover_self(&r);

	collect_profile_result_release(&r);
	collect_profile_free(p);
	collect_ksyms_free(ks);
	close(rx);
	close(u.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms_excerpt_resolves_inside_functions),
		cmocka_unit_test(
			test_ksyms_shared_address_keeps_one_name_like_perf),
		cmocka_unit_test(test_ksyms_gaps_and_end_marks_are_unknown),
		cmocka_unit_test(test_ksyms_modules_and_their_data),
		cmocka_unit_test(
			test_ksyms_zeroed_addresses_mean_kptr_restrict),
		cmocka_unit_test(test_ksyms_malformed_fixture_names_the_line),
		cmocka_unit_test(test_ksyms_rejects_malformed_lines),
		cmocka_unit_test(test_ksyms_edge_inputs),
		cmocka_unit_test(test_ksyms_real_kallsyms),
		cmocka_unit_test(test_metric_name_keeps_safe_characters),
		cmocka_unit_test(
			test_metric_name_long_names_are_cut_and_stay_distinct),
		cmocka_unit_test(
			test_profile_ring_records_wrap_lost_and_unknown),
		cmocka_unit_test(test_profile_record_tail_wraps_on_old_layout),
		cmocka_unit_test(test_profile_malformed_record_drops_the_rest),
		cmocka_unit_test(test_profile_ip_table_overflow_counts_other),
		cmocka_unit_test(
			test_profile_rows_merge_same_name_across_modules),
		cmocka_unit_test(test_profile_threshold_keeps_every_symbol_over_it),
		cmocka_unit_test(test_profile_rows_are_capped),
		cmocka_unit_test(test_profile_charges_interrupts_off_samples_to_the_caller),
		cmocka_unit_test(test_profile_children_count_each_symbol_once_per_sample),
		cmocka_unit_test(test_profile_children_of_one_name_count_once),
		cmocka_unit_test(test_profile_auto_falls_back_to_cpu_clock),
		cmocka_unit_test(test_profile_event_choice_and_errors),
		cmocka_unit_test(test_profile_bad_options_and_misuse),
		cmocka_unit_test(test_profile_second_window_starts_from_zero),
		cmocka_unit_test(test_profile_pause_switches_every_cpu_once),
		cmocka_unit_test(
			test_profile_real_udp_loopback_shows_network_symbols),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
