/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * taps.h - taps on the plane: binding one to a policy (its entry, counters,
 * guard, fdb and XDP link), unbinding it, and reading every binding on the
 * host in one pass. A tap is known by its network namespace's cookie and
 * its ifindex there (struct ta_tap_key); a binding made in one namespace
 * is seen, and cleaned when its tap is gone, from every other.
 */
#ifndef TA_TAPS_H
#define TA_TAPS_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "../policy/spec.h"
#include "plane.h"

/* The key of interface `ifname` of this namespace; -ENODEV if none. */
int ta_tap_key_of(const struct ta_plane *pl, const char *ifname, struct ta_tap_key *key);

/* Whether interface `ifname` of this namespace is a tap that can be bound
 * (a valid name, there, a tap). 0 or -errno with `e`, the input's fault. */
int ta_tap_check(const char *ifname, struct ta_error *e);

struct ta_bind {
	const char *ifname;	    /* a tap of this namespace */
	uint32_t policy;	    /* index of a loaded policy */
	const struct ta_guard_spec *guard; /* NULL: none */
	uint32_t xdp_flags;	    /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	bool force;		    /* replace an XDP program tap-accel did not attach */
	uint32_t flags;		    /* TA_TAP_F_*: who binds, recorded with the binding */
	/* Write the binding but attach nothing: for frames that meet the
	 * program some other way (BPF_PROG_TEST_RUN in the tests, a program
	 * attached with bpftool). Any interface, tap or not. */
	bool entry_only;
};

/* What a bind did. */
enum ta_bind_result {
	TA_BOUND,   /* a new binding: the program attached */
	TA_REBOUND, /* the tap was bound: its policy or guard changed */
};

/*
 * Bind a tap: on success the program judges its frames under the policy
 * and guard given. A tap already bound keeps its link, counters and fdb
 * and switches at once. On failure nothing is left of a new binding.
 * 0 (with *result), or -errno with `e`.
 */
int ta_tap_bind(struct ta_plane *pl, const struct ta_bind *b, enum ta_bind_result *result,
		struct ta_error *e);

/* Unbind a tap: detach the program, remove its entry, counters, guard and
 * fdb. Works for taps that are gone too. 0 or -errno with `e`. */
int ta_tap_unbind(struct ta_plane *pl, const struct ta_tap_key *key, struct ta_error *e);
/* The same for n taps at once, which wait for frames in flight once. */
int ta_taps_unbind(struct ta_plane *pl, const struct ta_tap_key *keys, uint32_t n,
		   struct ta_error *e);

/* Where a bound tap's link stands. */
enum ta_link_state {
	TA_LINK_LIVE,	 /* attached to the tap */
	TA_LINK_GONE,	 /* the tap was deleted (or its namespace) */
	TA_LINK_MISSING, /* no link pin: bound by bpftool, or half done */
};

/* One binding, as read. */
struct ta_tap_state {
	struct ta_tap_key key;
	struct ta_tap tap;
	struct ta_tap_info info;
	enum ta_link_state link;
	uint32_t link_id;
	bool here;		  /* in this process's namespace */
	char ifname[IF_NAMESIZE]; /* its name now if here, else at binding */
};

/* Every binding on the host, sorted by namespace and ifindex; the caller
 * frees *list. 0 or -errno. */
int ta_taps_read(const struct ta_plane *pl, struct ta_tap_state **list, uint32_t *count);
/* The binding of `key`: 0, -ENOENT if the tap is not bound, or -errno. */
int ta_tap_read(const struct ta_plane *pl, const struct ta_tap_key *key,
		struct ta_tap_state *st);

/* Record who made a binding (TA_TAP_F_* in its ta_tap_info): the program
 * never reads it, so nothing waits. 0 or -errno. */
int ta_tap_mark(const struct ta_plane *pl, struct ta_tap_state *st, uint32_t flags);

/* A tap's guard: flags and MAC from its binding, addresses (guard.h). */
int ta_tap_guard_read(const struct ta_plane *pl, const struct ta_tap_state *st,
		      struct ta_guard_spec *guard);

/* Rule counters of a bound tap: which = 0 those of its policy's active
 * version, 1 those of the version before (if the same policy's). *info is
 * the version they count. 0, -ENOENT (none), or -errno. */
int ta_tap_rule_counters(const struct ta_plane *pl, const struct ta_tap_state *st, int which,
			 struct ta_rule_counters *info, struct ta_counter *sums);

/* A new version of policy `policy` goes into `slot`: give each of its
 * bound taps counters for its rules. The blocks they replace are in *old,
 * to be given back (ta_taps_release_blocks()) once the policy switched and
 * no frame counts there. 0 or -errno. */
int ta_taps_prepare_version(struct ta_plane *pl, uint32_t policy, uint32_t slot,
			    uint32_t version, uint32_t **old, uint32_t *nr_old);
void ta_taps_release_blocks(struct ta_plane *pl, const uint32_t *old, uint32_t nr_old);

/* A bound tap's TA_TAP_STATS counters. 0 or -errno. */
int ta_tap_stats_read(const struct ta_plane *pl, const struct ta_tap_state *st,
		      struct ta_counter *sums);
/* After a policy switched to `version`: make the fdb of each tap bound to
 * it the version's fdb statements. 0 or -errno. */
int ta_taps_sync_fdb(const struct ta_plane *pl, uint32_t policy, uint32_t version);
/* After a policy's rate changed: give each of its taps a full bucket of
 * the new rate. 0 or -errno. */
int ta_taps_refill(const struct ta_plane *pl, uint32_t policy);
/* How many taps are bound to `policy`. */
/* Free what no ref leads to: what a writer killed in the middle of a bind
 * or an unbind left (taps.c). The caller holds the plane's lock. 0 or
 * -errno; *r counts what went. */
int ta_taps_reclaim(struct ta_plane *pl, struct ta_reclaimed *r);

uint32_t ta_taps_bound_to(const struct ta_plane *pl, uint32_t policy);

/* The link pin of `key`: TA_LINK_DIR/COOKIE:IFINDEX. */
void ta_link_path(const struct ta_tap_key *key, char *buf, size_t size);

#endif /* TA_TAPS_H */
