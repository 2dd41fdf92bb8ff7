// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * nwfilter_match.c - the matches of a translated rule: their AND (an
 * ebtables rule's with an iptables rule's, a chain's family with its
 * rules'), their reverse (a connection's answers) and their text.
 */
#include <string.h>

#include "nwfilter_match.h"

void nwf_match_init(struct nwf_match *m)
{
	memset(m, 0, sizeof(*m));
	m->dirs = NWF_IN | NWF_OUT;
	m->ethertype = m->proto = m->icmp_type = -1;
	m->sport_lo = m->sport_hi = m->dport_lo = m->dport_hi = -1;
}

static bool and_str(const char *a, const char *b, char *out, size_t size)
{
	if (*a && *b && strcmp(a, b))
		return false;
	memmove(out, *a ? a : b, strlen(*a ? a : b) + 1 > size ? size : strlen(*a ? a : b) + 1);
	return true;
}

static bool and_int(int a, int b, int *out)
{
	if (a >= 0 && b >= 0 && a != b)
		return false;
	*out = a >= 0 ? a : b;
	return true;
}

/* Two port ranges: their overlap. */
static bool and_ports(int alo, int ahi, int blo, int bhi, int *lo, int *hi)
{
	if (alo < 0 || blo < 0) {
		*lo = alo < 0 ? blo : alo;
		*hi = alo < 0 ? bhi : ahi;
		return true;
	}
	*lo = alo > blo ? alo : blo;
	*hi = ahi < bhi ? ahi : bhi;
	return *lo <= *hi;
}

/* Two state lists: the states in both. */
static bool and_states(const char *a, const char *b, char *out, size_t size)
{
	static const char *const names[] = { "new", "established", "related", "invalid",
					     "untracked" };
	char buf[64] = "";

	if (!*a || !*b)
		return and_str(a, b, out, size);
	for (size_t i = 0; i < 5; i++) {
		size_t n = strlen(names[i]);
		const char *p = strstr(a, names[i]), *q = strstr(b, names[i]);

		if (p && q && (!p[n] || p[n] == ',') && (!q[n] || q[n] == ',')) {
			if (*buf)
				strcat(buf, ",");
			strcat(buf, names[i]);
		}
	}
	if (!*buf)
		return false;
	snprintf(out, size, "%s", buf);
	return true;
}

bool nwf_match_and(const struct nwf_match *a, const struct nwf_match *b,
		   struct nwf_match *out)
{
	struct nwf_match m;

	nwf_match_init(&m);
	m.dirs = a->dirs & b->dirs;
	return m.dirs && and_states(a->states, b->states, m.states, sizeof(m.states)) &&
	       and_str(a->smac, b->smac, m.smac, sizeof(m.smac)) &&
	       and_str(a->dmac, b->dmac, m.dmac, sizeof(m.dmac)) &&
	       and_int(a->ethertype, b->ethertype, &m.ethertype) &&
	       and_str(a->src, b->src, m.src, sizeof(m.src)) &&
	       and_str(a->dst, b->dst, m.dst, sizeof(m.dst)) &&
	       and_int(a->proto, b->proto, &m.proto) &&
	       and_ports(a->sport_lo, a->sport_hi, b->sport_lo, b->sport_hi, &m.sport_lo,
			 &m.sport_hi) &&
	       and_ports(a->dport_lo, a->dport_hi, b->dport_lo, b->dport_hi, &m.dport_lo,
			 &m.dport_hi) &&
	       and_int(a->icmp_type, b->icmp_type, &m.icmp_type) && (*out = m, true);
}

void nwf_match_reverse(const struct nwf_match *m, struct nwf_match *out)
{
	struct nwf_match r = *m;

	r.dirs = (m->dirs & NWF_IN ? NWF_OUT : 0) | (m->dirs & NWF_OUT ? NWF_IN : 0);
	memcpy(r.src, m->dst, sizeof(r.src));
	memcpy(r.dst, m->src, sizeof(r.dst));
	/* a source MAC only the sender's frames carry */
	memcpy(r.dmac, m->smac, sizeof(r.dmac));
	memcpy(r.smac, m->dmac, sizeof(r.smac));
	r.sport_lo = m->dport_lo;
	r.sport_hi = m->dport_hi;
	r.dport_lo = m->sport_lo;
	r.dport_hi = m->sport_hi;
	*out = r;
}

static void ports(char *buf, size_t size, const char *what, int lo, int hi)
{
	size_t n = strlen(buf);

	if (lo < 0)
		return;
	if (lo == hi)
		snprintf(buf + n, size - n, " %s %d", what, lo);
	else
		snprintf(buf + n, size - n, " %s %d-%d", what, lo, hi);
}

#define ADD(...) snprintf(buf + strlen(buf), size - strlen(buf), __VA_ARGS__)

void nwf_match_format(const struct nwf_match *m, char *buf, size_t size)
{
	*buf = 0;
	ADD("%s", m->dirs == (NWF_IN | NWF_OUT) ? "in,out" : m->dirs == NWF_IN ? "in" : "out");
	if (*m->states)
		ADD(" state %s", m->states);
	if (*m->smac)
		ADD(" smac %s", m->smac);
	if (*m->dmac)
		ADD(" dmac %s", m->dmac);
	if (m->ethertype == 0x0800)
		ADD(" ethertype ipv4");
	else if (m->ethertype == 0x86dd)
		ADD(" ethertype ipv6");
	else if (m->ethertype == 0x0806)
		ADD(" ethertype arp");
	else if (m->ethertype >= 0)
		ADD(" ethertype 0x%04x", m->ethertype);
	if (*m->src)
		ADD(" src %s", m->src);
	if (*m->dst)
		ADD(" dst %s", m->dst);
	if (m->proto == 6)
		ADD(" proto tcp");
	else if (m->proto == 17)
		ADD(" proto udp");
	else if (m->proto == 1)
		ADD(" proto icmp");
	else if (m->proto == 58)
		ADD(" proto icmpv6");
	else if (m->proto == 132)
		ADD(" proto sctp");
	else if (m->proto >= 0)
		ADD(" proto %d", m->proto);
	ports(buf, size, "sport", m->sport_lo, m->sport_hi);
	ports(buf, size, "dport", m->dport_lo, m->dport_hi);
	if (m->icmp_type >= 0)
		ADD(" icmp-type %d", m->icmp_type);
}
