// SPDX-License-Identifier: GPL-2.0-only
/* One sample as a terminal table or as the JSON result document. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/parse.h"
#include "base/time.h"
#include "collect/counters.h"
#include "job/config.h"
#include "report/report.h"
#include "stats/guard.h"
#include "stats/levels.h"

static void fmt_buf(uint64_t v, char *buf, size_t len)
{
	if (v)
		base_format_size(v, buf, len);
	else
		snprintf(buf, len, "-");
}

/* A buffer size for a table column: exact when it is a whole number of
 * K or M (what was asked for), else to one decimal (what autotuning
 * reached, such as 2004657 bytes: 1.9M). */
static void fmt_size_short(uint64_t v, char *buf, size_t len)
{
	if (!v || !(v & 1023) || v < 1024)
		fmt_buf(v, buf, len);
	else if (v >= 1024 * 1024)
		snprintf(buf, len, "%.1fM", (double)v / (1024 * 1024));
	else
		snprintf(buf, len, "%.1fK", (double)v / 1024);
}

/* A socket buffer as the run ended (what autotuning reached), with a '*'
 * when that is not what it was at the start; the start when no end was
 * recorded. Returns whether it changed. */
static bool fmt_sockbuf(uint64_t start, uint64_t end, char *buf, size_t len)
{
	char v[BASE_SIZE_STRLEN];

	fmt_size_short(end ? end : start, v, sizeof(v));
	snprintf(buf, len, "%s%s", v, end && end != start ? "*" : "");
	return end && end != start;
}

/* Metrics from the collectors get sections of their own. */
static bool collected(const char *name)
{
	static const char *const prefixes[] = { "snmp.", "snmp6.", "netstat.",
						"softirq.", "irq.", "stat.", "perf.",
						"profile.", "server." };

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(*prefixes); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* The length of key up to its last '.', or 0 when it has none. */
static size_t key_dir_len(const char *key)
{
	const char *dot = strrchr(key, '.');

	return dot ? (size_t)(dot - key) : 0;
}

/* Whether env notes a and b say the same of keys that differ only after
 * their last '.' (client.collect.perf.cycles and ...perf.instructions). */
static bool same_note(const struct sample_kv *a, const struct sample_kv *b)
{
	size_t n = key_dir_len(a->key);

	return n && n == key_dir_len(b->key) && !strncmp(a->key, b->key, n) &&
	       !strcmp(a->val, b->val);
}

/* The collectors' notes, one line for those that say the same of keys
 * under one prefix: "note: client.collect.perf.{cycles, instructions}:
 * not supported by this machine". */
static void print_collect_notes(FILE *out, const struct base_sample *s)
{
	for (size_t i = 0; i < s->nenv; i++) {
		const struct sample_kv *e = &s->env[i];
		size_t dir = key_dir_len(e->key), more = 0;
		bool said = false;

		if (!strstr(e->key, ".collect."))
			continue;
		/* a key under the same prefix is a collector's note too */
		for (size_t j = 0; j < i && !said; j++)
			said = same_note(&s->env[j], e);
		if (said)
			continue;
		for (size_t j = i + 1; j < s->nenv; j++)
			more += same_note(e, &s->env[j]);
		if (!more) {
			fprintf(out, "  note: %s: %s\n", e->key, e->val);
			continue;
		}
		fprintf(out, "  note: %.*s.{%s", (int)dir, e->key, e->key + dir + 1);
		for (size_t j = i + 1; j < s->nenv; j++)
			if (same_note(e, &s->env[j]))
				fprintf(out, ", %s", s->env[j].key + dir + 1);
		fprintf(out, "}: %s\n", e->val);
	}
}

/* The kernel and perf counters that moved, two to a line: not the levels
 * /proc/net/snmp prints among them (Ip.DefaultTTL, Tcp.RtoMin, ...). */
static void print_counters(FILE *out, const struct base_sample *s)
{
	int col = 0, n = 0;

	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct sample_metric *m = &s->metrics[i];
		const char *local = strncmp(m->name, "server.", 7) ? m->name : m->name + 7;

		if (!collected(m->name) || !strncmp(m->name, "profile.", 8) ||
		    m->value == 0 || collect_counter_is_gauge(local))
			continue;
		if (!n++)
			fprintf(out, "\ncounters that moved in the window (%s):\n",
				"kernel, softirq, perf; server.* from the server's host");
		fprintf(out, "  %-44s %12.4g%s", m->name, m->value,
			col ? "\n" : "");
		col = !col;
	}
	if (col)
		fputc('\n', out);
	print_collect_notes(out, s);
}

static int by_value_desc(const void *a, const void *b)
{
	const struct sample_metric *x = *(const struct sample_metric *const *)a;
	const struct sample_metric *y = *(const struct sample_metric *const *)b;

	return (y->value > x->value) - (y->value < x->value);
}

/* The top of the kernel profile, when --profile ran: each symbol's self
 * share and, where the call chains gave it, its children share (the
 * samples with it anywhere on the stack). */
static void print_profile(FILE *out, const struct base_sample *s)
{
	const struct sample_metric **rows = malloc((s->nmetrics ? s->nmetrics : 1) * sizeof(*rows));
	char name[160];
	size_t n = 0;

	if (!rows)
		return;
	for (size_t i = 0; i < s->nmetrics; i++)
		if (!strncmp(s->metrics[i].name, "profile.self.", 13))
			rows[n++] = &s->metrics[i];
	if (n) {
		qsort(rows, n, sizeof(*rows), by_value_desc);
		fprintf(out, "\nprofile: top symbols by self share of samples on the test's CPUs, and children (on the stack)\n");
		if (base_sample_get(s, "profile.charged_pct"))
			fprintf(out, "(%.1f%% fell due while interrupts were off and are counted at the function that turned them back on)\n",
				base_sample_value(s, "profile.charged_pct"));
	}
	for (size_t i = 0; i < n && i < 25; i++) {
		const struct sample_metric *c;

		snprintf(name, sizeof(name), "profile.children.%s", rows[i]->name + 13);
		c = base_sample_get(s, name);
		if (c)
			fprintf(out, "  %6.2f%%  %6.2f%%  %s\n", rows[i]->value, c->value, rows[i]->name + 13);
		else
			fprintf(out, "  %6.2f%%  %7s  %s\n", rows[i]->value, "-", rows[i]->name + 13);
	}
	free(rows);
}

/* Append one part of a parenthesis to buf (n bytes used of len): " (" before
 * the first, "; " before the others. */
static void part(char *buf, size_t len, size_t *n, int *parts, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
static void part(char *buf, size_t len, size_t *n, int *parts, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (*n >= len)
		return;
	k = snprintf(buf + *n, len - *n, "%s", (*parts)++ ? "; " : " (");
	*n += k > 0 ? (size_t)k : 0;
	if (*n >= len)
		return;
	va_start(ap, fmt);
	k = vsnprintf(buf + *n, len - *n, fmt, ap);
	va_end(ap);
	*n += k > 0 ? (size_t)k : 0;
}

/* "foreign CPU 10.0% of the machine (other processes 9.9%: python3[1614]
 * 0.785 s, ...; 3 processes started in the window; 0.1 points of it the
 * host's steal<why>)" of the end with more (a sample from before the
 * other processes were counted has no part on them); false when the
 * sample has none. */
static bool foreign_text(const struct base_sample *s, const char *why, char *buf, size_t len)
{
	double f, st, tasks, forks;
	bool server = base_sample_foreign(s, &f, &st);
	const char *top = base_sample_env_get(s, server ? "server.collect.tasks.top" :
							  "client.collect.tasks.top", NULL);
	size_t n;
	int parts = 0;

	if (isnan(f))
		return false;
	tasks = base_sample_value(s, server ? "cpu.server.foreign_tasks_pct" : "cpu.foreign_tasks_pct");
	forks = base_sample_value(s, server ? "server.stat.processes" : "stat.processes");
	snprintf(buf, len, "foreign CPU %.1f%% of the %smachine", f, server ? "server's " : "");
	n = strlen(buf);
	/* the processes by name once they hold a point of the machine */
	if (!isnan(tasks))
		part(buf, len, &n, &parts, "other processes %.1f%%%s%s", tasks,
		     tasks >= 1 && top ? ": " : "", tasks >= 1 && top ? top : "");
	/* one that started and ended in the window is not among them */
	if (forks >= 1)
		part(buf, len, &n, &parts, "%.0f process%s started in the window", forks,
		     forks >= 2 ? "es" : "");
	if (st >= 0.05)
		part(buf, len, &n, &parts, "%.1f points of it the host's steal%s", st, why);
	if (parts && n + 1 < len)
		snprintf(buf + n, len - n, ")");
	return true;
}

/* "; a worker of the server waited for its CPU 18.6% of the window beyond
 * the test's and the kernel's own threads" appended to buf, for the end
 * whose worker waited longer, from at least min_pct. */
static void starved_text(const struct base_sample *s, double min_pct, char *buf, size_t len)
{
	double c = base_sample_value(s, "cpu.client.runq_wait_others_pct");
	double v = base_sample_value(s, "cpu.server.runq_wait_others_pct");
	bool server = !isnan(v) && (isnan(c) || v > c);
	double w = server ? v : c;
	size_t n = strlen(buf);

	if (!(w >= min_pct) || n >= len)
		return;
	snprintf(buf + n, len - n, "%sa worker of the %s waited for its CPU %.1f%% of the window beyond the test's and the kernel's own threads",
		 n ? "; " : "", server ? "server" : "client", w);
}

/*
 * Whether a request/response sample ran with the idle CPUs free to leave
 * polling: no CPU latency request held (cpu_latency) and an idle state
 * other than POLL entered in the window. A vCPU that halts there is woken
 * by its host, whose delay is steal; polling keeps it running.
 */
static bool rr_halted(const struct base_sample *s)
{
	struct base_err err = { "" };
	enum job_test t;

	if (job_test_parse(base_sample_param_get(s, "test", ""), &t, &err) ||
	    job_test_kind(t) == JOB_KIND_STREAM)
		return false;
	if (base_sample_param_get(s, "cpu_latency", NULL))
		return false;
	for (size_t i = 0; i < s->nmetrics; i++) {
		const char *m = s->metrics[i].name, *dot;

		if (strncmp(m, "cpuidle.", 8) || strncmp(m + 8, "POLL.", 5) == 0)
			continue;
		dot = strchr(m + 8, '.');
		if (dot && !strcmp(dot, ".usage") && s->metrics[i].value > 0)
			return true;
	}
	return false;
}

/* "; the host stole 3.4% of the window from the test's CPUs" appended
 * to buf, from at least min_pct (cpu.stolen_pct). */
static void stolen_text(const struct base_sample *s, double min_pct, char *buf, size_t len)
{
	double v = base_sample_value(s, "cpu.stolen_pct");
	size_t n = strlen(buf);

	if (!(v >= min_pct) || n >= len)
		return;
	snprintf(buf + n, len - n, "%sthe host stole %.1f%% of the window from the test's CPUs (a contended host: its rates read low%s)",
		 n ? "; " : "", v,
		 rr_halted(s) ? "; its idle vCPUs halted, and a halted vCPU waits for its host to run it again: --cpu-latency 0 keeps them polling" : "");
}

void report_disturbed_text(const struct base_sample *s, char *buf, size_t len)
{
	if (!foreign_text(s, ": the vCPUs waited while the host ran something else", buf, len))
		snprintf(buf, len, "foreign CPU unknown");
	if (base_sample_value(s, "window.starved") == 1)
		starved_text(s, 0, buf, len);
	if (base_sample_value(s, "window.stolen") == 1)
		stolen_text(s, 0, buf, len);
}

/* Why a window is not steady: its trend, a level it moved to and kept,
 * or both (stats_steady). */
static void print_not_steady(FILE *out, const struct base_sample *s)
{
	double first = base_sample_value(s, "window.level_first_pct"), last = base_sample_value(s, "window.level_last_pct");
	double rho = base_sample_value(s, "window.trend_rho");
	bool trend = base_sample_value(s, "window.trend_p") < STATS_STEADY_P &&
		     fabs(base_sample_value(s, "window.trend_tau")) > STATS_STEADY_TAU;
	bool moved = fabs(last - first) >= STATS_LEVEL_PCT;

	fputs("; NOT STEADY: the rate", out);
	if (trend || !moved) {
		fprintf(out, " trended (Mann-Kendall tau %+.2f, p %.2g", base_sample_value(s, "window.trend_tau"),
			base_sample_value(s, "window.trend_p"));
		if (!isnan(rho) && rho > 0)
			fprintf(out, " with the rates' persistence %.2f allowed for", rho);
		fputc(')', out);
	}
	if (moved)
		fprintf(out, "%s moved from a level at %.0f%% of the mean to one at %.0f%% and stayed",
			trend ? " and" : "", first, last);
	if (base_sample_value(s, "window.host_trend") == 1)
		fputs(", and the host's speed with it", out);
}

/*
 * One line on whether the window can be trusted as it is: foreign load,
 * a trend, levels the rate left and came back to. Nothing for a sample
 * without the window's checks (an import from an older version).
 */
static void print_window(FILE *out, const struct base_sample *s)
{
	double n = base_sample_value(s, "window.intervals"), levels = base_sample_value(s, "window.levels");

	if (isnan(n))
		return;
	fprintf(out, "\nwindow: %.0f intervals of 100 ms", n);
	if (!isnan(base_sample_value(s, "window.rate_cov_pct")))
		fprintf(out, " (their rates %.1f%% cov)", base_sample_value(s, "window.rate_cov_pct"));
	if (base_sample_value(s, "window.disturbed") == 1) {
		char why[512];

		report_disturbed_text(s, why, sizeof(why));
		fprintf(out, "; DISTURBED: %s", why);
	}
	if (base_sample_value(s, "window.not_steady") == 1)
		print_not_steady(out, s);
	if (base_sample_value(s, "window.mixed") == 1)
		fprintf(out, "; MIXED: the rate left a level and came back (%.0f levels, %.0f%% to %.0f%% of the mean)",
			levels, base_sample_value(s, "window.level_lo_pct"), base_sample_value(s, "window.level_hi_pct"));
	else if (levels > 1)
		fprintf(out, "; %.0f levels, %.0f%% to %.0f%% of the mean", levels,
			base_sample_value(s, "window.level_lo_pct"), base_sample_value(s, "window.level_hi_pct"));
	if (base_sample_value(s, "window.disturbed") != 1 && base_sample_value(s, "window.not_steady") != 1 &&
	    base_sample_value(s, "window.mixed") != 1 && !(levels > 1))
		fputs(levels == 1 ? "; steady, one level" : "; steady", out);
	/* under the flag's threshold, the foreign load is still said: a
	 * stream that read 27% low beside its neighbours had 6.7% */
	if (base_sample_value(s, "window.disturbed") == 0) {
		char f[512];

		f[0] = '\0';
		foreign_text(s, "", f, sizeof(f));
		/* a wait under the flag's share is said from a point on */
		starved_text(s, 1, f, sizeof(f));
		stolen_text(s, 0.5, f, sizeof(f));
		if (f[0])
			fprintf(out, "; %s", f);
	}
	fputc('\n', out);
}

/*
 * The IPIs that woke or called another CPU (irq.RES and irq.CAL, the
 * client host's) per unit of work, and the CPU that took most of them:
 * "12.6 IPIs (wake-ups, calls) per MB, 99% to cpu1". Empty without them.
 */
static void ipi_text(const struct base_sample *s, char *buf, size_t len)
{
	const char *unit = "per_mb";
	double per = 0, total = 0, top = -1;
	long top_cpu = -1;
	int rows = 0;

	buf[0] = '\0';
	if (!base_sample_get(s, "irq.CAL.per_mb") && !base_sample_get(s, "irq.RES.per_mb"))
		unit = "per_trans";
	for (int i = 0; i < 2; i++) {
		char name[32];

		snprintf(name, sizeof(name), "irq.%s.%s", i ? "RES" : "CAL", unit);
		if (base_sample_get(s, name)) {
			per += base_sample_value(s, name);
			rows++;
		}
	}
	if (!rows)
		return;
	for (size_t i = 0; i < s->nmetrics; i++) {
		const char *n = s->metrics[i].name;
		char res[40], *end;
		long cpu;
		double v;

		if (strncmp(n, "irq.CAL.cpu", 11))
			continue;
		cpu = strtol(n + 11, &end, 10);
		if (end == n + 11 || *end || cpu < 0)
			continue;
		snprintf(res, sizeof(res), "irq.RES.cpu%ld", cpu);
		v = s->metrics[i].value;
		if (base_sample_get(s, res))
			v += base_sample_value(s, res);
		total += v;
		if (v > top) {
			top = v;
			top_cpu = cpu;
		}
	}
	unit = strcmp(unit, "per_mb") ? "transaction" : "MB";
	if (total > 0)
		snprintf(buf, len, "%.1f IPIs (wake-ups, calls) per %s, %.0f%% to cpu%ld", per,
			 unit, 100.0 * top / total, top_cpu);
	else
		snprintf(buf, len, "%.1f IPIs (wake-ups, calls) per %s", per, unit);
}

/*
 * One line on where the host kept the test's CPUs (the cross-CPU probe):
 * how far apart, and whether the host moved them within the window; and
 * how often one CPU woke or called another.
 */
static void print_xcpu(FILE *out, const struct base_sample *s)
{
	double ns = base_sample_value(s, "host.xcpu_ns"), tau = base_sample_value(s, "window.rate_xcpu_tau");
	char ipi[128];

	ipi_text(s, ipi, sizeof(ipi));
	if (isnan(ns)) {
		if (ipi[0])
			fprintf(out, "cpus: %s\n", ipi);
		return;
	}
	fprintf(out, "cpus: a cache line's round trip between the test's CPUs %.0f ns (median of %.0f rounds)",
		ns, base_sample_value(s, "host.xcpu.rounds"));
	if (base_sample_value(s, "window.xcpu_moved") == 1) {
		double far = base_sample_value(s, "window.xcpu_far_pct"),
		       rate = base_sample_value(s, "window.rate_far_pct");

		fprintf(out, "; MOVED: the host moved them within the window (%.0f to %.0f ns",
			base_sample_value(s, "window.xcpu_lo_ns"), base_sample_value(s, "window.xcpu_hi_ns"));
		if (!isnan(far))
			fprintf(out, "; far apart %.0f%% of it", far);
		if (!isnan(rate))
			fprintf(out, ", where the rate read %.0f%% of the rest's", rate);
		fputc(')', out);
	}
	if (!isnan(tau) && base_sample_value(s, "window.rate_xcpu_p") < 0.01)
		fprintf(out, "; the rate %s as they moved apart (Kendall tau %+.2f)",
			tau < 0 ? "fell" : "rose", tau);
	if (ipi[0])
		fprintf(out, "; %s", ipi);
	fputc('\n', out);
}

/*
 * One line on the tcp senders' own account of the window (TCP_INFO): how
 * long they had data in flight and what held them back, how many of
 * their retransmissions the receiver reported as duplicates (not needed:
 * reordering or a delay, not loss, set them off), how they cut the
 * stream, and how often the receivers ACKed it. Request/response: the
 * segments both ends sent per transaction. After "tcp", the congestion
 * control the senders ran, where they reported it.
 */
static void print_tcp(FILE *out, const struct base_sample *s)
{
	double busy = base_sample_value(s, "tcp.busy_pct");
	double rtx = base_sample_value(s, "tcp.retransmits");
	double dsack = base_sample_value(s, "tcp.dsack_dups");
	double seg = base_sample_value(s, "tcp.bytes_per_seg");
	double per_write = base_sample_value(s, "tcp.data_segs.per_write");
	double acks = base_sample_value(s, "tcp.acks.per_seg");
	double rr_acks = base_sample_value(s, "tcp.acks.per_trans");
	const char *cc = base_sample_env_get(s, "tcp.cc", NULL);
	bool dflt = !strcmp(base_sample_param_get(s, "cc", "default"), "default");

	if (isnan(rr_acks) && isnan(busy))
		return;
	fputs("tcp", out);
	if (cc)
		fprintf(out, " (%s%s)", cc, dflt ? ", the system's default" : "");
	if (!isnan(rr_acks)) {
		fprintf(out, ": per transaction, both ends: %.2f data segments, %.2f pure ACKs; %.0f retransmits",
			base_sample_value(s, "tcp.data_segs.per_trans"), rr_acks, rtx);
		if (rtx > 0)
			fprintf(out, ", %.0f of them reported duplicate (DSACK)", dsack);
		fputc('\n', out);
		return;
	}
	fprintf(out, ": the sender%s data in flight %.1f%% of the window (held back by the receive window %.1f%%, by a full send buffer %.1f%%)",
		s->nflows > 1 ? "s (mean) had" : " had", busy,
		base_sample_value(s, "tcp.rwnd_limited_pct"), base_sample_value(s, "tcp.sndbuf_limited_pct"));
	fprintf(out, "; %.0f retransmits", rtx);
	if (rtx > 0)
		fprintf(out, ", %.0f of them reported duplicate by the receiver (DSACK)", dsack);
	fprintf(out, "; %.0f reorderings seen", base_sample_value(s, "tcp.reord_seen"));
	if (!isnan(seg))
		fprintf(out, "; %.0f B per data segment", seg);
	if (!isnan(per_write))
		fprintf(out, ", %.2f segments per write", per_write);
	if (!isnan(acks))
		fprintf(out, "; the receiver%s sent %.2f ACKs per data segment",
			s->nflows > 1 ? "s" : "", acks);
	fputc('\n', out);
}

/* One line on a udp stream's loss: what the sequence numbers say was lost,
 * and what the receiving sockets themselves dropped. */
static void print_udp(FILE *out, const struct base_sample *s)
{
	double drops = base_sample_value(s, "udp.sock_drops");

	if (isnan(drops))
		return;
	fprintf(out, "udp: %.0f datagrams lost (%.2f%%) by their sequence numbers; the receiving socket%s dropped %.0f (SO_MEMINFO)\n",
		base_sample_value(s, "udp.lost"), base_sample_value(s, "udp.loss_pct"),
		s->nflows > 1 ? "s" : "", drops);
}

void report_sample_table(FILE *out, const struct base_sample *s)
{
	const char *test = base_sample_param_get(s, "test", "?");
	bool rr = strstr(test, "_rr") || strstr(test, "_crr");
	bool udp = !strncmp(test, "udp", 3);
	char dur[BASE_DURATION_STRLEN], wu[BASE_DURATION_STRLEN];
	bool changed = false;

	base_format_duration(s->duration_ns, dur, sizeof(dur));
	base_format_duration(s->warmup_ns, wu, sizeof(wu));
	fprintf(out, "%s  label %s  server %s (%s)  %s after %s warm-up\n",
		test, s->label, s->server, base_sample_env_get(s, "server.kernel", "?"), dur, wu);
	fprintf(out, "config: %s\n\n", s->config_key);
	if (rr)
		fprintf(out, "%4s %14s %9s %9s %9s %9s", "flow", "trans/s",
			"c.sndbuf", "c.rcvbuf", "s.sndbuf", "s.rcvbuf");
	else
		fprintf(out, "%4s %-4s %12s %12s %9s %9s %9s %9s", "flow", "dir",
			"recv Gbps", "send Gbps", "c.sndbuf", "c.rcvbuf",
			"s.sndbuf", "s.rcvbuf");
	if (udp)
		fprintf(out, " %10s %8s %6s\n", "lost", rr ? "-" : "reorder",
			rr ? "late" : "dup");
	else if (!strcmp(test, "tcp_crr") || !strcmp(test, "tcp_cc"))
		fprintf(out, " %10s\n", "failures");
	else
		fprintf(out, " %7s %7s %6s\n", "retrans", "rtt_us", "cwnd");
	for (size_t i = 0; i < s->nflows; i++) {
		const struct sample_flow *f = &s->flows[i];
		char b[4][BASE_SIZE_STRLEN + 1];

		changed |= fmt_sockbuf(f->client_sndbuf, f->client_sndbuf_end,
				       b[0], sizeof(b[0]));
		changed |= fmt_sockbuf(f->client_rcvbuf, f->client_rcvbuf_end,
				       b[1], sizeof(b[1]));
		changed |= fmt_sockbuf(f->server_sndbuf, f->server_sndbuf_end,
				       b[2], sizeof(b[2]));
		changed |= fmt_sockbuf(f->server_rcvbuf, f->server_rcvbuf_end,
				       b[3], sizeof(b[3]));
		if (rr)
			fprintf(out, "%4u %14.1f %9s %9s %9s %9s", f->id, f->tps,
				b[0], b[1], b[2], b[3]);
		else
			fprintf(out, "%4u %-4s %12.3f %12.3f %9s %9s %9s %9s", f->id,
				f->dir, f->rx_gbps, f->tx_gbps, b[0], b[1], b[2], b[3]);
		if (udp)
			fprintf(out, " %10" PRIu64 " %8" PRIu64 " %6" PRIu64 "\n",
				f->udp_lost, f->udp_reordered, f->udp_dup);
		else if (!strcmp(test, "tcp_crr") || !strcmp(test, "tcp_cc"))
			fprintf(out, " %10" PRIu64 "\n", f->fails);
		else if (f->has_tcp_info)
			fprintf(out, " %7u %7u %6u\n", f->tcpi_retrans,
				f->tcpi_rtt_us, f->tcpi_snd_cwnd);
		else
			fprintf(out, "\n");
	}
	if (changed)
		fputs("(socket buffers at the end; *: changed since the start, as autotuning does)\n",
		      out);
	print_window(out, s);
	print_xcpu(out, s);
	print_tcp(out, s);
	print_udp(out, s);
	int width = 40;

	for (size_t i = 0; i < s->nmetrics; i++)
		if (!collected(s->metrics[i].name) && (int)strlen(s->metrics[i].name) > width)
			width = (int)strlen(s->metrics[i].name);
	fprintf(out, "\n%-*s %14s  %-7s %s\n", width, "metric", "value", "unit", "better");
	for (size_t i = 0; i < s->nmetrics; i++) {
		const struct sample_metric *m = &s->metrics[i];

		if (collected(m->name))
			continue;
		fprintf(out, "%-*s %14.4g  %-7s %s\n", width, m->name, m->value, m->unit,
			base_metric_dir_name(base_metric_dir(m->name)));
	}
	print_counters(out, s);
	print_profile(out, s);
}
