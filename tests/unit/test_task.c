// SPDX-License-Identifier: GPL-2.0-only
/* Exact per-thread CPU accounting: schedstat and stat parsers, real reads. */
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

#include "testdata.h"

#include "base/err.h"
#include "base/time.h"
#include "collect/task.h"
#include "collect/usage.h"


static void test_schedstat_captured(void **state)
{
	struct collect_task t = { 0 };
	char *text = testdata_load("proc-task-schedstat.6.18", NULL);

	(void)state;
	assert_int_equal(collect_schedstat_parse(text, &t, NULL), 0);
	assert_int_equal(t.run_ns, 42884641);
	assert_int_equal(t.wait_ns, 644000);
	assert_int_equal(t.slices, 25);
	free(text);
}

static void test_schedstat_rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", "\n", "1 2", "1 2 3 4", "1 -2 3", "a b c", "1 2 3x",
		"99999999999999999999 1 1",
	};
	struct collect_task t = { 7, 8, 9, 10 };
	struct base_err err = { "" };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (collect_schedstat_parse(bad[i], &t, &err) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err.msg, "expected three numbers"));
	}
	/* nothing written on failure */
	assert_int_equal(t.run_ns, 7);
	assert_int_equal(collect_schedstat_parse("0 0 0", &t, NULL), 0);
	assert_int_equal(t.slices, 0);
}

static void test_stat_cpu_captured_and_odd_names(void **state)
{
	struct base_err err = { "" };
	char *text = testdata_load("proc-task-stat.6.18", NULL);
	char odd[512];
	const char *p;
	int cpu = -1;

	(void)state;
	assert_int_equal(collect_stat_cpu_parse(text, &cpu, &err), 0);
	assert_int_equal(cpu, 1);
	/* a command name with blanks and parentheses: fields count from the
	 * last ')' */
	p = strchr(text, ')');
	assert_non_null(p);
	snprintf(odd, sizeof(odd), "2428 (a) b (c)) d)%s", p + 1);
	cpu = -1;
	assert_int_equal(collect_stat_cpu_parse(odd, &cpu, &err), 0);
	assert_int_equal(cpu, 1);
	free(text);
	/* too few fields (a 2.4-era stat), no ')', a bad number */
	assert_int_equal(collect_stat_cpu_parse("1 (x) R 0 0 0\n", &cpu, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "39th"));
	assert_int_equal(collect_stat_cpu_parse("1 x R", &cpu, &err), -EINVAL);
	snprintf(odd, sizeof(odd), "1 (x) R");
	for (int i = 4; i < 39; i++)
		strncat(odd, i == 39 - 1 ? " -1" : " 0", sizeof(odd) - strlen(odd) - 1);
	assert_int_equal(collect_stat_cpu_parse(odd, &cpu, &err), -EINVAL);
}

static void test_delta_clamps_and_keeps_last_cpu(void **state)
{
	struct collect_task a = { 100, 50, 3, 0 }, b = { 350, 40, 5, 1 }, d;

	(void)state;
	collect_task_delta(&a, &b, &d);
	assert_int_equal(d.run_ns, 250);
	assert_int_equal(d.wait_ns, 0); /* went backwards: no time, not 2^64 */
	assert_int_equal(d.slices, 2);
	assert_int_equal(d.cpu, 1);
}

static void burn_ms(int ms)
{
	int64_t end = base_now_ns() + (int64_t)ms * NS_PER_MS;
	volatile uint64_t x = 0;

	while (base_now_ns() < end)
		x++;
}

/* For a CPU-bound thread, the three exact views agree with getrusage
 * within a few percent, and the last CPU is a real one. */
static void test_exact_accounting_agrees_with_rusage(void **state)
{
	struct collect_task a, b, d;
	struct collect_rusage ra, rb, rd;
	struct base_err err = { "" };
	int64_t pa, pb;
	double ru, proc;

	(void)state;
	assert_int_equal(collect_task_read(gettid(), &a, &err), 0);
	pa = collect_process_cpu_ns();
	assert_int_equal(collect_rusage_read(&ra), 0);
	burn_ms(300);
	assert_int_equal(collect_task_read(gettid(), &b, &err), 0);
	pb = collect_process_cpu_ns();
	assert_int_equal(collect_rusage_read(&rb), 0);
	collect_task_delta(&a, &b, &d);
	collect_rusage_delta(&ra, &rb, &rd);
	assert_true(pa >= 0 && pb > pa);
	ru = (double)(rd.user_ns + rd.sys_ns);
	proc = (double)(pb - pa);
	/* run time: at least most of the 300 ms wall (a busy machine may
	 * take some), and the same figure all three ways */
	assert_true(d.run_ns > 100 * NS_PER_MS);
	if (ru < proc * 0.95 || ru > proc * 1.05)
		fail_msg("getrusage %.0f ns vs process clock %.0f ns", ru, proc);
	if ((double)d.run_ns < proc * 0.95 || (double)d.run_ns > proc * 1.05)
		fail_msg("schedstat %llu ns vs process clock %.0f ns",
			 (unsigned long long)d.run_ns, proc);
	assert_true(b.cpu >= 0 && b.cpu < sysconf(_SC_NPROCESSORS_CONF));
	/* a thread that does not exist */
	assert_int_equal(collect_task_read(0x7ffffff0, &a, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "schedstat"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat_captured),
		cmocka_unit_test(test_schedstat_rejects_malformed),
		cmocka_unit_test(test_stat_cpu_captured_and_odd_names),
		cmocka_unit_test(test_delta_clamps_and_keeps_last_cpu),
		cmocka_unit_test(test_exact_accounting_agrees_with_rusage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
