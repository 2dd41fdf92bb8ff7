// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * taps.c - binding taps to policies (taps.h).
 *
 * A binding is, in the order it is made: the tap's counter maps, its guard
 * addresses, its record (ta_tap_info), its forwarding entries, its slot in
 * ta_tap_slots and the ref that leads there (tap_accel.h), and last the XDP
 * link, pinned. Frames meet the program only once all the rest is there;
 * unbinding goes the other way. A change of a binding is written into the
 * tap's other slot and the ref switched to it: no frame reads a binding
 * half written.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../sys/util.h"
#include "../sys/xdp.h"
#include "conntrack.h"
#include "counters.h"
#include "fdb.h"
#include "guard.h"
#include "inlinks.h"
#include "ports.h"
#include "taps.h"

#define NSEC_PER_SEC 1000000000ull

int ta_tap_key_of(const struct ta_plane *pl, const char *ifname, struct ta_tap_key *key)
{
	memset(key, 0, sizeof(*key));
	key->netns_cookie = pl->netns_cookie;
	key->ifindex = if_nametoindex(ifname);
	return key->ifindex ? 0 : -ENODEV;
}

void ta_link_path(const struct ta_tap_key *key, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%" PRIu64 ":%u", TA_LINK_DIR, (uint64_t)key->netns_cookie,
		 key->ifindex);
}

/* ---- ids ------------------------------------------------------------------ */

static int ids_load(struct ta_plane *pl)
{
	uint32_t *ids, n;
	int err;

	if (pl->tap_ids_known)
		return 0;
	err = ta_hash_dump(pl->maps.ta_tap_info, TA_MAX_TAPS, sizeof(*ids),
			   sizeof(struct ta_tap_info), (void **)&ids, NULL, &n);
	if (err)
		return err;
	memset(pl->tap_ids, 0, sizeof(pl->tap_ids));
	pl->tap_ids[0] = 1; /* id 0 is the unbound taps' */
	for (uint32_t i = 0; i < n; i++)
		if (ids[i] < TA_MAX_TAPS)
			pl->tap_ids[ids[i] / 64] |= 1ull << (ids[i] % 64);
	free(ids);
	pl->tap_ids_known = true;
	return 0;
}

static int id_alloc(struct ta_plane *pl, uint32_t *id)
{
	int err = ids_load(pl);

	if (err)
		return err;
	for (uint32_t w = 0; w < TA_MAX_TAPS / 64; w++) {
		if (pl->tap_ids[w] == ~0ull)
			continue;
		*id = w * 64 + __builtin_ctzll(~pl->tap_ids[w]);
		pl->tap_ids[w] |= 1ull << (*id % 64);
		return 0;
	}
	return -ENOSPC;
}

static void id_free(struct ta_plane *pl, uint32_t id)
{
	if (pl->tap_ids_known && id && id < TA_MAX_TAPS)
		pl->tap_ids[id / 64] &= ~(1ull << (id % 64));
}

/* ---- policies as the taps see them ------------------------------------- */

static uint32_t active_slot(const struct ta_plane *pl, uint32_t policy)
{
	__u32 slot = 0;

	bpf_map_lookup_elem(pl->maps.ta_policy_active, &policy, &slot);
	return slot % TA_SLOTS;
}

static uint32_t active_version(const struct ta_plane *pl, uint32_t policy)
{
	return policy * TA_SLOTS + active_slot(pl, policy);
}

static int version_head(const struct ta_plane *pl, uint32_t version, struct ta_policy *head)
{
	return bpf_map_lookup_elem(pl->maps.ta_policy, &version, head) ? -errno : 0;
}

/* ---- the binding: slot, ref, record ----------------------------------- */

static int info_read(const struct ta_plane *pl, uint32_t id, struct ta_tap_info *info)
{
	return bpf_map_lookup_elem(pl->maps.ta_tap_info, &id, info) ? -errno : 0;
}

static int info_write(const struct ta_plane *pl, uint32_t id, const struct ta_tap_info *info)
{
	return bpf_map_update_elem(pl->maps.ta_tap_info, &id, info, BPF_ANY) ? -errno : 0;
}

static int slot_read(const struct ta_plane *pl, uint32_t slot, struct ta_tap *tap)
{
	return bpf_map_lookup_elem(pl->maps.ta_tap_slots, &slot, tap) ? -errno : 0;
}

static int slot_write(const struct ta_plane *pl, uint32_t slot, const struct ta_tap *tap)
{
	return bpf_map_update_elem(pl->maps.ta_tap_slots, &slot, tap, BPF_ANY) ? -errno : 0;
}

/* Whether the index entry of the key's ifindex is this tap's (else its ref
 * is in ta_taps). */
static bool ref_in_index(const struct ta_plane *pl, const struct ta_tap_key *key)
{
	struct ta_tap_ref ref;

	return key->ifindex < TA_TAP_INDEX &&
	       !bpf_map_lookup_elem(pl->maps.ta_tap_index, &key->ifindex, &ref) && ref.slot &&
	       ref.netns_cookie == key->netns_cookie;
}

/* Lead the key to `slot`: in the index where it is free or already this
 * tap's, else in ta_taps. */
static int ref_set(const struct ta_plane *pl, const struct ta_tap_key *key, uint32_t slot)
{
	struct ta_tap_ref ref = {.netns_cookie = key->netns_cookie, .slot = slot}, now;

	if (key->ifindex < TA_TAP_INDEX &&
	    !bpf_map_lookup_elem(pl->maps.ta_tap_index, &key->ifindex, &now) &&
	    (!now.slot || now.netns_cookie == key->netns_cookie))
		return bpf_map_update_elem(pl->maps.ta_tap_index, &key->ifindex, &ref, BPF_ANY)
			       ? -errno
			       : 0;
	return bpf_map_update_elem(pl->maps.ta_taps, key, &ref, BPF_ANY) ? -errno : 0;
}

static void ref_clear(const struct ta_plane *pl, const struct ta_tap_key *key)
{
	struct ta_tap_ref none = {};

	if (ref_in_index(pl, key))
		bpf_map_update_elem(pl->maps.ta_tap_index, &key->ifindex, &none, BPF_ANY);
	bpf_map_delete_elem(pl->maps.ta_taps, key);
}

/* The slot the key leads to: 0, -ENOENT, or -errno. */
static int ref_get(const struct ta_plane *pl, const struct ta_tap_key *key, uint32_t *slot)
{
	struct ta_tap_ref ref;

	if (ref_in_index(pl, key) &&
	    !bpf_map_lookup_elem(pl->maps.ta_tap_index, &key->ifindex, &ref)) {
		*slot = ref.slot;
		return 0;
	}
	if (bpf_map_lookup_elem(pl->maps.ta_taps, key, &ref))
		return -errno;
	*slot = ref.slot;
	return 0;
}

/* Write `tap` into the tap's slot not in use and lead its key there. The
 * caller waits for frames in flight (ta_plane_sync()) before the tap's
 * binding changes again. */
static int binding_switch(const struct ta_plane *pl, struct ta_tap_info *info,
			  const struct ta_tap *tap)
{
	uint32_t slot = info->slot ^ 1;
	int err = slot_write(pl, slot, tap);

	err = err ?: ref_set(pl, &info->key, slot);
	if (err)
		return err;
	info->slot = slot;
	return info_write(pl, tap->id, info);
}

/* Call fn for every binding the loader made: its record and binding. The
 * ids are read first: fn may change records, and a hash map walked while
 * its values are replaced can show a key twice. */
static int each_binding(const struct ta_plane *pl,
			int (*fn)(const struct ta_plane *pl, struct ta_tap_info *info,
				  struct ta_tap *tap, void *arg),
			void *arg)
{
	struct ta_tap_info *infos;
	uint32_t *ids, nr;
	struct ta_tap tap;
	int ret;

	ret = ta_hash_dump(pl->maps.ta_tap_info, TA_MAX_TAPS, sizeof(*ids), sizeof(*infos),
			   (void **)&ids, (void **)&infos, &nr);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < nr && !ret; i++) {
		if (slot_read(pl, infos[i].slot, &tap) || tap.id != ids[i])
			continue;
		ret = fn(pl, &infos[i], &tap, arg);
	}
	free(infos);
	free(ids);
	return ret;
}

/* ---- what a binding holds --------------------------------------------- */

/* A full bucket under the rate of the policy's active version. */
static void bucket_fill(const struct ta_plane *pl, uint32_t policy, struct ta_tap *tap)
{
	struct ta_policy head = {};

	version_head(pl, active_version(pl, policy), &head);
	memset(&tap->lock, 0, sizeof(tap->lock));
	tap->pkt_tokens = head.burst_pkts * NSEC_PER_SEC;
	tap->bit_tokens = head.burst_bytes * 8 * NSEC_PER_SEC;
	tap->last_ns = ta_monotonic_ns();
}

static void guard_entry(struct ta_tap *tap, const struct ta_guard_spec *g)
{
	tap->guard_flags = g ? g->flags : 0;
	memset(tap->mac, 0, sizeof(tap->mac));
	if (g)
		memcpy(tap->mac, g->mac, 6);
}

/* Counters for the rules of `version` in `slot` of the tap's (new)
 * policy. The block the slot had is in *old, for the caller to give back
 * once no frame counts there. */
static int rules_block(struct ta_plane *pl, struct ta_tap *tap, struct ta_tap_info *info,
		       uint32_t slot, uint32_t version, uint32_t *old)
{
	struct ta_policy head;
	uint32_t base;
	int err = version_head(pl, version, &head);

	err = err ?: ta_counters_alloc(pl, head.nr_rules + 1, &base);
	if (err)
		return err;
	*old = tap->rules[slot];
	tap->rules[slot] = base;
	info->rules[slot] = (struct ta_rule_counters){ version, head.nr_rules, head.digest };
	return 0;
}

/* A tap moves to `policy`: counters for the version it uses now, in the
 * slot that version is in. The counters of the policy it leaves go to the
 * other slot, where they read as the version before; what that slot had is
 * in *old (two blocks at most). */
static int rules_for_move(struct ta_plane *pl, struct ta_tap *tap, struct ta_tap_info *info,
			  uint32_t policy, uint32_t old[2])
{
	uint32_t slot = active_slot(pl, policy), was = active_slot(pl, tap->policy);
	uint32_t kept = tap->rules[was];
	struct ta_rule_counters kept_info = info->rules[was];
	int err;

	old[0] = old[1] = 0;
	if (was == slot) {
		old[0] = tap->rules[slot ^ 1];
		tap->rules[slot ^ 1] = kept;
		info->rules[slot ^ 1] = kept_info;
		tap->rules[slot] = 0;
	}
	err = rules_block(pl, tap, info, slot, policy * TA_SLOTS + slot, &old[1]);
	if (err)
		return err;
	if (was == slot)
		old[1] = 0; /* moved to the other slot, not given back */
	return 0;
}

/* Everything tap `tap` holds but its ref and link; its id is free. Frames
 * no longer count in its blocks (the caller waited). */
static void tap_release(struct ta_plane *pl, const struct ta_tap *tap)
{
	struct ta_tap none = {};
	uint32_t id = tap->id;

	ta_guard_write(pl, id, NULL);
	ta_fdb_clear(pl, id);
	ta_counters_free(pl, tap->stats);
	for (uint32_t s = 0; s < TA_SLOTS; s++) {
		ta_counters_free(pl, tap->rules[s]);
		slot_write(pl, id * 2 + s, &none);
	}
	bpf_map_delete_elem(pl->maps.ta_tap_info, &id);
	id_free(pl, id);
}

/* ---- the XDP link ---------------------------------------------------------- */

static int link_open(const struct ta_tap_key *key)
{
	char path[256];
	int fd;

	ta_link_path(key, path, sizeof(path));
	fd = bpf_obj_get(path);
	return fd < 0 ? -errno : fd;
}

/* Whether the XDP program on the tap may be replaced. */
static int check_xdp(const struct ta_plane *pl, const struct ta_bind *b, uint32_t ifindex,
		     struct ta_xdp_state *now, struct ta_error *e)
{
	char name[BPF_OBJ_NAME_LEN] = "";
	int err = ta_xdp_query(ifindex, now), fd;

	if (err)
		return ta_error_errno(e, err, "cannot query the XDP program of %s", b->ifname);
	if (!now->prog_id || now->prog_id == pl->prog_id)
		return 0;
	fd = bpf_prog_get_fd_by_id(now->prog_id);
	if (fd >= 0) {
		ta_prog_id(fd, name, sizeof(name));
		close(fd);
	}
	if (b->force)
		return 0;
	if (!strncmp(name, "tap_accel", 9))
		return ta_error_input(e, EBUSY,
				      "%s has a tap-accel program (id %u) that this host's plane did "
				      "not attach (an older tap-accel's, or another bpffs's); detach it "
				      "with that one, or use --force to replace it",
				      b->ifname, now->prog_id);
	return ta_error_input(e, EBUSY,
			      "another XDP program is attached to %s (id %u, %s); use --force to "
			      "replace it", b->ifname, now->prog_id, name[0] ? name : "?");
}

static int link_create(const struct ta_plane *pl, const struct ta_bind *b,
		       const struct ta_tap_key *key, const struct ta_xdp_state *now,
		       struct ta_error *e)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts, .flags = b->xdp_flags);
	LIBBPF_OPTS(bpf_xdp_attach_opts, old);
	char path[256];
	int fd, err;

	if (now->prog_id && now->prog_id != pl->prog_id) {
		/* --force: only the program looked at, never one that raced in */
		old.old_prog_fd = bpf_prog_get_fd_by_id(now->prog_id);
		err = bpf_xdp_detach(key->ifindex, XDP_FLAGS_REPLACE | now->mode_flag, &old);
		close(old.old_prog_fd);
		if (err)
			return ta_error_errno(e, err, "cannot detach the XDP program of %s "
					      "(held by a bpf link? 'bpftool link' lists them)",
					      b->ifname);
	}
	fd = bpf_link_create(pl->prog_fd, key->ifindex, BPF_XDP, &opts);
	if (fd < 0) {
		struct ta_xdp_state there;

		err = errno;
		if (err == EOPNOTSUPP && b->xdp_flags == XDP_FLAGS_DRV_MODE)
			return ta_error_system(e, EOPNOTSUPP,
					       "native XDP not supported here, use --mode generic");
		/* the tap has a program: asked only now, as the query costs a
		 * dump of every link of the namespace */
		if ((err == EBUSY || err == EEXIST) && !b->force && check_xdp(pl, b, key->ifindex,
									     &there, e))
			return -e->err;
		if (err == EBUSY || err == EEXIST)
			return ta_error_system(e, EBUSY,
					       "%s has another XDP program or bpf link; see 'ip link show "
					       "%s' and 'bpftool link'", b->ifname, b->ifname);
		return ta_error_errno(e, err, "cannot attach to %s", b->ifname);
	}
	ta_link_path(key, path, sizeof(path));
	err = bpf_obj_pin(fd, path) ? errno : 0;
	if (err)
		bpf_link_detach(fd);
	close(fd);
	return err ? ta_error_errno(e, err, "cannot pin the link at %s", path) : 0;
}

/* 1 if the link is attached to its tap, 0 if the tap went (or the link
 * was detached), -errno. */
static int link_alive(int fd, uint32_t *id)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;
	*id = info.id;
	return info.xdp.ifindex != 0;
}

/* ---- bind, unbind --------------------------------------------------------- */

static int bind_new(struct ta_plane *pl, const struct ta_bind *b, const struct ta_tap_key *key,
		    const struct ta_xdp_state *now, struct ta_error *e)
{
	struct ta_tap tap = {.key = *key, .policy = b->policy};
	struct ta_tap_info info = {.key = *key, .xdp_flags = b->xdp_flags, .flags = b->flags};
	uint32_t slot = active_slot(pl, b->policy), unused;
	int err, ret;

	err = id_alloc(pl, &tap.id);
	if (err == -ENOSPC)
		return ta_error_system(e, ENOSPC, "no tap id is free: %d taps are bound",
				       TA_MAX_TAPS - 1);
	if (err)
		return ta_error_errno(e, err, "cannot read the tap ids");
	snprintf(info.ifname, sizeof(info.ifname), "%s", b->ifname);
	info.slot = tap.id * 2;
	guard_entry(&tap, b->guard);
	bucket_fill(pl, b->policy, &tap);
	err = ta_counters_alloc(pl, TA_TAP_STATS, &tap.stats);
	err = err ?: rules_block(pl, &tap, &info, slot, b->policy * TA_SLOTS + slot, &unused);
	err = err ?: ta_guard_write(pl, tap.id, b->guard);
	err = err ?: info_write(pl, tap.id, &info);
	err = err ?: ta_fdb_sync(pl, &tap.id, 1, active_version(pl, b->policy));
	err = err ?: slot_write(pl, info.slot, &tap);
	err = err ?: ref_set(pl, key, info.slot);
	if (err) {
		ret = ta_error_errno(e, err, "cannot write the binding of %s", b->ifname);
		goto fail;
	}
	ret = b->entry_only ? 0 : link_create(pl, b, key, now, e);
	if (!ret && !b->entry_only && ta_policy_is_two_way(pl, b->policy)) {
		ret = ta_in_attach(pl, key, b->ifname, e);
		if (ret) {
			struct ta_error ignored;

			ta_tap_unbind(pl, key, &ignored); /* not half bound */
			return ret;
		}
	}
	if (!ret)
		return 0;
fail:
	ref_clear(pl, key);
	tap_release(pl, &tap);
	return ret;
}

static int bind_again(struct ta_plane *pl, const struct ta_bind *b, struct ta_tap_state *st,
		      struct ta_error *e)
{
	struct ta_tap tap = st->tap;
	bool moved = b->policy != st->tap.policy;
	uint32_t old[2] = {0, 0};
	int err = 0;

	if (st->info.xdp_flags != b->xdp_flags)
		return ta_error_input(e, EBUSY,
				      "%s is bound in %s mode; detach it first to change the mode",
				      b->ifname,
				      st->info.xdp_flags == XDP_FLAGS_SKB_MODE ? "generic" : "native");
	if (moved)
		err = rules_for_move(pl, &tap, &st->info, b->policy, old);
	tap.policy = b->policy;
	guard_entry(&tap, b->guard);
	bucket_fill(pl, b->policy, &tap);
	snprintf(st->info.ifname, sizeof(st->info.ifname), "%s", b->ifname);
	st->info.flags = b->flags;
	/* addresses first: added before the flags that check them */
	err = err ?: ta_guard_write(pl, tap.id, b->guard);
	err = err ?: binding_switch(pl, &st->info, &tap);
	if (!err && moved)
		err = ta_fdb_sync(pl, &tap.id, 1, active_version(pl, b->policy));
	err = err ?: ta_plane_sync(pl);
	for (int i = 0; !err && i < 2; i++)
		ta_counters_free(pl, old[i]);
	if (err)
		return ta_error_errno(e, err, "cannot change the binding of %s", b->ifname);
	if (b->entry_only)
		return 0;
	if (ta_policy_is_two_way(pl, b->policy))
		return ta_in_attach(pl, &st->key, b->ifname, e);
	ta_in_detach(pl, &st->key); /* moved to a one-way policy: frames in cost nothing */
	return 0;
}

int ta_tap_check(const char *ifname, struct ta_error *e)
{
	char driver[64];
	int err;

	if (ta_ifname_valid(ifname))
		return ta_error_input(e, EINVAL, "'%s' is not a valid interface name", ifname);
	if (!if_nametoindex(ifname))
		return ta_error_input(e, ENOENT,
				      "interface %s not found; list interfaces with 'ip link'", ifname);
	err = ta_netdev_is_tap(ifname, driver, sizeof(driver));
	if (err < 0)
		return ta_error_errno(e, err, "cannot tell what kind of device %s is", ifname);
	if (!err)
		return ta_error_input(e, EINVAL,
				      "%s is not a tap device (it is %s); tap-accel attaches to taps "
				      "('ip tuntap add NAME mode tap')", ifname, driver);
	return 0;
}

int ta_tap_bind(struct ta_plane *pl, const struct ta_bind *b, enum ta_bind_result *result,
		struct ta_error *e)
{
	struct ta_xdp_state now = {};
	struct ta_tap_state st;
	struct ta_tap_key key;
	int ret, err;

	ret = b->entry_only ? 0 : ta_tap_check(b->ifname, e);
	if (ret)
		return ret;
	if (ta_tap_key_of(pl, b->ifname, &key))
		return ta_error_input(e, ENOENT,
				      "interface %s not found; list interfaces with 'ip link'", b->ifname);
	err = ta_tap_read(pl, &key, &st);
	if (!err && (st.link == TA_LINK_LIVE || b->entry_only)) {
		*result = TA_REBOUND;
		return bind_again(pl, b, &st, e);
	}
	if (err && err != -ENOENT)
		return ta_error_errno(e, err, "cannot read the binding of %s", b->ifname);
	if (!err) {
		/* a binding without a live link: what a failed bind or a
		 * deleted tap of that ifindex left behind */
		ret = ta_tap_unbind(pl, &key, e);
		if (ret)
			return ret;
	}
	/* --force must know what it replaces; else the link's refusal says
	 * that there is something (link_create) */
	ret = b->force ? check_xdp(pl, b, key.ifindex, &now, e) : 0;
	if (ret)
		return ret;
	if (now.prog_id && now.prog_id == pl->prog_id) {
		char path[256];

		ta_link_path(&key, path, sizeof(path));
		return ta_error_system(e, ENOENT,
				       "%s runs tap-accel's program but has no link pin at %s; "
				       "'ip link set dev %s xdp off' and attach again", b->ifname, path,
				       b->ifname);
	}
	*result = TA_BOUND;
	return bind_new(pl, b, &key, &now, e);
}

int ta_tap_mark(const struct ta_plane *pl, struct ta_tap_state *st, uint32_t flags)
{
	st->info.flags = flags;
	return info_write(pl, st->tap.id, &st->info);
}

/* The connections of the taps released (ids 0: none), which the next taps
 * given their ids would take for their own. A failure leaves them to
 * expire, as the connections of a tap whose interface went do. */
static void forget_connections(const struct ta_plane *pl, const struct ta_tap *taps, uint32_t n)
{
	uint32_t *ids = calloc(n ?: 1, sizeof(*ids)), nr = 0;

	for (uint32_t i = 0; ids && i < n; i++)
		if (taps[i].id)
			ids[nr++] = taps[i].id;
	if (ids)
		ta_conns_forget_taps(pl, ids, nr);
	free(ids);
}

int ta_taps_unbind(struct ta_plane *pl, const struct ta_tap_key *keys, uint32_t n,
		   struct ta_error *e)
{
	struct ta_tap *taps = calloc(n ?: 1, sizeof(*taps));
	uint32_t slot;
	char path[256];
	int fd, err = 0, ret = 0;

	if (!taps)
		return ta_error_system(e, ENOMEM, "out of memory");
	/* every program detached and every ref gone first, then one wait for
	 * the frames in flight, then the ids freed: a thousand taps wait once */
	for (uint32_t i = 0; i < n && !ret; i++) {
		ta_in_detach(pl, &keys[i]);
		ta_link_path(&keys[i], path, sizeof(path));
		fd = link_open(&keys[i]);
		if (fd >= 0) {
			bpf_link_detach(fd);
			close(fd);
		}
		if (unlink(path) && errno != ENOENT)
			ret = ta_error_errno(e, errno, "cannot remove %s", path);
		err = ref_get(pl, &keys[i], &slot);
		err = err ?: slot_read(pl, slot, &taps[i]);
		if (!ret && err && err != -ENOENT)
			ret = ta_error_errno(e, err, "cannot read the binding of a tap");
		if (ret || err) {
			taps[i].id = 0;
			continue;
		}
		ref_clear(pl, &keys[i]);
	}
	err = ta_plane_sync(pl);
	if (err && !ret)
		ret = ta_error_errno(e, err, "cannot wait for frames in flight");
	for (uint32_t i = 0; i < n && !err; i++)
		if (taps[i].id)
			tap_release(pl, &taps[i]);
	/* ports only ever go with forwarding entries here */
	ta_ports_prune(pl);
	if (!err)
		forget_connections(pl, taps, n);
	free(taps);
	return ret;
}

int ta_tap_unbind(struct ta_plane *pl, const struct ta_tap_key *key, struct ta_error *e)
{
	return ta_taps_unbind(pl, key, 1, e);
}

/* ---- reading -------------------------------------------------------------- */

static void state_fill(const struct ta_plane *pl, struct ta_tap_state *st)
{
	int fd = link_open(&st->key), alive;

	st->here = st->key.netns_cookie == pl->netns_cookie;
	st->link = TA_LINK_MISSING;
	st->link_id = 0;
	if (fd >= 0) {
		alive = link_alive(fd, &st->link_id);
		st->link = alive > 0 ? TA_LINK_LIVE : TA_LINK_GONE;
		close(fd);
	}
	if (!st->here || !if_indextoname(st->key.ifindex, st->ifname))
		snprintf(st->ifname, sizeof(st->ifname), "%s", st->info.ifname);
}

int ta_tap_read(const struct ta_plane *pl, const struct ta_tap_key *key,
		struct ta_tap_state *st)
{
	uint32_t slot;
	int err;

	memset(st, 0, sizeof(*st));
	st->key = *key;
	err = ref_get(pl, key, &slot);
	err = err ?: slot_read(pl, slot, &st->tap);
	if (err)
		return err;
	if (!st->tap.id)
		return -ENOENT;
	if (info_read(pl, st->tap.id, &st->info)) {
		st->info.key = *key; /* bound by bpftool: no record */
		st->info.slot = slot;
	}
	state_fill(pl, st);
	return 0;
}

static int cmp_state(const void *a, const void *b)
{
	const struct ta_tap_state *x = a, *y = b;

	if (x->key.netns_cookie != y->key.netns_cookie)
		return x->key.netns_cookie < y->key.netns_cookie ? -1 : 1;
	return x->key.ifindex < y->key.ifindex ? -1 : x->key.ifindex > y->key.ifindex;
}

struct state_list {
	struct ta_tap_state *list;
	uint32_t nr, cap;
};

static int add_state(const struct ta_plane *pl, struct ta_tap_info *info, struct ta_tap *tap,
		     void *arg)
{
	struct state_list *l = arg;
	struct ta_tap_state *st;

	if (l->nr == l->cap) {
		struct ta_tap_state *more = realloc(l->list, (l->cap ? 2 * l->cap : 64) *
								     sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->list = more;
		l->cap = l->cap ? 2 * l->cap : 64;
	}
	st = &l->list[l->nr++];
	memset(st, 0, sizeof(*st));
	st->key = info->key;
	st->tap = *tap;
	st->info = *info;
	state_fill(pl, st);
	return 0;
}

int ta_taps_read(const struct ta_plane *pl, struct ta_tap_state **list, uint32_t *count)
{
	struct state_list l = {};
	int err = each_binding(pl, add_state, &l);

	if (err) {
		free(l.list);
		return err;
	}
	if (l.nr)
		qsort(l.list, l.nr, sizeof(*l.list), cmp_state);
	*list = l.list;
	*count = l.nr;
	return 0;
}

struct id_list {
	uint32_t policy;
	uint32_t *ids;
	uint32_t nr, cap;
};

static int add_id(const struct ta_plane *pl, struct ta_tap_info *info, struct ta_tap *tap,
		  void *arg)
{
	struct id_list *l = arg;

	(void)pl;
	(void)info;
	if (tap->policy != l->policy)
		return 0;
	if (l->nr == l->cap) {
		uint32_t *more = realloc(l->ids, (l->cap ? 2 * l->cap : 64) * sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->ids = more;
		l->cap = l->cap ? 2 * l->cap : 64;
	}
	l->ids[l->nr++] = tap->id;
	return 0;
}

/* The ids of the taps bound to `policy`; the caller frees *ids. */
static int ids_of_policy(const struct ta_plane *pl, uint32_t policy, uint32_t **ids,
			 uint32_t *nr)
{
	struct id_list l = {.policy = policy};
	int err = each_binding(pl, add_id, &l);

	*ids = l.ids;
	*nr = l.nr;
	if (err) {
		free(l.ids);
		*ids = NULL;
	}
	return err;
}

uint32_t ta_taps_bound_to(const struct ta_plane *pl, uint32_t policy)
{
	uint32_t *ids, nr = 0;

	if (!ids_of_policy(pl, policy, &ids, &nr))
		free(ids);
	return nr;
}

int ta_tap_rule_counters(const struct ta_plane *pl, const struct ta_tap_state *st, int which,
			 struct ta_rule_counters *info, struct ta_counter *sums)
{
	uint32_t slot = active_slot(pl, st->tap.policy) ^ (which ? 1 : 0);

	*info = st->info.rules[slot];
	if (!st->tap.rules[slot])
		return -ENOENT;
	/* counted under another policy: not this one's version before */
	if (which && info->version / TA_SLOTS != st->tap.policy)
		return -ENOENT;
	return ta_counters_sum(pl, st->tap.rules[slot], info->nr_rules + 1, sums);
}

int ta_tap_stats_read(const struct ta_plane *pl, const struct ta_tap_state *st,
		      struct ta_counter *sums)
{
	return ta_counters_sum(pl, st->tap.stats, TA_TAP_STATS, sums);
}

int ta_tap_guard_read(const struct ta_plane *pl, const struct ta_tap_state *st,
		      struct ta_guard_spec *g)
{
	memset(g, 0, sizeof(*g));
	g->flags = st->tap.guard_flags;
	memcpy(g->mac, st->tap.mac, 6);
	return ta_guard_read(pl, st->tap.id, g);
}

/* ---- a new version of a policy ------------------------------------------ */

struct new_version {
	uint32_t policy, slot, version;
	uint32_t *old, nr_old; /* blocks to give back after the switch */
};

static int prepare_one(const struct ta_plane *pl, struct ta_tap_info *info, struct ta_tap *tap,
		       void *arg)
{
	struct new_version *v = arg;
	int err;

	if (tap->policy != v->policy)
		return 0;
	/* const only to the iteration: the allocator's state is the plane's */
	err = rules_block((struct ta_plane *)pl, tap, info, v->slot, v->version,
			  &v->old[v->nr_old]);
	if (err)
		return err;
	v->nr_old++;
	return binding_switch(pl, info, tap);
}

int ta_taps_prepare_version(struct ta_plane *pl, uint32_t policy, uint32_t slot,
			    uint32_t version, uint32_t **old, uint32_t *nr_old)
{
	struct new_version v = {policy, slot, version, NULL, 0};
	int err;

	v.old = calloc(ta_taps_bound_to(pl, policy) + 1, sizeof(*v.old));
	if (!v.old)
		return -ENOMEM;
	err = each_binding(pl, prepare_one, &v);
	*old = v.old;
	*nr_old = v.nr_old;
	return err;
}

void ta_taps_release_blocks(struct ta_plane *pl, const uint32_t *old, uint32_t nr_old)
{
	for (uint32_t i = 0; i < nr_old; i++)
		ta_counters_free(pl, old[i]);
}

int ta_taps_sync_fdb(const struct ta_plane *pl, uint32_t policy, uint32_t version)
{
	uint32_t *ids, nr;
	int err = ids_of_policy(pl, policy, &ids, &nr);

	if (err)
		return err;
	err = ta_fdb_sync(pl, ids, nr, version);
	free(ids);
	return err;
}

static int refill_one(const struct ta_plane *pl, struct ta_tap_info *info, struct ta_tap *tap,
		      void *arg)
{
	const uint32_t *policy = arg;

	if (tap->policy != *policy)
		return 0;
	bucket_fill(pl, *policy, tap);
	return binding_switch(pl, info, tap);
}

int ta_taps_refill(const struct ta_plane *pl, uint32_t policy)
{
	int err = each_binding(pl, refill_one, &policy);

	return err ?: ta_plane_sync(pl);
}

/* ---- what no ref leads to ------------------------------------------------- */

/*
 * A writer killed in the middle of a bind (before its ref) or of an unbind
 * (after clearing the ref) leaves a tap id, its record, counter blocks,
 * guard and fdb entries that no ref leads to and no one would ever free.
 * What is live is read from the refs: the binding each one leads to, its
 * id and the blocks it names, and the unbound taps' blocks. Every writer
 * holds the plane's lock for the whole of what it writes, and this runs
 * under that lock: nothing in the middle of being bound is left to see.
 */
struct live {
	uint64_t ids[TA_MAX_TAPS / 64];
	uint32_t *blocks, nr_blocks, cap_blocks;
};

static bool id_live(const struct live *l, uint32_t id)
{
	return id >= TA_MAX_TAPS || l->ids[id / 64] & 1ull << (id % 64);
}

static int block_keep(struct live *l, uint32_t base)
{
	if (!base)
		return 0;
	if (l->nr_blocks == l->cap_blocks) {
		uint32_t cap = l->cap_blocks ? 2 * l->cap_blocks : 256;
		uint32_t *more = realloc(l->blocks, cap * sizeof(*more));

		if (!more)
			return -ENOMEM;
		l->blocks = more;
		l->cap_blocks = cap;
	}
	l->blocks[l->nr_blocks++] = base;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The binding a ref leads to is live: its id (and the slot's) and blocks. */
static int slot_keep(const struct ta_plane *pl, struct live *l, uint32_t slot)
{
	struct ta_tap tap;
	int err;

	if (!slot || slot >= TA_MAX_TAPS * 2 || slot_read(pl, slot, &tap))
		return 0;
	l->ids[slot / 2 / 64] |= 1ull << (slot / 2 % 64);
	if (tap.id < TA_MAX_TAPS)
		l->ids[tap.id / 64] |= 1ull << (tap.id % 64);
	err = block_keep(l, tap.stats);
	for (uint32_t s = 0; !err && s < TA_SLOTS; s++)
		err = block_keep(l, tap.rules[s]);
	return err;
}

static int live_read(const struct ta_plane *pl, struct live *l)
{
	struct ta_tap_ref *index = calloc(TA_TAP_INDEX, sizeof(*index)), *refs = NULL;
	struct ta_tap_key *keys = NULL;
	struct ta_config cfg = {};
	uint32_t nr = 0, zero = 0;
	int err = index ? 0 : -ENOMEM;

	l->ids[0] |= 1; /* the unbound taps' */
	err = err ?: ta_array_read(pl->maps.ta_tap_index, 0, TA_TAP_INDEX, index, sizeof(*index));
	err = err ?: ta_hash_dump(pl->maps.ta_taps, TA_MAX_TAPS, sizeof(*keys), sizeof(*refs),
				  (void **)&keys, (void **)&refs, &nr);
	for (uint32_t i = 0; !err && i < TA_TAP_INDEX; i++)
		err = slot_keep(pl, l, index[i].slot);
	for (uint32_t i = 0; !err && i < nr; i++)
		err = slot_keep(pl, l, refs[i].slot);
	if (!err && bpf_map_lookup_elem(pl->maps.ta_config, &zero, &cfg))
		err = -errno;
	err = err ?: block_keep(l, cfg.unbound_stats);
	for (uint32_t s = 0; !err && s < TA_SLOTS; s++)
		err = block_keep(l, cfg.unbound_rules[s]);
	if (!err && l->nr_blocks)
		qsort(l->blocks, l->nr_blocks, sizeof(*l->blocks), cmp_u32);
	free(index);
	free(keys);
	free(refs);
	return err;
}

/* Delete the entries of a map keyed by a tap id first whose id is not live. */
static int entries_reclaim(int fd, uint32_t max, size_t key_size, const struct live *l,
			   uint32_t *count)
{
	char *keys = NULL;
	uint32_t nr;
	int err = ta_hash_dump(fd, max, key_size, 1, (void **)&keys, NULL, &nr);

	for (uint32_t i = 0; !err && i < nr; i++) {
		uint32_t id;

		memcpy(&id, keys + i * key_size, sizeof(id));
		if (id_live(l, id))
			continue;
		if (bpf_map_delete_elem(fd, keys + i * key_size) && errno != ENOENT)
			err = -errno;
		else
			(*count)++;
	}
	free(keys);
	return err;
}

int ta_taps_reclaim(struct ta_plane *pl, struct ta_reclaimed *r)
{
	struct live *l = calloc(1, sizeof(*l));
	uint32_t *ids = NULL, *bases = NULL, nr_ids = 0, nr_bases = 0, dead = 0;
	struct ta_tap none = {};
	int err = l ? 0 : -ENOMEM;

	memset(r, 0, sizeof(*r));
	err = err ?: live_read(pl, l);
	err = err ?: ta_hash_dump(pl->maps.ta_tap_info, TA_MAX_TAPS, sizeof(*ids),
				  sizeof(struct ta_tap_info), (void **)&ids, NULL, &nr_ids);
	err = err ?: ta_hash_dump(pl->maps.ta_counter_blocks, TA_MAX_COUNTER_BLOCKS, sizeof(*bases),
				  sizeof(uint32_t), (void **)&bases, NULL, &nr_bases);
	if (err)
		goto out;
	for (uint32_t i = 0; i < nr_ids; i++)
		dead += !id_live(l, ids[i]);
	for (uint32_t i = 0; i < nr_bases; i++)
		dead += !bsearch(&bases[i], l->blocks, l->nr_blocks, sizeof(*l->blocks), cmp_u32);
	/* a frame that read a ref an unbind cleared may still count there */
	if (dead)
		err = ta_plane_sync(pl);
	for (uint32_t i = 0; !err && i < nr_ids; i++) {
		if (id_live(l, ids[i]))
			continue;
		for (uint32_t s = 0; s < TA_SLOTS; s++)
			slot_write(pl, ids[i] * 2 + s, &none);
		bpf_map_delete_elem(pl->maps.ta_tap_info, &ids[i]);
		id_free(pl, ids[i]);
		ids[r->ids++] = ids[i]; /* the freed ones first, for below */
	}
	/* not worth failing the open for: a failure leaves them to expire */
	if (!err && r->ids)
		ta_conns_forget_taps(pl, ids, r->ids);
	for (uint32_t i = 0; !err && i < nr_bases; i++) {
		if (bsearch(&bases[i], l->blocks, l->nr_blocks, sizeof(*l->blocks), cmp_u32))
			continue;
		ta_counters_free(pl, bases[i]);
		r->blocks++;
	}
	err = err ?: entries_reclaim(pl->maps.ta_guard_ip4, TA_MAX_GUARD_ENTRIES,
				     sizeof(struct ta_guard_ip4_key), l, &r->guard);
	err = err ?: entries_reclaim(pl->maps.ta_guard_ip6, TA_MAX_GUARD_ENTRIES,
				     sizeof(struct ta_guard_ip6_key), l, &r->guard);
	err = err ?: entries_reclaim(pl->maps.ta_fdb, TA_MAX_FDB_ENTRIES, sizeof(struct ta_fdb_key),
				     l, &r->fdb);
	if (!err && r->fdb)
		ta_ports_prune(pl);
out:
	if (l)
		free(l->blocks);
	free(l);
	free(ids);
	free(bases);
	return err;
}
