// SPDX-License-Identifier: GPL-2.0-only
/* Request/response: tcp_rr and udp_rr clients (closed and open loop) and servers. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "base/time.h"
#include "engine/internal.h"

/*
 * The ring holds the requests in flight in send order. TCP replies come
 * back in order and complete the head; UDP replies are matched by the
 * sequence number the request carried and may leave holes, which are
 * popped once they reach the head.
 */
static bool ring_full(const struct flow *f)
{
	return f->ring_used == f->ring_cap;
}

static void ring_push(struct flow *f, int64_t t, uint64_t seq)
{
	struct rr_slot *s = &f->ring[(f->ring_head + f->ring_used) % f->ring_cap];

	s->t_ns = t;
	s->seq = seq;
	s->live = true;
	f->ring_used++;
	f->ring_live++;
}

static void ring_pop_dead(struct flow *f)
{
	while (f->ring_used && !f->ring[f->ring_head].live) {
		f->ring_head = (f->ring_head + 1) % f->ring_cap;
		f->ring_used--;
	}
}

static void ring_kill(struct flow *f, struct rr_slot *s)
{
	s->live = false;
	f->ring_live--;
	ring_pop_dead(f);
}

/* Closed loop with one request in flight per flow: after a request (on
 * the server) or its reply (on the client) the socket holds nothing else,
 * so reading on until EAGAIN would only cost a syscall. */
static bool single_in_flight(const struct engine_opts *o)
{
	return o->burst == 1 && o->rate == 0;
}

static bool open_loop(const struct worker *w)
{
	return w->e->o.rate > 0;
}

/* ---- tcp client ---- */

/* Write what is owed of the queued requests; wait for room on EAGAIN. */
static void tcp_flush(struct worker *w, struct flow *f)
{
	uint64_t sent = 0;
	int ret;

	while (f->tx_left) {
		size_t len = f->tx_left < w->buf_len ? f->tx_left : w->buf_len;
		ssize_t n = io_send(f->fd, w->buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			f->tx_left -= (uint64_t)n;
			sent += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			flow_close(w, f, errno);
			return;
		}
		break;
	}
	ctr_add(&f->bytes, sent);
	ret = flow_interest(w, f, f->tx_left ? EPOLLIN | EPOLLOUT : EPOLLIN);
	if (ret)
		flow_close(w, f, -ret);
}

static bool tcp_issue(struct worker *w, struct flow *f, int64_t t)
{
	if (ring_full(f))
		return false;
	ring_push(f, t, f->seq_next++);
	f->tx_left += w->e->o.req_bytes;
	return true;
}

/* Open loop: send every request whose time has come, each stamped with
 * its intended time, so a stall shows as latency, not as less load. */
static void catch_up(struct worker *w, struct flow *f, int64_t now,
		     bool (*issue)(struct worker *, struct flow *, int64_t))
{
	while (f->next_send_ns <= now && issue(w, f, f->next_send_ns))
		f->next_send_ns += f->period_ns;
}

static void tcp_client_start(struct worker *w, struct flow *f, int64_t now)
{
	if (open_loop(w)) {
		f->next_send_ns = now;
		catch_up(w, f, now, tcp_issue);
	} else {
		while (tcp_issue(w, f, now))
			;
	}
	tcp_flush(w, f);
}

static void tcp_client_io(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t resp = w->e->o.resp_bytes;
	uint64_t done = 0;
	int64_t now = 0;

	if (events & EPOLLIN) {
		for (int i = 0; i < IO_BUDGET; i++) {
			ssize_t n = io_recv(f->fd, w->buf, w->rx_len,
					    flow_recv_flags(w, i));

			if (n > 0) {
				f->rx_acc += (uint64_t)n;
				now = base_now_ns();
				while (f->rx_acc >= resp && f->ring_live) {
					struct rr_slot *s = &f->ring[f->ring_head];

					f->rx_acc -= resp;
					flow_latency(w, now - s->t_ns);
					ring_kill(f, s);
					done++;
					if (!w->stopping && !open_loop(w))
						tcp_issue(w, f, now);
				}
				/* a short read drained the queue: skip the recv
				 * that would only say EAGAIN (epoll is level
				 * triggered and calls again for more) */
				if ((size_t)n < w->rx_len)
					break;
				continue;
			}
			if (n == 0) {
				ctr_add(&f->msgs, done);
				f->eof = true;
				/* before stop, the server hanging up is a failure */
				flow_close(w, f, w->stopping ? 0 : ECONNRESET);
				return;
			}
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				ctr_add(&f->msgs, done);
				flow_close(w, f, errno);
				return;
			}
			break;
		}
	}
	ctr_add(&f->msgs, done);
	if (open_loop(w) && !w->stopping)
		catch_up(w, f, now ? now : base_now_ns(), tcp_issue);
	if (!w->stopping)
		tcp_flush(w, f);
}

static int64_t client_deadline(const struct flow *f)
{
	if (f->w->stopping || ring_full(f))
		return INT64_MAX;
	return f->next_send_ns;
}

static void tcp_client_timer(struct worker *w, struct flow *f, int64_t now)
{
	catch_up(w, f, now, tcp_issue);
	tcp_flush(w, f);
}

/* Stop asking: the server answers what it has and sees EOF; the client
 * reads until the server's EOF. */
static bool tcp_client_stop(struct worker *w, struct flow *f)
{
	f->tx_left = 0;
	flow_interest(w, f, EPOLLIN);
	shutdown(f->fd, SHUT_WR);
	return true;
}

/* ---- tcp server ---- */

static void tcp_server_flush(struct worker *w, struct flow *f)
{
	const uint64_t resp = w->e->o.resp_bytes;
	int ret;

	while (f->tx_left || f->owe) {
		size_t len;
		ssize_t n;

		if (!f->tx_left) {
			f->tx_left = resp; /* one send per reply, as servers do */
			f->owe--;
		}
		len = f->tx_left < w->buf_len ? f->tx_left : w->buf_len;
		n = io_send(f->fd, w->buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			f->tx_left -= (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
			flow_close(w, f, errno);
			return;
		}
		break;
	}
	if (f->eof && !f->tx_left && !f->owe) {
		shutdown(f->fd, SHUT_WR);
		flow_close(w, f, 0);
		return;
	}
	/* after EOF only writability matters: EPOLLIN would fire forever */
	ret = flow_interest(w, f, !(f->tx_left || f->owe) ? EPOLLIN :
				  f->eof ? EPOLLOUT : EPOLLIN | EPOLLOUT);
	if (ret)
		flow_close(w, f, -ret);
}

static void tcp_server_io(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t req = w->e->o.req_bytes;
	uint64_t bytes = 0, reqs = 0;

	if ((events & EPOLLIN) && !f->eof) {
		for (int i = 0; i < IO_BUDGET; i++) {
			ssize_t n = io_recv(f->fd, w->buf, w->rx_len,
					    flow_recv_flags(w, i));

			if (n > 0) {
				bytes += (uint64_t)n;
				f->rx_acc += (uint64_t)n;
				reqs += f->rx_acc / req;
				f->rx_acc %= req;
				if ((size_t)n < w->rx_len)
					break; /* drained, as in the client */
				continue;
			}
			if (n == 0) {
				f->eof = true;
			} else if (errno == EINTR) {
				continue;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK) {
				ctr_add(&f->bytes, bytes);
				flow_close(w, f, errno);
				return;
			}
			break;
		}
	}
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->msgs, reqs);
	f->owe += reqs;
	tcp_server_flush(w, f);
}

static bool server_stop(struct worker *w, struct flow *f)
{
	(void)w;
	(void)f;
	return true; /* answer until the client's EOF (tcp) or quiet (udp) */
}

/* ---- udp client ---- */

static uint64_t seq_mask(const struct engine_opts *o)
{
	uint64_t n = o->req_bytes < o->resp_bytes ? o->req_bytes : o->resp_bytes;

	return n >= 8 ? UINT64_MAX : (1ULL << (8 * n)) - 1;
}

/* Send one request datagram carrying as much of its sequence as fits. */
static bool udp_issue(struct worker *w, struct flow *f, int64_t t)
{
	const struct engine_opts *o = &w->e->o;
	uint64_t seq = f->seq_next;
	size_t hdr = o->req_bytes < 8 ? o->req_bytes : 8;
	ssize_t n;

	if (ring_full(f))
		return false;
	memcpy(w->buf, &seq, hdr);
	n = io_send(f->fd, w->buf, o->req_bytes, MSG_DONTWAIT);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
	    errno != ENOBUFS && errno != ECONNREFUSED && errno != EINTR) {
		flow_close(w, f, errno);
		return false;
	}
	/* a request the kernel would not take times out like a lost one */
	ring_push(f, t, seq);
	f->seq_next++;
	if (n > 0)
		ctr_add(&f->bytes, (uint64_t)n);
	return true;
}

static void udp_refill(struct worker *w, struct flow *f, int64_t now)
{
	if (w->stopping || f->done)
		return;
	if (open_loop(w))
		catch_up(w, f, now, udp_issue);
	else
		while (!f->done && udp_issue(w, f, now))
			;
}

static void udp_client_start(struct worker *w, struct flow *f, int64_t now)
{
	f->next_send_ns = now;
	udp_refill(w, f, now);
}

static void udp_client_io(struct worker *w, struct flow *f, uint32_t events)
{
	const struct engine_opts *o = &w->e->o;
	const uint64_t mask = seq_mask(o);
	size_t hdr = o->req_bytes < o->resp_bytes ? o->req_bytes : o->resp_bytes;
	uint64_t done = 0, late = 0, expired = 0;
	int64_t now = 0;

	(void)events;
	if (hdr > 8)
		hdr = 8;
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = io_recv(f->fd, w->buf, o->resp_bytes,
				    flow_recv_flags(w, i));
		uint64_t seq = 0;
		bool found = false;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ECONNREFUSED)
				flow_close(w, f, errno);
			break;
		}
		now = base_now_ns();
		memcpy(&seq, w->buf, (size_t)n < hdr ? (size_t)n : hdr);
		for (uint32_t k = 0; k < f->ring_used; k++) {
			struct rr_slot *s = &f->ring[(f->ring_head + k) % f->ring_cap];

			if (s->live && (s->seq & mask) == (seq & mask)) {
				/* past its timeout, though the timer has not
				 * run yet: lost, and its reply late, as if it had */
				if (now - s->t_ns >= o->rr_timeout_ns) {
					expired++;
					late++;
				} else {
					flow_latency(w, now - s->t_ns);
					done++;
				}
				ring_kill(f, s);
				found = true;
				break;
			}
		}
		if (!found)
			late++; /* its request had timed out already */
		else if (single_in_flight(o))
			break; /* the one reply came: nothing else is queued */
	}
	ctr_add(&f->msgs, done);
	ctr_add(&f->lost, expired);
	ctr_add(&f->dup, late);
	if (w->stopping && !f->ring_live)
		flow_close(w, f, 0);
	else if (done || expired)
		udp_refill(w, f, now);
}

static int64_t udp_client_deadline(const struct flow *f)
{
	int64_t t = INT64_MAX;

	if (f->ring_live)
		t = f->ring[f->ring_head].t_ns + f->w->e->o.rr_timeout_ns;
	if (f->w->e->o.rate > 0 && !f->w->stopping && !ring_full(f) &&
	    f->next_send_ns < t)
		t = f->next_send_ns;
	return t;
}

/* Expire what is overdue: a lost request or reply never stalls a flow. */
static void udp_client_timer(struct worker *w, struct flow *f, int64_t now)
{
	uint64_t lost = 0;

	while (f->ring_live &&
	       now - f->ring[f->ring_head].t_ns >= w->e->o.rr_timeout_ns) {
		ring_kill(f, &f->ring[f->ring_head]);
		lost++;
	}
	ctr_add(&f->lost, lost);
	if (w->stopping && !f->ring_live)
		flow_close(w, f, 0);
	else
		udp_refill(w, f, now);
}

static bool udp_client_stop(struct worker *w, struct flow *f)
{
	(void)w;
	return f->ring_live > 0;
}

/* ---- udp server ---- */

static void udp_server_io(struct worker *w, struct flow *f, uint32_t events)
{
	const struct engine_opts *o = &w->e->o;
	uint64_t bytes = 0, reqs = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = io_recv(f->fd, w->buf, w->buf_len, flow_recv_flags(w, i));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ECONNREFUSED)
				flow_close(w, f, errno);
			break;
		}
		bytes += (uint64_t)n;
		reqs++;
		/* the reply starts with the request's first bytes: its sequence */
		if (io_send(f->fd, w->buf, o->resp_bytes, MSG_DONTWAIT) < 0 &&
		    errno != EAGAIN && errno != ENOBUFS && errno != ECONNREFUSED &&
		    errno != EINTR) {
			flow_close(w, f, errno);
			break;
		}
		/* closed loop, one in flight: nothing else can be queued */
		if (single_in_flight(o))
			break;
	}
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->msgs, reqs);
}

const struct flow_ops rr_tcp_client = {
	.events = EPOLLIN, .start = tcp_client_start, .io = tcp_client_io,
	.stop = tcp_client_stop,
};
const struct flow_ops rr_tcp_client_open = {
	.events = EPOLLIN, .start = tcp_client_start, .io = tcp_client_io,
	.stop = tcp_client_stop, .deadline = client_deadline,
	.timer = tcp_client_timer,
};
const struct flow_ops rr_tcp_server = {
	.events = EPOLLIN, .io = tcp_server_io, .stop = server_stop,
};
const struct flow_ops rr_udp_client = {
	.events = EPOLLIN, .start = udp_client_start, .io = udp_client_io,
	.stop = udp_client_stop, .deadline = udp_client_deadline,
	.timer = udp_client_timer,
};
const struct flow_ops rr_udp_server = {
	.events = EPOLLIN, .io = udp_server_io, .stop = server_stop,
};
