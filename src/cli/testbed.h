/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a command's tests run: servers on loopback, or a veth topology, kept up across steps. */
#ifndef NR_CLI_TESTBED_H
#define NR_CLI_TESTBED_H

#include <sys/types.h>

#include "engine/session.h"
#include "job/config.h"

struct topo;
struct topo_sysctls;

struct cli_testbed {
	pid_t lo_server[2];  /* loopback servers for ipv 4 and 6, started on demand */
	uint16_t lo_port[2];
	struct topo *topo;   /* the veth topology up now, or NULL */
	char topo_key[256];  /* the knobs it was made with */
	pid_t topo_server;   /* the server inside it */
	uint16_t topo_port;
	/* the sysctls cli_testbed_veth_sysctls() sets in its client and
	 * server namespaces, read there the first time; NULL: not yet */
	struct topo_sysctls *topo_sysctls[2];
};

void cli_testbed_init(struct cli_testbed *tb);
/*
 * Make sure a server for cfg runs (a topology changes only when its knobs
 * do), and point o at it: host, port, same_host. Returns 0 or -errno.
 */
int cli_testbed_prepare(struct cli_testbed *tb, const struct job_config *cfg,
			struct engine_client_opts *o, struct base_err *err);
/* Run the client where cfg says (inside the client namespace for veth). */
int cli_testbed_run(struct cli_testbed *tb, const struct engine_client_opts *o,
		    struct engine_run *run, struct base_err *err);
/* The veth part (testbed_veth.c). */
int cli_testbed_veth(struct cli_testbed *tb, const struct job_config *cfg,
		     struct engine_client_opts *o, struct base_err *err);
int cli_testbed_veth_run(struct cli_testbed *tb, const struct engine_client_opts *o,
			 struct engine_run *run, struct base_err *err);
void cli_testbed_veth_down(struct cli_testbed *tb);
/*
 * Inside both namespaces of the veth topology up now, set each of
 * names[0..n) that the namespace has a writable copy of its own of to
 * values[i], or where that is NULL to found[i] (the value before the job
 * in the host's namespace: a namespace made while a label's value was set
 * there may have copied it), reading each back (topo_sysctls_new_netns(),
 * topo_sysctls_apply()). The others are the machine's, for the caller to
 * set where loopback runs. Returns 0 or -errno with err naming the
 * namespace, the sysctl and the value.
 */
int cli_testbed_veth_sysctls(struct cli_testbed *tb, const char *const *names,
			     const char *const *values, const char *const *found, size_t n,
			     struct base_err *err);

/* Stop every server and take every topology down. Idempotent. */
void cli_testbed_release(struct cli_testbed *tb);

#endif
