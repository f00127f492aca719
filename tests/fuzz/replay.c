// SPDX-License-Identifier: GPL-2.0-only
/* Run a fuzz target over saved inputs (files, or every file of a directory), one TAP line each. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Inputs above this are not ours: libFuzzer's -max_len stays far below. */
#define REPLAY_MAX_BYTES (16u << 20)

static unsigned ntests;

/* A saved input: a regular file of at most REPLAY_MAX_BYTES. */
static int read_all(const char *path, uint8_t **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	struct stat st;
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st))
		ret = -errno;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size > REPLAY_MAX_BYTES)
		ret = -EFBIG;
	else if (!(buf = malloc((size_t)st.st_size + 1)))
		ret = -ENOMEM;
	else if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
		ret = -EIO;
	fclose(f);
	if (ret) {
		free(buf);
		return ret;
	}
	*out = buf;
	*len = (size_t)st.st_size;
	return 0;
}

static int replay_file(const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int ret = read_all(path, &buf, &len);

	if (ret) {
		printf("not ok %u - %s: cannot read: %s\n", ++ntests, path,
		       strerror(-ret));
		return 1;
	}
	/* a crash ends the process here, before the "ok" */
	fflush(stdout);
	LLVMFuzzerTestOneInput(len ? buf : (const uint8_t *)"", len);
	free(buf);
	printf("ok %u - %s (%zu bytes)\n", ++ntests, path, len);
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file of dir, in name order (so that runs compare). */
static int replay_dir(const char *dir)
{
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int bad = 0;
	DIR *d = opendir(dir);

	if (!d) {
		printf("not ok %u - %s: cannot open: %s\n", ++ntests, dir,
		       strerror(errno));
		return 1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 64) * sizeof(*nn));

			if (!nn) {
				bad = 1;
				break;
			}
			names = nn;
		}
		if (asprintf(&names[n], "%s/%s", dir, e->d_name) < 0) {
			bad = 1;
			break;
		}
		n++;
	}
	closedir(d);
	if (bad)
		printf("not ok %u - %s: out of memory\n", ++ntests, dir);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (!bad && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			bad |= replay_file(names[i]);
		free(names[i]);
	}
	free(names);
	return bad;
}

int main(int argc, char **argv)
{
	int bad = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st)) {
			printf("not ok %u - %s: %s\n", ++ntests, argv[i], strerror(errno));
			bad = 1;
		} else if (S_ISDIR(st.st_mode)) {
			bad |= replay_dir(argv[i]);
		} else {
			bad |= replay_file(argv[i]);
		}
	}
	printf("1..%u\n", ntests);
	return bad;
}
