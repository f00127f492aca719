// SPDX-License-Identifier: GPL-2.0-only
/* What the probes share: a thread pinned to one CPU above the test's, timed waits, medians. */
#include "collect/pinned.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/time.h"

int collect_pinned_start(pthread_t *th, unsigned cpu, void *(*fn)(void *), void *arg,
			 const char *what, const char *tag, bool *realtime,
			 struct base_err *err)
{
	pthread_attr_t attr;
	cpu_set_t set;
	sigset_t all, old;
	char name[16];
	int ret;

	if ((ret = pthread_attr_init(&attr)))
		return base_err_set(err, -ret, "cannot start the %s: %s", what, strerror(ret));
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (!ret)
		ret = pthread_create(th, &attr, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret)
		return base_err_set(err, -ret, "cannot start the %s on cpu %u: %s", what, cpu,
				    strerror(ret));
	snprintf(name, sizeof(name), "%s/%u", tag, cpu);
	pthread_setname_np(*th, name);
	if (pthread_setschedparam(*th, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 }))
		*realtime = false;
	return 0;
}

void collect_pinned_sync_init(pthread_mutex_t *mu, pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_mutex_init(mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

void collect_pinned_quit(pthread_mutex_t *mu, pthread_cond_t *cv, bool *quit)
{
	pthread_mutex_lock(mu);
	*quit = true;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
}

void collect_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = deadline_ns / NS_PER_S,
		.tv_nsec = deadline_ns % NS_PER_S,
	};

	pthread_cond_timedwait(cv, mu, &ts);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

double collect_median_i64(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}
