/* SPDX-License-Identifier: GPL-2.0-only */
/* What the store's files share: the connection and SQLite error handling. */
#ifndef NR_STORE_INTERNAL_H
#define NR_STORE_INTERNAL_H

#include <sqlite3.h>

#include "store/store.h"

struct store {
	sqlite3 *db;
	char *path;
	bool readonly;
	int busy_timeout_ms;
	int last_rc; /* the last SQLite failure, extended code */
	int version; /* schema version once open: current, or 1 read-only */
};

/*
 * Turn an SQLite result code into a negative errno and a message naming the
 * database; what says what was being done ("adding a sample").
 */
int store_sql_err(struct store *st, int rc, const char *what,
		  struct base_err *err);

/* Run SQL without results. */
int store_exec(struct store *st, const char *sql, const char *what,
	       struct base_err *err);
/* Prepare one statement. */
int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt,
		  struct base_err *err);

/* BEGIN IMMEDIATE (waits for other writers up to the busy timeout). */
int store_begin(struct store *st, struct base_err *err);
/* COMMIT; on failure the transaction is rolled back. */
int store_commit(struct store *st, struct base_err *err);
void store_rollback(struct store *st);

/*
 * Inside a transaction: store s (parsed from doc, so doc's "sysenv" is
 * well-formed) unless its id is stored already: its snapshots go to the
 * environments table, the rest of doc to the samples row.
 */
int store_insert(struct store *st, const struct base_sample *s,
		 const json_t *doc, bool *inserted, struct base_err *err);

/* Inside the migration to version 2: move "sysenv" out of stored documents. */
int store_migrate_sysenv(struct store *st, struct base_err *err);

/*
 * Snapshots read back while loading or exporting: a few parsed ones are
 * kept, since consecutive samples mostly share their environment.
 */
#define STORE_ENV_CACHE_SLOTS 8
struct store_env_cache {
	sqlite3_stmt *q;
	struct {
		char fingerprint[STORE_FINGERPRINT_LEN + 1];
		json_t *doc;
	} slot[STORE_ENV_CACHE_SLOTS];
	unsigned next;
};

void store_env_cache_init(struct store_env_cache *c);
void store_env_cache_release(struct store_env_cache *c);

/*
 * Put the snapshots a stored document refers to (fp[0] client, fp[1]
 * server; NULL when none) back into *doc, where base_sample_to_json() writes
 * them; *doc may be replaced by a new object. *changed (may be NULL) says
 * whether anything was put back. uid names the sample in errors.
 */
int store_attach_sysenv(struct store *st, struct store_env_cache *c,
			json_t **doc, const char *const fp[2], const char *uid,
			bool *changed, struct base_err *err);

#endif
