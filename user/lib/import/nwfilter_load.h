/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nwfilter_load.h - the filters of one translation read (libxml2, safely:
 * no network, no DTD, no entities, bounded sizes) and their <filterref>s
 * followed, into chains of rules in libvirt's order. Private to
 * nwfilter*.c.
 */
#ifndef TA_IMPORT_NWFILTER_LOAD_H
#define TA_IMPORT_NWFILTER_LOAD_H

#include <libxml/tree.h>
#include <stdbool.h>

#include "nwfilter.h"

#define NWF_MAX_VALUES 64

/* The parameters in force where a rule is: name -> values. */
struct nwf_scope {
	size_t n;
	struct {
		const char *name;
		const char *values[NWF_MAX_VALUES];
		size_t nr_values;
	} v[32];
};

struct nwf_file {
	char *path;
	char *name;	/* the filter's name='' */
	char *chain;	/* its chain='' ("root" when none) */
	int prio;	/* the chain's priority */
	xmlDocPtr doc;
};

/* One <rule> in its chain, with the parameters of the reference that
 * brought it in. */
struct nwf_rule {
	xmlNodePtr node;
	const struct nwf_file *file;
	const struct nwf_scope *scope;
	int prio;
	unsigned int seq;
};

struct nwf_chain {
	char *name;
	int prio;	/* where root jumps to it */
	unsigned int seq;
	const struct nwf_file *file; /* the first filter of the chain */
	struct nwf_rule *rules;
	size_t nr_rules;
};

struct nwf_load {
	struct nwf_file *files;
	size_t nr_files;
	struct nwf_chain *chains; /* [0] is root */
	size_t nr_chains;
	struct nwf_scope **scopes;
	size_t nr_scopes;
	xmlChar **owned; /* the parameters' names and values, freed at the end */
	size_t nr_owned;
	unsigned int seq;
};

/* Read the input and collect its rules; rules of each chain sorted by
 * priority. 0 or -errno. */
int nwf_load(const struct ta_nwf_input *in, struct nwf_load *ld, struct ta_import *im,
	     struct ta_error *e);
void nwf_load_free(struct nwf_load *ld);

/* "FILE:LINE" of a node. */
const char *nwf_where(const struct nwf_file *f, xmlNodePtr node, char *buf, size_t size);

/* The attribute's value, in buf; NULL when absent. */
const char *nwf_attr(xmlNodePtr node, const char *name, char *buf, size_t size);

/* The chain's family from its name's prefix: "mac", "ipv4", ... or "root". */
const char *nwf_chain_family(const char *chain);

#endif /* TA_IMPORT_NWFILTER_LOAD_H */
