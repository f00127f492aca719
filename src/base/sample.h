/* SPDX-License-Identifier: GPL-2.0-only */
/* A sample: one repetition of one configuration, as a flat map of metrics. */
#ifndef NR_BASE_SAMPLE_H
#define NR_BASE_SAMPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/err.h"
#include "base/hist.h"

#define SAMPLE_SCHEMA_VERSION 1
#define BASE_TOOL "netregress 0.1.0"
#define SAMPLE_ID_LEN 32 /* hex digits of a random 128-bit id */

enum metric_dir {
	METRIC_NEUTRAL = 0,
	METRIC_HIGHER, /* higher is better */
	METRIC_LOWER,  /* lower is better */
};

/* The direction of a metric, from the one table keyed by name or prefix
 * (sample.c). Unknown names are neutral. Thread-safe. */
enum metric_dir base_metric_dir(const char *name);
/* "higher", "lower" or "neutral". */
const char *base_metric_dir_name(enum metric_dir d);

struct sample_metric {
	char name[112];
	char unit[16];
	double value;
};

struct sample_kv {
	char key[64];
	char val[256];
};

/* One flow of a run; the receiver's count is the throughput. */
struct sample_flow {
	uint32_t id;
	char dir[8];                 /* "send" (client -> server) or "recv" */
	uint64_t rx_win_bytes, rx_win_msgs;   /* receiver, measured window */
	uint64_t tx_win_bytes, tx_win_msgs;   /* sender, measured window */
	uint64_t rx_total_bytes, tx_total_bytes; /* whole run, after drain */
	double rx_gbps, tx_gbps;
	uint64_t udp_lost, udp_reordered, udp_dup;
	/* request/response: the client's transactions/s; crr failed connects */
	double tps;
	uint64_t fails;
	/* socket buffers the kernel granted, each end, at start and at stop */
	uint64_t client_sndbuf, client_rcvbuf, server_sndbuf, server_rcvbuf;
	uint64_t client_sndbuf_end, client_rcvbuf_end, server_sndbuf_end,
		server_rcvbuf_end;
	/* TCP_INFO of the sender at the end (has_tcp_info) */
	bool has_tcp_info;
	uint32_t tcpi_retrans, tcpi_rtt_us, tcpi_rttvar_us, tcpi_snd_cwnd,
		tcpi_snd_mss;
	uint64_t tcpi_delivery_rate_bps;
};

/* The probes whose figure in each interval a sample can keep beside its
 * rates (series_probe[]); in the result document, window_series' members
 * named by base_tick_probe_key[] (docs/results.md). */
enum base_tick_probe {
	BASE_TICK_XCPU,  /* "xcpu_ns": the cross-CPU round trip, ns */
	BASE_TICK_SPEED, /* "host_speed": the speed probe, op/us */
	BASE_TICK_PROBES
};
extern const char *const base_tick_probe_key[BASE_TICK_PROBES];

struct base_sample {
	char id[SAMPLE_ID_LEN + 1]; /* unique: imports of a sample are idempotent */
	char label[128];
	char config_key[1024];
	int64_t wall_start_ns; /* CLOCK_REALTIME at the start barrier */
	int64_t duration_ns, warmup_ns; /* run control, not in the key */
	char server[80];                /* the server's control address */
	struct sample_kv *params; /* the configuration, in key order */
	size_t nparams;
	struct sample_kv *env; /* "client.kernel", "server.hostname", ... */
	size_t nenv;
	struct sample_metric *metrics;
	size_t nmetrics;
	struct sample_flow *flows;
	size_t nflows;
	struct base_hist *latency; /* request/response latency (ns), or NULL */
	/* the headline's rate over each interval of the window, in time
	 * order, series_step_s apart (the server's 100 ms ticks), in
	 * series_unit; NULL when the sample kept none */
	double *series;
	size_t nseries;
	double series_step_s;
	char series_unit[16];
	/* what the probes saw in the same intervals (enum base_tick_probe):
	 * NULL, or nseries values with NaN where the probe had no figure */
	double *series_probe[BASE_TICK_PROBES];
	/* full environment snapshots: {"client": {"fingerprint", "entries"},
	 * "server": {...}}; owned reference, or NULL */
	json_t *sysenv;
	size_t cap_params, cap_env, cap_metrics;
};

/* The longest label a sample holds. */
#define SAMPLE_LABEL_MAX (sizeof(((struct base_sample *)0)->label) - 1)
/* Whether s is a label a sample may carry: 1 to SAMPLE_LABEL_MAX bytes, no
 * control character (base_has_control). */
bool base_label_ok(const char *s);

/* Lifetime: base_sample_init() on an embedded struct, base_sample_release()
 * frees what it owns. Not for concurrent use. */
void base_sample_init(struct base_sample *s);
void base_sample_release(struct base_sample *s);

/* Add or replace a metric; unit is a short string ("Gbps", "%", "s").
 * Returns 0 or -ENOMEM, -EINVAL for a name that does not fit. */
int base_sample_set(struct base_sample *s, const char *name, const char *unit,
		    double value);
/* Find a metric by name; NULL when absent. */
const struct sample_metric *base_sample_get(const struct base_sample *s,
					    const char *name);
/* A metric's value by name; NaN when absent. */
double base_sample_value(const struct base_sample *s, const char *name);
/* Whether name is a profile share ([server.]profile.self.<sym> or
 * [server.]profile.children.<sym>) that s lacks although that end was
 * profiled (it holds [server.]profile.samples): the profiler keeps only
 * the symbols at or over its threshold, so the share there reads 0. */
bool base_sample_share_below(const struct base_sample *s, const char *name);
/* The same, looking at index hint first: samples made by one build list
 * their metrics in one order, so a reader going through another sample's
 * metrics in order finds each at its own index. */
const struct sample_metric *base_sample_get_near(const struct base_sample *s,
						 const char *name, size_t hint);
/* Append a metric that s does not have yet (the caller knows: a JSON
 * object's names are unique), without looking for it. Returns 0, -EINVAL
 * (a name or unit too long) or -ENOMEM. */
int base_sample_append(struct base_sample *s, const char *name, const char *unit,
		       double value);
/* The value of a parameter ("test") or an environment entry
 * ("client.kernel"); absent when the sample has none by that key. */
const char *base_sample_param_get(const struct base_sample *s, const char *key,
				  const char *absent);
const char *base_sample_env_get(const struct base_sample *s, const char *key,
				const char *absent);
/* Append a parameter or an environment entry (value printf-style). */
int base_sample_param(struct base_sample *s, const char *key, const char *fmt,
		      ...) __attribute__((format(printf, 3, 4)));
int base_sample_env(struct base_sample *s, const char *key, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
/* Allocate n zeroed flow rows (replacing any). Returns 0 or -ENOMEM. */
int base_sample_alloc_flows(struct base_sample *s, size_t n);

/* At most this many interval rates in a sample (a day of 100 ms ticks). */
#define SAMPLE_SERIES_MAX 864000
/*
 * Keep v[0..n) times scale as the window's interval rates, step_s seconds
 * apart, in unit (replacing any, and dropping the probes' series; n == 0
 * keeps none). Returns 0, -EINVAL (n over SAMPLE_SERIES_MAX, a non-finite
 * value or step, a step <= 0, a unit that does not fit) or -ENOMEM.
 */
int base_sample_set_series(struct base_sample *s, const char *unit, double step_s,
			   const double *v, size_t n, double scale);

/*
 * Keep v[0..n) as probe p's figure in each interval of the rates (NaN:
 * none in that interval), replacing any; n == 0 keeps none. Returns 0,
 * -EINVAL (n other than the rates' count, a value neither NaN nor finite
 * and > 0, p out of range) or -ENOMEM.
 */
int base_sample_set_series_probe(struct base_sample *s, enum base_tick_probe p,
				 const double *v, size_t n);

/* Deep copy of src into dst (initialized, empty). Returns 0 or -ENOMEM. */
int base_sample_copy(struct base_sample *dst, const struct base_sample *src);
/*
 * The foreign CPU of the end that had more of it (% of its machine: the
 * larger of cpu.foreign_busy_pct and cpu.foreign_tasks_pct, or of the
 * server's two when that is larger) in *share, the host's steal part of it in *steal (0 when not
 * recorded); returns whether it was the server's end. *share is NaN when
 * neither end recorded it.
 */
bool base_sample_foreign(const struct base_sample *s, double *share, double *steal);

/* A fresh random id in s->id (getrandom; a clock-based fallback). */
void base_sample_new_id(struct base_sample *s);

/* The result document of docs/results.md (new reference; NULL on ENOMEM). */
json_t *base_sample_to_json(const struct base_sample *s);
/* Fill s (initialized, empty) from a result document, checking every field
 * it reads: a wrong type, a missing field or a newer schema_version is an
 * error naming the field. Returns 0, -EINVAL or -ENOMEM. */
int base_sample_from_json(const json_t *doc, struct base_sample *s,
			  struct base_err *err);

/* Jain's fairness index of n values: (sum x)^2 / (n * sum x^2), in (0, 1];
 * 1 when all are equal. Returns 0 for n == 0 or all-zero input. */
double base_jain_index(const double *x, size_t n);

#endif
