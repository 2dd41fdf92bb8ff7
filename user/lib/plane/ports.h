/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ports.h - redirect targets. A rule, a default or an fdb entry names its
 * egress by a port: a number the loader gives each target device on the
 * host, the key of ta_ports (a devmap holding the device) and, in
 * ta_port_keys, of the device's namespace and ifindex. A port lives while
 * something refers to it; ta_ports_prune() removes the rest.
 */
#ifndef TA_PORTS_H
#define TA_PORTS_H

#include <net/if.h>
#include <stdint.h>

#include "plane.h"

/* The port of interface `ifindex` of this namespace, made if it has none.
 * 0 or -errno (-ENOSPC: TA_MAX_PORTS are in use). */
int ta_port_get(const struct ta_plane *pl, uint32_t ifindex, uint32_t *port);

/* The name of a port's device as seen from this namespace: its name when
 * it is here, "#IFINDEX" when gone, "#IFINDEX@net:COOKIE" when in another
 * namespace. Also its ifindex there (0 if unknown). */
void ta_port_name(const struct ta_plane *pl, uint32_t port, char name[64], uint32_t *ifindex);

/* Remove the ports no policy version and no tap's fdb refers to. */
int ta_ports_prune(const struct ta_plane *pl);

#endif /* TA_PORTS_H */
