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

enum ta_model_frag {
	TA_MODEL_FRAG_NONE,
	TA_MODEL_FRAG_FIRST, /* offset 0, more to come */
	TA_MODEL_FRAG_LATER, /* no L4 header */
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
	/* for the connection table and reject */
	size_t len; /* of the linear part read */
	uint8_t tcp_flags;
	uint16_t icmp_id;	/* the echo identifier's 16 bits */
	enum ta_model_frag frag;
	uint32_t frag_id;	/* IPv4 identification, IPv6 fragment id */
	size_t l3_off, l4_off;	/* from the frame's start */
	bool has_inner;		/* an ICMP error quoting an IP header + 8 bytes */
	uint8_t inner_proto;
	uint8_t inner_src[16], inner_dst[16];
	uint16_t inner_sport, inner_dport; /* or the echo id, both */
};

/* Which stage decided. */
enum ta_model_stage {
	TA_MODEL_PARSE,
	TA_MODEL_GUARD,
	TA_MODEL_RULE,
	TA_MODEL_DEFAULT,
	TA_MODEL_CT, /* the connection table: a limit refused it, or a cut */
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
	/* two-way policies (ta_model_run_ct) */
	uint32_t dir;	     /* enum ta_dir */
	uint32_t ct_state;   /* enum ta_ct_state of the frame; TA_CT_STATE_MAX
			      * when the policy is not two-way */
	uint32_t ct_counts;  /* 1 << enum ta_ct_counter: what it counted */
	bool reject_sent;    /* a reject went back (out: XDP_TX) */
	/* the receiver of a redirect (ta_model_run_rx): what its in policy
	 * did with the frame, counted in its own counters */
	struct ta_model_rx_result {
		bool judged;	    /* its policy is two-way and judged it */
		uint32_t tap;	    /* its tap id */
		enum ta_model_stage stage;
		int rule;	    /* its rule, -1: its default in */
		uint32_t action;    /* TA_ACT_PASS, _DROP or _REJECT */
		uint32_t ct_state;  /* enum ta_ct_state in its zone */
		uint32_t ct_counts; /* 1 << enum ta_ct_counter */
	} rx;
};

/*
 * Parse `len` bytes into *f. Returns the drop class (enum ta_parse_class)
 * or TA_PARSE_MAX when the frame parses; *info collects info classes.
 */
int ta_model_parse(const uint8_t *data, size_t len, struct ta_model_frame *f,
		   uint32_t *info);
/* The same for a frame on its way to a guest (dir TA_DIR_IN), whose
 * neighbour discovery options the program does not read (only the guard,
 * of what a guest sends, needs them). */
int ta_model_parse_dir(const uint8_t *data, size_t len, uint32_t dir,
		       struct ta_model_frame *f, uint32_t *info);

/* The whole pipeline for a frame whose linear part is data[0..len). The
 * guard is spec->guard (off when its flags are 0). A two-way policy judges
 * it as a frame the guest sends with no connection before it
 * (ta_model_run_ct with an empty table). */
void ta_model_run(const struct ta_policy_spec *spec, const uint8_t *data,
		  size_t len, struct ta_model_result *res);

/* ICMP (proto 1) types 3, 4, 5, 11, 12 and ICMPv6 (58) types 1 to 4:
 * errors, which quote the packet they are about. */
bool ta_model_icmp_error(uint8_t proto, uint8_t type);

/* Whether rule r matches the parsed frame f. */
bool ta_model_rule_matches(const struct ta_rule_spec *r,
			   const struct ta_model_frame *f);

/* ---- two-way policies: the connection table --------------------------- */

/* One connection, as the program's table holds it (tap_accel.h). */
struct ta_model_conn {
	struct ta_ct_key key;
	struct ta_ct_entry e;
};

struct ta_model_frag_rec {
	struct ta_ct_frag_key key;
	struct ta_ct_frag rec;
};

/* The host's connection table and what goes with it. The model's table
 * never evicts: it stands for one whose limits keep the LRU idle. */
struct ta_model_ct {
	struct ta_model_conn *conns;
	uint32_t nr, cap;
	struct ta_model_frag_rec *frags;
	uint32_t nr_frags, cap_frags;
	struct ta_ct_config cfg;	 /* limits, timeouts */
	uint32_t tracked[TA_MAX_TAPS + 1]; /* per tap id; the host's last */
};

/* A tap as the program sees it: its id and connection zone (0: its id). */
struct ta_model_tap {
	uint32_t id;
	uint16_t zone;
};

/* An empty table (calloc'd, the caller's to ta_model_ct_free()); NULL if
 * out of memory. */
struct ta_model_ct *ta_model_ct_new(void);
void ta_model_ct_free(struct ta_model_ct *ct);

/*
 * A frame of `tap` in direction `dir` at time `now_ns`, under the policy
 * version (`spec`, `generation`) the tap runs: what the program does with
 * it (out: tap_accel_policy's verdict; in: XDP_PASS or XDP_DROP, or
 * XDP_TX for a reject sent back) and what it does to the table. A policy
 * that is not two-way takes ta_model_run()'s path out and passes in. The
 * receiver of a redirect is taken to be no bound tap (or one whose policy
 * is one-way): the redirect is not judged again. ta_model_run_rx() says
 * who receives.
 */
void ta_model_run_ct(const struct ta_policy_spec *spec, uint32_t generation,
		     const struct ta_model_tap *tap, uint32_t dir, uint64_t now_ns,
		     struct ta_model_ct *ct, const uint8_t *data, size_t len,
		     struct ta_model_result *res);

/* A bound tap of the program's namespace that redirects can reach: the
 * policy version it runs, its id and zone, and the device a redirect
 * names to reach it (the ifindex ta_ports holds for the port). */
struct ta_model_receiver {
	const struct ta_policy_spec *spec;
	uint32_t generation;
	struct ta_model_tap tap;
	uint32_t ifindex;
};

/*
 * ta_model_run_ct() on a host where the `nr_rx` taps of `rx` can receive
 * redirects, and some policy is two-way (ta_ct_config's TA_CT_CFG_F_IN,
 * which the plane sets then). A frame out whose policy (one-way or
 * two-way) redirects it (redirect, or forward that finds the fdb entry)
 * to the ifindex of a receiver with a two-way policy is judged first by
 * that policy in direction in, in the receiver's zone, with its
 * generation: it makes or moves the receiver's connection and counts in
 * res->rx. Its pass lets the redirect go; its drop replaces it (XDP_DROP);
 * its reject goes back to the sender (XDP_TX, res->reject_sent) or is
 * counted unsent in the sender's counters (XDP_DROP). Frames in are as in
 * ta_model_run_ct().
 */
void ta_model_run_rx(const struct ta_policy_spec *spec, uint32_t generation,
		     const struct ta_model_tap *tap, uint32_t dir, uint64_t now_ns,
		     struct ta_model_ct *ct, const struct ta_model_receiver *rx, uint32_t nr_rx,
		     const uint8_t *data, size_t len, struct ta_model_result *res);

/* A frame of direction dir judged as if its connection were in `state`
 * (enum ta_ct_state), whatever the frame is: what `policy explain
 * --state` shows. No table; a one-way policy as ta_model_run() (out) or
 * passing (in). */
void ta_model_run_in_state(const struct ta_policy_spec *spec, uint32_t dir, uint32_t state,
			   const uint8_t *data, size_t len, struct ta_model_result *res);

/* Whether the program can answer a rejected frame (a TCP RST or an ICMP
 * unreachable): IP, not a later fragment, not an ICMP error, an RST or a
 * neighbour message, its headers within what it reads. */
bool ta_model_reject_sent(const struct ta_model_frame *f, size_t len);

#endif /* TA_MODEL_H */
