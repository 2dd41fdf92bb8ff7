// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* names.c - the names of the program's counters, actions and match
 * fields, and how MACs and prefixes are written; see names.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>

#include "names.h"

const char *const ta_verdict_names[TA_NR_VERDICTS] = {
	"aborted", "drop", "pass", "tx", "redirect",
};

const char *const ta_guard_names[TA_GUARD_MAX] = {
	[TA_GUARD_SRC_MAC] = "src_mac",
	[TA_GUARD_IP4_SRC] = "ip4_src",
	[TA_GUARD_IP6_SRC] = "ip6_src",
	[TA_GUARD_ARP_SHA] = "arp_sha",
	[TA_GUARD_ARP_SPA] = "arp_spa",
	[TA_GUARD_ND_TARGET] = "nd_target",
	[TA_GUARD_ND_LLADDR] = "nd_lladdr",
};

const char *const ta_parse_names[TA_PARSE_MAX] = {
	[TA_PARSE_RUNT] = "runt",
	[TA_PARSE_VLAN_TRUNC] = "vlan_trunc",
	[TA_PARSE_VLAN_DEPTH] = "vlan_depth",
	[TA_PARSE_IP4_TRUNC] = "ip4_trunc",
	[TA_PARSE_IP4_BAD_HDR] = "ip4_bad_hdr",
	[TA_PARSE_IP4_OPTIONS] = "ip4_options",
	[TA_PARSE_IP4_FRAG] = "ip4_frag",
	[TA_PARSE_IP6_TRUNC] = "ip6_trunc",
	[TA_PARSE_IP6_EXT_TRUNC] = "ip6_ext_trunc",
	[TA_PARSE_IP6_EXT_DEPTH] = "ip6_ext_depth",
	[TA_PARSE_IP6_FRAG] = "ip6_frag",
	[TA_PARSE_L4_TRUNC] = "l4_trunc",
	[TA_PARSE_ARP_TRUNC] = "arp_trunc",
	[TA_PARSE_ND_TRUNC] = "nd_trunc",
	[TA_PARSE_IP6_BAD_HDR] = "ip6_bad_hdr",
	[TA_PARSE_IP6_V4MAPPED] = "ip6_v4mapped",
};

const char *const ta_event_names[TA_EV_MAX] = {
	[TA_EV_RATE_DROP] = "rate_drop",
	[TA_EV_FDB_HIT] = "fdb_hit",
	[TA_EV_FDB_MISS] = "fdb_miss",
	[TA_EV_REDIRECT_FAIL] = "redirect_fail",
};

const char *const ta_ct_counter_names[TA_CT_C_MAX] = {
	[TA_CT_C_IN_PASS] = "in_pass",
	[TA_CT_C_IN_DROP] = "in_drop",
	[TA_CT_C_IN_REJECT] = "in_reject",
	[TA_CT_C_IN_DEFAULT] = "in_default",
	[TA_CT_C_OUT_REJECT] = "out_reject",
	[TA_CT_C_NEW] = "new",
	[TA_CT_C_INVALID] = "invalid",
	[TA_CT_C_RELATED] = "related",
	[TA_CT_C_TABLE_FULL] = "table_full",
	[TA_CT_C_TAP_LIMIT] = "tap_limit",
	[TA_CT_C_CUT] = "cut",
	[TA_CT_C_REJECT_UNSENT] = "reject_unsent",
};

const char *ta_verdict_name(uint32_t verdict)
{
	return verdict < TA_NR_VERDICTS ? ta_verdict_names[verdict] : "?";
}

const char *ta_parse_name(int class)
{
	return class >= 0 && class < TA_PARSE_MAX ? ta_parse_names[class] : "ok";
}

const char *ta_guard_name(int reason)
{
	return reason >= 0 && reason < TA_GUARD_MAX ? ta_guard_names[reason] : "ok";
}

const char *const ta_action_names[TA_ACT_MAX] = {
	[TA_ACT_PASS] = "pass",
	[TA_ACT_DROP] = "drop",
	[TA_ACT_TX] = "tx",
	[TA_ACT_REDIRECT] = "redirect",
	[TA_ACT_FORWARD] = "forward",
	[TA_ACT_REJECT] = "reject",
};

const char *const ta_dir_names[TA_DIR_MAX] = {
	[TA_DIR_OUT] = "out",
	[TA_DIR_IN] = "in",
};

const char *const ta_ct_conn_names[TA_CT_CONN_MAX] = {
	[TA_CT_SYN_SENT] = "syn_sent",
	[TA_CT_SYN_RECV] = "syn_recv",
	[TA_CT_TCP_ESTABLISHED] = "established",
	[TA_CT_FIN_WAIT] = "fin_wait",
	[TA_CT_TIME_WAIT] = "time_wait",
	[TA_CT_CLOSE] = "close",
	[TA_CT_UDP] = "unreplied",
	[TA_CT_UDP_REPLIED] = "replied",
	[TA_CT_ICMP] = "echo",
	[TA_CT_GENERIC] = "other",
};

const char *const ta_ct_state_names[TA_CT_STATE_MAX] = {
	[TA_CT_NEW] = "new",
	[TA_CT_ESTABLISHED] = "established",
	[TA_CT_RELATED] = "related",
	[TA_CT_INVALID] = "invalid",
	[TA_CT_UNTRACKED] = "untracked",
};

const char *ta_action_name(uint32_t action)
{
	return action < TA_ACT_MAX ? ta_action_names[action] : "unknown";
}

const char *const ta_field_words[TA_F_MAX] = {
	[TA_F_VLAN] = "vlan",
	[TA_F_SRC_MAC] = "smac",
	[TA_F_DST_MAC] = "dmac",
	[TA_F_ETHERTYPE] = "ethertype",
	[TA_F_SRC_IP] = "src",
	[TA_F_DST_IP] = "dst",
	[TA_F_IP_PROTO] = "proto",
	[TA_F_SRC_PORT] = "sport",
	[TA_F_DST_PORT] = "dport",
	[TA_F_ICMP_TYPE] = "icmp-type",
};

const char *ta_field_name(uint32_t field)
{
	return field < TA_F_MAX ? ta_field_words[field] : "unknown";
}

const char *ta_format_mac(const uint8_t mac[6], char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1],
		 mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

const char *ta_format_prefix(const struct ta_prefix *p, char *buf)
{
	char a[INET6_ADDRSTRLEN];

	if (ta_prefix_is_ip4(p)) {
		inet_ntop(AF_INET, p->addr + 12, a, sizeof(a));
		if (p->prefixlen == 128)
			snprintf(buf, 64, "%s", a);
		else
			snprintf(buf, 64, "%s/%d", a, p->prefixlen - 96);
	} else {
		inet_ntop(AF_INET6, p->addr, a, sizeof(a));
		if (p->prefixlen == 128)
			snprintf(buf, 64, "%s", a);
		else
			snprintf(buf, 64, "%s/%d", a, p->prefixlen);
	}
	return buf;
}

/* "mac,ip4,ip6" of the checks on, "-" for none. */
const char *ta_guard_words(uint32_t flags, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s%s", flags & TA_GUARD_F_MAC ? "mac," : "",
		 flags & TA_GUARD_F_IP4 ? "ip4," : "", flags & TA_GUARD_F_IP6 ? "ip6," : "",
		 flags ? "" : "-");
	if (flags)
		buf[strlen(buf) - 1] = 0;
	return buf;
}

/* ---- words for numbers: protocols, ethertypes ----------------------------- */

const struct ta_name_value ta_protocol_names[] = {
	{ "icmp", 1 }, { "tcp", 6 }, { "udp", 17 }, { "gre", 47 },
	{ "esp", 50 }, { "ah", 51 }, { "icmpv6", 58 }, { "sctp", 132 },
	{ "udplite", 136 }, { NULL, 0 },
};

const struct ta_name_value ta_ethertype_names[] = {
	{ "ipv4", 0x0800 }, { "arp", 0x0806 }, { "ipv6", 0x86dd }, { NULL, 0 },
};

const char *ta_name_of(const struct ta_name_value *names, uint64_t value)
{
	for (; names->name; names++)
		if (names->value == value)
			return names->name;
	return NULL;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int ta_parse_mac(const char *s, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++) {
		int hi = hexval(s[0]), lo = hi < 0 ? -1 : hexval(s[1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		mac[i] = (uint8_t)(hi << 4 | lo);
		s += 2;
		if (i < 5) {
			if (*s != ':' && *s != '-')
				return -EINVAL;
			s++;
		}
	}
	return *s ? -EINVAL : 0;
}
