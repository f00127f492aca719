/* SPDX-License-Identifier: GPL-2.0-only */
/* Control-channel frames: an 8-byte header, then a JSON object. */
#ifndef NR_PROTO_FRAME_H
#define NR_PROTO_FRAME_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"

/*
 * Header: 'N' 'R', protocol version (1 byte), flags (1 byte, 0), payload
 * length (4 bytes, big endian), then that many bytes of one JSON object in
 * UTF-8. A payload over PROTO_FRAME_MAX is an error, never a truncation.
 */
#define PROTO_VERSION 2
#define PROTO_HDR_BYTES 8
#define PROTO_FRAME_MAX (4u << 20)

/* Default control port of `netregress serve`. */
#define PROTO_DEFAULT_PORT 9127

/* Check a received header; returns 0 and the payload length, or -EPROTO
 * (bad magic, flags, a different version) or -EMSGSIZE, with err set. */
int proto_frame_header_parse(const uint8_t hdr[PROTO_HDR_BYTES],
			     uint32_t *len, struct base_err *err);

/* Encode msg (an object) as a frame into a malloc'ed buffer the caller
 * frees. Returns 0, -EINVAL (not an object), -EMSGSIZE or -ENOMEM. */
int proto_frame_encode(const json_t *msg, uint8_t **out, size_t *out_len,
		       struct base_err *err);

/* Decode a frame that is entirely in buf (header and payload). The payload
 * must be one JSON object with a string "type". On success *msg is a new
 * reference. Returns 0, -EAGAIN when buf holds less than a frame, or
 * -EPROTO/-EMSGSIZE with err set. *used is the frame's length. */
int proto_frame_decode(const uint8_t *buf, size_t len, json_t **msg,
		       size_t *used, struct base_err *err);

/* Blocking I/O on a socket, bounded by an absolute CLOCK_MONOTONIC deadline
 * (ns). Both return 0, -ETIMEDOUT, -ECONNRESET (peer closed; for recv only
 * when no byte of a frame was read, else -EPROTO) or another -errno, with
 * err set. Safe on any thread that owns fd. */
int proto_send(int fd, const json_t *msg, int64_t deadline_ns,
	       struct base_err *err);
int proto_recv(int fd, json_t **msg, int64_t deadline_ns,
	       struct base_err *err);

/* The message's "type" ("" when absent). */
const char *proto_type(const json_t *msg);

#endif
