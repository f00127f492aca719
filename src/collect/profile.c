// SPDX-License-Identifier: GPL-2.0-only
/* Sampling profiler: perf rings drained by its own thread; see profile.h. */
#include "collect/profile.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/time.h"

#define RING_PAGES_MAX 1024
#define MAX_IPS_LIMIT ((size_t)1 << 24)
#define FREQ_HZ_MAX 100000
#define DRAIN_MS_MAX 1000
#define CHAIN_FRAMES COLLECT_PROFILE_CHAIN_FRAMES
/* A record's first bytes that matter: header, ip, pid/tid or id, lost;
 * and a callchain's count and its frames with a few context marks. */
#define REC_HEAD_BYTES (32 + 8 + 8 * (CHAIN_FRAMES + 4))
/* The most frames a copied record holds after header, ip, pid/tid, nr. */
#define REC_FRAMES_MAX ((REC_HEAD_BYTES - 32) / 8)
/* The collector's cache of addresses and their symbols: 2^12 slots of 16
 * bytes. A loopback test's chains return to a few hundred addresses. */
#define SYM_CACHE_BITS 12

/* One CPU's event and its mapped ring. */
struct ring {
	int cpu;
	int fd;
	void *map;
	size_t map_len;
	struct perf_event_mmap_page *pg;
	const unsigned char *data;
	uint64_t size; /* power of 2 */
};

/* One kernel IP; ip 0 marks a free slot (0 is never a kernel IP). */
struct ip_slot {
	uint64_t ip;
	uint64_t count;
};

/* A recent chain address and its symbol's group (COLLECT_KSYMS_NO_ID: no
 * symbol covers it); ip 0 marks a free slot. */
struct sym_slot {
	uint64_t ip;
	uint32_t group;
};

/*
 * Counts of the current window. Written only by the collector thread
 * while it runs and by the control thread before it starts and after it
 * is joined, so they need no lock.
 */
struct counts {
	uint64_t samples, lost, bad, user, kernel, unknown, other, drains, charged;
	size_t nips;
};

enum { ST_OPEN, ST_RUNNING, ST_STOPPED };

struct collect_profile {
	const struct collect_perf_ops *ops;
	struct ring *ring;
	int nring;
	const char *event;
	char fallback_reason[128];
	unsigned int drain_ms;
	struct ip_slot *tab;
	size_t tab_mask, max_ips;
	/* opts.ks: chains are sampled (when the kernel takes them) and
	 * counted per symbol */
	const struct collect_ksyms *ks;
	bool chains;   /* the events' records carry PERF_SAMPLE_CALLCHAIN */
	/* cpu-clock with chains: samples where interrupts came back on are
	 * charged to the caller */
	bool charging;
	/* per symbol id (nsyms of them): the first id of its metric name,
	 * and at that id the samples whose chain holds that name */
	uint32_t *group;
	uint64_t *children;
	size_t nsyms;
	struct sym_slot *cache; /* 1 << SYM_CACHE_BITS */
	struct counts c;
	bool dirty; /* counts of an earlier window to clear at start */
	int state;
	int stop_fd; /* eventfd: the control thread asks the collector to end */
	pthread_t thread;
	bool thread_live;
	int64_t start_ns, stop_ns, collector_cpu_ns;
	struct collect_pause_clock pause;
};

/* ---- metric names ---- */

static bool metric_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.';
}

static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

static int metric_name_with(const char *prefix, const char *sym, char *buf,
			    size_t len)
{
	size_t pre = strlen(prefix), n, room, keep;

	if (!buf || len < pre + 10 + 1) {
		if (buf && len)
			buf[0] = '\0';
		return -ENOSPC;
	}
	if (!sym || !*sym)
		sym = "_";
	memcpy(buf, prefix, pre);
	n = strlen(sym);
	room = len - 1 - pre;
	keep = n <= room ? n : room - 9;
	for (size_t i = 0; i < keep; i++)
		buf[pre + i] = metric_char(sym[i]) ? sym[i] : '_';
	if (keep < n)
		snprintf(buf + pre + keep, 10, "_%08x", fnv1a(sym));
	else
		buf[pre + keep] = '\0';
	return 0;
}

int collect_profile_metric_name(const char *sym, char *buf, size_t len)
{
	return metric_name_with(COLLECT_PROFILE_METRIC_PREFIX, sym, buf, len);
}

int collect_profile_children_metric_name(const char *sym, char *buf,
					 size_t len)
{
	return metric_name_with(COLLECT_PROFILE_CHILDREN_PREFIX, sym, buf, len);
}

/* One metric name in build_groups()'s table: the first id that has it. */
struct name_slot {
	uint32_t id, hash;
};

/*
 * Group the symbols by metric name: group[id] is the first id whose name
 * gives the same "profile.self." metric (a static function in two files
 * or modules), so that a chain through both counts once, as their self
 * rows are one. Once at open, outside any window. Returns 0 or -ENOMEM.
 */
static int build_groups(struct collect_profile *p)
{
	char a[COLLECT_PROFILE_METRIC_LEN], b[COLLECT_PROFILE_METRIC_LEN];
	size_t slots = 2, mask;
	struct name_slot *tab;

	p->nsyms = collect_ksyms_count(p->ks);
	while (slots < 2 * p->nsyms)
		slots *= 2;
	mask = slots - 1;
	p->group = malloc((p->nsyms ? p->nsyms : 1) * sizeof(*p->group));
	p->children = calloc(p->nsyms ? p->nsyms : 1, sizeof(*p->children));
	p->cache = calloc((size_t)1 << SYM_CACHE_BITS, sizeof(*p->cache));
	tab = malloc(slots * sizeof(*tab));
	if (!p->group || !p->children || !p->cache || !tab) {
		free(tab);
		return -ENOMEM;
	}
	for (size_t i = 0; i < slots; i++)
		tab[i].id = COLLECT_KSYMS_NO_ID;
	for (uint32_t id = 0; id < p->nsyms; id++) {
		struct collect_ksym s;
		uint32_t h;
		size_t i;

		p->group[id] = id;
		if (collect_ksyms_at(p->ks, id, &s))
			continue; /* an end mark: never resolved to */
		collect_profile_metric_name(s.name, a, sizeof(a));
		h = fnv1a(a);
		for (i = h & mask; tab[i].id != COLLECT_KSYMS_NO_ID; i = (i + 1) & mask) {
			if (tab[i].hash != h)
				continue;
			collect_ksyms_at(p->ks, tab[i].id, &s);
			collect_profile_metric_name(s.name, b, sizeof(b));
			if (!strcmp(a, b))
				break;
		}
		if (tab[i].id != COLLECT_KSYMS_NO_ID) {
			p->group[id] = tab[i].id;
		} else {
			tab[i].id = id;
			tab[i].hash = h;
		}
	}
	free(tab);
	return 0;
}

/* ---- the ring ---- */

/* Copy n bytes at ring position pos, wrapping at the end of the data. */
static void ring_copy(const struct ring *r, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & (r->size - 1));
	size_t first = n < r->size - off ? n : (size_t)(r->size - off);

	memcpy(dst, r->data + off, first);
	memcpy((unsigned char *)dst + first, r->data, n - first);
}

static void count_ip(struct collect_profile *p, uint64_t ip)
{
	size_t i = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 20) & p->tab_mask;

	if (!ip) {
		p->c.unknown++;
		return;
	}
	for (;;) {
		struct ip_slot *s = &p->tab[i];

		if (s->ip == ip) {
			s->count++;
			return;
		}
		if (!s->ip) {
			if (p->c.nips >= p->max_ips) {
				p->c.other++;
				return;
			}
			s->ip = ip;
			s->count = 1;
			p->c.nips++;
			return;
		}
		i = (i + 1) & p->tab_mask;
	}
}

/* The helpers that turn interrupts back on. A cpu-clock sample is a timer
 * interrupt: one that fell due while interrupts were off is taken where
 * they come back on, so without a hardware NMI these helpers collect the
 * samples of every interrupts-off stretch that ends in them. */
static bool irq_on_helper(const char *name)
{
	static const char *const helpers[] = {
		"pvm_irq_enable", "__raw_callee_save_pvm_irq_enable",
		"pv_native_irq_enable", "native_irq_enable", "xen_irq_enable",
		"__raw_callee_save_xen_irq_enable", "_raw_spin_unlock_irq",
		"_raw_spin_unlock_irqrestore", "_raw_read_unlock_irq",
		"_raw_read_unlock_irqrestore", "_raw_write_unlock_irq",
		"_raw_write_unlock_irqrestore",
	};

	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); i++)
		if (!strcmp(name, helpers[i]))
			return true;
	return false;
}

/*
 * The IP to count for a kernel sample at ip with the callchain of nr
 * frames at chain: ip, or, when ip is in a helper that turned interrupts
 * back on, the first caller outside the helpers (its return address less
 * one, inside the call). Context marks (PERF_CONTEXT_*) are skipped.
 */
static uint64_t charged_ip(struct collect_profile *p, uint64_t ip,
			   const unsigned char *chain, uint64_t nr)
{
	struct collect_ksym s;

	if (collect_ksyms_resolve(p->ks, ip, &s) || !irq_on_helper(s.name))
		return ip;
	for (uint64_t i = 0; i < nr; i++) {
		uint64_t a;

		memcpy(&a, chain + 8 * i, 8);
		if (a >= (uint64_t)PERF_CONTEXT_MAX || a == ip)
			continue;
		if (!collect_ksyms_resolve(p->ks, a - 1, &s) && irq_on_helper(s.name))
			continue;
		p->c.charged++;
		return a - 1;
	}
	return ip;
}

/* The group of the symbol at addr (not 0), through the cache. */
static uint32_t sym_group(struct collect_profile *p, uint64_t addr)
{
	struct sym_slot *s = &p->cache[(addr * 0x9e3779b97f4a7c15ull) >>
				       (64 - SYM_CACHE_BITS)];
	struct collect_ksym k;

	if (s->ip != addr) {
		s->ip = addr;
		s->group = collect_ksyms_resolve(p->ks, addr, &k) ?
				   COLLECT_KSYMS_NO_ID :
				   p->group[k.id];
	}
	return s->group;
}

/*
 * Children: one count for each symbol group in a kernel sample's chain,
 * however often it recurs, the sampled ip's included (a sample without a
 * chain counts that one alone). The chain's first frame is the ip
 * itself; the others are return addresses, looked up less one (inside
 * the call, not after it). Context marks are skipped. At most
 * REC_FRAMES_MAX + 1 lookups, on the stack.
 */
static void count_children(struct collect_profile *p, uint64_t ip,
			   const unsigned char *chain, uint64_t nr)
{
	uint32_t seen[REC_FRAMES_MAX + 1];
	size_t n = 0, k;

	for (uint64_t i = 0; i <= nr; i++) {
		uint64_t a = ip;
		uint32_t g;

		if (i) {
			memcpy(&a, chain + 8 * (i - 1), 8);
			if (!a || a >= (uint64_t)PERF_CONTEXT_MAX || a == ip)
				continue;
			a--;
		}
		if (!a || (g = sym_group(p, a)) == COLLECT_KSYMS_NO_ID)
			continue;
		for (k = 0; k < n && seen[k] != g; k++)
			;
		if (k == n)
			seen[n++] = g;
	}
	for (k = 0; k < n; k++)
		p->children[seen[k]]++;
}

/* A kernel sample at ip, its record's n bytes at rec (the chain, when
 * sampled, after the header, ip and pid/tid). */
static void count_kernel(struct collect_profile *p, uint64_t ip,
			 const unsigned char *rec, size_t n)
{
	const size_t at = sizeof(struct perf_event_header) + 16;
	uint64_t nr = 0;

	if (p->chains && n >= at + 8) {
		memcpy(&nr, rec + at, 8);
		/* what the record holds of the frames */
		if (nr > (n - at - 8) / 8)
			nr = (n - at - 8) / 8;
	}
	count_ip(p, p->charging ? charged_ip(p, ip, rec + at + 8, nr) : ip);
	if (p->ks)
		count_children(p, ip, rec + at + 8, nr);
}

static void handle_record(struct collect_profile *p,
			  const struct perf_event_header *h,
			  const unsigned char *rec, size_t n)
{
	uint64_t v;

	switch (h->type) {
	case PERF_RECORD_SAMPLE:
		/* PERF_SAMPLE_IP | PERF_SAMPLE_TID: ip, then pid and tid;
		 * PERF_SAMPLE_CALLCHAIN adds nr, then the frames */
		if (n < sizeof(*h) + 8) {
			p->c.bad++;
			return;
		}
		memcpy(&v, rec + sizeof(*h), 8);
		p->c.samples++;
		switch (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) {
		case PERF_RECORD_MISC_KERNEL:
			p->c.kernel++;
			count_kernel(p, v, rec, n);
			break;
		case PERF_RECORD_MISC_USER:
			p->c.user++;
			break;
		default: /* guest, hypervisor, unknown */
			p->c.unknown++;
			break;
		}
		break;
	case PERF_RECORD_LOST: /* id, lost */
		if (n >= sizeof(*h) + 16) {
			memcpy(&v, rec + sizeof(*h) + 8, 8);
			p->c.lost += v;
		}
		break;
	case PERF_RECORD_LOST_SAMPLES: /* lost */
		if (n >= sizeof(*h) + 8) {
			memcpy(&v, rec + sizeof(*h), 8);
			p->c.lost += v;
		}
		break;
	default: /* throttle, unthrottle, ...: nothing to count */
		break;
	}
}

/*
 * Consume every whole record between data_tail and data_head. The
 * acquire load of data_head pairs with the kernel's write barrier before
 * it publishes data_head, so the records below it are visible; the
 * release store of data_tail tells the kernel that the space may be
 * overwritten only after the reads above it. A malformed header leaves
 * no way to find the next record: the rest up to data_head is dropped.
 */
static void drain_ring(struct collect_profile *p, struct ring *r)
{
	uint64_t head = __atomic_load_n(&r->pg->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = r->pg->data_tail; /* only this side writes it */

	if (head - tail > r->size) {
		p->c.bad++;
		tail = head;
	}
	while (tail != head) {
		unsigned char rec[REC_HEAD_BYTES];
		struct perf_event_header h;
		uint64_t avail = head - tail;
		size_t n;

		if (avail < sizeof(h)) {
			p->c.bad++;
			tail = head;
			break;
		}
		ring_copy(r, tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size > avail) {
			p->c.bad++;
			tail = head;
			break;
		}
		n = h.size < sizeof(rec) ? h.size : sizeof(rec);
		ring_copy(r, tail, rec, n);
		handle_record(p, &h, rec, n);
		tail += h.size;
	}
	__atomic_store_n(&r->pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void drain_all(struct collect_profile *p)
{
	for (int i = 0; i < p->nring; i++)
		drain_ring(p, &p->ring[i]);
	p->c.drains++;
}

static void *collector_main(void *arg)
{
	struct collect_profile *p = arg;
	struct pollfd pfd = { .fd = p->stop_fd, .events = POLLIN };
	struct timespec ts;

	for (;;) {
		int n = poll(&pfd, 1, (int)p->drain_ms);

		if (n > 0)
			break; /* stop asked; the final drain is the caller's */
		if (n < 0 && errno != EINTR)
			break;
		drain_all(p);
	}
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		p->collector_cpu_ns = (int64_t)ts.tv_sec * NS_PER_S +
				      ts.tv_nsec;
	return NULL;
}

/* ---- lifetime ---- */

static void close_rings(struct collect_profile *p)
{
	for (int i = 0; i < p->nring; i++) {
		struct ring *r = &p->ring[i];

		if (r->map)
			p->ops->munmap(r->map, r->map_len);
		r->map = NULL;
		r->pg = NULL;
		if (r->fd >= 0)
			p->ops->close(r->fd);
		r->fd = -1;
	}
}

/*
 * Open the event on every CPU. Returns 0, or the negative errno of the
 * first CPU that refused (all closed again, *bad_cpu set).
 */
static int open_events(struct collect_profile *p, uint32_t type,
		       uint64_t config, unsigned int freq_hz,
		       uint64_t ring_bytes, bool chains, int *bad_cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.freq = 1;
	attr.sample_freq = freq_hz;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	if (chains) {
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_user = 1;
		attr.sample_max_stack = CHAIN_FRAMES;
	}
	attr.disabled = 1;
	/* nobody waits on the fds: wake up as rarely as the kernel allows */
	attr.watermark = 1;
	attr.wakeup_watermark = (uint32_t)(ring_bytes / 2);
	/* cycles do not count in a halted CPU; make cpu-clock match */
	attr.exclude_idle = type == PERF_TYPE_SOFTWARE;
	for (int i = 0; i < p->nring; i++) {
		int fd = p->ops->open(&attr, -1, p->ring[i].cpu, -1,
				      PERF_FLAG_FD_CLOEXEC);

		if (fd < 0) {
			*bad_cpu = p->ring[i].cpu;
			close_rings(p);
			return fd;
		}
		p->ring[i].fd = fd;
	}
	return 0;
}

/*
 * open_events() with call chains when there are symbols to name them;
 * again without when the kernel refuses them (before 4.8 it has no
 * sample_max_stack; perf_event_max_stack may be set lower). Sets
 * p->chains to what was opened.
 */
static int open_kind(struct collect_profile *p, uint32_t type,
		     uint64_t config, unsigned int freq_hz,
		     uint64_t ring_bytes, int *bad_cpu)
{
	int ret;

	p->chains = p->ks != NULL;
	ret = open_events(p, type, config, freq_hz, ring_bytes, p->chains,
			  bad_cpu);
	if (p->chains &&
	    (ret == -E2BIG || ret == -EINVAL || ret == -EOVERFLOW)) {
		p->chains = false;
		ret = open_events(p, type, config, freq_hz, ring_bytes, false,
				  bad_cpu);
	}
	return ret;
}

static int map_rings(struct collect_profile *p, unsigned int pages,
		     struct base_err *err)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < p->nring; i++) {
		struct ring *r = &p->ring[i];
		uint64_t off, size;
		int errnum = -EIO;
		void *m;

		r->map_len = (1 + (size_t)pages) * page;
		m = p->ops->mmap(r->map_len, r->fd, &errnum);
		if (m == MAP_FAILED)
			return base_err_set(err, errnum,
					    "profile: mmap of %zu bytes on cpu %d: %s",
					    r->map_len, r->cpu,
					    strerror(-errnum));
		r->map = m;
		r->pg = m;
		off = r->pg->data_offset ? r->pg->data_offset : page;
		size = r->pg->data_size ? r->pg->data_size :
					  (uint64_t)pages * page;
		if (size & (size - 1) || off + size > r->map_len)
			return base_err_set(err, -EPROTO,
					    "profile: cpu %d: ring of %llu bytes at %llu in a %zu byte map",
					    r->cpu, (unsigned long long)size,
					    (unsigned long long)off,
					    r->map_len);
		r->data = (const unsigned char *)m + off;
		r->size = size;
	}
	return 0;
}

void collect_profile_free(struct collect_profile *p)
{
	if (!p)
		return;
	if (p->state == ST_RUNNING)
		collect_profile_stop(p, NULL);
	if (p->ring)
		close_rings(p);
	if (p->stop_fd >= 0)
		close(p->stop_fd);
	free(p->ring);
	free(p->tab);
	free(p->group);
	free(p->children);
	free(p->cache);
	free(p);
}

static int check_opts(const struct collect_profile_opts *o,
		      struct base_err *err)
{
	if (!o->cpus || !o->cpus->n || o->cpus->n > BASE_CPU_MAX)
		return base_err_set(err, -EINVAL, "profile: no cpus to sample");
	if (o->event != COLLECT_PROFILE_AUTO &&
	    o->event != COLLECT_PROFILE_CYCLES &&
	    o->event != COLLECT_PROFILE_CPU_CLOCK)
		return base_err_set(err, -EINVAL, "profile: invalid event %d",
				    (int)o->event);
	if (o->freq_hz > FREQ_HZ_MAX)
		return base_err_set(err, -EINVAL,
				    "profile: frequency %u hz over %d",
				    o->freq_hz, FREQ_HZ_MAX);
	if (o->ring_pages > RING_PAGES_MAX ||
	    (o->ring_pages & (o->ring_pages - 1)))
		return base_err_set(err, -EINVAL,
				    "profile: ring of %u pages: expected a power of 2 up to %d",
				    o->ring_pages, RING_PAGES_MAX);
	if (o->drain_ms > DRAIN_MS_MAX)
		return base_err_set(err, -EINVAL,
				    "profile: drain period %u ms over %d",
				    o->drain_ms, DRAIN_MS_MAX);
	if (o->max_ips > MAX_IPS_LIMIT)
		return base_err_set(err, -EINVAL,
				    "profile: %zu distinct ips over %zu",
				    o->max_ips, MAX_IPS_LIMIT);
	return 0;
}

int collect_profile_open(struct collect_profile **out,
			 const struct collect_profile_opts *opts,
			 struct base_err *err)
{
	unsigned int freq, pages;
	struct collect_profile *p;
	size_t slots = 2;
	char why[80];
	int ret, bad_cpu = -1;
	uint64_t ring_bytes;

	if (!out || !opts)
		return base_err_set(err, -EINVAL, "profile: missing options");
	*out = NULL;
	ret = check_opts(opts, err);
	if (ret)
		return ret;
	freq = opts->freq_hz ? opts->freq_hz : COLLECT_PROFILE_FREQ_HZ;
	pages = opts->ring_pages ? opts->ring_pages :
				   COLLECT_PROFILE_RING_PAGES;
	ring_bytes = (uint64_t)pages * (uint64_t)sysconf(_SC_PAGESIZE);

	p = calloc(1, sizeof(*p));
	if (!p)
		return base_err_set(err, -ENOMEM, "profile: out of memory");
	p->stop_fd = -1;
	p->ops = opts->ops ? opts->ops : &collect_perf_sys_ops;
	p->drain_ms = opts->drain_ms ? opts->drain_ms :
				       COLLECT_PROFILE_DRAIN_MS;
	p->max_ips = opts->max_ips ? opts->max_ips : COLLECT_PROFILE_MAX_IPS;
	p->ks = opts->ks;
	while (slots < 2 * p->max_ips)
		slots *= 2;
	p->tab_mask = slots - 1;
	p->tab = calloc(slots, sizeof(*p->tab));
	p->nring = opts->cpus->n;
	p->ring = calloc((size_t)p->nring, sizeof(*p->ring));
	if (!p->tab || !p->ring || (p->ks && build_groups(p))) {
		p->nring = 0; /* no fd opened yet */
		ret = base_err_set(err, -ENOMEM, "profile: out of memory");
		goto fail;
	}
	for (int i = 0; i < p->nring; i++) {
		p->ring[i].cpu = opts->cpus->cpu[i];
		p->ring[i].fd = -1;
	}
	p->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (p->stop_fd < 0) {
		ret = base_err_set(err, -errno, "profile: eventfd: %s",
				   strerror(errno));
		goto fail;
	}

	ret = -ENOENT;
	if (opts->event != COLLECT_PROFILE_CPU_CLOCK) {
		ret = open_kind(p, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_CPU_CYCLES, freq, ring_bytes,
				&bad_cpu);
		/* an NMI: counted where it lands (p->charging stays false) */
		p->event = "cycles";
		if (ret && opts->event == COLLECT_PROFILE_CYCLES) {
			collect_perf_strerror(ret, why, sizeof(why));
			ret = base_err_set(err, ret,
					   "profile: cycles on cpu %d: %s",
					   bad_cpu, why);
			goto fail;
		}
		if (ret) {
			collect_perf_strerror(ret, why, sizeof(why));
			snprintf(p->fallback_reason,
				 sizeof(p->fallback_reason),
				 "cycles on cpu %d: %s", bad_cpu, why);
		}
	}
	if (ret) {
		ret = open_kind(p, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
				freq, ring_bytes, &bad_cpu);
		p->event = "cpu-clock";
		/* without chains, samples are counted where they land */
		p->charging = p->chains;
		if (ret == -ENODEV || ret == -EINVAL) {
			ret = base_err_set(err, -ENODEV,
					   "profile: cpu %d: offline or absent",
					   bad_cpu);
			goto fail;
		}
		if (ret) {
			collect_perf_strerror(ret, why, sizeof(why));
			ret = base_err_set(err, ret,
					   "profile: cpu-clock on cpu %d: %s",
					   bad_cpu, why);
			goto fail;
		}
	}
	ret = map_rings(p, pages, err);
	if (ret)
		goto fail;
	*out = p;
	return 0;
fail:
	collect_profile_free(p);
	return ret;
}

/* Enable or disable every event; returns the first error. */
static int set_enabled(struct collect_profile *p, bool on, int *bad_cpu)
{
	int first = 0;

	for (int i = 0; i < p->nring; i++) {
		int ret = p->ops->ioctl(p->ring[i].fd,
					on ? PERF_EVENT_IOC_ENABLE :
					     PERF_EVENT_IOC_DISABLE,
					0);

		if (ret && !first) {
			first = ret;
			*bad_cpu = p->ring[i].cpu;
		}
	}
	return first;
}

/* Ask the collector to end and join it. */
static void join_collector(struct collect_profile *p)
{
	uint64_t one = 1, drop;
	ssize_t n;

	if (!p->thread_live)
		return;
	do
		n = write(p->stop_fd, &one, sizeof(one));
	while (n < 0 && errno == EINTR);
	pthread_join(p->thread, NULL);
	p->thread_live = false;
	n = read(p->stop_fd, &drop, sizeof(drop)); /* reset for next start */
	(void)n;
}

int collect_profile_start(struct collect_profile *p, struct base_err *err)
{
	sigset_t all, old;
	int ret, bad_cpu = -1;

	if (!p || p->state == ST_RUNNING)
		return base_err_set(err, -EINVAL, "profile: already started");
	if (p->dirty) {
		memset(p->tab, 0, (p->tab_mask + 1) * sizeof(*p->tab));
		if (p->children)
			memset(p->children, 0, p->nsyms * sizeof(*p->children));
		memset(&p->c, 0, sizeof(p->c));
		p->collector_cpu_ns = 0;
	}
	p->dirty = true;
	/* signals belong to the caller's threads, not to the collector */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = -pthread_create(&p->thread, NULL, collector_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		return base_err_set(err, ret, "profile: thread: %s",
				    strerror(-ret));
	p->thread_live = true;
	memset(&p->pause, 0, sizeof(p->pause));
	p->start_ns = base_now_ns();
	ret = set_enabled(p, true, &bad_cpu);
	if (ret) {
		set_enabled(p, false, &bad_cpu);
		join_collector(p);
		p->state = ST_OPEN;
		return base_err_set(err, ret,
				    "profile: enable on cpu %d: %s", bad_cpu,
				    strerror(-ret));
	}
	p->state = ST_RUNNING;
	return 0;
}

int collect_profile_pause(struct collect_profile *p, bool paused,
			  struct base_err *err)
{
	int ret, bad_cpu = -1;

	if (!p || p->state != ST_RUNNING)
		return base_err_set(err, -EINVAL, "profile: not started");
	if (p->pause.paused == paused)
		return 0;
	ret = set_enabled(p, !paused, &bad_cpu);
	collect_pause_clock_set(&p->pause, paused, base_now_ns());
	if (ret)
		return base_err_set(err, ret, "profile: %s on cpu %d: %s",
				    paused ? "disable" : "enable", bad_cpu,
				    strerror(-ret));
	return 0;
}

int collect_profile_stop(struct collect_profile *p, struct base_err *err)
{
	int ret, bad_cpu = -1;

	if (!p || p->state != ST_RUNNING)
		return base_err_set(err, -EINVAL, "profile: not started");
	ret = set_enabled(p, false, &bad_cpu);
	p->stop_ns = base_now_ns();
	collect_pause_clock_set(&p->pause, false, p->stop_ns);
	join_collector(p);
	drain_all(p);
	p->state = ST_STOPPED;
	if (ret)
		return base_err_set(err, ret, "profile: disable on cpu %d: %s",
				    bad_cpu, strerror(-ret));
	return 0;
}

/* ---- ranking ---- */

/* A kernel IP and its symbol, for grouping by symbol. */
struct ip_sym {
	uint32_t id;
	uint64_t ip, count;
};

static int ip_sym_cmp(const void *pa, const void *pb)
{
	const struct ip_sym *a = pa, *b = pb;

	return a->id < b->id ? -1 : a->id > b->id;
}

static int row_metric_cmp(const void *pa, const void *pb)
{
	const struct collect_profile_row *a = pa, *b = pb;

	return strcmp(a->metric, b->metric);
}

static int row_rank_cmp(const void *pa, const void *pb)
{
	const struct collect_profile_row *a = pa, *b = pb;

	if (a->samples != b->samples)
		return a->samples > b->samples ? -1 : 1;
	return strcmp(a->metric, b->metric);
}

static void add_row(struct collect_profile_row *rows, size_t *n,
		    const char *name, const char *module, uint64_t samples)
{
	struct collect_profile_row *r;

	if (!samples)
		return;
	r = &rows[(*n)++];
	r->name = name;
	r->module = module;
	r->samples = samples;
	collect_profile_metric_name(name, r->metric, sizeof(r->metric));
}

/* Whether samples of total reach min_pct percent; a share equal to it up
 * to rounding (1 of 1000 samples at 0.1) is kept. */
static bool over(uint64_t samples, uint64_t total, double min_pct)
{
	return samples &&
	       100.0 * (double)samples >= min_pct * (double)total * (1 - 1e-12);
}

/* Rank n rows, then keep the first *kept: those at or over min_pct of
 * total (*nover of them), at most COLLECT_PROFILE_ROWS_MAX; their pct. */
static void cut_rows(struct collect_profile_row *rows, size_t n,
		     uint64_t total, double min_pct, size_t *kept,
		     size_t *nover)
{
	size_t k = 0;

	qsort(rows, n, sizeof(*rows), row_rank_cmp);
	while (k < n && over(rows[k].samples, total, min_pct))
		k++;
	*nover = k;
	*kept = k < COLLECT_PROFILE_ROWS_MAX ? k : COLLECT_PROFILE_ROWS_MAX;
	for (size_t i = 0; i < *kept; i++)
		rows[i].pct = 100.0 * (double)rows[i].samples / (double)total;
}

/* The children rows into out, from the counts at each group's first id. */
static int children_rows(const struct collect_profile *p, double min_pct,
			 struct collect_profile_result *out)
{
	struct collect_profile_row *rows;
	size_t n = 0;

	for (size_t id = 0; id < p->nsyms; id++)
		n += p->children[id] > 0;
	rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	n = 0;
	for (uint32_t id = 0; id < p->nsyms; id++) {
		struct collect_ksym sym;

		if (!p->children[id])
			continue;
		collect_ksyms_at(p->ks, id, &sym);
		rows[n].name = sym.name;
		rows[n].samples = p->children[id];
		collect_profile_children_metric_name(sym.name, rows[n].metric,
						     sizeof(rows[n].metric));
		n++;
	}
	out->children = rows;
	out->nchildren_total = n;
	cut_rows(rows, n, p->c.samples, min_pct, &out->nchildren,
		 &out->nchildren_over);
	return 0;
}

/* One self row per symbol of the IP table (ks: NULL, one row for all),
 * plus the bracketed rows, into rows; returns how many. */
static size_t self_rows(const struct collect_profile *p,
			const struct collect_ksyms *ks, struct ip_sym *ips,
			struct collect_profile_row *rows)
{
	uint64_t unknown = p->c.unknown, kernel_unres = 0;
	size_t nips = 0, nrows = 0;

	for (size_t i = 0; i <= p->tab_mask; i++) {
		const struct ip_slot *s = &p->tab[i];
		struct collect_ksym sym;

		if (!s->ip)
			continue;
		if (!ks) {
			kernel_unres += s->count;
			continue;
		}
		if (collect_ksyms_resolve(ks, s->ip, &sym)) {
			unknown += s->count;
			continue;
		}
		ips[nips].id = sym.id;
		ips[nips].ip = s->ip;
		ips[nips].count = s->count;
		nips++;
	}
	qsort(ips, nips, sizeof(*ips), ip_sym_cmp);
	for (size_t i = 0; i < nips;) {
		struct collect_ksym sym;
		uint64_t sum = 0;
		size_t j;

		for (j = i; j < nips && ips[j].id == ips[i].id; j++)
			sum += ips[j].count;
		collect_ksyms_resolve(ks, ips[i].ip, &sym);
		add_row(rows, &nrows, sym.name, sym.module, sum);
		i = j;
	}
	add_row(rows, &nrows, COLLECT_PROFILE_USER, NULL, p->c.user);
	add_row(rows, &nrows, COLLECT_PROFILE_KERNEL, NULL, kernel_unres);
	add_row(rows, &nrows, COLLECT_KSYMS_UNKNOWN, NULL, unknown);
	add_row(rows, &nrows, COLLECT_PROFILE_OTHER, NULL, p->c.other);
	return nrows;
}

/* Sum the rows whose metric names are equal; returns how many remain. */
static size_t merge_rows(struct collect_profile_row *rows, size_t nrows)
{
	size_t m = 0;

	qsort(rows, nrows, sizeof(*rows), row_metric_cmp);
	for (size_t i = 0; i < nrows; i++) {
		if (m && !strcmp(rows[m - 1].metric, rows[i].metric)) {
			rows[m - 1].samples += rows[i].samples;
			if (rows[m - 1].module != rows[i].module &&
			    (!rows[m - 1].module || !rows[i].module ||
			     strcmp(rows[m - 1].module, rows[i].module)))
				rows[m - 1].module = NULL;
			continue;
		}
		rows[m++] = rows[i];
	}
	return m;
}

void collect_profile_result_release(struct collect_profile_result *r)
{
	if (!r)
		return;
	free(r->rows);
	free(r->children);
	memset(r, 0, sizeof(*r));
}

int collect_profile_result(const struct collect_profile *p,
			   const struct collect_ksyms *ks, double min_pct,
			   struct collect_profile_result *out,
			   struct base_err *err)
{
	struct collect_profile_row *rows = NULL;
	struct ip_sym *ips = NULL;
	size_t nrows;

	if (!p || !out || p->state != ST_STOPPED)
		return base_err_set(err, -EINVAL, "profile: not stopped");
	if (!(min_pct >= 0 && min_pct <= 100))
		return base_err_set(err, -EINVAL,
				    "profile: threshold %g%%: expected 0 to 100",
				    min_pct);
	memset(out, 0, sizeof(*out));
	ips = malloc((p->c.nips + 1) * sizeof(*ips));
	rows = calloc(p->c.nips + 4, sizeof(*rows));
	if (!ips || !rows || (p->ks && children_rows(p, min_pct, out))) {
		free(ips);
		free(rows);
		collect_profile_result_release(out);
		return base_err_set(err, -ENOMEM, "profile: out of memory");
	}
	nrows = merge_rows(rows, self_rows(p, ks, ips, rows));
	free(ips);
	out->nrows_total = nrows;
	cut_rows(rows, nrows, p->c.samples, min_pct, &out->nrows,
		 &out->nrows_over);
	out->rows = rows;
	out->min_pct = min_pct;
	out->event = p->event;
	snprintf(out->fallback_reason, sizeof(out->fallback_reason), "%s",
		 p->fallback_reason);
	out->window_ns = p->stop_ns - p->start_ns;
	out->active_ns = out->window_ns - p->pause.total_ns;
	out->samples = p->c.samples;
	out->lost = p->c.lost;
	out->bad = p->c.bad;
	out->user = p->c.user;
	out->kernel = p->c.kernel;
	out->charging = p->charging;
	out->charged = p->c.charged;
	out->chains = p->chains;
	out->drains = p->c.drains;
	out->collector_cpu_ns = p->collector_cpu_ns;
	out->kernel_resolved = ks != NULL;
	return 0;
}
