// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * model.c - the reference model of model.h: parse, guard and first-match
 * classification as docs/bpf.md and docs/policy.md describe them. Plain
 * code on purpose: a linear scan over the rules, bounds checked before
 * every read, nothing shared with the program's bit-vector classifier.
 */
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

/* Ports or ICMP type at c->off; `ip6_end` bounds ND options. */
static int parse_l4(struct cursor *c, size_t ip6_end, struct ta_model_frame *f)
{
	uint8_t proto = f->ip_proto;
	size_t need;

	if (has_ports(proto, &need)) {
		if (!has(c, need))
			return TA_PARSE_L4_TRUNC;
		f->has_ports = true;
		f->sport = be16(c->d + c->off);
		f->dport = be16(c->d + c->off + 2);
		return TA_PARSE_MAX;
	}
	if (proto != PROTO_ICMP && proto != PROTO_ICMPV6)
		return TA_PARSE_MAX;
	if (!has(c, 8))
		return TA_PARSE_L4_TRUNC;
	f->has_icmp = true;
	f->icmp_type = c->d[c->off];
	if (f->l3 == TA_MODEL_L3_IP6 && proto == PROTO_ICMPV6 &&
	    (f->icmp_type == ICMP6_NS || f->icmp_type == ICMP6_NA))
		return parse_nd(c, ip6_end, f);
	return TA_PARSE_MAX;
}

static void put_ip4(uint8_t out[16], const uint8_t *addr)
{
	memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	memcpy(out + 12, addr, 4);
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
	f->ip_proto = h[9];
	put_ip4(f->src_ip, h + 12);
	put_ip4(f->dst_ip, h + 16);
	if (be16(h + 6) & 0x1fff) { /* a non-first fragment: no L4 header */
		*info |= 1u << TA_PARSE_IP4_FRAG;
		return TA_PARSE_MAX;
	}
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
		if (nh == IP6_FRAGMENT && (be16(c->d + c->off + 2) >> 3)) {
			*info |= 1u << TA_PARSE_IP6_FRAG;
			f->ip_proto = c->d[c->off];
			return TA_PARSE_MAX;
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
	struct cursor c = {.d = data, .len = len, .off = ETH_HLEN};
	int class;

	memset(f, 0, sizeof(*f));
	*info = 0;
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
	memset(res, 0, sizeof(*res));
	res->rule = -1;
	res->guard_reason = TA_GUARD_MAX;
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
