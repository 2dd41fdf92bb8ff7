// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_compile.c - one version of a policy into maps of its own (the
 * layout is documented in bpf/tap_accel.h).
 *
 * Bit-vectors: for each field, a frame value maps to the set of rules that
 * accept it. Rules that do not constrain the field accept every value (the
 * wildcard set); the others add their bit to the values they name: the
 * exact value (VLAN, MAC, ethertype), every prefix their prefix contains
 * (LPM keys), or every value of their range (arrays, built per class of
 * values between range boundaries). Identical sets share one bit-vector.
 *
 * Every map of the version is created with as many entries as it holds,
 * and its ranges of the shared arrays are as long as it needs; a field no
 * rule uses takes nothing: a three-rule policy costs kilobytes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "policy_compile.h"

/* Kernel-internal errno of a batch operation a map type lacks. */
#define ENOTSUPP 524
#define BV_HASH_SIZE (2 * TA_MAX_BITVECS)
#define PORT_BLOCKS (TA_PORT_SPACE / 256)

/* ---- de-duplicated bit-vectors ------------------------------------------- */

struct bv_table {
	struct ta_bitvec vecs[TA_MAX_BITVECS];
	uint32_t hash[BV_HASH_SIZE]; /* index + 1, 0 = free */
	uint32_t nr;
};

static uint64_t bv_hash(const struct ta_bitvec *bv)
{
	uint64_t h = 1469598103934665603ull;

	for (int w = 0; w < TA_BV_WORDS; w++)
		h = (h ^ bv->word[w]) * 1099511628211ull;
	return h ^ (h >> 29);
}

/* The index of a set equal to bv, added if new; -ENOSPC if full. */
static int bv_intern(struct bv_table *t, const struct ta_bitvec *bv, uint32_t *index)
{
	uint32_t h = bv_hash(bv) % BV_HASH_SIZE;

	for (; t->hash[h]; h = (h + 1) % BV_HASH_SIZE) {
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

union field_key {
	__u32 value;
	struct ta_mac mac;
	struct ta_key_ip ip;
};

/* Entries of one hash or LPM field map. */
struct keyed {
	union field_key keys[TA_MAX_RULES];
	uint32_t values[TA_MAX_RULES];
	uint32_t nr;
};

/* Ports in two levels (tap_accel.h): the directory, then the pages. */
struct ports {
	uint32_t flat[TA_PORT_SPACE];
	uint32_t table[TA_PORT_DIR + TA_PORT_SPACE];
	uint32_t size; /* entries of table in use */
};

struct compiled {
	const struct ta_policy_spec *spec;
	struct ta_policy head;
	struct ta_bitvec wildcard[TA_F_MAX];
	struct bv_table bvs;
	struct keyed vlan, ethertype, src_mac, dst_mac, src_ip, dst_ip;
	uint32_t ip_proto[TA_BYTE_SPACE], icmp_type[TA_BYTE_SPACE];
	struct ports src_port, dst_port;
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
static void rule_key(const struct ta_rule_spec *r, enum ta_field f, union field_key *key)
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
static int compile_ranged(struct compiled *c, enum ta_field f, uint32_t space, uint32_t *out)
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
static int compile_ports(struct compiled *c, enum ta_field f, struct ports *p)
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

static void compile_head(struct compiled *c)
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

static int compile(struct compiled *c)
{
	const struct ta_policy_spec *spec = c->spec;
	int ret;

	if (spec->nr_rules > TA_MAX_RULES)
		return -E2BIG;
	if (!action_valid(spec->default_action, spec->default_port))
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
	if (!spec->nr_rules)
		return 0;
	ret = compile_wildcards(c);
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

/* ---- the shared arrays: ranges ----------------------------------------- */

enum heap { HEAP_RULES, HEAP_BITVECS, HEAP_TABLES, NR_HEAPS };

static const uint32_t heap_size[NR_HEAPS] = {TA_RULE_HEAP, TA_BITVEC_HEAP, TA_TABLE_HEAP};

struct range {
	uint32_t start, len;
};

/* The ranges every version but `skip` holds. */
struct heaps {
	struct range *used[NR_HEAPS];
	uint32_t nr[NR_HEAPS];
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void heaps_free(struct heaps *h)
{
	for (int i = 0; i < NR_HEAPS; i++)
		free(h->used[i]);
}

static int heaps_read(const struct ta_maps *m, uint32_t skip, struct heaps *h)
{
	struct ta_policy head;

	memset(h, 0, sizeof(*h));
	for (int i = 0; i < NR_HEAPS; i++) {
		h->used[i] = malloc(TA_MAX_VERSIONS * sizeof(*h->used[i]));
		if (!h->used[i]) {
			heaps_free(h);
			return -ENOMEM;
		}
	}
	for (__u32 v = 0; v < TA_MAX_VERSIONS; v++) {
		struct range r[NR_HEAPS];

		if (v == skip)
			continue;
		if (bpf_map_lookup_elem(m->ta_policy, &v, &head)) {
			heaps_free(h);
			return -errno;
		}
		r[HEAP_RULES] = (struct range){head.rule_base, head.nr_rules};
		r[HEAP_BITVECS] = (struct range){head.bitvec_base, head.nr_bitvecs};
		r[HEAP_TABLES] = (struct range){head.table_base, head.table_len};
		for (int i = 0; i < NR_HEAPS; i++)
			if (r[i].len)
				h->used[i][h->nr[i]++] = r[i];
	}
	for (int i = 0; i < NR_HEAPS; i++)
		qsort(h->used[i], h->nr[i], sizeof(struct range), cmp_range);
	return 0;
}

/* The first gap of `len` entries; -ENOSPC if none. */
static int heap_alloc(const struct heaps *h, enum heap which, uint32_t len, uint32_t *base)
{
	uint32_t at = 0;

	*base = 0;
	if (!len)
		return 0;
	for (uint32_t i = 0; i < h->nr[which]; i++) {
		const struct range *r = &h->used[which][i];

		if (r->start >= at + len)
			break;
		if (r->start + r->len > at)
			at = r->start + r->len;
	}
	if (at + len > heap_size[which])
		return -ENOSPC;
	*base = at;
	return 0;
}

/* ---- writing ---------------------------------------------------------------- */

/* n entries in one call where the map supports batches, else one by one. */
static int map_write(int fd, const void *keys, size_t key_size, const void *values,
		     size_t value_size, uint32_t n)
{
	uint32_t count = n;

	if (!n)
		return 0;
	if (!bpf_map_update_batch(fd, keys, values, &count, NULL))
		return 0;
	/* EINVAL: no batch commands in this kernel at all */
	if (errno != EINVAL && errno != ENOTSUPP && errno != EOPNOTSUPP)
		return -errno;
	for (uint32_t i = 0; i < n; i++)
		if (bpf_map_update_elem(fd, (const char *)keys + i * key_size,
					(const char *)values + i * value_size, BPF_ANY))
			return -errno;
	return 0;
}

/* Keys first..first+n-1 of an array map. */
static int array_write(int fd, uint32_t first, const void *values, size_t value_size,
		       uint32_t n)
{
	uint32_t *keys = malloc((n ?: 1) * sizeof(*keys));
	int ret;

	if (!keys)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		keys[i] = first + i;
	ret = map_write(fd, keys, sizeof(*keys), values, value_size, n);
	free(keys);
	return ret;
}

/* Make `fd` the version's map in `outer` (or none, fd < 0). */
static int outer_set(int outer, uint32_t version, int fd)
{
	if (fd < 0)
		return bpf_map_delete_elem(outer, &version) && errno != ENOENT ? -errno : 0;
	return bpf_map_update_elem(outer, &version, &fd, BPF_ANY) ? -errno : 0;
}

static bool uses(const struct compiled *c, enum ta_field f)
{
	return c->head.field_mask & (1u << f);
}

/* A hash or LPM map of the version, filled, installed (or none). */
static int install_keyed(const struct ta_maps *m, uint32_t version, enum ta_field f,
			 const struct keyed *k, uint32_t bv_base, bool used)
{
	static const char *const names[] = {"ta_vlan",	    "ta_src_mac", "ta_dst_mac",
					    "ta_ethertype", "ta_src_ip",  "ta_dst_ip"};
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	bool lpm = is_ip_field(f);
	size_t key_size = lpm ? sizeof(struct ta_key_ip)
			  : f == TA_F_SRC_MAC || f == TA_F_DST_MAC ? sizeof(struct ta_mac)
								    : sizeof(__u32);
	uint32_t values[TA_MAX_RULES];
	char *keys = NULL;
	int fd, ret;

	if (!used)
		return outer_set(ta_maps_field(m, f), version, -1);
	fd = bpf_map_create(lpm ? BPF_MAP_TYPE_LPM_TRIE : BPF_MAP_TYPE_HASH, names[f], key_size,
			    sizeof(__u32), k->nr ?: 1, &opts);
	if (fd < 0)
		return -errno;
	/* pack the union-sized keys to the map's key size */
	keys = malloc((k->nr ?: 1) * key_size);
	ret = keys ? 0 : -ENOMEM;
	for (uint32_t i = 0; !ret && i < k->nr; i++) {
		memcpy(keys + i * key_size, &k->keys[i], key_size);
		values[i] = bv_base + k->values[i];
	}
	ret = ret ?: map_write(fd, keys, key_size, values, sizeof(values[0]), k->nr);
	ret = ret ?: outer_set(ta_maps_field(m, f), version, fd);
	free(keys);
	close(fd);
	return ret;
}

/* A value table, its bit-vector indices made absolute. */
static void table_put(uint32_t *out, const uint32_t *in, uint32_t n, uint32_t bv_base)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = bv_base + in[i];
}

/* A port table: directory entries of whole blocks hold bit-vectors, the
 * others page numbers, which stay as they are. */
static void ports_put(uint32_t *out, const struct ports *p, uint32_t bv_base)
{
	for (uint32_t i = 0; i < TA_PORT_DIR; i++)
		out[i] = p->table[i] & TA_PORT_PAGE ? p->table[i] : p->table[i] + bv_base;
	table_put(out + TA_PORT_DIR, p->table + TA_PORT_DIR, p->size - TA_PORT_DIR, bv_base);
}

/* The version's value tables, one block: [proto][icmp][sport][dport], each
 * where its field is used. Fills the header's table fields. */
static uint32_t *tables_build(struct compiled *c, uint32_t bv_base, uint32_t *len)
{
	uint32_t size = (uses(c, TA_F_IP_PROTO) ? TA_BYTE_SPACE : 0) +
			(uses(c, TA_F_ICMP_TYPE) ? TA_BYTE_SPACE : 0) +
			(uses(c, TA_F_SRC_PORT) ? c->src_port.size : 0) +
			(uses(c, TA_F_DST_PORT) ? c->dst_port.size : 0);
	uint32_t *t = malloc((size ?: 1) * sizeof(*t)), at = 0;

	*len = size;
	if (!t)
		return NULL;
	if (uses(c, TA_F_IP_PROTO)) {
		c->head.proto_table = c->head.table_base + at;
		table_put(t + at, c->ip_proto, TA_BYTE_SPACE, bv_base);
		at += TA_BYTE_SPACE;
	}
	if (uses(c, TA_F_ICMP_TYPE)) {
		c->head.icmp_table = c->head.table_base + at;
		table_put(t + at, c->icmp_type, TA_BYTE_SPACE, bv_base);
		at += TA_BYTE_SPACE;
	}
	if (uses(c, TA_F_SRC_PORT)) {
		c->head.sport_table = c->head.table_base + at;
		ports_put(t + at, &c->src_port, bv_base);
		at += c->src_port.size;
	}
	if (uses(c, TA_F_DST_PORT)) {
		c->head.dport_table = c->head.table_base + at;
		ports_put(t + at, &c->dst_port, bv_base);
	}
	return t;
}

/* Where the version's data goes in the shared arrays. */
static int place(const struct ta_maps *m, uint32_t version, struct compiled *c)
{
	uint32_t len = (uses(c, TA_F_IP_PROTO) ? TA_BYTE_SPACE : 0) +
		       (uses(c, TA_F_ICMP_TYPE) ? TA_BYTE_SPACE : 0) +
		       (uses(c, TA_F_SRC_PORT) ? c->src_port.size : 0) +
		       (uses(c, TA_F_DST_PORT) ? c->dst_port.size : 0);
	struct heaps h;
	int ret = heaps_read(m, version, &h);

	ret = ret ?: heap_alloc(&h, HEAP_RULES, c->head.nr_rules, &c->head.rule_base);
	ret = ret ?: heap_alloc(&h, HEAP_BITVECS, c->bvs.nr, &c->head.bitvec_base);
	ret = ret ?: heap_alloc(&h, HEAP_TABLES, len, &c->head.table_base);
	c->head.nr_bitvecs = c->bvs.nr;
	c->head.table_len = len;
	heaps_free(&h);
	return ret;
}

static int write_shared(const struct ta_maps *m, struct compiled *c)
{
	uint32_t bv_base = c->head.bitvec_base, len;
	uint32_t *tables = tables_build(c, bv_base, &len);
	int ret;

	if (!tables)
		return -ENOMEM;
	for (int f = 0; f < TA_F_MAX; f++)
		c->head.wildcard[f] += bv_base;
	ret = array_write(m->ta_rules, c->head.rule_base, c->rules, sizeof(c->rules[0]),
			  c->head.nr_rules);
	ret = ret ?: array_write(m->ta_bitvecs, bv_base, c->bvs.vecs, sizeof(struct ta_bitvec),
				 c->bvs.nr);
	ret = ret ?: array_write(m->ta_tables, c->head.table_base, tables, sizeof(*tables), len);
	free(tables);
	return ret;
}

/* ---- the fdb statements of a version, for the taps bound to it ---------- */

static int fdb_records_clear(const struct ta_maps *m, uint32_t version)
{
	struct ta_policy_fdb_key key, next, *prev = NULL;

	while (!bpf_map_get_next_key(m->ta_policy_fdb, prev, &next)) {
		if (next.version == version) {
			if (bpf_map_delete_elem(m->ta_policy_fdb, &next) && errno != ENOENT)
				return -errno;
			prev = NULL; /* deleted: restart the walk */
			continue;
		}
		key = next;
		prev = &key;
	}
	return 0;
}

static int fdb_records_write(const struct ta_maps *m, uint32_t version,
			     const struct ta_policy_spec *spec)
{
	int ret = fdb_records_clear(m, version);

	for (uint32_t i = 0; !ret && i < spec->nr_fdb; i++) {
		struct ta_policy_fdb_key key = {.version = version};

		memcpy(key.mac.addr, spec->fdb[i].mac, 6);
		if (bpf_map_update_elem(m->ta_policy_fdb, &key, &spec->fdb[i].port, BPF_ANY))
			ret = -errno;
	}
	return ret;
}

int ta_version_fdb(const struct ta_maps *maps, uint32_t version, struct ta_mac *macs,
		   uint32_t *ports, uint32_t max, uint32_t *count)
{
	struct ta_policy_fdb_key key, next, *prev = NULL;

	*count = 0;
	while (!bpf_map_get_next_key(maps->ta_policy_fdb, prev, &next)) {
		key = next;
		prev = &key;
		if (key.version != version || *count == max)
			continue;
		if (bpf_map_lookup_elem(maps->ta_policy_fdb, &key, &ports[*count]))
			continue; /* deleted meanwhile */
		macs[(*count)++] = key.mac;
	}
	return errno == ENOENT ? 0 : -errno;
}

/* ---- a version ---------------------------------------------------------------- */

int ta_version_write(const struct ta_maps *maps, uint32_t version,
		     const struct ta_policy_spec *spec)
{
	struct compiled *c = calloc(1, sizeof(*c));
	int ret;

	if (!c)
		return -ENOMEM;
	c->spec = spec;
	ret = compile(c);
	ret = ret ?: place(maps, version, c);
	ret = ret ?: write_shared(maps, c);
	for (int f = 0; !ret && f <= TA_F_DST_IP; f++) {
		static const size_t keyed[] = {
			[TA_F_VLAN] = offsetof(struct compiled, vlan),
			[TA_F_SRC_MAC] = offsetof(struct compiled, src_mac),
			[TA_F_DST_MAC] = offsetof(struct compiled, dst_mac),
			[TA_F_ETHERTYPE] = offsetof(struct compiled, ethertype),
			[TA_F_SRC_IP] = offsetof(struct compiled, src_ip),
			[TA_F_DST_IP] = offsetof(struct compiled, dst_ip),
		};

		ret = install_keyed(maps, version, f,
				    (const struct keyed *)((const char *)c + keyed[f]),
				    c->head.bitvec_base, uses(c, f));
	}
	ret = ret ?: fdb_records_write(maps, version, spec);
	if (!ret && bpf_map_update_elem(maps->ta_policy, &version, &c->head, BPF_ANY))
		ret = -errno;
	free(c);
	return ret;
}

int ta_version_clear(const struct ta_maps *maps, uint32_t version)
{
	struct ta_policy empty = {};
	int ret = 0;

	for (int f = 0; !ret && f <= TA_F_DST_IP; f++)
		ret = outer_set(ta_maps_field(maps, f), version, -1);
	ret = ret ?: fdb_records_clear(maps, version);
	/* its ranges of the shared arrays are free once the header is */
	if (!ret && bpf_map_update_elem(maps->ta_policy, &version, &empty, BPF_ANY))
		ret = -errno;
	return ret;
}
