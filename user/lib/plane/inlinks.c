// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * inlinks.c - the in program on taps of two-way policies (inlinks.h).
 *
 * tcx (Linux 6.6) gives a bpf link, pinned like the XDP one, so that it
 * outlives the process and `clean --all` detaches it with the others.
 * Before tcx, a clsact egress filter of our own handle and priority: the
 * qdisc holds it until the tap goes or the binding is undone.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "inlinks.h"
#include "taps.h"

/* enum bpf_attach_type's BPF_TCX_EGRESS, newer than some systems' headers */
#define TA_BPF_TCX_EGRESS 47
/* the clsact filter's: "ta", and a priority of its own */
#define TA_TC_HANDLE 0x7461
#define TA_TC_PRIORITY 0x7461

void ta_in_link_path(const struct ta_tap_key *key, char *buf, size_t size)
{
	size_t n;

	ta_link_path(key, buf, size);
	n = strlen(buf);
	snprintf(buf + n, size - n, ":in"); /* the bpffs takes no dots */
}

/* tcx came with Linux 6.6: before it, clsact filters (and only then are
 * there any to look for when a tap is unbound). */
static bool have_tcx(void)
{
	static int known = -1;
	struct utsname u;
	int major = 0, minor = 0;

	if (known < 0)
		known = !uname(&u) && sscanf(u.release, "%d.%d", &major, &minor) == 2 &&
			(major > 6 || (major == 6 && minor >= 6));
	return known;
}

bool ta_policy_is_two_way(const struct ta_plane *pl, uint32_t index)
{
	struct ta_policy head;
	uint32_t slot = 0, version;

	if (bpf_map_lookup_elem(pl->maps.ta_policy_active, &index, &slot))
		return false;
	version = index * TA_SLOTS + slot % TA_SLOTS;
	return !bpf_map_lookup_elem(pl->maps.ta_policy, &version, &head) &&
	       (head.ct_flags & TA_POL_F_CT);
}

static int clsact_attach(const struct ta_plane *pl, int ifindex, const char *ifname,
			 struct ta_error *e)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .prog_fd = pl->in_tc_fd, .handle = TA_TC_HANDLE,
		    .priority = TA_TC_PRIORITY, .flags = BPF_TC_F_REPLACE);
	int err = bpf_tc_hook_create(&hook);

	if (err && err != -EEXIST)
		return ta_error_errno(e, err, "cannot add a clsact qdisc to %s", ifname);
	err = bpf_tc_attach(&hook, &opts);
	return err ? ta_error_errno(e, err, "cannot attach the in program to %s's clsact egress",
				    ifname)
		   : 0;
}

int ta_in_attach(const struct ta_plane *pl, const struct ta_tap_key *key, const char *ifname,
		 struct ta_error *e)
{
	char path[256];
	int fd, err;

	if (pl->in_tc_fd < 0)
		return ta_error_input(e, ENOENT,
				      "the tap-accel plane has no program for frames to guests (made "
				      "by an older tap-accel); detach its taps and 'tap-accel clean --all'");
	if (key->netns_cookie != pl->netns_cookie)
		return 0; /* bound from its own namespace, which attaches it */
	ta_in_link_path(key, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (!have_tcx())
		return clsact_attach(pl, key->ifindex, ifname, e);
	fd = bpf_link_create(pl->in_tc_fd, key->ifindex, TA_BPF_TCX_EGRESS, NULL);
	if (fd < 0)
		return ta_error_errno(e, errno, "cannot attach the in program to %s (tcx egress)",
				      ifname);
	err = bpf_obj_pin(fd, path) ? errno : 0;
	if (err)
		bpf_link_detach(fd);
	close(fd);
	return err ? ta_error_errno(e, err, "cannot pin the link at %s", path) : 0;
}

void ta_in_detach(const struct ta_plane *pl, const struct ta_tap_key *key)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = key->ifindex, .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = TA_TC_HANDLE, .priority = TA_TC_PRIORITY);
	char path[256];
	int fd;

	ta_in_link_path(key, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd >= 0) {
		bpf_link_detach(fd);
		close(fd);
	}
	unlink(path);
	if (!have_tcx() && key->netns_cookie == pl->netns_cookie)
		bpf_tc_detach(&hook, &opts); /* its clsact filter, if it has one */
}

int ta_in_attach_policy(const struct ta_plane *pl, uint32_t index, struct ta_error *e)
{
	struct ta_tap_state *list;
	uint32_t n;
	int err = ta_taps_read(pl, &list, &n), ret = 0;

	if (err)
		return ta_error_errno(e, err, "cannot read the taps");
	for (uint32_t i = 0; i < n && !ret; i++)
		if (list[i].tap.policy == index && list[i].here && list[i].link == TA_LINK_LIVE)
			ret = ta_in_attach(pl, &list[i].key, list[i].ifname, e);
	free(list);
	return ret;
}
