// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for collect/: /proc/stat parsing and CPU split, rusage, env. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "burn.h"

#include "base/err.h"
#include "collect/cpu.h"
#include "collect/env.h"
#include "collect/usage.h"

/*
 * Two CPUs, as on the 2-vCPU test VM, interval A -> B. Deltas (hand-made):
 *         user nice sys  idle iowait irq softirq steal  sum
 *   cpu0   250   20  80   600     30  10       0    10  1000
 *   cpu1    50    0  20   800     10  10     100    10  1000
 *   total  300   20 100  1400     40  20     100    20  2000
 */
static const char stat2_a[] =
	"cpu  1000 100 500 8000 200 50 150 0 0 0\n"
	"cpu0 600 50 300 3900 100 25 25 0 0 0\n"
	"cpu1 400 50 200 4100 100 25 125 0 0 0\n"
	"intr 123456 0 9 0 0 0 0 0 0 0 0 0 0 144 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"ctxt 987654\n"
	"btime 1700000000\n"
	"processes 4321\n"
	"procs_running 2\n"
	"procs_blocked 0\n"
	"softirq 55555 0 20000 3 1500 400 0 10 21000 0 12642\n";

static const char stat2_b[] =
	"cpu  1300 120 600 9400 240 70 250 20 0 0\n"
	"cpu0 850 70 380 4500 130 35 25 10 0 0\n"
	"cpu1 450 50 220 4900 110 35 225 10 0 0\n"
	"intr 133456 0 9 0 0 0 0 0 0 0 0 0 0 150 0 0 0 0 0 0 0 0 0 0 0 0\n"
	"ctxt 999999\n"
	"btime 1700000000\n"
	"processes 4400\n"
	"procs_running 1\n"
	"procs_blocked 0\n"
	"softirq 56000 0 20100 3 1510 400 0 10 21300 0 12677\n";

/*
 * Four CPUs with guest columns (already inside user, so ignored). Deltas:
 * cpu0 and cpu2 idle 500 each; cpu1 user 100 sys 50 idle 300 softirq 50;
 * cpu3 user 300 sys 50 idle 100 softirq 50. Total: user 400 sys 100
 * idle 1400 softirq 100 = 2000 ticks.
 */
static const char stat4_a[] =
	"cpu  4000 0 2000 40000 400 0 800 0 120 0\n"
	"cpu0 1000 0 500 10000 100 0 200 0 30 0\n"
	"cpu1 1000 0 500 10000 100 0 200 0 30 0\n"
	"cpu2 1000 0 500 10000 100 0 200 0 30 0\n"
	"cpu3 1000 0 500 10000 100 0 200 0 30 0\n"
	"intr 5000 12 0 0 7 0\n"
	"ctxt 60000\n"
	"btime 1700000000\n"
	"processes 900\n"
	"procs_running 4\n"
	"procs_blocked 0\n"
	"softirq 3000 1 2 3 4 5 6 7 8 9 10\n";

static const char stat4_b[] =
	"cpu  4400 0 2100 41400 400 0 900 0 160 0\n"
	"cpu0 1000 0 500 10500 100 0 200 0 30 0\n"
	"cpu1 1100 0 550 10300 100 0 250 0 40 0\n"
	"cpu2 1000 0 500 10500 100 0 200 0 30 0\n"
	"cpu3 1300 0 550 10100 100 0 250 0 60 0\n"
	"intr 5200 12 0 0 9 0\n"
	"ctxt 61000\n"
	"btime 1700000000\n"
	"processes 910\n"
	"procs_running 1\n"
	"procs_blocked 0\n"
	"softirq 3100 1 2 3 4 5 6 7 8 9 10\n";

/* Parse len bytes of text from an exact-size heap copy without a NUL, so
 * the sanitizer catches any read past len. */
static int parse_n(const char *text, size_t len, struct collect_cpustat *st,
		   struct base_err *err)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	memcpy(copy, text, len);
	ret = collect_cpustat_parse(copy, len, st, err);
	free(copy);
	return ret;
}

static struct collect_cpustat *parse_ok(const char *text)
{
	struct collect_cpustat *st = collect_cpustat_new();
	struct base_err err = { "" };

	assert_non_null(st);
	if (parse_n(text, strlen(text), st, &err) != 0)
		fail_msg("fixture does not parse: %s", err.msg);
	return st;
}

static void assert_near(double got, double want)
{
	if (got - want > 1e-9 || want - got > 1e-9)
		fail_msg("got %.12f, want %.12f", got, want);
}

static void assert_pct(const struct collect_cpu_pct *p, double user,
		       double sys, double softirq, double irq, double idle,
		       double iowait, double steal, double busy)
{
	assert_near(p->user, user);
	assert_near(p->sys, sys);
	assert_near(p->softirq, softirq);
	assert_near(p->irq, irq);
	assert_near(p->idle, idle);
	assert_near(p->iowait, iowait);
	assert_near(p->steal, steal);
	assert_near(p->busy, busy);
}

static void test_parse_two_cpu_fixture(void **state)
{
	struct collect_cpustat *st = parse_ok(stat2_a);

	(void)state;
	assert_int_equal(st->ncpu, 2);
	assert_true(st->present[0]);
	assert_true(st->present[1]);
	assert_false(st->present[2]);
	assert_int_equal(st->t_ns, 0);
	assert_int_equal(st->total.user, 1000);
	assert_int_equal(st->total.nice, 100);
	assert_int_equal(st->total.system, 500);
	assert_int_equal(st->total.idle, 8000);
	assert_int_equal(st->total.iowait, 200);
	assert_int_equal(st->total.irq, 50);
	assert_int_equal(st->total.softirq, 150);
	assert_int_equal(st->total.steal, 0);
	assert_int_equal(st->cpu[1].user, 400);
	assert_int_equal(st->cpu[1].softirq, 125);
	assert_int_equal(st->ctxt, 987654);
	assert_int_equal(st->intr, 123456);
	collect_cpustat_free(st);
}

static void test_parse_four_cpus_ignores_guest(void **state)
{
	struct collect_cpustat *st = parse_ok(stat4_b);

	(void)state;
	assert_int_equal(st->ncpu, 4);
	for (int i = 0; i < 4; i++)
		assert_true(st->present[i]);
	assert_int_equal(st->cpu[3].user, 1300);
	assert_int_equal(st->cpu[3].idle, 10100);
	assert_int_equal(st->cpu[3].steal, 0);
	assert_int_equal(st->total.user, 4400);
	assert_int_equal(st->ctxt, 61000);
	assert_int_equal(st->intr, 5200);
	collect_cpustat_free(st);
}

static void test_parse_offline_cpu_leaves_a_gap(void **state)
{
	struct collect_cpustat *st = parse_ok("cpu  30 0 3 300 0 0 0 0 0 0\n"
					      "cpu0 10 0 1 100 0 0 0 0 0 0\n"
					      "cpu1 10 0 1 100 0 0 0 0 0 0\n"
					      "cpu3 10 0 1 100 0 0 0 0 0 0\n"
					      "ctxt 1\n");

	(void)state;
	assert_int_equal(st->ncpu, 4);
	assert_true(st->present[3]);
	assert_false(st->present[2]);
	assert_int_equal(st->cpu[2].user, 0);
	assert_int_equal(st->intr, 0);
	/* the machine's CPUs: the lines it has, not the highest index + 1 */
	assert_int_equal(collect_cpustat_ncpu(st), 3);
	collect_cpustat_free(st);
}

static void test_parse_old_kernel_short_lines(void **state)
{
	/* 2.4 had 4 columns, 2.6.0 had 7 (no steal). */
	struct collect_cpustat *st = parse_ok("cpu  100 2 30 400\n"
					      "cpu0 100 2 30 400 5 6 7\n");

	(void)state;
	assert_int_equal(st->total.idle, 400);
	assert_int_equal(st->total.iowait, 0);
	assert_int_equal(st->total.steal, 0);
	assert_int_equal(st->cpu[0].softirq, 7);
	assert_int_equal(st->cpu[0].steal, 0);
	collect_cpustat_free(st);
}

static void test_parse_stops_at_len_without_final_newline(void **state)
{
	static const char text[] = "cpu  1 2 3 45 6\nctxt 77";
	struct collect_cpustat *st = collect_cpustat_new();
	struct base_err err = { "" };

	(void)state;
	/* Whole text, no final newline. */
	assert_int_equal(parse_n(text, strlen(text), st, &err), 0);
	assert_int_equal(st->ctxt, 77);
	/* Cut inside the first line: "cpu  1 2 3 4". */
	assert_int_equal(parse_n(text, 12, st, &err), 0);
	assert_int_equal(st->total.idle, 4);
	assert_int_equal(st->total.iowait, 0);
	assert_int_equal(st->ctxt, 0);
	collect_cpustat_free(st);
}

static void test_parse_rejects_malformed_lines(void **state)
{
	static const struct {
		const char *text;
		size_t len; /* 0: strlen(text) */
		int ret;
		const char *where; /* must appear in the message */
	} cases[] = {
		{ "cpu  1 2 x 4\n", 0, -EINVAL, "line 1 " },
		{ "cpu  1 2 3\n", 0, -EINVAL, "line 1 " },
		{ "cpu  1 -2 3 4\n", 0, -EINVAL, "line 1 " },
		{ "cpu  1 +2 3 4\n", 0, -EINVAL, "line 1 " },
		{ "cpu  1 2 3 4 5x\n", 0, -EINVAL, "line 1 " },
		{ "cpu  1 2 3 4 5 6 7 8 9 z\n", 0, -EINVAL, "line 1 " },
		{ "cpu  99999999999999999999 2 3 4\n", 0, -ERANGE, "line 1 " },
		{ "cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 1 2 3 4\n", 0, -EINVAL,
		  "line 3 " },
		{ "cpu  1 2 3 4\ncpu  1 2 3 4\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\ncpu1024 1 2 3 4\n", 0, -ERANGE, "line 2 " },
		{ "cpu  1 2 3 4\ncpux 1 2 3 4\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\ncpu01 1 2 3 4\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\ncpu-1 1 2 3 4\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\nctxt\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\nctxt 12 13\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\nctxt 1\nctxt 2\n", 0, -EINVAL, "line 3 " },
		{ "cpu  1 2 3 4\nintr\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\nintr 10 1 2 q\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\n\nctxt 5\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\n ctxt 5\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2 3 4\nproc=esses 5\n", 0, -EINVAL, "line 2 " },
		{ "cpu  1 2\0 3 4\n", 14, -EINVAL, "line 1 " },
		{ "ctxt 5\n", 0, -EINVAL, "no 'cpu' total line" },
		{ "", 0, -EINVAL, "no 'cpu' total line" },
	};
	struct collect_cpustat *st = collect_cpustat_new();

	(void)state;
	assert_non_null(st);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct base_err err = { "" };
		size_t len = cases[i].len;
		int ret;

		if (!len)
			len = strlen(cases[i].text);
		ret = parse_n(cases[i].text, len, st, &err);

		if (ret != cases[i].ret || !strstr(err.msg, cases[i].where))
			fail_msg("case %zu: ret %d (want %d), msg '%s' (want "
				 "'%s')",
				 i, ret, cases[i].ret, err.msg, cases[i].where);
	}
	collect_cpustat_free(st);
}

static void test_parse_error_quotes_long_line_cut(void **state)
{
	char text[600];
	struct collect_cpustat *st = collect_cpustat_new();
	struct base_err err = { "" };
	size_t n;

	(void)state;
	n = (size_t)snprintf(text, sizeof(text), "cpu  1 2 3 4\nintr 1");
	while (n < 500) {
		text[n++] = ' ';
		text[n++] = '7';
	}
	memcpy(text + n, " bad\n", 5);
	n += 5;
	assert_int_equal(parse_n(text, n, st, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 2 'intr 1 7 7"));
	assert_non_null(strstr(err.msg, "...'"));
	assert_non_null(strstr(err.msg, "'bad'"));
	collect_cpustat_free(st);
}

static void test_pct_whole_machine_two_cpus(void **state)
{
	struct collect_cpustat *a = parse_ok(stat2_a), *b = parse_ok(stat2_b);
	struct collect_cpu_pct p;

	(void)state;
	/* 2000 ticks: user (300 + 20) = 16%, sys 100 = 5%, ... */
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 16, 5, 5, 1, 70, 2, 1, 28);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_pct_subset_two_cpus(void **state)
{
	struct collect_cpustat *a = parse_ok(stat2_a), *b = parse_ok(stat2_b);
	bool *cpus = calloc(COLLECT_CPU_MAX, sizeof(bool));
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(cpus);
	cpus[0] = true; /* 1000 ticks */
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 27, 8, 0, 1, 60, 3, 1, 37);
	cpus[0] = false;
	cpus[1] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 5, 2, 10, 1, 80, 1, 1, 19);
	/* Both cpus equal the total line. */
	cpus[0] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 16, 5, 5, 1, 70, 2, 1, 28);
	free(cpus);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_pct_four_cpus_whole_and_subset(void **state)
{
	struct collect_cpustat *a = parse_ok(stat4_a), *b = parse_ok(stat4_b);
	bool *cpus = calloc(COLLECT_CPU_MAX, sizeof(bool));
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(cpus);
	/* 2000 ticks: user 400, sys 100, idle 1400, softirq 100. */
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 20, 5, 5, 0, 70, 0, 0, 30);
	/* cpu1 + cpu3, 1000 ticks: user 400, sys 100, idle 400, softirq 100. */
	cpus[1] = cpus[3] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 40, 10, 10, 0, 40, 0, 0, 60);
	/* cpu0 + cpu2: idle only. */
	cpus[1] = cpus[3] = false;
	cpus[0] = cpus[2] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 0, 0, 0, 0, 100, 0, 0, 0);
	free(cpus);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_pct_backwards_counters_clamp_to_zero(void **state)
{
	/* cpu1 went offline: the total drops below its old value for user,
	 * while sys and idle still advanced on cpu0. */
	struct collect_cpustat *a = parse_ok("cpu  100 0 100 1000 0 0 0 0\n"
					     "cpu0 50 0 50 500 0 0 0 0\n"
					     "cpu1 50 0 50 500 0 0 0 0\n");
	struct collect_cpustat *b = parse_ok("cpu  40 0 150 800 0 0 0 0\n"
					     "cpu0 40 0 150 800 0 0 0 0\n");
	bool *cpus = calloc(COLLECT_CPU_MAX, sizeof(bool));
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(cpus);
	/* total: user -60 -> 0, sys +50, idle -200 -> 0: all sys. */
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 0, 100, 0, 0, 0, 0, 0, 100);
	/* cpu0: user -10 -> 0, sys +100, idle +300 = 400 ticks. */
	cpus[0] = cpus[1] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 0, 25, 0, 0, 75, 0, 0, 25);
	/* Reversed: user and idle advance, sys clamps; 260 ticks. */
	assert_int_equal(collect_cpu_pct(b, a, NULL, &p), 0);
	assert_pct(&p, 60.0 / 2.6, 0, 0, 0, 200.0 / 2.6, 0, 0, 60.0 / 2.6);
	free(cpus);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

/* A tickless kernel: one second of two CPUs (200 ticks of wall time) of
 * which the ticks saw 160. The sleeps (idle, iowait) and the host's steal
 * are whole; busy is what they leave, user, sys, irq and softirq split it
 * as their ticks do; busy_ticks is the ticks' own share. */
static void test_pct_busy_from_wall_time_when_ticks_are_missing(void **state)
{
	struct collect_cpustat *a = parse_ok("cpu  0 0 0 0 0 0 0 0\n"
					     "cpu0 0 0 0 0 0 0 0 0\n"
					     "cpu1 0 0 0 0 0 0 0 0\n");
	struct collect_cpustat *b = parse_ok("cpu  20 0 30 80 10 0 10 10\n"
					     "cpu0 20 0 30 0 0 0 10 10\n"
					     "cpu1 0 0 0 80 10 0 0 0\n");
	bool *cpus = calloc(COLLECT_CPU_MAX, sizeof(bool));
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(cpus);
	/* without the reads' times: shares of the 160 ticks, as before */
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 12.5, 18.75, 6.25, 0, 50, 6.25, 6.25, 43.75);
	assert_near(p.busy_ticks, 43.75);
	a->t_ns = 5000000000;
	b->t_ns = 6000000000;
	a->hz = b->hz = 100;
	/* idle 40%, iowait 5%, steal 5%: busy 55%, 50 points of it split
	 * 20:30:10 as user, sys, softirq */
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 100.0 / 6, 25, 50.0 / 6, 0, 40, 5, 5, 55);
	assert_near(p.user + p.sys + p.softirq + p.irq + p.idle + p.iowait + p.steal, 100);
	assert_near(p.busy_ticks, 43.75);
	/* cpu0 alone: 100 ticks of wall time, the ticks saw 70; 90 points
	 * not stolen */
	cpus[0] = true;
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), 0);
	assert_pct(&p, 30, 45, 15, 0, 0, 0, 10, 100);
	assert_near(p.busy_ticks, 100);
	/* ticks beyond the wall time: 160 in 0.6 s (120). The busy ticks
	 * are samples that a load in step with the tick inflates; only the
	 * clocks count whole: idle 80, iowait 10, steal 10 of 120, busy 25,
	 * 16.67 points not stolen split 20:30:10; the ticks' busy share
	 * (43.75) is held to it */
	b->t_ns = a->t_ns + 600000000;
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 50.0 / 9, 25.0 / 3, 25.0 / 9, 0, 200.0 / 3, 25.0 / 3, 25.0 / 3, 25);
	assert_near(p.busy_ticks, 25);
	/* the clocks beyond the wall time (a read that lagged its stamp):
	 * their sum, 100 ticks, is the time; all of the busy share stolen */
	b->t_ns = a->t_ns + 400000000;
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	assert_pct(&p, 0, 0, 0, 0, 80, 10, 10, 10);
	assert_near(p.busy_ticks, 10);
	free(cpus);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_pct_no_elapsed_ticks_is_einval(void **state)
{
	struct collect_cpustat *a = parse_ok(stat2_a), *b = parse_ok(stat2_b);
	struct collect_cpustat *empty = collect_cpustat_new();
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(empty);
	assert_int_equal(collect_cpu_pct(a, a, NULL, &p), -EINVAL);
	assert_near(p.busy, 0);
	assert_int_equal(collect_cpu_pct(empty, empty, NULL, &p), -EINVAL);
	/* Every counter of b is ahead of a: reversed, all clamp to 0. */
	assert_int_equal(collect_cpu_pct(b, a, NULL, &p), -EINVAL);
	assert_int_equal(collect_cpu_pct(NULL, b, NULL, &p), -EINVAL);
	assert_int_equal(collect_cpu_pct(a, b, NULL, NULL), -EINVAL);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
	collect_cpustat_free(empty);
}

static void test_pct_no_selected_cpu_present_is_einval(void **state)
{
	struct collect_cpustat *a = parse_ok(stat4_a);
	struct collect_cpustat *b = parse_ok("cpu  1 0 1 100 0 0 0 0\n"
					     "cpu0 1 0 1 100 0 0 0 0\n");
	bool *cpus = calloc(COLLECT_CPU_MAX, sizeof(bool));
	struct collect_cpu_pct p;

	(void)state;
	assert_non_null(cpus);
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), -EINVAL);
	cpus[5] = true; /* in neither snapshot */
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), -EINVAL);
	cpus[3] = true; /* only in a */
	assert_int_equal(collect_cpu_pct(a, b, cpus, &p), -EINVAL);
	free(cpus);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_read_real_proc_stat_has_online_cpus(void **state)
{
	struct collect_cpustat *a = collect_cpustat_new();
	struct collect_cpustat *b = collect_cpustat_new();
	struct base_err err = { "" };
	struct collect_cpu_pct p;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int present = 0;
	double sum;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	if (collect_cpustat_read(a, &err) != 0)
		fail_msg("%s", err.msg);
	for (int i = 0; i < COLLECT_CPU_MAX; i++)
		present += a->present[i];
	assert_int_equal(present, online);
	assert_true(a->ncpu >= present);
	assert_true(a->t_ns > 0);
	assert_true(a->total.user + a->total.system + a->total.idle > 0);
	assert_true(a->ctxt > 0);
	assert_true(a->intr > 0);

	test_burn_cpu_ms(60);
	if (collect_cpustat_read(b, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(b->t_ns > a->t_ns);
	assert_int_equal(collect_cpu_pct(a, b, NULL, &p), 0);
	sum = p.user + p.sys + p.softirq + p.irq + p.idle + p.iowait + p.steal;
	assert_true(sum > 99.999 && sum < 100.001);
	assert_true(p.busy >= 0 && p.busy <= 100);
	collect_cpustat_free(a);
	collect_cpustat_free(b);
}

static void test_cpustat_free_accepts_null(void **state)
{
	(void)state;
	collect_cpustat_free(NULL);
}

static void test_env_read_on_this_machine(void **state)
{
	struct collect_env env;
	struct base_err err = { "" };

	(void)state;
	if (collect_env_read(&env, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(env.kernel[0] != '\0');
	assert_true(env.kernel_version[0] != '\0');
	assert_true(env.machine[0] != '\0');
	assert_true(env.hostname[0] != '\0');
	assert_true(env.cpu_model[0] != '\0');
	assert_true(env.online_cpus >= 1);
	assert_int_equal(env.online_cpus, sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(env.mem_total_kb > 0);
	assert_true(env.wall_ns > 0);
	/* Optional values are either absent or one clean word. */
	assert_null(strchr(env.cpu_governor, '\n'));
	assert_null(strchr(env.clocksource, '\n'));
	/* the boot id: 36 characters, the same on a second read (two ends
	 * of one machine compare it to tell that they share its CPUs) */
	if (env.boot_id[0]) {
		struct collect_env again;

		assert_int_equal(strlen(env.boot_id), 36);
		assert_int_equal(collect_env_read(&again, &err), 0);
		assert_string_equal(env.boot_id, again.boot_id);
	}
}

/* The temp directory tcp_sendfile sends from, and its filesystem's name. */
static void test_env_tmp_dir_and_filesystem(void **state)
{
	struct base_err err = { "" };
	struct collect_env env;
	const char *saved = getenv("TMPDIR");
	char keep[256] = "", name[32];

	(void)state;
	if (saved)
		snprintf(keep, sizeof(keep), "%s", saved);
	setenv("TMPDIR", "relative/dir", 1);
	assert_string_equal(collect_tmp_dir(), "/tmp");
	setenv("TMPDIR", "/proc", 1);
	assert_string_equal(collect_tmp_dir(), "/proc");
	assert_int_equal(collect_env_read(&env, &err), 0);
	assert_string_equal(env.tmp_dir, "/proc");
	assert_string_equal(env.tmp_fs, "0x9fa0"); /* procfs: not in the table */
	setenv("TMPDIR", "/nonexistent-netregress", 1);
	assert_int_equal(collect_env_read(&env, &err), 0);
	assert_string_equal(env.tmp_fs, "");
	if (saved)
		setenv("TMPDIR", keep, 1);
	else
		unsetenv("TMPDIR");
	collect_fs_name(0xEF53, name, sizeof(name));
	assert_string_equal(name, "ext4");
	collect_fs_name(0x01021994, name, sizeof(name));
	assert_string_equal(name, "tmpfs");
	collect_fs_name(0x12345678, name, sizeof(name));
	assert_string_equal(name, "0x12345678");
}

/* A /proc/cpuinfo text and what a parser of it should write. */
struct text_case {
	const char *text, *want;
};

/* fn on each case's text, from a buffer of exactly its length (no NUL
 * after it), must return 0 and write the case's want. */
static void expect_text_cases(int (*fn)(const char *, size_t, char *, size_t),
			      const struct text_case *cases, size_t n)
{
	char out[64];

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(cases[i].text);
		char *copy = malloc(len ? len : 1);

		assert_non_null(copy);
		memcpy(copy, cases[i].text, len);
		assert_int_equal(fn(copy, len, out, sizeof(out)), 0);
		free(copy);
		if (strcmp(out, cases[i].want))
			fail_msg("case %zu: got '%s', want '%s'", i, out, cases[i].want);
	}
}

static void test_cpuinfo_model_falls_back_by_architecture(void **state)
{
	static const struct text_case cases[] = {
		{ "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
		  "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R) Processor\n"
		  "cpu MHz\t\t: 2100.000\n\nprocessor\t: 1\n"
		  "model name\t: Other\n",
		  "Intel(R) Xeon(R) Processor" },
		{ "Processor\t: ARMv7 Processor rev 10 (v7l)\nprocessor\t: 0\n"
		  "BogoMIPS\t: 1325.46\n",
		  "ARMv7 Processor rev 10 (v7l)" },
		{ "system type\t\t: MT7621\nmachine\t\t\t: X\n"
		  "processor\t\t: 0\ncpu model\t\t: MIPS 1004Kc V2.15\n",
		  "MIPS 1004Kc V2.15" },
		{ "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n"
		  "clock\t\t: 2200.000000MHz\n",
		  "POWER9 (raw), altivec supported" },
		{ "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc\n"
		  "uarch\t\t: sifive,u74-mc\n",
		  "sifive,u74-mc" },
		/* A later better key wins over an earlier fallback. */
		{ "cpu\t\t: fallback\nmodel name\t: best\n", "best" },
		/* arm64 has no model line; empty values do not count. */
		{ "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
		  "model name\t:\n",
		  "unknown" },
		{ "cpu MHz\t\t: 2100.000\n", "unknown" },
		{ "", "unknown" },
		{ "model name\t: no newline at the end  ",
		  "no newline at the end" },
	};
	char out[64];

	(void)state;
	expect_text_cases(collect_cpuinfo_model, cases, ARRAY_SIZE(cases));
	assert_int_equal(collect_cpuinfo_model("model name : 12345678", 21, out,
					       8),
			 -EOVERFLOW);
	assert_string_equal(out, "");
	assert_int_equal(collect_cpuinfo_model("x", 1, NULL, 8), -EINVAL);
}

/* Of a flags line, only the user-copy flags, in a fixed order; "none". */
static void test_cpu_copy_flags_keeps_the_copy_routine_flags(void **state)
{
	static const struct text_case cases[] = {
		{ " fpu vme fsrm de rep_good nopl erms xtopology", "rep_good erms fsrm" },
		{ "fsrs\tfzrm erms", "erms fzrm fsrs" },
		{ "fpu vme ermsx xerms fsrm_", "none" },
		{ "", "none" },
		{ "erms", "erms" },
	};
	char out[64];

	(void)state;
	expect_text_cases(collect_cpu_copy_flags, cases, ARRAY_SIZE(cases));
	assert_int_equal(collect_cpu_copy_flags("rep_good erms", 13, out, 9), -EOVERFLOW);
	assert_string_equal(out, "");
	assert_int_equal(collect_cpu_copy_flags("rep_good erms", 13, out, 14), 0);
	assert_string_equal(out, "rep_good erms");
	assert_int_equal(collect_cpu_copy_flags("", 0, out, 4), -EOVERFLOW);
	assert_int_equal(collect_cpu_copy_flags("x", 1, NULL, 8), -EINVAL);
}

/* Write content to a fresh temporary file; its name goes into path. */
static void write_tmp(char *path, size_t cap, const char *content, size_t len)
{
	int fd;

	snprintf(path, cap, "/tmp/nr_test_collect_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	close(fd);
}

static void test_sysctl_read_u64(void **state)
{
	static const struct {
		const char *content;
		int ret;
		uint64_t want;
	} cases[] = {
		{ "212992\n", 0, 212992 },
		{ "42", 0, 42 },
		{ "0\n", 0, 0 },
		{ "18446744073709551615\n", 0, UINT64_MAX },
		{ "18446744073709551616\n", -ERANGE, 0 },
		{ "4096\t131072\t6291456\n", -EINVAL, 0 },
		{ "12 13\n", -EINVAL, 0 },
		{ "-1\n", -EINVAL, 0 },
		{ " 5\n", -EINVAL, 0 },
		{ "5\n\n", -EINVAL, 0 },
		{ "abc\n", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "000000000000000000000000000000000000000001\n", -EINVAL, 0 },
	};
	char path[64];
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		write_tmp(path, sizeof(path), cases[i].content,
			  strlen(cases[i].content));
		v = 7;
		ret = collect_sysctl_read_u64(path, &v);
		unlink(path);
		if (ret != cases[i].ret)
			fail_msg("case %zu '%s': ret %d, want %d", i,
				 cases[i].content, ret, cases[i].ret);
		assert_true(v == (ret ? 7 : cases[i].want));
	}
	assert_int_equal(collect_sysctl_read_u64("/proc/sys/net/core/no_such",
						 &v),
			 -ENOENT);
	if (access("/proc/sys/net/core/rmem_max", R_OK) == 0) {
		assert_int_equal(
			collect_sysctl_read_u64("/proc/sys/net/core/rmem_max",
						&v),
			0);
		assert_true(v > 0);
	}
}

static void test_rusage_delta_monotonic_after_burning_cpu(void **state)
{
	struct collect_rusage a, b, d;

	(void)state;
	assert_int_equal(collect_rusage_read(&a), 0);
	test_burn_cpu_ms(30);
	assert_int_equal(collect_rusage_read(&b), 0);
	collect_rusage_delta(&a, &b, &d);
	assert_true(d.t_ns > 0);
	assert_true(d.user_ns >= 0);
	assert_true(d.sys_ns >= 0);
	/* 30 ms of CPU, with slack for the microsecond rounding. */
	assert_true(d.user_ns + d.sys_ns >= 29 * 1000 * 1000);
	assert_true(d.nvcsw >= 0 && d.nivcsw >= 0);
	assert_true(d.minflt >= 0 && d.majflt >= 0);
	assert_int_equal(collect_rusage_read(NULL), -EINVAL);
}

static void test_rusage_delta_subtracts_each_field(void **state)
{
	struct collect_rusage a = { 100, 2000, 3000, 4, 5, 6, 7 };
	struct collect_rusage b = { 150, 2500, 3100, 10, 5, 9, 8 };

	(void)state;
	collect_rusage_delta(&a, &b, &b); /* out may alias an input */
	assert_int_equal(b.t_ns, 50);
	assert_int_equal(b.user_ns, 500);
	assert_int_equal(b.sys_ns, 100);
	assert_int_equal(b.nvcsw, 6);
	assert_int_equal(b.nivcsw, 0);
	assert_int_equal(b.minflt, 3);
	assert_int_equal(b.majflt, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_two_cpu_fixture),
		cmocka_unit_test(test_parse_four_cpus_ignores_guest),
		cmocka_unit_test(test_parse_offline_cpu_leaves_a_gap),
		cmocka_unit_test(test_parse_old_kernel_short_lines),
		cmocka_unit_test(test_parse_stops_at_len_without_final_newline),
		cmocka_unit_test(test_parse_rejects_malformed_lines),
		cmocka_unit_test(test_parse_error_quotes_long_line_cut),
		cmocka_unit_test(test_pct_whole_machine_two_cpus),
		cmocka_unit_test(test_pct_subset_two_cpus),
		cmocka_unit_test(test_pct_four_cpus_whole_and_subset),
		cmocka_unit_test(test_pct_backwards_counters_clamp_to_zero),
		cmocka_unit_test(test_pct_busy_from_wall_time_when_ticks_are_missing),
		cmocka_unit_test(test_pct_no_elapsed_ticks_is_einval),
		cmocka_unit_test(test_pct_no_selected_cpu_present_is_einval),
		cmocka_unit_test(test_read_real_proc_stat_has_online_cpus),
		cmocka_unit_test(test_cpustat_free_accepts_null),
		cmocka_unit_test(test_env_read_on_this_machine),
		cmocka_unit_test(test_env_tmp_dir_and_filesystem),
		cmocka_unit_test(test_cpuinfo_model_falls_back_by_architecture),
		cmocka_unit_test(test_cpu_copy_flags_keeps_the_copy_routine_flags),
		cmocka_unit_test(test_sysctl_read_u64),
		cmocka_unit_test(test_rusage_delta_monotonic_after_burning_cpu),
		cmocka_unit_test(test_rusage_delta_subtracts_each_field),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
