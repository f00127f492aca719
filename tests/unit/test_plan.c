// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for job/plan: seeded interleaved run order, resume, expected duration. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/time.h"
#include "job/plan.h"

/* Two labels: whether A's unit of configuration `pair` runs first in round
 * `round`, as job_plan_label_order() orders them. */
static bool a_first(uint64_t seed, size_t pair, unsigned round)
{
	size_t order[2];

	job_plan_label_order(seed, pair, round, 2, order);
	return order[0] == 0;
}

/* Steps compare field by field: the struct has padding. */
static bool same_steps(const struct job_plan_step *a,
		       const struct job_plan_step *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].cell != b[i].cell || a[i].rep != b[i].rep)
			return false;
	return true;
}

static struct job_plan_step *make_ok(size_t ncells, unsigned reps,
				     uint64_t seed, size_t *n)
{
	struct job_plan_step *steps = NULL;
	int ret = job_plan_make(ncells, reps, seed, &steps, n);

	if (ret)
		fail_msg("job_plan_make(%zu, %u, %llu) = %d", ncells, reps,
			 (unsigned long long)seed, ret);
	return steps;
}

/* Every (cell, rep) once, each cell's reps in increasing order. */
static void check_complete(const struct job_plan_step *s, size_t n,
			   size_t ncells, unsigned reps)
{
	unsigned *next = calloc(ncells, sizeof(*next));

	assert_non_null(next);
	assert_int_equal(n, ncells * reps);
	for (size_t i = 0; i < n; i++) {
		assert_true(s[i].cell < ncells);
		if (s[i].rep != next[s[i].cell])
			fail_msg("step %zu: cell %zu rep %u, want rep %u", i,
				 s[i].cell, s[i].rep, next[s[i].cell]);
		next[s[i].cell]++;
	}
	for (size_t c = 0; c < ncells; c++)
		assert_int_equal(next[c], reps);
	free(next);
}

static void test_every_cell_and_rep_runs_exactly_once(void **state)
{
	(void)state;
	for (size_t ncells = 1; ncells <= 12; ncells++) {
		for (unsigned reps = 1; reps <= 7; reps++) {
			for (uint64_t seed = 0; seed < 20; seed++) {
				size_t n;
				struct job_plan_step *s = make_ok(ncells, reps, seed, &n);

				check_complete(s, n, ncells, reps);
				free(s);
			}
		}
	}
}

static void test_no_cell_runs_twice_in_a_row_with_three_cells_or_more(void **state)
{
	(void)state;
	for (size_t ncells = 3; ncells <= 12; ncells++) {
		for (unsigned reps = 1; reps <= 8; reps++) {
			for (uint64_t seed = 0; seed < 200; seed++) {
				size_t n;
				struct job_plan_step *s = make_ok(ncells, reps, seed, &n);

				for (size_t i = 1; i < n; i++)
					if (s[i].cell == s[i - 1].cell)
						fail_msg("ncells %zu reps %u seed %llu: cell %zu at steps %zu and %zu",
							 ncells, reps,
							 (unsigned long long)seed,
							 s[i].cell, i - 1, i);
				free(s);
			}
		}
	}
}

/* Two cells (an A/B of two labels): both orders, as many rounds of each as
 * the repetitions allow, in a drawn sequence, not the one alternation a
 * rule against repeats would leave. */
static void test_two_cells_run_both_orders_in_equal_numbers(void **state)
{
	unsigned plans_with_a_repeat = 0, first_b = 0, seeds = 400;

	(void)state;
	for (unsigned reps = 1; reps <= 9; reps++) {
		for (uint64_t seed = 0; seed < seeds; seed++) {
			size_t n, a_first = 0;
			struct job_plan_step *s = make_ok(2, reps, seed, &n);
			bool repeat = false;

			for (unsigned r = 0; r < reps; r++) {
				assert_int_equal(s[2 * r].rep, r);
				assert_int_equal(s[2 * r + 1].rep, r);
				assert_int_equal(s[2 * r].cell + s[2 * r + 1].cell, 1);
				a_first += s[2 * r].cell == 0;
				repeat |= r && s[2 * r].cell == s[2 * r - 1].cell;
			}
			if (a_first != reps / 2 && a_first != (reps + 1) / 2)
				fail_msg("reps %u seed %llu: cell 0 first in %zu rounds",
					 reps, (unsigned long long)seed, a_first);
			plans_with_a_repeat += repeat;
			first_b += reps == 1 && s[0].cell == 1;
			/* resume keeps such a plan's repeats where they are */
			{
				struct job_plan_step *c = malloc(n * sizeof(*c));
				const unsigned none[2] = { 0, 0 };
				size_t m = n;

				assert_non_null(c);
				memcpy(c, s, n * sizeof(*c));
				assert_int_equal(job_plan_resume(c, &m, 2, none), 0);
				assert_int_equal(m, n);
				assert_true(same_steps(c, s, n));
				free(c);
			}
			free(s);
		}
	}
	/* one round: either order, about as often (400 draws: 200 +- 10
	 * sd; 150..250 is 5 sd) */
	assert_in_range(first_b, 150, 250);
	/* a round of order AB ends with B, and the next starts with B
	 * exactly when it is BA: with both orders in every plan of two
	 * rounds or more, each has a cell twice in a row somewhere */
	assert_int_equal(plans_with_a_repeat, 8 * seeds);
}

/* Whether pair p (units p and p + pairs) runs A's unit first in the n
 * steps of s; each must be there once. */
static bool a_runs_first(const struct job_plan_step *s, size_t n, size_t pairs, size_t p)
{
	size_t ia = n, ib = n;

	for (size_t i = 0; i < n; i++) {
		if (s[i].cell == p)
			ia = i;
		else if (s[i].cell == p + pairs)
			ib = i;
	}
	assert_true(ia < n && ib < n);
	return ia < ib;
}

/*
 * An A/B of two labels over several cells (units p and p + pairs): in
 * every two rounds each cell runs once A first and once B first, in the
 * order a_first() draws, so the two orders are at most one apart;
 * every round is a permutation, no unit runs twice in a row, and the
 * order drawn first is A's about half the time, for one cell as for two
 * together.
 */
static void test_ab_plans_run_each_cell_both_ways_in_every_two_rounds(void **state)
{
	unsigned seeds = 400, a0 = 0, same01 = 0;

	(void)state;
	for (size_t pairs = 2; pairs <= 6; pairs++) {
		for (unsigned reps = 1; reps <= 9; reps++) {
			for (uint64_t seed = 0; seed < seeds; seed++) {
				size_t n, units = 2 * pairs;
				struct job_plan_step *s = NULL;

				assert_int_equal(job_plan_make_labels(pairs, 2, reps, seed, &s, &n), 0);
				check_complete(s, n, units, reps);
				for (size_t i = 1; i < n; i++)
					if (s[i].cell == s[i - 1].cell)
						fail_msg("pairs %zu reps %u seed %llu: unit %zu twice at step %zu",
							 pairs, reps, (unsigned long long)seed,
							 s[i].cell, i);
				for (size_t p = 0; p < pairs; p++) {
					int lead = 0;

					for (unsigned r = 0; r < reps; r++) {
						bool a = a_runs_first(s + (size_t)r * units, units,
								      pairs, p);

						assert_true(a == a_first(seed, p, r));
						lead += a ? 1 : -1;
						if (r % 2)
							assert_int_equal(lead, 0);
					}
					assert_in_range(lead + 1, 0, 2);
				}
				if (pairs == 2 && reps == 1) {
					a0 += a_runs_first(s, n, pairs, 0);
					same01 += a_runs_first(s, n, pairs, 0) ==
						  a_runs_first(s, n, pairs, 1);
				}
				free(s);
			}
		}
	}
	/* 400 draws each: 200 +- 10 sd, 150..250 is 5 sd */
	assert_in_range(a0, 150, 250);
	assert_in_range(same01, 150, 250);
}

/*
 * One pair: job_plan_make()'s own two-cell plan; none: refused as an
 * empty plan.
 */
static void test_ab_plan_of_one_pair_is_the_two_cell_plan(void **state)
{
	struct job_plan_step *s = NULL;
	size_t n;

	(void)state;
	for (unsigned reps = 1; reps <= 9; reps++) {
		size_t m;
		struct job_plan_step *t = make_ok(2, reps, 7, &m);

		assert_int_equal(job_plan_make_labels(1, 2, reps, 7, &s, &n), 0);
		assert_int_equal(n, m);
		assert_true(same_steps(s, t, n));
		free(s);
		free(t);
	}
	assert_int_equal(job_plan_make_labels(0, 2, 3, 7, &s, &n), -EINVAL);
	assert_null(s);
	assert_int_equal(job_plan_make_labels(3, 0, 3, 7, &s, &n), -EINVAL);
	assert_null(s);
	assert_int_equal(job_plan_make_labels(SIZE_MAX / 2, 3, 3, 7, &s, &n), -E2BIG);
	assert_null(s);
}

/*
 * --until-ci's rounds, one at a time over the cells still unsettled: a
 * cell runs under both labels in every round until it settles. Orienting
 * each round as a_first() says for its number keeps every cell's
 * two orders within one of each other after any round, leaves the round
 * a permutation of its steps, and never starts a round of three steps or
 * more with the step before it.
 */
static void test_orient_round_balances_added_rounds(void **state)
{
	enum { PAIRS = 5, ROUNDS = 14 };

	(void)state;
	for (uint64_t seed = 0; seed < 300; seed++) {
		struct job_plan_step prev = { .cell = seed % (2 * PAIRS) };
		unsigned until[PAIRS]; /* the rounds pair p runs: 0 to until[p] - 1 */
		int lead[PAIRS] = { 0 };

		for (size_t p = 0; p < PAIRS; p++)
			until[p] = 1 + (unsigned)((seed * 7 + p * 5) % ROUNDS);
		for (unsigned r = 0; r < ROUNDS; r++) {
			struct job_plan_step round[2 * PAIRS];
			size_t n = 0, npairs = 0, in[PAIRS];
			unsigned sum = 0;

			/* the unsettled pairs from a turning start, both units,
			 * B's first */
			for (size_t q = 0; q < PAIRS; q++)
				if (r < until[(q + r) % PAIRS])
					in[npairs++] = (q + r) % PAIRS;
			for (size_t i = 0; i < npairs; i++) {
				round[n++] = (struct job_plan_step){ .cell = in[i] + PAIRS, .rep = r };
				round[n++] = (struct job_plan_step){ .cell = in[i], .rep = r };
			}
			if (!n)
				break;
			if (seed % 3 == 0 && n > 2) /* the step before, first */
				prev.cell = round[0].cell;
			assert_int_equal(job_plan_orient_round(round, n, PAIRS, 2, seed, r, &prev), 0);
			for (size_t i = 0; i < n; i++)
				sum += (unsigned)round[i].cell;
			for (size_t i = 0; i < npairs; i++) {
				bool a = a_runs_first(round, n, PAIRS, in[i]);

				sum -= (unsigned)(2 * in[i] + PAIRS);
				assert_true(a == a_first(seed, in[i], r));
				lead[in[i]] += a ? 1 : -1;
				assert_in_range(lead[in[i]] + 1, 0, 2);
			}
			assert_int_equal(sum, 0);
			if (n > 2)
				assert_true(round[0].cell != prev.cell);
			prev = round[n - 1];
		}
	}
}

/*
 * The labels' orders: a permutation, reversed in the odd round of every
 * two, each label first about as often; with two labels, A first exactly
 * where the two-label plans of earlier versions had it (the bits pinned
 * below), so a seed still gives the A/B plan it gave.
 */
static void test_label_orders_are_permutations_reversed_every_other_round(void **state)
{
	unsigned first[5] = { 0 }, bits = 0, i = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 4; seed++)
		for (size_t p = 0; p < 4; p++)
			for (unsigned r = 0; r < 2; r++, i++)
				bits |= (unsigned)a_first(seed * 0x9e3779b97f4a7c15ULL, p, r) << i;
	assert_int_equal(bits, 0xa9596a95);
	for (size_t k = 1; k <= 5; k++) {
		for (uint64_t seed = 0; seed < 500; seed++) {
			for (unsigned r = 0; r < 6; r += 2) {
				size_t even[5], odd[5];
				unsigned seen = 0;

				job_plan_label_order(seed, 3, r, k, even);
				job_plan_label_order(seed, 3, r + 1, k, odd);
				for (size_t j = 0; j < k; j++) {
					assert_in_range(even[j], 0, k - 1);
					seen |= 1u << even[j];
					assert_int_equal(odd[j], even[k - 1 - j]);
				}
				assert_int_equal(seen, (1u << k) - 1);
				if (k == 2)
					assert_true(a_first(seed, 3, r) == (even[0] == 0));
				if (k == 5)
					first[even[0]]++;
			}
		}
	}
	/* 1500 draws, each label first with p = 1/5: 300 +- 15.5 sd */
	for (size_t l = 0; l < 5; l++)
		assert_in_range(first[l], 300 - 78, 300 + 78);
}

/* Whether label x's unit of configuration c runs before label y's in the
 * n steps of s; both must be there once. */
static bool runs_before(const struct job_plan_step *s, size_t n, size_t ncells, size_t c,
			size_t x, size_t y)
{
	size_t ix = n, iy = n;

	for (size_t i = 0; i < n; i++) {
		if (s[i].cell == x * ncells + c)
			ix = i;
		else if (s[i].cell == y * ncells + c)
			iy = i;
	}
	assert_true(ix < n && iy < n);
	return ix < iy;
}

/*
 * Three labels or more: every round runs each configuration's labels in
 * job_plan_label_order()'s order, so in every two rounds each label runs
 * before each other once, and any number of rounds leaves every two
 * labels' orders at most one apart; with two configurations or more no
 * unit runs twice in a row.
 */
static void test_label_plans_balance_every_two_labels(void **state)
{
	(void)state;
	for (size_t nlabels = 3; nlabels <= 5; nlabels++) {
		for (size_t ncells = 1; ncells <= 4; ncells++) {
			for (unsigned reps = 1; reps <= 7; reps++) {
				for (uint64_t seed = 0; seed < 60; seed++) {
					size_t n, units = ncells * nlabels, order[5];
					struct job_plan_step *s = NULL;

					assert_int_equal(job_plan_make_labels(ncells, nlabels, reps, seed,
									      &s, &n), 0);
					check_complete(s, n, units, reps);
					for (size_t i = 1; ncells > 1 && i < n; i++)
						if (s[i].cell == s[i - 1].cell)
							fail_msg("cells %zu labels %zu reps %u seed %llu: unit %zu twice at step %zu",
								 ncells, nlabels, reps,
								 (unsigned long long)seed, s[i].cell, i);
					for (size_t c = 0; c < ncells; c++) {
						for (size_t x = 0; x < nlabels; x++) {
							for (size_t y = x + 1; y < nlabels; y++) {
								int lead = 0;

								for (unsigned r = 0; r < reps; r++) {
									const struct job_plan_step *round = s + (size_t)r * units;

									lead += runs_before(round, units, ncells, c, x, y) ? 1 : -1;
									if (r % 2)
										assert_int_equal(lead, 0);
								}
								assert_in_range(lead + 1, 0, 2);
							}
						}
						for (unsigned r = 0; r < reps; r++) {
							job_plan_label_order(seed, c, r, nlabels, order);
							for (size_t j = 1; j < nlabels; j++)
								assert_true(runs_before(s + (size_t)r * units, units,
											ncells, c, order[j - 1],
											order[j]));
						}
					}
					free(s);
				}
			}
		}
	}
}

/*
 * --until-ci's rounds under three labels: a configuration runs under every
 * label until it settles, the round stays a permutation of its steps in
 * the labels' orders, every two labels' orders stay within one of each
 * other after any round, and a round does not start with the step before
 * it when another configuration is in it.
 */
static void test_orient_round_of_three_labels(void **state)
{
	enum { CELLS = 4, LABELS = 3 };

	(void)state;
	for (uint64_t seed = 0; seed < 300; seed++) {
		struct job_plan_step prev = { .cell = seed % (CELLS * LABELS) };
		int lead[CELLS][LABELS][LABELS] = { { { 0 } } };

		for (unsigned r = 0; r < 10; r++) {
			struct job_plan_step round[CELLS * LABELS];
			size_t n = 0, order[LABELS];
			unsigned sum = 0, want = 0;

			for (size_t c = 0; c < CELLS; c++)
				if (r < 1 + (seed * 7 + c * 5) % 10) /* still unsettled */
					for (size_t l = LABELS; l-- > 0;)
						round[n++] = (struct job_plan_step){ .cell = l * CELLS + c, .rep = r };
			if (!n)
				continue;
			if (seed % 3 == 0)
				prev.cell = round[0].cell;
			for (size_t i = 0; i < n; i++)
				want += (unsigned)round[i].cell;
			assert_int_equal(job_plan_orient_round(round, n, CELLS, LABELS, seed, r, &prev), 0);
			for (size_t i = 0; i < n; i++) {
				sum += (unsigned)round[i].cell;
				assert_int_equal(round[i].rep, r);
			}
			assert_int_equal(sum, want);
			for (size_t c = 0; c < CELLS; c++) {
				if (!(r < 1 + (seed * 7 + c * 5) % 10))
					continue;
				job_plan_label_order(seed, c, r, LABELS, order);
				for (size_t j = 1; j < LABELS; j++)
					assert_true(runs_before(round, n, CELLS, c, order[j - 1], order[j]));
				for (size_t x = 0; x < LABELS; x++) {
					for (size_t y = x + 1; y < LABELS; y++) {
						lead[c][x][y] += runs_before(round, n, CELLS, c, x, y) ? 1 : -1;
						assert_in_range(lead[c][x][y] + 1, 0, 2);
					}
				}
			}
			if (n > LABELS)
				assert_true(round[0].cell != prev.cell);
			prev = round[n - 1];
		}
	}
}

static void test_each_round_is_a_permutation_of_all_cells(void **state)
{
	size_t n, ncells = 9;
	unsigned reps = 4;
	struct job_plan_step *s = make_ok(ncells, reps, 99, &n);

	(void)state;
	for (unsigned r = 0; r < reps; r++) {
		bool seen[9] = { false };

		for (size_t i = 0; i < ncells; i++) {
			const struct job_plan_step *st = &s[r * ncells + i];

			assert_int_equal(st->rep, r);
			assert_false(seen[st->cell]);
			seen[st->cell] = true;
		}
	}
	free(s);
}

static void test_one_cell_runs_its_reps_back_to_back(void **state)
{
	size_t n;
	struct job_plan_step *s = make_ok(1, 5, 1234, &n);

	(void)state;
	assert_int_equal(n, 5);
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(s[i].cell, 0);
		assert_int_equal(s[i].rep, i);
	}
	free(s);
}

static void test_same_seed_same_order_other_seed_other_order(void **state)
{
	size_t n1, n2, n3;
	struct job_plan_step *a = make_ok(40, 5, 42, &n1);
	struct job_plan_step *b = make_ok(40, 5, 42, &n2);
	struct job_plan_step *c = make_ok(40, 5, 43, &n3);

	(void)state;
	assert_int_equal(n1, n2);
	assert_true(same_steps(a, b, n1));
	/* 40! orders per round: two seeds agreeing would be a broken generator */
	assert_int_equal(n1, n3);
	assert_false(same_steps(a, c, n1));
	/* and rounds differ from each other within one plan */
	assert_false(same_steps(a, a + 40, 40));
	free(a);
	free(b);
	free(c);
}

/* The plan of ncells, reps and seed has exactly the cells want[0..n). */
static void assert_order(size_t ncells, unsigned reps, uint64_t seed, const size_t *want,
			 size_t nwant)
{
	size_t n;
	struct job_plan_step *s = make_ok(ncells, reps, seed, &n);

	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(s[i].cell, want[i]);
	free(s);
}

/*
 * The order is part of what a recorded seed means, so it is pinned. The
 * expected orders come from an independent Python implementation of
 * splitmix64 (checked against its published first output for state 0,
 * 0xe220a8397b1dcdaf), xoshiro256** (Blackman and Vigna's reference),
 * rejection sampling below n, Fisher-Yates from the last position down,
 * and the swap of a round's first cell with position 1 + below(n - 1).
 */
static void test_order_is_pinned_for_a_seed(void **state)
{
	static const size_t want42[] = { 0, 1, 3, 4, 2, 3, 2, 4, 0, 1,
					 0, 2, 4, 1, 3 };
	static const size_t want1[] = { 2, 0, 3, 1, 3, 0, 2, 1,
					2, 0, 3, 1, 0, 2, 3, 1 };
	static const size_t want3[] = { 1, 0, 2, 1, 0, 2, 0, 1, 2, 1, 0, 2 };
	static const size_t want6[] = { 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1 };
	static const size_t want7[] = { 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 0, 1 };

	(void)state;
	assert_order(5, 3, 42, want42, sizeof(want42) / sizeof(*want42));
	assert_order(4, 4, 1, want1, sizeof(want1) / sizeof(*want1));
	assert_order(3, 4, 3, want3, sizeof(want3) / sizeof(*want3));
	/* two cells: rounds of both orders, three each for 6, their
	 * sequence drawn (the same Python: rounds k % 2 first, the last one's
	 * order drawn when reps is odd, Fisher-Yates over the rounds) */
	assert_order(2, 6, 0, want6, sizeof(want6) / sizeof(*want6));
	assert_order(2, 7, 5, want7, sizeof(want7) / sizeof(*want7));
}

static void test_make_rejects_empty_and_huge_plans(void **state)
{
	struct job_plan_step *s = (struct job_plan_step *)state;
	size_t n = 7;

	assert_int_equal(job_plan_make(0, 3, 1, &s, &n), -EINVAL);
	assert_null(s);
	assert_int_equal(n, 0);
	assert_int_equal(job_plan_make(3, 0, 1, &s, &n), -EINVAL);
	assert_int_equal(job_plan_make(SIZE_MAX, 2, 1, &s, &n), -E2BIG);
	assert_int_equal(job_plan_make(JOB_PLAN_MAX_STEPS, 2, 1, &s, &n), -E2BIG);
	assert_null(s);
}

/* ---- resume ---- */

static void test_resume_after_interruption_runs_the_tail(void **state)
{
	(void)state;
	for (size_t k = 0; k <= 40; k++) {
		size_t ncells = 8, n, m;
		unsigned reps = 5, done[8] = { 0 };
		struct job_plan_step *full = make_ok(ncells, reps, 77, &n);
		struct job_plan_step *s = make_ok(ncells, reps, 77, &m);

		/* the first k steps finished and were stored */
		for (size_t i = 0; i < k; i++)
			done[full[i].cell]++;
		assert_int_equal(job_plan_resume(s, &m, ncells, done), 0);
		assert_int_equal(m, n - k);
		assert_true(same_steps(s, full + k, m));
		free(full);
		free(s);
	}
}

static void test_resume_drops_exactly_the_done_steps(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 50; seed++) {
		size_t ncells = 6, n, m, left[6] = { 0 }, total = 0;
		unsigned reps = 4, done[6];
		struct job_plan_step *s = make_ok(ncells, reps, seed, &n);

		/* any counts, e.g. samples stored by an earlier, other order */
		for (size_t c = 0; c < ncells; c++) {
			done[c] = (unsigned)((seed * 7 + c * 3) % 6); /* 0..5 */
			total += done[c] < reps ? reps - done[c] : 0;
		}
		m = n;
		assert_int_equal(job_plan_resume(s, &m, ncells, done), 0);
		assert_int_equal(m, total);
		for (size_t i = 0; i < m; i++) {
			/* what is left is what is missing, in rep order */
			assert_int_equal(s[i].rep, done[s[i].cell] + left[s[i].cell]);
			left[s[i].cell]++;
		}
		for (size_t c = 0; c < ncells; c++)
			assert_int_equal(left[c], done[c] < reps ? reps - done[c] : 0);
		/* no repeat where another cell could go in between */
		for (size_t i = 1; i < m; i++) {
			if (s[i].cell != s[i - 1].cell)
				continue;
			for (size_t j = i; j < m; j++)
				assert_int_equal(s[j].cell, s[i].cell);
			break;
		}
		free(s);
	}
}

static void test_resume_moves_another_cell_between_repeats(void **state)
{
	/* A0 B0 A1 C0 B1 C1 A2 with B's first done: A0 A1 would repeat */
	struct job_plan_step s[] = {
		{ 0, 0 }, { 1, 0 }, { 0, 1 }, { 2, 0 }, { 1, 1 }, { 2, 1 }, { 0, 2 },
	};
	static const struct job_plan_step want[] = {
		{ 0, 0 }, { 2, 0 }, { 0, 1 }, { 1, 1 }, { 2, 1 }, { 0, 2 },
	};
	unsigned done[] = { 0, 1, 0 };
	size_t n = ARRAY_SIZE(s);

	(void)state;
	assert_int_equal(job_plan_resume(s, &n, 3, done), 0);
	assert_int_equal(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s[i].cell, want[i].cell);
		assert_int_equal(s[i].rep, want[i].rep);
	}
}

static void test_resume_with_all_done_or_nothing_done(void **state)
{
	size_t n, m;
	unsigned none[5] = { 0 }, all[5] = { 3, 3, 3, 9, 3 };
	struct job_plan_step *s = make_ok(5, 3, 5, &n);
	struct job_plan_step *orig = make_ok(5, 3, 5, &m);

	(void)state;
	assert_int_equal(job_plan_resume(s, &n, 5, none), 0);
	assert_int_equal(n, 15);
	assert_true(same_steps(s, orig, n));
	assert_int_equal(job_plan_resume(s, &n, 5, all), 0);
	assert_int_equal(n, 0);
	free(s);
	free(orig);
}

static void test_resume_twice_with_new_totals(void **state)
{
	size_t n, m;
	unsigned done[4] = { 0 };
	struct job_plan_step *full = make_ok(4, 5, 11, &n);
	struct job_plan_step *s = make_ok(4, 5, 11, &m);

	(void)state;
	for (size_t i = 0; i < 7; i++)
		done[full[i].cell]++;
	assert_int_equal(job_plan_resume(s, &m, 4, done), 0);
	/* interrupted again three steps later: the totals grew */
	for (size_t i = 7; i < 10; i++)
		done[full[i].cell]++;
	assert_int_equal(job_plan_resume(s, &m, 4, done), 0);
	assert_int_equal(m, n - 10);
	assert_true(same_steps(s, full + 10, m));
	free(full);
	free(s);
}

static void test_resume_rejects_unknown_cells(void **state)
{
	struct job_plan_step s[] = { { 0, 0 }, { 3, 0 } };
	unsigned done[2] = { 0 };
	size_t n = 2;

	(void)state;
	assert_int_equal(job_plan_resume(s, &n, 2, done), -EINVAL);
	assert_int_equal(n, 2);
}

/* ---- expected duration ---- */

static void test_duration_is_steps_times_warmup_window_and_overhead(void **state)
{
	(void)state;
	/* the udp matrix: 80 cells x 5 reps x (2 + 10 + 0.5) s */
	assert_int_equal(job_plan_duration_ns(400, 2 * NS_PER_S, 10 * NS_PER_S),
			 5000 * NS_PER_S);
	assert_int_equal(job_plan_duration_ns(1, 0, NS_PER_S),
			 NS_PER_S + JOB_PLAN_STEP_OVERHEAD_NS);
	assert_int_equal(job_plan_duration_ns(0, 2 * NS_PER_S, 10 * NS_PER_S), 0);
	assert_int_equal(job_plan_duration_ns(3, -5, -5),
			 3 * JOB_PLAN_STEP_OVERHEAD_NS);
	assert_true(job_plan_duration_ns(SIZE_MAX, NS_PER_S, NS_PER_S) == INT64_MAX);
	assert_true(job_plan_duration_ns(2, INT64_MAX, INT64_MAX) == INT64_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_cell_and_rep_runs_exactly_once),
		cmocka_unit_test(test_no_cell_runs_twice_in_a_row_with_three_cells_or_more),
		cmocka_unit_test(test_two_cells_run_both_orders_in_equal_numbers),
		cmocka_unit_test(test_ab_plans_run_each_cell_both_ways_in_every_two_rounds),
		cmocka_unit_test(test_ab_plan_of_one_pair_is_the_two_cell_plan),
		cmocka_unit_test(test_orient_round_balances_added_rounds),
		cmocka_unit_test(test_label_orders_are_permutations_reversed_every_other_round),
		cmocka_unit_test(test_label_plans_balance_every_two_labels),
		cmocka_unit_test(test_orient_round_of_three_labels),
		cmocka_unit_test(test_each_round_is_a_permutation_of_all_cells),
		cmocka_unit_test(test_one_cell_runs_its_reps_back_to_back),
		cmocka_unit_test(test_same_seed_same_order_other_seed_other_order),
		cmocka_unit_test(test_order_is_pinned_for_a_seed),
		cmocka_unit_test(test_make_rejects_empty_and_huge_plans),
		cmocka_unit_test(test_resume_after_interruption_runs_the_tail),
		cmocka_unit_test(test_resume_drops_exactly_the_done_steps),
		cmocka_unit_test(test_resume_moves_another_cell_between_repeats),
		cmocka_unit_test(test_resume_with_all_done_or_nothing_done),
		cmocka_unit_test(test_resume_twice_with_new_totals),
		cmocka_unit_test(test_resume_rejects_unknown_cells),
		cmocka_unit_test(test_duration_is_steps_times_warmup_window_and_overhead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
