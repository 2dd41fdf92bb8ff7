// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* legacy.c - instances of map layout 3 (legacy.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../sys/netns.h"
#include "../sys/xdp.h"
#include "legacy.h"
#include "plane.h"

/* 1 if the instance's tap exists, 0 if it went, -errno. */
static int alive(const char *dir)
{
	char path[600];
	__u32 zero = 0, ifindex;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/tap", dir);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = bpf_map_lookup_elem(fd, &zero, &ifindex) ? (errno == ENOENT ? 0 : -errno) : 1;
	close(fd);
	return ret;
}

int ta_legacy_remove(const char *dir)
{
	struct dirent *de;
	int fd, ret = 0;
	DIR *d;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && unlinkat(fd, de->d_name, 0) && errno != ENOENT)
			ret = -errno;
	closedir(d);
	if (rmdir(dir) && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}

int ta_legacy_detach(const char *ifname, struct ta_error *e)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	unsigned int ifindex = if_nametoindex(ifname);
	struct ta_xdp_state now;
	unsigned long ino;
	char dir[256], path[300];
	int fd, err;

	if (ta_netns_inode(&ino))
		return 0;
	snprintf(dir, sizeof(dir), "%s/net:%lu/%s", TA_PIN_ROOT, ino, ifname);
	if (access(dir, F_OK))
		return 0;
	snprintf(path, sizeof(path), "%s/prog", dir);
	fd = bpf_obj_get(path);
	if (fd >= 0 && ifindex && !ta_xdp_query(ifindex, &now) &&
	    now.prog_id == ta_prog_id(fd, NULL, 0)) {
		opts.old_prog_fd = fd;
		err = bpf_xdp_detach(ifindex, XDP_FLAGS_REPLACE | now.mode_flag, &opts);
		if (err) {
			close(fd);
			return ta_error_errno(e, err, "cannot detach the older tap-accel's program "
					       "from %s", ifname);
		}
	}
	if (fd >= 0)
		close(fd);
	err = ta_legacy_remove(dir);
	snprintf(path, sizeof(path), "%s/net:%lu", TA_PIN_ROOT, ino);
	rmdir(path); /* with its last instance */
	if (err)
		return ta_error_errno(e, err, "cannot remove %s", dir);
	return 1;
}

static void each_in(const char *dir, bool nested, void (*fn)(const char *, bool, void *),
		    void *arg)
{
	char path[512], probe[600];
	struct dirent *de;
	DIR *d = opendir(dir);

	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR || !strcmp(de->d_name, "links"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (nested && !strncmp(de->d_name, "net:", 4)) {
			each_in(path, false, fn, arg);
			rmdir(path); /* empty once its instances went */
			continue;
		}
		snprintf(probe, sizeof(probe), "%s/ta_config", path);
		if (!access(probe, F_OK))
			fn(path, alive(path) != 0, arg);
	}
	if (d)
		closedir(d);
}

void ta_legacy_each(void (*fn)(const char *dir, bool alive, void *arg), void *arg)
{
	each_in(TA_PIN_ROOT, true, fn, arg);
}
