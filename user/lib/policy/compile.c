// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * compile.c - a policy into the compiled form its maps hold (the layout is
 * documented in bpf/tap_accel.h), in memory only: plane/install.c places
 * and writes it.
 *
 * Bit-vectors: for each field, a frame value maps to the set of rules that
 * accept it. Rules that do not constrain the field accept every value (the
 * wildcard set); the others add their bit to the values they name: the
 * exact value (VLAN, MAC, ethertype), every prefix their prefix contains
 * (LPM keys), or every value of their range (arrays, built per class of
 * values between range boundaries). Identical sets share one bit-vector.
 *
 * A field no rule uses is all wildcard, and install.c gives it no map and
 * no range of the shared arrays: a three-rule policy costs kilobytes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define PORT_BLOCKS (TA_PORT_SPACE / 256)

/* ---- de-duplicated bit-vectors ------------------------------------------- */

static uint64_t bv_hash(const struct ta_bitvec *bv)
{
	uint64_t h = 1469598103934665603ull;

	for (int w = 0; w < TA_BV_WORDS; w++)
		h = (h ^ bv->word[w]) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* The index of a set equal to bv, added if new; -ENOSPC if full. */
static int bv_intern(struct ta_bitvec_set *t, const struct ta_bitvec *bv, uint32_t *index)
{
	uint32_t h = bv_hash(bv) % TA_BV_HASH_SIZE;

	for (; t->hash[h]; h = (h + 1) % TA_BV_HASH_SIZE) {
		uint32_t i = t->hash[h] - 1;

		if (!memcmp(&t->vecs[i], bv, sizeof(*bv))) {
			*index = i;
			return 0;
		}
	}
	if (t->nr == TA_MAX_BITVECS)
		return -ENOSPC;
	t->vecs[t->nr] = *bv;
	t->hash[h] = ++t->nr;
	*index = t->nr - 1;
	return 0;
}

static void bv_set(struct ta_bitvec *bv, uint32_t rule)
{
	bv->word[rule / 64] |= 1ull << (rule % 64);
}

/* ---- the compiled version, in memory ------------------------------------- */

static bool constrains(const struct ta_rule_spec *r, enum ta_field f)
{
	return r->fields & (1u << f);
}

static void prefix_key(struct ta_key_ip *key, const struct ta_prefix *p)
{
	memset(key, 0, sizeof(*key));
	key->prefixlen = 16 + p->prefixlen;
	/* Within its own family only: an IPv6 ::/0 must not cover IPv4. */
	key->family = ta_prefix_is_ip4(p) ? TA_FAMILY_IP4 : TA_FAMILY_IP6;
	for (int i = 0; i < 16; i++) {
		int bits = p->prefixlen - i * 8;

		if (bits >= 8)
			key->addr[i] = p->addr[i];
		else if (bits > 0)
			key->addr[i] = p->addr[i] & (uint8_t)(0xff << (8 - bits));
	}
}

/* The key rule r gives its field f in a keyed (hash or LPM) map. */
static void rule_key(const struct ta_rule_spec *r, enum ta_field f, union ta_field_key *key)
{
	memset(key, 0, sizeof(*key));
	switch (f) {
	case TA_F_VLAN:
		key->value = r->vlan;
		break;
	case TA_F_ETHERTYPE:
		key->value = r->ethertype;
		break;
	case TA_F_SRC_MAC:
	case TA_F_DST_MAC:
		memcpy(key->mac.addr, f == TA_F_SRC_MAC ? r->src_mac : r->dst_mac, 6);
		break;
	default:
		prefix_key(&key->ip, f == TA_F_SRC_IP ? &r->src_ip : &r->dst_ip);
		break;
	}
}

/* Whether LPM key outer covers LPM key inner (same family, shorter
 * prefix), as the trie's longest match would. */
static bool prefix_contains(const struct ta_key_ip *outer, const struct ta_key_ip *inner)
{
	uint32_t bits = outer->prefixlen - 16, i;

	if (outer->prefixlen > inner->prefixlen || outer->family != inner->family)
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

static bool key_accepts(enum ta_field f, const union ta_field_key *rule,
			const union ta_field_key *entry)
{
	if (ta_field_is_ip(f))
		return prefix_contains(&rule->ip, &entry->ip);
	return !memcmp(rule, entry, sizeof(*rule));
}

static int compile_keyed(struct ta_compiled *c, enum ta_field f, struct ta_keyed *out)
{
	const struct ta_policy_spec *spec = c->spec;
	union ta_field_key key;
	uint32_t i, e;
	int ret;

	out->nr = 0;
	for (i = 0; i < spec->nr_rules; i++) {
		if (!constrains(&spec->rules[i], f))
			continue;
		rule_key(&spec->rules[i], f, &key);
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
			rule_key(&spec->rules[i], f, &key);
			if (key_accepts(f, &key, &out->keys[e]))
				bv_set(&bv, i);
		}
		ret = bv_intern(&c->bvs, &bv, &out->values[e]);
		if (ret)
			return ret;
	}
	return 0;
}

static void rule_range(const struct ta_rule_spec *r, enum ta_field f, uint32_t *lo, uint32_t *hi)
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
static int compile_ranged(struct ta_compiled *c, enum ta_field f, uint32_t space, uint32_t *out)
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

/* A block of 256 ports whose values are all one becomes a directory entry
 * of its own; the others get a page. */
static int compile_ports(struct ta_compiled *c, enum ta_field f, struct ta_port_table *p)
{
	uint32_t pages = 0;
	int ret = compile_ranged(c, f, TA_PORT_SPACE, p->flat);

	for (uint32_t b = 0; !ret && b < PORT_BLOCKS; b++) {
		const uint32_t *block = p->flat + b * 256;
		bool uniform = true;

		for (int i = 1; i < 256 && uniform; i++)
			uniform = block[i] == block[0];
		if (uniform) {
			p->table[b] = block[0];
			continue;
		}
		p->table[b] = TA_PORT_PAGE | pages;
		memcpy(p->table + TA_PORT_DIR + pages * 256, block, 256 * sizeof(*block));
		pages++;
	}
	p->size = TA_PORT_DIR + pages * 256;
	return ret;
}

static bool action_valid(uint32_t action, uint32_t port)
{
	return action < TA_ACT_MAX && (action != TA_ACT_REDIRECT || port);
}

static int rule_valid(const struct ta_rule_spec *r)
{
	if (r->fields & ~((1u << TA_F_MAX) - 1))
		return -EINVAL;
	if (!action_valid(r->action, r->port))
		return -EINVAL;
	if ((r->dirs & ~TA_DIRS_BOTH) || (r->states & ~TA_STATES_ALL) ||
	    ((ta_rule_dirs(r) & TA_DIRS_IN) && !ta_action_valid_in(r->action)))
		return -EINVAL;
	if ((constrains(r, TA_F_VLAN) && r->vlan > 4095) ||
	    (constrains(r, TA_F_SRC_IP) && r->src_ip.prefixlen > 128) ||
	    (constrains(r, TA_F_DST_IP) && r->dst_ip.prefixlen > 128) ||
	    (constrains(r, TA_F_SRC_PORT) && r->sport_lo > r->sport_hi) ||
	    (constrains(r, TA_F_DST_PORT) && r->dport_lo > r->dport_hi))
		return -EINVAL;
	return 0;
}

static int compile_wildcards(struct ta_compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	int ret;

	for (int f = 0; f < TA_F_MAX; f++) {
		for (uint32_t i = 0; i < spec->nr_rules; i++)
			if (!constrains(&spec->rules[i], f))
				bv_set(&c->wildcard[f], i);
		ret = bv_intern(&c->bvs, &c->wildcard[f], &c->head.wildcard[f]);
		if (ret)
			return ret;
	}
	return 0;
}

/* 1 + the first rule of direction d and state st, when it has no field
 * to match: then every frame of d and st meets it first (an established
 * connection's frames, in a security group), and the program takes it
 * without classifying. 0 when the first such rule has fields, or none. */
static uint16_t state_rule(const struct ta_policy_spec *spec, uint32_t d, uint32_t st)
{
	for (uint32_t i = 0; i < spec->nr_rules; i++) {
		const struct ta_rule_spec *r = &spec->rules[i];
		uint32_t states = r->states ?: TA_STATES_ALL;

		if ((ta_rule_dirs(r) & (1u << d)) && (states & (1u << st)))
			return r->fields ? 0 : i + 1;
	}
	return 0;
}

/* The rules of each direction and of each connection state: two more
 * bit-vectors the program ANDs with the fields' for a two-way policy. */
static int compile_two_way(struct ta_compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	struct ta_bitvec bv;
	int ret;

	c->head.ct_flags = TA_POL_F_CT;
	c->head.default_in_action = spec->default_in_action;
	for (uint32_t d = 0; d < TA_DIR_MAX; d++) {
		memset(&bv, 0, sizeof(bv));
		for (uint32_t i = 0; i < spec->nr_rules; i++)
			if (ta_rule_dirs(&spec->rules[i]) & (1u << d))
				bv_set(&bv, i);
		ret = bv_intern(&c->bvs, &bv, &c->head.dir_bitvec[d]);
		if (ret)
			return ret;
	}
	for (uint32_t st = 0; st < TA_CT_STATE_MAX; st++) {
		memset(&bv, 0, sizeof(bv));
		for (uint32_t i = 0; i < spec->nr_rules; i++) {
			uint32_t states = spec->rules[i].states ?: TA_STATES_ALL;

			if (states & (1u << st))
				bv_set(&bv, i);
		}
		ret = bv_intern(&c->bvs, &bv, &c->head.state_bitvec[st]);
		if (ret)
			return ret;
	}
	for (uint32_t d = 0; d < TA_DIR_MAX; d++)
		for (uint32_t st = 0; st < TA_CT_STATE_MAX; st++)
			c->head.state_rule[d][st] = state_rule(spec, d, st);
	return 0;
}

static void compile_head(struct ta_compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	const struct ta_rate_spec *rate = &spec->rate;

	c->head.nr_rules = spec->nr_rules;
	c->head.default_action = spec->default_action;
	c->head.default_port = spec->default_port;
	c->head.digest = spec->digest;
	c->head.pps = rate->pps;
	c->head.bps = rate->bps;
	c->head.burst_pkts = rate->burst_pkts ?: rate->pps;
	c->head.burst_bytes = rate->burst_bytes ?: (rate->bps + 7) / 8;
}

static int compile(struct ta_compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	int ret;

	if (spec->nr_rules > TA_MAX_RULES)
		return -E2BIG;
	if (!action_valid(spec->default_action, spec->default_port) ||
	    !ta_action_valid_in(spec->default_in_action))
		return -EINVAL;
	compile_head(c);
	/* the program scales bursts to nano-units: they must fit 64 bits */
	if (c->head.burst_pkts > UINT64_MAX / 1000000000ull ||
	    c->head.burst_bytes > UINT64_MAX / 8000000000ull)
		return -ERANGE;
	for (uint32_t i = 0; i < spec->nr_rules; i++) {
		const struct ta_rule_spec *r = &spec->rules[i];

		ret = rule_valid(r);
		if (ret)
			return ret;
		c->head.field_mask |= r->fields;
		c->rules[i].action = r->action;
		c->rules[i].port = r->port;
	}
	if (ta_policy_two_way(spec))
		c->head.ct_flags = TA_POL_F_CT;
	if (!spec->nr_rules) {
		c->head.default_in_action = spec->default_in_action;
		return 0;
	}
	ret = compile_wildcards(c);
	if (!ret && ta_policy_two_way(spec))
		ret = compile_two_way(c);
	ret = ret ?: compile_keyed(c, TA_F_VLAN, &c->vlan);
	ret = ret ?: compile_keyed(c, TA_F_ETHERTYPE, &c->ethertype);
	ret = ret ?: compile_keyed(c, TA_F_SRC_MAC, &c->src_mac);
	ret = ret ?: compile_keyed(c, TA_F_DST_MAC, &c->dst_mac);
	ret = ret ?: compile_keyed(c, TA_F_SRC_IP, &c->src_ip);
	ret = ret ?: compile_keyed(c, TA_F_DST_IP, &c->dst_ip);
	ret = ret ?: compile_ranged(c, TA_F_IP_PROTO, TA_BYTE_SPACE, c->ip_proto);
	ret = ret ?: compile_ranged(c, TA_F_ICMP_TYPE, TA_BYTE_SPACE, c->icmp_type);
	ret = ret ?: compile_ports(c, TA_F_SRC_PORT, &c->src_port);
	ret = ret ?: compile_ports(c, TA_F_DST_PORT, &c->dst_port);
	return ret;
}

int ta_policy_compile(const struct ta_policy_spec *spec, struct ta_compiled **out)
{
	struct ta_compiled *c = calloc(1, sizeof(*c));
	int ret;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->spec = spec;
	ret = compile(c);
	if (ret) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

const struct ta_keyed *ta_compiled_keyed(const struct ta_compiled *c, enum ta_field f)
{
	/* the keyed fields come first in enum ta_field */
	static const size_t at[] = {
		[TA_F_VLAN] = offsetof(struct ta_compiled, vlan),
		[TA_F_SRC_MAC] = offsetof(struct ta_compiled, src_mac),
		[TA_F_DST_MAC] = offsetof(struct ta_compiled, dst_mac),
		[TA_F_ETHERTYPE] = offsetof(struct ta_compiled, ethertype),
		[TA_F_SRC_IP] = offsetof(struct ta_compiled, src_ip),
		[TA_F_DST_IP] = offsetof(struct ta_compiled, dst_ip),
	};

	return f <= TA_F_DST_IP ? (const struct ta_keyed *)((const char *)c + at[f]) : NULL;
}
