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
	"usage: netregress compare [options] A B [C...]\n"
	"\n"
	"Compares the samples of label B against label A for every configuration\n"
	"both have: the headline metric of each test first (throughput, transactions\n"
	"or connections per second), then the other metrics that changed with it.\n"
	"With more labels (at most 64), each is compared with A in turn, and a\n"
	"table of the headlines follows: every configuration, every label's median\n"
	"and its change from A, with the verdict of its table.\n"
	"First it names what differs between the environments A and B ran in\n"
	"(kernel, command line, CPU, sysctls, interfaces, host), from the first\n"
	"sample of each: a change that is not the kernel's shows there.\n"
	"Exit status 1 when a headline metric regressed, 0 otherwise. The\n"
	"configurations of one label against A are one family: their headlines'\n"
	"p values are adjusted together (Benjamini-Hochberg), so that a p\n"
	"significant in one configuration of many is not called on its own.\n"
	"\n"
	"From 4 pairs of runs side by side (a matrix's labels run in rounds), a\n"
	"<headline>.paired row tests the ratios B/A of the pairs.\n"
	"\n"
	"--headline METRIC judges every configuration by another stored metric\n"
	"(throughput.msgs_per_s, latency.p99_us, cpu.service_demand.client_us_per_kb,\n"
	"profile.self.SYMBOL...): its row comes first, its verdict is the table's\n"
	"and the exit code's, and the test's own headline becomes one of the other\n"
	"metrics. Which way is better is the store's (the 'better' column); a\n"
	"metric it calls neutral has no regression until told: METRIC:higher or\n"
	"METRIC:lower (a cost, a profile share: lower). Such a headline has no\n"
	".xcpu_adj row (that fit is the test's rate's). Exit status 2 for a\n"
	"malformed METRIC or a neutral one without its suffix, and, once the\n"
	"store is read, for a configuration compared whose samples of either\n"
	"label lack the metric (--where can leave it out).\n"
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
	"      --headline METRIC[:higher|lower]  the metric judged (default: each\n"
	"                         test's throughput, transactions or connections/s)\n"
	"      --paired           exit 1 when a .paired row regressed, for the\n"
	"                         configurations that have one (the headline's\n"
	"                         verdict for the others)\n"
	"      --json             one JSON document\n"
	"      --csv              CSV rows\n";

/* labels on one command line: the baseline and the others */
#define COMPARE_MAX_LABELS 64

enum { OPT_DB = 256, OPT_MINCH, OPT_ALPHA, OPT_ALL, OPT_JSON, OPT_CSV, OPT_KEEP, OPT_PAIRED,
       OPT_WHERE, OPT_HEADLINE };

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

/* One label against the baseline A: a configuration for each of A's keys
 * (built where this label has it too), and what its tables called. */
struct cmp_pair {
	const char *b;
	struct cli_keys keys;
	struct cmp_config *cfg; /* [ka->n], in A's order */
	size_t ncommon;
	bool none;         /* no configuration in common with A: not compared */
	bool regressed;
	size_t paired;     /* configurations whose .paired row regressed */
	size_t with_pairs; /* configurations with a .paired row */
	bool found;        /* what the exit code follows */
	/* where the headline regressed and where it improved */
	struct report_corner worse, better;
};

static void pair_release(struct cmp_pair *p, size_t n)
{
	for (size_t i = 0; p->cfg && i < n; i++) {
		if (p->cfg[i].built)
			stats_table_release(&p->cfg[i].t);
		free(p->cfg[i].env_text);
		json_decref(p->cfg[i].env_json);
	}
	free(p->cfg);
	cli_keys_release(&p->keys);
}

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

/*
 * The tables of one label against A, for every configuration both have,
 * their headlines adjusted as one family (stats_tables_fdr), and what they
 * called. 0, or an exit code after saying why.
 */
static int pair_build(struct store *st, const char *a, const struct cli_keys *ka,
		      struct cmp_pair *p, const struct stats_table_opts *to, bool json,
		      bool csv, bool by_pairs)
{
	struct base_err err = { "" };
	struct stats_table **tabs;
	int ret;

	if (!(p->cfg = calloc(ka->n ? ka->n : 1, sizeof(*p->cfg)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < ka->n; i++) {
		struct cli_samples sa = { 0 }, sb = { 0 };
		struct cmp_config *c = &p->cfg[i];

		if (!cli_keys_has(&p->keys, ka->key[i]))
			continue;
		if (cli_samples_load(st, a, ka->key[i], &sa, &err) ||
		    cli_samples_load(st, p->b, ka->key[i], &sb, &err)) {
			cli_error("%s", err.msg);
			cli_samples_release(&sa);
			cli_samples_release(&sb);
			return EXIT_RUNTIME;
		}
		ret = stats_table_build(sa.p, sa.n, sb.p, sb.n, to, &c->t);
		if (!ret && to->headline && !stats_table_headline(&c->t)) {
			stats_table_release(&c->t);
			ret = cli_headline_missing(to->headline, ka->key[i], a, &sa, p->b, &sb);
			cli_samples_release(&sa);
			cli_samples_release(&sb);
			return ret;
		}
		if (!ret) {
			c->built = true;
			p->ncommon++;
			report_why_env(&c->t, sa.p[0], sb.p[0]);
			report_env_within_note(&c->t, sa.p, sa.n, sb.p, sb.n);
			ret = json ? ((c->env_json = report_env_diff_json(sa.p[0], sb.p[0])) ? 0 : -ENOMEM) :
			      csv  ? 0 :
				     env_text(sa.p[0], sb.p[0], a, p->b, &c->env_text);
		}
		cli_samples_release(&sa);
		cli_samples_release(&sb);
		if (ret) {
			cli_error("cannot compare configuration '%s': %s", ka->key[i],
				  strerror(-ret));
			return EXIT_RUNTIME;
		}
	}
	if (!p->ncommon) {
		no_common(a, ka, p->b, &p->keys);
		p->none = true;
		return EXIT_RUNTIME;
	}
	if (!(tabs = malloc(p->ncommon * sizeof(*tabs)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0, n = 0; i < ka->n; i++)
		if (p->cfg[i].built)
			tabs[n++] = &p->cfg[i].t;
	ret = stats_tables_fdr(tabs, p->ncommon, to);
	if (!ret)
		ret = report_corner_of((const struct stats_table *const *)tabs, p->ncommon,
				       STATS_REGRESSION, &p->worse);
	if (!ret)
		ret = report_corner_of((const struct stats_table *const *)tabs, p->ncommon,
				       STATS_IMPROVEMENT, &p->better);
	free(tabs);
	if (ret) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (size_t i = 0; i < ka->n; i++) {
		const struct stats_table *t = &p->cfg[i].t;

		if (!p->cfg[i].built)
			continue;
		p->regressed |= t->regressed;
		p->paired += t->paired_regressed;
		p->with_pairs += t->notes.pairs > 0;
		p->found |= by_pairs && t->notes.pairs ? t->paired_regressed : t->regressed;
	}
	return 0;
}

/* One label's comparison as JSON: {"a", "b", "configs": [...], "regressed",
 * "paired_regressed", "regressed_in" and "improved_in": {"n", "pairs",
 * "with"}} (new reference), or NULL when out of memory. */
static json_t *pair_json(const char *a, const struct cli_keys *ka, const struct cmp_pair *p)
{
	json_t *doc = json_pack("{s:s, s:s, s:[], s:b, s:I, s:{s:I, s:s, s:I}, s:{s:I, s:s, s:I}}",
				"a", a, "b", p->b, "configs", "regressed", p->regressed,
				"paired_regressed", (json_int_t)p->paired,
				"regressed_in", "n", (json_int_t)p->worse.n, "pairs", p->worse.pairs,
				"with", (json_int_t)p->worse.with,
				"improved_in", "n", (json_int_t)p->better.n, "pairs", p->better.pairs,
				"with", (json_int_t)p->better.with);
	json_t *arr = doc ? json_object_get(doc, "configs") : NULL;

	for (size_t i = 0; arr && i < ka->n; i++) {
		json_t *c;

		if (!p->cfg[i].built)
			continue;
		/* set_new and append_new take their value even when they fail */
		c = report_compare_json(&p->cfg[i].t);
		if (!c || json_object_set_new(c, "environment", json_incref(p->cfg[i].env_json))) {
			json_decref(c);
			arr = NULL;
		} else if (json_array_append_new(arr, c)) {
			arr = NULL;
		}
	}
	if (!arr) {
		json_decref(doc);
		return NULL;
	}
	return doc;
}

/* One label's comparison as text: the calls and their likely causes, the
 * environment lines where they change, then each configuration's table. */
static void pair_text(const char *a, const struct cli_keys *ka, const struct cmp_pair *p,
		      const char *common, bool say_common)
{
	const char *env_last = NULL;
	bool answered = false;

	/* the answer first: each configuration's call and its likely cause */
	for (size_t i = 0; i < ka->n; i++)
		if (p->cfg[i].built)
			answered |= report_why_answer(stdout, &p->cfg[i].t, common);
	if (answered)
		fputc('\n', stdout);
	for (size_t i = 0; i < ka->n; i++) {
		const struct cmp_config *c = &p->cfg[i];

		if (!c->built)
			continue;
		if (!env_last || strcmp(env_last, c->env_text))
			fputs(c->env_text, stdout);
		if (!env_last && say_common && common[0])
			printf("every configuration compared: %s\n\n", common);
		env_last = c->env_text;
		report_compare_table(stdout, &c->t, a, p->b, common);
	}
}

/* "N configurations compared (--where ...): REGRESSION ...; ..." without
 * the end of the line; headline: --headline's metric, or NULL. */
static void pair_summary(const struct cmp_pair *p, const char *where_text, const char *headline,
			 bool by_pairs, bool fdr)
{
	printf("%zu configuration%s compared%s%s%s: ", p->ncommon,
	       p->ncommon == 1 ? "" : "s", where_text ? " (--where " : "",
	       where_text ? where_text : "", where_text ? ")" : "");
	report_headline_summary(stdout, p->regressed, headline, NULL);
	report_corner_text(stdout, &p->worse, p->ncommon, "the headline regressed");
	report_corner_text(stdout, &p->better, p->ncommon, "it improved");
	report_paired_summary(stdout, p->paired, "; ", by_pairs);
	if (fdr)
		report_fdr_summary(stdout, p->ncommon, "; ");
	if (by_pairs)
		printf("; --paired: the exit code follows the .paired row where there is one (%zu of %zu)",
		       p->with_pairs, p->ncommon);
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
		{ "headline", required_argument, NULL, OPT_HEADLINE },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "csv", no_argument, NULL, OPT_CSV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stats_table_opts to;
	struct base_err err = { "" };
	struct cli_keys ka = { 0 };
	struct cli_where where = { 0 };
	struct cli_headline hl = { "", METRIC_NEUTRAL };
	char *where_text = NULL;
	const char *db = NULL, *a;
	bool json = false, csv = false, by_pairs = false, found = false, regressed = false;
	size_t ncompared = 0; /* labels with a configuration in common with A */
	json_t *doc = NULL;
	char common[4096] = "";
	struct cmp_pair *pairs = NULL;
	size_t npairs = 0;
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
		case OPT_HEADLINE:
			if ((ret = cli_headline_parse(optarg, &hl))) {
				code = ret;
				goto out;
			}
			to.headline = hl.metric;
			to.headline_dir = hl.dir;
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
	if (argc - optind < 2) {
		cli_error("compare needs two labels or more: A, the baseline, and B...");
		code = cli_usage_hint("compare");
		goto out;
	}
	if (argc - optind > COMPARE_MAX_LABELS) {
		cli_error("compare takes at most %d labels, not %d", COMPARE_MAX_LABELS,
			  argc - optind);
		code = EXIT_USAGE;
		goto out;
	}
	for (int i = optind; i < argc; i++)
		for (int j = optind; j < i; j++)
			if (!strcmp(argv[i], argv[j])) {
				cli_error("label '%s' is given twice: each label once, the baseline first",
					  argv[i]);
				code = EXIT_USAGE;
				goto out;
			}
	if (json && csv) {
		cli_error("--json and --csv exclude each other");
		code = EXIT_USAGE;
		goto out;
	}
	a = argv[optind];
	npairs = (size_t)(argc - optind - 1);
	if (!(pairs = calloc(npairs, sizeof(*pairs)))) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t l = 0; l < npairs; l++)
		pairs[l].b = argv[optind + 1 + (int)l];
	if ((ret = cli_db_open(cli_db_path(db), false, &st))) {
		code = ret;
		goto out;
	}
	if (cli_keys_load(st, a, &ka, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	for (size_t l = 0; l < npairs; l++)
		if (cli_keys_load(st, pairs[l].b, &pairs[l].keys, &err)) {
			cli_error("%s", err.msg);
			goto out;
		}
	for (size_t l = 0; l <= npairs; l++)
		if (!(l ? pairs[l - 1].keys.n : ka.n)) {
			cli_error("no samples under label '%s' in %s (see 'netregress labels')",
				  l ? pairs[l - 1].b : a, cli_db_path(db));
			goto out;
		}
	if (where.n) {
		struct cli_keys keys[COMPARE_MAX_LABELS];
		const char *labels[COMPARE_MAX_LABELS];

		/* the lists move into keys[] and back: apply frees what it drops */
		keys[0] = ka;
		labels[0] = a;
		for (size_t l = 0; l < npairs; l++) {
			keys[l + 1] = pairs[l].keys;
			labels[l + 1] = pairs[l].b;
		}
		ret = cli_where_apply(&where, keys, labels, npairs + 1);
		ka = keys[0];
		for (size_t l = 0; l < npairs; l++)
			pairs[l].keys = keys[l + 1];
		if (ret) {
			code = ret;
			goto out;
		}
		if (!(where_text = cli_where_text(&where))) {
			cli_error("out of memory");
			goto out;
		}
	}
	/* every configuration's table first, as the headlines of one label's
	 * configurations are one family (stats_tables_fdr), then the output;
	 * a label without a configuration in common with A is named (and the
	 * exit code says so) while the others are compared */
	for (size_t l = 0; l < npairs; l++) {
		ret = pair_build(st, a, &ka, &pairs[l], &to, json, csv, by_pairs);
		if (ret && !pairs[l].none) {
			code = ret;
			goto out;
		}
		ncompared += !ret;
		regressed |= pairs[l].regressed;
		found |= pairs[l].found;
	}
	if (!ncompared)
		goto out;
	/* what the configurations compared share: said once, the "config:"
	 * line of each table has the rest */
	if (!json && !csv) {
		const char **keys = malloc(ka.n * sizeof(*keys));
		size_t n = 0;

		for (size_t i = 0; keys && i < ka.n; i++) {
			bool any = false;

			for (size_t l = 0; l < npairs; l++)
				any |= pairs[l].cfg[i].built;
			if (any)
				keys[n++] = ka.key[i];
		}
		if (keys && n > 1)
			job_keys_common(keys, n, common, sizeof(common));
		free(keys);
	}
	if (json && npairs == 1) {
		/* two labels: the one comparison is the document */
		if (!(doc = pair_json(a, &ka, &pairs[0])))
			goto oom;
	} else if (json) {
		json_t *arr = json_array();

		if (!(doc = json_pack("{s:s, s:o?}", "baseline", a, "comparisons", arr)))
			goto oom;
		for (size_t l = 0; l < npairs; l++)
			if (!pairs[l].none && json_array_append_new(arr, pair_json(a, &ka, &pairs[l])))
				goto oom;
	} else if (csv) {
		report_compare_csv_header(stdout);
		for (size_t l = 0; l < npairs; l++)
			for (size_t i = 0; i < ka.n; i++)
				if (pairs[l].cfg[i].built)
					report_compare_csv(stdout, &pairs[l].cfg[i].t, a, pairs[l].b);
	} else {
		if (npairs > 1 && common[0])
			printf("every configuration compared: %s\n\n", common);
		for (size_t l = 0; l < npairs; l++) {
			if (npairs > 1 && !pairs[l].none)
				printf("== %s against %s ==\n\n", pairs[l].b, a);
			pair_text(a, &ka, &pairs[l], common, npairs == 1);
		}
	}
	if (json) {
		if (json_object_set_new(doc, "alpha", json_real(to.cmp.alpha)) ||
		    json_object_set_new(doc, "min_change_pct", json_real(to.cmp.min_change_pct)) ||
		    (where_text && json_object_set_new(doc, "where", json_string(where_text))) ||
		    json_object_set_new(doc, "regressed", json_boolean(regressed)) ||
		    (to.headline && json_object_set_new(doc, "headline", json_string(to.headline))) ||
		    json_object_set_new(doc, "exit_by", json_string(by_pairs ? "paired" : "headline")))
			goto oom;
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!csv && npairs == 1) {
		pair_summary(&pairs[0], where_text, to.headline, by_pairs, true);
		putchar('\n');
	} else if (!csv) {
		/* the headlines of the labels compared */
		const struct stats_table **t = calloc(ka.n * ncompared, sizeof(*t));
		const char *labels[COMPARE_MAX_LABELS];
		size_t n = 0;

		if (!t)
			goto oom;
		labels[0] = a;
		for (size_t l = 0; l < npairs; l++) {
			if (pairs[l].none)
				continue;
			for (size_t i = 0; i < ka.n; i++)
				if (pairs[l].cfg[i].built)
					t[i * ncompared + n] = &pairs[l].cfg[i].t;
			labels[++n] = pairs[l].b;
		}
		ret = report_series_table(stdout, t, ka.n, labels, ncompared + 1, common);
		free(t);
		if (ret)
			goto oom;
		for (size_t l = 0; l < npairs; l++) {
			printf("%s against %s: ", pairs[l].b, a);
			if (pairs[l].none)
				fputs("not compared: no configuration in common", stdout);
			else
				pair_summary(&pairs[l], where_text, to.headline, by_pairs, false);
			putchar('\n');
		}
		if (ncompared > 1)
			printf("the headlines of each label against %s are one family (Benjamini-Hochberg over its configurations), as in 'netregress report': over %zu labels, a call by chance somewhere is about %zu times as likely as in one comparison\n",
			       a, ncompared, ncompared);
	}
	code = ncompared < npairs ? EXIT_RUNTIME : found ? EXIT_FOUND : EXIT_OK;
	goto out;
oom:
	cli_error("out of memory");
	code = EXIT_RUNTIME;
out:
	for (size_t l = 0; pairs && l < npairs; l++)
		pair_release(&pairs[l], ka.n);
	free(pairs);
	json_decref(doc);
	cli_keys_release(&ka);
	cli_where_release(&where);
	free(where_text);
	store_close(st);
	return code;
}
