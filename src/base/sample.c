// SPDX-License-Identifier: GPL-2.0-only
/* Samples and the metric direction table. */
#include "base/sample.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/time.h"

#include "base/err.h"

/*
 * The one place a metric's direction is decided. An entry ending in '.'
 * is a prefix; the longest match wins, so exceptions come as longer
 * entries next to their prefix.
 */
static const struct {
	const char *name;
	enum metric_dir dir;
} metric_dirs[] = {
	{ "throughput.", METRIC_HIGHER },
	{ "fairness.", METRIC_HIGHER },
	{ "latency.", METRIC_LOWER },
	{ "transactions.", METRIC_HIGHER },
	{ "crr.connects_per_s", METRIC_HIGHER },
	{ "crr.connect_failures", METRIC_LOWER },
	{ "rr.late_replies", METRIC_LOWER },
	{ "udp.loss_pct", METRIC_LOWER },
	{ "udp.lost", METRIC_LOWER },
	{ "udp.reordered", METRIC_LOWER },
	{ "udp.duplicates", METRIC_LOWER },
	{ "tcp.retransmits", METRIC_LOWER },
	{ "tcp.rtt_us", METRIC_LOWER },
	{ "tcp.rttvar_us", METRIC_LOWER },
	/* tcp.delivery_rate_gbps stays neutral: the kernel's last rate sample
	 * counts delivered segments as MSS-sized (docs/results.md) */
	/* CPU use moves with the work done: neutral; per unit of work it is a cost */
	{ "cpu.", METRIC_NEUTRAL },
	{ "cpu.service_demand.", METRIC_LOWER },
	{ "window.", METRIC_NEUTRAL },
	/* --overhead: rate lost to the collectors */
	{ "overhead.", METRIC_NEUTRAL },
	{ "overhead.pct", METRIC_LOWER },
	{ "sockbuf.", METRIC_NEUTRAL },
	/* what the kernel granted the sockets: a change is news, not a verdict */
	{ "granted.", METRIC_NEUTRAL },
};

enum metric_dir base_metric_dir(const char *name)
{
	enum metric_dir dir = METRIC_NEUTRAL;
	size_t best = 0;

	for (size_t i = 0; i < ARRAY_SIZE(metric_dirs); i++) {
		const char *p = metric_dirs[i].name;
		size_t len = strlen(p);
		bool prefix = len && p[len - 1] == '.';
		bool hit = prefix ? !strncmp(name, p, len) : !strcmp(name, p);

		if (hit && len > best) {
			best = len;
			dir = metric_dirs[i].dir;
		}
	}
	return dir;
}

const char *base_metric_dir_name(enum metric_dir d)
{
	switch (d) {
	case METRIC_HIGHER:
		return "higher";
	case METRIC_LOWER:
		return "lower";
	default:
		return "neutral";
	}
}

bool base_label_ok(const char *s)
{
	size_t n = strnlen(s, SAMPLE_LABEL_MAX + 1);

	return n > 0 && n <= SAMPLE_LABEL_MAX && !base_has_control(s);
}

void base_sample_init(struct base_sample *s)
{
	memset(s, 0, sizeof(*s));
}

void base_sample_release(struct base_sample *s)
{
	free(s->params);
	free(s->env);
	free(s->metrics);
	free(s->flows);
	free(s->latency);
	free(s->series);
	for (size_t k = 0; k < BASE_TICK_PROBES; k++)
		free(s->series_probe[k]);
	json_decref(s->sysenv);
	memset(s, 0, sizeof(*s));
}

static int grow(void **arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 16;
	p = realloc(*arr, ncap * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int base_sample_append(struct base_sample *s, const char *name, const char *unit,
		       double value)
{
	struct sample_metric *m;
	int ret;

	if (strlen(name) >= sizeof(m->name) || strlen(unit) >= sizeof(m->unit))
		return -EINVAL;
	ret = grow((void **)&s->metrics, &s->cap_metrics, s->nmetrics,
		   sizeof(*s->metrics));
	if (ret)
		return ret;
	m = &s->metrics[s->nmetrics++];
	snprintf(m->name, sizeof(m->name), "%s", name);
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
	return 0;
}

/* The index of metric name in s, or s->nmetrics when absent. */
static size_t metric_index(const struct base_sample *s, const char *name)
{
	size_t i = 0;

	while (i < s->nmetrics && strcmp(s->metrics[i].name, name))
		i++;
	return i;
}

int base_sample_set(struct base_sample *s, const char *name, const char *unit,
		    double value)
{
	size_t i = metric_index(s, name);
	struct sample_metric *m;

	if (i == s->nmetrics)
		return base_sample_append(s, name, unit, value);
	m = &s->metrics[i];
	if (strlen(unit) >= sizeof(m->unit))
		return -EINVAL;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->value = value;
	return 0;
}

const struct sample_metric *base_sample_get(const struct base_sample *s,
					    const char *name)
{
	size_t i = metric_index(s, name);

	return i < s->nmetrics ? &s->metrics[i] : NULL;
}

double base_sample_value(const struct base_sample *s, const char *name)
{
	const struct sample_metric *m = base_sample_get(s, name);

	return m ? m->value : NAN;
}

const struct sample_metric *base_sample_get_near(const struct base_sample *s,
						 const char *name, size_t hint)
{
	if (hint < s->nmetrics && !strcmp(s->metrics[hint].name, name))
		return &s->metrics[hint];
	return base_sample_get(s, name);
}

static const char *kv_get(const struct sample_kv *kv, size_t n,
			  const char *key, const char *absent)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return kv[i].val;
	return absent;
}

const char *base_sample_param_get(const struct base_sample *s, const char *key,
				  const char *absent)
{
	return kv_get(s->params, s->nparams, key, absent);
}

const char *base_sample_env_get(const struct base_sample *s, const char *key,
				const char *absent)
{
	return kv_get(s->env, s->nenv, key, absent);
}

static int add_kv(struct sample_kv **arr, size_t *n, size_t *cap,
		  const char *key, const char *fmt, va_list ap)
{
	struct sample_kv *kv;
	int ret;

	if (strlen(key) >= sizeof(kv->key))
		return -EINVAL;
	ret = grow((void **)arr, cap, *n, sizeof(**arr));
	if (ret)
		return ret;
	kv = &(*arr)[(*n)++];
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	vsnprintf(kv->val, sizeof(kv->val), fmt, ap);
	return 0;
}

int base_sample_param(struct base_sample *s, const char *key, const char *fmt,
		      ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = add_kv(&s->params, &s->nparams, &s->cap_params, key, fmt, ap);
	va_end(ap);
	return ret;
}

int base_sample_env(struct base_sample *s, const char *key, const char *fmt,
		    ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = add_kv(&s->env, &s->nenv, &s->cap_env, key, fmt, ap);
	va_end(ap);
	return ret;
}

int base_sample_alloc_flows(struct base_sample *s, size_t n)
{
	free(s->flows);
	s->nflows = 0;
	s->flows = calloc(n ? n : 1, sizeof(*s->flows));
	if (!s->flows)
		return -ENOMEM;
	s->nflows = n;
	return 0;
}

double base_jain_index(const double *x, size_t n)
{
	double sum = 0, sq = 0;

	for (size_t i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	if (!n || sq == 0)
		return 0;
	return sum * sum / ((double)n * sq);
}

void base_sample_new_id(struct base_sample *s)
{
	uint64_t r[2];

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		r[0] = (uint64_t)base_wall_ns();
		r[1] = (uint64_t)base_now_ns() ^ ((uint64_t)getpid() << 32);
	}
	snprintf(s->id, sizeof(s->id), "%016llx%016llx", (unsigned long long)r[0],
		 (unsigned long long)r[1]);
}

static void *dup_array(const void *src, size_t n, size_t size, int *ret)
{
	void *p;

	if (!n)
		return NULL;
	p = malloc(n * size);
	if (!p) {
		*ret = -ENOMEM;
		return NULL;
	}
	memcpy(p, src, n * size);
	return p;
}

int base_sample_set_series(struct base_sample *s, const char *unit, double step_s,
			   const double *v, size_t n, double scale)
{
	double *copy = NULL;

	if (n > SAMPLE_SERIES_MAX || (n && !v) || !unit ||
	    strlen(unit) >= sizeof(s->series_unit) || !isfinite(step_s) ||
	    step_s <= 0 || !isfinite(scale))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]) || !isfinite(v[i] * scale))
			return -EINVAL;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		for (size_t i = 0; i < n; i++)
			copy[i] = v[i] * scale;
	}
	free(s->series);
	for (size_t k = 0; k < BASE_TICK_PROBES; k++) {
		free(s->series_probe[k]);
		s->series_probe[k] = NULL;
	}
	s->series = copy;
	s->nseries = n;
	s->series_step_s = n ? step_s : 0;
	snprintf(s->series_unit, sizeof(s->series_unit), "%s", n ? unit : "");
	return 0;
}

const char *const base_tick_probe_key[BASE_TICK_PROBES] = { "xcpu_ns", "host_speed" };

int base_sample_set_series_probe(struct base_sample *s, enum base_tick_probe p,
				 const double *v, size_t n)
{
	double *copy = NULL;

	if ((unsigned)p >= BASE_TICK_PROBES || (n && (!v || n != s->nseries)))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]) && !(isfinite(v[i]) && v[i] > 0))
			return -EINVAL;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, v, n * sizeof(*copy));
	}
	free(s->series_probe[p]);
	s->series_probe[p] = copy;
	return 0;
}

/* One end's foreign share: the larger of its two measures; NaN when it
 * has neither. */
static double end_foreign(const struct base_sample *s, const char *busy, const char *tasks)
{
	const struct sample_metric *b = base_sample_get(s, busy), *t = base_sample_get(s, tasks);

	if (b && t)
		return fmax(b->value, t->value);
	return b ? b->value : t ? t->value : NAN;
}

bool base_sample_foreign(const struct base_sample *s, double *share, double *steal)
{
	double f = end_foreign(s, "cpu.foreign_busy_pct", "cpu.foreign_tasks_pct");
	double fs = end_foreign(s, "cpu.server.foreign_busy_pct", "cpu.server.foreign_tasks_pct");
	bool server = !isnan(fs) && (isnan(f) || fs > f);
	const struct sample_metric *st =
		base_sample_get(s, server ? "cpu.server.foreign_steal_pct" : "cpu.foreign_steal_pct");

	*share = server ? fs : f;
	*steal = st ? st->value : 0;
	return server;
}

int base_sample_copy(struct base_sample *dst, const struct base_sample *src)
{
	int ret = 0;

	*dst = *src;
	dst->params = dup_array(src->params, src->nparams, sizeof(*src->params), &ret);
	dst->cap_params = src->nparams;
	dst->env = dup_array(src->env, src->nenv, sizeof(*src->env), &ret);
	dst->cap_env = src->nenv;
	dst->metrics = dup_array(src->metrics, src->nmetrics, sizeof(*src->metrics), &ret);
	dst->cap_metrics = src->nmetrics;
	dst->flows = dup_array(src->flows, src->nflows, sizeof(*src->flows), &ret);
	dst->latency = src->latency ? dup_array(src->latency, 1, sizeof(*src->latency), &ret) : NULL;
	dst->series = src->series ? dup_array(src->series, src->nseries, sizeof(*src->series), &ret) : NULL;
	for (size_t k = 0; k < BASE_TICK_PROBES; k++)
		dst->series_probe[k] = src->series_probe[k] ?
			dup_array(src->series_probe[k], src->nseries, sizeof(double), &ret) : NULL;
	/* never modified once made: shared */
	dst->sysenv = json_incref(src->sysenv);
	if (ret) {
		base_sample_release(dst);
		return ret;
	}
	return 0;
}
