/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * plane.h - the host's policy plane: the one program and its maps, pinned
 * in one folder of the bpffs, and the links that attach it to taps.
 *
 *   TA_PIN_ROOT/prog             the program (pinned last: its pin says the
 *                                plane is complete)
 *   TA_PIN_ROOT/ta_*             every map by its name (bpf/tap_accel.h)
 *   TA_PIN_ROOT/prog_in_tc, prog_in_devmap
 *                                the programs of what goes to a guest
 *   TA_PIN_ROOT/links/COOKIE:IFINDEX
 *                                the XDP link of a bound tap: its network
 *                                namespace's cookie and its ifindex there
 *
 * The folders are root's and closed to others (in a world-writable bpffs
 * another user could otherwise rename or replace the pins). Writers hold
 * an exclusive flock() on TA_PIN_ROOT while they change anything, so that
 * two tap-accel processes (the agent and an operator) never interleave
 * their map updates; readers take no lock.
 */
#ifndef TA_PLANE_H
#define TA_PLANE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "maps.h"

#define TA_BPFFS "/sys/fs/bpf"
#define TA_PIN_ROOT TA_BPFFS "/tap-accel"
#define TA_PROG_PIN TA_PIN_ROOT "/prog"
/* The programs of what goes to a guest (docs/bpf.md), loaded with it and
 * sharing its maps: for a tap's tcx or clsact egress, and for a devmap
 * entry that redirects into a tap. */
#define TA_IN_TC_PIN TA_PIN_ROOT "/prog_in_tc"
#define TA_IN_DEVMAP_PIN TA_PIN_ROOT "/prog_in_devmap"
#define TA_LINK_DIR TA_PIN_ROOT "/links"

/* The connection table's size when a plane is made: TAP_ACCEL_CT_ENTRIES
 * when set (within TA_CT_MIN_ENTRIES..TA_CT_MAX_ENTRIES), else a 512th of
 * the host's memory in a power of two of entries of TA_CT_ENTRY_BYTES,
 * within the same bounds (262144 on 15 to 30 GiB). New connections stop
 * TA_CT_HEADROOM short of it. */
#define TA_CT_MIN_ENTRIES 16384
#define TA_CT_MAX_ENTRIES (1u << 22)
uint32_t ta_ct_entries(void);

/* What a writer's open freed that no ref led to (ta_taps_reclaim()). */
struct ta_reclaimed {
	uint32_t ids, blocks, guard, fdb;
};

struct ta_plane {
	struct ta_maps maps;
	int prog_fd;
	uint32_t prog_id;
	int in_tc_fd, in_devmap_fd; /* -1 when the plane has none */
	int lock_fd;  /* TA_PIN_ROOT, flock()ed: writers only, else -1 */
	int ncpus;    /* possible CPUs: the rows of the rule counters */
	uint64_t netns_cookie; /* of the namespace this process runs in */
	bool created; /* this open loaded the program */
	/* Tap ids in use, read once by the first bind of a writer (the lock
	 * keeps them true): binding a thousand taps scans ta_tap_info once. */
	bool tap_ids_known;
	uint64_t tap_ids[TA_MAX_TAPS / 64];
	/* ta_policy_names, read when the plane is opened and kept current
	 * by this process's loads and unloads: names are looked up often. */
	struct ta_policy_name *names;
	/* The counter blocks given out (ta_counter_blocks), sorted, read by
	 * the first allocation of a writer and kept current by its own. */
	struct ta_counter_block *blocks;
	uint32_t nr_blocks, cap_blocks;
	uint32_t *chunk_blocks; /* blocks in each chunk */
	bool blocks_known;
	struct ta_reclaimed reclaimed; /* by this open */
};

struct ta_counter_block {
	uint32_t base, len;
};

enum ta_plane_access {
	TA_PLANE_READ,	 /* the plane must exist */
	TA_PLANE_WRITE,	 /* the same, locked against other writers */
	TA_PLANE_CREATE, /* loaded and pinned if missing; locked */
};

/*
 * Open the plane. A writer's open (the lock taken) first frees what no ref
 * leads to, what a writer killed in the middle left (pl->reclaimed says
 * what). TA_PLANE_CREATE mounts a bpffs at TA_BPFFS if there is
 * none (*mounted says so, when not NULL) and loads the program the running
 * kernel takes (ta_plane_variant()). 0, or -errno with `e`.
 */
int ta_plane_open(struct ta_plane *pl, enum ta_plane_access how, bool *mounted,
		  struct ta_error *e);
void ta_plane_close(struct ta_plane *pl);

/* A plane of this process's own, loaded and never pinned: the tests and
 * the benchmark judge frames with it, and it goes when they close it. */
int ta_plane_private(struct ta_plane *pl, struct ta_error *e);

/* Whether a plane is pinned (its program pin exists). */
bool ta_plane_exists(void);

/*
 * The build of the program this kernel takes: "tap_accel" where
 * bpf_cast_to_kern_ctx exists (Linux 6.3 and later), else
 * "tap_accel_compat" (bpf/tap_key.bpf.h). TAP_ACCEL_PROG=compat in the
 * environment picks the second anywhere, for tests.
 */
const char *ta_plane_variant(void);

/* Wait until no program still runs with what it read before this call (an
 * RCU grace period, through ta_sync). 0 or -errno. */
int ta_plane_sync(const struct ta_plane *pl);

/* What the program does with taps it serves without a binding
 * (enum ta_unbound; `policy` for TA_UNBOUND_POLICY). 0 or -errno. */
int ta_plane_set_unbound(const struct ta_plane *pl, uint32_t action, uint32_t policy);
int ta_plane_get_unbound(const struct ta_plane *pl, uint32_t *action, uint32_t *policy);

/*
 * tapx's default program of this process's network namespace, which the
 * taps tapx makes there run from their creation while they have no link
 * of their own (kmod/README.md, "Default program"). `prog_fd` sets it, -1
 * clears it, TA_TAPX_GET leaves it; *id (if not NULL) gets its id then, 0
 * for none. 0; -ENODEV when tapx does not serve taps here (no
 * /dev/net/tapx, and /dev/net/tun is not tapx's tun_compat); or -errno.
 */
#define TA_TAPX_GET (-2)
int ta_tapx_default(int prog_fd, uint32_t *id);

/* Whether a bpffs is mounted at `path`. */
bool ta_bpffs_mounted(const char *path);
/* 0 if a bpffs is at TA_BPFFS, else -ENOENT with the error. */
int ta_bpffs_check(struct ta_error *e);

/* Whether `dir` is a folder of this user closed to others; the error if
 * not. 0 or -errno. */
int ta_pins_check_dir(const char *dir, struct ta_error *e);

/* Remove the whole plane: every link pin (detaching each link), every map
 * and the program. Taps lose their policy. 0 or -errno. */
int ta_plane_remove(void);

#endif /* TA_PLANE_H */
