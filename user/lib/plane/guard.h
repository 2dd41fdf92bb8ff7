/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * guard.h - a tap's guard addresses: the guest's IPv4 and IPv6 addresses
 * in ta_guard_ip4 and ta_guard_ip6, keyed by tap id (its MAC and which
 * checks are on sit in its binding, struct ta_tap). The guard as text is
 * policy/guard_parse.h's.
 */
#ifndef TA_GUARD_H
#define TA_GUARD_H

#include <stdint.h>

#include "../policy/spec.h"
#include "plane.h"

/* Make tap `id`'s addresses exactly those of `g` (NULL: none). The new
 * ones are added before the others go, so that a guest never loses an
 * address it keeps. 0 or -errno. */
int ta_guard_write(const struct ta_plane *pl, uint32_t id, const struct ta_guard_spec *g);

/* Tap `id`'s addresses into g (sorted); flags and MAC are left as they
 * are. 0 or -errno. */
int ta_guard_read(const struct ta_plane *pl, uint32_t id, struct ta_guard_spec *g);

#endif /* TA_GUARD_H */
