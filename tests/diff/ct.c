// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ct.c - the differential test of two-way, stateful policies: random
 * security groups (policy text, so the parser's own rules come too) on
 * the test tap, and sequences of frames both ways through them: out
 * through tap_accel_policy, in through tap_accel_in_tc, each frame also
 * through the model (ta_model_run_rx) with its own table. Frames are
 * drawn from a few endpoints and ports so that they make, answer, close
 * and break connections: TCP with any flags, UDP, ICMP echo, ICMP errors
 * quoting earlier frames, IPv4 fragments, ARP and neighbour
 * solicitations; now and then the policy is replaced mid-sequence. Per
 * frame the verdicts must agree; per sequence every counter of the tap
 * (verdicts, parse, events, connection counters), the number of
 * connections in the table and the tap's count of them.
 *
 * Then pairs: a second bound device (a tap this test makes, gone with
 * it) whose own policy judges what the test tap's policy redirects or
 * forwards to it, and the other way round: the test tap is its peer's
 * guest, frames go out of either tap's program (the second one's as its
 * ingress device) or to either through the stack (its tc program), and
 * each tap's counters and connection count must match the model's after
 * every frame.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/if_tun.h>
#include <linux/pkt_cls.h>

#include "ct.h"
#include "user/lib/plane/policies.h"
#include "user/lib/plane/taps.h"
#include "user/lib/policy/model.h"
#include "user/lib/policy/names.h"
#include "user/lib/policy/parse.h"
#include "user/lib/sys/util.h"

#define STEPS	 96 /* frames in a sequence */
#define HISTORY	 16 /* earlier frames an ICMP error may quote */
#define TEST_TAP "lo"
#define PAIR_TAP "tadiff%d" /* the second device of pairs */

struct sent {
	struct pkt p;
	uint32_t dir; /* as the test tap sees it: out from its guest, or in */
	bool other;   /* with the other peer (10.9.9.9, fd00::9:...) */
	uint32_t at;  /* the tap whose program runs it (pairs: 0 or 1) */
	bool prog;    /* tap_accel_policy (what its guest sends); else tc */
};

/* A bound device and the policy it runs: side 0 is the test tap, side 1
 * the second device of pairs, whose guest is the test tap's peer. */
struct side {
	const char *policy; /* its name */
	char ifname[IF_NAMESIZE];
	uint32_t ifindex;
	struct ta_policy_spec spec;
	char text[2048];
	uint32_t generation;
	struct ta_tap_state tap;
	uint64_t stats[TA_TAP_STATS]; /* the model's count, this sequence */
	struct ta_counter before[TA_TAP_STATS];
};

struct ct_run {
	struct ta_plane *pl;
	struct rng *r;
	struct side side[2];
	bool pair;  /* this sequence has side 1 */
	int tun_fd; /* side 1's device: a tap that goes when it closes */
	struct ta_model_ct *model;
	struct sent history[HISTORY];
	uint32_t nr_sent;
	uint64_t frames, by_state[TA_CT_STATE_MAX + 1], verdicts[8], made, cut;
	uint64_t pair_frames, rx_judged, rx_pass, rx_drop, rx_reject, rx_sent, rx_made, rx_cut;
	uint64_t rx_established;
	/* the ends of the last frame: the next one often takes them again,
	 * either way, so that connections get answered */
	uint16_t gport, pport;
	bool v6, other;
	uint8_t last_flags; /* of the last frame, if TCP */
	uint32_t last_dir;
};

/* ---- policies --------------------------------------------------------- */

static const char *pick(struct rng *r, const char *const *words, uint32_t n)
{
	return words[rng_below(r, n)];
}

#define PICK(r, ...)                                                           \
	pick(r, (const char *const[]){__VA_ARGS__},                            \
	     sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

/* An action out; `to` (pairs): the device a redirect names. */
static int out_action(struct rng *r, const char *to, char *out, size_t room, bool dflt)
{
	const char *a;

	if (!to)
		return snprintf(out, room, "%s",
				dflt ? PICK(r, "pass", "drop", "reject", "tx")
				     : PICK(r, "pass", "pass", "drop", "reject", "tx"));
	a = PICK(r, "pass", "drop", "reject", "tx", "redirect", "redirect", "forward");
	if (!strcmp(a, "redirect"))
		return snprintf(out, room, "redirect %s", to);
	return snprintf(out, room, "%s", a);
}

/* A rule of a security group, as text. */
static int gen_rule_text(struct rng *r, const char *to, char *out, size_t room)
{
	bool in = rng_pct(r, 50);
	char action[64];
	int n;
	const char *proto;

	if (in)
		snprintf(action, sizeof(action), "%s", PICK(r, "pass", "drop", "reject"));
	else
		out_action(r, to, action, sizeof(action), false);
	n = snprintf(out, room, "rule %s %s", action, in ? PICK(r, "in", "in", "in,out") : "out");
	proto = PICK(r, "", "tcp", "udp", "icmp", "icmpv6");
	if (strstr(out, "tx") && strstr(out, "in,out"))
		return -1;
	if (*proto)
		n += snprintf(out + n, room - n, " proto %s", proto);
	if ((!strcmp(proto, "tcp") || !strcmp(proto, "udp")) && rng_pct(r, 60))
		n += snprintf(out + n, room - n, " dport %s", PICK(r, "22", "53", "80", "1000-2000"));
	if ((!strcmp(proto, "tcp") || !strcmp(proto, "udp")) && rng_pct(r, 20))
		n += snprintf(out + n, room - n, " sport %s", PICK(r, "22", "53", "40000"));
	if (!strcmp(proto, "icmp") && rng_pct(r, 50))
		n += snprintf(out + n, room - n, " icmp-type %s", PICK(r, "0", "3", "8"));
	if (rng_pct(r, 25))
		n += snprintf(out + n, room - n, " src %s",
			      PICK(r, "10.0.0.2", "10.9.0.0/16", "10.0.0.0/24", "fd00::/16"));
	if (rng_pct(r, 20))
		n += snprintf(out + n, room - n, " state %s",
			      PICK(r, "new", "established", "established,related", "invalid",
				   "new,invalid", "related", "untracked"));
	n += snprintf(out + n, room - n, "\n");
	return n;
}

/* Policies of a pair written out: a security group that takes new
 * connections on a few ports only but answers the ones its guest
 * opens, one that forwards through its fdb, one with rejects, one with
 * states written out, one that is one-way (its tap is not judged).
 * %1$s: the peer's device, %2$s: the peer guest's MAC. */
static const char *const pair_policies[] = {
	"rule pass in proto tcp dport 22\nrule pass in proto icmp icmp-type 8\n"
	"default in drop\ndefault out redirect %1$s\n",
	"fdb %2$s dev %1$s\nrule pass in proto udp\nrule pass in proto tcp dport 80\n"
	"default in drop\ndefault out forward\n",
	"rule reject in proto tcp dport 1000-2000\nrule pass in proto tcp\n"
	"rule drop out proto udp dport 53\ndefault in reject\ndefault out redirect %1$s\n",
	"rule redirect %1$s out proto tcp\nrule redirect %1$s out proto udp\n"
	"rule pass in proto tcp dport 80 state new\nrule pass in state established,related\n"
	"rule reject in state invalid\ndefault in drop\n",
	"rule redirect %1$s proto tcp\nrule redirect %1$s proto udp\n",
};

/* A random two-way policy (now and then one-way) that parses; in a pair
 * (to: the other side's device, mac: its guest's) with redirects and
 * forwarding to it, or one of pair_policies. */
static int gen_ct_policy(struct ct_run *t, struct side *sd, const char *to, const char *mac)
{
	struct ta_error e;

	for (;;) {
		uint32_t rules = rng_below(t->r, 8), n = 0;
		int len;

		if (to && rng_pct(t->r, 40)) {
			const char *f = pair_policies[rng_below(t->r, sizeof(pair_policies) /
								      sizeof(*pair_policies))];

			snprintf(sd->text, sizeof(sd->text), f, to, mac);
			rules = 0;
			goto parse;
		}
		for (uint32_t i = 0; i < rules; i++) {
			len = gen_rule_text(t->r, to, sd->text + n, sizeof(sd->text) - n - 256);
			if (len > 0)
				n += len;
		}
		if (rng_pct(t->r, 85))
			n += snprintf(sd->text + n, sizeof(sd->text) - n, "default in %s\n",
				      PICK(t->r, "drop", "drop", "pass", "reject"));
		if (rng_pct(t->r, 50)) {
			char action[64];

			out_action(t->r, to, action, sizeof(action), true);
			n += snprintf(sd->text + n, sizeof(sd->text) - n, "default out %s\n", action);
		}
		if (to && rng_pct(t->r, 80))
			snprintf(sd->text + n, sizeof(sd->text) - n, "fdb %s dev %s\n", mac, to);
parse:
		ta_policy_spec_free(&sd->spec);
		if (ta_policy_parse(sd->text, strlen(sd->text), "ct.policy", &sd->spec, &e))
			continue;
		if (!to || !ta_policy_resolve("ct.policy", &sd->spec, &e))
			return 0;
		printf("FAIL resolve:\n%s%s\n", sd->text, e.text);
		return -ENOENT;
	}
}

/* The side's policy as its policy, the side bound to it, and its
 * generation. */
static int load(struct ct_run *t, struct side *sd)
{
	struct ta_bind b = {.ifname = sd->ifname, .entry_only = true};
	struct ta_load_result res;
	struct ta_policy_info info;
	enum ta_bind_result br;
	struct ta_tap_key key;
	struct ta_error e;
	int ret = ta_policy_load(t->pl, sd->policy, &sd->spec, true, &res, &e);

	b.policy = res.index;
	ret = ret ?: ta_tap_bind(t->pl, &b, &br, &e);
	if (ret) {
		printf("FAIL load:\n%s\n%s\n", sd->text, e.text);
		return -EIO;
	}
	ret = ta_tap_key_of(t->pl, sd->ifname, &key) ?: ta_tap_read(t->pl, &key, &sd->tap);
	ret = ret ?: ta_policy_get(t->pl, res.index, &info);
	sd->generation = info.head.generation;
	return ret;
}

/* ---- frames ---------------------------------------------------------- */

static const uint16_t ports[] = {22, 53, 80, 1500, 40000};

/* Ethernet and IP of a frame out (guest to peer) or in; v6 or v4. */
static void frame_ip(struct pkt *p, uint32_t dir, bool other, bool v6, uint8_t proto,
		     uint16_t frag_off)
{
	bool out = dir == TA_DIR_OUT;
	uint32_t peer4 = other ? OTHER_IP4 : PEER_IP4;
	const uint8_t *peer6 = other ? OTHER_IP6 : PEER_IP6;

	pkt_init(p);
	pkt_eth(p, out ? PEER_MAC : GUEST_MAC, out ? GUEST_MAC : PEER_MAC,
		v6 ? 0x86dd : 0x0800);
	if (v6)
		pkt_ip6(p, out ? GUEST_IP6 : peer6, out ? peer6 : GUEST_IP6, proto);
	else
		pkt_ip4_ex(p, out ? GUEST_IP4 : peer4, out ? peer4 : GUEST_IP4, proto, 5, frag_off);
}

static void set16(struct pkt *p, uint32_t at, uint16_t v)
{
	p->d[at] = (uint8_t)(v >> 8);
	p->d[at + 1] = (uint8_t)v;
}

/* An ICMP error back to whoever sent an earlier frame, quoting it. */
static bool frame_error(struct ct_run *t, struct pkt *p, uint32_t *dir, bool *other)
{
	const struct sent *q;
	uint32_t quote;
	bool v6;

	if (!t->nr_sent)
		return false;
	q = &t->history[rng_below(t->r, t->nr_sent < HISTORY ? t->nr_sent : HISTORY)];
	if (q->p.l3_off < 0)
		return false;
	v6 = q->p.l3_ver == 6;
	quote = (v6 ? 40 : 20) + 8;
	if (q->p.len < q->p.l3_off + quote)
		return false;
	*dir = q->dir == TA_DIR_OUT ? TA_DIR_IN : TA_DIR_OUT;
	*other = q->other;
	frame_ip(p, *dir, q->other, v6, v6 ? 58 : 1, 0);
	pkt_icmp(p, v6 ? 1 + rng_below(t->r, 2) : rng_pct(t->r, 50) ? 3 : 11);
	pkt_bytes(p, q->p.d + q->p.l3_off, quote);
	pkt_fix_lengths(p);
	return true;
}

/* What follows a TCP frame with these flags in a connection: SYN,
 * SYN-ACK, ACK, data (`more`) or a FIN; a SYN after anything else. */
static uint8_t next_flags(uint8_t flags, bool more)
{
	switch (flags) {
	case 0x02:
		return 0x12;
	case 0x12:
		return 0x10;
	case 0x10:
	case 0x18:
		return more ? 0x18 : 0x11;
	case 0x11:
		return 0x10;
	}
	return 0x02;
}

/* A random frame of the sequence, and its direction. */
static void gen_ct_frame(struct ct_run *t, struct sent *s)
{
	struct rng *r = t->r;
	struct pkt *p = &s->p;
	uint32_t *dir = &s->dir, kind = rng_below(r, 100), l4;
	uint16_t gport, pport;
	bool v6, other, out, fresh = !t->nr_sent || rng_pct(r, 40), handshake;
	uint8_t tcp_flags = 0;

	if (fresh) {
		t->gport = ports[rng_below(r, 5)];
		t->pport = ports[rng_below(r, 5)];
		t->v6 = rng_pct(r, 30);
		t->other = rng_pct(r, 15);
	}
	gport = t->gport;
	pport = t->pport;
	v6 = t->v6;
	other = t->other;

	*dir = rng_pct(r, 50) ? TA_DIR_OUT : TA_DIR_IN;
	/* pairs: often the next step of the last TCP frame's handshake, so
	 * that connections between the two guests get made and answered */
	handshake = t->pair && kind < 45 && !fresh && rng_pct(r, 60);
	if (handshake) {
		tcp_flags = next_flags(t->last_flags, rng_pct(r, 80));
		if (t->last_flags == 0x02 || t->last_flags == 0x12)
			*dir = !t->last_dir; /* the answer */
	}
	s->other = other;
	out = *dir == TA_DIR_OUT;
	t->last_flags = 0;
	t->last_dir = *dir;
	if (kind < 45) { /* TCP */
		static const uint8_t flags[] = {0x02, 0x02, 0x12, 0x12, 0x10, 0x10, 0x18,
						0x11, 0x04, 0x14, 0x03, 0x00};

		frame_ip(p, *dir, other, v6, 6, 0);
		l4 = p->len;
		pkt_tcp(p, out ? gport : pport, out ? pport : gport);
		if (!handshake)
			tcp_flags = rng_pct(r, 5) ? (uint8_t)rng_below(r, 256)
						  : flags[rng_below(r, sizeof(flags))];
		p->d[l4 + 13] = tcp_flags;
		t->last_flags = tcp_flags;
	} else if (kind < 65) { /* UDP */
		frame_ip(p, *dir, other, v6, 17, 0);
		pkt_udp(p, out ? gport : pport, out ? pport : gport);
	} else if (kind < 80) { /* echo */
		frame_ip(p, *dir, other, v6, v6 ? 58 : 1, 0);
		l4 = p->len;
		pkt_icmp(p, v6 ? (rng_pct(r, 50) ? 128 : 129) : (rng_pct(r, 50) ? 8 : 0));
		set16(p, l4 + 4, (uint16_t)(1 + rng_below(r, 2)));
	} else if (kind < 90) { /* an error about an earlier frame */
		if (frame_error(t, p, dir, &s->other))
			return;
		frame_ip(p, *dir, other, false, 1, 0);
		pkt_icmp(p, 3);
	} else if (kind < 96) { /* IPv4 fragments of UDP: first, later */
		bool first = rng_pct(r, 50);

		frame_ip(p, *dir, other, false, 17, first ? 0x2000 : 0x0001);
		set16(p, p->l3_off + 4, (uint16_t)(1 + rng_below(r, 2))); /* the id */
		if (first)
			pkt_udp(p, out ? gport : pport, out ? pport : gport);
		else
			pkt_zeros(p, 8);
	} else if (kind < 98) {
		frame_arp(p, out ? GUEST_MAC : PEER_MAC, out ? GUEST_IP4 : PEER_IP4);
		return;
	} else {
		frame_ip(p, *dir, other, true, 58, 0);
		pkt_nd(p, 135, out ? PEER_IP6 : GUEST_IP6);
	}
	pkt_fix_lengths(p);
}

/* Where the frame meets a program: alone, out of the test tap or in to
 * it; in a pair, a frame between the two guests goes out of the
 * sender's tap (and on to the other's in policy if redirected) or
 * reaches the receiver through the stack. */
static void route(struct ct_run *t, struct sent *s)
{
	bool out = s->dir == TA_DIR_OUT;

	s->prog = out;
	s->at = 0;
	if (!t->pair)
		return;
	s->prog = rng_pct(t->r, 70);
	s->at = s->prog == out ? 0 : 1;
}

/* ---- runs ------------------------------------------------------------- */

/* The verdict of the program for the frame, in the model's terms. */
static int kernel_run(const struct ct_run *t, const struct sent *s, uint32_t *verdict)
{
	static uint8_t out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = s->p.d, .data_size_in = s->p.len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	struct xdp_md xdp = {.data_end = s->p.len, .ingress_ifindex = t->side[1].ifindex};
	struct __sk_buff skb = {.ifindex = t->side[1].ifindex};
	int fd = s->prog ? t->pl->prog_fd : t->pl->in_tc_fd;

	if (s->at && s->prog) { /* the test run's device is lo unless told */
		opts.ctx_in = &xdp;
		opts.ctx_size_in = sizeof(xdp);
	} else if (s->at) {
		opts.ctx_in = &skb;
		opts.ctx_size_in = sizeof(skb);
	}
	if (bpf_prog_test_run_opts(fd, &opts))
		return -errno;
	*verdict = opts.retval;
	if (!s->prog) /* tc: pass, drop, or the reject sent back */
		*verdict = opts.retval == TC_ACT_OK	  ? XDP_PASS
			   : opts.retval == TC_ACT_SHOT	  ? XDP_DROP
			   : opts.retval == TC_ACT_REDIRECT ? XDP_TX
							    : 100 + opts.retval;
	return 0;
}

/* Every entry of hash map fd (keys of at most 64 bytes) deleted. */
static int map_empty(int fd)
{
	uint8_t key[64];

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return 0;
}

static uint32_t map_count(int fd)
{
	uint8_t key[64], next[64];
	uint32_t n = 0;
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		n++;
	}
	return n;
}

/* A blank table, program's and model's. */
static int reset(struct ct_run *t)
{
	const struct ta_maps *m = &t->pl->maps;
	struct ta_ct_tap zero = {};
	uint32_t keys[3] = {TA_MAX_TAPS, t->side[0].tap.tap.id, t->side[1].tap.tap.id};
	int ret = map_empty(m->ta_ct) ?: map_empty(m->ta_ct_frags);

	for (int i = 0; !ret && i < (t->pair ? 3 : 2); i++)
		if (bpf_map_update_elem(m->ta_ct_taps, &keys[i], &zero, BPF_ANY))
			ret = -errno;
	ta_model_ct_free(t->model);
	t->model = ta_model_ct_new();
	t->nr_sent = 0;
	for (int i = 0; i < 2; i++)
		memset(t->side[i].stats, 0, sizeof(t->side[i].stats));
	return ret ?: t->model ? 0 : -ENOMEM;
}

static void print_policies(const struct ct_run *t)
{
	printf("policy of %s:\n%s", t->side[0].ifname, t->side[0].text);
	if (t->pair)
		printf("policy of %s:\n%s", t->side[1].ifname, t->side[1].text);
}

static void report(const struct ct_run *t, const struct sent *s,
		   const struct ta_model_result *res, const char *what)
{
	printf("FAIL two-way disagreement (%s), frame %s %s %s:\n", what,
	       s->prog ? "out of" : "in to", t->side[s->at].ifname,
	       s->prog ? "(tap_accel_policy)" : "(tc)");
	for (uint32_t i = 0; i < s->p.len; i++)
		printf("%02x", s->p.d[i]);
	printf("\nmodel: verdict %s, state %u, rule %d, counted 0x%x", ta_verdict_name(res->verdict),
	       res->ct_state, res->rule, res->ct_counts);
	if (res->rx.judged)
		printf("; receiver %u: state %u, rule %d, counted 0x%x", res->rx.tap,
		       res->rx.ct_state, res->rx.rule, res->rx.ct_counts);
	printf("\n");
	print_policies(t);
}

static void model_run(struct ct_run *t, const struct sent *s, struct ta_model_result *res)
{
	const struct side *me = &t->side[s->at], *peer = &t->side[!s->at];
	struct ta_model_tap tap = {.id = me->tap.tap.id, .zone = me->tap.tap.ct_zone};
	struct ta_model_receiver rx = {.spec = &peer->spec, .generation = peer->generation,
				       .tap = {.id = peer->tap.tap.id,
					       .zone = peer->tap.tap.ct_zone},
				       .ifindex = peer->ifindex};

	/* the model on the table's clock, as the program */
	ta_model_run_rx(&me->spec, me->generation, &tap, s->prog ? TA_DIR_OUT : TA_DIR_IN,
			ta_monotonic_coarse_ns(), t->model, &rx, t->pair ? 1 : 0, s->p.d, s->p.len, res);
}

static int compare(struct ct_run *t, const struct sent *last);

/* What the program counts for the frame in each tap's counters: the
 * sender's verdict and events (tap_accel_policy only), parse info and
 * drops, connection counters; the receiver's connection counters. */
static void model_count(struct side *me, struct side *peer, const struct sent *s,
			const struct ta_model_result *res)
{
	if (s->prog)
		me->stats[TA_STAT_VERDICT + res->verdict]++;
	for (uint32_t i = 0; i < TA_EV_MAX; i++)
		me->stats[TA_STAT_EVENT + i] += !!(res->events & (1u << i));
	for (uint32_t i = 0; i < TA_PARSE_MAX; i++)
		me->stats[TA_STAT_PARSE + i] += !!(res->parse_info & (1u << i));
	if (res->stage == TA_MODEL_PARSE)
		me->stats[TA_STAT_PARSE + res->parse_class]++;
	else if (res->stage == TA_MODEL_GUARD)
		me->stats[TA_STAT_GUARD + res->guard_reason]++;
	for (uint32_t c = 0; c < TA_CT_C_MAX; c++) {
		me->stats[TA_STAT_CT + c] += !!(res->ct_counts & (1u << c));
		peer->stats[TA_STAT_CT + c] += res->rx.judged && (res->rx.ct_counts & (1u << c));
	}
}

/* A tap counter's name: its kind and number. */
static void stat_name(uint32_t i, char *buf, size_t size)
{
	static const struct {
		const char *kind;
		uint32_t first;
	} kinds[] = {{"conntrack", TA_STAT_CT}, {"event", TA_STAT_EVENT},
		     {"parse", TA_STAT_PARSE}, {"guard", TA_STAT_GUARD},
		     {"verdict", TA_STAT_VERDICT}};

	for (uint32_t k = 0; k < sizeof(kinds) / sizeof(*kinds); k++)
		if (i >= kinds[k].first) {
			snprintf(buf, size, "%s %u", kinds[k].kind, i - kinds[k].first);
			return;
		}
}

/* Frame s through the program and the model: they must agree. The
 * model's answer in *res. */
static int run_frame(struct ct_run *t, const struct sent *s, struct ta_model_result *out)
{
	struct ta_model_result res;
	struct side *me = &t->side[s->at], *peer = &t->side[!s->at];
	uint32_t verdict = 0;
	int ret;

	ret = kernel_run(t, s, &verdict);
	if (ret) {
		printf("FAIL test run (%s): %s\n", me->ifname, strerror(-ret));
		return 1;
	}
	model_run(t, s, &res);
	if (verdict != res.verdict) {
		report(t, s, &res, "verdict");
		printf("program: verdict %u\n", verdict);
		return 1;
	}
	model_count(me, peer, s, &res);
	t->frames++;
	t->by_state[res.ct_state < TA_CT_STATE_MAX ? res.ct_state : TA_CT_STATE_MAX]++;
	t->verdicts[res.verdict & 7]++;
	if (out)
		*out = res;
	if (!t->pair)
		return 0;
	t->pair_frames++;
	if (res.rx.judged) {
		t->rx_judged++;
		t->rx_pass += res.rx.action == TA_ACT_PASS;
		t->rx_drop += res.rx.action == TA_ACT_DROP;
		t->rx_reject += res.rx.action == TA_ACT_REJECT;
		t->rx_sent += res.rx.action == TA_ACT_REJECT && res.reject_sent;
		t->rx_established += res.rx.ct_state == TA_CT_ESTABLISHED;
		t->rx_made += !!(res.rx.ct_counts & (1u << TA_CT_C_NEW));
		t->rx_cut += !!(res.rx.ct_counts & (1u << TA_CT_C_CUT));
	}
	/* after every frame: a disagreement names its frame */
	if (compare(t, s)) {
		report(t, s, &res, "counters after it");
		return 1;
	}
	return 0;
}

static int step(struct ct_run *t)
{
	struct sent *s = &t->history[t->nr_sent++ % HISTORY];

	gen_ct_frame(t, s);
	route(t, s);
	return run_frame(t, s, NULL);
}

/* Each side's counters since the sequence began, its count of
 * connections and the table's size against the model's. */
static int compare(struct ct_run *t, const struct sent *last)
{
	static struct ta_counter after[TA_TAP_STATS];
	uint32_t entries;
	int bad = 0;

	for (int i = 0; i < (t->pair ? 2 : 1); i++) {
		struct side *sd = &t->side[i];
		struct ta_ct_tap tracked = {};
		uint32_t id = sd->tap.tap.id;

		if (ta_tap_stats_read(t->pl, &sd->tap, after) ||
		    bpf_map_lookup_elem(t->pl->maps.ta_ct_taps, &id, &tracked)) {
			printf("FAIL cannot read the counters of %s\n", sd->ifname);
			return 1;
		}
		for (uint32_t c = 0; c < TA_TAP_STATS; c++) {
			uint64_t got = after[c].packets - sd->before[c].packets;
			char name[32];

			if (got == sd->stats[c])
				continue;
			stat_name(c, name, sizeof(name));
			printf("FAIL counter %s of %s (tap %u): program %llu, model %llu\n", name,
			       sd->ifname, id, (unsigned long long)got,
			       (unsigned long long)sd->stats[c]);
			bad = 1;
		}
		if (tracked.tracked != t->model->tracked[id]) {
			printf("FAIL connections of %s (tap %u): program %u, model %u\n", sd->ifname,
			       id, tracked.tracked, t->model->tracked[id]);
			bad = 1;
		}
	}
	entries = map_count(t->pl->maps.ta_ct);
	if (entries != t->model->nr) {
		printf("FAIL connections: program %u in the table; model %u\n", entries,
		       t->model->nr);
		bad = 1;
	}
	if (bad && !last)
		print_policies(t);
	return bad;
}

/* Every timeout `seconds` (0: the defaults), in the program's
 * configuration and the model's; the limits stay. */
static int set_timeouts(struct ct_run *t, uint32_t seconds)
{
	struct ta_ct_config cfg;
	uint32_t zero = 0;

	if (bpf_map_lookup_elem(t->pl->maps.ta_ct_config, &zero, &cfg))
		return -errno;
	for (uint32_t c = 0; c < TA_CT_CONN_MAX; c++)
		cfg.timeout[c] = seconds;
	t->model->cfg = cfg;
	return bpf_map_update_elem(t->pl->maps.ta_ct_config, &zero, &cfg, 0) ? -errno : 0;
}

/* A new policy for side i, loaded. */
static int new_policy(struct ct_run *t, int i)
{
	static const char guest_mac[] = "52:54:00:00:00:01", peer_mac[] = "52:54:00:00:00:02";
	int ret;

	if (!t->pair)
		ret = gen_ct_policy(t, &t->side[0], NULL, NULL);
	else
		ret = gen_ct_policy(t, &t->side[i], t->side[!i].ifname, i ? guest_mac : peer_mac);
	return ret ?: load(t, &t->side[i]);
}

/* One sequence; `expiring`: with every timeout 1 s and two pauses of
 * 1.3 s in it, so that connections expire and are made again (frames
 * between pauses come within milliseconds: never near a timeout). */
static int sequence(struct ct_run *t, bool expiring)
{
	uint32_t pause[2] = {STEPS / 3, 2 * STEPS / 3};
	int ret = 0;

	for (int i = 0; i < (t->pair ? 2 : 1) && !ret; i++)
		ret = new_policy(t, i);
	ret = ret ?: reset(t);
	ret = ret ?: set_timeouts(t, expiring ? 1 : 0);
	for (int i = 0; i < (t->pair ? 2 : 1) && !ret; i++)
		ret = ta_tap_stats_read(t->pl, &t->side[i].tap, t->side[i].before);
	if (ret) {
		printf("FAIL sequence setup: %s\n", strerror(-ret));
		return 1;
	}
	for (uint32_t i = 0; i < STEPS; i++) {
		if (expiring && (i == pause[0] || i == pause[1]))
			nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 300000000}, NULL);
		/* a policy replaced under the connections (a pair's: either) */
		for (int k = 0; k < (t->pair ? 2 : 1); k++) {
			if (rng_pct(t->r, t->pair ? 3 : 2) && new_policy(t, k))
				return 1;
		}
		if (step(t))
			return 1;
	}
	ret = compare(t, NULL);
	for (int i = 0; i < 2; i++) {
		t->made += t->side[i].stats[TA_STAT_CT + TA_CT_C_NEW];
		t->cut += t->side[i].stats[TA_STAT_CT + TA_CT_C_CUT];
	}
	return ret ?: set_timeouts(t, 0) ? 1 : 0;
}

/* ---- a pair's script ---------------------------------------------------- */

/* Policies of the scripted pair; %1$s: the other side's device. Each
 * takes new connections to its guest's port 22 only, and replies. */
#define SG_22 "rule pass in proto tcp dport 22\ndefault in drop\ndefault out redirect %1$s\n"
#define SG_NONE "default in drop\ndefault out redirect %1$s\n"
#define SG_REJECT "rule reject in proto udp\ndefault in drop\ndefault out redirect %1$s\n"

/* One frame of the script: TCP (or UDP, flags 0) between the guests, out
 * of side `from`'s tap; the ports are the test tap's guest's and the
 * peer's. `replace`: side 1's new policy before it. */
struct scripted {
	const char *replace;
	uint32_t from;
	uint16_t gport, pport;
	uint8_t flags;
	uint32_t verdict; /* what the program and the model must both say */
	const char *what;
};

static const struct scripted script[] = {
	{NULL, 0, 40000, 22, 0x02, XDP_REDIRECT, "the test tap's guest opens to the peer's port 22"},
	{NULL, 1, 40000, 22, 0x12, XDP_REDIRECT, "the peer answers"},
	{NULL, 0, 40000, 22, 0x10, XDP_REDIRECT, "the opener's ACK"},
	{NULL, 0, 40001, 80, 0x02, XDP_DROP, "to the peer's port 80: its in policy refuses it"},
	{NULL, 1, 22, 50000, 0x02, XDP_REDIRECT, "the peer opens to the guest's port 22"},
	{NULL, 0, 22, 50000, 0x12, XDP_REDIRECT, "the guest answers: the peer takes its reply"},
	{NULL, 1, 80, 50001, 0x02, XDP_DROP, "the peer to the guest's port 80: refused"},
	{SG_NONE, 0, 40000, 22, 0x10, XDP_DROP, "the peer's policy without port 22: cut"},
	{NULL, 1, 22, 50000, 0x10, XDP_REDIRECT, "the peer's own connection goes on"},
	{NULL, 0, 22, 50000, 0x10, XDP_REDIRECT, "and the guest's replies to it"},
	{SG_REJECT, 0, 5353, 53, 0, XDP_TX, "UDP to a peer that rejects it: back to the guest"},
};

/* Side i's policy: `fmt` naming the other side's device, loaded. */
static int script_policy(struct ct_run *t, int i, const char *fmt)
{
	struct side *sd = &t->side[i];
	struct ta_error e;

	snprintf(sd->text, sizeof(sd->text), fmt, t->side[!i].ifname);
	ta_policy_spec_free(&sd->spec);
	if (ta_policy_parse(sd->text, strlen(sd->text), "ct.policy", &sd->spec, &e) ||
	    ta_policy_resolve("ct.policy", &sd->spec, &e)) {
		printf("FAIL script policy:\n%s%s\n", sd->text, e.text);
		return -EINVAL;
	}
	return load(t, sd);
}

/* The pair's cases written out, each frame's verdict known: connections
 * both ways, each receiver refusing new ones but taking replies, a
 * policy replaced under a receiver's connection, a receiver's reject;
 * both taps' counters compared after every frame as in random pairs. */
static int pair_script(struct ct_run *t)
{
	struct ta_model_result res;
	int ret = script_policy(t, 0, SG_22) ?: script_policy(t, 1, SG_22);

	ret = ret ?: reset(t);
	for (int i = 0; i < 2 && !ret; i++)
		ret = ta_tap_stats_read(t->pl, &t->side[i].tap, t->side[i].before);
	if (ret) {
		printf("FAIL pair script setup: %s\n", strerror(-ret));
		return 1;
	}
	for (uint32_t i = 0; i < sizeof(script) / sizeof(*script); i++) {
		const struct scripted *c = &script[i];
		struct sent *s = &t->history[t->nr_sent++ % HISTORY];
		bool out = c->from == 0;
		uint32_t l4;

		if (c->replace && script_policy(t, 1, c->replace))
			return 1;
		s->dir = out ? TA_DIR_OUT : TA_DIR_IN;
		s->other = false;
		s->at = c->from;
		s->prog = true;
		frame_ip(&s->p, s->dir, false, false, c->flags ? 6 : 17, 0);
		l4 = s->p.len;
		if (c->flags) {
			pkt_tcp(&s->p, out ? c->gport : c->pport, out ? c->pport : c->gport);
			s->p.d[l4 + 13] = c->flags;
		} else {
			pkt_udp(&s->p, out ? c->gport : c->pport, out ? c->pport : c->gport);
		}
		pkt_fix_lengths(&s->p);
		if (run_frame(t, s, &res))
			return 1;
		if (res.verdict != c->verdict) {
			report(t, s, &res, c->what);
			printf("both said %s, expected %s\n", ta_verdict_name(res.verdict),
			       ta_verdict_name(c->verdict));
			return 1;
		}
	}
	if (t->side[1].stats[TA_STAT_CT + TA_CT_C_CUT] != 1 ||
	    t->side[1].stats[TA_STAT_CT + TA_CT_C_NEW] != 3 ||
	    t->side[1].stats[TA_STAT_CT + TA_CT_C_IN_REJECT] != 1 ||
	    t->side[0].stats[TA_STAT_CT + TA_CT_C_IN_DROP] != 1) {
		printf("FAIL pair script: the peer cut %llu, made %llu, rejected %llu; the test "
		       "tap dropped %llu in (expected 1; 3: one taken in, two its guest opened; 1; 1)\n",
		       (unsigned long long)t->side[1].stats[TA_STAT_CT + TA_CT_C_CUT],
		       (unsigned long long)t->side[1].stats[TA_STAT_CT + TA_CT_C_NEW],
		       (unsigned long long)t->side[1].stats[TA_STAT_CT + TA_CT_C_IN_REJECT],
		       (unsigned long long)t->side[0].stats[TA_STAT_CT + TA_CT_C_IN_DROP]);
		return 1;
	}
	return 0;
}

/* The pair's second device: a tap of this namespace, down (no frame of
 * the stack's meets it), which goes when the test closes it or exits. */
static int pair_open(struct ct_run *t)
{
	struct side *sd = &t->side[1];
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};

	t->tun_fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (t->tun_fd < 0) {
		printf("FAIL open /dev/net/tun: %s: the pairs need a tap device\n", strerror(errno));
		return -1;
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", PAIR_TAP);
	if (ioctl(t->tun_fd, TUNSETIFF, &ifr)) {
		printf("FAIL TUNSETIFF %s: %s\n", PAIR_TAP, strerror(errno));
		return -1;
	}
	snprintf(sd->ifname, sizeof(sd->ifname), "%s", ifr.ifr_name);
	sd->ifindex = if_nametoindex(sd->ifname);
	if (!sd->ifindex) {
		printf("FAIL %s: %s\n", sd->ifname, strerror(errno));
		return -1;
	}
	return 0;
}

static void pair_close(struct ct_run *t)
{
	struct ta_error e;

	if (t->side[1].tap.tap.id && ta_tap_unbind(t->pl, &t->side[1].tap.key, &e))
		printf("unbinding %s: %s\n", t->side[1].ifname, e.text);
	if (t->tun_fd >= 0)
		close(t->tun_fd);
	t->tun_fd = -1;
}

int ct_diff(struct ta_plane *pl, struct rng *r, uint32_t sequences, uint32_t pairs, int quiet)
{
	static struct ct_run t;
	uint32_t i;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	t.pl = pl;
	t.r = r;
	t.tun_fd = -1;
	t.side[0].policy = "diff";
	snprintf(t.side[0].ifname, sizeof(t.side[0].ifname), "%s", TEST_TAP);
	t.side[0].ifindex = if_nametoindex(TEST_TAP);
	t.side[1].policy = "diff-peer";
	if (pl->in_tc_fd < 0) {
		printf("FAIL the plane has no tap_accel_in_tc program\n");
		return 1;
	}
	/* the last one with connections expiring */
	for (i = 0; i < sequences && !ret; i++)
		ret = sequence(&t, i == sequences - 1);
	if (!ret && pairs) {
		t.pair = true;
		ret = pair_open(&t) ? 1 : pair_script(&t);
		for (i = 0; i < pairs && !ret; i++)
			ret = sequence(&t, false);
		pair_close(&t);
	}
	if (!ret && !quiet)
		printf("two-way: %u sequences, %u pairs, %llu frames: new %llu established %llu "
		       "related %llu invalid %llu untracked %llu one-way %llu; pass %llu drop %llu "
		       "tx %llu redirect %llu; connections made %llu, cut %llu; pairs: %llu "
		       "frames, %llu judged by the receiver (established %llu; pass %llu drop %llu "
		       "reject %llu, sent back %llu; made %llu, cut %llu)\n",
		       sequences, pairs, (unsigned long long)t.frames,
		       (unsigned long long)t.by_state[TA_CT_NEW],
		       (unsigned long long)t.by_state[TA_CT_ESTABLISHED],
		       (unsigned long long)t.by_state[TA_CT_RELATED],
		       (unsigned long long)t.by_state[TA_CT_INVALID],
		       (unsigned long long)t.by_state[TA_CT_UNTRACKED],
		       (unsigned long long)t.by_state[TA_CT_STATE_MAX],
		       (unsigned long long)t.verdicts[XDP_PASS],
		       (unsigned long long)t.verdicts[XDP_DROP],
		       (unsigned long long)t.verdicts[XDP_TX],
		       (unsigned long long)t.verdicts[XDP_REDIRECT],
		       (unsigned long long)t.made, (unsigned long long)t.cut,
		       (unsigned long long)t.pair_frames, (unsigned long long)t.rx_judged,
		       (unsigned long long)t.rx_established, (unsigned long long)t.rx_pass, (unsigned long long)t.rx_drop,
		       (unsigned long long)t.rx_reject, (unsigned long long)t.rx_sent,
		       (unsigned long long)t.rx_made,
		       (unsigned long long)t.rx_cut);
	for (i = 0; i < 2; i++)
		ta_policy_spec_free(&t.side[i].spec);
	ta_model_ct_free(t.model);
	return ret;
}
