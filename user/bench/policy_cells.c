// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_cells.c - the tap-accel policy program as a benchmark program, as
 * a host runs it: a plane of its own (not pinned), the writer tap bound to
 * a policy of 1, 100 or 1000 rules with the guard on (the guest's MAC and
 * IPv4 address: the frame's, so that every frame passes it). The frame (a
 * UDP datagram to port 9) matches only the last rule, whose action is
 * drop. Compared with "XDP drop, native" the cell shows what finding the
 * tap, parsing, guarding and classifying cost per frame, and across the
 * three cells whether that cost grows with the rule count.
 */
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "policy_cells.h"
#include "writers.h"
#include "lib/plane/counters.h"
#include "lib/plane/policies.h"
#include "lib/plane/taps.h"

#define FIRST_UNMATCHED_PORT 10000
#define MATCHED_PORT	     9 /* the UDP frame's destination port */

struct policy_cell {
	struct ta_plane pl;
	bool open;
	struct ta_tap_state tap; /* the writer tap's binding */
};

bool policy_prog(enum bench_prog p)
{
	return p == PROG_POLICY_1 || p == PROG_POLICY_100 || p == PROG_POLICY_1000;
}

static unsigned int rule_count(enum bench_prog p)
{
	return p == PROG_POLICY_1 ? 1 : p == PROG_POLICY_100 ? 100 : 1000;
}

/* n rules on (UDP, destination port); only the last one matches. */
static int load_rules(struct policy_cell *c, unsigned int n, uint32_t *index,
		      struct ta_error *e)
{
	struct ta_policy_spec spec = { .default_action = TA_ACT_PASS, .nr_rules = n };
	struct ta_load_result res;
	int ret;

	spec.rules = calloc(n, sizeof(*spec.rules));
	if (!spec.rules)
		return ta_error_system(e, ENOMEM, "out of memory");
	for (unsigned int i = 0; i < n; i++) {
		struct ta_rule_spec *r = &spec.rules[i];
		uint16_t port = i == n - 1 ? MATCHED_PORT : FIRST_UNMATCHED_PORT + i;

		r->fields = 1u << TA_F_IP_PROTO | 1u << TA_F_DST_PORT;
		r->ip_proto = 17;
		r->dport_lo = r->dport_hi = port;
		r->action = TA_ACT_DROP;
	}
	ret = ta_policy_load(&c->pl, "bench", &spec, true, &res, e);
	*index = res.index;
	free(spec.rules);
	return ret;
}

/* The writer tap bound, guard on, the program attached in native mode. */
static int bind_writer(struct policy_cell *c, int ifindex, uint32_t policy, struct ta_error *e)
{
	struct ta_guard_spec guard = { .flags = TA_GUARD_F_MAC | TA_GUARD_F_IP4, .nr_ip4 = 1 };
	static const uint8_t guest_ip[4] = { 10, 0, 0, 1 };
	char ifname[IF_NAMESIZE];
	struct ta_bind b = { .ifname = ifname, .policy = policy, .guard = &guard,
			     .entry_only = true };
	enum ta_bind_result result;
	struct ta_tap_key key;
	int err;

	memcpy(guard.mac, fwd_mac_a, 6);
	memcpy(&guard.ip4[0], guest_ip, 4);
	if (!if_indextoname(ifindex, ifname))
		return ta_error_errno(e, errno, "the writer tap");
	if (ta_tap_bind(&c->pl, &b, &result, e))
		return -e->err;
	if (ta_tap_key_of(&c->pl, ifname, &key) || ta_tap_read(&c->pl, &key, &c->tap))
		return ta_error_system(e, ENOENT, "the writer tap's binding is not there");
	err = bpf_xdp_attach(ifindex, c->pl.prog_fd, XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return ta_error_errno(e, err, "native XDP attach refused");
	return 0;
}

struct policy_cell *policy_attach(int ifindex, enum bench_prog p, struct ta_error *e)
{
	struct policy_cell *c = calloc(1, sizeof(*c));
	uint32_t index;

	if (!c) {
		ta_error_system(e, ENOMEM, "out of memory");
		return NULL;
	}
	if (ta_plane_private(&c->pl, e)) {
		free(c);
		return NULL;
	}
	c->open = true;
	if (load_rules(c, rule_count(p), &index, e) || bind_writer(c, ifindex, index, e)) {
		policy_detach(c);
		return NULL;
	}
	return c;
}

/* The caller has detached the program from the tap. */
void policy_detach(struct policy_cell *c)
{
	if (!c)
		return;
	if (c->open)
		ta_plane_close(&c->pl);
	free(c);
}

void policy_counts(struct policy_cell *c, uint64_t verdict[TA_NR_VERDICTS])
{
	struct ta_counter stats[TA_TAP_STATS];

	if (!c || ta_tap_stats_read(&c->pl, &c->tap, stats))
		return;
	for (int v = 0; v < TA_NR_VERDICTS; v++)
		verdict[v] = stats[TA_STAT_VERDICT + v].packets;
}
