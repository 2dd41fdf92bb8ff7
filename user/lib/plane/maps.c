// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * maps.c - find the plane's maps by name and check them against the
 * layout of tap_accel.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "maps.h"

struct map_desc {
	const char *name;
	size_t offset; /* of the fd in struct ta_maps */
	enum bpf_map_type type;
	unsigned int key_size, value_size, max_entries;
};

#define MAP(name, type, key, value, entries)                                   \
	{ #name, offsetof(struct ta_maps, name), BPF_MAP_TYPE_##type, key,     \
	  value, entries }
#define VERSION_MAP(name) MAP(name, ARRAY_OF_MAPS, 4, 4, TA_MAX_VERSIONS)
#define SPARSE_HASH(name, key, value, entries) MAP(name, HASH, key, value, entries)

/* ta_config first: it holds the layout version, checked before the rest. */
static const struct map_desc map_descs[] = {
	MAP(ta_config, ARRAY, 4, sizeof(struct ta_config), 1),
	MAP(ta_policy_active, ARRAY, 4, 4, TA_MAX_POLICIES),
	MAP(ta_policy, ARRAY, 4, sizeof(struct ta_policy), TA_MAX_VERSIONS),
	MAP(ta_policy_names, ARRAY, 4, sizeof(struct ta_policy_name), TA_MAX_POLICIES),
	MAP(ta_rules, ARRAY, 4, sizeof(struct ta_rule_action), TA_RULE_HEAP),
	MAP(ta_bitvecs, ARRAY, 4, sizeof(struct ta_bitvec), TA_BITVEC_HEAP),
	MAP(ta_tables, ARRAY, 4, 4, TA_TABLE_HEAP),
	VERSION_MAP(ta_vlan),
	VERSION_MAP(ta_src_mac),
	VERSION_MAP(ta_dst_mac),
	VERSION_MAP(ta_ethertype),
	VERSION_MAP(ta_src_ip),
	VERSION_MAP(ta_dst_ip),
	MAP(ta_tap_index, ARRAY, 4, sizeof(struct ta_tap_ref), TA_TAP_INDEX),
	SPARSE_HASH(ta_taps, sizeof(struct ta_tap_key), sizeof(struct ta_tap_ref), TA_MAX_TAPS),
	MAP(ta_tap_slots, ARRAY, 4, sizeof(struct ta_tap), TA_MAX_TAPS * 2),
	SPARSE_HASH(ta_guard_ip4, sizeof(struct ta_guard_ip4_key), 1, TA_MAX_GUARD_ENTRIES),
	SPARSE_HASH(ta_guard_ip6, sizeof(struct ta_guard_ip6_key), 1, TA_MAX_GUARD_ENTRIES),
	SPARSE_HASH(ta_fdb, sizeof(struct ta_fdb_key), 4, TA_MAX_FDB_ENTRIES),
	MAP(ta_ports, DEVMAP_HASH, 4, 4, TA_MAX_PORTS),
	SPARSE_HASH(ta_port_keys, sizeof(struct ta_tap_key), 4, TA_MAX_PORTS),
	SPARSE_HASH(ta_policy_fdb, sizeof(struct ta_policy_fdb_key), 4,
		    TA_MAX_POLICY_FDB_ENTRIES),
	SPARSE_HASH(ta_tap_info, 4, sizeof(struct ta_tap_info), TA_MAX_TAPS),
	MAP(ta_counters, ARRAY_OF_MAPS, 4, 4, TA_MAX_COUNTER_CHUNKS),
	SPARSE_HASH(ta_counter_blocks, 4, 4, TA_MAX_COUNTER_BLOCKS),
	MAP(ta_sync, ARRAY_OF_MAPS, 4, 4, 1),
	/* sized by the host (plane.h): any size */
	MAP(ta_ct, LRU_HASH, sizeof(struct ta_ct_key), sizeof(struct ta_ct_entry), 0),
	MAP(ta_ct_config, ARRAY, 4, sizeof(struct ta_ct_config), 1),
	MAP(ta_ct_taps, ARRAY, 4, sizeof(struct ta_ct_tap), TA_MAX_TAPS + 1),
	MAP(ta_ct_frags, LRU_HASH, sizeof(struct ta_ct_frag_key), sizeof(struct ta_ct_frag),
	    TA_CT_FRAG_ENTRIES),
	MAP(ta_ct_events, RINGBUF, 0, 0, TA_CT_EVENT_RING),
};

#define NR_MAPS (sizeof(map_descs) / sizeof(map_descs[0]))

static int *fd_of(struct ta_maps *maps, const struct map_desc *d)
{
	return (int *)((char *)maps + d->offset);
}

int ta_maps_field(const struct ta_maps *maps, int field)
{
	return (&maps->ta_vlan)[field];
}

static void maps_reset(struct ta_maps *maps)
{
	for (size_t i = 0; i < NR_MAPS; i++)
		*fd_of(maps, &map_descs[i]) = -1;
}

void ta_maps_close(struct ta_maps *maps)
{
	for (size_t i = 0; i < NR_MAPS; i++) {
		int *fd = fd_of(maps, &map_descs[i]);

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

int ta_maps_from_object(const struct bpf_object *obj, struct ta_maps *maps,
			struct ta_error *e)
{
	maps_reset(maps);
	for (size_t i = 0; i < NR_MAPS; i++) {
		const struct map_desc *d = &map_descs[i];
		const struct bpf_map *map = bpf_object__find_map_by_name(obj, d->name);
		int fd = map ? bpf_map__fd(map) : -1;

		if (fd < 0 || (fd = dup(fd)) < 0) {
			ta_maps_close(maps);
			return ta_error_system(e, ENOENT,
					       "map %s is not in the loaded program (a build of "
					       "another version?)", d->name);
		}
		*fd_of(maps, d) = fd;
	}
	return 0;
}

int ta_maps_pin(const struct ta_maps *maps, const char *dir)
{
	char path[512];

	for (size_t i = 0; i < NR_MAPS; i++) {
		const struct map_desc *d = &map_descs[i];

		snprintf(path, sizeof(path), "%s/%s", dir, d->name);
		if (bpf_obj_pin(*fd_of((struct ta_maps *)maps, d), path))
			return -errno;
	}
	return 0;
}

static int check_map(int fd, const struct map_desc *d, struct ta_error *e)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return ta_error_errno(e, errno, "map %s: cannot read its info", d->name);
	/* The counter maps grow with their enums: reading past the end of a
	 * smaller pin would fail midway, so sizes must match too. */
	if (info.type != d->type || info.key_size != d->key_size ||
	    info.value_size != d->value_size ||
	    (d->max_entries && info.max_entries != d->max_entries))
		return ta_error_input(e, EPROTO,
				      "map %s: type %u key %u value %u entries %u, expected type %u "
				      "key %u value %u entries %u (pinned by another version of "
				      "tap-accel?)",
				      d->name, info.type, info.key_size, info.value_size,
				      info.max_entries, d->type, d->key_size, d->value_size,
				      d->max_entries);
	return 0;
}

static int check_layout(const struct ta_maps *maps, struct ta_error *e)
{
	struct ta_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(maps->ta_config, &zero, &cfg))
		return ta_error_errno(e, errno, "map ta_config");
	if (cfg.layout_version != TA_LAYOUT_VERSION)
		return ta_error_input(e, EPROTO,
				      "map ta_config: layout version %u, this build uses %u",
				      cfg.layout_version, TA_LAYOUT_VERSION);
	return 0;
}

int ta_maps_open_pinned(const char *dir, struct ta_maps *maps, struct ta_error *e)
{
	char path[512];
	int ret = 0;

	maps_reset(maps);
	for (size_t i = 0; i < NR_MAPS && !ret; i++) {
		const struct map_desc *d = &map_descs[i];
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, d->name);
		fd = bpf_obj_get(path);
		if (fd < 0) {
			ret = errno == ENOENT ? ta_error_input(e, ENOENT, "%s is missing", path)
					      : ta_error_errno(e, errno, "cannot open %s", path);
			break;
		}
		*fd_of(maps, d) = fd;
		ret = check_map(fd, d, e);
		/* Right after ta_config: a pin of an older layout is named as
		 * such, not by the first map whose size changed. */
		if (!ret && i == 0)
			ret = check_layout(maps, e);
	}
	if (ret)
		ta_maps_close(maps);
	return ret;
}

/* The fallback of ta_hash_dump(): get_next_key and lookup for each key. */
static int hash_dump_keywise(int fd, uint32_t max, size_t key_size, size_t value_size,
			     char *keys, char *values, uint32_t *count)
{
	uint32_t n = 0;
	void *prev = NULL;

	while (n < max && !bpf_map_get_next_key(fd, prev, keys + n * key_size)) {
		prev = keys + n * key_size;
		if (bpf_map_lookup_elem(fd, prev, values + n * value_size))
			continue; /* deleted since: the next key follows it all the same */
		n++;
	}
	if (n < max && errno != ENOENT)
		return -errno;
	*count = n;
	return 0;
}

int ta_hash_dump(int fd, uint32_t max, size_t key_size, size_t value_size, void **keys,
		 void **values, uint32_t *count)
{
	char *k = malloc((size_t)(max ?: 1) * key_size), *v = malloc((size_t)(max ?: 1) * value_size);
	uint64_t token = 0;
	uint32_t n = max;
	int ret = 0;

	if (!k || !v) {
		ret = -ENOMEM;
		goto out;
	}
	/* Room for every entry: one batch returns all of them and ENOENT. */
	if (bpf_map_lookup_batch(fd, NULL, &token, k, v, &n, NULL) && errno == ENOENT)
		*count = n;
	else
		ret = hash_dump_keywise(fd, max, key_size, value_size, k, v, count);
out:
	if (!ret && keys) {
		*keys = k;
		k = NULL;
	}
	if (!ret && values) {
		*values = v;
		v = NULL;
	}
	free(k);
	free(v);
	return ret;
}
