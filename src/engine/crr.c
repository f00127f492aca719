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

enum { CRR_IDLE, CRR_CONNECTING, CRR_SENDING, CRR_RECEIVING };

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

static void conn_begin(struct worker *w, struct flow *f, int64_t now)
{
	struct epoll_event ev = { .events = EPOLLOUT, .data.ptr = &f->ev };
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
	     errno != EINPROGRESS) ||
	    epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		conn_failed(w, f, now);
		return;
	}
	f->interest = EPOLLOUT;
	f->crr_state = CRR_CONNECTING;
}

static void client_start(struct worker *w, struct flow *f, int64_t now)
{
	conn_begin(w, f, now);
}

static void client_send(struct worker *w, struct flow *f, int64_t now)
{
	while (f->tx_left) {
		size_t len = f->tx_left < w->buf_len ? f->tx_left : w->buf_len;
		ssize_t n = io_send(f->fd, w->buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			f->tx_left -= (uint64_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return; /* still EPOLLOUT */
		if (n < 0 && errno == EINTR)
			continue;
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
		if (w->e->o.connect_only) {
			/* tcp_cc: connected, the client closes its side and
			 * waits for the server's close, so that one
			 * connection per flow is in flight at a time: a
			 * client that only closed would outrun the server's
			 * accepts, overflow its listen queue, and stall on
			 * a dropped SYN for a second */
			f->crr_state = CRR_RECEIVING;
			if (shutdown(f->fd, SHUT_WR) < 0 ||
			    flow_interest(w, f, EPOLLIN) < 0)
				conn_failed(w, f, now);
			return;
		}
	}
	if (f->crr_state == CRR_SENDING) {
		client_send(w, f, now);
		return;
	}
	for (int i = 0; i < IO_BUDGET && f->crr_state == CRR_RECEIVING; i++) {
		ssize_t n = io_recv(f->fd, w->buf, w->rx_len, MSG_DONTWAIT);

		if (n > 0) {
			f->rx_acc += (uint64_t)n;
			if (f->rx_acc < w->e->o.resp_bytes)
				continue;
			now = base_now_ns();
			flow_latency(w, now - f->t_start_ns);
			ctr_add(&f->msgs, 1);
			ctr_add(&f->bytes, w->e->o.req_bytes);
			/* the client closes first, as HTTP/1.0 clients do */
			conn_end(w, f);
			if (!w->stopping)
				conn_begin(w, f, now);
			return;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0 && w->e->o.connect_only) {
			/* tcp_cc: the server's close ends the transaction */
			now = base_now_ns();
			flow_latency(w, now - f->t_start_ns);
			ctr_add(&f->msgs, 1);
			conn_end(w, f);
			if (!w->stopping)
				conn_begin(w, f, now);
			return;
		}
		conn_failed(w, f, now); /* EOF or reset before the reply */
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
	epoll_ctl(w->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	f->open_conns--;
	if (f->draining && !f->open_conns)
		flow_close(w, f, 0);
}

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
					ctr_add(&f->msgs, 1);
					epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd,
						  &(struct epoll_event){ .events = EPOLLIN,
									 .data.ptr = &c->ev });
				}
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
				epoll_ctl(w->epfd, EPOLL_CTL_MOD, c->fd,
					  &(struct epoll_event){ .events = EPOLLOUT,
								 .data.ptr = &c->ev });
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
			return;
		/* the client's close (or reset): this transaction is over;
		 * tcp_cc's is a clean close after nothing */
		if (n == 0 && o->connect_only)
			ctr_add(&f->msgs, 1);
		server_conn_close(w, f, c);
		return;
	}
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
		c->ev.fn = server_conn_event;
		c->f = f;
		c->fd = fd;
		c->got = c->sent = 0;
		if (engine_sock_apply(fd, true, &(struct engine_sockopts){
					  .nodelay = w->e->o.nodelay }, NULL) < 0 ||
		    epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd,
			      &(struct epoll_event){ .events = EPOLLIN,
						     .data.ptr = &c->ev }) < 0) {
			close(fd);
			c->fd = -1;
			continue;
		}
		f->open_conns++;
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
