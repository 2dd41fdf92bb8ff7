// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * openstack.c - Neutron security groups as a two-way policy.
 *
 * A security group is an allow-list of stateful rules: every rule is a
 * `rule pass`, the rest is dropped both ways (`default in drop`, `default
 * out drop`: a group without egress rules lets nothing out), and replies
 * pass through the rules the parser puts before a two-way policy's own
 * (docs/policy.md), as Neutron's conntrack rules let them. A rule's remote
 * is the far end: the source of what comes in, the destination of what
 * goes out; its port range is always the destination port, and for ICMP
 * holds the type and code instead.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/lex.h"
#include "../policy/parse.h"
#include "openstack_int.h"

/* ---- prefixes ------------------------------------------------------------- */

int ta_os_prefix_parse(const char *s, struct prefix *p, bool *host_bits)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash, *end;
	int max;
	long len;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = 0;
	memset(p, 0, sizeof(*p));
	if (inet_pton(AF_INET, buf, p->addr) == 1)
		p->family = AF_INET, max = 32;
	else if (inet_pton(AF_INET6, buf, p->addr) == 1)
		p->family = AF_INET6, max = 128;
	else
		return -1;
	len = max;
	if (slash) {
		if (slash[1] < '0' || slash[1] > '9')
			return -1;
		len = strtol(slash + 1, &end, 10);
		if (*end || len > max)
			return -1;
	}
	p->len = (int)len;
	*host_bits = false;
	for (int bit = p->len; bit < max; bit++) {
		unsigned char mask = (unsigned char)(0x80 >> (bit % 8));

		if (p->addr[bit / 8] & mask)
			*host_bits = true;
		p->addr[bit / 8] &= (unsigned char)~mask;
	}
	return 0;
}

const char *ta_os_prefix_str(const struct prefix *p, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN];
	int max = p->family == AF_INET ? 32 : 128;

	inet_ntop(p->family, p->addr, a, sizeof(a));
	if (p->len == max)
		snprintf(buf, size, "%s", a);
	else
		snprintf(buf, size, "%s/%d", a, p->len);
	return buf;
}

/* ---- --remote-group ID=PREFIX,... ------------------------------------------- */

static int group_fail(struct translation *t, const char *arg, const char *why)
{
	return ta_error_input(t->e, EINVAL,
			      "--remote-group '%s': %s; write ID=PREFIX[,PREFIX...], the group's ID and the addresses of its member ports (or its address group's prefixes)",
			      arg, why);
}

static int group_parse(struct translation *t, const char *arg, struct remote_group *g)
{
	const char *eq = strchr(arg, '='), *s;
	bool host_bits;

	g->arg = arg;
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(g->id))
		return group_fail(t, arg, "expected an ID before '='");
	memcpy(g->id, arg, (size_t)(eq - arg));
	g->id[eq - arg] = 0;
	for (s = eq + 1; *s;) {
		size_t n = strcspn(s, ",");
		char item[INET6_ADDRSTRLEN + 8];
		struct prefix *p;

		if (!n || n >= sizeof(item))
			return group_fail(t, arg, "expected a prefix between commas");
		memcpy(item, s, n);
		item[n] = 0;
		p = realloc(g->prefixes, (g->nr + 1) * sizeof(*p));
		if (!p)
			return ta_error_errno(t->e, ENOMEM, "cannot read --remote-group");
		g->prefixes = p;
		if (ta_os_prefix_parse(item, &p[g->nr], &host_bits) || host_bits) {
			char why[128];

			snprintf(why, sizeof(why), "'%s' is not an address or a prefix without host bits",
				 item);
			return group_fail(t, arg, why);
		}
		g->nr++;
		s += n;
		if (*s == ',' && !*++s)
			return group_fail(t, arg, "expected a prefix after the last comma");
	}
	if (!g->nr)
		return group_fail(t, arg, "expected at least one prefix after '='");
	return 0;
}

static int groups_parse(struct translation *t)
{
	size_t n = t->in->nr_remote_groups;

	t->groups = calloc(n ? n : 1, sizeof(*t->groups));
	if (!t->groups)
		return ta_error_errno(t->e, ENOMEM, "cannot read --remote-group");
	for (size_t i = 0; i < n; i++) {
		int ret;

		t->nr_groups++; /* freed at the end, even half read */
		ret = group_parse(t, t->in->remote_groups[i], &t->groups[i]);
		if (ret)
			return ret;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(t->groups[j].id, t->groups[i].id))
				return group_fail(t, t->in->remote_groups[i],
						  "this group was given already");
	}
	return 0;
}

static const struct remote_group *group_find(const struct translation *t, const char *id)
{
	for (size_t i = 0; i < t->nr_groups; i++)
		if (!strcmp(t->groups[i].id, id))
			return &t->groups[i];
	return NULL;
}

/* ---- messages --------------------------------------------------------------- */

int ta_os_fail_at(struct translation *t, const struct ta_json *v, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ta_error_input_at(t->e, EINVAL, "%s:%d:%d: %s", t->path, v->line, v->col, msg);
}

/* ---- the rules' fields ---------------------------------------------------------- */

/* The string value of `key`: NULL when it is null or absent (and not
 * required); an error when it is anything else. */
static int string_field(struct translation *t, const struct ta_json *obj, const char *key,
			const char *id, bool required, const char **out)
{
	const struct ta_json *v = ta_json_get(obj, key);

	*out = NULL;
	if ((!v && required) || (v && v->type != TA_JSON_STRING && v->type != TA_JSON_NULL)) {
		if (!v)
			return ta_os_fail_at(t, obj,
					     "rule %s: expected a key \"%s\", as " RULE_LIST
					     " prints it",
					     id, key);
		return ta_os_fail_at(t, v, "rule %s: expected a string for \"%s\", got %s", id, key,
				     ta_json_type_name(v->type));
	}
	if (v && v->type == TA_JSON_STRING)
		*out = v->str;
	return 0;
}

struct proto_name {
	const char *neutron;	/* as Neutron takes it */
	int number;
};

/* The names Neutron takes for a rule's protocol (besides 0..255). */
static const struct proto_name neutron_protos[] = {
	{ "ah", 51 },	     { "dccp", 33 },	   { "egp", 8 },	  { "esp", 50 },
	{ "gre", 47 },	     { "hopopt", 0 },	   { "icmp", 1 },	  { "icmpv6", 58 },
	{ "igmp", 2 },	     { "ipip", 4 },	   { "ipv6-encap", 41 },  { "ipv6-frag", 44 },
	{ "ipv6-icmp", 58 }, { "ipv6-nonxt", 59 }, { "ipv6-opts", 60 },	  { "ipv6-route", 43 },
	{ "ospf", 89 },	     { "pgm", 113 },	   { "rsvp", 46 },	  { "sctp", 132 },
	{ "tcp", 6 },	     { "udp", 17 },	   { "udplite", 136 },	  { "vrrp", 112 },
};

/* A protocol number as the policy language names it. */
static const char *policy_proto(int number, char *buf, size_t size)
{
	switch (number) {
	case 1: return "icmp";
	case 6: return "tcp";
	case 17: return "udp";
	case 47: return "gre";
	case 50: return "esp";
	case 51: return "ah";
	case 58: return "icmpv6";
	case 132: return "sctp";
	case 136: return "udplite";
	}
	snprintf(buf, size, "%d", number);
	return buf;
}

static bool is_number(const char *s, long max, long *n)
{
	char *end;

	if (*s < '0' || *s > '9' || strlen(s) > 5)
		return false;
	*n = strtol(s, &end, 10);
	return !*end && *n <= max;
}

/* The protocol of a rule: -1 for any. */
static int rule_proto(struct translation *t, const struct ta_json *at, const char *id,
		      const char *s, bool ipv6, int *proto)
{
	long n;

	*proto = -1;
	/* Neutron's drivers take protocol 0 for any, as no protocol */
	if (!s || !*s || !strcmp(s, "any") || !strcmp(s, "0"))
		return 0;
	if (is_number(s, 255, &n)) {
		*proto = (int)n;
	} else {
		for (size_t i = 0; i < sizeof(neutron_protos) / sizeof(neutron_protos[0]); i++)
			if (!strcmp(s, neutron_protos[i].neutron))
				*proto = neutron_protos[i].number;
		if (*proto < 0)
			return ta_os_fail_at(
				t, at,
				"rule %s: unknown protocol '%s'; Neutron takes a name (tcp, udp, icmp, ipv6-icmp, sctp, ...), a number 0..255 or any",
				id, s);
	}
	/* Neutron's drivers take the name icmp in an IPv6 rule for ICMPv6
	 * (the number 1 stays 1) */
	if (ipv6 && (!strcmp(s, "icmp") || !strcmp(s, "icmpv6")))
		*proto = 58;
	if (!ipv6 && *proto == 58)
		return ta_os_fail_at(t, at, "rule %s: protocol '%s' is ICMPv6, in an IPv4 rule", id,
				     s);
	if (ipv6 && (*proto == 0 || *proto == 43 || *proto == 44 || *proto == 59 || *proto == 60))
		return ta_os_fail_at(
			t, at,
			"rule %s: protocol '%s' is an IPv6 extension header, which tap-accel does not match (it matches the upper-layer protocol)",
			id, s);
	return 0;
}

static bool has_ports(int proto)
{
	return proto == 6 || proto == 17 || proto == 132 || proto == 136;
}

/* What a rule's "Port Range" adds to its statement: " dport A[-B]" or
 * " icmp-type N", or "" for any. */
static int rule_ports(struct translation *t, const struct ta_json *at, const char *id,
		      const char *s, int proto, char *out, size_t size)
{
	unsigned int lo, hi, type, code;
	char tail;

	out[0] = 0;
	if (!s || !*s)
		return 0;
	if (proto == 1 || proto == 58) {
		if (sscanf(s, "type=%u%c", &type, &tail) == 1 && type <= 255) {
			snprintf(out, size, " icmp-type %u", type);
			return 0;
		}
		if (sscanf(s, "type=%u:code=%u%c", &type, &code, &tail) == 2 && type <= 255 &&
		    code <= 255)
			return ta_os_fail_at(
				t, at,
				"rule %s: 'type=%u:code=%u' matches an ICMP code, which tap-accel does not match (only the type): drop the code from the rule, or match the type alone",
				id, type, code);
		return ta_os_fail_at(
			t, at,
			"rule %s: expected an ICMP type as 'type=N' or 'type=N:code=M', got '%s'",
			id, s);
	}
	if (sscanf(s, "%u:%u%c", &lo, &hi, &tail) != 2 || lo > 65535 || hi > 65535 || lo > hi)
		return ta_os_fail_at(
			t, at, "rule %s: expected a port range 'MIN:MAX' (0..65535), got '%s'", id,
			s);
	if (proto < 0)
		return ta_os_fail_at(
			t, at, "rule %s: a port range '%s' needs a protocol with ports", id, s);
	if (!has_ports(proto))
		return ta_os_fail_at(
			t, at,
			"rule %s: port range '%s' of protocol %d: tap-accel matches the ports of tcp, udp, sctp and udplite only",
			id, s, proto);
	if (lo == hi)
		snprintf(out, size, " dport %u", lo);
	else
		snprintf(out, size, " dport %u-%u", lo, hi);
	return 0;
}

/* ---- writing rules ---------------------------------------------------------- */

/* Write `text` unless an earlier rule said the same (two groups of a port
 * often share rules, such as the default group's egress ones): the parser
 * refuses a rule that can never match. */
static int write_rule(struct translation *t, const char *where, const char *text)
{
	char **w;

	for (size_t i = 0; i < t->nr_written; i++)
		if (!strcmp(t->written[i], text)) {
			ta_import_comment(t->im, "%s: %s, as an earlier rule", where, text);
			return 0;
		}
	if (t->nr_written == t->room)
		return ta_error_input(t->e, E2BIG,
				      "%s: one rule more than the %u a two-way policy holds (each address of a remote group is one): use fewer groups or remote-group members",
				      where, t->room);
	if (t->nr_written == t->cap_written) {
		size_t n = t->cap_written ? 2 * t->cap_written : 64;

		w = realloc(t->written, n * sizeof(*w));
		if (!w)
			return ta_error_errno(t->e, ENOMEM, "cannot translate %s", t->path);
		t->written = w;
		t->cap_written = n;
	}
	t->written[t->nr_written] = strdup(text);
	if (!t->written[t->nr_written])
		return ta_error_errno(t->e, ENOMEM, "cannot translate %s", t->path);
	t->nr_written++;
	ta_import_statement(t->im, where, "%s", text);
	return 0;
}

/* One statement per remote prefix of a remote group's (or address
 * group's) addresses of the rule's family. */
static int write_group_rules(struct translation *t, const struct ta_json *at, const char *id,
			     const char *where, const char *head, const char *tail,
			     const char *group, const char *kind, bool ipv6)
{
	const struct remote_group *g = group_find(t, group);
	bool any = false;
	char text[512], p[64];

	if (!g)
		return ta_os_fail_at(
			t, at,
			"rule %s: remote %s %s: its addresses are unknown here; give them with --remote-group %s=PREFIX[,PREFIX...]",
			id, kind, group, group);
	for (size_t i = 0; i < g->nr; i++) {
		if ((g->prefixes[i].family == AF_INET6) != ipv6)
			continue;
		snprintf(text, sizeof(text), "%s %s%s", head,
			 ta_os_prefix_str(&g->prefixes[i], p, sizeof(p)), tail);
		if (write_rule(t, where, text))
			return -EINVAL;
		any = true;
	}
	if (!any)
		ta_import_comment(t->im, "%s: remote %s %s has no IPv%d address: the rule matches nothing",
				  where, kind, group, ipv6 ? 6 : 4);
	return 0;
}

/* The keys of a rule: the client's listing, or the API's own fields
 * (GET /v2.0/security-group-rules, `openstack security group rule show
 * -f json`), which keep an ICMP type or code of 0 the listing drops. */
struct rule_keys {
	const char *id, *direction, *ethertype, *protocol, *range, *ports, *remote_group,
		*address_group, *group, *port_min, *port_max;
	bool api;
};

static const struct rule_keys client_keys = {
	"ID", "Direction", "Ethertype", "IP Protocol", "IP Range", "Port Range",
	"Remote Security Group", "Remote Address Group", "Security Group", NULL, NULL, false,
};
static const struct rule_keys api_keys = {
	"id", "direction", "ethertype", "protocol", "remote_ip_prefix", NULL, "remote_group_id",
	"remote_address_group_id", "security_group_id", "port_range_min", "port_range_max", true,
};
/* `rule show` names the ethertype as the SDK does */
static const struct rule_keys show_keys = {
	"id", "direction", "ether_type", "protocol", "remote_ip_prefix", NULL, "remote_group_id",
	"remote_address_group_id", "security_group_id", "port_range_min", "port_range_max", true,
};

struct rule_fields {
	const struct rule_keys *k;
	const char *id, *direction, *ethertype, *protocol, *range, *ports, *remote_group,
		*address_group, *group;
	char ports_buf[40]; /* the API's port_range_min/max, as the client writes them */
};

static int read_fields(struct translation *t, const struct ta_json *r, struct rule_fields *f)
{
	const struct ta_json *idv;
	const struct rule_keys *k;
	bool client;

	if (r->type != TA_JSON_OBJECT)
		return ta_os_fail_at(
			t, r, "expected a rule (an object, as " RULE_LIST " prints it), got %s",
			ta_json_type_name(r->type));
	k = ta_json_get(r, "ID") || !ta_json_get(r, "id") ? &client_keys
	    : ta_json_get(r, "ether_type")		 ? &show_keys
							 : &api_keys;
	client = !k->api;
	idv = ta_json_get(r, k->id);
	if (!idv || idv->type != TA_JSON_STRING || !*idv->str)
		return ta_os_fail_at(t, idv ? idv : r,
				     "expected the rule's \"ID\" (a string), as " RULE_LIST
				     " prints it");
	f->k = k;
	f->id = idv->str;
	if (string_field(t, r, k->direction, f->id, true, &f->direction) ||
	    string_field(t, r, k->ethertype, f->id, true, &f->ethertype) ||
	    string_field(t, r, k->protocol, f->id, client, &f->protocol) ||
	    string_field(t, r, k->range, f->id, client, &f->range) ||
	    (client && string_field(t, r, k->ports, f->id, true, &f->ports)) ||
	    string_field(t, r, k->remote_group, f->id, client, &f->remote_group) ||
	    string_field(t, r, k->address_group, f->id, false, &f->address_group) ||
	    string_field(t, r, k->group, f->id, false, &f->group))
		return -EINVAL;
	if (t->file_group)
		f->group = t->file_group;
	return 0;
}

/* A port_range_min or _max of the API: 0..65535, or -1 for none. */
static int api_port(struct translation *t, const struct ta_json *r, const char *id, const char *key,
		    long *port)
{
	const struct ta_json *v = ta_json_get(r, key);

	*port = -1;
	if (!v || v->type == TA_JSON_NULL)
		return 0;
	if (v->type != TA_JSON_NUMBER || !is_number(v->str, 65535, port))
		return ta_os_fail_at(t, v, "rule %s: expected \"%s\" null or a number 0..65535", id,
				     key);
	return 0;
}

/* The API's port range, written as the client's "Port Range" would be if
 * it kept zeros: "MIN:MAX", "type=N", "type=N:code=M" or "". */
static int api_ports(struct translation *t, const struct ta_json *r, struct rule_fields *f,
		     int proto)
{
	long lo, hi;

	f->ports = f->ports_buf;
	f->ports_buf[0] = 0;
	if (api_port(t, r, f->id, f->k->port_min, &lo) || api_port(t, r, f->id, f->k->port_max, &hi))
		return -EINVAL;
	if (proto == 1 || proto == 58) {
		if (lo < 0 && hi >= 0)
			return ta_os_fail_at(t, ta_json_get(r, f->k->port_max),
					     "rule %s: an ICMP code without a type", f->id);
		if (lo >= 0)
			snprintf(f->ports_buf, sizeof(f->ports_buf), hi >= 0 ? "type=%ld:code=%ld" : "type=%ld",
				 lo, hi);
	} else if (lo >= 0 || hi >= 0) {
		snprintf(f->ports_buf, sizeof(f->ports_buf), "%ld:%ld", lo >= 0 ? lo : hi,
			 hi >= 0 ? hi : lo);
	}
	return 0;
}


/* The far end of a rule given by its IP Range: "" for any of its family
 * (then `ethertype`), else " src|dst PREFIX". */
static int rule_range(struct translation *t, const struct ta_json *at, const struct rule_fields *f,
		      bool ipv6, bool in, char *out, size_t size)
{
	struct prefix p;
	bool host_bits;
	char buf[64];

	snprintf(out, size, " ethertype %s", ipv6 ? "ipv6" : "ipv4");
	if (!f->range)
		return 0;
	if (ta_os_prefix_parse(f->range, &p, &host_bits))
		return ta_os_fail_at(t, at,
				     "rule %s: expected an address or prefix as \"%s\", got '%s'",
				     f->id, f->k->range, f->range);
	if ((p.family == AF_INET6) != ipv6)
		return ta_os_fail_at(t, at, "rule %s: \"%s\" %s is not of its ethertype %s", f->id,
				     f->k->range, f->range, f->ethertype);
	if (!p.len)
		return 0;
	if (host_bits)
		ta_import_warn(
			t->im,
			"%s:%d:%d: rule %s: \"%s\" %s has bits set past its length: taken as %s, as Neutron's drivers match it",
			t->path, at->line, at->col, f->id, f->k->range, f->range,
			ta_os_prefix_str(&p, buf, sizeof(buf)));
	snprintf(out, size, " %s %s", in ? "src" : "dst", ta_os_prefix_str(&p, buf, sizeof(buf)));
	return 0;
}

/* The client prints no ICMP type 0 and no code 0 (it tests them for
 * truth): a rule of its listing with either may be narrower in Neutron. */
static void warn_icmp_zeros(struct translation *t, const struct ta_json *at,
			    const struct rule_fields *f, int proto)
{
	if (f->k->api || (proto != 1 && proto != 58) || strstr(f->ports, ":code="))
		return;
	ta_import_warn(t->im,
		       "%s:%d:%d: rule %s: the client's listing shows no ICMP %s of 0: if the rule has one, Neutron allows less than '%s'; `openstack security group rule show %s -f json` has the exact fields, and this command takes it",
		       t->path, at->line, at->col, f->id, *f->ports ? "code" : "type or code",
		       *f->ports ? f->ports : "any ICMP type", f->id);
}

static int translate_rule(struct translation *t, const struct ta_json *r)
{
	struct rule_fields f = { 0 };
	char where[512], head[64], tail[128], ports[32], far[80], text[512], pbuf[12];
	const struct rule_keys *k;
	bool in, ipv6;
	int proto;

	if (read_fields(t, r, &f))
		return -EINVAL;
	k = f.k;
	snprintf(where, sizeof(where), "%s rule %s", t->path, f.id);
	if (!ta_os_port_has_group(t, f.group)) {
		ta_import_comment(t->im, "%s: of security group %s, which the port does not have", where,
				  f.group);
		return 0;
	}
	if (!f.direction || (strcmp(f.direction, "ingress") && strcmp(f.direction, "egress")))
		return ta_os_fail_at(t, ta_json_get(r, k->direction),
				     "rule %s: expected \"%s\" ingress or egress, got '%s'", f.id,
				     k->direction, f.direction ? f.direction : "null");
	if (!f.ethertype || (strcmp(f.ethertype, "IPv4") && strcmp(f.ethertype, "IPv6")))
		return ta_os_fail_at(t, ta_json_get(r, k->ethertype),
				     "rule %s: expected \"%s\" IPv4 or IPv6, got '%s'", f.id,
				     k->ethertype, f.ethertype ? f.ethertype : "null");
	in = !strcmp(f.direction, "ingress");
	ipv6 = !strcmp(f.ethertype, "IPv6");
	if (rule_proto(t, ta_json_get(r, k->protocol) ?: r, f.id, f.protocol, ipv6, &proto) ||
	    (k->api && api_ports(t, r, &f, proto)) ||
	    rule_ports(t, ta_json_get(r, k->api ? k->port_min : k->ports) ?: r, f.id, f.ports, proto,
		       ports, sizeof(ports)))
		return -EINVAL;
	warn_icmp_zeros(t, k->api ? r : ta_json_get(r, k->ports), &f, proto);
	snprintf(tail, sizeof(tail), "%s%s%s", proto < 0 ? "" : " proto ",
		 proto < 0 ? "" : policy_proto(proto, pbuf, sizeof(pbuf)), ports);
	snprintf(head, sizeof(head), "rule pass %s %s", in ? "in" : "out", in ? "src" : "dst");
	/* A rule has one remote: the client prints its family's any-prefix
	 * as the IP Range of a rule with a remote group. */
	if (f.remote_group)
		return write_group_rules(t, ta_json_get(r, k->remote_group), f.id, where, head, tail,
					 f.remote_group, "security group", ipv6);
	if (f.address_group)
		return write_group_rules(t, ta_json_get(r, k->address_group), f.id, where, head, tail,
					 f.address_group, "address group", ipv6);
	if (rule_range(t, ta_json_get(r, k->range) ?: r, &f, ipv6, in, far, sizeof(far)))
		return -EINVAL;
	snprintf(text, sizeof(text), "rule pass %s%s%s", in ? "in" : "out", far, tail);
	return write_rule(t, where, text);
}

/* A group as `openstack security group show -f json` prints it: its
 * rules with the API's own fields, unless it is stateless (the translation is stateful, and would
 * let in the replies a stateless group needs rules for). */
static int group_file(struct translation *t, const struct ta_json *root)
{
	const struct ta_json *id = ta_json_get(root, "id");
	const struct ta_json *stateful = ta_json_get(root, "stateful");

	if (!id || id->type != TA_JSON_STRING)
		return ta_os_fail_at(
			t, root,
			"expected the group's \"id\", as `openstack security group show -f json` prints it");
	if (stateful && stateful->type == TA_JSON_BOOL && !stateful->boolean)
		return ta_os_fail_at(
			t, stateful,
			"security group %s is stateless, and tap-accel's translation is stateful: it would let in the replies the group needs rules for",
			id->str);
	t->file_group = id->str;
	return 0;
}

/* The rules of a file: the client's listing (an array), a group
 * (`security group show`), the API's answer ({"security_group_rules":
 * [...]}) or one rule (`rule show`). */
static int file_rules(struct translation *t, const struct ta_json *root,
		      const struct ta_json **items, size_t *nr)
{
	const struct ta_json *list = ta_json_get(root, "security_group_rules");
	const struct ta_json *rules = ta_json_get(root, "rules");

	t->file_group = NULL;
	if (rules && rules->type == TA_JSON_ARRAY) {
		*items = rules->items;
		*nr = rules->nr_items;
		return group_file(t, root);
	}
	if (root->type == TA_JSON_ARRAY) {
		*items = root->items;
		*nr = root->nr_items;
	} else if (list && list->type == TA_JSON_ARRAY) {
		*items = list->items;
		*nr = list->nr_items;
	} else if (ta_json_get(root, "id")) {
		*items = root;
		*nr = 1;
	} else {
		return ta_os_fail_at(t, root,
				     "expected the list of rules " RULE_LIST
				     " prints (an array), got %s",
				     ta_json_type_name(root->type));
	}
	return 0;
}

static int translate_file(struct translation *t, const char *path)
{
	const struct ta_json *items = NULL;
	struct ta_json root;
	size_t nr = 0;
	char *text;
	size_t len;
	int ret;

	t->path = path;
	ret = ta_text_read(path, "file of security group rules", TA_OPENSTACK_MAX_FILE, &text, &len, t->e);
	if (ret)
		return ret;
	ret = ta_json_parse(text, len, path, &root, t->e);
	free(text);
	if (ret)
		return ret;
	ret = file_rules(t, &root, &items, &nr);
	if (!ret)
		ta_import_comment(t->im, "%s: %zu rules", path, nr);
	for (size_t i = 0; i < nr && !ret; i++)
		ret = translate_rule(t, &items[i]);
	ta_json_free(&root);
	return ret;
}

/* What Neutron's drivers do before a port's rules that the rules the
 * parser puts first in a two-way policy do not: a port never answers
 * DHCP, and may send any ICMPv6 (router advertisements aside, which the
 * parser's rules pass: docs/guests.md). */
static int neutron_base(struct translation *t)
{
	const char *dhcp = "Neutron: a port may not act as a DHCP server";

	return write_rule(t, dhcp, "rule drop out ethertype ipv4 proto udp sport 67 dport 68") ?:
	       write_rule(t, dhcp, "rule drop out ethertype ipv6 proto udp sport 547 dport 546") ?:
	       write_rule(t, "Neutron: a port may send ICMPv6 whatever its rules",
			  "rule pass out proto icmpv6");
}

/* How many rules of its own a two-way policy holds: the parser's limit
 * less the rules it puts first, asked of the parser. */
static uint32_t two_way_room(void)
{
	static const char two_way[] = "default in drop\n";
	struct ta_policy_spec spec;
	struct ta_error e;
	uint32_t n = TA_MAX_RULES;

	if (!ta_policy_parse(two_way, sizeof(two_way) - 1, "", &spec, &e)) {
		n -= ta_policy_implicit_rules(&spec);
		ta_policy_spec_free(&spec);
	}
	return n;
}

int ta_import_openstack(const struct ta_openstack_input *in, struct ta_import *im,
			struct ta_error *e)
{
	struct translation t = { .in = in, .im = im, .e = e, .room = two_way_room() };
	int ret;

	ta_import_comment(im, "OpenStack security groups (tap-accel policy import openstack)");
	ret = groups_parse(&t);
	if (!ret && in->port_path)
		ret = ta_os_read_port(&t);
	if (ret == 1) {
		ret = 0;
		goto out;
	}
	if (!ret)
		ret = neutron_base(&t);
	for (size_t i = 0; i < in->nr_rule_paths && !ret; i++)
		ret = translate_file(&t, in->rule_paths[i]);
	if (!ret) {
		ta_import_statement(im, "Neutron: what no rule allows in is dropped", "default in drop");
		ta_import_statement(im, "Neutron: what no rule allows out is dropped", "default out drop");
	}
out:
	for (size_t i = 0; i < t.nr_groups; i++)
		free(t.groups[i].prefixes);
	free(t.groups);
	for (size_t i = 0; i < t.nr_written; i++)
		free(t.written[i]);
	free(t.written);
	ta_json_free(&t.port);
	return ret;
}
