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

#endif /* TA_IMPORT_PVE_H */
