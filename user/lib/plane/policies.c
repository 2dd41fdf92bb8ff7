// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policies.c - named policies: load (new, or a new version for every tap
 * bound at once), find, list, unload (policies.h).
 *
 * A new version is written into the policy's inactive slot (its maps, its
 * header, rule counters for each tap bound to it), then one write of
 * ta_policy_active[policy] switches every tap, and a wait for the frames in
 * flight makes the old slot free to be written next time.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../policy/parse.h"
#include "inlinks.h"
#include "install.h"
#include "policies.h"
#include "ports.h"
#include "taps.h"

int ta_policy_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (!n || n >= TA_POLICY_NAME_LEN || name[0] == '.' || name[0] == '-')
		return -EINVAL;
	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '_' || *c == '-'))
			return -EINVAL;
	return 0;
}

int ta_policy_name_of_file(const char *path, char name[TA_POLICY_NAME_LEN])
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strlen(base);
	if (n > 7 && !strcmp(base + n - 7, ".policy"))
		n -= 7;
	if (n >= TA_POLICY_NAME_LEN)
		return -EINVAL;
	memcpy(name, base, n);
	name[n] = 0;
	return ta_policy_name_valid(name);
}

/* ---- which policies there are -------------------------------------------- */

/* The name of policy `index` from the plane's copy; "" for a free one. */
static const char *name_at(const struct ta_plane *pl, uint32_t index)
{
	return index < TA_MAX_POLICIES && pl->names ? pl->names[index].name : "";
}

static int name_set(struct ta_plane *pl, uint32_t index, const char *name)
{
	struct ta_policy_name n = {};

	snprintf(n.name, sizeof(n.name), "%s", name);
	if (bpf_map_update_elem(pl->maps.ta_policy_names, &index, &n, BPF_ANY))
		return -errno;
	pl->names[index] = n;
	return 0;
}

int ta_policy_find(const struct ta_plane *pl, const char *name, uint32_t *index)
{
	for (uint32_t i = 0; i < TA_MAX_POLICIES; i++)
		if (!strncmp(name_at(pl, i), name, TA_POLICY_NAME_LEN)) {
			*index = i;
			return 0;
		}
	return -ENOENT;
}

const char *ta_policy_name(const struct ta_plane *pl, uint32_t index)
{
	return name_at(pl, index);
}

int ta_policy_get(const struct ta_plane *pl, uint32_t index, struct ta_policy_info *info)
{
	uint32_t action, unbound;
	__u32 version;

	memset(info, 0, sizeof(*info));
	if (!name_at(pl, index)[0])
		return -ENOENT;
	info->index = index;
	snprintf(info->name, sizeof(info->name), "%s", name_at(pl, index));
	if (bpf_map_lookup_elem(pl->maps.ta_policy_active, &index, &info->slot))
		return -errno;
	info->slot %= TA_SLOTS;
	version = index * TA_SLOTS + info->slot;
	if (bpf_map_lookup_elem(pl->maps.ta_policy, &version, &info->head))
		return -errno;
	info->nr_taps = ta_taps_bound_to(pl, index);
	info->unbound = !ta_plane_get_unbound(pl, &action, &unbound) &&
			action == TA_UNBOUND_POLICY && unbound == index;
	return 0;
}

static int cmp_info(const void *a, const void *b)
{
	return strcmp(((const struct ta_policy_info *)a)->name,
		      ((const struct ta_policy_info *)b)->name);
}

int ta_policies_read(const struct ta_plane *pl, struct ta_policy_info **list, uint32_t *count)
{
	struct ta_policy_info info;
	int err = 0;

	*count = 0;
	*list = calloc(TA_MAX_POLICIES, sizeof(**list));
	if (!*list)
		return -ENOMEM;
	for (uint32_t i = 0; i < TA_MAX_POLICIES && !err; i++) {
		err = ta_policy_get(pl, i, &info);
		if (!err)
			(*list)[(*count)++] = info;
		else if (err == -ENOENT)
			err = 0;
	}
	if (err) {
		free(*list);
		*list = NULL;
		return err;
	}
	qsort(*list, *count, sizeof(**list), cmp_info);
	return 0;
}

static int index_alloc(const struct ta_plane *pl, uint32_t *index)
{
	for (uint32_t i = 0; i < TA_MAX_POLICIES; i++)
		if (!name_at(pl, i)[0]) {
			*index = i;
			return 0;
		}
	return -ENOSPC;
}

/* ---- load ----------------------------------------------------------------- */

/* The port of each redirect and fdb target of the spec. */
static int resolve_ports(const struct ta_plane *pl, struct ta_policy_spec *spec,
			 struct ta_error *e)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < spec->nr_rules; i++)
		if (spec->rules[i].action == TA_ACT_REDIRECT)
			err = ta_port_get(pl, spec->rules[i].ifindex, &spec->rules[i].port);
	for (uint32_t i = 0; !err && i < spec->nr_fdb; i++)
		err = ta_port_get(pl, spec->fdb[i].ifindex, &spec->fdb[i].port);
	if (!err && spec->default_action == TA_ACT_REDIRECT)
		err = ta_port_get(pl, spec->default_ifindex, &spec->default_port);
	if (err == -EINVAL)
		return ta_error_input(e, EINVAL, "a redirect or fdb entry names no interface");
	if (err == -ENOSPC)
		return ta_error_system(e, ENOSPC, "no redirect port is free: %d targets are in use",
				       TA_MAX_PORTS - 1);
	if (err)
		return ta_error_errno(e, err, "cannot add a redirect target to ta_ports");
	return 0;
}

static int version_error(const char *name, int err, struct ta_error *e)
{
	if (err == -E2BIG || err == -ENOSPC)
		return ta_error_input(e, -err,
				      "policy %s: the rules do not fit (%s); split or simplify them", name,
				      strerror(-err));
	if (err == -EINVAL || err == -ERANGE)
		return ta_error_input(e, -err, "policy %s: invalid rules or rate (%s)", name,
				      strerror(-err));
	return ta_error_errno(e, err, "cannot write policy %s", name);
}

/* Switch every tap of `index` to `slot`, and wait out the old one. */
static int flip(const struct ta_plane *pl, uint32_t index, uint32_t slot)
{
	if (bpf_map_update_elem(pl->maps.ta_policy_active, &index, &slot, BPF_ANY))
		return -errno;
	return ta_plane_sync(pl);
}

int ta_policy_load(struct ta_plane *pl, const char *name, struct ta_policy_spec *spec,
		   bool always, struct ta_load_result *res, struct ta_error *e)
{
	struct ta_policy_info old;
	struct ta_policy head;
	uint32_t slot, version, *old_blocks = NULL, nr_old = 0;
	int err, ret;

	memset(res, 0, sizeof(*res));
	if (ta_policy_name_valid(name))
		return ta_error_input(e, EINVAL,
				      "'%s' is not a policy name: 1 to %d letters, digits, '.', '_' "
				      "or '-'", name, TA_POLICY_NAME_LEN - 1);
	if (spec->guard.flags)
		return ta_error_input(e, EINVAL,
				      "policy %s: a guard holds one guest's addresses, so it belongs to "
				      "a tap, not to a shared policy; remove the guard statement and "
				      "give it with 'tap-accel attach IFACE --policy %s --guard "
				      "mac=...,ip=...'", name, name);
	err = ta_policy_find(pl, name, &res->index);
	if (err && err != -ENOENT)
		return ta_error_errno(e, err, "cannot read the policies");
	res->created = err == -ENOENT;
	if (res->created) {
		err = index_alloc(pl, &res->index);
		if (err == -ENOSPC)
			return ta_error_input(e, ENOSPC, "%d policies are loaded, the most there can "
					      "be; unload one ('tap-accel policy unload NAME')",
					      TA_MAX_POLICIES);
		if (err)
			return ta_error_errno(e, err, "cannot read the policies");
		slot = 0;
	} else {
		err = ta_policy_get(pl, res->index, &old);
		if (err)
			return ta_error_errno(e, err, "cannot read policy %s", name);
		res->nr_taps = old.nr_taps;
		if (!always && spec->digest && old.head.digest == spec->digest) {
			res->unchanged = true;
			return 0;
		}
		slot = old.slot ^ 1;
	}
	ret = resolve_ports(pl, spec, e);
	if (ret)
		return ret;
	version = res->index * TA_SLOTS + slot;
	err = ta_version_write(&pl->maps, version, spec);
	if (err) {
		ta_version_clear(&pl->maps, version);
		ta_ports_prune(pl);
		return version_error(name, err, e);
	}
	if (res->created) {
		err = bpf_map_update_elem(pl->maps.ta_policy_active, &res->index, &slot, BPF_ANY)
			      ? -errno
			      : name_set(pl, res->index, name);
		return err ? ta_error_errno(e, err, "cannot name policy %s", name) : 0;
	}
	err = bpf_map_lookup_elem(pl->maps.ta_policy, &version, &head) ? -errno : 0;
	err = err ?: ta_taps_prepare_version(pl, res->index, slot, version, &old_blocks,
					     &nr_old);
	err = err ?: flip(pl, res->index, slot);
	if (!err)
		ta_taps_release_blocks(pl, old_blocks, nr_old);
	free(old_blocks);
	if (err)
		return ta_error_errno(e, err, "cannot switch policy %s to its new version", name);
	/* fdb and stale ports: the version is in use; a failure here is told
	 * but switches nothing back */
	err = ta_taps_sync_fdb(pl, res->index, version);
	if (!err && (head.ct_flags & TA_POL_F_CT) && ta_in_attach_policy(pl, res->index, e))
		return -e->err;
	if (!err && !(head.ct_flags & TA_POL_F_CT) && (old.head.ct_flags & TA_POL_F_CT) &&
	    ta_in_detach_policy(pl, res->index, e))
		return -e->err;
	if (!err && (head.pps != old.head.pps || head.bps != old.head.bps ||
		     head.burst_pkts != old.head.burst_pkts ||
		     head.burst_bytes != old.head.burst_bytes))
		err = ta_taps_refill(pl, res->index);
	ta_ports_prune(pl);
	return err ? ta_error_errno(e, err, "policy %s: cannot update the fdb or rate of its taps",
				     name)
		   : 0;
}

int ta_policy_unload(struct ta_plane *pl, const char *name, struct ta_error *e)
{
	struct ta_policy_info info;
	uint32_t index, zero = 0;
	int err = ta_policy_find(pl, name, &index);

	if (err == -ENOENT)
		return ta_error_input(e, ENOENT, "no policy %s is loaded; 'tap-accel policy list' "
				      "lists them", name);
	err = err ?: ta_policy_get(pl, index, &info);
	if (err)
		return ta_error_errno(e, err, "cannot read policy %s", name);
	if (info.nr_taps)
		return ta_error_input(e, EBUSY, "policy %s is bound to %u taps; bind them to "
				      "another policy or detach them first", name, info.nr_taps);
	if (info.unbound)
		return ta_error_input(e, EBUSY, "policy %s is what unbound taps get; choose "
				      "another for them first", name);
	err = name_set(pl, index, "");
	if (!err && bpf_map_update_elem(pl->maps.ta_policy_active, &index, &zero, BPF_ANY))
		err = -errno;
	if (err)
		return ta_error_errno(e, err, "cannot remove policy %s", name);
	for (uint32_t s = 0; !err && s < TA_SLOTS; s++)
		err = ta_version_clear(&pl->maps, index * TA_SLOTS + s);
	ta_ports_prune(pl);
	return err ? ta_error_errno(e, err, "cannot remove the maps of policy %s", name) : 0;
}

/* ---- a policy file -------------------------------------------------------- */

static int resolve(const char *file, const struct ta_srcpos *pos, const char *dev,
		   uint32_t *ifindex, struct ta_error *e)
{
	*ifindex = if_nametoindex(dev);
	if (*ifindex)
		return 0;
	if (pos->line)
		return ta_error_input_at(e, ENOENT, "%s:%d:%d: interface %s not found", file,
					 pos->line, pos->col, dev);
	return ta_error_input_at(e, ENOENT, "%s: interface %s not found", file, dev);
}

int ta_policy_resolve(const char *file, struct ta_policy_spec *spec, struct ta_error *e)
{
	struct ta_srcpos nowhere = {0};
	int ret = 0;

	for (uint32_t i = 0; !ret && i < spec->nr_rules; i++) {
		struct ta_rule_spec *r = &spec->rules[i];

		if (r->action == TA_ACT_REDIRECT)
			ret = resolve(file, &r->pos, r->redirect_dev, &r->ifindex, e);
	}
	for (uint32_t i = 0; !ret && i < spec->nr_fdb; i++)
		ret = resolve(file, &spec->fdb[i].pos, spec->fdb[i].dev, &spec->fdb[i].ifindex, e);
	if (!ret && spec->default_action == TA_ACT_REDIRECT)
		ret = resolve(file, &nowhere, spec->default_dev, &spec->default_ifindex, e);
	return ret;
}

int ta_policy_read(const char *file, struct ta_policy_spec *spec, struct ta_error *e)
{
	int ret = ta_policy_parse_file(file, spec, e);

	ret = ret ?: ta_policy_resolve(file, spec, e);
	if (ret)
		ta_policy_spec_free(spec);
	return ret;
}
