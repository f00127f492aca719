// SPDX-License-Identifier: GPL-2.0-only
/* The cross-CPU probe: pinned threads that bounce a cache line between two CPUs. */
#include "collect/xcpu.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "base/hist.h"
#include "base/time.h"
#include "collect/pinned.h"

#define DEFAULT_PERIOD_NS (100 * NS_PER_MS)
#define MIN_PERIOD_NS NS_PER_MS
/* how long the leader waits for its partner to wake and say so, unless
 * the options say otherwise */
#define DEFAULT_ARRIVE_NS (200 * NS_PER_US)
/* how long one batch of round trips may take before the round is missed */
#define BATCH_LIMIT_NS (50 * NS_PER_US)
/* check the clock every this many spins, not on each */
#define SPIN_CHECK 63u

/* the bounced line, and the line that says who is there and who is done */
struct line {
	_Alignas(64) atomic_uint_fast64_t ball; /* odd: the leader's turn is out */
	_Alignas(64) atomic_uint_fast64_t ready; /* the round id the partner is in */
	atomic_uint_fast64_t done; /* the round id the leader finished */
};

struct xthread {
	struct collect_xcpu *owner;
	pthread_t th;
	bool started;
	uint16_t cpu;
};

struct xpair {
	uint16_t a, b;
	uint32_t rounds, missed;
	struct base_hist *hist; /* the rounds' figures, ns */
};

struct collect_xcpu {
	struct line line;
	struct collect_window w; /* a round across a change of gen is dropped */
	bool realtime;
	int64_t period_ns, beat_ns, arrive_ns;
	struct base_hist *all; /* every pair's figures */
	uint32_t rounds, missed;
	double sum_ns;
	size_t npairs;
	struct xpair pair[COLLECT_XCPU_PAIRS_MAX];
	size_t nth;
	struct xthread th[];
};

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

int64_t collect_xcpu_origin(int64_t t_start, int64_t beat_ns, int64_t period_ns)
{
	int64_t off;

	if (!beat_ns || period_ns <= 0)
		return t_start;
	off = (t_start - beat_ns) % period_ns;
	return t_start - (off < 0 ? off + period_ns : off);
}

double collect_xcpu_figure(int64_t *batch_ns, size_t n, unsigned per_batch)
{
	return per_batch ? collect_median_i64(batch_ns, n) / per_batch : 0;
}

static bool add_pair(struct collect_xcpu_pair *out, size_t *n, uint16_t a, uint16_t b)
{
	if (a == b)
		return true;
	for (size_t i = 0; i < *n; i++)
		if (out[i].a == a && out[i].b == b)
			return true;
	if (*n >= COLLECT_XCPU_PAIRS_MAX)
		return false;
	out[*n].a = a;
	out[*n].b = b;
	(*n)++;
	return true;
}

size_t collect_xcpu_pairs(const struct base_cpulist *a, const struct base_cpulist *b,
			  const struct base_cpulist *online,
			  struct collect_xcpu_pair out[COLLECT_XCPU_PAIRS_MAX])
{
	size_t n = 0;

	if (a && b && a->n && b->n) {
		int k = a->n > b->n ? a->n : b->n;

		for (int i = 0; i < k; i++)
			if (!add_pair(out, &n, a->cpu[i % a->n], b->cpu[i % b->n]))
				break;
		/* a flow's two ends on one CPU (pair placement): the distance
		 * between the CPUs the pairs run on, consecutive ones of a */
		for (int i = 0; !n && i + 1 < a->n; i++)
			if (!add_pair(out, &n, a->cpu[i], a->cpu[i + 1]))
				break;
		return n;
	}
	for (int i = 0; online && i + 1 < online->n; i++)
		if (!add_pair(out, &n, online->cpu[i], online->cpu[i + 1]))
			break;
	return n;
}

/*
 * The leader's side of round id: wait for the partner, then time the
 * batches of round trips into batch[]. Always says it is done, so that the
 * partner stops answering. False when the partner did not come or an
 * answer took too long.
 */
static bool lead(struct line *l, uint64_t id, int64_t arrive_ns, int64_t *batch)
{
	int64_t limit = base_now_ns() + arrive_ns;
	unsigned spins = 0;
	bool ok = false;

	while (atomic_load_explicit(&l->ready, memory_order_acquire) != id) {
		if (!(++spins & SPIN_CHECK) && base_now_ns() > limit)
			goto out;
		cpu_relax();
	}
	for (int b = 0; b < COLLECT_XCPU_BATCHES; b++) {
		int64_t t0 = base_now_ns();

		limit = t0 + BATCH_LIMIT_NS;
		for (int k = 0; k < COLLECT_XCPU_PER_BATCH; k++) {
			uint_fast64_t v = atomic_load_explicit(&l->ball, memory_order_relaxed);

			atomic_store_explicit(&l->ball, v + 1, memory_order_release);
			/* no pause here: it would be part of the figure */
			while (atomic_load_explicit(&l->ball, memory_order_acquire) == v + 1)
				if (!(++spins & SPIN_CHECK) && base_now_ns() > limit)
					goto out;
		}
		batch[b] = base_now_ns() - t0;
	}
	ok = true;
out:
	atomic_store_explicit(&l->done, id, memory_order_release);
	return ok;
}

/* The partner's side: answer every odd ball until the leader is done, for
 * at most as long as the leader could take. */
static void answer(struct line *l, uint64_t id, int64_t arrive_ns)
{
	int64_t limit = base_now_ns() + 2 * arrive_ns +
			COLLECT_XCPU_BATCHES * BATCH_LIMIT_NS;
	uint_fast64_t v = atomic_load_explicit(&l->ball, memory_order_acquire);
	unsigned spins = 0;

	/* a ball left out by a round the leader gave up */
	if (v & 1)
		atomic_store_explicit(&l->ball, v + 1, memory_order_release);
	atomic_store_explicit(&l->ready, id, memory_order_release);
	for (;;) {
		v = atomic_load_explicit(&l->ball, memory_order_acquire);
		if (v & 1) {
			atomic_store_explicit(&l->ball, v + 1, memory_order_release);
			continue;
		}
		if (atomic_load_explicit(&l->done, memory_order_acquire) == id)
			return;
		if (!(++spins & SPIN_CHECK) && base_now_ns() > limit)
			return;
	}
}

static void record(struct collect_xcpu *s, struct xpair *p, bool ok, double fig)
{
	if (!ok || fig <= 0) {
		p->missed++;
		s->missed++;
		return;
	}
	p->rounds++;
	base_hist_record(p->hist, (uint64_t)(fig + 0.5));
	s->rounds++;
	s->sum_ns += fig;
	base_hist_record(s->all, (uint64_t)(fig + 0.5));
}

static void *xthread_main(void *arg)
{
	struct xthread *t = arg;
	struct collect_xcpu *s = t->owner;
	uint32_t seen_gen = 0;
	int64_t origin = 0; /* rounds at origin + k * period, k >= 1 */
	int64_t last = 0; /* the last round this thread took its turn in */

	/* wake at the deadline, as the partner does */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	pthread_mutex_lock(&s->w.mu);
	while (!s->w.quit) {
		int64_t batch[COLLECT_XCPU_BATCHES];
		int64_t now, deadline;
		struct xpair *p;
		uint32_t gen;
		uint64_t id;
		bool ok;

		if (!s->w.running || s->w.paused) {
			pthread_cond_wait(&s->w.cv, &s->w.mu);
			continue;
		}
		now = base_now_ns();
		if (s->w.gen != seen_gen) {
			/* a new window or a resume: the next whole period */
			seen_gen = s->w.gen;
			origin = collect_xcpu_origin(s->w.t_start, s->beat_ns, s->period_ns);
			last = (now - origin) / s->period_ns;
		}
		deadline = origin + (last + 1) * s->period_ns;
		if (now < deadline) {
			collect_cond_wait_until(&s->w.cv, &s->w.mu, deadline);
			continue;
		}
		if (now - deadline > s->period_ns / 2) {
			/* woke too late for this round: the partner has gone */
			last = (now - origin) / s->period_ns;
			continue;
		}
		last++;
		p = &s->pair[(size_t)last % s->npairs];
		if (p->a != t->cpu && p->b != t->cpu)
			continue;
		gen = s->w.gen;
		id = (uint64_t)gen << 32 | (uint32_t)last;
		pthread_mutex_unlock(&s->w.mu);
		if (p->b == t->cpu) {
			answer(&s->line, id, s->arrive_ns);
			pthread_mutex_lock(&s->w.mu);
			continue;
		}
		ok = lead(&s->line, id, s->arrive_ns, batch);
		pthread_mutex_lock(&s->w.mu);
		if (s->w.running && !s->w.paused && s->w.gen == gen)
			record(s, p, ok, ok ? collect_xcpu_figure(batch, COLLECT_XCPU_BATCHES,
								  COLLECT_XCPU_PER_BATCH) : 0);
	}
	pthread_mutex_unlock(&s->w.mu);
	return NULL;
}

static int start_thread(struct xthread *t, struct base_err *err)
{
	int ret = collect_pinned_start(&t->th, t->cpu, xthread_main, t, "cross-CPU probe",
				       "nr-xcpu", &t->owner->realtime, err);

	t->started = !ret;
	return ret;
}

static size_t distinct_cpus(const struct collect_xcpu_pair *p, size_t n, uint16_t *cpu)
{
	size_t k = 0;

	for (size_t i = 0; i < 2 * n; i++) {
		uint16_t c = i % 2 ? p[i / 2].b : p[i / 2].a;
		bool seen = false;

		for (size_t j = 0; j < k && !seen; j++)
			seen = cpu[j] == c;
		if (!seen)
			cpu[k++] = c;
	}
	return k;
}

int collect_xcpu_open(struct collect_xcpu **out, const struct collect_xcpu_opts *opts,
		      struct base_err *err)
{
	uint16_t cpu[2 * COLLECT_XCPU_PAIRS_MAX];
	struct collect_xcpu *s;
	void *mem;
	size_t ncpu;
	int ret = 0;

	*out = NULL;
	if (!opts || !opts->pairs || !opts->npairs)
		return base_err_set(err, -EINVAL, "cross-CPU probe: no pair of CPUs to probe");
	if (opts->npairs > COLLECT_XCPU_PAIRS_MAX)
		return base_err_set(err, -EINVAL, "cross-CPU probe: %zu pairs, at most %d",
				    opts->npairs, COLLECT_XCPU_PAIRS_MAX);
	for (size_t i = 0; i < opts->npairs; i++)
		if (opts->pairs[i].a == opts->pairs[i].b)
			return base_err_set(err, -EINVAL,
					    "cross-CPU probe: pair %u-%u is one CPU, expected two",
					    opts->pairs[i].a, opts->pairs[i].b);
	if (opts->period_ns && opts->period_ns < MIN_PERIOD_NS)
		return base_err_set(err, -EINVAL,
				    "cross-CPU probe: period %lld ns, expected at least %lld",
				    (long long)opts->period_ns, (long long)MIN_PERIOD_NS);
	if (opts->arrive_ns < 0 ||
	    opts->arrive_ns > (opts->period_ns ? opts->period_ns : DEFAULT_PERIOD_NS))
		return base_err_set(err, -EINVAL,
				    "cross-CPU probe: arrival bound %lld ns, expected 0 to the period",
				    (long long)opts->arrive_ns);
	ncpu = distinct_cpus(opts->pairs, opts->npairs, cpu);
	/* the bounced line is a cache line of its own: malloc's 16 bytes of
	 * alignment are not enough */
	if (posix_memalign(&mem, _Alignof(struct collect_xcpu),
			   sizeof(*s) + ncpu * sizeof(s->th[0])))
		return base_err_set(err, -ENOMEM, "out of memory");
	s = memset(mem, 0, sizeof(*s) + ncpu * sizeof(s->th[0]));
	s->all = malloc(sizeof(*s->all));
	for (size_t i = 0; s->all && i < opts->npairs; i++) {
		s->pair[i].a = opts->pairs[i].a;
		s->pair[i].b = opts->pairs[i].b;
		s->pair[i].hist = malloc(sizeof(*s->pair[i].hist));
		if (!s->pair[i].hist)
			break;
		s->npairs++;
	}
	if (!s->all || s->npairs < opts->npairs) {
		for (size_t i = 0; i < s->npairs; i++)
			free(s->pair[i].hist);
		free(s->all);
		free(s);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	base_hist_init(s->all);
	for (size_t i = 0; i < s->npairs; i++)
		base_hist_init(s->pair[i].hist);
	s->period_ns = opts->period_ns ? opts->period_ns : DEFAULT_PERIOD_NS;
	s->arrive_ns = opts->arrive_ns ? opts->arrive_ns : DEFAULT_ARRIVE_NS;
	s->realtime = true;
	collect_window_init(&s->w);
	for (size_t i = 0; i < ncpu; i++) {
		struct xthread *t = &s->th[s->nth++];

		t->owner = s;
		t->cpu = cpu[i];
		if ((ret = start_thread(t, err)))
			break;
	}
	if (ret) {
		collect_xcpu_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void collect_xcpu_free(struct collect_xcpu *s)
{
	if (!s)
		return;
	collect_window_quit(&s->w);
	for (size_t i = 0; i < s->nth; i++)
		if (s->th[i].started)
			pthread_join(s->th[i].th, NULL);
	collect_window_destroy(&s->w);
	for (size_t i = 0; i < s->npairs; i++)
		free(s->pair[i].hist);
	free(s->all);
	free(s);
}

int collect_xcpu_start(struct collect_xcpu *s, int64_t beat_ns)
{
	if (!s)
		return -EINVAL;
	pthread_mutex_lock(&s->w.mu);
	s->beat_ns = beat_ns;
	for (size_t i = 0; i < s->npairs; i++) {
		struct xpair *p = &s->pair[i];

		p->rounds = p->missed = 0;
		base_hist_init(p->hist);
	}
	base_hist_init(s->all);
	s->rounds = s->missed = 0;
	s->sum_ns = 0;
	collect_window_open(&s->w);
	return 0;
}

int collect_xcpu_stop(struct collect_xcpu *s)
{
	if (!s || collect_window_lock(&s->w))
		return -EINVAL;
	collect_window_close(&s->w, base_now_ns());
	return 0;
}

int collect_xcpu_pause(struct collect_xcpu *s, bool paused)
{
	if (!s || collect_window_lock(&s->w))
		return -EINVAL;
	collect_window_pause(&s->w, paused);
	return 0;
}

int collect_xcpu_totals(struct collect_xcpu *s, double *rounds, double *sum_ns)
{
	if (!s || !rounds || !sum_ns)
		return -EINVAL;
	pthread_mutex_lock(&s->w.mu);
	*rounds = s->rounds;
	*sum_ns = s->sum_ns;
	pthread_mutex_unlock(&s->w.mu);
	return 0;
}

int collect_xcpu_result(const struct collect_xcpu *s, struct collect_xcpu_result *out)
{
	struct collect_xcpu *m = (struct collect_xcpu *)s;
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
	out->npairs = s->npairs;
	out->rounds = s->rounds;
	out->missed = s->missed;
	out->median_ns = s->rounds ? base_hist_quantile(s->all, 0.5) : 0;
	for (size_t i = 0; i < s->npairs; i++) {
		const struct xpair *p = &s->pair[i];
		struct collect_xcpu_pair_result *r = &out->pair[i];

		r->a = p->a;
		r->b = p->b;
		r->rounds = p->rounds;
		r->missed = p->missed;
		if (!p->rounds)
			continue;
		r->median_ns = base_hist_quantile(p->hist, 0.5);
		r->min_ns = (double)p->hist->min;
		r->max_ns = (double)p->hist->max;
	}
out:
	pthread_mutex_unlock(&m->w.mu);
	return ret;
}
