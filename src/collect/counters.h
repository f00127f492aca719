/* SPDX-License-Identifier: GPL-2.0-only */
/* Snapshots of the kernel's network counters, and deltas between two. */
#ifndef NR_COLLECT_COUNTERS_H
#define NR_COLLECT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * A snapshot is a flat list of named 64-bit values, in the order the files
 * print them. Names are dotted and direction neutral:
 *
 *   snmp.<Section>.<Field>     /proc/net/snmp     snmp.Udp.RcvbufErrors
 *   netstat.<Section>.<Field>  /proc/net/netstat  netstat.IpExt.InOctets
 *   snmp6.<Field>              /proc/net/snmp6    snmp6.Udp6InDatagrams
 *   softirq.<ROW>              /proc/softirqs     softirq.NET_RX (all CPUs)
 *   softirq.<ROW>.cpu<N>       /proc/softirqs     softirq.NET_RX.cpu3
 *   stat.ctxt, stat.intr       /proc/stat         switches, interrupts
 *   irq.<ROW>                  /proc/interrupts   irq.CAL (all CPUs): the
 *   irq.<ROW>.cpu<N>           named rows, IPIs   irq.RES.cpu1
 *   cpuidle.<state>.usage      /sys/devices/system/cpu/cpu<N>/cpuidle:
 *   cpuidle.<state>.time_us    entries into and time in an idle state
 *   cpuidle.cpus               over some CPUs; the CPUs (a gauge)
 *
 * Every /proc/softirqs row gets a total; only NET_RX and NET_TX also get one
 * entry per CPU. Of /proc/interrupts, the named rows (not the devices'
 * numbered lines: stat.intr sums those) get a total; only the IPIs that
 * wake or call another CPU, x86's RES and CAL and arm64's IPI0 and IPI1,
 * also get one entry per CPU (so that 1024 CPUs still fit the cap below).
 */

/* At most this many counters in a snapshot; more is an error (-ENOSPC). */
#define COLLECT_COUNTERS_MAX 8192
/* Longest name plus its NUL; a longer name is an error (-ENAMETOOLONG). */
#define COLLECT_COUNTER_NAME_MAX 64
/* Longest line the parsers accept, without its '\n' (-E2BIG beyond). */
#define COLLECT_COUNTERS_LINE_MAX (64 * 1024)
/* Largest file collect_counters_read() accepts (-EFBIG beyond). */
#define COLLECT_COUNTERS_FILE_MAX (256 * 1024)

/* Flags of one counter. */
enum {
	/*
	 * A level, not a count: Ip.Forwarding, Ip.DefaultTTL,
	 * Tcp.RtoAlgorithm, Tcp.RtoMin, Tcp.RtoMax, Tcp.MaxConn and
	 * Tcp.CurrEstab of /proc/net/snmp (see collect_counter_is_gauge()).
	 */
	COLLECT_COUNTER_GAUGE = 1 << 0,
	/*
	 * The file printed a negative number ("-1" for Tcp.MaxConn: no
	 * limit); value holds its magnitude. Only the header/value pair
	 * format accepts a sign (/proc/net/snmp prints Tcp.MaxConn with %ld).
	 */
	COLLECT_COUNTER_NEGATIVE = 1 << 1,
	/* A per-CPU /proc/softirqs value: the kernel keeps it in 32 bits. */
	COLLECT_COUNTER_WRAP32 = 1 << 2,
	/* A /proc/softirqs total followed by its nparts per-CPU entries. */
	COLLECT_COUNTER_SUM = 1 << 3,
};

/* One counter of a snapshot; read-only for users of this header. */
struct collect_counter {
	char name[COLLECT_COUNTER_NAME_MAX];
	uint64_t value; /* as printed; the magnitude if NEGATIVE */
	unsigned int flags; /* COLLECT_COUNTER_* */
	unsigned int nparts; /* SUM: how many per-CPU entries follow it */
};

/* A snapshot; opaque. About 700 KiB: allocate one per use, reuse it. */
struct collect_counters;

/* Allocate an empty snapshot, or NULL when out of memory. The caller owns
 * it and releases it with collect_counters_free(). Any thread. */
struct collect_counters *collect_counters_new(void);

/* Release a snapshot; NULL is a no-op. */
void collect_counters_free(struct collect_counters *c);

/* Empty the snapshot (keeps its memory for the next read). */
void collect_counters_clear(struct collect_counters *c);

/* How many counters the snapshot holds. */
size_t collect_counters_count(const struct collect_counters *c);

/* Counter i (0 .. count - 1) in file order, or NULL when out of range.
 * Valid until the snapshot is cleared, refilled or freed. */
const struct collect_counter *
collect_counters_at(const struct collect_counters *c, size_t i);

/* The counter with this exact name, or NULL. O(1). */
const struct collect_counter *
collect_counters_find(const struct collect_counters *c, const char *name);

/* The counter's value with its sign, as a double (exact below 2^53). */
double collect_counter_value(const struct collect_counter *e);

/* Whether the fully qualified name is one of the known gauges listed at
 * COLLECT_COUNTER_GAUGE. Pure function. */
bool collect_counter_is_gauge(const char *name);

/* CLOCK_MONOTONIC ns in the middle of the last collect_counters_read(), 0
 * for a snapshot filled by the parsers only. */
int64_t collect_counters_time_ns(const struct collect_counters *c);

/*
 * Pure parsers of a file's text (len bytes, need not be NUL-terminated).
 * Each appends its counters to *out, so several files build one snapshot;
 * a name already in *out is an error (-EEXIST). Lines may end in blanks
 * and the last '\n' may be missing; any other deviation is an error and
 * err names the line as "line N '<text>': <what>". Error codes: -EINVAL
 * malformed, -ERANGE a number over 64 bits, -E2BIG a line over
 * COLLECT_COUNTERS_LINE_MAX, -ENAMETOOLONG, -ENOSPC, -EEXIST as above.
 * On error *out holds the counters added before the bad line; clear it.
 * Any thread.
 */

/*
 * /proc/net/snmp and /proc/net/netstat: pairs of a header line
 * "Sect: Name1 Name2 ..." and a value line "Sect: v1 v2 ..." with the same
 * section and as many columns. Counters are named "<prefix>.<Sect>.<Name>".
 * Sections and their columns vary across kernel versions; nothing is
 * required to be present. prefix is "snmp" or "netstat" (any name works).
 * Values are unsigned decimal, or a '-' and digits (COLLECT_COUNTER_NEGATIVE).
 */
int collect_parse_snmp(const char *text, size_t len, const char *prefix,
		       struct collect_counters *out, struct base_err *err);

/* /proc/net/snmp6: "Name value" lines, named "snmp6.<Name>". */
int collect_parse_snmp6(const char *text, size_t len,
			struct collect_counters *out, struct base_err *err);

/*
 * /proc/softirqs: a header "CPU0 CPU1 ..." (ascending CPU numbers; gaps are
 * allowed, e.g. "CPU0 CPU2" when CPU1 is not possible) and rows
 * "NAME: n n ..." with exactly one value per header CPU. Adds
 * softirq.<NAME> for every row and softirq.<NAME>.cpu<N> for NET_RX and
 * NET_TX.
 */
int collect_parse_softirqs(const char *text, size_t len,
			   struct collect_counters *out, struct base_err *err);

/*
 * /proc/interrupts: the CPU header as in /proc/softirqs, then a line per
 * interrupt, "LABEL: n n ... description". Lines labelled with a number
 * (devices) are skipped. A named line has one value per CPU (irq.<LABEL>,
 * their sum; those described "Rescheduling interrupts" or "Function call
 * interrupts" also irq.<LABEL>.cpu<N>) or a single machine-wide count
 * (ERR, MIS: irq.<LABEL>). Values are the kernel's 32-bit counts.
 */
int collect_parse_interrupts(const char *text, size_t len,
			     struct collect_counters *out, struct base_err *err);

/* /proc/stat: the first number of the "ctxt" and "intr" lines as stat.ctxt
 * and stat.intr; other lines are ignored, a missing one is not an error. */
int collect_parse_stat(const char *text, size_t len,
		       struct collect_counters *out, struct base_err *err);

struct base_cpulist;
/*
 * Add the cpuidle states of the CPUs in cpus (NULL or none: every CPU)
 * under <sys>/devices/system/cpu ("/sys"; tests pass a copy), summed per
 * state index over the CPUs:
 * cpuidle.<name>.usage (entries) and cpuidle.<name>.time_us, the state
 * named after the first CPU's name for it (characters other than letters,
 * digits and '_' made '_'; "state<i>" when empty or taken), and
 * cpuidle.cpus, the CPUs that have states. A machine without cpuidle adds
 * nothing. Returns 0, -EINVAL for a usage or time file that is not a
 * number (err names it; nothing added), -ENOMEM, or add's errors
 * (-ENOSPC...). Two
 * small reads per state and CPU: not for the measured loop.
 */
int collect_counters_add_cpuidle(struct collect_counters *out, const char *sys,
				 const struct base_cpulist *cpus, struct base_err *err);

/*
 * Clear *out and read /proc/net/snmp, /proc/net/netstat, /proc/net/snmp6,
 * /proc/softirqs and /proc/stat into it, each with one read into the
 * snapshot's own COLLECT_COUNTERS_FILE_MAX buffer (allocated on the first
 * read, then reused). A file that does not exist (no IPv6: no snmp6) is
 * skipped. Records the time (collect_counters_time_ns()).
 *
 * Returns 0; a negative errno from open/read/malloc; -EFBIG for a file over
 * the cap; or a parser's error (*out is then partly filled). err starts
 * with the file's path. Reads five files: not for the measured loop. Any
 * thread, one thread per snapshot at a time.
 */
int collect_counters_read(struct collect_counters *out, struct base_err *err);

/*
 * Add the named rows of the interrupts file at path (/proc/interrupts;
 * tests pass a copy) with collect_parse_interrupts(). The file is read a
 * line at a time and the devices' lines dropped before parsing: on a
 * large machine they run to megabytes. A missing file adds nothing. On
 * any error nothing is added. Returns 0, -EINVAL (a malformed line, err
 * names the file and the line), -ENOMEM, -EIO, or the open's errno. Reads
 * a file: not for the measured loop.
 */
int collect_counters_add_interrupts(struct collect_counters *out, const char *path,
				    struct base_err *err);

/*
 * A sample's snapshot: collect_counters_read(), then
 * collect_counters_add_cpuidle() of cpus under sys and
 * collect_counters_add_interrupts() of /proc/interrupts. The idle states
 * and the interrupts are extras: when they cannot be read (a file that is
 * not a number, a line of an unknown shape), the snapshot keeps the
 * counters without them and idle_err or irq_err says why. Returns 0, or
 * collect_counters_read()'s error (in err).
 */
int collect_counters_snapshot(struct collect_counters *out, const char *sys,
			      const struct base_cpulist *cpus, struct base_err *err,
			      struct base_err *idle_err, struct base_err *irq_err);

/* What a delta callback receives. */
enum collect_delta_kind {
	/* A counter: value = b - a, >= 0. */
	COLLECT_DELTA_INCREASE,
	/* A gauge, or a counter negative in a or b: value = its value in b
	 * with its sign (a difference of levels means nothing). */
	COLLECT_DELTA_GAUGE,
	/* A counter that went backwards (reset by a module reload, or a
	 * softirq total whose 32-bit per-CPU parts wrapped): value = b - a,
	 * < 0. Not an increase: callers normally skip it and may warn. */
	COLLECT_DELTA_RESET,
};

/*
 * Call fn(ctx, name, kind, value) for every counter of b that a also has,
 * in b's order. Counters in only one of the two (a section that appeared or
 * disappeared) are skipped silently.
 *
 * Per-CPU softirq values wrap at 2^32: a decrease between two values that
 * both fit 32 bits is taken as one wrap (intervals are far shorter than the
 * hours a wrap takes). A NET_RX/NET_TX total is the sum of its per-CPU
 * increases over the CPUs present in both (so wraps are handled); other
 * softirq totals that decrease are reported as RESET.
 *
 * Returns 0, or -EINVAL if a, b or fn is NULL. Pure function; any thread.
 */
int collect_counters_delta(const struct collect_counters *a,
			   const struct collect_counters *b,
			   void (*fn)(void *ctx, const char *name,
				      enum collect_delta_kind kind,
				      double value),
			   void *ctx);

#endif
