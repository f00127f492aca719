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
 * Inside a transaction: store s (parsed from doc, whose compact text is
 * doc_text) unless its id is stored already.
 */
int store_insert(struct store *st, const struct base_sample *s,
		 const char *doc_text, bool *inserted, struct base_err *err);

#endif
