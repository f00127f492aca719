// SPDX-License-Identifier: GPL-2.0-only
/* The measured window of one end, outside the hot path. */
#include "engine/meter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/time.h"
#include "collect/env.h"

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
	if (!m->stat[0] || !m->stat[1] ||
	    (m->col.counters && (!m->ctr[0] || !m->ctr[1]))) {
		engine_meter_release(m);
		return base_err_set(err, -ENOMEM, "out of memory");
	}
	for (int i = 0; i < cpus->n; i++) {
		if (cpus->cpu[i] < COLLECT_CPU_MAX) {
			m->sel[cpus->cpu[i]] = true;
			m->have_sel = true;
		}
	}
	return 0;
}

void engine_meter_release(struct engine_meter *m)
{
	collect_cpustat_free(m->stat[0]);
	collect_cpustat_free(m->stat[1]);
	collect_counters_free(m->ctr[0]);
	collect_counters_free(m->ctr[1]);
	m->stat[0] = m->stat[1] = NULL;
	m->ctr[0] = m->ctr[1] = NULL;
}

void engine_meter_mark(struct engine_meter *m, struct engine *e, int which)
{
	/* the closing mark reads the engine first, the opening one last, so
	 * that the slower /proc reads stay outside the window */
	if (which == 1)
		m->t_ns[1] = engine_mark(e, 1);
	m->marked[which] = !collect_cpustat_read(m->stat[which], NULL);
	if (m->ctr[which])
		m->ctr_ok[which] = !collect_counters_read(m->ctr[which], &m->ctr_err);
	collect_rusage_read(&m->ru[which]);
	if (which == 0)
		m->t_ns[0] = engine_mark(e, 0);
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
	if (d.resets) {
		snprintf(note, sizeof(note), "%u counters went backwards and were left out",
			 d.resets);
		json_object_set_new(r->notes, "counters.reset", json_string(note));
	}
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
	r->metrics = json_object();
	r->notes = json_object();
	if (!r->metrics || !r->notes)
		return base_err_set(err, -ENOMEM, "out of memory");
	report_counters(m, r);
	return 0;
}

json_t *engine_env_json(void)
{
	struct collect_env env;

	if (collect_env_read(&env, NULL))
		return json_object();
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:s, s:s}",
			 "kernel", env.kernel, "kernel_version", env.kernel_version,
			 "machine", env.machine, "hostname", env.hostname,
			 "cpu_model", env.cpu_model, "online_cpus", env.online_cpus,
			 "mem_total_kb", (json_int_t)env.mem_total_kb,
			 "cpu_governor", env.cpu_governor,
			 "clocksource", env.clocksource);
}
