/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * inlinks.h - the program of what goes to a guest (tap_accel_in_tc) on
 * the taps whose policy is two-way: a tcx egress link pinned beside the
 * tap's XDP link where the kernel has tcx (6.6), else a filter on the
 * tap's clsact egress. Taps of one-way policies get none: their frames
 * in cost nothing. Attached where the tap is bound, and by a policy load
 * anywhere that makes its policy two-way.
 */
#ifndef TA_PLANE_INLINKS_H
#define TA_PLANE_INLINKS_H

#include <stdbool.h>

#include "plane.h"

struct ta_tap_key;

/* The pin of a tap's tcx link: TA_LINK_DIR/COOKIE:IFINDEX:in. */
void ta_in_link_path(const struct ta_tap_key *key, char *buf, size_t size);

/* Whether the version policy `index` runs now judges frames in. */
bool ta_policy_is_two_way(const struct ta_plane *pl, uint32_t index);

/* Attach the in program to the tap `key` of this namespace, if it has
 * none yet. 0, or -errno with `e`. */
int ta_in_attach(const struct ta_plane *pl, const struct ta_tap_key *key, const char *ifname,
		 struct ta_error *e);

/* Take it off again (either kind); a tap without one is fine. */
void ta_in_detach(const struct ta_plane *pl, const struct ta_tap_key *key);

/* Attach it to every live tap bound to policy `index` (after the policy
 * became two-way): taps bound from another network namespace from there,
 * found by its cookie. 0, or -errno with `e`. */
int ta_in_attach_policy(const struct ta_plane *pl, uint32_t index, struct ta_error *e);

/* Take it off every tap bound to policy `index` (after the policy became
 * one-way), wherever they are. 0, or -errno with `e`. */
int ta_in_detach_policy(const struct ta_plane *pl, uint32_t index, struct ta_error *e);

#endif /* TA_PLANE_INLINKS_H */
