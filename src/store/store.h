/* SPDX-License-Identifier: GPL-2.0-only */
/* The sample store: SQLite schema, migrations, import and export; no statistics. */
#ifndef NR_STORE_STORE_H
#define NR_STORE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/err.h"
#include "base/sample.h"

/*
 * The store keeps every sample as its result document (docs/results.md) plus
 * the rows that queries need (docs/schema.md). Each sample is committed on
 * its own, so an interrupted run loses at most the sample in flight.
 *
 * A struct store is one SQLite connection: use it from one thread at a time
 * (open one per thread or process; they may write the same file, SQLite
 * serializes the writers). Nothing here prints; every failure returns a
 * negative errno and a one-line message in err naming the bad value.
 * Callbacks must not write to the store they are called from.
 */

#define STORE_SCHEMA_VERSION 3 /* PRAGMA user_version this code writes */
#define STORE_READ_MIN_VERSION 1 /* oldest version read without migrating */
#define STORE_APPLICATION_ID 0x4e524753 /* "NRGS", PRAGMA application_id */
#define STORE_BUSY_TIMEOUT_MS 5000
#define STORE_IMPORT_MAX_BYTES (256u << 20) /* per imported file */
#define STORE_FINGERPRINT_LEN 16 /* hex digits of a 64-bit FNV-1a hash */

/* store_open() flags */
#define STORE_READONLY 0x1u /* no writes, no migration, no WAL switch */
#define STORE_CREATE 0x2u   /* create the file when missing (not with READONLY) */

struct store;

/*
 * Open the store at path (a file name, or ":memory:"). Without STORE_READONLY
 * the database is switched to WAL mode and migrated to STORE_SCHEMA_VERSION in
 * one transaction (an empty database gets the whole schema; a failed
 * migration leaves the schema and the samples as they were). With it,
 * nothing is migrated: versions STORE_READ_MIN_VERSION..STORE_SCHEMA_VERSION
 * are read as they are. Foreign keys are on; the busy timeout is
 * STORE_BUSY_TIMEOUT_MS.
 *
 * Refused without modifying the file: a missing file without STORE_CREATE
 * (-ENOENT); a file that is not an SQLite database (-EINVAL) or is corrupt
 * (-EIO); an SQLite database that is not a netregress store (-EINVAL); a
 * schema version newer than this code's (-ENOTSUP, naming both); a
 * file the process may not write when opened for writing (-EROFS); a
 * migration blocked by another writer past the busy timeout (-EBUSY); an
 * empty database opened read-only (-EINVAL). A migration that meets a stored
 * document it cannot read fails with -EINVAL or -EIO naming the sample.
 *
 * On success *out owns the connection; release it with store_close().
 */
int store_open(const char *path, unsigned flags, struct store **out,
	       struct base_err *err);
/* Close the connection (NULL is fine). */
void store_close(struct store *st);

/* How long a write waits for another writer before failing with -EBUSY. */
void store_set_busy_timeout_ms(struct store *st, int ms);

/* The schema version of the open database (PRAGMA user_version). */
int store_schema_version(struct store *st, int *version, struct base_err *err);

/*
 * Store one sample, committed before returning, in its own transaction.
 * A sample whose id is already stored is skipped: *inserted (may be NULL)
 * says which. run_order is the next number (from 1) within label+config_key.
 * Metric values must be finite. Each snapshot of s->sysenv that has a
 * fingerprint is stored once in the environments table and referenced; when
 * one with the same fingerprint is stored already, that one is kept, and
 * loading gives it back for this sample too (docs/schema.md). Returns 0,
 * -EROFS (opened read-only), -EBUSY (locked past the busy timeout), -EINVAL
 * or -EIO.
 */
int store_add_sample(struct store *st, const struct base_sample *s,
		     bool *inserted, struct base_err *err);

/*
 * The environment fingerprint of a sample: FNV-1a 64 (hex) over the entries
 * that should not differ within a label (kernel, kernel_version, machine,
 * cpu_model, online_cpus of client and server; see docs/schema.md).
 */
void store_env_fingerprint(const struct base_sample *s,
			   char out[STORE_FINGERPRINT_LEN + 1]);

/* One row per label + configuration; pointers live for the callback only. */
struct store_config_row {
	const char *label;
	const char *config_key;
	const char *test;     /* the "test" parameter, "" when absent */
	int64_t nsamples;
	int64_t first_started_at_ns, last_started_at_ns; /* CLOCK_REALTIME */
	int64_t nfingerprints; /* distinct env fingerprints; > 1: env changed */
};

/*
 * Rows of every label + configuration, ordered by label then config_key.
 * A callback returning nonzero stops the query, which returns that value
 * (err is then the callback's business).
 */
int store_labels(struct store *st,
		 int (*cb)(void *ctx, const struct store_config_row *row),
		 void *ctx, struct base_err *err);
/* The same rows for one label, ordered by config_key. */
int store_configs(struct store *st, const char *label,
		  int (*cb)(void *ctx, const struct store_config_row *row),
		  void *ctx, struct base_err *err);

/*
 * Each stored sample of label (NULL = every label) and config_key (NULL =
 * every configuration), parsed from its document with its environment
 * snapshots put back (s->sysenv), ordered by label, config_key, then
 * run_order. The sample lives for the callback only (take a reference to
 * s->sysenv to keep it). Stopping: as store_labels().
 */
int store_load_samples(struct store *st, const char *label,
		       const char *config_key,
		       int (*cb)(void *ctx, const struct base_sample *s,
				 int64_t run_order),
		       void *ctx, struct base_err *err);

/*
 * The environment snapshot stored under fingerprint (16 lowercase hex
 * digits, as in a sample's sysenv.<side>.fingerprint and its
 * "<side>.env_fingerprint" entry): {"fingerprint", "entries"}, a new
 * reference in *out. Returns 0, -ENOENT when none is stored (always, on a
 * version 1 database opened read-only), -EINVAL for a malformed fingerprint,
 * -EIO.
 */
int store_environment(struct store *st, const char *fingerprint, json_t **out,
		      struct base_err *err);

/*
 * The values of one metric for label + config_key (NULL = every
 * configuration, ordered by config_key first), in run order; samples without
 * the metric are left out. *values is malloc'd (NULL when *n is 0) and the
 * caller frees it.
 */
int store_metric_values(struct store *st, const char *label,
			const char *config_key, const char *metric,
			double **values, size_t *n, struct base_err *err);

/*
 * Import the file at path: one result document, a JSON array of them, or a
 * sequence of them (JSON lines). At most STORE_IMPORT_MAX_BYTES. All or
 * nothing: one transaction per file; an error names the file and the
 * document (1-based, with its line for sequences). Samples already stored are
 * counted in *skipped, new ones in *added (either may be NULL).
 */
int store_import_file(struct store *st, const char *path, size_t *added,
		      size_t *skipped, struct base_err *err);

/*
 * Write the stored documents of label (NULL = all) to out as JSON lines, in
 * insertion order, their environment snapshots put back, so that importing
 * them gives identical samples with the same run order (and the export of
 * that store the same bytes). Returns 0, or -EIO when out fails.
 */
int store_export(struct store *st, const char *label, FILE *out,
		 struct base_err *err);
/* The same, only the samples whose configuration key keep() takes (NULL:
 * every one). */
int store_export_where(struct store *st, const char *label,
		       bool (*keep)(void *ctx, const char *config_key), void *ctx, FILE *out,
		       struct base_err *err);

#endif
