/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pve.h - a Proxmox VE VM's firewall (/etc/pve/firewall/VMID.fw, with the
 * datacenter's cluster.fw for its groups, aliases and ipsets, and the VM's
 * /etc/pve/qemu-server/VMID.conf for its MACs) as the policy of one of its
 * network interfaces, netN, whose tap is tap<VMID>i<N>. docs/proxmox.md
 * says what is enforced, what is refused and how it differs.
 */
#ifndef TA_IMPORT_PVE_H
#define TA_IMPORT_PVE_H

#include <stdbool.h>
#include <stdint.h>

#include "import.h"

struct ta_pve_vm {
	const char *fw_path;	  /* VMID.fw; NULL: the VM has none */
	const char *cluster_path; /* cluster.fw, or NULL */
	const char *conf_path;	  /* VMID.conf (netN's MAC, firewall=1), or NULL */
	unsigned int iface;	  /* N of netN */
};

/*
 * Translate the firewall of `vm`'s netN into `im` (opened by the caller,
 * closed by it with ta_import_close()). The guard its macfilter and
 * ipfilter options imply is written as `guard` lines. A VM or interface
 * whose firewall is off translates into a policy that passes everything,
 * as Proxmox then filters nothing. 0, or -errno with the place
 * ("FILE:LINE: ...") and the construct in `e`.
 */
int ta_import_pve(const struct ta_pve_vm *vm, struct ta_import *im, struct ta_error *e);

/* The interfaces of a VM's configuration (/etc/pve/qemu-server/VMID.conf,
 * or a container's /etc/pve/lxc/VMID.conf): its current netN lines, not
 * those of its snapshots. */
#define TA_PVE_MAX_NETS 32

struct ta_pve_net {
	bool present;	/* the configuration has netN */
	bool firewall;	/* firewall=1 */
	bool has_mac;
	uint8_t mac[6];
	unsigned int line;
};

struct ta_pve_conf {
	struct ta_pve_net net[TA_PVE_MAX_NETS];
};

/* Read `path` (a line netN that cannot be read is an error naming
 * FILE:LINE; other keys are not looked at). 0 or -errno with `e`. */
int ta_pve_conf_read(const char *path, struct ta_pve_conf *conf, struct ta_error *e);
int ta_pve_conf_parse(const char *text, size_t len, const char *path, struct ta_pve_conf *conf,
		      struct ta_error *e);

#endif /* TA_IMPORT_PVE_H */
