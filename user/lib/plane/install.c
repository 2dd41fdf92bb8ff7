// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * install.c - a compiled policy (policy/compile.h) into the plane's maps
 * as one version: its ranges of the shared arrays found and written, and
 * maps of its own for the keyed fields, each created with as many entries
 * as it holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "../policy/compile.h"
#include "install.h"

/* Kernel-internal errno of a batch operation a map type lacks. */
#define ENOTSUPP 524

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

/* A hash or LPM map of the version, filled, installed (or none). */
static int install_keyed(const struct ta_maps *m, uint32_t version, enum ta_field f,
			 const struct ta_keyed *k, uint32_t bv_base, bool used)
{
	static const char *const names[] = {"ta_vlan",	    "ta_src_mac", "ta_dst_mac",
					    "ta_ethertype", "ta_src_ip",  "ta_dst_ip"};
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
	bool lpm = ta_field_is_ip(f);
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
static void ports_put(uint32_t *out, const struct ta_port_table *p, uint32_t bv_base)
{
	for (uint32_t i = 0; i < TA_PORT_DIR; i++)
		out[i] = p->table[i] & TA_PORT_PAGE ? p->table[i] : p->table[i] + bv_base;
	table_put(out + TA_PORT_DIR, p->table + TA_PORT_DIR, p->size - TA_PORT_DIR, bv_base);
}

/* The version's value tables, one block: [proto][icmp][sport][dport], each
 * where its field is used. Fills the header's table fields. */
static uint32_t *tables_build(struct ta_compiled *c, uint32_t bv_base, uint32_t *len)
{
	uint32_t size = (ta_compiled_uses(c, TA_F_IP_PROTO) ? TA_BYTE_SPACE : 0) +
			(ta_compiled_uses(c, TA_F_ICMP_TYPE) ? TA_BYTE_SPACE : 0) +
			(ta_compiled_uses(c, TA_F_SRC_PORT) ? c->src_port.size : 0) +
			(ta_compiled_uses(c, TA_F_DST_PORT) ? c->dst_port.size : 0);
	uint32_t *t = malloc((size ?: 1) * sizeof(*t)), at = 0;

	*len = size;
	if (!t)
		return NULL;
	if (ta_compiled_uses(c, TA_F_IP_PROTO)) {
		c->head.proto_table = c->head.table_base + at;
		table_put(t + at, c->ip_proto, TA_BYTE_SPACE, bv_base);
		at += TA_BYTE_SPACE;
	}
	if (ta_compiled_uses(c, TA_F_ICMP_TYPE)) {
		c->head.icmp_table = c->head.table_base + at;
		table_put(t + at, c->icmp_type, TA_BYTE_SPACE, bv_base);
		at += TA_BYTE_SPACE;
	}
	if (ta_compiled_uses(c, TA_F_SRC_PORT)) {
		c->head.sport_table = c->head.table_base + at;
		ports_put(t + at, &c->src_port, bv_base);
		at += c->src_port.size;
	}
	if (ta_compiled_uses(c, TA_F_DST_PORT)) {
		c->head.dport_table = c->head.table_base + at;
		ports_put(t + at, &c->dst_port, bv_base);
	}
	return t;
}

/* Where the version's data goes in the shared arrays. */
static int place(const struct ta_maps *m, uint32_t version, struct ta_compiled *c)
{
	uint32_t len = (ta_compiled_uses(c, TA_F_IP_PROTO) ? TA_BYTE_SPACE : 0) +
		       (ta_compiled_uses(c, TA_F_ICMP_TYPE) ? TA_BYTE_SPACE : 0) +
		       (ta_compiled_uses(c, TA_F_SRC_PORT) ? c->src_port.size : 0) +
		       (ta_compiled_uses(c, TA_F_DST_PORT) ? c->dst_port.size : 0);
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

static int write_shared(const struct ta_maps *m, struct ta_compiled *c)
{
	uint32_t bv_base = c->head.bitvec_base, len;
	uint32_t *tables = tables_build(c, bv_base, &len);
	int ret;

	if (!tables)
		return -ENOMEM;
	for (int f = 0; f < TA_F_MAX; f++)
		c->head.wildcard[f] += bv_base;
	if ((c->head.ct_flags & TA_POL_F_CT) && c->head.nr_rules) {
		for (int d = 0; d < TA_DIR_MAX; d++)
			c->head.dir_bitvec[d] += bv_base;
		for (int st = 0; st < TA_CT_STATE_MAX; st++)
			c->head.state_bitvec[st] += bv_base;
	}
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

/* ---- two-way policies: generations and the redirect check --------------- */

/*
 * A generation no version holds: one more than the highest, and never
 * below four a second since 2020. Connections remember the generation
 * that accepted them, and the first reply under another one is judged
 * again, so it must differ from every version a tap could have run
 * before, this policy's or another's, even one unloaded since (whose
 * number the highest no longer shows).
 */
static int next_generation(const struct ta_maps *m, uint32_t *generation)
{
	uint32_t high = 0, floor = (uint32_t)((time(NULL) - 1577836800) * 4);
	struct ta_policy head;

	for (uint32_t v = 0; v < TA_MAX_VERSIONS; v++) {
		if (bpf_map_lookup_elem(m->ta_policy, &v, &head))
			return -errno;
		if (head.generation > high)
			high = head.generation;
	}
	*generation = high + 1;
	if (*generation < floor)
		*generation = floor;
	return 0;
}

/* TA_CT_CFG_F_IN while some version is two-way, so that a redirect checks
 * the receiver's in policy then and costs nothing more otherwise. */
static int ct_in_update(const struct ta_maps *m)
{
	struct ta_ct_config cfg;
	struct ta_policy head;
	uint32_t zero = 0, flags;
	bool any = false;

	for (uint32_t v = 0; v < TA_MAX_VERSIONS && !any; v++) {
		if (bpf_map_lookup_elem(m->ta_policy, &v, &head))
			return -errno;
		any = head.ct_flags & TA_POL_F_CT;
	}
	if (bpf_map_lookup_elem(m->ta_ct_config, &zero, &cfg))
		return -errno;
	flags = any ? cfg.flags | TA_CT_CFG_F_IN : cfg.flags & ~TA_CT_CFG_F_IN;
	if (flags == cfg.flags)
		return 0;
	cfg.flags = flags;
	return bpf_map_update_elem(m->ta_ct_config, &zero, &cfg, BPF_ANY) ? -errno : 0;
}

/* ---- a version ---------------------------------------------------------------- */

int ta_version_write(const struct ta_maps *maps, uint32_t version,
		     const struct ta_policy_spec *spec)
{
	struct ta_compiled *c;
	int ret = ta_policy_compile(spec, &c);

	if (ret)
		return ret;
	ret = place(maps, version, c);
	ret = ret ?: write_shared(maps, c);
	for (int f = 0; !ret && f <= TA_F_DST_IP; f++)
		ret = install_keyed(maps, version, f, ta_compiled_keyed(c, f), c->head.bitvec_base,
				    ta_compiled_uses(c, f));
	ret = ret ?: fdb_records_write(maps, version, spec);
	if (!ret && (c->head.ct_flags & TA_POL_F_CT))
		ret = next_generation(maps, &c->head.generation);
	if (!ret && bpf_map_update_elem(maps->ta_policy, &version, &c->head, BPF_ANY))
		ret = -errno;
	if (!ret && (c->head.ct_flags & TA_POL_F_CT))
		ret = ct_in_update(maps);
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
	return ret ?: ct_in_update(maps);
}
