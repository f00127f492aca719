// SPDX-License-Identifier: GPL-2.0-only
/* Strict parsers and exact formatters for user-supplied values; see parse.h. */
#include "base/parse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE_SYNTAX "expected a number with an optional K, M, G or T suffix (like 8K or 1M)"
#define DURATION_SYNTAX "expected a number with a unit ns, us, ms, s, m or h (like 500ms or 10s), or a bare number of seconds"
#define CPULIST_SYNTAX "expected cpu ids and ranges like 0-3,8 or 0-7:2"

static bool is_digit(char c)
{
	/* Not isdigit(): it depends on the locale and takes no plain char. */
	return c >= '0' && c <= '9';
}

static char to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * Read a run of decimal digits at *p into *out, advancing *p past them.
 * Returns 0, -EINVAL if there is no digit, or -ERANGE if the value does not
 * fit in a uint64_t (the digits are still consumed, so the caller can tell
 * overflow from garbage).
 */
static int scan_u64(const char **p, uint64_t *out)
{
	const char *q = *p;
	uint64_t v = 0;
	int ret = 0;

	if (!is_digit(*q))
		return -EINVAL;
	for (; is_digit(*q); q++) {
		unsigned int d = (unsigned int)(*q - '0');

		if (v > (UINT64_MAX - d) / 10)
			ret = -ERANGE;
		else
			v = v * 10 + d;
	}
	*p = q;
	if (!ret)
		*out = v;
	return ret;
}

/* A decimal number as written, "123" or "123.45"; nothing converted yet. */
struct decimal {
	const char *int_p;
	size_t int_n;
	const char *frac_p;
	size_t frac_n;
};

/*
 * Scan digits with an optional ".digits" at s into d. Returns a pointer
 * past the number, or NULL if s does not start with one ("", ".5", "1.").
 */
static const char *scan_decimal(const char *s, struct decimal *d)
{
	const char *p = s;

	d->int_p = p;
	while (is_digit(*p))
		p++;
	d->int_n = (size_t)(p - s);
	d->frac_p = p;
	d->frac_n = 0;
	if (!d->int_n)
		return NULL;
	if (*p != '.')
		return p;
	d->frac_p = ++p;
	while (is_digit(*p))
		p++;
	d->frac_n = (size_t)(p - d->frac_p);
	return d->frac_n ? p : NULL;
}

/*
 * Compute d * mult exactly (mult >= 1, at most 2^40 here) and store it in
 * *out if it is at most max. Returns 0, -ERANGE above max, or -EDOM if the
 * fraction does not give a whole number.
 *
 * The fraction is folded in from its last digit: with v the value of the
 * digits to the right times mult, v' = (digit * mult + v) / 10. If the
 * final result is whole then so is every intermediate v (v_next =
 * 10 * v - digit * mult), so a remainder at any step proves it is not.
 * v stays below mult, so nothing overflows and no digit count is capped.
 */
static int scale_decimal(const struct decimal *d, uint64_t mult, uint64_t max,
			 uint64_t *out)
{
	uint64_t frac = 0, whole = 0;
	size_t i;

	for (i = d->frac_n; i > 0; i--) {
		frac += (uint64_t)(d->frac_p[i - 1] - '0') * mult;
		if (frac % 10)
			return -EDOM;
		frac /= 10;
	}
	for (i = 0; i < d->int_n; i++) {
		unsigned int dig = (unsigned int)(d->int_p[i] - '0');

		if (whole > (UINT64_MAX - dig) / 10)
			return -ERANGE;
		whole = whole * 10 + dig;
	}
	if (frac > max || whole > (max - frac) / mult)
		return -ERANGE;
	*out = whole * mult + frac;
	return 0;
}

/*
 * Match the size suffix at p: "", "B", or K/M/G/T followed by "", "B" or
 * "iB", any case. Returns the shift (0, 10, 20, 30, 40) or -1.
 */
static int size_suffix_shift(const char *p)
{
	static const char units[] = "kmgt";
	const char *u;
	int shift;

	if (!*p)
		return 0;
	if (to_lower(p[0]) == 'b' && !p[1])
		return 0;
	u = memchr(units, to_lower(p[0]), sizeof(units) - 1);
	if (!u)
		return -1;
	shift = 10 * (int)(u - units + 1);
	p++;
	if (to_lower(p[0]) == 'i')
		p++;
	else if (!*p)
		return shift;
	if (to_lower(p[0]) == 'b' && !p[1])
		return shift;
	return -1;
}

int base_parse_size(const char *s, uint64_t *out_bytes, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	struct decimal d;
	const char *p;
	uint64_t v;
	int shift, ret;

	p = scan_decimal(s, &d);
	shift = p ? size_suffix_shift(p) : -1;
	if (shift < 0)
		return base_err_set(err, -EINVAL,
				    "invalid size '%s': " SIZE_SYNTAX, base_quote(s, q));
	ret = scale_decimal(&d, UINT64_C(1) << shift, UINT64_MAX, &v);
	if (ret == -EDOM)
		return base_err_set(err, -EINVAL,
				    "invalid size '%s': expected a whole number of bytes (a fraction must be exact, like 1.5K)",
				    base_quote(s, q));
	if (ret)
		return base_err_set(err, -ERANGE,
				    "invalid size '%s': too large, expected at most %" PRIu64 " bytes",
				    base_quote(s, q), UINT64_MAX);
	*out_bytes = v;
	return 0;
}

static const struct {
	const char *name;
	int64_t ns;
} duration_units[] = {
	/* Largest first: base_format_duration() takes the first that divides. */
	{ "h", 3600 * 1000000000LL },
	{ "m", 60 * 1000000000LL },
	{ "s", 1000000000LL },
	{ "ms", 1000000LL },
	{ "us", 1000LL },
	{ "ns", 1LL },
};

int base_parse_duration_ns(const char *s, int64_t *out_ns,
			   struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	struct decimal d;
	int64_t mult = -1;
	const char *p;
	uint64_t v;
	size_t i;
	int ret;

	p = scan_decimal(s, &d);
	if (p && !*p) {
		mult = 1000000000LL;
	} else if (p) {
		for (i = 0; i < ARRAY_SIZE(duration_units); i++)
			if (!strcmp(p, duration_units[i].name))
				mult = duration_units[i].ns;
	}
	if (mult < 0)
		return base_err_set(err, -EINVAL,
				    "invalid duration '%s': " DURATION_SYNTAX,
				    base_quote(s, q));
	ret = scale_decimal(&d, (uint64_t)mult, BASE_DURATION_MAX_NS, &v);
	if (ret == -EDOM)
		return base_err_set(err, -EINVAL,
				    "invalid duration '%s': expected a whole number of nanoseconds",
				    base_quote(s, q));
	if (ret)
		return base_err_set(err, -ERANGE,
				    "invalid duration '%s': too long, expected at most 365 days (8760h)",
				    base_quote(s, q));
	*out_ns = (int64_t)v;
	return 0;
}

int base_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
		   struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *p = s;
	uint64_t v = 0;
	int ret;

	ret = scan_u64(&p, &v);
	if (ret != -EINVAL && *p)
		ret = -EINVAL;
	if (!ret && (v < min || v > max))
		ret = -ERANGE;
	if (ret)
		return base_err_set(err, ret,
				    "invalid number '%s': expected an integer from %" PRIu64 " to %" PRIu64,
				    base_quote(s, q), min, max);
	*out = v;
	return 0;
}

/*
 * Check the grammar strtod() will see: [-]digits[.digits][e[+-]digits].
 * strtod() alone would also take spaces, '+', hex, inf and nan. Returns a
 * pointer past the number or NULL.
 */
static const char *scan_double(const char *s, bool allow_minus)
{
	struct decimal d;
	const char *p;

	if (*s == '-' && allow_minus)
		s++;
	p = scan_decimal(s, &d);
	if (!p || (*p != 'e' && *p != 'E'))
		return p;
	p++;
	if (*p == '+' || *p == '-')
		p++;
	if (!is_digit(*p))
		return NULL;
	while (is_digit(*p))
		p++;
	return p;
}

int base_parse_double(const char *s, double min, double max, double *out,
		      struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	const char *p;
	double v = 0;
	char *end;
	int ret = 0;

	p = scan_double(s, min < 0);
	if (!p || *p) {
		ret = -EINVAL;
	} else {
		errno = 0;
		v = strtod(s, &end);
		/* A locale with ',' as decimal point stops strtod() at '.'. */
		if (end != p)
			ret = -EINVAL;
		else if (errno == ERANGE || !isfinite(v) || v < min || v > max)
			ret = -ERANGE;
	}
	if (ret)
		return base_err_set(err, ret,
				    "invalid number '%s': expected a number from %g to %g",
				    base_quote(s, q), min, max);
	*out = v;
	return 0;
}

int base_parse_bool(const char *s, bool *out, struct base_err *err)
{
	static const struct {
		const char *name;
		bool val;
	} words[] = {
		{ "1", true },	  { "0", false },   { "yes", true },
		{ "no", false },  { "on", true },   { "off", false },
		{ "true", true }, { "false", false },
	};
	char q[BASE_QUOTE_LEN];
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(words); i++) {
		const char *w = words[i].name;

		/* Not strcasecmp(): it follows the locale. */
		for (j = 0; w[j] && to_lower(s[j]) == w[j]; j++)
			;
		if (!w[j] && !s[j]) {
			*out = words[i].val;
			return 0;
		}
	}
	return base_err_set(err, -EINVAL,
			    "invalid boolean '%s': expected 1, 0, yes, no, on, off, true or false",
			    base_quote(s, q));
}

static bool skip_digits(const char **p)
{
	const char *q = *p;

	while (is_digit(*q))
		q++;
	if (q == *p)
		return false;
	*p = q;
	return true;
}

/*
 * Check the whole list against elem[,elem]... with elem = N[-N[:N]] before
 * looking at any value, so that malformed text is always -EINVAL, even when
 * it also holds an id that is too large.
 */
static bool cpulist_syntax_ok(const char *p)
{
	for (;;) {
		if (!skip_digits(&p))
			return false;
		if (*p == '-') {
			p++;
			if (!skip_digits(&p))
				return false;
			if (*p == ':') {
				p++;
				if (!skip_digits(&p))
					return false;
			}
		}
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

/* Read a number the syntax pass vouched for; -ERANGE unless in [lo, hi]. */
static int scan_uint_in(const char **p, unsigned int lo, unsigned int hi,
			unsigned int *out)
{
	uint64_t v = 0;

	if (scan_u64(p, &v) || v < lo || v > hi)
		return -ERANGE;
	*out = (unsigned int)v;
	return 0;
}

int base_parse_cpulist(const char *s, struct base_cpulist *out,
		       struct base_err *err)
{
	unsigned char seen[BASE_CPU_MAX / 8] = { 0 };
	/* Built aside so that *out is untouched on failure. */
	struct base_cpulist l;
	char q[BASE_QUOTE_LEN];
	const char *p = s;
	unsigned int first = 0, last = 0, stride, cpu;

	if (!cpulist_syntax_ok(s))
		return base_err_set(err, -EINVAL,
				    "invalid cpu list '%s': " CPULIST_SYNTAX,
				    base_quote(s, q));
	l.n = 0;
	for (;;) {
		if (scan_uint_in(&p, 0, BASE_CPU_MAX - 1, &first))
			return base_err_set(err, -ERANGE,
					    "invalid cpu list '%s': expected cpu ids from 0 to %d",
					    base_quote(s, q), BASE_CPU_MAX - 1);
		last = first;
		stride = 1;
		if (*p == '-') {
			p++;
			if (scan_uint_in(&p, 0, BASE_CPU_MAX - 1, &last))
				return base_err_set(err, -ERANGE,
						    "invalid cpu list '%s': expected cpu ids from 0 to %d",
						    base_quote(s, q), BASE_CPU_MAX - 1);
			if (last < first)
				return base_err_set(err, -EINVAL,
						    "invalid cpu list '%s': range %u-%u is reversed, expected the lower id first",
						    base_quote(s, q), first, last);
			/*
			 * A stride is capped like an id: a larger one could
			 * not reach a second cpu anyway, and the cap keeps
			 * cpu += stride small.
			 */
			if (*p == ':') {
				p++;
				if (scan_uint_in(&p, 1, BASE_CPU_MAX - 1,
						 &stride))
					return base_err_set(err, -ERANGE,
							    "invalid cpu list '%s': expected a stride from 1 to %d",
							    base_quote(s, q),
							    BASE_CPU_MAX - 1);
			}
		}
		for (cpu = first; cpu <= last; cpu += stride) {
			if (seen[cpu / 8] & (1u << (cpu % 8)))
				return base_err_set(err, -EINVAL,
						    "invalid cpu list '%s': cpu %u is listed twice, expected each cpu once",
						    base_quote(s, q), cpu);
			seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
			/* At most BASE_CPU_MAX distinct ids fit. */
			l.cpu[l.n++] = (uint16_t)cpu;
		}
		if (!*p)
			break;
		/* The ',' that the syntax pass saw. */
		p++;
	}
	memcpy(out, &l, offsetof(struct base_cpulist, cpu) +
				l.n * sizeof(l.cpu[0]));
	return 0;
}

int base_format_cpulist(const struct base_cpulist *l, char *buf, size_t len)
{
	size_t i, j, o = 0;
	int n;

	if (len)
		buf[0] = '\0';
	if (l->n > BASE_CPU_MAX)
		return -EINVAL;
	for (i = 0; i < l->n; i = j + 1) {
		/* Extend over an ascending run of consecutive ids. */
		for (j = i; j + 1 < l->n && l->cpu[j + 1] == l->cpu[j] + 1; j++)
			;
		if (j == i)
			n = snprintf(buf + o, len - o, "%s%u", i ? "," : "",
				     l->cpu[i]);
		else
			n = snprintf(buf + o, len - o, "%s%u-%u", i ? "," : "",
				     l->cpu[i], l->cpu[j]);
		if (n < 0 || (size_t)n >= len - o) {
			if (len)
				buf[0] = '\0';
			return -ENOSPC;
		}
		o += (size_t)n;
	}
	if (!l->n && !len)
		return -ENOSPC;
	return 0;
}

void base_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char suffix[] = "TGMK";
	int i;

	for (i = 0; bytes && i < 4; i++) {
		int shift = 10 * (4 - i);

		if (!(bytes & ((UINT64_C(1) << shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", bytes >> shift,
				 suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, bytes);
}

void base_format_duration(int64_t ns, char *buf, size_t len)
{
	/* Offset by one so that INT64_MIN has a magnitude too. */
	uint64_t mag = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;
	size_t i;

	if (!ns) {
		snprintf(buf, len, "0s");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(duration_units); i++) {
		uint64_t unit = (uint64_t)duration_units[i].ns;

		if (!(mag % unit)) {
			snprintf(buf, len, "%s%" PRIu64 "%s", ns < 0 ? "-" : "",
				 mag / unit, duration_units[i].name);
			return;
		}
	}
}

int base_parse_sysctl_name(const char *s, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	size_t len = 0, comp = 0;
	bool ok = !strncmp(s, "net.", 4);

	for (; ok && s[len]; len++) {
		char ch = s[len];

		if (ch == '.') {
			ok = comp > 0;
			comp = 0;
		} else {
			ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			     (ch >= '0' && ch <= '9') || ch == '_' || ch == '-';
			comp++;
		}
	}
	if (ok && comp > 0 && len <= BASE_SYSCTL_NAME_MAX)
		return 0;
	return base_err_set(err, -EINVAL,
			    "invalid sysctl name '%s': expected a dotted name under net. like net.core.rmem_default",
			    base_quote(s, q));
}

int base_parse_sysctl_value(const char *s, struct base_err *err)
{
	char q[BASE_QUOTE_LEN];
	size_t len = strlen(s);
	bool blank = true, control = false;

	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];

		if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
			control = true;
		else if (ch != ' ' && ch != '\t')
			blank = false;
	}
	if (len <= BASE_SYSCTL_VALUE_MAX && !blank && !control)
		return 0;
	return base_err_set(err, -EINVAL,
			    "invalid sysctl value '%s': expected 1 to %d printable characters, like 212992 or '4096 131072 6291456'",
			    base_quote(s, q), BASE_SYSCTL_VALUE_MAX);
}
