// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* fdb.c - a tap's forwarding entries (fdb.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fdb.h"
#include "install.h"
#include "maps.h"

int ta_fdb_add(const struct ta_plane *pl, uint32_t id, const uint8_t mac[6], uint32_t port)
{
	struct ta_fdb_key key = {.tap = id};

	/* the program forwards unicast only: a group address never matches */
	if (mac[0] & 1 || !port)
		return -EINVAL;
	memcpy(key.mac.addr, mac, 6);
	return bpf_map_update_elem(pl->maps.ta_fdb, &key, &port, BPF_ANY) ? -errno : 0;
}

int ta_fdb_del(const struct ta_plane *pl, uint32_t id, const uint8_t mac[6])
{
	struct ta_fdb_key key = {.tap = id};

	memcpy(key.mac.addr, mac, 6);
	return bpf_map_delete_elem(pl->maps.ta_fdb, &key) ? -errno : 0;
}

static int cmp_mac(const void *a, const void *b)
{
	return memcmp(a, b, 6);
}

/* Every key of ta_fdb and its port, in one batch: the fdb is of all taps,
 * and syncing a thousand taps reads it once. */
struct fdb_keys {
	struct ta_fdb_key *keys;
	uint32_t *ports;
	uint32_t nr;
};

static int keys_read(const struct ta_plane *pl, struct fdb_keys *all)
{
	return ta_hash_dump(pl->maps.ta_fdb, TA_MAX_FDB_ENTRIES, sizeof(*all->keys),
			    sizeof(*all->ports), (void **)&all->keys, (void **)&all->ports,
			    &all->nr);
}

static void keys_free(struct fdb_keys *all)
{
	free(all->keys);
	free(all->ports);
}

int ta_fdb_read(const struct ta_plane *pl, uint32_t id, struct ta_mac *macs, uint32_t *ports,
		uint32_t max, uint32_t *count)
{
	struct {
		struct ta_mac mac;
		uint32_t port;
	} *mine = calloc(max ?: 1, sizeof(*mine));
	struct fdb_keys all;
	int err;

	if (!mine)
		return -ENOMEM;
	err = keys_read(pl, &all);
	if (err) {
		free(mine);
		return err;
	}
	*count = 0;
	for (uint32_t k = 0; k < all.nr && *count < max; k++)
		if (all.keys[k].tap == id) {
			mine[*count].mac = all.keys[k].mac;
			mine[(*count)++].port = all.ports[k];
		}
	keys_free(&all);
	qsort(mine, *count, sizeof(*mine), cmp_mac);
	for (uint32_t i = 0; i < *count; i++) {
		macs[i] = mine[i].mac;
		ports[i] = mine[i].port;
	}
	free(mine);
	return 0;
}

static int sync_one(const struct ta_plane *pl, uint32_t id, const struct fdb_keys *all,
		    const struct ta_mac *macs, const uint32_t *ports, uint32_t nr)
{
	int err;

	for (uint32_t i = 0; i < nr; i++) {
		err = ta_fdb_add(pl, id, macs[i].addr, ports[i]);
		if (err)
			return err;
	}
	for (uint32_t k = 0; k < all->nr; k++) {
		bool listed = false;

		if (all->keys[k].tap != id)
			continue;
		for (uint32_t i = 0; i < nr && !listed; i++)
			listed = !memcmp(macs[i].addr, all->keys[k].mac.addr, 6);
		if (!listed && bpf_map_delete_elem(pl->maps.ta_fdb, &all->keys[k]) &&
		    errno != ENOENT)
			return -errno;
	}
	return 0;
}

int ta_fdb_sync(const struct ta_plane *pl, const uint32_t *ids, uint32_t nr_ids,
		uint32_t version)
{
	static struct ta_mac macs[TA_MAX_FDB];
	static uint32_t ports[TA_MAX_FDB];
	struct fdb_keys all;
	uint32_t nr;
	int err;

	if (!nr_ids)
		return 0;
	err = ta_version_fdb(&pl->maps, version, macs, ports, TA_MAX_FDB, &nr);
	err = err ?: keys_read(pl, &all);
	if (err)
		return err;
	for (uint32_t i = 0; !err && i < nr_ids; i++)
		err = sync_one(pl, ids[i], &all, macs, ports, nr);
	keys_free(&all);
	return err;
}

int ta_fdb_clear(const struct ta_plane *pl, uint32_t id)
{
	struct fdb_keys all;
	int err = keys_read(pl, &all);

	if (err)
		return err;
	err = sync_one(pl, id, &all, NULL, NULL, 0);
	keys_free(&all);
	return err;
}
