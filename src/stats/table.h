/* SPDX-License-Identifier: GPL-2.0-only */
/* A/B comparison of one configuration over every metric: the rows of the compare table. */
#ifndef NR_STATS_TABLE_H
#define NR_STATS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/sample.h"
#include "stats/explain.h"
#include "stats/guard.h"
#include "stats/verdict.h"

struct stats_table_opts {
	struct stats_compare_opts cmp; /* alpha, min_change_pct (headline) ... */
	double other_min_change_pct;   /* for the other metrics; 2.0 */
	double counter_floor;          /* neutral counts (unit count, seg or msg):
					* |median change| >= this per run; 100 (a figure per
					* MB, per transaction, per write... is held to
					* other_min_change_pct, as are neutral figures of
					* other units: s, ns, op/us, Gbps) */
	double profile_floor_pp;       /* profile.* rows and neutral shares in % outside
					* cpu.*: >= this many percentage points; 1.0 */
	bool all;                      /* list every metric, changed or not */
	bool keep_disturbed;           /* pool samples flagged window.disturbed */
	/* the metric judged as the headline (its row first, its verdict the
	 * table's, stats_table.headline points to it: it must outlive the
	 * table); NULL: the test's (stats_headline_metric()). Another
	 * metric than the test's gets no .xcpu_adj row (the windows keep
	 * the test's rate alone, and the fit was tried on rates only); its
	 * .paired row is made as the test's; the rows per MB or per
	 * transaction stay compared per second against the test's rate */
	const char *headline;
	/* the headline's better direction: METRIC_NEUTRAL takes the store's
	 * (base_metric_dir()); the caller sets higher or lower for a metric
	 * the store calls neutral, which has no regression otherwise */
	enum metric_dir headline_dir;
};

struct stats_row {
	char metric[112];
	char unit[16];
	enum metric_dir dir;
	bool headline;
	/* the headline adjusted for the CPUs' distance (<headline>.xcpu_adj):
	 * listed right after the headline */
	bool adjusted;
	/* the headline from pairs of runs side by side (<headline>.paired):
	 * listed after those two */
	bool paired;
	struct stats_compare c;
	double q;          /* Benjamini-Hochberg adjusted p over the other metrics */
	double noise_pct;  /* pooled %stddev, for sorting by effect / noise */
	bool shown;        /* passes the filters (always for the headline) */
	bool tested;       /* one of the other metrics' BH family: not the
			    * headline, and some split of its values into
			    * the two labels' counts reaches p < alpha
			    * (stats_mwu_min_p()) */
	/* the headline, .xcpu_adj and .paired rows over several
	 * configurations (stats_tables_fdr): the family's size (0: none), q
	 * is the family's, and whether that q took back a call its own p made */
	size_t fdr_n;
	bool fdr_downgraded;
	/* a shown figure per MB (streams) or per transaction (request/
	 * response): the same compared per second (value x the sample's
	 * headline: MB/s is Gbps x 125), for the samples that have both. A
	 * count that kept its pace per second moves per unit by the rate's
	 * change, by construction */
	bool per_s_tested;
	struct stats_compare per_s;
};

/* Notes under a configuration's rows, when a guard fires. */
struct stats_notes {
	bool too_few;                /* fewer than min_n samples a side */
	size_t outliers_a, outliers_b; /* headline values with |modified z| > 3.5 */
	double drift_p_a, drift_p_b; /* headline trend with run order (NaN: untested) */
	/* "client.kernel" etc. that differ within a label (the caller may
	 * replace them by the entries and values, report_env_within_note) */
	char env_diff_a[512], env_diff_b[512];
	size_t disturbed_a, disturbed_b; /* samples left out as disturbed */
	/* a side whose every sample was flagged disturbed keeps them all (left
	 * out, it would have none): how many, 0 when any was not */
	size_t all_disturbed_a, all_disturbed_b;
	/* of those, the ones whose foreign CPU was mostly the host's steal
	 * (cpu.foreign_steal_pct at least half of it, on the end with more)
	 * or that its steal on the test's CPUs flagged (window.stolen) when
	 * other processes were not most of it */
	size_t disturbed_steal_a, disturbed_steal_b;
	/* and those whose foreign CPU was mostly other processes
	 * (cpu.foreign_tasks_pct at least half of it), with the busiest
	 * process of the one they held most in ("stress-ng[4242]"; letters,
	 * digits and ._:/@+-[] only; "" when none) */
	size_t disturbed_procs_a, disturbed_procs_b;
	char disturbed_busiest[48];
	/* and those in which a worker was kept from its CPU (window.starved),
	 * whatever the share of the machine */
	size_t disturbed_starved_a, disturbed_starved_b;
	size_t not_steady_a, not_steady_b; /* samples whose window trended */
	size_t host_trend_a, host_trend_b; /* of those, with the host's speed trending the same way */
	/* samples whose window left a level and came back (window.mixed),
	 * and the widest gap between levels among them, % of the mean rate */
	size_t mixed_a, mixed_b;
	double mixed_gap_a, mixed_gap_b;
	/* the CPU speed probe (host.speed) differed between the labels:
	 * significant at the headline's alpha; its shift in percent and
	 * interval, as in its row */
	bool speed_changed;
	double speed_shift_pct, speed_lo_pct, speed_hi_pct, speed_p;
	/* with speed_changed, the probe's core pace between interruptions
	 * (host.speed.core) where both labels have it: its shift, interval
	 * and p, and whether that p is below the headline's alpha (else the
	 * move was time lost to interruptions, which the guest's own
	 * softirqs on the test's CPUs take as well as the host) */
	bool speed_core_known, speed_core_changed;
	double speed_core_shift_pct, speed_core_lo_pct, speed_core_hi_pct, speed_core_p;
	/* the labels' first samples were measured by different netregress
	 * builds (client.build): the speed probe's unit may differ with the
	 * code the compiler made of its loop, so its note may not be the host's */
	bool builds_differ;
	/* the tcp senders' congestion control as their sockets reported it
	 * (env tcp.cc) differs between the labels, both having one: each
	 * label's distinct values over its samples, " or "-joined (cut to
	 * fit). The key's cc=default does not show a changed default */
	bool cc_differ;
	char cc_a[64], cc_b[64];
	/* metrics that netregress builds have defined differently, where the
	 * samples compared straddle the change (some with, some without the
	 * metric the new definition came with): the sentence that says what
	 * changed (static; letters, digits and punctuation only), the marker,
	 * and in how many samples of each label (all, disturbed too) it is */
	size_t nredef;
	struct {
		const char *what, *marker;
		size_t a, na, b, nb;
	} redef[8];
	/* samples in which the host moved the test's CPUs within the window
	 * (window.xcpu_moved) */
	size_t xcpu_moved_a, xcpu_moved_b;
	/* the cross-CPU round trip (host.xcpu_ns) differed between the
	 * labels, tested as host.speed is; its medians, shift and interval */
	bool xcpu_changed;
	double xcpu_a_ns, xcpu_b_ns, xcpu_shift_pct, xcpu_lo_pct, xcpu_hi_pct, xcpu_p;
	/* the samples' round trips (host.xcpu_ns) fell at two distances and
	 * the labels sat at the far one in different shares (stats_xcpu_mix,
	 * the headline's medians in mix.median), when neither the note above
	 * nor the .xcpu_adj row took the distance up */
	bool xcpu_mix;
	struct stats_xcpu_mix mix;
	/* the headline against host.xcpu_ns within the labels (stats_adjust_log):
	 * tested when every sample has both and the round trip spanned a move
	 * (STATS_XCPU_MOVED_RATIO) within a label; applied when the common slope passed its test, and then the
	 * row <headline>.xcpu_adj compares the adjusted figures */
	bool adj_tested, adj_applied;
	double adj_slope, adj_p, adj_r2, adj_x_ref_ns;
	/* the slope's 95% interval; the row's verdict holds at both ends */
	double adj_slope_lo, adj_slope_hi;
	/* from the windows (stats_adjust_windows: every sample kept its
	 * 100 ms rates and round trips, and the host moved the CPUs within
	 * at least 3 windows): the intervals fitted and the windows in which
	 * the round trip varied; 0 when from one figure per sample
	 * (stats_adjust_log) */
	size_t adj_ticks, adj_windows;
	/* the windows in which the host moved the CPUs (window.xcpu_moved's
	 * levels), when every sample kept its window, whichever fit was made */
	size_t adj_moved_windows;
	/* the <headline>.paired row: the pairs it compares and the samples
	 * with the headline that found no partner; 0 pairs: no row; in how
	 * many of the pairs A's run came first (all or none: the order of
	 * the two runs cannot be told from the change) */
	size_t pairs, unpaired, pairs_a_first;
	/* stats_tables_fdr(): the configurations whose headline rows were
	 * tested together (0 or 1: no family), and whether this one's
	 * headline was significant by its own p (fdr_p) but not by its q
	 * (fdr_q), so that its verdict went to same or inconclusive */
	size_t fdr_n;
	bool fdr_downgraded;
	double fdr_p, fdr_q;
	/* with pairs of both orders the row is a 2 x 2 crossover:
	 * the order's effect, the second run of a pair over the first, in %
	 * with its interval and p (stats_compare_crossover); else false */
	bool period_tested;
	double period_pct, period_lo_pct, period_hi_pct, period_p;
};

/* Whether any of the notes above has something to say. */
bool stats_notes_any(const struct stats_notes *nt);

struct stats_window;
/* A sample's window as stats/adjust reads it: its 100 ms rates and the
 * cross-CPU round trips beside them, borrowed from s (false when the
 * sample kept none). */
bool stats_sample_window(const struct base_sample *s, struct stats_window *w);

struct stats_table {
	char config_key[1024];
	char test[32];
	const char *headline; /* metric name */
	struct stats_row *rows; /* headline first, then shown rows by effect / noise */
	size_t nrows;
	size_t hidden;          /* rows not shown, left out of rows[] */
	size_t family;          /* the other metrics whose p the BH q adjusts
				 * together (those some split of their values
				 * takes below alpha: stats_row.tested) */
	double alpha;           /* the level they were tested at */
	struct stats_notes notes;
	/* what moved with the headline, ranked (stats_why_rank): the likely
	 * cause first; the settings among them are rows too */
	struct stats_why why[STATS_WHY_MAX];
	size_t nwhy;
	struct stats_why_basis why_basis;
	bool regressed;   /* the headline metric regressed */
	bool paired_regressed; /* its .paired row called a REGRESSION */
};

/* The headline's row of t; NULL when it has none. */
const struct stats_row *stats_table_headline(const struct stats_table *t);

/* The headline metric of a test (throughput.gbps, transactions.per_s...). */
const char *stats_headline_metric(const char *test);

/*
 * The scale from a figure per unit of work times the headline to that
 * figure per second: 125 for one per MB (".per_mb") against
 * throughput.gbps (MB/s is Gbps x 125), 1 for one per transaction
 * (".per_trans") against transactions.per_s; 0 when metric is not per
 * unit of that headline. Pure function.
 */
double stats_per_second_scale(const char *metric, const char *headline);

void stats_table_opts_init(struct stats_table_opts *o);

/*
 * Compare samples a[0..na) against b[0..nb) of one configuration (in run
 * order). Every metric present on both sides is tested: the headline, and
 * the other metrics at once with Benjamini-Hochberg control; those that
 * changed beyond their floors (or all, with o->all) are the rows, the
 * others are counted in hidden. Returns 0, -EINVAL
 * (no samples) or -ENOMEM; release with stats_table_release(). No I/O.
 */
int stats_table_build(const struct base_sample *const *a, size_t na,
		      const struct base_sample *const *b, size_t nb,
		      const struct stats_table_opts *o, struct stats_table *out);
void stats_table_release(struct stats_table *t);

/*
 * The verdicts of n configurations compared between the same two labels,
 * as one family: each kind of row (the headline, its .xcpu_adj and its
 * .paired row) has its p values adjusted with Benjamini-Hochberg over the
 * tables that have such a tested row, into the row's q. A row significant
 * by its p and not by its q (q >= alpha) is called SAME when its interval
 * is within +-min_change, INCONCLUSIVE otherwise, with the runs that would
 * call the change in this configuration alone among the family (at
 * alpha / family size); regressed and paired_regressed follow, and the
 * notes say so (fdr_*). So an A/A comparison of many configurations calls
 * a change in any of them with probability about alpha, not about alpha
 * per configuration; a change that spans many configurations still
 * passes (Benjamini-Hochberg's threshold grows with the count of small p
 * values). n < 2 changes nothing. Returns 0 or -ENOMEM.
 */
int stats_tables_fdr(struct stats_table *const *t, size_t n, const struct stats_table_opts *o);

#endif
