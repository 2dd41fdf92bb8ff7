// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* conntrack.c - reading and flushing the connection table (conntrack.h). */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conntrack.h"

int ta_conns_read(const struct ta_plane *pl, struct ta_conn **conns, uint32_t *count)
{
	struct ta_ct_key *keys;
	struct ta_ct_entry *entries;
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	int err = bpf_obj_get_info_by_fd(pl->maps.ta_ct, &info, &len) ? -errno : 0;

	err = err ?: ta_hash_dump(pl->maps.ta_ct, info.max_entries, sizeof(*keys),
			       sizeof(*entries), (void **)&keys, (void **)&entries, count);

	*conns = NULL;
	if (err)
		return err;
	*conns = calloc(*count ?: 1, sizeof(**conns));
	for (uint32_t i = 0; *conns && i < *count; i++) {
		(*conns)[i].key = keys[i];
		(*conns)[i].e = entries[i];
	}
	free(keys);
	free(entries);
	return *conns ? 0 : -ENOMEM;
}

int ta_conns_use(const struct ta_plane *pl, struct ta_conns_use *use)
{
	struct bpf_map_info info = {};
	struct ta_ct_config cfg = {};
	struct ta_ct_tap host = {};
	uint32_t zero = 0, total = TA_MAX_TAPS;
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(pl->maps.ta_ct, &info, &len) ||
	    bpf_map_lookup_elem(pl->maps.ta_ct_config, &zero, &cfg) ||
	    bpf_map_lookup_elem(pl->maps.ta_ct_taps, &total, &host))
		return -errno;
	use->tracked = host.tracked;
	use->entries = info.max_entries;
	use->limit = cfg.max_tracked ?: TA_CT_DEFAULT_ENTRIES - TA_CT_HEADROOM;
	return 0;
}

uint64_t ta_conn_timeout_ns(const struct ta_plane *pl, uint32_t conn)
{
	static const uint32_t defaults[TA_CT_CONN_MAX] = TA_CT_TIMEOUTS_DEFAULT;
	struct ta_ct_config cfg = {};
	uint32_t zero = 0, s = 0;

	if (conn >= TA_CT_CONN_MAX)
		return 600 * 1000000000ull;
	if (!bpf_map_lookup_elem(pl->maps.ta_ct_config, &zero, &cfg))
		s = cfg.timeout[conn];
	return (uint64_t)(s ?: defaults[conn]) * 1000000000ull;
}

/* The counts of the program's ta_ct_taps, written from the entries. */
static int recount(const struct ta_plane *pl, const struct ta_conn *conns, uint32_t n)
{
	uint32_t *count = calloc(TA_MAX_TAPS + 1, sizeof(*count));
	int err = count ? 0 : -ENOMEM;

	for (uint32_t i = 0; count && i < n; i++) {
		if (conns[i].e.tap < TA_MAX_TAPS)
			count[conns[i].e.tap]++;
		count[TA_MAX_TAPS]++;
	}
	for (uint32_t tap = 0; !err && tap <= TA_MAX_TAPS; tap++) {
		struct ta_ct_tap t;

		if (bpf_map_lookup_elem(pl->maps.ta_ct_taps, &tap, &t)) {
			err = -errno;
			break;
		}
		if (t.tracked == count[tap])
			continue;
		t.tracked = count[tap]; /* event_ns kept */
		if (bpf_map_update_elem(pl->maps.ta_ct_taps, &tap, &t, BPF_EXIST))
			err = -errno;
	}
	free(count);
	return err;
}

/* Delete the connections `doomed` says (its second argument: the ids of
 * the taps to forget, or the zone to flush), then write every tap's count
 * (and the host's) again from what is left. */
static int conns_delete(const struct ta_plane *pl,
			bool (*doomed)(const struct ta_conn *, const void *), const void *arg,
			uint32_t *deleted)
{
	struct ta_conn *conns;
	uint32_t n;
	int err = ta_conns_read(pl, &conns, &n);

	*deleted = 0;
	if (err)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		if (!doomed(&conns[i], arg))
			continue;
		if (bpf_map_delete_elem(pl->maps.ta_ct, &conns[i].key) && errno != ENOENT) {
			err = -errno;
			break;
		}
		(*deleted)++;
	}
	/* the program's counts know nothing of deletions from here */
	if (!err) {
		free(conns);
		err = ta_conns_read(pl, &conns, &n);
		err = err ?: recount(pl, conns, n);
	}
	free(conns);
	return err;
}

static bool in_zone(const struct ta_conn *c, const void *zone)
{
	return c->key.zone == *(const uint16_t *)zone;
}

int ta_conns_flush_zone(const struct ta_plane *pl, uint16_t zone, uint32_t *deleted)
{
	return conns_delete(pl, in_zone, &zone, deleted);
}

static bool of_taps(const struct ta_conn *c, const void *ids)
{
	const uint64_t *bits = ids;

	return c->e.tap < TA_MAX_TAPS && bits[c->e.tap / 64] & 1ull << (c->e.tap % 64);
}

int ta_conns_forget_taps(const struct ta_plane *pl, const uint32_t *ids, uint32_t n)
{
	uint64_t bits[TA_MAX_TAPS / 64] = {};
	uint32_t deleted;
	bool any = false;

	for (uint32_t i = 0; i < n; i++) {
		struct ta_ct_tap t;

		if (ids[i] >= TA_MAX_TAPS)
			continue;
		bits[ids[i] / 64] |= 1ull << (ids[i] % 64);
		/* most taps have none: no walk of the table for them */
		if (!bpf_map_lookup_elem(pl->maps.ta_ct_taps, &ids[i], &t) && t.tracked)
			any = true;
	}
	return any ? conns_delete(pl, of_taps, bits, &deleted) : 0;
}

void ta_conn_ends(const struct ta_conn *c, const uint8_t **src, const uint8_t **dst,
		  uint16_t *sport, uint16_t *dport)
{
	bool a = c->e.flags & TA_CT_E_ORIG_A;

	*src = a ? c->key.addr_a : c->key.addr_b;
	*dst = a ? c->key.addr_b : c->key.addr_a;
	*sport = ntohs(a ? c->key.port_a : c->key.port_b);
	*dport = ntohs(a ? c->key.port_b : c->key.port_a);
}
