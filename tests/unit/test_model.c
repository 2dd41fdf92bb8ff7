// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_model.c - the reference model of two-way, stateful policies
 * (user/lib/policy/model.c) without a kernel: sequences of frames both
 * ways through a security group, and what they do to the connection
 * table (states, timeouts, limits, zones, policy changes, reject), and
 * redirects judged by the receiving tap's in policy (ta_model_run_rx).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include "check.h"
#include "lib/policy/model.h"
#include "lib/policy/parse.h"

#define SEC 1000000000ull
#define FIN 0x01
#define SYN 0x02
#define RST 0x04
#define ACK 0x10

static struct ta_error e;

/* ---- frames ------------------------------------------------------------- */

struct pkt {
	uint8_t d[512];
	size_t len;
};

static const uint8_t GUEST_MAC[6] = {0x52, 0x54, 0, 0, 0, 2};
static const uint8_t PEER_MAC[6] = {0x52, 0x54, 0, 0, 0, 9};
static const uint8_t GUEST4[4] = {10, 0, 0, 2}, PEER4[4] = {10, 0, 0, 9};
static const uint8_t GUEST6[16] = {0xfd, 0, [15] = 2}, PEER6[16] = {0xfd, 0, [15] = 9};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Ethernet and IPv4 (out: from the guest), `l4` bytes of payload to come. */
static uint8_t *ip4(struct pkt *p, bool out, uint8_t proto, size_t l4, uint16_t frag)
{
	uint8_t *h = p->d + 14;

	memset(p, 0, sizeof(*p));
	memcpy(p->d, out ? PEER_MAC : GUEST_MAC, 6);
	memcpy(p->d + 6, out ? GUEST_MAC : PEER_MAC, 6);
	put16(p->d + 12, 0x0800);
	h[0] = 0x45;
	put16(h + 2, (uint16_t)(20 + l4));
	put16(h + 4, 0x1234);
	put16(h + 6, frag);
	h[8] = 64;
	h[9] = proto;
	memcpy(h + 12, out ? GUEST4 : PEER4, 4);
	memcpy(h + 16, out ? PEER4 : GUEST4, 4);
	p->len = 14 + 20 + l4;
	return h + 20;
}

static uint8_t *ip6(struct pkt *p, bool out, uint8_t proto, size_t l4)
{
	uint8_t *h = p->d + 14;

	memset(p, 0, sizeof(*p));
	memcpy(p->d, out ? PEER_MAC : GUEST_MAC, 6);
	memcpy(p->d + 6, out ? GUEST_MAC : PEER_MAC, 6);
	put16(p->d + 12, 0x86dd);
	h[0] = 0x60;
	put16(h + 4, (uint16_t)l4);
	h[6] = proto;
	h[7] = 64;
	memcpy(h + 8, out ? GUEST6 : PEER6, 16);
	memcpy(h + 24, out ? PEER6 : GUEST6, 16);
	p->len = 14 + 40 + l4;
	return h + 40;
}

/* Ports are the guest's and the peer's, whichever way the frame goes. */
static void tcp4(struct pkt *p, bool out, uint16_t gport, uint16_t pport, uint8_t flags)
{
	uint8_t *t = ip4(p, out, 6, 20, 0);

	put16(t, out ? gport : pport);
	put16(t + 2, out ? pport : gport);
	t[12] = 5 << 4;
	t[13] = flags;
}

static void tcp6(struct pkt *p, bool out, uint16_t gport, uint16_t pport, uint8_t flags)
{
	uint8_t *t = ip6(p, out, 6, 20);

	put16(t, out ? gport : pport);
	put16(t + 2, out ? pport : gport);
	t[12] = 5 << 4;
	t[13] = flags;
}

static void udp4(struct pkt *p, bool out, uint16_t gport, uint16_t pport)
{
	uint8_t *u = ip4(p, out, 17, 8, 0);

	put16(u, out ? gport : pport);
	put16(u + 2, out ? pport : gport);
	put16(u + 4, 8);
}

static void icmp4(struct pkt *p, bool out, uint8_t type, uint16_t id)
{
	uint8_t *i = ip4(p, out, 1, 8, 0);

	i[0] = type;
	put16(i + 4, id);
}

/* An ICMP error (type/code) sent toward the guest about what `about` (a
 * frame the guest sent) carried: its IP header and 8 bytes. */
static void icmp4_error(struct pkt *p, uint8_t type, uint8_t code, const struct pkt *about)
{
	uint8_t *i = ip4(p, false, 1, 8 + 28, 0);

	i[0] = type;
	i[1] = code;
	memcpy(i + 8, about->d + 14, 28);
}

static void arp_in(struct pkt *p)
{
	memset(p, 0, sizeof(*p));
	memset(p->d, 0xff, 6);
	memcpy(p->d + 6, PEER_MAC, 6);
	put16(p->d + 12, 0x0806);
	put16(p->d + 14, 1);
	put16(p->d + 16, 0x0800);
	p->d[18] = 6;
	p->d[19] = 4;
	put16(p->d + 20, 1);
	memcpy(p->d + 22, PEER_MAC, 6);
	memcpy(p->d + 28, PEER4, 4);
	memcpy(p->d + 38, GUEST4, 4);
	p->len = 42;
}

/* ---- running them ------------------------------------------------------- */

static struct {
	struct ta_policy_spec spec;
	uint32_t generation;
	struct ta_model_ct *ct;
	struct ta_model_tap tap;
	uint64_t now;
	struct ta_model_result res;
} m;

static bool load(const char *text)
{
	ta_policy_spec_free(&m.spec);
	if (ta_policy_parse(text, strlen(text), "t.policy", &m.spec, &e)) {
		CHECK(0, "'%s': %s", text, e.text);
		return false;
	}
	m.generation++;
	return true;
}

static void setup(const char *text)
{
	ta_model_ct_free(m.ct);
	m.ct = ta_model_ct_new();
	m.generation = 0;
	m.tap = (struct ta_model_tap){.id = 3};
	m.now = 1000 * SEC;
	load(text);
}

static uint32_t run(const struct pkt *p, uint32_t dir)
{
	ta_model_run_ct(&m.spec, m.generation, &m.tap, dir, m.now, m.ct, p->d, p->len, &m.res);
	return m.res.verdict;
}

#define OUT TA_DIR_OUT
#define IN TA_DIR_IN

/* The frame gets `verdict` in state `state`, and counted `counts`
 * among what it counted. */
#define EXPECT(p, dir, verdict_, state_, what)                                     \
	do {                                                                       \
		uint32_t v_ = run(p, dir);                                         \
		CHECK(v_ == (verdict_) && m.res.ct_state == (uint32_t)(state_),    \
		      "%s: verdict %u state %u (rule %d), expected %u state %u", what, \
		      v_, m.res.ct_state, m.res.rule, (uint32_t)(verdict_),          \
		      (uint32_t)(state_));                                          \
	} while (0)

static bool counted(uint32_t counter)
{
	return m.res.ct_counts & (1u << counter);
}

static const char SG[] = "rule pass out\n"
			 "rule pass in proto tcp dport 22\n"
			 "rule drop in src 10.9.0.0/16\n"
			 "default in drop\n"
			 "default out pass\n";

/* ---- tests ------------------------------------------------------------- */

static void test_tcp_guest_opens(void)
{
	struct pkt p;

	setup(SG);
	tcp4(&p, true, 40000, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "the guest's SYN");
	CHECK(counted(TA_CT_C_NEW) && m.ct->nr == 1 && m.ct->tracked[3] == 1 &&
	      m.ct->tracked[TA_MAX_TAPS] == 1, "one connection made: %u, tap %u, host %u",
	      m.ct->nr, m.ct->tracked[3], m.ct->tracked[TA_MAX_TAPS]);
	CHECK(m.res.rule == 9, "the guest's 'rule pass out' (after 9 implicit): %d", m.res.rule);
	tcp4(&p, true, 40000, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a retransmitted SYN");
	CHECK(m.ct->nr == 1 && !counted(TA_CT_C_NEW), "no second connection");
	tcp4(&p, false, 40000, 80, SYN | ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "the SYN-ACK in");
	CHECK(counted(TA_CT_C_IN_PASS) && m.res.rule == 1, "passed by the replies' rule: %d",
	      m.res.rule);
	tcp4(&p, true, 40000, 80, ACK);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_ESTABLISHED, "the guest's ACK");
	CHECK(m.ct->conns[0].e.state == TA_CT_TCP_ESTABLISHED, "state %u", m.ct->conns[0].e.state);
	tcp4(&p, false, 40000, 80, ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "data in");
	tcp4(&p, false, 40000, 80, SYN);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "a SYN in an open connection");
	CHECK(counted(TA_CT_C_INVALID) && counted(TA_CT_C_IN_DROP) && m.res.rule == 0,
	      "dropped as invalid by rule 0: %d", m.res.rule);
	tcp4(&p, true, 40000, 80, FIN | ACK);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_ESTABLISHED, "FIN out");
	tcp4(&p, false, 40000, 80, FIN | ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "FIN in");
	CHECK(m.ct->conns[0].e.state == TA_CT_TIME_WAIT, "time wait: %u", m.ct->conns[0].e.state);
	tcp4(&p, true, 40000, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "the opener's SYN after the close starts over");
	CHECK(m.ct->nr == 1 && m.ct->tracked[3] == 1 && m.ct->conns[0].e.state == TA_CT_SYN_SENT,
	      "the entry remade in place: %u entries, %u counted", m.ct->nr, m.ct->tracked[3]);
	tcp4(&p, false, 40000, 80, RST | ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "an RST in answer");
	tcp4(&p, false, 40000, 80, ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "anything after the RST");
}

static void test_tcp_in(void)
{
	struct pkt p;

	setup(SG);
	tcp4(&p, false, 80, 50000, SYN);
	EXPECT(&p, IN, XDP_DROP, TA_CT_NEW, "a new connection in to port 80");
	CHECK(counted(TA_CT_C_IN_DEFAULT) && counted(TA_CT_C_IN_DROP) && m.ct->nr == 0,
	      "by the default in, nothing tracked (%u)", m.ct->nr);
	tcp4(&p, false, 22, 50000, SYN);
	EXPECT(&p, IN, XDP_PASS, TA_CT_NEW, "a new connection in to port 22");
	CHECK(m.res.rule == 10 && m.ct->nr == 1 && (m.ct->conns[0].e.flags & TA_CT_E_IN),
	      "rule %d, opened in", m.res.rule);
	tcp4(&p, true, 22, 50000, SYN | ACK);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_ESTABLISHED, "the guest answers");
	tcp4(&p, false, 22, 50000, ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "the peer's ACK");
	tcp4(&p, false, 23, 50000, ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "an ACK of no connection");
	CHECK(m.res.rule == 0 && counted(TA_CT_C_INVALID), "rule %d", m.res.rule);
	tcp4(&p, true, 23, 50000, SYN | ACK);
	EXPECT(&p, OUT, XDP_DROP, TA_CT_INVALID, "a SYN-ACK out of nothing");
}

static void test_udp_icmp(void)
{
	struct pkt p, q;

	setup(SG);
	udp4(&p, true, 5353, 53);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a DNS query out");
	udp4(&p, false, 5353, 53);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "its answer in");
	CHECK(m.ct->conns[0].e.state == TA_CT_UDP_REPLIED, "udp replied: %u", m.ct->conns[0].e.state);
	udp4(&p, false, 5353, 54);
	EXPECT(&p, IN, XDP_DROP, TA_CT_NEW, "from another port: new, dropped");

	icmp4(&p, true, 8, 77);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "ping out");
	icmp4(&p, false, 0, 77);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "its echo reply");
	icmp4(&p, false, 8, 78);
	EXPECT(&p, IN, XDP_DROP, TA_CT_NEW, "ping in");
	icmp4(&p, false, 0, 99);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "an echo reply nobody asked for");
	icmp4(&p, false, 8, 77);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "a request answered by a request");

	/* an error about the guest's connection is related, PMTU works */
	tcp4(&q, true, 41000, 443, SYN);
	EXPECT(&q, OUT, XDP_PASS, TA_CT_NEW, "a connection out");
	icmp4_error(&p, 3, 4, &q);
	EXPECT(&p, IN, XDP_PASS, TA_CT_RELATED, "fragmentation needed about it");
	CHECK(counted(TA_CT_C_RELATED) && m.res.rule == 1, "related, rule %d", m.res.rule);
	tcp4(&q, true, 41001, 443, SYN);
	icmp4_error(&p, 3, 4, &q);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "an error about nothing tracked");
}

static void test_other_frames(void)
{
	struct pkt p;
	uint8_t *l4;

	setup(SG);
	arp_in(&p);
	EXPECT(&p, IN, XDP_PASS, TA_CT_UNTRACKED, "ARP in under default in drop");
	CHECK(m.res.rule == 3, "the neighbours' rule: %d", m.res.rule);
	l4 = ip6(&p, false, 58, 24);
	l4[0] = 135; /* neighbour solicitation */
	EXPECT(&p, IN, XDP_PASS, TA_CT_UNTRACKED, "a neighbour solicitation in");
	tcp6(&p, true, 40000, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "IPv6: SYN out");
	tcp6(&p, false, 40000, 80, SYN | ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "IPv6: SYN-ACK in");
	tcp6(&p, false, 40001, 80, SYN | ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "IPv6: a SYN-ACK of nothing");
	udp4(&p, false, 68, 67);
	EXPECT(&p, IN, XDP_PASS, TA_CT_NEW, "a DHCP answer in");

	/* fragments: the later ones take the first's state */
	l4 = ip4(&p, true, 17, 8, 0x2000);
	put16(l4, 6000);
	put16(l4 + 2, 7000);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a first fragment out");
	ip4(&p, true, 17, 8, 0x0001);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "its later fragment");
	CHECK(m.res.frame.has_ports && m.res.frame.dport == 7000, "with its first one's ports: %u",
	      m.res.frame.dport);
	ip4(&p, false, 17, 8, 0x0001);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "a later fragment whose first was not seen");
}

static void test_timeouts_and_limits(void)
{
	struct pkt p;

	setup(SG);
	udp4(&p, true, 5000, 53);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a query");
	m.now += 31 * SEC;
	udp4(&p, false, 5000, 53);
	EXPECT(&p, IN, XDP_DROP, TA_CT_NEW, "an answer after 30 s of silence: a new one");
	m.ct->cfg.timeout[TA_CT_UDP] = 60;
	udp4(&p, true, 5001, 53);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a query");
	m.now += 31 * SEC;
	udp4(&p, false, 5001, 53);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "an answer within a configured 60 s");

	setup(SG);
	m.ct->cfg.tap_limit = 2;
	for (uint16_t port = 1; port <= 2; port++) {
		udp4(&p, true, port, 53);
		EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "within the tap's limit");
	}
	udp4(&p, true, 3, 53);
	EXPECT(&p, OUT, XDP_DROP, TA_CT_NEW, "past the tap's limit");
	CHECK(counted(TA_CT_C_TAP_LIMIT) && m.ct->nr == 2, "refused at the tap limit");
	m.tap.id = 4; /* another tap, its own zone: not blocked by the first */
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "another tap's connection");
	CHECK(m.ct->nr == 3 && m.ct->tracked[4] == 1, "%u connections", m.ct->nr);
	m.ct->cfg.max_tracked = 3;
	udp4(&p, true, 4, 53);
	EXPECT(&p, OUT, XDP_DROP, TA_CT_NEW, "the host's table at its limit");
	CHECK(counted(TA_CT_C_TABLE_FULL), "refused as table full");

	/* zones: the same 5-tuple behind two taps is two connections */
	setup(SG);
	tcp4(&p, true, 1234, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "tap 3 opens");
	m.tap.id = 5;
	tcp4(&p, false, 1234, 80, SYN | ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "tap 5 has no such connection");
	m.tap.zone = 3; /* unless it shares the zone */
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "tap 5 in tap 3's zone");
}

static void test_policy_change(void)
{
	struct pkt p;

	setup(SG);
	tcp4(&p, false, 22, 50000, SYN);
	EXPECT(&p, IN, XDP_PASS, TA_CT_NEW, "ssh in");
	tcp4(&p, true, 22, 50000, SYN | ACK);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_ESTABLISHED, "answered");
	tcp4(&p, true, 40000, 80, SYN);
	EXPECT(&p, OUT, XDP_PASS, TA_CT_NEW, "a connection out");
	load("rule pass out\ndefault in drop\n");
	tcp4(&p, false, 22, 50000, ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_ESTABLISHED, "ssh under a policy without port 22");
	CHECK(counted(TA_CT_C_CUT) && m.ct->nr == 1 && m.ct->tracked[3] == 1,
	      "cut at its next frame: %u left", m.ct->nr);
	tcp4(&p, false, 22, 50000, ACK);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "and gone");
	tcp4(&p, false, 40000, 80, SYN | ACK);
	EXPECT(&p, IN, XDP_PASS, TA_CT_ESTABLISHED, "what the new policy allows stays");
	CHECK(!counted(TA_CT_C_CUT) && m.ct->conns[0].e.generation == m.generation,
	      "re-judged once, generation %u", m.ct->conns[0].e.generation);
}

static void test_reject(void)
{
	struct pkt p, q;

	setup("rule reject in proto tcp dport 23\nrule pass out\ndefault in reject\n");
	tcp4(&p, false, 23, 50000, SYN);
	EXPECT(&p, IN, XDP_TX, TA_CT_NEW, "telnet in: an RST back");
	CHECK(m.res.reject_sent && counted(TA_CT_C_IN_REJECT) && m.ct->nr == 0,
	      "rejected, nothing tracked");
	udp4(&p, false, 9, 50000);
	EXPECT(&p, IN, XDP_TX, TA_CT_NEW, "UDP in: port unreachable back");
	tcp4(&q, true, 41000, 443, SYN);
	icmp4_error(&p, 3, 4, &q);
	EXPECT(&p, IN, XDP_DROP, TA_CT_INVALID, "an error is never answered");
	CHECK(m.res.rule == 0, "dropped as invalid first: rule %d", m.res.rule);

	setup("rule reject proto tcp dport 25\n");
	tcp4(&p, true, 41000, 25, SYN);
	EXPECT(&p, OUT, XDP_TX, TA_CT_STATE_MAX, "one-way: SMTP out rejected");
	tcp4(&p, true, 41000, 25, RST);
	EXPECT(&p, OUT, XDP_DROP, TA_CT_STATE_MAX, "an RST gets no answer");
	CHECK(counted(TA_CT_C_REJECT_UNSENT), "counted unsent");
	tcp4(&p, false, 41000, 25, SYN);
	EXPECT(&p, IN, XDP_PASS, TA_CT_STATE_MAX, "a one-way policy passes everything in");
}

/* ---- redirects to a tap with an in policy ------------------------------- */

/* Tap 3 (ifindex 6, m's) and tap 4 (ifindex 7): each one's policy redirects
 * to the other; what one sends out reaches the other's in policy first. */
#define TAP_A 6
#define TAP_B 7

static struct {
	struct ta_policy_spec spec;
	uint32_t generation;
	struct ta_model_receiver as_rx; /* tap 4 as the receiver of tap 3's */
	struct ta_model_receiver a_as_rx; /* tap 3 as the receiver of tap 4's */
	struct ta_model_result res;
} b;

/* Interface names as a load resolves them: tapA and tapB. */
static void resolve_taps(struct ta_policy_spec *spec)
{
	for (uint32_t i = 0; i < spec->nr_rules; i++)
		if (spec->rules[i].action == TA_ACT_REDIRECT)
			spec->rules[i].ifindex = strcmp(spec->rules[i].redirect_dev, "tapA") ? TAP_B
											       : TAP_A;
	for (uint32_t i = 0; i < spec->nr_fdb; i++)
		spec->fdb[i].ifindex = strcmp(spec->fdb[i].dev, "tapA") ? TAP_B : TAP_A;
	if (spec->default_action == TA_ACT_REDIRECT)
		spec->default_ifindex = strcmp(spec->default_dev, "tapA") ? TAP_B : TAP_A;
}

static bool load_b(const char *text)
{
	ta_policy_spec_free(&b.spec);
	if (ta_policy_parse(text, strlen(text), "b.policy", &b.spec, &e)) {
		CHECK(0, "'%s': %s", text, e.text);
		return false;
	}
	resolve_taps(&b.spec);
	b.generation++;
	b.as_rx = (struct ta_model_receiver){.spec = &b.spec, .generation = b.generation,
					     .tap = {.id = 4}, .ifindex = TAP_B};
	return true;
}

/* m's tap (3, policy `a`) and tap 4 (policy `bt`) on one host. */
static void setup_pair(const char *a, const char *bt)
{
	setup(a);
	resolve_taps(&m.spec);
	b.generation = 0;
	load_b(bt);
}

/* What tap 3's guest sends (out of tap 3, toward tap 4's guest). */
static uint32_t run_a(const struct pkt *p)
{
	ta_model_run_rx(&m.spec, m.generation, &m.tap, OUT, m.now, m.ct, &b.as_rx, 1, p->d, p->len,
			&m.res);
	return m.res.verdict;
}

/* What tap 4's guest sends back (a frame built as "in" to tap 3). */
static uint32_t run_b(const struct pkt *p)
{
	b.a_as_rx = (struct ta_model_receiver){.spec = &m.spec, .generation = m.generation,
					       .tap = m.tap, .ifindex = TAP_A};
	ta_model_run_rx(&b.spec, b.generation, &b.as_rx.tap, OUT, m.now, m.ct, &b.a_as_rx, 1, p->d,
			p->len, &b.res);
	return b.res.verdict;
}

static bool rx_counted(const struct ta_model_result *r, uint32_t counter)
{
	return r->rx.judged && (r->rx.ct_counts & (1u << counter));
}

/* replies go where the default out sends them (the implicit rules) */
static const char PAIR_A[] = "default out redirect tapB\n"
			     "default in drop\n";
static const char PAIR_B[] = "rule pass in proto tcp dport 22\n"
			     "default out redirect tapA\n"
			     "default in drop\n";

static void test_redirect_receiver(void)
{
	struct pkt p;
	uint32_t v;

	setup_pair(PAIR_A, PAIR_B);
	tcp4(&p, true, 40000, 22, SYN);
	v = run_a(&p);
	CHECK(v == XDP_REDIRECT && m.res.ifindex == TAP_B && m.res.ct_state == TA_CT_NEW &&
	      counted(TA_CT_C_NEW), "A's SYN to B's port 22 goes: verdict %u", v);
	CHECK(m.res.rx.judged && m.res.rx.tap == 4 && m.res.rx.ct_state == TA_CT_NEW &&
	      m.res.rx.rule == 9 && rx_counted(&m.res, TA_CT_C_NEW) &&
	      rx_counted(&m.res, TA_CT_C_IN_PASS) && !rx_counted(&m.res, TA_CT_C_IN_DEFAULT),
	      "passed by B's port 22 rule (%d), made in B's zone, counted in B's", m.res.rx.rule);
	CHECK(m.ct->nr == 2 && m.ct->tracked[3] == 1 && m.ct->tracked[4] == 1,
	      "one connection each side: %u, A %u, B %u", m.ct->nr, m.ct->tracked[3],
	      m.ct->tracked[4]);

	tcp4(&p, false, 40000, 22, SYN | ACK);
	v = run_b(&p);
	CHECK(v == XDP_REDIRECT && b.res.ifindex == TAP_A && b.res.ct_state == TA_CT_ESTABLISHED &&
	      b.res.rx.judged && b.res.rx.tap == 3 && b.res.rx.ct_state == TA_CT_ESTABLISHED &&
	      rx_counted(&b.res, TA_CT_C_IN_PASS),
	      "B's SYN-ACK back to A: both sides established (verdict %u, %u, %u)", v,
	      b.res.ct_state, b.res.rx.ct_state);
	tcp4(&p, true, 40000, 22, ACK);
	CHECK(run_a(&p) == XDP_REDIRECT && m.res.rx.ct_state == TA_CT_ESTABLISHED,
	      "A's ACK: state %u", m.res.rx.ct_state);

	/* B refuses new connections but for port 22; its replies pass */
	tcp4(&p, true, 40001, 80, SYN);
	v = run_a(&p);
	CHECK(v == XDP_DROP && counted(TA_CT_C_NEW) && m.res.rx.ct_state == TA_CT_NEW &&
	      m.res.rx.rule == -1 && rx_counted(&m.res, TA_CT_C_IN_DEFAULT) &&
	      rx_counted(&m.res, TA_CT_C_IN_DROP) && !rx_counted(&m.res, TA_CT_C_NEW),
	      "A's SYN to B's port 80: dropped by B's default in (verdict %u rule %d)", v,
	      m.res.rx.rule);
	CHECK(m.ct->nr == 3 && m.ct->tracked[3] == 2 && m.ct->tracked[4] == 1,
	      "A's side made it, B's did not: %u, A %u, B %u", m.ct->nr, m.ct->tracked[3],
	      m.ct->tracked[4]);
	/* B opens one to A: A's default in drops it; A's opens it out */
	tcp4(&p, false, 22, 50000, SYN);
	v = run_b(&p);
	CHECK(v == XDP_DROP && b.res.ct_state == TA_CT_NEW && b.res.rx.tap == 3 &&
	      rx_counted(&b.res, TA_CT_C_IN_DROP) && m.ct->tracked[4] == 2 && m.ct->tracked[3] == 2,
	      "B's SYN to A: made on B's side, dropped by A's (verdict %u, B %u)", v,
	      m.ct->tracked[4]);

	/* B's policy replaced: port 22 no longer; the connection is cut at its
	 * next frame, on B's side, counted in B's */
	load_b("default out redirect tapA\ndefault in drop\n");
	tcp4(&p, true, 40000, 22, ACK);
	v = run_a(&p);
	CHECK(v == XDP_DROP && m.res.ct_state == TA_CT_ESTABLISHED &&
	      rx_counted(&m.res, TA_CT_C_CUT) && rx_counted(&m.res, TA_CT_C_IN_DROP) &&
	      !counted(TA_CT_C_CUT) && m.res.rx.stage == TA_MODEL_CT,
	      "cut by B's new policy: verdict %u, counts 0x%x, B's 0x%x", v, m.res.ct_counts,
	      m.res.rx.ct_counts);
	CHECK(m.ct->nr == 3 && m.ct->tracked[3] == 2 && m.ct->tracked[4] == 1,
	      "B's entry gone, A's stays: %u, A %u, B %u", m.ct->nr, m.ct->tracked[3],
	      m.ct->tracked[4]);

	/* the plain entry point: the receiver is not judged */
	tcp4(&p, true, 40002, 22, SYN);
	ta_model_run_ct(&m.spec, m.generation, &m.tap, OUT, m.now, m.ct, p.d, p.len, &m.res);
	CHECK(m.res.verdict == XDP_REDIRECT && !m.res.rx.judged, "ta_model_run_ct: verdict %u",
	      m.res.verdict);
}

static void test_redirect_receiver_other(void)
{
	struct pkt p;
	uint32_t v;

	/* reject by the receiver: back to the sender, or unsent in its counts */
	setup_pair(PAIR_A, "rule reject in proto tcp state new,invalid\ndefault in drop\n");
	tcp4(&p, true, 40000, 23, SYN);
	v = run_a(&p);
	CHECK(v == XDP_TX && m.res.reject_sent && rx_counted(&m.res, TA_CT_C_IN_REJECT) &&
	      !counted(TA_CT_C_OUT_REJECT) && !counted(TA_CT_C_REJECT_UNSENT) &&
	      m.res.rx.action == TA_ACT_REJECT,
	      "B's reject: an RST back out of A (verdict %u)", v);
	tcp4(&p, true, 40000, 23, RST);
	v = run_a(&p);
	CHECK(v == XDP_DROP && !m.res.reject_sent && counted(TA_CT_C_REJECT_UNSENT) &&
	      rx_counted(&m.res, TA_CT_C_IN_REJECT) &&
	      !rx_counted(&m.res, TA_CT_C_REJECT_UNSENT),
	      "an RST gets no answer: unsent, in A's counters (verdict %u)", v);

	/* a one-way sender's redirect is judged too */
	setup_pair("rule redirect tapB proto udp\n", "default in drop\n");
	udp4(&p, true, 5000, 53);
	v = run_a(&p);
	CHECK(v == XDP_DROP && m.res.ct_state == TA_CT_STATE_MAX && m.res.rule == 0 &&
	      rx_counted(&m.res, TA_CT_C_IN_DROP) && m.ct->nr == 0,
	      "one-way A, B drops: verdict %u, %u tracked", v, m.ct->nr);

	/* forward: an fdb hit is a redirect */
	setup_pair("fdb 52:54:00:00:00:09 dev tapB\ndefault out forward\ndefault in drop\n",
		   "rule pass in proto udp\ndefault in drop\n");
	udp4(&p, true, 5000, 53);
	v = run_a(&p);
	CHECK(v == XDP_REDIRECT && (m.res.events & (1u << TA_EV_FDB_HIT)) &&
	      rx_counted(&m.res, TA_CT_C_IN_PASS) && rx_counted(&m.res, TA_CT_C_NEW) &&
	      m.ct->tracked[4] == 1, "forwarded to B, judged by it (verdict %u)", v);
	tcp4(&p, true, 40000, 80, SYN);
	v = run_a(&p);
	CHECK(v == XDP_DROP && rx_counted(&m.res, TA_CT_C_IN_DEFAULT),
	      "forwarded TCP dropped by B (verdict %u)", v);

	/* a receiver with a one-way policy, or none known: the redirect goes */
	setup_pair(PAIR_A, "rule pass\n");
	tcp4(&p, true, 40000, 80, SYN);
	v = run_a(&p);
	CHECK(v == XDP_REDIRECT && !m.res.rx.judged && m.ct->nr == 1,
	      "one-way B: not judged (verdict %u)", v);
	setup_pair(PAIR_A, PAIR_B);
	b.as_rx.ifindex = TAP_B + 1;
	v = run_a(&p);
	CHECK(v == XDP_REDIRECT && !m.res.rx.judged, "a port to no bound tap: verdict %u", v);

	/* fragments: B sees the ports A's tracking gave the later one */
	setup_pair(PAIR_A, "rule pass in proto udp dport 7000\ndefault in drop\n");
	{
		uint8_t *l4 = ip4(&p, true, 17, 8, 0x2000);

		put16(l4, 6000);
		put16(l4 + 2, 7000);
	}
	CHECK(run_a(&p) == XDP_REDIRECT && m.res.rx.ct_state == TA_CT_NEW,
	      "a first fragment to B's port 7000");
	ip4(&p, true, 17, 8, 0x0001);
	v = run_a(&p);
	CHECK(v == XDP_REDIRECT && m.res.rx.ct_state == TA_CT_NEW && m.res.frame.dport == 7000,
	      "its later fragment, in B's state (verdict %u state %u)", v, m.res.rx.ct_state);
	ta_policy_spec_free(&b.spec);
}

/* ta_model_run (policy explain) on a two-way policy: out, nothing tracked. */
static void test_run_alone(void)
{
	struct pkt p;

	setup(SG);
	tcp4(&p, true, 40000, 80, SYN);
	ta_model_run(&m.spec, p.d, p.len, &m.res);
	CHECK(m.res.verdict == XDP_PASS && m.res.rule == 9 && m.res.ct_state == TA_CT_NEW,
	      "a SYN out alone: verdict %u rule %d state %u", m.res.verdict, m.res.rule,
	      m.res.ct_state);
	tcp4(&p, true, 40000, 80, ACK);
	ta_model_run(&m.spec, p.d, p.len, &m.res);
	CHECK(m.res.verdict == XDP_DROP && m.res.rule == 0 && m.res.ct_state == TA_CT_INVALID,
	      "an ACK out alone: verdict %u rule %d state %u", m.res.verdict, m.res.rule,
	      m.res.ct_state);
	CHECK(m.ct->nr == 0, "the caller's table untouched");
}

int main(void)
{
	test_tcp_guest_opens();
	test_tcp_in();
	test_udp_icmp();
	test_other_frames();
	test_timeouts_and_limits();
	test_policy_change();
	test_reject();
	test_redirect_receiver();
	test_redirect_receiver_other();
	test_run_alone();
	ta_policy_spec_free(&m.spec);
	ta_model_ct_free(m.ct);
	return check_report();
}
