// SPDX-License-Identifier: GPL-2.0
/*
 * Programs for tapx-fuzz (suite-fuzz): what they do to a frame is decided
 * by the frame's own bytes 14..19 (XORed with fuzz_ctl[0], which the fuzzer
 * changes), so a replayed seed writes the same frames and gets the same
 * decisions. They move the start (bpf_xdp_adjust_head), the end
 * (bpf_xdp_adjust_tail, which for multi-buffer frames releases fragments),
 * add metadata (bpf_xdp_adjust_meta), write into the frame, and return any
 * verdict: DROP, PASS, TX, ABORTED, an unknown one, REDIRECT through a
 * devmap (fuzz_ports, slots set by the fuzzer), a cpumap (fuzz_cpus) or
 * bpf_redirect() to an ifindex from fuzz_ifindex.
 *   xdp_fuzz          frags-capable (SEC xdp.frags)
 *   xdp_fuzz_linear   single-buffer only: tapx must never give it a
 *                     frame larger than a page
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_ports SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_cpus SEC(".maps");

/*
 * A devmap or cpumap serves programs of one kind only (frags or not), so
 * the single-buffer program has its own.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_ports_linear SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_CPUMAP);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_cpus_linear SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 8);
	__type(key, __u32);
	__type(value, __u32);
} fuzz_ifindex SEC(".maps");

/* Counts what the programs decided, for the fuzzer's summary. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u64);
} fuzz_seen SEC(".maps");

static __always_inline void seen(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&fuzz_seen, &k);

	if (v)
		*v += 1;
}

static __always_inline int fuzz(struct xdp_md *ctx, void *ports, void *cpus)
{
	unsigned char *data = (void *)(long)ctx->data;
	unsigned char *end = (void *)(long)ctx->data_end;
	__u32 k = 0, salt = 0, *p, idx;
	unsigned char b[6] = {};
	int i;

	p = bpf_map_lookup_elem(&fuzz_ctl, &k);
	if (p)
		salt = *p;
	if (data + 20 <= end) {
		for (i = 0; i < 6; i++)
			b[i] = data[14 + i];
	} else {
		b[0] = (unsigned char)(end - data);
	}
	b[0] ^= salt;
	b[1] ^= salt >> 8;
	b[2] ^= salt >> 16;
	b[3] ^= salt >> 24;

	if (b[1] & 0x01) {
		/* -128..127, or a large jump now and then. */
		int d = (signed char)b[2];

		if (b[1] & 0x80)
			d *= 32;
		if (bpf_xdp_adjust_head(ctx, d) == 0)
			seen(8);
	}
	if (b[1] & 0x02) {
		int d = (signed char)b[3];

		if (b[1] & 0x40)
			d *= 64;
		if (bpf_xdp_adjust_tail(ctx, d) == 0)
			seen(9);
	}
	if (b[1] & 0x04) {
		if (bpf_xdp_adjust_meta(ctx, -(int)(b[4] & 0x3c) - 4) == 0) {
			unsigned char *meta = (void *)(long)ctx->data_meta;
			unsigned char *d2 = (void *)(long)ctx->data;

			if (meta + 4 <= d2)
				meta[0] = b[4];
			seen(10);
		}
	}
	if (b[1] & 0x08) {
		data = (void *)(long)ctx->data;
		end = (void *)(long)ctx->data_end;
		if (data + 12 <= end) {
			/* Swap the MACs, as a reflector would. */
			for (i = 0; i < 6; i++) {
				unsigned char t = data[i];

				data[i] = data[6 + i];
				data[6 + i] = t;
			}
		}
	}
	if (b[1] & 0x10) {
		/* Bytes past the linear part, for multi-buffer frames. */
		__u32 len = 4;
		unsigned char w[4] = { b[0], b[1], b[2], b[3] };

		if (bpf_xdp_store_bytes(ctx, (b[5] << 6) + 3000, w, len) == 0)
			seen(11);
		if (bpf_xdp_load_bytes(ctx, (b[4] << 4), w, len) == 0)
			seen(12);
	}

	switch (b[0] & 0x0f) {
	case 0:
	case 1:
		seen(0);
		return XDP_DROP;
	case 2:
	case 3:
		seen(1);
		return XDP_PASS;
	case 4:
	case 5:
		seen(2);
		return XDP_TX;
	case 6:
	case 7:
		seen(3);
		return bpf_redirect_map(ports, b[5] & 7,
					b[5] & 8 ? XDP_PASS : XDP_ABORTED);
	case 8:
		seen(4);
		return bpf_redirect_map(cpus, b[5] & 1, XDP_DROP);
	case 9:
		idx = b[5] & 7;
		p = bpf_map_lookup_elem(&fuzz_ifindex, &idx);
		seen(5);
		return bpf_redirect(p ? *p : 0, 0);
	case 10:
		seen(6);
		return XDP_ABORTED;
	case 11:
		seen(7);
		return 7 + b[5]; /* no such verdict */
	default:
		seen(b[0] & 1 ? 0 : 1);
		return b[0] & 1 ? XDP_DROP : XDP_PASS;
	}
}

SEC("xdp.frags")
int xdp_fuzz(struct xdp_md *ctx)
{
	return fuzz(ctx, &fuzz_ports, &fuzz_cpus);
}

SEC("xdp")
int xdp_fuzz_linear(struct xdp_md *ctx)
{
	return fuzz(ctx, &fuzz_ports_linear, &fuzz_cpus_linear);
}

char LICENSE[] SEC("license") = "GPL";
