// SPDX-License-Identifier: GPL-2.0-only
/* Other tasks' exact CPU over a window, from every thread's schedstat; see others.h. */
#include "collect/others.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
	uint64_t hz;         /* ticks a second */
	uint64_t real_s;     /* CLOCK_REALTIME then, whole seconds */
	double boot_real_s;  /* CLOCK_REALTIME less CLOCK_BOOTTIME then */
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
	struct timespec ts, rt;
	struct dirent *de;
	pid_t tgid;
	long hz = sysconf(_SC_CLK_TCK);
	bool kthread = false;
	int dirfd, listfd, ret = 0;
	DIR *d;

	o->n = 0;
	if (hz <= 0)
		hz = 100;
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	o->hz = (uint64_t)hz;
	o->boot_ticks = ((uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec) /
			(NS_PER_S / o->hz);
	o->real_s = (uint64_t)rt.tv_sec;
	o->boot_real_s = (double)(rt.tv_sec - ts.tv_sec) + (double)(rt.tv_nsec - ts.tv_nsec) / NS_PER_S;
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

/* Keep the process among the busiest COLLECT_OTHERS_TOP; ended: the
 * processes that ended in the window it stands for (0 or 1: pid is one;
 * more: pid 0, as many of that name). */
static void rank(struct collect_others_sum *out, pid_t pid, const char *comm,
		 uint64_t ns, uint32_t ended)
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
	out->top[i].pid = ended > 1 ? 0 : pid;
	out->top[i].run_ns = ns;
	out->top[i].ended = ended;
	snprintf(out->top[i].comm, sizeof(out->top[i].comm), "%s", comm);
}

/* Whether snapshot o's thread t and exit record e are one task: the
 * record's start is whole seconds of the epoch, t's boot-time ticks. */
static bool same_task(const struct collect_others *o, const struct task_rec *t,
		      const struct collect_exit *e)
{
	double start_s = o->boot_real_s + (double)t->start_ticks / (double)o->hz;

	return fabs(start_s - (double)e->start_s) < 2.0;
}

/*
 * Whether an ended thread ended in the window, and its run time in it
 * (*ns, 0 for many a short life: see collect_exit.run_ns): since a when
 * a held it; all of it when it started after a (by the second: the
 * record's start is whole seconds). Not when b still holds it (it ended
 * after b: b's delta counts it) or it started before a and a missed it
 * (it ended before a read it).
 */
static bool exit_ran(const struct collect_others *a, const struct collect_others *b,
		     const struct collect_exit *e, uint64_t *ns)
{
	struct task_rec key = { .tgid = e->tgid, .tid = e->tid };
	const struct task_rec *t = bsearch(&key, b->t, b->n, sizeof(*b->t), by_ids);

	*ns = 0;
	if (t && same_task(b, t, e))
		return false;
	t = bsearch(&key, a->t, a->n, sizeof(*a->t), by_ids);
	if (t && same_task(a, t, e)) {
		*ns = e->run_ns > t->run_ns ? e->run_ns - t->run_ns : 0;
		return true;
	}
	if (e->start_s < a->real_s)
		return false;
	*ns = e->run_ns;
	return true;
}

/* The processes that ended in the window, by name. */
struct ended_name {
	char comm[16];
	pid_t pid;
	uint64_t ns;
	uint32_t n;
};

#define ENDED_NAMES 64

/* Fold one ended process into names[] by its name; a name past the
 * table's end is ranked alone. */
static void add_ended(struct ended_name *names, size_t *nnames, pid_t tgid,
		      const char *comm, uint64_t ns, struct collect_others_sum *out)
{
	size_t k;

	for (k = 0; k < *nnames && strcmp(names[k].comm, comm); k++)
		;
	if (k == ENDED_NAMES) {
		rank(out, tgid, comm, ns, 1);
		return;
	}
	if (k == *nnames) {
		snprintf(names[k].comm, sizeof(names[k].comm), "%s", comm);
		names[k].pid = tgid;
		names[k].ns = 0;
		names[k].n = 0;
		(*nnames)++;
	}
	names[k].ns += ns;
	names[k].n++;
}

void collect_others_delta(const struct collect_others *a, const struct collect_others *b,
			  const struct collect_exit *ex, size_t nex, const pid_t *exclude,
			  size_t n, struct collect_others_sum *out)
{
	struct ended_name names[ENDED_NAMES];
	size_t nnames = 0, i = 0, j = 0;

	memset(out, 0, sizeof(*out));
	/* b's processes and the ended threads' groups, by thread group id */
	while (i < b->n || j < nex) {
		bool lives = i < b->n && (j == nex || b->t[i].tgid <= ex[j].tgid);
		pid_t tgid = lives ? b->t[i].tgid : ex[j].tgid;
		const char *comm = lives ? b->t[i].comm : ex[j].comm;
		bool skip = excluded(tgid, exclude, n);
		uint64_t sum = 0, ended = 0;
		uint32_t nended = 0;

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
		for (; j < nex && ex[j].tgid == tgid; j++) {
			const struct collect_exit *e = &ex[j];
			uint64_t ns;

			if (!exit_ran(a, b, e, &ns))
				continue;
			if (!lives && e->tid == tgid)
				comm = e->comm;
			if (e->kthread) {
				out->kthreads_ns += ns;
			} else if (!skip) {
				ended += ns;
				nended++;
			}
		}
		out->exited_ns += ended;
		out->nexited += nended;
		sum += ended;
		/* a process that ended in the window ran, if too briefly for
		 * its figure */
		if (!sum && (lives || !nended))
			continue;
		out->others_ns += sum;
		out->nprocs++;
		if (lives)
			rank(out, tgid, comm, sum, 0);
		else
			add_ended(names, &nnames, tgid, comm, sum, out);
	}
	for (size_t k = 0; k < nnames; k++)
		rank(out, names[k].pid, names[k].comm, names[k].ns, names[k].n);
}
