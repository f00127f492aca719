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
