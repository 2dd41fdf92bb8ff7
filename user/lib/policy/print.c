// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* print.c - a policy spec written back in the policy language (print.h). */
#include <arpa/inet.h>
#include <stdio.h>

#include "names.h"
#include "print.h"

static bool constrains(const struct ta_rule_spec *r, enum ta_field f)
{
	return r->fields & (1u << f);
}

static void write_ports(FILE *out, const char *word, uint16_t lo, uint16_t hi)
{
	if (lo == hi)
		fprintf(out, " %s %u", word, lo);
	else
		fprintf(out, " %s %u-%u", word, lo, hi);
}

static void write_action(FILE *out, uint32_t action, const char *dev)
{
	fprintf(out, " %s", ta_action_name(action));
	if (action == TA_ACT_REDIRECT)
		fprintf(out, " %s", dev);
}

/* A comma list of the names of the bits of `set`. */
static void write_set(FILE *out, const char *word, uint32_t set, const char *const *names,
		      uint32_t n)
{
	const char *sep = " ";

	if (word)
		fprintf(out, " %s", word);
	for (uint32_t i = 0; i < n; i++) {
		if (!(set & (1u << i)))
			continue;
		fprintf(out, "%s%s", sep, names[i]);
		sep = ",";
	}
}

void ta_rule_write(FILE *out, const struct ta_rule_spec *r, bool two_way)
{
	char buf[64];
	const char *name;

	fputs("rule", out);
	write_action(out, r->action, r->redirect_dev);
	/* a policy of one direction is written as before there were two */
	if (two_way && ta_rule_dirs(r) == TA_DIRS_BOTH)
		fputs(" in,out", out);
	else if (two_way)
		write_set(out, NULL, ta_rule_dirs(r), ta_dir_names, TA_DIR_MAX);
	if (constrains(r, TA_F_VLAN))
		fprintf(out, " vlan %u", r->vlan);
	if (constrains(r, TA_F_SRC_MAC))
		fprintf(out, " smac %s", ta_format_mac(r->src_mac, buf));
	if (constrains(r, TA_F_DST_MAC))
		fprintf(out, " dmac %s", ta_format_mac(r->dst_mac, buf));
	if (constrains(r, TA_F_ETHERTYPE)) {
		name = ta_name_of(ta_ethertype_names, r->ethertype);
		if (name)
			fprintf(out, " ethertype %s", name);
		else
			fprintf(out, " ethertype 0x%04x", r->ethertype);
	}
	if (constrains(r, TA_F_SRC_IP))
		fprintf(out, " src %s", ta_format_prefix(&r->src_ip, buf));
	if (constrains(r, TA_F_DST_IP))
		fprintf(out, " dst %s", ta_format_prefix(&r->dst_ip, buf));
	if (constrains(r, TA_F_IP_PROTO)) {
		name = ta_name_of(ta_protocol_names, r->ip_proto);
		if (name)
			fprintf(out, " proto %s", name);
		else
			fprintf(out, " proto %u", r->ip_proto);
	}
	if (constrains(r, TA_F_SRC_PORT))
		write_ports(out, "sport", r->sport_lo, r->sport_hi);
	if (constrains(r, TA_F_DST_PORT))
		write_ports(out, "dport", r->dport_lo, r->dport_hi);
	if (constrains(r, TA_F_ICMP_TYPE))
		fprintf(out, " icmp-type %u", r->icmp_type);
	if (r->states)
		write_set(out, "state", r->states, ta_ct_state_names, TA_CT_STATE_MAX);
	fputc('\n', out);
}

static void write_guard(FILE *out, const struct ta_guard_spec *g)
{
	char buf[64];

	if (!g->flags)
		return;
	fputs("guard", out);
	if (g->flags & TA_GUARD_F_MAC)
		fprintf(out, " mac %s", ta_format_mac(g->mac, buf));
	for (uint32_t i = 0; i < g->nr_ip4; i++)
		fprintf(out, " ip %s", inet_ntop(AF_INET, &g->ip4[i], buf, sizeof(buf)));
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		fprintf(out, " ip %s", inet_ntop(AF_INET6, g->ip6[i], buf, sizeof(buf)));
	fputc('\n', out);
}

static void write_rate(FILE *out, const struct ta_rate_spec *r)
{
	if (!r->pps && !r->bps)
		return;
	fputs("rate", out);
	if (r->pps)
		fprintf(out, " %llupps", (unsigned long long)r->pps);
	if (r->bps)
		fprintf(out, " %llubit", (unsigned long long)r->bps);
	if (r->burst_pkts)
		fprintf(out, " burst %llu", (unsigned long long)r->burst_pkts);
	if (r->burst_bytes)
		fprintf(out, " burst %llub", (unsigned long long)r->burst_bytes);
	fputc('\n', out);
}

void ta_policy_write(FILE *out, const struct ta_policy_spec *spec)
{
	bool two_way = ta_policy_two_way(spec);
	char mac[18];

	write_guard(out, &spec->guard);
	write_rate(out, &spec->rate);
	for (uint32_t i = 0; i < spec->nr_fdb; i++)
		fprintf(out, "fdb %s dev %s\n", ta_format_mac(spec->fdb[i].mac, mac),
			spec->fdb[i].dev);
	for (uint32_t i = 0; i < spec->nr_rules; i++)
		if (!spec->rules[i].implicit)
			ta_rule_write(out, &spec->rules[i], two_way);
	fputs(two_way ? "default out" : "default", out);
	write_action(out, spec->default_action, spec->default_dev);
	fputc('\n', out);
	if (two_way)
		fprintf(out, "default in %s\n", ta_action_name(spec->default_in_action));
}
