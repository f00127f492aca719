/* SPDX-License-Identifier: GPL-2.0-only */
/* Socket addresses, options and connection set-up for the engine. */
#ifndef NR_ENGINE_SOCK_H
#define NR_ENGINE_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "base/err.h"
#include "proto/msg.h"

struct engine_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/* What the user asked of a socket; 0 buffers leave autotuning on. */
struct engine_sockopts {
	uint64_t sndbuf, rcvbuf;
	bool nodelay;
	const char *cc; /* NULL or "" = system default */
	uint32_t mss;   /* TCP_MAXSEG, set before connect or listen; 0: the route's */
};

/* Resolve host (numeric or a name) and port for ipv 4 or 6 (0: either,
 * IPv4 first). Returns 0 or -EINVAL/-EHOSTUNREACH with err naming host. */
int engine_addr_resolve(const char *host, uint16_t port, int ipv,
			struct engine_addr *out, struct base_err *err);
/* "127.0.0.1:9127" or "[::1]:9127"; with_port false leaves the port out. */
void engine_addr_str(const struct engine_addr *a, bool with_port, char *buf,
		     size_t len);
uint16_t engine_addr_port(const struct engine_addr *a);
void engine_addr_set_port(struct engine_addr *a, uint16_t port);
/* Same IP address (ports ignored; v4-mapped v6 equals its v4). */
/* A v4-mapped IPv6 address (::ffff:a.b.c.d, what a listener on :: sees
 * of an IPv4 peer) becomes the plain IPv4 one, port kept; others as they
 * are. Sockets made from it then take the IPv4 paths of the stack. */
void engine_addr_unmap(struct engine_addr *a);

bool engine_addr_same_host(const struct engine_addr *a,
			   const struct engine_addr *b);
int engine_addr_family(const struct engine_addr *a);
/* The name of the local interface that holds address a ("lo", "eth0"), or
 * -ENODEV. */
int engine_addr_ifname(const struct engine_addr *a, char *name, size_t len);

/* Set buffers, TCP_NODELAY, TCP_CONGESTION and TCP_MAXSEG as asked. For tcp false only
 * the buffers apply. Returns 0 or -errno with err naming the option. */
int engine_sock_apply(int fd, bool tcp, const struct engine_sockopts *o,
		      struct base_err *err);
/* The buffer sizes the kernel reports now (Linux doubles what was set). */
void engine_sock_bufs(int fd, uint64_t *sndbuf, uint64_t *rcvbuf);
/* TCP_INFO of fd. Returns 0 or -errno. Worker-safe (one syscall). */
int engine_sock_tcp_info(int fd, struct proto_tcpi *out);
/* The receive side's state in fd's TCP_INFO. Returns 0 or -errno.
 * Worker-safe (one syscall). */
int engine_sock_tcp_rx(int fd, struct proto_tcpi_rx *out);
/* The cumulative counters of fd's TCP_INFO that proto_tcpi_win takes the
 * window's share of (the totals since connect, not deltas). Returns 0,
 * -ENODATA when the running kernel's tcp_info ends before tcpi_reord_seen
 * (before 4.19), or -errno. */
int engine_sock_tcp_counts(int fd, struct proto_tcpi_win *out);
/* The packets the kernel dropped at fd's socket since it was made
 * (SO_MEMINFO, SK_MEMINFO_DROPS). Returns 0 or -errno. */
int engine_sock_drops(int fd, uint64_t *drops);
int engine_sock_nonblock(int fd);

/* A socket of `type` (SOCK_STREAM or SOCK_DGRAM) bound to `local` (port 0 =
 * ephemeral), options applied before listen/connect so that window scaling
 * sees the buffers; listening when backlog > 0. Close-on-exec, nonblocking.
 * Returns 0 and *fd, or -errno with err set. */
int engine_sock_bind(const struct engine_addr *local, int type, bool v6only,
		     const struct engine_sockopts *o, int backlog, int *fd,
		     struct base_err *err);
/* Connect fd (nonblocking) to `to`, waiting until deadline_ns. */
int engine_sock_connect(int fd, const struct engine_addr *to,
			int64_t deadline_ns, struct base_err *err);
/* A connected TCP socket to `to`, with options, before deadline_ns. */
int engine_tcp_connect(const struct engine_addr *to,
		       const struct engine_sockopts *o, int64_t deadline_ns,
		       int *fd, struct base_err *err);

#endif
