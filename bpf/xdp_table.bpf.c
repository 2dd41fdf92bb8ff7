// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xdp_table: the benchmark's table floor. xdp_basic's programs (a counter
 * and the verdict) with the connection table's work and nothing else: the
 * frame's key as ta_ct's (struct ta_ct_key, sides ordered), a lookup in a
 * table of ta_ct's type and size, an entry made when there is none and its
 * time refreshed as tap-accel's program does. No policy, guard, counter of
 * a tap or state machine: what any two-way firewall keeping ta_ct's table
 * pays at least.
 *
 * table_pass looks up one zone (a frame to the stack); table_redirect the
 * zones of both taps, as tap-accel judges a frame guest to guest, then
 * redirects to table_ports[0]. IPv4 without VLAN tags only: the
 * benchmark's frames.
 */
#include <stdbool.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "bpf/tap_accel.h"
#include "bpf/verdict_count.bpf.h"

#define TABLE_ZONE_A	 1		     /* the sender's zone */
#define TABLE_ZONE_B	 2		     /* the receiver's */
#define TABLE_REFRESH_NS (1000000000ull / 8) /* as CT_REFRESH_NS */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	/* the loader sets ta_ct's */
	__uint(max_entries, TA_CT_DEFAULT_ENTRIES);
	__type(key, struct ta_ct_key);
	__type(value, struct ta_ct_entry);
} table_ct SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TA_NR_VERDICTS);
	__type(key, __u32);
	__type(value, struct ta_counter);
} table_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} table_ports SEC(".maps");

/* An IPv4 address as ta_ct holds it: IPv4-mapped IPv6. */
static __always_inline void mapped(__u8 dst[16], __be32 addr)
{
	((__u64 *)dst)[0] = 0;
	((__u32 *)dst)[2] = bpf_htonl(0xffff);
	((__u32 *)dst)[3] = addr;
}

/* The frame's connection in zone, found or made. */
static __always_inline void track(struct xdp_md *ctx, __u16 zone)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = (void *)(eth + 1);
	__be16 *ports = (void *)(ip + 1);
	struct ta_ct_key k;
	struct ta_ct_entry *e, fresh = {};
	__u64 now = bpf_ktime_get_coarse_ns();
	bool a;

	if ((void *)(ports + 2) > end || eth->h_proto != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5)
		return;
	a = bpf_ntohl(ip->saddr) < bpf_ntohl(ip->daddr) ||
	    (ip->saddr == ip->daddr && ports[0] <= ports[1]);
	mapped(k.addr_a, a ? ip->saddr : ip->daddr);
	mapped(k.addr_b, a ? ip->daddr : ip->saddr);
	k.port_a = a ? ports[0] : ports[1];
	k.port_b = a ? ports[1] : ports[0];
	k.zone = zone;
	k.proto = ip->protocol;
	k._pad = 0;
	e = bpf_map_lookup_elem(&table_ct, &k);
	if (!e) {
		fresh.last_ns = now;
		fresh.state = TA_CT_UDP;
		fresh.flags = a ? TA_CT_E_ORIG_A : 0;
		bpf_map_update_elem(&table_ct, &k, &fresh, BPF_ANY);
		return;
	}
	if (now - e->last_ns > TABLE_REFRESH_NS)
		e->last_ns = now;
}

SEC("xdp.frags")
int table_pass(struct xdp_md *ctx)
{
	track(ctx, TABLE_ZONE_A);
	return count_verdict(&table_count, ctx, XDP_PASS);
}

SEC("xdp.frags")
int table_redirect(struct xdp_md *ctx)
{
	int verdict;

	track(ctx, TABLE_ZONE_A);
	track(ctx, TABLE_ZONE_B);
	verdict = bpf_redirect_map(&table_ports, 0, XDP_ABORTED);
	return count_verdict(&table_count, ctx, verdict);
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
