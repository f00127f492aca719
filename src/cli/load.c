// SPDX-License-Identifier: GPL-2.0-only
/* Loading a label's configurations and samples from the store, for compare and report. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/parse.h"
#include "cli/cli.h"
#include "cli/load.h"
#include "job/config.h"
#include "store/store.h"

static int collect_key(void *ctx, const struct store_config_row *r)
{
	struct cli_keys *k = ctx;

	if (k->n == k->cap) {
		size_t ncap = k->cap ? 2 * k->cap : 16;
		char **p = realloc(k->key, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		k->key = p;
		k->cap = ncap;
	}
	k->key[k->n] = strdup(r->config_key);
	if (!k->key[k->n])
		return -ENOMEM;
	k->n++;
	return 0;
}

int cli_keys_load(struct store *st, const char *label, struct cli_keys *k,
		  struct base_err *err)
{
	int ret = label ? store_configs(st, label, collect_key, k, err) :
			  store_labels(st, collect_key, k, err);

	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	return ret;
}

bool cli_keys_has(const struct cli_keys *k, const char *key)
{
	for (size_t i = 0; i < k->n; i++)
		if (!strcmp(k->key[i], key))
			return true;
	return false;
}

void cli_keys_release(struct cli_keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
	memset(k, 0, sizeof(*k));
}

static bool same(const char *s, const char *v, size_t len)
{
	return s && strlen(s) == len && !memcmp(s, v, len);
}

static bool term_match(const struct cli_where_term *t, const char *v, size_t len)
{
	return same(t->value, v, len) || same(t->bytes, v, len);
}

int cli_where_add(struct cli_where *w, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t nl = eq ? (size_t)(eq - arg) : 0;
	struct cli_where_term *p, *t;
	struct base_err err = { "" };
	char q[BASE_QUOTE_LEN];
	uint64_t bytes;
	bool ok = eq && nl && eq[1] &&
		  strspn(arg, "abcdefghijklmnopqrstuvwxyz0123456789_") == nl;

	for (const char *c = eq ? eq + 1 : ""; ok && *c; c++)
		ok = isgraph((unsigned char)*c);
	if (!ok) {
		cli_error("invalid --where '%s': expected NAME=VALUE, a parameter of the configuration keys and one of its values (msg=64, test=tcp_rr)",
			  base_quote(arg, q));
		return EXIT_USAGE;
	}
	p = realloc(w->t, (w->n + 1) * sizeof(*p));
	if (!p)
		goto nomem;
	w->t = p;
	t = &w->t[w->n];
	*t = (struct cli_where_term){ strndup(arg, nl), strdup(eq + 1), NULL };
	if (!t->name || !t->value)
		goto nomem_term;
	if (!base_parse_size(t->value, &bytes, &err)) {
		if (asprintf(&t->bytes, "%" PRIu64, bytes) < 0) {
			t->bytes = NULL;
			goto nomem_term;
		}
		if (!strcmp(t->bytes, t->value)) {
			free(t->bytes);
			t->bytes = NULL;
		}
	}
	w->n++;
	return EXIT_OK;
nomem_term:
	free(t->name);
	free(t->value);
nomem:
	cli_error("out of memory");
	return EXIT_RUNTIME;
}

bool cli_where_match(const struct cli_where *w, const char *key)
{
	for (size_t i = 0; i < w->n; i++) {
		const char *v;
		size_t len, j;
		bool ok = false;

		/* the first term of a name decides for all the name's terms */
		for (j = 0; j < i && strcmp(w->t[j].name, w->t[i].name); j++)
			;
		if (j < i)
			continue;
		v = job_key_value(key, w->t[i].name, &len);
		for (j = i; v && j < w->n && !ok; j++)
			ok = !strcmp(w->t[j].name, w->t[i].name) && term_match(&w->t[j], v, len);
		if (!ok)
			return false;
	}
	return true;
}

static int by_version(const void *x, const void *y)
{
	return strverscmp(*(char *const *)x, *(char *const *)y);
}

/* Append a copy of s[0..len) to the list; false when out of memory. */
static bool item_add(char ***items, size_t *n, size_t *cap, const char *s, size_t len)
{
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 32;
		char **q = realloc(*items, ncap * sizeof(*q));

		if (!q)
			return false;
		*items = q;
		*cap = ncap;
	}
	if (!((*items)[*n] = strndup(s, len)))
		return false;
	(*n)++;
	return true;
}

/*
 * What the keys have, for an error: the distinct values of name (name NULL:
 * the distinct parameter names), in natural order, joined by ", " into buf
 * (cut with "..." to fit). Returns buf.
 */
static const char *keys_have(const struct cli_keys *k, size_t nlabels, const char *name,
			     char *buf, size_t len)
{
	size_t n = 0, cap = 0, used = 0;
	char **items = NULL;

	buf[0] = '\0';
	for (size_t l = 0; l < nlabels; l++) {
		for (size_t i = 0; i < k[l].n; i++) {
			const char *key = k[l].key[i], *v;
			struct job_key_pair kp;
			size_t vl;

			if (name) {
				v = job_key_value(key, name, &vl);
				if (v && !item_add(&items, &n, &cap, v, vl))
					goto out;
				continue;
			}
			while (job_key_next(&key, &kp))
				if (!item_add(&items, &n, &cap, kp.p, kp.name))
					goto out;
		}
	}
	if (n)
		qsort(items, n, sizeof(*items), by_version);
	for (size_t i = 0; i < n; i++) {
		int w;

		if (i && !strcmp(items[i], items[i - 1]))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", items[i]);
		if (w < 0 || (size_t)w >= len - used - 4) {
			snprintf(buf + used, len - used, "%s...", used ? ", " : "");
			break;
		}
		used += (size_t)w;
	}
out:
	for (size_t i = 0; i < n; i++)
		free(items[i]);
	free(items);
	return buf;
}

int cli_where_apply(const struct cli_where *w, struct cli_keys *k, const char *const *labels,
		    size_t nlabels)
{
	char of[160] = "", have[200];
	size_t used = 0;

	for (size_t l = 0; l < nlabels; l++) {
		int n = snprintf(of + used, sizeof(of) - used, "%s'%s'", l ? ", " : "", labels[l]);

		if (n > 0)
			used = (size_t)n + used < sizeof(of) ? used + (size_t)n : sizeof(of) - 1;
	}
	for (size_t i = 0; i < w->n; i++) {
		const struct cli_where_term *t = &w->t[i];
		bool name = false, value = false;

		for (size_t l = 0; l < nlabels; l++)
			for (size_t j = 0; j < k[l].n && !value; j++) {
				size_t len;
				const char *v = job_key_value(k[l].key[j], t->name, &len);

				name |= v != NULL;
				value = v && term_match(t, v, len);
			}
		if (!name) {
			cli_error("--where %s=%s: no configuration of %s has a parameter '%s'; their parameters: %s",
				  t->name, t->value, of, t->name,
				  keys_have(k, nlabels, NULL, have, sizeof(have)));
			return EXIT_USAGE;
		}
		if (!value) {
			cli_error("--where %s=%s: no configuration of %s has %s=%s; %s is %s there",
				  t->name, t->value, of, t->name, t->value, t->name,
				  keys_have(k, nlabels, t->name, have, sizeof(have)));
			return EXIT_USAGE;
		}
	}
	for (size_t l = 0; l < nlabels; l++) {
		size_t kept = 0;

		for (size_t j = 0; j < k[l].n; j++) {
			if (cli_where_match(w, k[l].key[j]))
				k[l].key[kept++] = k[l].key[j];
			else
				free(k[l].key[j]);
		}
		k[l].n = kept;
		if (!kept && w->n) {
			char *text = cli_where_text(w);

			cli_error("no configuration of '%s' has every --where (%s)", labels[l],
				  text ? text : "out of memory");
			free(text);
			return EXIT_RUNTIME;
		}
	}
	return EXIT_OK;
}

char *cli_where_text(const struct cli_where *w)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m)
		return NULL;
	for (size_t i = 0; i < w->n; i++)
		fprintf(m, "%s%s=%s", i ? " " : "", w->t[i].name, w->t[i].value);
	if (fclose(m)) {
		free(text);
		return NULL;
	}
	return text;
}

void cli_where_release(struct cli_where *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->t[i].name);
		free(w->t[i].value);
		free(w->t[i].bytes);
	}
	free(w->t);
	memset(w, 0, sizeof(*w));
}

static int collect_sample(void *ctx, const struct base_sample *s, int64_t order)
{
	struct cli_samples *ss = ctx;

	(void)order;
	if (ss->n == ss->cap) {
		size_t ncap = ss->cap ? 2 * ss->cap : 16;
		struct base_sample *p = realloc(ss->s, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ss->s = p;
		ss->cap = ncap;
	}
	/* the copy releases what it took when it fails */
	if (base_sample_copy(&ss->s[ss->n], s))
		return -ENOMEM;
	ss->n++;
	return 0;
}

int cli_samples_load(struct store *st, const char *label, const char *key,
		     struct cli_samples *ss, struct base_err *err)
{
	int ret = store_load_samples(st, label, key, collect_sample, ss, err);

	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	if (!ret) {
		ss->p = malloc((ss->n ? ss->n : 1) * sizeof(*ss->p));
		if (!ss->p)
			return base_err_set(err, -ENOMEM, "out of memory");
		for (size_t i = 0; i < ss->n; i++)
			ss->p[i] = &ss->s[i];
	}
	return ret;
}

void cli_samples_release(struct cli_samples *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		base_sample_release(&ss->s[i]);
	free(ss->s);
	free(ss->p);
	memset(ss, 0, sizeof(*ss));
}

int cli_headline_parse(const char *arg, struct cli_headline *h)
{
	const char *colon = strchr(arg, ':');
	size_t len = colon ? (size_t)(colon - arg) : strlen(arg);
	enum metric_dir store;
	char q[BASE_QUOTE_LEN];
	bool ok = len && len < sizeof(h->metric);

	memset(h, 0, sizeof(*h));
	for (size_t i = 0; ok && i < len; i++)
		ok = isgraph((unsigned char)arg[i]);
	if (ok && colon) {
		h->dir = !strcmp(colon + 1, "higher") ? METRIC_HIGHER :
			 !strcmp(colon + 1, "lower")  ? METRIC_LOWER : METRIC_NEUTRAL;
		ok = h->dir != METRIC_NEUTRAL;
	}
	if (!ok) {
		cli_error("invalid --headline '%s': expected a stored metric's name (latency.p99_us, throughput.msgs_per_s), with :higher or :lower after a neutral one",
			  base_quote(arg, q));
		return EXIT_USAGE;
	}
	memcpy(h->metric, arg, len);
	h->metric[len] = '\0';
	store = base_metric_dir(h->metric);
	if (store == METRIC_NEUTRAL && h->dir == METRIC_NEUTRAL) {
		cli_error("invalid --headline '%s': the store has no better direction for this metric (neutral), so no change of it is a regression: say which is better, --headline %s:higher or --headline %s:lower",
			  h->metric, h->metric, h->metric);
		return EXIT_USAGE;
	}
	if (store != METRIC_NEUTRAL && h->dir != METRIC_NEUTRAL && h->dir != store) {
		cli_error("invalid --headline '%s': for %s, %s is better (the store's direction); leave out the suffix",
			  base_quote(arg, q), h->metric, base_metric_dir_name(store));
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* How many of s[0..n) have metric as a finite value. */
static size_t with_metric(const struct cli_samples *s, const char *metric)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		k += isfinite(base_sample_value(s->p[i], metric));
	return k;
}

/* Append to buf (", " after the first) up to 6 in all (*nnames) of the
 * metrics of s that other (may be NULL) does not have, whose names start
 * as metric's does up to its first dot. */
static void similar_names(const char *metric, const struct base_sample *s,
			  const struct base_sample *other, char *buf, size_t len, size_t *nnames)
{
	const char *dot = strchr(metric, '.');
	size_t pre = dot ? (size_t)(dot - metric) + 1 : strlen(metric);

	for (size_t i = 0; i < s->nmetrics && *nnames < 6; i++) {
		const char *name = s->metrics[i].name;
		size_t used = strlen(buf);
		int w;

		if (strncmp(name, metric, pre) || (other && base_sample_get(other, name)))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", *nnames ? ", " : "", name);
		if (w < 0 || (size_t)w >= len - used) {
			buf[used] = '\0';
			return;
		}
		(*nnames)++;
	}
}

int cli_headline_missing(const char *metric, const char *key, const char *a,
			 const struct cli_samples *sa, const char *b,
			 const struct cli_samples *sb)
{
	size_t ka = with_metric(sa, metric), kb = with_metric(sb, metric), n = 0;
	char names[512] = "";

	if (ka || kb) {
		cli_error("--headline %s: in configuration '%s', %zu of the %zu samples of '%s' and %zu of the %zu of '%s' have it: a headline needs it under both labels, among the samples compared",
			  metric, key, ka, sa->n, a, kb, sb->n, b);
		return EXIT_USAGE;
	}
	if (sa->n)
		similar_names(metric, sa->p[0], NULL, names, sizeof(names), &n);
	if (sb->n)
		similar_names(metric, sb->p[0], sa->n ? sa->p[0] : NULL, names, sizeof(names),
			      &n);
	cli_error("--headline %s: no sample of '%s' or '%s' in configuration '%s' has this metric (%s%s)",
		  metric, a, b, key,
		  n ? "of its family they have " : "'netregress show LABEL' lists a sample's metrics",
		  names);
	return EXIT_USAGE;
}
