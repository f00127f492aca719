// SPDX-License-Identifier: GPL-2.0-only
/* Reading a small file whole; see file.h. */
#include "base/file.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int base_read_fd(int fd, char *buf, size_t cap, size_t *len, bool *more)
{
	size_t n = 0;
	ssize_t r;
	char extra;

	*len = 0;
	*more = false;
	while (n < cap) {
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n == cap) {
		do
			r = read(fd, &extra, 1);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -errno;
		*more = r > 0;
	}
	*len = n;
	return 0;
}

int base_read_path(const char *path, char *buf, size_t cap, size_t *len, bool *more)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	*len = 0;
	*more = false;
	if (fd < 0)
		return -errno;
	ret = base_read_fd(fd, buf, cap, len, more);
	close(fd);
	return ret;
}
