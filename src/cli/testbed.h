/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a command's tests run: servers on loopback, or a veth topology, kept up across steps. */
#ifndef NR_CLI_TESTBED_H
#define NR_CLI_TESTBED_H

#include <sys/types.h>

#include "engine/session.h"
#include "job/config.h"

struct topo;

struct cli_testbed {
	pid_t lo_server[2];  /* loopback servers for ipv 4 and 6, started on demand */
	uint16_t lo_port[2];
	struct topo *topo;   /* the veth topology up now, or NULL */
	char topo_key[256];  /* the knobs it was made with */
	pid_t topo_server;   /* the server inside it */
	uint16_t topo_port;
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

/* Stop every server and take every topology down. Idempotent. */
void cli_testbed_release(struct cli_testbed *tb);

#endif
