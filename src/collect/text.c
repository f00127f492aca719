// SPDX-License-Identifier: GPL-2.0-only
/* Helpers the /proc text parsers share; see text.h. */
#include "collect/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int collect_parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		unsigned int d;

		if (!collect_is_digit(s[i]))
			return -EINVAL;
		d = (unsigned int)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

bool collect_next_field(const char **pos, const char *end, const char **f,
			size_t *flen)
{
	const char *p = *pos;

	while (p < end && collect_is_blank(*p))
		p++;
	if (p == end) {
		*pos = p;
		return false;
	}
	*f = p;
	while (p < end && !collect_is_blank(*p))
		p++;
	*flen = (size_t)(p - *f);
	*pos = p;
	return true;
}

const char *collect_show(const char *s, size_t n, char *buf)
{
	size_t m = n > COLLECT_SHOW_MAX ? COLLECT_SHOW_MAX : n;

	for (size_t i = 0; i < m; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}

int collect_line_err(const struct collect_line *ln, struct base_err *err,
		     int errnum, const char *fmt, ...)
{
	char what[256], text[COLLECT_SHOW_MAX + 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return base_err_set(err, errnum, "line %u '%s': %s", ln->no,
			    collect_show(ln->p, (size_t)(ln->end - ln->p), text),
			    what);
}
