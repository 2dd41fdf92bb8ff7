// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * guard_parse.c - a guard's parameters (guard_parse.h): one set of checks and
 * words for every way a guard comes in. No kernel here: the unit tests and
 * the fuzzers link it with the policy parser.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard_parse.h"
#include "names.h"

/* What an address or MAC quoted in a message may show of what was given. */
#define QUOTE_MAX 64

/* Why IPv4 address a (network order) is never a guest's own source, or NULL. */
static const char *ip4_unusable(const uint8_t a[4])
{
	if (a[0] == 0)
		return "unspecified (0.0.0.0/8)";
	if (a[0] == 127)
		return "loopback (127.0.0.0/8)";
	if (a[0] >= 224 && a[0] < 240)
		return "multicast (224.0.0.0/4)";
	if (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255)
		return "the broadcast address";
	return NULL;
}

static const char *ip6_unusable(const uint8_t a[16])
{
	static const uint8_t zero[16];

	if (!memcmp(a, zero, 15) && a[15] <= 1)
		return a[15] ? "loopback (::1)" : "unspecified (::)";
	if (a[0] == 0xff)
		return "multicast (ff00::/8)";
	return NULL;
}

static const char *mac_unusable(const uint8_t m[6])
{
	static const uint8_t zero[6], all[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (!memcmp(m, zero, 6))
		return "all zeros";
	if (!memcmp(m, all, 6))
		return "the broadcast address";
	if (m[0] & 1)
		return "multicast (the low bit of its first octet is set)";
	return NULL;
}

int ta_guard_add_ip(struct ta_guard_spec *g, const char *s, struct ta_error *e)
{
	char four[INET_ADDRSTRLEN];
	const char *why;
	uint8_t ip6[16];
	uint32_t ip4;

	if (inet_pton(AF_INET, s, &ip4) == 1) {
		why = ip4_unusable((const uint8_t *)&ip4);
		if (why)
			goto unusable;
		for (uint32_t i = 0; i < g->nr_ip4; i++)
			if (g->ip4[i] == ip4)
				goto twice;
		if (g->nr_ip4 >= TA_MAX_GUARD_ADDRS)
			goto too_many;
		g->ip4[g->nr_ip4++] = ip4;
		g->flags |= TA_GUARD_F_IP4;
		return 0;
	}
	if (inet_pton(AF_INET6, s, ip6) != 1)
		return ta_error_input(e, EINVAL, "guard address '%.*s' is not an IPv4 or IPv6 address",
				      QUOTE_MAX, s);
	/* IPv4 written as IPv6: no IPv6 frame carries it, and IPv4 would
	 * stay unguarded (RFC 4291 2.5.5.2) */
	if (!memcmp(ip6, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
		return ta_error_input(e, EINVAL,
				      "guard address '%.*s' is IPv4-mapped (::ffff:0:0/96), which never "
				      "appears on the wire: give the IPv4 address, %s", QUOTE_MAX, s,
				      inet_ntop(AF_INET, ip6 + 12, four, sizeof(four)));
	why = ip6_unusable(ip6);
	if (why)
		goto unusable;
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		if (!memcmp(g->ip6[i], ip6, 16))
			goto twice;
	if (g->nr_ip6 >= TA_MAX_GUARD_ADDRS)
		goto too_many;
	memcpy(g->ip6[g->nr_ip6++], ip6, 16);
	g->flags |= TA_GUARD_F_IP6;
	return 0;
unusable:
	return ta_error_input(e, EINVAL, "guard address '%.*s' is %s, never a guest's own",
			      QUOTE_MAX, s, why);
twice:
	return ta_error_input(e, EEXIST, "guard address '%.*s' is given twice", QUOTE_MAX, s);
too_many:
	return ta_error_input(e, E2BIG, "guard address '%.*s': at most %d guard addresses of "
			      "each family", QUOTE_MAX, s, TA_MAX_GUARD_ADDRS);
}

int ta_guard_set_mac(struct ta_guard_spec *g, const char *s, struct ta_error *e)
{
	const char *why;
	uint8_t mac[6];

	if (g->flags & TA_GUARD_F_MAC)
		return ta_error_input(e, EEXIST, "guard MAC '%.*s': the guard has a MAC already "
				      "(one per guest)", QUOTE_MAX, s);
	if (ta_parse_mac(s, mac))
		return ta_error_input(e, EINVAL, "guard MAC '%.*s' is not a MAC address like "
				      "52:54:00:12:34:56", QUOTE_MAX, s);
	why = mac_unusable(mac);
	if (why)
		return ta_error_input(e, EINVAL, "guard MAC '%.*s' is %s, never a guest's own",
				      QUOTE_MAX, s, why);
	memcpy(g->mac, mac, 6);
	g->flags |= TA_GUARD_F_MAC;
	return 0;
}

/* One "key=value" item into g: 0, or -EINVAL with e. */
static int guard_item(struct ta_guard_spec *g, char *item, const char *arg, size_t len,
		      struct ta_error *e)
{
	char *value = strchr(item, '=');

	if (value) {
		*value++ = 0;
		/* a second mac= is the item's fault, not its MAC's */
		if (!strcmp(item, "mac") && !(g->flags & TA_GUARD_F_MAC))
			return ta_guard_set_mac(g, value, e);
		if (!strcmp(item, "ip") || !strcmp(item, "ip6"))
			return ta_guard_add_ip(g, value, e);
	}
	return ta_error_input(e, EINVAL,
			      "'%.*s' is not mac=MAC (once) or ip=ADDRESS; e.g. "
			      "mac=52:54:00:12:34:56,ip=10.0.0.2,ip=fe80::5054:ff:fe12:3456, or none",
			      (int)(len < QUOTE_MAX ? len : QUOTE_MAX), arg);
}

int ta_guard_parse(const char *arg, struct ta_guard_spec *g, size_t *bad, struct ta_error *e)
{
	char *copy = strdup(arg), *item, *save = NULL;
	int ret = 0;
	size_t at;

	memset(g, 0, sizeof(*g));
	if (!copy)
		return ta_error_system(e, ENOMEM, "out of memory");
	item = strcmp(arg, "none") ? strtok_r(copy, ",", &save) : NULL;
	for (; item; item = strtok_r(NULL, ",", &save)) {
		/* guard_item() cuts the item in the copy: quote it from arg */
		at = (size_t)(item - copy);
		ret = guard_item(g, item, arg + at, strcspn(arg + at, ","), e);
		if (ret)
			break;
	}
	free(copy);
	if (ret && bad)
		*bad = at;
	if (!ret && !g->flags && strcmp(arg, "none"))
		ret = ta_error_input(e, EINVAL, "an empty guard: give mac=MAC,ip=ADDRESS,... or none");
	if (ret)
		memset(g, 0, sizeof(*g));
	return ret;
}

void ta_guard_format(const struct ta_guard_spec *g, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	size_t n = 0;

	buf[0] = 0;
	if (!g->flags) {
		snprintf(buf, size, "none");
		return;
	}
	if (g->flags & TA_GUARD_F_MAC)
		n += snprintf(buf + n, n < size ? size - n : 0, "mac=%s", ta_format_mac(g->mac, a));
	for (uint32_t i = 0; i < g->nr_ip4; i++)
		n += snprintf(buf + n, n < size ? size - n : 0, "%sip=%s", n ? "," : "",
			      inet_ntop(AF_INET, &g->ip4[i], a, sizeof(a)));
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		n += snprintf(buf + n, n < size ? size - n : 0, "%sip=%s", n ? "," : "",
			      inet_ntop(AF_INET6, g->ip6[i], a, sizeof(a)));
}
