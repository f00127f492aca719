// SPDX-License-Identifier: GPL-2.0-only
/* `netregress report LABEL...`: one HTML page (or Markdown) of labels, their axes and their comparison. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/load.h"
#include "report/page.h"
#include "report/report.h"
#include "stats/table.h"
#include "store/store.h"

static const char report_help[] =
	"usage: netregress report [options] LABEL [LABEL...]\n"
	"\n"
	"Writes one report of the labels' samples: their environments side by side\n"
	"(differences highlighted), a summary, the headline metric against each axis\n"
	"of the matrix (every parameter that varies between configurations; each\n"
	"sample a dot, the median a line, one line per label), the compare table of\n"
	"every other label against the baseline (sortable), and the latency\n"
	"percentiles of request/response tests on a log scale. The HTML page is\n"
	"self-contained: no network, no external script, style or font.\n"
	"\n"
	"      --db PATH          the store (default $NETREGRESS_DB or ./netregress.db)\n"
	"      --baseline LABEL   the label the others are compared against (default:\n"
	"                         the first; added to the labels when not among them)\n"
	"      --format FMT       html (default) or md (the tables as Markdown)\n"
	"  -o, --output FILE      where to write; default report.html for html and the\n"
	"                         standard output for md; - is the standard output\n"
	"      --min-change PCT   smallest change that matters (default 2)\n"
	"      --alpha P          significance level of the rank test (default 0.05)\n"
	"      --all              list every metric in the compare tables\n"
	"      --keep-disturbed   pool samples flagged as disturbed by foreign CPU\n"
	"      --where NAME=VALUE only the configurations whose key has NAME=VALUE\n"
	"                         (repeatable: values of one NAME are alternatives,\n"
	"                         every NAME must hold; msg=64K matches msg=65536)\n"
	"      --headline METRIC[:higher|lower]  summarize, draw and judge every\n"
	"                         configuration by this stored metric, as compare\n"
	"                         --headline does (the window charts keep the rate)\n"
	"\n"
	"Exit status 0 when the report is written, 2 for bad arguments (also a\n"
	"--headline that a configuration's samples of a label compared lack), 3\n"
	"when a label has no samples or the store or the output fails.\n";

enum { OPT_DB = 256, OPT_BASELINE, OPT_FORMAT, OPT_MINCH, OPT_ALPHA, OPT_ALL, OPT_KEEP,
       OPT_WHERE, OPT_HEADLINE };

struct report_args {
	const char *db, *baseline, *output;
	bool md;
	struct stats_table_opts to;
	struct cli_headline headline; /* --headline ("": none) */
	const char **labels;
	size_t nlabels;
	struct cli_where where;
};

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "output", required_argument, NULL, 'o' },
		{ "min-change", required_argument, NULL, OPT_MINCH },
		{ "alpha", required_argument, NULL, OPT_ALPHA },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "keep-disturbed", no_argument, NULL, OPT_KEEP },
		{ "where", required_argument, NULL, OPT_WHERE },
		{ "headline", required_argument, NULL, OPT_HEADLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "ho:", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_DB:
			a->db = optarg;
			break;
		case OPT_BASELINE:
			a->baseline = optarg;
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "html") && strcmp(optarg, "md")) {
				cli_error("invalid --format '%s': expected html or md", optarg);
				return EXIT_USAGE;
			}
			a->md = !strcmp(optarg, "md");
			break;
		case 'o':
			if (!*optarg) {
				cli_error("invalid --output '': expected a file name or -");
				return EXIT_USAGE;
			}
			a->output = optarg;
			break;
		case OPT_MINCH:
			if (!cli_double("--min-change", optarg, 0, 1000, &a->to.cmp.min_change_pct))
				return EXIT_USAGE;
			a->to.other_min_change_pct = a->to.cmp.min_change_pct;
			break;
		case OPT_ALPHA:
			if (!cli_double("--alpha", optarg, 1e-6, 0.5, &a->to.cmp.alpha))
				return EXIT_USAGE;
			break;
		case OPT_ALL:
			a->to.all = true;
			break;
		case OPT_KEEP:
			a->to.keep_disturbed = true;
			break;
		case OPT_WHERE:
			if ((ret = cli_where_add(&a->where, optarg)))
				return ret;
			break;
		case OPT_HEADLINE:
			if ((ret = cli_headline_parse(optarg, &a->headline)))
				return ret;
			a->to.headline = a->headline.metric;
			a->to.headline_dir = a->headline.dir;
			break;
		case 'h':
			fputs(report_help, stdout);
			return -1;
		default:
			/* a known option without its value, or an unknown one */
			if (optopt == 'o' || optopt >= OPT_DB)
				cli_error("option '%s' needs a value", argv[optind - 1]);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("report");
		}
	}
	if (argc - optind < 1) {
		cli_error("report needs at least one label");
		return cli_usage_hint("report");
	}
	/* the labels, with the baseline first when it is not among them */
	a->labels = calloc((size_t)(argc - optind) + 1, sizeof(*a->labels));
	if (!a->labels) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	for (int i = optind; i < argc; i++) {
		for (size_t j = 0; j < a->nlabels; j++) {
			if (!strcmp(a->labels[j], argv[i])) {
				cli_error("label '%s' is given twice", argv[i]);
				return EXIT_USAGE;
			}
		}
		if (!*argv[i]) {
			cli_error("invalid label '': expected a label name");
			return EXIT_USAGE;
		}
		a->labels[a->nlabels++] = argv[i];
	}
	if (a->baseline) {
		bool found = false;

		for (size_t j = 0; j < a->nlabels && !found; j++)
			found = !strcmp(a->labels[j], a->baseline);
		if (!found) {
			memmove(a->labels + 1, a->labels, a->nlabels * sizeof(*a->labels));
			a->labels[0] = a->baseline;
			a->nlabels++;
		}
	}
	if (a->nlabels > REPORT_MAX_LABELS) {
		cli_error("too many labels (%zu): a report shows at most %d",
			  a->nlabels, REPORT_MAX_LABELS);
		return EXIT_USAGE;
	}
	if (!a->output)
		a->output = a->md ? "-" : "report.html";
	return EXIT_OK;
}

static int by_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every configuration of any label, sorted, without duplicates (borrowed). */
static char **union_keys(const struct cli_keys *keys, size_t nlabels, size_t *n)
{
	size_t total = 0, k = 0;
	char **all;

	for (size_t l = 0; l < nlabels; l++)
		total += keys[l].n;
	all = malloc((total ? total : 1) * sizeof(*all));
	if (!all)
		return NULL;
	for (size_t l = 0; l < nlabels; l++)
		for (size_t i = 0; i < keys[l].n; i++)
			all[k++] = keys[l].key[i];
	qsort(all, k, sizeof(*all), by_str);
	*n = 0;
	for (size_t i = 0; i < k; i++)
		if (!*n || strcmp(all[*n - 1], all[i]))
			all[(*n)++] = all[i];
	return all;
}

/* Load one configuration of every label into the document, and compare
 * each label with the baseline there. Returns 0, or after saying why a
 * negative errno or EXIT_USAGE (the --headline's metric is not there). */
static int add_config(struct store *st, const struct report_args *a,
		      const struct cli_keys *keys, const char *key,
		      size_t baseline, struct report_doc *doc)
{
	struct cli_samples *ss = calloc(a->nlabels, sizeof(*ss));
	struct base_err err = { "" };
	int ret = 0;

	if (!ss) {
		cli_error("out of memory");
		return -ENOMEM;
	}
	for (size_t l = 0; l < a->nlabels && !ret; l++) {
		if (!cli_keys_has(&keys[l], key))
			continue;
		if ((ret = cli_samples_load(st, a->labels[l], key, &ss[l], &err)))
			cli_error("%s", err.msg);
		else if (ss[l].n && (ret = report_doc_add_samples(doc, l, ss[l].p, ss[l].n)))
			cli_error("cannot add the samples of '%s' in '%s': %s",
				  a->labels[l], key, strerror(-ret));
	}
	for (size_t l = 0; l < a->nlabels && !ret; l++) {
		struct stats_table t;

		if (l == baseline || !ss[l].n || !ss[baseline].n)
			continue;
		ret = stats_table_build(ss[baseline].p, ss[baseline].n, ss[l].p,
					ss[l].n, &a->to, &t);
		if (!ret && a->to.headline && !stats_table_headline(&t)) {
			stats_table_release(&t);
			ret = cli_headline_missing(a->to.headline, key, a->labels[baseline],
						   &ss[baseline], a->labels[l], &ss[l]);
			break;
		}
		if (!ret) {
			report_env_within_note(&t, ss[baseline].p, ss[baseline].n,
					       ss[l].p, ss[l].n);
			report_why_env(&t, ss[baseline].p[0], ss[l].p[0]);
		}
		if (!ret && (ret = report_doc_add_table(doc, baseline, l, &t)))
			stats_table_release(&t);
		if (ret)
			cli_error("cannot compare configuration '%s': %s", key,
				  strerror(-ret));
	}
	for (size_t l = 0; l < a->nlabels; l++)
		cli_samples_release(&ss[l]);
	free(ss);
	return ret;
}

/* Write the document to path ("-": stdout) through a temporary file, so
 * that a failed run leaves no half page behind. Returns an exit code. */
static int write_report(const struct report_doc *doc, const char *path, bool md,
			size_t *ncharts)
{
	bool to_stdout = !strcmp(path, "-");
	int fd = -1, ret, code = EXIT_RUNTIME;
	char *tmp = NULL;
	FILE *f = stdout;
	mode_t um;

	if (!to_stdout) {
		if (asprintf(&tmp, "%s.XXXXXX", path) < 0) {
			tmp = NULL;
			cli_error("out of memory");
			goto out;
		}
		fd = mkstemp(tmp);
		if (fd < 0 || !(f = fdopen(fd, "w"))) {
			cli_error("cannot write '%s': %s", path, strerror(errno));
			f = NULL;
			goto out;
		}
		fd = -1; /* f owns it */
		um = umask(0);
		umask(um);
		fchmod(fileno(f), 0666 & ~um);
	}
	ret = md ? report_md(f, doc) : report_html(f, doc, ncharts);
	if (to_stdout) {
		if (fflush(stdout) || ret)
			cli_error("cannot write the report to the standard output%s",
				  ret == -ENOMEM ? ": out of memory" : "");
		else
			code = EXIT_OK;
		f = NULL;
		goto out;
	}
	if (fclose(f) || ret) {
		f = NULL;
		cli_error("cannot write '%s': %s", path,
			  ret == -ENOMEM ? "out of memory" : "write error");
		goto out;
	}
	f = NULL;
	if (rename(tmp, path)) {
		cli_error("cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	code = EXIT_OK;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (tmp && code != EXIT_OK)
		unlink(tmp);
	free(tmp);
	return code;
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { 0 };
	struct cli_keys *keys = NULL;
	struct base_err err = { "" };
	struct report_doc doc;
	struct store *st = NULL;
	char **all = NULL;
	size_t nall = 0, baseline = 0, ncharts = 0;
	int ret, code;

	report_doc_init(&doc);
	stats_table_opts_init(&a.to);
	code = parse_args(argc, argv, &a);
	if (code) {
		free(a.labels);
		cli_where_release(&a.where);
		return code < 0 ? EXIT_OK : code;
	}
	code = EXIT_RUNTIME;
	for (size_t l = 0; l < a.nlabels; l++) {
		if ((ret = report_doc_add_label(&doc, a.labels[l]))) {
			cli_error("invalid label '%.140s': %s", a.labels[l],
				  ret == -ENOMEM ? "out of memory" : "too long");
			code = ret == -ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
			goto out;
		}
	}
	if (a.baseline)
		report_doc_set_baseline(&doc, a.baseline);
	doc.headline = a.to.headline;
	baseline = doc.baseline;
	if ((ret = cli_db_open(cli_db_path(a.db), false, &st))) {
		code = ret;
		goto out;
	}
	keys = calloc(a.nlabels, sizeof(*keys));
	if (!keys) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t l = 0; l < a.nlabels; l++) {
		if (cli_keys_load(st, a.labels[l], &keys[l], &err)) {
			cli_error("%s", err.msg);
			goto out;
		}
		if (!keys[l].n) {
			cli_error("no samples under label '%s' in %s (see 'netregress labels')",
				  a.labels[l], cli_db_path(a.db));
			goto out;
		}
	}
	if ((ret = cli_where_apply(&a.where, keys, a.labels, a.nlabels))) {
		code = ret;
		goto out;
	}
	all = union_keys(keys, a.nlabels, &nall);
	if (!all) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < nall; i++) {
		if ((ret = add_config(st, &a, keys, all[i], baseline, &doc))) {
			code = ret == EXIT_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
			goto out;
		}
	}
	if (report_doc_fdr(&doc, &a.to)) {
		cli_error("out of memory");
		goto out;
	}
	code = write_report(&doc, a.output, a.md, &ncharts);
	if (!code && strcmp(a.output, "-")) {
		printf("%s: %zu label%s, %zu configuration%s", a.output, doc.nlabels,
		       doc.nlabels == 1 ? "" : "s", doc.nconfigs,
		       doc.nconfigs == 1 ? "" : "s");
		if (!a.md)
			printf(", %zu chart%s", ncharts, ncharts == 1 ? "" : "s");
		putchar('\n');
	}
out:
	free(all);
	for (size_t l = 0; keys && l < a.nlabels; l++)
		cli_keys_release(&keys[l]);
	free(keys);
	report_doc_release(&doc);
	store_close(st);
	free(a.labels);
	cli_where_release(&a.where);
	return code;
}
