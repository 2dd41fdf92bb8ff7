// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import_openstack.c - 'policy import openstack RULES.json...': OpenStack
 * security groups (lib/import/openstack.h) as a policy, printed.
 */
#include <stddef.h>
#include <stdlib.h>

#include "import.h"
#include "lib/import/openstack.h"

struct import_openstack_opts {
	const char *port;
	struct opt_strings remote_groups;
	bool check;
};

static const struct option_spec import_openstack_opts[] = {
	{ "port", 0, OPT_STRING, offsetof(struct import_openstack_opts, port), "PORT.json",
	  "the port as `openstack port show -f json` prints it: its MAC, fixed IPs\n"
	  "and allowed address pairs become the guard; only its groups' rules apply", NULL, 0, 0 },
	{ "remote-group", 0, OPT_STRINGS, offsetof(struct import_openstack_opts, remote_groups),
	  "ID=PREFIX[,PREFIX...]",
	  "the addresses of remote security group ID's member ports (fixed IPs\n"
	  "and allowed address pairs), or address group ID's prefixes; once per\n"
	  "group", NULL, 0, 0 },
	{ "check", 0, OPT_FLAG, offsetof(struct import_openstack_opts, check), NULL,
	  "only validate: print 'FILE: ok, N statements, N warnings'", NULL, 0, 0 },
	OPTIONS_END,
};

static int translate_openstack(const void *input, struct ta_import *im, struct ta_error *e)
{
	return ta_import_openstack(input, im, e);
}

static int run_import_openstack(const void *opts, int argc, char **argv)
{
	const struct import_openstack_opts *o = opts;
	struct ta_openstack_input in = {
		.rule_paths = (const char *const *)argv,
		.nr_rule_paths = (size_t)argc,
		.port_path = o->port,
		.remote_groups = o->remote_groups.values,
		.nr_remote_groups = o->remote_groups.nr,
	};
	int ret = import_run("openstack", translate_openstack, &in, o->check, argc, argv);

	free(o->remote_groups.values);
	return ret;
}

const struct command import_openstack_cmd = {
	.name = "openstack",
	.args = "RULES.json...",
	.summary = "OpenStack security groups (openstack security group rule list -f json)",
	.help = "Print the policy that enforces the security group rules in RULES.json:\n"
		"what `openstack security group rule list --long -f json` prints (or\n"
		"`security group show GROUP -f json`, `rule show ID -f json`, the API's\n"
		"answer). Several files give their union, as a port with several\n"
		"groups. Each statement names the file and the rule ID it came from; a\n"
		"rule tap-accel cannot enforce as Neutron does is an error naming it.\n"
		"docs/guests.md, OpenStack.\n",
	.options = import_openstack_opts,
	.opts_size = sizeof(struct import_openstack_opts),
	.min_args = 1,
	.max_args = -1,
	.run = run_import_openstack,
};
