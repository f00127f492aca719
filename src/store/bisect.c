// SPDX-License-Identifier: GPL-2.0-only
/* Bisect rows: each bisect's endpoints and rule, each step's verdict; no statistics. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/bisect.h"
#include "store/internal.h"

/* Version 3 made the bisect tables; a read-only store may be older. */
static int check_version(struct store *st, struct base_err *err)
{
	if (st->version < 3)
		return base_err_set(err, -ENOENT,
				    "no bisect in database '%s' (schema version %d has no bisect tables; 'netregress bisect start' creates them)",
				    st->path, st->version);
	return 0;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
}

/* NaN is NULL; infinities are stored as they are (PostgreSQL has them). */
static void bind_double(sqlite3_stmt *q, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(q, i);
	else
		sqlite3_bind_double(q, i, v);
}

static double column_double(sqlite3_stmt *q, int i)
{
	return sqlite3_column_type(q, i) == SQLITE_NULL ? NAN :
							  sqlite3_column_double(q, i);
}

/* Copy a text column into a fixed buffer; a longer one is an error. */
static int column_text(struct store *st, sqlite3_stmt *q, int i, char *buf,
		       size_t len, struct base_err *err)
{
	const unsigned char *t = sqlite3_column_text(q, i);
	size_t n = t ? strlen((const char *)t) : 0;

	if (n >= len)
		return base_err_set(err, -EIO, "database '%s': a bisect text of %zu bytes is longer than %zu",
				    st->path, n, len - 1);
	memcpy(buf, t ? (const char *)t : "", n + 1);
	return 0;
}

void store_bisect_release(struct store_bisect *b)
{
	if (!b)
		return;
	free(b->config);
	b->config = NULL;
}

int store_bisect_add(struct store *st, struct store_bisect *b,
		     struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int64_t id;
	int rc, ret;

	if (!b->config)
		return base_err_set(err, -EINVAL, "a bisect needs its configuration");
	if ((ret = check_version(st, err)) || (ret = store_begin(st, err)))
		return ret;
	if ((ret = store_prepare(st, "SELECT COALESCE(MAX(id), 0) + 1 FROM bisects", &q, err)))
		goto fail;
	rc = sqlite3_step(q);
	id = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW) {
		ret = store_sql_err(st, rc, "numbering a bisect", err);
		goto fail;
	}
	if ((ret = store_prepare(st, "INSERT INTO bisects (id, good_label, bad_label, config_key, "
				 "metric, config, created_at_ns, alpha, beta, conf, side_conf, "
				 "min_change_pct, min_reps, max_reps) "
				 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
				 &q, err)))
		goto fail;
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, b->good_label);
	bind_text(q, 3, b->bad_label);
	bind_text(q, 4, b->config_key);
	bind_text(q, 5, b->metric);
	bind_text(q, 6, b->config);
	sqlite3_bind_int64(q, 7, b->created_at_ns ? b->created_at_ns : now_ns());
	sqlite3_bind_double(q, 8, b->alpha);
	sqlite3_bind_double(q, 9, b->beta);
	sqlite3_bind_double(q, 10, b->conf);
	sqlite3_bind_double(q, 11, b->side_conf);
	sqlite3_bind_double(q, 12, b->min_change_pct);
	sqlite3_bind_int64(q, 13, b->min_reps);
	sqlite3_bind_int64(q, 14, b->max_reps);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		ret = store_sql_err(st, rc, "adding a bisect", err);
		goto fail;
	}
	if ((ret = store_commit(st, err)))
		return ret;
	b->id = id;
	return 0;
fail:
	store_rollback(st);
	return ret;
}

int store_bisect_get(struct store *st, int64_t id, struct store_bisect *out,
		     struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	const char *config;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = check_version(st, err)))
		return ret;
	if ((ret = store_prepare(st, id ?
				 "SELECT id, good_label, bad_label, config_key, metric, config, "
				 "created_at_ns, alpha, beta, conf, side_conf, min_change_pct, "
				 "min_reps, max_reps FROM bisects WHERE id = ?1" :
				 "SELECT id, good_label, bad_label, config_key, metric, config, "
				 "created_at_ns, alpha, beta, conf, side_conf, min_change_pct, "
				 "min_reps, max_reps FROM bisects ORDER BY id DESC LIMIT 1",
				 &q, err)))
		return ret;
	if (id)
		sqlite3_bind_int64(q, 1, id);
	rc = sqlite3_step(q);
	if (rc == SQLITE_DONE) {
		ret = id ? base_err_set(err, -ENOENT, "no bisect %" PRId64 " in database '%s'",
					id, st->path) :
			   base_err_set(err, -ENOENT, "no bisect in database '%s': start one with 'netregress bisect start'",
					st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = store_sql_err(st, rc, "reading a bisect", err);
		goto out;
	}
	out->id = sqlite3_column_int64(q, 0);
	if ((ret = column_text(st, q, 1, out->good_label, sizeof(out->good_label), err)) ||
	    (ret = column_text(st, q, 2, out->bad_label, sizeof(out->bad_label), err)) ||
	    (ret = column_text(st, q, 3, out->config_key, sizeof(out->config_key), err)) ||
	    (ret = column_text(st, q, 4, out->metric, sizeof(out->metric), err)))
		goto out;
	config = (const char *)sqlite3_column_text(q, 5);
	out->config = strdup(config ? config : "");
	if (!out->config) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	out->created_at_ns = sqlite3_column_int64(q, 6);
	out->alpha = sqlite3_column_double(q, 7);
	out->beta = sqlite3_column_double(q, 8);
	out->conf = sqlite3_column_double(q, 9);
	out->side_conf = sqlite3_column_double(q, 10);
	out->min_change_pct = sqlite3_column_double(q, 11);
	out->min_reps = sqlite3_column_int64(q, 12);
	out->max_reps = sqlite3_column_int64(q, 13);
out:
	sqlite3_finalize(q);
	if (ret)
		store_bisect_release(out);
	return ret;
}

int store_bisect_step_label(int64_t bisect_id, const char *commit, char *buf,
			    size_t len)
{
	/* a sample's label holds 127 bytes */
	size_t cap = len < 128 ? len : 128;
	int n = snprintf(buf, cap, "bisect:%" PRId64 ":%s", bisect_id, commit);

	return n < 0 || (size_t)n >= cap ? -EINVAL : 0;
}

#define STEP_COLUMNS \
	"bisect_id, commit_id, label, step_order, verdict, n, position, " \
	"position_lo, position_hi, llr, first_at_ns, updated_at_ns"

static int read_step(struct store *st, sqlite3_stmt *q,
		     struct store_bisect_step *s, struct base_err *err)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->bisect_id = sqlite3_column_int64(q, 0);
	if ((ret = column_text(st, q, 1, s->commit, sizeof(s->commit), err)) ||
	    (ret = column_text(st, q, 2, s->label, sizeof(s->label), err)) ||
	    (ret = column_text(st, q, 4, s->verdict, sizeof(s->verdict), err)))
		return ret;
	s->step_order = sqlite3_column_int64(q, 3);
	s->n = sqlite3_column_int64(q, 5);
	s->position = column_double(q, 6);
	s->position_lo = column_double(q, 7);
	s->position_hi = column_double(q, 8);
	s->llr = column_double(q, 9);
	s->first_at_ns = sqlite3_column_int64(q, 10);
	s->updated_at_ns = sqlite3_column_int64(q, 11);
	return 0;
}

int store_bisect_step_get(struct store *st, int64_t bisect_id,
			  const char *commit, struct store_bisect_step *out,
			  struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int rc, ret;

	if ((ret = check_version(st, err)) ||
	    (ret = store_prepare(st, "SELECT " STEP_COLUMNS " FROM bisect_steps "
				 "WHERE bisect_id = ?1 AND commit_id = ?2", &q, err)))
		return ret;
	sqlite3_bind_int64(q, 1, bisect_id);
	bind_text(q, 2, commit);
	rc = sqlite3_step(q);
	if (rc == SQLITE_ROW)
		ret = read_step(st, q, out, err);
	else if (rc == SQLITE_DONE)
		ret = -ENOENT;
	else
		ret = store_sql_err(st, rc, "reading a bisect step", err);
	sqlite3_finalize(q);
	return ret;
}

static void bind_step(sqlite3_stmt *q, const struct store_bisect_step *s,
		      int64_t now)
{
	sqlite3_bind_int64(q, 1, s->bisect_id);
	bind_text(q, 2, s->commit);
	bind_text(q, 3, s->label);
	bind_text(q, 4, s->verdict);
	sqlite3_bind_int64(q, 5, s->n);
	bind_double(q, 6, s->position);
	bind_double(q, 7, s->position_lo);
	bind_double(q, 8, s->position_hi);
	bind_double(q, 9, s->llr);
	sqlite3_bind_int64(q, 10, s->updated_at_ns ? s->updated_at_ns : now);
}

int store_bisect_step_put(struct store *st, const struct store_bisect_step *s,
			  struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int64_t now = now_ns();
	int rc, ret;

	if (!s->commit[0] || strlen(s->commit) > STORE_BISECT_COMMIT_MAX)
		return base_err_set(err, -EINVAL, "invalid commit id '%.40s' for a bisect step",
				    s->commit);
	if ((ret = check_version(st, err)) || (ret = store_begin(st, err)))
		return ret;
	/* update, else insert: plain SQL (no upsert clause) */
	if ((ret = store_prepare(st, "UPDATE bisect_steps SET label = ?3, verdict = ?4, n = ?5, "
				 "position = ?6, position_lo = ?7, position_hi = ?8, llr = ?9, "
				 "updated_at_ns = ?10 WHERE bisect_id = ?1 AND commit_id = ?2",
				 &q, err)))
		goto fail;
	bind_step(q, s, now);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc != SQLITE_DONE) {
		ret = store_sql_err(st, rc, "updating a bisect step", err);
		goto fail;
	}
	if (sqlite3_changes(st->db) == 0) {
		if ((ret = store_prepare(st, "INSERT INTO bisect_steps (" STEP_COLUMNS ") "
					 "SELECT ?1, ?2, ?3, (SELECT COALESCE(MAX(step_order), 0) + 1 "
					 "FROM bisect_steps WHERE bisect_id = ?1), ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?10",
					 &q, err)))
			goto fail;
		bind_step(q, s, now);
		rc = sqlite3_step(q);
		sqlite3_finalize(q);
		if ((rc & 0xff) == SQLITE_CONSTRAINT) {
			ret = base_err_set(err, -EINVAL, "database '%s' has no bisect %" PRId64,
					   st->path, s->bisect_id);
			goto fail;
		}
		if (rc != SQLITE_DONE) {
			ret = store_sql_err(st, rc, "adding a bisect step", err);
			goto fail;
		}
	}
	return store_commit(st, err);
fail:
	store_rollback(st);
	return ret;
}

int store_bisect_steps(struct store *st, int64_t bisect_id,
		       int (*cb)(void *ctx, const struct store_bisect_step *s),
		       void *ctx, struct base_err *err)
{
	struct store_bisect_step s;
	sqlite3_stmt *q = NULL;
	int rc, ret;

	if ((ret = check_version(st, err)) ||
	    (ret = store_prepare(st, "SELECT " STEP_COLUMNS " FROM bisect_steps "
				 "WHERE bisect_id = ?1 ORDER BY step_order", &q, err)))
		return ret;
	sqlite3_bind_int64(q, 1, bisect_id);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if ((ret = read_step(st, q, &s, err)) || (ret = cb(ctx, &s)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_sql_err(st, rc, "reading bisect steps", err);
out:
	sqlite3_finalize(q);
	return ret;
}
