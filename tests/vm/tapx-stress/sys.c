// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's system calls beside tapx's own: rtnetlink, ethtool -S,
 * opening devices, pinned BPF objects.
 */
#include "stress.h"

/* Sends one request; returns 0 or the errno of the kernel's answer. */
int nl_fd = -1; /* one per process: never shared across fork */

static int nl_talk(struct nlreq *r)
{
	static unsigned int seq;
	int fd = nl_fd;
	char buf[4096];
	struct nlmsghdr *h;
	ssize_t n;

	if (fd < 0) {
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (fd < 0)
			return errno;
		nl_fd = fd;
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
		}
	}
}

/* XDP in native mode; prog -1 detaches. */
int xdp_set(const char *dev, int prog, unsigned int flags)
{
	struct nlreq r;
	struct rtattr *nest;

	flags |= XDP_FLAGS_DRV_MODE;
	nl_init(&r, RTM_SETLINK, dev);
	nest = nl_nest(&r, IFLA_XDP);
	nl_put(&r, IFLA_XDP_FD, &prog, sizeof(prog));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nl_end(&r, nest);
	return nl_talk(&r);
}

int link_up(const char *dev, int up)
{
	struct nlreq r;

	nl_init(&r, RTM_SETLINK, dev);
	r.ifi.ifi_change = IFF_UP;
	r.ifi.ifi_flags = up ? IFF_UP : 0;
	return nl_talk(&r);
}

int link_del(const char *dev)
{
	struct nlreq r;

	nl_init(&r, RTM_DELLINK, dev);
	return nl_talk(&r);
}

int set_mtu(const char *dev, int mtu)
{
	struct nlreq r;

	nl_init(&r, RTM_SETLINK, dev);
	nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	return nl_talk(&r);
}

/* ---- ethtool -S ---- */

int ethtool_stats(const char *dev, struct estats *e)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *gs;
	struct ethtool_stats *gv;
	struct ifreq ifr;
	int s, ret = -1;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	ifr.ifr_data = (void *)&di;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	e->n = di.n_stats;
	gs = calloc(1, sizeof(*gs) + e->n * ETH_GSTRING_LEN);
	gv = calloc(1, sizeof(*gv) + e->n * sizeof(uint64_t));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = e->n;
	ifr.ifr_data = (void *)gs;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	gv->cmd = ETHTOOL_GSTATS;
	gv->n_stats = e->n;
	ifr.ifr_data = (void *)gv;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	e->names = malloc(e->n * ETH_GSTRING_LEN);
	memcpy(e->names, gs->data, e->n * ETH_GSTRING_LEN);
	e->v = malloc(e->n * sizeof(uint64_t));
	memcpy(e->v, gv->data, e->n * sizeof(uint64_t));
	ret = 0;
out:
	close(s);
	return ret;
}

/* A counter by name; a missing one fails the run (returns 0). */
uint64_t est(const struct estats *e, const char *dev, const char *k)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (!strncmp(e->names[i], k, ETH_GSTRING_LEN))
			return e->v[i];
	check(0, "%s: ethtool -S has no counter %s", dev, k);
	return 0;
}

/* ---- devices ---- */

int node_open(int nonblock)
{
	return open(node, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
}

int set_iff(int fd, const char *name, short flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = flags;
	return ioctl(fd, TUNSETIFF, &ifr) < 0 ? errno : 0;
}

int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}
