/* SPDX-License-Identifier: GPL-2.0-only */
/* One end's window: CPU and process usage at the two marks, and its report. */
#ifndef NR_ENGINE_METER_H
#define NR_ENGINE_METER_H

#include <jansson.h>

#include "base/parse.h"
#include "collect/counters.h"
#include "collect/cpu.h"
#include "collect/ksyms.h"
#include "collect/others.h"
#include "collect/perf.h"
#include "collect/profile.h"
#include "collect/speed.h"
#include "collect/task.h"
#include "collect/usage.h"
#include "collect/xcpu.h"
#include "engine/engine.h"
#include "proto/msg.h"

/* What an end collects over the window besides its CPU split. */
struct engine_collect {
	bool counters; /* snmp, netstat, snmp6, softirqs, ctxt, intr deltas */
	bool perf;     /* perf_event counters on the test's CPUs */
	bool profile;  /* sampled kernel profile on the test's CPUs */
	/* the profile's rows: symbols whose self or children share is at
	 * least this many percent, 0..100 (COLLECT_PROFILE_MIN_PCT usually;
	 * the caller sets it: 0 keeps every symbol seen) */
	double profile_min_pct;
	bool speed;    /* the CPU speed probe on the test's CPUs (speed.h) */
	struct base_cpulist cpus; /* CPUs the test uses; n 0 = every online CPU */
	/* the cross-CPU probe (xcpu.h) between these pairs of the test's
	 * CPUs; none: not run (a client whose server shares its machine) */
	struct collect_xcpu_pair xcpu_pairs[COLLECT_XCPU_PAIRS_MAX];
	size_t xcpu_npairs;
	bool xcpu_asked; /* asked for, even when there was no pair to probe */
	/* every other task's exact CPU (others.h), this process left out and
	 * nown more of the test's own: a server's session and listener on the
	 * client's machine, in view; a session's listener on the server's */
	bool others;
	pid_t own_pids[2];
	size_t nown;
	/* the tasks that end in the window: a listener lent by the caller
	 * (engine_client_opts.exits, not freed), or NULL: opened here */
	struct collect_exits *exits;
};

/* Control-thread only; never touched by workers. */
struct engine_meter {
	struct engine_collect col;
	struct collect_counters *ctr[2];
	struct collect_cpustat *stat[2];
	struct collect_rusage ru[2];
	int64_t t_ns[2];
	bool closed; /* the engine's counters closed (engine_meter_close) */
	bool marked[2], ctr_ok[2];
	struct base_err ctr_err;
	struct base_err idle_err; /* why the idle states were left out */
	struct base_err irq_err;  /* why the interrupts were left out */
	struct collect_perf *perf;
	struct collect_profile *prof;
	struct collect_ksyms *ksyms;
	struct collect_speed *speed;
	struct collect_xcpu *xcpu;
	int64_t tick_go_ns; /* engine_meter_ticks_from; 0: not said */
	bool perf_ok, prof_ok, speed_ok, xcpu_ok;
	char perf_note[200], prof_note[200], speed_note[200], xcpu_note[200];
	bool sel[COLLECT_CPU_MAX]; /* the CPUs the workers are pinned to */
	bool have_sel;
	/* exact accounting: the process's CPU clock and each worker thread's
	 * schedstat at both marks (task_ok: every worker read at both) */
	int64_t proc_ns[2];
	struct collect_task *task[2];
	uint32_t ntask;
	bool task_ok[2];
	/* other tasks at both marks (col.others) */
	struct collect_others *others[2];
	bool others_ok[2];
	char others_note[200];
	/* the tasks that end between them (NULL: not counted, exits_note
	 * says why); lent: col.exits, the caller's to free */
	struct collect_exits *exits;
	bool exits_lent;
	char exits_note[200];
};

/* cpus: where the workers are pinned (for the test CPUs' split); col: what
 * else to collect (NULL: nothing). A collector that cannot run here is
 * noted in the report, never an error. */
int engine_meter_init(struct engine_meter *m, const struct base_cpulist *cpus,
		      const struct engine_collect *col, struct base_err *err);
void engine_meter_release(struct engine_meter *m);
/* Open (0) or close (1) the window: engine counters, /proc/stat, rusage. */
void engine_meter_mark(struct engine_meter *m, struct engine *e, int which);
/*
 * Close the window's engine counters now, ahead of engine_meter_mark(m, e,
 * 1), which then reads the rest (the probes, /proc). The client closes
 * first and tells the server at once: the collectors' reads after the
 * mark take milliseconds, which the server's window would otherwise take
 * in (about 2.6 ms more than the client's, measured on loopback).
 */
void engine_meter_close(struct engine_meter *m, struct engine *e);
/*
 * The server's ticks fall at t_go_ns + k * ENGINE_TICK_NS (CLOCK_MONOTONIC;
 * the client's "start", a loopback message and up to a poll's millisecond
 * late). Before mark 0: the cross-CPU probe's rounds go midway between
 * them, one in every tick. Unsaid, they keep a beat from the mark, which
 * after a warm-up of whole ticks lies within a millisecond or two of a
 * tick, and which side of the tick a round fell on was a toss: 1-3 of a
 * 1 s window's 9 ticks had no round and as many had two.
 */
void engine_meter_ticks_from(struct engine_meter *m, int64_t t_go_ns);
/* Pause (true) or resume the in-window collectors, perf counters, the
 * speed probe and the profiler, between the marks (--overhead); the rest
 * reads /proc at the marks only. A collector that fails to switch is
 * dropped with a note. */
void engine_meter_pause(struct engine_meter *m, bool paused);
/* The speed probe's work and time so far in the window (collect_speed_totals;
 * zero before mark 0); false when no probe runs. */
bool engine_meter_speed_totals(const struct engine_meter *m, double *steps,
			       double *time_ns);
/* The cross-CPU probe's rounds and the sum of their figures (ns) so far in
 * the window (collect_xcpu_totals; zero before mark 0); false when no probe
 * runs. */
bool engine_meter_xcpu_totals(const struct engine_meter *m, double *rounds,
			      double *sum_ns);
/* Fill r from the marks and the joined engine; r owns its flows after. */
int engine_meter_report(const struct engine_meter *m, const struct engine *e,
			bool drain_timeout, struct proto_end_report *r,
			struct base_err *err);
/* This host's environment as a JSON object (new reference, NULL on error),
 * with this process's pid and PID namespace ("pid:[4026531836]"). */
json_t *engine_env_json(void);
/* Whether two ends' environments (engine_env_json) are one machine in one
 * boot: they share its CPUs and /proc/stat, whatever their network
 * namespaces. */
bool engine_env_same_boot(const json_t *a, const json_t *b);
/* The peer's processes as this end's /proc shows them (its own pid and
 * its listening server's, at most 2, into pids): when both ends are one
 * machine in one boot and one PID namespace. Returns how many; 0 when the
 * peer is not in view. */
size_t engine_env_peer_pids(const json_t *local, const json_t *peer, pid_t *pids);
/* The full environment snapshot (kernel, cmdline, CPU, NUMA, every net
 * sysctl, the interface holding `local`): {"fingerprint": "hex16",
 * "entries": {key: value}}. A new reference; on failure an object with an
 * "error" string instead. Slow (milliseconds): outside the window only. */
json_t *engine_sysenv_json(const struct engine_addr *local);
/* Check a peer's snapshot of that shape. */
int engine_sysenv_check(const json_t *j, struct base_err *err);

#endif
