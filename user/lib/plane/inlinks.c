// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * inlinks.c - the in program on taps of two-way policies (inlinks.h).
 *
 * tcx (Linux 6.6) gives a bpf link, pinned like the XDP one, so that it
 * outlives the process and `clean --all` detaches it with the others.
 * Before tcx, a clsact egress filter of our own handle and priority: the
 * qdisc holds it until the tap goes or the binding is undone.
 */
#define _GNU_SOURCE
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "inlinks.h"
#include "../sys/netns.h"
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

static bool has_in_link(const struct ta_tap_key *key)
{
	char path[256];
	int fd;

	ta_in_link_path(key, path, sizeof(path));
	fd = bpf_obj_get(path);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* Attach, in the tap's namespace (this process is in it). */
static int attach_here(const struct ta_plane *pl, const struct ta_tap_key *key,
		       const char *ifname, struct ta_error *e)
{
	char path[256];
	int fd, err;

	if (has_in_link(key))
		return 0;
	if (!have_tcx())
		return clsact_attach(pl, key->ifindex, ifname, e);
	fd = bpf_link_create(pl->in_tc_fd, key->ifindex, TA_BPF_TCX_EGRESS, NULL);
	if (fd < 0)
		return ta_error_errno(e, errno, "cannot attach the in program to %s (tcx egress)",
				      ifname);
	ta_in_link_path(key, path, sizeof(path));
	err = bpf_obj_pin(fd, path) ? errno : 0;
	if (err)
		bpf_link_detach(fd);
	close(fd);
	return err ? ta_error_errno(e, err, "cannot pin the link at %s", path) : 0;
}

static int no_in_program(struct ta_error *e)
{
	return ta_error_input(e, ENOENT,
			      "the tap-accel plane has no program for frames to guests (made by an "
			      "older tap-accel); detach its taps and 'tap-accel clean --all'");
}

int ta_in_attach(const struct ta_plane *pl, const struct ta_tap_key *key, const char *ifname,
		 struct ta_error *e)
{
	if (pl->in_tc_fd < 0)
		return no_in_program(e);
	if (key->netns_cookie != pl->netns_cookie)
		return 0; /* bound from its own namespace, which attaches it */
	return attach_here(pl, key, ifname, e);
}

/* The link pin goes from anywhere; a clsact filter only from the tap's
 * namespace, where `here` says this process is. */
static void detach(const struct ta_tap_key *key, bool here)
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
	if (!have_tcx() && here)
		bpf_tc_detach(&hook, &opts); /* its clsact filter, if it has one */
}

void ta_in_detach(const struct ta_plane *pl, const struct ta_tap_key *key)
{
	detach(key, key->netns_cookie == pl->netns_cookie);
}

/*
 * A tap bound from another namespace, when its policy turns two-way (or
 * one-way) from here: its in program is attached (or taken off) from its
 * namespace, found by its cookie, and this process comes back. Without
 * it, frames to that guest would go unjudged until someone bound it again
 * there. `attach` false: detach.
 */
static int in_there(const struct ta_plane *pl, const struct ta_tap_state *st, bool attach,
		    struct ta_error *e)
{
	int home, there, err = 0;

	if (have_tcx() && has_in_link(&st->key) == attach)
		return 0; /* nothing to do, or the pin alone to take */
	if (have_tcx() && !attach) {
		detach(&st->key, false);
		return 0;
	}
	there = ta_netns_open_cookie(st->key.netns_cookie);
	if (there == -ENOENT)
		return ta_error_input(e, ENOENT,
				      "%s is bound in a network namespace that has no name in /run/netns "
				      "and no process in it; run 'tap-accel attach %s' in that namespace",
				      st->ifname, st->ifname);
	if (there < 0)
		return ta_error_errno(e, -there, "cannot find the network namespace of %s",
				      st->ifname);
	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (home < 0 || setns(there, CLONE_NEWNET)) {
		err = ta_error_errno(e, errno, "cannot enter the network namespace of %s",
				     st->ifname);
		goto out;
	}
	if (attach)
		err = attach_here(pl, &st->key, st->ifname, e);
	else
		detach(&st->key, true);
	if (setns(home, CLONE_NEWNET))
		err = ta_error_errno(e, errno, "cannot come back to this network namespace after %s",
				     st->ifname);
out:
	if (home >= 0)
		close(home);
	close(there);
	return err;
}

/* For each live tap bound to policy `index`, here or elsewhere. */
static int each_tap_of(const struct ta_plane *pl, uint32_t index, bool attach,
		       struct ta_error *e)
{
	struct ta_tap_state *list;
	uint32_t n;
	int err = ta_taps_read(pl, &list, &n), ret = 0;

	if (err)
		return ta_error_errno(e, err, "cannot read the taps");
	for (uint32_t i = 0; i < n && !ret; i++) {
		const struct ta_tap_state *st = &list[i];

		if (st->tap.policy != index || st->link != TA_LINK_LIVE)
			continue;
		if (!st->here)
			ret = in_there(pl, st, attach, e);
		else if (attach)
			ret = ta_in_attach(pl, &st->key, st->ifname, e);
		else
			detach(&st->key, true);
	}
	free(list);
	return ret;
}

int ta_in_attach_policy(const struct ta_plane *pl, uint32_t index, struct ta_error *e)
{
	if (pl->in_tc_fd < 0)
		return no_in_program(e);
	return each_tap_of(pl, index, true, e);
}

int ta_in_detach_policy(const struct ta_plane *pl, uint32_t index, struct ta_error *e)
{
	return each_tap_of(pl, index, false, e);
}
