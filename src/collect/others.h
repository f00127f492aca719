/* SPDX-License-Identifier: GPL-2.0-only */
/* Other tasks' exact CPU over a window: every thread of the machine at two marks. */
#ifndef NR_COLLECT_OTHERS_H
#define NR_COLLECT_OTHERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "collect/exits.h"
#include "collect/task.h"

/* Threads one snapshot holds at most; a machine with more is an error. */
#define COLLECT_OTHERS_MAX 65536
/* The processes a window's sum names, the busiest first. */
#define COLLECT_OTHERS_TOP 3

/* One snapshot of every thread: opaque. */
struct collect_others;

struct collect_others *collect_others_new(void);
void collect_others_free(struct collect_others *o);

/*
 * Read every thread under proc_root ("/proc"; a tree of the same shape in
 * tests): <tgid>/task/<tid>/stat and schedstat, and the CLOCK_BOOTTIME
 * time it started at. Threads that end while it reads are skipped. The
 * snapshot is usable only when it saw a kernel thread: with /proc mounted
 * hidepid or in a PID namespace other processes are hidden, and a sum of
 * nothing would read as a quiet machine (-ENOENT). Returns 0, -ENOENT,
 * -E2BIG (more than COLLECT_OTHERS_MAX threads), -ENOMEM or another
 * negative errno from opening proc_root, with err. Slow (two files per
 * thread of the machine): at the window's marks, never in a measured loop.
 */
int collect_others_snap(struct collect_others *o, const char *proc_root,
			struct base_err *err);

/* The machine's other work between two snapshots. */
struct collect_others_sum {
	uint64_t others_ns;    /* user threads of processes not excluded */
	uint64_t kthreads_ns;  /* kernel threads (the kernel's own work) */
	uint64_t ksoftirqd_ns; /* of those, ksoftirqd/N: softirqs deferred */
	uint64_t exited_ns;    /* of others_ns, the threads that ended */
	uint32_t nexited;      /* those threads */
	uint32_t nprocs;       /* processes counted in others_ns that ran */
	struct {
		pid_t pid;       /* 0 for several ended processes of one name */
		char comm[16];
		uint64_t run_ns;
		uint32_t ended;  /* processes that ended in the window it holds */
	} top[COLLECT_OTHERS_TOP]; /* the busiest of them (the ended by name) */
	size_t ntop;
};

/*
 * Each thread's run time from a to b. A thread b holds that a did not (or
 * holds with another start time: its id was reused) started in between
 * when its start time is not before a's, and all its run time counts;
 * otherwise it is left out. A thread that ended in between counts through
 * its exit record in ex (nex of them, sorted by collect_exits_sort: read
 * after b, those before a forgotten): its run time since a, or all of it
 * when it started after a. Without records (ex NULL) such a thread is
 * lost. The ended processes are ranked by name. Threads of the processes
 * in exclude (thread group ids, n of them: the test's own) count nowhere.
 * Pure.
 */
void collect_others_delta(const struct collect_others *a, const struct collect_others *b,
			  const struct collect_exit *ex, size_t nex, const pid_t *exclude,
			  size_t n, struct collect_others_sum *out);

#endif
