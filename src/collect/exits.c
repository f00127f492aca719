// SPDX-License-Identifier: GPL-2.0-only
/* The tasks that end during a window, from taskstats exit records; see exits.h. */
#include "collect/exits.h"

#include <errno.h>
#include <poll.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"

#define KTHREADD_PID 2
#define POSSIBLE "/sys/devices/system/cpu/possible"
/* ac_tgid came with version 12 */
#define STATS_MIN_LEN (offsetof(struct taskstats, ac_tgid) + sizeof(__u32))
#define ACK_SEQ 1u
#define REQ_MAX 256

struct collect_exits {
	int fd;
	uint16_t family;
	char mask[REQ_MAX / 2]; /* the CPUs registered, as the kernel lists them */
	struct collect_exit *r;
	size_t n, cap;
	bool lost;
};

struct collect_exits *collect_exits_new(void)
{
	struct collect_exits *x = calloc(1, sizeof(*x));

	if (x)
		x->fd = -1;
	return x;
}

int collect_exits_open(struct collect_exits **out, struct base_err *err)
{
	struct collect_exits *x = collect_exits_new();
	int ret;

	*out = NULL;
	if (!x)
		return base_err_set(err, -ENOMEM, "out of memory");
	if ((ret = collect_exits_listen(x, err))) {
		collect_exits_free(x);
		return ret;
	}
	*out = x;
	return 0;
}

/* One generic netlink request with one attribute; 0 or a negative errno. */
static int request(int fd, uint16_t type, uint16_t flags, uint8_t cmd, uint16_t attr,
		   const void *val, size_t len, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct genlmsghdr gh;
		char attrs[REQ_MAX];
	} req;
	struct nlattr *a = (struct nlattr *)req.attrs;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (NLA_HDRLEN + len > sizeof(req.attrs))
		return -EMSGSIZE;
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_type = type;
	req.nh.nlmsg_flags = NLM_F_REQUEST | flags;
	req.nh.nlmsg_seq = seq;
	req.gh.cmd = cmd;
	req.gh.version = 1;
	a->nla_type = attr;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(req.attrs + NLA_HDRLEN, val, len);
	req.nh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(a->nla_len);
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* The first attribute of type in [p, p + len), or NULL. */
static const struct nlattr *find_attr(const char *p, size_t len, uint16_t type)
{
	while (len >= NLA_HDRLEN) {
		const struct nlattr *a = (const struct nlattr *)p;
		size_t step = NLA_ALIGN(a->nla_len);

		if (a->nla_len < NLA_HDRLEN || a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		if (step >= len)
			break;
		p += step;
		len -= step;
	}
	return NULL;
}

/* One datagram into buf: its length or a negative errno. A full socket
 * buffer (the kernel dropped records) is noted and read past. */
static ssize_t receive(struct collect_exits *x, void *buf, size_t len, int flags)
{
	for (;;) {
		ssize_t got = recv(x->fd, buf, len, flags);

		if (got >= 0)
			return got;
		if (errno == ENOBUFS)
			x->lost = true;
		else if (errno != EINTR)
			return -errno;
	}
}

/*
 * Wait for the kernel's answer to request seq: the family id when asked
 * for one (into *family), else its acknowledgement. Exit records, which
 * carry their own sequence numbers, are kept whatever theirs. 0 or the
 * negative errno it answered.
 */
static int answer(struct collect_exits *x, uint32_t seq, uint16_t *family)
{
	_Alignas(struct nlmsghdr) char buf[16384];

	for (;;) {
		ssize_t got = receive(x, buf, sizeof(buf), 0);

		if (got < 0)
			return (int)got;
		for (struct nlmsghdr *nh = (struct nlmsghdr *)buf; NLMSG_OK(nh, got);
		     nh = NLMSG_NEXT(nh, got)) {
			const struct nlattr *a;

			if (nh->nlmsg_type == NLMSG_ERROR && nh->nlmsg_seq == seq) {
				const struct nlmsgerr *e = NLMSG_DATA(nh);

				if (nh->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				if (e->error || !family)
					return e->error;
			} else if (nh->nlmsg_type == GENL_ID_CTRL && family) {
				if (nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
					return -EPROTO;
				a = find_attr((char *)NLMSG_DATA(nh) + GENL_HDRLEN,
					      nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
					      CTRL_ATTR_FAMILY_ID);
				if (!a || a->nla_len < NLA_HDRLEN + sizeof(*family))
					return -EPROTO;
				memcpy(family, (const char *)a + NLA_HDRLEN, sizeof(*family));
				return 0;
			} else {
				collect_exits_parse(x, nh, nh->nlmsg_len);
			}
		}
	}
}

/*
 * Whether the records reach this listener, and name tasks as this
 * process sees them: the kernel sends them to the listener's port in the
 * first network namespace, with the ids of the first PID namespace, so
 * from another one registering succeeds and nothing (or no id of ours)
 * comes. A child that ends at once must be seen: its record is queued
 * before its parent learns of the exit. 0, -EXDEV when it was not, or a
 * negative errno from fork() or the socket.
 */
static int see_a_child_end(struct collect_exits *x)
{
	struct pollfd pfd = { .fd = x->fd, .events = POLLIN };
	size_t from = x->n;
	pid_t child = fork();

	if (child < 0)
		return -errno;
	if (!child)
		_exit(0);
	/* a SIGCHLD handler of the caller's may reap it first: ECHILD */
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	for (int tries = 0; tries < 3; tries++) {
		struct base_err err;
		int ret = collect_exits_drain(x, &err);

		if (ret)
			return ret;
		for (size_t i = from; i < x->n; i++)
			if (x->r[i].tid == child)
				return 0;
		poll(&pfd, 1, 50);
	}
	return -EXDEV;
}

int collect_exits_listen(struct collect_exits *x, struct base_err *err)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int size = COLLECT_EXITS_RCVBUF, ret;
	size_t len;
	bool more;

	if (x->fd >= 0)
		return 0;
	ret = base_read_path(POSSIBLE, x->mask, sizeof(x->mask) - 1, &len, &more);
	if (ret || more)
		return base_err_set(err, ret ? ret : -E2BIG, "%s: %s", POSSIBLE,
				    ret ? strerror(-ret) : "longer than expected");
	x->mask[len] = '\0';
	len = strcspn(x->mask, "\n");
	x->mask[len] = '\0';
	x->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (x->fd < 0)
		return base_err_set(err, -errno, "taskstats: netlink socket: %s", strerror(errno));
	/* past rmem_max when root may (the listener needs root anyway) */
	if (setsockopt(x->fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(x->fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	/* the kernel answers at once; a bound on a wait that cannot end */
	setsockopt(x->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(x->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = base_err_set(err, -errno, "taskstats: bind: %s", strerror(errno));
		goto fail;
	}
	ret = request(x->fd, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		      TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME), ACK_SEQ);
	if (!ret)
		ret = answer(x, ACK_SEQ, &x->family);
	if (ret) {
		ret = base_err_set(err, ret == -ENOENT ? -ENOENT : ret,
				   "taskstats: the kernel has no %s family: %s",
				   TASKSTATS_GENL_NAME, strerror(-ret));
		goto fail;
	}
	ret = request(x->fd, x->family, NLM_F_ACK, TASKSTATS_CMD_GET,
		      TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
		      x->mask, len + 1, ACK_SEQ + 1);
	if (!ret)
		ret = answer(x, ACK_SEQ + 1, NULL);
	if (ret) {
		ret = base_err_set(err, ret, "taskstats: registering for the exits on cpus %s: %s",
				   x->mask, strerror(-ret));
		goto fail;
	}
	ret = see_a_child_end(x);
	if (ret) {
		ret = base_err_set(err, ret, "taskstats: %s",
				   ret == -EXDEV ? "no exit record reaches this listener (the kernel sends them to the first network and PID namespace only)" :
				   strerror(-ret));
		goto fail;
	}
	return 0;
fail:
	close(x->fd);
	x->fd = -1;
	return ret;
}

void collect_exits_free(struct collect_exits *x)
{
	if (!x)
		return;
	if (x->fd >= 0) {
		/* the kernel also drops a listener whose socket is gone, but
		 * only when a send to it fails */
		request(x->fd, x->family, 0, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
			x->mask, strlen(x->mask) + 1, ACK_SEQ + 2);
		close(x->fd);
	}
	free(x->r);
	free(x);
}

/* The ticks' figure within a tick above sum_exec_runtime (see exits.h);
 * the ticks' alone from a kernel that leaves sum_exec_runtime out. */
static uint64_t run_estimate(uint64_t exec_ns, uint64_t tick_ns)
{
	if (!exec_ns || tick_ns < exec_ns)
		return exec_ns ? exec_ns : tick_ns;
	return tick_ns - exec_ns > COLLECT_EXITS_TICK_NS ? exec_ns + COLLECT_EXITS_TICK_NS : tick_ns;
}

/* One thread's record out of a TASKSTATS_TYPE_AGGR_PID's nest. */
static bool thread_record(const struct nlattr *nest, struct collect_exit *out)
{
	const char *p = (const char *)nest + NLA_HDRLEN;
	size_t len = nest->nla_len - NLA_HDRLEN;
	const struct nlattr *pid = find_attr(p, len, TASKSTATS_TYPE_PID);
	const struct nlattr *st = find_attr(p, len, TASKSTATS_TYPE_STATS);
	struct taskstats ts;
	size_t n;

	if (!pid || !st || pid->nla_len < NLA_HDRLEN + sizeof(__u32) ||
	    st->nla_len < NLA_HDRLEN + STATS_MIN_LEN)
		return false;
	n = st->nla_len - NLA_HDRLEN;
	memset(&ts, 0, sizeof(ts));
	memcpy(&ts, (const char *)st + NLA_HDRLEN, n < sizeof(ts) ? n : sizeof(ts));
	memset(out, 0, sizeof(*out));
	memcpy(&out->tid, (const char *)pid + NLA_HDRLEN, sizeof(__u32));
	out->tgid = (pid_t)ts.ac_tgid;
	out->kthread = ts.ac_ppid == KTHREADD_PID || out->tgid == KTHREADD_PID;
	out->start_s = ts.ac_btime64 ? ts.ac_btime64 : ts.ac_btime;
	out->run_ns = run_estimate(ts.cpu_run_virtual_total, (ts.ac_utime + ts.ac_stime) * 1000);
	snprintf(out->comm, sizeof(out->comm), "%.*s", (int)strnlen(ts.ac_comm, sizeof(ts.ac_comm)),
		 ts.ac_comm);
	return out->tid > 0 && out->tgid > 0;
}

static bool keep(struct collect_exits *x, const struct collect_exit *e)
{
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 256;
		struct collect_exit *r;

		if (x->n >= COLLECT_EXITS_MAX || !(r = realloc(x->r, cap * sizeof(*r)))) {
			x->lost = true;
			return false;
		}
		x->r = r;
		x->cap = cap;
	}
	x->r[x->n++] = *e;
	return true;
}

size_t collect_exits_parse(struct collect_exits *x, const void *buf, size_t len)
{
	const char *m = buf;
	size_t kept = 0;

	/* bounds kept by hand: NLMSG_NEXT's length would wrap below zero on
	 * a message whose aligned length runs past the datagram */
	while (len >= NLMSG_HDRLEN) {
		const struct nlmsghdr *nh = (const struct nlmsghdr *)m;
		size_t mstep = NLMSG_ALIGN(nh->nlmsg_len), left;
		const char *p = m + NLMSG_LENGTH(GENL_HDRLEN);

		if (nh->nlmsg_len < NLMSG_HDRLEN || nh->nlmsg_len > len)
			break;
		/* the family's records (any above the control messages while
		 * it is not known: records a test made) */
		if ((x->family ? nh->nlmsg_type != x->family : nh->nlmsg_type < NLMSG_MIN_TYPE) ||
		    nh->nlmsg_type == GENL_ID_CTRL || nh->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
			left = 0;
		else
			left = nh->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
		/* a thread's record, then its group's totals when the group ended */
		while (left >= NLA_HDRLEN) {
			const struct nlattr *a = (const struct nlattr *)p;
			struct collect_exit e;
			size_t step = NLA_ALIGN(a->nla_len);

			if (a->nla_len < NLA_HDRLEN || a->nla_len > left)
				break;
			if ((a->nla_type & NLA_TYPE_MASK) == TASKSTATS_TYPE_AGGR_PID &&
			    thread_record(a, &e) && keep(x, &e))
				kept++;
			if (step >= left)
				break;
			p += step;
			left -= step;
		}
		if (mstep >= len)
			break;
		m += mstep;
		len -= mstep;
	}
	return kept;
}

int collect_exits_drain(struct collect_exits *x, struct base_err *err)
{
	_Alignas(struct nlmsghdr) char buf[16384];

	if (x->fd < 0)
		return base_err_set(err, -EBADF, "taskstats: not listening");
	for (;;) {
		ssize_t got = receive(x, buf, sizeof(buf), MSG_DONTWAIT);

		if (got == -EAGAIN || got == -EWOULDBLOCK)
			return 0;
		if (got < 0)
			return base_err_set(err, (int)got, "taskstats: %s", strerror((int)-got));
		collect_exits_parse(x, buf, (size_t)got);
	}
}

static int by_ids(const void *x, const void *y)
{
	const struct collect_exit *a = x, *b = y;

	if (a->tgid != b->tgid)
		return a->tgid < b->tgid ? -1 : 1;
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

void collect_exits_sort(struct collect_exits *x)
{
	if (x->n)
		qsort(x->r, x->n, sizeof(*x->r), by_ids);
}

void collect_exits_clear(struct collect_exits *x)
{
	x->n = 0;
	x->lost = false;
}

const struct collect_exit *collect_exits_records(const struct collect_exits *x, size_t *n)
{
	*n = x->n;
	return x->r;
}

bool collect_exits_lost(const struct collect_exits *x)
{
	return x->lost;
}
