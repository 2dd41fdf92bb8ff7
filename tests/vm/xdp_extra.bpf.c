// SPDX-License-Identifier: GPL-2.0
/*
 * Programs the VM suite needs beyond bpf/xdp_basic: a single-buffer-only
 * drop (frames larger than a page must not reach it), an aborting one, and
 * one whose verdict is byte 18 of the frame (suite-batch: mixed verdicts in
 * one batch; 3 redirects to by_byte_port[0]), and one that cuts the tail of
 * a multi-buffer frame, releasing its last fragments (suite-pagepool).
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

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} by_byte_port SEC(".maps");

SEC("xdp.frags")
int xdp_by_byte(struct xdp_md *ctx)
{
	unsigned char *data = (void *)(long)ctx->data;
	unsigned char *end = (void *)(long)ctx->data_end;

	if (data + 19 > end)
		return XDP_ABORTED;
	switch (data[18]) {
	case 0:
		return XDP_DROP;
	case 1:
		return XDP_TX;
	case 2:
		return XDP_PASS;
	case 3:
		return bpf_redirect_map(&by_byte_port, 0, XDP_ABORTED);
	}
	return XDP_ABORTED;
}

/* Frames over 4000 B lose 3000 B of tail: on a 9000 B frame that frees
 * whole fragments. */
SEC("xdp.frags")
int xdp_shrink_frags(struct xdp_md *ctx)
{
	if (bpf_xdp_get_buff_len(ctx) > 4000 && bpf_xdp_adjust_tail(ctx, -3000))
		return XDP_ABORTED;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
