// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* gen.c - random frames and policies (gen.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "user/lib/policy/parse.h"

/* ---- randomness -----------------------------------------------------------
 */

void rng_seed(struct rng *r, uint64_t seed)
{
	r->s = seed ^ 0x9e3779b97f4a7c15ull;
}

/* splitmix64: small, fast, and every seed gives a good sequence */
uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint32_t rng_below(struct rng *r, uint32_t n)
{
	return n ? (uint32_t)(rng_next(r) % n) : 0;
}

int rng_pct(struct rng *r, uint32_t pct)
{
	return rng_below(r, 100) < pct;
}

#define PICK(r, arr) ((arr)[rng_below((r), sizeof(arr) / sizeof((arr)[0]))])

/* ---- the vocabulary -------------------------------------------------------
 */

static const uint8_t MCAST_MAC[6] = {0x33, 0x33, 0, 0, 0, 1};
static const uint8_t LL_IP6[16] = {0xfe, 0x80, 0, 0,	0,    0, 0, 0,
				   0x50, 0x54, 0, 0xff, 0xfe, 0, 0, 1};
static const uint8_t MAPPED_IP6[16] = {0, 0, 0,	   0,	 0,  0, 0, 0,
				       0, 0, 0xff, 0xff, 10, 0, 0, 1};

static void rand_bytes(struct rng *r, uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)rng_next(r);
}

static void pick_mac(struct rng *r, uint8_t mac[6])
{
	const uint8_t *const macs[] = {GUEST_MAC, GUEST_MAC, PEER_MAC,
				       OTHER_MAC, BCAST_MAC, MCAST_MAC};

	if (rng_pct(r, 10))
		rand_bytes(r, mac, 6);
	else
		memcpy(mac, PICK(r, macs), 6);
}

static uint32_t pick_ip4(struct rng *r)
{
	const uint32_t ips[] = {GUEST_IP4,
				GUEST_IP4,
				PEER_IP4,
				OTHER_IP4,
				0,
				IP4(255, 255, 255, 255),
				IP4(10, 0, 1, 7),
				IP4(192, 168, 1, 1)};

	return rng_pct(r, 15) ? (uint32_t)rng_next(r) : PICK(r, ips);
}

static void pick_ip6(struct rng *r, uint8_t a[16])
{
	const uint8_t *const ips[] = {GUEST_IP6, GUEST_IP6, PEER_IP6,
				      OTHER_IP6, ZERO_IP6,  LL_IP6,
				      MAPPED_IP6};

	if (rng_pct(r, 15)) {
		rand_bytes(r, a, 16);
	} else if (rng_pct(r, 5)) {
		/* ::ffff:a.b.c.d of an address IPv4 rules name: the spoof
		 * the parser must drop before any rule sees it */
		uint32_t ip4 = pick_ip4(r);

		memcpy(a, MAPPED_IP6, 12);
		memcpy(a + 12, &ip4, 4);
	} else {
		memcpy(a, PICK(r, ips), 16);
	}
}

static uint16_t pick_port(struct rng *r)
{
	const uint16_t ports[] = {53,	67,   68,   80, 443,
				  1000, 1999, 2000, 0,	65535};

	return rng_pct(r, 20) ? (uint16_t)rng_next(r) : PICK(r, ports);
}

static uint16_t pick_vlan(struct rng *r)
{
	const uint16_t vids[] = {10, 20, 0, 4095};

	return rng_pct(r, 20) ? rng_below(r, 4096) : PICK(r, vids);
}

static uint8_t pick_proto(struct rng *r)
{
	const uint8_t protos[] = {6, 17, 17, 136, 132, 1, 58, 47, 50, 0, 59};

	return rng_pct(r, 10) ? (uint8_t)rng_next(r) : PICK(r, protos);
}

static uint8_t pick_icmp_type(struct rng *r)
{
	const uint8_t types[] = {0, 8, 128, 129, 131, 133, 134, 135, 136, 143};

	return rng_pct(r, 15) ? (uint8_t)rng_next(r) : PICK(r, types);
}

static uint16_t pick_ethertype(struct rng *r)
{
	const uint16_t types[] = {0x0800, 0x86dd, 0x0806, 0x88b5, 0x8100};

	return rng_pct(r, 10) ? (uint16_t)rng_next(r) : PICK(r, types);
}

/* ---- frames -----------------------------------------------------------------
 */

static void put(struct pkt *p, uint8_t v)
{
	pkt_bytes(p, &v, 1);
}

static void rand_payload(struct rng *r, struct pkt *p, size_t max)
{
	size_t n = rng_below(r, max + 1);

	rand_bytes(r, p->d + p->len, n);
	p->len += n;
}

static void gen_nd(struct rng *r, struct pkt *p, uint8_t type)
{
	uint8_t target[16], mac[6];
	uint32_t opts, i;

	pick_ip6(r, target);
	pkt_nd(p, type, target);
	opts = rng_pct(r, 10) ? 14 + rng_below(r, 5) : rng_below(r, 4);
	for (i = 0; i < opts; i++) {
		const uint8_t otypes[] = {1, 2, 1, 2, 14, 3};
		uint8_t ot = PICK(r, otypes);

		pick_mac(r, mac);
		if (ot <= 2) {
			pkt_nd_lladdr(p, ot, mac);
			continue;
		}
		put(p, ot);
		put(p, 1 + rng_below(r, 2));
		pkt_zeros(p, (p->d[p->len - 1]) * 8 - 2);
	}
}

static void gen_l4(struct rng *r, struct pkt *p, uint8_t proto, int ip6)
{
	switch (proto) {
	case 6:
		pkt_tcp(p, pick_port(r), pick_port(r));
		break;
	case 17:
	case 136:
		pkt_udp(p, pick_port(r), pick_port(r));
		break;
	case 132:
		pkt_sctp(p, pick_port(r), pick_port(r));
		break;
	case 1:
	case 58: {
		uint8_t type = pick_icmp_type(r);

		if (ip6 && proto == 58 && rng_pct(r, 40)) /* ND is rare else */
			type = rng_pct(r, 50) ? 135 : 136;

		if (ip6 && proto == 58 && (type == 135 || type == 136))
			gen_nd(r, p, type);
		else
			pkt_icmp(p, type);
		break;
	}
	default:
		rand_payload(r, p, 24);
	}
}

static void gen_ip4(struct rng *r, struct pkt *p)
{
	const uint16_t frags[] = {0,   0, 0, 0x4000, 0x2000, 0x2000 | 185,
				  185, 1};
	uint8_t proto = pick_proto(r);
	uint8_t ihl = rng_pct(r, 15) ? 6 + rng_below(r, 10) : 5;
	uint16_t frag = rng_pct(r, 20) ? PICK(r, frags) : 0;

	pkt_ip4_ex(p, pick_ip4(r), pick_ip4(r), proto, ihl, frag);
	gen_l4(r, p, proto, 0);
}

static uint8_t pick_ext(struct rng *r)
{
	const uint8_t exts[] = {0, 43, 44, 60, 51, 135, 139, 140};

	return PICK(r, exts);
}

static void gen_ip6(struct rng *r, struct pkt *p)
{
	uint8_t chain[9], src[16], dst[16], proto = pick_proto(r);
	uint32_t n = rng_pct(r, 30) ? 1 + rng_below(r, 8) : 0, i;

	for (i = 0; i < n; i++)
		chain[i] = pick_ext(r);
	chain[n] = proto;
	pick_ip6(r, src);
	pick_ip6(r, dst);
	pkt_ip6(p, src, dst, chain[0]);
	for (i = 0; i < n; i++) {
		if (chain[i] == 44)
			pkt_ip6_frag(p, chain[i + 1],
				     rng_pct(r, 50) ? 0 : rng_below(r, 8192),
				     rng_pct(r, 50));
		else if (chain[i] == 51)
			pkt_ip6_ah(p, chain[i + 1], 1 + rng_below(r, 5));
		else
			pkt_ip6_ext(p, chain[i + 1], rng_below(r, 3));
	}
	gen_l4(r, p, proto, 1);
}

static void gen_arp(struct rng *r, struct pkt *p)
{
	uint8_t sha[6];

	pick_mac(r, sha);
	pkt_arp(p, sha, pick_ip4(r), pick_ip4(r));
	if (rng_pct(r, 10)) /* another hardware/protocol type or size */
		p->d[p->len - 28 + rng_below(r, 6)] = (uint8_t)rng_next(r);
}

static void gen_l2(struct rng *r, struct pkt *p, uint16_t *type)
{
	uint8_t dst[6], src[6];
	uint32_t tags =
		rng_pct(r, 25) ? 1 + rng_below(r, rng_pct(r, 10) ? 3 : 2) : 0;
	uint16_t tpid = rng_pct(r, 50) ? 0x8100 : 0x88a8;

	pick_mac(r, dst);
	if (rng_pct(r, 80))
		memcpy(src, GUEST_MAC, 6);
	else
		pick_mac(r, src);
	*type = pick_ethertype(r);
	pkt_eth(p, dst, src, tags ? tpid : *type);
	for (; tags; tags--)
		pkt_vlan(p, (uint16_t)(rng_below(r, 8) << 13 | pick_vlan(r)),
			 tags > 1 ? 0x8100 : *type);
}

void gen_frame(struct rng *r, struct pkt *p)
{
	uint16_t type;

	pkt_init(p);
	gen_l2(r, p, &type);
	if (type == 0x0800)
		gen_ip4(r, p);
	else if (type == 0x86dd)
		gen_ip6(r, p);
	else if (type == 0x0806)
		gen_arp(r, p);
	if (rng_pct(r, 50)) { /* payload, inside the IP length or padding */
		rand_payload(r, p, 40);
		pkt_fix_lengths(p);
	} else {
		pkt_fix_lengths(p);
		rand_payload(r, p, 40);
	}
	if (p->len < 14)
		pkt_zeros(p, 14 - p->len);
}

void gen_mutate(struct rng *r, struct pkt *p)
{
	uint32_t n = 1 + rng_below(r, 3), span = p->len < 120 ? p->len : 120;

	while (n--) {
		uint32_t at = rng_below(r, span);

		switch (rng_below(r, 4)) {
		case 0:
			p->d[at] = (uint8_t)rng_next(r);
			break;
		case 1:
			p->d[at] ^= (uint8_t)(1u << rng_below(r, 8));
			break;
		case 2:
			p->d[at] = rng_pct(r, 50) ? 0 : 0xff;
			break;
		default: /* the version/IHL or payload length of the L3 */
			if (p->l3_off > 0 && (uint32_t)p->l3_off + 6 < p->len)
				p->d[p->l3_off + (rng_pct(r, 50) ? 0 : 5)] =
					(uint8_t)rng_next(r);
		}
	}
}

/* ---- policies ---------------------------------------------------------------
 */

static void pick_prefix(struct rng *r, struct ta_prefix *pfx, int v4)
{
	int bit;

	if (v4) {
		uint32_t a = pick_ip4(r);

		memset(pfx->addr, 0, 16);
		pfx->addr[10] = pfx->addr[11] = 0xff;
		memcpy(pfx->addr + 12, &a, 4);
		pfx->prefixlen = 96 + (rng_pct(r, 50) ? 32 : rng_below(r, 33));
	} else if (rng_pct(r, 15)) {
		/* ::/0 and other IPv6 prefixes holding ::ffff:0:0/96, where
		 * IPv4 frames are keyed: they must match no IPv4 frame */
		memcpy(pfx->addr, MAPPED_IP6, 16);
		pfx->prefixlen = rng_pct(r, 40) ? 0 : rng_below(r, 96);
	} else {
		pick_ip6(r, pfx->addr);
		pfx->prefixlen = rng_pct(r, 40) ? 128 : rng_below(r, 129);
	}
	for (bit = pfx->prefixlen; bit < 128; bit++) /* no host bits */
		pfx->addr[bit / 8] &= (uint8_t) ~(0x80 >> (bit % 8));
}

static void pick_range(struct rng *r, uint16_t *lo, uint16_t *hi)
{
	uint16_t a = pick_port(r), b = pick_port(r);

	if (rng_pct(r, 50))
		b = a;
	*lo = a < b ? a : b;
	*hi = a < b ? b : a;
}

static void pick_action(struct rng *r, uint32_t *action, uint32_t *ifindex,
			char *dev, uint32_t port, const char *ifname)
{
	*action = rng_below(r, TA_ACT_MAX);
	*ifindex = *action == TA_ACT_REDIRECT ? port : 0;
	if (*action == TA_ACT_REDIRECT)
		snprintf(dev, IF_NAMESIZE, "%s", ifname);
}

/* Each field is named with probability pct %; empty_pct (per mille): how
 * often a rule names none (it matches every frame that gets that far). */
static void gen_rule(struct rng *r, struct ta_rule_spec *rule, uint32_t port,
		     const char *ifname, uint32_t pct, uint32_t empty_pct)
{
	if (rng_below(r, 1000) < empty_pct)
		pct = 0;
	int f;

	memset(rule, 0, sizeof(*rule));
	for (f = 0; f < TA_F_MAX; f++)
		if (rng_pct(r, pct))
			rule->fields |= 1u << f;
	rule->vlan = pick_vlan(r);
	pick_mac(r, rule->src_mac);
	pick_mac(r, rule->dst_mac);
	rule->ethertype = pick_ethertype(r);
	pick_prefix(r, &rule->src_ip, rng_pct(r, 50));
	pick_prefix(r, &rule->dst_ip, rng_pct(r, 50));
	rule->ip_proto = pick_proto(r);
	pick_range(r, &rule->sport_lo, &rule->sport_hi);
	pick_range(r, &rule->dport_lo, &rule->dport_hi);
	rule->icmp_type = pick_icmp_type(r);
	pick_action(r, &rule->action, &rule->ifindex, rule->redirect_dev, port,
		    ifname);
}

static void gen_guard(struct rng *r, struct ta_guard_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->flags = 1 + rng_below(r, 7);
	memcpy(g->mac, rng_pct(r, 90) ? GUEST_MAC : OTHER_MAC, 6);
	g->ip4[g->nr_ip4++] = GUEST_IP4;
	if (rng_pct(r, 50))
		g->ip4[g->nr_ip4++] = IP4(10, 0, 1, 7);
	memcpy(g->ip6[g->nr_ip6++], GUEST_IP6, 16);
	if (rng_pct(r, 50))
		memcpy(g->ip6[g->nr_ip6++], LL_IP6, 16);
}

static void gen_fdb(struct rng *r, struct ta_policy_spec *spec, uint32_t port,
		    const char *ifname)
{
	const uint8_t *const macs[] = {PEER_MAC, OTHER_MAC, GUEST_MAC};
	uint32_t n = rng_below(r, 4), i;

	spec->fdb = calloc(3, sizeof(*spec->fdb));
	for (i = 0; i < n && i < 3; i++) {
		struct ta_fdb_spec *e = &spec->fdb[spec->nr_fdb];

		memcpy(e->mac, macs[i], 6);
		e->ifindex = port;
		snprintf(e->dev, IF_NAMESIZE, "%s", ifname);
		spec->nr_fdb++;
	}
}

void gen_policy(struct rng *r, struct ta_policy_spec *spec, uint32_t max_rules,
		int guard, uint32_t ifindex, const char *ifname)
{
	/* many rules: mostly specific ones, so that late rules still match */
	uint32_t i, specific = max_rules > 64 ? 30 : 10;

	memset(spec, 0, sizeof(*spec));
	spec->nr_rules = rng_below(r, max_rules + 1);
	spec->rules = calloc(spec->nr_rules + 1, sizeof(*spec->rules));
	for (i = 0; i < spec->nr_rules; i++)
		gen_rule(r, &spec->rules[i], ifindex, ifname,
			 specific + rng_below(r, 30), specific ? 1 : 50);
	pick_action(r, &spec->default_action, &spec->default_ifindex,
		    spec->default_dev, ifindex, ifname);
	gen_fdb(r, spec, ifindex, ifname);
	if (guard)
		gen_guard(r, &spec->guard);
}

/* ---- as text --------------------------------------------------------------
 */

static void print_action(FILE *out, uint32_t action, const char *dev)
{
	fprintf(out, "%s", ta_action_name(action));
	if (action == TA_ACT_REDIRECT)
		fprintf(out, " %s", dev);
}

static void print_range(FILE *out, const char *name, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		fprintf(out, " %s %u", name, lo);
	else
		fprintf(out, " %s %u-%u", name, lo, hi);
}

static void print_rule(FILE *out, const struct ta_rule_spec *r)
{
	char buf[64];

	fprintf(out, "rule ");
	print_action(out, r->action, r->redirect_dev);
	if (r->fields & (1u << TA_F_VLAN))
		fprintf(out, " vlan %u", r->vlan);
	if (r->fields & (1u << TA_F_SRC_MAC))
		fprintf(out, " smac %s", ta_format_mac(r->src_mac, buf));
	if (r->fields & (1u << TA_F_DST_MAC))
		fprintf(out, " dmac %s", ta_format_mac(r->dst_mac, buf));
	if (r->fields & (1u << TA_F_ETHERTYPE))
		fprintf(out, " ethertype 0x%04x", r->ethertype);
	if (r->fields & (1u << TA_F_SRC_IP))
		fprintf(out, " src %s", ta_format_prefix(&r->src_ip, buf));
	if (r->fields & (1u << TA_F_DST_IP))
		fprintf(out, " dst %s", ta_format_prefix(&r->dst_ip, buf));
	if (r->fields & (1u << TA_F_IP_PROTO))
		fprintf(out, " proto %u", r->ip_proto);
	if (r->fields & (1u << TA_F_SRC_PORT))
		print_range(out, "sport", r->sport_lo, r->sport_hi);
	if (r->fields & (1u << TA_F_DST_PORT))
		print_range(out, "dport", r->dport_lo, r->dport_hi);
	if (r->fields & (1u << TA_F_ICMP_TYPE))
		fprintf(out, " icmp-type %u", r->icmp_type);
	fprintf(out, "\n");
}

static void print_guard(FILE *out, const struct ta_guard_spec *g)
{
	char buf[INET6_ADDRSTRLEN];
	uint32_t i;

	if (!g->flags)
		return;
	/* the language turns checks on by what is listed; say the flags */
	fprintf(out, "# guard flags 0x%x (mac 1, ip4 2, ip6 4)\nguard",
		g->flags);
	fprintf(out, " mac %s", ta_format_mac(g->mac, buf));
	for (i = 0; i < g->nr_ip4; i++)
		fprintf(out, " ip %s",
			inet_ntop(AF_INET, &g->ip4[i], buf, sizeof(buf)));
	for (i = 0; i < g->nr_ip6; i++)
		fprintf(out, " ip %s",
			inet_ntop(AF_INET6, g->ip6[i], buf, sizeof(buf)));
	fprintf(out, "\n");
}

void policy_print(FILE *out, const struct ta_policy_spec *spec)
{
	char buf[32];
	uint32_t i;

	print_guard(out, &spec->guard);
	for (i = 0; i < spec->nr_fdb; i++)
		fprintf(out, "fdb %s dev %s\n",
			ta_format_mac(spec->fdb[i].mac, buf), spec->fdb[i].dev);
	for (i = 0; i < spec->nr_rules; i++)
		print_rule(out, &spec->rules[i]);
	fprintf(out, "default ");
	print_action(out, spec->default_action, spec->default_dev);
	fprintf(out, "\n");
}
