/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * guard.h - a tap's guard addresses: the guest's IPv4 and IPv6 addresses
 * in ta_guard_ip4 and ta_guard_ip6, keyed by tap id (its MAC and which
 * checks are on sit in its binding, struct ta_tap); and the guard as
 * `attach --guard` and the agent's bindings write it.
 */
#ifndef TA_GUARD_H
#define TA_GUARD_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "plane.h"
#include "policy.h"

/* Make tap `id`'s addresses exactly those of `g` (NULL: none). The new
 * ones are added before the others go, so that a guest never loses an
 * address it keeps. 0 or -errno. */
int ta_guard_write(const struct ta_plane *pl, uint32_t id, const struct ta_guard_spec *g);

/* Tap `id`'s addresses into g (sorted); flags and MAC are left as they
 * are. 0 or -errno. */
int ta_guard_read(const struct ta_plane *pl, uint32_t id, struct ta_guard_spec *g);

/*
 * One guard address into g, as inet_pton(3) reads IPv4 and IPv6: EXIT_OK,
 * or EXIT_USER with why in `e`: not an address; one a guest never sends
 * from (unspecified, loopback, multicast, broadcast, IPv4-mapped); given
 * twice; one more than TA_MAX_GUARD_ADDRS of its family. Every way in to
 * a guard (attach --guard, a policy file, a binding, the adapters through
 * `tap-accel guard check`) says it in these words.
 */
int ta_guard_add_ip(struct ta_guard_spec *g, const char *s, struct ta_error *e);

/* The guard's MAC: EXIT_OK, or EXIT_USER: not a MAC; all zeros, broadcast
 * or multicast (never a guest's own source); a second one. */
int ta_guard_set_mac(struct ta_guard_spec *g, const char *s, struct ta_error *e);

/*
 * "mac=MAC,ip=ADDRESS,..." (libvirt nwfilter's MAC and IP parameters; IPv4
 * and IPv6, ip6= too), or "none", into `g`. EXIT_OK, or EXIT_USER with the
 * error in `e` and, when `bad` is not NULL, the offset in `arg` of the
 * item at fault in *bad.
 */
int ta_guard_parse(const char *arg, struct ta_guard_spec *g, size_t *bad, struct ta_error *e);

/* The longest guard text a full guard takes: its MAC and TA_MAX_GUARD_ADDRS
 * addresses of each family, each ",ip=" and an address at its longest. */
#define TA_GUARD_TEXT_MAX (sizeof("mac=00:00:00:00:00:00") + \
			   2 * TA_MAX_GUARD_ADDRS * (sizeof(",ip=") + INET6_ADDRSTRLEN))

/* g as ta_guard_parse() reads it: "mac=...,ip=...", or "none". */
void ta_guard_format(const struct ta_guard_spec *g, char *buf, size_t size);

#endif /* TA_GUARD_H */
