// SPDX-License-Identifier: GPL-2.0-only
/* getrusage() snapshots and their differences; see usage.h. */
#include "collect/usage.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "base/time.h"

static int64_t tv_ns(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * NS_PER_S +
	       (int64_t)tv->tv_usec * NS_PER_US;
}

int collect_rusage_read(struct collect_rusage *out)
{
	struct rusage ru;

	if (!out)
		return -EINVAL;
	if (getrusage(RUSAGE_SELF, &ru) < 0)
		return -errno;
	out->t_ns = base_now_ns();
	out->user_ns = tv_ns(&ru.ru_utime);
	out->sys_ns = tv_ns(&ru.ru_stime);
	out->nvcsw = ru.ru_nvcsw;
	out->nivcsw = ru.ru_nivcsw;
	out->minflt = ru.ru_minflt;
	out->majflt = ru.ru_majflt;
	return 0;
}

void collect_rusage_delta(const struct collect_rusage *a,
			  const struct collect_rusage *b,
			  struct collect_rusage *out)
{
	struct collect_rusage d;

	d.t_ns = b->t_ns - a->t_ns;
	d.user_ns = b->user_ns - a->user_ns;
	d.sys_ns = b->sys_ns - a->sys_ns;
	d.nvcsw = b->nvcsw - a->nvcsw;
	d.nivcsw = b->nivcsw - a->nivcsw;
	d.minflt = b->minflt - a->minflt;
	d.majflt = b->majflt - a->majflt;
	*out = d;
}
