/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * guard_parse.h - a tap's guard as text: as `attach --guard`, a policy
 * file's guard statement, the agent's bindings and the adapters (through
 * `tap-accel guard check`) write it, checked alike at every way in.
 */
#ifndef TA_GUARD_PARSE_H
#define TA_GUARD_PARSE_H

#include <netinet/in.h>
#include <stddef.h>

#include "../base/error.h"
#include "spec.h"

/*
 * One guard address into g, as inet_pton(3) reads IPv4 and IPv6: 0,
 * or -errno with why in `e` (the input's fault): not an address; one a guest never sends
 * from (unspecified, loopback, multicast, broadcast, IPv4-mapped); given
 * twice; one more than TA_MAX_GUARD_ADDRS of its family. Every way in to
 * a guard (attach --guard, a policy file, a binding, the adapters through
 * `tap-accel guard check`) says it in these words.
 */
int ta_guard_add_ip(struct ta_guard_spec *g, const char *s, struct ta_error *e);

/* The guard's MAC: 0, or -errno with `e`: not a MAC; all zeros, broadcast
 * or multicast (never a guest's own source); a second one. */
int ta_guard_set_mac(struct ta_guard_spec *g, const char *s, struct ta_error *e);

/*
 * "mac=MAC,ip=ADDRESS,..." (libvirt nwfilter's MAC and IP parameters; IPv4
 * and IPv6, ip6= too), or "none", into `g`. 0, or -errno with the
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

#endif /* TA_GUARD_PARSE_H */
