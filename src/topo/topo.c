// SPDX-License-Identifier: GPL-2.0-only
/* Building, entering and removing veth topologies, and finding the ones crashed runs left. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo/internal.h"

const struct topo_paths topo_default_paths = {
	.netns_dir = "/run/netns",
	.cgroup_root = "/sys/fs/cgroup",
	.sysctl_root = "/proc/sys",
	.journal_dir = "/run/netregress",
};

/* A directory with more entries of ours than this is refused. */
#define LIST_MAX 65536
#define ARGV_MAX 24

static const char *const ifnames[2] = { "nr-veth-c", "nr-veth-s" };
static const char *const addr4[2] = { "198.18.0.1", "198.18.0.2" };
static const char *const addr6[2] = { "2001:2::1", "2001:2::2" };
static const char *const cidr4[2] = { "198.18.0.1/24", "198.18.0.2/24" };
static const char *const cidr6[2] = { "2001:2::1/64", "2001:2::2/64" };

/* topologies made by this process so far: the <n> in the names */
static unsigned int topo_seq;

struct topo {
	pid_t pid;
	unsigned int n;
	char ns[2][TOPO_NAME_MAX];
	char nspath[2][PATH_MAX];
	char cgroup[PATH_MAX];
	struct topo_spec spec;
	bool ns_made[2]; /* set before the step that makes it: undo tolerates */
	bool cg_made;    /* half-made or missing ones */
	bool v6;
	char owner[PATH_MAX]; /* its owner record, "" when none is kept */
};

void topo_spec_init(struct topo_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->mtu = 1500;
	s->gro = s->gso = s->tso = -1;
}

int topo_name_format(char *buf, size_t len, pid_t pid, unsigned int n,
		     enum topo_side side)
{
	int w;

	if (pid <= 0)
		return -EINVAL;
	w = snprintf(buf, len, TOPO_PREFIX "%d-%u-%c", (int)pid, n,
		     side == TOPO_SERVER ? 's' : 'c');
	if (w < 0 || (size_t)w >= len)
		return -ENOSPC;
	return 0;
}

/* a decimal number without sign or leading zero, at most max */
static const char *parse_num(const char *p, unsigned long long max,
			     unsigned long long *out)
{
	unsigned long long v = 0;
	const char *start = p;

	if (*p == '0' && p[1] >= '0' && p[1] <= '9')
		return NULL;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > max)
			return NULL;
		p++;
	}
	if (p == start)
		return NULL;
	*out = v;
	return p;
}

int topo_name_parse(const char *name, pid_t *pid, unsigned int *n,
		    enum topo_side *side)
{
	unsigned long long p, q;
	const char *s = name;

	if (strncmp(s, TOPO_PREFIX, strlen(TOPO_PREFIX)))
		return -EINVAL;
	s += strlen(TOPO_PREFIX);
	if (!(s = parse_num(s, INT_MAX, &p)) || p == 0 || *s++ != '-')
		return -EINVAL;
	if (!(s = parse_num(s, UINT_MAX, &q)) || *s++ != '-')
		return -EINVAL;
	if ((*s != 'c' && *s != 's') || s[1])
		return -EINVAL;
	if (pid)
		*pid = (pid_t)p;
	if (n)
		*n = (unsigned int)q;
	if (side)
		*side = *s == 's' ? TOPO_SERVER : TOPO_CLIENT;
	return 0;
}

bool topo_pid_live(pid_t pid)
{
	return pid > 0 && (!kill(pid, 0) || errno == EPERM);
}

int topo_pid_starttime(pid_t pid, unsigned long long *ticks)
{
	char path[64], buf[1024];
	const char *s;
	int ret;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((ret = topo_read_small(path, buf, sizeof(buf))))
		return ret;
	/* after the name's closing parenthesis (a name may hold one), field
	 * 3 is the state; starttime is field 22 */
	if (!(s = strrchr(buf, ')')))
		return -EINVAL;
	s++;
	for (int field = 3; field < 22; field++)
		if (!(s = strchr(s + 1, ' ')))
			return -EINVAL;
	return sscanf(s, " %llu", ticks) == 1 ? 0 : -EINVAL;
}

bool topo_writer_live(pid_t pid, const char *text)
{
	unsigned long long want, now;
	const char *line = text;
	int who;

	if (!topo_pid_live(pid))
		return false;
	while (line) {
		if (sscanf(line, TOPO_START_FMT, &who, &want) == 2 && who == (int)pid)
			return topo_pid_starttime(pid, &now) || now == want;
		if ((line = strchr(line, '\n')))
			line++;
	}
	return true;
}

int topo_record_write(const char *dir, const char *name, const char *text,
		      const char *what, struct base_err *err)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	size_t len = strlen(text);
	ssize_t w;
	int fd, e = 0;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return base_err_set(err, -errno, "cannot make %s for the %s: %s", dir, what,
				    strerror(errno));
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path) ||
	    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name) >= (int)sizeof(tmp))
		return base_err_set(err, -ENAMETOOLONG, "cannot write the %s in %s: path too long",
				    what, dir);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
		e = errno;
	} else {
		/* a small regular file: one write, else it is an error */
		if ((w = write(fd, text, len)) < 0)
			e = errno;
		else if ((size_t)w != len)
			e = EIO;
		if (close(fd) && !e)
			e = errno;
		if (!e && rename(tmp, path))
			e = errno;
		if (e)
			unlink(tmp);
	}
	return e ? base_err_set(err, -e, "cannot write the %s %s: %s", what, path, strerror(e)) : 0;
}

void topo_tbf_params(uint64_t rate_bps, uint32_t mtu, uint64_t *burst_bytes,
		     uint64_t *limit_bytes)
{
	uint64_t bytes_per_s = rate_bps / 8;
	uint64_t burst = bytes_per_s / 250; /* 4 ms */
	uint64_t frames = 3 * ((uint64_t)mtu + 14);

	if (burst < frames)
		burst = frames;
	*burst_bytes = burst;
	*limit_bytes = burst + bytes_per_s / 20; /* + 50 ms of queue */
}

/* the value quoted for a message: cut, control characters shown as '?' */
static void quote(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 4 < len; i++)
		buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
	if (s[i]) {
		memcpy(buf + (i > 3 ? i - 3 : 0), "...", 3);
		i = i > 3 ? i : 3;
	}
	buf[i] = '\0';
}

int topo_parse_rate_bps(const char *s, uint64_t *out_bps,
			struct base_err *err)
{
	static const struct {
		const char *suffix;
		int exp10;
	} sfx[] = {
		{ "", 0 },      { "bit", 0 }, { "k", 3 },  { "kbit", 3 },
		{ "m", 6 },     { "mbit", 6 }, { "g", 9 }, { "gbit", 9 },
		{ "t", 12 },    { "tbit", 12 },
	};
	uint64_t mant = 0;
	int frac = 0, exp10 = -1, digits = 0;
	bool range = false, dot = false;
	const char *p = s;
	char q[72];

	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			if (!digits)
				break;
			dot = true;
			continue;
		}
		digits++;
		if (dot)
			frac++;
		if (mant > UINT64_MAX / 10 ||
		    (mant == UINT64_MAX / 10 &&
		     (uint64_t)(*p - '0') > UINT64_MAX % 10))
			range = true;
		else if (!range)
			mant = mant * 10 + (uint64_t)(*p - '0');
	}
	if (digits && p[-1] == '.')
		digits = 0; /* "1." */
	for (size_t i = 0; digits && i < ARRAY_SIZE(sfx); i++)
		if (!strcasecmp(p, sfx[i].suffix))
			exp10 = sfx[i].exp10;
	quote(s, q, sizeof(q));
	if (exp10 < 0)
		return base_err_set(err, -EINVAL,
				    "invalid rate '%s': expected bits per second with an optional suffix kbit, mbit, gbit or tbit (like 200mbit)",
				    q);
	/* 1.50 is 1.5: trailing zeros of the fraction do not count */
	while (frac > 0 && !range && mant % 10 == 0) {
		mant /= 10;
		frac--;
	}
	if (frac > exp10)
		return base_err_set(err, -EINVAL,
				    "invalid rate '%s': not a whole number of bits per second",
				    q);
	for (int i = 0; i < exp10 - frac && !range; i++) {
		if (mant > UINT64_MAX / 10)
			range = true;
		else
			mant *= 10;
	}
	if (range)
		return base_err_set(err, -ERANGE,
				    "invalid rate '%s': too large", q);
	*out_bps = mant;
	return 0;
}

/* Run a command given as arguments up to a NULL. */
/* run(err, "ip", "netns", "add", name, (char *)NULL): a NULL pointer, not
 * a bare NULL that may be an int 0, ends the arguments */
static int run(struct base_err *err, ...) __attribute__((sentinel));
static int run(struct base_err *err, ...)
{
	const char *argv[ARGV_MAX + 1];
	va_list ap;
	size_t n = 0;
	const char *a;

	va_start(ap, err);
	while ((a = va_arg(ap, const char *)) != NULL) {
		BUG_ON(n == ARGV_MAX);
		argv[n++] = a;
	}
	va_end(ap);
	argv[n] = NULL;
	return topo_run(argv, err);
}

/* the test hook: fail at the named step */
static int step(const char *name, struct base_err *err)
{
	const char *at = getenv("NETREGRESS_TOPO_FAIL_AT");

	if (at && !strcmp(at, name))
		return base_err_set(err, -EIO, "injected failure at step %s", name);
	return 0;
}

static int check_spec(const struct topo_spec *s, struct base_err *err)
{
	if (s->mtu < TOPO_MTU_MIN || s->mtu > TOPO_MTU_MAX)
		return base_err_set(err, -EINVAL,
				    "invalid mtu %" PRIu32 ": expected %d to %d", s->mtu,
				    TOPO_MTU_MIN, TOPO_MTU_MAX);
	if (s->gro < -1 || s->gro > 1 || s->gso < -1 || s->gso > 1 ||
	    s->tso < -1 || s->tso > 1)
		return base_err_set(err, -EINVAL,
				    "invalid offload setting %d/%d/%d: expected -1, 0 or 1",
				    s->gro, s->gso, s->tso);
	if (s->tbf_rate_bps && (s->tbf_rate_bps < TOPO_TBF_MIN_BPS ||
				s->tbf_rate_bps > TOPO_TBF_MAX_BPS))
		return base_err_set(err, -EINVAL,
				    "invalid tbf rate %" PRIu64 " bit/s: expected %" PRIu64 " (1mbit) to %" PRIu64 " (400gbit)",
				    s->tbf_rate_bps, (uint64_t)TOPO_TBF_MIN_BPS,
				    (uint64_t)TOPO_TBF_MAX_BPS);
	if (s->cpu_quota_pct > TOPO_CPU_QUOTA_MAX_PCT)
		return base_err_set(err, -EINVAL,
				    "invalid cpu quota %" PRIu32 "%%: expected 1 to %d",
				    s->cpu_quota_pct, TOPO_CPU_QUOTA_MAX_PCT);
	return 0;
}

/*
 * An owner record: <journal_dir>/topo-<pid>-<n>, written before topology
 * <n> of process <pid> makes anything and removed with the last of it,
 * says when that process started (TOPO_START_FMT). The pid in the names
 * alone cannot tell a crashed owner from an unrelated process that was
 * given its pid later: with the record, the names of a process whose
 * start differs are dead. Names without a record (an older build's, or a
 * machine without the directory) are their pid's while it runs.
 */
#define OWNER_PREFIX "topo-"

/* "topo-<pid>-<n>" (no sign, no leading zero): 0 and both; else -EINVAL. */
static int owner_name_parse(const char *name, pid_t *pid, unsigned int *n)
{
	unsigned long long p, q;
	const char *s = name;

	if (strncmp(s, OWNER_PREFIX, strlen(OWNER_PREFIX)))
		return -EINVAL;
	s += strlen(OWNER_PREFIX);
	if (!(s = parse_num(s, INT_MAX, &p)) || p == 0 || *s++ != '-' ||
	    !(s = parse_num(s, UINT_MAX, &q)) || *s)
		return -EINVAL;
	*pid = (pid_t)p;
	*n = (unsigned int)q;
	return 0;
}

static int owner_write(struct topo *t, struct base_err *err)
{
	const char *dir = topo_default_paths.journal_dir;
	char name[64], text[256];
	unsigned long long start;
	int ret, len;

	len = snprintf(text, sizeof(text), "# netregress pid %d made %s and %s\n",
		       (int)t->pid, t->ns[TOPO_CLIENT], t->ns[TOPO_SERVER]);
	if (!topo_pid_starttime(t->pid, &start))
		snprintf(text + len, sizeof(text) - (size_t)len, TOPO_START_FMT "\n",
			 (int)t->pid, start);
	snprintf(name, sizeof(name), OWNER_PREFIX "%d-%u", (int)t->pid, t->n);
	if ((ret = topo_record_write(dir, name, text, "topology's owner record", err)))
		return ret;
	snprintf(t->owner, sizeof(t->owner), "%s/%s", dir, name);
	return 0;
}

/* Whether names <pid>-<n> have an owner that runs (see OWNER_PREFIX). */
static bool owner_live(const struct topo_paths *p, pid_t pid, unsigned int n)
{
	char path[PATH_MAX], text[512];

	if (!topo_pid_live(pid))
		return false;
	if (!p->journal_dir ||
	    snprintf(path, sizeof(path), "%s/" OWNER_PREFIX "%d-%u", p->journal_dir,
		     (int)pid, n) >= (int)sizeof(path) ||
	    topo_read_small(path, text, sizeof(text)))
		return true;
	return topo_writer_live(pid, text);
}

static int make_netns(struct topo *t, int side, struct base_err *err)
{
	/* a leftover with our name had our pid: its owner is gone */
	topo_netns_remove(t->nspath[side]);
	t->ns_made[side] = true;
	return run(err, "ip", "netns", "add", t->ns[side], (char *)NULL);
}

static int both(struct topo *t, struct base_err *err,
		int (*fn)(struct topo *t, int side, struct base_err *err))
{
	int ret = fn(t, TOPO_CLIENT, err);

	return ret ? ret : fn(t, TOPO_SERVER, err);
}

static int lo_up(struct topo *t, int side, struct base_err *err)
{
	return run(err, "ip", "-n", t->ns[side], "link", "set", "dev", "lo",
		   "up", (char *)NULL);
}

static int set_mtu(struct topo *t, int side, struct base_err *err)
{
	char v[16];

	snprintf(v, sizeof(v), "%" PRIu32, t->spec.mtu);
	return run(err, "ip", "-n", t->ns[side], "link", "set", "dev",
		   ifnames[side], "mtu", v, (char *)NULL);
}

static int add_addrs(struct topo *t, int side, struct base_err *err)
{
	int ret = run(err, "ip", "-n", t->ns[side], "-4", "addr", "add",
		      cidr4[side], "dev", ifnames[side], (char *)NULL);

	if (ret || !t->v6)
		return ret;
	return run(err, "ip", "-n", t->ns[side], "-6", "addr", "add", cidr6[side],
		   "dev", ifnames[side], "nodad", (char *)NULL);
}

static int link_up(struct topo *t, int side, struct base_err *err)
{
	return run(err, "ip", "-n", t->ns[side], "link", "set", "dev",
		   ifnames[side], "up", (char *)NULL);
}

int topo_up(const struct topo_spec *s, struct topo **out,
	    struct base_err *err)
{
	struct topo_spec def;
	struct topo *t = NULL;
	struct topo_cg_root cg;
	int ret;

	*out = NULL;
	if (!s) {
		topo_spec_init(&def);
		s = &def;
	}
	if (s->mtu == 0) {
		def = *s;
		def.mtu = 1500;
		s = &def;
	}
	if ((ret = check_spec(s, err)))
		return ret;
	t = calloc(1, sizeof(*t));
	if (!t)
		return base_err_set(err, -ENOMEM, "out of memory");
	t->spec = *s;
	t->pid = getpid();
	t->n = __atomic_fetch_add(&topo_seq, 1, __ATOMIC_RELAXED);
	for (int side = 0; side < 2; side++) {
		if ((ret = topo_name_format(t->ns[side], sizeof(t->ns[side]),
					    t->pid, t->n, side)))
			BUG("name of %d-%u does not fit", (int)t->pid, t->n);
		snprintf(t->nspath[side], sizeof(t->nspath[side]), "%s/%s",
			 topo_default_paths.netns_dir, t->ns[side]);
	}
	t->v6 = !access("/proc/sys/net/ipv6", F_OK);

	if ((ret = step("owner", err)) || (ret = owner_write(t, err)))
		goto fail;
	if ((ret = step("netns-client", err)) ||
	    (ret = make_netns(t, TOPO_CLIENT, err)))
		goto fail;
	if ((ret = step("netns-server", err)) ||
	    (ret = make_netns(t, TOPO_SERVER, err)))
		goto fail;
	/* both ends made inside their namespaces: never in the root one */
	if ((ret = step("veth", err)) ||
	    (ret = run(err, "ip", "-n", t->ns[TOPO_CLIENT], "link", "add",
		       ifnames[TOPO_CLIENT], "type", "veth", "peer", "name",
		       ifnames[TOPO_SERVER], "netns", t->ns[TOPO_SERVER], (char *)NULL)))
		goto fail;
	if ((ret = step("lo", err)) || (ret = both(t, err, lo_up)))
		goto fail;
	if ((ret = step("mtu", err)) || (ret = both(t, err, set_mtu)))
		goto fail;
	if ((ret = step("offloads", err)))
		goto fail;
	for (int side = 0; side < 2; side++)
		if ((ret = topo_ethtool_set(t->nspath[side], ifnames[side], s->gro,
					    s->gso, s->tso, err)))
			goto fail;
	if ((ret = step("addr", err)) || (ret = both(t, err, add_addrs)))
		goto fail;
	if ((ret = step("up", err)) || (ret = both(t, err, link_up)))
		goto fail;
	if ((ret = step("tbf", err)))
		goto fail;
	if (s->tbf_rate_bps) {
		char rate[32], burst[24], limit[24];
		uint64_t b, l;

		topo_tbf_params(s->tbf_rate_bps, s->mtu, &b, &l);
		snprintf(rate, sizeof(rate), "%" PRIu64 "bit", s->tbf_rate_bps);
		snprintf(burst, sizeof(burst), "%" PRIu64, b);
		snprintf(limit, sizeof(limit), "%" PRIu64, l);
		for (int side = 0; side < 2; side++)
			if ((ret = run(err, "tc", "-n", t->ns[side], "qdisc", "add",
				       "dev", ifnames[side], "root", "tbf", "rate",
				       rate, "burst", burst, "limit", limit, (char *)NULL)))
				goto fail;
	}
	if ((ret = step("cgroup", err)))
		goto fail;
	if (s->cpu_quota_pct) {
		char path[PATH_MAX];

		if ((ret = topo_cg_probe(topo_default_paths.cgroup_root, &cg, err)))
			goto fail;
		/* a leftover with our name had our pid: its owner is gone */
		if (snprintf(path, sizeof(path), "%s/%s", cg.dir,
			     t->ns[TOPO_SERVER]) < (int)sizeof(path))
			topo_cg_remove(path);
		ret = topo_cg_create(&cg, t->ns[TOPO_SERVER], s->cpu_quota_pct,
				     step("quota", NULL) != 0, t->cgroup,
				     sizeof(t->cgroup), &t->cg_made, err);
		if (ret)
			goto fail;
	}
	*out = t;
	return 0;
fail:
	topo_free(t);
	return ret;
}

int topo_netns_remove(const char *path)
{
	/* not a mount point (half made) is fine: the unlink decides */
	int uerr = umount2(path, MNT_DETACH) ? errno : 0;

	if (!unlink(path) || errno == ENOENT)
		return 0;
	return -(errno == EBUSY && uerr ? uerr : errno);
}

void topo_down(struct topo *t)
{
	if (!t)
		return;
	/* the cgroup first: its server may still hold the namespace */
	if (t->cg_made && !topo_cg_remove(t->cgroup))
		t->cg_made = false;
	for (int side = TOPO_SERVER; side >= TOPO_CLIENT; side--)
		if (t->ns_made[side] && !topo_netns_remove(t->nspath[side]))
			t->ns_made[side] = false;
	/* the record goes with the last of what it speaks for */
	if (t->owner[0] && !t->cg_made && !t->ns_made[0] && !t->ns_made[1] &&
	    (!unlink(t->owner) || errno == ENOENT))
		t->owner[0] = '\0';
}

void topo_free(struct topo *t)
{
	topo_down(t);
	free(t);
}

void topo_detach(struct topo *t)
{
	free(t);
}

int topo_enter(const struct topo *t, enum topo_side side, int *saved_fd,
	       struct base_err *err)
{
	int saved, nsfd, ret = 0;

	*saved_fd = -1;
	saved = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (saved < 0)
		return base_err_set(err, -errno, "cannot open /proc/thread-self/ns/net: %s",
				    strerror(errno));
	nsfd = open(t->nspath[side], O_RDONLY | O_CLOEXEC);
	if (nsfd < 0) {
		ret = base_err_set(err, -errno, "cannot open namespace '%s': %s",
				   t->nspath[side], strerror(errno));
		goto out;
	}
	if (setns(nsfd, CLONE_NEWNET)) {
		ret = base_err_set(err, -errno, "cannot enter namespace '%s': %s",
				   t->ns[side], strerror(errno));
		goto out;
	}
	*saved_fd = saved;
	saved = -1;
out:
	if (nsfd >= 0)
		close(nsfd);
	if (saved >= 0)
		close(saved);
	return ret;
}

int topo_leave(int saved_fd)
{
	int ret = 0;

	if (saved_fd < 0)
		return 0;
	if (setns(saved_fd, CLONE_NEWNET))
		ret = -errno;
	close(saved_fd);
	return ret;
}

int topo_server_prepare(const struct topo *t, pid_t pid, struct base_err *err)
{
	if (!t->cgroup[0])
		return 0;
	return topo_cg_attach(t->cgroup, pid, err);
}

const char *topo_netns(const struct topo *t, enum topo_side side)
{
	return t->ns[side];
}

const char *topo_netns_path(const struct topo *t, enum topo_side side)
{
	return t->nspath[side];
}

const char *topo_ifname(const struct topo *t, enum topo_side side)
{
	(void)t;
	return ifnames[side];
}

const char *topo_addr(const struct topo *t, enum topo_side side, int ipv)
{
	if (ipv == 4)
		return addr4[side];
	if (ipv == 6 && t->v6)
		return addr6[side];
	return NULL;
}

const char *topo_cgroup(const struct topo *t)
{
	return t->cgroup[0] ? t->cgroup : NULL;
}

/* Names of ours in one directory, sorted. */
struct names {
	char (*v)[TOPO_NAME_MAX];
	size_t n, cap;
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int collect(const char *dir, bool dirs_only, struct names *out,
		   struct base_err *err)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return base_err_set(err, -errno, "cannot list '%s': %s", dir,
				    strerror(errno));
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (topo_name_parse(de->d_name, NULL, NULL, NULL) ||
		    strlen(de->d_name) >= TOPO_NAME_MAX)
			continue;
		if (dirs_only && (fstatat(dirfd(d), de->d_name, &st,
					  AT_SYMLINK_NOFOLLOW) ||
				  !S_ISDIR(st.st_mode)))
			continue;
		if (out->n == out->cap) {
			size_t cap = out->cap ? 2 * out->cap : 16;
			void *v;

			if (cap > LIST_MAX) {
				ret = base_err_set(err, -E2BIG,
						   "more than %d entries of ours in '%s'",
						   LIST_MAX, dir);
				break;
			}
			v = realloc(out->v, cap * sizeof(*out->v));
			if (!v) {
				ret = base_err_set(err, -ENOMEM, "out of memory");
				break;
			}
			out->v = v;
			out->cap = cap;
		}
		snprintf(out->v[out->n++], TOPO_NAME_MAX, "%s", de->d_name);
	}
	closedir(d);
	if (!ret && out->n)
		qsort(out->v, out->n, sizeof(*out->v), cmp_name);
	return ret;
}

/* What a walk works on: our namespaces and cgroups on the machine. */
struct found {
	struct names ns, cg;
	char cgdir[PATH_MAX]; /* "" without a cpu hierarchy */
};

static int find_all(const struct topo_paths *p, struct found *f,
		    struct base_err *err)
{
	struct topo_cg_root r;
	int ret;

	memset(f, 0, sizeof(*f));
	if ((ret = collect(p->netns_dir, false, &f->ns, err)))
		return ret;
	if (topo_cg_probe(p->cgroup_root, &r, NULL))
		return 0;
	snprintf(f->cgdir, sizeof(f->cgdir), "%s", r.dir);
	return collect(f->cgdir, true, &f->cg, err);
}

static void found_release(struct found *f)
{
	free(f->ns.v);
	free(f->cg.v);
}

static void entry_of(const struct topo_paths *p, const char *kind, const char *dir,
		     const char *name, char *path, size_t len, struct topo_entry *e)
{
	unsigned int n = 0;
	pid_t pid = 0;

	topo_name_parse(name, &pid, &n, NULL);
	snprintf(path, len, "%s/%s", dir, name);
	e->kind = kind;
	e->name = name;
	e->path = path;
	e->owner = pid;
	e->live = owner_live(p, pid, n);
	e->detail = NULL;
}

int topo_list_in(const struct topo_paths *p,
		 int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		 struct base_err *err)
{
	char path[PATH_MAX];
	struct topo_entry e;
	struct found f;
	int ret;

	if ((ret = find_all(p, &f, err)))
		goto out;
	for (size_t i = 0; i < f.ns.n && !ret; i++) {
		entry_of(p, "netns", p->netns_dir, f.ns.v[i], path, sizeof(path), &e);
		ret = fn(ctx, &e);
	}
	for (size_t i = 0; i < f.cg.n && !ret; i++) {
		entry_of(p, "cgroup", f.cgdir, f.cg.v[i], path, sizeof(path), &e);
		ret = fn(ctx, &e);
	}
	if (!ret)
		ret = topo_journals_list(p, fn, ctx, err);
out:
	found_release(&f);
	return ret;
}

int topo_list(int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
	      struct base_err *err)
{
	return topo_list_in(&topo_default_paths, fn, ctx, err);
}

/* Whether dir/name exists. */
static bool present(const char *dir, const char *name)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
	       !access(path, F_OK);
}

/* Remove the owner records that speak for nothing left any more: of
 * owner's only when owner > 0, of ended owners only when only_dead. */
static void owners_down(const struct topo_paths *p, const char *cgdir, bool only_dead,
			pid_t owner)
{
	struct dirent *de;
	DIR *d;

	if (!p->journal_dir || !(d = opendir(p->journal_dir)))
		return;
	while ((de = readdir(d))) {
		char name[TOPO_NAME_MAX], path[PATH_MAX];
		bool left = false;
		unsigned int n;
		pid_t pid;

		if (owner_name_parse(de->d_name, &pid, &n) || (owner > 0 && pid != owner) ||
		    (only_dead && owner_live(p, pid, n)))
			continue;
		for (int side = TOPO_CLIENT; side <= TOPO_SERVER && !left; side++)
			left = !topo_name_format(name, sizeof(name), pid, n, side) &&
			       (present(p->netns_dir, name) || (cgdir[0] && present(cgdir, name)));
		if (!left && snprintf(path, sizeof(path), "%s/%s", p->journal_dir,
				      de->d_name) < (int)sizeof(path))
			unlink(path);
	}
	closedir(d);
}

int topo_down_all_in(const struct topo_paths *p, bool only_dead, pid_t owner,
		     int (*fn)(void *ctx, const struct topo_entry *e),
		     void *ctx, unsigned int *removed, struct base_err *err)
{
	char path[PATH_MAX];
	struct topo_entry e;
	struct found f;
	unsigned int count = 0;
	int ret, first = 0;

	if (removed)
		*removed = 0;
	if ((ret = find_all(p, &f, err)))
		goto out;
	/* cgroups first: a server still in one keeps its namespace alive */
	for (size_t i = 0; i < f.cg.n + f.ns.n; i++) {
		bool cg = i < f.cg.n;

		if (cg)
			entry_of(p, "cgroup", f.cgdir, f.cg.v[i], path, sizeof(path), &e);
		else
			entry_of(p, "netns", p->netns_dir, f.ns.v[i - f.cg.n], path,
				 sizeof(path), &e);
		if ((only_dead && e.live) || (owner > 0 && e.owner != owner))
			continue;
		ret = cg ? topo_cg_remove(path) : topo_netns_remove(path);
		if (ret) {
			if (!first)
				first = base_err_set(err, ret, "cannot remove %s '%s': %s",
						     e.kind, path, strerror(-ret));
			continue;
		}
		count++;
		if (fn)
			fn(ctx, &e);
	}
	{
		struct base_err e2 = { "" };
		unsigned int n = 0;

		owners_down(p, f.cgdir, only_dead, owner);
		ret = topo_journals_down(p, only_dead, owner, fn, ctx, &n, &e2);
		count += n;
		if (ret && !first)
			first = base_err_set(err, ret, "%s", e2.msg);
	}
	ret = first;
out:
	if (removed)
		*removed = count;
	found_release(&f);
	return ret;
}

int topo_down_all(bool only_dead, pid_t owner,
		  int (*fn)(void *ctx, const struct topo_entry *e), void *ctx,
		  unsigned int *removed, struct base_err *err)
{
	return topo_down_all_in(&topo_default_paths, only_dead, owner, fn, ctx,
				removed, err);
}
