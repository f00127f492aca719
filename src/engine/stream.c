// SPDX-License-Identifier: GPL-2.0-only
/* Bulk streams: tcp and udp senders and receivers, the throughput hot path. */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

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

static void udp_send(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->e->o.batch;
	uint64_t sent = 0, calls = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		int n;

		for (uint32_t k = 0; k < batch; k++) {
			uint64_t seq = f->seq_next + k;

			memcpy(w->buf + k * msg, &seq, sizeof(seq));
		}
		n = batch == 1 ? (int)io_send(f->fd, w->buf, msg, MSG_DONTWAIT) :
				 io_sendmmsg(f->fd, w->mm, batch, MSG_DONTWAIT);
		if (batch == 1 && n > 0)
			n = 1;
		if (n > 0) {
			f->seq_next += (uint64_t)n;
			sent += (uint64_t)n;
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
	ctr_add(&f->bytes, sent * msg);
	ctr_add(&f->msgs, sent);
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

static void udp_recv(struct worker *w, struct flow *f, uint32_t events)
{
	const uint64_t msg = w->e->o.msg_bytes;
	const uint32_t batch = w->e->o.batch;
	uint64_t bytes = 0, msgs = 0, lost = 0, reord = 0, dup = 0, calls = 0;

	(void)events;
	for (int i = 0; i < IO_BUDGET; i++) {
		int n;

		if (batch == 1) {
			ssize_t r = io_recv(f->fd, w->buf, msg, MSG_DONTWAIT);

			n = r >= 0 ? 1 : -1;
			if (r >= 0)
				w->mm[0].msg_len = (unsigned)r;
		} else {
			n = io_recvmmsg(f->fd, w->mm, batch, MSG_DONTWAIT);
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
		calls++;
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
	ctr_add(&f->bytes, bytes);
	ctr_add(&f->msgs, msgs);
	ctr_add(&f->lost, lost);
	ctr_add(&f->reord, reord);
	ctr_add(&f->dup, dup);
	ctr_add(&f->calls, calls);
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
