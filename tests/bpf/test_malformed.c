// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_malformed.c - every malformed-frame class: its verdict and its
 * counter in ta_st_parse (docs/bpf.md has the table). "info" classes are
 * counted and the frame goes on through the policy, which here drops UDP
 * to port 53 and passes the rest.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"

static int dns_drop_policy(void)
{
	struct ta_rule_spec r[] = {
		{.fields = F(TA_F_DST_PORT),
		 .dport_lo = 53,
		 .dport_hi = 53,
		 .action = TA_ACT_DROP},
		{.fields = F(TA_F_IP_PROTO),
		 .ip_proto = 44,
		 .action = TA_ACT_TX}, /* never: a fragment header is no L4 */
	};

	return install(r, 2, TA_ACT_PASS);
}

/* The frame is dropped and counted once under `class`. */
static int expect_class(const char *where, const struct pkt *p, int class)
{
	if (expect_verdict_at(where, p, XDP_DROP))
		return -1;
	return expect_stat_at(where, TA_STAT_PARSE + class, 1, p->len);
}

#define EXPECT_CLASS(p, class)                                                 \
	do {                                                                   \
		if (expect_class(WHERE, (p), (class)))                         \
			return -1;                                             \
	} while (0)

/* The kernel's test run refuses frames shorter than an Ethernet header
 * (EINVAL), so they never reach the program there. */
static int malformed_empty_rejected(void)
{
	struct pkt p;
	uint32_t verdict, n;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	for (n = 0; n < 14; n++) {
		p.len = n;
		CHECK(run_frame(&p, &verdict) == -EINVAL,
		      "%u-byte frame not refused with EINVAL", n);
	}
	EXPECT_STAT(TA_STAT_VERDICT + XDP_PASS, 0, 0);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_DROP, 0, 0);
	return 0;
}

/* 1..13 bytes reach the program as the linear part of a multi-buffer
 * frame: a runt, since headers are read from the linear part only. */
static int malformed_runt_1_to_13(void)
{
	struct pkt p;
	uint32_t verdict, n;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	for (n = 1; n < 14; n++) {
		OK(run_frame_split(&p, n, &verdict));
		CHECK(verdict == XDP_DROP, "%u linear bytes: %s", n,
		      verdict_name(verdict));
	}
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_RUNT, 13, 13 * 60);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_DROP, 13, 13 * 60);
	OK(run_frame_split(&p, 14, &verdict)); /* the header fits: IPv4 cut */
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_TRUNC, 1, 60);
	return 0;
}

static int malformed_vlan_truncated(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x8100);
	pkt_zeros(&p, 3);
	EXPECT_CLASS(&p, TA_PARSE_VLAN_TRUNC);
	return 0;
}

static int malformed_qinq_truncated(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x88a8);
	pkt_vlan(&p, 10, 0x8100);
	pkt_zeros(&p, 2);
	EXPECT_CLASS(&p, TA_PARSE_VLAN_TRUNC);
	return 0;
}

static int malformed_vlan_too_deep(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x88a8);
	pkt_vlan(&p, 10, 0x8100);
	pkt_vlan(&p, 20, 0x8100);
	pkt_vlan(&p, 30, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 17);
	pkt_udp(&p, 1, 2);
	pkt_fix_lengths(&p);
	EXPECT_CLASS(&p, TA_PARSE_VLAN_DEPTH);
	return 0;
}

/* Two tags parse through to the ports. */
static int malformed_qinq_ok(void)
{
	struct pkt p;

	OK(dns_drop_policy());
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x88a8);
	pkt_vlan(&p, 10, 0x8100);
	pkt_vlan(&p, 20, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 17);
	pkt_udp(&p, 1, 53);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(0, 1, p.len);
	return 0;
}

static int malformed_ip4_truncated(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4(&p, GUEST_IP4, PEER_IP4, 17);
	p.len -= 1; /* 19 bytes of header */
	EXPECT_CLASS(&p, TA_PARSE_IP4_TRUNC);
	return 0;
}

/* IHL says 24 bytes, the frame ends after 20. */
static int malformed_ip4_truncated_options(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4_ex(&p, GUEST_IP4, PEER_IP4, 17, 6, 0);
	p.len -= 4;
	EXPECT_CLASS(&p, TA_PARSE_IP4_TRUNC);
	return 0;
}

/* Options are skipped: the ports behind the longest header still match. */
static int malformed_ip4_options(void)
{
	struct pkt p;

	OK(dns_drop_policy());
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4_ex(&p, GUEST_IP4, PEER_IP4, 17, 15, 0);
	pkt_udp(&p, 1, 53);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(0, 1, p.len);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_OPTIONS, 1, p.len);
	return 0;
}

static int malformed_ip4_bad_ihl(void)
{
	struct pkt p;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	p.d[14] = 0x44;
	EXPECT_CLASS(&p, TA_PARSE_IP4_BAD_HDR);
	p.d[14] = 0x40;
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_BAD_HDR, 2, 120);
	return 0;
}

static int malformed_ip4_bad_version(void)
{
	struct pkt p;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	p.d[14] = 0x65;
	EXPECT_CLASS(&p, TA_PARSE_IP4_BAD_HDR);
	return 0;
}

static void ip4_fragment(struct pkt *p, uint16_t frag_off)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4_ex(p, GUEST_IP4, PEER_IP4, 17, 5, frag_off);
	pkt_udp(p, 1, 53); /* in a non-first fragment these are data */
	pkt_fix_lengths(p);
}

static int malformed_ip4_fragments(void)
{
	struct ta_rule_spec proto = {.fields = F(TA_F_IP_PROTO),
				     .ip_proto = 17,
				     .action = TA_ACT_TX};
	struct pkt p;

	OK(dns_drop_policy());
	ip4_fragment(&p, 0x2000); /* MF, offset 0: the first */
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_FRAG, 0, 0);
	/* a middle one: no ports, so the port rule misses */
	ip4_fragment(&p, 0x2000 | 100);
	EXPECT_VERDICT(&p, XDP_PASS);
	ip4_fragment(&p, 200); /* the last */
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_FRAG, 2, 2 * p.len);
	OK(install(&proto, 1, TA_ACT_PASS)); /* the protocol still matches */
	EXPECT_VERDICT(&p, XDP_TX);
	return 0;
}

static int malformed_ip6_truncated(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(&p, GUEST_IP6, PEER_IP6, 59);
	p.len -= 1;
	EXPECT_CLASS(&p, TA_PARSE_IP6_TRUNC);
	return 0;
}

static int malformed_ip6_bad_version(void)
{
	struct pkt p;

	frame_udp6(&p, GUEST_IP6, PEER_IP6, 1, 2);
	p.d[14] = 0x40;
	EXPECT_CLASS(&p, TA_PARSE_IP6_BAD_HDR);
	return 0;
}

/* An IPv6 source or destination in ::ffff:0:0/96 is an IPv4 address in
 * disguise (never on the wire, RFC 4291 2.5.5.2): dropped by the parser,
 * so an IPv4 rule cannot be met with it. ::10.0.0.5 is not v4-mapped. */
static int malformed_ip6_v4mapped(void)
{
	static const uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff,
					   10, 0, 0, 5};
	static const uint8_t compat[16] = {[12] = 10, 0, 0, 5};
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_IP),
				 .src_ip = pfx4(IP4(10, 0, 0, 0), 8),
				 .action = TA_ACT_TX};
	struct pkt p;
	uint64_t bytes;

	OK(install(&r, 1, TA_ACT_PASS));
	frame_udp6(&p, mapped, PEER_IP6, 1, 2);
	EXPECT_CLASS(&p, TA_PARSE_IP6_V4MAPPED);
	bytes = p.len;
	frame_udp6(&p, GUEST_IP6, mapped, 1, 2);
	EXPECT_VERDICT(&p, XDP_DROP);
	bytes += p.len;
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP6_V4MAPPED, 2, bytes);
	EXPECT_RULE(0, 0, 0);

	frame_udp6(&p, compat, PEER_IP6, 1, 2);
	EXPECT_VERDICT(&p, XDP_PASS); /* IPv6, and no IPv4 rule matches it */
	frame_udp4(&p, IP4(10, 0, 0, 5), PEER_IP4, 1, 2);
	EXPECT_VERDICT(&p, XDP_TX); /* the real thing */
	return 0;
}

/* Hop-by-hop, destination options, routing and AH, then UDP. */
static int malformed_ip6_ext_chain(void)
{
	struct pkt p;

	OK(dns_drop_policy());
	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(&p, GUEST_IP6, PEER_IP6, 0);
	pkt_ip6_ext(&p, 60, 0);
	pkt_ip6_ext(&p, 43, 1);
	pkt_ip6_ext(&p, 51, 2);
	pkt_ip6_ah(&p, 17, 4);
	pkt_udp(&p, 1, 53);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(0, 1, p.len);
	return 0;
}

static int malformed_ip6_ext_truncated(void)
{
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(&p, GUEST_IP6, PEER_IP6, 0);
	pkt_ip6_ext(&p, 17, 2); /* 24 bytes */
	pkt_fix_lengths(&p);
	p.len -= 8;
	EXPECT_CLASS(&p, TA_PARSE_IP6_EXT_TRUNC);
	p.len = 14 + 40 + 1; /* not even the next-header byte pair */
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP6_EXT_TRUNC, 2, 70 + 55);
	return 0;
}

static void ip6_ext_chain(struct pkt *p, int depth)
{
	int i;

	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, GUEST_IP6, PEER_IP6, 60);
	for (i = 0; i < depth; i++)
		pkt_ip6_ext(p, i + 1 < depth ? 60 : 17, 0);
	pkt_udp(p, 1, 53);
	pkt_fix_lengths(p);
}

static int malformed_ip6_ext_depth(void)
{
	struct pkt p;

	OK(dns_drop_policy());
	ip6_ext_chain(&p, TA_IP6_MAX_EXT);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_RULE(0, 1, p.len);
	ip6_ext_chain(&p, TA_IP6_MAX_EXT + 1);
	EXPECT_CLASS(&p, TA_PARSE_IP6_EXT_DEPTH);
	EXPECT_RULE(0, 1, p.len - 8);
	return 0;
}

static void ip6_fragment(struct pkt *p, uint16_t offset8, bool more)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, GUEST_IP6, PEER_IP6, 0);
	pkt_ip6_ext(p, 44, 0);
	pkt_ip6_frag(p, 17, offset8, more);
	pkt_udp(p, 1, 53);
	pkt_fix_lengths(p);
}

static int malformed_ip6_fragments(void)
{
	struct ta_rule_spec proto = {.fields = F(TA_F_IP_PROTO),
				     .ip_proto = 17,
				     .action = TA_ACT_TX};
	struct pkt p;

	OK(dns_drop_policy());
	ip6_fragment(&p, 0, true);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP6_FRAG, 0, 0);
	ip6_fragment(&p, 100, true);
	EXPECT_VERDICT(&p, XDP_PASS);
	ip6_fragment(&p, 200, false);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP6_FRAG, 2, 2 * p.len);
	OK(install(&proto, 1, TA_ACT_PASS));
	EXPECT_VERDICT(&p, XDP_TX);
	return 0;
}

/* Each L4 header one byte short, over IPv4 and IPv6. */
static int malformed_l4_truncated(void)
{
	static const struct {
		uint8_t proto, need;
	} l4[] = {{6, 20}, {17, 8}, {136, 8}, {132, 12}, {1, 8}, {58, 8}};
	struct pkt p;
	size_t i;
	int n = 0;
	uint64_t bytes = 0;

	for (i = 0; i < sizeof(l4) / sizeof(l4[0]); i++) {
		pkt_init(&p);
		pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x0800);
		pkt_ip4(&p, GUEST_IP4, PEER_IP4, l4[i].proto);
		pkt_zeros(&p, l4[i].need - 1);
		pkt_fix_lengths(&p);
		EXPECT_VERDICT(&p, XDP_DROP);
		bytes += p.len;
		pkt_init(&p);
		pkt_eth(&p, PEER_MAC, GUEST_MAC, 0x86dd);
		pkt_ip6(&p, GUEST_IP6, PEER_IP6, l4[i].proto);
		pkt_zeros(&p, l4[i].need - 1);
		pkt_fix_lengths(&p);
		EXPECT_VERDICT(&p, XDP_DROP);
		bytes += p.len;
		n += 2;
	}
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_L4_TRUNC, n, bytes);
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	p.len = 14 + 20 + 8; /* exactly whole: fine */
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

static int malformed_arp_short(void)
{
	struct pkt p;

	frame_arp(&p, GUEST_MAC, GUEST_IP4);
	p.len = 14 + 7; /* not the fixed header */
	EXPECT_VERDICT(&p, XDP_DROP);
	p.len = 14 + 27; /* Ethernet/IPv4 addresses cut */
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_ARP_TRUNC, 2, 21 + 41);
	p.len = 14 + 28;
	EXPECT_VERDICT(&p, XDP_PASS);
	/* other address sizes: length checked from hln and pln */
	p.d[14 + 4] = 200;
	EXPECT_VERDICT(&p, XDP_DROP);
	p.d[14 + 4] = 8;
	p.len = 14 + 8 + 2 * (8 + 4);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_ARP_TRUNC, 3, 21 + 41 + 42);
	return 0;
}

static void ns_frame(struct pkt *p)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, GUEST_IP6, PEER_IP6, 58);
	pkt_nd(p, 135, PEER_IP6);
}

static int malformed_nd_truncated(void)
{
	struct pkt p;
	uint64_t bytes = 0;

	ns_frame(&p); /* target cut */
	p.len -= 4;
	pkt_fix_lengths(&p);
	EXPECT_CLASS(&p, TA_PARSE_ND_TRUNC);
	bytes += p.len;

	ns_frame(&p); /* option of length 0 */
	pkt_nd_lladdr(&p, 1, GUEST_MAC);
	p.d[p.len - 7] = 0;
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	bytes += p.len;

	ns_frame(&p); /* option longer than the payload */
	pkt_nd_lladdr(&p, 1, GUEST_MAC);
	p.d[p.len - 7] = 2;
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	bytes += p.len;

	ns_frame(&p); /* half an option */
	pkt_zeros(&p, 4);
	pkt_fix_lengths(&p);
	EXPECT_VERDICT(&p, XDP_DROP);
	bytes += p.len;
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_ND_TRUNC, 4, bytes);

	ns_frame(&p); /* padding after the payload is not an option */
	pkt_nd_lladdr(&p, 1, GUEST_MAC);
	pkt_fix_lengths(&p);
	pkt_zeros(&p, 5);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

/* Headers are read from the linear part: one split off into a fragment
 * is cut short, whatever the whole frame holds. */
static int malformed_split_headers(void)
{
	struct pkt p;
	uint32_t verdict;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 53);
	OK(run_frame_split(&p, 14 + 20 + 4, &verdict));
	CHECK(verdict == XDP_DROP, "verdict %s", verdict_name(verdict));
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_L4_TRUNC, 1, 60);
	OK(run_frame_split(&p, 14 + 20 + 8, &verdict));
	CHECK(verdict == XDP_PASS, "whole headers: verdict %s",
	      verdict_name(verdict));
	return 0;
}

const struct test malformed_tests[] = {
	{"malformed_empty_rejected", malformed_empty_rejected},
	{"malformed_runt_1_to_13", malformed_runt_1_to_13},
	{"malformed_vlan_truncated", malformed_vlan_truncated},
	{"malformed_qinq_truncated", malformed_qinq_truncated},
	{"malformed_vlan_too_deep", malformed_vlan_too_deep},
	{"malformed_qinq_ok", malformed_qinq_ok},
	{"malformed_ip4_truncated", malformed_ip4_truncated},
	{"malformed_ip4_truncated_options", malformed_ip4_truncated_options},
	{"malformed_ip4_options", malformed_ip4_options},
	{"malformed_ip4_bad_ihl", malformed_ip4_bad_ihl},
	{"malformed_ip4_bad_version", malformed_ip4_bad_version},
	{"malformed_ip4_fragments", malformed_ip4_fragments},
	{"malformed_ip6_truncated", malformed_ip6_truncated},
	{"malformed_ip6_bad_version", malformed_ip6_bad_version},
	{"malformed_ip6_v4mapped", malformed_ip6_v4mapped},
	{"malformed_ip6_ext_chain", malformed_ip6_ext_chain},
	{"malformed_ip6_ext_truncated", malformed_ip6_ext_truncated},
	{"malformed_ip6_ext_depth", malformed_ip6_ext_depth},
	{"malformed_ip6_fragments", malformed_ip6_fragments},
	{"malformed_l4_truncated", malformed_l4_truncated},
	{"malformed_arp_short", malformed_arp_short},
	{"malformed_nd_truncated", malformed_nd_truncated},
	{"malformed_split_headers", malformed_split_headers},
	{NULL, NULL},
};
