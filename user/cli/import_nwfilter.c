// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import_nwfilter.c - 'policy import nwfilter FILTER.xml...': a libvirt
 * nwfilter filter, with the filters it references, as a tap-accel policy
 * (lib/import/nwfilter.c).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "lib/import/nwfilter.h"

#define MAX_PARAMS 256

struct nwfilter_opts {
	const char *dir;
	struct opt_strings params;
	bool check;
};

static const struct nwfilter_opts nwfilter_defaults = {
	.dir = "/etc/libvirt/nwfilter",
};

static int translate_nwfilter(const void *input, struct ta_import *im, struct ta_error *e)
{
	return ta_import_nwfilter(input, im, e);
}

static int run_nwfilter(const void *opts, int argc, char **argv)
{
	const struct nwfilter_opts *o = opts;
	struct ta_nwf_param params[MAX_PARAMS];
	struct ta_nwf_input in = {
		.files = (const char *const *)argv,
		.nr_files = (size_t)argc,
		.dir = o->dir && *o->dir ? o->dir : NULL,
		.params = params,
	};
	char *pbuf[MAX_PARAMS] = { NULL };
	struct ta_error e;
	int ret = 0;

	if (o->params.nr > MAX_PARAMS)
		ret = ta_error_input(&e, E2BIG, "policy import nwfilter: more than %d --param",
				     MAX_PARAMS);
	/* --param NAME=VALUE, given once for each or as a list NAME=VALUE,... */
	for (size_t i = 0; i < o->params.nr && ret >= 0; i++) {
		pbuf[i] = strdup(o->params.values[i]);
		if (!pbuf[i])
			ret = ta_error_errno(&e, ENOMEM, "--param");
		else
			ret = ta_nwf_parse_params(pbuf[i], params + in.nr_params,
						  MAX_PARAMS - in.nr_params, &e);
		if (ret > 0)
			in.nr_params += (size_t)ret;
	}
	if (ret < 0)
		ret = report_error(&e);
	else
		ret = import_run("nwfilter", translate_nwfilter, &in, o->check, argc, argv);
	for (size_t i = 0; i < MAX_PARAMS; i++)
		free(pbuf[i]);
	free(o->params.values);
	return ret;
}

static const struct option_spec nwfilter_options[] = {
	{ "dir", 0, OPT_STRING, offsetof(struct nwfilter_opts, dir), "DIR[:DIR...]",
	  "where <filterref filter='X'> is found as X.xml when no FILE defines X,\n"
	  "the first folder that has it (default /etc/libvirt/nwfilter; empty:\n"
	  "nowhere)", NULL, 0, 0 },
	{ "param", 0, OPT_STRINGS, offsetof(struct nwfilter_opts, params), "NAME=VALUE[,...]",
	  "a parameter a domain's <filterref> gives ($MAC, $IP, ...); once for\n"
	  "each, or several in one (MAC=...,IP=...); a NAME given more than once\n"
	  "is a list (IP=10.0.0.2,IP=10.0.0.3)", NULL, 0, 0 },
	{ "check", 0, OPT_FLAG, offsetof(struct nwfilter_opts, check), NULL,
	  "only validate: print 'FILE: ok, N statements, N warnings'", NULL, 0, 0 },
	OPTIONS_END,
};

const struct command import_nwfilter_cmd = {
	.name = "nwfilter",
	.args = "FILTER.xml...",
	.summary = "a libvirt nwfilter filter (with the filters it references) as a policy",
	.help = "Print the policy that enforces libvirt nwfilter FILTER.xml (the first\n"
		"file) for one interface; the other files define filters it references.\n"
		"The anti-spoofing filters become a guard; each statement names the\n"
		"file and line it came from. What tap-accel cannot enforce the same\n"
		"way is an error naming the element (docs/guests.md).\n",
	.options = nwfilter_options,
	.opts_size = sizeof(struct nwfilter_opts),
	.defaults = &nwfilter_defaults,
	.min_args = 1,
	.max_args = -1,
	.run = run_nwfilter,
};
