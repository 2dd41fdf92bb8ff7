// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve.c - a Proxmox VE VM's firewall as the policy of one of its
 * interfaces (docs/proxmox.md). What Proxmox VE does for the tap of netN,
 * in its order, and how it is written here:
 *
 *   conntrack: invalid dropped, established/related accepted
 *                                   -> a two-way policy's own first rules
 *   DHCP accepted unless dhcp: 0, neighbour discovery unless ndp: 0
 *                                   -> also its own (so dhcp: 0 and ndp: 0
 *                                      cannot be enforced: refused)
 *   macfilter, ipfilter-netN        -> guard mac, guard ip
 *   the VM's [RULES], GROUPs inlined, first match wins -> rule lines
 *   policy_in (DROP), policy_out (ACCEPT) -> default in, default out
 *
 * Rule options with lists, ipsets and port lists become one rule per
 * combination, in order, so that the first match still decides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static int refuse(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why)
{
	return ta_error_input_at(x->e, EINVAL, "%s: %s: %s", rc->where, what, why);
}

static void skip(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why)
{
	ta_import_warn(x->im, "%s: %s: %s; the rule is skipped, as Proxmox VE skips it",
		       rc->where, what, why);
}

/* ---- addresses: an address, a CIDR list, an alias, an ipset --------------- */

static int push_addr(struct xlate *x, struct pve_addrs *a, const struct pve_prefix *p)
{
	void *v;

	if (a->n == PVE_MAX_ADDRS)
		return ta_error_input(x->e, E2BIG, "more than %d addresses in one -source or -dest",
				      PVE_MAX_ADDRS);
	v = realloc(a->v, (a->n + 1) * sizeof(*a->v));
	if (!v)
		return ta_error_errno(x->e, ENOMEM, "cannot translate");
	a->v = v;
	a->v[a->n++] = *p;
	return 0;
}

/* The alias `name` ("dc/NAME", "guest/NAME") from `local`'s [ALIASES], then
 * the cluster's, as Proxmox VE looks it up. */
static const struct pve_alias *find_alias(struct xlate *x, const struct pve_fw *local,
					  const char *name)
{
	const struct pve_alias *a = NULL;
	bool dc = !strncmp(name, "dc/", 3), guest = !strncmp(name, "guest/", 6);
	const char *bare = dc ? name + 3 : guest ? name + 6 : name;

	if (!dc && local)
		a = pve_fw_alias(local, bare);
	if (!a && !guest)
		a = pve_fw_alias(x->cluster, bare);
	return a;
}

static bool looks_like_alias(const char *s)
{
	if (!strncmp(s, "dc/", 3))
		s += 3;
	else if (!strncmp(s, "guest/", 6))
		s += 6;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") ==
		       strlen(s) && strlen(s) > 1 && !strchr(s, ':');
}

/* An alias's or an address's prefix. PVE_OK, PVE_SKIP, PVE_REFUSE (why). */
static int entry_prefix(struct xlate *x, const struct pve_fw *local, const char *s,
			struct pve_prefix *p, char *why, size_t len)
{
	if (looks_like_alias(s)) {
		const struct pve_alias *a = find_alias(x, local, s);

		if (!a) {
			snprintf(why, len, "no such alias '%s'", s);
			return PVE_SKIP;
		}
		return pve_prefix(a->cidr, p, why, len);
	}
	return pve_prefix(s, p, why, len);
}

static int ipset_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt,
		       const char *ref, struct pve_addrs *out)
{
	const char *name = ref + 1;
	const struct pve_ipset *set = NULL;
	const struct pve_fw *home;
	bool dc = !strncmp(name, "dc/", 3), guest = !strncmp(name, "guest/", 6);
	char what[128], why[512];

	if (dc || guest)
		name = strchr(name, '/') + 1;
	if (!dc && rc->local)
		set = pve_fw_ipset(rc->local, name);
	home = rc->local;
	if (!set && !guest) {
		set = pve_fw_ipset(x->cluster, name);
		home = NULL; /* a cluster ipset's aliases are the cluster's */
	}
	snprintf(what, sizeof(what), "%s %s", opt, ref);
	if (!set) {
		snprintf(why, sizeof(why), "no such ipset '%s'", name);
		skip(x, rc, what, why);
		return PVE_SKIP;
	}
	for (unsigned int i = 0; i < set->n; i++) {
		const struct pve_ipset_entry *en = &set->v[i];
		struct pve_prefix p;
		int ret;

		if (en->nomatch) {
			snprintf(why, sizeof(why), "ipset %s excludes %s (%s:%u), and a tap-accel rule "
				 "cannot leave addresses out of its match: list what the set "
				 "includes instead", set->name, en->text,
				 home ? home->path : x->cluster->path, en->line);
			return refuse(x, rc, what, why);
		}
		ret = entry_prefix(x, home, en->text, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			/* Proxmox VE leaves such an entry out of the set */
			ta_import_warn(x->im, "%s:%u: ipset %s: %s; the entry is skipped, as Proxmox "
				       "VE skips it", home ? home->path : x->cluster->path,
				       en->line, set->name, why);
			continue;
		}
		if (p.len == 0) {
			ta_import_warn(x->im, "%s:%u: ipset %s: a zero prefix is not allowed in ipset "
				       "entries; the entry is skipped, as Proxmox VE skips it",
				       home ? home->path : x->cluster->path, en->line, set->name);
			continue;
		}
		if ((ret = push_addr(x, out, &p)))
			return ret;
	}
	return PVE_OK;
}

/* -source/-dest `s` into `out`: PVE_OK, PVE_SKIP (warned) or -errno. */
static int rule_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt, const char *s,
		      struct pve_addrs *out)
{
	char what[128], why[512], buf[PVE_MAX_LINE], *save, *item;
	enum pve_family family = PVE_ANY;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s) {
		out->any = true;
		return PVE_OK;
	}
	snprintf(what, sizeof(what), "%s %s", opt, s);
	if (s[0] == '+')
		return ipset_addrs(x, rc, opt, s, out);
	if (looks_like_alias(s)) {
		struct pve_prefix p;

		ret = entry_prefix(x, rc->local, s, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			skip(x, rc, what, why);
			return PVE_SKIP;
		}
		return push_addr(x, out, &p);
	}
	if (strchr(s, '-'))
		return refuse(x, rc, what, "an address range, which tap-accel does not match: "
			      "write it as CIDRs (-source 10.0.0.0/30,10.0.0.4)");
	snprintf(buf, sizeof(buf), "%s", s);
	if (strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ',') {
		skip(x, rc, what, "extraneous commas in list");
		return PVE_SKIP;
	}
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct pve_prefix p;

		ret = pve_prefix(item, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			skip(x, rc, what, why);
			return PVE_SKIP;
		}
		if (family && p.family != family) {
			skip(x, rc, what, "mixed IPv4 and IPv6 addresses in the list");
			return PVE_SKIP;
		}
		family = p.family;
		if ((ret = push_addr(x, out, &p)))
			return ret;
	}
	return PVE_OK;
}

/* ---- writing rules ---------------------------------------------------------- */

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

static void add_range(char *m, size_t len, const char *word, unsigned int lo, unsigned int hi)
{
	size_t n = strlen(m);

	if (lo == hi)
		snprintf(m + n, len - n, " %s %u", word, lo);
	else
		snprintf(m + n, len - n, " %s %u-%u", word, lo, hi);
}

static int write_rule(struct xlate *x, const struct rule_ctx *rc, const char *what,
		      const struct one_rule *r)
{
	char m[512], pbuf[8];
	size_t n;
	void *v;

	snprintf(m, sizeof(m), "%s", r->dir == 'I' ? "in" : "out");
	n = strlen(m);
	if (r->proto >= 0)
		n += snprintf(m + n, sizeof(m) - n, " proto %s",
			      pve_proto_word(r->proto, pbuf, sizeof(pbuf)));
	if (r->src)
		n += snprintf(m + n, sizeof(m) - n, " src %s", r->src->text);
	if (r->dst)
		n += snprintf(m + n, sizeof(m) - n, " dst %s", r->dst->text);
	if (r->has_sport)
		add_range(m, sizeof(m), "sport", r->sport_lo, r->sport_hi);
	if (r->has_dport)
		add_range(m, sizeof(m), "dport", r->dport_lo, r->dport_hi);
	n = strlen(m);
	if (r->ethertype)
		n += snprintf(m + n, sizeof(m) - n, " ethertype ipv%d", r->ethertype);
	if (r->icmp_type >= 0)
		snprintf(m + n, sizeof(m) - n, " icmp-type %d", r->icmp_type);
	/* a later rule matching exactly what an earlier one matches never
	 * decides anything: Proxmox VE keeps it, the policy language refuses it */
	for (unsigned int i = 0; i < x->nr_rules; i++)
		if (!strcmp(x->seen[i], m))
			return 0;
	if (x->nr_rules == PVE_MAX_RULES)
		return ta_error_input_at(x->e, E2BIG, "%s: %s: the translation needs more than %d "
					 "rules, tap-accel's most in a two-way policy (each address "
					 "of a list or ipset and each port of a list is a rule of its "
					 "own): use fewer or wider prefixes and port ranges",
					 rc->where, what, PVE_MAX_RULES);
	v = realloc(x->seen, (x->nr_rules + 1) * sizeof(*x->seen));
	if (!v)
		return ta_error_errno(x->e, ENOMEM, "cannot translate");
	x->seen = v;
	if (!(x->seen[x->nr_rules] = strdup(m)))
		return ta_error_errno(x->e, ENOMEM, "cannot translate");
	x->nr_rules++;
	ta_import_statement(x->im, rc->where, "rule %s %s", r->action, m);
	return 0;
}

/* What one rule (or one entry of its macro) matches, before its lists are
 * multiplied out. */
struct rule_spec {
	char dir;
	const char *action;
	const char *proto, *dport, *sport, *icmp; /* as written */
	enum pve_family only;			  /* a macro entry's family */
	struct pve_addrs *src, *dst;
};

static bool family_fits(enum pve_family a, enum pve_family b)
{
	return !a || !b || a == b;
}

static int expand(struct xlate *x, const struct rule_ctx *rc, const char *what,
		  const struct rule_spec *s)
{
	struct pve_ports sports = { 0 }, dports = { 0 };
	struct pve_proto proto = { .nr = -1 };
	struct one_rule r = { .dir = s->dir, .action = s->action, .proto = -1, .icmp_type = -1 };
	char why[512];
	int ret;

	if (s->proto) {
		ret = pve_proto(s->proto, &proto, why, sizeof(why));
		if (ret) {
			skip(x, rc, what, why);
			return 0;
		}
		r.proto = proto.nr;
		r.family = proto.family;
	}
	if (s->only && r.family && s->only != r.family)
		return 0;
	if (!r.family)
		r.family = s->only;
	if (s->icmp && !proto.icmp) {
		skip(x, rc, what, "-icmp-type needs -p icmp or -p icmpv6");
		return 0;
	}
	if (s->icmp) {
		ret = pve_icmp_type(s->icmp, proto.nr == 58, &r.icmp_type, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return refuse(x, rc, what, why);
		if (ret) {
			skip(x, rc, what, why);
			return 0;
		}
	}
	if ((s->dport || s->sport) && !s->proto) {
		skip(x, rc, what, s->dport ? "-dport needs -p" : "-sport needs -p");
		return 0;
	}
	if ((s->dport || s->sport) && !proto.ports) {
		snprintf(why, sizeof(why), "protocol '%s' does not support ports", s->proto);
		skip(x, rc, what, why);
		return 0;
	}
	if ((s->dport || s->sport) && proto.nr == 33)
		return refuse(x, rc, what, "tap-accel matches the ports of TCP, UDP, SCTP and "
			      "UDP-Lite, not DCCP's");
	if (s->sport && (ret = pve_ports(s->sport, s->proto, &sports, why, sizeof(why)))) {
		skip(x, rc, what, why);
		return 0;
	}
	if (s->dport && (ret = pve_ports(s->dport, s->proto, &dports, why, sizeof(why)))) {
		skip(x, rc, what, why);
		return 0;
	}
	r.has_sport = s->sport;
	r.has_dport = s->dport;
	for (unsigned int a = 0; a < (s->src->any ? 1 : s->src->n); a++) {
		r.src = s->src->any ? NULL : &s->src->v[a];
		if (r.src && !family_fits(r.src->family, r.family))
			continue;
		for (unsigned int b = 0; b < (s->dst->any ? 1 : s->dst->n); b++) {
			r.dst = s->dst->any ? NULL : &s->dst->v[b];
			if (r.dst && (!family_fits(r.dst->family, r.family) ||
				      (r.src && r.src->family != r.dst->family)))
				continue;
			for (unsigned int c = 0; c < (s->sport ? sports.n : 1); c++) {
				r.sport_lo = sports.lo[c];
				r.sport_hi = sports.hi[c];
				for (unsigned int d = 0; d < (s->dport ? dports.n : 1); d++) {
					r.dport_lo = dports.lo[d];
					r.dport_hi = dports.hi[d];
					if ((ret = write_rule(x, rc, what, &r)))
						return ret;
				}
			}
		}
	}
	return 0;
}

/* A macro's entry and the rule's own options: the rule fills what the
 * entry leaves open; the same option in both, with another value, makes
 * Proxmox VE skip the rule. */
static bool macro_conflict(const char *mine, const char *macro)
{
	return mine && macro && strcmp(mine, macro);
}

static int translate_macro(struct xlate *x, const struct rule_ctx *rc, const char *what,
			   const struct pve_rule *pr, struct rule_spec *s)
{
	const struct pve_macro_entry *m;
	const char *name;
	unsigned int nr;
	char why[256];
	int ret;

	m = pve_macro(pr->macro, &nr, &name);
	if (!m) {
		snprintf(why, sizeof(why), "unknown macro '%s'", pr->macro);
		skip(x, rc, what, why);
		return 0;
	}
	for (unsigned int i = 0; i < nr; i++) {
		const char *conflict = macro_conflict(pr->proto, m[i].proto)	? "-p"
				       : macro_conflict(pr->dport, m[i].dport) ? "-dport"
				       : macro_conflict(pr->sport, m[i].sport) ? "-sport"
									       : NULL;

		if (conflict) {
			snprintf(why, sizeof(why), "parameter %s already defined in macro %s",
				 conflict, name);
			skip(x, rc, what, why);
			return 0;
		}
	}
	for (unsigned int i = 0; i < nr; i++) {
		s->proto = m[i].proto;
		s->dport = m[i].dport ? m[i].dport : pr->dport;
		s->sport = m[i].sport ? m[i].sport : pr->sport;
		s->icmp = m[i].icmp ? m[i].icmp : pr->icmp_type;
		s->only = m[i].family;
		if ((ret = expand(x, rc, what, s)))
			return ret;
	}
	return 0;
}

static const char *action_word(const char *pve)
{
	if (!strcmp(pve, "ACCEPT"))
		return "pass";
	if (!strcmp(pve, "DROP"))
		return "drop";
	if (!strcmp(pve, "REJECT"))
		return "reject";
	return NULL;
}

static int translate_rule(struct xlate *x, const struct rule_ctx *rc, const struct pve_rule *pr)
{
	struct pve_addrs src, dst;
	struct rule_spec s = { .dir = pr->type, .src = &src, .dst = &dst };
	char what[160];
	int ret;

	snprintf(what, sizeof(what), "%s %s%s%s%s", pr->type == 'I' ? "IN" : "OUT",
		 pr->macro[0] ? pr->macro : "", pr->macro[0] ? "(" : "", pr->action,
		 pr->macro[0] ? ")" : "");
	s.action = action_word(pr->action);
	if (!s.action) {
		char why[128];

		snprintf(why, sizeof(why), "unknown action '%s'", pr->action);
		skip(x, rc, what, why);
		return 0;
	}
	if (pr->dport && pr->icmp_type) {
		skip(x, rc, what, "-icmp-type cannot be given together with -dport");
		return 0;
	}
	ret = rule_addrs(x, rc, "-source", pr->source, &src);
	if (ret == 0)
		ret = rule_addrs(x, rc, "-dest", pr->dest, &dst);
	else
		memset(&dst, 0, sizeof(dst));
	if (ret == 0) {
		if (pr->macro[0]) {
			ret = translate_macro(x, rc, what, pr, &s);
		} else {
			bool icmp_dport = pr->proto && pr->dport &&
				(!strcmp(pr->proto, "icmp") || !strcmp(pr->proto, "icmpv6") ||
				 !strcmp(pr->proto, "ipv6-icmp"));

			s.proto = pr->proto;
			/* an ICMP type given as -dport, as Proxmox VE once stored them */
			s.dport = icmp_dport ? NULL : pr->dport;
			s.icmp = icmp_dport ? pr->dport : pr->icmp_type;
			s.sport = pr->sport;
			ret = expand(x, rc, what, &s);
		}
	}
	free(src.v);
	free(dst.v);
	return ret > 0 ? 0 : ret;
}

/* ---- the VM's rules, groups inlined ------------------------------------------ */

static bool for_iface(const struct xlate *x, const struct pve_rule *pr)
{
	return !pr->iface[0] || !strcmp(pr->iface, x->netid);
}

static int translate_group(struct xlate *x, const struct rule_ctx *from, const struct pve_rule *g)
{
	const struct pve_group *group = pve_fw_group(x->cluster, g->action);
	struct rule_ctx rc = { .file = x->cluster, .local = NULL };
	char why[160];
	int ret;

	if (!group) {
		snprintf(why, sizeof(why), x->cluster ? "no security group '%s' in %s"
				: "no security group '%s': give cluster.fw (--cluster)",
			 g->action, x->cluster ? x->cluster->path : "");
		ta_import_warn(x->im, "%s: GROUP %s: %s; the rule is skipped, as Proxmox VE "
			       "skips it", from->where, g->action, why);
		return 0;
	}
	for (unsigned int i = 0; i < group->rules.n; i++) {
		const struct pve_rule *pr = &group->rules.v[i];

		snprintf(rc.where, sizeof(rc.where), "%.300s:%u (group %s, %.300s)", x->cluster->path,
			 pr->line, group->name, from->where);
		if (!pr->enabled || !for_iface(x, pr))
			continue;
		if (pr->type != 'I' && pr->type != 'O') {
			snprintf(why, sizeof(why), "a security group's rules are IN or OUT, not %s",
				 pr->type_word);
			ta_import_warn(x->im, "%s: %s; the rule is skipped, as Proxmox VE skips it",
				       rc.where, why);
			continue;
		}
		if ((ret = translate_rule(x, &rc, pr)))
			return ret;
	}
	return 0;
}

static int translate_rules(struct xlate *x)
{
	struct rule_ctx rc = { .file = x->vmfw, .local = x->vmfw };
	int ret;

	for (unsigned int i = 0; i < x->vmfw->rules.n; i++) {
		const struct pve_rule *pr = &x->vmfw->rules.v[i];

		snprintf(rc.where, sizeof(rc.where), "%s:%u", x->vmfw->path, pr->line);
		if (!pr->enabled || !for_iface(x, pr))
			continue;
		if (pr->iface[0] && strncmp(pr->iface, "net", 3)) {
			ta_import_warn(x->im, "%s: -i %s: value does not match the regex pattern "
				       "'net\\d+'; the rule is skipped, as Proxmox VE skips it",
				       rc.where, pr->iface);
			continue;
		}
		if (pr->type == 'G')
			ret = translate_group(x, &rc, pr);
		else if (pr->type == 'I' || pr->type == 'O')
			ret = translate_rule(x, &rc, pr);
		else {
			ta_import_warn(x->im, "%s: invalid rule type '%s' for a VM; the rule is "
				       "skipped, as Proxmox VE skips it", rc.where, pr->type_word);
			ret = 0;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* ---- options: guard, defaults ------------------------------------------------ */

/* The link-local address Proxmox VE's ipfilter always allows: EUI-64 of the MAC. */
static void link_local(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "fe80::%x:%x:%x:%x", (mac[0] ^ 2) << 8 | mac[1], mac[2] << 8 | 0xff,
		 0xfe << 8 | mac[3], mac[4] << 8 | mac[5]);
}

static int guard_ipfilter(struct xlate *x, const struct ta_pve_net *net, bool *v4, bool *v6)
{
	char name[32], where[256], why[512];
	const struct pve_ipset *set;
	int ret;

	snprintf(name, sizeof(name), "ipfilter-%s", x->netid);
	set = pve_fw_ipset(x->vmfw, name);
	if (!set && x->vmfw->ipfilter.value != 1)
		return 0;
	if (net && net->has_mac) {
		char ll[64];

		link_local(net->mac, ll, sizeof(ll));
		snprintf(where, sizeof(where), "%s: ipfilter: the link-local address of %s's MAC",
			 x->vmfw->path, x->netid);
		ta_import_statement(x->im, where, "guard ip %s", ll);
		*v6 = true;
	}
	for (unsigned int i = 0; set && i < set->n; i++) {
		const struct pve_ipset_entry *en = &set->v[i];
		struct pve_prefix p;

		snprintf(where, sizeof(where), "%s:%u", x->vmfw->path, en->line);
		if (en->nomatch)
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: !%s: the guard lists "
						 "the guest's addresses and cannot exclude one: "
						 "list the addresses it may use", where, name,
						 en->text);
		ret = entry_prefix(x, x->vmfw, en->text, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: %s", where, name, why);
		if (ret == PVE_SKIP) {
			ta_import_warn(x->im, "%s: ipset %s: %s; the entry is skipped, as Proxmox VE "
				       "skips it", where, name, why);
			continue;
		}
		if (p.len != (p.family == PVE_V4 ? 32u : 128u))
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: %s is a network, and "
						 "the guard takes the guest's own addresses: list them "
						 "one by one", where, name, p.text);
		ta_import_statement(x->im, where, "guard ip %s", p.text);
		*(p.family == PVE_V4 ? v4 : v6) = true;
	}
	return 1;
}

static int write_guard(struct xlate *x, const struct ta_pve_net *net)
{
	bool v4 = false, v6 = false;
	char where[256], mac[18];
	int ret;

	if (x->vmfw->macfilter.value != 0) {
		if (net && net->has_mac) {
			snprintf(where, sizeof(where), "%s: macfilter, %s's MAC in %s", x->vmfw->path,
				 x->netid, x->vm->conf_path);
			snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", net->mac[0],
				 net->mac[1], net->mac[2], net->mac[3], net->mac[4], net->mac[5]);
			ta_import_statement(x->im, where, "guard mac %s", mac);
		} else {
			ta_import_warn(x->im, "%s: macfilter is on, but %s: no MAC guard", x->vmfw->path,
				       net ? "the configuration gives the interface no MAC"
					   : "no VM configuration was given (--conf VMID.conf)");
		}
	}
	ret = guard_ipfilter(x, net, &v4, &v6);
	if (ret <= 0)
		return ret;
	/* the guard checks a family only once it has an address of it; a set
	 * without one lets the guest send none of that family */
	for (int family = PVE_V4; family <= PVE_V6; family += 2) {
		struct rule_ctx rc = { .file = x->vmfw };
		struct one_rule r = { .dir = 'O', .action = "drop", .proto = -1, .icmp_type = -1,
				      .ethertype = family };

		if (family == PVE_V4 ? v4 : v6)
			continue;
		snprintf(rc.where, sizeof(rc.where), "%s: ipfilter-%s has no IPv%d address",
			 x->vmfw->path, x->netid, family);
		if ((ret = write_rule(x, &rc, "ipfilter", &r)))
			return ret;
	}
	return 0;
}

/* What Proxmox VE does that a two-way policy cannot undo: refused. */
static int check_options(struct xlate *x)
{
	const struct pve_fw *fw = x->vmfw;

	if (fw->ips.value == 1)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: ips: 1 hands accepted traffic to an "
					 "intrusion prevention system (NFQUEUE), which tap-accel "
					 "cannot: set ips: 0 to import this firewall", fw->path,
					 fw->ips.line);
	if (fw->dhcp.value == 0)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: dhcp: 0 leaves DHCP to the rules, and "
					 "a tap-accel two-way policy always lets DHCP to and from "
					 "the guest through (docs/proxmox.md): set dhcp: 1 to import "
					 "this firewall", fw->path, fw->dhcp.line);
	if (fw->ndp.value == 0)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: ndp: 0 leaves neighbour discovery to "
					 "the rules, and a tap-accel two-way policy always lets it "
					 "through (docs/proxmox.md): set ndp: 1 to import this "
					 "firewall", fw->path, fw->ndp.line);
	return 0;
}

static void write_default(struct xlate *x, bool in)
{
	const struct pve_fw *fw = x->vmfw;
	const char *policy = in ? fw->policy_in : fw->policy_out;
	unsigned int line = in ? fw->policy_in_line : fw->policy_out_line;
	char where[256];

	if (line)
		snprintf(where, sizeof(where), "%s:%u", fw->path, line);
	else
		snprintf(where, sizeof(where), "%s: policy_%s, Proxmox VE's default %s", fw->path,
			 in ? "in" : "out", in ? "DROP" : "ACCEPT");
	if (!*policy)
		policy = in ? "DROP" : "ACCEPT";
	ta_import_statement(x->im, where, "default %s %s", in ? "in" : "out", action_word(policy));
}

/* The firewall filters nothing: say why, pass everything. */
static int write_off(struct xlate *x, const char *why)
{
	ta_import_comment(x->im, "the firewall of %s is off: %s", x->netid, why);
	ta_import_statement(x->im, why, "default pass");
	return 0;
}

static int translate(struct xlate *x, const struct ta_pve_conf *conf)
{
	const struct ta_pve_net *net = conf ? &conf->net[x->vm->iface] : NULL;
	char why[512];
	int ret;

	if (x->cluster && x->cluster->enable.value != 1) {
		snprintf(why, sizeof(why), "%s: enable is not 1, the datacenter's firewall is off",
			 x->cluster->path);
		return write_off(x, why);
	}
	if (!x->vm->fw_path) {
		snprintf(why, sizeof(why), "the VM has no firewall configuration");
		return write_off(x, why);
	}
	if (x->vmfw->enable.value != 1) {
		snprintf(why, sizeof(why), "%s: enable is not 1 (Proxmox VE's default is 0)",
			 x->vmfw->path);
		return write_off(x, why);
	}
	if (net && !net->present)
		return ta_error_input(x->e, ENOENT, "%s has no %s: give the interface with --iface "
				      "netN", x->vm->conf_path, x->netid);
	if (net && !net->firewall) {
		snprintf(why, sizeof(why), "%s:%u: %s has no firewall=1", x->vm->conf_path,
			 net->line, x->netid);
		return write_off(x, why);
	}
	if ((ret = check_options(x)))
		return ret;
	ta_import_comment(x->im, "Proxmox VE firewall of %s, %s (tap-accel policy import pve)",
			  x->vmfw->path, x->netid);
	if (x->vmfw->radv.value != 1)
		ta_import_comment(x->im, "radv is not 1: Proxmox VE drops router advertisements the "
				  "guest sends, tap-accel lets them through (docs/proxmox.md)");
	if ((ret = write_guard(x, net)))
		return ret;
	if ((ret = translate_rules(x)))
		return ret;
	write_default(x, true);
	write_default(x, false);
	return 0;
}

int ta_import_pve(const struct ta_pve_vm *vm, struct ta_import *im, struct ta_error *e)
{
	struct pve_fw vmfw = { 0 }, cluster = { 0 };
	struct ta_pve_conf conf;
	struct xlate x = { .vm = vm, .im = im, .e = e };
	int ret = 0;

	if (vm->iface >= TA_PVE_MAX_NETS)
		return ta_error_input(e, EINVAL, "net%u: Proxmox VE's interfaces are net0 to net%d",
				      vm->iface, TA_PVE_MAX_NETS - 1);
	snprintf(x.netid, sizeof(x.netid), "net%u", vm->iface);
	if (vm->cluster_path && (ret = pve_fw_read(vm->cluster_path, true, &cluster, e)))
		return ret;
	if (vm->fw_path && (ret = pve_fw_read(vm->fw_path, false, &vmfw, e)))
		goto out;
	if (vm->conf_path && (ret = ta_pve_conf_read(vm->conf_path, &conf, e)))
		goto out;
	x.vmfw = &vmfw;
	x.cluster = vm->cluster_path ? &cluster : NULL;
	ret = translate(&x, vm->conf_path ? &conf : NULL);
	for (unsigned int i = 0; i < x.nr_rules; i++)
		free(x.seen[i]);
	free(x.seen);
out:
	pve_fw_free(&vmfw);
	pve_fw_free(&cluster);
	return ret;
}
