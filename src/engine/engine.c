// SPDX-License-Identifier: GPL-2.0-only
/* Worker threads and their epoll loops; workloads plug in through flow_ops. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/time.h"
#include "collect/env.h"
#include "engine/internal.h"
#include "job/config.h"

#define UDP_QUIET_NS (200 * NS_PER_MS)
#define OPEN_LOOP_RING 1024    /* requests in flight per open-loop flow */
#define CRR_CONNS 16           /* connections a crr listener serves at once */
#define BLOCK_TICK_NS (10 * NS_PER_MS) /* a worker waiting to write looks at stop */
#define NUDGE_EVERY_NS (10 * NS_PER_MS) /* stopping: blocked workers woken this often */

enum { MARK_START, MARK_END };

static void notify(struct engine *e)
{
	uint64_t one = 1;

	/* an eventfd write cannot block below 2^64-1 */
	if (write(e->evfd, &one, sizeof(one)) < 0) {
		/* the control thread also polls with a timeout */
	}
}

void flow_fail(struct worker *w, struct flow *f, int err)
{
	struct engine *e = w->e;
	int expected = 0;

	if (f->err)
		return;
	f->err = err;
	for (uint32_t i = 0; i < e->nflows; i++) {
		if (e->flows[i] == f) {
			atomic_compare_exchange_strong(&e->failed, &expected,
						       (int)i + 1);
			break;
		}
	}
	notify(e);
}

void flow_close(struct worker *w, struct flow *f, int err)
{
	if (f->done)
		return;
	f->done = true;
	if (f->fd >= 0)
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, f->fd, NULL);
	if (f->draining) {
		f->draining = false;
		w->ndrain--;
	}
	if (err)
		flow_fail(w, f, err);
}

int flow_interest(struct worker *w, struct flow *f, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &f->ev };

	if (events == f->interest)
		return 0;
	/* a blocking worker polls its one socket itself (worker_block_loop) */
	if (!w->block && epoll_ctl(w->epfd, EPOLL_CTL_MOD, f->fd, &ev) < 0)
		return -errno;
	f->interest = events;
	return 0;
}

static void flow_event(struct worker *w, struct engine_ev *ev, uint32_t events)
{
	struct flow *f = (struct flow *)ev;

	if (!f->done)
		f->ops->io(w, f, events);
}

/* A flow whose TCP_INFO counts are read at the marks: a tcp flow with its
 * own long-lived connection (tcp_crr's come and go), a sender's, and a
 * receiver's too with tcpi_rx. */
static bool flow_counts_tcpi(const struct engine *e, const struct flow *f)
{
	return f->fd >= 0 && !e->o.udp && e->o.kind != ENGINE_CRR &&
	       (f->tx || e->o.tcpi_rx);
}

/* ... and whose end state (proto_tcpi) is read at stop: a sender's (a
 * receiver's is proto_tcpi_rx). */
static bool flow_has_tcpi(const struct engine *e, const struct flow *f)
{
	return f->tx && flow_counts_tcpi(e, f);
}

/* Stop initiating; record each flow's end state; count who drains on. */
static void worker_stop(struct worker *w)
{
	w->stopping = true;
	for (uint32_t i = 0; i < w->nflows; i++) {
		struct flow *f = w->flows[i];

		if (f->fd >= 0)
			engine_sock_bufs(f->fd, &f->sndbuf_end, &f->rcvbuf_end);
		if (flow_has_tcpi(w->e, f))
			f->has_tcpi = !engine_sock_tcp_info(f->fd, &f->tcpi);
		else if (flow_counts_tcpi(w->e, f))
			f->has_tcpi_rx = !engine_sock_tcp_rx(f->fd, &f->tcpi_rx);
		if (f->done)
			continue;
		if (f->ops->stop(w, f)) {
			f->draining = true;
			w->ndrain++;
		} else {
			flow_close(w, f, 0);
		}
	}
}

/* The earliest flow deadline, or INT64_MAX. */
static int64_t next_deadline(const struct worker *w)
{
	int64_t t = INT64_MAX;

	for (uint32_t i = 0; i < w->nflows; i++) {
		const struct flow *f = w->flows[i];

		if (!f->done && f->ops->deadline) {
			int64_t d = f->ops->deadline(f);

			if (d < t)
				t = d;
		}
	}
	return t;
}

static void run_timers(struct worker *w, int64_t now)
{
	for (uint32_t i = 0; i < w->nflows; i++) {
		struct flow *f = w->flows[i];

		if (!f->done && f->ops->timer && f->ops->deadline(f) <= now)
			f->ops->timer(w, f, now);
	}
}

/*
 * Blocking workers wait in recv with no timeout: an armed timer would cost
 * every transaction (in a VM, reprogramming the timer on each idle entry
 * is a VM exit). They are woken instead by a signal whose handler does
 * nothing, installed without SA_RESTART, so the recv returns EINTR.
 */
static int nudge_sig;
static pthread_once_t nudge_once = PTHREAD_ONCE_INIT;

static void nudge_handler(int sig)
{
	(void)sig;
}

static void nudge_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = nudge_handler;
	sigemptyset(&sa.sa_mask);
	nudge_sig = SIGRTMIN + 3;
	sigaction(nudge_sig, &sa, NULL);
}

static void nudge(struct worker *w)
{
	if (w->running)
		pthread_kill(w->th, nudge_sig);
}

/*
 * The loop of a worker that owns one closed-loop request/response flow:
 * the flow's own recv waits, so a transaction costs no epoll_wait. Stop
 * arrives as a flag, looked at after every wake-up (engine_join keeps
 * nudging until the worker is out); writes that would block wait in poll().
 * With spin the socket stays non-blocking and the same loop polls it: a
 * recv that finds nothing comes straight back, as does the poll(), and
 * the worker yields its CPU to whoever else is ready to run there.
 */
static void worker_block_loop(struct worker *w)
{
	struct engine *e = w->e;
	struct flow *f = w->flows[0];
	int64_t drain_end = 0, quiet_since = 0;
	uint64_t seen = 0, done = 0;
	bool progressed = false;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, nudge_sig);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	/*
	 * A file table of its own: the kernel looks up the fd of every send
	 * and recv without taking a reference when the table is not shared
	 * (fdget), where a table shared by threads costs two atomics on the
	 * file per call. Files opened or closed elsewhere after this are not
	 * seen here, and the ones open now stay referenced until the thread
	 * ends; this thread only uses its flow's socket. If the kernel says
	 * no, the shared table just costs a little more.
	 */
	(void)unshare(CLONE_FILES);
	while (!atomic_load_explicit(&e->abort, memory_order_relaxed) && !f->done) {
		bool stop = !w->stopping &&
			    atomic_load_explicit(&e->stop_req, memory_order_relaxed);
		/*
		 * Timers matter only after a wake-up that completed nothing (a
		 * nudge): a transaction just done issued the next request,
		 * whose deadline is a whole timeout away. The flow stamps its
		 * own transactions, so a transaction costs no clock read here.
		 */
		bool timers = w->timed && !progressed;
		int64_t now = stop || w->stopping || timers ? base_now_ns() : 0;

		if (stop) {
			drain_end = now + e->o.drain_ns;
			quiet_since = now;
			seen = ctr_get(&f->bytes) + ctr_get(&f->msgs);
			worker_stop(w);
			continue;
		}
		if (w->stopping) {
			uint64_t s = ctr_get(&f->bytes) + ctr_get(&f->msgs);

			if (!w->ndrain)
				break;
			if (now >= drain_end) {
				w->drain_timeout = true;
				break;
			}
			if (s != seen) {
				seen = s;
				quiet_since = now;
			} else if (e->o.udp && now - quiet_since >= UDP_QUIET_NS) {
				break; /* quiet: every datagram in flight has landed */
			}
		}
		if (timers) {
			run_timers(w, now);
			if (f->done)
				break;
		}
		if (f->interest & EPOLLOUT) {
			struct pollfd p = { .fd = f->fd, .events = POLLOUT };
			uint32_t ev = 0;

			if (f->interest & EPOLLIN)
				p.events |= POLLIN;
			if (poll(&p, 1, e->o.spin ? 0 :
					(int)(BLOCK_TICK_NS / NS_PER_MS)) > 0) {
				ev = (p.revents & POLLIN ? EPOLLIN : 0) |
				     (p.revents & POLLOUT ? EPOLLOUT : 0) |
				     (p.revents & (POLLERR | POLLHUP) ?
					      EPOLLIN | EPOLLOUT : 0);
				f->ops->io(w, f, ev);
			}
		} else if (f->interest & EPOLLIN) {
			f->ops->io(w, f, EPOLLIN);
		}
		progressed = flow_settled(f) != done;
		done = flow_settled(f);
		if (e->o.spin && !progressed)
			sched_yield(); /* whoever shares the CPU runs now */
	}
}

/* Block (or, with spin, poll) in recv for a worker with one closed-loop
 * request/response flow. */
static int worker_blocking(struct worker *w)
{
	const struct engine_opts *o = &w->e->o;
	int fl;

	if (o->kind != ENGINE_RR || o->burst != 1 || o->rate > 0 ||
	    w->nflows != 1 || w->flows[0]->fd < 0)
		return 0;
	pthread_once(&nudge_once, nudge_install);
	fl = fcntl(w->flows[0]->fd, F_GETFL);
	if (fl < 0 || (!o->spin &&
		       fcntl(w->flows[0]->fd, F_SETFL, fl & ~O_NONBLOCK)))
		return -errno;
	/*
	 * Out of the epoll set too: while registered, epoll's entry stays on
	 * the socket's wait queue, and every packet in and every skb freed
	 * after transmit (sock_wfree -> write space) runs ep_poll_callback
	 * under its irq-off lock, for nobody.
	 */
	if (epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->flows[0]->fd, NULL) < 0)
		return -errno;
	w->block = true;
	return 0;
}

/*
 * udp_rr clients that block: a lost request or reply leaves the worker in
 * recv, so this thread wakes any whose flow made no progress for a
 * quarter of the reply timeout; the worker's timers then count the loss.
 */
static void *watchdog_main(void *arg)
{
	struct engine *e = arg;
	int64_t period = e->o.rr_timeout_ns / 4, next;
	uint64_t *last = calloc(e->nworkers, sizeof(*last));

	if (period < NS_PER_MS)
		period = NS_PER_MS;
	next = base_now_ns() + period;
	/* short naps, so that stop is seen soon whatever the timeout */
	while (last && !atomic_load(&e->stop_req) && !atomic_load(&e->abort)) {
		int64_t nap = next - base_now_ns();
		struct timespec ts;

		if (nap > NUDGE_EVERY_NS)
			nap = NUDGE_EVERY_NS;
		if (nap > 0) {
			ts.tv_sec = nap / NS_PER_S;
			ts.tv_nsec = nap % NS_PER_S;
			nanosleep(&ts, NULL);
			continue;
		}
		next += period;
		for (uint32_t i = 0; i < e->nworkers; i++) {
			struct worker *w = &e->workers[i];
			uint64_t p;

			if (!w->block || !w->flows[0]->tx)
				continue;
			p = flow_settled(w->flows[0]);
			if (p == last[i])
				nudge(w);
			last[i] = p;
		}
	}
	free(last);
	return NULL;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	struct epoll_event ev[64];
	/* quiet_since: once stopping, when the waits began to return
	 * nothing (0: the last one returned events) */
	int64_t drain_end = 0, quiet_since = 0, now;

	atomic_store(&w->tid, (int)gettid());
	if (e->o.sendfile) {
		sigset_t pipe;

		/* sendfile(2) has no MSG_NOSIGNAL: a peer that went away
		 * must give EPIPE, not end the process */
		sigemptyset(&pipe);
		sigaddset(&pipe, SIGPIPE);
		pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	}
	if (w->timed) /* open-loop schedules need wake-ups on time */
		prctl(PR_SET_TIMERSLACK, 1UL);
	pthread_mutex_lock(&e->lock);
	while (!e->go && !atomic_load(&e->abort))
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);
	now = base_now_ns();
	for (uint32_t i = 0; i < w->nflows; i++)
		if (w->flows[i]->ops->start)
			w->flows[i]->ops->start(w, w->flows[i], now);

	if (w->block) {
		worker_block_loop(w);
		notify(e);
		return NULL;
	}
	while (!atomic_load_explicit(&e->abort, memory_order_relaxed)) {
		int64_t wake = w->timed ? next_deadline(w) : INT64_MAX;
		struct timespec ts, *tsp = NULL;
		int n;

		now = base_now_ns();
		if (w->stopping) {
			if (!w->ndrain)
				break;
			if (now >= drain_end) {
				w->drain_timeout = true;
				break;
			}
			if (drain_end < wake)
				wake = drain_end;
			if (e->o.udp && now + UDP_QUIET_NS < wake)
				wake = now + UDP_QUIET_NS;
		}
		if (e->o.spin)
			wake = now; /* look and come back, whatever is due */
		if (wake != INT64_MAX) {
			int64_t d = wake > now ? wake - now : 0;

			ts.tv_sec = d / NS_PER_S;
			ts.tv_nsec = d % NS_PER_S;
			tsp = &ts;
		}
		n = epoll_pwait2(w->epfd, ev, ARRAY_SIZE(ev), tsp, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n > 0)
			quiet_since = 0;
		else if (w->stopping && e->o.udp) {
			if (!quiet_since)
				quiet_since = now;
			if (base_now_ns() - quiet_since >= UDP_QUIET_NS)
				break; /* quiet: every datagram in flight has landed */
		}
		/* a spinning worker that found nothing lets whoever shares
		 * its CPU (the other end, a control thread) run first */
		if ((w->yield && !w->stopping) || (e->o.spin && !n))
			sched_yield();
		for (int i = 0; i < n; i++) {
			struct engine_ev *p = ev[i].data.ptr;
			uint64_t v;

			if (p) {
				p->fn(w, p, ev[i].events);
				continue;
			}
			if (read(w->stopfd, &v, sizeof(v)) < 0) {
				/* counter already consumed */
			}
			if (!w->stopping) {
				drain_end = base_now_ns() + e->o.drain_ns;
				worker_stop(w);
			}
		}
		if (w->timed)
			run_timers(w, base_now_ns());
	}
	notify(e);
	return NULL;
}

struct engine *engine_new(const struct engine_opts *o, struct base_err *err)
{
	struct engine *e;

	if (!o->msg_bytes || o->msg_bytes > JOB_MAX_MSG || !o->threads ||
	    o->threads > JOB_MAX_THREADS || !o->batch ||
	    o->batch > JOB_MAX_BATCH ||
	    (o->kind == ENGINE_STREAM && o->udp && o->msg_bytes < JOB_UDP_HDR_BYTES) ||
	    (o->connect_only && (o->kind != ENGINE_CRR || o->req_bytes || o->resp_bytes)) ||
	    (o->kind != ENGINE_STREAM && !o->connect_only &&
	     (!o->req_bytes || !o->resp_bytes || o->req_bytes > JOB_MAX_MSG ||
	      o->resp_bytes > JOB_MAX_MSG || !o->burst || o->burst > JOB_MAX_BURST ||
	      o->rate < 0 || o->rr_timeout_ns <= 0)) ||
	    (o->kind == ENGINE_CRR && o->udp) ||
	    (o->hold_cpu_latency && o->cpu_latency_us > JOB_MAX_CPU_LATENCY_US) ||
	    ((o->udp_gso || o->udp_gro) && (!o->udp || o->kind != ENGINE_STREAM)) ||
	    (o->udp_gso && (o->udp_gso < JOB_UDP_HDR_BYTES ||
			    o->udp_gso >= o->msg_bytes ||
			    (o->msg_bytes % o->udp_gso &&
			     o->msg_bytes % o->udp_gso < JOB_UDP_HDR_BYTES) ||
			    (o->msg_bytes + o->udp_gso - 1) / o->udp_gso > JOB_MAX_GSO_SEGS))) {
		base_err_set(err, -EINVAL, "invalid engine options");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		base_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->o = *o;
	e->qos_fd = -1;
	e->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->evfd < 0) {
		base_err_set(err, -errno, "eventfd: %s", strerror(errno));
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	return e;
}

enum engine_kind engine_kind_of(const struct job_config *c)
{
	switch (job_test_kind(c->test)) {
	case JOB_KIND_RR:
		return ENGINE_RR;
	case JOB_KIND_CRR:
		return ENGINE_CRR;
	default:
		return ENGINE_STREAM;
	}
}

static const struct flow_ops *pick_ops(const struct engine_opts *o, bool tx)
{
	switch (o->kind) {
	case ENGINE_RR:
		if (o->udp)
			return tx ? &rr_udp_client : &rr_udp_server;
		if (!tx)
			return &rr_tcp_server;
		return o->rate > 0 ? &rr_tcp_client_open : &rr_tcp_client;
	case ENGINE_CRR:
		return tx ? &crr_client : &crr_server;
	default:
		if (o->udp)
			return tx ? &stream_udp_tx : &stream_udp_rx;
		if (o->transfer_bytes)
			return tx ? &stream_tcp_tx_xfer : &stream_tcp_rx_xfer;
		return tx ? &stream_tcp_tx : &stream_tcp_rx;
	}
}

static struct flow *flow_new(struct engine *e, uint32_t id, int fd, bool tx,
			     struct base_err *err)
{
	struct flow *f;

	if (e->launched) {
		base_err_set(err, -EBUSY, "engine already launched");
		return NULL;
	}
	if (e->nflows == e->cap) {
		uint32_t ncap = e->cap ? e->cap * 2 : 16;
		struct flow **p = realloc(e->flows, ncap * sizeof(*p));

		if (!p) {
			base_err_set(err, -ENOMEM, "out of memory");
			return NULL;
		}
		e->flows = p;
		e->cap = ncap;
	}
	f = aligned_alloc(CACHELINE, sizeof(*f));
	if (!f) {
		base_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	memset(f, 0, sizeof(*f));
	f->ev.fn = flow_event;
	f->ops = pick_ops(&e->o, tx);
	f->fd = fd;
	f->id = id;
	f->tx = tx;
	e->flows[e->nflows++] = f;
	return f;
}

int engine_add_flow(struct engine *e, uint32_t id, int fd, bool tx,
		    struct base_err *err)
{
	struct flow *f;
	int ret;

	if (e->o.kind == ENGINE_CRR && tx) {
		close(fd);
		return base_err_set(err, -EINVAL, "a tcp_crr client flow has no socket");
	}
	ret = engine_sock_nonblock(fd);
	if (ret) {
		close(fd);
		return base_err_set(err, ret, "cannot make flow %u nonblocking", id);
	}
	f = flow_new(e, id, fd, tx, err);
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	engine_sock_bufs(fd, &f->sndbuf, &f->rcvbuf);
	/* the udp offloads belong to the socket: UDP_SEGMENT cuts each send
	 * into datagrams, UDP_GRO lets a read return them coalesced */
	if (e->o.udp && e->o.kind == ENGINE_STREAM) {
		int v = tx ? (int)e->o.udp_gso : 1;

		if ((tx ? e->o.udp_gso != 0 : e->o.udp_gro) &&
		    setsockopt(fd, SOL_UDP, tx ? UDP_SEGMENT : UDP_GRO, &v, sizeof(v)) < 0)
			return base_err_set(err, -errno, "flow %u: setsockopt %s: %s", id,
					    tx ? "UDP_SEGMENT" : "UDP_GRO", strerror(errno));
	}
	return 0;
}

int engine_add_connector(struct engine *e, uint32_t id,
			 const struct engine_addr *to,
			 const struct engine_sockopts *so, struct base_err *err)
{
	struct flow *f;

	if (e->o.kind != ENGINE_CRR)
		return base_err_set(err, -EINVAL, "connectors are for tcp_crr");
	f = flow_new(e, id, -1, true, err);
	if (!f)
		return -ENOMEM;
	f->to = *to;
	f->so = *so;
	/* the name's storage is the caller's: keep a copy */
	snprintf(f->cc, sizeof(f->cc), "%s", so->cc ? so->cc : "");
	f->so.cc = f->cc;
	return 0;
}

/*
 * The temporary file tcp_sendfile sends from: unnamed (O_TMPFILE, gone
 * with its last descriptor) in the temp directory; where the filesystem
 * cannot make one, a named file removed at once.
 */
static int tmp_file(struct base_err *err)
{
	const char *dir = collect_tmp_dir();
	char path[PATH_MAX];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);

	if (fd >= 0)
		return fd;
	if (errno != EOPNOTSUPP && errno != EISDIR)
		return base_err_set(err, -errno,
				    "cannot make the message file in %s (TMPDIR, else /tmp): %s",
				    dir, strerror(errno));
	snprintf(path, sizeof(path), "%s/netregress-message.XXXXXX", dir);
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return base_err_set(err, -errno,
				    "cannot make the message file in %s (TMPDIR, else /tmp): %s",
				    dir, strerror(errno));
	unlink(path);
	return fd;
}

/*
 * tcp_sendfile: the message as a file, written from the worker's buffer
 * (its pages in the page cache now, not in the window); senders
 * sendfile(2) from it, as netperf's TCP_SENDFILE and iperf3 -Z send a
 * file. By default the file is in the temp directory, as theirs; with
 * sendfile_from=memfd it is shmem. Which page cache the pages come from
 * matters: on a 6.18 VM, 1.4x from ext4's than from shmem's (a memfd, or
 * a file in /dev/shm), and a regression in one shows only there.
 */
static int message_file(struct worker *w, uint64_t len, struct base_err *err)
{
	uint64_t off = 0;

	if (w->e->o.sendfile_memfd) {
		w->filefd = memfd_create("netregress-message", MFD_CLOEXEC);
		if (w->filefd < 0)
			return base_err_set(err, -errno, "memfd_create: %s",
					    strerror(errno));
	} else if ((w->filefd = tmp_file(err)) < 0) {
		int ret = w->filefd;

		w->filefd = -1;
		return ret;
	}
	while (off < len) {
		ssize_t n = write(w->filefd, w->buf, len - off < w->buf_len ?
						    len - off : w->buf_len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return base_err_set(err, n < 0 ? -errno : -EIO,
					    "cannot write the message file: %s",
					    n < 0 ? strerror(errno) : "short write");
		off += (uint64_t)n;
	}
	return 0;
}

/*
 * A data buffer of len bytes: buf_offset bytes past a page boundary, or
 * from malloc when it is negative. The kernel copies every byte sent or
 * received to or from it, and on some CPUs that copy's speed depends on
 * where the buffer starts relative to the kernel's data (here, AMD Zen:
 * 16 bytes past a page, where malloc puts a 128K buffer, cost 2-6x a
 * page-aligned one in copy_to_user); so it starts where it is told.
 * Returns 0 or -ENOMEM; *mem is what to free.
 */
static int data_buffer(const struct engine_opts *o, size_t len, void **mem,
		       uint8_t **buf)
{
	long page = sysconf(_SC_PAGESIZE);

	*mem = NULL;
	if (o->buf_offset < 0) {
		*mem = malloc(len);
		*buf = *mem;
		return *mem ? 0 : -ENOMEM;
	}
	if (page <= 0)
		page = 4096;
	if (posix_memalign(mem, (size_t)page, len + (size_t)o->buf_offset)) {
		*mem = NULL;
		return -ENOMEM;
	}
	*buf = (uint8_t *)*mem + o->buf_offset;
	return 0;
}

static int worker_init(struct engine *e, struct worker *w, struct base_err *err)
{
	const struct engine_opts *o = &e->o;
	size_t slots = o->udp && o->kind == ENGINE_STREAM ? o->batch : 1;

	w->e = e;
	w->epfd = -1;
	w->stopfd = -1;
	w->rx_len = o->msg_bytes;
	/* a tcp stream reads rmsg bytes per recv: the receiver's pace shapes
	 * the segments the sender's writes become */
	if (!o->udp && o->kind == ENGINE_STREAM && o->rmsg_bytes)
		w->rx_len = o->rmsg_bytes;
	if (!o->udp && o->kind != ENGINE_STREAM && w->rx_len < 64 * 1024)
		w->rx_len = 64 * 1024; /* a read may gather many small replies */
	w->buf_len = o->udp ? slots * o->msg_bytes :
			      (w->rx_len > o->msg_bytes ? w->rx_len : o->msg_bytes);
	if (data_buffer(o, w->buf_len, &w->buf_mem, &w->buf))
		return base_err_set(err, -ENOMEM, "out of memory for worker buffers");
	w->mm = calloc(slots, sizeof(*w->mm));
	w->iov = calloc(slots, sizeof(*w->iov));
	w->flows = calloc(e->nflows, sizeof(*w->flows));
	if (!w->buf || !w->mm || !w->iov || !w->flows)
		return base_err_set(err, -ENOMEM, "out of memory for worker buffers");
	/* touch every page now, not inside the measured window */
	memset(w->buf, 0x5a, w->buf_len);
	for (size_t k = 0; k < slots; k++) {
		w->iov[k].iov_base = w->buf + k * o->msg_bytes;
		w->iov[k].iov_len = o->msg_bytes;
		w->mm[k].msg_hdr.msg_iov = &w->iov[k];
		w->mm[k].msg_hdr.msg_iovlen = 1;
	}
	if (o->kind != ENGINE_STREAM || o->transfer_bytes) {
		w->hist = malloc(sizeof(*w->hist));
		if (!w->hist)
			return base_err_set(err, -ENOMEM, "out of memory for histograms");
		base_hist_init(w->hist);
	}
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->epfd < 0 || w->stopfd < 0)
		return base_err_set(err, -errno, "epoll/eventfd: %s", strerror(errno));
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stopfd,
		      &(struct epoll_event){ .events = EPOLLIN }) < 0)
		return base_err_set(err, -errno, "epoll_ctl: %s", strerror(errno));
	return 0;
}

/*
 * udp_gro: a worker that receives reads into slots of GRO_SLOT bytes (one
 * coalesced read each), each with room for its UDP_GRO control message;
 * batch of them, up to 4 MiB, so only workers with a receiving flow.
 */
static int gro_buffers(struct worker *w, size_t slots, struct base_err *err)
{
	int ret = data_buffer(&w->e->o, slots * GRO_SLOT, &w->gro_mem,
			      &w->gro_buf);

	w->gro_ctl = calloc(slots, GRO_CTL);
	w->gro_mm = calloc(slots, sizeof(*w->gro_mm));
	w->gro_iov = calloc(slots, sizeof(*w->gro_iov));
	if (ret || !w->gro_ctl || !w->gro_mm || !w->gro_iov)
		return base_err_set(err, -ENOMEM, "out of memory for receive buffers");
	/* touch every page now, not inside the measured window */
	memset(w->gro_buf, 0, slots * GRO_SLOT);
	for (size_t k = 0; k < slots; k++) {
		w->gro_iov[k].iov_base = w->gro_buf + k * GRO_SLOT;
		w->gro_iov[k].iov_len = GRO_SLOT;
		w->gro_mm[k].msg_hdr.msg_iov = &w->gro_iov[k];
		w->gro_mm[k].msg_hdr.msg_iovlen = 1;
		w->gro_mm[k].msg_hdr.msg_control = w->gro_ctl + k * GRO_CTL;
	}
	return 0;
}

/* Per-flow memory of the request/response workloads, before the run. */
static int flow_prepare(struct engine *e, struct flow *f, struct base_err *err)
{
	const struct engine_opts *o = &e->o;

	if (o->kind == ENGINE_RR && f->tx) {
		f->ring_cap = o->rate > 0 ? OPEN_LOOP_RING : o->burst;
		f->ring = calloc(f->ring_cap, sizeof(*f->ring));
		if (!f->ring)
			return base_err_set(err, -ENOMEM, "out of memory");
		if (o->rate > 0)
			f->period_ns = (int64_t)(NS_PER_S / o->rate);
		if (f->period_ns < 1)
			f->period_ns = 1;
	}
	if (o->kind == ENGINE_CRR && f->tx) {
		f->ring_cap = 1;
		f->ring = calloc(1, sizeof(*f->ring));
		if (!f->ring)
			return base_err_set(err, -ENOMEM, "out of memory");
	}
	/* a tcp_crr listener's open connections (tcp_cc keeps none) */
	if (o->kind == ENGINE_CRR && !f->tx && !o->connect_only) {
		f->nconns = CRR_CONNS;
		f->conns = calloc(f->nconns, sizeof(*f->conns));
		if (!f->conns)
			return base_err_set(err, -ENOMEM, "out of memory");
		for (uint32_t i = 0; i < f->nconns; i++)
			f->conns[i].fd = -1;
	}
	return 0;
}

/*
 * A udp sender's calls per wake-up and datagrams per call. Sends on
 * loopback and veth deliver to the peer's socket in the sender's own
 * context and never wait, so a worker that also receives udp (dir bidir)
 * filled the peer's socket and then its own by IO_BUDGET calls of batch
 * datagrams before its receivers got a turn: 95% of a 1472 B bidir stream
 * and 99.7% of an 8952 B one on veth were lost in the receive buffers, and
 * the figure measured that turn-taking, not the kernel. Such a worker
 * takes turns: one send call per flow, then its receivers; and a call
 * carries at most a quarter of the receive buffer in payload (the kernel
 * charges a datagram's truesize, up to twice its payload, so half the
 * buffer), at least one datagram. The buffer is the smaller of this end's
 * (granted) and the one the peer asked for (doubled, as Linux grants it).
 */
static void tx_budget(const struct engine *e, struct worker *w)
{
	uint64_t rcvbuf = UINT64_MAX, fit;
	bool tx = false, rx = false;

	w->tx_budget = IO_BUDGET;
	w->tx_batch = e->o.batch;
	for (uint32_t i = 0; i < w->nflows; i++) {
		const struct flow *f = w->flows[i];

		tx |= f->tx;
		if (!f->tx) {
			rx = true;
			if (f->rcvbuf && f->rcvbuf < rcvbuf)
				rcvbuf = f->rcvbuf;
		}
	}
	if (!e->o.udp || e->o.kind != ENGINE_STREAM || !tx || !rx)
		return;
	if (e->o.peer_rcvbuf && e->o.peer_rcvbuf < UINT64_MAX / 2 &&
	    2 * e->o.peer_rcvbuf < rcvbuf)
		rcvbuf = 2 * e->o.peer_rcvbuf;
	w->tx_budget = 1;
	w->yield = !e->o.cpus.n || e->nworkers > e->o.cpus.n || e->o.cpus_shared;
	if (rcvbuf == UINT64_MAX)
		return;
	fit = rcvbuf / 4 / e->o.msg_bytes;
	if (fit < 1)
		fit = 1;
	if (fit < w->tx_batch)
		w->tx_batch = (uint32_t)fit;
}

/*
 * The kernel's CPU latency QoS request: while the file is open, no CPU of
 * the machine enters an idle state whose exit latency exceeds the value
 * written. The kernel drops the request when the file closes, however the
 * process ends, so nothing is left to undo. Reading the file gives the
 * request in force, the lowest of all holders'.
 */
#define CPU_LATENCY_DEV "/dev/cpu_dma_latency"

static int hold_cpu_latency(struct engine *e, struct base_err *err)
{
	int32_t want = (int32_t)e->o.cpu_latency_us, now;
	ssize_t n;

	e->qos_fd = open(CPU_LATENCY_DEV, O_RDWR | O_CLOEXEC);
	if (e->qos_fd < 0)
		return base_err_set(err, -errno,
				    "cannot hold the CPU latency request at %" PRId32
				    " us: " CPU_LATENCY_DEV ": %s%s",
				    want, strerror(errno),
				    errno == EACCES ? " (it needs root)" : "");
	n = write(e->qos_fd, &want, sizeof(want));
	if (n != (ssize_t)sizeof(want))
		return base_err_set(err, n < 0 ? -errno : -EIO,
				    "cannot hold the CPU latency request at %" PRId32
				    " us: writing " CPU_LATENCY_DEV ": %s",
				    want, n < 0 ? strerror(errno) : "short write");
	n = pread(e->qos_fd, &now, sizeof(now), 0);
	if (n != (ssize_t)sizeof(now))
		return base_err_set(err, n < 0 ? -errno : -EIO,
				    "cannot read back the CPU latency request: %s",
				    n < 0 ? strerror(errno) : "short read");
	if (now > want)
		return base_err_set(err, -EIO,
				    "the CPU latency request in force is %" PRId32
				    " us after asking for %" PRId32 " us",
				    now, want);
	return 0;
}

int engine_launch(struct engine *e, struct base_err *err)
{
	const struct base_cpulist *cpus = &e->o.cpus;
	int ret;

	if (e->launched || !e->nflows)
		return base_err_set(err, -EINVAL, "engine has no flows to run");
	if (e->o.hold_cpu_latency && (ret = hold_cpu_latency(e, err)))
		return ret;
	e->launched = true;
	e->nworkers = e->o.threads < e->nflows ? e->o.threads : e->nflows;
	e->workers = aligned_alloc(CACHELINE, e->nworkers * sizeof(*e->workers));
	if (!e->workers)
		return base_err_set(err, -ENOMEM, "out of memory");
	memset(e->workers, 0, e->nworkers * sizeof(*e->workers));
	for (uint32_t i = 0; i < e->nworkers; i++) {
		e->workers[i].epfd = -1;
		e->workers[i].stopfd = -1;
		e->workers[i].filefd = -1;
	}
	for (uint32_t i = 0; i < e->nworkers; i++)
		if ((ret = worker_init(e, &e->workers[i], err)))
			return ret;
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct flow *f = e->flows[i];
		struct worker *w = &e->workers[i % e->nworkers];

		if ((ret = flow_prepare(e, f, err)))
			return ret;
		f->w = w;
		w->flows[w->nflows++] = f;
		if (f->ops->deadline)
			w->timed = true;
		/* a worker that sends with sendfile(2) gets its file */
		if (e->o.sendfile && f->tx && w->filefd < 0 &&
		    (ret = message_file(w, e->o.msg_bytes, err)))
			return ret;
		/* and one that reads with UDP_GRO its coalesced slots */
		if (e->o.udp_gro && !f->tx && !w->gro_mm &&
		    (ret = gro_buffers(w, e->o.batch, err)))
			return ret;
		if (f->fd < 0)
			continue; /* a connector registers each connection */
		f->interest = f->ops->events;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, f->fd,
			      &(struct epoll_event){ .events = f->interest,
						     .data.ptr = &f->ev }) < 0)
			return base_err_set(err, -errno, "epoll_ctl: %s",
					    strerror(errno));
	}
	for (uint32_t i = 0; i < e->nworkers; i++)
		tx_budget(e, &e->workers[i]);
	for (uint32_t i = 0; i < e->nworkers; i++)
		if ((ret = worker_blocking(&e->workers[i])))
			return base_err_set(err, ret, "cannot make a flow's socket blocking: %s",
					    strerror(-ret));
	for (uint32_t i = 0; i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];
		pthread_attr_t attr;

		pthread_attr_init(&attr);
		if (cpus->n) {
			cpu_set_t set;
			int cpu = cpus->cpu[i % cpus->n];

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		ret = pthread_create(&w->th, &attr, worker_main, w);
		pthread_attr_destroy(&attr);
		if (ret) {
			if (cpus->n)
				return base_err_set(err, -ret,
						    "cannot start a worker on cpu %d: %s (is that cpu online and allowed?)",
						    cpus->cpu[i % cpus->n], strerror(ret));
			return base_err_set(err, -ret, "cannot start a worker: %s",
					    strerror(ret));
		}
		w->running = true;
	}
	if (e->o.udp && e->o.kind == ENGINE_RR) {
		bool want = false;

		for (uint32_t i = 0; i < e->nworkers; i++)
			want |= e->workers[i].block && e->workers[i].flows[0]->tx;
		if (want) {
			ret = pthread_create(&e->watchdog, NULL, watchdog_main, e);
			if (ret)
				return base_err_set(err, -ret, "cannot start the udp_rr watchdog: %s",
						    strerror(ret));
			e->has_watchdog = true;
		}
	}
	return 0;
}

int engine_event_fd(const struct engine *e)
{
	return e->evfd;
}

void engine_go(struct engine *e)
{
	pthread_mutex_lock(&e->lock);
	e->go = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

int64_t engine_mark(struct engine *e, int which)
{
	int64_t t = base_now_ns();

	BUG_ON(which != MARK_START && which != MARK_END);
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct flow *f = e->flows[i];

		f->mark_bytes[which] = ctr_get(&f->bytes);
		f->mark_msgs[which] = ctr_get(&f->msgs);
		f->mark_lost[which] = ctr_get(&f->lost);
		f->mark_reord[which] = ctr_get(&f->reord);
		f->mark_dup[which] = ctr_get(&f->dup);
		f->mark_fails[which] = ctr_get(&f->fails);
		f->mark_calls[which] = ctr_get(&f->calls);
	}
	atomic_store(&e->measuring, which == MARK_START ? 1 : 2);
	/* after every flow's counters and the latencies' switch, so that
	 * these system calls do not spread the mark over the flows, nor
	 * part the counters from the latency histogram */
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct flow *f = e->flows[i];

		f->mark_tcpi_ok[which] = flow_counts_tcpi(e, f) &&
					 !engine_sock_tcp_counts(f->fd, &f->mark_tcpi[which]);
		/* udp only: a tcp socket's count also takes in the duplicates
		 * it discards (tcp.dsack_dups) */
		f->mark_drops_ok[which] = !f->tx && f->fd >= 0 && e->o.udp &&
					  e->o.kind == ENGINE_STREAM &&
					  !engine_sock_drops(f->fd, &f->mark_drops[which]);
	}
	return t;
}

void engine_stop(struct engine *e)
{
	uint64_t one = 1;

	if (e->stopped || !e->launched)
		return;
	e->stopped = true;
	atomic_store(&e->stop_req, true);
	for (uint32_t i = 0; i < e->nworkers; i++)
		if (e->workers[i].stopfd >= 0 &&
		    write(e->workers[i].stopfd, &one, sizeof(one)) < 0) {
			/* cannot fail below 2^64-1 */
		}
}

int engine_join(struct engine *e)
{
	int ret = 0;

	if (!e->launched || e->joined)
		return 0;
	engine_go(e); /* a run that never started still ends */
	engine_stop(e);
	if (e->has_watchdog) {
		pthread_join(e->watchdog, NULL);
		e->has_watchdog = false;
	}
	for (uint32_t i = 0; i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];

		/* a blocked worker may have missed a nudge sent just before
		 * its recv: nudge until it is out */
		while (w->running && w->block) {
			struct timespec ts;

			nudge(w);
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += NUDGE_EVERY_NS;
			if (ts.tv_nsec >= NS_PER_S) {
				ts.tv_sec++;
				ts.tv_nsec -= NS_PER_S;
			}
			if (!pthread_timedjoin_np(w->th, NULL, &ts))
				w->running = false;
		}
		if (w->running)
			pthread_join(w->th, NULL);
		w->running = false;
		if (w->drain_timeout)
			ret = -ETIMEDOUT;
	}
	e->joined = true;
	return ret;
}

void engine_totals(const struct engine *e, uint64_t *rx_bytes,
		   uint64_t *tx_bytes)
{
	*rx_bytes = *tx_bytes = 0;
	for (uint32_t i = 0; i < e->nflows; i++) {
		const struct flow *f = e->flows[i];

		*(f->tx ? tx_bytes : rx_bytes) += ctr_get(&f->bytes);
	}
}

uint64_t engine_transactions(const struct engine *e)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < e->nflows; i++)
		if (e->flows[i]->tx)
			n += ctr_get(&e->flows[i]->msgs);
	return n;
}

int engine_failure(const struct engine *e, struct base_err *err)
{
	int i = atomic_load(&e->failed);
	const struct flow *f;

	if (!i)
		return 0;
	f = e->flows[i - 1];
	return base_err_set(err, -f->err, "data connection of flow %u failed while %s: %s",
			    f->id, f->tx ? "sending" : "receiving",
			    strerror(f->err));
}

uint32_t engine_nflows(const struct engine *e)
{
	return e->nflows;
}

uint32_t engine_nworkers(const struct engine *e)
{
	return e->launched ? e->nworkers : 0;
}

int engine_worker_tid(const struct engine *e, uint32_t i)
{
	return i < engine_nworkers(e) ? atomic_load(&e->workers[i].tid) : 0;
}

int64_t engine_worker_cpu_ns(const struct engine *e, uint32_t i)
{
	struct timespec ts;
	clockid_t cid;

	if (i >= engine_nworkers(e) || !atomic_load(&e->workers[i].tid) ||
	    pthread_getcpuclockid(e->workers[i].th, &cid) ||
	    clock_gettime(cid, &ts))
		return -1;
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

struct base_hist *engine_latency(const struct engine *e)
{
	struct base_hist *h;

	if (e->o.kind == ENGINE_STREAM && !e->o.transfer_bytes)
		return NULL;
	h = malloc(sizeof(*h));
	if (!h)
		return NULL;
	base_hist_init(h);
	for (uint32_t i = 0; e->workers && i < e->nworkers; i++)
		if (e->workers[i].hist)
			base_hist_merge(h, e->workers[i].hist);
	return h;
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

void engine_flow_result(const struct engine *e, uint32_t i,
			struct proto_flow_report *out)
{
	const struct flow *f = e->flows[i];

	memset(out, 0, sizeof(*out));
	out->id = f->id;
	out->tx = f->tx;
	out->win_bytes = delta(f->mark_bytes[0], f->mark_bytes[1]);
	out->win_msgs = delta(f->mark_msgs[0], f->mark_msgs[1]);
	out->total_bytes = ctr_get(&f->bytes);
	out->total_msgs = ctr_get(&f->msgs);
	out->udp_lost = delta(f->mark_lost[0], f->mark_lost[1]);
	out->udp_reordered = delta(f->mark_reord[0], f->mark_reord[1]);
	out->udp_dup = delta(f->mark_dup[0], f->mark_dup[1]);
	out->fails = delta(f->mark_fails[0], f->mark_fails[1]);
	out->win_calls = delta(f->mark_calls[0], f->mark_calls[1]);
	out->sndbuf = f->sndbuf;
	out->rcvbuf = f->rcvbuf;
	out->sndbuf_end = f->sndbuf_end;
	out->rcvbuf_end = f->rcvbuf_end;
	out->eof = f->eof;
	out->err = f->err;
	out->has_tcpi = f->has_tcpi;
	out->tcpi = f->tcpi;
	out->has_tcpi_rx = f->has_tcpi_rx;
	out->tcpi_rx = f->tcpi_rx;
	out->has_sock_drops = f->mark_drops_ok[0] && f->mark_drops_ok[1];
	/* sk_drops is 32 bits wide: the difference survives a wrap */
	if (out->has_sock_drops)
		out->sock_drops = (uint32_t)(f->mark_drops[1] - f->mark_drops[0]);
	out->has_tcpi_win = f->mark_tcpi_ok[0] && f->mark_tcpi_ok[1];
	if (out->has_tcpi_win) {
		const struct proto_tcpi_win *a = &f->mark_tcpi[0], *b = &f->mark_tcpi[1];

		/* the 32-bit counters wrap; their difference is still right */
		out->tcpi_win.data_segs_out = b->data_segs_out - a->data_segs_out;
		out->tcpi_win.retrans = b->retrans - a->retrans;
		out->tcpi_win.dsack_dups = b->dsack_dups - a->dsack_dups;
		out->tcpi_win.reord_seen = b->reord_seen - a->reord_seen;
		out->tcpi_win.bytes_sent = delta(a->bytes_sent, b->bytes_sent);
		out->tcpi_win.busy_us = delta(a->busy_us, b->busy_us);
		out->tcpi_win.rwnd_limited_us = delta(a->rwnd_limited_us, b->rwnd_limited_us);
		out->tcpi_win.sndbuf_limited_us = delta(a->sndbuf_limited_us, b->sndbuf_limited_us);
		out->tcpi_win.has_segs = a->has_segs && b->has_segs;
		out->tcpi_win.segs_out = b->segs_out - a->segs_out;
		out->tcpi_win.data_segs_in = b->data_segs_in - a->data_segs_in;
	}
}

void engine_free(struct engine *e)
{
	if (!e)
		return;
	atomic_store(&e->abort, true);
	if (e->launched) {
		pthread_mutex_lock(&e->lock);
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
		engine_join(e);
	}
	for (uint32_t i = 0; e->workers && i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];

		if (w->epfd >= 0)
			close(w->epfd);
		if (w->stopfd >= 0)
			close(w->stopfd);
		if (w->filefd >= 0)
			close(w->filefd);
		free(w->buf_mem);
		free(w->mm);
		free(w->iov);
		free(w->gro_mem);
		free(w->gro_ctl);
		free(w->gro_mm);
		free(w->gro_iov);
		free(w->flows);
		free(w->hist);
	}
	free(e->workers);
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct flow *f = e->flows[i];

		if (f->fd >= 0)
			close(f->fd);
		for (uint32_t k = 0; k < f->nconns; k++)
			if (f->conns[k].fd >= 0)
				close(f->conns[k].fd);
		free(f->conns);
		free(f->ring);
		free(f);
	}
	free(e->flows);
	if (e->qos_fd >= 0)
		close(e->qos_fd);
	close(e->evfd);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
