// SPDX-License-Identifier: GPL-2.0-only
/* Error text helpers; see err.h. */
#include "base/err.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* src into dst (cap bytes, NUL included), control characters as \xNN,
 * up to the last byte or escape that fits whole. Returns the length. */
static size_t escape_into(char *dst, size_t cap, const char *src)
{
	size_t o = 0;

	for (; *src; src++) {
		unsigned char c = (unsigned char)*src;
		size_t need = is_control(c) ? 4 : 1;

		if (o + need >= cap)
			break;
		if (need == 4)
			snprintf(dst + o, 5, "\\x%02x", c);
		else
			dst[o] = (char)c;
		o += need;
	}
	dst[o] = '\0';
	return o;
}

bool base_has_control(const char *s)
{
	for (; *s; s++)
		if (is_control((unsigned char)*s))
			return true;
	return false;
}

int base_err_vset(struct base_err *err, int errnum, const char *fmt,
		  va_list ap)
{
	if (err) {
		char raw[sizeof(err->msg)];

		/* formatted aside: an argument may be err->msg itself */
		vsnprintf(raw, sizeof(raw), fmt, ap);
		escape_into(err->msg, sizeof(err->msg), raw);
	}
	return errnum;
}

int base_err_set(struct base_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errnum = base_err_vset(err, errnum, fmt, ap);
	va_end(ap);
	return errnum;
}

void base_err_prefix(struct base_err *err, const char *fmt, ...)
{
	char raw[256], pre[256];
	size_t plen, mlen;
	va_list ap;
	int n;

	if (!err)
		return;
	va_start(ap, fmt);
	n = vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	plen = escape_into(pre, sizeof(pre) - 2, raw);
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

const char *base_quote(const char *s, char *buf)
{
	size_t i, o = 0;

	for (i = 0; i < BASE_QUOTE_SHOW && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_control(c)) {
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
