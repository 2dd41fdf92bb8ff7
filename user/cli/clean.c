// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * clean.c - remove the pins of interfaces that no longer exist. Their
 * programs went with the interface; the pins keep only maps alive.
 */
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "lib/util.h"
#include "verbs.h"

static const char clean_usage[] =
	"Usage: tap-accel clean [IFACE...]\n"
	"\n"
	"Remove " TA_PIN_ROOT "/IFACE/ for every IFACE (or only those named)\n"
	"that does not exist in this network namespace. Run it in the namespace\n"
	"of your taps: pins are named by interface name only.\n";

static bool wanted(const char *name, int argc, char **argv)
{
	if (argc == 0)
		return true;
	for (int i = 1; i <= argc; i++)
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

int cmd_clean(int argc, char **argv)
{
	char dir[512];
	struct dirent *e;
	int n, ret, failed = 0;
	DIR *d;

	n = parse_verb_options(argc, argv, clean_usage, NULL, &ret);
	if (n < 0)
		return ret;
	ret = require_admin("clean");
	if (ret)
		return ret;
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so there are no pins to clean", TA_BPFFS);
	if (cli.json) {
		jw_object_begin(&json);
		jw_key(&json, "removed");
		jw_array_begin(&json);
	}
	d = opendir(TA_PIN_ROOT);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR || !wanted(e->d_name, n, argv) ||
		    (!ta_ifname_valid(e->d_name) && if_nametoindex(e->d_name)))
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", TA_PIN_ROOT, e->d_name);
		if (ta_pins_remove(dir)) {
			failed++;
			fprintf(stderr, "tap-accel: cannot remove %s\n", dir);
			continue;
		}
		if (cli.json)
			jw_string(&json, e->d_name);
		else
			printf("removed the pins of %s (interface gone)\n", e->d_name);
	}
	if (d)
		closedir(d);
	if (cli.json) {
		jw_array_end(&json);
		jw_object_end(&json);
		jw_end_document(&json);
	}
	return failed ? EXIT_SYSTEM : EXIT_OK;
}
