/* SPDX-License-Identifier: GPL-2.0-only */
/* Bisect state in the store: each bisect's endpoints and rule, each step's verdict (schema version 3). */
#ifndef NR_STORE_BISECT_H
#define NR_STORE_BISECT_H

#include <stdint.h>

#include "store/store.h"

/*
 * A bisect is a row of `bisects`: the good and bad labels, the
 * configuration (its key, and the whole job configuration with run control
 * as JSON, so that a step runs exactly what the endpoints ran), the metric
 * judged and the rule's parameters. Each commit a step looked at is a row
 * of `bisect_steps`: its verdict and the statistics it was decided with.
 * The step's samples are ordinary samples under their own label (see
 * store_bisect_step_label()), stored with store_add_sample() the moment
 * each is measured; the row says what was decided from them. See
 * docs/schema.md and docs/bisect.md.
 *
 * As everywhere in the store: nothing prints, failures return a negative
 * errno with a message in err, one thread per connection. Reading these
 * tables from a store older than version 3 opened read-only fails with
 * -ENOENT ("no bisect in this store").
 */

/* Longest commit id (a kernel release, a SHA-256 git id), NUL excluded. */
#define STORE_BISECT_COMMIT_MAX 96

struct store_bisect {
	int64_t id;            /* 1, 2, ... assigned by store_bisect_add() */
	char good_label[128], bad_label[128];
	char config_key[1024];
	char metric[112];      /* the headline metric judged */
	char *config;          /* job_config_to_json() text; owned */
	int64_t created_at_ns; /* CLOCK_REALTIME */
	double alpha, beta, conf, side_conf, min_change_pct;
	int64_t min_reps, max_reps;
};

/* Free what a filled struct store_bisect owns (config); NULL is fine. */
void store_bisect_release(struct store_bisect *b);

/*
 * Add a bisect in its own transaction; b->id gets its id (MAX + 1, so the
 * newest bisect has the highest). b->config must be set. Returns 0,
 * -EINVAL (a text too long), -EROFS, -EBUSY or -EIO.
 */
int store_bisect_add(struct store *st, struct store_bisect *b,
		     struct base_err *err);

/*
 * Read bisect id (0: the newest) into *out (release it with
 * store_bisect_release()). Returns 0, -ENOENT when there is none (err
 * says so), -EIO or -ENOMEM.
 */
int store_bisect_get(struct store *st, int64_t id, struct store_bisect *out,
		     struct base_err *err);

/*
 * The label of a step's samples, "bisect:<id>:<commit>", into buf.
 * Returns 0, or -EINVAL when it does not fit in a sample's label (127).
 */
int store_bisect_step_label(int64_t bisect_id, const char *commit, char *buf,
			    size_t len);

struct store_bisect_step {
	int64_t bisect_id;
	char commit[STORE_BISECT_COMMIT_MAX + 1];
	char label[128];       /* the samples' label */
	int64_t step_order;    /* 1, 2, ... in the order steps first came */
	char verdict[16];      /* bisect_verdict_name() */
	int64_t n;             /* runs the verdict was made from */
	double position, position_lo, position_hi; /* NaN: none; +-inf kept */
	double llr;            /* NaN: none */
	int64_t first_at_ns, updated_at_ns; /* CLOCK_REALTIME */
};

/*
 * The step of bisect_id for commit. Returns 0, -ENOENT when there is none
 * (err is not set: not an error for callers), -EIO.
 */
int store_bisect_step_get(struct store *st, int64_t bisect_id,
			  const char *commit, struct store_bisect_step *out,
			  struct base_err *err);

/*
 * Insert or update the step (bisect_id, commit) in its own transaction.
 * A new step gets the next step_order and first_at_ns = updated_at_ns;
 * an existing one keeps both and takes the rest. Returns 0, -EINVAL (no
 * such bisect, a text too long), -EROFS, -EBUSY or -EIO.
 */
int store_bisect_step_put(struct store *st, const struct store_bisect_step *s,
			  struct base_err *err);

/*
 * Each step of bisect_id in step_order. The row lives for the callback
 * only; a callback returning nonzero stops the query, which returns that
 * value.
 */
int store_bisect_steps(struct store *st, int64_t bisect_id,
		       int (*cb)(void *ctx, const struct store_bisect_step *s),
		       void *ctx, struct base_err *err);

#endif
