/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * fw_pve.h - the firewall table's Proxmox VE row: one VM's firewall
 * (VMID.fw, with cluster.fw and VMID.conf beside it) as tap-accel enforces
 * it (`policy import pve`, through the library) and as an nftables ruleset
 * in the shape Proxmox VE writes (per-guest chains, group chains jumped to,
 * ipsets as sets, the conntrack verdicts first).
 */
#ifndef TA_BENCH_FW_PVE_H
#define TA_BENCH_FW_PVE_H

#include <limits.h>
#include <stdio.h>

#include "lib/base/error.h"

struct fw_pve {
	char fw[PATH_MAX];	/* DIR/VMID.fw */
	char cluster[PATH_MAX]; /* DIR/cluster.fw */
	char conf[PATH_MAX];	/* DIR/VMID.conf, or "" where there is none */
	unsigned int vmid;
};

/* The files of `fw_path` (DIR/VMID.fw; cluster.fw beside it, and
 * VMID.conf if it is there). 0, or -errno with e naming what is missing. */
int fw_pve_find(const char *fw_path, struct fw_pve *p, struct ta_error *e);

/*
 * The translated policy for the bench's taps: its guard lines left out
 * (the bench's guests stand in for the clients the VM's rules let in, from
 * their addresses), its `pass out` as `forward out` with `fdb` (the
 * same verdict where both guests are on one bridge; tap-accel redirects
 * instead of passing to it). 0 or -errno with e.
 */
int fw_pve_policy(FILE *out, const struct fw_pve *p, const char *fdb, struct ta_error *e);

/*
 * The nftables ruleset (inet, br_netfilter) of the VM's firewall for
 * guests whose addresses are `guests` (comma-separated, nft syntax):
 * frames from them go to the VM's out chain, frames to them to its in
 * chain. The VM's ipfilter and macfilter are left out as the policy's
 * guard is. 0 or -errno with e (a construct it does not write).
 */
int fw_pve_nft(FILE *out, const struct fw_pve *p, const char *guests, struct ta_error *e);

#endif /* TA_BENCH_FW_PVE_H */
