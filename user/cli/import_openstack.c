// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import_openstack.c - 'policy import openstack RULES.json...': OpenStack
 * security groups (lib/import/openstack.h) as a policy, printed.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/import/openstack.h"
#include "verbs.h"

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

/* The warnings, on stderr as they come (as every warning of the CLI) and
 * kept for --json. */
struct warnings {
	char **text;
	size_t nr;
};

static void keep_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;
	char **t;

	fprintf(stderr, "tap-accel: warning: %s\n", msg);
	t = realloc(w->text, (w->nr + 1) * sizeof(*t));
	if (!t)
		return;
	w->text = t;
	w->text[w->nr] = strdup(msg);
	if (w->text[w->nr])
		w->nr++;
}

static void print_json(const struct ta_import *im, const struct warnings *w, int argc,
		       char **argv)
{
	jw_object_begin(&json);
	jw_kv_string(&json, "format", "openstack");
	jw_kv_string(&json, "file", argv[0]);
	jw_key(&json, "files");
	jw_array_begin(&json);
	for (int i = 0; i < argc; i++)
		jw_string(&json, argv[i]);
	jw_array_end(&json);
	jw_kv_string(&json, "policy", im->text);
	jw_kv_u64(&json, "statements", im->nr_statements);
	jw_key(&json, "warnings");
	jw_array_begin(&json);
	for (size_t i = 0; i < w->nr; i++)
		jw_string(&json, w->text[i]);
	jw_array_end(&json);
	jw_object_end(&json);
	jw_end_document(&json);
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
	struct warnings w = { 0 };
	struct ta_import im = { 0 };
	struct ta_error e;
	int ret;

	im.warn = keep_warning;
	im.warn_ctx = &w;
	ret = ta_import_open(&im, &e);
	if (!ret)
		ret = ta_import_openstack(&in, &im, &e);
	if (!ret)
		ret = ta_import_close(&im, argv[0], &e);
	if (ret)
		ret = report_error(&e);
	else if (cli.json)
		print_json(&im, &w, argc, argv);
	else if (o->check)
		printf("%s: ok, %u statements, %u warnings\n", argv[0], im.nr_statements,
		       im.nr_warnings);
	else
		fwrite(im.text, 1, im.len, stdout);
	ta_import_free(&im);
	for (size_t i = 0; i < w.nr; i++)
		free(w.text[i]);
	free(w.text);
	free(o->remote_groups.values);
	return ret ? ret : EXIT_OK;
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
