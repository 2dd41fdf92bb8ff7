// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach.c - attach and detach: one instance of the policy program per
 * tap, its maps and itself pinned in the tap's folder (lib/pins.h). The
 * pins are the only state; every other verb finds the instance through
 * them.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/tap_accel.skel.h"
#include "lib/maps.h"
#include "lib/policy_parse.h"
#include "lib/util.h"
#include "lib/xdp.h"
#include "verbs.h"

static const char attach_usage[] =
	"Usage: tap-accel attach IFACE [--policy FILE] [--mode native|generic] [--force]\n"
	"\n"
	"Load the tap-accel policy program for IFACE (a tap), pin its maps under\n"
	"" TA_PIN_ROOT "/net:INODE/IFACE/ (INODE: this network namespace's)\n"
	"and attach it as IFACE's XDP program.\n"
	"Attaching again to an interface tap-accel already serves replaces the\n"
	"program atomically and keeps its maps (policy, fdb, counters).\n"
	"\n"
	"  --policy FILE  load this policy before the program sees a frame\n"
	"  --mode MODE    native (default; the driver runs XDP) or generic (XDP\n"
	"                 on the skb, works on every device)\n"
	"  --force        replace an XDP program tap-accel did not attach\n";

static const char detach_usage[] =
	"Usage: tap-accel detach IFACE\n"
	"\n"
	"Detach tap-accel's program from IFACE and remove its pins.\n";

/* ---- attach ---------------------------------------------------------- */

struct attach_plan {
	const char *ifname;
	unsigned int ifindex;
	uint32_t mode_flag;	 /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	const char *mode;
	bool force;
	char dir[256];
	struct ta_xdp_state now;	 /* what is attached before we start */
	int old_fd;		 /* the program we replace, or -1 */
	bool reattach;		 /* ours is attached: keep its maps */
	struct ta_policy_spec *policy;
};

static int refuse(const char *ifname, int owner, const struct ta_owner *o)
{
	struct ta_error e;

	ta_pins_refuse(ifname, owner, o, &e);
	return report_error(&e);
}

/* Refuse an interface that is not a tap before touching anything. */
static int check_is_tap(const char *ifname)
{
	char driver[64];
	int ret = ta_netdev_is_tap(ifname, driver, sizeof(driver));

	if (ret < 0)
		return errno_error(ret, "cannot tell what kind of device %s is", ifname);
	if (!ret)
		return user_error("%s is not a tap device (it is %s); tap-accel attaches to taps "
				  "('ip tuntap add NAME mode tap')", ifname, driver);
	return 0;
}

/* The pins of a re-attach must be of this version's layout. */
static int check_pins(const char *ifname)
{
	struct ta_pins p;
	int ret = open_pinned(ifname, &p);

	if (!ret)
		ta_pins_close(&p);
	return ret;
}

/* Decide between a fresh attach, a re-attach of ours and a forced replace. */
static int plan_attach(struct attach_plan *a)
{
	char name[BPF_OBJ_NAME_LEN] = "";
	struct ta_owner owner;
	uint32_t ours = 0;
	int fd = -1, err;

	err = ta_xdp_query(a->ifindex, &a->now);
	if (err)
		return errno_error(err, "cannot query the XDP program of %s", a->ifname);
	ta_pins_prog(a->dir, &fd, &ours);
	if (a->now.prog_id && a->now.prog_id == ours) {
		if (a->now.mode_flag != a->mode_flag) {
			close(fd);
			return user_error("%s has tap-accel attached in %s mode; detach it first to change the mode",
					  a->ifname, a->now.mode);
		}
		a->reattach = true;
		a->old_fd = fd;
		return check_pins(a->ifname);
	}
	if (fd >= 0)
		close(fd);
	err = ta_pins_owner(a->dir, a->ifname, &owner);
	if (err == PINS_FOREIGN || err == PINS_RENAMED || (err < 0 && err != -ENOENT))
		return refuse(a->ifname, err, &owner);
	if (!a->now.prog_id)
		return 0;
	a->old_fd = bpf_prog_get_fd_by_id(a->now.prog_id);
	ta_prog_id(a->old_fd, name, sizeof(name));
	if (a->force)
		return 0;
	if (!strncmp(name, "tap_accel", 9))
		return user_error("%s has a tap-accel program (id %u) whose pins are missing from %s "
				  "(another bpffs or mount namespace?); use --force to replace it",
				  a->ifname, a->now.prog_id, a->dir);
	return user_error("%s has an XDP program tap-accel did not attach (id %u); "
			  "use --force to replace it", a->ifname, a->now.prog_id);
}

/* Fresh: libbpf pins every map by its name when it creates it. */
static int set_pin_paths(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *map;
	char path[512];

	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		if (bpf_map__set_pin_path(map, path))
			return -ENOMEM;
	}
	return 0;
}

/* Re-attach: the new program uses the pinned maps, already checked by
 * check_pins(). Not libbpf's own pin reuse: it refuses the devmap, whose
 * flags the kernel amends at creation. */
static int reuse_pinned_maps(struct bpf_object *obj, const char *dir)
{
	struct bpf_map *map;
	char path[512];
	int fd, err;

	bpf_object__for_each_map(map, obj) {
		if (bpf_map__is_internal(map))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, bpf_map__name(map));
		fd = bpf_obj_get(path);
		if (fd < 0)
			return -errno;
		err = bpf_map__reuse_fd(map, fd);
		close(fd);
		if (err)
			return err;
	}
	return 0;
}

static int xdp_attach(struct attach_plan *a, int prog_fd)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	int err;

	if (a->now.prog_id && a->now.mode_flag == a->mode_flag) {
		/* Replace only the program we looked at, never one that raced in. */
		opts.old_prog_fd = a->old_fd;
		return bpf_xdp_attach(a->ifindex, prog_fd, XDP_FLAGS_REPLACE | a->mode_flag, &opts);
	}
	if (a->now.prog_id) {
		/* --force over a program in the other mode: both cannot be active. */
		opts.old_prog_fd = a->old_fd;
		err = bpf_xdp_detach(a->ifindex, XDP_FLAGS_REPLACE | a->now.mode_flag, &opts);
		if (err)
			return err;
	}
	return bpf_xdp_attach(a->ifindex, prog_fd, XDP_FLAGS_UPDATE_IF_NOEXIST | a->mode_flag, NULL);
}

static int explain_attach_error(struct attach_plan *a, int err)
{
	if (err == -EOPNOTSUPP && a->mode_flag == XDP_FLAGS_DRV_MODE)
		return system_error("native XDP not supported here, use --mode generic");
	if (err == -EEXIST || err == -EBUSY)
		return system_error("%s got another XDP program while tap-accel attached "
				    "(or it is held by a bpf link); see 'ip link show %s'",
				    a->ifname, a->ifname);
	return errno_error(err, "cannot attach to %s", a->ifname);
}

/* Load, pin, configure, attach; on failure leave things as they were. */
static int load_and_attach(struct attach_plan *a)
{
	char tmp[512], final[512], msg[256], new_dir[256];
	struct tap_accel *skel;
	struct ta_error e;
	struct ta_maps maps;
	int err, ret = EXIT_OK;

	if (!a->reattach && ta_pins_legacy(a->dir)) {
		ta_pins_remove(a->dir); /* stale pins of the old layout */
		ta_pin_dir(a->ifname, a->dir, sizeof(a->dir));
	}
	ret = ta_pins_make_parents(a->dir, &e);
	if (ret)
		return report_error(&e);
	if (a->reattach && ta_pins_legacy(a->dir)) {
		/* Ours in the old layout: move it where this namespace's are. */
		ta_pin_dir(a->ifname, new_dir, sizeof(new_dir));
		if (rename(a->dir, new_dir))
			return errno_error(errno, "cannot move %s to %s", a->dir, new_dir);
		snprintf(a->dir, sizeof(a->dir), "%s", new_dir);
	}
	/* bpffs names cannot hold a dot */
	snprintf(tmp, sizeof(tmp), "%s/%s_new", a->dir, TA_PROG_PIN);
	snprintf(final, sizeof(final), "%s/%s", a->dir, TA_PROG_PIN);
	if (!a->reattach)
		ta_pins_remove(a->dir); /* stale pins of an instance no longer attached */
	if (mkdir(a->dir, 0700) && errno != EEXIST)
		return errno_error(errno, "cannot create %s", a->dir);
	ret = ta_pins_check_dir(a->dir, &e);
	if (ret)
		return report_error(&e);

	skel = tap_accel__open();
	if (!skel) {
		ret = errno_error(errno, "cannot open the tap-accel program");
		goto out_pins;
	}
	err = a->reattach ? reuse_pinned_maps(skel->obj, a->dir) : set_pin_paths(skel->obj, a->dir);
	if (!err)
		err = tap_accel__load(skel);
	if (err) {
		ret = errno_error(err, "cannot load the tap-accel program (-d shows why)");
		goto out;
	}
	err = ta_maps_from_object(skel->obj, &maps, msg, sizeof(msg));
	if (err) {
		ret = errno_error(err, "%s", msg);
		goto out;
	}
	if (!a->reattach)
		err = ta_maps_init(&maps);
	if (!err)
		err = ta_pins_mark(&maps, a->dir, a->ifindex);
	if (err)
		ret = errno_error(err, "cannot initialise the maps of the tap-accel program");
	else if (a->policy)
		ret = policy_apply(a->ifname, &maps, a->policy);
	ta_maps_close(&maps);
	if (ret)
		goto out;
	err = bpf_program__pin(skel->progs.tap_accel_policy, tmp);
	if (err) {
		ret = errno_error(err, "cannot pin the program at %s", tmp);
		goto out;
	}
	err = xdp_attach(a, bpf_program__fd(skel->progs.tap_accel_policy));
	if (err) {
		unlink(tmp);
		ret = explain_attach_error(a, err);
		goto out;
	}
	if (rename(tmp, final))
		note("warning: cannot rename %s to %s: %s", tmp, final, strerror(errno));
	ret = EXIT_OK;
out:
	tap_accel__destroy(skel);
out_pins:
	if (ret && !a->reattach)
		ta_pins_remove(a->dir);
	return ret;
}

static void report_attach(const struct attach_plan *a)
{
	struct ta_xdp_state now = { 0 };

	if (!cli.json) {
		printf("attached tap-accel to %s (%s mode)\n", a->ifname, a->mode);
		return;
	}
	ta_xdp_query(a->ifindex, &now);
	jw_object_begin(&json);
	jw_kv_string(&json, "ifname", a->ifname);
	jw_kv_string(&json, "mode", a->mode);
	jw_kv_u64(&json, "prog_id", now.prog_id);
	jw_kv_string(&json, "pins", a->dir);
	jw_object_end(&json);
	jw_end_document(&json);
}

static int parse_mode(const char *s, struct attach_plan *a)
{
	if (!s || !strcmp(s, "native")) {
		a->mode = "native";
		a->mode_flag = XDP_FLAGS_DRV_MODE;
	} else if (!strcmp(s, "generic")) {
		a->mode = "generic";
		a->mode_flag = XDP_FLAGS_SKB_MODE;
	} else {
		return user_error("attach: --mode is native or generic, not '%s'", s);
	}
	return 0;
}

int cmd_attach(int argc, char **argv)
{
	struct verb_option opts[] = {
		{ "policy", true, NULL, 0 }, { "mode", true, NULL, 0 }, { "force", false, NULL, 0 },
		{ NULL, false, NULL, 0 },
	};
	struct ta_policy_spec spec;
	struct attach_plan a = { .old_fd = -1 };
	int n, ret, err;

	n = parse_verb_options(argc, argv, attach_usage, opts, &ret);
	if (n < 0)
		return ret;
	if (n != 1)
		return user_error("attach: expected one interface; see tap-accel attach --help");
	a.ifname = argv[1];
	a.force = opts[2].value != NULL;
	ret = parse_mode(opts[1].value, &a);
	if (!ret)
		ret = require_interface(a.ifname, &a.ifindex);
	if (!ret)
		ret = check_is_tap(a.ifname);
	if (!ret && opts[0].value) {
		ret = policy_read(opts[0].value, &spec);
		a.policy = ret ? NULL : &spec;
	}
	if (!ret)
		ret = require_admin("attach");
	if (!ret && !ta_bpffs_mounted(TA_BPFFS)) {
		err = ta_bpffs_ensure();
		if (err)
			ret = errno_error(err, "no bpffs at %s and mounting one failed; "
					  "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
		else
			note("mounted a bpffs at %s (the pins live there; "
			     "it lasts as long as this mount namespace)", TA_BPFFS);
	}
	if (!ret && (err = ta_pins_find(a.ifname, a.dir, sizeof(a.dir))) && err != -ENOENT)
		ret = errno_error(err, "cannot open the pins of %s", a.ifname);
	if (!ret)
		ret = plan_attach(&a);
	if (!ret)
		ret = load_and_attach(&a);
	if (!ret)
		report_attach(&a);
	if (a.old_fd >= 0)
		close(a.old_fd);
	if (a.policy)
		ta_policy_spec_free(a.policy);
	return ret;
}

/* ---- detach ------------------------------------------------------------ */

int cmd_detach(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	struct ta_owner owner;
	struct ta_xdp_state now;
	unsigned int ifindex;
	uint32_t ours;
	char dir[256];
	int n, ret, fd, err;

	n = parse_verb_options(argc, argv, detach_usage, NULL, &ret);
	if (n < 0)
		return ret;
	if (n != 1)
		return user_error("detach: expected one interface; see tap-accel detach --help");
	ret = require_interface(argv[1], &ifindex);
	if (ret) {
		if (ret == EXIT_USER)
			note("to remove pins of interfaces that are gone, run 'tap-accel clean'");
		return ret;
	}
	ret = require_admin("detach");
	if (ret)
		return ret;
	err = ta_pins_find(argv[1], dir, sizeof(dir));
	if (err && err != -ENOENT)
		return errno_error(err, "cannot open the pins of %s", argv[1]);
	err = ta_pins_owner(dir, argv[1], &owner);
	if (err == PINS_FOREIGN || err == PINS_RENAMED || err < 0)
		return refuse(argv[1], err, &owner);
	err = ta_xdp_query(ifindex, &now);
	if (err)
		return errno_error(err, "cannot query the XDP program of %s", argv[1]);
	if (ta_pins_prog(dir, &fd, &ours)) {
		if (now.prog_id)
			return user_error("%s has no tap-accel program; its XDP program (id %u) was not "
					  "attached by tap-accel ('ip link set dev %s xdp off' removes it)",
					  argv[1], now.prog_id, argv[1]);
		return user_error("%s has no tap-accel program", argv[1]);
	}
	if (now.prog_id == ours) {
		opts.old_prog_fd = fd;
		err = bpf_xdp_detach(ifindex, XDP_FLAGS_REPLACE | now.mode_flag, &opts);
	}
	close(fd);
	if (err)
		return errno_error(err, "cannot detach from %s", argv[1]);
	err = ta_pins_remove(dir);
	if (err)
		return errno_error(err, "detached, but cannot remove the pins under %s", dir);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", argv[1]);
		jw_kv_bool(&json, "detached", now.prog_id == ours);
		jw_kv_bool(&json, "pins_removed", true);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf(now.prog_id == ours ? "detached tap-accel from %s\n"
					   : "%s had no tap-accel program attached; removed its stale pins\n",
		       argv[1]);
	}
	return EXIT_OK;
}
