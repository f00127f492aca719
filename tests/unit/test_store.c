// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for store/: schema, samples in and out, import/export, and files it must refuse untouched. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "base/err.h"
#include "base/sample.h"
#include "store/store.h"
#include "testdata.h"

static char tmpdir[64];
static unsigned id_seq;

/* ---- helpers ---------------------------------------------------------- */

static const char *tmp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", tmpdir, name);
	return buf;
}

static bool exists(const char *path)
{
	return access(path, F_OK) == 0;
}

static void write_all(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* The bytes of a file, to prove an operation left it alone. */
struct snapshot {
	char *bytes;
	size_t len;
};

static void snap(const char *path, struct snapshot *s)
{
	s->bytes = testdata_read(path, &s->len);
}

static void expect_unchanged(const char *path, struct snapshot *s)
{
	size_t len;
	char *now = testdata_read(path, &len);

	if (len != s->len || memcmp(now, s->bytes, len))
		fail_msg("'%s' changed: %zu bytes before, %zu after", path,
			 s->len, len);
	free(now);
	free(s->bytes);
}

/* Plain sqlite3 on a file, as another program would. */
static void raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	char *msg = NULL;

	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(db);
}

static int64_t raw_int(const char *path, const char *sql)
{
	sqlite3_stmt *q;
	sqlite3 *db;
	int64_t v;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	v = sqlite3_column_int64(q, 0);
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

/* A sample of label with configuration msg=<msg>; ids are unique per process. */
static void make(struct base_sample *s, const char *label, int msg, double gbps)
{
	unsigned n = ++id_seq;

	base_sample_init(s);
	snprintf(s->id, sizeof(s->id), "%016llx%016llx",
		 0x5eed000000000000ULL + n, (unsigned long long)getpid());
	snprintf(s->label, sizeof(s->label), "%s", label);
	snprintf(s->config_key, sizeof(s->config_key),
		 "dir=send msg=%d streams=1 test=tcp_stream", msg);
	s->wall_start_ns = 1700000000000000000LL + (int64_t)n * 1000000000LL;
	s->duration_ns = 2000000000;
	s->warmup_ns = 500000000;
	snprintf(s->server, sizeof(s->server), "127.0.0.1:%u", 30000 + n);
	assert_int_equal(base_sample_param(s, "dir", "send"), 0);
	assert_int_equal(base_sample_param(s, "msg", "%d", msg), 0);
	assert_int_equal(base_sample_param(s, "streams", "1"), 0);
	assert_int_equal(base_sample_param(s, "test", "tcp_stream"), 0);
	assert_int_equal(base_sample_env(s, "client.kernel", "%s", label), 0);
	assert_int_equal(base_sample_env(s, "client.machine", "x86_64"), 0);
	assert_int_equal(base_sample_env(s, "client.hostname", "host-%u", n), 0);
	assert_int_equal(base_sample_env(s, "server.kernel", "%s", label), 0);
	assert_int_equal(base_sample_set(s, "throughput.gbps", "Gbps", gbps), 0);
	assert_int_equal(base_sample_set(s, "cpu.client.sys_pct", "%", gbps / 3), 0);
	assert_int_equal(base_sample_alloc_flows(s, 1), 0);
	s->flows[0].id = 0;
	snprintf(s->flows[0].dir, sizeof(s->flows[0].dir), "send");
	s->flows[0].rx_win_bytes = (uint64_t)(gbps * 1e9 / 8 * 2);
	s->flows[0].rx_gbps = gbps;
	s->flows[0].tx_gbps = gbps;
	s->flows[0].has_tcp_info = true;
	s->flows[0].tcpi_rtt_us = 40 + n;
}

static void add(struct store *st, const char *label, int msg, double gbps)
{
	struct base_sample s;
	struct base_err err = { "" };
	bool ins = false;

	make(&s, label, msg, gbps);
	if (store_add_sample(st, &s, &ins, &err))
		fail_msg("add: %s", err.msg);
	assert_true(ins);
	base_sample_release(&s);
}

static struct store *open_ok(const char *path, unsigned flags)
{
	struct base_err err = { "" };
	struct store *st = NULL;

	if (store_open(path, flags, &st, &err))
		fail_msg("open '%s': %s", path, err.msg);
	assert_non_null(st);
	return st;
}

static int sum_rows(void *ctx, const struct store_config_row *row)
{
	*(int64_t *)ctx += row->nsamples;
	return 0;
}

static int64_t count_samples(struct store *st)
{
	struct base_err err = { "" };
	int64_t n = 0;

	if (store_labels(st, sum_rows, &n, &err))
		fail_msg("labels: %s", err.msg);
	return n;
}

/* Every stored document as a JSON array (in load order) with run orders. */
struct loaded {
	json_t *docs;
	int64_t run_order[64];
	size_t n;
};

static int collect(void *ctx, const struct base_sample *s, int64_t run_order)
{
	struct loaded *l = ctx;

	assert_true(l->n < ARRAY_SIZE(l->run_order));
	l->run_order[l->n++] = run_order;
	json_array_append_new(l->docs, base_sample_to_json(s));
	return 0;
}

static void load(struct store *st, const char *label, const char *config,
		 struct loaded *l)
{
	struct base_err err = { "" };

	l->docs = json_array();
	l->n = 0;
	if (store_load_samples(st, label, config, collect, l, &err))
		fail_msg("load: %s", err.msg);
}

static void expect_open_fails(const char *path, unsigned flags, int want,
			      const char *msg_part)
{
	struct base_err err = { "" };
	struct store *st = (struct store *)&err; /* must be reset to NULL */
	int ret = store_open(path, flags, &st, &err);

	if (ret != want || !strstr(err.msg, msg_part))
		fail_msg("open '%s': got %d '%s', want %d '...%s...'", path, ret,
			 err.msg, want, msg_part);
	assert_null(st);
}

/* ---- schema and open -------------------------------------------------- */

static void test_open_memory_creates_the_current_schema(void **state)
{
	struct base_err err = { "" };
	struct store *st = open_ok(":memory:", STORE_CREATE);
	int v = -1;

	(void)state;
	assert_int_equal(store_schema_version(st, &v, &err), 0);
	assert_int_equal(v, STORE_SCHEMA_VERSION);
	assert_int_equal(count_samples(st), 0);
	store_close(st);
	store_close(NULL);
}

static void test_open_file_creates_schema_user_version_and_wal(void **state)
{
	char path[128];
	struct store *st;

	(void)state;
	tmp_path(path, sizeof(path), "schema.db");
	st = open_ok(path, STORE_CREATE);
	store_close(st);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(path, "PRAGMA application_id"), STORE_APPLICATION_ID);
	/* WAL is recorded in the file header (bytes 18, 19 = 2) */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
				 "name IN ('samples', 'params', 'metrics', 'env', 'environments')"), 5);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
				 "name IN ('samples_by_config', 'metrics_by_name')"), 2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_table_info('samples')"), 14);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_foreign_key_list('samples') "
				 "WHERE \"table\" = 'environments' AND \"from\" IN ('client_env', 'server_env')"), 2);
}

static void test_open_twice_leaves_schema_and_samples_alone(void **state)
{
	char path[128];
	struct snapshot before;
	struct store *st;

	(void)state;
	tmp_path(path, sizeof(path), "twice.db");
	st = open_ok(path, STORE_CREATE);
	add(st, "a", 64, 1.0);
	store_close(st);
	snap(path, &before);
	st = open_ok(path, STORE_CREATE);
	store_close(st);
	st = open_ok(path, 0);
	assert_int_equal(count_samples(st), 1);
	store_close(st);
	/* an open of a current store migrates nothing and writes nothing */
	expect_unchanged(path, &before);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	/* samples, params, metrics, env, environments; bisects, bisect_steps */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE type = 'table'"), 7);
}

static void test_open_missing_file_without_create_is_enoent(void **state)
{
	char path[128];

	(void)state;
	tmp_path(path, sizeof(path), "missing.db");
	expect_open_fails(path, 0, -ENOENT, "cannot open database '");
	expect_open_fails(path, STORE_READONLY, -ENOENT, "missing.db': No such file");
	assert_false(exists(path));
	expect_open_fails(path, STORE_READONLY | STORE_CREATE, -EINVAL, "invalid store flags");
	expect_open_fails(path, 0x80, -EINVAL, "invalid store flags 0x80");
	expect_open_fails(tmpdir, STORE_CREATE, -EISDIR, "it is a directory");
}

/* A text file named like a database: refused by name, not a byte written. */
static void test_open_text_file_is_refused_untouched(void **state)
{
	char path[128], side[160];
	struct snapshot before;

	(void)state;
	tmp_path(path, sizeof(path), "x.db");
	write_all(path, "this is not a database\nbut a note someone kept\n");
	snap(path, &before);
	expect_open_fails(path, STORE_CREATE, -EINVAL, "is not an sqlite database");
	expect_open_fails(path, 0, -EINVAL, "'");
	expect_open_fails(path, STORE_READONLY, -EINVAL, "x.db' is not an sqlite database");
	expect_unchanged(path, &before);
	snprintf(side, sizeof(side), "%s-wal", path);
	assert_false(exists(side));
	snprintf(side, sizeof(side), "%s-journal", path);
	assert_false(exists(side));
}

/* A store cut short (a copy that stopped half way) is corrupt: refused untouched. */
static void test_open_truncated_store_is_refused_untouched(void **state)
{
	char path[128];
	struct snapshot before;
	struct store *st;
	size_t len;
	char *bytes;

	(void)state;
	tmp_path(path, sizeof(path), "trunc.db");
	st = open_ok(path, STORE_CREATE);
	for (int i = 0; i < 40; i++)
		add(st, "t", 64 + i, 1.0 + i);
	store_close(st);
	bytes = testdata_read(path, &len);
	assert_true(len >= 8 * 4096);
	assert_int_equal(truncate(path, (off_t)(len / 2)), 0);
	free(bytes);
	snap(path, &before);
	expect_open_fails(path, 0, -EIO, "is corrupt");
	expect_open_fails(path, STORE_CREATE, -EIO, "trunc.db' is corrupt");
	expect_open_fails(path, STORE_READONLY, -EIO, "is corrupt");
	expect_unchanged(path, &before);
}

/*
 * A database whose schema page lists no table (its one entry cut out)
 * and whose last page is cut short passes the header checks; creating
 * the schema then meets the damage. Refused, and not switched to WAL on
 * the way (found by tests/fuzz: fuzz_store).
 */
static void test_open_damaged_empty_database_is_refused_untouched(void **state)
{
	char path[128];
	struct snapshot before;
	FILE *f;

	(void)state;
	tmp_path(path, sizeof(path), "damaged.db");
	raw_exec(path, "PRAGMA page_size = 512; CREATE TABLE foo (a)");
	/* page 1's b-tree header starts at byte 100: no cell, and its cell
	 * content area is said to start at byte 65536 of a 512-byte page */
	f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, 103, SEEK_SET), 0);
	assert_int_equal(fwrite("\0\0\0\0", 1, 4, f), 4);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(truncate(path, 761), 0);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master"), 0);
	snap(path, &before);
	expect_open_fails(path, 0, -EIO, "damaged.db' is corrupt");
	expect_unchanged(path, &before);
	snap(path, &before);
	expect_open_fails(path, STORE_CREATE, -EIO, "is corrupt");
	expect_unchanged(path, &before);
}

static void test_open_newer_schema_version_is_refused_untouched(void **state)
{
	char path[128], want[256];
	struct snapshot before;
	struct store *st;

	(void)state;
	tmp_path(path, sizeof(path), "newer.db");
	st = open_ok(path, STORE_CREATE);
	add(st, "n", 64, 1.0);
	store_close(st);
	raw_exec(path, "PRAGMA user_version = 99");
	snap(path, &before);
	snprintf(want, sizeof(want),
		 "database '%s' has schema version 99, newer than this netregress supports (%d)",
		 path, STORE_SCHEMA_VERSION);
	expect_open_fails(path, STORE_CREATE, -ENOTSUP, want);
	expect_open_fails(path, 0, -ENOTSUP, want);
	expect_open_fails(path, STORE_READONLY, -ENOTSUP, want);
	expect_unchanged(path, &before);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 99);

	/* the very next version too: this code cannot know what it changed */
	snprintf(want, sizeof(want), "PRAGMA user_version = %d", STORE_SCHEMA_VERSION + 1);
	raw_exec(path, want);
	snap(path, &before);
	snprintf(want, sizeof(want),
		 "database '%s' has schema version %d, newer than this netregress supports (%d)",
		 path, STORE_SCHEMA_VERSION + 1, STORE_SCHEMA_VERSION);
	expect_open_fails(path, STORE_CREATE, -ENOTSUP, want);
	expect_open_fails(path, STORE_READONLY, -ENOTSUP, want);
	expect_unchanged(path, &before);
}

/* A newer version on a database made by hand (no store ever opened it). */
static void test_open_newer_hand_made_database_names_both_versions(void **state)
{
	char path[128], want[128];
	struct snapshot before;

	(void)state;
	tmp_path(path, sizeof(path), "hand.db");
	raw_exec(path, "PRAGMA user_version = 99");
	snap(path, &before);
	snprintf(want, sizeof(want), "schema version 99, newer than this netregress supports (%d)",
		 STORE_SCHEMA_VERSION);
	expect_open_fails(path, STORE_CREATE, -ENOTSUP, want);
	expect_unchanged(path, &before);
}

static void test_open_other_applications_database_is_refused_untouched(void **state)
{
	char path[128];
	struct snapshot before;

	(void)state;
	tmp_path(path, sizeof(path), "other.db");
	raw_exec(path, "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')");
	snap(path, &before);
	expect_open_fails(path, STORE_CREATE, -EINVAL, "is an sqlite database but not a netregress store");
	expect_unchanged(path, &before);
	tmp_path(path, sizeof(path), "other-app.db");
	raw_exec(path, "PRAGMA application_id = 1234");
	snap(path, &before);
	expect_open_fails(path, STORE_CREATE, -EINVAL, "another application (application_id 0x4d2)");
	expect_unchanged(path, &before);
}

/* An empty file is an empty database: it becomes a store. */
static void test_open_empty_file_becomes_a_store(void **state)
{
	char path[128];
	struct store *st;

	(void)state;
	tmp_path(path, sizeof(path), "empty.db");
	write_all(path, "");
	expect_open_fails(path, STORE_READONLY, -EINVAL,
			  "has schema version 0, this netregress needs 3: run any write command (run, import) once to create or migrate it");
	st = open_ok(path, 0);
	add(st, "e", 64, 1.0);
	store_close(st);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples"), 1);
}

/* ---- locking and read-only ------------------------------------------- */

static void test_locked_store_is_a_clear_error_and_unchanged(void **state)
{
	char path[128], jpath[128], want[256];
	struct base_err err = { "" };
	struct snapshot before;
	struct base_sample s;
	struct store *st;
	sqlite3 *holder;
	size_t added = 7, skipped = 7;
	bool ins = true;

	(void)state;
	tmp_path(path, sizeof(path), "locked.db");
	tmp_path(jpath, sizeof(jpath), "locked.jsonl");
	st = open_ok(path, STORE_CREATE);
	add(st, "l", 64, 1.0);
	store_close(st);
	snap(path, &before);

	/* another writer holds the write lock for longer than we wait */
	assert_int_equal(sqlite3_open(path, &holder), SQLITE_OK);
	assert_int_equal(sqlite3_exec(holder, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);

	/* opening a current store needs no write lock */
	st = open_ok(path, 0);
	store_set_busy_timeout_ms(st, 50);
	make(&s, "l", 64, 2.0);
	snprintf(want, sizeof(want), "database '%s' is locked by another process", path);
	assert_int_equal(store_add_sample(st, &s, &ins, &err), -EBUSY);
	assert_false(ins);
	if (!strstr(err.msg, want))
		fail_msg("got '%s'", err.msg);

	write_all(jpath, "");
	assert_int_equal(store_import_file(st, jpath, &added, &skipped, &err), -EBUSY);
	assert_non_null(strstr(err.msg, want));
	assert_int_equal(added + skipped, 0);
	/* reads go on while another process writes */
	assert_int_equal(count_samples(st), 1);

	sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(holder);
	expect_unchanged(path, &before);

	/* the lock gone, the same sample goes in */
	if (store_add_sample(st, &s, &ins, &err))
		fail_msg("add: %s", err.msg);
	assert_true(ins);
	base_sample_release(&s);
	store_close(st);
}

static void test_readonly_open_reads_and_refuses_writes(void **state)
{
	char path[128], jpath[128];
	struct base_err err = { "" };
	struct snapshot before;
	struct base_sample s;
	struct loaded l;
	struct store *st;

	(void)state;
	tmp_path(path, sizeof(path), "ro.db");
	tmp_path(jpath, sizeof(jpath), "ro.jsonl");
	st = open_ok(path, STORE_CREATE);
	add(st, "r", 64, 3.0);
	store_close(st);
	snap(path, &before);

	st = open_ok(path, STORE_READONLY);
	load(st, "r", NULL, &l);
	assert_int_equal(l.n, 1);
	json_decref(l.docs);
	make(&s, "r", 64, 1.0);
	assert_int_equal(store_add_sample(st, &s, NULL, &err), -EROFS);
	assert_non_null(strstr(err.msg, "was opened read-only"));
	write_all(jpath, "");
	assert_int_equal(store_import_file(st, jpath, NULL, NULL, &err), -EROFS);
	base_sample_release(&s);
	store_close(st);
	expect_unchanged(path, &before);
}

/*
 * chmod 0444: permission bits do not stop root, so as root the check runs
 * in a child that drops to nobody (65534); it is skipped if that fails.
 */
static void test_open_for_writing_a_file_without_write_permission_is_erofs(void **state)
{
	char path[128];
	struct snapshot before;
	struct store *st;
	int status;
	pid_t pid;

	(void)state;
	tmp_path(path, sizeof(path), "perm ?%#.db"); /* a URI needs these escaped */
	st = open_ok(path, STORE_CREATE);
	add(st, "p", 64, 1.0);
	store_close(st);
	assert_int_equal(chmod(path, 0444), 0);
	snap(path, &before);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct base_err err = { "" };
		struct store *c = NULL;
		int ret;

		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(77);
		ret = store_open(path, 0, &c, &err);
		if (ret != -EROFS || !strstr(err.msg, "is read-only for this process")) {
			fprintf(stderr, "writer open: %d %s\n", ret, err.msg);
			_exit(1);
		}
		/* a reader that cannot write the folder still reads the store */
		if (store_open(path, STORE_READONLY, &c, &err)) {
			fprintf(stderr, "reader open: %s\n", err.msg);
			_exit(2);
		}
		ret = count_samples(c) == 1 ? 0 : 3;
		store_close(c);
		_exit(ret);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
	expect_unchanged(path, &before);
	chmod(path, 0644);
}

/* Two processes opening a new store at once and writing in turn lose nothing. */
static void test_concurrent_writers_each_commit_every_sample(void **state)
{
	char path[128];
	struct loaded l;
	struct store *st;
	pid_t pid[2];
	int status;

	(void)state;
	tmp_path(path, sizeof(path), "concurrent.db");
	for (int p = 0; p < 2; p++) {
		pid[p] = fork();
		assert_true(pid[p] >= 0);
		if (pid[p] == 0) {
			struct base_err err = { "" };
			struct store *c = NULL;
			struct base_sample s;
			int ret;

			id_seq = 1000 * (unsigned)(p + 1);
			if (store_open(path, STORE_CREATE, &c, &err)) {
				fprintf(stderr, "child %d: open: %s\n", p, err.msg);
				_exit(1);
			}
			for (int i = 0; i < 25; i++) {
				make(&s, "c", 64, 1.0 + i);
				ret = store_add_sample(c, &s, NULL, &err);
				base_sample_release(&s);
				if (ret) {
					fprintf(stderr, "child %d: add: %s\n", p, err.msg);
					_exit(2);
				}
			}
			store_close(c);
			_exit(0);
		}
	}
	for (int p = 0; p < 2; p++) {
		assert_int_equal(waitpid(pid[p], &status, 0), pid[p]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	st = open_ok(path, 0);
	load(st, "c", NULL, &l);
	assert_int_equal(l.n, 50);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.run_order[i], (int64_t)i + 1);
	json_decref(l.docs);
	store_close(st);
}

/* ---- samples in and out ---------------------------------------------- */

static void test_add_sample_then_duplicate_is_skipped(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	struct base_sample s;
	bool ins = false;

	(void)state;
	make(&s, "a", 64, 1.5);
	assert_int_equal(store_add_sample(st, &s, &ins, &err), 0);
	assert_true(ins);
	/* the same id again, even with other values: skipped, not an error */
	s.metrics[0].value = 99;
	assert_int_equal(store_add_sample(st, &s, &ins, &err), 0);
	assert_false(ins);
	assert_int_equal(store_add_sample(st, &s, NULL, &err), 0);
	assert_int_equal(count_samples(st), 1);
	base_sample_release(&s);
	store_close(st);
}

static void test_add_sample_refuses_what_json_would_drop(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	struct base_sample s;
	bool ins = true;

	(void)state;
	make(&s, "a", 64, 1.5);
	assert_int_equal(base_sample_set(&s, "latency.p99_us", "us", NAN), 0);
	assert_int_equal(store_add_sample(st, &s, &ins, &err), -EINVAL);
	assert_false(ins);
	assert_non_null(strstr(err.msg, "metric 'latency.p99_us' is not a finite number"));
	assert_non_null(strstr(err.msg, s.id));
	base_sample_release(&s);

	make(&s, "a", 64, 1.5);
	assert_int_equal(base_sample_param(&s, "cc", "bad\xff"), 0);
	assert_int_equal(store_add_sample(st, &s, &ins, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "parameter 'cc' cannot be stored"));
	base_sample_release(&s);

	make(&s, "a", 64, 1.5);
	s.id[0] = '\0';
	assert_int_equal(store_add_sample(st, &s, &ins, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'sample_id' must not be empty"));
	base_sample_release(&s);
	assert_int_equal(count_samples(st), 0);
	store_close(st);
}

static void test_run_order_counts_per_label_and_config(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct loaded l;

	(void)state;
	/* interleaved, as a matrix runs them */
	for (int round = 0; round < 3; round++) {
		add(st, "A", 64, 1.0 + round);
		add(st, "A", 256, 2.0 + round);
		if (round < 2)
			add(st, "B", 64, 3.0 + round);
	}
	load(st, "A", "dir=send msg=64 streams=1 test=tcp_stream", &l);
	assert_int_equal(l.n, 3);
	for (size_t i = 0; i < l.n; i++)
		assert_int_equal(l.run_order[i], (int64_t)i + 1);
	json_decref(l.docs);
	load(st, "B", NULL, &l);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.run_order[0], 1);
	assert_int_equal(l.run_order[1], 2);
	json_decref(l.docs);
	/* everything: by label, config_key, then run order */
	load(st, NULL, NULL, &l);
	assert_int_equal(l.n, 8);
	{
		static const int64_t want[] = { 1, 2, 3, 1, 2, 3, 1, 2 };

		for (size_t i = 0; i < l.n; i++)
			assert_int_equal(l.run_order[i], want[i]);
	}
	json_decref(l.docs);
	/* one configuration across labels */
	load(st, NULL, "dir=send msg=64 streams=1 test=tcp_stream", &l);
	assert_int_equal(l.n, 5);
	json_decref(l.docs);
	store_close(st);
}

struct rows {
	struct store_config_row row[8];
	char text[8][3][128];
	size_t n;
};

static int keep_row(void *ctx, const struct store_config_row *row)
{
	struct rows *r = ctx;

	assert_true(r->n < ARRAY_SIZE(r->row));
	r->row[r->n] = *row;
	snprintf(r->text[r->n][0], 128, "%s", row->label);
	snprintf(r->text[r->n][1], 128, "%s", row->config_key);
	snprintf(r->text[r->n][2], 128, "%s", row->test);
	r->row[r->n].label = r->text[r->n][0];
	r->row[r->n].config_key = r->text[r->n][1];
	r->row[r->n].test = r->text[r->n][2];
	r->n++;
	return 0;
}

static void test_labels_and_configs_give_one_row_per_config(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	struct base_sample s;
	struct rows r = { .n = 0 };
	int64_t t0;

	(void)state;
	t0 = 1700000000000000000LL + (int64_t)(id_seq + 1) * 1000000000LL;
	add(st, "6.2", 256, 5.0);
	add(st, "6.1", 64, 1.0);
	add(st, "6.1", 64, 1.1);
	add(st, "6.1", 256, 4.0);
	/* the same label on another kernel build: a second fingerprint */
	make(&s, "6.1", 64, 1.2);
	snprintf(s.env[0].val, sizeof(s.env[0].val), "6.1-other");
	assert_int_equal(store_add_sample(st, &s, NULL, &err), 0);
	base_sample_release(&s);

	assert_int_equal(store_labels(st, keep_row, &r, &err), 0);
	assert_int_equal(r.n, 3);
	assert_string_equal(r.row[0].label, "6.1");
	assert_string_equal(r.row[0].config_key, "dir=send msg=256 streams=1 test=tcp_stream");
	assert_int_equal(r.row[0].nsamples, 1);
	assert_string_equal(r.row[1].label, "6.1");
	assert_string_equal(r.row[1].config_key, "dir=send msg=64 streams=1 test=tcp_stream");
	assert_string_equal(r.row[1].test, "tcp_stream");
	assert_int_equal(r.row[1].nsamples, 3);
	assert_true(r.row[1].first_started_at_ns == t0 + 1000000000LL);
	assert_true(r.row[1].last_started_at_ns == t0 + 4000000000LL);
	assert_int_equal(r.row[1].nfingerprints, 2);
	assert_int_equal(r.row[0].nfingerprints, 1);
	assert_string_equal(r.row[2].label, "6.2");
	assert_true(r.row[2].first_started_at_ns == t0);
	assert_true(r.row[2].last_started_at_ns == t0);

	r.n = 0;
	assert_int_equal(store_configs(st, "6.2", keep_row, &r, &err), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.row[0].config_key, "dir=send msg=256 streams=1 test=tcp_stream");
	r.n = 0;
	assert_int_equal(store_configs(st, "7.0", keep_row, &r, &err), 0);
	assert_int_equal(r.n, 0);
	store_close(st);
}

static int stop_at_two(void *ctx, const struct store_config_row *row)
{
	(void)row;
	return ++*(int *)ctx == 2 ? -ECANCELED : 0;
}

static int stop_loading(void *ctx, const struct base_sample *s, int64_t run_order)
{
	(void)s;
	(void)run_order;
	++*(int *)ctx;
	return 1;
}

static void test_a_callback_can_stop_a_query(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	int calls = 0;

	(void)state;
	add(st, "a", 1, 1);
	add(st, "b", 1, 1);
	add(st, "c", 1, 1);
	assert_int_equal(store_labels(st, stop_at_two, &calls, &err), -ECANCELED);
	assert_int_equal(calls, 2);
	calls = 0;
	assert_int_equal(store_load_samples(st, NULL, NULL, stop_loading, &calls, &err), 1);
	assert_int_equal(calls, 1);
	store_close(st);
}

/* A damaged row's id reaches the message escaped: one line, whatever it holds. */
static void test_a_damaged_rows_id_is_quoted_escaped(void **state)
{
	struct base_err err = { .msg = "" };
	char path[128];
	struct store *st;
	int calls = 0;

	(void)state;
	tmp_path(path, sizeof(path), "rowid.db");
	st = open_ok(path, STORE_CREATE);
	add(st, "t", 64, 1.0);
	store_close(st);
	raw_exec(path, "UPDATE samples SET doc = '{', sample_uid = 'ab' || char(10) || 'FORGED'");
	st = open_ok(path, STORE_READONLY);
	assert_int_equal(store_load_samples(st, NULL, NULL, stop_loading, &calls, &err), -EIO);
	assert_int_equal(calls, 0);
	assert_non_null(strstr(err.msg, "sample 'ab\\x0aFORGED' is not json"));
	assert_null(strchr(err.msg, '\n'));
	store_close(st);
}

static void test_load_samples_gives_back_what_was_added(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	struct base_sample in[3];
	struct loaded l;

	(void)state;
	for (int i = 0; i < 3; i++) {
		make(&in[i], "rt", 1024, 9.87654321012345 + i);
		/* more than make() gives: an unknown metric, odd text, a histogram */
		assert_int_equal(base_sample_set(&in[i], "future.metric", "x", -1e-9 * i), 0);
		assert_int_equal(base_sample_env(&in[i], "server.cpu_model", "\"Xeon\" \\ é"), 0);
		if (i == 1) { /* a request/response sample carries its histogram */
			in[i].latency = malloc(sizeof(*in[i].latency));
			assert_non_null(in[i].latency);
			base_hist_init(in[i].latency);
			for (uint64_t v = 1000; v < 5000000; v = v * 5 / 4)
				base_hist_record(in[i].latency, v);
			in[i].flows[0].tps = 12345.5;
		}
		if (store_add_sample(st, &in[i], NULL, &err))
			fail_msg("add: %s", err.msg);
	}
	load(st, "rt", NULL, &l);
	assert_int_equal(l.n, 3);
	for (int i = 0; i < 3; i++) {
		json_t *want = base_sample_to_json(&in[i]);

		if (!json_equal(want, json_array_get(l.docs, (size_t)i))) {
			char *a = json_dumps(want, JSON_COMPACT);
			char *b = json_dumps(json_array_get(l.docs, (size_t)i), JSON_COMPACT);

			fail_msg("sample %d differs:\n%s\n%s", i, a, b);
		}
		json_decref(want);
		base_sample_release(&in[i]);
	}
	json_decref(l.docs);
	store_close(st);
}

static void test_metric_values_come_in_run_order(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	static const double want[] = { 3.5, 1.25, 9.0, 2.0, 0.5 };
	const char *key64 = "dir=send msg=64 streams=1 test=tcp_stream";
	struct base_sample s;
	double *v = NULL;
	size_t n = 99;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		add(st, "m", 64, want[i]);
		add(st, "m", 256, 100 + want[i]);
		add(st, "other", 64, 42);
	}
	/* a sample without the metric is left out */
	make(&s, "m", 64, 7);
	s.nmetrics = 0;
	assert_int_equal(store_add_sample(st, &s, NULL, &err), 0);
	base_sample_release(&s);

	assert_int_equal(store_metric_values(st, "m", key64, "throughput.gbps", &v, &n, &err), 0);
	assert_int_equal(n, ARRAY_SIZE(want));
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] == want[i]);
	free(v);
	/* every configuration of the label: by config_key ("msg=256" < "msg=64") */
	assert_int_equal(store_metric_values(st, "m", NULL, "throughput.gbps", &v, &n, &err), 0);
	assert_int_equal(n, 2 * ARRAY_SIZE(want));
	assert_true(v[0] == 103.5 && v[5] == 3.5 && v[9] == 0.5);
	free(v);
	assert_int_equal(store_metric_values(st, "m", key64, "no.such.metric", &v, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	assert_int_equal(store_metric_values(st, "m", key64, "cpu.client.sys_pct", &v, &n, &err), 0);
	assert_int_equal(n, ARRAY_SIZE(want));
	assert_true(v[2] == 9.0 / 3);
	free(v);
	store_close(st);
}

static void test_env_fingerprint_is_stable_and_ignores_other_entries(void **state)
{
	char a[STORE_FINGERPRINT_LEN + 1], b[STORE_FINGERPRINT_LEN + 1];
	struct base_sample s, t;

	(void)state;
	make(&s, "f", 64, 1);
	make(&t, "f", 256, 2); /* other host name, config and metrics */
	store_env_fingerprint(&s, a);
	store_env_fingerprint(&t, b);
	assert_int_equal(strlen(a), STORE_FINGERPRINT_LEN);
	assert_string_equal(a, b);
	/*
	 * pinned: the hash must not change between versions; the value is from
	 * an independent FNV-1a 64 in Python over the text docs/schema.md gives
	 */
	assert_string_equal(a, "0aac221faab22c57");
	snprintf(t.env[1].val, sizeof(t.env[1].val), "aarch64");
	store_env_fingerprint(&t, b);
	assert_string_not_equal(a, b);
	base_sample_release(&s);
	base_sample_release(&t);
}

/* ---- import and export ------------------------------------------------ */

static char *doc_text(const char *label, int msg, double gbps, size_t flags)
{
	struct base_sample s;
	json_t *doc;
	char *text;

	make(&s, label, msg, gbps);
	doc = base_sample_to_json(&s);
	text = json_dumps(doc, flags);
	json_decref(doc);
	base_sample_release(&s);
	return text;
}

static void import_ok(struct store *st, const char *path, size_t want_added,
		      size_t want_skipped)
{
	struct base_err err = { "" };
	size_t added = 99, skipped = 99;

	if (store_import_file(st, path, &added, &skipped, &err))
		fail_msg("import: %s", err.msg);
	assert_int_equal(added, want_added);
	assert_int_equal(skipped, want_skipped);
}

static void test_import_one_document_an_array_and_json_lines(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	char one[128], arr[128], lines[128], buf[8192];
	char *d[6];

	(void)state;
	for (int i = 0; i < 6; i++)
		d[i] = doc_text("imp", 64, 1.0 + i, i == 0 ? JSON_INDENT(2) : JSON_COMPACT);
	/* one pretty-printed document, with a byte order mark */
	snprintf(buf, sizeof(buf), "\xef\xbb\xbf%s\n", d[0]);
	write_all(tmp_path(one, sizeof(one), "one.json"), buf);
	snprintf(buf, sizeof(buf), "[\n %s,\n %s\n]\n", d[1], d[2]);
	write_all(tmp_path(arr, sizeof(arr), "arr.json"), buf);
	snprintf(buf, sizeof(buf), "%s\n%s\r\n\n%s", d[3], d[4], d[5]);
	write_all(tmp_path(lines, sizeof(lines), "lines.jsonl"), buf);

	import_ok(st, one, 1, 0);
	import_ok(st, arr, 2, 0);
	import_ok(st, lines, 3, 0);
	assert_int_equal(count_samples(st), 6);
	/* again: nothing new */
	import_ok(st, one, 0, 1);
	import_ok(st, arr, 0, 2);
	import_ok(st, lines, 0, 3);
	assert_int_equal(count_samples(st), 6);

	/* a document twice in one file is stored once */
	snprintf(buf, sizeof(buf), "[%s, %s]", d[1], d[1]);
	write_all(arr, buf);
	import_ok(st, arr, 0, 2);
	/* an empty file holds no documents */
	write_all(one, " \n");
	import_ok(st, one, 0, 0);
	write_all(one, "[]");
	import_ok(st, one, 0, 0);
	for (int i = 0; i < 6; i++)
		free(d[i]);
	store_close(st);
}

static void expect_import_fails(struct store *st, const char *path, int want,
				const char *msg)
{
	struct base_err err = { "" };
	size_t added = 99, skipped = 99;
	int ret = store_import_file(st, path, &added, &skipped, &err);

	if (ret != want || strcmp(err.msg, msg))
		fail_msg("import: got %d '%s', want %d '%s'", ret, err.msg, want, msg);
	assert_int_equal(added + skipped, 0);
}

static void test_import_is_all_or_nothing_and_names_file_and_document(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	char path[128], buf[8192], want[512];
	char *good[2], *bad;
	json_t *doc;

	(void)state;
	good[0] = doc_text("all", 64, 1, JSON_COMPACT);
	good[1] = doc_text("all", 64, 2, JSON_COMPACT);
	doc = json_loads(good[1], 0, NULL);
	json_object_set_new(json_object_get(json_object_get(doc, "metrics"), "throughput.gbps"),
			    "value", json_string("fast"));
	json_object_set_new(doc, "sample_id", json_string("ffffffffffffffffffffffffffffffff"));
	bad = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	tmp_path(path, sizeof(path), "bad.jsonl");

	/* JSON lines: the third document is bad; the first two are not kept */
	snprintf(buf, sizeof(buf), "%s\n%s\n%s\n", good[0], good[1], bad);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 3 (line 3): result document: 'metrics.throughput.gbps.value' must be a number",
		 path);
	expect_import_fails(st, path, -EINVAL, want);
	assert_int_equal(count_samples(st), 0);

	/* an array: the second element */
	snprintf(buf, sizeof(buf), "[%s,\n%s]", good[0], bad);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 2: result document: 'metrics.throughput.gbps.value' must be a number",
		 path);
	expect_import_fails(st, path, -EINVAL, want);
	snprintf(buf, sizeof(buf), "[%s, 3]", good[0]);
	write_all(path, buf);
	snprintf(want, sizeof(want), "%s: document 2: not a json object", path);
	expect_import_fails(st, path, -EINVAL, want);

	/* broken json on line 4, after a blank line */
	snprintf(buf, sizeof(buf), "%s\n%s\n\n{\"schema_version\": 1,,}\n", good[0], good[1]);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 3 (line 4): invalid json: string or '}' expected near ','", path);
	expect_import_fails(st, path, -EINVAL, want);
	/* trailing garbage */
	snprintf(buf, sizeof(buf), "%s\ngarbage\n", good[0]);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 2 (line 2): invalid json: '[' or '{' expected near 'garbage'", path);
	expect_import_fails(st, path, -EINVAL, want);
	/* an array is only allowed as the whole file */
	snprintf(buf, sizeof(buf), "%s\n[%s]\n", good[0], good[1]);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 2 (line 2): an array of documents must be the whole file", path);
	expect_import_fails(st, path, -EINVAL, want);
	/* a newer document version */
	snprintf(buf, sizeof(buf), "%s", good[0]);
	memcpy(strstr(buf, "\"schema_version\":1"), "\"schema_version\":7", 18);
	write_all(path, buf);
	snprintf(want, sizeof(want),
		 "%s: document 1 (line 1): result document: schema_version 7 is newer than this netregress reads (1)",
		 path);
	expect_import_fails(st, path, -EINVAL, want);
	assert_int_equal(count_samples(st), 0);

	/* files that cannot be read */
	tmp_path(path, sizeof(path), "nope.json");
	snprintf(want, sizeof(want), "cannot open '%s': No such file or directory", path);
	expect_import_fails(st, path, -ENOENT, want);
	snprintf(want, sizeof(want), "cannot import '%s': it is a directory", tmpdir);
	expect_import_fails(st, tmpdir, -EISDIR, want);
	/* over the cap: a sparse file, nothing is read */
	tmp_path(path, sizeof(path), "huge.json");
	write_all(path, "");
	assert_int_equal(truncate(path, (off_t)STORE_IMPORT_MAX_BYTES + 1), 0);
	snprintf(want, sizeof(want), "'%s' is larger than the import limit of 256 MiB", path);
	expect_import_fails(st, path, -EFBIG, want);
	unlink(path);

	free(good[0]);
	free(good[1]);
	free(bad);
	store_close(st);
}

static void test_export_then_import_gives_identical_samples(void **state)
{
	struct store *a = open_ok(":memory:", STORE_CREATE), *b;
	char p1[128], p2[128], p3[128];
	struct base_err err = { "" };
	struct loaded la, lb;
	char *t1, *t2, *t3;
	size_t n1, n2, n3;
	FILE *f;

	(void)state;
	for (int i = 0; i < 4; i++) {
		add(a, "x", 64, 1.0 / (i + 3));
		add(a, "y", 64, 2.0 + i);
		add(a, "x", 512, 3.0e-7 * i);
	}
	tmp_path(p1, sizeof(p1), "export1.jsonl");
	tmp_path(p2, sizeof(p2), "export2.jsonl");
	tmp_path(p3, sizeof(p3), "export-x.jsonl");
	f = fopen(p1, "w");
	assert_int_equal(store_export(a, NULL, f, &err), 0);
	fclose(f);
	f = fopen(p3, "w");
	assert_int_equal(store_export(a, "x", f, &err), 0);
	fclose(f);

	b = open_ok(":memory:", STORE_CREATE);
	import_ok(b, p1, 12, 0);
	f = fopen(p2, "w");
	assert_int_equal(store_export(b, NULL, f, &err), 0);
	fclose(f);
	t1 = testdata_read(p1, &n1);
	t2 = testdata_read(p2, &n2);
	t3 = testdata_read(p3, &n3);
	/* byte for byte, one document per line */
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	{
		size_t lines = 0;

		for (size_t i = 0; i < n1; i++)
			lines += t1[i] == '\n';
		assert_int_equal(lines, 12);
		lines = 0;
		for (size_t i = 0; i < n3; i++)
			lines += t3[i] == '\n';
		assert_int_equal(lines, 8);
	}
	/* and the same samples in the same run order */
	load(a, NULL, NULL, &la);
	load(b, NULL, NULL, &lb);
	assert_int_equal(la.n, 12);
	assert_int_equal(la.n, lb.n);
	assert_true(json_equal(la.docs, lb.docs));
	assert_memory_equal(la.run_order, lb.run_order, la.n * sizeof(la.run_order[0]));
	json_decref(la.docs);
	json_decref(lb.docs);
	import_ok(b, p3, 0, 8);
	free(t1);
	free(t2);
	free(t3);
	store_close(a);
	store_close(b);
}

static void test_export_reports_a_failed_write(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	FILE *f;

	(void)state;
	add(st, "w", 64, 1);
	f = fopen("/dev/full", "w");
	if (!f) {
		store_close(st);
		skip();
	}
	assert_int_equal(store_export(st, NULL, f, &err), -EIO);
	assert_non_null(strstr(err.msg, "cannot write the export"));
	fclose(f);
	store_close(st);
}

/* ---- environment snapshots (schema 2) --------------------------------- */

/* A copy of the first row's first column as text (NULL for SQL NULL). */
static char *raw_text(const char *path, const char *sql)
{
	sqlite3_stmt *q;
	sqlite3 *db;
	char *v = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &q, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(q), SQLITE_ROW);
	if (sqlite3_column_text(q, 0))
		v = strdup((const char *)sqlite3_column_text(q, 0));
	sqlite3_finalize(q);
	sqlite3_close(db);
	return v;
}

/*
 * One end's snapshot as engine_sysenv_json() makes it, about as large as a
 * real one (550 entries); rss_key stands for the entries the fingerprint
 * leaves out (sysctl.net.core.netdev_rss_key changes at every boot).
 */
static json_t *snapshot(const char *fingerprint, const char *rss_key)
{
	json_t *e = json_object(), *j;
	char k[64], v[64];

	assert_non_null(e);
	json_object_set_new(e, "kernel.release", json_string("6.1.0-18-amd64"));
	json_object_set_new(e, "cmdline", json_string("BOOT_IMAGE=/vmlinuz root=UUID=x ro \"quiet\""));
	json_object_set_new(e, "sysctl.net.core.netdev_rss_key", json_string(rss_key));
	for (int i = 0; i < 547; i++) {
		snprintf(k, sizeof(k), "sysctl.net.ipv4.tunable_%03d", i);
		snprintf(v, sizeof(v), "%d %d %d", i, i * 4096, i * 65536);
		json_object_set_new(e, k, json_string(v));
	}
	j = json_pack("{s:s, s:o}", "fingerprint", fingerprint, "entries", e);
	assert_non_null(j);
	return j;
}

#define FP_C1 "00000000000000c1"
#define FP_C2 "00000000000000c2"
#define FP_S1 "00000000000000a1"

/* make() with the snapshots of both ends (NULL: that side left out), as a run makes it. */
static void make_env(struct base_sample *s, const char *label, int msg,
		     double gbps, const char *client_fp, const char *server_fp)
{
	make(s, label, msg, gbps);
	s->sysenv = json_object();
	assert_non_null(s->sysenv);
	if (client_fp) {
		assert_int_equal(base_sample_env(s, "client.env_fingerprint", "%s", client_fp), 0);
		json_object_set_new(s->sysenv, "client", snapshot(client_fp, "6d:5a:56"));
	}
	if (server_fp) {
		assert_int_equal(base_sample_env(s, "server.env_fingerprint", "%s", server_fp), 0);
		json_object_set_new(s->sysenv, "server", snapshot(server_fp, "6d:5a:56"));
	}
}

static void add_sample_ok(struct store *st, const struct base_sample *s)
{
	struct base_err err = { "" };
	bool ins = false;

	if (store_add_sample(st, s, &ins, &err))
		fail_msg("add: %s", err.msg);
	assert_true(ins);
}

static char *compact(const struct base_sample *s)
{
	json_t *doc = base_sample_to_json(s);
	char *text;

	assert_non_null(doc);
	text = json_dumps(doc, JSON_COMPACT);
	assert_non_null(text);
	json_decref(doc);
	return text;
}

/* What load gives must be what was added, snapshots included. */
static void expect_loaded(struct store *st, json_t *want)
{
	struct loaded l;

	load(st, NULL, NULL, &l);
	if (!json_equal(l.docs, want)) {
		char *a = json_dumps(want, JSON_COMPACT), *b = json_dumps(l.docs, JSON_COMPACT);

		fail_msg("loaded samples differ:\n%.2000s\n%.2000s", a, b);
	}
	json_decref(l.docs);
}

static void test_environments_are_stored_once_and_referenced(void **state)
{
	char path[128], sql[160];
	json_t *want = json_array();
	struct base_sample s;
	struct store *st;
	char *doc, *stored;

	(void)state;
	tmp_path(path, sizeof(path), "envs.db");
	st = open_ok(path, STORE_CREATE);
	for (int i = 0; i < 12; i++) {
		make_env(&s, "env", 64, 1.0 + i, FP_C1, i < 10 ? FP_S1 : FP_C2);
		add_sample_ok(st, &s);
		json_array_append_new(want, base_sample_to_json(&s));
		if (i == 0) {
			/* the row's document is the one without snapshots, byte for byte */
			json_decref(s.sysenv);
			s.sysenv = NULL;
			doc = compact(&s);
			snprintf(sql, sizeof(sql), "SELECT doc FROM samples WHERE sample_uid = '%.32s'", s.id);
			stored = raw_text(path, sql);
			assert_string_equal(stored, doc);
			free(stored);
			free(doc);
		}
		base_sample_release(&s);
	}
	/* one row per distinct snapshot, whichever end it came from */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM environments"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE client_env = '" FP_C1 "'"), 12);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE server_env = '" FP_S1 "'"), 10);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE server_env = '" FP_C2 "'"), 2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE doc LIKE '%sysenv%'"), 0);
	/* a snapshot is the side's object, compact */
	stored = raw_text(path, "SELECT doc FROM environments WHERE fingerprint = '" FP_S1 "'");
	doc = json_dumps(json_object_get(json_object_get(json_array_get(want, 0), "sysenv"), "server"),
			 JSON_COMPACT);
	assert_string_equal(stored, doc);
	free(stored);
	free(doc);
	/* a row is now far smaller than its snapshots */
	assert_true(raw_int(path, "SELECT max(length(doc)) FROM samples") * 5 <
		    raw_int(path, "SELECT min(length(doc)) FROM environments"));
	expect_loaded(st, want);
	store_close(st);
	/* read-only too */
	st = open_ok(path, STORE_READONLY);
	expect_loaded(st, want);
	store_close(st);
	json_decref(want);
}

/*
 * A fingerprint covers only what must match for samples to be pooled; a
 * second snapshot under a stored one is not an error, and the first stays.
 */
static void test_a_snapshot_under_a_stored_fingerprint_keeps_the_first(void **state)
{
	char path[128];
	struct base_sample a, b;
	json_t *first, *got;
	struct store *st;
	struct base_err err = { "" };

	(void)state;
	tmp_path(path, sizeof(path), "envsame.db");
	st = open_ok(path, STORE_CREATE);
	make_env(&a, "boot", 64, 1.0, FP_C1, NULL);
	make_env(&b, "boot", 64, 2.0, FP_C1, NULL);
	/* after a reboot: same fingerprint, another rss key */
	json_object_set_new(json_object_get(json_object_get(b.sysenv, "client"), "entries"),
			    "sysctl.net.core.netdev_rss_key", json_string("01:02:03"));
	add_sample_ok(st, &a);
	add_sample_ok(st, &b);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM environments"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE client_env = '" FP_C1 "'"), 2);
	first = json_object_get(a.sysenv, "client");
	assert_int_equal(store_environment(st, FP_C1, &got, &err), 0);
	assert_true(json_equal(got, first));
	json_decref(got);
	/* the second sample comes back with the first snapshot */
	json_decref(b.sysenv);
	b.sysenv = json_incref(a.sysenv);
	{
		json_t *want = json_pack("[o, o]", base_sample_to_json(&a), base_sample_to_json(&b));

		expect_loaded(st, want);
		json_decref(want);
	}
	base_sample_release(&a);
	base_sample_release(&b);
	store_close(st);
}

/* A side without a fingerprint (an error) has no row to go to: it stays, as does an empty sysenv. */
static void test_error_sides_and_an_empty_sysenv_stay_in_the_document(void **state)
{
	char path[128], sql[160];
	json_t *want = json_array();
	struct base_sample s[4];
	struct store *st;
	char *stored;
	static const char *const stays[] = {
		"\"sysenv\":{\"server\":{\"error\":\"no /proc/sys\"}}",
		"\"sysenv\":{}",
		"\"sysenv\":{\"server\":{\"error\":\"no /proc/sys\"}}",
		NULL,
	};

	(void)state;
	tmp_path(path, sizeof(path), "enverr.db");
	st = open_ok(path, STORE_CREATE);
	make_env(&s[0], "err", 64, 1.0, FP_C1, NULL);
	json_object_set_new(s[0].sysenv, "server", json_pack("{s:s}", "error", "no /proc/sys"));
	make_env(&s[1], "err", 64, 2.0, NULL, NULL);
	make_env(&s[2], "err", 64, 3.0, NULL, NULL);
	json_object_set_new(s[2].sysenv, "server", json_pack("{s:s}", "error", "no /proc/sys"));
	make(&s[3], "err", 64, 4.0); /* none at all */
	for (int i = 0; i < 4; i++) {
		add_sample_ok(st, &s[i]);
		json_array_append_new(want, base_sample_to_json(&s[i]));
		snprintf(sql, sizeof(sql), "SELECT doc FROM samples WHERE sample_uid = '%.32s'", s[i].id);
		stored = raw_text(path, sql);
		if (stays[i] ? !strstr(stored, stays[i]) : !!strstr(stored, "sysenv"))
			fail_msg("sample %d stored as %.3000s", i, stored);
		free(stored);
	}
	assert_int_equal(raw_int(path, "SELECT count(*) FROM environments"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE client_env IS NULL"), 3);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE server_env IS NULL"), 4);
	expect_loaded(st, want);
	/* an export puts each back where the document had it */
	{
		char p[128], *text, *line;
		size_t n;
		FILE *f;
		struct base_err err = { "" };

		tmp_path(p, sizeof(p), "enverr.jsonl");
		f = fopen(p, "w");
		assert_int_equal(store_export(st, NULL, f, &err), 0);
		fclose(f);
		text = testdata_read(p, &n);
		line = text;
		for (int i = 0; i < 4; i++) {
			char *doc = compact(&s[i]), *nl = strchr(line, '\n');

			assert_non_null(nl);
			*nl = '\0';
			assert_string_equal(line, doc);
			line = nl + 1;
			free(doc);
		}
		free(text);
	}
	for (int i = 0; i < 4; i++)
		base_sample_release(&s[i]);
	json_decref(want);
	store_close(st);
}

static void test_export_import_with_snapshots_is_byte_identical(void **state)
{
	char p1[128], p2[128], db[128];
	struct store *a = open_ok(":memory:", STORE_CREATE), *b;
	struct base_err err = { "" };
	json_t *want = json_array();
	struct base_sample s;
	char *t1, *t2, *line;
	size_t n1, n2;
	FILE *f;

	(void)state;
	for (int i = 0; i < 9; i++) {
		make_env(&s, i % 2 ? "odd" : "even", 64 << (i % 3), 1.0 / (i + 1), FP_C1,
			 i % 3 ? FP_S1 : FP_C2);
		if (i == 4) { /* with a histogram, which base_sample_to_json() writes after sysenv */
			s.latency = malloc(sizeof(*s.latency));
			assert_non_null(s.latency);
			base_hist_init(s.latency);
			for (uint64_t v = 1000; v < 5000000; v = v * 5 / 4)
				base_hist_record(s.latency, v);
			s.flows[0].tps = 12345.5;
		}
		/* an error side stays in the document, in place: here before the histogram too */
		if (i == 4 || i == 7)
			json_object_set_new(s.sysenv, "server", json_pack("{s:s}", "error", "timed out"));
		add_sample_ok(a, &s);
		t1 = compact(&s);
		json_array_append_new(want, json_string(t1));
		free(t1);
		base_sample_release(&s);
	}
	tmp_path(p1, sizeof(p1), "envexp1.jsonl");
	tmp_path(p2, sizeof(p2), "envexp2.jsonl");
	tmp_path(db, sizeof(db), "envcopy.db");
	f = fopen(p1, "w");
	assert_int_equal(store_export(a, NULL, f, &err), 0);
	fclose(f);
	/* each line is the document as it was added */
	t1 = testdata_read(p1, &n1);
	line = t1;
	for (size_t i = 0; i < json_array_size(want); i++) {
		char *nl = strchr(line, '\n');

		assert_non_null(nl);
		assert_int_equal((size_t)(nl - line), json_string_length(json_array_get(want, i)));
		assert_memory_equal(line, json_string_value(json_array_get(want, i)), (size_t)(nl - line));
		line = nl + 1;
	}
	b = open_ok(db, STORE_CREATE);
	import_ok(b, p1, 9, 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM environments"), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples WHERE doc LIKE '%\"sysenv\"%'"), 2);
	import_ok(b, p1, 0, 9);
	f = fopen(p2, "w");
	assert_int_equal(store_export(b, NULL, f, &err), 0);
	fclose(f);
	t2 = testdata_read(p2, &n2);
	assert_int_equal(n1, n2);
	assert_memory_equal(t1, t2, n1);
	free(t1);
	free(t2);
	json_decref(want);
	store_close(a);
	store_close(b);
}

/* The version 1 schema, as its code created it. */
static const char v1_schema[] =
	"CREATE TABLE samples (id INTEGER PRIMARY KEY, sample_uid TEXT NOT NULL UNIQUE, "
	"label TEXT NOT NULL, config_key TEXT NOT NULL, test TEXT NOT NULL, started_at_ns BIGINT, "
	"duration_ns BIGINT, warmup_ns BIGINT, server TEXT, env_fingerprint TEXT NOT NULL, "
	"run_order INTEGER NOT NULL, doc TEXT NOT NULL);\n"
	"CREATE UNIQUE INDEX samples_by_config ON samples (label, config_key, run_order);\n"
	"CREATE TABLE params (sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE, "
	"name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (sample_id, name));\n"
	"CREATE TABLE metrics (sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE, "
	"name TEXT NOT NULL, value DOUBLE PRECISION NOT NULL, unit TEXT NOT NULL, PRIMARY KEY (sample_id, name));\n"
	"CREATE INDEX metrics_by_name ON metrics (name);\n"
	"CREATE TABLE env (sample_id INTEGER NOT NULL REFERENCES samples (id) ON DELETE CASCADE, "
	"key TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (sample_id, key));\n";

static void make_v1_db(const char *path)
{
	char sql[sizeof(v1_schema) + 128];

	snprintf(sql, sizeof(sql), "%sPRAGMA application_id = %d; PRAGMA user_version = 1;",
		 v1_schema, STORE_APPLICATION_ID);
	raw_exec(path, sql);
}

/* A row as version 1 wrote it: the whole document, snapshots and all. */
static void insert_v1(const char *path, int64_t id, int64_t run_order,
		      const struct base_sample *s, const char *doc)
{
	char fp[STORE_FINGERPRINT_LEN + 1];
	sqlite3_stmt *q;
	sqlite3 *db;

	store_env_fingerprint(s, fp);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
		"INSERT INTO samples VALUES (?1, ?2, ?3, ?4, 'tcp_stream', ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
		-1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_text(q, 2, s->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 3, s->label, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 4, s->config_key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 5, s->wall_start_ns);
	sqlite3_bind_int64(q, 6, s->duration_ns);
	sqlite3_bind_int64(q, 7, s->warmup_ns);
	sqlite3_bind_text(q, 8, s->server, -1, SQLITE_STATIC);
	sqlite3_bind_text(q, 9, fp, -1, SQLITE_STATIC);
	sqlite3_bind_int64(q, 10, run_order);
	sqlite3_bind_text(q, 11, doc, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	assert_int_equal(sqlite3_prepare_v2(db,
		"INSERT INTO metrics VALUES (?1, 'throughput.gbps', ?2, 'Gbps')", -1, &q, NULL), SQLITE_OK);
	sqlite3_bind_int64(q, 1, id);
	sqlite3_bind_double(q, 2, s->metrics[0].value);
	assert_int_equal(sqlite3_step(q), SQLITE_DONE);
	sqlite3_finalize(q);
	sqlite3_close(db);
}

static char *export_text(struct store *st, const char *name)
{
	struct base_err err = { "" };
	char p[128];
	size_t n;
	FILE *f;

	tmp_path(p, sizeof(p), name);
	f = fopen(p, "w");
	assert_non_null(f);
	if (store_export(st, NULL, f, &err))
		fail_msg("export: %s", err.msg);
	fclose(f);
	return testdata_read(p, &n);
}

static void test_a_version_1_database_is_read_as_is_and_migrated_by_a_write(void **state)
{
	char path[128], v1_export[1 << 20] = "";
	struct base_err err = { "" };
	json_t *want = json_array(), *env;
	struct snapshot before;
	struct base_sample s[3], more;
	struct store *st;
	double *v = NULL;
	size_t n = 0;
	char *text;
	int version = 0;

	(void)state;
	tmp_path(path, sizeof(path), "v1.db");
	make_v1_db(path);
	/* stored since today: two with snapshots (one client shared), one from before */
	make_env(&s[0], "old", 64, 1.5, FP_C1, FP_S1);
	make_env(&s[1], "old", 64, 2.5, FP_C1, NULL);
	json_object_set_new(s[1].sysenv, "server", json_pack("{s:s}", "error", "old server"));
	s[1].latency = malloc(sizeof(*s[1].latency));
	assert_non_null(s[1].latency);
	base_hist_init(s[1].latency);
	base_hist_record(s[1].latency, 12345);
	make(&s[2], "old", 64, 3.5);
	for (int i = 0; i < 3; i++) {
		char *doc = compact(&s[i]);

		insert_v1(path, i + 1, i + 1, &s[i], doc);
		assert_true(strlen(v1_export) + strlen(doc) + 2 < sizeof(v1_export));
		strcat(v1_export, doc);
		strcat(v1_export, "\n");
		json_array_append_new(want, base_sample_to_json(&s[i]));
		free(doc);
	}
	snap(path, &before);

	/* read-only: read as it is, nothing written */
	st = open_ok(path, STORE_READONLY);
	assert_int_equal(store_schema_version(st, &version, &err), 0);
	assert_int_equal(version, 1);
	expect_loaded(st, want);
	text = export_text(st, "v1-ro.jsonl");
	assert_string_equal(text, v1_export);
	free(text);
	assert_int_equal(store_environment(st, FP_C1, &env, &err), -ENOENT);
	assert_null(env);
	assert_non_null(strstr(err.msg, "run any write command to migrate it"));
	assert_int_equal(store_metric_values(st, "old", NULL, "throughput.gbps", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	free(v);
	store_close(st);
	expect_unchanged(path, &before);

	/* a write open migrates: snapshots move out, everything reads the same */
	st = open_ok(path, 0);
	assert_int_equal(store_schema_version(st, &version, &err), 0);
	assert_int_equal(version, STORE_SCHEMA_VERSION);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM environments"), 2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE client_env = '" FP_C1 "'"), 2);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE server_env = '" FP_S1 "'"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE client_env IS NULL AND server_env IS NULL"), 1);
	/* only the error side stays in a document */
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE doc LIKE '%sysenv%'"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM samples WHERE doc LIKE "
				 "'%\"sysenv\":{\"server\":{\"error\":\"old server\"}}%'"), 1);
	expect_loaded(st, want);
	text = export_text(st, "v1-migrated.jsonl");
	assert_string_equal(text, v1_export);
	free(text);
	assert_int_equal(store_environment(st, FP_S1, &env, &err), 0);
	assert_true(json_equal(env, json_object_get(s[0].sysenv, "server")));
	json_decref(env);
	/* and it goes on: a new sample of a known environment adds no row */
	make_env(&more, "old", 64, 4.5, FP_C1, FP_S1);
	add_sample_ok(st, &more);
	base_sample_release(&more);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM environments"), 2);
	assert_int_equal(count_samples(st), 4);
	store_close(st);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), STORE_SCHEMA_VERSION);
	/* opening it again migrates nothing */
	st = open_ok(path, 0);
	assert_int_equal(count_samples(st), 4);
	store_close(st);
	for (int i = 0; i < 3; i++)
		base_sample_release(&s[i]);
	json_decref(want);
}

/* A stored snapshot this version cannot read stops the migration; nothing changes. */
static void test_a_version_1_snapshot_that_cannot_be_read_stops_the_migration(void **state)
{
	char path[128], want[512];
	struct base_sample s;
	char *doc, *after;

	(void)state;
	tmp_path(path, sizeof(path), "v1bad.db");
	make_v1_db(path);
	make_env(&s, "bad", 64, 1.5, FP_C1, NULL);
	json_object_set_new(json_object_get(s.sysenv, "client"), "fingerprint",
			    json_string("NOT-HEX"));
	doc = compact(&s);
	insert_v1(path, 1, 1, &s, doc);
	snprintf(want, sizeof(want),
		 "database '%s': sample '%s' cannot be migrated to schema version 2: "
		 "result document: 'sysenv.client.fingerprint' must be 16 lowercase hex digits",
		 path, s.id);
	expect_open_fails(path, 0, -EINVAL, want);
	assert_int_equal(raw_int(path, "PRAGMA user_version"), 1);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM sqlite_master WHERE name = 'environments'"), 0);
	assert_int_equal(raw_int(path, "SELECT count(*) FROM pragma_table_info('samples')"), 12);
	after = raw_text(path, "SELECT doc FROM samples");
	assert_string_equal(after, doc);
	free(after);
	free(doc);
	base_sample_release(&s);
}

static void test_store_environment_gives_a_stored_snapshot_or_enoent(void **state)
{
	struct store *st = open_ok(":memory:", STORE_CREATE);
	struct base_err err = { "" };
	struct base_sample s;
	json_t *env = NULL;

	(void)state;
	make_env(&s, "e", 64, 1.0, FP_C1, FP_S1);
	add_sample_ok(st, &s);
	assert_int_equal(store_environment(st, FP_C1, &env, &err), 0);
	assert_true(json_equal(env, json_object_get(s.sysenv, "client")));
	json_decref(env);
	assert_int_equal(store_environment(st, FP_S1, &env, &err), 0);
	assert_true(json_equal(env, json_object_get(s.sysenv, "server")));
	json_decref(env);
	env = (json_t *)&err;
	assert_int_equal(store_environment(st, "00000000000000ff", &env, &err), -ENOENT);
	assert_null(env);
	assert_string_equal(err.msg, "environment '00000000000000ff' is not stored");
	assert_int_equal(store_environment(st, "00000000000000C1", &env, &err), -EINVAL);
	assert_string_equal(err.msg, "invalid environment fingerprint '00000000000000C1': expected 16 lowercase hex digits");
	assert_int_equal(store_environment(st, "", &env, &err), -EINVAL);
	base_sample_release(&s);
	store_close(st);
}

/* ---- fixture ---------------------------------------------------------- */

static int make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/nr-store-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	/* the permission test drops to nobody, who must reach the files */
	return chmod(tmpdir, 0755);
}

static int remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_memory_creates_the_current_schema),
		cmocka_unit_test(test_open_file_creates_schema_user_version_and_wal),
		cmocka_unit_test(test_open_twice_leaves_schema_and_samples_alone),
		cmocka_unit_test(test_open_missing_file_without_create_is_enoent),
		cmocka_unit_test(test_open_text_file_is_refused_untouched),
		cmocka_unit_test(test_open_truncated_store_is_refused_untouched),
		cmocka_unit_test(test_open_damaged_empty_database_is_refused_untouched),
		cmocka_unit_test(test_open_newer_schema_version_is_refused_untouched),
		cmocka_unit_test(test_open_newer_hand_made_database_names_both_versions),
		cmocka_unit_test(test_open_other_applications_database_is_refused_untouched),
		cmocka_unit_test(test_open_empty_file_becomes_a_store),
		cmocka_unit_test(test_locked_store_is_a_clear_error_and_unchanged),
		cmocka_unit_test(test_readonly_open_reads_and_refuses_writes),
		cmocka_unit_test(test_open_for_writing_a_file_without_write_permission_is_erofs),
		cmocka_unit_test(test_concurrent_writers_each_commit_every_sample),
		cmocka_unit_test(test_add_sample_then_duplicate_is_skipped),
		cmocka_unit_test(test_add_sample_refuses_what_json_would_drop),
		cmocka_unit_test(test_run_order_counts_per_label_and_config),
		cmocka_unit_test(test_labels_and_configs_give_one_row_per_config),
		cmocka_unit_test(test_a_callback_can_stop_a_query),
		cmocka_unit_test(test_a_damaged_rows_id_is_quoted_escaped),
		cmocka_unit_test(test_load_samples_gives_back_what_was_added),
		cmocka_unit_test(test_metric_values_come_in_run_order),
		cmocka_unit_test(test_env_fingerprint_is_stable_and_ignores_other_entries),
		cmocka_unit_test(test_import_one_document_an_array_and_json_lines),
		cmocka_unit_test(test_import_is_all_or_nothing_and_names_file_and_document),
		cmocka_unit_test(test_export_then_import_gives_identical_samples),
		cmocka_unit_test(test_export_reports_a_failed_write),
		cmocka_unit_test(test_environments_are_stored_once_and_referenced),
		cmocka_unit_test(test_a_snapshot_under_a_stored_fingerprint_keeps_the_first),
		cmocka_unit_test(test_error_sides_and_an_empty_sysenv_stay_in_the_document),
		cmocka_unit_test(test_export_import_with_snapshots_is_byte_identical),
		cmocka_unit_test(test_a_version_1_database_is_read_as_is_and_migrated_by_a_write),
		cmocka_unit_test(test_a_version_1_snapshot_that_cannot_be_read_stops_the_migration),
		cmocka_unit_test(test_store_environment_gives_a_stored_snapshot_or_enoent),
	};

	return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
