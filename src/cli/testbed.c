// SPDX-License-Identifier: GPL-2.0-only
/* Servers and topologies for a sequence of runs; see testbed.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/testbed.h"

void cli_testbed_init(struct cli_testbed *tb)
{
	memset(tb, 0, sizeof(*tb));
}

static int loopback(struct cli_testbed *tb, const struct job_config *cfg,
		    struct engine_client_opts *o, struct base_err *err)
{
	int i = cfg->ipv == 6;
	int ret;

	if (!tb->lo_server[i]) {
		ret = engine_local_server_start(cfg->ipv, &tb->lo_server[i],
						&tb->lo_port[i], err);
		if (ret) {
			tb->lo_server[i] = 0;
			return ret;
		}
	}
	o->host = i ? "::1" : "127.0.0.1";
	o->port = tb->lo_port[i];
	o->same_host = true;
	return 0;
}

int cli_testbed_prepare(struct cli_testbed *tb, const struct job_config *cfg,
			struct engine_client_opts *o, struct base_err *err)
{
	if (job_config_is_veth(cfg))
		return cli_testbed_veth(tb, cfg, o, err);
	return loopback(tb, cfg, o, err);
}

int cli_testbed_run(struct cli_testbed *tb, const struct engine_client_opts *o,
		    struct engine_run *run, struct base_err *err)
{
	if (job_config_is_veth(&o->cfg))
		return cli_testbed_veth_run(tb, o, run, err);
	return engine_client_run(o, run, err);
}

void cli_testbed_release(struct cli_testbed *tb)
{
	for (int i = 0; i < 2; i++) {
		engine_local_server_stop(tb->lo_server[i]);
		tb->lo_server[i] = 0;
	}
	cli_testbed_veth_down(tb);
}
