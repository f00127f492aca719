// SPDX-License-Identifier: GPL-2.0-only
/* What differs between the environments two labels ran in: compare's first lines. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "collect/sysenv.h"
#include "report/internal.h"
#include "report/report.h"

/* Entries of the short environment that the full snapshot does not hold;
 * and the profiler's event, which decides what a profile row means (cycles
 * against cpu-clock, interrupts-off samples where they landed against
 * charged to their callers) */
static const char *const short_keys[] = { "hostname", "mem_total_kb",
					  "clocksource", "tmp_fs", "build",
					  "collect.profile.event" };
static const char *const sides[] = { "client", "server" };
/* Families the full snapshot gained later (builds before did not record them):
 * an entry of one that a side lacks is a difference only when that side
 * recorded the family at all (else every comparison with an older sample
 * would list them all) */
static const char *const later_families[] = { "cpuidle.", "cpu.vuln.", "mm." };

#define SHOWN_MAX 20

static json_t *entries_of(const struct base_sample *s, const char *side)
{
	return json_object_get(json_object_get(s->sysenv, side), "entries");
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool report_env_comparable(const char *name)
{
	return collect_sysenv_in_fingerprint(name);
}

/* Whether entries, which lack name, would have recorded it. */
static bool would_record(json_t *entries, const char *name)
{
	const char *key;
	json_t *v;

	for (size_t f = 0; f < ARRAY_SIZE(later_families); f++) {
		size_t n = strlen(later_families[f]);

		if (strncmp(name, later_families[f], n))
			continue;
		json_object_foreach(entries, key, v)
			if (!strncmp(key, later_families[f], n))
				return true;
		return false;
	}
	return true;
}

size_t report_env_changes(const struct base_sample *a,
			  const struct base_sample *b,
			  report_env_change_fn fn, void *ctx)
{
	char key[192];
	size_t n = 0;

	for (size_t s = 0; s < ARRAY_SIZE(sides); s++) {
		json_t *ea = entries_of(a, sides[s]), *eb = entries_of(b, sides[s]);
		const char *name;
		json_t *v;

		for (size_t k = 0; k < ARRAY_SIZE(short_keys); k++) {
			const char *va, *vb;

			snprintf(key, sizeof(key), "%s.%s", sides[s], short_keys[k]);
			va = base_sample_env_get(a, key, NULL);
			vb = base_sample_env_get(b, key, NULL);
			if (same(va, vb))
				continue;
			if (fn)
				fn(ctx, key, va, vb);
			n++;
		}
		/* both snapshots or none: one side alone is not a difference
		 * of the machine, only of what was recorded */
		if (!json_is_object(ea) || !json_is_object(eb))
			continue;
		json_object_foreach(ea, name, v) {
			const char *vb = json_string_value(json_object_get(eb, name));

			if (!report_env_comparable(name) || same(json_string_value(v), vb) ||
			    (!vb && !would_record(eb, name)))
				continue;
			snprintf(key, sizeof(key), "%s.%s", sides[s], name);
			if (fn)
				fn(ctx, key, json_string_value(v), vb);
			n++;
		}
		json_object_foreach(eb, name, v) {
			if (!report_env_comparable(name) || json_object_get(ea, name) ||
			    !would_record(ea, name))
				continue;
			snprintf(key, sizeof(key), "%s.%s", sides[s], name);
			if (fn)
				fn(ctx, key, NULL, json_string_value(v));
			n++;
		}
	}
	return n;
}

bool report_env_snapshots(const struct base_sample *a,
			  const struct base_sample *b)
{
	for (size_t s = 0; s < ARRAY_SIZE(sides); s++)
		if (json_is_object(entries_of(a, sides[s])) &&
		    json_is_object(entries_of(b, sides[s])))
			return true;
	return false;
}

struct text_ctx {
	FILE *out;
	size_t shown;
	int width;
};

static void text_line(void *ctx, const char *entry, const char *a,
		      const char *b)
{
	struct text_ctx *t = ctx;
	char qa[BASE_QUOTE_LEN], qb[BASE_QUOTE_LEN];

	if (t->shown++ >= SHOWN_MAX)
		return;
	fprintf(t->out, "  %-*s %s -> %s\n", t->width, entry,
		a ? base_quote(a, qa) : "(none)", b ? base_quote(b, qb) : "(none)");
}

static void widest(void *ctx, const char *entry, const char *a, const char *b)
{
	struct text_ctx *t = ctx;
	int w = (int)strlen(entry);

	(void)a;
	(void)b;
	if (t->shown++ < SHOWN_MAX && w > t->width)
		t->width = w;
}

void report_env_diff_text(FILE *out, const struct base_sample *a,
			  const struct base_sample *b, const char *label_a,
			  const char *label_b)
{
	struct text_ctx t = { .out = out };
	bool snap = report_env_snapshots(a, b);
	size_t n = report_env_changes(a, b, widest, &t);

	if (!n) {
		fprintf(out, "environment: no difference between %s and %s%s\n\n",
			label_a, label_b,
			snap ? " (the full snapshots of their first samples: kernel, command line, CPU, sysctls, interfaces)" :
			       " (host name, memory, clock source, temp filesystem, netregress build; no full snapshot on both sides)");
		return;
	}
	fprintf(out, "environment: %zu entr%s differ%s from %s to %s (their first samples%s):\n",
		n, n == 1 ? "y" : "ies", n == 1 ? "s" : "", label_a, label_b,
		snap ? "" : "; no full snapshot on both sides");
	t.shown = 0;
	report_env_changes(a, b, text_line, &t);
	if (n > SHOWN_MAX)
		fprintf(out, "  ... and %zu more ('netregress report' lists them all)\n",
			n - SHOWN_MAX);
	fputc('\n', out);
}

static void json_change(void *ctx, const char *entry, const char *a,
			const char *b)
{
	json_array_append_new(ctx, json_pack("{s:s, s:s?, s:s?}", "entry", entry,
					     "a", a, "b", b));
}

/* What entry `key` ("client.hostname", "server.net.core.rmem_max") of s
 * holds: the short environment first, then the full snapshot. */
static const char *entry_value(const struct base_sample *s, const char *key)
{
	const char *v = base_sample_env_get(s, key, NULL), *dot;
	char side[16];

	if (v)
		return v;
	dot = strchr(key, '.');
	if (!dot || (size_t)(dot - key) >= sizeof(side))
		return NULL;
	memcpy(side, key, (size_t)(dot - key));
	side[dot - key] = '\0';
	return json_string_value(json_object_get(entries_of(s, side), dot + 1));
}

#define WITHIN_KEYS 8
#define WITHIN_VALUES 4

struct within {
	size_t nkeys, more;
	char key[WITHIN_KEYS][192];
};

static void within_key(void *ctx, const char *entry, const char *a,
		       const char *b)
{
	struct within *w = ctx;

	(void)a;
	(void)b;
	for (size_t k = 0; k < w->nkeys; k++)
		if (!strcmp(w->key[k], entry))
			return;
	if (w->nkeys == WITHIN_KEYS) {
		w->more++;
		return;
	}
	snprintf(w->key[w->nkeys++], sizeof(w->key[0]), "%s", entry);
}

/* Append printf-style to out[len] at *off; a full buffer keeps what fit. */
static void put(char *out, size_t len, size_t *off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *out, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	w = vsnprintf(out + *off, len - *off, fmt, ap);
	va_end(ap);
	if (w > 0)
		*off = (size_t)w < len - *off ? *off + (size_t)w : len;
}

/* Append to out[len] at *off the values entry key takes in s[0..n), each
 * with its samples; returns how many samples hold the entry. */
static size_t tally(const struct base_sample *const *s, size_t n, const char *key,
		    char *out, size_t len, size_t *off)
{
	const char *val[WITHIN_VALUES];
	size_t cnt[WITHIN_VALUES] = { 0 }, nval = 0, other = 0, have = 0;
	char q[BASE_QUOTE_LEN];

	for (size_t i = 0; i < n; i++) {
		const char *v = entry_value(s[i], key);
		size_t j = 0;

		have += v != NULL;
		while (j < nval && !same(val[j], v))
			j++;
		if (j == nval && nval == WITHIN_VALUES) {
			other++;
			continue;
		}
		if (j == nval)
			val[nval++] = v;
		cnt[j]++;
	}
	for (size_t j = 0; j < nval; j++)
		put(out, len, off, "%s %s in %zu", j ? "," : "",
		    val[j] ? base_quote(val[j], q) : "(none)", cnt[j]);
	if (other)
		put(out, len, off, ", other values in %zu", other);
	return have;
}

size_t report_env_tally(const struct base_sample *const *s, size_t n, const char *key,
			char *out, size_t len)
{
	size_t off = 0;

	if (len)
		out[0] = '\0';
	return tally(s, n, key, out, len, &off);
}

size_t report_env_within(const struct base_sample *const *s, size_t n,
			 char *out, size_t len)
{
	struct within w = { 0 };
	size_t off = 0;

	if (len)
		out[0] = '\0';
	for (size_t i = 1; i < n; i++)
		report_env_changes(s[0], s[i], within_key, &w);
	for (size_t k = 0; k < w.nkeys; k++) {
		put(out, len, &off, "%s%s:", k ? "; " : "", w.key[k]);
		tally(s, n, w.key[k], out, len, &off);
	}
	if (w.more)
		put(out, len, &off, "; and %zu more entr%s", w.more,
		    w.more == 1 ? "y" : "ies");
	return w.nkeys + w.more;
}

void report_env_within_note(struct stats_table *t,
			    const struct base_sample *const *a, size_t na,
			    const struct base_sample *const *b, size_t nb)
{
	char buf[sizeof(t->notes.env_diff_a)];

	if (t->notes.env_diff_a[0] && report_env_within(a, na, buf, sizeof(buf)))
		memcpy(t->notes.env_diff_a, buf, sizeof(buf));
	if (t->notes.env_diff_b[0] && report_env_within(b, nb, buf, sizeof(buf)))
		memcpy(t->notes.env_diff_b, buf, sizeof(buf));
}

json_t *report_env_diff_json(const struct base_sample *a,
			     const struct base_sample *b)
{
	json_t *changes = json_array();

	if (!changes)
		return NULL;
	report_env_changes(a, b, json_change, changes);
	return json_pack("{s:b, s:o}", "full_snapshots", report_env_snapshots(a, b),
			 "changes", changes);
}
