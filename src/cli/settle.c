// SPDX-License-Identifier: GPL-2.0-only
/* Waiting for a quiet machine before a disturbed step is measured again. */
#include "cli/settle.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/cpus.h"
#include "base/time.h"
#include "cli/cli.h"
#include "collect/cpu.h"
#include "collect/others.h"

/* What one probe saw, % of all the machine's CPU time. */
struct cli_quiet {
	double busy_pct;   /* not idle (collect_cpu_pct's busy): NaN when unread */
	double steal_pct;  /* of it, the host's steal */
	double others_pct; /* other processes' exact CPU (this one left out) */
	/* the host's steal of the CPUs' time while they spun: NaN when the
	 * spinners could not start */
	double loaded_steal_pct;
	char top[256];     /* the busiest of them, "bash[4242], cc1[300]" */
};

/* Sleep ns in steps of 100 ms; false when interrupted. */
static bool nap(int64_t ns)
{
	while (ns > 0 && !cli_interrupted) {
		int64_t step = ns < 100 * NS_PER_MS ? ns : 100 * NS_PER_MS;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step };

		nanosleep(&ts, NULL);
		ns -= step;
	}
	return !cli_interrupted;
}

static void *spin(void *arg)
{
	int64_t until = *(const int64_t *)arg;

	while (base_now_ns() < until)
		;
	return NULL;
}

/*
 * Keep every CPU this process may use busy for ns, one thread pinned to
 * each, and return the host's steal over that time as a share of theirs
 * (NaN when no thread could start or /proc/stat could not be read).
 */
static double loaded_steal(struct collect_cpustat *st[2], int64_t ns)
{
	struct base_cpulist cpus;
	pthread_t *th;
	bool *sel;
	int64_t until;
	size_t n = 0;
	struct collect_cpu_pct p;
	double pct = NAN;

	if (base_cpus_allowed(&cpus) || !cpus.n)
		return NAN;
	th = calloc(cpus.n, sizeof(*th));
	sel = calloc(COLLECT_CPU_MAX, sizeof(*sel));
	if (!th || !sel || collect_cpustat_read(st[0], NULL))
		goto out;
	until = base_now_ns() + ns;
	for (uint16_t i = 0; i < cpus.n; i++) {
		pthread_attr_t attr;
		cpu_set_t set;

		if (cpus.cpu[i] >= COLLECT_CPU_MAX)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpus.cpu[i], &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (!pthread_create(&th[n], &attr, spin, &until)) {
			n++;
			sel[cpus.cpu[i]] = true;
		}
		pthread_attr_destroy(&attr);
	}
	for (size_t i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	if (n && !collect_cpustat_read(st[1], NULL) && !collect_cpu_pct(st[0], st[1], sel, &p))
		pct = p.steal;
out:
	free(th);
	free(sel);
	return pct;
}

/* One probe of CLI_SETTLE_PROBE_NS into *q; false when /proc cannot be read. */
static bool probe(struct collect_cpustat *st[2], struct collect_others *o[2],
		  struct cli_quiet *q)
{
	struct collect_others_sum sum;
	struct collect_cpu_pct p;
	pid_t self = getpid();
	int ncpu;

	if (collect_cpustat_read(st[0], NULL) || collect_others_snap(o[0], "/proc", NULL) ||
	    !nap(CLI_SETTLE_IDLE_NS) ||
	    collect_others_snap(o[1], "/proc", NULL) || collect_cpustat_read(st[1], NULL) ||
	    collect_cpu_pct(st[0], st[1], NULL, &p))
		return false;
	ncpu = collect_cpustat_ncpu(st[1]);
	collect_others_delta(o[0], o[1], NULL, 0, &self, 1, &sum);
	q->busy_pct = p.busy;
	q->steal_pct = p.steal;
	q->others_pct = ncpu ? 100.0 * (double)sum.others_ns /
				       ((double)ncpu * (double)(st[1]->t_ns - st[0]->t_ns)) :
			       NAN;
	q->top[0] = '\0';
	for (size_t i = 0, off = 0; i < sum.ntop && off < sizeof(q->top); i++) {
		int n = snprintf(q->top + off, sizeof(q->top) - off, "%s%s[%d]", i ? ", " : "",
				 sum.top[i].comm, (int)sum.top[i].pid);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	q->loaded_steal_pct = loaded_steal(st, CLI_SETTLE_PROBE_NS - CLI_SETTLE_IDLE_NS);
	return true;
}

/* The probes until quiet or max_ns (cli_settle_say): *waited_ns the time
 * it took, *q the last probe; whether that was quiet. */
static bool settle(int64_t max_ns, int64_t *waited_ns, struct cli_quiet *q)
{
	struct collect_cpustat *st[2] = { collect_cpustat_new(), collect_cpustat_new() };
	struct collect_others *o[2] = { collect_others_new(), collect_others_new() };
	int64_t t0 = base_now_ns();
	bool quiet = false;

	memset(q, 0, sizeof(*q));
	q->busy_pct = q->loaded_steal_pct = NAN;
	if (st[0] && st[1] && o[0] && o[1]) {
		do {
			if (!probe(st, o, q))
				break;
			quiet = q->busy_pct < CLI_QUIET_PCT &&
				!(q->loaded_steal_pct >= CLI_QUIET_STEAL_PCT);
		} while (!quiet && base_now_ns() - t0 < max_ns);
	}
	*waited_ns = base_now_ns() - t0;
	collect_cpustat_free(st[0]);
	collect_cpustat_free(st[1]);
	collect_others_free(o[0]);
	collect_others_free(o[1]);
	return quiet;
}

/* "busy 45.2% of the machine (the host's steal 1.0%, other processes
 * 44.0%: bash[4242], ...); kept busy, its CPUs lost 0.5% of their time
 * to the host" into buf. */
static void quiet_text(const struct cli_quiet *q, char *buf, size_t len)
{
	int n;

	if (isnan(q->busy_pct)) {
		snprintf(buf, len, "the machine's CPU time could not be read");
		return;
	}
	n = snprintf(buf, len, "busy %.1f%% of the machine (the host's steal %.1f%%", q->busy_pct,
		     q->steal_pct);
	if (n > 0 && (size_t)n < len && !isnan(q->others_pct))
		n += snprintf(buf + n, len - (size_t)n, ", other processes %.1f%%%s%s", q->others_pct,
			      q->others_pct >= 1 && q->top[0] ? ": " : "",
			      q->others_pct >= 1 && q->top[0] ? q->top : "");
	if (n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ")");
	if (n > 0 && (size_t)n < len && !isnan(q->loaded_steal_pct))
		snprintf(buf + n, len - (size_t)n, "; kept busy, its CPUs lost %.1f%% of their time to the host",
			 q->loaded_steal_pct);
}

int64_t cli_settle_say(FILE *out, int64_t max_ns)
{
	struct cli_quiet q;
	int64_t waited;
	char what[400];
	bool quiet = settle(max_ns, &waited, &q);

	quiet_text(&q, what, sizeof(what));
	fprintf(out, "  %s after %.1f s: %s\n", quiet ? "quiet" : "not quiet",
		(double)waited / NS_PER_S, what);
	return waited;
}
