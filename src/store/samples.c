// SPDX-License-Identifier: GPL-2.0-only
/* Writing samples and reading rows back: the store hands out data, never statistics. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

/* The environment entries that should not differ within a label. */
static const char *const fingerprint_sides[] = { "client", "server" };
static const char *const fingerprint_keys[] = {
	"kernel", "kernel_version", "machine", "cpu_model", "online_cpus",
};

static uint64_t fnv1a(uint64_t h, const char *p, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

void store_env_fingerprint(const struct base_sample *s,
			   char out[STORE_FINGERPRINT_LEN + 1])
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char key[64];

	/* "side.key=value\n" per entry; "side.key\n" when missing */
	for (size_t i = 0; i < ARRAY_SIZE(fingerprint_sides); i++) {
		for (size_t j = 0; j < ARRAY_SIZE(fingerprint_keys); j++) {
			const char *val = NULL;

			snprintf(key, sizeof(key), "%s.%s", fingerprint_sides[i],
				 fingerprint_keys[j]);
			for (size_t k = 0; k < s->nenv; k++)
				if (!strcmp(s->env[k].key, key))
					val = s->env[k].val;
			h = fnv1a(h, key, strlen(key));
			if (val) {
				h = fnv1a(h, "=", 1);
				h = fnv1a(h, val, strlen(val));
			}
			h = fnv1a(h, "\n", 1);
		}
	}
	snprintf(out, STORE_FINGERPRINT_LEN + 1, "%016" PRIx64, h);
}

static int step_done(struct store *st, sqlite3_stmt *q, const char *what,
		     struct base_err *err)
{
	int rc = sqlite3_step(q);

	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return store_sql_err(st, rc, what, err);
}

static void bind_text(sqlite3_stmt *q, int i, const char *s)
{
	sqlite3_bind_text(q, i, s, -1, SQLITE_STATIC);
}

static int insert_rows(struct store *st, int64_t id, const struct base_sample *s,
		       struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int ret;

	if ((ret = store_prepare(st, "INSERT INTO params (sample_id, name, value) VALUES (?1, ?2, ?3)",
				 &q, err)))
		return ret;
	for (size_t i = 0; i < s->nparams && !ret; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		bind_text(q, 2, s->params[i].key);
		bind_text(q, 3, s->params[i].val);
		ret = step_done(st, q, "storing a parameter", err);
	}
	sqlite3_finalize(q);
	if (ret || (ret = store_prepare(st, "INSERT INTO env (sample_id, key, value) VALUES (?1, ?2, ?3)",
					&q, err)))
		return ret;
	for (size_t i = 0; i < s->nenv && !ret; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		bind_text(q, 2, s->env[i].key);
		bind_text(q, 3, s->env[i].val);
		ret = step_done(st, q, "storing an environment entry", err);
	}
	sqlite3_finalize(q);
	if (ret || (ret = store_prepare(st, "INSERT INTO metrics (sample_id, name, value, unit) VALUES (?1, ?2, ?3, ?4)",
					&q, err)))
		return ret;
	for (size_t i = 0; i < s->nmetrics && !ret; i++) {
		sqlite3_reset(q);
		sqlite3_bind_int64(q, 1, id);
		bind_text(q, 2, s->metrics[i].name);
		sqlite3_bind_double(q, 3, s->metrics[i].value);
		bind_text(q, 4, s->metrics[i].unit);
		ret = step_done(st, q, "storing a metric", err);
	}
	sqlite3_finalize(q);
	return ret;
}

int store_insert(struct store *st, const struct base_sample *s,
		 const char *doc_text, bool *inserted, struct base_err *err)
{
	const char *test = "";
	char fp[STORE_FINGERPRINT_LEN + 1];
	int64_t id, run_order;
	sqlite3_stmt *q = NULL;
	int rc, ret;

	*inserted = false;
	if ((ret = store_prepare(st, "SELECT 1 FROM samples WHERE sample_uid = ?1", &q, err)))
		return ret;
	bind_text(q, 1, s->id);
	rc = sqlite3_step(q);
	sqlite3_finalize(q);
	if (rc == SQLITE_ROW)
		return 0; /* stored already: imports are idempotent */
	if (rc != SQLITE_DONE)
		return store_sql_err(st, rc, "looking up a sample id", err);

	/* ids are assigned here, not by SQLite's rowid, so the SQL stays portable */
	if ((ret = store_prepare(st, "SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM samples), "
				 "(SELECT COALESCE(MAX(run_order), 0) + 1 FROM samples WHERE label = ?1 AND config_key = ?2)",
				 &q, err)))
		return ret;
	bind_text(q, 1, s->label);
	bind_text(q, 2, s->config_key);
	rc = sqlite3_step(q);
	id = sqlite3_column_int64(q, 0);
	run_order = sqlite3_column_int64(q, 1);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW)
		return store_sql_err(st, rc, "numbering a sample", err);

	for (size_t i = 0; i < s->nparams; i++)
		if (!strcmp(s->params[i].key, "test"))
			test = s->params[i].val;
	store_env_fingerprint(s, fp);
	if ((ret = store_prepare(st, "INSERT INTO samples (id, sample_uid, label, config_key, test, "
				 "started_at_ns, duration_ns, warmup_ns, server, env_fingerprint, run_order, doc) "
				 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
				 &q, err)))
		return ret;
	sqlite3_bind_int64(q, 1, id);
	bind_text(q, 2, s->id);
	bind_text(q, 3, s->label);
	bind_text(q, 4, s->config_key);
	bind_text(q, 5, test);
	sqlite3_bind_int64(q, 6, s->wall_start_ns);
	sqlite3_bind_int64(q, 7, s->duration_ns);
	sqlite3_bind_int64(q, 8, s->warmup_ns);
	bind_text(q, 9, s->server);
	bind_text(q, 10, fp);
	sqlite3_bind_int64(q, 11, run_order);
	bind_text(q, 12, doc_text);
	ret = step_done(st, q, "storing a sample", err);
	sqlite3_finalize(q);
	if (ret || (ret = insert_rows(st, id, s, err)))
		return ret;
	*inserted = true;
	return 0;
}

static bool has_kv(const struct sample_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return true;
	return false;
}

/*
 * The document drops what JSON cannot hold (a NaN, a string that is not
 * UTF-8) without a word; storing such a sample would lose data silently.
 */
static int check_nothing_lost(const struct base_sample *s,
			      const struct base_sample *p, struct base_err *err)
{
	for (size_t i = 0; i < s->nmetrics; i++) {
		if (!isfinite(s->metrics[i].value))
			return base_err_set(err, -EINVAL, "metric '%s' is not a finite number (%g)",
					    s->metrics[i].name, s->metrics[i].value);
		if (!base_sample_get(p, s->metrics[i].name))
			return base_err_set(err, -EINVAL, "metric '%s' cannot be stored (not utf-8?)",
					    s->metrics[i].name);
	}
	for (size_t i = 0; i < s->nflows; i++)
		if (!isfinite(s->flows[i].rx_gbps) || !isfinite(s->flows[i].tx_gbps))
			return base_err_set(err, -EINVAL, "flow %zu has a rate that is not a finite number",
					    i);
	if (p->nflows != s->nflows)
		return base_err_set(err, -EINVAL, "a flow cannot be stored (dir not utf-8?)");
	for (size_t i = 0; i < s->nparams; i++)
		if (!has_kv(p->params, p->nparams, s->params[i].key))
			return base_err_set(err, -EINVAL, "parameter '%s' cannot be stored (not utf-8?)",
					    s->params[i].key);
	for (size_t i = 0; i < s->nenv; i++)
		if (strchr(s->env[i].key, '.') &&
		    !has_kv(p->env, p->nenv, s->env[i].key))
			return base_err_set(err, -EINVAL, "environment entry '%s' cannot be stored (not utf-8 or too long?)",
					    s->env[i].key);
	return 0;
}

int store_add_sample(struct store *st, const struct base_sample *s,
		     bool *inserted, struct base_err *err)
{
	struct base_sample parsed;
	bool ins = false;
	char *text = NULL;
	json_t *doc;
	int ret;

	if (inserted)
		*inserted = false;
	if (st->readonly)
		return base_err_set(err, -EROFS, "database '%s' was opened read-only",
				    st->path);
	base_sample_init(&parsed);
	/* store exactly what load will give back: the document, read again */
	doc = base_sample_to_json(s);
	if (!doc) {
		ret = base_err_set(err, -EINVAL,
				   "cannot make the result document (out of memory, or a string that is not utf-8)");
		goto out;
	}
	if ((ret = base_sample_from_json(doc, &parsed, err)) ||
	    (ret = check_nothing_lost(s, &parsed, err)))
		goto out;
	text = json_dumps(doc, JSON_COMPACT);
	if (!text) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if ((ret = store_begin(st, err)))
		goto out;
	if ((ret = store_insert(st, &parsed, text, &ins, err))) {
		store_rollback(st);
		goto out;
	}
	if ((ret = store_commit(st, err)))
		goto out;
	if (inserted)
		*inserted = ins;
out:
	if (ret && err)
		base_err_prefix(err, "sample '%s'", s->id);
	free(text);
	json_decref(doc);
	base_sample_release(&parsed);
	return ret;
}

static int config_rows(struct store *st, const char *label,
		       int (*cb)(void *ctx, const struct store_config_row *row),
		       void *ctx, struct base_err *err)
{
	char sql[512];
	sqlite3_stmt *q;
	int rc, ret;

	snprintf(sql, sizeof(sql),
		 "SELECT label, config_key, test, COUNT(*), MIN(started_at_ns), MAX(started_at_ns), "
		 "COUNT(DISTINCT env_fingerprint) FROM samples %s "
		 "GROUP BY label, config_key, test ORDER BY label, config_key, test",
		 label ? "WHERE label = ?1" : "");
	if ((ret = store_prepare(st, sql, &q, err)))
		return ret;
	if (label)
		bind_text(q, 1, label);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		struct store_config_row row = {
			.label = (const char *)sqlite3_column_text(q, 0),
			.config_key = (const char *)sqlite3_column_text(q, 1),
			.test = (const char *)sqlite3_column_text(q, 2),
			.nsamples = sqlite3_column_int64(q, 3),
			.first_started_at_ns = sqlite3_column_int64(q, 4),
			.last_started_at_ns = sqlite3_column_int64(q, 5),
			.nfingerprints = sqlite3_column_int64(q, 6),
		};

		if (!row.label || !row.config_key || !row.test) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		if ((ret = cb(ctx, &row)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_sql_err(st, rc, "listing labels", err);
out:
	sqlite3_finalize(q);
	return ret;
}

int store_labels(struct store *st,
		 int (*cb)(void *ctx, const struct store_config_row *row),
		 void *ctx, struct base_err *err)
{
	return config_rows(st, NULL, cb, ctx, err);
}

int store_configs(struct store *st, const char *label,
		  int (*cb)(void *ctx, const struct store_config_row *row),
		  void *ctx, struct base_err *err)
{
	if (!label)
		return base_err_set(err, -EINVAL, "no label given");
	return config_rows(st, label, cb, ctx, err);
}

/* " WHERE label = ?1 AND config_key = ?2", or the part of it for the filters given. */
static void where(char *buf, size_t len, const char *p, const char *label,
		  const char *config_key)
{
	if (label && config_key)
		snprintf(buf, len, " WHERE %slabel = ?1 AND %sconfig_key = ?2", p, p);
	else if (label)
		snprintf(buf, len, " WHERE %slabel = ?1", p);
	else if (config_key)
		snprintf(buf, len, " WHERE %sconfig_key = ?2", p);
	else
		buf[0] = '\0';
}

static void bind_filters(sqlite3_stmt *q, const char *label,
			 const char *config_key)
{
	if (label)
		bind_text(q, 1, label);
	if (config_key)
		bind_text(q, 2, config_key);
}

int store_load_samples(struct store *st, const char *label,
		       const char *config_key,
		       int (*cb)(void *ctx, const struct base_sample *s,
				 int64_t run_order),
		       void *ctx, struct base_err *err)
{
	struct base_sample s;
	char sql[256], filt[96];
	sqlite3_stmt *q;
	int rc, ret;

	where(filt, sizeof(filt), "", label, config_key);
	snprintf(sql, sizeof(sql),
		 "SELECT doc, run_order, sample_uid FROM samples%s ORDER BY label, config_key, run_order",
		 filt);
	if ((ret = store_prepare(st, sql, &q, err)))
		return ret;
	bind_filters(q, label, config_key);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(q, 0);
		const char *uid = (const char *)sqlite3_column_text(q, 2);
		json_error_t jerr;
		json_t *doc;

		if (!text || !uid) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		doc = json_loadb(text, (size_t)sqlite3_column_bytes(q, 0), 0, &jerr);
		if (!doc) {
			ret = base_err_set(err, -EIO,
					   "database '%s': the stored document of sample '%s' is not json: %s",
					   st->path, uid, jerr.text);
			goto out;
		}
		base_sample_init(&s);
		ret = base_sample_from_json(doc, &s, err);
		json_decref(doc);
		if (ret) {
			base_err_prefix(err, "database '%s': sample '%s'", st->path, uid);
			goto out;
		}
		ret = cb(ctx, &s, sqlite3_column_int64(q, 1));
		base_sample_release(&s);
		if (ret)
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_sql_err(st, rc, "loading samples", err);
out:
	sqlite3_finalize(q);
	return ret;
}

int store_metric_values(struct store *st, const char *label,
			const char *config_key, const char *metric,
			double **values, size_t *n, struct base_err *err)
{
	char sql[320], filt[96];
	size_t len = 0, cap = 0;
	double *v = NULL;
	sqlite3_stmt *q;
	int rc, ret;

	*values = NULL;
	*n = 0;
	where(filt, sizeof(filt), "s.", label, config_key);
	snprintf(sql, sizeof(sql),
		 "SELECT m.value FROM samples s JOIN metrics m ON m.sample_id = s.id AND m.name = ?3%s "
		 "ORDER BY s.label, s.config_key, s.run_order",
		 filt);
	if ((ret = store_prepare(st, sql, &q, err)))
		return ret;
	bind_filters(q, label, config_key);
	bind_text(q, 3, metric);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			double *p = realloc(v, ncap * sizeof(*v));

			if (!p) {
				ret = base_err_set(err, -ENOMEM, "out of memory");
				goto out;
			}
			v = p;
			cap = ncap;
		}
		v[len++] = sqlite3_column_double(q, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_sql_err(st, rc, "reading metric values", err);
		goto out;
	}
	*values = v;
	*n = len;
	v = NULL;
out:
	free(v);
	sqlite3_finalize(q);
	return ret;
}
