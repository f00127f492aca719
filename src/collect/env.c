// SPDX-License-Identifier: GPL-2.0-only
/* Environment snapshot and sysctl reads; see env.h. */
#include "collect/env.h"
#include "collect/text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/file.h"
#include "base/time.h"

#define CPUINFO_PATH "/proc/cpuinfo"
#define MEMINFO_PATH "/proc/meminfo"
#define GOVERNOR_PATH "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"
#define CLOCKSOURCE_PATH \
	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
/*
 * The read buffer. /proc/cpuinfo repeats a block per CPU and can pass 1 MiB
 * on big machines; the model is in the first block, and MemTotal is the
 * first line of /proc/meminfo, so for those two a prefix of this size is
 * enough and only its complete lines are parsed. The /sys files must fit.
 */
#define ENV_BUF_BYTES (64 * 1024)
#define SYSCTL_BUF_BYTES 32 /* 20 digits of UINT64_MAX, '\n', spare */

static bool is_space(char c)
{
	return collect_is_blank(c) || c == '\n' || c == '\r';
}



/*
 * Read up to cap - 1 bytes of path into buf and NUL-terminate it. *len gets
 * the byte count, *more whether the file holds more than that. Returns 0 or
 * a negative errno from open/read.
 */
static int read_prefix(const char *path, char *buf, size_t cap, size_t *len,
		       bool *more)
{
	int ret = base_read_path(path, buf, cap - 1, len, more);

	buf[*len] = '\0';
	return ret;
}

/* Length of text up to and including its last '\n' (a cut-off last line
 * of a prefix read is dropped). */
static size_t complete_lines(const char *text, size_t len)
{
	while (len > 0 && text[len - 1] != '\n')
		len--;
	return len;
}

static int copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strlen(src);

	if (n >= cap)
		return -EOVERFLOW;
	memcpy(dst, src, n + 1);
	return 0;
}

/* Keys holding the CPU model, best first; see collect_cpuinfo_model(). */
static const char *const model_keys[] = {
	"model name", "Processor", "cpu model", "cpu", "uarch",
};

int collect_cpuinfo_model(const char *text, size_t len, char *out, size_t cap)
{
	const char *p = text, *end = text + len;
	const char *best = "unknown";
	size_t best_len = strlen(best), rank = ARRAY_SIZE(model_keys), r;

	if (!out || !cap || (!text && len))
		return -EINVAL;
	out[0] = '\0';
	while (p < end && rank > 0) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end;
		const char *colon = memchr(p, ':', (size_t)(le - p));

		if (colon) {
			const char *ke = colon, *v = colon + 1, *ve = le;

			while (ke > p && collect_is_blank(ke[-1]))
				ke--;
			while (v < ve && collect_is_blank(*v))
				v++;
			while (ve > v && is_space(ve[-1]))
				ve--;
			for (r = 0; ve > v && r < rank; r++) {
				size_t klen = (size_t)(ke - p);

				if (strlen(model_keys[r]) == klen &&
				    !memcmp(p, model_keys[r], klen)) {
					best = v;
					best_len = (size_t)(ve - v);
					rank = r;
					break;
				}
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	if (best_len >= cap)
		return -EOVERFLOW;
	memcpy(out, best, best_len);
	out[best_len] = '\0';
	return 0;
}

/* The flags collect_cpu_copy_flags() keeps, in the order it writes them. */
static const char *const copy_flags[] = {
	"rep_good", "erms", "fsrm", "fzrm", "fsrs",
};

int collect_cpu_copy_flags(const char *flags, size_t len, char *out, size_t cap)
{
	bool have[ARRAY_SIZE(copy_flags)] = { false };
	const char *p = flags, *end;
	size_t used = 0;

	if (!out || !cap || (!flags && len))
		return -EINVAL;
	out[0] = '\0';
	end = len ? flags + len : flags;
	while (len && p < end) {
		const char *t;

		while (p < end && is_space(*p))
			p++;
		t = p;
		while (p < end && !is_space(*p))
			p++;
		for (size_t i = 0; t < p && i < ARRAY_SIZE(copy_flags); i++)
			if (strlen(copy_flags[i]) == (size_t)(p - t) &&
			    !memcmp(t, copy_flags[i], (size_t)(p - t)))
				have[i] = true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(copy_flags); i++) {
		size_t n;

		if (!have[i])
			continue;
		n = strlen(copy_flags[i]) + (used ? 1 : 0);
		if (used + n >= cap) {
			out[0] = '\0';
			return -EOVERFLOW;
		}
		snprintf(out + used, cap - used, "%s%s", used ? " " : "", copy_flags[i]);
		used += n;
	}
	if (!used) {
		if (cap <= strlen("none"))
			return -EOVERFLOW;
		snprintf(out, cap, "none");
	}
	return 0;
}

/* "MemTotal:   24684092 kB" in /proc/meminfo text. */
static int parse_mem_total(const char *text, size_t len, long *kb,
			   struct base_err *err)
{
	static const char key[] = "MemTotal:";
	const char *p = text, *end = text + len;
	uint64_t v = 0;
	int ret;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end, *d, *de;

		if ((size_t)(le - p) >= sizeof(key) - 1 &&
		    !memcmp(p, key, sizeof(key) - 1)) {
			d = p + sizeof(key) - 1;
			while (d < le && collect_is_blank(*d))
				d++;
			de = d;
			while (de < le && collect_is_digit(*de))
				de++;
			ret = collect_parse_u64(d, (size_t)(de - d), &v);
			if (ret == 0 && v > LONG_MAX)
				ret = -ERANGE;
			while (ret == 0 && de < le && collect_is_blank(*de))
				de++;
			if (ret == 0 &&
			    ((size_t)(le - de) != 2 || memcmp(de, "kB", 2)))
				ret = -EINVAL;
			if (ret)
				return base_err_set(err, ret,
						    "%s: bad MemTotal line",
						    MEMINFO_PATH);
			*kb = (long)v;
			return 0;
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return base_err_set(err, -EINVAL, "%s: no MemTotal line", MEMINFO_PATH);
}

/*
 * A one-line /sys value into out (cap bytes), trailing whitespace dropped;
 * "" when the file cannot be opened or read. buf has ENV_BUF_BYTES.
 */
static int read_optional_str(const char *path, char *buf, char *out,
			     size_t cap, struct base_err *err)
{
	size_t len, i;
	bool more;

	out[0] = '\0';
	if (read_prefix(path, buf, ENV_BUF_BYTES, &len, &more))
		return 0;
	while (len > 0 && is_space(buf[len - 1]))
		len--;
	if (more || len >= cap)
		return base_err_set(err, -EOVERFLOW,
				    "%s: value is longer than %zu bytes", path,
				    cap - 1);
	for (i = 0; i < len; i++)
		if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
			return base_err_set(err, -EINVAL,
					    "%s: control character in value",
					    path);
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

const char *collect_tmp_dir(void)
{
	const char *d = getenv("TMPDIR");

	return d && d[0] == '/' && strlen(d) < sizeof(((struct collect_env *)0)->tmp_dir) ?
		       d : "/tmp";
}

void collect_fs_name(unsigned long magic, char *out, size_t cap)
{
	static const struct {
		unsigned long magic;
		const char *name;
	} fs[] = {
		{ 0xEF53, "ext4" }, /* ext2, ext3 and ext4 share it */
		{ 0x01021994, "tmpfs" }, { 0x58465342, "xfs" },
		{ 0x9123683E, "btrfs" }, { 0x794C7630, "overlay" },
		{ 0x6969, "nfs" }, { 0xF2F52010, "f2fs" }, { 0x2FC12FC1, "zfs" },
		{ 0x858458F6, "ramfs" }, { 0x73717368, "squashfs" },
		{ 0x65735546, "fuse" }, { 0x01021997, "9p" },
		{ 0x5346544E, "ntfs" }, { 0x4D44, "vfat" },
	};

	for (size_t i = 0; i < sizeof(fs) / sizeof(fs[0]); i++) {
		if (fs[i].magic == magic) {
			snprintf(out, cap, "%s", fs[i].name);
			return;
		}
	}
	snprintf(out, cap, "0x%lx", magic);
}

int collect_env_read(struct collect_env *out, struct base_err *err)
{
	struct utsname u;
	char *buf = NULL, ebuf[128];
	size_t len;
	bool more;
	long n;
	int ret;

	if (!out)
		return base_err_set(err, -EINVAL, "no output environment");
	memset(out, 0, sizeof(*out));
	out->wall_ns = base_wall_ns();

	if (uname(&u) < 0) {
		ret = -errno;
		base_err_set(err, ret, "uname failed: %s",
			     strerror_r(-ret, ebuf, sizeof(ebuf)));
		goto out;
	}
	if (copy_str(out->kernel, sizeof(out->kernel), u.release) ||
	    copy_str(out->kernel_version, sizeof(out->kernel_version),
		     u.version) ||
	    copy_str(out->machine, sizeof(out->machine), u.machine) ||
	    copy_str(out->hostname, sizeof(out->hostname), u.nodename)) {
		ret = base_err_set(err, -EOVERFLOW,
				   "uname: a field is too long to keep");
		goto out;
	}

	errno = 0;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1 || n > INT_MAX) {
		ret = errno ? -errno : -ERANGE;
		base_err_set(err, ret, "sysconf(_SC_NPROCESSORS_ONLN) gave %ld",
			     n);
		goto out;
	}
	out->online_cpus = (int)n;

	buf = malloc(ENV_BUF_BYTES);
	if (!buf) {
		ret = base_err_set(err, -ENOMEM,
				   "cannot allocate the environment buffer");
		goto out;
	}

	if (read_prefix(CPUINFO_PATH, buf, ENV_BUF_BYTES, &len, &more))
		len = 0;
	if (more)
		len = complete_lines(buf, len);
	ret = collect_cpuinfo_model(buf, len, out->cpu_model,
				    sizeof(out->cpu_model));
	if (ret) {
		base_err_set(err, ret, "%s: cpu model is longer than %zu bytes",
			     CPUINFO_PATH, sizeof(out->cpu_model) - 1);
		goto out;
	}

	if (read_prefix(MEMINFO_PATH, buf, ENV_BUF_BYTES, &len, &more) == 0) {
		if (more)
			len = complete_lines(buf, len);
		ret = parse_mem_total(buf, len, &out->mem_total_kb, err);
		if (ret)
			goto out;
	}

	ret = read_optional_str(GOVERNOR_PATH, buf, out->cpu_governor,
				sizeof(out->cpu_governor), err);
	if (ret)
		goto out;
	ret = read_optional_str(CLOCKSOURCE_PATH, buf, out->clocksource,
				sizeof(out->clocksource), err);
	if (ret)
		goto out;
	ret = read_optional_str(BOOT_ID_PATH, buf, out->boot_id,
				sizeof(out->boot_id), err);
	if (ret)
		goto out;
	{
		struct statfs sf;

		snprintf(out->tmp_dir, sizeof(out->tmp_dir), "%s", collect_tmp_dir());
		if (!statfs(out->tmp_dir, &sf))
			collect_fs_name((unsigned long)sf.f_type, out->tmp_fs,
					sizeof(out->tmp_fs));
	}
out:
	free(buf);
	return ret;
}

int collect_sysctl_read_u64(const char *path, uint64_t *out)
{
	char buf[SYSCTL_BUF_BYTES];
	size_t len;
	bool more;
	uint64_t v = 0;
	int ret;

	if (!path || !out)
		return -EINVAL;
	ret = read_prefix(path, buf, sizeof(buf), &len, &more);
	if (ret)
		return ret;
	if (more)
		return -EINVAL;
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	ret = collect_parse_u64(buf, len, &v);
	if (ret)
		return ret;
	*out = v;
	return 0;
}
