// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * ct.c - the differential test of two-way, stateful policies: random
 * security groups (policy text, so the parser's own rules come too) on
 * the test tap, and sequences of frames both ways through them: out
 * through tap_accel_policy, in through tap_accel_in_tc, each frame also
 * through ta_model_run_ct with its own table. Frames are drawn from a few
 * endpoints and ports so that they make, answer, close and break
 * connections: TCP with any flags, UDP, ICMP echo, ICMP errors quoting
 * earlier frames, IPv4 fragments, ARP and neighbour solicitations; now
 * and then the policy is replaced mid-sequence. Per frame the verdicts
 * must agree; per sequence the connection counters, the number of
 * connections in the table and the tap's count of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <linux/pkt_cls.h>

#include "ct.h"
#include "user/lib/plane/policies.h"
#include "user/lib/plane/taps.h"
#include "user/lib/policy/model.h"
#include "user/lib/policy/names.h"
#include "user/lib/policy/parse.h"

#define STEPS	 96 /* frames in a sequence */
#define HISTORY	 16 /* earlier frames an ICMP error may quote */
#define TEST_TAP "lo"

struct sent {
	struct pkt p;
	uint32_t dir;
	bool other; /* with the other peer (10.9.9.9, fd00::9:...) */
};

struct ct_run {
	struct ta_plane *pl;
	struct rng *r;
	struct ta_policy_spec spec;
	char text[2048];
	uint32_t generation;
	struct ta_tap_state tap;
	struct ta_model_ct *model;
	struct sent history[HISTORY];
	uint32_t nr_sent;
	uint64_t counts[TA_CT_C_MAX]; /* the model's, this sequence */
	uint64_t frames, by_state[TA_CT_STATE_MAX + 1], verdicts[8], made, cut;
	/* the ends of the last frame: the next one often takes them again,
	 * either way, so that connections get answered */
	uint16_t gport, pport;
	bool v6, other;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns()'s clock */
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* ---- policies --------------------------------------------------------- */

static const char *pick(struct rng *r, const char *const *words, uint32_t n)
{
	return words[rng_below(r, n)];
}

#define PICK(r, ...)                                                           \
	pick(r, (const char *const[]){__VA_ARGS__},                            \
	     sizeof((const char *const[]){__VA_ARGS__}) / sizeof(char *))

/* A rule of a security group, as text. */
static int gen_rule_text(struct rng *r, char *out, size_t room)
{
	bool in = rng_pct(r, 50);
	int n = snprintf(out, room, "rule %s %s",
			 in ? PICK(r, "pass", "drop", "reject")
			    : PICK(r, "pass", "pass", "drop", "reject", "tx"),
			 in ? PICK(r, "in", "in", "in,out") : "out");
	const char *proto = PICK(r, "", "tcp", "udp", "icmp", "icmpv6");

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

/* A random two-way policy (now and then one-way) that parses. */
static void gen_ct_policy(struct ct_run *t)
{
	struct ta_error e;

	for (;;) {
		uint32_t rules = rng_below(t->r, 8), n = 0;
		int len;

		for (uint32_t i = 0; i < rules; i++) {
			len = gen_rule_text(t->r, t->text + n, sizeof(t->text) - n - 128);
			if (len > 0)
				n += len;
		}
		if (rng_pct(t->r, 85))
			n += snprintf(t->text + n, sizeof(t->text) - n, "default in %s\n",
				      PICK(t->r, "drop", "drop", "pass", "reject"));
		if (rng_pct(t->r, 50))
			snprintf(t->text + n, sizeof(t->text) - n, "default out %s\n",
				 PICK(t->r, "pass", "drop", "reject", "tx"));
		ta_policy_spec_free(&t->spec);
		if (!ta_policy_parse(t->text, strlen(t->text), "ct.policy", &t->spec, &e))
			return;
	}
}

/* The policy as policy "diff" of the test tap, and its generation. */
static int load(struct ct_run *t)
{
	struct ta_bind b = {.ifname = TEST_TAP, .entry_only = true};
	struct ta_load_result res;
	struct ta_policy_info info;
	enum ta_bind_result br;
	struct ta_tap_key key;
	struct ta_error e;
	int ret = ta_policy_load(t->pl, "diff", &t->spec, true, &res, &e);

	b.policy = res.index;
	ret = ret ?: ta_tap_bind(t->pl, &b, &br, &e);
	if (ret) {
		printf("FAIL load:\n%s\n%s\n", t->text, e.text);
		return -EIO;
	}
	ret = ta_tap_key_of(t->pl, TEST_TAP, &key) ?: ta_tap_read(t->pl, &key, &t->tap);
	ret = ret ?: ta_policy_get(t->pl, res.index, &info);
	t->generation = info.head.generation;
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

/* A random frame of the sequence, and its direction. */
static void gen_ct_frame(struct ct_run *t, struct sent *s)
{
	struct rng *r = t->r;
	struct pkt *p = &s->p;
	uint32_t *dir = &s->dir, kind = rng_below(r, 100), l4;
	uint16_t gport, pport;
	bool v6, other, out;

	if (!t->nr_sent || rng_pct(r, 40)) {
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
	s->other = other;
	out = *dir == TA_DIR_OUT;
	if (kind < 45) { /* TCP */
		static const uint8_t flags[] = {0x02, 0x02, 0x12, 0x12, 0x10, 0x10, 0x18,
						0x11, 0x04, 0x14, 0x03, 0x00};

		frame_ip(p, *dir, other, v6, 6, 0);
		l4 = p->len;
		pkt_tcp(p, out ? gport : pport, out ? pport : gport);
		p->d[l4 + 13] = rng_pct(r, 5) ? (uint8_t)rng_below(r, 256)
					       : flags[rng_below(r, sizeof(flags))];
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

/* ---- runs ------------------------------------------------------------- */

/* The verdict of the program for dir, in the model's terms. */
static int kernel_run(const struct ct_run *t, const struct pkt *p, uint32_t dir,
		      uint32_t *verdict)
{
	static uint8_t out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);
	int fd = dir == TA_DIR_OUT ? t->pl->prog_fd : t->pl->in_tc_fd;

	if (bpf_prog_test_run_opts(fd, &opts))
		return -errno;
	*verdict = opts.retval;
	if (dir == TA_DIR_IN) /* tc: pass, drop, or the reject sent back */
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
	uint32_t keys[2] = {t->tap.tap.id, TA_MAX_TAPS};
	int ret = map_empty(m->ta_ct) ?: map_empty(m->ta_ct_frags);

	for (int i = 0; !ret && i < 2; i++)
		if (bpf_map_update_elem(m->ta_ct_taps, &keys[i], &zero, BPF_ANY))
			ret = -errno;
	ta_model_ct_free(t->model);
	t->model = ta_model_ct_new();
	t->nr_sent = 0;
	memset(t->counts, 0, sizeof(t->counts));
	return ret ?: t->model ? 0 : -ENOMEM;
}

static void report(const struct ct_run *t, const struct pkt *p, uint32_t dir,
		   const struct ta_model_result *res, const char *what)
{
	printf("FAIL two-way disagreement (%s), frame %s:\n", what,
	       dir == TA_DIR_IN ? "in" : "out");
	for (uint32_t i = 0; i < p->len; i++)
		printf("%02x", p->d[i]);
	printf("\nmodel: verdict %s, state %u, rule %d, counted 0x%x\npolicy:\n%s",
	       ta_verdict_name(res->verdict), res->ct_state, res->rule, res->ct_counts, t->text);
}

static int step(struct ct_run *t)
{
	struct ta_model_tap tap = {.id = t->tap.tap.id, .zone = t->tap.tap.ct_zone};
	struct ta_model_result res;
	struct sent *s = &t->history[t->nr_sent++ % HISTORY];
	uint32_t verdict = 0;
	int ret;

	gen_ct_frame(t, s);
	ret = kernel_run(t, &s->p, s->dir, &verdict);
	if (ret) {
		printf("FAIL test run: %s\n", strerror(-ret));
		return 1;
	}
	ta_model_run_ct(&t->spec, t->generation, &tap, s->dir, now_ns(), t->model, s->p.d,
			s->p.len, &res);
	if (verdict != res.verdict) {
		report(t, &s->p, s->dir, &res, "verdict");
		printf("program: verdict %u\n", verdict);
		return 1;
	}
	for (uint32_t c = 0; c < TA_CT_C_MAX; c++)
		t->counts[c] += !!(res.ct_counts & (1u << c));
	t->frames++;
	t->by_state[res.ct_state < TA_CT_STATE_MAX ? res.ct_state : TA_CT_STATE_MAX]++;
	t->verdicts[res.verdict & 7]++;
	return 0;
}

/* The sequence's counters, table and count against the model's. */
static int compare(struct ct_run *t, const struct ta_counter *before)
{
	static struct ta_counter after[TA_TAP_STATS];
	struct ta_ct_tap tracked = {};
	uint32_t id = t->tap.tap.id, entries;
	int bad = 0;

	if (ta_tap_stats_read(t->pl, &t->tap, after) ||
	    bpf_map_lookup_elem(t->pl->maps.ta_ct_taps, &id, &tracked)) {
		printf("FAIL cannot read the test tap's counters\n");
		return 1;
	}
	for (uint32_t c = 0; c < TA_CT_C_MAX; c++) {
		uint64_t got = after[TA_STAT_CT + c].packets - before[TA_STAT_CT + c].packets;

		if (got == t->counts[c])
			continue;
		printf("FAIL two-way counter %u: program %llu, model %llu\n", c,
		       (unsigned long long)got, (unsigned long long)t->counts[c]);
		bad = 1;
	}
	t->made += t->counts[TA_CT_C_NEW];
	t->cut += t->counts[TA_CT_C_CUT];
	entries = map_count(t->pl->maps.ta_ct);
	if (entries != t->model->nr || tracked.tracked != t->model->tracked[id]) {
		printf("FAIL connections: program %u in the table, %u counted; model %u, %u\n",
		       entries, tracked.tracked, t->model->nr, t->model->tracked[id]);
		bad = 1;
	}
	if (bad)
		printf("policy:\n%s", t->text);
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

/* One sequence; `expiring`: with every timeout 1 s and two pauses of
 * 1.3 s in it, so that connections expire and are made again (frames
 * between pauses come within milliseconds: never near a timeout). */
static int sequence(struct ct_run *t, bool expiring)
{
	static struct ta_counter before[TA_TAP_STATS];
	uint32_t pause[2] = {STEPS / 3, 2 * STEPS / 3};
	int ret;

	gen_ct_policy(t);
	ret = load(t) ?: reset(t);
	ret = ret ?: set_timeouts(t, expiring ? 1 : 0);
	ret = ret ?: ta_tap_stats_read(t->pl, &t->tap, before);
	if (ret) {
		printf("FAIL sequence setup: %s\n", strerror(-ret));
		return 1;
	}
	for (uint32_t i = 0; i < STEPS; i++) {
		if (expiring && (i == pause[0] || i == pause[1]))
			nanosleep(&(struct timespec){.tv_sec = 1, .tv_nsec = 300000000}, NULL);
		if (rng_pct(t->r, 2)) { /* the policy replaced under the connections */
			gen_ct_policy(t);
			if (load(t))
				return 1;
		}
		if (step(t))
			return 1;
	}
	ret = compare(t, before);
	return ret ?: set_timeouts(t, 0) ? 1 : 0;
}

int ct_diff(struct ta_plane *pl, struct rng *r, uint32_t sequences, int quiet)
{
	static struct ct_run t;
	uint32_t i;
	int ret = 0;

	memset(&t, 0, sizeof(t));
	t.pl = pl;
	t.r = r;
	if (pl->in_tc_fd < 0) {
		printf("FAIL the plane has no tap_accel_in_tc program\n");
		return 1;
	}
	/* the last one with connections expiring */
	for (i = 0; i < sequences && !ret; i++)
		ret = sequence(&t, i == sequences - 1);
	if (!ret && !quiet)
		printf("two-way: %u sequences, %llu frames: new %llu established %llu related "
		       "%llu invalid %llu untracked %llu one-way %llu; pass %llu drop %llu "
		       "tx %llu; connections made %llu, cut %llu\n",
		       sequences, (unsigned long long)t.frames,
		       (unsigned long long)t.by_state[TA_CT_NEW],
		       (unsigned long long)t.by_state[TA_CT_ESTABLISHED],
		       (unsigned long long)t.by_state[TA_CT_RELATED],
		       (unsigned long long)t.by_state[TA_CT_INVALID],
		       (unsigned long long)t.by_state[TA_CT_UNTRACKED],
		       (unsigned long long)t.by_state[TA_CT_STATE_MAX],
		       (unsigned long long)t.verdicts[XDP_PASS],
		       (unsigned long long)t.verdicts[XDP_DROP],
		       (unsigned long long)t.verdicts[XDP_TX],
		       (unsigned long long)t.made, (unsigned long long)t.cut);
	ta_policy_spec_free(&t.spec);
	ta_model_ct_free(t.model);
	return ret;
}
