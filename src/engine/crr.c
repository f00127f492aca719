// SPDX-License-Identifier: GPL-2.0-only
/* tcp_crr and tcp_cc: a new connection per transaction, on the client and on the server. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/time.h"
#include "engine/internal.h"

#define RETRY_NS (1 * NS_PER_MS) /* after a failed connect */

/*
 * A transaction: connect, send the request, read the reply, and read the
 * server's close (tcp_cc: connect and read the close). The server closes
 * first, as an HTTP/1.0 server does after its reply, so the TIME_WAIT
 * sockets are the server's, keyed by its listening port, and the client's
 * ports are free again at once. When the client closed first, each of its
 * connections left a TIME_WAIT on a port of the ephemeral range, a range
 * that a second of transactions filled: connect() then searched it for a
 * port whose TIME_WAIT tcp_tw_reuse would let go (a quarter of the CPU in
 * __inet_hash_connect), the rate swung between 28k and 500 connections/s
 * within each second, p99 was 1.6 ms against a p50 of 34 us, and a 300 ms
 * run read 1.6x a 2 s one: the figure was the port search's.
 */
enum { CRR_IDLE, CRR_CONNECTING, CRR_SENDING, CRR_RECEIVING, CRR_CLOSING };

/* ---- client ---- */

static void conn_end(struct worker *w, struct flow *f)
{
	if (f->fd >= 0) {
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, f->fd, NULL);
		close(f->fd);
	}
	f->fd = -1;
	f->crr_state = CRR_IDLE;
}

/* A failed attempt is counted and retried shortly; ephemeral port
 * exhaustion (EADDRNOTAVAIL) shows up here as a counter, never a hang. */
static void conn_failed(struct worker *w, struct flow *f, int64_t now)
{
	conn_end(w, f);
	ctr_add(&f->fails, 1);
	f->retry_ns = now + RETRY_NS;
}

/* Writes what is left of the request: 1 when all of it is out, 0 when the
 * socket took no more (EAGAIN), -1 on an error. */
static int send_request(struct worker *w, struct flow *f)
{
	while (f->tx_left) {
		size_t len = f->tx_left < w->buf_len ? f->tx_left : w->buf_len;
		ssize_t n = io_send(f->fd, w->buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			f->tx_left -= (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		return -1;
	}
	return 1;
}

/*
 * connect() and then at once, for tcp_crr, the request, for tcp_cc the wait
 * for the server's close. On loopback the handshake has completed by the
 * time a nonblocking connect() returns EINPROGRESS (the SYN-ACK waited in
 * the socket's backlog, run at release_sock), so waiting for EPOLLOUT and
 * asking SO_ERROR first cost an epoll round, a getsockopt and an
 * EPOLL_CTL_MOD per transaction, all on the CPU that sets the rate. A send
 * that finds the socket still in SYN_SENT gets EAGAIN and the connection
 * goes the long way round (client_io); one that was refused gets its error
 * and counts as a failed connect.
 */
static void conn_begin(struct worker *w, struct flow *f, int64_t now)
{
	struct epoll_event ev = { .data.ptr = &f->ev };
	int fd;

	f->retry_ns = INT64_MAX;
	f->t_start_ns = now;
	f->rx_acc = 0;
	f->tx_left = w->e->o.req_bytes;
	fd = socket(f->to.ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		conn_failed(w, f, now);
		return;
	}
	f->fd = fd;
	if (engine_sock_apply(fd, true, &f->so, NULL) < 0 ||
	    (connect(fd, (const struct sockaddr *)&f->to.ss, f->to.len) < 0 &&
	     errno != EINPROGRESS)) {
		conn_failed(w, f, now);
		return;
	}
	f->crr_state = CRR_CONNECTING;
	if (w->e->o.connect_only) {
		/* tcp_cc: the server's close ends it (or the connect's error
		 * does, as EPOLLIN too), so one connection per flow is in
		 * flight at a time: a client that did not wait would outrun
		 * the server's accepts, overflow its listen queue, and stall
		 * on a dropped SYN for a second */
		f->crr_state = CRR_CLOSING;
	} else {
		uint64_t req = f->tx_left;
		int sent = send_request(w, f);

		if (sent < 0) {
			conn_failed(w, f, now);
			return;
		}
		if (sent)
			f->crr_state = CRR_RECEIVING;
		else if (f->tx_left < req)
			f->crr_state = CRR_SENDING; /* connected, the rest on EPOLLOUT */
	}
	ev.events = f->crr_state == CRR_RECEIVING || f->crr_state == CRR_CLOSING ?
		    EPOLLIN : EPOLLOUT;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		conn_failed(w, f, now);
		return;
	}
	f->interest = ev.events;
}

static void client_start(struct worker *w, struct flow *f, int64_t now)
{
	conn_begin(w, f, now);
}

static void client_send(struct worker *w, struct flow *f, int64_t now)
{
	int sent = send_request(w, f);

	if (!sent)
		return; /* still EPOLLOUT */
	if (sent < 0) {
		conn_failed(w, f, now);
		return;
	}
	f->crr_state = CRR_RECEIVING;
	if (flow_interest(w, f, EPOLLIN) < 0)
		conn_failed(w, f, now);
}

static void client_io(struct worker *w, struct flow *f, uint32_t events)
{
	int64_t now = base_now_ns();

	if (f->crr_state == CRR_CONNECTING) {
		int soerr = 0;
		socklen_t l = sizeof(soerr);

		if (getsockopt(f->fd, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0 || soerr ||
		    (events & (EPOLLERR | EPOLLHUP))) {
			conn_failed(w, f, now);
			return;
		}
		f->crr_state = CRR_SENDING;
	}
	if (f->crr_state == CRR_SENDING) {
		client_send(w, f, now);
		return;
	}
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = io_recv(f->fd, w->buf, w->rx_len, MSG_DONTWAIT);

		if (n > 0 && f->crr_state == CRR_RECEIVING) {
			f->rx_acc += (uint64_t)n;
			if (f->rx_acc >= w->e->o.resp_bytes)
				f->crr_state = CRR_CLOSING;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0 && f->crr_state == CRR_CLOSING) {
			/* the server's close ends the transaction */
			now = base_now_ns();
			flow_latency(w, now - f->t_start_ns);
			ctr_add(&f->msgs, 1);
			ctr_add(&f->bytes, w->e->o.req_bytes);
			conn_end(w, f);
			if (!w->stopping)
				conn_begin(w, f, now);
			return;
		}
		/* EOF or reset before the whole reply, or bytes after it */
		conn_failed(w, f, now);
		return;
	}
}

static int64_t client_deadline(const struct flow *f)
{
	return f->w->stopping ? INT64_MAX : f->retry_ns;
}

static void client_timer(struct worker *w, struct flow *f, int64_t now)
{
	if (f->fd < 0)
		conn_begin(w, f, now);
}

static bool client_stop(struct worker *w, struct flow *f)
{
	conn_end(w, f); /* the transaction in flight is abandoned */
	return false;
}

/* ---- server: one listener per client flow ---- */

static void server_conn_close(struct worker *w, struct flow *f,
			      struct crr_conn *c)
{
	if (c->polled)
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	f->open_conns--;
	if (f->draining && !f->open_conns)
		flow_close(w, f, 0);
}

/* Waits for events on c: adds it to the epoll set the first time. */
static int server_conn_poll(struct worker *w, struct crr_conn *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = &c->ev };

	if (c->polled == events)
		return 0;
	if (epoll_ctl(w->epfd, c->polled ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev) < 0)
		return -errno;
	c->polled = events;
	return 0;
}

/* Reads the request and writes the reply, as far as the socket lets it;
 * called at accept, before the connection is in the epoll set, and then on
 * its events. */
static void server_conn_event(struct worker *w, struct engine_ev *ev,
			      uint32_t events)
{
	struct crr_conn *c = (struct crr_conn *)ev;
	struct flow *f = c->f;
	const struct engine_opts *o = &w->e->o;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n;

		if (c->got >= o->req_bytes && c->sent < o->resp_bytes) {
			uint64_t left = o->resp_bytes - c->sent;

			n = io_send(c->fd, w->buf,
				    left < w->buf_len ? left : w->buf_len,
				    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				c->sent += (uint64_t)n;
				if (c->sent == o->resp_bytes) {
					/* the reply is out: the server closes
					 * first (see the client, above) */
					ctr_add(&f->msgs, 1);
					server_conn_close(w, f, c);
					return;
				}
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				if (server_conn_poll(w, c, EPOLLOUT) < 0)
					server_conn_close(w, f, c);
				return;
			}
			server_conn_close(w, f, c);
			return;
		}
		n = io_recv(c->fd, w->buf, w->rx_len, MSG_DONTWAIT);
		if (n > 0) {
			uint64_t need = c->got < o->req_bytes ? o->req_bytes - c->got : 0;

			ctr_add(&f->bytes, (uint64_t)n < need ? (uint64_t)n : need);
			c->got += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		/* the client's close or reset before its reply: given up */
		server_conn_close(w, f, c);
		return;
	}
	/* the rest of the request on EPOLLIN; when the budget ran out while
	 * writing, the rest of the reply on EPOLLOUT (level-triggered, it
	 * comes back at once) */
	if (server_conn_poll(w, c, c->got >= o->req_bytes ? EPOLLOUT : EPOLLIN) < 0)
		server_conn_close(w, f, c);
}

static void server_accept(struct worker *w, struct flow *f, uint32_t events)
{
	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		struct engine_addr from = { .len = sizeof(from.ss) };
		struct crr_conn *c = NULL;
		int fd;

		fd = accept4(f->fd, (struct sockaddr *)&from.ss, &from.len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return; /* EAGAIN, or an aborted connection: next time */
		/* only the control peer may connect */
		if (!engine_addr_same_host(&from, &w->e->o.peer)) {
			close(fd);
			ctr_add(&f->fails, 1);
			continue;
		}
		if (w->e->o.connect_only) {
			/* tcp_cc: connected, and closed by the server at once */
			close(fd);
			ctr_add(&f->msgs, 1);
			return; /* one in flight per flow (below) */
		}
		for (uint32_t k = 0; k < f->nconns; k++) {
			if (f->conns[k].fd < 0) {
				c = &f->conns[k];
				break;
			}
		}
		if (!c) {
			close(fd);
			ctr_add(&f->fails, 1);
			continue;
		}
		if (engine_sock_apply(fd, true, &(struct engine_sockopts){
					  .nodelay = w->e->o.nodelay }, NULL) < 0) {
			close(fd);
			continue;
		}
		c->ev.fn = server_conn_event;
		c->f = f;
		c->fd = fd;
		c->polled = 0;
		c->got = c->sent = 0;
		f->open_conns++;
		/*
		 * The request has usually arrived by now (the client sends it
		 * as its connect returns, while this worker wakes): served at
		 * once, the connection never enters the epoll set, which saves
		 * an EPOLL_CTL_ADD, an epoll round and an EPOLL_CTL_DEL. The
		 * client has one connection in flight per flow, so the next
		 * accept4 would only say EAGAIN; a straggler comes back as
		 * the listener's level-triggered EPOLLIN.
		 */
		server_conn_event(w, &c->ev, 0);
		return;
	}
}

static bool server_stop(struct worker *w, struct flow *f)
{
	/* no new connections; the open ones finish or the drain ends */
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, f->fd, NULL);
	return f->open_conns > 0;
}

const struct flow_ops crr_client = {
	.start = client_start, .io = client_io, .stop = client_stop,
	.deadline = client_deadline, .timer = client_timer,
};
const struct flow_ops crr_server = {
	.events = EPOLLIN, .io = server_accept, .stop = server_stop,
};
