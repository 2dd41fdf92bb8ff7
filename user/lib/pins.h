/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pins.h - where tap-accel keeps its state and how it gets at it: the pin
 * folders of program instances, whose tap they belong to, opening them,
 * walking them and removing them. Every verb goes through here.
 *
 *   TA_PIN_ROOT/net:INODE/IFACE/   the instance serving tap IFACE of the
 *                                  network namespace with that inode
 *   TA_PIN_ROOT/IFACE/             the same, as tap-accel before 0.2 named
 *                                  it (read, detached, cleaned, and moved
 *                                  to the folder above on the next attach)
 *
 * Each folder holds the program (`prog`), every map by its name, and
 * `tap`, a one-entry devmap holding the tap itself: the kernel empties it
 * when the tap goes away (deleted, or with its namespace), so whether the
 * instance still serves a live tap can be told from any namespace.
 */
#ifndef TA_PINS_H
#define TA_PINS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <net/if.h>

#include "error.h"
#include "policy.h"

#define TA_BPFFS "/sys/fs/bpf"
#define TA_PIN_ROOT TA_BPFFS "/tap-accel"
/* The program's pin inside an instance's folder. */
#define TA_PROG_PIN "prog"
/* The devmap that holds the instance's tap while it exists. */
#define TA_TAP_PIN "tap"

/* Whether a bpffs is mounted at `path`. */
bool ta_bpffs_mounted(const char *path);
/* Mount bpffs on TA_BPFFS unless it is there; 0 or -errno. */
int ta_bpffs_ensure(void);
/* EXIT_OK if a bpffs is at TA_BPFFS, else EXIT_SYSTEM with the error. */
int ta_bpffs_check(struct ta_error *e);

/* TA_PIN_ROOT/net:INODE, the folder of this network namespace. */
int ta_pins_ns_dir(char *buf, size_t size);
/* TA_PIN_ROOT/net:INODE/IFNAME; -ENAMETOOLONG if it does not fit. */
int ta_pin_dir(const char *ifname, char *buf, size_t size);
/* Where the pins of `ifname` of this namespace are: its folder, else a
 * folder of the old layout unless that one is another namespace's tap's.
 * `dir` gets the folder found, or ta_pin_dir() if none: 0 found,
 * -ENOENT not found, or another -errno. */
int ta_pins_find(const char *ifname, char *dir, size_t size);
/* Whether `dir` is a folder of the old layout (TA_PIN_ROOT/IFACE). */
bool ta_pins_legacy(const char *dir);

/* Whose the pins in `dir` are, seen from this namespace, for `ifname`
 * (PINS_*, with the recorded owner in *o), or -errno.
 *   OURS     the tap `ifname` here, alive
 *   STALE    their tap is gone (and its program with it): safe to remove
 *   FOREIGN  a live tap of another network namespace
 *   RENAMED  a live tap of this namespace, now under another name */
enum { PINS_OURS, PINS_STALE, PINS_FOREIGN, PINS_RENAMED };
int ta_pins_owner(const char *dir, const char *ifname, struct ta_owner *o);
/* Why pins of that owner (or -errno) cannot be used; the exit code. */
int ta_pins_refuse(const char *ifname, int owner, const struct ta_owner *o,
		   struct ta_error *e);

/* One instance's pins, opened. */
struct ta_pins {
	char dir[256];
	struct ta_maps maps;
	int prog_fd;	  /* -1 if the program pin is missing */
	uint32_t prog_id; /* 0 if the program pin is missing */
};
/* Open the pins of `ifname` of this namespace, checked against this
 * build's layout. EXIT_OK or an exit code with the error in `e`. */
int ta_pins_open(const char *ifname, struct ta_pins *p, struct ta_error *e);
void ta_pins_close(struct ta_pins *p);

/* The program pinned in `dir`: its fd (caller closes) and id. 0 or -errno. */
int ta_pins_prog(const char *dir, int *fd, uint32_t *id);
/* Read the ta_owner map pinned in `dir`. 0 or -errno (-ENOENT: no pin). */
int ta_pins_read_owner(const char *dir, struct ta_owner *owner);
/* Record in fresh pins whose they are: ta_owner (this namespace's cookie,
 * `ifindex`) and the `tap` devmap holding the tap. 0 or -errno. */
int ta_pins_mark(const struct ta_maps *maps, const char *dir, unsigned int ifindex);
/* Add the `tap` devmap to pins that have none (older layout). 0 or -errno. */
int ta_pins_mark_tap(const char *dir, unsigned int ifindex);

/* Make the folders down to `dir`'s parent, each of this user and closed
 * to others (in a world-writable bpffs another user could have made one
 * first, and could then rename or replace our pins). EXIT_OK or an exit
 * code with the error. */
int ta_pins_make_parents(const char *dir, struct ta_error *e);
/* Whether `dir` is a folder of this user closed to others; the error if
 * not. EXIT_OK or EXIT_SYSTEM. */
int ta_pins_check_dir(const char *dir, struct ta_error *e);

/* Remove every file of a pin folder, then the folder (and its namespace's
 * folder if that is left empty); 0 or -errno. Never through a symlink. */
int ta_pins_remove(const char *dir);

/* Every instance folder, this namespace's first (then the old layout's,
 * then, with `all`, other namespaces'). `ns` is NULL for this namespace's
 * and the old layout's, else "net:INODE". Stops when fn returns nonzero
 * and returns that; EXIT_OK when done, or an exit code with `e`. */
struct ta_pins_entry {
	const char *ifname;
	const char *dir;
	const char *ns;
	bool legacy;
};
/* Whether `en` is the folder this namespace uses for its interface name
 * (not an old-layout folder shadowed by its own, nor another's). */
bool ta_pins_used_here(const struct ta_pins_entry *en);
int ta_pins_each(bool all, int (*fn)(const struct ta_pins_entry *, void *), void *arg,
		 struct ta_error *e);

#endif /* TA_PINS_H */
