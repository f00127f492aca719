// SPDX-License-Identifier: GPL-2.0-only
/* What the probes share: a thread pinned to one CPU above the test's, timed waits, medians. */
#include "collect/pinned.h"

#include <errno.h>
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

void collect_window_init(struct collect_window *w)
{
	pthread_condattr_t ca;

	memset(w, 0, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
}

void collect_window_destroy(struct collect_window *w)
{
	pthread_cond_destroy(&w->cv);
	pthread_mutex_destroy(&w->mu);
}

void collect_window_quit(struct collect_window *w)
{
	pthread_mutex_lock(&w->mu);
	w->quit = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

int collect_window_lock(struct collect_window *w)
{
	pthread_mutex_lock(&w->mu);
	if (w->running)
		return 0;
	pthread_mutex_unlock(&w->mu);
	return -EINVAL;
}

void collect_window_open(struct collect_window *w)
{
	w->gen++;
	w->t_start = base_now_ns();
	w->running = true;
	w->paused = false;
	w->closed = false;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void collect_window_close(struct collect_window *w, int64_t now_ns)
{
	w->t_stop = now_ns;
	w->gen++;
	w->running = false;
	w->paused = false;
	w->closed = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void collect_window_pause(struct collect_window *w, bool paused)
{
	if (w->paused != paused) {
		w->paused = paused;
		w->gen++;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
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
