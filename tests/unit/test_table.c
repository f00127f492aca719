// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for stats/table.c: the compare table: rows, notes and families. */
#include "stats_fixtures.h"

#include "base/time.h"
#include "report/report.h"
#include "stats/desc.h"
#include "stats/table.h"

/* n samples of one tcp_stream configuration: throughput gbps[i], and the
 * probe's host.speed speed[i] (none when speed is NULL) */
static struct base_sample *speed_samples(size_t n, const double *gbps,
					 const double *speed)
{
	struct base_sample *s = calloc(n, sizeof(*s));

	assert_non_null(s);
	for (size_t i = 0; i < n; i++) {
		base_sample_init(&s[i]);
		snprintf(s[i].config_key, sizeof(s[i].config_key), "test=tcp_stream");
		assert_int_equal(base_sample_param(&s[i], "test", "tcp_stream"), 0);
		assert_int_equal(base_sample_set(&s[i], "throughput.gbps", "Gbps", gbps[i]), 0);
		if (speed)
			assert_int_equal(base_sample_set(&s[i], "host.speed", "op/us", speed[i]), 0);
	}
	return s;
}

static void free_samples(struct base_sample *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		base_sample_release(&s[i]);
	free(s);
}

/* Rounds 25 s apart, a round's two runs 3 s apart, A's first where
 * a_first[r]: sets every sample's start and the pointer arrays. */
static void place_rounds(struct base_sample *a, struct base_sample *b, const bool *a_first,
			 size_t n, const struct base_sample **pa, const struct base_sample **pb)
{
	for (size_t r = 0; r < n; r++) {
		a[r].wall_start_ns = (int64_t)(25 * r + 3 * !a_first[r]) * NS_PER_S;
		b[r].wall_start_ns = (int64_t)(25 * r + 3 * a_first[r]) * NS_PER_S;
		pa[r] = &a[r];
		pb[r] = &b[r];
	}
}

/* The table's .paired row; fails the test when it has none. */
static const struct stats_row *paired_of(const struct stats_table *t)
{
	const struct stats_row *pr = NULL;

	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].paired)
			pr = &t->rows[i];
	assert_non_null(pr);
	return pr;
}

/* The table of tcp_stream samples of rates ga against gb, n a side:
 * interleaved in rounds by a_first (place_rounds), or with a_first NULL
 * all started at once (no .paired row). */
static void table_of(const double *ga, const double *gb, size_t n, const bool *a_first,
		     const struct stats_table_opts *o, struct stats_table *t)
{
	const struct base_sample **pa = calloc(n, sizeof(*pa)), **pb = calloc(n, sizeof(*pb));
	struct base_sample *a = speed_samples(n, ga, NULL), *b = speed_samples(n, gb, NULL);

	assert_true(pa && pb);
	if (a_first) {
		place_rounds(a, b, a_first, n, pa, pb);
	} else {
		for (size_t i = 0; i < n; i++) {
			pa[i] = &a[i];
			pb[i] = &b[i];
		}
	}
	assert_int_equal(stats_table_build(pa, n, pb, n, o, t), 0);
	free_samples(a, n);
	free_samples(b, n);
	free(pa);
	free(pb);
}

/* Two labels of n samples from speed_samples (headlines g), their
 * pointer arrays, and the default options. */
struct two_labels {
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	size_t n;
	struct stats_table_opts o;
};

static void two_labels_init(struct two_labels *l, size_t n, const double *g)
{
	assert_true(n <= 8);
	l->n = n;
	l->a = speed_samples(n, g, NULL);
	l->b = speed_samples(n, g, NULL);
	for (size_t i = 0; i < n; i++) {
		l->pa[i] = &l->a[i];
		l->pb[i] = &l->b[i];
	}
	stats_table_opts_init(&l->o);
}

static void two_labels_release(struct two_labels *l)
{
	free_samples(l->a, l->n);
	free_samples(l->b, l->n);
}

/* Whether the table shows the metric (the rows not shown leave it). */
static bool row_shown(const struct stats_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return t->rows[i].shown;
	return false;
}

/*
 * The other metrics' floors go by what a figure is: events counted (count,
 * seg, msg) must move 100 a run, a share in % one point, and figures of
 * any other unit (op/us, ns, s) 2%, as the per-unit ones. Each of these
 * moved beyond doubt (6 against 6, no overlap).
 */
static void test_other_metrics_held_to_their_unit_floor(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	static const struct {
		const char *name, *unit;
		double a, b;
		bool shown;
	} m[] = {
		{ "tcp.busy_pct", "%", 99.5, 60, true },      /* 39.5 points */
		{ "tcp.rwnd_limited_pct", "%", 0.02, 0.5, false }, /* under a point */
		{ "host.speed", "op/us", 870, 800, true },    /* -8% */
		{ "host.xcpu_ns", "ns", 85, 120, true },      /* +41% */
		{ "tasks.ksoftirqd_s", "s", 0.1, 0.9, true },
		{ "host.speed.core", "op/us", 880, 879, false }, /* -0.1% */
		{ "snmp.Tcp.RetransSegs", "count", 2, 15, false }, /* 13 a run */
		{ "tcp.dsack_dups", "seg", 20, 400, true },   /* 380 a run */
	};
	struct two_labels l;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++)
		for (size_t k = 0; k < ARRAY_SIZE(m); k++) {
			double d = 1e-4 * (double)i * m[k].a; /* no overlap */

			assert_int_equal(base_sample_set(&l.a[i], m[k].name, m[k].unit, m[k].a + d), 0);
			assert_int_equal(base_sample_set(&l.b[i], m[k].name, m[k].unit, m[k].b + d), 0);
		}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	for (size_t k = 0; k < ARRAY_SIZE(m); k++)
		if (row_shown(&t, m[k].name) != m[k].shown)
			fail_msg("%s: shown %d, expected %d", m[k].name, !m[k].shown, m[k].shown);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * A metric that read the same in every sample of both labels (a counter
 * that stayed 0) could not tell them apart and stays out of the others'
 * BH family: 30 such beside one that moved beyond doubt (6 against 6, no
 * overlap: p = 2/924) leave its q at its p, where a family of 31 would
 * have made it 0.067 and hidden it. One that moved in a single sample
 * stays out too (no split of eleven 0s and a 1 reaches p < 0.05: both
 * ends have 462 of the 924 ways), nor one that moved in four (28 ways
 * to the four 1s on one side: 2 x 28 / 924 = 0.061), and one that moved
 * in five, in either label, joins (7 ways: p = 0.015).
 */
static void test_metrics_the_same_everywhere_not_in_the_family(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct stats_table t;
	char name[64];

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(base_sample_set(&l.a[i], "tcp.busy_pct", "%", 99 + 0.1 * (double)i), 0);
		assert_int_equal(base_sample_set(&l.b[i], "tcp.busy_pct", "%", 60 + 0.1 * (double)i), 0);
		for (int k = 0; k < 30; k++) {
			snprintf(name, sizeof(name), "snmp.Icmp.Zero%d", k);
			assert_int_equal(base_sample_set(&l.a[i], name, "count", 0), 0);
			assert_int_equal(base_sample_set(&l.b[i], name, "count", 0), 0);
		}
	}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	assert_true(row_shown(&t, "tcp.busy_pct"));
	for (size_t i = 0; i < t.nrows; i++)
		if (!strcmp(t.rows[i].metric, "tcp.busy_pct"))
			assert_float_equal(t.rows[i].q, 2.0 / 924, 1e-9);
	stats_table_release(&t);
	/* one counter that moved once stays out */
	assert_int_equal(base_sample_set(&l.b[5], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	stats_table_release(&t);
	/* moved in four, two of them in A: out */
	assert_int_equal(base_sample_set(&l.b[4], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(base_sample_set(&l.a[0], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(base_sample_set(&l.a[3], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 1);
	stats_table_release(&t);
	/* in five joins the family: q = p x 2 */
	assert_int_equal(base_sample_set(&l.a[1], "snmp.Icmp.Zero7", "count", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.family, 2);
	assert_float_equal(t.alpha, 0.05, 0);
	for (size_t i = 0; i < t.nrows; i++)
		if (!strcmp(t.rows[i].metric, "tcp.busy_pct"))
			assert_float_equal(t.rows[i].q, 2 * 2.0 / 924, 1e-9);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Samples that straddle a change of a metric's definition (some with the
 * metric the new one came with, some without) get a note naming it, with
 * the counts a side, disturbed samples included; none when every sample,
 * or none, was measured the new way.
 */
static void test_redefined_metrics_noted_where_samples_straddle(void **state)
{
	static const double g[4] = { 10, 10.1, 9.9, 10 };
	struct two_labels l;
	struct base_sample *a, *b;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 4, g);
	a = l.a;
	b = l.b;
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 0);
	stats_table_release(&t);
	/* B measured the new way, one of its samples disturbed */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(base_sample_set(&b[i], "cpu.client.busy_ticks_pct", "%", 30), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_tasks_pct", "%", i == 3 ? 40 : 0.2), 0);
		assert_int_equal(base_sample_set(&b[i], "window.starved", "", 0), 0);
		assert_int_equal(base_sample_set(&b[i], "window.trend_rho", "", 0.4), 0);
	}
	assert_int_equal(base_sample_set(&b[3], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[2], "cpu.foreign_tasks_pct", "%", 0.1), 0);
	assert_int_equal(base_sample_set(&a[1], "window.starved", "", 0), 0);
	assert_int_equal(base_sample_set(&a[2], "window.starved", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 4);
	assert_string_equal(t.notes.redef[0].marker, "cpu.client.busy_ticks_pct");
	assert_non_null(strstr(t.notes.redef[0].what, "busy_pct"));
	assert_int_equal(t.notes.redef[0].a, 0);
	assert_int_equal(t.notes.redef[0].na, 4);
	assert_int_equal(t.notes.redef[0].b, 4);
	assert_int_equal(t.notes.redef[0].nb, 4);
	assert_string_equal(t.notes.redef[1].marker, "cpu.foreign_tasks_pct");
	assert_non_null(strstr(t.notes.redef[1].what, "window.disturbed"));
	assert_int_equal(t.notes.redef[1].a, 1);
	assert_int_equal(t.notes.redef[1].b, 4);
	/* a worker kept from its CPU flags a sample: a third definition */
	assert_string_equal(t.notes.redef[2].marker, "window.starved");
	assert_non_null(strstr(t.notes.redef[2].what, "window.disturbed is also raised by a worker kept from its CPU"));
	assert_int_equal(t.notes.redef[2].a, 2);
	assert_int_equal(t.notes.redef[2].b, 4);
	/* the trend test widened for persistence: a fourth */
	assert_string_equal(t.notes.redef[3].marker, "window.trend_rho");
	assert_non_null(strstr(t.notes.redef[3].what, "window.not_steady"));
	assert_int_equal(t.notes.redef[3].a, 0);
	assert_int_equal(t.notes.redef[3].b, 4);
	stats_table_release(&t);
	/* every sample the new way: nothing to say */
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(base_sample_set(&a[i], "cpu.client.busy_ticks_pct", "%", 30), 0);
		assert_int_equal(base_sample_set(&a[i], "cpu.foreign_tasks_pct", "%", 0.1), 0);
		assert_int_equal(base_sample_set(&a[i], "window.starved", "", 0), 0);
		assert_int_equal(base_sample_set(&a[i], "window.trend_rho", "", 0.6), 0);
	}
	assert_int_equal(stats_table_build(l.pa, 4, l.pb, 4, &l.o, &t), 0);
	assert_int_equal(t.notes.nredef, 0);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Of the samples left out as disturbed, those whose foreign CPU was mostly
 * other processes are counted, and the busiest process of the one they
 * held most is kept (the ended ones by name), with what a report could
 * misread made '?'.
 */
static void test_disturbed_samples_counted_with_other_processes(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct base_sample *a, *b;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	a = l.a;
	b = l.b;
	/* a: one by a compiler (the ticks saw less of it), one by the host */
	assert_int_equal(base_sample_set(&a[1], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[1], "cpu.foreign_busy_pct", "%", 11), 0);
	assert_int_equal(base_sample_set(&a[1], "cpu.foreign_tasks_pct", "%", 12), 0);
	assert_int_equal(base_sample_env(&a[1], "client.collect.tasks.top", "%s", "cc1[300] 1.200 s, make[299] 0.100 s"), 0);
	assert_int_equal(base_sample_set(&a[4], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_busy_pct", "%", 25), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_steal_pct", "%", 20), 0);
	assert_int_equal(base_sample_set(&a[4], "cpu.foreign_tasks_pct", "%", 2), 0);
	assert_int_equal(base_sample_env(&a[4], "client.collect.tasks.top", "%s", "sshd[801] 0.200 s"), 0);
	/* b: one by a process with an odd name, more of the machine */
	assert_int_equal(base_sample_set(&b[2], "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&b[2], "cpu.foreign_busy_pct", "%", 4), 0);
	assert_int_equal(base_sample_set(&b[2], "cpu.foreign_tasks_pct", "%", 30), 0);
	assert_int_equal(base_sample_env(&b[2], "client.collect.tasks.top", "%s", "stress ng<x>[77] 3.000 s"), 0);
	/* a's compiler also kept a worker from its CPU; b[3] starved, not disturbed: kept */
	assert_int_equal(base_sample_set(&a[1], "window.starved", "", 1), 0);
	assert_int_equal(base_sample_set(&a[4], "window.starved", "", 0), 0);
	assert_int_equal(base_sample_set(&b[3], "window.starved", "", 1), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_a, 2);
	assert_int_equal(t.notes.disturbed_b, 1);
	assert_int_equal(t.notes.disturbed_steal_a, 1);
	assert_int_equal(t.notes.disturbed_procs_a, 1);
	assert_int_equal(t.notes.disturbed_procs_b, 1);
	assert_int_equal(t.notes.disturbed_starved_a, 1);
	assert_int_equal(t.notes.disturbed_starved_b, 0);
	assert_string_equal(t.notes.disturbed_busiest, "stress ng?x?[77]");
	stats_table_release(&t);
	/* without b's, a's compiler is the busiest */
	assert_int_equal(base_sample_set(&b[2], "window.disturbed", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_procs_b, 0);
	assert_string_equal(t.notes.disturbed_busiest, "cc1[300]");
	stats_table_release(&t);
	/* the processes that ended in the window, by name, or one alone,
	 * each in a sample they held more than the last */
	static const struct {
		size_t i;
		double pct;
		const char *top, *busiest;
	} ended[] = {
		{ 2, 39, "true (3683 ended) 2.307 s, bash[16893] 0.472 s", "true (3683 ended)" },
		{ 3, 49, "sh[4968, ended] 0.490 s", "sh[4968, ended]" },
	};
	for (size_t k = 0; k < sizeof(ended) / sizeof(ended[0]); k++) {
		struct base_sample *e = &a[ended[k].i];

		assert_int_equal(base_sample_set(e, "window.disturbed", "", 1), 0);
		assert_int_equal(base_sample_set(e, "cpu.foreign_busy_pct", "%", ended[k].pct + 1), 0);
		assert_int_equal(base_sample_set(e, "cpu.foreign_tasks_pct", "%", ended[k].pct), 0);
		assert_int_equal(base_sample_env(e, "client.collect.tasks.top", "%s", ended[k].top), 0);
		assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
		assert_string_equal(t.notes.disturbed_busiest, ended[k].busiest);
		stats_table_release(&t);
	}
	l.o.keep_disturbed = true;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.disturbed_procs_a, 0);
	assert_int_equal(t.notes.disturbed_starved_a, 0);
	assert_string_equal(t.notes.disturbed_busiest, "");
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * A side whose every sample was flagged disturbed keeps them all (it would
 * have none) and the note counts them; with one clean sample the others
 * are left out as ever, and --keep-disturbed pools them with no note.
 */
static void test_all_disturbed_side_is_compared_and_noted(void **state)
{
	static const double g[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	struct two_labels l;
	struct stats_table t;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(base_sample_set(&l.b[i], "window.disturbed", "", 1), 0);
		assert_int_equal(base_sample_set(&l.b[i], "cpu.foreign_busy_pct", "%", 20), 0);
	}
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_a, 0);
	assert_int_equal(t.notes.all_disturbed_b, 6);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(stats_table_headline(&t)->c.nb, 6);
	assert_true(stats_notes_any(&t.notes));
	stats_table_release(&t);

	assert_int_equal(base_sample_set(&l.b[3], "window.disturbed", "", 0), 0);
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_b, 5);
	assert_int_equal(stats_table_headline(&t)->c.nb, 1);
	stats_table_release(&t);

	assert_int_equal(base_sample_set(&l.b[3], "window.disturbed", "", 1), 0);
	l.o.keep_disturbed = true;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_int_equal(t.notes.all_disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(stats_table_headline(&t)->c.nb, 6);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * Samples flagged disturbed are left out and counted, and so are those of
 * them whose foreign CPU was mostly the host's steal, on whichever end had
 * more of it, or that the host's steal on the test's CPUs flagged
 * (window.stolen); --keep-disturbed pools them and counts none.
 */
static void test_disturbed_samples_counted_with_the_hosts_steal(void **state)
{
	static const double ga[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 }, gb[6] = { 10, 10.1, 9.9, 10, 10.2, 9.8 };
	/* foreign, steal; server foreign, server steal (-1: none) */
	static const double fb[6][4] = {
		{ 0, 0, -1, -1 }, { 0, 0, -1, -1 }, { 30, 25, -1, -1 }, { 30, 5, -1, -1 },
		{ 12, 0, 40, 30 }, { 0, 0, -1, -1 },
	};
	struct base_sample *a = speed_samples(6, ga, NULL), *b = speed_samples(6, gb, NULL);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	stats_table_opts_init(&o);
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		assert_int_equal(base_sample_set(&b[i], "window.disturbed", "", fb[i][0] > 10), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_busy_pct", "%", fb[i][0]), 0);
		assert_int_equal(base_sample_set(&b[i], "cpu.foreign_steal_pct", "%", fb[i][1]), 0);
		if (fb[i][2] >= 0) {
			assert_int_equal(base_sample_set(&b[i], "cpu.server.foreign_busy_pct", "%", fb[i][2]), 0);
			assert_int_equal(base_sample_set(&b[i], "cpu.server.foreign_steal_pct", "%", fb[i][3]), 0);
		}
	}
	/* a stream's 3.5% foreign, 0.5 of it steal, but 2.4% of the
	 * window stolen from its two CPUs */
	assert_int_equal(base_sample_set(&b[5], "cpu.foreign_busy_pct", "%", 3.5), 0);
	assert_int_equal(base_sample_set(&b[5], "cpu.foreign_steal_pct", "%", 0.5), 0);
	assert_int_equal(base_sample_set(&b[5], "window.stolen", "", 1), 0);
	assert_int_equal(base_sample_set(&b[5], "window.disturbed", "", 1), 0);
	/* stolen too, but 6 of its 8 points were other processes */
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_busy_pct", "%", 8), 0);
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_steal_pct", "%", 1), 0);
	assert_int_equal(base_sample_set(&b[1], "cpu.foreign_tasks_pct", "%", 6), 0);
	assert_int_equal(base_sample_set(&b[1], "window.stolen", "", 1), 0);
	assert_int_equal(base_sample_set(&b[1], "window.disturbed", "", 1), 0);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.disturbed_a, 0);
	assert_int_equal(t.notes.disturbed_b, 5);
	/* 25 of 30 on the client; 30 of the server's 40; the stolen one
	 * that other processes did not mostly take */
	assert_int_equal(t.notes.disturbed_steal_b, 3);
	assert_int_equal(t.notes.disturbed_procs_b, 1);
	assert_int_equal(t.notes.disturbed_steal_a, 0);
	stats_table_release(&t);
	o.keep_disturbed = true;
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.disturbed_b, 0);
	assert_int_equal(t.notes.disturbed_steal_b, 0);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
}

/*
 * Many configurations compared at once, 6 samples a side, 5% noise. With
 * no change anywhere, the rank test at 5% called a regression somewhere
 * in 104 of 200 sets of 40 configurations; over the family
 * (stats_tables_fdr) in 3. With B 10% slower in a corner of 10 of the 40,
 * the family called 1038 of those 2000 (each alone: 1729), and 19 of the
 * 6000 others. A table alone is as it was.
 */
static void test_tables_fdr_calls_a_matrix_clean_and_keeps_a_corner(void **state)
{
	enum { SETS = 200, CONFIGS = 40, CORNER = 10, N = 6 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t any_raw = 0, any_fdr = 0, corner_raw = 0, corner_called = 0, elsewhere_called = 0;
	size_t notes = 0;

	(void)state;
	gsl_rng_set(rng, 20261203);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			struct stats_table t[CONFIGS], *tp[CONFIGS];
			struct stats_table_opts o;
			bool raw = false, fdr = false;

			stats_table_opts_init(&o);
			for (int c = 0; c < CONFIGS; c++) {
				double ga[N], gb[N];
				double f = change && c < CORNER ? 0.90 : 1;

				for (int i = 0; i < N; i++) {
					ga[i] = 30 * exp(gsl_ran_gaussian(rng, 0.05));
					gb[i] = 30 * f * exp(gsl_ran_gaussian(rng, 0.05));
				}
				table_of(ga, gb, N, NULL, &o, &t[c]);
				raw |= t[c].regressed;
				corner_raw += change && c < CORNER && t[c].regressed;
				tp[c] = &t[c];
			}
			assert_int_equal(stats_tables_fdr(tp, CONFIGS, &o), 0);
			for (int c = 0; c < CONFIGS; c++) {
				const struct stats_row *h = &t[c].rows[0];

				assert_true(h->headline);
				assert_int_equal(t[c].notes.fdr_n, CONFIGS);
				assert_true(h->q >= h->c.p);
				assert_true(t[c].regressed == (h->c.verdict == STATS_REGRESSION));
				assert_true(!t[c].regressed || h->q < o.cmp.alpha);
				if (t[c].notes.fdr_downgraded) {
					notes++;
					assert_true(h->c.p < o.cmp.alpha && h->q >= o.cmp.alpha);
					assert_true(h->c.verdict == STATS_SAME ||
						    h->c.verdict == STATS_INCONCLUSIVE);
				}
				fdr |= t[c].regressed;
				if (change && c < CORNER)
					corner_called += t[c].regressed;
				else if (change)
					elsewhere_called += t[c].regressed;
				stats_table_release(&t[c]);
			}
			if (!change) {
				any_raw += raw;
				any_fdr += fdr;
			}
		}
	print_message("A/A over %d configurations, %d sets: a regression somewhere in %zu sets, in %zu over the family; corner of %d at -10%%: %zu of %d called alone, %zu over the family, %zu elsewhere; %zu downgrade notes\n",
		      CONFIGS, SETS, any_raw, any_fdr, CORNER, corner_raw, SETS * CORNER,
		      corner_called, elsewhere_called, notes);
	assert_true(any_raw > SETS / 3);
	assert_true(any_fdr <= SETS / 20);
	assert_true(corner_called > SETS * CORNER * 2 / 5);
	assert_true(elsewhere_called <= SETS * (CONFIGS - CORNER) / 100);
	assert_true(notes > 0);
	/* one table: nothing to adjust */
	{
		const double ga[N] = { 30, 31, 29, 30, 32, 31 }, gb[N] = { 25, 26, 24, 25, 26, 25 };
		struct stats_table one, *op = &one;
		struct stats_table_opts o;

		stats_table_opts_init(&o);
		table_of(ga, gb, N, NULL, &o, &one);
		assert_true(one.regressed);
		assert_int_equal(stats_tables_fdr(&op, 1, &o), 0);
		assert_true(one.regressed);
		assert_int_equal(one.notes.fdr_n, 0);
		stats_table_release(&one);
	}
	gsl_rng_free(rng);
}

/*
 * The .paired rows of many configurations are a family of their own: over
 * 100 sets of 20 configurations of interleaved rounds with no change, the
 * crossover's t at 5% called a regression somewhere in 21 sets, the family
 * in 1; a paired row it does not call says no runs needed (its ratios'
 * spread is not kept), and paired_regressed follows its verdict.
 */
static void test_tables_fdr_takes_the_paired_rows_as_a_family(void **state)
{
	enum { SETS = 100, CONFIGS = 20, ROUNDS = 8 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	size_t any_raw = 0, any_fdr = 0, down = 0;

	(void)state;
	gsl_rng_set(rng, 20261204);
	for (int set = 0; set < SETS; set++) {
		struct stats_table t[CONFIGS], *tp[CONFIGS];
		struct stats_table_opts o;
		bool raw = false, fdr = false;

		stats_table_opts_init(&o);
		for (int c = 0; c < CONFIGS; c++) {
			double ga[ROUNDS], gb[ROUNDS];
			bool af[ROUNDS];

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				ga[r] = level * exp(gsl_ran_gaussian(rng, 0.02));
				gb[r] = level * exp(gsl_ran_gaussian(rng, 0.02));
				af[r] = r % 2;
			}
			table_of(ga, gb, ROUNDS, af, &o, &t[c]);
			raw |= t[c].paired_regressed;
			tp[c] = &t[c];
		}
		assert_int_equal(stats_tables_fdr(tp, CONFIGS, &o), 0);
		for (int c = 0; c < CONFIGS; c++) {
			const struct stats_row *pr = paired_of(&t[c]);

			assert_true(pr->q >= pr->c.p);
			assert_int_equal(pr->fdr_n, CONFIGS);
			assert_true(t[c].paired_regressed == (pr->c.verdict == STATS_REGRESSION));
			/* a call taken back is marked, for its note */
			if (pr->fdr_downgraded)
				assert_true(pr->c.p < o.cmp.alpha && pr->q >= o.cmp.alpha &&
					    (pr->c.verdict == STATS_INCONCLUSIVE || pr->c.verdict == STATS_SAME));
			if (pr->c.p < o.cmp.alpha && pr->q >= o.cmp.alpha &&
			    fabs(pr->c.shift_pct) >= o.cmp.min_change_pct) {
				down++;
				assert_true(pr->fdr_downgraded);
				assert_int_equal(pr->c.verdict, STATS_INCONCLUSIVE);
				assert_int_equal(pr->c.runs_needed, 0);
			}
			fdr |= t[c].paired_regressed;
			stats_table_release(&t[c]);
		}
		any_raw += raw;
		any_fdr += fdr;
	}
	print_message("paired rows, %d sets of %d configurations, no change: a regression somewhere in %zu sets, in %zu over the family; %zu rows not called\n",
		      SETS, CONFIGS, any_raw, any_fdr, down);
	assert_true(any_raw >= SETS / 10);
	assert_true(any_fdr <= SETS / 20);
	assert_true(down > 0);
	gsl_rng_free(rng);
}

/* A verdict that calls a change, minor ones too. */
static bool calls_change(enum stats_verdict_kind v)
{
	return v == STATS_REGRESSION || v == STATS_IMPROVEMENT || v == STATS_MINOR;
}

/*
 * Rounds of an interleaved matrix on a machine whose level drifts by 10%
 * (sd) from one round to the next, 1% within a round: A and B once per
 * round, in an order drawn per round. With B 3% slower the paired row
 * calls a regression where the rank test over all runs mostly cannot;

 * with no change it calls one no more often than its alpha. Runs of B
 * after all of A's pair once, samples that all started at once not at
 * all: no row.
 */
static void test_table_paired_row_takes_out_what_drifted_between_rounds(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int paired_called[2] = { 0 }, raw_called[2] = { 0 };
	enum { SETS = 200, ROUNDS = 8 };

	(void)state;
	gsl_rng_set(rng, 20261202);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			const struct base_sample *pa[ROUNDS], *pb[ROUNDS];
			double ga[ROUNDS], gb[ROUNDS];
			struct base_sample *a, *b;
			struct stats_table_opts o;
			struct stats_table t;
			const struct stats_row *pr;
			bool af[ROUNDS];
			size_t a_first = 0;

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				ga[r] = level * exp(gsl_ran_gaussian(rng, 0.01));
				gb[r] = level * (change ? 0.97 : 1) * exp(gsl_ran_gaussian(rng, 0.01));
			}
			a = speed_samples(ROUNDS, ga, NULL);
			b = speed_samples(ROUNDS, gb, NULL);
			for (int r = 0; r < ROUNDS; r++) {
				af[r] = !(gsl_rng_uniform(rng) < 0.5);
				a_first += af[r];
			}
			place_rounds(a, b, af, ROUNDS, pa, pb);
			stats_table_opts_init(&o);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			pr = paired_of(&t);
			assert_string_equal(pr->metric, "throughput.gbps.paired");
			assert_int_equal(t.notes.pairs, ROUNDS);
			assert_int_equal(t.notes.unpaired, 0);
			assert_int_equal(t.notes.pairs_a_first, a_first);
			assert_int_equal(pr->c.na, ROUNDS);
			assert_true(pr->c.shift_lo_pct <= pr->c.shift_pct &&
				    pr->c.shift_pct <= pr->c.shift_hi_pct);
			assert_int_equal(t.paired_regressed, pr->c.verdict == STATS_REGRESSION);
			paired_called[change] += calls_change(pr->c.verdict);
			raw_called[change] += calls_change(t.rows[0].c.verdict);
			stats_table_release(&t);

			/* A first in every round, as runs by hand in a fixed
			 * order go: the same pairs, all in one order */
			for (int r = 0; r < ROUNDS; r++)
				af[r] = true;
			place_rounds(a, b, af, ROUNDS, pa, pb);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			assert_int_equal(t.notes.pairs, ROUNDS);
			assert_int_equal(t.notes.pairs_a_first, ROUNDS);
			stats_table_release(&t);

			/* all of B after all of A: one pair, no row */
			for (int r = 0; r < ROUNDS; r++) {
				a[r].wall_start_ns = r * NS_PER_S;
				b[r].wall_start_ns = (ROUNDS + r) * NS_PER_S;
			}
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			for (size_t i = 0; i < t.nrows; i++)
				assert_false(t.rows[i].paired);
			assert_int_equal(t.notes.pairs, 0);
			assert_false(t.paired_regressed);
			stats_table_release(&t);
			/* copies of one sample, all started at once: no order, no pairs */
			for (int r = 0; r < ROUNDS; r++)
				a[r].wall_start_ns = b[r].wall_start_ns = NS_PER_S;
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			assert_int_equal(t.notes.pairs, 0);
			stats_table_release(&t);
			free_samples(a, ROUNDS);
			free_samples(b, ROUNDS);
		}
	print_message("rounds drifting 10%%, %d sets of %d pairs: no change: paired row called one in %d, rank test in %d; B 3%% slower: paired %d, rank test %d\n",
		      SETS, ROUNDS, paired_called[0], raw_called[0], paired_called[1], raw_called[1]);
	assert_true(paired_called[0] <= SETS / 20 + 6);
	assert_true(paired_called[1] >= SETS * 8 / 10);
	assert_true(raw_called[1] <= SETS * 3 / 10);
	gsl_rng_free(rng);
}

/*
 * The same rounds when the second run of a pair reads 5% higher than the
 * first (what it left behind), the order drawn per round: the row, a 2 x 2
 * crossover when it has pairs of both orders, estimates that effect, keeps
 * its false calls near alpha with no change, and finds B 3% slower far
 * more often than the paired t that ignores the order.
 */
static void test_table_paired_row_is_a_crossover(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	int called[2] = { 0 }, plain[2] = { 0 }, crossed = 0;
	double period_sum = 0;
	enum { SETS = 200, ROUNDS = 8 };

	(void)state;
	gsl_rng_set(rng, 20261203);
	for (int change = 0; change < 2; change++)
		for (int set = 0; set < SETS; set++) {
			const struct base_sample *pa[ROUNDS], *pb[ROUNDS];
			double ga[ROUNDS], gb[ROUNDS];
			struct base_sample *a, *b;
			struct stats_table_opts o;
			struct stats_compare pc;
			struct stats_table t;
			const struct stats_row *pr;
			bool first[ROUNDS];

			for (int r = 0; r < ROUNDS; r++) {
				double level = 30 * exp(gsl_ran_gaussian(rng, 0.10));

				first[r] = gsl_rng_uniform(rng) < 0.5; /* A first */
				ga[r] = level * (first[r] ? 1 : 1.05) * exp(gsl_ran_gaussian(rng, 0.01));
				gb[r] = level * (change ? 0.97 : 1) * (first[r] ? 1.05 : 1) *
					exp(gsl_ran_gaussian(rng, 0.01));
			}
			a = speed_samples(ROUNDS, ga, NULL);
			b = speed_samples(ROUNDS, gb, NULL);
			place_rounds(a, b, first, ROUNDS, pa, pb);
			stats_table_opts_init(&o);
			assert_int_equal(stats_table_build(pa, ROUNDS, pb, ROUNDS, &o, &t), 0);
			pr = paired_of(&t);
			if (t.notes.period_tested) {
				crossed++;
				period_sum += t.notes.period_pct;
				assert_true(t.notes.period_lo_pct <= t.notes.period_pct &&
					    t.notes.period_pct <= t.notes.period_hi_pct);
			}
			called[change] += calls_change(pr->c.verdict);
			assert_int_equal(stats_compare_paired(ga, gb, ROUNDS, STATS_HIGHER, &o.cmp, &pc), 0);
			plain[change] += calls_change(pc.verdict);
			stats_table_release(&t);
			free_samples(a, ROUNDS);
			free_samples(b, ROUNDS);
		}
	print_message("second run +5%%, %d sets of %d rounds: crossover in %d; no change: row called one in %d, paired t in %d; B 3%% slower: row %d, paired t %d; mean period %.2f%%\n",
		      SETS, ROUNDS, crossed, called[0], plain[0], called[1], plain[1],
		      period_sum / crossed);
	assert_true(crossed >= 2 * SETS * 95 / 100);
	assert_true(fabs(period_sum / crossed - 5) < 0.5);
	assert_true(called[0] <= SETS / 20 + 6);
	assert_true(called[1] >= SETS * 9 / 10);
	assert_true(called[1] > plain[1] + SETS / 10);
	gsl_rng_free(rng);
}

/* Per second from per unit: only a figure per unit of its own headline. */
static void test_per_second_scale_of_a_figure_per_unit(void **state)
{
	(void)state;
	assert_float_equal(stats_per_second_scale("irq.CAL.per_mb", "throughput.gbps"), 125, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_trans", "transactions.per_s"), 1, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_trans", "throughput.gbps"), 0, 0);
	assert_float_equal(stats_per_second_scale("irq.CAL.per_mb", "transactions.per_s"), 0, 0);
	assert_float_equal(stats_per_second_scale("snmp.Tcp.OutSegs.per_write", "throughput.gbps"), 0, 0);
	assert_float_equal(stats_per_second_scale(".per_mb", "throughput.gbps"), 0, 0);
}

static void test_table_notes_a_host_speed_change(void **state)
{
	/* B's throughput is 10% lower, and so was the host's speed */
	static const double ga[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	static const double gb[] = { 27.1, 26.9, 27.3, 27.0, 26.8, 27.2 };
	static const double sa[] = { 601, 598, 603, 600, 599, 602 };
	static const double sb[] = { 541, 539, 542, 540, 538, 543 };
	static const double same[] = { 600, 602, 598, 601, 599, 603 };
	struct base_sample *a = speed_samples(6, ga, sa), *b = speed_samples(6, gb, sb);
	struct base_sample *c = speed_samples(6, gb, same), *d = speed_samples(6, gb, NULL);
	const struct base_sample *pa[6], *pb[6], *pc[6], *pd[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
		pd[i] = &d[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.regressed);
	assert_true(t.notes.speed_changed);
	/* 540 / 600: -10%, the interval around it, exact p of 6 vs 6 with
	 * no overlap, 2 / C(12, 6) = 0.00216 */
	assert_true(t.notes.speed_shift_pct < -9 && t.notes.speed_shift_pct > -11);
	assert_true(t.notes.speed_lo_pct <= t.notes.speed_shift_pct &&
		    t.notes.speed_shift_pct <= t.notes.speed_hi_pct);
	assert_float_equal(t.notes.speed_p, 2.0 / 924, 1e-9);
	assert_false(t.notes.builds_differ);
	stats_table_release(&t);
	/* measured by another build of netregress: the note says the probe's
	 * unit may be the build's */
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(base_sample_env(&b[i], "client.build", "%s", "git 0123456789ab"), 0);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.builds_differ);
	stats_table_release(&t);
	/* the same speed on both sides: the regression stands alone */
	assert_int_equal(stats_table_build(pa, 6, pc, 6, &o, &t), 0);
	assert_true(t.regressed);
	assert_false(t.notes.speed_changed);
	stats_table_release(&t);
	/* one side without the probe: nothing to say */
	assert_int_equal(stats_table_build(pa, 6, pd, 6, &o, &t), 0);
	assert_false(t.notes.speed_changed);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
	free_samples(c, 6);
	free_samples(d, 6);
}

/* speed_samples with the probe's core pace too. */
static struct base_sample *core_samples(size_t n, const double *gbps, const double *speed,
					const double *core)
{
	struct base_sample *s = speed_samples(n, gbps, speed);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(base_sample_set(&s[i], "host.speed.core", "op/us", core[i]), 0);
	return s;
}

static void test_table_speed_note_says_whether_the_core_moved(void **state)
{
	/* host.speed 10% lower in B: with the core's pace held, the time went
	 * to interruptions (the guest's softirqs take it as well as the host);
	 * with the core 10% slower, the host's clock moved */
	static const double ga[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	static const double gb[] = { 27.1, 26.9, 27.3, 27.0, 26.8, 27.2 };
	static const double sa[] = { 601, 598, 603, 600, 599, 602 };
	static const double sb[] = { 541, 539, 542, 540, 538, 543 };
	static const double ca[] = { 700, 701, 699, 702, 700, 698 };
	static const double held[] = { 701, 699, 700, 698, 702, 700 };
	static const double slow[] = { 630, 631, 629, 632, 630, 628 };
	struct base_sample *a = core_samples(6, ga, sa, ca), *b = core_samples(6, gb, sb, held);
	struct base_sample *c = core_samples(6, gb, sb, slow);
	const struct base_sample *pa[6], *pb[6], *pc[6];
	struct stats_table_opts o;
	struct stats_table t;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.speed_core_known);
	assert_false(t.notes.speed_core_changed);
	assert_true(fabs(t.notes.speed_core_shift_pct) < 0.5 && t.notes.speed_core_p > 0.05);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_compare_table(out, &t, "A", "B", NULL);
	fclose(out);
	assert_non_null(strstr(text, "(host.speed.core) held"));
	assert_non_null(strstr(text, "need not be the host's"));
	free(text);
	stats_table_release(&t);
	assert_int_equal(stats_table_build(pa, 6, pc, 6, &o, &t), 0);
	assert_true(t.notes.speed_changed && t.notes.speed_core_known && t.notes.speed_core_changed);
	assert_true(t.notes.speed_core_shift_pct < -9 && t.notes.speed_core_shift_pct > -11);
	assert_true(t.notes.speed_core_lo_pct <= t.notes.speed_core_shift_pct &&
		    t.notes.speed_core_shift_pct <= t.notes.speed_core_hi_pct);
	out = open_memstream(&text, &len);
	assert_non_null(out);
	report_compare_table(out, &t, "A", "B", NULL);
	fclose(out);
	assert_non_null(strstr(text, "(host.speed.core) moved -"));
	assert_non_null(strstr(text, "may be the host's"));
	free(text);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
	free_samples(c, 6);
}

static void test_table_counts_mixed_windows_and_their_widest_gap(void **state)
{
	static const double g[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	struct base_sample *a = speed_samples(6, g, NULL), *b = speed_samples(6, g, NULL);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		/* A: samples 1 and 4 mixed, 80-104 % and 75-110 %; sample 2 had
		 * two levels without coming back, which does not count */
		assert_int_equal(base_sample_set(&a[i], "window.mixed", "", i == 1 || i == 4), 0);
		assert_int_equal(base_sample_set(&a[i], "window.level_lo_pct", "%",
						 i == 1 ? 80 : i == 4 ? 75 : i == 2 ? 60 : 100), 0);
		assert_int_equal(base_sample_set(&a[i], "window.level_hi_pct", "%",
						 i == 1 ? 104 : i == 4 ? 110 : i == 2 ? 120 : 100), 0);
		assert_int_equal(base_sample_set(&b[i], "window.mixed", "", 0), 0);
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	assert_int_equal(t.notes.mixed_a, 2);
	assert_int_equal(t.notes.mixed_b, 0);
	assert_float_equal(t.notes.mixed_gap_a, 35, 1e-9);
	assert_float_equal(t.notes.mixed_gap_b, 0, 1e-9);
	stats_table_release(&t);
	free_samples(a, 6);
	free_samples(b, 6);
}

/* speed_samples() with host.xcpu_ns x[i] */
static struct base_sample *xcpu_samples(size_t n, const double *gbps, const double *x)
{
	struct base_sample *s = speed_samples(n, gbps, NULL);

	for (size_t i = 0; i < n; i++)
		assert_int_equal(base_sample_set(&s[i], "host.xcpu_ns", "ns", x[i]), 0);
	return s;
}

/* The compare table takes the windows when every sample kept them, and
 * prefers them to the samples' medians. */
/* n samples with headline y[i], each keeping its window of 100 intervals
 * (rates r[i], round trips x[i]) and the median round trip as
 * host.xcpu_ns; p[i] points at each */
static struct base_sample *window_samples(size_t n, const double *y, double (*r)[100],
					  double (*x)[100], const struct base_sample **p)
{
	double med[16];
	struct base_sample *s;

	assert_true(n <= 16);
	for (size_t i = 0; i < n; i++) {
		double tmp[100];
		size_t k = 0;

		for (size_t j = 0; j < 100; j++)
			if (!isnan(x[i][j]))
				tmp[k++] = x[i][j];
		assert_int_equal(stats_median(tmp, k, &med[i]), 0);
	}
	s = xcpu_samples(n, y, med);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(base_sample_set_series(&s[i], "Gbps", 0.1, r[i], 100, 1), 0);
		assert_int_equal(base_sample_set_series_probe(&s[i], BASE_TICK_XCPU, x[i], 100), 0);
		p[i] = &s[i];
	}
	return s;
}

static void test_table_adjusts_from_the_windows(void **state)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[16][100], x[16][100];
	double y[16];
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	gsl_rng_set(rng, 11);
	for (size_t i = 0; i < 16; i++)
		y[i] = moving_window(rng, i < 8 ? 30 : 27, i < 8 ? 0.25 : 0.75, r[i], x[i], 100);
	a = window_samples(8, y, r, x, pa);
	b = window_samples(8, y + 8, r + 8, x + 8, pb);
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested && t.notes.adj_applied);
	assert_true(t.notes.adj_windows >= 3 && t.notes.adj_ticks > 1400);
	assert_true(t.notes.adj_moved_windows >= 3 &&
		    t.notes.adj_moved_windows <= t.notes.adj_windows);
	assert_float_equal(t.notes.adj_slope, -0.45, 0.05);
	assert_true(t.rows[1].adjusted);
	assert_int_equal(t.rows[1].c.verdict, STATS_REGRESSION);
	assert_true(t.rows[1].c.shift_lo_pct < -10 && -10 < t.rows[1].c.shift_hi_pct);
	stats_table_release(&t);
	/* without B's windows: from the samples' medians */
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(base_sample_set_series(&b[i], "Gbps", 0.1, NULL, 0, 1), 0);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested);
	assert_int_equal(t.notes.adj_windows, 0);
	assert_int_equal(t.notes.adj_ticks, 0);
	assert_int_equal(t.notes.adj_moved_windows, 0);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
	gsl_rng_free(rng);
}

/*
 * The adjusted row when the labels sat at different distances: A's runs
 * all near, B's all far, the host moving the vCPUs in about one window in
 * five and the rates moving in spells of their own (15%, one every 10 s
 * or so); no change between the labels. The slope then rests on a few
 * windows and the whole A/B difference is taken out along it: compared
 * at the fitted slope alone, the adjusted figures called a change in
 * about 12% of such sets, so the row must also hold at both ends of the
 * slope's interval.
 */
static void test_table_adjusted_row_holds_over_the_slope_interval(void **state)
{
	static const struct host_law law = { .slope = -0.45, .p_switch = 0.002,
					     .spell_sd = 0.15, .p_spell = 0.01 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	static double r[12][100], x[12][100];
	int rows = 0, called = 0, raw = 0;

	(void)state;
	gsl_rng_set(rng, 43);
	for (int set = 0; set < 200; set++) {
		const struct base_sample *pa[6], *pb[6];
		struct base_sample *a, *b;
		struct stats_table_opts o;
		struct stats_table t;
		double y[12];

		for (size_t i = 0; i < 12; i++)
			y[i] = host_window(rng, &law, 30, i < 6 ? 0 : 1, r[i], x[i], 100);
		a = window_samples(6, y, r, x, pa);
		b = window_samples(6, y + 6, r + 6, x + 6, pb);
		stats_table_opts_init(&o);
		assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
		raw += t.rows[0].c.p < 0.05;
		if (t.nrows > 1 && t.rows[1].adjusted) {
			const struct stats_compare *c = &t.rows[1].c;

			rows++;
			called += c->verdict == STATS_REGRESSION || c->verdict == STATS_IMPROVEMENT ||
				  c->verdict == STATS_MINOR;
			/* the interval is the slope's too: it holds the row's shift */
			assert_true(t.notes.adj_slope_lo <= t.notes.adj_slope &&
				    t.notes.adj_slope <= t.notes.adj_slope_hi);
			assert_true(c->shift_lo_pct <= c->shift_pct && c->shift_pct <= c->shift_hi_pct);
		}
		stats_table_release(&t);
		free_samples(a, 6);
		free_samples(b, 6);
	}
	print_message("labels near/far: %d adjusted rows, a change called in %d; raw p < 0.05 in %d of 200\n",
		      rows, called, raw);
	assert_true(rows >= 100);
	/* 5% of the rows, and some */
	assert_true(called <= rows / 20 + 4);
	assert_true(raw >= 100);
	gsl_rng_free(rng);
}

static void test_table_adjusts_the_headline_for_the_distance(void **state)
{
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	double ga[8], gb[8], gc[8];
	struct base_sample *a, *b, *c;
	const struct base_sample *pa[8], *pb[8], *pc[8];
	const struct stats_row *adj = NULL;
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	placed(30, xa, 8, ga);
	placed(27, xb, 8, gb);
	placed(30, xb, 8, gc); /* A's rates, B's distances: no change */
	a = xcpu_samples(8, ga, xa);
	b = xcpu_samples(8, gb, xb);
	c = xcpu_samples(8, gc, xb);
	for (size_t i = 0; i < 8; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
		pc[i] = &c[i];
	}
	stats_table_opts_init(&o);
	/* 10% slower at every distance: the adjusted row says about -10%
	 * with an interval far narrower than the raw one */
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_tested && t.notes.adj_applied);
	/* the adjusted row takes the distance up: no note of the mix */
	assert_false(t.notes.xcpu_mix);
	assert_float_equal(t.notes.adj_slope, -0.45, 0.03);
	assert_true(t.rows[0].headline);
	adj = &t.rows[1];
	assert_true(adj->adjusted && adj->shown);
	assert_string_equal(adj->metric, "throughput.gbps.xcpu_adj");
	assert_string_equal(adj->unit, "Gbps");
	assert_int_equal(adj->c.verdict, STATS_REGRESSION);
	assert_true(adj->c.shift_lo_pct < -10 && adj->c.shift_hi_pct > -10 && adj->c.shift_pct < -7);
	assert_true(adj->c.shift_hi_pct - adj->c.shift_lo_pct <
		    (t.rows[0].c.shift_hi_pct - t.rows[0].c.shift_lo_pct) / 2);
	assert_true(stats_notes_any(&t.notes));
	stats_table_release(&t);
	/* the same rates, only more of B far: raw cannot tell (its interval
	 * spans -44% to +3%), the adjusted row sees no change within a few
	 * percent */
	assert_int_equal(stats_table_build(pa, 8, pc, 8, &o, &t), 0);
	assert_int_equal(t.rows[0].c.verdict, STATS_INCONCLUSIVE);
	assert_true(t.rows[0].c.shift_hi_pct - t.rows[0].c.shift_lo_pct > 30);
	assert_true(t.rows[1].adjusted);
	assert_true(t.rows[1].c.verdict != STATS_REGRESSION &&
		    t.rows[1].c.verdict != STATS_IMPROVEMENT);
	assert_true(fabs(t.rows[1].c.shift_pct) < 3);
	assert_true(t.rows[1].c.shift_hi_pct - t.rows[1].c.shift_lo_pct < 10);
	stats_table_release(&t);
	/* one side without the probe: no adjustment */
	free_samples(c, 8);
	c = speed_samples(8, gc, NULL);
	for (size_t i = 0; i < 8; i++)
		pc[i] = &c[i];
	assert_int_equal(stats_table_build(pa, 8, pc, 8, &o, &t), 0);
	assert_false(t.notes.adj_tested);
	for (size_t i = 0; i < t.nrows; i++)
		assert_false(t.rows[i].adjusted);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
	free_samples(c, 8);
}

/* The row of metric in t; NULL when it has none. */
static const struct stats_row *row_of(const struct stats_table *t, const char *metric)
{
	for (size_t i = 0; i < t->nrows; i++)
		if (!strcmp(t->rows[i].metric, metric))
			return &t->rows[i];
	return NULL;
}

/*
 * --headline: a table built with another metric as its headline judges
 * that one. The rate flat (the same six rates a side, within 0.2%) while
 * latency.p99_us rose 30% (6 against 6, no overlap: p = 2/924, its
 * interval far beyond 2%): the test's headline calls no regression;

 * latency.p99_us as the headline (lower is better, from the store) is
 * the first row and a REGRESSION, the table's, and the rate becomes one
 * of the other metrics. A profile share the store calls neutral that
 * rose 3 points is CHANGED by the store's direction and nothing
 * regressed; told lower is better it is a REGRESSION, higher an
 * IMPROVEMENT. A metric the samples lack makes no headline row (what the
 * CLI refuses). A figure per MB stays compared per second against the
 * rate, whatever the headline.
 */
static void test_table_headline_option_judges_that_metric(void **state)
{
	static const struct {
		enum metric_dir dir;
		enum stats_verdict_kind verdict;
	} told[] = {
		{ METRIC_NEUTRAL, STATS_CHANGED },
		{ METRIC_LOWER, STATS_REGRESSION },
		{ METRIC_HIGHER, STATS_IMPROVEMENT },
	};
	static const double g[6] = { 10, 10.01, 9.99, 10, 10.02, 9.98 };
	struct two_labels l;
	struct stats_table t;
	const struct stats_row *h;

	(void)state;
	two_labels_init(&l, 6, g);
	for (size_t i = 0; i < 6; i++) {
		double d = 0.5 * (double)i;

		assert_int_equal(base_sample_set(&l.a[i], "latency.p99_us", "us", 100 + d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "latency.p99_us", "us", 130 + d), 0);
		assert_int_equal(base_sample_set(&l.a[i], "profile.self.memcpy", "%", 5 + 0.1 * d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "profile.self.memcpy", "%", 8 + 0.1 * d), 0);
		assert_int_equal(base_sample_set(&l.a[i], "stat.ctxt.per_mb", "",
						 1000 + d), 0);
		assert_int_equal(base_sample_set(&l.b[i], "stat.ctxt.per_mb", "",
						 1300 + d), 0);
	}
	/* the test's headline: the rate, unchanged */
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_string_equal(t.headline, "throughput.gbps");
	assert_non_null(h = stats_table_headline(&t));
	assert_string_equal(h->metric, "throughput.gbps");
	assert_int_equal(h->c.verdict, STATS_SAME);
	assert_false(t.regressed);
	assert_true(row_of(&t, "latency.p99_us") && !row_of(&t, "latency.p99_us")->headline);
	stats_table_release(&t);
	/* --headline latency.p99_us */
	l.o.headline = "latency.p99_us";
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_string_equal(t.headline, "latency.p99_us");
	assert_true(t.rows[0].headline);
	assert_string_equal(t.rows[0].metric, "latency.p99_us");
	assert_int_equal(t.rows[0].dir, METRIC_LOWER);
	assert_int_equal(t.rows[0].c.verdict, STATS_REGRESSION);
	assert_float_equal(t.rows[0].c.p, 2.0 / 924, 1e-9);
	assert_true(t.regressed);
	for (size_t i = 1; i < t.nrows; i++)
		assert_false(t.rows[i].headline);
	/* the per-MB row: per second against the rate, not the latency */
	assert_non_null(h = row_of(&t, "stat.ctxt.per_mb"));
	assert_true(h->per_s_tested);
	assert_float_equal(h->per_s.median_a, 125 * 10 * (1000 + 1.25), 125 * 10 * 1000 * 0.03);
	stats_table_release(&t);
	/* a neutral share: changed, no regression, until told which way is
	 * better; the direction given is the headline's alone */
	l.o.headline = "profile.self.memcpy";
	for (size_t k = 0; k < ARRAY_SIZE(told); k++) {
		l.o.headline_dir = told[k].dir;
		assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
		assert_string_equal(t.rows[0].metric, "profile.self.memcpy");
		assert_int_equal(t.rows[0].dir, told[k].dir);
		assert_int_equal(t.rows[0].c.verdict, told[k].verdict);
		assert_int_equal(t.regressed, told[k].verdict == STATS_REGRESSION);
		assert_int_equal(row_of(&t, "latency.p99_us")->dir, METRIC_LOWER);
		stats_table_release(&t);
	}
	/* a metric no sample has: no headline row */
	l.o.headline = "latency.p99.9_us";
	l.o.headline_dir = METRIC_NEUTRAL;
	assert_int_equal(stats_table_build(l.pa, 6, l.pb, 6, &l.o, &t), 0);
	assert_null(stats_table_headline(&t));
	assert_false(t.regressed);
	stats_table_release(&t);
	two_labels_release(&l);
}

/*
 * With another headline than the rate: the .xcpu_adj row is the rate's
 * alone (its windows and its fit are the rate's), so the samples that
 * make one for the rate (test_table_adjusts_the_headline_for_the_distance)
 * make none for a latency; the .paired row is made for any headline, from
 * the same rounds: a latency 30% higher in B in every round is a paired
 * REGRESSION.
 */
static void test_table_other_headline_paired_not_adjusted(void **state)
{
	static const double xa[] = { 120, 450, 121, 452, 119, 448, 120, 451 };
	static const double xb[] = { 450, 449, 120, 451, 452, 121, 448, 450 };
	static const bool a_first[8] = { true, false, true, true, false, false, true, false };
	double ga[8], gb[8];
	struct base_sample *a, *b;
	const struct base_sample *pa[8], *pb[8];
	const struct stats_row *pr;
	struct stats_table_opts o;
	struct stats_table t;

	(void)state;
	placed(30, xa, 8, ga);
	placed(27, xb, 8, gb);
	a = xcpu_samples(8, ga, xa);
	b = xcpu_samples(8, gb, xb);
	for (size_t i = 0; i < 8; i++) {
		double d = (double)(i % 3);

		assert_int_equal(base_sample_set(&a[i], "latency.p99_us", "us", 100 + 4 * d), 0);
		assert_int_equal(base_sample_set(&b[i], "latency.p99_us", "us", 130 + 5 * d), 0);
	}
	place_rounds(a, b, a_first, 8, pa, pb);
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_true(t.notes.adj_applied);
	assert_true(t.rows[1].adjusted);
	stats_table_release(&t);
	o.headline = "latency.p99_us";
	assert_int_equal(stats_table_build(pa, 8, pb, 8, &o, &t), 0);
	assert_false(t.notes.adj_tested);
	for (size_t i = 0; i < t.nrows; i++)
		assert_false(t.rows[i].adjusted);
	assert_string_equal(t.rows[0].metric, "latency.p99_us");
	assert_int_equal(t.rows[0].c.verdict, STATS_REGRESSION);
	pr = paired_of(&t);
	assert_string_equal(pr->metric, "latency.p99_us.paired");
	assert_int_equal(pr->dir, METRIC_LOWER);
	assert_int_equal(pr->c.verdict, STATS_REGRESSION);
	assert_true(t.paired_regressed);
	stats_table_release(&t);
	free_samples(a, 8);
	free_samples(b, 8);
}

/* stats_table_build() of samples a and b (headlines ga, gb; host.xcpu_ns
 * xa, xb, 6 a side) into t */
static void mix_table(const double *ga, const double *xa, const double *gb, const double *xb,
		      struct stats_table *t)
{
	struct base_sample *a = xcpu_samples(6, ga, xa), *b = xcpu_samples(6, gb, xb);
	const struct base_sample *pa[6], *pb[6];
	struct stats_table_opts o;

	for (size_t i = 0; i < 6; i++) {
		pa[i] = &a[i];
		pb[i] = &b[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, t), 0);
	free_samples(a, 6);
	free_samples(b, 6);
}

/*
 * Both labels at both distances, B far more often: the rank test of
 * host.xcpu_ns cannot call the shift with 6 a side and no slope passes
 * (the rates follow the distance too little against their noise), so the
 * note says how the samples split and gives each label's median at each
 * distance.
 */
static void test_table_notes_a_different_mix_of_two_distances(void **state)
{
	static const double xa[] = { 118, 452, 121, 119, 122, 120 };
	static const double xb[] = { 447, 120, 455, 118, 450, 449 };
	static const double xs[] = { 121, 449, 119, 451, 118, 453 };
	static const double xc[] = { 120, 180, 150, 200, 160, 170 };
	static const double xd[] = { 118, 190, 140, 175, 155, 165 };
	static const double xn[] = { 118, 120, 121, 119, 122, 120 };
	static const double ga[] = { 30.0, 29.0, 30.4, 28.9, 30.2, 29.5 };
	static const double gb[] = { 29.2, 30.3, 30.0, 29.9, 28.8, 29.6 };
	struct stats_table t;
	double x[6];

	(void)state;
	mix_table(ga, xa, gb, xb, &t);
	assert_false(t.notes.xcpu_changed);
	assert_false(t.notes.adj_applied);
	assert_true(t.notes.xcpu_mix);
	assert_true(stats_notes_any(&t.notes));
	assert_float_equal(t.notes.mix.lo_ns[0], 118, 1e-9);
	assert_float_equal(t.notes.mix.hi_ns[0], 122, 1e-9);
	assert_float_equal(t.notes.mix.lo_ns[1], 447, 1e-9);
	assert_float_equal(t.notes.mix.hi_ns[1], 455, 1e-9);
	assert_int_equal(t.notes.mix.n[0], 6);
	assert_int_equal(t.notes.mix.n[1], 6);
	assert_int_equal(t.notes.mix.far[0], 1);
	assert_int_equal(t.notes.mix.far[1], 4);
	/* near: A 30.0 30.4 28.9 30.2 29.5, B 30.3 29.9; far: A 29.0, B
	 * 29.2 30.0 28.8 29.6 */
	assert_float_equal(t.notes.mix.median[0][0], 30.0, 1e-9);
	assert_float_equal(t.notes.mix.median[0][1], 30.1, 1e-9);
	assert_float_equal(t.notes.mix.median[1][0], 29.0, 1e-9);
	assert_float_equal(t.notes.mix.median[1][1], 29.4, 1e-9);
	stats_table_release(&t);
	/* the same share far on both sides (2 of 6): nothing to say */
	mix_table(ga, xs, gb, xs, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
	/* no gap of a move among the round trips (118-200 ns): one distance */
	mix_table(ga, xc, gb, xd, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
	/* B all near, one sample of A far: A 1 of 6, B none there */
	memcpy(x, xa, sizeof(x));
	x[1] = 121;
	x[3] = 900;
	mix_table(ga, x, gb, xn, &t);
	assert_true(t.notes.xcpu_mix);
	assert_int_equal(t.notes.mix.far[0], 1);
	assert_int_equal(t.notes.mix.far[1], 0);
	assert_true(isnan(t.notes.mix.median[1][1]));
	assert_float_equal(t.notes.mix.lo_ns[1], 900, 1e-9);
	stats_table_release(&t);
	/* a sample without a round trip: nothing is said */
	memcpy(x, xa, sizeof(x));
	x[2] = NAN;
	mix_table(ga, x, gb, xb, &t);
	assert_false(t.notes.xcpu_mix);
	stats_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_per_second_scale_of_a_figure_per_unit),
		cmocka_unit_test(test_table_notes_a_host_speed_change),
		cmocka_unit_test(test_table_speed_note_says_whether_the_core_moved),
		cmocka_unit_test(test_table_paired_row_takes_out_what_drifted_between_rounds),
		cmocka_unit_test(test_table_paired_row_is_a_crossover),
		cmocka_unit_test(test_tables_fdr_calls_a_matrix_clean_and_keeps_a_corner),
		cmocka_unit_test(test_tables_fdr_takes_the_paired_rows_as_a_family),
		cmocka_unit_test(test_disturbed_samples_counted_with_the_hosts_steal),
		cmocka_unit_test(test_all_disturbed_side_is_compared_and_noted),
		cmocka_unit_test(test_disturbed_samples_counted_with_other_processes),
		cmocka_unit_test(test_redefined_metrics_noted_where_samples_straddle),
		cmocka_unit_test(test_other_metrics_held_to_their_unit_floor),
		cmocka_unit_test(test_metrics_the_same_everywhere_not_in_the_family),
		cmocka_unit_test(test_table_adjusts_the_headline_for_the_distance),
		cmocka_unit_test(test_table_headline_option_judges_that_metric),
		cmocka_unit_test(test_table_other_headline_paired_not_adjusted),
		cmocka_unit_test(test_table_notes_a_different_mix_of_two_distances),
		cmocka_unit_test(test_table_adjusts_from_the_windows),
		cmocka_unit_test(test_table_adjusted_row_holds_over_the_slope_interval),
		cmocka_unit_test(test_table_counts_mixed_windows_and_their_widest_gap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
