// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fuzz_model_frame - libFuzzer target for the reference model's frame
 * parser and pipeline (user/lib/policy/model.c): any bytes are the linear part
 * of a frame, run through a policy that names every match field, with
 * the guard on. Checks the result is one the program could give; then
 * both ways under a two-way policy, and out of a tap whose policy
 * redirects to one with a two-way policy (ta_model_run_rx).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include "user/lib/policy/model.h"
#include "user/lib/policy/parse.h"

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond))                                                   \
			abort();                                               \
	} while (0)

static const char policy_text[] =
	"guard mac 52:54:00:00:00:01 ip 10.0.0.1 ip fd00::1 ip fe80::1\n"
	"fdb 52:54:00:00:00:02 dev tap1\n"
	"rule drop vlan 10 proto udp dport 53\n"
	"rule tx smac 52:54:00:00:00:01 dmac ff:ff:ff:ff:ff:ff ethertype arp\n"
	"rule redirect tap2 src 10.0.0.0/8 dst 192.168.0.0/16 proto tcp sport "
	"1000-2000\n"
	"rule drop src fd00::/8 dst fe80::/10 proto icmpv6 icmp-type 135\n"
	"rule forward proto icmp icmp-type 8\n"
	"rule pass proto sctp dport 1-65535\n"
	"default forward\n";

/* Two-way: a security group and a state match of its own. */
static const char two_way_text[] =
	"rule pass out\n"
	"rule pass in proto tcp dport 22\n"
	"rule reject in proto udp dport 53 src 10.0.0.0/8\n"
	"rule drop in src 10.9.0.0/16\n"
	"default in drop\n";

/* Redirects to the tap of two_way (ifindex RX_IFINDEX, tap 3). */
static const char sender_text[] =
	"rule redirect rx out proto udp\n"
	"rule pass out proto icmp\n"
	"default in pass\n"
	"default out redirect rx\n";
#define RX_IFINDEX 7

static struct ta_policy_spec spec, two_way, sender;
static struct ta_model_ct *table;
static unsigned int inputs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct ta_error e;

	if (ta_policy_parse(policy_text, sizeof(policy_text) - 1, "builtin", &spec, &e) ||
	    ta_policy_parse(two_way_text, sizeof(two_way_text) - 1, "builtin", &two_way, &e) ||
	    ta_policy_parse(sender_text, sizeof(sender_text) - 1, "builtin", &sender, &e)) {
		fprintf(stderr, "%s\n", e.text);
		abort();
	}
	for (uint32_t i = 0; i < sender.nr_rules; i++)
		if (sender.rules[i].action == TA_ACT_REDIRECT)
			sender.rules[i].ifindex = RX_IFINDEX;
	sender.default_ifindex = RX_IFINDEX;
	return 0;
}

/* Out of a tap whose policy redirects to two_way's tap: the receiver
 * judges what is redirected, and only that; its pass alone lets it go. */
static void redirect_run(const uint8_t *data, size_t size, uint32_t id)
{
	struct ta_model_tap tap = {.id = id};
	struct ta_model_receiver rx = {.spec = &two_way, .generation = 1 + inputs / 2048,
				       .tap = {.id = 3}, .ifindex = RX_IFINDEX};
	struct ta_model_result res;

	ta_model_run_rx(&sender, 1, &tap, TA_DIR_OUT, (uint64_t)inputs * 1000000ull, table, &rx, 1,
			data, size, &res);
	CHECK(res.verdict == XDP_PASS || res.verdict == XDP_DROP || res.verdict == XDP_TX ||
	      res.verdict == XDP_REDIRECT);
	CHECK(res.verdict != XDP_TX || res.reject_sent);
	CHECK(res.rx.judged == (res.action == TA_ACT_REDIRECT));
	CHECK(!res.rx.judged || res.rx.tap == 3);
	CHECK(!res.rx.judged || (res.verdict == XDP_REDIRECT) == (res.rx.action == TA_ACT_PASS));
	CHECK(!res.rx.judged || res.rx.ct_state < TA_CT_STATE_MAX);
	CHECK(res.verdict != XDP_REDIRECT || !res.rx.judged ||
	      (res.rx.ct_counts & (1u << TA_CT_C_IN_PASS)));
}

/* The frame both ways through a table kept across inputs (a fresh one
 * every 512, so it stays small): the counts agree with the entries. */
static void two_way_run(const uint8_t *data, size_t size)
{
	struct ta_model_tap tap = {.id = 1 + inputs % 2};
	struct ta_model_result res;
	uint32_t total = 0;

	if (!table || ++inputs % 512 == 0) {
		ta_model_ct_free(table);
		table = ta_model_ct_new();
		CHECK(table);
	}
	for (uint32_t dir = 0; dir < TA_DIR_MAX; dir++) {
		ta_model_run_ct(&two_way, 1 + inputs / 1024, &tap, dir, (uint64_t)inputs * 1000000ull, table,
				data, size, &res);
		CHECK(res.ct_state <= TA_CT_STATE_MAX);
		CHECK(res.verdict == XDP_PASS || res.verdict == XDP_DROP || res.verdict == XDP_TX);
		CHECK(res.verdict != XDP_TX || res.reject_sent);
		CHECK(res.stage != TA_MODEL_RULE || (uint32_t)res.rule < two_way.nr_rules);
	}
	redirect_run(data, size, tap.id);
	if (inputs % 64)
		return;
	for (uint32_t i = 0; i < TA_MAX_TAPS; i++)
		total += table->tracked[i];
	CHECK(total == table->nr && table->tracked[TA_MAX_TAPS] == table->nr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ta_model_result res;

	ta_model_run(&spec, data, size, &res);
	CHECK(res.verdict <= XDP_REDIRECT);
	switch (res.stage) {
	case TA_MODEL_PARSE:
		CHECK(res.parse_class < TA_PARSE_MAX);
		CHECK(res.verdict == XDP_DROP);
		break;
	case TA_MODEL_GUARD:
		CHECK(res.guard_reason < TA_GUARD_MAX);
		CHECK(res.verdict == XDP_DROP);
		break;
	case TA_MODEL_RULE:
		CHECK(res.rule >= 0 && (uint32_t)res.rule < spec.nr_rules);
		CHECK(ta_model_rule_matches(&spec.rules[res.rule], &res.frame));
		for (int i = 0; i < res.rule; i++) /* the first match */
			CHECK(!ta_model_rule_matches(&spec.rules[i],
						     &res.frame));
		break;
	case TA_MODEL_DEFAULT:
		CHECK(res.rule == -1);
		break;
	case TA_MODEL_CT: /* two-way policies only */
		abort();
	}
	two_way_run(data, size);
	CHECK(res.frame.nr_lladdr <= TA_MODEL_ND_MAX_OPTS);
	CHECK(size >= 14 || res.parse_class == TA_PARSE_RUNT);
	return 0;
}
