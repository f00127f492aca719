// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for proto/: the frame codec, deadline-bounded socket I/O and the report schema. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/time.h"
#include "proto/frame.h"
#include "proto/msg.h"

/* Fail unless err->msg holds needle, showing the whole message. */
static void expect_msg_has(const struct base_err *err, const char *needle)
{
	if (!strstr(err->msg, needle))
		fail_msg("error text '%s' lacks '%s'", err->msg, needle);
}

/* A raw 8-byte header with the given fields. */
static void make_hdr(uint8_t hdr[PROTO_HDR_BYTES], uint8_t m0, uint8_t m1,
		     uint8_t version, uint8_t flags, uint32_t len)
{
	hdr[0] = m0;
	hdr[1] = m1;
	hdr[2] = version;
	hdr[3] = flags;
	hdr[4] = (uint8_t)(len >> 24);
	hdr[5] = (uint8_t)(len >> 16);
	hdr[6] = (uint8_t)(len >> 8);
	hdr[7] = (uint8_t)len;
}

/* A well-formed header followed by payload, in a malloc'ed buffer. */
static uint8_t *make_frame(const char *payload, size_t *len)
{
	size_t n = strlen(payload);
	uint8_t *buf = malloc(PROTO_HDR_BYTES + n);

	assert_non_null(buf);
	make_hdr(buf, 'N', 'R', PROTO_VERSION, 0, (uint32_t)n);
	memcpy(buf + PROTO_HDR_BYTES, payload, n);
	*len = PROTO_HDR_BYTES + n;
	return buf;
}

/* Decode a frame with this payload; expect -EPROTO and needle in the text. */
static void check_payload_rejected(const char *payload, const char *needle)
{
	struct base_err err = { .msg = "" };
	json_t *msg = NULL;
	size_t len, used = 0;
	uint8_t *buf = make_frame(payload, &len);
	int ret = proto_frame_decode(buf, len, &msg, &used, &err);

	if (ret != -EPROTO)
		fail_msg("decoding payload '%s' returned %d, want -EPROTO",
			 payload, ret);
	assert_null(msg);
	expect_msg_has(&err, needle);
	free(buf);
}

static void write_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;

	while (len) {
		ssize_t n = write(fd, b, len);

		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

static void make_pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* ---- frame codec ---- */

static void test_frame_encode_decode_round_trip(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *in = json_pack("{s:s, s:i, s:[i,i], s:{s:b}}", "type", "hello",
			       "n", 42, "list", 1, 2, "nested", "ok", 1);
	json_t *out = NULL;
	uint8_t *buf = NULL;
	size_t len = 0, used = 0;

	(void)state;
	assert_non_null(in);
	assert_int_equal(proto_frame_encode(in, &buf, &len, &err), 0);
	assert_true(len > PROTO_HDR_BYTES);
	assert_int_equal(proto_frame_decode(buf, len, &out, &used, &err), 0);
	assert_int_equal(used, len);
	assert_true(json_equal(in, out));
	assert_string_equal(proto_type(out), "hello");
	json_decref(out);
	json_decref(in);
	free(buf);
}

static void test_frame_encode_writes_big_endian_header(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *in = json_pack("{s:s}", "type", "x");
	const char *want = "{\"type\":\"x\"}";
	uint8_t *buf = NULL;
	size_t len = 0, n = strlen(want);

	(void)state;
	assert_int_equal(proto_frame_encode(in, &buf, &len, &err), 0);
	assert_int_equal(len, PROTO_HDR_BYTES + n);
	assert_int_equal(buf[0], 'N');
	assert_int_equal(buf[1], 'R');
	assert_int_equal(buf[2], PROTO_VERSION);
	assert_int_equal(buf[3], 0);
	assert_int_equal(buf[4], 0);
	assert_int_equal(buf[5], 0);
	assert_int_equal(buf[6], 0);
	assert_int_equal(buf[7], n);
	assert_memory_equal(buf + PROTO_HDR_BYTES, want, n);
	json_decref(in);
	free(buf);
}

static void test_frame_decode_reports_used_bytes_of_first_frame(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *a = json_pack("{s:s}", "type", "first");
	json_t *b = json_pack("{s:s, s:i}", "type", "second", "k", 7);
	json_t *out = NULL;
	uint8_t *fa = NULL, *fb = NULL, *both;
	size_t la, lb, used = 0;

	(void)state;
	assert_int_equal(proto_frame_encode(a, &fa, &la, &err), 0);
	assert_int_equal(proto_frame_encode(b, &fb, &lb, &err), 0);
	both = malloc(la + lb);
	assert_non_null(both);
	memcpy(both, fa, la);
	memcpy(both + la, fb, lb);

	assert_int_equal(proto_frame_decode(both, la + lb, &out, &used, &err), 0);
	assert_int_equal(used, la);
	assert_string_equal(proto_type(out), "first");
	json_decref(out);
	out = NULL;
	assert_int_equal(proto_frame_decode(both + used, la + lb - used, &out,
					    &used, &err), 0);
	assert_int_equal(used, lb);
	assert_true(json_equal(out, b));
	json_decref(out);

	free(both);
	free(fa);
	free(fb);
	json_decref(a);
	json_decref(b);
}

static void test_frame_decode_truncated_header_is_eagain(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len, used = 0;
	uint8_t *buf = make_frame("{\"type\":\"x\"}", &len);

	(void)state;
	for (size_t n = 0; n < PROTO_HDR_BYTES; n++) {
		if (proto_frame_decode(buf, n, &out, &used, &err) != -EAGAIN)
			fail_msg("%zu header bytes did not give -EAGAIN", n);
		assert_null(out);
	}
	free(buf);
}

static void test_frame_decode_truncated_payload_is_eagain(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len, used = 0;
	uint8_t *buf = make_frame("{\"type\":\"x\"}", &len);

	(void)state;
	for (size_t n = PROTO_HDR_BYTES; n < len; n++) {
		if (proto_frame_decode(buf, n, &out, &used, &err) != -EAGAIN)
			fail_msg("%zu of %zu bytes did not give -EAGAIN", n, len);
		assert_null(out);
	}
	assert_int_equal(proto_frame_decode(buf, len, &out, &used, &err), 0);
	json_decref(out);
	free(buf);
}

static void test_frame_decode_rejects_bad_magic(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len, used = 0;
	uint8_t *buf = make_frame("{\"type\":\"x\"}", &len);

	(void)state;
	buf[0] = 'H';
	buf[1] = 'T';
	assert_int_equal(proto_frame_decode(buf, len, &out, &used, &err), -EPROTO);
	assert_null(out);
	expect_msg_has(&err, "not a netregress control frame");
	expect_msg_has(&err, "48 54");
	free(buf);
}

static void test_frame_header_rejects_other_version_naming_both(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	uint32_t n = 0;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION + 6, 0, 10);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), -EPROTO);
	expect_msg_has(&err, "version 8");
	expect_msg_has(&err, "expected 2");
}

static void test_frame_header_rejects_nonzero_flags(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	uint32_t n = 0;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0x80, 10);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), -EPROTO);
	expect_msg_has(&err, "0x80");
}

static void test_frame_header_rejects_zero_length(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	uint32_t n = 0;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, 0);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), -EPROTO);
	expect_msg_has(&err, "empty");
}

static void test_frame_header_accepts_length_at_cap(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	uint32_t n = 0;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, PROTO_FRAME_MAX);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), 0);
	assert_int_equal(n, PROTO_FRAME_MAX);
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, 1);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), 0);
	assert_int_equal(n, 1);
}

static void test_frame_header_rejects_length_over_cap(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	uint32_t n = 12345;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, PROTO_FRAME_MAX + 1);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), -EMSGSIZE);
	expect_msg_has(&err, "4194305");
	assert_int_equal(n, 12345);
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, UINT32_MAX);
	assert_int_equal(proto_frame_header_parse(hdr, &n, &err), -EMSGSIZE);
	expect_msg_has(&err, "4294967295");
}

/* Only the header is present: the cap must be applied before any payload
 * is awaited or allocated, so the answer is -EMSGSIZE, not -EAGAIN. */
static void test_frame_decode_rejects_oversized_length_from_header_alone(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	json_t *out = NULL;
	size_t used = 0;

	(void)state;
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, PROTO_FRAME_MAX + 1);
	assert_int_equal(proto_frame_decode(hdr, sizeof(hdr), &out, &used, &err),
			 -EMSGSIZE);
	assert_null(out);
	assert_int_equal(used, 0);
}

static void test_frame_decode_rejects_invalid_json(void **state)
{
	(void)state;
	check_payload_rejected("{\"type\":", "not valid json");
	check_payload_rejected("{\"type\":\"x\"} trailing", "not valid json");
	check_payload_rejected("\xff\xfe", "not valid json");
}

static void test_frame_decode_rejects_json_that_is_not_an_object(void **state)
{
	(void)state;
	check_payload_rejected("[1,2,3]", "not an object");
	/* jansson refuses a bare scalar while parsing: still -EPROTO */
	check_payload_rejected("\"type\"", "control frame is not");
	check_payload_rejected("42", "control frame is not");
}

static void test_frame_decode_rejects_object_without_string_type(void **state)
{
	(void)state;
	check_payload_rejected("{}", "string 'type'");
	check_payload_rejected("{\"kind\":\"hello\"}", "string 'type'");
	check_payload_rejected("{\"type\":1}", "string 'type'");
	check_payload_rejected("{\"type\":null}", "string 'type'");
}

static void test_frame_decode_rejects_duplicate_keys(void **state)
{
	(void)state;
	check_payload_rejected("{\"type\":\"a\",\"type\":\"b\"}", "not valid json");
	check_payload_rejected("{\"type\":\"a\",\"n\":1,\"n\":2}", "not valid json");
}

static void test_frame_encode_rejects_non_object(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *arr = json_pack("[i]", 1);
	json_t *str = json_string("hello");
	uint8_t *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_int_equal(proto_frame_encode(arr, &buf, &len, &err), -EINVAL);
	expect_msg_has(&err, "not an object");
	assert_int_equal(proto_frame_encode(str, &buf, &len, &err), -EINVAL);
	assert_int_equal(proto_frame_encode(NULL, &buf, &len, &err), -EINVAL);
	assert_null(buf);
	json_decref(arr);
	json_decref(str);
}

static void test_frame_encode_rejects_message_over_cap(void **state)
{
	struct base_err err = { .msg = "" };
	size_t n = PROTO_FRAME_MAX;
	char *big = malloc(n + 1);
	json_t *msg;
	uint8_t *buf = NULL;
	size_t len = 0;

	(void)state;
	assert_non_null(big);
	memset(big, 'a', n);
	big[n] = '\0';
	msg = json_pack("{s:s, s:s}", "type", "x", "blob", big);
	assert_non_null(msg);
	assert_int_equal(proto_frame_encode(msg, &buf, &len, &err), -EMSGSIZE);
	assert_null(buf);
	expect_msg_has(&err, "cap");
	json_decref(msg);
	free(big);
}

static void test_proto_type_is_empty_without_type(void **state)
{
	json_t *a = json_pack("{s:s}", "type", "stop");
	json_t *b = json_pack("{s:i}", "type", 3);
	json_t *c = json_object();

	(void)state;
	assert_string_equal(proto_type(a), "stop");
	assert_string_equal(proto_type(b), "");
	assert_string_equal(proto_type(c), "");
	json_decref(a);
	json_decref(b);
	json_decref(c);
}

/* ---- socket I/O ---- */

static void test_send_recv_round_trip_over_socketpair(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *a = json_pack("{s:s, s:I}", "type", "start", "at_ns",
			      (json_int_t)1234567890123LL);
	json_t *b = json_pack("{s:s, s:s}", "type", "stop", "why", "done");
	json_t *out = NULL;
	int64_t deadline = base_now_ns() + 5 * NS_PER_S;
	int sv[2];

	(void)state;
	make_pair(sv);
	/* two frames back to back: recv must take exactly one each time */
	assert_int_equal(proto_send(sv[0], a, deadline, &err), 0);
	assert_int_equal(proto_send(sv[0], b, deadline, &err), 0);
	assert_int_equal(proto_recv(sv[1], &out, deadline, &err), 0);
	assert_true(json_equal(a, out));
	json_decref(out);
	out = NULL;
	assert_int_equal(proto_recv(sv[1], &out, deadline, &err), 0);
	assert_true(json_equal(b, out));
	json_decref(out);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	json_decref(a);
	json_decref(b);
}

struct sender {
	int fd;
	json_t *msg;
	int ret;
	struct base_err err;
};

static void *send_thread(void *arg)
{
	struct sender *s = arg;

	s->ret = proto_send(s->fd, s->msg, base_now_ns() + 10 * NS_PER_S,
			    &s->err);
	return NULL;
}

/* Larger than a socket buffer, so both ends must loop on partial I/O. */
static void test_send_recv_round_trip_of_message_larger_than_socket_buffer(void **state)
{
	struct base_err err = { .msg = "" };
	size_t n = 2u << 20;
	char *big = malloc(n + 1);
	struct sender s = { .ret = 1 };
	json_t *out = NULL;
	pthread_t th;
	int sv[2];

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (char)('a' + i % 26);
	big[n] = '\0';
	make_pair(sv);
	s.fd = sv[0];
	s.msg = json_pack("{s:s, s:s}", "type", "blob", "data", big);
	assert_non_null(s.msg);
	assert_int_equal(pthread_create(&th, NULL, send_thread, &s), 0);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 10 * NS_PER_S,
				    &err), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(s.ret, 0);
	assert_true(json_equal(s.msg, out));
	json_decref(out);
	json_decref(s.msg);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	free(big);
}

static void test_recv_returns_econnreset_when_peer_closes_before_a_frame(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	int sv[2];

	(void)state;
	make_pair(sv);
	close_fd(&sv[0]);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 5 * NS_PER_S,
				    &err), -ECONNRESET);
	assert_null(out);
	expect_msg_has(&err, "closed");
	close_fd(&sv[1]);
}

static void test_recv_returns_eproto_when_peer_closes_inside_header(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	int sv[2];

	(void)state;
	make_pair(sv);
	write_all(sv[0], "NR\x01", 3);
	close_fd(&sv[0]);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 5 * NS_PER_S,
				    &err), -EPROTO);
	assert_null(out);
	expect_msg_has(&err, "inside a frame");
	close_fd(&sv[1]);
}

static void test_recv_returns_eproto_when_peer_closes_inside_payload(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len;
	uint8_t *buf = make_frame("{\"type\":\"hello\"}", &len);
	int sv[2];

	(void)state;
	make_pair(sv);
	write_all(sv[0], buf, len - 4);
	close_fd(&sv[0]);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 5 * NS_PER_S,
				    &err), -EPROTO);
	assert_null(out);
	expect_msg_has(&err, "inside a frame");
	close_fd(&sv[1]);
	free(buf);
}

static void test_recv_times_out_at_deadline_when_nothing_arrives(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	int64_t t0, elapsed;
	int sv[2];

	(void)state;
	make_pair(sv);
	t0 = base_now_ns();
	assert_int_equal(proto_recv(sv[1], &out, t0 + 100 * NS_PER_MS, &err),
			 -ETIMEDOUT);
	elapsed = base_now_ns() - t0;
	assert_null(out);
	expect_msg_has(&err, "timed out");
	if (elapsed < 100 * NS_PER_MS || elapsed > 5 * NS_PER_S)
		fail_msg("timed out after %" PRId64 " ns, want 100ms and a bit",
			 elapsed);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
}

static void test_recv_times_out_when_payload_never_completes(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len;
	uint8_t *buf = make_frame("{\"type\":\"hello\"}", &len);
	int sv[2];

	(void)state;
	make_pair(sv);
	write_all(sv[0], buf, PROTO_HDR_BYTES + 2);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 100 * NS_PER_MS,
				    &err), -ETIMEDOUT);
	assert_null(out);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	free(buf);
}

/* A hostile header must fail at once: no 4 GiB allocation, no waiting
 * for a payload that will never come. */
static void test_recv_rejects_4gib_header_immediately(void **state)
{
	struct base_err err = { .msg = "" };
	uint8_t hdr[PROTO_HDR_BYTES];
	json_t *out = NULL;
	int64_t t0, elapsed;
	int sv[2];

	(void)state;
	make_pair(sv);
	make_hdr(hdr, 'N', 'R', PROTO_VERSION, 0, UINT32_MAX);
	write_all(sv[0], hdr, sizeof(hdr));
	t0 = base_now_ns();
	assert_int_equal(proto_recv(sv[1], &out, t0 + 10 * NS_PER_S, &err),
			 -EMSGSIZE);
	elapsed = base_now_ns() - t0;
	assert_null(out);
	expect_msg_has(&err, "4294967295");
	if (elapsed > 2 * NS_PER_S)
		fail_msg("rejecting the header took %" PRId64 " ns", elapsed);
	close_fd(&sv[0]);
	close_fd(&sv[1]);
}

static void test_recv_rejects_frame_with_invalid_json(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *out = NULL;
	size_t len;
	uint8_t *buf = make_frame("{\"type\":\"x\",}", &len);
	int sv[2];

	(void)state;
	make_pair(sv);
	write_all(sv[0], buf, len);
	assert_int_equal(proto_recv(sv[1], &out, base_now_ns() + 5 * NS_PER_S,
				    &err), -EPROTO);
	assert_null(out);
	expect_msg_has(&err, "not valid json");
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	free(buf);
}

static void test_send_times_out_when_peer_does_not_read(void **state)
{
	struct base_err err = { .msg = "" };
	size_t n = 2u << 20;
	char *big = malloc(n + 1);
	json_t *msg;
	int sv[2];

	(void)state;
	assert_non_null(big);
	memset(big, 'z', n);
	big[n] = '\0';
	msg = json_pack("{s:s, s:s}", "type", "blob", "data", big);
	make_pair(sv);
	assert_int_equal(proto_send(sv[0], msg, base_now_ns() + 100 * NS_PER_MS,
				    &err), -ETIMEDOUT);
	expect_msg_has(&err, "timed out");
	close_fd(&sv[0]);
	close_fd(&sv[1]);
	json_decref(msg);
	free(big);
}

/* MSG_NOSIGNAL: a closed peer is an error return, not a SIGPIPE. */
static void test_send_to_closed_peer_returns_epipe(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *msg = json_pack("{s:s}", "type", "hello");
	int sv[2];

	(void)state;
	make_pair(sv);
	close_fd(&sv[1]);
	assert_int_equal(proto_send(sv[0], msg, base_now_ns() + NS_PER_S, &err),
			 -EPIPE);
	expect_msg_has(&err, "sending");
	close_fd(&sv[0]);
	json_decref(msg);
}

/* ---- strict field readers ---- */

static void test_get_i64_range_error_names_message_field_and_value(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m = json_pack("{s:s, s:i}", "type", "setup", "port", 70000);
	int64_t v = 0;

	(void)state;
	assert_int_equal(proto_get_i64(m, "port", 1, 65535, &v, &err), -EPROTO);
	expect_msg_has(&err, "'setup'");
	expect_msg_has(&err, "'port'");
	expect_msg_has(&err, "70000");
	expect_msg_has(&err, "1..65535");
	json_decref(m);
}

static void test_get_i64_accepts_range_bounds(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m = json_pack("{s:i, s:i}", "lo", -5, "hi", 5);
	int64_t v = 0;

	(void)state;
	assert_int_equal(proto_get_i64(m, "lo", -5, 5, &v, &err), 0);
	assert_int_equal(v, -5);
	assert_int_equal(proto_get_i64(m, "hi", -5, 5, &v, &err), 0);
	assert_int_equal(v, 5);
	assert_int_equal(proto_get_i64(m, "hi", -5, 4, &v, &err), -EPROTO);
	assert_int_equal(proto_get_i64(m, "lo", -4, 5, &v, &err), -EPROTO);
	json_decref(m);
}

static void test_get_i64_rejects_missing_and_non_integer_field(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m = json_pack("{s:s, s:f, s:b}", "s", "12", "d", 1.0, "b", 1);
	int64_t v = 0;

	(void)state;
	assert_int_equal(proto_get_i64(m, "s", 0, 100, &v, &err), -EPROTO);
	expect_msg_has(&err, "'s' must be an integer");
	/* no "type": the message is called a result */
	expect_msg_has(&err, "'result' message");
	assert_int_equal(proto_get_i64(m, "d", 0, 100, &v, &err), -EPROTO);
	expect_msg_has(&err, "'d'");
	assert_int_equal(proto_get_i64(m, "b", 0, 100, &v, &err), -EPROTO);
	assert_int_equal(proto_get_i64(m, "absent", 0, 100, &v, &err), -EPROTO);
	expect_msg_has(&err, "'absent'");
	json_decref(m);
}

static void test_get_str_enforces_type_and_length(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m = json_pack("{s:s, s:s, s:i}", "type", "hello", "name",
			      "abcd", "num", 1);
	const char *s = NULL;

	(void)state;
	assert_int_equal(proto_get_str(m, "name", 4, &s, &err), 0);
	assert_string_equal(s, "abcd");
	assert_int_equal(proto_get_str(m, "name", 3, &s, &err), -EPROTO);
	expect_msg_has(&err, "'name'");
	expect_msg_has(&err, "3 bytes");
	assert_int_equal(proto_get_str(m, "num", 10, &s, &err), -EPROTO);
	assert_int_equal(proto_get_str(m, "absent", 10, &s, &err), -EPROTO);
	json_decref(m);
}

static void test_get_bool_rejects_integers(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m = json_pack("{s:b, s:b, s:i}", "t", 1, "f", 0, "one", 1);
	bool b = false;

	(void)state;
	assert_int_equal(proto_get_bool(m, "t", &b, &err), 0);
	assert_true(b);
	assert_int_equal(proto_get_bool(m, "f", &b, &err), 0);
	assert_false(b);
	assert_int_equal(proto_get_bool(m, "one", &b, &err), -EPROTO);
	expect_msg_has(&err, "'one'");
	json_decref(m);
}

static void test_msg_sets_type_over_extra_fields(void **state)
{
	json_t *m = proto_msg("go", json_pack("{s:s, s:i}", "type", "spoof",
					      "n", 3));

	(void)state;
	assert_non_null(m);
	assert_string_equal(proto_type(m), "go");
	assert_int_equal(json_integer_value(json_object_get(m, "n")), 3);
	assert_int_equal(json_object_size(m), 2);
	json_decref(m);
	m = proto_msg("bare", NULL);
	assert_non_null(m);
	assert_int_equal(json_object_size(m), 1);
	assert_string_equal(proto_type(m), "bare");
	json_decref(m);
}

/* ---- end reports ---- */

static struct proto_flow_report sample_flows[2];

/* A report with every field distinct, two flows, the first with tcp_info. */
static void make_report(struct proto_end_report *r)
{
	memset(r, 0, sizeof(*r));
	memset(sample_flows, 0, sizeof(sample_flows));
	r->window_ns = 5 * NS_PER_S + 123;
	r->user_ns = 400 * NS_PER_MS;
	r->sys_ns = 1200 * NS_PER_MS;
	r->nvcsw = 17;
	r->nivcsw = 3;
	r->cpu_ns = 1650 * NS_PER_MS;
	r->workers_ns = 1500 * NS_PER_MS;
	r->runq_wait_ns = 25 * NS_PER_MS;
	r->nworkers = 2;
	snprintf(r->worker_cpus, sizeof(r->worker_cpus), "0,1");
	r->cpu_all = (struct proto_cpu){ .valid = true, .user = 1.5,
					 .sys = 12.25, .softirq = 3.125,
					 .irq = 0.5, .idle = 80.5,
					 .iowait = 0.0625, .steal = 0,
					 .busy = 19.4375, .busy_ticks = 15.75 };
	r->cpu_test = (struct proto_cpu){ .valid = false };
	r->drain_timeout = true;
	sample_flows[0] = (struct proto_flow_report){
		.id = 0, .tx = true, .win_bytes = 5000000000ULL,
		.win_msgs = 38147, .win_calls = 40001, .total_bytes = 7000000001ULL,
		.total_msgs = 53406, .sndbuf = 2626560, .rcvbuf = 131072,
		.sndbuf_end = 4194304, .rcvbuf_end = 131073, .eof = false,
		.err = 0, .has_tcpi = true,
		.tcpi = { .total_retrans = 12, .rtt_us = 45, .rttvar_us = 7,
			  .snd_cwnd = 640, .snd_mss = 65483,
			  .delivery_rate_bps = 41000000000ULL,
			  .bytes_retrans = 786432, .cc = "bbr",
			  .has_wscale = true, .snd_wscale = 14 },
		.has_tcpi_win = true,
		.tcpi_win = { .data_segs_out = 76352, .bytes_sent = 5000065536ULL, .retrans = 9, .dsack_dups = 7, .reord_seen = 36,
			      .busy_us = 5000004,
			      .rwnd_limited_us = 1000000, .sndbuf_limited_us = 3000000,
			      .has_segs = true, .segs_out = 76360, .data_segs_in = 12 },
	};
	sample_flows[1] = (struct proto_flow_report){
		.id = 1, .tx = false, .win_bytes = 123, .win_msgs = 4,
		.total_bytes = 456, .total_msgs = 5, .udp_lost = 6,
		.udp_reordered = 7, .udp_dup = 8, .sndbuf = 9, .rcvbuf = 10,
		.sndbuf_end = 11, .rcvbuf_end = 12, .eof = true, .err = 104,
		.has_tcpi = false, .has_sock_drops = true, .sock_drops = 4242,
		/* a receiver's window: its ACKs (a client that asked for them) */
		.has_tcpi_win = true,
		.tcpi_win = { .has_segs = true, .segs_out = 49627, .data_segs_in = 76352 },
		/* and its receive side at stop */
		.has_tcpi_rx = true,
		.tcpi_rx = { .rcv_space = 7209702, .rcv_ssthresh = 4294967295U,
			     .advmss = 65483, .rcv_wscale = 10 },
	};
	r->nflows = 2;
	r->flows = sample_flows;
}

static void expect_cpu_equal(const struct proto_cpu *a,
			     const struct proto_cpu *b)
{
	assert_int_equal(a->valid, b->valid);
	if (!a->valid)
		return;
	/* jansson prints doubles with 17 digits: exact round trip */
	assert_true(a->user == b->user && a->sys == b->sys &&
		    a->softirq == b->softirq && a->irq == b->irq &&
		    a->idle == b->idle && a->iowait == b->iowait &&
		    a->steal == b->steal && a->busy == b->busy &&
		    a->busy_ticks == b->busy_ticks);
}

static void expect_flow_equal(const struct proto_flow_report *a,
			      const struct proto_flow_report *b)
{
	assert_int_equal(a->id, b->id);
	assert_int_equal(a->tx, b->tx);
	assert_int_equal(a->win_bytes, b->win_bytes);
	assert_int_equal(a->win_msgs, b->win_msgs);
	assert_int_equal(a->win_calls, b->win_calls);
	assert_int_equal(a->total_bytes, b->total_bytes);
	assert_int_equal(a->total_msgs, b->total_msgs);
	assert_int_equal(a->udp_lost, b->udp_lost);
	assert_int_equal(a->udp_reordered, b->udp_reordered);
	assert_int_equal(a->udp_dup, b->udp_dup);
	assert_int_equal(a->sndbuf, b->sndbuf);
	assert_int_equal(a->rcvbuf, b->rcvbuf);
	assert_int_equal(a->sndbuf_end, b->sndbuf_end);
	assert_int_equal(a->rcvbuf_end, b->rcvbuf_end);
	assert_int_equal(a->eof, b->eof);
	assert_int_equal(a->err, b->err);
	assert_int_equal(a->has_tcpi, b->has_tcpi);
	assert_int_equal(a->tcpi.total_retrans, b->tcpi.total_retrans);
	assert_int_equal(a->tcpi.rtt_us, b->tcpi.rtt_us);
	assert_int_equal(a->tcpi.rttvar_us, b->tcpi.rttvar_us);
	assert_int_equal(a->tcpi.snd_cwnd, b->tcpi.snd_cwnd);
	assert_int_equal(a->tcpi.snd_mss, b->tcpi.snd_mss);
	assert_int_equal(a->tcpi.delivery_rate_bps, b->tcpi.delivery_rate_bps);
	assert_int_equal(a->tcpi.bytes_retrans, b->tcpi.bytes_retrans);
	assert_string_equal(a->tcpi.cc, b->tcpi.cc);
	assert_int_equal(a->tcpi.has_wscale, b->tcpi.has_wscale);
	assert_int_equal(a->tcpi.snd_wscale, b->tcpi.snd_wscale);
	assert_int_equal(a->has_tcpi_rx, b->has_tcpi_rx);
	assert_int_equal(a->tcpi_rx.rcv_space, b->tcpi_rx.rcv_space);
	assert_int_equal(a->tcpi_rx.rcv_ssthresh, b->tcpi_rx.rcv_ssthresh);
	assert_int_equal(a->tcpi_rx.advmss, b->tcpi_rx.advmss);
	assert_int_equal(a->tcpi_rx.rcv_wscale, b->tcpi_rx.rcv_wscale);
	assert_int_equal(a->has_sock_drops, b->has_sock_drops);
	assert_int_equal(a->sock_drops, b->sock_drops);
	assert_int_equal(a->has_tcpi_win, b->has_tcpi_win);
	assert_int_equal(a->tcpi_win.data_segs_out, b->tcpi_win.data_segs_out);
	assert_int_equal(a->tcpi_win.bytes_sent, b->tcpi_win.bytes_sent);
	assert_int_equal(a->tcpi_win.retrans, b->tcpi_win.retrans);
	assert_int_equal(a->tcpi_win.dsack_dups, b->tcpi_win.dsack_dups);
	assert_int_equal(a->tcpi_win.reord_seen, b->tcpi_win.reord_seen);
	assert_int_equal(a->tcpi_win.busy_us, b->tcpi_win.busy_us);
	assert_int_equal(a->tcpi_win.rwnd_limited_us, b->tcpi_win.rwnd_limited_us);
	assert_int_equal(a->tcpi_win.sndbuf_limited_us, b->tcpi_win.sndbuf_limited_us);
	assert_int_equal(a->tcpi_win.has_segs, b->tcpi_win.has_segs);
	assert_int_equal(a->tcpi_win.segs_out, b->tcpi_win.segs_out);
	assert_int_equal(a->tcpi_win.data_segs_in, b->tcpi_win.data_segs_in);
}

static void test_end_report_json_round_trip_with_two_flows(void **state)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report in, out;
	json_t *j;

	(void)state;
	make_report(&in);
	j = proto_end_report_to_json(&in);
	assert_non_null(j);
	assert_true(json_is_null(json_object_get(j, "cpu_test")));
	assert_non_null(json_object_get(json_array_get(json_object_get(j, "flows"), 0),
					"tcp_info"));
	assert_null(json_object_get(json_array_get(json_object_get(j, "flows"), 1),
				    "tcp_info"));
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_int_equal(out.window_ns, in.window_ns);
	assert_int_equal(out.user_ns, in.user_ns);
	assert_int_equal(out.sys_ns, in.sys_ns);
	assert_int_equal(out.nvcsw, in.nvcsw);
	assert_int_equal(out.nivcsw, in.nivcsw);
	assert_int_equal(out.cpu_ns, in.cpu_ns);
	assert_int_equal(out.workers_ns, in.workers_ns);
	assert_int_equal(out.runq_wait_ns, in.runq_wait_ns);
	assert_int_equal(out.nworkers, 2);
	assert_string_equal(out.worker_cpus, "0,1");
	assert_int_equal(out.drain_timeout, in.drain_timeout);
	expect_cpu_equal(&out.cpu_all, &in.cpu_all);
	expect_cpu_equal(&out.cpu_test, &in.cpu_test);
	assert_int_equal(out.nflows, 2);
	expect_flow_equal(&out.flows[0], &in.flows[0]);
	expect_flow_equal(&out.flows[1], &in.flows[1]);
	proto_end_report_release(&out);
	assert_null(out.flows);
	assert_int_equal(out.nflows, 0);
	/* a peer from before busy_ticks sent busy from the ticks alone */
	assert_int_equal(json_object_del(json_object_get(j, "cpu_all"), "busy_ticks"), 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.cpu_all.busy == 19.4375 && out.cpu_all.busy_ticks == 19.4375);
	proto_end_report_release(&out);
	/* a peer from before the congestion control's name sends none */
	assert_int_equal(json_object_del(json_object_get(json_array_get(json_object_get(j, "flows"), 0),
							 "tcp_info"),
					 "cc"),
			 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.flows[0].has_tcpi);
	assert_string_equal(out.flows[0].tcpi.cc, "");
	proto_end_report_release(&out);
	/* nor the window scale, nor a receiver's state at stop: not an error,
	 * and nothing read as 0 */
	assert_int_equal(json_object_del(json_object_get(json_array_get(json_object_get(j, "flows"), 0),
							 "tcp_info"),
					 "snd_wscale"),
			 0);
	assert_int_equal(json_object_del(json_array_get(json_object_get(j, "flows"), 1),
					 "tcp_info_rx"), 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.flows[0].has_tcpi);
	assert_false(out.flows[0].tcpi.has_wscale);
	assert_false(out.flows[1].has_tcpi_rx);
	proto_end_report_release(&out);
	/* a peer from before the window's TCP_INFO sends none: not an error */
	assert_int_equal(json_object_del(json_array_get(json_object_get(j, "flows"), 0),
					 "tcp_info_window"), 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.flows[0].has_tcpi);
	assert_false(out.flows[0].has_tcpi_win);
	proto_end_report_release(&out);
	/* one from before the segment counts sends the rest of the window */
	json_t *rxw = json_object_get(json_array_get(json_object_get(j, "flows"), 1),
				      "tcp_info_window");
	assert_int_equal(json_object_del(rxw, "segs_out"), 0);
	assert_int_equal(json_object_del(rxw, "data_segs_in"), 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.flows[1].has_tcpi_win);
	assert_false(out.flows[1].tcpi_win.has_segs);
	proto_end_report_release(&out);
	/* nor sock_drops */
	assert_int_equal(json_object_del(json_array_get(json_object_get(j, "flows"), 1),
					 "sock_drops"), 0);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_false(out.flows[1].has_sock_drops);
	proto_end_report_release(&out);
	json_decref(j);
}

/* The exact-accounting fields are checked like the rest: a report from
 * an older peer, a negative time or a bad cpu list is refused. */
static void test_end_report_rejects_bad_accounting(void **state)
{
	static const struct {
		const char *key;
		const char *json; /* the new value, as JSON */
		const char *needle;
	} cases[] = {
		{ "cpu_ns", NULL, "cpu_ns" },
		{ "workers_ns", "-2", "workers_ns" },
		{ "runq_wait_ns", "\"1\"", "runq_wait_ns" },
		{ "nworkers", "-1", "nworkers" },
		{ "worker_cpus", "\"0;rm\"", "cpu list" },
		{ "worker_cpus", "7", "worker_cpus" },
		{ "notes", "{\"probe.note\": \"lost\\nFORGED\"}", "no control character" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct base_err err = { .msg = "" };
		struct proto_end_report in, out;
		json_t *j;

		make_report(&in);
		j = proto_end_report_to_json(&in);
		assert_non_null(j);
		if (cases[i].json)
			json_object_set_new(j, cases[i].key,
					    json_loads(cases[i].json, JSON_DECODE_ANY, NULL));
		else
			json_object_del(j, cases[i].key);
		assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), -EPROTO);
		expect_msg_has(&err, cases[i].needle);
		json_decref(j);
	}
}

static void test_end_report_round_trip_with_no_flows(void **state)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report in, out;
	json_t *j;

	(void)state;
	make_report(&in);
	in.nflows = 0;
	j = proto_end_report_to_json(&in);
	assert_non_null(j);
	assert_int_equal(proto_end_report_from_json(j, 0, &out, &err), 0);
	assert_int_equal(out.nflows, 0);
	proto_end_report_release(&out);
	json_decref(j);
}

/*
 * Turn a good report into a bad one with mutate(), then expect from_json
 * to fail with -EPROTO, leave nothing allocated, and name needle.
 */
static void check_report_rejected(void (*mutate)(json_t *j), uint32_t max_flows,
				  const char *needle)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report in, out;
	json_t *j;
	int ret;

	make_report(&in);
	j = proto_end_report_to_json(&in);
	assert_non_null(j);
	mutate(j);
	ret = proto_end_report_from_json(j, max_flows, &out, &err);
	if (ret != -EPROTO)
		fail_msg("bad report accepted or wrong error %d (want '%s')",
			 ret, needle);
	assert_null(out.flows);
	assert_int_equal(out.nflows, 0);
	expect_msg_has(&err, needle);
	json_decref(j);
}

static json_t *flow0(json_t *j)
{
	return json_array_get(json_object_get(j, "flows"), 0);
}

static json_t *flow1(json_t *j)
{
	return json_array_get(json_object_get(j, "flows"), 1);
}

static void set_window_string(json_t *j)
{
	json_object_set_new(j, "window_ns", json_string("5000000000"));
}

static void set_flow_bytes_string(json_t *j)
{
	json_object_set_new(flow1(j), "win_bytes", json_string("123"));
}

static void set_flow_bytes_real(json_t *j)
{
	json_object_set_new(flow0(j), "total_bytes", json_real(1e9));
}

static void set_tx_integer(json_t *j)
{
	json_object_set_new(flow0(j), "tx", json_integer(1));
}

static void test_end_report_rejects_wrong_types(void **state)
{
	(void)state;
	check_report_rejected(set_window_string, 2, "'window_ns' must be an integer");
	check_report_rejected(set_flow_bytes_string, 2, "'win_bytes' must be an integer");
	check_report_rejected(set_flow_bytes_real, 2, "'total_bytes'");
	check_report_rejected(set_tx_integer, 2, "'tx' must be true or false");
}

static void set_negative_win_bytes(json_t *j)
{
	json_object_set_new(flow0(j), "win_bytes", json_integer(-1));
}

static void set_negative_total_bytes(json_t *j)
{
	json_object_set_new(flow1(j), "total_bytes", json_integer(-4096));
}

static void set_negative_window(json_t *j)
{
	json_object_set_new(j, "window_ns", json_integer(-1));
}

static void set_negative_tcpi_bytes(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"),
			    "bytes_retrans", json_integer(-2));
}

static void set_tcpi_rtt_over_u32(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "rtt_us",
			    json_integer(4294967341LL));
}

static void set_tcpi_cwnd_over_u32(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "snd_cwnd",
			    json_integer(1LL << 32));
}

static void set_tcpi_win_limited_over_busy(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info_window"),
			    "rwnd_limited_us", json_integer(2000005));
}

static void set_tcpi_cc_too_long(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "cc",
			    json_string("a_name_of_16_chr"));
}

static void set_tcpi_cc_control(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "cc",
			    json_string("bbr\033[2J"));
}

static void set_tcpi_cc_not_string(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "cc", json_integer(1));
}

static void set_tcpi_win_not_object(json_t *j)
{
	json_object_set_new(flow0(j), "tcp_info_window", json_integer(3));
}

static void set_tcpi_win_data_over_segs(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info_window"),
			    "segs_out", json_integer(76351));
}

static void set_tcpi_win_segs_in_missing(json_t *j)
{
	json_object_del(json_object_get(flow0(j), "tcp_info_window"), "data_segs_in");
}

static void set_tcpi_win_dsack_over_u32(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info_window"),
			    "dsack_dups", json_integer(1LL << 32));
}

static void set_tcpi_win_busy_missing(json_t *j)
{
	json_object_del(json_object_get(flow0(j), "tcp_info_window"), "busy_us");
}

static void set_sock_drops_on_sender(json_t *j)
{
	json_object_set_new(flow0(j), "sock_drops", json_integer(1));
}

static void set_sock_drops_over_u32(json_t *j)
{
	json_object_set_new(flow1(j), "sock_drops", json_integer(1LL << 32));
}

static void set_tcpi_rx_on_sender(json_t *j)
{
	json_object_set(flow0(j), "tcp_info_rx", json_object_get(flow1(j), "tcp_info_rx"));
}

static void set_tcpi_rx_not_object(json_t *j)
{
	json_object_set_new(flow1(j), "tcp_info_rx", json_integer(7));
}

static void set_tcpi_rx_wscale_over_14(json_t *j)
{
	json_object_set_new(json_object_get(flow1(j), "tcp_info_rx"), "rcv_wscale",
			    json_integer(15));
}

static void set_tcpi_rx_space_over_u32(json_t *j)
{
	json_object_set_new(json_object_get(flow1(j), "tcp_info_rx"), "rcv_space",
			    json_integer(1LL << 32));
}

static void set_tcpi_rx_advmss_missing(json_t *j)
{
	json_object_del(json_object_get(flow1(j), "tcp_info_rx"), "advmss");
}

static void set_tcpi_snd_wscale_negative(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "snd_wscale",
			    json_integer(-1));
}

static void set_tcpi_snd_wscale_string(json_t *j)
{
	json_object_set_new(json_object_get(flow0(j), "tcp_info"), "snd_wscale",
			    json_string("7"));
}

/* A receiver's state at stop: on a receiving flow only, every field
 * there, each in range (a window scale is at most 14, RFC 7323); the
 * sender's window scale too. */
static void test_end_report_rejects_bad_tcp_info_rx(void **state)
{
	(void)state;
	check_report_rejected(set_tcpi_rx_on_sender, 2,
			      "tcp_info_rx on flow 0, which this end sent on");
	check_report_rejected(set_tcpi_rx_not_object, 2, "tcp_info_rx must be an object");
	check_report_rejected(set_tcpi_rx_wscale_over_14, 2, "'rcv_wscale' = 15 is out of range 0..14");
	check_report_rejected(set_tcpi_rx_space_over_u32, 2, "'rcv_space' = 4294967296");
	check_report_rejected(set_tcpi_rx_advmss_missing, 2, "advmss");
	check_report_rejected(set_tcpi_snd_wscale_negative, 2, "'snd_wscale' = -1 is out of range 0..14");
	check_report_rejected(set_tcpi_snd_wscale_string, 2, "field 'snd_wscale' must be an integer");
}

/* A receiving socket's drops: only a receiver has them, in 32 bits. */
static void test_end_report_rejects_bad_sock_drops(void **state)
{
	(void)state;
	check_report_rejected(set_sock_drops_on_sender, 2,
			      "sock_drops on flow 0, which this end sent on");
	check_report_rejected(set_sock_drops_over_u32, 2, "'sock_drops' = 4294967296");
}

/* The window's TCP_INFO: its shares must fit in the time it was busy, its
 * data segments in all it sent, its segment counts come both or neither,
 * and its fields are checked as tcp_info's are. */
static void test_end_report_rejects_bad_tcp_info_window(void **state)
{
	(void)state;
	check_report_rejected(set_tcpi_win_limited_over_busy, 2,
			      "limited 2000005 + 3000000 us exceeds busy 5000004 us");
	check_report_rejected(set_tcpi_win_not_object, 2, "tcp_info_window must be an object");
	check_report_rejected(set_tcpi_win_data_over_segs, 2,
			      "tcp_info_window of flow 0: 76352 data segments out of 76351 segments");
	check_report_rejected(set_tcpi_win_segs_in_missing, 2, "data_segs_in");
	check_report_rejected(set_tcpi_win_dsack_over_u32, 2, "'dsack_dups' = 4294967296");
	check_report_rejected(set_tcpi_win_busy_missing, 2, "busy_us");
}

/* 32-bit TCP_INFO fields over 2^32-1 are errors, not truncations. */
static void test_end_report_rejects_tcp_info_over_32_bits(void **state)
{
	(void)state;
	check_report_rejected(set_tcpi_rtt_over_u32, 2, "'rtt_us' = 4294967341");
	check_report_rejected(set_tcpi_cwnd_over_u32, 2, "'snd_cwnd' = 4294967296");
	/* the name is shown: at most the kernel's 15 bytes, no control character */
	check_report_rejected(set_tcpi_cc_too_long, 2, "field 'cc' must be a string of at most 15 bytes");
	check_report_rejected(set_tcpi_cc_control, 2, "field 'cc' must be a string");
	check_report_rejected(set_tcpi_cc_not_string, 2, "field 'cc' must be a string");
}

static void test_end_report_rejects_negative_counts(void **state)
{
	(void)state;
	check_report_rejected(set_negative_win_bytes, 2, "'win_bytes' = -1");
	check_report_rejected(set_negative_total_bytes, 2, "'total_bytes' = -4096");
	check_report_rejected(set_negative_window, 2, "'window_ns' = -1");
	check_report_rejected(set_negative_tcpi_bytes, 2, "'bytes_retrans' = -2");
}

static void set_err_negative(json_t *j)
{
	json_object_set_new(flow0(j), "err", json_integer(-1));
}

static void set_err_4096(json_t *j)
{
	json_object_set_new(flow1(j), "err", json_integer(4096));
}

static void test_end_report_rejects_err_outside_errno_range(void **state)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report in, out;
	json_t *j;

	(void)state;
	check_report_rejected(set_err_negative, 2, "'err' = -1");
	check_report_rejected(set_err_4096, 2, "'err' = 4096");

	make_report(&in);
	sample_flows[1].err = 4095;
	j = proto_end_report_to_json(&in);
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_int_equal(out.flows[1].err, 4095);
	proto_end_report_release(&out);
	json_decref(j);
}

static void set_cpu_user_above_100(json_t *j)
{
	json_object_set_new(json_object_get(j, "cpu_all"), "user", json_real(100.5));
}

static void set_cpu_busy_huge(json_t *j)
{
	json_object_set_new(json_object_get(j, "cpu_all"), "busy", json_real(1e308));
}

static void set_cpu_idle_negative(json_t *j)
{
	json_object_set_new(json_object_get(j, "cpu_all"), "idle", json_real(-0.5));
}

static void set_cpu_sys_nan_string(json_t *j)
{
	json_object_set_new(json_object_get(j, "cpu_all"), "sys", json_string("NaN"));
}

static void set_cpu_steal_missing(json_t *j)
{
	json_object_del(json_object_get(j, "cpu_all"), "steal");
}

static void set_cpu_busy_ticks_negative(json_t *j)
{
	json_object_set_new(json_object_get(j, "cpu_all"), "busy_ticks", json_real(-1));
}

static void set_cpu_test_number(json_t *j)
{
	json_object_set_new(j, "cpu_test", json_integer(50));
}

static void test_end_report_rejects_cpu_values_that_are_not_percentages(void **state)
{
	(void)state;
	check_report_rejected(set_cpu_user_above_100, 2, "'user' = 100.5");
	check_report_rejected(set_cpu_busy_huge, 2, "'busy'");
	check_report_rejected(set_cpu_idle_negative, 2, "'idle'");
	check_report_rejected(set_cpu_sys_nan_string, 2, "'sys' must be a number");
	check_report_rejected(set_cpu_steal_missing, 2, "'steal'");
	check_report_rejected(set_cpu_busy_ticks_negative, 2, "'busy_ticks' = -1");
	check_report_rejected(set_cpu_test_number, 2, "object or null");
}

static void test_end_report_accepts_cpu_at_0_and_100(void **state)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report in, out;
	json_t *j;

	(void)state;
	make_report(&in);
	in.cpu_test = (struct proto_cpu){ .valid = true, .user = 100,
					  .idle = 0, .busy = 100 };
	j = proto_end_report_to_json(&in);
	/* an integer is a number too */
	json_object_set_new(json_object_get(j, "cpu_test"), "sys", json_integer(0));
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), 0);
	assert_true(out.cpu_test.valid);
	assert_true(out.cpu_test.user == 100.0 && out.cpu_test.busy == 100.0);
	proto_end_report_release(&out);
	json_decref(j);
}

static void noop(json_t *j)
{
	(void)j;
}

static void set_flows_object(json_t *j)
{
	json_object_set_new(j, "flows", json_object());
}

static void del_flows(json_t *j)
{
	json_object_del(j, "flows");
}

static void set_flow_not_object(json_t *j)
{
	json_array_set_new(json_object_get(j, "flows"), 1, json_integer(1));
}

static void test_end_report_rejects_more_flows_than_max(void **state)
{
	(void)state;
	check_report_rejected(noop, 1, "at most 1 entries");
	check_report_rejected(noop, 0, "at most 0 entries");
}

static void test_end_report_rejects_flows_that_are_not_an_array(void **state)
{
	(void)state;
	check_report_rejected(set_flows_object, 2, "flows must be an array");
	check_report_rejected(del_flows, 2, "flows must be an array");
	/* a bad second flow frees what the first one needed */
	check_report_rejected(set_flow_not_object, 2, "flow must be an object");
}

static void test_end_report_rejects_non_object(void **state)
{
	struct base_err err = { .msg = "" };
	struct proto_end_report out;
	json_t *j = json_pack("[]");

	(void)state;
	assert_int_equal(proto_end_report_from_json(j, 2, &out, &err), -EPROTO);
	assert_int_equal(proto_end_report_from_json(NULL, 2, &out, &err), -EPROTO);
	assert_null(out.flows);
	json_decref(j);
}

/* ---- environment ---- */

static void test_env_check_accepts_small_object(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *env = json_pack("{s:s, s:i, s:f, s:s}", "kernel", "6.8.0-45",
				"cpus", 8, "mhz", 2400.5, "empty", "");

	(void)state;
	assert_int_equal(proto_env_check(env, &err), 0);
	json_decref(env);
	env = json_object();
	assert_int_equal(proto_env_check(env, &err), 0);
	json_decref(env);
}

static void test_env_check_rejects_too_many_keys(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *env = json_object();
	char key[16];

	(void)state;
	for (int i = 0; i < PROTO_ENV_MAX_KEYS; i++) {
		snprintf(key, sizeof(key), "k%d", i);
		json_object_set_new(env, key, json_integer(i));
	}
	assert_int_equal(proto_env_check(env, &err), 0);
	json_object_set_new(env, "one_more", json_integer(1));
	assert_int_equal(proto_env_check(env, &err), -EPROTO);
	expect_msg_has(&err, "at most 64 keys");
	json_decref(env);
}

static void test_env_check_rejects_long_strings_and_keys(void **state)
{
	struct base_err err = { .msg = "" };
	char s[PROTO_STR_MAX + 1];
	json_t *env = json_object();

	(void)state;
	memset(s, 'x', PROTO_STR_MAX - 1);
	s[PROTO_STR_MAX - 1] = '\0';
	json_object_set_new(env, "ok", json_string(s));
	assert_int_equal(proto_env_check(env, &err), 0);
	s[PROTO_STR_MAX - 1] = 'x';
	s[PROTO_STR_MAX] = '\0';
	json_object_set_new(env, "long", json_string(s));
	assert_int_equal(proto_env_check(env, &err), -EPROTO);
	expect_msg_has(&err, "'long'");
	json_decref(env);

	env = json_object();
	memset(s, 'k', 64);
	s[64] = '\0';
	json_object_set_new(env, s, json_integer(1));
	assert_int_equal(proto_env_check(env, &err), -EPROTO);
	json_decref(env);
}

static void test_env_check_rejects_nested_and_other_values(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *nested = json_pack("{s:s, s:{s:s}}", "a", "b", "inner", "c", "d");
	json_t *arr = json_pack("{s:[i]}", "list", 1);
	json_t *boolean = json_pack("{s:b}", "flag", 1);
	json_t *null = json_pack("{s:n}", "nothing");
	json_t *not_obj = json_pack("[s]", "kernel");

	(void)state;
	assert_int_equal(proto_env_check(nested, &err), -EPROTO);
	expect_msg_has(&err, "'inner'");
	assert_int_equal(proto_env_check(arr, &err), -EPROTO);
	assert_int_equal(proto_env_check(boolean, &err), -EPROTO);
	assert_int_equal(proto_env_check(null, &err), -EPROTO);
	assert_int_equal(proto_env_check(not_obj, &err), -EPROTO);
	assert_int_equal(proto_env_check(NULL, &err), -EPROTO);
	json_decref(nested);
	json_decref(arr);
	json_decref(boolean);
	json_decref(null);
	json_decref(not_obj);
}

/* No byte below 0x20 (or 0x7f) in err->msg: one line, no escape sequence. */
static void expect_no_control_chars(const struct base_err *err)
{
	for (const char *p = err->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			fail_msg("error text '%s' holds byte 0x%02x", err->msg,
				 (unsigned char)*p);
}

/*
 * What a peer sent comes back in an error escaped: a newline in a message
 * type or a key cannot forge a line of the server's log, an escape
 * sequence cannot drive the terminal (found by tests/fuzz: fuzz_proto).
 */
static void test_errors_quote_what_a_peer_sent_escaped(void **state)
{
	struct base_err err = { .msg = "" };
	json_t *m, *back = NULL;
	uint8_t *buf;
	size_t len, used;
	int64_t v;

	(void)state;
	/* the JSON parser's message quotes the bad byte */
	buf = make_frame("{\"type\": \"x\", \"a\": \x0e}", &len);
	assert_int_equal(proto_frame_decode(buf, len, &back, &used, &err), -EPROTO);
	free(buf);
	expect_msg_has(&err, "not valid json");
	expect_msg_has(&err, "\\x0e");
	expect_no_control_chars(&err);

	m = json_pack("{s:s}", "type", "hello\n2026-11-30 server: forged\x1b[2J");
	assert_non_null(m);
	assert_int_equal(proto_get_i64(m, "version", 0, 255, &v, &err), -EPROTO);
	expect_msg_has(&err, "'hello\\x0a2026-11-30 server: forged\\x1b[2J' message");
	expect_no_control_chars(&err);
	json_decref(m);

	m = json_pack("{s:[]}", "bad\nkey");
	assert_non_null(m);
	assert_int_equal(proto_env_check(m, &err), -EPROTO);
	expect_msg_has(&err, "'bad\\x0akey'");
	expect_no_control_chars(&err);
	json_decref(m);
}

/*
 * What a peer sends ends up in stored samples that show, compare and report
 * print as they are: a control character in an environment key or value, a
 * note or a string field is refused, not only escaped in the message.
 */
static void test_peer_text_with_control_characters_is_refused(void **state)
{
	static const char *const bad[] = { "6.1\nFORGED", "\x1b[2J", "a\tb", "x\x7f" };
	struct base_err err = { .msg = "" };
	const char *out;
	json_t *m;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		m = json_pack("{s:s}", "kernel", bad[i]);
		assert_int_equal(proto_env_check(m, &err), -EPROTO);
		expect_msg_has(&err, "'kernel'");
		json_decref(m);
		m = json_pack("{s:s}", bad[i], "6.1");
		assert_int_equal(proto_env_check(m, &err), -EPROTO);
		expect_no_control_chars(&err);
		json_decref(m);
		m = json_pack("{s:s, s:s}", "type", "refused", "reason", bad[i]);
		assert_int_equal(proto_get_str(m, "reason", 256, &out, &err), -EPROTO);
		expect_msg_has(&err, "no control character");
		json_decref(m);
	}
	/* the same text without them passes */
	m = json_pack("{s:s}", "kernel", "6.1 FORGED");
	assert_int_equal(proto_env_check(m, &err), 0);
	json_decref(m);
	m = json_pack("{s:s, s:s}", "type", "refused", "reason", "a b");
	assert_int_equal(proto_get_str(m, "reason", 256, &out, &err), 0);
	assert_string_equal(out, "a b");
	json_decref(m);
	/* a string with a NUL inside is refused as well */
	m = json_pack("{s:s, s:s#}", "type", "refused", "reason", "a\0b", (size_t)3);
	assert_int_equal(proto_get_str(m, "reason", 256, &out, &err), -EPROTO);
	json_decref(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_encode_decode_round_trip),
		cmocka_unit_test(test_frame_encode_writes_big_endian_header),
		cmocka_unit_test(test_frame_decode_reports_used_bytes_of_first_frame),
		cmocka_unit_test(test_frame_decode_truncated_header_is_eagain),
		cmocka_unit_test(test_frame_decode_truncated_payload_is_eagain),
		cmocka_unit_test(test_frame_decode_rejects_bad_magic),
		cmocka_unit_test(test_frame_header_rejects_other_version_naming_both),
		cmocka_unit_test(test_frame_header_rejects_nonzero_flags),
		cmocka_unit_test(test_frame_header_rejects_zero_length),
		cmocka_unit_test(test_frame_header_accepts_length_at_cap),
		cmocka_unit_test(test_frame_header_rejects_length_over_cap),
		cmocka_unit_test(test_frame_decode_rejects_oversized_length_from_header_alone),
		cmocka_unit_test(test_frame_decode_rejects_invalid_json),
		cmocka_unit_test(test_frame_decode_rejects_json_that_is_not_an_object),
		cmocka_unit_test(test_frame_decode_rejects_object_without_string_type),
		cmocka_unit_test(test_frame_decode_rejects_duplicate_keys),
		cmocka_unit_test(test_frame_encode_rejects_non_object),
		cmocka_unit_test(test_frame_encode_rejects_message_over_cap),
		cmocka_unit_test(test_proto_type_is_empty_without_type),
		cmocka_unit_test(test_send_recv_round_trip_over_socketpair),
		cmocka_unit_test(test_send_recv_round_trip_of_message_larger_than_socket_buffer),
		cmocka_unit_test(test_recv_returns_econnreset_when_peer_closes_before_a_frame),
		cmocka_unit_test(test_recv_returns_eproto_when_peer_closes_inside_header),
		cmocka_unit_test(test_recv_returns_eproto_when_peer_closes_inside_payload),
		cmocka_unit_test(test_recv_times_out_at_deadline_when_nothing_arrives),
		cmocka_unit_test(test_recv_times_out_when_payload_never_completes),
		cmocka_unit_test(test_recv_rejects_4gib_header_immediately),
		cmocka_unit_test(test_recv_rejects_frame_with_invalid_json),
		cmocka_unit_test(test_send_times_out_when_peer_does_not_read),
		cmocka_unit_test(test_send_to_closed_peer_returns_epipe),
		cmocka_unit_test(test_get_i64_range_error_names_message_field_and_value),
		cmocka_unit_test(test_get_i64_accepts_range_bounds),
		cmocka_unit_test(test_get_i64_rejects_missing_and_non_integer_field),
		cmocka_unit_test(test_get_str_enforces_type_and_length),
		cmocka_unit_test(test_get_bool_rejects_integers),
		cmocka_unit_test(test_msg_sets_type_over_extra_fields),
		cmocka_unit_test(test_end_report_json_round_trip_with_two_flows),
		cmocka_unit_test(test_end_report_round_trip_with_no_flows),
		cmocka_unit_test(test_end_report_rejects_bad_accounting),
		cmocka_unit_test(test_end_report_rejects_wrong_types),
		cmocka_unit_test(test_end_report_rejects_negative_counts),
		cmocka_unit_test(test_end_report_rejects_tcp_info_over_32_bits),
		cmocka_unit_test(test_end_report_rejects_bad_tcp_info_window),
		cmocka_unit_test(test_end_report_rejects_bad_sock_drops),
		cmocka_unit_test(test_end_report_rejects_bad_tcp_info_rx),
		cmocka_unit_test(test_end_report_rejects_err_outside_errno_range),
		cmocka_unit_test(test_end_report_rejects_cpu_values_that_are_not_percentages),
		cmocka_unit_test(test_end_report_accepts_cpu_at_0_and_100),
		cmocka_unit_test(test_end_report_rejects_more_flows_than_max),
		cmocka_unit_test(test_end_report_rejects_flows_that_are_not_an_array),
		cmocka_unit_test(test_end_report_rejects_non_object),
		cmocka_unit_test(test_env_check_accepts_small_object),
		cmocka_unit_test(test_env_check_rejects_too_many_keys),
		cmocka_unit_test(test_env_check_rejects_long_strings_and_keys),
		cmocka_unit_test(test_env_check_rejects_nested_and_other_values),
		cmocka_unit_test(test_errors_quote_what_a_peer_sent_escaped),
		cmocka_unit_test(test_peer_text_with_control_characters_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
