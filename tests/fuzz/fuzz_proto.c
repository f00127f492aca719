// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: what a peer sends on the control channel, frames and the messages the two ends parse. */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "base/parse.h"
#include "engine/meter.h"
#include "fuzz.h"
#include "job/config.h"
#include "proto/frame.h"
#include "proto/msg.h"

/*
 * The input is what arrived on a control connection. When it starts with
 * the frame magic 'N' it is taken as it is, one frame after another;
 * otherwise it is one frame's payload and gets a valid header, so that
 * generated JSON reaches the message parsers. Each message then goes
 * through what the server does with a client's (the setup's
 * configuration: job_config_from_json() and _finalize(), the hello's
 * version) and what the client does with a server's (the end report, the
 * environment, the system snapshot in its ready). Promised: a frame decodes or fails with a message, never
 * past its bytes; a decoded message encodes to a frame that decodes to
 * the same JSON; a configuration or report accepted once is accepted
 * again from its own JSON and comes out the same.
 */

/* The server's limit on flows a client may ask for is --max-streams; a
 * report's flows are checked against the configuration's. */
#define FUZZ_MAX_FLOWS 64

static void check_config(const json_t *m)
{
	static struct job_config c, again;
	struct base_cpulist allowed = { .n = 2, .cpu = { 0, 1 } };
	struct base_err err = { { 0 } };
	char key[1024], key2[1024];
	json_t *j;
	int ret;

	ret = job_config_from_json(json_object_get(m, "config"), &c, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret)
		return;
	ret = job_config_finalize(&c, &allowed, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret)
		return;
	FUZZ_CHECK(job_config_nflows(&c) >= 1);
	FUZZ_CHECK(job_config_key(&c, key, sizeof(key)) == 0);
	j = job_config_to_json(&c);
	FUZZ_CHECK(j);
	err.msg[0] = '\0';
	ret = job_config_from_json(j, &again, &err);
	json_decref(j);
	FUZZ_CHECK(ret == 0);
	FUZZ_CHECK(job_config_finalize(&again, &allowed, &err) == 0);
	FUZZ_CHECK(job_config_key(&again, key2, sizeof(key2)) == 0);
	FUZZ_CHECK(!strcmp(key, key2));
}

static void check_report(const json_t *m)
{
	struct proto_end_report r, r2;
	struct base_err err = { { 0 } };
	json_t *j, *j2;
	int ret;

	ret = proto_end_report_from_json(json_object_get(m, "report"),
					 FUZZ_MAX_FLOWS, &r, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret)
		return;
	FUZZ_CHECK(r.nflows <= FUZZ_MAX_FLOWS);
	j = proto_end_report_to_json(&r);
	FUZZ_CHECK(j);
	FUZZ_CHECK(proto_end_report_from_json(j, FUZZ_MAX_FLOWS, &r2, &err) == 0);
	j2 = proto_end_report_to_json(&r2);
	FUZZ_CHECK(j2 && json_equal(j, j2));
	json_decref(j);
	json_decref(j2);
	proto_end_report_release(&r);
	proto_end_report_release(&r2);
}

static void check_msg(const json_t *m)
{
	struct base_err err = { { 0 } };
	uint8_t *frame = NULL;
	size_t len = 0, used = 0;
	json_t *back = NULL;
	int64_t v;
	int ret;

	FUZZ_CHECK(json_is_object(m));
	ret = proto_get_i64(m, "version", 0, 255, &v, &err);
	FUZZ_CHECK_ERR(ret, err);
	err.msg[0] = '\0';
	ret = proto_env_check(json_object_get(m, "env"), &err);
	FUZZ_CHECK_ERR(ret, err);
	if (json_object_get(m, "sysenv")) {
		err.msg[0] = '\0';
		ret = engine_sysenv_check(json_object_get(m, "sysenv"), &err);
		FUZZ_CHECK_ERR(ret, err);
	}
	check_config(m);
	check_report(m);

	err.msg[0] = '\0';
	ret = proto_frame_encode(m, &frame, &len, &err);
	FUZZ_CHECK_ERR(ret, err);
	if (ret)
		return;
	FUZZ_CHECK(proto_frame_decode(frame, len, &back, &used, &err) == 0);
	FUZZ_CHECK(used == len && json_equal(m, back));
	json_decref(back);
	free(frame);
}

static void decode_all(const uint8_t *data, size_t size)
{
	size_t off = 0;

	while (off < size) {
		struct base_err err = { { 0 } };
		json_t *m = NULL;
		size_t used = 0;
		int ret = proto_frame_decode(data + off, size - off, &m, &used, &err);

		if (ret == -EAGAIN)
			return;
		FUZZ_CHECK_ERR(ret, err);
		if (ret)
			return;
		FUZZ_CHECK(used >= PROTO_HDR_BYTES && used <= size - off);
		check_msg(m);
		json_decref(m);
		off += used;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf;

	if (size && data[0] == 'N') {
		decode_all(data, size);
		return 0;
	}
	if (size > PROTO_FRAME_MAX)
		return 0;
	buf = malloc(PROTO_HDR_BYTES + size);
	if (!buf)
		return 0;
	buf[0] = 'N';
	buf[1] = 'R';
	buf[2] = PROTO_VERSION;
	buf[3] = 0;
	buf[4] = (uint8_t)(size >> 24);
	buf[5] = (uint8_t)(size >> 16);
	buf[6] = (uint8_t)(size >> 8);
	buf[7] = (uint8_t)size;
	memcpy(buf + PROTO_HDR_BYTES, data, size);
	decode_all(buf, PROTO_HDR_BYTES + size);
	free(buf);
	return 0;
}
