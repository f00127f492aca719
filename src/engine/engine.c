// SPDX-License-Identifier: GPL-2.0-only
/* Worker threads and their epoll loops: the hot path of every stream test. */
#include "engine/engine.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/time.h"
#include "job/config.h"

#define CACHELINE 64
#define IO_BUDGET 64          /* syscalls per flow per wake-up, for fairness */
#define TCP_RX_MIN (128 << 10) /* tcp reads are at least this large */
#define TCP_RX_MAX (1 << 20)
#define UDP_QUIET_NS (200 * NS_PER_MS)
#define SEQ_WIN 1024          /* datagrams remembered for dup/reorder */

enum { MARK_START, MARK_END };

struct worker;

struct flow {
	/* written only by the owning worker; read by the control thread */
	_Atomic uint64_t bytes, msgs, lost, reord, dup;
	uint64_t tx_off;   /* tcp: offset into the message being sent */
	uint64_t seq_next; /* udp tx: next sequence; rx: highest seen + 1 */
	uint64_t seen[SEQ_WIN / 64];
	struct worker *w;
	int fd;
	uint32_t id;
	bool tx, done, eof;
	int err;
	/* set by the worker at stop, read after join */
	uint64_t sndbuf_end, rcvbuf_end;
	bool has_tcpi;
	struct proto_tcpi tcpi;
	/* control thread only */
	uint64_t mark_bytes[2], mark_msgs[2], mark_lost[2], mark_reord[2],
		mark_dup[2];
	uint64_t sndbuf, rcvbuf;
} __attribute__((aligned(CACHELINE)));

struct worker {
	struct engine *e;
	pthread_t th;
	bool running;
	int epfd, stopfd;
	struct flow **flows;
	uint32_t nflows, nrx_open;
	uint8_t *buf;
	size_t rx_len;
	struct mmsghdr *mm;
	struct iovec *iov;
	bool drain_timeout;
} __attribute__((aligned(CACHELINE)));

struct engine {
	struct engine_opts o;
	struct flow **flows;
	uint32_t nflows, cap;
	struct worker *workers;
	uint32_t nworkers;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool go, launched, stopped, joined;
	_Atomic bool abort;
	_Atomic int failed; /* index + 1 of the first failed flow */
	int evfd;
};

static void notify(struct engine *e)
{
	uint64_t one = 1;

	/* an eventfd write cannot block below 2^64-1 */
	if (write(e->evfd, &one, sizeof(one)) < 0) {
		/* nothing to do: the control thread also polls with a timeout */
	}
}

static inline void add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline uint64_t get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* Take a flow out of the loop: done, failed (err) or at EOF. */
static void flow_close(struct worker *w, struct flow *f, int err)
{
	struct engine *e = w->e;
	int expected = 0;

	if (f->done)
		return;
	f->done = true;
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, f->fd, NULL);
	if (!f->tx)
		w->nrx_open--;
	if (err) {
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
}

static void tcp_send(struct worker *w, struct flow *f)
{
	const uint64_t msg = w->e->o.msg_bytes;
	uint64_t bytes = 0, msgs = 0;

	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = send(f->fd, w->buf + f->tx_off, msg - f->tx_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			bytes += (uint64_t)n;
			f->tx_off += (uint64_t)n;
			if (f->tx_off == msg) {
				f->tx_off = 0;
				msgs++;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			flow_close(w, f, errno);
		break;
	}
	add(&f->bytes, bytes);
	add(&f->msgs, msgs);
}

static void tcp_recv(struct worker *w, struct flow *f)
{
	uint64_t bytes = 0;

	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = recv(f->fd, w->buf, w->rx_len, MSG_DONTWAIT);

		if (n > 0) {
			bytes += (uint64_t)n;
			continue;
		}
		if (n == 0) {
			f->eof = true;
			flow_close(w, f, 0);
		} else if (errno == EINTR) {
			continue;
		} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
			flow_close(w, f, errno);
		}
		break;
	}
	add(&f->bytes, bytes);
	/* a tcp "message" on the receiving side is msg_bytes of the stream */
	atomic_store_explicit(&f->msgs, get(&f->bytes) / w->e->o.msg_bytes,
			      memory_order_relaxed);
}

static void udp_send(struct worker *w, struct flow *f)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->e->o.batch;
	uint64_t sent = 0;

	for (int i = 0; i < IO_BUDGET; i++) {
		int n;

		for (uint32_t k = 0; k < batch; k++) {
			uint64_t seq = f->seq_next + k;

			memcpy(w->buf + k * msg, &seq, sizeof(seq));
		}
		n = batch == 1 ? (int)send(f->fd, w->buf, msg, MSG_DONTWAIT) :
				 sendmmsg(f->fd, w->mm, batch, MSG_DONTWAIT);
		if (batch == 1 && n > 0)
			n = 1;
		if (n > 0) {
			f->seq_next += (uint64_t)n;
			sent += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* ENOBUFS: a full queue below us, as good as EAGAIN */
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		    errno != ENOBUFS)
			flow_close(w, f, errno);
		break;
	}
	add(&f->bytes, sent * msg);
	add(&f->msgs, sent);
}

/* Account one datagram's sequence number: gaps are losses until the
 * missing datagram shows up late (reordered) or twice (duplicate). */
static void udp_track(struct flow *f, uint64_t seq, uint64_t *lost,
		      uint64_t *reord, uint64_t *dup)
{
	if (seq >= f->seq_next) {
		uint64_t gap = seq - f->seq_next;

		if (gap >= SEQ_WIN) {
			memset(f->seen, 0, sizeof(f->seen));
		} else {
			for (uint64_t s = f->seq_next; s < seq; s++)
				f->seen[(s / 64) % (SEQ_WIN / 64)] &=
					~(1ULL << (s % 64));
		}
		f->seen[(seq / 64) % (SEQ_WIN / 64)] |= 1ULL << (seq % 64);
		*lost += gap;
		f->seq_next = seq + 1;
		return;
	}
	if (f->seq_next - seq > SEQ_WIN) {
		(*reord)++; /* too old to tell a duplicate from a late one */
	} else if (f->seen[(seq / 64) % (SEQ_WIN / 64)] & (1ULL << (seq % 64))) {
		(*dup)++;
		return;
	} else {
		f->seen[(seq / 64) % (SEQ_WIN / 64)] |= 1ULL << (seq % 64);
		(*reord)++;
	}
	/* it had been counted lost when the gap opened */
	if (*lost)
		(*lost)--;
	else if (get(&f->lost))
		add(&f->lost, (uint64_t)-1);
}

static void udp_recv(struct worker *w, struct flow *f)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->e->o.batch;
	uint64_t bytes = 0, msgs = 0, lost = 0, reord = 0, dup = 0;

	for (int i = 0; i < IO_BUDGET; i++) {
		int n;

		if (batch == 1) {
			ssize_t r = recv(f->fd, w->buf, msg, MSG_DONTWAIT);

			n = r >= 0 ? 1 : -1;
			if (r >= 0)
				w->mm[0].msg_len = (unsigned)r;
		} else {
			n = recvmmsg(f->fd, w->mm, batch, MSG_DONTWAIT, NULL);
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* ECONNREFUSED is a stale ICMP error from the peer's
			 * start or end, not a failure of this flow */
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ECONNREFUSED)
				flow_close(w, f, errno);
			break;
		}
		for (int k = 0; k < n; k++) {
			uint32_t len = w->mm[k].msg_len;
			uint64_t seq;

			bytes += len;
			msgs++;
			if (len >= sizeof(seq)) {
				memcpy(&seq, w->buf + (uint64_t)k * msg, sizeof(seq));
				udp_track(f, seq, &lost, &reord, &dup);
			}
		}
	}
	add(&f->bytes, bytes);
	add(&f->msgs, msgs);
	add(&f->lost, lost);
	add(&f->reord, reord);
	add(&f->dup, dup);
}

static void flow_io(struct worker *w, struct flow *f)
{
	if (f->done)
		return;
	if (w->e->o.udp)
		f->tx ? udp_send(w, f) : udp_recv(w, f);
	else
		f->tx ? tcp_send(w, f) : tcp_recv(w, f);
}

/* Stop sending: record the sender's state, then let the peer see EOF. */
static void worker_stop_tx(struct worker *w)
{
	for (uint32_t i = 0; i < w->nflows; i++) {
		struct flow *f = w->flows[i];

		engine_sock_bufs(f->fd, &f->sndbuf_end, &f->rcvbuf_end);
		if (!f->tx)
			continue;
		if (!w->e->o.udp)
			f->has_tcpi = !engine_sock_tcp_info(f->fd, &f->tcpi);
		if (!f->done) {
			epoll_ctl(w->epfd, EPOLL_CTL_DEL, f->fd, NULL);
			f->done = true;
		}
		if (!w->e->o.udp)
			shutdown(f->fd, SHUT_WR);
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct engine *e = w->e;
	struct epoll_event ev[64];
	bool stopping = false;
	int64_t drain_end = 0;

	pthread_mutex_lock(&e->lock);
	while (!e->go && !atomic_load(&e->abort))
		pthread_cond_wait(&e->cond, &e->lock);
	pthread_mutex_unlock(&e->lock);

	while (!atomic_load_explicit(&e->abort, memory_order_relaxed)) {
		int timeout = -1, n;

		if (stopping) {
			int64_t left = drain_end - base_now_ns();

			if (!w->nrx_open)
				break;
			if (left <= 0) {
				w->drain_timeout = true;
				break;
			}
			timeout = (int)((left + NS_PER_MS - 1) / NS_PER_MS);
			if (e->o.udp && timeout > UDP_QUIET_NS / NS_PER_MS)
				timeout = UDP_QUIET_NS / NS_PER_MS;
		}
		n = epoll_wait(w->epfd, ev, ARRAY_SIZE(ev), timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0 && stopping && e->o.udp)
			break; /* quiet: every datagram in flight has landed */
		for (int i = 0; i < n; i++) {
			struct flow *f = ev[i].data.ptr;
			uint64_t v;

			if (f) {
				flow_io(w, f);
				continue;
			}
			if (read(w->stopfd, &v, sizeof(v)) < 0) {
				/* counter already consumed: nothing to do */
			}
			if (!stopping) {
				stopping = true;
				drain_end = base_now_ns() + e->o.drain_ns;
				worker_stop_tx(w);
			}
		}
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
	    (o->udp && o->msg_bytes < JOB_UDP_HDR_BYTES)) {
		base_err_set(err, -EINVAL, "invalid engine options");
		return NULL;
	}
	e = calloc(1, sizeof(*e));
	if (!e) {
		base_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	e->o = *o;
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

int engine_add_flow(struct engine *e, uint32_t id, int fd, bool tx,
		    struct base_err *err)
{
	struct flow *f;
	int ret;

	if (e->launched) {
		ret = base_err_set(err, -EBUSY, "engine already launched");
		goto fail;
	}
	if (e->nflows == e->cap) {
		uint32_t ncap = e->cap ? e->cap * 2 : 16;
		struct flow **p = realloc(e->flows, ncap * sizeof(*p));

		if (!p) {
			ret = base_err_set(err, -ENOMEM, "out of memory");
			goto fail;
		}
		e->flows = p;
		e->cap = ncap;
	}
	f = aligned_alloc(CACHELINE, sizeof(*f));
	if (!f) {
		ret = base_err_set(err, -ENOMEM, "out of memory");
		goto fail;
	}
	memset(f, 0, sizeof(*f));
	f->fd = fd;
	f->id = id;
	f->tx = tx;
	ret = engine_sock_nonblock(fd);
	if (ret) {
		free(f);
		base_err_set(err, ret, "cannot make flow %u nonblocking", id);
		goto fail;
	}
	engine_sock_bufs(fd, &f->sndbuf, &f->rcvbuf);
	e->flows[e->nflows++] = f;
	return 0;
fail:
	close(fd);
	return ret;
}

static int worker_init(struct engine *e, struct worker *w, struct base_err *err)
{
	const struct engine_opts *o = &e->o;
	size_t slots = o->udp ? o->batch : 1, buflen;

	w->e = e;
	w->epfd = -1;
	w->stopfd = -1;
	w->rx_len = o->msg_bytes;
	if (!o->udp) {
		if (w->rx_len < TCP_RX_MIN)
			w->rx_len = TCP_RX_MIN;
		if (w->rx_len > TCP_RX_MAX && o->msg_bytes <= TCP_RX_MAX)
			w->rx_len = TCP_RX_MAX;
	}
	buflen = o->udp ? slots * o->msg_bytes :
			  (w->rx_len > o->msg_bytes ? w->rx_len : o->msg_bytes);
	w->buf = malloc(buflen);
	w->mm = calloc(slots, sizeof(*w->mm));
	w->iov = calloc(slots, sizeof(*w->iov));
	w->flows = calloc(e->nflows, sizeof(*w->flows));
	if (!w->buf || !w->mm || !w->iov || !w->flows)
		return base_err_set(err, -ENOMEM, "out of memory for worker buffers");
	/* touch every page now, not inside the measured window */
	memset(w->buf, 0x5a, buflen);
	for (size_t k = 0; k < slots; k++) {
		w->iov[k].iov_base = w->buf + k * o->msg_bytes;
		w->iov[k].iov_len = o->msg_bytes;
		w->mm[k].msg_hdr.msg_iov = &w->iov[k];
		w->mm[k].msg_hdr.msg_iovlen = 1;
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

int engine_launch(struct engine *e, struct base_err *err)
{
	const struct base_cpulist *cpus = &e->o.cpus;
	int ret;

	if (e->launched || !e->nflows)
		return base_err_set(err, -EINVAL, "engine has no flows to run");
	e->launched = true;
	e->nworkers = e->o.threads < e->nflows ? e->o.threads : e->nflows;
	e->workers = aligned_alloc(CACHELINE, e->nworkers * sizeof(*e->workers));
	if (!e->workers)
		return base_err_set(err, -ENOMEM, "out of memory");
	memset(e->workers, 0, e->nworkers * sizeof(*e->workers));
	for (uint32_t i = 0; i < e->nworkers; i++) {
		e->workers[i].epfd = -1;
		e->workers[i].stopfd = -1;
	}
	for (uint32_t i = 0; i < e->nworkers; i++)
		if ((ret = worker_init(e, &e->workers[i], err)))
			return ret;
	for (uint32_t i = 0; i < e->nflows; i++) {
		struct flow *f = e->flows[i];
		struct worker *w = &e->workers[i % e->nworkers];
		struct epoll_event ev = {
			.events = f->tx ? EPOLLOUT : EPOLLIN,
			.data.ptr = f,
		};

		f->w = w;
		w->flows[w->nflows++] = f;
		if (!f->tx)
			w->nrx_open++;
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, f->fd, &ev) < 0)
			return base_err_set(err, -errno, "epoll_ctl: %s",
					    strerror(errno));
	}
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

		f->mark_bytes[which] = get(&f->bytes);
		f->mark_msgs[which] = get(&f->msgs);
		f->mark_lost[which] = get(&f->lost);
		f->mark_reord[which] = get(&f->reord);
		f->mark_dup[which] = get(&f->dup);
	}
	return t;
}

void engine_stop(struct engine *e)
{
	uint64_t one = 1;

	if (e->stopped || !e->launched)
		return;
	e->stopped = true;
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
	for (uint32_t i = 0; i < e->nworkers; i++) {
		struct worker *w = &e->workers[i];

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

		*(f->tx ? tx_bytes : rx_bytes) += get(&f->bytes);
	}
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
	out->total_bytes = get(&f->bytes);
	out->total_msgs = get(&f->msgs);
	out->udp_lost = delta(f->mark_lost[0], f->mark_lost[1]);
	out->udp_reordered = delta(f->mark_reord[0], f->mark_reord[1]);
	out->udp_dup = delta(f->mark_dup[0], f->mark_dup[1]);
	out->sndbuf = f->sndbuf;
	out->rcvbuf = f->rcvbuf;
	out->sndbuf_end = f->sndbuf_end;
	out->rcvbuf_end = f->rcvbuf_end;
	out->eof = f->eof;
	out->err = f->err;
	out->has_tcpi = f->has_tcpi;
	out->tcpi = f->tcpi;
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
		free(w->buf);
		free(w->mm);
		free(w->iov);
		free(w->flows);
	}
	free(e->workers);
	for (uint32_t i = 0; i < e->nflows; i++) {
		close(e->flows[i]->fd);
		free(e->flows[i]);
	}
	free(e->flows);
	close(e->evfd);
	pthread_cond_destroy(&e->cond);
	pthread_mutex_destroy(&e->lock);
	free(e);
}
