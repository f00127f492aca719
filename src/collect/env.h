/* SPDX-License-Identifier: GPL-2.0-only */
/* Snapshot of the machine a sample ran on, and single-value sysctl reads. */
#ifndef NR_COLLECT_ENV_H
#define NR_COLLECT_ENV_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/* Strings are NUL-terminated; a value that does not fit is an error. */
struct collect_env {
	char kernel[128]; /* uname -r */
	char kernel_version[256]; /* uname -v */
	char machine[64]; /* uname -m */
	char hostname[256]; /* uname -n */
	char cpu_model[256]; /* /proc/cpuinfo; "unknown" when not found */
	int online_cpus; /* sysconf(_SC_NPROCESSORS_ONLN) */
	long mem_total_kb; /* /proc/meminfo MemTotal; 0 when not readable */
	char cpu_governor[64]; /* cpufreq governor of cpu0; "" if none */
	char clocksource[64]; /* current clocksource; "" if none */
	/* this boot of this machine, the same in every network namespace:
	 * two ends with one boot_id share the CPUs; "" if unreadable */
	char boot_id[40];
	/* the temporary directory (collect_tmp_dir) and its filesystem
	 * ("ext4", "tmpfs", ... or the magic in hex; "" if statfs failed):
	 * tcp_sendfile sends from a file there */
	char tmp_dir[256];
	char tmp_fs[32];
	int64_t wall_ns; /* CLOCK_REALTIME ns when the snapshot was taken */
};

/*
 * Fill *out with a snapshot of this machine: uname, CPU model, online CPUs,
 * memory, cpu0's cpufreq governor and the current clocksource.
 *
 * /proc/cpuinfo, /proc/meminfo and the two /sys files are optional: when
 * one cannot be opened or read, its field gets "unknown", 0 or "". A file
 * that is there but malformed or too long is an error.
 *
 * Returns 0; a negative errno from uname or sysconf; -ENOMEM; -EINVAL for a
 * malformed MemTotal line or a control character in a /sys value; -ERANGE
 * for a MemTotal that does not fit a long; -EOVERFLOW for a value longer
 * than its field. err says which. On error *out is partly filled and must
 * not be used. Allocates a 64 KiB buffer and reads files: not for the
 * measured loop; any thread, including a worker.
 */
int collect_env_read(struct collect_env *out, struct base_err *err);

/* $TMPDIR when it is an absolute path (and fits), else "/tmp". Any thread. */
const char *collect_tmp_dir(void);

/* The name of a filesystem's statfs f_type ("ext4", "tmpfs", "xfs",
 * "btrfs", "overlay", "nfs", ...) into out, or the magic in hex. */
void collect_fs_name(unsigned long magic, char *out, size_t cap);

/*
 * The CPU model in /proc/cpuinfo text (len bytes, need not be
 * NUL-terminated), copied into out (cap bytes). Takes the first non-empty
 * value of the first key present in this order: "model name" (x86 and
 * others), "Processor" (old ARM), "cpu model" (MIPS), "cpu" (PowerPC),
 * "uarch" (RISC-V); "unknown" when there is none. Only lines ended by '\n'
 * or by the end of the text count.
 *
 * Returns 0, -EINVAL if an argument is NULL or cap is 0, -EOVERFLOW if the
 * value does not fit cap (out is then ""). Pure function; any thread.
 */
int collect_cpuinfo_model(const char *text, size_t len, char *out, size_t cap);

/*
 * Of the x86 CPU flags in flags (the value of /proc/cpuinfo's "flags" line,
 * len bytes, need not be NUL-terminated), those that choose how the kernel
 * copies to and from user memory (rep_good erms fsrm fzrm fsrs), in that
 * order, space-separated, into out (cap bytes); "none" when it has none of
 * them. Every byte a stream moves goes through that copy, and its speed
 * can depend on where the user buffer starts (see --buf-offset).
 *
 * Returns 0, -EINVAL for a NULL argument or cap 0, -EOVERFLOW if the
 * result does not fit cap (out is then ""). Pure function; any thread.
 */
int collect_cpu_copy_flags(const char *flags, size_t len, char *out, size_t cap);

/*
 * Read a file holding one unsigned decimal integer and an optional newline,
 * such as /proc/sys/net/core/rmem_max, into *out (units are the sysctl's).
 *
 * Returns 0; a negative errno from open or read (-ENOENT when the sysctl
 * does not exist); -EINVAL if the content is not exactly one unsigned
 * integer (files with several values, like tcp_rmem, are rejected); -ERANGE
 * if it does not fit 64 bits. *out is set only on success. Any thread.
 */
int collect_sysctl_read_u64(const char *path, uint64_t *out);

#endif
