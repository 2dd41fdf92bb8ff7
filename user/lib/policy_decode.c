// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_decode.c - read the active policy of an instance back out of its
 * maps into a struct ta_policy_spec, the inverse of policy_compile.c, so
 * that `policy show` prints what the program really runs.
 *
 * It relies only on the layout of tap_accel.h: a rule constrains a field
 * unless it is in the field's wildcard set; it accepts a field value when
 * its bit is set in the set that value maps to. An exact field has one
 * key with the rule's bit, a prefix field the rule's prefix as its
 * shortest key with the bit, a ranged field one run of values.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy_decode.h"

struct decoder {
	const struct ta_maps *maps;
	uint32_t slot;
	struct ta_policy head;
	struct ta_policy_spec *spec;
	struct ta_bitvec *bv;	/* cache of ta_bitvecs, by absolute index */
	uint8_t *bv_loaded;
};

static const struct ta_bitvec *bitvec(struct decoder *d, uint32_t index)
{
	static const struct ta_bitvec empty;

	if (index >= TA_SLOTS * TA_MAX_BITVECS)
		return &empty;
	if (!d->bv_loaded[index]) {
		if (bpf_map_lookup_elem(d->maps->ta_bitvecs, &index, &d->bv[index]))
			memset(&d->bv[index], 0, sizeof(d->bv[index]));
		d->bv_loaded[index] = 1;
	}
	return &d->bv[index];
}

static bool has_bit(const struct ta_bitvec *bv, uint32_t rule)
{
	return bv->word[rule / 64] & (1ull << (rule % 64));
}

static bool constrains(struct decoder *d, uint32_t rule, enum ta_field f)
{
	return (d->head.field_mask & (1u << f)) &&
	       !has_bit(bitvec(d, d->head.wildcard[f]), rule);
}

/* ---- exact and prefix fields: walk the hash or LPM keys of the slot ---- */

/* How to read one kind of field-map key: whether it belongs to the slot
 * (and is well formed), and what it says about a rule it matches. */
struct key_kind {
	size_t size;
	bool (*in_slot)(const void *key, uint32_t slot);
	void (*apply)(struct ta_rule_spec *r, enum ta_field f, const void *key);
};

static void decode_keys(struct decoder *d, int fd, enum ta_field f,
			const struct key_kind *kind)
{
	uint8_t key[sizeof(struct ta_key_ip)], next[sizeof(key)];
	void *prev = NULL;
	__u32 index;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, kind->size);
		prev = key;
		if (!kind->in_slot(key, d->slot) || bpf_map_lookup_elem(fd, key, &index))
			continue;
		for (uint32_t i = 0; i < d->spec->nr_rules; i++) {
			struct ta_rule_spec *r = &d->spec->rules[i];

			if (!constrains(d, i, f) || !has_bit(bitvec(d, index), i))
				continue;
			kind->apply(r, f, key);
			r->fields |= 1u << f;
		}
	}
}

static bool key16_in_slot(const void *key, uint32_t slot)
{
	return ((const struct ta_key16 *)key)->slot == slot;
}

static void key16_apply(struct ta_rule_spec *r, enum ta_field f, const void *key)
{
	uint16_t value = (uint16_t)((const struct ta_key16 *)key)->value;

	if (f == TA_F_VLAN)
		r->vlan = value;
	else
		r->ethertype = value;
}

static bool mac_in_slot(const void *key, uint32_t slot)
{
	return ((const struct ta_key_mac *)key)->slot == slot;
}

static void mac_apply(struct ta_rule_spec *r, enum ta_field f, const void *key)
{
	const struct ta_key_mac *k = key;

	memcpy(f == TA_F_SRC_MAC ? r->src_mac : r->dst_mac, k->addr, 6);
}

/* The prefix of an LPM key, if the key is one the compiler writes: its
 * family byte must agree with the family its address spells. */
static bool key_prefix(const struct ta_key_ip *key, struct ta_prefix *p)
{
	if (key->prefixlen < 16 || key->prefixlen > 16 + 128)
		return false;
	memcpy(p->addr, key->addr, 16);
	p->prefixlen = (uint8_t)(key->prefixlen - 16);
	if (key->family == TA_FAMILY_IP4)
		return ta_prefix_is_ip4(p);
	return key->family == TA_FAMILY_IP6 && !ta_prefix_is_ip4(p);
}

static bool ip_in_slot(const void *key, uint32_t slot)
{
	struct ta_prefix p;

	return ((const struct ta_key_ip *)key)->slot == slot && key_prefix(key, &p);
}

static void ip_apply(struct ta_rule_spec *r, enum ta_field f, const void *key)
{
	struct ta_prefix *p = f == TA_F_SRC_IP ? &r->src_ip : &r->dst_ip;
	struct ta_prefix kp;

	key_prefix(key, &kp);
	/* More specific keys of other rules carry this rule's bit too. */
	if ((r->fields & (1u << f)) && p->prefixlen <= kp.prefixlen)
		return;
	*p = kp;
}

static const struct key_kind key16_kind = {
	sizeof(struct ta_key16), key16_in_slot, key16_apply
};
static const struct key_kind mac_kind = {
	sizeof(struct ta_key_mac), mac_in_slot, mac_apply
};
static const struct key_kind ip_kind = {
	sizeof(struct ta_key_ip), ip_in_slot, ip_apply
};

/* ---- ranged fields: one run of values per rule --------------------------- */

static int read_array(int fd, uint32_t first, uint32_t n, __u32 *values)
{
	for (uint32_t v = 0; v < n; v++) {
		__u32 key = first + v;

		if (bpf_map_lookup_elem(fd, &key, &values[v]))
			return -errno;
	}
	return 0;
}

static void set_range(struct ta_rule_spec *r, enum ta_field f, uint32_t lo, uint32_t hi)
{
	switch (f) {
	case TA_F_IP_PROTO:
		r->ip_proto = (uint8_t)lo;
		break;
	case TA_F_ICMP_TYPE:
		r->icmp_type = (uint8_t)lo;
		break;
	case TA_F_SRC_PORT:
		r->sport_lo = (uint16_t)lo;
		r->sport_hi = (uint16_t)hi;
		break;
	default:
		r->dport_lo = (uint16_t)lo;
		r->dport_hi = (uint16_t)hi;
		break;
	}
}

static int decode_ranged(struct decoder *d, int fd, enum ta_field f, uint32_t space)
{
	uint32_t *lo, *hi;
	__u32 *values;
	int err;

	values = calloc(space, sizeof(*values));
	lo = malloc(TA_MAX_RULES * sizeof(*lo));
	hi = calloc(TA_MAX_RULES, sizeof(*hi));
	err = values && lo && hi ? read_array(fd, d->slot * space, space, values) : -ENOMEM;
	if (err)
		goto out;
	memset(lo, 0xff, TA_MAX_RULES * sizeof(*lo));
	/* Values come in runs that share a set; a rule's range spans its runs. */
	for (uint32_t start = 0, end; start < space; start = end) {
		const struct ta_bitvec *bv = bitvec(d, values[start]);

		for (end = start + 1; end < space && values[end] == values[start]; end++)
			;
		for (uint32_t i = 0; i < d->spec->nr_rules; i++) {
			if (!has_bit(bv, i) || !constrains(d, i, f))
				continue;
			if (lo[i] == UINT32_MAX)
				lo[i] = start;
			hi[i] = end - 1;
		}
	}
	for (uint32_t i = 0; i < d->spec->nr_rules; i++) {
		if (lo[i] == UINT32_MAX)
			continue;
		d->spec->rules[i].fields |= 1u << f;
		set_range(&d->spec->rules[i], f, lo[i], hi[i]);
	}
out:
	free(values);
	free(lo);
	free(hi);
	return err;
}

/* ---- the rest -------------------------------------------------------------- */

static void dev_name(uint32_t ifindex, char name[IF_NAMESIZE])
{
	if (!if_indextoname(ifindex, name))
		snprintf(name, IF_NAMESIZE, "#%u", ifindex);
}

static int decode_actions(struct decoder *d)
{
	struct ta_policy_spec *s = d->spec;

	s->rules = calloc(d->head.nr_rules ? d->head.nr_rules : 1, sizeof(*s->rules));
	if (!s->rules)
		return -ENOMEM;
	s->nr_rules = d->head.nr_rules;
	for (uint32_t i = 0; i < s->nr_rules; i++) {
		struct ta_rule_action ra;
		__u32 key = d->slot * TA_MAX_RULES + i;

		if (bpf_map_lookup_elem(d->maps->ta_rules, &key, &ra))
			return -errno;
		s->rules[i].action = ra.action;
		s->rules[i].ifindex = ra.ifindex;
		if (ra.action == TA_ACT_REDIRECT)
			dev_name(ra.ifindex, s->rules[i].redirect_dev);
	}
	s->default_action = d->head.default_action;
	s->default_ifindex = d->head.default_ifindex;
	if (s->default_action == TA_ACT_REDIRECT)
		dev_name(s->default_ifindex, s->default_dev);
	s->digest = d->head.digest;
	return 0;
}

/* Hash maps have no order; sorted output is stable and comparable. */
static int cmp_ip4(const void *a, const void *b)
{
	return memcmp(a, b, 4);
}

static int cmp_ip6(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

static int cmp_fdb(const void *a, const void *b)
{
	return memcmp(((const struct ta_fdb_spec *)a)->mac, ((const struct ta_fdb_spec *)b)->mac, 6);
}

static int decode_guard(const struct ta_maps *m, struct ta_guard_spec *g)
{
	struct ta_guard guard;
	struct ta_ip6 k6, n6, *p6 = NULL;
	__u32 k4, n4, *p4 = NULL, zero = 0;

	if (bpf_map_lookup_elem(m->ta_guard, &zero, &guard))
		return -errno;
	g->flags = guard.flags;
	memcpy(g->mac, guard.mac, 6);
	while (g->nr_ip4 < TA_MAX_GUARD_ADDRS && !bpf_map_get_next_key(m->ta_guard_ip4, p4, &n4)) {
		g->ip4[g->nr_ip4++] = n4;
		k4 = n4;
		p4 = &k4;
	}
	while (g->nr_ip6 < TA_MAX_GUARD_ADDRS && !bpf_map_get_next_key(m->ta_guard_ip6, p6, &n6)) {
		memcpy(g->ip6[g->nr_ip6++], n6.addr, 16);
		k6 = n6;
		p6 = &k6;
	}
	qsort(g->ip4, g->nr_ip4, sizeof(g->ip4[0]), cmp_ip4);
	qsort(g->ip6, g->nr_ip6, sizeof(g->ip6[0]), cmp_ip6);
	return 0;
}

static int decode_rate(const struct ta_maps *m, struct ta_rate_spec *r)
{
	struct ta_rate rate;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(m->ta_rate, &zero, &rate))
		return -errno;
	r->pps = rate.pps;
	r->bps = rate.bps;
	r->burst_pkts = rate.burst_pkts;
	r->burst_bytes = rate.burst_bytes;
	return 0;
}

static int decode_fdb(const struct ta_maps *m, struct ta_policy_spec *s)
{
	struct ta_mac key, next, *prev = NULL;
	__u32 ifindex;

	s->fdb = calloc(TA_MAX_FDB, sizeof(*s->fdb));
	if (!s->fdb)
		return -ENOMEM;
	while (s->nr_fdb < TA_MAX_FDB && !bpf_map_get_next_key(m->ta_fdb, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(m->ta_fdb, &key, &ifindex))
			continue;
		memcpy(s->fdb[s->nr_fdb].mac, key.addr, 6);
		s->fdb[s->nr_fdb].ifindex = ifindex;
		dev_name(ifindex, s->fdb[s->nr_fdb].dev);
		s->nr_fdb++;
	}
	qsort(s->fdb, s->nr_fdb, sizeof(s->fdb[0]), cmp_fdb);
	return 0;
}

static int decode_rules(struct decoder *d)
{
	const struct ta_maps *m = d->maps;
	int err;

	decode_keys(d, m->ta_vlan, TA_F_VLAN, &key16_kind);
	decode_keys(d, m->ta_src_mac, TA_F_SRC_MAC, &mac_kind);
	decode_keys(d, m->ta_dst_mac, TA_F_DST_MAC, &mac_kind);
	decode_keys(d, m->ta_ethertype, TA_F_ETHERTYPE, &key16_kind);
	decode_keys(d, m->ta_src_ip, TA_F_SRC_IP, &ip_kind);
	decode_keys(d, m->ta_dst_ip, TA_F_DST_IP, &ip_kind);
	err = decode_ranged(d, m->ta_ip_proto, TA_F_IP_PROTO, TA_BYTE_SPACE);
	if (!err && (d->head.field_mask & (1u << TA_F_SRC_PORT)))
		err = decode_ranged(d, m->ta_src_port, TA_F_SRC_PORT, TA_PORT_SPACE);
	if (!err && (d->head.field_mask & (1u << TA_F_DST_PORT)))
		err = decode_ranged(d, m->ta_dst_port, TA_F_DST_PORT, TA_PORT_SPACE);
	if (!err)
		err = decode_ranged(d, m->ta_icmp_type, TA_F_ICMP_TYPE, TA_BYTE_SPACE);
	return err;
}

int ta_policy_decode(const struct ta_maps *maps, struct ta_policy_spec *spec)
{
	struct decoder d = { .maps = maps, .spec = spec };
	struct ta_config cfg;
	__u32 zero = 0;
	int err;

	memset(spec, 0, sizeof(*spec));
	if (bpf_map_lookup_elem(maps->ta_config, &zero, &cfg))
		return -errno;
	d.slot = cfg.active_slot % TA_SLOTS;
	if (bpf_map_lookup_elem(maps->ta_policy, &d.slot, &d.head))
		return -errno;
	if (d.head.nr_rules > TA_MAX_RULES)
		return -EPROTO;
	d.bv = malloc(TA_SLOTS * TA_MAX_BITVECS * sizeof(*d.bv));
	d.bv_loaded = calloc(TA_SLOTS * TA_MAX_BITVECS, 1);
	err = d.bv && d.bv_loaded ? decode_actions(&d) : -ENOMEM;
	if (!err)
		err = decode_rules(&d);
	if (!err)
		err = decode_guard(maps, &spec->guard);
	if (!err)
		err = decode_rate(maps, &spec->rate);
	if (!err)
		err = decode_fdb(maps, spec);
	free(d.bv);
	free(d.bv_loaded);
	if (err)
		ta_policy_spec_free(spec);
	return err;
}

int ta_policy_active(const struct ta_maps *maps, uint32_t *slot, struct ta_policy *pol)
{
	struct ta_config cfg;
	__u32 key = 0;

	if (bpf_map_lookup_elem(maps->ta_config, &key, &cfg))
		return -errno;
	*slot = cfg.active_slot;
	if (bpf_map_lookup_elem(maps->ta_policy, slot, pol))
		return -errno;
	return 0;
}
