// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_guard.c - every guard reason, the frames each check lets through,
 * and the documented exceptions (DHCP from 0.0.0.0, ARP probes, DAD from
 * ::). The guest is GUEST_MAC, GUEST_IP4, GUEST_IP6.
 */
#include <string.h>

#include "harness.h"

static int guard_on(uint32_t flags)
{
	struct ta_guard_spec g = {.flags = flags, .nr_ip4 = 1, .nr_ip6 = 1};

	memcpy(g.mac, GUEST_MAC, 6);
	g.ip4[0] = GUEST_IP4;
	memcpy(g.ip6[0], GUEST_IP6, 16);
	return guard_set(&g);
}

#define GUARD_ALL (TA_GUARD_F_MAC | TA_GUARD_F_IP4 | TA_GUARD_F_IP6)

static int guard_src_mac(void)
{
	struct pkt p;

	OK(guard_on(TA_GUARD_F_MAC));
	frame_l2(&p, PEER_MAC, GUEST_MAC, 0x88b5);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_l2(&p, PEER_MAC, OTHER_MAC, 0x88b5);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_SRC_MAC, 1, 60);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_DROP, 1, 60);
	return 0;
}

static int guard_ip4_src(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, OTHER_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_IP4_SRC, 1, 60);
	return 0;
}

/* 0.0.0.0 is allowed for a DHCP request (UDP to 67) and nothing else. */
static int guard_ip4_dhcp(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	frame_udp4(&p, 0, IP4(255, 255, 255, 255), 68, 67);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, 0, IP4(255, 255, 255, 255), 68, 68);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_tcp4(&p, 0, PEER_IP4, 68, 67);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_IP4_SRC, 2, 60 + 54);
	return 0;
}

static int guard_ip6_src(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp6(&p, OTHER_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_IP6_SRC, 1, 62);
	return 0;
}

/* :: is allowed for duplicate address detection: NS and MLD reports. */
static int guard_ip6_dad(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(&p, ZERO_IP6, PEER_IP6, 58);
	pkt_nd(&p, 135, GUEST_IP6);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_icmp6(&p, ZERO_IP6, 143); /* MLDv2 report */
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_icmp6(&p, ZERO_IP6, 128); /* echo request from :: */
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp6(&p, ZERO_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_IP6_SRC, 2, 62 + 62);
	return 0;
}

static int guard_arp_sha(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	frame_arp(&p, GUEST_MAC, GUEST_IP4);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_arp(&p, OTHER_MAC, GUEST_IP4); /* Ethernet source is right */
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_ARP_SHA, 1, 60);
	return 0;
}

static int guard_arp_spa(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	frame_arp(&p, GUEST_MAC, OTHER_IP4);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_arp(&p, GUEST_MAC, 0); /* probe: allowed */
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_ARP_SPA, 1, 60);
	return 0;
}

static void nd_frame(struct pkt *p, uint8_t type, const uint8_t target[16],
		     uint8_t opt, const uint8_t *lladdr)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, GUEST_IP6, PEER_IP6, 58);
	pkt_nd(p, type, target);
	if (lladdr)
		pkt_nd_lladdr(p, opt, lladdr);
	pkt_fix_lengths(p);
}

static int guard_nd_target(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	nd_frame(&p, 136, GUEST_IP6, 2, GUEST_MAC);
	EXPECT_VERDICT(&p, XDP_PASS);
	nd_frame(&p, 136, OTHER_IP6, 2, GUEST_MAC);
	EXPECT_VERDICT(&p, XDP_DROP);
	nd_frame(&p, 135, OTHER_IP6, 1, GUEST_MAC); /* NS may ask anything */
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_ND_TARGET, 1, 86);
	return 0;
}

static int guard_nd_lladdr(void)
{
	struct pkt p;

	OK(guard_on(GUARD_ALL));
	nd_frame(&p, 135, PEER_IP6, 1, OTHER_MAC);
	EXPECT_VERDICT(&p, XDP_DROP);
	nd_frame(&p, 136, GUEST_IP6, 2, OTHER_MAC);
	EXPECT_VERDICT(&p, XDP_DROP);
	nd_frame(&p, 136, GUEST_IP6, 0, NULL); /* no option: nothing to check */
	EXPECT_VERDICT(&p, XDP_PASS);
	/* a foreign lladdr behind a harmless option is found too */
	nd_frame(&p, 135, PEER_IP6, 14, GUEST_MAC); /* nonce-type option */
	pkt_nd_lladdr(&p, 1, OTHER_MAC);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_ND_LLADDR, 3, 86 + 86 + 94);
	return 0;
}

/* Each flag turns on only its own checks; no flag, no checks. */
static int guard_flags(void)
{
	struct pkt p;

	OK(guard_on(0));
	frame_udp4(&p, OTHER_IP4, PEER_IP4, 1, 2);
	memcpy(p.d + 6, OTHER_MAC, 6);
	EXPECT_VERDICT(&p, XDP_PASS);
	OK(guard_on(TA_GUARD_F_IP6));
	EXPECT_VERDICT(&p, XDP_PASS);
	OK(guard_on(TA_GUARD_F_IP4));
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_IP4_SRC, 1, 60);
	OK(guard_on(TA_GUARD_F_MAC));
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_GUARD + TA_GUARD_SRC_MAC, 1, 60);
	return 0;
}

const struct test guard_tests[] = {
	{"guard_src_mac", guard_src_mac},
	{"guard_ip4_src", guard_ip4_src},
	{"guard_ip4_dhcp_exception", guard_ip4_dhcp},
	{"guard_ip6_src", guard_ip6_src},
	{"guard_ip6_dad_exception", guard_ip6_dad},
	{"guard_arp_sha", guard_arp_sha},
	{"guard_arp_spa_probe_exception", guard_arp_spa},
	{"guard_nd_target", guard_nd_target},
	{"guard_nd_lladdr", guard_nd_lladdr},
	{"guard_flags", guard_flags},
	{NULL, NULL},
};
