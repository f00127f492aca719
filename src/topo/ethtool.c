// SPDX-License-Identifier: GPL-2.0-only
/* GRO, GSO and TSO of a veth end, through the ethtool ioctl, without the ethtool program. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/ethtool.h>
#include <linux/sockios.h>

#include "topo/internal.h"

struct ns_socket {
	const char *nspath;
	int fd;
	int err; /* errno */
	const char *what;
};

/* A helper thread moves into the namespace and opens the socket there:
 * the caller's thread never changes namespace. */
static void *ns_socket_thread(void *arg)
{
	struct ns_socket *s = arg;
	int nsfd = open(s->nspath, O_RDONLY | O_CLOEXEC);

	if (nsfd < 0) {
		s->err = errno;
		s->what = "open";
		return NULL;
	}
	if (setns(nsfd, CLONE_NEWNET)) {
		s->err = errno;
		s->what = "setns";
	} else {
		s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (s->fd < 0) {
			s->err = errno;
			s->what = "socket";
		}
	}
	close(nsfd);
	return NULL;
}

static int socket_in(const char *nspath, int *fd, struct base_err *err)
{
	struct ns_socket s = { .nspath = nspath, .fd = -1 };
	pthread_t th;
	int ret;

	ret = pthread_create(&th, NULL, ns_socket_thread, &s);
	if (ret)
		return base_err_set(err, -ret, "cannot start a thread: %s",
				    strerror(ret));
	pthread_join(th, NULL);
	if (s.fd < 0)
		return base_err_set(err, -s.err, "%s '%s': %s", s.what, nspath,
				    strerror(s.err));
	*fd = s.fd;
	return 0;
}

static int eth_value(int fd, const char *ifname, uint32_t cmd, uint32_t *data)
{
	struct ethtool_value ev = { .cmd = cmd, .data = *data };
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ev;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		return -errno;
	*data = ev.data;
	return 0;
}

int topo_ethtool_set(const char *nspath, const char *ifname, int gro,
		     int gso, int tso, struct base_err *err)
{
	const struct {
		const char *name;
		int want;
		uint32_t set, get;
	} f[] = {
		{ "gro", gro, ETHTOOL_SGRO, ETHTOOL_GGRO },
		{ "gso", gso, ETHTOOL_SGSO, ETHTOOL_GGSO },
		{ "tso", tso, ETHTOOL_STSO, ETHTOOL_GTSO },
	};
	int fd = -1, ret = 0;

	if (gro < 0 && gso < 0 && tso < 0)
		return 0;
	if ((ret = socket_in(nspath, &fd, err)))
		return ret;
	for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
		uint32_t v;

		if (f[i].want < 0)
			continue;
		v = (uint32_t)f[i].want;
		if ((ret = eth_value(fd, ifname, f[i].set, &v))) {
			base_err_set(err, ret, "cannot set %s %s on %s: %s",
				     f[i].name, f[i].want ? "on" : "off", ifname,
				     strerror(-ret));
			goto out;
		}
		v = 0;
		if ((ret = eth_value(fd, ifname, f[i].get, &v))) {
			base_err_set(err, ret, "cannot read %s of %s: %s", f[i].name,
				     ifname, strerror(-ret));
			goto out;
		}
		if (!!v != !!f[i].want) {
			ret = base_err_set(err, -EOPNOTSUPP,
					   "%s %s did not take on %s: the device keeps it %s",
					   f[i].name, f[i].want ? "on" : "off",
					   ifname, v ? "on" : "off");
			goto out;
		}
	}
out:
	close(fd);
	return ret;
}
