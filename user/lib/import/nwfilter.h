/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nwfilter.h - a libvirt nwfilter filter (the XML of /etc/libvirt/nwfilter,
 * `virsh nwfilter-dumpxml`), with the filters it references and the
 * parameters a domain's <filterref> gives it ($MAC, $IP, ...), as the
 * policy of the one interface it filters. docs/guests.md says what is
 * enforced, what is refused and how it differs from libvirt's own rules.
 */
#ifndef TA_IMPORT_NWFILTER_H
#define TA_IMPORT_NWFILTER_H

#include <stddef.h>

#include "import.h"

/* A parameter of the filter: NAME=VALUE; a name given several times is a
 * list (libvirt's $IP with many addresses: one rule per value). */
struct ta_nwf_param {
	const char *name;
	const char *value;
};

struct ta_nwf_input {
	const char *const *files; /* files[0] is translated; the others define
				   * filters it references, by their name */
	size_t nr_files;
	const char *dir;	  /* where <filterref filter='X'> is found as
				   * X.xml when no file defines X; NULL: none */
	const struct ta_nwf_param *params;
	size_t nr_params;
};

/* Largest filter file read (libvirt's shipped ones are under 2 KiB). */
#define TA_NWF_MAX_FILE (1 << 20)
/* Deepest chain of <filterref>s followed. */
#define TA_NWF_MAX_DEPTH 16

/*
 * Translate `in` into `im` (opened by the caller, closed by it with
 * ta_import_close()). The anti-spoofing filters (no-mac-spoofing,
 * no-ip-spoofing, no-arp-spoofing), recognized by their rules, become
 * `guard` lines. 0, or -errno with "FILE:LINE: <element>: ..." in `e`.
 */
int ta_import_nwfilter(const struct ta_nwf_input *in, struct ta_import *im,
		       struct ta_error *e);

/* Split "NAME=VALUE,NAME=VALUE..." (--param) into `out` (at most `max`),
 * pointing into `buf`, which is modified. The count, or -errno. */
int ta_nwf_parse_params(char *buf, struct ta_nwf_param *out, size_t max, struct ta_error *e);

#endif /* TA_IMPORT_NWFILTER_H */
