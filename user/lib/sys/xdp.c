// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* xdp.c - XDP attachment and program identity (see xdp.h). */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <string.h>

#include "xdp.h"

int ta_xdp_query(unsigned int ifindex, struct ta_xdp_state *st)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int err;

	memset(st, 0, sizeof(*st));
	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	st->prog_id = q.prog_id;
	if (q.attach_mode == XDP_ATTACHED_DRV) {
		st->mode = "native";
		st->mode_flag = XDP_FLAGS_DRV_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_SKB) {
		st->mode = "generic";
		st->mode_flag = XDP_FLAGS_SKB_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_HW) {
		st->mode = "offload";
		st->mode_flag = XDP_FLAGS_HW_MODE;
	} else if (q.attach_mode == XDP_ATTACHED_MULTI) {
		/* Two programs in two modes: report the one frames meet first. */
		st->prog_id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
		st->mode = q.drv_prog_id ? "native" : "generic";
		st->mode_flag = q.drv_prog_id ? XDP_FLAGS_DRV_MODE : XDP_FLAGS_SKB_MODE;
	} else {
		st->mode = "none";
	}
	return 0;
}

uint32_t ta_prog_id(int prog_fd, char *name, size_t size)
{
	struct bpf_prog_info info = { 0 };
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(prog_fd, &info, &len))
		return 0;
	if (name)
		snprintf(name, size, "%s", info.name);
	return info.id;
}
