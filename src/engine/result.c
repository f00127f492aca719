// SPDX-License-Identifier: GPL-2.0-only
/* Turn both ends' reports into one sample: receiver bytes are the throughput. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/time.h"
#include "engine/meter.h"
#include "engine/result.h"

#define SOFTIRQ_CPUS_MAX 1024 /* softirq.NET_RX.cpuN looked up to here */

struct param_ctx {
	struct base_sample *s;
	int ret;
};

static void add_param(void *ctx, const char *name, const char *value)
{
	struct param_ctx *p = ctx;

	if (!p->ret)
		p->ret = base_sample_param(p->s, name, "%s", value);
}

static void add_env(struct base_sample *s, const char *side, const json_t *env)
{
	const char *key;
	const json_t *v;
	char k[64];

	json_object_foreach((json_t *)env, key, v) {
		snprintf(k, sizeof(k), "%s.%s", side, key);
		if (json_is_string(v))
			base_sample_env(s, k, "%s", json_string_value(v));
		else if (json_is_integer(v))
			base_sample_env(s, k, "%" JSON_INTEGER_FORMAT,
					json_integer_value(v));
		else if (json_is_real(v))
			base_sample_env(s, k, "%g", json_real_value(v));
	}
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Units of the collectors' metrics, by family. */
static const char *unit_of(const char *name)
{
	if (!strncmp(name, "profile.self.", 13))
		return "%";
	if (!strncmp(name, "profile.", 8))
		return "count";
	if (strstr(name, "_pct"))
		return "%";
	if (!strncmp(name, "perf.", 5))
		return "";
	if (!strncmp(name, "host.speed.", 11))
		return "op/us";
	if (!strncmp(name, "tasks.", 6) && ends_with(name, "_s"))
		return "s";
	if (!strcmp(name, "host.xcpu_ns") || !strncmp(name, "host.xcpu.cpu", 13))
		return "ns";
	if (!strncmp(name, "cpuidle.", 8) && ends_with(name, ".time_us"))
		return "us";
	return "count";
}

/* The full environments, and their fingerprints among the env entries. */
static void add_sysenv(struct base_sample *s, const struct engine_run *r)
{
	const char *fp;

	s->sysenv = json_object();
	if (!s->sysenv)
		return;
	if (r->sysenv_local)
		json_object_set(s->sysenv, "client", r->sysenv_local);
	if (r->sysenv_remote)
		json_object_set(s->sysenv, "server", r->sysenv_remote);
	fp = json_string_value(json_object_get(r->sysenv_local, "fingerprint"));
	if (fp)
		base_sample_env(s, "client.env_fingerprint", "%s", fp);
	fp = json_string_value(json_object_get(r->sysenv_remote, "fingerprint"));
	if (fp)
		base_sample_env(s, "server.env_fingerprint", "%s", fp);
}

static double gbps(uint64_t bytes, int64_t ns)
{
	return ns > 0 ? (double)bytes * 8.0 / (double)ns : 0.0;
}

/* The end's own CPU time over its window: exact (the process CPU clock)
 * where known, getrusage otherwise. */
static int64_t own_ns(const struct proto_end_report *r)
{
	return r->cpu_ns >= 0 ? r->cpu_ns : r->user_ns + r->sys_ns;
}

/* An end's metric from its collectors, or -1. */
static double end_metric(const struct proto_end_report *e, const char *name)
{
	const json_t *v = json_object_get(e->metrics, name);

	return json_is_number(v) ? json_number_value(v) : -1;
}

static void add_cpu(struct base_sample *s, const char *side,
		    const struct proto_end_report *r)
{
	char n[96];
	double win_s = (double)r->window_ns / NS_PER_S;

#define SET(suffix, unit, v)                                                  \
	do {                                                                  \
		snprintf(n, sizeof(n), "cpu.%s.%s", side, suffix);            \
		base_sample_set(s, n, unit, v);                               \
	} while (0)
	SET("user_s", "s", (double)r->user_ns / NS_PER_S);
	SET("sys_s", "s", (double)r->sys_ns / NS_PER_S);
	SET("cpu_s", "s", (double)own_ns(r) / NS_PER_S);
	if (win_s > 0)
		SET("process_pct", "%", 100.0 * (double)own_ns(r) / (double)r->window_ns);
	if (r->workers_ns >= 0 && r->nworkers && win_s > 0) {
		double sw = end_metric(r, "tasks.worker_switches");

		SET("workers_s", "s", (double)r->workers_ns / NS_PER_S);
		if (sw >= 0)
			SET("workers_switches", "count", sw);
		SET("runq_wait_s", "s", (double)r->runq_wait_ns / NS_PER_S);
		/* share of the workers' time spent runnable but not running */
		SET("runq_wait_pct", "%",
		    100.0 * (double)r->runq_wait_ns /
			    ((double)r->window_ns * r->nworkers));
	}
	if (r->cpu_all.valid) {
		SET("user_pct", "%", r->cpu_all.user);
		SET("sys_pct", "%", r->cpu_all.sys);
		SET("softirq_pct", "%", r->cpu_all.softirq);
		SET("irq_pct", "%", r->cpu_all.irq);
		SET("idle_pct", "%", r->cpu_all.idle);
		SET("steal_pct", "%", r->cpu_all.steal);
		SET("busy_pct", "%", r->cpu_all.busy);
		SET("busy_ticks_pct", "%", r->cpu_all.busy_ticks);
	}
	if (r->cpu_test.valid) {
		SET("test_cpus.user_pct", "%", r->cpu_test.user);
		SET("test_cpus.sys_pct", "%", r->cpu_test.sys);
		SET("test_cpus.softirq_pct", "%", r->cpu_test.softirq);
		SET("test_cpus.steal_pct", "%", r->cpu_test.steal);
		SET("test_cpus.busy_pct", "%", r->cpu_test.busy);
	}
#undef SET
}

static int64_t env_int(const json_t *env, const char *key)
{
	const json_t *v = json_object_get(env, key);

	return json_is_integer(v) ? json_integer_value(v) : 0;
}

/*
 * Busy CPU time of one end's machine that was not the test's own, in
 * seconds over its window (-1 when unknown): the machine's busy time minus
 * this process (and the server process when it shares the machine). A
 * large share flags a noisy sample. The busy time is the ticks' (a lower
 * bound on a tickless kernel, where a CPU busy in short bursts loses
 * ticks), not the time the sleeps left over, which also holds the idle
 * exits and wakeups the kernel makes for the test and charges to no task
 * (4-8% of a quiet 2-CPU machine on loopback, near the flag's 10%). The
 * host's steal is never the test's: it counts whole, and only the rest of
 * the busy time is set against the test's CPU (loopback tcp_rr's ticks
 * fall 8 points of the machine short of its own CPU, which hid a steal of
 * that much).
 */
static double foreign_s(const struct proto_end_report *e, const json_t *env,
			const struct proto_end_report *other, bool same_host)
{
	int64_t ncpu = env_int(env, "online_cpus");
	double cpu_s, busy_s, steal_s, own_s;

	if (!e->cpu_all.valid || ncpu <= 0 || e->window_ns <= 0)
		return -1;
	cpu_s = (double)ncpu * (double)e->window_ns / NS_PER_S / 100.0;
	steal_s = fmin(e->cpu_all.steal, e->cpu_all.busy_ticks) * cpu_s;
	busy_s = e->cpu_all.busy_ticks * cpu_s - steal_s;
	own_s = (double)own_ns(e) / NS_PER_S;
	if (same_host)
		own_s += (double)own_ns(other) / NS_PER_S;
	return fmax(0, busy_s - own_s) + steal_s;
}

/* Of a foreign share (% of the machine), the part that was the host's
 * steal: time a runnable vCPU waited while the host ran something else,
 * which /proc/stat counts as busy; nothing in the guest can remove it.
 * foreign_s holds it whole, so this is the steal itself (capped at the
 * ticks' busy share). */
static double steal_part(const struct proto_end_report *e, double share)
{
	return e->cpu_all.valid && e->cpu_all.steal > 0 ? fmin(e->cpu_all.steal, share) : 0;
}

/*
 * Other processes' exact CPU on one end's machine over its window, in
 * seconds (-1 when not read): what its meter counted of every task but its
 * own process, the peer's too when it shares the machine. A peer whose pid
 * this end could not see (another PID namespace) was counted as another
 * process: its own CPU comes off.
 */
static double others_s(const struct engine_run *r, bool same_host)
{
	double s = end_metric(&r->local, "tasks.others_s");
	pid_t peer[2];

	if (s >= 0 && same_host && !engine_env_peer_pids(r->env_local, r->env_remote, peer))
		s = fmax(0, s - (double)own_ns(&r->remote) / NS_PER_S);
	return s;
}

/* seconds of CPU as a share of all of an end's CPUs over its window (-1
 * when either is unknown) */
static double machine_share(double s, const json_t *env, int64_t window_ns)
{
	int64_t ncpu = env_int(env, "online_cpus");

	if (s < 0 || ncpu <= 0 || window_ns <= 0)
		return -1;
	return 100.0 * s / ((double)ncpu * (double)window_ns / NS_PER_S);
}

/*
 * Whether every worker of the test had a CPU to itself: each end's workers
 * pinned (worker i on the i % n-th CPU of its end's list), and no CPU
 * taken twice, counting both ends when they share the machine. Only then
 * is a worker's wait in the run queue another task's doing.
 */
static bool workers_alone(const struct job_config *c, const struct engine_run *r,
			  bool same_host)
{
	const struct base_cpulist *list[2] = { &c->cpus, &c->remote_cpus };
	const uint32_t n[2] = { r->local.nworkers, r->remote.nworkers };
	cpu_set_t used;

	for (int end = 0; end < 2; end++) {
		if (!list[end]->n || n[end] > list[end]->n)
			return false;
		if (end == 0 || !same_host)
			CPU_ZERO(&used);
		for (uint32_t i = 0; i < n[end]; i++) {
			int cpu = list[end]->cpu[i];

			if (cpu >= CPU_SETSIZE || CPU_ISSET(cpu, &used))
				return false;
			CPU_SET(cpu, &used);
		}
	}
	return true;
}

/*
 * Of the window, the share an end's worker that waited longest spent in
 * the run queue beyond what the test's other threads and the kernel's
 * threads ran on that machine (explained_s, taken whole wherever it ran):
 * what only other processes can have taken. From a peer that does not
 * report the longest wait, the workers' mean. -1 when unknown.
 */
static double wait_others_pct(const struct proto_end_report *e, double explained_s)
{
	double wait_s = end_metric(e, "tasks.worker_wait_max_s");

	if (e->runq_wait_ns < 0 || !e->nworkers || e->window_ns <= 0)
		return -1;
	if (wait_s < 0)
		wait_s = (double)e->runq_wait_ns / NS_PER_S / e->nworkers;
	return 100.0 * fmax(0, wait_s - explained_s) / ((double)e->window_ns / NS_PER_S);
}

/* An end's CPU over its window that was not its workers': its control
 * thread, collectors and probes. */
static double nonworker_s(const struct proto_end_report *e)
{
	return e->workers_ns >= 0 ? fmax(0, (double)(own_ns(e) - e->workers_ns) / NS_PER_S) : 0;
}

/*
 * A worker kept from its CPU (window.starved): with every worker on a CPU
 * of its own, a worker of either end runnable but waiting more than
 * ENGINE_STARVED_PCT of the window, beyond what the test's and the
 * kernel's own threads explain (cpu.<end>.runq_wait_others_pct). A load
 * on one CPU of several is a small share of the machine: a loop busy 20%
 * of the time on the server's CPU was 10% of a 2-CPU machine, and held the
 * server's worker in the run queue 16-20% of the window.
 */
static bool starved(struct base_sample *s, const struct job_config *c,
		    const struct engine_run *r, bool same_host)
{
	double kt = fmax(0, end_metric(&r->local, "tasks.kthreads_s"));
	double own = nonworker_s(&r->local) + (same_host ? nonworker_s(&r->remote) : 0);
	double w[2], rkt;

	if (!workers_alone(c, r, same_host))
		return false;
	w[0] = wait_others_pct(&r->local, kt + own);
	if (w[0] >= 0)
		base_sample_set(s, "cpu.client.runq_wait_others_pct", "%", w[0]);
	rkt = same_host ? kt : fmax(0, end_metric(&r->remote, "tasks.kthreads_s"));
	w[1] = wait_others_pct(&r->remote, rkt + (same_host ? own : nonworker_s(&r->remote)));
	if (w[1] >= 0)
		base_sample_set(s, "cpu.server.runq_wait_others_pct", "%", w[1]);
	return fmax(w[0], w[1]) > ENGINE_STARVED_PCT;
}

/* An end's host steal where its workers ran, in % of those CPUs' time
 * over its window: its pinned CPUs', else the machine's; -1 unknown. */
static double end_steal(const struct proto_end_report *e)
{
	if (e->cpu_test.valid)
		return e->cpu_test.steal;
	return e->cpu_all.valid ? e->cpu_all.steal : -1;
}

/* /proc/stat gives the steal in USER_HZ ticks, each CPU's cut down to a
 * whole one at both reads: a reading may be a tick per CPU over the
 * steal, which is this share of an end's window (1% of 1 s, 3.3% of
 * 300 ms at 100 ticks a second). The peer's USER_HZ is taken to be
 * this machine's. */
static double tick_pct(const struct proto_end_report *e)
{
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0)
		hz = 100;
	return e->window_ns > 0 ? 100.0 * NS_PER_S / (double)hz / (double)e->window_ns : 0;
}

/* Whether the two ends' workers ran on different CPUs: on two machines,
 * or both pinned with no CPU in common. */
static bool ends_apart(const struct job_config *c, bool same_host)
{
	if (!same_host)
		return true;
	if (!c->cpus.n || !c->remote_cpus.n)
		return false;
	for (size_t i = 0; i < c->cpus.n; i++)
		for (size_t j = 0; j < c->remote_cpus.n; j++)
			if (c->cpus.cpu[i] == c->remote_cpus.cpu[j])
				return false;
	return true;
}

/*
 * The host's steal on the test's CPUs (cpu.stolen_pct), over
 * ENGINE_STOLEN_PCT of the window flagging window.stolen. A transaction
 * waits on each end in turn, and each end's steal adds to its time; a
 * stream's ends run at once, and the slower sets the pace: the two ends'
 * steal added is the most it can have taken, and what it takes from
 * request/response. When the ends share CPUs, it is the larger. The flag
 * takes a tick off each end's reading first (tick_pct), so that one tick
 * in a short window is not a contended host.
 */
static bool stolen(struct base_sample *s, const struct job_config *c,
		   const struct engine_run *r, bool same_host)
{
	double a = end_steal(&r->local), b = end_steal(&r->remote), v, lo;
	double la = fmax(0, a - tick_pct(&r->local)), lb = fmax(0, b - tick_pct(&r->remote));
	bool flag;

	if (a < 0 && b < 0)
		return false;
	if (ends_apart(c, same_host)) {
		v = fmax(a, 0) + fmax(b, 0);
		lo = la + lb;
	} else {
		v = fmax(a, b);
		lo = fmax(la, lb);
	}
	flag = lo > ENGINE_STOLEN_PCT;
	base_sample_set(s, "cpu.stolen_pct", "%", v);
	base_sample_set(s, "window.stolen", "", flag);
	return flag;
}

/*
 * Interference, two ways on each machine over the window: its busy CPU
 * minus the test's own processes (cpu.foreign_s and its share of all
 * CPUs; of that share, the host's steal apart), and the other processes'
 * own exact CPU (cpu.foreign_tasks_s, its share). The first holds the
 * host's steal and tasks too short to be seen at both marks, and misses
 * load the ticks did not see; the second is exact for what it sees. A
 * sample where either share is over ENGINE_DISTURBED_PCT on either end, a
 * worker was kept from its CPU (window.starved) or the host stole from the
 * test's CPUs (window.stolen) is flagged disturbed: stored and shown, left
 * out of compare by default.
 * Ends in two namespaces of one machine (the veth topology) count as one
 * machine: each end's CPU is the test's own on the other end's CPUs too.
 */
static void add_foreign(struct base_sample *s, const struct job_config *c,
			const struct engine_run *r, bool same_host)
{
	double f, share = 0, fs, t, tp;
	bool st, sl;

	same_host = same_host || engine_env_same_boot(r->env_local, r->env_remote);
	f = foreign_s(&r->local, r->env_local, &r->remote, same_host);
	if (f >= 0) {
		share = machine_share(f, r->env_local, r->local.window_ns);
		base_sample_set(s, "cpu.foreign_s", "s", f);
		base_sample_set(s, "cpu.foreign_busy_pct", "%", share);
		base_sample_set(s, "cpu.foreign_steal_pct", "%", steal_part(&r->local, share));
	}
	t = others_s(r, same_host);
	tp = machine_share(t, r->env_local, r->local.window_ns);
	if (tp >= 0) {
		base_sample_set(s, "cpu.foreign_tasks_s", "s", t);
		base_sample_set(s, "cpu.foreign_tasks_pct", "%", tp);
		share = fmax(share, tp);
	}
	if (!same_host) {
		fs = foreign_s(&r->remote, r->env_remote, &r->local, false);
		if (fs >= 0) {
			double rs = machine_share(fs, r->env_remote, r->remote.window_ns);

			base_sample_set(s, "cpu.server.foreign_s", "s", fs);
			base_sample_set(s, "cpu.server.foreign_busy_pct", "%", rs);
			base_sample_set(s, "cpu.server.foreign_steal_pct", "%", steal_part(&r->remote, rs));
			share = fmax(share, rs);
		}
		t = end_metric(&r->remote, "tasks.others_s");
		tp = machine_share(t, r->env_remote, r->remote.window_ns);
		if (tp >= 0) {
			base_sample_set(s, "cpu.server.foreign_tasks_s", "s", t);
			base_sample_set(s, "cpu.server.foreign_tasks_pct", "%", tp);
			share = fmax(share, tp);
		}
	}
	st = starved(s, c, r, same_host);
	base_sample_set(s, "window.starved", "", st);
	sl = stolen(s, c, r, same_host);
	base_sample_set(s, "window.disturbed", "", share > ENGINE_DISTURBED_PCT || st || sl);
}

/* "1:97%,0:3%": the CPUs that ran the network softirqs (NET_RX and
 * NET_TX raised per CPU over the window), busiest first, those >= 1%. */
static void softirq_cpus(const struct base_sample *s, const char *prefix,
			 char *buf, size_t len)
{
	double n[SOFTIRQ_CPUS_MAX]; /* filled up to ncpu */
	double total = 0;
	size_t off = 0;
	char name[96];
	int ncpu = 0;

	buf[0] = '\0';
	for (int cpu = 0; cpu < SOFTIRQ_CPUS_MAX; cpu++) {
		const struct sample_metric *rx, *tx;

		snprintf(name, sizeof(name), "%ssoftirq.NET_RX.cpu%d", prefix, cpu);
		rx = base_sample_get(s, name);
		snprintf(name, sizeof(name), "%ssoftirq.NET_TX.cpu%d", prefix, cpu);
		tx = base_sample_get(s, name);
		if (!rx && !tx)
			break;
		n[cpu] = (rx ? rx->value : 0) + (tx ? tx->value : 0);
		total += n[cpu];
		ncpu = cpu + 1;
	}
	if (total <= 0)
		return;
	for (;;) {
		int best = -1;
		int w;

		for (int cpu = 0; cpu < ncpu; cpu++)
			if (n[cpu] >= 0 && (best < 0 || n[cpu] > n[best]))
				best = cpu;
		if (best < 0 || 100.0 * n[best] / total < 1.0)
			break;
		w = snprintf(buf + off, len - off, "%s%d:%.0f%%", off ? "," : "",
			     best, 100.0 * n[best] / total);
		if (w < 0 || (size_t)w >= len - off) {
			buf[off] = '\0';
			break;
		}
		off += (size_t)w;
		n[best] = -1;
	}
}

/*
 * Geometric mean of <prefix>host.speed.cpu<N><suffix> over the CPUs in
 * list, or over every probed CPU of that machine when list is empty
 * (workers not pinned); 0 when none was probed.
 */
static double speed_of(const struct base_sample *s, const char *prefix, const char *suffix,
		       const struct base_cpulist *list)
{
	size_t plen = strlen(prefix);
	double logsum = 0;
	int n = 0;

	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct sample_metric *m = &s->metrics[i];
		const char *id;
		char *end;
		long cpu;
		bool in = !list->n;

		if (strncmp(m->name, prefix, plen) ||
		    strncmp(m->name + plen, "host.speed.cpu", 14))
			continue;
		id = m->name + plen + 14;
		cpu = strtol(id, &end, 10);
		if (end == id || strcmp(end, suffix) || m->value <= 0)
			continue; /* host.speed.cpu<N>.cov_pct */
		for (int k = 0; k < list->n && !in; k++)
			in = list->cpu[k] == cpu;
		if (in) {
			logsum += log(m->value);
			n++;
		}
	}
	return n ? exp(logsum / n) : 0;
}

/* One figure of the speed probe per end and for both: <name>.client,
 * <name>.server and <name> from host.speed.cpu<N><suffix>. */
static void add_speed_of(struct base_sample *s, const struct job_config *c, bool same_host,
			 const char *name, const char *suffix)
{
	double sc = speed_of(s, "", suffix, &c->cpus);
	double ss = speed_of(s, same_host ? "" : "server.", suffix, &c->remote_cpus);
	char n[64];

	snprintf(n, sizeof(n), "%s.client", name);
	if (sc > 0)
		base_sample_set(s, n, "op/us", sc);
	snprintf(n, sizeof(n), "%s.server", name);
	if (ss > 0)
		base_sample_set(s, n, "op/us", ss);
	if (sc > 0 && ss > 0)
		base_sample_set(s, name, "op/us", sqrt(sc * ss));
}

/*
 * Each end's CPU speed (speed.h) over its workers' CPUs, and the two
 * together: what explains a sample that ran while the host slowed a vCPU.
 * host.speed counts the time interruptions took, host.speed.core the
 * core's pace between them.
 */
static void add_speed(struct base_sample *s, const struct job_config *c,
		      bool same_host)
{
	add_speed_of(s, c, same_host, "host.speed", "");
	add_speed_of(s, c, same_host, "host.speed.core", ".core");
}

/* Where the work ran: the policy, each worker's CPU, the softirq CPUs. */
static void add_placement(struct base_sample *s, const struct job_config *c,
			  const struct engine_run *r, bool same_host)
{
	char buf[PROTO_STR_MAX];

	base_sample_env(s, "placement.policy", "%s", job_config_placement_desc(c));
	if (r->local.worker_cpus[0])
		base_sample_env(s, "placement.client.workers", "%s", r->local.worker_cpus);
	if (r->remote.worker_cpus[0])
		base_sample_env(s, "placement.server.workers", "%s", r->remote.worker_cpus);
	softirq_cpus(s, "", buf, sizeof(buf));
	if (buf[0])
		base_sample_env(s, same_host ? "placement.softirq_cpus" :
					       "placement.client.softirq_cpus", "%s", buf);
	if (!same_host) {
		softirq_cpus(s, "server.", buf, sizeof(buf));
		if (buf[0])
			base_sample_env(s, "placement.server.softirq_cpus", "%s", buf);
	}
}

/*
 * A CPU latency request held on an end without a cpuidle driver
 * (cpuidle.driver none) changes nothing there: the kernel's idle loop
 * then runs the architecture's default idle (a halt on x86) and no
 * governor reads the request. The sample says so, as its key says held.
 */
static void note_cpu_latency(struct base_sample *s, const struct job_config *c,
			     const json_t *sysenv, const char *side)
{
	const json_t *entries = json_object_get(sysenv, "entries");
	const char *drv = json_string_value(json_object_get(entries, "cpuidle.driver"));
	char key[64];

	if (!c->hold_cpu_latency || !entries || (drv && strcmp(drv, "none")))
		return;
	snprintf(key, sizeof(key), "%s.collect.cpu_latency", side);
	base_sample_env(s, key,
			"held at %" PRIu32 " us, but this machine has no cpuidle driver "
			"(cpuidle.driver %s): an idle CPU runs the kernel's default idle "
			"(a halt on x86) whatever the request, so it changes nothing here",
			c->cpu_latency_us, drv ? drv : "absent");
}

static const struct proto_flow_report *find(const struct proto_end_report *r,
					    uint32_t id)
{
	for (uint32_t i = 0; i < r->nflows; i++)
		if (r->flows[i].id == id)
			return &r->flows[i];
	return NULL;
}

/* The collectors' metrics of one end (prefixed) and their notes as env. */
static void add_collected(struct base_sample *s, const char *prefix,
			  const struct proto_end_report *r, const char *side)
{
	const char *k;
	json_t *v;
	char name[160];

	json_object_foreach(r->metrics, k, v) {
		snprintf(name, sizeof(name), "%s%s", prefix, k);
		base_sample_set(s, name, unit_of(k), json_number_value(v));
	}
	json_object_foreach(r->notes, k, v) {
		snprintf(name, sizeof(name), "%s.collect.%s", side, k);
		base_sample_env(s, name, "%s", json_string_value(v));
	}
}

/* Counters that explain a change best, also per unit of work. */
static const char *const per_unit_counters[] = {
	"snmp.Tcp.OutSegs", "snmp.Tcp.InSegs", "snmp.Tcp.RetransSegs",
	"snmp.Udp.InDatagrams", "snmp.Udp.OutDatagrams",
	"snmp.Udp.RcvbufErrors", "snmp.Udp.SndbufErrors", "snmp.Ip.InReceives",
	"netstat.TcpExt.TCPRcvCollapsed", "netstat.TcpExt.TCPBacklogCoalesce",
	"softirq.NET_RX", "softirq.NET_TX", "stat.ctxt", "stat.intr",
	"irq.RES", "irq.CAL",
	"perf.instructions", "perf.cycles", "perf.cache_misses",
};

/* Set name to a / b when both are known and b > 0. */
static void set_ratio(struct base_sample *s, const char *name, double a, double b)
{
	if (b > 0)
		base_sample_set(s, name, "", a / b);
}

/*
 * Segmentation against the application's calls (streams): bytes or
 * datagrams per send and per receive call, and the segments or datagrams
 * the kernel counted per call or per message, so that a change in how the
 * stream is cut shows as such. On a shared machine the counters hold both
 * ends (TCP OutSegs: data and ACKs).
 */
static void add_per_call(const struct job_config *c, const struct engine_run *r,
			 struct base_sample *s)
{
	double tx_calls = 0, rx_calls = 0, tx_bytes = 0, rx_bytes = 0;
	double tx_msgs = 0, rx_msgs = 0;
	const struct sample_metric *m;

	for (int side = 0; side < 2; side++) {
		const struct proto_end_report *e = side ? &r->remote : &r->local;

		for (uint32_t i = 0; i < e->nflows; i++) {
			const struct proto_flow_report *f = &e->flows[i];

			if (f->tx) {
				tx_calls += (double)f->win_calls;
				tx_bytes += (double)f->win_bytes;
				tx_msgs += (double)f->win_msgs;
			} else {
				rx_calls += (double)f->win_calls;
				rx_bytes += (double)f->win_bytes;
				rx_msgs += (double)f->win_msgs;
			}
		}
	}
	set_ratio(s, "io.bytes_per_send", tx_bytes, tx_calls);
	set_ratio(s, "io.bytes_per_recv", rx_bytes, rx_calls);
	if (job_test_is_udp(c->test)) {
		set_ratio(s, "io.msgs_per_send", tx_msgs, tx_calls);
		set_ratio(s, "io.msgs_per_recv", rx_msgs, rx_calls);
		if ((m = base_sample_get(s, "snmp.Udp.OutDatagrams")))
			set_ratio(s, "snmp.Udp.OutDatagrams.per_msg", m->value, tx_msgs);
		if ((m = base_sample_get(s, "snmp.Udp.InDatagrams")))
			set_ratio(s, "snmp.Udp.InDatagrams.per_msg", m->value, rx_msgs);
		return;
	}
	if ((m = base_sample_get(s, "snmp.Tcp.OutSegs")))
		set_ratio(s, "snmp.Tcp.OutSegs.per_write", m->value, tx_calls);
	if ((m = base_sample_get(s, "snmp.Tcp.InSegs")))
		set_ratio(s, "snmp.Tcp.InSegs.per_read", m->value, rx_calls);
}

/*
 * cpuidle, each end that counted it: every state's entries per unit of
 * work (cpuidle.<state>.usage.per_trans: how often a CPU went idle into
 * it per transaction) and its residency, the share of the counted CPUs'
 * time in it over the end's window (cpuidle.<state>.residency_pct).
 */
static void add_cpuidle(const struct engine_run *r, struct base_sample *s,
			const char *unit, double amount)
{
	for (int side = 0; side < 2; side++) {
		const char *prefix = side ? "server." : "";
		int64_t win = side ? r->remote.window_ns : r->local.window_ns;
		size_t plen = strlen(prefix), n = s->nmetrics;
		const struct sample_metric *g;
		double cpus;
		char name[160];

		/* values, not pointers: setting a metric may move the array */
		snprintf(name, sizeof(name), "%scpuidle.cpus", prefix);
		g = base_sample_get(s, name);
		cpus = g ? g->value : 0;
		for (size_t i = 0; i < n; i++) {
			struct sample_metric m = s->metrics[i];
			size_t stem;

			if (strncmp(m.name, prefix, plen) ||
			    strncmp(m.name + plen, "cpuidle.", 8))
				continue;
			if (ends_with(m.name, ".usage")) {
				snprintf(name, sizeof(name), "%s.%s", m.name, unit);
				base_sample_set(s, name, "", m.value / amount);
			} else if (ends_with(m.name, ".time_us") && cpus > 0 &&
				   win > 0) {
				stem = strlen(m.name) - strlen(".time_us");
				snprintf(name, sizeof(name), "%.*s.residency_pct", (int)stem, m.name);
				base_sample_set(s, name, "%",
						100.0 * m.value * 1e3 / ((double)win * cpus));
			}
		}
	}
}

/*
 * Per unit of work: per MB received for streams, per transaction for
 * request/response; TCP segments per write; and CPU service demand the way
 * netperf defines it (busy CPU time of the machine over the work done).
 */
static void add_per_unit(const struct job_config *c, const struct engine_run *r,
			 struct base_sample *s)
{
	bool stream = job_test_kind(c->test) == JOB_KIND_STREAM;
	const struct sample_metric *work;
	const char *unit = stream ? "per_mb" : "per_trans";
	double amount, kb = 0;
	char name[160];

	if (stream) {
		uint64_t bytes = 0;

		for (size_t i = 0; i < s->nflows; i++) {
			bytes += s->flows[i].rx_win_bytes;
		}
		amount = (double)bytes / 1e6;
		kb = (double)bytes / 1024.0;
	} else {
		work = base_sample_get(s, "transactions.per_s");
		amount = work ? work->value * (double)r->local.window_ns / NS_PER_S : 0;
	}
	if (amount <= 0)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(per_unit_counters); i++) {
		const struct sample_metric *m = base_sample_get(s, per_unit_counters[i]);

		if (!m)
			continue;
		snprintf(name, sizeof(name), "%s.%s", per_unit_counters[i], unit);
		base_sample_set(s, name, "", m->value / amount);
	}
	add_cpuidle(r, s, unit, amount);
	if (stream)
		add_per_call(c, r, s);
	/* service demand, each end: us of the end's own CPU (exact
	 * accounting) per KB or per transaction; and netperf's, from the
	 * busy CPU of the whole machine (which other tenants inflate). And
	 * how often the end's workers were switched in per unit: a worker
	 * that sleeps in every wait and is woken (one per transaction in
	 * ping-pong) against one that finds work queued */
	for (int side = 0; side < 2; side++) {
		const struct proto_end_report *e = side ? &r->remote : &r->local;
		const char *end = side ? "server" : "client";
		const json_t *env = side ? r->env_remote : r->env_local;
		const json_t *nc = json_object_get(env, "online_cpus");
		double ncpu = json_is_integer(nc) ? (double)json_integer_value(nc) : 0;
		double per = stream ? kb : amount, scale, busy_us;
		double sw = end_metric(e, "tasks.worker_switches");

		if (e->window_ns <= 0)
			continue;
		scale = (double)r->local.window_ns / (double)e->window_ns;
		if (sw >= 0) {
			snprintf(name, sizeof(name), "cpu.%s.workers_switches.%s", end, unit);
			base_sample_set(s, name, "", sw / amount * scale);
		}
		snprintf(name, sizeof(name), "cpu.service_demand.%s_us_per_%s",
			 end, stream ? "kb" : "trans");
		base_sample_set(s, name, "us", (double)own_ns(e) / 1e3 / per * scale);
		if (!e->cpu_all.valid || ncpu <= 0)
			continue;
		busy_us = e->cpu_all.busy / 100.0 * ncpu * (double)e->window_ns / 1e3;
		snprintf(name, sizeof(name), "cpu.service_demand.%s_host_us_per_%s",
			 end, stream ? "kb" : "trans");
		base_sample_set(s, name, "us", busy_us / per * scale);
	}
}

/*
 * Request/response: the client completes transactions; its window is the
 * measure. Latency percentiles come from the merged histogram.
 */
static int add_rr(const struct job_config *c, const struct engine_run *r,
		  struct base_sample *s, double *per_flow, uint32_t nflows,
		  struct base_err *err)
{
	const struct proto_end_report *l = &r->local;
	const struct base_hist *h = r->latency;
	uint64_t done = 0, lost = 0, late = 0, fails = 0;
	double tps;

	for (uint32_t i = 0; i < nflows; i++) {
		const struct proto_flow_report *cf = find(l, i);
		struct sample_flow *f = &s->flows[i];

		f->tps = l->window_ns > 0 ?
			 (double)cf->win_msgs * NS_PER_S / (double)l->window_ns : 0;
		f->fails = cf->fails;
		per_flow[i] = f->tps;
		done += cf->win_msgs;
		lost += cf->udp_lost;
		late += cf->udp_dup;
		fails += cf->fails;
	}
	tps = l->window_ns > 0 ? (double)done * NS_PER_S / (double)l->window_ns : 0;
	base_sample_set(s, "transactions.per_s", "trans/s", tps);
	if (nflows > 1)
		base_sample_set(s, "fairness.jain", "", base_jain_index(per_flow, nflows));
	if (h && h->n) {
		base_sample_set(s, "latency.min_us", "us", (double)h->min / 1e3);
		base_sample_set(s, "latency.mean_us", "us", base_hist_mean(h) / 1e3);
		base_sample_set(s, "latency.p50_us", "us", base_hist_quantile(h, 0.50) / 1e3);
		base_sample_set(s, "latency.p90_us", "us", base_hist_quantile(h, 0.90) / 1e3);
		base_sample_set(s, "latency.p99_us", "us", base_hist_quantile(h, 0.99) / 1e3);
		base_sample_set(s, "latency.p999_us", "us", base_hist_quantile(h, 0.999) / 1e3);
		base_sample_set(s, "latency.max_us", "us", (double)h->max / 1e3);
	}
	if (h) {
		s->latency = malloc(sizeof(*s->latency));
		if (!s->latency)
			return base_err_set(err, -ENOMEM, "out of memory");
		*s->latency = *h;
	}
	if (job_test_is_udp(c->test)) {
		base_sample_set(s, "udp.lost", "trans", (double)lost);
		base_sample_set(s, "udp.loss_pct", "%",
				lost + done ? 100.0 * (double)lost / (double)(lost + done) : 0);
		base_sample_set(s, "rr.late_replies", "msg", (double)late);
	}
	if (job_test_kind(c->test) == JOB_KIND_CRR) {
		base_sample_set(s, "crr.connects_per_s", "conn/s", tps);
		base_sample_set(s, "crr.connect_failures", "conn", (double)fails);
	}
	return 0;
}

/* The tcp senders' TCP_INFO over the window, summed over the flows. */
struct tcp_win {
	uint32_t n; /* flows that counted it */
	double data_segs, bytes_sent, calls; /* calls: the senders' writes */
	double retrans, dsack_dups, reord_seen;
	double busy_pct, rwnd_pct, sndbuf_pct; /* of each sender's window, summed */
};

static void tcp_win_add(struct tcp_win *w, const struct proto_flow_report *tx,
			int64_t window_ns)
{
	const struct proto_tcpi_win *t = &tx->tcpi_win;
	double us = (double)window_ns / 1e3;

	if (!tx->has_tcpi_win || window_ns <= 0)
		return;
	w->n++;
	w->data_segs += t->data_segs_out;
	w->bytes_sent += (double)t->bytes_sent;
	w->calls += (double)tx->win_calls;
	w->retrans += t->retrans;
	w->dsack_dups += t->dsack_dups;
	w->reord_seen += t->reord_seen;
	/* the kernel counts whole jiffies: a share can pass 100 by one */
	w->busy_pct += fmin(100.0, 100.0 * (double)t->busy_us / us);
	w->rwnd_pct += fmin(100.0, 100.0 * (double)t->rwnd_limited_us / us);
	w->sndbuf_pct += fmin(100.0, 100.0 * (double)t->sndbuf_limited_us / us);
}

/*
 * A stream's receivers, from their own sockets' TCP_INFO over the window
 * (an older server sends none): the pure ACKs they sent per data segment
 * they received, what delayed ACKs, quick ACKs and receive-side coalescing
 * decide. No other traffic is in it, unlike snmp.Tcp.OutSegs.
 */
static void add_tcp_acks(struct base_sample *s, const struct engine_run *r,
			 const struct job_config *c, uint32_t nflows)
{
	double acks = 0, data_in = 0;

	for (uint32_t i = 0; i < nflows; i++) {
		bool c2s = job_config_flow_c2s(c, i);
		const struct proto_flow_report *rx = find(c2s ? &r->remote : &r->local, i);

		if (!rx || !rx->has_tcpi_win || !rx->tcpi_win.has_segs)
			return;
		acks += rx->tcpi_win.segs_out - rx->tcpi_win.data_segs_out;
		data_in += rx->tcpi_win.data_segs_in;
	}
	base_sample_set(s, "tcp.acks", "seg", acks);
	set_ratio(s, "tcp.acks.per_seg", acks, data_in);
}

/*
 * Request/response over tcp, from both ends' sockets over the window (an
 * older server sends none): retransmissions either way, and per
 * transaction the data segments and the pure ACKs both ends sent, so that
 * an ACK no longer carried by the reply (or a message cut in more
 * segments) shows as such.
 */
static void add_tcp_rr(struct base_sample *s, const struct engine_run *r,
		       uint32_t nflows)
{
	double trans = 0, retrans = 0, dsack = 0, data = 0, acks = 0;

	for (uint32_t i = 0; i < nflows; i++) {
		const struct proto_flow_report *end[2] = { find(&r->local, i),
							   find(&r->remote, i) };

		for (int k = 0; k < 2; k++) {
			const struct proto_tcpi_win *t;

			if (!end[k] || !end[k]->has_tcpi_win || !end[k]->tcpi_win.has_segs)
				return;
			t = &end[k]->tcpi_win;
			retrans += t->retrans;
			dsack += t->dsack_dups;
			data += t->data_segs_out;
			acks += t->segs_out - t->data_segs_out;
		}
		trans += (double)end[0]->win_msgs;
	}
	base_sample_set(s, "tcp.retransmits", "seg", retrans);
	base_sample_set(s, "tcp.dsack_dups", "seg", dsack);
	set_ratio(s, "tcp.data_segs.per_trans", data, trans);
	set_ratio(s, "tcp.acks.per_trans", acks, trans);
}

/* How the senders cut the stream (their own sockets' data segments: no
 * ACKs, no other traffic, unlike snmp.Tcp.OutSegs.per_write), where their
 * time went (shares of the window, mean over the flows) and which of
 * their retransmissions were not needed. */
static void add_tcp_win(struct base_sample *s, const struct tcp_win *w)
{
	set_ratio(s, "tcp.bytes_per_seg", w->bytes_sent, w->data_segs);
	set_ratio(s, "tcp.data_segs.per_write", w->data_segs, w->calls);
	base_sample_set(s, "tcp.dsack_dups", "seg", w->dsack_dups);
	base_sample_set(s, "tcp.reord_seen", "count", w->reord_seen);
	base_sample_set(s, "tcp.busy_pct", "%", w->busy_pct / w->n);
	base_sample_set(s, "tcp.rwnd_limited_pct", "%", w->rwnd_pct / w->n);
	base_sample_set(s, "tcp.sndbuf_limited_pct", "%", w->sndbuf_pct / w->n);
}

/* Whether the comma-separated list holds name. */
static bool list_has(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list;; p++) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, name, n))
			return true;
		p += k;
		if (!*p)
			return false;
	}
}

/* The congestion control the tcp senders ran, as their sockets report it
 * (--cc, else the system's default, or what a program attached there
 * chose): env tcp.cc, the distinct names in flow order ("bbr",
 * "bbr,cubic"). Nothing from ends that do not report it. */
static void add_cc(struct base_sample *s, const struct job_config *c,
		   const struct engine_run *r, uint32_t nflows)
{
	char names[8 * PROTO_CC_MAX] = "";
	size_t len = 0;

	for (uint32_t i = 0; i < nflows; i++) {
		const struct proto_flow_report *tx =
			find(job_config_flow_c2s(c, i) ? &r->local : &r->remote, i);
		const char *cc = tx && tx->has_tcpi ? tx->tcpi.cc : "";

		if (!cc[0] || list_has(names, cc) || len + strlen(cc) + 2 > sizeof(names))
			continue;
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
					len ? "," : "", cc);
	}
	if (len)
		base_sample_env(s, "tcp.cc", "%s", names);
}

/* One granted figure over the flows of a role: how many gave it, their
 * sum, the least and the greatest. */
struct granted {
	uint32_t n;
	double sum, lo, hi;
};

static void granted_add(struct granted *g, double v)
{
	if (!g->n || v < g->lo)
		g->lo = v;
	if (!g->n || v > g->hi)
		g->hi = v;
	g->sum += v;
	g->n++;
}

/* name: the mean, once at least want flows gave it; name.min: the least,
 * only when the flows disagree (absent, every flow had the mean). */
static void granted_set(struct base_sample *s, const char *name, const char *unit,
			const struct granted *g, uint32_t want)
{
	char min[sizeof(s->metrics[0].name)];

	if (!g->n || g->n < want)
		return;
	base_sample_set(s, name, unit, g->sum / g->n);
	if (g->lo < g->hi) {
		snprintf(min, sizeof(min), "%s.min", name);
		base_sample_set(s, min, unit, g->lo);
	}
}

/* The socket buffers the kernel granted each end's flows, at launch and at stop. */
static const struct {
	const char *name;
	size_t off;
} granted_bufs[] = {
	{ "sndbuf", offsetof(struct proto_flow_report, sndbuf) },
	{ "rcvbuf", offsetof(struct proto_flow_report, rcvbuf) },
	{ "sndbuf_end", offsetof(struct proto_flow_report, sndbuf_end) },
	{ "rcvbuf_end", offsetof(struct proto_flow_report, rcvbuf_end) },
};

static void add_granted_bufs(struct base_sample *s, const struct proto_end_report *end,
			     const char *role, uint32_t nflows)
{
	for (size_t k = 0; k < ARRAY_SIZE(granted_bufs); k++) {
		struct granted g = { 0 };
		char name[64];

		for (uint32_t i = 0; i < nflows; i++) {
			const struct proto_flow_report *f = find(end, i);
			uint64_t v;

			if (!f)
				continue;
			memcpy(&v, (const char *)f + granted_bufs[k].off, sizeof(v));
			/* the kernel grants no socket 0: an end that had no
			 * socket to ask (tcp_crr between connections) */
			if (v)
				granted_add(&g, (double)v);
		}
		snprintf(name, sizeof(name), "granted.%s.%s", role, granted_bufs[k].name);
		granted_set(s, name, "B", &g, 0);
	}
}

enum { GRANTED_RCV_SPACE, GRANTED_RCV_SSTHRESH, GRANTED_RCV_WSCALE, GRANTED_ADVMSS,
       GRANTED_MSS, GRANTED_SND_WSCALE, GRANTED_TCP_N };

static const struct {
	const char *name, *unit;
} granted_tcp[GRANTED_TCP_N] = {
	[GRANTED_RCV_SPACE] = { "granted.rx.rcv_space", "B" },
	[GRANTED_RCV_SSTHRESH] = { "granted.rx.rcv_ssthresh", "B" },
	[GRANTED_RCV_WSCALE] = { "granted.rx.rcv_wscale", "shift" },
	[GRANTED_ADVMSS] = { "granted.rx.advmss", "B" },
	[GRANTED_MSS] = { "granted.tx.mss", "B" },
	[GRANTED_SND_WSCALE] = { "granted.tx.snd_wscale", "shift" },
};

/*
 * What the kernel granted (docs/results.md, "granted."): each end's
 * socket buffers, and over tcp the receiving and the sending sockets'
 * state at stop, each figure only when every flow gave it (an older
 * server sends no receiver's state and no window scale).
 */
static void add_granted(struct base_sample *s, const struct job_config *c,
			const struct engine_run *r, uint32_t nflows)
{
	struct granted g[GRANTED_TCP_N] = { 0 };

	add_granted_bufs(s, &r->local, "client", nflows);
	add_granted_bufs(s, &r->remote, "server", nflows);
	for (uint32_t i = 0; i < nflows; i++) {
		bool c2s = job_config_flow_c2s(c, i);
		const struct proto_flow_report *tx = find(c2s ? &r->local : &r->remote, i);
		const struct proto_flow_report *rx = find(c2s ? &r->remote : &r->local, i);

		if (rx && rx->has_tcpi_rx) {
			granted_add(&g[GRANTED_RCV_SPACE], rx->tcpi_rx.rcv_space);
			granted_add(&g[GRANTED_RCV_SSTHRESH], rx->tcpi_rx.rcv_ssthresh);
			granted_add(&g[GRANTED_RCV_WSCALE], rx->tcpi_rx.rcv_wscale);
			granted_add(&g[GRANTED_ADVMSS], rx->tcpi_rx.advmss);
		}
		if (tx && tx->has_tcpi)
			granted_add(&g[GRANTED_MSS], tx->tcpi.snd_mss);
		if (tx && tx->has_tcpi && tx->tcpi.has_wscale)
			granted_add(&g[GRANTED_SND_WSCALE], tx->tcpi.snd_wscale);
	}
	for (size_t k = 0; k < GRANTED_TCP_N; k++)
		granted_set(s, granted_tcp[k].name, granted_tcp[k].unit, &g[k], nflows);
}

int engine_run_sample(const struct job_config *c, const struct engine_run *r,
		      const char *label, bool same_host, struct base_sample *s,
		      struct base_err *err)
{
	uint32_t nflows = job_config_nflows(c);
	uint64_t rx_msgs = 0, lost = 0, reord = 0, dup = 0, retrans = 0;
	double total = 0, sender = 0, dir_gbps[2] = { 0, 0 }, rate = 0;
	double rtt_sum = 0, cwnd_sum = 0, *per_flow = NULL;
	uint32_t ntcpi = 0, ndrops = 0;
	uint64_t drops = 0;
	struct tcp_win win = { 0 };
	struct param_ctx pc = { .s = s };
	int64_t rx_ns_max = 0;
	int ret;

	base_sample_new_id(s);
	snprintf(s->label, sizeof(s->label), "%s", label);
	if ((ret = job_config_key(c, s->config_key, sizeof(s->config_key))))
		return base_err_set(err, ret, "configuration key too long");
	s->wall_start_ns = r->wall_start_ns;
	job_config_each_param(c, add_param, &pc);
	s->duration_ns = c->duration_ns;
	s->warmup_ns = r->warmup_ns; /* what ran: --warmup auto decides */
	snprintf(s->server, sizeof(s->server), "%s", r->server);
	add_env(s, "client", r->env_local);
	add_env(s, "server", r->env_remote);
	add_sysenv(s, r);
	if (pc.ret || (ret = base_sample_alloc_flows(s, nflows)))
		return base_err_set(err, -ENOMEM, "out of memory");
	per_flow = calloc(nflows ? nflows : 1, sizeof(*per_flow));
	if (!per_flow)
		return base_err_set(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < nflows; i++) {
		bool c2s = job_config_flow_c2s(c, i);
		const struct proto_flow_report *cf = find(&r->local, i);
		const struct proto_flow_report *sf = find(&r->remote, i);
		const struct proto_flow_report *tx = c2s ? cf : sf, *rx = c2s ? sf : cf;
		const struct proto_end_report *rx_end = c2s ? &r->remote : &r->local;
		const struct proto_end_report *tx_end = c2s ? &r->local : &r->remote;
		struct sample_flow *f = &s->flows[i];

		if (!cf || !sf || !tx->tx || rx->tx) {
			free(per_flow);
			return base_err_set(err, -EPROTO,
					    "flow %u is missing or has the wrong direction in a report",
					    i);
		}
		f->id = i;
		snprintf(f->dir, sizeof(f->dir), "%s", c2s ? "send" : "recv");
		f->rx_win_bytes = rx->win_bytes;
		f->rx_win_msgs = rx->win_msgs;
		f->tx_win_bytes = tx->win_bytes;
		f->tx_win_msgs = tx->win_msgs;
		f->rx_total_bytes = rx->total_bytes;
		f->tx_total_bytes = tx->total_bytes;
		f->rx_gbps = gbps(rx->win_bytes, rx_end->window_ns);
		f->tx_gbps = gbps(tx->win_bytes, tx_end->window_ns);
		f->udp_lost = rx->udp_lost;
		f->udp_reordered = rx->udp_reordered;
		f->udp_dup = rx->udp_dup;
		f->client_sndbuf = cf->sndbuf;
		f->client_rcvbuf = cf->rcvbuf;
		f->server_sndbuf = sf->sndbuf;
		f->server_rcvbuf = sf->rcvbuf;
		f->client_sndbuf_end = cf->sndbuf_end;
		f->client_rcvbuf_end = cf->rcvbuf_end;
		f->server_sndbuf_end = sf->sndbuf_end;
		f->server_rcvbuf_end = sf->rcvbuf_end;
		f->has_tcp_info = tx->has_tcpi;
		if (tx->has_tcpi) {
			/* over the window where the sender counted it there */
			f->tcpi_retrans = tx->has_tcpi_win ? tx->tcpi_win.retrans
							   : tx->tcpi.total_retrans;
			f->tcpi_rtt_us = tx->tcpi.rtt_us;
			f->tcpi_rttvar_us = tx->tcpi.rttvar_us;
			f->tcpi_snd_cwnd = tx->tcpi.snd_cwnd;
			f->tcpi_snd_mss = tx->tcpi.snd_mss;
			f->tcpi_delivery_rate_bps = tx->tcpi.delivery_rate_bps;
			retrans += tx->tcpi.total_retrans;
			tcp_win_add(&win, tx, tx_end->window_ns);
			rtt_sum += tx->tcpi.rtt_us;
			cwnd_sum += tx->tcpi.snd_cwnd;
			rate += (double)tx->tcpi.delivery_rate_bps / 1e9;
			ntcpi++;
		}
		per_flow[i] = f->rx_gbps;
		total += f->rx_gbps;
		sender += f->tx_gbps;
		dir_gbps[c2s ? 0 : 1] += f->rx_gbps;
		rx_msgs += rx->win_msgs;
		lost += rx->udp_lost;
		reord += rx->udp_reordered;
		dup += rx->udp_dup;
		if (rx->has_sock_drops) {
			drops += rx->sock_drops;
			ndrops++;
		}
		if (rx_end->window_ns > rx_ns_max)
			rx_ns_max = rx_end->window_ns;
	}
	add_cc(s, c, r, nflows);
	if (job_test_kind(c->test) != JOB_KIND_STREAM) {
		ret = add_rr(c, r, s, per_flow, nflows, err);
		free(per_flow);
		if (ret)
			return ret;
		add_tcp_rr(s, r, nflows);
		goto common;
	}
	base_sample_set(s, "throughput.gbps", "Gbps", total);
	base_sample_set(s, "throughput.msgs_per_s", "msg/s",
			rx_ns_max ? (double)rx_msgs * NS_PER_S / (double)rx_ns_max : 0);
	base_sample_set(s, "throughput.sender_gbps", "Gbps", sender);
	if (c->dir == JOB_DIR_BIDIR) {
		base_sample_set(s, "throughput.send.gbps", "Gbps", dir_gbps[0]);
		base_sample_set(s, "throughput.recv.gbps", "Gbps", dir_gbps[1]);
	}
	if (nflows > 1)
		base_sample_set(s, "fairness.jain", "", base_jain_index(per_flow, nflows));
	free(per_flow);
	if (job_test_is_udp(c->test)) {
		base_sample_set(s, "udp.lost", "msg", (double)lost);
		base_sample_set(s, "udp.loss_pct", "%",
				lost + rx_msgs ? 100.0 * (double)lost / (double)(lost + rx_msgs) : 0);
		base_sample_set(s, "udp.reordered", "msg", (double)reord);
		base_sample_set(s, "udp.duplicates", "msg", (double)dup);
		/* what the receivers' own sockets dropped, beside what their
		 * sequence numbers say was lost */
		if (ndrops == nflows)
			base_sample_set(s, "udp.sock_drops", "msg", (double)drops);
	}
	if (!job_test_is_udp(c->test) && ntcpi) {
		/* over the window when every sender counted it there; an
		 * older server's count runs from connect */
		base_sample_set(s, "tcp.retransmits", "seg",
				win.n == ntcpi ? win.retrans : (double)retrans);
		if (win.n == ntcpi)
			add_tcp_win(s, &win);
		add_tcp_acks(s, r, c, nflows);
		base_sample_set(s, "tcp.rtt_us", "us", rtt_sum / ntcpi);
		base_sample_set(s, "tcp.cwnd", "seg", cwnd_sum / ntcpi);
		base_sample_set(s, "tcp.delivery_rate_gbps", "Gbps", rate);
	}
common:
	add_granted(s, c, r, nflows);
	add_collected(s, "", &r->local, "client");
	if (!same_host)
		add_collected(s, "server.", &r->remote, "server");
	add_per_unit(c, r, s);
	add_cpu(s, "client", &r->local);
	add_cpu(s, "server", &r->remote);
	add_foreign(s, c, r, same_host);
	add_placement(s, c, r, same_host);
	note_cpu_latency(s, c, r->sysenv_local, "client");
	if (!same_host)
		note_cpu_latency(s, c, r->sysenv_remote, "server");
	add_speed(s, c, same_host);
	base_sample_set(s, "window.client_s", "s", (double)r->local.window_ns / NS_PER_S);
	base_sample_set(s, "window.server_s", "s", (double)r->remote.window_ns / NS_PER_S);
	if (r->local.drain_timeout || r->remote.drain_timeout)
		base_sample_set(s, "window.drain_timeout", "", 1);
	return 0;
}
