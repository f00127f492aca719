// SPDX-License-Identifier: GPL-2.0-only
/* `netregress topo up|down|show`: test topologies by hand, and clean-up after a crash. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "topo/topo.h"

static const char topo_help[] =
	"usage: netregress topo up [options]\n"
	"       netregress topo down [--all] [--owner PID]\n"
	"       netregress topo show\n"
	"\n"
	"up: two network namespaces joined by a veth pair (the veth topology of\n"
	"a job), left up when the command exits; prints\n"
	"  client <netns> <dev> <ipv4> <ipv6>\n"
	"  server <netns> <dev> <ipv4> <ipv6>\n"
	"  cgroup <dir>                      (with --cpu-quota)\n"
	"\n"
	"      --mtu N             MTU of both ends (default 1500; 1280 to 65535)\n"
	"      --gro on|off        GRO of both ends (default: as the device has it)\n"
	"      --gso on|off        GSO of both ends\n"
	"      --tso on|off        TSO of both ends\n"
	"      --tbf RATE          token bucket on both egresses, bits/s (200mbit,\n"
	"                          1gbit; 1mbit to 400gbit)\n"
	"      --cpu-quota PCT     a cgroup for the server limited to PCT% of one CPU\n"
	"      --hold              keep it up until SIGINT or SIGTERM, then remove it\n"
	"\n"
	"down: remove the namespaces and cgroups (named nr-<pid>-<n>-c or -s) of\n"
	"processes that have ended (a process with the pid that started after the\n"
	"maker, as /run/netregress/topo-<pid>-<n> records it, is not the maker),\n"
	"which includes everything 'topo up' left and\n"
	"everything a crashed run left, and put back the sysctls a killed matrix\n"
	"left set (their values before it are in /run/netregress/sysctl-<pid>);\n"
	"prints each one removed or put back.\n"
	"      --all               also those of processes still running\n"
	"      --owner PID         only those made by process PID\n"
	"\n"
	"show: list them: kind, name, owner pid, running or ended, path; for a\n"
	"sysctl, its value before the job and now.\n";

enum { OPT_MTU = 256, OPT_GRO, OPT_GSO, OPT_TSO, OPT_TBF, OPT_QUOTA, OPT_HOLD,
       OPT_ALL, OPT_OWNER };

static const struct option topo_opts[] = {
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "gro", required_argument, NULL, OPT_GRO },
	{ "gso", required_argument, NULL, OPT_GSO },
	{ "tso", required_argument, NULL, OPT_TSO },
	{ "tbf", required_argument, NULL, OPT_TBF },
	{ "cpu-quota", required_argument, NULL, OPT_QUOTA },
	{ "hold", no_argument, NULL, OPT_HOLD },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "owner", required_argument, NULL, OPT_OWNER },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *opt_name(int opt)
{
	for (size_t i = 0; topo_opts[i].name; i++)
		if (topo_opts[i].val == opt)
			return topo_opts[i].name;
	return "?";
}

static bool toggle(const char *flag, const char *arg, int8_t *out)
{
	struct base_err err;
	bool on;

	if (base_parse_bool(arg, &on, &err)) {
		cli_error("invalid %s '%s': expected on or off", flag, arg);
		return false;
	}
	*out = on ? 1 : 0;
	return true;
}

static void print_side(const struct topo *t, enum topo_side side)
{
	const char *v6 = topo_addr(t, side, 6);

	printf("%s %s %s %s %s\n", side == TOPO_SERVER ? "server" : "client",
	       topo_netns(t, side), topo_ifname(t, side), topo_addr(t, side, 4),
	       v6 ? v6 : "-");
}

/* Sleep until SIGINT or SIGTERM (cli_signals() set the flag). */
static void hold(void)
{
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	while (!cli_interrupted)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

static int topo_cmd_up(const struct topo_spec *s, bool keep)
{
	struct base_err err = { "" };
	struct topo *t = NULL;
	int ret;

	ret = topo_up(s, &t, &err);
	if (ret) {
		cli_error("topology: %s", err.msg);
		return EXIT_RUNTIME;
	}
	if (cli_interrupted) {
		/* a signal during set-up: nothing stays */
		topo_free(t);
		cli_error("interrupted");
		return EXIT_RUNTIME;
	}
	print_side(t, TOPO_CLIENT);
	print_side(t, TOPO_SERVER);
	if (topo_cgroup(t))
		printf("cgroup %s\n", topo_cgroup(t));
	fflush(stdout);
	if (!keep) {
		hold();
		topo_free(t);
		return EXIT_OK;
	}
	topo_detach(t);
	return EXIT_OK;
}

static int print_entry(void *ctx, const struct topo_entry *e)
{
	const char *verb = ctx;

	if (verb && e->detail) /* a sysctl put back */
		printf("%s %s %s (left by pid %d)\n", e->kind, e->name, e->detail,
		       (int)e->owner);
	else if (verb)
		printf("%s %s %s\n", verb, e->kind, e->name);
	else
		printf("%s %s %d %s %s%s%s\n", e->kind, e->name, (int)e->owner,
		       e->live ? "running" : "ended", e->path, e->detail ? ": " : "",
		       e->detail ? e->detail : "");
	return 0;
}

int cmd_topo(int argc, char **argv)
{
	struct base_err err = { "" };
	struct topo_spec spec;
	const char *sub;
	bool hold_flag = false, all = false, up, down_opt;
	pid_t owner = 0;
	unsigned int removed;
	uint64_t v;
	int opt;

	if (argc < 2) {
		fputs(topo_help, stderr);
		return EXIT_USAGE;
	}
	sub = argv[1];
	if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		fputs(topo_help, stdout);
		return EXIT_OK;
	}
	if (strcmp(sub, "up") && strcmp(sub, "down") && strcmp(sub, "show")) {
		cli_error("unknown topo command '%s': expected up, down or show", sub);
		return cli_usage_hint("topo");
	}
	up = !strcmp(sub, "up");
	topo_spec_init(&spec);
	opterr = 0;
	optind = 1;
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "h", topo_opts, NULL)) != -1) {
		down_opt = opt == OPT_ALL || opt == OPT_OWNER;
		if (opt != 'h' && opt != '?' &&
		    !(up ? !down_opt : !strcmp(sub, "down") && down_opt)) {
			cli_error("option '--%s' does not apply to 'topo %s'",
				  opt_name(opt), sub);
			return cli_usage_hint("topo");
		}
		switch (opt) {
		case OPT_MTU:
			if (!cli_u64("--mtu", optarg, TOPO_MTU_MIN, TOPO_MTU_MAX, &v))
				return EXIT_USAGE;
			spec.mtu = (uint32_t)v;
			break;
		case OPT_GRO:
			if (!toggle("--gro", optarg, &spec.gro))
				return EXIT_USAGE;
			break;
		case OPT_GSO:
			if (!toggle("--gso", optarg, &spec.gso))
				return EXIT_USAGE;
			break;
		case OPT_TSO:
			if (!toggle("--tso", optarg, &spec.tso))
				return EXIT_USAGE;
			break;
		case OPT_TBF:
			if (topo_parse_rate_bps(optarg, &spec.tbf_rate_bps, &err)) {
				cli_error("invalid --tbf: %s", err.msg);
				return EXIT_USAGE;
			}
			if (spec.tbf_rate_bps < TOPO_TBF_MIN_BPS ||
			    spec.tbf_rate_bps > TOPO_TBF_MAX_BPS) {
				cli_error("invalid --tbf '%s': expected 1mbit to 400gbit",
					  optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_QUOTA:
			if (!cli_u64("--cpu-quota", optarg, 1, TOPO_CPU_QUOTA_MAX_PCT, &v))
				return EXIT_USAGE;
			spec.cpu_quota_pct = (uint32_t)v;
			break;
		case OPT_HOLD:
			hold_flag = true;
			break;
		case OPT_ALL:
			all = true;
			break;
		case OPT_OWNER:
			if (!cli_u64("--owner", optarg, 1, INT_MAX, &v))
				return EXIT_USAGE;
			owner = (pid_t)v;
			break;
		case 'h':
			fputs(topo_help, stdout);
			return EXIT_OK;
		default:
			if (optopt)
				cli_error("option '%s' needs a value or is unknown",
					  argv[optind - 1]);
			else
				cli_error("unknown option '%s'", argv[optind - 1]);
			return cli_usage_hint("topo");
		}
	}
	if (optind < argc) {
		cli_error("unexpected argument '%s'", argv[optind]);
		return cli_usage_hint("topo");
	}
	cli_signals();
	if (up)
		return topo_cmd_up(&spec, !hold_flag);
	if (!strcmp(sub, "show")) {
		if (topo_list(print_entry, NULL, &err)) {
			cli_error("%s", err.msg);
			return EXIT_RUNTIME;
		}
		return EXIT_OK;
	}
	if (topo_down_all(!all, owner, print_entry, "removed", &removed, &err)) {
		cli_error("%s", err.msg);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}
