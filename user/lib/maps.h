/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * maps.h - the file descriptors of one policy program instance's maps
 * (struct ta_maps, in policy.h), from a loaded object or from its pins.
 */
#ifndef TA_MAPS_H
#define TA_MAPS_H

#include <stddef.h>

#include "policy.h"

struct bpf_object;

/*
 * Every member of `maps` from the maps of `obj` (by name), duplicated so
 * that ta_maps_close() works the same for both sources. 0 or -errno
 * (-ENOENT: a map is missing) with a message in err.
 */
int ta_maps_from_object(const struct bpf_object *obj, struct ta_maps *maps,
			char *err, size_t errlen);

/*
 * Open every map pinned under `dir` by its name and check it against
 * tap_accel.h: ta_config.layout_version first, then every map's type, key
 * and value size and number of entries.
 * 0 or -errno with a message in err: -ENOENT (not pinned), -EPROTO (the
 * map does not have the layout this build expects).
 */
int ta_maps_open_pinned(const char *dir, struct ta_maps *maps, char *err,
			size_t errlen);

/* Mark freshly created maps with TA_LAYOUT_VERSION, slot 0 active. */
int ta_maps_init(const struct ta_maps *maps);

/* Record which tap (namespace and ifindex) the maps belong to. 0 or -errno. */
int ta_maps_set_owner(const struct ta_maps *maps, const struct ta_owner *owner);

/* Close every open descriptor and set it to -1. */
void ta_maps_close(struct ta_maps *maps);

#endif /* TA_MAPS_H */
