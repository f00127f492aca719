// SPDX-License-Identifier: GPL-2.0-only
/* `netregress probe`: where the host keeps the CPUs and how busy it is, with no traffic. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "cli/cli.h"
#include "collect/cpu.h"
#include "collect/exits.h"
#include "collect/others.h"
#include "collect/speed.h"
#include "collect/xcpu.h"
#include "stats/guard.h"
#include "stats/levels.h"

static const char probe_help[] =
	"usage: netregress probe [options]\n"
	"\n"
	"Watch, with no traffic, what moves a loopback figure on this machine:\n"
	"how far apart the host keeps the CPUs (a cache line's round trip between\n"
	"each pair, the probe a run does every 100 ms, host.xcpu_ns), and how\n"
	"busy the machine is and how much of it the host steals. For a look at a\n"
	"machine before measuring on it, and for timing another tool's run by\n"
	"the same yardstick (bench/noise.sh runs it beside iperf3 and sockperf).\n"
	"SIGINT or SIGTERM ends it early with what it saw.\n"
	"\n"
	"  -l, --duration TIME     how long (default 10s; 100ms to 24h)\n"
	"  -i, --interval TIME     a line every TIME (default 1s, or the period or\n"
	"                          the duration when that is longer or shorter;\n"
	"                          0: the end only)\n"
	"      --cpus LIST         the CPUs whose neighbours to probe: pairs of\n"
	"                          consecutive ones, a-b, b-c, ... (default every\n"
	"                          CPU this process may use; at least two; the\n"
	"                          first 16 pairs)\n"
	"      --period TIME       a round every TIME, one pair each in turn\n"
	"                          (default 100ms, as in a run; 1ms to 10s)\n"
	"      --speed             also the speed probe on each of those CPUs (a\n"
	"                          50 us burst every 50 ms, as a stream run does:\n"
	"                          host.speed): the rate, what interruptions took\n"
	"                          and the core's own pace between them\n"
	"      --json              one JSON document at the end instead\n";

enum { OPT_CPUS = 256, OPT_PERIOD, OPT_SPEED, OPT_JSON };

static const struct option probe_opts[] = {
	{ "duration", required_argument, NULL, 'l' },
	{ "interval", required_argument, NULL, 'i' },
	{ "cpus", required_argument, NULL, OPT_CPUS },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "speed", no_argument, NULL, OPT_SPEED },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define PROBE_MAX_NS (24 * 3600 * NS_PER_S)
/* how long a round's leader waits for its partner (a run: 200 us) */
#define PROBE_ARRIVE_NS (2 * NS_PER_MS)

/* One printed interval: the mean round trip of the rounds in it (NaN:
 * none), the speed probe's rate over its bursts (op/us; NaN: none or not
 * asked), and the machine's busy and stolen shares over it. */
struct probe_iv {
	double t_s, xcpu_ns, speed, busy_pct, steal_pct;
};

struct probe {
	int64_t dur_ns, iv_ns, period_ns;
	bool json, speed;
	/* as given, for messages; NULL: not given */
	const char *cpus_arg, *iv_arg, *period_arg;
	struct base_cpulist cpus;
	struct collect_xcpu_pair pair[COLLECT_XCPU_PAIRS_MAX];
	size_t npairs;
	/* each period's mean round trip, NaN when no round came through */
	double *tick;
	size_t ntick;
	struct probe_iv *iv;
	size_t niv;
	double elapsed_s;
	struct collect_cpu_pct all; /* over the whole probe */
	bool all_ok;
	/* the other processes' exact CPU over it (this one left out), and the
	 * machine's CPU time it is a share of; others_ok false: unread */
	struct collect_others_sum others;
	bool others_ok;
	double machine_ns;
	/* the exit records of the tasks that ended within it (root), or NULL
	 * and why not */
	struct collect_exits *exits;
	char exits_note[160];
	struct collect_xcpu_result xr;
	struct collect_speed_result sr; /* with speed */
	struct stats_levels lv;
	double tick_mean_ns;
	bool moved;
};

/* A duration flag's value within [lo, hi] (range says so in words); on
 * failure the message names it. */
static bool duration_within(const char *flag, const char *arg, int64_t lo, int64_t hi,
			    const char *range, int64_t *out)
{
	if (!cli_duration(flag, arg, out))
		return false;
	if (*out < lo || *out > hi) {
		cli_error("invalid %s '%s': expected %s", flag, arg, range);
		return false;
	}
	return true;
}

static bool parse_args(int argc, char **argv, struct probe *p, int *code)
{
	int opt;

	p->dur_ns = 10 * NS_PER_S;
	p->iv_ns = NS_PER_S;
	p->period_ns = 100 * NS_PER_MS;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "l:i:h", probe_opts, NULL)) != -1) {
		switch (opt) {
		case 'l':
			if (!duration_within("--duration", optarg, 100 * NS_PER_MS, PROBE_MAX_NS,
					     "100ms to 24h", &p->dur_ns))
				goto usage;
			break;
		case 'i':
			if (!cli_duration("--interval", optarg, &p->iv_ns))
				goto usage;
			p->iv_arg = optarg;
			break;
		case OPT_CPUS:
			if (!cli_cpulist("--cpus", optarg, &p->cpus))
				goto usage;
			if (p->cpus.n < 2) {
				cli_error("invalid --cpus '%s': expected at least two CPUs", optarg);
				goto usage;
			}
			p->cpus_arg = optarg;
			break;
		case OPT_PERIOD:
			if (!duration_within("--period", optarg, NS_PER_MS, 10 * NS_PER_S,
					     "1ms to 10s", &p->period_ns))
				goto usage;
			p->period_arg = optarg;
			break;
		case OPT_SPEED:
			p->speed = true;
			break;
		case OPT_JSON:
			p->json = true;
			break;
		case 'h':
			fputs(probe_help, stdout);
			*code = EXIT_OK;
			return false;
		default:
			goto usage;
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s': probe takes options only", argv[optind]);
		goto usage;
	}
	if (p->period_ns > p->dur_ns) {
		cli_error("invalid --period '%s': expected at most the duration (%.3g s)",
			  p->period_arg, (double)p->dur_ns / NS_PER_S);
		goto usage;
	}
	/* the default interval, a second, within the period and the duration */
	if (!p->iv_arg)
		p->iv_ns = p->iv_ns < p->period_ns ? p->period_ns :
			   p->iv_ns > p->dur_ns ? p->dur_ns : p->iv_ns;
	if (p->iv_ns && (p->iv_ns < p->period_ns || p->iv_ns > p->dur_ns)) {
		cli_error("invalid --interval '%s': expected 0, or from the period (%.3g s) to the duration (%.3g s)",
			  p->iv_arg, (double)p->period_ns / NS_PER_S, (double)p->dur_ns / NS_PER_S);
		goto usage;
	}
	return true;
usage:
	*code = cli_usage_hint("probe");
	return false;
}

/* Each of --cpus must be one this process may use; without it, all of
 * them. The pairs to probe; false with *code the exit code. */
static bool pick_cpus(struct probe *p, int *code)
{
	struct base_cpulist allowed;
	char have[BASE_CPULIST_STRLEN];

	*code = EXIT_RUNTIME;
	if (base_cpus_allowed(&allowed)) {
		cli_error("cannot tell which CPUs this process may use");
		return false;
	}
	base_format_cpulist(&allowed, have, sizeof(have));
	if (!p->cpus.n) {
		if (allowed.n < 2) {
			cli_error("nothing to probe: this process may use one CPU (%s), a round trip needs two",
				  have);
			return false;
		}
		p->cpus = allowed;
	}
	for (uint16_t i = 0; i < p->cpus.n; i++) {
		uint16_t j = 0;

		while (j < allowed.n && allowed.cpu[j] != p->cpus.cpu[i])
			j++;
		if (j == allowed.n) {
			cli_error("invalid --cpus '%s': cpu %u is not one this process may use (%s)",
				  p->cpus_arg, p->cpus.cpu[i], have);
			*code = cli_usage_hint("probe");
			return false;
		}
	}
	p->npairs = collect_xcpu_pairs(NULL, NULL, &p->cpus, p->pair);
	return true;
}

static bool sleep_until(int64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / NS_PER_S),
			       .tv_nsec = (long)(t_ns % NS_PER_S) };

	while (!cli_interrupted &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return !cli_interrupted;
}

static void print_iv(const struct probe_iv *v, bool speed)
{
	char x[32] = "-", sp[48] = "";

	if (isfinite(v->xcpu_ns))
		snprintf(x, sizeof(x), "%.0f ns", v->xcpu_ns);
	if (speed && isfinite(v->speed))
		snprintf(sp, sizeof(sp), "  speed %6.1f op/us", v->speed);
	else if (speed)
		snprintf(sp, sizeof(sp), "  speed %6s op/us", "-");
	printf("%7.1f s  round trip %8s%s  busy %5.1f%%  steal %5.1f%%\n", v->t_s, x, sp,
	       v->busy_pct, v->steal_pct);
	fflush(stdout);
}

/* Read the exit records waiting; a listener that fails is dropped, with
 * a note (the others then leave out the tasks that ended). */
static void drain_exits(struct probe *p)
{
	struct base_err err = { "" };

	if (p->exits && collect_exits_drain(p->exits, &err)) {
		snprintf(p->exits_note, sizeof(p->exits_note), "%s", err.msg);
		collect_exits_free(p->exits);
		p->exits = NULL;
	}
}

/*
 * The probe's loop: the rounds fall one period apart from the start; the
 * totals are read half a period after each, the machine's CPU time and the
 * speed probe's bursts (sp, or NULL) at each interval's end. Returns 0 or
 * -errno (err says what).
 */
static int watch(struct probe *p, struct collect_xcpu *x, struct collect_speed *sp,
		 struct base_err *err)
{
	struct collect_cpustat *st[3] = { collect_cpustat_new(), collect_cpustat_new(),
					  collect_cpustat_new() };
	struct collect_others *o[2] = { collect_others_new(), collect_others_new() };
	bool o_ok;
	size_t cap = (size_t)(p->dur_ns / p->period_ns) + 1;
	int64_t per_iv = p->iv_ns ? (p->iv_ns + p->period_ns / 2) / p->period_ns : 0;
	double rounds0 = 0, sum0 = 0, iv_rounds = 0, iv_sum = 0, steps0 = 0, time0 = 0;
	/* the last interval's end (at first the start) and the next one's */
	struct collect_cpustat *prev = st[0], *cur = st[1];
	int64_t t0;
	int ret = -ENOMEM;

	p->tick = malloc(cap * sizeof(*p->tick));
	p->iv = per_iv ? calloc((size_t)(cap / (size_t)per_iv) + 1, sizeof(*p->iv)) : NULL;
	if (!st[0] || !st[1] || !st[2] || !o[0] || !o[1] || !p->tick || (per_iv && !p->iv))
		goto out;
	/* the records from before the first snapshot would count twice */
	drain_exits(p);
	if (p->exits)
		collect_exits_clear(p->exits);
	o_ok = !collect_others_snap(o[0], "/proc", NULL);
	if ((ret = collect_cpustat_read(st[0], err)))
		goto out;
	if (sp && (ret = collect_speed_start(sp))) {
		base_err_set(err, ret, "the speed probe did not start");
		goto out;
	}
	t0 = base_now_ns();
	if ((ret = collect_xcpu_start(x, 0))) {
		base_err_set(err, ret, "the cross-CPU probe did not start");
		goto out;
	}
	for (int64_t k = 1; (int64_t)p->ntick < (int64_t)cap && k * p->period_ns <= p->dur_ns; k++) {
		double r, s;

		if (!sleep_until(t0 + k * p->period_ns + p->period_ns / 2))
			break;
		/* the listener's buffer holds some thousands: keep it drained */
		drain_exits(p);
		collect_xcpu_totals(x, &r, &s);
		p->tick[p->ntick++] = r > rounds0 ? (s - sum0) / (r - rounds0) : NAN;
		rounds0 = r;
		sum0 = s;
		if (per_iv && k % per_iv == 0) {
			struct probe_iv *v = &p->iv[p->niv++];
			struct collect_cpu_pct c;
			double steps, time_ns;

			v->t_s = (double)(k * p->period_ns) / NS_PER_S;
			v->xcpu_ns = r > iv_rounds ? (s - iv_sum) / (r - iv_rounds) : NAN;
			iv_rounds = r;
			iv_sum = s;
			v->speed = v->busy_pct = v->steal_pct = NAN;
			if (sp && !collect_speed_totals(sp, &steps, &time_ns)) {
				if (time_ns > time0)
					v->speed = (steps - steps0) * 1000 / (time_ns - time0);
				steps0 = steps;
				time0 = time_ns;
			}
			if (!collect_cpustat_read(cur, NULL) &&
			    !collect_cpu_pct(prev, cur, NULL, &c)) {
				v->busy_pct = c.busy;
				v->steal_pct = c.steal;
				prev = cur;
				cur = cur == st[1] ? st[2] : st[1];
			}
			if (!p->json)
				print_iv(v, sp != NULL);
		}
	}
	collect_xcpu_stop(x);
	if (sp && !collect_speed_stop(sp) && collect_speed_result(sp, &p->sr))
		p->sr.ncpu = 0;
	p->elapsed_s = (double)(base_now_ns() - t0) / NS_PER_S;
	p->all_ok = !collect_cpustat_read(st[2], NULL) &&
		    !collect_cpu_pct(st[0], st[2], NULL, &p->all);
	if (o_ok && p->all_ok && !collect_others_snap(o[1], "/proc", NULL)) {
		const struct collect_exit *ex = NULL;
		pid_t self = getpid();
		size_t nex = 0;

		drain_exits(p);
		if (p->exits) {
			collect_exits_sort(p->exits);
			ex = collect_exits_records(p->exits, &nex);
		}
		collect_others_delta(o[0], o[1], ex, nex, &self, 1, &p->others);
		p->machine_ns = (double)collect_cpustat_ncpu(st[2]) *
				(double)(st[2]->t_ns - st[0]->t_ns);
		p->others_ok = p->machine_ns > 0;
	}
	ret = collect_xcpu_result(x, &p->xr);
	if (ret)
		base_err_set(err, ret, "the cross-CPU probe kept no result");
out:
	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	for (int i = 0; i < 3; i++)
		collect_cpustat_free(st[i]);
	collect_others_free(o[0]);
	collect_others_free(o[1]);
	return ret;
}

/* The levels the rounds' figures held (as a run's window.xcpu_moved). */
static int levels(struct probe *p)
{
	double sum = 0;
	size_t k = 0;
	int ret;

	/* the finite figures in time order, in place: tick is not read again */
	for (size_t i = 0; i < p->ntick; i++)
		if (isfinite(p->tick[i])) {
			p->tick[k++] = p->tick[i];
			sum += p->tick[i];
		}
	p->ntick = k;
	p->tick_mean_ns = k ? sum / (double)k : NAN;
	if ((ret = stats_levels(p->tick, k, &p->lv)))
		return ret;
	p->moved = p->lv.tested && stats_xcpu_levels_moved(&p->lv);
	return 0;
}

static void pair_name(const struct collect_xcpu_pair_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%u-%u", r->a, r->b);
}

/* run_ns as % of the machine's CPU time over the probe */
static double pct_of(const struct probe *p, uint64_t run_ns)
{
	return 100.0 * (double)run_ns / p->machine_ns;
}

static void print_text(const struct probe *p)
{
	char name[16];

	printf("probe: %.1f s, a round every %.0f ms, %zu pair%s in turn%s%s\n", p->elapsed_s,
	       (double)p->period_ns / NS_PER_MS, p->xr.npairs, p->xr.npairs == 1 ? "" : "s",
	       p->xr.realtime ? "" : " (SCHED_FIFO refused: at normal priority)",
	       cli_interrupted ? "; interrupted" : "");
	for (size_t i = 0; i < p->xr.npairs; i++) {
		const struct collect_xcpu_pair_result *r = &p->xr.pair[i];

		pair_name(r, name, sizeof(name));
		if (!r->rounds)
			printf("cpus %-7s no round came through (%u missed)\n", name, r->missed);
		else
			printf("cpus %-7s round trip %.0f ns median, %.0f to %.0f; %u rounds, %u missed\n",
			       name, r->median_ns, r->min_ns, r->max_ns, r->rounds, r->missed);
	}
	if (!p->lv.tested)
		printf("levels       not told: %zu rounds' figures, %d needed\n", p->ntick,
		       2 * STATS_LEVEL_MIN_N);
	else if (p->lv.count == 1)
		printf("levels       one: the host kept the CPUs where they were\n");
	else
		printf("levels       %zu, %.0f to %.0f ns%s\n", p->lv.count,
		       p->lv.lo_pct * p->tick_mean_ns / 100, p->lv.hi_pct * p->tick_mean_ns / 100,
		       p->moved ? ": MOVED, the host moved the CPUs (as window.xcpu_moved)" : "");
	for (size_t i = 0; i < p->sr.ncpu; i++) {
		const struct collect_speed_cpu *c = &p->sr.cpu[i];

		if (!c->bursts)
			printf("speed cpu %-3d no burst timed\n", c->cpu);
		else
			printf("speed cpu %-3d %.1f op/us (bursts %.1f to %.1f, cov %.2f%%), %.2f%% of it lost to interruptions, the core's pace %.1f; %u bursts\n",
			       c->cpu, c->mean, c->min, c->max, c->cov_pct, c->lost_pct, c->core,
			       c->bursts);
	}
	if (p->all_ok)
		printf("machine      busy %.1f%% of its CPUs, the host's steal %.1f%%\n",
		       p->all.busy, p->all.steal);
	if (p->others_ok) {
		printf("others       %.1f%% in %u processes", pct_of(p, p->others.others_ns),
		       p->others.nprocs);
		for (size_t i = 0; i < p->others.ntop; i++) {
			printf("%s%s", i ? ", " : ": ", p->others.top[i].comm);
			/* several ended processes of one name have no one pid */
			if (p->others.top[i].pid)
				printf("[%d]", (int)p->others.top[i].pid);
			else
				printf(" (%u ended)", p->others.top[i].ended);
			printf(" %.1f%%", pct_of(p, p->others.top[i].run_ns));
		}
		printf("; kernel threads %.1f%%\n", pct_of(p, p->others.kthreads_ns));
		if (p->exits)
			printf("             of it %.1f%% in %u tasks that ended within the probe%s\n",
			       pct_of(p, p->others.exited_ns), p->others.nexited,
			       collect_exits_lost(p->exits) ?
				       " (some records were lost: the others read low)" : "");
		else
			printf("             without the tasks that ended within the probe: %s\n",
			       p->exits_note);
	}
}

static json_t *num_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The speed probe's CPUs as a JSON array (NULL when out of memory). */
static json_t *speed_json(const struct collect_speed_result *r)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < r->ncpu; i++) {
		const struct collect_speed_cpu *c = &r->cpu[i];
		bool ok = c->bursts > 0;

		if (json_array_append_new(a,
				json_pack("{s:i, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "cpu", c->cpu,
					  "bursts", (json_int_t)c->bursts, "mean",
					  num_or_null(ok ? c->mean : NAN), "min",
					  num_or_null(ok ? c->min : NAN), "max",
					  num_or_null(ok ? c->max : NAN), "cov_pct",
					  num_or_null(ok ? c->cov_pct : NAN), "lost_pct",
					  num_or_null(ok ? c->lost_pct : NAN), "core",
					  num_or_null(ok ? c->core : NAN)))) {
			json_decref(a);
			a = NULL;
		}
	}
	return a;
}

/* The other processes' CPU (others_ok), as % of the machine's. */
static json_t *others_json(const struct probe *p)
{
	json_t *top = json_array(), *j;

	for (size_t i = 0; top && i < p->others.ntop; i++)
		if (json_array_append_new(top, json_pack("{s:i, s:s, s:f, s:I}", "pid",
							 (int)p->others.top[i].pid, "comm",
							 p->others.top[i].comm, "pct",
							 pct_of(p, p->others.top[i].run_ns),
							 "ended",
							 (json_int_t)p->others.top[i].ended))) {
			json_decref(top);
			top = NULL;
		}
	if (!top)
		return NULL;
	j = json_pack("{s:f, s:I, s:f, s:o}", "pct", pct_of(p, p->others.others_ns), "procs",
		      (json_int_t)p->others.nprocs, "kthreads_pct",
		      pct_of(p, p->others.kthreads_ns), "top", top);
	if (j && (p->exits ? json_object_set_new(j, "exited",
					json_pack("{s:f, s:I, s:b}", "pct",
						  pct_of(p, p->others.exited_ns), "tasks",
						  (json_int_t)p->others.nexited, "lost",
						  collect_exits_lost(p->exits))) :
			     json_object_set_new(j, "exited_note", json_string(p->exits_note)))) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

static json_t *to_json(const struct probe *p)
{
	json_t *doc = json_pack("{s:f, s:f, s:b, s:b, s:I, s:I, s:o}", "duration_s", p->elapsed_s,
				"period_s", (double)p->period_ns / NS_PER_S, "realtime",
				p->xr.realtime, "interrupted", cli_interrupted != 0, "rounds",
				(json_int_t)p->xr.rounds, "missed", (json_int_t)p->xr.missed,
				"xcpu_ns", num_or_null(p->xr.rounds ? p->xr.median_ns : NAN));
	json_t *pairs = json_array(), *ivs = json_array();
	char name[16];

	if (!doc || !pairs || !ivs)
		goto fail;
	for (size_t i = 0; i < p->xr.npairs; i++) {
		const struct collect_xcpu_pair_result *r = &p->xr.pair[i];
		bool ok = r->rounds > 0;

		pair_name(r, name, sizeof(name));
		if (json_array_append_new(pairs,
				json_pack("{s:s, s:i, s:i, s:I, s:I, s:o, s:o, s:o}", "cpus", name,
					  "a", r->a, "b", r->b, "rounds", (json_int_t)r->rounds,
					  "missed", (json_int_t)r->missed, "median_ns",
					  num_or_null(ok ? r->median_ns : NAN), "min_ns",
					  num_or_null(ok ? r->min_ns : NAN), "max_ns",
					  num_or_null(ok ? r->max_ns : NAN))))
			goto fail;
	}
	for (size_t i = 0; i < p->niv; i++) {
		const struct probe_iv *v = &p->iv[i];

		json_t *j = json_pack("{s:f, s:o, s:o, s:o}", "t_s", v->t_s, "xcpu_ns",
				      num_or_null(v->xcpu_ns), "busy_pct",
				      num_or_null(v->busy_pct), "steal_pct",
				      num_or_null(v->steal_pct));

		if (j && p->speed && json_object_set_new(j, "speed", num_or_null(v->speed))) {
			json_decref(j);
			goto fail;
		}
		if (json_array_append_new(ivs, j))
			goto fail;
	}
	if (p->speed && json_object_set_new(doc, "speed", speed_json(&p->sr)))
		goto fail;
	if (p->others_ok && json_object_set_new(doc, "others", others_json(p)))
		goto fail;
	if (json_object_set_new(doc, "pairs", pairs) ||
	    json_object_set_new(doc, "intervals", ivs))
		goto fail_doc;
	pairs = ivs = NULL;
	if (json_object_set_new(doc, "levels",
			p->lv.tested ?
				json_pack("{s:I, s:f, s:f, s:b}", "count", (json_int_t)p->lv.count,
					  "lo_ns", p->lv.lo_pct * p->tick_mean_ns / 100,
					  "hi_ns", p->lv.hi_pct * p->tick_mean_ns / 100,
					  "moved", p->moved) :
				json_null()) ||
	    json_object_set_new(doc, "busy_pct", num_or_null(p->all_ok ? p->all.busy : NAN)) ||
	    json_object_set_new(doc, "steal_pct", num_or_null(p->all_ok ? p->all.steal : NAN)))
		goto fail_doc;
	return doc;
fail:
	json_decref(pairs);
	json_decref(ivs);
fail_doc:
	json_decref(doc);
	return NULL;
}

int cmd_probe(int argc, char **argv)
{
	struct probe p = { 0 };
	struct collect_xcpu *x = NULL;
	struct collect_speed *sp = NULL;
	struct base_err err = { "" };
	struct collect_xcpu_opts xo;
	int code;

	if (!parse_args(argc, argv, &p, &code))
		return code;
	if (!pick_cpus(&p, &code))
		return code;
	cli_signals();
	/* an idle machine's halted vCPUs wake late (collect/xcpu.h) */
	xo = (struct collect_xcpu_opts){ .pairs = p.pair, .npairs = p.npairs,
					 .period_ns = p.period_ns,
					 .arrive_ns = p.period_ns < PROBE_ARRIVE_NS ?
							      p.period_ns : PROBE_ARRIVE_NS };
	code = EXIT_RUNTIME;
	if (collect_xcpu_open(&x, &xo, &err)) {
		cli_error("the cross-CPU probe: %s", err.msg);
		goto out;
	}
	if (p.speed &&
	    collect_speed_open(&sp, &(struct collect_speed_opts){ .cpus = &p.cpus }, &err)) {
		cli_error("the speed probe: %s", err.msg);
		goto out;
	}
	/* before the window: listening forks a child to check itself */
	if (collect_exits_open(&p.exits, &err))
		snprintf(p.exits_note, sizeof(p.exits_note), "%s", err.msg);
	if (!p.json) {
		char list[BASE_CPULIST_STRLEN];

		base_format_cpulist(&p.cpus, list, sizeof(list));
		printf("probing cpus %s for %.1f s (pairs of neighbours, a round every %.0f ms)\n",
		       list, (double)p.dur_ns / NS_PER_S, (double)p.period_ns / NS_PER_MS);
	}
	if (watch(&p, x, sp, &err)) {
		cli_error("probe: %s", err.msg);
		goto out;
	}
	if (levels(&p)) {
		cli_error("probe: out of memory");
		goto out;
	}
	if (p.json) {
		json_t *doc = to_json(&p);

		if (!doc) {
			cli_error("probe: out of memory");
			goto out;
		}
		json_dumpf(doc, stdout, JSON_INDENT(2));
		putchar('\n');
		json_decref(doc);
	} else {
		print_text(&p);
	}
	code = EXIT_OK;
out:
	collect_exits_free(p.exits);
	collect_speed_free(sp);
	collect_xcpu_free(x);
	free(p.tick);
	free(p.iv);
	return code;
}
