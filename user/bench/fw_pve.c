// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * fw_pve.c - the firewall table's Proxmox VE row: a VM's firewall as
 * tap-accel enforces it and as nftables does on a Proxmox VE host.
 *
 * The nftables side keeps the shape Proxmox VE's own writers give a VM,
 * since that shape is what a frame pays for: the conntrack verdicts first
 * (established and related accepted, invalid dropped), then a chain per
 * guest and direction, from which each security group's chain is jumped
 * to, its rules after, the VM's policy last; ipsets are sets (an interval
 * set of the entries and one of the '!' entries, both looked up), aliases
 * their addresses, macros their services. proxmox-firewall writes this in
 * the bridge family with the bridge's own conntrack, dispatching on the
 * tap; here it is an inet table on br_netfilter's hooks (this bench's
 * nftables side), where the hooks see the bridge rather than the tap, so
 * the guest's chains are dispatched on its addresses (one map lookup, as
 * the tap's). The out chain hangs off prerouting, the in chain off forward
 * and output (a reject is not allowed on postrouting).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fw_pve.h"
#include "lib/import/import.h"
#include "lib/import/pve.h"
#include "lib/import/pve_parse.h"

int fw_pve_find(const char *fw_path, struct fw_pve *p, struct ta_error *e)
{
	const char *base = strrchr(fw_path, '/');
	int dir_len = base ? (int)(base - fw_path) : 1;
	const char *dir = base ? fw_path : ".";
	char *end;

	base = base ? base + 1 : fw_path;
	p->vmid = strtoul(base, &end, 10);
	if (end == base || strcmp(end, ".fw"))
		return ta_error_input(e, EINVAL, "--pve '%s': a VM's firewall file, DIR/VMID.fw",
				      fw_path);
	snprintf(p->fw, sizeof(p->fw), "%s", fw_path);
	snprintf(p->cluster, sizeof(p->cluster), "%.*s/cluster.fw", dir_len, dir);
	snprintf(p->conf, sizeof(p->conf), "%.*s/%u.conf", dir_len, dir, p->vmid);
	if (access(p->fw, R_OK))
		return ta_error_input(e, errno, "%s: %s", p->fw, strerror(errno));
	if (access(p->cluster, R_OK))
		return ta_error_input(e, errno,
				      "%s: %s (--pve takes DIR/VMID.fw with cluster.fw beside it)",
				      p->cluster, strerror(errno));
	/* without it, as `policy import pve` without --conf: no MAC guard */
	if (access(p->conf, R_OK))
		p->conf[0] = '\0';
	return 0;
}

/* ---- the tap-accel policy ----------------------------------------------- */

static void policy_line(FILE *out, const char *line, size_t len)
{
	static const char *const to_forward[] = {"rule pass out", "default out pass"};

	if (len >= 6 && !strncmp(line, "guard ", 6))
		return;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(to_forward[i]);

		if (len >= n && !strncmp(line, to_forward[i], n)) {
			fprintf(out, "%s%.*s\n", i ? "default out forward" : "rule forward out",
				(int)(len - n), line + n);
			return;
		}
	}
	fprintf(out, "%.*s\n", (int)len, line);
}

int fw_pve_policy(FILE *out, const struct fw_pve *p, const char *fdb, struct ta_error *e)
{
	struct ta_pve_vm vm = {.fw_path = p->fw, .cluster_path = p->cluster,
			       .conf_path = p->conf[0] ? p->conf : NULL, .iface = 0};
	struct ta_import im;
	int ret;

	if (ta_import_open(&im, e))
		return -e->err;
	ret = ta_import_pve(&vm, &im, e);
	if (!ret)
		ret = ta_import_close(&im, "pve", e);
	if (!ret) {
		fprintf(out, "# tap-accel-bench --firewall: %s translated, without its guard\n%s",
			p->fw, fdb);
		for (const char *l = im.text; *l;) {
			size_t len = strcspn(l, "\n");

			policy_line(out, l, len);
			l += len + (l[len] == '\n');
		}
	}
	ta_import_free(&im);
	return ret;
}

/* ---- the nftables ruleset ------------------------------------------------ */

struct gen {
	FILE *out;
	const struct pve_fw *vm, *dc;
	unsigned int vmid;
	struct ta_error *e;
};

/* An alias's address (the VM's, then the datacenter's), or the text. */
static const char *address(const struct gen *g, const char *text)
{
	const struct pve_alias *a;

	if (!strncasecmp(text, "dc/", 3))
		return (a = pve_fw_alias(g->dc, text + 3)) ? a->cidr : text;
	if (!strncasecmp(text, "guest/", 6))
		return (a = pve_fw_alias(g->vm, text + 6)) ? a->cidr : text;
	if ((a = pve_fw_alias(g->vm, text)) || (a = pve_fw_alias(g->dc, text)))
		return a->cidr;
	return text;
}

static int family_of(const char *addr)
{
	return strchr(addr, ':') ? 6 : 4;
}

/* The set's name in the ruleset: v4-dc-NAME, v6-guest104-NAME. */
static void set_name(const struct gen *g, bool vm, int family, const char *name, char *buf,
		     size_t len)
{
	if (vm)
		snprintf(buf, len, "v%d-guest%u-%s", family, g->vmid, name);
	else
		snprintf(buf, len, "v%d-dc-%s", family, name);
}

static void write_set(const struct gen *g, const struct pve_ipset *s, bool vm, int family,
		      bool nomatch)
{
	char name[PVE_NAME_LEN + 32];
	bool first = true;

	set_name(g, vm, family, s->name, name, sizeof(name));
	fprintf(g->out, "  set %s%s {\n    type ipv%d_addr; flags interval; auto-merge;\n", name,
		nomatch ? "-nomatch" : "", family);
	for (unsigned int i = 0; i < s->n; i++) {
		const char *a = address(g, s->v[i].text);

		if (s->v[i].nomatch != nomatch || family_of(a) != family)
			continue;
		fprintf(g->out, "%s%s", first ? "    elements = { " : ", ", a);
		first = false;
	}
	fprintf(g->out, "%s  }\n", first ? "" : " }\n");
}

static void write_sets(const struct gen *g, const struct pve_fw *fw, bool vm)
{
	for (unsigned int i = 0; i < fw->nr_ipsets; i++)
		for (int family = 4; family <= 6; family += 2) {
			write_set(g, &fw->ipsets[i], vm, family, false);
			write_set(g, &fw->ipsets[i], vm, family, true);
		}
}

/* Whether the set has entries of `family`. */
static bool set_has(const struct gen *g, const struct pve_ipset *s, int family)
{
	for (unsigned int i = 0; i < s->n; i++)
		if (family_of(address(g, s->v[i].text)) == family)
			return true;
	return false;
}

/*
 * The match of -source or -dest `text` for `family` into buf: "" when the
 * rule has none; false when the rule cannot match that family (its
 * addresses are all of the other).
 */
static int addr_match(const struct gen *g, const char *text, const char *dir, int family,
		      char *buf, size_t len, bool *matches)
{
	const char *ip = family == 4 ? "ip" : "ip6";
	char list[1024] = "", copy[1024], *save, *tok;
	int n = 0;

	*matches = true;
	buf[0] = '\0';
	if (!text)
		return 0;
	if (text[0] == '+') {
		const char *name = text + 1;
		const struct pve_ipset *s = NULL;
		bool vm = true;
		char set[PVE_NAME_LEN + 32];

		if (!strncasecmp(name, "dc/", 3))
			vm = false, name += 3;
		else if (!strncasecmp(name, "guest/", 6))
			name += 6;
		else if (!(s = pve_fw_ipset(g->vm, name)))
			vm = false;
		if (!s)
			s = vm ? pve_fw_ipset(g->vm, name) : pve_fw_ipset(g->dc, name);
		if (!s)
			return ta_error_input(g->e, ENOENT, "ipset %s: in neither %s nor %s", text,
				    g->vm->path, g->dc->path);
		*matches = set_has(g, s, family);
		set_name(g, vm, family, s->name, set, sizeof(set));
		snprintf(buf, len, "%s %s @%s %s %s != @%s-nomatch ", ip, dir, set, ip, dir, set);
		return 0;
	}
	snprintf(copy, sizeof(copy), "%s", text);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const char *a = address(g, tok);

		if (family_of(a) != family)
			continue;
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", n++ ? ", " : "",
			 a);
	}
	*matches = n > 0;
	if (n == 1)
		snprintf(buf, len, "%s %s %s ", ip, dir, list);
	else if (n)
		snprintf(buf, len, "%s %s { %s } ", ip, dir, list);
	return 0;
}

/* "80,443" as "{ 80, 443 }", "8080:8089" as "8080-8089". */
static void ports(const char *text, char *buf, size_t len)
{
	size_t j = 0;
	bool list = strchr(text, ',');

	if (list)
		j += snprintf(buf, len, "{ ");
	for (const char *c = text; *c && j + 4 < len; c++) {
		if (*c == ':')
			buf[j++] = '-';
		else if (*c == ',')
			j += snprintf(buf + j, len - j, ", ");
		else
			buf[j++] = *c;
	}
	buf[j] = '\0';
	if (list)
		snprintf(buf + j, len - j, " }");
}

static void appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

struct match {
	const char *proto, *dport, *sport, *icmp;
	enum pve_family family;
};

static const char *verdict(const char *action)
{
	if (!strcasecmp(action, "ACCEPT"))
		return "accept";
	if (!strcasecmp(action, "REJECT"))
		return "jump do-reject";
	return "drop";
}

/* One rule of chain `chain` for one protocol match, in each family its
 * addresses and protocol allow. */
static int write_match(const struct gen *g, const char *chain, const struct pve_rule *r,
		       const struct match *m)
{
	bool icmp6 = m->proto && !strcasecmp(m->proto, "icmpv6");
	bool icmp4 = m->proto && !strcasecmp(m->proto, "icmp");
	bool any_family = !r->source && !r->dest && !icmp4 && !icmp6 && m->family == PVE_ANY;

	for (int family = 4; family <= 6; family += 2) {
		char src[1200], dst[1200], l4[256] = "", p[128];
		bool src_ok, dst_ok;

		if ((m->family && (int)m->family != family) || (icmp4 && family == 6) ||
		    (icmp6 && family == 4))
			continue;
		if (addr_match(g, r->source, "saddr", family, src, sizeof(src), &src_ok) ||
		    addr_match(g, r->dest, "daddr", family, dst, sizeof(dst), &dst_ok))
			return -g->e->err;
		if (!src_ok || !dst_ok)
			continue;
		if (icmp4 || icmp6)
			snprintf(l4, sizeof(l4), m->icmp ? "%s type %s " : "meta l4proto %s ",
				 icmp4 ? "icmp" : m->icmp ? "icmpv6" : "ipv6-icmp",
				 m->icmp ? m->icmp : "");
		else if (m->proto) {
			snprintf(l4, sizeof(l4), "meta l4proto %s ", m->proto);
			if (m->sport) {
				ports(m->sport, p, sizeof(p));
				appendf(l4, sizeof(l4), "th sport %s ", p);
			}
			if (m->dport) {
				ports(m->dport, p, sizeof(p));
				appendf(l4, sizeof(l4), "th dport %s ", p);
			}
		}
		fprintf(g->out, "    %s%s%s%s  # %s:%u\n", src, dst, l4, verdict(r->action),
			!strncmp(chain, "guest-", 6) ? g->vm->path : g->dc->path,
			r->line);
		if (any_family)
			break;
	}
	return 0;
}

/* A rule of `dir` ('I', 'O') in chain `chain`: a macro's services each,
 * or its own protocol and ports. */
static int write_rule(const struct gen *g, const char *chain, const struct pve_rule *r)
{
	const char *path = !strncmp(chain, "guest-", 6) ? g->vm->path : g->dc->path;

	if (r->macro[0]) {
		unsigned int nr = 0;
		const char *canonical;
		const struct pve_macro_entry *me = pve_macro(r->macro, &nr, &canonical);

		if (!me)
			return ta_error_input_at(g->e, EINVAL,
						 "%s:%u: macro %s: not one this bench writes", path,
						 r->line, r->macro);
		for (unsigned int i = 0; i < nr; i++) {
			struct match m = {me[i].proto, me[i].dport, me[i].sport, me[i].icmp,
					  me[i].family};

			if (write_match(g, chain, r, &m))
				return -g->e->err;
		}
		return 0;
	}
	if (r->icmp_type && !r->proto)
		return ta_error_input_at(g->e, EINVAL, "%s:%u: -icmp-type without -p", path,
					 r->line);
	{
		struct match m = {r->proto, r->dport, r->sport, r->icmp_type, PVE_ANY};

		return write_match(g, chain, r, &m);
	}
}

static bool rule_used(const struct pve_rule *r)
{
	/* the bench's guests are the VM's net0 */
	return r->enabled && (!r->iface[0] || !strcmp(r->iface, "net0"));
}

static int write_group(const struct gen *g, const struct pve_group *grp)
{
	for (int out = 0; out < 2; out++) {
		char chain[PVE_NAME_LEN + 16];

		snprintf(chain, sizeof(chain), "group-%s-%s", grp->name, out ? "out" : "in");
		fprintf(g->out, "  chain %s {  # %s:%u\n", chain, g->dc->path, grp->line);
		for (unsigned int i = 0; i < grp->rules.n; i++) {
			const struct pve_rule *r = &grp->rules.v[i];

			if (rule_used(r) && r->type == (out ? 'O' : 'I') && write_rule(g, chain, r))
				return -g->e->err;
		}
		fprintf(g->out, "  }\n");
	}
	return 0;
}

static const char *policy_verdict(const char *policy, bool out)
{
	if (!policy[0])
		return out ? "accept" : "drop";
	return verdict(policy);
}

static int write_guest(const struct gen *g, bool out)
{
	const char *dir = out ? "out" : "in";
	char chain[32];
	bool on = g->vm->enable.value == 1 && g->dc->enable.value == 1;

	snprintf(chain, sizeof(chain), "guest-%u-%s", g->vmid, dir);
	fprintf(g->out, "  chain %s {\n    jump pre-vm-%s\n", chain, dir);
	if (!on) {
		fprintf(g->out, "    accept  # the firewall is off\n  }\n");
		return 0;
	}
	if (out)
		fputs("    # ipfilter and macfilter: left out, as the policy's guard is\n", g->out);
	fprintf(g->out, "    ct mark set %u\n", g->vmid);
	for (unsigned int i = 0; i < g->vm->rules.n; i++) {
		const struct pve_rule *r = &g->vm->rules.v[i];

		if (!rule_used(r))
			continue;
		if (r->type == 'G') {
			if (!pve_fw_group(g->dc, r->action))
				return ta_error_input_at(g->e, ENOENT, "%s:%u: group %s: not in %s",
							 g->vm->path, r->line, r->action,
							 g->dc->path);
			fprintf(g->out, "    jump group-%s-%s  # %s:%u\n", r->action, dir,
				g->vm->path, r->line);
		} else if (r->type == (out ? 'O' : 'I') && write_rule(g, chain, r)) {
			return -g->e->err;
		}
	}
	fprintf(g->out, "    %s  # policy_%s\n  }\n",
		policy_verdict(out ? g->vm->policy_out : g->vm->policy_in, out), dir);
	return 0;
}

/* The chains every guest shares: Proxmox VE's, reduced to what an IPv4 or
 * IPv6 frame of a guest meets. */
static const char common[] =
	"  chain invalid-conntrack {\n    drop\n  }\n"
	"  chain block-smurfs {\n"
	"    ip saddr { 224.0.0.0/4, 255.255.255.255 } drop\n  }\n"
	"  chain allow-icmp {\n"
	"    icmp type { destination-unreachable, source-quench, time-exceeded } accept\n"
	"    icmpv6 type { destination-unreachable, packet-too-big, time-exceeded, "
	"parameter-problem } accept\n  }\n"
	"  chain do-reject {\n"
	"    meta pkttype broadcast drop\n"
	"    ip saddr 224.0.0.0/4 drop\n"
	"    meta l4proto tcp reject with tcp reset\n"
	"    meta l4proto { icmp, ipv6-icmp } reject with icmpx type port-unreachable\n"
	"    reject with icmpx type admin-prohibited\n"
	"    drop\n  }\n"
	"  chain pre-vm-out {\n"
	"    ct state vmap { established : accept, related : accept, invalid : jump "
	"invalid-conntrack }\n  }\n"
	"  chain pre-vm-in {\n"
	"    ct state vmap { established : accept, related : accept, invalid : jump "
	"invalid-conntrack }\n"
	"    jump block-smurfs\n  }\n";

/* A map of the guests' addresses to their chains of `dir`. */
static void write_map(const struct gen *g, const char *guests, const char *dir)
{
	fprintf(g->out, "  map vm-map-%s {\n    type ipv4_addr : verdict; flags interval;\n"
			"    elements = { ", dir);
	for (const char *a = guests; *a;) {
		size_t n = strcspn(a, ",");

		fprintf(g->out, "%s%.*s : goto guest-%u-%s", a == guests ? "" : ", ", (int)n, a,
			g->vmid, dir);
		a += n + (a[n] == ',');
	}
	fprintf(g->out, " }\n  }\n");
}

static void write_hooks(const struct gen *g, const char *guests)
{
	write_map(g, guests, "out");
	write_map(g, guests, "in");
	fprintf(g->out,
		"  chain vm-out {\n    type filter hook prerouting priority 0; policy accept;\n"
		"    jump allow-icmp\n    ip saddr vmap @vm-map-out\n  }\n"
		"  chain vm-in {\n    type filter hook forward priority 0; policy accept;\n"
		"    jump allow-icmp\n    ip daddr vmap @vm-map-in\n  }\n"
		"  chain vm-in-local {\n    type filter hook output priority 0; policy accept;\n"
		"    jump allow-icmp\n    ip daddr vmap @vm-map-in\n  }\n");
}

static int generate(const struct gen *g, const char *guests)
{
	fprintf(g->out, "# tap-accel-bench --firewall: %s with %s, as Proxmox VE shapes it\n"
			"table inet proxmox-firewall-guests {\n",
		g->vm->path, g->dc->path);
	write_sets(g, g->dc, false);
	write_sets(g, g->vm, true);
	fputs(common, g->out);
	for (unsigned int i = 0; i < g->dc->nr_groups; i++)
		if (write_group(g, &g->dc->groups[i]))
			return -g->e->err;
	if (write_guest(g, false) || write_guest(g, true))
		return -g->e->err;
	write_hooks(g, guests);
	fprintf(g->out, "}\n");
	return 0;
}

int fw_pve_nft(FILE *out, const struct fw_pve *p, const char *guests, struct ta_error *e)
{
	struct pve_fw vm = {0}, dc = {0};
	struct gen g = {out, &vm, &dc, p->vmid, e};
	int ret;

	ret = pve_fw_read(p->cluster, true, &dc, e);
	if (!ret)
		ret = pve_fw_read(p->fw, false, &vm, e);
	if (!ret)
		ret = generate(&g, guests);
	pve_fw_free(&vm);
	pve_fw_free(&dc);
	return ret;
}
