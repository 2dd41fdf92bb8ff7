// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nwfilter_rule.c - one nwfilter <rule> as tap-accel statements. Its
 * protocol element says the layer: mac, vlan, stp, arp, rarp, ip and ipv6
 * are ebtables' (stateless, every frame), tcp, udp, sctp, icmp, igmp,
 * all, ... and their -ipv6 forms iptables' (IP only, with connection
 * state: an accept with statematch lets its connection's answers back).
 * Every attribute either becomes a match that tests the same thing or
 * makes an error that names it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nwfilter_rule.h"

/* A protocol element: its layer, the ethertype it implies, its IP protocol. */
static const struct proto_elem {
	const char *name;
	bool l3;
	int ethertype;
	int proto;
} elems[] = {
	{ "mac", false, -1, -1 },	   { "arp", false, 0x0806, -1 },
	{ "rarp", false, 0x8035, -1 },	   { "ip", false, 0x0800, -1 },
	{ "ipv6", false, 0x86dd, -1 },	   { "tcp", true, 0x0800, 6 },
	{ "udp", true, 0x0800, 17 },	   { "udplite", true, 0x0800, 136 },
	{ "sctp", true, 0x0800, 132 },	   { "icmp", true, 0x0800, 1 },
	{ "igmp", true, 0x0800, 2 },	   { "esp", true, 0x0800, 50 },
	{ "ah", true, 0x0800, 51 },	   { "all", true, 0x0800, -1 },
	{ "tcp-ipv6", true, 0x86dd, 6 },   { "udp-ipv6", true, 0x86dd, 17 },
	{ "udplite-ipv6", true, 0x86dd, 136 }, { "sctp-ipv6", true, 0x86dd, 132 },
	{ "icmpv6", true, 0x86dd, 58 },	   { "esp-ipv6", true, 0x86dd, 50 },
	{ "ah-ipv6", true, 0x86dd, 51 },   { "all-ipv6", true, 0x86dd, -1 },
};

/* ARP's payload: tap-accel matches none of it (its guard checks the
 * sender's addresses). */
static bool arp_payload(const char *attr)
{
	static const char *const names[] = { "hwtype",	     "protocoltype", "opcode",
					     "arpsrcmacaddr", "arpdstmacaddr", "arpsrcipaddr",
					     "arpsrcipmask", "arpdstipaddr", "arpdstipmask",
					     "gratuitous" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(attr, names[i]))
			return true;
	return false;
}

static const struct {
	const char *name;
	int proto;
} ip_protos[] = {
	{ "tcp", 6 }, { "udp", 17 }, { "udplite", 136 }, { "esp", 50 }, { "ah", 51 },
	{ "icmp", 1 }, { "igmp", 2 }, { "sctp", 132 }, { "icmpv6", 58 },
};

size_t nwf_values(const struct nwf_rule *r, const char *attr, const char *ref,
		  const char **values, size_t max, struct ta_error *e)
{
	char where[600];

	if (ref[0] != '$') {
		values[0] = ref;
		return 1;
	}
	nwf_where(r->file, r->node, where, sizeof(where));
	if (strchr(ref, '['))
		return ta_error_input_at(e, EINVAL,
					 "%s: %s='%s': iterators over a list ($NAME[@N]) are not "
					 "translated; write one rule per value",
					 where, attr, ref),
		       0;
	for (size_t i = 0; i < r->scope->n; i++)
		if (!strcmp(r->scope->v[i].name, ref + 1)) {
			size_t n = r->scope->v[i].nr_values < max ? r->scope->v[i].nr_values : max;

			memcpy(values, r->scope->v[i].values, n * sizeof(*values));
			return n;
		}
	if (!strcmp(ref, "$IP"))
		ta_error_input_at(e, EINVAL,
				  "%s: %s='%s': no parameter IP is given (libvirt would learn IP from "
				  "the guest's traffic where it can; tap-accel needs it: give <parameter "
				  "name='IP' value='...'/> in the domain's <filterref>, or --param IP=...)",
				  where, attr, ref);
	else
		ta_error_input_at(e, EINVAL,
				  "%s: %s='%s': no parameter %s is given (libvirt needs it too: give "
				  "<parameter name='%s' value='...'/> in the domain's <filterref>, or "
				  "--param %s=...)",
				  where, attr, ref, ref + 1, ref + 1, ref + 1);
	return 0;
}

/* ---- values ------------------------------------------------------------------- */

static int bad(struct ta_error *e, const char *where, const char *elem, const char *attr,
	       const char *value, const char *want)
{
	return ta_error_input_at(e, EINVAL, "%s: <%s %s='%s'>: %s", where, elem, attr, value, want);
}

static int number(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int mac_value(const char *s, char *out)
{
	unsigned int b[6];
	char tail;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6 || strlen(s) != 17)
		return -1;
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
	return 0;
}

/* A mask as a prefix length: a number, or dotted (IPv4) / colon (IPv6). */
static int mask_len(const char *s, int family, int *len)
{
	unsigned char b[16];
	int bits = family == AF_INET ? 32 : 128, n = 0;
	long v;

	if (!number(s, 0, bits, &v)) {
		*len = (int)v;
		return 0;
	}
	if (inet_pton(family, s, b) != 1)
		return -1;
	for (int i = 0; i < bits; i++) {
		bool set = b[i / 8] & (0x80 >> (i % 8));

		if (set && n != i)
			return -1; /* not contiguous */
		n += set;
	}
	*len = n;
	return 0;
}

/* ADDRESS/LEN with the host bits cleared, as iptables and ebtables match. */
static int prefix(const char *addr, int len, int family, char *out, size_t size)
{
	unsigned char b[16];
	char text[INET6_ADDRSTRLEN];
	int bits = family == AF_INET ? 32 : 128;

	if (inet_pton(family, addr, b) != 1)
		return -1;
	for (int i = len; i < bits; i++)
		b[i / 8] &= ~(0x80 >> (i % 8));
	inet_ntop(family, b, text, sizeof(text));
	if (len == bits)
		snprintf(out, size, "%s", text);
	else
		snprintf(out, size, "%s/%d", text, len);
	return 0;
}

/* ---- one rule --------------------------------------------------------------------- */

struct attrs {
	const char *name[32];
	const char *value[32]; /* substituted */
	size_t n;
};

static const char *get(const struct attrs *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (!strcmp(a->name[i], name))
			return a->value[i];
	return NULL;
}

static int ports(const struct attrs *a, const char *where, const char *elem, const char *which,
		 int *lo, int *hi, struct ta_error *e)
{
	char sname[32], ename[32];
	const char *s, *t;
	long v, w;

	snprintf(sname, sizeof(sname), "%sportstart", which);
	snprintf(ename, sizeof(ename), "%sportend", which);
	s = get(a, sname);
	t = get(a, ename);
	if (!s && !t)
		return 0;
	if (!s)
		return ta_error_input_at(e, EINVAL, "%s: <%s %s='%s'> without %s", where, elem,
					 ename, t, sname);
	if (number(s, 0, 65535, &v))
		return bad(e, where, elem, sname, s, "expected a port 0..65535");
	w = v;
	if (t && (number(t, 0, 65535, &w) || w < v))
		return bad(e, where, elem, ename, t, "expected a port from the start to 65535");
	*lo = (int)v;
	*hi = (int)w;
	return 0;
}

static int address(const struct attrs *a, const char *where, const char *elem,
		   const char *which, int family, char *out, struct ta_error *e)
{
	char aname[32], mname[32];
	const char *addr, *mask;
	int len = family == AF_INET ? 32 : 128;

	snprintf(aname, sizeof(aname), "%sipaddr", which);
	snprintf(mname, sizeof(mname), "%sipmask", which);
	addr = get(a, aname);
	mask = get(a, mname);
	if (!addr) {
		if (mask)
			return ta_error_input_at(e, EINVAL, "%s: <%s %s='%s'> without %s", where,
						 elem, mname, mask, aname);
		return 0;
	}
	if (mask && mask_len(mask, family, &len))
		return bad(e, where, elem, mname, mask, "expected a prefix length or a netmask");
	if (prefix(addr, len, family, out, 64))
		return bad(e, where, elem, aname, addr,
			   family == AF_INET ? "expected an IPv4 address" :
					       "expected an IPv6 address");
	return 0;
}

static int known(const char *attr, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(attr, *list))
			return 1;
	return 0;
}

/* Attributes tap-accel matches; any other is an error naming it. */
static const char *const l2_attrs[] = { "srcmacaddr", "dstmacaddr", "protocolid", "srcipaddr",
					"srcipmask", "dstipaddr", "dstipmask", "protocol",
					"srcportstart", "srcportend", "dstportstart", "dstportend",
					"comment", "match", NULL };
static const char *const l3_attrs[] = { "srcmacaddr", "srcipaddr", "srcipmask", "dstipaddr",
					"dstipmask", "srcipfrom", "srcipto", "dstipfrom", "dstipto", "srcportstart", "srcportend", "dstportstart",
					"dstportend", "type", "state", "comment", "match", NULL };

static int element_match(const struct proto_elem *pe, const struct attrs *a, const char *where,
			 struct nwf_match *m, bool *narrowed, struct ta_error *e)
{
	int family = pe->ethertype == 0x86dd ? AF_INET6 : AF_INET;
	const char *v;
	long n;
	int ret;

	for (size_t i = 0; i < a->n; i++) {
		const char *at = a->name[i];

		if ((!strcmp(pe->name, "arp") || !strcmp(pe->name, "rarp")) && arp_payload(at)) {
			*narrowed = true;
			continue;
		}
		if (!known(at, pe->l3 ? l3_attrs : l2_attrs) ||
		    (!strcmp(at, "protocolid") && strcmp(pe->name, "mac")) ||
		    (!strcmp(at, "type") && pe->proto != 1 && pe->proto != 58) ||
		    (!pe->l3 && strcmp(pe->name, "ip") && strcmp(pe->name, "ipv6") &&
		     strcmp(at, "srcmacaddr") && strcmp(at, "dstmacaddr") &&
		     strcmp(at, "protocolid") && strcmp(at, "comment") && strcmp(at, "match")))
			return ta_error_input_at(e, EOPNOTSUPP,
						 "%s: <%s %s='%s'>: tap-accel cannot match %s "
						 "(docs/guests.md lists what it translates)",
						 where, pe->name, at, a->value[i], at);
	}
	m->ethertype = pe->ethertype;
	m->proto = pe->proto;
	if ((v = get(a, "match")) && strcmp(v, "yes"))
		return bad(e, where, pe->name, "match", v,
			   "a negated match is not translated: tap-accel's rules test what "
			   "holds, never what does not; write the rules the other way round");
	if ((v = get(a, "srcmacaddr")) && mac_value(v, m->smac))
		return bad(e, where, pe->name, "srcmacaddr", v, "expected a MAC address");
	if ((v = get(a, "dstmacaddr")) && mac_value(v, m->dmac))
		return bad(e, where, pe->name, "dstmacaddr", v, "expected a MAC address");
	if ((v = get(a, "protocolid"))) {
		if (!strcmp(v, "ipv4"))
			m->ethertype = 0x0800;
		else if (!strcmp(v, "ipv6"))
			m->ethertype = 0x86dd;
		else if (!strcmp(v, "arp"))
			m->ethertype = 0x0806;
		else if (!strcmp(v, "rarp"))
			m->ethertype = 0x8035;
		else if (!number(v, 0x600, 0xffff, &n))
			m->ethertype = (int)n;
		else
			return bad(e, where, pe->name, "protocolid", v,
				   "expected ipv4, ipv6, arp, rarp or an ethertype 0x600..0xffff");
	}
	if ((v = get(a, "protocol"))) {
		size_t i;

		for (i = 0; i < sizeof(ip_protos) / sizeof(ip_protos[0]); i++)
			if (!strcmp(v, ip_protos[i].name))
				break;
		if (i < sizeof(ip_protos) / sizeof(ip_protos[0]))
			m->proto = ip_protos[i].proto;
		else if (!number(v, 0, 255, &n))
			m->proto = (int)n;
		else
			return bad(e, where, pe->name, "protocol", v,
				   "expected tcp, udp, icmp, ... or 0..255");
	}
	if ((ret = address(a, where, pe->name, "src", family, m->src, e)) ||
	    (ret = address(a, where, pe->name, "dst", family, m->dst, e)) ||
	    (ret = ports(a, where, pe->name, "src", &m->sport_lo, &m->sport_hi, e)) ||
	    (ret = ports(a, where, pe->name, "dst", &m->dport_lo, &m->dport_hi, e)))
		return ret;
	if ((v = get(a, "type"))) {
		if (number(v, 0, 255, &n))
			return bad(e, where, pe->name, "type", v, "expected an ICMP type 0..255");
		m->icmp_type = (int)n;
	}
	return 0;
}

/* state='NEW,ESTABLISHED' as the policy's list; "" for NONE. */
static int states(const char *v, const char *where, const char *elem, char *out,
		  struct ta_error *e)
{
	char buf[128], *save, *w;

	snprintf(buf, sizeof(buf), "%s", v);
	*out = 0;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		const char *name = !strcasecmp(w, "NEW")	 ? "new" :
				   !strcasecmp(w, "ESTABLISHED") ? "established" :
				   !strcasecmp(w, "RELATED")	 ? "related" :
				   !strcasecmp(w, "INVALID")	 ? "invalid" :
				   !strcasecmp(w, "NONE")	 ? "" :
								   NULL;

		if (!name)
			return bad(e, where, elem, "state", v,
				   "expected NEW, ESTABLISHED, RELATED, INVALID or NONE");
		if (*name && *out)
			strcat(out, ",");
		strcat(out, name);
	}
	return 0;
}

struct rule_head {
	enum nwf_action action;
	unsigned int dirs;
	bool statematch;
	char where[600];
};

static int head(const struct nwf_rule *r, struct rule_head *h, struct ta_error *e)
{
	static const char *const actions[] = { "accept", "drop", "reject", "return", "continue" };
	char a[32] = "", d[32] = "", s[32];
	size_t i;

	nwf_where(r->file, r->node, h->where, sizeof(h->where));
	for (xmlAttrPtr p = r->node->properties; p; p = p->next) {
		const char *n = (const char *)p->name;

		if (strcmp(n, "action") && strcmp(n, "direction") && strcmp(n, "priority") &&
		    strcmp(n, "statematch"))
			return ta_error_input_at(e, EINVAL,
						 "%s: <rule %s=...>: not an attribute of a rule "
						 "(action, direction, priority, statematch)",
						 h->where, n);
	}
	nwf_attr(r->node, "action", a, sizeof(a));
	nwf_attr(r->node, "direction", d, sizeof(d));
	for (i = 0; i < 5 && strcmp(a, actions[i]); i++)
		;
	if (i == 5)
		return ta_error_input_at(e, EINVAL,
					 "%s: <rule action='%s'>: expected accept, drop, reject, "
					 "return or continue",
					 h->where, a);
	h->action = (enum nwf_action)i;
	if (!strcmp(d, "in"))
		h->dirs = NWF_IN;
	else if (!strcmp(d, "out"))
		h->dirs = NWF_OUT;
	else if (!strcmp(d, "inout"))
		h->dirs = NWF_IN | NWF_OUT;
	else
		return ta_error_input_at(e, EINVAL,
					 "%s: <rule direction='%s'>: expected in, out or inout",
					 h->where, d);
	h->statematch = true;
	if (nwf_attr(r->node, "statematch", s, sizeof(s)))
		h->statematch = !(!strcmp(s, "0") || !strcasecmp(s, "false"));
	return 0;
}

static int push(struct nwf_out *out, const struct nwf_rule *r, bool l3, enum nwf_action action,
		const struct nwf_match *m, const char *where, struct ta_error *e)
{
	size_t *n = l3 ? &out->nr_l3 : &out->nr_l2;
	struct nwf_stmt *s;

	if (*n == NWF_MAX_STMTS)
		return ta_error_input_at(e, E2BIG, "%s: more than %d statements", where,
					 NWF_MAX_STMTS);
	s = &(l3 ? out->l3 : out->l2)[*n];
	s->action = action;
	s->m = *m;
	s->l3 = l3;
	snprintf(s->where, sizeof(s->where), "%s", where);
	if (l3) {
		out->l3_prio[*n] = r->prio;
		out->l3_seq[*n] = r->seq;
	}
	(*n)++;
	return 0;
}

/* An iptables accept with statematch: its connection's first frames in
 * its direction, the answers the other way (libvirt's two rules). */
static int push_l3(struct nwf_out *out, const struct nwf_rule *r, const struct rule_head *h,
		   const char *state, struct nwf_match *m, struct ta_error *e)
{
	struct nwf_match rev;
	int ret;

	if (state) {
		snprintf(m->states, sizeof(m->states), "%s", state);
		return push(out, r, true, h->action, m, h->where, e);
	}
	if (h->action != NWF_ACCEPT || !h->statematch)
		return push(out, r, true, h->action, m, h->where, e);
	snprintf(m->states, sizeof(m->states), "new,established");
	ret = push(out, r, true, h->action, m, h->where, e);
	if (ret || h->dirs == (NWF_IN | NWF_OUT))
		return ret;
	nwf_match_reverse(m, &rev);
	snprintf(rev.states, sizeof(rev.states), "established");
	return push(out, r, true, h->action, &rev, h->where, e);
}

static int one_match(const struct nwf_rule *r, const struct rule_head *h,
		     const struct proto_elem *pe, const struct attrs *a,
		     const struct nwf_match *family, struct nwf_out *out, struct ta_import *im,
		     struct ta_error *e)
{
	struct nwf_match m, both;
	bool narrowed = false;
	char state[64];
	const char *sv;
	int ret;

	nwf_match_init(&m);
	m.dirs = h->dirs;
	if (pe) {
		ret = element_match(pe, a, h->where, &m, &narrowed, e);
		if (ret)
			return ret;
	}
	if (narrowed) {
		if (h->action != NWF_ACCEPT)
			return ta_error_input_at(e, EOPNOTSUPP,
						 "%s: <%s>: a %s that tests ARP's payload (opcode, "
						 "arp addresses): tap-accel matches ARP frames by "
						 "their Ethernet header only",
						 h->where, pe->name,
						 h->action == NWF_DROP ? "drop" : "reject");
		ta_import_warn(im,
			       "%s: <rule action='accept'> with <%s> tests ARP's payload, which "
			       "tap-accel cannot match: left out, so what it accepts is judged by "
			       "the rules after it",
			       h->where, pe->name);
		return 0;
	}
	if (pe && pe->l3) {
		sv = get(a, "state");
		if (sv && (ret = states(sv, h->where, pe->name, state, e)))
			return ret;
		return push_l3(out, r, h, sv ? state : NULL, &m, e);
	}
	if (!nwf_match_and(&m, family, &both)) {
		ta_import_warn(im, "%s: <%s> can never match in its chain: left out", h->where,
			       pe ? pe->name : "rule");
		return 0;
	}
	if (h->action == NWF_REJECT)
		ta_import_comment(im, "%s: reject at libvirt's ebtables layer drops", h->where);
	return push(out, r, false, h->action == NWF_REJECT ? NWF_DROP : h->action, &both,
		    h->where, e);
}

/* ---- address ranges ------------------------------------------------------------ */

#define MAX_RANGE_PREFIXES 64

/* An address as a 128-bit number (IPv4 in the low 32 bits). */
static int addr_num(const char *s, int family, unsigned __int128 *out)
{
	unsigned char b[16];
	int n = family == AF_INET ? 4 : 16;

	if (inet_pton(family, s, b) != 1)
		return -1;
	*out = 0;
	for (int i = 0; i < n; i++)
		*out = (*out << 8) | b[i];
	return 0;
}

static void num_addr(unsigned __int128 v, int family, char *out, size_t size)
{
	unsigned char b[16];
	int n = family == AF_INET ? 4 : 16;

	for (int i = n - 1; i >= 0; i--, v >>= 8)
		b[i] = (unsigned char)v;
	inet_ntop(family, b, out, (socklen_t)size);
}

/* FROM..TO as the fewest prefixes, "ADDR/LEN" each; their count, or -1
 * when it is not a range or takes more than `max`. */
static int range_prefixes(const char *from, const char *to, int family, char (*out)[64],
			  int max)
{
	int bits = family == AF_INET ? 32 : 128, n = 0;
	unsigned __int128 lo, hi;

	if (addr_num(from, family, &lo) || addr_num(to, family, &hi) || lo > hi)
		return -1;
	for (;;) {
		int len = bits;
		char a[INET6_ADDRSTRLEN];

		/* the largest block that starts at lo and ends by hi */
		while (len > 0) {
			unsigned __int128 size = (unsigned __int128)1 << (bits - len + 1);

			if ((lo & (size - 1)) || lo + size - 1 > hi || lo + size - 1 < lo)
				break;
			len--;
		}
		if (n == max)
			return -1;
		num_addr(lo, family, a, sizeof(a));
		snprintf(out[n++], 64, "%s/%d", a, len);
		if (len == 0 || lo + (((unsigned __int128)1 << (bits - len)) - 1) >= hi)
			return n;
		lo += (unsigned __int128)1 << (bits - len);
	}
}

/* srcipfrom/srcipto (and dst): one rule per prefix of the range, written
 * as srcipaddr/srcipmask; then one_match(). */
static int one(const struct nwf_rule *r, const struct rule_head *h, const struct proto_elem *pe,
	       const struct attrs *a, const struct nwf_match *family, struct nwf_out *out,
	       struct ta_import *im, struct ta_error *e)
{
	static const char *const sides[] = { "src", "dst" };
	int fam = pe && pe->ethertype == 0x86dd ? AF_INET6 : AF_INET;

	for (int k = 0; k < 2; k++) {
		char fname[16], tname[16], aname[16], mname[16], len[8];
		char prefixes[MAX_RANGE_PREFIXES][64];
		const char *from, *to;
		struct attrs b;
		int n, ret;

		snprintf(fname, sizeof(fname), "%sipfrom", sides[k]);
		snprintf(tname, sizeof(tname), "%sipto", sides[k]);
		from = get(a, fname);
		to = get(a, tname);
		if (!from && !to)
			continue;
		if (!from || !to || get(a, k ? "dstipaddr" : "srcipaddr"))
			return ta_error_input_at(e, EINVAL,
						 "%s: <%s>: %s and %s go together, without %sipaddr",
						 h->where, pe ? pe->name : "rule", fname, tname,
						 sides[k]);
		n = range_prefixes(from, to, fam, prefixes, MAX_RANGE_PREFIXES);
		if (n < 0)
			return ta_error_input_at(e, EINVAL,
						 "%s: <%s %s='%s' %s='%s'>: expected a range of "
						 "addresses of at most %d prefixes",
						 h->where, pe ? pe->name : "rule", fname, from, tname, to,
						 MAX_RANGE_PREFIXES);
		snprintf(aname, sizeof(aname), "%sipaddr", sides[k]);
		snprintf(mname, sizeof(mname), "%sipmask", sides[k]);
		for (int i = 0; i < n; i++) {
			char *slash = strchr(prefixes[i], '/');

			b.n = 0;
			for (size_t j = 0; j < a->n; j++)
				if (strcmp(a->name[j], fname) && strcmp(a->name[j], tname)) {
					b.name[b.n] = a->name[j];
					b.value[b.n++] = a->value[j];
				}
			*slash = 0;
			snprintf(len, sizeof(len), "%s", slash + 1);
			b.name[b.n] = aname;
			b.value[b.n++] = prefixes[i];
			b.name[b.n] = mname;
			b.value[b.n++] = len;
			ret = one(r, h, pe, &b, family, out, im, e);
			if (ret)
				return ret;
		}
		return 0;
	}
	return one_match(r, h, pe, a, family, out, im, e);
}

int nwf_rule(const struct nwf_rule *r, const struct nwf_match *family, struct nwf_out *out,
	     struct ta_import *im, struct ta_error *e)
{
	const struct proto_elem *pe = NULL;
	struct rule_head h;
	xmlNodePtr el = NULL;
	struct attrs raw = { .n = 0 }, a;
	const char *multi = NULL, *vals[NWF_MAX_VALUES];
	char store[32][256];
	size_t nr_vals = 1;
	int ret = head(r, &h, e);

	if (ret)
		return ret;
	for (xmlNodePtr n = r->node->children; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (el)
			return ta_error_input_at(e, EINVAL,
						 "%s: <rule> with <%s> and <%s>: a rule has one "
						 "protocol element",
						 h.where, (const char *)el->name, (const char *)n->name);
		el = n;
	}
	if (el) {
		for (size_t i = 0; i < sizeof(elems) / sizeof(elems[0]); i++)
			if (!strcmp((const char *)el->name, elems[i].name))
				pe = &elems[i];
		if (!pe)
			return ta_error_input_at(e, EOPNOTSUPP,
						 "%s: <%s>: not translated (tap-accel translates "
						 "mac, arp, rarp, ip, ipv6, tcp, udp, udplite, "
						 "sctp, icmp, igmp, esp, ah, all, icmpv6 and the "
						 "-ipv6 forms)",
						 h.where, (const char *)el->name);
		for (xmlAttrPtr p = el->properties; p && raw.n < 32; p = p->next) {
			raw.name[raw.n] = (const char *)p->name;
			nwf_attr(el, raw.name[raw.n], store[raw.n], sizeof(store[raw.n]));
			raw.value[raw.n] = store[raw.n];
			raw.n++;
		}
	}
	if (h.action == NWF_CONTINUE) {
		ta_import_comment(im, "%s: continue: decides nothing", h.where);
		return 0;
	}
	if (h.action == NWF_RETURN)
		return ta_error_input_at(e, EOPNOTSUPP,
					 "%s: <rule action='return'>: tap-accel's rules cannot "
					 "return from a chain; it translates return only in the "
					 "anti-spoofing chains it enforces with its guard "
					 "(no-mac-spoofing, no-ip-spoofing, no-arp-spoofing)",
					 h.where);
	/* a parameter with many values ($IP): one rule per value */
	for (size_t i = 0; i < raw.n; i++) {
		size_t n;

		if (raw.value[i][0] != '$')
			continue;
		n = nwf_values(r, raw.name[i], raw.value[i], vals, NWF_MAX_VALUES, e);
		if (!n)
			return -e->err;
		if (n == 1 || (multi && !strcmp(multi, raw.value[i])))
			continue;
		if (multi)
			return ta_error_input_at(e, EOPNOTSUPP,
						 "%s: <%s>: two parameters with several values "
						 "each (%s, %s) in one rule are not translated",
						 h.where, pe->name, multi, raw.value[i]);
		multi = raw.value[i];
		nr_vals = n;
	}
	for (size_t k = 0; k < nr_vals; k++) {
		a = raw;
		for (size_t i = 0; i < a.n; i++) {
			const char *one_val[NWF_MAX_VALUES];
			size_t cnt;

			if (a.value[i][0] != '$')
				continue;
			cnt = nwf_values(r, a.name[i], a.value[i], one_val, NWF_MAX_VALUES, e);
			a.value[i] = one_val[cnt > 1 ? k : 0];
		}
		ret = one(r, &h, pe, &a, family, out, im, e);
		if (ret)
			return ret;
	}
	return 0;
}
