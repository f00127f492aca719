// SPDX-License-Identifier: GPL-2.0-only
/* Per-thread exact CPU accounting from /proc; see task.h. */
#include "collect/task.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "base/time.h"
#include "collect/text.h"

#define STAT_FLAGS_FIELD 9 /* proc(5), 1-based */
#define STAT_STARTTIME_FIELD 22
#define STAT_PROCESSOR_FIELD 39

int collect_schedstat_parse(const char *text, struct collect_task *out,
			    struct base_err *err)
{
	const char *pos = text, *end = text + strlen(text), *f;
	uint64_t v[3];
	size_t n;
	char show[COLLECT_SHOW_MAX + 4];

	if (end > text && end[-1] == '\n')
		end--;
	for (int i = 0; i < 3; i++) {
		if (!collect_next_field(&pos, end, &f, &n) ||
		    collect_parse_u64(f, n, &v[i]))
			goto bad;
	}
	if (collect_next_field(&pos, end, &f, &n))
		goto bad;
	out->run_ns = v[0];
	out->wait_ns = v[1];
	out->slices = v[2];
	return 0;
bad:
	return base_err_set(err, -EINVAL,
			    "schedstat '%s': expected three numbers (run ns, wait ns, timeslices)",
			    collect_show(text, strlen(text), show));
}

int collect_stat_parse(const char *text, struct collect_stat *out,
		       struct base_err *err)
{
	const char *open = strchr(text, '('), *p = strrchr(text, ')');
	const char *end = text + strlen(text), *f = NULL;
	char show[COLLECT_SHOW_MAX + 4];
	uint64_t v;
	size_t n = 0, clen;
	int field = 2; /* the command name is field 2 */

	if (!open || !p || p < open)
		goto bad;
	clen = (size_t)(p - open - 1);
	if (clen >= sizeof(out->comm))
		clen = sizeof(out->comm) - 1;
	memcpy(out->comm, open + 1, clen);
	out->comm[clen] = '\0';
	p++;
	while (field < STAT_PROCESSOR_FIELD) {
		if (!collect_next_field(&p, end, &f, &n))
			goto bad;
		field++;
		if (field != STAT_FLAGS_FIELD && field != STAT_STARTTIME_FIELD &&
		    field != STAT_PROCESSOR_FIELD)
			continue;
		if (n && f[n - 1] == '\n')
			n--;
		if (collect_parse_u64(f, n, &v))
			goto bad;
		if (field == STAT_FLAGS_FIELD)
			out->flags = v;
		else if (field == STAT_STARTTIME_FIELD)
			out->start_ticks = v;
		else if (v > INT32_MAX)
			goto bad;
		else
			out->cpu = (int)v;
	}
	return 0;
bad:
	return base_err_set(err, -EINVAL,
			    "task stat '%s': expected a command name in parentheses and at least 39 fields, numbers at 9, 22 and 39",
			    collect_show(text, strlen(text), show));
}

/* Read a small /proc file into buf (NUL-terminated; cut at len - 1). */
static int slurp(const char *path, char *buf, size_t len, struct base_err *err)
{
	size_t n;
	bool more;
	int ret = base_read_path(path, buf, len - 1, &n, &more);

	buf[n] = '\0';
	return ret ? base_err_set(err, ret, "%s: %s", path, strerror(-ret)) : 0;
}

int collect_task_read(pid_t tid, struct collect_task *out, struct base_err *err)
{
	char path[64], buf[1024];
	struct collect_stat st;
	int ret;

	out->cpu = -1;
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	if ((ret = slurp(path, buf, sizeof(buf), err)) ||
	    (ret = collect_schedstat_parse(buf, out, err)))
		return ret;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	if ((ret = slurp(path, buf, sizeof(buf), err)) ||
	    (ret = collect_stat_parse(buf, &st, err)))
		return ret;
	out->cpu = st.cpu;
	return 0;
}

static uint64_t sub(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void collect_task_delta(const struct collect_task *a,
			const struct collect_task *b, struct collect_task *out)
{
	struct collect_task d = {
		.run_ns = sub(a->run_ns, b->run_ns),
		.wait_ns = sub(a->wait_ns, b->wait_ns),
		.slices = sub(a->slices, b->slices),
		.cpu = b->cpu,
	};

	*out = d;
}

int64_t collect_process_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return -1;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}
