// SPDX-License-Identifier: GPL-2.0-only
/* Job files: YAML parsing with file:line:column diagnostics, checks, and the matrix expansion. */
#include "job/jobfile.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>
#include <yaml.h>

#include "base/file.h"
#include "base/parse.h"
#include "base/sample.h"
#include "base/time.h"
#include "job/params.h"

/* Linux caps a socket buffer request at INT_MAX / 2 (the CLI's limit too). */
#define NAME_MAX_LEN 63
/* Headers in front of a UDP payload: IPv4 20 + UDP 8, IPv6 40 + UDP 8. */
#define UDP4_OVERHEAD 28
#define UDP6_OVERHEAD 48
/* The loopback device's MTU unless someone changed it. */
#define LOOPBACK_MTU 65536

/* The parameters of a job file are the rows of the parameter table
 * (job/params.c) that have a yaml key; their values are job_pval. */
struct rule_key {
	size_t param; /* index in jf->params */
	bool *hit;    /* [the param's nvalues]: values this rule names */
};

struct job_rule {
	struct rule_key *keys;
	size_t nkeys;
};

enum top {
	T_NAME,
	T_LABEL,
	T_REPS,
	T_DURATION,
	T_WARMUP,
	T_INTERVAL,
	T_SEED,
	T_COLLECT,
	T_PARAMS,
	T_EXCLUDE,
	T_NOFRAG,
	T_LABELS,
	T_COUNT,
};

static const char *const top_names[T_COUNT] = {
	[T_NAME] = "name",
	[T_LABEL] = "label",
	[T_REPS] = "repetitions",
	[T_DURATION] = "duration",
	[T_WARMUP] = "warmup",
	[T_INTERVAL] = "interval",
	[T_SEED] = "seed",
	[T_COLLECT] = "collect",
	[T_PARAMS] = "params",
	[T_EXCLUDE] = "exclude",
	[T_NOFRAG] = "no_fragmentation",
	[T_LABELS] = "labels",
};

struct pctx {
	const char *name; /* the file, for messages */
	const char *text;
	size_t len;
	yaml_document_t *doc;
	struct job_file *jf;
	struct base_err *err;
};

/* The value for a message: control characters escaped, long ones cut. */
static const char *quoted(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 8 < len; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch == 0x7f) {
			snprintf(buf + o, len - o, "\\x%02x", ch);
			o += 4;
		} else {
			buf[o++] = (char)ch;
		}
	}
	if (*s && o + 4 <= len) {
		memcpy(buf + o, "...", 3);
		o += 3;
	}
	buf[o] = '\0';
	return buf;
}

/* Set the error at a position of the file; returns -EINVAL. */
static int __attribute__((format(printf, 3, 4)))
at(struct pctx *x, yaml_mark_t m, const char *fmt, ...)
{
	char msg[sizeof(x->err->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return base_err_set(x->err, -EINVAL, "%s:%zu:%zu: %s", x->name,
			    m.line + 1, m.column + 1, msg);
}

static yaml_node_t *node(struct pctx *x, int id)
{
	return yaml_document_get_node(x->doc, id);
}

static const char *sval(const yaml_node_t *n)
{
	return (const char *)n->data.scalar.value;
}

static int find_top(const char *name)
{
	for (int i = 0; i < T_COUNT; i++)
		if (!strcmp(top_names[i], name))
			return i;
	return -1;
}

static bool valid_cc(const char *s)
{
	return *s && job_valid_cc(s);
}

/* What a value of d looks like, for "invalid value 'x' for 'd': ...". */
static void expect_text(const struct job_pdef *d, char *buf, size_t len)
{
	char hi[BASE_SIZE_STRLEN];

	switch (d->kind) {
	case JOB_PK_TEST:
		snprintf(buf, len, "expected " JOB_TEST_NAMES);
		break;
	case JOB_PK_DIR:
		snprintf(buf, len, "expected send, recv or bidir");
		break;
	case JOB_PK_INT:
		snprintf(buf, len, "expected an integer from %" PRIu64 " to %" PRIu64 "%s%s",
			 d->min, d->max, d->zero_word ? ", or " : "",
			 d->zero_word ? d->zero_word : "");
		break;
	case JOB_PK_SIZE:
		base_format_size(d->max, hi, sizeof(hi));
		snprintf(buf, len, "expected a size like 8K or 1M, from %" PRIu64 " byte%s to %s%s%s",
			 d->min ? d->min : 1, d->min > 1 ? "s" : "", hi,
			 d->zero_word ? ", or " : "", d->zero_word ? d->zero_word : "");
		break;
	case JOB_PK_BUF:
		base_format_size(d->max, hi, sizeof(hi));
		snprintf(buf, len, "expected a size like 8K or 1M, up to %s, or auto", hi);
		break;
	case JOB_PK_BOOL:
		snprintf(buf, len, "expected true or false");
		break;
	case JOB_PK_CC:
		snprintf(buf, len, "expected a congestion control like cubic or bbr, or default");
		break;
	case JOB_PK_IPV:
		snprintf(buf, len, "expected 4 or 6");
		break;
	case JOB_PK_CPUS:
		snprintf(buf, len, "expected a cpu list like 0-3,8, or none");
		break;
	case JOB_PK_TPS:
		snprintf(buf, len, "expected transactions/s per flow from 0 (closed loop) to %.0f",
			 JOB_MAX_RATE);
		break;
	case JOB_PK_TIMEOUT:
		snprintf(buf, len, "expected a duration from 1ms to 60s");
		break;
	case JOB_PK_TOPOLOGY:
		snprintf(buf, len, "expected loopback or veth");
		break;
	case JOB_PK_PLACEMENT:
		snprintf(buf, len, "expected split or free");
		break;
	case JOB_PK_SENDFILE:
		snprintf(buf, len, "expected tmp (a file in $TMPDIR or /tmp) or memfd");
		break;
	case JOB_PK_TOGGLE:
		snprintf(buf, len, "expected on, off or default");
		break;
	case JOB_PK_BPS:
		snprintf(buf, len, "expected bits/s like 900mbit, 1gbit or 10M, or none");
		break;
	case JOB_PK_PCT:
		snprintf(buf, len, "expected a percentage of one cpu from %" PRIu64 " to %" PRIu64 ", or none",
			 d->min, d->max);
		break;
	case JOB_PK_NS: /* on the wire only */
		snprintf(buf, len, "expected nanoseconds");
		break;
	case JOB_PK_STREAMS:
		snprintf(buf, len, "expected an integer from %" PRIu64 " to %" PRIu64
			 ", or a share of the cpus from 1%% to %d%% (200%%: two flows a cpu)",
			 d->min, d->max, JOB_MAX_STREAMS_PCT);
		break;
	}
}

static void value_release(struct job_pval *v)
{
	free(v->cpus);
	v->cpus = NULL;
}

/* Parse s as a value of d. Returns 0, -EINVAL (not such a value) or -ENOMEM. */
static int parse_value(const struct job_pdef *d, const char *s, struct job_pval *v)
{
	enum job_test t;
	enum job_dir dir;
	bool b;
	char pct[32];
	size_t n;

	memset(v, 0, sizeof(*v));
	if (d->zero_word && !strcmp(s, d->zero_word)) {
		/* -1 tells the word from a 0 where 0 is a value of its own */
		if (d->kind == JOB_PK_TOGGLE || d->kind == JOB_PK_INT)
			v->i = -1;
		return 0;
	}
	switch (d->kind) {
	case JOB_PK_TEST:
		if (job_test_parse(s, &t, NULL))
			return -EINVAL;
		v->i = t;
		return 0;
	case JOB_PK_DIR:
		if (job_dir_parse(s, &dir, NULL))
			return -EINVAL;
		v->i = dir;
		return 0;
	case JOB_PK_INT:
		return base_parse_u64(s, d->min, d->max, &v->u, NULL) ? -EINVAL : 0;
	case JOB_PK_SIZE:
	case JOB_PK_BUF:
		if (base_parse_size(s, &v->u, NULL) || v->u < d->min ||
		    v->u > d->max)
			return -EINVAL;
		return 0;
	case JOB_PK_BOOL:
		if (base_parse_bool(s, &b, NULL))
			return -EINVAL;
		v->i = b;
		return 0;
	case JOB_PK_CC:
		if (!valid_cc(s))
			return -EINVAL;
		snprintf(v->s, sizeof(v->s), "%s", s);
		return 0;
	case JOB_PK_IPV:
		if (strcmp(s, "4") && strcmp(s, "6"))
			return -EINVAL;
		v->i = s[0] - '0';
		return 0;
	case JOB_PK_CPUS:
		v->cpus = malloc(sizeof(*v->cpus));
		if (!v->cpus)
			return -ENOMEM;
		if (base_parse_cpulist(s, v->cpus, NULL)) {
			value_release(v);
			return -EINVAL;
		}
		return 0;
	case JOB_PK_TPS:
		return base_parse_double(s, 0, JOB_MAX_RATE, &v->d, NULL) ? -EINVAL : 0;
	case JOB_PK_TIMEOUT: {
		int64_t ns;

		if (base_parse_duration_ns(s, &ns, NULL) ||
		    (uint64_t)ns < d->min || (uint64_t)ns > d->max)
			return -EINVAL;
		v->u = (uint64_t)ns;
		return 0;
	}
	case JOB_PK_TOPOLOGY:
		if (strcmp(s, "loopback") && strcmp(s, "veth"))
			return -EINVAL;
		snprintf(v->s, sizeof(v->s), "%s", s);
		return 0;
	case JOB_PK_PLACEMENT: {
		enum job_placement pl;

		if (job_placement_parse(s, &pl))
			return -EINVAL;
		v->i = pl;
		return 0;
	}
	case JOB_PK_SENDFILE: {
		enum job_sendfile_from f;

		if (job_sendfile_from_parse(s, &f))
			return -EINVAL;
		v->i = f;
		return 0;
	}
	case JOB_PK_TOGGLE:
		if (base_parse_bool(s, &b, NULL))
			return -EINVAL;
		v->i = b;
		return 0;
	case JOB_PK_BPS:
		if (job_parse_rate_bps(s, &v->u, NULL) || v->u < d->min)
			return -EINVAL;
		return 0;
	case JOB_PK_PCT:
		/* "50" or "50%" */
		n = strlen(s);
		if (n && s[n - 1] == '%')
			n--;
		if (!n || n >= sizeof(pct))
			return -EINVAL;
		memcpy(pct, s, n);
		pct[n] = '\0';
		return base_parse_u64(pct, d->min, d->max, &v->u, NULL) ? -EINVAL : 0;
	case JOB_PK_STREAMS: {
		/* "8", or "200%" of the cpus: the share goes in i */
		uint64_t p;

		n = strlen(s);
		if (!n || s[n - 1] != '%')
			return base_parse_u64(s, d->min, d->max, &v->u, NULL) ? -EINVAL : 0;
		if (n - 1 >= sizeof(pct))
			return -EINVAL;
		memcpy(pct, s, n - 1);
		pct[n - 1] = '\0';
		if (base_parse_u64(pct, 1, JOB_MAX_STREAMS_PCT, &p, NULL))
			return -EINVAL;
		v->i = (int64_t)p;
		return 0;
	}
	case JOB_PK_NS:
		break;
	}
	return -EINVAL;
}

static bool value_eq(const struct job_pdef *d, const struct job_pval *a,
		     const struct job_pval *b)
{
	switch (d->kind) {
	case JOB_PK_TPS:
		return a->d == b->d;
	case JOB_PK_CPUS:
		if (!a->cpus || !b->cpus)
			return a->cpus == b->cpus;
		return a->cpus->n == b->cpus->n &&
		       !memcmp(a->cpus->cpu, b->cpus->cpu,
			       a->cpus->n * sizeof(a->cpus->cpu[0]));
	case JOB_PK_CC:
	case JOB_PK_TOPOLOGY:
		return !strcmp(a->s, b->s);
	default:
		return a->u == b->u && a->i == b->i;
	}
}

int job_parse_rate_bps(const char *s, uint64_t *out, struct base_err *err)
{
	static const struct {
		const char *unit;
		int exp10;
	} units[] = {
		{ "", 0 },     { "bit", 0 },  { "k", 3 },     { "kbit", 3 },
		{ "m", 6 },    { "mbit", 6 }, { "g", 9 },     { "gbit", 9 },
		{ "t", 12 },   { "tbit", 12 },
	};
	char q[80];
	const char *p = s, *fstart = NULL, *fend = NULL;
	uint64_t ip = 0, frac = 0, mult = 1, v;
	int exp10 = -1, nfrac;
	size_t i;

	if (*p < '0' || *p > '9')
		goto bad;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (ip > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			goto range;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		fstart = ++p;
		while (*p >= '0' && *p <= '9')
			p++;
		fend = p;
		if (fend == fstart)
			goto bad;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcasecmp(p, units[i].unit)) {
			exp10 = units[i].exp10;
			break;
		}
	}
	if (exp10 < 0)
		goto bad;
	for (int k = 0; k < exp10; k++)
		mult *= 10;
	if (fstart) {
		/* trailing zeros of the fraction say nothing */
		while (fend > fstart && fend[-1] == '0')
			fend--;
		nfrac = (int)(fend - fstart);
		/* a whole number of bits/s needs no more digits than the unit */
		if (nfrac > exp10)
			goto bad;
		for (const char *f = fstart; f < fend; f++)
			frac = frac * 10 + (uint64_t)(*f - '0');
		for (int k = nfrac; k < exp10; k++)
			frac *= 10;
	}
	if (ip > UINT64_MAX / mult)
		goto range;
	v = ip * mult;
	if (v > UINT64_MAX - frac)
		goto range;
	*out = v + frac;
	return 0;
bad:
	return base_err_set(err, -EINVAL,
			    "invalid rate '%s': expected bits/s like 900mbit, 1gbit or 10M",
			    quoted(s, q, sizeof(q)));
range:
	return base_err_set(err, -ERANGE,
			    "invalid rate '%s': expected at most %" PRIu64 " bits/s",
			    quoted(s, q, sizeof(q)), UINT64_MAX);
}

/* The text of a key node, which must be a scalar. */
static int key_text(struct pctx *x, yaml_node_t *k, const char **out)
{
	if (k->type != YAML_SCALAR_NODE)
		return at(x, k->start_mark,
			  "a key must be a name, not a list or a mapping");
	if (strlen(sval(k)) != k->data.scalar.length)
		return at(x, k->start_mark, "a key holds a nul character");
	*out = sval(k);
	return 0;
}

/* Reject a key that an earlier pair of the same mapping has. */
static int check_duplicate(struct pctx *x, yaml_node_t *map,
			   yaml_node_pair_t *pair)
{
	yaml_node_t *k = node(x, pair->key);

	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < pair; p++) {
		yaml_node_t *pk = node(x, p->key);

		if (pk->type == YAML_SCALAR_NODE && !strcmp(sval(pk), sval(k)))
			return at(x, k->start_mark,
				  "duplicate key '%s' (first at line %zu)",
				  sval(k), pk->start_mark.line + 1);
	}
	return 0;
}

/* Whether a scalar node is YAML's null: `key:` with nothing, ~ or null
 * unquoted. */
static bool is_missing(const yaml_node_t *v)
{
	const char *s;

	if (v->type != YAML_SCALAR_NODE ||
	    v->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	s = sval(v);
	return !*s || !strcmp(s, "~") || !strcmp(s, "null") ||
	       !strcmp(s, "Null") || !strcmp(s, "NULL");
}

/* The text of a value node that must be one scalar. */
static int scalar(struct pctx *x, yaml_node_t *v, const char *key,
		  const char **out)
{
	if (v->type == YAML_SEQUENCE_NODE)
		return at(x, v->start_mark, "'%s' takes one value, not a list", key);
	if (v->type == YAML_MAPPING_NODE)
		return at(x, v->start_mark, "'%s' takes one value, not a mapping", key);
	if (is_missing(v))
		return at(x, v->start_mark, "'%s' has no value", key);
	if (strlen(sval(v)) != v->data.scalar.length)
		return at(x, v->start_mark, "the value of '%s' holds a nul character", key);
	*out = sval(v);
	return 0;
}

static int bad_value(struct pctx *x, yaml_node_t *v, const char *key,
		     const char *expect)
{
	char q[80];

	return at(x, v->start_mark, "invalid value '%s' for '%s': %s",
		  quoted(sval(v), q, sizeof(q)), key, expect);
}

/* One value of a parameter, from a scalar node, into v. */
static int param_value(struct pctx *x, const struct job_pdef *d, yaml_node_t *v,
		       struct job_pval *out)
{
	char expect[160];
	const char *s;
	int ret;

	if (v->type == YAML_SEQUENCE_NODE)
		return at(x, v->start_mark,
			  "'%s': a list holds values, not lists", d->yaml);
	if (v->type == YAML_MAPPING_NODE)
		return at(x, v->start_mark,
			  "'%s': a list holds values, not mappings", d->yaml);
	if ((ret = scalar(x, v, d->yaml, &s)))
		return ret;
	ret = parse_value(d, s, out);
	if (ret == -EINVAL) {
		expect_text(d, expect, sizeof(expect));
		return bad_value(x, v, d->yaml, expect);
	}
	return ret;
}

/* The items of a parameter's value: the node itself for a scalar, the
 * items of a list; a mapping or an empty list is an error. */
static int value_items(struct pctx *x, const char *key, yaml_node_t *v,
		       yaml_node_item_t **items, size_t *n, bool *list)
{
	if (v->type == YAML_MAPPING_NODE)
		return at(x, v->start_mark,
			  "'%s' takes a value or a list of values, not a mapping",
			  key);
	if (v->type == YAML_SCALAR_NODE) {
		*items = NULL;
		*n = 1;
		*list = false;
		return 0;
	}
	*items = v->data.sequence.items.start;
	*n = (size_t)(v->data.sequence.items.top - v->data.sequence.items.start);
	*list = true;
	if (!*n)
		return at(x, v->start_mark,
			  "empty list for '%s': expected at least one value", key);
	return 0;
}

static int parse_param(struct pctx *x, yaml_node_t *k, yaml_node_t *v,
		       struct job_param *p)
{
	const struct job_pdef *d;
	yaml_node_item_t *items;
	char q[80];
	int ret;

	d = job_pdef_by_yaml(sval(k));
	if (!d) {
		if (find_top(sval(k)) >= 0)
			return at(x, k->start_mark,
				  "unknown parameter '%s' in params: '%s' goes at the top level",
				  quoted(sval(k), q, sizeof(q)), sval(k));
		return at(x, k->start_mark, "unknown parameter '%s' in params",
			  quoted(sval(k), q, sizeof(q)));
	}
	p->name = d->yaml;
	p->line = (unsigned)k->start_mark.line + 1;
	p->col = (unsigned)k->start_mark.column + 1;
	if ((ret = value_items(x, d->yaml, v, &items, &p->nvalues, &p->axis)))
		return ret;
	p->text = calloc(p->nvalues, sizeof(*p->text));
	p->value = calloc(p->nvalues, sizeof(*p->value));
	if (!p->text || !p->value)
		return -ENOMEM;
	for (size_t i = 0; i < p->nvalues; i++) {
		yaml_node_t *item = items ? node(x, items[i]) : v;

		if ((ret = param_value(x, d, item, &p->value[i])))
			return ret;
		p->text[i] = strdup(sval(item));
		if (!p->text[i])
			return -ENOMEM;
		for (size_t j = 0; j < i; j++)
			if (value_eq(d, &p->value[i], &p->value[j]))
				return at(x, item->start_mark,
					  "duplicate value '%s' for '%s'",
					  quoted(sval(item), q, sizeof(q)),
					  d->yaml);
	}
	return 0;
}

static int parse_params(struct pctx *x, yaml_node_t *k, yaml_node_t *map)
{
	struct job_file *jf = x->jf;
	uint64_t combos = 1;
	size_t n;
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return at(x, map->start_mark,
			  "'params' takes a mapping of parameter: value or [values]");
	n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	jf->params = calloc(n ? n : 1, sizeof(*jf->params));
	if (!jf->params)
		return -ENOMEM;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		const char *key;

		if ((ret = key_text(x, node(x, pair->key), &key)) ||
		    (ret = check_duplicate(x, map, pair)))
			return ret;
		/* counted first so that job_file_free() releases a partial one */
		jf->nparams++;
		if ((ret = parse_param(x, node(x, pair->key),
				       node(x, pair->value),
				       &jf->params[jf->nparams - 1])))
			return ret;
		combos *= jf->params[jf->nparams - 1].nvalues;
		if (combos > JOB_MAX_COMBINATIONS)
			return at(x, k->start_mark,
				  "params make more than %d combinations: split the job",
				  JOB_MAX_COMBINATIONS);
	}
	return 0;
}

static void rule_release(struct job_rule *r)
{
	for (size_t i = 0; i < r->nkeys; i++)
		free(r->keys[i].hit);
	free(r->keys);
}

/* One key of an exclude rule: mark the values of its parameter it names. */
static int parse_rule_key(struct pctx *x, yaml_node_t *k, yaml_node_t *v,
			  struct rule_key *rk)
{
	struct job_file *jf = x->jf;
	const struct job_pdef *d;
	struct job_param *p;
	yaml_node_item_t *items;
	size_t n;
	bool list;
	char q[80];
	int pi, ret;

	if (!job_pdef_by_yaml(sval(k)))
		return at(x, k->start_mark, "unknown parameter '%s' in exclude",
			  quoted(sval(k), q, sizeof(q)));
	pi = job_file_param_index(jf, sval(k));
	if (pi < 0)
		return at(x, k->start_mark,
			  "exclude key '%s' is not in params", sval(k));
	p = &jf->params[pi];
	d = job_pdef_by_yaml(p->name);
	rk->param = (size_t)pi;
	rk->hit = calloc(p->nvalues, sizeof(*rk->hit));
	if (!rk->hit)
		return -ENOMEM;
	if ((ret = value_items(x, d->yaml, v, &items, &n, &list)))
		return ret;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *item = items ? node(x, items[i]) : v;
		struct job_pval val;
		size_t j;

		if ((ret = param_value(x, d, item, &val)))
			return ret;
		for (j = 0; j < p->nvalues; j++)
			if (value_eq(d, &val, &p->value[j]))
				break;
		value_release(&val);
		if (j == p->nvalues)
			return at(x, item->start_mark,
				  "exclude value '%s' for '%s' matches none of its values in params",
				  quoted(sval(item), q, sizeof(q)), d->yaml);
		rk->hit[j] = true;
	}
	return 0;
}

static int parse_exclude(struct pctx *x, yaml_node_t *seq)
{
	struct job_file *jf = x->jf;
	size_t n;
	int ret;

	if (seq->type != YAML_SEQUENCE_NODE)
		return at(x, seq->start_mark,
			  "'exclude' takes a list of rules like {mtu: 1500, msg: 8952}");
	n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
	jf->exclude = calloc(n ? n : 1, sizeof(*jf->exclude));
	if (!jf->exclude)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *map = node(x, seq->data.sequence.items.start[i]);
		struct job_rule *r = &jf->exclude[jf->nexclude++];
		size_t nk;

		if (map->type != YAML_MAPPING_NODE)
			return at(x, map->start_mark,
				  "an exclude rule is a mapping like {mtu: 1500, msg: 8952}");
		nk = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
		if (!nk)
			return at(x, map->start_mark,
				  "empty exclude rule: it would drop every combination");
		r->keys = calloc(nk, sizeof(*r->keys));
		if (!r->keys)
			return -ENOMEM;
		for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
		     pair < map->data.mapping.pairs.top; pair++) {
			const char *key;

			if ((ret = key_text(x, node(x, pair->key), &key)) ||
			    (ret = check_duplicate(x, map, pair)))
				return ret;
			r->nkeys++;
			if ((ret = parse_rule_key(x, node(x, pair->key),
						  node(x, pair->value),
						  &r->keys[r->nkeys - 1])))
				return ret;
		}
	}
	return 0;
}

static int parse_collect(struct pctx *x, yaml_node_t *map)
{
	static const char *const names[] = { "counters", "perf", "profile", "speed", "xcpu",
					     "profile_min" };
	struct job_collect *c = &x->jf->collect;
	bool *fields[] = { &c->counters, &c->perf, &c->profile, &c->speed, &c->xcpu };
	char q[80];
	int ret;

	if (map->type != YAML_MAPPING_NODE)
		return at(x, map->start_mark,
			  "'collect' takes a mapping like {counters: true, perf: true, profile: false, speed: true, xcpu: true, profile_min: 0.1}");
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(x, pair->key), *v = node(x, pair->value);
		const char *key, *s;
		size_t i;

		if ((ret = key_text(x, k, &key)) ||
		    (ret = check_duplicate(x, map, pair)))
			return ret;
		for (i = 0; i < ARRAY_SIZE(names); i++)
			if (!strcmp(key, names[i]))
				break;
		if (i == ARRAY_SIZE(names))
			return at(x, k->start_mark,
				  "unknown collector '%s': expected counters, perf, profile, speed, xcpu or profile_min",
				  quoted(key, q, sizeof(q)));
		if ((ret = scalar(x, v, key, &s)))
			return ret;
		if (i == ARRAY_SIZE(fields)) {
			/* the profile's threshold: a number, not a switch */
			if (base_parse_double(s, 0, 100, &c->profile_min_pct, NULL))
				return bad_value(x, v, key, "expected a percentage from 0 to 100");
			c->profile_min_set = true;
			continue;
		}
		if (base_parse_bool(s, fields[i], NULL))
			return bad_value(x, v, key, "expected true or false");
		if (fields[i] == &c->speed)
			c->speed_set = true;
	}
	return 0;
}

/* One label's `sysctl` mapping: name -> value. */
static int parse_label_sysctls(struct pctx *x, struct job_label *l, yaml_node_t *map)
{
	size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
	struct base_err why;
	int ret;

	if (!n)
		return 0;
	l->sysctl_name = calloc(n, sizeof(*l->sysctl_name));
	l->sysctl_value = calloc(n, sizeof(*l->sysctl_value));
	if (!l->sysctl_name || !l->sysctl_value)
		return -ENOMEM;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(x, pair->key), *v = node(x, pair->value);
		const char *key, *s;

		if ((ret = key_text(x, k, &key)) ||
		    (ret = check_duplicate(x, map, pair)))
			return ret;
		if (base_parse_sysctl_name(key, &why))
			return at(x, k->start_mark, "%s", why.msg);
		if ((ret = scalar(x, v, key, &s)))
			return ret;
		if (base_parse_sysctl_value(s, &why))
			return at(x, v->start_mark, "%s for '%s'", why.msg, key);
		l->sysctl_name[l->nsysctls] = strdup(key);
		l->sysctl_value[l->nsysctls] = strdup(s);
		/* counted even when half made: job_file_free() frees both */
		l->nsysctls++;
		if (!l->sysctl_name[l->nsysctls - 1] || !l->sysctl_value[l->nsysctls - 1])
			return -ENOMEM;
	}
	return 0;
}

/* `labels`: label -> {sysctl: {name: value}}, or nothing for a label that
 * runs with the values the job found. */
static int parse_labels(struct pctx *x, yaml_node_t *map)
{
	struct job_file *jf = x->jf;
	size_t n;
	char q[80];
	int ret;

	if (map->type != YAML_MAPPING_NODE ||
	    !(n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start)))
		return at(x, map->start_mark,
			  "'labels' takes a mapping of label names, each with its settings, like {base: {}, small: {sysctl: {net.core.rmem_default: 65536}}}");
	if (n > JOB_MAX_LABELS)
		return at(x, map->start_mark, "'labels' names %zu labels: at most %d", n,
			  JOB_MAX_LABELS);
	jf->labels = calloc(n, sizeof(*jf->labels));
	if (!jf->labels)
		return -ENOMEM;
	for (yaml_node_pair_t *pair = map->data.mapping.pairs.start;
	     pair < map->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(x, pair->key), *v = node(x, pair->value);
		struct job_label *l = &jf->labels[jf->nlabels];
		const char *key;

		if ((ret = key_text(x, k, &key)) ||
		    (ret = check_duplicate(x, map, pair)))
			return ret;
		if (!base_label_ok(key))
			return at(x, k->start_mark,
				  "invalid label '%s': expected 1 to %zu printable characters",
				  quoted(key, q, sizeof(q)), SAMPLE_LABEL_MAX);
		l->name = strdup(key);
		if (!l->name)
			return -ENOMEM;
		l->line = (unsigned)k->start_mark.line + 1;
		l->col = (unsigned)k->start_mark.column + 1;
		jf->nlabels++;
		if (is_missing(v))
			continue;
		if (v->type != YAML_MAPPING_NODE)
			return at(x, v->start_mark,
				  "label '%s' takes a mapping like {sysctl: {net.core.rmem_default: 65536}}, or nothing",
				  quoted(key, q, sizeof(q)));
		for (yaml_node_pair_t *lp = v->data.mapping.pairs.start;
		     lp < v->data.mapping.pairs.top; lp++) {
			yaml_node_t *lk = node(x, lp->key), *lv = node(x, lp->value);
			const char *what;

			if ((ret = key_text(x, lk, &what)) ||
			    (ret = check_duplicate(x, v, lp)))
				return ret;
			if (strcmp(what, "sysctl"))
				return at(x, lk->start_mark,
					  "unknown key '%s' in label '%s': expected sysctl",
					  quoted(what, q, sizeof(q)), l->name);
			if (lv->type != YAML_MAPPING_NODE)
				return at(x, lv->start_mark,
					  "'sysctl' takes a mapping of sysctl names to values, like {net.core.rmem_default: 65536}");
			if ((ret = parse_label_sysctls(x, l, lv)))
				return ret;
		}
	}
	return 0;
}

const char *job_label_sysctl(const struct job_label *l, const char *name)
{
	for (size_t i = 0; i < l->nsysctls; i++)
		if (!strcmp(l->sysctl_name[i], name))
			return l->sysctl_value[i];
	return NULL;
}

static bool name_chars(const char *s)
{
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("._-", *s))
			return false;
	return true;
}

static int parse_duration(struct pctx *x, yaml_node_t *v, const char *key,
			  int64_t min, int64_t max, const char *range,
			  int64_t *out)
{
	char expect[96];
	const char *s;
	int64_t ns;
	int ret;

	if ((ret = scalar(x, v, key, &s)))
		return ret;
	if (base_parse_duration_ns(s, &ns, NULL) || ns < min || ns > max) {
		snprintf(expect, sizeof(expect),
			 "expected a duration like 10s or 500ms, from %s", range);
		return bad_value(x, v, key, expect);
	}
	*out = ns;
	return 0;
}

/* A scalar key of the top level. */
static int parse_top_scalar(struct pctx *x, enum top t, yaml_node_t *v)
{
	struct job_file *jf = x->jf;
	const char *key = top_names[t], *s;
	char expect[96];
	uint64_t u;
	int ret;

	switch (t) {
	case T_DURATION:
		return parse_duration(x, v, key, 100 * NS_PER_MS,
				      86400 * NS_PER_S, "100ms to 24h",
				      &jf->duration_ns);
	case T_WARMUP:
		if ((ret = scalar(x, v, key, &s)))
			return ret;
		if (job_parse_warmup(s, &jf->warmup_ns, &jf->warmup_auto, NULL))
			return bad_value(x, v, key,
					 "expected a duration from 0 to 1h (like 2s), auto or auto:MAX");
		return 0;
	case T_INTERVAL:
		if (v->type == YAML_SCALAR_NODE && !strcmp(sval(v), "none")) {
			jf->interval_ns = 0;
			return 0;
		}
		/* checked against the duration once both are known */
		return parse_duration(x, v, key, 0, 86400 * NS_PER_S,
				      "100ms up to the duration, or none",
				      &jf->interval_ns);
	default:
		break;
	}
	if ((ret = scalar(x, v, key, &s)))
		return ret;
	switch (t) {
	case T_NAME:
		if (!*s || strlen(s) > NAME_MAX_LEN || !name_chars(s)) {
			snprintf(expect, sizeof(expect),
				 "expected 1 to %d letters, digits, '.', '_' or '-'",
				 NAME_MAX_LEN);
			return bad_value(x, v, key, expect);
		}
		jf->name = strdup(s);
		return jf->name ? 0 : -ENOMEM;
	case T_LABEL:
		if (!base_label_ok(s)) {
			snprintf(expect, sizeof(expect),
				 "expected 1 to %zu printable characters",
				 SAMPLE_LABEL_MAX);
			return bad_value(x, v, key, expect);
		}
		jf->label = strdup(s);
		return jf->label ? 0 : -ENOMEM;
	case T_REPS:
		if (base_parse_u64(s, 1, JOB_MAX_REPS, &u, NULL)) {
			snprintf(expect, sizeof(expect),
				 "expected an integer from 1 to %d", JOB_MAX_REPS);
			return bad_value(x, v, key, expect);
		}
		jf->reps = (unsigned)u;
		return 0;
	case T_SEED:
		if (base_parse_u64(s, 0, UINT64_MAX, &jf->seed, NULL)) {
			snprintf(expect, sizeof(expect),
				 "expected an integer from 0 to %" PRIu64, UINT64_MAX);
			return bad_value(x, v, key, expect);
		}
		return 0;
	case T_NOFRAG:
		if (base_parse_bool(s, &jf->no_fragmentation, NULL))
			return bad_value(x, v, key, "expected true or false");
		return 0;
	default:
		BUG("not a scalar key: %s", key);
	}
}

static int parse_top(struct pctx *x, yaml_node_t *root)
{
	yaml_node_t *keys[T_COUNT] = { NULL }, *vals[T_COUNT] = { NULL };
	struct job_file *jf = x->jf;
	char q[80];
	int ret;

	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(x, pair->key);
		const char *key;
		int t;

		if ((ret = key_text(x, k, &key)) ||
		    (ret = check_duplicate(x, root, pair)))
			return ret;
		t = find_top(key);
		if (t < 0 && job_pdef_by_yaml(key))
			return at(x, k->start_mark,
				  "unknown key '%s': parameters go under params",
				  key);
		if (t < 0)
			return at(x, k->start_mark, "unknown key '%s'",
				  quoted(key, q, sizeof(q)));
		keys[t] = k;
		vals[t] = node(x, pair->value);
	}
	for (int t = 0; t < T_COUNT; t++) {
		if (!vals[t])
			continue;
		switch (t) {
		case T_COLLECT:
			ret = parse_collect(x, vals[t]);
			break;
		case T_PARAMS:
			ret = parse_params(x, keys[t], vals[t]);
			break;
		case T_EXCLUDE:
			ret = parse_exclude(x, vals[t]);
			break;
		case T_LABELS:
			if (vals[T_LABEL])
				return at(x, keys[t]->start_mark,
					  "'labels' and 'label' exclude each other: 'label' names the one label of a job, 'labels' several");
			ret = parse_labels(x, vals[t]);
			break;
		default:
			ret = parse_top_scalar(x, t, vals[t]);
			break;
		}
		if (ret)
			return ret;
	}
	if (jf->interval_ns && (jf->interval_ns < 100 * NS_PER_MS ||
				jf->interval_ns > jf->duration_ns))
		return bad_value(x, vals[T_INTERVAL], "interval",
				 "expected a duration from 100ms up to the duration, or none");
	return 0;
}

/* Line and column of a byte offset, for the reader's errors. */
static yaml_mark_t mark_of_offset(const struct pctx *x, size_t off)
{
	yaml_mark_t m = { 0 };

	for (size_t i = 0; i < off && i < x->len; i++) {
		if (x->text[i] == '\n') {
			m.line++;
			m.column = 0;
		} else if (((unsigned char)x->text[i] & 0xc0) != 0x80) {
			m.column++;
		}
	}
	return m;
}

/* The byte at a mark (line, column in characters), or 0 past the end. */
static char char_at(const struct pctx *x, yaml_mark_t m)
{
	size_t i = 0, line = 0, col = 0;

	while (i < x->len && line < m.line)
		if (x->text[i++] == '\n')
			line++;
	for (; i < x->len && x->text[i] != '\n'; i++) {
		if (((unsigned char)x->text[i] & 0xc0) == 0x80)
			continue;
		if (col++ == m.column)
			return x->text[i];
	}
	return 0;
}

static int yaml_error(struct pctx *x, const yaml_parser_t *parser)
{
	yaml_mark_t m = parser->problem_mark;
	const char *problem = parser->problem ? parser->problem : "unknown error";

	if (parser->error == YAML_MEMORY_ERROR)
		return -ENOMEM;
	if (parser->error == YAML_READER_ERROR)
		return at(x, mark_of_offset(x, parser->problem_offset),
			  "invalid yaml: %s", problem);
	if (char_at(x, m) == '\t')
		return at(x, m, "invalid yaml: a tab character: indent with spaces");
	if (parser->context)
		return at(x, m, "invalid yaml: %s (%s at line %zu column %zu)",
			  problem, parser->context, parser->context_mark.line + 1,
			  parser->context_mark.column + 1);
	return at(x, m, "invalid yaml: %s", problem);
}

static uint64_t draw_seed(void)
{
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) == (ssize_t)sizeof(s))
		return s;
	/* no entropy yet (early boot): the clock and the pid, mixed */
	s = (uint64_t)base_wall_ns() ^ ((uint64_t)getpid() << 32);
	s = (s ^ (s >> 30)) * 0xbf58476d1ce4e5b9ULL;
	s = (s ^ (s >> 27)) * 0x94d049bb133111ebULL;
	return s ^ (s >> 31);
}

void job_file_free(struct job_file *jf)
{
	if (!jf)
		return;
	for (size_t i = 0; i < jf->nparams; i++) {
		struct job_param *p = &jf->params[i];

		for (size_t j = 0; j < p->nvalues; j++) {
			if (p->text)
				free(p->text[j]);
			if (p->value)
				value_release(&p->value[j]);
		}
		free(p->text);
		free(p->value);
	}
	free(jf->params);
	for (size_t i = 0; i < jf->nexclude; i++)
		rule_release(&jf->exclude[i]);
	free(jf->exclude);
	for (size_t i = 0; jf->labels && i < jf->nlabels; i++) {
		struct job_label *l = &jf->labels[i];

		for (size_t j = 0; j < l->nsysctls; j++) {
			free(l->sysctl_name[j]);
			free(l->sysctl_value[j]);
		}
		free(l->sysctl_name);
		free(l->sysctl_value);
		free(l->name);
	}
	free(jf->labels);
	free(jf->path);
	free(jf->name);
	free(jf->label);
	free(jf);
}

int job_file_parse(const char *text, size_t len, const char *name,
		   struct job_file **out, struct base_err *err)
{
	struct pctx x = { .name = name, .text = text, .len = len, .err = err };
	yaml_document_t doc, next;
	yaml_parser_t parser;
	bool have_parser = false, have_doc = false;
	yaml_node_t *root, *root2;
	struct job_file *jf;
	int ret = -ENOMEM;

	*out = NULL;
	jf = calloc(1, sizeof(*jf));
	if (!jf || !(jf->path = strdup(name)))
		goto out;
	x.jf = jf;
	jf->reps = 5;
	jf->duration_ns = 10 * NS_PER_S;
	jf->warmup_ns = 2 * NS_PER_S;
	jf->collect.counters = jf->collect.perf = jf->collect.xcpu = true;
	jf->seed_chosen = true;
	if (!yaml_parser_initialize(&parser))
		goto out;
	have_parser = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		ret = yaml_error(&x, &parser);
		goto out;
	}
	have_doc = true;
	x.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		ret = base_err_set(err, -EINVAL,
				   "%s:1:1: empty job file: expected a mapping with params, repetitions...",
				   name);
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		ret = at(&x, root->start_mark,
			 "a job file is a mapping of keys like params and repetitions");
		goto out;
	}
	if (!yaml_parser_load(&parser, &next)) {
		ret = yaml_error(&x, &parser);
		goto out;
	}
	root2 = yaml_document_get_root_node(&next);
	if (root2) {
		ret = at(&x, next.start_mark,
			 "a second yaml document: a job file holds one");
		yaml_document_delete(&next);
		goto out;
	}
	yaml_document_delete(&next);
	for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
	     pair < root->data.mapping.pairs.top; pair++) {
		yaml_node_t *k = node(&x, pair->key);

		if (k->type == YAML_SCALAR_NODE && !strcmp(sval(k), "seed"))
			jf->seed_chosen = false;
	}
	if ((ret = parse_top(&x, root)))
		goto out;
	if (jf->seed_chosen)
		jf->seed = draw_seed();
	*out = jf;
	jf = NULL;
	ret = 0;
out:
	if (ret == -ENOMEM)
		base_err_set(err, -ENOMEM, "%s: out of memory", name);
	if (have_doc)
		yaml_document_delete(&doc);
	if (have_parser)
		yaml_parser_delete(&parser);
	job_file_free(jf);
	return ret;
}

int job_file_load(const char *path, struct job_file **out,
		  struct base_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	bool more;
	int fd, ret;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return base_err_set(err, -errno, "cannot open job file '%s': %s",
				    path, strerror(errno));
	buf = malloc(JOB_FILE_MAX_BYTES);
	if (!buf) {
		ret = base_err_set(err, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if ((ret = base_read_fd(fd, buf, JOB_FILE_MAX_BYTES, &len, &more))) {
		base_err_set(err, ret, "cannot read job file '%s': %s", path, strerror(-ret));
		goto out;
	}
	if (more) {
		ret = base_err_set(err, -EFBIG,
				   "%s: larger than %d bytes: a job file holds a matrix, not data",
				   path, JOB_FILE_MAX_BYTES);
		goto out;
	}
	ret = job_file_parse(buf, len, path, out, err);
out:
	free(buf);
	close(fd);
	return ret;
}

int job_file_param_index(const struct job_file *jf, const char *name)
{
	for (size_t i = 0; i < jf->nparams; i++)
		if (!strcmp(jf->params[i].name, name))
			return (int)i;
	return -1;
}

void job_cells_free(struct job_cell *cells, size_t ncells)
{
	if (!cells)
		return;
	for (size_t i = 0; i < ncells; i++) {
		free(cells[i].value);
		free(cells[i].desc);
	}
	free(cells);
}

static bool excluded(const struct job_file *jf, const size_t *idx)
{
	for (size_t r = 0; r < jf->nexclude; r++) {
		const struct job_rule *rule = &jf->exclude[r];
		size_t k;

		for (k = 0; k < rule->nkeys; k++)
			if (!rule->keys[k].hit[idx[rule->keys[k].param]])
				break;
		if (k == rule->nkeys)
			return true;
	}
	return false;
}

/*
 * Whether a UDP cell's datagrams exceed the MTU and so would be fragmented
 * (with udp_gso the kernel refuses them instead: the cell is dropped too).
 * Checked before finalize, on what the file set: an unset message size
 * takes the test's default, which fits a 1500-byte MTU.
 */
static bool udp_fragments(const struct job_config *c)
{
	uint64_t mtu, room, msg;

	if (!job_test_is_udp(c->test))
		return false;
	mtu = job_config_is_veth(c) ? (c->mtu ? c->mtu : 1500) : LOOPBACK_MTU;
	room = mtu - (c->ipv == 6 ? UDP6_OVERHEAD : UDP4_OVERHEAD);
	if (job_test_kind(c->test) == JOB_KIND_STREAM)
		/* udp_gso: the kernel cuts each send into datagrams this big */
		msg = c->udp_gso ? c->udp_gso : c->msg_bytes;
	else
		msg = c->req_bytes > c->resp_bytes ? c->req_bytes : c->resp_bytes;
	return msg > room;
}

static bool next_combination(const struct job_file *jf, size_t *idx)
{
	for (size_t p = jf->nparams; p-- > 0;) {
		if (++idx[p] < jf->params[p].nvalues)
			return true;
		idx[p] = 0;
	}
	return false;
}

/* "ipv=4 mtu=1500": the axis values of a combination, as written. */
static char *describe(const struct job_file *jf, const size_t *idx)
{
	size_t len = 1, off = 0;
	char *s;

	for (size_t p = 0; p < jf->nparams; p++)
		if (jf->params[p].axis)
			len += strlen(jf->params[p].name) + 2 +
			       strlen(jf->params[p].text[idx[p]]);
	s = malloc(len);
	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t p = 0; p < jf->nparams; p++) {
		const struct job_param *jp = &jf->params[p];
		int n;

		if (!jp->axis)
			continue;
		n = snprintf(s + off, len - off, "%s%s=%s", off ? " " : "",
			     jp->name, jp->text[idx[p]]);
		if (n > 0)
			off += (size_t)n;
	}
	return s;
}

int job_file_expand(const struct job_file *jf, const struct base_cpulist *allowed,
		    struct job_cell **cells, size_t *ncells,
		    struct base_err *err)
{
	struct job_cell *out = NULL;
	size_t n = 0, cap = 0;
	size_t *idx;
	struct job_config c;
	struct base_err why;
	int ret = -ENOMEM;

	*cells = NULL;
	*ncells = 0;
	idx = calloc(jf->nparams ? jf->nparams : 1, sizeof(*idx));
	if (!idx)
		goto out;
	do {
		struct job_cell *cell;

		if (excluded(jf, idx))
			continue;
		job_config_init(&c);
		c.duration_ns = jf->duration_ns;
		c.warmup_ns = jf->warmup_ns;
		c.warmup_auto = jf->warmup_auto;
		c.interval_ns = jf->interval_ns;
		c.profile = jf->collect.profile;
		for (size_t p = 0; p < jf->nparams; p++)
			job_pdef_set(job_pdef_by_yaml(jf->params[p].name), &c,
				     &jf->params[p].value[idx[p]]);
		if (jf->no_fragmentation && udp_fragments(&c))
			continue;
		if (n == JOB_MAX_CELLS) {
			ret = base_err_set(err, -EINVAL,
					   "%s: more than %d cells remain after excludes: split the job",
					   jf->path, JOB_MAX_CELLS);
			goto out;
		}
		if (job_config_finalize(&c, allowed, &why)) {
			char *desc = describe(jf, idx);

			if (!desc)
				goto out;
			if (*desc)
				ret = base_err_set(err, -EINVAL,
						   "%s: combination %s: %s",
						   jf->path, desc, why.msg);
			else
				ret = base_err_set(err, -EINVAL, "%s: %s",
						   jf->path, why.msg);
			free(desc);
			goto out;
		}
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct job_cell *grown = realloc(out, ncap * sizeof(*out));

			if (!grown)
				goto out;
			out = grown;
			cap = ncap;
		}
		cell = &out[n];
		cell->cfg = c;
		cell->desc = describe(jf, idx);
		cell->value = malloc((jf->nparams ? jf->nparams : 1) *
				     sizeof(*cell->value));
		n++;
		if (!cell->desc || !cell->value)
			goto out;
		memcpy(cell->value, idx, jf->nparams * sizeof(*idx));
	} while (next_combination(jf, idx));
	if (!n) {
		ret = base_err_set(err, -EINVAL,
				   "%s: every combination is excluded", jf->path);
		goto out;
	}
	*cells = out;
	*ncells = n;
	out = NULL;
	n = 0;
	ret = 0;
out:
	if (ret == -ENOMEM)
		base_err_set(err, -ENOMEM, "%s: out of memory", jf->path);
	job_cells_free(out, n);
	free(idx);
	return ret;
}
