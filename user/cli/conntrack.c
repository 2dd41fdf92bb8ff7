// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * conntrack.c - the connections two-way policies track (docs/policy.md):
 * list those of the host or of one tap, flush a tap's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/plane/conntrack.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "verbs.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* the program's bpf_ktime_get_ns() */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const char *addr_text(const uint8_t addr[16], char *buf, size_t size)
{
	static const uint8_t mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (!memcmp(addr, mapped, 12))
		return inet_ntop(AF_INET, addr + 12, buf, (socklen_t)size);
	return inet_ntop(AF_INET6, addr, buf, (socklen_t)size);
}

static const char *proto_text(uint8_t proto, char buf[8])
{
	const char *name = ta_name_of(ta_protocol_names, proto);

	if (name)
		return name;
	snprintf(buf, 8, "%u", proto);
	return buf;
}

/* The names of the bound taps, by id; NULL where none. */
static int tap_names(const struct ta_plane *pl, char (**names)[IF_NAMESIZE])
{
	struct ta_tap_state *list;
	uint32_t n;
	int err = ta_taps_read(pl, &list, &n);

	if (err)
		return err;
	*names = calloc(TA_MAX_TAPS, sizeof(**names));
	for (uint32_t i = 0; *names && i < n; i++)
		if (list[i].tap.id < TA_MAX_TAPS)
			memcpy((*names)[list[i].tap.id], list[i].ifname, IF_NAMESIZE);
	free(list);
	return *names ? 0 : -ENOMEM;
}

static void print_conn(const struct ta_plane *pl, const struct ta_conn *c, const char *tap,
		       uint64_t now)
{
	const char *state = c->e.state < TA_CT_CONN_MAX ? ta_ct_conn_names[c->e.state] : "?";
	const char *opened = c->e.flags & TA_CT_E_IN ? "in" : "out";
	int64_t left = (int64_t)(c->e.last_ns + ta_conn_timeout_ns(pl, c->e.state) - now);
	char src[64], dst[64], buf[8];
	const char *proto = proto_text(c->key.proto, buf);
	const uint8_t *s, *d;
	uint16_t sport, dport;

	ta_conn_ends(c, &s, &d, &sport, &dport);
	addr_text(s, src, sizeof(src));
	addr_text(d, dst, sizeof(dst));
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "tap", tap);
		jw_kv_u64(&json, "tap_id", c->e.tap);
		jw_kv_u64(&json, "zone", c->key.zone);
		jw_kv_string(&json, "proto", proto);
		jw_kv_string(&json, "src", src);
		jw_kv_u64(&json, "sport", sport);
		jw_kv_string(&json, "dst", dst);
		jw_kv_u64(&json, "dport", dport);
		jw_kv_string(&json, "opened", opened);
		jw_kv_string(&json, "state", state);
		jw_kv_bool(&json, "replied", c->e.flags & TA_CT_E_REPLIED);
		jw_kv_double(&json, "expires_s", left / 1e9);
		jw_kv_u64(&json, "generation", c->e.generation);
		jw_object_end(&json);
		return;
	}
	printf("%-15s %-7s %s %s:%u -> %s:%u %s", tap, proto, opened, src, sport, dst, dport, state);
	if (left > 0)
		printf(" %.0fs\n", left / 1e9);
	else
		printf(" expired\n");
}

static int run_list(const void *opts, int argc, char **argv)
{
	char (*names)[IF_NAMESIZE] = NULL;
	struct ta_conn *conns = NULL;
	struct ta_conns_use use;
	struct ta_tap_state st;
	struct ta_plane pl;
	uint32_t n = 0;
	int zone = -1, ret, err;
	uint64_t now = now_ns();

	(void)opts;
	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	if (argc) {
		ret = find_tap(&pl, argv[0], &st);
		if (ret) {
			ta_plane_close(&pl);
			return ret;
		}
		zone = ta_tap_zone(&st.tap);
	}
	err = tap_names(&pl, &names);
	err = err ?: ta_conns_read(&pl, &conns, &n);
	if (err) {
		ret = errno_error(err, "cannot read the connection table");
		goto out;
	}
	if (cli.json) {
		jw_array_begin(&json);
	} else if (!ta_conns_use(&pl, &use)) {
		printf("# %u connections tracked on the host, new ones refused from %u; a table of "
		       "%u entries of about %u bytes (%.1f MiB)\n", use.tracked, use.limit,
		       use.entries, TA_CT_ENTRY_BYTES,
		       use.entries * (double)TA_CT_ENTRY_BYTES / (1 << 20));
	}
	for (uint32_t i = 0; i < n; i++) {
		const char *tap = conns[i].e.tap < TA_MAX_TAPS ? names[conns[i].e.tap] : "";

		if (zone < 0 || conns[i].key.zone == zone)
			print_conn(&pl, &conns[i], tap[0] ? tap : "-", now);
	}
	if (cli.json) {
		jw_array_end(&json);
		jw_end_document(&json);
	}
	ret = EXIT_OK;
out:
	free(conns);
	free(names);
	ta_plane_close(&pl);
	return ret;
}

static int run_flush(const void *opts, int argc, char **argv)
{
	struct ta_tap_state st;
	struct ta_plane pl;
	uint32_t deleted;
	int ret, err;

	(void)opts;
	(void)argc;
	ret = require_admin("conntrack flush");
	ret = ret ?: open_plane(&pl, TA_PLANE_WRITE);
	if (ret)
		return ret;
	ret = find_tap(&pl, argv[0], &st);
	if (ret) {
		ta_plane_close(&pl);
		return ret;
	}
	err = ta_conns_flush_zone(&pl, ta_tap_zone(&st.tap), &deleted);
	ta_plane_close(&pl);
	if (err)
		return errno_error(err, "cannot flush the connections of %s", argv[0]);
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "ifname", argv[0]);
		jw_kv_u64(&json, "flushed", deleted);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		printf("%s: %u connections flushed\n", argv[0], deleted);
	}
	return EXIT_OK;
}

static const struct command list_cmd = {
	.name = "list",
	.args = "[IFACE]",
	.summary = "the tracked connections, of the host or of tap IFACE's zone",
	.help = "The connections two-way policies track: the tap whose count they are in,\n"
		"protocol, which way they were opened (out: by the guest), the opener's\n"
		"address and port and the other end's, their state (syn_sent, syn_recv,\n"
		"established, fin_wait, time_wait, close; unreplied or replied for UDP and\n"
		"other protocols with ports; echo; other) and when they expire. With\n"
		"IFACE, those of its zone only.\n",
	.min_args = 0,
	.max_args = 1,
	.run = run_list,
};

static const struct command flush_cmd = {
	.name = "flush",
	.args = "IFACE",
	.summary = "forget every connection of tap IFACE's zone",
	.help = "Delete every tracked connection of tap IFACE's zone: their next frames are\n"
		"judged as new (or out of state). The taps' counts are written again.\n",
	.min_args = 1,
	.max_args = 1,
	.run = run_flush,
};

static const struct command *const conntrack_cmds[] = { &list_cmd, &flush_cmd, NULL };

const struct command conntrack_cmd = {
	.name = "conntrack",
	.summary = "the connections two-way policies track: list, flush",
	.sub = conntrack_cmds,
};
