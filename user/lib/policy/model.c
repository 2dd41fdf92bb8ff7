// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * model.c - the reference model of model.h: parse, guard and first-match
 * classification as docs/bpf.md and docs/policy.md describe them. Plain
 * code on purpose: a linear scan over the rules, bounds checked before
 * every read, nothing shared with the program's bit-vector classifier.
 */
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include "model.h"

#define ETH_HLEN      14
#define ETH_P_IP      0x0800
#define ETH_P_IPV6    0x86dd
#define ETH_P_ARP     0x0806
#define ETH_P_8021Q   0x8100
#define ETH_P_8021AD  0x88a8
#define MAX_VLAN_TAGS 2

#define IP4_HLEN 20
#define IP6_HLEN 40
#define ARP_HLEN 8
#define ND_HLEN	 24 /* ICMPv6 header, reserved/flags, target */

enum {
	PROTO_ICMP = 1,
	PROTO_TCP = 6,
	PROTO_UDP = 17,
	PROTO_AH = 51,
	PROTO_ICMPV6 = 58,
	PROTO_SCTP = 132,
	PROTO_UDPLITE = 136,
	IP6_HOPOPTS = 0,
	IP6_ROUTING = 43,
	IP6_FRAGMENT = 44,
	IP6_DSTOPTS = 60,
	IP6_MOBILITY = 135,
	IP6_HIP = 139,
	IP6_SHIM6 = 140,
	ICMP6_MLD_REPORT = 131,
	ICMP6_NS = 135,
	ICMP6_NA = 136,
	ICMP6_MLD2_REPORT = 143,
	ND_OPT_SRC_LLADDR = 1,
	ND_OPT_TGT_LLADDR = 2,
};

/* The bytes of the frame's linear part and how far parsing got. */
struct cursor {
	const uint8_t *d;
	size_t len;
	size_t off;
	bool nd; /* read neighbour discovery options (what a guest sends) */
};

static bool has(const struct cursor *c, size_t n)
{
	return c->off <= c->len && n <= c->len - c->off;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* ---- parsing ------------------------------------------------------------ */

static int parse_vlan_tags(struct cursor *c, struct ta_model_frame *f)
{
	int tags = 0;

	while (f->ethertype == ETH_P_8021Q || f->ethertype == ETH_P_8021AD) {
		if (tags == MAX_VLAN_TAGS)
			return TA_PARSE_VLAN_DEPTH;
		if (!has(c, 4))
			return TA_PARSE_VLAN_TRUNC;
		if (!tags) {
			f->has_vlan = true;
			f->vlan = be16(c->d + c->off) & 0xfff;
		}
		f->ethertype = be16(c->d + c->off + 2);
		c->off += 4;
		tags++;
	}
	return TA_PARSE_MAX;
}

static void put_ip4(uint8_t out[16], const uint8_t *addr)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, addr, 4);
}

static bool has_ports(uint8_t proto, size_t *need)
{
	switch (proto) {
	case PROTO_TCP:
		*need = 20;
		return true;
	case PROTO_UDP:
	case PROTO_UDPLITE:
		*need = 8;
		return true;
	case PROTO_SCTP:
		*need = 12;
		return true;
	}
	return false;
}

static bool is_nd_lladdr(uint8_t type)
{
	return type == ND_OPT_SRC_LLADDR || type == ND_OPT_TGT_LLADDR;
}

/* NS/NA: the target, then options up to the end of the IPv6 payload
 * (`end`), never into Ethernet padding. An option the payload length
 * announces but the frame does not hold is cut short. */
static int parse_nd(struct cursor *c, size_t end, struct ta_model_frame *f)
{
	size_t off = c->off + ND_HLEN;

	if (!has(c, ND_HLEN) || end < off)
		return TA_PARSE_ND_TRUNC;
	f->is_nd = true;
	memcpy(f->nd_target, c->d + c->off + 8, 16);
	for (int i = 0; i < TA_MODEL_ND_MAX_OPTS && off < end; i++) {
		struct cursor opt = {.d = c->d, .len = c->len, .off = off};
		size_t olen;

		if (end - off < 2 || !has(&opt, 2))
			return TA_PARSE_ND_TRUNC;
		olen = c->d[off + 1] * 8u;
		if (!olen || olen > end - off || !has(&opt, olen))
			return TA_PARSE_ND_TRUNC;
		if (is_nd_lladdr(c->d[off]))
			memcpy(f->lladdr[f->nr_lladdr++], c->d + off + 2, 6);
		off += olen;
	}
	f->nd_unchecked = off < end;
	return TA_PARSE_MAX;
}

bool ta_model_icmp_error(uint8_t proto, uint8_t type)
{
	if (proto == PROTO_ICMP)
		return type == 3 || type == 4 || type == 5 || type == 11 || type == 12;
	return type >= 1 && type <= 4;
}

/* The packet an ICMP error quotes at c->off: an IP header of the error's
 * family (no IPv6 extension headers) and 8 bytes after it. */
static void parse_inner(const struct cursor *c, struct ta_model_frame *f)
{
	const uint8_t *h = c->d + c->off, *l4;
	size_t hlen;
	size_t need;

	if (f->l3 == TA_MODEL_L3_IP4) {
		if (!has(c, IP4_HLEN) || h[0] >> 4 != 4 || (h[0] & 0xf) < 5)
			return;
		hlen = (h[0] & 0xf) * 4u;
		if (!has(c, hlen + 8))
			return;
		f->inner_proto = h[9];
		put_ip4(f->inner_src, h + 12);
		put_ip4(f->inner_dst, h + 16);
	} else {
		hlen = IP6_HLEN;
		if (!has(c, hlen + 8) || h[0] >> 4 != 6)
			return;
		f->inner_proto = h[6];
		memcpy(f->inner_src, h + 8, 16);
		memcpy(f->inner_dst, h + 24, 16);
	}
	l4 = h + hlen;
	if (f->inner_proto == PROTO_ICMP || f->inner_proto == PROTO_ICMPV6) {
		f->inner_sport = f->inner_dport = be16(l4 + 4);
	} else if (has_ports(f->inner_proto, &need)) {
		f->inner_sport = be16(l4);
		f->inner_dport = be16(l4 + 2);
	}
	f->has_inner = true;
}

/* Ports or ICMP type at c->off; `ip6_end` bounds ND options. */
static int parse_l4(struct cursor *c, size_t ip6_end, struct ta_model_frame *f)
{
	uint8_t proto = f->ip_proto;
	size_t need;

	f->l4_off = c->off;
	if (has_ports(proto, &need)) {
		if (!has(c, need))
			return TA_PARSE_L4_TRUNC;
		f->has_ports = true;
		f->sport = be16(c->d + c->off);
		f->dport = be16(c->d + c->off + 2);
		if (proto == PROTO_TCP)
			f->tcp_flags = c->d[c->off + 13];
		return TA_PARSE_MAX;
	}
	if (proto != PROTO_ICMP && proto != PROTO_ICMPV6)
		return TA_PARSE_MAX;
	if (!has(c, 8))
		return TA_PARSE_L4_TRUNC;
	f->has_icmp = true;
	f->icmp_type = c->d[c->off];
	f->icmp_id = be16(c->d + c->off + 4);
	if ((proto == PROTO_ICMP) == (f->l3 == TA_MODEL_L3_IP4) &&
	    ta_model_icmp_error(proto, f->icmp_type)) {
		struct cursor inner = *c;

		inner.off += 8;
		parse_inner(&inner, f);
	}
	if (c->nd && f->l3 == TA_MODEL_L3_IP6 && proto == PROTO_ICMPV6 &&
	    (f->icmp_type == ICMP6_NS || f->icmp_type == ICMP6_NA))
		return parse_nd(c, ip6_end, f);
	return TA_PARSE_MAX;
}

static int parse_ip4(struct cursor *c, struct ta_model_frame *f, uint32_t *info)
{
	const uint8_t *h = c->d + c->off;
	size_t hlen;

	if (!has(c, IP4_HLEN))
		return TA_PARSE_IP4_TRUNC;
	hlen = (h[0] & 0xf) * 4u;
	if (h[0] >> 4 != 4 || hlen < IP4_HLEN)
		return TA_PARSE_IP4_BAD_HDR;
	if (!has(c, hlen))
		return TA_PARSE_IP4_TRUNC;
	if (hlen > IP4_HLEN)
		*info |= 1u << TA_PARSE_IP4_OPTIONS;
	f->l3 = TA_MODEL_L3_IP4;
	f->l3_off = c->off;
	f->ip_proto = h[9];
	put_ip4(f->src_ip, h + 12);
	put_ip4(f->dst_ip, h + 16);
	f->frag_id = be16(h + 4);
	if (be16(h + 6) & 0x1fff) { /* a non-first fragment: no L4 header */
		*info |= 1u << TA_PARSE_IP4_FRAG;
		f->frag = TA_MODEL_FRAG_LATER;
		return TA_PARSE_MAX;
	}
	if (be16(h + 6) & 0x2000) /* more fragments */
		f->frag = TA_MODEL_FRAG_FIRST;
	c->off += hlen;
	return parse_l4(c, c->len, f);
}

static bool is_ip6_ext(uint8_t nh)
{
	switch (nh) {
	case IP6_HOPOPTS:
	case IP6_ROUTING:
	case IP6_FRAGMENT:
	case IP6_DSTOPTS:
	case PROTO_AH:
	case IP6_MOBILITY:
	case IP6_HIP:
	case IP6_SHIM6:
		return true;
	}
	return false;
}

/* Length of the extension header at c->off, whose type is nh; 0 if even
 * its length field is cut. */
static size_t ip6_ext_len(const struct cursor *c, uint8_t nh)
{
	if (!has(c, 2))
		return 0;
	if (nh == IP6_FRAGMENT)
		return 8; /* fixed; its second byte is reserved */
	if (nh == PROTO_AH)
		return (c->d[c->off + 1] + 2u) * 4;
	return (c->d[c->off + 1] + 1u) * 8;
}

/* ::ffff:0:0/96, the IPv4-mapped addresses (RFC 4291 2.5.5.2). */
static bool is_v4mapped(const uint8_t *addr)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	return !memcmp(addr, mapped, 12);
}

static int parse_ip6(struct cursor *c, struct ta_model_frame *f, uint32_t *info)
{
	const uint8_t *h = c->d + c->off;
	size_t payload_end, hlen;
	uint8_t nh;
	int nr_ext = 0;

	if (!has(c, IP6_HLEN))
		return TA_PARSE_IP6_TRUNC;
	if (h[0] >> 4 != 6)
		return TA_PARSE_IP6_BAD_HDR;
	f->l3 = TA_MODEL_L3_IP6;
	f->l3_off = c->off;
	memcpy(f->src_ip, h + 8, 16);
	memcpy(f->dst_ip, h + 24, 16);
	/* never on the wire: an IPv4 address smuggled into IPv6 is dropped,
	 * right after the fixed header and before any extension header */
	if (is_v4mapped(f->src_ip) || is_v4mapped(f->dst_ip))
		return TA_PARSE_IP6_V4MAPPED;
	payload_end = c->off + IP6_HLEN + be16(h + 4);
	nh = h[6];
	c->off += IP6_HLEN;
	for (; is_ip6_ext(nh); nr_ext++) {
		if (nr_ext == TA_IP6_MAX_EXT)
			return TA_PARSE_IP6_EXT_DEPTH;
		hlen = ip6_ext_len(c, nh);
		if (!hlen || !has(c, hlen))
			return TA_PARSE_IP6_EXT_TRUNC;
		if (nh == IP6_FRAGMENT) {
			const uint8_t *fh = c->d + c->off;

			f->frag_id = (uint32_t)fh[4] << 24 | (uint32_t)fh[5] << 16 |
				     (uint32_t)fh[6] << 8 | fh[7];
			if (be16(fh + 2) >> 3) {
				*info |= 1u << TA_PARSE_IP6_FRAG;
				f->ip_proto = fh[0];
				f->frag = TA_MODEL_FRAG_LATER;
				return TA_PARSE_MAX;
			}
			if (be16(fh + 2) & 1) /* more fragments */
				f->frag = TA_MODEL_FRAG_FIRST;
		}
		nh = c->d[c->off];
		c->off += hlen;
	}
	f->ip_proto = nh;
	return parse_l4(c, payload_end, f);
}

static int parse_arp(struct cursor *c, struct ta_model_frame *f)
{
	const uint8_t *h = c->d + c->off;
	unsigned int hln, pln;

	if (!has(c, ARP_HLEN))
		return TA_PARSE_ARP_TRUNC;
	hln = h[4];
	pln = h[5];
	if (!has(c, ARP_HLEN + 2 * (hln + pln)))
		return TA_PARSE_ARP_TRUNC;
	f->l3 = TA_MODEL_L3_ARP;
	/* Ethernet/IPv4 by its address sizes, whatever the type fields say:
	 * the guard then checks every ARP that carries a MAC and an IPv4 */
	if (hln == 6 && pln == 4) {
		f->arp_eth_ip4 = true;
		memcpy(f->arp_sha, h + 8, 6);
		memcpy(f->arp_spa, h + 14, 4);
	}
	return TA_PARSE_MAX;
}

int ta_model_parse(const uint8_t *data, size_t len, struct ta_model_frame *f,
		   uint32_t *info)
{
	return ta_model_parse_dir(data, len, TA_DIR_OUT, f, info);
}

int ta_model_parse_dir(const uint8_t *data, size_t len, uint32_t dir,
		       struct ta_model_frame *f, uint32_t *info)
{
	struct cursor c = {.d = data, .len = len, .off = ETH_HLEN, .nd = dir == TA_DIR_OUT};
	int class;

	memset(f, 0, sizeof(*f));
	*info = 0;
	f->len = len;
	if (len < ETH_HLEN)
		return TA_PARSE_RUNT;
	memcpy(f->dst_mac, data, 6);
	memcpy(f->src_mac, data + 6, 6);
	f->ethertype = be16(data + 12);
	class = parse_vlan_tags(&c, f);
	if (class != TA_PARSE_MAX)
		return class;
	switch (f->ethertype) {
	case ETH_P_IP:
		return parse_ip4(&c, f, info);
	case ETH_P_IPV6:
		return parse_ip6(&c, f, info);
	case ETH_P_ARP:
		return parse_arp(&c, f);
	}
	return TA_PARSE_MAX;
}

/* ---- guard -------------------------------------------------------------- */

static bool guest_ip4(const struct ta_guard_spec *g, const uint8_t *addr)
{
	for (uint32_t i = 0; i < g->nr_ip4; i++)
		if (!memcmp(&g->ip4[i], addr, 4))
			return true;
	return false;
}

static bool guest_ip6(const struct ta_guard_spec *g, const uint8_t *addr)
{
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		if (!memcmp(g->ip6[i], addr, 16))
			return true;
	return false;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/* 0.0.0.0 only for a DHCP client: UDP to port 67. */
static bool ip4_src_allowed(const struct ta_guard_spec *g,
			    const struct ta_model_frame *f)
{
	if (all_zero(f->src_ip + 12, 4))
		return f->ip_proto == PROTO_UDP && f->has_ports &&
		       f->dport == 67;
	return guest_ip4(g, f->src_ip + 12);
}

/* :: only for duplicate address detection: NS and MLD reports. */
static bool ip6_src_allowed(const struct ta_guard_spec *g,
			    const struct ta_model_frame *f)
{
	if (all_zero(f->src_ip, 16))
		return f->ip_proto == PROTO_ICMPV6 && f->has_icmp &&
		       (f->icmp_type == ICMP6_NS ||
			f->icmp_type == ICMP6_MLD_REPORT ||
			f->icmp_type == ICMP6_MLD2_REPORT);
	return guest_ip6(g, f->src_ip);
}

static bool nd_lladdr_foreign(const struct ta_guard_spec *g,
			      const struct ta_model_frame *f)
{
	if (!f->is_nd)
		return false;
	for (uint32_t i = 0; i < f->nr_lladdr; i++)
		if (memcmp(f->lladdr[i], g->mac, 6))
			return true;
	return f->nd_unchecked;
}

/* The reason to drop, in the order docs/bpf.md lists the checks, or
 * TA_GUARD_MAX. */
static int guard_reason(const struct ta_guard_spec *g,
			const struct ta_model_frame *f)
{
	if (g->flags & TA_GUARD_F_MAC) {
		if (memcmp(f->src_mac, g->mac, 6))
			return TA_GUARD_SRC_MAC;
		if (f->arp_eth_ip4 && memcmp(f->arp_sha, g->mac, 6))
			return TA_GUARD_ARP_SHA;
		if (nd_lladdr_foreign(g, f))
			return TA_GUARD_ND_LLADDR;
	}
	if (g->flags & TA_GUARD_F_IP4) {
		if (f->l3 == TA_MODEL_L3_IP4 && !ip4_src_allowed(g, f))
			return TA_GUARD_IP4_SRC;
		if (f->arp_eth_ip4 && !all_zero(f->arp_spa, 4) &&
		    !guest_ip4(g, f->arp_spa))
			return TA_GUARD_ARP_SPA;
	}
	if (g->flags & TA_GUARD_F_IP6) {
		if (f->l3 == TA_MODEL_L3_IP6 && !ip6_src_allowed(g, f))
			return TA_GUARD_IP6_SRC;
		if (f->is_nd && f->icmp_type == ICMP6_NA &&
		    !guest_ip6(g, f->nd_target))
			return TA_GUARD_ND_TARGET;
	}
	return TA_GUARD_MAX;
}

/* ---- rules -------------------------------------------------------------- */

static bool constrains(const struct ta_rule_spec *r, enum ta_field field)
{
	return r->fields & (1u << field);
}

/* The first prefixlen bits of addr equal those of p (IPv4 included, as
 * both are stored v4-mapped). Families are checked by ip_in(). */
static bool prefix_has(const struct ta_prefix *p, const uint8_t *addr)
{
	unsigned int bits = p->prefixlen, i;

	for (i = 0; i < bits / 8; i++)
		if (p->addr[i] != addr[i])
			return false;
	if (bits % 8) {
		uint8_t mask = (uint8_t)(0xff << (8 - bits % 8));

		return ((p->addr[i] ^ addr[i]) & mask) == 0;
	}
	return true;
}

/* docs/policy.md: a prefix written in IPv4 (stored as /96 + n inside
 * ::ffff:0:0/96) matches only IPv4 frames; any other prefix is IPv6 and
 * matches only IPv6 frames, however short: ::/0 is "any IPv6 address". */
static bool ip_in(const struct ta_prefix *p, const struct ta_model_frame *f,
		  const uint8_t *addr)
{
	bool rule_ip4 = p->prefixlen >= 96 && is_v4mapped(p->addr);

	if (f->l3 == TA_MODEL_L3_IP4)
		return rule_ip4 && prefix_has(p, addr);
	if (f->l3 == TA_MODEL_L3_IP6)
		return !rule_ip4 && prefix_has(p, addr);
	return false;
}

static bool in_range(uint16_t v, uint16_t lo, uint16_t hi)
{
	return lo <= v && v <= hi;
}

bool ta_model_rule_matches(const struct ta_rule_spec *r,
			   const struct ta_model_frame *f)
{
	bool ip = f->l3 == TA_MODEL_L3_IP4 || f->l3 == TA_MODEL_L3_IP6;

	if (constrains(r, TA_F_VLAN) && !(f->has_vlan && f->vlan == r->vlan))
		return false;
	if (constrains(r, TA_F_SRC_MAC) && memcmp(f->src_mac, r->src_mac, 6))
		return false;
	if (constrains(r, TA_F_DST_MAC) && memcmp(f->dst_mac, r->dst_mac, 6))
		return false;
	if (constrains(r, TA_F_ETHERTYPE) && f->ethertype != r->ethertype)
		return false;
	if (constrains(r, TA_F_SRC_IP) && !ip_in(&r->src_ip, f, f->src_ip))
		return false;
	if (constrains(r, TA_F_DST_IP) && !ip_in(&r->dst_ip, f, f->dst_ip))
		return false;
	if (constrains(r, TA_F_IP_PROTO) && !(ip && f->ip_proto == r->ip_proto))
		return false;
	if (constrains(r, TA_F_SRC_PORT) &&
	    !(f->has_ports && in_range(f->sport, r->sport_lo, r->sport_hi)))
		return false;
	if (constrains(r, TA_F_DST_PORT) &&
	    !(f->has_ports && in_range(f->dport, r->dport_lo, r->dport_hi)))
		return false;
	if (constrains(r, TA_F_ICMP_TYPE) &&
	    !(f->has_icmp && f->icmp_type == r->icmp_type))
		return false;
	return true;
}

/* ---- actions ------------------------------------------------------------ */

static const struct ta_fdb_spec *fdb_find(const struct ta_policy_spec *spec,
					  const uint8_t *mac)
{
	for (uint32_t i = 0; i < spec->nr_fdb; i++)
		if (!memcmp(spec->fdb[i].mac, mac, 6))
			return &spec->fdb[i];
	return NULL;
}

/* Known unicast goes to its port; broadcast, multicast, unknown pass. */
static void forward(const struct ta_policy_spec *spec,
		    struct ta_model_result *res)
{
	const uint8_t *dst = res->frame.dst_mac;
	const struct ta_fdb_spec *e = dst[0] & 1 ? NULL : fdb_find(spec, dst);

	if (!e) {
		res->events |= 1u << TA_EV_FDB_MISS;
		res->verdict = XDP_PASS;
		return;
	}
	res->events |= 1u << TA_EV_FDB_HIT;
	res->verdict = XDP_REDIRECT;
	res->ifindex = e->ifindex;
}

static void act(const struct ta_policy_spec *spec, uint32_t action,
		uint32_t ifindex, struct ta_model_result *res)
{
	res->action = action;
	switch (action) {
	case TA_ACT_PASS:
		res->verdict = XDP_PASS;
		break;
	case TA_ACT_DROP:
		res->verdict = XDP_DROP;
		break;
	case TA_ACT_TX:
		res->verdict = XDP_TX;
		break;
	case TA_ACT_REDIRECT:
		res->verdict = XDP_REDIRECT;
		res->ifindex = ifindex;
		break;
	case TA_ACT_FORWARD:
		forward(spec, res);
		break;
	case TA_ACT_REJECT:
		/* the answer goes back out of the tap, or the frame is dropped */
		res->reject_sent = ta_model_reject_sent(&res->frame, res->frame.len);
		res->verdict = res->reject_sent ? XDP_TX : XDP_DROP;
		res->ct_counts |= 1u << TA_CT_C_OUT_REJECT;
		if (!res->reject_sent)
			res->ct_counts |= 1u << TA_CT_C_REJECT_UNSENT;
		break;
	default:
		res->verdict = XDP_ABORTED;
		break;
	}
}

static void classify(const struct ta_policy_spec *spec,
		     struct ta_model_result *res)
{
	for (uint32_t i = 0; i < spec->nr_rules; i++) {
		const struct ta_rule_spec *r = &spec->rules[i];

		if (ta_model_rule_matches(r, &res->frame)) {
			res->stage = TA_MODEL_RULE;
			res->rule = (int)i;
			act(spec, r->action, r->ifindex, res);
			return;
		}
	}
	res->stage = TA_MODEL_DEFAULT;
	act(spec, spec->default_action, spec->default_ifindex, res);
}

void ta_model_run(const struct ta_policy_spec *spec, const uint8_t *data,
		  size_t len, struct ta_model_result *res)
{
	if (ta_policy_two_way(spec)) {
		/* out, as the first frame seen: a table with nothing in it */
		struct ta_model_ct *ct = ta_model_ct_new();
		struct ta_model_tap tap = {.id = 1};

		if (ct) {
			ta_model_run_ct(spec, 1, &tap, TA_DIR_OUT, 0, ct, data, len, res);
			ta_model_ct_free(ct);
			return;
		}
	}
	memset(res, 0, sizeof(*res));
	res->rule = -1;
	res->guard_reason = TA_GUARD_MAX;
	res->ct_state = TA_CT_STATE_MAX; /* one-way: no connection state */
	res->parse_class =
		ta_model_parse(data, len, &res->frame, &res->parse_info);
	if (res->parse_class != TA_PARSE_MAX) {
		res->stage = TA_MODEL_PARSE;
		res->verdict = XDP_DROP;
		return;
	}
	if (spec->guard.flags) {
		res->guard_reason = guard_reason(&spec->guard, &res->frame);
		if (res->guard_reason != TA_GUARD_MAX) {
			res->stage = TA_MODEL_GUARD;
			res->verdict = XDP_DROP;
			return;
		}
	}
	classify(spec, res);
}

/* ---- two-way policies: the connection table ------------------------------ */
/*
 * docs/bpf.md, "Two-way, stateful policies": a table of connections per
 * zone, keyed by both ends in a fixed order, whose state moves with each
 * frame; a rule matches a direction and a state; a NEW frame accepted
 * makes its connection, within the limits; a reply under a newer policy
 * version re-judges its connection's first frame.
 */
#define NSEC 1000000000ull
#define REFRESH_NS (NSEC / 8) /* last_ns is rewritten at most this often */
#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10
#define REJECT_READ 256 /* the bytes of a frame a reject is built from */

static const uint32_t default_timeouts[TA_CT_CONN_MAX] = TA_CT_TIMEOUTS_DEFAULT;

struct ta_model_ct *ta_model_ct_new(void)
{
	return calloc(1, sizeof(struct ta_model_ct));
}

void ta_model_ct_free(struct ta_model_ct *ct)
{
	if (!ct)
		return;
	free(ct->conns);
	free(ct->frags);
	free(ct);
}

static bool ct_proto_has_ports(uint8_t proto)
{
	return proto == PROTO_TCP || proto == PROTO_UDP || proto == PROTO_UDPLITE ||
	       proto == PROTO_SCTP;
}

static bool echo(uint8_t proto, uint8_t type, bool request)
{
	if (proto == PROTO_ICMP)
		return type == (request ? 8 : 0);
	return type == (request ? 128 : 129);
}

static uint64_t timeout_ns(const struct ta_model_ct *ct, uint32_t conn)
{
	uint64_t s = conn < TA_CT_CONN_MAX ? ct->cfg.timeout[conn] : 0;

	if (!s)
		s = conn < TA_CT_CONN_MAX ? default_timeouts[conn] : 600;
	return s * NSEC;
}

/* The key of a packet from (src, sport) to (dst, dport); true when the
 * source is side a, the lower end (the source on a tie). */
static bool make_key(struct ta_ct_key *k, uint16_t zone, uint8_t proto, const uint8_t *src,
		     const uint8_t *dst, uint16_t sport, uint16_t dport)
{
	int cmp = memcmp(src, dst, 16);
	bool a = cmp < 0 || (cmp == 0 && sport <= dport);

	memset(k, 0, sizeof(*k));
	k->zone = zone;
	k->proto = proto;
	memcpy(k->addr_a, a ? src : dst, 16);
	memcpy(k->addr_b, a ? dst : src, 16);
	k->port_a = a ? sport : dport;
	k->port_b = a ? dport : sport;
	return a;
}

static struct ta_model_conn *conn_find(struct ta_model_ct *ct, const struct ta_ct_key *k)
{
	for (uint32_t i = 0; i < ct->nr; i++)
		if (!memcmp(&ct->conns[i].key, k, sizeof(*k)))
			return &ct->conns[i];
	return NULL;
}

static void tap_add(struct ta_model_ct *ct, uint32_t tap, int n)
{
	if (tap < TA_MAX_TAPS)
		ct->tracked[tap] += n;
	ct->tracked[TA_MAX_TAPS] += n;
}

/* What the table says about one frame, as the program keeps it. */
struct track {
	struct ta_ct_key key;	/* the frame's (an error's: what it quotes) */
	struct ta_model_conn *c; /* at key, live or not */
	bool live;		/* c is live (and not taken as over) */
	bool creates;		/* NEW, makes or remakes the entry if accepted */
	bool from_a;
	uint8_t conn;		/* the enum ta_ct_conn it would make */
};

static void lookup(struct ta_model_ct *ct, struct track *t, uint64_t now)
{
	t->c = conn_find(ct, &t->key);
	t->live = t->c && now - t->c->e.last_ns <= timeout_ns(ct, t->c->e.state);
}

/* Delete the entry at t->key and take it off its tap's count. */
static void forget(struct ta_model_ct *ct, struct track *t)
{
	if (t->c) {
		tap_add(ct, t->c->e.tap, -1);
		*t->c = ct->conns[--ct->nr];
	}
	t->c = NULL;
	t->live = false;
}

/* The FIN of either side: both seen, the connection waits out its end. */
static uint8_t tcp_fin(struct ta_ct_entry *e, uint8_t flags, bool orig)
{
	if (!(flags & TCP_FIN))
		return TA_CT_ESTABLISHED;
	e->flags |= orig ? TA_CT_E_FIN_ORIG : TA_CT_E_FIN_REPLY;
	if ((e->flags & (TA_CT_E_FIN_ORIG | TA_CT_E_FIN_REPLY)) ==
	    (TA_CT_E_FIN_ORIG | TA_CT_E_FIN_REPLY))
		e->state = TA_CT_TIME_WAIT;
	else
		e->state = TA_CT_FIN_WAIT;
	return TA_CT_ESTABLISHED;
}

/* TCP of a live connection, by its flags (never its sequence numbers):
 * what the frame is, and the state it leaves. orig: from the opener. */
static uint8_t track_tcp(struct ta_ct_entry *e, const struct ta_model_frame *f, bool orig)
{
	const uint8_t flags = f->tcp_flags;
	const uint8_t four = flags & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN);
	const bool bare_syn = four == TCP_SYN, syn_ack = four == (TCP_SYN | TCP_ACK);

	if (flags & TCP_RST) {
		bool unanswered = !(e->flags & TA_CT_E_REPLIED);

		e->state = TA_CT_CLOSE;
		return orig && unanswered ? TA_CT_NEW : TA_CT_ESTABLISHED;
	}
	if (e->state == TA_CT_CLOSE)
		return TA_CT_INVALID; /* only a new SYN, taken as new before */
	if (e->state == TA_CT_SYN_SENT && orig)
		return bare_syn ? TA_CT_NEW : TA_CT_INVALID;
	if (e->state == TA_CT_SYN_SENT) {
		if (!syn_ack)
			return TA_CT_INVALID;
		e->flags |= TA_CT_E_REPLIED;
		e->state = TA_CT_SYN_RECV;
		return TA_CT_ESTABLISHED;
	}
	if (e->state == TA_CT_SYN_RECV && !orig)
		return syn_ack ? TA_CT_ESTABLISHED : TA_CT_INVALID;
	if (e->state == TA_CT_SYN_RECV && bare_syn)
		return TA_CT_ESTABLISHED; /* the opener's SYN once more */
	if (e->state == TA_CT_SYN_RECV) {
		if ((flags & (TCP_SYN | TCP_ACK)) != TCP_ACK)
			return TA_CT_INVALID;
		e->state = TA_CT_TCP_ESTABLISHED; /* the handshake's last ACK */
	} else if (flags & TCP_SYN) {
		return TA_CT_INVALID;
	}
	return tcp_fin(e, flags, orig);
}

/* Anything but TCP: an answer makes it established; echo must alternate
 * request (the opener's) and reply. */
static uint8_t track_other(struct ta_ct_entry *e, const struct ta_model_frame *f, bool orig)
{
	bool request = f->has_icmp && echo(f->ip_proto, f->icmp_type, true);

	if (f->has_icmp && request != orig)
		return TA_CT_INVALID;
	if (!orig && !(e->flags & TA_CT_E_REPLIED)) {
		e->flags |= TA_CT_E_REPLIED;
		e->state = e->state == TA_CT_UDP ? TA_CT_UDP_REPLIED : e->state;
	}
	if (orig && !(e->flags & TA_CT_E_REPLIED))
		return TA_CT_NEW;
	return TA_CT_ESTABLISHED;
}

static void frag_key(struct ta_ct_frag_key *k, const struct ta_model_frame *f, uint16_t zone)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->src, f->src_ip, 16);
	memcpy(k->dst, f->dst_ip, 16);
	k->id = f->frag_id;
	k->zone = zone;
	k->proto = f->ip_proto;
}

static struct ta_model_frag_rec *frag_find(struct ta_model_ct *ct, const struct ta_ct_frag_key *k)
{
	for (uint32_t i = 0; i < ct->nr_frags; i++)
		if (!memcmp(&ct->frags[i].key, k, sizeof(*k)))
			return &ct->frags[i];
	return NULL;
}

/* A later fragment: the ports and state its first one left, 30 s. */
static uint8_t track_fragment(struct ta_model_ct *ct, struct ta_model_frame *f, uint16_t zone,
			      uint64_t now)
{
	struct ta_ct_frag_key k;
	struct ta_model_frag_rec *r;

	frag_key(&k, f, zone);
	r = frag_find(ct, &k);
	if (!r || now - r->rec.ns > TA_CT_FRAG_TIMEOUT * NSEC)
		return TA_CT_INVALID;
	f->sport = r->rec.sport;
	f->dport = r->rec.dport;
	f->has_ports = ct_proto_has_ports(f->ip_proto);
	return r->rec.state;
}

static void frag_record(struct ta_model_ct *ct, const struct ta_model_frame *f, uint16_t zone,
			uint8_t state, uint64_t now)
{
	struct ta_model_frag_rec rec = {.rec = {.ns = now, .sport = f->sport, .dport = f->dport,
						.state = state}};
	struct ta_model_frag_rec *r;

	frag_key(&rec.key, f, zone);
	r = frag_find(ct, &rec.key);
	if (!r) {
		if (ct->nr_frags == ct->cap_frags) {
			uint32_t cap = ct->cap_frags ? ct->cap_frags * 2 : 16;
			void *a = realloc(ct->frags, cap * sizeof(*ct->frags));

			if (!a)
				return; /* as a full LRU would: forgotten */
			ct->frags = a;
			ct->cap_frags = cap;
		}
		r = &ct->frags[ct->nr_frags++];
	}
	*r = rec;
}

/* The state of frame f in zone, and what it does to its entry. */
static uint8_t track(struct ta_model_ct *ct, struct track *t, struct ta_model_frame *f,
		     uint16_t zone, uint64_t now)
{
	uint16_t sport = f->sport, dport = f->dport;
	bool tcp = f->ip_proto == PROTO_TCP, orig = false;
	uint8_t state;

	memset(t, 0, sizeof(*t));
	if (f->l3 != TA_MODEL_L3_IP4 && f->l3 != TA_MODEL_L3_IP6)
		return TA_CT_UNTRACKED;
	if (f->frag == TA_MODEL_FRAG_LATER)
		return track_fragment(ct, f, zone, now);
	if (f->has_icmp) {
		if ((f->ip_proto == PROTO_ICMP) != (f->l3 == TA_MODEL_L3_IP4))
			return TA_CT_UNTRACKED;
		if (ta_model_icmp_error(f->ip_proto, f->icmp_type)) {
			/* related: about a live connection, to whoever sent what
			 * it quotes */
			if (!f->has_inner || memcmp(f->dst_ip, f->inner_src, 16))
				return TA_CT_INVALID;
			make_key(&t->key, zone, f->inner_proto, f->inner_src, f->inner_dst,
				 f->inner_sport, f->inner_dport);
			lookup(ct, t, now);
			return t->live ? TA_CT_RELATED : TA_CT_INVALID;
		}
		if (!echo(f->ip_proto, f->icmp_type, true) && !echo(f->ip_proto, f->icmp_type, false))
			return TA_CT_UNTRACKED;
		sport = dport = f->icmp_id;
	} else if (!f->has_ports) {
		sport = dport = 0;
	}
	t->from_a = make_key(&t->key, zone, f->ip_proto, f->src_ip, f->dst_ip, sport, dport);
	lookup(ct, t, now);
	if (t->live) {
		orig = t->from_a == !!(t->c->e.flags & TA_CT_E_ORIG_A);
		/* an opener's SYN after the close starts over */
		if (tcp && orig && f->tcp_flags == TCP_SYN &&
		    (t->c->e.state == TA_CT_CLOSE || t->c->e.state == TA_CT_TIME_WAIT))
			t->live = false;
	}
	if (t->live) {
		state = tcp ? track_tcp(&t->c->e, f, orig) : track_other(&t->c->e, f, orig);
		if (state != TA_CT_INVALID && now - t->c->e.last_ns > REFRESH_NS)
			t->c->e.last_ns = now;
		return state;
	}
	/* no live connection: only a bare SYN, an echo request or another
	 * protocol opens one */
	if (tcp)
		t->creates = (f->tcp_flags & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN)) == TCP_SYN;
	else
		t->creates = !f->has_icmp || echo(f->ip_proto, f->icmp_type, true);
	if (!t->creates) {
		if (t->c)
			forget(ct, t); /* expired: nothing will take it over */
		return TA_CT_INVALID;
	}
	t->conn = tcp ? TA_CT_SYN_SENT
		  : f->has_icmp ? TA_CT_ICMP
		  : ct_proto_has_ports(f->ip_proto) ? TA_CT_UDP : TA_CT_GENERIC;
	return TA_CT_NEW;
}

enum { MADE, TABLE_FULL, TAP_LIMIT };

static int create(struct ta_model_ct *ct, struct track *t, uint32_t tap, uint32_t dir,
		  uint32_t generation, uint64_t now)
{
	bool had = t->c != NULL;
	uint32_t limit, old_tap = had ? t->c->e.tap : 0;
	bool replacing = had && old_tap == tap;
	struct ta_ct_entry e = {.last_ns = now, .generation = generation, .tap = (uint16_t)tap,
				.state = t->conn};

	if (tap >= TA_MAX_TAPS)
		return TABLE_FULL;
	if (!replacing) {
		limit = ct->cfg.tap_limit;
		if (limit && ct->tracked[tap] >= limit)
			return TAP_LIMIT;
		limit = ct->cfg.max_tracked ?: TA_CT_DEFAULT_ENTRIES - TA_CT_HEADROOM;
		if (ct->tracked[TA_MAX_TAPS] >= limit && !had)
			return TABLE_FULL;
	}
	e.flags = (t->from_a ? TA_CT_E_ORIG_A : 0) | (dir == TA_DIR_IN ? TA_CT_E_IN : 0);
	if (!had) {
		if (ct->nr == ct->cap) {
			uint32_t cap = ct->cap ? ct->cap * 2 : 64;
			void *a = realloc(ct->conns, cap * sizeof(*ct->conns));

			if (!a)
				return TABLE_FULL;
			ct->conns = a;
			ct->cap = cap;
		}
		t->c = &ct->conns[ct->nr++];
		t->c->key = t->key;
	}
	t->c->e = e;
	if (!replacing) {
		if (had)
			tap_add(ct, old_tap, -1);
		tap_add(ct, tap, 1);
	}
	return MADE;
}

/* The first rule of direction dir and state that matches f, or -1. */
static int first_match(const struct ta_policy_spec *spec, const struct ta_model_frame *f,
		       uint32_t dir, uint32_t state)
{
	for (uint32_t i = 0; i < spec->nr_rules; i++) {
		const struct ta_rule_spec *r = &spec->rules[i];
		uint32_t states = r->states ? r->states : TA_STATES_ALL;

		if ((ta_rule_dirs(r) & (1u << dir)) && (states & (1u << state)) &&
		    ta_model_rule_matches(r, f))
			return (int)i;
	}
	return -1;
}

static uint32_t action_of(const struct ta_policy_spec *spec, int rule, uint32_t dir,
			  uint32_t *ifindex)
{
	if (rule >= 0) {
		*ifindex = spec->rules[rule].ifindex;
		return spec->rules[rule].action;
	}
	*ifindex = dir == TA_DIR_IN ? 0 : spec->default_ifindex;
	return dir == TA_DIR_IN ? spec->default_in_action : spec->default_action;
}

static bool accepts(uint32_t action, uint32_t dir)
{
	if (dir == TA_DIR_IN)
		return action == TA_ACT_PASS;
	return action == TA_ACT_PASS || action == TA_ACT_REDIRECT || action == TA_ACT_FORWARD;
}

/* Would this version accept the connection c? Its first frame, made
 * again from the key, judged NEW in the direction it was opened; fields
 * the key does not hold are those of the frame at hand. */
static bool recheck(const struct ta_policy_spec *spec, const struct ta_model_conn *c,
		    const struct ta_model_frame *f)
{
	struct ta_model_frame o = *f;
	const struct ta_ct_key *k = &c->key;
	bool a = c->e.flags & TA_CT_E_ORIG_A;
	uint32_t dir = c->e.flags & TA_CT_E_IN ? TA_DIR_IN : TA_DIR_OUT, ifindex;

	memcpy(o.src_ip, a ? k->addr_a : k->addr_b, 16);
	memcpy(o.dst_ip, a ? k->addr_b : k->addr_a, 16);
	o.l3 = is_v4mapped(o.src_ip) ? TA_MODEL_L3_IP4 : TA_MODEL_L3_IP6;
	o.ip_proto = k->proto;
	o.has_ports = ct_proto_has_ports(k->proto);
	o.has_icmp = k->proto == PROTO_ICMP || k->proto == PROTO_ICMPV6;
	o.sport = a ? k->port_a : k->port_b;
	o.dport = a ? k->port_b : k->port_a;
	o.icmp_type = k->proto == PROTO_ICMP ? 8 : 128;
	return accepts(action_of(spec, first_match(spec, &o, dir, TA_CT_NEW), dir, &ifindex), dir);
}

bool ta_model_reject_sent(const struct ta_model_frame *f, size_t len)
{
	size_t have = len < REJECT_READ ? len : REJECT_READ;

	if ((f->l3 != TA_MODEL_L3_IP4 && f->l3 != TA_MODEL_L3_IP6) ||
	    f->frag == TA_MODEL_FRAG_LATER || f->l4_off > REJECT_READ - 20)
		return false;
	if (f->has_icmp &&
	    (ta_model_icmp_error(f->ip_proto, f->icmp_type) ||
	     (f->l3 == TA_MODEL_L3_IP6 && f->ip_proto == PROTO_ICMPV6 &&
	      (f->icmp_type == ICMP6_NS || f->icmp_type == ICMP6_NA))))
		return false;
	if (f->ip_proto == PROTO_TCP &&
	    (!f->has_ports || (f->tcp_flags & TCP_RST) || f->l4_off + 20 > have))
		return false;
	return true;
}

static void count_ct(struct ta_model_result *res, uint32_t counter)
{
	res->ct_counts |= 1u << counter;
}

/* ta_ct_judge: the action for a frame of a two-way policy, either way. */
static uint32_t judge(const struct ta_policy_spec *spec, uint32_t generation,
		      const struct ta_model_tap *tap, uint32_t dir, uint64_t now,
		      struct ta_model_ct *ct, struct ta_model_result *res, uint32_t *ifindex)
{
	struct ta_model_frame *f = &res->frame;
	uint16_t zone = tap->zone ? tap->zone : (uint16_t)tap->id;
	struct track t;
	uint32_t action;
	uint8_t state = track(ct, &t, f, zone, now);
	int rule, made;

	res->ct_state = state;
	*ifindex = 0;
	if (t.live && t.c->e.generation != generation &&
	    (state == TA_CT_ESTABLISHED || state == TA_CT_RELATED)) {
		if (!recheck(spec, t.c, f)) {
			forget(ct, &t);
			count_ct(res, TA_CT_C_CUT);
			res->stage = TA_MODEL_CT;
			return TA_ACT_DROP;
		}
		t.c->e.generation = generation;
	}
	if (state == TA_CT_INVALID)
		count_ct(res, TA_CT_C_INVALID);
	else if (state == TA_CT_RELATED)
		count_ct(res, TA_CT_C_RELATED);
	rule = first_match(spec, f, dir, state);
	action = action_of(spec, rule, dir, ifindex);
	res->rule = rule;
	res->stage = rule >= 0 ? TA_MODEL_RULE : TA_MODEL_DEFAULT;
	if (rule < 0 && dir == TA_DIR_IN)
		count_ct(res, TA_CT_C_IN_DEFAULT);
	if (!accepts(action, dir)) {
		if (t.creates && t.c)
			forget(ct, &t); /* an expired one nothing takes over */
		return action;
	}
	if (state == TA_CT_NEW && t.creates) {
		made = create(ct, &t, tap->id, dir, generation, now);
		if (made != MADE) {
			count_ct(res, made == TAP_LIMIT ? TA_CT_C_TAP_LIMIT : TA_CT_C_TABLE_FULL);
			res->stage = TA_MODEL_CT;
			return TA_ACT_DROP;
		}
		count_ct(res, TA_CT_C_NEW);
	}
	if (f->frag == TA_MODEL_FRAG_FIRST)
		frag_record(ct, f, zone, state, now);
	return action;
}

/* Parse (and guard, out) a frame of direction dir: false when that
 * decided, or the policy is one-way and the frame goes in (it passes). */
static bool ct_prepare(const struct ta_policy_spec *spec, uint32_t dir, const uint8_t *data,
		       size_t len, struct ta_model_result *res)
{
	memset(res, 0, sizeof(*res));
	res->rule = -1;
	res->guard_reason = TA_GUARD_MAX;
	res->dir = dir;
	res->ct_state = TA_CT_STATE_MAX;
	res->parse_class = ta_model_parse_dir(data, len, dir, &res->frame, &res->parse_info);
	if (res->parse_class != TA_PARSE_MAX) {
		res->stage = TA_MODEL_PARSE;
		res->verdict = XDP_DROP;
		return false;
	}
	if (dir == TA_DIR_IN && !ta_policy_two_way(spec)) {
		res->stage = TA_MODEL_DEFAULT;
		res->verdict = XDP_PASS;
		return false;
	}
	if (dir == TA_DIR_OUT && spec->guard.flags) {
		res->guard_reason = guard_reason(&spec->guard, &res->frame);
		if (res->guard_reason != TA_GUARD_MAX) {
			res->stage = TA_MODEL_GUARD;
			res->verdict = XDP_DROP;
			return false;
		}
	}
	return true;
}

/* The verdict of the action decided for a frame of direction dir. */
static void ct_act(const struct ta_policy_spec *spec, uint32_t dir, uint32_t action,
		   uint32_t ifindex, size_t len, struct ta_model_result *res)
{
	res->action = action;
	if (dir == TA_DIR_IN && action == TA_ACT_REJECT) {
		count_ct(res, TA_CT_C_IN_REJECT);
		res->reject_sent = ta_model_reject_sent(&res->frame, len);
		if (!res->reject_sent)
			count_ct(res, TA_CT_C_REJECT_UNSENT);
		res->verdict = res->reject_sent ? XDP_TX : XDP_DROP;
		return;
	}
	if (dir == TA_DIR_IN) {
		count_ct(res, action == TA_ACT_PASS ? TA_CT_C_IN_PASS : TA_CT_C_IN_DROP);
		res->verdict = action == TA_ACT_PASS ? XDP_PASS : XDP_DROP;
		return;
	}
	act(spec, action, ifindex, res);
}

void ta_model_run_ct(const struct ta_policy_spec *spec, uint32_t generation,
		     const struct ta_model_tap *tap, uint32_t dir, uint64_t now_ns,
		     struct ta_model_ct *ct, const uint8_t *data, size_t len,
		     struct ta_model_result *res)
{
	uint32_t action, ifindex;

	if (dir == TA_DIR_OUT && !ta_policy_two_way(spec)) {
		ta_model_run(spec, data, len, res);
		res->ct_state = TA_CT_STATE_MAX;
		return;
	}
	if (!ct_prepare(spec, dir, data, len, res))
		return;
	action = judge(spec, generation, tap, dir, now_ns, ct, res, &ifindex);
	ct_act(spec, dir, action, ifindex, len, res);
}

/* The receiver a redirect to ifindex reaches, if it is one of rx: what
 * judge_redirect finds through ta_ports and the tap's binding. */
static const struct ta_model_receiver *receiver_at(const struct ta_model_receiver *rx,
						   uint32_t nr, uint32_t ifindex)
{
	for (uint32_t i = 0; i < nr; i++)
		if (rx[i].ifindex == ifindex)
			return &rx[i];
	return NULL;
}

/* judge_in for a frame the sender's policy redirects to `to`: the
 * receiver's judgement, in its zone and counters, on the frame as the
 * sender's tracking left it (a later fragment carries the ports its
 * first one had); then what becomes of the redirect. */
static void receive(const struct ta_model_receiver *to, uint64_t now, struct ta_model_ct *ct,
		    size_t len, struct ta_model_result *res)
{
	struct ta_model_rx_result *rx = &res->rx;
	struct ta_model_result in;
	uint32_t action, ifindex;

	memset(&in, 0, sizeof(in));
	in.frame = res->frame;
	in.dir = TA_DIR_IN;
	in.rule = -1;
	action = judge(to->spec, to->generation, &to->tap, TA_DIR_IN, now, ct, &in, &ifindex);
	res->frame = in.frame;
	rx->judged = true;
	rx->tap = to->tap.id;
	rx->stage = in.stage;
	rx->rule = in.rule;
	rx->ct_state = in.ct_state;
	rx->ct_counts = in.ct_counts;
	if (action == TA_ACT_PASS) {
		rx->action = TA_ACT_PASS;
		rx->ct_counts |= 1u << TA_CT_C_IN_PASS;
		return;
	}
	if (action == TA_ACT_REJECT) {
		/* back out of the sender's tap, or counted there unsent */
		rx->action = TA_ACT_REJECT;
		rx->ct_counts |= 1u << TA_CT_C_IN_REJECT;
		res->reject_sent = ta_model_reject_sent(&res->frame, len);
		if (!res->reject_sent)
			count_ct(res, TA_CT_C_REJECT_UNSENT);
		res->verdict = res->reject_sent ? XDP_TX : XDP_DROP;
		return;
	}
	/* drop, and actions that mean nothing on the way in */
	rx->action = TA_ACT_DROP;
	rx->ct_counts |= 1u << TA_CT_C_IN_DROP;
	res->verdict = XDP_DROP;
}

void ta_model_run_rx(const struct ta_policy_spec *spec, uint32_t generation,
		     const struct ta_model_tap *tap, uint32_t dir, uint64_t now_ns,
		     struct ta_model_ct *ct, const struct ta_model_receiver *rx, uint32_t nr_rx,
		     const uint8_t *data, size_t len, struct ta_model_result *res)
{
	const struct ta_model_receiver *to;

	ta_model_run_ct(spec, generation, tap, dir, now_ns, ct, data, len, res);
	if (dir != TA_DIR_OUT || res->verdict != XDP_REDIRECT)
		return;
	to = receiver_at(rx, nr_rx, res->ifindex);
	if (to && to->spec && ta_policy_two_way(to->spec))
		receive(to, now_ns, ct, len, res);
}

void ta_model_run_in_state(const struct ta_policy_spec *spec, uint32_t dir, uint32_t state,
			   const uint8_t *data, size_t len, struct ta_model_result *res)
{
	uint32_t action, ifindex;
	int rule;

	if (dir == TA_DIR_OUT && !ta_policy_two_way(spec)) {
		ta_model_run(spec, data, len, res);
		return;
	}
	if (!ct_prepare(spec, dir, data, len, res))
		return;
	res->ct_state = state;
	rule = first_match(spec, &res->frame, dir, state);
	action = action_of(spec, rule, dir, &ifindex);
	res->rule = rule;
	res->stage = rule >= 0 ? TA_MODEL_RULE : TA_MODEL_DEFAULT;
	ct_act(spec, dir, action, ifindex, len, res);
}
