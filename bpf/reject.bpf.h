/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * reject.bpf.h - the answer to a rejected frame (tap_accel.h, "Reject"),
 * built in a per-CPU buffer from the frame's first bytes, then written over
 * the frame: by XDP (bpf_xdp_adjust_tail, bpf_xdp_store_bytes) or by tc
 * (bpf_skb_change_tail, bpf_skb_store_bytes). The building is one function
 * for both.
 */
#ifndef TA_REJECT_BPF_H
#define TA_REJECT_BPF_H

#include "bpf/parse.bpf.h"

#define REJECT_BUF 256
#define REJECT_TTL 64

struct reject_buf {
	__u8 orig[REJECT_BUF]; /* the frame's first bytes */
	/* the answer; room past REJECT_BUF for what the verifier cannot see
	 * is bounded lower */
	__u8 out[REJECT_BUF + 96];
	__u8 pseudo[40];       /* a checksum's pseudo-header */
};

static __always_inline void put16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static __always_inline void put32(__u8 *p, __u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static __always_inline __u32 get32(const __u8 *p)
{
	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static __always_inline __u16 csum_fold(__s64 sum)
{
	__u64 x = (__u32)sum;

	x = (x & 0xffff) + (x >> 16);
	x = (x & 0xffff) + (x >> 16);
	return ~x;
}

/* Stores a folded checksum in memory order, as it was summed. */
static __always_inline void put_csum(__u8 *p, __u16 c)
{
	__builtin_memcpy(p, &c, 2);
}

/* The IPv4 header of the answer at ip, addresses swapped from orig. */
static __always_inline void ip4_header(__u8 *ip, const __u8 *orig_ip,
				       __u16 tot_len, __u8 proto)
{
	__builtin_memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, tot_len);
	put16(ip + 6, 0x4000); /* don't fragment */
	ip[8] = REJECT_TTL;
	ip[9] = proto;
	__builtin_memcpy(ip + 12, orig_ip + 16, 4);
	__builtin_memcpy(ip + 16, orig_ip + 12, 4);
	put_csum(ip + 10, csum_fold(bpf_csum_diff(NULL, 0, (void *)ip, 20, 0)));
}

static __always_inline void ip6_header(__u8 *ip, const __u8 *orig_ip,
				       __u16 payload_len, __u8 nexthdr)
{
	__builtin_memset(ip, 0, 8);
	ip[0] = 0x60;
	put16(ip + 4, payload_len);
	ip[6] = nexthdr;
	ip[7] = REJECT_TTL;
	__builtin_memcpy(ip + 8, orig_ip + 24, 16);
	__builtin_memcpy(ip + 24, orig_ip + 8, 16);
}

/* Sum of the pseudo-header of the answer's IP header at ip. */
static __always_inline __s64 pseudo_sum(struct reject_buf *rj, const __u8 *ip,
					bool v6, __u16 len, __u8 proto)
{
	__u8 *ph = rj->pseudo;

	__builtin_memset(ph, 0, sizeof(rj->pseudo));
	if (v6) {
		__builtin_memcpy(ph, ip + 8, 32);
		put16(ph + 34, len);
		ph[39] = proto;
		return bpf_csum_diff(NULL, 0, (void *)ph, 40, 0);
	}
	__builtin_memcpy(ph, ip + 12, 8);
	ph[9] = proto;
	put16(ph + 10, len);
	return bpf_csum_diff(NULL, 0, (void *)ph, 12, 0);
}

/* An RST for the TCP segment at tcp: ACK of what it carried if it had no
 * ACK, else from its acknowledgment number (RFC 9293 3.10.7.1). */
static __always_inline void tcp_rst(struct reject_buf *rj, __u8 *t,
				    const __u8 *tcp, __u32 payload, __s64 seed)
{
	__u8 flags = tcp[13];
	__u32 ack;

	__builtin_memset(t, 0, 20);
	__builtin_memcpy(t, tcp + 2, 2);
	__builtin_memcpy(t + 2, tcp, 2);
	t[12] = 5 << 4;
	if (flags & TCP_ACK) {
		__builtin_memcpy(t + 4, tcp + 8, 4);
		t[13] = TCP_RST;
	} else {
		ack = get32(tcp + 4) + payload + !!(flags & TCP_SYN) +
		      !!(flags & TCP_FIN);
		put32(t + 8, ack);
		t[13] = TCP_RST | TCP_ACK;
	}
	put_csum(t + 16, csum_fold(bpf_csum_diff(NULL, 0, (void *)t, 20, seed)));
}

/*
 * The answer to f, whose first `have` bytes are in rj->orig, built in
 * rj->out: its length, or -1 for a frame that gets none (not IP, an ICMP
 * error, an RST, headers beyond what was read).
 */
static __always_inline int reject_build(const struct frame *f,
					struct reject_buf *rj, __u32 have)
{
	__u32 h = f->l3_off, l4 = f->l4_off, ihl, quote, payload, n;
	bool v6 = f->l3 == L3_IP6, tcp = f->ip_proto == IPPROTO_TCP;
	__u8 *out = rj->out, *ip, *orig_ip;
	__s64 seed;
	int i;

	if ((f->l3 != L3_IP4 && !v6) || f->frag == FRAG_LATER || h < 14 ||
	    h > 22 || have > REJECT_BUF || l4 > REJECT_BUF - 20 || l4 < h)
		return -1;
	if (f->has_icmp && (icmp_is_error(f->ip_proto, f->icmp_type) ||
			    f->nd_pending))
		return -1;
	if (tcp && (!f->has_ports || (f->tcp_flags & TCP_RST) || l4 + 20 > have))
		return -1;
	/* bounds again by masks, which older verifiers (6.1) keep through
	 * the arithmetic below where they lose the comparisons' */
	h &= 31;
	l4 &= REJECT_BUF - 1;
	orig_ip = rj->orig + h;
	ip = out + h;
	/* Ethernet back where it came from, the same tags */
	__builtin_memcpy(out, rj->orig + 6, 6);
	__builtin_memcpy(out + 6, rj->orig, 6);
	for (i = 12; i < 22; i++)
		if (i < h)
			out[i] = rj->orig[i];
	ihl = v6 ? 40 : (orig_ip[0] & 0xf) * 4;
	if (ihl < 20 || h + ihl > have)
		return -1;
	if (tcp) {
		payload = f->l3_len - (l4 - h) - (rj->orig[(l4 + 12) & (REJECT_BUF - 1)] >> 4) * 4;
		if (payload > 0xffff)
			payload = 0; /* lengths that do not add up */
		if (v6)
			ip6_header(ip, orig_ip, 20, IPPROTO_TCP);
		else
			ip4_header(ip, orig_ip, 40, IPPROTO_TCP);
		seed = pseudo_sum(rj, ip, v6, 20, IPPROTO_TCP);
		tcp_rst(rj, ip + (v6 ? 40 : 20), rj->orig + l4, payload, seed);
		return h + (v6 ? 60 : 40);
	}
	/* ICMP port unreachable quoting the frame from its IP header */
	quote = v6 ? TA_REJECT_QUOTE6 : ihl + 8;
	if (quote > f->l3_len)
		quote = f->l3_len;
	if (quote > have - h)
		quote = have - h;
	if (quote > TA_REJECT_QUOTE6)
		return -1;
	quote &= 0xfc;
	n = (v6 ? 40 : 20) + 8 + quote;
	if (v6)
		ip6_header(ip, orig_ip, 8 + quote, IPPROTO_ICMPV6);
	else
		ip4_header(ip, orig_ip, n, IPPROTO_ICMP);
	ip += v6 ? 40 : 20;
	__builtin_memset(ip, 0, 8);
	ip[0] = v6 ? 1 : 3;
	ip[1] = v6 ? 4 : 3;
	bpf_probe_read_kernel(ip + 8, quote, orig_ip);
	seed = v6 ? pseudo_sum(rj, out + h, true, 8 + quote, IPPROTO_ICMPV6) : 0;
	put_csum(ip + 2, csum_fold(bpf_csum_diff(NULL, 0, (void *)ip, 8 + quote, seed)));
	return h + n;
}

/* Reads the frame's first bytes, builds, writes the answer over it. */
static __always_inline int reject_xdp(struct xdp_md *ctx, const struct frame *f,
				      struct reject_buf *rj)
{
	__u32 have = f->len < REJECT_BUF ? f->len : REJECT_BUF;
	int n;

	if (have < 14 || bpf_xdp_load_bytes(ctx, 0, rj->orig, have))
		return -1;
	n = reject_build(f, rj, have);
	if (n < 14 || n > REJECT_BUF)
		return -1;
	/* An answer longer than the frame (an ICMP error quoting a small
	 * one) grows at the end, or, where the buffer has no room there
	 * (stock tun's native XDP keeps only its alignment's), at the front
	 * into the headroom every XDP buffer has. */
	if (bpf_xdp_adjust_tail(ctx, n - (int)f->len) &&
	    bpf_xdp_adjust_head(ctx, (int)f->len - n))
		return -1;
	return bpf_xdp_store_bytes(ctx, 0, rj->out, n) ? -1 : 0;
}

static __always_inline int reject_skb(struct __sk_buff *skb, const struct frame *f,
				      struct reject_buf *rj)
{
	__u32 have = f->len < REJECT_BUF ? f->len : REJECT_BUF;
	int n;

	if (have < 14 || bpf_skb_load_bytes(skb, 0, rj->orig, have))
		return -1;
	n = reject_build(f, rj, have);
	if (n < 14 || n > REJECT_BUF)
		return -1;
	if (bpf_skb_change_tail(skb, n, 0))
		return -1;
	return bpf_skb_store_bytes(skb, 0, rj->out, n, 0) ? -1 : 0;
}

#endif /* TA_REJECT_BPF_H */
