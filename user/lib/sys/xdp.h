/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* xdp.h - what XDP program an interface has, and which program a fd is. */
#ifndef TA_XDP_H
#define TA_XDP_H

#include <stddef.h>
#include <stdint.h>

struct ta_xdp_state {
	uint32_t prog_id;   /* 0: none */
	uint32_t mode_flag; /* XDP_FLAGS_DRV_MODE, XDP_FLAGS_SKB_MODE, ... */
	const char *mode;   /* "native", "generic", "offload" or "none" */
};
/* The XDP program of `ifindex` in this network namespace; 0 or -errno. */
int ta_xdp_query(unsigned int ifindex, struct ta_xdp_state *st);
/* The id of a program (and its name, if `name`); 0 if unknown. */
uint32_t ta_prog_id(int prog_fd, char *name, size_t size);

#endif /* TA_XDP_H */
