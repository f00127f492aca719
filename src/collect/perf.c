// SPDX-License-Identifier: GPL-2.0-only
/* perf_event_open counters with multiplex scaling; see perf.h. */
#include "collect/perf.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/time.h"

/* read_format TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING without GROUP/ID */
#define READ_WORDS 3

/* ---- the real system calls ---- */

static int sys_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		    int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static ssize_t sys_read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do
		n = read(fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

static int sys_close(int fd)
{
	return close(fd) ? -errno : 0;
}

static int sys_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg) ? -errno : 0;
}

static void *sys_mmap(size_t len, int fd, int *errnum)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		*errnum = -errno;
	return p;
}

static int sys_munmap(void *addr, size_t len)
{
	return munmap(addr, len) ? -errno : 0;
}

const struct collect_perf_ops collect_perf_sys_ops = {
	.open = sys_open,
	.read = sys_read,
	.close = sys_close,
	.ioctl = sys_ioctl,
	.mmap = sys_mmap,
	.munmap = sys_munmap,
};

/* ---- events ---- */

struct event_def {
	uint32_t type;
	uint64_t config;
	const char *name;
};

static const struct event_def event_defs[COLLECT_PERF_NEVENTS] = {
	[COLLECT_PERF_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
				  "cycles" },
	[COLLECT_PERF_INSTRUCTIONS] = { PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_INSTRUCTIONS,
					"instructions" },
	[COLLECT_PERF_CACHE_REFERENCES] = { PERF_TYPE_HARDWARE,
					    PERF_COUNT_HW_CACHE_REFERENCES,
					    "cache_references" },
	[COLLECT_PERF_CACHE_MISSES] = { PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_CACHE_MISSES,
					"cache_misses" },
	[COLLECT_PERF_BRANCH_MISSES] = { PERF_TYPE_HARDWARE,
					 PERF_COUNT_HW_BRANCH_MISSES,
					 "branch_misses" },
	/* config and name depend on the scope: see event_def_of() */
	[COLLECT_PERF_CLOCK] = { PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
				 "task_clock_ns" },
	[COLLECT_PERF_CONTEXT_SWITCHES] = { PERF_TYPE_SOFTWARE,
					    PERF_COUNT_SW_CONTEXT_SWITCHES,
					    "context_switches" },
	[COLLECT_PERF_CPU_MIGRATIONS] = { PERF_TYPE_SOFTWARE,
					  PERF_COUNT_SW_CPU_MIGRATIONS,
					  "cpu_migrations" },
	[COLLECT_PERF_PAGE_FAULTS] = { PERF_TYPE_SOFTWARE,
				       PERF_COUNT_SW_PAGE_FAULTS,
				       "page_faults" },
};

static const struct event_def cpu_clock_def = {
	PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, "cpu_clock_ns"
};

static const struct event_def *event_def_of(enum collect_perf_scope scope,
					    int e)
{
	if (e == COLLECT_PERF_CLOCK && scope == COLLECT_PERF_CPUS)
		return &cpu_clock_def;
	return &event_defs[e];
}

/* One read(): value, time_enabled, time_running. */
struct snap {
	uint64_t v[READ_WORDS];
};

struct perf_ev {
	bool supported;
	bool user_only;
	int errnum;
	char reason[96];
	int *fd;          /* nfd entries, -1 when closed */
	struct snap *a, *b; /* nfd snapshots at start and stop */
};

enum { ST_OPEN, ST_STARTED, ST_STOPPED };

struct collect_perf {
	const struct collect_perf_ops *ops;
	enum collect_perf_scope scope;
	int nfd; /* CPUs, or 1 for the process */
	int state;
	int64_t start_ns, stop_ns;
	struct collect_pause_clock pause;
	struct perf_ev ev[COLLECT_PERF_NEVENTS];
	int *cpu; /* nfd CPUs, or one -1 */
};

void collect_perf_strerror(int errnum, char *buf, size_t len)
{
	const char *s;

	if (!len)
		return;
	switch (-errnum) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		s = "not supported by this machine";
		break;
	case EACCES:
	case EPERM:
		s = "perf_event_paranoid forbids it";
		break;
	case ENOSYS:
		s = "perf_event_open is not in this kernel";
		break;
	case EMFILE:
	case ENFILE:
		s = "too many open files";
		break;
	case EBUSY:
		s = "busy: used by another tool";
		break;
	case EINVAL:
		s = "rejected by the kernel: invalid argument";
		break;
	default:
		snprintf(buf, len, "perf_event_open failed: %s",
			 strerrordesc_np(-errnum) ? strerrordesc_np(-errnum) :
						    "unknown error");
		return;
	}
	snprintf(buf, len, "%s", s);
}

static void set_unsupported(struct perf_ev *ev, int errnum)
{
	ev->supported = false;
	ev->errnum = errnum;
	collect_perf_strerror(errnum, ev->reason, sizeof(ev->reason));
}

static void close_event(const struct collect_perf *p, struct perf_ev *ev)
{
	for (int i = 0; i < p->nfd; i++) {
		if (ev->fd[i] >= 0)
			p->ops->close(ev->fd[i]);
		ev->fd[i] = -1;
	}
}

/*
 * Open event e on every fd slot. Returns 0 (supported or recorded as
 * unsupported) or -ENODEV when a software event cannot be opened on a
 * listed CPU because the CPU is not there.
 */
static int open_event(struct collect_perf *p, int e, struct base_err *err)
{
	const struct event_def *def = event_def_of(p->scope, e);
	struct perf_ev *ev = &p->ev[e];
	struct perf_event_attr attr;
	pid_t pid = p->scope == COLLECT_PERF_PROCESS ? 0 : -1;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = def->type;
	attr.config = def->config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.inherit = p->scope == COLLECT_PERF_PROCESS;

	ev->supported = true;
	for (int i = 0; i < p->nfd; i++) {
		int fd = p->ops->open(&attr, pid, p->cpu[i], -1,
				      PERF_FLAG_FD_CLOEXEC);

		/*
		 * Like perf stat, count user space alone when paranoid
		 * forbids kernel mode for this process.
		 */
		if ((fd == -EACCES || fd == -EPERM) &&
		    p->scope == COLLECT_PERF_PROCESS && !attr.exclude_kernel) {
			attr.exclude_kernel = 1;
			attr.exclude_hv = 1;
			fd = p->ops->open(&attr, pid, p->cpu[i], -1,
					  PERF_FLAG_FD_CLOEXEC);
			if (fd >= 0)
				ev->user_only = true;
		}
		if (fd >= 0) {
			ev->fd[i] = fd;
			continue;
		}
		close_event(p, ev);
		ev->user_only = false;
		if (def->type == PERF_TYPE_SOFTWARE &&
		    p->scope == COLLECT_PERF_CPUS &&
		    (fd == -ENODEV || fd == -EINVAL))
			return base_err_set(err, -ENODEV,
					    "cpu %d: offline or absent",
					    p->cpu[i]);
		set_unsupported(ev, fd);
		return 0;
	}
	return 0;
}

void collect_perf_free(struct collect_perf *p)
{
	if (!p)
		return;
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		if (p->ev[e].fd)
			close_event(p, &p->ev[e]);
		free(p->ev[e].fd);
		free(p->ev[e].a);
		free(p->ev[e].b);
	}
	free(p->cpu);
	free(p);
}

int collect_perf_open(struct collect_perf **out,
		      const struct collect_perf_opts *opts,
		      struct base_err *err)
{
	struct collect_perf *p = NULL;
	int ret = -ENOMEM;

	if (!out || !opts)
		return base_err_set(err, -EINVAL, "perf: missing options");
	*out = NULL;
	if (opts->scope != COLLECT_PERF_PROCESS &&
	    opts->scope != COLLECT_PERF_CPUS)
		return base_err_set(err, -EINVAL, "perf: invalid scope %d",
				    (int)opts->scope);
	if (opts->scope == COLLECT_PERF_CPUS &&
	    (!opts->cpus || !opts->cpus->n || opts->cpus->n > BASE_CPU_MAX))
		return base_err_set(err, -EINVAL,
				    "perf: per-cpu counters need a cpu list");

	p = calloc(1, sizeof(*p));
	if (!p)
		goto nomem;
	p->ops = opts->ops ? opts->ops : &collect_perf_sys_ops;
	p->scope = opts->scope;
	p->nfd = p->scope == COLLECT_PERF_CPUS ? opts->cpus->n : 1;
	p->cpu = calloc((size_t)p->nfd, sizeof(*p->cpu));
	if (!p->cpu)
		goto nomem;
	for (int i = 0; i < p->nfd; i++)
		p->cpu[i] = p->scope == COLLECT_PERF_CPUS ? opts->cpus->cpu[i] :
							   -1;
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		struct perf_ev *ev = &p->ev[e];

		ev->fd = malloc((size_t)p->nfd * sizeof(*ev->fd));
		ev->a = calloc((size_t)p->nfd, sizeof(*ev->a));
		ev->b = calloc((size_t)p->nfd, sizeof(*ev->b));
		if (!ev->fd || !ev->a || !ev->b)
			goto nomem;
		for (int i = 0; i < p->nfd; i++)
			ev->fd[i] = -1;
	}
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		ret = open_event(p, e, err);
		if (ret)
			goto fail;
	}
	*out = p;
	return 0;
nomem:
	ret = base_err_set(err, -ENOMEM, "perf: out of memory");
fail:
	collect_perf_free(p);
	return ret;
}

/* Read every open counter of every supported event into snaps a or b. */
static void snapshot(struct collect_perf *p, bool at_start)
{
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		struct perf_ev *ev = &p->ev[e];
		struct snap *s = at_start ? ev->a : ev->b;

		if (!ev->supported)
			continue;
		for (int i = 0; i < p->nfd; i++) {
			ssize_t n = p->ops->read(ev->fd[i], s[i].v,
						 sizeof(s[i].v));

			if (n == (ssize_t)sizeof(s[i].v))
				continue;
			close_event(p, ev);
			ev->supported = false;
			ev->errnum = n < 0 ? (int)n : -EIO;
			if (n < 0)
				snprintf(ev->reason, sizeof(ev->reason),
					 "read failed: %s",
					 strerrordesc_np((int)-n) ?
						 strerrordesc_np((int)-n) :
						 "unknown error");
			else
				snprintf(ev->reason, sizeof(ev->reason),
					 "read failed: %zd of %zu bytes", n,
					 sizeof(s[i].v));
			break;
		}
	}
}

/* Enable or disable every counter; the first negative errno, or 0. */
static int set_enabled(struct collect_perf *p, bool on)
{
	int first = 0;

	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		const struct perf_ev *ev = &p->ev[e];

		for (int i = 0; ev->supported && i < p->nfd; i++) {
			int ret = p->ops->ioctl(ev->fd[i], on ? PERF_EVENT_IOC_ENABLE :
							       PERF_EVENT_IOC_DISABLE, 0);

			if (ret && !first)
				first = ret;
		}
	}
	return first;
}

int collect_perf_start(struct collect_perf *p)
{
	if (!p)
		return -EINVAL;
	if (p->pause.paused)
		set_enabled(p, true);
	memset(&p->pause, 0, sizeof(p->pause));
	p->start_ns = base_now_ns();
	snapshot(p, true);
	p->state = ST_STARTED;
	return 0;
}

int collect_perf_pause(struct collect_perf *p, bool paused)
{
	int ret;

	if (!p || p->state != ST_STARTED)
		return -EINVAL;
	if (p->pause.paused == paused)
		return 0;
	ret = set_enabled(p, !paused);
	collect_pause_clock_set(&p->pause, paused, base_now_ns());
	return ret;
}

int collect_perf_stop(struct collect_perf *p)
{
	if (!p || p->state != ST_STARTED)
		return -EINVAL;
	snapshot(p, false);
	p->stop_ns = base_now_ns();
	p->state = ST_STOPPED;
	if (p->pause.paused) {
		/* paused to the end; counting again for a later start */
		collect_pause_clock_set(&p->pause, false, p->stop_ns);
		set_enabled(p, true);
	}
	return 0;
}

/* raw x enabled / running, rounded, without overflow. */
static uint64_t scale(uint64_t raw, uint64_t enabled, uint64_t running)
{
	unsigned __int128 x;

	if (running == enabled)
		return raw;
	x = (unsigned __int128)raw * enabled + running / 2;
	x /= running;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static bool usable(const struct collect_perf_result *r, int e)
{
	return r->ev[e].supported && r->ev[e].counted;
}

void collect_perf_derive(struct collect_perf_result *r)
{
	double cyc = (double)r->ev[COLLECT_PERF_CYCLES].count;
	double ins = (double)r->ev[COLLECT_PERF_INSTRUCTIONS].count;
	double refs = (double)r->ev[COLLECT_PERF_CACHE_REFERENCES].count;
	double miss = (double)r->ev[COLLECT_PERF_CACHE_MISSES].count;
	bool has_cyc = usable(r, COLLECT_PERF_CYCLES);
	bool has_ins = usable(r, COLLECT_PERF_INSTRUCTIONS);
	bool has_refs = usable(r, COLLECT_PERF_CACHE_REFERENCES);
	bool has_miss = usable(r, COLLECT_PERF_CACHE_MISSES);

	r->has_ipc = has_cyc && has_ins && cyc > 0;
	r->ipc = r->has_ipc ? ins / cyc : 0;
	r->has_cpi = has_cyc && has_ins && ins > 0;
	r->cpi = r->has_cpi ? cyc / ins : 0;
	r->has_cache_miss_pct = has_refs && has_miss && refs > 0;
	r->cache_miss_pct = r->has_cache_miss_pct ? 100.0 * miss / refs : 0;
	r->has_mpki = has_miss && has_ins && ins > 0;
	r->mpki = r->has_mpki ? 1000.0 * miss / ins : 0;
}

int collect_perf_result(const struct collect_perf *p,
			struct collect_perf_result *out)
{
	if (!p || !out || p->state != ST_STOPPED)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->window_ns = p->stop_ns - p->start_ns;
	out->active_ns = out->window_ns - p->pause.total_ns;
	if (out->active_ns < 0)
		out->active_ns = 0;
	for (int e = 0; e < COLLECT_PERF_NEVENTS; e++) {
		const struct perf_ev *ev = &p->ev[e];
		struct collect_perf_count *c = &out->ev[e];
		uint64_t sum_en = 0, sum_run = 0;
		bool counted = true;

		c->name = event_def_of(p->scope, e)->name;
		c->supported = ev->supported;
		if (!ev->supported) {
			c->errnum = ev->errnum;
			snprintf(c->reason, sizeof(c->reason), "%s",
				 ev->reason);
			continue;
		}
		c->user_only = ev->user_only;
		for (int i = 0; i < p->nfd; i++) {
			uint64_t raw = ev->b[i].v[0] - ev->a[i].v[0];
			uint64_t en = ev->b[i].v[1] - ev->a[i].v[1];
			uint64_t run = ev->b[i].v[2] - ev->a[i].v[2];

			sum_en += en;
			sum_run += run;
			c->raw += raw;
			if (!run) {
				/* enabled but never on the PMU */
				if (en)
					counted = false;
				continue;
			}
			c->count += scale(raw, en, run);
		}
		c->counted = counted && out->active_ns > 0;
		if (!c->counted)
			c->count = 0;
		else if (out->active_ns < out->window_ns)
			c->count = scale(c->count, (uint64_t)out->window_ns,
					 (uint64_t)out->active_ns);
		c->running_pct = sum_en ? 100.0 * (double)sum_run /
						  (double)sum_en :
					  0;
	}
	collect_perf_derive(out);
	return 0;
}
