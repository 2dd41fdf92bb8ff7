// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_action.c - every action of a rule and of the default, redirect
 * with and without its target's port in ta_ports, and forwarding through
 * the tap's fdb. Redirect targets are "lo" (ifindex 1), which every
 * namespace has.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "harness.h"

#define LO_IFINDEX 1

static int one_rule(uint32_t action, uint32_t ifindex)
{
	struct ta_rule_spec r = {.fields = F(TA_F_IP_PROTO),
				 .ip_proto = 17,
				 .action = action,
				 .ifindex = ifindex};

	return install(&r, 1, TA_ACT_PASS);
}

static int action_pass(void)
{
	struct pkt p;

	OK(one_rule(TA_ACT_PASS, 0));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_RULE(0, 1, 60);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_PASS, 1, 60);
	return 0;
}

static int action_drop(void)
{
	struct pkt p;

	OK(one_rule(TA_ACT_DROP, 0));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_DROP, 1, 60);
	return 0;
}

static int action_tx(void)
{
	struct pkt p;

	OK(one_rule(TA_ACT_TX, 0));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_TX);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_TX, 1, 60);
	return 0;
}

static int action_redirect(void)
{
	struct pkt p;

	OK(one_rule(TA_ACT_REDIRECT, LO_IFINDEX));
	CHECK(port_of(LO_IFINDEX), "install did not add the target to ta_ports");
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_REDIRECT);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_REDIRECT, 1, 60);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_REDIRECT_FAIL, 0, 0);
	return 0;
}

/* A target missing from ta_ports drops the frame and says so. */
static int action_redirect_missing(void)
{
	uint32_t port;
	struct pkt p;

	OK(one_rule(TA_ACT_REDIRECT, LO_IFINDEX));
	port = port_of(LO_IFINDEX);
	CHECK(!bpf_map_delete_elem(env.pl.maps.ta_ports, &port), "delete port");
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_REDIRECT_FAIL, 1, 60);
	EXPECT_RULE(0, 1, 60);
	return 0;
}

static int action_default(void)
{
	struct ta_policy_spec spec = {.default_action = TA_ACT_REDIRECT,
				      .default_ifindex = LO_IFINDEX};
	struct pkt p;

	OK(install(NULL, 0, TA_ACT_DROP));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	OK(install(NULL, 0, TA_ACT_TX));
	EXPECT_VERDICT(&p, XDP_TX);
	OK(install_spec(&spec));
	EXPECT_VERDICT(&p, XDP_REDIRECT);
	EXPECT_RULE(TA_MAX_RULES, 1, 60);
	spec.default_ifindex = 0; /* redirect to nowhere is refused */
	CHECK(install_spec(&spec) < 0 && env.e.input, "redirect without ifindex accepted");
	return 0;
}

static int forward_hit(void)
{
	struct pkt p;

	OK(install(NULL, 0, TA_ACT_FORWARD));
	OK(fdb_add(PEER_MAC, LO_IFINDEX));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_REDIRECT);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_HIT, 1, 60);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_MISS, 0, 0);
	return 0;
}

static int forward_miss(void)
{
	struct pkt p;

	OK(install(NULL, 0, TA_ACT_FORWARD));
	OK(fdb_add(OTHER_MAC, LO_IFINDEX));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_MISS, 1, 60);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_HIT, 0, 0);
	/* after del the entry is gone and so is its now unused port */
	OK(fdb_add(PEER_MAC, LO_IFINDEX));
	OK(fdb_del(PEER_MAC));
	EXPECT_VERDICT(&p, XDP_PASS);
	OK(fdb_del(OTHER_MAC));
	CHECK(!port_of(LO_IFINDEX), "port still in ta_ports after its last fdb entry went");
	return 0;
}

/* Group addresses always go to the bridge, whatever the fdb says. */
static int forward_broadcast(void)
{
	static const uint8_t mcast[6] = {0x33, 0x33, 0, 0, 0, 1};
	struct pkt p;

	OK(install(NULL, 0, TA_ACT_FORWARD));
	CHECK(fdb_add(mcast, LO_IFINDEX) == -EINVAL,
	      "multicast fdb entry accepted");
	frame_arp(&p, GUEST_MAC, GUEST_IP4); /* to ff:ff:ff:ff:ff:ff */
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_l2(&p, mcast, GUEST_MAC, 0x88b5);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_MISS, 2, 60 + 60);
	return 0;
}

static int forward_port_missing(void)
{
	uint32_t port;
	struct pkt p;

	OK(install(NULL, 0, TA_ACT_FORWARD));
	OK(fdb_add(PEER_MAC, LO_IFINDEX));
	port = port_of(LO_IFINDEX);
	CHECK(!bpf_map_delete_elem(env.pl.maps.ta_ports, &port), "delete port");
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_FDB_HIT, 1, 60);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_REDIRECT_FAIL, 1, 60);
	return 0;
}

/* An action value the program does not know (a corrupt map) aborts. */
static int action_corrupt_aborts(void)
{
	struct ta_rule_action bad = {.action = 0xfe};
	uint32_t version;
	struct ta_policy head;
	struct pkt p;

	OK(one_rule(TA_ACT_DROP, 0));
	version = env.policy * TA_SLOTS + active_slot();
	CHECK(!bpf_map_lookup_elem(env.pl.maps.ta_policy, &version, &head), "header");
	CHECK(!bpf_map_update_elem(env.pl.maps.ta_rules, &head.rule_base, &bad, BPF_ANY),
	      "update: %s", strerror(errno));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_ABORTED);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_ABORTED, 1, 60);
	return 0;
}

/* Removing an fdb entry keeps a port the policy still redirects to. */
static int fdb_del_keeps_used_port(void)
{
	struct pkt p;

	OK(one_rule(TA_ACT_REDIRECT, LO_IFINDEX));
	OK(fdb_add(PEER_MAC, LO_IFINDEX));
	OK(fdb_del(PEER_MAC));
	CHECK(fdb_del(PEER_MAC) == -ENOENT,
	      "second delete did not report ENOENT");
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_REDIRECT);
	/* the version before keeps it (its rules name it) until it is
	 * replaced in turn */
	OK(install(NULL, 0, TA_ACT_PASS));
	CHECK(port_of(LO_IFINDEX), "port of the version before removed");
	OK(install(NULL, 0, TA_ACT_PASS));
	CHECK(!port_of(LO_IFINDEX), "unused port kept after two new versions");
	return 0;
}

const struct test action_tests[] = {
	{"action_pass", action_pass},
	{"action_drop", action_drop},
	{"action_tx", action_tx},
	{"action_redirect", action_redirect},
	{"action_redirect_missing", action_redirect_missing},
	{"action_default", action_default},
	{"action_corrupt_aborts", action_corrupt_aborts},
	{"forward_hit", forward_hit},
	{"forward_miss", forward_miss},
	{"forward_broadcast", forward_broadcast},
	{"forward_port_missing", forward_port_missing},
	{"fdb_del_keeps_used_port", fdb_del_keeps_used_port},
	{NULL, NULL},
};
