// SPDX-License-Identifier: GPL-2.0-only
/* The measured window of one end, outside the hot path. */
#include "engine/meter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/build.h"
#include "base/time.h"
#include "collect/env.h"
#include "collect/sysenv.h"
#include "engine/session.h"

/* The CPUs to count and sample: the test's, or every online one. */
static void collect_cpus(const struct engine_meter *m, struct base_cpulist *out)
{
	char buf[256] = "";
	FILE *f;

	*out = m->col.cpus;
	if (out->n)
		return;
	f = fopen("/sys/devices/system/cpu/online", "re");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0] || base_parse_cpulist(buf, out, NULL)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		out->n = 0;
		for (long i = 0; i < n && i < BASE_CPU_MAX; i++)
			out->cpu[out->n++] = (uint16_t)i;
	}
}

/*
 * perf counters and the profiler: a collector that cannot run here (no
 * hardware counters in a VM, perf_event_paranoid, hidden kernel addresses)
 * leaves a note and nothing else fails.
 */
static void open_perf(struct engine_meter *m)
{
	struct base_cpulist cpus;
	struct base_err err = { "" };

	if (!m->col.perf && !m->col.profile && !m->col.speed)
		return;
	collect_cpus(m, &cpus);
	if (m->col.speed) {
		struct collect_speed_opts so = { .cpus = &cpus };

		if (collect_speed_open(&m->speed, &so, &err))
			snprintf(m->speed_note, sizeof(m->speed_note), "%s", err.msg);
		err.msg[0] = '\0';
	}
	if (m->col.perf) {
		struct collect_perf_opts po = { .scope = COLLECT_PERF_CPUS, .cpus = &cpus };

		if (collect_perf_open(&m->perf, &po, &err))
			snprintf(m->perf_note, sizeof(m->perf_note), "%s", err.msg);
	}
	if (m->col.profile) {
		struct collect_profile_opts po = { .cpus = &cpus, .event = COLLECT_PROFILE_AUTO };
		char ks_note[sizeof(m->prof_note)] = "";

		err.msg[0] = '\0';
		/* symbols now, outside the window: the load takes ~70 ms */
		if (collect_ksyms_load(&m->ksyms, NULL, &err))
			snprintf(ks_note, sizeof(ks_note), "kernel symbols unavailable: %s",
				 err.msg);
		po.ks = m->ksyms;
		err.msg[0] = '\0';
		if (collect_profile_open(&m->prof, &po, &err)) {
			snprintf(m->prof_note, sizeof(m->prof_note), "%s", err.msg);
			collect_ksyms_free(m->ksyms);
			m->ksyms = NULL;
			return;
		}
		snprintf(m->prof_note, sizeof(m->prof_note), "%s", ks_note);
	}
}

/* The cross-CPU probe between the pairs asked for, one round per tick;
 * none (both ends on one CPU) or a probe that cannot start leaves a note. */
static void open_xcpu(struct engine_meter *m)
{
	struct collect_xcpu_opts xo = { .pairs = m->col.xcpu_pairs,
					.npairs = m->col.xcpu_npairs,
					.period_ns = ENGINE_TICK_NS };
	struct base_err err = { "" };

	if (!m->col.xcpu_asked)
		return;
	if (!xo.npairs)
		snprintf(m->xcpu_note, sizeof(m->xcpu_note),
			 "no two CPUs to probe: both ends on one CPU");
	else if (collect_xcpu_open(&m->xcpu, &xo, &err))
		snprintf(m->xcpu_note, sizeof(m->xcpu_note), "%s", err.msg);
}

/* No more exit records: the listener freed unless it was lent. */
static void drop_exits(struct engine_meter *m)
{
	if (!m->exits_lent)
		collect_exits_free(m->exits);
	m->exits = NULL;
	m->exits_lent = false;
}

/* The taskstats listener for the tasks that end in the window, from
 * now on: records before the window's opening mark are forgotten there. */
static void open_exits(struct engine_meter *m)
{
	struct base_err err = { "" };

	if (!m->col.others)
		return;
	if (m->col.exits) {
		m->exits = m->col.exits;
		m->exits_lent = true;
		return;
	}
	if (collect_exits_open(&m->exits, &err))
		snprintf(m->exits_note, sizeof(m->exits_note), "%s", err.msg);
}

int engine_meter_init(struct engine_meter *m, const struct base_cpulist *cpus,
		      const struct engine_collect *col, struct base_err *err)
{
	memset(m, 0, sizeof(*m));
	if (col)
		m->col = *col;
	m->stat[0] = collect_cpustat_new();
	m->stat[1] = collect_cpustat_new();
	if (m->col.counters) {
		m->ctr[0] = collect_counters_new();
		m->ctr[1] = collect_counters_new();
	}
	if (m->col.others) {
		m->others[0] = collect_others_new();
		m->others[1] = collect_others_new();
	}
	if (!m->stat[0] || !m->stat[1] ||
	    (m->col.counters && (!m->ctr[0] || !m->ctr[1])) ||
	    (m->col.others && (!m->others[0] || !m->others[1]))) {
		engine_meter_release(m);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < cpus->n; i++) {
		if (cpus->cpu[i] < COLLECT_CPU_MAX) {
			m->sel[cpus->cpu[i]] = true;
			m->have_sel = true;
		}
	}
	open_perf(m);
	open_xcpu(m);
	open_exits(m);
	return 0;
}

void engine_meter_release(struct engine_meter *m)
{
	collect_cpustat_free(m->stat[0]);
	collect_cpustat_free(m->stat[1]);
	collect_counters_free(m->ctr[0]);
	collect_counters_free(m->ctr[1]);
	collect_perf_free(m->perf);
	collect_profile_free(m->prof);
	collect_speed_free(m->speed);
	collect_xcpu_free(m->xcpu);
	collect_ksyms_free(m->ksyms);
	collect_others_free(m->others[0]);
	collect_others_free(m->others[1]);
	m->others[0] = m->others[1] = NULL;
	drop_exits(m);
	free(m->task[0]);
	free(m->task[1]);
	m->task[0] = m->task[1] = NULL;
	m->ntask = 0;
	m->perf = NULL;
	m->prof = NULL;
	m->speed = NULL;
	m->xcpu = NULL;
	m->ksyms = NULL;
	m->stat[0] = m->stat[1] = NULL;
	m->ctr[0] = m->ctr[1] = NULL;
}

/*
 * Exact accounting at a mark: the process CPU clock and each worker's own
 * CPU clock (like the process clock it includes the slice running now;
 * schedstat's run time lags by up to a tick for a thread on a CPU), plus
 * schedstat's run-queue wait and last CPU. The process clock is read
 * outside the workers' reads on both sides, so the workers' share of the
 * window is never more than the process's. A worker that cannot be read
 * spoils the per-thread sums.
 */
static void read_tasks(struct engine_meter *m, const struct engine *e, int which)
{
	if (which == 0)
		m->proc_ns[0] = collect_process_cpu_ns();
	m->task_ok[which] = false;
	if (which == 0 && !m->task[0]) {
		uint32_t n = engine_nworkers(e);

		m->task[0] = calloc(n ? n : 1, sizeof(*m->task[0]));
		m->task[1] = calloc(n ? n : 1, sizeof(*m->task[1]));
		if (m->task[0] && m->task[1])
			m->ntask = n;
	}
	if (m->task[which] && m->ntask) {
		m->task_ok[which] = true;
		for (uint32_t i = 0; i < m->ntask; i++) {
			struct collect_task *t = &m->task[which][i];
			int tid = engine_worker_tid(e, i);
			int64_t run;

			if (!tid || collect_task_read(tid, t, NULL)) {
				m->task_ok[which] = false;
				continue;
			}
			run = engine_worker_cpu_ns(e, i);
			if (run >= 0)
				t->run_ns = (uint64_t)run;
		}
	}
	if (which == 1)
		m->proc_ns[1] = collect_process_cpu_ns();
}

/* Read the exit records waiting; a listener that fails is dropped, with
 * a note. 0 or a negative errno. */
static int drain_exits(struct engine_meter *m)
{
	struct base_err err = { "" };
	int ret = collect_exits_drain(m->exits, &err);

	if (ret) {
		snprintf(m->exits_note, sizeof(m->exits_note), "%s", err.msg);
		drop_exits(m);
	}
	return ret;
}

/* Every other task at a mark: first at the opening one, last at the
 * closing one, so that its window holds the test's; the exit records
 * before the opening snapshot forgotten, those up to just after the
 * closing one kept. */
static void read_others(struct engine_meter *m, int which)
{
	struct base_err err = { "" };

	if (!m->others[which])
		return;
	if (which == 0 && m->exits && !drain_exits(m))
		collect_exits_clear(m->exits);
	m->others_ok[which] = !collect_others_snap(m->others[which], "/proc", &err);
	if (!m->others_ok[which] && !m->others_note[0])
		snprintf(m->others_note, sizeof(m->others_note), "%s", err.msg);
	if (which == 1 && m->exits && !drain_exits(m))
		collect_exits_sort(m->exits);
}

void engine_meter_ticks_from(struct engine_meter *m, int64_t t_go_ns)
{
	m->tick_go_ns = t_go_ns;
}

void engine_meter_close(struct engine_meter *m, struct engine *e)
{
	m->t_ns[1] = engine_mark(e, 1);
	m->closed = true;
}

void engine_meter_mark(struct engine_meter *m, struct engine *e, int which)
{
	/* the closing mark reads the engine first, the opening one last, so
	 * that the slower /proc reads stay outside the window */
	struct base_err err = { "" };

	if (which == 0)
		read_others(m, 0);
	if (which == 1) {
		if (!m->closed)
			engine_meter_close(m, e);
		read_tasks(m, e, 1);
		if (m->prof && m->prof_ok && collect_profile_stop(m->prof, &err)) {
			m->prof_ok = false;
			snprintf(m->prof_note, sizeof(m->prof_note), "%s", err.msg);
		}
		if (m->perf && m->perf_ok)
			m->perf_ok = !collect_perf_stop(m->perf);
		if (m->speed && m->speed_ok)
			m->speed_ok = !collect_speed_stop(m->speed);
		if (m->xcpu && m->xcpu_ok)
			m->xcpu_ok = !collect_xcpu_stop(m->xcpu);
	}
	m->marked[which] = !collect_cpustat_read(m->stat[which], NULL);
	/* the idle states of the test's CPUs (all of them unless pinned):
	 * a machine's other CPUs idle whatever the test does */
	if (m->ctr[which])
		m->ctr_ok[which] = !collect_counters_snapshot(m->ctr[which], "/sys", &m->col.cpus,
							      &m->ctr_err, &m->idle_err, &m->irq_err);
	collect_rusage_read(&m->ru[which]);
	if (which == 0) {
		if (m->perf)
			m->perf_ok = !collect_perf_start(m->perf);
		if (m->speed)
			m->speed_ok = !collect_speed_start(m->speed);
		if (m->xcpu)
			m->xcpu_ok = !collect_xcpu_start(m->xcpu, m->tick_go_ns ?
							 m->tick_go_ns + ENGINE_TICK_NS / 2 : 0);
		if (m->prof) {
			m->prof_ok = !collect_profile_start(m->prof, &err);
			if (!m->prof_ok)
				snprintf(m->prof_note, sizeof(m->prof_note), "%s", err.msg);
		}
		read_tasks(m, e, 0);
		m->t_ns[0] = engine_mark(e, 0);
	}
	if (which == 1)
		read_others(m, 1);
}

void engine_meter_pause(struct engine_meter *m, bool paused)
{
	struct base_err err = { "" };

	if (m->perf && m->perf_ok && collect_perf_pause(m->perf, paused)) {
		m->perf_ok = false;
		snprintf(m->perf_note, sizeof(m->perf_note),
			 "perf counters could not be %s", paused ? "paused" : "resumed");
	}
	if (m->speed && m->speed_ok && collect_speed_pause(m->speed, paused)) {
		m->speed_ok = false;
		snprintf(m->speed_note, sizeof(m->speed_note),
			 "speed probe could not be %s", paused ? "paused" : "resumed");
	}
	if (m->xcpu && m->xcpu_ok && collect_xcpu_pause(m->xcpu, paused)) {
		m->xcpu_ok = false;
		snprintf(m->xcpu_note, sizeof(m->xcpu_note),
			 "cross-CPU probe could not be %s", paused ? "paused" : "resumed");
	}
	if (m->prof && m->prof_ok && collect_profile_pause(m->prof, paused, &err)) {
		m->prof_ok = false;
		snprintf(m->prof_note, sizeof(m->prof_note), "%s", err.msg);
	}
}

/* Before mark 0 a probe that will run has counted nothing: a tick read
 * just before the mark starts the window's first tick at zero. */
static bool before_window(const struct engine_meter *m, double *a, double *b)
{
	if (m->t_ns[0])
		return false;
	*a = *b = 0;
	return true;
}

bool engine_meter_speed_totals(const struct engine_meter *m, double *steps,
			       double *time_ns)
{
	return m->speed && (before_window(m, steps, time_ns) ||
			    (m->speed_ok && !collect_speed_totals(m->speed, steps, time_ns)));
}

bool engine_meter_xcpu_totals(const struct engine_meter *m, double *rounds,
			      double *sum_ns)
{
	return m->xcpu && (before_window(m, rounds, sum_ns) ||
			   (m->xcpu_ok && !collect_xcpu_totals(m->xcpu, rounds, sum_ns)));
}

/* The exact figures of the window: process CPU, workers' run and wait
 * time, the longest wait of one worker (tasks.worker_wait_max_s: a load
 * on one worker's CPU of several), the times the workers were switched
 * in (tasks.worker_switches: each wake-up from a sleep, and each return
 * from a preemption), and the CPU each worker last ran on ("0,1"). */
static void report_tasks(const struct engine_meter *m, struct proto_end_report *r)
{
	uint64_t max_wait = 0, switches = 0;
	size_t off = 0;

	r->cpu_ns = m->proc_ns[0] >= 0 && m->proc_ns[1] >= m->proc_ns[0] ?
			    m->proc_ns[1] - m->proc_ns[0] : -1;
	r->workers_ns = r->runq_wait_ns = -1;
	r->nworkers = m->ntask;
	if (!m->task_ok[0] || !m->task_ok[1])
		return;
	r->workers_ns = r->runq_wait_ns = 0;
	for (uint32_t i = 0; i < m->ntask; i++) {
		struct collect_task d;
		int n;

		collect_task_delta(&m->task[0][i], &m->task[1][i], &d);
		r->workers_ns += (int64_t)d.run_ns;
		r->runq_wait_ns += (int64_t)d.wait_ns;
		switches += d.slices;
		if (d.wait_ns > max_wait)
			max_wait = d.wait_ns;
		n = snprintf(r->worker_cpus + off, sizeof(r->worker_cpus) - off,
			     "%s%d", i ? "," : "", d.cpu);
		if (n < 0 || (size_t)n >= sizeof(r->worker_cpus) - off) {
			/* too many workers to list: keep what fits, whole */
			r->worker_cpus[off] = '\0';
			break;
		}
		off += (size_t)n;
	}
	if (m->ntask) {
		json_object_set_new(r->metrics, "tasks.worker_wait_max_s",
				    json_real((double)max_wait / NS_PER_S));
		json_object_set_new(r->metrics, "tasks.worker_switches",
				    json_integer((json_int_t)switches));
	}
}

static void fill_cpu(const struct engine_meter *m, const bool *sel,
		     struct proto_cpu *out)
{
	struct collect_cpu_pct p;

	memset(out, 0, sizeof(*out));
	if (!m->marked[0] || !m->marked[1] ||
	    collect_cpu_pct(m->stat[0], m->stat[1], sel, &p))
		return;
	out->valid = true;
	out->user = p.user;
	out->sys = p.sys;
	out->softirq = p.softirq;
	out->irq = p.irq;
	out->idle = p.idle;
	out->iowait = p.iowait;
	out->steal = p.steal;
	out->busy = p.busy;
	out->busy_ticks = p.busy_ticks;
}

struct delta_ctx {
	struct proto_end_report *r;
	unsigned resets;
};

static void add_delta(void *ctx, const char *name, enum collect_delta_kind kind,
		      double value)
{
	struct delta_ctx *d = ctx;

	/* a counter that went backwards (a reset) says nothing about the
	 * window: left out, and counted in a note */
	if (kind == COLLECT_DELTA_RESET) {
		d->resets++;
		return;
	}
	json_object_set_new(d->r->metrics, name, json_real(value));
}

static void report_counters(const struct engine_meter *m,
			    struct proto_end_report *r)
{
	struct delta_ctx d = { .r = r };
	char note[64];

	if (!m->col.counters)
		return;
	if (!m->ctr_ok[0] || !m->ctr_ok[1]) {
		json_object_set_new(r->notes, "counters",
				    json_string(m->ctr_err.msg[0] ? m->ctr_err.msg :
					    "kernel counters could not be read"));
		return;
	}
	collect_counters_delta(m->ctr[0], m->ctr[1], add_delta, &d);
	if (m->idle_err.msg[0])
		json_object_set_new(r->notes, "counters.cpuidle", json_string(m->idle_err.msg));
	if (m->irq_err.msg[0])
		json_object_set_new(r->notes, "counters.interrupts", json_string(m->irq_err.msg));
	if (d.resets) {
		snprintf(note, sizeof(note), "%u counters went backwards and were left out",
			 d.resets);
		json_object_set_new(r->notes, "counters.reset", json_string(note));
	}
}

/* A collector that gave nothing: its own note, else the fallback. */
static void note_missing(struct proto_end_report *r, const char *key,
			 const char *note, const char *fallback)
{
	json_object_set_new(r->notes, key, json_string(note[0] ? note : fallback));
}

/*
 * Other tasks' exact CPU over the window: tasks.others_s (user threads of
 * other processes, those that ended in the window too; this one and
 * col.own_pids left out), the number of such processes that ran,
 * tasks.exited_s and tasks.exited (of those, the threads that ended, and
 * their time), tasks.kthreads_s and tasks.ksoftirqd_s (the kernel's own
 * threads), and a note naming the busiest processes: "python3[1614]
 * 0.785 s", "sh[4968, ended] 0.490 s", "true (3683 ended) 2.307 s".
 */
static void report_others(const struct engine_meter *m, struct proto_end_report *r)
{
	struct collect_others_sum sum;
	pid_t exclude[3] = { getpid(), m->col.own_pids[0], m->col.own_pids[1] };
	const struct collect_exit *ex = NULL;
	char top[PROTO_STR_MAX];
	size_t off = 0, nex = 0;

	if (!m->col.others)
		return;
	if (!m->others_ok[0] || !m->others_ok[1]) {
		note_missing(r, "tasks", m->others_note, "not read at both marks");
		return;
	}
	if (m->exits)
		ex = collect_exits_records(m->exits, &nex);
	collect_others_delta(m->others[0], m->others[1], ex, nex, exclude, 1 + m->col.nown, &sum);
	json_object_set_new(r->metrics, "tasks.others_s", json_real((double)sum.others_ns / NS_PER_S));
	json_object_set_new(r->metrics, "tasks.others_procs", json_real(sum.nprocs));
	json_object_set_new(r->metrics, "tasks.kthreads_s", json_real((double)sum.kthreads_ns / NS_PER_S));
	json_object_set_new(r->metrics, "tasks.ksoftirqd_s", json_real((double)sum.ksoftirqd_ns / NS_PER_S));
	if (m->exits) {
		json_object_set_new(r->metrics, "tasks.exited_s",
				    json_real((double)sum.exited_ns / NS_PER_S));
		json_object_set_new(r->metrics, "tasks.exited", json_real(sum.nexited));
		if (collect_exits_lost(m->exits))
			json_object_set_new(r->notes, "tasks.exited",
					    json_string("some exit records were lost (a full buffer): tasks.others_s reads low"));
	} else {
		note_missing(r, "tasks.exited", m->exits_note,
			     "the tasks that ended in the window are not counted");
	}
	for (size_t i = 0; i < sum.ntop && off < sizeof(top); i++) {
		const char *sep = i ? ", " : "";
		double run_s = (double)sum.top[i].run_ns / NS_PER_S;
		int n;

		if (sum.top[i].ended > 1)
			n = snprintf(top + off, sizeof(top) - off, "%s%s (%u ended) %.3f s", sep,
				     sum.top[i].comm, (unsigned)sum.top[i].ended, run_s);
		else
			n = snprintf(top + off, sizeof(top) - off, "%s%s[%d%s] %.3f s", sep,
				     sum.top[i].comm, (int)sum.top[i].pid,
				     sum.top[i].ended ? ", ended" : "", run_s);
		if (n < 0)
			break;
		off += (size_t)n;
	}
	if (sum.ntop)
		json_object_set_new(r->notes, "tasks.top", json_string(top));
}

static void report_perf(const struct engine_meter *m, struct proto_end_report *r)
{
	struct collect_perf_result pr;
	char name[96];

	if (!m->col.perf)
		return;
	if (!m->perf || !m->perf_ok || collect_perf_result(m->perf, &pr)) {
		note_missing(r, "perf", m->perf_note, "perf counters could not be read");
		return;
	}
	for (int i = 0; i < COLLECT_PERF_NEVENTS; i++) {
		const struct collect_perf_count *c = &pr.ev[i];

		snprintf(name, sizeof(name), "perf.%s", c->name);
		if (c->supported && c->counted)
			json_object_set_new(r->metrics, name, json_real((double)c->count));
		else
			json_object_set_new(r->notes, name,
					    json_string(c->supported ? "never scheduled (multiplexing)" :
							c->reason));
	}
	if (pr.has_ipc)
		json_object_set_new(r->metrics, "perf.ipc", json_real(pr.ipc));
	if (pr.has_cpi)
		json_object_set_new(r->metrics, "perf.cpi", json_real(pr.cpi));
	if (pr.has_cache_miss_pct)
		json_object_set_new(r->metrics, "perf.cache_miss_pct", json_real(pr.cache_miss_pct));
	if (pr.has_mpki)
		json_object_set_new(r->metrics, "perf.mpki", json_real(pr.mpki));
	if (pr.active_ns < pr.window_ns) {
		char note[128];

		snprintf(note, sizeof(note),
			 "counted in %.1f%% of the window (--overhead), extrapolated to all of it",
			 pr.window_ns ? 100.0 * (double)pr.active_ns / (double)pr.window_ns : 0);
		json_object_set_new(r->notes, "perf.paused", json_string(note));
	}
}

/*
 * The speed probe: host.speed.cpu<N> (chain steps per microsecond, this
 * machine's unit), how much it moved over the window, the share of the
 * probe's time lost to interruptions and the core's pace between them
 * (host.speed.cpu<N>.core); a note speed.cpu<N> for a CPU
 * where no burst finished (a task above the probe held it throughout).
 */
static void report_speed(const struct engine_meter *m, struct proto_end_report *r)
{
	struct collect_speed_result sr;
	char name[64];

	if (!m->col.speed)
		return;
	if (!m->speed || !m->speed_ok || collect_speed_result(m->speed, &sr)) {
		note_missing(r, "speed", m->speed_note, "speed probe could not be read");
		return;
	}
	for (size_t i = 0; i < sr.ncpu; i++) {
		const struct collect_speed_cpu *c = &sr.cpu[i];

		if (!c->bursts) {
			/* no figure: a 0 would be a speed, and this is none */
			char note[128];

			snprintf(name, sizeof(name), "speed.cpu%d", c->cpu);
			snprintf(note, sizeof(note),
				 "no burst of the probe finished on CPU %d in the window: something above it held the CPU",
				 c->cpu);
			json_object_set_new(r->notes, name, json_string(note));
			continue;
		}
		snprintf(name, sizeof(name), "host.speed.cpu%d", c->cpu);
		json_object_set_new(r->metrics, name, json_real(c->mean));
		snprintf(name, sizeof(name), "host.speed.cpu%d.cov_pct", c->cpu);
		json_object_set_new(r->metrics, name, json_real(c->cov_pct));
		snprintf(name, sizeof(name), "host.speed.cpu%d.lost_pct", c->cpu);
		json_object_set_new(r->metrics, name, json_real(c->lost_pct));
		snprintf(name, sizeof(name), "host.speed.cpu%d.core", c->cpu);
		json_object_set_new(r->metrics, name, json_real(c->core));
	}
	if (!sr.realtime)
		json_object_set_new(r->notes, "speed",
				    json_string("probes at ordinary priority (SCHED_FIFO refused): the test's threads may cut into bursts"));
	if (sr.active_ns < sr.window_ns)
		json_object_set_new(r->notes, "speed.paused",
				    json_string("probed in part of the window (--overhead)"));
}

/*
 * The cross-CPU probe: host.xcpu_ns, the median round trip of a cache line
 * between the test's CPUs over the window (all pairs), and per pair
 * host.xcpu.cpu<A>-<B> with its fastest and slowest round.
 */
static void report_xcpu(const struct engine_meter *m, struct proto_end_report *r)
{
	struct collect_xcpu_result xr;
	char name[64];

	if (!m->col.xcpu_asked)
		return;
	if (!m->xcpu || !m->xcpu_ok || collect_xcpu_result(m->xcpu, &xr)) {
		note_missing(r, "xcpu", m->xcpu_note, "cross-CPU probe could not be read");
		return;
	}
	for (size_t i = 0; i < xr.npairs; i++) {
		const struct collect_xcpu_pair_result *p = &xr.pair[i];

		if (!p->rounds)
			continue;
		snprintf(name, sizeof(name), "host.xcpu.cpu%u-%u", p->a, p->b);
		json_object_set_new(r->metrics, name, json_real(p->median_ns));
		snprintf(name, sizeof(name), "host.xcpu.cpu%u-%u.min", p->a, p->b);
		json_object_set_new(r->metrics, name, json_real(p->min_ns));
		snprintf(name, sizeof(name), "host.xcpu.cpu%u-%u.max", p->a, p->b);
		json_object_set_new(r->metrics, name, json_real(p->max_ns));
	}
	if (xr.rounds)
		json_object_set_new(r->metrics, "host.xcpu_ns", json_real(xr.median_ns));
	json_object_set_new(r->metrics, "host.xcpu.rounds", json_real(xr.rounds));
	json_object_set_new(r->metrics, "host.xcpu.missed", json_real(xr.missed));
	if (!xr.realtime)
		json_object_set_new(r->notes, "xcpu",
				    json_string("probe threads at ordinary priority (SCHED_FIFO refused): the test's threads may delay a round"));
}

/* The profile's rows as metrics, in rank order (the top list prints the
 * first): profile.self.<symbol>, then profile.children.<symbol> (%). */
static void profile_rows(const struct collect_profile_result *pr, struct proto_end_report *r)
{
	char note[200];

	for (size_t i = 0; i < pr->nrows; i++)
		json_object_set_new(r->metrics, pr->rows[i].metric, json_real(pr->rows[i].pct));
	for (size_t i = 0; i < pr->nchildren; i++)
		json_object_set_new(r->metrics, pr->children[i].metric,
				    json_real(pr->children[i].pct));
	json_object_set_new(r->metrics, "profile.min_pct", json_real(pr->min_pct));
	if (pr->nrows < pr->nrows_over || pr->nchildren < pr->nchildren_over) {
		snprintf(note, sizeof(note),
			 "%zu self and %zu children rows at or over %g%%: the %d highest of each kept",
			 pr->nrows_over, pr->nchildren_over, pr->min_pct, COLLECT_PROFILE_ROWS_MAX);
		json_object_set_new(r->notes, "profile.cut", json_string(note));
	}
	if (pr->kernel_resolved && !pr->chains)
		json_object_set_new(r->notes, "profile.chains",
				    json_string("the kernel took no call chains: children rows count the sampled symbol alone"));
}

/* The profile: its rows, sample counts and notes. */
static void report_profile(const struct engine_meter *m, struct proto_end_report *r)
{
	struct collect_profile_result pr;
	struct base_err err = { "" };
	char note[256];

	if (!m->col.profile)
		return;
	if (!m->prof || !m->prof_ok ||
	    collect_profile_result(m->prof, m->ksyms, m->col.profile_min_pct, &pr, &err)) {
		note_missing(r, "profile", m->prof_note, err.msg[0] ? err.msg : "no profile");
		return;
	}
	profile_rows(&pr, r);
	json_object_set_new(r->metrics, "profile.samples", json_real((double)pr.samples));
	if (pr.charging && pr.samples)
		json_object_set_new(r->metrics, "profile.charged_pct",
				    json_real(100.0 * (double)pr.charged / (double)pr.samples));
	json_object_set_new(r->metrics, "profile.lost", json_real((double)pr.lost));
	/* the charging first: compare shows the start of a long note */
	snprintf(note, sizeof(note), "%s%s%s%s%s", pr.event,
		 pr.charging ? ", interrupts-off samples charged to callers" : "",
		 pr.fallback_reason[0] ? " (cycles: " : "", pr.fallback_reason,
		 pr.fallback_reason[0] ? ")" : "");
	json_object_set_new(r->notes, "profile.event", json_string(note));
	if (pr.active_ns < pr.window_ns) {
		snprintf(note, sizeof(note), "sampled in %.1f%% of the window (--overhead)",
			 pr.window_ns ? 100.0 * (double)pr.active_ns / (double)pr.window_ns : 0);
		json_object_set_new(r->notes, "profile.paused", json_string(note));
	}
	/* the profiler's own cost, beside what it measured */
	snprintf(note, sizeof(note), "collector thread %.3f ms CPU in %llu drains over %.3f s",
		 (double)pr.collector_cpu_ns / 1e6, (unsigned long long)pr.drains,
		 (double)pr.window_ns / NS_PER_S);
	json_object_set_new(r->notes, "profile.collector", json_string(note));
	if (m->prof_note[0])
		json_object_set_new(r->notes, "profile", json_string(m->prof_note));
	collect_profile_result_release(&pr);
}

int engine_meter_report(const struct engine_meter *m, const struct engine *e,
			bool drain_timeout, struct proto_end_report *r,
			struct base_err *err)
{
	struct collect_rusage d;

	memset(r, 0, sizeof(*r));
	r->window_ns = m->t_ns[1] - m->t_ns[0];
	collect_rusage_delta(&m->ru[0], &m->ru[1], &d);
	r->user_ns = d.user_ns;
	r->sys_ns = d.sys_ns;
	r->nvcsw = d.nvcsw;
	r->nivcsw = d.nivcsw;
	r->metrics = json_object();
	r->notes = json_object();
	if (!r->metrics || !r->notes)
		return base_err_set(err, -ENOMEM, "out of memory");
	report_tasks(m, r);
	fill_cpu(m, NULL, &r->cpu_all);
	if (m->have_sel)
		fill_cpu(m, m->sel, &r->cpu_test);
	r->drain_timeout = drain_timeout;
	r->nflows = engine_nflows(e);
	r->flows = calloc(r->nflows ? r->nflows : 1, sizeof(*r->flows));
	if (!r->flows)
		return base_err_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < r->nflows; i++)
		engine_flow_result(e, i, &r->flows[i]);
	report_counters(m, r);
	report_perf(m, r);
	report_speed(m, r);
	report_xcpu(m, r);
	report_profile(m, r);
	report_others(m, r);
	return 0;
}

json_t *engine_env_json(void)
{
	struct collect_env env;
	char pidns[64];
	ssize_t n;
	json_t *j;

	if (collect_env_read(&env, NULL))
		return json_object();
	n = readlink("/proc/self/ns/pid", pidns, sizeof(pidns) - 1);
	pidns[n > 0 ? n : 0] = '\0';
	j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:s, s:s, s:s, s:s, s:s}",
			 "kernel", env.kernel, "kernel_version", env.kernel_version,
			 "machine", env.machine, "hostname", env.hostname,
			 "cpu_model", env.cpu_model, "online_cpus", env.online_cpus,
			 "mem_total_kb", (json_int_t)env.mem_total_kb,
			 "cpu_governor", env.cpu_governor,
			 "clocksource", env.clocksource, "boot_id", env.boot_id,
			 "tmp_dir", env.tmp_dir, "tmp_fs", env.tmp_fs,
			 "build", base_build_id());
	if (j && json_object_update_new(j, json_pack("{s:i, s:s}", "pid", (int)getpid(),
						     "pidns", pidns))) {
		json_decref(j);
		return json_object();
	}
	return j;
}

static const char *env_str(const json_t *env, const char *key)
{
	return json_string_value(json_object_get(env, key));
}

bool engine_env_same_boot(const json_t *a, const json_t *b)
{
	const char *x = env_str(a, "boot_id"), *y = env_str(b, "boot_id");

	return x && y && *x && !strcmp(x, y);
}

size_t engine_env_peer_pids(const json_t *local, const json_t *peer, pid_t *pids)
{
	static const char *const keys[] = { "pid", "listener_pid" };
	const char *x = env_str(local, "pidns"), *y = env_str(peer, "pidns");
	size_t n = 0;

	if (!engine_env_same_boot(local, peer) || !x || !y || !*x || strcmp(x, y))
		return 0;
	for (size_t i = 0; i < 2; i++) {
		const json_t *v = json_object_get(peer, keys[i]);

		if (json_is_integer(v) && json_integer_value(v) > 1 &&
		    json_integer_value(v) <= INT32_MAX)
			pids[n++] = (pid_t)json_integer_value(v);
	}
	return n;
}

json_t *engine_sysenv_json(const struct engine_addr *local)
{
	struct collect_sysenv *env = collect_sysenv_new();
	struct base_err err = { "" };
	const char *ifs[1];
	char ifname[64], fp[17];
	json_t *entries = NULL, *j = NULL;
	size_t nif = 0;

	if (!env)
		return json_pack("{s:s}", "error", "out of memory");
	if (local && !engine_addr_ifname(local, ifname, sizeof(ifname)))
		ifs[nif++] = ifname;
	if (collect_sysenv_read(env, ifs, nif, &err) ||
	    collect_sysenv_fingerprint(env, fp)) {
		j = json_pack("{s:s}", "error", err.msg[0] ? err.msg : "cannot read");
		goto out;
	}
	entries = json_object();
	for (size_t i = 0; entries && i < env->n; i++)
		json_object_set_new(entries, env->entries[i].key,
				    json_string(env->entries[i].value));
	j = json_pack("{s:s, s:o}", "fingerprint", fp, "entries", entries);
out:
	collect_sysenv_free(env);
	return j;
}

int engine_sysenv_check(const json_t *j, struct base_err *err)
{
	const json_t *entries, *v;
	const char *fp, *k;

	if (!json_is_object(j))
		return base_err_set(err, -EPROTO, "sysenv must be an object");
	if (json_is_string(json_object_get(j, "error")))
		return 0;
	fp = json_string_value(json_object_get(j, "fingerprint"));
	entries = json_object_get(j, "entries");
	if (!fp || strlen(fp) != 16 || !json_is_object(entries) ||
	    json_object_size(entries) > COLLECT_SYSENV_MAX)
		return base_err_set(err, -EPROTO,
				    "sysenv needs a 16-digit fingerprint and at most %d entries",
				    COLLECT_SYSENV_MAX);
	json_object_foreach((json_t *)entries, k, v) {
		if (strlen(k) >= 256 || !json_is_string(v) ||
		    json_string_length(v) > 4096)
			return base_err_set(err, -EPROTO,
					    "sysenv entry '%.60s' must be a string of at most 4096 bytes",
					    k);
	}
	return 0;
}
