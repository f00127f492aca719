// SPDX-License-Identifier: GPL-2.0-only
/* Opening the store: checks that refuse foreign or newer files, WAL, and migrations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "store/internal.h"

/*
 * migrations[v] takes the schema from version v to v + 1. The SQL is plain
 * enough to run unchanged on PostgreSQL (docs/schema.md): ids are assigned
 * by the inserts, not by SQLite's rowid, and 64-bit columns are BIGINT.
 */
struct migration {
	const char *sql;
	/* then the data the SQL cannot move (NULL: none) */
	int (*move)(struct store *st, struct base_err *err);
};

static const struct migration migrations[STORE_SCHEMA_VERSION] = {
	/* 0 -> 1: the first schema */
	{ "CREATE TABLE samples (\n"
	  "	id INTEGER PRIMARY KEY,\n"
	  "	sample_uid TEXT NOT NULL UNIQUE,\n"
	  "	label TEXT NOT NULL,\n"
	  "	config_key TEXT NOT NULL,\n"
	  "	test TEXT NOT NULL,\n"
	  "	started_at_ns BIGINT,\n"
	  "	duration_ns BIGINT,\n"
	  "	warmup_ns BIGINT,\n"
	  "	server TEXT,\n"
	  "	env_fingerprint TEXT NOT NULL,\n"
	  "	run_order INTEGER NOT NULL,\n"
	  "	doc TEXT NOT NULL\n"
	  ");\n"
	  "CREATE UNIQUE INDEX samples_by_config ON samples (label, config_key, run_order);\n"
	  "CREATE TABLE params (\n"
	  "	sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE,\n"
	  "	name TEXT NOT NULL,\n"
	  "	value TEXT NOT NULL,\n"
	  "	PRIMARY KEY (sample_id, name)\n"
	  ");\n"
	  "CREATE TABLE metrics (\n"
	  "	sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE,\n"
	  "	name TEXT NOT NULL,\n"
	  "	value DOUBLE PRECISION NOT NULL,\n"
	  "	unit TEXT NOT NULL,\n"
	  "	PRIMARY KEY (sample_id, name)\n"
	  ");\n"
	  "CREATE INDEX metrics_by_name ON metrics (name);\n"
	  "CREATE TABLE env (\n"
	  "	sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE,\n"
	  "	key TEXT NOT NULL,\n"
	  "	value TEXT NOT NULL,\n"
	  "	PRIMARY KEY (sample_id, key)\n"
	  ");\n", NULL },
	/*
	 * 1 -> 2: each distinct environment snapshot once, referenced by the
	 * samples; the documents stored with one lose their "sysenv" to it
	 */
	{ "CREATE TABLE environments (\n"
	  "	fingerprint TEXT PRIMARY KEY,\n"
	  "	doc TEXT NOT NULL\n"
	  ");\n"
	  "ALTER TABLE samples ADD COLUMN client_env TEXT NULL REFERENCES environments (fingerprint);\n"
	  "ALTER TABLE samples ADD COLUMN server_env TEXT NULL REFERENCES environments (fingerprint);\n",
	  store_migrate_sysenv },
	/*
	 * 2 -> 3: bisects (endpoints, configuration, rule) and their steps'
	 * verdicts; a step's samples are ordinary samples under its label
	 */
	{ "CREATE TABLE bisects (\n"
	  "	id INTEGER PRIMARY KEY,\n"
	  "	good_label TEXT NOT NULL,\n"
	  "	bad_label TEXT NOT NULL,\n"
	  "	config_key TEXT NOT NULL,\n"
	  "	metric TEXT NOT NULL,\n"
	  "	config TEXT NOT NULL,\n"
	  "	created_at_ns BIGINT NOT NULL,\n"
	  "	alpha DOUBLE PRECISION NOT NULL,\n"
	  "	beta DOUBLE PRECISION NOT NULL,\n"
	  "	conf DOUBLE PRECISION NOT NULL,\n"
	  "	side_conf DOUBLE PRECISION NOT NULL,\n"
	  "	min_change_pct DOUBLE PRECISION NOT NULL,\n"
	  "	min_reps INTEGER NOT NULL,\n"
	  "	max_reps INTEGER NOT NULL\n"
	  ");\n"
	  "CREATE TABLE bisect_steps (\n"
	  "	bisect_id INTEGER NOT NULL REFERENCES bisects (id) ON DELETE CASCADE,\n"
	  "	commit_id TEXT NOT NULL,\n"
	  "	label TEXT NOT NULL,\n"
	  "	step_order INTEGER NOT NULL,\n"
	  "	verdict TEXT NOT NULL,\n"
	  "	n INTEGER NOT NULL,\n"
	  "	position DOUBLE PRECISION NULL,\n"
	  "	position_lo DOUBLE PRECISION NULL,\n"
	  "	position_hi DOUBLE PRECISION NULL,\n"
	  "	llr DOUBLE PRECISION NULL,\n"
	  "	first_at_ns BIGINT NOT NULL,\n"
	  "	updated_at_ns BIGINT NOT NULL,\n"
	  "	PRIMARY KEY (bisect_id, commit_id)\n"
	  ");\n", NULL },
};

int store_sql_err(struct store *st, int rc, const char *what,
		  struct base_err *err)
{
	const char *msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);
	int sys;

	st->last_rc = rc;
	if (rc == SQLITE_READONLY_DIRECTORY || rc == SQLITE_READONLY_CANTINIT)
		return base_err_set(err, -EROFS,
				    "database '%s' is in a folder this process cannot write (sqlite needs its -wal and -shm files there)",
				    st->path);
	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return base_err_set(err, -EBUSY,
				    "database '%s' is locked by another process (waited %d ms while %s)",
				    st->path, st->busy_timeout_ms, what);
	case SQLITE_NOTADB:
		return base_err_set(err, -EINVAL,
				    "'%s' is not an sqlite database (%s)",
				    st->path, msg);
	case SQLITE_CORRUPT:
		return base_err_set(err, -EIO, "database '%s' is corrupt (%s)",
				    st->path, msg);
	case SQLITE_READONLY:
		return base_err_set(err, -EROFS,
				    "database '%s' cannot be written while %s (%s)",
				    st->path, what, msg);
	case SQLITE_FULL:
		return base_err_set(err, -ENOSPC,
				    "database '%s' is full while %s (%s)",
				    st->path, what, msg);
	case SQLITE_NOMEM:
		return base_err_set(err, -ENOMEM, "out of memory while %s", what);
	case SQLITE_CANTOPEN:
		sys = st->db ? sqlite3_system_errno(st->db) : 0;
		return base_err_set(err, sys > 0 ? -sys : -EIO,
				    "cannot open database '%s': %s",
				    st->path, sys > 0 ? strerror(sys) : msg);
	case SQLITE_CONSTRAINT:
		return base_err_set(err, -EINVAL, "database '%s': %s while %s",
				    st->path, msg, what);
	default:
		return base_err_set(err, -EIO, "database '%s': %s while %s",
				    st->path, msg, what);
	}
}

int store_exec(struct store *st, const char *sql, const char *what,
	       struct base_err *err)
{
	int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_sql_err(st, rc, what, err);
}

int store_prepare(struct store *st, const char *sql, sqlite3_stmt **stmt,
		  struct base_err *err)
{
	int rc = sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL);

	if (rc == SQLITE_OK)
		return 0;
	*stmt = NULL;
	return store_sql_err(st, rc, "preparing a query", err);
}

int store_begin(struct store *st, struct base_err *err)
{
	if (st->readonly)
		return base_err_set(err, -EROFS, "database '%s' was opened read-only",
				    st->path);
	return store_exec(st, "BEGIN IMMEDIATE", "starting a write", err);
}

void store_rollback(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_commit(struct store *st, struct base_err *err)
{
	int ret = store_exec(st, "COMMIT", "committing", err);

	if (ret)
		store_rollback(st);
	return ret;
}

/* One integer from a query that returns one row (a PRAGMA, a count). */
static int query_int(struct store *st, const char *sql, const char *what,
		     int64_t *out, struct base_err *err)
{
	sqlite3_stmt *stmt;
	int rc, ret;

	rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc, what, err);
	rc = sqlite3_step(stmt);
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_int64(stmt, 0);
		ret = 0;
	} else {
		ret = store_sql_err(st, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				    what, err);
	}
	sqlite3_finalize(stmt);
	return ret;
}

int store_schema_version(struct store *st, int *version, struct base_err *err)
{
	int64_t v;
	int ret = query_int(st, "PRAGMA user_version", "reading the schema version",
			    &v, err);

	if (!ret)
		*version = (int)v;
	return ret;
}

/*
 * Is this file ours, and can this code read it? Only reads: a file that
 * fails here is left exactly as it was. *version gets its schema version.
 * Call it inside a transaction, so that the reads see one state of a file
 * another process may be migrating.
 */
static int check_file_tx(struct store *st, int64_t *version, struct base_err *err)
{
	int64_t app, ntables;
	int ret;

	/* the first read parses the header: not-a-database and corruption show here */
	if ((ret = query_int(st, "PRAGMA application_id", "reading the header",
			     &app, err)) ||
	    (ret = query_int(st, "PRAGMA user_version", "reading the schema version",
			     version, err)) ||
	    (ret = query_int(st, "SELECT count(*) FROM sqlite_master",
			     "reading the schema", &ntables, err)))
		return ret;
	if (app != 0 && app != STORE_APPLICATION_ID)
		return base_err_set(err, -EINVAL,
				    "'%s' is an sqlite database of another application (application_id 0x%llx), not a netregress store",
				    st->path, (unsigned long long)app);
	if (*version > STORE_SCHEMA_VERSION)
		return base_err_set(err, -ENOTSUP,
				    "database '%s' has schema version %lld, newer than this netregress supports (%d): upgrade netregress",
				    st->path, (long long)*version, STORE_SCHEMA_VERSION);
	if (*version < 0 || (*version > 0 && app == 0) ||
	    (*version == 0 && ntables > 0))
		return base_err_set(err, -EINVAL,
				    "'%s' is an sqlite database but not a netregress store (user_version %lld, %lld schema entries)",
				    st->path, (long long)*version, (long long)ntables);
	return 0;
}

static int check_file(struct store *st, int64_t *version, struct base_err *err)
{
	int ret = store_exec(st, "BEGIN", "reading the header", err);

	if (!ret)
		ret = check_file_tx(st, version, err);
	/* a read transaction: ending it writes nothing */
	store_rollback(st);
	return ret;
}

/* Bring the schema to STORE_SCHEMA_VERSION in one transaction. */
static int migrate(struct store *st, struct base_err *err)
{
	char sql[96];
	int64_t version;
	int ret;

	if ((ret = store_begin(st, err)))
		return ret;
	/* again under the write lock: another process may have migrated it */
	if ((ret = check_file_tx(st, &version, err)))
		goto fail;
	if (version == STORE_SCHEMA_VERSION)
		return store_commit(st, err);
	for (int64_t v = version; v < STORE_SCHEMA_VERSION; v++) {
		if ((ret = store_exec(st, migrations[v].sql,
				      v ? "migrating the schema" : "creating the schema", err)) ||
		    (migrations[v].move && (ret = migrations[v].move(st, err))))
			goto fail;
	}
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d; PRAGMA user_version = %d",
		 STORE_APPLICATION_ID, STORE_SCHEMA_VERSION);
	if ((ret = store_exec(st, sql, "setting the schema version", err)))
		goto fail;
	return store_commit(st, err);
fail:
	store_rollback(st);
	return ret;
}

/*
 * Switching to WAL upgrades a read lock to a write lock, and SQLite never
 * calls the busy handler for that (it could deadlock two upgraders); two
 * processes opening a new store at once meet here, so wait by hand.
 */
static int use_wal(struct store *st, struct base_err *err)
{
	const struct timespec pause = { 0, 2 * 1000 * 1000 };
	int waited_ms = 0, rc;

	for (;;) {
		rc = sqlite3_exec(st->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || waited_ms >= st->busy_timeout_ms)
			break;
		nanosleep(&pause, NULL);
		waited_ms += 2;
	}
	return rc == SQLITE_OK ? 0 : store_sql_err(st, rc, "switching to WAL mode", err);
}

static int configure(struct store *st, struct base_err *err)
{
	bool mem = !strcmp(st->path, ":memory:");
	int64_t version;
	int ret;

	sqlite3_busy_timeout(st->db, st->busy_timeout_ms);
	sqlite3_extended_result_codes(st->db, 1);
	if (!st->readonly && sqlite3_db_readonly(st->db, "main") == 1)
		return base_err_set(err, -EROFS,
				    "database '%s' is read-only for this process (open it read-only, or fix its permissions)",
				    st->path);
	if ((ret = store_exec(st, "PRAGMA foreign_keys = ON", "enabling foreign keys", err)) ||
	    (ret = check_file(st, &version, err)))
		return ret;
	if (st->readonly) {
		/*
		 * Version 1 is read as it is (its documents hold their
		 * snapshots); writing migrates it. Version 0 has no tables.
		 */
		if (version < STORE_READ_MIN_VERSION)
			return base_err_set(err, -EINVAL,
					    "database '%s' has schema version %lld, this netregress needs %d: run any write command (run, import) once to create or migrate it",
					    st->path, (long long)version, STORE_SCHEMA_VERSION);
		st->version = (int)version;
		return 0;
	}
	/*
	 * After the checks and the migration, so that a refused file is
	 * never switched to WAL: the header can pass the checks while the
	 * pages behind it are damaged, and then the migration fails (its
	 * transaction rolled back, the file as it was).
	 */
	if (version < STORE_SCHEMA_VERSION && (ret = migrate(st, err)))
		return ret;
	if (!mem && (ret = use_wal(st, err)))
		return ret;
	st->version = STORE_SCHEMA_VERSION;
	return 0;
}

/* "file:<path>?immutable=1", the path %-escaped where a URI needs it. */
static char *immutable_uri(const char *path)
{
	size_t cap = 3 * strlen(path) + 32, len;
	char *uri = malloc(cap);

	if (!uri)
		return NULL;
	len = (size_t)snprintf(uri, cap, "file:");
	for (; *path; path++) {
		if (*path == '%' || *path == '?' || *path == '#')
			len += (size_t)snprintf(uri + len, cap - len, "%%%02X",
						(unsigned char)*path);
		else
			uri[len++] = *path;
	}
	snprintf(uri + len, cap - len, "?immutable=1");
	return uri;
}

/*
 * A reader that cannot write the folder cannot make the -shm file WAL mode
 * needs. With no -wal file left (no writer active, everything checkpointed)
 * the main file is the whole database: read it as immutable.
 */
static int open_immutable(struct store *st, struct base_err *err)
{
	char wal[4096];
	struct stat sb;
	char *uri;
	int rc;

	snprintf(wal, sizeof(wal), "%s-wal", st->path);
	if (!stat(wal, &sb) && sb.st_size > 0)
		return base_err_set(err, -EROFS,
				    "database '%s' has unsaved changes in '%s' and is in a folder this process cannot write",
				    st->path, wal);
	uri = immutable_uri(st->path);
	if (!uri)
		return base_err_set(err, -ENOMEM, "out of memory");
	sqlite3_close_v2(st->db);
	st->db = NULL;
	rc = sqlite3_open_v2(uri, &st->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
	free(uri);
	if (rc != SQLITE_OK)
		return store_sql_err(st, rc, "opening", err);
	return configure(st, err);
}

int store_open(const char *path, unsigned flags, struct store **out,
	       struct base_err *err)
{
	bool mem = !strcmp(path, ":memory:");
	struct store *st;
	struct stat sb;
	int oflags, rc, ret;

	*out = NULL;
	if ((flags & ~(STORE_READONLY | STORE_CREATE)) ||
	    ((flags & STORE_READONLY) && (flags & STORE_CREATE)))
		return base_err_set(err, -EINVAL, "invalid store flags 0x%x", flags);
	if (!path[0])
		return base_err_set(err, -EINVAL, "empty database path");
	if (!mem) {
		if (stat(path, &sb)) {
			if (errno != ENOENT || !(flags & STORE_CREATE))
				return base_err_set(err, -errno,
						    "cannot open database '%s': %s",
						    path, strerror(errno));
		} else if (S_ISDIR(sb.st_mode)) {
			return base_err_set(err, -EISDIR,
					    "cannot open database '%s': it is a directory",
					    path);
		}
	}
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	st->readonly = flags & STORE_READONLY;
	st->busy_timeout_ms = STORE_BUSY_TIMEOUT_MS;
	oflags = st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
	if (flags & STORE_CREATE)
		oflags |= SQLITE_OPEN_CREATE;
	rc = sqlite3_open_v2(path, &st->db, oflags, NULL);
	if (rc != SQLITE_OK)
		ret = store_sql_err(st, rc, "opening", err);
	else
		ret = configure(st, err);
	if (ret && st->readonly && !mem &&
	    (st->last_rc == SQLITE_READONLY_DIRECTORY ||
	     st->last_rc == SQLITE_READONLY_CANTINIT))
		ret = open_immutable(st, err);
	if (ret) {
		store_close(st);
		return ret;
	}
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	sqlite3_close_v2(st->db);
	free(st->path);
	free(st);
}

void store_set_busy_timeout_ms(struct store *st, int ms)
{
	st->busy_timeout_ms = ms < 0 ? 0 : ms;
	sqlite3_busy_timeout(st->db, st->busy_timeout_ms);
}
