/* SPDX-License-Identifier: GPL-2.0-only */
/* The system a sample ran on as flat key/value strings, and its fingerprint. */
#ifndef NR_COLLECT_SYSENV_H
#define NR_COLLECT_SYSENV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/*
 * Keys written by collect_sysenv_read(). A key whose source does not exist
 * on this machine (no cpufreq, no microcode line, no SMT control) is left
 * out, never given a placeholder value.
 *
 *   kernel.release, kernel.version   uname -r, uname -v
 *   cmdline                          /proc/cmdline
 *   cpu.model, cpu.microcode         /proc/cpuinfo, first CPU's block
 *   cpu.online                       /sys/devices/system/cpu/online ("0-1")
 *   cpu.smt, cpu.smt.active          /sys/devices/system/cpu/smt/control,
 *                                    .../smt/active
 *   numa.possible, numa.online       /sys/devices/system/node/{possible,online}
 *   cpufreq.governor                 cpu0's scaling_governor
 *   cpuidle.latency_req_us           the CPU latency QoS request in force
 *                                    (/dev/cpu_dma_latency, root only):
 *                                    microseconds, or "no limit"
 *   sysctl.net.<path with dots>      every readable file under /proc/sys/net/
 *                                    core, ipv4 and ipv6, except the
 *                                    per-interface subtrees {ipv4,ipv6}/{conf,
 *                                    neigh}/<if> (conf/all, conf/default and
 *                                    neigh/default are kept) and the secrets
 *                                    tcp_fastopen_key and stable_secret
 *   if.<name>.mtu, .txqlen, .qdisc   rtnetlink RTM_GETLINK (IFLA_QDISC is
 *   if.<name>.tx_queues, .rx_queues  the root qdisc's kind, "noqueue" on lo;
 *   if.<name>.gso_max_size, .gso_max_segs, .gro_max_size   when reported)
 *   if.<name>.driver                 ethtool ETHTOOL_GDRVINFO; else the name
 *                                    of /sys/class/net/<if>/device/driver;
 *                                    else "none" (lo)
 *   if.<name>.offload.<feature>      "on" or "off" for every feature the
 *                                    kernel names (ETHTOOL_GSSET_INFO,
 *                                    ETHTOOL_GSTRINGS, ETHTOOL_GFEATURES),
 *                                    by its kernel string: tx-scatter-gather
 *                                    (ethtool's "sg"), tx-checksum-ipv4 and
 *                                    tx-checksum-ip-generic ("tx"),
 *                                    rx-checksum ("rx"),
 *                                    tx-tcp-segmentation ("tso"),
 *                                    tx-generic-segmentation ("gso"),
 *                                    rx-gro ("gro"), rx-gro-list, ...
 *
 * Values are the file's text with every run of blanks, tabs, newlines and
 * other control characters turned into one space and the ends trimmed
 * ("4096\t131072\t6291456\n" -> "4096 131072 6291456").
 */

#define COLLECT_SYSENV_MAX 2048 /* entries; more is -ENOSPC */
#define COLLECT_SYSENV_KEY_MAX 256 /* bytes of a key with its NUL */
#define COLLECT_SYSENV_VALUE_MAX 4096 /* bytes of a raw value; more is -E2BIG */
#define COLLECT_SYSENV_TEXT_MAX (1024 * 1024) /* all keys and values */

struct collect_sysenv_entry {
	const char *key;
	const char *value;
};

/*
 * A snapshot. n entries, sorted by key after collect_sysenv_read() (in the
 * order added otherwise). Strings live in the snapshot's own text buffer;
 * the fields after entries are private.
 */
struct collect_sysenv {
	size_t n;
	struct collect_sysenv_entry *entries;
	char *text; /* COLLECT_SYSENV_TEXT_MAX bytes */
	size_t text_len;
	unsigned short *slot; /* key hash -> entry index + 1 */
};

/* An empty snapshot, or NULL when out of memory. The caller owns it and
 * releases it with collect_sysenv_free(). Any thread. */
struct collect_sysenv *collect_sysenv_new(void);

/* Release a snapshot; NULL is a no-op. */
void collect_sysenv_free(struct collect_sysenv *env);

/* Remove every entry (keeps the memory). */
void collect_sysenv_clear(struct collect_sysenv *env);

/*
 * Add key = value (len bytes, need not be NUL-terminated), normalizing the
 * value as described above. The key must be 1 .. COLLECT_SYSENV_KEY_MAX - 1
 * printable ASCII characters without blanks.
 *
 * Returns 0; -EINVAL for a bad key; -EEXIST for a key already there; -E2BIG
 * for a value over COLLECT_SYSENV_VALUE_MAX bytes; -ENOSPC when the entries
 * or text buffer are full. err names the key. Pure; any thread.
 */
int collect_sysenv_add(struct collect_sysenv *env, const char *key,
		       const char *value, size_t len, struct base_err *err);

/* The value of key, or NULL. O(1). */
const char *collect_sysenv_get(const struct collect_sysenv *env,
			       const char *key);

/* Sort the entries by key (strcmp order). */
void collect_sysenv_sort(struct collect_sysenv *env);

/*
 * Add sysctl.net.* for every readable file under <root>/net/core,
 * <root>/net/ipv4 and <root>/net/ipv6 (root is "/proc/sys"; tests pass a
 * copy). Skips what the key list above excludes and files that refuse to be
 * read (write-only route/flush: EACCES; an unset stable_secret: EIO).
 * A missing subtree (no IPv6) is skipped.
 *
 * Returns 0 or a negative errno (-E2BIG for a file over
 * COLLECT_SYSENV_VALUE_MAX bytes, -ENOSPC, -EMFILE...); err names the
 * file. Reads one file per sysctl, some hundreds: not for the measured
 * loop.
 */
int collect_sysenv_add_sysctls(struct collect_sysenv *env, const char *root,
			       struct base_err *err);

/*
 * Add what sets how soon an idle CPU wakes and what entering the kernel
 * costs, from <sys> ("/sys"; tests pass a copy): cpuidle.driver,
 * cpuidle.governor, cpuidle.states (cpu0's idle states in order, those
 * switched off marked "(disabled)"), cpuidle.haltpoll.guest_halt_poll_ns
 * (how long a KVM guest polls before it halts), mm.thp.enabled, and
 * cpu.vuln.<name> for every file of devices/system/cpu/vulnerabilities
 * (the mitigations in force: a kernel that changes them changes every
 * system call's cost). What the machine lacks is left out.
 *
 * Returns 0 or a negative errno as collect_sysenv_add_sysctls does.
 */
int collect_sysenv_add_cpu(struct collect_sysenv *env, const char *sys,
			   struct base_err *err);

/*
 * Add the if.<name>.* keys of one interface of the current network
 * namespace. Returns 0; -EINVAL for an empty name, one with '/', blanks, or
 * IFNAMSIZ or more characters; -ENODEV if there is no such interface; a
 * negative errno from the netlink socket or an ethtool ioctl other than
 * "not supported". err names the interface.
 */
int collect_sysenv_add_if(struct collect_sysenv *env, const char *ifname,
			  struct base_err *err);

/*
 * Clear *env and fill it with every key listed above, for the nif
 * interfaces in ifnames (may be NULL when nif is 0), then sort it.
 * Reads some hundreds of files and makes a few syscalls per interface
 * (docs/measures.md gives the time measured): once per run, never in the
 * measured loop. Any thread.
 *
 * Returns 0 or the first error of the helpers above, or of uname or a
 * file that exists but cannot be read or is over its cap (/proc/cmdline
 * and the /sys files: COLLECT_SYSENV_VALUE_MAX; /proc/cpuinfo: only its
 * first 64 KiB are read, enough for the first CPU's block).
 * On error *env is partly filled and must not be used.
 */
int collect_sysenv_read(struct collect_sysenv *env, const char *const *ifnames,
			size_t nif, struct base_err *err);

/*
 * Whether key is part of the fingerprint: kernel.release, kernel.version,
 * cmdline, cpu.model, cpu.microcode, cpu.online, cpu.smt, cpu.smt.active,
 * numa.*, cpufreq.governor, cpuidle.*, cpu.vuln.*, mm.*, if.* and
 * sysctl.* except three that change
 * without anyone tuning anything: sysctl.net.core.netdev_rss_key (random
 * at every boot), sysctl.net.ipv4.tcp_available_congestion_control and
 * sysctl.net.ipv4.tcp_available_ulp (grow when a module is loaded).
 * Pure function.
 */
bool collect_sysenv_in_fingerprint(const char *key);

/*
 * The environment's fingerprint: 64-bit FNV-1a over key, NUL, value, NUL of
 * every key collect_sysenv_in_fingerprint() accepts, in key order (so the
 * order of the entries does not matter), as 16 lowercase hex digits and a
 * NUL in out. Samples may be pooled only when their fingerprints match.
 * Returns 0, -EINVAL if an argument is NULL, -ENOMEM. Pure; any thread.
 */
int collect_sysenv_fingerprint(const struct collect_sysenv *env, char out[17]);

#endif
