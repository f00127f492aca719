// SPDX-License-Identifier: GPL-2.0-only
/* Socket addresses, options and connection set-up; see sock.h. */
#include "engine/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/time.h"

int engine_addr_resolve(const char *host, uint16_t port, int ipv,
			struct engine_addr *out, struct base_err *err)
{
	struct addrinfo hints = { 0 }, *res = NULL;
	char portstr[8];
	int ret;

	hints.ai_family = ipv == 4 ? AF_INET : ipv == 6 ? AF_INET6 : AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_ADDRCONFIG;
	snprintf(portstr, sizeof(portstr), "%u", port);
	ret = getaddrinfo(host, portstr, &hints, &res);
	if (ret == EAI_ADDRFAMILY || ret == EAI_NONAME || ret == EAI_NODATA) {
		/* AI_ADDRCONFIG hides ::1 on hosts without global IPv6 */
		hints.ai_flags &= ~AI_ADDRCONFIG;
		ret = getaddrinfo(host, portstr, &hints, &res);
	}
	if (ret)
		return base_err_set(err, -EHOSTUNREACH,
				    "cannot resolve host '%s'%s: %s", host,
				    ipv ? (ipv == 4 ? " as ipv4" : " as ipv6") : "",
				    gai_strerror(ret));
	memcpy(&out->ss, res->ai_addr, res->ai_addrlen);
	out->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

void engine_addr_str(const struct engine_addr *a, bool with_port, char *buf,
		     size_t len)
{
	char ip[INET6_ADDRSTRLEN] = "?";

	if (a->ss.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)&a->ss;

		inet_ntop(AF_INET, &s->sin_addr, ip, sizeof(ip));
		if (with_port)
			snprintf(buf, len, "%s:%u", ip, ntohs(s->sin_port));
		else
			snprintf(buf, len, "%s", ip);
	} else if (a->ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)&a->ss;

		inet_ntop(AF_INET6, &s->sin6_addr, ip, sizeof(ip));
		if (with_port)
			snprintf(buf, len, "[%s]:%u", ip, ntohs(s->sin6_port));
		else
			snprintf(buf, len, "%s", ip);
	} else {
		snprintf(buf, len, "?");
	}
}

uint16_t engine_addr_port(const struct engine_addr *a)
{
	if (a->ss.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return 0;
}

void engine_addr_set_port(struct engine_addr *a, uint16_t port)
{
	if (a->ss.ss_family == AF_INET)
		((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
	else if (a->ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
}

int engine_addr_family(const struct engine_addr *a)
{
	return a->ss.ss_family;
}

/* The IPv4 address of a, also when a is v4-mapped IPv6; false otherwise. */
static bool addr_v4(const struct engine_addr *a, struct in_addr *out)
{
	if (a->ss.ss_family == AF_INET) {
		*out = ((const struct sockaddr_in *)&a->ss)->sin_addr;
		return true;
	}
	if (a->ss.ss_family == AF_INET6) {
		const struct in6_addr *s6 =
			&((const struct sockaddr_in6 *)&a->ss)->sin6_addr;

		if (IN6_IS_ADDR_V4MAPPED(s6)) {
			memcpy(out, &s6->s6_addr[12], 4);
			return true;
		}
	}
	return false;
}

void engine_addr_unmap(struct engine_addr *a)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET };

	if (a->ss.ss_family != AF_INET6 || !addr_v4(a, &v4.sin_addr))
		return;
	v4.sin_port = ((const struct sockaddr_in6 *)&a->ss)->sin6_port;
	memset(&a->ss, 0, sizeof(a->ss));
	memcpy(&a->ss, &v4, sizeof(v4));
	a->len = sizeof(v4);
}

bool engine_addr_same_host(const struct engine_addr *a,
			   const struct engine_addr *b)
{
	struct in_addr a4, b4;
	bool av4 = addr_v4(a, &a4), bv4 = addr_v4(b, &b4);

	if (av4 || bv4)
		return av4 && bv4 && a4.s_addr == b4.s_addr;
	if (a->ss.ss_family != AF_INET6 || b->ss.ss_family != AF_INET6)
		return false;
	return !memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
		       &((const struct sockaddr_in6 *)&b->ss)->sin6_addr,
		       sizeof(struct in6_addr));
}

int engine_sock_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

static int set_int(int fd, int level, int opt, int v, const char *what,
		   struct base_err *err)
{
	if (setsockopt(fd, level, opt, &v, sizeof(v)) < 0)
		return base_err_set(err, -errno, "cannot set %s to %d: %s",
				    what, v, strerror(errno));
	return 0;
}

int engine_sock_apply(int fd, bool tcp, const struct engine_sockopts *o,
		      struct base_err *err)
{
	int ret;

	if (o->sndbuf > INT32_MAX / 2 || o->rcvbuf > INT32_MAX / 2)
		return base_err_set(err, -EINVAL, "socket buffer too large");
	if (o->sndbuf &&
	    (ret = set_int(fd, SOL_SOCKET, SO_SNDBUF, (int)o->sndbuf,
			   "SO_SNDBUF", err)))
		return ret;
	if (o->rcvbuf &&
	    (ret = set_int(fd, SOL_SOCKET, SO_RCVBUF, (int)o->rcvbuf,
			   "SO_RCVBUF", err)))
		return ret;
	if (!tcp)
		return 0;
	if (o->nodelay &&
	    (ret = set_int(fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY", err)))
		return ret;
	if (o->cc && o->cc[0] &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, o->cc, strlen(o->cc)) < 0)
		return base_err_set(err, -errno,
				    "cannot use congestion control '%s': %s (see net.ipv4.tcp_available_congestion_control)",
				    o->cc, strerror(errno));
	/* the largest segment this end sends and the MSS it announces */
	if (o->mss &&
	    (ret = set_int(fd, IPPROTO_TCP, TCP_MAXSEG, (int)o->mss, "TCP_MAXSEG", err)))
		return ret;
	return 0;
}

void engine_sock_bufs(int fd, uint64_t *sndbuf, uint64_t *rcvbuf)
{
	int v = 0;
	socklen_t l = sizeof(v);

	*sndbuf = getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, &l) ? 0 : (uint64_t)v;
	v = 0;
	l = sizeof(v);
	*rcvbuf = getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, &l) ? 0 : (uint64_t)v;
}

/* fd's TCP_INFO in *ti, zeroed first: fields newer than the running
 * kernel stay zero; *len says how much it filled. Returns 0 or -errno. */
static int tcp_info_of(int fd, struct tcp_info *ti, socklen_t *len)
{
	*len = sizeof(*ti);
	memset(ti, 0, sizeof(*ti));
	return getsockopt(fd, IPPROTO_TCP, TCP_INFO, ti, len) < 0 ? -errno : 0;
}

int engine_sock_tcp_info(int fd, struct proto_tcpi *out)
{
	struct tcp_info ti;
	socklen_t l;
	int ret = tcp_info_of(fd, &ti, &l);

	if (ret)
		return ret;
	out->total_retrans = ti.tcpi_total_retrans;
	out->rtt_us = ti.tcpi_rtt;
	out->rttvar_us = ti.tcpi_rttvar;
	out->snd_cwnd = ti.tcpi_snd_cwnd;
	out->snd_mss = ti.tcpi_snd_mss;
	/* fields newer than the running kernel stay zero (l is shorter) */
	out->delivery_rate_bps = ti.tcpi_delivery_rate * 8;
	out->bytes_retrans = ti.tcpi_bytes_retrans;
	out->snd_wscale = ti.tcpi_snd_wscale;
	out->has_wscale = true;
	l = sizeof(out->cc) - 1;
	memset(out->cc, 0, sizeof(out->cc));
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, out->cc, &l) < 0)
		out->cc[0] = '\0';
	return 0;
}

int engine_sock_tcp_rx(int fd, struct proto_tcpi_rx *out)
{
	struct tcp_info ti;
	socklen_t l;
	int ret = tcp_info_of(fd, &ti, &l);

	if (ret)
		return ret;
	/* all four are in the oldest tcp_info (2.6) */
	out->rcv_space = ti.tcpi_rcv_space;
	out->rcv_ssthresh = ti.tcpi_rcv_ssthresh;
	out->advmss = ti.tcpi_advmss;
	out->rcv_wscale = ti.tcpi_rcv_wscale;
	return 0;
}

int engine_sock_drops(int fd, uint64_t *drops)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t l = sizeof(mem);

	memset(mem, 0, sizeof(mem));
	if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &l) < 0)
		return -errno;
	if (l < (SK_MEMINFO_DROPS + 1) * sizeof(*mem))
		return -ENODATA;
	*drops = mem[SK_MEMINFO_DROPS];
	return 0;
}

int engine_sock_tcp_counts(int fd, struct proto_tcpi_win *out)
{
	struct tcp_info ti;
	socklen_t l;
	int ret = tcp_info_of(fd, &ti, &l);

	if (ret)
		return ret;
	if (l < offsetof(struct tcp_info, tcpi_reord_seen) + sizeof(ti.tcpi_reord_seen))
		return -ENODATA;
	out->data_segs_out = ti.tcpi_data_segs_out;
	out->bytes_sent = ti.tcpi_bytes_sent;
	out->retrans = ti.tcpi_total_retrans;
	out->dsack_dups = ti.tcpi_dsack_dups;
	out->reord_seen = ti.tcpi_reord_seen;
	out->busy_us = ti.tcpi_busy_time;
	out->rwnd_limited_us = ti.tcpi_rwnd_limited;
	out->sndbuf_limited_us = ti.tcpi_sndbuf_limited;
	/* older than tcpi_reord_seen (4.19): there since 4.6 */
	out->has_segs = true;
	out->segs_out = ti.tcpi_segs_out;
	out->data_segs_in = ti.tcpi_data_segs_in;
	return 0;
}

int engine_sock_bind(const struct engine_addr *local, int type, bool v6only,
		     const struct engine_sockopts *o, int backlog, int *fd,
		     struct base_err *err)
{
	char astr[64];
	int s, ret, one = 1;

	*fd = -1;
	engine_addr_str(local, true, astr, sizeof(astr));
	s = socket(local->ss.ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s < 0)
		return base_err_set(err, -errno, "cannot create a socket for %s: %s",
				    astr, strerror(errno));
	if (backlog > 0)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (local->ss.ss_family == AF_INET6)
		setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &(int){ v6only },
			   sizeof(int));
	if (o && (ret = engine_sock_apply(s, type == SOCK_STREAM, o, err)))
		goto fail;
	if (bind(s, (const struct sockaddr *)&local->ss, local->len) < 0) {
		ret = base_err_set(err, -errno, "cannot bind to %s: %s%s", astr,
				   strerror(errno),
				   errno == EADDRINUSE ? " (choose another --port)" : "");
		goto fail;
	}
	if (backlog > 0 && listen(s, backlog) < 0) {
		ret = base_err_set(err, -errno, "cannot listen on %s: %s", astr,
				   strerror(errno));
		goto fail;
	}
	*fd = s;
	return 0;
fail:
	close(s);
	return ret;
}

int engine_sock_connect(int fd, const struct engine_addr *to,
			int64_t deadline_ns, struct base_err *err)
{
	char astr[64];
	int soerr = 0;
	socklen_t l = sizeof(soerr);

	engine_addr_str(to, true, astr, sizeof(astr));
	if (connect(fd, (const struct sockaddr *)&to->ss, to->len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return base_err_set(err, -errno, "cannot connect to %s: %s", astr,
				    strerror(errno));
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int64_t left = deadline_ns - base_now_ns();
		int ret;

		if (left <= 0)
			return base_err_set(err, -ETIMEDOUT,
					    "cannot connect to %s: no answer within the connect timeout",
					    astr);
		ret = poll(&p, 1, (int)((left + NS_PER_MS - 1) / NS_PER_MS));
		if (ret > 0)
			break;
		if (ret < 0 && errno != EINTR)
			return base_err_set(err, -errno, "poll: %s", strerror(errno));
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &l) < 0)
		soerr = errno;
	if (soerr)
		return base_err_set(err, -soerr, "cannot connect to %s: %s", astr,
				    strerror(soerr));
	return 0;
}

int engine_tcp_connect(const struct engine_addr *to,
		       const struct engine_sockopts *o, int64_t deadline_ns,
		       int *fd, struct base_err *err)
{
	int s, ret;

	*fd = -1;
	s = socket(to->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		   0);
	if (s < 0)
		return base_err_set(err, -errno, "cannot create a socket: %s",
				    strerror(errno));
	if (o && (ret = engine_sock_apply(s, true, o, err)))
		goto fail;
	if ((ret = engine_sock_connect(s, to, deadline_ns, err)))
		goto fail;
	*fd = s;
	return 0;
fail:
	close(s);
	return ret;
}

int engine_addr_ifname(const struct engine_addr *a, char *name, size_t len)
{
	struct ifaddrs *ifs = NULL, *i;
	int ret = -ENODEV;

	if (getifaddrs(&ifs) < 0)
		return -errno;
	for (i = ifs; i; i = i->ifa_next) {
		struct engine_addr x = { .len = sizeof(x.ss) };

		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		memcpy(&x.ss, i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		if (engine_addr_same_host(&x, a)) {
			snprintf(name, len, "%s", i->ifa_name);
			ret = 0;
			break;
		}
	}
	freeifaddrs(ifs);
	return ret;
}
