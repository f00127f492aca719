// SPDX-License-Identifier: GPL-2.0-only
/* The taskstats exit records: made-up datagrams, and a real child's end. */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "burn.h"

#include "base/err.h"
#include "base/time.h"
#include "collect/exits.h"
#include "collect/others.h"

#define FAMILY 31
#define MS (1000ULL * 1000ULL)

/* A datagram under construction. */
struct dgram {
	_Alignas(struct nlmsghdr) char buf[8192];
	size_t len;
	struct nlmsghdr *msg; /* the message being added to */
};

static void *put(struct dgram *d, const void *p, size_t len)
{
	void *at = d->buf + d->len;

	assert_true(d->len + NLA_ALIGN(len) <= sizeof(d->buf));
	memset(at, 0, NLA_ALIGN(len));
	if (p)
		memcpy(at, p, len);
	d->len += NLA_ALIGN(len);
	if (d->msg)
		d->msg->nlmsg_len = (uint32_t)(d->buf + d->len - (char *)d->msg);
	return at;
}

static void begin_msg(struct dgram *d, uint16_t type)
{
	struct nlmsghdr nh = { .nlmsg_type = type, .nlmsg_len = NLMSG_HDRLEN };
	struct genlmsghdr gh = { .cmd = TASKSTATS_CMD_NEW };

	d->msg = NULL;
	d->msg = put(d, &nh, sizeof(nh));
	put(d, &gh, sizeof(gh));
}

static struct nlattr *begin_nest(struct dgram *d, uint16_t type)
{
	struct nlattr a = { .nla_type = type };

	return put(d, &a, sizeof(a));
}

static void end_nest(struct dgram *d, struct nlattr *a)
{
	a->nla_len = (uint16_t)(d->buf + d->len - (char *)a);
}

static void attr(struct dgram *d, uint16_t type, const void *p, size_t len)
{
	struct nlattr a = { .nla_type = type, .nla_len = (uint16_t)(NLA_HDRLEN + len) };

	put(d, &a, NLA_HDRLEN);
	put(d, p, len);
}

/* An AGGR_PID or AGGR_TGID nest with stats of len bytes (a kernel's
 * struct may be longer or shorter than ours). */
static void record(struct dgram *d, uint16_t nest, uint32_t id, const struct taskstats *ts,
		   size_t len)
{
	struct nlattr *n = begin_nest(d, nest);
	char big[sizeof(*ts) + 64] = { 0 };

	attr(d, nest == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID, &id,
	     sizeof(id));
	memcpy(big, ts, sizeof(*ts));
	attr(d, TASKSTATS_TYPE_STATS, big, len);
	end_nest(d, n);
}

static struct taskstats stats(uint32_t tgid, uint32_t ppid, const char *comm, uint64_t run_ns,
			      uint64_t user_us, uint64_t sys_us)
{
	struct taskstats ts;

	memset(&ts, 0, sizeof(ts));
	ts.version = TASKSTATS_VERSION;
	ts.ac_tgid = tgid;
	ts.ac_ppid = ppid;
	ts.ac_btime64 = 1796374356;
	ts.cpu_run_virtual_total = run_ns;
	ts.ac_utime = user_us;
	ts.ac_stime = sys_us;
	snprintf(ts.ac_comm, sizeof(ts.ac_comm), "%s", comm);
	return ts;
}

/* A thread's record is kept, its group's totals after it are not, a
 * longer struct from a newer kernel is read, an older one without the
 * group id, a control message and a nest that runs past its message are
 * skipped. */
static void test_exits_parse_keeps_thread_records(void **state)
{
	struct collect_exits *x = collect_exits_new();
	struct dgram d = { .len = 0 };
	struct taskstats ts = stats(40, 1, "make", 5 * MS, 3000, 4000);
	const struct collect_exit *r;
	struct nlattr *bad;
	size_t n;

	(void)state;
	assert_non_null(x);
	begin_msg(&d, FAMILY);
	record(&d, TASKSTATS_TYPE_AGGR_PID, 41, &ts, sizeof(ts) + 32);
	record(&d, TASKSTATS_TYPE_AGGR_TGID, 40, &ts, sizeof(ts));
	ts = stats(2, 2, "kworker/1:0", 2 * MS, 0, 1000);
	begin_msg(&d, FAMILY);
	record(&d, TASKSTATS_TYPE_AGGR_PID, 77, &ts, sizeof(ts));
	/* version 11: no ac_tgid */
	begin_msg(&d, FAMILY);
	record(&d, TASKSTATS_TYPE_AGGR_PID, 78, &ts, offsetof(struct taskstats, ac_tgid));
	begin_msg(&d, NLMSG_ERROR);
	record(&d, TASKSTATS_TYPE_AGGR_PID, 79, &ts, sizeof(ts));
	begin_msg(&d, FAMILY);
	bad = begin_nest(&d, TASKSTATS_TYPE_AGGR_PID);
	attr(&d, TASKSTATS_TYPE_PID, &(uint32_t){ 80 }, sizeof(uint32_t));
	end_nest(&d, bad);
	bad->nla_len += 64;

	assert_int_equal(collect_exits_parse(x, d.buf, d.len), 2);
	r = collect_exits_records(x, &n);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].tid, 41);
	assert_int_equal(r[0].tgid, 40);
	assert_false(r[0].kthread);
	assert_string_equal(r[0].comm, "make");
	assert_int_equal(r[0].run_ns, 7 * MS);
	assert_int_equal(r[0].start_s, 1796374356);
	assert_int_equal(r[1].tid, 77);
	assert_true(r[1].kthread);
	assert_false(collect_exits_lost(x));
	/* a truncated datagram: what fits is read, nothing past it */
	collect_exits_clear(x);
	assert_int_equal(collect_exits_parse(x, d.buf, 40), 0);
	collect_exits_records(x, &n);
	assert_int_equal(n, 0);
	collect_exits_free(x);
}

/* The run time: the ticks' figure, but never below sum_exec_runtime nor
 * more than a tick (10 ms) above it; the ticks' alone without it. */
static void test_exits_run_time_within_a_tick(void **state)
{
	struct collect_exits *x = collect_exits_new();
	struct dgram d = { .len = 0 };
	/* sum_exec_runtime, user and system time (us), the figure */
	const uint64_t cases[][4] = {
		{ 140 * 1000, 4000, 0, 4 * MS },       /* a /bin/true a tick fell on */
		{ 140 * 1000, 0, 0, 140 * 1000 },      /* one no tick fell on */
		{ 300 * MS, 320000, 108000, 310 * MS }, /* a 300 ms burn, ticks 428 */
		{ 0, 40000, 0, 40 * MS },               /* a kernel without it */
	};
	const struct collect_exit *r;
	size_t n;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct taskstats ts = stats(50 + (uint32_t)i, 1, "t", cases[i][0], cases[i][1],
					    cases[i][2]);

		begin_msg(&d, FAMILY);
		record(&d, TASKSTATS_TYPE_AGGR_PID, 50 + (uint32_t)i, &ts, sizeof(ts));
	}
	assert_int_equal(collect_exits_parse(x, d.buf, d.len), 4);
	r = collect_exits_records(x, &n);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(r[i].run_ns, cases[i][3]);
	collect_exits_free(x);
}

/* Records sorted by group, then thread. */
static void test_exits_sort_by_ids(void **state)
{
	struct collect_exits *x = collect_exits_new();
	struct dgram d = { .len = 0 };
	const uint32_t ids[][2] = { { 9, 12 }, { 3, 3 }, { 9, 9 }, { 3, 4 } };
	const struct collect_exit *r;
	size_t n;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct taskstats ts = stats(ids[i][0], 1, "t", MS, 0, 0);

		begin_msg(&d, FAMILY);
		record(&d, TASKSTATS_TYPE_AGGR_PID, ids[i][1], &ts, sizeof(ts));
	}
	assert_int_equal(collect_exits_parse(x, d.buf, d.len), 4);
	collect_exits_sort(x);
	r = collect_exits_records(x, &n);
	assert_int_equal(r[0].tid, 3);
	assert_int_equal(r[1].tid, 4);
	assert_int_equal(r[2].tid, 9);
	assert_int_equal(r[3].tid, 12);
	collect_exits_free(x);
}

/*
 * On this machine (root): a child that starts after the first snapshot,
 * burns 300 ms of CPU and ends before the second is in neither; its exit
 * record brings it into the sum, under its pid, its time within 5% of
 * what wait4 says it used (at most a tick over).
 */
static void test_exits_count_a_real_child(void **state)
{
	struct collect_exits *x = NULL;
	struct collect_others *a = collect_others_new(), *b = collect_others_new();
	struct collect_others_sum sum;
	struct base_err err = { "" };
	const struct collect_exit *r;
	struct rusage ru;
	pid_t child, own = getpid();
	double used_ns;
	bool found = false;
	size_t n;
	int ret;

	(void)state;
	ret = collect_exits_open(&x, &err);
	if (ret == -EPERM || ret == -ENOENT) {
		/* nothing is left open when the listener cannot be */
		assert_null(x);
		collect_others_free(a);
		collect_others_free(b);
		skip();
	}
	assert_int_equal(ret, 0);
	assert_non_null(x);
	/* the child listen saw end, as the meter forgets it at its mark */
	collect_exits_clear(x);
	assert_int_equal(collect_others_snap(a, "/proc", &err), 0);
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		test_burn_cpu_ms(300);
		_exit(0);
	}
	assert_int_equal(wait4(child, NULL, 0, &ru), child);
	assert_int_equal(collect_others_snap(b, "/proc", &err), 0);
	assert_int_equal(collect_exits_drain(x, &err), 0);
	collect_exits_sort(x);
	r = collect_exits_records(x, &n);
	for (size_t i = 0; i < n; i++)
		found |= r[i].tid == child && r[i].tgid == child;
	assert_true(found);
	collect_others_delta(a, b, r, n, &own, 1, &sum);
	used_ns = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
		  (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
	found = false;
	for (size_t i = 0; i < sum.ntop; i++) {
		if (sum.top[i].pid != child)
			continue;
		found = true;
		assert_int_equal(sum.top[i].ended, 1);
		assert_true(sum.exited_ns >= sum.top[i].run_ns);
		if ((double)sum.top[i].run_ns < used_ns * 0.95 ||
		    (double)sum.top[i].run_ns > used_ns * 1.05)
			fail_msg("exit record %.0f ns vs wait4 %.0f ns",
				 (double)sum.top[i].run_ns, used_ns);
	}
	assert_true(found);
	assert_true(sum.nexited >= 1);
	collect_exits_free(x);
	collect_others_free(a);
	collect_others_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exits_parse_keeps_thread_records),
		cmocka_unit_test(test_exits_run_time_within_a_tick),
		cmocka_unit_test(test_exits_sort_by_ids),
		cmocka_unit_test(test_exits_count_a_real_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
