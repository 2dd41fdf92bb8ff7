// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * import.c - the text the importers write, with where each line came
 * from, and the check that it is a policy 'policy load' takes.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../policy/parse.h"
#include "import.h"

int ta_import_open(struct ta_import *im, struct ta_error *e)
{
	void (*warn)(void *, const char *) = im->warn;
	void *warn_ctx = im->warn_ctx;

	memset(im, 0, sizeof(*im));
	im->warn = warn;
	im->warn_ctx = warn_ctx;
	im->out = open_memstream(&im->text, &im->len);
	if (!im->out)
		return ta_error_errno(e, errno, "cannot start a translation");
	return 0;
}

void ta_import_statement(struct ta_import *im, const char *where, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(im->out, fmt, ap);
	va_end(ap);
	fprintf(im->out, "  # %s\n", where);
	im->nr_statements++;
}

void ta_import_comment(struct ta_import *im, const char *fmt, ...)
{
	va_list ap;

	fputs("# ", im->out);
	va_start(ap, fmt);
	vfprintf(im->out, fmt, ap);
	va_end(ap);
	fputc('\n', im->out);
}

void ta_import_warn(struct ta_import *im, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	im->nr_warnings++;
	if (im->warn)
		im->warn(im->warn_ctx, msg);
	else
		fprintf(stderr, "tap-accel: warning: %s\n", msg);
}

int ta_import_close(struct ta_import *im, const char *name, struct ta_error *e)
{
	struct ta_policy_spec spec;
	struct ta_error perr;

	if (fclose(im->out)) {
		im->out = NULL;
		return ta_error_errno(e, errno, "cannot end the translation of %s", name);
	}
	im->out = NULL;
	if (ta_policy_parse(im->text, im->len, name, &spec, &perr))
		return ta_error_input(e, EPROTO,
				      "the translation of %s is not a valid policy: %s", name,
				      perr.text);
	ta_policy_spec_free(&spec);
	return 0;
}

void ta_import_free(struct ta_import *im)
{
	if (im->out)
		fclose(im->out);
	free(im->text);
	im->out = NULL;
	im->text = NULL;
	im->len = 0;
}
