// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_macros.c - the macros a Proxmox VE rule may name, NAME(ACTION): what
 * each matches, as the administration guide's list of macros says (the
 * protocols and ports of the service each names). An entry with a family
 * applies to that family only (Ping is ICMP echo for IPv4, ICMPv6 echo for
 * IPv6; NeighborDiscovery and DHCPv6 are IPv6's).
 */
#include <stddef.h>
#include <strings.h>

#include "pve_parse.h"

#define T(port) { "tcp", port, NULL, NULL, PVE_ANY }
#define U(port) { "udp", port, NULL, NULL, PVE_ANY }
#define P(proto) { proto, NULL, NULL, NULL, PVE_ANY }
#define PING4 { "icmp", NULL, NULL, "echo-request", PVE_V4 }
#define PING6 { "icmpv6", NULL, NULL, "echo-request", PVE_V6 }
#define ND(type) { "icmpv6", NULL, NULL, type, PVE_V6 }

struct pve_macro {
	const char *name;
	unsigned int nr;
	struct pve_macro_entry e[8];
};

#define M(name, ...)                                                                   \
	{ name, sizeof((struct pve_macro_entry[]){ __VA_ARGS__ }) / sizeof(struct pve_macro_entry), \
	  { __VA_ARGS__ } }

static const struct pve_macro macros[] = {
	M("Amanda", U("10080"), T("10080")),
	M("Auth", T("113")),
	M("BGP", T("179")),
	M("BitTorrent", T("6881:6889"), U("6881")),
	M("BitTorrent32", T("6881:6999"), U("6881")),
	M("Ceph", T("6789"), T("3300"), T("6800:7300")),
	M("CVS", T("2401")),
	M("Citrix", T("1494"), U("1604"), T("2598")),
	M("DAAP", T("3689"), U("3689")),
	M("DCC", T("6277")),
	M("DHCPfwd", { "udp", "67:68", "67:68", NULL, PVE_ANY }),
	M("DHCPv6", { "udp", "546:547", "546:547", NULL, PVE_V6 }),
	M("DNS", U("53"), T("53")),
	M("Distcc", T("3632")),
	M("FTP", T("21")),
	M("Finger", T("79")),
	M("GNUnet", T("2086"), U("2086"), T("1080"), U("1080")),
	M("GRE", P("47")),
	M("Git", T("9418")),
	M("HKP", T("11371")),
	M("HTTP", T("80")),
	M("HTTPS", T("443")),
	M("ICPV2", U("3130")),
	M("ICQ", T("5190")),
	M("IMAP", T("143")),
	M("IMAPS", T("993")),
	M("IPIP", P("94")),
	M("IPsec", { "udp", "500", "500", NULL, PVE_ANY }, P("50")),
	M("IPsecah", { "udp", "500", "500", NULL, PVE_ANY }, P("51")),
	M("IPsecnat", U("500"), U("4500"), P("50")),
	M("IRC", T("6667")),
	M("Jetdirect", T("9100")),
	M("L2TP", U("1701")),
	M("LDAP", T("389")),
	M("LDAPS", T("636")),
	M("MDNS", U("5353")),
	M("MSNP", T("1863")),
	M("MSSQL", T("1433")),
	M("Mail", T("25"), T("465"), T("587")),
	M("Munin", T("4949")),
	M("MySQL", T("3306")),
	M("NNTP", T("119")),
	M("NNTPS", T("563")),
	M("NTP", U("123")),
	M("NeighborDiscovery", ND("router-solicitation"), ND("router-advertisement"),
	  ND("neighbor-solicitation"), ND("neighbor-advertisement")),
	M("OSPF", P("89")),
	M("OpenVPN", U("1194")),
	M("PCA", U("5632"), T("5631")),
	M("PMG", T("8006")),
	M("POP3", T("110")),
	M("POP3S", T("995")),
	M("PPtP", P("47"), T("1723")),
	M("Ping", PING4, PING6),
	M("PostgreSQL", T("5432")),
	M("Printer", T("515")),
	M("RDP", T("3389")),
	M("RIP", U("520")),
	M("RNDC", T("953")),
	M("Razor", T("2703")),
	M("Rdate", T("37")),
	M("Rsync", T("873")),
	M("SANE", T("6566")),
	M("SMB", U("135,445"), U("137:139"), { "udp", "1024:65535", "137", NULL, PVE_ANY },
	  T("135,139,445")),
	M("SMBswat", T("901")),
	M("SMTP", T("25")),
	M("SMTPS", T("465")),
	M("SNMP", U("161:162"), T("161")),
	M("SPAMD", T("783")),
	M("SPICEproxy", T("3128")),
	M("SSH", T("22")),
	M("SVN", T("3690")),
	M("SixXS", T("3874"), U("3740"), P("41"), U("5072,8374")),
	M("Squid", T("3128")),
	M("Submission", T("587")),
	M("Syslog", U("514"), T("514")),
	M("TFTP", U("69")),
	M("Telnet", T("23")),
	M("Telnets", T("992")),
	M("Time", T("37")),
	M("Trcrt", U("33434:33524"), PING4, PING6),
	M("VNC", T("5900:5999")),
	M("VNCL", T("5500")),
	M("Web", T("80"), T("443")),
	M("Webcache", T("8080")),
	M("Webmin", T("10000")),
	M("Whois", T("43")),
};

const struct pve_macro_entry *pve_macro(const char *name, unsigned int *nr,
					const char **canonical)
{
	for (size_t i = 0; i < sizeof(macros) / sizeof(macros[0]); i++) {
		if (strcasecmp(macros[i].name, name))
			continue;
		*nr = macros[i].nr;
		*canonical = macros[i].name;
		return macros[i].e;
	}
	return NULL;
}
