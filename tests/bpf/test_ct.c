// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_ct.c - two-way, stateful policies: the connection table, frames
 * both ways (out: tap_accel_policy; in: tap_accel_in_tc, and the check of
 * a redirect's receiver), limits, policy changes, reject.
 *
 * The policy library does not compile directions and states yet, so each
 * test installs its rules' match fields through it and then writes the
 * connection-tracking part of the version's header itself: the flag, the
 * generation, the default in action, and the direction and state
 * bit-vectors (at the top of ta_bitvecs, where no test policy's own reach).
 * The tc program comes from a second load of the same object that reuses
 * every map of the harness's plane.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/if_link.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/pkt_cls.h>

#include "harness.h"
#include "tap_accel.skel.h"
#include "tap_accel_compat.skel.h"

#define DIR_OUT (1u << TA_DIR_OUT)
#define DIR_IN (1u << TA_DIR_IN)
#define ST(s) (1u << (s))
#define EST_REL (ST(TA_CT_ESTABLISHED) | ST(TA_CT_RELATED))

static struct {
	struct bpf_object *obj;
	int tc, devmap, ct, cfg, taps, frags, events;
	uint32_t generation;
	int events_seen, last_event_type;
} ct = {.obj = NULL, .tc = -1};

struct ct_rule {
	struct ta_rule_spec r;
	uint8_t dirs;	/* DIR_*: which ways it applies */
	uint8_t states; /* ST(...); 0: any */
};

/* ---- the second load and the maps ------------------------------------- */

static int prog_map(const char *name)
{
	uint32_t ids[64], n = 64, i;
	struct bpf_prog_info info = {.nr_map_ids = n, .map_ids = (uintptr_t)ids};
	uint32_t len = sizeof(info);

	if (bpf_obj_get_info_by_fd(env.prog, &info, &len))
		return -errno;
	for (i = 0; i < info.nr_map_ids && i < n; i++) {
		struct bpf_map_info mi = {};
		uint32_t mlen = sizeof(mi);
		int fd = bpf_map_get_fd_by_id(ids[i]);

		if (fd < 0)
			continue;
		/* the kernel keeps BPF_OBJ_NAME_LEN - 1 characters of a name */
		if (!bpf_obj_get_info_by_fd(fd, &mi, &mlen) &&
		    !strncmp(mi.name, name, BPF_OBJ_NAME_LEN - 1))
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static int load_in_programs(void)
{
	bool compat = !strcmp(ta_plane_variant(), "tap_accel_compat");
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = compat ? "tap_accel_compat"
								       : "tap_accel");
	struct bpf_program *prog;
	struct bpf_map *map;
	const void *elf;
	size_t size;

	elf = compat ? tap_accel_compat__elf_bytes(&size) : tap_accel__elf_bytes(&size);
	ct.obj = bpf_object__open_mem(elf, size, &opts);
	if (!ct.obj)
		return -errno;
	bpf_object__for_each_map(map, ct.obj) {
		int fd = prog_map(bpf_map__name(map));

		if (fd >= 0 && bpf_map__reuse_fd(map, fd))
			return -errno;
		if (fd >= 0)
			close(fd);
	}
	bpf_object__for_each_program(prog, ct.obj)
		bpf_program__set_autoload(prog, strcmp(bpf_program__name(prog), "tap_accel_policy"));
	if (bpf_object__load(ct.obj))
		return -errno;
	prog = bpf_object__find_program_by_name(ct.obj, "tap_accel_in_tc");
	ct.tc = prog ? bpf_program__fd(prog) : -ENOENT;
	prog = bpf_object__find_program_by_name(ct.obj, "tap_accel_in_devmap");
	ct.devmap = prog ? bpf_program__fd(prog) : -ENOENT;
	ct.ct = bpf_object__find_map_fd_by_name(ct.obj, "ta_ct");
	ct.cfg = bpf_object__find_map_fd_by_name(ct.obj, "ta_ct_config");
	ct.taps = bpf_object__find_map_fd_by_name(ct.obj, "ta_ct_taps");
	ct.frags = bpf_object__find_map_fd_by_name(ct.obj, "ta_ct_frags");
	ct.events = bpf_object__find_map_fd_by_name(ct.obj, "ta_ct_events");
	return ct.tc < 0 ? ct.tc : ct.devmap < 0 ? ct.devmap : 0;
}

static int empty_map(int fd, size_t key_size)
{
	char key[64], next[64];

	while (!bpf_map_get_next_key(fd, NULL, next)) {
		memcpy(key, next, key_size);
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	}
	return 0;
}

static int count_events(void *ctx, void *data, size_t size)
{
	const struct ta_ct_event *ev = data;

	(void)ctx;
	if (size >= sizeof(*ev)) {
		ct.events_seen++;
		ct.last_event_type = ev->type;
	}
	return 0;
}

static int drain_events(void)
{
	struct ring_buffer *rb = ring_buffer__new(ct.events, count_events, NULL, NULL);

	if (!rb)
		return -errno;
	ring_buffer__consume(rb);
	ring_buffer__free(rb);
	return 0;
}

/* Exactly one event since ct_setup(), of this type. */
static int expect_one_event(int type)
{
	OK(drain_events());
	CHECK(ct.events_seen == 1 && ct.last_event_type == type,
	      "%d events (the last of type %d), expected one of type %d", ct.events_seen,
	      ct.last_event_type, type);
	return 0;
}

/* A blank table, counts, configuration, and no events pending. */
static int ct_setup(void)
{
	struct ta_ct_config cfg = {};
	struct ta_ct_tap zero = {};
	uint32_t k = 0, i;
	int ret;

	if (!ct.obj) {
		ret = load_in_programs();
		if (ret)
			FAIL("second load of the object: %s", strerror(-ret));
	}
	OK(empty_map(ct.ct, sizeof(struct ta_ct_key)));
	OK(empty_map(ct.frags, sizeof(struct ta_ct_frag_key)));
	CHECK(!bpf_map_update_elem(ct.cfg, &k, &cfg, 0), "ta_ct_config: %s", strerror(errno));
	for (i = 0; i < 8; i++)
		bpf_map_update_elem(ct.taps, &i, &zero, 0);
	i = TA_MAX_TAPS;
	bpf_map_update_elem(ct.taps, &i, &zero, 0);
	i = env.tap.tap.id;
	bpf_map_update_elem(ct.taps, &i, &zero, 0);
	OK(drain_events());
	ct.events_seen = 0;
	return 0;
}

static int config_set(uint32_t max_tracked, uint32_t tap_limit, uint32_t flags)
{
	struct ta_ct_config cfg = {.max_tracked = max_tracked, .tap_limit = tap_limit,
				   .flags = flags};
	uint32_t k = 0;

	return bpf_map_update_elem(ct.cfg, &k, &cfg, 0) ? -errno : 0;
}

/* ---- policies ---------------------------------------------------------- */

static int put_bitvec(uint32_t index, uint64_t rules)
{
	struct ta_bitvec bv = {.word = {rules}};

	return bpf_map_update_elem(env.pl.maps.ta_bitvecs, &index, &bv, 0) ? -errno : 0;
}

/* The rules (at most 64) with their directions and states, as a new
 * version of policy "test" with TA_POL_F_CT. */
static int ct_install(const struct ct_rule *cr, uint32_t nr, uint32_t default_out,
		      uint32_t default_in)
{
	struct ta_rule_spec rules[64];
	uint32_t version, base, i, s;
	struct ta_policy head;
	uint64_t dir[TA_DIR_MAX] = {}, state[TA_CT_STATE_MAX] = {};
	int ret;

	for (i = 0; i < nr; i++) {
		rules[i] = cr[i].r;
		for (s = 0; s < TA_DIR_MAX; s++)
			if (cr[i].dirs & (1u << s))
				dir[s] |= 1ull << i;
		for (s = 0; s < TA_CT_STATE_MAX; s++)
			if (!cr[i].states || (cr[i].states & ST(s)))
				state[s] |= 1ull << i;
	}
	if (install(rules, nr, default_out))
		return -EIO;
	version = env.policy * TA_SLOTS + active_slot();
	if (bpf_map_lookup_elem(env.pl.maps.ta_policy, &version, &head))
		return -errno;
	base = TA_BITVEC_HEAP - 64 + (version % TA_SLOTS) * 16;
	head.ct_flags = TA_POL_F_CT;
	head.generation = ++ct.generation;
	head.default_in_action = default_in;
	for (s = 0; s < TA_DIR_MAX; s++) {
		head.dir_bitvec[s] = base + s;
		ret = put_bitvec(base + s, dir[s]);
		if (ret)
			return ret;
	}
	for (s = 0; s < TA_CT_STATE_MAX; s++) {
		head.state_bitvec[s] = base + 2 + s;
		ret = put_bitvec(base + 2 + s, state[s]);
		if (ret)
			return ret;
	}
	return bpf_map_update_elem(env.pl.maps.ta_policy, &version, &head, 0) ? -errno : 0;
}

/* A security group: replies and related errors pass both ways, invalid
 * frames are dropped, the guest may open anything, `extra` may let
 * something in; the rest in is dropped. */
static int sg_install(const struct ct_rule *extra, uint32_t nr_extra)
{
	struct ct_rule r[16] = {
		{.r.action = TA_ACT_PASS, .dirs = DIR_OUT | DIR_IN, .states = EST_REL},
		{.r.action = TA_ACT_DROP, .dirs = DIR_OUT | DIR_IN, .states = ST(TA_CT_INVALID)},
		{.r.action = TA_ACT_PASS, .dirs = DIR_OUT},
	};

	memcpy(r + 3, extra, nr_extra * sizeof(*extra));
	return ct_install(r, 3 + nr_extra, TA_ACT_PASS, TA_ACT_DROP);
}

static const struct ct_rule IN_SSH = {
	.r = {.fields = F(TA_F_IP_PROTO) | F(TA_F_DST_PORT), .ip_proto = 6, .dport_lo = 22,
	      .dport_hi = 22, .action = TA_ACT_PASS},
	.dirs = DIR_IN,
};

/* ---- frames ------------------------------------------------------------ */

#define TCP_FIN 0x01
#define TCP_SYN 0x02
#define TCP_RST 0x04
#define TCP_ACK 0x10

/* Out: from the guest to the peer; in: the other way. */
static void eth_ip4(struct pkt *p, bool out, uint8_t proto)
{
	pkt_init(p);
	pkt_eth(p, out ? PEER_MAC : GUEST_MAC, out ? GUEST_MAC : PEER_MAC, 0x0800);
	pkt_ip4(p, out ? GUEST_IP4 : PEER_IP4, out ? PEER_IP4 : GUEST_IP4, proto);
}

static void tcp4(struct pkt *p, bool out, uint16_t gport, uint16_t pport, uint8_t flags)
{
	eth_ip4(p, out, 6);
	pkt_tcp(p, out ? gport : pport, out ? pport : gport);
	p->d[p->len - 7] = flags;
	pkt_fix_lengths(p);
}

static void udp4(struct pkt *p, bool out, uint16_t gport, uint16_t pport)
{
	eth_ip4(p, out, 17);
	pkt_udp(p, out ? gport : pport, out ? pport : gport);
	pkt_zeros(p, 18);
	pkt_fix_lengths(p);
}

static void echo4(struct pkt *p, bool out, uint8_t type, uint16_t id)
{
	eth_ip4(p, out, 1);
	pkt_icmp(p, type);
	p->d[p->len - 4] = id >> 8;
	p->d[p->len - 3] = id;
	pkt_fix_lengths(p);
}

static void tcp6(struct pkt *p, bool out, uint16_t gport, uint16_t pport, uint8_t flags)
{
	pkt_init(p);
	pkt_eth(p, out ? PEER_MAC : GUEST_MAC, out ? GUEST_MAC : PEER_MAC, 0x86dd);
	pkt_ip6(p, out ? GUEST_IP6 : PEER_IP6, out ? PEER_IP6 : GUEST_IP6, 6);
	pkt_tcp(p, out ? gport : pport, out ? pport : gport);
	p->d[p->len - 7] = flags;
	pkt_fix_lengths(p);
}

/* Runs a frame on its way to the guest through the tc program. */
static int run_tc(const struct pkt *p, uint32_t *ret, struct pkt *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d, .data_size_in = p->len,
		    .repeat = 1);

	if (out) {
		opts.data_out = out->d;
		opts.data_size_out = sizeof(out->d);
	}
	if (bpf_prog_test_run_opts(ct.tc, &opts))
		return -errno;
	*ret = opts.retval;
	if (out)
		out->len = opts.data_size_out;
	return 0;
}

static int expect_tc_at(const char *where, const struct pkt *p, uint32_t expect)
{
	uint32_t got = 0;
	int ret = run_tc(p, &got, NULL);

	if (ret)
		FAIL("%s: tc test run: %s", where, strerror(-ret));
	if (got != expect)
		FAIL("%s: tc verdict %u, expected %u", where, got, expect);
	return 0;
}

#define EXPECT_TC(p, v)                                                        \
	do {                                                                   \
		if (expect_tc_at(WHERE, (p), (v)))                             \
			return -1;                                             \
	} while (0)

static int expect_ct_stat_at(const char *where, uint32_t counter, uint64_t packets)
{
	struct ta_counter stats[TA_TAP_STATS];
	int ret = ta_tap_stats_read(&env.pl, &env.tap, stats);

	if (ret)
		FAIL("%s: read: %s", where, strerror(-ret));
	if (stats[TA_STAT_CT + counter].packets != packets)
		FAIL("%s: %llu packets, expected %llu", where,
		     (unsigned long long)stats[TA_STAT_CT + counter].packets,
		     (unsigned long long)packets);
	return 0;
}

#define EXPECT_CT(counter, packets)                                            \
	do {                                                                   \
		if (expect_ct_stat_at(WHERE " " #counter, (counter), (packets))) \
			return -1;                                             \
	} while (0)

static uint32_t table_size(void)
{
	struct ta_ct_key key, next;
	uint32_t n = 0;

	if (bpf_map_get_next_key(ct.ct, NULL, &next))
		return 0;
	do {
		key = next;
		n++;
	} while (!bpf_map_get_next_key(ct.ct, &key, &next) && n < 100000);
	return n;
}

static uint32_t tracked(uint32_t tap)
{
	struct ta_ct_tap t = {};

	bpf_map_lookup_elem(ct.taps, &tap, &t);
	return t.tracked;
}

/* The first entry of the table (tests that make one). */
static int first_entry(struct ta_ct_key *key, struct ta_ct_entry *e)
{
	if (bpf_map_get_next_key(ct.ct, NULL, key))
		return -ENOENT;
	return bpf_map_lookup_elem(ct.ct, key, e) ? -errno : 0;
}

/* ---- tests ------------------------------------------------------------- */

/* No TA_POL_F_CT: in passes everything and nothing is tracked. */
static int ct_off_tracks_nothing(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(install(NULL, 0, TA_ACT_PASS));
	tcp4(&p, true, 1000, 80, TCP_SYN);
	EXPECT_VERDICT(&p, XDP_PASS);
	tcp4(&p, false, 1000, 80, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	CHECK(table_size() == 0, "%u entries, expected none", table_size());
	EXPECT_CT(TA_CT_C_IN_PASS, 0);
	return 0;
}

/* The guest opens TCP: the handshake's replies pass in, others do not. */
static int ct_tcp_guest_opens(void)
{
	struct ta_ct_key key;
	struct ta_ct_entry e;
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	tcp4(&p, true, 40000, 80, TCP_SYN);
	EXPECT_VERDICT(&p, XDP_PASS);
	CHECK(tracked(env.tap.tap.id) == 1 && tracked(TA_MAX_TAPS) == 1,
	      "tracked %u, host %u", tracked(env.tap.tap.id), tracked(TA_MAX_TAPS));
	OK(first_entry(&key, &e));
	CHECK(e.state == TA_CT_SYN_SENT && !(e.flags & TA_CT_E_IN) &&
		      key.zone == env.tap.tap.id && key.proto == 6,
	      "entry state %u flags %#x zone %u", e.state, e.flags, key.zone);
	tcp4(&p, false, 40000, 80, TCP_SYN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	tcp4(&p, true, 40000, 80, TCP_ACK);
	EXPECT_VERDICT(&p, XDP_PASS);
	OK(first_entry(&key, &e));
	CHECK(e.state == TA_CT_TCP_ESTABLISHED, "state %u, expected established", e.state);
	tcp4(&p, false, 40000, 80, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	/* the peer's own new connection to the guest: the default in */
	tcp4(&p, false, 8080, 5555, TCP_SYN);
	EXPECT_TC(&p, TC_ACT_SHOT);
	/* FIN both ways, then the close */
	tcp4(&p, true, 40000, 80, TCP_FIN | TCP_ACK);
	EXPECT_VERDICT(&p, XDP_PASS);
	tcp4(&p, false, 40000, 80, TCP_FIN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	OK(first_entry(&key, &e));
	CHECK(e.state == TA_CT_TIME_WAIT, "state %u, expected time-wait", e.state);
	EXPECT_CT(TA_CT_C_NEW, 1);
	EXPECT_CT(TA_CT_C_IN_PASS, 3);
	EXPECT_CT(TA_CT_C_IN_DROP, 1);
	EXPECT_CT(TA_CT_C_IN_DEFAULT, 1);
	return 0;
}

/* The peer's SYN to the guest's port 22 in, the guest's SYN-ACK out. */
static int ssh_opened(struct pkt *p)
{
	tcp4(p, false, 22, 50000, TCP_SYN);
	EXPECT_TC(p, TC_ACT_OK);
	tcp4(p, true, 22, 50000, TCP_SYN | TCP_ACK);
	EXPECT_VERDICT(p, XDP_PASS);
	return 0;
}

/* `in` port 22: the peer may open it, not 23; the guest's answers pass. */
static int ct_tcp_in_port_22(void)
{
	struct ta_ct_key key;
	struct ta_ct_entry e;
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(&IN_SSH, 1));
	if (ssh_opened(&p))
		return -1;
	OK(first_entry(&key, &e));
	CHECK((e.flags & TA_CT_E_IN) && e.state == TA_CT_SYN_RECV, "flags %#x state %u",
	      e.flags, e.state);
	tcp4(&p, false, 22, 50000, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	tcp4(&p, false, 23, 50000, TCP_SYN);
	EXPECT_TC(&p, TC_ACT_SHOT);
	CHECK(table_size() == 1, "%u entries, expected 1", table_size());
	return 0;
}

/* Out of state both ways: dropped, counted invalid, nothing tracked. */
static int ct_tcp_invalid(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(&IN_SSH, 1));
	/* an ACK to the guest's port 22 that no SYN opened */
	tcp4(&p, false, 22, 50001, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_SHOT);
	/* the guest answers a SYN nobody sent */
	tcp4(&p, true, 22, 50002, TCP_SYN | TCP_ACK);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_CT(TA_CT_C_INVALID, 2);
	CHECK(table_size() == 0, "%u entries, expected none", table_size());
	/* the opener sending the SYN-ACK itself */
	tcp4(&p, true, 40000, 80, TCP_SYN);
	EXPECT_VERDICT(&p, XDP_PASS);
	tcp4(&p, true, 40000, 80, TCP_SYN | TCP_ACK);
	EXPECT_VERDICT(&p, XDP_DROP);
	/* a SYN in an established connection */
	tcp4(&p, false, 40000, 80, TCP_SYN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	tcp4(&p, false, 40000, 80, TCP_SYN);
	EXPECT_TC(&p, TC_ACT_SHOT);
	EXPECT_CT(TA_CT_C_INVALID, 4);
	/* an RST closes it; nothing but a new SYN from the opener after */
	tcp4(&p, false, 40000, 80, TCP_RST);
	EXPECT_TC(&p, TC_ACT_OK);
	tcp4(&p, false, 40000, 80, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_SHOT);
	tcp4(&p, true, 40000, 80, TCP_SYN);
	EXPECT_VERDICT(&p, XDP_PASS);
	return 0;
}

/* UDP and ping: replies to what the guest sent pass, nothing else. */
static int ct_udp_and_echo(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	udp4(&p, false, 5353, 53);
	EXPECT_TC(&p, TC_ACT_OK);
	udp4(&p, false, 5353, 54); /* another port of the peer */
	EXPECT_TC(&p, TC_ACT_SHOT);
	echo4(&p, true, 8, 77);
	EXPECT_VERDICT(&p, XDP_PASS);
	echo4(&p, false, 0, 77);
	EXPECT_TC(&p, TC_ACT_OK);
	echo4(&p, false, 0, 78); /* a reply nobody asked for: invalid */
	EXPECT_TC(&p, TC_ACT_SHOT);
	echo4(&p, false, 8, 79); /* ping in: the default in */
	EXPECT_TC(&p, TC_ACT_SHOT);
	EXPECT_CT(TA_CT_C_NEW, 2);
	EXPECT_CT(TA_CT_C_INVALID, 1);
	CHECK(tracked(env.tap.tap.id) == 2, "tracked %u, expected 2", tracked(env.tap.tap.id));
	return 0;
}

/* An ICMP error quoting the packet the guest sent: related (PMTU). */
static int ct_icmp_related(void)
{
	struct pkt p, inner;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	tcp4(&inner, true, 40000, 80, TCP_SYN);
	EXPECT_VERDICT(&inner, XDP_PASS);
	/* fragmentation needed, from a router, to the guest */
	pkt_init(&p);
	pkt_eth(&p, GUEST_MAC, PEER_MAC, 0x0800);
	pkt_ip4(&p, OTHER_IP4, GUEST_IP4, 1);
	pkt_icmp(&p, 3);
	p.d[p.len - 7] = 4;
	pkt_bytes(&p, inner.d + 14, 28);
	pkt_fix_lengths(&p);
	EXPECT_TC(&p, TC_ACT_OK);
	EXPECT_CT(TA_CT_C_RELATED, 1);
	/* quoting a connection nobody opened */
	p.d[p.len - 28 + 20 + 1] ^= 1; /* the quoted source port */
	EXPECT_TC(&p, TC_ACT_SHOT);
	/* cut before the 8 bytes after the quoted IP header */
	p.d[p.len - 28 + 20 + 1] ^= 1;
	p.len -= 4;
	pkt_fix_lengths(&p);
	EXPECT_TC(&p, TC_ACT_SHOT);
	EXPECT_CT(TA_CT_C_INVALID, 2);
	return 0;
}

/* IPv6: the handshake, and a packet-too-big about it. */
static int ct_ipv6(void)
{
	struct pkt p, inner;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	tcp6(&inner, true, 40000, 443, TCP_SYN);
	EXPECT_VERDICT(&inner, XDP_PASS);
	tcp6(&p, false, 40000, 443, TCP_SYN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_OK);
	tcp6(&p, false, 40001, 443, TCP_SYN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_SHOT);
	pkt_init(&p);
	pkt_eth(&p, GUEST_MAC, PEER_MAC, 0x86dd);
	pkt_ip6(&p, OTHER_IP6, GUEST_IP6, 58);
	pkt_icmp(&p, 2);
	pkt_bytes(&p, inner.d + 14, 48);
	pkt_fix_lengths(&p);
	EXPECT_TC(&p, TC_ACT_OK);
	EXPECT_CT(TA_CT_C_RELATED, 1);
	/* an IPv4 reply with the same ports is another family's: no entry */
	tcp4(&p, false, 40000, 443, TCP_SYN | TCP_ACK);
	EXPECT_TC(&p, TC_ACT_SHOT);
	return 0;
}

/* A reply in fragments: the later ones follow the first, others do not. */
static int ct_fragments(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	pkt_init(&p); /* first fragment, more to come */
	pkt_eth(&p, GUEST_MAC, PEER_MAC, 0x0800);
	pkt_ip4_ex(&p, PEER_IP4, GUEST_IP4, 17, 5, 0x2000);
	pkt_udp(&p, 53, 5353);
	pkt_zeros(&p, 32);
	pkt_fix_lengths(&p);
	EXPECT_TC(&p, TC_ACT_OK);
	pkt_init(&p); /* the next one: offset 40 bytes, no ports */
	pkt_eth(&p, GUEST_MAC, PEER_MAC, 0x0800);
	pkt_ip4_ex(&p, PEER_IP4, GUEST_IP4, 17, 5, 5);
	pkt_zeros(&p, 40);
	pkt_fix_lengths(&p);
	EXPECT_TC(&p, TC_ACT_OK);
	p.d[14 + 5] ^= 1; /* another packet's id: its first was not seen */
	EXPECT_TC(&p, TC_ACT_SHOT);
	EXPECT_CT(TA_CT_C_INVALID, 1);
	return 0;
}

/* The same 5-tuple in two zones is two connections. */
static int ct_zones(void)
{
	struct ta_tap_ref ref;
	struct ta_tap tap;
	uint32_t lo = 1;
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	CHECK(!bpf_map_lookup_elem(env.pl.maps.ta_tap_index, &lo, &ref), "ref");
	CHECK(!bpf_map_lookup_elem(env.pl.maps.ta_tap_slots, &ref.slot, &tap), "binding");
	tap.ct_zone = 20000;
	CHECK(!bpf_map_update_elem(env.pl.maps.ta_tap_slots, &ref.slot, &tap, BPF_F_LOCK),
	      "update: %s", strerror(errno));
	udp4(&p, false, 5353, 53);
	EXPECT_TC(&p, TC_ACT_SHOT); /* zone 20000 has no such connection */
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	CHECK(table_size() == 2, "%u entries, expected one a zone", table_size());
	tap.ct_zone = 0;
	CHECK(!bpf_map_update_elem(env.pl.maps.ta_tap_slots, &ref.slot, &tap, BPF_F_LOCK),
	      "update: %s", strerror(errno));
	udp4(&p, false, 5353, 53);
	EXPECT_TC(&p, TC_ACT_OK);
	return 0;
}

/* A tap at its limit: new connections refused, counted, one event;
 * its established ones go on. */
static int ct_tap_limit(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(config_set(0, 2, 0));
	OK(sg_install(NULL, 0));
	udp4(&p, true, 1001, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	udp4(&p, true, 1002, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	udp4(&p, true, 1003, 53);
	EXPECT_VERDICT(&p, XDP_DROP);
	udp4(&p, true, 1004, 53);
	EXPECT_VERDICT(&p, XDP_DROP);
	udp4(&p, false, 1001, 53);
	EXPECT_TC(&p, TC_ACT_OK);
	EXPECT_CT(TA_CT_C_TAP_LIMIT, 2);
	EXPECT_CT(TA_CT_C_NEW, 2);
	return expect_one_event(TA_CT_EV_TAP_LIMIT);
}

/* The host at its limit: the documented rule is refusal, not eviction. */
static int ct_table_full(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(config_set(3, 0, 0));
	OK(sg_install(NULL, 0));
	udp4(&p, true, 1001, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	echo4(&p, true, 8, 1);
	EXPECT_VERDICT(&p, XDP_PASS);
	tcp4(&p, true, 1003, 80, TCP_SYN);
	EXPECT_VERDICT(&p, XDP_PASS);
	udp4(&p, true, 1004, 53);
	EXPECT_VERDICT(&p, XDP_DROP);
	CHECK(table_size() == 3, "%u entries, expected 3", table_size());
	EXPECT_CT(TA_CT_C_TABLE_FULL, 1);
	udp4(&p, false, 1001, 53); /* the first is still there */
	EXPECT_TC(&p, TC_ACT_OK);
	return expect_one_event(TA_CT_EV_TABLE_FULL);
}

/* A connection past its timeout is gone; timeouts are configurable. */
static int ct_timeout(void)
{
	struct ta_ct_config cfg = {.timeout[TA_CT_UDP_REPLIED] = 5};
	struct ta_ct_key key;
	struct ta_ct_entry e;
	struct timespec ts;
	uint32_t zero = 0;
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	CHECK(!bpf_map_update_elem(ct.cfg, &zero, &cfg, 0), "config");
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	udp4(&p, false, 5353, 53);
	EXPECT_TC(&p, TC_ACT_OK);
	OK(first_entry(&key, &e));
	CHECK(e.state == TA_CT_UDP_REPLIED, "state %u", e.state);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e.last_ns = ts.tv_sec * 1000000000ull + ts.tv_nsec - 4000000000ull;
	CHECK(!bpf_map_update_elem(ct.ct, &key, &e, 0), "update");
	udp4(&p, false, 5353, 53); /* 4 s of 5 */
	EXPECT_TC(&p, TC_ACT_OK);
	OK(first_entry(&key, &e));
	e.last_ns -= 6000000000ull;
	CHECK(!bpf_map_update_elem(ct.ct, &key, &e, 0), "update");
	EXPECT_TC(&p, TC_ACT_SHOT); /* 6 s: expired, and deleted */
	CHECK(table_size() == 0 && tracked(env.tap.tap.id) == 0, "%u entries, %u tracked",
	      table_size(), tracked(env.tap.tap.id));
	return 0;
}

/* A new policy without port 22 cuts the connection at its next frame;
 * the guest's own connection, which it still allows, goes on. */
static int ct_policy_change_cuts(void)
{
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(&IN_SSH, 1));
	if (ssh_opened(&p))
		return -1;
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_PASS);
	OK(sg_install(NULL, 0));
	tcp4(&p, false, 22, 50000, TCP_ACK);
	EXPECT_TC(&p, TC_ACT_SHOT);
	EXPECT_CT(TA_CT_C_CUT, 1);
	CHECK(table_size() == 1, "%u entries, expected the UDP one", table_size());
	tcp4(&p, true, 22, 50000, TCP_ACK); /* the guest's side: out of state now */
	EXPECT_VERDICT(&p, XDP_DROP);
	udp4(&p, false, 5353, 53);
	EXPECT_TC(&p, TC_ACT_OK);
	EXPECT_CT(TA_CT_C_CUT, 1);
	return 0;
}

/* A redirect to a tap is judged by that tap's in policy first. */
static int ct_redirect_checks_receiver(void)
{
	struct ct_rule r[] = {
		{.r = {.fields = F(TA_F_IP_PROTO), .ip_proto = 17, .action = TA_ACT_REDIRECT,
		       .ifindex = 1},
		 .dirs = DIR_OUT},
	};
	struct pkt p;

	OK(ct_setup());
	/* the receiver is the test tap itself (lo): its default in drops */
	OK(ct_install(r, 1, TA_ACT_PASS, TA_ACT_DROP));
	udp4(&p, true, 5353, 53);
	EXPECT_VERDICT(&p, XDP_REDIRECT); /* the check is off until asked for */
	OK(config_set(0, 0, TA_CT_CFG_F_IN));
	udp4(&p, true, 5354, 53);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_CT(TA_CT_C_IN_DROP, 1);
	return 0;
}

/* The devmap egress program loads (BPF_PROG_TEST_RUN refuses devmap
 * programs, so its frames are the tc program's decision, tested above). */
static int ct_devmap_program(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .repeat = 1);
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	struct pkt p;

	OK(ct_setup());
	CHECK(!bpf_obj_get_info_by_fd(ct.devmap, &info, &len), "info: %s", strerror(errno));
	CHECK(info.type == BPF_PROG_TYPE_XDP, "type %u", info.type);
	udp4(&p, false, 1, 2);
	opts.data_in = p.d;
	opts.data_size_in = p.len;
	CHECK(bpf_prog_test_run_opts(ct.devmap, &opts) && errno == EINVAL,
	      "a test run of a devmap program was taken: test it through it");
	return 0;
}

/* ---- a real tap: the tc program on clsact egress ---------------------- */

struct real_tap {
	int fd;	      /* the guest's end: what it reads and writes */
	int packet;   /* an AF_PACKET socket: frames the stack sends it */
	uint32_t ifindex;
	char name[IFNAMSIZ];
	struct ta_tap_key key;
	struct ta_tap_state st;
	bool bound, xdp, tc;
};

static void real_tap_close(struct real_tap *t)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = t->ifindex,
			    .attach_point = BPF_TC_EGRESS);

	if (t->tc)
		bpf_tc_hook_destroy(&hook);
	if (t->xdp)
		bpf_xdp_detach(t->ifindex, XDP_FLAGS_SKB_MODE, NULL);
	if (t->bound)
		ta_tap_unbind(&env.pl, &t->key, &env.e);
	if (t->packet >= 0)
		close(t->packet);
	if (t->fd >= 0)
		close(t->fd);
}

/* A tap of this namespace, up, bound to policy "test", with the policy
 * program (generic XDP) on what it sends and the tc program on what it
 * gets. */
static int real_tap_open(struct real_tap *t)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_EGRESS);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, tc, .prog_fd = ct.tc);
	struct ta_bind b = {.policy = env.policy, .entry_only = true};
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	enum ta_bind_result result;
	struct ifreq ifr = {};
	char path[128];
	int s;

	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
	if (t->fd < 0)
		FAIL("open /dev/net/tun: %s", strerror(errno));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	strcpy(ifr.ifr_name, "tact%d");
	CHECK(!ioctl(t->fd, TUNSETIFF, &ifr), "TUNSETIFF: %s", strerror(errno));
	memcpy(t->name, ifr.ifr_name, IFNAMSIZ);
	t->ifindex = if_nametoindex(t->name);
	/* no IPv6 on it: the stack's own solicitations would be judged too */
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6", t->name);
	s = open(path, O_WRONLY);
	CHECK(s >= 0 && write(s, "1", 1) == 1, "%s: %s", path, strerror(errno));
	close(s);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	ifr.ifr_flags = IFF_UP;
	CHECK(s >= 0 && !ioctl(s, SIOCSIFFLAGS, &ifr), "%s up: %s", t->name, strerror(errno));
	close(s);
	b.ifname = t->name;
	CHECK(!ta_tap_bind(&env.pl, &b, &result, &env.e), "bind %s: %s", t->name, env.e.text);
	t->bound = true;
	OK(ta_tap_key_of(&env.pl, t->name, &t->key));
	OK(ta_tap_read(&env.pl, &t->key, &t->st));
	CHECK(!bpf_xdp_attach(t->ifindex, env.prog, XDP_FLAGS_SKB_MODE, NULL), "xdp: %s",
	      strerror(errno));
	t->xdp = true;
	hook.ifindex = t->ifindex;
	if (bpf_tc_hook_create(&hook) && errno != EEXIST)
		FAIL("clsact on %s: %s", t->name, strerror(errno));
	t->tc = true;
	CHECK(!bpf_tc_attach(&hook, &tc), "tc attach: %s", strerror(errno));
	t->packet = socket(AF_PACKET, SOCK_RAW, 0);
	sll.sll_ifindex = t->ifindex;
	CHECK(t->packet >= 0 && !bind(t->packet, (struct sockaddr *)&sll, sizeof(sll)),
	      "packet socket: %s", strerror(errno));
	return 0;
}

/* Frames of the guest's end that are this UDP frame, after a moment. */
static int delivered(struct real_tap *t, const struct pkt *p)
{
	uint8_t buf[2048];
	int n = 0, i;
	ssize_t len;

	for (i = 0; i < 20; i++) {
		while ((len = read(t->fd, buf, sizeof(buf))) > 0)
			n += (uint32_t)len == p->len && !memcmp(buf, p->d, p->len);
		usleep(5000);
	}
	return n;
}

static int real_tap_test(struct real_tap *t)
{
	struct ta_counter stats[TA_TAP_STATS];
	struct pkt out, in, other;

	if (real_tap_open(t))
		return -1;
	OK(sg_install(NULL, 0));
	udp4(&other, false, 5353, 54); /* opened by nobody */
	/* a drop on egress is the sender's ENOBUFS (NET_XMIT_DROP) */
	CHECK(send(t->packet, other.d, other.len, 0) < 0 && errno == ENOBUFS,
	      "send of what the tc program drops: %s", strerror(errno));
	CHECK(delivered(t, &other) == 0, "a frame nobody asked for reached the guest");
	udp4(&out, true, 5353, 53); /* the guest asks */
	CHECK(write(t->fd, out.d, out.len) == (ssize_t)out.len, "write: %s", strerror(errno));
	udp4(&in, false, 5353, 53); /* the answer */
	CHECK(send(t->packet, in.d, in.len, 0) == (ssize_t)in.len, "send: %s", strerror(errno));
	CHECK(delivered(t, &in) == 1, "the answer did not reach the guest");
	OK(ta_tap_read(&env.pl, &t->key, &t->st));
	OK(ta_tap_stats_read(&env.pl, &t->st, stats));
	CHECK(stats[TA_STAT_CT + TA_CT_C_IN_DROP].packets == 1 &&
		      stats[TA_STAT_CT + TA_CT_C_IN_PASS].packets == 1 &&
		      stats[TA_STAT_CT + TA_CT_C_NEW].packets == 1,
	      "in drop %llu pass %llu, new %llu; expected 1 each",
	      (unsigned long long)stats[TA_STAT_CT + TA_CT_C_IN_DROP].packets,
	      (unsigned long long)stats[TA_STAT_CT + TA_CT_C_IN_PASS].packets,
	      (unsigned long long)stats[TA_STAT_CT + TA_CT_C_NEW].packets);
	return 0;
}

/* On a real tap: what the stack sends to the guest meets the tc program
 * on clsact egress; only the answer to what the guest sent gets through. */
static int ct_real_tap_tc(void)
{
	struct real_tap t = {.fd = -1, .packet = -1};
	int ret;

	OK(ct_setup());
	ret = real_tap_test(&t);
	real_tap_close(&t);
	return ret;
}

/* ---- reject: the exact answer ------------------------------------------ */

static uint16_t csum(const uint8_t *d, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += d[i] << 8 | d[i + 1];
	if (n & 1)
		sum += d[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

static uint32_t sum16(const uint8_t *d, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += d[i] << 8 | d[i + 1];
	return sum;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static int expect_bytes(const char *what, const struct pkt *got, const uint8_t *want,
			uint32_t n)
{
	uint32_t i;

	if (got->len != n)
		FAIL("%s: %u bytes, expected %u", what, got->len, n);
	for (i = 0; i < n; i++)
		if (got->d[i] != want[i])
			FAIL("%s: byte %u is %#x, expected %#x", what, i, got->d[i], want[i]);
	return 0;
}

/* The out UDP reject rule installed, frame p run through the policy
 * program: XDP_TX and its answer in *out. */
static int run_out_reject(const struct pkt *p, struct pkt *out)
{
	struct ct_rule r = {
		.r = {.fields = F(TA_F_IP_PROTO), .ip_proto = 17, .action = TA_ACT_REJECT},
		.dirs = DIR_OUT,
	};
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d, .data_size_in = p->len,
		    .data_out = out->d, .data_size_out = sizeof(out->d), .repeat = 1);

	OK(ct_setup());
	OK(ct_install(&r, 1, TA_ACT_PASS, TA_ACT_DROP));
	OK(bpf_prog_test_run_opts(env.prog, &opts) ? -errno : 0);
	CHECK(opts.retval == XDP_TX, "verdict %s, expected TX", verdict_name(opts.retval));
	out->len = opts.data_size_out;
	return 0;
}

/* The answer's Ethernet and IPv4 headers: from the frame's destination
 * (orig, a frame with an IPv4 header at 14) back to its source. */
static void want_eth_ip4(uint8_t *want, const uint8_t *orig, uint8_t proto, uint16_t tot_len)
{
	memcpy(want, orig + 6, 6);
	memcpy(want + 6, orig, 6);
	want[12] = 0x08;
	want[14] = 0x45;
	put_be16(want + 16, tot_len);
	want[20] = 0x40; /* don't fragment */
	want[22] = 64;
	want[23] = proto;
	memcpy(want + 26, orig + 30, 4);
	memcpy(want + 30, orig + 26, 4);
	put_be16(want + 24, csum(want + 14, 20, 0));
}

/* Reject in: a SYN to port 23 gets an RST from the guest's address. */
static int ct_reject_tcp_rst(void)
{
	struct ct_rule r = {
		.r = {.fields = F(TA_F_DST_PORT), .dport_lo = 23, .dport_hi = 23,
		      .action = TA_ACT_REJECT},
		.dirs = DIR_IN,
	};
	uint8_t want[54], ph[12];
	struct pkt p, out;
	uint32_t ret = 0;

	OK(ct_setup());
	OK(sg_install(&r, 1));
	tcp4(&p, false, 23, 40000, TCP_SYN);
	memcpy(p.d + 38, "\x01\x02\x03\x04", 4); /* sequence number */
	OK(run_tc(&p, &ret, &out));
	CHECK(ret == TC_ACT_REDIRECT, "tc verdict %u, expected redirect", ret);
	memset(want, 0, sizeof(want));
	want_eth_ip4(want, p.d, 6, 40);
	put_be16(want + 34, 23);
	put_be16(want + 36, 40000);
	memcpy(want + 42, "\x01\x02\x03\x05", 4); /* ACK of the SYN */
	want[46] = 0x50;
	want[47] = TCP_RST | TCP_ACK;
	memcpy(ph, want + 26, 8);
	ph[8] = 0;
	ph[9] = 6;
	put_be16(ph + 10, 20);
	put_be16(want + 50, csum(want + 34, 20, sum16(ph, 12)));
	if (expect_bytes("RST", &out, want, sizeof(want)))
		return -1;
	EXPECT_CT(TA_CT_C_IN_REJECT, 1);
	return 0;
}

/* Reject out: UDP from the guest gets ICMP port unreachable by XDP_TX. */
static int ct_reject_icmp4(void)
{
	uint8_t want[14 + 20 + 8 + 28];
	struct pkt p, out;

	udp4(&p, true, 5353, 53);
	if (run_out_reject(&p, &out))
		return -1;
	memset(want, 0, sizeof(want));
	want_eth_ip4(want, p.d, 1, sizeof(want) - 14);
	want[34] = 3;
	want[35] = 3;
	memcpy(want + 42, p.d + 14, 28);
	put_be16(want + 36, csum(want + 34, 8 + 28, 0));
	if (expect_bytes("ICMP unreachable", &out, want, sizeof(want)))
		return -1;
	EXPECT_CT(TA_CT_C_OUT_REJECT, 1);
	return 0;
}

/* Reject out, IPv6: ICMPv6 port unreachable quoting the frame. */
static int ct_reject_icmp6(void)
{
	uint8_t want[14 + 40 + 8 + 48], ph[40];
	struct pkt p, out;

	frame_udp6(&p, GUEST_IP6, PEER_IP6, 5353, 53);
	if (run_out_reject(&p, &out))
		return -1;
	CHECK(p.len - 14 == 48, "test frame of %u bytes", p.len);
	memset(want, 0, sizeof(want));
	memcpy(want, GUEST_MAC, 6);
	memcpy(want + 6, PEER_MAC, 6);
	want[12] = 0x86;
	want[13] = 0xdd;
	want[14] = 0x60;
	put_be16(want + 18, 8 + 48);
	want[20] = 58;
	want[21] = 64;
	memcpy(want + 22, PEER_IP6, 16);
	memcpy(want + 38, GUEST_IP6, 16);
	want[54] = 1;
	want[55] = 4;
	memcpy(want + 62, p.d + 14, 48);
	memset(ph, 0, sizeof(ph));
	memcpy(ph, want + 22, 32);
	put_be16(ph + 34, 8 + 48);
	ph[39] = 58;
	put_be16(want + 56, csum(want + 54, 8 + 48, sum16(ph, 40)));
	return expect_bytes("ICMPv6 unreachable", &out, want, sizeof(want));
}

/* A frame cut short on its way in: dropped by the parser's count. */
static int ct_in_malformed(void)
{
	struct ta_counter stats[TA_TAP_STATS];
	struct pkt p;

	OK(ct_setup());
	OK(sg_install(NULL, 0));
	tcp4(&p, false, 22, 50000, TCP_SYN);
	p.len = 14 + 20 + 10; /* TCP header cut short */
	EXPECT_TC(&p, TC_ACT_SHOT);
	OK(ta_tap_stats_read(&env.pl, &env.tap, stats));
	CHECK(stats[TA_STAT_PARSE + TA_PARSE_L4_TRUNC].packets == 1, "l4_trunc %llu",
	      (unsigned long long)stats[TA_STAT_PARSE + TA_PARSE_L4_TRUNC].packets);
	return 0;
}

const struct test ct_tests[] = {
	{"ct_off_tracks_nothing", ct_off_tracks_nothing},
	{"ct_tcp_guest_opens", ct_tcp_guest_opens},
	{"ct_tcp_in_port_22", ct_tcp_in_port_22},
	{"ct_tcp_invalid", ct_tcp_invalid},
	{"ct_udp_and_echo", ct_udp_and_echo},
	{"ct_icmp_related", ct_icmp_related},
	{"ct_ipv6", ct_ipv6},
	{"ct_fragments", ct_fragments},
	{"ct_zones", ct_zones},
	{"ct_tap_limit", ct_tap_limit},
	{"ct_table_full", ct_table_full},
	{"ct_timeout", ct_timeout},
	{"ct_policy_change_cuts", ct_policy_change_cuts},
	{"ct_redirect_checks_receiver", ct_redirect_checks_receiver},
	{"ct_devmap_program", ct_devmap_program},
	{"ct_real_tap_tc", ct_real_tap_tc},
	{"ct_reject_tcp_rst", ct_reject_tcp_rst},
	{"ct_reject_icmp4", ct_reject_icmp4},
	{"ct_reject_icmp6", ct_reject_icmp6},
	{"ct_in_malformed", ct_in_malformed},
	{NULL, NULL},
};
