/* SPDX-License-Identifier: GPL-2.0-only */
/* One end's window: CPU and process usage at the two marks, and its report. */
#ifndef NR_ENGINE_METER_H
#define NR_ENGINE_METER_H

#include <jansson.h>

#include "base/parse.h"
#include "collect/cpu.h"
#include "collect/usage.h"
#include "engine/engine.h"
#include "proto/msg.h"

/* Control-thread only; never touched by workers. */
struct engine_meter {
	struct collect_cpustat *stat[2];
	struct collect_rusage ru[2];
	int64_t t_ns[2];
	bool marked[2];
	bool sel[COLLECT_CPU_MAX]; /* the CPUs the workers are pinned to */
	bool have_sel;
};

int engine_meter_init(struct engine_meter *m, const struct base_cpulist *cpus,
		      struct base_err *err);
void engine_meter_release(struct engine_meter *m);
/* Open (0) or close (1) the window: engine counters, /proc/stat, rusage. */
void engine_meter_mark(struct engine_meter *m, struct engine *e, int which);
/* Fill r from the marks and the joined engine; r owns its flows after. */
int engine_meter_report(const struct engine_meter *m, const struct engine *e,
			bool drain_timeout, struct proto_end_report *r,
			struct base_err *err);
/* This host's environment as a JSON object (new reference, NULL on error). */
json_t *engine_env_json(void);

#endif
