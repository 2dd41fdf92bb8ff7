// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nwfilter.c - a libvirt nwfilter filter as a tap-accel policy.
 *
 * libvirt runs a filter in two layers one after the other: ebtables (the
 * root chain, jumping to the mac, arp, ipv4, ... chains at their
 * priorities) and iptables (the tcp, udp, icmp, all, ... rules, with
 * connection state); a frame reaches the guest, or leaves it, when both
 * let it. tap-accel judges a frame by one list of rules, first match, so
 * the two layers become one: every ebtables accept is preceded by the
 * iptables rules restricted to what it accepts, and what no ebtables rule
 * decides meets the iptables rules alone. What both let through when none
 * of their rules matches passes: libvirt's default.
 *
 * The anti-spoofing chains are recognized by their rules (a `return` for
 * the guest's own address, then drop) and become the tap's `guard`, which
 * checks the same addresses before any rule, as those chains run first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nwfilter.h"
#include "nwfilter_load.h"
#include "nwfilter_rule.h"

#define MAX_GUARD 64
/* Rules written at most: more than a policy holds (1024), to say so. */
#define MAX_EMITTED 4096

struct guard {
	char mac[18];
	const char *ips[2 * MAX_GUARD];
	size_t nr_ips;
	char where[600];
	bool ip4, ip4_arp, mac_eth, mac_arp;
};

struct xlate {
	const struct nwf_load *ld;
	struct ta_import *im;
	struct ta_error *e;
	struct nwf_out out;
	struct guard guard;
};

/* ---- the anti-spoofing chains ------------------------------------------------ */

/* What a chain of the guard's is: its rules' shape, written as "DIR ACTION
 * ELEMENT ATTR=VALUE ..." with the guest's address as V. */
static const struct {
	const char *family;
	const char *shape;
	const char *what; /* which check of the guard's */
} guard_shapes[] = {
	{ "mac", "out return mac srcmacaddr=V;out drop mac", "mac" },
	{ "mac", "out return mac srcmacaddr=V;out drop", "mac" },
	{ "ipv4", "out return ip protocol=udp srcipaddr=0.0.0.0;out return ip srcipaddr=V;out drop",
	  "ip4" },
	{ "ipv6",
	  "out return ipv6 protocol=udp srcipaddr=FE80:: srcipmask=10;out return ipv6 srcipaddr=V;"
	  "out drop",
	  "ip6" },
	{ "arp", "out return arp arpsrcmacaddr=V;out drop", "arpmac" },
	{ "arp", "out return arp arpsrcipaddr=V;out drop", "arpip" },
};

static bool is_guest_addr_attr(const char *a)
{
	return !strcmp(a, "srcmacaddr") || !strcmp(a, "srcipaddr") ||
	       !strcmp(a, "arpsrcmacaddr") || !strcmp(a, "arpsrcipaddr");
}

/* The shape of a chain, and the rule holding V and its value. */
static void chain_shape(const struct nwf_chain *c, char *buf, size_t size,
			const struct nwf_rule **vrule, char *vattr, char *vvalue)
{
	*buf = 0;
	*vrule = NULL;
	for (size_t i = 0; i < c->nr_rules; i++) {
		xmlNodePtr n = c->rules[i].node, el = NULL;
		char d[16] = "", a[16] = "";
		size_t len;

		nwf_attr(n, "direction", d, sizeof(d));
		nwf_attr(n, "action", a, sizeof(a));
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s %s", i ? ";" : "", d, a);
		for (xmlNodePtr k = n->children; k; k = k->next)
			if (k->type == XML_ELEMENT_NODE) {
				el = k;
				break;
			}
		if (!el)
			continue;
		len = strlen(buf);
		snprintf(buf + len, size - len, " %s", (const char *)el->name);
		/* attributes in a fixed order: by name */
		for (int pass = 0; pass < 8; pass++) {
			static const char *const order[] = { "arpsrcipaddr", "arpsrcmacaddr",
							     "protocol",     "srcipaddr",
							     "srcipmask",    "srcmacaddr",
							     "match",	     "comment" };
			char v[256];

			if (!nwf_attr(el, order[pass], v, sizeof(v)))
				continue;
			if (!strcmp(order[pass], "comment") ||
			    (!strcmp(order[pass], "match") && !strcmp(v, "yes")))
				continue;
			len = strlen(buf);
			if (!strcmp(a, "return") && is_guest_addr_attr(order[pass]) &&
			    strcmp(v, "0.0.0.0") && strcmp(v, "FE80::")) {
				snprintf(buf + len, size - len, " %s=V", order[pass]);
				*vrule = &c->rules[i];
				strcpy(vattr, order[pass]);
				snprintf(vvalue, 256, "%s", v);
			} else {
				snprintf(buf + len, size - len, " %s=%s", order[pass], v);
			}
		}
		/* an attribute outside the order makes the shape unknown */
		for (xmlAttrPtr p = el->properties; p; p = p->next) {
			bool listed = false;

			for (const char *const *o = (const char *const[]){ "arpsrcipaddr",
									    "arpsrcmacaddr",
									    "protocol",
									    "srcipaddr",
									    "srcipmask",
									    "srcmacaddr",
									    "match",
									    "comment",
									    NULL };
			     *o; o++)
				listed |= !strcmp(*o, (const char *)p->name);
			if (!listed)
				strncat(buf, " ?", size - strlen(buf) - 1);
		}
	}
}

static int add_guard_ip(struct xlate *x, const char *ip, const char *where)
{
	for (size_t i = 0; i < x->guard.nr_ips; i++)
		if (!strcmp(x->guard.ips[i], ip))
			return 0;
	if (x->guard.nr_ips == 2 * MAX_GUARD)
		return ta_error_input_at(x->e, E2BIG, "%s: more than %d guest addresses", where,
					 MAX_GUARD);
	x->guard.ips[x->guard.nr_ips++] = ip;
	return 0;
}

static void family_match(const char *family, struct nwf_match *m);

/* An ebtables accept that comes before a chain of the guard's and lets
 * through frames of the guest's that the chain would check: the guard
 * checks them first, so that is not translated. */
static int accepted_before(struct xlate *x, const struct nwf_chain *c)
{
	struct nwf_match fm, both;

	family_match(nwf_chain_family(c->name), &fm);
	fm.dirs = NWF_OUT;
	for (size_t i = 0; i < x->out.nr_l2; i++)
		if (x->out.l2[i].action == NWF_ACCEPT && nwf_match_and(&x->out.l2[i].m, &fm, &both))
			return ta_error_input_at(x->e, EOPNOTSUPP,
						 "%s: the rule there accepts the guest's frames "
						 "before chain %s (priority %d) checks its "
						 "addresses; tap-accel's guard checks them before "
						 "every rule: give the rule a priority after %d",
						 x->out.l2[i].where, c->name, c->prio, c->prio);
	return 0;
}

/* Whether chain c is one of the guard's; if so, take its addresses. */
static int guard_chain(struct xlate *x, const struct nwf_chain *c, bool *is_guard)
{
	int ret;

	const char *family = nwf_chain_family(c->name), *vals[NWF_MAX_VALUES];
	const struct nwf_rule *vr;
	char shape[2048], vattr[32] = "", vvalue[256] = "", where[600];
	size_t n;

	*is_guard = false;
	chain_shape(c, shape, sizeof(shape), &vr, vattr, vvalue);
	for (size_t i = 0; i < sizeof(guard_shapes) / sizeof(guard_shapes[0]); i++) {
		const char *what = guard_shapes[i].what;

		if (strcmp(family, guard_shapes[i].family) || strcmp(shape, guard_shapes[i].shape))
			continue;
		nwf_where(vr->file, vr->node, where, sizeof(where));
		ret = accepted_before(x, c);
		if (ret)
			return ret;
		n = nwf_values(vr, vattr, vvalue, vals, NWF_MAX_VALUES, x->e);
		if (!n)
			return -x->e->err;
		if (!*x->guard.where)
			snprintf(x->guard.where, sizeof(x->guard.where), "%s", where);
		if (!strcmp(what, "mac") || !strcmp(what, "arpmac")) {
			char mac[18];

			if (n != 1 || sscanf(vals[0], "%*2x:%*2x:%*2x:%*2x:%*2x:%*2x") != 0 ||
			    strlen(vals[0]) != 17)
				return ta_error_input_at(x->e, EINVAL,
							 "%s: %s='%s': the guest's MAC must be one "
							 "MAC address",
							 where, vattr, vvalue);
			snprintf(mac, sizeof(mac), "%s", vals[0]);
			if (*x->guard.mac && strcasecmp(x->guard.mac, mac))
				return ta_error_input_at(x->e, EINVAL,
							 "%s: the guest's MAC %s, elsewhere %s: a "
							 "guard has one",
							 where, mac, x->guard.mac);
			strcpy(x->guard.mac, mac);
			*(!strcmp(what, "mac") ? &x->guard.mac_eth : &x->guard.mac_arp) = true;
		} else {
			for (size_t k = 0; k < n; k++)
				if (add_guard_ip(x, vals[k], where))
					return -x->e->err;
			if (!strcmp(what, "ip4"))
				x->guard.ip4 = true;
			if (!strcmp(what, "arpip"))
				x->guard.ip4_arp = true;
		}
		ta_import_comment(x->im, "chain %s (%s): the guard's %s check", c->name,
				  c->file->path, what);
		*is_guard = true;
		return 0;
	}
	return 0;
}

/* ---- the root chain's order ------------------------------------------------------- */

struct root_item {
	int prio;
	unsigned int seq;
	const struct nwf_rule *rule;	/* or */
	const struct nwf_chain *chain;
};

static int by_item(const void *a, const void *b)
{
	const struct root_item *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void family_match(const char *family, struct nwf_match *m)
{
	nwf_match_init(m);
	if (!strcmp(family, "ipv4"))
		m->ethertype = 0x0800;
	else if (!strcmp(family, "ipv6"))
		m->ethertype = 0x86dd;
	else if (!strcmp(family, "arp"))
		m->ethertype = 0x0806;
	else if (!strcmp(family, "rarp"))
		m->ethertype = 0x8035;
}

static int run_chain(struct xlate *x, const struct nwf_chain *c)
{
	const char *family = nwf_chain_family(c->name);
	struct nwf_match fm;
	bool is_guard;
	int ret;

	if (!strcmp(family, "stp") || !strcmp(family, "vlan"))
		return ta_error_input_at(x->e, EOPNOTSUPP,
					 "%s: chain '%s': tap-accel does not translate %s chains",
					 c->file->path, c->name, family);
	ret = guard_chain(x, c, &is_guard);
	if (ret || is_guard)
		return ret;
	family_match(family, &fm);
	for (size_t i = 0; i < c->nr_rules; i++) {
		ret = nwf_rule(&c->rules[i], &fm, &x->out, x->im, x->e);
		if (ret)
			return ret;
	}
	return 0;
}

static int run_root(struct xlate *x)
{
	const struct nwf_load *ld = x->ld;
	const struct nwf_chain *root = &ld->chains[0];
	size_t n = root->nr_rules + ld->nr_chains, k = 0;
	struct root_item *items = calloc(n, sizeof(*items));
	struct nwf_match any;
	int ret = 0;

	if (!items)
		return ta_error_errno(x->e, ENOMEM, "nwfilter");
	for (size_t i = 0; i < root->nr_rules; i++)
		items[k++] = (struct root_item){ root->rules[i].prio, root->rules[i].seq,
						 &root->rules[i], NULL };
	for (size_t i = 1; i < ld->nr_chains; i++)
		items[k++] = (struct root_item){ ld->chains[i].prio, ld->chains[i].seq, NULL,
						 &ld->chains[i] };
	qsort(items, k, sizeof(*items), by_item);
	nwf_match_init(&any);
	for (size_t i = 0; i < k && !ret; i++) {
		if (items[i].chain) {
			ret = run_chain(x, items[i].chain);
		} else {
			ret = nwf_rule(items[i].rule, &any, &x->out, x->im, x->e);
		}
	}
	free(items);
	return ret;
}

/* ---- one list of rules ------------------------------------------------------------ */

struct emitted {
	char **keys; /* the matches written, to leave out rules that could never match */
	size_t n;
	bool two_way, has_state;
	unsigned int all_dirs; /* directions a rule matched every frame of */
	struct nwf_stmt *stmts;
	size_t nr;
};

static bool matches_all(const struct nwf_match *m)
{
	struct nwf_match any;

	nwf_match_init(&any);
	any.dirs = m->dirs;
	return !memcmp(&any, m, sizeof(any));
}

static const char *action_word(enum nwf_action a)
{
	return a == NWF_ACCEPT ? "pass" : a == NWF_REJECT ? "reject" : "drop";
}

static int emit(struct xlate *x, struct emitted *em, enum nwf_action action,
		const struct nwf_match *m, const char *where, const char *via)
{
	char text[512], comment[1300];

	if ((m->dirs & ~em->all_dirs) == 0)
		return 0; /* after a rule that matches every frame of its directions */
	nwf_match_format(m, text, sizeof(text));
	for (size_t i = 0; i < em->n; i++)
		if (!strcmp(em->keys[i], text))
			return 0; /* an earlier rule matches all it would */
	if (em->nr == MAX_EMITTED)
		return ta_error_input(x->e, E2BIG,
				      "%s: the translation makes more than %d rules, more than a "
				      "policy holds (1024)",
				      where, MAX_EMITTED);
	em->keys[em->n++] = strdup(text);
	if (!em->keys[em->n - 1])
		return ta_error_errno(x->e, ENOMEM, "nwfilter");
	em->stmts[em->nr].action = action;
	em->stmts[em->nr].m = *m;
	snprintf(em->stmts[em->nr].where, sizeof(em->stmts[em->nr].where), "%s", where);
	em->nr++;
	if (matches_all(m))
		em->all_dirs |= m->dirs;
	if (m->dirs & NWF_IN)
		em->two_way = true;
	if (*m->states)
		em->two_way = em->has_state = true;
	if (via && strcmp(via, where))
		snprintf(comment, sizeof(comment), "%s, accepted by %s", where, via);
	else
		snprintf(comment, sizeof(comment), "%s", where);
	ta_import_statement(x->im, comment, "rule %s %s", action_word(action), text);
	return 0;
}

static int by_l3(const void *a, const void *b, void *arg)
{
	const struct nwf_out *o = arg;
	size_t i = (const struct nwf_stmt *)a - o->l3, j = (const struct nwf_stmt *)b - o->l3;

	if (o->l3_prio[i] != o->l3_prio[j])
		return o->l3_prio[i] < o->l3_prio[j] ? -1 : 1;
	if (o->l3_seq[i] != o->l3_seq[j])
		return o->l3_seq[i] < o->l3_seq[j] ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* iptables' rules in the order of their priorities, as libvirt writes them. */
static void sort_l3(struct nwf_out *o)
{
	size_t *idx = malloc(o->nr_l3 * sizeof(*idx) + 1);
	struct nwf_stmt *tmp = malloc(o->nr_l3 * sizeof(*tmp) + 1);

	if (!idx || !tmp)
		goto out;
	/* insertion sort: stable, and a few hundred rules at most */
	for (size_t i = 0; i < o->nr_l3; i++) {
		size_t j = i;

		while (j && by_l3(&o->l3[idx[j - 1]], &o->l3[i], o) > 0) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = i;
	}
	for (size_t i = 0; i < o->nr_l3; i++)
		tmp[i] = o->l3[idx[i]];
	memcpy(o->l3, tmp, o->nr_l3 * sizeof(*tmp));
out:
	free(idx);
	free(tmp);
}

static int compose(struct xlate *x, struct emitted *em)
{
	struct nwf_out *o = &x->out;
	struct nwf_match both;
	int ret = 0;

	sort_l3(o);
	for (size_t i = 0; i < o->nr_l2 && !ret; i++) {
		const struct nwf_stmt *s = &o->l2[i];

		if (s->action == NWF_ACCEPT)
			for (size_t j = 0; j < o->nr_l3 && !ret; j++)
				if (nwf_match_and(&s->m, &o->l3[j].m, &both))
					ret = emit(x, em, o->l3[j].action, &both, o->l3[j].where,
						   s->where);
		if (!ret)
			ret = emit(x, em, s->action, &s->m, s->where, NULL);
	}
	for (size_t j = 0; j < o->nr_l3 && !ret; j++)
		ret = emit(x, em, o->l3[j].action, &o->l3[j].m, o->l3[j].where, NULL);
	return ret;
}

/* ---- what a two-way policy passes before its rules ------------------------------- */

/* A kind of frame tap-accel passes in a two-way policy whatever its rules
 * (docs/policy.md, "What a two-way policy does before its rules"). */
static const struct {
	const char *what;
	unsigned int dir;
	int ethertype, proto, sport, dport;
	const char *state;
} always[] = {
	{ "ARP", NWF_OUT, 0x0806, -1, -1, -1, "untracked" },
	{ "ARP", NWF_IN, 0x0806, -1, -1, -1, "untracked" },
	{ "ICMPv6 neighbour discovery, router and MLD messages", NWF_OUT, 0x86dd, 58, -1, -1,
	  "untracked" },
	{ "ICMPv6 neighbour discovery, router and MLD messages", NWF_IN, 0x86dd, 58, -1, -1,
	  "untracked" },
	{ "DHCP", NWF_OUT, 0x0800, 17, 68, 67, "new" },
	{ "DHCP", NWF_IN, 0x0800, 17, 67, 68, "new" },
	{ "DHCPv6", NWF_OUT, 0x86dd, 17, 546, 547, "new" },
	{ "DHCPv6", NWF_IN, 0x86dd, 17, 547, 546, "new" },
};

enum fit { DISJOINT, PARTIAL, COVERS };

static enum fit fits(const struct nwf_match *m, size_t k)
{
	bool partial = false;

	if (!(m->dirs & always[k].dir))
		return DISJOINT;
	if (m->ethertype >= 0 && m->ethertype != always[k].ethertype)
		return DISJOINT;
	if (m->proto >= 0 && m->proto != always[k].proto)
		return DISJOINT;
	if (m->sport_lo >= 0 &&
	    (always[k].sport < 0 || always[k].sport < m->sport_lo || always[k].sport > m->sport_hi))
		return always[k].sport < 0 ? DISJOINT : DISJOINT;
	if (m->dport_lo >= 0 &&
	    (always[k].dport < 0 || always[k].dport < m->dport_lo || always[k].dport > m->dport_hi))
		return DISJOINT;
	if (*m->states && !strstr(m->states, always[k].state))
		return DISJOINT;
	if (m->icmp_type >= 0 && always[k].proto != 58)
		return DISJOINT;
	partial = *m->smac || *m->dmac || *m->src || *m->dst || m->icmp_type >= 0;
	return partial ? PARTIAL : COVERS;
}

static void check_always(struct xlate *x, const struct emitted *em)
{
	for (size_t k = 0; k < sizeof(always) / sizeof(always[0]); k++) {
		const char *dropped_at = NULL;

		for (size_t i = 0; i < em->nr; i++) {
			enum fit f = fits(&em->stmts[i].m, k);

			if (f == DISJOINT)
				continue;
			if (em->stmts[i].action != NWF_ACCEPT && !dropped_at)
				dropped_at = em->stmts[i].where;
			if (f == COVERS)
				break;
		}
		if (dropped_at)
			ta_import_warn(x->im,
				       "%s: the filter drops %s %s the guest here; a two-way "
				       "tap-accel policy passes them before its rules (the guard "
				       "checks the guest's own): they pass",
				       dropped_at, always[k].what,
				       always[k].dir == NWF_IN ? "to" : "from");
	}
}

/* ---- the whole ---------------------------------------------------------------------- */

static int write_guard(struct xlate *x)
{
	struct guard *g = &x->guard;
	char line[4096] = "guard";

	if (!*g->mac && !g->nr_ips)
		return 0;
	if (g->mac_eth != g->mac_arp && *g->mac)
		ta_import_warn(x->im,
			       "%s: the filter checks the guest's MAC in %s only; tap-accel's "
			       "guard checks it in both the Ethernet header and ARP (and IPv6 "
			       "neighbour discovery)",
			       g->where, g->mac_eth ? "the Ethernet header" : "ARP");
	if (g->ip4 != g->ip4_arp)
		ta_import_warn(x->im,
			       "%s: the filter checks the guest's IPv4 address in %s only; "
			       "tap-accel's guard checks IPv4 sources and ARP senders both",
			       g->where, g->ip4 ? "IPv4 sources" : "ARP");
	if (*g->mac)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " mac %s", g->mac);
	for (size_t i = 0; i < g->nr_ips; i++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), " ip %s", g->ips[i]);
	ta_import_statement(x->im, g->where, "%s", line);
	return 0;
}

int ta_import_nwfilter(const struct ta_nwf_input *in, struct ta_import *im,
		       struct ta_error *e)
{
	struct nwf_load ld;
	struct xlate x = { .im = im, .e = e };
	struct emitted em = { 0 };
	int ret;

	if (!in->nr_files)
		return ta_error_input(e, EINVAL, "no filter to translate");
	x.out.l2 = calloc(NWF_MAX_STMTS, sizeof(*x.out.l2));
	x.out.l3 = calloc(NWF_MAX_STMTS, sizeof(*x.out.l3));
	x.out.l3_prio = calloc(NWF_MAX_STMTS, sizeof(int));
	x.out.l3_seq = calloc(NWF_MAX_STMTS, sizeof(unsigned int));
	em.keys = calloc(MAX_EMITTED, sizeof(char *));
	em.stmts = calloc(MAX_EMITTED, sizeof(*em.stmts));
	ret = nwf_load(in, &ld, im, e);
	x.ld = &ld;
	if (!x.out.l2 || !x.out.l3 || !x.out.l3_prio || !x.out.l3_seq || !em.keys || !em.stmts)
		ret = ret ?: ta_error_errno(e, ENOMEM, "nwfilter");
	if (!ret) {
		ta_import_comment(im, "libvirt nwfilter '%s' (%s), translated by tap-accel",
				  ld.files[0].name, ld.files[0].path);
		ret = run_root(&x);
	}
	if (!ret)
		ret = write_guard(&x);
	if (!ret)
		ret = compose(&x, &em);
	if (!ret && em.two_way) {
		check_always(&x, &em);
		/* a policy that writes no state match of its own gets tap-accel's
		 * (invalid dropped, answers passed) before its rules, which libvirt
		 * does not do: one of its own, for frames of the local
		 * experimental ethertype that would pass anyway, turns them off */
		if (!em.has_state)
			ta_import_statement(im, "libvirt's default: nothing dropped by state",
					    "rule pass in,out state untracked ethertype 0x88b5");
	}
	if (!ret)
		ta_import_comment(im, "what no rule decides passes, as libvirt lets it");
	for (size_t i = 0; i < em.n; i++)
		free(em.keys[i]);
	free(em.keys);
	free(em.stmts);
	free(x.out.l2);
	free(x.out.l3);
	free(x.out.l3_prio);
	free(x.out.l3_seq);
	nwf_load_free(&ld);
	return ret;
}

int ta_nwf_parse_params(char *buf, struct ta_nwf_param *out, size_t max, struct ta_error *e)
{
	size_t n = 0;
	char *save, *w;

	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(w, '=');

		if (!eq || eq == w || !eq[1])
			return ta_error_input(e, EINVAL,
					      "--param '%s': expected NAME=VALUE[,NAME=VALUE...]", w);
		if (n == max)
			return ta_error_input(e, E2BIG, "--param: more than %zu values", max);
		*eq = 0;
		out[n].name = w;
		out[n].value = eq + 1;
		n++;
	}
	return (int)n;
}
