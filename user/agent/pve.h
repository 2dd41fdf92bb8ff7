/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pve.h - agent.conf's `source pve DIR` (docs/agent.md): the taps of
 * Proxmox VE's VMs, tap<VMID>i<N>, bound to the translation of the VM's
 * firewall (DIR/firewall/VMID.fw with DIR/firewall/cluster.fw, and
 * DIR/qemu-server/VMID.conf) for its interface netN, as policy
 * pve-VMID-netN with the guard the translation gives; translated again
 * when those files change.
 */
#ifndef TA_AGENT_PVE_H
#define TA_AGENT_PVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/state.h"
#include "lib/plane/plane.h"

/* Whether `ifname` is a Proxmox VM's tap, tap<VMID>i<N>, and which. */
bool agent_pve_tap(const char *ifname, uint32_t *vmid, uint32_t *iface);

/* What a tap of a VM gets, worked out in a reconcile pass. */
struct agent_pve_want {
	uint32_t policy;		   /* its index on the plane */
	const struct ta_guard_spec *guard; /* NULL: none */
	const char *by;			   /* "source pve DIR: VM 100 net0", for the log */
};

/*
 * The policy of VM `vmid`'s interface `iface`, translated on first sight
 * and loaded (or replaced) on `pl` when the plane lacks its last good
 * translation. 0, or -1 with why in `why`: no translation of it was ever
 * good, or the load failed (said).
 */
int agent_pve_want(struct agent *a, struct ta_plane *pl, uint32_t vmid, uint32_t iface,
		   struct agent_pve_want *w, char *why, size_t size);

/*
 * Translate again what changed (inotify said so, or the files' size,
 * mtime or inode differ), and every VM's files at a slower pace whatever
 * they say; a translation that differs asks for a full pass (a->full),
 * and so does a VM none of whose taps is here any more, for
 * agent_pve_sweep().
 */
void agent_pve_check(struct agent *a);
/* The inotify descriptor to poll, or -1; ms until the next check, -1. */
int agent_pve_fd(const struct agent *a);
int agent_pve_timeout(const struct agent *a);
/* In a full pass: unload the policies of VMs forgotten. */
void agent_pve_sweep(struct agent *a, struct ta_plane *pl);
/* The configuration changed: if `source pve` names another folder (or
 * none), forget every VM. */
void agent_pve_sync(struct agent *a);
void agent_pve_free(struct agent *a);

/* `agent --check`: every VM interface of DIR/qemu-server translated as
 * the agent would; what fails is a warning (the agent runs all the same,
 * without binding that VM's taps), with its FILE:LINE. */
void agent_pve_check_dir(const char *dir, struct agent_report *r);

#endif /* TA_AGENT_PVE_H */
