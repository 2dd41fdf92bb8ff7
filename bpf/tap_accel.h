/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * tap_accel.h - the map interface of the tap-accel XDP policy program.
 *
 * This header is the stable contract between bpf/ (the program), user/ (the
 * CLI, the agent, the benchmark) and anyone driving the program with nothing
 * but bpftool (docs/bpftool.md). The program is tap_accel_policy (section
 * "xdp.frags") in bpf/tap_accel.bpf.c.
 *
 * One policy plane per host: the program is loaded once and attached to
 * every tap it serves; what differs between taps is data.
 *
 *   policy   a named set of rules, a default action and a rate, compiled
 *            once into maps sized by what it holds. Index p in
 *            [0, TA_MAX_POLICIES). Each policy has TA_SLOTS versions;
 *            version v = p * TA_SLOTS + slot, and ta_policy_active[p]
 *            says which slot frames use.
 *   tap      a device the program is attached to, found by its network
 *            namespace's cookie and its ifindex (ifindexes repeat across
 *            namespaces). Bound taps have an entry in ta_taps: their
 *            policy, their guard parameters, their rate bucket, and an id
 *            in [1, TA_MAX_TAPS) that indexes their own counters, guard
 *            addresses and forwarding entries. Id 0 counts the frames of
 *            taps the program serves without a binding ("unbound").
 *
 * Pipeline for every frame:
 *   tap lookup -> parse -> guard -> rate limit -> classify -> action
 *
 * Classifier: rules are compiled into bit-vectors (bit i = rule i). Each
 * match field has a lookup map from the frame's value of that field to the
 * index of a bit-vector in the version's bit-vector map: the set of rules
 * that accept that value. A frame's candidate rules are the AND of one
 * bit-vector per field; the lowest set bit is the first matching rule. A
 * field the frame lacks (no VLAN tag, not IP, no L4 header) or whose value
 * has no entry uses the field's wildcard bit-vector: the rules that do not
 * constrain that field. The per-frame cost is one lookup per field plus
 * TA_BV_WORDS word ANDs, whatever the number of rules.
 *
 * Where a version's data lives: its exact and prefix field maps are maps of
 * their own, sized to what the version holds and reached through an
 * ARRAY_OF_MAPS indexed by version (a field no rule uses has no map). Its
 * bit-vectors, rule actions and value tables (protocols, ICMP types,
 * ports) are ranges of three arrays the whole host shares (ta_bitvecs,
 * ta_rules, ta_tables), allocated by the loader: array lookups the verifier
 * inlines, where an inner array map of a size of its own would cost a
 * helper call each. A tap's counters are blocks of the host's counter
 * chunks (ta_counters).
 *
 * Atomic replacement: the loader builds the inactive version's maps and
 * header, flips ta_policy_active[p], then waits for running programs to
 * finish (an update of ta_sync, a map-in-map, makes the kernel wait for an
 * RCU grace period) before that version is reused. A frame reads the
 * active slot once, so every tap bound to the policy sees all of one
 * version.
 */
#ifndef TAP_ACCEL_H
#define TAP_ACCEL_H

#include <linux/types.h>
#include <linux/bpf.h> /* struct bpf_spin_lock */

/* Bumped whenever a map, key or value below changes; stored in ta_config. */
#define TA_LAYOUT_VERSION 6

#define TA_MAX_RULES 1024 /* in one policy */
#define TA_BV_WORDS (TA_MAX_RULES / 64)
#define TA_SLOTS 2
#define TA_MAX_POLICIES 1024
#define TA_MAX_VERSIONS (TA_MAX_POLICIES * TA_SLOTS)
#define TA_MAX_TAPS 16384 /* tap ids; id 0 is the unbound taps' */
#define TA_POLICY_NAME_LEN 64
/* Distinct bit-vectors in one version (the compiler de-duplicates them). */
#define TA_MAX_BITVECS 8192
/* Entries of the shared arrays, all versions together: what they cost is
 * allocated when the plane is made, whatever the policies hold (an array
 * entry takes at least 8 bytes). A two-way policy's value tables take
 * at least 1,792 entries however few rules it has (its implicit DHCP
 * rules use both port tables): TA_TABLE_HEAP holds 512 to 585. */
#define TA_BITVEC_HEAP 32768   /* 4 MiB */
#define TA_RULE_HEAP 65536     /* 512 KiB */
#define TA_TABLE_HEAP 1048576  /* 8 MiB */
/* Entries of one version's hash or LPM field map. */
#define TA_MAX_FIELD_ENTRIES 16384
#define TA_MAX_FDB 4096	       /* forwarding entries of one tap */
#define TA_MAX_GUARD_ADDRS 64  /* IPv4 and IPv6 addresses of one tap, each */
#define TA_MAX_PORTS 4096      /* redirect targets on the host */
/* Entries of the host's shared hash maps, all taps together. Their entries
 * are allocated as they are added, but each costs its bucket array (16
 * bytes an entry) from the start. */
#define TA_MAX_GUARD_ENTRIES 16384 /* guard addresses, each family */
#define TA_MAX_FDB_ENTRIES 65536   /* forwarding entries of all taps */
#define TA_MAX_POLICY_FDB_ENTRIES 16384 /* fdb statements of all versions */

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
	TA_ACT_REDIRECT = 3, /* to a port of ta_ports */
	TA_ACT_FORWARD = 4,  /* dst MAC in the tap's ta_fdb: redirect there; else pass */
	/* Out: a TCP RST or an ICMP/ICMPv6 unreachable sent back to the guest;
	 * in: the same sent back to the frame's sender (see "Reject" below). */
	TA_ACT_REJECT = 5,
	TA_ACT_MAX,
};

/* Malformed and noteworthy frames, counted per tap. "drop" classes end the
 * pipeline with XDP_DROP; "info" classes only count and go on. */
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

/* Guest guard: why a frame from the guest was dropped. */
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

/* Other events. */
enum ta_event {
	TA_EV_RATE_DROP,     /* dropped by the token bucket */
	TA_EV_FDB_HIT,	     /* forward: destination found in the tap's fdb */
	TA_EV_FDB_MISS,	     /* forward: unknown, broadcast or multicast: passed */
	TA_EV_REDIRECT_FAIL, /* target port not in ta_ports: dropped */
	TA_EV_MAX,
};

/* Connection tracking, counted per tap (TA_STAT_CT + n). Frames judged in
 * the in direction are counted here, not among the verdicts, which count
 * what the XDP program on the tap did with what the guest sent. */
enum ta_ct_counter {
	TA_CT_C_IN_PASS,   /* in: let through to the guest */
	TA_CT_C_IN_DROP,   /* in: dropped (a rule, the default in, invalid) */
	TA_CT_C_IN_REJECT, /* in: rejected (the reject was sent when it could be) */
	TA_CT_C_IN_DEFAULT, /* in: decided by the default in action */
	TA_CT_C_OUT_REJECT, /* out: rejected (a subset of the DROP/TX verdicts) */
	TA_CT_C_NEW,	   /* connections created in the tap's zone */
	TA_CT_C_INVALID,   /* frames found out of state (either way) */
	TA_CT_C_RELATED,   /* ICMP errors matched to a connection */
	TA_CT_C_TABLE_FULL, /* new connections refused: table at its limit */
	TA_CT_C_TAP_LIMIT, /* new connections refused: the tap's limit */
	TA_CT_C_CUT,	   /* connections cut: the policy now in force refuses
			    * them (checked at their first frame after a load) */
	TA_CT_C_REJECT_UNSENT, /* reject not sent (no room, or the devmap
			    * egress path, which cannot send back): dropped */
	TA_CT_C_MAX,
};

/* ---- configuration ------------------------------------------------------ */

/* What the program does with a tap it serves that has no ta_taps entry
 * (ta_config.unbound_action). tapx gives a new tap the program before any
 * binding exists; on stock tun a tap only gets it by being bound. */
enum ta_unbound {
	TA_UNBOUND_PASS = 0,   /* everything that parses passes */
	TA_UNBOUND_DROP = 1,   /* every frame is dropped */
	TA_UNBOUND_POLICY = 2, /* policy ta_config.unbound_policy, no guard */
	TA_UNBOUND_MAX,
};

/* ta_config: ARRAY, 1 entry, key __u32 0. */
struct ta_config {
	__u32 layout_version; /* TA_LAYOUT_VERSION, written by the loader */
	__u32 unbound_action; /* enum ta_unbound */
	__u32 unbound_policy; /* for TA_UNBOUND_POLICY */
	__u32 unbound_stats;  /* unbound taps' counters, as ta_tap's */
	__u32 unbound_rules[TA_SLOTS];
};

/* ---- policies ----------------------------------------------------------- */

/* Which way a frame goes, seen from the guest. */
enum ta_dir {
	TA_DIR_OUT, /* sent by the guest: the XDP program on its tap */
	TA_DIR_IN,  /* on its way to the guest: tc egress, devmap egress, or
		     * the redirect of another tap's frame to it */
	TA_DIR_MAX,
};

/* The state of a frame's connection in the tap's zone, as a rule matches
 * it (netfilter's ctstate). */
enum ta_ct_state {
	TA_CT_NEW,	   /* opens a connection, or the opener repeating
			    * itself before any reply */
	TA_CT_ESTABLISHED, /* a reply, or the opener's after a reply */
	TA_CT_RELATED,	   /* an ICMP/ICMPv6 error about a tracked connection */
	TA_CT_INVALID,	   /* out of state: a TCP frame other than a SYN with
			    * no connection, a SYN-ACK from the opener, an echo
			    * reply nobody asked for, an error about nothing
			    * tracked, a fragment whose first one was not seen */
	TA_CT_UNTRACKED,   /* not IP, or ICMP that is neither echo nor error
			    * (neighbour discovery, router adverts, MLD): only
			    * rules without a state match apply */
	TA_CT_STATE_MAX,
};

#define TA_CT_STATE_SLOTS 8

/* ta_policy.ct_flags */
#define TA_POL_F_CT (1u << 0) /* track connections, judge both directions */

/* ta_policy_active: ARRAY, TA_MAX_POLICIES entries of __u32, key = policy:
 * the slot its taps use now. */

/* ta_policy: ARRAY, TA_MAX_VERSIONS entries, key = version. The header of
 * one version of a policy, and where its data is. */
struct ta_policy {
	__u32 nr_rules;		  /* rules 0..nr_rules-1 are live */
	__u32 default_action;	  /* enum ta_action when no rule matches */
	__u32 default_port;	  /* ta_ports key, for TA_ACT_REDIRECT */
	__u32 field_mask;	  /* 1 << ta_field for fields any rule uses */
	/* ta_bitvecs index per field for "no entry" */
	__u32 wildcard[TA_F_MAX];
	__u32 rule_base;   /* rule i is ta_rules[rule_base + i] */
	__u32 bitvec_base; /* its nr_bitvecs bit-vectors start here; field */
	__u32 nr_bitvecs;  /* values and wildcards are ta_bitvecs indices */
	/* ta_tables index of the value table of ip_proto, icmp_type,
	 * src_port and dst_port (each where field_mask has the field) */
	__u32 proto_table, icmp_table, sport_table, dport_table;
	__u32 table_base;  /* its tables take table_len entries from here */
	__u32 table_len;
	__u32 _pad;
	__u64 digest;	   /* of the policy source, shown by `status` */
	/* Rate limit of every tap bound to the policy, each with its own
	 * bucket (ta_tap.pkt_tokens, bit_tokens). A rate of 0 is unlimited in that
	 * dimension; both zero: off. */
	__u64 pps;	   /* packets per second */
	__u64 bps;	   /* bits per second */
	__u64 burst_pkts;  /* bucket depth, packets */
	__u64 burst_bytes; /* bucket depth, bytes */
	/* Two-way, stateful policy (see "connection tracking" below). With
	 * ct_flags 0 (a policy with no `in` rule, no `default in` and no
	 * state match) nothing below is read: frames to the guest pass, no
	 * connection is looked up, and what the guest sends takes the path it
	 * took before these fields, but for the test of this flag. */
	__u32 ct_flags;	   /* TA_POL_F_* */
	__u32 generation;  /* stored in the connections it accepts */
	__u32 default_in_action; /* TA_ACT_PASS, TA_ACT_DROP or TA_ACT_REJECT */
	/* ta_bitvecs indices: the rules of each direction (enum ta_dir), and
	 * the rules that match each state (enum ta_ct_state; a rule without
	 * a state match is in every one) */
	__u32 dir_bitvec[TA_DIR_MAX];
	__u32 state_bitvec[TA_CT_STATE_SLOTS]; /* past TA_CT_STATE_MAX: unused */
	/* Per direction and state: 1 + the rule every such frame meets first
	 * whatever its fields (the security group's replies), which the
	 * program then takes without classifying; 0: classify. */
	__u16 state_rule[TA_DIR_MAX][TA_CT_STATE_SLOTS];
};

/* ta_policy_names: ARRAY, TA_MAX_POLICIES entries, key = policy. Only the
 * loader reads it; an empty name is a free index. */
struct ta_policy_name {
	char name[TA_POLICY_NAME_LEN]; /* NUL-terminated */
};

/*
 * The shared arrays, ranges of them per version (struct ta_policy):
 *   ta_rules    ARRAY (TA_RULE_HEAP) of struct ta_rule_action
 *   ta_bitvecs  ARRAY (TA_BITVEC_HEAP) of struct ta_bitvec
 *   ta_tables   ARRAY (TA_TABLE_HEAP) of __u32 bit-vector indices: a
 *               protocol or ICMP type table is 256 entries, key = value;
 *               a port table two levels (below)
 * Per-version maps: ARRAY_OF_MAPS, TA_MAX_VERSIONS entries, key = version;
 * the inner map of a version:
 *   ta_vlan, ta_ethertype   HASH, key __u32 value (VID or ethertype, host
 *                 order), value __u32 bit-vector
 *   ta_src_mac, ta_dst_mac  HASH, key struct ta_mac, value __u32 bit-vector
 *   ta_src_ip, ta_dst_ip    LPM_TRIE, key struct ta_key_ip, value __u32
 * all created with BPF_F_NO_PREALLOC.
 */

/* ta_rules: what rule i does. */
struct ta_rule_action {
	__u32 action; /* enum ta_action */
	__u32 port;   /* ta_ports key, for TA_ACT_REDIRECT */
};

struct ta_bitvec {
	__u64 word[TA_BV_WORDS]; /* bit (i % 64) of word[i / 64] = rule i */
};

/* A port table in two levels: entry port >> 8 of its first TA_PORT_DIR
 * entries is either the bit-vector of all 256 ports of that block or
 * TA_PORT_PAGE | n, and then entry TA_PORT_DIR + n * 256 + (port & 255)
 * holds the port's bit-vector. Only blocks that a rule's range starts or
 * ends in need a page; a table of zeros maps every port to bit-vector 0. */
#define TA_PORT_DIR 256
#define TA_PORT_PAGE 0x80000000u

/* Address family of an LPM key (ta_key_ip.family). */
#define TA_FAMILY_IP4 4
#define TA_FAMILY_IP6 6

/* LPM key: prefixlen counts bits of family and pad, then addr, i.e. 16 +
 * IP prefix length. IPv4 keeps the v4-mapped spelling ::ffff:a.b.c.d, so
 * an IPv4 /n is 16 + 96 + n; the family byte is what keeps the families
 * apart: no IPv6 prefix, not even ::/0, covers an IPv4 frame's key, and
 * no IPv4 prefix an IPv6 frame's. Frames look up 16 + 128 bits with the
 * family of their network header. */
struct ta_key_ip {
	__u32 prefixlen;
	__u8 family;  /* TA_FAMILY_IP4 or TA_FAMILY_IP6 */
	__u8 _pad;    /* zero; inside the prefix */
	__u8 addr[16];
	__u8 _pad2[2]; /* zero; never inside the prefix */
};

/* A MAC address as a key (ta_src_mac, ta_dst_mac and ta_fdb). */
struct ta_mac {
	__u8 addr[6];
	__u8 _pad[2]; /* zero */
};

#define TA_PORT_SPACE 65536
#define TA_BYTE_SPACE 256

/* ---- taps --------------------------------------------------------------- */

/*
 * Finding a frame's tap: its ifindex indexes ta_tap_index, whose entry
 * leads to the tap's binding in ta_tap_slots when the namespace is the
 * frame's; else (a tap whose ifindex is past TA_TAP_INDEX, or whose index
 * entry another namespace's tap of that ifindex holds) ta_taps does, by
 * the whole key. The binding names its own key, and the program takes it
 * only when that is the frame's: what leads there only has to be current
 * enough, never exact. An array lookup costs a tenth of a hash lookup.
 *
 *   ta_tap_index  ARRAY, TA_TAP_INDEX entries, key = ifindex, value
 *                 struct ta_tap_ref
 *   ta_taps       HASH (no prealloc), key struct ta_tap_key, value struct
 *                 ta_tap_ref
 *   ta_tap_slots  ARRAY, TA_MAX_TAPS * 2 entries of struct ta_tap: tap id's
 *                 binding is in slot id * 2 or id * 2 + 1. A change is
 *                 written into the slot not in use, then the ref switched
 *                 to it, so that no frame reads a binding half written.
 *
 * A key with netns_cookie 0 stands for a tap of that ifindex in any
 * namespace the program serves: bpftool users cannot read a cookie.
 */
#define TA_TAP_INDEX 65536

struct ta_tap_key {
	__u64 netns_cookie; /* SO_NETNS_COOKIE of the tap's namespace */
	__u32 ifindex;	    /* the tap's ifindex there */
	__u32 _pad;	    /* zero */
};

struct ta_tap_ref {
	__u64 netns_cookie; /* of the tap it leads to: for the loader */
	__u32 slot;	    /* ta_tap_slots key; 0: none */
	__u32 _pad;
};

#define TA_GUARD_F_MAC (1u << 0) /* check Ethernet source, ARP sha, ND lladdr */
#define TA_GUARD_F_IP4 (1u << 1) /* check IPv4 source and ARP spa */
#define TA_GUARD_F_IP6 (1u << 2) /* check IPv6 source and NA target */

struct ta_tap {
	struct ta_tap_key key; /* the tap this binding is for */
	__u32 id;	   /* [1, TA_MAX_TAPS): its counters, guard sets, fdb */
	__u32 policy;	   /* the policy it is bound to */
	__u32 guard_flags; /* TA_GUARD_F_*; 0: no guard */
	__u32 stats;	   /* first of its TA_TAP_STATS counters */
	/* first of the rule counters of the version in each slot of its
	 * policy (nr_rules + 1 of them, the default's last); 0: none */
	__u32 rules[TA_SLOTS];
	__u8 mac[6];	   /* the guest's MAC, for TA_GUARD_F_MAC */
	/* Its connection-tracking zone (struct ta_ct_key.zone); 0: the tap's
	 * id. Taps sharing a zone share their connections. */
	__u16 ct_zone;
	/* The tap's token bucket. Tokens are kept in units of 1e-9 packet
	 * and 1e-9 bit so that a refill is elapsed_ns * rate with no
	 * division. The loader fills it (tokens = the burst) when it writes
	 * the binding; the program owns it after that. Members of the value
	 * itself, not of a struct in it: older kernels (6.1) find a
	 * bpf_spin_lock only at the top level of a map value. */
	struct bpf_spin_lock lock;
	__u32 _pad2;
	__u64 pkt_tokens; /* nano-packets */
	__u64 bit_tokens; /* nano-bits */
	__u64 last_ns;	  /* bpf_ktime_get_ns() of the last refill */
};

/* ta_guard_ip4: HASH (no prealloc), key struct ta_guard_ip4_key, value
 * __u8 1: the guest's IPv4 addresses. ta_guard_ip6 the same for IPv6
 * (include the link-local address). */
struct ta_guard_ip4_key {
	__u32 tap; /* ta_tap.id */
	__be32 addr;
};

struct ta_guard_ip6_key {
	__u32 tap;
	__u8 addr[16];
};

/* ta_fdb: HASH (no prealloc), key struct ta_fdb_key, value __u32 ta_ports
 * key. Used by TA_ACT_FORWARD for unicast destinations. */
struct ta_fdb_key {
	__u32 tap;
	struct ta_mac mac;
};

/* ta_ports: DEVMAP_HASH, key = port (a number the loader gives each
 * redirect target on the host), value = the target's ifindex (struct
 * bpf_devmap_val layout, ifindex first), resolved in the namespace of the
 * process that writes it. Every redirect target (rule, default, fdb) must
 * be present; a missing one drops the frame (TA_EV_REDIRECT_FAIL).
 * ta_port_keys: HASH, key struct ta_tap_key (the target's namespace and
 * ifindex), value __u32 port: how the loader finds a target's port again.
 * The program never reads it. */

/* ---- the loader's own records (the program never reads them) ----------- */

/* ta_policy_fdb: HASH (no prealloc), key struct ta_policy_fdb_key, value
 * __u32 port: the fdb statements of a policy version, copied into the fdb
 * of every tap bound to it. */
struct ta_policy_fdb_key {
	__u32 version;
	struct ta_mac mac;
};

/* ta_counter_blocks: HASH (no prealloc), key __u32 first counter, value
 * __u32 length: the blocks of ta_counters given out. */

/* ta_tap_info: HASH (no prealloc), key __u32 tap id: what a tap id was
 * given for, so that it can be listed and cleaned from any namespace. */
struct ta_rule_counters {
	__u32 version;	/* whose rules they count */
	__u32 nr_rules; /* nr_rules + 1 counters, the default's last */
	__u64 digest;	/* of that version, to tell a replaced one */
};

/* ta_tap_info.flags: who made the binding. */
#define TA_TAP_F_AGENT (1u << 0) /* `tap-accel agent`, from its configuration */

struct ta_tap_info {
	struct ta_tap_key key;
	char ifname[16];  /* its name when it was bound */
	__u32 xdp_flags;  /* XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE */
	__u32 slot;	  /* the ta_tap_slots entry in use */
	__u32 flags;	  /* TA_TAP_F_*; 0: bound by hand (attach) */
	__u32 _pad;
	/* what the rule counters of ta_tap.rules[slot] count */
	struct ta_rule_counters rules[TA_SLOTS];
};

/* ---- counters ----------------------------------------------------------- */

/* Every counter is a struct ta_counter in a PERCPU_ARRAY; sum across CPUs. */
struct ta_counter {
	__u64 packets;
	__u64 bytes;
};

#define TA_NR_VERDICTS 5

/*
 * ta_counters: ARRAY_OF_MAPS, TA_MAX_COUNTER_CHUNKS entries, each a
 * PERCPU_ARRAY of TA_COUNTER_CHUNK counters: counter n is entry n %
 * TA_COUNTER_CHUNK of chunk n / TA_COUNTER_CHUNK. The loader gives each tap
 * blocks of counters (a block never straddles two chunks) and makes
 * chunks as they are needed, so that binding a tap creates no map (a
 * map-in-map update makes the kernel wait for an RCU grace period).
 * Counter 0 is never given out. A tap's blocks:
 *   ta_tap.stats: TA_TAP_STATS counters, at
 *     TA_STAT_VERDICT + XDP verdict (ABORTED, DROP, PASS, TX, REDIRECT):
 *                       every frame the program saw, exactly once
 *     TA_STAT_GUARD + enum ta_guard_reason
 *     TA_STAT_PARSE + enum ta_parse_class
 *     TA_STAT_EVENT + enum ta_event
 *     TA_STAT_CT + enum ta_ct_counter
 *   ta_tap.rules[slot]: the frames of the tap that each rule of the version
 *     in that slot of its policy decided; rule nr_rules is the default.
 * Unbound taps count in the blocks ta_config names.
 */
#define TA_COUNTER_CHUNK 4096
#define TA_MAX_COUNTER_CHUNKS 4096
#define TA_MAX_COUNTER_BLOCKS (TA_MAX_TAPS * 4)

#define TA_STAT_VERDICT 0
#define TA_STAT_GUARD (TA_STAT_VERDICT + TA_NR_VERDICTS)
#define TA_STAT_PARSE (TA_STAT_GUARD + TA_GUARD_MAX)
#define TA_STAT_EVENT (TA_STAT_PARSE + TA_PARSE_MAX)
#define TA_STAT_CT (TA_STAT_EVENT + TA_EV_MAX)
#define TA_TAP_STATS (TA_STAT_CT + TA_CT_C_MAX)

/* ---- connection tracking ------------------------------------------------ */

/*
 * One table for the host, ta_ct: LRU_HASH, key struct ta_ct_key, value
 * struct ta_ct_entry, TA_CT_DEFAULT_ENTRIES entries unless the loader sets
 * max_entries before it loads the program (bpf_map__set_max_entries).
 * An LRU hash is always preallocated (the kernel refuses BPF_F_NO_PREALLOC
 * for it): its memory is taken when the plane is made, and an insert
 * never allocates in the frame path, so a flood of new connections cannot
 * fail on memory, only on the limits below.
 *
 * Memory per connection, kernel side: 48 bytes of struct htab_elem (hash
 * node, LRU node, hash) + the key (40) + the value (16), plus a 16-byte
 * bucket per entry when max_entries is a power of two (up to twice that
 * otherwise): TA_CT_ENTRY_BYTES.
 *
 * A connection is seen from one zone (the tap's ct_zone, else its id): a
 * tap's view of the same 5-tuple is its own, so two guests with the same
 * addresses in two namespaces, or both ends of a guest-to-guest
 * connection, are separate entries. The key is normalized: side a is the
 * lower (address, port) of the two ends, so both directions of a
 * connection find one entry, and the entry records which side opened it.
 * IPv4 addresses are v4-mapped (::ffff:a.b.c.d), IPv6 as they are; the
 * parser refuses v4-mapped addresses inside IPv6, so the families cannot
 * meet. ICMP/ICMPv6 echo uses its identifier as both ports; protocols
 * other than TCP, UDP, UDP-Lite, SCTP and ICMP have ports 0.
 */
#define TA_CT_DEFAULT_ENTRIES 262144
#define TA_CT_ENTRY_BYTES 120

struct ta_ct_key {
	__u8 addr_a[16];
	__u8 addr_b[16];
	__be16 port_a; /* network order, as on the wire */
	__be16 port_b;
	__u16 zone;
	__u8 proto;
	__u8 _pad; /* zero */
};

/* TCP states: a simplified netfilter machine. Sequence numbers are not
 * tracked; the order of flags and who sends them is. UDP, ICMP and other
 * protocols are in their own state, which names their timeout. */
enum ta_ct_conn {
	TA_CT_SYN_SENT,	   /* the opener's SYN */
	TA_CT_SYN_RECV,	   /* the answer's SYN-ACK */
	TA_CT_TCP_ESTABLISHED, /* the opener's ACK of it */
	TA_CT_FIN_WAIT,	   /* a FIN from one side */
	TA_CT_TIME_WAIT,   /* FINs from both sides */
	TA_CT_CLOSE,	   /* an RST */
	TA_CT_UDP,	   /* UDP-like, no reply yet (UDP-Lite, SCTP too) */
	TA_CT_UDP_REPLIED, /* UDP-like, answered */
	TA_CT_ICMP,	   /* echo */
	TA_CT_GENERIC,	   /* any other IP protocol */
	TA_CT_CONN_MAX,
};

/* ta_ct_entry.flags */
#define TA_CT_E_ORIG_A (1u << 0)  /* side a of the key opened it */
#define TA_CT_E_REPLIED (1u << 1) /* the other side has answered */
#define TA_CT_E_IN (1u << 2)	  /* opened toward the guest (direction in) */
#define TA_CT_E_FIN_ORIG (1u << 3)  /* the opener sent a FIN */
#define TA_CT_E_FIN_REPLY (1u << 4) /* the answerer sent a FIN */

struct ta_ct_entry {
	__u64 last_ns;	  /* bpf_ktime_get_coarse_ns() of its last frame */
	__u32 generation; /* of the policy version that accepted it */
	__u16 tap;	  /* the tap id whose count it is in */
	__u8 state;	  /* enum ta_ct_conn */
	__u8 flags;	  /* TA_CT_E_* */
};

/* Timeouts in seconds after the last frame, by enum ta_ct_conn; those of
 * Linux conntrack (nf_conntrack_tcp_timeout_*, udp, udp_stream, icmp,
 * generic), for user space to show; the program has the same in
 * ct_default_timeout(). A connection past its timeout is as if absent:
 * its next frame finds it expired and replaces it (or is out of state). */
#define TA_CT_TIMEOUTS_DEFAULT                                                 \
	{ 120, 60, 432000, 120, 120, 10, 30, 120, 30, 600 }

/* ta_ct_config: ARRAY, 1 entry, key __u32 0. Zero fields take the defaults. */
struct ta_ct_config {
	/* New connections are refused (dropped, TA_CT_C_TABLE_FULL, an event)
	 * once the host tracks this many; 0: TA_CT_DEFAULT_ENTRIES less
	 * TA_CT_HEADROOM (a loader that sizes the table writes its own size
	 * less TA_CT_HEADROOM). Kept below max_entries so that the LRU never
	 * has to evict a live connection to make room (it evicts per CPU a
	 * little before the table is full). */
	__u32 max_tracked;
	/* New connections of one tap are refused (TA_CT_C_TAP_LIMIT) once it
	 * has this many; 0: no limit per tap. */
	__u32 tap_limit;
	__u32 timeout[TA_CT_CONN_MAX]; /* seconds; 0: the default */
	__u32 flags;		       /* TA_CT_CFG_F_* */
	__u32 _pad;
};

#define TA_CT_HEADROOM 4096
/* Some policy on the host has TA_POL_F_CT: a frame redirected from one tap
 * to another is judged by the receiver's in policy before it goes. When
 * clear, a redirect costs what it did before there were in policies. */
#define TA_CT_CFG_F_IN (1u << 0)

/*
 * ta_ct_taps: ARRAY, TA_MAX_TAPS + 1 entries of struct ta_ct_tap, key =
 * tap id; entry TA_MAX_TAPS is the host's total. The program adds a
 * connection when it creates one and takes it off when it deletes one
 * (expired and replaced, cut by a policy); evictions by the LRU (which
 * the limits keep for the table at its very end) and deletions by user
 * space are not seen, so whoever deletes entries (flush, a sweep of
 * expired ones) writes the counts again from a walk of the table.
 */
struct ta_ct_tap {
	__u32 tracked;	 /* connections in the table */
	__u32 _pad;
	__u64 event_ns;	 /* last refusal event: at most one a second a tap */
};

/* ta_ct_frags: LRU_HASH, TA_CT_FRAG_ENTRIES, key struct ta_ct_frag_key,
 * value struct ta_ct_frag. A first fragment (offset 0, more to come) that
 * the policy lets through leaves its ports and state here; the later
 * fragments of that packet, which carry no ports, are judged as it was
 * (same ports for the rules, same state) for TA_CT_FRAG_TIMEOUT seconds.
 * A later fragment with no record is out of state (TA_CT_INVALID). */
#define TA_CT_FRAG_ENTRIES 16384
#define TA_CT_FRAG_TIMEOUT 30

struct ta_ct_frag_key {
	__u8 src[16];
	__u8 dst[16];
	__be32 id; /* IPv4 identification (16 bits) or IPv6's (32) */
	__u16 zone;
	__u8 proto;
	__u8 _pad;
};

struct ta_ct_frag {
	__u64 ns;	/* of the first fragment */
	__u16 sport, dport; /* host order */
	__u8 state;	/* enum ta_ct_state */
	__u8 _pad[3];
};

/* ta_ct_events: RINGBUF (TA_CT_EVENT_RING bytes) of struct ta_ct_event:
 * a tap refused a new connection, at most one event a second a tap. */
#define TA_CT_EVENT_RING 65536

enum ta_ct_event_type {
	TA_CT_EV_TABLE_FULL, /* the host's limit (max_tracked) */
	TA_CT_EV_TAP_LIMIT,  /* the tap's limit (tap_limit) */
};

struct ta_ct_event {
	__u64 ns;	/* bpf_ktime_get_coarse_ns() */
	__u32 type;	/* enum ta_ct_event_type */
	__u32 tap;	/* tap id */
	__u32 tracked;	/* the count that was at the limit */
	__u32 limit;
	struct ta_ct_key key; /* the connection refused */
};

/*
 * Programs of the in direction, one decision for all three:
 *   tap_accel_in_tc      section "tc": tcx egress of the tap where the
 *                        kernel has it (6.6), else clsact egress. The tap
 *                        is skb->ifindex in the device's namespace.
 *   tap_accel_in_devmap  section "xdp.frags/devmap": the program of a
 *                        devmap entry that redirects into the tap from
 *                        outside tap-accel. Cannot send a reject back.
 *   tap_accel_policy     itself, for TA_ACT_REDIRECT and TA_ACT_FORWARD:
 *                        the target port's binding (ta_ports ifindex, the
 *                        program's namespace) judges the frame before the
 *                        redirect, when TA_CT_CFG_F_IN is set; a drop or a
 *                        reject (XDP_TX back to the sender) replaces the
 *                        redirect. ta_ports entries carry no devmap
 *                        program: the check runs once.
 * Taps of a policy without TA_POL_F_CT, and unbound taps, pass.
 *
 * Reject: TCP is answered with an RST (ACK of the frame's sequence space
 * when it had no ACK, else from its acknowledgment number), anything else
 * IPv4 with ICMP port unreachable (3/3), IPv6 with ICMPv6 port unreachable
 * (1/4), quoting the IP header and the first 8 bytes after it (IPv4) or
 * up to TA_REJECT_QUOTE6 bytes (IPv6). The reply swaps the MAC addresses
 * and keeps the VLAN tags. ICMP errors are never answered (dropped).
 */
#define TA_REJECT_QUOTE6 128

/* ta_sync: ARRAY_OF_MAPS, 1 entry, inner ARRAY of 1 __u32. Only written by
 * the loader, to wait out programs still running on an old version. */

#endif /* TAP_ACCEL_H */
