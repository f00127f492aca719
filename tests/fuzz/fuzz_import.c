// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: `netregress import` of a file into a real SQLite store, and the export it must give back. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "store/store.h"

/*
 * The input is a file given to `netregress import`: one result document,
 * an array of them, or JSON lines. It goes into a fresh store in memory
 * (the real schema, the real SQL). Promised (store/store.h): all or
 * nothing, so a refused file leaves no sample behind and its message
 * names what was wrong; the export of what was stored, imported into
 * another fresh store, adds the same number of samples and exports to the
 * same bytes; imported again into the first, it adds none.
 */

static int count_cb(void *ctx, const struct store_config_row *row)
{
	*(int64_t *)ctx += row->nsamples;
	return 0;
}

static int64_t count(struct store *st)
{
	struct base_err err = { { 0 } };
	int64_t n = 0;

	FUZZ_CHECK(store_labels(st, count_cb, &n, &err) == 0);
	return n;
}

/* The bytes as a file the import can open by name. */
static int as_file(const void *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("fuzz-import", 0);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(size == 0 || write(fd, data, size) == (ssize_t)size);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

static void export_all(struct store *st, char **buf, size_t *len)
{
	struct base_err err = { { 0 } };
	FILE *f = open_memstream(buf, len);

	FUZZ_CHECK(f);
	FUZZ_CHECK(store_export(st, NULL, f, &err) == 0);
	FUZZ_CHECK(fclose(f) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct store *st = NULL, *st2 = NULL;
	struct base_err err = { { 0 } };
	char path[64], *out = NULL, *out2 = NULL;
	size_t added = 0, skipped = 0, added2 = 0, skipped2 = 0, len, len2;
	int fd, fd2, ret;

	FUZZ_CHECK(store_open(":memory:", STORE_CREATE, &st, &err) == 0);
	fd = as_file(data, size, path, sizeof(path));
	ret = store_import_file(st, path, &added, &skipped, &err);
	close(fd);
	FUZZ_CHECK_ERR(ret, err);
	if (ret) {
		FUZZ_CHECK(count(st) == 0);
		goto out;
	}
	FUZZ_CHECK(count(st) == (int64_t)added);

	export_all(st, &out, &len);
	FUZZ_CHECK(store_open(":memory:", STORE_CREATE, &st2, &err) == 0);
	fd2 = as_file(out, len, path, sizeof(path));
	ret = store_import_file(st2, path, &added2, &skipped2, &err);
	if (ret)
		fprintf(stderr, "its own export was refused: %s\n", err.msg);
	FUZZ_CHECK(ret == 0 && added2 == added && skipped2 == 0);
	export_all(st2, &out2, &len2);
	FUZZ_CHECK(len2 == len && !memcmp(out, out2, len));

	ret = store_import_file(st, path, &added2, &skipped2, &err);
	close(fd2);
	FUZZ_CHECK(ret == 0 && added2 == 0 && skipped2 == added);
out:
	free(out);
	free(out2);
	store_close(st);
	store_close(st2);
	return 0;
}
