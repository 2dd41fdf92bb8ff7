// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* frames.c - the frame builder of frames.h. */
#include <string.h>

#include "frames.h"

const uint8_t GUEST_MAC[6] = {0x52, 0x54, 0x00, 0x00, 0x00, 0x01};
const uint8_t PEER_MAC[6] = {0x52, 0x54, 0x00, 0x00, 0x00, 0x02};
const uint8_t OTHER_MAC[6] = {0x52, 0x54, 0x00, 0x00, 0x00, 0x99};
const uint8_t BCAST_MAC[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
const uint8_t GUEST_IP6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0,
			       0,    0, 0, 0, 0, 0, 0, 1};
const uint8_t PEER_IP6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 0,
			      0,    0, 0, 0, 0, 0, 0, 2};
const uint8_t OTHER_IP6[16] = {0xfd, 0, 0, 0, 0, 0, 0, 9,
			       0,    0, 0, 0, 0, 0, 0, 9};
const uint8_t ZERO_IP6[16];

void pkt_init(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->l3_off = -1;
}

void pkt_bytes(struct pkt *p, const void *bytes, size_t n)
{
	memcpy(p->d + p->len, bytes, n);
	p->len += n;
}

void pkt_zeros(struct pkt *p, size_t n)
{
	memset(p->d + p->len, 0, n);
	p->len += n;
}

static void put8(struct pkt *p, uint8_t v)
{
	p->d[p->len++] = v;
}

static void put16(struct pkt *p, uint16_t v)
{
	put8(p, v >> 8);
	put8(p, v);
}

static void put32n(struct pkt *p, uint32_t net)
{
	pkt_bytes(p, &net, 4);
}

void pkt_eth(struct pkt *p, const uint8_t dst[6], const uint8_t src[6],
	     uint16_t type)
{
	pkt_bytes(p, dst, 6);
	pkt_bytes(p, src, 6);
	put16(p, type);
}

void pkt_vlan(struct pkt *p, uint16_t vid, uint16_t type)
{
	put16(p, vid);
	put16(p, type);
}

void pkt_ip4_ex(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto,
		uint8_t ihl, uint16_t frag_off)
{
	int i;

	p->l3_off = p->len;
	p->l3_ver = 4;
	put8(p, 0x40 | (ihl & 0xf));
	put8(p, 0);
	put16(p, 0); /* total length: pkt_fix_lengths */
	put16(p, 0x1234);
	put16(p, frag_off);
	put8(p, 64);
	put8(p, proto);
	put16(p, 0);
	put32n(p, src);
	put32n(p, dst);
	for (i = 5; i < ihl; i++)
		put32n(p, 0x01010101); /* NOP options */
}

void pkt_ip4(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto)
{
	pkt_ip4_ex(p, src, dst, proto, 5, 0);
}

void pkt_ip6(struct pkt *p, const uint8_t src[16], const uint8_t dst[16],
	     uint8_t nexthdr)
{
	p->l3_off = p->len;
	p->l3_ver = 6;
	put32n(p, __builtin_bswap32(0x60000000));
	put16(p, 0); /* payload length: pkt_fix_lengths */
	put8(p, nexthdr);
	put8(p, 64);
	pkt_bytes(p, src, 16);
	pkt_bytes(p, dst, 16);
}

void pkt_ip6_ext(struct pkt *p, uint8_t nexthdr, uint8_t len8)
{
	put8(p, nexthdr);
	put8(p, len8);
	pkt_zeros(p, (len8 + 1) * 8 - 2);
}

void pkt_ip6_ah(struct pkt *p, uint8_t nexthdr, uint8_t len4)
{
	put8(p, nexthdr);
	put8(p, len4);
	pkt_zeros(p, (len4 + 2) * 4 - 2);
}

void pkt_ip6_frag(struct pkt *p, uint8_t nexthdr, uint16_t offset8, bool more)
{
	put8(p, nexthdr);
	put8(p, 0);
	put16(p, offset8 << 3 | more);
	put32n(p, 0x01020304);
}

void pkt_udp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	put16(p, sport);
	put16(p, dport);
	put16(p, 8);
	put16(p, 0);
}

void pkt_tcp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	put16(p, sport);
	put16(p, dport);
	pkt_zeros(p, 8);
	put8(p, 5 << 4);
	put8(p, 0x02); /* SYN */
	pkt_zeros(p, 6);
}

void pkt_sctp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	put16(p, sport);
	put16(p, dport);
	pkt_zeros(p, 8);
}

void pkt_icmp(struct pkt *p, uint8_t type)
{
	put8(p, type);
	pkt_zeros(p, 7);
}

void pkt_nd(struct pkt *p, uint8_t type, const uint8_t target[16])
{
	pkt_icmp(p, type);
	pkt_bytes(p, target, 16);
}

void pkt_nd_lladdr(struct pkt *p, uint8_t type, const uint8_t mac[6])
{
	put8(p, type);
	put8(p, 1);
	pkt_bytes(p, mac, 6);
}

void pkt_arp(struct pkt *p, const uint8_t sha[6], uint32_t spa, uint32_t tpa)
{
	put16(p, 1);	  /* Ethernet */
	put16(p, 0x0800); /* IPv4 */
	put8(p, 6);
	put8(p, 4);
	put16(p, 1); /* request */
	pkt_bytes(p, sha, 6);
	put32n(p, spa);
	pkt_zeros(p, 6);
	put32n(p, tpa);
}

void pkt_fix_lengths(struct pkt *p)
{
	uint32_t n;

	if (p->l3_off < 0)
		return;
	n = p->len - p->l3_off;
	if (p->l3_ver == 4) {
		p->d[p->l3_off + 2] = n >> 8;
		p->d[p->l3_off + 3] = n;
	} else {
		n -= 40;
		p->d[p->l3_off + 4] = n >> 8;
		p->d[p->l3_off + 5] = n;
	}
}

void frame_udp4(struct pkt *p, uint32_t src, uint32_t dst, uint16_t sport,
		uint16_t dport)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4(p, src, dst, 17);
	pkt_udp(p, sport, dport);
	pkt_zeros(p, 18); /* payload, to the 60-byte minimum */
	pkt_fix_lengths(p);
}

void frame_tcp4(struct pkt *p, uint32_t src, uint32_t dst, uint16_t sport,
		uint16_t dport)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4(p, src, dst, 6);
	pkt_tcp(p, sport, dport);
	pkt_fix_lengths(p);
}

void frame_icmp4(struct pkt *p, uint32_t src, uint8_t type)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x0800);
	pkt_ip4(p, src, PEER_IP4, 1);
	pkt_icmp(p, type);
	pkt_zeros(p, 18);
	pkt_fix_lengths(p);
}

void frame_udp6(struct pkt *p, const uint8_t src[16], const uint8_t dst[16],
		uint16_t sport, uint16_t dport)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, src, dst, 17);
	pkt_udp(p, sport, dport);
	pkt_fix_lengths(p);
}

void frame_icmp6(struct pkt *p, const uint8_t src[16], uint8_t type)
{
	pkt_init(p);
	pkt_eth(p, PEER_MAC, GUEST_MAC, 0x86dd);
	pkt_ip6(p, src, PEER_IP6, 58);
	pkt_icmp(p, type);
	pkt_fix_lengths(p);
}

void frame_arp(struct pkt *p, const uint8_t sha[6], uint32_t spa)
{
	pkt_init(p);
	pkt_eth(p, BCAST_MAC, GUEST_MAC, 0x0806);
	pkt_arp(p, sha, spa, PEER_IP4);
	pkt_zeros(p, 18);
}

void frame_l2(struct pkt *p, const uint8_t dst[6], const uint8_t src[6],
	      uint16_t type)
{
	pkt_init(p);
	pkt_eth(p, dst, src, type);
	pkt_zeros(p, 46);
}
