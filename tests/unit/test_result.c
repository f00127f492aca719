// SPDX-License-Identifier: GPL-2.0-only
/*
 * A sample's interference figures from two reports built by hand: the
 * foreign CPU (the host's steal counted whole), the other processes' exact
 * CPU, a worker kept from its CPU (window.starved) and the host's steal on
 * the test's CPUs (window.stolen), on one machine and on two, from a peer
 * that reports the longest wait and one that does not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/err.h"
#include "base/sample.h"
#include "base/time.h"
#include "engine/result.h"
#include "job/config.h"

#define MS (NS_PER_MS)

struct fixture {
	struct job_config c;
	struct engine_run r;
	struct proto_flow_report flow[2];
	struct base_sample s;
	bool same_host;
};

static json_t *env_of(const char *boot, const char *pidns, int pid)
{
	return json_pack("{s:i, s:s, s:s, s:i}", "online_cpus", 2, "boot_id", boot,
			 "pidns", pidns, "pid", pid);
}

/* A quiet 1 s tcp_stream on a 2-CPU machine, the client's worker on CPU 0
 * and the server's on CPU 1: the client ran 0.9 s (0.85 s its worker),
 * the server 0.6 s (0.58 s); the ticks saw 80% of the machine busy. */
static int setup(void **state)
{
	struct fixture *f = test_calloc(1, sizeof(*f));
	struct proto_end_report *e[2];

	assert_non_null(f);
	job_config_init(&f->c);
	f->c.cpus.n = 1;
	f->c.cpus.cpu[0] = 0;
	f->c.remote_cpus.n = 1;
	f->c.remote_cpus.cpu[0] = 1;
	f->same_host = true;
	f->r.env_local = env_of("b00t", "pidns:[4026531836]", 100);
	f->r.env_remote = env_of("b00t", "pidns:[4026531836]", 200);
	e[0] = &f->r.local;
	e[1] = &f->r.remote;
	for (int i = 0; i < 2; i++) {
		e[i]->window_ns = NS_PER_S;
		e[i]->nworkers = 1;
		e[i]->cpu_all.valid = true;
		e[i]->cpu_all.busy = e[i]->cpu_all.busy_ticks = 80;
		e[i]->metrics = json_object();
		e[i]->notes = json_object();
		f->flow[i].id = 0;
		f->flow[i].tx = i == 0;
		f->flow[i].win_bytes = 2500000000ULL;
		e[i]->flows = &f->flow[i];
		e[i]->nflows = 1;
	}
	f->r.local.cpu_ns = 900 * MS;
	f->r.local.workers_ns = 850 * MS;
	f->r.local.runq_wait_ns = 10 * MS;
	f->r.remote.cpu_ns = 600 * MS;
	f->r.remote.workers_ns = 580 * MS;
	f->r.remote.runq_wait_ns = 8 * MS;
	json_object_set_new(f->r.local.metrics, "tasks.kthreads_s", json_real(0.02));
	json_object_set_new(f->r.local.metrics, "tasks.others_s", json_real(0.004));
	json_object_set_new(f->r.local.metrics, "tasks.worker_wait_max_s", json_real(0.01));
	json_object_set_new(f->r.remote.metrics, "tasks.worker_wait_max_s", json_real(0.008));
	base_sample_init(&f->s);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	base_sample_release(&f->s);
	json_decref(f->r.env_local);
	json_decref(f->r.env_remote);
	for (int i = 0; i < 2; i++) {
		struct proto_end_report *e = i ? &f->r.remote : &f->r.local;

		json_decref(e->metrics);
		json_decref(e->notes);
	}
	test_free(f);
	return 0;
}

static void build(struct fixture *f)
{
	struct base_err err = { 0 };

	base_sample_release(&f->s);
	base_sample_init(&f->s);
	assert_int_equal(engine_run_sample(&f->c, &f->r, "A", f->same_host, &f->s, &err), 0);
}

/* The metric's value; fails the test when the sample lacks it. */
static double metric(const struct fixture *f, const char *name)
{
	const struct sample_metric *m = base_sample_get(&f->s, name);

	if (!m)
		fail_msg("the sample has no %s", name);
	return m->value;
}

static bool has(const struct fixture *f, const char *name)
{
	return base_sample_get(&f->s, name) != NULL;
}

static void set_metric(struct proto_end_report *e, const char *name, double v)
{
	json_object_set_new(e->metrics, name, json_real(v));
}

static void test_result_quiet_run_is_not_disturbed(void **state)
{
	struct fixture *f = *state;

	build(f);
	/* 1.6 s busy of 2 CPU-s, 1.5 s of it the two ends' own */
	assert_float_equal(metric(f, "cpu.foreign_s"), 0.1, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_busy_pct"), 5.0, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_steal_pct"), 0.0, 0);
	assert_float_equal(metric(f, "cpu.foreign_tasks_pct"), 0.2, 1e-9);
	/* 10 ms of wait, less 20 ms of kernel threads and the ends' 70 ms of
	 * control and probes: nothing left for other processes */
	assert_float_equal(metric(f, "cpu.client.runq_wait_others_pct"), 0.0, 0);
	assert_float_equal(metric(f, "cpu.server.runq_wait_others_pct"), 0.0, 0);
	assert_float_equal(metric(f, "cpu.client.runq_wait_pct"), 1.0, 1e-9);
	assert_float_equal(metric(f, "window.starved"), 0, 0);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 0.0, 0);
	assert_float_equal(metric(f, "window.stolen"), 0, 0);
	assert_float_equal(metric(f, "window.disturbed"), 0, 0);
	/* one machine: the server's own figures are not counted again */
	assert_false(has(f, "cpu.server.foreign_s"));
	assert_float_equal(metric(f, "throughput.gbps"), 20.0, 1e-9);
}

static void test_result_steal_counts_whole(void **state)
{
	struct fixture *f = *state;

	/* the ticks fall 0.1 s short of the ends' own CPU, which once hid a
	 * steal of up to that much: 12% of the machine stolen is 0.24 s */
	f->r.local.cpu_all.busy_ticks = 75;
	f->r.local.cpu_all.steal = 12;
	build(f);
	assert_float_equal(metric(f, "cpu.foreign_s"), 0.24, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_busy_pct"), 12.0, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_steal_pct"), 12.0, 1e-9);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);
	assert_float_equal(metric(f, "window.starved"), 0, 0);

	/* with the busy time over the ends' own, the rest adds to the steal */
	f->r.local.cpu_all.busy_ticks = 84;
	f->r.local.cpu_all.steal = 4;
	f->r.remote.cpu_all.steal = 4;
	build(f);
	assert_float_equal(metric(f, "cpu.foreign_s"), 0.08 + 0.10, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_busy_pct"), 9.0, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_steal_pct"), 4.0, 1e-9);
	/* under the machine's 10%, but 4% stolen from each end's CPU (no
	 * test CPUs' figures: the machine's) is 8% of the window, 6% with a
	 * tick of the 1 s off each */
	assert_float_equal(metric(f, "cpu.stolen_pct"), 8.0, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 1, 0);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);
}

/*
 * The host's steal on the test's CPUs: each end's pinned CPUs' share,
 * the two added when the ends are apart, the larger when they share a
 * CPU or one is not pinned; window.stolen when that is over 2% of the
 * window with a tick (1% of the fixture's 1 s) taken off each end's.
 */
static void test_result_stolen_from_test_cpus(void **state)
{
	struct fixture *f = *state;

	f->r.local.cpu_all.steal = f->r.remote.cpu_all.steal = 0.9;
	f->r.local.cpu_test.valid = f->r.remote.cpu_test.valid = true;
	f->r.local.cpu_test.steal = 2.2;
	f->r.remote.cpu_test.steal = 1.9;
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 4.1, 1e-9);
	/* 1.2 + 0.9 with the ticks off */
	assert_float_equal(metric(f, "window.stolen"), 1, 0);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);
	/* nothing else flagged it */
	assert_true(metric(f, "cpu.foreign_busy_pct") < ENGINE_DISTURBED_PCT);
	assert_float_equal(metric(f, "window.starved"), 0, 0);

	/* 3.9 read, but 1.9 with the ticks off */
	f->r.remote.cpu_test.steal = 1.7;
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 3.9, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 0, 0);
	assert_float_equal(metric(f, "window.disturbed"), 0, 0);

	/* one tick of a 300 ms window is 3.3% of it: not a contended host */
	f->r.local.window_ns = f->r.remote.window_ns = 300 * MS;
	f->r.local.cpu_test.steal = 100.0 / 30;
	f->r.remote.cpu_test.steal = 0;
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 100.0 / 30, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 0, 0);
	f->r.local.window_ns = f->r.remote.window_ns = NS_PER_S;

	/* both ends on CPU 0: the steal is counted once, the larger end's */
	f->r.local.cpu_test.steal = 2.2;
	f->r.remote.cpu_test.steal = 3.5;
	f->c.remote_cpus.cpu[0] = 0;
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 3.5, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 1, 0);

	/* the server not pinned: its share is the machine's, and it may
	 * have run on the client's CPU */
	f->c.remote_cpus.n = 0;
	f->r.remote.cpu_test.valid = false;
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 2.2, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 0, 0);

	/* two machines: each end's own steal, added */
	f->c.remote_cpus.n = 1;
	f->c.remote_cpus.cpu[0] = 0;
	f->r.remote.cpu_test.valid = true;
	f->r.remote.cpu_test.steal = 2.0;
	f->same_host = false;
	json_object_set_new(f->r.env_remote, "boot_id", json_string("other"));
	build(f);
	assert_float_equal(metric(f, "cpu.stolen_pct"), 4.2, 1e-9);
	assert_float_equal(metric(f, "window.stolen"), 1, 0);

	/* neither end's steal known: not judged */
	f->r.local.cpu_test.valid = f->r.remote.cpu_test.valid = false;
	f->r.local.cpu_all.valid = f->r.remote.cpu_all.valid = false;
	build(f);
	assert_false(has(f, "cpu.stolen_pct"));
	assert_false(has(f, "window.stolen"));
}

static void test_result_other_processes_exact(void **state)
{
	struct fixture *f = *state;

	/* the ticks saw nothing foreign, the exact count 0.24 s: disturbed */
	set_metric(&f->r.local, "tasks.others_s", 0.24);
	build(f);
	assert_float_equal(metric(f, "cpu.foreign_busy_pct"), 5.0, 1e-9);
	assert_float_equal(metric(f, "cpu.foreign_tasks_pct"), 12.0, 1e-9);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);

	/* a server in another PID namespace: the client counted it among the
	 * other processes, so its 0.6 s comes off */
	set_metric(&f->r.local, "tasks.others_s", 0.7);
	json_object_set_new(f->r.env_remote, "pidns", json_string("pidns:[4026532000]"));
	build(f);
	assert_float_equal(metric(f, "cpu.foreign_tasks_s"), 0.1, 1e-9);
	assert_float_equal(metric(f, "window.disturbed"), 0, 0);
}

static void test_result_starved_worker(void **state)
{
	struct fixture *f = *state;

	/* a load on the server's CPU: its worker waited 0.3 s, 0.21 s beyond
	 * the kernel threads (0.02 s) and the ends' non-worker CPU (0.07 s);
	 * the machine-wide shares stay quiet */
	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.3);
	f->r.remote.runq_wait_ns = 300 * MS;
	build(f);
	assert_float_equal(metric(f, "cpu.server.runq_wait_others_pct"), 21.0, 1e-9);
	assert_float_equal(metric(f, "cpu.client.runq_wait_others_pct"), 0.0, 0);
	assert_true(metric(f, "cpu.foreign_busy_pct") < ENGINE_DISTURBED_PCT);
	assert_float_equal(metric(f, "window.starved"), 1, 0);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);

	/* just over the line, and just under it */
	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.09 + 0.0501);
	build(f);
	assert_float_equal(metric(f, "window.starved"), 1, 0);
	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.09 + 0.0499);
	build(f);
	assert_float_equal(metric(f, "window.starved"), 0, 0);
	assert_float_equal(metric(f, "window.disturbed"), 0, 0);
}

static void test_result_longest_wait_or_the_mean(void **state)
{
	struct fixture *f = *state;

	/* two server workers on CPUs 1 and 2, 0.4 s of wait between them,
	 * 0.35 s of it one worker's */
	f->c.remote_cpus.n = 2;
	f->c.remote_cpus.cpu[1] = 2;
	f->r.remote.nworkers = 2;
	f->r.remote.runq_wait_ns = 400 * MS;
	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.35);
	build(f);
	assert_float_equal(metric(f, "cpu.server.runq_wait_others_pct"), 26.0, 1e-9);
	assert_float_equal(metric(f, "cpu.server.runq_wait_pct"), 20.0, 1e-9);

	/* a peer older than the longest wait: the workers' mean, 0.2 s */
	json_object_del(f->r.remote.metrics, "tasks.worker_wait_max_s");
	build(f);
	assert_float_equal(metric(f, "cpu.server.runq_wait_others_pct"), 11.0, 1e-9);
	assert_float_equal(metric(f, "window.starved"), 1, 0);

	/* without schedstat's figures, nothing to judge */
	f->r.remote.runq_wait_ns = -1;
	f->r.remote.workers_ns = -1;
	build(f);
	assert_false(has(f, "cpu.server.runq_wait_others_pct"));
	assert_float_equal(metric(f, "window.starved"), 0, 0);
}

static void test_result_shared_cpus_not_judged(void **state)
{
	struct fixture *f = *state;

	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.5);
	f->r.remote.runq_wait_ns = 500 * MS;

	/* both ends on CPU 0: they wait for each other */
	f->c.remote_cpus.cpu[0] = 0;
	build(f);
	assert_false(has(f, "cpu.server.runq_wait_others_pct"));
	assert_false(has(f, "cpu.client.runq_wait_others_pct"));
	assert_float_equal(metric(f, "window.starved"), 0, 0);

	/* more workers than CPUs on an end */
	f->c.remote_cpus.cpu[0] = 1;
	f->r.remote.nworkers = 2;
	build(f);
	assert_float_equal(metric(f, "window.starved"), 0, 0);

	/* not pinned */
	f->r.remote.nworkers = 1;
	f->c.remote_cpus.n = 0;
	build(f);
	assert_float_equal(metric(f, "window.starved"), 0, 0);

	/* on two machines, CPU 0 on each is two CPUs */
	f->c.remote_cpus.n = 1;
	f->c.remote_cpus.cpu[0] = 0;
	f->same_host = false;
	json_object_set_new(f->r.env_remote, "boot_id", json_string("other"));
	build(f);
	assert_true(has(f, "cpu.server.runq_wait_others_pct"));
	assert_float_equal(metric(f, "window.starved"), 1, 0);
}

static void test_result_two_machines(void **state)
{
	struct fixture *f = *state;

	/* each machine sets only its own end's CPU against its busy time */
	f->same_host = false;
	json_object_set_new(f->r.env_remote, "boot_id", json_string("other"));
	f->r.local.cpu_all.busy_ticks = 47.5;       /* 0.95 s: 0.05 s foreign */
	f->r.remote.cpu_all.busy_ticks = 50;        /* 1.0 s: 0.4 s foreign */
	set_metric(&f->r.remote, "tasks.others_s", 0.03);
	set_metric(&f->r.remote, "tasks.kthreads_s", 0.01);
	set_metric(&f->r.remote, "tasks.worker_wait_max_s", 0.1);
	build(f);
	assert_float_equal(metric(f, "cpu.foreign_s"), 0.05, 1e-9);
	assert_float_equal(metric(f, "cpu.server.foreign_s"), 0.4, 1e-9);
	assert_float_equal(metric(f, "cpu.server.foreign_busy_pct"), 20.0, 1e-9);
	assert_float_equal(metric(f, "cpu.server.foreign_tasks_pct"), 1.5, 1e-9);
	assert_float_equal(metric(f, "window.disturbed"), 1, 0);
	/* the server's wait less its own kernel threads and non-worker CPU
	 * only: 0.1 - 0.01 - 0.02 */
	assert_float_equal(metric(f, "cpu.server.runq_wait_others_pct"), 7.0, 1e-9);
	assert_float_equal(metric(f, "window.starved"), 1, 0);
}

/* The sender's TCP_INFO: retransmissions over the window where it counted
 * them there (the connection's total otherwise), and its time as shares
 * of its window. */
static void test_result_tcp_info_over_the_window(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report *tx = &f->flow[0];

	tx->has_tcpi = true;
	tx->tcpi = (struct proto_tcpi){ .total_retrans = 98, .rtt_us = 50, .snd_cwnd = 16 };
	build(f);
	assert_float_equal(metric(f, "tcp.retransmits"), 98, 0);
	assert_false(has(f, "tcp.busy_pct"));
	assert_false(has(f, "tcp.dsack_dups"));

	tx->has_tcpi_win = true;
	tx->win_calls = 19074;
	tx->tcpi_win = (struct proto_tcpi_win){ .data_segs_out = 38148, .bytes_sent = 2500065536ULL,
						.retrans = 8, .dsack_dups = 7, .reord_seen = 36,
						.busy_us = 1004000, .rwnd_limited_us = 250000,
						.sndbuf_limited_us = 100000 };
	build(f);
	assert_float_equal(metric(f, "tcp.retransmits"), 8, 0);
	assert_int_equal(f->s.flows[0].tcpi_retrans, 8);
	assert_float_equal(metric(f, "tcp.dsack_dups"), 7, 0);
	assert_float_equal(metric(f, "tcp.reord_seen"), 36, 0);
	/* a whole jiffy past the window is the kernel's rounding: 100% */
	assert_float_equal(metric(f, "tcp.busy_pct"), 100, 0);
	assert_float_equal(metric(f, "tcp.rwnd_limited_pct"), 25, 1e-9);
	assert_float_equal(metric(f, "tcp.sndbuf_limited_pct"), 10, 1e-9);
	/* the sender's own data segments, retransmissions included */
	assert_float_equal(metric(f, "tcp.bytes_per_seg"), 2500065536.0 / 38148, 1e-6);
	assert_float_equal(metric(f, "tcp.data_segs.per_write"), 2, 1e-12);
	/* a window without a write has no segments per write */
	tx->win_calls = 0;
	build(f);
	assert_false(has(f, "tcp.data_segs.per_write"));
	assert_true(has(f, "tcp.bytes_per_seg"));
}

/* The senders' congestion control as env tcp.cc: each distinct name once,
 * in flow order, the server's senders' too (bidir: flows 2 and 3 go from
 * the server); nothing from senders that did not name it. */
static void test_result_congestion_control(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report cl[4], sv[4];
	static const char *const names[] = { "bbr2", "bbr", "bbr", "cubic" };

	memset(cl, 0, sizeof(cl));
	memset(sv, 0, sizeof(sv));
	f->c.streams = 2;
	f->c.dir = JOB_DIR_BIDIR;
	for (uint32_t i = 0; i < 4; i++) {
		struct proto_flow_report *tx = i < 2 ? &cl[i] : &sv[i];

		cl[i].id = sv[i].id = i;
		cl[i].win_bytes = sv[i].win_bytes = 1000000;
		tx->tx = tx->has_tcpi = true;
		snprintf(tx->tcpi.cc, sizeof(tx->tcpi.cc), "%s", names[i]);
	}
	f->r.local.flows = cl;
	f->r.remote.flows = sv;
	f->r.local.nflows = f->r.remote.nflows = 4;
	build(f);
	assert_string_equal(base_sample_env_get(&f->s, "tcp.cc", ""), "bbr2,bbr,cubic");
	/* a name that another begins with is its own */
	snprintf(cl[0].tcpi.cc, sizeof(cl[0].tcpi.cc), "bbr");
	snprintf(sv[2].tcpi.cc, sizeof(sv[2].tcpi.cc), "bbr2");
	build(f);
	assert_string_equal(base_sample_env_get(&f->s, "tcp.cc", ""), "bbr,bbr2,cubic");
	/* an older end names none */
	sv[2].tcpi.cc[0] = sv[3].tcpi.cc[0] = '\0';
	build(f);
	assert_string_equal(base_sample_env_get(&f->s, "tcp.cc", ""), "bbr");
	cl[0].has_tcpi = cl[1].has_tcpi = false;
	build(f);
	assert_null(base_sample_env_get(&f->s, "tcp.cc", NULL));
}

/* A stream receiver's pure ACKs per data segment it received, from its
 * own socket; none from a server that does not send its receiver's
 * counts, nor from one older than the segment counts. */
static void test_result_tcp_receiver_acks(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report *tx = &f->flow[0], *rx = &f->flow[1];

	tx->has_tcpi = true;
	tx->has_tcpi_win = true;
	tx->tcpi_win = (struct proto_tcpi_win){ .data_segs_out = 38148, .bytes_sent = 2500065536ULL,
						.has_segs = true, .segs_out = 38150, .data_segs_in = 0 };
	build(f);
	assert_false(has(f, "tcp.acks.per_seg"));
	rx->has_tcpi_win = true;
	rx->tcpi_win = (struct proto_tcpi_win){ .has_segs = true, .segs_out = 19074,
						.data_segs_in = 38148 };
	build(f);
	assert_float_equal(metric(f, "tcp.acks"), 19074, 0);
	assert_float_equal(metric(f, "tcp.acks.per_seg"), 0.5, 1e-12);
	/* a receiver that sent data too (a window probe, say) counts its ACKs only */
	rx->tcpi_win.data_segs_out = 6;
	rx->tcpi_win.segs_out = 19080;
	build(f);
	assert_float_equal(metric(f, "tcp.acks"), 19074, 0);
	rx->tcpi_win.has_segs = false;
	build(f);
	assert_false(has(f, "tcp.acks"));
	assert_false(has(f, "tcp.acks.per_seg"));
}

/* tcp_rr from both ends' sockets: retransmissions either way, data
 * segments and pure ACKs per transaction; nothing unless both ends
 * counted them. */
static void test_result_tcp_rr_segments(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report *cl = &f->flow[0], *sv = &f->flow[1];

	f->c.test = JOB_TEST_TCP_RR;
	cl->win_msgs = 30000;
	sv->win_msgs = 30000;
	cl->win_bytes = sv->win_bytes = 30000;
	cl->has_tcpi_win = true;
	cl->tcpi_win = (struct proto_tcpi_win){ .data_segs_out = 30001, .retrans = 1,
						.has_segs = true, .segs_out = 30301,
						.data_segs_in = 30000 };
	build(f);
	assert_false(has(f, "tcp.acks.per_trans"));
	assert_false(has(f, "tcp.retransmits"));
	sv->has_tcpi_win = true;
	sv->tcpi_win = (struct proto_tcpi_win){ .data_segs_out = 30002, .retrans = 2,
						.dsack_dups = 1, .has_segs = true,
						.segs_out = 33002, .data_segs_in = 30001 };
	build(f);
	assert_float_equal(metric(f, "tcp.retransmits"), 3, 0);
	assert_float_equal(metric(f, "tcp.dsack_dups"), 1, 0);
	assert_float_equal(metric(f, "tcp.data_segs.per_trans"), 60003.0 / 30000, 1e-12);
	assert_float_equal(metric(f, "tcp.acks.per_trans"), 3300.0 / 30000, 1e-12);
	assert_false(has(f, "tcp.acks.per_seg"));
	sv->tcpi_win.has_segs = false;
	build(f);
	assert_false(has(f, "tcp.acks.per_trans"));
}

/* What the kernel granted one tcp_stream flow (--rcvbuf 8K, sending to
 * an autotuned server): each end's buffers at launch and stop, the
 * receiver's and the sender's TCP_INFO at stop; a figure an older server
 * does not send is left out, never 0; one flow has no .min. */
static void test_result_granted_one_flow(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report *cl = &f->flow[0], *sv = &f->flow[1];
	static const char *const rx_names[] = { "granted.rx.rcv_space", "granted.rx.rcv_ssthresh",
						"granted.rx.rcv_wscale", "granted.rx.advmss" };

	cl->sndbuf = 16384;
	cl->rcvbuf = cl->rcvbuf_end = 16384;
	cl->sndbuf_end = 4194304;
	sv->sndbuf = sv->sndbuf_end = 16384;
	sv->rcvbuf = 131072;
	sv->rcvbuf_end = 6291456;
	cl->has_tcpi = true;
	cl->tcpi.snd_mss = 65483;
	build(f);
	assert_float_equal(metric(f, "granted.client.sndbuf"), 16384, 0);
	assert_float_equal(metric(f, "granted.client.rcvbuf"), 16384, 0);
	assert_float_equal(metric(f, "granted.client.sndbuf_end"), 4194304, 0);
	assert_float_equal(metric(f, "granted.client.rcvbuf_end"), 16384, 0);
	assert_float_equal(metric(f, "granted.server.sndbuf"), 16384, 0);
	assert_float_equal(metric(f, "granted.server.rcvbuf"), 131072, 0);
	assert_float_equal(metric(f, "granted.server.sndbuf_end"), 16384, 0);
	assert_float_equal(metric(f, "granted.server.rcvbuf_end"), 6291456, 0);
	assert_string_equal(base_sample_get(&f->s, "granted.server.rcvbuf")->unit, "B");
	assert_int_equal(base_metric_dir("granted.server.rcvbuf"), METRIC_NEUTRAL);
	assert_false(has(f, "granted.client.rcvbuf.min"));
	assert_float_equal(metric(f, "granted.tx.mss"), 65483, 0);
	/* an older server: no receiver's state; an older sender: no scale */
	for (size_t k = 0; k < ARRAY_SIZE(rx_names); k++)
		assert_false(has(f, rx_names[k]));
	assert_false(has(f, "granted.tx.snd_wscale"));

	sv->has_tcpi_rx = true;
	sv->tcpi_rx = (struct proto_tcpi_rx){ .rcv_space = 7209702, .rcv_ssthresh = 33029116,
					      .advmss = 65483, .rcv_wscale = 0 };
	cl->tcpi.has_wscale = true;
	cl->tcpi.snd_wscale = 0;
	build(f);
	assert_float_equal(metric(f, "granted.rx.rcv_space"), 7209702, 0);
	assert_float_equal(metric(f, "granted.rx.rcv_ssthresh"), 33029116, 0);
	assert_float_equal(metric(f, "granted.rx.advmss"), 65483, 0);
	/* a scale of 0 is a figure: the window was not scaled */
	assert_float_equal(metric(f, "granted.rx.rcv_wscale"), 0, 0);
	assert_float_equal(metric(f, "granted.tx.snd_wscale"), 0, 0);
	assert_string_equal(base_sample_get(&f->s, "granted.rx.rcv_wscale")->unit, "shift");
}

/* Over several flows: the mean of each role's, and .min when they
 * disagree; the tcp state only when every flow gave it (bidir: the
 * receivers are on both ends); a buffer of 0 (no socket to ask) left
 * out; udp has buffers and nothing of tcp. */
static void test_result_granted_over_flows(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report cl[4], sv[4];

	memset(cl, 0, sizeof(cl));
	memset(sv, 0, sizeof(sv));
	f->c.streams = 2;
	f->c.dir = JOB_DIR_BIDIR;
	for (uint32_t i = 0; i < 4; i++) {
		struct proto_flow_report *tx = i < 2 ? &cl[i] : &sv[i];
		struct proto_flow_report *rx = i < 2 ? &sv[i] : &cl[i];

		cl[i].id = sv[i].id = i;
		cl[i].win_bytes = sv[i].win_bytes = 1000000;
		cl[i].sndbuf = cl[i].sndbuf_end = 16384;
		cl[i].rcvbuf = cl[i].rcvbuf_end = i == 3 ? 9216 : 16384;
		sv[i].sndbuf = sv[i].rcvbuf = sv[i].sndbuf_end = sv[i].rcvbuf_end = 131072;
		tx->tx = tx->has_tcpi = tx->tcpi.has_wscale = true;
		tx->tcpi.snd_mss = 65483;
		tx->tcpi.snd_wscale = 7;
		rx->has_tcpi_rx = true;
		rx->tcpi_rx = (struct proto_tcpi_rx){ .rcv_space = 1000 * (i + 1),
						      .rcv_ssthresh = 64000, .advmss = 65483,
						      .rcv_wscale = 7 };
	}
	f->r.local.flows = cl;
	f->r.remote.flows = sv;
	f->r.local.nflows = f->r.remote.nflows = 4;
	build(f);
	assert_float_equal(metric(f, "granted.client.rcvbuf"), (3 * 16384 + 9216) / 4.0, 1e-9);
	assert_float_equal(metric(f, "granted.client.rcvbuf.min"), 9216, 0);
	assert_float_equal(metric(f, "granted.client.rcvbuf_end.min"), 9216, 0);
	assert_float_equal(metric(f, "granted.client.sndbuf"), 16384, 0);
	assert_false(has(f, "granted.client.sndbuf.min"));
	assert_false(has(f, "granted.server.rcvbuf.min"));
	assert_float_equal(metric(f, "granted.rx.rcv_space"), 2500, 1e-9);
	assert_float_equal(metric(f, "granted.rx.rcv_space.min"), 1000, 0);
	assert_float_equal(metric(f, "granted.rx.rcv_wscale"), 7, 0);
	assert_false(has(f, "granted.rx.rcv_wscale.min"));
	assert_float_equal(metric(f, "granted.tx.snd_wscale"), 7, 0);
	assert_float_equal(metric(f, "granted.tx.mss"), 65483, 0);

	/* a flow whose receiver (the server's, flow 1) sent no state: none */
	sv[1].has_tcpi_rx = false;
	sv[2].tcpi.has_wscale = false;
	cl[0].sndbuf = 0;
	build(f);
	assert_false(has(f, "granted.rx.rcv_space"));
	assert_false(has(f, "granted.rx.rcv_space.min"));
	assert_false(has(f, "granted.rx.advmss"));
	assert_false(has(f, "granted.tx.snd_wscale"));
	assert_float_equal(metric(f, "granted.tx.mss"), 65483, 0);
	assert_float_equal(metric(f, "granted.client.sndbuf"), 16384, 0);
	assert_false(has(f, "granted.client.sndbuf.min"));

	/* udp: buffers granted as well, no tcp state */
	f->c.test = JOB_TEST_UDP_STREAM;
	for (uint32_t i = 0; i < 4; i++)
		cl[i].has_tcpi = sv[i].has_tcpi = cl[i].has_tcpi_rx = sv[i].has_tcpi_rx = false;
	build(f);
	assert_float_equal(metric(f, "granted.server.rcvbuf"), 131072, 0);
	assert_false(has(f, "granted.tx.mss"));
	assert_false(has(f, "granted.rx.advmss"));
}

/* A udp receiver's socket drops: summed when every receiver counted them,
 * left out when one did not (an older server), never for tcp. */
static void test_result_udp_sock_drops(void **state)
{
	struct fixture *f = *state;
	struct proto_flow_report *rx = &f->flow[1];

	rx->has_sock_drops = true;
	rx->sock_drops = 9028;
	build(f);
	assert_false(has(f, "udp.sock_drops"));
	f->c.test = JOB_TEST_UDP_STREAM;
	build(f);
	assert_float_equal(metric(f, "udp.sock_drops"), 9028, 0);
	rx->has_sock_drops = false;
	build(f);
	assert_false(has(f, "udp.sock_drops"));
}

/* The workers' switches in, each end: the count and per MB received,
 * the server's scaled to the client's window as service demand is; none
 * from a peer that does not report them. */
static void test_result_worker_switches(void **state)
{
	struct fixture *f = *state;

	set_metric(&f->r.local, "tasks.worker_switches", 500);
	set_metric(&f->r.remote, "tasks.worker_switches", 25000);
	f->r.remote.window_ns = 1250 * MS;
	build(f);
	assert_float_equal(metric(f, "cpu.client.workers_switches"), 500, 0);
	assert_float_equal(metric(f, "cpu.server.workers_switches"), 25000, 0);
	/* 2500 MB received */
	assert_float_equal(metric(f, "cpu.client.workers_switches.per_mb"), 0.2, 1e-12);
	assert_float_equal(metric(f, "cpu.server.workers_switches.per_mb"), 8.0, 1e-12);
	assert_false(has(f, "cpu.client.workers_switches.per_trans"));

	json_object_del(f->r.remote.metrics, "tasks.worker_switches");
	build(f);
	assert_true(has(f, "cpu.client.workers_switches"));
	assert_false(has(f, "cpu.server.workers_switches"));
	assert_false(has(f, "cpu.server.workers_switches.per_mb"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_result_quiet_run_is_not_disturbed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_steal_counts_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_stolen_from_test_cpus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_other_processes_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_starved_worker, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_longest_wait_or_the_mean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_shared_cpus_not_judged, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_two_machines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_tcp_info_over_the_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_congestion_control, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_udp_sock_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_worker_switches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_tcp_receiver_acks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_tcp_rr_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_granted_one_flow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_result_granted_over_flows, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
