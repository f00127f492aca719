/* SPDX-License-Identifier: GPL-2.0-only */
/* Monotonic and wall-clock time as int64_t nanoseconds. Thread-safe. */
#ifndef NR_BASE_TIME_H
#define NR_BASE_TIME_H

#include <stdint.h>
#include <time.h>

#define NS_PER_US 1000LL
#define NS_PER_MS 1000000LL
#define NS_PER_S 1000000000LL

/* CLOCK_MONOTONIC in ns; vDSO, safe in the hot path. */
static inline int64_t base_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* CLOCK_REALTIME in ns, for timestamps that leave the process. */
static inline int64_t base_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

#endif
