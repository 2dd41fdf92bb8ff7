/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * model.h - a reference model of what the policy program does with one
 * frame, in plain C, written from the documented semantics (tap_accel.h,
 * docs/bpf.md, docs/policy.md) and not from the BPF code, so that the two
 * can be tested against each other (tests/diff) and so that `tap-accel
 * policy explain` can tell why a frame gets its verdict.
 *
 * The model sees only the bytes the program would see: the linear part of
 * the frame. Rate limiting is not modelled (the bucket is assumed to admit
 * the frame); every redirect target of the spec is assumed to be in
 * ta_ports, as ta_policy_install() and ta_fdb_add() put it there.
 */
#ifndef TA_MODEL_H
#define TA_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define TA_MODEL_ND_MAX_OPTS 16 /* options past the 16th count as foreign */

enum ta_model_l3 {
	TA_MODEL_L3_NONE,
	TA_MODEL_L3_IP4,
	TA_MODEL_L3_IP6,
	TA_MODEL_L3_ARP,
};

/* What the parser found in a frame. */
struct ta_model_frame {
	uint8_t dst_mac[6], src_mac[6];
	bool has_vlan;
	uint16_t vlan;	    /* VID of the outermost tag */
	uint16_t ethertype; /* after the tags */
	enum ta_model_l3 l3;
	uint8_t src_ip[16], dst_ip[16]; /* IPv4 as ::ffff:a.b.c.d */
	uint8_t ip_proto;
	bool has_ports;
	uint16_t sport, dport;
	bool has_icmp;
	uint8_t icmp_type;
	bool arp_eth_ip4; /* ARP for Ethernet/IPv4: sha and spa are valid */
	uint8_t arp_sha[6], arp_spa[4];
	bool is_nd; /* NS or NA (icmp_type says which) */
	uint8_t nd_target[16];
	uint32_t nr_lladdr;
	uint8_t lladdr[TA_MODEL_ND_MAX_OPTS][6];
	bool nd_unchecked; /* options left past the 16th */
};

/* Which stage decided. */
enum ta_model_stage {
	TA_MODEL_PARSE,
	TA_MODEL_GUARD,
	TA_MODEL_RULE,
	TA_MODEL_DEFAULT,
};

struct ta_model_result {
	uint32_t verdict; /* XDP_ABORTED .. XDP_REDIRECT */
	enum ta_model_stage stage;
	int parse_class;     /* the drop class, or TA_PARSE_MAX when parsed */
	uint32_t parse_info; /* 1 << TA_PARSE_IP4_OPTIONS/IP4_FRAG/IP6_FRAG */
	int guard_reason;    /* or TA_GUARD_MAX when not dropped by it */
	int rule;	     /* the first matching rule, -1: default */
	uint32_t action;     /* enum ta_action applied (rule or default) */
	uint32_t events;     /* 1 << TA_EV_FDB_HIT / TA_EV_FDB_MISS */
	uint32_t ifindex;    /* redirect target, when verdict is REDIRECT */
	struct ta_model_frame frame;
};

/*
 * Parse `len` bytes into *f. Returns the drop class (enum ta_parse_class)
 * or TA_PARSE_MAX when the frame parses; *info collects info classes.
 */
int ta_model_parse(const uint8_t *data, size_t len, struct ta_model_frame *f,
		   uint32_t *info);

/* The whole pipeline for a frame whose linear part is data[0..len). The
 * guard is spec->guard (off when its flags are 0). */
void ta_model_run(const struct ta_policy_spec *spec, const uint8_t *data,
		  size_t len, struct ta_model_result *res);

/* Whether rule r matches the parsed frame f. */
bool ta_model_rule_matches(const struct ta_rule_spec *r,
			   const struct ta_model_frame *f);

#endif /* TA_MODEL_H */
