// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* pins.c - pin folders: where, whose, open, walk, remove (see pins.h). */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "maps.h"
#include "netns.h"
#include "pins.h"
#include "util.h"
#include "xdp.h"

bool ta_bpffs_mounted(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int ta_bpffs_ensure(void)
{
	if (ta_bpffs_mounted(TA_BPFFS))
		return 0;
	/* Only the owner may see policies and counters, as with bpftool. */
	if (mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700"))
		return -errno;
	return 0;
}

int ta_bpffs_check(struct ta_error *e)
{
	if (ta_bpffs_mounted(TA_BPFFS))
		return EXIT_OK;
	return ta_error_set(e, EXIT_SYSTEM,
			    "no bpffs is mounted at %s, so no tap-accel state can be found; "
			    "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
}

static int fits(int n, size_t size)
{
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int ta_pins_ns_dir(char *buf, size_t size)
{
	unsigned long ino;
	int err = ta_netns_inode(&ino);

	if (err)
		return err;
	return fits(snprintf(buf, size, "%s/net:%lu", TA_PIN_ROOT, ino), size);
}

int ta_pin_dir(const char *ifname, char *buf, size_t size)
{
	char ns[128];
	int err = ta_pins_ns_dir(ns, sizeof(ns));

	if (err)
		return err;
	return fits(snprintf(buf, size, "%s/%s", ns, ifname), size);
}

bool ta_pins_legacy(const char *dir)
{
	size_t n = strlen(TA_PIN_ROOT);

	return !strncmp(dir, TA_PIN_ROOT "/", n + 1) && !strchr(dir + n + 1, '/');
}

int ta_pins_find(const char *ifname, char *dir, size_t size)
{
	char legacy[256];
	struct ta_owner o;
	int err;

	err = ta_pin_dir(ifname, dir, size);
	if (err)
		return err;
	if (!access(dir, F_OK))
		return 0;
	if (errno != ENOENT)
		return -errno;
	err = fits(snprintf(legacy, sizeof(legacy), "%s/%s", TA_PIN_ROOT, ifname), sizeof(legacy));
	if (err)
		return err;
	if (access(legacy, F_OK))
		return errno == ENOENT ? -ENOENT : -errno;
	/* A same-named tap of another namespace keeps its old folder; this
	 * one's go to its own. */
	if (ta_pins_owner(legacy, ifname, &o) == PINS_FOREIGN)
		return -ENOENT;
	return fits(snprintf(dir, size, "%s", legacy), size);
}

int ta_pins_read_owner(const char *dir, struct ta_owner *owner)
{
	char path[4096];
	__u32 zero = 0;
	int fd, err = 0;

	if (snprintf(path, sizeof(path), "%s/ta_owner", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	if (bpf_map_lookup_elem(fd, &zero, owner))
		err = -errno;
	close(fd);
	return err;
}

/* Whether the tap of the pins in `dir` exists: 1 yes, 0 gone, -ENOENT
 * (no `tap` pin: bpftool or an older tap-accel made them) or -errno. */
static int tap_alive(const char *dir)
{
	char path[4096];
	__u32 zero = 0, ifindex;
	int fd, ret;

	snprintf(path, sizeof(path), "%s/%s", dir, TA_TAP_PIN);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -errno;
	ret = bpf_map_lookup_elem(fd, &zero, &ifindex) ? (errno == ENOENT ? 0 : -errno) : 1;
	close(fd);
	return ret;
}

int ta_pins_owner(const char *dir, const char *ifname, struct ta_owner *o)
{
	unsigned long long here;
	int err, tap;

	memset(o, 0, sizeof(*o));
	err = ta_pins_read_owner(dir, o);
	if (err && err != -ENOENT)
		return err;
	tap = tap_alive(dir);
	if (tap < 0 && tap != -ENOENT)
		return tap;
	if (tap == 0)
		return PINS_STALE; /* and its program went with it */
	if (o->netns_cookie) {
		err = ta_netns_cookie(&here);
		if (err)
			return err;
		if (o->netns_cookie != here)
			return PINS_FOREIGN;
		if (if_nametoindex(ifname) == o->ifindex)
			return PINS_OURS;
		return tap == 1 ? PINS_RENAMED : PINS_STALE;
	}
	/* Not recorded (bpftool, or an older layout): judge by the name. */
	return if_nametoindex(ifname) ? PINS_OURS : PINS_STALE;
}

int ta_pins_refuse(const char *ifname, int owner, const struct ta_owner *o, struct ta_error *e)
{
	char now[IF_NAMESIZE] = "?";

	if (owner == PINS_FOREIGN)
		return ta_error_set(e, EXIT_USER,
				    "the pins of %s belong to a live tap of that name in another network "
				    "namespace; run this in that namespace ('tap-accel --netns NAME ...')",
				    ifname);
	if (owner == PINS_STALE)
		return ta_error_set(e, EXIT_USER,
				    "the pins of %s are of an earlier %s (ifindex %u), gone with its "
				    "program; attach again ('tap-accel attach %s')",
				    ifname, ifname, o->ifindex, ifname);
	if (owner == PINS_RENAMED) {
		if_indextoname(o->ifindex, now);
		return ta_error_set(e, EXIT_USER,
				    "the pins of %s belong to the tap of ifindex %u, now named %s; "
				    "rename it back ('ip link set %s name %s') to use them",
				    ifname, o->ifindex, now, now, ifname);
	}
	return ta_error_errno(e, owner, "cannot read the owner of the pins of %s", ifname);
}

int ta_pins_prog(const char *dir, int *fd, uint32_t *id)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, TA_PROG_PIN);
	*id = 0;
	*fd = bpf_obj_get(path);
	if (*fd < 0)
		return -errno;
	*id = ta_prog_id(*fd, NULL, 0);
	return 0;
}

int ta_pins_open(const char *ifname, struct ta_pins *p, struct ta_error *e)
{
	struct ta_owner owner;
	char msg[256];
	int err;

	memset(p, 0, sizeof(*p));
	p->prog_fd = -1;
	if (ta_ifname_valid(ifname))
		return ta_error_set(e, EXIT_USER, "'%s' is not a valid interface name", ifname);
	err = ta_bpffs_check(e);
	if (err)
		return err;
	err = ta_pins_find(ifname, p->dir, sizeof(p->dir));
	if (err == -ENOENT)
		return ta_error_set(e, EXIT_USER,
				    "%s has no tap-accel program; attach one with 'tap-accel attach %s'",
				    ifname, ifname);
	if (err)
		return ta_error_errno(e, err, "cannot open %s", p->dir);
	err = ta_pins_owner(p->dir, ifname, &owner);
	if (err != PINS_OURS)
		return ta_pins_refuse(ifname, err, &owner, e);
	err = ta_maps_open_pinned(p->dir, &p->maps, msg, sizeof(msg));
	if (err == -EPROTO)
		return ta_error_set(e, EXIT_USER,
				    "%s; these pins are from another tap-accel version (this one has "
				    "layout %d): re-attach with 'tap-accel detach %s && tap-accel attach %s'",
				    msg, TA_LAYOUT_VERSION, ifname, ifname);
	if (err == -ENOENT)
		return ta_error_set(e, EXIT_USER,
				    "%s; the pins of %s are incomplete: re-attach with "
				    "'tap-accel detach %s && tap-accel attach %s'",
				    msg, ifname, ifname, ifname);
	if (err)
		return ta_error_errno(e, err, "%s", msg);
	ta_pins_prog(p->dir, &p->prog_fd, &p->prog_id);
	return EXIT_OK;
}

void ta_pins_close(struct ta_pins *p)
{
	ta_maps_close(&p->maps);
	if (p->prog_fd >= 0)
		close(p->prog_fd);
	p->prog_fd = -1;
}

int ta_pins_mark_tap(const char *dir, unsigned int ifindex)
{
	__u32 zero = 0, value = ifindex;
	char path[512];
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, TA_TAP_PIN);
	if (!access(path, F_OK))
		return 0;
	fd = bpf_map_create(BPF_MAP_TYPE_DEVMAP_HASH, "ta_tap", 4, 4, 1, NULL);
	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(fd, &zero, &value, 0) || bpf_obj_pin(fd, path))
		err = -errno;
	close(fd);
	return err;
}

int ta_pins_mark(const struct ta_maps *maps, const char *dir, unsigned int ifindex)
{
	struct ta_owner owner = { .ifindex = ifindex };
	int err;

	err = ta_netns_cookie(&owner.netns_cookie);
	if (!err)
		err = ta_maps_set_owner(maps, &owner);
	if (!err)
		err = ta_pins_mark_tap(dir, ifindex);
	return err;
}

int ta_pins_check_dir(const char *dir, struct ta_error *e)
{
	struct stat st;

	if (lstat(dir, &st))
		return ta_error_errno(e, errno, "cannot check %s", dir);
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022))
		return EXIT_OK;
	return ta_error_set(e, EXIT_SYSTEM,
			    "%s is not a folder of this user closed to others (owner uid %u, mode %03o); "
			    "remove it ('rm -r %s') and attach again",
			    dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777), dir);
}

static int make_dir(const char *dir, struct ta_error *e)
{
	if (mkdir(dir, 0700) && errno != EEXIST)
		return ta_error_errno(e, errno, "cannot create %s", dir);
	return ta_pins_check_dir(dir, e);
}

int ta_pins_make_parents(const char *dir, struct ta_error *e)
{
	char ns[256];
	int ret = make_dir(TA_PIN_ROOT, e);

	if (ret || ta_pins_legacy(dir))
		return ret;
	snprintf(ns, sizeof(ns), "%s", dir);
	*strrchr(ns, '/') = 0;
	return make_dir(ns, e);
}

/* Whether TA_PIN_ROOT and every folder between it and `dir` are folders,
 * not links. */
static bool real_dirs_above(const char *dir)
{
	size_t n = strlen(TA_PIN_ROOT);
	char path[256];
	struct stat st;
	char *slash;

	if (strncmp(dir, TA_PIN_ROOT "/", n + 1) || strlen(dir) >= sizeof(path))
		return true; /* not ours to judge (a test's own folder) */
	snprintf(path, sizeof(path), "%s", dir);
	for (slash = path + n; slash && *slash; slash = strchr(slash + 1, '/')) {
		char c = *slash;

		*slash = 0;
		if (lstat(path, &st) || !S_ISDIR(st.st_mode)) {
			*slash = c;
			return false;
		}
		*slash = c;
		if (!strchr(slash + 1, '/'))
			break; /* the last name is O_NOFOLLOW's */
	}
	return true;
}

int ta_pins_remove(const char *dir)
{
	char parent[256], *slash;
	struct dirent *e;
	int fd, ret = 0;
	DIR *d;

	/* Never through a symlink, and every name relative to the folder
	 * opened: in a world-writable bpffs another user could have planted
	 * a link to a folder whose files root would then delete. O_NOFOLLOW
	 * guards the last name; the folders above it are checked here. */
	if (!real_dirs_above(dir))
		return -ELOOP;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	d = fdopendir(fd);
	if (!d) {
		ret = -errno;
		close(fd);
		return ret;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (unlinkat(fd, e->d_name, 0) && errno != ENOENT)
			ret = -errno;
	}
	closedir(d);
	if (rmdir(dir) && errno != ENOENT && !ret)
		ret = -errno;
	/* The namespace's folder goes with its last instance. */
	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (!ret && slash) {
		*slash = 0;
		if (!strncmp(parent, TA_PIN_ROOT "/net:", strlen(TA_PIN_ROOT) + 5) &&
		    !strchr(parent + strlen(TA_PIN_ROOT) + 1, '/'))
			rmdir(parent); /* fails while others are left, as it should */
	}
	return ret;
}

/* Open a folder without following a link; NULL with errno. */
static DIR *open_folder(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

/* Every instance folder of one namespace's folder. */
static int each_in(const char *nsdir, const char *ns, int (*fn)(const struct ta_pins_entry *, void *),
		   void *arg)
{
	struct ta_pins_entry en = { .ns = ns };
	char dir[512];
	struct dirent *e;
	int ret = 0;
	DIR *d = open_folder(nsdir);

	while (!ret && d && (e = readdir(d))) {
		if (e->d_name[0] == '.' || e->d_type != DT_DIR)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", nsdir, e->d_name);
		en.ifname = e->d_name;
		en.dir = dir;
		ret = fn(&en, arg);
	}
	if (d)
		closedir(d);
	return ret;
}

bool ta_pins_used_here(const struct ta_pins_entry *en)
{
	char dir[256];

	if (en->ns || ta_ifname_valid(en->ifname))
		return false;
	return !ta_pins_find(en->ifname, dir, sizeof(dir)) && !strcmp(dir, en->dir);
}

int ta_pins_each(bool all, int (*fn)(const struct ta_pins_entry *, void *), void *arg,
		 struct ta_error *e)
{
	char here[128], dir[512];
	struct ta_pins_entry en = { .legacy = true };
	struct dirent *de;
	int ret, err;
	DIR *d;

	ret = ta_bpffs_check(e);
	if (ret)
		return ret;
	d = open_folder(TA_PIN_ROOT);
	if (!d && errno != ENOENT) /* unreadable is not empty */
		return ta_error_errno(e, errno, "cannot read %s", TA_PIN_ROOT);
	if (!d)
		return EXIT_OK;
	err = ta_pins_ns_dir(here, sizeof(here));
	if (err) {
		closedir(d);
		return ta_error_errno(e, err, "cannot tell which network namespace this is");
	}
	ret = each_in(here, NULL, fn, arg);
	/* Then the old layout's, then (with `all`) other namespaces'. */
	for (int pass = 0; pass < 2 && !ret; pass++) {
		rewinddir(d);
		while (!ret && (de = readdir(d))) {
			bool ns = !strncmp(de->d_name, "net:", 4);

			if (de->d_name[0] == '.' || de->d_type != DT_DIR)
				continue;
			snprintf(dir, sizeof(dir), "%s/%s", TA_PIN_ROOT, de->d_name);
			if (pass == 0 && !ns) {
				en.ifname = de->d_name;
				en.dir = dir;
				ret = fn(&en, arg);
			} else if (pass == 1 && ns && all && strcmp(dir, here)) {
				ret = each_in(dir, de->d_name, fn, arg);
			}
		}
	}
	closedir(d);
	return ret;
}
