/* SPDX-License-Identifier: GPL-2.0-only */
/* The CPUs this process may run on. */
#ifndef NR_BASE_CPUS_H
#define NR_BASE_CPUS_H

#include "base/parse.h"

/*
 * Fill *out with the CPUs the calling thread may run on (its affinity mask,
 * which cgroup cpusets and taskset narrow), ascending. Falls back to
 * 0..online-1 when the mask cannot be read. Returns 0, or -errno when not
 * even the online count is known (out->n is 0 then).
 */
int base_cpus_allowed(struct base_cpulist *out);

/* {0, 1, ..., n-1} (n capped at BASE_CPU_MAX): for tests and fallbacks. */
void base_cpus_first(struct base_cpulist *out, unsigned n);

#endif
