/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * util.h - what the CLI, the benchmark and the tests share besides policies,
 * maps and pins: interface names, what kind of device an interface is,
 * capabilities.
 */
#ifndef TA_UTIL_H
#define TA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

/* 0 if `name` can be an interface name, -EINVAL if not. */
int ta_ifname_valid(const char *name);

/* The driver of an interface as ethtool reports it ("tun", "veth", ...). */
int ta_netdev_driver(const char *ifname, char *driver, size_t size);
/*
 * 1 if `ifname` is a tap (a tun device in IFF_TAP mode, or tapx), 0 if it
 * is another kind of device (its driver, or "none", in `driver`), -errno
 * if it cannot be told.
 */
int ta_netdev_is_tap(const char *ifname, char *driver, size_t size);

/* Whether this process has capability `cap` (CAP_*) in its effective set. */
bool ta_has_cap(int cap);

/* CLOCK_MONOTONIC in ns. */
uint64_t ta_monotonic_ns(void);
/* CLOCK_MONOTONIC_COARSE in ns: the connection table's clock
 * (bpf_ktime_get_coarse_ns()). */
uint64_t ta_monotonic_coarse_ns(void);

#endif /* TA_UTIL_H */
