// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_maps.c - opening the plane's maps from their pins: every map found
 * by name and checked against tap_accel.h. The pins live in a private
 * directory under /sys/fs/bpf (mounted here when none is there) and are
 * removed again.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "user/lib/plane/maps.h"

static char pin_dir[64];

static int pin_all(void)
{
	snprintf(pin_dir, sizeof(pin_dir), TA_BPFFS "/ta-test-%d", getpid());
	if (mkdir(pin_dir, 0700))
		return -errno;
	return ta_maps_pin(&env.pl.maps, pin_dir);
}

static void unpin_all(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", pin_dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", pin_dir);
}

/* Open the pins and expect `want` (an exit code); closes what it opened. */
/* want: 0, or the errno of an error that blames the pins (the input). */
static int open_expect(int want, const char *what)
{
	struct ta_maps maps;
	struct ta_error e = {};
	int ret = ta_maps_open_pinned(pin_dir, &maps, &e);

	if (!ret)
		ta_maps_close(&maps);
	CHECK(ret == -want && (!want || e.input), "%s: got %d (%s), expected %d", what, ret,
	      e.text, -want);
	CHECK(want == 0 || e.text[0], "%s: no message", what);
	return 0;
}

/* A pin replaced by a map of another shape under the same name. */
static int replace_pin(const char *name, enum bpf_map_type type, uint32_t value_size,
		       uint32_t entries)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pin_dir, name);
	unlink(path);
	fd = bpf_map_create(type, name, 4, value_size, entries, NULL);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(!bpf_obj_pin(fd, path), "pin: %s", strerror(errno));
	close(fd);
	return 0;
}

static int check_pinned(void)
{
	struct ta_config cfg = {.layout_version = TA_LAYOUT_VERSION + 1}, good;
	uint32_t zero = 0;

	if (open_expect(0, "intact pins"))
		return -1;
	/* another layout version */
	OK(bpf_map_lookup_elem(env.pl.maps.ta_config, &zero, &good) ? -errno : 0);
	OK(bpf_map_update_elem(env.pl.maps.ta_config, &zero, &cfg, 0) ? -errno : 0);
	if (open_expect(EPROTO, "layout version"))
		return -1;
	OK(bpf_map_update_elem(env.pl.maps.ta_config, &zero, &good, 0) ? -errno : 0);
	/* right key and value, fewer entries: as an older layout had it */
	if (replace_pin("ta_policy_active", BPF_MAP_TYPE_ARRAY, 4, TA_MAX_POLICIES - 1) ||
	    open_expect(EPROTO, "fewer entries"))
		return -1;
	/* a map of the wrong shape under a right name */
	if (replace_pin("ta_policy_active", BPF_MAP_TYPE_ARRAY, 8, TA_MAX_POLICIES) ||
	    open_expect(EPROTO, "wrong value size"))
		return -1;
	unpin_all();
	OK(pin_all());
	if (open_expect(0, "pins restored"))
		return -1;
	{
		char path[128];

		snprintf(path, sizeof(path), "%s/ta_sync", pin_dir);
		unlink(path);
	}
	return open_expect(ENOENT, "missing map");
}

static int maps_open_pinned(void)
{
	int ret = 0;

	if (!ta_bpffs_mounted(TA_BPFFS) && mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700"))
		ret = -errno;
	if (ret) {
		snprintf(fail_msg, sizeof(fail_msg), "no bpffs at %s and mounting one failed: %s",
			 TA_BPFFS, strerror(-ret));
		return ret;
	}
	ret = pin_all();
	if (!ret)
		ret = check_pinned();
	else
		snprintf(fail_msg, sizeof(fail_msg), "pin under %s: %s", pin_dir, strerror(-ret));
	unpin_all();
	return ret;
}

const struct test maps_tests[] = {
	{"maps_open_pinned", maps_open_pinned},
	{NULL, NULL},
};
