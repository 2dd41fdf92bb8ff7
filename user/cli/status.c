// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * status.c - every tap bound on the host (of this namespace, or all): its
 * mode, its policy, its guard, and whether it is still there. One pass
 * over the bindings, whatever their number.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sys/file.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/state.h"
#include "lib/plane/conntrack.h"
#include "lib/plane/policies.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "verbs.h"

struct status_opts {
	bool all;
	const char *run_dir;
};

static const char *state_name(enum ta_link_state s)
{
	return s == TA_LINK_LIVE ? "attached" : s == TA_LINK_GONE ? "gone" : "unlinked";
}

static const char *mode_name(uint32_t xdp_flags)
{
	return xdp_flags == XDP_FLAGS_SKB_MODE ? "generic"
	       : xdp_flags == XDP_FLAGS_DRV_MODE ? "native"
						 : "-";
}

/* The policies, read once for every tap. */
struct policy_cache {
	struct ta_policy_info *list;
	uint32_t nr;
};

static const struct ta_policy_info *policy_of(const struct policy_cache *pc, uint32_t index)
{
	for (uint32_t i = 0; i < pc->nr; i++)
		if (pc->list[i].index == index)
			return &pc->list[i];
	return NULL;
}

/* The connections a tap has in the table; 0 if they cannot be read. */
static uint32_t tracked_of(const struct ta_plane *pl, const struct ta_tap_state *st)
{
	uint32_t n = 0;

	ta_conns_tracked(pl, st->tap.id, &n);
	return n;
}

/* One binding: its line of the table, or its element of the array. */
static void plain_tap(const struct ta_tap_state *st, const struct ta_policy_info *p,
		      const struct ta_plane *pl)
{
	char hex[20] = "-", guard[16], where[48] = "", conns[16] = "-";
	uint32_t tracked = tracked_of(pl, st);

	if (p)
		digest_hex(p->head.digest, hex);
	/* a one-way policy tracks nothing: "-" unless connections of
	 * before are left */
	if (tracked || (p && p->head.ct_flags & TA_POL_F_CT))
		snprintf(conns, sizeof(conns), "%u", tracked);
	ta_guard_words(st->tap.guard_flags, guard, sizeof(guard));
	if (!st->here)
		snprintf(where, sizeof(where), "net:%llu/", (unsigned long long)st->key.netns_cookie);
	printf("%s%-15s %-8s %-16s %6u %-8s %-16s %-12s %8s %s\n", where, st->ifname,
	       mode_name(st->info.xdp_flags), p ? p->name : "?", p ? p->head.nr_rules : 0,
	       p ? ta_action_name(p->head.default_action) : "-", hex, guard, conns,
	       state_name(st->link));
}

static void json_tap(const struct ta_tap_state *st, const struct ta_policy_info *p,
		     const struct ta_plane *pl)
{
	char hex[20], guard[16];

	ta_guard_words(st->tap.guard_flags, guard, sizeof(guard));
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", st->ifname);
	jw_kv_u64(&json, "ifindex", st->key.ifindex);
	jw_kv_u64(&json, "netns_cookie", st->key.netns_cookie);
	jw_kv_bool(&json, "here", st->here);
	jw_kv_string(&json, "state", state_name(st->link));
	jw_kv_string(&json, "mode", mode_name(st->info.xdp_flags));
	jw_kv_string(&json, "policy", p ? p->name : "?");
	if (p) {
		digest_hex(p->head.digest, hex);
		jw_kv_u64(&json, "rules", p->head.nr_rules);
		jw_kv_string(&json, "default", ta_action_name(p->head.default_action));
		jw_kv_string(&json, "digest", hex);
	}
	jw_kv_string(&json, "guard", guard);
	jw_kv_u64(&json, "conntrack_tracked", tracked_of(pl, st));
	jw_kv_bool(&json, "agent", st->info.flags & TA_TAP_F_AGENT);
	jw_kv_u64(&json, "tap_id", st->tap.id);
	jw_kv_u64(&json, "prog_id", st->link == TA_LINK_LIVE ? pl->prog_id : 0);
	jw_kv_u64(&json, "link_id", st->link_id);
	jw_object_end(&json);
}

/* tapx's default program here, where tapx is: a line after the table.
 * The JSON is the taps' array alone, each element a tap. */
static void print_tapx_default(uint32_t plane_id)
{
	uint32_t id;

	if (cli.json || ta_tapx_default(TA_TAPX_GET, &id))
		return;
	if (!id)
		printf("tapx: new taps here run no program until bound\n");
	else
		printf("tapx: new taps here run %s (id %u) until bound\n",
		       id == plane_id ? "the plane's program" : "a program not tap-accel's", id);
}

/* The connection table, a line after the taps' (the JSON is theirs
 * alone: `conntrack show --json` has the table's). */
static void print_conntrack(const struct ta_plane *pl)
{
	struct ta_conns_use use;
	char tap[48] = "no limit per tap";

	if (cli.json || ta_conns_use(pl, &use))
		return;
	if (use.tap_limit)
		snprintf(tap, sizeof(tap), "from %u on a tap (tap-limit)", use.tap_limit);
	printf("conntrack: %u connections tracked; new ones refused from %u on the host (max), "
	       "%s; a table of %u entries x %u bytes = %.1f MiB\n", use.tracked, use.limit,
	       tap, use.entries, TA_CT_ENTRY_BYTES,
	       use.entries * (double)TA_CT_ENTRY_BYTES / (1 << 20));
}

/* ---- what the agent sees (its state file, agent/state.c) ---------------------- */

/* Whether an agent holds the lock beside the state file: it runs. */
static bool agent_running(const char *dir)
{
	char path[PATH_MAX + 16];
	int fd, held;

	snprintf(path, sizeof(path), "%s/%s", dir, AGENT_LOCK_FILE);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return false;
	held = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return held;
}

static bool watched(char **cookies, uint32_t nr, uint64_t cookie)
{
	char text[24];

	snprintf(text, sizeof(text), "%llu", (unsigned long long)cookie);
	for (uint32_t i = 0; i < nr; i++)
		if (!strcmp(cookies[i], text))
			return true;
	return false;
}

/* One "tap" record: its line of the table, or its element of the array. */
static void plain_agent_tap(char **f)
{
	printf("%-15s %-16s %-8s %s\n", f[4], f[1], f[5], f[6]);
}

static void json_agent_tap(char **f)
{
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", f[4]);
	jw_kv_u64(&json, "ifindex", strtoull(f[3], NULL, 10));
	jw_kv_u64(&json, "netns_cookie", strtoull(f[2], NULL, 10));
	jw_kv_string(&json, "netns", f[1]);
	jw_kv_string(&json, "state", f[5]);
	jw_kv_string(&json, "why", f[6]);
	jw_object_end(&json);
}

/*
 * --all: after the bindings, every tap the agent sees that is not bound
 * as its configuration asks, and why (no binding matches it, its file was
 * left out, its policy did not load); the files it left out; the bound
 * taps of namespaces it does not watch. Nothing when no agent of this
 * plane wrote a state file.
 */
static void print_agent_view(const struct status_opts *o, uint32_t plane_id,
			     const struct ta_tap_state *list, uint32_t n)
{
	char copy[PATH_MAX], path[PATH_MAX + 16], line[4096], *f[8], *cookies[64];
	uint32_t nr_cookies = 0, fields;
	const char *dir;
	bool ours = false, running;
	FILE *in;

	snprintf(copy, sizeof(copy), "%s", o->run_dir);
	dir = dirname(copy);
	snprintf(path, sizeof(path), "%s/%s", dir, AGENT_STATE_FILE);
	in = fopen(path, "re");
	if (!in)
		return;
	running = agent_running(dir);
	while (fgets(line, sizeof(line), in)) {
		line[strcspn(line, "\n")] = 0;
		fields = 0;
		for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && fields < 8;
		     t = strtok_r(NULL, "\t", &save))
			f[fields++] = t;
		if (fields == 2 && !strcmp(f[0], "prog")) {
			ours = strtoul(f[1], NULL, 10) == plane_id || !plane_id;
			if (ours && !cli.json)
				printf("\nthe agent%s (%s): taps it does not bind, and why\n"
				       "%-15s %-16s %-8s %s\n", running ? "" : ", not running now",
				       path, "IFACE", "NETNS", "STATE", "WHY");
		}
		if (!ours)
			continue;
		if (fields == 3 && !strcmp(f[0], "netns") && nr_cookies < 64)
			cookies[nr_cookies++] = strdup(f[2]);
		else if (fields == 7 && !strcmp(f[0], "tap") && strcmp(f[5], "bound"))
			(cli.json ? json_agent_tap : plain_agent_tap)(f);
		else if (fields == 2 && !strcmp(f[0], "refused") && !cli.json)
			printf("left out: %s\n", f[1]);
	}
	fclose(in);
	for (uint32_t i = 0; ours && !cli.json && i < n; i++)
		if (!watched(cookies, nr_cookies, list[i].key.netns_cookie))
			printf("%-15s net:%-12llu bound    its namespace is not watched by the agent\n",
			       list[i].ifname, (unsigned long long)list[i].key.netns_cookie);
	for (uint32_t i = 0; i < nr_cookies; i++)
		free(cookies[i]);
}

static int run_status(const void *opts, int argc, char **argv)
{
	const struct status_opts *o = opts;
	struct policy_cache pc = {};
	struct ta_tap_state *list;
	struct ta_plane pl;
	struct ta_error e;
	uint32_t n, plane_id = 0;
	int ret, err;

	(void)argc;
	(void)argv;
	/* Nothing printed before the bpffs is known to be there. */
	ret = ta_bpffs_check(&e);
	if (ret)
		return report_error(&e);
	if (!ta_plane_exists() && errno == EACCES)
		return errno_error(errno, "cannot read %s", TA_PIN_ROOT);
	if (!ta_plane_exists()) {
		n = 0;
		list = NULL;
	} else {
		ret = open_plane(&pl, TA_PLANE_READ);
		if (ret)
			return ret;
		plane_id = pl.prog_id;
		err = ta_taps_read(&pl, &list, &n);
		err = err ?: ta_policies_read(&pl, &pc.list, &pc.nr);
		if (err) {
			ta_plane_close(&pl);
			return errno_error(err, "cannot read the bindings");
		}
	}
	if (cli.json)
		jw_array_begin(&json);
	else
		printf("%-15s %-8s %-16s %6s %-8s %-16s %-12s %8s %s\n", "IFACE", "MODE", "POLICY",
		       "RULES", "DEFAULT", "DIGEST", "GUARD", "CONNS", "STATE");
	for (uint32_t i = 0; i < n; i++)
		if (o->all || list[i].here)
			(cli.json ? json_tap : plain_tap)(&list[i],
							  policy_of(&pc, list[i].tap.policy), &pl);
	if (list)
		print_conntrack(&pl);
	if (o->all)
		print_agent_view(o, plane_id, list, n);
	print_tapx_default(plane_id);
	if (cli.json) {
		jw_array_end(&json);
		jw_end_document(&json);
	}
	if (list)
		ta_plane_close(&pl);
	free(list);
	free(pc.list);
	return EXIT_OK;
}

static const struct option_spec status_options[] = {
	{ "all", 'a', OPT_FLAG, offsetof(struct status_opts, all), NULL,
	  "the taps of every network namespace (IFACE then reads net:COOKIE/NAME),\n"
	  "and those the agent sees but does not bind, with why", NULL, 0, 0 },
	{ "run-dir", 0, OPT_STRING, offsetof(struct status_opts, run_dir), "DIR",
	  "the agent's runtime folder (default " AGENT_RUN_DIR "): its state\n"
	  "file is in the folder above", NULL, 0, 0 },
	OPTIONS_END,
};

static const struct status_opts status_defaults = {.run_dir = AGENT_RUN_DIR};

const struct command status_cmd = {
	.name = "status",
	.summary = "the bound taps: mode, policy, guard, state",
	.help = "Every tap bound here: IFACE, MODE, its POLICY with its RULES, DEFAULT and\n"
		"DIGEST, the GUARD checks on, CONNS the connections it tracks (two-way\n"
		"policies; - for one-way), and STATE: attached, gone (the tap was\n"
		"deleted: 'tap-accel clean') or unlinked (bound without a link, by\n"
		"bpftool or a failed attach). A line after the table gives the connection\n"
		"table's use, limits and size. Where tapx is loaded, a last line says what\n"
		"program its new taps here run until they are bound (its default program).\n"
		"With --all, where the agent runs: every tap it sees but does not bind, and\n"
		"why (no binding matches it, its file was left out and why, an error), and\n"
		"the bound taps of namespaces it does not watch.\n",
	.options = status_options,
	.opts_size = sizeof(struct status_opts),
	.defaults = &status_defaults,
	.max_args = 0,
	.run = run_status,
};
