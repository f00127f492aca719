/* SPDX-License-Identifier: GPL-2.0-only */
/* Helpers shared by the files of topo/ and its unit tests; not part of its public API. */
#ifndef NR_TOPO_INTERNAL_H
#define NR_TOPO_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "topo/topo.h"

/* Where topo looks; tests point these at a fake tree. */
struct topo_paths {
	const char *netns_dir;   /* "/run/netns" */
	const char *cgroup_root; /* "/sys/fs/cgroup" */
	const char *sysctl_root; /* "/proc/sys" */
	/* "/run/netregress": the sysctl journals (NULL: none kept or found) */
	const char *journal_dir;
};

extern const struct topo_paths topo_default_paths;

/*
 * "nr-<pid>-<n>-c" or "-s" into buf (len bytes, NUL included). Returns 0,
 * -EINVAL for pid <= 0, -ENOSPC when it does not fit.
 */
int topo_name_format(char *buf, size_t len, pid_t pid, unsigned int n,
		     enum topo_side side);

/*
 * The reverse: 0 when name is exactly TOPO_PREFIX, a pid (1..INT_MAX, no
 * leading zero), '-', a sequence number (no leading zero), '-', 'c' or
 * 's'; else -EINVAL. Anything that does not parse is not ours and is never
 * touched. Outputs may be NULL.
 */
int topo_name_parse(const char *name, pid_t *pid, unsigned int *n,
		    enum topo_side *side);

/* Read a small file whole into buf (NUL-terminated); 0, -errno, or -EFBIG
 * when it is longer than len - 1. */
int topo_read_small(const char *path, char *buf, size_t len);
/* Write s to an existing file in one write, truncating it (never created:
 * /proc/sys and cgroupfs have every file the kernel supports; a regular
 * file, as in the tests, then holds exactly s); 0 or -errno. */
int topo_write_str(const char *path, const char *s);

/* Whether a process with this pid exists (EPERM counts as existing). */
bool topo_pid_live(pid_t pid);

/* When a process started: /proc/<pid>/stat's starttime, clock ticks
 * since boot (no wall clock in it, so no clock step moves it). 0, or a
 * negative errno (-ENOENT: no such process). */
int topo_pid_starttime(pid_t pid, unsigned long long *ticks);

/* The line of a record (a sysctl journal, a topology's owner record)
 * that says when its writer started: a process with the writer's pid and
 * another start is not the writer, whose pid went to it after it ended. */
#define TOPO_START_FMT "# pid %d started %llu clock ticks after boot"

/* Whether a record's writer still runs: pid does, with the start text's
 * TOPO_START_FMT line for pid gives (when text has one and pid's start can
 * be read). text may be NULL: pid's while it runs. */
bool topo_writer_live(pid_t pid, const char *text);

/* Write text to <dir>/<name>, whole or not at all (a temporary file
 * renamed over it), dir made first when missing (0755); what the record
 * is for names it in err. 0 or a negative errno (err filled). */
int topo_record_write(const char *dir, const char *name, const char *text,
		      const char *what, struct base_err *err);

/* The cgroup hierarchy that holds the cpu controller. */
struct topo_cg_root {
	int version;         /* 1 or 2 */
	char dir[PATH_MAX];  /* where our cgroups are made */
};

/*
 * Find the cpu controller under root (normally /sys/fs/cgroup), first
 * match wins:
 *   v2:     <root>/cgroup.controllers lists "cpu" (the unified hierarchy)
 *   v1:     <root>/cpu/cpu.cfs_quota_us, or <root>/cpu,cpuacct/...
 *   hybrid: <root>/unified/cgroup.controllers lists "cpu"
 * A v2 root without "cpu" in cgroup.controllers falls through to the
 * others. Returns 0, or -EOPNOTSUPP (err names root) when none has it.
 */
int topo_cg_probe(const char *root, struct topo_cg_root *out,
		  struct base_err *err);

/* Quota and period in microseconds for pct% of one CPU. Returns 0 or
 * -EINVAL (pct 0 or above TOPO_CPU_QUOTA_MAX_PCT). */
int topo_cg_quota(uint32_t pct, uint64_t *quota_us, uint64_t *period_us);

/*
 * Make <r->dir>/<name> with the quota (v2: enable +cpu in r->dir's
 * cgroup.subtree_control when missing, then cpu.max "<quota> <period>";
 * v1: cpu.cfs_period_us, then cpu.cfs_quota_us). path (len bytes) gets the
 * directory; *made is set as soon as it exists, so the caller removes it
 * even after a later failure. fail_quota: the test hook, fail before the
 * quota is written. Returns 0, -EOPNOTSUPP when the new cgroup has no
 * bandwidth control file, or a negative errno; err filled.
 */
int topo_cg_create(const struct topo_cg_root *r, const char *name,
		   uint32_t pct, bool fail_quota, char *path, size_t len,
		   bool *made, struct base_err *err);

/*
 * Remove a cgroup directory of ours: rmdir, retried for up to 500 ms
 * while it is busy (a process that just exited leaves it late); then the
 * processes still in it are moved to the parent cgroup and it is tried
 * again for 500 ms. A missing directory is success. Returns 0 or -errno.
 */
int topo_cg_remove(const char *path);

/* Write a pid (0: the caller) into <dir>/cgroup.procs. */
int topo_cg_attach(const char *dir, pid_t pid, struct base_err *err);

/*
 * Remove a named namespace as `ip netns del` does: detach the bind mount
 * and unlink the file. A missing one is success; so is a file that is not
 * a mount point (a half-made namespace). Returns 0 or -errno.
 */
int topo_netns_remove(const char *path);

/* topo_sysctls_new() over the given paths. */
int topo_sysctls_new_in(const struct topo_paths *p, const char *const *names,
			size_t n, struct topo_sysctls **out, struct base_err *err);
/* topo_sysctls_new_netns() over the given paths (journal_dir unused). */
int topo_sysctls_new_netns_in(const struct topo_paths *p, const char *const *names,
			      size_t n, struct topo_sysctls **out, struct base_err *err);

/*
 * The sysctl journals in p->journal_dir (sysctl-<pid>, written by
 * topo_sysctls_new_in()): fn for each sysctl one records, as a topo_entry
 * of kind "sysctl" (detail: its value before and now); a bad journal is
 * an error returned after the others are listed, a non-zero return of fn
 * stops the walk and is returned. journals_down()
 * puts back each one recorded by a process that ended (only_dead; every
 * one else), of pid owner only when owner > 0, removes a journal once all
 * its values hold again, and calls fn for each sysctl it dealt with; a bad
 * journal or a value that does not hold is an error (the first one is
 * returned, the rest are still tried) and the journal stays.
 */
int topo_journals_list(const struct topo_paths *p,
		       int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		       struct base_err *err);
int topo_journals_down(const struct topo_paths *p, bool only_dead, pid_t owner,
		       int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		       unsigned int *count, struct base_err *err);

/* topo_list() and topo_down_all() over the given paths. */
int topo_list_in(const struct topo_paths *p,
		 int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		 struct base_err *err);
int topo_down_all_in(const struct topo_paths *p, bool only_dead, pid_t owner,
		     int (*fn)(void *ctx, const struct topo_entry *e),
		     void *ctx, unsigned int *removed, struct base_err *err);

/*
 * Run argv[0] (looked up on PATH, then in /usr/sbin, /sbin, /usr/bin,
 * /bin) with stdin from /dev/null, stdout and stderr captured, in its own
 * process group, killed after TOPO_CMD_TIMEOUT_S. Returns 0 when it exits
 * 0; else -EIO (-ENOENT when not found, -ETIMEDOUT) with err holding the
 * command line and the first part of its output. argv is NULL-terminated.
 */
int topo_run(const char *const *argv, struct base_err *err);

/* Offloads of one interface inside the namespace at nspath: each of gro,
 * gso, tso -1 (leave), 0 or 1; set, then read back (a value the device
 * did not take is -EOPNOTSUPP). Returns 0 or a negative errno. */
int topo_ethtool_set(const char *nspath, const char *ifname, int gro,
		     int gso, int tso, struct base_err *err);

#endif
