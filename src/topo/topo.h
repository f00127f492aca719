/* SPDX-License-Identifier: GPL-2.0-only */
/* Test topologies: two network namespaces joined by a veth pair, with MTU, offloads, shaping and a server CPU quota. */
#ifndef NR_TOPO_TOPO_H
#define NR_TOPO_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"

/*
 * The "veth" topology (the "loopback" one needs nothing from here):
 *
 *   netns nr-<pid>-<n>-c                      netns nr-<pid>-<n>-s
 *   lo up                                     lo up
 *   nr-veth-c 198.18.0.1/24 2001:2::1/64 <--> nr-veth-s 198.18.0.2/24 2001:2::2/64
 *   [tbf root qdisc]                          [tbf root qdisc]
 *                                             [cgroup nr-<pid>-<n>-s with a cpu quota]
 *
 * Every name starts with TOPO_PREFIX and carries the pid of the process
 * that made it and a per-process sequence number, so that several
 * topologies coexist, `netregress topo down` can tell the ones of running
 * processes from those of crashed ones, and nothing else is ever touched.
 * The namespaces are named like `ip netns add` names them (a bind mount
 * under /run/netns), so `ip netns` shows them and `ip netns exec` enters
 * them. The veth ends are created directly inside their namespaces: the
 * root namespace never holds a link or qdisc of ours.
 *
 * Addresses are fixed (each topology has its own namespaces) and come from
 * the benchmarking ranges of RFC 2544 and RFC 5180 only. IPv6 addresses are
 * added with nodad (usable at once); where the kernel has no IPv6 they are
 * left out and topo_addr(..., 6) is NULL.
 *
 * Clean-up: topo_down() removes what topo_up() made, and topo_up() undoes
 * its own partial work when a step fails. Nothing here installs signal
 * handlers: on SIGINT the caller unwinds to topo_down(). The commands topo
 * runs (ip, tc) are put in their own process group, so a Ctrl-C at the
 * terminal does not cut a step in half; each is killed after
 * TOPO_CMD_TIMEOUT_S. A run killed with SIGKILL leaves its topology
 * behind: topo_down_all() (`netregress topo down`) removes it, because its
 * owner is gone. Before it makes anything, topo_up() writes an owner
 * record, /run/netregress/topo-<pid>-<n>, with the start of the process
 * (/proc/<pid>/stat's starttime); it goes with the last of the topology.
 * So a crashed owner whose pid went to an unrelated process is still seen
 * as gone: the process with the pid started at another time.
 *
 * Needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN) and iproute2 (`ip`, `tc`,
 * found on PATH or in /usr/sbin, /sbin, /usr/bin, /bin).
 *
 * Test hook: with NETREGRESS_TOPO_FAIL_AT=<step> in the environment,
 * topo_up() fails with -EIO at that step (after doing the ones before it),
 * so tests can check the unwinding of every step. Steps, in order:
 * owner, netns-client, netns-server, veth, lo, mtu, offloads, addr, up,
 * tbf, cgroup, quota.
 *
 * None of these functions may be called from a measured loop or a signal
 * handler. topo_enter()/topo_leave() act on the calling thread only; the
 * rest may be called from any thread, one call per topology at a time.
 * topo_up() waits for the commands it starts by pid: nothing else in the
 * process may reap children with waitpid(-1) meanwhile.
 *
 * docs/matrix.md gives the goodput measured through the shaping and the
 * CPU a quota left the server.
 */

#define TOPO_PREFIX "nr-"
/* Longest name of a namespace or cgroup of ours, NUL included. */
#define TOPO_NAME_MAX 48
#define TOPO_CMD_TIMEOUT_S 10
#define TOPO_MTU_MIN 1280 /* IPv6's minimum: both families run on the link */
#define TOPO_MTU_MAX 65535
#define TOPO_CPU_QUOTA_MAX_PCT 102400 /* 1024 CPUs */
/* TBF rates tc represents well with topo_tbf_params(): below 1 Mbit/s
 * the burst of large frames takes seconds, above 400 Gbit/s the queue
 * limit overflows tc's 32 bits. */
#define TOPO_TBF_MIN_BPS 1000000ULL
#define TOPO_TBF_MAX_BPS 400000000000ULL
/* cgroup CPU bandwidth period; the quota is pct% of it. 100 ms is the
 * kernel's default: short enough that a 1 s window holds ten periods. */
#define TOPO_CPU_PERIOD_US 100000

enum topo_side {
	TOPO_CLIENT = 0,
	TOPO_SERVER = 1,
};

/* What to build; topo_spec_init() gives the defaults. */
struct topo_spec {
	uint32_t mtu;           /* both veth ends; TOPO_MTU_MIN..TOPO_MTU_MAX,
				   0 = 1500 */
	int8_t gro, gso, tso;   /* both ends: -1 leave the default, 0 off, 1 on */
	uint64_t tbf_rate_bps;  /* token bucket on both egresses, bits/s,
				   TOPO_TBF_MIN_BPS..TOPO_TBF_MAX_BPS;
				   0 = none */
	uint32_t cpu_quota_pct; /* the server cgroup's quota, % of one CPU,
				   1..TOPO_CPU_QUOTA_MAX_PCT; 0 = no cgroup */
};

/* mtu 1500, offloads at their defaults, no shaping, no quota. */
void topo_spec_init(struct topo_spec *s);

/* A topology that is up; opaque. */
struct topo;

/*
 * Build the topology described by s (NULL: the defaults) and return its
 * handle in *out (the caller releases it with topo_free() or
 * topo_detach()). Steps: both namespaces, the veth pair (one end in each),
 * lo up in both, the MTU and offloads on both ends, addresses, links up, a
 * TBF root qdisc on both ends when s->tbf_rate_bps (see
 * topo_tbf_params()), and a cgroup for the server with the cpu quota when
 * s->cpu_quota_pct (cgroup v2 cpu.max, or v1 cpu.cfs_quota_us /
 * cfs_period_us, whichever this machine has; on v2 "+cpu" is written to
 * the parent's cgroup.subtree_control when missing and left there). An
 * offload setting is read back, and one the device did not take is an
 * error. Runs about 16 ip and tc commands, which take most of its time:
 * not for a measured window.
 *
 * Returns 0, -EINVAL for a bad spec, -EOPNOTSUPP when the machine lacks
 * the cgroup cpu controller (or its bandwidth control), or the error of
 * the failing step (a command that fails is -EIO with its argv and its
 * output in err). On failure nothing of this topology is left behind and
 * *out is NULL.
 */
int topo_up(const struct topo_spec *s, struct topo **out,
	    struct base_err *err);

/*
 * Remove everything topo_up() made: the cgroup (its processes, which the
 * caller should have stopped first, are moved to the parent cgroup after a
 * short grace for exiting ones), then both namespaces (removing a
 * namespace removes its veth end, hence the pair, and its qdiscs). A
 * namespace that some process still runs in lives on, unnamed, until that
 * process exits. Idempotent; t stays valid for the accessors; NULL is
 * fine. Failures are not reported: everything else is still attempted.
 */
void topo_down(struct topo *t);

/* topo_down(), then release the handle. NULL is fine. */
void topo_free(struct topo *t);

/* Release the handle and leave the topology up (`netregress topo up`);
 * topo_down_all() removes it later. NULL is fine. */
void topo_detach(struct topo *t);

/*
 * Move the calling thread into the namespace of one side. *saved_fd gets
 * a descriptor of the namespace it was in, for topo_leave(). Sockets the
 * thread opens from now on, and threads it creates, are in that
 * namespace; files and other threads are not affected (note that
 * /proc/self/net shows the main thread's namespace; /proc/thread-self/net
 * the caller's). Returns 0 or a negative errno (err filled); on failure
 * the thread has not moved and *saved_fd is -1.
 */
int topo_enter(const struct topo *t, enum topo_side side, int *saved_fd,
	       struct base_err *err);

/* Move the calling thread back to the namespace saved by topo_enter() and
 * close saved_fd. saved_fd < 0 does nothing. Returns 0 or -errno. */
int topo_leave(int saved_fd);

/*
 * Put process pid (0: the calling process, all its threads) into the
 * server's cgroup, so that the quota applies to it. The server must be a
 * process of its own (forked or spawned): the whole process moves. A
 * topology without a quota has no cgroup: then this does nothing and
 * returns 0. Returns 0 or a negative errno (err filled).
 */
int topo_server_prepare(const struct topo *t, pid_t pid,
			struct base_err *err);

/* Names and addresses; valid as long as the handle is. */
const char *topo_netns(const struct topo *t, enum topo_side side);
/* Absolute path of the namespace's file under /run/netns. */
const char *topo_netns_path(const struct topo *t, enum topo_side side);
const char *topo_ifname(const struct topo *t, enum topo_side side);
/* "198.18.0.1" and "2001:2::1" (client), "198.18.0.2" and "2001:2::2"
 * (server), without prefix length; ipv is 4 or 6. NULL for ipv 6 when the
 * kernel has no IPv6, or an ipv other than 4 or 6. */
const char *topo_addr(const struct topo *t, enum topo_side side, int ipv);
/* The server cgroup's directory, or NULL without a quota. */
const char *topo_cgroup(const struct topo *t);

/* One namespace, cgroup or set sysctl of ours found on the machine. */
struct topo_entry {
	const char *kind;    /* "netns", "cgroup" or "sysctl" */
	const char *name;    /* nr-<pid>-<n>-<c|s>, or the sysctl's dotted name */
	/* /run/netns/<name>, the cgroup directory, or the journal that
	 * records the sysctl's value before a job set it */
	const char *path;
	pid_t owner;         /* the pid in the name (the journal's) */
	/* a process with that pid exists, with the start the names' owner
	 * record or the journal gives when there is one */
	bool live;
	/* sysctl only, else NULL: "before 'B', now 'V'" when listed; "put
	 * back to 'B' from 'V'", "is 'B' already" or "is gone from the
	 * kernel: nothing to put back to 'B'" when put back */
	const char *detail;
};

/*
 * Call fn for every namespace under /run/netns and every cgroup in the
 * cpu hierarchy whose name is exactly TOPO_PREFIX<pid>-<n>-<c|s>, then
 * every sysctl a journal records (topo_sysctls_new()): namespaces first,
 * each group sorted by name; a non-zero return from fn stops the walk and
 * is returned. A missing /run/netns, cgroup cpu hierarchy or journal
 * directory lists nothing. Returns 0, fn's non-zero return, or a negative
 * errno (err filled). The entry's strings live until fn returns.
 */
int topo_list(int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
	      struct base_err *err);

/*
 * Remove what topo_list() finds: only those whose owner is gone when
 * only_dead (which includes every topology `netregress topo up` left),
 * only those of pid owner when owner > 0 (0: any owner). Cgroups go
 * first (their processes moved to the parent cgroup, see topo_down()),
 * sysctls last: each is put back to its value before the job (one the
 * kernel no longer has holds no value of the job's), and its journal
 * removed once all of them hold. fn (may be NULL; its return is ignored)
 * is called for each one removed or put back. *removed (may be NULL) gets
 * the count. An owner is gone when its pid is, or when the process with
 * its pid started at another time than the owner record of its names or
 * the journal says (names without a record, as an older build left them,
 * are their pid's while it runs). Owner records that no longer speak for
 * a namespace or cgroup go too, under the same rules (not counted).
 * Returns 0 or the first error (err filled), after trying every entry.
 */
int topo_down_all(bool only_dead, pid_t owner,
		  int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		  unsigned int *removed, struct base_err *err);

/*
 * The sysctls a job sets per label (docs/jobs.md, `labels`): names under
 * net. only (base_parse_sysctl_name), in this host's network namespace,
 * where the loopback tests run. topo_sysctls_new() reads each one's value
 * before the job (its original) and checks it can be written, so a job
 * fails before its first run, not half-way. topo_sysctls_apply() sets each
 * to values[i], or back to its original where values[i] is NULL, writing
 * only those that differ, and reads each back: a kernel that clamped or
 * refused the value is an error, so that no run is stored under a label
 * whose setting did not hold. topo_sysctls_restore() puts every original
 * back, trying all of them when one fails. Values compare with runs of
 * blanks as one space and integer words as integers.
 *
 * The caller restores on every exit path, SIGINT included (nothing here
 * installs a handler). For the one it cannot see, a SIGKILL,
 * topo_sysctls_new() writes the originals to a journal,
 * /run/netregress/sysctl-<pid>, that topo_sysctls_free() removes once they
 * hold again; `netregress topo down` (topo_down_all()) puts back those of
 * a process that has ended. topo_sysctls_new() refuses (-EBUSY) a sysctl
 * another journal holds: that of a job still running, or of one that
 * ended with the value not put back, whose value now is not an original.
 * Returns 0 or a negative errno with err naming the sysctl, its file and
 * the value: -ENOENT (no such sysctl), -EACCES, -EINVAL (bad name, named
 * twice, a bad journal), -EBUSY, -ERANGE (reads back otherwise), -ENOMEM.
 * Not for a measured loop; one thread per set at a time.
 */
struct topo_sysctls;
int topo_sysctls_new(const char *const *names, size_t n, struct topo_sysctls **out,
		     struct base_err *err);
/*
 * The same in the network namespace the calling thread is in, one of a
 * topology's (topo_enter()): only the names that namespace has a writable
 * copy of its own of (a per-namespace sysctl; the others are the
 * machine's, which topo_sysctls_new() sets: missing there, or a read-only
 * view, as net.core.rmem_default is in 6.18), in their order, and no
 * journal, since the namespace takes its values with it. Apply and
 * restore from inside the same namespace. The set may come out empty.
 */
int topo_sysctls_new_netns(const char *const *names, size_t n, struct topo_sysctls **out,
			   struct base_err *err);
size_t topo_sysctls_count(const struct topo_sysctls *t);
/* The i-th name and its value before the job, blanks squeezed. */
const char *topo_sysctls_name(const struct topo_sysctls *t, size_t i);
const char *topo_sysctls_original(const struct topo_sysctls *t, size_t i);
/* The journal's path; NULL without one. */
const char *topo_sysctls_journal(const struct topo_sysctls *t);
int topo_sysctls_apply(struct topo_sysctls *t, const char *const *values,
		       struct base_err *err);
/* NULL is fine (nothing to restore). */
int topo_sysctls_restore(struct topo_sysctls *t, struct base_err *err);
void topo_sysctls_free(struct topo_sysctls *t);

/*
 * Parse a rate as tc writes it, in bits per second: a decimal number
 * (fraction allowed when the result is whole) with an optional suffix
 * bit, kbit, mbit, gbit, tbit (powers of 1000) or the bare k, m, g, t
 * (case-insensitive): "200mbit", "1.5gbit", "800k", "1000000". Zero is
 * accepted (callers that need a minimum check it). Returns 0, -EINVAL for
 * bad syntax, -ERANGE above UINT64_MAX; err names the value. Thread-safe.
 */
int topo_parse_rate_bps(const char *s, uint64_t *out_bps,
			struct base_err *err);

/*
 * The TBF parameters topo_up() uses for a rate and MTU: burst is four
 * milliseconds' worth of bytes at the rate (a 250 Hz tick: tokens that
 * pile up while the qdisc watchdog is late are not lost) and at least
 * three full frames (MTU + 14 bytes of Ethernet header); limit is the
 * burst plus 50 ms' worth of bytes, the most a packet waits in the queue.
 * Over a window of seconds the burst adds at most burst / (rate * window)
 * to the measured rate, and a warm-up spends it. TBF counts frame bytes
 * (IP packet plus the Ethernet header; segments of a GSO packet each with
 * its headers), so TCP goodput over a rate R is about
 * R * (MTU - 52) / (MTU + 14) with timestamps: 0.956 R at MTU 1500,
 * 0.993 R at 9000. rate_bps > 0.
 */
void topo_tbf_params(uint64_t rate_bps, uint32_t mtu, uint64_t *burst_bytes,
		     uint64_t *limit_bytes);

#endif
