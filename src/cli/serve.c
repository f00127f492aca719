// SPDX-License-Identifier: GPL-2.0-only
/* `netregress serve`: answer tests from clients until stopped. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include "base/time.h"
#include "cli/cli.h"
#include "engine/session.h"
#include "job/config.h"
#include "proto/frame.h"

static const char serve_help[] =
	"usage: netregress serve [options]\n"
	"\n"
	"  -p, --port PORT         control port (default 9127; 0 = any)\n"
	"      --bind ADDR         address to listen on (default :: and 0.0.0.0)\n"
	"      --max-streams N     flows one client may open (default 256)\n"
	"      --max-duration TIME warm-up plus duration of one test (default 1h)\n"
	"      --max-clients N     clients served at once (default 8)\n"
	"      --no-cpu-latency    refuse tests that hold the CPU latency request\n"
	"                          (run --cpu-latency): while held, no CPU of this\n"
	"                          machine halts when idle\n"
	"  -q, --quiet             no log lines\n";

enum { OPT_BIND = 256, OPT_MAXS, OPT_MAXD, OPT_MAXC, OPT_READY, OPT_NOQOS };

static const struct option serve_opts[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, OPT_BIND },
	{ "max-streams", required_argument, NULL, OPT_MAXS },
	{ "max-duration", required_argument, NULL, OPT_MAXD },
	{ "max-clients", required_argument, NULL, OPT_MAXC },
	{ "ready-fd", required_argument, NULL, OPT_READY },
	{ "no-cpu-latency", no_argument, NULL, OPT_NOQOS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void log_line(void *ctx, const char *line)
{
	char when[32];
	time_t t = time(NULL);
	struct tm tm;

	(void)ctx;
	if (!localtime_r(&t, &tm) || !strftime(when, sizeof(when), "%F %T", &tm))
		when[0] = '\0';
	fprintf(stderr, "[%s] %s\n", when, line);
}

/*
 * A server that `run` or `matrix` started executes /proc/self/exe, so the
 * kernel names it "exe" (the basename of what was executed): in ps, pgrep
 * and perf's comm column. Such a server is netregress's own: say so.
 */
static void name_process(void)
{
	char comm[16] = "";
	FILE *f = fopen("/proc/self/comm", "re");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	if (!strcmp(comm, "exe\n"))
		prctl(PR_SET_NAME, "netregress", 0, 0, 0);
}

int cmd_serve(int argc, char **argv)
{
	struct engine_server_opts o = {
		.bind = NULL,
		.port = PROTO_DEFAULT_PORT,
		.max_streams = 256,
		.max_duration_ns = 3600 * NS_PER_S,
		.max_clients = 8,
		.ready_fd = -1,
		.log = log_line,
		.terminate = &cli_interrupted,
	};
	struct base_err err = { "" };
	uint64_t v;
	int opt, ret;

	name_process(); /* before any thread: they take the name */
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "p:qh", serve_opts, NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (!cli_u64("--port", optarg, 0, 65535, &v))
				return EXIT_USAGE;
			o.port = (uint16_t)v;
			break;
		case OPT_BIND:
			o.bind = optarg;
			break;
		case OPT_MAXS:
			if (!cli_u64("--max-streams", optarg, 1, 2 * JOB_MAX_STREAMS, &v))
				return EXIT_USAGE;
			o.max_streams = (uint32_t)v;
			break;
		case OPT_MAXD:
			if (!cli_duration("--max-duration", optarg, &o.max_duration_ns))
				return EXIT_USAGE;
			if (o.max_duration_ns < 100 * NS_PER_MS) {
				cli_error("invalid --max-duration '%s': expected at least 100ms", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_MAXC:
			if (!cli_u64("--max-clients", optarg, 1, 1024, &v))
				return EXIT_USAGE;
			o.max_clients = (uint32_t)v;
			break;
		case OPT_READY:
			if (!cli_u64("--ready-fd", optarg, 3, 1024, &v))
				return EXIT_USAGE;
			o.ready_fd = (int)v;
			break;
		case OPT_NOQOS:
			o.no_cpu_latency = true;
			break;
		case 'q':
			o.log = NULL;
			break;
		case 'h':
			fputs(serve_help, stdout);
			return EXIT_OK;
		default:
			if (optopt)
				cli_error("option -%c needs a value or is unknown", optopt);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("serve");
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage_hint("serve");
	}
	cli_signals();
	if (o.bind) {
		ret = engine_server_run(&o, &err);
	} else {
		/* dual stack where the host has IPv6, else IPv4 only */
		o.bind = "::";
		ret = engine_server_run(&o, &err);
		if (ret == -EAFNOSUPPORT || ret == -EADDRNOTAVAIL) {
			o.bind = "0.0.0.0";
			ret = engine_server_run(&o, &err);
		}
	}
	if (ret) {
		cli_error("%s", err.msg);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
