// SPDX-License-Identifier: GPL-2.0-only
/* The veth part of a testbed: namespaces, a server inside, the client entering its side. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/testbed.h"
#include "topo/topo.h"

void cli_testbed_veth_down(struct cli_testbed *tb)
{
	/* the server first: a cgroup with a process in it cannot go */
	engine_local_server_stop(tb->topo_server);
	tb->topo_server = 0;
	topo_free(tb->topo);
	tb->topo = NULL;
	tb->topo_key[0] = '\0';
}

int cli_testbed_veth(struct cli_testbed *tb, const struct job_config *cfg,
		     struct engine_client_opts *o, struct base_err *err)
{
	struct topo_spec spec;
	char key[sizeof(tb->topo_key)];
	const char *srv;
	int ret;

	snprintf(key, sizeof(key), "mtu=%" PRIu32 " gro=%d gso=%d tso=%d tbf=%" PRIu64
		 " quota=%" PRIu32, cfg->mtu, cfg->gro, cfg->gso, cfg->tso,
		 cfg->tbf_rate_bps, cfg->cpu_quota_pct);
	if (!tb->topo || strcmp(key, tb->topo_key)) {
		cli_testbed_veth_down(tb);
		topo_spec_init(&spec);
		spec.mtu = cfg->mtu;
		spec.gro = cfg->gro;
		spec.gso = cfg->gso;
		spec.tso = cfg->tso;
		spec.tbf_rate_bps = cfg->tbf_rate_bps;
		spec.cpu_quota_pct = cfg->cpu_quota_pct;
		if ((ret = topo_up(&spec, &tb->topo, err)))
			return ret;
		snprintf(tb->topo_key, sizeof(tb->topo_key), "%s", key);
		/* one dual-stack server in the server namespace */
		ret = engine_server_spawn(topo_netns_path(tb->topo, TOPO_SERVER),
					  topo_addr(tb->topo, TOPO_SERVER, 6) ? "::" : "0.0.0.0",
					  &tb->topo_server, &tb->topo_port, err);
		if (!ret)
			ret = topo_server_prepare(tb->topo, tb->topo_server, err);
		if (ret) {
			cli_testbed_veth_down(tb);
			return ret;
		}
	}
	srv = topo_addr(tb->topo, TOPO_SERVER, cfg->ipv);
	if (!srv)
		return base_err_set(err, -EAFNOSUPPORT,
				    "the veth topology has no ipv%d address (no IPv6 in this kernel?)",
				    cfg->ipv);
	o->host = srv;
	o->port = tb->topo_port;
	/* each end counts in its own namespace: the server collects too */
	o->same_host = false;
	return 0;
}

int cli_testbed_veth_run(struct cli_testbed *tb, const struct engine_client_opts *o,
			 struct engine_run *run, struct base_err *err)
{
	int saved = -1, ret;

	memset(run, 0, sizeof(*run));
	if (!tb->topo)
		return base_err_set(err, -EINVAL, "no topology is up");
	if ((ret = topo_enter(tb->topo, TOPO_CLIENT, &saved, err)))
		return ret;
	ret = engine_client_run(o, run, err);
	topo_leave(saved);
	return ret;
}
