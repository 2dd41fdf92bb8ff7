/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * tap_accel.h - the map interface of the tap-accel XDP policy program.
 *
 * This header is the stable contract between bpf/ (the program), user/ (the
 * loader and CLI) and anyone driving the program with nothing but bpftool.
 * Every map below is pinned by the CLI under
 * /sys/fs/bpf/tap-accel/net:<netns inode>/<ifname>/ with the map's own
 * name. One program instance (with its own maps) is loaded per interface,
 * so nothing here is keyed by ifindex. The program is
 * tap_accel_policy (section "xdp.frags") in bpf/tap_accel.bpf.c.
 *
 * Pipeline for every frame:
 *   parse -> guard -> rate limit -> classify (rules) -> action -> verdict
 *
 * Classifier: rules are compiled into bit-vectors (bit i = rule i). Each
 * match field has a lookup map from the frame's value of that field to the
 * index of a bit-vector in ta_bitvecs: the set of rules that accept that
 * value. A frame's candidate rules are the AND of one bit-vector per field;
 * the lowest set bit is the first matching rule. A field the frame lacks
 * (no VLAN tag, not IP, no L4 header) or whose value has no entry uses the
 * field's wildcard bit-vector: the rules that do not constrain that field.
 * The per-frame cost is one lookup per field plus TA_BV_WORDS word ANDs,
 * whatever the number of rules.
 *
 * Atomic replacement: every policy map is split into TA_SLOTS slots. The
 * loader writes the inactive slot, flips ta_config.active_slot, then waits
 * for running programs to finish (an update of ta_sync, a map-in-map, makes
 * the kernel wait for an RCU grace period) before that slot is reused. A
 * frame reads active_slot once, so it sees all of one policy.
 */
#ifndef TAP_ACCEL_H
#define TAP_ACCEL_H

#include <linux/types.h>
#include <linux/bpf.h> /* struct bpf_spin_lock */

/* Bumped whenever a key or value below changes; stored in ta_config. */
#define TA_LAYOUT_VERSION 3

#define TA_MAX_RULES 1024
#define TA_BV_WORDS (TA_MAX_RULES / 64)
#define TA_SLOTS 2
/* Distinct bit-vectors per slot (the compiler de-duplicates them). */
#define TA_MAX_BITVECS 8192
/* Entries per slot in each hash/LPM field map. */
#define TA_MAX_FIELD_ENTRIES 16384
#define TA_MAX_FDB 4096
#define TA_MAX_PORTS 256
#define TA_MAX_GUARD_ADDRS 64

/* Match fields, in the order the program evaluates them. */
enum ta_field {
	TA_F_VLAN,	/* outermost 802.1Q/802.1ad VID; absent if untagged */
	TA_F_SRC_MAC,
	TA_F_DST_MAC,
	TA_F_ETHERTYPE, /* after all VLAN tags, host order */
	TA_F_SRC_IP,	/* IPv4 as ::ffff:a.b.c.d, IPv6 as is; see ta_key_ip */
	TA_F_DST_IP,
	TA_F_IP_PROTO,	/* IPv4 protocol / IPv6 upper-layer next header */
	TA_F_SRC_PORT,	/* TCP, UDP, UDP-Lite, SCTP; absent in non-first fragments */
	TA_F_DST_PORT,
	TA_F_ICMP_TYPE, /* ICMP (proto 1) and ICMPv6 (proto 58) type */
	TA_F_MAX,
};

/* Actions of a rule and of the default. Zero is pass, so an unconfigured
 * program passes everything that parses. */
enum ta_action {
	TA_ACT_PASS = 0,     /* XDP_PASS: to the stack (bridge, routing) */
	TA_ACT_DROP = 1,     /* XDP_DROP */
	TA_ACT_TX = 2,	     /* XDP_TX: back out of the interface it came in on */
	TA_ACT_REDIRECT = 3, /* to ifindex through ta_ports */
	TA_ACT_FORWARD = 4,  /* dst MAC in ta_fdb: redirect there; else pass */
	TA_ACT_MAX,
};

/* Malformed and noteworthy frames, counted in ta_st_parse. "drop" classes
 * end the pipeline with XDP_DROP; "info" classes only count and go on. */
enum ta_parse_class {
	TA_PARSE_RUNT,	      /* drop: shorter than an Ethernet header (14) */
	TA_PARSE_VLAN_TRUNC,  /* drop: VLAN tag cut short */
	TA_PARSE_VLAN_DEPTH,  /* drop: more than 2 VLAN tags */
	TA_PARSE_IP4_TRUNC,   /* drop: IPv4 header cut short (< 20 or < IHL*4) */
	TA_PARSE_IP4_BAD_HDR, /* drop: version != 4 or IHL < 5 */
	TA_PARSE_IP4_OPTIONS, /* info: IPv4 options present (skipped) */
	TA_PARSE_IP4_FRAG,    /* info: non-first IPv4 fragment, no L4 fields */
	TA_PARSE_IP6_TRUNC,   /* drop: IPv6 header cut short */
	TA_PARSE_IP6_EXT_TRUNC, /* drop: IPv6 extension header cut short */
	TA_PARSE_IP6_EXT_DEPTH, /* drop: more than TA_IP6_MAX_EXT ext headers */
	TA_PARSE_IP6_FRAG,    /* info: non-first IPv6 fragment, no L4 fields */
	TA_PARSE_L4_TRUNC,    /* drop: TCP/UDP/SCTP/ICMP header cut short */
	TA_PARSE_ARP_TRUNC,   /* drop: ARP shorter than its header says */
	TA_PARSE_ND_TRUNC,    /* drop: ND message/option cut short or 0-long */
	TA_PARSE_IP6_BAD_HDR, /* drop: IPv6 ethertype, version != 6 */
	/* drop: IPv6 source or destination in ::ffff:0:0/96. IPv4-mapped
	 * addresses never appear on the wire (RFC 4291 2.5.5.2); a guest
	 * sending one is spoofing an IPv4 address inside IPv6. */
	TA_PARSE_IP6_V4MAPPED,
	TA_PARSE_MAX,
};

#define TA_IP6_MAX_EXT 6

/* Guest guard: why a frame from the guest was dropped (ta_st_guard). */
enum ta_guard_reason {
	TA_GUARD_SRC_MAC,   /* Ethernet source is not the guest's MAC */
	TA_GUARD_IP4_SRC,   /* IPv4 source not the guest's (0.0.0.0 allowed for DHCP) */
	TA_GUARD_IP6_SRC,   /* IPv6 source not the guest's (:: allowed for DAD) */
	TA_GUARD_ARP_SHA,   /* ARP sender hardware address is not the guest's MAC */
	TA_GUARD_ARP_SPA,   /* ARP sender IP not the guest's (0.0.0.0 allowed: probe) */
	TA_GUARD_ND_TARGET, /* neighbour advertisement for an address not the guest's */
	TA_GUARD_ND_LLADDR, /* ND link-layer address option is not the guest's MAC */
	TA_GUARD_MAX,
};

/* Other events (ta_st_event). */
enum ta_event {
	TA_EV_RATE_DROP,     /* dropped by the token bucket */
	TA_EV_FDB_HIT,	     /* forward: destination found in ta_fdb */
	TA_EV_FDB_MISS,	     /* forward: unknown, broadcast or multicast: passed */
	TA_EV_REDIRECT_FAIL, /* target not in ta_ports: dropped */
	TA_EV_MAX,
};

/* ---- configuration maps ---------------------------------------------- */

/* ta_config: ARRAY, 1 entry, key __u32 0. */
struct ta_config {
	__u32 layout_version; /* TA_LAYOUT_VERSION, written by the loader */
	__u32 active_slot;    /* 0 or 1: the policy slot frames use */
};

/*
 * ta_owner: ARRAY, 1 entry, key __u32 0. The tap these pins belong to,
 * written by the loader at attach. Pin folders are named by the network
 * namespace's inode, which a later namespace can reuse: the cookie tells
 * them apart. All zero: not recorded (pins made with bpftool alone).
 * The program never reads it.
 */
struct ta_owner {
	__u64 netns_cookie; /* SO_NETNS_COOKIE of the tap's namespace */
	__u32 ifindex;	    /* the tap's ifindex there */
	__u32 reserved;
};

/* ta_policy: ARRAY, TA_SLOTS entries, key = slot. The header of a policy. */
struct ta_policy {
	__u32 nr_rules;		    /* rules 0..nr_rules-1 are live */
	__u32 default_action;	    /* enum ta_action when no rule matches */
	__u32 default_ifindex;	    /* for TA_ACT_REDIRECT */
	__u32 field_mask;	    /* 1 << ta_field for fields any rule uses */
	__u32 wildcard[TA_F_MAX];   /* ta_bitvecs index per field for "no entry" */
	__u64 digest;		    /* of the policy source, shown by `status` */
};

/* ta_rules: ARRAY, TA_SLOTS * TA_MAX_RULES, key = slot * TA_MAX_RULES + rule. */
struct ta_rule_action {
	__u32 action;  /* enum ta_action */
	__u32 ifindex; /* for TA_ACT_REDIRECT */
};

/* ta_bitvecs: ARRAY, TA_SLOTS * TA_MAX_BITVECS, key = absolute index. The
 * field maps and ta_policy.wildcard hold absolute indices, so a slot's
 * entries live in [slot * TA_MAX_BITVECS, (slot + 1) * TA_MAX_BITVECS). */
struct ta_bitvec {
	__u64 word[TA_BV_WORDS]; /* bit (i % 64) of word[i / 64] = rule i */
};

/* Field maps. Every value is a __u32 absolute ta_bitvecs index.
 *   ta_vlan, ta_ethertype: HASH, key struct ta_key16
 *   ta_src_mac, ta_dst_mac: HASH, key struct ta_key_mac
 *   ta_src_ip, ta_dst_ip: LPM_TRIE, key struct ta_key_ip
 *   ta_ip_proto, ta_icmp_type: ARRAY, TA_SLOTS * 256, key = slot * 256 + value
 *   ta_src_port, ta_dst_port: ARRAY, TA_SLOTS * 65536, key = slot * 65536 + port
 * Arrays are written in full for a slot; hash and LPM entries of a slot are
 * deleted before the slot is rewritten. */
struct ta_key16 {
	__u32 slot;
	__u32 value; /* VID (0..4095) or ethertype, host order */
};

struct ta_key_mac {
	__u32 slot;
	__u8 addr[6];
	__u8 _pad[2]; /* zero */
};

/* Address family of an LPM key (ta_key_ip.family). */
#define TA_FAMILY_IP4 4
#define TA_FAMILY_IP6 6

/* LPM key: prefixlen counts bits of slot, family, then addr, i.e. 16 + IP
 * prefix length. IPv4 keeps the v4-mapped spelling ::ffff:a.b.c.d, so an
 * IPv4 /n is 16 + 96 + n; the family byte is what keeps the families
 * apart: no IPv6 prefix, not even ::/0, covers an IPv4 frame's key, and
 * no IPv4 prefix an IPv6 frame's. Frames look up 16 + 128 bits with the
 * family of their network header. */
struct ta_key_ip {
	__u32 prefixlen;
	__u8 slot;
	__u8 family;  /* TA_FAMILY_IP4 or TA_FAMILY_IP6 */
	__u8 addr[16];
	__u8 _pad[2]; /* zero; never inside the prefix */
};

#define TA_PORT_SPACE 65536
#define TA_BYTE_SPACE 256

/* ---- forwarding -------------------------------------------------------- */

/* ta_fdb: HASH, key struct ta_mac, value __u32 egress ifindex. Used by
 * TA_ACT_FORWARD for unicast destinations. */
struct ta_mac {
	__u8 addr[6];
	__u8 _pad[2]; /* zero */
};

/* ta_ports: DEVMAP_HASH, key ifindex, value ifindex (struct bpf_devmap_val
 * layout, ifindex first). Every redirect target (rule, default, fdb) must
 * be present here; a missing one drops the frame (TA_EV_REDIRECT_FAIL). */

/* ---- guest guard --------------------------------------------------------- */

#define TA_GUARD_F_MAC (1u << 0) /* check Ethernet source, ARP sha, ND lladdr */
#define TA_GUARD_F_IP4 (1u << 1) /* check IPv4 source and ARP spa */
#define TA_GUARD_F_IP6 (1u << 2) /* check IPv6 source and NA target */

/* ta_guard: ARRAY, 1 entry. flags == 0: guard off. */
struct ta_guard {
	__u32 flags; /* TA_GUARD_F_* */
	__u8 mac[6];
	__u8 _pad[2];
};

/* ta_guard_ip4: HASH, key __be32 address, value __u8 1 (the guest's IPv4s).
 * ta_guard_ip6: HASH, key struct ta_ip6, value __u8 1 (include link-local). */
struct ta_ip6 {
	__u8 addr[16];
};

/* ---- rate limit ---------------------------------------------------------- */

/* ta_rate: ARRAY, 1 entry. A rate of 0 is unlimited in that dimension; both
 * zero: off. Tokens are kept in units of 1e-9 packet and 1e-9 bit so that a
 * refill is elapsed_ns * rate with no division. The loader writes the
 * configuration and sets tokens to the burst; the program owns the rest. */
struct ta_rate {
	struct bpf_spin_lock lock;
	__u32 _pad;
	__u64 pps;	   /* packets per second */
	__u64 bps;	   /* bits per second */
	__u64 burst_pkts;  /* bucket depth, packets */
	__u64 burst_bytes; /* bucket depth, bytes */
	__u64 pkt_tokens;  /* nano-packets */
	__u64 bit_tokens;  /* nano-bits */
	__u64 last_ns;	   /* bpf_ktime_get_ns() of the last refill */
};

/* ---- counters ------------------------------------------------------------ */

/* All counters are PERCPU_ARRAY of struct ta_counter; sum across CPUs.
 *   ta_st_verdict: 5 entries, key = XDP verdict (ABORTED, DROP, PASS, TX,
 *                  REDIRECT): every frame the program saw, exactly once
 *   ta_st_rule:    TA_SLOTS * (TA_MAX_RULES + 1), key = slot *
 *                  (TA_MAX_RULES + 1) + rule; rule TA_MAX_RULES = default
 *   ta_st_guard:   TA_GUARD_MAX, key = enum ta_guard_reason
 *   ta_st_parse:   TA_PARSE_MAX, key = enum ta_parse_class
 *   ta_st_event:   TA_EV_MAX, key = enum ta_event */
struct ta_counter {
	__u64 packets;
	__u64 bytes;
};

#define TA_NR_VERDICTS 5
#define TA_RULE_STAT_SLOT (TA_MAX_RULES + 1)

/* ta_sync: ARRAY_OF_MAPS, 1 entry, inner ARRAY of 1 __u32. Only written by
 * the loader, to wait out programs still running on the old policy slot. */

#endif /* TAP_ACCEL_H */
