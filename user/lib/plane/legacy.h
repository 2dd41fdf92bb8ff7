/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * legacy.h - what tap-accel before the policy plane (map layout 3) left in
 * the bpffs: a program instance per tap, pinned with all its maps in
 * TA_PIN_ROOT/net:INODE/IFACE (or TA_PIN_ROOT/IFACE, older still), with a
 * one-entry devmap `tap` that the kernel empties when the tap goes. After
 * an upgrade such instances keep judging their taps until detached.
 */
#ifndef TA_LEGACY_H
#define TA_LEGACY_H

#include <stdbool.h>

#include "../base/error.h"

/* Detach the old instance of tap `ifname` of this namespace, if it has
 * one, and remove its pins: 1 done, 0 none there, or -errno with `e`. */
int ta_legacy_detach(const char *ifname, struct ta_error *e);

/* Every old instance folder; fn gets its path and whether its tap still
 * exists. */
void ta_legacy_each(void (*fn)(const char *dir, bool alive, void *arg), void *arg);

/* Remove a folder of pins (never through a link). 0 or -errno. */
int ta_legacy_remove(const char *dir);

#endif /* TA_LEGACY_H */
