// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: a client's control connection to the server, hello to bye, and what the server does with it. */
#include <dirent.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/time.h"
#include "engine/session.h"
#include "fuzz.h"

/*
 * The input is what a client sent on its control connection before it shut
 * its side down. The server's session reads it from a real TCP connection
 * on loopback and answers into it, as `netregress serve` does for each
 * client, here in this process. A setup the input makes valid is carried
 * out: listeners, udp sockets connected to the ports it names, workers,
 * collectors, a measured window. So that none of that reaches anything
 * else on the machine, the target runs in a network namespace of its own,
 * made once, with only its loopback up; it goes with the process. Without
 * the right to make one (not root) every input is skipped.
 *
 * Promised: the session ends, with every step's failure one line, and
 * nothing crashes or leaks. It must end soon: a client that shut down its
 * side is gone, so no step may wait out its timeout (a session that
 * waited for data connections did, for 10 s). The limits are small: 8
 * flows, 300 ms of warm-up and window.
 */
static int netns; /* 1: made, -1: cannot, inputs skipped */

static int own_netns(void)
{
	struct ifreq ifr;
	int fd, ret;

	if (unshare(CLONE_NEWNET))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	if (!ret) {
		ifr.ifr_flags |= IFF_UP;
		ret = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	close(fd);
	return ret ? -1 : 1;
}

/* A connected pair over 127.0.0.1: the client's end and the server's. */
static int pair(int *cfd, int *sfd, struct engine_addr *peer)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int ret, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	*cfd = *sfd = -1;
	if (lfd < 0)
		return -1;
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &len))
		goto fail;
	/* libFuzzer's SIGALRM (its -timeout) has no SA_RESTART: a blocking
	 * connect() it interrupts fails with EINTR while the handshake goes
	 * on, so connect without blocking and wait in accept, again on EINTR */
	*cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (*cfd < 0 ||
	    (connect(*cfd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS))
		goto fail;
	do {
		peer->len = sizeof(peer->ss);
		*sfd = accept4(lfd, (struct sockaddr *)&peer->ss, &peer->len, SOCK_CLOEXEC);
	} while (*sfd < 0 && errno == EINTR);
	if (*sfd < 0)
		goto fail;
	close(lfd);
	return 0;
fail:
	ret = errno;
	close(lfd);
	if (*cfd >= 0)
		close(*cfd);
	*cfd = -1;
	errno = ret;
	return -1;
}

/* The process's open file descriptors: a session closes all it opened. */
static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* FUZZ_SESSION_LOG=1: the session's log lines on stderr. */
static void log_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "session: %s\n", line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct engine_server_opts o = {
		.bind = "127.0.0.1", .max_streams = 8,
		.max_duration_ns = 300 * NS_PER_MS, .max_clients = 1,
		.ready_fd = -1, .log = getenv("FUZZ_SESSION_LOG") ? log_line : NULL,
	};
	struct engine_addr peer;
	int64_t t0;
	size_t off = 0;
	int cfd, sfd, fds;

	if (!netns)
		netns = own_netns();
	if (netns < 0)
		return 0;
	fds = open_fds();
	if (pair(&cfd, &sfd, &peer)) {
		fprintf(stderr, "no loopback connection for the session: %s\n", strerror(errno));
		FUZZ_CHECK(!"a loopback connection");
	}
	/* what fits the connection's buffers; a longer input is cut there */
	while (off < size) {
		ssize_t n = send(cfd, data + off, size - off, MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(cfd, SHUT_WR);
	t0 = base_now_ns();
	engine_server_session(&o, sfd, &peer);
	/* every step notices the client is gone; a window is 300 ms at most */
	FUZZ_CHECK(base_now_ns() - t0 < 5 * NS_PER_S);
	close(cfd);
	FUZZ_CHECK(open_fds() == fds);
	return 0;
}
