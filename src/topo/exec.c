// SPDX-License-Identifier: GPL-2.0-only
/* Run ip and tc without a shell: argv arrays, captured output, a time limit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/time.h"
#include "topo/internal.h"

extern char **environ;

/* Output kept for the error message; the rest is read and dropped. */
#define OUT_KEEP 1024

static const char *const fallback_dirs[] = { "/usr/sbin", "/sbin", "/usr/bin",
					     "/bin" };

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

/* argv joined by spaces, cut to fit */
static void cmdline(const char *const *argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; argv[i] && off + 1 < len; i++) {
		int n = snprintf(buf + off, len - off, "%s%s", i ? " " : "",
				 argv[i]);

		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* the output as one line into dst (len bytes): line breaks become "; ",
 * other control characters go, trailing blanks too */
static void one_line(const char *src, char *dst, size_t len)
{
	size_t w = 0;
	bool brk = false;

	for (size_t r = 0; src[r] && w + 3 < len; r++) {
		unsigned char c = (unsigned char)src[r];

		if (c == '\n' || c == '\r') {
			brk = w > 0;
			continue;
		}
		if (c < 0x20 && c != '\t')
			continue;
		if (brk) {
			dst[w++] = ';';
			dst[w++] = ' ';
			brk = false;
		}
		dst[w++] = (char)c;
	}
	while (w && (dst[w - 1] == ' ' || dst[w - 1] == '\t'))
		w--;
	dst[w] = '\0';
}

static int spawn(pid_t *pid, const char *const *argv,
		 const posix_spawn_file_actions_t *fa,
		 const posix_spawnattr_t *attr)
{
	char path[PATH_MAX];
	int ret;

	ret = posix_spawnp(pid, argv[0], fa, attr, (char *const *)argv,
			   environ);
	if (ret != ENOENT || strchr(argv[0], '/'))
		return ret;
	/* root's PATH may lack the sbin directories */
	for (size_t i = 0; i < ARRAY_SIZE(fallback_dirs); i++) {
		if (snprintf(path, sizeof(path), "%s/%s", fallback_dirs[i],
			     argv[0]) >= (int)sizeof(path))
			continue;
		if (access(path, X_OK))
			continue;
		return posix_spawn(pid, path, fa, attr, (char *const *)argv,
				   environ);
	}
	return ENOENT;
}

int topo_run(const char *const *argv, struct base_err *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	char out[OUT_KEEP + 1], line[OUT_KEEP + 1], sink[512], cmd[512];
	size_t got = 0;
	int pfd[2] = { -1, -1 }, wfd = -1, status = 0, ret;
	bool fa_ok = false, attr_ok = false, timed_out = false;
	pid_t pid = -1;
	int64_t deadline;

	cmdline(argv, cmd, sizeof(cmd));
	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = base_err_set(err, -errno, "%s: pipe: %s", cmd, strerror(errno));
		goto out;
	}
	/* above stderr, so that dup2 onto 1 and 2 cannot clobber it */
	wfd = fcntl(pfd[1], F_DUPFD_CLOEXEC, 3);
	if (wfd < 0) {
		ret = base_err_set(err, -errno, "%s: fcntl: %s", cmd, strerror(errno));
		goto out;
	}
	if ((ret = posix_spawn_file_actions_init(&fa))) {
		ret = base_err_set(err, -ret, "%s: %s", cmd, strerror(ret));
		goto out;
	}
	fa_ok = true;
	if ((ret = posix_spawnattr_init(&attr))) {
		ret = base_err_set(err, -ret, "%s: %s", cmd, strerror(ret));
		goto out;
	}
	attr_ok = true;
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGPIPE);
	/* own process group: a Ctrl-C for us does not stop a step half-way */
	ret = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
					      POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	if (!ret)
		ret = posix_spawnattr_setpgroup(&attr, 0);
	if (!ret)
		ret = posix_spawnattr_setsigmask(&attr, &none);
	if (!ret)
		ret = posix_spawnattr_setsigdefault(&attr, &dfl);
	if (!ret)
		ret = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						       O_RDONLY, 0);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, wfd, 1);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, wfd, 2);
	if (ret) {
		ret = base_err_set(err, -ret, "%s: %s", cmd, strerror(ret));
		goto out;
	}
	ret = spawn(&pid, argv, &fa, &attr);
	if (ret) {
		pid = -1;
		ret = base_err_set(err, -ret, "cannot run '%s': %s", cmd,
				   strerror(ret));
		goto out;
	}
	close(wfd);
	wfd = -1;
	close(pfd[1]);
	pfd[1] = -1;

	deadline = mono_ns() + TOPO_CMD_TIMEOUT_S * NS_PER_S;
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int64_t left = deadline - mono_ns();
		ssize_t n;
		int r;

		if (left <= 0) {
			timed_out = true;
			break;
		}
		r = poll(&p, 1, (int)(left / NS_PER_MS) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0)
			continue;
		if (got < OUT_KEEP)
			n = read(pfd[0], out + got, OUT_KEEP - got);
		else
			n = read(pfd[0], sink, sizeof(sink));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* EOF: every writer closed, the child is done */
		if (got < OUT_KEEP)
			got += (size_t)n;
	}
	out[got] = '\0';
	if (timed_out)
		kill(pid, SIGKILL); /* the child we started, by pid */
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ret = base_err_set(err, -errno, "%s: waitpid: %s", cmd,
					   strerror(errno));
			goto out;
		}
	}
	one_line(out, line, sizeof(line));
	if (timed_out) {
		ret = base_err_set(err, -ETIMEDOUT, "'%s' did not finish in %ds",
				   cmd, TOPO_CMD_TIMEOUT_S);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		ret = 0;
	} else if (WIFEXITED(status)) {
		ret = base_err_set(err, WEXITSTATUS(status) == 127 ? -ENOENT : -EIO,
				   "'%s' failed (exit %d)%s%s", cmd,
				   WEXITSTATUS(status), line[0] ? ": " : "", line);
	} else {
		ret = base_err_set(err, -EIO, "'%s' killed by signal %d%s%s", cmd,
				   WIFSIGNALED(status) ? WTERMSIG(status) : 0,
				   line[0] ? ": " : "", line);
	}
out:
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (wfd >= 0)
		close(wfd);
	if (pfd[0] >= 0)
		close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return ret;
}
