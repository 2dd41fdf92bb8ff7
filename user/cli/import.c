// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import.c - 'policy import FORMAT FILE...': a platform's firewall as a
 * tap-accel policy, printed (lib/import/). One file per format builds its
 * input and options (import_pve.c, import_nwfilter.c, import_openstack.c);
 * what they all do around the translation is here.
 */
#include <stdlib.h>
#include <string.h>

#include "import.h"

/* The warnings: on stderr as they come, as every warning of the CLI, and
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

static void print_json(const char *format, const struct ta_import *im,
		       const struct warnings *w, bool check, int argc, char **argv)
{
	jw_object_begin(&json);
	jw_kv_string(&json, "format", format);
	jw_kv_string(&json, "file", argv[0]);
	if (argc > 1) {
		jw_key(&json, "files");
		jw_array_begin(&json);
		for (int i = 0; i < argc; i++)
			jw_string(&json, argv[i]);
		jw_array_end(&json);
	}
	if (!check)
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

int import_run(const char *format, import_fn translate, const void *input, bool check,
	       int argc, char **argv)
{
	struct warnings w = { 0 };
	struct ta_import im = { .warn = keep_warning, .warn_ctx = &w };
	struct ta_error e;
	int ret;

	ret = ta_import_open(&im, &e);
	if (!ret)
		ret = translate(input, &im, &e);
	if (!ret)
		ret = ta_import_close(&im, argv[0], &e);
	if (ret)
		ret = report_error(&e);
	else if (cli.json)
		print_json(format, &im, &w, check, argc, argv);
	else if (check)
		printf("%s: ok, %u statements, %u warnings\n", argv[0], im.nr_statements,
		       im.nr_warnings);
	else
		fwrite(im.text, 1, im.len, stdout);
	ta_import_free(&im);
	for (size_t i = 0; i < w.nr; i++)
		free(w.text[i]);
	free(w.text);
	return ret ? ret : EXIT_OK;
}

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
