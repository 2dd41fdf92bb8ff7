// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_rules.c - a Proxmox VE VM's [RULES] as policy rules, in their
 * order: security groups inlined where a GROUP line names them, macros
 * expanded into their protocols and ports, and each combination of a
 * rule's addresses and ports a rule of its own, so that the first match
 * still decides as in Proxmox VE.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pve_xlate.h"

/* ---- writing rules ---------------------------------------------------------- */


static void add_range(char *m, size_t len, const char *word, unsigned int lo, unsigned int hi)
{
	size_t n = strlen(m);

	if (lo == hi)
		snprintf(m + n, len - n, " %s %u", word, lo);
	else
		snprintf(m + n, len - n, " %s %u-%u", word, lo, hi);
}

int pve_write_rule(struct xlate *x, const struct rule_ctx *rc, const char *what,
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
			pve_skip(x, rc, what, why);
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
		pve_skip(x, rc, what, "-icmp-type needs -p icmp or -p icmpv6");
		return 0;
	}
	if (s->icmp) {
		ret = pve_icmp_type(s->icmp, proto.nr == 58, &r.icmp_type, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return pve_refuse(x, rc, what, why);
		if (ret) {
			pve_skip(x, rc, what, why);
			return 0;
		}
	}
	if ((s->dport || s->sport) && !s->proto) {
		pve_skip(x, rc, what, s->dport ? "-dport needs -p" : "-sport needs -p");
		return 0;
	}
	if ((s->dport || s->sport) && !proto.ports) {
		snprintf(why, sizeof(why), "protocol '%s' does not support ports", s->proto);
		pve_skip(x, rc, what, why);
		return 0;
	}
	if ((s->dport || s->sport) && proto.nr == 33)
		return pve_refuse(x, rc, what, "tap-accel matches the ports of TCP, UDP, SCTP and "
			      "UDP-Lite, not DCCP's");
	if (s->sport && (ret = pve_ports(s->sport, s->proto, &sports, why, sizeof(why)))) {
		pve_skip(x, rc, what, why);
		return 0;
	}
	if (s->dport && (ret = pve_ports(s->dport, s->proto, &dports, why, sizeof(why)))) {
		pve_skip(x, rc, what, why);
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
					if ((ret = pve_write_rule(x, rc, what, &r)))
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
		pve_skip(x, rc, what, why);
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
			pve_skip(x, rc, what, why);
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

const char *pve_action_word(const char *pve)
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
	s.action = pve_action_word(pr->action);
	if (!s.action) {
		char why[128];

		snprintf(why, sizeof(why), "unknown action '%s'", pr->action);
		pve_skip(x, rc, what, why);
		return 0;
	}
	if (pr->dport && pr->icmp_type) {
		pve_skip(x, rc, what, "-icmp-type cannot be given together with -dport");
		return 0;
	}
	ret = pve_rule_addrs(x, rc, "-source", pr->source, &src);
	if (ret == 0)
		ret = pve_rule_addrs(x, rc, "-dest", pr->dest, &dst);
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

static bool is_netid(const char *s)
{
	return !strncmp(s, "net", 3) && s[3] && strspn(s + 3, "0123456789") == strlen(s + 3);
}

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
		if (!pr->enabled)
			continue;
		if (pr->iface[0]) {
			ta_import_warn(x->im, "%s: parameter -i not allowed for this rule type (a "
				       "security group's rules; give -i on the GROUP line); the "
				       "rule is skipped, as Proxmox VE skips it", rc.where);
			continue;
		}
		/* FORWARD rules are the vnets', never a VM's */
		if (!strcasecmp(pr->type_word, "forward"))
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

int pve_translate_rules(struct xlate *x)
{
	struct rule_ctx rc = { .file = x->vmfw, .local = x->vmfw };
	int ret;

	for (unsigned int i = 0; i < x->vmfw->rules.n; i++) {
		const struct pve_rule *pr = &x->vmfw->rules.v[i];

		snprintf(rc.where, sizeof(rc.where), "%s:%u", x->vmfw->path, pr->line);
		if (!pr->enabled)
			continue;
		if (pr->iface[0] && !is_netid(pr->iface)) {
			ta_import_warn(x->im, "%s: -i %s: value does not match the regex pattern "
				       "'net\\d+'; the rule is skipped, as Proxmox VE skips it",
				       rc.where, pr->iface);
			continue;
		}
		if (!for_iface(x, pr))
			continue;
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
