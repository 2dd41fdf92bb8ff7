// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * clean.c - remove the pins of interfaces that no longer exist. Their
 * programs went with the interface; the pins keep only maps alive. Pins
 * record the namespace and ifindex of their tap (ta_owner), so a tap of
 * the same name in another namespace keeps its pins, and a tap deleted and
 * made again under its old name loses the old ones.
 */
#include <dirent.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "verbs.h"

static const char clean_usage[] =
	"Usage: tap-accel clean [IFACE...]\n"
	"\n"
	"Remove " TA_PIN_ROOT "/IFACE/ for every IFACE (or only those named)\n"
	"whose tap is gone from this network namespace. Pins of a tap in another\n"
	"namespace are kept (and listed): run clean there for those.\n";

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
static void list_names(const char *key, char names[][IF_NAMESIZE], int count)
{
	jw_key(&json, key);
	jw_array_begin(&json);
	for (int i = 0; i < count; i++)
		jw_string(&json, names[i]);
	jw_array_end(&json);
}

int cmd_clean(int argc, char **argv)
{
	static char removed[1024][IF_NAMESIZE], kept[1024][IF_NAMESIZE];
	int n, ret, owner, failed = 0, nr_removed = 0, nr_kept = 0;
	struct ta_owner o;
	struct dirent *e;
	char dir[512];
	DIR *d;

	n = parse_verb_options(argc, argv, clean_usage, NULL, &ret);
	if (n < 0)
		return ret;
	ret = require_admin("clean");
	if (ret)
		return ret;
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so there are no pins to clean", TA_BPFFS);
	d = opendir(TA_PIN_ROOT);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR || !wanted(e->d_name, n, argv))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", TA_PIN_ROOT, e->d_name);
		/* A folder that cannot be an interface name is nobody's tap. */
		owner = ta_ifname_valid(e->d_name) ? PINS_STALE : pins_owner(dir, e->d_name, &o);
		if (owner == PINS_OURS)
			continue;
		if (owner == PINS_FOREIGN) {
			if (nr_kept < 1024)
				snprintf(kept[nr_kept++], IF_NAMESIZE, "%s", e->d_name);
			if (!cli.json)
				printf("kept the pins of %s (a tap in another network namespace)\n",
				       e->d_name);
			continue;
		}
		if (owner < 0 || ta_pins_remove(dir)) {
			failed++;
			fprintf(stderr, "tap-accel: cannot remove %s\n", dir);
			continue;
		}
		if (nr_removed < 1024)
			snprintf(removed[nr_removed++], IF_NAMESIZE, "%s", e->d_name);
		if (!cli.json)
			printf("removed the pins of %s (interface gone)\n", e->d_name);
	}
	if (d)
		closedir(d);
	if (cli.json) {
		jw_object_begin(&json);
		list_names("removed", removed, nr_removed);
		list_names("kept", kept, nr_kept);
		jw_object_end(&json);
		jw_end_document(&json);
	}
	return failed ? EXIT_SYSTEM : EXIT_OK;
}
