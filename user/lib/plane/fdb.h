/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * fdb.h - a tap's forwarding entries (ta_fdb, keyed by tap id and
 * destination MAC): added by hand, or copied from the fdb statements of
 * the policy version it is bound to.
 */
#ifndef TA_FDB_H
#define TA_FDB_H

#include <stdint.h>

#include "plane.h"

/* One entry to `port` (ta_port_get()): -EINVAL for a group address or no
 * port. 0 or -errno. */
int ta_fdb_add(const struct ta_plane *pl, uint32_t id, const uint8_t mac[6], uint32_t port);
/* 0, -ENOENT if tap `id` has no entry for `mac`, or -errno. */
int ta_fdb_del(const struct ta_plane *pl, uint32_t id, const uint8_t mac[6]);
/* Up to `max` entries of tap `id`, sorted by MAC. 0 or -errno. */
int ta_fdb_read(const struct ta_plane *pl, uint32_t id, struct ta_mac *macs, uint32_t *ports,
		uint32_t max, uint32_t *count);

/* Make the fdb of each of the `nr` taps the fdb statements of `version`:
 * their entries added, the taps' others removed. 0 or -errno. */
int ta_fdb_sync(const struct ta_plane *pl, const uint32_t *ids, uint32_t nr, uint32_t version);
/* Remove every entry of tap `id`. 0 or -errno. */
int ta_fdb_clear(const struct ta_plane *pl, uint32_t id);

#endif /* TA_FDB_H */
