/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * conntrack.h - the host's connection table (ta_ct, bpf/tap_accel.h) as
 * user space reads and clears it: the connections of a zone, and the
 * per-tap counts the program keeps, written again after a flush.
 */
#ifndef TA_PLANE_CONNTRACK_H
#define TA_PLANE_CONNTRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "plane.h"

struct ta_conn {
	struct ta_ct_key key;
	struct ta_ct_entry e;
};

/* Every connection in the table (live or expired, as the table holds
 * them); *conns is the caller's to free. 0 or -errno. */
int ta_conns_read(const struct ta_plane *pl, struct ta_conn **conns, uint32_t *count);

/* The table's use: connections the program counts for the host, the
 * limit new ones stop at, and the table's size in entries (each about
 * TA_CT_ENTRY_BYTES of kernel memory, taken when the plane was made). */
struct ta_conns_use {
	uint32_t tracked, limit, entries;
};
int ta_conns_use(const struct ta_plane *pl, struct ta_conns_use *use);

/* The timeout of connection state `conn` in nanoseconds: ta_ct_config's,
 * else Linux conntrack's default. */
uint64_t ta_conn_timeout_ns(const struct ta_plane *pl, uint32_t conn);

/* The zone of a bound tap's connections: its ct_zone, else its id. */
static inline uint16_t ta_tap_zone(const struct ta_tap *tap)
{
	return tap->ct_zone ? tap->ct_zone : (uint16_t)tap->id;
}

/* Delete every connection of `zone`, then write every tap's count (and
 * the host's) again from what is left: *deleted says how many went.
 * 0 or -errno. */
int ta_conns_flush_zone(const struct ta_plane *pl, uint16_t zone, uint32_t *deleted);

/* Delete every connection the taps `ids` made (and write the counts
 * again), when any has one counted: a tap id, once free, is the next
 * tap's, and so is its zone; the connections of the guest it served must
 * not let anything in to the next one. 0 or -errno. */
int ta_conns_forget_taps(const struct ta_plane *pl, const uint32_t *ids, uint32_t n);

/* The connection as its opener sent it: source and destination address
 * and port (host order; an echo's identifier for both ports). */
void ta_conn_ends(const struct ta_conn *c, const uint8_t **src, const uint8_t **dst,
		  uint16_t *sport, uint16_t *dport);

#endif /* TA_PLANE_CONNTRACK_H */
