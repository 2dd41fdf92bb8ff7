/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * install.h - one version of a policy into its maps: compiled
 * (policy/compile.h), placed in the plane's shared arrays and written at
 * a version index of its per-version maps (bpf/tap_accel.h). Which version
 * frames use is not decided here (policies.h flips it).
 */
#ifndef TA_PLANE_INSTALL_H
#define TA_PLANE_INSTALL_H

#include <stdint.h>

#include "../policy/spec.h"
#include "maps.h"

/*
 * Compile `spec` (its redirect and fdb ports given) and install it as
 * `version`: its maps, its header, its fdb statements. The spec is checked
 * and compiled in memory first, so one that does not fit (-E2BIG, -ENOSPC)
 * or is invalid (-EINVAL) fails before any map is touched. 0 or -errno.
 */
int ta_version_write(const struct ta_maps *maps, uint32_t version,
		     const struct ta_policy_spec *spec);

/* Remove what `version` holds: its maps, header and fdb statements. */
int ta_version_clear(const struct ta_maps *maps, uint32_t version);

/* The fdb statements of `version`: up to `max` MACs and their ports. */
int ta_version_fdb(const struct ta_maps *maps, uint32_t version,
		   struct ta_mac *macs, uint32_t *ports, uint32_t max, uint32_t *count);

#endif /* TA_PLANE_INSTALL_H */
