// SPDX-License-Identifier: GPL-2.0-only
/* The cross-CPU probe: a round's figure, the pairs, bad options, a real window. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/cpus.h"
#include "base/err.h"
#include "base/time.h"
#include "collect/xcpu.h"

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };

	while (nanosleep(&ts, &ts))
		;
}

static void test_xcpu_figure_is_the_median_batch_per_round_trip(void **state)
{
	/* 4 round trips a batch; one batch cut by an interruption */
	int64_t odd[] = { 480, 90000, 440, 520, 500 };
	int64_t even[] = { 400, 1600, 480, 440 };
	int64_t none[] = { 0 };

	(void)state;
	assert_float_equal(collect_xcpu_figure(odd, 5, 4), 125.0, 1e-9);
	assert_float_equal(collect_xcpu_figure(even, 4, 4), 115.0, 1e-9);
	assert_float_equal(collect_xcpu_figure(none, 0, 4), 0.0, 0);
	assert_float_equal(collect_xcpu_figure(odd, 5, 0), 0.0, 0);
}

static void test_xcpu_origin_keeps_the_beat(void **state)
{
	(void)state;
	/* no beat: from the window's start */
	assert_int_equal(collect_xcpu_origin(1000, 0, 100), 1000);
	/* a beat in the past, in the future, on the start itself */
	assert_int_equal(collect_xcpu_origin(1000, 50, 100), 950);
	assert_int_equal(collect_xcpu_origin(1000, 1030, 100), 930);
	assert_int_equal(collect_xcpu_origin(1000, 5000, 100), 1000);
	assert_int_equal(collect_xcpu_origin(1000, 1000, 100), 1000);
	/* a server's ticks from t_go 7 ms before a 300 ms warm-up ends, 100 ms
	 * apart: rounds midway, at 357, 457, ... ms from the start at 7 + 300 */
	assert_int_equal(collect_xcpu_origin(307 * NS_PER_MS, 57 * NS_PER_MS,
					     100 * NS_PER_MS), 257 * NS_PER_MS);
	/* never after the start, at most a period before it */
	for (int64_t b = -250; b <= 250; b += 7) {
		int64_t o = collect_xcpu_origin(1000, b, 100);

		assert_true(o <= 1000 && o > 900 && ((o - b) % 100 + 100) % 100 == 0);
	}
}

static void test_xcpu_pairs_follow_the_workers(void **state)
{
	struct base_cpulist a = { .n = 2, .cpu = { 0, 1 } };
	struct base_cpulist b = { .n = 2, .cpu = { 2, 3 } };
	struct base_cpulist one = { .n = 1, .cpu = { 5 } };
	struct base_cpulist none = { .n = 0 };
	struct base_cpulist online = { .n = 3, .cpu = { 0, 1, 4 } };
	struct collect_xcpu_pair p[COLLECT_XCPU_PAIRS_MAX];
	struct base_cpulist many = { .n = 40 };

	(void)state;
	/* worker i of each end */
	assert_int_equal(collect_xcpu_pairs(&a, &b, &online, p), 2);
	assert_int_equal(p[0].a, 0);
	assert_int_equal(p[0].b, 2);
	assert_int_equal(p[1].a, 1);
	assert_int_equal(p[1].b, 3);
	/* one server cpu for two client workers: both talk to it */
	assert_int_equal(collect_xcpu_pairs(&a, &one, &online, p), 2);
	assert_int_equal(p[1].a, 1);
	assert_int_equal(p[1].b, 5);
	/* both ends on one cpu: nothing to probe */
	assert_int_equal(collect_xcpu_pairs(&one, &one, &online, p), 0);
	/* a pair that repeats is probed once, and none on one cpu */
	b = (struct base_cpulist){ .n = 2, .cpu = { 1, 0 } };
	a = (struct base_cpulist){ .n = 4, .cpu = { 0, 1, 0, 1 } };
	assert_int_equal(collect_xcpu_pairs(&a, &b, &online, p), 2);
	assert_int_equal(p[0].a, 0);
	assert_int_equal(p[0].b, 1);
	assert_int_equal(p[1].a, 1);
	assert_int_equal(p[1].b, 0);
	/* pair placement, a flow's two ends on one cpu: the distance
	 * between the cpus the pairs run on */
	a = (struct base_cpulist){ .n = 2, .cpu = { 0, 1 } };
	b = (struct base_cpulist){ .n = 2, .cpu = { 0, 1 } };
	assert_int_equal(collect_xcpu_pairs(&a, &b, &online, p), 1);
	assert_int_equal(p[0].a, 0);
	assert_int_equal(p[0].b, 1);
	/* an end not pinned: neighbours among the online cpus */
	assert_int_equal(collect_xcpu_pairs(&a, &none, &online, p), 2);
	assert_int_equal(p[0].a, 0);
	assert_int_equal(p[0].b, 1);
	assert_int_equal(p[1].a, 1);
	assert_int_equal(p[1].b, 4);
	assert_int_equal(collect_xcpu_pairs(&none, &none, &one, p), 0);
	/* never more than the cap */
	for (int i = 0; i < many.n; i++)
		many.cpu[i] = (uint16_t)i;
	assert_int_equal(collect_xcpu_pairs(&none, &none, &many, p), COLLECT_XCPU_PAIRS_MAX);
	assert_int_equal(p[COLLECT_XCPU_PAIRS_MAX - 1].b, COLLECT_XCPU_PAIRS_MAX);
}

static void test_xcpu_open_rejects_bad_options(void **state)
{
	struct collect_xcpu_pair same = { 3, 3 }, far = { 0, BASE_CPU_MAX - 1 };
	struct collect_xcpu_pair many[COLLECT_XCPU_PAIRS_MAX + 1] = { { 0, 1 } };
	struct collect_xcpu_opts o = { .pairs = NULL };
	struct collect_xcpu *s = (struct collect_xcpu *)&o;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.msg, "no pair"));
	o = (struct collect_xcpu_opts){ .pairs = &same, .npairs = 1 };
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "pair 3-3 is one CPU"));
	o = (struct collect_xcpu_opts){ .pairs = many, .npairs = COLLECT_XCPU_PAIRS_MAX + 1 };
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "17 pairs, at most 16"));
	o = (struct collect_xcpu_opts){ .pairs = many, .npairs = 1, .period_ns = 1000 };
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "period 1000 ns"));
	o = (struct collect_xcpu_opts){ .pairs = many, .npairs = 1, .period_ns = 5 * NS_PER_MS,
					.arrive_ns = 6 * NS_PER_MS };
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "arrival bound 6000000 ns, expected 0 to the period"));
	o.arrive_ns = -1;
	assert_int_equal(collect_xcpu_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "arrival bound -1 ns"));
	/* a CPU that cannot exist here: the kernel refuses the pinning */
	o = (struct collect_xcpu_opts){ .pairs = &far, .npairs = 1 };
	assert_true(collect_xcpu_open(&s, &o, &err) < 0);
	assert_null(s);
	assert_non_null(strstr(err.msg, "cpu 1023"));
	assert_int_equal(collect_xcpu_start(NULL, 0), -EINVAL);
	assert_int_equal(collect_xcpu_stop(NULL), -EINVAL);
	assert_int_equal(collect_xcpu_pause(NULL, true), -EINVAL);
	collect_xcpu_free(NULL);
}

/* The first two CPUs this process may use, or skip the test. */
static struct collect_xcpu_pair two_cpus(void)
{
	struct base_cpulist allowed;

	if (base_cpus_allowed(&allowed) || allowed.n < 2)
		skip();
	return (struct collect_xcpu_pair){ allowed.cpu[0], allowed.cpu[1] };
}

static void test_xcpu_window_times_round_trips(void **state)
{
	struct collect_xcpu_pair p = two_cpus();
	struct collect_xcpu_opts o = { .pairs = &p, .npairs = 1, .period_ns = 5 * NS_PER_MS };
	struct collect_xcpu_result r, again;
	struct collect_xcpu *s = NULL;
	struct base_err err = { "" };
	double rounds, sum;

	(void)state;
	assert_int_equal(collect_xcpu_open(&s, &o, &err), 0);
	assert_int_equal(collect_xcpu_result(s, &r), -EINVAL);
	assert_int_equal(collect_xcpu_stop(s), -EINVAL);
	assert_int_equal(collect_xcpu_pause(s, true), -EINVAL);
	assert_int_equal(collect_xcpu_start(s, 0), 0);
	sleep_ns(300 * NS_PER_MS);
	assert_int_equal(collect_xcpu_totals(s, &rounds, &sum), 0);
	assert_int_equal(collect_xcpu_stop(s), 0);
	assert_int_equal(collect_xcpu_result(s, &r), 0);
	assert_int_equal(r.npairs, 1);
	assert_int_equal(r.pair[0].a, p.a);
	assert_int_equal(r.pair[0].b, p.b);
	/* one round per 5 ms at most, 60 in 300 ms; a busy machine misses
	 * some, never most: a partner that does not answer misses them all */
	assert_in_range(r.rounds, 20, 61);
	assert_true(r.missed < r.rounds);
	assert_int_equal(r.pair[0].rounds, r.rounds);
	assert_true(rounds <= r.rounds && rounds >= r.rounds - 1);
	/* a cache line between two CPUs: more than a few ns (it must leave
	 * the core), less than 50 us (the bound of a batch) */
	assert_true(r.median_ns > 5 && r.median_ns < 50000);
	assert_true(r.pair[0].min_ns <= r.pair[0].median_ns &&
		    r.pair[0].median_ns <= r.pair[0].max_ns);
	assert_true(sum / rounds > 5 && sum / rounds < 50000);
	sleep_ns(30 * NS_PER_MS);
	assert_int_equal(collect_xcpu_result(s, &again), 0);
	assert_int_equal(again.rounds, r.rounds);
	collect_xcpu_free(s);
}

static void test_xcpu_pause_stops_the_rounds(void **state)
{
	struct collect_xcpu_pair p = two_cpus();
	struct collect_xcpu_opts o = { .pairs = &p, .npairs = 1, .period_ns = 2 * NS_PER_MS };
	struct collect_xcpu_result r;
	struct collect_xcpu *s = NULL;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_xcpu_open(&s, &o, &err), 0);
	/* a new window forgets the old one; paused throughout: no round */
	assert_int_equal(collect_xcpu_start(s, 0), 0);
	sleep_ns(20 * NS_PER_MS);
	assert_int_equal(collect_xcpu_start(s, 0), 0);
	assert_int_equal(collect_xcpu_pause(s, true), 0);
	assert_int_equal(collect_xcpu_pause(s, true), 0);
	sleep_ns(100 * NS_PER_MS);
	assert_int_equal(collect_xcpu_stop(s), 0);
	assert_int_equal(collect_xcpu_result(s, &r), 0);
	assert_int_equal(r.rounds + r.missed, 0);
	/* and rounds again after a resume */
	assert_int_equal(collect_xcpu_start(s, 0), 0);
	assert_int_equal(collect_xcpu_pause(s, true), 0);
	sleep_ns(50 * NS_PER_MS);
	assert_int_equal(collect_xcpu_pause(s, false), 0);
	sleep_ns(100 * NS_PER_MS);
	assert_int_equal(collect_xcpu_stop(s), 0);
	assert_int_equal(collect_xcpu_result(s, &r), 0);
	assert_in_range(r.rounds, 5, 51);
	collect_xcpu_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xcpu_figure_is_the_median_batch_per_round_trip),
		cmocka_unit_test(test_xcpu_origin_keeps_the_beat),
		cmocka_unit_test(test_xcpu_pairs_follow_the_workers),
		cmocka_unit_test(test_xcpu_open_rejects_bad_options),
		cmocka_unit_test(test_xcpu_window_times_round_trips),
		cmocka_unit_test(test_xcpu_pause_stops_the_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
