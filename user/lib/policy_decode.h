/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * policy_decode.h - the active policy of a running instance, read back
 * from its maps (what `tap-accel policy show` prints).
 */
#ifndef TA_POLICY_DECODE_H
#define TA_POLICY_DECODE_H

#include "policy.h"

/*
 * Fill `spec` with the rules, default, guard, rate and fdb the instance
 * runs now; interface names are looked up from their ifindex ("#N" if
 * gone). Line positions and the source text are not kept in the maps, so
 * pos is 0. 0 or -errno; free with ta_policy_spec_free().
 */
int ta_policy_decode(const struct ta_maps *maps, struct ta_policy_spec *spec);

/* The active slot and its policy header. 0 or -errno. */
int ta_policy_active(const struct ta_maps *maps, uint32_t *slot, struct ta_policy *pol);

#endif /* TA_POLICY_DECODE_H */
