// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import_pve.c - 'policy import pve VMID.fw': a Proxmox VE VM's firewall
 * as the tap-accel policy of one of its interfaces (lib/import/pve.h,
 * docs/proxmox.md), printed; or, with --check, only whether it translates.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/import/pve.h"
#include "verbs.h"

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

/* The warnings, kept for --json and printed on stderr as they come. */
struct pve_warnings {
	char **v;
	unsigned int n;
};

static void keep_warning(void *ctx, const char *msg)
{
	struct pve_warnings *w = ctx;
	char **v = realloc(w->v, (w->n + 1) * sizeof(*v));

	fprintf(stderr, "tap-accel: warning: %s\n", msg);
	if (!v)
		return;
	w->v = v;
	if ((w->v[w->n] = strdup(msg)))
		w->n++;
}

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

static void print_result(const char *file, const struct ta_import *im,
			 const struct pve_warnings *w, bool check)
{
	if (cli.json) {
		jw_object_begin(&json);
		jw_kv_string(&json, "format", "pve");
		jw_kv_string(&json, "file", file);
		if (!check)
			jw_kv_string(&json, "policy", im->text);
		jw_kv_u64(&json, "statements", im->nr_statements);
		jw_key(&json, "warnings");
		jw_array_begin(&json);
		for (unsigned int i = 0; i < w->n; i++)
			jw_string(&json, w->v[i]);
		jw_array_end(&json);
		jw_object_end(&json);
		jw_end_document(&json);
	} else if (check) {
		printf("%s: ok, %u statements, %u warnings\n", file, im->nr_statements,
		       im->nr_warnings);
	} else {
		fputs(im->text, stdout);
	}
}

static int run_pve(const void *opts, int argc, char **argv)
{
	const struct pve_opts *o = opts;
	struct pve_warnings w = { 0 };
	struct ta_import im = { .warn = keep_warning, .warn_ctx = &w };
	struct ta_pve_vm vm = { .fw_path = argv[0], .cluster_path = o->cluster,
				.conf_path = o->conf };
	struct ta_error e;
	int ret;

	(void)argc;
	if (parse_iface(o->iface, &vm.iface))
		return user_error("policy import pve: --iface is netN, N from 0 to %d, not '%s'",
				  TA_PVE_MAX_NETS - 1, o->iface);
	ret = ta_import_open(&im, &e);
	if (!ret)
		ret = ta_import_pve(&vm, &im, &e);
	if (!ret)
		ret = ta_import_close(&im, argv[0], &e);
	if (!ret)
		print_result(argv[0], &im, &w, o->check);
	ta_import_free(&im);
	for (unsigned int i = 0; i < w.n; i++)
		free(w.v[i]);
	free(w.v);
	return ret ? report_error(&e) : EXIT_OK;
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
