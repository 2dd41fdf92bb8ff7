// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * clean.c - remove what taps that are gone left: their bindings (the
 * kernel detached their links when they went; lib/plane/taps.h tells them from
 * live taps of any namespace), and the pins of older tap-accel instances
 * whose taps went. With --all, everything tap-accel keeps on the host.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/plane/legacy.h"
#include "lib/plane/taps.h"
#include "verbs.h"

struct clean_opts {
	bool all;
};

#define MAX_NAMES 4096

struct cleaned {
	char (*removed)[80], (*kept)[80];
	int nr_removed, nr_kept, failed;
};

static void add_name(char (*list)[80], int *n, const char *name)
{
	if (*n < MAX_NAMES)
		snprintf(list[(*n)++], 80, "%s", name);
}

static void list_names(const char *key, char (*names)[80], int count)
{
	jw_key(&json, key);
	jw_array_begin(&json);
	for (int i = 0; i < count; i++)
		jw_string(&json, names[i]);
	jw_array_end(&json);
}

/* "IFACE" here, "net:COOKIE/IFACE" elsewhere. */
static void tap_name(const struct ta_tap_state *st, char *buf, size_t size)
{
	if (st->here)
		snprintf(buf, size, "%s", st->ifname);
	else
		snprintf(buf, size, "net:%llu/%s", (unsigned long long)st->key.netns_cookie,
			 st->ifname);
}

static int clean_bindings(struct ta_plane *pl, int argc, char **argv, struct cleaned *c)
{
	struct ta_tap_state *list;
	struct ta_error e;
	uint32_t n;
	char name[80];
	int err = ta_taps_read(pl, &list, &n);

	if (err)
		return errno_error(err, "cannot read the bindings");
	for (uint32_t i = 0; i < n; i++) {
		const struct ta_tap_state *st = &list[i];
		bool named = !argc;

		for (int a = 0; a < argc && !named; a++)
			named = !strcmp(argv[a], st->ifname);
		if (!named || st->link != TA_LINK_GONE)
			continue;
		tap_name(st, name, sizeof(name));
		if (ta_tap_unbind(pl, &st->key, &e)) {
			warning(&e);
			c->failed++;
			continue;
		}
		add_name(c->removed, &c->nr_removed, name);
		if (!cli.json)
			printf("removed the binding of %s (interface gone)\n", name);
	}
	free(list);
	return 0;
}

static void clean_legacy(const char *dir, bool alive, void *arg)
{
	struct cleaned *c = arg;
	const char *name = dir + strlen(TA_PIN_ROOT) + 1;

	if (alive) {
		add_name(c->kept, &c->nr_kept, name);
		if (!cli.json)
			printf("kept %s: an older tap-accel's program still serves its tap (detach it "
			       "with 'tap-accel detach IFACE' in its namespace)\n", dir);
		return;
	}
	if (ta_legacy_remove(dir)) {
		fprintf(stderr, "tap-accel: cannot remove %s\n", dir);
		c->failed++;
		return;
	}
	add_name(c->removed, &c->nr_removed, name);
	if (!cli.json)
		printf("removed %s (an older tap-accel's pins; interface gone)\n", dir);
}

static int run_clean(const void *opts, int argc, char **argv)
{
	const struct clean_opts *o = opts;
	struct cleaned c = {};
	struct ta_plane pl;
	int ret;

	ret = require_admin("clean");
	if (ret)
		return ret;
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so there is nothing to clean", TA_BPFFS);
	if (o->all && argc)
		return user_error("clean: --all removes everything; name no interface with it");
	c.removed = calloc(MAX_NAMES, sizeof(*c.removed));
	c.kept = calloc(MAX_NAMES, sizeof(*c.kept));
	if (!c.removed || !c.kept) {
		ret = system_error("out of memory");
		goto out;
	}
	if (o->all) {
		ret = ta_plane_remove();
		if (ret) {
			ret = errno_error(ret, "cannot remove everything under %s", TA_PIN_ROOT);
			goto out;
		}
		ta_legacy_remove(TA_PIN_ROOT); /* and whatever is left, then the folder */
		/* tapx's default here would keep running the program unpinned */
		ret = ta_tapx_default(-1, NULL);
		if (ret && ret != -ENODEV) {
			ret = errno_error(ret, "cannot clear tapx's default program");
			goto out;
		}
		ret = 0;
		if (!cli.json)
			printf("removed every tap-accel program, link, map and pin under %s\n",
			       TA_PIN_ROOT);
		add_name(c.removed, &c.nr_removed, TA_PIN_ROOT);
	} else {
		if (ta_plane_exists()) {
			ret = open_plane(&pl, TA_PLANE_WRITE);
			if (!ret) {
				ret = clean_bindings(&pl, argc, argv, &c);
				ta_plane_close(&pl);
			}
		}
		if (!ret && !argc)
			ta_legacy_each(clean_legacy, &c);
	}
	if (!ret && cli.json) {
		jw_object_begin(&json);
		list_names("removed", c.removed, c.nr_removed);
		list_names("kept", c.kept, c.nr_kept);
		jw_object_end(&json);
		jw_end_document(&json);
	}
	if (!ret && c.failed)
		ret = EXIT_SYSTEM;
out:
	free(c.removed);
	free(c.kept);
	return ret;
}

static const struct option_spec clean_options[] = {
	{ "all", 0, OPT_FLAG, offsetof(struct clean_opts, all), NULL,
	  "remove everything: detach every tap, unload every policy, unpin the\n"
	  "program, clear tapx's default program here (taps pass frames unjudged\n"
	  "from then on)", NULL, 0, 0 },
	OPTIONS_END,
};

const struct command clean_cmd = {
	.name = "clean",
	.args = "[IFACE...]",
	.summary = "remove what taps that are gone left (--all: everything)",
	.help = "Remove the bindings of every tap (or those named) that is gone: deleted,\n"
		"or gone with its network namespace. Live taps keep theirs, in whatever\n"
		"namespace. The pins of an older tap-accel's instances whose taps went go\n"
		"too.\n",
	.options = clean_options,
	.opts_size = sizeof(struct clean_opts),
	.max_args = -1,
	.run = run_clean,
};
