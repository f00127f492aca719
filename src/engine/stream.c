// SPDX-License-Identifier: GPL-2.0-only
/* Bulk streams: tcp and udp senders and receivers, the throughput hot path. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "base/time.h"
#include "engine/internal.h"

/*
 * A tcp sender: send() from the worker's buffer, or for tcp_sendfile
 * sendfile(2) from the message file (a call goes on from where the last
 * one ended); a message is whole when its last byte went.
 */
static void tcp_send(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	uint64_t bytes = 0, msgs = 0, calls = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		off_t off = (off_t)f->tx_off;
		ssize_t n = w->filefd >= 0 ?
			io_sendfile(f->fd, w->filefd, &off, msg - f->tx_off) :
			io_send(f->fd, w->buf + f->tx_off, msg - f->tx_off,
				MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			bytes += (uint64_t)n;
			calls++;
			f->tx_off += (uint64_t)n;
			if (f->tx_off == msg) {
				f->tx_off = 0;
				msgs++;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* 0: the message file ended early, which it cannot */
		if (n == 0)
			flow_close(w, f, EIO);
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			flow_close(w, f, errno);
		break;
	}
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->msgs, msgs);
	ctr_add(&f->calls, calls);
}

static void tcp_recv(struct worker *w, struct flow *f, uint32_t events)
{
	uint64_t bytes = 0, calls = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n = io_recv(f->fd, w->buf, w->rx_len, MSG_DONTWAIT);

		if (n > 0) {
			bytes += (uint64_t)n;
			calls++;
			/* a short read drained the queue: the next recv would
			 * only say EAGAIN; epoll calls again when more comes */
			if ((size_t)n < w->rx_len)
				break;
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
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->calls, calls);
	/* a tcp "message" on the receiving side is msg_bytes of the stream */
	atomic_store_explicit(&f->msgs, ctr_get(&f->bytes) / w->e->o.msg_bytes,
			      memory_order_relaxed);
}

/*
 * A udp sender: batch sends a call (sendmmsg when more than one), each of
 * msg bytes. With udp_gso the kernel cuts each send into datagrams of
 * udp_gso bytes (the last one shorter), and every one of them starts with
 * its own sequence number; msgs counts the datagrams.
 */
static void udp_send(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->tx_batch, budget = w->tx_budget;
	const uint64_t seg = w->e->o.udp_gso ? w->e->o.udp_gso : msg;
	const uint64_t nseg = (msg + seg - 1) / seg;
	uint64_t sends = 0, calls = 0;

	(void)events;
	for (uint32_t i = 0; i < budget; i++) {
		int n;

		for (uint32_t k = 0; k < batch; k++) {
			for (uint64_t s = 0; s < nseg; s++) {
				uint64_t seq = f->seq_next + k * nseg + s;

				memcpy(w->buf + k * msg + s * seg, &seq, sizeof(seq));
			}
		}
		n = batch == 1 ? (int)io_send(f->fd, w->buf, msg, MSG_DONTWAIT) :
				 io_sendmmsg(f->fd, w->mm, batch, MSG_DONTWAIT);
		if (batch == 1 && n > 0)
			n = 1;
		if (n > 0) {
			f->seq_next += (uint64_t)n * nseg;
			sends += (uint64_t)n;
			calls++;
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
	ctr_add(&f->bytes, sends * msg);
	ctr_add(&f->msgs, sends * nseg);
	ctr_add(&f->calls, calls);
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
	else if (ctr_get(&f->lost))
		ctr_add(&f->lost, (uint64_t)-1);
}

struct udp_rx {
	uint64_t bytes, msgs, lost, reord, dup, calls;
};

/* One datagram of len bytes at p: its sequence number, when it has one. */
static void udp_datagram(struct flow *f, const uint8_t *p, uint64_t len,
			 struct udp_rx *rx)
{
	uint64_t seq;

	rx->bytes += len;
	rx->msgs++;
	if (len >= sizeof(seq)) {
		memcpy(&seq, p, sizeof(seq));
		udp_track(f, seq, &rx->lost, &rx->reord, &rx->dup);
	}
}

/* The UDP_GRO size of a coalesced read: its datagrams' size, but the last. */
static uint64_t gro_size(struct msghdr *h, uint64_t len)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		int v;

		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(v))) {
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			if (v > 0)
				return (uint64_t)v;
		}
	}
	return len; /* not coalesced: one datagram */
}

/* udp_gro: reads of up to GRO_SLOT bytes, each one or more datagrams. */
static int udp_recv_gro(struct worker *w, struct flow *f, uint32_t batch,
			struct udp_rx *rx)
{
	int n;

	for (uint32_t k = 0; k < batch; k++)
		w->gro_mm[k].msg_hdr.msg_controllen = GRO_CTL;
	n = io_recvmmsg(f->fd, w->gro_mm, batch, MSG_DONTWAIT);
	for (int k = 0; k < n; k++) {
		struct msghdr *h = &w->gro_mm[k].msg_hdr;
		uint64_t len = w->gro_mm[k].msg_len;
		uint64_t size = gro_size(h, len);
		const uint8_t *p = w->gro_buf + (uint64_t)k * GRO_SLOT;

		if (!len)
			udp_datagram(f, p, 0, rx);
		for (uint64_t off = 0; off < len; off += size)
			udp_datagram(f, p + off, len - off < size ? len - off : size, rx);
	}
	return n;
}

static void udp_recv(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->e->o.batch;
	struct udp_rx rx = { 0 };

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		int n;

		if (w->gro_mm) {
			n = udp_recv_gro(w, f, batch, &rx);
		} else if (batch == 1) {
			ssize_t r = io_recv(f->fd, w->buf, msg, MSG_DONTWAIT);

			n = r >= 0 ? 1 : -1;
			if (r >= 0)
				udp_datagram(f, w->buf, (uint64_t)r, &rx);
		} else {
			n = io_recvmmsg(f->fd, w->mm, batch, MSG_DONTWAIT);
			for (int k = 0; k < n; k++)
				udp_datagram(f, w->buf + (uint64_t)k * msg,
					     w->mm[k].msg_len, &rx);
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
		rx.calls++;
	}
	ctr_add(&f->bytes, rx.bytes);
	ctr_add(&f->msgs, rx.msgs);
	ctr_add(&f->lost, rx.lost);
	ctr_add(&f->reord, rx.reord);
	ctr_add(&f->dup, rx.dup);
	ctr_add(&f->calls, rx.calls);
}

/*
 * --transfer, the sending end (the server): sends as tcp_send does, and
 * tx_left counts down the bytes of the transfer under way. A transfer is
 * whole messages, so it ends where a message does; once the run stopped,
 * the end of the transfer is the end of the stream.
 */
static void tcp_send_xfer(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	uint64_t bytes = 0, msgs = 0, calls = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		ssize_t n;

		if (!f->tx_left)
			f->tx_left = w->e->o.transfer_bytes;
		n = io_send(f->fd, w->buf + f->tx_off, msg - f->tx_off,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			bytes += (uint64_t)n;
			calls++;
			f->tx_off += (uint64_t)n;
			f->tx_left -= (uint64_t)n;
			if (f->tx_off == msg) {
				f->tx_off = 0;
				msgs++;
			}
			if (!f->tx_left && w->stopping) {
				shutdown(f->fd, SHUT_WR);
				flow_close(w, f, 0);
				break;
			}
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		/* 0: a send of a message's rest moved nothing, which it cannot */
		if (n == 0)
			flow_close(w, f, EIO);
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			flow_close(w, f, errno);
		break;
	}
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->msgs, msgs);
	ctr_add(&f->calls, calls);
}

/* Between transfers the sender stops at once; inside one it drains on to
 * the end of it. */
static bool tx_xfer_stop(struct worker *w, struct flow *f)
{
	(void)w;
	if (f->tx_left)
		return true;
	shutdown(f->fd, SHUT_WR);
	return false;
}

/*
 * --transfer, the receiving end (the client): reads the stream as back to
 * back transfers, no read crossing from one into the next, and records
 * each one's time, from the end of the one before (the first: from the
 * start), as bw_tcp times its reads of -M bytes on a standing connection.
 * msgs counts whole transfers.
 */
static void tcp_recv_xfer(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t xfer = w->e->o.transfer_bytes;
	uint64_t bytes = 0, calls = 0, done = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		uint64_t want = xfer - f->rx_acc < w->rx_len ? xfer - f->rx_acc : w->rx_len;
		ssize_t n = io_recv(f->fd, w->buf, want, MSG_DONTWAIT);

		if (n > 0) {
			bytes += (uint64_t)n;
			calls++;
			f->rx_acc += (uint64_t)n;
			if (f->rx_acc == xfer) {
				int64_t now = base_now_ns();

				flow_latency(w, now - f->t_start_ns);
				f->t_start_ns = now;
				f->rx_acc = 0;
				done++;
			}
			/* drained: as in tcp_recv */
			if ((uint64_t)n < want)
				break;
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
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->calls, calls);
	ctr_add(&f->msgs, done);
}

static void rx_xfer_start(struct worker *w, struct flow *f, int64_t now)
{
	(void)w;
	f->t_start_ns = now;
}

/* Senders stop: out of the loop; a tcp sender lets the peer see EOF. */
static bool tx_stop(struct worker *w, struct flow *f)
{
	flow_close(w, f, 0);
	if (!w->e->o.udp)
		shutdown(f->fd, SHUT_WR);
	return false;
}

/* Receivers drain: tcp until EOF, udp until a quiet period. */
static bool rx_stop(struct worker *w, struct flow *f)
{
	(void)w;
	(void)f;
	return true;
}

const struct flow_ops stream_tcp_tx = {
	.events = EPOLLOUT, .io = tcp_send, .stop = tx_stop,
};
const struct flow_ops stream_tcp_rx = {
	.events = EPOLLIN, .io = tcp_recv, .stop = rx_stop,
};
const struct flow_ops stream_udp_tx = {
	.events = EPOLLOUT, .io = udp_send, .stop = tx_stop,
};
const struct flow_ops stream_udp_rx = {
	.events = EPOLLIN, .io = udp_recv, .stop = rx_stop,
};
const struct flow_ops stream_tcp_tx_xfer = {
	.events = EPOLLOUT, .io = tcp_send_xfer, .stop = tx_xfer_stop,
};
const struct flow_ops stream_tcp_rx_xfer = {
	.events = EPOLLIN, .start = rx_xfer_start, .io = tcp_recv_xfer,
	.stop = rx_stop,
};
