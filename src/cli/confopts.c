// SPDX-License-Identifier: GPL-2.0-only
/* The workload flags every measuring command shares; see confopts.h. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/confopts.h"

/* A size flag of at least one byte and at most max; false on a bad value
 * (the error printed, naming it). */
static bool size_flag(const char *flag, const char *arg, uint64_t max,
		      uint64_t *out)
{
	if (!cli_size(flag, arg, max, out))
		return false;
	if (!*out) {
		cli_error("invalid %s '%s': expected at least 1 byte", flag, arg);
		return false;
	}
	return true;
}

int cli_config_opt(int opt, const char *arg, struct job_config *c)
{
	struct base_err err = { "" };
	uint64_t v;

	switch (opt) {
	case 'n': {
		size_t len = strlen(arg);
		char pct[16];

		/* "200%": a share of the cpus, as lkp's nr_threads */
		if (len > 1 && arg[len - 1] == '%' && len - 1 < sizeof(pct)) {
			memcpy(pct, arg, len - 1);
			pct[len - 1] = '\0';
			if (base_parse_u64(pct, 1, JOB_MAX_STREAMS_PCT, &v, NULL)) {
				cli_error("invalid --streams '%s': expected a share of the cpus from 1%% to %d%%",
					  arg, JOB_MAX_STREAMS_PCT);
				return -1;
			}
			c->streams_pct = (uint32_t)v;
			c->streams = 1;
			return 1;
		}
		if (!cli_u64("--streams", arg, 1, JOB_MAX_STREAMS, &v))
			return -1;
		c->streams = (uint32_t)v;
		c->streams_pct = 0;
		return 1;
	}
	case CLI_OPT_THREADS:
		if (!cli_u64("--threads", arg, 1, JOB_MAX_THREADS, &v))
			return -1;
		c->threads = (uint32_t)v;
		return 1;
	case 'm':
		return size_flag("--msg", arg, JOB_MAX_MSG, &c->msg_bytes) ? 1 : -1;
	case CLI_OPT_RMSG:
		return size_flag("--rmsg", arg, JOB_MAX_MSG, &c->rmsg_bytes) ? 1 : -1;
	case CLI_OPT_TRANSFER:
		return size_flag("--transfer", arg, JOB_MAX_TRANSFER, &c->transfer_bytes) ? 1 : -1;
	case CLI_OPT_DIR:
		if (job_dir_parse(arg, &c->dir, &err)) {
			cli_error("invalid --dir: %s", err.msg);
			return -1;
		}
		return 1;
	case CLI_OPT_SNDBUF:
		return cli_size("--sndbuf", arg, CLI_BUF_MAX, &c->sndbuf) ? 1 : -1;
	case CLI_OPT_RCVBUF:
		return cli_size("--rcvbuf", arg, CLI_BUF_MAX, &c->rcvbuf) ? 1 : -1;
	case 's':
		if (!cli_size("-s", arg, CLI_BUF_MAX, &c->sndbuf))
			return -1;
		c->rcvbuf = c->sndbuf;
		return 1;
	case CLI_OPT_RSNDBUF:
		return cli_size("--remote-sndbuf", arg, CLI_BUF_MAX, &c->remote_sndbuf) ? 1 : -1;
	case CLI_OPT_RRCVBUF:
		return cli_size("--remote-rcvbuf", arg, CLI_BUF_MAX, &c->remote_rcvbuf) ? 1 : -1;
	case 'S':
		if (!cli_size("-S", arg, CLI_BUF_MAX, &c->remote_sndbuf))
			return -1;
		c->remote_rcvbuf = c->remote_sndbuf;
		return 1;
	case 'D':
		c->nodelay = true;
		return 1;
	case CLI_OPT_CC:
		if (strlen(arg) >= sizeof(c->cc)) {
			cli_error("invalid --cc '%s': expected a name like cubic or bbr", arg);
			return -1;
		}
		snprintf(c->cc, sizeof(c->cc), "%s", arg);
		return 1;
	case CLI_OPT_BATCH:
		if (!cli_u64("--batch", arg, 1, JOB_MAX_BATCH, &v))
			return -1;
		c->batch = (uint32_t)v;
		return 1;
	case CLI_OPT_UDP_GSO:
		if (!cli_size("--udp-gso", arg, 65535, &v))
			return -1;
		if (v < JOB_UDP_HDR_BYTES) {
			cli_error("invalid --udp-gso '%s': expected a datagram size of at least %d bytes",
				  arg, JOB_UDP_HDR_BYTES);
			return -1;
		}
		c->udp_gso = (uint32_t)v;
		return 1;
	case CLI_OPT_UDP_GRO:
		c->udp_gro = true;
		return 1;
	case CLI_OPT_SENDFILE_FROM:
		if (job_sendfile_from_parse(arg, &c->sendfile_from)) {
			cli_error("invalid --sendfile-from '%s': expected tmp (a file in $TMPDIR or /tmp) or memfd",
				  arg);
			return -1;
		}
		return 1;
	case CLI_OPT_BUF_OFFSET:
		if (!cli_u64("--buf-offset", arg, 0, JOB_MAX_BUF_OFFSET, &v))
			return -1;
		c->buf_offset = (int32_t)v;
		return 1;
	case CLI_OPT_CPU_LATENCY:
		if (!strcmp(arg, "none")) {
			c->hold_cpu_latency = false;
			return 1;
		}
		if (base_parse_u64(arg, 0, JOB_MAX_CPU_LATENCY_US, &v, NULL)) {
			cli_error("invalid --cpu-latency '%s': expected microseconds from 0 to %d, or none",
				  arg, JOB_MAX_CPU_LATENCY_US);
			return -1;
		}
		c->hold_cpu_latency = true;
		c->cpu_latency_us = (uint32_t)v;
		return 1;
	case CLI_OPT_SPIN:
		c->spin = true;
		return 1;
	case CLI_OPT_CPUS:
		return cli_cpulist("--cpus", arg, &c->cpus) ? 1 : -1;
	case CLI_OPT_RCPUS:
		return cli_cpulist("--remote-cpus", arg, &c->remote_cpus) ? 1 : -1;
	case CLI_OPT_PLACEMENT:
		if (job_placement_parse(arg, &c->placement)) {
			cli_error("invalid --placement '%s': expected split (client and server workers on distinct cpus), pair (each end on every cpu, a flow's two ends on one), auto (pair for streams of 2 flows or more, else split) or free (not pinned)",
				  arg);
			return -1;
		}
		return 1;
	case 'r': {
		const char *comma = strchr(arg, ',');
		char req[32];

		if (!comma || (size_t)(comma - arg) >= sizeof(req)) {
			cli_error("invalid -r '%s': expected REQ,RESP sizes like 1,1 or 64,1K", arg);
			return -1;
		}
		snprintf(req, sizeof(req), "%.*s", (int)(comma - arg), arg);
		if (!cli_size("-r (request)", req, JOB_MAX_MSG, &c->req_bytes) ||
		    !cli_size("-r (response)", comma + 1, JOB_MAX_MSG, &c->resp_bytes))
			return -1;
		if (!c->req_bytes || !c->resp_bytes) {
			cli_error("invalid -r '%s': sizes must be at least 1 byte", arg);
			return -1;
		}
		return 1;
	}
	case CLI_OPT_BURST:
		if (!cli_u64("--burst", arg, 1, JOB_MAX_BURST, &v))
			return -1;
		c->burst = (uint32_t)v;
		return 1;
	case CLI_OPT_RATE:
		if (base_parse_double(arg, 1, JOB_MAX_RATE, &c->rate, &err)) {
			cli_error("invalid --rate: %s", err.msg);
			return -1;
		}
		return 1;
	case CLI_OPT_RR_TIMEOUT:
		return cli_duration("--timeout", arg, &c->rr_timeout_ns) ? 1 : -1;
	case '4':
		c->ipv = 4;
		return 1;
	case '6':
		c->ipv = 6;
		return 1;
	default:
		return 0;
	}
}

