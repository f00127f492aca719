// SPDX-License-Identifier: GPL-2.0-only
/* Error text helpers; see err.h. */
#include "base/err.h"

#include <stdarg.h>
#include <string.h>

int base_err_set(struct base_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return errnum;
}

void base_err_prefix(struct base_err *err, const char *fmt, ...)
{
	char pre[256];
	size_t plen, mlen;
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(pre, sizeof(pre) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	plen = strlen(pre);
	memcpy(pre + plen, ": ", 3);
	plen += 2;
	mlen = strnlen(err->msg, sizeof(err->msg) - 1);
	/* keep the prefix whole; the tail of the old text gives way */
	if (plen + mlen >= sizeof(err->msg))
		mlen = sizeof(err->msg) - 1 - plen;
	memmove(err->msg + plen, err->msg, mlen);
	memcpy(err->msg, pre, plen);
	err->msg[plen + mlen] = '\0';
}

static const char *quote_n(const char *s, size_t show, char *buf)
{
	size_t i, o = 0;

	for (i = 0; i < show && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f) {
			snprintf(buf + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			buf[o++] = (char)c;
		}
	}
	if (s[i]) {
		/* Do not end on half a UTF-8 sequence. */
		while (o > 0 && i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80 &&
		       (unsigned char)buf[o - 1] >= 0x80) {
			o--;
			i--;
		}
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

const char *base_quote(const char *s, char *buf)
{
	return quote_n(s, BASE_QUOTE_SHOW, buf);
}

const char *base_escape(const char *s, char *buf)
{
	return quote_n(s, BASE_ESCAPE_SHOW, buf);
}
