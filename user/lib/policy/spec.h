/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * spec.h - a tap-accel policy in memory, between the policy-file parser
 * (parse.c) and the compiler (compile.c, whose output plane/install.c
 * writes into the maps). Neither side depends on the other's internals.
 */
#ifndef TA_POLICY_H
#define TA_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <net/if.h>

#include "../../../bpf/tap_accel.h"

/* An address prefix. IPv4 is stored v4-mapped (::ffff:a.b.c.d) with
 * prefixlen 96 + n, exactly as the LPM maps key it. The family is implied:
 * IPv4 is a prefix of /96 or longer inside ::ffff:0:0/96. The parser
 * refuses IPv6 prefixes there (IPv4-mapped addresses are not on the wire),
 * so every IPv6 prefix, ::/0 included, stays IPv6 and matches only IPv6
 * frames. */
struct ta_prefix {
	uint8_t addr[16];
	uint8_t prefixlen; /* 0..128 over addr */
};

static inline bool ta_prefix_is_ip4(const struct ta_prefix *p)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

	return p->prefixlen >= 96 && !memcmp(p->addr, mapped, 12);
}

/* Where a construct came from, for messages. */
struct ta_srcpos {
	int line, col; /* 1-based; 0 when not from a file */
};

/* ta_rule_spec.dirs and .states: 1u << enum ta_dir, 1u << enum ta_ct_state */
#define TA_DIRS_OUT (1u << TA_DIR_OUT)
#define TA_DIRS_IN (1u << TA_DIR_IN)
#define TA_DIRS_BOTH (TA_DIRS_OUT | TA_DIRS_IN)
#define TA_STATES_ALL ((1u << TA_CT_STATE_MAX) - 1)

/* One rule: a conjunction over the fields set in `fields`, its direction
 * and the states of its connection. */
struct ta_rule_spec {
	uint32_t fields; /* 1u << enum ta_field */
	/* the directions it judges; 0 (what a rule built in code without
	 * them has) is out, as in a policy file with none written */
	uint8_t dirs;
	uint8_t states;	 /* a state match; 0: none (any state) */
	bool implicit;	 /* added by the parser to a two-way policy (the
			  * security group's replies, invalid frames,
			  * neighbours): not printed, not in the digest */
	uint16_t vlan;
	uint8_t src_mac[6], dst_mac[6];
	uint16_t ethertype;
	struct ta_prefix src_ip, dst_ip;
	uint8_t ip_proto;
	uint16_t sport_lo, sport_hi; /* inclusive; lo == hi for one port */
	uint16_t dport_lo, dport_hi;
	uint8_t icmp_type;
	uint32_t action;		   /* enum ta_action */
	char redirect_dev[IF_NAMESIZE];	   /* TA_ACT_REDIRECT: interface name */
	uint32_t ifindex;		   /* resolved from redirect_dev at load */
	uint32_t port;			   /* its ta_ports key, given at load */
	struct ta_srcpos pos;
};

struct ta_fdb_spec {
	uint8_t mac[6];
	char dev[IF_NAMESIZE];
	uint32_t ifindex; /* resolved at load */
	uint32_t port;	  /* given at load */
	struct ta_srcpos pos;
};

struct ta_guard_spec {
	uint32_t flags; /* TA_GUARD_F_*; 0 = no guard section */
	uint8_t mac[6];
	uint32_t nr_ip4;
	uint32_t ip4[TA_MAX_GUARD_ADDRS]; /* network order */
	uint32_t nr_ip6;
	uint8_t ip6[TA_MAX_GUARD_ADDRS][16];
};

struct ta_rate_spec {
	uint64_t pps, bps;		/* 0 = unlimited */
	uint64_t burst_pkts, burst_bytes; /* 0 = one second's worth */
};

struct ta_policy_spec {
	struct ta_rule_spec *rules; /* malloc'd, in file order */
	uint32_t nr_rules;
	uint32_t default_action; /* enum ta_action; TA_ACT_PASS if unset */
	/* The default of what goes to the guest: TA_ACT_PASS, DROP or REJECT;
	 * TA_ACT_PASS if unset. Only a two-way policy has one. */
	uint32_t default_in_action;
	bool default_in_set; /* `default in` was written */
	char default_dev[IF_NAMESIZE];
	uint32_t default_ifindex;
	uint32_t default_port;
	struct ta_fdb_spec *fdb; /* malloc'd */
	uint32_t nr_fdb;
	struct ta_guard_spec guard;
	struct ta_rate_spec rate;
	uint64_t digest; /* of the source text; 0 if built in code */
};

static inline uint32_t ta_rule_dirs(const struct ta_rule_spec *r)
{
	return r->dirs ? r->dirs : TA_DIRS_OUT;
}

/* Whether a policy judges both directions and tracks connections: some
 * rule is `in` or matches a state, or `default in` is written. A policy
 * that is not is compiled as one written before there were directions. */
static inline bool ta_policy_two_way(const struct ta_policy_spec *spec)
{
	if (spec->default_in_set)
		return true;
	for (uint32_t i = 0; i < spec->nr_rules; i++)
		if ((ta_rule_dirs(&spec->rules[i]) & TA_DIRS_IN) || spec->rules[i].states)
			return true;
	return false;
}

/* Whether `action` may judge what goes to a guest (pass, drop, reject). */
static inline bool ta_action_valid_in(uint32_t action)
{
	return action == TA_ACT_PASS || action == TA_ACT_DROP || action == TA_ACT_REJECT;
}

void ta_policy_spec_free(struct ta_policy_spec *spec);

#endif /* TA_POLICY_H */
