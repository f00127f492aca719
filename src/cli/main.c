// SPDX-License-Identifier: GPL-2.0-only
/* netregress: the command table. */
#include <stdio.h>
#include <string.h>

#include "base/build.h"
#include "cli/cli.h"
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
