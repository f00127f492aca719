// SPDX-License-Identifier: GPL-2.0-only
/* `netregress run TEST [options]`: one test, against -H or a local server. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/parse.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/confopts.h"
#include "cli/settle.h"
#include "collect/profile.h"
#include "engine/result.h"
#include "engine/session.h"
#include "job/config.h"
#include "proto/frame.h"
#include "report/report.h"
#include "stats/desc.h"
#include "stats/power.h"
#include "stats/table.h"
#include "stats/verdict.h"
#include "store/store.h"

static const char run_help[] =
	"usage: netregress run [TEST] [options]\n"
	"\n"
	"TEST is tcp_stream (default), tcp_sendfile (the same, written with\n"
	"sendfile(2) from a file of one message, netperf's TCP_SENDFILE),\n"
	"udp_stream, tcp_rr, udp_rr, tcp_crr (connect, request, response,\n"
	"close) or tcp_cc (connect and close, netperf's TCP_CC).\n"
	"Without -H, a server is started on loopback for the run and stopped\n"
	"afterwards.\n"
	"\n"
	"  -H, --host HOST         server to test against (netregress serve)\n"
	"  -p, --port PORT         its control port (default 9127)\n"
	"  -l, --duration TIME     measured window (default 10s; 500ms, 1m...)\n"
	"      --warmup TIME       run before the window, discarded (default 2s);\n"
	"                          auto: until the 100 ms rates stop trending\n"
	"                          (at least 1s, at most 10s; auto:MAX sets the cap)\n"
	"  -i, --interval TIME     print receiver-side rates every TIME, with the\n"
	"                          probes' figures over it (cpus: the cross-CPU\n"
	"                          round trip; speed: the speed probe)\n";

/* After the workload options (the parameter table's). */
static const char run_help_tail[] =
	"      --label LABEL       what this sample belongs to (default: uname -r)\n"
	"      --reps N            repeat the test N times, each a sample; the\n"
	"                          end gives the headline's median, cov, the 95%\n"
	"                          interval of its mean, and the runs a side that\n"
	"                          compare needs to call a 5% or 10% change\n"
	"      --until-ci PCT      repeat until the 95% interval of the headline's\n"
	"                          mean is within +-PCT% (at least 3 and --reps\n"
	"                          samples; those flagged disturbed do not count)\n"
	"      --keep-disturbed    count the repetitions flagged disturbed in the\n"
	"                          summary and --until-ci, as compare\n"
	"                          --keep-disturbed pools them (a host that always\n"
	"                          steals: every sample disturbed)\n"
	"      --max-reps N        the cap for --until-ci (default 3 x --reps,\n"
	"                          at least 9)\n"
	"      --settle TIME       with several: after a repetition flagged\n"
	"                          disturbed, wait until the machine is quiet (left\n"
	"                          alone, its CPUs busy under 3%; kept busy, the\n"
	"                          host stealing under 1% of them: a half second\n"
	"                          each) for up to TIME before the next (default 0)\n"
	"      --db PATH           store samples here (default $NETREGRESS_DB or\n"
	"                          ./netregress.db), each the moment it finishes\n"
	"      --no-store          do not store\n"
	"      --profile           sample the kernel on the test's CPUs, both ends;\n"
	"                          stores profile.self.<symbol> and, from the call\n"
	"                          chains, profile.children.<symbol> shares; prints\n"
	"                          the top\n"
	"      --profile-min PCT   keep the symbols whose share is at least PCT % of\n"
	"                          the samples (0 to 100, default 0.1; at most 2000)\n"
	"      --no-collect        no kernel counters, no perf counters, no probes\n"
	"      --speed, --no-speed the CPU speed probe (host.speed.*: 50 us of a timed\n"
	"                          loop every 50 ms on each test CPU) on or off\n"
	"                          (default: on for streams, off for rr and crr)\n"
	"      --xcpu, --no-xcpu   the cross-CPU probe (host.xcpu_ns: a cache line's\n"
	"                          round trip between the client's and the server's\n"
	"                          CPUs, 32 of them every 100 ms) on or off (default:\n"
	"                          on when the server shares this machine)\n"
	"      --overhead          what the in-window collectors (perf counters, the\n"
	"                          probes, --profile) cost: both ends switch them\n"
	"                          on and off in 200 ms phases, and on/off pairs of\n"
	"                          phase rates give overhead.pct with a 95% interval\n"
	"                          (not stored)\n"
	"      --json              print one JSON document (docs/results.md)\n"
	"      --connect-timeout TIME   (default 5s)\n"
	"      --control-timeout TIME   longest silence from the server (10s)\n";

enum {
	OPT_WARMUP = 256,
	OPT_LABEL, OPT_JSON, OPT_CTIMEOUT, OPT_CONTROL_TIMEOUT,
	OPT_DB, OPT_NO_STORE, OPT_REPS, OPT_PROFILE, OPT_PROFILE_MIN,
	OPT_NO_COLLECT, OPT_SPEED, OPT_NO_SPEED, OPT_XCPU, OPT_NO_XCPU, OPT_OVERHEAD,
	OPT_UNTIL, OPT_MAXREPS, OPT_SETTLE, OPT_KEEP,
};

static const struct option run_opts[] = {
	{ "host", required_argument, NULL, 'H' },
	{ "port", required_argument, NULL, 'p' },
	{ "duration", required_argument, NULL, 'l' },
	{ "warmup", required_argument, NULL, OPT_WARMUP },
	{ "interval", required_argument, NULL, 'i' },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "connect-timeout", required_argument, NULL, OPT_CTIMEOUT },
	{ "control-timeout", required_argument, NULL, OPT_CONTROL_TIMEOUT },
	{ "db", required_argument, NULL, OPT_DB },
	{ "no-store", no_argument, NULL, OPT_NO_STORE },
	{ "reps", required_argument, NULL, OPT_REPS },
	{ "until-ci", required_argument, NULL, OPT_UNTIL },
	{ "keep-disturbed", no_argument, NULL, OPT_KEEP },
	{ "max-reps", required_argument, NULL, OPT_MAXREPS },
	{ "settle", required_argument, NULL, OPT_SETTLE },
	{ "profile", no_argument, NULL, OPT_PROFILE },
	{ "profile-min", required_argument, NULL, OPT_PROFILE_MIN },
	{ "no-collect", no_argument, NULL, OPT_NO_COLLECT },
	{ "speed", no_argument, NULL, OPT_SPEED },
	{ "no-speed", no_argument, NULL, OPT_NO_SPEED },
	{ "xcpu", no_argument, NULL, OPT_XCPU },
	{ "no-xcpu", no_argument, NULL, OPT_NO_XCPU },
	{ "overhead", no_argument, NULL, OPT_OVERHEAD },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --overhead needs this much window: ten 200 ms phases, of which the
 * first starts at the first tick after the mark and the last is cut by
 * the stop, so four or five on/off pairs end inside it */
#define OVERHEAD_MIN_NS (2 * NS_PER_S)

static void print_interval(void *ctx, const struct engine_interval *iv)
{
	const struct job_config *c = ctx;

	fprintf(stderr, "[%7.2f-%7.2f s] %s", iv->t0_s, iv->t1_s,
		iv->warmup ? "warm-up " : "");
	if (iv->rr) {
		fprintf(stderr, " %12.0f transactions/s", iv->tps);
	} else {
		if (c->dir != JOB_DIR_RECV)
			fprintf(stderr, " send %9.3f Gbps", iv->c2s_gbps);
		if (c->dir != JOB_DIR_SEND)
			fprintf(stderr, " recv %9.3f Gbps", iv->s2c_gbps);
	}
	/* what the probes saw meanwhile: the host moving the vCPUs or
	 * slowing them shows beside the rate it moved */
	if (isfinite(iv->xcpu_ns))
		fprintf(stderr, "  cpus %5.0f ns", iv->xcpu_ns);
	if (isfinite(iv->speed))
		fprintf(stderr, "  speed %4.0f op/us", iv->speed);
	fputc('\n', stderr);
}

static bool is_loopback(const char *host)
{
	return !strcmp(host, "127.0.0.1") || !strcmp(host, "::1") ||
	       !strcmp(host, "localhost") || !strncmp(host, "127.", 4);
}

/*
 * --overhead's verdict: "collectors' cost: X% of the rate, 95% interval
 * [LO%, HI%], from N on/off pairs..." (long) or "collectors' cost X% [LO%,
 * HI%]" (a repetition's line), or why it was not measured.
 */
static void print_overhead(const struct base_sample *s, bool brief)
{
	const struct sample_metric *n = base_sample_get(s, "overhead.pairs");
	const struct sample_metric *p = base_sample_get(s, "overhead.pct");
	const struct sample_metric *lo = base_sample_get(s, "overhead.pct_lo");
	const struct sample_metric *hi = base_sample_get(s, "overhead.pct_hi");

	if (!p || !lo || !hi || !n)
		printf("collectors' cost%snot measured: %.0f on/off pairs of phases ended in the window, 2 needed",
		       brief ? " " : ": ", n ? n->value : 0);
	else if (brief)
		printf("collectors' cost %.2f%% [%.2f%%, %.2f%%]", p->value, lo->value, hi->value);
	else
		printf("collectors' cost: %.2f%% of the rate, 95%% interval [%.2f%%, %.2f%%], from %.0f on/off pairs of 200 ms phases",
		       p->value, lo->value, hi->value, n->value);
}

/* --reps and --max-reps at most; --until-ci's default cap at least */
#define RUN_MAX_REPS 100000
#define RUN_UNTIL_MIN_CAP 9

/* What --reps, --until-ci and --max-reps ask for. */
struct rep_plan {
	uint64_t reps;     /* at least this many samples */
	double until;      /* > 0: then until the mean is known within +-until % */
	uint64_t max_reps; /* and at most this many (until > 0) */
	int64_t settle_ns; /* after a disturbed one: wait this long at most for a quiet machine */
	bool keep_disturbed; /* those flagged disturbed count too */
};

/* The headline of every repetition that counts: not flagged disturbed,
 * unless the plan keeps those. */
struct rep_tally {
	struct cli_tally k;
	/* those left out as disturbed: what the summary shows, as compare
	 * pools them, when k has none */
	struct cli_tally d;
	size_t disturbed; /* flagged: left out, or counted when kept */
	bool keep;
	char unit[32];
};

/* Too few kept samples for an interval, or no interval: +inf. */
static double tally_half_pct(const struct rep_tally *t)
{
	return stats_settle_half_pct(t->k.v, t->k.n);
}

static int tally_add(struct rep_tally *t, const struct base_sample *s,
		     const char *headline)
{
	const struct sample_metric *m = base_sample_get(s, headline);
	bool out = cli_disturbed(s) && !t->keep;

	t->disturbed += cli_disturbed(s);
	if (!m || !isfinite(m->value))
		return 0;
	snprintf(t->unit, sizeof(t->unit), "%s", m->unit);
	return cli_tally_add(out ? &t->d : &t->k, s, m->value);
}

/* Whether another repetition is due after `done` of them. */
static bool rep_more(const struct rep_plan *p, const struct rep_tally *t,
		     uint64_t done)
{
	if (done < p->reps)
		return true;
	return p->until > 0 && done < p->max_reps && !(tally_half_pct(t) <= p->until);
}

/*
 * The end of several repetitions: the headline over those that count,
 * the runs compare would need a side at this noise, and whether
 * --until-ci got its interval.
 */
static void print_tally(const struct rep_tally *t, const struct rep_plan *p,
			const char *headline, uint64_t done)
{
	struct stats_compare_opts co;
	/* every one disturbed: all of them, as compare pools them */
	const struct cli_tally *k = t->k.n || t->keep ? &t->k : &t->d;
	double med = NAN, mean = NAN, cv = NAN;
	double half = stats_settle_half_pct(k->v, k->n);
	size_t n5, n10;

	printf("\n%s over %zu sample%s", headline, k->n, k->n == 1 ? "" : "s");
	if (t->disturbed && t->keep)
		printf(" (%zu of them flagged disturbed by foreign CPU load: counted, as --keep-disturbed asks)",
		       t->disturbed);
	else if (k == &t->d && k->n)
		printf(" (all flagged disturbed by foreign CPU load: summarized anyway, as compare pools them when a side has no other; what disturbed them is in their figures)");
	else if (t->disturbed)
		printf(" (%zu more flagged disturbed by foreign CPU load: stored, left out here as compare leaves them out)",
		       t->disturbed);
	if (!k->n) {
		puts(": none to summarize");
		/* every repetition disturbed: --until-ci still says so */
		if (p->until > 0)
			printf("--until-ci %.3g%%: not reached: 0 samples count, an interval needs %d\n",
			       p->until, STATS_SETTLE_MIN_N);
		return;
	}
	stats_median(k->v, k->n, &med);
	printf(": median %.5g %s", med, t->unit);
	if (k->n >= 2 && !stats_mean(k->v, k->n, &mean) &&
	    !stats_cv_pct(k->v, k->n, &cv))
		printf(", mean %.5g, cov %.2f%%", mean, cv);
	if (isfinite(half))
		printf(", 95%% interval of the mean +-%.2f%%", half);
	putchar('\n');
	if (report_windows_spread(stdout, k->v, k->windows ? k->w : NULL, k->x, k->n) < 0)
		cli_error("out of memory: the CPUs' distance is not shown");
	stats_compare_opts_init(&co);
	if (isfinite(cv) &&
	    !stats_runs_needed(cv, cv, 5, co.alpha, co.power, &n5) &&
	    !stats_runs_needed(cv, cv, 10, co.alpha, co.power, &n10))
		printf("at this cov, compare needs %zu samples a side to call a 5%% change, %zu a 10%% change (alpha %.2g, power %.2g)\n",
		       n5, n10, co.alpha, co.power);
	if (!(p->until > 0))
		return;
	/* --until-ci counts no disturbed sample */
	half = tally_half_pct(t);
	if (half <= p->until)
		printf("--until-ci %.3g%%: reached after %" PRIu64 " samples (+-%.2f%%)\n",
		       p->until, done, half);
	else if (isfinite(half))
		printf("--until-ci %.3g%%: not reached: +-%.2f%% after %" PRIu64 " samples%s\n",
		       p->until, half, done, done >= p->max_reps ? " (--max-reps)" : "");
	else
		printf("--until-ci %.3g%%: not reached: %zu samples count, an interval needs %d\n",
		       p->until, t->k.n, STATS_SETTLE_MIN_N);
}

/*
 * Run the configuration as often as the plan asks against the same
 * server; store each sample the moment it is measured, then print it (a
 * table, or JSON: one document, or an array of them for several
 * repetitions), and after several a summary.
 */
static int run_reps(const struct engine_client_opts *o, const char *label,
		    bool json, struct store *st, const char *db_path,
		    const struct rep_plan *plan, bool same_host)
{
	bool many = plan->reps > 1 || plan->until > 0;
	json_t *docs = json && many ? json_array() : NULL;
	const char *headline = stats_headline_metric(job_test_name(o->cfg.test));
	struct rep_tally tally = { .keep = plan->keep_disturbed };
	int code = EXIT_OK;
	uint64_t rep = 0;

	while (!cli_interrupted && rep_more(plan, &tally, rep)) {
		struct base_err err = { "" };
		struct base_sample sample;
		struct engine_run run;
		const char *lbl = label;
		bool inserted;
		json_t *doc;

		rep++;
		base_sample_init(&sample);
		if (engine_client_run(o, &run, &err)) {
			cli_error("%s%s", many ? "repetition failed: " : "", err.msg);
			code = EXIT_RUNTIME;
			goto next;
		}
		if (!lbl) {
			lbl = json_string_value(json_object_get(run.env_local, "kernel"));
			if (!lbl)
				lbl = "unknown";
		}
		if (cli_sample(&o->cfg, &run, lbl, same_host, &sample, &err)) {
			cli_error("%s", err.msg);
			code = EXIT_RUNTIME;
			goto next;
		}
		if (st && store_add_sample(st, &sample, &inserted, &err)) {
			cli_error("cannot store the sample: %s", err.msg);
			code = EXIT_RUNTIME;
		}
		if (tally_add(&tally, &sample, headline)) {
			cli_error("out of memory");
			code = EXIT_RUNTIME;
		}
		if (json) {
			doc = base_sample_to_json(&sample);
			if (!doc) {
				cli_error("out of memory");
				code = EXIT_RUNTIME;
			} else if (docs) {
				json_array_append_new(docs, doc);
			} else {
				json_dumpf(doc, stdout, JSON_INDENT(2));
				fputc('\n', stdout);
				json_decref(doc);
			}
		} else if (!many) {
			report_sample_table(stdout, &sample);
			if (o->overhead) {
				putchar('\n');
				print_overhead(&sample, false);
				putchar('\n');
			}
		} else {
			const struct sample_metric *m = base_sample_get(&sample, headline);
			double half = tally_half_pct(&tally);

			if (plan->until > 0)
				printf("repetition %" PRIu64 " (at most %" PRIu64 "): ", rep,
				       plan->max_reps);
			else
				printf("repetition %" PRIu64 "/%" PRIu64 ": ", rep, plan->reps);
			printf("%s %.4g %s%s", m ? m->name : "?", m ? m->value : 0,
			       m ? m->unit : "", st ? " (stored)" : "");
			if (plan->until > 0 && isfinite(half))
				printf(", mean within +-%.2f%%", half);
			if (o->overhead) {
				fputs(", ", stdout);
				print_overhead(&sample, true);
			}
			if (cli_disturbed(&sample)) {
				char why[512];

				report_disturbed_text(&sample, why, sizeof(why));
				printf("; DISTURBED: %s (%s)", why,
				       plan->keep_disturbed ? "counted: --keep-disturbed" : "not counted");
			}
			putchar('\n');
			fflush(stdout);
		}
		/* the next repetition, if any, once the machine is quiet */
		if (plan->settle_ns && many && cli_disturbed(&sample) && rep_more(plan, &tally, rep))
			cli_settle_say(json ? stderr : stdout, plan->settle_ns);
next:
		engine_run_release(&run);
		base_sample_release(&sample);
		if (code != EXIT_OK)
			break;
	}
	if (cli_interrupted && code == EXIT_OK) {
		cli_error("interrupted");
		code = EXIT_RUNTIME;
	}
	if (docs) {
		json_dumpf(docs, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(docs);
	}
	if (!json && many && code == EXIT_OK)
		print_tally(&tally, plan, headline, rep);
	else if (json && plan->until > 0 && code == EXIT_OK &&
		 !(tally_half_pct(&tally) <= plan->until))
		fprintf(stderr, "netregress: --until-ci %.3g%%: not reached after %" PRIu64 " samples\n",
			plan->until, rep);
	if (!json && many && st && code == EXIT_OK)
		printf("stored in %s; 'netregress show LABEL' summarizes them\n",
		       db_path);
	cli_tally_release(&tally.k);
	cli_tally_release(&tally.d);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct engine_client_opts o = {
		.port = PROTO_DEFAULT_PORT,
		.connect_timeout_ns = 5 * NS_PER_S,
		.control_timeout_ns = 10 * NS_PER_S,
		.interrupted = &cli_interrupted,
		.steady = cli_steady,
		.counters = true,
		.perf = true,
		.profile_min_pct = COLLECT_PROFILE_MIN_PCT,
	};
	struct job_config *c = &o.cfg;
	struct base_cpulist allowed;
	struct base_err err = { "" };
	const char *label = NULL, *test = NULL, *db = NULL;
	bool json = false, have_port = false, no_store = false, no_collect = false;
	bool have_profile_min = false;
	int speed = -1; /* --speed 1, --no-speed 0, else per test */
	int xcpu = -1;  /* --xcpu 1, --no-xcpu 0, else on a shared machine */
	struct store *st = NULL;
	struct rep_plan plan = { .reps = 1 };
	struct option opts[CLI_MAX_OPTIONS];
	char shorts[64];
	uint64_t v;
	pid_t server = 0;
	int opt, code, r;

	job_config_init(c);
	opterr = 0;
	optind = 1;
	if (cli_config_getopt(run_opts, "H:p:l:i:h", opts, shorts, sizeof(shorts)))
		BUG("too many options");
	while ((opt = getopt_long(argc, argv, shorts, opts, NULL)) != -1) {
		switch (opt) {
		case 'H':
			o.host = optarg;
			break;
		case 'p':
			if (!cli_u64("--port", optarg, 1, 65535, &v))
				return EXIT_USAGE;
			o.port = (uint16_t)v;
			have_port = true;
			break;
		case 'l':
			if (!cli_duration("--duration", optarg, &c->duration_ns))
				return EXIT_USAGE;
			break;
		case OPT_WARMUP:
			if (job_parse_warmup(optarg, &c->warmup_ns, &c->warmup_auto, &err)) {
				cli_error("--warmup: %s", err.msg);
				return EXIT_USAGE;
			}
			break;
		case 'i':
			if (!cli_duration("--interval", optarg, &c->interval_ns))
				return EXIT_USAGE;
			break;
		case OPT_LABEL:
			if (!cli_label("--label", optarg))
				return EXIT_USAGE;
			label = optarg;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_DB:
			db = optarg;
			break;
		case OPT_NO_STORE:
			no_store = true;
			break;
		case OPT_PROFILE:
			c->profile = true;
			break;
		case OPT_PROFILE_MIN:
			if (!cli_double("--profile-min", optarg, 0, 100, &o.profile_min_pct))
				return EXIT_USAGE;
			have_profile_min = true;
			break;
		case OPT_NO_COLLECT:
			o.counters = o.perf = false;
			no_collect = true;
			break;
		case OPT_SPEED:
			speed = 1;
			break;
		case OPT_NO_SPEED:
			speed = 0;
			break;
		case OPT_XCPU:
			xcpu = 1;
			break;
		case OPT_NO_XCPU:
			xcpu = 0;
			break;
		case OPT_OVERHEAD:
			o.overhead = true;
			break;
		case OPT_REPS:
			if (!cli_u64("--reps", optarg, 1, RUN_MAX_REPS, &plan.reps))
				return EXIT_USAGE;
			break;
		case OPT_UNTIL:
			if (!cli_double("--until-ci", optarg, 0.01, 100, &plan.until))
				return EXIT_USAGE;
			break;
		case OPT_MAXREPS:
			if (!cli_u64("--max-reps", optarg, 1, RUN_MAX_REPS, &plan.max_reps))
				return EXIT_USAGE;
			break;
		case OPT_SETTLE:
			if (!cli_duration("--settle", optarg, &plan.settle_ns))
				return EXIT_USAGE;
			break;
		case OPT_KEEP:
			plan.keep_disturbed = true;
			break;
		case OPT_CTIMEOUT:
			if (!cli_duration("--connect-timeout", optarg, &o.connect_timeout_ns))
				return EXIT_USAGE;
			break;
		case OPT_CONTROL_TIMEOUT:
			if (!cli_duration("--control-timeout", optarg, &o.control_timeout_ns))
				return EXIT_USAGE;
			break;
		case 'h':
			fputs(run_help, stdout);
			cli_config_help(stdout);
			fputs(run_help_tail, stdout);
			return EXIT_OK;
		default:
			r = cli_config_opt(opt, optarg, c);
			if (r > 0)
				break;
			if (r < 0)
				return EXIT_USAGE;
			if (optopt && (strchr("Hpli", optopt) || cli_config_needs_value(optopt)))
				cli_error("option -%c needs a value", optopt);
			else if (optopt)
				cli_error("unknown option '-%c'", optopt);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("run");
		}
	}
	for (; optind < argc; optind++) {
		if (test) {
			cli_error("unexpected argument '%s': one test per run", argv[optind]);
			return cli_usage_hint("run");
		}
		test = argv[optind];
	}
	if (test && job_test_parse(test, &c->test, &err)) {
		cli_error("%s", err.msg);
		return EXIT_USAGE;
	}
	if (o.connect_timeout_ns <= 0 || o.control_timeout_ns < NS_PER_S) {
		cli_error("invalid timeout: expected --connect-timeout > 0 and --control-timeout >= 1s");
		return EXIT_USAGE;
	}
	base_cpus_allowed(&allowed);
	if (job_config_finalize(c, &allowed, &err)) {
		cli_error("%s", err.msg);
		return EXIT_USAGE;
	}
	if (have_profile_min && !c->profile) {
		cli_error("--profile-min %g is the profile's threshold: expected --profile with it",
			  o.profile_min_pct);
		return EXIT_USAGE;
	}
	o.speed = speed >= 0 ? speed : !no_collect && job_test_speed_default(c->test);
	o.xcpu = xcpu >= 0 ? xcpu : !no_collect;
	if (o.overhead && !o.perf && !c->profile && !o.speed && !o.xcpu) {
		cli_error("--overhead measures what the perf counters, the probes and --profile cost: with --no-collect it needs --profile, --speed or --xcpu");
		return EXIT_USAGE;
	}
	if (o.overhead && c->duration_ns < OVERHEAD_MIN_NS) {
		cli_error("--overhead: --duration %.3gs is too short: expected at least %llds (ten 200 ms phases)",
			  (double)c->duration_ns / NS_PER_S, OVERHEAD_MIN_NS / NS_PER_S);
		return EXIT_USAGE;
	}
	if (plan.max_reps && !(plan.until > 0)) {
		cli_error("--max-reps %" PRIu64 " is the cap of --until-ci: expected --until-ci PCT with it",
			  plan.max_reps);
		return EXIT_USAGE;
	}
	if (plan.settle_ns && plan.reps < 2 && !(plan.until > 0)) {
		cli_error("--settle waits between repetitions: expected --reps N (N >= 2) or --until-ci PCT with it");
		return EXIT_USAGE;
	}
	if (plan.keep_disturbed && plan.reps < 2 && !(plan.until > 0)) {
		cli_error("--keep-disturbed counts repetitions in the summary: expected --reps N (N >= 2) or --until-ci PCT with it");
		return EXIT_USAGE;
	}
	if (plan.until > 0 && !plan.max_reps)
		plan.max_reps = plan.reps * 3 < RUN_UNTIL_MIN_CAP ? RUN_UNTIL_MIN_CAP : plan.reps * 3;
	if (plan.until > 0 && plan.max_reps < plan.reps) {
		cli_error("--max-reps %" PRIu64 " is below --reps %" PRIu64 ": expected a cap of at least the repetitions",
			  plan.max_reps, plan.reps);
		return EXIT_USAGE;
	}
	if (plan.until > 0 && plan.max_reps < STATS_SETTLE_MIN_N) {
		cli_error("--max-reps %" PRIu64 " cannot reach --until-ci: an interval needs %d samples",
			  plan.max_reps, STATS_SETTLE_MIN_N);
		return EXIT_USAGE;
	}
	/* its window mixes collectors on and off: never pooled with samples */
	if (o.overhead)
		no_store = true;
	if (!no_store && cli_db_open(cli_db_path(db), true, &st))
		return EXIT_RUNTIME;
	if (c->interval_ns && !json) {
		o.on_interval = print_interval;
		o.ctx = c;
	}
	cli_signals();
	if (!o.host) {
		if (have_port) {
			cli_error("--port needs --host: without -H a local server picks its own port");
			store_close(st);
			return EXIT_USAGE;
		}
		if (engine_local_server_start(c->ipv, &server, &o.port, &err)) {
			cli_error("%s", err.msg);
			store_close(st);
			return EXIT_RUNTIME;
		}
		o.host = c->ipv == 6 ? "::1" : "127.0.0.1";
	}
	o.same_host = is_loopback(o.host);
	/* a server elsewhere (-H that is not this machine) has no pair with
	 * this end's CPUs: the probe runs only against loopback */
	if (xcpu == 1 && !o.same_host)
		fprintf(stderr, "netregress: warning: --xcpu: the server at %s is not on loopback, and the cross-CPU probe runs only against a server on this machine's loopback: not run\n",
			o.host);
	o.xcpu = o.xcpu && o.same_host;
	code = run_reps(&o, label, json, st, cli_db_path(db), &plan, o.same_host);
	store_close(st);
	engine_local_server_stop(server);
	return code;
}
