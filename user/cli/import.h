/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * import.h - what the formats of 'policy import' share (import.c).
 */
#ifndef TA_CLI_IMPORT_H
#define TA_CLI_IMPORT_H

#include "lib/import/import.h"
#include "verbs.h"

/* A format's translation of `input` into `im` (lib/import/). */
typedef int (*import_fn)(const void *input, struct ta_import *im, struct ta_error *e);

/*
 * Translate and print: the policy text on stdout; with `check` only
 * "FILE: ok, N statements, N warnings"; with --json one object (format,
 * file, files when there are several, policy unless `check`, statements,
 * warnings). Warnings go to stderr as they come, errors through
 * report_error(). argv[0] names the translation. The exit code.
 */
int import_run(const char *format, import_fn translate, const void *input, bool check,
	       int argc, char **argv);

#endif /* TA_CLI_IMPORT_H */
