// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for base/: strict parsers, exact formatters and error text. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/file.h"
#include "base/parse.h"

/* Distinct from any parsed value, to see that failures leave *out alone. */
#define SENTINEL_U64 UINT64_C(0x5a5a5a5a5a5a5a5a)
#define SENTINEL_I64 INT64_C(0x5a5a5a5a5a5a5a5a)

struct size_case {
	const char *s;
	int ret;
	uint64_t bytes;
};

struct duration_case {
	const char *s;
	int ret;
	int64_t ns;
};

/* Run a table through base_parse_size(), naming the case that fails. */
static void check_size_cases(const struct size_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct base_err err = { .msg = "" };
		uint64_t v = SENTINEL_U64;
		int ret = base_parse_size(c[i].s, &v, &err);

		if (ret != c[i].ret)
			fail_msg("base_parse_size(\"%s\") returned %d, want %d (%s)",
				 c[i].s, ret, c[i].ret, err.msg);
		if (!ret && v != c[i].bytes)
			fail_msg("base_parse_size(\"%s\") gave %" PRIu64
				 ", want %" PRIu64,
				 c[i].s, v, c[i].bytes);
		if (ret && v != SENTINEL_U64)
			fail_msg("base_parse_size(\"%s\") wrote *out on failure",
				 c[i].s);
		if (ret && !err.msg[0])
			fail_msg("base_parse_size(\"%s\") failed without a message",
				 c[i].s);
		if (!ret && err.msg[0])
			fail_msg("base_parse_size(\"%s\") wrote err on success",
				 c[i].s);
	}
}

static void check_duration_cases(const struct duration_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct base_err err = { .msg = "" };
		int64_t v = SENTINEL_I64;
		int ret = base_parse_duration_ns(c[i].s, &v, &err);

		if (ret != c[i].ret)
			fail_msg("base_parse_duration_ns(\"%s\") returned %d, want %d (%s)",
				 c[i].s, ret, c[i].ret, err.msg);
		if (!ret && v != c[i].ns)
			fail_msg("base_parse_duration_ns(\"%s\") gave %" PRId64
				 ", want %" PRId64,
				 c[i].s, v, c[i].ns);
		if (ret && v != SENTINEL_I64)
			fail_msg("base_parse_duration_ns(\"%s\") wrote *out on failure",
				 c[i].s);
		if (ret && !err.msg[0])
			fail_msg("base_parse_duration_ns(\"%s\") failed without a message",
				 c[i].s);
	}
}

/* ---- base_err ---- */

static void test_err_set_formats_and_returns_errnum(void **state)
{
	struct base_err err;

	(void)state;
	assert_int_equal(base_err_set(&err, -EINVAL, "bad '%s' (%d)", "x", 7),
			 -EINVAL);
	assert_string_equal(err.msg, "bad 'x' (7)");
	assert_int_equal(base_err_set(&err, -ERANGE, "second"), -ERANGE);
	assert_string_equal(err.msg, "second");
}

static void test_err_set_accepts_null(void **state)
{
	(void)state;
	assert_int_equal(base_err_set(NULL, -ENOSPC, "ignored %d", 1), -ENOSPC);
}

static void test_err_set_truncates_long_message(void **state)
{
	char big[1000];
	struct base_err err;

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	base_err_set(&err, -EINVAL, "%s", big);
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
}

static void test_err_prefix_prepends_context(void **state)
{
	struct base_err err;

	(void)state;
	base_err_set(&err, -EINVAL, "invalid size '8Q'");
	base_err_prefix(&err, "--%s", "rcvbuf");
	assert_string_equal(err.msg, "--rcvbuf: invalid size '8Q'");
	base_err_prefix(&err, "job %d", 3);
	assert_string_equal(err.msg, "job 3: --rcvbuf: invalid size '8Q'");
}

/*
 * Whatever the arguments bring, the message is one line: a control
 * character is written as \xNN, in the message and in a prefix, and an
 * escape is never cut in half when the message outgrows the buffer.
 */
static void test_err_set_and_prefix_escape_control_characters(void **state)
{
	struct base_err err;
	char big[600];
	size_t n;

	(void)state;
	base_err_set(&err, -EPROTO, "client sent '%s'", "stop\nFORGED\x1b[2J\x7f");
	assert_string_equal(err.msg, "client sent 'stop\\x0aFORGED\\x1b[2J\\x7f'");
	base_err_prefix(&err, "peer %s", "a\tb");
	assert_string_equal(err.msg, "peer a\\x09b: client sent 'stop\\x0aFORGED\\x1b[2J\\x7f'");

	/* 509 bytes, then a newline: its escape would not fit whole */
	memset(big, 'x', sizeof(big));
	big[509] = '\n';
	big[510] = '\0';
	base_err_set(&err, -EINVAL, "%s", big);
	n = strlen(err.msg);
	assert_int_equal(n, 509);
	assert_null(strchr(err.msg, '\\'));
	/* err->msg as an argument of its own message */
	base_err_set(&err, -EINVAL, "short");
	base_err_set(&err, -EINVAL, "again: %s", err.msg);
	assert_string_equal(err.msg, "again: short");
}

static void test_err_prefix_accepts_null(void **state)
{
	(void)state;
	base_err_prefix(NULL, "nothing %d", 1);
}

static void test_err_prefix_truncates_to_message_size(void **state)
{
	struct base_err err;

	(void)state;
	memset(err.msg, 'b', sizeof(err.msg) - 1);
	err.msg[sizeof(err.msg) - 1] = '\0';
	base_err_prefix(&err, "ctx");
	assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
	assert_memory_equal(err.msg, "ctx: bbb", 8);
}

/* ---- base_parse_size ---- */

static void test_parse_size_accepts_plain_integers(void **state)
{
	static const struct size_case c[] = {
		{ "0", 0, 0 },
		{ "10", 0, 10 },
		{ "512", 0, 512 },
		{ "1000", 0, 1000 },
		{ "010", 0, 10 }, /* decimal, never octal */
		{ "0000000000000000000000000001", 0, 1 },
		{ "18446744073709551615", 0, UINT64_MAX },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_accepts_binary_suffixes(void **state)
{
	static const struct size_case c[] = {
		{ "8K", 0, 8192 },
		{ "8k", 0, 8192 },
		{ "8KB", 0, 8192 },
		{ "8kb", 0, 8192 },
		{ "8KiB", 0, 8192 },
		{ "8kib", 0, 8192 },
		{ "8KIB", 0, 8192 },
		{ "1M", 0, 1048576 },
		{ "1MiB", 0, 1048576 },
		{ "1G", 0, UINT64_C(1) << 30 },
		{ "1gb", 0, UINT64_C(1) << 30 },
		{ "1T", 0, UINT64_C(1) << 40 },
		{ "3TiB", 0, UINT64_C(3) << 40 },
		{ "512B", 0, 512 },
		{ "512b", 0, 512 },
		{ "0K", 0, 0 },
		{ "0B", 0, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_accepts_exact_fractions(void **state)
{
	static const struct size_case c[] = {
		{ "1.5K", 0, 1536 },
		{ "1.50K", 0, 1536 },
		{ "0.5M", 0, 524288 },
		{ "0.25K", 0, 256 },
		{ "2.75G", 0, UINT64_C(11) << 28 },
		{ "1.0B", 0, 1 },
		{ "1.000", 0, 1 },
		{ "0.0009765625K", 0, 1 }, /* exactly 1/1024 */
		/* 1/2^40 has 40 decimal places: no cap on fraction digits. */
		{ "0.0000000000009094947017729282379150390625T", 0, 1 },
		{ "16777215.5T", 0, (UINT64_C(16777215) << 40) + (UINT64_C(1) << 39) },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_rejects_inexact_fractions(void **state)
{
	static const struct size_case c[] = {
		{ "1.3B", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "1.1K", -EINVAL, 0 },
		{ "0.1K", -EINVAL, 0 },
		{ "0.0001K", -EINVAL, 0 },
		{ "0.00000000000090949470177292823791503906251T", -EINVAL, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_rejects_empty_and_whitespace(void **state)
{
	static const struct size_case c[] = {
		{ "", -EINVAL, 0 },
		{ " 8K", -EINVAL, 0 },
		{ "8K ", -EINVAL, 0 },
		{ "8 K", -EINVAL, 0 },
		{ "\t8", -EINVAL, 0 },
		{ "8\n", -EINVAL, 0 },
		{ " ", -EINVAL, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_rejects_signs(void **state)
{
	static const struct size_case c[] = {
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "-0", -EINVAL, 0 },
		{ "+8K", -EINVAL, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_rejects_trailing_garbage(void **state)
{
	static const struct size_case c[] = {
		{ "8Q", -EINVAL, 0 },
		{ "8KK", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "8KBB", -EINVAL, 0 },
		{ "8iB", -EINVAL, 0 },
		{ "8Ki", -EINVAL, 0 },
		{ "8KiBx", -EINVAL, 0 },
		{ "8BK", -EINVAL, 0 },
		{ "8E", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ "B", -EINVAL, 0 },
		{ "8,5K", -EINVAL, 0 },
		{ "99999999999999999999Q", -EINVAL, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_rejects_malformed_decimals(void **state)
{
	static const struct size_case c[] = {
		{ "1.", -EINVAL, 0 },
		{ "1.K", -EINVAL, 0 },
		{ ".5K", -EINVAL, 0 },
		{ "1..5", -EINVAL, 0 },
		{ "1.5.0K", -EINVAL, 0 },
		{ ".", -EINVAL, 0 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_detects_overflow(void **state)
{
	static const struct size_case c[] = {
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999999999", -ERANGE, 0 },
		{ "16777215T", 0, UINT64_C(16777215) << 40 },
		{ "16777216T", -ERANGE, 0 },
		{ "17179869183G", 0, UINT64_C(17179869183) << 30 },
		{ "17179869184G", -ERANGE, 0 },
		{ "18014398509481984K", -ERANGE, 0 },
		{ "16777216.5T", -ERANGE, 0 },
		{ "18446744073709551616.0", -ERANGE, 0 },
		{ "18446744073709551615.0", 0, UINT64_MAX },
		/* 2^64 - 2^20: the largest exact fraction of a T that fits. */
		{ "16777215.99999904632568359375T", 0, UINT64_MAX - 1048575 },
	};

	(void)state;
	check_size_cases(c, ARRAY_SIZE(c));
}

static void test_parse_size_error_names_value_and_expectation(void **state)
{
	struct base_err err;
	uint64_t v;

	(void)state;
	assert_int_equal(base_parse_size("8Q", &v, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid size '8Q': expected a number with an optional K, M, G or T suffix (like 8K or 1M)");
	assert_int_equal(base_parse_size("1.3B", &v, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'1.3B'"));
	assert_non_null(strstr(err.msg, "whole number of bytes"));
	assert_int_equal(base_parse_size("18446744073709551616", &v, &err),
			 -ERANGE);
	assert_non_null(strstr(err.msg, "'18446744073709551616'"));
	assert_non_null(strstr(err.msg, "at most 18446744073709551615"));
	assert_string_equal(err.msg, "invalid size '18446744073709551616': too large, expected at most 18446744073709551615 bytes");
}

static void test_parse_size_error_is_optional(void **state)
{
	uint64_t v = SENTINEL_U64;

	(void)state;
	assert_int_equal(base_parse_size("8Q", &v, NULL), -EINVAL);
	assert_int_equal(base_parse_size("99999999999999999999", &v, NULL),
			 -ERANGE);
	assert_true(v == SENTINEL_U64);
	assert_int_equal(base_parse_size("8K", &v, NULL), 0);
	assert_true(v == 8192);
}

/* The style every message follows, so callers can prefix and print it. */
static void assert_message_style(const struct base_err *err)
{
	size_t n = strlen(err->msg);

	assert_true(n > 0);
	assert_true(err->msg[0] >= 'a' && err->msg[0] <= 'z');
	assert_null(strchr(err->msg, '\n'));
	assert_true(err->msg[n - 1] != '.');
	assert_true(err->msg[n - 1] != ' ');
	/* The caller names the flag, the parser never does. */
	assert_null(strstr(err->msg, "--"));
}

static void test_error_text_is_lowercase_single_line(void **state)
{
	struct base_err err;
	struct base_cpulist l;
	uint64_t u;
	int64_t ns;
	double d;
	bool b;

	(void)state;
	assert_int_equal(base_parse_size("8Q", &u, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_size("1.3B", &u, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_size("99999999999999999999", &u, &err),
			 -ERANGE);
	assert_message_style(&err);
	assert_int_equal(base_parse_duration_ns("1 s", &ns, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_duration_ns("1.5ns", &ns, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_duration_ns("9000h", &ns, &err), -ERANGE);
	assert_message_style(&err);
	assert_int_equal(base_parse_u64("x", 1, 2, &u, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_double("x", 0, 1, &d, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_double("2", 0, 1, &d, &err), -ERANGE);
	assert_message_style(&err);
	assert_int_equal(base_parse_bool("x", &b, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_cpulist("x", &l, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_cpulist("1,1", &l, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_cpulist("3-0", &l, &err), -EINVAL);
	assert_message_style(&err);
	assert_int_equal(base_parse_cpulist("2000", &l, &err), -ERANGE);
	assert_message_style(&err);
	assert_int_equal(base_parse_cpulist("0-3:0", &l, &err), -ERANGE);
	assert_message_style(&err);
}

static void test_error_text_escapes_control_characters(void **state)
{
	struct base_err err;
	uint64_t v;

	(void)state;
	assert_int_equal(base_parse_size("8\n\x1b[2J", &v, &err), -EINVAL);
	assert_null(strchr(err.msg, '\n'));
	assert_null(strchr(err.msg, '\x1b'));
	assert_non_null(strstr(err.msg, "'8\\x0a\\x1b[2J'"));
}

static void test_error_text_shortens_long_values(void **state)
{
	char big[2000];
	struct base_err err;
	uint64_t v;

	(void)state;
	memset(big, '7', sizeof(big) - 2);
	big[sizeof(big) - 2] = 'Q';
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(base_parse_size(big, &v, &err), -EINVAL);
	/* The explanation must survive, not be cut off by the value. */
	assert_non_null(strstr(err.msg, "...': expected a number"));
	assert_true(strlen(err.msg) < 200);
}

static void test_error_text_keeps_utf8_whole_when_shortening(void **state)
{
	/* 47 ASCII bytes, then two-byte sequences straddling the cut. */
	char s[] = "12345678901234567890123456789012345678901234567"
		   "\xc2\xb5\xc2\xb5\xc2\xb5";
	struct base_err err;
	int64_t ns;

	(void)state;
	assert_int_equal(base_parse_duration_ns(s, &ns, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "4567...'"));
}

/* ---- base_format_size ---- */

static void test_format_size_uses_largest_exact_suffix(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *s;
	} c[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ 1000, "1000" },
		{ 1023, "1023" },
		{ 1024, "1K" },
		{ 1536, "1536" },
		{ 8192, "8K" },
		{ 1048576, "1M" },
		{ 1049600, "1025K" },
		{ UINT64_C(3) << 30, "3G" },
		{ UINT64_C(1) << 40, "1T" },
		{ UINT64_C(1) << 50, "1024T" },
		{ UINT64_C(16777215) << 40, "16777215T" },
		{ UINT64_MAX, "18446744073709551615" },
	};
	char buf[BASE_SIZE_STRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		base_format_size(c[i].bytes, buf, sizeof(buf));
		assert_string_equal(buf, c[i].s);
	}
}

static void test_format_size_round_trips_through_parse(void **state)
{
	static const uint64_t c[] = {
		0,	 1,	    512,	      1000,
		1024,	 1536,	    8192,	      1048575,
		1048576, UINT64_C(5) << 30, UINT64_C(7) << 40, UINT64_C(1) << 63,
		UINT64_MAX - 1, UINT64_MAX,
	};
	char buf[BASE_SIZE_STRLEN];
	uint64_t v;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		base_format_size(c[i], buf, sizeof(buf));
		assert_int_equal(base_parse_size(buf, &v, NULL), 0);
		assert_true(v == c[i]);
	}
}

static void test_format_size_truncates_to_buffer(void **state)
{
	char buf[4] = "xyz";

	(void)state;
	base_format_size(1000000, buf, sizeof(buf));
	assert_string_equal(buf, "100");
	base_format_size(8192, buf, 0);
	assert_string_equal(buf, "100");
}

/* ---- base_parse_duration_ns ---- */

static void test_parse_duration_units(void **state)
{
	static const struct duration_case c[] = {
		{ "7ns", 0, 7 },
		{ "250us", 0, 250000 },
		{ "500ms", 0, 500000000 },
		{ "10s", 0, 10000000000LL },
		{ "2m", 0, 120000000000LL },
		{ "1h", 0, 3600000000000LL },
		{ "10", 0, 10000000000LL },
		{ "0", 0, 0 },
		{ "0ns", 0, 0 },
		{ "0s", 0, 0 },
	};

	(void)state;
	check_duration_cases(c, ARRAY_SIZE(c));
}

static void test_parse_duration_accepts_decimals(void **state)
{
	static const struct duration_case c[] = {
		{ "0.5s", 0, 500000000 },
		{ "1.25", 0, 1250000000 },
		{ "1.5ms", 0, 1500000 },
		{ "0.001s", 0, 1000000 },
		{ "0.000000001", 0, 1 },
		{ "2.5h", 0, 9000000000000LL },
		{ "0.5m", 0, 30000000000LL },
		{ "1.000us", 0, 1000 },
		{ "1.001us", 0, 1001 },
	};

	(void)state;
	check_duration_cases(c, ARRAY_SIZE(c));
}

static void test_parse_duration_rejects_sub_nanosecond(void **state)
{
	static const struct duration_case c[] = {
		{ "1.5ns", -EINVAL, 0 },
		{ "0.0000000001", -EINVAL, 0 },
		{ "0.0001us", -EINVAL, 0 },
		{ "0.0000000000001h", -EINVAL, 0 },
	};
	struct base_err err;
	int64_t ns;

	(void)state;
	check_duration_cases(c, ARRAY_SIZE(c));
	base_parse_duration_ns("1.5ns", &ns, &err);
	assert_string_equal(err.msg,
			    "invalid duration '1.5ns': expected a whole number of nanoseconds");
}

static void test_parse_duration_rejects_bad_syntax(void **state)
{
	static const struct duration_case c[] = {
		{ "", -EINVAL, 0 },
		{ " 1s", -EINVAL, 0 },
		{ "1s ", -EINVAL, 0 },
		{ "1 s", -EINVAL, 0 },
		{ "-1s", -EINVAL, 0 },
		{ "+1s", -EINVAL, 0 },
		{ "1S", -EINVAL, 0 },
		{ "1MS", -EINVAL, 0 },
		{ "1sec", -EINVAL, 0 },
		{ "1ss", -EINVAL, 0 },
		{ "1h30m", -EINVAL, 0 },
		{ "1d", -EINVAL, 0 },
		{ "s", -EINVAL, 0 },
		{ "1.s", -EINVAL, 0 },
		{ ".5s", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "inf", -EINVAL, 0 },
	};

	(void)state;
	check_duration_cases(c, ARRAY_SIZE(c));
}

static void test_parse_duration_caps_at_one_year(void **state)
{
	static const struct duration_case c[] = {
		{ "8760h", 0, BASE_DURATION_MAX_NS },
		{ "525600m", 0, BASE_DURATION_MAX_NS },
		{ "31536000", 0, BASE_DURATION_MAX_NS },
		{ "31536000000000000ns", 0, BASE_DURATION_MAX_NS },
		{ "31536000000000001ns", -ERANGE, 0 },
		{ "31536000.000000001", -ERANGE, 0 },
		{ "8761h", -ERANGE, 0 },
		{ "99999999999999999999s", -ERANGE, 0 },
		{ "9223372036854775808ns", -ERANGE, 0 },
		{ "18446744073709551616ns", -ERANGE, 0 },
	};
	struct base_err err;
	int64_t ns;

	(void)state;
	check_duration_cases(c, ARRAY_SIZE(c));
	assert_int_equal(base_parse_duration_ns("8761h", &ns, &err), -ERANGE);
	assert_string_equal(err.msg,
			    "invalid duration '8761h': too long, expected at most 365 days (8760h)");
}

static void test_parse_duration_error_names_value(void **state)
{
	struct base_err err;
	int64_t ns;

	(void)state;
	assert_int_equal(base_parse_duration_ns("10 sec", &ns, &err), -EINVAL);
	assert_string_equal(err.msg,
			    "invalid duration '10 sec': expected a number with a unit ns, us, ms, s, m or h (like 500ms or 10s), or a bare number of seconds");
}

/* ---- base_format_duration ---- */

static void test_format_duration_exact(void **state)
{
	static const struct {
		int64_t ns;
		const char *s;
	} c[] = {
		{ 10000000000LL, "10s" },
		{ 500000000, "500ms" },
		{ 1500000000, "1500ms" },
		{ 250000, "250us" },
		{ 7, "7ns" },
		{ 0, "0s" },
		{ 1000000001, "1000000001ns" },
		{ 90000000000LL, "90s" },
		{ 120000000000LL, "2m" },
		{ 5400000000000LL, "90m" },
		{ 3600000000000LL, "1h" },
		{ BASE_DURATION_MAX_NS, "8760h" },
		{ -5000000000LL, "-5s" },
		{ -1, "-1ns" },
		{ INT64_MAX, "9223372036854775807ns" },
		{ INT64_MIN, "-9223372036854775808ns" },
	};
	char buf[BASE_DURATION_STRLEN];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		base_format_duration(c[i].ns, buf, sizeof(buf));
		assert_string_equal(buf, c[i].s);
	}
}

static void test_format_duration_round_trips_through_parse(void **state)
{
	static const int64_t c[] = {
		0,	     1,		    999,	  1000,
		1500000,     1500000000,    60000000000LL, 61000000000LL,
		3600000000000LL, 3601000000000LL, BASE_DURATION_MAX_NS - 1,
		BASE_DURATION_MAX_NS,
	};
	char buf[BASE_DURATION_STRLEN];
	int64_t ns;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		base_format_duration(c[i], buf, sizeof(buf));
		assert_int_equal(base_parse_duration_ns(buf, &ns, NULL), 0);
		assert_true(ns == c[i]);
	}
}

static void test_format_duration_truncates_to_buffer(void **state)
{
	char buf[3] = "xy";

	(void)state;
	base_format_duration(1500000000, buf, sizeof(buf));
	assert_string_equal(buf, "15");
	base_format_duration(1, buf, 0);
	assert_string_equal(buf, "15");
}

/* ---- base_parse_u64 ---- */

static void test_parse_u64_accepts_range_bounds(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(base_parse_u64("1", 1, 1024, &v, NULL), 0);
	assert_true(v == 1);
	assert_int_equal(base_parse_u64("1024", 1, 1024, &v, NULL), 0);
	assert_true(v == 1024);
	assert_int_equal(base_parse_u64("0", 0, 0, &v, NULL), 0);
	assert_true(v == 0);
	assert_int_equal(base_parse_u64("18446744073709551615", 0, UINT64_MAX,
					&v, NULL),
			 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(base_parse_u64("007", 0, 10, &v, NULL), 0);
	assert_true(v == 7);
}

static void test_parse_u64_rejects_out_of_range(void **state)
{
	struct base_err err;
	uint64_t v = SENTINEL_U64;

	(void)state;
	assert_int_equal(base_parse_u64("0", 1, 1024, &v, &err), -ERANGE);
	assert_string_equal(err.msg,
			    "invalid number '0': expected an integer from 1 to 1024");
	assert_int_equal(base_parse_u64("1025", 1, 1024, &v, &err), -ERANGE);
	assert_string_equal(err.msg,
			    "invalid number '1025': expected an integer from 1 to 1024");
	assert_true(v == SENTINEL_U64);
}

static void test_parse_u64_rejects_bad_syntax(void **state)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "-1", "+1", "0x10", "1.0", "1K", "1e3", "one",
		"1_000", "1,000", "99999999999999999999x",
	};
	struct base_err err;
	uint64_t v = SENTINEL_U64;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (base_parse_u64(bad[i], 0, UINT64_MAX, &v, &err) != -EINVAL)
			fail_msg("base_parse_u64(\"%s\") did not return -EINVAL",
				 bad[i]);
		assert_non_null(strstr(err.msg,
				       "expected an integer from 0 to 18446744073709551615"));
	}
	assert_true(v == SENTINEL_U64);
	base_parse_u64("-1", 1, 8, &v, &err);
	assert_string_equal(err.msg,
			    "invalid number '-1': expected an integer from 1 to 8");
}

static void test_parse_u64_detects_overflow(void **state)
{
	uint64_t v = SENTINEL_U64;

	(void)state;
	assert_int_equal(base_parse_u64("18446744073709551616", 0, UINT64_MAX,
					&v, NULL),
			 -ERANGE);
	assert_int_equal(base_parse_u64("99999999999999999999999", 0,
					UINT64_MAX, &v, NULL),
			 -ERANGE);
	assert_true(v == SENTINEL_U64);
}

/* ---- base_parse_double ---- */

static void test_parse_double_accepts_decimal_and_exponent(void **state)
{
	static const struct {
		const char *s;
		double v;
	} c[] = {
		{ "0", 0.0 },	    { "10", 10.0 },	{ "0.5", 0.5 },
		{ "1e3", 1000.0 },  { "2.5E-1", 0.25 }, { "1e+2", 100.0 },
		{ "007.5", 7.5 },   { "1.000", 1.0 },
	};
	double v;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		if (base_parse_double(c[i].s, 0, 1e6, &v, NULL))
			fail_msg("base_parse_double(\"%s\") failed", c[i].s);
		assert_true(v == c[i].v);
	}
}

static void test_parse_double_rejects_bad_syntax(void **state)
{
	static const char *const bad[] = {
		"",    " 1",  "1 ",    "+1",  "-1",  "0x1p3", ".5",	"1.",
		"1e",  "1e+", "1e3.5", "1,5", "--1", "1..2",  "e3",	"1f",
	};
	double v = -7.0;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (base_parse_double(bad[i], 0, 1e6, &v, NULL) != -EINVAL)
			fail_msg("base_parse_double(\"%s\") did not return -EINVAL",
				 bad[i]);
	assert_true(v == -7.0);
}

static void test_parse_double_rejects_non_finite(void **state)
{
	double v = -7.0;

	(void)state;
	assert_int_equal(base_parse_double("inf", -HUGE_VAL, HUGE_VAL, &v, NULL),
			 -EINVAL);
	assert_int_equal(base_parse_double("infinity", -HUGE_VAL, HUGE_VAL, &v,
					   NULL),
			 -EINVAL);
	assert_int_equal(base_parse_double("nan", -HUGE_VAL, HUGE_VAL, &v, NULL),
			 -EINVAL);
	assert_int_equal(base_parse_double("1e999", -HUGE_VAL, HUGE_VAL, &v,
					   NULL),
			 -ERANGE);
	assert_int_equal(base_parse_double("-1e999", -HUGE_VAL, HUGE_VAL, &v,
					   NULL),
			 -ERANGE);
	assert_true(v == -7.0);
}

static void test_parse_double_allows_minus_only_for_negative_ranges(void **state)
{
	double v = 0;

	(void)state;
	assert_int_equal(base_parse_double("-1.5", -10, 10, &v, NULL), 0);
	assert_true(v == -1.5);
	assert_int_equal(base_parse_double("-0", 0, 10, &v, NULL), -EINVAL);
	assert_int_equal(base_parse_double("-11", -10, 10, &v, NULL), -ERANGE);
	assert_int_equal(base_parse_double("+1", -10, 10, &v, NULL), -EINVAL);
	assert_int_equal(base_parse_double("-", -10, 10, &v, NULL), -EINVAL);
}

static void test_parse_double_enforces_range(void **state)
{
	struct base_err err;
	double v = 0;

	(void)state;
	assert_int_equal(base_parse_double("100", 0, 100, &v, &err), 0);
	assert_true(v == 100.0);
	assert_int_equal(base_parse_double("100.5", 0, 100, &v, &err), -ERANGE);
	assert_string_equal(err.msg,
			    "invalid number '100.5': expected a number from 0 to 100");
	assert_int_equal(base_parse_double("0.001", 0.01, 1, &v, &err), -ERANGE);
	assert_true(v == 100.0);
}

/* ---- base_parse_bool ---- */

static void test_parse_bool_accepts_all_spellings(void **state)
{
	static const struct {
		const char *s;
		bool v;
	} c[] = {
		{ "1", true },	   { "0", false },     { "yes", true },
		{ "no", false },   { "on", true },     { "off", false },
		{ "true", true },  { "false", false }, { "YES", true },
		{ "Off", false },  { "TRUE", true },   { "fAlSe", false },
	};
	bool v;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		v = !c[i].v;
		if (base_parse_bool(c[i].s, &v, NULL))
			fail_msg("base_parse_bool(\"%s\") failed", c[i].s);
		assert_true(v == c[i].v);
	}
}

static void test_parse_sysctl_name_takes_dotted_net_names_only(void **state)
{
	static const char *const good[] = {
		"net.core.rmem_default", "net.ipv4.tcp_rmem", "net.ipv4.conf.all.rp_filter",
		"net.ipv6.conf.nr-veth-c.mtu", "net.x",
	};
	static const char *const bad[] = {
		"", "net", "net.", "net..core", ".net.core", "net.core.", "kernel.panic",
		"vm.swappiness", "net/core/rmem_default", "net.core/../../kernel",
		"net.core.rmem default", "net.core.rmem_default\n", "NET.core.x",
		"net.core.x*", "Net.core.x",
	};
	char longname[BASE_SYSCTL_NAME_MAX + 2];
	struct base_err err;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (base_parse_sysctl_name(good[i], &err))
			fail_msg("base_parse_sysctl_name(\"%s\") refused: %s", good[i], err.msg);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (base_parse_sysctl_name(bad[i], &err) != -EINVAL)
			fail_msg("base_parse_sysctl_name(\"%s\") took it", bad[i]);
	memset(longname, 'a', sizeof(longname) - 1);
	memcpy(longname, "net.", 4);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(base_parse_sysctl_name(longname, &err), -EINVAL);
	longname[sizeof(longname) - 2] = '\0';
	assert_int_equal(base_parse_sysctl_name(longname, &err), 0);
	base_parse_sysctl_name("kernel.panic", &err);
	assert_string_equal(err.msg,
			    "invalid sysctl name 'kernel.panic': expected a dotted name under net. like net.core.rmem_default");
}

static void test_parse_sysctl_value_takes_printable_words(void **state)
{
	static const char *const good[] = { "212992", "4096 131072 6291456",
					    "4096\t8192\t8192", "bbr", "-1", "0" };
	static const char *const bad[] = { "", " ", "\t", "1\n", "a\x1b[2J", "1\r" };
	char longval[BASE_SYSCTL_VALUE_MAX + 2];
	struct base_err err;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (base_parse_sysctl_value(good[i], &err))
			fail_msg("base_parse_sysctl_value(\"%s\") refused: %s", good[i], err.msg);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (base_parse_sysctl_value(bad[i], &err) != -EINVAL)
			fail_msg("base_parse_sysctl_value(\"%s\") took it", bad[i]);
	memset(longval, '1', sizeof(longval) - 1);
	longval[sizeof(longval) - 1] = '\0';
	assert_int_equal(base_parse_sysctl_value(longval, &err), -EINVAL);
	longval[sizeof(longval) - 2] = '\0';
	assert_int_equal(base_parse_sysctl_value(longval, &err), 0);
}

static void test_parse_bool_rejects_other_words(void **state)
{
	static const char *const bad[] = {
		"",	 "2",	  "y",	  "n",	   "yess", "tru", "onn",
		" yes", "yes ", "01",	  "00",	   "-1",   "+1",  "t",
		"enable", "truefalse", "no\n",
	};
	struct base_err err;
	bool v = true;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (base_parse_bool(bad[i], &v, &err) != -EINVAL)
			fail_msg("base_parse_bool(\"%s\") did not return -EINVAL",
				 bad[i]);
	assert_true(v);
	base_parse_bool("maybe", &v, &err);
	assert_string_equal(err.msg,
			    "invalid boolean 'maybe': expected 1, 0, yes, no, on, off, true or false");
}

/* ---- base_parse_cpulist / base_format_cpulist ---- */

static void assert_cpus(const struct base_cpulist *l, const uint16_t *want,
			size_t n)
{
	size_t i;

	assert_int_equal(l->n, n);
	for (i = 0; i < n; i++)
		assert_int_equal(l->cpu[i], want[i]);
}

static void test_parse_cpulist_ranges_and_order(void **state)
{
	static const uint16_t a[] = { 0, 1, 2, 3, 8, 10, 11 };
	static const uint16_t b[] = { 8, 0, 1, 2, 3 };
	static const uint16_t c[] = { 3, 2, 1 };
	static const uint16_t d[] = { 1023 };
	static const uint16_t e[] = { 5, 0 };
	struct base_cpulist l;

	(void)state;
	assert_int_equal(base_parse_cpulist("0-3,8,10-11", &l, NULL), 0);
	assert_cpus(&l, a, ARRAY_SIZE(a));
	assert_int_equal(base_parse_cpulist("8,0-3", &l, NULL), 0);
	assert_cpus(&l, b, ARRAY_SIZE(b));
	assert_int_equal(base_parse_cpulist("3,2,1", &l, NULL), 0);
	assert_cpus(&l, c, ARRAY_SIZE(c));
	assert_int_equal(base_parse_cpulist("1023", &l, NULL), 0);
	assert_cpus(&l, d, ARRAY_SIZE(d));
	assert_int_equal(base_parse_cpulist("5-5,0", &l, NULL), 0);
	assert_cpus(&l, e, ARRAY_SIZE(e));
}

static void test_parse_cpulist_accepts_strides(void **state)
{
	static const uint16_t a[] = { 0, 2, 4, 6 };
	static const uint16_t b[] = { 1, 4, 7 };
	static const uint16_t c[] = { 0, 1, 2 };
	static const uint16_t d[] = { 0, 2, 4, 6, 5, 1 };
	static const uint16_t e[] = { 3 };
	struct base_cpulist l;

	(void)state;
	assert_int_equal(base_parse_cpulist("0-7:2", &l, NULL), 0);
	assert_cpus(&l, a, ARRAY_SIZE(a));
	assert_int_equal(base_parse_cpulist("1-8:3", &l, NULL), 0);
	assert_cpus(&l, b, ARRAY_SIZE(b));
	assert_int_equal(base_parse_cpulist("0-2:1", &l, NULL), 0);
	assert_cpus(&l, c, ARRAY_SIZE(c));
	assert_int_equal(base_parse_cpulist("0-7:2,5,1", &l, NULL), 0);
	assert_cpus(&l, d, ARRAY_SIZE(d));
	assert_int_equal(base_parse_cpulist("3-5:1023", &l, NULL), 0);
	assert_cpus(&l, e, ARRAY_SIZE(e));
}

static void test_parse_cpulist_accepts_every_cpu(void **state)
{
	struct base_cpulist l;
	size_t i;

	(void)state;
	assert_int_equal(base_parse_cpulist("0-1023", &l, NULL), 0);
	assert_int_equal(l.n, BASE_CPU_MAX);
	for (i = 0; i < BASE_CPU_MAX; i++)
		assert_int_equal(l.cpu[i], i);
}

static void check_cpulist_rejects(const char *const *bad, size_t n, int want)
{
	struct base_cpulist l = { .n = 77 };
	size_t i;

	for (i = 0; i < n; i++) {
		struct base_err err = { .msg = "" };
		int ret = base_parse_cpulist(bad[i], &l, &err);

		if (ret != want)
			fail_msg("base_parse_cpulist(\"%s\") returned %d, want %d",
				 bad[i], ret, want);
		if (!err.msg[0])
			fail_msg("base_parse_cpulist(\"%s\") failed without a message",
				 bad[i]);
	}
	assert_int_equal(l.n, 77);
}

static void test_parse_cpulist_rejects_duplicates(void **state)
{
	static const char *const bad[] = {
		"1,1", "0-3,2", "0-7:2,4", "5,0-9", "0-1,1-2", "0-1023,1023",
	};
	struct base_err err;
	struct base_cpulist l;

	(void)state;
	check_cpulist_rejects(bad, ARRAY_SIZE(bad), -EINVAL);
	base_parse_cpulist("0-3,2", &l, &err);
	assert_string_equal(err.msg,
			    "invalid cpu list '0-3,2': cpu 2 is listed twice, expected each cpu once");
}

static void test_parse_cpulist_rejects_reversed_ranges(void **state)
{
	static const char *const bad[] = { "3-0", "1-0", "0,9-8" };
	struct base_err err;
	struct base_cpulist l;

	(void)state;
	check_cpulist_rejects(bad, ARRAY_SIZE(bad), -EINVAL);
	base_parse_cpulist("3-0", &l, &err);
	assert_string_equal(err.msg,
			    "invalid cpu list '3-0': range 3-0 is reversed, expected the lower id first");
}

static void test_parse_cpulist_rejects_empty_elements(void **state)
{
	static const char *const bad[] = {
		"", ",", ",1", "1,", "1,,2", "0-", "-1", "-", "0--1", "0-3,",
		"0-3:", ":2", "0-3::2",
	};

	(void)state;
	check_cpulist_rejects(bad, ARRAY_SIZE(bad), -EINVAL);
}

static void test_parse_cpulist_rejects_whitespace_and_garbage(void **state)
{
	static const char *const bad[] = {
		" 1", "1 ", "1, 2", "0 - 3", "0x1", "a", "+1", "1.0", "3:2",
		"0-3:2:1", "0-3/2", "1;2", "all", "0-3:2/4",
		/* Syntax is judged first: these also hold ids that are too large. */
		"2000,", "1024,x", "99999999999999999999-", "0-7:0,",
	};
	struct base_err err;
	struct base_cpulist l;

	(void)state;
	check_cpulist_rejects(bad, ARRAY_SIZE(bad), -EINVAL);
	base_parse_cpulist("1,,2", &l, &err);
	assert_string_equal(err.msg,
			    "invalid cpu list '1,,2': expected cpu ids and ranges like 0-3,8 or 0-7:2");
}

static void test_parse_cpulist_rejects_out_of_range_ids(void **state)
{
	static const char *const bad[] = {
		"1024", "0-1024", "1024-1025", "5,65536", "99999999999999999999",
		"18446744073709551616", "0-7:0", "0-7:1024",
	};
	struct base_err err;
	struct base_cpulist l;

	(void)state;
	check_cpulist_rejects(bad, ARRAY_SIZE(bad), -ERANGE);
	base_parse_cpulist("1024", &l, &err);
	assert_string_equal(err.msg,
			    "invalid cpu list '1024': expected cpu ids from 0 to 1023");
	base_parse_cpulist("0-7:0", &l, &err);
	assert_string_equal(err.msg,
			    "invalid cpu list '0-7:0': expected a stride from 1 to 1023");
}

static void test_format_cpulist_compact_in_given_order(void **state)
{
	static const struct {
		const char *in;
		const char *out;
	} c[] = {
		{ "0-3,8", "0-3,8" },
		{ "0,1,2,3,8", "0-3,8" },
		{ "8,0-3", "8,0-3" },
		{ "0-1", "0-1" },
		{ "5", "5" },
		{ "3,2,1,0", "3,2,1,0" },
		{ "0-7:2", "0,2,4,6" },
		{ "0-3,4-7", "0-7" },
		{ "4-7,0-3", "4-7,0-3" },
		{ "1023,0", "1023,0" },
		{ "0-1023", "0-1023" },
	};
	char buf[BASE_CPULIST_STRLEN];
	struct base_cpulist l;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		assert_int_equal(base_parse_cpulist(c[i].in, &l, NULL), 0);
		assert_int_equal(base_format_cpulist(&l, buf, sizeof(buf)), 0);
		assert_string_equal(buf, c[i].out);
	}
}

static void test_format_cpulist_empty_list_is_empty_string(void **state)
{
	struct base_cpulist l = { .n = 0 };
	char buf[4] = "xyz";

	(void)state;
	assert_int_equal(base_format_cpulist(&l, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	assert_int_equal(base_format_cpulist(&l, buf, 1), 0);
	assert_int_equal(base_format_cpulist(&l, buf, 0), -ENOSPC);
}

static void test_format_cpulist_reports_enospc(void **state)
{
	struct base_cpulist l;
	char buf[16];

	(void)state;
	assert_int_equal(base_parse_cpulist("0-3,8", &l, NULL), 0);
	/* "0-3,8" needs 6 bytes with the NUL. */
	assert_int_equal(base_format_cpulist(&l, buf, 6), 0);
	assert_string_equal(buf, "0-3,8");
	assert_int_equal(base_format_cpulist(&l, buf, 5), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(base_format_cpulist(&l, buf, 3), -ENOSPC);
	assert_string_equal(buf, "");
	assert_int_equal(base_format_cpulist(&l, buf, 0), -ENOSPC);
	l.n = BASE_CPU_MAX + 1;
	assert_int_equal(base_format_cpulist(&l, buf, sizeof(buf)), -EINVAL);
}

static void test_format_cpulist_worst_case_fits_strlen(void **state)
{
	/* No two neighbours consecutive: every id printed on its own. */
	static char in[BASE_CPULIST_STRLEN * 2];
	char buf[BASE_CPULIST_STRLEN];
	struct base_cpulist l, back;
	size_t o = 0;
	int i;

	(void)state;
	for (i = 1023; i >= 0; i--)
		o += (size_t)snprintf(in + o, sizeof(in) - o, "%s%d",
				      i == 1023 ? "" : ",", i);
	assert_int_equal(base_parse_cpulist(in, &l, NULL), 0);
	assert_int_equal(l.n, BASE_CPU_MAX);
	assert_int_equal(base_format_cpulist(&l, buf, sizeof(buf)), 0);
	assert_string_equal(buf, in);
	assert_int_equal(base_parse_cpulist(buf, &back, NULL), 0);
	assert_memory_equal(back.cpu, l.cpu, sizeof(l.cpu));
}

static void test_format_cpulist_round_trips_through_parse(void **state)
{
	static const char *const c[] = {
		"0",	      "0-3,8,10-11",   "8,0-3",	  "0-7:2",
		"1-1023:3",   "7,6,5,4",       "0,2,1,3", "512-1023,0-511",
		"1000-1023:5,3",
	};
	char buf[BASE_CPULIST_STRLEN];
	struct base_cpulist a, b;
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		assert_int_equal(base_parse_cpulist(c[i], &a, NULL), 0);
		assert_int_equal(base_format_cpulist(&a, buf, sizeof(buf)), 0);
		assert_int_equal(base_parse_cpulist(buf, &b, NULL), 0);
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.cpu, b.cpu, a.n * sizeof(a.cpu[0]));
	}
}

/* A file of n bytes 'a', 'b', ... in a fresh temporary directory. */
static void small_file(char *path, size_t cap, size_t n)
{
	char dir[] = "/tmp/nr-test-file-XXXXXX";
	int fd;

	assert_non_null(mkdtemp(dir));
	snprintf(path, cap, "%s/f", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	for (size_t i = 0; i < n; i++) {
		char c = (char)('a' + i % 26);

		assert_int_equal(write(fd, &c, 1), 1);
	}
	close(fd);
}

static void drop_file(const char *path)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	unlink(path);
	rmdir(dir);
}

static void test_read_path_whole_cut_or_missing(void **state)
{
	char path[4096], buf[16];
	size_t len;
	bool more;

	(void)state;
	small_file(path, sizeof(path), 10);
	/* room to spare, exactly the size (the byte past it tried), too small */
	assert_int_equal(base_read_path(path, buf, sizeof(buf), &len, &more), 0);
	assert_int_equal(len, 10);
	assert_false(more);
	assert_memory_equal(buf, "abcdefghij", 10);
	assert_int_equal(base_read_path(path, buf, 10, &len, &more), 0);
	assert_int_equal(len, 10);
	assert_false(more);
	assert_int_equal(base_read_path(path, buf, 4, &len, &more), 0);
	assert_int_equal(len, 4);
	assert_true(more);
	assert_memory_equal(buf, "abcd", 4);
	drop_file(path);
	more = true;
	assert_int_equal(base_read_path(path, buf, sizeof(buf), &len, &more), -ENOENT);
	assert_int_equal(len, 0);
	assert_false(more);
	/* a directory opens, and its read fails */
	assert_int_equal(base_read_path("/", buf, sizeof(buf), &len, &more), -EISDIR);
	assert_int_equal(len, 0);
}

static void test_read_fd_reads_on_after_short_reads(void **state)
{
	char buf[16];
	size_t len;
	bool more;
	int p[2];

	(void)state;
	/* a pipe gives what was written so far: two writes, then EOF */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "abc", 3), 3);
	assert_int_equal(write(p[1], "defg", 4), 4);
	close(p[1]);
	assert_int_equal(base_read_fd(p[0], buf, sizeof(buf), &len, &more), 0);
	assert_int_equal(len, 7);
	assert_false(more);
	assert_memory_equal(buf, "abcdefg", 7);
	close(p[0]);
	/* from the fd's offset on, which stays open; the byte tried past cap
	 * is gone */
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "0123456789", 10), 10);
	close(p[1]);
	assert_int_equal(base_read_fd(p[0], buf, 3, &len, &more), 0);
	assert_true(more && len == 3);
	assert_int_equal(base_read_fd(p[0], buf, sizeof(buf), &len, &more), 0);
	assert_int_equal(len, 6);
	assert_memory_equal(buf, "456789", 6);
	close(p[0]);
	assert_int_equal(base_read_fd(-1, buf, sizeof(buf), &len, &more), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_set_formats_and_returns_errnum),
		cmocka_unit_test(test_err_set_accepts_null),
		cmocka_unit_test(test_err_set_truncates_long_message),
		cmocka_unit_test(test_err_prefix_prepends_context),
		cmocka_unit_test(test_err_prefix_accepts_null),
		cmocka_unit_test(test_err_set_and_prefix_escape_control_characters),
		cmocka_unit_test(test_err_prefix_truncates_to_message_size),

		cmocka_unit_test(test_parse_size_accepts_plain_integers),
		cmocka_unit_test(test_parse_size_accepts_binary_suffixes),
		cmocka_unit_test(test_parse_size_accepts_exact_fractions),
		cmocka_unit_test(test_parse_size_rejects_inexact_fractions),
		cmocka_unit_test(test_parse_size_rejects_empty_and_whitespace),
		cmocka_unit_test(test_parse_size_rejects_signs),
		cmocka_unit_test(test_parse_size_rejects_trailing_garbage),
		cmocka_unit_test(test_parse_size_rejects_malformed_decimals),
		cmocka_unit_test(test_parse_size_detects_overflow),
		cmocka_unit_test(test_parse_size_error_names_value_and_expectation),
		cmocka_unit_test(test_parse_size_error_is_optional),
		cmocka_unit_test(test_error_text_is_lowercase_single_line),
		cmocka_unit_test(test_error_text_escapes_control_characters),
		cmocka_unit_test(test_error_text_shortens_long_values),
		cmocka_unit_test(test_error_text_keeps_utf8_whole_when_shortening),
		cmocka_unit_test(test_format_size_uses_largest_exact_suffix),
		cmocka_unit_test(test_format_size_round_trips_through_parse),
		cmocka_unit_test(test_format_size_truncates_to_buffer),

		cmocka_unit_test(test_parse_duration_units),
		cmocka_unit_test(test_parse_duration_accepts_decimals),
		cmocka_unit_test(test_parse_duration_rejects_sub_nanosecond),
		cmocka_unit_test(test_parse_duration_rejects_bad_syntax),
		cmocka_unit_test(test_parse_duration_caps_at_one_year),
		cmocka_unit_test(test_parse_duration_error_names_value),
		cmocka_unit_test(test_format_duration_exact),
		cmocka_unit_test(test_format_duration_round_trips_through_parse),
		cmocka_unit_test(test_format_duration_truncates_to_buffer),

		cmocka_unit_test(test_parse_u64_accepts_range_bounds),
		cmocka_unit_test(test_parse_u64_rejects_out_of_range),
		cmocka_unit_test(test_parse_u64_rejects_bad_syntax),
		cmocka_unit_test(test_parse_u64_detects_overflow),

		cmocka_unit_test(test_parse_double_accepts_decimal_and_exponent),
		cmocka_unit_test(test_parse_double_rejects_bad_syntax),
		cmocka_unit_test(test_parse_double_rejects_non_finite),
		cmocka_unit_test(test_parse_double_allows_minus_only_for_negative_ranges),
		cmocka_unit_test(test_parse_double_enforces_range),

		cmocka_unit_test(test_parse_bool_accepts_all_spellings),
		cmocka_unit_test(test_parse_sysctl_name_takes_dotted_net_names_only),
		cmocka_unit_test(test_parse_sysctl_value_takes_printable_words),
		cmocka_unit_test(test_parse_bool_rejects_other_words),

		cmocka_unit_test(test_parse_cpulist_ranges_and_order),
		cmocka_unit_test(test_parse_cpulist_accepts_strides),
		cmocka_unit_test(test_parse_cpulist_accepts_every_cpu),
		cmocka_unit_test(test_parse_cpulist_rejects_duplicates),
		cmocka_unit_test(test_parse_cpulist_rejects_reversed_ranges),
		cmocka_unit_test(test_parse_cpulist_rejects_empty_elements),
		cmocka_unit_test(test_parse_cpulist_rejects_whitespace_and_garbage),
		cmocka_unit_test(test_parse_cpulist_rejects_out_of_range_ids),
		cmocka_unit_test(test_format_cpulist_compact_in_given_order),
		cmocka_unit_test(test_format_cpulist_empty_list_is_empty_string),
		cmocka_unit_test(test_format_cpulist_reports_enospc),
		cmocka_unit_test(test_format_cpulist_worst_case_fits_strlen),
		cmocka_unit_test(test_format_cpulist_round_trips_through_parse),
		cmocka_unit_test(test_read_path_whole_cut_or_missing),
		cmocka_unit_test(test_read_fd_reads_on_after_short_reads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
