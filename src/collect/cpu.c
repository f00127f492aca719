// SPDX-License-Identifier: GPL-2.0-only
/* /proc/stat reader and CPU time split; see cpu.h. */
#include "collect/cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/time.h"

#define PROC_STAT_PATH "/proc/stat"
#define PROC_STAT_CAP_BYTES (256 * 1024)
#define SHOW_MAX 40 /* characters of a bad line or value quoted in errors */
#define CPU_TIME_COLS 8 /* user .. steal: the columns kept */
#define CPU_TIME_MIN_COLS 4 /* user nice system idle: every kernel has them */

enum {
	SEEN_TOTAL = 1 << 0,
	SEEN_CTXT = 1 << 1,
	SEEN_INTR = 1 << 2,
};

/* One line of the text, without its '\n'. */
struct stat_line {
	const char *p, *end;
	unsigned int no; /* 1-based */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || c == '_';
}

/* Copy s[0..n) into buf for an error message: printable ASCII only, cut to
 * SHOW_MAX characters with "..." appended. buf must hold SHOW_MAX + 4. */
static const char *show(const char *s, size_t n, char *buf)
{
	size_t i, m = n > SHOW_MAX ? SHOW_MAX : n;

	for (i = 0; i < m; i++)
		buf[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (m < n) {
		memcpy(buf + m, "...", 3);
		m += 3;
	}
	buf[m] = '\0';
	return buf;
}

/* Describe a bad line as "line N 'text': what" and return errnum. */
static int line_err(const struct stat_line *ln, struct base_err *err,
		    int errnum, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int line_err(const struct stat_line *ln, struct base_err *err,
		    int errnum, const char *fmt, ...)
{
	char what[256], text[SHOW_MAX + 4];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return base_err_set(err, errnum, "line %u '%s': %s", ln->no,
			    show(ln->p, (size_t)(ln->end - ln->p), text), what);
}

/* Next blank-separated field of [*pos, end); false when none is left. */
static bool next_field(const char **pos, const char *end, const char **f,
		       size_t *flen)
{
	const char *p = *pos;

	while (p < end && is_blank(*p))
		p++;
	if (p == end) {
		*pos = p;
		return false;
	}
	*f = p;
	while (p < end && !is_blank(*p))
		p++;
	*flen = (size_t)(p - *f);
	*pos = p;
	return true;
}

/* Unsigned decimal, digits only. -EINVAL if not a number, -ERANGE if it
 * does not fit 64 bits. */
static int parse_u64(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		unsigned int d;

		if (!is_digit(s[i]))
			return -EINVAL;
		d = (unsigned int)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Parse the remaining fields of ln from pos as numbers. The first `keep`
 * go to vals[], the others are checked and dropped. *count gets how many
 * there were. */
static int parse_numbers(const struct stat_line *ln, const char *pos,
			 uint64_t *vals, unsigned int keep,
			 unsigned int *count, struct base_err *err)
{
	char text[SHOW_MAX + 4];
	unsigned int n = 0;
	const char *f;
	size_t flen;

	while (next_field(&pos, ln->end, &f, &flen)) {
		uint64_t v;
		int ret = parse_u64(f, flen, &v);

		if (ret)
			return line_err(ln, err, ret, "value %u '%s' is not %s",
					n + 1, show(f, flen, text),
					ret == -ERANGE ? "a 64-bit number"
						       : "a decimal number");
		if (n < keep)
			vals[n] = v;
		n++;
	}
	*count = n;
	return 0;
}

static int parse_cpu_times(const struct stat_line *ln, const char *pos,
			   struct collect_cpu_times *t, struct base_err *err)
{
	uint64_t v[CPU_TIME_COLS] = { 0 };
	unsigned int n;
	int ret;

	ret = parse_numbers(ln, pos, v, CPU_TIME_COLS, &n, err);
	if (ret)
		return ret;
	if (n < CPU_TIME_MIN_COLS)
		return line_err(ln, err, -EINVAL,
				"expected at least %d time values, got %u",
				CPU_TIME_MIN_COLS, n);
	t->user = v[0];
	t->nice = v[1];
	t->system = v[2];
	t->idle = v[3];
	t->iowait = v[4];
	t->irq = v[5];
	t->softirq = v[6];
	t->steal = v[7];
	return 0;
}

/* "cpu" (idx -1) or "cpuN"; the key is known to start with "cpu". */
static int parse_cpu_key(const struct stat_line *ln, const char *key,
			 size_t klen, int *idx, struct base_err *err)
{
	uint64_t v = 0;
	int ret;

	if (klen == 3) {
		*idx = -1;
		return 0;
	}
	/* The kernel prints plain "%d": a sign or a leading zero is not it. */
	if (key[3] == '0' && klen > 4)
		return line_err(ln, err, -EINVAL, "bad cpu number");
	ret = parse_u64(key + 3, klen - 3, &v);
	if (ret == -EINVAL)
		return line_err(ln, err, -EINVAL, "bad cpu number");
	if (ret == -ERANGE || v >= COLLECT_CPU_MAX)
		return line_err(ln, err, -ERANGE,
				"cpu number is over the limit of %d",
				COLLECT_CPU_MAX - 1);
	*idx = (int)v;
	return 0;
}

static int parse_line(const struct stat_line *ln, struct collect_cpustat *out,
		      unsigned int *seen, struct base_err *err)
{
	const char *pos = ln->p, *key;
	uint64_t first = 0;
	unsigned int n;
	size_t klen, i;
	int ret, idx = 0;

	if (ln->p == ln->end)
		return line_err(ln, err, -EINVAL, "empty line");
	if (is_blank(*ln->p))
		return line_err(ln, err, -EINVAL, "starts with a blank");
	next_field(&pos, ln->end, &key, &klen);
	for (i = 0; i < klen; i++)
		if (!is_key_char(key[i]))
			return line_err(ln, err, -EINVAL,
					"unexpected character in the key");

	if (klen >= 3 && memcmp(key, "cpu", 3) == 0) {
		ret = parse_cpu_key(ln, key, klen, &idx, err);
		if (ret)
			return ret;
		if (idx < 0) {
			if (*seen & SEEN_TOTAL)
				return line_err(ln, err, -EINVAL,
						"second 'cpu' line");
			*seen |= SEEN_TOTAL;
			return parse_cpu_times(ln, pos, &out->total, err);
		}
		if (out->present[idx])
			return line_err(ln, err, -EINVAL, "second 'cpu%d' line",
					idx);
		ret = parse_cpu_times(ln, pos, &out->cpu[idx], err);
		if (ret)
			return ret;
		out->present[idx] = true;
		if (idx + 1 > out->ncpu)
			out->ncpu = idx + 1;
		return 0;
	}

	if (klen == 4 && memcmp(key, "ctxt", 4) == 0) {
		if (*seen & SEEN_CTXT)
			return line_err(ln, err, -EINVAL, "second 'ctxt' line");
		*seen |= SEEN_CTXT;
		ret = parse_numbers(ln, pos, &out->ctxt, 1, &n, err);
		if (ret)
			return ret;
		if (n != 1)
			return line_err(ln, err, -EINVAL,
					"expected one value, got %u", n);
		return 0;
	}

	if (klen == 4 && memcmp(key, "intr", 4) == 0) {
		if (*seen & SEEN_INTR)
			return line_err(ln, err, -EINVAL, "second 'intr' line");
		*seen |= SEEN_INTR;
		/* The total, then one count per IRQ number: all must parse. */
		ret = parse_numbers(ln, pos, &first, 1, &n, err);
		if (ret)
			return ret;
		if (n < 1)
			return line_err(ln, err, -EINVAL, "no total");
		out->intr = first;
		return 0;
	}

	/* btime, processes, procs_running, softirq, keys of future kernels. */
	return 0;
}

int collect_cpustat_parse(const char *text, size_t len,
			  struct collect_cpustat *out, struct base_err *err)
{
	const char *p = text, *end = text + len;
	struct stat_line ln = { 0 };
	unsigned int seen = 0;
	int ret;

	if (!out || (!text && len))
		return base_err_set(err, -EINVAL, "no text or no output");
	memset(out, 0, sizeof(*out));
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		ln.p = p;
		ln.end = eol ? eol : end;
		ln.no++;
		ret = parse_line(&ln, out, &seen, err);
		if (ret)
			return ret;
		if (!eol)
			break;
		p = eol + 1;
	}
	if (!(seen & SEEN_TOTAL))
		return base_err_set(err, -EINVAL, "no 'cpu' total line");
	return 0;
}

struct collect_cpustat *collect_cpustat_new(void)
{
	return calloc(1, sizeof(struct collect_cpustat));
}

void collect_cpustat_free(struct collect_cpustat *st)
{
	free(st);
}

int collect_cpustat_read(struct collect_cpustat *out, struct base_err *err)
{
	char *buf = NULL, ebuf[128];
	int64_t t0, t1;
	size_t len = 0;
	int fd = -1, ret;

	if (!out)
		return base_err_set(err, -EINVAL, "no output snapshot");
	/* One byte over the cap tells a full buffer from a too-large file. */
	buf = malloc(PROC_STAT_CAP_BYTES + 1);
	if (!buf) {
		ret = base_err_set(err, -ENOMEM,
				   "cannot allocate a buffer for %s",
				   PROC_STAT_PATH);
		goto out;
	}
	fd = open(PROC_STAT_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		base_err_set(err, ret, "cannot open %s: %s", PROC_STAT_PATH,
			     strerror_r(-ret, ebuf, sizeof(ebuf)));
		goto out;
	}
	t0 = base_now_ns();
	for (;;) {
		ssize_t n = read(fd, buf + len, PROC_STAT_CAP_BYTES + 1 - len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			base_err_set(err, ret, "cannot read %s: %s",
				     PROC_STAT_PATH,
				     strerror_r(-ret, ebuf, sizeof(ebuf)));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > PROC_STAT_CAP_BYTES) {
			ret = base_err_set(err, -EFBIG,
					   "%s is larger than %d bytes",
					   PROC_STAT_PATH, PROC_STAT_CAP_BYTES);
			goto out;
		}
	}
	t1 = base_now_ns();
	ret = collect_cpustat_parse(buf, len, out, err);
	if (ret) {
		base_err_prefix(err, "%s", PROC_STAT_PATH);
		goto out;
	}
	out->t_ns = t0 + (t1 - t0) / 2;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* acc += b - a per field; a counter that went backwards adds 0. */
static void add_delta(struct collect_cpu_times *acc,
		      const struct collect_cpu_times *a,
		      const struct collect_cpu_times *b)
{
#define ADD_DELTA(f) (acc->f += b->f > a->f ? b->f - a->f : 0)
	ADD_DELTA(user);
	ADD_DELTA(nice);
	ADD_DELTA(system);
	ADD_DELTA(idle);
	ADD_DELTA(iowait);
	ADD_DELTA(irq);
	ADD_DELTA(softirq);
	ADD_DELTA(steal);
#undef ADD_DELTA
}

int collect_cpu_pct(const struct collect_cpustat *a,
		    const struct collect_cpustat *b, const bool *cpus,
		    struct collect_cpu_pct *out)
{
	struct collect_cpu_times d = { 0 };
	uint64_t ticks;
	int i, used = 0;
	double k;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!a || !b)
		return -EINVAL;
	if (!cpus) {
		add_delta(&d, &a->total, &b->total);
	} else {
		for (i = 0; i < COLLECT_CPU_MAX; i++) {
			if (!cpus[i] || !a->present[i] || !b->present[i])
				continue;
			add_delta(&d, &a->cpu[i], &b->cpu[i]);
			used++;
		}
		if (!used)
			return -EINVAL;
	}
	ticks = d.user + d.nice + d.system + d.idle + d.iowait + d.irq +
		d.softirq + d.steal;
	if (!ticks)
		return -EINVAL;
	k = 100.0 / (double)ticks;
	out->user = (double)(d.user + d.nice) * k;
	out->sys = (double)d.system * k;
	out->softirq = (double)d.softirq * k;
	out->irq = (double)d.irq * k;
	out->idle = (double)d.idle * k;
	out->iowait = (double)d.iowait * k;
	out->steal = (double)d.steal * k;
	out->busy = 100.0 - out->idle - out->iowait;
	if (out->busy < 0.0) /* rounding when everything was idle */
		out->busy = 0.0;
	return 0;
}
