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
 * A matrix of nlabels labels over ncells configurations runs units
 * c + l x ncells: configuration c under label l. In which order round
 * `round` runs configuration c's units: order[i] (for i < nlabels) is the
 * label of its i-th run. Round 2j runs an order drawn from seed, c and j
 * (splitmix64), round 2j + 1 the same order reversed, so that in every two
 * rounds (0 and 1, 2 and 3, ...) each label runs before each other label
 * once: any number of rounds, --until-ci's added ones too, leaves every two
 * labels' two orders at most one apart, and compare's crossover (its
 * .paired row, of the first label against each other) gets both.
 */
void job_plan_label_order(uint64_t seed, size_t cell, unsigned round, size_t nlabels,
			  size_t *order);

/*
 * Put the n steps of one round (each unit at most once; units below
 * nlabels x ncells are configurations under labels as above) in the orders
 * job_plan_label_order() gives for round_no: the steps of a configuration
 * keep the places the round gave them, and its labels take those places in
 * that order (a configuration with some of its labels in the round: those,
 * in that order). When that puts prev's unit (the step before the round;
 * NULL for none) first, the first step of another configuration moves up
 * before it, if the round has one. Steps of units >= nlabels x ncells stay
 * where they are. Returns 0 or -ENOMEM.
 */
int job_plan_orient_round(struct job_plan_step *round, size_t n, size_t ncells, size_t nlabels,
			  uint64_t seed, unsigned round_no, const struct job_plan_step *prev);

/*
 * job_plan_make() over nlabels x ncells units as above, every round then
 * put in job_plan_label_order()'s orders (one label: job_plan_make()'s own
 * plan; one configuration under two labels: its two-cell rounds, which
 * run both orders already). With two configurations or more no unit runs
 * twice in a row; one configuration under three labels or more runs its
 * last label's unit again first where a round and its reverse meet.
 * Returns as job_plan_make() does, and -EINVAL for no label.
 */
int job_plan_make_labels(size_t ncells, size_t nlabels, unsigned reps, uint64_t seed,
			 struct job_plan_step **steps, size_t *nsteps);

/*
 * Resume a plan that job_plan_make() (or job_plan_make_labels()) made with
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
