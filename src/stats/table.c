// SPDX-License-Identifier: GPL-2.0-only
/* The compare table of one configuration: headline first, then what moved with it. */
#include "stats/table.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "stats/adjust.h"
#include "stats/bh.h"
#include "stats/desc.h"
#include "stats/guard.h"
#include "stats/mwu.h"
#include "stats/power.h"

/* Environment entries that should not differ within one label. */
static const char *const fingerprint_keys[] = {
	"client.kernel", "client.kernel_version", "client.machine",
	"client.cpu_model", "client.online_cpus", "server.kernel",
	"server.kernel_version", "server.cpu_model", "server.online_cpus",
	"client.env_fingerprint", "server.env_fingerprint",
	/* netregress itself: a label measured by two builds may mix what
	 * two versions of a test measured */
	"client.build", "server.build",
};

const struct stats_row *stats_table_headline(const struct stats_table *t)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].headline)
			return &t->rows[i];
	return NULL;
}

const char *stats_headline_metric(const char *test)
{
	if (!strcmp(test, "tcp_rr") || !strcmp(test, "udp_rr"))
		return "transactions.per_s";
	if (!strcmp(test, "tcp_crr") || !strcmp(test, "tcp_cc"))
		return "crr.connects_per_s";
	return "throughput.gbps";
}

void stats_table_opts_init(struct stats_table_opts *o)
{
	memset(o, 0, sizeof(*o));
	stats_compare_opts_init(&o->cmp);
	o->other_min_change_pct = 2.0;
	o->counter_floor = 100;
	o->profile_floor_pp = 1.0;
}

/* Which fingerprint entries differ among the samples of one label. */
static void env_diff(const struct base_sample *const *s, size_t n, char *out,
		     size_t len)
{
	size_t off = 0;

	out[0] = '\0';
	for (size_t k = 0; k < sizeof(fingerprint_keys) / sizeof(*fingerprint_keys); k++) {
		for (size_t i = 1; i < n; i++) {
			if (strcmp(base_sample_env_get(s[0], fingerprint_keys[k], ""),
				   base_sample_env_get(s[i], fingerprint_keys[k], ""))) {
				int w = snprintf(out + off, len - off, "%s%s",
						 off ? ", " : "", fingerprint_keys[k]);

				if (w > 0 && (size_t)w < len - off)
					off += (size_t)w;
				break;
			}
		}
	}
}

static enum stats_better better_of(enum metric_dir d)
{
	return d == METRIC_HIGHER ? STATS_HIGHER :
	       d == METRIC_LOWER ? STATS_LOWER : STATS_NEUTRAL;
}

/* The finite values of metric name in s[0..n), in run order, into out (hint:
 * its index in the first sample that has it); its unit in *unit. A profile
 * share absent from a profiled sample counts as 0 there: the profiler
 * keeps only the symbols at or above its threshold. Returns how many
 * samples had it. */
static size_t values(const struct base_sample *const *s, size_t n,
		     const char *name, size_t hint, double *out, const char **unit)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct sample_metric *m = base_sample_get_near(s[i], name, hint);

		if (m && isfinite(m->value)) {
			out[k++] = m->value;
			*unit = m->unit;
		} else if (!m && base_sample_share_below(s[i], name)) {
			out[k++] = 0;
		}
	}
	return k;
}

/* A metric of the union of both labels' samples, and its index in the
 * sample it was first seen in. */
struct metric_ref {
	const char *name;
	size_t hint;
};

static int ref_cmp(const void *x, const void *y)
{
	return strcmp(((const struct metric_ref *)x)->name, ((const struct metric_ref *)y)->name);
}

/*
 * Every metric some sample of a[0..na) or b[0..nb) has, once: a[0]'s in
 * its order, then the others (a profile share over the threshold only in
 * some samples, or only in B) in the order first seen. *out is malloc'ed
 * (names borrowed from the samples); returns the count, or -ENOMEM.
 */
static ssize_t metric_union(const struct base_sample *const *a, size_t na,
			    const struct base_sample *const *b, size_t nb,
			    struct metric_ref **out)
{
	struct metric_ref *all, *seen;
	size_t n = 0, total = 0, nseen = 0;

	for (size_t i = 0; i < na + nb; i++)
		total += (i < na ? a[i] : b[i - na])->nmetrics;
	all = malloc((total ? total : 1) * sizeof(*all));
	seen = malloc((total ? total : 1) * sizeof(*seen));
	if (!all || !seen) {
		free(all);
		free(seen);
		return -ENOMEM;
	}
	for (size_t i = 0; i < na + nb; i++) {
		const struct base_sample *s = i < na ? a[i] : b[i - na];

		/* seen[] is sorted up to nseen; the names of this sample
		 * join it after the sample, so that one sample's names are
		 * looked up only among the earlier samples' */
		for (size_t m = 0; m < s->nmetrics; m++) {
			struct metric_ref key = { s->metrics[m].name, m };

			if (nseen && bsearch(&key, seen, nseen, sizeof(*seen), ref_cmp))
				continue;
			all[n++] = key;
		}
		memcpy(seen + nseen, all + nseen, (n - nseen) * sizeof(*seen));
		nseen = n;
		qsort(seen, nseen, sizeof(*seen), ref_cmp);
	}
	free(seen);
	*out = all;
	return (ssize_t)n;
}

/* Whether some split of the pooled values of a[0..na) and b[0..nb) into
 * na and nb could reach p < alpha (stats_mwu_min_p()): one that read the
 * same in every sample cannot, nor one that ties too much for so few.
 * Sets *can; an error is stats_mwu_min_p()'s. */
static int attainable(const double *a, size_t na, const double *b, size_t nb,
		      double alpha, bool *can)
{
	double floor;
	int ret = stats_mwu_min_p(a, na, b, nb, &floor);

	*can = !ret && floor < alpha;
	return ret;
}

static bool is_profile(const char *name)
{
	return !strncmp(name, "profile.", 8);
}

/* A figure per unit of work (".per_mb", ".per_trans", ".per_write"...):
 * a ratio, held to the relative floor, not a count's. */
static bool is_per_unit(const char *name)
{
	const char *dot = strrchr(name, '.');

	return dot && !strncmp(dot, ".per_", 5);
}

/* A neutral figure other than the CPU split and the window's flags... */
static bool is_other_neutral(const struct stats_row *r)
{
	return r->dir == METRIC_NEUTRAL && !is_profile(r->metric) && !is_per_unit(r->metric) &&
	       strncmp(r->metric, "cpu.", 4) && strncmp(r->metric, "window.", 7);
}

/* ... that counts events (snmp, irq, softirq, segments, messages) */
static bool is_counter(const struct stats_row *r)
{
	return is_other_neutral(r) && (!strcmp(r->unit, "count") || !strcmp(r->unit, "seg") ||
				       !strcmp(r->unit, "msg"));
}

/* ... or is a share in percent (tcp.busy_pct, tcp.rwnd_limited_pct) */
static bool is_share(const struct stats_row *r)
{
	return is_other_neutral(r) && !strcmp(r->unit, "%");
}

/* Changed enough to show: significant after BH and past the floors. */
static bool worth_showing(const struct stats_row *r,
			  const struct stats_table_opts *o)
{
	double diff = fabs(r->c.median_b - r->c.median_a);

	if (!(r->q < o->cmp.alpha))
		return false;
	if (is_profile(r->metric) || is_share(r))
		return diff >= o->profile_floor_pp;
	if (is_counter(r))
		return diff >= o->counter_floor;
	return r->c.shift_abs || fabs(r->c.shift_pct) >= o->other_min_change_pct;
}

static int by_effect(const void *x, const void *y)
{
	const struct stats_row *a = x, *b = y;
	double ea = fabs(a->c.shift_pct) / (a->noise_pct > 0 ? a->noise_pct : 1e-9);
	double eb = fabs(b->c.shift_pct) / (b->noise_pct > 0 ? b->noise_pct : 1e-9);

	if (a->headline != b->headline)
		return a->headline ? -1 : 1;
	if (a->adjusted != b->adjusted)
		return a->adjusted ? -1 : 1;
	if (a->paired != b->paired)
		return a->paired ? -1 : 1;
	if (isnan(ea))
		ea = 0;
	if (isnan(eb))
		eb = 0;
	return (eb > ea) - (eb < ea);
}

/* The distinct env tcp.cc values of s[0..n), in sample order, " or "-joined
 * into out (cut to fit); "" when no sample has one. */
static void cc_of(const struct base_sample *const *s, size_t n, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *v = base_sample_env_get(s[i], "tcp.cc", NULL);
		bool seen = false;

		for (size_t j = 0; v && j < i && !seen; j++)
			seen = !strcmp(base_sample_env_get(s[j], "tcp.cc", ""), v);
		if (!v || seen || used + 1 >= len)
			continue;
		used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " or " : "", v);
		if (used >= len)
			used = len - 1;
	}
}

bool stats_notes_any(const struct stats_notes *nt)
{
	return nt->too_few || nt->outliers_a || nt->outliers_b ||
	       nt->drift_p_a < 0.05 || nt->drift_p_b < 0.05 ||
	       nt->disturbed_a || nt->disturbed_b || nt->all_disturbed_a ||
	       nt->all_disturbed_b || nt->not_steady_a ||
	       nt->not_steady_b || nt->mixed_a || nt->mixed_b ||
	       nt->env_diff_a[0] || nt->env_diff_b[0] || nt->speed_changed ||
	       nt->xcpu_moved_a || nt->xcpu_moved_b || nt->xcpu_changed || nt->xcpu_mix ||
	       nt->adj_applied || nt->pairs || nt->fdr_downgraded || nt->cc_differ;
}

/* The comparison of metric among rows[0..n), NULL when it has no row. */
static const struct stats_compare *row_of(const struct stats_row *rows, size_t n,
					  const char *metric)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].metric, metric))
			return &rows[i].c;
	return NULL;
}

/* Whether a comparison differs between the labels at the headline's alpha
 * (its own rank test, not corrected with the other metrics). */
static bool shifted(const struct stats_compare *c, const struct stats_table_opts *o)
{
	return c && !isnan(c->p) && c->p < o->cmp.alpha;
}

/* The row of metric when it differs between the labels, else NULL. */
static const struct stats_compare *host_shift(const struct stats_row *rows, size_t n,
					      const char *metric,
					      const struct stats_table_opts *o)
{
	const struct stats_compare *c = row_of(rows, n, metric);

	return shifted(c, o) ? c : NULL;
}

/*
 * The host's CPU speed, and where the host put the test's CPUs, are not
 * the kernel's doing: when a probe's figure differs between the labels,
 * the note says by how much, so that a headline change is read with that
 * in mind. host.speed also counts the time interruptions took from the
 * probe, which the guest's own softirqs do too: the note says whether
 * the core's pace between them (host.speed.core) moved as well.
 */
static void host_notes(const struct stats_row *rows, size_t n,
		       const struct stats_table_opts *o, struct stats_notes *nt)
{
	const struct stats_compare *c = host_shift(rows, n, "host.speed", o);

	if (c) {
		nt->speed_changed = true;
		nt->speed_shift_pct = c->shift_pct;
		nt->speed_lo_pct = c->shift_lo_pct;
		nt->speed_hi_pct = c->shift_hi_pct;
		nt->speed_p = c->p;
		c = row_of(rows, n, "host.speed.core");
		if (c) {
			nt->speed_core_known = true;
			nt->speed_core_changed = shifted(c, o);
			nt->speed_core_shift_pct = c->shift_pct;
			nt->speed_core_lo_pct = c->shift_lo_pct;
			nt->speed_core_hi_pct = c->shift_hi_pct;
			nt->speed_core_p = c->p;
		}
	}
	c = host_shift(rows, n, "host.xcpu_ns", o);
	if (c) {
		nt->xcpu_changed = true;
		nt->xcpu_a_ns = c->median_a;
		nt->xcpu_b_ns = c->median_b;
		nt->xcpu_shift_pct = c->shift_pct;
		nt->xcpu_lo_pct = c->shift_lo_pct;
		nt->xcpu_hi_pct = c->shift_hi_pct;
		nt->xcpu_p = c->p;
	}
}

static int build(const struct base_sample *const *a, size_t na,
		 const struct base_sample *const *b, size_t nb,
		 const struct stats_table_opts *o, struct stats_table *out);

/*
 * Where the host kept the test's CPUs at two distances and the labels
 * sat at them in different shares, each label's pool mixes the two in its
 * own way, and loopback traffic slows with the distance (the cache lines
 * move farther; docs/methodology.md gives measured figures): a difference
 * of the pools may be the mix's. The rank test of host.xcpu_ns misses
 * such a mix when both labels have both distances (the medians of a few
 * samples a side need not differ), and the .xcpu_adj row needs a slope
 * that passes its test. Then nt->xcpu_mix says how the samples split
 * (stats_xcpu_mix) with the headline's median of each label at each
 * distance, for a comparison at one distance. Every sample needs both
 * figures; else nothing is said.
 */
static int placement_mix(const struct base_sample *const *a, size_t na,
			 const struct base_sample *const *b, size_t nb,
			 const char *headline, struct stats_notes *nt)
{
	size_t n = na + nb;
	double *x = malloc(n * sizeof(*x)), *y = malloc(n * sizeof(*y));
	int ret = 0;

	if (!x || !y) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct base_sample *s = i < na ? a[i] : b[i - na];

		x[i] = base_sample_value(s, "host.xcpu_ns");
		y[i] = base_sample_value(s, headline);
		if (!isfinite(y[i]))
			goto out;
	}
	ret = stats_xcpu_mix(x, y, na, x + na, y + na, nb, &nt->mix);
	nt->xcpu_mix = !ret && stats_xcpu_mix_differs(&nt->mix);
out:
	free(x);
	free(y);
	return ret;
}

static bool flagged(const struct base_sample *s, const char *name)
{
	const struct sample_metric *m = base_sample_get(s, name);

	return m && m->value != 0;
}

/* What one side's samples said about their windows. */
struct side_flags {
	size_t dropped, dropped_steal, dropped_procs, dropped_starved, not_steady, host_trend, mixed,
		xcpu_moved;
	size_t all_disturbed; /* every sample was: all of them kept anyway */
	double mixed_gap;
	/* among dropped_procs: the largest other processes' share, and the
	 * busiest process of that sample */
	double procs_max;
	char busiest[48];
};

static double metric_or(const struct base_sample *s, const char *name, double dflt)
{
	const struct sample_metric *m = base_sample_get(s, name);

	return m ? m->value : dflt;
}

/* Whether a sample's foreign CPU was mostly the host's steal, on the end
 * that had more foreign CPU. */
static bool mostly_steal(const struct base_sample *s)
{
	double f, st;

	base_sample_foreign(s, &f, &st);
	return f > 0 && st >= f / 2;
}

/* The length of the first entry's name in a collect.tasks.top, up to its
 * time: "cc1[300]", "sh[4968, ended]", "true (3683 ended)"; 0 when none. */
static size_t top_name_len(const char *top)
{
	for (const char *p = top; *p; p++)
		if ((p[0] == ']' || p[0] == ')') && p[1] == ' ' && isdigit((unsigned char)p[2]))
			return (size_t)(p + 1 - top);
	return 0;
}

/*
 * Whether a sample's foreign CPU was mostly other processes (their exact
 * share at least half of it, on the end with more); if so and their share
 * is the largest seen in f, the busiest of them, the first of the end's
 * env collect.tasks.top ("stress-ng[4242] 1.180 s, ...", "true (3683
 * ended) 2.307 s, ..."), goes to f->busiest with what a report could
 * misread made '?'.
 */
static bool mostly_procs(const struct base_sample *s, struct side_flags *f)
{
	double share, st, tasks;
	bool server = base_sample_foreign(s, &share, &st);
	const char *top;
	size_t n;

	tasks = metric_or(s, server ? "cpu.server.foreign_tasks_pct" : "cpu.foreign_tasks_pct", 0);
	if (!(share > 0 && tasks >= share / 2))
		return false;
	top = base_sample_env_get(s, server ? "server.collect.tasks.top" :
					      "client.collect.tasks.top", NULL);
	if (top && tasks > f->procs_max && (n = top_name_len(top))) {
		if (n >= sizeof(f->busiest))
			n = sizeof(f->busiest) - 1;
		for (size_t i = 0; i < n; i++)
			f->busiest[i] = isalnum((unsigned char)top[i]) ||
						(top[i] && strchr("._:/@+-[](), ", top[i])) ?
						top[i] : '?';
		f->busiest[n] = '\0';
		f->procs_max = tasks;
	}
	return true;
}

/*
 * The samples to pool: those not disturbed by foreign CPU load (unless
 * asked to keep them, or none would be left). kept[] gets the pointers.
 */
static size_t undisturbed(const struct base_sample *const *s, size_t n,
			  bool keep, const struct base_sample **kept,
			  struct side_flags *f)
{
	size_t k = 0;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		f->not_steady += flagged(s[i], "window.not_steady");
		f->host_trend += flagged(s[i], "window.host_trend");
		f->xcpu_moved += flagged(s[i], "window.xcpu_moved");
		if (flagged(s[i], "window.mixed")) {
			double gap = metric_or(s[i], "window.level_hi_pct", 0) -
				     metric_or(s[i], "window.level_lo_pct", 0);

			f->mixed++;
			/* finite: the widest gap goes into JSON as a number, and
			 * levels a store may hold can overflow their difference */
			if (isfinite(gap) && gap > f->mixed_gap)
				f->mixed_gap = gap;
		}
		if (!keep && flagged(s[i], "window.disturbed")) {
			bool procs = mostly_procs(s[i], f);

			/* the host's steal on the test's CPUs flagged it, and
			 * other processes were not most of its foreign CPU */
			f->dropped_steal += mostly_steal(s[i]) ||
					    (flagged(s[i], "window.stolen") && !procs);
			f->dropped_procs += procs;
			f->dropped_starved += flagged(s[i], "window.starved");
			continue;
		}
		kept[k++] = s[i];
	}
	if (!k) { /* all disturbed: compare them anyway, the note says so */
		for (size_t i = 0; i < n; i++)
			kept[i] = s[i];
		f->dropped_steal = f->dropped_procs = f->dropped_starved = 0;
		f->busiest[0] = '\0';
		f->all_disturbed = n;
		return n;
	}
	f->dropped = n - k;
	return k;
}

/* Metrics whose definition changed, each with a metric that came with
 * the new one: samples with it were measured the new way. */
static const struct {
	const char *marker, *what;
} redefinitions[] = {
	{ "cpu.client.busy_ticks_pct",
	  "cpu.client.busy_pct and cpu.server.busy_pct, their user, sys, irq and softirq split and the host service demand come from the time the CPUs were not idle in samples that have cpu.client.busy_ticks_pct, and from the ticks alone in those without (up to a third lower for request/response on a tickless kernel)" },
	{ "cpu.foreign_tasks_pct",
	  "window.disturbed is also raised by other processes' exact CPU in samples that have cpu.foreign_tasks_pct, and by the ticks' busy time alone in those without (a load the ticks missed left those unflagged)" },
	{ "window.starved",
	  "window.disturbed is also raised by a worker kept from its CPU, and cpu.foreign_busy_pct holds the host's steal whole, in samples that have window.starved (every worker on a CPU of its own, and a worker runnable but waiting over 5% of the window beyond the test's and the kernel's own threads), and not in those without (a load on one CPU of several, under 10% of the machine, left those unflagged, and the ticks' shortfall on the test's own CPU could hide up to 8 points of steal)" },
	{ "cpu.stolen_pct",
	  "window.disturbed is also raised by the host's steal on the test's CPUs over 2% of the window (window.stolen, the two ends' added) in samples that have cpu.stolen_pct, and not in those without (a steal under 10% of the machine left those unflagged, though a host that steals is contended: runs with over 2% read 20-25% low here)" },
	{ "tasks.exited",
	  "tasks.others_s and cpu.foreign_tasks_pct (other processes' exact CPU) take in the threads that ended within the window, from the kernel's exit records, in samples that have tasks.exited, and leave them out in those without (a shell loop of short-lived processes held 8% of the machine there where the ticks saw 46% foreign)" },
	{ "window.trend_rho",
	  "window.not_steady comes from a trend test widened for the 100 ms rates' own persistence (window.trend_rho), or from a shift to another level that lasted, in samples that have window.trend_rho, and from the plain trend test in those without (which called trends in about one quiet window in six)" },
};

static size_t count_with(const struct base_sample *const *s, size_t n, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += base_sample_get(s[i], name) != NULL;
	return k;
}

/* The definitions the samples straddle: some have the marker, some not. */
static void redefined(const struct base_sample *const *a, size_t na,
		      const struct base_sample *const *b, size_t nb,
		      struct stats_notes *nt)
{
	for (size_t i = 0; i < sizeof(redefinitions) / sizeof(redefinitions[0]) &&
			   nt->nredef < sizeof(nt->redef) / sizeof(nt->redef[0]); i++) {
		size_t ka = count_with(a, na, redefinitions[i].marker);
		size_t kb = count_with(b, nb, redefinitions[i].marker);

		if (ka + kb == 0 || ka + kb == na + nb)
			continue;
		nt->redef[nt->nredef].what = redefinitions[i].what;
		nt->redef[nt->nredef].marker = redefinitions[i].marker;
		nt->redef[nt->nredef].a = ka;
		nt->redef[nt->nredef].na = na;
		nt->redef[nt->nredef].b = kb;
		nt->redef[nt->nredef].nb = nb;
		nt->nredef++;
	}
}

int stats_table_build(const struct base_sample *const *a_all, size_t na_all,
		      const struct base_sample *const *b_all, size_t nb_all,
		      const struct stats_table_opts *o, struct stats_table *out)
{
	const struct base_sample **a = NULL, **b = NULL;
	struct side_flags fa, fb;
	size_t na, nb;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!na_all || !nb_all)
		return -EINVAL;
	a = malloc(na_all * sizeof(*a));
	b = malloc(nb_all * sizeof(*b));
	if (!a || !b) {
		free(a);
		free(b);
		return -ENOMEM;
	}
	na = undisturbed(a_all, na_all, o->keep_disturbed, a, &fa);
	nb = undisturbed(b_all, nb_all, o->keep_disturbed, b, &fb);
	out->notes.disturbed_a = fa.dropped;
	out->notes.disturbed_b = fb.dropped;
	out->notes.all_disturbed_a = fa.all_disturbed;
	out->notes.all_disturbed_b = fb.all_disturbed;
	out->notes.disturbed_steal_a = fa.dropped_steal;
	out->notes.disturbed_steal_b = fb.dropped_steal;
	out->notes.disturbed_procs_a = fa.dropped_procs;
	out->notes.disturbed_procs_b = fb.dropped_procs;
	out->notes.disturbed_starved_a = fa.dropped_starved;
	out->notes.disturbed_starved_b = fb.dropped_starved;
	snprintf(out->notes.disturbed_busiest, sizeof(out->notes.disturbed_busiest), "%s",
		 fb.procs_max > fa.procs_max ? fb.busiest : fa.busiest);
	out->notes.not_steady_a = fa.not_steady;
	out->notes.not_steady_b = fb.not_steady;
	out->notes.host_trend_a = fa.host_trend;
	out->notes.host_trend_b = fb.host_trend;
	out->notes.mixed_a = fa.mixed;
	out->notes.mixed_b = fb.mixed;
	out->notes.mixed_gap_a = fa.mixed_gap;
	out->notes.mixed_gap_b = fb.mixed_gap;
	out->notes.xcpu_moved_a = fa.xcpu_moved;
	out->notes.xcpu_moved_b = fb.xcpu_moved;
	ret = build(a, na, b, nb, o, out);
	if (!ret)
		redefined(a_all, na_all, b_all, nb_all, &out->notes);
	free(a);
	free(b);
	return ret;
}

bool stats_sample_window(const struct base_sample *s, struct stats_window *w)
{
	if (!s->nseries || !s->series || !s->series_probe[BASE_TICK_XCPU])
		return false;
	w->rate = s->series;
	w->x = s->series_probe[BASE_TICK_XCPU];
	w->n = s->nseries;
	return true;
}

/* Each sample's window: its rates and round trips (false when one has none). */
static bool windows_of(const struct base_sample *const *s, size_t n,
		       struct stats_window *w)
{
	for (size_t i = 0; i < n; i++)
		if (!stats_sample_window(s[i], &w[i]))
			return false;
	return true;
}

/*
 * The headline adjusted for how far apart the host kept the test's CPUs:
 * from the windows' 100 ms rates and round trips when every sample kept
 * them and the host moved the CPUs within at least 3 windows
 * (stats_adjust_windows), else from each sample's headline and
 * host.xcpu_ns (stats_adjust_log; every sample needs both, and the
 * distance must span a move within a label). When the
 * slope passed its test, *r becomes the row <headline>.xcpu_adj and
 * *made is set. The adjusted figures are compared as any metric, and
 * again moved along each end of the slope's interval; the row's verdict
 * is the one that holds at all three (stats_compare_union). Moved along a
 * slope fitted to these very samples, the figures alone would hide the
 * slope's own uncertainty, which weighs most when the labels sat at
 * different distances: with A's runs all near and B's all far, the
 * adjusted A/A called a change in 19 of 143 simulated sets, 9 with the
 * ends, and 6 of 106 since a fit needs real moves
 * (test_table_adjusted_row_holds_over_the_slope_interval). When a
 * moved value does not fit in a double, there is no row.
 */
/* Whether every figure is a positive finite number: one moved along a
 * slope can overflow or vanish (stats_adjust_log_at()'s -ERANGE). */
static bool in_range(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!(v[i] > 0) || !isfinite(v[i]))
			return false;
	return true;
}

static int adjusted_row(const struct base_sample *const *a, size_t na,
			const struct base_sample *const *b, size_t nb,
			const struct stats_row *head, const struct stats_table_opts *o,
			struct stats_row *r, struct stats_notes *nt, bool *made)
{
	size_t n = na + nb;
	double *buf = malloc(4 * n * sizeof(*buf));
	struct stats_window *w = malloc(n * sizeof(*w));
	double *y, *x, *adj, *end;
	struct stats_adjust ad = { 0 };
	struct stats_compare parts[3];
	bool from_windows = false;
	int ret = 0;

	*made = false;
	if (!buf || !w) {
		ret = -ENOMEM;
		goto out;
	}
	y = buf;
	x = buf + n;
	adj = buf + 2 * n;
	end = buf + 3 * n;
	for (size_t i = 0; i < n; i++) {
		const struct base_sample *si = i < na ? a[i] : b[i - na];
		const struct sample_metric *my = base_sample_get(si, head->metric);

		if (!my)
			goto out;
		y[i] = my->value;
		/* a sample without the probe's median: no adjustment from the samples */
		x[i] = base_sample_value(si, "host.xcpu_ns");
	}
	if (windows_of(a, na, w) && windows_of(b, nb, w + na) &&
	    (ret = stats_adjust_windows(y, w, na, y + na, w + na, nb, adj, adj + na, &ad)))
		goto out;
	from_windows = ad.tested;
	nt->adj_moved_windows = ad.stepped;
	/* stats_adjust_log tests nothing when an x is missing (NaN) */
	if (!ad.tested &&
	    (ret = stats_adjust_log(y, x, na, y + na, x + na, nb, adj, adj + na, &ad)))
		goto out;
	if (!ad.tested)
		goto out;
	nt->adj_ticks = ad.ticks;
	nt->adj_windows = ad.windows;
	nt->adj_tested = true;
	nt->adj_applied = ad.applied;
	nt->adj_slope = ad.slope;
	nt->adj_slope_lo = ad.slope_lo;
	nt->adj_slope_hi = ad.slope_hi;
	nt->adj_p = ad.slope_p;
	nt->adj_r2 = ad.r2;
	nt->adj_x_ref_ns = ad.x_ref;
	/* a figure the slope moved out of the double's range (values a
	 * store may hold): no row, as for an end of its interval below */
	if (!ad.applied || !in_range(adj, n))
		goto out;
	if ((ret = stats_compare_samples(adj, na, adj + na, nb, better_of(head->dir), &o->cmp,
					 &parts[0])))
		goto out;
	for (size_t k = 1; k < 3; k++) {
		double slope = k == 1 ? ad.slope_lo : ad.slope_hi;

		ret = from_windows ? stats_adjust_windows_at(y, w, n, slope, ad.x_ref, end) :
				     stats_adjust_log_at(y, x, n, slope, ad.x_ref, end);
		if (ret == -ERANGE) {
			/* an end too far out to move the figures to: no row */
			ret = 0;
			goto out;
		}
		if ((ret = stats_compare_samples(end, na, end + na, nb, better_of(head->dir),
						 &o->cmp, &parts[k])))
			goto out;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->metric, sizeof(r->metric), "%.100s.xcpu_adj", head->metric);
	snprintf(r->unit, sizeof(r->unit), "%s", head->unit);
	r->dir = head->dir;
	r->adjusted = true;
	if ((ret = stats_compare_union(parts, 3, adj, na, adj + na, nb, better_of(r->dir), &o->cmp,
				       &r->c)))
		goto out;
	r->noise_pct = head->noise_pct;
	r->q = r->c.p;
	r->shown = true;
	*made = true;
out:
	free(w);
	free(buf);
	return ret;
}

struct stamp {
	int64_t t;
	size_t i;
	double v;
	bool b;
};

/* by start; at the same start (copies of one sample) A's first, so that
 * samples without an order to pair by make no pairs */
static int by_time(const void *x, const void *y)
{
	const struct stamp *p = x, *q = y;

	if (p->t != q->t)
		return (p->t > q->t) - (p->t < q->t);
	if (p->b != q->b)
		return p->b ? 1 : -1;
	return (p->i > q->i) - (p->i < q->i);
}

/*
 * The headline from pairs of runs side by side. The samples of both
 * labels with the headline, in the order they started (wall_start_ns);
 * from the first on, one of A next to one of B is a pair, a run with a
 * run of its own label after it finds none. A matrix that interleaves
 * its labels runs each configuration once per label in every round, in
 * an order it draws anew for each round: its rounds make the pairs, and
 * what drifted from one round to the next (the host's speed, where it put
 * the vCPUs) hits both of a pair. Runs of one label after all of the
 * other's make one pair at most. At least min_n pairs make the row
 * <headline>.paired, and *made is set. With pairs of both orders it is a
 * 2 x 2 crossover (stats_compare_crossover): a second run that reads
 * higher than a first for what the first left behind (a warm cache, the
 * kernel's TCP metrics of the address) cancels between the orders.
 */
static int paired_row(const struct base_sample *const *a, size_t na,
		      const struct base_sample *const *b, size_t nb,
		      const struct stats_row *head, const struct stats_table_opts *o,
		      struct stats_row *r, struct stats_notes *nt, bool *made)
{
	struct stamp *s = malloc((na + nb) * sizeof(*s));
	double *v = malloc(2 * (na + nb) * sizeof(*v));
	bool *first = malloc((na + nb) * sizeof(*first));
	size_t n = 0, pairs = 0, a_first = 0;
	struct stats_ratio per;
	double *va, *vb;
	int ret = 0;

	*made = false;
	if (!s || !v || !first) {
		ret = -ENOMEM;
		goto out;
	}
	va = v;
	vb = v + na + nb;
	for (size_t i = 0; i < na + nb; i++) {
		const struct base_sample *si = i < na ? a[i] : b[i - na];
		const struct sample_metric *m = base_sample_get(si, head->metric);

		if (m && isfinite(m->value))
			s[n++] = (struct stamp){ .t = si->wall_start_ns, .i = i, .v = m->value,
						 .b = i >= na };
	}
	qsort(s, n, sizeof(*s), by_time);
	for (size_t k = 0; k + 1 < n; k++) {
		if (s[k].b == s[k + 1].b)
			continue;
		va[pairs] = s[k].b ? s[k + 1].v : s[k].v;
		vb[pairs] = s[k].b ? s[k].v : s[k + 1].v;
		first[pairs] = !s[k].b;
		a_first += first[pairs];
		pairs++;
		k++;
	}
	if (pairs < o->cmp.min_n)
		goto out;
	memset(r, 0, sizeof(*r));
	ret = stats_compare_crossover(va, vb, first, pairs, better_of(head->dir), &o->cmp,
				      &r->c, &per);
	if (ret == -EDOM) {
		/* a value <= 0 has no ratio: no row */
		ret = 0;
		goto out;
	}
	if (ret)
		goto out;
	snprintf(r->metric, sizeof(r->metric), "%.100s.paired", head->metric);
	snprintf(r->unit, sizeof(r->unit), "%s", head->unit);
	r->dir = head->dir;
	r->paired = true;
	r->noise_pct = head->noise_pct;
	r->q = r->c.p;
	r->shown = true;
	nt->pairs = pairs;
	nt->unpaired = n - 2 * pairs;
	nt->pairs_a_first = a_first;
	nt->period_tested = per.n > 0;
	if (per.n) {
		nt->period_pct = 100 * (per.geomean - 1);
		nt->period_lo_pct = 100 * (per.lo - 1);
		nt->period_hi_pct = 100 * (per.hi - 1);
		nt->period_p = per.p;
	}
	*made = true;
out:
	free(first);
	free(v);
	free(s);
	return ret;
}

double stats_per_second_scale(const char *metric, const char *headline)
{
	size_t n = strlen(metric);

	if (!strcmp(headline, "throughput.gbps") && n > 7 && !strcmp(metric + n - 7, ".per_mb"))
		return 125;
	if (!strcmp(headline, "transactions.per_s") && n > 10 &&
	    !strcmp(metric + n - 10, ".per_trans"))
		return 1;
	return 0;
}

/* The figure per second of each sample that has it and the headline
 * (a product past the double's range, from values a store may hold, is
 * left out as a missing one). */
static size_t per_second(const struct base_sample *const *s, size_t n, const char *metric,
			 const char *headline, double scale, double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		const struct sample_metric *m = base_sample_get(s[i], metric);
		const struct sample_metric *h = base_sample_get(s[i], headline);
		double v = m && h ? m->value * h->value * scale : NAN;

		if (isfinite(v))
			out[k++] = v;
	}
	return k;
}

/* The shown rows per unit of work, compared per second too. */
static int per_second_rows(const struct base_sample *const *a, size_t na,
			   const struct base_sample *const *b, size_t nb,
			   const struct stats_table_opts *o, const char *headline,
			   struct stats_row *rows, size_t nrows, double *va, double *vb)
{
	for (size_t i = 0; i < nrows; i++) {
		struct stats_row *r = &rows[i];
		double scale = stats_per_second_scale(r->metric, headline);
		size_t ka, kb;
		int ret;

		if (!r->shown || !scale)
			continue;
		ka = per_second(a, na, r->metric, headline, scale, va);
		kb = per_second(b, nb, r->metric, headline, scale, vb);
		if (!ka || !kb)
			continue;
		if ((ret = stats_compare_samples(va, ka, vb, kb, STATS_NEUTRAL, &o->cmp,
						 &r->per_s)))
			return ret;
		r->per_s_tested = true;
	}
	return 0;
}

/* Test one metric of either label into *r (*made: a row was made; each
 * side needs values of it, a profile share counting as 0 where the
 * profiler left it out). va and vb hold na and nb values. */
static int test_metric(const struct base_sample *const *a, size_t na,
		       const struct base_sample *const *b, size_t nb, const struct metric_ref *ref,
		       const struct stats_table_opts *o, const char *headline, double *va,
		       double *vb, struct stats_row *r, bool *made)
{
	const char *unit = "";
	size_t ka = values(a, na, ref->name, ref->hint, va, &unit);
	size_t kb = values(b, nb, ref->name, ref->hint, vb, &unit);
	int ret;

	*made = false;
	if (!ka || !kb)
		return 0;
	snprintf(r->metric, sizeof(r->metric), "%s", ref->name);
	snprintf(r->unit, sizeof(r->unit), "%s", unit);
	r->headline = !strcmp(ref->name, headline);
	r->dir = r->headline && o->headline_dir != METRIC_NEUTRAL ? o->headline_dir :
								    base_metric_dir(ref->name);
	if ((ret = stats_compare_samples(va, ka, vb, kb, better_of(r->dir), &o->cmp, &r->c)))
		return ret;
	r->noise_pct = sqrt(((isnan(r->c.sd_pct_a) ? 0 : r->c.sd_pct_a * r->c.sd_pct_a) +
			     (isnan(r->c.sd_pct_b) ? 0 : r->c.sd_pct_b * r->c.sd_pct_b)) / 2);
	r->q = r->c.p;
	r->tested = false;
	if (!r->headline && !isnan(r->c.p) &&
	    (ret = attainable(va, ka, vb, kb, o->cmp.alpha, &r->tested)))
		return ret;
	*made = true;
	return 0;
}

/* The headline's .xcpu_adj and .paired rows, appended to rows[*nrows..]
 * (room for two). */
static int headline_rows(const struct base_sample *const *a, size_t na,
			 const struct base_sample *const *b, size_t nb,
			 const struct stats_table_opts *o, struct stats_table *out,
			 struct stats_row *rows, size_t *nrows)
{
	for (size_t i = 0; i < *nrows; i++) {
		bool made = false;
		int ret;

		if (!rows[i].headline)
			continue;
		/* the slope comes from the test's rate (its windows) */
		if (!strcmp(out->headline, stats_headline_metric(out->test)) &&
		    (ret = adjusted_row(a, na, b, nb, &rows[i], o, &rows[*nrows], &out->notes,
					&made)))
			return ret;
		*nrows += made;
		if ((ret = paired_row(a, na, b, nb, &rows[i], o, &rows[*nrows], &out->notes,
				      &made)))
			return ret;
		*nrows += made;
		break;
	}
	return 0;
}

/* What moved with the headline (stats_why_rank over every row but the
 * headline's); a setting that differs becomes a shown row. */
static int rank_why(struct stats_row *rows, size_t nrows, const struct stats_table_opts *o,
		    struct stats_table *out)
{
	struct stats_why_row *w = calloc(nrows ? nrows : 1, sizeof(*w));
	double headline_shift = NAN;
	size_t n = 0;
	int ret;

	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < nrows; i++) {
		const struct stats_row *r = &rows[i];

		if (r->headline)
			headline_shift = r->c.shift_pct;
		if (r->headline || r->adjusted || r->paired)
			continue;
		w[n++] = (struct stats_why_row){
			.metric = r->metric, .unit = r->unit, .median_a = r->c.median_a,
			.median_b = r->c.median_b, .shift_pct = r->c.shift_pct,
			.noise_pct = r->noise_pct, .q = r->q, .p = r->c.p, .shown = r->shown,
		};
	}
	ret = stats_why_rank(w, n, out->test, o->cmp.alpha, headline_shift, out->why, &out->nwhy,
			     &out->why_basis);
	free(w);
	for (size_t k = 0; !ret && k < out->nwhy; k++)
		for (size_t i = 0; out->why[k].kind == STATS_WHY_SETTING && i < nrows; i++)
			if (!strcmp(rows[i].metric, out->why[k].metric))
				rows[i].shown = true;
	return ret;
}

static int build(const struct base_sample *const *a, size_t na,
		 const struct base_sample *const *b, size_t nb,
		 const struct stats_table_opts *o, struct stats_table *out)
{
	size_t cap = na + nb, nrows = 0, nother = 0, nnames;
	double *va = NULL, *vb = NULL, *p = NULL;
	struct metric_ref *names = NULL;
	struct stats_row *rows = NULL;
	ssize_t got;
	int ret = -ENOMEM;

	if (!na || !nb)
		return -EINVAL;
	snprintf(out->config_key, sizeof(out->config_key), "%s", a[0]->config_key);
	snprintf(out->test, sizeof(out->test), "%.31s", base_sample_param_get(a[0], "test", ""));
	out->headline = o->headline ? o->headline : stats_headline_metric(out->test);
	if ((got = metric_union(a, na, b, nb, &names)) < 0)
		return (int)got;
	nnames = (size_t)got;
	va = malloc(cap * sizeof(*va));
	vb = malloc(cap * sizeof(*vb));
	/* two more: the adjusted and the paired headline */
	rows = calloc(nnames + 2, sizeof(*rows));
	p = calloc(nnames ? nnames : 1, sizeof(*p));
	if (!va || !vb || !rows || !p)
		goto out;
	/* every metric of either label; each side needs values of it (a
	 * profile share counts as 0 where the profiler left it out) */
	for (size_t m = 0; m < nnames; m++) {
		bool made;

		if ((ret = test_metric(a, na, b, nb, &names[m], o, out->headline, va, vb,
				       &rows[nrows], &made)))
			goto out;
		if (made && rows[nrows].tested)
			p[nother++] = rows[nrows].c.p;
		nrows += made;
	}
	/* Benjamini-Hochberg over the metrics that are not the headline and
	 * could have told the labels apart: one that read the same in every
	 * sample of both (a counter that stayed 0, a gauge: most of a
	 * stream's metrics, docs/compare.md), or that ties so much
	 * that no split of its values reaches p < alpha (a counter at 0 in
	 * all but one), cannot reject whatever the labels, and in the family
	 * it would only raise the others' q. The filter looks at the pooled
	 * values alone, which the labels do not order, so the FDR holds. */
	if (nother && (ret = stats_bh(p, nother, p)))
		goto out;
	out->family = nother;
	out->alpha = o->cmp.alpha;
	for (size_t i = 0, k = 0; i < nrows; i++) {
		struct stats_row *r = &rows[i];

		if (r->tested)
			r->q = p[k++];
		r->shown = r->headline || o->all || worth_showing(r, o);
		if (r->headline) {
			out->regressed = r->c.verdict == STATS_REGRESSION;
			out->notes.too_few = r->c.verdict == STATS_TOO_FEW;
			out->notes.outliers_a = r->c.outliers_a;
			out->notes.outliers_b = r->c.outliers_b;
			out->notes.drift_p_a = r->c.drift_p_a;
			out->notes.drift_p_b = r->c.drift_p_b;
		}
	}
	host_notes(rows, nrows, o, &out->notes);
	/* per second is per unit of work times the test's rate, whichever the headline */
	if ((ret = per_second_rows(a, na, b, nb, o, stats_headline_metric(out->test), rows, nrows,
				   va, vb)))
		goto out;
	if ((ret = rank_why(rows, nrows, o, out)))
		goto out;
	out->notes.builds_differ = strcmp(base_sample_env_get(a[0], "client.build", ""),
					  base_sample_env_get(b[0], "client.build", "")) != 0;
	cc_of(a, na, out->notes.cc_a, sizeof(out->notes.cc_a));
	cc_of(b, nb, out->notes.cc_b, sizeof(out->notes.cc_b));
	out->notes.cc_differ = out->notes.cc_a[0] && out->notes.cc_b[0] &&
			       strcmp(out->notes.cc_a, out->notes.cc_b);
	if ((ret = headline_rows(a, na, b, nb, o, out, rows, &nrows)))
		goto out;
	if (!out->notes.xcpu_changed && !out->notes.adj_applied &&
	    (ret = placement_mix(a, na, b, nb, out->headline, &out->notes)))
		goto out;
	for (size_t i = 0; i < nrows; i++)
		out->paired_regressed |= rows[i].paired && rows[i].c.verdict == STATS_REGRESSION;
	qsort(rows, nrows, sizeof(*rows), by_effect);
	/* the rows not shown leave the table, their count stays: a compare
	 * of many configurations holds every table until it prints, and most
	 * of a sample's 500 metrics do not change */
	for (size_t i = 0, k = 0; i < nrows; i++) {
		if (rows[i].shown)
			rows[k++] = rows[i];
		else
			out->hidden++;
	}
	nrows -= out->hidden;
	if (out->hidden) {
		struct stats_row *fit = realloc(rows, (nrows ? nrows : 1) * sizeof(*rows));

		if (fit)
			rows = fit;
	}
	env_diff(a, na, out->notes.env_diff_a, sizeof(out->notes.env_diff_a));
	env_diff(b, nb, out->notes.env_diff_b, sizeof(out->notes.env_diff_b));
	out->rows = rows;
	out->nrows = nrows;
	rows = NULL;
	ret = 0;
out:
	free(names);
	free(va);
	free(vb);
	free(p);
	free(rows);
	return ret;
}

void stats_table_release(struct stats_table *t)
{
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

/* The row of table t of one kind: 0 the headline, 1 its .xcpu_adj, 2 its
 * .paired row; NULL when t has none. */
static struct stats_row *kind_row(struct stats_table *t, int kind)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];

		if (kind == 0 ? r->headline : kind == 1 ? r->adjusted : r->paired)
			return &t->rows[i];
	}
	return NULL;
}

static bool significant(enum stats_verdict_kind v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT || v == STATS_CHANGED ||
	       v == STATS_MINOR;
}

/* A row significant by p but not by q: same or inconclusive, and the runs
 * to call the change alone among m configurations (from the two sides'
 * spreads: not for a .paired row, whose ratios have a spread of their
 * own, which the row does not keep). */
static void downgrade(struct stats_row *r, size_t m, const struct stats_table_opts *o)
{
	double mc = o->cmp.min_change_pct;
	size_t runs = 0;

	if (!r->c.shift_abs && r->c.shift_lo_pct >= -mc && r->c.shift_hi_pct <= mc) {
		r->c.verdict = STATS_SAME;
		r->c.runs_needed = 0;
		return;
	}
	r->c.verdict = STATS_INCONCLUSIVE;
	if (!r->paired && r->c.log_scale && mc > 0 && !isnan(r->c.sd_pct_a) && !isnan(r->c.sd_pct_b) &&
	    stats_runs_needed(r->c.sd_pct_a, r->c.sd_pct_b, mc, o->cmp.alpha / (double)m,
			      o->cmp.power, &runs))
		runs = 0;
	r->c.runs_needed = runs;
}

int stats_tables_fdr(struct stats_table *const *t, size_t n, const struct stats_table_opts *o)
{
	struct stats_row **rows;
	double *p;
	int ret = 0;

	if (n < 2)
		return 0;
	rows = malloc(n * sizeof(*rows));
	p = malloc(n * sizeof(*p));
	if (!rows || !p) {
		ret = -ENOMEM;
		goto out;
	}
	for (int kind = 0; kind < 3 && !ret; kind++) {
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			struct stats_row *r = kind_row(t[i], kind);

			if (r && r->c.verdict != STATS_TOO_FEW && !isnan(r->c.p)) {
				rows[m] = r;
				p[m++] = r->c.p;
			}
		}
		if (m < 2 || (ret = stats_bh(p, m, p)))
			continue;
		for (size_t k = 0; k < m; k++) {
			rows[k]->q = p[k];
			rows[k]->fdr_n = m;
			if (significant(rows[k]->c.verdict) && !(rows[k]->q < o->cmp.alpha)) {
				downgrade(rows[k], m, o);
				rows[k]->fdr_downgraded = true;
			}
		}
		for (size_t i = 0; kind == 0 && i < n; i++) {
			struct stats_row *h = kind_row(t[i], 0);

			t[i]->notes.fdr_n = m;
			if (!h || h->c.verdict == STATS_TOO_FEW || isnan(h->c.p))
				continue;
			t[i]->notes.fdr_p = h->c.p;
			t[i]->notes.fdr_q = h->q;
			t[i]->notes.fdr_downgraded = h->c.p < o->cmp.alpha && !(h->q < o->cmp.alpha);
		}
	}
	for (size_t i = 0; !ret && i < n; i++) {
		struct stats_row *h = kind_row(t[i], 0), *pr = kind_row(t[i], 2);

		t[i]->regressed = h && h->c.verdict == STATS_REGRESSION;
		t[i]->paired_regressed = pr && pr->c.verdict == STATS_REGRESSION;
	}
out:
	free(rows);
	free(p);
	return ret;
}
