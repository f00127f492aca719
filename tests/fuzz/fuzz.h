/* SPDX-License-Identifier: GPL-2.0-only */
/* What every fuzz target shares: the libFuzzer entry point and a check. */
#ifndef NR_TESTS_FUZZ_H
#define NR_TESTS_FUZZ_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/err.h"

/*
 * Each tests/fuzz/fuzz_<name>.c defines this. libFuzzer calls it with
 * generated inputs (make fuzz); replay.c calls it with every file of
 * tests/fuzz/corpus/<name>/ (make test, plain and under ASan+UBSan). A
 * crash, a sanitizer report or a failed FUZZ_CHECK is a finding. The
 * input is any bytes, not NUL-terminated; the target must not keep
 * state from one call to the next.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property the code under test promises broke: say which and abort, so
 * that libFuzzer keeps the input and replay fails. */
#define FUZZ_CHECK(cond)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "%s:%d: fuzz check failed: %s\n",     \
				__FILE__, __LINE__, #cond);                   \
			abort();                                              \
		}                                                             \
	} while (0)

/* A failure must say what failed in one line: a message that is not
 * empty and has no control character (a value from a peer or a file that
 * carries a newline or an escape sequence is quoted escaped, so that it
 * cannot forge a line of a log or drive a terminal). */
static inline int fuzz_err_ok(int ret, const struct base_err *err)
{
	if (ret >= 0)
		return 1;
	if (!err->msg[0]) {
		fprintf(stderr, "error %d without a message\n", ret);
		return 0;
	}
	for (const char *p = err->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			fprintf(stderr, "control character 0x%02x at %d in the message: ",
				(unsigned char)*p, (int)(p - err->msg));
			for (const char *q = err->msg; *q; q++)
				fprintf(stderr, (unsigned char)*q < 0x20 || *q == 0x7f ?
					"\\x%02x" : "%c", (unsigned char)*q);
			fputc('\n', stderr);
			return 0;
		}
	return 1;
}

#define FUZZ_CHECK_ERR(ret, err) FUZZ_CHECK(fuzz_err_ok((ret), &(err)))

#endif
