/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * parse.bpf.h - defensive frame parser of the tap-accel policy program.
 *
 * Reads headers from the linear part of the frame only (data ..
 * data_end); a header that does not fit there counts as cut short.
 * Fills struct frame with the values the guard and the classifier need and
 * returns TA_PARSE_OK or the enum ta_parse_class that drops the frame.
 * Informational classes are noted in frame.info and parsing goes on. The
 * core takes the data pointers, so that XDP and tc programs share it. What
 * a guest sends is parsed as before policies had directions (parse_frame,
 * neighbour discovery for the guard included), so that a one-way policy
 * costs what it did; the full parse (parse_frame_full, parse_frame_skb)
 * adds the fields of the connection table and reject.
 */
#ifndef TA_PARSE_BPF_H
#define TA_PARSE_BPF_H

#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "bpf/tap_accel.h"

#define TA_PARSE_OK TA_PARSE_MAX
/* ND options examined per message; NS/NA carry one or two in practice. */
#define TA_ND_MAX_OPTS 16

#define IP4_FRAG_OFFSET	  0x1fff /* IP_OFFSET is not in uapi */
#define IP6_FRAG_OFFSET	  0xfff8
#define ND_OPT_SRC_LLADDR 1
#define ND_OPT_TGT_LLADDR 2
#define NDISC_NS	  135
#define NDISC_NA	  136
#define MLD_REPORT	  131
#define MLD2_REPORT	  143
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

enum frag_kind { FRAG_NONE, FRAG_FIRST, FRAG_LATER };

enum l3_kind { L3_OTHER, L3_IP4, L3_IP6, L3_ARP };

/* What the pipeline knows about a frame after parsing: what the guard
 * and the classifier read, all that parse_frame fills (what a guest
 * sends, for a one-way policy). */
struct frame_head {
	__u32 len;  /* whole frame, all buffers */
	__u32 info; /* 1 << informational enum ta_parse_class */
	__u16 vlan;
	__u16 ethertype; /* host order, after all tags */
	__u16 sport, dport;
	__u8 src_mac[6], dst_mac[6];
	__u8 l3; /* enum l3_kind */
	__u8 has_vlan;
	__u8 has_ports; /* TCP/UDP/UDP-Lite/SCTP header present */
	__u8 has_icmp;	/* ICMP/ICMPv6 header present */
	__u8 ip_proto;
	__u8 icmp_type;
	__u8 arp_eth_ip4;	/* ARP for Ethernet/IPv4: sha and spa valid */
	__u8 nd_is_na;		/* nd_target valid */
	__u8 nd_lladdr_foreign; /* an lladdr option != src_mac, or unverified */
	__u8 arp_sha[6];
	__be32 arp_spa;
	/* IPv4 as ::ffff:a.b.c.d; aligned for the 8-byte loads of the guard */
	__u8 src_ip[16] __attribute__((aligned(8)));
	__u8 dst_ip[16];
	__u8 nd_target[16];
};

/* The head and, filled by the full parse only, the fields of the
 * connection table and reject. The head is embedded unnamed (BPF_CFLAGS:
 * -fms-extensions), so that f->field reads either part; the policy
 * program's one-way path keeps a struct frame_head on its stack, and
 * nothing on that path touches the rest. */
struct frame {
	struct frame_head;
	__u8 inner_src[16], inner_dst[16]; /* an error's quoted packet */
	__u16 l3_off, l4_off; /* from the start of the frame */
	__u16 l3_len;	      /* IPv4 total length / IPv6 40 + payload length */
	__u8 tcp_flags;
	__u8 icmp_code;
	__be16 icmp_id;	      /* echo identifier */
	__u8 frag;	      /* enum frag_kind */
	__u8 has_inner;	      /* an ICMP error quoting a whole IP + 8 bytes */
	__be32 frag_id;	      /* IPv4 id / IPv6 fragment identification */
	__u8 nd_pending;      /* a neighbour solicitation or advertisement */
	__u8 inner_proto;
	__be16 inner_sport, inner_dport; /* or the echo id, both */
};

_Static_assert(sizeof(struct frame_head) == __builtin_offsetof(struct frame, inner_src),
	       "struct frame: the head first, nothing between");

struct vlan_tag {
	__be16 tci;
	__be16 encap_proto;
};

struct ip6_frag {
	__u8 nexthdr;
	__u8 reserved;
	__be16 frag_off; /* offset in 8-byte units << 3, flags in low bits */
	__be32 identification;
};

/* Spelled here: linux/if_arp.h pulls in libc socket headers. */
struct arp_hdr {
	__be16 ar_hrd;
	__be16 ar_pro;
	__u8 ar_hln;
	__u8 ar_pln;
	__be16 ar_op;
};

struct arp_eth_ip4 {
	__u8 sha[6];
	__be32 spa;
	__u8 tha[6];
	__be32 tpa;
} __attribute__((packed));

/* ICMP and ICMPv6 share this 8-byte header (linux/icmp.h pulls in libc). */
struct icmp_any {
	__u8 type;
	__u8 code;
	__be16 checksum;
	__be32 rest;
};

struct nd_msg {
	struct icmp_any icmp;
	__u8 target[16];
};

static __always_inline bool is_vlan_proto(__be16 proto)
{
	return proto == bpf_htons(ETH_P_8021Q) ||
	       proto == bpf_htons(ETH_P_8021AD);
}

static __always_inline void set_ip4_mapped(__u8 dst[16], __be32 addr)
{
	__builtin_memset(dst, 0, 10);
	dst[10] = 0xff;
	dst[11] = 0xff;
	__builtin_memcpy(dst + 12, &addr, 4);
}

static __always_inline __u32 ports_header_len(__u8 proto)
{
	switch (proto) {
	case IPPROTO_TCP:
		return 20;
	case IPPROTO_SCTP:
		return 12; /* the common header */
	}
	return 8; /* UDP, UDP-Lite */
}

static __always_inline bool icmp_is_error(__u8 proto, __u8 type)
{
	if (proto == IPPROTO_ICMP)
		return type == 3 || type == 4 || type == 5 || type == 11 ||
		       type == 12;
	return type >= 1 && type <= 4;
}

static __always_inline bool icmp_is_echo(__u8 proto, __u8 type, bool request)
{
	if (proto == IPPROTO_ICMP)
		return type == (request ? 8 : 0);
	return type == (request ? 128 : 129);
}

/* The ports (or echo id) of a quoted packet's first 8 bytes. */
static __always_inline void inner_ports(struct frame *f, __be16 *l4)
{
	if (f->inner_proto == IPPROTO_ICMP || f->inner_proto == IPPROTO_ICMPV6) {
		f->inner_sport = l4[2];
		f->inner_dport = l4[2];
	} else if (f->inner_proto == IPPROTO_TCP || f->inner_proto == IPPROTO_UDP ||
		   f->inner_proto == IPPROTO_UDPLITE ||
		   f->inner_proto == IPPROTO_SCTP) {
		f->inner_sport = l4[0];
		f->inner_dport = l4[1];
	}
}

/* The packet an ICMP error quotes: its IP header (no IPv6 extension
 * headers) and the 8 bytes after it, else no inner tuple. */
static __always_inline void parse_inner(struct frame *f, void *p, void *end)
{
	if (f->l3 == L3_IP4) {
		struct iphdr *ip = p;
		__u32 hlen;

		if ((void *)(ip + 1) > end || ip->version != 4 || ip->ihl < 5)
			return;
		hlen = ip->ihl * 4;
		if (p + hlen + 8 > end)
			return;
		f->inner_proto = ip->protocol;
		set_ip4_mapped(f->inner_src, ip->saddr);
		set_ip4_mapped(f->inner_dst, ip->daddr);
		inner_ports(f, p + hlen);
	} else {
		struct ipv6hdr *ip6 = p;

		if ((void *)(ip6 + 1) + 8 > end || ip6->version != 6)
			return;
		f->inner_proto = ip6->nexthdr;
		__builtin_memcpy(f->inner_src, &ip6->saddr, 16);
		__builtin_memcpy(f->inner_dst, &ip6->daddr, 16);
		inner_ports(f, (void *)(ip6 + 1));
	}
	f->has_inner = 1;
}

/* Ports and ICMP type. The header must be whole, not just the bytes read. */
static __always_inline int parse_l4(struct frame *f, void *l4, void *end,
				    void *data, bool full)
{
	if (full)
		f->l4_off = l4 - data;
	switch (f->ip_proto) {
	case IPPROTO_TCP:
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
	case IPPROTO_SCTP: {
		__be16 *ports = l4;

		if (l4 + ports_header_len(f->ip_proto) > end)
			return TA_PARSE_L4_TRUNC;
		f->sport = bpf_ntohs(ports[0]);
		f->dport = bpf_ntohs(ports[1]);
		f->has_ports = 1;
		/* the length was checked; said again for the verifier */
		if (full && f->ip_proto == IPPROTO_TCP && l4 + 20 <= end)
			f->tcp_flags = ((__u8 *)l4)[13];
		return TA_PARSE_OK;
	}
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6: {
		struct icmp_any *icmp = l4;

		if ((void *)(icmp + 1) > end)
			return TA_PARSE_L4_TRUNC;
		f->icmp_type = icmp->type;
		f->has_icmp = 1;
		if (!full)
			return TA_PARSE_OK;
		f->icmp_code = icmp->code;
		f->icmp_id = ((__be16 *)l4)[2];
		/* an ICMP error is IPv4's, an ICMPv6 error IPv6's */
		if ((f->ip_proto == IPPROTO_ICMP) == (f->l3 == L3_IP4) &&
		    icmp_is_error(f->ip_proto, icmp->type))
			parse_inner(f, icmp + 1, end);
		return TA_PARSE_OK;
	}
	}
	return TA_PARSE_OK;
}

/* Bytewise: BPF has no memcmp, and these may sit unaligned. */
static __always_inline bool mac_eq(const __u8 *a, const __u8 *b)
{
	return !((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3]) |
		 (a[4] ^ b[4]) | (a[5] ^ b[5]));
}

/*
 * NS/NA at byte `off` of the frame, `left` bytes before the IPv6 payload
 * ends: the message must hold its target, and every option must be whole
 * and non-empty. Global, so the verifier checks it once on its own rather
 * than once per path through the IPv6 extension headers that leads here.
 */
__noinline int ta_parse_nd(struct xdp_md *ctx, struct frame_head *f, __u32 off,
			   int left)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct nd_msg *nd;
	__u8 *opt;
	int i;

	/* linear data is at most a page; the bound keeps offsets provable */
	if (!f || off > 0x3fff)
		return TA_PARSE_ND_TRUNC;
	nd = data + off;
	if ((void *)(nd + 1) > end || left < (int)sizeof(*nd))
		return TA_PARSE_ND_TRUNC;
	f->nd_is_na = nd->icmp.type == NDISC_NA;
	__builtin_memcpy(f->nd_target, nd->target, 16);
	left -= sizeof(*nd);
	opt = (__u8 *)(nd + 1);

	for (i = 0; i < TA_ND_MAX_OPTS; i++) {
		__u32 olen;

		if (left <= 0)
			return TA_PARSE_OK;
		if (left < 8 || (void *)(opt + 8) > end)
			return TA_PARSE_ND_TRUNC;
		olen = opt[1] * 8;
		if (!olen || (int)olen > left || (void *)(opt + olen) > end)
			return TA_PARSE_ND_TRUNC;
		if ((opt[0] == ND_OPT_SRC_LLADDR ||
		     opt[0] == ND_OPT_TGT_LLADDR) &&
		    !mac_eq(opt + 2, f->src_mac))
			f->nd_lladdr_foreign = 1;
		opt += olen;
		left -= olen;
	}
	/* More options than examined: their lladdrs cannot be vouched for. */
	if (left > 0)
		f->nd_lladdr_foreign = 1;
	return TA_PARSE_OK;
}

static __always_inline int parse_ip4(struct frame *f, struct iphdr *ip,
				     void *end, void *data, bool full)
{
	__u32 hlen;

	if ((void *)(ip + 1) > end)
		return TA_PARSE_IP4_TRUNC;
	if (ip->version != 4 || ip->ihl < 5)
		return TA_PARSE_IP4_BAD_HDR;
	hlen = ip->ihl * 4;
	if ((void *)ip + hlen > end)
		return TA_PARSE_IP4_TRUNC;
	if (hlen > sizeof(*ip))
		f->info |= 1u << TA_PARSE_IP4_OPTIONS;

	f->l3 = L3_IP4;
	if (full) {
		f->l3_off = (void *)ip - data;
		f->l3_len = bpf_ntohs(ip->tot_len);
		f->frag_id = ip->id;
	}
	f->ip_proto = ip->protocol;
	set_ip4_mapped(f->src_ip, ip->saddr);
	set_ip4_mapped(f->dst_ip, ip->daddr);
	if (ip->frag_off & bpf_htons(IP4_FRAG_OFFSET)) {
		f->info |= 1u << TA_PARSE_IP4_FRAG;
		if (full)
			f->frag = FRAG_LATER;
		return TA_PARSE_OK;
	}
	if (full && (ip->frag_off & bpf_htons(0x2000))) /* more fragments */
		f->frag = FRAG_FIRST;
	return parse_l4(f, (void *)ip + hlen, end, data, full);
}

static __always_inline bool is_ip6_ext(__u8 nexthdr)
{
	switch (nexthdr) {
	case IPPROTO_HOPOPTS:
	case IPPROTO_ROUTING:
	case IPPROTO_FRAGMENT:
	case IPPROTO_AH:
	case IPPROTO_DSTOPTS:
	case IPPROTO_MH:
	case 139: /* HIP */
	case 140: /* Shim6 */
		return true;
	}
	return false;
}

/* ::ffff:0:0/96. Reads the copy in struct frame, which is 8-byte aligned. */
static __always_inline bool ip6_is_v4mapped(const __u8 *a)
{
	const __u32 *w = (const __u32 *)a;

	return (w[0] | w[1]) == 0 && w[2] == bpf_htonl(0x0000ffff);
}

static __always_inline int parse_ip6(struct xdp_md *ctx, struct frame *f,
				     struct ipv6hdr *ip6, void *end, void *data,
				     bool full)
{
	__u8 nexthdr;
	void *p;
	int left, i;

	if ((void *)(ip6 + 1) > end)
		return TA_PARSE_IP6_TRUNC;
	if (ip6->version != 6)
		return TA_PARSE_IP6_BAD_HDR;

	f->l3 = L3_IP6;
	if (full) {
		f->l3_off = (void *)ip6 - data;
		f->l3_len = sizeof(*ip6) + bpf_ntohs(ip6->payload_len);
	}
	__builtin_memcpy(f->src_ip, &ip6->saddr, 16);
	__builtin_memcpy(f->dst_ip, &ip6->daddr, 16);
	/* An IPv4 address dressed as IPv6 must not reach the guard or the
	 * rules as if it were either family: refuse it (RFC 4291 2.5.5.2). */
	if (ip6_is_v4mapped(f->src_ip) || ip6_is_v4mapped(f->dst_ip))
		return TA_PARSE_IP6_V4MAPPED;
	left = bpf_ntohs(ip6->payload_len);
	nexthdr = ip6->nexthdr;
	p = ip6 + 1;

	for (i = 0; i < TA_IP6_MAX_EXT && is_ip6_ext(nexthdr); i++) {
		struct ipv6_opt_hdr *ext = p;
		__u32 elen;

		if (nexthdr == IPPROTO_FRAGMENT) {
			struct ip6_frag *frag = p;

			if ((void *)(frag + 1) > end)
				return TA_PARSE_IP6_EXT_TRUNC;
			nexthdr = frag->nexthdr;
			if (full)
				f->frag_id = frag->identification;
			if (frag->frag_off & bpf_htons(IP6_FRAG_OFFSET)) {
				f->ip_proto = nexthdr;
				f->info |= 1u << TA_PARSE_IP6_FRAG;
				if (full)
					f->frag = FRAG_LATER;
				return TA_PARSE_OK;
			}
			if (full && (frag->frag_off & bpf_htons(1))) /* more fragments */
				f->frag = FRAG_FIRST;
			p = frag + 1;
			left -= sizeof(*frag);
			continue;
		}
		if ((void *)(ext + 1) > end)
			return TA_PARSE_IP6_EXT_TRUNC;
		/* lengths: AH in 4-byte words - 2, others 8-byte words - 1 */
		elen = nexthdr == IPPROTO_AH ? (ext->hdrlen + 2) * 4
					     : (ext->hdrlen + 1) * 8;
		if (p + elen > end)
			return TA_PARSE_IP6_EXT_TRUNC;
		nexthdr = ext->nexthdr;
		p += elen;
		left -= elen;
	}
	if (is_ip6_ext(nexthdr))
		return TA_PARSE_IP6_EXT_DEPTH;

	f->ip_proto = nexthdr;
	if (parse_l4(f, p, end, data, full) != TA_PARSE_OK)
		return TA_PARSE_L4_TRUNC;
	if (f->ip_proto == IPPROTO_ICMPV6 &&
	    (f->icmp_type == NDISC_NS || f->icmp_type == NDISC_NA)) {
		/* the full parse only notes it; the guard's (what a guest
		 * sends) reads the message */
		if (full) {
			f->nd_pending = 1;
			return TA_PARSE_OK;
		}
		return ta_parse_nd(ctx, (struct frame_head *)f,
				  p - (void *)(long)ctx->data, left);
	}
	return TA_PARSE_OK;
}

static __always_inline int parse_arp(struct frame *f, struct arp_hdr *arp,
				     void *end)
{
	struct arp_eth_ip4 *body = (void *)(arp + 1);

	if ((void *)(arp + 1) > end)
		return TA_PARSE_ARP_TRUNC;
	f->l3 = L3_ARP;
	if (arp->ar_hln == ETH_ALEN && arp->ar_pln == 4) {
		if ((void *)(body + 1) > end)
			return TA_PARSE_ARP_TRUNC;
		__builtin_memcpy(f->arp_sha, body->sha, ETH_ALEN);
		f->arp_spa = body->spa;
		f->arp_eth_ip4 = 1;
		return TA_PARSE_OK;
	}
	/* other hardware/protocol sizes: only their length is checked */
	if ((void *)(body) + 2 * (arp->ar_hln + arp->ar_pln) > end)
		return TA_PARSE_ARP_TRUNC;
	return TA_PARSE_OK;
}

/* full: also the fields of the connection table and reject, and no
 * neighbour discovery; else (what a guest sends, for the guard and the
 * one-way policies) neighbour discovery, through ctx. */
static __always_inline int parse_eth(struct xdp_md *ctx, void *data, void *end,
				     struct frame *f, bool full)
{
	struct ethhdr *eth = data;
	__be16 proto;
	void *p;
	int i;

	if ((void *)(eth + 1) > end)
		return TA_PARSE_RUNT;
	__builtin_memcpy(f->src_mac, eth->h_source, ETH_ALEN);
	__builtin_memcpy(f->dst_mac, eth->h_dest, ETH_ALEN);
	proto = eth->h_proto;
	p = eth + 1;

	for (i = 0; i < 2 && is_vlan_proto(proto); i++) {
		struct vlan_tag *tag = p;

		if ((void *)(tag + 1) > end)
			return TA_PARSE_VLAN_TRUNC;
		if (i == 0) {
			f->vlan = bpf_ntohs(tag->tci) & 0x0fff;
			f->has_vlan = 1;
		}
		proto = tag->encap_proto;
		p = tag + 1;
	}
	if (is_vlan_proto(proto))
		return TA_PARSE_VLAN_DEPTH;
	f->ethertype = bpf_ntohs(proto);

	switch (proto) {
	case bpf_htons(ETH_P_IP):
		return parse_ip4(f, p, end, data, full);
	case bpf_htons(ETH_P_IPV6):
		return parse_ip6(ctx, f, p, end, data, full);
	case bpf_htons(ETH_P_ARP):
		return parse_arp(f, p, end);
	}
	return TA_PARSE_OK;
}

/* What a guest sends: every header the guard and the classifier read,
 * neighbour discovery included. */
static __noinline int parse_frame(struct xdp_md *ctx, struct frame *f)
{
	return parse_eth(ctx, (void *)(long)ctx->data,
			 (void *)(long)ctx->data_end, f, false);
}

/* The full parse, of a frame in XDP: f zeroed but for len. */
static __noinline int parse_frame_full(struct xdp_md *ctx, struct frame *f)
{
	return parse_eth(NULL, (void *)(long)ctx->data,
			 (void *)(long)ctx->data_end, f, true);
}

/* What goes to a guest, from tc. Headers beyond the linear part were
 * pulled in. */
static __noinline int parse_frame_skb(struct __sk_buff *skb, struct frame *f)
{
	return parse_eth(NULL, (void *)(long)skb->data,
			 (void *)(long)skb->data_end, f, true);
}

#endif /* TA_PARSE_BPF_H */
