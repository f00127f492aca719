/* SPDX-License-Identifier: GPL-2.0-only */
/* Engine internals shared by the worker loop and the workloads; not an API. */
#ifndef NR_ENGINE_INTERNAL_H
#define NR_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/hist.h"
#include "engine/engine.h"

#define CACHELINE 64
#define IO_BUDGET 64       /* syscalls per flow per wake-up, for fairness */
#define SEQ_WIN 1024       /* datagrams remembered for dup/reorder */
#define GRO_SLOT 65536     /* udp_gro: the most one coalesced read returns */
#define GRO_CTL CMSG_SPACE(sizeof(int)) /* room for its UDP_GRO size */

struct worker;
struct flow;

/* What an epoll event points at: a flow, or a workload's own object. */
struct engine_ev {
	void (*fn)(struct worker *w, struct engine_ev *ev, uint32_t events);
};

/*
 * A workload plugs in through this table, one per flow role; the worker
 * loop never switches on the test type.
 */
struct flow_ops {
	uint32_t events; /* epoll interest when the run starts */
	/* the run started (after the barrier); may be NULL */
	void (*start)(struct worker *w, struct flow *f, int64_t now);
	void (*io)(struct worker *w, struct flow *f, uint32_t events);
	/* the run stopped: stop initiating; true when the flow drains on */
	bool (*stop)(struct worker *w, struct flow *f);
	/* the next time the flow needs its worker without an event
	 * (INT64_MAX: none), and what to do then; NULL when never */
	int64_t (*deadline)(const struct flow *f);
	void (*timer)(struct worker *w, struct flow *f, int64_t now);
};

/* One request in flight (request/response clients). */
struct rr_slot {
	int64_t t_ns; /* intended send time: latency counts from here */
	uint64_t seq;
	bool live;
};

struct crr_conn {
	struct engine_ev ev;
	struct flow *f;
	int fd;
	uint32_t polled; /* the events it waits for in the epoll set; 0: not in it */
	uint64_t got; /* request bytes read */
	uint64_t sent; /* response bytes written */
};

struct flow {
	struct engine_ev ev; /* first: epoll points here */
	const struct flow_ops *ops;
	/* written only by the owning worker; read by the control thread */
	_Atomic uint64_t bytes, msgs, lost, reord, dup, fails;
	_Atomic uint64_t calls; /* streams: send/recv calls that moved data */
	struct worker *w;
	int fd;
	uint32_t id;
	uint32_t interest; /* epoll events registered now */
	bool tx, done, eof, draining;
	int err;
	/* streams */
	uint64_t tx_off;   /* tcp: offset into the message being sent */
	uint64_t seq_next; /* udp: next sequence to send, or highest seen + 1 */
	uint64_t seen[SEQ_WIN / 64];
	/* request/response */
	struct rr_slot *ring;
	uint32_t ring_cap, ring_head, ring_live, ring_used;
	uint64_t rx_acc;     /* bytes toward the next whole reply or request
			      * (tcp stream receivers: transfer) */
	uint64_t owe;        /* replies owed (server) */
	uint64_t tx_left;    /* bytes of the current request/reply (tcp stream
			      * senders: transfer) unsent */
	int64_t next_send_ns, period_ns; /* open loop */
	/* tcp_crr */
	struct engine_addr to;
	struct engine_sockopts so;
	char cc[16];
	int64_t t_start_ns, retry_ns; /* t_start_ns also: when a tcp stream
				       * receiver's current transfer began */
	uint8_t crr_state;
	struct crr_conn *conns;
	uint32_t nconns, open_conns;
	/* set by the worker at stop, read after join */
	uint64_t sndbuf_end, rcvbuf_end;
	bool has_tcpi;
	struct proto_tcpi tcpi;
	bool has_tcpi_rx; /* a receiver's */
	struct proto_tcpi_rx tcpi_rx;
	/* control thread only */
	uint64_t mark_bytes[2], mark_msgs[2], mark_lost[2], mark_reord[2],
		mark_dup[2], mark_fails[2], mark_calls[2];
	/* a tcp sender's TCP_INFO counters at each mark (the socket stays
	 * open until engine_free, so the control thread may read it) */
	struct proto_tcpi_win mark_tcpi[2];
	bool mark_tcpi_ok[2];
	/* a stream receiver's socket drops at each mark */
	uint64_t mark_drops[2];
	bool mark_drops_ok[2];
	uint64_t sndbuf, rcvbuf;
} __attribute__((aligned(CACHELINE)));

struct worker {
	struct engine *e;
	pthread_t th;
	bool running, stopping;
	int epfd, stopfd;
	struct flow **flows;
	uint32_t nflows, ndrain;
	bool timed; /* some flow has deadlines */
	/* a udp sender's calls per wake-up and datagrams (sends of msg_bytes)
	 * per call: IO_BUDGET and batch, or less when the worker also
	 * receives udp (see tx_budget in engine.c) */
	uint32_t tx_budget, tx_batch;
	/* such a worker, when it may share a CPU with another worker (it is
	 * not pinned, the end has more workers than CPUs, or the other end's
	 * workers are on its CPUs), yields the CPU after each turn; see
	 * tx_budget in engine.c */
	bool yield;
	uint8_t *buf;
	void *buf_mem; /* what buf is in: free() it */
	size_t buf_len, rx_len;
	int filefd; /* tcp_sendfile: the file of one message, or -1 */
	struct mmsghdr *mm;
	struct iovec *iov;
	/* udp_gro receivers: slots of GRO_SLOT bytes, each with room for the
	 * UDP_GRO control message that gives the coalesced datagrams' size */
	uint8_t *gro_buf, *gro_ctl;
	void *gro_mem; /* what gro_buf is in */
	struct mmsghdr *gro_mm;
	struct iovec *gro_iov;
	struct base_hist *hist; /* request/response latency, ns */
	bool drain_timeout;
	/* the worker owns one closed-loop request/response flow and waits in
	 * a blocking recv instead of epoll: a transaction then costs one send
	 * and one recv per side, as in sockperf and netperf; a signal
	 * (engine_nudge) breaks the wait for stop, abort and udp timeouts */
	bool block;
	_Atomic int tid; /* the thread's id, for its /proc/self/task entry */
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
	_Atomic int failed;    /* index + 1 of the first failed flow */
	_Atomic int measuring; /* 1 between the marks: latencies count */
	_Atomic bool stop_req; /* engine_stop() was called */
	/* wakes blocked udp_rr clients whose reply is overdue */
	pthread_t watchdog;
	bool has_watchdog;
	int evfd;
	int qos_fd; /* /dev/cpu_dma_latency while the request is held, or -1 */
};

static inline void ctr_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline uint64_t ctr_get(const _Atomic uint64_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/*
 * send and recv for the data path, straight to the kernel. glibc's own
 * wrappers are cancellation points: in a process with threads each call
 * turns asynchronous cancellation on and off around the system call (two
 * atomic operations on the thread's state, about 2% of a 64-byte
 * transaction here). Workers are never cancelled, so they skip that.
 */
static inline ssize_t io_send(int fd, const void *buf, size_t len, int flags)
{
	return syscall(SYS_sendto, fd, buf, len, flags, NULL, 0);
}

static inline ssize_t io_sendfile(int out, int in, off_t *off, size_t len)
{
	return syscall(SYS_sendfile, out, in, off, len);
}

static inline ssize_t io_recv(int fd, void *buf, size_t len, int flags)
{
	return syscall(SYS_recvfrom, fd, buf, len, flags, NULL, NULL);
}

static inline int io_sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	return (int)syscall(SYS_sendmmsg, fd, v, n, flags);
}

static inline int io_recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	return (int)syscall(SYS_recvmmsg, fd, v, n, flags, NULL);
}

/* Transactions a flow has finished, answered or lost: it moves while the
 * flow makes progress. */
static inline uint64_t flow_settled(const struct flow *f)
{
	return ctr_get(&f->msgs) + ctr_get(&f->lost);
}

/* Flags for the first recv of a wake-up: it waits when the worker blocks. */
static inline int flow_recv_flags(const struct worker *w, int i)
{
	return w->block && i == 0 ? 0 : MSG_DONTWAIT;
}

/* Record a latency when inside the measured window. */
static inline void flow_latency(struct worker *w, int64_t ns)
{
	if (atomic_load_explicit(&w->e->measuring, memory_order_relaxed) == 1)
		base_hist_record(w->hist, ns > 0 ? (uint64_t)ns : 0);
}

/* Take a flow out of the loop for good: done, at EOF, or failed (err). */
void flow_close(struct worker *w, struct flow *f, int err);
/* Change the epoll interest of fd (registered with ev). */
int flow_interest(struct worker *w, struct flow *f, uint32_t events);
/* Record a data failure without closing (for the control thread). */
void flow_fail(struct worker *w, struct flow *f, int err);

/* The workloads (stream.c, rr.c, crr.c). */
extern const struct flow_ops stream_tcp_tx, stream_tcp_rx, stream_udp_tx,
	stream_udp_rx, stream_tcp_tx_xfer, stream_tcp_rx_xfer;
extern const struct flow_ops rr_tcp_client, rr_tcp_client_open, rr_tcp_server,
	rr_udp_client, rr_udp_server;
extern const struct flow_ops crr_client, crr_server;

#endif
