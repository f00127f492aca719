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

static const char *const sysenv_sides[] = { "client", "server" };

/*
 * A document as the samples table keeps it: "sysenv" moves out to the
 * environments table, side by side, by fingerprint. A side without one (an
 * "error") stays in the document; so does an empty "sysenv" ({}): load puts
 * the moved sides back next to what stayed.
 */
struct split_doc {
	char *text;                    /* the document as stored */
	const char *fingerprint[2];    /* client, server; borrowed from doc */
	char *side_text[2];            /* their snapshots, compact */
};

static void split_release(struct split_doc *sp)
{
	free(sp->text);
	for (size_t i = 0; i < 2; i++)
		free(sp->side_text[i]);
}

static int split_doc(const json_t *doc, struct split_doc *sp,
		     struct base_err *err)
{
	const json_t *sysenv = json_object_get(doc, "sysenv");
	json_t *stored = NULL, *stay = NULL, *v;
	const char *key;
	bool moved = false, fail = false;
	int ret = 0;

	memset(sp, 0, sizeof(*sp));
	if (!sysenv) {
		sp->text = json_dumps(doc, JSON_COMPACT);
		goto out;
	}
	stay = json_object();
	stored = json_object();
	if (!stay || !stored)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(sysenv_sides); i++) {
		const json_t *side = json_object_get(sysenv, sysenv_sides[i]);
		const char *fp = json_string_value(json_object_get(side, "fingerprint"));

		if (!side)
			continue;
		if (fp) {
			sp->fingerprint[i] = fp;
			sp->side_text[i] = json_dumps(side, JSON_COMPACT);
			fail |= !sp->side_text[i];
			moved = true;
		} else {
			fail |= json_object_set(stay, sysenv_sides[i], (json_t *)side) != 0;
		}
	}
	/* a copy in the same order, "sysenv" left out or cut down in place */
	json_object_foreach((json_t *)doc, key, v) {
		if (strcmp(key, "sysenv"))
			fail |= json_object_set(stored, key, v) != 0;
		else if (json_object_size(stay) || !moved)
			fail |= json_object_set(stored, key, stay) != 0;
	}
	if (!fail)
		sp->text = json_dumps(stored, JSON_COMPACT);
out:
	if (!sp->text) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		split_release(sp);
		memset(sp, 0, sizeof(*sp));
	}
	json_decref(stay);
	json_decref(stored);
	return ret;
}

/*
 * One row per distinct snapshot. A fingerprint covers only what must match
 * for samples to be pooled, so another snapshot may come with one already
 * stored (a boot changes net.core.netdev_rss_key): the first one is kept.
 */
static int insert_environments(struct store *st, const struct split_doc *sp,
			       struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int ret = 0;

	if (!sp->fingerprint[0] && !sp->fingerprint[1])
		return 0;
	/* not INSERT OR IGNORE / ON CONFLICT: plain SQL, as everywhere here */
	if ((ret = store_prepare(st, "INSERT INTO environments (fingerprint, doc) SELECT ?1, ?2 "
				 "WHERE NOT EXISTS (SELECT 1 FROM environments WHERE fingerprint = ?1)",
				 &q, err)))
		return ret;
	for (size_t i = 0; i < 2 && !ret; i++) {
		if (!sp->fingerprint[i])
			continue;
		sqlite3_reset(q);
		bind_text(q, 1, sp->fingerprint[i]);
		bind_text(q, 2, sp->side_text[i]);
		ret = step_done(st, q, "storing an environment", err);
	}
	sqlite3_finalize(q);
	return ret;
}

static void bind_text_or_null(sqlite3_stmt *q, int i, const char *s)
{
	if (s)
		bind_text(q, i, s);
	else
		sqlite3_bind_null(q, i);
}

int store_insert(struct store *st, const struct base_sample *s,
		 const json_t *doc, bool *inserted, struct base_err *err)
{
	struct split_doc sp = { NULL, { NULL, NULL }, { NULL, NULL } };
	const char *test;
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
	if ((ret = split_doc(doc, &sp, err)) ||
	    (ret = insert_environments(st, &sp, err)))
		goto out;

	/* ids are assigned here, not by SQLite's rowid, so the SQL stays portable */
	if ((ret = store_prepare(st, "SELECT (SELECT COALESCE(MAX(id), 0) + 1 FROM samples), "
				 "(SELECT COALESCE(MAX(run_order), 0) + 1 FROM samples WHERE label = ?1 AND config_key = ?2)",
				 &q, err)))
		goto out;
	bind_text(q, 1, s->label);
	bind_text(q, 2, s->config_key);
	rc = sqlite3_step(q);
	id = sqlite3_column_int64(q, 0);
	run_order = sqlite3_column_int64(q, 1);
	sqlite3_finalize(q);
	if (rc != SQLITE_ROW) {
		ret = store_sql_err(st, rc, "numbering a sample", err);
		goto out;
	}

	test = base_sample_param_get(s, "test", "");
	store_env_fingerprint(s, fp);
	if ((ret = store_prepare(st, "INSERT INTO samples (id, sample_uid, label, config_key, test, "
				 "started_at_ns, duration_ns, warmup_ns, server, env_fingerprint, run_order, doc, "
				 "client_env, server_env) "
				 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
				 &q, err)))
		goto out;
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
	bind_text(q, 12, sp.text);
	bind_text_or_null(q, 13, sp.fingerprint[0]);
	bind_text_or_null(q, 14, sp.fingerprint[1]);
	ret = step_done(st, q, "storing a sample", err);
	sqlite3_finalize(q);
	if (ret || (ret = insert_rows(st, id, s, err)))
		goto out;
	*inserted = true;
out:
	split_release(&sp);
	return ret;
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
	if ((ret = store_begin(st, err)))
		goto out;
	if ((ret = store_insert(st, &parsed, doc, &ins, err))) {
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

static bool valid_fingerprint(const char *fp)
{
	if (strlen(fp) != STORE_FINGERPRINT_LEN)
		return false;
	for (size_t i = 0; i < STORE_FINGERPRINT_LEN; i++)
		if (!((fp[i] >= '0' && fp[i] <= '9') || (fp[i] >= 'a' && fp[i] <= 'f')))
			return false;
	return true;
}

/* One snapshot by fingerprint through the prepared *q (made on first use). */
static int load_environment(struct store *st, sqlite3_stmt **q,
			    const char *fp, json_t **out, struct base_err *err)
{
	json_error_t jerr;
	int rc, ret;

	*out = NULL;
	if (st->version < 2)
		return base_err_set(err, -ENOENT,
				    "environment '%s' is not stored: database '%s' has schema version %d, which keeps snapshots inside each sample (run any write command to migrate it)",
				    fp, st->path, st->version);
	if (!*q && (ret = store_prepare(st, "SELECT doc FROM environments WHERE fingerprint = ?1",
					q, err)))
		return ret;
	sqlite3_reset(*q);
	bind_text(*q, 1, fp);
	rc = sqlite3_step(*q);
	if (rc == SQLITE_DONE)
		return base_err_set(err, -ENOENT, "environment '%s' is not stored", fp);
	if (rc != SQLITE_ROW)
		return store_sql_err(st, rc, "reading an environment", err);
	if (!sqlite3_column_text(*q, 0))
		return base_err_set(err, -ENOMEM, "out of memory");
	*out = json_loadb((const char *)sqlite3_column_text(*q, 0),
			  (size_t)sqlite3_column_bytes(*q, 0), 0, &jerr);
	sqlite3_reset(*q);
	if (!*out)
		return base_err_set(err, -EIO,
				    "database '%s': the stored environment '%s' is not json: %s",
				    st->path, fp, jerr.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return base_err_set(err, -EIO,
				    "database '%s': the stored environment '%s' is not a json object",
				    st->path, fp);
	}
	return 0;
}

int store_environment(struct store *st, const char *fingerprint, json_t **out,
		      struct base_err *err)
{
	sqlite3_stmt *q = NULL;
	int ret;

	*out = NULL;
	if (!valid_fingerprint(fingerprint))
		return base_err_set(err, -EINVAL,
				    "invalid environment fingerprint '%.40s': expected 16 lowercase hex digits",
				    fingerprint);
	ret = load_environment(st, &q, fingerprint, out, err);
	sqlite3_finalize(q);
	return ret;
}

void store_env_cache_init(struct store_env_cache *c)
{
	memset(c, 0, sizeof(*c));
}

void store_env_cache_release(struct store_env_cache *c)
{
	sqlite3_finalize(c->q);
	for (size_t i = 0; i < STORE_ENV_CACHE_SLOTS; i++)
		json_decref(c->slot[i].doc);
	memset(c, 0, sizeof(*c));
}

/* A borrowed reference, valid until the next lookup. */
static int env_cached(struct store *st, struct store_env_cache *c,
		      const char *fp, json_t **out, struct base_err *err)
{
	unsigned i;
	int ret;

	for (i = 0; i < STORE_ENV_CACHE_SLOTS; i++) {
		if (c->slot[i].doc && !strcmp(c->slot[i].fingerprint, fp)) {
			*out = c->slot[i].doc;
			return 0;
		}
	}
	if ((ret = load_environment(st, &c->q, fp, out, err)))
		return ret;
	i = c->next++ % STORE_ENV_CACHE_SLOTS;
	json_decref(c->slot[i].doc);
	c->slot[i].doc = *out;
	snprintf(c->slot[i].fingerprint, sizeof(c->slot[i].fingerprint), "%s", fp);
	return 0;
}

int store_attach_sysenv(struct store *st, struct store_env_cache *c,
			json_t **doc, const char *const fp[2], const char *uid,
			bool *changed, struct base_err *err)
{
	json_t *stayed = json_object_get(*doc, "sysenv"), *sysenv, *copy = NULL,
	       *side, *v;
	const char *key;
	bool fail = false, placed = false;
	int ret = 0;

	if (changed)
		*changed = false;
	/* nothing moved out: what "sysenv" the document has is all of it */
	if (!fp[0] && !fp[1])
		return 0;
	if (stayed && !json_is_object(stayed))
		return base_err_set(err, -EIO,
				    "database '%s': the stored document of sample '%s' has a 'sysenv' that is not an object",
				    st->path, uid);
	sysenv = json_object();
	if (!sysenv)
		return base_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < ARRAY_SIZE(sysenv_sides); i++) {
		side = NULL;
		if (fp[i]) {
			if ((ret = env_cached(st, c, fp[i], &side, err))) {
				base_err_prefix(err, "database '%s': sample '%s'", st->path, uid);
				goto out;
			}
		} else if (stayed) {
			side = json_object_get(stayed, sysenv_sides[i]);
		}
		if (side)
			fail |= json_object_set(sysenv, sysenv_sides[i], side) != 0;
	}
	if (stayed) {
		/* in place: the key keeps its position */
		fail |= json_object_set(*doc, "sysenv", sysenv) != 0;
	} else if (!(copy = json_object())) {
		fail = true;
	} else {
		/* where base_sample_to_json() puts it: after flows, before the histogram */
		json_object_foreach(*doc, key, v) {
			if (!strcmp(key, "latency_histogram_ns")) {
				fail |= json_object_set(copy, "sysenv", sysenv) != 0;
				placed = true;
			}
			fail |= json_object_set(copy, key, v) != 0;
		}
		if (!placed)
			fail |= json_object_set(copy, "sysenv", sysenv) != 0;
	}
	if (fail) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (copy) {
		json_decref(*doc);
		*doc = copy;
		copy = NULL;
	}
	if (changed)
		*changed = true;
out:
	json_decref(copy);
	json_decref(sysenv);
	return ret;
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
	struct store_env_cache cache;
	struct base_sample s;
	char sql[320], filt[96];
	sqlite3_stmt *q;
	int rc, ret;

	where(filt, sizeof(filt), "", label, config_key);
	/* version 1 (read-only) keeps the snapshots inside the documents */
	snprintf(sql, sizeof(sql),
		 "SELECT doc, run_order, sample_uid, %s FROM samples%s ORDER BY label, config_key, run_order",
		 st->version >= 2 ? "client_env, server_env" : "NULL, NULL", filt);
	if ((ret = store_prepare(st, sql, &q, err)))
		return ret;
	store_env_cache_init(&cache);
	bind_filters(q, label, config_key);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *text = (const char *)sqlite3_column_text(q, 0);
		const char *uid_raw = (const char *)sqlite3_column_text(q, 2);
		const char *fp[2] = { (const char *)sqlite3_column_text(q, 3),
				      (const char *)sqlite3_column_text(q, 4) };
		char uid[BASE_QUOTE_LEN];
		json_error_t jerr;
		json_t *doc;

		if (!text || !uid_raw) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		/* for messages: a damaged file can hold anything there */
		base_quote(uid_raw, uid);
		doc = json_loadb(text, (size_t)sqlite3_column_bytes(q, 0), 0, &jerr);
		if (!doc) {
			ret = base_err_set(err, -EIO,
					   "database '%s': the stored document of sample '%s' is not json: %s",
					   st->path, uid, jerr.text);
			goto out;
		}
		if ((ret = store_attach_sysenv(st, &cache, &doc, fp, uid, NULL, err))) {
			json_decref(doc);
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
	store_env_cache_release(&cache);
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

/* One stored document of a version 1 store, its "sysenv" moved out. */
static int migrate_one(struct store *st, sqlite3_stmt *sel, sqlite3_stmt *upd,
		       int64_t id, struct base_err *err)
{
	struct split_doc sp = { NULL, { NULL, NULL }, { NULL, NULL } };
	struct base_sample s;
	json_error_t jerr;
	const char *text;
	json_t *doc = NULL;
	char uid[BASE_QUOTE_LEN];
	int rc, ret = 0;

	base_sample_init(&s);
	sqlite3_reset(sel);
	sqlite3_bind_int64(sel, 1, id);
	rc = sqlite3_step(sel);
	if (rc != SQLITE_ROW) {
		ret = store_sql_err(st, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    "migrating a sample", err);
		goto out;
	}
	text = (const char *)sqlite3_column_text(sel, 1);
	/* for messages: a damaged file can hold anything there */
	base_quote(sqlite3_column_text(sel, 0) ? (const char *)sqlite3_column_text(sel, 0) : "",
		   uid);
	doc = text ? json_loadb(text, (size_t)sqlite3_column_bytes(sel, 1), 0, &jerr) : NULL;
	sqlite3_reset(sel);
	if (!text) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	if (!doc) {
		ret = base_err_set(err, -EIO,
				   "database '%s': the stored document of sample '%s' is not json: %s",
				   st->path, uid, jerr.text);
		goto out;
	}
	if (!json_object_get(doc, "sysenv"))
		goto out; /* "sysenv" was only in a string */
	/* the whole document, as load will check it */
	if ((ret = base_sample_from_json(doc, &s, err))) {
		base_err_prefix(err, "database '%s': sample '%s' cannot be migrated to schema version 2",
				st->path, uid);
		goto out;
	}
	if ((ret = split_doc(doc, &sp, err)) ||
	    (ret = insert_environments(st, &sp, err)))
		goto out;
	sqlite3_reset(upd);
	bind_text(upd, 1, sp.text);
	bind_text_or_null(upd, 2, sp.fingerprint[0]);
	bind_text_or_null(upd, 3, sp.fingerprint[1]);
	sqlite3_bind_int64(upd, 4, id);
	ret = step_done(st, upd, "migrating a sample", err);
	sqlite3_reset(upd);
out:
	split_release(&sp);
	base_sample_release(&s);
	json_decref(doc);
	return ret;
}

int store_migrate_sysenv(struct store *st, struct base_err *err)
{
	sqlite3_stmt *q = NULL, *sel = NULL, *upd = NULL;
	size_t n = 0, cap = 0;
	int64_t *ids = NULL;
	int rc, ret;

	/* ids first: rows are rewritten below, not while this scan runs */
	if ((ret = store_prepare(st, "SELECT id FROM samples WHERE doc LIKE '%\"sysenv\"%' ORDER BY id",
				 &q, err)))
		goto out;
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			int64_t *p = realloc(ids, ncap * sizeof(*ids));

			if (!p) {
				ret = base_err_set(err, -ENOMEM, "out of memory");
				goto out;
			}
			ids = p;
			cap = ncap;
		}
		ids[n++] = sqlite3_column_int64(q, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = store_sql_err(st, rc, "migrating samples", err);
		goto out;
	}
	if ((ret = store_prepare(st, "SELECT sample_uid, doc FROM samples WHERE id = ?1", &sel, err)) ||
	    (ret = store_prepare(st, "UPDATE samples SET doc = ?1, client_env = ?2, server_env = ?3 WHERE id = ?4",
				 &upd, err)))
		goto out;
	for (size_t i = 0; i < n && !ret; i++)
		ret = migrate_one(st, sel, upd, ids[i], err);
out:
	sqlite3_finalize(q);
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	free(ids);
	return ret;
}
