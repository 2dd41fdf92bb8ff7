// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tap_accel: the XDP policy program of every tap on the host. Everything it
 * does is configured through the maps documented in tap_accel.h:
 *
 *   tap lookup -> parse -> guard -> rate limit -> classify -> action
 *
 * Every frame is counted exactly once under its verdict in its tap's
 * counters, plus in the counter of whatever stage decided it (parse class,
 * guard reason, rate event, rule or default).
 *
 * The same object holds the programs of frames on their way to a guest
 * (tap_accel_in_tc, tap_accel_in_devmap): one decision, judge_in(), for
 * them and for tap_accel_policy's own redirects to another tap.
 *
 * Built twice (bpf/Makefile): tap_accel.bpf.o finds the tap's namespace
 * through bpf_cast_to_kern_ctx (Linux 6.3 and later), tap_accel_compat.bpf.o
 * through bpf_probe_read_kernel (earlier kernels; four helper calls a frame).
 */
#include <linux/pkt_cls.h>

#include "bpf/conntrack.bpf.h"
#include "bpf/tap_key.bpf.h"
#include "bpf/reject.bpf.h"

/* ---- maps (see tap_accel.h for keys and values) ------------------------ */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_config);
} ta_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_MAX_POLICIES);
	__type(key, __u32);
	__type(value, __u32);
} ta_policy_active SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_MAX_VERSIONS);
	__type(key, __u32);
	__type(value, struct ta_policy);
} ta_policy SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_MAX_POLICIES);
	__type(key, __u32);
	__type(value, struct ta_policy_name);
} ta_policy_names SEC(".maps");

/*
 * Per-version maps: an outer array of inner maps of one shape each. The
 * inner templates give sizes, not BTF types: the loader (and bpftool)
 * creates inner maps without BTF, and a kernel such as 6.1 takes an inner
 * map only if it was made as the template was, BTF or not.
 */
#define VERSION_MAPS(name, inner_type, flags, key_type, value_type)           \
	struct name##_inner {                                                  \
		__uint(type, inner_type);                                      \
		__uint(map_flags, flags);                                      \
		__uint(max_entries, 1);                                        \
		__uint(key_size, sizeof(key_type));                            \
		__uint(value_size, sizeof(value_type));                        \
	};                                                                     \
	struct {                                                               \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);                      \
		__uint(max_entries, TA_MAX_VERSIONS);                          \
		__type(key, __u32);                                            \
		__array(values, struct name##_inner);                          \
	} name SEC(".maps")

#define SPARSE BPF_F_NO_PREALLOC

VERSION_MAPS(ta_vlan, BPF_MAP_TYPE_HASH, SPARSE, __u32, __u32);
VERSION_MAPS(ta_ethertype, BPF_MAP_TYPE_HASH, SPARSE, __u32, __u32);
VERSION_MAPS(ta_src_mac, BPF_MAP_TYPE_HASH, SPARSE, struct ta_mac, __u32);
VERSION_MAPS(ta_dst_mac, BPF_MAP_TYPE_HASH, SPARSE, struct ta_mac, __u32);
VERSION_MAPS(ta_src_ip, BPF_MAP_TYPE_LPM_TRIE, SPARSE, struct ta_key_ip, __u32);
VERSION_MAPS(ta_dst_ip, BPF_MAP_TYPE_LPM_TRIE, SPARSE, struct ta_key_ip, __u32);

/* The arrays the versions share, in ranges (tap_accel.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_RULE_HEAP);
	__type(key, __u32);
	__type(value, struct ta_rule_action);
} ta_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_BITVEC_HEAP);
	__type(key, __u32);
	__type(value, struct ta_bitvec);
} ta_bitvecs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_TABLE_HEAP);
	__type(key, __u32);
	__type(value, __u32);
} ta_tables SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_TAP_INDEX);
	__type(key, __u32);
	__type(value, struct ta_tap_ref);
} ta_tap_index SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_TAPS);
	__type(key, struct ta_tap_key);
	__type(value, struct ta_tap_ref);
} ta_taps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_MAX_TAPS * 2);
	__type(key, __u32);
	__type(value, struct ta_tap);
} ta_tap_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_GUARD_ENTRIES);
	__type(key, struct ta_guard_ip4_key);
	__type(value, __u8);
} ta_guard_ip4 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_GUARD_ENTRIES);
	__type(key, struct ta_guard_ip6_key);
	__type(value, __u8);
} ta_guard_ip6 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_FDB_ENTRIES);
	__type(key, struct ta_fdb_key);
	__type(value, __u32);
} ta_fdb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, TA_MAX_PORTS);
	__type(key, __u32);
	__type(value, __u32);
} ta_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_PORTS);
	__type(key, struct ta_tap_key);
	__type(value, __u32);
} ta_port_keys SEC(".maps");

/* The loader's records (tap_accel.h). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_POLICY_FDB_ENTRIES);
	__type(key, struct ta_policy_fdb_key);
	__type(value, __u32);
} ta_policy_fdb SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_TAPS);
	__type(key, __u32);
	__type(value, struct ta_tap_info);
} ta_tap_info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, TA_MAX_COUNTER_BLOCKS);
	__type(key, __u32);
	__type(value, __u32);
} ta_counter_blocks SEC(".maps");

/* Sizes, not BTF types, as the per-version templates above. */
struct ta_counter_chunk {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TA_COUNTER_CHUNK);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct ta_counter));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, TA_MAX_COUNTER_CHUNKS);
	__type(key, __u32);
	__array(values, struct ta_counter_chunk);
} ta_counters SEC(".maps");

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

/* ---- the binding a frame is judged under --------------------------------- */

struct binding {
	struct ta_tap *tap; /* NULL: an unbound tap */
	__u32 id;	    /* tap id; 0 for unbound taps */
	__u32 policy;
	__u32 stats;	    /* its counters (tap_accel.h: ta_counters) */
	__u32 rules[TA_SLOTS];
	/* what apply_policy leaves to ta_act_apart (VERDICT_APART) */
	__u32 action; /* enum ta_action, or ACT_CT */
	__u32 port;
	__u32 version; /* of the policy, for ACT_CT */
	__u32 zone;    /* the tap's connection zone, for ACT_CT */
	/* the program's context, for ta_act_apart: read back from here after
	 * apply_policy, it holds no register through the parse and the guard */
	struct xdp_md *ctx;
};

/* Counter n of the host's counter chunks; 0 counts nothing. */
static __always_inline void count(__u32 n, __u32 len)
{
	__u32 chunk = n / TA_COUNTER_CHUNK, entry = n % TA_COUNTER_CHUNK;
	struct ta_counter *c;
	void *map;

	if (!n)
		return;
	map = bpf_map_lookup_elem(&ta_counters, &chunk);
	c = map ? bpf_map_lookup_elem(map, &entry) : NULL;
	if (c) {
		c->packets++;
		c->bytes += len;
	}
}

static __always_inline void count_stat(const struct binding *b, __u32 key,
				       __u32 len)
{
	count(b->stats + key, len);
}

/* The binding a ref leads to, if it is the frame's tap's (tap_accel.h). */
static __always_inline struct ta_tap *follow(const struct ta_tap_ref *ref,
					     const struct ta_tap_key *key)
{
	struct ta_tap *tap;
	__u32 slot;

	if (!ref || !ref->slot)
		return NULL;
	slot = ref->slot;
	tap = bpf_map_lookup_elem(&ta_tap_slots, &slot);
	if (!tap || tap->key.ifindex != key->ifindex ||
	    (tap->key.netns_cookie != key->netns_cookie && tap->key.netns_cookie))
		return NULL;
	return tap;
}

/* By the ifindex first, an array lookup; by the whole key in ta_taps when
 * the index does not lead to this namespace's tap. */
static __always_inline struct ta_tap *find_tap_key(const struct ta_tap_key *key)
{
	struct ta_tap_ref *ref;
	struct ta_tap *tap;

	ref = bpf_map_lookup_elem(&ta_tap_index, &key->ifindex);
	tap = follow(ref, key);
	if (tap)
		return tap;
	return follow(bpf_map_lookup_elem(&ta_taps, key), key);
}

static __always_inline struct ta_tap *find_tap_of(__u64 cookie, __u32 ifindex)
{
	struct ta_tap_key key = {};

	key.netns_cookie = cookie;
	key.ifindex = ifindex;
	return find_tap_key(&key);
}

/* The key filled in place: the namespace's cookie is read straight into
 * it, as the policy program did before the in programs shared the lookup. */
static __always_inline struct ta_tap *find_tap(struct xdp_md *ctx)
{
	struct ta_tap_key key = {};

	key.netns_cookie = ta_netns_cookie(ctx);
	key.ifindex = ctx->ingress_ifindex;
	return find_tap_key(&key);
}

static __always_inline const struct ta_config *config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ta_config, &zero);
}

/* ---- guest guard --------------------------------------------------------- */

#define GUARD_OK TA_GUARD_MAX

static __always_inline bool guest_ip4(const struct binding *b, __be32 addr)
{
	struct ta_guard_ip4_key key = {.tap = b->id, .addr = addr};

	return bpf_map_lookup_elem(&ta_guard_ip4, &key) != NULL;
}

static __always_inline bool guest_ip6(const struct binding *b, const __u8 *addr)
{
	struct ta_guard_ip6_key key = {.tap = b->id};

	__builtin_memcpy(key.addr, addr, 16);
	return bpf_map_lookup_elem(&ta_guard_ip6, &key) != NULL;
}

static __always_inline bool ip6_is_unspecified(const __u8 *a)
{
	const __u64 *w = (const __u64 *)a;

	return (w[0] | w[1]) == 0;
}

/* 0.0.0.0 is a DHCP client that has no address yet: UDP to port 67 only. */
static __always_inline bool ip4_src_allowed(const struct binding *b,
					    const struct frame *f)
{
	__be32 src;

	__builtin_memcpy(&src, f->src_ip + 12, 4);
	if (!src)
		return f->ip_proto == IPPROTO_UDP && f->has_ports &&
		       f->dport == 67;
	return guest_ip4(b, src);
}

/* :: is duplicate address detection: the NS and the MLD reports sent
 * before the guest owns an address (RFC 4862, RFC 3810 5.2.13). */
static __always_inline bool ip6_src_allowed(const struct binding *b,
					    const struct frame *f)
{
	if (ip6_is_unspecified(f->src_ip))
		return f->ip_proto == IPPROTO_ICMPV6 && f->has_icmp &&
		       (f->icmp_type == NDISC_NS ||
			f->icmp_type == MLD_REPORT ||
			f->icmp_type == MLD2_REPORT);
	return guest_ip6(b, f->src_ip);
}

static __always_inline int guard_mac(const struct frame *f,
				     const struct ta_tap *tap)
{
	if (!mac_eq(f->src_mac, tap->mac))
		return TA_GUARD_SRC_MAC;
	if (f->arp_eth_ip4 && !mac_eq(f->arp_sha, tap->mac))
		return TA_GUARD_ARP_SHA;
	/* lladdr options were compared with src_mac, now known the guest's */
	if (f->nd_lladdr_foreign)
		return TA_GUARD_ND_LLADDR;
	return GUARD_OK;
}

static __always_inline int guard_check(const struct binding *b,
				       const struct frame *f)
{
	__u32 flags = b->tap ? b->tap->guard_flags : 0;
	int reason;

	if (!flags)
		return GUARD_OK;
	if (flags & TA_GUARD_F_MAC) {
		reason = guard_mac(f, b->tap);
		if (reason != GUARD_OK)
			return reason;
	}
	if (flags & TA_GUARD_F_IP4) {
		if (f->l3 == L3_IP4 && !ip4_src_allowed(b, f))
			return TA_GUARD_IP4_SRC;
		/* spa 0.0.0.0 is an address probe (RFC 5227) */
		if (f->arp_eth_ip4 && f->arp_spa && !guest_ip4(b, f->arp_spa))
			return TA_GUARD_ARP_SPA;
	}
	if (flags & TA_GUARD_F_IP6) {
		if (f->l3 == L3_IP6 && !ip6_src_allowed(b, f))
			return TA_GUARD_IP6_SRC;
		if (f->nd_is_na && !guest_ip6(b, f->nd_target))
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

/* The policy's token bucket, the tap's tokens, in both dimensions; a frame
 * needs a token in each enabled one and takes nothing unless it gets all.
 * Unbound taps have no bucket and are not limited. */
static __always_inline bool rate_allow(const struct binding *b,
				       const struct ta_policy *pol, __u32 len)
{
	struct ta_tap *r;
	__u64 now, elapsed, pkt, bit, need_pkt, need_bit;
	bool ok;

	if ((!pol->pps && !pol->bps) || !b->tap)
		return true;
	r = b->tap;
	now = bpf_ktime_get_ns();
	need_pkt = NSEC_PER_SEC;
	need_bit = (__u64)len * 8 * NSEC_PER_SEC;

	bpf_spin_lock(&r->lock);
	elapsed = now > r->last_ns ? now - r->last_ns : 0;
	r->last_ns = now;
	pkt = r->pkt_tokens;
	bit = r->bit_tokens;
	if (pol->pps)
		pkt = refill(pkt, elapsed, pol->pps,
			     pol->burst_pkts * NSEC_PER_SEC);
	else
		need_pkt = 0;
	if (pol->bps)
		bit = refill(bit, elapsed, pol->bps,
			     pol->burst_bytes * 8 * NSEC_PER_SEC);
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
	/* candidate rules so far, TA_BV_WORDS words: on the stack of the
	 * one-way path, in the per-CPU scratch for ta_ct_judge (whose stack
	 * adds to its callers'); set by classify, so that the one-way path
	 * of a policy without rules does not store it */
	__u64 *acc;
	const struct ta_policy *pol;
	__u32 version;
	/* the policy's rules fit one word (most do): only acc[0] is used */
	bool one_word;
	union { /* one key buffer for every lookup keeps the stack small */
		__u32 index;
		struct ta_mac mac;
		struct ta_key_ip ip;
	} key;
};

/* ANDs bit-vector `idx` into the candidates. */
static __always_inline void and_bitvec(struct classify_ctx *c, __u32 idx)
{
	struct ta_bitvec *bv;
	int w;

	c->key.index = idx;
	bv = bpf_map_lookup_elem(&ta_bitvecs, &c->key.index);
	if (!bv) {
		/* a corrupt index matches nothing: the default applies */
		__builtin_memset(c->acc, 0, TA_BV_WORDS * sizeof(__u64));
		return;
	}
	if (c->one_word) {
		c->acc[0] &= bv->word[0];
		return;
	}
	for (w = 0; w < TA_BV_WORDS; w++)
		c->acc[w] &= bv->word[w];
}

static __always_inline void and_wildcard(struct classify_ctx *c,
					 enum ta_field field)
{
	and_bitvec(c, c->pol->wildcard[field]);
}

/* The version's map of a field; NULL if the version has none. */
static __always_inline void *field_map(struct classify_ctx *c, void *outer)
{
	return bpf_map_lookup_elem(outer, &c->version);
}

/* A lookup's bit-vector, or the field's wildcard on a miss. */
static __always_inline void and_lookup(struct classify_ctx *c, void *outer,
				       const void *key, enum ta_field field)
{
	void *map = field_map(c, outer);
	__u32 *idx = map ? bpf_map_lookup_elem(map, key) : NULL;

	and_bitvec(c, idx ? *idx : c->pol->wildcard[field]);
}

static __always_inline void and_value(struct classify_ctx *c, void *outer,
				      enum ta_field field, __u32 value)
{
	c->key.index = value;
	and_lookup(c, outer, &c->key.index, field);
}

/* A value's bit-vector in the version's table of a field. */
static __always_inline void and_table(struct classify_ctx *c, __u32 table,
				      enum ta_field field, __u32 value)
{
	__u32 *idx;

	c->key.index = table + value;
	idx = bpf_map_lookup_elem(&ta_tables, &c->key.index);
	and_bitvec(c, idx ? *idx : c->pol->wildcard[field]);
}

static __always_inline void and_mac(struct classify_ctx *c, void *outer,
				    enum ta_field field, const __u8 *mac)
{
	__builtin_memcpy(c->key.mac.addr, mac, ETH_ALEN);
	c->key.mac._pad[0] = 0;
	c->key.mac._pad[1] = 0;
	and_lookup(c, outer, &c->key.mac, field);
}

/* The family byte keeps IPv6 prefixes (even ::/0) off IPv4 frames, whose
 * addresses are v4-mapped, and IPv4 prefixes off IPv6 frames. */
static __always_inline void and_ip(struct classify_ctx *c, void *outer,
				   enum ta_field field, const struct frame *f,
				   const __u8 *addr)
{
	__builtin_memset(&c->key.ip, 0, sizeof(c->key.ip));
	c->key.ip.prefixlen = 16 + 128;
	c->key.ip.family = f->l3 == L3_IP4 ? TA_FAMILY_IP4 : TA_FAMILY_IP6;
	__builtin_memcpy(c->key.ip.addr, addr, 16);
	and_lookup(c, outer, &c->key.ip, field);
}

/* Ports: a directory entry per block of 256, a page where a block is not
 * uniform (tap_accel.h). */
static __always_inline void and_port(struct classify_ctx *c, __u32 table,
				     enum ta_field field, __u16 port)
{
	__u32 *entry;

	c->key.index = table + (port >> 8);
	entry = bpf_map_lookup_elem(&ta_tables, &c->key.index);
	if (entry && (*entry & TA_PORT_PAGE)) {
		c->key.index = table + TA_PORT_DIR + (*entry & ~TA_PORT_PAGE) * 256 +
			       (port & 0xff);
		entry = bpf_map_lookup_elem(&ta_tables, &c->key.index);
	}
	if (!entry) {
		and_wildcard(c, field);
		return;
	}
	and_bitvec(c, *entry);
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

	if (c->one_word)
		return c->acc[0] ? lowest_bit(c->acc[0]) : TA_MAX_RULES;
	for (w = 0; w < TA_BV_WORDS; w++)
		if (c->acc[w])
			return w * 64 + lowest_bit(c->acc[w]);
	return TA_MAX_RULES;
}

/* One lookup per field the policy uses; a frame lacking the field takes
 * the wildcard. No per-rule work. A policy with TA_POL_F_CT (ct) adds
 * two bit-vectors: the rules of the frame's direction and of its state. */
static __always_inline __u32 classify(struct classify_ctx *c, __u64 *acc,
				      const struct frame *f, bool ct, __u32 dir,
				      __u32 state)
{
	bool ip = f->l3 == L3_IP4 || f->l3 == L3_IP6;

	c->acc = acc;
	c->one_word = c->pol->nr_rules <= 64;
	if (c->one_word)
		c->acc[0] = ~0ull;
	else
		__builtin_memset(c->acc, 0xff, TA_BV_WORDS * sizeof(__u64));
	if (ct) {
		and_bitvec(c, c->pol->dir_bitvec[dir & (TA_DIR_MAX - 1)]);
		and_bitvec(c, c->pol->state_bitvec[state & (TA_CT_STATE_SLOTS - 1)]);
	}
	if (uses(c, TA_F_VLAN)) {
		if (f->has_vlan)
			and_value(c, &ta_vlan, TA_F_VLAN, f->vlan);
		else
			and_wildcard(c, TA_F_VLAN);
	}
	if (uses(c, TA_F_SRC_MAC))
		and_mac(c, &ta_src_mac, TA_F_SRC_MAC, f->src_mac);
	if (uses(c, TA_F_DST_MAC))
		and_mac(c, &ta_dst_mac, TA_F_DST_MAC, f->dst_mac);
	if (uses(c, TA_F_ETHERTYPE))
		and_value(c, &ta_ethertype, TA_F_ETHERTYPE, f->ethertype);
	if (uses(c, TA_F_SRC_IP)) {
		if (ip)
			and_ip(c, &ta_src_ip, TA_F_SRC_IP, f, f->src_ip);
		else
			and_wildcard(c, TA_F_SRC_IP);
	}
	if (uses(c, TA_F_DST_IP)) {
		if (ip)
			and_ip(c, &ta_dst_ip, TA_F_DST_IP, f, f->dst_ip);
		else
			and_wildcard(c, TA_F_DST_IP);
	}
	if (uses(c, TA_F_IP_PROTO)) {
		if (ip)
			and_table(c, c->pol->proto_table, TA_F_IP_PROTO, f->ip_proto);
		else
			and_wildcard(c, TA_F_IP_PROTO);
	}
	if (uses(c, TA_F_SRC_PORT)) {
		if (f->has_ports)
			and_port(c, c->pol->sport_table, TA_F_SRC_PORT, f->sport);
		else
			and_wildcard(c, TA_F_SRC_PORT);
	}
	if (uses(c, TA_F_DST_PORT)) {
		if (f->has_ports)
			and_port(c, c->pol->dport_table, TA_F_DST_PORT, f->dport);
		else
			and_wildcard(c, TA_F_DST_PORT);
	}
	if (uses(c, TA_F_ICMP_TYPE)) {
		if (f->has_icmp)
			and_table(c, c->pol->icmp_table, TA_F_ICMP_TYPE, f->icmp_type);
		else
			and_wildcard(c, TA_F_ICMP_TYPE);
	}
	return first_rule(c);
}

/* Read once: the whole frame sees one version of the policy. */
static __always_inline __u32 active_slot(__u32 policy)
{
	__u32 *slot = bpf_map_lookup_elem(&ta_policy_active, &policy);

	return slot ? *(volatile __u32 *)slot & (TA_SLOTS - 1) : 0;
}

/* The rule's (or the default's, rule == nr_rules) counter of this tap for
 * the version in `slot`. */
static __always_inline void count_rule(const struct binding *b, __u32 slot,
				       __u32 rule, __u32 len)
{
	__u32 base = b->rules[slot & (TA_SLOTS - 1)];

	if (base)
		count(base + rule, len);
}

/* ---- connection state: one judgement for both directions ----------------- */

#define ACT_ABORT 0xff

struct decision {
	__u32 action; /* enum ta_action, TA_ACT_REJECT, or ACT_ABORT */
	__u32 port;
};

/* What ta_ct_judge is told and answers: scalars only, as a global
 * function's arguments must be; in the per-CPU scratch. */
struct judge_args {
	__u32 version; /* policy * TA_SLOTS + slot */
	__u32 dir;     /* enum ta_dir */
	__u32 id;      /* tap id, whose count a new connection is in */
	__u32 stats;   /* its counters */
	__u32 rules[TA_SLOTS];
	__u32 zone;
	struct decision out;
	struct decision recheck; /* room for ct_recheck's */
};

/* Per CPU: the key of the frame's connection, the frame a policy change
 * re-judges, and the reject's buffers. XDP and tc run with bottom halves
 * off: nothing else on the CPU uses it meanwhile. */
struct scratch {
	__u64 acc[TA_BV_WORDS]; /* ta_ct_judge's candidate rules */
	struct judge_args args;
	struct ct_buf ct;
	struct frame in; /* ta_act_apart's full parse of the frame */
	struct frame o;
	struct reject_buf rj;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} ta_scratch SEC(".maps");

static __always_inline struct scratch *scratch(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ta_scratch, &zero);
}

/* Whether an action lets a new connection be made. */
static __always_inline bool accepts(__u32 action, __u32 dir)
{
	if (dir == TA_DIR_IN)
		return action == TA_ACT_PASS;
	return action == TA_ACT_PASS || action == TA_ACT_REDIRECT ||
	       action == TA_ACT_FORWARD;
}

/* The rule (or default) of the version in c for a frame, as a decision;
 * the rule's index, nr_rules for the default. */
static __always_inline __u32 decide_rule(struct classify_ctx *c, __u64 *acc,
					 const struct frame *f, __u32 dir,
					 __u32 state, struct decision *d)
{
	struct ta_rule_action *ra;
	__u32 rule, key;

	rule = c->pol->state_rule[dir & (TA_DIR_MAX - 1)]
				 [state & (TA_CT_STATE_SLOTS - 1)];
	if (rule)
		rule--; /* the state decides: no need to classify */
	else
		rule = c->pol->nr_rules ? classify(c, acc, f, true, dir, state)
					: TA_MAX_RULES;
	if (rule < c->pol->nr_rules) {
		key = c->pol->rule_base + rule;
		ra = bpf_map_lookup_elem(&ta_rules, &key);
		d->action = ra ? ra->action : ACT_ABORT;
		d->port = ra ? ra->port : 0;
		return rule;
	}
	if (dir == TA_DIR_IN) {
		d->action = c->pol->default_in_action;
		d->port = 0;
	} else {
		d->action = c->pol->default_action;
		d->port = c->pol->default_port;
	}
	return c->pol->nr_rules;
}

/*
 * A connection accepted by an older version of the policy: would this one
 * accept it? Its first frame is made again from the key (who opened it,
 * to which port, which way) and judged as NEW in its direction. Fields the
 * key does not hold (MACs, VLAN) are those of the frame at hand.
 */
static __always_inline bool ct_recheck(struct classify_ctx *c,
				       const struct frame *f, struct scratch *s,
				       __u8 flags)
{
	const struct ta_ct_key *k = &s->ct.key;
	struct frame *o = &s->o;
	struct decision *d;
	bool a = flags & TA_CT_E_ORIG_A;
	__u32 dir = flags & TA_CT_E_IN ? TA_DIR_IN : TA_DIR_OUT;
	__u8 proto = k->proto;

	__builtin_memcpy(o, f, sizeof(*o));
	d = &s->args.recheck;
	copy16(o->src_ip, a ? k->addr_a : k->addr_b);
	copy16(o->dst_ip, a ? k->addr_b : k->addr_a);
	o->l3 = ip6_is_v4mapped(o->src_ip) ? L3_IP4 : L3_IP6;
	o->ip_proto = proto;
	o->has_ports = proto_has_ports(proto);
	o->has_icmp = proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6;
	o->sport = bpf_ntohs(a ? k->port_a : k->port_b);
	o->dport = bpf_ntohs(a ? k->port_b : k->port_a);
	o->icmp_type = proto == IPPROTO_ICMP ? 8 : 128; /* echo request */
	decide_rule(c, s->acc, o, dir, TA_CT_NEW, d);
	return accepts(d->action, dir);
}

static __always_inline void count_args(const struct judge_args *a, __u32 key,
				       __u32 len)
{
	count(a->stats + key, len);
}

/*
 * The decision for a frame of a policy with TA_POL_F_CT, either way:
 * track it, re-check a connection a newer version has not judged yet,
 * classify with its direction and state, and make the connection of an
 * accepted NEW frame. Global: the verifier checks it once, on its own,
 * for all the places that call it. 0, or -1: abort.
 */
__noinline int ta_ct_judge(struct frame *f, struct judge_args *a)
{
	const struct ta_ct_config *cfg = ct_config();
	struct scratch *s = scratch();
	struct classify_ctx c;
	struct decision *d;
	__u64 now = ct_now();
	__u32 rule, slot, dir, base;
	struct ct ct;
	__u8 state;
	int made;

	if (!f || !a || !s)
		return -1;
	d = &a->out;
	c.version = a->version;
	c.pol = bpf_map_lookup_elem(&ta_policy, &c.version);
	if (!c.pol)
		return -1;
	slot = a->version % TA_SLOTS;
	dir = a->dir & (TA_DIR_MAX - 1);
	ct.buf = &s->ct;
	state = ct_track(&ct, f, a->zone, cfg, now);
	if (ct.e && ct.e->generation != c.pol->generation &&
	    (state == TA_CT_ESTABLISHED || state == TA_CT_RELATED)) {
		if (!ct_recheck(&c, f, s, ct.e->flags)) {
			ct_forget(&ct);
			count_args(a, TA_STAT_CT + TA_CT_C_CUT, f->len);
			d->action = TA_ACT_DROP;
			return 0;
		}
		ct.e->generation = c.pol->generation;
	}
	if (state == TA_CT_INVALID)
		count_args(a, TA_STAT_CT + TA_CT_C_INVALID, f->len);
	else if (state == TA_CT_RELATED)
		count_args(a, TA_STAT_CT + TA_CT_C_RELATED, f->len);
	rule = decide_rule(&c, s->acc, f, dir, state, d);
	if (rule == c.pol->nr_rules && dir == TA_DIR_IN)
		count_args(a, TA_STAT_CT + TA_CT_C_IN_DEFAULT, f->len);
	base = a->rules[slot];
	if (base)
		count(base + rule, f->len);
	if (!accepts(d->action, dir)) {
		if (ct.creates && ct.old_tap)
			ct_forget(&ct); /* an expired one nothing takes over */
		return 0;
	}
	if (state == TA_CT_NEW && ct.creates) {
		made = ct_create(&ct, cfg, a->id, dir, c.pol->generation, now);
		if (made != CT_CREATED) {
			count_args(a, TA_STAT_CT + (made == CT_TAP_LIMIT
							    ? TA_CT_C_TAP_LIMIT
							    : TA_CT_C_TABLE_FULL),
				   f->len);
			d->action = TA_ACT_DROP;
			return 0;
		}
		count_args(a, TA_STAT_CT + TA_CT_C_NEW, f->len);
	}
	if (f->frag == FRAG_FIRST)
		ct_fragment_record(f, a->zone, state, now, &s->ct);
	return 0;
}

/* A tap's connection zone: its own unless the loader set one. */
static __always_inline __u32 ct_zone(const struct ta_tap *tap)
{
	return tap->ct_zone ?: tap->id;
}

/* The decision of version `version` for frame f of the tap `id` (0: an
 * unbound one, zone 0) whose counters start at `stats` and whose rule
 * counters of each slot are `rules`, with its connection state, in
 * direction dir. */
static __always_inline int judge_ct(__u32 id, const __u32 *rules, __u32 zone,
				    __u32 stats, __u32 dir, __u32 version,
				    struct frame *f, struct decision *d)
{
	struct scratch *s = scratch();
	struct judge_args *a;

	if (!s)
		return -1;
	a = &s->args;
	a->version = version;
	a->dir = dir;
	a->stats = stats;
	a->id = id;
	a->rules[0] = rules[0];
	a->rules[1] = rules[1];
	a->zone = zone;
	if (ta_ct_judge(f, a))
		return -1;
	d->action = a->out.action;
	d->port = a->out.port;
	return 0;
}

/* ---- actions ------------------------------------------------------------- */

static __always_inline void bind_tap(struct binding *b, struct ta_tap *tap)
{
	b->tap = tap;
	b->id = tap->id;
	b->policy = tap->policy;
	b->stats = tap->stats;
	b->rules[0] = tap->rules[0];
	b->rules[1] = tap->rules[1];
}

/*
 * The in direction, for every program that sees frames on their way to a
 * guest (a bound tap's): PASS, DROP or TA_ACT_REJECT, counted in the
 * tap's counters. A policy without TA_POL_F_CT passes everything.
 */
static __always_inline int judge_in(const struct ta_tap *tap, struct frame *f)
{
	const struct ta_policy *pol;
	struct decision d = {};
	__u32 version = tap->policy * TA_SLOTS + active_slot(tap->policy);
	__u32 stats = tap->stats;

	pol = bpf_map_lookup_elem(&ta_policy, &version);
	if (!pol || !(pol->ct_flags & TA_POL_F_CT))
		return TA_ACT_PASS;
	if (judge_ct(tap->id, tap->rules, ct_zone(tap), stats, TA_DIR_IN,
		     version, f, &d))
		d.action = TA_ACT_DROP;
	switch (d.action) {
	case TA_ACT_PASS:
		count(stats + TA_STAT_CT + TA_CT_C_IN_PASS, f->len);
		return TA_ACT_PASS;
	case TA_ACT_REJECT:
		count(stats + TA_STAT_CT + TA_CT_C_IN_REJECT, f->len);
		return TA_ACT_REJECT;
	}
	/* drop, and actions that mean nothing on the way in */
	count(stats + TA_STAT_CT + TA_CT_C_IN_DROP, f->len);
	return TA_ACT_DROP;
}

static __always_inline bool in_policies(void)
{
	const struct ta_ct_config *cfg = ct_config();

	return cfg && (cfg->flags & TA_CT_CFG_F_IN);
}

/* A frame about to go to port: the receiver's in policy, if the port is a
 * bound tap of the program's namespace. */
static __always_inline int judge_redirect(struct frame *f, __u64 cookie,
					  __u32 port)
{
	__u32 *ifindex = bpf_map_lookup_elem(&ta_ports, &port);
	struct ta_tap *tap;

	if (!f || !ifindex)
		return TA_ACT_PASS; /* the redirect fails and says so */
	tap = find_tap_of(cookie, *ifindex);
	if (!tap)
		return TA_ACT_PASS;
	return judge_in(tap, f);
}

/* The answer to a rejected frame, written over it. Global: checked once. */
__noinline int ta_reject_xdp(struct xdp_md *ctx, const struct frame *f)
{
	struct scratch *s = scratch();

	return s && f ? reject_xdp(ctx, f, &s->rj) : -1;
}

__noinline int ta_reject_skb(struct __sk_buff *skb, const struct frame *f)
{
	struct scratch *s = scratch();

	return s && f ? reject_skb(skb, f, &s->rj) : -1;
}

/* Reject in XDP: the answer replaces the frame and goes back out of the
 * device the frame came in on. */
static __always_inline long reject_tx(struct xdp_md *ctx,
				      const struct binding *b,
				      const struct frame *f)
{
	if (!ta_reject_xdp(ctx, f))
		return XDP_TX;
	count_stat(b, TA_STAT_CT + TA_CT_C_REJECT_UNSENT, f->len);
	return XDP_DROP;
}

/* apply_policy: what is left to ta_act_apart, in the binding. Not an XDP
 * verdict. */
#define VERDICT_APART -2
#define ACT_CT 0xfe /* binding.action: judge with connection state first */

static __always_inline long apart(struct binding *b, __u32 action, __u32 port)
{
	b->action = action;
	b->port = port;
	return VERDICT_APART;
}

/* In apply_policy (oneway) a redirect to a tap that may have an in policy
 * is left to ta_act_apart, where the receiver's judgement and a reject have
 * stack to spare; without in policies on the host it is as it was. */
static __always_inline long redirect(struct xdp_md *ctx, struct binding *b,
				     struct frame *f, __u32 port, bool oneway)
{
	long verdict; /* as the helper returns it: tested without extension */

	if (in_policies()) {
		if (oneway)
			return apart(b, TA_ACT_REDIRECT, port);
		switch (judge_redirect(f, ta_netns_cookie(ctx), port)) {
		case TA_ACT_PASS:
			break;
		case TA_ACT_REJECT:
			return reject_tx(ctx, b, f);
		default:
			return XDP_DROP;
		}
	}
	verdict = bpf_redirect_map(&ta_ports, port, 0);
	if (verdict == XDP_REDIRECT)
		return verdict;
	count_stat(b, TA_STAT_EVENT + TA_EV_REDIRECT_FAIL, f->len);
	return XDP_DROP;
}

/* Known unicast goes straight to its port; the bridge handles the rest. */
static __always_inline long forward(struct xdp_md *ctx, struct binding *b,
				    struct frame *f, bool oneway)
{
	struct ta_fdb_key key = {.tap = b->id};
	__u32 *egress;

	__builtin_memcpy(key.mac.addr, f->dst_mac, ETH_ALEN);
	egress = f->dst_mac[0] & 1 ? NULL : bpf_map_lookup_elem(&ta_fdb, &key);
	if (!egress) {
		count_stat(b, TA_STAT_EVENT + TA_EV_FDB_MISS, f->len);
		return XDP_PASS;
	}
	count_stat(b, TA_STAT_EVENT + TA_EV_FDB_HIT, f->len);
	return redirect(ctx, b, f, *egress, oneway);
}

static __always_inline long act(struct xdp_md *ctx, struct binding *b,
				struct frame *f, __u32 action, __u32 port,
				bool oneway)
{
	switch (action) {
	case TA_ACT_PASS:
		return XDP_PASS;
	case TA_ACT_DROP:
		return XDP_DROP;
	case TA_ACT_TX:
		return XDP_TX;
	case TA_ACT_REDIRECT:
		return redirect(ctx, b, f, port, oneway);
	case TA_ACT_FORWARD:
		return forward(ctx, b, f, oneway);
	}
	/* after the switch, so that the other actions' tests are as before */
	if (action == TA_ACT_REJECT) {
		if (oneway)
			return apart(b, action, port);
		count_stat(b, TA_STAT_CT + TA_CT_C_OUT_REJECT, f->len);
		return reject_tx(ctx, b, f);
	}
	/* a corrupt action value: visible as xdp_exception and ABORTED */
	return XDP_ABORTED;
}

/* What apply_policy left: a two-way policy's judgement (ta_ct_judge
 * counts the rule), a redirect the receiver's in policy may refuse, a
 * reject. Apart, so that a one-way policy's path through apply_policy is
 * the one it had before policies had directions; called by decide, so
 * that its stack frame is a sibling of apply_policy's, not added to it.
 * Global: the verifier checks it once, not once for every state of the
 * program that reaches the call; so it reads only scalars of the binding
 * (its tap pointer is not one), the zone among them. */
__noinline int ta_act_apart(struct xdp_md *ctx, struct binding *b, __u32 len)
{
	struct scratch *s = scratch();
	struct decision d;
	struct frame *f;

	if (!ctx || !b || !s)
		return XDP_ABORTED;
	d.action = b->action;
	d.port = b->port;
	/* the frame again, with the connection table's fields */
	f = &s->in;
	__builtin_memset(f, 0, sizeof(*f));
	f->len = len;
	if (parse_frame_full(ctx, f) != TA_PARSE_OK)
		return XDP_ABORTED; /* the first parse passed it */
	if (d.action == ACT_CT &&
	    judge_ct(b->id, b->rules, b->zone, b->stats, TA_DIR_OUT, b->version,
		     f, &d))
		return XDP_ABORTED;
	return act(ctx, b, f, d.action, d.port, false);
}

/* Not inlined: its stack frame is a sibling of the parser's, not added.
 * Returns long, so that decide's test for VERDICT_APART needs no
 * extension of a 32-bit value. */
static __noinline long apply_policy(struct binding *b, struct frame *f)
{
	__u64 acc[TA_BV_WORDS];
	struct classify_ctx c;
	struct ta_rule_action *ra;
	__u32 slot, rule, first, action, port, key;

	slot = active_slot(b->policy);
	c.version = b->policy * TA_SLOTS + slot;
	c.pol = bpf_map_lookup_elem(&ta_policy, &c.version);
	if (!c.pol)
		return XDP_ABORTED;
	if (!rate_allow(b, c.pol, f->len)) {
		count_stat(b, TA_STAT_EVENT + TA_EV_RATE_DROP, f->len);
		return XDP_DROP;
	}
	/* expected not: the one-way path keeps the layout of its blocks */
	if (__builtin_expect(c.pol->ct_flags & TA_POL_F_CT, 0)) {
		b->version = c.version;
		return apart(b, ACT_CT, 0);
	}
	/* no rule: straight to the default */
	rule = c.pol->nr_rules;
	if (rule) {
		first = classify(&c, acc, f, false, 0, 0);
		if (first < rule) {
			key = c.pol->rule_base + first;
			ra = bpf_map_lookup_elem(&ta_rules, &key);
			if (!ra)
				return XDP_ABORTED;
			count_rule(b, slot, first, f->len);
			return act(NULL, b, f, ra->action, ra->port, true);
		}
	}
	action = c.pol->default_action;
	port = c.pol->default_port;
	count_rule(b, slot, rule, f->len);
	/* oneway: what needs the context is left to ta_act_apart */
	return act(NULL, b, f, action, port, true);
}

/* ---- the programs -------------------------------------------------------- */

/* The tap's binding, or for an unbound tap what ta_config says: a verdict
 * of its own (returned), or a policy (-1: go on). */
static __always_inline int bind_frame(struct xdp_md *ctx, struct binding *b)
{
	const struct ta_config *cfg;
	struct ta_tap *tap = find_tap(ctx);

	if (tap) {
		bind_tap(b, tap);
		return -1;
	}
	b->tap = NULL;
	b->id = 0;
	b->stats = 0;
	cfg = config();
	if (!cfg)
		return XDP_PASS;
	b->stats = cfg->unbound_stats;
	b->rules[0] = cfg->unbound_rules[0];
	b->rules[1] = cfg->unbound_rules[1];
	if (cfg->unbound_action == TA_UNBOUND_PASS)
		return XDP_PASS;
	if (cfg->unbound_action != TA_UNBOUND_POLICY)
		return XDP_DROP;
	b->policy = cfg->unbound_policy;
	return -1;
}

static __always_inline void count_parse_info(const struct binding *b,
					     const struct frame *f)
{
	if (f->info & (1u << TA_PARSE_IP4_OPTIONS))
		count_stat(b, TA_STAT_PARSE + TA_PARSE_IP4_OPTIONS, f->len);
	if (f->info & (1u << TA_PARSE_IP4_FRAG))
		count_stat(b, TA_STAT_PARSE + TA_PARSE_IP4_FRAG, f->len);
	if (f->info & (1u << TA_PARSE_IP6_FRAG))
		count_stat(b, TA_STAT_PARSE + TA_PARSE_IP6_FRAG, f->len);
}

static __always_inline int decide(struct xdp_md *ctx, struct frame *f,
				  struct binding *b)
{
	int class, reason, verdict;
	long decided;

	/* volatile: stored here, not kept in a register until the call */
	*(struct xdp_md *volatile *)&b->ctx = ctx;
	verdict = bind_frame(ctx, b);
	if (verdict >= 0)
		return verdict;
	class = parse_frame(ctx, f);
	count_parse_info(b, f);
	if (class != TA_PARSE_OK) {
		count_stat(b, TA_STAT_PARSE + class, f->len);
		return XDP_DROP;
	}
	reason = guard_check(b, f);
	if (reason != GUARD_OK) {
		count_stat(b, TA_STAT_GUARD + reason, f->len);
		return XDP_DROP;
	}
	decided = apply_policy(b, f);
	if (decided == VERDICT_APART) {
		b->zone = b->tap ? ct_zone(b->tap) : 0;
		return ta_act_apart(b->ctx, b, f->len);
	}
	return decided;
}

/* What a guest sends. */
SEC("xdp.frags")
int tap_accel_policy(struct xdp_md *ctx)
{
	/* The frame's head only: nothing on the way to apply_policy or in it
	 * reads the rest (ta_act_apart parses the whole frame into the
	 * scratch), and the stack this saves is what apply_policy's
	 * candidate rules take. */
	struct frame_head head = {};
	struct frame *f = (struct frame *)&head;
	struct binding b;
	int verdict;

	f->len = bpf_xdp_get_buff_len(ctx);
	verdict = decide(ctx, f, &b);

	count_stat(&b, TA_STAT_VERDICT + verdict, f->len);
	return verdict;
}

/* A malformed frame on its way in is dropped and counted by class: the
 * guest's stack would drop it too, and it names no connection. */
static __always_inline bool parsed_in(const struct binding *b, struct frame *f,
				      int class)
{
	count_parse_info(b, f);
	if (class == TA_PARSE_OK)
		return true;
	count_stat(b, TA_STAT_PARSE + class, f->len);
	return false;
}

/* What the stack sends to a guest: tcx or clsact egress of its tap. */
SEC("tc")
int tap_accel_in_tc(struct __sk_buff *skb)
{
	struct frame f = {.len = skb->len};
	struct ta_tap *tap = find_tap_of(ta_netns_cookie_skb(skb), skb->ifindex);
	struct binding b;

	if (!tap)
		return TC_ACT_OK;
	bind_tap(&b, tap);
	/* headers in the linear part: what the parser reads */
	bpf_skb_pull_data(skb, skb->len < 256 ? skb->len : 256);
	if (!parsed_in(&b, &f, parse_frame_skb(skb, &f)))
		return TC_ACT_SHOT;
	switch (judge_in(tap, &f)) {
	case TA_ACT_PASS:
		return TC_ACT_OK;
	case TA_ACT_REJECT:
		/* back to the sender: the answer enters the stack as if the
		 * guest had sent it */
		if (!ta_reject_skb(skb, &f))
			return bpf_redirect(skb->ifindex, BPF_F_INGRESS);
		count_stat(&b, TA_STAT_CT + TA_CT_C_REJECT_UNSENT, f.len);
		return TC_ACT_SHOT;
	}
	return TC_ACT_SHOT;
}

/* What another program redirects into a guest's tap through a devmap
 * whose entry names this program. A reject cannot go back from here: it
 * is a drop, counted as unsent. */
SEC("xdp.frags/devmap")
int tap_accel_in_devmap(struct xdp_md *ctx)
{
	struct frame f = {.len = bpf_xdp_get_buff_len(ctx)};
	struct ta_tap *tap = find_tap_of(ta_netns_cookie_tx(ctx), ctx->egress_ifindex);
	struct binding b;

	if (!tap)
		return XDP_PASS;
	bind_tap(&b, tap);
	if (!parsed_in(&b, &f, parse_frame_full(ctx, &f)))
		return XDP_DROP;
	switch (judge_in(tap, &f)) {
	case TA_ACT_PASS:
		return XDP_PASS;
	case TA_ACT_REJECT:
		count_stat(&b, TA_STAT_CT + TA_CT_C_REJECT_UNSENT, f.len);
	}
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
