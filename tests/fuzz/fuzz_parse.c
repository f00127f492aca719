// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the strict parsers of flags and job-file values, and the formatters they must read back. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "base/parse.h"
#include "fuzz.h"
#include "job/config.h"
#include "topo/internal.h"
#include "topo/topo.h"

/*
 * The input up to its first NUL is one value, as a user would type it
 * after a flag or in a job file. Every parser sees it. What they promise
 * (base/parse.h, job/config.h, topo/): a failure names what was wrong in
 * one line; a value parsed is within its range; a size, a duration, a CPU
 * list and a namespace name formatted again read back as the same value.
 */

/* Longer values only repeat what the shorter ones exercise. */
#define FUZZ_PARSE_MAX 4096

static void check_size(const char *s)
{
	struct base_err err = { { 0 } };
	char buf[BASE_SIZE_STRLEN];
	uint64_t v, back;
	int ret = base_parse_size(s, &v, &err);

	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	if (ret)
		return;
	base_format_size(v, buf, sizeof(buf));
	FUZZ_CHECK(base_parse_size(buf, &back, NULL) == 0 && back == v);
}

static void check_duration(const char *s)
{
	struct base_err err = { { 0 } };
	char buf[BASE_DURATION_STRLEN];
	int64_t v, back;
	int ret = base_parse_duration_ns(s, &v, &err);

	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL || ret == -ERANGE);
	if (ret)
		return;
	FUZZ_CHECK(v >= 0 && v <= BASE_DURATION_MAX_NS);
	base_format_duration(v, buf, sizeof(buf));
	FUZZ_CHECK(base_parse_duration_ns(buf, &back, NULL) == 0 && back == v);
}

static void check_cpulist(const char *s)
{
	static struct base_cpulist l, back;
	static char buf[BASE_CPULIST_STRLEN];
	struct base_err err = { { 0 } };
	bool seen[BASE_CPU_MAX] = { false };
	int ret = base_parse_cpulist(s, &l, &err);

	FUZZ_CHECK_ERR(ret, err);
	if (ret)
		return;
	FUZZ_CHECK(l.n >= 1 && l.n <= BASE_CPU_MAX);
	for (unsigned i = 0; i < l.n; i++) {
		FUZZ_CHECK(l.cpu[i] < BASE_CPU_MAX && !seen[l.cpu[i]]);
		seen[l.cpu[i]] = true;
	}
	FUZZ_CHECK(base_format_cpulist(&l, buf, sizeof(buf)) == 0);
	FUZZ_CHECK(base_parse_cpulist(buf, &back, NULL) == 0 && back.n == l.n &&
		   !memcmp(back.cpu, l.cpu, l.n * sizeof(l.cpu[0])));
}

static void check_numbers(const char *s)
{
	struct base_err err = { { 0 } };
	uint64_t u;
	double d;
	bool b;
	int ret;

	ret = base_parse_u64(s, 1, 1024, &u, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || (u >= 1 && u <= 1024));
	err.msg[0] = '\0';
	ret = base_parse_u64(s, 0, UINT64_MAX, &u, &err);
	FUZZ_CHECK_ERR(ret, err);
	err.msg[0] = '\0';
	ret = base_parse_double(s, -1e6, 1e6, &d, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || (isfinite(d) && d >= -1e6 && d <= 1e6));
	err.msg[0] = '\0';
	ret = base_parse_double(s, 0, 100, &d, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || (d >= 0 && d <= 100 && !signbit(d)));
	err.msg[0] = '\0';
	ret = base_parse_bool(s, &b, &err);
	FUZZ_CHECK_ERR(ret, err);
}

static void check_job_words(const char *s)
{
	struct base_err err = { { 0 } };
	enum job_placement p;
	enum job_test t;
	enum job_dir dir;
	int64_t ns;
	bool autow;
	int ret;

	ret = job_parse_warmup(s, &ns, &autow, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || (ns >= 0 && ns <= JOB_WARMUP_MAX));
	err.msg[0] = '\0';
	ret = job_test_parse(s, &t, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || !strcmp(job_test_name(t), s));
	err.msg[0] = '\0';
	ret = job_dir_parse(s, &dir, &err);
	FUZZ_CHECK_ERR(ret, err);
	FUZZ_CHECK(ret || !strcmp(job_dir_name(dir), s));
	if (job_placement_parse(s, &p) == 0)
		FUZZ_CHECK(!strcmp(job_placement_name(p), s));
}

static void check_topo(const char *s)
{
	struct base_err err = { { 0 } };
	char buf[64];
	enum topo_side side;
	unsigned int n;
	uint64_t bps;
	pid_t pid;
	int ret;

	ret = topo_parse_rate_bps(s, &bps, &err);
	FUZZ_CHECK_ERR(ret, err);
	/* A name it calls ours must be exactly the one it would make: any
	 * other namespace is never touched. */
	if (topo_name_parse(s, &pid, &n, &side) == 0) {
		FUZZ_CHECK(pid > 0);
		FUZZ_CHECK(topo_name_format(buf, sizeof(buf), pid, n, side) == 0);
		FUZZ_CHECK(!strcmp(buf, s));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char s[FUZZ_PARSE_MAX + 1];
	size_t n = 0;

	while (n < size && n < FUZZ_PARSE_MAX && data[n])
		n++;
	memcpy(s, data, n);
	s[n] = '\0';
	check_size(s);
	check_duration(s);
	check_cpulist(s);
	check_numbers(s);
	check_job_words(s);
	check_topo(s);
	return 0;
}
