// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for collect/counters: snmp, netstat, snmp6, softirqs, deltas. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "testdata.h"

#include "base/cpus.h"
#include "base/err.h"
#include "collect/counters.h"

static uint64_t value_of(const struct collect_counters *c, const char *name)
{
	const struct collect_counter *e = collect_counters_find(c, name);

	if (!e)
		fail_msg("no counter %s", name);
	return e->value;
}

static void parse_file(const char *name, const char *fmt,
		       struct collect_counters *c)
{
	struct base_err err = { "" };
	size_t len;
	char *text = testdata_load(name, &len);
	int ret;

	if (!strcmp(fmt, "snmp6"))
		ret = collect_parse_snmp6(text, len, c, &err);
	else if (!strcmp(fmt, "softirqs"))
		ret = collect_parse_softirqs(text, len, c, &err);
	else if (!strcmp(fmt, "interrupts"))
		ret = collect_parse_interrupts(text, len, c, &err);
	else
		ret = collect_parse_snmp(text, len, fmt, c, &err);
	if (ret)
		fail_msg("%s: %s", name, err.msg);
	free(text);
}

static void test_parse_snmp_6_18_names_every_column(void **state)
{
	struct collect_counters *c = collect_counters_new();
	const struct collect_counter *e;

	(void)state;
	assert_non_null(c);
	parse_file("proc-net-snmp.6.18", "snmp", c);
	/* Ip 20, Icmp 29, IcmpMsg 1, Tcp 15, Udp 9, UdpLite 9 */
	assert_int_equal(collect_counters_count(c), 83);
	assert_int_equal(value_of(c, "snmp.Ip.InReceives"), 173449400);
	assert_int_equal(value_of(c, "snmp.Tcp.OutSegs"), 125524073);
	assert_int_equal(value_of(c, "snmp.Udp.RcvbufErrors"), 11821491);
	assert_non_null(collect_counters_find(c, "snmp.Udp.MemErrors"));
	assert_non_null(collect_counters_find(c, "snmp.Ip.OutTransmits"));
	assert_non_null(collect_counters_find(c, "snmp.IcmpMsg.InType3"));
	assert_string_equal(collect_counters_at(c, 0)->name,
			    "snmp.Ip.Forwarding");
	assert_null(collect_counters_at(c, 83));

	e = collect_counters_find(c, "snmp.Tcp.MaxConn");
	assert_non_null(e);
	assert_true(e->flags & COLLECT_COUNTER_NEGATIVE);
	assert_true(e->flags & COLLECT_COUNTER_GAUGE);
	assert_int_equal(e->value, 1);
	assert_true(collect_counter_value(e) == -1.0);
	e = collect_counters_find(c, "snmp.Tcp.CurrEstab");
	assert_true(e->flags & COLLECT_COUNTER_GAUGE);
	e = collect_counters_find(c, "snmp.Tcp.InSegs");
	assert_int_equal(e->flags, 0);
	assert_int_equal(collect_counters_time_ns(c), 0);
	collect_counters_free(c);
}

static void test_parse_snmp_4_19_has_no_newer_columns(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-net-snmp.4.19", "snmp", c);
	assert_int_equal(collect_counters_count(c), 19 + 27 + 4 + 15 + 8 + 8);
	assert_null(collect_counters_find(c, "snmp.Udp.MemErrors"));
	assert_null(collect_counters_find(c, "snmp.Ip.OutTransmits"));
	assert_null(collect_counters_find(c, "snmp.Icmp.OutRateLimitHost"));
	assert_int_equal(value_of(c, "snmp.Udp.IgnoredMulti"), 1480);
	assert_int_equal(value_of(c, "snmp.Tcp.CurrEstab"), 12);
	collect_counters_free(c);
}

static void test_parse_snmp_3_2_has_no_udp_csum_columns(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-net-snmp.3.2", "snmp", c);
	assert_int_equal(collect_counters_count(c), 19 + 26 + 2 + 14 + 6 + 6);
	assert_null(collect_counters_find(c, "snmp.Udp.InCsumErrors"));
	assert_null(collect_counters_find(c, "snmp.Udp.IgnoredMulti"));
	assert_null(collect_counters_find(c, "snmp.Tcp.InCsumErrors"));
	assert_int_equal(value_of(c, "snmp.Udp.SndbufErrors"), 0);
	assert_int_equal(value_of(c, "snmp.Tcp.OutRsts"), 1187);
	collect_counters_free(c);
}

static void test_parse_netstat_6_18_and_4_19(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-net-netstat.6.18", "netstat", c);
	assert_int_equal(collect_counters_count(c), 229);
	assert_int_equal(value_of(c, "netstat.TcpExt.TCPRcvCollapsed"), 32712);
	assert_int_equal(value_of(c, "netstat.IpExt.InOctets"),
			 1063748706821ULL);
	assert_non_null(collect_counters_find(c, "netstat.MPTcpExt.MPCapableSYNRX"));

	collect_counters_clear(c);
	assert_int_equal(collect_counters_count(c), 0);
	assert_null(collect_counters_find(c, "netstat.IpExt.InOctets"));
	parse_file("proc-net-netstat.4.19", "netstat", c);
	assert_int_equal(collect_counters_count(c), 119 + 18);
	assert_non_null(collect_counters_find(c, "netstat.TcpExt.TCPAckCompressed"));
	assert_null(collect_counters_find(c, "netstat.TcpExt.TCPZeroWindowDrop"));
	assert_null(collect_counters_find(c, "netstat.MPTcpExt.MPCapableSYNRX"));
	collect_counters_free(c);
}

static void test_parse_snmp6_6_18(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-net-snmp6.6.18", "snmp6", c);
	assert_int_equal(collect_counters_count(c), 90);
	assert_int_equal(value_of(c, "snmp6.Udp6InDatagrams"), 2678095);
	assert_non_null(collect_counters_find(c, "snmp6.Ip6InReceives"));
	collect_counters_free(c);
}

static void test_parse_softirqs_two_cpus(void **state)
{
	struct collect_counters *c = collect_counters_new();
	const struct collect_counter *e;

	(void)state;
	parse_file("proc-softirqs.6.18", "softirqs", c);
	/* 10 totals, 2 x 2 per-CPU */
	assert_int_equal(collect_counters_count(c), 14);
	assert_int_equal(value_of(c, "softirq.NET_RX"), 90370113 + 95143348);
	assert_int_equal(value_of(c, "softirq.NET_RX.cpu0"), 90370113);
	assert_int_equal(value_of(c, "softirq.NET_RX.cpu1"), 95143348);
	assert_int_equal(value_of(c, "softirq.NET_TX"), 9);
	assert_null(collect_counters_find(c, "softirq.NET_RX.cpu2"));
	assert_null(collect_counters_find(c, "softirq.TIMER.cpu0"));
	assert_non_null(collect_counters_find(c, "softirq.HI"));
	e = collect_counters_find(c, "softirq.NET_RX");
	assert_true(e->flags & COLLECT_COUNTER_SUM);
	assert_int_equal(e->nparts, 2);
	e = collect_counters_find(c, "softirq.NET_RX.cpu1");
	assert_true(e->flags & COLLECT_COUNTER_WRAP32);
	collect_counters_free(c);
}

static void test_parse_softirqs_four_cpus(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-softirqs.4cpu", "softirqs", c);
	assert_int_equal(collect_counters_count(c), 10 + 2 * 4);
	assert_int_equal(value_of(c, "softirq.NET_RX.cpu3"), 9104876);
	assert_int_equal(value_of(c, "softirq.NET_RX"),
			 9022318 + 8610445 + 8795132 + 9104876);
	assert_int_equal(value_of(c, "softirq.TIMER"),
			 1733406 + 1602934 + 1588412 + 1597718);
	collect_counters_free(c);
}

static void test_parse_softirqs_names_cpus_by_header_with_gaps(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-softirqs.gap", "softirqs", c);
	assert_int_equal(value_of(c, "softirq.NET_RX.cpu3"), 1133071);
	assert_int_equal(value_of(c, "softirq.NET_RX.cpu6"), 4294967000ULL);
	assert_null(collect_counters_find(c, "softirq.NET_RX.cpu2"));
	assert_int_equal(value_of(c, "softirq.NET_TX.cpu1"), 9);
	assert_int_equal(collect_counters_find(c, "softirq.NET_RX")->nparts, 4);
	collect_counters_free(c);
}

static void test_parse_stat_ctxt_intr_and_forks(void **state)
{
	static const char stat[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\n"
				   "intr 123456 0 9 0 7\nctxt 987654\n"
				   "btime 1700000000\nprocesses 4321\n";
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_parse_stat(stat, strlen(stat), c, &err), 0);
	assert_int_equal(collect_counters_count(c), 3);
	assert_int_equal(value_of(c, "stat.intr"), 123456);
	assert_int_equal(value_of(c, "stat.ctxt"), 987654);
	assert_int_equal(value_of(c, "stat.processes"), 4321);
	collect_counters_clear(c);
	assert_int_equal(collect_parse_stat("ctxt x\n", 7, c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 1"));
	collect_counters_free(c);
}

/* Parse text with parser fmt into a fresh snapshot; the return code, with
 * the message in err. */
static int parse_text(const char *fmt, const char *text,
		      struct base_err *err)
{
	struct collect_counters *c = collect_counters_new();
	size_t len = strlen(text);
	int ret;

	assert_non_null(c);
	err->msg[0] = '\0';
	if (!strcmp(fmt, "snmp6"))
		ret = collect_parse_snmp6(text, len, c, err);
	else if (!strcmp(fmt, "softirqs"))
		ret = collect_parse_softirqs(text, len, c, err);
	else if (!strcmp(fmt, "interrupts"))
		ret = collect_parse_interrupts(text, len, c, err);
	else
		ret = collect_parse_snmp(text, len, fmt, c, err);
	collect_counters_free(c);
	return ret;
}

static void expect_reject(const char *fmt, const char *text, int code,
			  const char *needle)
{
	struct base_err err;
	int ret = parse_text(fmt, text, &err);

	if (ret != code)
		fail_msg("expected %d, got %d (%s) for:\n%s", code, ret,
			 err.msg, text);
	if (!strstr(err.msg, needle))
		fail_msg("error '%s' does not contain '%s'", err.msg, needle);
}

/* This machine's /proc/interrupts (x86, PVM guest): the named rows, the
 * devices' numbered lines left to stat.intr, the wake-up and call IPIs
 * per CPU, ERR and MIS as one count each. */
static void test_parse_interrupts_x86(void **state)
{
	struct collect_counters *c = collect_counters_new();
	const struct collect_counter *e;

	(void)state;
	parse_file("proc-interrupts.6.18", "interrupts", c);
	/* 15 named rows, RES and CAL 2 CPUs each */
	assert_int_equal(collect_counters_count(c), 15 + 2 * 2);
	assert_int_equal(value_of(c, "irq.CAL"), 182019644ULL + 327304125ULL);
	assert_int_equal(value_of(c, "irq.CAL.cpu1"), 327304125);
	assert_int_equal(value_of(c, "irq.RES.cpu0"), 1398499);
	assert_int_equal(value_of(c, "irq.LOC"), 139692172ULL + 26042900ULL);
	assert_int_equal(value_of(c, "irq.IWI"), 33 + 18);
	assert_null(collect_counters_find(c, "irq.LOC.cpu0"));
	assert_non_null(collect_counters_find(c, "irq.ERR"));
	assert_non_null(collect_counters_find(c, "irq.PIW"));
	assert_null(collect_counters_find(c, "irq.24"));
	e = collect_counters_find(c, "irq.RES");
	assert_true(e->flags & COLLECT_COUNTER_SUM);
	assert_int_equal(e->nparts, 2);
	assert_true(collect_counters_find(c, "irq.RES.cpu1")->flags & COLLECT_COUNTER_WRAP32);
	assert_false(collect_counters_find(c, "irq.ERR")->flags & COLLECT_COUNTER_SUM);
	collect_counters_free(c);
}

/* arm64 names its IPIs by number; the description says which wake. */
static void test_parse_interrupts_arm64(void **state)
{
	struct collect_counters *c = collect_counters_new();

	(void)state;
	parse_file("proc-interrupts.arm64", "interrupts", c);
	assert_int_equal(collect_counters_count(c), 8 + 2 * 4);
	assert_int_equal(value_of(c, "irq.IPI0.cpu3"), 49903);
	assert_int_equal(value_of(c, "irq.IPI1"), 123456 + 118765 + 120001 + 119876);
	assert_int_equal(value_of(c, "irq.IPI5"), 812 + 790 + 801 + 799);
	assert_null(collect_counters_find(c, "irq.IPI5.cpu0"));
	assert_int_equal(value_of(c, "irq.Err"), 0);
	collect_counters_free(c);
}

static void test_parse_interrupts_rejects_malformed_rows(void **state)
{
	static const char head[] = "      CPU0 CPU1 CPU2\n";
	char text[512];

	(void)state;
	snprintf(text, sizeof(text), "%sRES: 1 2 Rescheduling interrupts\n", head);
	expect_reject("interrupts", text, -EINVAL, "2 values for 3 CPU columns");
	snprintf(text, sizeof(text), "%sCAL: 1 Function call interrupts\n", head);
	expect_reject("interrupts", text, -EINVAL, "line 2 'CAL: 1 Function");
	snprintf(text, sizeof(text), "%sRES 1 2 3\n", head);
	expect_reject("interrupts", text, -EINVAL, "expected an interrupt number or name");
	snprintf(text, sizeof(text), "%sR-S: 1 2 3\n", head);
	expect_reject("interrupts", text, -EINVAL, "expected an interrupt number or name");
	snprintf(text, sizeof(text), "%sCAL: 1 4294967296 3 Function call interrupts\n", head);
	expect_reject("interrupts", text, -ERANGE, "over 32 bits");
	expect_reject("interrupts", "NMI: 0 0\n", -EINVAL, "not a CPU column");
	expect_reject("interrupts", "", -EINVAL, "no CPU header line");
}

/*
 * The file reader: a large machine's thousands of device lines (far over
 * the snapshot's read buffer) are dropped before parsing; a bad named row
 * adds nothing, the counters already there stay findable, and the error
 * names the file and the line; a missing file adds nothing.
 */
static void test_add_interrupts_from_a_file(void **state)
{
	char dir[] = "/tmp/nr-irq-XXXXXX", path[64];
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };
	FILE *f;

	(void)state;
	assert_non_null(c);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/interrupts", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "           CPU0       CPU1\n");
	for (int i = 0; i < 20000; i++)
		fprintf(f, "%5d: %10d %10d  PCI-MSIX-0000:00:01.0 %d-edge  dev%d\n", i, i, i, i, i);
	fprintf(f, "RES: 5 7 Rescheduling interrupts\nERR: 2\n");
	assert_true(ftell(f) > COLLECT_COUNTERS_FILE_MAX);
	fclose(f);
	assert_int_equal(collect_parse_stat("ctxt 5\n", 7, c, &err), 0);
	assert_int_equal(collect_counters_add_interrupts(c, path, &err), 0);
	assert_int_equal(collect_counters_count(c), 1 + 3 + 1);
	assert_int_equal(value_of(c, "irq.RES.cpu1"), 7);
	assert_int_equal(value_of(c, "irq.ERR"), 2);

	collect_counters_clear(c);
	assert_int_equal(collect_parse_stat("ctxt 5\n", 7, c, &err), 0);
	testdata_put(dir, "interrupts", "  CPU0 CPU1\nLOC: 1 2 Local timer interrupts\n"
					"RES: 5 7 Rescheduling interrupts\nCAL: 1 x\n");
	assert_int_equal(collect_counters_add_interrupts(c, path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "interrupts: line 4 'CAL: 1 x': 1 values for 2 CPU columns"));
	assert_int_equal(collect_counters_count(c), 1);
	assert_non_null(collect_counters_find(c, "stat.ctxt"));
	assert_null(collect_counters_find(c, "irq.RES.cpu0"));
	assert_null(collect_counters_find(c, "irq.LOC"));

	assert_int_equal(testdata_rmtree(dir), 0);
	assert_int_equal(collect_counters_add_interrupts(c, path, &err), 0);
	assert_int_equal(collect_counters_count(c), 1);
	collect_counters_free(c);
}

static void test_parse_snmp_rejects_malformed_pairs(void **state)
{
	(void)state;
	expect_reject("snmp", "Ip: Forwarding DefaultTTL\n", -EINVAL,
		      "line 1 'Ip: Forwarding DefaultTTL': header without a value line");
	expect_reject("snmp",
		      "Ip: Forwarding DefaultTTL\nIp: 1 64\n"
		      "Tcp: InSegs OutSegs\nUdp: InDatagrams\nUdp: 4\n",
		      -EINVAL,
		      "line 4 'Udp: InDatagrams': expected the values of section 'Tcp'");
	expect_reject("snmp", "Tcp: InSegs OutSegs RetransSegs\nTcp: 10 20\n",
		      -EINVAL,
		      "line 2 'Tcp: 10 20': section 'Tcp' has 3 names but 2 values");
	expect_reject("snmp", "Tcp: InSegs OutSegs\nTcp: 10 20 30\n", -EINVAL,
		      "section 'Tcp' has 2 names but 3 values");
	expect_reject("netstat", "TcpExt: A B\nTcpExt: 1 x2\n", -EINVAL,
		      "line 2 'TcpExt: 1 x2': value 'x2' is not a decimal number");
	expect_reject("netstat", "TcpExt: A B\nTcpExt: 1 2.5\n", -EINVAL,
		      "value '2.5' is not a decimal number");
	expect_reject("snmp", "Tcp: A\nTcp: 18446744073709551616\n", -ERANGE,
		      "is not a 64-bit number");
	expect_reject("snmp", "Tcp: A\nTcp: -\n", -EINVAL,
		      "value '-' is not a decimal number");
	expect_reject("snmp", "Tcp: A B-C\nTcp: 1 2\n", -EINVAL,
		      "line 1 'Tcp: A B-C': 'B-C' is not a counter name");
	expect_reject("snmp", "Tcp A B\nTcp 1 2\n", -EINVAL,
		      "line 1 'Tcp A B': expected a section name and ':'");
	expect_reject("snmp", "Ip: 1 64\nIp: 1 64\n", -EINVAL,
		      "'1' is not a counter name");
	expect_reject("snmp", "Ip: A\nIp: 1\n\nTcp: B\nTcp: 2\n", -EINVAL,
		      "line 3 '': empty line");
	expect_reject("snmp", "Ip: A\n Ip: 1\n", -EINVAL,
		      "line 2 ' Ip: 1': starts with a blank");
	expect_reject("snmp", "Ip: A A\nIp: 1 2\n", -EEXIST,
		      "second counter 'snmp.Ip.A'");
	expect_reject("snmp",
		      "Ip: ThisIsAnAbsurdlyLongCounterNameThatNoKernelPrintsAtAllReally\n"
		      "Ip: 1\n",
		      -ENAMETOOLONG, "is longer than 63 bytes");
}

static void test_parse_snmp_accepts_missing_final_newline_and_blanks(void **state)
{
	static const char text[] = "Ip: A  B \t\nIp:  1\t2 \nTcp: C\nTcp: 3";
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_parse_snmp(text, strlen(text), "snmp", c, &err),
			 0);
	assert_int_equal(collect_counters_count(c), 3);
	assert_int_equal(value_of(c, "snmp.Ip.B"), 2);
	assert_int_equal(value_of(c, "snmp.Tcp.C"), 3);
	/* only the len bytes count: the text need not end in a NUL */
	collect_counters_clear(c);
	assert_int_equal(collect_parse_snmp(text, 21, "snmp", c, &err), 0);
	assert_int_equal(collect_counters_count(c), 2);
	collect_counters_clear(c);
	assert_int_equal(collect_parse_snmp("", 0, "snmp", c, &err), 0);
	assert_int_equal(collect_counters_count(c), 0);
	collect_counters_free(c);
}

static void test_parse_rejects_over_long_line(void **state)
{
	size_t n = COLLECT_COUNTERS_LINE_MAX + 100, i;
	char *text = malloc(n + 32);
	struct base_err err;
	size_t off = 0;

	(void)state;
	assert_non_null(text);
	off += (size_t)sprintf(text, "Ip: A\nIp: 1\nTcp:");
	for (i = 0; off < n; i++)
		off += (size_t)sprintf(text + off, " C%zu", i);
	text[off++] = '\n';
	text[off] = '\0';
	assert_int_equal(parse_text("snmp", text, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "line 3 'Tcp: C0 C1"));
	assert_non_null(strstr(err.msg, "longer than 65536 bytes"));

	memcpy(text, "Ip6InReceives ", 14);
	memset(text + 14, '1', n - 14);
	text[n] = '\0';
	assert_int_equal(parse_text("snmp6", text, &err), -E2BIG);
	assert_non_null(strstr(err.msg, "line 1 'Ip6InReceives 111"));
	free(text);
}

static void test_parse_rejects_more_counters_than_the_cap(void **state)
{
	size_t cols = COLLECT_COUNTERS_MAX + 1, i, off = 0;
	char *text = malloc(cols * 16 + 64);
	struct base_err err;

	(void)state;
	assert_non_null(text);
	off += (size_t)sprintf(text + off, "Big:");
	for (i = 0; i < cols; i++)
		off += (size_t)sprintf(text + off, " C%zu", i);
	off += (size_t)sprintf(text + off, "\nBig:");
	for (i = 0; i < cols; i++)
		off += (size_t)sprintf(text + off, " %zu", i);
	text[off++] = '\n';
	text[off] = '\0';
	assert_int_equal(parse_text("snmp", text, &err), -ENOSPC);
	assert_non_null(strstr(err.msg, "more than 8192 counters"));
	free(text);
}

static void test_parse_rejects_duplicate_across_files(void **state)
{
	static const char text[] = "Ip: A\nIp: 1\n";
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_parse_snmp(text, strlen(text), "snmp", c, &err),
			 0);
	assert_int_equal(collect_parse_snmp(text, strlen(text), "netstat", c,
					    &err),
			 0);
	assert_int_equal(collect_parse_snmp(text, strlen(text), "snmp", c, &err),
			 -EEXIST);
	assert_int_equal(collect_counters_count(c), 2);
	collect_counters_free(c);
}

static void test_parse_snmp6_rejects_malformed_lines(void **state)
{
	(void)state;
	expect_reject("snmp6", "Ip6InReceives 1\nIp6InHdrErrors\n", -EINVAL,
		      "line 2 'Ip6InHdrErrors': no value");
	expect_reject("snmp6", "Ip6InReceives 1 2\n", -EINVAL,
		      "more than one value");
	expect_reject("snmp6", "Ip6InReceives\t-1\n", -EINVAL,
		      "value '-1' is not a decimal number");
	expect_reject("snmp6", "Ip6InReceives 1\nIp6InReceives 2\n", -EEXIST,
		      "line 2");
	expect_reject("snmp6", "Ip6:InReceives 1\n", -EINVAL,
		      "'Ip6:InReceives' is not a counter name");
}

static void test_parse_softirqs_rejects_malformed_rows(void **state)
{
	(void)state;
	expect_reject("softirqs", "", -EINVAL, "no CPU header line");
	expect_reject("softirqs", "   CPU0  CPU1\n NET_RX: 1 2 3\n", -EINVAL,
		      "line 2 ' NET_RX: 1 2 3': 3 values for 2 CPU columns");
	expect_reject("softirqs", "   CPU0  CPU1\n NET_RX: 1\n", -EINVAL,
		      "1 values for 2 CPU columns");
	expect_reject("softirqs", "   CPU0  CPUx\n NET_RX: 1 2\n", -EINVAL,
		      "line 1 '   CPU0  CPUx': 'CPUx' is not a CPU column");
	expect_reject("softirqs", "   CPU1  CPU0\n NET_RX: 1 2\n", -EINVAL,
		      "CPU0 does not follow CPU1");
	expect_reject("softirqs", "   CPU0  CPU0\n NET_RX: 1 2\n", -EINVAL,
		      "CPU0 does not follow CPU0");
	expect_reject("softirqs", "\n", -EINVAL, "no CPU columns");
	expect_reject("softirqs", "   CPU0  CPU1\n NET_RX: 1 two\n", -EINVAL,
		      "line 2 ' NET_RX: 1 two': value 'two' is not a decimal number");
	expect_reject("softirqs", "   CPU0  CPU1\n NET_RX 1 2\n", -EINVAL,
		      "expected a softirq name and ':'");
	expect_reject("softirqs", "   CPU0\n NET_RX: 4294967296\n", -ERANGE,
		      "over 32 bits");
	expect_reject("softirqs", "   CPU0\n TIMER: 1\n TIMER: 2\n", -EEXIST,
		      "line 3");
	expect_reject("softirqs", "   CPU0\n TIMER: 1\n\n", -EINVAL,
		      "line 3 '': empty line");
}

/* What the delta callback saw. */
struct seen {
	size_t n;
	struct {
		char name[COLLECT_COUNTER_NAME_MAX];
		enum collect_delta_kind kind;
		double value;
	} d[64];
};

static void record(void *ctx, const char *name, enum collect_delta_kind kind,
		   double value)
{
	struct seen *s = ctx;

	assert_true(s->n < ARRAY_SIZE(s->d));
	snprintf(s->d[s->n].name, sizeof(s->d[s->n].name), "%s", name);
	s->d[s->n].kind = kind;
	s->d[s->n].value = value;
	s->n++;
}

/* The delta seen for name; fails if there was none. */
static double seen_value(const struct seen *s, const char *name,
			 enum collect_delta_kind kind)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->d[i].name, name))
			continue;
		if (s->d[i].kind != kind)
			fail_msg("%s: kind %d, expected %d", name,
				 (int)s->d[i].kind, (int)kind);
		return s->d[i].value;
	}
	fail_msg("no delta for %s", name);
	return 0;
}

static bool seen_any(const struct seen *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->d[i].name, name))
			return true;
	return false;
}

static struct collect_counters *snapshot(const char *snmp,
					 const char *softirqs)
{
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };

	assert_non_null(c);
	if (collect_parse_snmp(snmp, strlen(snmp), "snmp", c, &err) ||
	    collect_parse_softirqs(softirqs, strlen(softirqs), c, &err))
		fail_msg("%s", err.msg);
	return c;
}

static void test_delta_increases_resets_gauges_and_missing(void **state)
{
	struct collect_counters *a, *b;
	struct seen s = { 0 };

	(void)state;
	a = snapshot("Tcp: RtoMin MaxConn CurrEstab InSegs OutSegs OutRsts\n"
		     "Tcp: 200 -1 10 1000 2000 50\n"
		     "Udp: InDatagrams RcvbufErrors\n"
		     "Udp: 500 7\n"
		     "Old: Gone\nOld: 3\n",
		     "  CPU0 CPU1\nNET_RX: 100 200\nTIMER: 5 6\n");
	b = snapshot("Tcp: RtoMin MaxConn CurrEstab InSegs OutSegs OutRsts\n"
		     "Tcp: 200 -1 4 1500 2600 20\n"
		     "Udp: InDatagrams RcvbufErrors MemErrors\n"
		     "Udp: 900 7 1\n",
		     "  CPU0 CPU1\nNET_RX: 150 260\nTIMER: 9 9\n");
	assert_int_equal(collect_counters_delta(a, b, record, &s), 0);

	assert_true(seen_value(&s, "snmp.Tcp.InSegs", COLLECT_DELTA_INCREASE) ==
		    500.0);
	assert_true(seen_value(&s, "snmp.Tcp.OutSegs", COLLECT_DELTA_INCREASE) ==
		    600.0);
	assert_true(seen_value(&s, "snmp.Udp.InDatagrams",
			       COLLECT_DELTA_INCREASE) == 400.0);
	assert_true(seen_value(&s, "snmp.Udp.RcvbufErrors",
			       COLLECT_DELTA_INCREASE) == 0.0);
	/* went backwards: a reset, with the (negative) difference */
	assert_true(seen_value(&s, "snmp.Tcp.OutRsts", COLLECT_DELTA_RESET) ==
		    -30.0);
	/* gauges: the end value, with its sign */
	assert_true(seen_value(&s, "snmp.Tcp.CurrEstab", COLLECT_DELTA_GAUGE) ==
		    4.0);
	assert_true(seen_value(&s, "snmp.Tcp.MaxConn", COLLECT_DELTA_GAUGE) ==
		    -1.0);
	assert_true(seen_value(&s, "snmp.Tcp.RtoMin", COLLECT_DELTA_GAUGE) ==
		    200.0);
	/* appeared in b, disappeared from b: skipped */
	assert_false(seen_any(&s, "snmp.Udp.MemErrors"));
	assert_false(seen_any(&s, "snmp.Old.Gone"));

	assert_true(seen_value(&s, "softirq.NET_RX", COLLECT_DELTA_INCREASE) ==
		    110.0);
	assert_true(seen_value(&s, "softirq.NET_RX.cpu1",
			       COLLECT_DELTA_INCREASE) == 60.0);
	assert_true(seen_value(&s, "softirq.TIMER", COLLECT_DELTA_INCREASE) ==
		    7.0);
	assert_int_equal(s.n, 6 + 2 + 3 + 1);
	assert_string_equal(s.d[0].name, "snmp.Tcp.RtoMin");

	assert_int_equal(collect_counters_delta(NULL, b, record, &s), -EINVAL);
	assert_int_equal(collect_counters_delta(a, b, NULL, &s), -EINVAL);
	collect_counters_free(a);
	collect_counters_free(b);
}

static void test_delta_softirq_wraps_at_32_bits(void **state)
{
	struct collect_counters *a, *b;
	struct seen s = { 0 };

	(void)state;
	/* cpu1 wraps: 4294967000 -> 704 is 1000 more; TIMER's plain sum
	 * goes backwards and is a reset. */
	a = snapshot("", "  CPU0 CPU1\nNET_RX: 100 4294967000\n"
			 "TIMER: 10 4294967290\n");
	b = snapshot("", "  CPU0 CPU1\nNET_RX: 150 704\nTIMER: 20 10\n");
	assert_int_equal(collect_counters_delta(a, b, record, &s), 0);
	assert_true(seen_value(&s, "softirq.NET_RX.cpu1",
			       COLLECT_DELTA_INCREASE) == 1000.0);
	assert_true(seen_value(&s, "softirq.NET_RX.cpu0",
			       COLLECT_DELTA_INCREASE) == 50.0);
	assert_true(seen_value(&s, "softirq.NET_RX", COLLECT_DELTA_INCREASE) ==
		    1050.0);
	assert_true(seen_value(&s, "softirq.TIMER", COLLECT_DELTA_RESET) < 0);
	collect_counters_free(a);
	collect_counters_free(b);
}

static void test_delta_softirq_total_over_cpus_in_both(void **state)
{
	struct collect_counters *a, *b;
	struct seen s = { 0 };

	(void)state;
	/* CPU2 only in b (hot-added to the possible map): not in the total */
	a = snapshot("", "  CPU0 CPU1\nNET_RX: 100 200\n");
	b = snapshot("", "  CPU0 CPU1 CPU2\nNET_RX: 110 230 5000\n");
	assert_int_equal(collect_counters_delta(a, b, record, &s), 0);
	assert_true(seen_value(&s, "softirq.NET_RX", COLLECT_DELTA_INCREASE) ==
		    40.0);
	assert_false(seen_any(&s, "softirq.NET_RX.cpu2"));
	collect_counters_free(a);
	collect_counters_free(b);
}

/* Count kinds over a full delta without recording names. */
struct kinds {
	size_t n[3];
	double sum_increase;
};

static void count_kind(void *ctx, const char *name,
		       enum collect_delta_kind kind, double value)
{
	struct kinds *k = ctx;

	(void)name;
	k->n[kind]++;
	if (kind == COLLECT_DELTA_INCREASE)
		k->sum_increase += value;
}

static void test_delta_of_snapshot_with_itself(void **state)
{
	struct collect_counters *c = collect_counters_new();
	struct kinds k = { { 0 }, 0 };

	(void)state;
	parse_file("proc-net-snmp.6.18", "snmp", c);
	parse_file("proc-net-netstat.6.18", "netstat", c);
	parse_file("proc-net-snmp6.6.18", "snmp6", c);
	parse_file("proc-softirqs.6.18", "softirqs", c);
	assert_int_equal(collect_counters_delta(c, c, count_kind, &k), 0);
	assert_int_equal(k.n[COLLECT_DELTA_GAUGE], 7);
	assert_int_equal(k.n[COLLECT_DELTA_RESET], 0);
	assert_int_equal(k.n[COLLECT_DELTA_INCREASE],
			 collect_counters_count(c) - 7);
	assert_true(k.sum_increase == 0.0);
	collect_counters_free(c);
}

/* Record only the counters the traffic test looks at. */
static void record_udp(void *ctx, const char *name,
		       enum collect_delta_kind kind, double value)
{
	if (!strcmp(name, "snmp.Udp.OutDatagrams") ||
	    !strcmp(name, "snmp.Udp.InDatagrams") || !strcmp(name, "stat.ctxt"))
		record(ctx, name, kind, value);
}

/*
 * cpuidle from a copy of /sys: each state summed over the CPUs that have
 * it, named after cpu0's name for it (blanks made '_', a name taken twice
 * or empty by its index); a CPU without cpuidle is not counted; a usage
 * that is not a number is an error naming the file; a tree without
 * cpuidle adds nothing.
 */
static void test_cpuidle_sums_states_over_cpus(void **state)
{
	char dir[] = "/tmp/nr-cpuidle-XXXXXX";
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" };

	(void)state;
	assert_non_null(mkdtemp(dir));
	testdata_put(dir, "devices/system/cpu/online", "0-2\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/usage", "10\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/time", "100\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state1/name", "haltpoll idle\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state1/usage", "2000\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state1/time", "900000\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state2/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state2/usage", "1\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state2/time", "5\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/usage", "5\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/time", "50\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state1/name", "haltpoll idle\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state1/usage", "3000\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state1/time", "800000\n");
	/* cpu2 has no cpuidle; cpufreq and cpuidle are not CPUs */
	testdata_put(dir, "devices/system/cpu/cpu2/online", "1\n");
	testdata_put(dir, "devices/system/cpu/cpuidle/current_driver", "haltpoll\n");

	assert_int_equal(collect_counters_add_cpuidle(c, dir, NULL, &err), 0);
	assert_int_equal(collect_counters_count(c), 7);
	assert_int_equal(value_of(c, "cpuidle.POLL.usage"), 15);
	assert_int_equal(value_of(c, "cpuidle.POLL.time_us"), 150);
	assert_int_equal(value_of(c, "cpuidle.haltpoll_idle.usage"), 5000);
	assert_int_equal(value_of(c, "cpuidle.haltpoll_idle.time_us"), 1700000);
	assert_int_equal(value_of(c, "cpuidle.state2.usage"), 1);
	assert_int_equal(value_of(c, "cpuidle.cpus"), 2);
	assert_true(collect_counter_is_gauge("cpuidle.cpus"));

	/* only the CPUs asked for; one without cpuidle adds nothing */
	{
		struct base_cpulist some = { .n = 2, .cpu = { 1, 2 } };

		collect_counters_clear(c);
		assert_int_equal(collect_counters_add_cpuidle(c, dir, &some, &err), 0);
		assert_int_equal(collect_counters_count(c), 5);
		assert_int_equal(value_of(c, "cpuidle.POLL.usage"), 5);
		assert_int_equal(value_of(c, "cpuidle.haltpoll_idle.time_us"), 800000);
		assert_int_equal(value_of(c, "cpuidle.cpus"), 1);
	}
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/time", "-\n");
	collect_counters_clear(c);
	assert_int_equal(collect_counters_add_cpuidle(c, dir, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cpu1/cpuidle/state0/time: '-' is not a count of microseconds"));
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/time", "50\n");

	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state1/usage", "many\n");
	collect_counters_clear(c);
	assert_int_equal(collect_counters_add_cpuidle(c, dir, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "cpu1/cpuidle/state1/usage: 'many' is not a count"));

	assert_int_equal(testdata_rmtree(dir), 0);
	collect_counters_clear(c);
	assert_int_equal(collect_counters_add_cpuidle(c, dir, NULL, &err), 0);
	assert_int_equal(collect_counters_count(c), 0);
	collect_counters_free(c);
}

/*
 * A sample's snapshot over this machine's /proc and a copy of /sys: the
 * idle states join the counters; a cpuidle file that is not a number
 * leaves the counters, every one findable, without a cpuidle entry, and
 * says which file.
 */
static void test_snapshot_keeps_the_counters_without_bad_idle_states(void **state)
{
	char dir[] = "/tmp/nr-snapshot-XXXXXX";
	struct collect_counters *c = collect_counters_new();
	struct base_err err = { "" }, idle = { "" }, irq = { "" };
	size_t n;

	(void)state;
	assert_non_null(c);
	assert_non_null(mkdtemp(dir));
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/usage", "10\n");
	testdata_put(dir, "devices/system/cpu/cpu0/cpuidle/state0/time", "100\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/name", "POLL\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/usage", "5\n");
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/time", "50\n");
	if (collect_counters_snapshot(c, dir, NULL, &err, &idle, &irq))
		fail_msg("%s", err.msg);
	assert_string_equal(idle.msg, "");
	assert_string_equal(irq.msg, "");
	assert_non_null(collect_counters_find(c, "irq.LOC"));
	assert_int_equal(value_of(c, "cpuidle.POLL.usage"), 15);
	assert_non_null(collect_counters_find(c, "snmp.Ip.InReceives"));
	n = collect_counters_count(c);

	/* cpu0 adds its state, then cpu1's is bad: none of it stays */
	testdata_put(dir, "devices/system/cpu/cpu1/cpuidle/state0/usage", "lots\n");
	if (collect_counters_snapshot(c, dir, NULL, &err, &idle, &irq))
		fail_msg("%s", err.msg);
	assert_non_null(strstr(idle.msg, "cpu1/cpuidle/state0/usage: 'lots' is not a count"));
	assert_int_equal(collect_counters_count(c), n - 3);
	assert_null(collect_counters_find(c, "cpuidle.POLL.usage"));
	assert_null(collect_counters_find(c, "cpuidle.cpus"));
	for (size_t i = 0; i < collect_counters_count(c); i++) {
		const struct collect_counter *e = collect_counters_at(c, i);

		assert_ptr_equal(collect_counters_find(c, e->name), e);
	}

	assert_int_equal(testdata_rmtree(dir), 0);
	collect_counters_free(c);
}

static void test_read_this_machine_and_see_udp_traffic(void **state)
{
	struct collect_counters *a = collect_counters_new();
	struct collect_counters *b = collect_counters_new();
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t alen = sizeof(addr);
	struct base_err err = { "" };
	struct seen s = { 0 };
	char payload[32] = "netregress";
	int fd, i;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	if (collect_counters_read(a, &err))
		fail_msg("%s", err.msg);
	assert_true(collect_counters_count(a) > 200);
	assert_true(collect_counters_time_ns(a) > 0);
	assert_non_null(collect_counters_find(a, "snmp.Ip.InReceives"));
	assert_non_null(collect_counters_find(a, "snmp.Udp.RcvbufErrors"));
	assert_non_null(collect_counters_find(a, "netstat.TcpExt.TCPRcvCollapsed"));
	assert_non_null(collect_counters_find(a, "netstat.IpExt.InOctets"));
	assert_non_null(collect_counters_find(a, "softirq.NET_RX"));
	assert_non_null(collect_counters_find(a, "softirq.NET_RX.cpu0"));
	assert_non_null(collect_counters_find(a, "stat.ctxt"));
	assert_non_null(collect_counters_find(a, "stat.intr"));
	if (access("/proc/net/snmp6", R_OK) == 0)
		assert_non_null(collect_counters_find(a, "snmp6.Udp6InDatagrams"));
	assert_null(collect_counters_find(a, "cpuidle.cpus"));
	if (access("/sys/devices/system/cpu/cpu0/cpuidle/state0/usage", R_OK) == 0) {
		struct base_cpulist cpu0 = { .n = 1, .cpu = { 0 } };

		assert_int_equal(collect_counters_add_cpuidle(a, "/sys", &cpu0, &err), 0);
		assert_int_equal(value_of(a, "cpuidle.cpus"), 1);
	}

	/* 20 datagrams to ourselves on loopback */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &alen), 0);
	for (i = 0; i < 20; i++)
		assert_int_equal(sendto(fd, payload, sizeof(payload), 0,
					(struct sockaddr *)&addr, sizeof(addr)),
				 (ssize_t)sizeof(payload));
	for (i = 0; i < 20; i++)
		assert_int_equal(recv(fd, payload, sizeof(payload), MSG_DONTWAIT),
				 (ssize_t)sizeof(payload));
	close(fd);

	/* reuse: the second read clears b first */
	assert_int_equal(collect_counters_read(b, &err), 0);
	assert_int_equal(collect_counters_read(b, &err), 0);
	assert_true(collect_counters_time_ns(b) > collect_counters_time_ns(a));
	assert_int_equal(collect_counters_delta(a, b, record_udp, &s), 0);
	assert_true(s.n >= 1);
	assert_true(seen_value(&s, "snmp.Udp.OutDatagrams",
			       COLLECT_DELTA_INCREASE) >= 20.0);
	assert_true(seen_value(&s, "snmp.Udp.InDatagrams",
			       COLLECT_DELTA_INCREASE) >= 20.0);
	assert_true(seen_value(&s, "stat.ctxt", COLLECT_DELTA_INCREASE) >= 0.0);
	collect_counters_free(a);
	collect_counters_free(b);
	collect_counters_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_snmp_6_18_names_every_column),
		cmocka_unit_test(test_parse_snmp_4_19_has_no_newer_columns),
		cmocka_unit_test(test_parse_snmp_3_2_has_no_udp_csum_columns),
		cmocka_unit_test(test_parse_netstat_6_18_and_4_19),
		cmocka_unit_test(test_parse_snmp6_6_18),
		cmocka_unit_test(test_parse_softirqs_two_cpus),
		cmocka_unit_test(test_parse_softirqs_four_cpus),
		cmocka_unit_test(test_parse_softirqs_names_cpus_by_header_with_gaps),
		cmocka_unit_test(test_parse_interrupts_x86),
		cmocka_unit_test(test_parse_interrupts_arm64),
		cmocka_unit_test(test_parse_interrupts_rejects_malformed_rows),
		cmocka_unit_test(test_add_interrupts_from_a_file),
		cmocka_unit_test(test_parse_stat_ctxt_intr_and_forks),
		cmocka_unit_test(test_parse_snmp_rejects_malformed_pairs),
		cmocka_unit_test(test_parse_snmp_accepts_missing_final_newline_and_blanks),
		cmocka_unit_test(test_parse_rejects_over_long_line),
		cmocka_unit_test(test_parse_rejects_more_counters_than_the_cap),
		cmocka_unit_test(test_parse_rejects_duplicate_across_files),
		cmocka_unit_test(test_parse_snmp6_rejects_malformed_lines),
		cmocka_unit_test(test_parse_softirqs_rejects_malformed_rows),
		cmocka_unit_test(test_delta_increases_resets_gauges_and_missing),
		cmocka_unit_test(test_delta_softirq_wraps_at_32_bits),
		cmocka_unit_test(test_delta_softirq_total_over_cpus_in_both),
		cmocka_unit_test(test_cpuidle_sums_states_over_cpus),
		cmocka_unit_test(test_snapshot_keeps_the_counters_without_bad_idle_states),
		cmocka_unit_test(test_delta_of_snapshot_with_itself),
		cmocka_unit_test(test_read_this_machine_and_see_udp_traffic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
