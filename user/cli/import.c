// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import.c - 'policy import FORMAT FILE...': a platform's firewall as a
 * tap-accel policy, printed (lib/import/). One file per format:
 * import_pve.c, import_nwfilter.c, import_openstack.c.
 */
#include "verbs.h"

static const struct command *const import_cmds[] = {
	&import_nwfilter_cmd,
	&import_pve_cmd,
	&import_openstack_cmd,
	NULL,
};

const struct command import_cmd = {
	.name = "import",
	.summary = "a platform's firewall (Proxmox VE, libvirt nwfilter, OpenStack) as a policy",
	.sub = import_cmds,
};
