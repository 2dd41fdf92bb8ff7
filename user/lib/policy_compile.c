// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_compile.c - write a struct ta_policy_spec into the maps of the
 * policy program (the layout is documented in bpf/tap_accel.h).
 *
 * A policy is compiled in memory first, so a spec that does not fit fails
 * before any map is touched. It is then written into the inactive slot,
 * made active with one write of ta_config, and the old slot is waited out
 * through ta_sync before anyone may rewrite it.
 *
 * Bit-vectors: for each field, a frame value maps to the set of rules that
 * accept it. Rules that do not constrain the field accept every value (the
 * wildcard set); the others add their bit to the values they name: the
 * exact value (VLAN, MAC, ethertype), every prefix their prefix contains
 * (LPM keys), or every value of their range (arrays, built per class of
 * values between range boundaries). Identical sets share one ta_bitvecs
 * entry.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "policy.h"

#define NSEC_PER_SEC 1000000000ull
/* Kernel-internal errno of a batch operation a map type lacks. */
#define ENOTSUPP     524
#define BV_HASH_SIZE (2 * TA_MAX_BITVECS)

/* ---- de-duplicated bit-vectors ------------------------------------------- */

struct bv_table {
	struct ta_bitvec vecs[TA_MAX_BITVECS];
	uint32_t hash[BV_HASH_SIZE]; /* index + 1, 0 = free */
	uint32_t nr;
	uint32_t base; /* absolute index of vecs[0]: slot * TA_MAX_BITVECS */
};

static uint64_t bv_hash(const struct ta_bitvec *bv)
{
	uint64_t h = 1469598103934665603ull;
	int w;

	for (w = 0; w < TA_BV_WORDS; w++)
		h = (h ^ bv->word[w]) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* The absolute index of a set equal to bv, added if new; -ENOSPC if full. */
static int bv_intern(struct bv_table *t, const struct ta_bitvec *bv,
		     uint32_t *index)
{
	uint32_t h = bv_hash(bv) % BV_HASH_SIZE;

	for (; t->hash[h]; h = (h + 1) % BV_HASH_SIZE) {
		uint32_t i = t->hash[h] - 1;

		if (!memcmp(&t->vecs[i], bv, sizeof(*bv))) {
			*index = t->base + i;
			return 0;
		}
	}
	if (t->nr == TA_MAX_BITVECS)
		return -ENOSPC;
	t->vecs[t->nr] = *bv;
	t->hash[h] = ++t->nr;
	*index = t->base + t->nr - 1;
	return 0;
}

static void bv_set(struct ta_bitvec *bv, uint32_t rule)
{
	bv->word[rule / 64] |= 1ull << (rule % 64);
}

/* ---- the compiled policy, in memory -------------------------------------- */

/* Entries of one hash or LPM field map. */
struct keyed {
	union field_key {
		struct ta_key16 k16;
		struct ta_key_mac mac;
		struct ta_key_ip ip;
	} keys[TA_MAX_RULES];
	uint32_t values[TA_MAX_RULES];
	uint32_t nr;
};

struct compiled {
	const struct ta_policy_spec *spec;
	uint32_t slot;
	struct ta_policy head;
	struct ta_bitvec wildcard[TA_F_MAX];
	struct bv_table bvs;
	struct keyed vlan, ethertype, src_mac, dst_mac, src_ip, dst_ip;
	uint32_t ip_proto[TA_BYTE_SPACE], icmp_type[TA_BYTE_SPACE];
	uint32_t src_port[TA_PORT_SPACE], dst_port[TA_PORT_SPACE];
	struct ta_rule_action rules[TA_MAX_RULES];
};

static bool constrains(const struct ta_rule_spec *r, enum ta_field f)
{
	return r->fields & (1u << f);
}

static bool is_ip_field(enum ta_field f)
{
	return f == TA_F_SRC_IP || f == TA_F_DST_IP;
}

static void prefix_key(struct ta_key_ip *key, uint32_t slot,
		       const struct ta_prefix *p)
{
	int i;

	memset(key, 0, sizeof(*key));
	key->prefixlen = 16 + p->prefixlen;
	key->slot = slot;
	/* Within its own family only: an IPv6 ::/0 must not cover IPv4. */
	key->family = ta_prefix_is_ip4(p) ? TA_FAMILY_IP4 : TA_FAMILY_IP6;
	for (i = 0; i < 16; i++) {
		int bits = p->prefixlen - i * 8;

		if (bits >= 8)
			key->addr[i] = p->addr[i];
		else if (bits > 0)
			key->addr[i] =
				p->addr[i] & (uint8_t)(0xff << (8 - bits));
	}
}

/* The key rule r gives its field f in a keyed (hash or LPM) map. */
static void rule_key(const struct ta_rule_spec *r, enum ta_field f,
		     uint32_t slot, union field_key *key)
{
	memset(key, 0, sizeof(*key));
	switch (f) {
	case TA_F_VLAN:
	case TA_F_ETHERTYPE:
		key->k16.slot = slot;
		key->k16.value = f == TA_F_VLAN ? r->vlan : r->ethertype;
		break;
	case TA_F_SRC_MAC:
	case TA_F_DST_MAC:
		key->mac.slot = slot;
		memcpy(key->mac.addr,
		       f == TA_F_SRC_MAC ? r->src_mac : r->dst_mac, 6);
		break;
	default:
		prefix_key(&key->ip, slot,
			   f == TA_F_SRC_IP ? &r->src_ip : &r->dst_ip);
		break;
	}
}

/* Whether LPM key outer covers LPM key inner (same slot and family,
 * shorter prefix), as the trie's longest match would. */
static bool prefix_contains(const struct ta_key_ip *outer,
			    const struct ta_key_ip *inner)
{
	uint32_t bits = outer->prefixlen - 16, i;

	if (outer->prefixlen > inner->prefixlen ||
	    outer->slot != inner->slot || outer->family != inner->family)
		return false;
	for (i = 0; i < bits / 8; i++)
		if (outer->addr[i] != inner->addr[i])
			return false;
	if (bits % 8) {
		uint8_t mask = 0xff << (8 - bits % 8);

		return (outer->addr[i] & mask) == (inner->addr[i] & mask);
	}
	return true;
}

static bool key_accepts(enum ta_field f, const union field_key *rule,
			const union field_key *entry)
{
	if (is_ip_field(f))
		return prefix_contains(&rule->ip, &entry->ip);
	return !memcmp(rule, entry, sizeof(*rule));
}

static int compile_keyed(struct compiled *c, enum ta_field f, struct keyed *out)
{
	const struct ta_policy_spec *spec = c->spec;
	union field_key key;
	uint32_t i, e;
	int ret;

	out->nr = 0;
	for (i = 0; i < spec->nr_rules; i++) {
		if (!constrains(&spec->rules[i], f))
			continue;
		rule_key(&spec->rules[i], f, c->slot, &key);
		for (e = 0; e < out->nr; e++)
			if (!memcmp(&out->keys[e], &key, sizeof(key)))
				break;
		if (e == out->nr)
			out->keys[out->nr++] = key;
	}
	for (e = 0; e < out->nr; e++) {
		struct ta_bitvec bv = c->wildcard[f];

		for (i = 0; i < spec->nr_rules; i++) {
			if (!constrains(&spec->rules[i], f))
				continue;
			rule_key(&spec->rules[i], f, c->slot, &key);
			if (key_accepts(f, &key, &out->keys[e]))
				bv_set(&bv, i);
		}
		ret = bv_intern(&c->bvs, &bv, &out->values[e]);
		if (ret)
			return ret;
	}
	return 0;
}

static void rule_range(const struct ta_rule_spec *r, enum ta_field f,
		       uint32_t *lo, uint32_t *hi)
{
	switch (f) {
	case TA_F_IP_PROTO:
		*lo = *hi = r->ip_proto;
		break;
	case TA_F_ICMP_TYPE:
		*lo = *hi = r->icmp_type;
		break;
	case TA_F_SRC_PORT:
		*lo = r->sport_lo;
		*hi = r->sport_hi;
		break;
	default:
		*lo = r->dport_lo;
		*hi = r->dport_hi;
		break;
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Array field f over values 0..space-1. Range boundaries cut the space
 * into classes of values that every rule treats alike; each class gets
 * one set.
 */
static int compile_ranged(struct compiled *c, enum ta_field f, uint32_t space,
			  uint32_t *out)
{
	const struct ta_policy_spec *spec = c->spec;
	uint32_t cuts[2 * TA_MAX_RULES + 2], nr = 0, i, k, lo, hi, v;
	int ret;

	cuts[nr++] = 0;
	cuts[nr++] = space;
	for (i = 0; i < spec->nr_rules; i++) {
		if (!constrains(&spec->rules[i], f))
			continue;
		rule_range(&spec->rules[i], f, &lo, &hi);
		cuts[nr++] = lo;
		cuts[nr++] = hi + 1;
	}
	qsort(cuts, nr, sizeof(cuts[0]), cmp_u32);

	for (k = 0; k + 1 < nr; k++) {
		struct ta_bitvec bv = c->wildcard[f];
		uint32_t index;

		if (cuts[k] == cuts[k + 1])
			continue;
		for (i = 0; i < spec->nr_rules; i++) {
			if (!constrains(&spec->rules[i], f))
				continue;
			rule_range(&spec->rules[i], f, &lo, &hi);
			if (lo <= cuts[k] && cuts[k] <= hi)
				bv_set(&bv, i);
		}
		ret = bv_intern(&c->bvs, &bv, &index);
		if (ret)
			return ret;
		for (v = cuts[k]; v < cuts[k + 1]; v++)
			out[v] = index;
	}
	return 0;
}

static bool action_valid(uint32_t action, uint32_t ifindex)
{
	return action < TA_ACT_MAX && (action != TA_ACT_REDIRECT || ifindex);
}

static int rule_valid(const struct ta_rule_spec *r)
{
	if (r->fields & ~((1u << TA_F_MAX) - 1))
		return -EINVAL;
	if (!action_valid(r->action, r->ifindex))
		return -EINVAL;
	if ((constrains(r, TA_F_VLAN) && r->vlan > 4095) ||
	    (constrains(r, TA_F_SRC_IP) && r->src_ip.prefixlen > 128) ||
	    (constrains(r, TA_F_DST_IP) && r->dst_ip.prefixlen > 128) ||
	    (constrains(r, TA_F_SRC_PORT) && r->sport_lo > r->sport_hi) ||
	    (constrains(r, TA_F_DST_PORT) && r->dport_lo > r->dport_hi))
		return -EINVAL;
	return 0;
}

static int compile_wildcards(struct compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	uint32_t i;
	int f, ret;

	for (f = 0; f < TA_F_MAX; f++) {
		for (i = 0; i < spec->nr_rules; i++)
			if (!constrains(&spec->rules[i], f))
				bv_set(&c->wildcard[f], i);
		ret = bv_intern(&c->bvs, &c->wildcard[f], &c->head.wildcard[f]);
		if (ret)
			return ret;
	}
	return 0;
}

static int compile(struct compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	uint32_t i;
	int ret;

	if (spec->nr_rules > TA_MAX_RULES)
		return -E2BIG;
	if (!action_valid(spec->default_action, spec->default_ifindex))
		return -EINVAL;
	for (i = 0; i < spec->nr_rules; i++) {
		const struct ta_rule_spec *r = &spec->rules[i];

		ret = rule_valid(r);
		if (ret)
			return ret;
		c->head.field_mask |= r->fields;
		c->rules[i].action = r->action;
		c->rules[i].ifindex = r->ifindex;
	}
	c->head.nr_rules = spec->nr_rules;
	c->head.default_action = spec->default_action;
	c->head.default_ifindex = spec->default_ifindex;
	c->head.digest = spec->digest;
	c->bvs.base = c->slot * TA_MAX_BITVECS;

	ret = compile_wildcards(c);
	ret = ret ?: compile_keyed(c, TA_F_VLAN, &c->vlan);
	ret = ret ?: compile_keyed(c, TA_F_ETHERTYPE, &c->ethertype);
	ret = ret ?: compile_keyed(c, TA_F_SRC_MAC, &c->src_mac);
	ret = ret ?: compile_keyed(c, TA_F_DST_MAC, &c->dst_mac);
	ret = ret ?: compile_keyed(c, TA_F_SRC_IP, &c->src_ip);
	ret = ret ?: compile_keyed(c, TA_F_DST_IP, &c->dst_ip);
	ret = ret
		      ?: compile_ranged(c, TA_F_IP_PROTO, TA_BYTE_SPACE,
					c->ip_proto);
	ret = ret
		      ?: compile_ranged(c, TA_F_ICMP_TYPE, TA_BYTE_SPACE,
					c->icmp_type);
	ret = ret
		      ?: compile_ranged(c, TA_F_SRC_PORT, TA_PORT_SPACE,
					c->src_port);
	ret = ret
		      ?: compile_ranged(c, TA_F_DST_PORT, TA_PORT_SPACE,
					c->dst_port);
	return ret;
}

/* ---- writing maps ---------------------------------------------------------
 */

/* n entries in one call where the map supports batches, else one by one. */
static int map_write(int fd, const void *keys, size_t key_size,
		     const void *values, size_t value_size, uint32_t n)
{
	uint32_t count = n, i;

	if (!n)
		return 0;
	if (!bpf_map_update_batch(fd, keys, values, &count, NULL))
		return 0;
	/* EINVAL: no batch commands in this kernel at all */
	if (errno != EINVAL && errno != ENOTSUPP && errno != EOPNOTSUPP)
		return -errno;
	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, (const char *)keys + i * key_size,
					(const char *)values + i * value_size,
					BPF_ANY))
			return -errno;
	return 0;
}

/* Keys first..first+n-1 of an array map. */
static int array_write(int fd, uint32_t first, const void *values,
		       size_t value_size, uint32_t n)
{
	uint32_t *keys = malloc(n * sizeof(*keys)), i;
	int ret;

	if (!keys)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		keys[i] = first + i;
	ret = map_write(fd, keys, sizeof(*keys), values, value_size, n);
	free(keys);
	return ret;
}

static uint32_t key_slot(const void *key, bool lpm)
{
	return lpm ? ((const struct ta_key_ip *)key)->slot
		   : ((const struct ta_key16 *)key)->slot;
}

/* Delete every entry of `slot` from a hash or LPM field map. */
static int clear_slot(int fd, size_t key_size, bool lpm, uint32_t slot)
{
	size_t cap = 64, nr = 0, i;
	char *keys = malloc(cap * key_size), *next;
	char cur[sizeof(union field_key)];
	const void *prev = NULL;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	while (!bpf_map_get_next_key(fd, prev, cur)) {
		if (key_slot(cur, lpm) == slot) {
			if (nr == cap) {
				next = realloc(keys, 2 * cap * key_size);
				if (!next) {
					ret = -ENOMEM;
					goto out;
				}
				keys = next;
				cap *= 2;
			}
			memcpy(keys + nr++ * key_size, cur, key_size);
		}
		prev = cur;
	}
	if (errno != ENOENT) {
		ret = -errno;
		goto out;
	}
	for (i = 0; i < nr && !ret; i++)
		if (bpf_map_delete_elem(fd, keys + i * key_size) &&
		    errno != ENOENT)
			ret = -errno;
out:
	free(keys);
	return ret;
}

static int keyed_write(int fd, size_t key_size, bool lpm, uint32_t slot,
		       const struct keyed *k)
{
	char *keys;
	uint32_t i;
	int ret;

	ret = clear_slot(fd, key_size, lpm, slot);
	if (ret || !k->nr)
		return ret;
	/* pack the union-sized keys to the map's key size */
	keys = malloc(k->nr * key_size);
	if (!keys)
		return -ENOMEM;
	for (i = 0; i < k->nr; i++)
		memcpy(keys + i * key_size, &k->keys[i], key_size);
	ret = map_write(fd, keys, key_size, k->values, sizeof(k->values[0]),
			k->nr);
	free(keys);
	return ret;
}

/* Zero a slot's rule counters on every CPU: the new policy starts at 0. */
static int clear_rule_counters(int fd, uint32_t slot)
{
	int ncpus = libbpf_num_possible_cpus();
	size_t per_key;
	void *zeros;
	int ret;

	if (ncpus < 0)
		return ncpus;
	per_key = ncpus * sizeof(struct ta_counter);
	zeros = calloc(TA_RULE_STAT_SLOT, per_key);
	if (!zeros)
		return -ENOMEM;
	ret = array_write(fd, slot * TA_RULE_STAT_SLOT, zeros, per_key,
			  TA_RULE_STAT_SLOT);
	free(zeros);
	return ret;
}

static int write_slot(const struct ta_maps *m, const struct compiled *c)
{
	uint32_t s = c->slot;
	int ret;

	ret = keyed_write(m->ta_vlan, sizeof(struct ta_key16), false, s,
			  &c->vlan);
	ret = ret
		      ?: keyed_write(m->ta_ethertype, sizeof(struct ta_key16),
				     false, s, &c->ethertype);
	ret = ret
		      ?: keyed_write(m->ta_src_mac, sizeof(struct ta_key_mac),
				     false, s, &c->src_mac);
	ret = ret
		      ?: keyed_write(m->ta_dst_mac, sizeof(struct ta_key_mac),
				     false, s, &c->dst_mac);
	ret = ret
		      ?: keyed_write(m->ta_src_ip, sizeof(struct ta_key_ip),
				     true, s, &c->src_ip);
	ret = ret
		      ?: keyed_write(m->ta_dst_ip, sizeof(struct ta_key_ip),
				     true, s, &c->dst_ip);
	ret = ret
		      ?: array_write(m->ta_bitvecs, c->bvs.base, c->bvs.vecs,
				     sizeof(struct ta_bitvec), c->bvs.nr);
	ret = ret
		      ?: array_write(m->ta_ip_proto, s * TA_BYTE_SPACE,
				     c->ip_proto, 4, TA_BYTE_SPACE);
	ret = ret
		      ?: array_write(m->ta_icmp_type, s * TA_BYTE_SPACE,
				     c->icmp_type, 4, TA_BYTE_SPACE);
	ret = ret
		      ?: array_write(m->ta_src_port, s * TA_PORT_SPACE,
				     c->src_port, 4, TA_PORT_SPACE);
	ret = ret
		      ?: array_write(m->ta_dst_port, s * TA_PORT_SPACE,
				     c->dst_port, 4, TA_PORT_SPACE);
	ret = ret
		      ?: array_write(m->ta_rules, s * TA_MAX_RULES, c->rules,
				     sizeof(c->rules[0]), TA_MAX_RULES);
	ret = ret ?: clear_rule_counters(m->ta_st_rule, s);
	ret = ret ?: array_write(m->ta_policy, s, &c->head, sizeof(c->head), 1);
	return ret;
}

/* ---- redirect targets: ta_ports --------------------------------------- */

static int port_add(const struct ta_maps *m, uint32_t ifindex)
{
	return bpf_map_update_elem(m->ta_ports, &ifindex, &ifindex, BPF_ANY)
		       ? -errno
		       : 0;
}

static int spec_ports_add(const struct ta_maps *m,
			  const struct ta_policy_spec *spec)
{
	uint32_t i;
	int ret = 0;

	if (spec->default_action == TA_ACT_REDIRECT)
		ret = port_add(m, spec->default_ifindex);
	for (i = 0; i < spec->nr_rules && !ret; i++)
		if (spec->rules[i].action == TA_ACT_REDIRECT)
			ret = port_add(m, spec->rules[i].ifindex);
	return ret;
}

static int active_slot(const struct ta_maps *m, uint32_t *slot)
{
	struct ta_config cfg;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(m->ta_config, &zero, &cfg))
		return -errno;
	*slot = cfg.active_slot % TA_SLOTS;
	return 0;
}

/* Egress ifindexes something still sends frames to. */
struct port_set {
	uint32_t ifindex[TA_MAX_FDB + TA_MAX_RULES + 1];
	uint32_t nr;
};

static void port_set_add(struct port_set *set, uint32_t ifindex)
{
	uint32_t i;

	for (i = 0; i < set->nr; i++)
		if (set->ifindex[i] == ifindex)
			return;
	if (set->nr < sizeof(set->ifindex) / sizeof(set->ifindex[0]))
		set->ifindex[set->nr++] = ifindex;
}

static bool port_set_has(const struct port_set *set, uint32_t ifindex)
{
	uint32_t i;

	for (i = 0; i < set->nr; i++)
		if (set->ifindex[i] == ifindex)
			return true;
	return false;
}

/* The egresses of the fdb and of the active policy's redirects. */
static int ports_in_use(const struct ta_maps *m, struct port_set *set)
{
	struct ta_mac mac, *prev = NULL;
	struct ta_rule_action ra;
	struct ta_policy head;
	uint32_t slot, egress, i, key;
	int ret;

	set->nr = 0;
	while (!bpf_map_get_next_key(m->ta_fdb, prev, &mac)) {
		if (bpf_map_lookup_elem(m->ta_fdb, &mac, &egress))
			return -errno;
		port_set_add(set, egress);
		prev = &mac;
	}
	ret = active_slot(m, &slot);
	if (ret)
		return ret;
	if (bpf_map_lookup_elem(m->ta_policy, &slot, &head))
		return -errno;
	if (head.default_action == TA_ACT_REDIRECT)
		port_set_add(set, head.default_ifindex);
	for (i = 0; i < head.nr_rules && i < TA_MAX_RULES; i++) {
		key = slot * TA_MAX_RULES + i;
		if (bpf_map_lookup_elem(m->ta_rules, &key, &ra))
			return -errno;
		if (ra.action == TA_ACT_REDIRECT)
			port_set_add(set, ra.ifindex);
	}
	return 0;
}

/* Remove the ports nothing refers to any more. */
static int ports_prune(const struct ta_maps *m)
{
	uint32_t keys[TA_MAX_PORTS], nr = 0, key, *prev = NULL, i;
	struct port_set *used = malloc(sizeof(*used));
	int ret;

	if (!used)
		return -ENOMEM;
	ret = ports_in_use(m, used);
	while (!ret && nr < TA_MAX_PORTS &&
	       !bpf_map_get_next_key(m->ta_ports, prev, &key)) {
		keys[nr++] = key;
		prev = &keys[nr - 1];
	}
	for (i = 0; i < nr && !ret; i++)
		if (!port_set_has(used, keys[i]) &&
		    bpf_map_delete_elem(m->ta_ports, &keys[i]) &&
		    errno != ENOENT)
			ret = -errno;
	free(used);
	return ret;
}

/* ---- switching slots ---------------------------------------------------- */

static int config_write(const struct ta_maps *m, uint32_t slot)
{
	struct ta_config cfg = {TA_LAYOUT_VERSION, slot};
	uint32_t zero = 0;

	return bpf_map_update_elem(m->ta_config, &zero, &cfg, BPF_ANY) ? -errno
								       : 0;
}

/* A map the shape of ta_sync's inner map, to store into it. */
static int sync_inner_create(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ta_sync_inner", 4, 4, 1,
				NULL);

	return fd < 0 ? -errno : fd;
}

/* Updating a map-in-map returns after an RCU grace period, so after it no
 * program still runs with a slot read before the flip. */
static int sync_programs(const struct ta_maps *m, int inner_fd)
{
	uint32_t zero = 0;

	return bpf_map_update_elem(m->ta_sync, &zero, &inner_fd, BPF_ANY)
		       ? -errno
		       : 0;
}

static int flip(const struct ta_maps *m, uint32_t old_slot, uint32_t new_slot)
{
	int inner = sync_inner_create();
	int ret;

	if (inner < 0)
		return inner;
	ret = config_write(m, new_slot);
	if (!ret) {
		ret = sync_programs(m, inner);
		if (ret)
			config_write(m, old_slot);
	}
	close(inner);
	return ret;
}

int ta_policy_install(const struct ta_maps *maps,
		      const struct ta_policy_spec *spec)
{
	struct compiled *c = calloc(1, sizeof(*c));
	uint32_t old_slot = 0;
	int ret;

	if (!c)
		return -ENOMEM;
	ret = active_slot(maps, &old_slot);
	if (ret)
		goto out;
	c->spec = spec;
	c->slot = (old_slot + 1) % TA_SLOTS;
	ret = compile(c);
	ret = ret ?: spec_ports_add(maps, spec);
	ret = ret ?: write_slot(maps, c);
	ret = ret ?: flip(maps, old_slot, c->slot);
	/* stale ports are harmless: a pruning failure fails nothing */
	if (!ret)
		ports_prune(maps);
out:
	free(c);
	return ret;
}

/* ---- guard, rate, fdb ------------------------------------------------------
 */

/* Make the keys of hash map fd exactly `keys` (n of key_size bytes). */
static int set_replace(int fd, const void *keys, size_t key_size, uint32_t n)
{
	char cur[16], next[16];
	const void *prev = NULL;
	uint8_t one = 1;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, (const char *)keys + i * key_size,
					&one, BPF_ANY))
			return -errno;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		bool keep = false;

		for (i = 0; i < n && !keep; i++)
			keep = !memcmp((const char *)keys + i * key_size, next,
				       key_size);
		memcpy(cur, next, key_size);
		if (!keep) {
			if (bpf_map_delete_elem(fd, cur))
				return -errno;
			prev = NULL; /* deleted: restart the walk */
		} else {
			prev = cur;
		}
	}
	return 0;
}

int ta_guard_install(const struct ta_maps *maps,
		     const struct ta_guard_spec *guard)
{
	struct ta_guard g = {.flags = guard->flags};
	uint32_t zero = 0;
	int ret;

	if (guard->nr_ip4 > TA_MAX_GUARD_ADDRS ||
	    guard->nr_ip6 > TA_MAX_GUARD_ADDRS)
		return -E2BIG;
	if (guard->flags & ~(TA_GUARD_F_MAC | TA_GUARD_F_IP4 | TA_GUARD_F_IP6))
		return -EINVAL;
	memcpy(g.mac, guard->mac, 6);
	ret = set_replace(maps->ta_guard_ip4, guard->ip4, 4, guard->nr_ip4);
	ret = ret
		      ?: set_replace(maps->ta_guard_ip6, guard->ip6, 16,
				     guard->nr_ip6);
	if (!ret && bpf_map_update_elem(maps->ta_guard, &zero, &g, BPF_ANY))
		ret = -errno;
	return ret;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int ta_rate_install(const struct ta_maps *maps, const struct ta_rate_spec *rate)
{
	struct ta_rate r = {
		.pps = rate->pps,
		.bps = rate->bps,
		.burst_pkts = rate->burst_pkts ?: rate->pps,
		.burst_bytes = rate->burst_bytes ?: (rate->bps + 7) / 8,
	};
	uint32_t zero = 0;

	/* the program scales bursts to nano-units: they must fit 64 bits */
	if (r.burst_pkts > UINT64_MAX / NSEC_PER_SEC ||
	    r.burst_bytes > UINT64_MAX / (8 * NSEC_PER_SEC))
		return -ERANGE;
	r.pkt_tokens = r.burst_pkts * NSEC_PER_SEC;
	r.bit_tokens = r.burst_bytes * 8 * NSEC_PER_SEC;
	r.last_ns = monotonic_ns();
	return bpf_map_update_elem(maps->ta_rate, &zero, &r, BPF_F_LOCK)
		       ? -errno
		       : 0;
}

int ta_fdb_add(const struct ta_maps *maps, const uint8_t mac[6],
	       uint32_t ifindex)
{
	struct ta_mac key = {};
	int ret;

	/* the program forwards unicast only: a group address never matches */
	if (mac[0] & 1 || !ifindex)
		return -EINVAL;
	memcpy(key.addr, mac, 6);
	ret = port_add(maps, ifindex);
	if (!ret && bpf_map_update_elem(maps->ta_fdb, &key, &ifindex, BPF_ANY))
		ret = -errno;
	return ret;
}

int ta_fdb_del(const struct ta_maps *maps, const uint8_t mac[6])
{
	struct ta_mac key = {};

	memcpy(key.addr, mac, 6);
	if (bpf_map_delete_elem(maps->ta_fdb, &key))
		return -errno;
	return ports_prune(maps);
}
