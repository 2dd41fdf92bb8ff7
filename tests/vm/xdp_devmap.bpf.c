// SPDX-License-Identifier: GPL-2.0
/*
 * Another XDP program redirecting into a tap through a devmap whose entry
 * carries a program of its own (struct bpf_devmap_val): suite-twoway.sh
 * puts tap-accel's in program (prog_in_devmap) in entry 0, so that what
 * this program sends to a guest is judged by the guest's in policy.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} guest_port SEC(".maps");

SEC("xdp.frags")
int xdp_to_guest(struct xdp_md *ctx)
{
	return bpf_redirect_map(&guest_port, 0, XDP_ABORTED);
}

char LICENSE[] SEC("license") = "GPL";
