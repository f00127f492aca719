/* SPDX-License-Identifier: GPL-2.0-only */
/* Error text carried from lower layers to the command that prints it once. */
#ifndef NR_BASE_ERR_H
#define NR_BASE_ERR_H

#include <stdio.h>
#include <stdlib.h>

/*
 * Functions below cli/ return 0 or a negative errno and, where a caller
 * passes one, describe the failure in a struct base_err: lowercase, no full
 * stop, naming the value that made it fail. Never printed below cli/.
 */
struct base_err {
	char msg[512];
};

/* Set err->msg (printf-style); err may be NULL. Returns -errnum so callers
 * can write `return base_err_set(err, -EINVAL, "...")`. Thread-safe. */
int base_err_set(struct base_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix err->msg with "<prefix>: ". */
void base_err_prefix(struct base_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A broken invariant: always compiled in, prints and aborts. */
#define BUG(...)                                                              \
	do {                                                                  \
		fprintf(stderr, "BUG: %s:%d: ", __FILE__, __LINE__);          \
		fprintf(stderr, __VA_ARGS__);                                 \
		fputc('\n', stderr);                                          \
		abort();                                                      \
	} while (0)
#define BUG_ON(cond)                                                          \
	do {                                                                  \
		if (cond)                                                     \
			BUG("%s", #cond);                                     \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
