// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_maps.c - opening a program instance from its pins: every map found
 * by name and checked against tap_accel.h. The pins live in a private
 * directory under /sys/fs/bpf, mounted by the library as the CLI mounts it
 * when none is there, and are removed again.
 */
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "user/lib/maps.h"
#include "user/lib/pins.h"
#include "tap_accel.skel.h"

static char pin_dir[64];

static int pin_all(void)
{
	struct bpf_map *map;
	char path[128];

	snprintf(pin_dir, sizeof(pin_dir), TA_BPFFS "/ta-test-%d", getpid());
	if (mkdir(pin_dir, 0700))
		return -errno;
	bpf_object__for_each_map(map, env.skel->obj)
	{
		snprintf(path, sizeof(path), "%s/%s", pin_dir,
			 bpf_map__name(map));
		if (bpf_obj_pin(bpf_map__fd(map), path))
			return -errno;
	}
	return 0;
}

static void unpin_all(void)
{
	struct bpf_map *map;
	char path[128];

	bpf_object__for_each_map(map, env.skel->obj)
	{
		snprintf(path, sizeof(path), "%s/%s", pin_dir,
			 bpf_map__name(map));
		unlink(path);
	}
	rmdir(pin_dir);
}

/* Open the pins and expect `want`; closes what it opened. */
static int open_expect(int want, const char *what)
{
	struct ta_maps maps;
	char err[256] = "";
	int ret = ta_maps_open_pinned(pin_dir, &maps, err, sizeof(err));

	if (!ret)
		ta_maps_close(&maps);
	CHECK(ret == want, "%s: got %d (%s), expected %d", what, ret, err,
	      want);
	CHECK(want == 0 || err[0], "%s: no message", what);
	return 0;
}

static int check_pinned(void)
{
	struct ta_config cfg = {TA_LAYOUT_VERSION + 1, 0};
	char path[128];
	uint32_t zero = 0;
	int fd;

	if (open_expect(0, "intact pins"))
		return -1;
	/* another layout version */
	OK(bpf_map_update_elem(env.maps.ta_config, &zero, &cfg, 0) ? -errno
								   : 0);
	if (open_expect(-EPROTO, "layout version"))
		return -1;
	OK(ta_maps_init(&env.maps));
	/* right key and value, one parse class short: as layout 1 had it */
	snprintf(path, sizeof(path), "%s/ta_st_parse", pin_dir);
	unlink(path);
	fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ta_st_parse", 4,
			    sizeof(struct ta_counter), TA_PARSE_MAX - 1, NULL);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(!bpf_obj_pin(fd, path), "pin: %s", strerror(errno));
	close(fd);
	if (open_expect(-EPROTO, "fewer entries"))
		return -1;
	unlink(path);
	CHECK(!bpf_obj_pin(bpf_map__fd(env.skel->maps.ta_st_parse), path),
	      "pin again: %s", strerror(errno));
	if (open_expect(0, "pins restored"))
		return -1;
	/* a map of the wrong shape under a right name */
	snprintf(path, sizeof(path), "%s/ta_rules", pin_dir);
	unlink(path);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ta_rules", 4, 16, 1, NULL);
	CHECK(fd >= 0, "create: %s", strerror(errno));
	CHECK(!bpf_obj_pin(fd, path), "pin: %s", strerror(errno));
	close(fd);
	if (open_expect(-EPROTO, "wrong value size"))
		return -1;
	unlink(path);
	return open_expect(-ENOENT, "missing map");
}

static int maps_open_pinned(void)
{
	int ret = ta_bpffs_ensure();

	if (ret) {
		snprintf(fail_msg, sizeof(fail_msg),
			 "no bpffs at %s and mounting one failed: %s", TA_BPFFS,
			 strerror(-ret));
		return ret;
	}
	ret = pin_all();
	if (!ret)
		ret = check_pinned();
	else
		snprintf(fail_msg, sizeof(fail_msg), "pin under %s: %s",
			 pin_dir, strerror(-ret));
	unpin_all();
	return ret;
}

const struct test maps_tests[] = {
	{"maps_open_pinned", maps_open_pinned},
	{NULL, NULL},
};
