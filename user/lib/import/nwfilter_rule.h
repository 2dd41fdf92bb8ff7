/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nwfilter_rule.h - one <rule>, its parameters substituted, as tap-accel
 * statements. Private to nwfilter*.c.
 */
#ifndef TA_IMPORT_NWFILTER_RULE_H
#define TA_IMPORT_NWFILTER_RULE_H

#include "nwfilter_load.h"
#include "nwfilter_match.h"

#define NWF_MAX_STMTS 2048

struct nwf_out {
	struct nwf_stmt *l2, *l3;
	size_t nr_l2, nr_l3;
	int *l3_prio; /* the priority of each l3 statement's rule, to sort them */
	unsigned int *l3_seq;
};

/*
 * Translate rule `r` of a chain whose frames `family` describes into
 * statements appended to `out` (the ebtables layer's to l2, iptables' to
 * l3). An accept that tests what tap-accel cannot match in ARP's payload
 * is left out with a warning (narrower); what else cannot be matched, a
 * `return`, or a missing parameter is an error. 0 or -errno.
 */
int nwf_rule(const struct nwf_rule *r, const struct nwf_match *family, struct nwf_out *out,
	     struct ta_import *im, struct ta_error *e);

/* The values of `ref` ("$NAME" or a literal) in the rule's scope: their
 * count (0 with the error set). */
size_t nwf_values(const struct nwf_rule *r, const char *attr, const char *ref,
		  const char **values, size_t max, struct ta_error *e);

#endif /* TA_IMPORT_NWFILTER_RULE_H */
