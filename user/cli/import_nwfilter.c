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

#include "lib/import/nwfilter.h"
#include "verbs.h"

#define MAX_PARAMS 256
#define MAX_WARNINGS 256

struct nwfilter_opts {
	const char *dir;
	struct opt_strings params;
	bool check;
};

static const struct nwfilter_opts nwfilter_defaults = {
	.dir = "/etc/libvirt/nwfilter",
};

/* The warnings, on stderr as they come (as every warning of the CLI) and
 * kept for --json. */
struct warnings {
	char *text[MAX_WARNINGS];
	size_t n;
};

static void keep_warning(void *ctx, const char *msg)
{
	struct warnings *w = ctx;

	fprintf(stderr, "tap-accel: warning: %s\n", msg);
	if (w->n < MAX_WARNINGS)
		w->text[w->n++] = strdup(msg);
}

static void print_json(const char *file, const struct ta_import *im, const struct warnings *w,
		       bool check)
{
	jw_object_begin(&json);
	jw_kv_string(&json, "format", "nwfilter");
	jw_kv_string(&json, "file", file);
	if (!check)
		jw_kv_string(&json, "policy", im->text);
	jw_kv_u64(&json, "statements", im->nr_statements);
	jw_key(&json, "warnings");
	jw_array_begin(&json);
	for (size_t i = 0; i < w->n; i++)
		jw_string(&json, w->text[i] ? w->text[i] : "");
	jw_array_end(&json);
	jw_object_end(&json);
	jw_end_document(&json);
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
	struct ta_import im = { .warn = keep_warning };
	struct warnings w = { .n = 0 };
	char *pbuf[MAX_PARAMS] = { NULL };
	struct ta_error e;
	int ret = 0;

	im.warn_ctx = &w;
	/* --param NAME=VALUE, given once for each or as a list NAME=VALUE,... */
	for (size_t i = 0; i < o->params.nr && i < MAX_PARAMS && ret >= 0; i++) {
		pbuf[i] = strdup(o->params.values[i]);
		if (!pbuf[i])
			ret = ta_error_errno(&e, ENOMEM, "--param");
		else
			ret = ta_nwf_parse_params(pbuf[i], params + in.nr_params,
						  MAX_PARAMS - in.nr_params, &e);
		if (ret > 0)
			in.nr_params += (size_t)ret;
	}
	if (ret < 0) {
		ret = report_error(&e);
		goto out;
	}
	ret = ta_import_open(&im, &e);
	if (!ret)
		ret = ta_import_nwfilter(&in, &im, &e);
	if (!ret)
		ret = ta_import_close(&im, argv[0], &e);
	if (ret) {
		ret = report_error(&e);
	} else if (cli.json) {
		print_json(argv[0], &im, &w, o->check);
	} else if (o->check) {
		printf("%s: ok, %u statements, %u warnings\n", argv[0], im.nr_statements,
		       im.nr_warnings);
	} else {
		fwrite(im.text, 1, im.len, stdout);
	}
	ret = ret ?: EXIT_OK;
out:
	ta_import_free(&im);
	for (size_t i = 0; i < w.n; i++)
		free(w.text[i]);
	for (size_t i = 0; i < MAX_PARAMS; i++)
		free(pbuf[i]);
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
