// SPDX-License-Identifier: GPL-2.0-only
/* `netregress bisect start|run|log`: bisect a regression between two labels, one step per `git bisect run` call. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "bisect/commit.h"
#include "bisect/log.h"
#include "bisect/rule.h"
#include "cli/cli.h"
#include "cli/confopts.h"
#include "cli/load.h"
#include "cli/settle.h"
#include "cli/testbed.h"
#include "engine/result.h"
#include "engine/session.h"
#include "job/config.h"
#include "job/jobfile.h"
#include "job/plan.h"
#include "collect/profile.h"
#include "proto/frame.h"
#include "report/report.h"
#include "stats/desc.h"
#include "stats/table.h"
#include "store/bisect.h"
#include "store/store.h"

static const char bisect_help[] =
	"usage: netregress bisect start --good LABEL --bad LABEL [TEST] [options]\n"
	"       netregress bisect run [--commit ID | --repo DIR] [options]\n"
	"       netregress bisect reanchor --side good|bad [--reps N] [options]\n"
	"       netregress bisect log [--repo DIR] [--json]\n"
	"\n"
	"Bisects a regression of one configuration between two labels whose\n"
	"samples are stored (measure each with 'netregress run --label ...').\n"
	"'start' checks that the endpoints differ and prints what a bisect will\n"
	"cost; 'run' measures the system as it is now, one step of 'git bisect\n"
	"run' (exit 0 good, 1 bad, 125 skip, 128 abort); 'log' prints the\n"
	"table of steps and the first bad commit, confirmed against its parent.\n"
	"See docs/bisect.md.\n"
	"\n"
	"start:\n"
	"      --good LABEL, --bad LABEL   the endpoints (at least 5 samples each)\n"
	"      --job FILE.yaml     the configuration: a job of exactly one cell;\n"
	"                          or TEST and the configuration flags of 'run'\n"
	"                          (-n, -m, --dir, -s, -S, -D, --cc, -r, ...)\n"
	"  -l, --duration TIME, --warmup TIME   of each step's runs (default:\n"
	"                          as the good endpoint's samples)\n"
	"      --min-change PCT    smallest change worth bisecting (default 2)\n"
	"      --headline METRIC[:higher|lower]  the stored metric judged (default:\n"
	"                          the test's throughput, transactions or\n"
	"                          connections/s), as in compare; every step\n"
	"                          is judged by it, and 'log' names it; exit 2\n"
	"                          when malformed, neutral without :higher or\n"
	"                          :lower, or absent from an endpoint's samples\n"
	"      --min-reps N        runs of a step before a verdict (default 3)\n"
	"      --max-reps N        runs of a step at most (default 10)\n"
	"run:\n"
	"      --commit ID         the commit measured (default: git HEAD in\n"
	"                          --repo, else the running kernel's release)\n"
	"      --repo DIR          the git work tree ('git rev-parse HEAD' only)\n"
	"      --max-reps N        override the bisect's cap for this step\n"
	"  -H, --host HOST, -p, --port PORT   a remote server ('serve')\n"
	"      --no-collect        no kernel or perf counters\n"
	"      --settle TIME       after a run flagged disturbed, wait until the\n"
	"                          machine is quiet (left alone, its CPUs busy\n"
	"                          under 3%; kept busy, the host stealing under\n"
	"                          1% of them: a half second each) for up to TIME\n"
	"                          before the next (default 0: at once)\n"
	"      --reanchor CMD      when the rule sees drift or a partial step,\n"
	"                          run 'sh -c CMD' once per side (environment:\n"
	"                          NETREGRESS_BISECT_SIDE good|bad and\n"
	"                          NETREGRESS_BISECT_COMMIT) before deciding;\n"
	"                          CMD puts that commit's system in place and\n"
	"                          runs 'netregress bisect reanchor --side SIDE'\n"
	"reanchor:\n"
	"      --side good|bad     the side the system as it is now belongs to\n"
	"      --reps N            runs (default: the bisect's --min-reps)\n"
	"  -H, --host HOST, -p, --port PORT, --no-collect   as for run\n"
	"log:\n"
	"      --repo DIR          name parents, to confirm the first bad commit\n"
	"      --json              one JSON document\n"
	"all:\n"
	"      --db PATH           the store (default $NETREGRESS_DB or ./netregress.db)\n"
	"      --id N              the bisect (default: the newest)\n";

enum {
	OPT_GOOD = 256, OPT_BAD, OPT_JOB, OPT_DB, OPT_MINCH, OPT_MINREPS,
	OPT_MAXREPS, OPT_COMMIT, OPT_REPO, OPT_ID, OPT_JSON, OPT_NO_COLLECT, OPT_SETTLE,
	OPT_WARMUP, OPT_HEADLINE, OPT_REANCHOR, OPT_SIDE, OPT_REPS,
};

/* A typical kernel bisect: log2 of ~16000 commits. */
#define TYPICAL_STEPS 14

/* ---- shared helpers ---- */

/* The unit of metric in the first sample of label + key ("" if none). */
struct unit_ctx {
	const char *metric;
	char unit[16];
};

static int first_unit(void *ctx, const struct base_sample *s, int64_t order)
{
	struct unit_ctx *u = ctx;
	const struct sample_metric *m = base_sample_get(s, u->metric);

	(void)order;
	if (m)
		snprintf(u->unit, sizeof(u->unit), "%s", m->unit);
	return 1; /* one is enough */
}

static void metric_unit(struct store *st, const char *label, const char *key,
			const char *metric, char *unit, size_t len)
{
	struct unit_ctx u = { metric, "" };
	struct base_err err;

	store_load_samples(st, label, key, first_unit, &u, &err);
	snprintf(unit, len, "%s", u.unit);
}

/* Duration and warm-up of the first sample of label + key. */
struct runctl_ctx {
	int64_t duration_ns, warmup_ns;
	bool found;
};

static int first_runctl(void *ctx, const struct base_sample *s, int64_t order)
{
	struct runctl_ctx *r = ctx;

	(void)order;
	r->duration_ns = s->duration_ns;
	r->warmup_ns = s->warmup_ns;
	r->found = true;
	return 1;
}

struct values_ctx {
	const char *metric;
	double *v, *x; /* the metric's values, and each sample's host.xcpu_ns (NaN: none) */
	size_t n, cap, disturbed;
};

static int collect_value(void *ctx, const struct base_sample *s, int64_t order)
{
	struct values_ctx *c = ctx;
	const struct sample_metric *m = base_sample_get(s, c->metric);

	(void)order;
	if (!m)
		return 0;
	c->disturbed += cli_disturbed(s);
	if (c->n == c->cap) {
		size_t ncap = c->cap ? 2 * c->cap : 16;
		double *p = realloc(c->v, ncap * sizeof(*p)), *q;

		if (!p)
			return -ENOMEM;
		c->v = p;
		q = realloc(c->x, ncap * sizeof(*q));
		if (!q)
			return -ENOMEM;
		c->x = q;
		c->cap = ncap;
	}
	c->v[c->n] = m->value;
	c->x[c->n++] = base_sample_value(s, "host.xcpu_ns");
	return 0;
}

/*
 * The metric's values of label + key in run order; *v is malloc'd (may be
 * NULL when *n is 0), as is *x (x may be NULL), each sample's cross-CPU
 * round trip (NaN without one); *ndisturbed (may be NULL) counts the samples flagged
 * disturbed by foreign CPU load among them. They are kept, unlike compare
 * does: a bisect compares systems measured alike, and on a machine that
 * is always busy (this one, while its tests ran: every run flagged, the
 * shaped throughput unchanged) leaving them out would leave nothing; the
 * rule sets aside the runs whose value the load did change (rule.h).
 */
static int load_values(struct store *st, const char *label, const char *key,
		       const char *metric, double **v, double **x, size_t *n,
		       size_t *ndisturbed, struct base_err *err)
{
	struct values_ctx c = { metric, NULL, NULL, 0, 0, 0 };
	int ret = store_load_samples(st, label, key, collect_value, &c, err);

	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	if (ret) {
		free(c.v);
		free(c.x);
		return ret;
	}
	*v = c.v;
	if (x)
		*x = c.x;
	else
		free(c.x);
	*n = c.n;
	if (ndisturbed)
		*ndisturbed = c.disturbed;
	return 0;
}

static void rule_from(const struct store_bisect *b, struct bisect_rule *r)
{
	bisect_rule_init(r);
	r->alpha = b->alpha;
	r->beta = b->beta;
	r->conf = b->conf;
	r->side_conf = b->side_conf;
	r->min_reps = (unsigned)b->min_reps;
	r->max_reps = (unsigned)b->max_reps;
}

/* ---- start ---- */

/* "42s", "3m05s", "1h02m". */
static void fmt_minutes(int64_t ns, char *buf, size_t len)
{
	int64_t sec = (ns + NS_PER_S / 2) / NS_PER_S;

	if (sec >= 3600)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", sec / 3600, sec / 60 % 60);
	else if (sec >= 60)
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", sec / 60, sec % 60);
	else
		snprintf(buf, len, "%" PRId64 "s", sec);
}

/* The configuration of a job file of exactly one cell. */
static int job_config_of(const char *path, struct job_config *c)
{
	struct base_cpulist allowed;
	struct base_err err = { "" };
	struct job_file *jf = NULL;
	struct job_cell *cells = NULL;
	size_t ncells = 0;
	int code = EXIT_USAGE;

	base_cpus_allowed(&allowed);
	if (job_file_load(path, &jf, &err) ||
	    job_file_expand(jf, &allowed, &cells, &ncells, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (ncells != 1) {
		cli_error("job '%s' has %zu configurations: a bisect follows exactly one", path,
			  ncells);
		goto out;
	}
	*c = cells[0].cfg;
	code = EXIT_OK;
out:
	job_cells_free(cells, ncells);
	job_file_free(jf);
	return code;
}

static void print_values_line(const char *what, const char *label, size_t n,
			      const struct stats_compare *cmp, bool good,
			      const char *unit)
{
	printf("  %-4s '%s': %zu samples, median %.5g %s, %%stddev %.2f\n", what, label, n,
	       good ? cmp->median_a : cmp->median_b, unit,
	       good ? cmp->sd_pct_a : cmp->sd_pct_b);
}

/*
 * Where the host kept the test's CPUs over the endpoints' runs: at two
 * distances (stats_xcpu_mix), a line with each endpoint's share and
 * medians at each; when the endpoints sat far in different shares, a
 * warning, since loopback traffic slows with the distance (1.5-2x on a
 * guest here), so part of the gap may be the host's, and every step runs
 * at whichever distance the host picks then. Not a refusal: a figure
 * that does not follow the distance (a shaped link) bisects all the same.
 */
static int print_placement(const double *gv, const double *gx, size_t ng, const double *bv,
			   const double *bx, size_t nb, const char *unit)
{
	struct stats_xcpu_mix m;
	int ret = stats_xcpu_mix(gx, gv, ng, bx, bv, nb, &m);

	if (ret || !m.split)
		return ret;
	printf("  cpus: the host kept the test's CPUs at two distances, a cache line's round trip (host.xcpu_ns) of %.0f-%.0f ns and of %.0f-%.0f ns; far: %zu of %zu good runs, %zu of %zu bad\n",
	       m.lo_ns[0], m.hi_ns[0], m.lo_ns[1], m.hi_ns[1], m.far[0], m.n[0], m.far[1], m.n[1]);
	for (size_t d = 0; d < 2; d++) {
		printf("        %-4s", d ? "far" : "near");
		for (size_t side = 0; side < 2; side++) {
			size_t k = stats_xcpu_mix_count(&m, d, side);

			printf("  %s ", side ? "bad" : "good");
			if (k)
				printf("%.5g %s (%zu)", m.median[d][side], unit, k);
			else
				printf("- (0)");
		}
		putchar('\n');
	}
	if (stats_xcpu_mix_differs(&m))
		fprintf(stderr, "netregress: warning: the endpoints' runs sat at the far distance in different shares (good %zu of %zu, bad %zu of %zu): loopback traffic slows with the distance, so part of the gap may be the host's placement of the vCPUs, and each step runs at whichever the host picks (bisect run marks the runs at a distance no endpoint run had); the medians at one distance above say how much\n",
			m.far[0], m.n[0], m.far[1], m.n[1]);
	return 0;
}

/*
 * --headline's metric found in no sample of an endpoint (ng or nb 0):
 * when that endpoint has samples of the configuration, EXIT_USAGE after
 * saying so (cli_headline_missing()); 0 when it has none, which the
 * refusal of too few samples says; EXIT_RUNTIME when the store fails.
 */
static int headline_absent(struct store *st, const char *metric, const char *key,
			   const char *good, size_t ng, const char *bad, size_t nb)
{
	struct cli_samples sg = { 0 }, sb = { 0 };
	struct base_err err = { "" };
	int code = EXIT_OK;

	if (cli_samples_load(st, good, key, &sg, &err) ||
	    cli_samples_load(st, bad, key, &sb, &err)) {
		cli_error("%s", err.msg);
		code = EXIT_RUNTIME;
	} else if ((!ng && sg.n) || (!nb && sb.n)) {
		code = cli_headline_missing(metric, key, good, &sg, bad, &sb);
	}
	cli_samples_release(&sg);
	cli_samples_release(&sb);
	return code;
}

static void refuse_add(const char *label, size_t have, size_t add)
{
	if (add)
		fprintf(stderr, "  add %zu sample%s to '%s' (it has %zu): on that system, 'netregress run --label %s --reps %zu' with the same configuration flags\n",
			add, add == 1 ? "" : "s", label, have, label, add);
}

static int bisect_start(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "good", required_argument, NULL, OPT_GOOD },
		{ "bad", required_argument, NULL, OPT_BAD },
		{ "job", required_argument, NULL, OPT_JOB },
		{ "db", required_argument, NULL, OPT_DB },
		{ "min-change", required_argument, NULL, OPT_MINCH },
		{ "min-reps", required_argument, NULL, OPT_MINREPS },
		{ "max-reps", required_argument, NULL, OPT_MAXREPS },
		{ "duration", required_argument, NULL, 'l' },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "headline", required_argument, NULL, OPT_HEADLINE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct option all[CLI_MAX_OPTIONS];
	char shorts[64];
	struct base_err err = { "" };
	struct job_config cfg;
	struct bisect_rule rule;
	struct bisect_start_check chk;
	struct store_bisect b;
	struct runctl_ctx rc = { 0, 0, false };
	struct cli_headline hl = { "", METRIC_NEUTRAL };
	enum metric_dir better;
	const char *good = NULL, *bad = NULL, *job = NULL, *db = NULL, *test = NULL;
	const char *metric;
	bool flags = false, have_dur = false, have_warm = false, warm_auto = false;
	double min_change = 2.0, *gv = NULL, *bv = NULL, *gx = NULL, *bx = NULL;
	int64_t dur = 0, warm = 0;
	size_t ng = 0, nb = 0, dg = 0, db_ = 0;
	char key[1024], unit[16], d1[32];
	struct store *st = NULL;
	uint64_t v;
	int opt, r, code = EXIT_USAGE;

	job_config_init(&cfg);
	bisect_rule_init(&rule);
	memset(&b, 0, sizeof(b));
	if (cli_config_getopt(opts, "l:h", all, shorts, sizeof(shorts)))
		BUG("too many options");
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, shorts, all, NULL)) != -1) {
		if ((r = cli_config_opt(opt, optarg, &cfg)) < 0)
			return EXIT_USAGE;
		if (r) {
			flags = true;
			continue;
		}
		switch (opt) {
		case OPT_GOOD:
			if (!cli_label("--good", optarg))
				return EXIT_USAGE;
			good = optarg;
			break;
		case OPT_BAD:
			if (!cli_label("--bad", optarg))
				return EXIT_USAGE;
			bad = optarg;
			break;
		case OPT_JOB:
			job = optarg;
			break;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_MINCH:
			if (!cli_double("--min-change", optarg, 0, 1000, &min_change))
				return EXIT_USAGE;
			break;
		case OPT_MINREPS:
			if (!cli_u64("--min-reps", optarg, 2, 100, &v))
				return EXIT_USAGE;
			rule.min_reps = (unsigned)v;
			break;
		case OPT_MAXREPS:
			if (!cli_u64("--max-reps", optarg, 2, BISECT_REPS_LIMIT, &v))
				return EXIT_USAGE;
			rule.max_reps = (unsigned)v;
			break;
		case 'l':
			if (!cli_duration("--duration", optarg, &dur))
				return EXIT_USAGE;
			have_dur = true;
			break;
		case OPT_WARMUP:
			if (job_parse_warmup(optarg, &warm, &warm_auto, &err)) {
				cli_error("--warmup: %s", err.msg);
				return EXIT_USAGE;
			}
			have_warm = true;
			break;
		case OPT_HEADLINE:
			if (cli_headline_parse(optarg, &hl))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(bisect_help, stdout);
			return EXIT_OK;
		default:
			if (optopt && (optopt == 'l' || cli_config_needs_value(optopt)))
				cli_error("option -%c needs a value", optopt);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("bisect");
		}
	}
	for (; optind < argc; optind++) {
		if (test) {
			cli_error("unexpected argument '%s': one test per bisect", argv[optind]);
			return cli_usage_hint("bisect");
		}
		test = argv[optind];
	}
	if (!good || !bad) {
		cli_error("bisect start needs --good LABEL and --bad LABEL");
		return cli_usage_hint("bisect");
	}
	if (!strcmp(good, bad)) {
		cli_error("--good and --bad name the same label '%s'", good);
		return EXIT_USAGE;
	}
	if (rule.max_reps < rule.min_reps) {
		cli_error("invalid --max-reps %u: below --min-reps %u", rule.max_reps, rule.min_reps);
		return EXIT_USAGE;
	}
	if (job && (flags || test)) {
		cli_error("--job and configuration flags exclude each other");
		return EXIT_USAGE;
	}
	if (job) {
		if (job_config_of(job, &cfg))
			return EXIT_USAGE;
	} else {
		if (test && job_test_parse(test, &cfg.test, &err)) {
			cli_error("%s", err.msg);
			return EXIT_USAGE;
		}
		struct base_cpulist allowed;

		base_cpus_allowed(&allowed);
		if (job_config_finalize(&cfg, &allowed, &err)) {
			cli_error("%s", err.msg);
			return EXIT_USAGE;
		}
	}
	if (job_config_key(&cfg, key, sizeof(key))) {
		cli_error("configuration key too long");
		return EXIT_USAGE;
	}
	metric = hl.metric[0] ? hl.metric : stats_headline_metric(job_test_name(cfg.test));
	better = hl.dir != METRIC_NEUTRAL ? hl.dir : base_metric_dir(metric);
	if (cli_db_open(cli_db_path(db), true, &st))
		return EXIT_RUNTIME;
	code = EXIT_RUNTIME;
	/* the steps run as the endpoints ran, unless told otherwise */
	store_load_samples(st, good, key, first_runctl, &rc, &err);
	if (!job) {
		cfg.duration_ns = have_dur ? dur : rc.found ? rc.duration_ns : cfg.duration_ns;
		cfg.warmup_ns = have_warm ? warm : rc.found ? rc.warmup_ns : cfg.warmup_ns;
		cfg.warmup_auto = have_warm && warm_auto;
	}
	if (load_values(st, good, key, metric, &gv, &gx, &ng, &dg, &err) ||
	    load_values(st, bad, key, metric, &bv, &bx, &nb, &db_, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (hl.metric[0] && (!ng || !nb) &&
	    (code = headline_absent(st, metric, key, good, ng, bad, nb)))
		goto out;
	code = EXIT_RUNTIME;
	metric_unit(st, ng ? good : bad, key, metric, unit, sizeof(unit));
	if (hl.metric[0])
		printf("bisect of %s (--headline, %s is better), configuration %s\n", metric,
		       base_metric_dir_name(better), key);
	else
		printf("bisect of %s, configuration %s\n", metric, key);
	if (dg || db_)
		printf("  flagged disturbed by foreign CPU load (kept; outliers are set aside by value): %zu sample%s of good, %zu of bad\n",
		       dg, dg == 1 ? "" : "s", db_);
	if (ng < 2 || nb < 2) {
		cli_error("refused: a bisect needs at least %d samples of this configuration per endpoint and cannot measure a label itself",
			  BISECT_ENDPOINT_MIN);
		refuse_add(good, ng, ng < BISECT_ENDPOINT_MIN ? BISECT_ENDPOINT_MIN - ng : 0);
		refuse_add(bad, nb, nb < BISECT_ENDPOINT_MIN ? BISECT_ENDPOINT_MIN - nb : 0);
		code = BISECT_EXIT_ABORT;
		goto out;
	}
	r = bisect_check_endpoints(gv, ng, bv, nb,
				   better == METRIC_LOWER ? STATS_LOWER :
				   better == METRIC_HIGHER ? STATS_HIGHER : STATS_NEUTRAL,
				   min_change, &rule, &chk);
	if (r == -EDOM) {
		/* the rule works on the logs of the values */
		cli_error("cannot bisect %s: an endpoint has a value <= 0, and a bisect compares the logs of the values%s",
			  metric, hl.metric[0] ? " (--headline: a metric that is always positive)" : "");
		code = hl.metric[0] ? EXIT_USAGE : EXIT_RUNTIME;
		goto out;
	}
	if (r) {
		cli_error("cannot judge the endpoints: %s", strerror(-r));
		goto out;
	}
	print_values_line("good", good, ng, &chk.cmp, true, unit);
	print_values_line("bad", bad, nb, &chk.cmp, false, unit);
	printf("  gap: %+.1f%% [%+.1f%%, %+.1f%%] (bad against good, Hodges-Lehmann, 95%%), Mann-Whitney p = %.2g\n",
	       chk.cmp.shift_pct, chk.cmp.shift_lo_pct, chk.cmp.shift_hi_pct, chk.cmp.p);
	printf("  noise: %.2f%% (pooled %%stddev of both endpoints); gap / noise = %.1f\n",
	       chk.noise_pct, chk.gap_noise);
	if (print_placement(gv, gx, ng, bv, bx, nb, unit)) {
		cli_error("out of memory");
		goto out;
	}
	if (chk.out_good || chk.out_bad)
		printf("  set aside as outliers (over %.1f robust sd from their median): %zu run%s of good, %zu of bad\n",
		       BISECT_OUTLIER_Z, chk.out_good, chk.out_good == 1 ? "" : "s", chk.out_bad);
	/* what steps would cost, where there is a change to bisect */
	if (chk.status == BISECT_START_OK || chk.status == BISECT_START_TOO_NOISY ||
	    chk.status == BISECT_START_TOO_FEW) {
		double per_step = (chk.sim.reps[0] + chk.sim.reps[1]) / 2;

		printf("  expected runs per step: %.1f at a good commit, %.1f at a bad one (min %u, cap %u); %.0f%% and %.0f%% of them decided right\n",
		       chk.sim.reps[0], chk.sim.reps[1], rule.min_reps, rule.max_reps,
		       100 * chk.sim.right[0], 100 * chk.sim.right[1]);
		fmt_minutes(job_plan_duration_ns((size_t)ceil(TYPICAL_STEPS * per_step),
						 cfg.warmup_ns, cfg.duration_ns), d1, sizeof(d1));
		printf("  in total: log2(commits) steps of %.1f runs; a typical %d-step bisect (~16000 commits): ~%.0f runs, ~%s of measuring\n",
		       per_step, TYPICAL_STEPS, TYPICAL_STEPS * per_step, d1);
	}
	if (rc.found && (rc.duration_ns != cfg.duration_ns || rc.warmup_ns != cfg.warmup_ns))
		fprintf(stderr, "netregress: warning: steps run %.3g s after %.3g s of warm-up, the good endpoint's samples %.3g s after %.3g s: short runs read low\n",
			(double)cfg.duration_ns / NS_PER_S, (double)cfg.warmup_ns / NS_PER_S,
			(double)rc.duration_ns / NS_PER_S, (double)rc.warmup_ns / NS_PER_S);
	code = BISECT_EXIT_ABORT;
	switch (chk.status) {
	case BISECT_START_TOO_FEW:
		cli_error("refused: a bisect needs at least %d samples of this configuration per endpoint and cannot measure a label itself",
			  BISECT_ENDPOINT_MIN);
		refuse_add(good, ng, chk.add_good);
		refuse_add(bad, nb, chk.add_bad);
		goto out;
	case BISECT_START_SAME:
		cli_error("refused: the endpoints do not differ (%+.1f%% [%+.1f%%, %+.1f%%], p = %.2g, within +-%.3g%%): nothing to bisect",
			  chk.cmp.shift_pct, chk.cmp.shift_lo_pct, chk.cmp.shift_hi_pct,
			  chk.cmp.p, min_change);
		goto out;
	case BISECT_START_MINOR:
		cli_error("refused: the endpoints differ by %+.1f%% (p = %.2g), less than --min-change %.3g%%: nothing worth bisecting",
			  chk.cmp.shift_pct, chk.cmp.p, min_change);
		goto out;
	case BISECT_START_INCONCLUSIVE:
		cli_error("refused: the endpoints do not differ significantly yet (%+.1f%% [%+.1f%%, %+.1f%%], p = %.2g): measure more",
			  chk.cmp.shift_pct, chk.cmp.shift_lo_pct, chk.cmp.shift_hi_pct, chk.cmp.p);
		refuse_add(good, ng, chk.add_good);
		refuse_add(bad, nb, chk.add_bad);
		goto out;
	case BISECT_START_TOO_NOISY:
		cli_error("refused: the gap is small against the noise (gap / noise %.1f): within --max-reps %u, only %.0f%% of steps at good and %.0f%% at bad would be decided",
			  chk.gap_noise, rule.max_reps, 100 * chk.sim.right[0], 100 * chk.sim.right[1]);
		if (chk.add_good || chk.add_bad) {
			refuse_add(good, ng, chk.add_good);
			refuse_add(bad, nb, chk.add_bad);
		} else {
			fprintf(stderr, "  more endpoint samples (up to %d) would not do: raise --max-reps, lengthen the runs or quiet the machine\n",
				BISECT_ENDPOINT_MAX);
		}
		goto out;
	case BISECT_START_OK:
		break;
	}
	snprintf(b.good_label, sizeof(b.good_label), "%s", good);
	snprintf(b.bad_label, sizeof(b.bad_label), "%s", bad);
	snprintf(b.config_key, sizeof(b.config_key), "%s", key);
	snprintf(b.metric, sizeof(b.metric), "%s", metric);
	b.alpha = rule.alpha;
	b.beta = rule.beta;
	b.conf = rule.conf;
	b.side_conf = rule.side_conf;
	b.min_change_pct = min_change;
	b.min_reps = rule.min_reps;
	b.max_reps = rule.max_reps;
	{
		json_t *cj = job_config_to_json(&cfg);

		b.config = cj ? json_dumps(cj, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		json_decref(cj);
	}
	if (!b.config) {
		cli_error("out of memory");
		code = EXIT_RUNTIME;
		goto out;
	}
	if (store_bisect_add(st, &b, &err)) {
		cli_error("%s", err.msg);
		code = EXIT_RUNTIME;
		goto out;
	}
	printf("bisect %" PRId64 " started in %s. Next: git bisect start BAD GOOD, then\n"
	       "git bisect run a script that builds and boots (or applies) the commit and\n"
	       "ends with 'netregress bisect run --repo DIR' (or --commit ID); 'netregress\n"
	       "bisect log --repo DIR' shows the steps and the confirmed first bad commit.\n",
	       b.id, cli_db_path(db));
	code = EXIT_OK;
out:
	store_bisect_release(&b);
	free(gv);
	free(bv);
	free(gx);
	free(bx);
	store_close(st);
	return code;
}

/* ---- the sides as they stand ---- */

struct steps_acc {
	struct store_bisect_step *rows;
	size_t n, cap;
};

static int collect_step(void *ctx, const struct store_bisect_step *s)
{
	struct steps_acc *a = ctx;

	if (a->n == a->cap) {
		size_t ncap = a->cap ? 2 * a->cap : 16;
		struct store_bisect_step *p = realloc(a->rows, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		a->rows = p;
		a->cap = ncap;
	}
	a->rows[a->n++] = *s;
	return 0;
}


/* Steps whose commit starts so are re-anchors: `bisect reanchor` rows. */
#define ANCHOR_PREFIX "anchor:"

/*
 * Every group of runs of a bisect, as bisect_decide_history() takes them:
 * the endpoints, then each step decided good, bad or partial and each
 * re-anchor, in the order stored; commit[i] names group i (the label for
 * an endpoint). Owns its values.
 */
struct step_hist {
	struct bisect_group *g;
	double **values;
	char (*commit)[128]; /* a label is longer than a commit id */
	size_t n;
};

static void step_hist_release(struct step_hist *h)
{
	for (size_t i = 0; h->values && i < h->n; i++)
		free(h->values[i]);
	free(h->values);
	free(h->g);
	free(h->commit);
	memset(h, 0, sizeof(*h));
}

static bool is_anchor(const char *commit)
{
	return !strncmp(commit, ANCHOR_PREFIX, strlen(ANCHOR_PREFIX));
}

/* The group a stored step makes, false for none (undecided, skip, abort). */
static bool step_group(const struct store_bisect_step *row, struct bisect_group *g)
{
	enum bisect_verdict v;

	if (bisect_verdict_parse(row->verdict, &v) || row->n < 1)
		return false;
	if (v != BISECT_GOOD && v != BISECT_BAD && v != BISECT_PARTIAL)
		return false;
	g->side = bisect_toward(v, row->llr);
	g->kind = is_anchor(row->commit) ? BISECT_GROUP_ANCHOR :
		  v == BISECT_PARTIAL	 ? BISECT_GROUP_PARTIAL :
					   BISECT_GROUP_STEP;
	return true;
}

/*
 * Load the history of bisect b, the endpoints' values gv[0..ng) and
 * bv[0..nb) first (copied), then every decided step but `skip` (the
 * commit being decided; may be NULL) with the runs its verdict came from.
 */
static int step_hist_load(struct store *st, const struct store_bisect *b, const double *gv,
			  size_t ng, const double *bv, size_t nb, const char *skip,
			  struct step_hist *h, struct base_err *err)
{
	struct steps_acc acc = { NULL, 0, 0 };
	int ret = store_bisect_steps(st, b->id, collect_step, &acc, err);

	memset(h, 0, sizeof(*h));
	if (!ret) {
		h->g = calloc(acc.n + 2, sizeof(*h->g));
		h->values = calloc(acc.n + 2, sizeof(*h->values));
		h->commit = calloc(acc.n + 2, sizeof(*h->commit));
		if (h->g && h->values && h->commit) {
			h->values[0] = malloc(ng * sizeof(double));
			h->values[1] = malloc(nb * sizeof(double));
		}
		/* n stays 0 until the endpoints are in: release frees [0, 1] */
		if (!h->values || !h->values[0] || !h->values[1]) {
			free(h->values ? h->values[0] : NULL);
			free(h->values ? h->values[1] : NULL);
			ret = base_err_set(err, -ENOMEM, "out of memory");
		}
	}
	if (!ret) {
		memcpy(h->values[0], gv, ng * sizeof(double));
		memcpy(h->values[1], bv, nb * sizeof(double));
		h->g[0] = (struct bisect_group){ h->values[0], ng, BISECT_SIDE_GOOD, BISECT_GROUP_ENDPOINT };
		h->g[1] = (struct bisect_group){ h->values[1], nb, BISECT_SIDE_BAD, BISECT_GROUP_ENDPOINT };
		snprintf(h->commit[0], sizeof(h->commit[0]), "%s", b->good_label);
		snprintf(h->commit[1], sizeof(h->commit[1]), "%s", b->bad_label);
		h->n = 2;
	}
	for (size_t i = 0; !ret && i < acc.n; i++) {
		struct bisect_group *g = &h->g[h->n];
		size_t nv = 0;

		if ((skip && !strcmp(acc.rows[i].commit, skip)) || !step_group(&acc.rows[i], g))
			continue;
		ret = load_values(st, acc.rows[i].label, b->config_key, b->metric,
				  &h->values[h->n], NULL, &nv, NULL, err);
		if (ret || !nv)
			continue;
		g->v = h->values[h->n];
		g->n = nv < (size_t)acc.rows[i].n ? nv : (size_t)acc.rows[i].n;
		snprintf(h->commit[h->n], sizeof(h->commit[0]), "%s", acc.rows[i].commit);
		h->n++;
	}
	free(acc.rows);
	if (ret)
		step_hist_release(h);
	return ret;
}

/* The commit git now holds as `side`: the newest step decided to it, or
 * the endpoint's label (re-anchors are not commits). */
static const char *current_commit(const struct step_hist *h, enum bisect_side side)
{
	for (size_t i = h->n; i-- > 0;)
		if (h->g[i].side == side && h->g[i].kind != BISECT_GROUP_ANCHOR)
			return h->commit[i];
	return "";
}

/* ---- run ---- */

struct step_run {
	struct store *st;
	struct store_bisect *b;
	struct job_config cfg;
	struct bisect_rule rule;
	struct store_bisect_step row;
	const double *gv, *bv;
	const double *gx, *bx; /* the endpoint runs' cross-CPU round trips */
	size_t ng, nb;
	double *x, *xcpu; /* the step's runs: headline, round trip */
	bool *elsewhere;  /* the runs the host placed elsewhere (place) */
	size_t n;
	struct bisect_placement place;
	const char *host;
	uint16_t port;
	bool collect;
	int64_t settle_ns; /* after a disturbed run: wait this long at most for a quiet machine */
	char unit[16];
	struct step_hist hist; /* the sides as they stand, the endpoints first */
	const char *reanchor_cmd; /* --reanchor: measures a side now, or NULL */
};

/*
 * Measure one run of the step and store it; its headline into *value, its
 * cross-CPU round trip into *xcpu (NaN: none) and whether foreign CPU load
 * disturbed it into *dist.
 */
static int measure(struct step_run *sr, struct cli_testbed *tb, double *value,
		   double *xcpu, bool *dist, struct base_err *err)
{
	struct engine_client_opts o = {
		.cfg = sr->cfg,
		.connect_timeout_ns = 5 * NS_PER_S,
		.control_timeout_ns = 10 * NS_PER_S,
		.interrupted = &cli_interrupted,
		.steady = cli_steady,
		.counters = sr->collect,
		.perf = sr->collect,
		.speed = sr->collect && job_test_speed_default(sr->cfg.test),
		.profile_min_pct = COLLECT_PROFILE_MIN_PCT,
		/* a server of its own testbed shares this machine; one at
		 * --host may not */
		.xcpu = sr->collect && !sr->host,
	};
	const struct sample_metric *m;
	struct base_sample s;
	struct engine_run run;
	bool inserted;
	int ret;

	base_sample_init(&s);
	memset(&run, 0, sizeof(run));
	if (sr->host) {
		o.host = sr->host;
		o.port = sr->port;
		ret = engine_client_run(&o, &run, err);
	} else {
		ret = cli_testbed_prepare(tb, &sr->cfg, &o, err);
		if (!ret)
			ret = cli_testbed_run(tb, &o, &run, err);
	}
	if (!ret)
		ret = engine_run_sample(&sr->cfg, &run, sr->row.label, o.same_host, &s, err);
	if (!ret) {
		m = base_sample_get(&s, sr->b->metric);
		if (!m || !(m->value > 0)) {
			ret = base_err_set(err, -EINVAL, "the run gave no positive %s",
					   sr->b->metric);
		} else {
			*value = m->value;
			*xcpu = base_sample_value(&s, "host.xcpu_ns");
			*dist = cli_disturbed(&s);
			snprintf(sr->unit, sizeof(sr->unit), "%s", m->unit);
		}
	}
	if (!ret && store_add_sample(sr->st, &s, &inserted, err))
		ret = -EIO;
	engine_run_release(&run);
	base_sample_release(&s);
	return ret;
}

static void row_from(struct store_bisect_step *row, const struct bisect_decision *d)
{
	snprintf(row->verdict, sizeof(row->verdict), "%s", bisect_verdict_name(d->verdict));
	row->n = (int64_t)d->n;
	row->position = d->pos.pos;
	row->position_lo = d->pos.lo;
	row->position_hi = d->pos.hi;
	row->llr = d->n ? d->llr : NAN;
	row->updated_at_ns = 0;
}

/* The step's runs x[0..n) with, when pl (may be NULL) found some, those
 * the host placed elsewhere (elsewhere[], round trips xcpu[]) marked. */
static void print_decision(const char *commit, const struct bisect_decision *d,
			   const char *unit, const double *x, size_t n,
			   const struct bisect_placement *pl, const bool *elsewhere,
			   const double *xcpu)
{
	char c[BISECT_COMMIT_MAX + 1];

	bisect_commit_short(commit, c, sizeof(c));
	printf("commit %s: %s after %zu run%s (%s); position %.2f [%.2f, %.2f], likelihood ratio %.1f (bad > %.1f, good < %.1f)\n",
	       c, bisect_verdict_name(d->verdict), d->n, d->n == 1 ? "" : "s", d->why,
	       d->pos.pos, d->pos.lo, d->pos.hi, d->llr, d->llr_bad, d->llr_good);
	printf("  runs (%s):", unit);
	for (size_t i = 0; i < n; i++) {
		printf(" %.5g", x[i]);
		if (pl && pl->elsewhere && elsewhere[i])
			printf(" [%.0f ns]", xcpu[i]);
	}
	if (d->out_step)
		printf(" (%zu set aside as an outlier)", d->out_step);
	putchar('\n');
	if (d->verdict == BISECT_PARTIAL)
		printf("  partial: a finding (a second change, or a partial fix), git is told %s, the side of the larger part of the change\n",
		       d->toward == BISECT_SIDE_BAD ? "bad" : "good");
	if (!d->endpoints_only && d->n && !isnan(d->level_good))
		printf("  judged against the sides as they stand: good %.5g %s (%zu group%s), bad %.5g %s (%zu group%s)%s\n",
		       exp(d->level_good), unit, d->groups_good, d->groups_good == 1 ? "" : "s",
		       exp(d->level_bad), unit, d->groups_bad, d->groups_bad == 1 ? "" : "s",
		       d->split ? "; each side its own noise" : "");
	if (pl && pl->elsewhere)
		printf("  note: in %zu of these runs [marked] the host kept the CPUs elsewhere than for every "
		       "endpoint run, whose cross-CPU round trips read %.0f-%.0f ns (host.xcpu_ns): where "
		       "this test's figure follows the placement (loopback streams and request/response on "
		       "a guest; not a shaped link), the verdict may be the placement's, not the commit's\n",
		       pl->elsewhere, pl->lo_ns, pl->hi_ns);
}

/*
 * Decide, record the step, and say what happened; find the runs the host
 * placed elsewhere than every endpoint run (sr->place), which the verdict
 * rests on all the same: whether the figure follows the placement is the
 * test's (a shaped link's does not), and a bisect cannot tell from one
 * placement.
 */
static int decide_and_store(struct step_run *sr, struct bisect_decision *d,
			    struct base_err *err)
{
	int ret = bisect_placed_elsewhere(sr->gx, sr->ng, sr->bx, sr->nb, sr->xcpu, sr->n,
					  sr->elsewhere, &sr->place);

	if (!ret)
		ret = bisect_decide_history(sr->hist.g, sr->hist.n, sr->x, sr->n, &sr->rule, d);
	if (ret)
		return base_err_set(err, ret, "cannot decide: %s", strerror(-ret));
	row_from(&sr->row, d);
	return store_bisect_step_put(sr->st, &sr->row, err);
}

/* "+64.0%" of a shift in ln units. */
static double shift_pct(double ln_shift)
{
	return 100 * expm1(ln_shift);
}

/*
 * Say what the rule saw that re-anchoring may change: a side whose recent
 * steps moved from its endpoint, or a partial step; and how to re-anchor.
 */
static void say_drift(const struct step_run *sr, const struct bisect_decision *d)
{
	for (int side = 0; side < 2; side++) {
		const struct bisect_drift *dr = &d->drift[side];

		if (dr->seen)
			fprintf(stderr, "drift: the %s side's %zu recent step%s and re-anchors sit %+.1f%% [%+.1f%%, %+.1f%%] from its endpoint '%s' (more than its noise %.2f%%): the system moved since the endpoints were measured, or a partial change\\n",
				side ? "bad" : "good", dr->groups, dr->groups == 1 ? "" : "s",
				shift_pct(dr->shift), shift_pct(dr->lo), shift_pct(dr->hi),
				side ? sr->b->bad_label : sr->b->good_label,
				100 * (side ? d->noise_bad : d->noise_good));
	}
	if (!d->reanchor)
		return;
	if (sr->reanchor_cmd)
		fprintf(stderr, "re-anchoring before the verdict stands: '%s' for the current good commit %s and bad commit %s\\n",
			sr->reanchor_cmd, current_commit(&sr->hist, BISECT_SIDE_GOOD),
			current_commit(&sr->hist, BISECT_SIDE_BAD));
	else
		fprintf(stderr, "to judge against the system as it is now: measure the current good commit %s and bad commit %s again, each with 'netregress bisect reanchor --side good|bad' on its system (or give bisect run --reanchor CMD to do it)\\n",
			current_commit(&sr->hist, BISECT_SIDE_GOOD),
			current_commit(&sr->hist, BISECT_SIDE_BAD));
}

/*
 * Run the user's re-anchor command for each side: /bin/sh -c CMD with
 * NETREGRESS_BISECT_SIDE (good, bad) and NETREGRESS_BISECT_COMMIT (the
 * commit git holds as that side, or the endpoint's label) in its
 * environment; it is to put that commit's system in place and run
 * `netregress bisect reanchor --side SIDE`. Then load the history again.
 */
static int run_reanchor(struct step_run *sr, struct base_err *err)
{
	for (int side = 0; side < 2; side++) {
		const char *argv[] = { "sh", "-c", sr->reanchor_cmd, NULL };
		extern char **environ;
		int status = 0, ret;
		pid_t pid;

		if (setenv("NETREGRESS_BISECT_SIDE", side ? "bad" : "good", 1) ||
		    setenv("NETREGRESS_BISECT_COMMIT",
			   current_commit(&sr->hist, (enum bisect_side)side), 1))
			return base_err_set(err, -errno, "setenv: %s", strerror(errno));
		fflush(NULL);
		ret = posix_spawn(&pid, "/bin/sh", NULL, NULL, (char *const *)argv, environ);
		if (ret)
			return base_err_set(err, -ret, "cannot run --reanchor '%s': %s",
					    sr->reanchor_cmd, strerror(ret));
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			return base_err_set(err, -EIO, "--reanchor '%s' failed for the %s side (status %d)",
					    sr->reanchor_cmd, side ? "bad" : "good",
					    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	}
	step_hist_release(&sr->hist);
	return step_hist_load(sr->st, sr->b, sr->gv, sr->ng, sr->bv, sr->nb, sr->row.commit,
			      &sr->hist, err);
}

static int step_loop(struct step_run *sr, struct bisect_decision *d)
{
	struct base_err err = { "" };
	struct cli_testbed tb;
	int code = -1;

	cli_testbed_init(&tb);
	cli_signals();
	while (d->verdict == BISECT_UNDECIDED && sr->n < sr->rule.max_reps) {
		double value = NAN, xcpu = NAN;
		bool dist = false;
		int ret = measure(sr, &tb, &value, &xcpu, &dist, &err);

		if (cli_interrupted) {
			cli_error("interrupted: %zu runs of this commit are stored; 'bisect run' again continues",
				  sr->n);
			code = BISECT_EXIT_ABORT;
			break;
		}
		if (ret == -EIO) {
			cli_error("cannot store the sample: %s", err.msg);
			code = BISECT_EXIT_ABORT;
			break;
		}
		if (ret) {
			cli_error("could not measure this commit (run %zu): %s; skipping it", sr->n + 1,
				  err.msg);
			code = BISECT_EXIT_SKIP;
			break;
		}
		sr->xcpu[sr->n] = xcpu;
		sr->x[sr->n++] = value;
		if (decide_and_store(sr, d, &err)) {
			cli_error("%s", err.msg);
			code = BISECT_EXIT_ABORT;
			break;
		}
		fprintf(stderr, "run %zu/%u: %.5g %s%s%s; position %.2f [%.2f, %.2f], likelihood ratio %.1f: %s\n",
			sr->n, sr->rule.max_reps, value, sr->unit,
			dist ? " (flagged disturbed by foreign CPU load)" : "",
			sr->elsewhere[sr->n - 1] ? " (the host kept the CPUs elsewhere than for the endpoints)" : "",
			d->pos.pos, d->pos.lo, d->pos.hi, d->llr, bisect_verdict_name(d->verdict));
		if (dist && sr->settle_ns && d->verdict == BISECT_UNDECIDED && sr->n < sr->rule.max_reps)
			cli_settle_say(stderr, sr->settle_ns);
	}
	cli_testbed_release(&tb);
	return code;
}

/* Where a step or a re-anchor measures, and from which bisect. */
struct step_where {
	const char *db;
	uint64_t id;
	bool have_port;
};

/*
 * The options `run` and `reanchor` share (--db, --id, -H, -p,
 * --no-collect) into sr and w: 1 when opt was one of them, 0 when not,
 * -1 for a bad value (said).
 */
static int step_common_opt(int opt, const char *arg, struct step_run *sr, struct step_where *w)
{
	uint64_t v;

	switch (opt) {
	case OPT_DB:
		w->db = arg;
		return 1;
	case OPT_ID:
		return cli_u64("--id", arg, 1, INT64_MAX, &w->id) ? 1 : -1;
	case 'H':
		sr->host = arg;
		return 1;
	case 'p':
		if (!cli_u64("--port", arg, 1, 65535, &v))
			return -1;
		sr->port = (uint16_t)v;
		w->have_port = true;
		return 1;
	case OPT_NO_COLLECT:
		sr->collect = false;
		return 1;
	default:
		return 0;
	}
}

/*
 * What a step and a re-anchor start from, in sr (whose store is open):
 * bisect id (0: the newest) into *b, its rule and configuration (the JSON
 * in *cj), and the endpoints' values and round trips (owned by the
 * caller: *gv, *bv, *gx, *bx). Returns 0, or -1 after saying why.
 */
static int step_open(struct step_run *sr, struct store_bisect *b, int64_t id, const char *db,
		     json_t **cj, double **gv, double **bv, double **gx, double **bx)
{
	struct base_err err = { "" };
	char key[1024];

	if (store_bisect_get(sr->st, id, b, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	sr->b = b;
	rule_from(b, &sr->rule);
	*cj = json_loads(b->config, 0, NULL);
	if (!*cj || job_config_from_json(*cj, &sr->cfg, &err) ||
	    job_config_key(&sr->cfg, key, sizeof(key)) || strcmp(key, b->config_key)) {
		cli_error("bisect %" PRId64 ": its stored configuration cannot be read back%s%s",
			  b->id, err.msg[0] ? ": " : "", err.msg);
		return -1;
	}
	if (load_values(sr->st, b->good_label, b->config_key, b->metric, gv, gx, &sr->ng, NULL, &err) ||
	    load_values(sr->st, b->bad_label, b->config_key, b->metric, bv, bx, &sr->nb, NULL, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	if (sr->ng < 2 || sr->nb < 2) {
		cli_error("the endpoints '%s' (%zu samples) and '%s' (%zu) are gone from %s",
			  b->good_label, sr->ng, b->bad_label, sr->nb, cli_db_path(db));
		return -1;
	}
	sr->gv = *gv;
	sr->bv = *bv;
	sr->gx = *gx;
	sr->bx = *bx;
	metric_unit(sr->st, b->good_label, b->config_key, b->metric, sr->unit, sizeof(sr->unit));
	return 0;
}

static int bisect_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "commit", required_argument, NULL, OPT_COMMIT },
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "db", required_argument, NULL, OPT_DB },
		{ "id", required_argument, NULL, OPT_ID },
		{ "max-reps", required_argument, NULL, OPT_MAXREPS },
		{ "host", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'p' },
		{ "no-collect", no_argument, NULL, OPT_NO_COLLECT },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "reanchor", required_argument, NULL, OPT_REANCHOR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct step_run sr;
	struct store_bisect b;
	struct bisect_decision d;
	struct base_err err = { "" };
	const char *commit_arg = NULL, *repo = NULL;
	struct step_where w = { NULL, 0, false };
	char commit[BISECT_COMMIT_MAX + 1];
	double *gv = NULL, *bv = NULL, *xv = NULL, *gx = NULL, *bx = NULL, *xx = NULL;
	size_t nx = 0, cap;
	uint64_t max_reps = 0;
	json_t *cj = NULL;
	int opt, ret, code = BISECT_EXIT_ABORT;

	/* git bisect run reads any other exit code from 1 to 127 as "bad":
	 * every failure here is a skip (125) or an abort (128) */
	memset(&sr, 0, sizeof(sr));
	memset(&b, 0, sizeof(b));
	sr.port = PROTO_DEFAULT_PORT;
	sr.collect = true;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "H:p:h", opts, NULL)) != -1) {
		int r = step_common_opt(opt, optarg, &sr, &w);

		if (r < 0)
			return BISECT_EXIT_ABORT;
		if (r)
			continue;
		switch (opt) {
		case OPT_COMMIT:
			if (!bisect_commit_valid(optarg) || is_anchor(optarg)) {
				cli_error("invalid --commit '%s': expected 1 to %d printable characters without spaces, not starting '%s'",
					  optarg, BISECT_COMMIT_MAX, ANCHOR_PREFIX);
				return BISECT_EXIT_ABORT;
			}
			commit_arg = optarg;
			break;
		case OPT_REPO:
			repo = optarg;
			break;
		case OPT_MAXREPS:
			if (!cli_u64("--max-reps", optarg, 2, BISECT_REPS_LIMIT, &max_reps))
				return BISECT_EXIT_ABORT;
			break;
		case OPT_SETTLE:
			if (!cli_duration("--settle", optarg, &sr.settle_ns))
				return BISECT_EXIT_ABORT;
			break;
		case OPT_REANCHOR:
			sr.reanchor_cmd = optarg;
			break;
		case 'h':
			fputs(bisect_help, stdout);
			return EXIT_OK;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			cli_usage_hint("bisect");
			return BISECT_EXIT_ABORT;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return BISECT_EXIT_ABORT;
	}
	if (w.have_port && !sr.host) {
		cli_error("--port needs --host");
		return BISECT_EXIT_ABORT;
	}
	if (commit_arg)
		snprintf(commit, sizeof(commit), "%s", commit_arg);
	else if (repo ? bisect_commit_git(repo, "HEAD", commit, sizeof(commit), &err) :
			bisect_commit_kernel(commit, sizeof(commit), &err)) {
		cli_error("cannot tell the commit: %s", err.msg);
		return BISECT_EXIT_ABORT;
	}
	if (cli_db_open(cli_db_path(w.db), true, &sr.st))
		return BISECT_EXIT_ABORT;
	if (step_open(&sr, &b, (int64_t)w.id, w.db, &cj, &gv, &bv, &gx, &bx))
		goto out;
	if (max_reps) {
		if (max_reps < sr.rule.min_reps) {
			cli_error("invalid --max-reps %" PRIu64 ": below the bisect's minimum %u",
				  max_reps, sr.rule.min_reps);
			goto out;
		}
		sr.rule.max_reps = (unsigned)max_reps;
	}
	if (store_bisect_step_label(b.id, commit, sr.row.label, sizeof(sr.row.label))) {
		cli_error("commit id '%s' is too long for a label", commit);
		goto out;
	}
	sr.row.bisect_id = b.id;
	snprintf(sr.row.commit, sizeof(sr.row.commit), "%s", commit);

	/* a commit decided before (a reboot, a second call) keeps its verdict */
	ret = store_bisect_step_get(sr.st, b.id, commit, &sr.row, &err);
	if (ret && ret != -ENOENT) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (load_values(sr.st, sr.row.label, b.config_key, b.metric, &xv, &xx, &nx, NULL, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (!ret) {
		enum bisect_verdict old;

		if (!bisect_verdict_parse(sr.row.verdict, &old) && bisect_verdict_final(old)) {
			struct bisect_decision od = {
				.verdict = old, .n = (size_t)sr.row.n, .llr = sr.row.llr,
				.pos = { sr.row.position, sr.row.position_lo, sr.row.position_hi },
				.why = "stored: decided before",
				.endpoints_only = true, /* the sides then are not kept */
				.toward = bisect_toward(old, sr.row.llr),
				.llr_bad = log((1 - sr.rule.beta) / sr.rule.alpha),
				.llr_good = log(sr.rule.beta / (1 - sr.rule.alpha)),
			};

			print_decision(commit, &od, sr.unit, xv, nx, NULL, NULL, NULL);
			code = bisect_exit_code(old, sr.row.llr);
			goto out;
		}
	}
	/* continue from the runs stored (an undecided step, an abort) */
	cap = (nx > sr.rule.max_reps ? nx : sr.rule.max_reps) + 1;
	sr.x = malloc(cap * sizeof(*sr.x));
	sr.xcpu = malloc(cap * sizeof(*sr.xcpu));
	sr.elsewhere = malloc(cap * sizeof(*sr.elsewhere));
	if (!sr.x || !sr.xcpu || !sr.elsewhere) {
		cli_error("out of memory");
		goto out;
	}
	if (nx) {
		memcpy(sr.x, xv, nx * sizeof(*xv));
		memcpy(sr.xcpu, xx, nx * sizeof(*xx));
	}
	sr.n = nx;
	if (step_hist_load(sr.st, &b, gv, sr.ng, bv, sr.nb, commit, &sr.hist, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (decide_and_store(&sr, &d, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (nx)
		fprintf(stderr, "commit %s: %zu runs stored before, %s\n", commit, nx,
			bisect_verdict_name(d.verdict));
	ret = step_loop(&sr, &d);
	if (ret < 0 && d.verdict != BISECT_ABORT)
		say_drift(&sr, &d);
	/* once a step: the sides measured now, then decided again */
	if (ret < 0 && d.reanchor && sr.reanchor_cmd) {
		if (run_reanchor(&sr, &err) || decide_and_store(&sr, &d, &err)) {
			cli_error("%s", err.msg);
			goto out;
		}
		ret = step_loop(&sr, &d);
	}
	if (ret >= 0) {
		code = ret;
		goto out;
	}
	print_decision(commit, &d, sr.unit, sr.x, sr.n, &sr.place, sr.elsewhere, sr.xcpu);
	code = bisect_exit_code(d.verdict, d.llr);
out:
	json_decref(cj);
	free(sr.x);
	free(sr.xcpu);
	free(sr.elsewhere);
	step_hist_release(&sr.hist);
	free(xv);
	free(xx);
	free(gx);
	free(bx);
	free(gv);
	free(bv);
	store_bisect_release(&b);
	store_close(sr.st);
	return code;
}

/* ---- reanchor ---- */

/* Measure the side now: reps runs under a step row "anchor:SIDE:K". */
static int reanchor_measure(struct step_run *sr, enum bisect_side side, size_t reps)
{
	struct base_err err = { "" };
	struct steps_acc acc = { NULL, 0, 0 };
	struct cli_testbed tb;
	double *v = NULL, med = NAN, end = NAN;
	int code = EXIT_RUNTIME;

	if (store_bisect_steps(sr->st, sr->b->id, collect_step, &acc, &err)) {
		cli_error("%s", err.msg[0] ? err.msg : "out of memory");
		return EXIT_RUNTIME;
	}
	snprintf(sr->row.commit, sizeof(sr->row.commit), ANCHOR_PREFIX "%s:%zu",
		 side ? "bad" : "good", acc.n + 1);
	free(acc.rows);
	sr->row.bisect_id = sr->b->id;
	v = malloc(reps * sizeof(*v));
	if (!v || store_bisect_step_label(sr->b->id, sr->row.commit, sr->row.label,
					  sizeof(sr->row.label))) {
		cli_error("out of memory");
		free(v);
		return EXIT_RUNTIME;
	}
	cli_testbed_init(&tb);
	cli_signals();
	for (sr->n = 0; sr->n < reps; sr->n++) {
		double xcpu;
		bool dist;

		if (measure(sr, &tb, &v[sr->n], &xcpu, &dist, &err) || cli_interrupted) {
			cli_error("re-anchoring the %s side, run %zu: %s", side ? "bad" : "good",
				  sr->n + 1, cli_interrupted ? "interrupted" : err.msg);
			goto out;
		}
		fprintf(stderr, "run %zu/%zu: %.5g %s%s\n", sr->n + 1, reps, v[sr->n], sr->unit,
			dist ? " (flagged disturbed by foreign CPU load)" : "");
	}
	snprintf(sr->row.verdict, sizeof(sr->row.verdict), "%s", side ? "bad" : "good");
	sr->row.n = (int64_t)reps;
	sr->row.position = sr->row.position_lo = sr->row.position_hi = sr->row.llr = NAN;
	if (store_bisect_step_put(sr->st, &sr->row, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	stats_median(v, reps, &med);
	stats_median(side ? sr->bv : sr->gv, side ? sr->nb : sr->ng, &end);
	printf("re-anchored the %s side (%s): %zu runs, median %.5g %s, %+.1f%% from its endpoint '%s' (%.5g %s)\n",
	       side ? "bad" : "good", sr->row.commit, reps, med, sr->unit, 100 * (med / end - 1),
	       side ? sr->b->bad_label : sr->b->good_label, end, sr->unit);
	code = EXIT_OK;
out:
	cli_testbed_release(&tb);
	free(v);
	return code;
}

static int bisect_reanchor_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "side", required_argument, NULL, OPT_SIDE },
		{ "reps", required_argument, NULL, OPT_REPS },
		{ "db", required_argument, NULL, OPT_DB },
		{ "id", required_argument, NULL, OPT_ID },
		{ "host", required_argument, NULL, 'H' },
		{ "port", required_argument, NULL, 'p' },
		{ "no-collect", no_argument, NULL, OPT_NO_COLLECT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct step_run sr;
	struct store_bisect b;
	double *gv = NULL, *bv = NULL, *gx = NULL, *bx = NULL;
	const char *side = NULL;
	struct step_where w = { NULL, 0, false };
	uint64_t reps = 0;
	json_t *cj = NULL;
	int opt, code = EXIT_USAGE;

	memset(&sr, 0, sizeof(sr));
	memset(&b, 0, sizeof(b));
	sr.port = PROTO_DEFAULT_PORT;
	sr.collect = true;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "H:p:h", opts, NULL)) != -1) {
		int r = step_common_opt(opt, optarg, &sr, &w);

		if (r < 0)
			return EXIT_USAGE;
		if (r)
			continue;
		switch (opt) {
		case OPT_SIDE:
			if (strcmp(optarg, "good") && strcmp(optarg, "bad")) {
				cli_error("invalid --side '%s': expected good or bad", optarg);
				return EXIT_USAGE;
			}
			side = optarg;
			break;
		case OPT_REPS:
			if (!cli_u64("--reps", optarg, 2, 100, &reps))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(bisect_help, stdout);
			return EXIT_OK;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("bisect");
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage_hint("bisect");
	}
	if (!side) {
		cli_error("bisect reanchor needs --side good or --side bad");
		return cli_usage_hint("bisect");
	}
	if (w.have_port && !sr.host) {
		cli_error("--port needs --host");
		return EXIT_USAGE;
	}
	if (cli_db_open(cli_db_path(w.db), true, &sr.st))
		return EXIT_RUNTIME;
	code = EXIT_RUNTIME;
	if (!step_open(&sr, &b, (int64_t)w.id, w.db, &cj, &gv, &bv, &gx, &bx))
		code = reanchor_measure(&sr, strcmp(side, "good") ? BISECT_SIDE_BAD : BISECT_SIDE_GOOD,
					reps ? (size_t)reps : sr.rule.min_reps);
	json_decref(cj);
	free(gv);
	free(bv);
	free(gx);
	free(bx);
	store_bisect_release(&b);
	store_close(sr.st);
	return code;
}

/* ---- log ---- */

/*
 * What moved with the bisected metric between the endpoints (the bad
 * label against the good one, every metric of their samples, as compare
 * ranks it): into *t, built reports true. A failure to load or build
 * leaves the log without it and says why on stderr.
 */
static bool log_why(struct store *st, const struct store_bisect *b, struct stats_table *t)
{
	struct cli_samples sg = { 0 }, sb = { 0 };
	struct stats_table_opts o;
	struct base_err err = { "" };
	int ret;

	stats_table_opts_init(&o);
	ret = cli_samples_load(st, b->good_label, b->config_key, &sg, &err);
	if (!ret)
		ret = cli_samples_load(st, b->bad_label, b->config_key, &sb, &err);
	if (!ret && (!sg.n || !sb.n))
		ret = -ENOENT;
	if (!ret && !(ret = stats_table_build(sg.p, sg.n, sb.p, sb.n, &o, t)))
		report_why_env(t, sg.p[0], sb.p[0]);
	if (ret)
		cli_error("what moved with it is left out: %s",
			  err.msg[0] ? err.msg : strerror(-ret));
	cli_samples_release(&sg);
	cli_samples_release(&sb);
	return !ret;
}

/* The log, and after it what moved with the metric between the endpoints. */
static int log_print(struct store *st, const struct store_bisect *b, const struct bisect_log *l,
		     bool json)
{
	struct stats_table t;
	bool why = log_why(st, b, &t);

	if (json) {
		json_t *doc = bisect_log_json(l);

		if (doc && why)
			json_object_set_new(doc, "explained_by", report_why_json(&t));
		if (!doc) {
			cli_error("out of memory");
			if (why)
				stats_table_release(&t);
			return EXIT_RUNTIME;
		}
		json_dumpf(doc, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		bisect_log_text(stdout, l);
		if (why) {
			fprintf(stdout, "\nbetween the endpoints (%s against %s):\n", b->bad_label,
				b->good_label);
			report_why_list(stdout, &t, REPORT_WHY_TOP, "");
		}
	}
	if (why)
		stats_table_release(&t);
	return EXIT_OK;
}

static int bisect_log_cmd(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "repo", required_argument, NULL, OPT_REPO },
		{ "db", required_argument, NULL, OPT_DB },
		{ "id", required_argument, NULL, OPT_ID },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct base_err err = { "" };
	struct store_bisect b;
	struct steps_acc acc = { NULL, 0, 0 };
	struct bisect_log l;
	struct bisect_log_step *steps = NULL;
	char **parents = NULL, good_commit[72], bad_commit[72], bad_parent[72], unit[16];
	double **values = NULL, *gv = NULL, *bv = NULL;
	const char *repo = NULL, *db = NULL;
	bool json = false, have_good_commit = false, have_bad = false;
	struct store *st = NULL;
	uint64_t id = 0;
	int opt, ret, code = EXIT_RUNTIME;

	memset(&b, 0, sizeof(b));
	memset(&l, 0, sizeof(l));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_REPO:
			repo = optarg;
			break;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_ID:
			if (!cli_u64("--id", optarg, 1, INT64_MAX, &id))
				return EXIT_USAGE;
			break;
		case OPT_JSON:
			json = true;
			break;
		case 'h':
			fputs(bisect_help, stdout);
			return EXIT_OK;
		default:
			cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("bisect");
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage_hint("bisect");
	}
	if (cli_db_open(cli_db_path(db), false, &st))
		return EXIT_RUNTIME;
	if (store_bisect_get(st, (int64_t)id, &b, &err) ||
	    store_bisect_steps(st, b.id, collect_step, &acc, &err)) {
		cli_error("%s", err.msg[0] ? err.msg : "out of memory");
		goto out;
	}
	steps = calloc(acc.n + 1, sizeof(*steps));
	values = calloc(acc.n + 1, sizeof(*values));
	parents = calloc(acc.n + 1, sizeof(*parents));
	if (!steps || !values || !parents) {
		cli_error("out of memory");
		goto out;
	}
	if (load_values(st, b.good_label, b.config_key, b.metric, &gv, NULL, &l.ngood, NULL, &err) ||
	    load_values(st, b.bad_label, b.config_key, b.metric, &bv, NULL, &l.nbad, NULL, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < acc.n; i++) {
		struct bisect_log_step *s = &steps[i];
		char rev[BISECT_COMMIT_MAX + 2];
		struct base_err gerr;

		s->commit = acc.rows[i].commit;
		if (bisect_verdict_parse(acc.rows[i].verdict, &s->verdict))
			s->verdict = BISECT_UNDECIDED;
		s->n = (size_t)acc.rows[i].n;
		s->pos.pos = acc.rows[i].position;
		s->pos.lo = acc.rows[i].position_lo;
		s->pos.hi = acc.rows[i].position_hi;
		s->llr = acc.rows[i].llr;
		if (load_values(st, acc.rows[i].label, b.config_key, b.metric,
				&values[i], NULL, &s->nvalues, &s->ndisturbed, &err)) {
			cli_error("%s", err.msg);
			goto out;
		}
		s->values = values[i];
		if (repo) {
			parents[i] = malloc(72);
			if (!parents[i]) {
				cli_error("out of memory");
				goto out;
			}
			snprintf(rev, sizeof(rev), "%s^", s->commit);
			if (!bisect_commit_git(repo, rev, parents[i], 72, &gerr))
				s->parent = parents[i];
		}
	}
	if (repo && !bisect_commit_git(repo, b.good_label, good_commit, sizeof(good_commit), &err))
		have_good_commit = true;
	if (repo && !bisect_commit_git(repo, b.bad_label, bad_commit, sizeof(bad_commit), &err)) {
		char rev[80];

		snprintf(rev, sizeof(rev), "%s^", bad_commit);
		have_bad = !bisect_commit_git(repo, rev, bad_parent, sizeof(bad_parent), &err);
	}
	metric_unit(st, b.good_label, b.config_key, b.metric, unit, sizeof(unit));
	l.id = b.id;
	l.good_label = b.good_label;
	l.bad_label = b.bad_label;
	l.config_key = b.config_key;
	l.metric = b.metric;
	l.unit = unit;
	l.good = gv;
	l.bad = bv;
	l.good_commit = have_good_commit ? good_commit : NULL;
	l.bad_commit = have_bad ? bad_commit : NULL;
	l.bad_parent = have_bad ? bad_parent : NULL;
	l.conf = b.conf;
	l.steps = steps;
	l.nsteps = acc.n;
	if ((ret = bisect_log_finish(&l))) {
		cli_error("cannot make the log: %s", strerror(-ret));
		goto out;
	}
	code = log_print(st, &b, &l, json);
out:
	for (size_t i = 0; i < acc.n; i++) {
		if (values)
			free(values[i]);
		if (parents)
			free(parents[i]);
	}
	free(values);
	free(parents);
	free(steps);
	free(acc.rows);
	free(gv);
	free(bv);
	store_bisect_release(&b);
	store_close(st);
	return code;
}

int cmd_bisect(int argc, char **argv)
{
	if (argc < 2) {
		fputs(bisect_help, stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(bisect_help, stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "start"))
		return bisect_start(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return bisect_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "log"))
		return bisect_log_cmd(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reanchor"))
		return bisect_reanchor_cmd(argc - 1, argv + 1);
	cli_error("unknown bisect command '%s': expected start, run, reanchor or log", argv[1]);
	/* `bisect run` typos inside a git bisect run script must not read as "bad" */
	return BISECT_EXIT_ABORT;
}
