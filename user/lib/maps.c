// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * maps.c - find a program instance's maps by name and check them against
 * the layout of tap_accel.h.
 */
#include <errno.h>
#include <stdio.h>
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
	{                                                                      \
		#name, offsetof(struct ta_maps, name), BPF_MAP_TYPE_##type,    \
			key, value, entries                                    \
	}

#define FIELD_ENTRIES (TA_SLOTS * TA_MAX_FIELD_ENTRIES)

/* ta_config first: it holds the layout version, checked before the rest. */
static const struct map_desc map_descs[] = {
	MAP(ta_config, ARRAY, 4, sizeof(struct ta_config), 1),
	MAP(ta_owner, ARRAY, 4, sizeof(struct ta_owner), 1),
	MAP(ta_policy, ARRAY, 4, sizeof(struct ta_policy), TA_SLOTS),
	MAP(ta_rules, ARRAY, 4, sizeof(struct ta_rule_action),
	    TA_SLOTS * TA_MAX_RULES),
	MAP(ta_bitvecs, ARRAY, 4, sizeof(struct ta_bitvec),
	    TA_SLOTS * TA_MAX_BITVECS),
	MAP(ta_vlan, HASH, sizeof(struct ta_key16), 4, FIELD_ENTRIES),
	MAP(ta_ethertype, HASH, sizeof(struct ta_key16), 4, FIELD_ENTRIES),
	MAP(ta_src_mac, HASH, sizeof(struct ta_key_mac), 4, FIELD_ENTRIES),
	MAP(ta_dst_mac, HASH, sizeof(struct ta_key_mac), 4, FIELD_ENTRIES),
	MAP(ta_src_ip, LPM_TRIE, sizeof(struct ta_key_ip), 4, FIELD_ENTRIES),
	MAP(ta_dst_ip, LPM_TRIE, sizeof(struct ta_key_ip), 4, FIELD_ENTRIES),
	MAP(ta_ip_proto, ARRAY, 4, 4, TA_SLOTS * TA_BYTE_SPACE),
	MAP(ta_icmp_type, ARRAY, 4, 4, TA_SLOTS * TA_BYTE_SPACE),
	MAP(ta_src_port, ARRAY, 4, 4, TA_SLOTS * TA_PORT_SPACE),
	MAP(ta_dst_port, ARRAY, 4, 4, TA_SLOTS * TA_PORT_SPACE),
	MAP(ta_fdb, HASH, sizeof(struct ta_mac), 4, TA_MAX_FDB),
	MAP(ta_ports, DEVMAP_HASH, 4, 4, TA_MAX_PORTS),
	MAP(ta_guard, ARRAY, 4, sizeof(struct ta_guard), 1),
	MAP(ta_guard_ip4, HASH, 4, 1, TA_MAX_GUARD_ADDRS),
	MAP(ta_guard_ip6, HASH, sizeof(struct ta_ip6), 1, TA_MAX_GUARD_ADDRS),
	MAP(ta_rate, ARRAY, 4, sizeof(struct ta_rate), 1),
	MAP(ta_st_verdict, PERCPU_ARRAY, 4, sizeof(struct ta_counter),
	    TA_NR_VERDICTS),
	MAP(ta_st_rule, PERCPU_ARRAY, 4, sizeof(struct ta_counter),
	    TA_SLOTS * TA_RULE_STAT_SLOT),
	MAP(ta_st_guard, PERCPU_ARRAY, 4, sizeof(struct ta_counter),
	    TA_GUARD_MAX),
	MAP(ta_st_parse, PERCPU_ARRAY, 4, sizeof(struct ta_counter),
	    TA_PARSE_MAX),
	MAP(ta_st_event, PERCPU_ARRAY, 4, sizeof(struct ta_counter), TA_EV_MAX),
	MAP(ta_sync, ARRAY_OF_MAPS, 4, 4, 1),
};

#define NR_MAPS (sizeof(map_descs) / sizeof(map_descs[0]))

static int *fd_of(struct ta_maps *maps, const struct map_desc *d)
{
	return (int *)((char *)maps + d->offset);
}

static void maps_reset(struct ta_maps *maps)
{
	size_t i;

	for (i = 0; i < NR_MAPS; i++)
		*fd_of(maps, &map_descs[i]) = -1;
}

int ta_maps_set_owner(const struct ta_maps *maps, const struct ta_owner *owner)
{
	__u32 zero = 0;

	return bpf_map_update_elem(maps->ta_owner, &zero, owner, 0) ? -errno : 0;
}

void ta_maps_close(struct ta_maps *maps)
{
	size_t i;

	for (i = 0; i < NR_MAPS; i++) {
		int *fd = fd_of(maps, &map_descs[i]);

		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

int ta_maps_from_object(const struct bpf_object *obj, struct ta_maps *maps,
			char *err, size_t errlen)
{
	size_t i;

	maps_reset(maps);
	for (i = 0; i < NR_MAPS; i++) {
		const struct map_desc *d = &map_descs[i];
		const struct bpf_map *map;
		int fd;

		map = bpf_object__find_map_by_name(obj, d->name);
		fd = map ? bpf_map__fd(map) : -ENOENT;
		if (fd >= 0)
			fd = dup(fd);
		if (fd < 0) {
			fd = fd == -1 ? -errno : fd;
			snprintf(err, errlen, "map %s: %s (not in the object?)",
				 d->name, strerror(-fd));
			ta_maps_close(maps);
			return fd;
		}
		*fd_of(maps, d) = fd;
	}
	return 0;
}

static int check_map(int fd, const struct map_desc *d, char *err, size_t errlen)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
		snprintf(err, errlen, "map %s: cannot read its info: %s",
			 d->name, strerror(errno));
		return -errno;
	}
	if (info.type != d->type || info.key_size != d->key_size ||
	    info.value_size != d->value_size) {
		snprintf(err, errlen,
			 "map %s: type %u key %u value %u, expected type %u "
			 "key %u value %u (pinned by another version? detach "
			 "and attach again)",
			 d->name, info.type, info.key_size, info.value_size,
			 d->type, d->key_size, d->value_size);
		return -EPROTO;
	}
	/* The counter maps grow with their enums (ta_st_parse by a class):
	 * reading past the end of a smaller pin would fail midway. */
	if (info.max_entries != d->max_entries) {
		snprintf(err, errlen,
			 "map %s: %u entries, expected %u (pinned by another "
			 "version? detach and attach again)",
			 d->name, info.max_entries, d->max_entries);
		return -EPROTO;
	}
	return 0;
}

static int check_layout(const struct ta_maps *maps, char *err, size_t errlen)
{
	struct ta_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(maps->ta_config, &zero, &cfg)) {
		snprintf(err, errlen, "map ta_config: %s", strerror(errno));
		return -errno;
	}
	if (cfg.layout_version != TA_LAYOUT_VERSION) {
		snprintf(err, errlen,
			 "map ta_config: layout version %u, this build uses %u "
			 "(detach and attach again)",
			 cfg.layout_version, TA_LAYOUT_VERSION);
		return -EPROTO;
	}
	return 0;
}

int ta_maps_open_pinned(const char *dir, struct ta_maps *maps, char *err,
			size_t errlen)
{
	char path[4096];
	size_t i;
	int ret;

	maps_reset(maps);
	for (i = 0; i < NR_MAPS; i++) {
		const struct map_desc *d = &map_descs[i];
		int fd;

		if (snprintf(path, sizeof(path), "%s/%s", dir, d->name) >=
		    (int)sizeof(path)) {
			snprintf(err, errlen, "%s: path too long", dir);
			ret = -ENAMETOOLONG;
			goto fail;
		}
		fd = bpf_obj_get(path);
		if (fd < 0) {
			ret = -errno;
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			goto fail;
		}
		*fd_of(maps, d) = fd;
		ret = check_map(fd, d, err, errlen);
		/* Right after ta_config: a pin of an older layout is named as
		 * such, not by the first map whose size changed. */
		if (!ret && i == 0)
			ret = check_layout(maps, err, errlen);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	ta_maps_close(maps);
	return ret;
}

int ta_maps_init(const struct ta_maps *maps)
{
	struct ta_config cfg = {.layout_version = TA_LAYOUT_VERSION};
	__u32 zero = 0;

	return bpf_map_update_elem(maps->ta_config, &zero, &cfg, 0) ? -errno
								    : 0;
}
