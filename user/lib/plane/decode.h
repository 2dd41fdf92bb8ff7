/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * decode.h - a version of a policy read back from its maps, the inverse
 * of install.h: what `policy show` prints and counters are labelled with
 * is what the program runs, not what a file once said.
 */
#ifndef TA_PLANE_DECODE_H
#define TA_PLANE_DECODE_H

#include <stdint.h>

#include "../policy/spec.h"
#include "plane.h"

/*
 * The rules, default, rate and fdb of version `slot` of policy `index`,
 * read back from its maps; interface names as this namespace sees them.
 * 0 or -errno; free with ta_policy_spec_free().
 */
int ta_policy_decode(const struct ta_plane *pl, uint32_t index, uint32_t slot,
		     struct ta_policy_spec *spec);

/* Only the actions of the rules and the default, and the digest: what
 * counters are labelled with. 0 or -errno. */
int ta_policy_decode_actions(const struct ta_plane *pl, uint32_t index, uint32_t slot,
			     struct ta_policy_spec *spec);

#endif /* TA_PLANE_DECODE_H */
