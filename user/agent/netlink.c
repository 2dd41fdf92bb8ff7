// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* netlink.c - links through rtnetlink (netlink.h). */
#include <errno.h>
#include <net/if.h> /* before the linux/ headers, which define its names too */
#include <net/if_arp.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netlink.h"

/* A burst of thousands of new taps is two or three messages each, of
 * about 1.5 KB: what the agent cannot read while it binds waits here.
 * Past it, the kernel drops events and says ENOBUFS (nl_read()). */
#define NL_RCVBUF (8 << 20)

int nl_open(int rcvbuf)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
	int fd, size = rcvbuf ?: NL_RCVBUF, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	/* FORCE goes past net.core.rmem_max, as CAP_NET_ADMIN may */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int nl_dump(int fd, uint32_t seq)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr ext;
		__u32 ext_mask;
	} req = {
		.nh = {.nlmsg_len = sizeof(req),
		       .nlmsg_type = RTM_GETLINK,
		       .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		       .nlmsg_seq = seq},
		.ifi = {.ifi_family = AF_UNSPEC},
		/* the counters of every link are of no use here */
		.ext = {.rta_len = RTA_LENGTH(sizeof(__u32)), .rta_type = IFLA_EXT_MASK},
		.ext_mask = RTEXT_FILTER_SKIP_STATS,
	};

	return send(fd, &req, sizeof(req), 0) < 0 ? -errno : 0;
}

/* tun's attributes (IFLA_INFO_DATA of kind "tun", and of tapx's). */
static void parse_tun(const struct rtattr *data, struct nl_link *l, int *type)
{
	int len = RTA_PAYLOAD(data);

	for (const struct rtattr *a = RTA_DATA(data); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		switch (a->rta_type & NLA_TYPE_MASK) {
		case IFLA_TUN_TYPE:
			*type = *(__u8 *)RTA_DATA(a);
			break;
		case IFLA_TUN_OWNER:
			l->has_owner = true;
			l->owner = *(__u32 *)RTA_DATA(a);
			break;
		case IFLA_TUN_GROUP:
			l->has_group = true;
			l->group = *(__u32 *)RTA_DATA(a);
			break;
		}
	}
}

/* Whether a string attribute is `word`. */
static bool attr_is(const struct rtattr *a, const char *word)
{
	size_t n = strlen(word);

	return RTA_PAYLOAD(a) >= n && !memcmp(RTA_DATA(a), word, n) &&
	       (RTA_PAYLOAD(a) == n || !((const char *)RTA_DATA(a))[n]);
}

/* IFLA_LINKINFO: the kind, and tun's attributes for tun and tapx. */
static void parse_linkinfo(const struct rtattr *info, struct nl_link *l, bool *tun_like,
			   int *type)
{
	const struct rtattr *data = NULL;
	int len = RTA_PAYLOAD(info);

	for (const struct rtattr *a = RTA_DATA(info); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if ((a->rta_type & NLA_TYPE_MASK) == IFLA_INFO_DATA)
			data = a;
		if ((a->rta_type & NLA_TYPE_MASK) != IFLA_INFO_KIND)
			continue;
		/* tapx in tun_compat mode calls itself tun */
		*tun_like = attr_is(a, "tun") || attr_is(a, "tapx");
	}
	if (*tun_like && data)
		parse_tun(data, l, type);
}

static void parse_link(const struct nlmsghdr *nh, struct nl_link *l)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(nh);
	int len = nh->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi)), type = -1;
	bool tun_like = false;

	memset(l, 0, sizeof(*l));
	l->ifindex = ifi->ifi_index;
	l->deleted = nh->nlmsg_type == RTM_DELLINK;
	for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		if (a->rta_type == IFLA_IFNAME)
			memcpy(l->name, RTA_DATA(a),
			       RTA_PAYLOAD(a) < IF_NAMESIZE - 1 ? RTA_PAYLOAD(a) : IF_NAMESIZE - 1);
		else if (a->rta_type == IFLA_LINKINFO)
			parse_linkinfo(a, l, &tun_like, &type);
	}
	/* without tun's type (a tapx that gives no attributes), an
	 * Ethernet device of tun's or tapx's is a tap */
	l->tap = tun_like && (type >= 0 ? type == IFF_TAP : ifi->ifi_type == ARPHRD_ETHER);
}

/* One datagram's messages; enum nl_news flags or -errno. */
static int read_messages(const void *buf, int n, uint32_t seq,
			 void (*fn)(void *arg, const struct nl_link *link), void *arg)
{
	const struct nlmsghdr *nh;
	struct nl_link link;
	int news = 0;

	for (nh = buf; NLMSG_OK(nh, n); nh = NLMSG_NEXT(nh, n)) {
		bool ours = seq && nh->nlmsg_seq == seq;

		if (ours && nh->nlmsg_flags & NLM_F_DUMP_INTR)
			news |= NL_DUMP_AGAIN;
		if (ours && nh->nlmsg_type == NLMSG_DONE)
			news |= NL_DUMP_DONE;
		if (ours && nh->nlmsg_type == NLMSG_ERROR) {
			const struct nlmsgerr *err = NLMSG_DATA(nh);

			if (err->error)
				return err->error;
			news |= NL_DUMP_DONE;
		}
		if ((nh->nlmsg_type == RTM_NEWLINK || nh->nlmsg_type == RTM_DELLINK) &&
		    nh->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
			parse_link(nh, &link);
			fn(arg, &link);
		}
	}
	return news;
}

int nl_read(int fd, uint32_t seq, void (*fn)(void *arg, const struct nl_link *link), void *arg)
{
	/* a dump's datagram is at most 32 KiB; an event's one message */
	static char buf[64 << 10] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct iovec iov = {buf, sizeof(buf)};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	int news = 0, got;
	ssize_t n;

	for (;;) {
		n = recvmsg(fd, &msg, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS) {
			news |= NL_OVERRUN;
			continue;
		}
		if (n < 0)
			return errno == EAGAIN ? news : -errno;
		if (msg.msg_flags & MSG_TRUNC)
			news |= NL_OVERRUN; /* a message lost all the same */
		got = read_messages(buf, (int)n, seq, fn, arg);
		if (got < 0)
			return got;
		news |= got;
	}
}
