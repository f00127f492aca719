// SPDX-License-Identifier: GPL-2.0-only
/* `netregress matrix JOB.yaml`: every combination, interleaved, stored as it goes. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "cli/cli.h"
#include "cli/load.h"
#include "cli/settle.h"
#include "cli/testbed.h"
#include "collect/env.h"
#include "collect/profile.h"
#include "engine/result.h"
#include "engine/session.h"
#include "job/jobfile.h"
#include "job/plan.h"
#include "report/report.h"
#include "stats/adjust.h"
#include "stats/desc.h"
#include "stats/table.h"
#include "store/store.h"
#include "topo/topo.h"

static const char matrix_help[] =
	"usage: netregress matrix [options] JOB.yaml\n"
	"\n"
	"Runs every combination of the job's parameters (docs/jobs.md), the\n"
	"repetitions interleaved in a shuffled order from a recorded seed, each\n"
	"sample stored the moment it finishes. Ctrl-C stops cleanly; --resume\n"
	"finishes an interrupted matrix without repeating what is stored. The\n"
	"summary (and --until-ci) counts the label's samples of each\n"
	"configuration that compare will use, those stored before this run too\n"
	"(with --keep-disturbed, those compare --keep-disturbed pools).\n"
	"A job with `labels` runs every configuration under each label,\n"
	"interleaved, setting the label's sysctls before its runs (in a veth\n"
	"topology's namespaces too) and putting them back at the end, then\n"
	"compares the first label with the others.\n"
	"\n"
	"      --db PATH          the store (default $NETREGRESS_DB or ./netregress.db)\n"
	"      --label LABEL      overrides the job's label (default: kernel release;\n"
	"                         not with the job's labels)\n"
	"      --resume           skip the repetitions already stored under the label\n"
	"                         (those compare will use: not a disturbed sample,\n"
	"                         unless --keep-disturbed)\n"
	"      --dry-run          print the plan and its expected duration, run nothing\n"
	"      --seed N           overrides the job's seed\n"
	"      --baseline LABEL   at the end, compare against this label (each of\n"
	"                         the job's labels, with labels)\n"
	"      --until-ci PCT     add repetitions to a configuration until the 95%\n"
	"                         interval of its headline mean is within +-PCT%\n"
	"                         (with labels: under every label, until each is)\n"
	"      --max-reps N       the cap for --until-ci (default 3 x repetitions)\n"
	"      --paired           the compares at the end exit 1 on a .paired\n"
	"                         row's regression (compare --paired)\n"
	"      --headline METRIC[:higher|lower]  the compares at the end judge\n"
	"                         this metric (compare --headline); the summary\n"
	"                         and --until-ci keep the test's headline\n"
	"      --where NAME=VALUE run only the configurations whose key has\n"
	"                         NAME=VALUE (repeatable, as in compare: values of\n"
	"                         one NAME are alternatives, every NAME must hold),\n"
	"                         and compare only those at the end\n"
	"      --settle TIME      before measuring a disturbed step again, wait\n"
	"                         until the machine is quiet (left alone, its CPUs\n"
	"                         busy under 3%; kept busy, the host stealing\n"
	"                         under 1% of them: a half second each), for up\n"
	"                         to TIME (default 0: at once; a machine kept\n"
	"                         busy by a process that does not end costs TIME\n"
	"                         a disturbed step)\n"
	"      --profile-min PCT  with the job's `collect: {profile: true}`: keep\n"
	"                         the symbols whose share is at least PCT % of\n"
	"                         the samples (0 to 100; default the job's\n"
	"                         `profile_min`, else 0.1)\n"
	"      --keep-disturbed   do not measure a disturbed step again: count its\n"
	"                         sample in the summary and --until-ci, as compare\n"
	"                         --keep-disturbed pools them, and pool them in the\n"
	"                         compares at the end (a host that always steals:\n"
	"                         every sample disturbed); not with --settle\n";

struct cell_state {
	/* the headlines compare will use, in run order, with their windows:
	 * those stored under the label before this run, then those measured now */
	struct cli_tally k;
	unsigned stored; /* samples stored under the label before this run */
	unsigned earlier; /* of those, the ones in k (a headline, not disturbed
			   * unless --keep-disturbed) */
	unsigned earlier_disturbed; /* of those in k, the ones flagged disturbed */
	/* the headlines left out as disturbed, stored before and now: what
	 * the summary shows, as compare pools them, when k has none */
	struct cli_tally d;
	unsigned kept_out; /* of those, measured now and disturbed on both tries */
};

/* A label the matrix stores under, and the sysctls it sets. */
struct matrix_label {
	const char *name;
	/* [topo_sysctls_count(m->sysctls)]: its value of each, NULL: the one
	 * found before the job */
	const char **values;
};

/*
 * The steps of the plan are units: unit u runs cell u % ncells under label
 * u / ncells, so that a label's runs interleave with the others'.
 */
struct matrix {
	struct job_file *jf;
	struct job_cell *cells;
	size_t ncells;
	struct matrix_label *labels;
	size_t nlabels;
	struct cell_state *st; /* [nlabels * ncells], by unit */
	struct topo_sysctls *sysctls; /* those the labels set; NULL: none */
	/* theirs, in the same order, and their values before the job */
	const char **sysctl_names, **sysctl_found;
	size_t cur_label; /* whose sysctls are set; nlabels: the originals; SIZE_MAX: not known */
	char kernel[128];
	struct store *store;
	struct cli_testbed tb;
	bool tty;
	int64_t t0;
	size_t done, total;
	unsigned failures, disturbed;
	/* --keep-disturbed: a disturbed sample counts as compare
	 * --keep-disturbed pools it, and its step is not run again */
	bool keep_disturbed;
	double profile_min_pct; /* --profile-min, the job's, or the default */
	unsigned counted_disturbed; /* with it, this run's disturbed samples in the summary */
	unsigned not_steady, mixed; /* samples whose window trended, or left a level and came back */
	unsigned moved; /* samples in whose window the host moved the test's CPUs */
	bool retrying;
	/* --settle: the bound of each wait for a quiet machine before a
	 * disturbed step runs again, and the waits' sum */
	int64_t settle_ns, settled_ns;
	const char *stop_why; /* what stopped it: the store, a sysctl */
	/* --where: its terms as given (they go to the compares too), as one
	 * line, and the job's cells before them */
	const char **where_args;
	size_t nwhere;
	char *where_text;
	const char *headline_arg; /* --headline as given, for the compares; NULL */
	size_t ncells_job;
};

struct count_ctx {
	struct matrix *m;
	size_t label;
};

static int count_row(void *ctx, const struct store_config_row *r)
{
	struct count_ctx *cc = ctx;
	struct matrix *m = cc->m;

	for (size_t i = 0; i < m->ncells; i++) {
		char key[1024];

		if (!job_config_key(&m->cells[i].cfg, key, sizeof(key)) &&
		    !strcmp(key, r->config_key))
			m->st[cc->label * m->ncells + i].stored = (unsigned)r->nsamples;
	}
	return 0;
}

/* How many samples of each unit the store holds. */
static int count_stored(struct matrix *m, struct base_err *err)
{
	for (size_t l = 0; l < m->nlabels; l++) {
		struct count_ctx cc = { m, l };
		int ret = store_configs(m->store, m->labels[l].name, count_row, &cc, err);

		if (ret)
			return ret;
	}
	return 0;
}

struct earlier_ctx {
	struct cell_state *cs;
	const char *headline;
	bool keep; /* --keep-disturbed */
};

/* A sample stored before this run: into its cell's tally as compare will
 * take it, so not when disturbed (as compare --keep-disturbed, with
 * --keep-disturbed). */
static int load_earlier(void *ctx, const struct base_sample *s, int64_t run_order)
{
	struct earlier_ctx *e = ctx;
	const struct sample_metric *h = base_sample_get(s, e->headline);
	bool disturbed = cli_disturbed(s);

	(void)run_order;
	if (!h || !isfinite(h->value))
		return 0;
	if (disturbed && !e->keep)
		return cli_tally_add(&e->cs->d, s, h->value) ? -ENOMEM : 0;
	if (cli_tally_add(&e->cs->k, s, h->value))
		return -ENOMEM;
	e->cs->earlier++;
	e->cs->earlier_disturbed += disturbed;
	return 0;
}

/* Every unit's samples stored under its label before this run. */
static int load_stored(struct matrix *m, struct base_err *err)
{
	for (size_t u = 0; u < m->nlabels * m->ncells; u++) {
		const struct job_cell *c = &m->cells[u % m->ncells];
		const char *label = m->labels[u / m->ncells].name;
		struct earlier_ctx e = {
			&m->st[u], stats_headline_metric(job_test_name(c->cfg.test)),
			m->keep_disturbed
		};
		char key[1024];
		int ret;

		if (!m->st[u].stored || job_config_key(&c->cfg, key, sizeof(key)))
			continue;
		ret = store_load_samples(m->store, label, key, load_earlier, &e, err);
		if (ret == -ENOMEM)
			return base_err_set(err, -ENOMEM,
					    "out of memory reading the samples stored under %s",
					    label);
		if (ret)
			return ret;
	}
	return 0;
}

/* Set the sysctls of label l (nlabels: the originals) unless they are. */
static int set_label(struct matrix *m, size_t l, struct base_err *err)
{
	int ret;

	if (!m->sysctls || m->cur_label == l)
		return 0;
	ret = l < m->nlabels ? topo_sysctls_apply(m->sysctls, m->labels[l].values, err) :
			       topo_sysctls_restore(m->sysctls, err);
	/* after a failure the state is unknown: set again next time */
	m->cur_label = ret ? SIZE_MAX : l;
	return ret;
}

static void fmt_dur(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / NS_PER_S;

	if (s >= 3600)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m", s / 3600, s / 60 % 60);
	else
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", s / 60, s % 60);
}

/* a window flag of a sample (NULL: none) */
static bool flag(const struct base_sample *s, const char *name)
{
	const struct sample_metric *f = s ? base_sample_get(s, name) : NULL;

	return f && f->value != 0;
}

/* A progress bar on a terminal, a log line otherwise: the sample's
 * headline and window flags, then note (NULL: none), or instead what
 * failed. */
static void progress(struct matrix *m, size_t unit, const struct base_sample *s,
		     const char *failed, const char *note)
{
	const struct job_cell *c = &m->cells[unit % m->ncells];
	char desc[1024];
	const struct sample_metric *h =
		s ? base_sample_get(s, stats_headline_metric(job_test_name(c->cfg.test))) : NULL;
	int64_t el = base_now_ns() - m->t0;
	int64_t eta = m->done ? el / (int64_t)m->done * (int64_t)(m->total - m->done) : 0;
	char e1[32], e2[32], val[1024] = "";
	int width = 30, fill = m->total ? (int)(width * m->done / m->total) : 0;

	fmt_dur(el, e1, sizeof(e1));
	fmt_dur(eta, e2, sizeof(e2));
	if (m->nlabels > 1)
		snprintf(desc, sizeof(desc), "%s %s", m->labels[unit / m->ncells].name,
			 c->desc[0] ? c->desc : "-");
	else
		snprintf(desc, sizeof(desc), "%s", c->desc[0] ? c->desc : "-");
	if (h)
		snprintf(val, sizeof(val), "%s %.4g %s%s%s%s", h->name, h->value, h->unit,
			 flag(s, "window.not_steady") ? " (not steady)" : "",
			 flag(s, "window.mixed") ? " (mixed levels)" : "",
			 flag(s, "window.xcpu_moved") ? " (host moved cpus)" : "");
	if (note)
		snprintf(val + strlen(val), sizeof(val) - strlen(val), "%s%s",
			 val[0] ? ", " : "", note);
	if (m->tty) {
		struct winsize ws;
		char head[160];
		int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col ? ws.ws_col : 80;
		int room, used;

		/* the text takes what the terminal's line has left, at least 40 */
		used = snprintf(head, sizeof(head), "[%.*s%.*s] %zu/%zu  elapsed %s  eta %s  ",
				fill, "##############################", width - fill,
				"..............................", m->done, m->total, e1, e2);
		room = cols - 1 - (used > 0 ? used : 0);
		if (room < 40)
			room = 40;
		fprintf(stderr, "\r%s%.*s\033[K", head, room, failed ? failed : val);
		if (m->done == m->total)
			fputc('\n', stderr);
	} else {
		fprintf(stderr, "step %zu/%zu (elapsed %s, eta %s): %s %s: %s\n",
			m->done, m->total, e1, e2, job_test_name(c->cfg.test),
			desc, failed ? failed : val);
	}
}

/* Wait for a quiet machine and say how it went, below the progress line. */
static void settle(struct matrix *m)
{
	if (m->tty)
		fputc('\n', stderr);
	m->settled_ns += cli_settle_say(stderr, m->settle_ns);
}

/* A sample left out as disturbed, into its unit's d. */
static void tally_out(struct matrix *m, size_t unit, const struct job_cell *c,
		      const struct base_sample *s, double v)
{
	if (cli_tally_add(&m->st[unit].d, s, v))
		cli_error("out of memory: a disturbed sample of %s is stored but not in the summary",
			  c->desc[0] ? c->desc : job_test_name(c->cfg.test));
}

/* One repetition of one unit: its label's sysctls, measure, store, report
 * progress. A failed measurement is counted and the matrix goes on; a
 * failed store or sysctl stops it (-EIO). */
static int run_step(struct matrix *m, size_t unit)
{
	size_t ci = unit % m->ncells, li = unit / m->ncells;
	struct job_cell *c = &m->cells[ci];
	struct engine_client_opts o = {
		.cfg = c->cfg,
		.connect_timeout_ns = 5 * NS_PER_S,
		.control_timeout_ns = 10 * NS_PER_S,
		.interrupted = &cli_interrupted,
		.steady = cli_steady,
		.counters = m->jf->collect.counters,
		.perf = m->jf->collect.perf,
		.speed = m->jf->collect.speed_set ? m->jf->collect.speed :
			 job_test_speed_default(c->cfg.test),
		/* every testbed's server shares this machine */
		.xcpu = m->jf->collect.xcpu,
		.profile_min_pct = m->profile_min_pct,
	};
	struct base_err err = { "" };
	struct base_sample s;
	struct engine_run run;
	bool inserted;
	int ret;

	base_sample_init(&s);
	memset(&run, 0, sizeof(run));
	if (set_label(m, li, &err)) {
		cli_error("label %s: %s", m->labels[li].name, err.msg);
		m->stop_why = "a sysctl could not be set";
		return -EIO;
	}
	ret = cli_testbed_prepare(&m->tb, &c->cfg, &o, &err);
	/* in a veth topology's namespaces, those with a writable copy of their own */
	if (!ret && m->sysctls && job_config_is_veth(&c->cfg) &&
	    cli_testbed_veth_sysctls(&m->tb, m->sysctl_names, m->labels[li].values,
				     m->sysctl_found, topo_sysctls_count(m->sysctls), &err)) {
		cli_error("label %s: %s", m->labels[li].name, err.msg);
		m->stop_why = "a sysctl could not be set";
		return -EIO;
	}
	if (!ret)
		ret = cli_testbed_run(&m->tb, &o, &run, &err);
	if (!ret)
		ret = cli_sample(&c->cfg, &run, m->labels[li].name, o.same_host, &s, &err);
	if (!ret && store_add_sample(m->store, &s, &inserted, &err)) {
		cli_error("cannot store the sample: %s", err.msg);
		m->stop_why = "the store failed";
		ret = -EIO;
	}
	m->done++;
	if (!ret) {
		const struct sample_metric *h =
			base_sample_get(&s, stats_headline_metric(job_test_name(c->cfg.test)));
		bool disturbed = cli_disturbed(&s), left_out;
		char why[512], note[640];

		/* a disturbed sample stays stored (compare leaves it out) and
		 * its step runs once more, unless --keep-disturbed counts it */
		if (disturbed && !m->retrying && !m->keep_disturbed) {
			if (h)
				tally_out(m, unit, c, &s, h->value);
			report_disturbed_text(&s, why, sizeof(why));
			snprintf(note, sizeof(note), "disturbed by %s: running it again%s", why,
				 m->settle_ns ? " once the machine is quiet" : "");
			progress(m, unit, &s, note, NULL);
			m->total++;
			m->disturbed++;
			engine_run_release(&run);
			base_sample_release(&s);
			if (m->settle_ns)
				settle(m);
			m->retrying = true;
			ret = run_step(m, unit);
			m->retrying = false;
			return ret;
		}
		/* what --until-ci, the summary and the closing counts take:
		 * the samples compare uses, so not one disturbed again on its
		 * second try; with --keep-disturbed, those compare
		 * --keep-disturbed pools: every one */
		left_out = disturbed && !m->keep_disturbed;
		if (disturbed && m->keep_disturbed)
			m->disturbed++;
		if (h && !left_out) {
			if (cli_tally_add(&m->st[unit].k, &s, h->value))
				cli_error("out of memory: a sample of %s is stored but not in the summary",
					  c->desc[0] ? c->desc : job_test_name(c->cfg.test));
			else
				m->counted_disturbed += disturbed;
		} else if (h) {
			m->st[unit].kept_out++;
			tally_out(m, unit, c, &s, h->value);
		}
		if (!left_out) {
			m->not_steady += flag(&s, "window.not_steady");
			m->mixed += flag(&s, "window.mixed");
			m->moved += flag(&s, "window.xcpu_moved");
		}
		if (disturbed)
			report_disturbed_text(&s, why, sizeof(why));
		if (h && left_out) {
			char line[800];

			/* left out unless none of the configuration's samples
			 * ends clean: compare (and the summary, marked *)
			 * then pools them all, which is not known yet */
			snprintf(line, sizeof(line), "%s %.4g %s, disturbed again by %s: stored, left out while its configuration has a clean sample",
				 h->name, h->value, h->unit, why);
			progress(m, unit, &s, line, NULL);
		} else if (disturbed && m->keep_disturbed) {
			snprintf(note, sizeof(note), "disturbed by %s: %s", why,
				 h ? "counted, as --keep-disturbed asks" : "stored");
			progress(m, unit, &s, NULL, note);
		} else {
			progress(m, unit, &s, NULL, NULL);
		}
	} else if (ret != -EINTR) {
		m->failures++;
		progress(m, unit, NULL, err.msg, NULL);
	}
	engine_run_release(&run);
	base_sample_release(&s);
	return ret == -EIO || ret == -EINTR ? ret : 0;
}

/* --until-ci: is the cell's headline mean known within +-pct? */
static bool settled(const struct cell_state *cs, double pct)
{
	return stats_settle_half_pct(cs->k.v, cs->k.n) <= pct;
}

/*
 * --until-ci's round r: the units to run (*n steps in *order, free() it),
 * in an order drawn from seed + r. With labels a cell goes on under every
 * label while any of its labels is unsettled, so that each round still
 * runs each label once: the labels keep equal counts, and compare's
 * .paired row its pairs. Each cell's labels run in the orders of the
 * plan (job_plan_label_order(seed, cell, r, ...)): every two labels' two
 * orders take turns in every two rounds, so they stay within one of each
 * other however many rounds it takes (a fixed order would let a drift
 * within a pair read as a change); prev is the step run last. Returns 0
 * or -ENOMEM.
 */
static int until_round(const struct matrix *m, double pct, uint64_t seed, unsigned r,
		       const struct job_plan_step *prev, struct job_plan_step **order, size_t *n)
{
	struct job_plan_step *o;
	size_t k = 0, norder, *units = malloc(m->nlabels * m->ncells * sizeof(*units));
	int ret;

	*n = 0;
	*order = NULL;
	if (!units)
		return -ENOMEM;
	for (size_t u = 0; u < m->nlabels * m->ncells; u++) {
		bool done = true;

		for (size_t l = 0; l < m->nlabels && done; l++)
			done = settled(&m->st[l * m->ncells + u % m->ncells], pct);
		if (!done)
			units[k++] = u;
	}
	ret = k ? job_plan_make(k, 1, seed + r, &o, &norder) : 0;
	if (k && !ret) {
		for (size_t i = 0; i < norder; i++)
			o[i].cell = units[o[i].cell];
		if (m->nlabels > 1)
			ret = job_plan_orient_round(o, norder, m->ncells, m->nlabels, seed, r, prev);
		if (ret) {
			free(o);
		} else {
			*order = o;
			*n = norder;
		}
	}
	free(units);
	return ret;
}

/* "net.core.rmem_default=65536 net.ipv4.tcp_rmem=4096 8192 8192" for
 * label l: what it sets, or the values found before the job for the ones
 * it leaves. */
static void label_settings(const struct matrix *m, size_t l, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < topo_sysctls_count(m->sysctls) && off < len; i++) {
		const char *v = m->labels[l].values[i];
		int w = snprintf(buf + off, len - off, "%s%s=%s%s", off ? ", " : "",
				 topo_sysctls_name(m->sysctls, i),
				 v ? v : topo_sysctls_original(m->sysctls, i),
				 v ? "" : " (as found)");

		if (w > 0)
			off += (size_t)w;
	}
}

/*
 * --where: keep the cells whose key passes every term. A term that names
 * nothing of the job is refused, naming what it has. Returns an exit code.
 */
static int where_cells(struct matrix *m, const struct cli_where *w)
{
	struct cli_keys k = { 0 };
	const char *job = m->jf->path;
	char key[1024];
	size_t kept = 0;
	int code = EXIT_RUNTIME;

	m->ncells_job = m->ncells;
	if (!w->n)
		return EXIT_OK;
	if (!(m->where_text = cli_where_text(w)) || !(k.key = calloc(m->ncells, sizeof(*k.key))))
		goto nomem;
	k.cap = m->ncells;
	for (; k.n < m->ncells; k.n++)
		if (job_config_key(&m->cells[k.n].cfg, key, sizeof(key)) ||
		    !(k.key[k.n] = strdup(key)))
			goto nomem;
	if ((code = cli_where_apply(w, &k, &job, 1)))
		goto out;
	for (size_t i = 0; i < m->ncells; i++) {
		if (!job_config_key(&m->cells[i].cfg, key, sizeof(key)) && cli_where_match(w, key)) {
			m->cells[kept++] = m->cells[i];
			continue;
		}
		free(m->cells[i].value);
		free(m->cells[i].desc);
	}
	m->ncells = kept;
	goto out;
nomem:
	cli_error("out of memory");
out:
	cli_keys_release(&k);
	return code;
}

/* " (of the job's M: --where ...)" after the configurations' count, or "". */
static void where_desc(const struct matrix *m, char *buf, size_t len)
{
	buf[0] = '\0';
	if (m->where_text)
		snprintf(buf, len, " (of the job's %zu: --where %s)", m->ncells_job, m->where_text);
}

static void print_plan(const struct matrix *m, const struct job_plan_step *steps,
		       size_t nsteps, uint64_t seed)
{
	char d[32], set[1024], wd[512];

	fmt_dur(job_plan_duration_ns(nsteps, m->jf->warmup_ns, m->jf->duration_ns), d,
		sizeof(d));
	where_desc(m, wd, sizeof(wd));
	if (m->nlabels == 1)
		printf("job %s: %zu configurations%s x %u repetitions, %zu steps to run, seed %" PRIu64
		       ", label %s, expected duration %s\n",
		       m->jf->path, m->ncells, wd, m->jf->reps, nsteps, seed, m->labels[0].name, d);
	else
		printf("job %s: %zu configurations%s x %zu labels x %u repetitions, %zu steps to run, seed %" PRIu64
		       ", expected duration %s\n",
		       m->jf->path, m->ncells, wd, m->nlabels, m->jf->reps, nsteps, seed, d);
	for (size_t l = 0; m->sysctls && l < m->nlabels; l++) {
		label_settings(m, l, set, sizeof(set));
		printf("  label %s: %s\n", m->labels[l].name, set);
	}
	for (size_t u = 0; u < m->nlabels * m->ncells; u++) {
		const struct job_cell *c = &m->cells[u % m->ncells];
		char key[1024];

		if (job_config_key(&c->cfg, key, sizeof(key)))
			key[0] = '\0';
		if (m->nlabels > 1)
			printf("  %4zu  %-16.16s %-40s stored %u  %s\n", u,
			       m->labels[u / m->ncells].name, c->desc[0] ? c->desc : "-",
			       m->st[u].stored, key);
		else
			printf("  %4zu  %-40s stored %u  %s\n", u, c->desc[0] ? c->desc : "-",
			       m->st[u].stored, key);
	}
	printf("order:");
	for (size_t i = 0; i < nsteps && i < 1000; i++)
		printf(" %zu", steps[i].cell);
	printf("%s\n", nsteps > 1000 ? " ..." : "");
}

/* A cell's cov with the CPUs' distance taken out, as compare's .xcpu_adj
 * row takes it out: from within the windows, else between the samples;
 * NaN where it was not. */
static double adjusted_cv(const struct cli_tally *k)
{
	struct stats_adjust win, smp;
	double cv;

	if (stats_adjust_one_cv(k->v, k->windows ? k->w : NULL, k->x, k->n, &win, &smp, &cv))
		return NAN;
	return cv;
}

/* The summary's rows of label l; the number of them whose every sample was
 * disturbed (shown all, as compare pools them, and marked *). */
static unsigned summary_rows(const struct matrix *m, size_t l)
{
	unsigned all_disturbed = 0;

	for (size_t i = 0; i < m->ncells; i++) {
		const struct cell_state *cs = &m->st[l * m->ncells + i];
		const struct cli_tally *k = cs->k.n ? &cs->k : &cs->d;
		const struct job_cell *c = &m->cells[i];
		double med = NAN, cv = NAN, acv = adjusted_cv(k);
		char n[24];

		if (k->n)
			stats_median(k->v, k->n, &med);
		if (k->n >= 2)
			stats_cv_pct(k->v, k->n, &cv);
		snprintf(n, sizeof(n), "%zu%s", k->n, k == &cs->d && k->n ? "*" : "");
		all_disturbed += k == &cs->d && k->n;
		printf("%-44.44s %4s ", c->desc[0] ? c->desc : job_test_name(c->cfg.test), n);
		if (k->n)
			printf("%12.5g %8.1f%%", med, isnan(cv) ? 0.0 : cv);
		else
			printf("%12s %9s", "-", "-");
		if (isnan(acv))
			printf(" %9s", "-");
		else
			printf(" %8.1f%%", acv);
		printf("  %s\n", stats_headline_metric(job_test_name(c->cfg.test)));
	}
	/* under the table, the configurations whose samples sat at two
	 * distances: the spread at each */
	for (size_t i = 0; i < m->ncells; i++) {
		const struct cell_state *cs = &m->st[l * m->ncells + i];
		const struct cli_tally *k = cs->k.n ? &cs->k : &cs->d;
		const struct job_cell *c = &m->cells[i];
		char prefix[160];

		snprintf(prefix, sizeof(prefix), "%s: ",
			 c->desc[0] ? c->desc : job_test_name(c->cfg.test));
		if (report_spread_split(stdout, prefix, k->v, k->x, k->windows ? k->w : NULL,
					k->n) < 0)
			cli_error("out of memory: the CPUs' distances are not shown");
	}
	return all_disturbed;
}

/* compare a and the labels others[0..n) into the summary (with --paired,
 * --headline, --keep-disturbed and the matrix's --where); its exit code. */
static int compare_labels(const struct matrix *m, const char *db, const char *a,
			  const char *const *others, size_t n, bool paired)
{
	char **argv = calloc(9 + 2 * m->nwhere + n, sizeof(*argv));
	int argc = 0, ret;

	if (!argv) {
		cli_error("out of memory: %s and the other labels are not compared", a);
		return EXIT_RUNTIME;
	}
	argv[argc++] = "compare";
	argv[argc++] = "--db";
	argv[argc++] = (char *)cli_db_path(db);
	if (paired)
		argv[argc++] = "--paired";
	if (m->headline_arg) {
		argv[argc++] = "--headline";
		argv[argc++] = (char *)m->headline_arg;
	}
	/* the samples the summary counted */
	if (m->keep_disturbed)
		argv[argc++] = "--keep-disturbed";
	for (size_t i = 0; i < m->nwhere; i++) {
		argv[argc++] = "--where";
		argv[argc++] = (char *)m->where_args[i];
	}
	argv[argc++] = (char *)a;
	for (size_t i = 0; i < n; i++)
		argv[argc++] = (char *)others[i];
	putchar('\n');
	fflush(stdout);
	ret = cmd_compare(argc, argv);
	free(argv);
	return ret;
}

/*
 * The summary: each configuration's headline (per label, with labels),
 * then the compare: the baseline against each label, or with labels and
 * no baseline, the first label against the others; its exit code (a
 * label without a configuration in common with the baseline is a runtime
 * error, over a regression, over none).
 */
static int summary(struct matrix *m, const char *db, const char *baseline, bool paired)
{
	const char *a = baseline ? baseline : m->labels[0].name;
	const char **others;
	unsigned earlier = 0, earlier_disturbed = 0, all_disturbed = 0, kept_out = 0;
	const char *as = m->keep_disturbed ? "compare --keep-disturbed" : "compare";
	int code = EXIT_OK;
	size_t n = 0;
	char set[1024];

	for (size_t u = 0; u < m->nlabels * m->ncells; u++) {
		earlier += m->st[u].earlier;
		earlier_disturbed += m->st[u].earlier_disturbed;
		/* a configuration marked * counts its disturbed samples */
		if (m->st[u].k.n)
			kept_out += m->st[u].kept_out;
	}
	for (size_t l = 0; l < m->nlabels; l++) {
		if (m->nlabels > 1) {
			label_settings(m, l, set, sizeof(set));
			printf("\nlabel %s%s%s\n", m->labels[l].name, set[0] ? ": " : "", set);
		} else {
			putchar('\n');
		}
		printf("%-44s %4s %12s %9s %9s  %s\n", "configuration", "n", "median", "±%sd",
		       "adj ±%sd", "headline");
		all_disturbed += summary_rows(m, l);
	}
	if (all_disturbed)
		printf("*: every sample of the configuration was flagged disturbed by foreign CPU load; n counts them all, as compare pools them when a side has no other (what disturbed them is in their figures)\n");
	printf("adj ±%%sd: the spread with the CPUs' distance taken out, as compare's .xcpu_adj row takes it out (within the windows where the host moved the CPUs in %d of them, else between the samples where their round trips span a move); '-' where its slope did not pass its test, neither could be fitted, or with fewer than %d samples ('netregress show %s' prints the fit)\n",
	       STATS_ADJUST_MIN_WINDOWS, STATS_ADJUST_MIN_N, m->nlabels == 1 ? m->labels[0].name : "LABEL");
	if (earlier && m->nlabels == 1)
		printf("n counts %u sample%s stored under %s before this run, as %s will\n",
		       earlier, earlier == 1 ? "" : "s", m->labels[0].name, as);
	else if (earlier)
		printf("n counts %u sample%s stored under their labels before this run, as %s will\n",
		       earlier, earlier == 1 ? "" : "s", as);
	if (m->counted_disturbed + earlier_disturbed) {
		unsigned k = m->counted_disturbed + earlier_disturbed;

		printf("n counts %u sample%s flagged disturbed by foreign CPU load, as --keep-disturbed asks (compare --keep-disturbed pools them too)",
		       k, k == 1 ? "" : "s");
		if (earlier_disturbed)
			printf(", %u of them stored before this run", earlier_disturbed);
		putchar('\n');
	}
	if (kept_out)
		printf("n leaves out %u sample%s disturbed by foreign CPU load on both tries (stored; compare leaves them out too)\n",
		       kept_out, kept_out == 1 ? "" : "s");
	/* the baseline against every other label, in one compare */
	if (!(others = calloc(m->nlabels, sizeof(*others)))) {
		cli_error("out of memory: the labels are not compared");
		return EXIT_RUNTIME;
	}
	for (size_t l = 0; l < m->nlabels; l++)
		if (strcmp(a, m->labels[l].name))
			others[n++] = m->labels[l].name;
	if (n)
		code = compare_labels(m, db, a, others, n, paired);
	free(others);
	return code;
}

/*
 * The labels: the job's `labels`, or the one label (--label, the job's
 * `label`, the kernel release). With labels that set sysctls, their
 * originals are read now: a sysctl that is missing or read-only stops the
 * matrix before its first run.
 */
static int make_labels(struct matrix *m, const char *label, struct base_err *err)
{
	const struct job_file *jf = m->jf;
	const char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = -ENOMEM;

	m->nlabels = jf->nlabels ? jf->nlabels : 1;
	m->cur_label = SIZE_MAX;
	m->labels = calloc(m->nlabels, sizeof(*m->labels));
	if (!m->labels)
		goto out;
	if (!jf->nlabels) {
		m->labels[0].name = label;
		return 0;
	}
	/* every sysctl any label names, in the order first named */
	for (size_t l = 0; l < jf->nlabels; l++)
		cap += jf->labels[l].nsysctls;
	names = calloc(cap ? cap : 1, sizeof(*names));
	if (!names)
		goto out;
	for (size_t l = 0; l < jf->nlabels; l++)
		for (size_t i = 0; i < jf->labels[l].nsysctls; i++) {
			size_t j;

			for (j = 0; j < n && strcmp(names[j], jf->labels[l].sysctl_name[i]); j++)
				;
			if (j == n)
				names[n++] = jf->labels[l].sysctl_name[i];
		}
	if (n && (ret = topo_sysctls_new(names, n, &m->sysctls, err)))
		goto out;
	ret = -ENOMEM;
	for (size_t l = 0; l < jf->nlabels; l++) {
		m->labels[l].name = jf->labels[l].name;
		m->labels[l].values = calloc(n ? n : 1, sizeof(*m->labels[l].values));
		if (!m->labels[l].values)
			goto out;
		for (size_t i = 0; i < n; i++)
			m->labels[l].values[i] = job_label_sysctl(&jf->labels[l], names[i]);
	}
	m->sysctl_found = calloc(n ? n : 1, sizeof(*m->sysctl_found));
	if (!m->sysctl_found)
		goto out;
	for (size_t i = 0; i < n; i++)
		m->sysctl_found[i] = topo_sysctls_original(m->sysctls, i);
	m->sysctl_names = names;
	names = NULL;
	ret = 0;
out:
	if (ret == -ENOMEM)
		base_err_set(err, ret, "out of memory");
	free(names);
	return ret;
}

/* Put the sysctls back as the job found them; once is enough. */
static int restore(struct matrix *m)
{
	struct base_err err = { "" };

	if (!m->sysctls || m->cur_label == m->nlabels)
		return 0;
	if (set_label(m, m->nlabels, &err)) {
		cli_error("cannot put the sysctls back as they were: %s (%s keeps their values before the job for 'netregress topo down')",
			  err.msg, topo_sysctls_journal(m->sysctls));
		return -EIO;
	}
	return 0;
}

static void free_labels(struct matrix *m)
{
	for (size_t l = 0; m->labels && l < m->nlabels; l++)
		free(m->labels[l].values);
	free(m->labels);
	free(m->sysctl_names);
	free(m->sysctl_found);
	topo_sysctls_free(m->sysctls);
}

enum { OPT_DB = 256, OPT_LABEL, OPT_RESUME, OPT_DRY, OPT_SEED, OPT_BASE,
       OPT_UNTIL, OPT_MAXREPS, OPT_PAIRED, OPT_WHERE, OPT_SETTLE, OPT_KEEP, OPT_HEADLINE,
       OPT_PROFILE_MIN };

int cmd_matrix(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "db", required_argument, NULL, OPT_DB },
		{ "label", required_argument, NULL, OPT_LABEL },
		{ "resume", no_argument, NULL, OPT_RESUME },
		{ "dry-run", no_argument, NULL, OPT_DRY },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "baseline", required_argument, NULL, OPT_BASE },
		{ "until-ci", required_argument, NULL, OPT_UNTIL },
		{ "max-reps", required_argument, NULL, OPT_MAXREPS },
		{ "paired", no_argument, NULL, OPT_PAIRED },
		{ "where", required_argument, NULL, OPT_WHERE },
		{ "headline", required_argument, NULL, OPT_HEADLINE },
		{ "settle", required_argument, NULL, OPT_SETTLE },
		{ "keep-disturbed", no_argument, NULL, OPT_KEEP },
		{ "profile-min", required_argument, NULL, OPT_PROFILE_MIN },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct matrix m = { 0 };
	struct cli_where where = { 0 };
	struct base_cpulist allowed;
	struct base_err err = { "" };
	struct job_plan_step *steps = NULL;
	const char *db = NULL, *label = NULL, *label_flag = NULL, *baseline = NULL;
	bool resume = false, dry = false, have_seed = false, paired = false;
	bool have_profile_min = false;
	double until = 0;
	uint64_t seed = 0, max_reps = 0;
	size_t nsteps = 0, nunits = 0;
	unsigned *done = NULL;
	char wd[512];
	int opt, ret, code = EXIT_RUNTIME;

	/* the --where terms as given, for the compares at the end */
	if (!(m.where_args = calloc((size_t)argc, sizeof(*m.where_args)))) {
		cli_error("out of memory");
		return EXIT_RUNTIME;
	}
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_DB:
			db = optarg;
			break;
		case OPT_LABEL:
			if (!cli_label("--label", optarg)) {
				code = EXIT_USAGE;
				goto out;
			}
			label = label_flag = optarg;
			break;
		case OPT_RESUME:
			resume = true;
			break;
		case OPT_DRY:
			dry = true;
			break;
		case OPT_SEED:
			if (!cli_u64("--seed", optarg, 0, UINT64_MAX, &seed)) {
				code = EXIT_USAGE;
				goto out;
			}
			have_seed = true;
			break;
		case OPT_BASE:
			baseline = optarg;
			break;
		case OPT_UNTIL:
			if (!cli_double("--until-ci", optarg, 0.01, 100, &until)) {
				code = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_MAXREPS:
			if (!cli_u64("--max-reps", optarg, 1, JOB_MAX_REPS, &max_reps)) {
				code = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_PAIRED:
			paired = true;
			break;
		case OPT_HEADLINE: {
			struct cli_headline h;

			/* refused now, not after the runs */
			if ((code = cli_headline_parse(optarg, &h)))
				goto out;
			m.headline_arg = optarg;
			break;
		}
		case OPT_WHERE:
			if ((code = cli_where_add(&where, optarg)))
				goto out;
			m.where_args[m.nwhere++] = optarg;
			break;
		case OPT_SETTLE:
			if (!cli_duration("--settle", optarg, &m.settle_ns)) {
				code = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_KEEP:
			m.keep_disturbed = true;
			break;
		case OPT_PROFILE_MIN:
			if (!cli_double("--profile-min", optarg, 0, 100, &m.profile_min_pct)) {
				code = EXIT_USAGE;
				goto out;
			}
			have_profile_min = true;
			break;
		case 'h':
			fputs(matrix_help, stdout);
			code = EXIT_OK;
			goto out;
		default:
			if (optopt >= OPT_DB)
				cli_error("option '%s' needs a value", argv[optind - 1]);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			code = cli_usage_hint("matrix");
			goto out;
		}
	}
	code = EXIT_RUNTIME;
	if (argc - optind != 1) {
		cli_error("matrix needs one job file");
		code = cli_usage_hint("matrix");
		goto out;
	}
	if (m.keep_disturbed && m.settle_ns) {
		cli_error("--settle waits before a disturbed step is measured again, and --keep-disturbed measures none again: expected one of them");
		code = EXIT_USAGE;
		goto out;
	}
	if (job_file_load(argv[optind], &m.jf, &err)) {
		cli_error("%s", err.msg);
		code = EXIT_USAGE;
		goto out;
	}
	if (have_profile_min && !m.jf->collect.profile) {
		cli_error("--profile-min %g is the profile's threshold: expected `collect: {profile: true}` in %s",
			  m.profile_min_pct, argv[optind]);
		code = EXIT_USAGE;
		goto out;
	}
	if (!have_profile_min)
		m.profile_min_pct = m.jf->collect.profile_min_set ? m.jf->collect.profile_min_pct :
								    COLLECT_PROFILE_MIN_PCT;
	base_cpus_allowed(&allowed);
	if (job_file_expand(m.jf, &allowed, &m.cells,
			    &m.ncells, &err)) {
		cli_error("%s", err.msg);
		code = EXIT_USAGE;
		goto out;
	}
	if ((code = where_cells(&m, &where)))
		goto out;
	code = EXIT_RUNTIME;
	if (!have_seed)
		seed = m.jf->seed;
	if (!max_reps)
		max_reps = 3ULL * m.jf->reps;
	if (!label)
		label = m.jf->label;
	if (!label) {
		struct collect_env env;

		if (collect_env_read(&env, NULL) == 0)
			snprintf(m.kernel, sizeof(m.kernel), "%s", env.kernel);
		else
			snprintf(m.kernel, sizeof(m.kernel), "unknown");
		label = m.kernel;
	}
	if (m.jf->nlabels && label_flag) {
		cli_error("--label %s: the job names its labels ('labels' in %s)", label_flag,
			  m.jf->path);
		code = EXIT_USAGE;
		goto out;
	}
	if (make_labels(&m, label, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	nunits = m.nlabels * m.ncells;
	m.st = calloc(nunits, sizeof(*m.st));
	done = calloc(nunits, sizeof(*done));
	if (!m.st || !done) {
		cli_error("out of memory");
		goto out;
	}
	/* a dry run reads what is stored when it can; a run writes */
	if (dry) {
		if (store_open(cli_db_path(db), STORE_READONLY, &m.store, &err))
			m.store = NULL;
	} else if (cli_db_open(cli_db_path(db), true, &m.store)) {
		goto out;
	}
	if (m.store && count_stored(&m, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	/* the summary, --until-ci and --resume count what compare will
	 * use: the label's samples of each configuration that were not
	 * disturbed (all, with --keep-disturbed), earlier ones too */
	if ((!dry || resume) && load_stored(&m, &err)) {
		cli_error("%s", err.msg);
		goto out;
	}
	if (job_plan_make_labels(m.ncells, m.nlabels, m.jf->reps, seed, &steps, &nsteps)) {
		cli_error("cannot make a plan of %zu configurations x %zu labels x %u repetitions",
			  m.ncells, m.nlabels, m.jf->reps);
		goto out;
	}
	if (resume) {
		for (size_t u = 0; u < nunits; u++)
			done[u] = m.st[u].earlier;
		job_plan_resume(steps, &nsteps, nunits, done);
	}
	if (dry) {
		print_plan(&m, steps, nsteps, seed);
		code = EXIT_OK;
		goto out;
	}
	where_desc(&m, wd, sizeof(wd));
	if (m.nlabels == 1)
		fprintf(stderr, "matrix %s: %zu configurations%s x %u repetitions (%zu steps), seed %" PRIu64
			", label %s\n", m.jf->path, m.ncells, wd, m.jf->reps, nsteps, seed,
			m.labels[0].name);
	else
		fprintf(stderr, "matrix %s: %zu configurations%s x %zu labels x %u repetitions (%zu steps), seed %" PRIu64
			", interleaved\n", m.jf->path, m.ncells, wd, m.nlabels, m.jf->reps, nsteps, seed);
	/* a SIGKILL cannot put them back: say what they were, and where */
	for (size_t i = 0; i < topo_sysctls_count(m.sysctls); i++)
		fprintf(stderr, "sysctl %s is %s; the labels set it before their runs and it is put back at the end\n",
			topo_sysctls_name(m.sysctls, i), topo_sysctls_original(m.sysctls, i));
	if (topo_sysctls_journal(m.sysctls))
		fprintf(stderr, "(%s records them: after a SIGKILL, 'netregress topo down' puts them back)\n",
			topo_sysctls_journal(m.sysctls));
	cli_signals();
	m.tty = isatty(STDERR_FILENO);
	m.t0 = base_now_ns();
	m.total = nsteps;
	cli_testbed_init(&m.tb);
	ret = 0;
	for (size_t i = 0; i < nsteps && !cli_interrupted && !ret; i++)
		ret = run_step(&m, steps[i].cell);
	/* adaptive repetitions: rounds over the units still too noisy */
	if (until > 0 && !ret && !cli_interrupted) {
		size_t fixed = nunits * (size_t)max_reps, ran = nsteps, n = 1;
		struct job_plan_step last = nsteps ? steps[nsteps - 1] : (struct job_plan_step){ 0 };

		for (unsigned r = m.jf->reps; n && r < max_reps && !ret && !cli_interrupted; r++) {
			struct job_plan_step *round;

			if (until_round(&m, until, seed, r, ran ? &last : NULL, &round, &n)) {
				cli_error("out of memory");
				ret = -ENOMEM;
				break;
			}
			m.total += n;
			for (size_t i = 0; i < n && !ret && !cli_interrupted; i++) {
				ran++;
				ret = run_step(&m, round[i].cell);
				last = round[i];
			}
			free(round);
		}
		fprintf(stderr, "--until-ci %.3g%%: %zu steps instead of %zu at --max-reps %" PRIu64
			" (%.0f%% of the time saved)\n", until, ran, fixed, max_reps,
			fixed ? 100.0 * (double)(fixed - ran) / (double)fixed : 0);
	}
	cli_testbed_release(&m.tb);
	if (restore(&m))
		ret = ret ? ret : -EIO;
	if (cli_interrupted) {
		cli_error("interrupted after %zu of %zu steps: every finished sample is stored; "
			  "--resume runs the rest", m.done, m.total);
		goto out;
	}
	if (ret) {
		cli_error("stopped: %s", m.stop_why ? m.stop_why : "a sysctl could not be put back");
		goto out;
	}
	if (m.disturbed && m.keep_disturbed)
		fprintf(stderr, "%u samples were disturbed by foreign CPU load: counted, as --keep-disturbed asks, not measured again\n",
			m.disturbed);
	else if (m.disturbed)
		fprintf(stderr, "%u samples were disturbed by foreign CPU load and measured again%s",
			m.disturbed, m.settle_ns ? "" : "\n");
	if (m.disturbed && m.settle_ns)
		fprintf(stderr, ", after %.1f s of waiting in all for a quiet machine\n",
			(double)m.settled_ns / NS_PER_S);
	if (m.not_steady || m.mixed)
		fprintf(stderr, "of the samples kept, %u trended or moved to another level within their window (not steady) and %u "
			"left a level and came back (mixed): compare and report note them per label\n",
			m.not_steady, m.mixed);
	if (m.moved)
		fprintf(stderr, "in %u samples kept the host moved the test's CPUs within the window (window.xcpu_moved): compare and report note them per label\n",
			m.moved);
	code = summary(&m, db, baseline, paired);
	if (m.failures) {
		cli_error("%u of %zu steps failed (see above)", m.failures, m.total);
		code = EXIT_RUNTIME;
	}
out:
	if (restore(&m) && code == EXIT_OK)
		code = EXIT_RUNTIME;
	for (size_t u = 0; m.st && u < nunits; u++) {
		cli_tally_release(&m.st[u].k);
		cli_tally_release(&m.st[u].d);
	}
	free(m.st);
	free_labels(&m);
	free(done);
	free(steps);
	store_close(m.store);
	job_cells_free(m.cells, m.ncells);
	job_file_free(m.jf);
	cli_where_release(&where);
	free(m.where_text);
	free(m.where_args);
	return code;
}
