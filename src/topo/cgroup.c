// SPDX-License-Identifier: GPL-2.0-only
/* The server's CPU quota: a cgroup in the cpu hierarchy, v1 or v2, made and removed. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/file.h"
#include "topo/internal.h"

/* cgroup.controllers and cgroup.subtree_control are one short line */
#define CTRL_MAX 4096
/* cgroup.procs of one of our cgroups: a server and what it forked */
#define PROCS_MAX 65536

int topo_read_small(const char *path, char *buf, size_t len)
{
	size_t got;
	bool more;
	int ret = base_read_path(path, buf, len - 1, &got, &more);

	buf[got] = '\0';
	return !ret && more ? -EFBIG : ret;
}

int topo_write_str(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, ret = 0;

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		n = write(fd, s, len);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* whether a space-separated list holds word */
static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;

	while (*p) {
		size_t n;

		p += strspn(p, " \t\n");
		n = strcspn(p, " \t\n");
		if (n == wl && !strncmp(p, word, wl))
			return true;
		p += n;
	}
	return false;
}

static bool file_exists(const char *path)
{
	return !access(path, F_OK);
}

static bool v2_has_cpu(const char *dir)
{
	char path[PATH_MAX], buf[CTRL_MAX];

	if (snprintf(path, sizeof(path), "%s/cgroup.controllers", dir) >=
	    (int)sizeof(path))
		return false;
	return !topo_read_small(path, buf, sizeof(buf)) && has_word(buf, "cpu");
}

int topo_cg_probe(const char *root, struct topo_cg_root *out,
		  struct base_err *err)
{
	static const char *const v1_dirs[] = { "cpu", "cpu,cpuacct" };
	char dir[PATH_MAX], path[PATH_MAX];

	if (v2_has_cpu(root)) {
		out->version = 2;
		snprintf(out->dir, sizeof(out->dir), "%s", root);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(v1_dirs); i++) {
		if (snprintf(dir, sizeof(dir), "%s/%s", root, v1_dirs[i]) >=
			    (int)sizeof(dir) ||
		    snprintf(path, sizeof(path), "%s/cpu.cfs_quota_us", dir) >=
			    (int)sizeof(path))
			continue;
		if (file_exists(path)) {
			out->version = 1;
			snprintf(out->dir, sizeof(out->dir), "%s", dir);
			return 0;
		}
	}
	if (snprintf(dir, sizeof(dir), "%s/unified", root) < (int)sizeof(dir) &&
	    v2_has_cpu(dir)) {
		out->version = 2;
		snprintf(out->dir, sizeof(out->dir), "%s", dir);
		return 0;
	}
	return base_err_set(err, -EOPNOTSUPP,
			    "no cgroup cpu controller under '%s' (neither v2 cgroup.controllers nor v1 cpu/cpu.cfs_quota_us)",
			    root);
}

int topo_cg_quota(uint32_t pct, uint64_t *quota_us, uint64_t *period_us)
{
	if (pct == 0 || pct > TOPO_CPU_QUOTA_MAX_PCT)
		return -EINVAL;
	*period_us = TOPO_CPU_PERIOD_US;
	*quota_us = (uint64_t)pct * TOPO_CPU_PERIOD_US / 100;
	return 0;
}

int topo_cg_create(const struct topo_cg_root *r, const char *name,
		   uint32_t pct, bool fail_quota, char *path, size_t len,
		   bool *made, struct base_err *err)
{
	char file[PATH_MAX], buf[CTRL_MAX], val[64];
	uint64_t quota_us, period_us;
	int ret;

	*made = false;
	if (topo_cg_quota(pct, &quota_us, &period_us))
		return base_err_set(err, -EINVAL,
				    "invalid cpu quota %" PRIu32 "%%: expected 1 to %d",
				    pct, TOPO_CPU_QUOTA_MAX_PCT);
	/* every file name below is shorter than the 32 bytes kept free */
	if (snprintf(path, len, "%s/%s", r->dir, name) >= (int)len ||
	    strlen(path) + 32 >= sizeof(file))
		return base_err_set(err, -ENAMETOOLONG, "cgroup path too long: '%s/%s'",
				    r->dir, name);
	if (r->version == 2) {
		if (snprintf(file, sizeof(file), "%s/cgroup.subtree_control",
			     r->dir) >= (int)sizeof(file))
			return base_err_set(err, -ENAMETOOLONG, "cgroup path too long: '%s'",
					    r->dir);
		ret = topo_read_small(file, buf, sizeof(buf));
		if (ret)
			return base_err_set(err, ret, "cannot read '%s': %s", file,
					    strerror(-ret));
		if (!has_word(buf, "cpu") && (ret = topo_write_str(file, "+cpu")))
			return base_err_set(err, ret,
					    "cannot enable the cpu controller in '%s': %s",
					    file, strerror(-ret));
	}
	if (mkdir(path, 0755))
		return base_err_set(err, -errno, "cannot make cgroup '%s': %s", path,
				    strerror(errno));
	*made = true;
	if (fail_quota)
		return base_err_set(err, -EIO, "injected failure at step quota");
	if (r->version == 2) {
		snprintf(file, sizeof(file), "%s/cpu.max", path);
		if (!file_exists(file))
			return base_err_set(err, -EOPNOTSUPP,
					    "cpu quota unsupported: no '%s' (kernel without CFS bandwidth control?)",
					    file);
		snprintf(val, sizeof(val), "%" PRIu64 " %" PRIu64, quota_us,
			 period_us);
		if ((ret = topo_write_str(file, val)))
			return base_err_set(err, ret, "cannot write '%s' to '%s': %s",
					    val, file, strerror(-ret));
		return 0;
	}
	snprintf(file, sizeof(file), "%s/cpu.cfs_quota_us", path);
	if (!file_exists(file))
		return base_err_set(err, -EOPNOTSUPP,
				    "cpu quota unsupported: no '%s' (kernel without CFS bandwidth control?)",
				    file);
	/* the period first: a quota is checked against the current period */
	snprintf(file, sizeof(file), "%s/cpu.cfs_period_us", path);
	snprintf(val, sizeof(val), "%" PRIu64, period_us);
	if ((ret = topo_write_str(file, val)))
		return base_err_set(err, ret, "cannot write '%s' to '%s': %s", val,
				    file, strerror(-ret));
	snprintf(file, sizeof(file), "%s/cpu.cfs_quota_us", path);
	snprintf(val, sizeof(val), "%" PRIu64, quota_us);
	if ((ret = topo_write_str(file, val)))
		return base_err_set(err, ret, "cannot write '%s' to '%s': %s", val,
				    file, strerror(-ret));
	return 0;
}

int topo_cg_attach(const char *dir, pid_t pid, struct base_err *err)
{
	char file[PATH_MAX], val[24];
	int ret;

	if (snprintf(file, sizeof(file), "%s/cgroup.procs", dir) >=
	    (int)sizeof(file))
		return base_err_set(err, -ENAMETOOLONG, "cgroup path too long: '%s'",
				    dir);
	snprintf(val, sizeof(val), "%d", (int)pid);
	ret = topo_write_str(file, val);
	if (ret)
		return base_err_set(err, ret, "cannot move pid %d into '%s': %s",
				    (int)pid, dir, strerror(-ret));
	return 0;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* rmdir, retried while busy for up to tries * 10 ms */
static int rmdir_retry(const char *path, int tries)
{
	for (int i = 0;; i++) {
		if (!rmdir(path) || errno == ENOENT)
			return 0;
		if (errno != EBUSY || i + 1 >= tries)
			return -errno;
		sleep_ms(10);
	}
}

/* Move every process listed in <path>/cgroup.procs to the parent's. */
static void evict(const char *path)
{
	char file[PATH_MAX], parent[PATH_MAX];
	char *buf, *slash, *p, *end;

	if (snprintf(parent, sizeof(parent), "%s", path) >= (int)sizeof(parent) ||
	    !(slash = strrchr(parent, '/')) || slash == parent)
		return;
	*slash = '\0';
	snprintf(file, sizeof(file), "%s/cgroup.procs", path);
	buf = malloc(PROCS_MAX);
	if (!buf)
		return;
	/* a list longer than the buffer: what fits moves, the rmdir says */
	if (topo_read_small(file, buf, PROCS_MAX) && !buf[0])
		goto out;
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			topo_cg_attach(parent, (pid_t)pid, NULL);
		end += strspn(end, "\n");
	}
out:
	free(buf);
}

int topo_cg_remove(const char *path)
{
	int ret = rmdir_retry(path, 50);

	if (ret != -EBUSY)
		return ret;
	evict(path);
	return rmdir_retry(path, 50);
}
