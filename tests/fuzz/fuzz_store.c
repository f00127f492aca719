// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: a database file given to --db, opened read-only and for writing. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "store/store.h"

/*
 * The input is the file a user points --db at: a netregress store, an
 * older or newer one, another SQLite database, a damaged one or no
 * database at all. Promised (store/store.h): it is opened or refused with
 * a message, never by crashing; a refusal leaves the file as it was, and
 * so does a read-only open; what opens lists its labels and loads its
 * samples, or says why not.
 *
 * The file lives in a directory of this process's own (made once, under
 * $TMPDIR or /tmp), with SQLite's -wal and -shm beside it, and all three
 * are removed after each input and the directory at exit. A finding
 * aborts the process and leaves them as they were then, to look at.
 */

static char dir[64];
static char path[96];

static void remove_files(void)
{
	static const char *const ext[] = { "", "-wal", "-shm", "-journal" };
	char p[128];

	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		snprintf(p, sizeof(p), "%s%s", path, ext[i]);
		unlink(p);
	}
}

static void cleanup(void)
{
	remove_files();
	rmdir(dir);
}

static int nop_row(void *ctx, const struct store_config_row *row)
{
	(void)ctx;
	(void)row;
	return 0;
}

static int nop_sample(void *ctx, const struct base_sample *s, int64_t order)
{
	(void)ctx;
	(void)s;
	(void)order;
	return 0;
}

/* Whether the file holds exactly these bytes. */
static int same_bytes(const uint8_t *data, size_t size)
{
	static uint8_t buf[1 << 16];
	size_t off = 0;
	int fd = open(path, O_RDONLY);
	ssize_t n;

	FUZZ_CHECK(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (off + (size_t)n > size || memcmp(buf, data + off, (size_t)n)) {
			close(fd);
			return 0;
		}
		off += (size_t)n;
	}
	close(fd);
	return n == 0 && off == size;
}

static void use(struct store *st)
{
	struct base_err err = { { 0 } };
	int ret;

	ret = store_labels(st, nop_row, NULL, &err);
	FUZZ_CHECK_ERR(ret, err);
	err.msg[0] = '\0';
	ret = store_load_samples(st, NULL, NULL, nop_sample, NULL, &err);
	FUZZ_CHECK_ERR(ret, err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct base_err err = { { 0 } };
	struct store *st = NULL;
	FILE *f;
	int ret;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/nr-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		FUZZ_CHECK(mkdtemp(dir));
		snprintf(path, sizeof(path), "%s/store.db", dir);
		atexit(cleanup);
	}
	f = fopen(path, "wb");
	FUZZ_CHECK(f && (size == 0 || fwrite(data, 1, size, f) == size) && !fclose(f));

	ret = store_open(path, STORE_READONLY, &st, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (!ret) {
		use(st);
		store_close(st);
		st = NULL;
	}
	FUZZ_CHECK(same_bytes(data, size));

	err.msg[0] = '\0';
	ret = store_open(path, 0, &st, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret) {
		FUZZ_CHECK(same_bytes(data, size));
	} else {
		use(st);
		store_close(st);
	}
	remove_files();
	return 0;
}
