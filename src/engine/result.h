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
/* ... or when the host's steal on the CPUs the test's workers ran on,
 * the client's and the server's added, each less a tick, is over this
 * share of the window (window.stolen). Steal marks a contended host
 * beyond the time it takes: of 40 tcp_rr and 40 tcp_stream runs of 3 s
 * on a 2-vCPU guest, those over 2% (7 and 3) read 20% and 25% under
 * those with none, those with 0.5-2% 12-27% under; 55 of the 80 had
 * under 0.5%. The flag takes the large part; a smaller steal is still
 * said with the sample. */
#define ENGINE_STOLEN_PCT 2.0

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
