/* SPDX-License-Identifier: GPL-2.0-only */
/* The run order of a matrix: seeded, interleaved repetitions, resumable. */
#ifndef NR_JOB_PLAN_H
#define NR_JOB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/time.h"

/* The time a step costs besides its warm-up and window: connecting,
 * collectors, storing; used for the expected duration only. */
#define JOB_PLAN_STEP_OVERHEAD_NS (500 * NS_PER_MS)
/* ncells x reps is at most this. */
#define JOB_PLAN_MAX_STEPS 100000000ULL

/* One run: repetition `rep` of cell `cell`. */
struct job_plan_step {
	size_t cell;  /* index into the cells of job_file_expand() */
	unsigned rep; /* 0 to reps - 1: the cell's rep-th run in the plan */
};

/*
 * The order in which a matrix runs: `reps` rounds, each a shuffle of all
 * the cells drawn from `seed` (xoshiro256** seeded by splitmix64, so the
 * same seed gives the same order on every machine and build). When a round
 * would start with the cell the previous round ended with, that first cell
 * swaps with another of the round (drawn from the same generator), so with
 * three cells or more a cell never runs twice in a row and never runs its
 * repetitions back to back. Two cells (an A/B of two labels) could then
 * only alternate, the same one always first: instead each round runs them
 * in one of the two orders, half the rounds each (the odd one's drawn),
 * the rounds in a drawn sequence, and a cell runs twice in a row where
 * rounds of different orders meet. With one cell its repetitions are
 * necessarily consecutive.
 *
 * On success *steps (free() it) holds *nsteps = ncells * reps steps, each
 * (cell, rep) exactly once, a cell's reps in increasing order. Returns 0,
 * -EINVAL (ncells or reps is 0), -E2BIG (more than JOB_PLAN_MAX_STEPS
 * steps) or -ENOMEM; on failure *steps is NULL and *nsteps 0. Pure and
 * thread-safe.
 */
int job_plan_make(size_t ncells, unsigned reps, uint64_t seed,
		  struct job_plan_step **steps, size_t *nsteps);

/*
 * A/B of two labels: units p and p + pairs (p < pairs) are one cell under
 * label A and under label B. Whether round `round` runs A's unit of pair p
 * before B's: in every two rounds (0 and 1, 2 and 3, ...) once each way,
 * which way first drawn from seed and p (splitmix64), so that any number
 * of rounds, --until-ci's added ones too, leaves a pair's two orders at
 * most one apart, and compare's crossover (its .paired row) gets both.
 */
bool job_plan_a_first(uint64_t seed, size_t pair, unsigned round);

/*
 * Put the n steps of one round (each unit at most once, units below
 * 2 x pairs paired as above) in the orders job_plan_a_first() gives for
 * round_no, swapping the two steps of a pair where needed. When that puts
 * prev's unit (the step before the round; NULL for none) first, and the
 * round has three steps or more, the first step of another pair moves up
 * before it. Steps of units >= 2 x pairs, and pairs with one step in the
 * round, stay where they are. Returns 0 or -ENOMEM.
 */
int job_plan_orient_round(struct job_plan_step *round, size_t n, size_t pairs,
			  uint64_t seed, unsigned round_no, const struct job_plan_step *prev);

/*
 * job_plan_make() over 2 x pairs units paired as above, every round then
 * put in job_plan_a_first()'s orders (one pair: job_plan_make()'s own
 * two-cell rounds). With two pairs or more no unit runs twice in a row.
 * Returns as job_plan_make() does.
 */
int job_plan_make_ab(size_t pairs, unsigned reps, uint64_t seed,
		     struct job_plan_step **steps, size_t *nsteps);

/*
 * Resume a plan that job_plan_make() (or job_plan_make_ab()) made with
 * the same cells, reps and seed: done[cell] (for each of the ncells
 * cells) says how many samples of the cell are already stored. The first done[cell] steps of each cell, in
 * plan order (those with rep < done[cell], since a cell's reps increase
 * along the plan; a plan already resumed can be resumed again with the new
 * totals), are dropped in place and *nsteps shrinks, so that the plan runs
 * exactly what is missing; a done[cell] beyond the cell's steps drops them
 * all. When the matrix was interrupted the remaining steps are the
 * original plan's tail, in its order. Otherwise, where dropping leaves a
 * cell twice in a row, the next step of another cell moves up between
 * them (the other steps keep their order), if there is one; not with two
 * cells, whose plans have such repeats by design.
 * Returns 0, or -EINVAL if a step names a cell >= ncells. Thread-safe.
 */
int job_plan_resume(struct job_plan_step *steps, size_t *nsteps,
		    size_t ncells, const unsigned *done);

/*
 * The expected duration of nsteps steps in ns: nsteps x (warmup +
 * duration + JOB_PLAN_STEP_OVERHEAD_NS); for a fresh plan nsteps is
 * cells x reps. Saturates at INT64_MAX; negative inputs count as 0.
 */
int64_t job_plan_duration_ns(size_t nsteps, int64_t warmup_ns,
			     int64_t duration_ns);

#endif
