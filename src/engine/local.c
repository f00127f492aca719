// SPDX-License-Identifier: GPL-2.0-only
/* The embedded default: a server process of our own on loopback for one run. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/time.h"
#include "engine/session.h"

int engine_local_server_start(int ipv, pid_t *pid, uint16_t *port,
			      struct base_err *err)
{
	return engine_server_spawn(NULL, ipv == 6 ? "::1" : "127.0.0.1", pid, port, err);
}

int engine_server_spawn(const char *netns_path, const char *bind, pid_t *pid,
			uint16_t *port, struct base_err *err)
{
	int64_t deadline = base_now_ns() + 5 * NS_PER_S;
	char buf[16] = "";
	size_t off = 0;
	int pfd[2], ret;
	pid_t child;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return base_err_set(err, -errno, "pipe: %s", strerror(errno));
	child = fork();
	if (child < 0) {
		ret = base_err_set(err, -errno, "fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (child == 0) {
		char fdstr[12];

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() == 1)
			_exit(127);
		if (netns_path) {
			int nfd = open(netns_path, O_RDONLY | O_CLOEXEC);

			if (nfd < 0 || setns(nfd, CLONE_NEWNET) < 0) {
				fprintf(stderr, "netregress: cannot enter %s: %s\n",
					netns_path, strerror(errno));
				_exit(127);
			}
			close(nfd);
		}
		/* the write end stays open across exec; the read end closes */
		fcntl(pfd[1], F_SETFD, 0);
		snprintf(fdstr, sizeof(fdstr), "%d", pfd[1]);
		execl("/proc/self/exe", "netregress", "serve", "--bind", bind,
		      "--port", "0",
		      "--ready-fd", fdstr, "--max-clients", "4", "--quiet",
		      (char *)NULL);
		_exit(127);
	}
	close(pfd[1]);
	while (off < sizeof(buf) - 1 && !memchr(buf, '\n', off)) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int64_t left = deadline - base_now_ns();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, (int)(left / NS_PER_MS) + 1) <= 0) {
			if (left <= 0)
				break;
			continue;
		}
		n = read(pfd[0], buf + off, sizeof(buf) - 1 - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(pfd[0]);
	buf[off] = '\0';
	{
		char *end;
		unsigned long p = strtoul(buf, &end, 10);

		if (!off || *end != '\n' || p == 0 || p > 65535) {
			engine_local_server_stop(child);
			return base_err_set(err, -EIO,
					    "the local server did not start (it printed why above)");
		}
		*port = (uint16_t)p;
	}
	*pid = child;
	return 0;
}

void engine_local_server_stop(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 60; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(50 * 1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
