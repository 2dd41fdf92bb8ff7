// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* conntrack.c - reading and flushing the connection table (conntrack.h). */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../policy/names.h"
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
	use->room = info.max_entries > TA_CT_HEADROOM ? info.max_entries - TA_CT_HEADROOM : 1;
	use->limit = cfg.max_tracked ?: TA_CT_DEFAULT_ENTRIES - TA_CT_HEADROOM;
	use->tap_limit = cfg.tap_limit;
	use->cfg = cfg;
	return 0;
}

int ta_conns_tracked(const struct ta_plane *pl, uint32_t tap, uint32_t *tracked)
{
	struct ta_ct_tap t = {};

	if (tap > TA_MAX_TAPS || bpf_map_lookup_elem(pl->maps.ta_ct_taps, &tap, &t))
		return tap > TA_MAX_TAPS ? -EINVAL : -errno;
	*tracked = t.tracked;
	return 0;
}

int ta_ct_settings_apply(const struct ta_plane *pl, const struct ta_ct_settings *s, bool reset,
			 struct ta_ct_config *was, struct ta_error *e)
{
	static const char bigger[] = "the table's size is set when the plane is made: "
				     "TAP_ACCEL_CT_ENTRIES, docs/policy.md";
	struct ta_conns_use use;
	struct ta_ct_config cfg;
	uint32_t zero = 0;
	int err = ta_conns_use(pl, &use);

	if (err)
		return ta_error_errno(e, err, "cannot read the connection table's settings");
	if (was)
		*was = use.cfg;
	cfg = use.cfg;
	if (reset) {
		cfg.max_tracked = 0;
		cfg.tap_limit = 0;
		memset(cfg.timeout, 0, sizeof(cfg.timeout));
	}
	if (s->given & TA_CTS_MAX)
		cfg.max_tracked = s->max_tracked;
	/* the default written out: 0 would be TA_CT_DEFAULT_ENTRIES' */
	if (!cfg.max_tracked)
		cfg.max_tracked = use.room;
	if (s->given & TA_CTS_TAP_LIMIT)
		cfg.tap_limit = s->tap_limit;
	for (int i = 0; i < TA_CT_CONN_MAX; i++)
		if (s->given & TA_CTS_TIMEOUT(i))
			cfg.timeout[i] = s->timeout[i];
	if (cfg.max_tracked > use.room)
		return ta_error_input(e, ERANGE, "max %u is past the connection table's room: it "
				      "has %u entries and new connections stop %u short of that, so "
				      "that its LRU never evicts a live one; give at most %u; %s",
				      cfg.max_tracked, use.entries, TA_CT_HEADROOM, use.room, bigger);
	if (cfg.tap_limit > use.room)
		return ta_error_input(e, ERANGE, "tap-limit %u is past the connection table's "
				      "room (%u entries less %u); give at most %u; %s",
				      cfg.tap_limit, use.entries, TA_CT_HEADROOM, use.room, bigger);
	if (cfg.tap_limit > cfg.max_tracked)
		return ta_error_input(e, ERANGE, "tap-limit %u is above the host's max %u: no tap "
				      "could reach it; lower tap-limit, or raise max with it",
				      cfg.tap_limit, cfg.max_tracked);
	if (bpf_map_update_elem(pl->maps.ta_ct_config, &zero, &cfg, BPF_EXIST))
		return ta_error_errno(e, errno, "cannot write the connection table's settings");
	return 0;
}

const char *ta_ct_addr_text(const uint8_t addr[16], char *buf, size_t size)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (!memcmp(addr, mapped, 12))
		return inet_ntop(AF_INET, addr + 12, buf, (socklen_t)size);
	return inet_ntop(AF_INET6, addr, buf, (socklen_t)size);
}

const char *ta_ct_event_text(const struct ta_ct_event *ev, char *buf, size_t size)
{
	const char *proto = ta_name_of(ta_protocol_names, ev->key.proto);
	char a[64], b[64], num[8];
	bool v6 = !strchr(ta_ct_addr_text(ev->key.addr_a, a, sizeof(a)), '.');

	ta_ct_addr_text(ev->key.addr_b, b, sizeof(b));
	if (!proto) {
		snprintf(num, sizeof(num), "%u", ev->key.proto);
		proto = num;
	}
	snprintf(buf, size, "%s (%s %u), %u tracked: %s %s%s%s:%u <-> %s%s%s:%u",
		 ev->type == TA_CT_EV_TAP_LIMIT ? "the tap's limit" : "the host's limit",
		 ev->type == TA_CT_EV_TAP_LIMIT ? "tap-limit" : "max", ev->limit, ev->tracked,
		 proto, v6 ? "[" : "", a, v6 ? "]" : "", ntohs(ev->key.port_a), v6 ? "[" : "", b,
		 v6 ? "]" : "", ntohs(ev->key.port_b));
	return buf;
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
