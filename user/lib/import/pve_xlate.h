/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pve_xlate.h - what the parts of the Proxmox VE translation share: the
 * state of one translation (pve.c: options, guard, defaults), the
 * addresses rules name (pve_addrs.c) and the rules written (pve_rules.c).
 */
#ifndef TA_IMPORT_PVE_XLATE_H
#define TA_IMPORT_PVE_XLATE_H

#include "../../../bpf/tap_accel.h"
#include "pve.h"
#include "pve_parse.h"
#include "pve_values.h"

/* A two-way policy's own rules come first (docs/policy.md). */
#define PVE_IMPLICIT_RULES 9
#define PVE_MAX_RULES (TA_MAX_RULES - PVE_IMPLICIT_RULES)
#define PVE_MAX_ADDRS 1024

struct pve_addrs {
	bool any; /* no -source/-dest */
	unsigned int n;
	struct pve_prefix *v;
};

struct xlate {
	const struct ta_pve_vm *vm;
	const struct pve_fw *vmfw, *cluster;
	struct ta_import *im;
	struct ta_error *e;
	char netid[16];
	unsigned int nr_rules;
	char **seen; /* the matches of every rule written, to leave out repeats */
};

/* One rule of the file in its context: where it is and what it may name. */
struct rule_ctx {
	const struct pve_fw *file;  /* the file the rule is in */
	const struct pve_fw *local; /* the VM's .fw, NULL for a group's rules */
	char where[1024];	    /* "FILE:LINE" (and the GROUP line) */
};

/* One rule as the policy language writes it. */
struct one_rule {
	char dir;		/* 'I' or 'O' */
	const char *action;	/* pass, drop, reject */
	int proto;		/* -1: any */
	enum pve_family family; /* of the protocol */
	const struct pve_prefix *src, *dst;
	bool has_sport, has_dport;
	unsigned int sport_lo, sport_hi, dport_lo, dport_hi;
	int icmp_type;		/* -1: any */
	enum pve_family ethertype; /* PVE_ANY: no ethertype match */
};

/* An error naming the rule's place, the construct and why: -EINVAL. */
int pve_refuse(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why);
/* A warning: the rule is skipped, as Proxmox VE skips it. */
void pve_skip(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why);

/* An alias's (looked up from `local`, then the cluster) or an address's
 * prefix: PVE_OK, PVE_SKIP or PVE_REFUSE, with why. */
int pve_entry_prefix(struct xlate *x, const struct pve_fw *local, const char *s,
		     struct pve_prefix *p, char *why, size_t len);
/* The addresses of ipset `ref` ("+name") or of -source/-dest `s` into
 * `out` (the caller frees out->v): PVE_OK, PVE_SKIP (warned) or -errno. */
int pve_ipset_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt, const char *ref,
		    struct pve_addrs *out);
int pve_rule_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt, const char *s,
		   struct pve_addrs *out);

/* Write rule r, unless an earlier one matches the same: 0 or -errno
 * (more rules than a policy holds). */
int pve_write_rule(struct xlate *x, const struct rule_ctx *rc, const char *what,
		   const struct one_rule *r);
/* The VM's [RULES] for x->netid, security groups inlined. 0 or -errno. */
int pve_translate_rules(struct xlate *x);
/* ACCEPT, DROP, REJECT as pass, drop, reject; NULL for another word. */
const char *pve_action_word(const char *pve);

#endif /* TA_IMPORT_PVE_XLATE_H */
