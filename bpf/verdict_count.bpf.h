/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * verdict_count.bpf.h - the benchmark's reference programs (xdp_basic,
 * xdp_table) count each frame under the XDP verdict they return, in a
 * PERCPU_ARRAY of TA_NR_VERDICTS struct ta_counter: a test compares what
 * a program decided with what arrived.
 */
#ifndef TA_VERDICT_COUNT_BPF_H
#define TA_VERDICT_COUNT_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "bpf/tap_accel.h"

static __always_inline int count_verdict(void *counts, struct xdp_md *ctx,
					 int verdict)
{
	__u32 key = verdict;
	struct ta_counter *c = bpf_map_lookup_elem(counts, &key);

	if (c) {
		c->packets++;
		c->bytes += bpf_xdp_get_buff_len(ctx);
	}
	return verdict;
}

#endif /* TA_VERDICT_COUNT_BPF_H */
