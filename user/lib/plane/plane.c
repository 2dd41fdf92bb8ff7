// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* plane.c - the host's policy plane: open, create, lock, remove (plane.h). */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/tapx.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "../sys/netns.h"
#include "../sys/xdp.h"
#include "bpf/tap_accel.skel.h"
#include "bpf/tap_accel_compat.skel.h"
#include "counters.h"
#include "plane.h"
#include "taps.h"

bool ta_bpffs_mounted(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

int ta_bpffs_check(struct ta_error *e)
{
	if (ta_bpffs_mounted(TA_BPFFS))
		return 0;
	return ta_error_system(e, ENOENT,
			       "no bpffs is mounted at %s, so no tap-accel state can be found; "
			       "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
}

/* Mount bpffs on TA_BPFFS unless it is there: 1 mounted, 0 was there. */
static int bpffs_ensure(struct ta_error *e)
{
	if (ta_bpffs_mounted(TA_BPFFS))
		return 0;
	if (!ta_mntns_lasting())
		return ta_error_system(e, ENOENT,
				     "no bpffs at %s, and this mount namespace ends with this command "
				     "(it is not PID 1's, and no other process is in it: 'ip netns exec' "
				     "makes one per command): a bpffs mounted here would go, and the "
				     "taps' programs with it. Mount it on the host ('mount -t bpf bpf "
				     "%s'), or enter the network namespace alone: 'tap-accel --netns "
				     "NAME ...' or 'nsenter --net=/run/netns/NAME tap-accel ...'",
				     TA_BPFFS, TA_BPFFS);
	/* Only the owner may see policies and counters, as with bpftool. */
	if (mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700"))
		return ta_error_errno(e, errno, "no bpffs at %s and mounting one failed; "
				       "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
	return 1;
}

int ta_pins_check_dir(const char *dir, struct ta_error *e)
{
	struct stat st;

	if (lstat(dir, &st))
		return ta_error_errno(e, errno, "cannot check %s", dir);
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022))
		return 0;
	return ta_error_system(e, EPERM,
			       "%s is not a folder of this user closed to others (owner uid %u, mode %03o); "
			       "remove it ('rm -r %s') and try again",
			       dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777), dir);
}

static int make_dir(const char *dir, struct ta_error *e)
{
	if (mkdir(dir, 0700) && errno != EEXIST)
		return ta_error_errno(e, errno, "cannot create %s", dir);
	return ta_pins_check_dir(dir, e);
}

bool ta_plane_exists(void)
{
	return !access(TA_PROG_PIN, F_OK);
}

const char *ta_plane_variant(void)
{
	const char *forced = getenv("TAP_ACCEL_PROG");
	struct btf *vmlinux;
	bool kern_ctx;

	if (forced && !strcmp(forced, "compat"))
		return "tap_accel_compat";
	vmlinux = btf__load_vmlinux_btf();
	kern_ctx = vmlinux &&
		   btf__find_by_name_kind(vmlinux, "bpf_cast_to_kern_ctx", BTF_KIND_FUNC) > 0;
	btf__free(vmlinux);
	return kern_ctx ? "tap_accel" : "tap_accel_compat";
}

uint32_t ta_ct_entries(void)
{
	const char *set = getenv("TAP_ACCEL_CT_ENTRIES");
	unsigned long long kib = 0, n;
	char line[128];
	FILE *f;

	if (set && *set) {
		n = strtoull(set, NULL, 10);
		return n < TA_CT_MIN_ENTRIES ? TA_CT_MIN_ENTRIES
		       : n > TA_CT_MAX_ENTRIES ? TA_CT_MAX_ENTRIES
					       : (uint32_t)n;
	}
	f = fopen("/proc/meminfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	if (!kib)
		return TA_CT_DEFAULT_ENTRIES;
	/* a 512th of the memory, in a power of two of entries */
	n = kib * 1024 / 512 / TA_CT_ENTRY_BYTES;
	for (uint32_t size = TA_CT_MAX_ENTRIES; size >= TA_CT_MIN_ENTRIES; size /= 2)
		if (n >= size)
			return size;
	return TA_CT_MIN_ENTRIES;
}

/* The program object for this kernel, opened (not loaded), its
 * connection table sized for this host. */
static struct bpf_object *open_object(struct ta_error *e)
{
	const char *name = ta_plane_variant();
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = name);
	struct bpf_object *obj;
	struct bpf_map *ct;
	const void *elf;
	size_t size;

	elf = strcmp(name, "tap_accel") ? tap_accel_compat__elf_bytes(&size)
					 : tap_accel__elf_bytes(&size);
	obj = bpf_object__open_mem(elf, size, &opts);
	if (!obj) {
		ta_error_errno(e, errno, "cannot open the program %s", name);
		return NULL;
	}
	ct = bpf_object__find_map_by_name(obj, "ta_ct");
	if (!ct || bpf_map__set_max_entries(ct, ta_ct_entries())) {
		ta_error_errno(e, ct ? errno : ENOENT, "cannot size the connection table");
		bpf_object__close(obj);
		return NULL;
	}
	return obj;
}

/* The counters of taps served without a binding, given once. */
static int unbound_counters(struct ta_plane *pl)
{
	struct ta_config cfg;
	__u32 zero = 0;
	int err;

	if (bpf_map_lookup_elem(pl->maps.ta_config, &zero, &cfg))
		return -errno;
	if (cfg.unbound_stats)
		return 0;
	err = ta_counters_alloc(pl, TA_TAP_STATS, &cfg.unbound_stats);
	if (!err && bpf_map_update_elem(pl->maps.ta_config, &zero, &cfg, 0))
		err = -errno;
	return err;
}

static int config_init(const struct ta_maps *maps)
{
	struct ta_config cfg = {.layout_version = TA_LAYOUT_VERSION};
	struct ta_ct_config ct = {};
	struct bpf_map_info info = {};
	__u32 zero = 0, len = sizeof(info);

	/* new connections stop short of the table's size: the LRU then never
	 * evicts a live one (tap_accel.h) */
	if (bpf_obj_get_info_by_fd(maps->ta_ct, &info, &len))
		return -errno;
	ct.max_tracked = info.max_entries - TA_CT_HEADROOM;
	if (bpf_map_update_elem(maps->ta_ct_config, &zero, &ct, 0))
		return -errno;
	return bpf_map_update_elem(maps->ta_config, &zero, &cfg, 0) ? -errno : 0;
}

/* Remove the pins of a creation that did not finish (no program pin). */
static void remove_partial(void)
{
	char path[512];
	DIR *d = opendir(TA_PIN_ROOT);
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "ta_", 3)) {
			snprintf(path, sizeof(path), "%s/%s", TA_PIN_ROOT, de->d_name);
			unlink(path);
		}
	if (d)
		closedir(d);
	unlink(TA_IN_TC_PIN);
	unlink(TA_IN_DEVMAP_PIN);
}

/* Every policy name, in one batch where the kernel has batches. */
static int names_read(struct ta_plane *pl)
{
	uint32_t *keys = malloc(TA_MAX_POLICIES * sizeof(*keys)), count = TA_MAX_POLICIES, batch;
	int err = 0;

	pl->names = calloc(TA_MAX_POLICIES, sizeof(*pl->names));
	if (!keys || !pl->names) {
		free(keys);
		return -ENOMEM;
	}
	if (bpf_map_lookup_batch(pl->maps.ta_policy_names, NULL, &batch, keys, pl->names, &count,
				 NULL) &&
	    !(errno == ENOENT && count == TA_MAX_POLICIES)) {
		for (__u32 i = 0; i < TA_MAX_POLICIES && !err; i++)
			if (bpf_map_lookup_elem(pl->maps.ta_policy_names, &i, &pl->names[i]))
				err = -errno;
	}
	free(keys);
	return err;
}

/* A duplicate of the loaded program `name`'s descriptor, or -1. */
static int prog_dup(struct bpf_object *obj, const char *name)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

	return prog ? dup(bpf_program__fd(prog)) : -1;
}

/* Load the program and set up its maps: *maps and *prog_fd, and the in
 * programs' in_fd[2] (tc, devmap), are the caller's to close. */
static int load(struct ta_maps *maps, int *prog_fd, int in_fd[2], struct ta_error *e)
{
	struct bpf_object *obj = open_object(e);
	struct bpf_program *prog;
	int err, ret;

	in_fd[0] = in_fd[1] = -1;
	if (!obj)
		return -e->err;
	err = bpf_object__load(obj);
	if (err) {
		ret = ta_error_errno(e, err, "cannot load the tap-accel program (-d shows the "
				     "verifier's log)");
		goto out;
	}
	ret = ta_maps_from_object(obj, maps, e);
	if (ret)
		goto out;
	prog = bpf_object__find_program_by_name(obj, "tap_accel_policy");
	*prog_fd = prog ? dup(bpf_program__fd(prog)) : -1;
	in_fd[0] = prog_dup(obj, "tap_accel_in_tc");
	in_fd[1] = prog_dup(obj, "tap_accel_in_devmap");
	err = *prog_fd < 0 || in_fd[0] < 0 || in_fd[1] < 0 ? -ENOENT : 0;
	err = err ?: config_init(maps);
	if (err) {
		ta_maps_close(maps);
		for (int i = 0; i < 2; i++)
			if (in_fd[i] >= 0)
				close(in_fd[i]);
		if (*prog_fd >= 0)
			close(*prog_fd);
		ret = ta_error_errno(e, err, "cannot set up the maps of the tap-accel program");
	}
out:
	bpf_object__close(obj);
	return ret;
}

/* Load the program, pin its maps, pin it. */
static int create(struct ta_plane *pl, struct ta_error *e)
{
	struct ta_maps maps;
	int prog_fd, in_fd[2], err, ret = load(&maps, &prog_fd, in_fd, e);

	if (ret)
		return ret;
	remove_partial();
	err = ta_maps_pin(&maps, TA_PIN_ROOT);
	/* the program last: its pin says the rest is there */
	if (!err && (bpf_obj_pin(in_fd[0], TA_IN_TC_PIN) ||
		     bpf_obj_pin(in_fd[1], TA_IN_DEVMAP_PIN) || bpf_obj_pin(prog_fd, TA_PROG_PIN)))
		err = -errno;
	ta_maps_close(&maps);
	close(prog_fd);
	close(in_fd[0]);
	close(in_fd[1]);
	if (err) {
		remove_partial();
		return ta_error_errno(e, err, "cannot pin the tap-accel program and maps under %s",
				      TA_PIN_ROOT);
	}
	pl->created = true;
	return 0;
}

int ta_plane_private(struct ta_plane *pl, struct ta_error *e)
{
	unsigned long long cookie;
	int ret, err, in_fd[2];

	memset(pl, 0, sizeof(*pl));
	pl->lock_fd = -1;
	pl->ncpus = libbpf_num_possible_cpus();
	err = ta_netns_cookie(&cookie);
	if (err)
		return ta_error_errno(e, err, "cannot tell which network namespace this is");
	pl->netns_cookie = cookie;
	ret = load(&pl->maps, &pl->prog_fd, in_fd, e);
	pl->in_tc_fd = in_fd[0];
	pl->in_devmap_fd = in_fd[1];
	if (!ret)
		pl->prog_id = ta_prog_id(pl->prog_fd, NULL, 0);
	if (!ret && names_read(pl))
		ret = ta_error_errno(e, errno, "cannot read the policy names");
	if (!ret && (err = unbound_counters(pl)))
		ret = ta_error_errno(e, err, "cannot give unbound taps their counters");
	return ret;
}

static int open_pinned(struct ta_plane *pl, struct ta_error *e)
{
	int ret = ta_maps_open_pinned(TA_PIN_ROOT, &pl->maps, e);

	if (ret && e->input) {
		char why[sizeof(e->text)];

		snprintf(why, sizeof(why), "%s", e->text);
		return ta_error_input(e, EPROTO,
				      "%s; the tap-accel state in %s is of another version: detach "
				      "every tap with that version, or remove it with 'tap-accel "
				      "clean --all' (taps lose their policy)", why, TA_PIN_ROOT);
	}
	if (ret)
		return ret;
	pl->prog_fd = bpf_obj_get(TA_PROG_PIN);
	if (pl->prog_fd < 0)
		return ta_error_errno(e, errno, "cannot open %s", TA_PROG_PIN);
	pl->in_tc_fd = bpf_obj_get(TA_IN_TC_PIN);
	pl->in_devmap_fd = bpf_obj_get(TA_IN_DEVMAP_PIN);
	pl->prog_id = ta_prog_id(pl->prog_fd, NULL, 0);
	if (names_read(pl))
		return ta_error_errno(e, errno, "cannot read the policy names");
	return 0;
}

static int lock_root(struct ta_plane *pl, struct ta_error *e)
{
	pl->lock_fd = open(TA_PIN_ROOT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (pl->lock_fd < 0)
		return ta_error_errno(e, errno, "cannot open %s", TA_PIN_ROOT);
	if (flock(pl->lock_fd, LOCK_EX))
		return ta_error_errno(e, errno, "cannot lock %s", TA_PIN_ROOT);
	return 0;
}

int ta_plane_open(struct ta_plane *pl, enum ta_plane_access how, bool *mounted,
		  struct ta_error *e)
{
	unsigned long long cookie;
	int ret, err;

	memset(pl, 0, sizeof(*pl));
	pl->prog_fd = pl->in_tc_fd = pl->in_devmap_fd = -1;
	pl->lock_fd = -1;
	if (mounted)
		*mounted = false;
	pl->ncpus = libbpf_num_possible_cpus();
	err = ta_netns_cookie(&cookie);
	if (err)
		return ta_error_errno(e, err, "cannot tell which network namespace this is");
	pl->netns_cookie = cookie;
	if (how == TA_PLANE_CREATE) {
		err = bpffs_ensure(e);
		if (err < 0)
			return err;
		if (mounted)
			*mounted = err;
		ret = make_dir(TA_PIN_ROOT, e);
	} else {
		ret = ta_bpffs_check(e);
		if (!ret && access(TA_PROG_PIN, F_OK) && errno != ENOENT)
			return ta_error_errno(e, errno, "cannot open %s", TA_PROG_PIN);
		if (!ret && !ta_plane_exists())
			return ta_error_input(e, ENOENT,
					      "tap-accel serves no tap on this host yet (nothing in %s); "
					      "bind one with 'tap-accel attach IFACE'", TA_PIN_ROOT);
	}
	if (!ret && how != TA_PLANE_READ)
		ret = lock_root(pl, e);
	if (!ret && how == TA_PLANE_CREATE && !ta_plane_exists())
		ret = create(pl, e);
	if (!ret && how == TA_PLANE_CREATE)
		ret = make_dir(TA_LINK_DIR, e);
	if (!ret)
		ret = open_pinned(pl, e);
	if (!ret && pl->created && (err = unbound_counters(pl)))
		ret = ta_error_errno(e, err, "cannot give unbound taps their counters");
	/* under the lock: no other writer is in the middle of a binding */
	if (!ret && how != TA_PLANE_READ && !pl->created &&
	    (err = ta_taps_reclaim(pl, &pl->reclaimed)))
		ret = ta_error_errno(e, err, "cannot free what killed writers left in %s",
				     TA_PIN_ROOT);
	if (ret)
		ta_plane_close(pl);
	return ret;
}

void ta_plane_close(struct ta_plane *pl)
{
	ta_maps_close(&pl->maps);
	if (pl->prog_fd >= 0)
		close(pl->prog_fd);
	if (pl->in_tc_fd >= 0)
		close(pl->in_tc_fd);
	if (pl->in_devmap_fd >= 0)
		close(pl->in_devmap_fd);
	if (pl->lock_fd >= 0)
		close(pl->lock_fd); /* and with it the lock */
	pl->prog_fd = pl->in_tc_fd = pl->in_devmap_fd = pl->lock_fd = -1;
	free(pl->names);
	free(pl->blocks);
	free(pl->chunk_blocks);
	pl->names = NULL;
	pl->blocks = NULL;
	pl->chunk_blocks = NULL;
}

int ta_plane_sync(const struct ta_plane *pl)
{
	__u32 zero = 0, id;
	int inner = -1, err = 0;

	/* the map already there, stored again: the wait without a new map */
	if (!bpf_map_lookup_elem(pl->maps.ta_sync, &zero, &id))
		inner = bpf_map_get_fd_by_id(id);
	if (inner < 0)
		inner = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ta_sync_inner", 4, 4, 1, NULL);
	if (inner < 0)
		return -errno;
	/* A map-in-map update returns after an RCU grace period. */
	if (bpf_map_update_elem(pl->maps.ta_sync, &zero, &inner, 0))
		err = -errno;
	close(inner);
	return err;
}

int ta_plane_get_unbound(const struct ta_plane *pl, uint32_t *action, uint32_t *policy)
{
	struct ta_config cfg;
	__u32 zero = 0;

	if (bpf_map_lookup_elem(pl->maps.ta_config, &zero, &cfg))
		return -errno;
	*action = cfg.unbound_action;
	*policy = cfg.unbound_policy;
	return 0;
}

int ta_plane_set_unbound(const struct ta_plane *pl, uint32_t action, uint32_t policy)
{
	struct ta_config cfg;
	__u32 zero = 0;

	if (action >= TA_UNBOUND_MAX || policy >= TA_MAX_POLICIES)
		return -EINVAL;
	if (bpf_map_lookup_elem(pl->maps.ta_config, &zero, &cfg))
		return -errno;
	cfg.unbound_action = action;
	cfg.unbound_policy = policy;
	return bpf_map_update_elem(pl->maps.ta_config, &zero, &cfg, 0) ? -errno : 0;
}

/* tapx's node: /dev/net/tapx, or /dev/net/tun when tapx has it
 * (tun_compat=1, which stock tun's module has not). -ENODEV: no tapx. */
static int tapx_open(void)
{
	char flag = 0;
	int fd = open("/dev/net/tapx", O_RDWR | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	/* a node left by a module now gone answers ENXIO or ENODEV */
	if (errno == ENXIO || errno == ENODEV)
		return -ENODEV;
	if (errno != ENOENT)
		return -errno;
	fd = open("/sys/module/tapx/parameters/tun_compat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENODEV;
	if (read(fd, &flag, 1) != 1)
		flag = 0;
	close(fd);
	if (flag != 'Y')
		return -ENODEV;
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	return fd >= 0 ? fd : errno == ENOENT || errno == ENXIO ? -ENODEV : -errno;
}

int ta_tapx_default(int prog_fd, uint32_t *id)
{
	int fd = tapx_open(), err = 0;
	__u32 now = 0;

	if (fd < 0)
		return fd;
	if (prog_fd != TA_TAPX_GET && ioctl(fd, TAPXSETDEFPROG, &prog_fd))
		err = -errno;
	if (!err && id && ioctl(fd, TAPXGETDEFPROG, &now))
		err = -errno;
	close(fd);
	/* a tapx from before default programs: unknown ioctls of a file
	 * bound to no device are EBADFD there */
	if (err == -EBADFD || err == -ENOTTY)
		err = -ENODEV;
	if (!err && id)
		*id = now;
	return err;
}

/* Unpin (and detach) every link, then the maps and the program. */
int ta_plane_remove(void)
{
	char path[512];
	struct dirent *de;
	struct ta_error e;
	int ret = 0, fd;
	DIR *d;

	/* never through a link another user planted, nor in a folder not ours */
	if (access(TA_PIN_ROOT, F_OK) && errno == ENOENT)
		return 0;
	if (ta_pins_check_dir(TA_PIN_ROOT, &e))
		return -ELOOP;
	d = opendir(TA_LINK_DIR);
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", TA_LINK_DIR, de->d_name);
		fd = bpf_obj_get(path);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
		if (unlink(path) && errno != ENOENT)
			ret = -errno;
	}
	if (d)
		closedir(d);
	if (rmdir(TA_LINK_DIR) && errno != ENOENT && !ret)
		ret = -errno;
	remove_partial();
	if (unlink(TA_PROG_PIN) && errno != ENOENT && !ret)
		ret = -errno;
	return ret;
}
