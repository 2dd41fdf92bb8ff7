// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * xdp_basic: one-verdict programs with a counter, for the benchmark and the
 * driver tests. Each program counts the frame under the verdict it returns
 * (key = XDP verdict) in basic_count, so a test can compare what the program
 * decided with what arrived. xdp_redirect sends to basic_ports[0].
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>

#include "bpf/tap_accel.h"
#include "bpf/verdict_count.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, TA_NR_VERDICTS);
	__type(key, __u32);
	__type(value, struct ta_counter);
} basic_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} basic_ports SEC(".maps");

SEC("xdp.frags")
int xdp_pass(struct xdp_md *ctx)
{
	return count_verdict(&basic_count, ctx, XDP_PASS);
}

SEC("xdp.frags")
int xdp_drop(struct xdp_md *ctx)
{
	return count_verdict(&basic_count, ctx, XDP_DROP);
}

SEC("xdp.frags")
int xdp_tx(struct xdp_md *ctx)
{
	return count_verdict(&basic_count, ctx, XDP_TX);
}

SEC("xdp.frags")
int xdp_redirect(struct xdp_md *ctx)
{
	int verdict = bpf_redirect_map(&basic_ports, 0, XDP_ABORTED);

	return count_verdict(&basic_count, ctx, verdict);
}

/* tc ingress drop, to compare XDP with the skb-based hook. */
SEC("tc")
int tc_drop(struct __sk_buff *skb)
{
	__u32 key = XDP_DROP;
	struct ta_counter *c = bpf_map_lookup_elem(&basic_count, &key);

	if (c) {
		c->packets++;
		c->bytes += skb->len;
	}
	return TC_ACT_SHOT;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
