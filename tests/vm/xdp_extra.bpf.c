// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the VM suite needs beyond bpf/xdp_basic: a single-buffer-only
 * drop (frames larger than a page must not reach it) and an aborting one.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int xdp_drop_nofrags(struct xdp_md *ctx)
{
	return XDP_DROP;
}

SEC("xdp.frags")
int xdp_abort(struct xdp_md *ctx)
{
	return XDP_ABORTED;
}

char LICENSE[] SEC("license") = "GPL";
