// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the compare table of two labels' samples, built and printed as compare prints it. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "base/sample.h"
#include "fuzz.h"
#include "report/report.h"
#include "stats/table.h"

/*
 * `netregress compare A B` builds its table from whatever a store holds,
 * and a store holds whatever `import` accepted (base_sample_from_json in
 * base/sample_json.c): any finite metric value, any start time, a window
 * series of any finite rates with probe figures > 0 or missing (NaN). The
 * input generates such samples, a byte reader giving 0 once it runs out:
 *
 *   shape (bit 0: tcp_rr, else tcp_stream; bits 1-2: start order, one
 *   time for all, A's runs then B's, rounds, or from the bytes; bit 3:
 *   host.xcpu_ns; bit 4: window series; bit 5: other metrics; bit 6:
 *   environment entries; bit 7: window flags), variant (the second
 *   table's options, whether the two are adjusted as a family, whether
 *   metric order differs between samples), then 1 to 12 samples a side,
 *   each: its headline, a start byte, and what the shape asks for.
 *
 * A value is one tag byte: below 0x80 a small integer (ties, zeros), up
 * to 0xbf an ordinary figure near 100, up to 0xef one of the edges (0,
 * -0, negatives, +-1e300, +-DBL_MAX, subnormals, 1e-300), else the next 8
 * bytes as a double (not finite: the metric is absent, as import would
 * leave it). Promised (stats/table.h, stats/verdict.h, report/report.h):
 *
 * - stats_table_build() gives 0 (or -ENOMEM) for any samples import takes;
 * - every row's p and q are NaN or in [0, 1], q >= p (BH never lowers a
 *   p), a shift lies within its interval, and the family is no larger than
 *   the rows it came from; the same after stats_tables_fdr();
 * - the same samples give the same headline p and verdict (the wild
 *   bootstrap draws from a fixed seed);
 * - the JSON document is made and can be written, and the text table has
 *   no control character but the newline (the CSV neither).
 */

#define MAX_SIDE 12
#define MAX_TICKS 67
#define MAX_TEXT 200

struct input {
	const uint8_t *d, *end;
};

/* The next byte, 0 once the input ran out: a short input still makes
 * samples, so that every input reaches the table. */
static uint8_t in_byte(struct input *in)
{
	return in->d < in->end ? *in->d++ : 0;
}

/* A value as documented above; false when absent (not finite). */
static bool in_value(struct input *in, double *v)
{
	static const double edge[12] = {
		0.0, -0.0, -1.0, 1e300, -1e300, 4.9406564584124654e-324,
		1.1125369292536007e-308, DBL_MAX, -DBL_MAX, 1e-300, 1e15, -250.5,
	};
	uint8_t tag = in_byte(in);

	if (tag < 0x80) {
		*v = (double)(tag % 16);
	} else if (tag < 0xc0) {
		*v = 100 + (tag & 0x3f) * 0.25;
	} else if (tag < 0xf0) {
		*v = edge[(tag - 0xc0) % 12];
	} else {
		uint8_t raw[8];

		for (size_t i = 0; i < sizeof(raw); i++)
			raw[i] = in_byte(in);
		memcpy(v, raw, sizeof(*v));
	}
	return isfinite(*v);
}

/* Printable ASCII from the bytes, n of them: an env value import takes. */
static void in_text(struct input *in, char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(0x20 + in_byte(in) % 95);
	buf[n] = '\0';
}

/* The metrics beside the headline that steer a path of the table: the
 * counters' and shares' floors, host_notes, per_second_rows, the
 * definition markers, the foreign CPU of a disturbed sample. */
static const struct {
	const char *name, *unit;
} others[] = {
	{ "cpu.client.busy_pct", "%" },
	{ "cpu.server.busy_pct", "%" },
	{ "tcp.retransmits", "count" },
	{ "snmp.Tcp.OutSegs", "count" },
	{ "tcp.busy_pct", "%" },
	{ "host.speed", "op/us" },
	{ "host.speed.core", "op/us" },
	{ "cpu.service_demand.per_mb", "us" },
	{ "cpu.client.busy_per_trans", "us" },
	{ "latency.p99_us", "us" },
	{ "profile.tcp_sendmsg", "%" },
	{ "sockbuf.client_sndbuf", "B" },
	{ "window.trend_rho", "" },
	{ "tasks.exited", "count" },
};
#define NOTHERS (sizeof(others) / sizeof(others[0]))

struct metric {
	const char *name, *unit;
	double value;
};

struct gen {
	uint8_t shape, variant;
	const char *test, *headline, *unit;
};

/* A tiny deterministic noise in [-1, 1] for tick t of a window. */
static double noise(uint8_t seed, size_t t)
{
	uint32_t x = (uint32_t)seed * 2654435761u + (uint32_t)t * 40503u + 1;

	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return (double)(x % 2001) / 1000 - 1;
}

/*
 * A window of 4 to 67 ticks: the round trip near (80 ns) then far (a step
 * of 1.49 to 4.4x) or the other way, the rate lower where far, noise, NaN
 * round trips every m-th tick, sometimes one odd rate from the bytes and
 * the speed probe beside it.
 */
static int gen_series(struct input *in, const struct gen *g, struct base_sample *s,
		      double head)
{
	static const double far_ratio[4] = { 4.375, 1.5, 1.49, 2.0 };
	double rate[MAX_TICKS], x[MAX_TICKS], speed[MAX_TICKS], base, odd = 0;
	uint8_t b0 = in_byte(in), b1 = in_byte(in), b2 = in_byte(in), b3 = in_byte(in),
		b4 = in_byte(in);
	size_t n = 4 + (b0 & 0x3f), step_at = b1 % n, nan_every = b2 & 7;
	double amp = (double)((b2 >> 3) & 7) / 100, drop = (double)(b3 & 0x3f) / 100;
	bool odd_ok = (b3 & 0x80) && in_value(in, &odd);
	int ret;

	if (b0 & 0x80)
		return 0;
	base = isfinite(head) && head > 0 && head < 1e100 ? head : 10;
	for (size_t t = 0; t < n; t++) {
		bool far = !(b1 & 0x80) && ((t >= step_at) != !!(b3 & 0x40));
		bool gap = nan_every && t % nan_every == 0;

		x[t] = gap ? NAN : 80 * (far ? far_ratio[b4 & 3] : 1) * (1 + 0.02 * noise(b4, t));
		rate[t] = base * (far ? 1 - drop : 1) * (1 + amp * noise(b4 ^ 0x5a, t));
		speed[t] = gap ? NAN : 1000 * (1 + 0.01 * noise(b4 ^ 0xa5, t));
	}
	if (odd_ok)
		rate[b4 % n] = odd;
	ret = base_sample_set_series(s, g->unit, b0 & 0x40 ? 3600 : 0.1, rate, n, 1);
	if (!ret && !(b2 & 0x80))
		ret = base_sample_set_series_probe(s, BASE_TICK_XCPU, x, n);
	if (!ret && (b2 & 0x40))
		ret = base_sample_set_series_probe(s, BASE_TICK_SPEED, speed, n);
	return ret;
}

/* The collect.tasks.top shapes top_name_len() reads, or bytes. */
static void gen_top(struct input *in, uint8_t kind, char *buf, size_t len)
{
	if (kind == 1)
		snprintf(buf, len, "stress-ng[4242] 1.180 s, kworker/0:1[12] 0.200 s");
	else if (kind == 2)
		snprintf(buf, len, "true (3683 ended) 2.307 s, sh[4968, ended] 0.1 s");
	else
		in_text(in, buf, in_byte(in) % (len < 80 ? len - 1 : 79));
}

static int gen_env(struct input *in, struct base_sample *s)
{
	static const char *const cc[4] = { NULL, "cubic", "bbr", "reno" };
	uint8_t e = in_byte(in);
	char text[MAX_TEXT + 1];
	int ret;

	if ((ret = base_sample_env(s, "client.build", "nr-%u", e & 1)) ||
	    (ret = base_sample_env(s, "client.kernel", "6.1.%u", (e >> 3) & 1)))
		return ret;
	if (e & 0x80) {
		in_text(in, text, in_byte(in) % (MAX_TEXT + 1));
		if ((ret = base_sample_env(s, "tcp.cc", "%s", text)))
			return ret;
	} else if (cc[(e >> 1) & 3] && (ret = base_sample_env(s, "tcp.cc", "%s", cc[(e >> 1) & 3]))) {
		return ret;
	}
	if ((e >> 4) & 3) {
		gen_top(in, (e >> 4) & 3, text, sizeof(text));
		if ((ret = base_sample_env(s, "client.collect.tasks.top", "%s", text)))
			return ret;
	}
	if (e & 0x40) {
		gen_top(in, in_byte(in) % 3 + 1, text, sizeof(text));
		ret = base_sample_env(s, "server.collect.tasks.top", "%s", text);
	}
	return ret;
}

static void add(struct metric *m, size_t *n, const char *name, const char *unit, double v)
{
	m[*n].name = name;
	m[*n].unit = unit;
	m[(*n)++].value = v;
}

/* The window's flags and, with a disturbed one, what disturbed it: the
 * foreign CPU of each end and its steal. */
static void gen_flags(struct input *in, struct metric *m, size_t *n)
{
	/* bit k of the byte sets flag k */
	static const char *const flag[7] = {
		"window.xcpu_moved", "window.disturbed", "window.not_steady", "window.mixed",
		"window.stolen",     "window.starved",   "window.host_trend",
	};
	uint8_t f = in_byte(in);
	double v;

	for (size_t k = 0; k < 7; k++)
		if (f & 1u << k)
			add(m, n, flag[k], "", 1);
	if (f & 0x08) {
		/* a mixed window's levels */
		if (in_value(in, &v))
			add(m, n, "window.level_hi_pct", "%", v);
		if (in_value(in, &v))
			add(m, n, "window.level_lo_pct", "%", v);
	}
	if (f & 0x80) {
		uint8_t c = in_byte(in), sv = in_byte(in);

		add(m, n, "cpu.foreign_busy_pct", "%", (c & 15) * 5.0);
		add(m, n, "cpu.foreign_tasks_pct", "%", ((c >> 4) & 3) * 10.0);
		add(m, n, "cpu.foreign_steal_pct", "%", ((c >> 6) & 3) * 10.0);
		add(m, n, "cpu.server.foreign_busy_pct", "%", (sv & 15) * 5.0);
		add(m, n, "cpu.server.foreign_tasks_pct", "%", ((sv >> 4) & 3) * 10.0);
		add(m, n, "cpu.server.foreign_steal_pct", "%", ((sv >> 6) & 3) * 10.0);
	}
}

/* The round trip of the sample: none, near, far, at 1.5x of near, or any
 * finite value from the bytes. */
static bool gen_xcpu(struct input *in, double *v)
{
	uint8_t x = in_byte(in);

	if (x == 0xff)
		return in_value(in, v);
	switch (x & 3) {
	case 1:
		*v = 80 + ((x >> 2) & 7);
		return true;
	case 2:
		*v = 350 + ((x >> 2) & 15);
		return true;
	case 3:
		*v = 120 + (x >> 2);
		return true;
	default:
		return false;
	}
}

/* The start of sample i of its side (b: of B) in the order the shape asks for. */
static int64_t gen_start(const struct gen *g, uint8_t k, bool b, size_t i, size_t na)
{
	switch ((g->shape >> 1) & 3) {
	case 1:
		return 1000 * (int64_t)(b ? na + i : i);
	case 2:
		return 2000 * (int64_t)i + ((k & 1) != b ? 1000 : 0);
	case 3:
		if (k < 0xf0)
			return k;
		return k & 1 ? INT64_MAX - (k & 7) : INT64_MIN + (k & 7);
	default:
		return 0;
	}
}

static int gen_sample(struct input *in, const struct gen *g, struct base_sample *s, bool b,
		      size_t i, size_t na)
{
	struct metric m[NOTHERS + 24];
	size_t n = 0, rot;
	double head, v;
	bool has_head;
	uint16_t absent;
	int ret;

	base_sample_init(s);
	snprintf(s->label, sizeof(s->label), "%s", b ? "B" : "A");
	snprintf(s->id, sizeof(s->id), "%c%zu", b ? 'b' : 'a', i);
	snprintf(s->config_key, sizeof(s->config_key), "msg=64K test=%s", g->test);
	if ((ret = base_sample_param(s, "msg", "64K")) ||
	    (ret = base_sample_param(s, "test", "%s", g->test)))
		return ret;
	has_head = in_value(in, &head);
	if (has_head)
		add(m, &n, g->headline, g->unit, head);
	s->wall_start_ns = gen_start(g, in_byte(in), b, i, na);
	if ((g->shape & 0x08) && gen_xcpu(in, &v))
		add(m, &n, "host.xcpu_ns", "ns", v);
	if (g->shape & 0x80)
		gen_flags(in, m, &n);
	if (g->shape & 0x20) {
		/* two statements: the order of the bytes must not be the compiler's */
		absent = in_byte(in);
		absent |= (uint16_t)(in_byte(in) << 8);
		/* a gauge every sample reads the same: never tested, never shown */
		add(m, &n, "sysctl.tcp_rmem_max", "B", 6291456);
		for (size_t k = 0; k < NOTHERS; k++)
			if (!(absent & 1u << k) && in_value(in, &v))
				add(m, &n, others[k].name, others[k].unit, v);
	}
	/* samples of other builds list their metrics in another order */
	rot = g->variant & 0x80 ? in_byte(in) % (n ? n : 1) : 0;
	for (size_t k = 0; k < n; k++) {
		const struct metric *mk = &m[(k + rot) % n];

		if ((ret = base_sample_set(s, mk->name, mk->unit, mk->value)))
			return ret;
	}
	if ((g->shape & 0x40) && (ret = gen_env(in, s)))
		return ret;
	if (g->shape & 0x10)
		ret = gen_series(in, g, s, has_head ? head : NAN);
	return ret;
}

static bool in_unit(double x)
{
	return isnan(x) || (x >= 0 && x <= 1);
}

static void check_table(const struct stats_table *t)
{
	size_t tested = 0;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct stats_row *r = &t->rows[i];
		const struct stats_compare *c = &r->c;

		FUZZ_CHECK(in_unit(c->p));
		FUZZ_CHECK(in_unit(r->q));
		if (!isnan(c->p) && !isnan(r->q))
			FUZZ_CHECK(r->q >= c->p);
		if (!isnan(c->shift_pct) && !isnan(c->shift_lo_pct) && !isnan(c->shift_hi_pct))
			FUZZ_CHECK(c->shift_lo_pct <= c->shift_pct && c->shift_pct <= c->shift_hi_pct);
		tested += r->tested;
	}
	FUZZ_CHECK(t->family <= t->nrows + t->hidden);
	FUZZ_CHECK(tested <= t->family);
}

/* Text that a terminal shows as it is: lines, no control character. */
static bool plain_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f) {
			fprintf(stderr, "control character 0x%02x at %zu in: %.*s\n",
				(unsigned char)s[i], i, (int)len, s);
			return false;
		}
	return true;
}

/* The table as compare --json, compare and compare --csv print it. */
static void render(const struct stats_table *t, const struct base_sample *a,
		   const struct base_sample *b, const char *common)
{
	char *text = NULL, *dump;
	size_t len = 0;
	json_t *j;
	FILE *m;

	j = report_compare_json(t);
	FUZZ_CHECK(j);
	dump = json_dumps(j, JSON_COMPACT);
	FUZZ_CHECK(dump);
	free(dump);
	json_decref(j);

	m = open_memstream(&text, &len);
	FUZZ_CHECK(m);
	report_env_diff_text(m, a, b, "A", "B");
	report_compare_table(m, t, "A", "B", common);
	FUZZ_CHECK(fclose(m) == 0);
	FUZZ_CHECK(plain_text(text, len));
	free(text);

	m = open_memstream(&text, &len);
	FUZZ_CHECK(m);
	report_compare_csv_header(m);
	report_compare_csv(m, t, "A", "B");
	FUZZ_CHECK(fclose(m) == 0);
	FUZZ_CHECK(plain_text(text, len));
	free(text);
}

/* stats_table_build() may run out of memory, nothing else: say what it
 * returned when it did not keep that promise. */
static bool built(int ret)
{
	if (ret && ret != -ENOMEM)
		fprintf(stderr, "stats_table_build: %s\n", strerror(-ret));
	return !ret || ret == -ENOMEM;
}

static bool same_p(double x, double y)
{
	return (isnan(x) && isnan(y)) || x == y;
}

/* The second table's options: compare's flags, byte-chosen. */
static void variant_opts(uint8_t v, struct stats_table_opts *o)
{
	static const double alpha[4] = { 0.05, 0.01, 0.5, 1e-6 };
	static const double min_change[4] = { 2, 0, 1000, 10 };

	stats_table_opts_init(o);
	o->keep_disturbed = v & 0x01;
	o->all = v & 0x02;
	o->cmp.alpha = alpha[(v >> 2) & 3];
	o->cmp.min_change_pct = min_change[(v >> 4) & 3];
	o->other_min_change_pct = o->cmp.min_change_pct;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, data + size };
	struct base_sample sa[MAX_SIDE], sb[MAX_SIDE];
	const struct base_sample *pa[MAX_SIDE], *pb[MAX_SIDE];
	struct stats_table t1, t2, tv;
	struct stats_table *both[2] = { &t1, &tv };
	const struct stats_row *h1, *h2;
	struct stats_table_opts o, ov;
	size_t na, nb, made = 0;
	struct gen g;
	int ret = 0;

	g.shape = in_byte(&in);
	g.variant = in_byte(&in);
	na = 1 + in_byte(&in) % MAX_SIDE;
	nb = 1 + in_byte(&in) % MAX_SIDE;
	g.test = g.shape & 1 ? "tcp_rr" : "tcp_stream";
	g.headline = stats_headline_metric(g.test);
	g.unit = g.shape & 1 ? "tps" : "Gbps";
	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	memset(&tv, 0, sizeof(tv));

	for (; made < na + nb && !ret; made++) {
		bool b = made >= na;
		struct base_sample *s = b ? &sb[made - na] : &sa[made];

		ret = gen_sample(&in, &g, s, b, b ? made - na : made, na);
		if (b)
			pb[made - na] = s;
		else
			pa[made] = s;
	}
	if (ret) {
		FUZZ_CHECK(ret == -ENOMEM);
		goto out;
	}

	stats_table_opts_init(&o);
	ret = stats_table_build(pa, na, pb, nb, &o, &t1);
	FUZZ_CHECK(built(ret));
	if (ret)
		goto out;
	check_table(&t1);
	render(&t1, pa[0], pb[0], g.variant & 0x40 ? "msg=64K" : NULL);

	/* the same samples, the same call: the bootstrap's seed is fixed */
	ret = stats_table_build(pa, na, pb, nb, &o, &t2);
	FUZZ_CHECK(built(ret));
	if (ret)
		goto out;
	h1 = stats_table_headline(&t1);
	h2 = stats_table_headline(&t2);
	FUZZ_CHECK(!h1 == !h2);
	if (h1) {
		FUZZ_CHECK(same_p(h1->c.p, h2->c.p));
		FUZZ_CHECK(h1->c.verdict == h2->c.verdict);
	}
	FUZZ_CHECK(t1.nrows == t2.nrows && t1.hidden == t2.hidden);

	variant_opts(g.variant, &ov);
	ret = stats_table_build(pa, na, pb, nb, &ov, &tv);
	FUZZ_CHECK(built(ret));
	if (ret)
		goto out;
	check_table(&tv);
	render(&tv, pa[0], pb[0], NULL);

	/* two configurations of one comparison: their headlines as a family */
	if (g.variant & 0x40) {
		ret = stats_tables_fdr(both, 2, &o);
		FUZZ_CHECK(ret == 0 || ret == -ENOMEM);
		if (ret)
			goto out;
		check_table(&t1);
		check_table(&tv);
		render(&t1, pa[0], pb[0], NULL);
	}
out:
	stats_table_release(&t1);
	stats_table_release(&t2);
	stats_table_release(&tv);
	for (size_t i = 0; i < made; i++)
		base_sample_release(i < na ? &sa[i] : &sb[i - na]);
	return 0;
}
