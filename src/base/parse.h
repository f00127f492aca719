/* SPDX-License-Identifier: GPL-2.0-only */
/* Strict parsers and exact formatters for sizes, durations and CPU lists. */
#ifndef NR_BASE_PARSE_H
#define NR_BASE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * Common rules for every base_parse_*() function:
 *
 * - The whole string must be the value: no leading or trailing whitespace,
 *   no empty string, no '+' or '-' sign (base_parse_double() alone takes a
 *   leading '-', and only when its range admits negative values), no
 *   trailing characters. Numbers are decimal; leading zeros are allowed and
 *   do not mean octal ("010" is ten).
 * - Return 0 on success, -EINVAL for bad syntax, -ERANGE for a well-formed
 *   value outside what the function accepts (including overflow).
 * - On failure *out is left untouched and, if err is non-NULL, err->msg
 *   holds one lowercase line that quotes the value (control characters
 *   escaped, very long values shortened) and says what was expected, e.g.
 *   "invalid size '8Q': expected a number with an optional K, M, G or T
 *   suffix (like 8K or 1M)". It never names a flag: the caller adds that
 *   with base_err_prefix(). On success err is not written.
 * - s must not be NULL.
 * - Thread-safe and allocation-free: any thread may call them, including
 *   workers, though none belongs in a measured loop.
 */

/* Buffer lengths, NUL included, that always hold a formatted value. */
#define BASE_SIZE_STRLEN 24
#define BASE_DURATION_STRLEN 24
#define BASE_CPULIST_STRLEN 4096

/* Longest duration base_parse_duration_ns() accepts: 365 days. */
#define BASE_DURATION_MAX_NS (365LL * 24 * 3600 * 1000000000LL)

/*
 * Parse a byte count: a decimal number, optionally followed by a binary
 * suffix K, M, G or T (1024, 1024^2, 1024^3, 1024^4; case-insensitive),
 * itself optionally followed by "B" or "iB" ("8K", "8KB", "8KiB", "8k").
 * A bare "B" is accepted too ("512B"). A decimal fraction is allowed when
 * the result is a whole number of bytes ("1.5K" is 1536, "1.3B" is
 * -EINVAL). Zero is accepted; callers that need a minimum check it.
 * Result in *out_bytes; -ERANGE above UINT64_MAX bytes.
 */
int base_parse_size(const char *s, uint64_t *out_bytes, struct base_err *err);

/*
 * Parse a duration: a decimal number followed by one of the units ns, us,
 * ms, s, m (minutes) or h (lowercase only, no space); a bare number means
 * seconds. Fractions are allowed ("0.5s", "1.25", "1.5ms") when the result
 * is a whole number of nanoseconds ("1.5ns" is -EINVAL). Zero is accepted.
 * Result in *out_ns (nanoseconds); -ERANGE above BASE_DURATION_MAX_NS.
 */
int base_parse_duration_ns(const char *s, int64_t *out_ns,
			   struct base_err *err);

/*
 * Parse a decimal integer in [min, max] (min <= max) into *out. Text that
 * is not a decimal integer is -EINVAL; an integer outside the range,
 * including one above UINT64_MAX, is -ERANGE. Either way the message gives
 * the range: "invalid number '0': expected an integer from 1 to 1024".
 */
int base_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		   struct base_err *err);

/*
 * Parse a finite decimal number in [min, max] (min <= max) into *out:
 * digits, an optional fraction ".digits" and an optional exponent
 * "e[+-]digits" ("0.5", "1e3", "2.5E-1"). No hex, inf or nan, no leading
 * '.', no trailing '.'. A leading '-' is accepted only when min < 0. A
 * value that overflows or underflows a double is -ERANGE, as is one
 * outside [min, max]. Needs the "C" LC_NUMERIC locale (the default), so
 * that '.' is the decimal point; under another locale it returns -EINVAL.
 */
int base_parse_double(const char *s, double min, double max, double *out,
		      struct base_err *err);

/*
 * Parse a boolean: 1, yes, on, true give true; 0, no, off, false give
 * false (case-insensitive). Anything else is -EINVAL.
 */
int base_parse_bool(const char *s, bool *out, struct base_err *err);

/* The longest sysctl name and value netregress sets (a job's labels). */
#define BASE_SYSCTL_NAME_MAX 128
#define BASE_SYSCTL_VALUE_MAX 256

/*
 * Check the name of a sysctl netregress may set: dotted as sysctl(8)
 * writes it, under net. (the stack under test; its entries are in every
 * sample's environment snapshot), each component 1 or more letters,
 * digits, '_' or '-', at most BASE_SYSCTL_NAME_MAX bytes in all:
 * "net.core.rmem_default", "net.ipv4.tcp_rmem". So it maps to a file
 * under /proc/sys by turning dots into slashes, and can never leave it.
 * Returns 0 or -EINVAL ("invalid sysctl name '...': expected a dotted name
 * under net. like net.core.rmem_default").
 */
int base_parse_sysctl_name(const char *s, struct base_err *err);

/*
 * Check a sysctl value: 1 to BASE_SYSCTL_VALUE_MAX bytes of printable
 * characters (spaces and tabs separate the numbers of a vector such as
 * tcp_rmem), not only blanks. Returns 0 or -EINVAL naming the value.
 */
int base_parse_sysctl_value(const char *s, struct base_err *err);

/* CPU ids are below this; a list holds each id at most once. */
#define BASE_CPU_MAX 1024

/*
 * CPUs in the order the user gave them: worker i is pinned to
 * cpu[i % n]. Never holds an id twice or an id >= BASE_CPU_MAX.
 */
struct base_cpulist {
	uint16_t n;
	uint16_t cpu[BASE_CPU_MAX];
};

/*
 * Parse a CPU list in the kernel's format: comma-separated elements, each
 * a cpu id "8", a range "0-3" or a range with a stride "0-7:2" (0,2,4,6).
 * The order given is kept ("8,0-1" is 8,0,1). Rejected with -EINVAL: an
 * empty string or element (",1", "1,,2", "0-"), a reversed range ("3-0"),
 * a stride on a single id ("3:2"), and any cpu listed twice ("1,1",
 * "0-3,2"). Rejected with -ERANGE: an id >= BASE_CPU_MAX, a stride of 0
 * or >= BASE_CPU_MAX. Malformed text is -EINVAL even when it also holds a
 * large id ("2000,"). Result in *out; only out->n and out->cpu[0..n-1]
 * are written, and only on success.
 */
int base_parse_cpulist(const char *s, struct base_cpulist *out,
		       struct base_err *err);

/*
 * Format l into buf (len bytes, NUL included) in its own order, joining
 * ascending runs of consecutive ids into ranges: {0,1,2,3,8} gives "0-3,8",
 * {8,0,1} gives "8,0-1", an empty list gives "". Strides are not used, so
 * the output of a stride list is a plain list; base_parse_cpulist() reads
 * any output back into the same list. BASE_CPULIST_STRLEN always suffices.
 * Returns 0, -ENOSPC if buf is too small (buf then holds "" if len > 0),
 * or -EINVAL if l->n > BASE_CPU_MAX. Thread-safe.
 */
int base_format_cpulist(const struct base_cpulist *l, char *buf, size_t len);

/*
 * Format a byte count exactly, with the largest suffix K, M, G or T that
 * divides it: 8192 gives "8K", 1048576 gives "1M", 1536 gives "1536", 1000
 * gives "1000", 0 gives "0". base_parse_size() reads it back to the same
 * value. Output is cut to fit len (NUL included; BASE_SIZE_STRLEN always
 * suffices) and is nothing when len is 0. Thread-safe.
 */
void base_format_size(uint64_t bytes, char *buf, size_t len);

/*
 * Format a duration in nanoseconds exactly, with the largest unit among h,
 * m, s, ms, us and ns that divides it: "10s", "500ms", "1500ms", "250us",
 * "7ns", "2m", "1h"; 0 gives "0s", negative values get a leading '-'.
 * base_parse_duration_ns() reads non-negative output up to
 * BASE_DURATION_MAX_NS back to the same value. Output is cut to fit len
 * (NUL included; BASE_DURATION_STRLEN always suffices) and is nothing when
 * len is 0. Thread-safe.
 */
void base_format_duration(int64_t ns, char *buf, size_t len);

#endif
