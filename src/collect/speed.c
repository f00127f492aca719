// SPDX-License-Identifier: GPL-2.0-only
/* The CPU speed probe: pinned threads that time short chains of multiply-adds. */
#include "collect/speed.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/time.h"
#include "collect/perf.h"
#include "collect/pinned.h"

#define DEFAULT_PERIOD_NS (50 * 1000 * 1000LL)
#define DEFAULT_BURST_NS (50 * 1000LL)

struct probe {
	struct collect_speed *owner;
	pthread_t th;
	bool started;
	int cpu;
	/* the window's bursts, under owner->w.mu */
	uint32_t n;
	double sum, sumsq, min, max, core_sum;
	/* the chain's value; the probe's only */
	volatile uint64_t x;
	/* the window's sums: steps and ns for the mean, per-burst rates for
	 * the spread, lost ns for lost_pct */
	double steps, time_ns, lost_ns;
	int64_t chunk_ns[COLLECT_SPEED_CHUNKS];
};

struct collect_speed {
	struct collect_window w; /* a burst across a change of gen is dropped */
	bool realtime; /* every probe got SCHED_FIFO */
	int64_t period_ns, burst_ns;
	struct collect_pause_clock pause;
	size_t n;
	struct probe p[];
};

void collect_speed_of_chunks(int64_t *ns, size_t n, unsigned steps,
			     struct collect_speed_burst *out)
{
	double total = 0, med, over = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		total += (double)(ns[i] > 0 ? ns[i] : 0);
	if (!n || total <= 0)
		return;
	med = collect_median_i64(ns, n);
	for (size_t i = 0; i < n; i++)
		if ((double)ns[i] > med)
			over += (double)ns[i] - med;
	out->steps = (double)n * steps;
	out->time_ns = total;
	out->lost_ns = over;
	out->rate = out->steps * 1000.0 / total;
	out->median_rate = med > 0 ? steps * 1000.0 / med : 0;
	/* ns is sorted now (collect_median_i64) */
	out->core_rate = ns[n / 4] > 0 ? steps * 1000.0 / (double)ns[n / 4] : 0;
	out->lost_pct = 100.0 * over / total;
}

/*
 * COLLECT_SPEED_STEPS dependent multiply-adds through memory: each step
 * loads the last result, which the step before stored, so the chain runs
 * at the speed of the core's clock and of its load/store pipeline (which a
 * busy sibling hyperthread shares), as network code does, and the compiler
 * may not fold it.
 *
 * Not inlined, and at the start of a 64-byte block: where the loop sits
 * against those boundaries changes its speed, so it must not move with the
 * code around it from one build to the next (docs/methodology.md, "Host
 * speed", gives what a boundary cost).
 */
__attribute__((noinline, aligned(64))) static void chain(volatile uint64_t *x)
{
	for (unsigned i = 0; i < COLLECT_SPEED_STEPS; i++)
		*x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* One burst: back-to-back timed chunks until burst_ns has passed. */
static void burst(struct probe *p, int64_t burst_ns, struct collect_speed_burst *out)
{
	int64_t t0 = base_now_ns(), prev = t0, t;
	size_t n = 0;

	while (n < COLLECT_SPEED_CHUNKS) {
		chain(&p->x);
		t = base_now_ns();
		p->chunk_ns[n++] = t - prev;
		prev = t;
		if (t - t0 >= burst_ns)
			break;
	}
	collect_speed_of_chunks(p->chunk_ns, n, COLLECT_SPEED_STEPS, out);
}

static void *probe_main(void *arg)
{
	struct probe *p = arg;
	struct collect_speed *s = p->owner;
	int64_t next = 0;

	p->x = 1;
	pthread_mutex_lock(&s->w.mu);
	while (!s->w.quit) {
		struct collect_speed_burst b;
		uint64_t gen;
		double v;

		if (!s->w.running || s->w.paused) {
			pthread_cond_wait(&s->w.cv, &s->w.mu);
			next = 0;
			continue;
		}
		if (base_now_ns() < next) {
			collect_cond_wait_until(&s->w.cv, &s->w.mu, next);
			continue;
		}
		gen = s->w.gen;
		pthread_mutex_unlock(&s->w.mu);
		burst(p, s->burst_ns, &b);
		v = b.rate;
		next = base_now_ns() + s->period_ns;
		pthread_mutex_lock(&s->w.mu);
		if (v > 0 && s->w.running && !s->w.paused && s->w.gen == gen) {
			if (!p->n || v < p->min)
				p->min = v;
			if (!p->n || v > p->max)
				p->max = v;
			p->n++;
			p->sum += v;
			p->sumsq += v * v;
			p->core_sum += b.core_rate;
			p->steps += b.steps;
			p->time_ns += b.time_ns;
			p->lost_ns += b.lost_ns;
		}
	}
	pthread_mutex_unlock(&s->w.mu);
	return NULL;
}

static int start_probe(struct probe *p, struct base_err *err)
{
	int ret = collect_pinned_start(&p->th, (unsigned)p->cpu, probe_main, p, "speed probe",
				       "nr-speed", &p->owner->realtime, err);

	p->started = !ret;
	return ret;
}

int collect_speed_open(struct collect_speed **out,
		       const struct collect_speed_opts *opts,
		       struct base_err *err)
{
	struct collect_speed *s;
	int64_t period, burst_ns;
	int ret = 0;

	*out = NULL;
	if (!opts || !opts->cpus || !opts->cpus->n)
		return base_err_set(err, -EINVAL, "speed probe: no CPUs to probe");
	period = opts->period_ns ? opts->period_ns : DEFAULT_PERIOD_NS;
	burst_ns = opts->burst_ns ? opts->burst_ns : DEFAULT_BURST_NS;
	if (period <= 0 || burst_ns <= 0 || burst_ns >= period)
		return base_err_set(err, -EINVAL,
				    "speed probe: burst %lld ns must be shorter than its period %lld ns",
				    (long long)burst_ns, (long long)period);
	s = calloc(1, sizeof(*s) + (size_t)opts->cpus->n * sizeof(s->p[0]));
	if (!s)
		return base_err_set(err, -ENOMEM, "out of memory");
	s->period_ns = period;
	s->burst_ns = burst_ns;
	s->realtime = true;
	collect_window_init(&s->w);
	for (int i = 0; i < opts->cpus->n; i++) {
		struct probe *p = &s->p[s->n++];

		p->owner = s;
		p->cpu = opts->cpus->cpu[i];
		if ((ret = start_probe(p, err)))
			break;
	}
	if (ret) {
		collect_speed_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void collect_speed_free(struct collect_speed *s)
{
	if (!s)
		return;
	collect_window_quit(&s->w);
	for (size_t i = 0; i < s->n; i++)
		if (s->p[i].started)
			pthread_join(s->p[i].th, NULL);
	collect_window_destroy(&s->w);
	free(s);
}

int collect_speed_start(struct collect_speed *s)
{
	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&s->w.mu);
	for (size_t i = 0; i < s->n; i++) {
		struct probe *p = &s->p[i];

		p->n = 0;
		p->sum = p->sumsq = p->min = p->max = p->core_sum = 0;
		p->steps = p->time_ns = p->lost_ns = 0;
	}
	s->pause = (struct collect_pause_clock){ 0 };
	collect_window_open(&s->w);
	return 0;
}

int collect_speed_stop(struct collect_speed *s)
{
	int64_t now;

	if (!s || collect_window_lock(&s->w))
		return -EINVAL;
	now = base_now_ns();
	collect_pause_clock_set(&s->pause, false, now);
	collect_window_close(&s->w, now);
	return 0;
}

int collect_speed_pause(struct collect_speed *s, bool paused)
{
	if (!s || collect_window_lock(&s->w))
		return -EINVAL;
	/* a burst under way when the state flips is not counted (gen) */
	if (s->w.paused != paused)
		collect_pause_clock_set(&s->pause, paused, base_now_ns());
	collect_window_pause(&s->w, paused);
	return 0;
}

int collect_speed_totals(struct collect_speed *s, double *steps, double *time_ns)
{
	if (!s || !steps || !time_ns)
		return -EINVAL;
	*steps = *time_ns = 0;
	pthread_mutex_lock(&s->w.mu);
	for (size_t i = 0; i < s->n; i++) {
		*steps += s->p[i].steps;
		*time_ns += s->p[i].time_ns;
	}
	pthread_mutex_unlock(&s->w.mu);
	return 0;
}

int collect_speed_result(const struct collect_speed *s,
			 struct collect_speed_result *out)
{
	struct collect_speed *m = (struct collect_speed *)s;
	int ret = 0;

	if (!s || !out)
		return -EINVAL;
	pthread_mutex_lock(&m->w.mu);
	if (!s->w.closed) {
		ret = -EINVAL;
		goto out;
	}
	memset(out, 0, sizeof(*out));
	out->realtime = s->realtime;
	out->window_ns = s->w.t_stop - s->w.t_start;
	out->active_ns = out->window_ns - s->pause.total_ns;
	for (size_t i = 0; i < s->n && i < BASE_CPU_MAX; i++) {
		const struct probe *p = &s->p[i];
		struct collect_speed_cpu *c = &out->cpu[out->ncpu++];

		c->cpu = p->cpu;
		c->bursts = p->n;
		if (!p->n)
			continue;
		c->mean = p->time_ns > 0 ? p->steps * 1000.0 / p->time_ns : 0;
		c->lost_pct = p->time_ns > 0 ? 100.0 * p->lost_ns / p->time_ns : 0;
		c->core = p->core_sum / p->n;
		c->min = p->min;
		c->max = p->max;
		if (p->n > 1) {
			double var = (p->sumsq - p->sum * p->sum / p->n) / (p->n - 1);

			c->cov_pct = var > 0 ? 100.0 * sqrt(var) / (p->sum / p->n) : 0;
		}
	}
out:
	pthread_mutex_unlock(&m->w.mu);
	return ret;
}
