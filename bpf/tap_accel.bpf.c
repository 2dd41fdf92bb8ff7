// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tap_accel: the per-interface XDP policy program. Everything it does is
 * configured through the maps documented in tap_accel.h:
 *
 *   parse -> guard -> rate limit -> classify -> action -> verdict
 *
 * Every frame is counted exactly once in ta_st_verdict, plus in the
 * counter of whatever stage decided it (parse class, guard reason, rate
 * event, rule or default).
 */
#include "bpf/parse.bpf.h"

#define NSEC_PER_SEC 1000000000ull

/* ---- maps (see tap_accel.h for keys and values) ------------------------ */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_config);
} ta_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_owner);
} ta_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_SLOTS);
	__type(key, __u32);
	__type(value, struct ta_policy);
} ta_policy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, (TA_SLOTS * TA_MAX_RULES));
	__type(key, __u32);
	__type(value, struct ta_rule_action);
} ta_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, (TA_SLOTS * TA_MAX_BITVECS));
	__type(key, __u32);
	__type(value, struct ta_bitvec);
} ta_bitvecs SEC(".maps");

#define FIELD_HASH(name, key_type)                                             \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_HASH);                               \
		__uint(max_entries, (TA_SLOTS * TA_MAX_FIELD_ENTRIES));        \
		__type(key, key_type);                                         \
		__type(value, __u32);                                          \
	} name SEC(".maps")

#define FIELD_LPM(name)                                                        \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_LPM_TRIE);                           \
		__uint(max_entries, (TA_SLOTS * TA_MAX_FIELD_ENTRIES));        \
		__uint(map_flags, BPF_F_NO_PREALLOC);                          \
		__type(key, struct ta_key_ip);                                 \
		__type(value, __u32);                                          \
	} name SEC(".maps")

#define FIELD_ARRAY(name, space)                                               \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY);                              \
		__uint(max_entries, (TA_SLOTS * (space)));                     \
		__type(key, __u32);                                            \
		__type(value, __u32);                                          \
	} name SEC(".maps")

FIELD_HASH(ta_vlan, struct ta_key16);
FIELD_HASH(ta_ethertype, struct ta_key16);
FIELD_HASH(ta_src_mac, struct ta_key_mac);
FIELD_HASH(ta_dst_mac, struct ta_key_mac);
FIELD_LPM(ta_src_ip);
FIELD_LPM(ta_dst_ip);
FIELD_ARRAY(ta_ip_proto, TA_BYTE_SPACE);
FIELD_ARRAY(ta_icmp_type, TA_BYTE_SPACE);
FIELD_ARRAY(ta_src_port, TA_PORT_SPACE);
FIELD_ARRAY(ta_dst_port, TA_PORT_SPACE);

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TA_MAX_FDB);
	__type(key, struct ta_mac);
	__type(value, __u32);
} ta_fdb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, TA_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} ta_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_guard);
} ta_guard SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TA_MAX_GUARD_ADDRS);
	__type(key, __be32);
	__type(value, __u8);
} ta_guard_ip4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, TA_MAX_GUARD_ADDRS);
	__type(key, struct ta_ip6);
	__type(value, __u8);
} ta_guard_ip6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_rate);
} ta_rate SEC(".maps");

#define COUNTERS(name, entries)                                                \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);                       \
		__uint(max_entries, entries);                                  \
		__type(key, __u32);                                            \
		__type(value, struct ta_counter);                              \
	} name SEC(".maps")

COUNTERS(ta_st_verdict, TA_NR_VERDICTS);
COUNTERS(ta_st_rule, (TA_SLOTS * TA_RULE_STAT_SLOT));
COUNTERS(ta_st_guard, TA_GUARD_MAX);
COUNTERS(ta_st_parse, TA_PARSE_MAX);
COUNTERS(ta_st_event, TA_EV_MAX);

struct ta_sync_inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct ta_sync_inner);
} ta_sync SEC(".maps");

/* ---- counting ------------------------------------------------------------ */

static __always_inline void count(void *map, __u32 key, __u32 len)
{
	struct ta_counter *c = bpf_map_lookup_elem(map, &key);

	if (c) {
		c->packets++;
		c->bytes += len;
	}
}

static __always_inline void count_parse_info(struct frame *f)
{
	if (f->info & (1u << TA_PARSE_IP4_OPTIONS))
		count(&ta_st_parse, TA_PARSE_IP4_OPTIONS, f->len);
	if (f->info & (1u << TA_PARSE_IP4_FRAG))
		count(&ta_st_parse, TA_PARSE_IP4_FRAG, f->len);
	if (f->info & (1u << TA_PARSE_IP6_FRAG))
		count(&ta_st_parse, TA_PARSE_IP6_FRAG, f->len);
}

/* ---- guest guard --------------------------------------------------------- */

#define GUARD_OK TA_GUARD_MAX

static __always_inline bool guest_ip4(__be32 addr)
{
	return bpf_map_lookup_elem(&ta_guard_ip4, &addr) != NULL;
}

static __always_inline bool guest_ip6(const __u8 *addr)
{
	struct ta_ip6 key;

	__builtin_memcpy(key.addr, addr, 16);
	return bpf_map_lookup_elem(&ta_guard_ip6, &key) != NULL;
}

static __always_inline bool ip6_is_unspecified(const __u8 *a)
{
	const __u64 *w = (const __u64 *)a;

	return (w[0] | w[1]) == 0;
}

/* 0.0.0.0 is a DHCP client that has no address yet: UDP to port 67 only. */
static __always_inline bool ip4_src_allowed(const struct frame *f)
{
	__be32 src;

	__builtin_memcpy(&src, f->src_ip + 12, 4);
	if (!src)
		return f->ip_proto == IPPROTO_UDP && f->has_ports &&
		       f->dport == 67;
	return guest_ip4(src);
}

/* :: is duplicate address detection: the NS and the MLD reports sent
 * before the guest owns an address (RFC 4862, RFC 3810 5.2.13). */
static __always_inline bool ip6_src_allowed(const struct frame *f)
{
	if (ip6_is_unspecified(f->src_ip))
		return f->ip_proto == IPPROTO_ICMPV6 && f->has_icmp &&
		       (f->icmp_type == NDISC_NS ||
			f->icmp_type == MLD_REPORT ||
			f->icmp_type == MLD2_REPORT);
	return guest_ip6(f->src_ip);
}

static __always_inline int guard_mac(const struct frame *f,
				     const struct ta_guard *g)
{
	if (!mac_eq(f->src_mac, g->mac))
		return TA_GUARD_SRC_MAC;
	if (f->arp_eth_ip4 && !mac_eq(f->arp_sha, g->mac))
		return TA_GUARD_ARP_SHA;
	/* lladdr options were compared with src_mac, now known the guest's */
	if (f->nd_lladdr_foreign)
		return TA_GUARD_ND_LLADDR;
	return GUARD_OK;
}

static __always_inline int guard_check(const struct frame *f)
{
	__u32 zero = 0;
	struct ta_guard *g = bpf_map_lookup_elem(&ta_guard, &zero);
	int reason;

	if (!g || !g->flags)
		return GUARD_OK;
	if (g->flags & TA_GUARD_F_MAC) {
		reason = guard_mac(f, g);
		if (reason != GUARD_OK)
			return reason;
	}
	if (g->flags & TA_GUARD_F_IP4) {
		if (f->l3 == L3_IP4 && !ip4_src_allowed(f))
			return TA_GUARD_IP4_SRC;
		/* spa 0.0.0.0 is an address probe (RFC 5227) */
		if (f->arp_eth_ip4 && f->arp_spa && !guest_ip4(f->arp_spa))
			return TA_GUARD_ARP_SPA;
	}
	if (g->flags & TA_GUARD_F_IP6) {
		if (f->l3 == L3_IP6 && !ip6_src_allowed(f))
			return TA_GUARD_IP6_SRC;
		if (f->nd_is_na && !guest_ip6(f->nd_target))
			return TA_GUARD_ND_TARGET;
	}
	return GUARD_OK;
}

/* ---- rate limit ---------------------------------------------------------- */

/* Adds elapsed_ns * rate tokens, capped at cap, without overflowing. */
static __always_inline __u64 refill(__u64 tokens, __u64 elapsed_ns, __u64 rate,
				    __u64 cap)
{
	__u64 room;

	if (tokens >= cap)
		return cap;
	room = cap - tokens;
	if (elapsed_ns > room / rate)
		return cap;
	return tokens + elapsed_ns * rate;
}

/* Token bucket in both dimensions; a frame needs a token in each enabled
 * one and takes nothing unless it gets all. */
static __always_inline bool rate_allow(__u32 len)
{
	__u32 zero = 0;
	struct ta_rate *r = bpf_map_lookup_elem(&ta_rate, &zero);
	__u64 now, elapsed, pkt, bit, need_pkt, need_bit;
	bool ok;

	if (!r || (!r->pps && !r->bps))
		return true;
	now = bpf_ktime_get_ns();
	need_pkt = NSEC_PER_SEC;
	need_bit = (__u64)len * 8 * NSEC_PER_SEC;

	bpf_spin_lock(&r->lock);
	elapsed = now > r->last_ns ? now - r->last_ns : 0;
	r->last_ns = now;
	pkt = r->pkt_tokens;
	bit = r->bit_tokens;
	if (r->pps)
		pkt = refill(pkt, elapsed, r->pps,
			     r->burst_pkts * NSEC_PER_SEC);
	else
		need_pkt = 0;
	if (r->bps)
		bit = refill(bit, elapsed, r->bps,
			     r->burst_bytes * 8 * NSEC_PER_SEC);
	else
		need_bit = 0;
	ok = pkt >= need_pkt && bit >= need_bit;
	if (ok) {
		pkt -= need_pkt;
		bit -= need_bit;
	}
	r->pkt_tokens = pkt;
	r->bit_tokens = bit;
	bpf_spin_unlock(&r->lock);
	return ok;
}

/* ---- classifier ---------------------------------------------------------- */

struct classify_ctx {
	__u64 acc[TA_BV_WORDS]; /* candidate rules so far */
	const struct ta_policy *pol;
	__u32 slot;
	union { /* one key buffer for every lookup keeps the stack small */
		__u32 index;
		struct ta_key16 k16;
		struct ta_key_mac mac;
		struct ta_key_ip ip;
	} key;
};

/* ANDs bit-vector `idx` (absolute) into the candidates. */
static __always_inline void and_bitvec(struct classify_ctx *c, __u32 idx)
{
	struct ta_bitvec *bv;
	int w;

	c->key.index = idx;
	bv = bpf_map_lookup_elem(&ta_bitvecs, &c->key.index);
	if (!bv) {
		/* a corrupt index matches nothing: the default applies */
		__builtin_memset(c->acc, 0, sizeof(c->acc));
		return;
	}
	for (w = 0; w < TA_BV_WORDS; w++)
		c->acc[w] &= bv->word[w];
}

/* A lookup's bit-vector index, or the field's wildcard on a miss. */
static __always_inline void and_lookup(struct classify_ctx *c, void *map,
				       const void *key, enum ta_field field)
{
	__u32 *idx = key ? bpf_map_lookup_elem(map, key) : NULL;

	and_bitvec(c, idx ? *idx : c->pol->wildcard[field]);
}

static __always_inline void and_key16(struct classify_ctx *c, void *map,
				      enum ta_field field, __u32 value)
{
	c->key.k16.slot = c->slot;
	c->key.k16.value = value;
	and_lookup(c, map, &c->key.k16, field);
}

static __always_inline void and_mac(struct classify_ctx *c, void *map,
				    enum ta_field field, const __u8 *mac)
{
	c->key.mac.slot = c->slot;
	__builtin_memcpy(c->key.mac.addr, mac, ETH_ALEN);
	c->key.mac._pad[0] = 0;
	c->key.mac._pad[1] = 0;
	and_lookup(c, map, &c->key.mac, field);
}

/* The family byte keeps IPv6 prefixes (even ::/0) off IPv4 frames, whose
 * addresses are v4-mapped, and IPv4 prefixes off IPv6 frames. */
static __always_inline void and_ip(struct classify_ctx *c, void *map,
				   enum ta_field field, const struct frame *f,
				   const __u8 *addr)
{
	__builtin_memset(&c->key.ip, 0, sizeof(c->key.ip));
	c->key.ip.prefixlen = 16 + 128;
	c->key.ip.slot = c->slot;
	c->key.ip.family = f->l3 == L3_IP4 ? TA_FAMILY_IP4 : TA_FAMILY_IP6;
	__builtin_memcpy(c->key.ip.addr, addr, 16);
	and_lookup(c, map, &c->key.ip, field);
}

/* Array fields: key = slot * space + value, every value has an entry. */
static __always_inline void and_array(struct classify_ctx *c, void *map,
				      enum ta_field field, __u32 space,
				      __u32 value)
{
	c->key.index = c->slot * space + value;
	and_lookup(c, map, &c->key.index, field);
}

static __always_inline bool uses(const struct classify_ctx *c,
				 enum ta_field field)
{
	return c->pol->field_mask & (1u << field);
}

static __always_inline __u32 lowest_bit(__u64 x)
{
	__u32 n = 0;

	if (!(x & 0xffffffffull)) {
		n += 32;
		x >>= 32;
	}
	if (!(x & 0xffff)) {
		n += 16;
		x >>= 16;
	}
	if (!(x & 0xff)) {
		n += 8;
		x >>= 8;
	}
	if (!(x & 0xf)) {
		n += 4;
		x >>= 4;
	}
	if (!(x & 0x3)) {
		n += 2;
		x >>= 2;
	}
	if (!(x & 0x1))
		n += 1;
	return n;
}

/* The first candidate rule, or TA_MAX_RULES when none is left. */
static __always_inline __u32 first_rule(const struct classify_ctx *c)
{
	int w;

	for (w = 0; w < TA_BV_WORDS; w++)
		if (c->acc[w])
			return w * 64 + lowest_bit(c->acc[w]);
	return TA_MAX_RULES;
}

/* One lookup per field the policy uses; a frame lacking the field takes
 * the wildcard (key NULL). No per-rule work. */
static __always_inline __u32 classify(struct classify_ctx *c,
				      const struct frame *f)
{
	bool ip = f->l3 == L3_IP4 || f->l3 == L3_IP6;

	__builtin_memset(c->acc, 0xff, sizeof(c->acc));
	if (uses(c, TA_F_VLAN)) {
		if (f->has_vlan)
			and_key16(c, &ta_vlan, TA_F_VLAN, f->vlan);
		else
			and_lookup(c, &ta_vlan, NULL, TA_F_VLAN);
	}
	if (uses(c, TA_F_SRC_MAC))
		and_mac(c, &ta_src_mac, TA_F_SRC_MAC, f->src_mac);
	if (uses(c, TA_F_DST_MAC))
		and_mac(c, &ta_dst_mac, TA_F_DST_MAC, f->dst_mac);
	if (uses(c, TA_F_ETHERTYPE))
		and_key16(c, &ta_ethertype, TA_F_ETHERTYPE, f->ethertype);
	if (uses(c, TA_F_SRC_IP)) {
		if (ip)
			and_ip(c, &ta_src_ip, TA_F_SRC_IP, f, f->src_ip);
		else
			and_lookup(c, &ta_src_ip, NULL, TA_F_SRC_IP);
	}
	if (uses(c, TA_F_DST_IP)) {
		if (ip)
			and_ip(c, &ta_dst_ip, TA_F_DST_IP, f, f->dst_ip);
		else
			and_lookup(c, &ta_dst_ip, NULL, TA_F_DST_IP);
	}
	if (uses(c, TA_F_IP_PROTO)) {
		if (ip)
			and_array(c, &ta_ip_proto, TA_F_IP_PROTO, TA_BYTE_SPACE,
				  f->ip_proto);
		else
			and_lookup(c, &ta_ip_proto, NULL, TA_F_IP_PROTO);
	}
	if (uses(c, TA_F_SRC_PORT)) {
		if (f->has_ports)
			and_array(c, &ta_src_port, TA_F_SRC_PORT, TA_PORT_SPACE,
				  f->sport);
		else
			and_lookup(c, &ta_src_port, NULL, TA_F_SRC_PORT);
	}
	if (uses(c, TA_F_DST_PORT)) {
		if (f->has_ports)
			and_array(c, &ta_dst_port, TA_F_DST_PORT, TA_PORT_SPACE,
				  f->dport);
		else
			and_lookup(c, &ta_dst_port, NULL, TA_F_DST_PORT);
	}
	if (uses(c, TA_F_ICMP_TYPE)) {
		if (f->has_icmp)
			and_array(c, &ta_icmp_type, TA_F_ICMP_TYPE,
				  TA_BYTE_SPACE, f->icmp_type);
		else
			and_lookup(c, &ta_icmp_type, NULL, TA_F_ICMP_TYPE);
	}
	return first_rule(c);
}

/* ---- actions ------------------------------------------------------------- */

static __always_inline int redirect(const struct frame *f, __u32 ifindex)
{
	int verdict = bpf_redirect_map(&ta_ports, ifindex, 0);

	if (verdict == XDP_REDIRECT)
		return verdict;
	count(&ta_st_event, TA_EV_REDIRECT_FAIL, f->len);
	return XDP_DROP;
}

/* Known unicast goes straight to its port; the bridge handles the rest. */
static __always_inline int forward(const struct frame *f)
{
	struct ta_mac key = {};
	__u32 *egress;

	__builtin_memcpy(key.addr, f->dst_mac, ETH_ALEN);
	egress = f->dst_mac[0] & 1 ? NULL : bpf_map_lookup_elem(&ta_fdb, &key);
	if (!egress) {
		count(&ta_st_event, TA_EV_FDB_MISS, f->len);
		return XDP_PASS;
	}
	count(&ta_st_event, TA_EV_FDB_HIT, f->len);
	return redirect(f, *egress);
}

static __always_inline int act(const struct frame *f, __u32 action,
			       __u32 ifindex)
{
	switch (action) {
	case TA_ACT_PASS:
		return XDP_PASS;
	case TA_ACT_DROP:
		return XDP_DROP;
	case TA_ACT_TX:
		return XDP_TX;
	case TA_ACT_REDIRECT:
		return redirect(f, ifindex);
	case TA_ACT_FORWARD:
		return forward(f);
	}
	/* a corrupt action value: visible as xdp_exception and ABORTED */
	return XDP_ABORTED;
}

/* Read once: the whole frame sees one policy. */
static __always_inline __u32 active_slot(void)
{
	__u32 zero = 0;
	struct ta_config *cfg = bpf_map_lookup_elem(&ta_config, &zero);

	return cfg ? *(volatile __u32 *)&cfg->active_slot & (TA_SLOTS - 1) : 0;
}

/* Not inlined: its stack frame is a sibling of the parser's, not added. */
static __noinline int apply_policy(const struct frame *f)
{
	struct classify_ctx c;
	struct ta_rule_action *ra;
	__u32 rule, key, action, ifindex;

	c.slot = active_slot();
	c.pol = bpf_map_lookup_elem(&ta_policy, &c.slot);
	if (!c.pol)
		return XDP_ABORTED;

	rule = c.pol->nr_rules ? classify(&c, f) : TA_MAX_RULES;
	if (rule < c.pol->nr_rules) {
		key = c.slot * TA_MAX_RULES + rule;
		ra = bpf_map_lookup_elem(&ta_rules, &key);
		if (!ra)
			return XDP_ABORTED;
		action = ra->action;
		ifindex = ra->ifindex;
	} else {
		rule = TA_MAX_RULES;
		action = c.pol->default_action;
		ifindex = c.pol->default_ifindex;
	}
	count(&ta_st_rule, c.slot * TA_RULE_STAT_SLOT + rule, f->len);
	return act(f, action, ifindex);
}

/* ---- the program --------------------------------------------------------- */

static __always_inline int decide(struct xdp_md *ctx, struct frame *f)
{
	int class, reason;

	class = parse_frame(ctx, f);
	count_parse_info(f);
	if (class != TA_PARSE_OK) {
		count(&ta_st_parse, class, f->len);
		return XDP_DROP;
	}
	reason = guard_check(f);
	if (reason != GUARD_OK) {
		count(&ta_st_guard, reason, f->len);
		return XDP_DROP;
	}
	if (!rate_allow(f->len)) {
		count(&ta_st_event, TA_EV_RATE_DROP, f->len);
		return XDP_DROP;
	}
	return apply_policy(f);
}

SEC("xdp.frags")
int tap_accel_policy(struct xdp_md *ctx)
{
	struct frame f = {.len = bpf_xdp_get_buff_len(ctx)};
	int verdict = decide(ctx, &f);

	count(&ta_st_verdict, verdict, f.len);
	return verdict;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
