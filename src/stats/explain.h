/* SPDX-License-Identifier: GPL-2.0-only */
/* Which metrics of a compare table account for its headline's change, ranked. */
#ifndef NR_STATS_EXPLAIN_H
#define NR_STATS_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>

/* The most entries a table keeps (the text prints the first few). */
#define STATS_WHY_MAX 8

enum stats_why_kind {
	/* a resource the kernel granted at the same request: a socket
	 * buffer at launch, the advertised MSS, a window scale (granted.*;
	 * not the sender's MSS, which a small receive window holds down) */
	STATS_WHY_SETTING,
	/* a part of the CPU time per unit of work: a profiled symbol's
	 * self share, or user, system, softirq or irq time */
	STATS_WHY_COST,
	/* another figure that can explain a rate without being one: per
	 * unit counters, bytes per segment, round trip, a receive space */
	STATS_WHY_FIGURE,
};

/* One metric that moved with the headline. */
struct stats_why {
	char metric[112];
	char unit[16];
	enum stats_why_kind kind;
	double median_a, median_b;
	double shift_pct; /* the row's Hodges-Lehmann shift, % (NaN: none) */
	double q;         /* the row's q (p for a setting, which is not tested) */
	/*
	 * STATS_WHY_COST: the part's CPU time per unit of work (us per KB,
	 * or per transaction) in A and in B, from the medians of its share
	 * and of the whole's; its change in % of A's whole (the parts of a
	 * partition add up to the whole's change); and in % of the whole's
	 * change when that change was significant (else NaN). NaN for the
	 * other kinds.
	 */
	double cost_a, cost_b, cost_pct_of_a, account_pct;
	double score; /* what ranks it within its kind, larger first */
	/* a setting from the two environments (an interface's qdisc, MTU
	 * or offload, a net sysctl) rather than a metric: its two values as
	 * the first samples recorded them; the medians are NaN */
	bool env;
	char env_a[48], env_b[48];
};

/* The CPU time per unit of work the costs are parts of. */
struct stats_why_basis {
	char metric[112];     /* "" when the samples have none */
	double a, b;          /* its medians */
	bool changed;         /* it changed significantly (q < alpha) */
};

/* A row as the ranking reads it (the table's rows are converted by the
 * caller, so that this module does not depend on the table). */
struct stats_why_row {
	const char *metric, *unit;
	double median_a, median_b, shift_pct, noise_pct, q, p;
	bool shown; /* passed the table's significance and floors */
};

/*
 * Whether metric name can explain a change of a test's headline without
 * being one of the headline's own relatives: shares, figures per MB, per
 * call or per transaction, the host's speed and the CPUs' distance,
 * profile shares, round trip, granted resources. Counts over the window
 * (they grow with the work done), throughput, latency and the service
 * demand (they follow the headline by construction) are not. Pure.
 */
bool stats_explains(const char *name, const char *test);

/* Whether name is a granted resource fixed at the start (STATS_WHY_SETTING). */
bool stats_why_is_setting(const char *name);

/*
 * Rank the metrics that explain the headline's change (its shift in %,
 * headline_shift_pct): first the settings whose medians differ
 * (untested: what the kernel granted for the same request is not
 * noise); then the costs whose change is a material part of the
 * headline's (at least a quarter of it in log terms), by how much of A's
 * CPU per unit their change is; then the other figures by effect over
 * noise; then the other costs. With profile shares, the CPU split (user,
 * sys, softirq) is left to them, and the children shares (which overlap
 * their callees') are not ranked. Costs and figures must be shown rows.
 * rows[0..n) are every row of the table (shown or not), the headline's
 * excluded by the caller. Fills out[0..*nout), *nout <= STATS_WHY_MAX,
 * and the basis. Returns 0 or -ENOMEM. No I/O.
 */
int stats_why_rank(const struct stats_why_row *rows, size_t n, const char *test, double alpha,
		   double headline_shift_pct, struct stats_why *out, size_t *nout,
		   struct stats_why_basis *basis);

/* "setting", "cost" or "figure". */
const char *stats_why_kind_name(enum stats_why_kind k);

#endif
