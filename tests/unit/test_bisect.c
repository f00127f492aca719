// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for bisect/ (the decision rule, its error rates, commit ids, the log) and store/bisect.c. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <sqlite3.h>

#include "bisect/commit.h"
#include "bisect/log.h"
#include "bisect/rule.h"
#include "store/bisect.h"
#include "store/store.h"

/*
 * Reference numbers for the position were computed in Python 3.11 (math
 * module only) with the closed form of Fieller's interval as Franz (2007,
 * "Ratios: a short guide to confidence limits and proper use", eq. 5)
 * writes it, not the quadratic the C code solves:
 *
 *   theta = a / b, g = t^2 v22 / b^2, c = theta - g v12 / v22,
 *   half = t / |b| * sqrt(v11 - 2 theta v12 + theta^2 v22
 *                         - g (v11 - v12^2 / v22)),
 *   [lo, hi] = (c -+ half) / (1 - g)
 *
 * with a = mean ln x - mean ln good, b = mean ln bad - mean ln good, the
 * pooled variance s^2 of the three groups, v11 = s^2 (1/n + 1/m),
 * v22 = s^2 (1/k + 1/m), v12 = s^2 / m, and t from published tables of
 * Student's t (NIST/SEMATECH e-Handbook 1.3.6.7.2): t(0.975, 10) =
 * 2.228139, t(0.975, 12) = 2.178813. The clipped SPRT statistic was
 * computed the same way from its definition in bisect/rule.h.
 */

static const double good5[] = { 100, 102, 98, 101, 99 };
static const double bad5[] = { 90, 91, 89, 90.5, 89.5 };

/* ---- the position and its interval ---- */

static void test_position_matches_fieller_closed_form(void **state)
{
	const double x[] = { 95, 96, 94 };
	const double x5[] = { 97, 93, 99, 95, 96 };
	struct bisect_position p;

	(void)state;
	/* df = 4 + 4 + 2 = 10 */
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x, 3, 0.95, &p), 0);
	assert_float_equal(p.pos, 0.48655665285146876, 1e-12);
	assert_float_equal(p.lo, 0.311411045647625, 1e-5);
	assert_float_equal(p.hi, 0.6609443495094067, 1e-5);
	/* df = 12 */
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x5, 5, 0.95, &p), 0);
	assert_float_equal(p.pos, 0.3888, 1e-4);
	assert_float_equal(p.lo, 0.1833, 1e-4);
	assert_float_equal(p.hi, 0.5827, 1e-4);
}

static void test_position_is_the_same_for_an_improvement(void **state)
{
	const double x[] = { 95, 96, 94 };
	struct bisect_position p, q;

	(void)state;
	/* swapping the endpoints mirrors the position: theta -> 1 - theta */
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x, 3, 0.95, &p), 0);
	assert_int_equal(bisect_position(bad5, 5, good5, 5, x, 3, 0.95, &q), 0);
	assert_float_equal(q.pos, 1 - p.pos, 1e-12);
	assert_float_equal(q.lo, 1 - p.hi, 1e-9);
	assert_float_equal(q.hi, 1 - p.lo, 1e-9);
}

static void test_position_unbounded_without_a_significant_gap(void **state)
{
	const double g[] = { 100, 104, 96 }, b[] = { 99, 103, 97 }, x[] = { 100, 98 };
	struct bisect_position p;

	(void)state;
	assert_int_equal(bisect_position(g, 3, b, 3, x, 2, 0.95, &p), 0);
	assert_true(isinf(p.lo) && p.lo < 0);
	assert_true(isinf(p.hi) && p.hi > 0);
}

static void test_position_rejects_bad_input(void **state)
{
	const double x[] = { 95, 0 }, nan_x[] = { 95, NAN };
	struct bisect_position p;

	(void)state;
	assert_int_equal(bisect_position(good5, 1, bad5, 5, x, 1, 0.95, &p), -EINVAL);
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x, 0, 0.95, &p), -EINVAL);
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x, 2, 0.95, &p), -EDOM);
	assert_int_equal(bisect_position(good5, 5, bad5, 5, nan_x, 2, 0.95, &p), -EINVAL);
	assert_int_equal(bisect_position(good5, 5, bad5, 5, x, 1, 1.0, &p), -EINVAL);
	assert_int_equal(bisect_position(NULL, 5, bad5, 5, x, 1, 0.95, &p), -EINVAL);
}

/* ---- single decisions ---- */

static void test_decide_halfway_example_is_partial_with_reference_llr(void **state)
{
	const double x[] = { 95, 96, 94 };
	struct bisect_rule r;
	struct bisect_decision d;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, x, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_PARTIAL);
	assert_int_equal(d.n, 3);
	assert_float_equal(d.llr, -2.921228970324396, 1e-9);
	assert_float_equal(d.llr_bad, log(99), 1e-12);
	assert_float_equal(d.llr_good, -log(99), 1e-12);
	assert_float_equal(d.noise, 0.012371554949039501, 1e-12);
	assert_float_equal(d.gap, log(90) - log(100), 1e-3);
}

static void test_decide_waits_for_min_reps_then_calls_good_and_bad(void **state)
{
	const double g[] = { 100.2, 99.9, 100.1 }, b[] = { 90.1, 89.9, 90.2 };
	struct bisect_rule r;
	struct bisect_decision d;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, g, 0, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_UNDECIDED);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, g, 2, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_UNDECIDED);
	assert_true(d.llr < d.llr_good); /* the SPRT alone would have stopped */
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, g, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_GOOD);
	assert_true(d.pos.hi < 0.5);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, b, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_BAD);
	assert_true(d.pos.lo > 0.5);
	assert_int_equal(bisect_exit_code(d.verdict, d.llr), 1);
}

static void test_decide_far_outside_both_endpoints_aborts(void **state)
{
	const double slow[] = { 75, 76, 74 }, fast[] = { 125, 124, 126 };
	struct bisect_rule r;
	struct bisect_decision d;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, slow, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_ABORT);
	assert_true(d.pos.lo > 2);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, fast, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_ABORT);
	assert_true(d.pos.hi < -1);
	assert_int_equal(bisect_exit_code(d.verdict, d.llr), 128);
	assert_false(bisect_verdict_final(d.verdict));
}

static void test_decide_at_the_cap_partial_or_skip(void **state)
{
	const double between[] = { 97, 93, 99, 95, 96 };
	const double wide[] = { 101, 89, 101, 91, 99 };
	struct bisect_rule r;
	struct bisect_decision d;

	(void)state;
	bisect_rule_init(&r);
	/* below the cap: neither side, not clearly in between: more runs */
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, between, 5, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_UNDECIDED);
	r.max_reps = 5;
	/* at it: [0.18, 0.58] differs from both endpoints: partial, a
	 * finding; git hears the side of the larger part (good: pos < 1/2) */
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, between, 5, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_PARTIAL);
	assert_true(d.pos.lo > 0 && d.pos.lo < r.partial_lo && d.pos.hi < 1);
	assert_true(d.pos.pos < 0.5);
	assert_int_equal(d.toward, BISECT_SIDE_GOOD);
	assert_int_equal(bisect_exit_code(d.verdict, d.llr), 0);
	assert_int_equal(bisect_exit_code(BISECT_PARTIAL, 0.0), 1);
	assert_int_equal(bisect_exit_code(BISECT_PARTIAL, NAN), 125);
	/* an interval that reaches an endpoint: not measured precisely
	 * enough, a skip */
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, wide, 5, &r, &d), 0);
	assert_true(d.pos.lo < 0);
	assert_int_equal(d.verdict, BISECT_SKIP);
	assert_int_equal(bisect_exit_code(d.verdict, d.llr), 125);
	assert_true(bisect_verdict_final(BISECT_SKIP));
}

static void test_rule_check_refuses_bad_parameters(void **state)
{
	struct bisect_rule r;
	struct bisect_decision d;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_rule_check(&r), 0);
	r.max_reps = 2;
	assert_int_equal(bisect_rule_check(&r), -EINVAL);
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, good5, 3, &r, &d), -EINVAL);
	bisect_rule_init(&r);
	r.partial_hi = 0.4;
	assert_int_equal(bisect_rule_check(&r), -EINVAL);
	bisect_rule_init(&r);
	r.alpha = 0;
	assert_int_equal(bisect_rule_check(&r), -EINVAL);
	bisect_rule_init(&r);
	r.abort_hi = 0.9;
	assert_int_equal(bisect_rule_check(&r), -EINVAL);
	assert_int_equal(bisect_rule_check(NULL), -EINVAL);
}

/* ---- error rates on synthetic data (GSL's MT19937, fixed seeds) ---- */

/*
 * trials steps at position theta: fresh endpoints (m good, k bad) each
 * time, lognormal with sd `sd` on the log scale, gap ln(0.9) (a 10%
 * throughput drop); each step runs until the rule decides. contam: the
 * share of runs hit by a slow outlier 3 to 6 sd low (foreign load).
 */
static void simulate(double theta, double sd, double contam, size_t m, size_t k,
		     unsigned trials, unsigned long seed, unsigned counts[BISECT_VERDICT_COUNT],
		     double *mean_reps)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	const double gap = log(0.9);
	struct bisect_rule r;
	double g[64], b[64], x[16], reps = 0;

	assert_non_null(rng);
	gsl_rng_set(rng, seed);
	bisect_rule_init(&r);
	memset(counts, 0, BISECT_VERDICT_COUNT * sizeof(*counts));
	for (unsigned t = 0; t < trials; t++) {
		struct bisect_decision d;
		size_t n = 0;

#define DRAW(mu)                                                             \
	exp((mu) + sd * (contam > 0 && gsl_rng_uniform(rng) < contam ?        \
				 -3 - 3 * gsl_rng_uniform(rng) :              \
				 gsl_ran_gaussian(rng, 1)))
		for (size_t i = 0; i < m; i++)
			g[i] = DRAW(0);
		for (size_t i = 0; i < k; i++)
			b[i] = DRAW(gap);
		do {
			x[n] = DRAW(theta * gap);
			n++;
			assert_int_equal(bisect_decide(g, m, b, k, x, n, &r, &d), 0);
		} while (d.verdict == BISECT_UNDECIDED);
#undef DRAW
		assert_true(n >= r.min_reps && n <= r.max_reps);
		counts[d.verdict]++;
		reps += (double)n;
	}
	*mean_reps = reps / trials;
	gsl_rng_free(rng);
}

#define SHARE(c, v, trials) ((double)(c)[v] / (double)(trials))

static void test_rule_good_and_bad_steps_decide_quickly_and_rightly(void **state)
{
	unsigned c[BISECT_VERDICT_COUNT];
	double reps;

	(void)state;
	/* a quiet machine: 10% gap, 1% noise (gap / noise 10.5), 5 a side */
	simulate(0, 0.01, 0, 5, 5, 2000, 11, c, &reps);
	assert_true(SHARE(c, BISECT_GOOD, 2000) >= 0.99);
	assert_int_equal(c[BISECT_BAD], 0);
	assert_true(reps <= 3.2);
	simulate(1, 0.01, 0, 5, 5, 2000, 12, c, &reps);
	assert_true(SHARE(c, BISECT_BAD, 2000) >= 0.99);
	assert_int_equal(c[BISECT_GOOD], 0);
	assert_true(reps <= 3.2);
	/* a noisy one: 3% noise (gap / noise 3.5) needs 10 a side */
	simulate(0, 0.03, 0, 10, 10, 2000, 13, c, &reps);
	assert_true(SHARE(c, BISECT_GOOD, 2000) >= 0.93);
	assert_true(SHARE(c, BISECT_BAD, 2000) <= 0.01);
	assert_true(reps <= 5.5);
	simulate(1, 0.03, 0, 10, 10, 2000, 14, c, &reps);
	assert_true(SHARE(c, BISECT_BAD, 2000) >= 0.93);
	assert_true(SHARE(c, BISECT_GOOD, 2000) <= 0.01);
	assert_true(reps <= 5.5);
}

static void test_rule_never_forces_a_halfway_step_to_a_side(void **state)
{
	unsigned c[BISECT_VERDICT_COUNT];
	double reps;

	(void)state;
	/* quiet: called partial after the minimum runs */
	simulate(0.5, 0.01, 0, 5, 5, 2000, 21, c, &reps);
	assert_true(SHARE(c, BISECT_PARTIAL, 2000) >= 0.97);
	assert_true(SHARE(c, BISECT_GOOD, 2000) + SHARE(c, BISECT_BAD, 2000) <= 0.02);
	/* noisy: partial or skip, a side at most a few % of the time */
	simulate(0.5, 0.03, 0, 10, 10, 2000, 22, c, &reps);
	assert_true(SHARE(c, BISECT_PARTIAL, 2000) + SHARE(c, BISECT_SKIP, 2000) >= 0.94);
	assert_true(SHARE(c, BISECT_GOOD, 2000) <= 0.03);
	assert_true(SHARE(c, BISECT_BAD, 2000) <= 0.03);
	assert_int_equal(c[BISECT_ABORT], 0);
}

static void test_rule_outliers_cost_runs_not_wrong_verdicts(void **state)
{
	unsigned c[BISECT_VERDICT_COUNT];
	double reps;

	(void)state;
	/* one run in ten 3 to 6 sd slow, on both endpoints and steps */
	simulate(0, 0.01, 0.1, 5, 5, 2000, 31, c, &reps);
	assert_true(SHARE(c, BISECT_BAD, 2000) <= 0.01);
	assert_true(SHARE(c, BISECT_GOOD, 2000) >= 0.9);
	simulate(1, 0.01, 0.1, 5, 5, 2000, 32, c, &reps);
	assert_true(SHARE(c, BISECT_GOOD, 2000) <= 0.01);
	assert_true(SHARE(c, BISECT_BAD, 2000) >= 0.9);
}

static void test_rule_far_steps_abort_and_simulate_agrees(void **state)
{
	unsigned c[BISECT_VERDICT_COUNT];
	struct bisect_rule r;
	struct bisect_sim s, s2;
	double reps;

	(void)state;
	/* 30% below good is 3.4 gaps away: the endpoints moved */
	simulate(3.4, 0.01, 0, 5, 5, 1000, 41, c, &reps);
	assert_true(SHARE(c, BISECT_ABORT, 1000) >= 0.99);
	/* bisect_simulate() (gap / noise 10.5) tells the same as above, and
	 * is deterministic for a seed */
	bisect_rule_init(&r);
	assert_int_equal(bisect_simulate(10.5, 5, 5, &r, 500, 3, &s), 0);
	assert_int_equal(bisect_simulate(10.5, 5, 5, &r, 500, 3, &s2), 0);
	assert_memory_equal(&s, &s2, sizeof(s));
	assert_true(s.right[0] >= 0.99 && s.right[1] >= 0.99);
	assert_true(s.wrong[0] == 0 && s.wrong[1] == 0);
	assert_true(s.reps[0] < 3.2 && s.reps[1] < 3.2);
	assert_int_equal(bisect_simulate(0, 5, 5, &r, 500, 3, &s), -EINVAL);
	assert_int_equal(bisect_simulate(3, 1, 5, &r, 500, 3, &s), -EINVAL);
}

/* ---- bisect start's check of the endpoints ---- */

static void normal_values(double *v, size_t n, double mu, double sd, unsigned long seed)
{
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_rng_set(rng, seed);
	for (size_t i = 0; i < n; i++)
		v[i] = exp(mu + sd * gsl_ran_gaussian(rng, 1));
	gsl_rng_free(rng);
}

static void test_check_endpoints_each_refusal_and_ok(void **state)
{
	struct bisect_start_check c;
	struct bisect_rule r;
	double g[40], b[40];

	(void)state;
	bisect_rule_init(&r);
	/* a clear 10% drop, 0.5% noise: ok, 3 runs a step */
	normal_values(g, 5, 0, 0.005, 1);
	normal_values(b, 5, log(0.9), 0.005, 2);
	assert_int_equal(bisect_check_endpoints(g, 5, b, 5, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_OK);
	assert_true(c.cmp.verdict == STATS_REGRESSION);
	assert_true(c.gap < 0 && c.gap_noise > 10);
	assert_true(c.noise_pct > 0.2 && c.noise_pct < 1);
	assert_true(c.sim.reps[0] < 3.5 && c.sim.reps[1] < 3.5);
	assert_int_equal(c.add_good + c.add_bad, 0);
	/* 4 good samples: add 1 */
	assert_int_equal(bisect_check_endpoints(g, 4, b, 5, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_TOO_FEW);
	assert_int_equal(c.add_good, 1);
	assert_int_equal(c.add_bad, 0);
	/* no change: same */
	normal_values(g, 10, 0, 0.003, 3);
	normal_values(b, 10, 0, 0.003, 4);
	assert_int_equal(bisect_check_endpoints(g, 10, b, 10, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_SAME);
	/* 1% with 0.1% noise: significant, below the 2% that matter */
	normal_values(g, 8, 0, 0.001, 5);
	normal_values(b, 8, log(0.99), 0.001, 6);
	assert_int_equal(bisect_check_endpoints(g, 8, b, 8, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_MINOR);
	/* ...which --min-change 0.5 would bisect */
	assert_int_equal(bisect_check_endpoints(g, 8, b, 8, STATS_HIGHER, 0.5, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_OK);
	/* 5% noise, 5 a side: not significant yet, with runs to add */
	normal_values(g, 5, 0, 0.05, 7);
	normal_values(b, 5, log(0.97), 0.05, 8);
	assert_int_equal(bisect_check_endpoints(g, 5, b, 5, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_INCONCLUSIVE);
	assert_true(c.add_good > 0 && c.add_bad > 0);
	/* 10% drop, 3.2% noise: significant, but steps need more endpoint data */
	for (size_t i = 0; i < 40; i++) {
		static const double spread[] = { 1.0, 1.04, 0.96, 1.02, 0.98 };

		g[i] = 100 * spread[i % 5];
		b[i] = 90 * spread[i % 5];
	}
	assert_int_equal(bisect_check_endpoints(g, 5, b, 5, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_TOO_NOISY);
	assert_true(c.cmp.verdict == STATS_REGRESSION);
	assert_true(c.sim.right[0] < BISECT_START_DECIDED || c.sim.right[1] < BISECT_START_DECIDED);
	assert_true(c.add_good > 0 && c.add_good == c.add_bad && 5 + c.add_good <= 40);
	/* and with what it asked for added, it starts */
	{
		size_t ng = 5 + c.add_good, nb = 5 + c.add_bad;

		assert_int_equal(bisect_check_endpoints(g, ng, b, nb, STATS_HIGHER, 2, &r, &c), 0);
		assert_int_equal(c.status, BISECT_START_OK);
	}
}

/*
 * One disturbed run among an endpoint's five (as happened on this machine:
 * TBF at 180mbit gave 0.1787 Gbps four times and 0.1400 once) is set
 * aside, instead of making the noise 5% and refusing the bisect.
 */
static void test_check_endpoints_sets_aside_a_disturbed_endpoint_run(void **state)
{
	const double g[] = { 0.1997, 0.1991, 0.2003, 0.1987, 0.1999 };
	const double b[] = { 0.1797, 0.1790, 0.1400, 0.1801, 0.1787 };
	const double step_bad[] = { 0.1795, 0.1789, 0.1799 };
	struct bisect_start_check c;
	struct bisect_decision d;
	struct bisect_rule r;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_check_endpoints(g, 5, b, 5, STATS_HIGHER, 2, &r, &c), 0);
	assert_int_equal(c.status, BISECT_START_OK);
	assert_int_equal(c.out_good, 0);
	assert_int_equal(c.out_bad, 1);
	assert_true(c.noise_pct < 0.5);
	assert_float_equal(c.gap, log(0.17935 / 0.19954), 0.002);
	assert_int_equal(bisect_decide(g, 5, b, 5, step_bad, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_BAD);
	assert_int_equal(d.out_bad, 1);
	assert_true(d.pos.lo > 0.9 && d.pos.hi < 1.1);
}

/*
 * A wild run of a step (here: a 12% dip among runs 0.3% apart, as seen on
 * this machine) is set aside once a step has 4 runs; with 3 it widens the
 * interval and the step runs on.
 */
static void test_decide_sets_aside_a_wild_step_run_from_four_runs(void **state)
{
	const double g[] = { 0.19867, 0.1996, 0.19978, 0.2003, 0.1987 };
	const double b[] = { 0.17974, 0.17973, 0.18083, 0.1787, 0.1797 };
	const double x[] = { 0.17524, 0.19979, 0.19972, 0.19793 };
	const double mild[] = { 100.1, 99.9, 100.2, 97 };
	struct bisect_decision d;
	struct bisect_rule r;

	(void)state;
	bisect_rule_init(&r);
	assert_int_equal(bisect_decide(g, 5, b, 5, x, 3, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_UNDECIDED);
	assert_int_equal(d.out_step, 0);
	assert_true(d.pos.lo < 0 && d.pos.hi > 0.5);
	assert_int_equal(bisect_decide(g, 5, b, 5, x, 4, &r, &d), 0);
	assert_int_equal(d.verdict, BISECT_GOOD);
	assert_int_equal(d.out_step, 1);
	assert_true(d.pos.hi < 0.1);
	/* a run 3% low at 1.2% noise is within 5 robust sd: kept */
	assert_int_equal(bisect_decide(good5, 5, bad5, 5, mild, 4, &r, &d), 0);
	assert_int_equal(d.out_step, 0);
	assert_float_equal(d.pos.pos, 0.07, 0.01);
}

/* ---- names, exit codes, commit ids ---- */

static void test_verdict_names_parse_and_exit_codes(void **state)
{
	static const int codes[BISECT_VERDICT_COUNT] = {
		[BISECT_UNDECIDED] = 125, [BISECT_GOOD] = 0, [BISECT_BAD] = 1,
		[BISECT_PARTIAL] = 1, [BISECT_SKIP] = 125, [BISECT_ABORT] = 128,
	};
	enum bisect_verdict v;

	(void)state;
	for (int i = 0; i < BISECT_VERDICT_COUNT; i++) {
		assert_int_equal(bisect_verdict_parse(bisect_verdict_name(i), &v), 0);
		assert_int_equal(v, i);
		assert_int_equal(bisect_exit_code(i, 1.5), codes[i]);
	}
	assert_string_equal(bisect_verdict_name(BISECT_PARTIAL), "partial");
	assert_string_equal(bisect_verdict_name(BISECT_VERDICT_COUNT), "?");
	assert_int_equal(bisect_verdict_parse("Good", &v), -EINVAL);
	assert_int_equal(bisect_verdict_parse(NULL, &v), -EINVAL);
}

static void test_commit_ids_valid_and_short(void **state)
{
	char s[32];

	(void)state;
	assert_true(bisect_commit_valid("6.8.0-rc1-00123-gabcdef012345"));
	assert_true(bisect_commit_valid("0123456789abcdef0123456789abcdef01234567"));
	assert_false(bisect_commit_valid(""));
	assert_false(bisect_commit_valid("a b"));
	assert_false(bisect_commit_valid("tab\there"));
	memset(s, 'a', sizeof(s) - 1);
	s[31] = '\0';
	assert_true(bisect_commit_valid(s));
	bisect_commit_short("0123456789abcdef0123456789abcdef01234567", s, sizeof(s));
	assert_string_equal(s, "0123456789ab");
	bisect_commit_short("6.8.0-rc1", s, sizeof(s));
	assert_string_equal(s, "6.8.0-rc1");
	bisect_commit_short("0123456789ABCDEF0123456789abcdef01234567", s, sizeof(s));
	assert_string_equal(s, "0123456789ABCDEF0123456789abcde"); /* not hex-lowercase: whole, cut */
	bisect_commit_short("abcdef", s, 4);
	assert_string_equal(s, "abc");
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	return rc == -1 ? -1 : WEXITSTATUS(rc);
}

static void test_commit_git_reads_head_and_parent(void **state)
{
	char dir[] = "/tmp/nr-test-bisect-git.XXXXXX", cmd[512], head[72], parent[72];
	char want[72] = "";
	struct base_err err = { "" };
	FILE *f;

	(void)state;
	if (sh("git --version >/dev/null 2>&1")) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd),
		 "cd %s && git init -q . && for i in 1 2; do echo $i >f; git add f; "
		 "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t.invalid GIT_COMMITTER_NAME=t "
		 "GIT_COMMITTER_EMAIL=t@t.invalid git commit -q -m $i; done && "
		 "git rev-parse HEAD~1 >parent.txt", dir);
	assert_int_equal(sh(cmd), 0);
	snprintf(cmd, sizeof(cmd), "%s/parent.txt", dir);
	f = fopen(cmd, "r");
	assert_non_null(f);
	assert_non_null(fgets(want, sizeof(want), f));
	fclose(f);
	want[strcspn(want, "\n")] = '\0';
	assert_int_equal(bisect_commit_git(dir, "HEAD", head, sizeof(head), &err), 0);
	assert_int_equal(strlen(head), 40);
	snprintf(cmd, sizeof(cmd), "%s^", head);
	assert_int_equal(bisect_commit_git(dir, cmd, parent, sizeof(parent), &err), 0);
	assert_string_equal(parent, want);
	/* the root commit has no parent; a label is no revision */
	snprintf(cmd, sizeof(cmd), "%s^", parent);
	assert_int_equal(bisect_commit_git(dir, cmd, parent, sizeof(parent), &err), -ENOENT);
	assert_non_null(strstr(err.msg, "names no commit"));
	assert_int_equal(bisect_commit_git(dir, "no-such-label", head, sizeof(head), &err), -ENOENT);
	assert_int_equal(bisect_commit_git("/nonexistent-nr", "HEAD", head, sizeof(head), &err), -ENOENT);
	assert_int_equal(bisect_commit_git(dir, "--all", head, sizeof(head), &err), -EINVAL);
	assert_int_equal(bisect_commit_git(dir, "HEAD", head, 40, &err), -EINVAL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(sh(cmd), 0);
}

static void test_commit_kernel_is_uname_release(void **state)
{
	char k[128];
	struct base_err err;

	(void)state;
	assert_int_equal(bisect_commit_kernel(k, sizeof(k), &err), 0);
	assert_true(bisect_commit_valid(k));
	assert_int_equal(bisect_commit_kernel(k, 2, &err), -EINVAL);
}

/* ---- the log ---- */

#define C0 "0000000000000000000000000000000000000000" /* the good endpoint */
#define C4 "4444444444444444444444444444444444444444"
#define C6 "6666666666666666666666666666666666666666"
#define C7 "7777777777777777777777777777777777777777"
#define C8 "8888888888888888888888888888888888888888"

static const double v_good[] = { 0.2, 0.201, 0.199 };
static const double v_bad[] = { 0.18, 0.181, 0.179 };
static const double v_half[] = { 0.19, 0.191, 0.189, 0.19 };

static void make_log(struct bisect_log *l, struct bisect_log_step *s)
{
	memset(l, 0, sizeof(*l));
	memset(s, 0, 4 * sizeof(*s));
	/* git tested 8 (bad), 4 (good), 6 (good), 7 (bad): 7 is the first bad */
	s[0] = (struct bisect_log_step){ .commit = C8, .verdict = BISECT_BAD, .n = 3,
		.values = v_bad, .nvalues = 3, .pos = { 1.0, 0.95, 1.05 }, .parent = C7 };
	s[1] = (struct bisect_log_step){ .commit = C4, .verdict = BISECT_GOOD, .n = 3,
		.values = v_good, .nvalues = 3, .pos = { 0.0, -0.05, 0.05 } };
	s[2] = (struct bisect_log_step){ .commit = C6, .verdict = BISECT_GOOD, .n = 3,
		.values = v_good, .nvalues = 3, .pos = { 0.01, -0.04, 0.06 } };
	s[3] = (struct bisect_log_step){ .commit = C7, .verdict = BISECT_BAD, .n = 3,
		.values = v_bad, .nvalues = 3, .pos = { 0.99, 0.94, 1.04 }, .parent = C6 };
	l->id = 2;
	l->good_label = "v6.7";
	l->bad_label = "v6.8";
	l->config_key = "test=tcp_stream";
	l->metric = "throughput.gbps";
	l->unit = "Gbps";
	l->good = good5;
	l->ngood = 5;
	l->bad = bad5;
	l->nbad = 5;
	l->conf = 0.95;
	l->steps = s;
	l->nsteps = 4;
}

static char *text_of(const struct bisect_log *l)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	bisect_log_text(f, l);
	fclose(f);
	return buf;
}

static void test_log_names_and_confirms_the_culprit(void **state)
{
	struct bisect_log l;
	struct bisect_log_step s[4];
	json_t *doc, *c;
	char *t;

	(void)state;
	make_log(&l, s);
	s[1].parent = C0;
	s[2].parent = C4;
	s[1].ndisturbed = 1;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &s[3]);
	assert_int_equal(l.ncandidates, 1);
	assert_string_equal(l.parent_source, "step");
	assert_false(s[0].candidate); /* its parent 7 is bad */
	assert_float_equal(s[0].median, 0.18, 1e-12);
	assert_float_equal(l.median_good, 100, 1e-12);
	/* Hodges-Lehmann of 3 against 3: the 9 ratios' median, -10% */
	assert_float_equal(l.shift_pct, -10.0, 0.6);
	assert_true(l.shift_lo_pct < l.shift_pct && l.shift_pct < l.shift_hi_pct);
	assert_float_equal(l.gap_pct, -10, 0.5);
	t = text_of(&l);
	assert_non_null(strstr(t, "bisect 2: throughput.gbps, test=tcp_stream\n"));
	assert_non_null(strstr(t, "good v6.7"));
	assert_non_null(strstr(t, "commit        verdict      n  median      runs"));
	assert_non_null(strstr(t, "888888888888  bad          3  0.18        0.18 0.181 0.179               1.00 [0.95, 1.05]\n"));
	assert_non_null(strstr(t, "777777777777  bad          3  0.18        0.18 0.181 0.179               0.99 [0.94, 1.04]  <- first bad commit\n"));
	assert_non_null(strstr(t, "444444444444  good         3  0.2         0.2 0.201 0.199 (1 disturbed)  0.00 [-0.05, 0.05]\n"));
	assert_non_null(strstr(t, "first bad commit: " C7 ", confirmed: its parent 666666666666 was decided good with data (step); -10."));
	free(t);
	doc = bisect_log_json(&l);
	assert_non_null(doc);
	c = json_object_get(doc, "culprit");
	assert_string_equal(json_string_value(json_object_get(c, "commit")), C7);
	assert_string_equal(json_string_value(json_object_get(c, "parent")), C6);
	assert_true(json_is_true(json_object_get(c, "confirmed")));
	assert_int_equal(json_array_size(json_object_get(doc, "steps")), 4);
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(doc, "steps"), 0), "values")), 3);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(doc, "steps"), 1), "disturbed")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "bisect"), "good")), "v6.7");
	json_decref(doc);
}

static void test_log_confirms_against_the_good_endpoint(void **state)
{
	struct bisect_log l;
	struct bisect_log_step s[4];

	(void)state;
	make_log(&l, s);
	/* only 8 was measured, and its parent is the good endpoint */
	s[0].parent = C0;
	l.nsteps = 1;
	l.good_commit = C0;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &s[0]);
	assert_string_equal(l.parent_source, "good endpoint");
	assert_ptr_equal(l.parent_values, good5);
	/* without knowing what the good label is in git: not confirmed */
	l.good_commit = NULL;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_null(l.culprit);
	assert_non_null(strstr(l.note, "no bad commit has a parent decided good"));
}

/* git never tests the bad endpoint: when every step was good, it is the
 * culprit, confirmed when its parent was decided good */
static void test_log_confirms_the_bad_endpoint_as_culprit(void **state)
{
	struct bisect_log l;
	struct bisect_log_step s[4];
	json_t *doc;
	char *t;

	(void)state;
	make_log(&l, s);
	l.steps = &s[1]; /* 4 and 6 good */
	l.nsteps = 2;
	l.bad_commit = C7;
	l.bad_parent = C6;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &l.bad_step);
	assert_string_equal(l.culprit_source, "bad endpoint");
	assert_ptr_equal(l.culprit->values, bad5);
	assert_string_equal(l.parent_source, "step");
	t = text_of(&l);
	assert_non_null(strstr(t, "first bad commit: " C7 " (the bad endpoint), confirmed: its parent 666666666666"));
	free(t);
	doc = bisect_log_json(&l);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "culprit"), "source")),
			    "bad endpoint");
	json_decref(doc);
	/* a step of that commit is the one to use */
	make_log(&l, s);
	l.bad_commit = C7;
	l.bad_parent = C6;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &s[3]);
	assert_string_equal(l.culprit_source, "step");
}

static void test_log_never_names_an_unconfirmed_or_ambiguous_culprit(void **state)
{
	struct bisect_log l;
	struct bisect_log_step s[4];
	json_t *doc;
	char *t;

	(void)state;
	/* no parents known */
	make_log(&l, s);
	s[0].parent = s[3].parent = NULL;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_null(l.culprit);
	assert_non_null(strstr(l.note, "--repo"));
	t = text_of(&l);
	assert_non_null(strstr(t, "no culprit confirmed: no parents known"));
	free(t);
	doc = bisect_log_json(&l);
	assert_true(json_is_null(json_object_get(doc, "culprit")));
	json_decref(doc);
	/* the parent sits halfway without a side (no likelihood ratio, as
	 * stored before partial steps told git a side): nothing is confirmed */
	make_log(&l, s);
	s[2].verdict = BISECT_PARTIAL;
	s[2].values = v_half;
	s[2].nvalues = 4;
	s[2].pos = (struct bisect_position){ 0.5, -INFINITY, INFINITY };
	s[2].llr = NAN;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_null(l.culprit);
	t = text_of(&l);
	assert_non_null(strstr(t, "666666666666  partial      3  0.19        0.19 0.191 0.189 0.19  0.50 [-inf, inf]\n"));
	free(t);
	doc = bisect_log_json(&l);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "steps"), 2), "position_lo")));
	json_decref(doc);
	/* a partial parent git was told good (llr < 0) confirms the culprit
	 * of the larger part, and the log lists it as a finding */
	make_log(&l, s);
	s[2].verdict = BISECT_PARTIAL;
	s[2].values = v_half;
	s[2].nvalues = 4;
	s[2].pos = (struct bisect_position){ 0.4, 0.3, 0.5 };
	s[2].llr = -6;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &s[3]);
	t = text_of(&l);
	assert_non_null(strstr(t, "partial steps (between the sides"));
	assert_non_null(strstr(t, "  666666666666  level 0.19 Gbps, 0.40 [0.30, 0.50] of the way to bad, told good\n"));
	free(t);
	/* a partial step git was told bad, whose parent is good: the culprit */
	make_log(&l, s);
	s[3].verdict = BISECT_PARTIAL;
	s[3].llr = 6;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_ptr_equal(l.culprit, &s[3]);
	doc = bisect_log_json(&l);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(doc, "steps"), 3), "toward")), "bad");
	json_decref(doc);
	/* two bad commits with good parents: not monotone, none named */
	make_log(&l, s);
	s[0].parent = C4;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_null(l.culprit);
	assert_int_equal(l.ncandidates, 2);
	assert_non_null(strstr(l.note, "2 bad commits"));
	/* a good verdict without data does not confirm */
	make_log(&l, s);
	s[2].n = 0;
	assert_int_equal(bisect_log_finish(&l), 0);
	assert_null(l.culprit);
}

/* ---- the store's bisect tables ---- */

static struct store *mem_store(void)
{
	struct base_err err = { "" };
	struct store *st = NULL;

	assert_int_equal(store_open(":memory:", STORE_CREATE, &st, &err), 0);
	return st;
}

static void fill_bisect(struct store_bisect *b, const char *good)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->good_label, sizeof(b->good_label), "%s", good);
	snprintf(b->bad_label, sizeof(b->bad_label), "bad");
	snprintf(b->config_key, sizeof(b->config_key), "test=tcp_stream");
	snprintf(b->metric, sizeof(b->metric), "throughput.gbps");
	b->config = strdup("{\"test\": \"tcp_stream\"}");
	b->alpha = b->beta = 0.01;
	b->conf = 0.95;
	b->side_conf = 0.99;
	b->min_change_pct = 2;
	b->min_reps = 3;
	b->max_reps = 10;
}

static int count_steps(void *ctx, const struct store_bisect_step *s)
{
	int *n = ctx;

	assert_int_equal(s->step_order, *n + 1);
	(*n)++;
	return 0;
}

static void test_store_bisects_and_steps_round_trip(void **state)
{
	struct base_err err = { "" };
	struct store *st = mem_store();
	struct store_bisect a, b, got;
	struct store_bisect_step s, r;
	char label[128];
	int n = 0;

	(void)state;
	assert_int_equal(store_bisect_get(st, 0, &got, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no bisect"));
	fill_bisect(&a, "good-a");
	fill_bisect(&b, "good-b");
	assert_int_equal(store_bisect_add(st, &a, &err), 0);
	assert_int_equal(store_bisect_add(st, &b, &err), 0);
	assert_int_equal(a.id, 1);
	assert_int_equal(b.id, 2);
	/* 0 is the newest */
	assert_int_equal(store_bisect_get(st, 0, &got, &err), 0);
	assert_int_equal(got.id, 2);
	assert_string_equal(got.good_label, "good-b");
	assert_string_equal(got.config, "{\"test\": \"tcp_stream\"}");
	assert_float_equal(got.side_conf, 0.99, 0);
	assert_int_equal(got.max_reps, 10);
	store_bisect_release(&got);
	assert_int_equal(store_bisect_get(st, 1, &got, &err), 0);
	assert_string_equal(got.good_label, "good-a");
	store_bisect_release(&got);
	assert_int_equal(store_bisect_get(st, 9, &got, &err), -ENOENT);

	/* a step: inserted, then updated in place */
	assert_int_equal(store_bisect_step_label(1, "abc", label, sizeof(label)), 0);
	assert_string_equal(label, "bisect:1:abc");
	memset(&s, 0, sizeof(s));
	s.bisect_id = 1;
	snprintf(s.commit, sizeof(s.commit), "abc");
	snprintf(s.label, sizeof(s.label), "%s", label);
	snprintf(s.verdict, sizeof(s.verdict), "undecided");
	s.n = 1;
	s.position = NAN;
	s.position_lo = -INFINITY;
	s.position_hi = INFINITY;
	s.llr = NAN;
	s.updated_at_ns = 1000;
	assert_int_equal(store_bisect_step_get(st, 1, "abc", &r, &err), -ENOENT);
	assert_int_equal(store_bisect_step_put(st, &s, &err), 0);
	assert_int_equal(store_bisect_step_get(st, 1, "abc", &r, &err), 0);
	assert_int_equal(r.step_order, 1);
	assert_int_equal(r.first_at_ns, 1000);
	assert_true(isnan(r.position) && isnan(r.llr));
	assert_true(isinf(r.position_lo) && r.position_lo < 0 && isinf(r.position_hi));
	snprintf(s.verdict, sizeof(s.verdict), "good");
	s.n = 3;
	s.position = 0.01;
	s.position_lo = -0.1;
	s.position_hi = 0.12;
	s.llr = -40;
	s.updated_at_ns = 2000;
	assert_int_equal(store_bisect_step_put(st, &s, &err), 0);
	assert_int_equal(store_bisect_step_get(st, 1, "abc", &r, &err), 0);
	assert_string_equal(r.verdict, "good");
	assert_int_equal(r.n, 3);
	assert_int_equal(r.step_order, 1);
	assert_int_equal(r.first_at_ns, 1000);
	assert_int_equal(r.updated_at_ns, 2000);
	assert_float_equal(r.position_hi, 0.12, 0);
	/* steps of one bisect are numbered on their own */
	snprintf(s.commit, sizeof(s.commit), "def");
	assert_int_equal(store_bisect_step_put(st, &s, &err), 0);
	s.bisect_id = 2;
	assert_int_equal(store_bisect_step_put(st, &s, &err), 0);
	assert_int_equal(store_bisect_step_get(st, 2, "def", &r, &err), 0);
	assert_int_equal(r.step_order, 1);
	assert_int_equal(store_bisect_steps(st, 1, count_steps, &n, &err), 0);
	assert_int_equal(n, 2);
	/* no such bisect; a commit that does not fit */
	s.bisect_id = 7;
	assert_int_equal(store_bisect_step_put(st, &s, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "no bisect 7"));
	assert_int_equal(store_bisect_step_label(1, "0123456789012345678901234567890123456789"
						   "0123456789012345678901234567890123456789"
						   "0123456789012345678901234567890123456789",
						 label, sizeof(label)), -EINVAL);
	store_bisect_release(&a);
	store_bisect_release(&b);
	store_close(st);
}

static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static long long raw_int(const char *path, const char *sql)
{
	sqlite3_stmt *q;
	sqlite3 *db;
	long long v;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

static void test_store_migrates_a_version_2_store_to_3(void **state)
{
	char dir[] = "/tmp/nr-test-bisect-store.XXXXXX", path[128], cmd[160];
	struct base_err err = { "" };
	struct store_bisect b, got;
	struct store *st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/v2.db", dir);
	/* a version 2 store: what this code creates, less version 3's step */
	assert_int_equal(store_open(path, STORE_CREATE, &st, &err), 0);
	store_close(st);
	raw_exec(path, "DROP TABLE bisect_steps; DROP TABLE bisects; PRAGMA user_version = 2");
	/* read-only, it is read as it is: there is no bisect in it */
	assert_int_equal(store_open(path, STORE_READONLY, &st, &err), 0);
	assert_int_equal(store_bisect_get(st, 0, &got, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "schema version 2 has no bisect tables"));
	store_close(st);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 2);
	/* a write open migrates it */
	assert_int_equal(store_open(path, 0, &st, &err), 0);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 3);
	fill_bisect(&b, "g");
	assert_int_equal(store_bisect_add(st, &b, &err), 0);
	assert_int_equal(store_bisect_get(st, 0, &got, &err), 0);
	assert_int_equal(got.id, 1);
	store_bisect_release(&got);
	store_bisect_release(&b);
	store_close(st);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM bisects"), 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(sh(cmd), 0);
}

/* The step's runs the host placed where no endpoint run was: marked, the
 * others (and runs without a round trip) not; untested when an endpoint
 * run has none. */
static void test_placed_elsewhere_marks_runs_beyond_the_endpoints(void **state)
{
	/* the endpoints far apart (the EPYC guest's 404-496 ns) */
	static const double gx[] = { 440, 452, 404, 470, 461 }, bx[] = { 496, 430, 455, 441, 448 };
	/* near (115), far, far beyond (760), just inside 1.5x, no figure */
	static const double sx[] = { 115, 450, 760, 740, NAN, 0, 270, 269 };
	static const bool want[] = { true, false, true, false, false, false, false, true };
	double holes[5];
	bool el[8];
	struct bisect_placement p;

	(void)state;
	assert_int_equal(bisect_placed_elsewhere(gx, 5, bx, 5, sx, 8, el, &p), 0);
	assert_true(p.tested);
	assert_float_equal(p.lo_ns, 404, 1e-9);
	assert_float_equal(p.hi_ns, 496, 1e-9);
	assert_int_equal(p.elsewhere, 3);
	assert_memory_equal(el, want, sizeof(want));
	/* endpoints that ran at both placements: nothing is elsewhere */
	memcpy(holes, gx, sizeof(holes));
	holes[2] = 118;
	assert_int_equal(bisect_placed_elsewhere(holes, 5, bx, 5, sx, 8, el, &p), 0);
	assert_true(p.tested);
	assert_int_equal(p.elsewhere, 1); /* 760 >= 1.5 x 496 */
	assert_true(el[2] && !el[0]);
	/* an endpoint run without a round trip (--no-collect, a remote
	 * server): not tested, nothing marked */
	holes[2] = NAN;
	assert_int_equal(bisect_placed_elsewhere(holes, 5, bx, 5, sx, 8, el, &p), 0);
	assert_false(p.tested);
	assert_int_equal(p.elsewhere, 0);
	for (size_t i = 0; i < 8; i++)
		assert_false(el[i]);
	/* no step runs yet; NULL */
	assert_int_equal(bisect_placed_elsewhere(gx, 5, bx, 5, NULL, 0, NULL, &p), 0);
	assert_true(p.tested && !p.elsewhere);
	assert_int_equal(bisect_placed_elsewhere(NULL, 5, bx, 5, sx, 8, el, &p), -EINVAL);
	assert_int_equal(bisect_placed_elsewhere(gx, 5, bx, 5, sx, 8, NULL, &p), -EINVAL);
	assert_int_equal(bisect_placed_elsewhere(gx, 5, bx, 5, sx, 8, el, NULL), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placed_elsewhere_marks_runs_beyond_the_endpoints),
		cmocka_unit_test(test_position_matches_fieller_closed_form),
		cmocka_unit_test(test_position_is_the_same_for_an_improvement),
		cmocka_unit_test(test_position_unbounded_without_a_significant_gap),
		cmocka_unit_test(test_position_rejects_bad_input),
		cmocka_unit_test(test_decide_halfway_example_is_partial_with_reference_llr),
		cmocka_unit_test(test_decide_waits_for_min_reps_then_calls_good_and_bad),
		cmocka_unit_test(test_decide_far_outside_both_endpoints_aborts),
		cmocka_unit_test(test_decide_at_the_cap_partial_or_skip),
		cmocka_unit_test(test_rule_check_refuses_bad_parameters),
		cmocka_unit_test(test_rule_good_and_bad_steps_decide_quickly_and_rightly),
		cmocka_unit_test(test_rule_never_forces_a_halfway_step_to_a_side),
		cmocka_unit_test(test_rule_outliers_cost_runs_not_wrong_verdicts),
		cmocka_unit_test(test_rule_far_steps_abort_and_simulate_agrees),
		cmocka_unit_test(test_check_endpoints_each_refusal_and_ok),
		cmocka_unit_test(test_check_endpoints_sets_aside_a_disturbed_endpoint_run),
		cmocka_unit_test(test_decide_sets_aside_a_wild_step_run_from_four_runs),
		cmocka_unit_test(test_verdict_names_parse_and_exit_codes),
		cmocka_unit_test(test_commit_ids_valid_and_short),
		cmocka_unit_test(test_commit_git_reads_head_and_parent),
		cmocka_unit_test(test_commit_kernel_is_uname_release),
		cmocka_unit_test(test_log_names_and_confirms_the_culprit),
		cmocka_unit_test(test_log_confirms_against_the_good_endpoint),
		cmocka_unit_test(test_log_confirms_the_bad_endpoint_as_culprit),
		cmocka_unit_test(test_log_never_names_an_unconfirmed_or_ambiguous_culprit),
		cmocka_unit_test(test_store_bisects_and_steps_round_trip),
		cmocka_unit_test(test_store_migrates_a_version_2_store_to_3),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
