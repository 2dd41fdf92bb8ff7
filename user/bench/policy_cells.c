// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_cells.c - the tap-accel policy program as a benchmark program:
 * 1, 100 or 1000 rules, and the frame (a UDP datagram to port 9) matches
 * only the last one, whose action is drop. Compared with "XDP drop,
 * native" the cell shows what parsing and classifying cost per frame, and
 * across the three cells whether that cost grows with the rule count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_link.h>
#include <bpf/libbpf.h>

#include "policy_cells.h"
#include "bpf/tap_accel.skel.h"
#include "lib/counters.h"
#include "lib/maps.h"
#include "lib/policy.h"

#define FIRST_UNMATCHED_PORT 10000
#define MATCHED_PORT	     9 /* the UDP frame's destination port */

struct policy_cell {
	struct tap_accel *skel;
	struct ta_maps maps;
	bool maps_open;
};

bool policy_prog(enum bench_prog p)
{
	return p == PROG_POLICY_1 || p == PROG_POLICY_100 ||
	       p == PROG_POLICY_1000;
}

static unsigned int rule_count(enum bench_prog p)
{
	return p == PROG_POLICY_1 ? 1 : p == PROG_POLICY_100 ? 100 : 1000;
}

/* n rules on (UDP, destination port); only the last one matches. */
static int install_rules(struct policy_cell *policy, unsigned int n)
{
	struct ta_policy_spec spec = {.default_action = TA_ACT_PASS,
				      .nr_rules = n};
	int err;

	spec.rules = calloc(n, sizeof(*spec.rules));
	if (!spec.rules)
		return -ENOMEM;
	for (unsigned int i = 0; i < n; i++) {
		struct ta_rule_spec *r = &spec.rules[i];
		uint16_t port =
			i == n - 1 ? MATCHED_PORT : FIRST_UNMATCHED_PORT + i;

		r->fields = 1u << TA_F_IP_PROTO | 1u << TA_F_DST_PORT;
		r->ip_proto = 17;
		r->dport_lo = r->dport_hi = port;
		r->action = TA_ACT_DROP;
	}
	err = ta_policy_install(&policy->maps, &spec);
	free(spec.rules);
	return err;
}

static int load_policy(struct policy_cell *policy, unsigned int rules,
		       char *why, size_t len)
{
	char msg[160];
	int err;

	policy->skel = tap_accel__open_and_load();
	if (!policy->skel) {
		snprintf(why, len, "loading the policy program: %s",
			 strerror(errno));
		return -1;
	}
	err = ta_maps_from_object(policy->skel->obj, &policy->maps, msg,
				  sizeof(msg));
	if (err) {
		snprintf(why, len, "policy maps: %s", msg);
		return -1;
	}
	policy->maps_open = true;
	err = ta_maps_init(&policy->maps);
	if (!err)
		err = install_rules(policy, rules);
	if (err) {
		snprintf(why, len, "installing %u rules: %s", rules,
			 strerror(-err));
		return -1;
	}
	return 0;
}

struct policy_cell *policy_attach(int ifindex, enum bench_prog p, char *why,
				  size_t len)
{
	struct policy_cell *policy = calloc(1, sizeof(*policy));
	int err;

	if (!policy) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	if (load_policy(policy, rule_count(p), why, len)) {
		policy_detach(policy);
		return NULL;
	}
	err = bpf_xdp_attach(
		ifindex, bpf_program__fd(policy->skel->progs.tap_accel_policy),
		XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		snprintf(why, len, "native XDP attach refused: %s",
			 strerror(-err));
		policy_detach(policy);
		return NULL;
	}
	return policy;
}

/* The caller has detached the program from the tap. */
void policy_detach(struct policy_cell *policy)
{
	if (!policy)
		return;
	if (policy->maps_open)
		ta_maps_close(&policy->maps);
	tap_accel__destroy(policy->skel);
	free(policy);
}

void policy_counts(struct policy_cell *policy, uint64_t verdict[TA_NR_VERDICTS])
{
	struct ta_counter sums[TA_NR_VERDICTS];

	if (!policy || !policy->maps_open ||
	    ta_counters_read(policy->maps.ta_st_verdict, 0, TA_NR_VERDICTS,
			     sums))
		return;
	for (int v = 0; v < TA_NR_VERDICTS; v++)
		verdict[v] = sums[v].packets;
}
