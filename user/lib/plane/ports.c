// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* ports.c - redirect targets and their numbers (ports.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ports.h"

/* Ports in use: a bitmap over [0, TA_MAX_PORTS). */
struct port_set {
	uint64_t bits[TA_MAX_PORTS / 64];
};

static void set_add(struct port_set *s, uint32_t port)
{
	if (port < TA_MAX_PORTS)
		s->bits[port / 64] |= 1ull << (port % 64);
}

static bool set_has(const struct port_set *s, uint32_t port)
{
	return port < TA_MAX_PORTS && (s->bits[port / 64] & (1ull << (port % 64)));
}

/* Every port ta_port_keys gives out. */
static int ports_taken(const struct ta_plane *pl, struct port_set *s)
{
	struct ta_tap_key key, next, *prev = NULL;
	__u32 port;

	memset(s, 0, sizeof(*s));
	while (!bpf_map_get_next_key(pl->maps.ta_port_keys, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(pl->maps.ta_port_keys, &key, &port))
			set_add(s, port);
	}
	return errno == ENOENT ? 0 : -errno;
}

int ta_port_get(const struct ta_plane *pl, uint32_t ifindex, uint32_t *port)
{
	struct ta_tap_key key = {.netns_cookie = pl->netns_cookie, .ifindex = ifindex};
	struct port_set taken;
	int err;

	if (!ifindex)
		return -EINVAL;
	if (!bpf_map_lookup_elem(pl->maps.ta_port_keys, &key, port))
		return bpf_map_update_elem(pl->maps.ta_ports, port, &ifindex, BPF_ANY) ? -errno : 0;
	err = ports_taken(pl, &taken);
	if (err)
		return err;
	/* Port 0 means "no port" in a rule. */
	for (*port = 1; *port < TA_MAX_PORTS && set_has(&taken, *port); ++*port)
		;
	if (*port == TA_MAX_PORTS)
		return -ENOSPC;
	if (bpf_map_update_elem(pl->maps.ta_ports, port, &ifindex, BPF_ANY))
		return -errno;
	if (bpf_map_update_elem(pl->maps.ta_port_keys, &key, port, BPF_NOEXIST)) {
		err = -errno;
		bpf_map_delete_elem(pl->maps.ta_ports, port);
	}
	return err;
}

void ta_port_name(const struct ta_plane *pl, uint32_t port, char name[64], uint32_t *ifindex)
{
	struct ta_tap_key key, next, *prev = NULL;
	char here[IF_NAMESIZE];
	__u32 found;

	*ifindex = 0;
	snprintf(name, 64, "#port%u", port);
	while (!bpf_map_get_next_key(pl->maps.ta_port_keys, prev, &next)) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(pl->maps.ta_port_keys, &key, &found) || found != port)
			continue;
		*ifindex = key.ifindex;
		if (key.netns_cookie != pl->netns_cookie)
			snprintf(name, 64, "#%u@net:%llu", key.ifindex,
				 (unsigned long long)key.netns_cookie);
		else if (if_indextoname(key.ifindex, here))
			snprintf(name, 64, "%s", here);
		else
			snprintf(name, 64, "#%u", key.ifindex);
		return;
	}
}

/* Ports the versions of every policy and the fdb of every tap use. */
static int ports_used(const struct ta_plane *pl, struct port_set *s)
{
	struct ta_policy head;
	struct ta_rule_action ra;
	struct ta_fdb_key fk, fnext, *fprev = NULL;
	struct ta_policy_fdb_key pk, pnext, *pprev = NULL;
	__u32 port;

	memset(s, 0, sizeof(*s));
	for (__u32 v = 0; v < TA_MAX_VERSIONS; v++) {
		if (pl->names && !pl->names[v / TA_SLOTS].name[0])
			continue; /* no policy: no version in use */
		if (bpf_map_lookup_elem(pl->maps.ta_policy, &v, &head))
			return -errno;
		if (head.default_action == TA_ACT_REDIRECT)
			set_add(s, head.default_port);
		for (__u32 i = 0; i < head.nr_rules; i++) {
			__u32 key = head.rule_base + i;

			if (!bpf_map_lookup_elem(pl->maps.ta_rules, &key, &ra) &&
			    ra.action == TA_ACT_REDIRECT)
				set_add(s, ra.port);
		}
	}
	while (!bpf_map_get_next_key(pl->maps.ta_fdb, fprev, &fnext)) {
		fk = fnext;
		fprev = &fk;
		if (!bpf_map_lookup_elem(pl->maps.ta_fdb, &fk, &port))
			set_add(s, port);
	}
	while (!bpf_map_get_next_key(pl->maps.ta_policy_fdb, pprev, &pnext)) {
		pk = pnext;
		pprev = &pk;
		if (!bpf_map_lookup_elem(pl->maps.ta_policy_fdb, &pk, &port))
			set_add(s, port);
	}
	return 0;
}

int ta_ports_prune(const struct ta_plane *pl)
{
	struct ta_tap_key key, next, *prev = NULL;
	struct port_set used;
	__u32 port;
	int err;

	if (bpf_map_get_next_key(pl->maps.ta_port_keys, NULL, &next))
		return 0; /* no port: nothing to prune */
	err = ports_used(pl, &used);

	while (!err && !bpf_map_get_next_key(pl->maps.ta_port_keys, prev, &next)) {
		if (bpf_map_lookup_elem(pl->maps.ta_port_keys, &next, &port) || set_has(&used, port)) {
			key = next;
			prev = &key;
			continue;
		}
		bpf_map_delete_elem(pl->maps.ta_ports, &port);
		if (bpf_map_delete_elem(pl->maps.ta_port_keys, &next) && errno != ENOENT)
			err = -errno;
		prev = NULL; /* deleted: restart the walk */
	}
	return err;
}
