// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * test_state.c - what persists across frames: the token bucket, the
 * counters, and the policy slots across a swap. Rates are a few units per
 * second so the refill during a test run is far below one frame; where a
 * slow kernel (the VM's debug kernel) could still refill one, the check
 * allows what the bucket could have gained in the time the frames took.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>

#include "harness.h"

static int send_n(const struct pkt *p, int n, int *passed, int *dropped)
{
	uint32_t verdict;
	int i, ret;

	*passed = *dropped = 0;
	for (i = 0; i < n; i++) {
		ret = run_frame(p, &verdict);
		if (ret)
			return ret;
		*passed += verdict == XDP_PASS;
		*dropped += verdict == XDP_DROP;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* Whole frames a bucket refilling per_s units a second gains since t0,
 * given the left_units the burst leaves over after its whole frames. */
static int refilled(uint64_t t0, uint64_t per_s, uint64_t frame_units,
		    uint64_t left_units)
{
	uint64_t gained = (now_ns() - t0) * per_s / 1000000000ull;

	return (gained + left_units) / frame_units;
}

static int rate_pps(void)
{
	struct ta_rate_spec rate = {.pps = 1, .burst_pkts = 5};
	int passed, dropped;
	struct pkt p;

	OK(rate_set(&rate));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	OK(send_n(&p, 12, &passed, &dropped));
	CHECK(passed == 5 && dropped == 7, "%d passed %d dropped, expected 5 7",
	      passed, dropped);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_RATE_DROP, 7, 7 * 60);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_PASS, 5, 5 * 60);
	return 0;
}

/* 1000-byte bucket, 100-byte frames: ten pass. */
static int rate_bps(void)
{
	struct ta_rate_spec rate = {.bps = 8, .burst_bytes = 1000};
	int passed, dropped;
	struct pkt p;

	OK(rate_set(&rate));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	pkt_zeros(&p, 40);
	OK(send_n(&p, 15, &passed, &dropped));
	CHECK(passed == 10 && dropped == 5,
	      "%d passed %d dropped, expected 10 5", passed, dropped);
	EXPECT_STAT(TA_STAT_EVENT + TA_EV_RATE_DROP, 5, 500);
	return 0;
}

/* An empty bucket last refilled 3 s ago holds 3 tokens at 1 pps. */
static int rate_refill(void)
{
	struct ta_rate_spec spec = {.pps = 1, .burst_pkts = 5};
	struct ta_tap_ref ref;
	struct ta_tap tap;
	uint32_t lo = 1;
	int passed, dropped;
	struct pkt p;

	OK(rate_set(&spec));
	CHECK(!bpf_map_lookup_elem(env.pl.maps.ta_tap_index, &lo, &ref), "ref");
	CHECK(!bpf_map_lookup_elem(env.pl.maps.ta_tap_slots, &ref.slot, &tap), "binding");
	tap.pkt_tokens = 0;
	tap.last_ns = now_ns() - 3000000000ull;
	CHECK(!bpf_map_update_elem(env.pl.maps.ta_tap_slots, &ref.slot, &tap, BPF_F_LOCK),
	      "update: %s", strerror(errno));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	OK(send_n(&p, 5, &passed, &dropped));
	CHECK(passed == 3 && dropped == 2, "%d passed %d dropped, expected 3 2",
	      passed, dropped);
	return 0;
}

/* Burst 0 is one second's worth; with both limits the tighter one rules. */
static int rate_default_burst(void)
{
	struct ta_rate_spec rate = {.pps = 3, .bps = 8 * 1000};
	int passed, dropped, extra;
	struct pkt p;
	uint64_t t0;

	OK(rate_set(&rate));
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	t0 = now_ns();
	OK(send_n(&p, 6, &passed, &dropped));
	extra = refilled(t0, 3, 1, 0);
	CHECK(passed + dropped == 6 && passed >= 3 && passed <= 3 + extra,
	      "pps: %d passed %d dropped, expected 3 (+%d refilled)", passed,
	      dropped, extra);
	rate.pps = 100; /* now 1000 bytes: 16 frames of 60, 40 left over */
	OK(rate_set(&rate));
	t0 = now_ns();
	OK(send_n(&p, 20, &passed, &dropped));
	extra = refilled(t0, 1000, 60, 40);
	CHECK(passed + dropped == 20 && passed >= 16 && passed <= 16 + extra,
	      "bps: %d passed %d dropped, expected 16 (+%d refilled)", passed,
	      dropped, extra);
	rate.pps = rate.bps = 0; /* off */
	OK(rate_set(&rate));
	OK(send_n(&p, 50, &passed, &dropped));
	CHECK(passed == 50, "off: %d of 50 passed", passed);
	return 0;
}

/* After a mix of frames every counter holds exactly what was sent. */
static int counters_exact(void)
{
	struct ta_rule_spec r[] = {
		{.fields = F(TA_F_DST_PORT),
		 .dport_lo = 53,
		 .dport_hi = 53,
		 .action = TA_ACT_DROP},
		{.fields = F(TA_F_IP_PROTO),
		 .ip_proto = 6,
		 .action = TA_ACT_TX},
	};
	struct pkt dns, tcp, other, runt;
	uint32_t verdict;
	struct ta_counter sum = {}, v[TA_TAP_STATS];
	int i;

	OK(install(r, 2, TA_ACT_PASS));
	frame_udp4(&dns, GUEST_IP4, PEER_IP4, 9, 53);	/* 60 bytes */
	frame_tcp4(&tcp, GUEST_IP4, PEER_IP4, 9, 80);	/* 54 */
	frame_udp6(&other, GUEST_IP6, PEER_IP6, 9, 54); /* 62 */
	frame_udp4(&runt, GUEST_IP4, PEER_IP4, 9, 53);
	runt.len = 30; /* IPv4 header cut short */
	for (i = 0; i < 7; i++)
		OK(run_frame(&dns, &verdict));
	for (i = 0; i < 4; i++)
		OK(run_frame(&tcp, &verdict));
	for (i = 0; i < 3; i++)
		OK(run_frame(&other, &verdict));
	for (i = 0; i < 2; i++)
		OK(run_frame(&runt, &verdict));

	EXPECT_RULE(0, 7, 7 * 60);
	EXPECT_RULE(1, 4, 4 * 54);
	EXPECT_RULE(TA_MAX_RULES, 3, 3 * 62);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_DROP, 9, 7 * 60 + 2 * 30);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_TX, 4, 4 * 54);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_PASS, 3, 3 * 62);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_REDIRECT, 0, 0);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_ABORTED, 0, 0);
	EXPECT_STAT(TA_STAT_PARSE + TA_PARSE_IP4_TRUNC, 2, 60);
	/* every frame once in the verdicts */
	OK(ta_tap_stats_read(&env.pl, &env.tap, v));
	for (i = 0; i < TA_NR_VERDICTS; i++) {
		sum.packets += v[TA_STAT_VERDICT + i].packets;
		sum.bytes += v[TA_STAT_VERDICT + i].bytes;
	}
	CHECK(sum.packets == 16 && sum.bytes == 7 * 60 + 4 * 54 + 3 * 62 + 60,
	      "verdicts sum to %llu packets %llu bytes",
	      (unsigned long long)sum.packets, (unsigned long long)sum.bytes);
	return 0;
}

/* Bytes are the whole frame, fragments included (xdp.frags). */
static int counters_multibuffer_bytes(void)
{
	struct pkt p;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 9, 53);
	pkt_zeros(&p, 9000 - p.len);
	EXPECT_VERDICT(&p, XDP_PASS);
	EXPECT_STAT(TA_STAT_VERDICT + XDP_PASS, 1, 9000);
	EXPECT_RULE(TA_MAX_RULES, 1, 9000);
	return 0;
}

/* A new version applies at once; the old one's counters stay readable
 * until it is replaced in turn; a failed install changes nothing. */
static int policy_swap(void)
{
	struct ta_rule_spec a = {.fields = F(TA_F_IP_PROTO),
				 .ip_proto = 17,
				 .action = TA_ACT_DROP};
	struct ta_rule_spec b = {.fields = F(TA_F_IP_PROTO),
				 .ip_proto = 17,
				 .action = TA_ACT_TX};
	struct ta_rule_spec bad = {.action = TA_ACT_MAX};
	uint32_t slot_a, slot_b, verdict;
	struct pkt p;
	int i;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 1, 2);
	OK(install(&a, 1, TA_ACT_PASS));
	slot_a = active_slot();
	for (i = 0; i < 3; i++)
		OK(run_frame(&p, &verdict));
	CHECK(verdict == XDP_DROP, "policy a: %s", verdict_name(verdict));

	OK(install(&b, 1, TA_ACT_PASS));
	slot_b = active_slot();
	CHECK(slot_b != slot_a, "slot did not flip");
	EXPECT_VERDICT(&p, XDP_TX);
	EXPECT_VERDICT(&p, XDP_TX);
	EXPECT_PREV_RULE(0, 3, 180);
	EXPECT_RULE(0, 2, 120);

	CHECK(install(&bad, 1, TA_ACT_PASS) == -EINVAL && env.e.input, "bad action accepted");
	CHECK(active_slot() == slot_b, "failed install flipped the slot");
	EXPECT_VERDICT(&p, XDP_TX);
	EXPECT_PREV_RULE(0, 3, 180);

	/* the next version reuses slot a and starts from zero */
	OK(install(&a, 1, TA_ACT_PASS));
	CHECK(active_slot() == slot_a, "slot did not flip back");
	EXPECT_RULE(0, 0, 0);
	EXPECT_VERDICT(&p, XDP_DROP);
	EXPECT_PREV_RULE(0, 3, 180);
	return 0;
}

/* A version holds maps only for the fields its rules use: once both
 * slots hold policies without addresses, no address map is left. */
static int policy_swap_clears_slot(void)
{
	struct ta_rule_spec r = {.fields = F(TA_F_SRC_IP) | F(TA_F_VLAN),
				 .src_ip = pfx4(OTHER_IP4, 32),
				 .vlan = 3,
				 .action = TA_ACT_DROP};
	uint32_t version, id;

	OK(install(&r, 1, TA_ACT_PASS));
	OK(install(&r, 1, TA_ACT_PASS));
	OK(install(&r, 1, TA_ACT_PASS));
	OK(install(NULL, 0, TA_ACT_PASS));
	OK(install(NULL, 0, TA_ACT_PASS));
	for (uint32_t slot = 0; slot < TA_SLOTS; slot++) {
		version = env.policy * TA_SLOTS + slot;
		CHECK(bpf_map_lookup_elem(env.pl.maps.ta_src_ip, &version, &id) && errno == ENOENT,
		      "version %u still has a ta_src_ip map", version);
		CHECK(bpf_map_lookup_elem(env.pl.maps.ta_vlan, &version, &id) && errno == ENOENT,
		      "version %u still has a ta_vlan map", version);
	}
	return 0;
}

void many_rules(struct ta_rule_spec *r, uint32_t n, uint32_t last_action);

struct traffic {
	atomic_bool stop;
	unsigned long frames, bad, err;
	uint32_t bad_verdict;
};

/* Frames in a loop until stopped; every verdict must be TX or DROP. */
static void *traffic_run(void *arg)
{
	struct traffic *t = arg;
	uint32_t verdict;
	struct pkt p;

	frame_udp4(&p, GUEST_IP4, PEER_IP4, 9, 53);
	while (!atomic_load(&t->stop)) {
		if (run_frame(&p, &verdict)) {
			t->err++;
			continue;
		}
		t->frames++;
		if (verdict != XDP_TX && verdict != XDP_DROP) {
			t->bad++;
			t->bad_verdict = verdict;
		}
	}
	return NULL;
}

/* Policies replaced while frames run: each frame sees one whole policy
 * (200 rules, the last matching with TX; or 1 rule matching with DROP),
 * never a mix that would fall to the default PASS. */
static int policy_swap_under_traffic(void)
{
	static struct ta_rule_spec big[200];
	struct ta_rule_spec small = {.fields = F(TA_F_DST_PORT),
				     .dport_lo = 53,
				     .dport_hi = 53,
				     .action = TA_ACT_DROP};
	struct traffic t = {};
	pthread_t thread;
	int i, ret = 0;

	many_rules(big, 200, TA_ACT_TX);
	OK(install(&small, 1, TA_ACT_PASS));
	CHECK(!pthread_create(&thread, NULL, traffic_run, &t), "thread");
	for (i = 0; i < 40 && !ret; i++)
		ret = i % 2 ? install(&small, 1, TA_ACT_PASS)
			    : install(big, 200, TA_ACT_PASS);
	atomic_store(&t.stop, true);
	pthread_join(thread, NULL);
	OK(ret);
	CHECK(!t.err, "%lu test runs failed", t.err);
	CHECK(t.frames > 0, "no frame ran during the swaps");
	CHECK(!t.bad, "%lu of %lu frames got %s", t.bad, t.frames,
	      verdict_name(t.bad_verdict));
	return 0;
}

const struct test state_tests[] = {
	{"rate_pps_burst", rate_pps},
	{"rate_bps_burst", rate_bps},
	{"rate_refill", rate_refill},
	{"rate_default_burst", rate_default_burst},
	{"counters_exact", counters_exact},
	{"counters_multibuffer_bytes", counters_multibuffer_bytes},
	{"policy_swap", policy_swap},
	{"policy_swap_clears_slot", policy_swap_clears_slot},
	{"policy_swap_under_traffic", policy_swap_under_traffic},
	{NULL, NULL},
};
