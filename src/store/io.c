// SPDX-License-Identifier: GPL-2.0-only
/* Import of result documents (one, an array, or JSON lines) and export as JSON lines. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/internal.h"

/* The whole file, NUL-terminated, at most STORE_IMPORT_MAX_BYTES. */
static int read_capped(const char *path, char **out, size_t *out_len,
		       struct base_err *err)
{
	size_t len = 0, cap = 64 * 1024;
	char *buf = NULL, *p;
	struct stat sb;
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return base_err_set(err, -errno, "cannot open '%s': %s", path,
				    strerror(errno));
	if (fstat(fd, &sb)) {
		ret = base_err_set(err, -errno, "cannot read '%s': %s", path,
				   strerror(errno));
		goto out;
	}
	if (S_ISDIR(sb.st_mode)) {
		ret = base_err_set(err, -EISDIR, "cannot import '%s': it is a directory",
				   path);
		goto out;
	}
	if (S_ISREG(sb.st_mode)) {
		if ((uint64_t)sb.st_size > STORE_IMPORT_MAX_BYTES)
			goto too_big;
		cap = (size_t)sb.st_size + 1;
	}
	for (;;) {
		if (len + 1 >= cap || !buf) {
			if (buf)
				cap *= 2;
			if (cap > STORE_IMPORT_MAX_BYTES + 2)
				cap = STORE_IMPORT_MAX_BYTES + 2;
			p = realloc(buf, cap);
			if (!p) {
				ret = base_err_set(err, -ENOMEM, "out of memory reading '%s'",
						   path);
				goto out;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = base_err_set(err, -errno, "cannot read '%s': %s", path,
					   strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > STORE_IMPORT_MAX_BYTES)
			goto too_big;
	}
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	buf = NULL;
	goto out;
too_big:
	ret = base_err_set(err, -EFBIG, "'%s' is larger than the import limit of %u MiB",
			   path, STORE_IMPORT_MAX_BYTES >> 20);
out:
	free(buf);
	close(fd);
	return ret;
}

static size_t skip_space(const char *buf, size_t len, size_t off, int *line)
{
	for (; off < len; off++) {
		if (buf[off] == '\n')
			(*line)++;
		else if (buf[off] != ' ' && buf[off] != '\t' && buf[off] != '\r')
			break;
	}
	return off;
}

static int count_lines(const char *buf, size_t from, size_t to)
{
	int n = 0;

	for (size_t i = from; i < to; i++)
		n += buf[i] == '\n';
	return n;
}

struct import_count {
	size_t added, skipped;
};

static int import_doc(struct store *st, const json_t *doc,
		      struct import_count *c, struct base_err *err)
{
	struct base_sample s;
	bool ins;
	int ret;

	base_sample_init(&s);
	if ((ret = base_sample_from_json(doc, &s, err)) ||
	    (ret = store_insert(st, &s, doc, &ins, err)))
		goto out;
	if (ins)
		c->added++;
	else
		c->skipped++;
out:
	base_sample_release(&s);
	return ret;
}

/* A file holding one JSON array of documents. */
static int import_array(struct store *st, const char *path, const char *buf,
			size_t len, int line, struct import_count *c,
			struct base_err *err)
{
	json_error_t jerr;
	json_t *arr;
	size_t i;
	int ret = 0;

	arr = json_loadb(buf, len, 0, &jerr);
	if (!arr)
		return base_err_set(err, -EINVAL, "%s: line %d: invalid json: %s", path,
				    line + jerr.line - 1, jerr.text);
	for (i = 0; i < json_array_size(arr) && !ret; i++) {
		const json_t *doc = json_array_get(arr, i);

		if (!json_is_object(doc))
			ret = base_err_set(err, -EINVAL, "%s: document %zu: not a json object",
					   path, i + 1);
		else if ((ret = import_doc(st, doc, c, err)))
			base_err_prefix(err, "%s: document %zu", path, i + 1);
	}
	json_decref(arr);
	return ret;
}

/* A sequence of documents: JSON lines, or objects one after another. */
static int import_sequence(struct store *st, const char *path, const char *buf,
			   size_t len, size_t off, int line,
			   struct import_count *c, struct base_err *err)
{
	json_error_t jerr;
	size_t idx = 0;
	json_t *doc;
	int ret = 0;

	while (off < len && !ret) {
		idx++;
		doc = json_loadb(buf + off, len - off, JSON_DISABLE_EOF_CHECK, &jerr);
		if (!doc)
			return base_err_set(err, -EINVAL, "%s: document %zu (line %d): invalid json: %s",
					    path, idx, line + jerr.line - 1, jerr.text);
		if (!json_is_object(doc))
			ret = base_err_set(err, -EINVAL,
					   "%s: document %zu (line %d): an array of documents must be the whole file",
					   path, idx, line);
		else if ((ret = import_doc(st, doc, c, err)))
			base_err_prefix(err, "%s: document %zu (line %d)", path, idx, line);
		json_decref(doc);
		/* on success jansson reports how many bytes the document took */
		line += count_lines(buf, off, off + (size_t)jerr.position);
		off = skip_space(buf, len, off + (size_t)jerr.position, &line);
	}
	return ret;
}

int store_import_file(struct store *st, const char *path, size_t *added,
		      size_t *skipped, struct base_err *err)
{
	struct import_count c = { 0, 0 };
	char *buf = NULL;
	size_t len = 0, off = 0;
	int line = 1, ret;

	if (added)
		*added = 0;
	if (skipped)
		*skipped = 0;
	if ((ret = read_capped(path, &buf, &len, err)))
		return ret;
	if (len >= 3 && !memcmp(buf, "\xef\xbb\xbf", 3))
		off = 3; /* a UTF-8 byte order mark */
	off = skip_space(buf, len, off, &line);
	if ((ret = store_begin(st, err)))
		goto out;
	if (off < len && buf[off] == '[')
		ret = import_array(st, path, buf + off, len - off, line, &c, err);
	else
		ret = import_sequence(st, path, buf, len, off, line, &c, err);
	if (ret) {
		store_rollback(st);
		goto out;
	}
	if ((ret = store_commit(st, err)))
		goto out;
	if (added)
		*added = c.added;
	if (skipped)
		*skipped = c.skipped;
out:
	free(buf);
	return ret;
}

/* One stored document as exported: its snapshots put back, one line. */
static int export_doc(struct store *st, struct store_env_cache *c,
		      sqlite3_stmt *q, FILE *out, struct base_err *err)
{
	const char *text = (const char *)sqlite3_column_text(q, 0);
	size_t n = (size_t)sqlite3_column_bytes(q, 0);
	const char *uid_raw = (const char *)sqlite3_column_text(q, 1);
	const char *fp[2] = { (const char *)sqlite3_column_text(q, 2),
			      (const char *)sqlite3_column_text(q, 3) };
	char *whole = NULL;
	char uid[BASE_QUOTE_LEN];
	json_error_t jerr;
	json_t *doc = NULL;
	int ret = 0;

	if (!text || !uid_raw)
		return base_err_set(err, -ENOMEM, "out of memory");
	/* for messages: a damaged file can hold anything there */
	base_quote(uid_raw, uid);
	/* a document that referred to no snapshot is written as it is stored */
	if (fp[0] || fp[1]) {
		doc = json_loadb(text, n, 0, &jerr);
		if (!doc)
			return base_err_set(err, -EIO,
					    "database '%s': the stored document of sample '%s' is not json: %s",
					    st->path, uid, jerr.text);
		if ((ret = store_attach_sysenv(st, c, &doc, fp, uid, NULL, err)))
			goto out;
		whole = json_dumps(doc, JSON_COMPACT);
		if (!whole) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto out;
		}
		text = whole;
		n = strlen(whole);
	}
	if (fwrite(text, 1, n, out) != n || fputc('\n', out) == EOF)
		ret = base_err_set(err, -EIO, "cannot write the export: %s",
				   strerror(errno ? errno : EIO));
out:
	free(whole);
	json_decref(doc);
	return ret;
}

int store_export(struct store *st, const char *label, FILE *out,
		 struct base_err *err)
{
	return store_export_where(st, label, NULL, NULL, out, err);
}

int store_export_where(struct store *st, const char *label,
		       bool (*keep)(void *ctx, const char *config_key), void *ctx, FILE *out,
		       struct base_err *err)
{
	struct store_env_cache cache;
	const char *refs = st->version >= 2 ? "client_env, server_env" : "NULL, NULL";
	char sql[192];
	sqlite3_stmt *q;
	int rc, ret;

	/* version 1 (read-only) keeps the snapshots inside the documents */
	snprintf(sql, sizeof(sql), "SELECT doc, sample_uid, %s, config_key FROM samples%s ORDER BY id",
		 refs, label ? " WHERE label = ?1" : "");
	if ((ret = store_prepare(st, sql, &q, err)))
		return ret;
	store_env_cache_init(&cache);
	if (label)
		sqlite3_bind_text(q, 1, label, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(q, 4);

		if (keep && !keep(ctx, key ? key : ""))
			continue;
		if ((ret = export_doc(st, &cache, q, out, err)))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		ret = store_sql_err(st, rc, "exporting", err);
		goto out;
	}
	if (fflush(out) != 0 || ferror(out))
		ret = base_err_set(err, -EIO, "cannot write the export: %s",
				   strerror(errno ? errno : EIO));
out:
	store_env_cache_release(&cache);
	sqlite3_finalize(q);
	return ret;
}
