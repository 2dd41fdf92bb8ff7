/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * import.h - what the importers share. Each translates a platform's
 * firewall (Proxmox VE, libvirt nwfilter, OpenStack security groups) into
 * the policy language (docs/policy.md) as text: every statement carries a
 * comment naming the file and line, or the element, it came from, so an
 * operator can read the policy against the platform's configuration.
 *
 * A construct the platform itself skips (and warns about) is skipped with
 * a warning naming its place; a valid one tap-accel cannot enforce the
 * same way is an error naming its place and the construct, never a rule
 * left out or widened.
 */
#ifndef TA_IMPORT_H
#define TA_IMPORT_H

#include <stdarg.h>
#include <stdio.h>

#include "../base/error.h"

struct ta_import {
	FILE *out;	/* the text, written into `text` (open_memstream) */
	char *text;	/* after ta_import_close(): NUL-ended */
	size_t len;
	unsigned int nr_statements;
	unsigned int nr_warnings;
	/* Where warnings go: NULL prints "tap-accel: warning: MSG" on stderr. */
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
};

/* Start an empty translation. 0 or -errno (out of memory). */
int ta_import_open(struct ta_import *im, struct ta_error *e);

/* One statement of the policy, "STATEMENT  # WHERE". */
void ta_import_statement(struct ta_import *im, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A comment line of its own, "# TEXT" (a section, what a file said). */
void ta_import_comment(struct ta_import *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A warning: a construct skipped as the platform skips it. Start it with
 * its place, "FILE:LINE: ...". */
void ta_import_warn(struct ta_import *im, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * End the text and check it with the policy parser, as 'policy check'
 * would, so that an importer never hands on a policy 'policy load'
 * refuses: an error there is the importer's (EPROTO, "the translation of
 * NAME is not a valid policy: ..."). 0 or -errno; `text` and `len` hold
 * the policy either way until ta_import_free().
 */
int ta_import_close(struct ta_import *im, const char *name, struct ta_error *e);

void ta_import_free(struct ta_import *im);

#endif /* TA_IMPORT_H */
