/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * firewall.h - `tap-accel-bench --firewall`: one security group enforced
 * by tap-accel and by nftables as hosts write it today (taps in a Linux
 * bridge, br_netfilter, an inet table), side by side on this host's
 * kernel and stock tun.
 */
#ifndef TA_BENCH_FIREWALL_H
#define TA_BENCH_FIREWALL_H

#include <stdbool.h>

#include "lib/base/error.h"

#define FW_MAX_ROWS 16
#define FW_MAX_CONNS 2000000
#define FW_MAX_REPS 32

struct fw_opts {
	/* rows: rules before the flow's own x connections in the table */
	unsigned int rules[FW_MAX_ROWS];
	unsigned long conns[FW_MAX_ROWS];
	int nr_rows;
	unsigned long frames; /* per repetition of a cell */
	int reps;
	bool json, pretty;
	const char *out_dir;
	/* the taps' device node: /dev/net/tun, or tapx's (--drivers tapx) */
	const char *tap_dev;
	bool tapx;
	/* nftables in the bridge family with its own conntrack
	 * (nf_conntrack_bridge, Linux 5.3+) instead of br_netfilter and an
	 * inet table */
	bool nft_bridge;
	/* the instruction counter's port in a QEMU guest (--icount, else
	 * $vmicount): instructions per frame beside ns */
	const char *icount_port;
	/* --pve DIR/VMID.fw: a row more, that Proxmox VE VM's firewall (with
	 * cluster.fw and VMID.conf beside it) translated by tap-accel and in
	 * Proxmox VE's nftables shape; NULL: none */
	const char *pve;
};

/* quick: 1, 100 and 1000 rules at 10^3 connections, then 1 rule at 10^5
 * and 10^6; full: every pair of those. */
void fw_opts_default(struct fw_opts *o, bool full);
/* --conns "1000,100000": the connection counts, each with every rule
 * count of --rules (or the default's). 0, or -EINVAL with e said. */
int fw_parse_grid(struct fw_opts *o, const char *rules, const char *conns, struct ta_error *e);

/* Measure, print the table (stderr with --json, which puts the JSON on
 * stdout) and write the results folder. 0, or -errno said on stderr. */
int fw_run(const struct fw_opts *o);

#endif /* TA_BENCH_FIREWALL_H */
