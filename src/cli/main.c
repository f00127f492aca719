// SPDX-License-Identifier: GPL-2.0-only
/* netregress: the command table. */
#include <stdio.h>
#include <string.h>

#include "base/build.h"
#include "cli/cli.h"
#include "cli/confopts.h"
#include "report/report.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "run", cmd_run, "run one test against a server (or a local one)" },
	{ "serve", cmd_serve, "answer tests from clients" },
	{ "labels", cmd_labels, "list labels, their configurations and sample counts" },
	{ "show", cmd_show, "summarize one label's samples" },
	{ "matrix", cmd_matrix, "run every combination of a job file (docs/jobs.md)" },
	{ "compare", cmd_compare, "compare two labels: the A/B table and verdicts" },
	{ "report", cmd_report, "write an HTML (or Markdown) report of labels with charts" },
	{ "import", cmd_import, "load result documents into the store" },
	{ "export", cmd_export, "write stored samples as JSON lines" },
	{ "topo", cmd_topo, "set up, show or remove test topologies" },
	{ "bisect", cmd_bisect, "find the commit that made a regression (git bisect run)" },
	{ "probe", cmd_probe, "watch where the host keeps the CPUs and how busy it is" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: netregress <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'netregress <command> --help' describes a command's options.\n");
}

/* netregress.1 (groff man): the commands from the table above, the
 * workload options from the parameter table (make man writes it). */
static void man(FILE *f)
{
	fputs(".TH NETREGRESS 1 \"\" \"netregress\" \"User Commands\"\n"
	      ".SH NAME\n"
	      "netregress \\- measure Linux network performance and find regressions\n"
	      ".SH SYNOPSIS\n"
	      ".B netregress\n"
	      ".I command\n"
	      "[\\fIoptions\\fR]\n"
	      ".SH DESCRIPTION\n"
	      "netregress runs TCP and UDP stream and request/response tests on\n"
	      "loopback, in network namespaces or against a server, stores each\n"
	      "sample with its configuration, and compares labels A/B.\n"
	      "\\fBnetregress\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR lists a command's own options.\n"
	      ".SH COMMANDS\n", f);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, ".TP\n.B %s\n%s\n", commands[i].name, commands[i].help);
	fputs(".SH WORKLOAD OPTIONS\n"
	      "\\fBrun\\fR and \\fBbisect start\\fR take these; a job file's\n"
	      "params take the same parameters (docs/jobs.md).\n", f);
	cli_config_man(f);
	fputs(".SH EXIT STATUS\n"
	      "0 success, 1 a regression found (judging commands), 2 usage error,\n"
	      "3 runtime error; bisect follows git bisect (0 good, 1 bad, 125 skip).\n"
	      ".SH ENVIRONMENT\n"
	      ".TP\n.B NETREGRESS_DB\n"
	      "the sample store when \\fB\\-\\-db\\fR is not given (default ./netregress.db)\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--man")) {
		man(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s (%s)\n", BASE_TOOL, base_build_id());
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	cli_error("unknown command '%s': expected one of the commands 'netregress --help' lists",
		  argv[1]);
	return EXIT_USAGE;
}
