/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * conntrack.bpf.h - the connection table of the tap-accel programs
 * (tap_accel.h, "connection tracking"): the state of a frame's connection
 * in a zone, the entries it creates and the limits on them. Only frames of
 * a policy with TA_POL_F_CT come here.
 */
#ifndef TA_CONNTRACK_BPF_H
#define TA_CONNTRACK_BPF_H

#include "bpf/parse.bpf.h"

#define NSEC_PER_SEC 1000000000ull
/* last_ns is rewritten at most this often by frames that change nothing
 * else: every frame writing it would bounce its cache line between CPUs. */
#define CT_REFRESH_NS (NSEC_PER_SEC / 8)

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TA_CT_DEFAULT_ENTRIES);
	__type(key, struct ta_ct_key);
	__type(value, struct ta_ct_entry);
} ta_ct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct ta_ct_config);
} ta_ct_config SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TA_MAX_TAPS + 1);
	__type(key, __u32);
	__type(value, struct ta_ct_tap);
} ta_ct_taps SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, TA_CT_FRAG_ENTRIES);
	__type(key, struct ta_ct_frag_key);
	__type(value, struct ta_ct_frag);
} ta_ct_frags SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, TA_CT_EVENT_RING);
} ta_ct_events SEC(".maps");

/* Per-CPU room for what would not fit on the stack. */
struct ct_buf {
	struct ta_ct_key key __attribute__((aligned(8)));
	struct ta_ct_entry entry;
	struct ta_ct_frag_key frag_key;
	struct ta_ct_frag frag;
};

/* What the table says about one frame. */
struct ct {
	/* buf->key: the frame's connection (an error's: the connection it
	 * quotes) */
	struct ct_buf *buf;
	struct ta_ct_entry *e; /* its live entry; NULL: none */
	__u16 old_tap;	/* +1: the tap whose count an entry at key is in */
	__u8 state;	/* enum ta_ct_state */
	__u8 conn;	/* enum ta_ct_conn of the entry a NEW frame creates */
	__u8 creates;	/* NEW, and makes (or remakes) the entry if accepted */
	__u8 from_a;	/* the frame (or the quoted packet's answer) is from
			 * side a */
};

/* The table's clock, the coarse one: its tick is nothing beside timeouts
 * of seconds and the refresh's eighth of one, and it reads no clock
 * source, which was a sixth of a tracked frame's program time. */
static __always_inline __u64 ct_now(void)
{
	return bpf_ktime_get_coarse_ns();
}

static __always_inline const struct ta_ct_config *ct_config(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&ta_ct_config, &zero);
}

/* TA_CT_TIMEOUTS_DEFAULT as code: a constant array would be a .rodata
 * map of its own. */
static __always_inline __u64 ct_default_timeout(__u32 conn)
{
	switch (conn) {
	case TA_CT_SYN_SENT:
		return 120;
	case TA_CT_SYN_RECV:
		return 60;
	case TA_CT_TCP_ESTABLISHED:
		return 432000;
	case TA_CT_FIN_WAIT:
	case TA_CT_TIME_WAIT:
		return 120;
	case TA_CT_CLOSE:
		return 10;
	case TA_CT_UDP:
	case TA_CT_ICMP:
		return 30;
	case TA_CT_UDP_REPLIED:
		return 120;
	}
	return 600;
}

static __always_inline __u64 ct_timeout_ns(const struct ta_ct_config *cfg,
					   __u32 conn)
{
	__u64 s = 0;

	if (cfg && conn < TA_CT_CONN_MAX)
		s = cfg->timeout[conn];
	return (s ?: ct_default_timeout(conn)) * NSEC_PER_SEC;
}

static __always_inline bool ct_live(const struct ta_ct_config *cfg,
				    const struct ta_ct_entry *e, __u64 now)
{
	/* signed: a time written from user space's finer clock may be ahead */
	return (__s64)(now - e->last_ns) <= (__s64)ct_timeout_ns(cfg, e->state);
}

/* An address, in two words: all the copies here are 8-byte aligned, and a
 * bytewise copy (what memcpy of a pointer chosen at run time becomes)
 * spills its bytes to the stack. */
static __always_inline void copy16(void *dst, const void *src)
{
	((__u64 *)dst)[0] = ((const __u64 *)src)[0];
	((__u64 *)dst)[1] = ((const __u64 *)src)[1];
}

/* Side a is the lower (address, port) end, in any fixed order. */
static __always_inline bool ct_src_first(const __u8 *src, const __u8 *dst,
					 __be16 sport, __be16 dport)
{
	const __u64 *s = (const __u64 *)src, *d = (const __u64 *)dst;

	if (s[0] != d[0])
		return s[0] < d[0];
	if (s[1] != d[1])
		return s[1] < d[1];
	return sport <= dport;
}

/* The key of a packet from src to dst; true when src is side a. */
static __always_inline bool ct_make_key(struct ta_ct_key *k, __u16 zone,
					__u8 proto, const __u8 *src,
					const __u8 *dst, __be16 sport,
					__be16 dport)
{
	bool a = ct_src_first(src, dst, sport, dport);

	k->zone = zone;
	k->proto = proto;
	k->_pad = 0;
	copy16(k->addr_a, a ? src : dst);
	copy16(k->addr_b, a ? dst : src);
	k->port_a = a ? sport : dport;
	k->port_b = a ? dport : sport;
	return a;
}

static __always_inline bool proto_has_ports(__u8 proto)
{
	return proto == IPPROTO_TCP || proto == IPPROTO_UDP ||
	       proto == IPPROTO_UDPLITE || proto == IPPROTO_SCTP;
}

/* The entry at &ct->buf->key, live or not: old_tap is set either way. */
static __always_inline void ct_lookup(struct ct *ct,
				      const struct ta_ct_config *cfg, __u64 now)
{
	struct ta_ct_entry *e = bpf_map_lookup_elem(&ta_ct, &ct->buf->key);

	ct->e = NULL;
	ct->old_tap = 0;
	if (!e)
		return;
	ct->old_tap = e->tap + 1;
	if (ct_live(cfg, e, now))
		ct->e = e;
}

static __always_inline void ct_tap_add(__u32 tap, int n)
{
	__u32 total = TA_MAX_TAPS;
	struct ta_ct_tap *t;

	t = bpf_map_lookup_elem(&ta_ct_taps, &tap);
	if (t)
		__sync_fetch_and_add(&t->tracked, n);
	t = bpf_map_lookup_elem(&ta_ct_taps, &total);
	if (t)
		__sync_fetch_and_add(&t->tracked, n);
}

/* Deletes the entry at &ct->buf->key (expired, cut) and takes it off its tap. */
static __always_inline void ct_forget(struct ct *ct)
{
	if (ct->old_tap && !bpf_map_delete_elem(&ta_ct, &ct->buf->key))
		ct_tap_add(ct->old_tap - 1, -1);
	ct->e = NULL;
	ct->old_tap = 0;
}

/* A TCP frame of a live connection: the next state, or invalid. */
static __always_inline __u8 ct_tcp(struct ct *ct, const struct frame *f,
				   bool orig)
{
	struct ta_ct_entry *e = ct->e;
	__u8 fl = f->tcp_flags, syn = fl & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN);
	bool replied = e->flags & TA_CT_E_REPLIED;

	if (fl & TCP_RST) {
		e->state = TA_CT_CLOSE;
		return orig && !replied ? TA_CT_NEW : TA_CT_ESTABLISHED;
	}
	switch (e->state) {
	case TA_CT_SYN_SENT:
		if (orig)
			return syn == TCP_SYN ? TA_CT_NEW : TA_CT_INVALID;
		if (syn != (TCP_SYN | TCP_ACK))
			return TA_CT_INVALID;
		e->state = TA_CT_SYN_RECV;
		e->flags |= TA_CT_E_REPLIED;
		return TA_CT_ESTABLISHED;
	case TA_CT_SYN_RECV:
		if (!orig)
			return syn == (TCP_SYN | TCP_ACK) ? TA_CT_ESTABLISHED
							 : TA_CT_INVALID;
		if (syn == TCP_SYN)
			return TA_CT_ESTABLISHED; /* a late retransmission */
		if ((fl & (TCP_SYN | TCP_ACK)) != TCP_ACK)
			return TA_CT_INVALID;
		e->state = TA_CT_TCP_ESTABLISHED;
		break;
	case TA_CT_CLOSE:
		return TA_CT_INVALID; /* a new SYN was taken as new before */
	default:
		if (fl & TCP_SYN)
			return TA_CT_INVALID;
	}
	if (fl & TCP_FIN) {
		e->flags |= orig ? TA_CT_E_FIN_ORIG : TA_CT_E_FIN_REPLY;
		e->state = (e->flags & TA_CT_E_FIN_ORIG) &&
				   (e->flags & TA_CT_E_FIN_REPLY)
			       ? TA_CT_TIME_WAIT
			       : TA_CT_FIN_WAIT;
	}
	return TA_CT_ESTABLISHED;
}

/* A frame of a connection that is not TCP: replies establish it. */
static __always_inline __u8 ct_other(struct ct *ct, const struct frame *f,
				     bool orig)
{
	struct ta_ct_entry *e = ct->e;

	if (f->has_icmp &&
	    icmp_is_echo(f->ip_proto, f->icmp_type, true) != orig)
		return TA_CT_INVALID; /* a request answered by a request */
	if (orig)
		return e->flags & TA_CT_E_REPLIED ? TA_CT_ESTABLISHED : TA_CT_NEW;
	if (!(e->flags & TA_CT_E_REPLIED)) {
		e->flags |= TA_CT_E_REPLIED;
		if (e->state == TA_CT_UDP)
			e->state = TA_CT_UDP_REPLIED;
	}
	return TA_CT_ESTABLISHED;
}

/* An ICMP/ICMPv6 error: related if it quotes a live connection of the
 * zone and goes to the end that sent what it quotes. */
static __always_inline __u8 ct_error(struct ct *ct, const struct frame *f,
				     __u16 zone, const struct ta_ct_config *cfg,
				     __u64 now)
{
	const __u64 *d = (const __u64 *)f->dst_ip,
		    *q = (const __u64 *)f->inner_src;

	if (!f->has_inner || d[0] != q[0] || d[1] != q[1])
		return TA_CT_INVALID;
	ct_make_key(&ct->buf->key, zone, f->inner_proto, f->inner_src, f->inner_dst,
		    f->inner_sport, f->inner_dport);
	ct_lookup(ct, cfg, now);
	return ct->e ? TA_CT_RELATED : TA_CT_INVALID;
}

/* A later fragment takes the ports and state its first one left. */
static __always_inline __u8 ct_fragment(struct ct *ct, struct frame *f,
					__u16 zone, __u64 now)
{
	struct ta_ct_frag_key *k = (void *)&ct->buf->key; /* the same 40 bytes */
	struct ta_ct_frag *r;

	copy16(k->src, f->src_ip);
	copy16(k->dst, f->dst_ip);
	k->id = f->frag_id;
	k->zone = zone;
	k->proto = f->ip_proto;
	k->_pad = 0;
	r = bpf_map_lookup_elem(&ta_ct_frags, k);
	if (!r || now - r->ns > TA_CT_FRAG_TIMEOUT * NSEC_PER_SEC)
		return TA_CT_INVALID;
	f->sport = r->sport;
	f->dport = r->dport;
	f->has_ports = proto_has_ports(f->ip_proto);
	return r->state;
}

/* A first fragment let through: its later ones will be judged as it.
 * The record is built in buf (per CPU: the stack is short). */
static __always_inline void ct_fragment_record(const struct frame *f,
					       __u16 zone, __u8 state, __u64 now,
					       struct ct_buf *buf)
{
	struct ta_ct_frag_key *k = &buf->frag_key;
	struct ta_ct_frag *r = &buf->frag;

	copy16(k->src, f->src_ip);
	copy16(k->dst, f->dst_ip);
	k->id = f->frag_id;
	k->zone = zone;
	k->proto = f->ip_proto;
	k->_pad = 0;
	r->ns = now;
	r->sport = f->sport;
	r->dport = f->dport;
	r->state = state;
	bpf_map_update_elem(&ta_ct_frags, k, r, BPF_ANY);
}

/*
 * The state of frame f in zone, and what the table does with it: a live
 * entry's state moves on (TCP flags, a reply); an expired one that the
 * frame cannot reopen is deleted. A NEW frame with ct->creates set makes
 * its entry only once the policy accepts it (ct_create).
 */
static __always_inline __u8 ct_track(struct ct *ct, struct frame *f,
				     __u16 zone, const struct ta_ct_config *cfg,
				     __u64 now)
{
	__be16 sport = bpf_htons(f->sport), dport = bpf_htons(f->dport);
	bool orig, is_tcp = f->ip_proto == IPPROTO_TCP;
	__u8 state;

	ct->creates = 0;
	ct->e = NULL;
	ct->old_tap = 0;
	if (f->l3 != L3_IP4 && f->l3 != L3_IP6)
		return TA_CT_UNTRACKED;
	if (f->frag == FRAG_LATER)
		return ct_fragment(ct, f, zone, now);
	if (f->has_icmp) {
		if ((f->ip_proto == IPPROTO_ICMP) != (f->l3 == L3_IP4))
			return TA_CT_UNTRACKED;
		if (icmp_is_error(f->ip_proto, f->icmp_type))
			return ct_error(ct, f, zone, cfg, now);
		if (!icmp_is_echo(f->ip_proto, f->icmp_type, true) &&
		    !icmp_is_echo(f->ip_proto, f->icmp_type, false))
			return TA_CT_UNTRACKED;
		sport = dport = f->icmp_id;
	} else if (!f->has_ports) {
		sport = dport = 0;
	}
	ct->from_a = ct_make_key(&ct->buf->key, zone, f->ip_proto, f->src_ip,
				 f->dst_ip, sport, dport);
	ct_lookup(ct, cfg, now);
	if (ct->e) {
		orig = ct->from_a == !!(ct->e->flags & TA_CT_E_ORIG_A);
		/* an opener's SYN after the close starts over */
		if (is_tcp && orig && f->tcp_flags == TCP_SYN &&
		    (ct->e->state == TA_CT_CLOSE || ct->e->state == TA_CT_TIME_WAIT))
			ct->e = NULL;
	}
	if (ct->e) {
		state = is_tcp ? ct_tcp(ct, f, orig) : ct_other(ct, f, orig);
		if (state != TA_CT_INVALID && now - ct->e->last_ns > CT_REFRESH_NS)
			ct->e->last_ns = now;
		return state;
	}
	/* no live entry: what may open one */
	if (is_tcp) {
		if ((f->tcp_flags & (TCP_SYN | TCP_ACK | TCP_RST | TCP_FIN)) != TCP_SYN)
			goto invalid;
		ct->conn = TA_CT_SYN_SENT;
	} else if (f->has_icmp) {
		if (!icmp_is_echo(f->ip_proto, f->icmp_type, true))
			goto invalid;
		ct->conn = TA_CT_ICMP;
	} else {
		ct->conn = proto_has_ports(f->ip_proto) ? TA_CT_UDP : TA_CT_GENERIC;
	}
	ct->creates = 1;
	return TA_CT_NEW;
invalid:
	if (ct->old_tap)
		ct_forget(ct); /* expired: nothing will take it over */
	return TA_CT_INVALID;
}

/* At most one event a second a tap. */
static __always_inline void ct_event(struct ta_ct_tap *t, __u32 type, __u32 tap,
				     __u32 tracked, __u32 limit,
				     const struct ta_ct_key *key, __u64 now)
{
	struct ta_ct_event *ev;

	if (now - t->event_ns < NSEC_PER_SEC)
		return;
	t->event_ns = now;
	ev = bpf_ringbuf_reserve(&ta_ct_events, sizeof(*ev), 0);
	if (!ev)
		return;
	ev->ns = now;
	ev->type = type;
	ev->tap = tap;
	ev->tracked = tracked;
	ev->limit = limit;
	__builtin_memcpy(&ev->key, key, sizeof(*key));
	bpf_ringbuf_submit(ev, 0);
}

enum ct_create_result { CT_CREATED, CT_TABLE_FULL, CT_TAP_LIMIT };

/* The host's limit: the configured one, else the default table's. */
static __always_inline __u32 ct_max_tracked(const struct ta_ct_config *cfg)
{
	if (cfg && cfg->max_tracked)
		return cfg->max_tracked;
	return TA_CT_DEFAULT_ENTRIES - TA_CT_HEADROOM;
}

/* The entry of an accepted NEW frame, unless a limit refuses it. */
static __always_inline int ct_create(struct ct *ct, const struct ta_ct_config *cfg,
				     __u32 tap, __u32 dir, __u32 generation,
				     __u64 now)
{
	struct ta_ct_entry *e = &ct->buf->entry;
	__u32 total_key = TA_MAX_TAPS, limit;
	struct ta_ct_tap *t, *total;
	bool replacing = ct->old_tap == tap + 1;

	t = bpf_map_lookup_elem(&ta_ct_taps, &tap);
	total = bpf_map_lookup_elem(&ta_ct_taps, &total_key);
	if (!t || !total)
		return CT_TABLE_FULL;
	if (!replacing) {
		limit = cfg ? cfg->tap_limit : 0;
		if (limit && t->tracked >= limit) {
			ct_event(t, TA_CT_EV_TAP_LIMIT, tap, t->tracked, limit,
				 &ct->buf->key, now);
			return CT_TAP_LIMIT;
		}
		limit = ct_max_tracked(cfg);
		if (total->tracked >= limit && !ct->old_tap) {
			ct_event(t, TA_CT_EV_TABLE_FULL, tap, total->tracked, limit,
				 &ct->buf->key, now);
			return CT_TABLE_FULL;
		}
	}
	e->last_ns = now;
	e->generation = generation;
	e->tap = tap;
	e->state = ct->conn;
	e->flags = (ct->from_a ? TA_CT_E_ORIG_A : 0) |
		   (dir == TA_DIR_IN ? TA_CT_E_IN : 0);
	if (bpf_map_update_elem(&ta_ct, &ct->buf->key, e, BPF_ANY))
		return CT_TABLE_FULL;
	if (!replacing) {
		if (ct->old_tap)
			ct_tap_add(ct->old_tap - 1, -1);
		ct_tap_add(tap, 1);
	}
	return CT_CREATED;
}

#endif /* TA_CONNTRACK_BPF_H */
