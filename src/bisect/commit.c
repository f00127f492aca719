// SPDX-License-Identifier: GPL-2.0-only
/* Commit ids for bisect steps: validation, git rev-parse (nothing else of git), uname. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/time.h"
#include "bisect/commit.h"

extern char **environ;

/* What git may print: one id and a newline. More is an error, not a cut. */
#define GIT_OUT_MAX 128

bool bisect_commit_valid(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n || n > BISECT_COMMIT_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isgraph((unsigned char)s[i]))
			return false;
	return true;
}

static bool hex_id(const char *s, size_t n)
{
	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f'))
			return false;
	return true;
}

/* Read the child's stdout until EOF, the cap or the deadline. */
static int read_out(int fd, char *buf, size_t cap, size_t *len, int64_t deadline_ns)
{
	*len = 0;
	for (;;) {
		int64_t left_ms = (deadline_ns - base_now_ns()) / NS_PER_MS;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;
		int pr;

		if (left_ms <= 0)
			return -ETIMEDOUT;
		pr = poll(&p, 1, (int)left_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -errno;
		if (pr == 0)
			return -ETIMEDOUT;
		if (*len == cap)
			return -EFBIG;
		r = read(fd, buf + *len, cap - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return 0;
		*len += (size_t)r;
	}
}

int bisect_commit_git(const char *dir, const char *rev, char *out, size_t len,
		      struct base_err *err)
{
	char spec[BISECT_COMMIT_MAX + 16], buf[GIT_OUT_MAX];
	char *argv[] = { "git", "-C", (char *)dir, "rev-parse", "--verify",
			 "--quiet", spec, NULL };
	posix_spawn_file_actions_t fa;
	int pfd[2] = { -1, -1 }, status = 0, ret, rc;
	size_t n = 0;
	pid_t pid;

	if (!dir || !*dir || !rev || !*rev || rev[0] == '-' ||
	    strlen(rev) > BISECT_COMMIT_MAX || len < 65)
		return base_err_set(err, -EINVAL, "invalid revision '%.40s' for git rev-parse",
				    rev ? rev : "");
	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return base_err_set(err, -errno, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	rc = posix_spawnp(&pid, "git", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		return base_err_set(err, -rc, "cannot run git: %s", strerror(rc));
	}
	ret = read_out(pfd[0], buf, sizeof(buf), &n, base_now_ns() + BISECT_GIT_TIMEOUT_S * NS_PER_S);
	close(pfd[0]);
	if (ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ret == -ETIMEDOUT)
		return base_err_set(err, ret, "git -C %s rev-parse %s did not answer in %d s",
				    dir, spec, BISECT_GIT_TIMEOUT_S);
	if (ret)
		return base_err_set(err, ret == -EFBIG ? -EINVAL : ret,
				    "reading git rev-parse %s: %s", spec,
				    ret == -EFBIG ? "too much output" : strerror(-ret));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return base_err_set(err, -ENOENT, "cannot run git (not on PATH?)");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return base_err_set(err, -ENOENT,
				    "'%s' names no commit in git work tree '%s' (git rev-parse failed)",
				    rev, dir);
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	if (!hex_id(buf, n))
		return base_err_set(err, -EINVAL, "git rev-parse %s printed no commit id", spec);
	memcpy(out, buf, n);
	out[n] = '\0';
	return 0;
}

int bisect_commit_kernel(char *out, size_t len, struct base_err *err)
{
	struct utsname u;

	if (uname(&u) < 0)
		return base_err_set(err, -errno, "uname: %s", strerror(errno));
	if (strlen(u.release) >= len || !bisect_commit_valid(u.release))
		return base_err_set(err, -EINVAL, "kernel release '%s' cannot name a commit",
				    u.release);
	snprintf(out, len, "%s", u.release);
	return 0;
}

void bisect_commit_short(const char *id, char *out, size_t len)
{
	size_t n = strlen(id);

	if (hex_id(id, n))
		n = 12;
	if (n >= len)
		n = len - 1;
	memcpy(out, id, n);
	out[n] = '\0';
}
