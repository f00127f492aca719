// SPDX-License-Identifier: GPL-2.0-only
/* The CPUs this process may run on; see cpus.h. */
#include "base/cpus.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

void base_cpus_first(struct base_cpulist *out, unsigned n)
{
	if (n > BASE_CPU_MAX)
		n = BASE_CPU_MAX;
	out->n = (uint16_t)n;
	for (unsigned i = 0; i < n; i++)
		out->cpu[i] = (uint16_t)i;
}

int base_cpus_allowed(struct base_cpulist *out)
{
	cpu_set_t *set = CPU_ALLOC(BASE_CPU_MAX);
	size_t size = CPU_ALLOC_SIZE(BASE_CPU_MAX);
	long online;

	out->n = 0;
	if (set && !sched_getaffinity(0, size, set)) {
		for (int c = 0; c < BASE_CPU_MAX; c++)
			if (CPU_ISSET_S(c, size, set))
				out->cpu[out->n++] = (uint16_t)c;
	}
	CPU_FREE(set);
	if (out->n)
		return 0;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	if (online <= 0)
		return -(errno ? errno : EINVAL);
	base_cpus_first(out, (unsigned)online);
	return 0;
}
