/* SPDX-License-Identifier: GPL-2.0 */
/* nlreq.h - the rtnetlink request builder of the VM test tools (in
 * tapx-test.c), on its own for the tools that use nothing else of it. */
#ifndef NLREQ_H
#define NLREQ_H

#include <linux/rtnetlink.h>

/*
 * An rtnetlink link request, built in place: nl_init() starts one of TYPE
 * for interface NAME (none if NULL), asking for an ack; nl_put() adds an
 * attribute; nl_nest() opens a nested one, which nl_end() closes. Sending
 * it is each tool's own (its socket, its way of reporting errors).
 */
struct nlreq {
	struct nlmsghdr nh;
	struct ifinfomsg ifi;
	char attrs[512];
};
void nl_init(struct nlreq *r, int type, const char *name);
void nl_put(struct nlreq *r, unsigned short type, const void *data, int len);
struct rtattr *nl_nest(struct nlreq *r, unsigned short type);
void nl_end(struct nlreq *r, struct rtattr *nest);

#endif /* NLREQ_H */
