// SPDX-License-Identifier: GPL-2.0-only
/* Network counter snapshots from /proc and their deltas; see counters.h. */
#include "collect/counters.h"
#include "collect/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/file.h"
#include "base/time.h"

/* Open addressing over twice the entries keeps probe chains short. */
#define HASH_SLOTS (2 * COLLECT_COUNTERS_MAX)
#define NO_LINE_CAP ((size_t)-1)

struct collect_counters {
	size_t n;
	int64_t t_ns;
	char *buf; /* COLLECT_COUNTERS_FILE_MAX bytes, for the read */
	uint16_t slot[HASH_SLOTS]; /* entry index + 1; 0 is empty */
	struct collect_counter e[COLLECT_COUNTERS_MAX];
};


/* Walks the lines of a text. */
struct line_iter {
	const char *pos, *end;
	unsigned int no;
	size_t cap; /* longest line allowed, NO_LINE_CAP for none */
};

/* Levels printed among the counters of /proc/net/snmp. */
static const char *const gauges[] = {
	"snmp.Ip.Forwarding", "snmp.Ip.DefaultTTL", "snmp.Tcp.RtoAlgorithm",
	"snmp.Tcp.RtoMin",    "snmp.Tcp.RtoMax",    "snmp.Tcp.MaxConn",
	"snmp.Tcp.CurrEstab", "cpuidle.cpus",
};

/* Softirq rows that get one counter per CPU besides their total. */
static const char *const percpu_rows[] = { "NET_RX", "NET_TX" };



static bool is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       collect_is_digit(c) || c == '_';
}

static bool is_name(const char *s, size_t n)
{
	size_t i;

	/* a letter first, so that a value line is never taken for names */
	if (n == 0 || collect_is_digit(s[0]))
		return false;
	for (i = 0; i < n; i++)
		if (!is_name_char(s[i]))
			return false;
	return true;
}



static void iter_init(struct line_iter *it, const char *text, size_t len,
		      size_t cap)
{
	it->pos = text;
	it->end = text + len;
	it->no = 0;
	it->cap = cap;
}

/* The next line, trailing blanks dropped. Returns 1 with *ln set, 0 at the
 * end of the text, or -E2BIG for a line over the cap. */
static int next_line(struct line_iter *it, struct collect_line *ln,
		     struct base_err *err)
{
	const char *eol;

	if (it->pos >= it->end)
		return 0;
	eol = memchr(it->pos, '\n', (size_t)(it->end - it->pos));
	ln->p = it->pos;
	ln->end = eol ? eol : it->end;
	ln->no = ++it->no;
	it->pos = eol ? eol + 1 : it->end;
	if (it->cap != NO_LINE_CAP && (size_t)(ln->end - ln->p) > it->cap)
		return collect_line_err(ln, err, -E2BIG, "longer than %zu bytes",
				it->cap);
	while (ln->end > ln->p && collect_is_blank(ln->end[-1]))
		ln->end--;
	return 1;
}


static size_t count_fields(const char *pos, const char *end)
{
	const char *f;
	size_t flen, n = 0;

	while (collect_next_field(&pos, end, &f, &flen))
		n++;
	return n;
}


/* A field that must be a number: the line's error if it is not. */
static int field_u64(const struct collect_line *ln, const char *f, size_t flen,
		     bool allow_sign, uint64_t *v, bool *neg,
		     struct base_err *err)
{
	char text[COLLECT_SHOW_MAX + 4];
	int ret;

	*neg = false;
	if (allow_sign && flen > 1 && f[0] == '-') {
		*neg = true;
		ret = collect_parse_u64(f + 1, flen - 1, v);
	} else {
		ret = collect_parse_u64(f, flen, v);
	}
	if (ret)
		return collect_line_err(ln, err, ret, "value '%s' is not %s",
				collect_show(f, flen, text),
				ret == -ERANGE ? "a 64-bit number"
					       : "a decimal number");
	return 0;
}

static uint32_t hash_name(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

/* The slot holding name, or the empty slot where it would go. */
static uint16_t *find_slot(const struct collect_counters *c, const char *name)
{
	uint32_t i = hash_name(name) & (HASH_SLOTS - 1);

	for (;;) {
		uint16_t s = c->slot[i];

		if (!s || !strcmp(c->e[s - 1].name, name))
			return (uint16_t *)&c->slot[i];
		i = (i + 1) & (HASH_SLOTS - 1);
	}
}

/*
 * Append the counter "<a>.<b>.<c>" (c may be NULL, b may be NULL too) to
 * out. Returns its entry, or NULL with the line's error in err and *ret.
 */
static struct collect_counter *add(struct collect_counters *out,
				   const struct collect_line *ln, const char *a,
				   size_t alen, const char *b, size_t blen,
				   const char *c, size_t clen, uint64_t value,
				   unsigned int flags, struct base_err *err,
				   int *ret)
{
	const char *last = c ? c : b ? b : a;
	size_t last_len = c ? clen : b ? blen : alen;
	size_t need = alen + (b ? 1 + blen : 0) + (c ? 1 + clen : 0);
	struct collect_counter *e;
	char text[COLLECT_SHOW_MAX + 4];
	uint16_t *slot;
	char *p;

	if (out->n >= COLLECT_COUNTERS_MAX) {
		*ret = collect_line_err(ln, err, -ENOSPC, "more than %d counters",
				COLLECT_COUNTERS_MAX);
		return NULL;
	}
	e = &out->e[out->n];
	if (need >= sizeof(e->name)) {
		*ret = collect_line_err(ln, err, -ENAMETOOLONG,
				"counter name '%s' is longer than %zu bytes",
				collect_show(last, last_len, text),
				sizeof(e->name) - 1);
		return NULL;
	}
	p = e->name;
	memcpy(p, a, alen);
	p += alen;
	if (b) {
		*p++ = '.';
		memcpy(p, b, blen);
		p += blen;
	}
	if (c) {
		*p++ = '.';
		memcpy(p, c, clen);
		p += clen;
	}
	*p = '\0';
	slot = find_slot(out, e->name);
	if (*slot) {
		*ret = collect_line_err(ln, err, -EEXIST, "second counter '%s'",
				e->name);
		return NULL;
	}
	e->value = value;
	e->flags = flags;
	e->nparts = 0;
	if (collect_counter_is_gauge(e->name))
		e->flags |= COLLECT_COUNTER_GAUGE;
	*slot = (uint16_t)(out->n + 1);
	out->n++;
	return e;
}

struct collect_counters *collect_counters_new(void)
{
	return calloc(1, sizeof(struct collect_counters));
}

void collect_counters_free(struct collect_counters *c)
{
	if (!c)
		return;
	free(c->buf);
	free(c);
}

void collect_counters_clear(struct collect_counters *c)
{
	if (!c)
		return;
	c->n = 0;
	c->t_ns = 0;
	memset(c->slot, 0, sizeof(c->slot));
}

size_t collect_counters_count(const struct collect_counters *c)
{
	return c ? c->n : 0;
}

const struct collect_counter *
collect_counters_at(const struct collect_counters *c, size_t i)
{
	if (!c || i >= c->n)
		return NULL;
	return &c->e[i];
}

const struct collect_counter *
collect_counters_find(const struct collect_counters *c, const char *name)
{
	uint16_t s;

	if (!c || !name)
		return NULL;
	s = *find_slot(c, name);
	return s ? &c->e[s - 1] : NULL;
}

double collect_counter_value(const struct collect_counter *e)
{
	if (!e)
		return 0.0;
	if (e->flags & COLLECT_COUNTER_NEGATIVE)
		return -(double)e->value;
	return (double)e->value;
}

bool collect_counter_is_gauge(const char *name)
{
	size_t i;

	if (!name)
		return false;
	for (i = 0; i < ARRAY_SIZE(gauges); i++)
		if (!strcmp(name, gauges[i]))
			return true;
	return false;
}

int64_t collect_counters_time_ns(const struct collect_counters *c)
{
	return c ? c->t_ns : 0;
}

/* "Sect:" as the first field of ln: sets the section and the rest. */
static int section_of(const struct collect_line *ln, const char **sect,
		      size_t *slen, const char **rest, struct base_err *err)
{
	const char *pos = ln->p, *f;
	size_t flen;

	if (ln->p == ln->end)
		return collect_line_err(ln, err, -EINVAL, "empty line");
	if (collect_is_blank(*ln->p))
		return collect_line_err(ln, err, -EINVAL, "starts with a blank");
	collect_next_field(&pos, ln->end, &f, &flen);
	if (flen < 2 || f[flen - 1] != ':' || !is_name(f, flen - 1))
		return collect_line_err(ln, err, -EINVAL,
				"expected a section name and ':'");
	*sect = f;
	*slen = flen - 1;
	*rest = pos;
	return 0;
}

/* One header line and its value line. */
static int parse_snmp_pair(const struct collect_line *hl,
			   const struct collect_line *vl, const char *prefix,
			   struct collect_counters *out, struct base_err *err)
{
	const char *hsect, *vsect, *hpos, *vpos, *name, *val;
	size_t hslen, vslen, nlen, vlen, nh, nv;
	char text[COLLECT_SHOW_MAX + 4];
	int ret = 0;

	ret = section_of(hl, &hsect, &hslen, &hpos, err);
	if (ret)
		return ret;
	ret = section_of(vl, &vsect, &vslen, &vpos, err);
	if (ret)
		return ret;
	if (vslen != hslen || memcmp(vsect, hsect, hslen))
		return collect_line_err(vl, err, -EINVAL,
				"expected the values of section '%s'",
				collect_show(hsect, hslen, text));
	nh = count_fields(hpos, hl->end);
	nv = count_fields(vpos, vl->end);
	if (nh != nv)
		return collect_line_err(vl, err, -EINVAL,
				"section '%s' has %zu names but %zu values",
				collect_show(hsect, hslen, text), nh, nv);
	while (collect_next_field(&hpos, hl->end, &name, &nlen)) {
		uint64_t v;
		bool neg;

		collect_next_field(&vpos, vl->end, &val, &vlen);
		if (!is_name(name, nlen))
			return collect_line_err(hl, err, -EINVAL,
					"'%s' is not a counter name",
					collect_show(name, nlen, text));
		ret = field_u64(vl, val, vlen, true, &v, &neg, err);
		if (ret)
			return ret;
		if (!add(out, hl, prefix, strlen(prefix), hsect, hslen, name,
			 nlen, v, neg ? COLLECT_COUNTER_NEGATIVE : 0, err,
			 &ret))
			return ret;
	}
	return 0;
}

int collect_parse_snmp(const char *text, size_t len, const char *prefix,
		       struct collect_counters *out, struct base_err *err)
{
	struct collect_line hl, vl;
	struct line_iter it;
	int ret;

	if (!out || !prefix || !*prefix || (!text && len))
		return base_err_set(err, -EINVAL, "no text, prefix or output");
	iter_init(&it, text, len, COLLECT_COUNTERS_LINE_MAX);
	for (;;) {
		ret = next_line(&it, &hl, err);
		if (ret <= 0)
			return ret;
		ret = next_line(&it, &vl, err);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return collect_line_err(&hl, err, -EINVAL,
					"header without a value line");
		ret = parse_snmp_pair(&hl, &vl, prefix, out, err);
		if (ret)
			return ret;
	}
}

int collect_parse_snmp6(const char *text, size_t len,
			struct collect_counters *out, struct base_err *err)
{
	char show_buf[COLLECT_SHOW_MAX + 4];
	struct collect_line ln;
	struct line_iter it;
	int ret;

	if (!out || (!text && len))
		return base_err_set(err, -EINVAL, "no text or no output");
	iter_init(&it, text, len, COLLECT_COUNTERS_LINE_MAX);
	while ((ret = next_line(&it, &ln, err)) > 0) {
		const char *pos = ln.p, *name, *val, *extra;
		size_t nlen, vlen, xlen;
		uint64_t v;
		bool neg;

		if (ln.p == ln.end)
			return collect_line_err(&ln, err, -EINVAL, "empty line");
		if (collect_is_blank(*ln.p))
			return collect_line_err(&ln, err, -EINVAL,
					"starts with a blank");
		collect_next_field(&pos, ln.end, &name, &nlen);
		if (!is_name(name, nlen))
			return collect_line_err(&ln, err, -EINVAL,
					"'%s' is not a counter name",
					collect_show(name, nlen, show_buf));
		if (!collect_next_field(&pos, ln.end, &val, &vlen))
			return collect_line_err(&ln, err, -EINVAL, "no value");
		if (collect_next_field(&pos, ln.end, &extra, &xlen))
			return collect_line_err(&ln, err, -EINVAL,
					"more than one value");
		ret = field_u64(&ln, val, vlen, false, &v, &neg, err);
		if (ret)
			return ret;
		if (!add(out, &ln, "snmp6", 5, name, nlen, NULL, 0, v, 0, err,
			 &ret))
			return ret;
	}
	return ret;
}

/* The header of /proc/softirqs and /proc/interrupts: "CPU<n>" fields, n
 * ascending. */
static int check_cpu_header(const struct collect_line *ln, size_t *ncpu,
				struct base_err *err)
{
	const char *pos = ln->p, *f;
	char text[COLLECT_SHOW_MAX + 4];
	uint64_t cpu, prev = 0;
	size_t flen, n = 0;

	while (collect_next_field(&pos, ln->end, &f, &flen)) {
		if (flen < 4 || memcmp(f, "CPU", 3) ||
		    collect_parse_u64(f + 3, flen - 3, &cpu) || cpu > 9999999 ||
		    (f[3] == '0' && flen > 4))
			return collect_line_err(ln, err, -EINVAL,
					"'%s' is not a CPU column",
					collect_show(f, flen, text));
		if (n > 0 && cpu <= prev)
			return collect_line_err(ln, err, -EINVAL,
					"CPU%llu does not follow CPU%llu",
					(unsigned long long)cpu,
					(unsigned long long)prev);
		prev = cpu;
		n++;
	}
	if (!n)
		return collect_line_err(ln, err, -EINVAL, "no CPU columns");
	*ncpu = n;
	return 0;
}

static bool is_percpu_row(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(percpu_rows); i++)
		if (strlen(percpu_rows[i]) == len &&
		    !memcmp(percpu_rows[i], name, len))
			return true;
	return false;
}

/*
 * Add the row's total "<prefix>.<row>" of the nv values from pos on, each
 * 32 bits (the kernel's per-CPU unsigned int), and with percpu one entry
 * "<prefix>.<row>.cpu<N>" per value, named by the header hl's columns.
 */
static int add_cpu_row(struct collect_counters *out, const struct collect_line *hl,
		       const struct collect_line *ln, const char *prefix,
		       const char *row, size_t rlen, const char *pos, size_t nv,
		       bool percpu, struct base_err *err)
{
	const char *hpos = hl->p, *f, *cpu;
	size_t flen, clen, total_idx = out->n;
	char cname[16]; /* "cpu" and at most 7 digits */
	uint64_t sum = 0;
	int ret = 0;

	if (!add(out, ln, prefix, strlen(prefix), row, rlen, NULL, 0, 0,
		 percpu ? COLLECT_COUNTER_SUM : 0, err, &ret))
		return ret;
	for (size_t i = 0; i < nv && collect_next_field(&pos, ln->end, &f, &flen); i++) {
		uint64_t v;
		bool neg;

		collect_next_field(&hpos, hl->end, &cpu, &clen);
		ret = field_u64(ln, f, flen, false, &v, &neg, err);
		if (ret)
			return ret;
		if (v > UINT32_MAX)
			return collect_line_err(ln, err, -ERANGE,
					"per-CPU value %llu is over 32 bits",
					(unsigned long long)v);
		sum += v;
		if (!percpu)
			continue;
		/* "CPU12" -> "cpu12"; the header check bounds the digits */
		memcpy(cname, "cpu", 3);
		memcpy(cname + 3, cpu + 3, clen - 3);
		if (!add(out, ln, prefix, strlen(prefix), row, rlen, cname, clen, v,
			 COLLECT_COUNTER_WRAP32, err, &ret))
			return ret;
	}
	out->e[total_idx].value = sum;
	if (percpu)
		out->e[total_idx].nparts = (unsigned int)nv;
	return 0;
}

static int parse_softirq_row(const struct collect_line *hl,
			     const struct collect_line *ln, size_t ncpu,
			     struct collect_counters *out, struct base_err *err)
{
	const char *pos = ln->p, *row;
	size_t rlen, nv;

	if (ln->p == ln->end)
		return collect_line_err(ln, err, -EINVAL, "empty line");
	collect_next_field(&pos, ln->end, &row, &rlen);
	if (rlen < 2 || row[rlen - 1] != ':' || !is_name(row, rlen - 1))
		return collect_line_err(ln, err, -EINVAL,
				"expected a softirq name and ':'");
	rlen--;
	nv = count_fields(pos, ln->end);
	if (nv != ncpu)
		return collect_line_err(ln, err, -EINVAL,
				"%zu values for %zu CPU columns", nv, ncpu);
	return add_cpu_row(out, hl, ln, "softirq", row, rlen, pos, nv,
			   is_percpu_row(row, rlen), err);
}

typedef int (*cpu_row_fn)(const struct collect_line *hl, const struct collect_line *ln,
			  size_t ncpu, struct collect_counters *out, struct base_err *err);

/* A table of /proc/softirqs' or /proc/interrupts' shape: the CPU header,
 * then rows, each given to row(). */
static int parse_cpu_table(const char *text, size_t len, cpu_row_fn row,
			   struct collect_counters *out, struct base_err *err)
{
	struct collect_line hl, ln;
	struct line_iter it;
	size_t ncpu = 0;
	int ret;

	if (!out || (!text && len))
		return base_err_set(err, -EINVAL, "no text or no output");
	iter_init(&it, text, len, COLLECT_COUNTERS_LINE_MAX);
	ret = next_line(&it, &hl, err);
	if (ret < 0)
		return ret;
	if (ret == 0)
		return base_err_set(err, -EINVAL, "no CPU header line");
	ret = check_cpu_header(&hl, &ncpu, err);
	if (ret)
		return ret;
	while ((ret = next_line(&it, &ln, err)) > 0) {
		ret = row(&hl, &ln, ncpu, out, err);
		if (ret)
			return ret;
	}
	return ret;
}

int collect_parse_softirqs(const char *text, size_t len,
			   struct collect_counters *out, struct base_err *err)
{
	return parse_cpu_table(text, len, parse_softirq_row, out, err);
}

/* An interrupt row's description names an IPI that wakes or calls another
 * CPU (x86's RES and CAL, arm64's IPI0 and IPI1): those rows also get one
 * counter per CPU. */
static bool is_ipi_row(const char *desc, size_t len)
{
	static const char *const ipis[] = { "Rescheduling interrupts",
					    "Function call interrupts" };

	for (size_t i = 0; i < ARRAY_SIZE(ipis); i++)
		if (len == strlen(ipis[i]) && !memcmp(desc, ipis[i], len))
			return true;
	return false;
}

static bool all_digits(const char *f, size_t flen)
{
	for (size_t i = 0; i < flen; i++)
		if (!collect_is_digit(f[i]))
			return false;
	return flen > 0;
}

static int parse_irq_row(const struct collect_line *hl,
			 const struct collect_line *ln, size_t ncpu,
			 struct collect_counters *out, struct base_err *err)
{
	const char *pos = ln->p, *vals, *row, *f = NULL;
	size_t rlen, flen, nv = 0;

	if (!collect_next_field(&pos, ln->end, &row, &rlen))
		return collect_line_err(ln, err, -EINVAL, "empty line");
	if (rlen < 2 || row[rlen - 1] != ':')
		return collect_line_err(ln, err, -EINVAL,
				"expected an interrupt number or name and ':'");
	rlen--;
	if (all_digits(row, rlen))
		return 0; /* a device's line: stat.intr counts those */
	if (!is_name(row, rlen))
		return collect_line_err(ln, err, -EINVAL,
				"expected an interrupt number or name and ':'");
	vals = pos;
	while (nv < ncpu && collect_next_field(&pos, ln->end, &f, &flen) &&
	       all_digits(f, flen))
		nv++;
	/* ERR and MIS print one machine-wide count, and nothing after it */
	if (nv != ncpu && (nv != 1 || count_fields(vals, ln->end) != 1))
		return collect_line_err(ln, err, -EINVAL,
				"%zu values for %zu CPU columns", nv, ncpu);
	/* the description after the values */
	if (nv == ncpu && collect_next_field(&pos, ln->end, &f, &flen))
		flen = (size_t)(ln->end - f);
	else
		flen = 0;
	return add_cpu_row(out, hl, ln, "irq", row, rlen, vals, nv,
			   nv == ncpu && is_ipi_row(f, flen), err);
}

int collect_parse_interrupts(const char *text, size_t len,
			     struct collect_counters *out, struct base_err *err)
{
	return parse_cpu_table(text, len, parse_irq_row, out, err);
}

int collect_parse_stat(const char *text, size_t len,
		       struct collect_counters *out, struct base_err *err)
{
	struct collect_line ln;
	struct line_iter it;
	int ret;

	if (!out || (!text && len))
		return base_err_set(err, -EINVAL, "no text or no output");
	/* The intr line has a count per IRQ and may be long: no line cap. */
	iter_init(&it, text, len, NO_LINE_CAP);
	while ((ret = next_line(&it, &ln, err)) > 0) {
		const char *pos = ln.p, *key, *val;
		size_t klen, vlen;
		uint64_t v;
		bool neg;

		if (!collect_next_field(&pos, ln.end, &key, &klen))
			continue;
		/* processes: forks since boot, the processes started in the
		 * window (one that also ended in it is not among the other
		 * processes counted at the marks) */
		if (!((klen == 4 && !memcmp(key, "ctxt", 4)) ||
		      (klen == 4 && !memcmp(key, "intr", 4)) ||
		      (klen == 9 && !memcmp(key, "processes", 9))))
			continue;
		if (!collect_next_field(&pos, ln.end, &val, &vlen))
			return collect_line_err(&ln, err, -EINVAL, "no value");
		ret = field_u64(&ln, val, vlen, false, &v, &neg, err);
		if (ret)
			return ret;
		if (!add(out, &ln, "stat", 4, key, klen, NULL, 0, v, 0, err,
			 &ret))
			return ret;
	}
	return ret;
}

/* Read path whole into buf (cap bytes). -EFBIG if it holds more. */
static int read_file(const char *path, char *buf, size_t cap, size_t *len)
{
	bool more;
	int ret = base_read_path(path, buf, cap, len, &more);

	if (!ret && more) {
		*len = 0;
		ret = -EFBIG;
	}
	return ret;
}

enum source_fmt { SRC_SNMP, SRC_SNMP6, SRC_SOFTIRQS, SRC_STAT };

static const struct source {
	const char *path;
	enum source_fmt fmt;
	const char *prefix; /* SRC_SNMP */
	bool optional; /* a missing file is skipped */
} sources[] = {
	{ "/proc/net/snmp", SRC_SNMP, "snmp", false },
	{ "/proc/net/netstat", SRC_SNMP, "netstat", false },
	{ "/proc/net/snmp6", SRC_SNMP6, NULL, true },
	{ "/proc/softirqs", SRC_SOFTIRQS, NULL, false },
	{ "/proc/stat", SRC_STAT, NULL, false },
};

static int parse_source(const struct source *src, const char *text,
			size_t len, struct collect_counters *out,
			struct base_err *err)
{
	switch (src->fmt) {
	case SRC_SNMP:
		return collect_parse_snmp(text, len, src->prefix, out, err);
	case SRC_SNMP6:
		return collect_parse_snmp6(text, len, out, err);
	case SRC_SOFTIRQS:
		return collect_parse_softirqs(text, len, out, err);
	case SRC_STAT:
		return collect_parse_stat(text, len, out, err);
	}
	BUG("unknown source format %d", (int)src->fmt);
}

#define IDLE_NAME_MAX 24 /* of a state's name in a counter name */

/* A small sysfs file as a number (usage, time) or as text (name, with
 * its trailing blanks cut): 0, or a negative errno. */
static int read_small(const char *path, char *buf, size_t cap, size_t *len)
{
	int ret = read_file(path, buf, cap - 1, len);

	if (ret)
		return ret == -EFBIG ? -EINVAL : ret;
	while (*len && (collect_is_blank(buf[*len - 1]) || buf[*len - 1] == '\n'))
		(*len)--;
	buf[*len] = '\0';
	return 0;
}

/* cpu<N> (N decimal): N, else -1. */
static int cpu_dir(const char *name)
{
	char *end;
	long n;

	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9')
		return -1;
	n = strtol(name + 3, &end, 10);
	return *end || n > INT_MAX ? -1 : (int)n;
}

/* A state's name as a counter name part: its name characters kept, the
 * others '_', at most IDLE_NAME_MAX; "state<i>" when nothing is left or
 * an earlier state took the same. */
static void idle_name(const char *raw, size_t i, char (*names)[IDLE_NAME_MAX + 1])
{
	char *o = names[i];
	size_t n = 0;

	for (const char *p = raw; *p && n < IDLE_NAME_MAX; p++)
		o[n++] = is_name_char(*p) ? *p : '_';
	o[n] = '\0';
	for (size_t k = 0; n && k < i; k++)
		if (!strcmp(names[k], o))
			n = 0;
	if (!n)
		snprintf(o, IDLE_NAME_MAX + 1, "state%zu", i);
}

/* Idle states summed over CPUs, named after the first CPU's. */
struct idle_sum {
	const char *dir; /* <sys>/devices/system/cpu */
	char names[COLLECT_IDLE_STATES_MAX][IDLE_NAME_MAX + 1];
	uint64_t usage[COLLECT_IDLE_STATES_MAX], time_us[COLLECT_IDLE_STATES_MAX];
	size_t nstates;
	uint64_t ncpus;
};

/* Add one CPU's states to the sums: 0, or -EINVAL naming the file. */
static int idle_add_cpu(struct idle_sum *is, int cpu, struct base_err *err)
{
	char path[PATH_MAX + 64], buf[64];
	const char *dir = is->dir;
	size_t k, len;
	int ret = 0;

	for (k = 0; k < COLLECT_IDLE_STATES_MAX; k++) {
		uint64_t u, t;

		snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%zu/usage", dir, cpu, k);
		if (read_small(path, buf, sizeof(buf), &len))
			break;
		if (collect_parse_u64(buf, len, &u)) {
			ret = base_err_set(err, -EINVAL, "%s: '%s' is not a count", path, buf);
			break;
		}
		snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%zu/time", dir, cpu, k);
		if (read_small(path, buf, sizeof(buf), &len)) {
			ret = base_err_set(err, -EINVAL, "%s: cannot be read beside its usage", path);
			break;
		}
		if (collect_parse_u64(buf, len, &t)) {
			ret = base_err_set(err, -EINVAL, "%s: '%s' is not a count of microseconds",
					   path, buf);
			break;
		}
		if (k == is->nstates) {
			/* the first CPU with this state names it */
			snprintf(path, sizeof(path), "%s/cpu%d/cpuidle/state%zu/name", dir, cpu, k);
			if (read_small(path, buf, sizeof(buf), &len))
				buf[0] = '\0';
			idle_name(buf, k, is->names);
			is->nstates++;
		}
		is->usage[k] += u;
		is->time_us[k] += t;
	}
	is->ncpus += k > 0;
	return ret;
}

int collect_counters_add_cpuidle(struct collect_counters *out, const char *sys,
				 const struct base_cpulist *cpus, struct base_err *err)
{
	char dir[PATH_MAX];
	struct idle_sum *is;
	int ret = 0;

	if (!out || !sys)
		return base_err_set(err, -EINVAL, "no snapshot or /sys root");
	is = calloc(1, sizeof(*is));
	if (!is)
		return base_err_set(err, -ENOMEM, "out of memory");
	snprintf(dir, sizeof(dir), "%s/devices/system/cpu", sys);
	is->dir = dir;
	if (cpus && cpus->n) {
		for (int i = 0; !ret && i < cpus->n; i++)
			ret = idle_add_cpu(is, cpus->cpu[i], err);
	} else {
		DIR *d = opendir(dir);
		struct dirent *de;
		int cpu;

		while (d && !ret && (de = readdir(d)))
			if ((cpu = cpu_dir(de->d_name)) >= 0)
				ret = idle_add_cpu(is, cpu, err);
		if (d)
			closedir(d);
	}
	for (size_t k = 0; !ret && k < is->nstates; k++) {
		const char *nm = is->names[k];
		struct collect_line ln = { .p = nm, .end = nm + strlen(nm), .no = 1 };

		if (add(out, &ln, "cpuidle", 7, nm, strlen(nm), "usage", 5, is->usage[k], 0,
			err, &ret) &&
		    add(out, &ln, "cpuidle", 7, nm, strlen(nm), "time_us", 7, is->time_us[k], 0,
			err, &ret) && k + 1 == is->nstates)
			add(out, &ln, "cpuidle", 7, "cpus", 4, NULL, 0, is->ncpus, 0, err, &ret);
	}
	free(is);
	return ret;
}

/* Drop the entries from index n on (their slots too: a later entry is on
 * no earlier entry's probe chain). */
static void truncate_to(struct collect_counters *out, size_t n)
{
	while (out->n > n) {
		out->n--;
		*find_slot(out, out->e[out->n].name) = 0;
	}
}

int collect_counters_add_interrupts(struct collect_counters *out, const char *path,
				    struct base_err *err)
{
	size_t n0, len = 0, cap = 0, llen = 0;
	char *text = NULL, *line = NULL, ebuf[128];
	ssize_t got;
	FILE *f;
	int ret = 0;

	if (!out || !path)
		return base_err_set(err, -EINVAL, "no snapshot or path");
	f = fopen(path, "re");
	if (!f) {
		ret = -errno;
		return ret == -ENOENT ? 0 : base_err_set(err, ret, "cannot open %s: %s", path,
							 strerror_r(-ret, ebuf, sizeof(ebuf)));
	}
	/* the header and the named rows only: a large machine's device
	 * lines run to megabytes */
	while ((got = getline(&line, &llen, f)) > 0) {
		const char *p = line;

		while (collect_is_blank(*p))
			p++;
		if (len && collect_is_digit(*p))
			continue;
		if (len + (size_t)got > cap) {
			size_t ncap = 2 * (len + (size_t)got);
			char *t = realloc(text, ncap);

			if (!t) {
				ret = base_err_set(err, -ENOMEM, "out of memory");
				break;
			}
			text = t;
			cap = ncap;
		}
		memcpy(text + len, line, (size_t)got);
		len += (size_t)got;
	}
	if (!ret && ferror(f))
		ret = base_err_set(err, -EIO, "cannot read %s", path);
	fclose(f);
	free(line);
	n0 = out->n;
	if (!ret) {
		ret = collect_parse_interrupts(text, len, out, err);
		if (ret) {
			base_err_prefix(err, "%s", path);
			truncate_to(out, n0);
		}
	}
	free(text);
	return ret;
}

int collect_counters_read(struct collect_counters *out, struct base_err *err)
{
	char ebuf[128];
	int64_t t0, t1;
	size_t i, len;
	int ret = 0;

	if (!out)
		return base_err_set(err, -EINVAL, "no output snapshot");
	collect_counters_clear(out);
	if (!out->buf) {
		out->buf = malloc(COLLECT_COUNTERS_FILE_MAX);
		if (!out->buf)
			return base_err_set(err, -ENOMEM,
					    "cannot allocate the read buffer");
	}
	t0 = base_now_ns();
	for (i = 0; i < ARRAY_SIZE(sources); i++) {
		ret = read_file(sources[i].path, out->buf,
				COLLECT_COUNTERS_FILE_MAX, &len);
		if (ret == -ENOENT && sources[i].optional) {
			ret = 0;
			continue;
		}
		if (ret == -EFBIG) {
			base_err_set(err, ret, "%s: larger than %d bytes",
				     sources[i].path,
				     COLLECT_COUNTERS_FILE_MAX);
			break;
		}
		if (ret) {
			base_err_set(err, ret, "cannot read %s: %s",
				     sources[i].path,
				     strerror_r(-ret, ebuf, sizeof(ebuf)));
			break;
		}
		ret = parse_source(&sources[i], out->buf, len, out, err);
		if (ret) {
			base_err_prefix(err, "%s", sources[i].path);
			break;
		}
	}
	t1 = base_now_ns();
	out->t_ns = t0 + (t1 - t0) / 2;
	return ret;
}

/* b - a of a per-CPU softirq value, taking a decrease as one 32-bit wrap.
 * false if it went backwards from or to a value over 32 bits. */
static bool wrap32_delta(uint64_t a, uint64_t b, uint64_t *d)
{
	if (b >= a) {
		*d = b - a;
		return true;
	}
	if (a > UINT32_MAX || b > UINT32_MAX)
		return false;
	*d = b + ((uint64_t)UINT32_MAX + 1) - a;
	return true;
}

/* Sum of the per-CPU increases of the SUM entry at index i of b. */
static bool sum_delta(const struct collect_counters *a,
		      const struct collect_counters *b, size_t i, uint64_t *d)
{
	size_t j, end = i + 1 + b->e[i].nparts;
	bool any = false;

	*d = 0;
	for (j = i + 1; j < end && j < b->n; j++) {
		const struct collect_counter *pa;
		uint64_t pd;

		pa = collect_counters_find(a, b->e[j].name);
		if (!pa || !wrap32_delta(pa->value, b->e[j].value, &pd))
			continue;
		*d += pd;
		any = true;
	}
	return any;
}

int collect_counters_snapshot(struct collect_counters *out, const char *sys,
			      const struct base_cpulist *cpus, struct base_err *err,
			      struct base_err *idle_err, struct base_err *irq_err)
{
	int ret = collect_counters_read(out, err);

	/* a bad file fails the add before it adds anything */
	if (!ret)
		collect_counters_add_cpuidle(out, sys, cpus, idle_err);
	if (!ret)
		collect_counters_add_interrupts(out, "/proc/interrupts", irq_err);
	return ret;
}

int collect_counters_delta(const struct collect_counters *a,
			   const struct collect_counters *b,
			   void (*fn)(void *ctx, const char *name,
				      enum collect_delta_kind kind,
				      double value),
			   void *ctx)
{
	const unsigned int level = COLLECT_COUNTER_GAUGE |
				   COLLECT_COUNTER_NEGATIVE;
	size_t i;

	if (!a || !b || !fn)
		return -EINVAL;
	for (i = 0; i < b->n; i++) {
		const struct collect_counter *eb = &b->e[i], *ea;
		unsigned int flags;
		uint64_t d;

		ea = collect_counters_find(a, eb->name);
		if (!ea)
			continue;
		flags = ea->flags | eb->flags;
		if (flags & level) {
			fn(ctx, eb->name, COLLECT_DELTA_GAUGE,
			   collect_counter_value(eb));
		} else if ((eb->flags & COLLECT_COUNTER_SUM) &&
			   (ea->flags & COLLECT_COUNTER_SUM)) {
			if (sum_delta(a, b, i, &d))
				fn(ctx, eb->name, COLLECT_DELTA_INCREASE,
				   (double)d);
		} else if (flags & COLLECT_COUNTER_WRAP32) {
			if (wrap32_delta(ea->value, eb->value, &d))
				fn(ctx, eb->name, COLLECT_DELTA_INCREASE,
				   (double)d);
			else
				fn(ctx, eb->name, COLLECT_DELTA_RESET,
				   -(double)(ea->value - eb->value));
		} else if (eb->value >= ea->value) {
			fn(ctx, eb->name, COLLECT_DELTA_INCREASE,
			   (double)(eb->value - ea->value));
		} else {
			fn(ctx, eb->name, COLLECT_DELTA_RESET,
			   -(double)(ea->value - eb->value));
		}
	}
	return 0;
}
