/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * netlink.h - the links of one network namespace through rtnetlink: a
 * socket subscribed to RTNLGRP_LINK (opened in the namespace it watches:
 * a socket stays in the namespace it was made in), a full RTM_GETLINK
 * dump, and every RTM_NEWLINK and RTM_DELLINK read into struct nl_link.
 */
#ifndef TA_AGENT_NETLINK_H
#define TA_AGENT_NETLINK_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

/* A link as one message tells it. */
struct nl_link {
	uint32_t ifindex;
	char name[IF_NAMESIZE];
	bool deleted; /* RTM_DELLINK */
	bool tap;     /* tun's or tapx's device in tap mode */
	bool has_owner, has_group;
	uint32_t owner, group; /* IFLA_TUN_OWNER, IFLA_TUN_GROUP */
};

/* A socket of this namespace, nonblocking, subscribed to link events,
 * with a receive buffer of `rcvbuf` bytes (0: the default of
 * nl_open()). The fd, or -errno. */
int nl_open(int rcvbuf);

/* Ask for every link of the namespace (answered on the same socket,
 * among the events, as messages of sequence number `seq`). 0 or -errno. */
int nl_dump(int fd, uint32_t seq);

/* What nl_read() saw besides links. */
enum nl_news {
	NL_DUMP_DONE = 1 << 0,	  /* the dump of sequence `seq` ended */
	NL_DUMP_AGAIN = 1 << 1,	  /* it was interrupted: ask again */
	NL_OVERRUN = 1 << 2,	  /* events were lost (ENOBUFS): dump again */
};

/*
 * Read every message queued on `fd`, calling fn for each link; `seq` is
 * the dump under way (0: none). Returns enum nl_news flags, or -errno
 * when the socket fails.
 */
int nl_read(int fd, uint32_t seq, void (*fn)(void *arg, const struct nl_link *link), void *arg);

#endif /* TA_AGENT_NETLINK_H */
