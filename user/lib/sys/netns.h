/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * netns.h - which network namespace this process runs in, entering one by
 * name, and finding the mount namespace that holds the bpffs when
 * `ip netns exec` gave us a private one.
 */
#ifndef TA_NETNS_H
#define TA_NETNS_H

#include <stdbool.h>
#include <stddef.h>

#include "../base/error.h"

/* The cookie of this process's network namespace (SO_NETNS_COOKIE, Linux
 * 5.14): unique for the system's uptime, never reused. 0 or -errno. */
int ta_netns_cookie(unsigned long long *cookie);

/* The inode of this process's network namespace, as `lsns`, `ip netns
 * identify` and readlink /proc/self/ns/net ("net:[INODE]") show it.
 * Unique among live namespaces; a dead one's may be reused. 0 or -errno. */
int ta_netns_inode(unsigned long *inode);

/* An fd of the network namespace whose cookie is `cookie`, to setns()
 * into: one `ip netns` names, else one a process runs in. The caller's
 * namespace is as it was. The fd, or -ENOENT when nothing names or holds
 * that namespace any more, or another -errno. */
int ta_netns_open_cookie(unsigned long long cookie);

/* Enter network namespace NAME (/run/netns/NAME, as `ip netns` names
 * them) or PATH (containing a '/', e.g. /proc/PID/ns/net). The mount
 * namespace stays. 0, or -errno with the error in `e`. */
int ta_netns_enter(const char *name, struct ta_error *e);

/* If no bpffs is mounted at `bpffs` here and this process was started
 * from another mount namespace (`ip netns exec` runs its command in a
 * private one with a fresh /sys), move into that one: the nearest
 * ancestor's whose `bpffs` is a bpffs, else the outermost ancestor's in
 * another mount namespace. The working directory stays. 1 if it moved,
 * 0 if not, -errno if it could not. */
int ta_mntns_enter_callers(const char *bpffs);

/* Whether this mount namespace outlives this command: it is PID 1's (and
 * this process is not PID 1), or a process other than this one and its
 * ancestors is in it. `ip netns exec` makes one for its command alone; a
 * bpffs mounted there goes when the command ends, with every pin in it. */
bool ta_mntns_lasting(void);

#endif /* TA_NETNS_H */
