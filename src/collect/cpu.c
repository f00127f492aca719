// SPDX-License-Identifier: GPL-2.0-only
/* /proc/stat reader and CPU time split; see cpu.h. */
#include "collect/cpu.h"
#include "collect/text.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/time.h"

#define PROC_STAT_PATH "/proc/stat"
#define PROC_STAT_CAP_BYTES (256 * 1024)
#define CPU_TIME_COLS 8 /* user .. steal: the columns kept */
#define CPU_TIME_MIN_COLS 4 /* user nice system idle: every kernel has them */

enum {
	SEEN_TOTAL = 1 << 0,
	SEEN_CTXT = 1 << 1,
	SEEN_INTR = 1 << 2,
};




static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       collect_is_digit(c) || c == '_';
}





/* Parse the remaining fields of ln from pos as numbers. The first `keep`
 * go to vals[], the others are checked and dropped. *count gets how many
 * there were. */
static int parse_numbers(const struct collect_line *ln, const char *pos,
			 uint64_t *vals, unsigned int keep,
			 unsigned int *count, struct base_err *err)
{
	char text[COLLECT_SHOW_MAX + 4];
	unsigned int n = 0;
	const char *f;
	size_t flen;

	while (collect_next_field(&pos, ln->end, &f, &flen)) {
		uint64_t v;
		int ret = collect_parse_u64(f, flen, &v);

		if (ret)
			return collect_line_err(ln, err, ret, "value %u '%s' is not %s",
					n + 1, collect_show(f, flen, text),
					ret == -ERANGE ? "a 64-bit number"
						       : "a decimal number");
		if (n < keep)
			vals[n] = v;
		n++;
	}
	*count = n;
	return 0;
}

static int parse_cpu_times(const struct collect_line *ln, const char *pos,
			   struct collect_cpu_times *t, struct base_err *err)
{
	uint64_t v[CPU_TIME_COLS] = { 0 };
	unsigned int n;
	int ret;

	ret = parse_numbers(ln, pos, v, CPU_TIME_COLS, &n, err);
	if (ret)
		return ret;
	if (n < CPU_TIME_MIN_COLS)
		return collect_line_err(ln, err, -EINVAL,
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
static int parse_cpu_key(const struct collect_line *ln, const char *key,
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
		return collect_line_err(ln, err, -EINVAL, "bad cpu number");
	ret = collect_parse_u64(key + 3, klen - 3, &v);
	if (ret == -EINVAL)
		return collect_line_err(ln, err, -EINVAL, "bad cpu number");
	if (ret == -ERANGE || v >= COLLECT_CPU_MAX)
		return collect_line_err(ln, err, -ERANGE,
				"cpu number is over the limit of %d",
				COLLECT_CPU_MAX - 1);
	*idx = (int)v;
	return 0;
}

static int parse_line(const struct collect_line *ln, struct collect_cpustat *out,
		      unsigned int *seen, struct base_err *err)
{
	const char *pos = ln->p, *key;
	uint64_t first = 0;
	unsigned int n;
	size_t klen, i;
	int ret, idx = 0;

	if (ln->p == ln->end)
		return collect_line_err(ln, err, -EINVAL, "empty line");
	if (collect_is_blank(*ln->p))
		return collect_line_err(ln, err, -EINVAL, "starts with a blank");
	collect_next_field(&pos, ln->end, &key, &klen);
	for (i = 0; i < klen; i++)
		if (!is_key_char(key[i]))
			return collect_line_err(ln, err, -EINVAL,
					"unexpected character in the key");

	if (klen >= 3 && memcmp(key, "cpu", 3) == 0) {
		ret = parse_cpu_key(ln, key, klen, &idx, err);
		if (ret)
			return ret;
		if (idx < 0) {
			if (*seen & SEEN_TOTAL)
				return collect_line_err(ln, err, -EINVAL,
						"second 'cpu' line");
			*seen |= SEEN_TOTAL;
			return parse_cpu_times(ln, pos, &out->total, err);
		}
		if (out->present[idx])
			return collect_line_err(ln, err, -EINVAL, "second 'cpu%d' line",
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
			return collect_line_err(ln, err, -EINVAL, "second 'ctxt' line");
		*seen |= SEEN_CTXT;
		ret = parse_numbers(ln, pos, &out->ctxt, 1, &n, err);
		if (ret)
			return ret;
		if (n != 1)
			return collect_line_err(ln, err, -EINVAL,
					"expected one value, got %u", n);
		return 0;
	}

	if (klen == 4 && memcmp(key, "intr", 4) == 0) {
		if (*seen & SEEN_INTR)
			return collect_line_err(ln, err, -EINVAL, "second 'intr' line");
		*seen |= SEEN_INTR;
		/* The total, then one count per IRQ number: all must parse. */
		ret = parse_numbers(ln, pos, &first, 1, &n, err);
		if (ret)
			return ret;
		if (n < 1)
			return collect_line_err(ln, err, -EINVAL, "no total");
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
	struct collect_line ln = { 0 };
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

int collect_cpustat_ncpu(const struct collect_cpustat *st)
{
	int n = 0;

	for (int i = 0; i < st->ncpu; i++)
		n += st->present[i];
	return n;
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
	out->hz = sysconf(_SC_CLK_TCK);
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
	uint64_t ticks, rest;
	int i, used = 0, n = 0;
	double k, wall = 0, span, busy;

	if (!out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!a || !b)
		return -EINVAL;
	if (!cpus) {
		add_delta(&d, &a->total, &b->total);
		for (i = 0; i < COLLECT_CPU_MAX; i++)
			n += a->present[i] && b->present[i];
	} else {
		for (i = 0; i < COLLECT_CPU_MAX; i++) {
			if (!cpus[i] || !a->present[i] || !b->present[i])
				continue;
			add_delta(&d, &a->cpu[i], &b->cpu[i]);
			used++;
		}
		if (!used)
			return -EINVAL;
		n = used;
	}
	rest = d.user + d.nice + d.system + d.irq + d.softirq;
	ticks = rest + d.idle + d.iowait + d.steal;
	if (!ticks)
		return -EINVAL;
	if (a->t_ns > 0 && b->t_ns > a->t_ns && b->hz > 0)
		wall = (double)(b->t_ns - a->t_ns) * (double)b->hz / 1e9 * n;
	/*
	 * Only the clocks (idle, iowait, steal) may stretch the wall time: a
	 * read that lagged its stamp. The busy ticks are samples, and a load
	 * in step with the tick has every tick land in one of its bursts: an
	 * open-loop tcp_rr at 5000/s read 37% of the machine busy by its
	 * ticks against 12% from its sleeps, the ticks' sum 1.4 times the
	 * wall time.
	 */
	span = wall > 0 ? fmax(wall, (double)(d.idle + d.iowait + d.steal)) :
			  (double)ticks;
	k = 100.0 / span;
	out->idle = (double)d.idle * k;
	out->iowait = (double)d.iowait * k;
	out->steal = fmin((double)d.steal * k, 100.0 - out->idle - out->iowait);
	busy = 100.0 - out->idle - out->iowait;
	out->busy = busy > 0.0 ? busy : 0.0; /* rounding when all was idle */
	/* the ticks' own busy share, at most what the sleeps left */
	busy = 100.0 - (double)(d.idle + d.iowait) * 100.0 / (double)ticks;
	out->busy_ticks = busy > 0.0 ? fmin(busy, out->busy) : 0.0;
	if (rest) {
		/* what the ticks say of the busy time that was not stolen */
		k = fmax(out->busy - out->steal, 0.0) / (double)rest;
		out->user = (double)(d.user + d.nice) * k;
		out->sys = (double)d.system * k;
		out->softirq = (double)d.softirq * k;
		out->irq = (double)d.irq * k;
	}
	return 0;
}
