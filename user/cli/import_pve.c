// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import_pve.c - 'policy import pve VMID.fw': a Proxmox VE VM's firewall
 * as the tap-accel policy of one of its interfaces (lib/import/pve.h,
 * docs/proxmox.md), printed; or, with --check, only whether it translates.
 */
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "lib/import/pve.h"

struct pve_opts {
	const char *cluster;
	const char *conf;
	const char *iface;
	bool check;
};

static const struct option_spec pve_options[] = {
	{ "cluster", 0, OPT_STRING, offsetof(struct pve_opts, cluster), "FILE",
	  "the datacenter's cluster.fw: its security groups, aliases and ipsets,\n"
	  "and whether the firewall is on", NULL, 0, 0 },
	{ "conf", 0, OPT_STRING, offsetof(struct pve_opts, conf), "FILE",
	  "the VM's VMID.conf: the interface's MAC (macfilter) and firewall=1", NULL, 0, 0 },
	{ "iface", 0, OPT_STRING, offsetof(struct pve_opts, iface), "netN",
	  "the interface whose policy to make (net0 if not given)", NULL, 0, 0 },
	{ "check", 0, OPT_FLAG, offsetof(struct pve_opts, check), NULL,
	  "only check that the files translate: print FILE: ok, N statements, N warnings",
	  NULL, 0, 0 },
	OPTIONS_END,
};

static int parse_iface(const char *s, unsigned int *n)
{
	char *end;
	unsigned long v;

	if (!s) {
		*n = 0;
		return 0;
	}
	if (strncmp(s, "net", 3) || !s[3] || s[3] < '0' || s[3] > '9')
		return -1;
	v = strtoul(s + 3, &end, 10);
	if (*end || v >= TA_PVE_MAX_NETS)
		return -1;
	*n = v;
	return 0;
}

static int translate_pve(const void *input, struct ta_import *im, struct ta_error *e)
{
	return ta_import_pve(input, im, e);
}

static int run_pve(const void *opts, int argc, char **argv)
{
	const struct pve_opts *o = opts;
	struct ta_pve_vm vm = { .fw_path = argv[0], .cluster_path = o->cluster,
				.conf_path = o->conf };

	if (parse_iface(o->iface, &vm.iface))
		return user_error("policy import pve: --iface is netN, N from 0 to %d, not '%s'",
				  TA_PVE_MAX_NETS - 1, o->iface);
	return import_run("pve", translate_pve, &vm, o->check, argc, argv);
}

const struct command import_pve_cmd = {
	.name = "pve",
	.args = "VMID.fw",
	.summary = "a Proxmox VE VM's firewall (VMID.fw, cluster.fw) as the policy of one interface",
	.help = "Print the tap-accel policy that enforces the Proxmox VE firewall of VMID.fw\n"
		"for the VM's interface netN (tap<VMID>i<N>): its options, [RULES] with\n"
		"macros and cluster.fw's security groups, aliases and ipsets, and the guard\n"
		"its macfilter and ipfilter options imply. Each statement names the line it\n"
		"came from. A rule Proxmox VE skips is skipped with a warning; a construct\n"
		"tap-accel cannot enforce the same way is an error (docs/proxmox.md).\n",
	.options = pve_options,
	.opts_size = sizeof(struct pve_opts),
	.min_args = 1,
	.max_args = 1,
	.run = run_pve,
};
