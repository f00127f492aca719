// SPDX-License-Identifier: GPL-2.0-only
/* Flag parsing and error printing shared by the subcommands. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "base/sample.h"
#include "base/time.h"
#include "engine/result.h"
#include "stats/adjust.h"
#include "stats/desc.h"
#include "stats/guard.h"
#include "stats/levels.h"
#include "stats/table.h"

#define CLI_WARMUP_TREND_P 0.05 /* a trend this likely keeps warming up */

volatile sig_atomic_t cli_interrupted;

void cli_error(const char *fmt, ...)
{
	struct base_err e;
	va_list ap;

	/* one line whatever a flag or a file brought: escaped as err.h does */
	va_start(ap, fmt);
	base_err_vset(&e, 0, fmt, ap);
	va_end(ap);
	fprintf(stderr, "netregress: %s\n", e.msg);
}

bool cli_size(const char *flag, const char *arg, uint64_t max, uint64_t *out)
{
	struct base_err err;
	char lim[BASE_SIZE_STRLEN];

	if (base_parse_size(arg, out, &err)) {
		cli_error("invalid %s: %s", flag, err.msg);
		return false;
	}
	if (*out > max) {
		base_format_size(max, lim, sizeof(lim));
		cli_error("invalid %s '%s': expected at most %s", flag, arg, lim);
		return false;
	}
	return true;
}

bool cli_label(const char *flag, const char *arg)
{
	char q[BASE_QUOTE_LEN];

	if (base_label_ok(arg))
		return true;
	cli_error("invalid %s '%s': expected 1 to %zu characters, none of them a control character",
		  flag, base_quote(arg, q), SAMPLE_LABEL_MAX);
	return false;
}

bool cli_duration(const char *flag, const char *arg, int64_t *out)
{
	struct base_err err;

	if (base_parse_duration_ns(arg, out, &err)) {
		cli_error("invalid %s: %s", flag, err.msg);
		return false;
	}
	return true;
}

bool cli_u64(const char *flag, const char *arg, uint64_t min, uint64_t max,
	     uint64_t *out)
{
	struct base_err err;

	if (base_parse_u64(arg, min, max, out, &err)) {
		cli_error("invalid %s: %s", flag, err.msg);
		return false;
	}
	return true;
}

bool cli_double(const char *flag, const char *arg, double min, double max, double *out)
{
	struct base_err err;

	if (base_parse_double(arg, min, max, out, &err)) {
		cli_error("invalid %s: %s", flag, err.msg);
		return false;
	}
	return true;
}

bool cli_cpulist(const char *flag, const char *arg, struct base_cpulist *out)
{
	struct base_err err;

	if (base_parse_cpulist(arg, out, &err)) {
		cli_error("invalid %s: %s", flag, err.msg);
		return false;
	}
	return true;
}

static void on_signal(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

void cli_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int cli_usage_hint(const char *cmd)
{
	fprintf(stderr, "see 'netregress %s --help'\n", cmd);
	return EXIT_USAGE;
}

/* The warm-up's check: the plain Mann-Kendall test of the last rates,
 * which persistence makes quicker to see a trend than stats_steady's, so
 * a warm-up errs on the long side (up to its bound). */
bool cli_steady(const double *rates, size_t n)
{
	struct stats_trend tr;

	if (n < 8 || stats_mann_kendall(rates, n, &tr) || !tr.tested)
		return false;
	return !(tr.p < CLI_WARMUP_TREND_P);
}

/*
 * --overhead: phases 2i and 2i + 1 ran back to back, one with the
 * collectors on and one off; the geometric mean of the on/off rate ratios
 * over the pairs and its 95% interval, as overhead.* metrics. overhead.pct
 * is the rate lost with the collectors on (negative: gained, noise).
 */
static void add_overhead(const struct engine_run *run, struct base_sample *s)
{
	double *on = calloc(run->nphases ? run->nphases : 1, sizeof(*on));
	double *off = calloc(run->nphases ? run->nphases : 1, sizeof(*off));
	struct stats_ratio r;
	size_t n = 0;

	for (size_t i = 0; on && off && i + 1 < run->nphases; i++) {
		const struct engine_phase *a = &run->phases[i], *b = &run->phases[i + 1];

		if (a->phase % 2 || b->phase != a->phase + 1 || a->on == b->on)
			continue;
		on[n] = a->on ? a->rate : b->rate;
		off[n] = a->on ? b->rate : a->rate;
		n++;
	}
	base_sample_set(s, "overhead.pairs", "", (double)n);
	if (n >= 2 && !stats_paired_ratio(on, off, n, 0.95, &r)) {
		base_sample_set(s, "overhead.on_off", "", r.geomean);
		base_sample_set(s, "overhead.on_off_lo", "", r.lo);
		base_sample_set(s, "overhead.on_off_hi", "", r.hi);
		base_sample_set(s, "overhead.pct", "%", 100 * (1 - r.geomean));
		base_sample_set(s, "overhead.pct_lo", "%", 100 * (1 - r.hi));
		base_sample_set(s, "overhead.pct_hi", "%", 100 * (1 - r.lo));
	}
	free(on);
	free(off);
}

/*
 * The host's speed within the window (the probe's rate per 100 ms tick):
 * whether it trended, how the rate went with it, and window.host_trend
 * when the host's speed trended the way the rate did in a window that was
 * not steady: then the host, not the test, may have moved the rate.
 */
static void add_host_trend(const struct engine_run *run, bool not_steady,
			   const struct stats_trend *rate_tr, struct base_sample *s)
{
	struct stats_host_trend h;

	if (stats_host_trend(run->rates, run->speeds, run->nrates, rate_tr,
			     not_steady, &h) || !h.tested)
		return;
	base_sample_set(s, "window.speed_trend_tau", "", h.speed.tau);
	base_sample_set(s, "window.speed_trend_p", "", h.speed.p);
	if (h.rate_speed.tested) {
		base_sample_set(s, "window.rate_speed_tau", "", h.rate_speed.tau);
		base_sample_set(s, "window.rate_speed_p", "", h.rate_speed.p);
	}
	base_sample_set(s, "window.host_trend", "", h.host_trend ? 1 : 0);
}

/*
 * Where the host kept the test's CPUs within the window (the cross-CPU
 * probe's round trip per 100 ms tick): its levels, window.xcpu_moved when
 * they were far apart (the host moved a vCPU), then how much of the window
 * they spent far apart and the rate there, and how the rate went with the
 * round trip.
 */
static void add_host_moved(const struct engine_run *run, struct base_sample *s)
{
	struct stats_host_moved h;

	if (stats_host_moved(run->rates, run->xcpus, run->nrates, &h))
		return;
	if (h.rate_xcpu.tested) {
		base_sample_set(s, "window.rate_xcpu_tau", "", h.rate_xcpu.tau);
		base_sample_set(s, "window.rate_xcpu_p", "", h.rate_xcpu.p);
	}
	if (!h.tested)
		return;
	base_sample_set(s, "window.xcpu_levels", "", (double)h.levels);
	base_sample_set(s, "window.xcpu_lo_ns", "ns", h.lo_ns);
	base_sample_set(s, "window.xcpu_hi_ns", "ns", h.hi_ns);
	base_sample_set(s, "window.xcpu_moved", "", h.moved ? 1 : 0);
	if (!h.moved)
		return;
	base_sample_set(s, "window.xcpu_far_pct", "%", h.far_pct);
	if (!isnan(h.rate_far_pct))
		base_sample_set(s, "window.rate_far_pct", "%", h.rate_far_pct);
}

/*
 * The levels of the window's 100 ms rates: how many, how far apart, and
 * window.mixed when the rate left a level and came back (see
 * stats_levels()).
 */
static void add_levels(const struct engine_run *run, struct base_sample *s)
{
	struct stats_levels lv;

	if (stats_levels(run->rates, run->nrates, &lv) || !lv.tested)
		return;
	base_sample_set(s, "window.levels", "", (double)lv.count);
	base_sample_set(s, "window.level_lo_pct", "%", lv.lo_pct);
	base_sample_set(s, "window.level_hi_pct", "%", lv.hi_pct);
	base_sample_set(s, "window.level_first_pct", "%", lv.first_pct);
	base_sample_set(s, "window.level_last_pct", "%", lv.last_pct);
	base_sample_set(s, "window.mixed", "", lv.mixed ? 1 : 0);
}

int cli_sample(const struct job_config *cfg, const struct engine_run *run,
	       const char *label, bool same_host, struct base_sample *s,
	       struct base_err *err)
{
	struct stats_trend tr = { 0 };
	bool not_steady = false;
	int ret;

	ret = engine_run_sample(cfg, run, label, same_host, s, err);
	if (ret)
		return ret;
	base_sample_set(s, "window.intervals", "", (double)run->nrates);
	if (!stats_steady(run->rates, run->nrates, &tr, &not_steady) && tr.tested) {
		base_sample_set(s, "window.trend_tau", "", tr.tau);
		base_sample_set(s, "window.trend_p", "", tr.p);
		base_sample_set(s, "window.trend_rho", "", tr.rho);
	}
	base_sample_set(s, "window.not_steady", "", not_steady ? 1 : 0);
	if (run->rates) {
		double cov;

		add_levels(run, s);
		/* how far the 100 ms rates swing around their mean: a
		 * window can hold one level and no trend and still swing
		 * (a tcp_crr client that closed first went from 28k to
		 * 500 connections/s and back within each second) */
		if (run->nrates >= 2 && !stats_cv_pct(run->rates, run->nrates, &cov))
			base_sample_set(s, "window.rate_cov_pct", "%", cov);
	}
	/* the rates themselves, in the headline's unit: receiver bytes of
	 * both directions per second as Gbps, or transactions per second.
	 * Without memory for them the sample is still kept, without them. */
	if (job_test_kind(cfg->test) == JOB_KIND_STREAM)
		(void)base_sample_set_series(s, "Gbps", (double)ENGINE_TICK_NS / NS_PER_S,
					     run->rates, run->nrates, 8e-9);
	else
		(void)base_sample_set_series(s, "trans/s", (double)ENGINE_TICK_NS / NS_PER_S,
					     run->rates, run->nrates, 1);
	/* and what the probes saw in the same ticks, to draw beside them */
	if (run->xcpus)
		(void)base_sample_set_series_probe(s, BASE_TICK_XCPU, run->xcpus, run->nrates);
	if (run->speeds)
		(void)base_sample_set_series_probe(s, BASE_TICK_SPEED, run->speeds, run->nrates);
	if (run->speeds)
		add_host_trend(run, not_steady, &tr, s);
	if (run->xcpus)
		add_host_moved(run, s);
	base_sample_set(s, "window.warmup_s", "s", (double)run->warmup_ns / NS_PER_S);
	if (cfg->warmup_auto)
		base_sample_set(s, "window.warmup_capped", "", run->warmup_capped ? 1 : 0);
	if (run->phases)
		add_overhead(run, s);
	return 0;
}

/* Copy a sample's window into w (false: the sample has none, or no memory). */
static bool window_copy(const struct base_sample *s, struct stats_window *w)
{
	struct stats_window b;
	double *r, *x;

	w->rate = w->x = NULL;
	w->n = 0;
	if (!stats_sample_window(s, &b))
		return false;
	r = malloc(b.n * sizeof(*r));
	x = malloc(b.n * sizeof(*x));
	if (!r || !x) {
		free(r);
		free(x);
		return false;
	}
	memcpy(r, b.rate, b.n * sizeof(*r));
	memcpy(x, b.x, b.n * sizeof(*x));
	*w = (struct stats_window){ r, x, b.n };
	return true;
}

int cli_tally_add(struct cli_tally *t, const struct base_sample *s, double v)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		double *nv = realloc(t->v, cap * sizeof(*nv));
		struct stats_window *w;

		if (!nv)
			return -ENOMEM;
		t->v = nv;
		nv = realloc(t->x, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->x = nv;
		w = realloc(t->w, cap * sizeof(*w));
		if (!w)
			return -ENOMEM;
		t->w = w;
		t->cap = cap;
	}
	if (!t->n)
		t->windows = true;
	/* a window not kept (or lost to memory) ends the adjustment, not the count */
	if (!window_copy(s, &t->w[t->n]))
		t->windows = false;
	t->x[t->n] = base_sample_value(s, "host.xcpu_ns");
	t->v[t->n++] = v;
	return 0;
}

bool cli_disturbed(const struct base_sample *s)
{
	const struct sample_metric *d = base_sample_get(s, "window.disturbed");

	return d && d->value != 0;
}

void cli_tally_release(struct cli_tally *t)
{
	if (t->w)
		for (size_t i = 0; i < t->n; i++) {
			free((double *)t->w[i].rate);
			free((double *)t->w[i].x);
		}
	free(t->w);
	free(t->v);
	free(t->x);
	memset(t, 0, sizeof(*t));
}
