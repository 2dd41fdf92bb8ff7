/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * gen.h - random frames and policies for the differential test. Values
 * are drawn mostly from a small vocabulary (a few MACs, addresses, ports,
 * VLANs) so that rules and frames meet often, and sometimes at random.
 */
#ifndef TA_DIFF_GEN_H
#define TA_DIFF_GEN_H

#include <stdint.h>

#include "user/lib/policy/spec.h"
#include "../bpf/frames.h"

struct rng {
	uint64_t s;
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform in [0, n). */
uint32_t rng_below(struct rng *r, uint32_t n);
/* True with probability pct / 100. */
int rng_pct(struct rng *r, uint32_t pct);

/* A well-formed frame of a random kind (Ethernet, VLAN/QinQ, IPv4 with
 * options and fragments, IPv6 with extension chains, TCP/UDP/SCTP/ICMP,
 * ND with options, ARP), lengths fixed up. */
void gen_frame(struct rng *r, struct pkt *p);
/* Break a frame a little: a byte or a few, a version/IHL, a length. */
void gen_mutate(struct rng *r, struct pkt *p);

/* A random policy of up to max_rules rules; redirect targets and fdb
 * egresses are `ifindex` (named `ifname`). guard: also a random guard. */
void gen_policy(struct rng *r, struct ta_policy_spec *spec, uint32_t max_rules,
		int guard, uint32_t ifindex, const char *ifname);

/* The spec as policy-file text (docs/policy.md). */
void policy_print(FILE *out, const struct ta_policy_spec *spec);

#endif /* TA_DIFF_GEN_H */
