// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * clean.c - remove the pins of taps that no longer exist. Their programs
 * went with the tap; the pins keep only maps alive. Pins hold their tap
 * in a devmap the kernel empties when the tap goes (lib/pins.h), so pins
 * of a deleted tap, or of a namespace that is gone, are told apart from a
 * live tap's in any namespace: those are never removed.
 */
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "verbs.h"

static const char clean_usage[] =
	"Usage: tap-accel clean [IFACE...]\n"
	"\n"
	"Remove the pins under " TA_PIN_ROOT "/ of every tap (or only those named)\n"
	"that is gone: deleted, or gone with its network namespace. Pins of a live\n"
	"tap are kept, whatever namespace it is in; those of another namespace are\n"
	"listed.\n";

#define MAX_NAMES 1024
#define NAME_SIZE (IF_NAMESIZE + 32) /* net:INODE/IFACE */

struct clean {
	int argc;
	char **argv;
	int failed, nr_removed, nr_kept;
	char removed[MAX_NAMES][NAME_SIZE], kept[MAX_NAMES][NAME_SIZE];
};

static bool wanted(const char *name, int argc, char **argv)
{
	if (argc == 0)
		return true;
	for (int i = 1; i <= argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

/* Names the JSON lists: "removed" and "kept" (another namespace's). */
static void list_names(const char *key, char names[][NAME_SIZE], int count)
{
	jw_key(&json, key);
	jw_array_begin(&json);
	for (int i = 0; i < count; i++)
		jw_string(&json, names[i]);
	jw_array_end(&json);
}

static int clean_one(const struct ta_pins_entry *en, void *arg)
{
	struct clean *c = arg;
	char name[NAME_SIZE], where[48] = "";
	struct ta_owner o;
	int owner;

	if (!wanted(en->ifname, c->argc, c->argv))
		return 0;
	if (en->ns)
		snprintf(where, sizeof(where), " in %s", en->ns);
	snprintf(name, sizeof(name), "%s%s%s", en->ns ? en->ns : "", en->ns ? "/" : "", en->ifname);
	/* A folder that cannot be an interface name is nobody's tap. */
	owner = ta_ifname_valid(en->ifname) ? PINS_STALE : ta_pins_owner(en->dir, en->ifname, &o);
	/* Another namespace's folder: only a tap known to be gone is ours to
	 * clean; names mean nothing here. */
	if (en->ns && owner != PINS_STALE)
		owner = PINS_FOREIGN;
	if (owner == PINS_OURS)
		return 0;
	if (owner == PINS_FOREIGN || owner == PINS_RENAMED) {
		if (c->nr_kept < MAX_NAMES)
			snprintf(c->kept[c->nr_kept++], NAME_SIZE, "%s", name);
		if (!cli.json)
			printf("kept the pins of %s%s (%s)\n", en->ifname, where,
			       owner == PINS_RENAMED ? "a tap of this namespace, renamed"
						     : "a tap in another network namespace");
		return 0;
	}
	if (owner < 0 || ta_pins_remove(en->dir)) {
		c->failed++;
		fprintf(stderr, "tap-accel: cannot remove %s\n", en->dir);
		return 0;
	}
	if (c->nr_removed < MAX_NAMES)
		snprintf(c->removed[c->nr_removed++], NAME_SIZE, "%s", name);
	if (!cli.json)
		printf("removed the pins of %s%s (interface gone)\n", en->ifname, where);
	return 0;
}

int cmd_clean(int argc, char **argv)
{
	static struct clean c;
	struct ta_error e;
	int n, ret;

	n = parse_verb_options(argc, argv, clean_usage, NULL, &ret);
	if (n < 0)
		return ret;
	ret = require_admin("clean");
	if (ret)
		return ret;
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so there are no pins to clean", TA_BPFFS);
	memset(&c, 0, sizeof(c));
	c.argc = n;
	c.argv = argv;
	ret = ta_pins_each(true, clean_one, &c, &e);
	if (ret)
		return report_error(&e);
	if (cli.json) {
		jw_object_begin(&json);
		list_names("removed", c.removed, c.nr_removed);
		list_names("kept", c.kept, c.nr_kept);
		jw_object_end(&json);
		jw_end_document(&json);
	}
	return c.failed ? EXIT_SYSTEM : EXIT_OK;
}
