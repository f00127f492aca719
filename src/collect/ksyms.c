// SPDX-License-Identifier: GPL-2.0-only
/* /proc/kallsyms parser and address-to-symbol lookup; see ksyms.h. */
#include "collect/ksyms.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KALLSYMS_PATH "/proc/kallsyms"
#define READ_START_BYTES (1u << 20)
#define SHOW_MAX 40 /* characters of a bad line quoted in errors */
#define NO_MODULE UINT32_MAX

/* One symbol, or an end mark (text == false) that stops the one before. */
struct ent {
	uint64_t addr;
	uint32_t name; /* offset of the NUL-terminated name in buf */
	uint32_t module; /* offset of the module name, or NO_MODULE */
	char type;
	bool text;
};

struct collect_ksyms {
	char *buf; /* the text, names cut out in place */
	struct ent *ent;
	size_t n;
};

struct line {
	const char *p, *end;
	size_t no; /* 1-based */
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_type(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '?';
}

static int line_err(const struct line *ln, struct base_err *err,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int line_err(const struct line *ln, struct base_err *err,
		    const char *fmt, ...)
{
	size_t n = (size_t)(ln->end - ln->p), m = n > SHOW_MAX ? SHOW_MAX : n;
	char what[160], text[SHOW_MAX + 4];
	va_list ap;

	for (size_t i = 0; i < m; i++)
		text[i] = (ln->p[i] >= 0x20 && ln->p[i] < 0x7f) ? ln->p[i] :
								  '?';
	if (m < n) {
		memcpy(text + m, "...", 3);
		m += 3;
	}
	text[m] = '\0';
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return base_err_set(err, -EINVAL, "kallsyms line %zu '%s': %s", ln->no,
			    text, what);
}

static bool is_end_marker(const char *name)
{
	return !strcmp(name, "_etext") || !strcmp(name, "_einittext");
}

/*
 * Parse one line "address type name[\t[module]]" of buf (mutable: the name
 * and module are NUL-terminated in place, overwriting the separator after
 * each; the line must be followed by a byte we may overwrite).
 */
static int parse_line(char *buf, struct line *ln, struct ent *e,
		      struct base_err *err)
{
	char *p = (char *)ln->p, *end = (char *)ln->end, *name, *mod = NULL;
	size_t digits = 0;
	uint64_t addr = 0;

	while (p < end && hexval(*p) >= 0) {
		if (++digits > 16)
			return line_err(ln, err, "address over 16 hex digits");
		addr = addr << 4 | (uint64_t)hexval(*p++);
	}
	if (!digits)
		return line_err(ln, err, "expected a hex address");
	if (p == end || !is_blank(*p))
		return line_err(ln, err, "expected a blank after the address");
	while (p < end && is_blank(*p))
		p++;
	if (p == end || !is_type(*p) || p + 1 == end || !is_blank(p[1]))
		return line_err(ln, err, "expected a one-letter symbol type");
	e->type = *p;
	p += 2;
	while (p < end && is_blank(*p))
		p++;
	name = p;
	while (p < end && !is_blank(*p))
		p++;
	if (p == name)
		return line_err(ln, err, "expected a symbol name");
	if (p - name > COLLECT_KSYMS_NAME_MAX)
		return line_err(ln, err, "symbol name over %d characters",
				COLLECT_KSYMS_NAME_MAX);
	if (p < end) {
		char *q = p;

		while (q < end && is_blank(*q))
			q++;
		if (q < end) {
			char *m = q;

			if (*m != '[')
				return line_err(ln, err,
						"unexpected text after the name");
			while (q < end && *q != ']' && !is_blank(*q))
				q++;
			if (q == end || *q != ']' || q == m + 1)
				return line_err(ln, err,
						"expected a module as [name]");
			if (q + 1 != end)
				return line_err(ln, err,
						"unexpected text after the module");
			*q = '\0';
			mod = m + 1;
		}
	}
	*p = '\0';
	e->addr = addr;
	e->name = (uint32_t)(name - buf);
	e->module = mod ? (uint32_t)(mod - buf) : NO_MODULE;
	e->text = (e->type == 't' || e->type == 'T' || e->type == 'w' ||
		   e->type == 'W') &&
		  !is_end_marker(name);
	return 0;
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Order by address, then the entry to keep first: text before end marks,
 * non-weak before weak, global before local, fewer leading underscores,
 * longer name, byte order.
 */
static int ent_cmp(const void *pa, const void *pb, void *arg)
{
	const struct ent *a = pa, *b = pb;
	const char *buf = arg, *na = buf + a->name, *nb = buf + b->name;
	bool wa, wb, ga, gb;
	size_t ua, ub, la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->text != b->text)
		return a->text ? -1 : 1;
	wa = a->type == 'w' || a->type == 'W';
	wb = b->type == 'w' || b->type == 'W';
	if (wa != wb)
		return wa ? 1 : -1;
	ga = a->type >= 'A' && a->type <= 'Z';
	gb = b->type >= 'A' && b->type <= 'Z';
	if (ga != gb)
		return ga ? -1 : 1;
	ua = leading_underscores(na);
	ub = leading_underscores(nb);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(na);
	lb = strlen(nb);
	if (la != lb)
		return la > lb ? -1 : 1;
	return strcmp(na, nb);
}

void collect_ksyms_free(struct collect_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->buf);
	free(ks->ent);
	free(ks);
}

/* Parse buf[0..len) (len < cap, buf[len] writable); takes buf. */
static int parse_owned(struct collect_ksyms **out, char *buf, size_t len,
		       struct base_err *err)
{
	struct collect_ksyms *ks = NULL;
	struct line ln = { buf, buf, 0 };
	size_t nlines = 1, n = 0, ntext = 0, keep = 0;
	bool nonzero = false;
	int ret;

	buf[len] = '\0';
	for (size_t i = 0; i < len; i++)
		nlines += buf[i] == '\n';
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		free(buf);
		return base_err_set(err, -ENOMEM, "kallsyms: out of memory");
	}
	ks->buf = buf;
	ks->ent = malloc(nlines * sizeof(*ks->ent));
	if (!ks->ent) {
		ret = base_err_set(err, -ENOMEM, "kallsyms: out of memory");
		goto fail;
	}
	for (char *p = buf; p < buf + len; p = (char *)ln.end + 1) {
		char *nl = memchr(p, '\n', (size_t)(buf + len - p));

		ln.p = p;
		ln.end = nl ? nl : buf + len;
		ln.no++;
		ret = parse_line(buf, &ln, &ks->ent[n], err);
		if (ret)
			goto fail;
		nonzero |= ks->ent[n].addr != 0;
		ntext += ks->ent[n].text;
		n++;
	}
	if (n && !nonzero) {
		ret = base_err_set(err, -EACCES,
				   "kernel addresses hidden: kptr_restrict");
		goto fail;
	}
	if (!ntext) {
		ret = base_err_set(err, -ENODATA, "kallsyms: no text symbols");
		goto fail;
	}
	qsort_r(ks->ent, n, sizeof(*ks->ent), ent_cmp, buf);
	/* keep the first (preferred) entry at each address, and one end
	 * mark of a run of them */
	for (size_t i = 0; i < n; i++) {
		if (keep && ks->ent[keep - 1].addr == ks->ent[i].addr)
			continue;
		if (keep && !ks->ent[keep - 1].text && !ks->ent[i].text)
			continue;
		ks->ent[keep++] = ks->ent[i];
	}
	ks->n = keep;
	*out = ks;
	return 0;
fail:
	collect_ksyms_free(ks);
	return ret;
}

int collect_ksyms_parse(struct collect_ksyms **out, const char *text,
			size_t len, struct base_err *err)
{
	char *buf;

	if (!out || (!text && len))
		return base_err_set(err, -EINVAL, "kallsyms: missing argument");
	*out = NULL;
	if (len > COLLECT_KSYMS_CAP_BYTES)
		return base_err_set(err, -EFBIG,
				    "kallsyms: %zu bytes, over the %u byte cap",
				    len, COLLECT_KSYMS_CAP_BYTES);
	buf = malloc(len + 1);
	if (!buf)
		return base_err_set(err, -ENOMEM, "kallsyms: out of memory");
	if (len)
		memcpy(buf, text, len);
	return parse_owned(out, buf, len, err);
}

int collect_ksyms_load(struct collect_ksyms **out, const char *path,
		       struct base_err *err)
{
	size_t cap = READ_START_BYTES, len = 0;
	char *buf = NULL;
	int fd = -1, ret;

	if (!out)
		return base_err_set(err, -EINVAL, "kallsyms: missing argument");
	*out = NULL;
	if (!path)
		path = KALLSYMS_PATH;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return base_err_set(err, -errno, "cannot open %s: %s", path,
				    strerror(errno));
	buf = malloc(cap + 1);
	if (!buf) {
		ret = base_err_set(err, -ENOMEM, "kallsyms: out of memory");
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (len == cap) {
			char *nbuf;

			if (cap >= COLLECT_KSYMS_CAP_BYTES) {
				char c;

				/* full at the cap: only EOF is acceptable */
				do
					r = read(fd, &c, 1);
				while (r < 0 && errno == EINTR);
				if (r == 0)
					break;
				ret = base_err_set(err, -EFBIG,
						   "%s: over the %u byte cap",
						   path,
						   COLLECT_KSYMS_CAP_BYTES);
				goto out;
			}
			cap = cap * 2 > COLLECT_KSYMS_CAP_BYTES ?
				      COLLECT_KSYMS_CAP_BYTES :
				      cap * 2;
			nbuf = realloc(buf, cap + 1);
			if (!nbuf) {
				ret = base_err_set(err, -ENOMEM,
						   "kallsyms: out of memory");
				goto out;
			}
			buf = nbuf;
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = base_err_set(err, -errno, "cannot read %s: %s",
					   path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	fd = -1;
	ret = parse_owned(out, buf, len, err);
	buf = NULL; /* taken */
	if (ret)
		base_err_prefix(err, "%s", path);
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

size_t collect_ksyms_count(const struct collect_ksyms *ks)
{
	return ks ? ks->n : 0;
}

/* out as unknown */
static void set_unknown(struct collect_ksym *out)
{
	out->name = COLLECT_KSYMS_UNKNOWN;
	out->module = NULL;
	out->start = 0;
	out->offset = 0;
	out->id = COLLECT_KSYMS_NO_ID;
}

/* out as entry id, addr - its start in */
static void set_entry(const struct collect_ksyms *ks, size_t id, uint64_t addr,
		      struct collect_ksym *out)
{
	const struct ent *e = &ks->ent[id];

	out->name = ks->buf + e->name;
	out->module = e->module == NO_MODULE ? NULL : ks->buf + e->module;
	out->start = e->addr;
	out->offset = addr - e->addr;
	out->id = (uint32_t)id;
}

int collect_ksyms_at(const struct collect_ksyms *ks, uint32_t id,
		     struct collect_ksym *out)
{
	set_unknown(out);
	if (!ks || id >= ks->n || !ks->ent[id].text)
		return -ENOENT;
	set_entry(ks, id, ks->ent[id].addr, out);
	return 0;
}

int collect_ksyms_resolve(const struct collect_ksyms *ks, uint64_t addr,
			  struct collect_ksym *out)
{
	size_t lo = 0, hi;
	const struct ent *e;

	set_unknown(out);
	if (!ks || !ks->n || addr < ks->ent[0].addr)
		return -ENOENT;
	/* greatest start <= addr: invariant ent[lo].addr <= addr */
	hi = ks->n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->ent[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	e = &ks->ent[lo];
	if (!e->text || addr - e->addr >= COLLECT_KSYMS_MAX_SPAN_BYTES)
		return -ENOENT;
	set_entry(ks, lo, addr, out);
	return 0;
}
