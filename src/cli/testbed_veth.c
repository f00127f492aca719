// SPDX-License-Identifier: GPL-2.0-only
/* The veth part of a testbed: namespaces, a server inside, the client entering its side. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/testbed.h"
#include "collect/exits.h"
#include "topo/topo.h"

void cli_testbed_veth_down(struct cli_testbed *tb)
{
	/* the server first: a cgroup with a process in it cannot go */
	engine_local_server_stop(tb->topo_server);
	tb->topo_server = 0;
	/* their values go with the namespaces */
	for (int side = 0; side < 2; side++) {
		topo_sysctls_free(tb->topo_sysctls[side]);
		tb->topo_sysctls[side] = NULL;
	}
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
	struct engine_client_opts lo = *o;
	struct collect_exits *exits = NULL;
	int saved = -1, ret;

	memset(run, 0, sizeof(*run));
	if (!tb->topo) {
		ret = base_err_set(err, -EINVAL, "no topology is up");
		goto out;
	}
	/* the kernel sends exit records to the first network namespace
	 * only: the listener opens here, before the client's (without it
	 * the meter's own says why it has none) */
	if (!collect_exits_open(&exits, NULL))
		lo.exits = exits;
	if ((ret = topo_enter(tb->topo, TOPO_CLIENT, &saved, err)))
		goto out;
	ret = engine_client_run(&lo, run, err);
	topo_leave(saved);
out:
	collect_exits_free(exits);
	return ret;
}

/* names[]'s values (or found ones) in the order of set s, which holds
 * some of names. */
static int apply_mapped(struct topo_sysctls *s, const char *const *names,
			const char *const *values, const char *const *found, size_t n,
			struct base_err *err)
{
	size_t k = topo_sysctls_count(s);
	const char **v;
	int ret;

	if (!k)
		return 0;
	v = calloc(k, sizeof(*v));
	if (!v)
		return base_err_set(err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < n; j++)
			if (!strcmp(topo_sysctls_name(s, i), names[j]))
				v[i] = values && values[j] ? values[j] : found[j];
	ret = topo_sysctls_apply(s, v, err);
	free(v);
	return ret;
}

int cli_testbed_veth_sysctls(struct cli_testbed *tb, const char *const *names,
			     const char *const *values, const char *const *found, size_t n,
			     struct base_err *err)
{
	static const enum topo_side sides[] = { TOPO_CLIENT, TOPO_SERVER };

	if (!tb->topo)
		return base_err_set(err, -EINVAL, "no topology is up");
	for (size_t i = 0; i < 2; i++) {
		struct topo_sysctls **s = &tb->topo_sysctls[sides[i]];
		struct base_err e = { "" };
		int saved = -1, ret;

		if ((ret = topo_enter(tb->topo, sides[i], &saved, err)))
			return ret;
		if (!*s)
			ret = topo_sysctls_new_netns(names, n, s, &e);
		if (!ret)
			ret = apply_mapped(*s, names, values, found, n, &e);
		topo_leave(saved);
		if (ret)
			return base_err_set(err, ret, "in namespace %s: %s",
					    topo_netns_path(tb->topo, sides[i]), e.msg);
	}
	return 0;
}
