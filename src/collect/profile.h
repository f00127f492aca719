/* SPDX-License-Identifier: GPL-2.0-only */
/* Sampling profiler: kernel IPs and call chains on a set of CPUs, self and
 * inclusive (children) share per symbol. */
#ifndef NR_COLLECT_PROFILE_H
#define NR_COLLECT_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/parse.h"
#include "collect/ksyms.h"
#include "collect/perf.h"

#define COLLECT_PROFILE_FREQ_HZ 999      /* default samples/s per CPU */
#define COLLECT_PROFILE_RING_PAGES 128   /* default data pages per CPU */
#define COLLECT_PROFILE_DRAIN_MS 50      /* default drain period */
#define COLLECT_PROFILE_MAX_IPS 32768    /* default distinct kernel IPs */
/* Kernel frames sampled per call chain (sample_max_stack): deep enough for
 * a loopback send through the receiver's softirq to its wake-up. */
#define COLLECT_PROFILE_CHAIN_FRAMES 64
/* The default threshold of collect_profile_result(): a symbol is kept when
 * its share of the samples is at least this many percent. */
#define COLLECT_PROFILE_MIN_PCT 0.1
/* Rows of each kind (self, children) a result keeps at most, highest
 * share first, whatever the threshold: a sample's size stays bounded. */
#define COLLECT_PROFILE_ROWS_MAX 2000

/* Buffer length, NUL included, of a metric name; equal to the sample's. */
#define COLLECT_PROFILE_METRIC_LEN 112
#define COLLECT_PROFILE_METRIC_PREFIX "profile.self."
#define COLLECT_PROFILE_CHILDREN_PREFIX "profile.children."

/* Rows that are not one kernel symbol. */
#define COLLECT_PROFILE_USER "[user]"       /* any user-space IP */
#define COLLECT_PROFILE_KERNEL "[kernel]"   /* kernel IP, no symbol table */
#define COLLECT_PROFILE_OTHER "[other]"     /* kernel IP past max_ips */
/* and COLLECT_KSYMS_UNKNOWN "[unknown]": a kernel IP no symbol covers, or
 * a sample from a guest or hypervisor context */

enum collect_profile_event {
	COLLECT_PROFILE_AUTO,      /* cycles if the machine has it, else cpu-clock */
	COLLECT_PROFILE_CYCLES,    /* PERF_COUNT_HW_CPU_CYCLES or fail */
	COLLECT_PROFILE_CPU_CLOCK, /* PERF_COUNT_SW_CPU_CLOCK */
};

struct collect_profile_opts {
	/* The CPUs to sample (at least one): one event per CPU, every task
	 * on it (pid -1). Borrowed during collect_profile_open() only. */
	const struct base_cpulist *cpus;
	enum collect_profile_event event;
	/* Samples per second per CPU; 0 means COLLECT_PROFILE_FREQ_HZ.
	 * The kernel caps it at kernel.perf_event_max_sample_rate. */
	unsigned int freq_hz;
	/* Data pages of each CPU's ring, a power of 2 up to 1024; 0 means
	 * COLLECT_PROFILE_RING_PAGES (512 KiB with 4 KiB pages, which with
	 * the header page is the kernel's default perf_event_mlock_kb: with
	 * call chains of the usual 15-30 kernel frames two seconds or more
	 * of samples at 999 Hz, so that nothing is lost between drains
	 * even when a loaded machine keeps the collector from running for a
	 * second). */
	unsigned int ring_pages;
	/* How often the collector thread drains the rings, 1..1000 ms; 0
	 * means COLLECT_PROFILE_DRAIN_MS. */
	unsigned int drain_ms;
	/* Distinct kernel IPs counted; samples at further IPs count as
	 * COLLECT_PROFILE_OTHER. 0 means COLLECT_PROFILE_MAX_IPS; at most
	 * 1 << 24. The table takes 32 bytes per IP, allocated at open. */
	size_t max_ips;
	/* NULL: collect_perf_sys_ops. Borrowed until collect_profile_free().
	 * The fake needs open, ioctl, mmap, munmap and close. */
	const struct collect_perf_ops *ops;
	/*
	 * The kernel's symbols, borrowed until collect_profile_free(), or
	 * NULL. Given ks, every event samples its kernel call chain
	 * (PERF_SAMPLE_CALLCHAIN, user frames excluded, at most
	 * COLLECT_PROFILE_CHAIN_FRAMES), and the collector thread resolves
	 * each frame to its symbol as it drains (through a cache of recent
	 * addresses; no allocation) to count the children shares. A kernel
	 * that refuses chains (before 4.8, or perf_event_max_stack lower)
	 * gets the events without them: children then count the sampled
	 * symbol alone. Open resolves every symbol's metric name once (a
	 * few ms for a whole kernel) and allocates 12 bytes per symbol.
	 *
	 * With cpu-clock (a timer interrupt, not an NMI), a sample that fell
	 * due while interrupts were off is taken where they come back on: in
	 * pvm_irq_enable, _raw_spin_unlock_irqrestore and the like, which
	 * then hold the samples of every interrupts-off stretch that ends in
	 * them (on a guest, a large share of a loopback stream's samples:
	 * docs/measures.md). With a
	 * chain, such a sample's self is counted at the first caller outside
	 * those helpers: the function whose interrupts-off stretch it was
	 * (sock_def_readable, do_syscall_64). Cycles are NMIs where the
	 * machine has them and are counted where they land.
	 */
	const struct collect_ksyms *ks;
};

/* One row of the result: a kernel symbol or one of the bracketed rows. */
struct collect_profile_row {
	/* "udp_sendmsg", or a bracketed row name. Points into the ksyms
	 * passed to collect_profile_result() or to static storage: valid
	 * while that table lives. */
	const char *name;
	/* Module of the symbol ("nf_conntrack"), NULL for the kernel image
	 * and the bracketed rows. Same lifetime as name. */
	const char *module;
	/* "profile.self.<name>" or "profile.children.<name>" made safe
	 * (collect_profile_metric_name) */
	char metric[COLLECT_PROFILE_METRIC_LEN];
	/* self: samples taken in the symbol (or charged to it); children:
	 * samples whose kernel call chain holds it anywhere, the sampled
	 * address or a caller, once per sample however often it recurs */
	uint64_t samples;
	double pct; /* 100 x samples / result samples */
};

struct collect_profile_result {
	/* "cycles" or "cpu-clock": the event that was sampled. */
	const char *event;
	/* Why COLLECT_PROFILE_AUTO did not get cycles ("not supported by
	 * this machine"); "" when it did or was not asked to. */
	char fallback_reason[128];
	int64_t window_ns;  /* CLOCK_MONOTONIC from enable to disable */
	int64_t active_ns;  /* of it, not paused (collect_profile_pause) */
	uint64_t samples;   /* every sample drained, all rows */
	uint64_t lost;      /* samples the kernel dropped (PERF_RECORD_LOST) */
	uint64_t bad;       /* rings abandoned over a malformed record */
	/* samples in user and in kernel mode; the others (guest,
	 * hypervisor) are in the [unknown] row */
	uint64_t user, kernel;
	/* the events sampled callchains to charge (opts.ks with cpu-clock,
	 * and a kernel that took them); of the kernel samples, those taken
	 * where interrupts came back on and counted at the caller */
	bool charging;
	uint64_t charged;
	uint64_t drains;    /* collector passes over the rings */
	/* CPU time of the collector thread, ns: the profiler's own cost. */
	int64_t collector_cpu_ns;
	/* false when no symbol table was given: kernel IPs are one
	 * COLLECT_PROFILE_KERNEL row. */
	bool kernel_resolved;
	/* the event's records carried call chains (opts.ks given and taken) */
	bool chains;
	double min_pct; /* the threshold the rows were cut at */
	/* Self rows by samples, highest first (ties by metric name): every
	 * row whose pct is at least min_pct, at most COLLECT_PROFILE_ROWS_MAX.
	 * Rows whose metric names are equal (a static function in two files
	 * or modules) are summed into one. */
	struct collect_profile_row *rows;
	size_t nrows;
	size_t nrows_total; /* distinct rows before the threshold */
	size_t nrows_over;  /* of them at or over min_pct, before the cap */
	/* Children rows, the same way: kernel symbols only (none without
	 * opts.ks), named with opts.ks; symbols of one metric name are one
	 * symbol, counted once per sample. A symbol's children share is at
	 * least its self share. */
	struct collect_profile_row *children;
	size_t nchildren;
	size_t nchildren_total;
	size_t nchildren_over;
};

struct collect_profile;

/*
 * Open one sampling event per CPU (PERF_SAMPLE_IP | PERF_SAMPLE_TID, and
 * PERF_SAMPLE_CALLCHAIN with opts.ks; at freq_hz, disabled) and map its ring of 1 + ring_pages pages. With
 * COLLECT_PROFILE_AUTO, cycles is tried first and, if any CPU refuses it,
 * cpu-clock is used on all of them and the reason is kept. cpu-clock
 * excludes the idle task, as cycles does by not counting while halted, so
 * the shares are shares of busy time. Allocates the IP table, and with
 * opts.ks the per-symbol counts and the address cache. Nothing
 * runs and nothing is sampled until collect_profile_start().
 *
 * Returns 0 and the profiler in *out (free with collect_profile_free),
 * -EINVAL for bad opts, -ENODEV for a CPU that is offline or absent,
 * -EACCES/-EPERM when perf_event_paranoid forbids sampling all tasks on
 * a CPU (root or CAP_PERFMON is needed when it is above 0), -ENOENT or
 * -EOPNOTSUPP when COLLECT_PROFILE_CYCLES is not supported, -ENOMEM, or
 * another negative errno of perf_event_open or mmap; err says which CPU
 * and event failed and why. Call from the control thread.
 */
int collect_profile_open(struct collect_profile **out,
			 const struct collect_profile_opts *opts,
			 struct base_err *err);

/*
 * At the window's start mark: clear the counts of any earlier window,
 * start the collector thread, then enable the events (one ioctl per CPU,
 * last, so that the thread's start-up is outside the window). The thread
 * drains the rings every drain_ms and never touches the caller's threads.
 * Returns 0, -EINVAL when already started, or a negative errno from
 * pthread_create or the ioctl (events are then disabled and the thread
 * stopped); err says which.
 */
int collect_profile_start(struct collect_profile *p, struct base_err *err);

/*
 * At the window's end mark: disable the events first (one ioctl per CPU),
 * then stop and join the collector thread and drain the rings a last time
 * in the calling thread. Returns 0, -EINVAL when not started, or the
 * first negative errno of an ioctl (the thread is stopped anyway).
 */
int collect_profile_stop(struct collect_profile *p, struct base_err *err);

/*
 * Pause (paused true) or resume sampling inside the window, one
 * PERF_EVENT_IOC_DISABLE or _ENABLE per CPU; the collector thread stays.
 * A paused CPU takes no sample interrupts, so the shares come from the
 * unpaused part of the window. Used by --overhead to measure what
 * profiling costs. Returns 0 (also when already in that state), -EINVAL
 * when not started, or the first negative errno of an ioctl; err says
 * which CPU.
 */
int collect_profile_pause(struct collect_profile *p, bool paused,
			  struct base_err *err);

/*
 * The last window, ranked. Self rows: kernel IPs are resolved with ks;
 * when ks is NULL (for instance because collect_ksyms_load() found the
 * addresses hidden) they are one COLLECT_PROFILE_KERNEL row. User-space
 * IPs are not resolved: every one counts as COLLECT_PROFILE_USER, which
 * is the share of CPU time the sampled CPUs spent in user space (this
 * tool's threads and any other process alike). Children rows come from
 * the chains counted with opts.ks. Each kind keeps the rows whose share
 * is at least min_pct percent (0 to 100; COLLECT_PROFILE_MIN_PCT is the
 * usual; 0 keeps every row seen), at most COLLECT_PROFILE_ROWS_MAX.
 *
 * Returns 0 and fills *out (release with collect_profile_result_release),
 * -EINVAL if the window is not closed or min_pct is not within 0..100,
 * or -ENOMEM. Any thread, once stop has returned; p is not modified.
 */
int collect_profile_result(const struct collect_profile *p,
			   const struct collect_ksyms *ks, double min_pct,
			   struct collect_profile_result *out,
			   struct base_err *err);

/* Free what a result owns and zero it; NULL is a no-op. */
void collect_profile_result_release(struct collect_profile_result *r);

/* Stop the thread if running, disable, unmap and close everything, free
 * p; NULL is a no-op. */
void collect_profile_free(struct collect_profile *p);

/*
 * Write "profile.self.<sym>" into buf (len bytes, NUL included), sym made
 * safe for a metric name: the characters [A-Za-z0-9_.] are kept, any other
 * becomes '_' ("[user]" gives "profile.self._user_"). A module is not part
 * of the name: a function has one name whether it is built in or a module
 * on the kernels being compared. A name longer than fits is cut and ends
 * in '_' and 8 hex digits of a hash of the whole name, so that names stay
 * distinct. Returns 0, or -ENOSPC when len cannot hold the prefix and 10
 * characters (buf is then "" if len > 0). Thread-safe.
 */
int collect_profile_metric_name(const char *sym, char *buf, size_t len);

/* The same with the prefix "profile.children." ("[user]" would give
 * "profile.children._user_"); a name is cut where its own prefix leaves
 * no room. */
int collect_profile_children_metric_name(const char *sym, char *buf,
					 size_t len);

#endif
