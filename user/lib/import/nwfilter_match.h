/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * nwfilter_match.h - one nwfilter <rule> as the matches of a tap-accel
 * rule (docs/policy.md), and the AND of two of them. Private to
 * nwfilter*.c.
 */
#ifndef TA_IMPORT_NWFILTER_MATCH_H
#define TA_IMPORT_NWFILTER_MATCH_H

#include <stdbool.h>
#include <stdio.h>

#define NWF_IN 1
#define NWF_OUT 2

enum nwf_action { NWF_ACCEPT, NWF_DROP, NWF_REJECT, NWF_RETURN, NWF_CONTINUE };

/* Absent fields are empty strings or -1. */
struct nwf_match {
	unsigned int dirs;	/* NWF_IN | NWF_OUT */
	char states[64];	/* "new,established", or "" for any */
	char smac[18], dmac[18];
	int ethertype;
	char src[64], dst[64];	/* prefixes as the policy writes them */
	int proto;
	int sport_lo, sport_hi, dport_lo, dport_hi;
	int icmp_type;
};

struct nwf_stmt {
	enum nwf_action action;
	struct nwf_match m;
	char where[512];	/* "FILE:LINE", for the comment */
	bool l3;		/* iptables' layer (tcp, udp, icmp, all, ...) */
};

void nwf_match_init(struct nwf_match *m);
/* a AND b into out; false when no frame can match both. */
bool nwf_match_and(const struct nwf_match *a, const struct nwf_match *b,
		   struct nwf_match *out);
/* The matches as the policy writes them, after "rule ACTION ". */
void nwf_match_format(const struct nwf_match *m, char *buf, size_t size);
/* The same match seen from the other end: addresses and ports swapped,
 * the other direction. */
void nwf_match_reverse(const struct nwf_match *m, struct nwf_match *out);

#endif /* TA_IMPORT_NWFILTER_MATCH_H */
