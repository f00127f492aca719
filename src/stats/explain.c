// SPDX-License-Identifier: GPL-2.0-only
/* Which metrics of a compare table account for its headline's change, ranked. */
#include "stats/explain.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/table.h"

#define ARRAY_LEN(x) (sizeof(x) / sizeof(*(x)))

static bool has_prefix(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static bool has_suffix(const char *s, const char *x)
{
	size_t ls = strlen(s), lx = strlen(x);

	return ls >= lx && !strcmp(s + ls - lx, x);
}

/* name less a leading "server." (the far end's collectors) */
static const char *end_less(const char *name)
{
	return has_prefix(name, "server.") ? name + 7 : name;
}

bool stats_explains(const char *name, const char *test)
{
	bool udp = !strcmp(test, "udp_stream") || !strcmp(test, "udp_rr");
	const char *headline = stats_headline_metric(test);
	static const char *const out[] = {
		"throughput.", "transactions.", "latency.", "cpu.service_demand.",
		"window.", "overhead.", "crr.",
	};
	static const char *const in_prefix[] = { "host.speed", "profile.self.", "profile.children.",
						 "io.bytes_per_", "granted." };
	static const char *const in_suffix[] = { ".per_mb", ".per_write", ".per_read",
						 ".per_trans", "_pct" };
	static const char *const in_name[] = { "tcp.rtt_us", "tcp.rttvar_us", "tcp.cwnd",
						"tcp.bytes_per_seg", "tcp.acks.per_seg", "host.xcpu_ns" };
	const char *bare = end_less(name);

	if (!strcmp(name, headline))
		return false;
	/* the other protocol's counters are the control connection and the
	 * machine's other traffic: per MB they fall as the rate rises */
	if (udp ? has_prefix(name, "snmp.Tcp.") || has_prefix(name, "netstat.TcpExt.") :
		  has_prefix(name, "snmp.Udp."))
		return false;
	for (size_t i = 0; i < ARRAY_LEN(out); i++)
		if (has_prefix(name, out[i]))
			return false;
	for (size_t i = 0; i < ARRAY_LEN(in_prefix); i++)
		if (has_prefix(bare, in_prefix[i]))
			return true;
	for (size_t i = 0; i < ARRAY_LEN(in_suffix); i++)
		if (has_suffix(name, in_suffix[i]))
			return true;
	for (size_t i = 0; i < ARRAY_LEN(in_name); i++)
		if (!strcmp(name, in_name[i]))
			return true;
	return false;
}

bool stats_why_is_setting(const char *name)
{
	static const char *const fixed[] = {
		"granted.client.sndbuf", "granted.client.rcvbuf", "granted.server.sndbuf",
		"granted.server.rcvbuf", "granted.rx.advmss",
	};

	if (!has_prefix(name, "granted."))
		return false;
	if (strstr(name, "wscale"))
		return true;
	for (size_t i = 0; i < ARRAY_LEN(fixed); i++)
		if (!strcmp(name, fixed[i]))
			return true;
	return false;
}

const char *stats_why_kind_name(enum stats_why_kind k)
{
	return k == STATS_WHY_SETTING ? "setting" : k == STATS_WHY_COST ? "cost" : "figure";
}

static const struct stats_why_row *find(const struct stats_why_row *rows, size_t n,
					const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].metric, name))
			return &rows[i];
	return NULL;
}

/* The whole CPU time per unit of work of the end a metric belongs to,
 * netperf's service demand from the machine's busy time. */
static const struct stats_why_row *basis_of(const struct stats_why_row *rows, size_t n,
					    const char *metric)
{
	const char *end = has_prefix(metric, "server.") ? "server" : "client";
	static const char *const units[] = { "kb", "trans" };
	char name[64];

	for (size_t i = 0; i < ARRAY_LEN(units); i++) {
		const struct stats_why_row *r;

		snprintf(name, sizeof(name), "cpu.service_demand.%s_host_us_per_%s", end, units[i]);
		if ((r = find(rows, n, name)))
			return r;
	}
	return NULL;
}

/* A profile symbol's own share (not a children share, not a count). */
static bool is_self_share(const char *name)
{
	return has_prefix(end_less(name), "profile.self.");
}

/* The CPU split of an end: cpu.client.softirq_pct and its kin (not the
 * test CPUs' own split, not idle, steal or wait). */
static bool is_split(const char *name, char *busy, size_t len)
{
	static const char *const parts[] = { "user_pct", "sys_pct", "softirq_pct", "irq_pct" };
	const char *p;

	if (!has_prefix(name, "cpu.client.") && !has_prefix(name, "cpu.server."))
		return false;
	p = name + strlen("cpu.client.");
	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		if (!strcmp(p, parts[i])) {
			snprintf(busy, len, "%.11sbusy_pct", name);
			return true;
		}
	return false;
}

/* Fill w's cost figures from the part's share (fraction) in A and B. */
static void cost_of(struct stats_why *w, double fa, double fb,
		    const struct stats_why_row *basis, bool changed)
{
	w->cost_a = fa * basis->median_a;
	w->cost_b = fb * basis->median_b;
	w->cost_pct_of_a = basis->median_a > 0 ? 100 * (w->cost_b - w->cost_a) / basis->median_a : NAN;
	w->account_pct = changed && basis->median_b != basis->median_a ?
				 100 * (w->cost_b - w->cost_a) / (basis->median_b - basis->median_a) :
				 NAN;
	w->score = isfinite(w->cost_pct_of_a) ? fabs(w->cost_pct_of_a) : 0;
}

static void why_init(struct stats_why *w, const struct stats_why_row *r, enum stats_why_kind k)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->metric, sizeof(w->metric), "%s", r->metric);
	snprintf(w->unit, sizeof(w->unit), "%s", r->unit);
	w->kind = k;
	w->median_a = r->median_a;
	w->median_b = r->median_b;
	w->shift_pct = r->shift_pct;
	w->q = isnan(r->q) ? r->p : r->q;
	w->cost_a = w->cost_b = w->cost_pct_of_a = w->account_pct = NAN;
}

/* The kind of row r, or -1 when it explains nothing here; fills *w. */
static int classify(const struct stats_why_row *rows, size_t n, const struct stats_why_row *r,
		    const char *test, bool profiled, double alpha, struct stats_why *w)
{
	const struct stats_why_row *basis, *busy;
	char busy_name[64];

	if (stats_why_is_setting(r->metric)) {
		if (!(r->median_a != r->median_b))
			return -1;
		why_init(w, r, STATS_WHY_SETTING);
		w->score = r->median_a > 0 && r->median_b > 0 ?
				   fabs(log(r->median_b / r->median_a)) :
				   INFINITY;
		return STATS_WHY_SETTING;
	}
	if (!r->shown || !stats_explains(r->metric, test) ||
	    has_prefix(end_less(r->metric), "profile.children."))
		return -1;
	basis = basis_of(rows, n, r->metric);
	if (is_self_share(r->metric) && basis) {
		why_init(w, r, STATS_WHY_COST);
		cost_of(w, r->median_a / 100, r->median_b / 100, basis, basis->q < alpha);
		return STATS_WHY_COST;
	}
	if (is_split(r->metric, busy_name, sizeof(busy_name))) {
		/* with a profile, its symbols name the cost; the split is
		 * what they add up to */
		if (profiled || !basis || !(busy = find(rows, n, busy_name)) ||
		    !(busy->median_a > 0) || !(busy->median_b > 0))
			return -1;
		why_init(w, r, STATS_WHY_COST);
		cost_of(w, r->median_a / busy->median_a, r->median_b / busy->median_b, basis,
			basis->q < alpha);
		return STATS_WHY_COST;
	}
	if (has_prefix(r->metric, "cpu."))
		return -1;
	why_init(w, r, STATS_WHY_FIGURE);
	w->score = fabs(r->shift_pct) / (r->noise_pct > 0 ? r->noise_pct : 1e-9);
	if (isnan(w->score))
		w->score = 0;
	return STATS_WHY_FIGURE;
}

static int by_score(const void *x, const void *y)
{
	const struct stats_why *a = x, *b = y;

	if (a->score != b->score)
		return a->score > b->score ? -1 : 1;
	return strcmp(a->metric, b->metric);
}

/* Append the best of c[0..n) to out[*k..STATS_WHY_MAX). */
static void take(struct stats_why *c, size_t n, struct stats_why *out, size_t *k)
{
	qsort(c, n, sizeof(*c), by_score);
	for (size_t i = 0; i < n && *k < STATS_WHY_MAX; i++)
		out[(*k)++] = c[i];
}

/* Whether a cost's change is a material part of the headline's: at
 * least a quarter of the change in log terms (a rate half as high needs
 * each unit to cost ln 2 = 69% more; a part that added 17% is material). */
static bool material(const struct stats_why *w, double headline_shift_pct)
{
	double h = fabs(log1p(headline_shift_pct / 100));

	return isfinite(h) && isfinite(w->cost_pct_of_a) && fabs(w->cost_pct_of_a) / 100 >= h / 4;
}

int stats_why_rank(const struct stats_why_row *rows, size_t n, const char *test, double alpha,
		   double headline_shift_pct, struct stats_why *out, size_t *nout,
		   struct stats_why_basis *basis)
{
	struct stats_why *c[4];
	size_t nc[4] = { 0 }, k = 0;
	const struct stats_why_row *b = basis_of(rows, n, "");
	bool profiled = false;

	memset(basis, 0, sizeof(*basis));
	if (b) {
		snprintf(basis->metric, sizeof(basis->metric), "%s", b->metric);
		basis->a = b->median_a;
		basis->b = b->median_b;
		basis->changed = b->q < alpha && b->median_b != b->median_a;
	}
	for (size_t i = 0; i < n && !profiled; i++)
		profiled = is_self_share(rows[i].metric);
	for (int kind = 0; kind < 4; kind++)
		if (!(c[kind] = calloc(n ? n : 1, sizeof(**c)))) {
			for (int j = 0; j < kind; j++)
				free(c[j]);
			return -ENOMEM;
		}
	for (size_t i = 0; i < n; i++) {
		struct stats_why w;
		int kind = classify(rows, n, &rows[i], test, profiled, alpha, &w);

		/* c[3]: the costs too small a part of the headline's change */
		if (kind == STATS_WHY_COST && !material(&w, headline_shift_pct))
			kind = 3;
		if (kind >= 0)
			c[kind][nc[kind]++] = w;
	}
	take(c[STATS_WHY_SETTING], nc[STATS_WHY_SETTING], out, &k);
	take(c[STATS_WHY_COST], nc[STATS_WHY_COST], out, &k);
	take(c[STATS_WHY_FIGURE], nc[STATS_WHY_FIGURE], out, &k);
	take(c[3], nc[3], out, &k);
	for (int kind = 0; kind < 4; kind++)
		free(c[kind]);
	*nout = k;
	return 0;
}
