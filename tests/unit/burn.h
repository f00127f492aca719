/* SPDX-License-Identifier: GPL-2.0-only */
/* Burning a known amount of CPU, for the unit tests that account for it. */
#ifndef NR_TESTS_BURN_H
#define NR_TESTS_BURN_H

#include <stdint.h>
#include <time.h>

/* Burn ms of the calling thread's CPU time, however long that takes on a
 * busy machine (a wall-clock loop would burn less when the host or
 * another task takes the CPU). */
static inline void test_burn_cpu_ms(int ms)
{
	struct timespec t;
	int64_t end;
	volatile uint64_t x = 1; /* kept: the loop is not optimized away */

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	end = (int64_t)t.tv_sec * 1000000000 + t.tv_nsec + (int64_t)ms * 1000000;
	do {
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((int64_t)t.tv_sec * 1000000000 + t.tv_nsec < end);
}

#endif
