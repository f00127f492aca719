// SPDX-License-Identifier: GPL-2.0-only
/* `netregress compare A B`: the A/B table of every shared configuration. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "job/config.h"
#include "report/report.h"
#include "stats/table.h"
#include "store/store.h"

static const char compare_help[] =
	"usage: netregress compare [options] A B\n"
	"\n"
	"Compares the samples of label B against label A for every configuration\n"
	"both have: the headline metric of each test first (throughput, transactions\n"
	"or connections per second), then the other metrics that changed with it.\n"
	"First it names what differs between the environments A and B ran in\n"
	"(kernel, command line, CPU, sysctls, interfaces, host), from the first\n"
	"sample of each: a change that is not the kernel's shows there.\n"
	"Exit status 1 when a headline metric regressed, 0 otherwise. The\n"
	"configurations are one family: their headlines' p values are adjusted\n"
	"together (Benjamini-Hochberg), so that a p significant in one\n"
	"configuration of many is not called on its own.\n"
	"\n"
	"From 4 pairs of runs side by side (a matrix's labels run in rounds), a\n"
	"<headline>.paired row tests the ratios B/A of the pairs.\n"
	"\n"
	"      --db PATH          the store (default $NETREGRESS_DB or ./netregress.db)\n"
	"      --min-change PCT   smallest change that matters (default 2)\n"
	"      --alpha P          significance level of the rank test (default 0.05)\n"
	"      --all              list every metric, not only those that changed\n"
	"      --keep-disturbed   pool samples flagged as disturbed by foreign CPU\n"
	"      --where NAME=VALUE only the configurations whose key has NAME=VALUE\n"
	"                         (repeatable: values of one NAME are alternatives,\n"
	"                         every NAME must hold; msg=64K matches msg=65536);\n"
	"                         the family is the configurations compared\n"
	"      --paired           exit 1 when a .paired row regressed, for the\n"
	"                         configurations that have one (the headline's\n"
	"                         verdict for the others)\n"
	"      --json             one JSON document\n"
	"      --csv              CSV rows\n";

enum { OPT_DB = 256, OPT_MINCH, OPT_ALPHA, OPT_ALL, OPT_JSON, OPT_CSV, OPT_KEEP, OPT_PAIRED,
       OPT_WHERE };

/* The environment lines of one configuration (its first samples of A and
 * B) in *text (free() it): printed when they say something else than the
 * last ones printed, as a matrix's configurations usually ran in one
 * environment a label and the lines then come once, before the first
 * table. */
static int env_text(const struct base_sample *sa, const struct base_sample *sb,
		    const char *a, const char *b, char **text)
{
	size_t len = 0;
	FILE *m = open_memstream(text, &len);

	if (!m)
		return -ENOMEM;
	report_env_diff_text(m, sa, sb, a, b);
	if (fclose(m)) {
		free(*text);
		*text = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* One configuration compared: its table and its environment's lines. */
struct cmp_config {
	struct stats_table t;
	bool built;
	char *env_text;
	json_t *env_json;
};

/*
 * Two labels without a configuration in common: say so, and name what sets
 * apart the nearest two of their configurations (the fewest parameters),
 * which is often one the labels were not meant to differ in: a netregress
 * that records a new parameter, a pinning, a buffer size.
 */
static void no_common(const char *a, const struct cli_keys *ka, const char *b,
		      const struct cli_keys *kb)
{
	char best[512] = "", d[sizeof(best)];
	size_t nbest = SIZE_MAX;

	for (size_t i = 0; i < ka->n; i++)
		for (size_t j = 0; j < kb->n; j++) {
			size_t n = job_key_diff(ka->key[i], kb->key[j], d, sizeof(d));

			if (n < nbest) {
				nbest = n;
				memcpy(best, d, sizeof(best));
			}
		}
	if (nbest == SIZE_MAX)
		cli_error("labels '%s' and '%s' share no configuration (see 'netregress labels')",
			  a, b);
	else
		cli_error("labels '%s' and '%s' share no configuration; the nearest two differ in %zu parameter%s, %s to %s: %s (see 'netregress labels')",
			  a, b, nbest, nbest == 1 ? "" : "s", a, b, best);
}

int cmd_compare(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "min-change", required_argument, NULL, OPT_MINCH },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "keep-disturbed", no_argument, NULL, OPT_KEEP },
		{ "paired", no_argument, NULL, OPT_PAIRED },
		{ "where", required_argument, NULL, OPT_WHERE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_table_opts to;
	struct base_err err = { "" };
	struct cli_keys ka = { 0 }, kb = { 0 };
	struct cli_where where = { 0 };
	char *where_text = NULL;
	const char *db = NULL, *a, *b;
	bool json = false, csv = false, regressed = false, by_pairs = false, found = false;
	size_t paired = 0; /* configurations whose .paired row regressed */
	size_t with_pairs = 0; /* configurations with a .paired row */
	json_t *doc = NULL;
	const char *env_last = NULL;
	char common[4096] = "";
	struct cmp_config *cfg = NULL;
	struct stats_table **tabs = NULL;
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
			if (!cli_double("--min-change", optarg, 0, 1000, &to.cmp.min_change_pct))
				return EXIT_USAGE;
			to.other_min_change_pct = to.cmp.min_change_pct;
			break;
		case OPT_ALPHA:
			if (!cli_double("--alpha", optarg, 1e-6, 0.5, &to.cmp.alpha))
				return EXIT_USAGE;
			break;
		case OPT_ALL:
			to.all = true;
			break;
		case OPT_KEEP:
			to.keep_disturbed = true;
			break;
		case OPT_PAIRED:
			by_pairs = true;
			break;
		case OPT_WHERE:
			if ((ret = cli_where_add(&where, optarg))) {
				code = ret;
				goto out;
			}
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_CSV:
			csv = true;
			break;
		case 'h':
			fputs(compare_help, stdout);
			code = EXIT_OK;
			goto out;
		default:
			if (optopt >= OPT_DB)
				cli_error("option '%s' needs a value", argv[optind - 1]);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			code = cli_usage_hint("compare");
			goto out;
		}
	}
	if (argc - optind != 2) {
		cli_error("compare needs two labels, A and B");
		code = cli_usage_hint("compare");
		goto out;
	}
	if (json && csv) {
		cli_error("--json and --csv exclude each other");
		code = EXIT_USAGE;
		goto out;
	}
	a = argv[optind];
	b = argv[optind + 1];
	if ((ret = cli_db_open(cli_db_path(db), false, &st))) {
		code = ret;
		goto out;
	}
	if (cli_keys_load(st, a, &ka, &err) || cli_keys_load(st, b, &kb, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (!ka.n || !kb.n) {
		cli_error("no samples under label '%s' in %s (see 'netregress labels')",
			  !ka.n ? a : b, cli_db_path(db));
		goto out;
	}
	if (where.n) {
		struct cli_keys both[] = { ka, kb };
		const char *labels[] = { a, b };

		/* the lists move into both[] and back: apply frees what it drops */
		ret = cli_where_apply(&where, both, labels, 2);
		ka = both[0];
		kb = both[1];
		if (ret) {
			code = ret;
			goto out;
		}
		if (!(where_text = cli_where_text(&where))) {
			cli_error("out of memory");
			goto out;
		}
	}
	if (json)
		doc = json_pack("{s:s, s:s, s:f, s:f, s:s?, s:[]}", "a", a, "b", b,
				"alpha", to.cmp.alpha, "min_change_pct",
				to.cmp.min_change_pct, "where", where_text, "configs");
	if (csv)
		report_compare_csv_header(stdout);
	/* every configuration's table first: their headlines are one
	 * family (stats_tables_fdr), then the output */
	cfg = calloc(ka.n ? ka.n : 1, sizeof(*cfg));
	if (!cfg) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ka.n; i++) {
		struct cli_samples sa = { 0 }, sb = { 0 };
		struct cmp_config *c = &cfg[ncommon];

		if (!cli_keys_has(&kb, ka.key[i]))
			continue;
		if (cli_samples_load(st, a, ka.key[i], &sa, &err) ||
		    cli_samples_load(st, b, ka.key[i], &sb, &err)) {
			cli_error("%s", err.msg);
			cli_samples_release(&sa);
			cli_samples_release(&sb);
			goto out;
		}
		ret = stats_table_build(sa.p, sa.n, sb.p, sb.n, &to, &c->t);
		if (!ret) {
			c->built = true;
			ncommon++;
			report_env_within_note(&c->t, sa.p, sa.n, sb.p, sb.n);
			ret = json ? ((c->env_json = report_env_diff_json(sa.p[0], sb.p[0])) ? 0 : -ENOMEM) :
			      csv  ? 0 :
				     env_text(sa.p[0], sb.p[0], a, b, &c->env_text);
		}
		cli_samples_release(&sa);
		cli_samples_release(&sb);
		if (ret) {
			cli_error("cannot compare configuration '%s': %s", ka.key[i],
				  strerror(-ret));
			goto out;
		}
	}
	if (ncommon && !(tabs = malloc(ncommon * sizeof(*tabs)))) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ncommon; i++)
		tabs[i] = &cfg[i].t;
	/* what the configurations compared share: said once, the "config:"
	 * line of each table has the rest */
	if (ncommon > 1 && !json && !csv) {
		const char **keys = malloc(ncommon * sizeof(*keys));

		for (size_t i = 0; keys && i < ncommon; i++)
			keys[i] = cfg[i].t.config_key;
		if (keys)
			job_keys_common(keys, ncommon, common, sizeof(common));
		free(keys);
	}
	if (stats_tables_fdr(tabs, ncommon, &to)) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < ncommon; i++) {
		struct stats_table *t = &cfg[i].t;

		ret = 0;
		if (json) {
			json_t *c = report_compare_json(t);

			/* set_new and append_new take their value even when
			 * they fail */
			if (!c) {
				ret = -ENOMEM;
			} else if (json_object_set_new(c, "environment", json_incref(cfg[i].env_json))) {
				json_decref(c);
				ret = -ENOMEM;
			} else if (json_array_append_new(json_object_get(doc, "configs"), c)) {
				ret = -ENOMEM;
			}
		} else if (csv) {
			report_compare_csv(stdout, t, a, b);
		} else {
			if (!env_last || strcmp(env_last, cfg[i].env_text))
				fputs(cfg[i].env_text, stdout);
			env_last = cfg[i].env_text;
			if (!i && common[0])
				printf("every configuration compared: %s\n\n", common);
			report_compare_table(stdout, t, a, b, common);
		}
		if (ret) {
			cli_error("out of memory");
			goto out;
		}
		regressed |= t->regressed;
		paired += t->paired_regressed;
		with_pairs += t->notes.pairs > 0;
		/* what the exit code follows */
		found |= by_pairs && t->notes.pairs ? t->paired_regressed : t->regressed;
	}
	if (!ncommon) {
		no_common(a, &ka, b, &kb);
		goto out;
	}
	if (json) {
		json_object_set_new(doc, "regressed", json_boolean(regressed));
		json_object_set_new(doc, "paired_regressed", json_integer((json_int_t)paired));
		json_object_set_new(doc, "exit_by", json_string(by_pairs ? "paired" : "headline"));
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!csv) {
		printf("%zu configuration%s compared%s%s%s: %s", ncommon,
		       ncommon == 1 ? "" : "s", where_text ? " (--where " : "",
		       where_text ? where_text : "", where_text ? ")" : "",
		       regressed ? "REGRESSION in a headline metric" :
				   "no headline regression");
		report_paired_summary(stdout, paired, "; ", by_pairs);
		report_fdr_summary(stdout, ncommon, "; ");
		if (by_pairs)
			printf("; --paired: the exit code follows the .paired row where there is one (%zu of %zu)",
			       with_pairs, ncommon);
		putchar('\n');
	}
	code = found ? EXIT_FOUND : EXIT_OK;
out:
	for (size_t i = 0; cfg && i < ncommon; i++) {
		if (cfg[i].built)
			stats_table_release(&cfg[i].t);
		free(cfg[i].env_text);
		json_decref(cfg[i].env_json);
	}
	free(cfg);
	free(tabs);
	json_decref(doc);
	cli_keys_release(&ka);
	cli_keys_release(&kb);
	cli_where_release(&where);
	free(where_text);
	store_close(st);
	return code;
}
