// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * decode.c - read a version of a policy back out of its maps into a
 * struct ta_policy_spec, the inverse of install.c, so that `policy show`
 * prints what the program really runs (decode.h).
 *
 * It relies only on the layout of tap_accel.h: a rule constrains a field
 * unless it is in the field's wildcard set; it accepts a field value when
 * its bit is set in the set that value maps to. An exact field has one
 * key with the rule's bit, a prefix field the rule's prefix as its
 * shortest key with the bit, a ranged field one run of values.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../policy/parse.h"
#include "decode.h"
#include "install.h"
#include "ports.h"

struct decoder {
	const struct ta_plane *pl;
	uint32_t version;
	struct ta_policy head;
	struct ta_policy_spec *spec;
	struct ta_bitvec *bv; /* the version's bit-vectors, read once */
	uint32_t nr_bv;
};

/* The version's map of `outer`, opened; -ENOENT if it has none. */
static int version_map(const struct decoder *d, int outer)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(outer, &d->version, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

/* A bit-vector of the version, by its ta_bitvecs index. */
static const struct ta_bitvec *bitvec(const struct decoder *d, uint32_t index)
{
	static const struct ta_bitvec empty;

	index -= d->head.bitvec_base;
	return index < d->nr_bv ? &d->bv[index] : &empty;
}

static bool has_bit(const struct ta_bitvec *bv, uint32_t rule)
{
	return bv->word[rule / 64] & (1ull << (rule % 64));
}

static bool constrains(const struct decoder *d, uint32_t rule, enum ta_field f)
{
	return (d->head.field_mask & (1u << f)) &&
	       !has_bit(bitvec(d, d->head.wildcard[f]), rule);
}

static int read_bitvecs(struct decoder *d)
{
	d->nr_bv = d->head.nr_bitvecs;
	d->bv = calloc(d->nr_bv ?: 1, sizeof(*d->bv));
	if (!d->bv)
		return -ENOMEM;
	for (__u32 i = 0; i < d->nr_bv; i++) {
		__u32 key = d->head.bitvec_base + i;

		if (bpf_map_lookup_elem(d->pl->maps.ta_bitvecs, &key, &d->bv[i]))
			return -errno;
	}
	return 0;
}

/* ---- exact and prefix fields: walk the keys of the field's map ---------- */

/* What one kind of field-map key says about a rule it matches, and whether
 * it is one the compiler writes. */
struct key_kind {
	size_t size;
	bool (*valid)(const void *key);
	void (*apply)(struct ta_rule_spec *r, enum ta_field f, const void *key);
};

static int decode_keys(struct decoder *d, enum ta_field f, const struct key_kind *kind)
{
	uint8_t key[sizeof(struct ta_key_ip)], next[sizeof(key)];
	void *prev = NULL;
	__u32 index;
	int fd;

	if (!(d->head.field_mask & (1u << f)))
		return 0;
	fd = version_map(d, ta_maps_field(&d->pl->maps, f));
	if (fd < 0)
		return fd;
	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, kind->size);
		prev = key;
		if (!kind->valid(key) || bpf_map_lookup_elem(fd, key, &index))
			continue;
		for (uint32_t i = 0; i < d->spec->nr_rules; i++) {
			struct ta_rule_spec *r = &d->spec->rules[i];

			if (!constrains(d, i, f) || !has_bit(bitvec(d, index), i))
				continue;
			kind->apply(r, f, key);
			r->fields |= 1u << f;
		}
	}
	close(fd);
	return 0;
}

static bool any_valid(const void *key)
{
	(void)key;
	return true;
}

static void value_apply(struct ta_rule_spec *r, enum ta_field f, const void *key)
{
	uint16_t value = (uint16_t) * (const __u32 *)key;

	if (f == TA_F_VLAN)
		r->vlan = value;
	else
		r->ethertype = value;
}

static void mac_apply(struct ta_rule_spec *r, enum ta_field f, const void *key)
{
	const struct ta_mac *k = key;

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

static bool ip_valid(const void *key)
{
	struct ta_prefix p;

	return key_prefix(key, &p);
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

static const struct key_kind value_kind = {sizeof(__u32), any_valid, value_apply};
static const struct key_kind mac_kind = {sizeof(struct ta_mac), any_valid, mac_apply};
static const struct key_kind ip_kind = {sizeof(struct ta_key_ip), ip_valid, ip_apply};

/* ---- ranged fields: one run of values per rule --------------------------- */

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

static uint32_t table_of(const struct decoder *d, enum ta_field f)
{
	switch (f) {
	case TA_F_IP_PROTO:
		return d->head.proto_table;
	case TA_F_ICMP_TYPE:
		return d->head.icmp_table;
	case TA_F_SRC_PORT:
		return d->head.sport_table;
	default:
		return d->head.dport_table;
	}
}

/* Every value's bit-vector, the port pages unfolded. */
static int read_values(const struct decoder *d, enum ta_field f, uint32_t space,
		       uint32_t *values)
{
	bool ports = f == TA_F_SRC_PORT || f == TA_F_DST_PORT;
	uint32_t table = table_of(d, f);
	int fd = d->pl->maps.ta_tables;
	__u32 entry, key;

	for (uint32_t v = 0; v < space; v += ports ? 256 : 1) {
		key = table + (ports ? v >> 8 : v);
		if (bpf_map_lookup_elem(fd, &key, &entry))
			return -errno;
		if (!ports) {
			values[v] = entry;
		} else if (!(entry & TA_PORT_PAGE)) {
			for (int i = 0; i < 256; i++)
				values[v + i] = entry;
		} else {
			for (int i = 0; i < 256; i++) {
				key = table + TA_PORT_DIR + (entry & ~TA_PORT_PAGE) * 256 + i;
				if (bpf_map_lookup_elem(fd, &key, &values[v + i]))
					return -errno;
			}
		}
	}
	return 0;
}

static int decode_ranged(struct decoder *d, enum ta_field f, uint32_t space)
{
	uint32_t *values, *lo, *hi;
	int err;

	if (!(d->head.field_mask & (1u << f)))
		return 0;
	values = calloc(space, sizeof(*values));
	lo = malloc(TA_MAX_RULES * sizeof(*lo));
	hi = calloc(TA_MAX_RULES, sizeof(*hi));
	err = values && lo && hi ? read_values(d, f, space, values) : -ENOMEM;
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

static void port_dev(const struct decoder *d, uint32_t port, char dev[IF_NAMESIZE],
		     uint32_t *ifindex)
{
	char name[64];

	ta_port_name(d->pl, port, name, ifindex);
	snprintf(dev, IF_NAMESIZE, "%.*s", IF_NAMESIZE - 1, name);
}

static int decode_actions(struct decoder *d)
{
	struct ta_policy_spec *s = d->spec;

	s->rules = calloc(d->head.nr_rules ?: 1, sizeof(*s->rules));
	if (!s->rules)
		return -ENOMEM;
	s->nr_rules = d->head.nr_rules;
	for (__u32 i = 0; i < s->nr_rules; i++) {
		struct ta_rule_action ra;
		__u32 key = d->head.rule_base + i;

		if (bpf_map_lookup_elem(d->pl->maps.ta_rules, &key, &ra))
			return -errno;
		s->rules[i].action = ra.action;
		s->rules[i].port = ra.port;
		if (ra.action == TA_ACT_REDIRECT)
			port_dev(d, ra.port, s->rules[i].redirect_dev, &s->rules[i].ifindex);
	}
	s->default_action = d->head.default_action;
	s->default_port = d->head.default_port;
	if (s->default_action == TA_ACT_REDIRECT)
		port_dev(d, s->default_port, s->default_dev, &s->default_ifindex);
	s->digest = d->head.digest;
	s->rate.pps = d->head.pps;
	s->rate.bps = d->head.bps;
	s->rate.burst_pkts = d->head.burst_pkts;
	s->rate.burst_bytes = d->head.burst_bytes;
	return 0;
}

static int cmp_fdb(const void *a, const void *b)
{
	return memcmp(((const struct ta_fdb_spec *)a)->mac, ((const struct ta_fdb_spec *)b)->mac, 6);
}

static int decode_fdb(struct decoder *d)
{
	struct ta_policy_spec *s = d->spec;
	struct ta_mac macs[TA_MAX_FDB];
	uint32_t ports[TA_MAX_FDB], nr;
	int err = ta_version_fdb(&d->pl->maps, d->version, macs, ports, TA_MAX_FDB, &nr);

	if (err)
		return err;
	s->fdb = calloc(nr ?: 1, sizeof(*s->fdb));
	if (!s->fdb)
		return -ENOMEM;
	for (s->nr_fdb = 0; s->nr_fdb < nr; s->nr_fdb++) {
		struct ta_fdb_spec *f = &s->fdb[s->nr_fdb];

		memcpy(f->mac, macs[s->nr_fdb].addr, 6);
		f->port = ports[s->nr_fdb];
		port_dev(d, f->port, f->dev, &f->ifindex);
	}
	qsort(s->fdb, s->nr_fdb, sizeof(s->fdb[0]), cmp_fdb);
	return 0;
}

/* A two-way version: each rule's directions and states, the default in,
 * and which rules the parser added. */
static void decode_two_way(struct decoder *d)
{
	struct ta_policy_spec *s = d->spec;

	if (!(d->head.ct_flags & TA_POL_F_CT))
		return;
	s->default_in_action = d->head.default_in_action;
	s->default_in_set = true;
	for (uint32_t i = 0; i < s->nr_rules; i++) {
		struct ta_rule_spec *r = &s->rules[i];

		for (uint32_t dir = 0; dir < TA_DIR_MAX; dir++)
			if (has_bit(bitvec(d, d->head.dir_bitvec[dir]), i))
				r->dirs |= 1u << dir;
		for (uint32_t st = 0; st < TA_CT_STATE_MAX; st++)
			if (has_bit(bitvec(d, d->head.state_bitvec[st]), i))
				r->states |= 1u << st;
		if (r->states == TA_STATES_ALL)
			r->states = 0; /* no state match */
	}
	ta_policy_mark_implicit(s);
}

static int decode_rules(struct decoder *d)
{
	int err;

	if (!d->head.nr_rules) {
		decode_two_way(d);
		return 0;
	}
	err = read_bitvecs(d);
	err = err ?: decode_keys(d, TA_F_VLAN, &value_kind);
	err = err ?: decode_keys(d, TA_F_SRC_MAC, &mac_kind);
	err = err ?: decode_keys(d, TA_F_DST_MAC, &mac_kind);
	err = err ?: decode_keys(d, TA_F_ETHERTYPE, &value_kind);
	err = err ?: decode_keys(d, TA_F_SRC_IP, &ip_kind);
	err = err ?: decode_keys(d, TA_F_DST_IP, &ip_kind);
	err = err ?: decode_ranged(d, TA_F_IP_PROTO, TA_BYTE_SPACE);
	err = err ?: decode_ranged(d, TA_F_SRC_PORT, TA_PORT_SPACE);
	err = err ?: decode_ranged(d, TA_F_DST_PORT, TA_PORT_SPACE);
	err = err ?: decode_ranged(d, TA_F_ICMP_TYPE, TA_BYTE_SPACE);
	if (!err)
		decode_two_way(d);
	return err;
}

/* The version's head into d, spec emptied: 0 or -errno. */
static int decoder_start(struct decoder *d)
{
	memset(d->spec, 0, sizeof(*d->spec));
	if (bpf_map_lookup_elem(d->pl->maps.ta_policy, &d->version, &d->head))
		return -errno;
	return d->head.nr_rules > TA_MAX_RULES ? -EPROTO : 0;
}

int ta_policy_decode(const struct ta_plane *pl, uint32_t index, uint32_t slot,
		     struct ta_policy_spec *spec)
{
	struct decoder d = {.pl = pl, .spec = spec, .version = index * TA_SLOTS + slot};
	int err = decoder_start(&d);

	if (err)
		return err;
	err = decode_actions(&d);
	err = err ?: decode_rules(&d);
	err = err ?: decode_fdb(&d);
	free(d.bv);
	if (err)
		ta_policy_spec_free(spec);
	return err;
}

int ta_policy_decode_actions(const struct ta_plane *pl, uint32_t index, uint32_t slot,
			     struct ta_policy_spec *spec)
{
	struct decoder d = {.pl = pl, .spec = spec, .version = index * TA_SLOTS + slot};
	int err = decoder_start(&d);

	if (err)
		return err;
	err = decode_actions(&d);
	if (err)
		ta_policy_spec_free(spec);
	return err;
}
