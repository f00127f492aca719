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
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "burn.h"
#include "testdata.h"

#include "base/err.h"
#include "base/time.h"
#include "collect/others.h"
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
	struct collect_stat st = { .cpu = -1 };

	(void)state;
	assert_int_equal(collect_stat_parse(text, &st, &err), 0);
	assert_int_equal(st.cpu, 1);
	assert_string_equal(st.comm, "python3");
	assert_int_equal(st.flags, 4194304);
	assert_int_equal(st.start_ticks, 1078036);
	/* a command name with blanks and parentheses: fields count from the
	 * last ')' */
	p = strchr(text, ')');
	assert_non_null(p);
	snprintf(odd, sizeof(odd), "2428 (a) b (c)) d)%s", p + 1);
	st.cpu = -1;
	assert_int_equal(collect_stat_parse(odd, &st, &err), 0);
	assert_int_equal(st.cpu, 1);
	assert_string_equal(st.comm, "a) b (c)) d");
	free(text);
	/* too few fields (a 2.4-era stat), no ')', a bad number */
	assert_int_equal(collect_stat_parse("1 (x) R 0 0 0\n", &st, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "39 fields"));
	assert_int_equal(collect_stat_parse("1 x R", &st, &err), -EINVAL);
	snprintf(odd, sizeof(odd), "1 (x) R");
	for (int i = 4; i < 39; i++)
		strncat(odd, i == 39 - 1 ? " -1" : " 0", sizeof(odd) - strlen(odd) - 1);
	assert_int_equal(collect_stat_parse(odd, &st, &err), -EINVAL);
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

/* Burn ms of this thread's CPU time (test_burn_cpu_ms: however long a
 * loaded machine takes to give it). */
static void burn_ms(int ms)
{
	test_burn_cpu_ms(ms);
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
	/* run time: the 300 ms of CPU burnt, and the same figure all three
	 * ways */
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

/* One thread of a made-up /proc under root: its stat (with the fields
 * the parser reads) and schedstat. */
static void fake_thread(const char *root, int tgid, int tid, const char *comm,
			unsigned long flags, unsigned long long start,
			unsigned long long run_ns)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d", root, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task", root, tgid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d", root, tgid, tid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/task/%d/stat", root, tgid, tid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%d (%s) S 1 1 1 0 -1 %lu", tid, comm, flags);
	for (int field = 10; field <= 52; field++)
		fprintf(f, " %llu", field == 22 ? start : field == 39 ? 1ULL : 0ULL);
	fputc('\n', f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/%d/task/%d/schedstat", root, tgid, tid);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "%llu 0 1\n", run_ns);
	fclose(f);
}

#define KTHREAD 0x208040UL
#define MS (1000ULL * 1000ULL)

/* Tasks that ran on, started, were missed, reused an id, were the test's
 * own, or were the kernel's; the busiest three named. */
static void test_others_between_two_snapshots(void **state)
{
	char root[] = "/tmp/nr-others-XXXXXX", cmd[600], bad[512];
	struct collect_others *a = collect_others_new(), *b = collect_others_new();
	struct collect_others_sum sum;
	struct base_err err = { "" };
	struct timespec ts;
	unsigned long long born;
	pid_t own[] = { 200 };
	FILE *f;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	born = ((unsigned long long)ts.tv_sec + 1000) * (unsigned long long)sysconf(_SC_CLK_TCK);
	assert_non_null(mkdtemp(root));
	fake_thread(root, 2, 2, "kthreadd", KTHREAD, 0, 1000);
	fake_thread(root, 15, 15, "ksoftirqd/1", KTHREAD, 1, 5 * MS);
	fake_thread(root, 16, 16, "kworker/1:1", KTHREAD, 1, 7 * MS);
	fake_thread(root, 100, 100, "hog", 0, 5, 1000 * MS);
	fake_thread(root, 100, 101, "hog worker", 0, 5, 2000 * MS);
	fake_thread(root, 200, 200, "netregress", 0, 5, 1000 * MS);
	fake_thread(root, 500, 500, "old", 0, 7, 4000 * MS);
	fake_thread(root, 700, 700, "sleeper", 0, 7, 50 * MS);
	snprintf(cmd, sizeof(cmd), "%s/net", root);
	mkdir(cmd, 0755); /* not a process */
	assert_int_equal(collect_others_snap(a, root, &err), 0);

	fake_thread(root, 15, 15, "ksoftirqd/1", KTHREAD, 1, 8 * MS);
	fake_thread(root, 16, 16, "kworker/1:1", KTHREAD, 1, 9 * MS);
	fake_thread(root, 100, 100, "hog", 0, 5, 1500 * MS);
	fake_thread(root, 100, 101, "hog worker", 0, 5, 2250 * MS);
	fake_thread(root, 100, 102, "hog new", 0, born, 100 * MS);
	fake_thread(root, 200, 200, "netregress", 0, 5, 3000 * MS);
	fake_thread(root, 300, 300, "cc1", 0, born, 300 * MS);
	fake_thread(root, 400, 400, "missed", 0, 9, 9000 * MS);
	fake_thread(root, 500, 500, "reused", 0, born, 200 * MS);
	fake_thread(root, 900, 900, "ninth", 0, born, 250 * MS);
	/* a thread whose stat cannot be read as one is skipped */
	fake_thread(root, 800, 800, "bad", 0, born, 70 * MS);
	snprintf(bad, sizeof(bad), "%s/800/task/800/stat", root);
	assert_non_null(f = fopen(bad, "w"));
	fputs("800 (bad) S 1\n", f);
	fclose(f);
	assert_int_equal(collect_others_snap(b, root, &err), 0);

	collect_others_delta(a, b, NULL, 0, own, 1, &sum);
	/* hog 500 + 250 + 100 (its new thread), cc1 300, reused 200 (not
	 * 200 - 4000), ninth 250; missed, sleeper and netregress nothing */
	assert_int_equal(sum.others_ns, 1600 * MS);
	assert_int_equal(sum.nprocs, 4);
	assert_int_equal(sum.kthreads_ns, 5 * MS);
	assert_int_equal(sum.ksoftirqd_ns, 3 * MS);
	assert_int_equal(sum.ntop, 3);
	assert_int_equal(sum.top[0].pid, 100);
	assert_string_equal(sum.top[0].comm, "hog");
	assert_int_equal(sum.top[0].run_ns, 850 * MS);
	assert_int_equal(sum.top[1].pid, 300);
	assert_int_equal(sum.top[2].pid, 900);
	assert_int_equal(sum.top[2].run_ns, 250 * MS);

	/* nothing excluded: the test's own process is another's */
	collect_others_delta(a, b, NULL, 0, NULL, 0, &sum);
	assert_int_equal(sum.others_ns, 3600 * MS);
	assert_int_equal(sum.top[0].pid, 200);

	/* without a kernel thread in sight, other processes are hidden */
	snprintf(cmd, sizeof(cmd), "rm -rf %s/2 %s/15 %s/16", root, root, root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(collect_others_snap(b, root, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "hidden"));
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(collect_others_snap(b, root, &err), -ENOENT);
	assert_non_null(strstr(err.msg, root));
	collect_others_free(a);
	collect_others_free(b);
}

/* An exit record, sorted into ex[] by the caller. */
static struct collect_exit ended(int tgid, int tid, const char *comm, uint64_t start_s,
				 uint64_t run_ns)
{
	struct collect_exit e = { .tgid = tgid, .tid = tid, .start_s = start_s,
				  .run_ns = run_ns };

	snprintf(e.comm, sizeof(e.comm), "%s", comm);
	e.kthread = !strncmp(comm, "kworker", 7);
	return e;
}

/* The threads that ended between the snapshots count through their exit
 * records (one too brief for its figure too): since the first snapshot
 * when it held them, whole when they started after it, not at all when the second holds
 * them or they started before the first and it missed them; the ended
 * processes are ranked by name. */
static void test_others_count_the_threads_that_ended(void **state)
{
	char root[] = "/tmp/nr-ended-XXXXXX", cmd[600];
	struct collect_others *a = collect_others_new(), *b = collect_others_new();
	struct collect_others_sum sum;
	struct base_err err = { "" };
	struct timespec rt, bt;
	uint64_t boot_s, later;
	pid_t own[] = { 200 };

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	boot_s = (uint64_t)(rt.tv_sec - bt.tv_sec); /* a start of 5 ticks */
	later = (uint64_t)rt.tv_sec + 1000;
	assert_non_null(mkdtemp(root));
	fake_thread(root, 2, 2, "kthreadd", KTHREAD, 0, 1000);
	fake_thread(root, 100, 100, "hog", 0, 5, 1000 * MS);
	fake_thread(root, 100, 103, "hog job", 0, 5, 100 * MS);
	fake_thread(root, 200, 200, "netregress", 0, 5, 1000 * MS);
	fake_thread(root, 200, 201, "nr-xcpu", 0, 5, 1 * MS);
	fake_thread(root, 700, 700, "sleeper", 0, 5, 50 * MS);
	assert_int_equal(collect_others_snap(a, root, &err), 0);
	fake_thread(root, 100, 100, "hog", 0, 5, 1500 * MS);
	snprintf(cmd, sizeof(cmd), "rm -rf %s/100/task/103 %s/200/task/201 %s/700", root,
		 root, root);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(collect_others_snap(b, root, &err), 0);

	const struct collect_exit ex[] = {
		/* b holds it: it ended after b, whose delta counted it */
		ended(100, 100, "hog", boot_s, 1600 * MS),
		/* a held it: 160 - 100 */
		ended(100, 103, "hog job", boot_s, 160 * MS),
		/* the test's own */
		ended(200, 201, "nr-xcpu", boot_s, 9 * MS),
		/* started and ended: whole */
		ended(600, 600, "sh", later, 40 * MS),
		ended(610, 610, "true", later, 5 * MS),
		ended(611, 611, "true", later, 5 * MS),
		/* too brief for its figure (no tick fell on it): it ran */
		ended(612, 612, "true", later, 0),
		/* a held it: 80 - 50, its process ended with it */
		ended(700, 700, "sleeper", boot_s, 80 * MS),
		/* started before a, which missed it */
		ended(800, 800, "early", 0, 900 * MS),
		ended(900, 900, "kworker/0:2", later, 2 * MS),
	};

	collect_others_delta(a, b, ex, sizeof(ex) / sizeof(ex[0]), own, 1, &sum);
	/* hog 500 + 60, sh 40, true 10, sleeper 30 */
	assert_int_equal(sum.others_ns, 640 * MS);
	assert_int_equal(sum.exited_ns, 140 * MS);
	assert_int_equal(sum.nexited, 6);
	assert_int_equal(sum.nprocs, 6);
	assert_int_equal(sum.kthreads_ns, 2 * MS);
	assert_int_equal(sum.ntop, 3);
	assert_int_equal(sum.top[0].pid, 100);
	assert_int_equal(sum.top[0].run_ns, 560 * MS);
	assert_int_equal(sum.top[0].ended, 0);
	assert_string_equal(sum.top[1].comm, "sh");
	assert_int_equal(sum.top[1].pid, 600);
	assert_int_equal(sum.top[1].ended, 1);
	assert_string_equal(sum.top[2].comm, "sleeper");
	assert_int_equal(sum.top[2].run_ns, 30 * MS);

	/* the three of one name are one entry once they rank */
	collect_others_delta(a, b, ex + 4, 3, own, 1, &sum);
	assert_int_equal(sum.others_ns, 510 * MS);
	assert_int_equal(sum.nexited, 3);
	assert_int_equal(sum.top[1].pid, 0);
	assert_int_equal(sum.top[1].ended, 3);
	assert_string_equal(sum.top[1].comm, "true");
	assert_int_equal(sum.top[1].run_ns, 10 * MS);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
	collect_others_free(a);
	collect_others_free(b);
}

/* The run time /proc/<pid>/schedstat gives a task, ns; 0 when unread. */
static unsigned long long schedstat_run_ns(pid_t pid)
{
	char path[64];
	unsigned long long run = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &run) != 1)
			run = 0;
		fclose(f);
	}
	return run;
}

/* On the real /proc: a child that starts after the first snapshot and
 * burns CPU until the second is counted in full, under its pid (stopped
 * before the second, its run time is its schedstat's, whatever share of
 * a loaded machine it got); this process, which burns too, is not. */
static void test_others_sees_a_real_child(void **state)
{
	struct collect_others *a = collect_others_new(), *b = collect_others_new();
	struct collect_others_sum sum;
	struct base_err err = { "" };
	pid_t own = getpid(), child;
	unsigned long long child_run;
	bool found = false;

	(void)state;
	assert_int_equal(collect_others_snap(a, "/proc", &err), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		for (;;)
			burn_ms(1000);
	}
	burn_ms(300);
	kill(child, SIGSTOP);
	assert_int_equal(waitpid(child, NULL, WUNTRACED), child);
	child_run = schedstat_run_ns(child);
	assert_int_equal(collect_others_snap(b, "/proc", &err), 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	collect_others_delta(a, b, NULL, 0, &own, 1, &sum);
	assert_true(sum.nprocs >= 1);
	for (size_t i = 0; i < sum.ntop; i++) {
		assert_int_not_equal(sum.top[i].pid, own);
		if (sum.top[i].pid == child) {
			found = true;
			/* all it ran, and it ran: stopped, it holds still */
			if (!child_run || sum.top[i].run_ns != child_run)
				fail_msg("child counted %llu ns, its schedstat %llu ns",
					 (unsigned long long)sum.top[i].run_ns, child_run);
		}
	}
	/* on a busy machine other processes may have run longer and fill
	 * the list: then the child ran no longer than the last of them */
	if (!found && (sum.ntop < COLLECT_OTHERS_TOP ||
		       child_run > sum.top[sum.ntop - 1].run_ns))
		fail_msg("child (%llu ns) not among the %zu busiest", child_run, sum.ntop);
	assert_true(sum.others_ns >= sum.top[0].run_ns);
	collect_others_free(a);
	collect_others_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedstat_captured),
		cmocka_unit_test(test_schedstat_rejects_malformed),
		cmocka_unit_test(test_stat_cpu_captured_and_odd_names),
		cmocka_unit_test(test_delta_clamps_and_keeps_last_cpu),
		cmocka_unit_test(test_exact_accounting_agrees_with_rusage),
		cmocka_unit_test(test_others_between_two_snapshots),
		cmocka_unit_test(test_others_count_the_threads_that_ended),
		cmocka_unit_test(test_others_sees_a_real_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
