// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests for the report's HTML, SVG and Markdown: scales and ticks, escaping, the axes of a matrix, and the Markdown of hand-built tables. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/internal.h"
#include "report/report.h"
#include "report/page.h"

/* What the escaping writes for s, as a string (free() it). */
static char *capture_html(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_html_escape(f, s);
	fclose(f);
	return buf;
}

static char *capture_md(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_md_escape(f, s);
	fclose(f);
	return buf;
}

/* What report_sample_table() prints for s (free() it). Not inlined: gcc 12
 * then takes the text for the helper's own buf, gone (-Wdangling-pointer). */
__attribute__((noinline)) static char *capture_sample_table(const struct base_sample *smp)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_sample_table(f, smp);
	fclose(f);
	return buf;
}

/* What report_mix_text() writes for nt with labels a and b, escaped for
 * Markdown (free() it). */
__attribute__((noinline)) static char *capture_mix(const struct stats_xcpu_mix *m, const char *a,
						   const char *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_mix_text(f, m, a, b, report_md_escape);
	fclose(f);
	return buf;
}

/* The note of two distances: ranges, shares, and each label's median at
 * each distance with the change where both had samples there. */
static void test_mix_text_gives_each_distance_its_medians(void **state)
{
	struct stats_xcpu_mix m = {
		.split = true,
		.lo_ns = { 85, 447 },
		.hi_ns = { 140, 480 },
		.n = { 6, 6 },
		.far = { 0, 4 },
		.median = { { 35210, 34870 }, { NAN, 28100 } },
	};
	char *t;

	(void)state;
	t = capture_mix(&m, "v6.7", "v6_8");
	assert_non_null(strstr(t, "round trip (host.xcpu_ns) of 85-140 ns and of 447-480 ns"));
	assert_non_null(strstr(t, "0 of 6 samples of v6.7, 4 of 6 of v6\\_8."));
	assert_non_null(strstr(t, "near v6.7 35210 (6) and v6\\_8 34870 (2), -1.0%"));
	assert_non_null(strstr(t, "far v6.7 - (0) and v6\\_8 28100 (4)"));
	/* no change where a label had no sample */
	assert_null(strstr(t, "(4), "));
	free(t);
}

/* What report_spread_split() writes for y, x and the windows w (NULL:
 * none kept) (free() it); its return in *ret. */
static char *capture_split_windows(const double *y, const double *x,
				   const struct stats_window *w, size_t n, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = report_spread_split(f, "cfg: ", y, x, w, n);
	fclose(f);
	return buf;
}

__attribute__((noinline)) static char *capture_split(const double *y, const double *x, size_t n,
						     int *ret)
{
	return capture_split_windows(y, x, NULL, n, ret);
}

/* One label's samples at two distances: each one's samples, median and
 * cov; nothing at one distance, or with a sample without its round trip. */
static void test_spread_split_gives_the_cov_at_each_distance(void **state)
{
	static const double y[] = { 30, 17, 31, 16, 29, 17.5 };
	static const double x[] = { 120, 450, 118, 460, 122, 455 };
	static const double one[] = { 120, 150, 118, 160, 122, 155 };
	double some[6];
	char *t;
	int ret;

	(void)state;
	t = capture_split(y, x, 6, &ret);
	assert_int_equal(ret, 1);
	assert_string_equal(t, "cfg: the CPUs at two distances between the samples (host.xcpu_ns): near 118-122 ns in 3, median 30, cov 3.33%; far 450-460 ns in 3, median 17, cov 4.54% (the cov at one placement)\n");
	free(t);
	t = capture_split(y, one, 6, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(t, "");
	free(t);
	memcpy(some, x, sizeof(some));
	some[3] = NAN;
	t = capture_split(y, some, 6, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(t, "");
	free(t);
	t = capture_split(y, NULL, 6, &ret);
	assert_int_equal(ret, 0);
	free(t);
}

/*
 * Windows the host moved the CPUs within (their round trips stepped from
 * 85 to 340 ns for half the window) hold two placements: the split
 * gives the cov over the others beside the cov of all; at one distance
 * between the samples, a line with both.
 */
static void test_spread_split_leaves_moved_windows_out(void **state)
{
	static const double y[] = { 30.0, 27.0, 30.1, 29.9, 27.5, 30.05 };
	static const double x1[] = { 85, 86, 84, 85, 87, 85 };
	static const double x2[] = { 85, 86, 84, 340, 350, 345 };
	enum { T = 40 };
	double rate[T], flat[T], step[T], some[6];
	struct stats_window w[6];
	char *t;
	int ret;

	(void)state;
	for (size_t i = 0; i < T; i++) {
		rate[i] = 30 + 0.01 * (double)(i % 3);
		flat[i] = 85 + (double)(i % 4);
		step[i] = i < T / 2 ? 85 + (double)(i % 4) : 340 + (double)(i % 4);
	}
	for (size_t i = 0; i < 6; i++)
		w[i] = (struct stats_window){ rate, i == 1 || i == 4 ? step : flat, T };
	t = capture_split_windows(y, x1, w, 6, &ret);
	assert_int_equal(ret, 1);
	assert_string_equal(t, "cfg: the 4 samples whose window the host did not move the CPUs within (window.xcpu_moved): cov 0.28% (all 6: cov 4.94%; the cov at one placement)\n");
	free(t);
	/* a sample without its round trip: no distance to speak of */
	memcpy(some, x1, sizeof(some));
	some[2] = NAN;
	t = capture_split_windows(y, some, w, 6, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(t, "");
	free(t);
	/* without the windows, or none moved: nothing at one distance */
	t = capture_split_windows(y, x1, NULL, 6, &ret);
	assert_int_equal(ret, 0);
	assert_string_equal(t, "");
	free(t);
	w[1].x = w[4].x = flat;
	t = capture_split_windows(y, x1, w, 6, &ret);
	assert_int_equal(ret, 0);
	free(t);
	/* two distances: sample 1 near and 4 far moved within */
	w[1].x = w[4].x = step;
	t = capture_split_windows(y, x2, w, 6, &ret);
	assert_int_equal(ret, 1);
	assert_non_null(strstr(t, "cfg: the CPUs at two distances between the samples (host.xcpu_ns): near 84-86 ns in 3, median 30, cov "));
	assert_non_null(strstr(t, "%, 0.24% over the 2 whose window the host did not move; far 340-350 ns in 3, median 29.9, cov "));
	assert_non_null(strstr(t, "%, 0.35% over the 2 whose window the host did not move (the cov at one placement)\n"));
	free(t);
}

/* The sample's text holds want. */
static void expect_sample_table_has(const struct base_sample *smp, const char *want)
{
	char *text = capture_sample_table(smp);

	if (!strstr(text, want))
		fail_msg("no \"%s\" in:\n%s", want, text);
	free(text);
}

/* The HTML page of d (free() it); its chart count in *ncharts. */
static char *capture_report_html(const struct report_doc *d, size_t *ncharts)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_html(f, d, ncharts), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* count() within the first len bytes of hay */
static size_t count_n(const char *hay, size_t len, const char *needle)
{
	size_t n = 0, k = strlen(needle);

	for (size_t i = 0; i + k <= len; i++)
		n += !memcmp(hay + i, needle, k);
	return n;
}

static void assert_ticks(const struct report_ticks *t, const double *want,
			 size_t n)
{
	assert_int_equal(t->n, n);
	for (size_t i = 0; i < n; i++)
		assert_true(fabs(t->v[i] - want[i]) <= 1e-9 * fmax(1, fabs(want[i])));
}

static void test_ticks_linear_uses_1_2_5_steps_from_zero(void **state)
{
	static const double gbps[] = { 0, 2, 4, 6, 8, 10 };
	static const double tps[] = { 0, 20000, 40000, 60000, 80000 };
	static const double tenths[] = { 0, 0.1, 0.2, 0.3, 0.4 };
	struct report_ticks t;

	(void)state;
	assert_int_equal(report_ticks_linear(0, 8.4, 5, &t), 0);
	assert_false(t.log);
	assert_ticks(&t, gbps, 6);
	assert_true(t.lo == 0 && t.hi == 10);
	assert_int_equal(report_ticks_linear(0, 62000, 5, &t), 0);
	assert_ticks(&t, tps, 5);
	/* 0.1 * 3 is not 0.3 in binary: ticks are multiples, not sums */
	assert_int_equal(report_ticks_linear(0, 0.4, 5, &t), 0);
	assert_ticks(&t, tenths, 5);
}

static void test_ticks_linear_widens_a_single_value(void **state)
{
	static const double zero[] = { 0, 0.2, 0.4, 0.6, 0.8, 1 };
	static const double five[] = { 4.4, 4.6, 4.8, 5, 5.2, 5.4, 5.6 };
	struct report_ticks t;

	(void)state;
	assert_int_equal(report_ticks_linear(0, 0, 5, &t), 0);
	assert_ticks(&t, zero, 6);
	assert_int_equal(report_ticks_linear(5, 5, 5, &t), 0);
	assert_ticks(&t, five, 7);
	assert_true(t.lo <= 5 && t.hi >= 5);
}

static void test_ticks_linear_rejects_bad_ranges(void **state)
{
	struct report_ticks t;

	(void)state;
	assert_int_equal(report_ticks_linear(NAN, 1, 5, &t), -EINVAL);
	assert_int_equal(report_ticks_linear(0, INFINITY, 5, &t), -EINVAL);
	assert_int_equal(report_ticks_linear(2, 1, 5, &t), -EINVAL);
	assert_int_equal(report_ticks_linear(0, 1, 1, &t), -EINVAL);
	assert_int_equal(report_ticks_linear(0, 1, 21, &t), -EINVAL);
}

static void test_ticks_log_decades_with_1_2_5_when_narrow(void **state)
{
	static const double narrow[] = { 10, 20, 50, 100, 200, 500, 1000 };
	static const double wide[] = { 1, 10, 100, 1000, 10000, 100000 };
	static const double one[] = { 100, 200, 500, 1000 };
	struct report_ticks t;

	(void)state;
	assert_int_equal(report_ticks_log(20, 150, &t), 0);
	assert_true(t.log);
	assert_ticks(&t, narrow, 7);
	assert_true(t.lo == 10 && t.hi == 1000);
	assert_int_equal(report_ticks_log(3, 40000, &t), 0);
	assert_ticks(&t, wide, 6);
	/* exact powers of ten stay the bounds */
	assert_int_equal(report_ticks_log(100, 100, &t), 0);
	assert_ticks(&t, one, 4);
	assert_int_equal(report_ticks_log(10, 1000, &t), 0);
	assert_true(t.lo == 10 && t.hi == 1000);
	assert_int_equal(report_ticks_log(0, 10, &t), -EINVAL);
	assert_int_equal(report_ticks_log(-1, 10, &t), -EINVAL);
	assert_int_equal(report_ticks_log(10, 1, &t), -EINVAL);
}

static void test_ticks_map_linear_and_log(void **state)
{
	struct report_ticks t;

	(void)state;
	assert_int_equal(report_ticks_linear(0, 10, 5, &t), 0);
	/* y grows upwards: lo maps to the bottom pixel */
	assert_true(fabs(report_ticks_map(&t, 0, 300, 20) - 300) < 1e-9);
	assert_true(fabs(report_ticks_map(&t, 5, 300, 20) - 160) < 1e-9);
	assert_true(fabs(report_ticks_map(&t, 10, 300, 20) - 20) < 1e-9);
	assert_int_equal(report_ticks_log(10, 1000, &t), 0);
	assert_true(fabs(report_ticks_map(&t, 100, 0, 200) - 100) < 1e-9);
	assert_true(fabs(report_ticks_map(&t, 1000, 0, 200) - 200) < 1e-9);
	/* nothing <= 0 on a log scale: the bottom */
	assert_true(report_ticks_map(&t, 0, 0, 200) == 0);
	assert_true(report_ticks_map(&t, -5, 0, 200) == 0);
}

static void test_fmt_si_tick_labels(void **state)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{ 0, "0" }, { 1e-13, "0" }, { 0.1 + 0.2, "0.3" }, { 2.5, "2.5" },
		{ 20, "20" }, { 500, "500" }, { 1000, "1k" }, { 1500, "1.5k" },
		{ 20000, "20k" }, { 2e6, "2M" }, { 5e9, "5G" }, { -2000, "-2k" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		report_fmt_si(buf, sizeof(buf), cases[i].v);
		assert_string_equal(buf, cases[i].want);
	}
	report_fmt_si(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "-");
}

static void test_fmt_num_and_param(void **state)
{
	char buf[64];

	(void)state;
	report_fmt_num(buf, sizeof(buf), 3.2);
	assert_string_equal(buf, "3.2");
	report_fmt_num(buf, sizeof(buf), 40672.4);
	assert_string_equal(buf, "40672");
	report_fmt_num(buf, sizeof(buf), 2.5e7);
	assert_string_equal(buf, "2.500e+07");
	report_fmt_num(buf, sizeof(buf), NAN);
	assert_string_equal(buf, "-");
	report_fmt_pct(buf, sizeof(buf), -15.04);
	assert_string_equal(buf, "-15.0%");
	report_fmt_sd(buf, sizeof(buf), 0.44);
	assert_string_equal(buf, "±0.4%");
	report_fmt_param(buf, sizeof(buf), "msg", "65536");
	assert_string_equal(buf, "64K");
	report_fmt_param(buf, sizeof(buf), "remote_rcvbuf", "1048576");
	assert_string_equal(buf, "1M");
	report_fmt_param(buf, sizeof(buf), "msg", "1000");
	assert_string_equal(buf, "1000");
	report_fmt_param(buf, sizeof(buf), "rcvbuf", "auto");
	assert_string_equal(buf, "auto");
	/* not a size: as it is */
	report_fmt_param(buf, sizeof(buf), "streams", "1024");
	assert_string_equal(buf, "1024");
	report_fmt_param(buf, sizeof(buf), "cpus", "0-3,8");
	assert_string_equal(buf, "0-3,8");
}

static void test_html_escape_markup_quotes_and_controls(void **state)
{
	char *s;

	(void)state;
	s = capture_html("<b>&\"x\"'y</b>");
	assert_string_equal(s, "&lt;b&gt;&amp;&quot;x&quot;&#39;y&lt;/b&gt;");
	free(s);
	s = capture_html("a\x01" "b\x7f" "c\td\n");
	assert_string_equal(s, "a&#xFFFD;b&#xFFFD;c\td\n");
	free(s);
	/* UTF-8 passes through untouched */
	s = capture_html("µs ±1%");
	assert_string_equal(s, "µs ±1%");
	free(s);
	s = capture_html("</script><script>alert(1)</script>");
	assert_null(strchr(s, '<'));
	free(s);
}

static void test_md_escape_table_cells(void **state)
{
	char *s;

	(void)state;
	s = capture_md("rc2 <b>&\"x\"|y");
	assert_string_equal(s, "rc2 \\<b\\>&\"x\"\\|y");
	free(s);
	s = capture_md("cpu.client.user_s *x* `y` [z] #1 a\\b\nc");
	assert_string_equal(s, "cpu.client.user\\_s \\*x\\* \\`y\\` \\[z\\] \\#1 a\\\\b c");
	free(s);
}

/* A sample of label with "k=v" parameters (sorted) and a headline value. */
static void make_sample(struct base_sample *s, const char *label,
			const char *const *kv, size_t nkv, const char *metric,
			const char *unit, double value)
{
	size_t off = 0;

	base_sample_init(s);
	snprintf(s->label, sizeof(s->label), "%s", label);
	for (size_t i = 0; i < nkv; i++) {
		const char *eq = strchr(kv[i], '=');
		char key[64];

		assert_non_null(eq);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
		assert_int_equal(base_sample_param(s, key, "%s", eq + 1), 0);
		off += (size_t)snprintf(s->config_key + off, sizeof(s->config_key) - off,
					"%s%s", i ? " " : "", kv[i]);
	}
	assert_int_equal(base_sample_env(s, "client.kernel", "%s", label), 0);
	assert_int_equal(base_sample_set(s, metric, unit, value), 0);
}

/* Add n samples of label l in one configuration, values v0, v0+step... */
static void add_cell(struct report_doc *d, size_t l, const char *const *kv,
		     size_t nkv, double v0, double step, size_t n)
{
	struct base_sample s[8];
	const struct base_sample *p[8];
	const char *test = "";

	assert_true(n <= 8);
	for (size_t i = 0; i < nkv; i++)
		if (!strncmp(kv[i], "test=", 5))
			test = kv[i] + 5;
	for (size_t i = 0; i < n; i++) {
		make_sample(&s[i], d->labels[l].name, kv, nkv,
			    stats_headline_metric(test), "Gbps", v0 + step * (double)i);
		p[i] = &s[i];
	}
	assert_int_equal(report_doc_add_samples(d, l, p, n), 0);
	for (size_t i = 0; i < n; i++)
		base_sample_release(&s[i]);
}

static void test_doc_rejects_duplicates_and_mixed_keys(void **state)
{
	static const char *const a[] = { "msg=1024", "test=tcp_stream" };
	static const char *const b[] = { "msg=2048", "test=tcp_stream" };
	struct base_sample s[2];
	const struct base_sample *p[2] = { &s[0], &s[1] };
	struct report_doc d;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "A"), 0);
	assert_int_equal(report_doc_add_label(&d, "A"), -EINVAL);
	assert_int_equal(report_doc_add_label(&d, ""), -EINVAL);
	assert_int_equal(report_doc_set_baseline(&d, "nosuch"), -EINVAL);
	make_sample(&s[0], "A", a, 2, "throughput.gbps", "Gbps", 1);
	make_sample(&s[1], "A", b, 2, "throughput.gbps", "Gbps", 2);
	assert_int_equal(report_doc_add_samples(&d, 0, p, 2), -EINVAL);
	assert_int_equal(report_doc_add_samples(&d, 1, p, 1), -EINVAL);
	assert_int_equal(report_doc_add_samples(&d, 0, p, 0), -EINVAL);
	assert_int_equal(report_doc_add_samples(&d, 0, p, 1), 0);
	assert_int_equal(report_doc_add_samples(&d, 0, p, 1), -EINVAL);
	/* configurations stay in key order whatever the order they come in */
	assert_int_equal(report_doc_add_samples(&d, 0, p + 1, 1), 0);
	assert_int_equal(d.nconfigs, 2);
	assert_string_equal(d.configs[0].key, "msg=1024 test=tcp_stream");
	assert_int_equal(report_doc_config(&d, "msg=2048 test=tcp_stream"), 1);
	assert_int_equal(report_doc_config(&d, "nosuch"), -1);
	assert_non_null(report_doc_cell(&d, 0, 1));
	base_sample_release(&s[0]);
	base_sample_release(&s[1]);
	report_doc_release(&d);
}

static void test_charts_find_axes_and_their_followers(void **state)
{
	/* msg x streams; threads follows streams one-to-one */
	static const char *const cfg[4][4] = {
		{ "msg=1024", "streams=1", "test=tcp_stream", "threads=1" },
		{ "msg=1024", "streams=4", "test=tcp_stream", "threads=2" },
		{ "msg=65536", "streams=1", "test=tcp_stream", "threads=1" },
		{ "msg=65536", "streams=4", "test=tcp_stream", "threads=2" },
	};
	struct report_chart *c = NULL;
	struct report_doc d;
	size_t n = 0;
	char **descs;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "A"), 0);
	assert_int_equal(report_doc_add_label(&d, "B"), 0);
	for (size_t i = 0; i < 4; i++) {
		add_cell(&d, 0, cfg[i], 4, 10 + (double)i, 0.1, 3);
		if (i != 3) /* B misses one cell */
			add_cell(&d, 1, cfg[i], 4, 9 + (double)i, 0.1, 3);
	}
	assert_int_equal(report_charts_find(&d, &c, &n), 0);
	/* msg at streams=1 and 4; streams (with threads) at msg=1K and 64K */
	assert_int_equal(n, 4);
	assert_string_equal(c[0].axis, "msg");
	assert_string_equal(c[0].fixed, "streams=1 threads=1");
	assert_string_equal(c[0].with, "");
	assert_int_equal(c[0].nx, 2);
	assert_string_equal(c[0].xval[0], "1024");
	assert_string_equal(c[0].xval[1], "65536");
	assert_string_equal(c[1].fixed, "streams=4 threads=2");
	assert_string_equal(c[2].axis, "streams");
	assert_string_equal(c[2].with, "threads");
	assert_string_equal(c[2].fixed, "msg=1K");
	assert_string_equal(c[3].fixed, "msg=64K");
	descs = report_config_descs(&d);
	assert_non_null(descs);
	assert_string_equal(descs[0], "test=tcp_stream msg=1K streams=1 threads=1");
	assert_string_equal(descs[3], "test=tcp_stream msg=64K streams=4 threads=2");
	report_config_descs_free(descs, d.nconfigs);
	report_charts_free(c, n);
	report_doc_release(&d);
}

static void test_charts_order_numbers_then_words(void **state)
{
	static const char *const buf[3][2] = {
		{ "rcvbuf=65536", "test=tcp_stream" },
		{ "rcvbuf=8192", "test=tcp_stream" },
		{ "rcvbuf=auto", "test=tcp_stream" },
	};
	static const char *const cc[2][2] = {
		{ "cc=reno", "test=tcp_rr" },
		{ "cc=cubic", "test=tcp_rr" },
	};
	struct report_chart *c = NULL;
	struct report_doc d;
	size_t n = 0;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "A"), 0);
	/* added out of order: the document sorts by key, the chart by value */
	add_cell(&d, 0, buf[2], 2, 5, 0, 1);
	add_cell(&d, 0, buf[0], 2, 4, 0, 1);
	add_cell(&d, 0, buf[1], 2, 3, 0, 1);
	add_cell(&d, 0, cc[0], 2, 3, 0, 1);
	add_cell(&d, 0, cc[1], 2, 3, 0, 1);
	assert_int_equal(report_charts_find(&d, &c, &n), 0);
	assert_int_equal(n, 2);
	/* the configurations sort cc=cubic... (tcp_rr) first */
	assert_string_equal(c[0].axis, "cc");
	assert_string_equal(c[0].xval[0], "cubic");
	assert_string_equal(c[0].xval[1], "reno");
	assert_string_equal(c[1].axis, "rcvbuf");
	assert_int_equal(c[1].nx, 3);
	assert_string_equal(c[1].xval[0], "8192");
	assert_string_equal(c[1].xval[1], "65536");
	assert_string_equal(c[1].xval[2], "auto");
	for (size_t i = 0; i < 3; i++)
		assert_string_equal(report_param(&d, c[1].config[i], "rcvbuf"), c[1].xval[i]);
	report_charts_free(c, n);
	report_doc_release(&d);
}

/* A hand-built table: the headline regressed, one metric changed, one did not. */
static void fill_table(struct stats_table *t, const char *key)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->config_key, sizeof(t->config_key), "%s", key);
	snprintf(t->test, sizeof(t->test), "tcp_stream");
	t->headline = "throughput.gbps";
	t->rows = calloc(3, sizeof(*t->rows));
	assert_non_null(t->rows);
	t->nrows = 3;
	t->regressed = true;
	snprintf(t->rows[0].metric, sizeof(t->rows[0].metric), "throughput.gbps");
	snprintf(t->rows[0].unit, sizeof(t->rows[0].unit), "Gbps");
	t->rows[0].dir = METRIC_HIGHER;
	t->rows[0].headline = true;
	t->rows[0].shown = true;
	t->rows[0].c = (struct stats_compare){
		.na = 5, .nb = 5, .median_a = 8.4, .median_b = 5.9,
		.mean_a = 8.4, .mean_b = 5.9, .sd_pct_a = 1.25, .sd_pct_b = 2.5,
		.change_mean_pct = -29.76, .shift_pct = -29.8, .shift_lo_pct = -31.5,
		.shift_hi_pct = -27.9, .p = 0.00794, .verdict = STATS_REGRESSION,
	};
	t->rows[0].q = t->rows[0].c.p;
	snprintf(t->rows[1].metric, sizeof(t->rows[1].metric), "cpu.client.user_s");
	t->rows[1].dir = METRIC_NEUTRAL;
	t->rows[1].shown = true;
	t->rows[1].c = (struct stats_compare){
		.na = 5, .nb = 5, .median_a = 0, .median_b = 0.5, .sd_pct_a = NAN,
		.sd_pct_b = 10, .change_mean_pct = NAN, .shift_pct = 0.5,
		.shift_lo_pct = 0.4, .shift_hi_pct = 0.6, .shift_abs = true,
		.p = 0.0079, .verdict = STATS_CHANGED,
	};
	t->rows[1].q = 0.0132;
	snprintf(t->rows[2].metric, sizeof(t->rows[2].metric), "tcp.rtt_us");
	t->rows[2].c.verdict = STATS_SAME;
	t->notes.too_few = false;
	t->notes.outliers_b = 1;
	t->notes.drift_p_a = NAN;
	t->notes.drift_p_b = 0.01;
}

/* A table line has n '|' separators, each at the display column bars[k]
 * holds (set by the first line, bars[k] < 0). */
static void assert_bars_line_up(const char *line, long *bars, long n)
{
	long col = 0, k = 0;

	/* display columns: a UTF-8 continuation byte adds none */
	for (const char *c = line; *c; c++) {
		if (*c == '|' && k < n) {
			if (bars[k] < 0)
				bars[k] = col;
			else if (bars[k] != col)
				fail_msg("'|' %ld at column %ld, not %ld: %s", k, col, bars[k], line);
			k++;
		}
		col += ((unsigned char)*c & 0xc0) != 0x80;
	}
	assert_int_equal(k, n);
}

/* The terminal table's columns line up whatever the metric names' lengths:
 * every row's '|' separators sit where the header's do. */
static void test_compare_table_columns_line_up(void **state)
{
	struct stats_table t;
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, lines = 0;
	long bars[4] = { -1, -1, -1, -1 };
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill_table(&t, "test=tcp_stream");
	snprintf(t.rows[1].metric, sizeof(t.rows[1].metric),
		 "cpu.service_demand.server_host_us_per_kb_and_then_some");
	report_compare_table(f, &t, "A", "B", NULL);
	fclose(f);
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, " | "))
			continue;
		lines++;
		assert_bars_line_up(line, bars, 4);
	}
	assert_int_equal(lines, 3); /* the header and the two shown rows */
	free(buf);
	free(t.rows);
}

/* What report_compare_table() prints for t (free() it). */
static char *capture_compare_table(const struct stats_table *t, const char *common)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	report_compare_table(f, t, "A", "B", common);
	fclose(f);
	return buf;
}

/* n tcp_stream samples at rates g x scale, sample i with env tcp.cc cc[i]
 * (none where NULL); releases what x held when again. */
static void cc_samples(struct base_sample *x, const struct base_sample **px, size_t n,
		       const double *g, double scale, const char *const *cc, bool again)
{
	for (size_t i = 0; i < n; i++) {
		if (again)
			base_sample_release(&x[i]);
		base_sample_init(&x[i]);
		snprintf(x[i].config_key, sizeof(x[i].config_key), "test=tcp_stream");
		assert_int_equal(base_sample_param(&x[i], "test", "tcp_stream"), 0);
		assert_int_equal(base_sample_set(&x[i], "throughput.gbps", "Gbps", g[i] * scale), 0);
		if (cc[i])
			assert_int_equal(base_sample_env(&x[i], "tcp.cc", "%s", cc[i]), 0);
		px[i] = &x[i];
	}
}

/*
 * The tcp senders' congestion control (env tcp.cc) in each label: a note
 * when both have one and they differ (each label's distinct values, in
 * sample order), none when they agree or a label has none.
 */
static void test_compare_notes_congestion_control(void **state)
{
	static const double g[] = { 30.1, 29.8, 30.4, 30.0 };
	static const char *const bbr[] = { "bbr", "bbr", "bbr", "bbr" };
	static const char *const cubic[] = { "cubic", "cubic", "cubic", "cubic" };
	static const char *const both[] = { "cubic", "cubic", "bbr", "cubic" };
	static const char *const none[] = { NULL, NULL, NULL, NULL };
	struct base_sample a[4], b[4];
	const struct base_sample *pa[4], *pb[4];
	struct stats_table_opts o;
	struct stats_table t;
	char *text;

	(void)state;
	stats_table_opts_init(&o);
	cc_samples(a, pa, 4, g, 1, bbr, false);
	cc_samples(b, pb, 4, g, 1.5, cubic, false);
	assert_int_equal(stats_table_build(pa, 4, pb, 4, &o, &t), 0);
	assert_true(t.notes.cc_differ);
	assert_string_equal(t.notes.cc_a, "bbr");
	assert_string_equal(t.notes.cc_b, "cubic");
	text = capture_compare_table(&t, NULL);
	assert_non_null(strstr(text, "\nnote: the tcp senders ran another congestion control, as their sockets reported it (env tcp.cc): bbr in A, cubic in B; "));
	free(text);
	stats_table_release(&t);
	/* a label that ran both: its values in sample order */
	cc_samples(b, pb, 4, g, 1.5, both, true);
	assert_int_equal(stats_table_build(pa, 4, pb, 4, &o, &t), 0);
	assert_true(t.notes.cc_differ);
	assert_string_equal(t.notes.cc_b, "cubic or bbr");
	stats_table_release(&t);
	/* the same in both: nothing to say */
	cc_samples(b, pb, 4, g, 1.5, bbr, true);
	assert_int_equal(stats_table_build(pa, 4, pb, 4, &o, &t), 0);
	assert_false(t.notes.cc_differ);
	text = capture_compare_table(&t, NULL);
	assert_null(strstr(text, "congestion control"));
	free(text);
	stats_table_release(&t);
	/* samples from before the name: nothing to compare */
	cc_samples(a, pa, 4, g, 1, none, true);
	cc_samples(b, pb, 4, g, 1.5, cubic, true);
	assert_int_equal(stats_table_build(pa, 4, pb, 4, &o, &t), 0);
	assert_false(t.notes.cc_differ);
	stats_table_release(&t);
	for (size_t i = 0; i < 4; i++) {
		base_sample_release(&a[i]);
		base_sample_release(&b[i]);
	}
}

/*
 * A/B with the rate 10% lower: the context switches kept their pace per
 * second (11% more per MB by construction), the wake-up IPIs rose 20% per
 * second. Both per-MB rows are shown (a ratio is held to the relative
 * floor, not to a count's 100), each compared per second too, and the
 * note tells the two apart; a raw count that moved by less than 100 a run
 * stays hidden.
 */
static void test_compare_per_unit_rows_are_compared_per_second(void **state)
{
	static const double ga[] = { 30.1, 29.8, 30.4, 30.0, 29.9, 30.2 };
	static const double gb[] = { 27.1, 26.9, 27.3, 27.0, 26.8, 27.2 };
	static const double jit[] = { 1.000, 1.002, 0.998, 1.001, 0.999, 1.003 };
	struct base_sample a[6], b[6];
	const struct base_sample *pa[6], *pb[6];
	const struct stats_row *ctxt = NULL, *ipi = NULL;
	struct stats_table_opts o;
	struct stats_table t;
	char *text;

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		struct base_sample *x[2] = { &a[i], &b[i] };

		for (int k = 0; k < 2; k++) {
			double g = k ? gb[i] : ga[i];

			base_sample_init(x[k]);
			snprintf(x[k]->config_key, sizeof(x[k]->config_key), "test=tcp_stream");
			assert_int_equal(base_sample_param(x[k], "test", "tcp_stream"), 0);
			assert_int_equal(base_sample_set(x[k], "throughput.gbps", "Gbps", g), 0);
			assert_int_equal(base_sample_set(x[k], "stat.ctxt.per_mb", "",
							 60000 * jit[i] / (g * 125)), 0);
			assert_int_equal(base_sample_set(x[k], "irq.CAL.per_mb", "",
							 (k ? 36000 : 30000) * jit[5 - i] / (g * 125)), 0);
			assert_int_equal(base_sample_set(x[k], "stat.ctxt", "count", 1000 + 10 * k + (double)i), 0);
		}
		pa[i] = &a[i];
		pb[i] = &b[i];
	}
	stats_table_opts_init(&o);
	assert_int_equal(stats_table_build(pa, 6, pb, 6, &o, &t), 0);
	for (size_t i = 0; i < t.nrows; i++) {
		if (!strcmp(t.rows[i].metric, "stat.ctxt.per_mb"))
			ctxt = &t.rows[i];
		if (!strcmp(t.rows[i].metric, "irq.CAL.per_mb"))
			ipi = &t.rows[i];
		assert_string_not_equal(t.rows[i].metric, "stat.ctxt");
	}
	assert_non_null(ctxt);
	assert_non_null(ipi);
	assert_true(ctxt->shown && ctxt->per_s_tested && ipi->per_s_tested);
	assert_true(ctxt->c.shift_pct > 10 && ctxt->c.shift_pct < 12.5);
	assert_int_equal(ctxt->per_s.verdict, STATS_SAME);
	assert_true(fabs(ctxt->per_s.shift_pct) < 0.5);
	assert_int_equal(ipi->per_s.verdict, STATS_CHANGED);
	assert_true(ipi->per_s.shift_pct > 19 && ipi->per_s.shift_pct < 21);
	text = capture_compare_table(&t, NULL);
	assert_non_null(strstr(text, "note: the figures per MB above, per second: "));
	assert_non_null(strstr(text, "stat.ctxt.per_mb +0.0% ["));
	assert_non_null(strstr(text, "it kept its pace, and per unit moved with the headline by construction"));
	assert_non_null(strstr(text, "irq.CAL.per_mb +20.0% ["));
	assert_non_null(strstr(text, "(p = 0.0022): it moved per second too"));
	free(text);
	stats_table_release(&t);
	for (size_t i = 0; i < 6; i++) {
		base_sample_release(&a[i]);
		base_sample_release(&b[i]);
	}
}

/* The config line leaves out what every configuration compared shares. */
static void test_compare_table_config_line_without_the_common_part(void **state)
{
	struct stats_table t;
	char *buf;

	(void)state;
	fill_table(&t, "ipv=4 msg=64 streams=2 test=udp_stream");
	buf = capture_compare_table(&t, "ipv=4 test=udp_stream");
	assert_non_null(strstr(buf, "config: msg=64 streams=2\n"));
	free(buf);
	buf = capture_compare_table(&t, "");
	assert_non_null(strstr(buf, "config: ipv=4 msg=64 streams=2 test=udp_stream\n"));
	free(buf);
	free(t.rows);
}

/*
 * The headlines of three labels: a row a configuration without the common
 * part, the baseline's median from A's side of any table, each label's
 * median, n, change and verdict from its own; "-" and nothing after it
 * where the last label lacks a configuration, the '|' between labels
 * lined up; and a configuration no label has, no row.
 */
static void test_series_table_rows_cells_and_gaps(void **state)
{
	struct stats_table t[3];
	const struct stats_table *grid[6] = { 0 };
	/* the third: 37 bytes, then a 2-byte character across byte 38 */
	const char *labels[] = { "v6.1", "v6.2-rc1", "rc2-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\u00e9tude" };
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0, rows = 0;
	long bars[2] = { -1, -1 };
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	fill_table(&t[0], "msg=64 test=tcp_stream");
	fill_table(&t[1], "msg=1024 test=tcp_stream");
	fill_table(&t[2], "msg=64 test=tcp_stream");
	t[1].rows[0].c.median_b = 12345.6;
	t[1].rows[0].c.verdict = STATS_SAME;
	t[2].rows[0].c.median_b = 8.5;
	t[2].rows[0].c.nb = 12;
	t[2].rows[0].c.change_mean_pct = 1.19;
	t[2].rows[0].c.verdict = STATS_INCONCLUSIVE;
	grid[0] = &t[0]; /* msg=64: both labels */
	grid[1] = &t[2];
	grid[2] = &t[1]; /* msg=1024: v6.2-rc1 only */
	/* grid[4], grid[5]: a third configuration no label has */
	assert_int_equal(report_series_table(f, grid, 3, labels, 3, "test=tcp_stream"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "headlines, each label against v6.1 "));
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strstr(line, " | "))
			continue;
		rows++;
		assert_bars_line_up(line, bars, 2);
		assert_false(line[strlen(line) - 1] == ' ');
		if (rows == 1) {
			assert_non_null(strstr(line, "config"));
			assert_non_null(strstr(line, "v6.2-rc1 median"));
			/* cut before the character, not inside it */
			assert_non_null(strstr(line, "| rc2-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa median"));
			assert_non_null(strstr(line, "%change verdict"));
		} else if (rows == 2) {
			assert_true(!strncmp(line, "msg=64 ", 7));
			assert_non_null(strstr(line, " 8.4 ±1.2% 5 | "));
			assert_non_null(strstr(line, " 5.9 ±2.5% 5  -29.8% REGRESSION"));
			assert_non_null(strstr(line, " 8.5 ±2.5% 12   +1.2% inconclusive"));
		} else {
			assert_true(!strncmp(line, "msg=1024 ", 9));
			assert_non_null(strstr(line, " 1.235e+04 ±2.5% 5  -29.8% same"));
			assert_string_equal(line + strlen(line) - 2, " -");
		}
	}
	assert_int_equal(rows, 3);
	free(buf);
	for (size_t i = 0; i < 3; i++)
		free(t[i].rows);
}

/* The corner of verdict v among the 4 tables tp: n called, their pairs,
 * how many have those; and, unless text is NULL, what report_corner_text()
 * prints of it. */
static void assert_corner(const struct stats_table *const *tp, enum stats_verdict_kind v,
			  size_t n, const char *pairs, size_t with, const char *text)
{
	struct report_corner c;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	assert_int_equal(report_corner_of(tp, 4, v, &c), 0);
	assert_int_equal(c.n, n);
	assert_string_equal(c.pairs, pairs);
	assert_int_equal(c.with, with);
	if (!text)
		return;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_corner_text(f, &c, 4, "the headline regressed");
	fclose(f);
	assert_string_equal(buf, text);
	free(buf);
}

/*
 * The corner of a 2 x 2 matrix where the headline regressed: both msg=64
 * configurations, msg=64 (2 of the 2 that have it); one configuration,
 * its own pairs; both streams=2, streams=2; two that share nothing the
 * others lack, no pairs; none, nothing printed; and improvements apart
 * from regressions.
 */
static void test_corner_names_what_the_called_configurations_share(void **state)
{
	const char *keys[] = { "msg=64 streams=1 test=udp_stream", "msg=64 streams=2 test=udp_stream",
			       "msg=1472 streams=1 test=udp_stream", "msg=1472 streams=2 test=udp_stream" };
	struct stats_table t[4];
	const struct stats_table *tp[4];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		fill_table(&t[i], keys[i]);
		t[i].rows[0].c.verdict = i < 2 ? STATS_REGRESSION : STATS_SAME;
		tp[i] = &t[i];
	}
	assert_corner(tp, STATS_REGRESSION, 2, "msg=64", 2,
		      "; the headline regressed in 2 of the 4, all with msg=64 (2 of the 2 that have it)");
	t[0].rows[0].c.verdict = STATS_IMPROVEMENT;
	assert_corner(tp, STATS_REGRESSION, 1, "msg=64 streams=2", 1,
		      "; the headline regressed in 1 of the 4: msg=64 streams=2");
	assert_corner(tp, STATS_IMPROVEMENT, 1, "msg=64 streams=1", 1, NULL);
	t[0].rows[0].c.verdict = STATS_SAME;
	t[3].rows[0].c.verdict = STATS_REGRESSION;
	assert_corner(tp, STATS_REGRESSION, 2, "streams=2", 2, NULL);
	t[3].rows[0].c.verdict = STATS_SAME;
	t[2].rows[0].c.verdict = STATS_REGRESSION;
	assert_corner(tp, STATS_REGRESSION, 2, "", 4,
		      "; the headline regressed in 2 of the 4, which share no parameter the others lack");
	for (size_t i = 0; i < 4; i++)
		t[i].rows[0].c.verdict = STATS_SAME;
	assert_corner(tp, STATS_REGRESSION, 0, "", 0, "");
	for (size_t i = 0; i < 4; i++)
		free(t[i].rows);
}

/* A sample with a full snapshot of both ends from name=value pairs. */
static void snapshot_sample(struct base_sample *s, const char *host,
			    const char *const *kv, size_t n)
{
	json_t *e = json_object();

	base_sample_init(s);
	assert_non_null(e);
	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(kv[i], '=');
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - kv[i]), kv[i]);
		json_object_set_new(e, key, json_string(eq + 1));
	}
	s->sysenv = json_pack("{s:{s:s, s:O}, s:{s:s, s:o}}", "client", "fingerprint",
			      "0000000000000001", "entries", e, "server", "fingerprint",
			      "0000000000000001", "entries", json_deep_copy(e));
	assert_non_null(s->sysenv);
	json_decref(e);
	assert_int_equal(base_sample_env(s, "client.hostname", "%s", host), 0);
	assert_int_equal(base_sample_env(s, "server.hostname", "vm"), 0);
	assert_int_equal(base_sample_env(s, "client.env_fingerprint", "%s", host), 0);
}

struct seen {
	char entry[8][128];
	const char *a[8], *b[8];
	size_t n;
};

static void note_change(void *ctx, const char *entry, const char *a, const char *b)
{
	struct seen *s = ctx;

	assert_true(s->n < 8);
	snprintf(s->entry[s->n], sizeof(s->entry[0]), "%s", entry);
	s->a[s->n] = a;
	s->b[s->n] = b;
	s->n++;
}

/* What compare names first: the entries the fingerprint covers that differ
 * (a sysctl, one only B has), the host; not a volatile sysctl, not the
 * fingerprint itself. */
static void test_env_changes_name_what_differs(void **state)
{
	static const char *const ka[] = {
		"kernel.release=6.1.0", "sysctl.net.ipv4.tcp_rmem=4096 131072 6291456",
		"sysctl.net.core.netdev_rss_key=aa:bb", "if.lo.mtu=65536",
	};
	static const char *const kb[] = {
		"kernel.release=6.1.0", "sysctl.net.ipv4.tcp_rmem=4096 8192 8192",
		"sysctl.net.core.netdev_rss_key=cc:dd", "if.lo.mtu=65536",
		"sysctl.net.ipv4.tcp_new_knob=1",
	};
	struct base_sample a, b, bare;
	struct seen seen = { .n = 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	json_t *j;

	(void)state;
	snapshot_sample(&a, "vm", ka, ARRAY_SIZE(ka));
	snapshot_sample(&b, "other", kb, ARRAY_SIZE(kb));
	assert_int_equal(report_env_changes(&a, &b, note_change, &seen), 5);
	assert_string_equal(seen.entry[0], "client.hostname");
	assert_string_equal(seen.b[0], "other");
	assert_string_equal(seen.entry[1], "client.sysctl.net.ipv4.tcp_rmem");
	assert_string_equal(seen.a[1], "4096 131072 6291456");
	assert_string_equal(seen.b[1], "4096 8192 8192");
	assert_string_equal(seen.entry[2], "client.sysctl.net.ipv4.tcp_new_knob");
	assert_null(seen.a[2]);
	assert_string_equal(seen.entry[3], "server.sysctl.net.ipv4.tcp_rmem");
	assert_string_equal(seen.entry[4], "server.sysctl.net.ipv4.tcp_new_knob");
	assert_true(report_env_snapshots(&a, &b));
	assert_int_equal(report_env_changes(&a, &a, NULL, NULL), 0);

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_env_diff_text(f, &a, &b, "v1", "v2");
	report_env_diff_text(f, &a, &a, "v1", "v1");
	fclose(f);
	assert_non_null(strstr(buf, "environment: 5 entries differ from v1 to v2"));
	assert_non_null(strstr(buf, "client.sysctl.net.ipv4.tcp_rmem     4096 131072 6291456 -> 4096 8192 8192\n"));
	assert_non_null(strstr(buf, "client.sysctl.net.ipv4.tcp_new_knob (none) -> 1\n"));
	assert_null(strstr(buf, "netdev_rss_key"));
	assert_null(strstr(buf, "env_fingerprint"));
	assert_non_null(strstr(buf, "environment: no difference between v1 and v1 (the full snapshots"));
	free(buf);

	j = report_env_diff_json(&a, &b);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "full_snapshots")));
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "changes"), 2), "entry")),
			    "client.sysctl.net.ipv4.tcp_new_knob");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "changes"), 2), "a")));
	json_decref(j);

	/* one side without snapshots: only the short entries are compared */
	base_sample_init(&bare);
	assert_int_equal(base_sample_env(&bare, "client.hostname", "vm"), 0);
	assert_int_equal(base_sample_env(&bare, "server.hostname", "vm"), 0);
	assert_false(report_env_snapshots(&a, &bare));
	assert_int_equal(report_env_changes(&a, &bare, NULL, NULL), 0);
	/* the profiler's event: what a profile row means */
	assert_int_equal(base_sample_env(&a, "client.collect.profile.event", "cpu-clock"), 0);
	assert_int_equal(base_sample_env(&bare, "client.collect.profile.event",
					 "cpu-clock, interrupts-off samples charged to callers"), 0);
	seen.n = 0;
	assert_int_equal(report_env_changes(&a, &bare, note_change, &seen), 1);
	assert_string_equal(seen.entry[0], "client.collect.profile.event");
	assert_string_equal(seen.a[0], "cpu-clock");
	base_sample_release(&a);
	base_sample_release(&b);
	base_sample_release(&bare);
}

/* The families the snapshot gained later (cpu.vuln., cpuidle., mm.): a
 * side that recorded none of one differs in none of its entries; once both
 * record the family, a changed mitigation or one that only B has shows. */
static void test_env_changes_later_families_need_both_sides(void **state)
{
	static const char *const old[] = { "kernel.release=6.1.0" };
	static const char *const ka[] = {
		"kernel.release=6.1.0", "cpu.vuln.retbleed=Mitigation: IBRS",
		"cpuidle.governor=menu",
	};
	static const char *const kb[] = {
		"kernel.release=6.1.0", "cpu.vuln.retbleed=Vulnerable",
		"cpu.vuln.tsa=Not affected", "cpuidle.governor=menu",
	};
	struct base_sample o, a, b;
	struct seen seen = { .n = 0 };

	(void)state;
	snapshot_sample(&o, "vm", old, ARRAY_SIZE(old));
	snapshot_sample(&a, "vm", ka, ARRAY_SIZE(ka));
	snapshot_sample(&b, "vm", kb, ARRAY_SIZE(kb));
	assert_int_equal(report_env_changes(&o, &b, NULL, NULL), 0);
	assert_int_equal(report_env_changes(&b, &o, NULL, NULL), 0);
	assert_int_equal(report_env_changes(&a, &b, note_change, &seen), 4);
	assert_string_equal(seen.entry[0], "client.cpu.vuln.retbleed");
	assert_string_equal(seen.a[0], "Mitigation: IBRS");
	assert_string_equal(seen.b[0], "Vulnerable");
	assert_string_equal(seen.entry[1], "client.cpu.vuln.tsa");
	assert_null(seen.a[1]);
	assert_string_equal(seen.entry[2], "server.cpu.vuln.retbleed");
	base_sample_release(&o);
	base_sample_release(&a);
	base_sample_release(&b);
}

/* Within one label: each differing entry with its values and counts; past
 * four values the rest are counted together; an entry a sample lacks is
 * "(none)"; a small buffer keeps what fits, terminated. */
static void test_env_within_counts_values(void **state)
{
	static const char *const v[6][2] = {
		{ "kernel.release=6.1.0", "sysctl.net.core.rmem_max=212992" },
		{ "kernel.release=6.1.0", "sysctl.net.core.rmem_max=212992" },
		{ "kernel.release=6.1.0", "sysctl.net.core.rmem_max=4194304" },
		{ "kernel.release=6.2.0", "sysctl.net.core.rmem_max=1" },
		{ "kernel.release=6.1.0", "sysctl.net.core.rmem_max=2" },
		{ "kernel.release=6.1.0", "if.lo.mtu=65536" },
	};
	struct base_sample s[6];
	const struct base_sample *p[6];
	char out[512], small[40];

	(void)state;
	for (size_t i = 0; i < 6; i++) {
		snapshot_sample(&s[i], "vm", v[i], 2);
		p[i] = &s[i];
	}
	assert_int_equal(report_env_within(p, 2, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(report_env_within(p, 3, out, sizeof(out)), 2);
	assert_string_equal(out, "client.sysctl.net.core.rmem_max: 212992 in 2, 4194304 in 1; "
				 "server.sysctl.net.core.rmem_max: 212992 in 2, 4194304 in 1");
	/* client: kernel.release, rmem_max, if.lo.mtu; server: the same */
	assert_int_equal(report_env_within(p, 6, out, sizeof(out)), 6);
	assert_non_null(strstr(out, "client.sysctl.net.core.rmem_max: 212992 in 2, 4194304 in 1, 1 in 1, 2 in 1, other values in 1;"));
	assert_non_null(strstr(out, "client.kernel.release: 6.1.0 in 5, 6.2.0 in 1;"));
	assert_non_null(strstr(out, "client.if.lo.mtu: (none) in 5, 65536 in 1;"));
	assert_int_equal(report_env_within(p, 6, small, sizeof(small)), 6);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	for (size_t i = 0; i < 6; i++)
		base_sample_release(&s[i]);
}

/* One entry's values over samples, from the short environment: those that
 * hold it counted, the rest "(none)". */
static void test_env_tally_one_entry(void **state)
{
	static const char *const cc[] = { "bbr", "cubic", NULL, "bbr" };
	struct base_sample s[4];
	const struct base_sample *p[4];
	char out[128];

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		base_sample_init(&s[i]);
		if (cc[i])
			assert_int_equal(base_sample_env(&s[i], "tcp.cc", "%s", cc[i]), 0);
		p[i] = &s[i];
	}
	assert_int_equal(report_env_tally(p, 4, "tcp.cc", out, sizeof(out)), 3);
	assert_string_equal(out, " bbr in 2, cubic in 1, (none) in 1");
	assert_int_equal(report_env_tally(p + 2, 1, "tcp.cc", out, sizeof(out)), 0);
	for (size_t i = 0; i < 4; i++)
		base_sample_release(&s[i]);
}

static char *md_of(const struct report_doc *d)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_md(f, d), 0);
	fclose(f);
	return buf;
}

static void test_md_of_a_hand_built_table(void **state)
{
	static const char *const kv[] = { "msg=256", "test=tcp_stream" };
	struct stats_table t;
	struct report_doc d;
	char *md;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "6.1"), 0);
	assert_int_equal(report_doc_add_label(&d, "6.2|rc"), 0);
	add_cell(&d, 0, kv, 2, 8.3, 0.05, 5);
	add_cell(&d, 1, kv, 2, 5.8, 0.05, 5);
	fill_table(&t, "msg=256 test=tcp_stream");
	assert_int_equal(report_doc_add_table(&d, 0, 1, &t), 0);
	assert_null(t.rows); /* the document owns it now */
	md = md_of(&d);
	assert_non_null(strstr(md, "# netregress report: 6.1, 6.2\\|rc\n\n"
				   "Baseline: 6.1; compared against it: 6.2\\|rc.\n"
				   "1 configuration.\n\n"
				   "## Answer\n\n"));
	/* the answer first: the call, with the configuration's short name */
	assert_non_null(strstr(md, "- 6.2\\|rc: REGRESSION throughput.gbps "));
	assert_non_null(strstr(md, "\n\nParameters of every configuration: `msg=256`\n\n"));
	assert_non_null(strstr(md, "| **client.kernel** | 6.1 | 6.2\\|rc |\n"));
	assert_non_null(strstr(md, "| configuration | metric | 6.1 (baseline) | 6.2\\|rc |\n"
				   "| --- | --- | ---: | ---: |\n"
				   "| `test=tcp_stream` | throughput.gbps (Gbps) | 8.4 ±0.9% (5) | "
				   "5.9 ±1.3% (5) -29.8% REGRESSION |\n"));
	assert_non_null(strstr(md, "## 6.2\\|rc against 6.1\n\n"
				   "| configuration | metric (better) | 6.1 median | ±%sd | n | %change | "
				   "shift [95% CI] | 6.2\\|rc median | ±%sd | n | p / q | verdict |\n"
				   "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n"
				   "| `test=tcp_stream` | throughput.gbps (higher) | 8.4 | ±1.2% | 5 | -29.8% | "
				   "-29.8% [-31.5%, -27.9%] | 5.9 | ±2.5% | 5 | 0.0079 | **REGRESSION** |\n"
				   "| `test=tcp_stream` | cpu.client.user\\_s (neutral) | 0 | - | 5 | - | "
				   "0.5 [0.4, 0.6] | 0.5 | ±10.0% | 5 | 0.0132 | changed |\n\n"
				   "1 configuration compared: REGRESSION in a headline metric. "
				   "1 other metric row did not change and is not listed ('compare --all' lists them).\n\n"
				   "Notes:\n\n"
				   "- `test=tcp_stream`: outliers in the headline (modified z-score > 3.5, kept): 0 in 6.1, 1 in 6.2\\|rc\n"
				   "- `test=tcp_stream`: 6.2\\|rc drifts with run order (Mann-Kendall p = 0.010): the machine changed during the runs\n"));
	/* no latency section without request/response tests, nothing after the notes */
	assert_null(strstr(md, "Latency"));
	assert_int_equal(md[strlen(md) - 1], '\n');
	free(md);
	report_doc_release(&d);
}

static void test_html_marks_charts_for_counting(void **state)
{
	static const char *const cfg[2][2] = {
		{ "msg=1024", "test=tcp_stream" },
		{ "msg=65536", "test=tcp_stream" },
	};
	static const char *const rr[] = { "test=tcp_rr" };
	struct base_sample s[3];
	const struct base_sample *p[3] = { &s[0], &s[1], &s[2] };
	struct report_doc d;
	size_t ncharts = 0;
	char *html = NULL;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "<A>"), 0);
	assert_int_equal(report_doc_add_label(&d, "B"), 0);
	for (size_t i = 0; i < 2; i++) {
		add_cell(&d, 0, cfg[i], 2, 10, 1, 4);
		add_cell(&d, 1, cfg[i], 2, 9, 1, 3);
	}
	/* request/response: latency percentiles per sample, no histogram */
	for (size_t i = 0; i < 3; i++) {
		make_sample(&s[i], "B", rr, 1, "transactions.per_s", "trans/s", 1000);
		for (size_t k = 0; k < REPORT_NLAT; k++)
			assert_int_equal(base_sample_set(&s[i], report_lat_metric[k], "us",
							 10.0 * (double)(k + 1) + (double)i), 0);
	}
	assert_int_equal(report_doc_add_samples(&d, 1, p, 3), 0);
	html = capture_report_html(&d, &ncharts);
	assert_int_equal(ncharts, 2);
	assert_int_equal(count(html, "<svg class=\"chart\""), 2);
	assert_non_null(strstr(html, "data-kind=\"axis\" data-series=\"2\" data-points=\"14\" data-categories=\"2\""));
	assert_non_null(strstr(html, "data-kind=\"latency\" data-series=\"1\" data-points=\"12\" data-categories=\"4\""));
	/* 4 + 3 + 3 + 4 sample dots, then 12 latency dots; 3 median lines */
	assert_int_equal(count(html, "<circle class=\"pt\""), 26);
	assert_int_equal(count(html, "<g class=\"series\""), 3);
	assert_int_equal(count(html, "<path class=\"median\""), 3);
	assert_non_null(strstr(html, "<g class=\"series\" data-label=\"&lt;A&gt;\" data-points=\"8\""));
	assert_null(strstr(html, "<A>"));
	/* the median of 10, 11, 12 (p50 of three samples) is the line's value */
	assert_non_null(strstr(html, "<td class=\"num\" data-v=\"11\">11</td>"));
	/* nothing to fetch: the only address is the SVG namespace */
	assert_int_equal(count(html, "http"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
	assert_non_null(strstr(html, "table.sortable"));
	free(html);
	for (size_t i = 0; i < 3; i++)
		base_sample_release(&s[i]);
	report_doc_release(&d);
}

static void test_html_draws_each_samples_rates_within_the_window(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	static const double r0[] = { 30, 31, 41, 40, 30 }, r1[] = { 35, 36, 35 }, r2[] = { 20, 22, 21, 44 };
	static const double *const rates[4] = { r0, r1, r2, NULL };
	const double x0[] = { 120, NAN, 430, NAN, 110 }, x2[] = { 100, 105, 98, 460 };
	const char *xc, *path, *end;
	static const size_t nrates[4] = { 5, 3, 4, 0 };
	struct base_sample s[4];
	const struct base_sample *pa[2] = { &s[0], &s[1] }, *pb[2] = { &s[2], &s[3] };
	struct report_doc d;
	size_t ncharts = 0;
	char *html = NULL;

	(void)state;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "A"), 0);
	assert_int_equal(report_doc_add_label(&d, "B"), 0);
	for (size_t i = 0; i < 4; i++) {
		make_sample(&s[i], i < 2 ? "A" : "B", cfg, 1, "throughput.gbps", "Gbps", 35);
		assert_int_equal(base_sample_set_series(&s[i], "Gbps", 0.1, rates[i], nrates[i], 1), 0);
	}
	/* the cross-CPU probe's figures of two samples, one with two gaps */
	assert_int_equal(base_sample_set_series_probe(&s[0], BASE_TICK_XCPU, x0, 5), 0);
	assert_int_equal(base_sample_set_series_probe(&s[2], BASE_TICK_XCPU, x2, 4), 0);
	assert_int_equal(report_doc_add_samples(&d, 0, pa, 2), 0);
	assert_int_equal(report_doc_add_samples(&d, 1, pb, 2), 0);
	for (size_t i = 0; i < 4; i++)
		base_sample_release(&s[i]);
	html = capture_report_html(&d, &ncharts);
	/* one configuration, no axis: the window chart, and under it the
	 * probe's (the speed probe's of none) */
	assert_int_equal(ncharts, 2);
	assert_int_equal(count(html, "data-kind=\"window-xcpu_ns\""), 1);
	assert_null(strstr(html, "window-host_speed"));
	assert_non_null(strstr(html, "<figcaption>The cross-CPU round trip in the same intervals: <code>"));
	xc = strstr(html, "data-kind=\"window-xcpu_ns\" data-series=\"2\" data-points=\"7\" data-categories=\"0\"");
	assert_non_null(xc);
	assert_non_null(strstr(xc, "ns (0.1 s intervals)"));
	assert_non_null(strstr(xc, "<g class=\"series\" data-label=\"A\" data-points=\"3\""));
	assert_non_null(strstr(xc, "<g class=\"series\" data-label=\"B\" data-points=\"4\""));
	/* A's line: 120, gap, 430, gap, 110: three pieces */
	path = strstr(xc, "<path class=\"window\" data-sample=\"0\" data-points=\"3\" d=\"M");
	assert_non_null(path);
	end = strchr(path + 60, '"');
	assert_non_null(end);
	assert_int_equal(count_n(path, (size_t)(end - path), " M"), 2);
	assert_int_equal(count_n(path, (size_t)(end - path), " L"), 0);
	assert_int_equal(count(xc, "<path class=\"window\""), 2);
	/* the rates' chart is drawn as before */
	html[xc - html] = '\0';
	assert_non_null(strstr(html, "<a href=\"#window\">"));
	assert_non_null(strstr(html, "data-kind=\"window\" data-series=\"2\" data-points=\"12\" data-categories=\"0\""));
	/* a line per sample that kept its rates: B's second kept none */
	assert_int_equal(count(html, "<path class=\"window\""), 3);
	assert_non_null(strstr(html, "<g class=\"series\" data-label=\"A\" data-points=\"8\""));
	assert_non_null(strstr(html, "<g class=\"series\" data-label=\"B\" data-points=\"4\""));
	assert_non_null(strstr(html, "data-sample=\"1\" data-points=\"3\" d=\"M"));
	assert_non_null(strstr(html, "Gbps (0.1 s intervals)"));
	/* time on x, with numeric ticks */
	assert_non_null(strstr(html, "seconds into the window"));
	assert_non_null(strstr(html, "<g class=\"xticks\""));
	free(html);
	report_doc_release(&d);
}

static void test_html_window_lines_of_long_windows_are_averaged(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	static double v[2500];
	struct base_sample s;
	const struct base_sample *p[1] = { &s };
	struct report_doc d;
	char *html = NULL;
	const char *path;

	(void)state;
	for (size_t i = 0; i < 2500; i++)
		v[i] = i % 2 ? 30 : 40;
	report_doc_init(&d);
	assert_int_equal(report_doc_add_label(&d, "A"), 0);
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 35);
	assert_int_equal(base_sample_set_series(&s, "Gbps", 0.1, v, 2500, 1), 0);
	assert_int_equal(report_doc_add_samples(&d, 0, p, 1), 0);
	base_sample_release(&s);
	html = capture_report_html(&d, NULL);
	/* 4 min 10 s of 100 ms rates: 834 vertices, groups of 3 */
	path = strstr(html, "<path class=\"window\" data-sample=\"0\" data-points=\"2500\" d=\"M");
	assert_non_null(path);
	assert_int_equal(count(path, " L"), 833);
	free(html);
	report_doc_release(&d);
}

static void test_explain_admits_shares_and_rates_not_relatives(void **state)
{
	(void)state;
	assert_true(report_explains("netstat.TcpExt.TCPBacklogCoalesce.per_mb", "tcp_stream"));
	assert_true(report_explains("tcp.acks.per_seg", "tcp_stream"));
	assert_true(report_explains("tcp.acks.per_trans", "tcp_rr"));
	assert_true(report_explains("cpu.server.workers_switches.per_mb", "udp_stream"));
	assert_true(report_explains("snmp.Tcp.OutSegs.per_write", "tcp_stream"));
	assert_true(report_explains("cpu.client.softirq_pct", "tcp_stream"));
	assert_true(report_explains("host.speed", "tcp_stream"));
	assert_true(report_explains("host.speed.cpu1.lost_pct", "tcp_stream"));
	assert_true(report_explains("host.xcpu_ns", "tcp_rr"));
	assert_false(report_explains("host.xcpu.rounds", "tcp_rr"));
	assert_true(report_explains("profile.self.skb_defer_free_flush", "tcp_stream"));
	assert_true(report_explains("tcp.rtt_us", "tcp_stream"));
	assert_false(report_explains("throughput.gbps", "tcp_stream"));
	assert_false(report_explains("throughput.msgs_per_s", "tcp_stream"));
	assert_false(report_explains("latency.p99_us", "tcp_rr"));
	assert_false(report_explains("snmp.Tcp.OutSegs.per_mb", "udp_stream"));
	assert_false(report_explains("netstat.TcpExt.TCPBacklogCoalesce.per_mb", "udp_rr"));
	assert_false(report_explains("snmp.Udp.InDatagrams.per_mb", "tcp_stream"));
	assert_true(report_explains("snmp.Udp.InDatagrams.per_mb", "udp_stream"));
	assert_true(report_explains("snmp.Tcp.OutSegs.per_mb", "tcp_rr"));
	assert_false(report_explains("cpu.service_demand.client_us_per_kb", "tcp_stream"));
	assert_false(report_explains("window.level_lo_pct", "tcp_stream"));
	assert_false(report_explains("snmp.Tcp.OutSegs", "tcp_stream"));
	assert_false(report_explains("tcp.retransmits", "tcp_stream"));
}

static void test_explain_lists_what_went_with_the_headline(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s[10];
	size_t len = 0;
	char *text = NULL;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < 10; i++) {
		double g = 30 + (double)i;

		make_sample(&s[i], "A", cfg, 1, "throughput.gbps", "Gbps", g);
		/* follows the rate, goes against it, a count that follows it
		 * by construction, and one that does not move with it */
		assert_int_equal(base_sample_set(&s[i], "netstat.TcpExt.TCPBacklogCoalesce.per_mb", "/MB",
						 2 + 0.1 * (double)i), 0);
		assert_int_equal(base_sample_set(&s[i], "stat.ctxt.per_mb", "/MB",
						 300 - 9 * (double)i), 0);
		assert_int_equal(base_sample_set(&s[i], "snmp.Tcp.OutSegs", "count", 1e6 * g), 0);
		assert_int_equal(base_sample_set(&s[i], "cpu.foreign_busy_pct", "%",
						 (double)((i * 7) % 10)), 0);
		/* sleeps that kept their pace per second: per MB they fall
		 * as the rate rises */
		assert_int_equal(base_sample_set(&s[i], "cpu.server.workers_switches.per_mb", "",
						 30000 * (1 + 0.002 * (double)((i * 7) % 10)) / (g * 125)), 0);
	}
	f = open_memstream(&text, &len);
	assert_non_null(f);
	assert_int_equal(report_explain(f, s, 10, "tcp_stream", 8, 0.05), 0);
	fclose(f);
	assert_non_null(strstr(text, "what went with throughput.gbps from sample to sample "
				     "(Kendall's tau over 10 samples, Benjamini-Hochberg q < 0.05 over the 4 metrics tested):\n"));
	/* per second: the sleeps kept their pace and say so; the context
	 * switches, which fell faster than the rate rose, do not */
	assert_non_null(strstr(text, "  cpu.server.workers_switches.per_mb           tau -1.00  q "));
	assert_non_null(strstr(text, "median 7.049; per second 3.027e+04 (cov 0.6%), tau +0.20, p 0.47: it kept its pace, per unit it follows the rate by construction\n"));
	assert_non_null(strstr(text, "median 259.5 /MB; per second 1.119e+06 (cov 1.9%), tau -0.82, p 0.0013\n"));
	/* both at tau +-1, the rising one first on ties; the count is not a candidate */
	assert_non_null(strstr(text, "  netstat.TcpExt.TCPBacklogCoalesce.per_mb     tau +1.00"));
	assert_non_null(strstr(text, "  stat.ctxt.per_mb"));
	assert_non_null(strstr(text, "tau -1.00"));
	assert_null(strstr(text, "OutSegs"));
	assert_null(strstr(text, "cpu.foreign_busy_pct"));
	free(text);
	/* fewer than STATS_COVARY_MIN_N samples: nothing */
	text = NULL;
	f = open_memstream(&text, &len);
	assert_int_equal(report_explain(f, s, 4, "tcp_stream", 8, 0.05), 0);
	fclose(f);
	assert_int_equal(len, 0);
	free(text);
	for (size_t i = 0; i < 10; i++)
		base_sample_release(&s[i]);
}

/*
 * The flow table shows each socket buffer as the run ended, marked where it
 * moved since the start (autotuning), with a line that says so; a sample
 * without end values shows the start.
 */
static void test_sample_table_shows_buffers_at_the_end(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s;
	struct sample_flow *f;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 35);
	assert_int_equal(base_sample_alloc_flows(&s, 1), 0);
	f = &s.flows[0];
	snprintf(f->dir, sizeof(f->dir), "send");
	f->client_sndbuf = f->server_sndbuf = 16384;
	f->client_rcvbuf = f->server_rcvbuf = 131072;
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "      16K      128K       16K      128K"));
	assert_null(strstr(text, "*"));
	free(text);

	f->client_sndbuf_end = 4194304;
	f->client_rcvbuf_end = 131072;
	f->server_sndbuf_end = 16384;
	f->server_rcvbuf_end = 6 * 1048576;
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "       4M*      128K       16K       6M*"));
	assert_non_null(strstr(text, "\n(socket buffers at the end; *: changed since the start, as autotuning does)\n"));
	free(text);

	/* a size autotuning reached, not a whole K: one decimal */
	f->server_rcvbuf_end = 2004657;
	f->client_sndbuf_end = 3939840;
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "     3.8M*      128K       16K     1.9M*"));
	free(text);

	/* fixed buffers: the same at both ends, no mark, no line */
	f->client_sndbuf_end = f->client_sndbuf;
	f->server_rcvbuf_end = f->server_rcvbuf;
	text = capture_sample_table(&s);
	assert_null(strstr(text, "*"));
	assert_null(strstr(text, "autotuning"));
	free(text);
	base_sample_release(&s);
}

/* The tcp line: the sender's time and its retransmissions, the DSACK share
 * only when there were any; none without the window's TCP_INFO. */
static void test_sample_table_tcp_line(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 35);
	base_sample_set(&s, "tcp.retransmits", "seg", 29);
	text = capture_sample_table(&s);
	assert_null(strstr(text, "\ntcp: "));
	free(text);
	base_sample_set(&s, "tcp.busy_pct", "%", 99.04);
	base_sample_set(&s, "tcp.rwnd_limited_pct", "%", 9.25);
	base_sample_set(&s, "tcp.sndbuf_limited_pct", "%", 0);
	base_sample_set(&s, "tcp.dsack_dups", "seg", 27);
	base_sample_set(&s, "tcp.reord_seen", "count", 47);
	expect_sample_table_has(&s, "\ntcp: the sender had data in flight 99.0% of the window (held back by the receive window 9.2%, by a full send buffer 0.0%); 29 retransmits, 27 of them reported duplicate by the receiver (DSACK); 47 reorderings seen\n");
	/* a window without a write: no segments per write */
	base_sample_set(&s, "tcp.bytes_per_seg", "", 44674.2);
	expect_sample_table_has(&s, "; 47 reorderings seen; 44674 B per data segment\n");
	base_sample_set(&s, "tcp.data_segs.per_write", "", 2.934);
	expect_sample_table_has(&s, "; 47 reorderings seen; 44674 B per data segment, 2.93 segments per write\n");
	base_sample_set(&s, "tcp.acks.per_seg", "", 0.6463);
	expect_sample_table_has(&s, ", 2.93 segments per write; the receiver sent 0.65 ACKs per data segment\n");
	base_sample_set(&s, "tcp.retransmits", "seg", 0);
	base_sample_set(&s, "tcp.dsack_dups", "seg", 0);
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "; 0 retransmits; 47 reorderings seen; "));
	assert_null(strstr(text, "DSACK"));
	free(text);
	/* the congestion control the sender reported, after "tcp" */
	base_sample_env(&s, "tcp.cc", "bbr");
	expect_sample_table_has(&s, "\ntcp (bbr, the system's default): the sender had data in flight 99.0% ");
	base_sample_release(&s);
}

/* What --cc asked for is not the system's default. */
static void test_sample_table_tcp_line_cc_asked(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream", "cc=reno" };
	struct base_sample s;

	(void)state;
	make_sample(&s, "A", cfg, 2, "throughput.gbps", "Gbps", 35);
	base_sample_set(&s, "tcp.busy_pct", "%", 50);
	base_sample_env(&s, "tcp.cc", "reno");
	expect_sample_table_has(&s, "\ntcp (reno): the sender had data in flight 50.0% ");
	base_sample_release(&s);
}

/* tcp_rr's tcp line: both ends' segments per transaction, the DSACK share
 * only when there were retransmissions; none from an older server. */
static void test_sample_table_tcp_rr_line(void **state)
{
	static const char *const cfg[] = { "test=tcp_rr" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "transactions.per_s", "trans/s", 35000);
	text = capture_sample_table(&s);
	assert_null(strstr(text, "\ntcp: "));
	free(text);
	base_sample_set(&s, "tcp.retransmits", "seg", 0);
	base_sample_set(&s, "tcp.dsack_dups", "seg", 0);
	base_sample_set(&s, "tcp.data_segs.per_trans", "", 2.0001);
	base_sample_set(&s, "tcp.acks.per_trans", "", 0.1049);
	expect_sample_table_has(&s, "\ntcp: per transaction, both ends: 2.00 data segments, 0.10 pure ACKs; 0 retransmits\n");
	base_sample_set(&s, "tcp.retransmits", "seg", 3);
	base_sample_set(&s, "tcp.dsack_dups", "seg", 1);
	expect_sample_table_has(&s, "; 3 retransmits, 1 of them reported duplicate (DSACK)\n");
	base_sample_env(&s, "tcp.cc", "cubic");
	expect_sample_table_has(&s, "\ntcp (cubic, the system's default): per transaction, both ends: 2.00 data segments");
	base_sample_release(&s);
}

/* The cpus line: the IPIs that woke or called another CPU per unit of
 * work and the CPU that took most, beside the probe's round trip or
 * alone; nothing without them. */
static void test_sample_table_cpus_line_ipis(void **state)
{
	static const char *const cfg[] = { "test=udp_stream" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 5.5);
	text = capture_sample_table(&s);
	assert_null(strstr(text, "\ncpus: "));
	free(text);
	/* one of the two rows is enough */
	base_sample_set(&s, "irq.CAL.per_mb", "", 12.3);
	expect_sample_table_has(&s, "\ncpus: 12.3 IPIs (wake-ups, calls) per MB\n");
	base_sample_set(&s, "irq.RES.per_mb", "", 0.2);
	base_sample_set(&s, "irq.CAL", "count", 24400);
	base_sample_set(&s, "irq.CAL.cpu0", "count", 100);
	base_sample_set(&s, "irq.CAL.cpu1", "count", 24300);
	base_sample_set(&s, "irq.RES", "count", 400);
	base_sample_set(&s, "irq.RES.cpu0", "count", 150);
	base_sample_set(&s, "irq.RES.cpu1", "count", 250);
	base_sample_set(&s, "irq.RES.cpu1.per_mb", "", 0.1);
	expect_sample_table_has(&s, "\ncpus: 12.5 IPIs (wake-ups, calls) per MB, 99% to cpu1\n");
	base_sample_set(&s, "host.xcpu_ns", "ns", 421.6);
	base_sample_set(&s, "host.xcpu.rounds", "", 40);
	expect_sample_table_has(&s, "\ncpus: a cache line's round trip between the test's CPUs 422 ns (median of 40 rounds); 12.5 IPIs (wake-ups, calls) per MB, 99% to cpu1\n");
	base_sample_release(&s);
}

/* The cpus line of a window in which the host moved the CPUs: the levels,
 * then how much of the window they sat far apart and the rate there, each
 * only when the sample has it (samples of builds before them do not). */
static void test_sample_table_cpus_line_moved(void **state)
{
	static const char *const cfg[] = { "test=tcp_rr" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "transactions.per_s", "trans/s", 19170);
	base_sample_set(&s, "host.xcpu_ns", "ns", 83);
	base_sample_set(&s, "host.xcpu.rounds", "", 50);
	base_sample_set(&s, "window.xcpu_moved", "", 1);
	base_sample_set(&s, "window.xcpu_lo_ns", "ns", 87.4);
	base_sample_set(&s, "window.xcpu_hi_ns", "ns", 330.9);
	expect_sample_table_has(&s, "\ncpus: a cache line's round trip between the test's CPUs 83 ns (median of 50 rounds); MOVED: the host moved them within the window (87 to 331 ns)\n");
	base_sample_set(&s, "window.xcpu_far_pct", "%", 26.6);
	expect_sample_table_has(&s, "; MOVED: the host moved them within the window (87 to 331 ns; far apart 27% of it)\n");
	base_sample_set(&s, "window.rate_far_pct", "%", 79.2);
	expect_sample_table_has(&s, "; MOVED: the host moved them within the window (87 to 331 ns; far apart 27% of it, where the rate read 79% of the rest's)\n");
	/* not moved: none of it */
	base_sample_set(&s, "window.xcpu_moved", "", 0);
	text = capture_sample_table(&s);
	assert_null(strstr(text, "MOVED"));
	assert_null(strstr(text, "far apart"));
	free(text);
	base_sample_release(&s);
}

/* The udp line: lost by sequence numbers beside the sockets' own drops;
 * none from a server that did not count them. */
static void test_sample_table_udp_line(void **state)
{
	static const char *const cfg[] = { "test=udp_stream" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 5.5);
	base_sample_set(&s, "udp.lost", "msg", 10410);
	base_sample_set(&s, "udp.loss_pct", "%", 1.2641);
	text = capture_sample_table(&s);
	assert_null(strstr(text, "\nudp: "));
	free(text);
	base_sample_set(&s, "udp.sock_drops", "msg", 10226);
	expect_sample_table_has(&s, "\nudp: 10410 datagrams lost (1.26%) by their sequence numbers; the receiving socket dropped 10226 (SO_MEMINFO)\n");
	base_sample_release(&s);
}

/* What the .paired row's note says of its pairs: the runs left without a
 * partner, one or more; one order in every pair; both orders. */
static void test_paired_note_counts_and_orders(void **state)
{
	struct stats_notes nt = { .pairs = 5, .unpaired = 1, .pairs_a_first = 5 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(f = open_memstream(&buf, &len));
	report_paired_note(f, &nt);
	fputc('\n', f);
	nt.unpaired = 2;
	nt.pairs_a_first = 3;
	nt.period_tested = true;
	nt.period_pct = 5.2;
	nt.period_lo_pct = 4.6;
	nt.period_hi_pct = 5.8;
	nt.period_p = 0.01;
	report_paired_note(f, &nt);
	fclose(f);
	assert_non_null(strstr(buf, "(5 pairs, 1 run without a partner)"));
	assert_non_null(strstr(buf, "A's run came first in every pair"));
	assert_non_null(strstr(buf, "a labels matrix runs each configuration in both orders"));
	assert_non_null(strstr(buf, "(5 pairs, 2 runs without a partner)"));
	assert_non_null(strstr(buf, "A ran first in 3 pairs and B in 2"));
	assert_non_null(strstr(buf, "read +5.2% [+4.6%, +5.8%] against the first (p = 0.0100)"));
	free(buf);
}

/* Why a family's headline is not called: its p and q, and how many. */
static void test_fdr_note_and_summary(void **state)
{
	struct stats_notes nt = { .fdr_n = 40, .fdr_downgraded = true, .fdr_p = 0.0022,
				  .fdr_q = 0.088 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_true(stats_notes_any(&nt));
	assert_non_null(f = open_memstream(&buf, &len));
	report_fdr_note(f, &nt);
	fputc('|', f);
	report_fdr_summary(f, 1, "; ");
	fputc('|', f);
	report_fdr_summary(f, 40, "; ");
	fclose(f);
	assert_string_equal(buf, "the headline's p = 0.0022 is q = 0.0880 among the 40 configurations compared (Benjamini-Hochberg over their headlines): not called, as among 40 configurations a p that small can come by chance||; headline verdicts take the 40 configurations as one family (Benjamini-Hochberg on their p values), so chance makes a call among them as rarely as in one configuration");
	free(buf);
}

/* A .paired row whose call the family took back says so under the table,
 * and --json marks it. */
static void test_fdr_note_of_a_paired_row(void **state)
{
	struct stats_table t;
	char *buf, *js;
	json_t *j;

	(void)state;
	fill_table(&t, "test=tcp_stream");
	snprintf(t.rows[1].metric, sizeof(t.rows[1].metric), "throughput.gbps.paired");
	t.rows[1].paired = true;
	t.rows[1].c.p = 0.0257;
	t.rows[1].q = 0.2826;
	t.rows[1].c.verdict = STATS_INCONCLUSIVE;
	t.rows[1].fdr_n = 11;
	t.rows[1].fdr_downgraded = true;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "\nnote: the throughput.gbps.paired row's own p = 0.0257 is q = 0.2826 (its p / q column) "
				    "among the 11 configurations' .paired rows (Benjamini-Hochberg): not called\n"));
	j = report_compare_json(&t);
	assert_non_null(j);
	js = json_dumps(j, JSON_COMPACT);
	assert_non_null(strstr(js, "\"fdr_downgraded\":true"));
	free(js);
	json_decref(j);
	free(buf);
	free(t.rows);
}

/* The samples left out as disturbed, and how many of them the host's steal
 * disturbed most, and how many other processes did (the busiest named). */
static void test_disturbed_note_counts_the_hosts_steal(void **state)
{
	struct stats_table t;
	char *buf;

	(void)state;
	fill_table(&t, "test=tcp_rr");
	t.notes.disturbed_b = 3;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "\nnote: left out as disturbed by foreign CPU load: 0 in A, 3 in B (--keep-disturbed pools them)\n"));
	free(buf);
	t.notes.disturbed_steal_b = 2;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "\nnote: left out as disturbed by foreign CPU load: 0 in A, 3 in B; in 2 of them mostly the host's steal "
				    "(cpu.foreign_steal_pct), which nothing in the guest can stop (--keep-disturbed pools them)\n"));
	free(buf);
	t.notes.disturbed_procs_b = 1;
	snprintf(t.notes.disturbed_busiest, sizeof(t.notes.disturbed_busiest), "stress-ng[4242]");
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "B; in 2 of them mostly the host's steal (cpu.foreign_steal_pct), which nothing in the guest can stop; "
				    "in 1 mostly other processes (cpu.foreign_tasks_pct), the busiest stress-ng[4242] (--keep-disturbed pools them)\n"));
	free(buf);
	t.notes.disturbed_steal_b = 0;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "3 in B; in 1 of them mostly other processes (cpu.foreign_tasks_pct), the busiest stress-ng[4242] (--keep"));
	free(buf);
	/* a worker kept from its CPU, counted whatever the share */
	t.notes.disturbed_starved_b = 2;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "3 in B; in 1 of them mostly other processes (cpu.foreign_tasks_pct), the busiest stress-ng[4242]; "
				    "in 2 a worker was kept from its CPU (window.starved) (--keep"));
	free(buf);
	t.notes.disturbed_procs_b = 0;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "3 in B; in 2 of them a worker was kept from its CPU (window.starved) (--keep"));
	free(buf);
	t.notes.disturbed_starved_b = 0;
	t.notes.disturbed_procs_b = 1;
	/* and a definition the samples straddle */
	t.notes.nredef = 1;
	t.notes.redef[0].what = "window.disturbed is also raised by other processes";
	t.notes.redef[0].marker = "cpu.foreign_tasks_pct";
	t.notes.redef[0].a = 0;
	t.notes.redef[0].na = 5;
	t.notes.redef[0].b = 3;
	t.notes.redef[0].nb = 3;
	buf = capture_compare_table(&t, NULL);
	assert_non_null(strstr(buf, "\nnote: measured by netregress builds that define a metric differently: window.disturbed is also raised "
				    "by other processes (the new way: 0 of 5 samples of A, 3 of 3 of B)\n"));
	free(buf);
	free(t.rows);
}

/* The counters that moved: counts that did, both ends; not a count that
 * stayed 0, nor the levels /proc/net/snmp prints among its counts. */
static void test_sample_table_lists_counts_not_levels(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 35);
	assert_int_equal(base_sample_set(&s, "snmp.Tcp.OutSegs", "count", 1234), 0);
	assert_int_equal(base_sample_set(&s, "server.snmp.Tcp.InSegs", "count", 1233), 0);
	assert_int_equal(base_sample_set(&s, "snmp.Tcp.RetransSegs", "count", 0), 0);
	assert_int_equal(base_sample_set(&s, "snmp.Ip.DefaultTTL", "count", 64), 0);
	assert_int_equal(base_sample_set(&s, "snmp.Tcp.CurrEstab", "count", 4), 0);
	assert_int_equal(base_sample_set(&s, "server.snmp.Tcp.RtoMin", "count", 200), 0);
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "counters that moved in the window"));
	assert_non_null(strstr(text, "snmp.Tcp.OutSegs "));
	assert_non_null(strstr(text, "server.snmp.Tcp.InSegs "));
	assert_null(strstr(text, "RetransSegs"));
	assert_null(strstr(text, "DefaultTTL"));
	assert_null(strstr(text, "CurrEstab"));
	assert_null(strstr(text, "RtoMin"));
	free(text);
	base_sample_release(&s);
}

/* The column of value in the metric table, on the line naming metric. */
static long value_end(const char *text, const char *metric)
{
	char key[128];
	const char *line, *eol, *p;

	snprintf(key, sizeof(key), "\n%s ", metric);
	line = strstr(text, key);
	assert_non_null(line);
	line++;
	eol = strchr(line, '\n');
	assert_non_null(eol);
	p = line + strlen(metric);
	while (p < eol && *p == ' ')
		p++;
	while (p < eol && *p != ' ')
		p++;
	return p - line;
}

static void test_sample_table_values_line_up_past_long_names(void **state)
{
	static const char *const cfg[] = { "test=tcp_rr" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "transactions.per_s", "trans/s", 10470);
	assert_int_equal(base_sample_set(&s, "latency.p50_us", "us", 96), 0);
	assert_int_equal(base_sample_set(&s, "cpu.service_demand.client_host_us_per_trans", "us",
					 54.15), 0);
	text = capture_sample_table(&s);
	assert_int_equal(value_end(text, "latency.p50_us"), value_end(text, "transactions.per_s"));
	assert_int_equal(value_end(text, "cpu.service_demand.client_host_us_per_trans"),
			 value_end(text, "transactions.per_s"));
	assert_int_equal(value_end(text, "metric"), value_end(text, "transactions.per_s"));
	free(text);
	base_sample_release(&s);
}

static void test_sample_table_says_whether_the_window_can_be_trusted(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s;
	char *text = NULL;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 35);
	/* an imported sample without the window's checks: no line */
	text = capture_sample_table(&s);
	assert_null(strstr(text, "window:"));
	free(text);
	assert_int_equal(base_sample_set(&s, "window.intervals", "", 99), 0);
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.not_steady", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.levels", "", 1), 0);
	assert_int_equal(base_sample_set(&s, "window.mixed", "", 0), 0);
	expect_sample_table_has(&s, "\nwindow: 99 intervals of 100 ms; steady, one level\n");
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 1), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 23.4), 0);
	assert_int_equal(base_sample_set(&s, "window.not_steady", "", 1), 0);
	assert_int_equal(base_sample_set(&s, "window.trend_tau", "", -0.42), 0);
	assert_int_equal(base_sample_set(&s, "window.trend_p", "", 1e-5), 0);
	assert_int_equal(base_sample_set(&s, "window.levels", "", 3), 0);
	assert_int_equal(base_sample_set(&s, "window.level_lo_pct", "%", 84.6), 0);
	assert_int_equal(base_sample_set(&s, "window.level_hi_pct", "%", 108.2), 0);
	assert_int_equal(base_sample_set(&s, "window.mixed", "", 1), 0);
	expect_sample_table_has(&s, "\nwindow: 99 intervals of 100 ms; DISTURBED: foreign CPU 23.4% of the machine; "
				"NOT STEADY: the rate trended (Mann-Kendall tau -0.42, p 1e-05); "
				"MIXED: the rate left a level and came back (3 levels, 85% to 108% of the mean)\n");
	/* the trend, with the persistence it allowed for, and a level the
	 * rate moved to and kept; then the move alone */
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.mixed", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.levels", "", 2), 0);
	assert_int_equal(base_sample_set(&s, "window.trend_rho", "", 0.61), 0);
	assert_int_equal(base_sample_set(&s, "window.level_first_pct", "%", 108.2), 0);
	assert_int_equal(base_sample_set(&s, "window.level_last_pct", "%", 84.6), 0);
	expect_sample_table_has(&s, "; NOT STEADY: the rate trended (Mann-Kendall tau -0.42, p 1e-05 with the rates' "
				"persistence 0.61 allowed for) and moved from a level at 108% of the mean to one at 85% "
				"and stayed; 2 levels, 85% to 108% of the mean;");
	assert_int_equal(base_sample_set(&s, "window.trend_p", "", 0.2), 0);
	expect_sample_table_has(&s, "; NOT STEADY: the rate moved from a level at 108% of the mean to one at 85% and stayed; 2 levels");
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 1), 0);
	/* two levels without coming back: said, not shouted */
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.not_steady", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.levels", "", 2), 0);
	assert_int_equal(base_sample_set(&s, "window.mixed", "", 0), 0);
	expect_sample_table_has(&s, "\nwindow: 99 intervals of 100 ms; 2 levels, 85% to 108% of the mean; "
				"foreign CPU 23.4% of the machine\n");
	/* under the flag, the foreign load and its steal are said */
	assert_int_equal(base_sample_set(&s, "window.levels", "", 1), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 6.7), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 5.92), 0);
	expect_sample_table_has(&s, "\nwindow: 99 intervals of 100 ms; steady, one level; "
				"foreign CPU 6.7% of the machine (5.9 points of it the host's steal)\n");
	/* the server's end when its share is the larger */
	assert_int_equal(base_sample_set(&s, "cpu.server.foreign_busy_pct", "%", 8.25), 0);
	expect_sample_table_has(&s, "; steady, one level; foreign CPU 8.2% of the server's machine\n");
	base_sample_release(&s);
}

/* What flagged a sample: the end with more foreign CPU, and the host's
 * steal in it when there was any. */
static void test_disturbed_text_names_the_end_and_the_steal(void **state)
{
	static const char *const cfg[] = { "test=tcp_rr" };
	struct base_sample s;
	char why[256];

	(void)state;
	make_sample(&s, "A", cfg, 1, "transactions.per_s", "trans/s", 1276);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 45.6), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 0), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 45.6% of the machine");
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 41.2), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 45.6% of the machine (41.2 points of it the host's steal: "
				 "the vCPUs waited while the host ran something else)");
	assert_int_equal(base_sample_set(&s, "cpu.server.foreign_busy_pct", "%", 60), 0);
	assert_int_equal(base_sample_set(&s, "cpu.server.foreign_steal_pct", "%", 0.01), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 60.0% of the server's machine");
	base_sample_release(&s);
}

/*
 * The host's steal on a request/response test whose idle vCPUs halted
 * (an idle state other than POLL entered) points at --cpu-latency 0; not
 * once the request is held, not for a stream, not when only POLL was used.
 */
static void test_stolen_text_points_halting_rr_at_cpu_latency(void **state)
{
	static const char *const rr[] = { "test=tcp_rr" };
	static const char *const held[] = { "cpu_latency=0", "test=tcp_rr" };
	static const char *const stream[] = { "test=tcp_stream" };
	static const char *const hint = "; its idle vCPUs halted, and a halted vCPU waits for its host to run it again: --cpu-latency 0 keeps them polling)";
	const struct {
		const char *const *cfg;
		const char *state;
		bool hinted;
	} cases[] = {
		{ rr, "haltpoll_idle", true }, { rr, "POLL", false },
		{ held, "haltpoll_idle", false }, { stream, "C1", false },
	};
	struct base_sample s;
	char why[512];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char name[64];

		make_sample(&s, "A", cases[i].cfg, cases[i].cfg == held ? 2 : 1,
			    "transactions.per_s", "trans/s", 13000);
		assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 4), 0);
		assert_int_equal(base_sample_set(&s, "cpu.stolen_pct", "%", 9.5), 0);
		assert_int_equal(base_sample_set(&s, "window.stolen", "", 1), 0);
		snprintf(name, sizeof(name), "cpuidle.%s.usage", cases[i].state);
		assert_int_equal(base_sample_set(&s, name, "count", 4000), 0);
		report_disturbed_text(&s, why, sizeof(why));
		assert_non_null(strstr(why, "the host stole 9.5% of the window from the test's CPUs (a contended host: its rates read low"));
		assert_true((strstr(why, hint) != NULL) == cases[i].hinted);
		base_sample_release(&s);
	}
}

/* Other processes' exact CPU: the larger measure is the share, and the
 * processes are named once they hold a point of the machine. */
static void test_disturbed_text_names_other_processes(void **state)
{
	static const char *const cfg[] = { "test=tcp_rr" };
	struct base_sample s;
	char why[512];
	double f, st;

	(void)state;
	make_sample(&s, "A", cfg, 1, "transactions.per_s", "trans/s", 13745);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 4.1), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_tasks_pct", "%", 10.5), 0);
	assert_int_equal(base_sample_env(&s, "client.collect.tasks.top", "%s",
					 "python3[1614] 0.785 s, sshd[801] 0.004 s"), 0);
	assert_false(base_sample_foreign(&s, &f, &st));
	assert_true(f == 10.5);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 10.5% of the machine (other processes 10.5%: "
				 "python3[1614] 0.785 s, sshd[801] 0.004 s)");
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 0.3), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 10.5% of the machine (other processes 10.5%: "
				 "python3[1614] 0.785 s, sshd[801] 0.004 s; 0.3 points of it the host's steal: "
				 "the vCPUs waited while the host ran something else)");
	/* the ticks' share the larger, the processes under a point: unnamed */
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 0), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 2.0), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_tasks_pct", "%", 0.4), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 2.0% of the machine (other processes 0.4%)");
	/* processes that started in the window (some may have ended in it) */
	assert_int_equal(base_sample_set(&s, "stat.processes", "count", 1), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 2.0% of the machine (other processes 0.4%; 1 process started in the window)");
	assert_int_equal(base_sample_set(&s, "stat.processes", "count", 12), 0);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 1.5), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 2.0% of the machine (other processes 0.4%; 12 processes started in the window; "
				 "1.5 points of it the host's steal: the vCPUs waited while the host ran something else)");
	assert_int_equal(base_sample_set(&s, "cpu.foreign_steal_pct", "%", 0), 0);
	/* the server's processes on its own machine */
	assert_int_equal(base_sample_set(&s, "cpu.server.foreign_busy_pct", "%", 1.0), 0);
	assert_int_equal(base_sample_set(&s, "cpu.server.foreign_tasks_pct", "%", 12), 0);
	assert_int_equal(base_sample_env(&s, "server.collect.tasks.top", "%s", "stress-ng[77] 1.200 s"), 0);
	assert_true(base_sample_foreign(&s, &f, &st));
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 12.0% of the server's machine (other processes 12.0%: "
				 "stress-ng[77] 1.200 s)");
	base_sample_release(&s);
}

/* The collectors' notes: those that say the same of keys under one prefix
 * on one line, the others each on their own, none twice. */
static void test_sample_table_groups_the_same_collector_notes(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	static const char *const ev[] = { "cycles", "instructions", "branch_misses" };
	struct base_sample s;
	char *text;

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 20);
	for (size_t i = 0; i < 3; i++) {
		char key[64];

		snprintf(key, sizeof(key), "client.collect.perf.%s", ev[i]);
		assert_int_equal(base_sample_env(&s, key, "%s", "not supported by this machine"), 0);
		/* the server's say the same but are the server's */
		snprintf(key, sizeof(key), "server.collect.perf.%s", ev[i]);
		assert_int_equal(base_sample_env(&s, key, "%s", i == 1 ? "in use" :
						 "not supported by this machine"), 0);
	}
	assert_int_equal(base_sample_env(&s, "client.collect.tasks.top", "%s", "sshd[801] 0.004 s"), 0);
	text = capture_sample_table(&s);
	assert_non_null(strstr(text, "  note: client.collect.perf.{cycles, instructions, branch_misses}: "
				     "not supported by this machine\n"));
	assert_non_null(strstr(text, "  note: server.collect.perf.{cycles, branch_misses}: "
				     "not supported by this machine\n"));
	assert_non_null(strstr(text, "  note: server.collect.perf.instructions: in use\n"));
	assert_non_null(strstr(text, "  note: client.collect.tasks.top: sshd[801] 0.004 s\n"));
	assert_null(strstr(text, "client.collect.perf.cycles:"));
	assert_int_equal(count(text, "perf.{cycles, instructions"), 1);
	free(text);
	base_sample_release(&s);
}

/* A worker kept from its CPU: the end whose worker waited longer, said in
 * the disturbed text when the wait flagged the sample, and in the window
 * line from a point on when nothing was flagged. */
static void test_disturbed_text_says_how_long_the_workers_waited(void **state)
{
	static const char *const cfg[] = { "test=tcp_stream" };
	struct base_sample s;
	char why[512];

	(void)state;
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 21.5);
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 9.6), 0);
	assert_int_equal(base_sample_set(&s, "cpu.client.runq_wait_others_pct", "%", 0.2), 0);
	assert_int_equal(base_sample_set(&s, "cpu.server.runq_wait_others_pct", "%", 18.62), 0);
	/* not flagged by the wait: the wait is not what flagged it */
	assert_int_equal(base_sample_set(&s, "window.starved", "", 0), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 9.6% of the machine");
	assert_int_equal(base_sample_set(&s, "window.starved", "", 1), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU 9.6% of the machine; a worker of the server waited for its CPU "
				 "18.6% of the window beyond the test's and the kernel's own threads");
	/* the client's the longer wait; no foreign share known */
	base_sample_release(&s);
	make_sample(&s, "A", cfg, 1, "throughput.gbps", "Gbps", 21.5);
	assert_int_equal(base_sample_set(&s, "cpu.client.runq_wait_others_pct", "%", 7.04), 0);
	assert_int_equal(base_sample_set(&s, "window.starved", "", 1), 0);
	report_disturbed_text(&s, why, sizeof(why));
	assert_string_equal(why, "foreign CPU unknown; a worker of the client waited for its CPU 7.0% of the "
				 "window beyond the test's and the kernel's own threads");
	/* not flagged: the window line says a wait of a point or more */
	assert_int_equal(base_sample_set(&s, "window.starved", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.disturbed", "", 0), 0);
	assert_int_equal(base_sample_set(&s, "window.intervals", "", 20), 0);
	assert_int_equal(base_sample_set(&s, "cpu.client.runq_wait_others_pct", "%", 3.5), 0);
	expect_sample_table_has(&s, "\nwindow: 20 intervals of 100 ms; steady; a worker of the client waited for its "
				"CPU 3.5% of the window beyond the test's and the kernel's own threads\n");
	assert_int_equal(base_sample_set(&s, "cpu.foreign_busy_pct", "%", 4.0), 0);
	assert_int_equal(base_sample_set(&s, "cpu.client.runq_wait_others_pct", "%", 0.9), 0);
	expect_sample_table_has(&s, "\nwindow: 20 intervals of 100 ms; steady; foreign CPU 4.0% of the machine\n");
	base_sample_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix_text_gives_each_distance_its_medians),
		cmocka_unit_test(test_spread_split_gives_the_cov_at_each_distance),
		cmocka_unit_test(test_spread_split_leaves_moved_windows_out),
		cmocka_unit_test(test_ticks_linear_uses_1_2_5_steps_from_zero),
		cmocka_unit_test(test_ticks_linear_widens_a_single_value),
		cmocka_unit_test(test_ticks_linear_rejects_bad_ranges),
		cmocka_unit_test(test_ticks_log_decades_with_1_2_5_when_narrow),
		cmocka_unit_test(test_ticks_map_linear_and_log),
		cmocka_unit_test(test_fmt_si_tick_labels),
		cmocka_unit_test(test_fmt_num_and_param),
		cmocka_unit_test(test_html_escape_markup_quotes_and_controls),
		cmocka_unit_test(test_md_escape_table_cells),
		cmocka_unit_test(test_doc_rejects_duplicates_and_mixed_keys),
		cmocka_unit_test(test_charts_find_axes_and_their_followers),
		cmocka_unit_test(test_compare_table_columns_line_up),
		cmocka_unit_test(test_series_table_rows_cells_and_gaps),
		cmocka_unit_test(test_corner_names_what_the_called_configurations_share),
		cmocka_unit_test(test_compare_per_unit_rows_are_compared_per_second),
		cmocka_unit_test(test_compare_notes_congestion_control),
		cmocka_unit_test(test_compare_table_config_line_without_the_common_part),
		cmocka_unit_test(test_env_changes_name_what_differs),
		cmocka_unit_test(test_env_changes_later_families_need_both_sides),
		cmocka_unit_test(test_env_within_counts_values),
		cmocka_unit_test(test_env_tally_one_entry),
		cmocka_unit_test(test_charts_order_numbers_then_words),
		cmocka_unit_test(test_md_of_a_hand_built_table),
		cmocka_unit_test(test_html_marks_charts_for_counting),
		cmocka_unit_test(test_html_draws_each_samples_rates_within_the_window),
		cmocka_unit_test(test_html_window_lines_of_long_windows_are_averaged),
		cmocka_unit_test(test_explain_admits_shares_and_rates_not_relatives),
		cmocka_unit_test(test_sample_table_shows_buffers_at_the_end),
		cmocka_unit_test(test_sample_table_tcp_line),
		cmocka_unit_test(test_sample_table_tcp_line_cc_asked),
		cmocka_unit_test(test_sample_table_tcp_rr_line),
		cmocka_unit_test(test_sample_table_cpus_line_ipis),
		cmocka_unit_test(test_sample_table_cpus_line_moved),
		cmocka_unit_test(test_sample_table_udp_line),
		cmocka_unit_test(test_paired_note_counts_and_orders),
		cmocka_unit_test(test_fdr_note_and_summary),
		cmocka_unit_test(test_fdr_note_of_a_paired_row),
		cmocka_unit_test(test_disturbed_note_counts_the_hosts_steal),
		cmocka_unit_test(test_sample_table_lists_counts_not_levels),
		cmocka_unit_test(test_sample_table_values_line_up_past_long_names),
		cmocka_unit_test(test_disturbed_text_names_the_end_and_the_steal),
		cmocka_unit_test(test_disturbed_text_says_how_long_the_workers_waited),
		cmocka_unit_test(test_disturbed_text_names_other_processes),
		cmocka_unit_test(test_sample_table_groups_the_same_collector_notes),
		cmocka_unit_test(test_stolen_text_points_halting_rr_at_cpu_latency),
		cmocka_unit_test(test_sample_table_says_whether_the_window_can_be_trusted),
		cmocka_unit_test(test_explain_lists_what_went_with_the_headline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
