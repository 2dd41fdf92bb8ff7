/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * frames.h - build test frames byte by byte: each pkt_* call appends one
 * header, so a test can stop anywhere or poke a byte to break a frame.
 * Multi-byte fields are written in network order. Checksums are left 0:
 * the program never reads them.
 */
#ifndef TA_TEST_FRAMES_H
#define TA_TEST_FRAMES_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#define PKT_MAX 16384

struct pkt {
	uint8_t d[PKT_MAX];
	uint32_t len;
	int l3_off; /* of the last IPv4/IPv6 header, for pkt_fix_lengths */
	int l3_ver;
};

/* Host-order a.b.c.d into a network-order address. */
#define IP4(a, b, c, d)                                                        \
	__builtin_bswap32(((uint32_t)(a) << 24) | ((b) << 16) | ((c) << 8) |   \
			  (d))

extern const uint8_t GUEST_MAC[6], PEER_MAC[6], OTHER_MAC[6], BCAST_MAC[6];
extern const uint8_t GUEST_IP6[16], PEER_IP6[16], OTHER_IP6[16], ZERO_IP6[16];
#define GUEST_IP4 IP4(10, 0, 0, 1)
#define PEER_IP4  IP4(10, 0, 0, 2)
#define OTHER_IP4 IP4(10, 9, 9, 9)

void pkt_init(struct pkt *p);
void pkt_bytes(struct pkt *p, const void *bytes, size_t n);
void pkt_zeros(struct pkt *p, size_t n);
void pkt_eth(struct pkt *p, const uint8_t dst[6], const uint8_t src[6],
	     uint16_t type);
/* A tag after an ethertype of 0x8100/0x88a8: TCI then the next type. */
void pkt_vlan(struct pkt *p, uint16_t vid, uint16_t type);
/* IPv4 with ihl 32-bit words (options are NOPs) and frag_off (host order,
 * flags included). */
void pkt_ip4_ex(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto,
		uint8_t ihl, uint16_t frag_off);
void pkt_ip4(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto);
void pkt_ip6(struct pkt *p, const uint8_t src[16], const uint8_t dst[16],
	     uint8_t nexthdr);
/* A generic extension header of (len8 + 1) * 8 bytes. */
void pkt_ip6_ext(struct pkt *p, uint8_t nexthdr, uint8_t len8);
/* AH: (len4 + 2) * 4 bytes. */
void pkt_ip6_ah(struct pkt *p, uint8_t nexthdr, uint8_t len4);
void pkt_ip6_frag(struct pkt *p, uint8_t nexthdr, uint16_t offset8, bool more);
void pkt_udp(struct pkt *p, uint16_t sport, uint16_t dport);
void pkt_tcp(struct pkt *p, uint16_t sport, uint16_t dport);
void pkt_sctp(struct pkt *p, uint16_t sport, uint16_t dport);
void pkt_icmp(struct pkt *p, uint8_t type);
/* NS (135) or NA (136) for target, without options. */
void pkt_nd(struct pkt *p, uint8_t type, const uint8_t target[16]);
/* An ND link-layer address option (1 source, 2 target). */
void pkt_nd_lladdr(struct pkt *p, uint8_t type, const uint8_t mac[6]);
void pkt_arp(struct pkt *p, const uint8_t sha[6], uint32_t spa, uint32_t tpa);
/* Set the IPv4 total length / IPv6 payload length from the frame end. */
void pkt_fix_lengths(struct pkt *p);

/* Whole frames from the guest (GUEST_MAC -> PEER_MAC). */
void frame_udp4(struct pkt *p, uint32_t src, uint32_t dst, uint16_t sport,
		uint16_t dport);
void frame_tcp4(struct pkt *p, uint32_t src, uint32_t dst, uint16_t sport,
		uint16_t dport);
void frame_icmp4(struct pkt *p, uint32_t src, uint8_t type);
void frame_udp6(struct pkt *p, const uint8_t src[16], const uint8_t dst[16],
		uint16_t sport, uint16_t dport);
void frame_icmp6(struct pkt *p, const uint8_t src[16], uint8_t type);
void frame_arp(struct pkt *p, const uint8_t sha[6], uint32_t spa);
/* Ethernet only, with an ethertype nobody parses. */
void frame_l2(struct pkt *p, const uint8_t dst[6], const uint8_t src[6],
	      uint16_t type);

#endif /* TA_TEST_FRAMES_H */
