/* SPDX-License-Identifier: GPL-2.0-only */
/* Whole files for the unit tests (captured ones under tests/data); include after cmocka.h. */
#ifndef NR_TESTS_TESTDATA_H
#define NR_TESTS_TESTDATA_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The whole file at PATH, NUL-terminated (free it); its length in *len
 * when len is not NULL. A file that cannot be read fails the test. */
static inline char *testdata_read(const char *path, size_t *len)
{
	char *buf;
	FILE *f;
	long n;

	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s (run from the top of the tree)", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

/* The whole file tests/data/NAME, as testdata_read. Run from the top of
 * the tree or set NR_TEST_DATA to the folder. */
static inline char *testdata_load(const char *name, size_t *len)
{
	const char *dir = getenv("NR_TEST_DATA");
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/data", name);
	return testdata_read(path, len);
}

/* Write TEXT to DIR/REL, making the folders of REL under DIR first (a
 * copy of a /proc or /sys tree); fails the test when it cannot. */
static inline void testdata_put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (char *p = strchr(path + strlen(dir) + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			fail_msg("cannot create %s", path);
		*p = '/';
	}
	f = fopen(path, "w");
	if (!f)
		fail_msg("cannot create %s", path);
	fputs(text, f);
	fclose(f);
}

static inline int testdata_rm_one(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the tree at DIR, DIR too: 0, or -1 with errno. */
static inline int testdata_rmtree(const char *dir)
{
	return nftw(dir, testdata_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
