// SPDX-License-Identifier: GPL-2.0-only
/* Control-channel frame codec and deadline-bounded socket I/O. */
#include "proto/frame.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/time.h"

int proto_frame_header_parse(const uint8_t hdr[PROTO_HDR_BYTES],
			     uint32_t *len, struct base_err *err)
{
	uint32_t n;

	if (hdr[0] != 'N' || hdr[1] != 'R')
		return base_err_set(err, -EPROTO,
				    "not a netregress control frame (bytes %02x %02x): is this a netregress server?",
				    hdr[0], hdr[1]);
	if (hdr[2] != PROTO_VERSION)
		return base_err_set(err, -EPROTO,
				    "peer speaks control protocol version %u, expected %u",
				    hdr[2], PROTO_VERSION);
	if (hdr[3] != 0)
		return base_err_set(err, -EPROTO,
				    "control frame has unknown flags 0x%02x",
				    hdr[3]);
	n = (uint32_t)hdr[4] << 24 | (uint32_t)hdr[5] << 16 |
	    (uint32_t)hdr[6] << 8 | hdr[7];
	if (n > PROTO_FRAME_MAX)
		return base_err_set(err, -EMSGSIZE,
				    "control frame of %u bytes exceeds the %u byte cap",
				    n, PROTO_FRAME_MAX);
	if (n == 0)
		return base_err_set(err, -EPROTO, "empty control frame");
	*len = n;
	return 0;
}

int proto_frame_encode(const json_t *msg, uint8_t **out, size_t *out_len,
		       struct base_err *err)
{
	size_t n;
	uint8_t *buf;

	if (!json_is_object(msg))
		return base_err_set(err, -EINVAL, "control message is not an object");
	n = json_dumpb(msg, NULL, 0, JSON_COMPACT);
	if (n == 0 || n > PROTO_FRAME_MAX)
		return base_err_set(err, -EMSGSIZE,
				    "control message of %zu bytes exceeds the %u byte cap",
				    n, PROTO_FRAME_MAX);
	buf = malloc(PROTO_HDR_BYTES + n);
	if (!buf)
		return base_err_set(err, -ENOMEM, "out of memory");
	if (json_dumpb(msg, (char *)buf + PROTO_HDR_BYTES, n, JSON_COMPACT) != n) {
		free(buf);
		return base_err_set(err, -EINVAL, "control message changed while encoding");
	}
	buf[0] = 'N';
	buf[1] = 'R';
	buf[2] = PROTO_VERSION;
	buf[3] = 0;
	buf[4] = (uint8_t)(n >> 24);
	buf[5] = (uint8_t)(n >> 16);
	buf[6] = (uint8_t)(n >> 8);
	buf[7] = (uint8_t)n;
	*out = buf;
	*out_len = PROTO_HDR_BYTES + n;
	return 0;
}

static int decode_payload(const uint8_t *p, uint32_t n, json_t **msg,
			  struct base_err *err)
{
	json_error_t jerr;
	json_t *j;

	j = json_loadb((const char *)p, n, JSON_REJECT_DUPLICATES, &jerr);
	if (!j)
		return base_err_set(err, -EPROTO,
				    "control frame is not valid json: %s at byte %d",
				    jerr.text, jerr.position);
	if (!json_is_object(j) || !json_is_string(json_object_get(j, "type"))) {
		json_decref(j);
		return base_err_set(err, -EPROTO,
				    "control frame is not an object with a string 'type'");
	}
	*msg = j;
	return 0;
}

int proto_frame_decode(const uint8_t *buf, size_t len, json_t **msg,
		       size_t *used, struct base_err *err)
{
	uint32_t n;
	int ret;

	if (len < PROTO_HDR_BYTES)
		return -EAGAIN;
	ret = proto_frame_header_parse(buf, &n, err);
	if (ret)
		return ret;
	if (len - PROTO_HDR_BYTES < n)
		return -EAGAIN;
	ret = decode_payload(buf + PROTO_HDR_BYTES, n, msg, err);
	if (!ret)
		*used = PROTO_HDR_BYTES + n;
	return ret;
}

/* Wait until fd is ready for `events` or the deadline passes. */
static int wait_fd(int fd, short events, int64_t deadline_ns)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = events };
		int64_t left = deadline_ns - base_now_ns();
		int ret;

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&p, 1, (int)((left + NS_PER_MS - 1) / NS_PER_MS));
		if (ret > 0)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

int proto_send(int fd, const json_t *msg, int64_t deadline_ns,
	       struct base_err *err)
{
	uint8_t *buf = NULL;
	size_t len, off = 0;
	int ret;

	ret = proto_frame_encode(msg, &buf, &len, err);
	if (ret)
		return ret;
	while (off < len) {
		ssize_t n = send(fd, buf + off, len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			ret = wait_fd(fd, POLLOUT, deadline_ns);
			if (ret) {
				base_err_set(err, ret,
					     "timed out sending a control message");
				goto out;
			}
			continue;
		}
		ret = n < 0 ? -errno : -ECONNRESET;
		base_err_set(err, ret, "control connection failed while sending: %s",
			     strerror(-ret));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

/* Read exactly len bytes; -ECONNRESET for a clean EOF before the first. */
static int read_full(int fd, uint8_t *p, size_t len, int64_t deadline_ns,
		     bool first, struct base_err *err)
{
	size_t off = 0;
	int ret;

	while (off < len) {
		ssize_t n = recv(fd, p + off, len - off, MSG_DONTWAIT);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n == 0) {
			if (first && off == 0)
				return base_err_set(err, -ECONNRESET,
						    "peer closed the control connection");
			return base_err_set(err, -EPROTO,
					    "peer closed the control connection inside a frame");
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			ret = wait_fd(fd, POLLIN, deadline_ns);
			if (ret)
				return base_err_set(err, ret,
						    "timed out waiting for the peer's control message");
			continue;
		}
		ret = -errno;
		if (ret == -ECONNRESET || ret == -EPIPE)
			return base_err_set(err, -ECONNRESET,
					    "peer reset the control connection");
		return base_err_set(err, ret, "control connection failed: %s",
				    strerror(-ret));
	}
	return 0;
}

int proto_recv(int fd, json_t **msg, int64_t deadline_ns, struct base_err *err)
{
	uint8_t hdr[PROTO_HDR_BYTES], *buf;
	uint32_t n;
	int ret;

	ret = read_full(fd, hdr, sizeof(hdr), deadline_ns, true, err);
	if (ret)
		return ret;
	ret = proto_frame_header_parse(hdr, &n, err);
	if (ret)
		return ret;
	buf = malloc(n);
	if (!buf)
		return base_err_set(err, -ENOMEM, "out of memory");
	ret = read_full(fd, buf, n, deadline_ns, false, err);
	if (!ret)
		ret = decode_payload(buf, n, msg, err);
	free(buf);
	return ret;
}

const char *proto_type(const json_t *msg)
{
	const char *t = json_string_value(json_object_get(msg, "type"));

	return t ? t : "";
}
