/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading a small file whole: /proc, /sys and the tool's own journals. */
#ifndef NR_BASE_FILE_H
#define NR_BASE_FILE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Read what fd holds from its offset into buf, at most cap bytes (no NUL
 * added): *len gets the bytes read, *more whether there was more (a read
 * of one byte past cap, made only when cap bytes came, which consumes
 * it: a file is read whole or not at all). Reads on after
 * short reads and EINTR, as /proc files that span pages need. Returns 0
 * or a negative errno from read(), *len then 0. fd stays open.
 */
int base_read_fd(int fd, char *buf, size_t cap, size_t *len, bool *more);

/* The same from the file at path, opened (O_CLOEXEC) and closed here; a
 * negative errno from open() too. */
int base_read_path(const char *path, char *buf, size_t cap, size_t *len, bool *more);

#endif
