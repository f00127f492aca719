// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for collect/perf: counters on a fake kernel, then the real one. */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
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
#include "base/parse.h"
#include "base/time.h"
#include "collect/perf.h"

/* ---- the fake kernel ---- */

#define FAKE_MAX 128
#define FAKE_FD0 1000

struct fake_ev {
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	bool open;
	uint64_t v[3]; /* value, time_enabled, time_running */
};

static struct {
	int hw_err;       /* negative errno for PERF_TYPE_HARDWARE, or 0 */
	int hw_err_cpu;   /* only on this cpu (-2: every cpu) */
	int sw_err;       /* negative errno for PERF_TYPE_SOFTWARE, or 0 */
	int sw_err_cpu;
	int kernel_err;   /* refused unless exclude_kernel (paranoid) */
	int cycles_err;   /* for cycles alone */
	ssize_t short_read; /* >= 0: read returns this many bytes */
	int read_err;       /* negative errno for every read, or 0 */
	int nev, nclose;
	int ndisable, nenable; /* PERF_EVENT_IOC_DISABLE / _ENABLE calls */
	struct fake_ev ev[FAKE_MAX];
} fk;

static void fake_reset(void)
{
	memset(&fk, 0, sizeof(fk));
	fk.hw_err_cpu = -2;
	fk.sw_err_cpu = -2;
	fk.short_read = -1;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	struct fake_ev *e;

	assert_int_equal(group_fd, -1);
	assert_true(flags & PERF_FLAG_FD_CLOEXEC);
	if (attr->type == PERF_TYPE_HARDWARE && fk.hw_err &&
	    (fk.hw_err_cpu == -2 || fk.hw_err_cpu == cpu))
		return fk.hw_err;
	if (attr->type == PERF_TYPE_HARDWARE &&
	    attr->config == PERF_COUNT_HW_CPU_CYCLES && fk.cycles_err)
		return fk.cycles_err;
	if (attr->type == PERF_TYPE_SOFTWARE && fk.sw_err &&
	    (fk.sw_err_cpu == -2 || fk.sw_err_cpu == cpu))
		return fk.sw_err;
	if (fk.kernel_err && !attr->exclude_kernel)
		return fk.kernel_err;
	assert_true(fk.nev < FAKE_MAX);
	e = &fk.ev[fk.nev];
	e->attr = *attr;
	e->pid = pid;
	e->cpu = cpu;
	e->open = true;
	return FAKE_FD0 + fk.nev++;
}

static struct fake_ev *fake_ev_of_fd(int fd)
{
	assert_true(fd >= FAKE_FD0 && fd < FAKE_FD0 + fk.nev);
	return &fk.ev[fd - FAKE_FD0];
}

static ssize_t fake_read(int fd, void *buf, size_t len)
{
	struct fake_ev *e = fake_ev_of_fd(fd);

	assert_true(e->open);
	if (fk.read_err)
		return fk.read_err;
	if (fk.short_read >= 0)
		return fk.short_read;
	assert_int_equal(len, sizeof(e->v));
	memcpy(buf, e->v, sizeof(e->v));
	return (ssize_t)sizeof(e->v);
}

static int fake_close(int fd)
{
	struct fake_ev *e = fake_ev_of_fd(fd);

	assert_true(e->open);
	e->open = false;
	fk.nclose++;
	return 0;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	assert_true(fake_ev_of_fd(fd)->open);
	(void)arg;
	fk.ndisable += request == PERF_EVENT_IOC_DISABLE;
	fk.nenable += request == PERF_EVENT_IOC_ENABLE;
	return 0;
}

static const struct collect_perf_ops fake_ops = {
	.open = fake_open,
	.read = fake_read,
	.close = fake_close,
	.ioctl = fake_ioctl,
};

/* The fake event of (type, config) on cpu, or NULL. */
static struct fake_ev *find_ev(uint32_t type, uint64_t config, int cpu)
{
	for (int i = 0; i < fk.nev; i++) {
		struct fake_ev *e = &fk.ev[i];

		if (e->open && e->attr.type == type &&
		    e->attr.config == config && e->cpu == cpu)
			return e;
	}
	return NULL;
}

static void set_ev(uint32_t type, uint64_t config, int cpu, uint64_t value,
		   uint64_t enabled, uint64_t running)
{
	struct fake_ev *e = find_ev(type, config, cpu);

	assert_non_null(e);
	e->v[0] = value;
	e->v[1] = enabled;
	e->v[2] = running;
}

/* Advance an event by (value, enabled, running). */
static void add_ev(uint32_t type, uint64_t config, int cpu, uint64_t value,
		   uint64_t enabled, uint64_t running)
{
	struct fake_ev *e = find_ev(type, config, cpu);

	assert_non_null(e);
	e->v[0] += value;
	e->v[1] += enabled;
	e->v[2] += running;
}

static int open_fds(void)
{
	int n = 0;

	for (int i = 0; i < fk.nev; i++)
		n += fk.ev[i].open;
	return n;
}

static struct base_cpulist two_cpus(void)
{
	struct base_cpulist l = { .n = 2, .cpu = { 0, 1 } };

	return l;
}

static const uint64_t hw_cfg[] = {
	PERF_COUNT_HW_CPU_CYCLES,     PERF_COUNT_HW_INSTRUCTIONS,
	PERF_COUNT_HW_CACHE_REFERENCES, PERF_COUNT_HW_CACHE_MISSES,
	PERF_COUNT_HW_BRANCH_MISSES,
};

/* ---- fake kernel tests ---- */

static void test_fake_hw_multiplexed_gives_exact_ratios(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;
	struct base_err err = { "" };

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, &err), 0);
	/* 9 events on 2 cpus, each opened alone with the scaling times */
	assert_int_equal(fk.nev, 18);
	for (int i = 0; i < fk.nev; i++) {
		const struct fake_ev *e = &fk.ev[i];

		assert_int_equal(e->pid, -1);
		assert_true(e->cpu == 0 || e->cpu == 1);
		assert_int_equal(e->attr.read_format,
				 PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING);
		assert_int_equal(e->attr.inherit, 0);
		assert_int_equal(e->attr.disabled, 0);
		assert_int_equal(e->attr.size, sizeof(e->attr));
		assert_false(e->attr.type == PERF_TYPE_SOFTWARE &&
			     e->attr.config == PERF_COUNT_SW_TASK_CLOCK);
	}
	/* arbitrary values at the start mark: only deltas count */
	for (int c = 0; c < 2; c++) {
		for (size_t i = 0; i < ARRAY_SIZE(hw_cfg); i++)
			set_ev(PERF_TYPE_HARDWARE, hw_cfg[i], c,
			       1000003 * (i + 1), 777 + c, 555 + c);
		set_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, c, 5000,
		       5000, 5000);
		set_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, c,
		       40, 5000, 5000);
	}
	assert_int_equal(collect_perf_start(p), 0);
	/*
	 * cycles:       cpu0 1000 x 2000/1000 = 2000, cpu1 3000 (not muxed)
	 * instructions: cpu0 5000 (not muxed), cpu1 2500 x 4000/2000 = 5000
	 * cache refs:   cpu0 1000 x 3000/1500 = 2000, cpu1 2000
	 * cache misses: cpu0  250 x 2/1 = 500,        cpu1 500
	 * branch miss:  cpu0    7 x 3/2 = 10.5 -> 11, cpu1 0
	 */
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 1000, 2000,
	       1000);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 3000, 1000,
	       1000);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 5000, 4000,
	       4000);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 2500, 4000,
	       2000);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 0, 1000,
	       3000, 1500);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1, 2000,
	       3000, 3000);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0, 250, 2, 1);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1, 500, 2, 2);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, 7, 3, 2);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1, 0, 3, 3);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0, 1000000,
	       1000000, 1000000);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1, 999000,
	       1000000, 1000000);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 12, 1,
	       1);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);

	assert_true(r.window_ns >= 0);
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		assert_true(r.ev[e].supported);
		assert_true(r.ev[e].counted);
		assert_string_equal(r.ev[e].reason, "");
		assert_false(r.ev[e].user_only);
	}
	assert_string_equal(r.ev[COLLECT_PERF_CYCLES].name, "cycles");
	assert_string_equal(r.ev[COLLECT_PERF_CLOCK].name, "cpu_clock_ns");
	assert_string_equal(r.ev[COLLECT_PERF_CACHE_MISSES].name,
			    "cache_misses");
	assert_int_equal(r.ev[COLLECT_PERF_CYCLES].count, 5000);
	assert_int_equal(r.ev[COLLECT_PERF_CYCLES].raw, 4000);
	assert_int_equal(r.ev[COLLECT_PERF_INSTRUCTIONS].count, 10000);
	assert_int_equal(r.ev[COLLECT_PERF_CACHE_REFERENCES].count, 4000);
	assert_int_equal(r.ev[COLLECT_PERF_CACHE_MISSES].count, 1000);
	assert_int_equal(r.ev[COLLECT_PERF_BRANCH_MISSES].count, 11);
	assert_int_equal(r.ev[COLLECT_PERF_CLOCK].count, 1999000);
	assert_int_equal(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count, 12);
	assert_int_equal(r.ev[COLLECT_PERF_PAGE_FAULTS].count, 0);
	/* cycles ran 2000 of 3000 enabled ns */
	assert_float_equal(r.ev[COLLECT_PERF_CYCLES].running_pct,
			   200.0 / 3.0, 1e-9);
	assert_float_equal(r.ev[COLLECT_PERF_CLOCK].running_pct, 100.0, 0);
	assert_true(r.has_ipc && r.has_cpi && r.has_cache_miss_pct &&
		    r.has_mpki);
	assert_float_equal(r.ipc, 2.0, 0);
	assert_float_equal(r.cpi, 0.5, 0);
	assert_float_equal(r.cache_miss_pct, 25.0, 0);
	assert_float_equal(r.mpki, 100.0, 0);
	collect_perf_free(p);
	assert_int_equal(open_fds(), 0);
}

static void test_fake_scaling_does_not_overflow(void **state)
{
	struct base_cpulist cpus = { .n = 1, .cpu = { 3 } };
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	set_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3,
	       UINT64_MAX - 4, 0, 0);
	assert_int_equal(collect_perf_start(p), 0);
	/* 1e12 x 1e12 overflows 64 bits before the division */
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 3,
	       1000000000000ull, 1000000000000ull, 500000000000ull);
	/* a delta across 2^64 is still right */
	set_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 3, 5, 10, 10);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_int_equal(r.ev[COLLECT_PERF_CYCLES].count, 2000000000000ull);
	assert_int_equal(r.ev[COLLECT_PERF_INSTRUCTIONS].count, 10);
	collect_perf_free(p);
}

static void test_fake_all_hw_unsupported_software_still_counts(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;
	struct base_err err = { "" };

	(void)state;
	fake_reset();
	fk.hw_err = -ENOENT;
	assert_int_equal(collect_perf_open(&p, &o, &err), 0);
	assert_int_equal(fk.nev, 8); /* 4 software events x 2 cpus */
	assert_int_equal(collect_perf_start(p), 0);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 3, 10,
	       10);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 4, 10,
	       10);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1, 9, 10, 10);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0, 1, 10,
	       10);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	for (int e = COLLECT_PERF_CYCLES; e <= COLLECT_PERF_BRANCH_MISSES;
	     e++) {
		assert_false(r.ev[e].supported);
		assert_false(r.ev[e].counted);
		assert_int_equal(r.ev[e].errnum, -ENOENT);
		assert_string_equal(r.ev[e].reason,
				    "not supported by this machine");
		assert_int_equal(r.ev[e].count, 0);
		assert_non_null(r.ev[e].name);
	}
	assert_true(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].supported);
	assert_int_equal(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count, 7);
	assert_int_equal(r.ev[COLLECT_PERF_PAGE_FAULTS].count, 9);
	assert_int_equal(r.ev[COLLECT_PERF_CPU_MIGRATIONS].count, 1);
	assert_false(r.has_ipc || r.has_cpi || r.has_cache_miss_pct ||
		     r.has_mpki);
	assert_float_equal(r.ipc, 0, 0);
	collect_perf_free(p);
	assert_int_equal(open_fds(), 0);

	/* EOPNOTSUPP reads the same */
	fake_reset();
	fk.hw_err = -EOPNOTSUPP;
	assert_int_equal(collect_perf_open(&p, &o, &err), 0);
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_string_equal(r.ev[COLLECT_PERF_INSTRUCTIONS].reason,
			    "not supported by this machine");
	collect_perf_free(p);
}

static void test_fake_one_cpu_refusing_closes_the_others(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	fk.hw_err = -EOPNOTSUPP;
	fk.hw_err_cpu = 1; /* cpu0 opens, cpu1 refuses */
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	/* every hardware event opened on cpu0 was closed again */
	assert_int_equal(open_fds(), 8);
	assert_int_equal(fk.nclose, 5);
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_false(r.ev[COLLECT_PERF_CYCLES].supported);
	assert_true(r.ev[COLLECT_PERF_CLOCK].supported);
	collect_perf_free(p);
	assert_int_equal(open_fds(), 0);
}

static void test_fake_eacces_reports_paranoid_and_nothing_fails(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	fk.hw_err = -EACCES;
	fk.sw_err = -EACCES;
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(open_fds(), 0);
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		assert_false(r.ev[e].supported);
		assert_int_equal(r.ev[e].errnum, -EACCES);
		assert_string_equal(r.ev[e].reason,
				    "perf_event_paranoid forbids it");
	}
	collect_perf_free(p);

	/* EPERM is the same reason */
	fake_reset();
	fk.hw_err = -EPERM;
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_string_equal(r.ev[COLLECT_PERF_CYCLES].reason,
			    "perf_event_paranoid forbids it");
	assert_true(r.ev[COLLECT_PERF_CLOCK].supported);
	collect_perf_free(p);
}

static void test_fake_process_scope_is_pid0_inherited_task_clock(void **state)
{
	struct collect_perf_opts o = { .scope = COLLECT_PERF_PROCESS,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(fk.nev, COLLECT_PERF_NEVENTS);
	for (int i = 0; i < fk.nev; i++) {
		assert_int_equal(fk.ev[i].pid, 0);
		assert_int_equal(fk.ev[i].cpu, -1);
		assert_int_equal(fk.ev[i].attr.inherit, 1);
		assert_int_equal(fk.ev[i].attr.exclude_kernel, 0);
	}
	assert_non_null(find_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				-1));
	assert_null(find_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, -1));
	assert_int_equal(collect_perf_start(p), 0);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, 123456, 9, 9);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_string_equal(r.ev[COLLECT_PERF_CLOCK].name, "task_clock_ns");
	assert_int_equal(r.ev[COLLECT_PERF_CLOCK].count, 123456);
	collect_perf_free(p);
}

static void test_fake_process_paranoid_falls_back_to_user_only(void **state)
{
	struct collect_perf_opts o = { .scope = COLLECT_PERF_PROCESS,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	fk.kernel_err = -EACCES;
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(open_fds(), COLLECT_PERF_NEVENTS);
	for (int i = 0; i < fk.nev; i++) {
		assert_int_equal(fk.ev[i].attr.exclude_kernel, 1);
		assert_int_equal(fk.ev[i].attr.exclude_hv, 1);
	}
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		assert_true(r.ev[e].supported);
		assert_true(r.ev[e].user_only);
	}
	collect_perf_free(p);

	/* no such fallback per cpu: counting every task is the point */
	fake_reset();
	fk.kernel_err = -EACCES;
	{
		struct base_cpulist cpus = two_cpus();
		struct collect_perf_opts oc = { .scope = COLLECT_PERF_CPUS,
						.cpus = &cpus,
						.ops = &fake_ops };

		assert_int_equal(collect_perf_open(&p, &oc, NULL), 0);
		assert_int_equal(open_fds(), 0);
		collect_perf_free(p);
	}
}

static void test_fake_offline_cpu_is_enodev(void **state)
{
	struct base_cpulist cpus = { .n = 2, .cpu = { 0, 7 } };
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf *p = (struct collect_perf *)&o;
	struct base_err err = { "" };

	(void)state;
	fake_reset();
	fk.hw_err = -ENOENT;
	fk.sw_err = -ENODEV;
	fk.sw_err_cpu = 7;
	assert_int_equal(collect_perf_open(&p, &o, &err), -ENODEV);
	assert_null(p);
	assert_string_equal(err.msg, "cpu 7: offline or absent");
	assert_int_equal(open_fds(), 0);
}

static void test_fake_never_scheduled_is_not_counted(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_start(p), 0);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0, 100, 10, 10);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1, 0, 10, 0);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0, 50, 10, 10);
	add_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, 50, 10, 10);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_true(r.ev[COLLECT_PERF_CYCLES].supported);
	assert_false(r.ev[COLLECT_PERF_CYCLES].counted);
	assert_int_equal(r.ev[COLLECT_PERF_CYCLES].count, 0);
	assert_int_equal(r.ev[COLLECT_PERF_CYCLES].raw, 100);
	assert_float_equal(r.ev[COLLECT_PERF_CYCLES].running_pct, 50.0, 0);
	assert_true(r.ev[COLLECT_PERF_INSTRUCTIONS].counted);
	assert_false(r.has_ipc);
	assert_false(r.has_cpi);
	/* a zero divisor: no ratio either */
	assert_false(r.has_cache_miss_pct);
	assert_true(r.has_mpki);
	assert_float_equal(r.mpki, 0, 0);
	collect_perf_free(p);
}

/*
 * --overhead pauses the counters for part of the window: one disable and
 * one enable per counter and CPU, and the counts extrapolated to the
 * window from the part that was not paused.
 */
static void test_fake_pause_disables_every_counter_and_extrapolates(void **state)
{
	struct base_cpulist cpus = two_cpus();
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus,
				       .ops = &fake_ops };
	struct timespec half = { 0, 30 * 1000 * 1000 };
	struct collect_perf_result r;
	struct collect_perf *p;
	double share;

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_pause(p, true), -EINVAL); /* not started */
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_pause(p, false), 0); /* already counting */
	assert_int_equal(fk.nenable, 0);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 600, 10, 10);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 400, 10, 10);
	nanosleep(&half, NULL);
	assert_int_equal(collect_perf_pause(p, true), 0);
	assert_int_equal(fk.ndisable, COLLECT_PERF_NEVENTS * 2);
	assert_int_equal(collect_perf_pause(p, true), 0); /* no second round */
	assert_int_equal(fk.ndisable, COLLECT_PERF_NEVENTS * 2);
	nanosleep(&half, NULL);
	assert_int_equal(collect_perf_pause(p, false), 0);
	assert_int_equal(fk.nenable, COLLECT_PERF_NEVENTS * 2);
	nanosleep(&half, NULL);
	assert_int_equal(collect_perf_pause(p, true), 0);
	/* the window ends paused: stop counts the pause and enables again */
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(fk.nenable, COLLECT_PERF_NEVENTS * 4);
	assert_int_equal(collect_perf_pause(p, false), -EINVAL); /* stopped */
	assert_int_equal(collect_perf_result(p, &r), 0);
	share = (double)r.active_ns / (double)r.window_ns;
	/* about 2 of 3 sleeps counted; sleeps only ever run long */
	assert_true(share > 0.3 && share < 0.9);
	assert_true(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].counted);
	assert_int_equal(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].raw, 1000);
	assert_true(llabs((long long)r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count -
			  (long long)(1000 / share + 0.5)) <= 1);
	collect_perf_free(p);

	/* not paused: the counts are the scaled deltas, nothing extrapolated */
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_start(p), 0);
	add_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0, 600, 10, 10);
	nanosleep(&half, NULL);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_int_equal(r.active_ns, r.window_ns);
	assert_int_equal(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count, 600);
	assert_int_equal(fk.ndisable + fk.nenable, 0);
	collect_perf_free(p);
}

static void test_fake_short_read_marks_event_unsupported(void **state)
{
	struct collect_perf_opts o = { .scope = COLLECT_PERF_PROCESS,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	fk.short_read = 8;
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(open_fds(), 0); /* failed counters are closed */
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_false(r.ev[COLLECT_PERF_CLOCK].supported);
	assert_int_equal(r.ev[COLLECT_PERF_CLOCK].errnum, -EIO);
	assert_string_equal(r.ev[COLLECT_PERF_CLOCK].reason,
			    "read failed: 8 of 24 bytes");
	collect_perf_free(p);

	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_start(p), 0);
	fk.read_err = -EBADF;
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_false(r.ev[COLLECT_PERF_CYCLES].supported);
	assert_string_equal(r.ev[COLLECT_PERF_CYCLES].reason,
			    "read failed: Bad file descriptor");
	collect_perf_free(p);
}

static void test_strerror_reasons(void **state)
{
	static const struct {
		int errnum;
		const char *want;
	} cases[] = {
		{ -ENOENT, "not supported by this machine" },
		{ -EOPNOTSUPP, "not supported by this machine" },
		{ -ENODEV, "not supported by this machine" },
		{ -EACCES, "perf_event_paranoid forbids it" },
		{ -EPERM, "perf_event_paranoid forbids it" },
		{ -ENOSYS, "perf_event_open is not in this kernel" },
		{ -EMFILE, "too many open files" },
		{ -EBUSY, "busy: used by another tool" },
		{ -EINVAL, "rejected by the kernel: invalid argument" },
		{ -E2BIG, "perf_event_open failed: Argument list too long" },
	};
	char buf[96], tiny[8];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		collect_perf_strerror(cases[i].errnum, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].want);
	}
	collect_perf_strerror(-ENOENT, tiny, sizeof(tiny));
	assert_string_equal(tiny, "not sup");
}

static void test_api_misuse_is_einval(void **state)
{
	struct base_cpulist none = { .n = 0 };
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &none,
				       .ops = &fake_ops };
	struct collect_perf_result r;
	struct collect_perf *p;
	struct base_err err = { "" };

	(void)state;
	fake_reset();
	assert_int_equal(collect_perf_open(&p, &o, &err), -EINVAL);
	assert_string_equal(err.msg, "perf: per-cpu counters need a cpu list");
	o.cpus = NULL;
	assert_int_equal(collect_perf_open(&p, &o, NULL), -EINVAL);
	o.scope = (enum collect_perf_scope)7;
	assert_int_equal(collect_perf_open(&p, &o, &err), -EINVAL);
	assert_int_equal(collect_perf_open(&p, NULL, NULL), -EINVAL);
	assert_int_equal(fk.nev, 0);

	o.scope = COLLECT_PERF_PROCESS;
	assert_int_equal(collect_perf_open(&p, &o, NULL), 0);
	assert_int_equal(collect_perf_stop(p), -EINVAL);
	assert_int_equal(collect_perf_result(p, &r), -EINVAL);
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_result(p, &r), -EINVAL);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, NULL), -EINVAL);
	assert_int_equal(collect_perf_result(p, &r), 0);
	/* a second window on the same counters */
	assert_int_equal(collect_perf_start(p), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	assert_int_equal(collect_perf_start(NULL), -EINVAL);
	assert_int_equal(collect_perf_stop(NULL), -EINVAL);
	collect_perf_free(p);
	collect_perf_free(NULL);
}

static void test_derive_by_hand(void **state)
{
	struct collect_perf_result r;

	(void)state;
	memset(&r, 0, sizeof(r));
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++)
		r.ev[e].supported = r.ev[e].counted = true;
	r.ev[COLLECT_PERF_CYCLES].count = 3000;
	r.ev[COLLECT_PERF_INSTRUCTIONS].count = 1200;
	r.ev[COLLECT_PERF_CACHE_REFERENCES].count = 80;
	r.ev[COLLECT_PERF_CACHE_MISSES].count = 6;
	collect_perf_derive(&r);
	assert_float_equal(r.ipc, 0.4, 1e-12);
	assert_float_equal(r.cpi, 2.5, 1e-12);
	assert_float_equal(r.cache_miss_pct, 7.5, 1e-12);
	assert_float_equal(r.mpki, 5.0, 1e-12);
	r.ev[COLLECT_PERF_CYCLES].supported = false;
	collect_perf_derive(&r);
	assert_false(r.has_ipc || r.has_cpi);
	assert_true(r.has_mpki);
}

/* ---- the real kernel ---- */

static void *burn_thread(void *arg)
{
	(void)arg;
	test_burn_cpu_ms(40);
	for (int i = 0; i < 5; i++)
		usleep(1000); /* voluntary context switches */
	return NULL;
}

static void print_result(const char *what, const struct collect_perf_result *r)
{
	print_message("%s over %.1f ms:\n", what, (double)r->window_ns / 1e6);
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		if (r->ev[e].supported)
			print_message("  %-18s %12llu (%.0f%% on pmu)\n",
				      r->ev[e].name,
				      (unsigned long long)r->ev[e].count,
				      r->ev[e].running_pct);
		else
			print_message("  %-18s unsupported: %s\n",
				      r->ev[e].name, r->ev[e].reason);
	}
}

static void test_real_process_software_counters_see_a_busy_thread(void **state)
{
	struct collect_perf_opts o = { .scope = COLLECT_PERF_PROCESS };
	struct collect_perf_result r;
	struct collect_perf *p;
	struct base_err err = { "" };
	pthread_t t;
	int ret;

	(void)state;
	ret = collect_perf_open(&p, &o, &err);
	if (ret)
		fail_msg("open: %s", err.msg);
	assert_int_equal(collect_perf_start(p), 0);
	/* a thread created after open is counted (inherit) */
	assert_int_equal(pthread_create(&t, NULL, burn_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	print_result("process", &r);
	if (!r.ev[COLLECT_PERF_CLOCK].supported)
		skip(); /* perf_event_open unavailable here */
	assert_string_equal(r.ev[COLLECT_PERF_CLOCK].name, "task_clock_ns");
	assert_true(r.ev[COLLECT_PERF_CLOCK].counted);
	/* the thread burned 40 ms of CPU */
	assert_true(r.ev[COLLECT_PERF_CLOCK].count >= 40 * NS_PER_MS);
	assert_true(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].supported);
	assert_true(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count >= 5);
	for (int e = COLLECT_PERF_CYCLES; e <= COLLECT_PERF_BRANCH_MISSES;
	     e++)
		if (!r.ev[e].supported)
			assert_true(r.ev[e].reason[0] != '\0');
	collect_perf_free(p);
}

static void test_real_cpus_count_every_task(void **state)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	struct base_cpulist cpus = { .n = 0 };
	struct collect_perf_opts o = { .scope = COLLECT_PERF_CPUS,
				       .cpus = &cpus };
	struct collect_perf_result r;
	struct collect_perf *p;
	struct base_err err = { "" };
	cpu_set_t set;
	int ret;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && cpus.n < n; c++)
		if (CPU_ISSET(c, &set))
			cpus.cpu[cpus.n++] = (uint16_t)c;
	ret = collect_perf_open(&p, &o, &err);
	if (ret == -EACCES || ret == -EPERM)
		skip();
	if (ret)
		fail_msg("open: %s", err.msg);
	assert_int_equal(collect_perf_start(p), 0);
	test_burn_cpu_ms(20);
	usleep(5000);
	assert_int_equal(collect_perf_stop(p), 0);
	assert_int_equal(collect_perf_result(p, &r), 0);
	print_result("cpus", &r);
	if (!r.ev[COLLECT_PERF_CLOCK].supported)
		skip(); /* not allowed to count all tasks here */
	assert_string_equal(r.ev[COLLECT_PERF_CLOCK].name, "cpu_clock_ns");
	/* cpu-clock counts idle too: about window x cpus */
	assert_true(r.ev[COLLECT_PERF_CLOCK].count >=
		    (uint64_t)r.window_ns / 2);
	assert_true(r.ev[COLLECT_PERF_CONTEXT_SWITCHES].count > 0);
	collect_perf_free(p);

	/* a cpu this machine does not have */
	cpus.n = 1;
	cpus.cpu[0] = BASE_CPU_MAX - 1;
	assert_int_equal(collect_perf_open(&p, &o, &err), -ENODEV);
	assert_string_equal(err.msg, "cpu 1023: offline or absent");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fake_hw_multiplexed_gives_exact_ratios),
		cmocka_unit_test(test_fake_scaling_does_not_overflow),
		cmocka_unit_test(
			test_fake_all_hw_unsupported_software_still_counts),
		cmocka_unit_test(test_fake_one_cpu_refusing_closes_the_others),
		cmocka_unit_test(
			test_fake_eacces_reports_paranoid_and_nothing_fails),
		cmocka_unit_test(
			test_fake_process_scope_is_pid0_inherited_task_clock),
		cmocka_unit_test(
			test_fake_process_paranoid_falls_back_to_user_only),
		cmocka_unit_test(test_fake_offline_cpu_is_enodev),
		cmocka_unit_test(test_fake_never_scheduled_is_not_counted),
		cmocka_unit_test(test_fake_pause_disables_every_counter_and_extrapolates),
		cmocka_unit_test(test_fake_short_read_marks_event_unsupported),
		cmocka_unit_test(test_strerror_reasons),
		cmocka_unit_test(test_api_misuse_is_einval),
		cmocka_unit_test(test_derive_by_hand),
		cmocka_unit_test(
			test_real_process_software_counters_see_a_busy_thread),
		cmocka_unit_test(test_real_cpus_count_every_task),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
