/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers the /proc text parsers share: lines, fields, numbers, error quotes. */
#ifndef NR_COLLECT_TEXT_H
#define NR_COLLECT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

#define COLLECT_SHOW_MAX 40 /* characters of a bad line or value quoted in errors */
/* idle states read under a CPU's cpuidle/ (the kernel's CPUIDLE_STATE_MAX is 10) */
#define COLLECT_IDLE_STATES_MAX 32

/* One line of a text, without its '\n'. */
struct collect_line {
	const char *p, *end;
	unsigned int no; /* 1-based */
};

static inline bool collect_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool collect_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Unsigned decimal s[0..n), digits only: 0, -EINVAL if not a number,
 * -ERANGE when it does not fit 64 bits. Pure. */
int collect_parse_u64(const char *s, size_t n, uint64_t *out);

/* Next blank-separated field of [*pos, end); false when none is left. */
bool collect_next_field(const char **pos, const char *end, const char **f,
			size_t *flen);

/* Copy s[0..n) into buf for an error message: printable ASCII only, cut
 * to COLLECT_SHOW_MAX characters with "..." appended. buf must hold
 * COLLECT_SHOW_MAX + 4 bytes. Returns buf. */
const char *collect_show(const char *s, size_t n, char *buf);

/* Describe a bad line as "line N 'text': what" in err; returns errnum. */
int collect_line_err(const struct collect_line *ln, struct base_err *err,
		     int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
