// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * attach.c - attach and detach: one instance of the policy program per
 * interface, its maps and itself pinned under TA_PIN_ROOT/IFACE/. The pins
 * are the only state; every other verb finds the instance through them.
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
#include "verbs.h"

static const char attach_usage[] =
	"Usage: tap-accel attach IFACE [--policy FILE] [--mode native|generic] [--force]\n"
	"\n"
	"Load the tap-accel policy program for IFACE (a tap), pin its maps under\n"
	"" TA_PIN_ROOT "/IFACE/ and attach it as IFACE's XDP program.\n"
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

int query_xdp(unsigned int ifindex, struct xdp_state *st)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err;

	memset(st, 0, sizeof(*st));
	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	st->prog_id = q.prog_id;
	if (q.attach_mode == XDP_ATTACHED_DRV) {
		st->mode = "native";
		st->mode_flag = XDP_FLAGS_DRV_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_SKB) {
		st->mode = "generic";
		st->mode_flag = XDP_FLAGS_SKB_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_HW) {
		st->mode = "offload";
		st->mode_flag = XDP_FLAGS_HW_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_MULTI) {
		/* Two programs in two modes: report the one frames meet first. */
		st->prog_id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
		st->mode = q.drv_prog_id ? "native" : "generic";
		st->mode_flag = q.drv_prog_id ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	} else {
		st->mode = "none";
	}
	return 0;
}

uint32_t prog_id_of(int prog_fd, char *name, size_t size)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	if (name)
		snprintf(name, size, "%s", info.name);
	return info.id;
}

/* The program pinned for `dir`, if any: its fd (caller closes) and id. */
static int pinned_prog(const char *dir, int *fd, uint32_t *id)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, TA_PROG_PIN);
	*id = 0;
	*fd = bpf_obj_get(path);
	if (*fd < 0)
		return -errno;
	*id = prog_id_of(*fd, NULL, 0);
	return 0;
}

int open_pin_root(DIR **d)
{
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so no tap-accel state can be found; "
				    "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
	*d = opendir(TA_PIN_ROOT);
	if (!*d && errno != ENOENT) /* unreadable is not empty */
		return errno_error(errno, "cannot read %s", TA_PIN_ROOT);
	return 0;
}

int pins_owner(const char *dir, const char *ifname, struct ta_owner *o)
{
	unsigned long long here;
	int err;

	memset(o, 0, sizeof(*o));
	err = ta_pins_owner(dir, o);
	if (err && err != -ENOENT)
		return err;
	if (o->netns_cookie) {
		err = ta_netns_cookie(&here);
		if (err)
			return err;
		if (o->netns_cookie != here)
			return PINS_FOREIGN;
		return if_nametoindex(ifname) == o->ifindex ? PINS_OURS : PINS_STALE;
	}
	/* Not recorded (bpftool, or an older layout): judge by the name. */
	return if_nametoindex(ifname) ? PINS_OURS : PINS_STALE;
}

int refuse_pins(const char *ifname, int owner, const struct ta_owner *o)
{
	if (owner == PINS_FOREIGN)
		return user_error("the pins of %s belong to a tap of that name in another network "
				  "namespace; tap-accel names pins by interface name, so run this in "
				  "that namespace, or give this tap another name", ifname);
	if (owner == PINS_STALE)
		return user_error("the pins of %s are of an earlier %s (ifindex %u), gone with its "
				  "program; attach again ('tap-accel attach %s')",
				  ifname, ifname, o->ifindex, ifname);
	return errno_error(owner, "cannot read the owner of the pins of %s", ifname);
}

int open_pinned(const char *ifname, struct pinned *p)
{
	struct ta_owner owner;
	char msg[256];
	int err;

	memset(p, 0, sizeof(*p));
	p->prog_fd = -1;
	if (ta_ifname_valid(ifname))
		return user_error("'%s' is not a valid interface name", ifname);
	if (!ta_bpffs_mounted(TA_BPFFS))
		return system_error("no bpffs is mounted at %s, so no tap-accel state can be found; "
				    "mount it with 'mount -t bpf bpf %s'", TA_BPFFS, TA_BPFFS);
	ta_pin_dir(ifname, p->dir, sizeof(p->dir));
	if (access(p->dir, F_OK))
		return errno == ENOENT
			? user_error("%s has no tap-accel program; attach one with 'tap-accel attach %s'",
				     ifname, ifname)
			: errno_error(errno, "cannot open %s", p->dir);
	err = pins_owner(p->dir, ifname, &owner);
	if (err != PINS_OURS)
		return refuse_pins(ifname, err, &owner);
	err = ta_maps_open_pinned(p->dir, &p->maps, msg, sizeof(msg));
	if (err == -EPROTO)
		return user_error("%s; these pins are from another tap-accel version (this one has "
				  "layout %d): re-attach with 'tap-accel detach %s && tap-accel attach %s'",
				  msg, TA_LAYOUT_VERSION, ifname, ifname);
	if (err == -ENOENT)
		return user_error("%s; the pins of %s are incomplete: re-attach with "
				  "'tap-accel detach %s && tap-accel attach %s'", msg, ifname, ifname, ifname);
	if (err)
		return errno_error(err, "%s", msg);
	pinned_prog(p->dir, &p->prog_fd, &p->prog_id);
	return 0;
}

void close_pinned(struct pinned *p)
{
	ta_maps_close(&p->maps);
	if (p->prog_fd >= 0)
		close(p->prog_fd);
	p->prog_fd = -1;
}

/* ---- attach ---------------------------------------------------------- */

struct attach_plan {
	const char *ifname;
	unsigned int ifindex;
	uint32_t mode_flag;	 /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	const char *mode;
	bool force;
	char dir[256];
	struct xdp_state now;	 /* what is attached before we start */
	int old_fd;		 /* the program we replace, or -1 */
	bool reattach;		 /* ours is attached: keep its maps */
	struct ta_policy_spec *policy;
};

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
	struct pinned p;
	int ret = open_pinned(ifname, &p);

	if (!ret)
		close_pinned(&p);
	return ret;
}

/* Decide between a fresh attach, a re-attach of ours and a forced replace. */
static int plan_attach(struct attach_plan *a)
{
	char name[BPF_OBJ_NAME_LEN] = "";
	struct ta_owner owner;
	uint32_t ours = 0;
	int fd = -1, err;

	err = query_xdp(a->ifindex, &a->now);
	if (err)
		return errno_error(err, "cannot query the XDP program of %s", a->ifname);
	pinned_prog(a->dir, &fd, &ours);
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
	err = pins_owner(a->dir, a->ifname, &owner);
	if (err == PINS_FOREIGN || err < 0)
		return refuse_pins(a->ifname, err, &owner);
	if (!a->now.prog_id)
		return 0;
	a->old_fd = bpf_prog_get_fd_by_id(a->now.prog_id);
	prog_id_of(a->old_fd, name, sizeof(name));
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

/* A pin folder must be ours and closed to others: in a world-writable
 * bpffs another user could have made it first, and could then rename or
 * replace our pins. Prints why; 0 if safe. */
static int pin_dir_unsafe(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st))
		return errno_error(errno, "cannot check %s", dir);
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022))
		return 0;
	system_error("%s is not a folder of this user closed to others (owner uid %u, mode %03o); "
		     "remove it ('rm -r %s') and attach again",
		     dir, (unsigned int)st.st_uid, (unsigned int)(st.st_mode & 07777), dir);
	return -1;
}

/* Fresh maps: layout version, slot 0, and which tap they belong to. */
static int init_maps(const struct ta_maps *maps, unsigned int ifindex)
{
	struct ta_owner owner = { .ifindex = ifindex };
	int err;

	err = ta_netns_cookie(&owner.netns_cookie);
	if (!err)
		err = ta_maps_init(maps);
	if (!err)
		err = ta_maps_set_owner(maps, &owner);
	return err;
}

/* Load, pin, configure, attach; on failure leave things as they were. */
static int load_and_attach(struct attach_plan *a)
{
	char tmp[512], final[512], msg[256];
	struct tap_accel *skel;
	struct ta_maps maps;
	int err, ret = EXIT_OK;

	/* bpffs names cannot hold a dot */
	snprintf(tmp, sizeof(tmp), "%s/%s_new", a->dir, TA_PROG_PIN);
	snprintf(final, sizeof(final), "%s/%s", a->dir, TA_PROG_PIN);
	if (mkdir(TA_PIN_ROOT, 0700) && errno != EEXIST)
		return errno_error(errno, "cannot create %s", TA_PIN_ROOT);
	if (pin_dir_unsafe(TA_PIN_ROOT))
		return EXIT_SYSTEM;
	if (!a->reattach)
		ta_pins_remove(a->dir); /* stale pins of an instance no longer attached */
	if (mkdir(a->dir, 0700) && errno != EEXIST)
		return errno_error(errno, "cannot create %s", a->dir);
	if (pin_dir_unsafe(a->dir))
		return EXIT_SYSTEM;

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
		err = init_maps(&maps, a->ifindex);
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
		fprintf(stderr, "tap-accel: warning: cannot rename %s to %s: %s\n", tmp, final,
			strerror(errno));
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
	struct xdp_state now = { 0 };

	if (!cli.json) {
		printf("attached tap-accel to %s (%s mode)\n", a->ifname, a->mode);
		return;
	}
	query_xdp(a->ifindex, &now);
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
		{ "policy", true, NULL }, { "mode", true, NULL }, { "force", false, NULL },
		{ NULL, false, NULL },
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
			fprintf(stderr, "tap-accel: mounted a bpffs at %s (the pins live there; "
				"it lasts as long as this mount namespace)\n", TA_BPFFS);
	}
	ta_pin_dir(a.ifname, a.dir, sizeof(a.dir));
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
	struct xdp_state now;
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
			fprintf(stderr, "tap-accel: to remove pins of interfaces that are gone, run 'tap-accel clean'\n");
		return ret;
	}
	ret = require_admin("detach");
	if (ret)
		return ret;
	ta_pin_dir(argv[1], dir, sizeof(dir));
	err = pins_owner(dir, argv[1], &owner);
	if (err == PINS_FOREIGN || err < 0)
		return refuse_pins(argv[1], err, &owner);
	err = query_xdp(ifindex, &now);
	if (err)
		return errno_error(err, "cannot query the XDP program of %s", argv[1]);
	if (pinned_prog(dir, &fd, &ours)) {
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
