// SPDX-License-Identifier: GPL-2.0-only
/* The run order of a matrix: seeded shuffled rounds of repetitions, resume and expected duration. */
#include "job/plan.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/*
 * xoshiro256** (Blackman and Vigna), its state filled by splitmix64 as its
 * authors recommend: small, fast, and the same sequence everywhere, which
 * is what a recorded seed needs. Not for secrets.
 */
struct rng {
	uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(struct rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* Uniform in [0, n), n >= 1, without modulo bias. */
static uint64_t rng_below(struct rng *r, uint64_t n)
{
	/* 2^64 - t is a multiple of n: reject the t lowest draws */
	uint64_t t = (0 - n) % n;

	for (;;) {
		uint64_t x = rng_next(r);

		if (x >= t)
			return x % n;
	}
}

/*
 * Two cells: each round runs them in one of the two orders, as many
 * rounds in each as reps allows (which order has the odd one is drawn),
 * the rounds in a drawn order. Where two rounds meet a cell may run twice
 * in a row; without that, two cells could only alternate, the same one
 * always first, and an A/B of two labels would have pairs of one order
 * only, in which what a first run leaves for the second reads as the
 * change (compare's .paired row needs both orders to cancel it).
 */
static void two_cells(struct job_plan_step *out, unsigned reps, struct rng *r)
{
	/* out[2k].cell: which cell round k runs first */
	for (unsigned k = 0; k < reps; k++)
		out[2 * k].cell = k % 2;
	if (reps % 2 && rng_below(r, 2))
		out[2 * (reps - 1)].cell = 1;
	for (unsigned k = reps - 1; k > 0; k--) {
		size_t j = (size_t)rng_below(r, k + 1), tmp = out[2 * k].cell;

		out[2 * k].cell = out[2 * j].cell;
		out[2 * j].cell = tmp;
	}
	for (unsigned k = 0; k < reps; k++) {
		out[2 * k + 1].cell = 1 - out[2 * k].cell;
		out[2 * k].rep = out[2 * k + 1].rep = k;
	}
}

/* One cell, or three or more: each round a shuffle of them all, its
 * first swapped with another when the previous round ended with it. */
static void shuffled_rounds(struct job_plan_step *out, size_t ncells, unsigned reps,
			    struct rng *r)
{
	for (unsigned rep = 0; rep < reps; rep++) {
		struct job_plan_step *round = out + (size_t)rep * ncells;

		for (size_t i = 0; i < ncells; i++) {
			round[i].cell = i;
			round[i].rep = rep;
		}
		/* Fisher-Yates */
		for (size_t i = ncells - 1; i > 0; i--) {
			size_t j = (size_t)rng_below(r, i + 1);
			struct job_plan_step tmp = round[i];

			round[i] = round[j];
			round[j] = tmp;
		}
		/* a round's cells are distinct, so only its first step can
		 * repeat the previous one: swap it with any other */
		if (rep && ncells > 1 && round[0].cell == round[-1].cell) {
			size_t j = 1 + (size_t)rng_below(r, ncells - 1);
			struct job_plan_step tmp = round[0];

			round[0] = round[j];
			round[j] = tmp;
		}
	}
}

int job_plan_make(size_t ncells, unsigned reps, uint64_t seed,
		  struct job_plan_step **steps, size_t *nsteps)
{
	struct job_plan_step *out;
	struct rng r;
	size_t n;

	*steps = NULL;
	*nsteps = 0;
	if (!ncells || !reps)
		return -EINVAL;
	if (ncells > JOB_PLAN_MAX_STEPS / reps)
		return -E2BIG;
	n = ncells * reps;
	out = calloc(n, sizeof(*out));
	if (!out)
		return -ENOMEM;
	rng_seed(&r, seed);
	if (ncells == 2)
		two_cells(out, reps, &r);
	else
		shuffled_rounds(out, ncells, reps, &r);
	*steps = out;
	*nsteps = n;
	return 0;
}

void job_plan_label_order(uint64_t seed, size_t cell, unsigned round, size_t nlabels,
			  size_t *order)
{
	uint64_t a = (uint64_t)cell, b = round / 2;
	uint64_t x = seed ^ splitmix64(&a) ^ rotl(splitmix64(&b), 32);

	for (size_t i = 0; i < nlabels; i++)
		order[i] = i;
	/* Fisher-Yates, each place from the high bits of a draw (with two
	 * labels, the top bit: 1 keeps A first) */
	for (size_t i = nlabels; i-- > 1;) {
		size_t j = (size_t)(((unsigned __int128)splitmix64(&x) * (i + 1)) >> 64), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (size_t i = 0; round % 2 && i < nlabels / 2; i++) {
		size_t t = order[i];

		order[i] = order[nlabels - 1 - i];
		order[nlabels - 1 - i] = t;
	}
}

int job_plan_orient_round(struct job_plan_step *round, size_t n, size_t ncells, size_t nlabels,
			  uint64_t seed, unsigned round_no, const struct job_plan_step *prev)
{
	size_t units = ncells * nlabels, *at, *order, x;
	struct job_plan_step *tmp;

	if (!units || units / nlabels != ncells)
		return 0;
	at = malloc(units * sizeof(*at));
	order = malloc(nlabels * sizeof(*order));
	tmp = malloc(nlabels * sizeof(*tmp));
	if (!at || !order || !tmp) {
		free(at);
		free(order);
		free(tmp);
		return -ENOMEM;
	}
	for (size_t u = 0; u < units; u++)
		at[u] = n;
	for (size_t i = 0; i < n; i++)
		if (round[i].cell < units)
			at[round[i].cell] = i;
	for (size_t c = 0; c < ncells; c++) {
		size_t m = 0, k = 0;

		/* the configuration's steps in its labels' order, into its
		 * places in the round, first to last */
		job_plan_label_order(seed, c, round_no, nlabels, order);
		for (size_t l = 0; l < nlabels; l++)
			if (at[order[l] * ncells + c] < n)
				tmp[m++] = round[at[order[l] * ncells + c]];
		for (size_t i = 0; i < n && k < m; i++)
			if (round[i].cell < units && round[i].cell % ncells == c)
				round[i] = tmp[k++];
	}
	free(at);
	free(order);
	free(tmp);
	/* the previous round's last unit first: the first step of another
	 * configuration moves up before it, which keeps every
	 * configuration's order */
	if (!prev || !n || round[0].cell != prev->cell || round[0].cell >= units)
		return 0;
	x = round[0].cell % ncells;
	for (size_t j = 1; j < n; j++) {
		struct job_plan_step moved = round[j];

		if (moved.cell < units && moved.cell % ncells == x)
			continue;
		memmove(&round[1], &round[0], j * sizeof(*round));
		round[0] = moved;
		break;
	}
	return 0;
}

int job_plan_make_labels(size_t ncells, size_t nlabels, unsigned reps, uint64_t seed,
			 struct job_plan_step **steps, size_t *nsteps)
{
	int ret;

	*steps = NULL;
	*nsteps = 0;
	if (!nlabels)
		return -EINVAL;
	if (ncells > SIZE_MAX / nlabels)
		return -E2BIG;
	ret = job_plan_make(ncells * nlabels, reps, seed, steps, nsteps);
	/* one label: nothing to orient; one configuration under two labels:
	 * the two-cell rounds run both orders already */
	for (unsigned k = 0; !ret && nlabels > 1 && ncells * nlabels > 2 && k < reps; k++) {
		struct job_plan_step *round = *steps + (size_t)k * ncells * nlabels;

		ret = job_plan_orient_round(round, ncells * nlabels, ncells, nlabels, seed, k,
					    k ? round - 1 : NULL);
	}
	if (ret) {
		free(*steps);
		*steps = NULL;
		*nsteps = 0;
	}
	return ret;
}

int job_plan_resume(struct job_plan_step *steps, size_t *nsteps,
		    size_t ncells, const unsigned *done)
{
	size_t n = *nsteps, kept = 0;

	for (size_t i = 0; i < n; i++)
		if (steps[i].cell >= ncells)
			return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (steps[i].rep >= done[steps[i].cell])
			steps[kept++] = steps[i];
	*nsteps = kept;
	/* an interrupted plan's tail has no repeat; a gap elsewhere might
	 * (two cells' plans have theirs by design: left as they are) */
	for (size_t i = 1; ncells != 2 && i < kept; i++) {
		size_t j = i;
		struct job_plan_step moved;

		if (steps[i].cell != steps[i - 1].cell)
			continue;
		while (j < kept && steps[j].cell == steps[i - 1].cell)
			j++;
		if (j == kept)
			break; /* only that cell is left */
		moved = steps[j];
		memmove(&steps[i + 1], &steps[i], (j - i) * sizeof(*steps));
		steps[i] = moved;
	}
	return 0;
}

int64_t job_plan_duration_ns(size_t nsteps, int64_t warmup_ns,
			     int64_t duration_ns)
{
	int64_t per = JOB_PLAN_STEP_OVERHEAD_NS;

	if (warmup_ns > 0)
		per = warmup_ns > INT64_MAX - per ? INT64_MAX : per + warmup_ns;
	if (duration_ns > 0)
		per = duration_ns > INT64_MAX - per ? INT64_MAX : per + duration_ns;
	if (nsteps && (uint64_t)per > (uint64_t)INT64_MAX / nsteps)
		return INT64_MAX;
	return per * (int64_t)nsteps;
}
