/* SPDX-License-Identifier: GPL-2.0-only */
/* The two ends of a test: the client that drives it and the server that answers. */
#ifndef NR_ENGINE_SESSION_H
#define NR_ENGINE_SESSION_H

#include <jansson.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "base/hist.h"
#include "job/config.h"
#include "engine/sock.h"
#include "proto/msg.h"

struct collect_exits;

/* The server reports its counters this often during a test. */
#define ENGINE_TICK_NS (100 * 1000 * 1000LL)
/* --overhead: ticks per phase of the collectors on or off (200 ms). */
#define ENGINE_OVERHEAD_TICKS 2

/* Every data connection opens with this header, client to server. */
#define ENGINE_DATA_MAGIC "NRD1"
#define ENGINE_DATA_HDR_BYTES 16

/* One interval line: receiver-side rates in each direction. */
struct engine_interval {
	double t0_s, t1_s;      /* since the start barrier */
	double c2s_gbps, s2c_gbps;
	double tps; /* request/response: transactions/s of the client */
	bool rr;
	bool warmup;
	/* what the probes saw over the interval, NaN when they did not run
	 * or ended no round in it: the cross-CPU probe's mean round trip
	 * (ns) and the speed probe's steps per microsecond */
	double xcpu_ns, speed;
};

struct engine_client_opts {
	const char *host;
	uint16_t port;
	struct job_config cfg;          /* finalized */
	int64_t connect_timeout_ns;     /* control and data connects */
	int64_t control_timeout_ns;     /* silence tolerated from the server */
	void (*on_interval)(void *ctx, const struct engine_interval *iv);
	void *ctx;
	volatile sig_atomic_t *interrupted; /* set by the command's handler */
	/* collectors, on both ends; with same_host the client's cover the
	 * whole machine (both ends' CPUs) and the server collects nothing;
	 * the profiler runs when cfg.profile */
	bool counters, perf, speed;
	/* the profile's rows, both ends: symbols at or over this share of the
	 * samples, 0..100; a collection option, not part of the configuration
	 * (callers set it, usually to COLLECT_PROFILE_MIN_PCT) */
	double profile_min_pct;
	bool same_host;
	/* the cross-CPU probe (collect/xcpu.h) between this end's workers'
	 * CPUs and the server's: only when the server shares this machine
	 * (loopback, a namespace of it) */
	bool xcpu;
	/* --overhead: both ends switch their perf counters and profiler on
	 * and off in 200 ms phases through the window, on the server's ticks,
	 * and the run reports each phase's rate */
	bool overhead;
	/* --warmup auto: whether n successive 100 ms rates no longer trend
	 * (the caller's statistics; required when cfg.warmup_auto) */
	bool (*steady)(const double *rates, size_t n);
	/* an exit listener (collect/exits.h) the caller opened where the
	 * kernel sends the records, the first network namespace, before
	 * entering the test's: lent for the run, not freed. NULL: the meter
	 * opens its own, which in another namespace gets none */
	struct collect_exits *exits;
};

/* Everything one run measured, both ends. */
struct engine_run {
	struct proto_end_report local, remote;
	json_t *env_local, *env_remote; /* owned */
	struct base_hist *latency; /* request/response, ns; owned, or NULL */
	json_t *sysenv_local, *sysenv_remote; /* engine_sysenv_json(); owned */
	/* receiver-side rate (bytes/s of both directions, or transactions/s)
	 * of each 100 ms tick inside the window, in order; owned */
	double *rates;
	size_t nrates;
	/* the speed probe's rate (collect/speed.h, steps per microsecond over
	 * this host's probed CPUs) in each of those ticks, NaN where no burst
	 * ended within it; NULL when no probe ran here; owned */
	double *speeds;
	/* the cross-CPU probe's mean round trip (ns) in each of those ticks,
	 * NaN where no round ended within it; NULL when no probe ran; owned */
	double *xcpus;
	/* --overhead: every collector phase that ended inside the window, in
	 * order; phase numbers 2i and 2i + 1 are a pair, one on and one off */
	struct engine_phase {
		int64_t phase;
		bool on;
		double rate; /* as rates[] */
	} *phases;
	size_t nphases;
	int64_t wall_start_ns;
	/* the warm-up that ran: fixed, or as long as --warmup auto took;
	 * capped when auto reached its bound still trending */
	int64_t warmup_ns;
	bool warmup_capped;
	char server[80]; /* address of the server's control port */
};

/* Run one test against a server. Returns 0, or -errno with err set: a host
 * that does not answer, a version mismatch, a refusal by the server's
 * limits, a data failure, a silent server, an interruption (-EINTR). */
int engine_client_run(const struct engine_client_opts *o,
		      struct engine_run *out, struct base_err *err);
void engine_run_release(struct engine_run *r);

struct engine_server_opts {
	const char *bind;  /* address to listen on ("::" = every address) */
	uint16_t port;     /* 0 = ephemeral */
	uint32_t max_streams;   /* flows per client */
	int64_t max_duration_ns; /* warm-up + duration per test */
	uint32_t max_clients;   /* concurrent sessions */
	/* refuse a configuration that holds the CPU latency request: it keeps
	 * every CPU of this machine out of its idle states while held */
	bool no_cpu_latency;
	int ready_fd;           /* >= 0: write "PORT\n" there once listening */
	void (*log)(void *ctx, const char *line);
	void *log_ctx;
	volatile sig_atomic_t *terminate; /* set by the command's handler */
};

/* Serve until *terminate is set. Each client session runs in a child
 * process, so nothing a client sends or does ends the server. Returns 0
 * after a clean shutdown or -errno (cannot listen) with err set. */
int engine_server_run(const struct engine_server_opts *o, struct base_err *err);

/* One client's session on its accepted control connection ctl (closed on
 * return), from hello to bye, in this process: engine_server_run runs it
 * in a child per client; the fuzz target calls it directly. Returns 0
 * when the session ended cleanly, 1 when it did not (logged). */
int engine_server_session(const struct engine_server_opts *o, int ctl,
			  const struct engine_addr *peer);

/* Start `exe serve` on loopback (ipv 4 or 6) with an ephemeral port; the
 * child dies with this process. Returns 0 with pid and port, or -errno. */
int engine_local_server_start(int ipv, pid_t *pid, uint16_t *port,
			      struct base_err *err);
/* The same, bound to `bind`, inside the network namespace at netns_path
 * (NULL: this one). */
int engine_server_spawn(const char *netns_path, const char *bind, pid_t *pid,
			uint16_t *port, struct base_err *err);
/* Stop the server started above (by its PID) and reap it. */
void engine_local_server_stop(pid_t pid);

#endif
