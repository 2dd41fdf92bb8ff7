/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * maps.h - the file descriptors of the policy plane's maps (bpf/tap_accel.h),
 * from a freshly loaded object or from their pins, checked against the
 * layout this build expects.
 */
#ifndef TA_MAPS_H
#define TA_MAPS_H

#include "../../../bpf/tap_accel.h"
#include "../base/error.h"

struct bpf_object;

/* One member per map of the plane; the member names are the map names. */
struct ta_maps {
	int ta_config, ta_policy_active, ta_policy, ta_policy_names;
	int ta_rules, ta_bitvecs, ta_tables;
	/* per-version maps (ARRAY_OF_MAPS) of the exact and prefix fields,
	 * in the order of enum ta_field */
	int ta_vlan, ta_src_mac, ta_dst_mac, ta_ethertype, ta_src_ip, ta_dst_ip;
	int ta_tap_index, ta_taps, ta_tap_slots, ta_guard_ip4, ta_guard_ip6, ta_fdb, ta_ports, ta_port_keys;
	int ta_policy_fdb, ta_tap_info;
	int ta_counters, ta_counter_blocks, ta_sync;
	/* the connection table of two-way policies and what goes with it */
	int ta_ct, ta_ct_config, ta_ct_taps, ta_ct_frags, ta_ct_events;
};

/* The per-version map of exact or prefix field `field` (TA_F_VLAN to
 * TA_F_DST_IP). */
int ta_maps_field(const struct ta_maps *maps, int field);

/* Every member from the maps of `obj`, by name, duplicated so that
 * ta_maps_close() works the same for both sources. */
int ta_maps_from_object(const struct bpf_object *obj, struct ta_maps *maps,
			struct ta_error *e);

/*
 * Open every map pinned in `dir` by its name and check it against
 * tap_accel.h: ta_config.layout_version first, then every map's type, key
 * and value size and number of entries. 0, or -errno with `e`: the input's
 * fault when a pin is missing or of another layout (the message says what
 * to do), else the system's.
 */
int ta_maps_open_pinned(const char *dir, struct ta_maps *maps,
			struct ta_error *e);

/* Pin every map in `dir` by its name. 0 or -errno. */
int ta_maps_pin(const struct ta_maps *maps, const char *dir);

/*
 * Every key and value of hash map `fd`, which holds at most `max`: in one
 * BPF_MAP_LOOKUP_BATCH where the kernel has it, else key by key. *keys
 * and *values (NULL: not wanted) are the caller's to free. 0 or -errno.
 */
int ta_hash_dump(int fd, uint32_t max, size_t key_size, size_t value_size, void **keys,
		 void **values, uint32_t *count);

/* Close every open descriptor and set it to -1. */
void ta_maps_close(struct ta_maps *maps);

#endif /* TA_MAPS_H */
