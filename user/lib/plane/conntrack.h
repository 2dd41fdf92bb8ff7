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

#include "../policy/ct_settings.h"
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
	uint32_t room;	    /* entries less TA_CT_HEADROOM: the highest limit */
	uint32_t tap_limit; /* 0: none */
	struct ta_ct_config cfg; /* as the program reads it */
};
int ta_conns_use(const struct ta_plane *pl, struct ta_conns_use *use);

/* The timeout of connection state `conn` in nanoseconds: ta_ct_config's,
 * else Linux conntrack's default. */
uint64_t ta_conn_timeout_ns(const struct ta_plane *pl, uint32_t conn);

/* The connections the program counts for tap id `tap` (TA_MAX_TAPS: the
 * host's). 0 or -errno. */
int ta_conns_tracked(const struct ta_plane *pl, uint32_t tap, uint32_t *tracked);

/*
 * Write the settings `s` gives into ta_ct_config, in one update. With
 * `reset`, what `s` does not give takes its default (the agent: agent.conf
 * says all of them); else it stays as it is. Refused, with nothing
 * written: a max or tap-limit past the table's room (its size less
 * TA_CT_HEADROOM), a tap-limit above max. *was (when not NULL) gets the
 * configuration before. 0, or -errno with `e`.
 */
int ta_ct_settings_apply(const struct ta_plane *pl, const struct ta_ct_settings *s, bool reset,
			 struct ta_ct_config *was, struct ta_error *e);

/* An address of a key: IPv4 (v4-mapped) as such, else IPv6; buf of 64. */
const char *ta_ct_addr_text(const uint8_t addr[16], char *buf, size_t size);

/* A refusal of ta_ct_events as one line, without the tap's name: "the
 * tap's limit (tap-limit 4), 4 tracked: udp 10.0.0.1:1000 <-> 10.0.0.2:53". */
const char *ta_ct_event_text(const struct ta_ct_event *ev, char *buf, size_t size);

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
