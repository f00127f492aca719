// SPDX-License-Identifier: GPL-2.0-only
/* The workload flags every measuring command shares; see confopts.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/confopts.h"
#include "job/params.h"

int cli_config_getopt(const struct option *own, const char *own_short,
		      struct option *out, char *shortopts, size_t len)
{
	size_t n = 0, o;

	for (; own->name; own++) {
		if (n + 1 >= CLI_MAX_OPTIONS)
			return -ENOSPC;
		out[n++] = *own;
	}
	o = (size_t)snprintf(shortopts, len, "%s", own_short);
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];

		if (p->lopt) {
			if (n + 1 >= CLI_MAX_OPTIONS)
				return -ENOSPC;
			out[n++] = (struct option){
				p->lopt, p->metavar ? required_argument : no_argument,
				NULL, p->sopt ? p->sopt : CLI_OPT_PARAM + (int)i
			};
		}
		if (p->sopt) {
			if (o + 3 > len)
				return -ENOSPC;
			shortopts[o++] = (char)p->sopt;
			if (p->metavar)
				shortopts[o++] = ':';
			shortopts[o] = '\0';
		}
	}
	out[n] = (struct option){ NULL, 0, NULL, 0 };
	return 0;
}

bool cli_config_needs_value(int letter)
{
	const struct job_pdef *p = job_pdef_by_sopt(letter);

	return p && p->metavar;
}

int cli_config_opt(int opt, const char *arg, struct job_config *c)
{
	struct base_err err = { "" };
	const struct job_pdef *p;
	char flag[48];

	if (opt >= CLI_OPT_PARAM && (size_t)(opt - CLI_OPT_PARAM) < job_npdefs)
		p = &job_pdefs[opt - CLI_OPT_PARAM];
	else if (!(p = job_pdef_by_sopt(opt)))
		return 0;
	/* the long name in messages when there is one: -m's are --msg's */
	if (p->lopt)
		snprintf(flag, sizeof(flag), "--%s", p->lopt);
	else
		snprintf(flag, sizeof(flag), "-%c", p->sopt);
	if (job_pdef_cli(p, flag, arg, c, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 1;
}

/* "-m, --msg SIZE", "    --cpus LIST", "-s SIZE" */
static void opt_text(const struct job_pdef *p, char *buf, size_t len)
{
	if (p->sopt && p->lopt)
		snprintf(buf, len, "-%c, --%s%s%s", p->sopt, p->lopt,
			 p->metavar ? " " : "", p->metavar ? p->metavar : "");
	else if (p->sopt)
		snprintf(buf, len, "-%c%s%s", p->sopt, p->metavar ? " " : "",
			 p->metavar ? p->metavar : "");
	else
		snprintf(buf, len, "    --%s%s%s", p->lopt, p->metavar ? " " : "",
			 p->metavar ? p->metavar : "");
}

void cli_config_help(FILE *f)
{
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];
		const char *h = p->help, *nl;
		char opt[64];

		if (!(p->lopt || p->sopt) || !h)
			continue;
		opt_text(p, opt, sizeof(opt));
		fprintf(f, "  %-22s", opt);
		/* a long option runs into the text: it starts on the next line */
		if (strlen(opt) > 22)
			fprintf(f, "\n%24s", "");
		for (;;) {
			nl = strchr(h, '\n');
			fprintf(f, "  %.*s\n", nl ? (int)(nl - h) : (int)strlen(h), h);
			if (!nl)
				break;
			h = nl + 1;
			fprintf(f, "%24s", "");
		}
	}
}

/* Text for groff: a leading '.' or '\'' guarded, '\' and '-' escaped. */
static void man_text(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else if (s[i] == '\n')
			fputc(' ', f);
		else
			fputc(s[i], f);
	}
}

void cli_config_man(FILE *f)
{
	for (size_t i = 0; i < job_npdefs; i++) {
		const struct job_pdef *p = &job_pdefs[i];

		if (!(p->lopt || p->sopt) || !p->help)
			continue;
		fputs(".TP\n", f);
		if (p->sopt)
			fprintf(f, "\\fB\\-%c\\fR%s", p->sopt, p->lopt ? ", " : "");
		if (p->lopt) {
			fputs("\\fB", f);
			man_text(f, "--", 2);
			man_text(f, p->lopt, strlen(p->lopt));
			fputs("\\fR", f);
		}
		if (p->metavar) {
			fputs(" \\fI", f);
			man_text(f, p->metavar, strlen(p->metavar));
			fputs("\\fR", f);
		}
		fputs("\n\\&", f);
		man_text(f, p->help, strlen(p->help));
		fputc('\n', f);
	}
}
