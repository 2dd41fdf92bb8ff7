// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * conntrack.c - the connections two-way policies track (docs/policy.md):
 * list those of the host or of one tap, flush a tap's; the table's
 * settings (set, show) and its refusals as they come (events).
 */
#include <arpa/inet.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/plane/conntrack.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "lib/sys/util.h"
#include "verbs.h"

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
	ta_ct_addr_text(s, src, sizeof(src));
	ta_ct_addr_text(d, dst, sizeof(dst));
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
	uint64_t now = ta_monotonic_coarse_ns();

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

/* ---- settings ------------------------------------------------------------ */

static void show_plain(const struct ta_conns_use *use)
{
	printf("table     %u entries of about %u bytes: %.1f MiB, taken when the plane was made\n",
	       use->entries, TA_CT_ENTRY_BYTES,
	       use->entries * (double)TA_CT_ENTRY_BYTES / (1 << 20));
	printf("tracked   %u\n", use->tracked);
	printf("max       %u%s\n", use->limit, use->limit == use->room ? " (default: the table less "
	       "4096)" : "");
	if (use->tap_limit)
		printf("tap-limit %u\n", use->tap_limit);
	else
		printf("tap-limit none\n");
	for (int i = 0; i < TA_CT_CONN_MAX; i++) {
		uint32_t set = use->cfg.timeout[i];

		printf("timeout   %-12s %u s%s\n", ta_ct_timeout_names[i],
		       set ?: ta_ct_timeout_defaults[i], set ? "" : " (default)");
	}
}

static void show_json(const struct ta_conns_use *use)
{
	jw_object_begin(&json);
	jw_kv_u64(&json, "entries", use->entries);
	jw_kv_u64(&json, "entry_bytes", TA_CT_ENTRY_BYTES);
	jw_kv_u64(&json, "bytes", (uint64_t)use->entries * TA_CT_ENTRY_BYTES);
	jw_kv_u64(&json, "tracked", use->tracked);
	jw_kv_u64(&json, "max", use->limit);
	jw_kv_u64(&json, "tap_limit", use->tap_limit);
	jw_key(&json, "timeouts");
	jw_object_begin(&json);
	for (int i = 0; i < TA_CT_CONN_MAX; i++)
		jw_kv_u64(&json, ta_ct_timeout_names[i],
			  use->cfg.timeout[i] ?: ta_ct_timeout_defaults[i]);
	jw_object_end(&json);
	jw_key(&json, "defaults");
	jw_array_begin(&json);
	if (use->limit == use->room)
		jw_string(&json, "max");
	for (int i = 0; i < TA_CT_CONN_MAX; i++)
		if (!use->cfg.timeout[i])
			jw_string(&json, ta_ct_timeout_names[i]);
	jw_array_end(&json);
	jw_object_end(&json);
	jw_end_document(&json);
}

static int show(const struct ta_plane *pl)
{
	struct ta_conns_use use;
	int err = ta_conns_use(pl, &use);

	if (err)
		return errno_error(err, "cannot read the connection table's settings");
	(cli.json ? show_json : show_plain)(&use);
	return EXIT_OK;
}

static int run_show(const void *opts, int argc, char **argv)
{
	struct ta_plane pl;
	int ret;

	(void)opts;
	(void)argc;
	(void)argv;
	ret = open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	ret = show(&pl);
	ta_plane_close(&pl);
	return ret;
}

static int run_set(const void *opts, int argc, char **argv)
{
	struct ta_ct_settings s = {};
	struct ta_error e;
	struct ta_plane pl;
	int at, ret;

	(void)opts;
	/* the words first: a mistake is said before anything is opened */
	if (ta_ct_settings_parse(&s, argc, argv, &at, &e))
		return user_error("conntrack set: %s", e.text);
	ret = require_admin("conntrack set");
	ret = ret ?: open_plane(&pl, TA_PLANE_WRITE);
	if (ret)
		return ret;
	if (ta_ct_settings_apply(&pl, &s, false, NULL, &e))
		ret = e.input ? user_error("conntrack set: %s", e.text) : report_error(&e);
	else
		ret = show(&pl);
	ta_plane_close(&pl);
	return ret;
}

/* ---- events ---------------------------------------------------------------- */

static volatile sig_atomic_t stop_events;

static void on_stop(int sig)
{
	(void)sig;
	stop_events = 1;
}

struct events {
	const struct ta_plane *pl;
};

static int print_event(void *ctx, void *data, size_t size)
{
	const struct ta_ct_event *ev = data;
	const struct events *evs = ctx;
	char (*names)[IF_NAMESIZE] = NULL, text[256], a[64], b[64], buf[8];
	const char *tap = "-";

	if (size < sizeof(*ev))
		return 0;
	/* names read at each event: a tap may be bound after the start */
	if (!tap_names(evs->pl, &names) && ev->tap < TA_MAX_TAPS && names[ev->tap][0])
		tap = names[ev->tap];
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "tap", tap);
		jw_kv_u64(&json, "tap_id", ev->tap);
		jw_kv_string(&json, "refused_at",
			     ev->type == TA_CT_EV_TAP_LIMIT ? "tap_limit" : "table_full");
		jw_kv_u64(&json, "tracked", ev->tracked);
		jw_kv_u64(&json, "limit", ev->limit);
		jw_kv_u64(&json, "zone", ev->key.zone);
		jw_kv_string(&json, "proto", proto_text(ev->key.proto, buf));
		jw_kv_string(&json, "addr_a", ta_ct_addr_text(ev->key.addr_a, a, sizeof(a)));
		jw_kv_u64(&json, "port_a", ntohs(ev->key.port_a));
		jw_kv_string(&json, "addr_b", ta_ct_addr_text(ev->key.addr_b, b, sizeof(b)));
		jw_kv_u64(&json, "port_b", ntohs(ev->key.port_b));
		jw_kv_u64(&json, "ns", ev->ns);
		jw_object_end(&json);
		jw_end_document(&json);
	} else {
		uint64_t now = ta_monotonic_coarse_ns();

		printf("%s: new connection refused at %s", tap, ta_ct_event_text(ev, text, sizeof(text)));
		/* left in the ring from before this command */
		if (now > ev->ns + 2000000000ull)
			printf(" (%llu s ago)", (unsigned long long)((now - ev->ns) / 1000000000ull));
		printf("\n");
	}
	fflush(stdout);
	free(names);
	return 0;
}

static int run_events(const void *opts, int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_stop};
	struct ring_buffer *rb;
	struct events evs;
	struct ta_plane pl;
	int ret, err = 0;

	(void)opts;
	(void)argc;
	(void)argv;
	ret = require_admin("conntrack events");
	ret = ret ?: open_plane(&pl, TA_PLANE_READ);
	if (ret)
		return ret;
	evs.pl = &pl;
	rb = ring_buffer__new(pl.maps.ta_ct_events, print_event, &evs, NULL);
	if (!rb) {
		ret = errno_error(errno, "cannot read the refusals of the connection table "
				  "(ta_ct_events)");
		ta_plane_close(&pl);
		return ret;
	}
	/* no SA_RESTART: Ctrl-C ends the wait at once, and the command with 0 */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	while (!stop_events && (err = ring_buffer__poll(rb, 1000)) >= 0)
		;
	if (err < 0 && err != -EINTR)
		ret = errno_error(err, "cannot read the refusals of the connection table");
	ring_buffer__free(rb);
	ta_plane_close(&pl);
	return ret;
}

static const struct command show_cmd = {
	.name = "show",
	.summary = "the table's size, use, limits and timeouts",
	.help = "The connection table: its size in entries and the kernel memory it holds\n"
		"(about 120 bytes an entry, taken when the plane was made), the connections\n"
		"tracked, the host's limit (max), the per-tap limit (tap-limit) and the\n"
		"timeouts of each connection state, those not set marked (default).\n",
	.max_args = 0,
	.run = run_show,
};

static const struct command set_cmd = {
	.name = "set",
	.args = "SETTING...",
	.summary = "the host's and each tap's limits, the timeouts",
	.help = "Settings, any of them, in one write (all or none):\n"
		"  max N|default        new connections of the host stop at N (default: the\n"
		"                       table's size less 4096, also the most it takes)\n"
		"  tap-limit N|none     new connections of one tap stop at N (default none)\n"
		"  timeout NAME SECS|default [NAME SECS|default]...\n"
		"                       how long a connection lives after its last frame,\n"
		"                       in state NAME: syn_sent, syn_recv, established,\n"
		"                       fin_wait, time_wait, close, udp (not answered),\n"
		"                       udp_stream (answered), icmp, other; SECS as 120,\n"
		"                       90s, 2m, 12h or 5d\n"
		"A connection refused at a limit is dropped, counted (stats: conntrack\n"
		"table_full, tap_limit) and told (conntrack events, the agent's log).\n"
		"Prints the settings as 'conntrack show' does. Where the agent runs with\n"
		"conntrack lines in agent.conf, its next reload sets those again.\n",
	.min_args = 1,
	.max_args = -1,
	.run = run_set,
};

static const struct command events_cmd = {
	.name = "events",
	.summary = "new connections refused at a limit, as they come, until Ctrl-C",
	.help = "A line for each refusal the program reports (ta_ct_events, at most one a\n"
		"second a tap): the tap, the limit (the tap's or the host's), the count\n"
		"that was at it, and the refused connection's protocol and ends (in the\n"
		"table's order, not the opener's); with --json an object a line. Those\n"
		"left in the ring from before come first, with their age. Runs until\n"
		"interrupted. The events have one reader: while the agent runs, it\n"
		"logs them, and this command takes those it reads away from the log.\n",
	.max_args = 0,
	.run = run_events,
};

static const struct command *const conntrack_cmds[] = { &list_cmd, &flush_cmd, &show_cmd,
							 &set_cmd, &events_cmd, NULL };

const struct command conntrack_cmd = {
	.name = "conntrack",
	.summary = "the connections two-way policies track: list, flush, show, set, events",
	.sub = conntrack_cmds,
};
