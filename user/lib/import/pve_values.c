// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_values.c - the values of a Proxmox VE rule's options as tap-accel
 * matches them: protocols (-p), ports and port lists (-dport, -sport),
 * ICMP type names (-icmp-type), addresses and CIDR lists (-source,
 * -dest). Each returns PVE_OK, PVE_SKIP (Proxmox VE itself refuses the
 * value and skips the rule: `why` says why) or PVE_REFUSE (a valid value
 * tap-accel cannot match the same way: `why` says why).
 */
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pve_values.h"

int pve_proto(const char *s, struct pve_proto *p, char *why, size_t len)
{
	static const struct {
		const char *name;
		int nr;
		enum pve_family family;
	} names[] = {
		{ "tcp", 6, PVE_ANY }, { "udp", 17, PVE_ANY }, { "icmp", 1, PVE_V4 }, { "icmpv6", 58, PVE_V6 },
		{ "ipv6-icmp", 58, PVE_V6 }, { "sctp", 132, PVE_ANY }, { "udplite", 136, PVE_ANY },
		{ "gre", 47, PVE_ANY },
		{ "esp", 50, PVE_ANY }, { "ah", 51, PVE_ANY }, { "dccp", 33, PVE_ANY },
	};
	struct protoent *pe;
	char *end;
	long n;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name)) {
			p->nr = names[i].nr;
			p->family = names[i].family;
			goto found;
		}
	n = strtol(s, &end, 10);
	if (*s && !*end && n >= 0 && n <= 255) {
		p->nr = n;
		p->family = n == 1 ? PVE_V4 : n == 58 ? PVE_V6 : PVE_ANY;
		goto found;
	}
	pe = getprotobyname(s);
	if (!pe) {
		snprintf(why, len, "unknown protocol '%s'", s);
		return PVE_SKIP;
	}
	p->nr = pe->p_proto;
found:
	p->icmp = p->nr == 1 || p->nr == 58;
	p->ports = p->nr == 6 || p->nr == 17 || p->nr == 132 || p->nr == 136 || p->nr == 33;
	return PVE_OK;
}

const char *pve_proto_word(int nr, char *buf, size_t len)
{
	switch (nr) {
	case 6: return "tcp";
	case 17: return "udp";
	case 1: return "icmp";
	case 58: return "icmpv6";
	case 132: return "sctp";
	case 136: return "udplite";
	case 47: return "gre";
	case 50: return "esp";
	case 51: return "ah";
	}
	snprintf(buf, len, "%d", nr);
	return buf;
}

/* ---- ports ----------------------------------------------------------------- */

static int one_port(const char *s, const char *proto, unsigned int *port, char *why, size_t len)
{
	struct servent *se;
	char *end;
	unsigned long n = strtoul(s, &end, 10);

	if (*s >= '0' && *s <= '9' && !*end) {
		if (n > 65535) {
			snprintf(why, len, "invalid port '%s'", s);
			return PVE_SKIP;
		}
		*port = n;
		return PVE_OK;
	}
	/* a service name, as /etc/services has it */
	se = getservbyname(s, proto);
	if (!se)
		se = getservbyname(s, NULL);
	if (!se) {
		snprintf(why, len, "invalid port '%s' (no such service)", s);
		return PVE_SKIP;
	}
	*port = ntohs(se->s_port);
	return PVE_OK;
}

int pve_ports(const char *s, const char *proto, struct pve_ports *out, char *why, size_t len)
{
	char buf[256], *save, *item;
	unsigned int count = 0;
	int ret;

	out->n = 0;
	if (strlen(s) >= sizeof(buf) || strstr(s, ",,") || *s == ',' || s[strlen(s) - 1] == ',') {
		snprintf(why, len, "invalid port list '%s'", s);
		return PVE_SKIP;
	}
	strcpy(buf, s);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(item, ':');
		unsigned int lo, hi;

		if (out->n == PVE_MAX_PORTS) {
			snprintf(why, len, "too many entries in port list '%s' (> 15 numbers)", s);
			return PVE_SKIP;
		}
		if (colon) {
			*colon = '\0';
			if ((ret = one_port(item, proto, &lo, why, len)) ||
			    (ret = one_port(colon + 1, proto, &hi, why, len)))
				return ret;
			if (lo > hi) {
				snprintf(why, len, "backwards range '%u:%u'", lo, hi);
				return PVE_SKIP;
			}
			count += 2;
		} else {
			if ((ret = one_port(item, proto, &lo, why, len)))
				return ret;
			hi = lo;
			count++;
		}
		out->lo[out->n] = lo;
		out->hi[out->n++] = hi;
	}
	if (count > 15) {
		snprintf(why, len, "too many entries in port list '%s' (> 15 numbers)", s);
		return PVE_SKIP;
	}
	return PVE_OK;
}

/* ---- ICMP types -------------------------------------------------------------- */

struct icmp_name {
	const char *name;
	int type, code; /* code -1: the whole type */
};

static const struct icmp_name icmp4[] = {
	{ "any", -1, -1 }, { "echo-reply", 0, -1 }, { "destination-unreachable", 3, -1 },
	{ "network-unreachable", 3, 0 }, { "host-unreachable", 3, 1 },
	{ "protocol-unreachable", 3, 2 }, { "port-unreachable", 3, 3 },
	{ "fragmentation-needed", 3, 4 }, { "source-route-failed", 3, 5 },
	{ "network-unknown", 3, 6 }, { "host-unknown", 3, 7 }, { "network-prohibited", 3, 9 },
	{ "host-prohibited", 3, 10 }, { "TOS-network-unreachable", 3, 11 },
	{ "TOS-host-unreachable", 3, 12 }, { "communication-prohibited", 3, 13 },
	{ "host-precedence-violation", 3, 14 }, { "precedence-cutoff", 3, 15 },
	{ "source-quench", 4, -1 }, { "redirect", 5, -1 }, { "network-redirect", 5, 0 },
	{ "host-redirect", 5, 1 }, { "TOS-network-redirect", 5, 2 },
	{ "TOS-host-redirect", 5, 3 }, { "echo-request", 8, -1 },
	{ "router-advertisement", 9, -1 }, { "router-solicitation", 10, -1 },
	{ "time-exceeded", 11, -1 }, { "ttl-zero-during-transit", 11, 0 },
	{ "ttl-zero-during-reassembly", 11, 1 }, { "parameter-problem", 12, -1 },
	{ "ip-header-bad", 12, 0 }, { "required-option-missing", 12, 1 },
	{ "timestamp-request", 13, -1 }, { "timestamp-reply", 14, -1 },
	{ "address-mask-request", 17, -1 }, { "address-mask-reply", 18, -1 },
	{ NULL, 0, 0 },
};

static const struct icmp_name icmp6[] = {
	{ "destination-unreachable", 1, -1 }, { "no-route", 1, 0 },
	{ "communication-prohibited", 1, 1 }, { "beyond-scope", 1, 2 },
	{ "address-unreachable", 1, 3 }, { "port-unreachable", 1, 4 },
	{ "failed-policy", 1, 5 }, { "reject-route", 1, 6 }, { "packet-too-big", 2, -1 },
	{ "time-exceeded", 3, -1 }, { "ttl-zero-during-transit", 3, 0 },
	{ "ttl-zero-during-reassembly", 3, 1 }, { "parameter-problem", 4, -1 },
	{ "bad-header", 4, 0 }, { "unknown-header-type", 4, 1 }, { "unknown-option", 4, 2 },
	{ "echo-request", 128, -1 }, { "echo-reply", 129, -1 },
	{ "router-solicitation", 133, -1 }, { "router-advertisement", 134, -1 },
	{ "neighbor-solicitation", 135, -1 }, { "neighbour-solicitation", 135, -1 },
	{ "neighbor-advertisement", 136, -1 }, { "neighbour-advertisement", 136, -1 },
	{ "redirect", 137, -1 }, { NULL, 0, 0 },
};

int pve_icmp_type(const char *name, bool v6, int *type, char *why, size_t len)
{
	const struct icmp_name *t = v6 ? icmp6 : icmp4;

	for (; t->name; t++) {
		if (strcmp(t->name, name))
			continue;
		if (t->code >= 0) {
			const struct icmp_name *whole = v6 ? icmp6 : icmp4;

			while (whole->name && !(whole->type == t->type && whole->code < 0))
				whole++;
			snprintf(why, len, "ICMP%s type %s is type %d code %d, and tap-accel matches "
				 "ICMP types, not codes: use %s (all of type %d) if that is meant",
				 v6 ? "v6" : "", name, t->type, t->code,
				 whole->name ? whole->name : "the type", t->type);
			return PVE_REFUSE;
		}
		*type = t->type;
		return PVE_OK;
	}
	snprintf(why, len, "invalid icmp-type '%s' for proto '%s'", name, v6 ? "icmpv6" : "icmp");
	return PVE_SKIP;
}

/* ---- addresses ------------------------------------------------------------------ */

int pve_prefix(const char *s, struct pve_prefix *p, char *why, size_t len)
{
	char buf[80], *slash;
	unsigned char addr[16];
	unsigned int max, plen;

	if (strlen(s) >= sizeof(buf)) {
		snprintf(why, len, "'%s' is not an address or CIDR", s);
		return PVE_SKIP;
	}
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, addr) == 1) {
		p->family = PVE_V4;
		max = 32;
	} else if (inet_pton(AF_INET6, buf, addr) == 1) {
		p->family = PVE_V6;
		max = 128;
	} else {
		snprintf(why, len, "'%s' does not look like a valid IP address or CIDR network", s);
		return PVE_SKIP;
	}
	plen = max;
	if (slash) {
		char *end;
		unsigned long n = strtoul(slash + 1, &end, 10);

		if (!slash[1] || *end || n > max) {
			snprintf(why, len, "'%s' does not look like a valid IP address or CIDR network",
				 s);
			return PVE_SKIP;
		}
		plen = n;
	}
	if (p->family == PVE_V6 && plen >= 96 && IN6_IS_ADDR_V4MAPPED((struct in6_addr *)addr)) {
		snprintf(why, len, "'%s' is IPv4-mapped, which never appears on the wire: write the "
			 "IPv4 address instead", s);
		return PVE_REFUSE;
	}
	/* iptables takes host bits past the length and ignores them; so do we */
	for (unsigned int bit = plen; bit < max; bit++)
		addr[bit / 8] &= ~(0x80 >> (bit % 8));
	inet_ntop(p->family == PVE_V4 ? AF_INET : AF_INET6, addr, p->text, sizeof(p->text));
	if (plen != max)
		snprintf(p->text + strlen(p->text), sizeof(p->text) - strlen(p->text), "/%u", plen);
	p->len = plen;
	memcpy(p->addr, addr, 16);
	return PVE_OK;
}
