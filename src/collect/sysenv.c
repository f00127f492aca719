// SPDX-License-Identifier: GPL-2.0-only
/* Environment snapshot: /proc, /sys, rtnetlink and ethtool; see sysenv.h. */
#include "collect/sysenv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/file.h"
#include "collect/env.h"
#include "collect/text.h"

#define HASH_SLOTS (2 * COLLECT_SYSENV_MAX)
#define CPUINFO_PREFIX_BYTES (64 * 1024)
#define SYSCTL_DEPTH_MAX 8 /* net/ipv4/conf/all/x is 4 */
#define NL_BUF_BYTES (32 * 1024) /* one RTM_NEWLINK without stats */
#define FEATURES_MAX 1024 /* netdev features; the kernel has about 64 */

static const char *const fingerprint_keys[] = {
	"kernel.release", "kernel.version", "cmdline",
	"cpu.model",	  "cpu.microcode",  "cpu.online",
	"cpu.smt",	  "cpu.smt.active", "cpufreq.governor",
	"cpu.family",	  "cpu.model_id",   "cpu.copy_flags",
};

static const char *const fingerprint_prefixes[] = { "numa.", "sysctl.",
						    "if.", "cpuidle.", "cpu.vuln.",
						    "mm." };

/* Sysctls that change without anyone tuning them. */
static const char *const volatile_sysctls[] = {
	"sysctl.net.core.netdev_rss_key",
	"sysctl.net.ipv4.tcp_available_congestion_control",
	"sysctl.net.ipv4.tcp_available_ulp",
};

/* Sysctl files never read: they hold keys. */
static const char *const secret_sysctls[] = { "tcp_fastopen_key",
					      "stable_secret" };

/* Directories of per-interface subtrees: only these children are kept. */
static const char *const perif_dirs[] = {
	"sysctl.net.ipv4.conf",
	"sysctl.net.ipv6.conf",
	"sysctl.net.ipv4.neigh",
	"sysctl.net.ipv6.neigh",
};

static const char *const sysctl_roots[] = { "net/core", "net/ipv4",
					    "net/ipv6" };

static int sys_err(struct base_err *err, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "<what>: <strerror>" for a failed system call; returns errnum. */
static int sys_err(struct base_err *err, int errnum, const char *fmt, ...)
{
	char what[384], ebuf[64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return base_err_set(err, errnum, "%s: %s", what,
			    strerror_r(-errnum, ebuf, sizeof(ebuf)));
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, list[i]))
			return true;
	return false;
}

static uint32_t hash_key(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static unsigned short *find_slot(const struct collect_sysenv *env,
				 const char *key)
{
	uint32_t i = hash_key(key) & (HASH_SLOTS - 1);

	for (;;) {
		unsigned short s = env->slot[i];

		if (!s || !strcmp(env->entries[s - 1].key, key))
			return &env->slot[i];
		i = (i + 1) & (HASH_SLOTS - 1);
	}
}

static void rehash(struct collect_sysenv *env)
{
	size_t i;

	memset(env->slot, 0, HASH_SLOTS * sizeof(env->slot[0]));
	for (i = 0; i < env->n; i++)
		*find_slot(env, env->entries[i].key) = (unsigned short)(i + 1);
}

struct collect_sysenv *collect_sysenv_new(void)
{
	struct collect_sysenv *env = calloc(1, sizeof(*env));

	if (!env)
		return NULL;
	env->entries = calloc(COLLECT_SYSENV_MAX, sizeof(env->entries[0]));
	env->slot = calloc(HASH_SLOTS, sizeof(env->slot[0]));
	env->text = malloc(COLLECT_SYSENV_TEXT_MAX);
	if (!env->entries || !env->slot || !env->text) {
		collect_sysenv_free(env);
		return NULL;
	}
	return env;
}

void collect_sysenv_free(struct collect_sysenv *env)
{
	if (!env)
		return;
	free(env->entries);
	free(env->slot);
	free(env->text);
	free(env);
}

void collect_sysenv_clear(struct collect_sysenv *env)
{
	if (!env)
		return;
	env->n = 0;
	env->text_len = 0;
	memset(env->slot, 0, HASH_SLOTS * sizeof(env->slot[0]));
}

static bool is_ws(unsigned char c)
{
	return c <= 0x20 || c == 0x7f;
}

int collect_sysenv_add(struct collect_sysenv *env, const char *key,
		       const char *value, size_t len, struct base_err *err)
{
	size_t klen, i, room;
	unsigned short *slot;
	char *k, *v, *p;
	bool gap = false;

	if (!env || !key || (!value && len))
		return base_err_set(err, -EINVAL,
				    "no environment, key or value");
	klen = strnlen(key, COLLECT_SYSENV_KEY_MAX);
	if (klen == 0 || klen >= COLLECT_SYSENV_KEY_MAX)
		return base_err_set(err, -EINVAL,
				    "environment key of %zu bytes: expected 1 to %d",
				    klen, COLLECT_SYSENV_KEY_MAX - 1);
	for (i = 0; i < klen; i++)
		if ((unsigned char)key[i] <= 0x20 ||
		    (unsigned char)key[i] >= 0x7f)
			return base_err_set(err, -EINVAL,
					    "environment key '%.*s' has a blank or non-ASCII byte",
					    (int)klen, key);
	if (len > COLLECT_SYSENV_VALUE_MAX)
		return base_err_set(err, -E2BIG,
				    "%s: value is longer than %d bytes", key,
				    COLLECT_SYSENV_VALUE_MAX);
	slot = find_slot(env, key);
	if (*slot)
		return base_err_set(err, -EEXIST, "%s: key is there twice",
				    key);
	room = COLLECT_SYSENV_TEXT_MAX - env->text_len;
	if (env->n >= COLLECT_SYSENV_MAX || klen + 1 + len + 1 > room)
		return base_err_set(err, -ENOSPC,
				    "%s: more than %d entries or %d bytes of environment",
				    key, COLLECT_SYSENV_MAX,
				    COLLECT_SYSENV_TEXT_MAX);
	k = env->text + env->text_len;
	memcpy(k, key, klen + 1);
	v = p = k + klen + 1;
	for (i = 0; i < len; i++) {
		if (is_ws((unsigned char)value[i])) {
			gap = p != v;
			continue;
		}
		if (gap)
			*p++ = ' ';
		gap = false;
		*p++ = value[i];
	}
	*p++ = '\0';
	env->text_len = (size_t)(p - env->text);
	env->entries[env->n].key = k;
	env->entries[env->n].value = v;
	env->n++;
	*slot = (unsigned short)env->n;
	return 0;
}

const char *collect_sysenv_get(const struct collect_sysenv *env,
			       const char *key)
{
	unsigned short s;

	if (!env || !key)
		return NULL;
	s = *find_slot(env, key);
	return s ? env->entries[s - 1].value : NULL;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct collect_sysenv_entry *x = a, *y = b;

	return strcmp(x->key, y->key);
}

void collect_sysenv_sort(struct collect_sysenv *env)
{
	if (!env || env->n < 2)
		return;
	qsort(env->entries, env->n, sizeof(env->entries[0]), cmp_entry);
	rehash(env);
}

/*
 * Read a whole small file through fd (closed here) into buf, which holds
 * cap + 1 bytes. -E2BIG if the file has more than cap bytes.
 */
static int read_fd(int fd, char *buf, size_t cap, size_t *len)
{
	bool more;
	int ret = base_read_fd(fd, buf, cap, len, &more);

	close(fd);
	if (!ret && more) {
		*len = 0;
		ret = -E2BIG;
	}
	return ret;
}

/* Errors that mean "this file does not want to be read", not a failure. */
static bool is_refusal(int ret)
{
	return ret == -EACCES || ret == -EPERM || ret == -EIO ||
	       ret == -EINVAL || ret == -ENOENT || ret == -ENODEV ||
	       ret == -ENXIO || ret == -EOPNOTSUPP || ret == -ENOTDIR;
}

/*
 * Add key from the one-value file at path; a file that does not exist or
 * refuses to be read is left out. buf holds COLLECT_SYSENV_VALUE_MAX + 1.
 */
static int add_file(struct collect_sysenv *env, const char *key,
		    const char *path, char *buf, struct base_err *err)
{
	size_t len;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return is_refusal(ret) ? 0 : sys_err(err, ret, "cannot open %s",
						     path);
	}
	ret = read_fd(fd, buf, COLLECT_SYSENV_VALUE_MAX, &len);
	if (ret == -E2BIG)
		return base_err_set(err, ret, "%s: longer than %d bytes", path,
				    COLLECT_SYSENV_VALUE_MAX);
	if (ret)
		return is_refusal(ret) ? 0 : sys_err(err, ret, "cannot read %s",
						     path);
	return collect_sysenv_add(env, key, buf, len, err);
}

/* A walk of one sysctl tree. */
struct walk {
	struct collect_sysenv *env;
	char key[COLLECT_SYSENV_KEY_MAX];
	char *buf; /* COLLECT_SYSENV_VALUE_MAX + 1 */
	const char *root; /* for error messages */
	struct base_err *err;
};

/* Append ".name" to w->key; false if it does not fit. */
static bool key_push(struct walk *w, size_t at, const char *name)
{
	size_t n = strlen(name);

	if (at + 1 + n >= sizeof(w->key))
		return false;
	w->key[at] = '.';
	memcpy(w->key + at + 1, name, n + 1);
	return true;
}

static int walk_dir(struct walk *w, int dfd, int depth);

static int walk_entry(struct walk *w, int dfd, const struct dirent *de,
		      int depth)
{
	size_t at = strlen(w->key), len;
	bool is_dir;
	int fd, ret = 0;

	if (de->d_type == DT_DIR) {
		is_dir = true;
	} else if (de->d_type == DT_REG) {
		is_dir = false;
	} else if (de->d_type == DT_UNKNOWN) {
		struct stat st;

		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return 0;
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			return 0;
		is_dir = S_ISDIR(st.st_mode);
	} else {
		return 0;
	}
	if (is_dir && in_list(w->key, perif_dirs, ARRAY_SIZE(perif_dirs)) &&
	    strcmp(de->d_name, "all") && strcmp(de->d_name, "default"))
		return 0;
	if (!is_dir &&
	    in_list(de->d_name, secret_sysctls, ARRAY_SIZE(secret_sysctls)))
		return 0;
	if (!key_push(w, at, de->d_name))
		return base_err_set(w->err, -ENAMETOOLONG,
				    "%s: sysctl %s.%s has a name over %d bytes",
				    w->root, w->key, de->d_name,
				    COLLECT_SYSENV_KEY_MAX - 1);
	fd = openat(dfd, de->d_name,
		    O_RDONLY | O_CLOEXEC | (is_dir ? O_DIRECTORY : 0));
	if (fd < 0) {
		ret = -errno;
		if (is_refusal(ret))
			ret = 0;
		else
			sys_err(w->err, ret, "cannot open sysctl %s", w->key);
		goto out;
	}
	if (is_dir) {
		ret = walk_dir(w, fd, depth + 1);
		goto out;
	}
	ret = read_fd(fd, w->buf, COLLECT_SYSENV_VALUE_MAX, &len);
	if (ret == -E2BIG) {
		base_err_set(w->err, ret, "sysctl %s is longer than %d bytes",
			     w->key, COLLECT_SYSENV_VALUE_MAX);
		goto out;
	}
	if (ret) {
		if (is_refusal(ret))
			ret = 0;
		else
			sys_err(w->err, ret, "cannot read sysctl %s", w->key);
		goto out;
	}
	ret = collect_sysenv_add(w->env, w->key, w->buf, len, w->err);
out:
	w->key[at] = '\0';
	return ret;
}

/* Walk the directory open at dfd (taken over and closed here). */
static int walk_dir(struct walk *w, int dfd, int depth)
{
	struct dirent *de;
	DIR *d;
	int ret = 0;

	if (depth > SYSCTL_DEPTH_MAX) {
		close(dfd);
		return base_err_set(w->err, -ELOOP,
				    "sysctl %s is nested deeper than %d",
				    w->key, SYSCTL_DEPTH_MAX);
	}
	d = fdopendir(dfd);
	if (!d) {
		ret = -errno;
		close(dfd);
		return sys_err(w->err, ret, "cannot list sysctl %s", w->key);
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno) {
				ret = -errno;
				sys_err(w->err, ret, "cannot list sysctl %s",
					w->key);
			}
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		ret = walk_entry(w, dirfd(d), de, depth);
		if (ret)
			break;
	}
	closedir(d);
	return ret;
}

int collect_sysenv_add_sysctls(struct collect_sysenv *env, const char *root,
			       struct base_err *err)
{
	struct walk w = { .env = env, .root = root, .err = err };
	char path[PATH_MAX];
	size_t i, j;
	int fd, ret = 0;

	if (!env || !root)
		return base_err_set(err, -EINVAL, "no environment or root");
	w.buf = malloc(COLLECT_SYSENV_VALUE_MAX + 1);
	if (!w.buf)
		return base_err_set(err, -ENOMEM,
				    "cannot allocate the sysctl buffer");
	for (i = 0; i < ARRAY_SIZE(sysctl_roots); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, sysctl_roots[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY);
		if (fd < 0) {
			ret = -errno;
			if (ret == -ENOENT) {
				ret = 0;
				continue;
			}
			sys_err(err, ret, "cannot open %s", path);
			break;
		}
		/* "net/ipv4" -> "sysctl.net.ipv4" */
		j = (size_t)snprintf(w.key, sizeof(w.key), "sysctl.%s",
				     sysctl_roots[i]);
		while (j-- > 0)
			if (w.key[j] == '/')
				w.key[j] = '.';
		ret = walk_dir(&w, fd, 1);
		if (ret)
			break;
	}
	free(w.buf);
	return ret;
}

/* Interface attributes from one RTM_GETLINK request. */
struct link_info {
	bool has_mtu, has_txqlen, has_txq, has_rxq;
	bool has_gso_size, has_gso_segs, has_gro_size;
	uint32_t mtu, txqlen, txq, rxq, gso_size, gso_segs, gro_size;
	char qdisc[IFNAMSIZ + 16];
};

static bool rta_u32(const struct rtattr *a, uint32_t *v)
{
	if (RTA_PAYLOAD(a) < sizeof(*v))
		return false;
	memcpy(v, RTA_DATA(a), sizeof(*v));
	return true;
}

static void parse_link(const struct nlmsghdr *nh, struct link_info *li)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	const struct rtattr *a = IFLA_RTA(ifi);
	int len = (int)IFLA_PAYLOAD(nh);

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type) {
		case IFLA_MTU:
			li->has_mtu = rta_u32(a, &li->mtu);
			break;
		case IFLA_TXQLEN:
			li->has_txqlen = rta_u32(a, &li->txqlen);
			break;
		case IFLA_NUM_TX_QUEUES:
			li->has_txq = rta_u32(a, &li->txq);
			break;
		case IFLA_NUM_RX_QUEUES:
			li->has_rxq = rta_u32(a, &li->rxq);
			break;
		case IFLA_GSO_MAX_SIZE:
			li->has_gso_size = rta_u32(a, &li->gso_size);
			break;
		case IFLA_GSO_MAX_SEGS:
			li->has_gso_segs = rta_u32(a, &li->gso_segs);
			break;
		case IFLA_GRO_MAX_SIZE:
			li->has_gro_size = rta_u32(a, &li->gro_size);
			break;
		case IFLA_QDISC: {
			size_t n = strnlen(RTA_DATA(a), RTA_PAYLOAD(a));

			if (n < sizeof(li->qdisc)) {
				memcpy(li->qdisc, RTA_DATA(a), n);
				li->qdisc[n] = '\0';
			}
			break;
		}
		default:
			break;
		}
	}
}

/*
 * Ask rtnetlink for one link by index (RTM_GETLINK, no statistics). The
 * reply's IFLA_QDISC is the kind of the device's root qdisc, which is what
 * a RTM_GETQDISC dump would give for parent TC_H_ROOT, in one message.
 */
static int get_link(const char *ifname, unsigned int ifindex,
		    struct link_info *li, struct base_err *err)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		char attrs[RTA_SPACE(sizeof(uint32_t))];
	} req;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	struct rtattr *rta;
	uint32_t mask = RTEXT_FILTER_SKIP_STATS;
	char *buf = NULL, ebuf[64];
	int fd, ret = 0;
	ssize_t r;

	memset(li, 0, sizeof(*li));
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
	req.nh.nlmsg_type = RTM_GETLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = 1;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = (int)ifindex;
	rta = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	rta->rta_type = IFLA_EXT_MASK;
	rta->rta_len = RTA_LENGTH(sizeof(mask));
	memcpy(RTA_DATA(rta), &mask, sizeof(mask));
	req.nh.nlmsg_len = NLMSG_ALIGN(req.nh.nlmsg_len) + rta->rta_len;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		ret = -errno;
		base_err_set(err, ret, "%s: netlink socket: %s", ifname,
			     strerror_r(-ret, ebuf, sizeof(ebuf)));
		goto out;
	}
	buf = malloc(NL_BUF_BYTES);
	if (!buf) {
		ret = base_err_set(err, -ENOMEM, "%s: no memory for netlink",
				   ifname);
		goto out;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0) {
		ret = -errno;
		base_err_set(err, ret, "%s: RTM_GETLINK: %s", ifname,
			     strerror_r(-ret, ebuf, sizeof(ebuf)));
		goto out;
	}
	for (;;) {
		struct nlmsghdr *nh;
		int len;

		do
			r = recv(fd, buf, NL_BUF_BYTES, MSG_TRUNC);
		while (r < 0 && errno == EINTR);
		if (r < 0) {
			ret = -errno;
			base_err_set(err, ret, "%s: RTM_GETLINK reply: %s",
				     ifname,
				     strerror_r(-ret, ebuf, sizeof(ebuf)));
			goto out;
		}
		if (r > NL_BUF_BYTES) {
			ret = base_err_set(err, -EMSGSIZE,
					   "%s: RTM_GETLINK reply of %zd bytes is over %d",
					   ifname, r, NL_BUF_BYTES);
			goto out;
		}
		len = (int)r;
		for (nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, len);
		     nh = NLMSG_NEXT(nh, len)) {
			if (nh->nlmsg_seq != req.nh.nlmsg_seq)
				continue;
			if (nh->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					ret = -EBADMSG;
				else
					ret = e->error ? e->error : -EBADMSG;
				if (ret == -ENODEV)
					base_err_set(err, ret,
						     "interface '%s' not found",
						     ifname);
				else
					base_err_set(err, ret,
						     "%s: RTM_GETLINK: %s",
						     ifname,
						     strerror_r(-ret, ebuf,
								sizeof(ebuf)));
				goto out;
			}
			if (nh->nlmsg_type == RTM_NEWLINK &&
			    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(req.ifi))) {
				parse_link(nh, li);
				goto out;
			}
		}
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return ret;
}

static int ethtool(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, ifname, strlen(ifname));
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static bool is_unsupported(int ret)
{
	return ret == -EOPNOTSUPP || ret == -EINVAL || ret == -ENOTTY;
}

/* if.<name>.<what> = value (a C string). */
static int add_if_key(struct collect_sysenv *env, const char *ifname,
		      const char *what, const char *value, struct base_err *err)
{
	char key[COLLECT_SYSENV_KEY_MAX];
	int n;

	n = snprintf(key, sizeof(key), "if.%s.%s", ifname, what);
	if (n < 0 || (size_t)n >= sizeof(key))
		return base_err_set(err, -ENAMETOOLONG,
				    "%s: key for '%s' is over %zu bytes",
				    ifname, what, sizeof(key) - 1);
	return collect_sysenv_add(env, key, value, strlen(value), err);
}

static int add_if_u32(struct collect_sysenv *env, const char *ifname,
		      const char *what, bool has, uint32_t v,
		      struct base_err *err)
{
	char num[16];

	if (!has)
		return 0;
	snprintf(num, sizeof(num), "%u", v);
	return add_if_key(env, ifname, what, num, err);
}

static int add_driver(struct collect_sysenv *env, int fd, const char *ifname,
		      struct base_err *err)
{
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	char path[128], link[256], name[sizeof(drv.driver) + 1];
	const char *slash;
	ssize_t n;
	int ret;

	ret = ethtool(fd, ifname, &drv);
	if (!ret && drv.driver[0]) {
		size_t len = strnlen(drv.driver, sizeof(drv.driver));

		memcpy(name, drv.driver, len);
		name[len] = '\0';
		return add_if_key(env, ifname, "driver", name, err);
	}
	if (ret && !is_unsupported(ret))
		return base_err_set(err, ret, "%s: ETHTOOL_GDRVINFO failed",
				    ifname);
	snprintf(path, sizeof(path), "/sys/class/net/%s/device/driver", ifname);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return add_if_key(env, ifname, "driver", "none", err);
	link[n] = '\0';
	slash = strrchr(link, '/');
	return add_if_key(env, ifname, "driver", slash ? slash + 1 : link, err);
}

/* if.<name>.offload.<feature> from the ethtool features string set. */
static int add_features(struct collect_sysenv *env, int fd,
			const char *ifname, struct base_err *err)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} sset = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_FEATURES } };
	struct ethtool_gstrings *names = NULL;
	struct ethtool_gfeatures *feat = NULL;
	char what[sizeof("offload.") + ETH_GSTRING_LEN];
	uint32_t n, i, blocks;
	int ret;

	ret = ethtool(fd, ifname, &sset);
	if (ret && is_unsupported(ret))
		return 0;
	if (ret)
		return base_err_set(err, ret, "%s: ETHTOOL_GSSET_INFO failed",
				    ifname);
	if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_FEATURES)))
		return 0;
	n = sset.len;
	if (n > FEATURES_MAX)
		return base_err_set(err, -E2BIG,
				    "%s: %u offload features, over the limit of %d",
				    ifname, n, FEATURES_MAX);
	blocks = (n + 31) / 32;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	feat = calloc(1, sizeof(*feat) + blocks * sizeof(feat->features[0]));
	if (!names || !feat) {
		ret = base_err_set(err, -ENOMEM, "%s: no memory for features",
				   ifname);
		goto out;
	}
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_FEATURES;
	names->len = n;
	feat->cmd = ETHTOOL_GFEATURES;
	feat->size = blocks;
	ret = ethtool(fd, ifname, names);
	if (!ret)
		ret = ethtool(fd, ifname, feat);
	if (ret) {
		base_err_set(err, ret, "%s: reading offload features failed",
			     ifname);
		goto out;
	}
	for (i = 0; i < n && i < names->len; i++) {
		const char *s = (const char *)names->data +
				(size_t)i * ETH_GSTRING_LEN;
		size_t len = strnlen(s, ETH_GSTRING_LEN);
		bool on = feat->features[i / 32].active & (1u << (i % 32));

		if (!len)
			continue;
		memcpy(what, "offload.", 8);
		memcpy(what + 8, s, len);
		what[8 + len] = '\0';
		ret = add_if_key(env, ifname, what, on ? "on" : "off", err);
		if (ret)
			goto out;
	}
out:
	free(names);
	free(feat);
	return ret;
}

int collect_sysenv_add_if(struct collect_sysenv *env, const char *ifname,
			  struct base_err *err)
{
	struct link_info li;
	unsigned int ifindex;
	size_t len, i;
	int fd = -1, ret;

	if (!env || !ifname)
		return base_err_set(err, -EINVAL,
				    "no environment or interface");
	len = strnlen(ifname, IFNAMSIZ);
	if (len == 0 || len >= IFNAMSIZ || !strcmp(ifname, ".") ||
	    !strcmp(ifname, ".."))
		return base_err_set(err, -EINVAL,
				    "invalid interface name '%.*s'", (int)len,
				    ifname);
	for (i = 0; i < len; i++)
		if (ifname[i] == '/' || (unsigned char)ifname[i] <= 0x20 ||
		    (unsigned char)ifname[i] >= 0x7f)
			return base_err_set(err, -EINVAL,
					    "invalid interface name '%s'",
					    ifname);
	ifindex = if_nametoindex(ifname);
	if (!ifindex)
		return base_err_set(err, -ENODEV, "interface '%s' not found",
				    ifname);
	ret = get_link(ifname, ifindex, &li, err);
	if (ret)
		return ret;
	if ((ret = add_if_u32(env, ifname, "mtu", li.has_mtu, li.mtu, err)) ||
	    (ret = add_if_u32(env, ifname, "txqlen", li.has_txqlen, li.txqlen,
			      err)) ||
	    (ret = add_if_key(env, ifname, "qdisc",
			      li.qdisc[0] ? li.qdisc : "unknown", err)) ||
	    (ret = add_if_u32(env, ifname, "tx_queues", li.has_txq, li.txq,
			      err)) ||
	    (ret = add_if_u32(env, ifname, "rx_queues", li.has_rxq, li.rxq,
			      err)) ||
	    (ret = add_if_u32(env, ifname, "gso_max_size", li.has_gso_size,
			      li.gso_size, err)) ||
	    (ret = add_if_u32(env, ifname, "gso_max_segs", li.has_gso_segs,
			      li.gso_segs, err)) ||
	    (ret = add_if_u32(env, ifname, "gro_max_size", li.has_gro_size,
			      li.gro_size, err)))
		return ret;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return base_err_set(err, -errno, "%s: no socket for ethtool",
				    ifname);
	ret = add_driver(env, fd, ifname, err);
	if (!ret)
		ret = add_features(env, fd, ifname, err);
	close(fd);
	return ret;
}

/* Value of "key<blanks>: value" in the first CPU block of /proc/cpuinfo. */
static bool cpuinfo_value(const char *text, size_t len, const char *key,
			  const char **v, size_t *vlen)
{
	const char *p = text, *end = text + len;
	size_t klen = strlen(key);

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end, *ke, *colon;

		if (le == p) /* a blank line ends the first CPU's block */
			return false;
		colon = memchr(p, ':', (size_t)(le - p));
		if (colon) {
			ke = colon;
			while (ke > p && (ke[-1] == ' ' || ke[-1] == '\t'))
				ke--;
			if ((size_t)(ke - p) == klen && !memcmp(p, key, klen)) {
				*v = colon + 1;
				*vlen = (size_t)(le - *v);
				return true;
			}
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	return false;
}

static int add_cpuinfo(struct collect_sysenv *env, struct base_err *err)
{
	char model[256], *buf;
	const char *v;
	size_t len = 0, vlen;
	bool more;
	int ret = 0;

	buf = malloc(CPUINFO_PREFIX_BYTES);
	if (!buf)
		return base_err_set(err, -ENOMEM,
				    "no memory for /proc/cpuinfo");
	/* The first CPU's block is all we need: a prefix, and only its
	 * complete lines; an unreadable file gives no model. */
	base_read_path("/proc/cpuinfo", buf, CPUINFO_PREFIX_BYTES, &len, &more);
	if (len == CPUINFO_PREFIX_BYTES)
		while (len > 0 && buf[len - 1] != '\n')
			len--;
	ret = collect_cpuinfo_model(buf, len, model, sizeof(model));
	if (ret) {
		base_err_set(err, ret,
			     "/proc/cpuinfo: cpu model is over %zu bytes",
			     sizeof(model) - 1);
		goto out;
	}
	ret = collect_sysenv_add(env, "cpu.model", model, strlen(model), err);
	if (!ret && cpuinfo_value(buf, len, "microcode", &v, &vlen))
		ret = collect_sysenv_add(env, "cpu.microcode", v, vlen, err);
	/* a guest's model name can hide the generation; these tell it */
	if (!ret && cpuinfo_value(buf, len, "cpu family", &v, &vlen))
		ret = collect_sysenv_add(env, "cpu.family", v, vlen, err);
	if (!ret && cpuinfo_value(buf, len, "model", &v, &vlen))
		ret = collect_sysenv_add(env, "cpu.model_id", v, vlen, err);
	if (!ret && cpuinfo_value(buf, len, "flags", &v, &vlen)) {
		char flags[64];

		ret = collect_cpu_copy_flags(v, vlen, flags, sizeof(flags));
		if (ret)
			base_err_set(err, ret, "/proc/cpuinfo: copy flags over %zu bytes",
				     sizeof(flags) - 1);
		else
			ret = collect_sysenv_add(env, "cpu.copy_flags", flags,
						 strlen(flags), err);
	}
out:
	free(buf);
	return ret;
}


/* One-value files under /sys: key, path from there. */
static const char *const cpu_files[][2] = {
	{ "cpuidle.driver", "devices/system/cpu/cpuidle/current_driver" },
	{ "cpuidle.governor", "devices/system/cpu/cpuidle/current_governor" },
	{ "cpuidle.haltpoll.guest_halt_poll_ns",
	  "module/haltpoll/parameters/guest_halt_poll_ns" },
	{ "mm.thp.enabled", "kernel/mm/transparent_hugepage/enabled" },
};

/* The whole of a small file at path with its trailing blanks cut: 0 and
 * buf (COLLECT_SYSENV_VALUE_MAX + 1) holding a string, or a negative
 * errno. */
static int read_line(const char *path, char *buf)
{
	size_t len;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read_fd(fd, buf, COLLECT_SYSENV_VALUE_MAX, &len);
	if (ret)
		return ret;
	while (len && is_ws((unsigned char)buf[len - 1]))
		len--;
	buf[len] = '\0';
	return 0;
}

/* cpuidle.states: cpu0's idle states in order, "POLL, C1, C6 (disabled)";
 * left out when it has none. */
static int add_idle_states(struct collect_sysenv *env, const char *sys,
			   char *buf, struct base_err *err)
{
	char path[PATH_MAX], list[COLLECT_SYSENV_VALUE_MAX + 1];
	size_t used = 0;

	list[0] = '\0';
	for (int i = 0; i < COLLECT_IDLE_STATES_MAX; i++) {
		bool off;
		int n;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%d/name",
			 sys, i);
		if (read_line(path, buf))
			break;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu0/cpuidle/state%d/disable",
			 sys, i);
		n = snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "", buf);
		if (n < 0 || (size_t)n >= sizeof(list) - used)
			break;
		used += (size_t)n;
		off = !read_line(path, buf) && strcmp(buf, "0");
		if (off) {
			n = snprintf(list + used, sizeof(list) - used, " (disabled)");
			if (n < 0 || (size_t)n >= sizeof(list) - used)
				break;
			used += (size_t)n;
		}
	}
	return used ? collect_sysenv_add(env, "cpuidle.states", list, used, err) : 0;
}

/* cpu.vuln.<name> for every file of the vulnerabilities directory whose
 * name is a plain word. */
static int add_vulns(struct collect_sysenv *env, const char *sys, char *buf,
		     struct base_err *err)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], key[COLLECT_SYSENV_KEY_MAX];
	struct dirent *de;
	DIR *d;
	int ret = 0;

	snprintf(dir, sizeof(dir), "%s/devices/system/cpu/vulnerabilities", sys);
	d = opendir(dir);
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		const char *c = de->d_name;

		if (*c == '.' || strlen(c) > 64 ||
		    strspn(c, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(c))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, c);
		snprintf(key, sizeof(key), "cpu.vuln.%s", c);
		ret = add_file(env, key, path, buf, err);
	}
	closedir(d);
	return ret;
}

/*
 * cpuidle.latency_req_us: the CPU latency QoS request in force (reading
 * /dev/cpu_dma_latency gives the lowest of every holder's, as a binary
 * int32), "no limit" when nobody holds one (the kernel's default, 2000 s).
 * A tuned profile, a cyclictest or netregress --cpu-latency holding it
 * keeps idle CPUs out of their deeper states. Left out without root.
 */
static int add_cpu_latency(struct collect_sysenv *env, struct base_err *err)
{
	char v[16];
	int32_t req;
	ssize_t n;
	int fd;

	fd = open("/dev/cpu_dma_latency", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return is_refusal(-errno) ? 0 : sys_err(err, -errno,
							 "cannot open /dev/cpu_dma_latency");
	n = read(fd, &req, sizeof(req));
	close(fd);
	if (n != (ssize_t)sizeof(req) || req < 0)
		return 0;
	if (req >= 2000000000)
		snprintf(v, sizeof(v), "no limit");
	else
		snprintf(v, sizeof(v), "%" PRId32, req);
	return collect_sysenv_add(env, "cpuidle.latency_req_us", v, strlen(v), err);
}

int collect_sysenv_add_cpu(struct collect_sysenv *env, const char *sys,
			   struct base_err *err)
{
	char path[PATH_MAX], *buf;
	int ret = 0;

	if (!env || !sys)
		return base_err_set(err, -EINVAL, "no environment or /sys root");
	buf = malloc(COLLECT_SYSENV_VALUE_MAX + 1);
	if (!buf)
		return base_err_set(err, -ENOMEM, "no memory for the environment");
	for (size_t i = 0; !ret && i < ARRAY_SIZE(cpu_files); i++) {
		snprintf(path, sizeof(path), "%s/%s", sys, cpu_files[i][1]);
		ret = add_file(env, cpu_files[i][0], path, buf, err);
	}
	if (!ret)
		ret = add_idle_states(env, sys, buf, err);
	if (!ret)
		ret = add_vulns(env, sys, buf, err);
	free(buf);
	return ret;
}

/* One-value files: key, path. */
static const char *const simple_files[][2] = {
	{ "cmdline", "/proc/cmdline" },
	{ "cpu.online", "/sys/devices/system/cpu/online" },
	{ "cpu.smt", "/sys/devices/system/cpu/smt/control" },
	{ "cpu.smt.active", "/sys/devices/system/cpu/smt/active" },
	{ "numa.possible", "/sys/devices/system/node/possible" },
	{ "numa.online", "/sys/devices/system/node/online" },
	{ "cpufreq.governor",
	  "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor" },
};

int collect_sysenv_read(struct collect_sysenv *env, const char *const *ifnames,
			size_t nif, struct base_err *err)
{
	struct utsname u;
	char *buf = NULL;
	size_t i;
	int ret;

	if (!env || (!ifnames && nif))
		return base_err_set(err, -EINVAL,
				    "no environment or interfaces");
	collect_sysenv_clear(env);
	if (uname(&u) < 0)
		return base_err_set(err, -errno, "uname failed");
	ret = collect_sysenv_add(env, "kernel.release", u.release,
				 strlen(u.release), err);
	if (!ret)
		ret = collect_sysenv_add(env, "kernel.version", u.version,
					 strlen(u.version), err);
	if (ret)
		return ret;
	buf = malloc(COLLECT_SYSENV_VALUE_MAX + 1);
	if (!buf)
		return base_err_set(err, -ENOMEM,
				    "no memory for the environment");
	for (i = 0; i < ARRAY_SIZE(simple_files); i++) {
		ret = add_file(env, simple_files[i][0], simple_files[i][1], buf,
			       err);
		if (ret)
			goto out;
	}
	ret = add_cpuinfo(env, err);
	if (ret)
		goto out;
	ret = collect_sysenv_add_cpu(env, "/sys", err);
	if (!ret)
		ret = add_cpu_latency(env, err);
	if (ret)
		goto out;
	ret = collect_sysenv_add_sysctls(env, "/proc/sys", err);
	if (ret)
		goto out;
	for (i = 0; i < nif; i++) {
		ret = collect_sysenv_add_if(env, ifnames[i], err);
		if (ret)
			goto out;
	}
	collect_sysenv_sort(env);
out:
	free(buf);
	return ret;
}

bool collect_sysenv_in_fingerprint(const char *key)
{
	size_t i;

	if (!key)
		return false;
	if (in_list(key, fingerprint_keys, ARRAY_SIZE(fingerprint_keys)))
		return true;
	if (in_list(key, volatile_sysctls, ARRAY_SIZE(volatile_sysctls)))
		return false;
	for (i = 0; i < ARRAY_SIZE(fingerprint_prefixes); i++)
		if (!strncmp(key, fingerprint_prefixes[i],
			     strlen(fingerprint_prefixes[i])))
			return true;
	return false;
}

static int cmp_entry_ptr(const void *a, const void *b)
{
	const struct collect_sysenv_entry *const *x = a, *const *y = b;

	return strcmp((*x)->key, (*y)->key);
}

static uint64_t fnv1a(uint64_t h, const char *s)
{
	/* the terminating NUL is hashed too: it separates the fields */
	do {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	} while (*s++);
	return h;
}

int collect_sysenv_fingerprint(const struct collect_sysenv *env, char out[17])
{
	const struct collect_sysenv_entry **sel;
	uint64_t h = 14695981039346656037ULL;
	size_t i, n = 0;

	if (!env || !out)
		return -EINVAL;
	sel = malloc((env->n ? env->n : 1) * sizeof(*sel));
	if (!sel)
		return -ENOMEM;
	for (i = 0; i < env->n; i++)
		if (collect_sysenv_in_fingerprint(env->entries[i].key))
			sel[n++] = &env->entries[i];
	qsort(sel, n, sizeof(*sel), cmp_entry_ptr);
	for (i = 0; i < n; i++) {
		h = fnv1a(h, sel[i]->key);
		h = fnv1a(h, sel[i]->value);
	}
	free(sel);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
	return 0;
}
