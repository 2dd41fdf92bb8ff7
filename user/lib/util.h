/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * util.h - what the CLI, the benchmark and the tests share besides policies
 * and maps: where pins live, bpffs, and what kind of device an interface is.
 */
#ifndef TA_UTIL_H
#define TA_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <net/if.h>

#define TA_BPFFS "/sys/fs/bpf"
#define TA_PIN_ROOT TA_BPFFS "/tap-accel"
/* The program's pin inside an interface's pin directory. */
#define TA_PROG_PIN "prog"

/* 0 if `name` can be an interface name, -EINVAL if not. */
int ta_ifname_valid(const char *name);

/* TA_PIN_ROOT/<ifname>; -ENAMETOOLONG if it does not fit. */
int ta_pin_dir(const char *ifname, char *buf, size_t size);

/* Whether a bpffs is mounted at `path`. */
bool ta_bpffs_mounted(const char *path);
/* Mount bpffs on TA_BPFFS unless it is there; 0 or -errno. */
int ta_bpffs_ensure(void);

/* Remove every file of a pin directory, then the directory; 0 or -errno. */
int ta_pins_remove(const char *dir);

/* The driver of an interface as ethtool reports it ("tun", "veth", ...). */
int ta_netdev_driver(const char *ifname, char *driver, size_t size);
/*
 * 1 if `ifname` is a tap (a tun device in IFF_TAP mode, or tapx), 0 if it
 * is another kind of device (its driver, or "none", in `driver`), -errno
 * if it cannot be told.
 */
int ta_netdev_is_tap(const char *ifname, char *driver, size_t size);

/* The cookie of this process's network namespace (SO_NETNS_COOKIE, Linux
 * 5.14): unique for the system's uptime, never reused. 0 or -errno. */
int ta_netns_cookie(unsigned long long *cookie);

/* Whether this process has capability `cap` (CAP_*) in its effective set. */
bool ta_has_cap(int cap);

#endif /* TA_UTIL_H */
