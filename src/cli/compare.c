// SPDX-License-Identifier: GPL-2.0-only
/* `netregress compare A B`: the A/B table of every shared configuration. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "report/report.h"
#include "stats/table.h"
#include "store/store.h"

static const char compare_help[] =
	"usage: netregress compare [options] A B\n"
	"\n"
	"Compares the samples of label B against label A for every configuration\n"
	"both have: the headline metric of each test first (throughput, transactions\n"
	"or connections per second), then the other metrics that changed with it.\n"
	"Exit status 1 when a headline metric regressed, 0 otherwise.\n"
	"\n"
	"      --db PATH          the store (default $NETREGRESS_DB or ./netregress.db)\n"
	"      --min-change PCT   smallest change that matters (default 2)\n"
	"      --alpha P          significance level of the rank test (default 0.05)\n"
	"      --all              list every metric, not only those that changed\n"
	"      --json             one JSON document\n"
	"      --csv              CSV rows\n";

struct keys {
	char **key;
	size_t n, cap;
};

static int collect_key(void *ctx, const struct store_config_row *r)
{
	struct keys *k = ctx;

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

static void keys_release(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->key[i]);
	free(k->key);
}

struct samples {
	struct base_sample *s;
	const struct base_sample **p;
	size_t n, cap;
};

static int collect_sample(void *ctx, const struct base_sample *s, int64_t order)
{
	struct samples *ss = ctx;

	(void)order;
	if (ss->n == ss->cap) {
		size_t ncap = ss->cap ? 2 * ss->cap : 16;
		struct base_sample *p = realloc(ss->s, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ss->s = p;
		ss->cap = ncap;
	}
	if (base_sample_copy(&ss->s[ss->n], s))
		return -ENOMEM;
	ss->n++;
	return 0;
}

static int load(struct store *st, const char *label, const char *key,
		struct samples *ss, struct base_err *err)
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

static void samples_release(struct samples *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		base_sample_release(&ss->s[i]);
	free(ss->s);
	free(ss->p);
	memset(ss, 0, sizeof(*ss));
}

enum { OPT_DB = 256, OPT_MINCH, OPT_ALPHA, OPT_ALL, OPT_JSON, OPT_CSV };

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "min-change", required_argument, NULL, OPT_MINCH },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_table_opts to;
	struct base_err err = { "" };
	struct keys ka = { 0 }, kb = { 0 };
	const char *db = NULL, *a, *b;
	bool json = false, csv = false, regressed = false;
	json_t *doc = NULL;
	size_t ncommon = 0;
	struct store *st = NULL;
	int opt, ret, code = EXIT_RUNTIME;

	stats_table_opts_init(&to);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_DB:
			db = optarg;
			break;
		case OPT_MINCH:
			if (base_parse_double(optarg, 0, 1000, &to.cmp.min_change_pct, &err)) {
				cli_error("invalid --min-change: %s", err.msg);
				return EXIT_USAGE;
			}
			to.other_min_change_pct = to.cmp.min_change_pct;
			break;
		case OPT_ALPHA:
			if (base_parse_double(optarg, 1e-6, 0.5, &to.cmp.alpha, &err)) {
				cli_error("invalid --alpha: %s", err.msg);
				return EXIT_USAGE;
			}
			break;
		case OPT_ALL:
			to.all = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(compare_help, stdout);
			return EXIT_OK;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("compare");
		}
	}
	if (argc - optind != 2) {
		cli_error("compare needs two labels, A and B");
		return cli_usage_hint("compare");
	}
	if (json && csv) {
		cli_error("--json and --csv exclude each other");
		return EXIT_USAGE;
	}
	a = argv[optind];
	b = argv[optind + 1];
	if ((ret = cli_db_open(cli_db_path(db), false, &st)))
		return ret;
	if (store_configs(st, a, collect_key, &ka, &err) ||
	    store_configs(st, b, collect_key, &kb, &err)) {
		cli_error("%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	if (!ka.n || !kb.n) {
		cli_error("no samples under label '%s' in %s (see 'netregress labels')",
			  !ka.n ? a : b, cli_db_path(db));
		goto out;
	}
	if (json)
		doc = json_pack("{s:s, s:s, s:f, s:f, s:[]}", "a", a, "b", b,
				"alpha", to.cmp.alpha, "min_change_pct",
				to.cmp.min_change_pct, "configs");
	if (csv)
		report_compare_csv_header(stdout);
	for (size_t i = 0; i < ka.n; i++) {
		struct samples sa = { 0 }, sb = { 0 };
		struct stats_table t;
		bool both = false;

		for (size_t j = 0; j < kb.n && !both; j++)
			both = !strcmp(ka.key[i], kb.key[j]);
		if (!both)
			continue;
		ncommon++;
		if (load(st, a, ka.key[i], &sa, &err) || load(st, b, ka.key[i], &sb, &err)) {
			cli_error("%s", err.msg);
			samples_release(&sa);
			samples_release(&sb);
			goto out;
		}
		ret = stats_table_build(sa.p, sa.n, sb.p, sb.n, &to, &t);
		if (!ret) {
			if (json)
				json_array_append_new(json_object_get(doc, "configs"),
						      report_compare_json(&t));
			else if (csv)
				report_compare_csv(stdout, &t, a, b);
			else
				report_compare_table(stdout, &t, a, b);
			regressed |= t.regressed;
			stats_table_release(&t);
		}
		samples_release(&sa);
		samples_release(&sb);
		if (ret) {
			cli_error("cannot compare configuration '%s': %s", ka.key[i],
				  strerror(-ret));
			goto out;
		}
	}
	if (!ncommon) {
		cli_error("labels '%s' and '%s' share no configuration (see 'netregress labels')",
			  a, b);
		goto out;
	}
	if (json) {
		json_object_set_new(doc, "regressed", json_boolean(regressed));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!csv) {
		printf("%zu configuration%s compared: %s\n", ncommon,
		       ncommon == 1 ? "" : "s",
		       regressed ? "REGRESSION in a headline metric" :
				   "no headline regression");
	}
	code = regressed ? EXIT_FOUND : EXIT_OK;
out:
	json_decref(doc);
	keys_release(&ka);
	keys_release(&kb);
	store_close(st);
	return code;
}
