// SPDX-License-Identifier: GPL-2.0-only
/* `labels`, `show`, `import`, `export`: the commands that read and fill the store. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "cli/cli.h"
#include "cli/load.h"
#include "job/config.h"
#include "stats/desc.h"
#include "report/report.h"
#include "stats/table.h"
#include "store/store.h"

const char *cli_db_path(const char *flag)
{
	const char *env = getenv("NETREGRESS_DB");

	if (flag)
		return flag;
	return env && *env ? env : "netregress.db";
}

int cli_db_open(const char *path, bool write, struct store **st)
{
	struct base_err err = { "" };

	if (store_open(path, write ? STORE_CREATE : STORE_READONLY, st, &err)) {
		cli_error("%s", err.msg);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

/* The options every store command takes: --db and --help; --label where
 * label is not NULL, --all where all is not NULL, --where where where is
 * not NULL. */
static int db_opts(int argc, char **argv, const char *usage, const char **db,
		   const char **label, bool *all, struct cli_where *where, int min_args,
		   int max_args)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "label", required_argument, NULL, 'L' },
		{ "all", no_argument, NULL, 'a' },
		{ "where", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			*db = optarg;
			break;
		case 'L':
			if (!label) {
				cli_error("unknown option '--label'");
				return EXIT_USAGE;
			}
			*label = optarg;
			break;
		case 'a':
			if (!all) {
				cli_error("unknown option '--all'");
				return EXIT_USAGE;
			}
			*all = true;
			break;
		case 'w':
			if (!where) {
				cli_error("unknown option '--where'");
				return EXIT_USAGE;
			}
			if ((ret = cli_where_add(where, optarg)))
				return ret;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind < min_args || (max_args >= 0 && argc - optind > max_args)) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	return EXIT_OK;
}

/* labels: one label's rows, printed when the next label starts. */
struct labels_ctx {
	char *label;
	struct store_config_row *rows; /* their keys owned; label: the one above */
	size_t n, cap;
	bool keys; /* --keys: every row its whole key */
	char **only; /* the labels asked for (none: all) */
	size_t nonly;
	bool *seen; /* [nonly] */
};

static void fmt_when(int64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;

	if (ns <= 0 || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "?");
}

/*
 * A label's line (its samples, configurations and when they ran), then
 * its configurations: with two or more, the parameters they all share
 * once and each row the rest, the parameters a --where picks them by.
 */
static void labels_flush(struct labels_ctx *c)
{
	char common[4096] = "", rest[4096], first[32], last[32];
	int64_t lo = INT64_MAX, hi = INT64_MIN, samples = 0;
	const char **keys;

	if (!c->n)
		return;
	keys = malloc(c->n * sizeof(*keys));
	for (size_t i = 0; i < c->n; i++) {
		const struct store_config_row *r = &c->rows[i];

		samples += r->nsamples;
		lo = r->first_started_at_ns < lo ? r->first_started_at_ns : lo;
		hi = r->last_started_at_ns > hi ? r->last_started_at_ns : hi;
		if (keys)
			keys[i] = r->config_key;
	}
	fmt_when(lo, first, sizeof(first));
	fmt_when(hi, last, sizeof(last));
	/* the same day: its date once */
	printf("%s: %lld sample%s in %zu configuration%s, %s to %s\n", c->label,
	       (long long)samples, samples == 1 ? "" : "s", c->n, c->n == 1 ? "" : "s", first,
	       strlen(first) == 16 && !strncmp(first, last, 11) ? last + 11 : last);
	if (keys && c->n > 1 && !c->keys && job_keys_common(keys, c->n, common, sizeof(common)))
		printf("  every configuration: %s\n", common);
	for (size_t i = 0; i < c->n; i++) {
		const struct store_config_row *r = &c->rows[i];

		job_key_without(r->config_key, common, rest, sizeof(rest));
		printf("  %4lld sample%s%s  %s\n", (long long)r->nsamples,
		       r->nsamples == 1 ? " " : "s", r->nfingerprints > 1 ? " (environment changed)" : "",
		       rest);
		free((void *)r->config_key);
	}
	free(keys);
	c->n = 0;
}

static int labels_row(void *ctx, const struct store_config_row *r)
{
	struct labels_ctx *c = ctx;
	struct store_config_row *row;
	size_t i = 0;

	while (i < c->nonly && strcmp(c->only[i], r->label))
		i++;
	if (c->nonly && i == c->nonly)
		return 0;
	if (c->nonly)
		c->seen[i] = true;
	if (c->label && strcmp(c->label, r->label)) {
		labels_flush(c);
		free(c->label);
		c->label = NULL;
	}
	if (!c->label && !(c->label = strdup(r->label)))
		return -ENOMEM;
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		struct store_config_row *p = realloc(c->rows, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->rows = p;
		c->cap = ncap;
	}
	row = &c->rows[c->n];
	*row = *r;
	row->label = c->label;
	row->test = NULL;
	if (!(row->config_key = strdup(r->config_key)))
		return -ENOMEM;
	c->n++;
	return 0;
}

int cmd_labels(int argc, char **argv)
{
	static const char usage[] =
		"usage: netregress labels [--db PATH] [--keys] [LABEL...]\n"
		"Lists every label (or those given): its samples, configurations and\n"
		"when they ran, then each configuration's sample count. The parameters\n"
		"all of a label's configurations share come once, and each row has the\n"
		"rest, the ones compare's --where picks configurations by (--keys: each\n"
		"row its whole configuration key).\n";
	static const struct option opts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "keys", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct labels_ctx c = { 0 };
	const char *db = NULL;
	struct base_err err = { "" };
	struct store *st = NULL;
	int opt, ret, code = EXIT_RUNTIME;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'k':
			c.keys = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return EXIT_OK;
		default:
			if (optopt == 'd')
				cli_error("option '%s' needs a value", argv[optind - 1]);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			fputs(usage, stderr);
			return EXIT_USAGE;
		}
	}
	c.only = &argv[optind];
	c.nonly = (size_t)(argc - optind);
	if (c.nonly && !(c.seen = calloc(c.nonly, sizeof(*c.seen)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	if ((code = cli_db_open(cli_db_path(db), false, &st)))
		goto out;
	code = EXIT_RUNTIME;
	ret = store_labels(st, labels_row, &c, &err);
	if (ret == -ENOMEM)
		base_err_set(&err, ret, "out of memory");
	if (ret) {
		cli_error("%s", err.msg);
		goto out;
	}
	labels_flush(&c);
	code = EXIT_OK;
	for (size_t i = 0; i < c.nonly && code == EXIT_OK; i++) {
		if (c.seen[i])
			continue;
		cli_error("no samples under label '%s' in %s (see 'netregress labels')", c.only[i],
			  cli_db_path(db));
		code = EXIT_RUNTIME;
	}
out:
	for (size_t i = 0; i < c.n; i++)
		free((void *)c.rows[i].config_key);
	free(c.rows);
	free(c.label);
	free(c.seen);
	store_close(st);
	return code;
}

struct show_ctx {
	const char *label;
	bool headed; /* the "label:" line is out */
	struct base_sample *s;
	size_t n, cap;
	char key[1024];
	bool all; /* --all: the metrics that were 0 in every sample too */
	const struct cli_where *where; /* --where: the configurations shown */
	char common[4096]; /* what they all share, said once ("": one) */
	int ret;
};

/* show's "what went with the headline": at most this many rows, at this q */
#define SHOW_EXPLAIN_TOP 8
#define SHOW_EXPLAIN_Q 0.05

/*
 * The CPUs' distance (report_windows_spread) over the samples compare
 * would use: not flagged disturbed (all of them when every one is), each
 * with its headline, its window and its host.xcpu_ns. From the samples
 * alone when one of them has no window; nothing when one has no headline.
 */
static int show_windows(const struct base_sample *s, size_t n, const char *test)
{
	const char *headline = stats_headline_metric(test);
	struct stats_window *w = malloc((n ? n : 1) * sizeof(*w));
	double *y = malloc((n ? n : 1) * sizeof(*y));
	double *x = malloc((n ? n : 1) * sizeof(*x));
	size_t k = 0, clean = 0;
	bool windows = true;
	int ret = 0;

	if (!w || !y || !x) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		clean += !cli_disturbed(&s[i]);
	for (size_t i = 0; i < n; i++) {
		const struct sample_metric *m = base_sample_get(&s[i], headline);

		if (clean && cli_disturbed(&s[i]))
			continue;
		if (!m)
			goto out;
		windows = windows && stats_sample_window(&s[i], &w[k]);
		x[k] = base_sample_value(&s[i], "host.xcpu_ns");
		y[k++] = m->value;
	}
	ret = report_windows_spread(stdout, y, windows ? w : NULL, x, k);
	if (ret > 0) {
		putchar('\n');
		ret = 0;
	}
out:
	free(w);
	free(y);
	free(x);
	return ret;
}

/* A metric's row in show: its name, unit and figures over the samples. */
struct show_metric {
	const char *name, *unit;
	double med, sd, lo, hi;
	size_t k;
};

/* Whether sample i is the first of s[0..i] to have the metric name. */
static bool first_with(const struct base_sample *s, size_t i, const char *name)
{
	for (size_t j = 0; j < i; j++)
		if (base_sample_get(&s[j], name))
			return false;
	return true;
}

/* The metric's figures over the samples that have a finite value of it
 * (k = 0: none has). */
static void show_metric_of(const struct base_sample *s, size_t n, const struct sample_metric *m,
			   double *v, struct show_metric *r)
{
	*r = (struct show_metric){ m->name, m->unit, NAN, NAN, INFINITY, -INFINITY, 0 };
	for (size_t i = 0; i < n; i++) {
		const struct sample_metric *mm = base_sample_get(&s[i], m->name);
		/* a profile share under the threshold of a profiled sample is 0 */
		double x = mm ? mm->value : base_sample_share_below(&s[i], m->name) ? 0 : NAN;

		if (isfinite(x)) {
			v[r->k++] = x;
			r->lo = fmin(r->lo, x);
			r->hi = fmax(r->hi, x);
		}
	}
	if (!r->k)
		return;
	stats_median(v, r->k, &r->med);
	if (r->k < 2 || stats_cv_pct(v, r->k, &r->sd))
		r->sd = NAN;
}

/* The congestion control the samples' tcp senders reported (env tcp.cc:
 * the key says cc=default), each name with its samples; nothing when none
 * reported one. */
static void show_cc(const struct base_sample *s, size_t n)
{
	const struct base_sample **p = malloc(n * sizeof(*p));
	char buf[256];

	if (!p) {
		cli_error("out of memory: the tcp congestion control is not shown");
		return;
	}
	for (size_t i = 0; i < n; i++)
		p[i] = &s[i];
	if (report_env_tally(p, n, "tcp.cc", buf, sizeof(buf)))
		printf("tcp congestion control, as the senders' sockets reported it:%s of %zu samples\n",
		       buf, n);
	free(p);
}

/* Print one configuration's summary: every metric's median and spread
 * (every metric any sample has, in the order the samples name them; those
 * that were 0 in every sample only with all), then what went with the
 * headline from sample to sample. */
static void show_flush(struct show_ctx *c)
{
	const struct base_sample *first;
	struct show_metric *rows = NULL;
	size_t nrows = 0, cap = 0, zero = 0;
	int width = 40;
	const char *test;
	double *v;

	if (!c->n)
		return;
	/* configurations come one after the other as the store reads them:
	 * the label's line goes before the first */
	if (!c->headed) {
		printf("label: %s\n\n", c->label);
		if (c->common[0])
			printf("every configuration shown: %s\n\n", c->common);
		c->headed = true;
	}
	first = &c->s[0];
	v = malloc(c->n * sizeof(*v));
	for (size_t i = 0; v && i < c->n; i++)
		for (size_t m = 0; m < c->s[i].nmetrics; m++) {
			const struct sample_metric *sm = &c->s[i].metrics[m];
			struct show_metric r;

			if (!first_with(c->s, i, sm->name))
				continue;
			show_metric_of(c->s, c->n, sm, v, &r);
			if (!r.k)
				continue;
			if (r.lo == 0 && r.hi == 0 && !c->all) {
				zero++;
				continue;
			}
			if (nrows == cap) {
				size_t ncap = cap ? 2 * cap : 64;
				struct show_metric *p = realloc(rows, ncap * sizeof(*p));

				if (!p) {
					cli_error("out of memory: the metrics are not all shown");
					goto print;
				}
				rows = p;
				cap = ncap;
			}
			rows[nrows++] = r;
			if ((int)strlen(r.name) > width)
				width = (int)strlen(r.name);
		}
print:
	if (c->common[0]) {
		char rest[sizeof(c->key)];

		job_key_without(first->config_key, c->common, rest, sizeof(rest));
		printf("config: %s\n", rest);
	} else {
		printf("config: %s\n", first->config_key);
	}
	show_cc(c->s, c->n);
	printf("%-*s %12s %9s %4s %12s %12s  %s\n", width, "metric", "median", "±%sd",
	       "n", "min", "max", "unit");
	for (size_t i = 0; i < nrows; i++) {
		const struct show_metric *r = &rows[i];

		printf("%-*s %12.5g %8.1f%% %4zu %12.5g %12.5g  %s\n", width, r->name, r->med,
		       isnan(r->sd) ? 0.0 : r->sd, r->k, r->lo, r->hi, r->unit);
	}
	if (zero)
		printf("(%zu other metric%s 0 in every sample; --all lists them)\n", zero,
		       zero == 1 ? " was" : "s were");
	if (!v)
		cli_error("out of memory: the metrics are not shown");
	free(rows);
	free(v);
	putchar('\n');
	test = base_sample_param_get(first, "test", NULL);
	if (test && show_windows(c->s, c->n, test) < 0)
		cli_error("out of memory: the CPUs' distance within the windows is not shown");
	if (test && report_explain(stdout, c->s, c->n, test, SHOW_EXPLAIN_TOP,
				   SHOW_EXPLAIN_Q))
		cli_error("out of memory: what went with the headline is not shown");
	for (size_t i = 0; i < c->n; i++)
		base_sample_release(&c->s[i]);
	c->n = 0;
}

static int show_row(void *ctx, const struct base_sample *s, int64_t run_order)
{
	struct show_ctx *c = ctx;

	(void)run_order;
	if (!cli_where_match(c->where, s->config_key))
		return 0;
	if (c->n && strcmp(c->key, s->config_key))
		show_flush(c);
	if (c->n == c->cap) {
		size_t ncap = c->cap ? c->cap * 2 : 16;
		struct base_sample *p = realloc(c->s, ncap * sizeof(*p));

		if (!p)
			return c->ret = -ENOMEM;
		c->s = p;
		c->cap = ncap;
	}
	if (base_sample_copy(&c->s[c->n], s))
		return c->ret = -ENOMEM;
	c->n++;
	snprintf(c->key, sizeof(c->key), "%s", s->config_key);
	return 0;
}

int cmd_show(int argc, char **argv)
{
	static const char usage[] =
		"usage: netregress show [--db PATH] [--all] [--where NAME=VALUE]... LABEL\n"
		"Prints a label's summary: per configuration, each metric's median,\n"
		"%stddev, sample count, min and max (--all: also the metrics that\n"
		"were 0 in every sample), and the tcp congestion control the\n"
		"senders ran; with 4 samples or more that kept\n"
		"their windows, how the rate went with the CPUs' distance within them;\n"
		"with 5 samples or more, the metrics that went with the headline from\n"
		"sample to sample (Kendall's tau, Benjamini-Hochberg q < 0.05).\n"
		"--where NAME=VALUE (repeatable) shows only the configurations whose\n"
		"key has it, as in compare.\n";
	struct show_ctx c = { 0 };
	struct base_err err = { "" };
	struct cli_where where = { 0 };
	struct cli_keys keys = { 0 };
	const char *db = NULL;
	struct store *st = NULL;
	int ret, code = EXIT_RUNTIME;

	ret = db_opts(argc, argv, usage, &db, NULL, &c.all, &where, 1, 1);
	if (ret) {
		code = ret < 0 ? EXIT_OK : ret;
		goto out;
	}
	if ((code = cli_db_open(cli_db_path(db), false, &st)))
		goto out;
	c.label = argv[optind];
	c.where = &where;
	/* a --where that names nothing the label has is refused, as compare
	 * refuses it */
	if ((ret = cli_keys_load(st, c.label, &keys, &err))) {
		cli_error("%s", err.msg);
		code = EXIT_RUNTIME;
		goto out;
	}
	if (keys.n && (code = cli_where_apply(&where, &keys, &c.label, 1)))
		goto out;
	/* the configurations shown: what they share comes once */
	if (keys.n > 1)
		job_keys_common((const char *const *)keys.key, keys.n, c.common, sizeof(c.common));
	ret = store_load_samples(st, argv[optind], NULL, show_row, &c, &err);
	if (!ret && !c.n && !c.ret) {
		cli_error("no samples under label '%s' in %s (see 'netregress labels')",
			  argv[optind], cli_db_path(db));
		ret = -ENOENT;
	} else if (ret && c.ret) {
		cli_error("out of memory");
	} else if (ret) {
		cli_error("%s", err.msg);
	}
	if (!ret)
		show_flush(&c);
	code = ret ? EXIT_RUNTIME : EXIT_OK;
out:
	for (size_t i = 0; i < c.n; i++)
		base_sample_release(&c.s[i]);
	free(c.s);
	cli_keys_release(&keys);
	cli_where_release(&where);
	store_close(st);
	return code;
}

int cmd_import(int argc, char **argv)
{
	static const char usage[] =
		"usage: netregress import [--db PATH] FILE.json...\n"
		"Loads result documents (one, a JSON array, or JSON lines) produced\n"
		"by 'run --json' or 'export'. Samples already stored are skipped.\n";
	const char *db = NULL;
	struct store *st;
	int ret, code = EXIT_OK;

	ret = db_opts(argc, argv, usage, &db, NULL, NULL, NULL, 1, -1);
	if (ret)
		return ret < 0 ? EXIT_OK : ret;
	if ((ret = cli_db_open(cli_db_path(db), true, &st)))
		return ret;
	for (int i = optind; i < argc; i++) {
		struct base_err err = { "" };
		size_t added = 0, skipped = 0;

		if (store_import_file(st, argv[i], &added, &skipped, &err)) {
			cli_error("%s", err.msg);
			code = EXIT_RUNTIME;
			continue;
		}
		printf("%s: %zu sample%s added, %zu already stored\n", argv[i],
		       added, added == 1 ? "" : "s", skipped);
	}
	store_close(st);
	return code;
}

static bool export_keep(void *ctx, const char *config_key)
{
	return cli_where_match(ctx, config_key);
}

int cmd_export(int argc, char **argv)
{
	static const char usage[] =
		"usage: netregress export [--db PATH] [--label LABEL] [--where NAME=VALUE]...\n"
		"Writes stored samples as JSON lines on stdout, for 'import'; --where\n"
		"(repeatable, as in compare) only those of the configurations that have it.\n";
	struct base_err err = { "" };
	struct cli_where where = { 0 };
	struct cli_keys keys = { 0 };
	const char *db = NULL, *label = NULL, *of;
	struct store *st = NULL;
	int ret, code = EXIT_RUNTIME;

	ret = db_opts(argc, argv, usage, &db, &label, NULL, &where, 0, 0);
	if (ret) {
		code = ret < 0 ? EXIT_OK : ret;
		goto out;
	}
	if ((code = cli_db_open(cli_db_path(db), false, &st)))
		goto out;
	code = EXIT_RUNTIME;
	/* a term that names nothing stored is refused, as compare refuses it */
	of = label ? label : cli_db_path(db);
	if (where.n && (ret = cli_keys_load(st, label, &keys, &err))) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (where.n && keys.n && (code = cli_where_apply(&where, &keys, &of, 1)))
		goto out;
	if ((ret = store_export_where(st, label, where.n ? export_keep : NULL, &where, stdout,
				      &err))) {
		cli_error("%s", err.msg);
		code = EXIT_RUNTIME;
		goto out;
	}
	code = EXIT_OK;
out:
	cli_keys_release(&keys);
	cli_where_release(&where);
	store_close(st);
	return code;
}
