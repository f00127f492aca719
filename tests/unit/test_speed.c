// SPDX-License-Identifier: GPL-2.0-only
/* The CPU speed probe: the burst's median, the window, pauses, bad options. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/time.h"
#include "collect/speed.h"

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / NS_PER_S, .tv_nsec = ns % NS_PER_S };

	while (nanosleep(&ts, &ts))
		;
}

static void test_speed_of_chunks_rate_median_and_lost_time(void **state)
{
	/* 256 steps per chunk; the median chunk is 400 ns, the chunks took
	 * 91600 ns in all, and 89600 + 10 ns of it was beyond the median */
	int64_t odd[] = { 400, 90000, 390, 410, 400 };
	int64_t even[] = { 500, 300, 400, 1000 };
	int64_t one[] = { 512 };
	struct collect_speed_burst b;

	(void)state;
	collect_speed_of_chunks(odd, 5, 256, &b);
	assert_float_equal(b.steps, 1280, 0);
	assert_float_equal(b.time_ns, 91600, 0);
	assert_float_equal(b.rate, 1280 * 1000.0 / 91600, 1e-9);
	assert_float_equal(b.median_rate, 640.0, 1e-9);
	assert_float_equal(b.lost_ns, 89610, 0);
	assert_float_equal(b.lost_pct, 100.0 * 89610 / 91600, 1e-9);
	/* the lower quartile (390, 400, 400, 410, 90000 sorted: the second) */
	assert_float_equal(b.core_rate, 640.0, 1e-9);
	/* even: the median is the mean of the two middle ones, 450 ns */
	collect_speed_of_chunks(even, 4, 256, &b);
	assert_float_equal(b.median_rate, 256000.0 / 450, 1e-9);
	assert_float_equal(b.lost_ns, 50 + 550, 0);
	collect_speed_of_chunks(one, 1, 256, &b);
	assert_float_equal(b.rate, 500.0, 1e-9);
	assert_float_equal(b.core_rate, 500.0, 1e-9);
	assert_float_equal(b.lost_pct, 0, 0);
}

static void test_speed_of_chunks_core_pace_ignores_interrupted_chunks(void **state)
{
	/* 5 of 8 chunks interrupted: the median is an interrupted one, the
	 * lower quartile (the third fastest) is not */
	int64_t hit[] = { 9000, 400, 9000, 402, 9000, 9000, 401, 9000 };
	/* every chunk 10% slower: the core's own pace, which moves it */
	int64_t slow[] = { 440, 440, 440, 440, 440, 440, 440, 440 };
	struct collect_speed_burst b;

	(void)state;
	collect_speed_of_chunks(hit, 8, 256, &b);
	assert_float_equal(b.core_rate, 256000.0 / 402, 1e-9);
	assert_float_equal(b.median_rate, 256000.0 / 9000, 1e-9);
	assert_true(b.rate < b.core_rate / 10);
	collect_speed_of_chunks(slow, 8, 256, &b);
	assert_float_equal(b.core_rate, 256000.0 / 440, 1e-9);
	assert_float_equal(b.rate, b.core_rate, 1e-9);
	assert_float_equal(b.lost_pct, 0, 0);
}

static void test_speed_of_chunks_zero_when_nothing_timed(void **state)
{
	int64_t zero[] = { 0, 0, 0 };
	struct collect_speed_burst b;

	(void)state;
	collect_speed_of_chunks(zero, 0, 256, &b);
	assert_float_equal(b.rate, 0.0, 0);
	collect_speed_of_chunks(zero, 3, 256, &b);
	assert_float_equal(b.rate, 0.0, 0);
	assert_float_equal(b.median_rate, 0.0, 0);
}

static void test_speed_open_rejects_bad_options(void **state)
{
	struct base_cpulist none = { .n = 0 }, cpu0 = { .n = 1, .cpu = { 0 } };
	struct collect_speed_opts o = { .cpus = &none };
	struct collect_speed *s = (struct collect_speed *)&o;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_speed_open(&s, &o, &err), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err.msg, "no CPUs"));
	o.cpus = &cpu0;
	o.period_ns = 1000000;
	o.burst_ns = 1000000;
	assert_int_equal(collect_speed_open(&s, &o, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "shorter than its period"));
	/* a CPU that cannot exist here: the kernel refuses the pinning */
	o.period_ns = o.burst_ns = 0;
	cpu0.cpu[0] = BASE_CPU_MAX - 1;
	assert_true(collect_speed_open(&s, &o, &err) < 0);
	assert_null(s);
	assert_non_null(strstr(err.msg, "cpu 1023"));
	assert_int_equal(collect_speed_start(NULL), -EINVAL);
	assert_int_equal(collect_speed_stop(NULL), -EINVAL);
	assert_int_equal(collect_speed_pause(NULL, true), -EINVAL);
	collect_speed_free(NULL);
}

static void test_speed_window_times_bursts(void **state)
{
	struct base_cpulist cpu0 = { .n = 1, .cpu = { 0 } };
	struct collect_speed_opts o = { .cpus = &cpu0, .period_ns = 5 * NS_PER_MS,
					.burst_ns = 100 * NS_PER_US };
	struct collect_speed_result r;
	struct collect_speed *s = NULL;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_speed_open(&s, &o, &err), 0);
	/* nothing to give before a window has closed */
	assert_int_equal(collect_speed_result(s, &r), -EINVAL);
	assert_int_equal(collect_speed_stop(s), -EINVAL);
	assert_int_equal(collect_speed_pause(s, true), -EINVAL);
	assert_int_equal(collect_speed_start(s), 0);
	assert_int_equal(collect_speed_result(s, &r), -EINVAL);
	sleep_ns(300 * NS_PER_MS);
	assert_int_equal(collect_speed_stop(s), 0);
	assert_int_equal(collect_speed_result(s, &r), 0);
	assert_int_equal(r.ncpu, 1);
	assert_int_equal(r.cpu[0].cpu, 0);
	/* one burst per 5 ms period at most, 60 in 300 ms; a loaded CPU
	 * delays some, never all */
	assert_in_range(r.cpu[0].bursts, 5, 61);
	assert_true(r.cpu[0].mean > 0);
	assert_true(r.cpu[0].min <= r.cpu[0].mean && r.cpu[0].mean <= r.cpu[0].max);
	assert_true(r.cpu[0].cov_pct >= 0);
	assert_true(r.cpu[0].lost_pct >= 0 && r.cpu[0].lost_pct < 100);
	assert_true(r.cpu[0].core > 0);
	assert_int_equal(r.active_ns, r.window_ns);
	assert_true(r.window_ns >= 300 * NS_PER_MS);
	/* after stop, no burst is added */
	sleep_ns(30 * NS_PER_MS);
	{
		struct collect_speed_result again;

		assert_int_equal(collect_speed_result(s, &again), 0);
		assert_int_equal(again.cpu[0].bursts, r.cpu[0].bursts);
	}
	collect_speed_free(s);
}

static void test_speed_pause_stops_the_bursts(void **state)
{
	struct base_cpulist cpu0 = { .n = 1, .cpu = { 0 } };
	struct collect_speed_opts o = { .cpus = &cpu0, .period_ns = 2 * NS_PER_MS,
					.burst_ns = 50 * NS_PER_US };
	struct collect_speed_result r;
	struct collect_speed *s = NULL;
	struct base_err err = { "" };

	(void)state;
	assert_int_equal(collect_speed_open(&s, &o, &err), 0);
	/* a new window forgets the old one; a window paused throughout times
	 * nothing and says it was active for none of it */
	assert_int_equal(collect_speed_start(s), 0);
	sleep_ns(20 * NS_PER_MS);
	assert_int_equal(collect_speed_start(s), 0);
	assert_int_equal(collect_speed_pause(s, true), 0);
	assert_int_equal(collect_speed_pause(s, true), 0);
	sleep_ns(100 * NS_PER_MS);
	assert_int_equal(collect_speed_stop(s), 0);
	assert_int_equal(collect_speed_result(s, &r), 0);
	assert_int_equal(r.cpu[0].bursts, 0);
	assert_true(r.active_ns < 5 * NS_PER_MS);
	/* paused half the time: active about half */
	assert_int_equal(collect_speed_start(s), 0);
	sleep_ns(100 * NS_PER_MS);
	assert_int_equal(collect_speed_pause(s, true), 0);
	sleep_ns(100 * NS_PER_MS);
	assert_int_equal(collect_speed_pause(s, false), 0);
	assert_int_equal(collect_speed_stop(s), 0);
	assert_int_equal(collect_speed_result(s, &r), 0);
	assert_true(r.cpu[0].bursts > 0);
	assert_true(r.active_ns > 90 * NS_PER_MS && r.active_ns < r.window_ns - 50 * NS_PER_MS);
	collect_speed_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_speed_of_chunks_rate_median_and_lost_time),
		cmocka_unit_test(test_speed_of_chunks_core_pace_ignores_interrupted_chunks),
		cmocka_unit_test(test_speed_of_chunks_zero_when_nothing_timed),
		cmocka_unit_test(test_speed_open_rejects_bad_options),
		cmocka_unit_test(test_speed_window_times_bursts),
		cmocka_unit_test(test_speed_pause_stops_the_bursts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
