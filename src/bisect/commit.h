/* SPDX-License-Identifier: GPL-2.0-only */
/* The commit a bisect step measures: given, read from git (rev-parse only), or the running kernel's release. */
#ifndef NR_BISECT_COMMIT_H
#define NR_BISECT_COMMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

/* Longest commit id kept (a SHA-256 id is 64, a kernel release < 65). */
#define BISECT_COMMIT_MAX 96
/* git rev-parse gets this long before it is killed. */
#define BISECT_GIT_TIMEOUT_S 10

/*
 * Whether s can name a commit in the store: 1 to BISECT_COMMIT_MAX
 * printable characters without spaces (a git id, a kernel release such as
 * 6.8.0-rc1-00123-gabcdef012345, a tag). Thread-safe.
 */
bool bisect_commit_valid(const char *s);

/*
 * The commit id rev names in the git work tree dir: runs `git -C dir
 * rev-parse --verify --quiet <rev>^{commit}` (without a shell; git from
 * PATH), the only git command netregress runs. rev is e.g. "HEAD",
 * "<id>^" (the first parent) or a tag; it may not start with '-'. The
 * answer must be 40 or 64 lowercase hex digits; it goes to out (len >=
 * 65). Returns 0, -ENOENT when rev names no commit there (err says so),
 * -EINVAL (bad rev or answer), -ETIMEDOUT after BISECT_GIT_TIMEOUT_S, or
 * the errno of a failed pipe, fork or exec (git missing: -ENOENT with
 * "cannot run git"). Not for threads that share the process's signal
 * disposition of SIGCHLD being SIG_IGN.
 */
int bisect_commit_git(const char *dir, const char *rev, char *out, size_t len,
		      struct base_err *err);

/* The running kernel's release (uname -r) into out. Returns 0 or -errno. */
int bisect_commit_kernel(char *out, size_t len, struct base_err *err);

/*
 * The short form for tables: the first 12 digits of a 40 or 64 digit hex
 * id, anything else whole (at most len - 1 bytes). Thread-safe.
 */
void bisect_commit_short(const char *id, char *out, size_t len);

#endif
