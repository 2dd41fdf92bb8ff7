// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach.c - attach and detach: bind taps to a policy of the host's plane
 * (lib/plane/taps.h), or unbind them. The first attach on a host loads the
 * program and pins it with its maps; every later one costs a binding.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/plane/guard.h"
#include "lib/plane/legacy.h"
#include "lib/plane/policies.h"
#include "lib/plane/taps.h"
#include "lib/policy/guard_parse.h"
#include "lib/policy/names.h"
#include "lib/sys/util.h"
#include "verbs.h"

/* --guard: 0 or an exit code (told). */
static int guard_parse(const char *arg, struct ta_guard_spec *g)
{
	struct ta_error e;

	if (ta_guard_parse(arg, g, NULL, &e))
		return e.input ? user_error("attach: --guard: %s", e.text) : report_error(&e);
	return 0;
}

/* ---- attach ----------------------------------------------------------- */

struct attach_opts {
	const char *policy;
	const char *guard;
	int xdp_flags;
	bool force;
};

static const struct opt_choice modes[] = {
	{ "native", XDP_FLAGS_DRV_MODE }, { "generic", XDP_FLAGS_SKB_MODE }, { NULL, 0 },
};

static const struct option_spec attach_options[] = {
	{ "policy", 0, OPT_STRING, offsetof(struct attach_opts, policy), "NAME|FILE",
	  "the policy: a loaded one by name, or a policy file, loaded as the policy\n"
	  "named after it (web.policy: web) unless that one holds it already", NULL, 0, 0 },
	{ "guard", 0, OPT_STRING, offsetof(struct attach_opts, guard), "PARAMS",
	  "the guest's own addresses: mac=MAC,ip=ADDRESS,... (IPv4 and IPv6, the\n"
	  "link-local one too), or none; one tap at a time", NULL, 0, 0 },
	{ "mode", 0, OPT_CHOICE, offsetof(struct attach_opts, xdp_flags), "MODE",
	  "native (default: the driver runs XDP) or generic (on the skb, any device)", modes,
	  0, 0 },
	{ "force", 0, OPT_FLAG, offsetof(struct attach_opts, force), NULL,
	  "replace an XDP program tap-accel did not attach", NULL, 0, 0 },
	OPTIONS_END,
};

static const struct attach_opts attach_defaults = { .xdp_flags = XDP_FLAGS_DRV_MODE };

/* What the taps of one attach are bound to. */
struct attach_plan {
	const struct attach_opts *o;
	uint32_t policy;
	bool have_policy;	 /* else: each keeps its own, new ones "default" */
	char name[TA_POLICY_NAME_LEN];
	struct ta_guard_spec guard; /* from --guard or the policy file */
	bool have_guard;
};

/* A policy file rather than a loaded policy's name. */
static bool is_file_arg(const struct ta_plane *pl, const char *arg)
{
	size_t n = strlen(arg);
	uint32_t index;
	struct stat st;

	if (strchr(arg, '/') || (n > 7 && !strcmp(arg + n - 7, ".policy")))
		return true;
	return ta_policy_find(pl, arg, &index) && !stat(arg, &st);
}

static bool in_list(const char *ifname, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], ifname))
			return true;
	return false;
}

/* Taps bound to `index` that this attach does not name. */
static uint32_t others_bound(const struct ta_plane *pl, uint32_t index, int argc, char **argv)
{
	struct ta_tap_state *list;
	uint32_t n, others = 0;

	if (ta_taps_read(pl, &list, &n))
		return 0;
	for (uint32_t i = 0; i < n; i++)
		others += list[i].tap.policy == index &&
			  !(list[i].here && in_list(list[i].ifname, argc, argv));
	free(list);
	return others;
}

/* A policy file: loaded as the policy named after it; its guard, if it
 * has one, becomes the taps' (a guard is a tap's, not a policy's). */
static int plan_file(struct ta_plane *pl, struct attach_plan *a, int argc, char **argv)
{
	struct ta_policy_spec spec;
	struct ta_policy_info old;
	struct ta_load_result res;
	struct ta_error e;
	uint32_t index, others;
	int ret;

	if (ta_policy_name_of_file(a->o->policy, a->name))
		return user_error("%s: its file name does not make a policy name (letters, digits, "
				  "'.', '_', '-'); load it with 'tap-accel policy load NAME %s'",
				  a->o->policy, a->o->policy);
	ret = ta_policy_read(a->o->policy, &spec, &e);
	if (ret)
		return report_error(&e);
	if (spec.guard.flags && !a->have_guard) {
		if (argc > 1) {
			ta_policy_spec_free(&spec);
			return user_error("%s has a guard, one guest's addresses: attach one tap "
					  "with it at a time", a->o->policy);
		}
		a->guard = spec.guard;
		a->have_guard = true;
	}
	memset(&spec.guard, 0, sizeof(spec.guard));
	if (!ta_policy_find(pl, a->name, &index) && !ta_policy_get(pl, index, &old) &&
	    old.head.digest != spec.digest && (others = others_bound(pl, index, argc, argv))) {
		ta_policy_spec_free(&spec);
		return user_error("policy %s is bound to %u other taps and holds other rules than "
				  "%s; replace it for all of them with 'tap-accel policy load %s %s', "
				  "or load this file under another name",
				  a->name, others, a->o->policy, a->name, a->o->policy);
	}
	ret = ta_policy_load(pl, a->name, &spec, false, &res, &e);
	ta_policy_spec_free(&spec);
	if (ret)
		return report_error(&e);
	a->policy = res.index;
	a->have_policy = true;
	return 0;
}

/* The policy every new binding without --policy gets: one that passes
 * everything, made the first time it is needed. */
static int default_policy(struct ta_plane *pl, uint32_t *index, struct ta_error *e)
{
	struct ta_policy_spec empty = { 0 };
	struct ta_load_result res;
	int ret;

	if (!ta_policy_find(pl, "default", index))
		return 0;
	ret = ta_policy_load(pl, "default", &empty, false, &res, e);
	*index = res.index;
	return ret;
}

static int plan_attach(struct ta_plane *pl, struct attach_plan *a, int argc, char **argv)
{
	int ret;

	if (a->o->guard) {
		if (argc > 1 && strcmp(a->o->guard, "none"))
			return user_error("attach: --guard holds one guest's addresses: give it "
					  "for one tap at a time");
		ret = guard_parse(a->o->guard, &a->guard);
		if (ret)
			return ret;
		a->have_guard = true;
	}
	if (!a->o->policy)
		return 0;
	if (is_file_arg(pl, a->o->policy))
		return plan_file(pl, a, argc, argv);
	/* 'default' is made the first time it is needed, named or not */
	if (!strcmp(a->o->policy, "default")) {
		struct ta_error e;

		if (default_policy(pl, &a->policy, &e))
			return report_error(&e);
	} else if (ta_policy_find(pl, a->o->policy, &a->policy))
		return user_error("no policy %s is loaded, and no file of that name is here; load "
				  "it with 'tap-accel policy load %s FILE' ('policy list' shows "
				  "what is loaded)", a->o->policy, a->o->policy);
	snprintf(a->name, sizeof(a->name), "%s", a->o->policy);
	a->have_policy = true;
	return 0;
}

static void report_attach(struct ta_plane *pl, const char *ifname, enum ta_bind_result r,
			  const struct attach_opts *o, uint32_t policy)
{
	char name[TA_POLICY_NAME_LEN], path[256], guard[16];
	const char *mode = o->xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native";
	struct ta_tap_state st;
	struct ta_tap_key key;

	policy_name_of(pl, policy, name);
	if (ta_tap_key_of(pl, ifname, &key) || ta_tap_read(pl, &key, &st))
		memset(&st, 0, sizeof(st));
	ta_guard_words(st.tap.guard_flags, guard, sizeof(guard));
	if (!cli.json) {
		if (r == TA_BOUND)
			printf("attached tap-accel to %s (%s mode), policy %s, guard %s\n", ifname,
			       mode, name, guard);
		else
			printf("%s: policy %s, guard %s (bound already: switched at once)\n", ifname,
			       name, guard);
		return;
	}
	ta_link_path(&key, path, sizeof(path));
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", ifname);
	jw_kv_string(&json, "mode", mode);
	jw_kv_string(&json, "policy", name);
	jw_kv_string(&json, "guard", guard);
	jw_kv_bool(&json, "new", r == TA_BOUND);
	jw_kv_u64(&json, "prog_id", pl->prog_id);
	jw_kv_u64(&json, "link_id", st.link_id);
	jw_kv_string(&json, "link", path);
	jw_object_end(&json);
}

/* Bind one tap: the plan's policy, or its own, or "default". 0, or
 * -errno with `e`. */
static int attach_one(struct ta_plane *pl, const struct attach_plan *a, const char *ifname,
		      struct ta_error *e)
{
	struct ta_bind b = { .ifname = ifname, .xdp_flags = a->o->xdp_flags, .force = a->o->force };
	struct ta_guard_spec guard;
	enum ta_bind_result r;
	struct ta_tap_state st;
	struct ta_tap_key key;
	bool bound = !ta_tap_key_of(pl, ifname, &key) && !ta_tap_read(pl, &key, &st) &&
		     st.link == TA_LINK_LIVE;
	int ret;

	b.policy = a->policy;
	if (!a->have_policy) {
		if (bound)
			b.policy = st.tap.policy;
		else if ((ret = default_policy(pl, &b.policy, e)))
			return ret;
	}
	/* an attach that says nothing of the guard keeps the one there is */
	if (a->have_guard)
		b.guard = a->guard.flags ? &a->guard : NULL;
	else if (bound && !ta_tap_guard_read(pl, &st, &guard) && guard.flags)
		b.guard = &guard;
	ret = ta_tap_bind(pl, &b, &r, e);
	if (!ret)
		report_attach(pl, ifname, r, a->o, b.policy);
	return ret;
}

/* One tap's failure: alone, as any error; among several, in the list. */
static void report_failure(const char *ifname, const struct ta_error *e, bool many)
{
	if (!many || !cli.json) {
		report_error(e);
		return;
	}
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", ifname);
	jw_kv_string(&json, "error", e->text);
	jw_object_end(&json);
}

static int run_attach(const void *opts, int argc, char **argv)
{
	struct attach_plan a = { .o = opts };
	struct ta_plane pl;
	struct ta_error e;
	int ret, failed = 0, worst = 0;

	/* the command line first: a typo binds nothing, loads nothing */
	if (a.o->guard && (ret = guard_parse(a.o->guard, &a.guard)))
		return ret;
	for (int i = 0; i < argc; i++)
		if (ta_tap_check(argv[i], &e))
			return report_error(&e);
	ret = require_admin("attach");
	if (!ret)
		ret = open_plane(&pl, TA_PLANE_CREATE);
	if (ret)
		return ret;
	ret = plan_attach(&pl, &a, argc, argv);
	if (!ret && cli.json && argc > 1)
		jw_array_begin(&json);
	for (int i = 0; !ret && i < argc; i++) {
		struct ta_error e;
		int one = attach_one(&pl, &a, argv[i], &e);

		if (one) {
			report_failure(argv[i], &e, argc > 1);
			one = exit_code(&e);
		}
		failed += one != 0;
		worst = one > worst ? one : worst;
	}
	if (!ret && cli.json) {
		if (argc > 1)
			jw_array_end(&json);
		jw_end_document(&json);
	}
	if (!ret && failed && argc > 1)
		note("%d of %d taps were not attached (above)", failed, argc);
	ta_plane_close(&pl);
	return ret ?: worst;
}

const struct command attach_cmd = {
	.name = "attach",
	.args = "IFACE...",
	.summary = "bind taps to a policy: one program for the host, attached to each",
	.help = "Bind each tap IFACE to a policy: the host's tap-accel program judges its\n"
		"frames from then on, under that policy and the tap's guard. The program\n"
		"is attached with a BPF link pinned under " TA_LINK_DIR "/,\n"
		"so it outlives this command and nothing replaces it silently.\n"
		"A tap bound already switches at once to what this attach gives, and keeps\n"
		"the rest (its policy without --policy, its guard without --guard). A new\n"
		"binding without --policy gets the policy 'default', which passes\n"
		"everything.\n",
	.options = attach_options,
	.opts_size = sizeof(struct attach_opts),
	.defaults = &attach_defaults,
	.min_args = 1,
	.max_args = -1,
	.run = run_attach,
};

/* ---- detach ------------------------------------------------------------ */

/* The binding of one tap to detach: 0, -errno with `e`, or LEGACY when
 * an older tap-accel's instance was there instead (detached already). */
#define LEGACY 1
static int detach_find(struct ta_plane *pl, const char *ifname, struct ta_tap_key *key,
		       struct ta_error *e)
{
	struct ta_tap_state st;
	int ret, err;

	if (ta_tap_key_of(pl, ifname, key))
		return ta_error_input(e, ENOENT,
				      "interface %s not found; 'tap-accel clean' removes what taps "
				      "that are gone left", ifname);
	err = ta_tap_read(pl, key, &st);
	if (!err)
		return 0;
	if (err != -ENOENT)
		return ta_error_errno(e, err, "cannot read the binding of %s", ifname);
	ret = ta_legacy_detach(ifname, e);
	if (ret < 0)
		return ret;
	if (!ret)
		return ta_error_input(e, ENOENT, "%s has no tap-accel program", ifname);
	return LEGACY;
}

static void report_detach(const char *ifname, bool legacy)
{
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", ifname);
		jw_kv_bool(&json, "detached", true);
		jw_object_end(&json);
	} else if (legacy) {
		printf("detached an older tap-accel's program from %s and removed its pins\n",
		       ifname);
	} else {
		printf("detached tap-accel from %s\n", ifname);
	}
}

/* Every tap found first, then all unbound at once (one wait for frames
 * in flight, however many). */
static int run_detach(const void *opts, int argc, char **argv)
{
	struct ta_tap_key *keys = calloc(argc, sizeof(*keys));
	int *found = calloc(argc, sizeof(*found));
	struct ta_plane pl;
	struct ta_error e;
	uint32_t n = 0;
	int ret, worst = 0;

	(void)opts;
	for (int i = 0; i < argc; i++)
		if (ta_ifname_valid(argv[i]) || !if_nametoindex(argv[i])) {
			free(keys);
			free(found);
			return ta_ifname_valid(argv[i])
				       ? user_error("'%s' is not a valid interface name", argv[i])
				       : user_error("interface %s not found; 'tap-accel clean' removes "
						    "what taps that are gone left", argv[i]);
		}
	ret = keys && found ? require_admin("detach") : system_error("out of memory");
	if (!ret)
		ret = open_plane(&pl, TA_PLANE_WRITE);
	if (ret)
		goto out;
	if (cli.json && argc > 1)
		jw_array_begin(&json);
	for (int i = 0; i < argc; i++) {
		found[i] = detach_find(&pl, argv[i], &keys[n], &e);
		if (found[i] < 0) {
			report_failure(argv[i], &e, argc > 1);
			worst = exit_code(&e) > worst ? exit_code(&e) : worst;
		} else if (found[i] == LEGACY) {
			report_detach(argv[i], true);
		} else {
			n++;
		}
	}
	ret = ta_taps_unbind(&pl, keys, n, &e);
	for (int i = 0; i < argc; i++)
		if (!found[i] && !ret)
			report_detach(argv[i], false);
	if (ret)
		ret = report_error(&e);
	if (cli.json) {
		if (argc > 1)
			jw_array_end(&json);
		jw_end_document(&json);
	}
	ta_plane_close(&pl);
out:
	free(keys);
	free(found);
	return ret ?: worst;
}

const struct command detach_cmd = {
	.name = "detach",
	.args = "IFACE...",
	.summary = "unbind taps: detach the program, remove their state",
	.help = "Detach tap-accel from each tap IFACE and remove what its binding held\n"
		"(counters, guard, forwarding entries). Policies stay loaded; taps that are\n"
		"gone are cleaned by 'tap-accel clean'.\n",
	.min_args = 1,
	.max_args = -1,
	.run = run_detach,
};
