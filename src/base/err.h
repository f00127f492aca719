/* SPDX-License-Identifier: GPL-2.0-only */
/* Error text carried from lower layers to the command that prints it once. */
#ifndef NR_BASE_ERR_H
#define NR_BASE_ERR_H

#include <stdarg.h>
#include <stdbool.h>
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

/*
 * Set err->msg (printf-style); err may be NULL. Returns -errnum so callers
 * can write `return base_err_set(err, -EINVAL, "...")`. The message is one
 * line: any control character the arguments bring (a newline or an
 * escape sequence in a value from a peer, a file or a library's text) is
 * written as \xNN, so that it cannot forge a line of a log or drive a
 * terminal; a message that then outgrows the buffer loses its tail.
 * Thread-safe.
 */
int base_err_set(struct base_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int base_err_vset(struct base_err *err, int errnum, const char *fmt,
		  va_list ap) __attribute__((format(printf, 3, 0)));

/* Prefix err->msg with "<prefix>: ", escaped as base_err_set() does. */
void base_err_prefix(struct base_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * A value from outside (a flag, a file, a peer) in an error message:
 * base_quote() copies at most BASE_QUOTE_SHOW bytes of s into buf
 * (BASE_QUOTE_LEN bytes) and returns buf, control characters escaped as
 * base_err_set() escapes them. A longer value ends in "..." (never inside
 * a UTF-8 sequence), so that a pasted blob cannot crowd the explanation
 * out of the 512-byte message. Thread-safe.
 */
/*
 * Whether s holds a control character (below 0x20, or DEL). Text that is
 * stored and printed as it is (a label, a configuration key, a name, an
 * environment value) must not: a newline would forge a line of a table,
 * an escape sequence would drive the reader's terminal.
 */
bool base_has_control(const char *s);

#define BASE_QUOTE_SHOW 48
#define BASE_QUOTE_LEN (BASE_QUOTE_SHOW * 4 + 4)
const char *base_quote(const char *s, char *buf);

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
