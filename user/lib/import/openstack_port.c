// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * openstack_port.c - a Neutron port, as `openstack port show -f json`
 * prints it: its MAC, fixed IPs and allowed address pairs as the tap's
 * guard, the groups whose rules apply, and whether it is filtered at all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/lex.h"
#include "../policy/guard_parse.h"
#include "openstack_int.h"

#define PORT_SHOW "`openstack port show -f json`"

/* The EUI-64 link-local address of `mac`: Neutron lets a port that has an
 * IPv6 address send from it too, so that neighbour discovery works. A
 * port without one has no IPv6 source check in Neutron, nor in a guard
 * without IPv6 addresses. */
static void link_local(const unsigned char mac[6], char *buf, size_t size)
{
	unsigned char a[16] = { 0xfe, 0x80 };

	a[8] = mac[0] ^ 0x02;
	a[9] = mac[1];
	a[10] = mac[2];
	a[11] = 0xff;
	a[12] = 0xfe;
	a[13] = mac[3];
	a[14] = mac[4];
	a[15] = mac[5];
	inet_ntop(AF_INET6, a, buf, (socklen_t)size);
}

static bool guard_has(const struct ta_guard_spec *g, const char *s)
{
	unsigned char a[16];

	if (inet_pton(AF_INET, s, a) == 1) {
		for (uint32_t i = 0; i < g->nr_ip4; i++)
			if (!memcmp(&g->ip4[i], a, 4))
				return true;
	} else if (inet_pton(AF_INET6, s, a) == 1) {
		for (uint32_t i = 0; i < g->nr_ip6; i++)
			if (!memcmp(g->ip6[i], a, 16))
				return true;
	}
	return false;
}

static int guard_ip(struct translation *t, struct ta_guard_spec *g, const struct ta_json *at,
		    const char *where, const char *addr)
{
	struct ta_error ge;

	if (guard_has(g, addr))
		return 0;
	if (ta_guard_add_ip(g, addr, &ge))
		return ta_os_fail_at(t, at, "%s: %s", where, ge.text);
	ta_import_statement(t->im, where, "guard ip %s", addr);
	return 0;
}

static int port_fixed_ips(struct translation *t, struct ta_guard_spec *g)
{
	const struct ta_json *ips = ta_json_get(&t->port, "fixed_ips");

	if (!ips || ips->type != TA_JSON_ARRAY)
		return ta_os_fail_at(
			t, ips ? ips : &t->port,
			"expected \"fixed_ips\" as a list of {\"ip_address\": ...}, as " PORT_SHOW
			" prints it");
	for (size_t i = 0; i < ips->nr_items; i++) {
		const struct ta_json *a = ta_json_get(&ips->items[i], "ip_address");
		char where[256];

		if (!a || a->type != TA_JSON_STRING)
			return ta_os_fail_at(t, &ips->items[i],
					     "expected an \"ip_address\" in each of \"fixed_ips\"");
		snprintf(where, sizeof(where), "%s fixed_ips", t->path);
		if (guard_ip(t, g, a, where, a->str))
			return -EINVAL;
	}
	return 0;
}

/* An allowed address pair lets the port send from another address (and
 * MAC): the guard holds addresses of one MAC, not prefixes. */
static int port_pair(struct translation *t, struct ta_guard_spec *g, const struct ta_json *pair)
{
	const struct ta_json *a = ta_json_get(pair, "ip_address");
	const struct ta_json *m = ta_json_get(pair, "mac_address");
	unsigned char mac[6] = { 0 };
	struct prefix p;
	bool host_bits;
	char where[256], addr[64];

	snprintf(where, sizeof(where), "%s allowed_address_pairs", t->path);
	if (!a || a->type != TA_JSON_STRING)
		return ta_os_fail_at(
			t, pair, "expected an \"ip_address\" in each of \"allowed_address_pairs\"");
	if (m && m->type == TA_JSON_STRING &&
	    (sscanf(m->str, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1], &mac[2], &mac[3],
		    &mac[4], &mac[5]) != 6 ||
	     memcmp(mac, g->mac, 6)))
		return ta_os_fail_at(
			t, m,
			"allowed address pair %s with MAC %s: a tap's guard has one MAC, the port's; remove the pair's MAC or leave the guard out (no --port)",
			a->str, m->str);
	if (ta_os_prefix_parse(a->str, &p, &host_bits))
		return ta_os_fail_at(
			t, a, "allowed address pair '%s': expected an address or a prefix", a->str);
	if (p.len != (p.family == AF_INET ? 32 : 128))
		return ta_os_fail_at(
			t, a,
			"allowed address pair %s is a prefix: a tap's guard takes addresses, not prefixes; list the pair's addresses one by one, or leave the guard out (no --port)",
			a->str);
	return guard_ip(t, g, a, where, ta_os_prefix_str(&p, addr, sizeof(addr)));
}

static int port_guard(struct translation *t)
{
	const struct ta_json *mac = ta_json_get(&t->port, "mac_address");
	const struct ta_json *pairs = ta_json_get(&t->port, "allowed_address_pairs");
	struct ta_guard_spec g = { 0 };
	struct ta_error ge;
	char where[256], lla[INET6_ADDRSTRLEN];

	if (!mac || mac->type != TA_JSON_STRING)
		return ta_os_fail_at(t, mac ? mac : &t->port,
				     "expected the port's \"mac_address\", as " PORT_SHOW
				     " prints it");
	snprintf(where, sizeof(where), "%s mac_address", t->path);
	if (ta_guard_set_mac(&g, mac->str, &ge))
		return ta_os_fail_at(t, mac, "%s", ge.text);
	ta_import_statement(t->im, where, "guard mac %s", mac->str);
	if (port_fixed_ips(t, &g))
		return -EINVAL;
	if (pairs && pairs->type != TA_JSON_ARRAY && pairs->type != TA_JSON_NULL)
		return ta_os_fail_at(
			t, pairs,
			"expected \"allowed_address_pairs\" as a list of {\"ip_address\": ..., \"mac_address\": ...}");
	for (size_t i = 0; pairs && i < pairs->nr_items; i++)
		if (port_pair(t, &g, &pairs->items[i]))
			return -EINVAL;
	if (!g.nr_ip6)
		return 0;
	link_local(g.mac, lla, sizeof(lla));
	return guard_ip(t, &g, mac, where, lla);
}

/* The port's groups, to pick their rules from a list of every rule of the
 * project (`rule list` without a group prints them all). */
static int port_groups(struct translation *t)
{
	const struct ta_json *ids = ta_json_get(&t->port, "security_group_ids");

	if (!ids || ids->type == TA_JSON_NULL)
		return 0;
	if (ids->type != TA_JSON_ARRAY)
		return ta_os_fail_at(t, ids, "expected \"security_group_ids\" as a list of IDs");
	for (size_t i = 0; i < ids->nr_items; i++)
		if (ids->items[i].type != TA_JSON_STRING)
			return ta_os_fail_at(t, &ids->items[i],
					     "expected \"security_group_ids\" as a list of IDs");
	t->port_groups = ids;
	return 0;
}

int ta_os_read_port(struct translation *t)
{
	const struct ta_json *sec;
	char *text;
	size_t len;
	int ret;

	t->path = t->in->port_path;
	ret = ta_text_read(t->path, "port file", TA_OPENSTACK_MAX_FILE, &text, &len, t->e);
	if (ret)
		return ret;
	ret = ta_json_parse(text, len, t->path, &t->port, t->e);
	free(text);
	if (ret)
		return ret;
	if (t->port.type != TA_JSON_OBJECT)
		return ta_os_fail_at(t, &t->port,
				     "expected the port " PORT_SHOW " prints (an object), got %s",
				     ta_json_type_name(t->port.type));
	sec = ta_json_get(&t->port, "port_security_enabled");
	if (sec && sec->type != TA_JSON_BOOL && sec->type != TA_JSON_NULL)
		return ta_os_fail_at(t, sec, "expected \"port_security_enabled\" true or false");
	if (sec && sec->type == TA_JSON_BOOL && !sec->boolean) {
		char where[256];

		snprintf(where, sizeof(where), "%s port_security_enabled false", t->path);
		ta_import_comment(t->im, "the port's security is off: Neutron filters nothing, no group and no guard");
		ta_import_statement(t->im, where, "default pass");
		return 1;
	}
	return port_groups(t) ?: port_guard(t);
}

bool ta_os_port_has_group(const struct translation *t, const char *id)
{
	if (!t->port_groups || !id)
		return true;
	for (size_t i = 0; i < t->port_groups->nr_items; i++)
		if (!strcmp(t->port_groups->items[i].str, id))
			return true;
	return false;
}
