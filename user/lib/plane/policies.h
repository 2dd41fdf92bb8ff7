/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * policies.h - named policies on the plane: loaded once, shared by every
 * tap bound to them, replaced atomically for all of those taps at once.
 */
#ifndef TA_POLICIES_H
#define TA_POLICIES_H

#include <stdbool.h>
#include <stdint.h>

#include "../policy/spec.h"
#include "plane.h"

/* 0 if `name` can name a policy (1..63 of A-Z a-z 0-9 . _ -, not starting
 * with a dot or a dash), -EINVAL if not. */
int ta_policy_name_valid(const char *name);

/* The name a policy file gives a policy: its file name without folders and
 * without ".policy" ("web" for /etc/tap-accel/web.policy). 0 or -EINVAL
 * when that is no valid name. */
int ta_policy_name_of_file(const char *path, char name[TA_POLICY_NAME_LEN]);

/* Parse a policy file and look its interfaces up in this namespace.
 * 0, or -errno with "FILE:LINE:COL: ..." in `e`. */
int ta_policy_read(const char *file, struct ta_policy_spec *spec, struct ta_error *e);
/* Only the second half: look the interfaces of a parsed spec up in this
 * namespace (`file` names it in messages). 0 or -ENOENT with
 * "FILE:LINE:COL: interface DEV not found" in `e`; the spec stays. */
int ta_policy_resolve(const char *file, struct ta_policy_spec *spec, struct ta_error *e);

struct ta_policy_info {
	uint32_t index;
	char name[TA_POLICY_NAME_LEN];
	uint32_t slot;		/* the version frames use */
	struct ta_policy head;	/* of that version */
	uint32_t nr_taps;	/* bound to it */
	bool unbound;		/* what unbound taps get */
};

/* The name of policy `index`; "" if none has it. */
const char *ta_policy_name(const struct ta_plane *pl, uint32_t index);
/* The index of policy `name`: 0, -ENOENT, or -errno. */
int ta_policy_find(const struct ta_plane *pl, const char *name, uint32_t *index);
/* Policy `index`: 0, -ENOENT if no policy has it, or -errno. Counts the
 * taps bound to it: one pass over the bindings. */
int ta_policy_get(const struct ta_plane *pl, uint32_t index, struct ta_policy_info *info);
/* Every policy, by name; the caller frees *list. 0 or -errno. */
int ta_policies_read(const struct ta_plane *pl, struct ta_policy_info **list, uint32_t *count);

/* What a load did. */
struct ta_load_result {
	uint32_t index;
	bool created;	   /* a new policy; else a new version */
	bool unchanged;	   /* the same digest was loaded already: nothing done */
	uint32_t nr_taps;  /* taps that switched to it */
};

/*
 * Load `spec` as policy `name`: a new policy, or a new version of it that
 * every tap bound to it uses from one moment on (no frame sees some of
 * each). Its redirect and fdb targets are looked up in this namespace by
 * name. A spec whose digest is the loaded version's changes nothing,
 * unless `always`. Guard statements are refused: a guard is a tap's.
 * 0, or -errno with `e` (the running version untouched).
 */
int ta_policy_load(struct ta_plane *pl, const char *name, struct ta_policy_spec *spec,
		   bool always, struct ta_load_result *res, struct ta_error *e);

/* Remove policy `name`; refused while a tap is bound to it or unbound taps
 * get it. 0 or -errno with `e`. */
int ta_policy_unload(struct ta_plane *pl, const char *name, struct ta_error *e);

#endif /* TA_POLICIES_H */
