// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the readers of /proc files the collectors parse, on any kernel's text. */
#include <string.h>

#include "collect/counters.h"
#include "collect/cpu.h"
#include "collect/ksyms.h"
#include "collect/task.h"
#include "fuzz.h"

/*
 * The first byte picks the file, the rest is its text: /proc/net/snmp,
 * /proc/net/netstat, /proc/net/snmp6, /proc/softirqs, /proc/stat (the
 * counters' reader and the CPU-time reader), /proc/kallsyms,
 * /proc/<pid>/task/<tid>/schedstat and .../stat, /proc/interrupts. Their format moves with
 * the kernel version, and a thread's name inside .../stat is whatever the
 * thread chose. Promised (collect/): malformed text is an error naming
 * the line, never a crash or a read past the text; counters parsed twice
 * from the same text differ by nothing; a symbol table that loads
 * resolves any address.
 */

static void zero_delta(void *ctx, const char *name,
		       enum collect_delta_kind kind, double value)
{
	(void)ctx;
	if (kind != COLLECT_DELTA_GAUGE && value != 0) {
		fprintf(stderr, "%s moved by %g between two parses of one text\n",
			name, value);
		FUZZ_CHECK(value == 0);
	}
}

static void counters(int which, const char *text, size_t len)
{
	struct collect_counters *a = collect_counters_new();
	struct collect_counters *b = collect_counters_new();
	struct base_err err = { { 0 } };
	int ret = 0, ret2 = 0;

	FUZZ_CHECK(a && b);
	switch (which) {
	case 0:
		ret = collect_parse_snmp(text, len, "netstat", a, &err);
		ret2 = collect_parse_snmp(text, len, "netstat", b, NULL);
		break;
	case 1:
		ret = collect_parse_snmp6(text, len, a, &err);
		ret2 = collect_parse_snmp6(text, len, b, NULL);
		break;
	case 2:
		ret = collect_parse_softirqs(text, len, a, &err);
		ret2 = collect_parse_softirqs(text, len, b, NULL);
		break;
	case 8:
		ret = collect_parse_interrupts(text, len, a, &err);
		ret2 = collect_parse_interrupts(text, len, b, NULL);
		break;
	default:
		ret = collect_parse_stat(text, len, a, &err);
		ret2 = collect_parse_stat(text, len, b, NULL);
		break;
	}
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret == ret2);
	if (!ret)
		FUZZ_CHECK(collect_counters_delta(a, b, zero_delta, NULL) == 0);
	collect_counters_free(a);
	collect_counters_free(b);
}

static void cpustat(const char *text, size_t len)
{
	struct collect_cpustat *st = collect_cpustat_new();
	struct base_err err = { { 0 } };
	int ret;

	FUZZ_CHECK(st);
	ret = collect_cpustat_parse(text, len, st, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (!ret)
		FUZZ_CHECK(st->ncpu >= 0 && st->ncpu <= COLLECT_CPU_MAX);
	collect_cpustat_free(st);
}

static void ksyms(const char *text, size_t len)
{
	struct collect_ksyms *ks = NULL;
	struct base_err err = { { 0 } };
	struct collect_ksym sym;
	int ret = collect_ksyms_parse(&ks, text, len, &err);

	FUZZ_CHECK_ERR(ret, err);
	if (ret) {
		FUZZ_CHECK(!ks);
		return;
	}
	FUZZ_CHECK(collect_ksyms_count(ks) >= 1);
	for (uint64_t addr = 0; addr < 1u << 20; addr += 4093)
		collect_ksyms_resolve(ks, addr, &sym);
	collect_ksyms_resolve(ks, UINT64_MAX, &sym);
	collect_ksyms_resolve(ks, 0xffffffff81000000ull, &sym);
	collect_ksyms_free(ks);
}

/* The task files are read as NUL-terminated text of a few hundred bytes. */
static void task(int which, const char *text, size_t len)
{
	static char buf[4096];
	struct base_err err = { { 0 } };
	struct collect_task t;
	struct collect_stat st = { .cpu = -1 };
	int ret;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (which == 6) {
		ret = collect_schedstat_parse(buf, &t, &err);
	} else {
		ret = collect_stat_parse(buf, &st, &err);
		FUZZ_CHECK(ret || (st.cpu >= 0 && strlen(st.comm) < sizeof(st.comm)));
	}
	FUZZ_CHECK_ERR(ret, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	int which;

	if (!size)
		return 0;
	which = data[0] % 9;
	if (which <= 3 || which == 8)
		counters(which, text, len);
	else if (which == 4)
		cpustat(text, len);
	else if (which == 5)
		ksyms(text, len);
	else
		task(which, text, len);
	return 0;
}
