// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_match.c - every match field alone and combined, first-match order,
 * and 1000 rules. A matching rule drops (or tx), the default passes.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"

static int match_vlan(void)
{
	struct ta_rule_spec r = {
		.fields = F(TA_F_VLAN), .vlan = 100, .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x8100);
	pkt_vlan(&p, 100, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 17);
	pkt_udp(&p, 1, 2);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	p.d[15] = 101; /* VID 101 */
	EXPECT_VERDICT(&p, XDP_PASS);
	p.d[14] = 0x30; /* PCP 1, VID 100 again: only the VID counts */
	p.d[15] = 100;
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2); /* untagged */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_src_mac(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_MAC),
				 .action = TA_ACT_DROP};
	struct pkt p;

	memcpy(r.src_mac, OTHER_MAC, 6);
	OK(install(&r, 1, TA_ACT_PASS));
	frame_l2(&p, PEER_MAC, OTHER_MAC, 0x88b5);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_l2(&p, PEER_MAC, GUEST_MAC, 0x88b5);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_l2(&p, OTHER_MAC, GUEST_MAC, 0x88b5); /* dst is not src */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_dst_mac(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_DST_MAC),
				 .action = TA_ACT_DROP};
	struct pkt p;

	memcpy(r.dst_mac, BCAST_MAC, 6);
	OK(install(&r, 1, TA_ACT_PASS));
	frame_arp(&p, GUEST_MAC, GUEST_IP4);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_ethertype(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_ETHERTYPE),
				 .ethertype = 0x86dd,
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	/* the ethertype after the tags is the one matched */
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x88a8);
	pkt_vlan(&p, 5, 0x8100);
	pkt_vlan(&p, 6, 0x86dd);
	pkt_ip6(&p, GUEST_IP6, PEER_IP6, 59);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	return 0;
}

static int match_src_ip4(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_IP),
				 .src_ip = pfx4(IP4(10, 0, 0, 0), 24),
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp4(&p, IP4(10, 0, 0, 200), PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, IP4(10, 0, 1, 1), PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, IP4(10, 0, 1, 1), IP4(10, 0, 0, 200), 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS); /* only the destination inside */
	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2); /* IPv6: no IPv4 match */
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_arp(&p, GUEST_MAC, IP4(10, 0, 0, 1)); /* not IP: wildcard */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_dst_ip4(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_DST_IP),
				 .dst_ip = pfx4(IP4(192, 168, 1, 1), 32),
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp4(&p, GUEST_IP4, IP4(192, 168, 1, 1), 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, IP4(192, 168, 1, 2), 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, IP4(192, 168, 1, 1), GUEST_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_src_ip6(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_IP),
				 .src_ip = pfx6(GUEST_IP6, 64),
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp6(&p, PEER_IP6, GUEST_IP6, 1, 2); /* fd00::2 in fd00::/64 */
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp6(&p, OTHER_IP6, GUEST_IP6, 1, 2); /* fd00:0:0:9::9 */
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_dst_ip6(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_DST_IP),
				 .dst_ip = pfx6(OTHER_IP6, 128),
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp6(&p, GUEST_IP6, OTHER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

/* IPv6 prefixes are IPv6 only: ::/0 and ::/80 hold ::ffff:0:0/96, where
 * IPv4 frames' addresses are keyed, yet match no IPv4 frame; 0.0.0.0/0
 * matches no IPv6 frame. */
static int match_ip6_any_not_ip4(void)
{
	static const uint8_t any[16];
	struct ta_rule_spec r[] = {
		{.fields = F(TA_F_SRC_IP), .src_ip = pfx6(any, 0),
		 .action = TA_ACT_TX},
		{.fields = F(TA_F_DST_IP), .dst_ip = pfx6(any, 80),
		 .action = TA_ACT_TX},
		{.fields = F(TA_F_DST_IP), .dst_ip = pfx4(0, 0),
		 .action = TA_ACT_DROP},
	};
	struct pkt p;
	uint32_t len6;

	OK(install(r, 3, TA_ACT_PASS));
	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_TX);
	len6 = p.len;
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(2, 1, p.len);
	EXPECT_RULE(0, 1, len6);
	EXPECT_RULE(1, 0, 0);
	frame_arp(&p, GUEST_MAC, GUEST_IP4); /* not IP: no prefix matches */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_ip_proto(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_IP_PROTO),
				 .ip_proto = 6,
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_tcp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS);
	/* IPv6: the upper-layer protocol after extension headers */
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(&p, GUEST_IP6, PEER_IP6, 0);
	pkt_ip6_ext(&p, 6, 0);
	pkt_tcp(&p, 1, 2);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	return 0;
}

static int match_src_port(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_PORT),
				 .sport_lo = 68,
				 .sport_hi = 68,
				 .action = TA_ACT_DROP};
	struct pkt p;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 68, 67);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 67, 68);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_tcp4(&p, GUEST_IP4, PEER_IP4, 68, 80);
	EXPECT_VERDICT(&p, XDP_DROP);
	pkt_init(&p); /* SCTP and UDP-Lite ports too */
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 132);
	pkt_sctp(&p, 68, 9);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	p.d[23] = 136; /* UDP-Lite */
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_icmp4(&p, GUEST_IP4, 8); /* no ports: wildcard */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int match_dst_port_range(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_DST_PORT),
				 .dport_lo = 1000,
				 .dport_hi = 2000,
				 .action = TA_ACT_DROP};
	static const struct {
		uint16_t port;
		uint32_t verdict;
	} cases[] = {{999, XDP_PASS},  {1000, XDP_DROP}, {1500, XDP_DROP},
		     {2000, XDP_DROP}, {2001, XDP_PASS}, {0, XDP_PASS},
		     {65535, XDP_PASS}};
	struct pkt p;
	size_t i;

	OK(install(&r, 1, TA_ACT_PASS));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char where[32];

		snprintf(where, sizeof(where), "dport %u", cases[i].port);
		frame_udp6(&p, GUEST_IP6, PEER_IP6, 5, cases[i].port);
		if (expect_verdict_at(where, &p, cases[i].verdict))
			return -1;
	}
	return 0;
}

static int match_icmp_type(void)
{
	struct ta_rule_spec r[] = {
		{.fields = F(TA_F_ICMP_TYPE),
		 .icmp_type = 8,
		 .action = TA_ACT_DROP},
		{.fields = F(TA_F_ICMP_TYPE),
		 .icmp_type = 128,
		 .action = TA_ACT_TX},
	};
	struct pkt p;

	OK(install(r, 2, TA_ACT_PASS));
	frame_icmp4(&p, GUEST_IP4, 8);
	EXPECT_VERDICT(&p, XDP_DROP);
	frame_icmp4(&p, GUEST_IP4, 0);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_icmp6(&p, GUEST_IP6, 128);
	EXPECT_VERDICT(&p, XDP_TX);
	frame_icmp6(&p, GUEST_IP6, 129);
	EXPECT_VERDICT(&p, XDP_PASS);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 8, 8); /* not ICMP */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

/* A rule matches only when every field it names matches. */
static int match_combined(void)
{
	struct ta_rule_spec r = {
		.fields = F(TA_F_VLAN) | F(TA_F_SRC_MAC) | F(TA_F_ETHERTYPE) |
			  F(TA_F_SRC_IP) | F(TA_F_DST_IP) | F(TA_F_IP_PROTO) |
			  F(TA_F_SRC_PORT) | F(TA_F_DST_PORT),
		.vlan = 7,
		.ethertype = 0x0800,
		.src_ip = pfx4(IP4(10, 0, 0, 0), 8),
		.dst_ip = pfx4(IP4(10, 0, 0, 2), 32),
		.ip_proto = 17,
		.sport_lo = 100,
		.sport_hi = 200,
		.dport_lo = 53,
		.dport_hi = 53,
		.action = TA_ACT_DROP,
	};
	/* byte offsets in the tagged frame, and a value that breaks one field
	 */
	static const struct {
		const char *field;
		int off;
		uint8_t value;
	} breaks[] = {
		{"vlan", 15, 8},       {"src_mac", 11, 0x42},
		{"src_ip", 30, 11},    {"dst_ip", 37, 3},
		{"ip_proto", 27, 136}, {"src_port", 39, 201},
		{"dst_port", 41, 54},
	};
	struct pkt p, bad;
	size_t i;

	memcpy(r.src_mac, GUEST_MAC, 6);
	OK(install(&r, 1, TA_ACT_PASS));
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x8100);
	pkt_vlan(&p, 7, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 17);
	pkt_udp(&p, 150, 53);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	for (i = 0; i < sizeof(breaks) / sizeof(breaks[0]); i++) {
		char where[32];

		snprintf(where, sizeof(where), "%s changed", breaks[i].field);
		bad = p;
		bad.d[breaks[i].off] = breaks[i].value;
		if (expect_verdict_at(where, &bad, XDP_PASS))
			return -1;
	}
	return 0;
}

/* Rules overlap; the first in order decides, later ones only where it
 * does not match, nested prefixes included. */
static int match_first_order(void)
{
	struct ta_rule_spec r[] = {
		{.fields = F(TA_F_SRC_IP) | F(TA_F_DST_PORT),
		 .src_ip = pfx4(IP4(10, 0, 1, 0), 24),
		 .dport_lo = 53,
		 .dport_hi = 53,
		 .action = TA_ACT_TX},
		{.fields = F(TA_F_SRC_IP),
		 .src_ip = pfx4(IP4(10, 0, 0, 0), 16),
		 .action = TA_ACT_DROP},
		{.fields = F(TA_F_DST_PORT),
		 .dport_lo = 1,
		 .dport_hi = 100,
		 .action = TA_ACT_TX},
		{.fields = F(TA_F_SRC_IP),
		 .src_ip = pfx4(IP4(10, 0, 1, 0), 24),
		 .action = TA_ACT_PASS}, /* shadowed by rule 1 */
	};
	struct pkt p;

	OK(install(r, 4, TA_ACT_DROP));
	frame_udp4(&p, IP4(10, 0, 1, 5), PEER_IP4, 9, 53);
	EXPECT_VERDICT(&p, XDP_TX); /* rule 0 */
	frame_udp4(&p, IP4(10, 0, 1, 5), PEER_IP4, 9, 54);
	EXPECT_VERDICT(&p, XDP_DROP); /* rule 1, not 2 or 3 */
	frame_udp4(&p, IP4(10, 1, 1, 5), PEER_IP4, 9, 54);
	EXPECT_VERDICT(&p, XDP_TX); /* rule 2 */
	frame_udp4(&p, IP4(10, 1, 1, 5), PEER_IP4, 9, 154);
	EXPECT_VERDICT(&p, XDP_DROP); /* default */
	EXPECT_RULE(0, 1, 60);
	EXPECT_RULE(1, 1, 60);
	EXPECT_RULE(2, 1, 60);
	EXPECT_RULE(3, 0, 0);
	EXPECT_RULE(TA_MAX_RULES, 1, 60);
	return 0;
}

/* The rules of the cost measurement: n - 1 that miss a UDP frame to port
 * 53 from GUEST_IP4 (each names a /32 source, UDP and a port), then one
 * that matches it on the same three fields, so that every n costs the
 * same lookups. */
void many_rules(struct ta_rule_spec *r, uint32_t n, uint32_t last_action)
{
	uint32_t i;

	memset(r, 0, n * sizeof(*r));
	for (i = 0; i + 1 < n; i++) {
		r[i].fields =
			F(TA_F_SRC_IP) | F(TA_F_IP_PROTO) | F(TA_F_DST_PORT);
		r[i].src_ip = pfx4(IP4(10, 1, i / 256, i % 256), 32);
		r[i].ip_proto = 17;
		r[i].dport_lo = r[i].dport_hi = 1000 + i;
		r[i].action = TA_ACT_DROP;
	}
	r[n - 1].fields = F(TA_F_SRC_IP) | F(TA_F_IP_PROTO) | F(TA_F_DST_PORT);
	r[n - 1].src_ip = pfx4(IP4(10, 0, 0, 0), 8);
	r[n - 1].ip_proto = 17;
	r[n - 1].dport_lo = r[n - 1].dport_hi = 53;
	r[n - 1].action = last_action;
}

static int match_1000_rules(void)
{
	static struct ta_rule_spec r[1000];
	struct pkt p;

	many_rules(r, 1000, TA_ACT_TX);
	OK(install(r, 1000, TA_ACT_PASS));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 9, 53);
	EXPECT_VERDICT(&p, XDP_TX);
	EXPECT_RULE(999, 1, 60);
	/* rule 998: 10.1.3.230, port 1998 */
	frame_udp4(&p, IP4(10, 1, 3, 230), PEER_IP4, 9, 1998);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(998, 1, 60);
	frame_udp4(&p, IP4(10, 1, 3, 231), PEER_IP4, 9, 1998);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_RULE(TA_MAX_RULES, 1, 60);
	return 0;
}

static int match_too_many_rules(void)
{
	static struct ta_rule_spec r[TA_MAX_RULES + 1];
	uint32_t slot = active_slot();

	many_rules(r, TA_MAX_RULES + 1, TA_ACT_TX);
	CHECK(install(r, TA_MAX_RULES + 1, TA_ACT_PASS) == -E2BIG && env.e.input &&
		      strstr(env.e.text, "do not fit"),
	      "1025 rules not refused as too many: %s", env.e.text);
	CHECK(active_slot() == slot, "active slot changed by a failed install");
	return 0;
}

const struct test match_tests[] = {
	{"match_vlan", match_vlan},
	{"match_src_mac", match_src_mac},
	{"match_dst_mac", match_dst_mac},
	{"match_ethertype", match_ethertype},
	{"match_src_ip4", match_src_ip4},
	{"match_dst_ip4", match_dst_ip4},
	{"match_src_ip6", match_src_ip6},
	{"match_dst_ip6", match_dst_ip6},
	{"match_ip6_any_not_ip4", match_ip6_any_not_ip4},
	{"match_ip_proto", match_ip_proto},
	{"match_src_port", match_src_port},
	{"match_dst_port_range", match_dst_port_range},
	{"match_icmp_type", match_icmp_type},
	{"match_combined", match_combined},
	{"match_first_order", match_first_order},
	{"match_1000_rules", match_1000_rules},
	{"match_too_many_rules", match_too_many_rules},
	{NULL, NULL},
};
