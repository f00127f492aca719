/* SPDX-License-Identifier: GPL-2.0-only */
/* The tasks that end during a window, from the kernel's taskstats exit records. */
#ifndef NR_COLLECT_EXITS_H
#define NR_COLLECT_EXITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/*
 * A task that starts and ends between two /proc snapshots is in neither,
 * and one that ends after the first takes its last run time with it: a
 * shell loop or a build's compilers load the machine in tasks that live a
 * millisecond. The kernel sends each listener registered on a CPU a
 * record of every task that exits there (taskstats, genetlink, root
 * only): its thread and group ids, its start time and its run time.
 */

/* A scheduler tick at the slowest HZ (100): the most sum_exec_runtime
 * can lag. */
#define COLLECT_EXITS_TICK_NS 10000000ULL
/* Records one listener keeps at most; past them collect_exits_lost says so. */
#define COLLECT_EXITS_MAX 262144
/* The listener's socket buffer: a record is a datagram of a few hundred
 * bytes (struct taskstats in its netlink headers, its size the kernel's),
 * and the kernel charges a datagram more than its bytes; some thousands
 * of exits between two drains. */
#define COLLECT_EXITS_RCVBUF (16 << 20)

/* One thread that ended. */
struct collect_exit {
	pid_t tgid, tid;
	bool kthread;      /* a child of kthreadd: the kernel's own */
	uint64_t start_s;  /* when it started, seconds since the epoch */
	/*
	 * Its run time. The record's sum_exec_runtime (schedstat's figure)
	 * has not yet taken in the slice running then: at most a scheduler
	 * tick, but most or all of a short life. The ticks' user and system
	 * time charge a whole tick to whoever runs on it: unbiased over
	 * many short lives, but far off for one. So the ticks' figure, held
	 * within a tick (COLLECT_EXITS_TICK_NS) above sum_exec_runtime: 0
	 * for many a short life. Neither has the exit's last steps (the
	 * address space torn down). docs/methodology.md ("Interference")
	 * gives both errors as measured.
	 */
	uint64_t run_ns;
	char comm[16];
};

/* A listener and the records it has read: opaque. */
struct collect_exits;

/* An empty set of records with no listener (records come from
 * collect_exits_parse only until collect_exits_listen). NULL without
 * memory. */
struct collect_exits *collect_exits_new(void);
/* Deregister the listener (if any) and free everything. NULL is fine. */
void collect_exits_free(struct collect_exits *x);

/*
 * Register for the exits on every possible CPU, and check that a child
 * of this process that ends at once is seen (it forks one: call it
 * outside the window). Returns 0, or a negative errno with err: -EPERM
 * without CAP_NET_ADMIN, -ENOENT when the kernel has no taskstats,
 * -EXDEV in a network or PID namespace other than the first (the kernel
 * sends no record there, or ids that are not this process's).
 */
int collect_exits_listen(struct collect_exits *x, struct base_err *err);

/* collect_exits_new() and collect_exits_listen() in one: *out listening,
 * or NULL with err saying why (-ENOMEM, or listen's error). Returns 0 or
 * that negative errno. Outside the window (it forks). */
int collect_exits_open(struct collect_exits **out, struct base_err *err);

/*
 * Read every record waiting on the listener, without blocking, and keep
 * them after those held. Returns 0 or a negative errno with err; records
 * the kernel dropped for a full buffer, or beyond COLLECT_EXITS_MAX, set
 * collect_exits_lost. Slow with many exits: outside the window.
 */
int collect_exits_drain(struct collect_exits *x, struct base_err *err);

/* Sort the records held by thread group id, then thread id. */
void collect_exits_sort(struct collect_exits *x);

/* Forget the records held and that some were lost (the listener stays). */
void collect_exits_clear(struct collect_exits *x);

/*
 * Keep the records in one netlink datagram of len bytes (what the
 * listener receives): a TASKSTATS_TYPE_AGGR_PID per thread; the group
 * totals and anything malformed are skipped. Returns the records kept.
 */
size_t collect_exits_parse(struct collect_exits *x, const void *buf, size_t len);

/* The records held (sorted by neither), and how many; valid until the
 * next drain, clear or parse. */
const struct collect_exit *collect_exits_records(const struct collect_exits *x, size_t *n);
/* Whether records were lost since the last clear: dropped by the kernel
 * for a full buffer (it says only that some were), or over
 * COLLECT_EXITS_MAX. */
bool collect_exits_lost(const struct collect_exits *x);

#endif
