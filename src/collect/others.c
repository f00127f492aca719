// SPDX-License-Identifier: GPL-2.0-only
/* Other tasks' exact CPU over a window, from every thread's schedstat; see others.h. */
#include "collect/others.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/time.h"
#include "collect/task.h"
#include "collect/text.h"

#define PF_KTHREAD_FLAG 0x00200000u /* include/linux/sched.h */

struct task_rec {
	pid_t tgid, tid;
	uint64_t start_ticks, run_ns;
	bool kthread;
	char comm[16];
};

struct collect_others {
	struct task_rec *t;
	size_t n, cap;
	uint64_t boot_ticks; /* CLOCK_BOOTTIME at the start of the scan, in ticks */
};

struct collect_others *collect_others_new(void)
{
	return calloc(1, sizeof(struct collect_others));
}

void collect_others_free(struct collect_others *o)
{
	if (!o)
		return;
	free(o->t);
	free(o);
}

/* Read a small file under dirfd into buf, NUL-terminated; a negative
 * errno when it cannot be opened or read (a thread that just ended). */
static int read_at(int dirfd, const char *path, char *buf, size_t cap)
{
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC), ret = 0;
	ssize_t got;

	if (fd < 0)
		return -errno;
	got = read(fd, buf, cap - 1);
	if (got < 0)
		ret = -errno;
	else
		buf[got] = '\0';
	close(fd);
	return ret;
}

/* A /proc entry named by a process or thread id; false for the rest. */
static bool id_of(const char *name, pid_t *id)
{
	uint64_t v;

	if (collect_parse_u64(name, strlen(name), &v) || !v || v > INT32_MAX)
		return false;
	*id = (pid_t)v;
	return true;
}

/* One thread into o; 0 when read or gone (skipped), else a negative errno. */
static int add_thread(struct collect_others *o, int dirfd, pid_t tgid, pid_t tid,
		      struct base_err *err)
{
	char path[96], buf[1024];
	struct collect_stat st = { .cpu = -1 };
	struct collect_task sched;
	struct task_rec *r;

	snprintf(path, sizeof(path), "%d/task/%d/stat", (int)tgid, (int)tid);
	if (read_at(dirfd, path, buf, sizeof(buf)) || collect_stat_parse(buf, &st, NULL))
		return 0;
	snprintf(path, sizeof(path), "%d/task/%d/schedstat", (int)tgid, (int)tid);
	if (read_at(dirfd, path, buf, sizeof(buf)) || collect_schedstat_parse(buf, &sched, NULL))
		return 0;
	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 256;
		struct task_rec *t;

		if (o->n >= COLLECT_OTHERS_MAX)
			return base_err_set(err, -E2BIG, "more than %d threads on this machine",
					    COLLECT_OTHERS_MAX);
		t = realloc(o->t, cap * sizeof(*t));
		if (!t)
			return base_err_set(err, -ENOMEM, "out of memory");
		o->t = t;
		o->cap = cap;
	}
	r = &o->t[o->n++];
	r->tgid = tgid;
	r->tid = tid;
	r->start_ticks = st.start_ticks;
	r->run_ns = sched.run_ns;
	r->kthread = st.flags & PF_KTHREAD_FLAG;
	memcpy(r->comm, st.comm, sizeof(r->comm));
	return 0;
}

/* The threads of one process; 0 when the process is gone. */
static int add_process(struct collect_others *o, int dirfd, pid_t tgid,
		       struct base_err *err)
{
	char path[48];
	struct dirent *de;
	pid_t tid;
	DIR *d;
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%d/task", (int)tgid);
	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return 0;
	}
	while (!ret && (de = readdir(d)))
		if (id_of(de->d_name, &tid))
			ret = add_thread(o, dirfd, tgid, tid, err);
	closedir(d);
	return ret;
}

static int by_ids(const void *x, const void *y)
{
	const struct task_rec *a = x, *b = y;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

int collect_others_snap(struct collect_others *o, const char *proc_root,
			struct base_err *err)
{
	struct timespec ts;
	struct dirent *de;
	pid_t tgid;
	long hz = sysconf(_SC_CLK_TCK);
	bool kthread = false;
	int dirfd, listfd, ret = 0;
	DIR *d;

	o->n = 0;
	if (hz <= 0)
		hz = 100;
	clock_gettime(CLOCK_BOOTTIME, &ts);
	o->boot_ticks = ((uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec) /
			(NS_PER_S / (uint64_t)hz);
	dirfd = open(proc_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return base_err_set(err, -errno, "%s: %s", proc_root, strerror(errno));
	listfd = dup(dirfd);
	d = listfd >= 0 ? fdopendir(listfd) : NULL;
	if (!d) {
		ret = base_err_set(err, -errno, "%s: %s", proc_root, strerror(errno));
		if (listfd >= 0)
			close(listfd);
		goto out;
	}
	while (!ret && (de = readdir(d)))
		if (id_of(de->d_name, &tgid))
			ret = add_process(o, dirfd, tgid, err);
	closedir(d);
	if (ret)
		goto out;
	qsort(o->t, o->n, sizeof(*o->t), by_ids);
	for (size_t i = 0; i < o->n && !kthread; i++)
		kthread = o->t[i].kthread;
	if (!kthread)
		ret = base_err_set(err, -ENOENT,
				   "%s shows no kernel thread: other processes are hidden (hidepid or a PID namespace)",
				   proc_root);
out:
	close(dirfd);
	return ret;
}

static bool excluded(pid_t tgid, const pid_t *exclude, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (exclude[i] == tgid)
			return true;
	return false;
}

/* Thread b's run time since a (all of it when it started after a). */
static uint64_t ran(const struct collect_others *a, const struct task_rec *b)
{
	const struct task_rec *t = bsearch(b, a->t, a->n, sizeof(*a->t), by_ids);

	if (t && t->start_ticks == b->start_ticks)
		return b->run_ns > t->run_ns ? b->run_ns - t->run_ns : 0;
	return b->start_ticks >= a->boot_ticks ? b->run_ns : 0;
}

/* Keep the process among the busiest COLLECT_OTHERS_TOP. */
static void rank(struct collect_others_sum *out, pid_t pid, const char *comm,
		 uint64_t ns)
{
	size_t i = out->ntop;

	if (i == COLLECT_OTHERS_TOP) {
		if (out->top[i - 1].run_ns >= ns)
			return;
		i--;
	} else {
		out->ntop++;
	}
	for (; i > 0 && out->top[i - 1].run_ns < ns; i--)
		out->top[i] = out->top[i - 1];
	out->top[i].pid = pid;
	out->top[i].run_ns = ns;
	snprintf(out->top[i].comm, sizeof(out->top[i].comm), "%s", comm);
}

void collect_others_delta(const struct collect_others *a,
			  const struct collect_others *b, const pid_t *exclude,
			  size_t n, struct collect_others_sum *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < b->n;) {
		const struct task_rec *lead = &b->t[i];
		const char *comm = lead->comm;
		pid_t tgid = lead->tgid;
		bool skip = excluded(tgid, exclude, n);
		uint64_t sum = 0;

		for (; i < b->n && b->t[i].tgid == tgid; i++) {
			const struct task_rec *t = &b->t[i];
			uint64_t ns = ran(a, t);

			if (t->tid == tgid)
				comm = t->comm;
			if (t->kthread) {
				out->kthreads_ns += ns;
				if (!strncmp(t->comm, "ksoftirqd/", 10))
					out->ksoftirqd_ns += ns;
			} else if (!skip) {
				sum += ns;
			}
		}
		if (!sum)
			continue;
		out->others_ns += sum;
		out->nprocs++;
		rank(out, tgid, comm, sum);
	}
}
