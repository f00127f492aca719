/* SPDX-License-Identifier: GPL-2.0-only */
/* Results for people and programs: the terminal table and the JSON document. */
#ifndef NR_REPORT_REPORT_H
#define NR_REPORT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/sample.h"
#include "stats/adjust.h"
#include "stats/table.h"

/* Print the readable table of one sample. */
void report_sample_table(FILE *out, const struct base_sample *s);
/* What flagged a sample disturbed, for a line: the foreign CPU of the end
 * with more of it, and how much of that was the host's steal; when a
 * worker was kept from its CPU (window.starved), how long it waited; when
 * the host stole from the test's CPUs (window.stolen), how much. */
void report_disturbed_text(const struct base_sample *s, char *buf, size_t len);

/* The compare table of one configuration: shown rows, then the notes.
 * label_a and label_b head the columns. The "config:" line leaves out the
 * pairs of common (job_keys_common() of the configurations compared
 * together, said once before them; NULL or "": the whole key). */
void report_compare_table(FILE *out, const struct stats_table *t,
			  const char *label_a, const char *label_b, const char *common);
/*
 * The headlines of several labels against the first, labels[0], one row a
 * configuration: its key without common's pairs (as above), the headline
 * metric, the baseline's median ±%sd n, and each other label's median,
 * ±%sd, n, change of the mean and verdict. t[i * (nlabels - 1) + l] is
 * configuration i's table of labels[l + 1] against the baseline, NULL where
 * that label lacks it; a configuration without any table has no row.
 * Returns 0 or -ENOMEM.
 */
int report_series_table(FILE *out, const struct stats_table *const *t, size_t nconf,
			const char *const *labels, size_t nlabels, const char *common);
/*
 * Where the headline calls of one kind lie among the n configurations of
 * one comparison: how many tables of t[0..n) have their headline's verdict
 * v (n), the name=value pairs those all share that not all n do (pairs:
 * the corner of the matrix they sit in; "" when they share nothing more),
 * and how many of the n hold those pairs (with). Returns 0 or -ENOMEM.
 */
struct report_corner {
	size_t n, with;
	char pairs[1024];
};
int report_corner_of(const struct stats_table *const *t, size_t n, enum stats_verdict_kind v,
		     struct report_corner *c);
/* After "N configurations compared: ...": "; <what> in 3 of the 24, all
 * with dir=bidir msg=8952 (3 of the 4 that have it)" (what: "the headline
 * regressed"); nothing when c->n is 0 or n < 2. */
void report_corner_text(FILE *out, const struct report_corner *c, size_t n, const char *what);
/* After "N configurations compared: ...": how many .paired rows called a
 * regression (n > 0; nothing for 0), started by sep, no end; and whether
 * the exit code follows them (compare --paired) or the rank test. */
void report_paired_summary(FILE *out, size_t n, const char *sep, bool exit_by_pairs);
/* What the headlines called, for "N configurations compared: ...":
 * "REGRESSION in a headline metric" or "no headline regression", or with
 * headline (--headline's metric; NULL: the tests' own) "REGRESSION in the
 * headline M" or "no regression in the headline M", M written through
 * escape (NULL: as it is). */
void report_headline_summary(FILE *out, bool regressed, const char *headline,
			     void (*escape)(FILE *out, const char *s));
/* After "N configurations compared": with n > 1, that the headline
 * verdicts were made over all n at once (stats_tables_fdr), started by
 * sep, no end; nothing for n < 2. */
void report_fdr_summary(FILE *out, size_t n, const char *sep);
/*
 * What differs between the environments of A and B (a and b: a sample of
 * each, their first): the host name, memory and clock source of both ends,
 * and the entries of the full snapshots that the environment fingerprint
 * covers (kernel, command line, CPU, sysctls, interfaces), when both
 * samples have one for that end. fn (may be NULL) gets each entry as
 * "client.sysctl...", with a NULL value for an entry one side lacks.
 * Returns how many differ.
 */
typedef void (*report_env_change_fn)(void *ctx, const char *entry,
				     const char *a, const char *b);
size_t report_env_changes(const struct base_sample *a,
			  const struct base_sample *b,
			  report_env_change_fn fn, void *ctx);
/* Whether a and b both have the full snapshot of at least one end. */
bool report_env_snapshots(const struct base_sample *a,
			  const struct base_sample *b);
/* The differences as lines ("environment: ..."; at most 20 entries), and
 * as JSON {"full_snapshots": bool, "changes": [{"entry", "a", "b"}]}. */
void report_env_diff_text(FILE *out, const struct base_sample *a,
			  const struct base_sample *b, const char *label_a,
			  const char *label_b);
json_t *report_env_diff_json(const struct base_sample *a,
			     const struct base_sample *b);
/*
 * Within one label: the environment entries in which s[1..n) differ from
 * s[0], each with its values and how many samples had each ("client.
 * net.core.rmem_max: 212992 in 4, 4194304 in 2; ..."), into out[len].
 * Returns how many entries differ (0: none that the snapshots show).
 */
size_t report_env_within(const struct base_sample *const *s, size_t n,
			 char *out, size_t len);
/*
 * The values environment entry key ("tcp.cc", "client.hostname") takes in
 * s[0..n), each with its samples (" bbr in 4, cubic in 2", at most 4 and
 * then ", other values in N"; "(none)" for the samples without it), into
 * out[len]. Returns how many samples hold the entry.
 */
size_t report_env_tally(const struct base_sample *const *s, size_t n, const char *key,
			char *out, size_t len);
/* A table's notes name the fingerprint entries that differ within a
 * label; this puts the entries and values there instead, when the
 * samples' snapshots show them. */
void report_env_within_note(struct stats_table *t,
			    const struct base_sample *const *a, size_t na,
			    const struct base_sample *const *b, size_t nb);
/* The same as JSON (new reference) and as CSV rows (header once). */
json_t *report_compare_json(const struct stats_table *t);
void report_compare_csv_header(FILE *out);
void report_compare_csv(FILE *out, const struct stats_table *t,
			const char *label_a, const char *label_b);
/*
 * What went with the headline metric of test (stats_headline_metric())
 * across n samples of one configuration (s[0]'s metrics are the
 * candidates, those report_explains() admits): up to `top` metrics whose
 * Kendall tau with it has a Benjamini-Hochberg q < alpha, most significant
 * first, or a line naming the closest when none did; then a blank line.
 * Prints nothing for fewer than STATS_COVARY_MIN_N samples or when no
 * metric could be tested. Returns 0 or -ENOMEM.
 */
int report_explain(FILE *out, const struct base_sample *s, size_t n,
		   const char *test, size_t top, double alpha);
/*
 * How much of one set of samples' spread went with the host moving the
 * vCPUs within their windows (stats_adjust_windows_one: the fit, test
 * and interval compare makes for its .xcpu_adj row): one line with the
 * slope and, when it passed its test, the cov with it taken out; when the
 * fit tested nothing, the line says why (the host moved the CPUs within
 * too few windows, or a window had too few intervals). When the windows
 * gave no fit, the samples may: a second line with the slope of the
 * headline against their host.xcpu_ns (stats_adjust_log_cv, as compare's
 * row does then), printed when it was tested. Where the samples' round
 * trips fell at two distances (stats_xcpu_mix), a line with each one's
 * samples and the headline's median and cov there. y[i] is sample i's
 * headline, w[i] its window (w NULL: a sample kept none), x[i] its
 * host.xcpu_ns (NaN without; x NULL: none). Prints nothing for fewer than
 * STATS_ADJUST_MIN_N samples. Returns 1 when it printed a line, 0 when
 * not, or -ENOMEM.
 */
int report_windows_spread(FILE *out, const double *y, const struct stats_window *w,
			  const double *x, size_t n);
/*
 * Where samples sat at two distances of the test's CPUs (stats_xcpu_mix of
 * their round trips x[0..n), NaN or x NULL: none, as one side): a line,
 * after prefix, with each distance's round trips, its samples and the
 * median and cov of y there, the spread left at one placement, and the
 * cov over those whose window w[i] the host did not move the CPUs within
 * (stats_host_moved; w NULL: not known), where it moved some. At one
 * distance, where it moved some windows: a line with the cov of the
 * others and of all. Returns 1 when it printed a line, 0 when not (one
 * distance and no window moved, or a sample without its round trip),
 * -ENOMEM.
 */
int report_spread_split(FILE *out, const char *prefix, const double *y, const double *x,
			const struct stats_window *w, size_t n);
/* Whether a metric may explain the headline's spread in a test rather than
 * restate it: shares (_pct), figures per MB, write, read or transaction,
 * host.speed, profile shares, the TCP round trip and window; not the
 * headline's relatives (throughput, transactions, latency, service demand,
 * window.), nor the other protocol's counters (TCP ones in a UDP test:
 * the control connection). */
bool report_explains(const char *name, const char *test);
/*
 * One metric of what moved with the headline (stats_table.why), for
 * people: "granted.client.rcvbuf 1.638e+04 -> 8192 B (-50.0%): granted
 * by the kernel for the same request", "profile.self.nft_do_chain 0 ->
 * 31.2 %: CPU per unit +41.0% of A's, 43% of its change (q 0.01)",
 * "softirq.NET_RX.per_mb 685.9 -> 1021 (+48.8%, q 0.004)". Into buf.
 */
void report_why_text(const struct stats_why *w, char *buf, size_t len);
/* The first `top` of t->why as a numbered list, each line after indent
 * (a line that says so when there are none). */
void report_why_list(FILE *out, const struct stats_table *t, size_t top, const char *indent);
/* When t's headline called a REGRESSION or an IMPROVEMENT: a line with
 * the call, its shift and p and the configuration (less common), then
 * the first of what moved with it ("  likely: ..."); returns whether it
 * printed. The answer compare prints before the environment. */
bool report_why_answer(FILE *out, const struct stats_table *t, const char *common);
/* The most environment settings report_why_env() puts first. */
#define REPORT_WHY_ENV_MAX 3
/*
 * Put first in t->why the settings that differ between the environments
 * of a and b (the first samples of the two labels): an interface's
 * qdisc, MTU or offload and the net sysctls that both have, with other
 * values (one a kernel lacks was not changed), at most REPORT_WHY_ENV_MAX
 * in the order report_env_changes() gives them: a change made to the
 * machine rather than measured by it (a tbf on the test's veth, a capped
 * rmem_max) explains before any figure.
 */
void report_why_env(struct stats_table *t, const struct base_sample *a,
		    const struct base_sample *b);
/* t->why as a JSON array (new reference; NULL when out of memory). */
json_t *report_why_json(const struct stats_table *t);
/* How many entries of what moved with the headline the text shows. */
#define REPORT_WHY_TOP 5
/* "inconclusive (about 12 runs needed)", "REGRESSION", ... */
void report_verdict_text(const struct stats_row *r, char *buf, size_t len);

#endif
