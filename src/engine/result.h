/* SPDX-License-Identifier: GPL-2.0-only */
/* Build a sample from the two reports of a run. */
#ifndef NR_ENGINE_RESULT_H
#define NR_ENGINE_RESULT_H

#include "base/sample.h"
#include "engine/session.h"
#include "job/config.h"

/* A sample is disturbed when foreign CPU (busy, not the test's) is over
 * this share of all CPUs of either machine during the window. */
#define ENGINE_DISTURBED_PCT 10.0
/* ... or when, every worker on a CPU of its own, a worker waited in the
 * run queue over this share of the window beyond what the test's and the
 * kernel's own threads explain (quiet runs here: 0-0.5%). */
#define ENGINE_STARVED_PCT 5.0

/*
 * Fill s (initialized, empty) with the configuration, the environment of
 * both ends, per-flow rows and every metric of the run. same_host: the
 * server shares this machine, so its CPU is not foreign load. Returns 0,
 * -EPROTO when the reports disagree on the flows, or -ENOMEM.
 */
int engine_run_sample(const struct job_config *c, const struct engine_run *r,
		      const char *label, bool same_host, struct base_sample *s,
		      struct base_err *err);

#endif
