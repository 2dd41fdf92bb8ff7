// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve.c - a Proxmox VE VM's firewall as the policy of one of its
 * interfaces (docs/proxmox.md). What Proxmox VE does for the tap of netN,
 * in its order, and how it is written here:
 *
 *   conntrack: invalid dropped, established/related accepted
 *                                   -> a two-way policy's own first rules
 *   DHCP accepted unless dhcp: 0, neighbour discovery unless ndp: 0
 *                                   -> also its own (so dhcp: 0 and ndp: 0
 *                                      cannot be enforced: refused)
 *   macfilter, ipfilter-netN        -> guard mac, guard ip
 *   the VM's [RULES], GROUPs inlined, first match wins -> rule lines
 *   policy_in (DROP), policy_out (ACCEPT) -> default in, default out
 *
 * Rule options with lists, ipsets and port lists become one rule per
 * combination, in order, so that the first match still decides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pve_xlate.h"

/* ---- options: guard, defaults ------------------------------------------------ */

/* The link-local address Proxmox VE's ipfilter always allows: EUI-64 of the MAC. */
static void link_local(const uint8_t mac[6], char *buf, size_t len)
{
	snprintf(buf, len, "fe80::%x:%x:%x:%x", (mac[0] ^ 2) << 8 | mac[1], mac[2] << 8 | 0xff,
		 0xfe << 8 | mac[3], mac[4] << 8 | mac[5]);
}

static int guard_ipfilter(struct xlate *x, const struct ta_pve_net *net, bool *v4, bool *v6)
{
	char name[32], where[256], why[512];
	const struct pve_ipset *set;
	int ret;

	snprintf(name, sizeof(name), "ipfilter-%s", x->netid);
	set = pve_fw_ipset(x->vmfw, name);
	if (!set && x->vmfw->ipfilter.value != 1)
		return 0;
	if (net && net->has_mac) {
		char ll[64];

		link_local(net->mac, ll, sizeof(ll));
		snprintf(where, sizeof(where), "%s: ipfilter: the link-local address of %s's MAC",
			 x->vmfw->path, x->netid);
		ta_import_statement(x->im, where, "guard ip %s", ll);
		*v6 = true;
	}
	for (unsigned int i = 0; set && i < set->n; i++) {
		const struct pve_ipset_entry *en = &set->v[i];
		struct pve_prefix p;

		snprintf(where, sizeof(where), "%s:%u", x->vmfw->path, en->line);
		if (en->nomatch)
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: !%s: the guard lists "
						 "the guest's addresses and cannot exclude one: "
						 "list the addresses it may use", where, name,
						 en->text);
		ret = pve_entry_prefix(x, x->vmfw, en->text, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: %s", where, name, why);
		if (ret == PVE_SKIP) {
			ta_import_warn(x->im, "%s: ipset %s: %s; the entry is skipped, as Proxmox VE "
				       "skips it", where, name, why);
			continue;
		}
		if (p.len != (p.family == PVE_V4 ? 32u : 128u))
			return ta_error_input_at(x->e, EINVAL, "%s: ipset %s: %s is a network, and "
						 "the guard takes the guest's own addresses: list them "
						 "one by one", where, name, p.text);
		ta_import_statement(x->im, where, "guard ip %s", p.text);
		*(p.family == PVE_V4 ? v4 : v6) = true;
	}
	return 1;
}

static int write_guard(struct xlate *x, const struct ta_pve_net *net)
{
	bool v4 = false, v6 = false;
	char where[256], mac[18];
	int ret;

	if (x->vmfw->macfilter.value != 0) {
		if (net && net->has_mac) {
			snprintf(where, sizeof(where), "%s: macfilter, %s's MAC in %s", x->vmfw->path,
				 x->netid, x->vm->conf_path);
			snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", net->mac[0],
				 net->mac[1], net->mac[2], net->mac[3], net->mac[4], net->mac[5]);
			ta_import_statement(x->im, where, "guard mac %s", mac);
		} else {
			ta_import_warn(x->im, "%s: macfilter is on, but %s: no MAC guard", x->vmfw->path,
				       net ? "the configuration gives the interface no MAC"
					   : "no VM configuration was given (--conf VMID.conf)");
		}
	}
	ret = guard_ipfilter(x, net, &v4, &v6);
	if (ret <= 0)
		return ret;
	/* the guard checks a family only once it has an address of it; a set
	 * without one lets the guest send none of that family */
	for (int family = PVE_V4; family <= PVE_V6; family += 2) {
		struct rule_ctx rc = { .file = x->vmfw };
		struct one_rule r = { .dir = 'O', .action = "drop", .proto = -1, .icmp_type = -1,
				      .ethertype = family };

		if (family == PVE_V4 ? v4 : v6)
			continue;
		snprintf(rc.where, sizeof(rc.where), "%s: ipfilter-%s has no IPv%d address",
			 x->vmfw->path, x->netid, family);
		if ((ret = pve_write_rule(x, &rc, "ipfilter", &r)))
			return ret;
	}
	return 0;
}

/*
 * What Proxmox VE drops on the way to every VM before the VM's own rules
 * (new connections only, as here): the sources of cluster.fw's ipset
 * "blacklist", and multicast and broadcast sources (the smurf filter,
 * host.fw's nosmurfs, on unless turned off there).
 */
static int write_cluster_filters(struct xlate *x)
{
	struct rule_ctx rc = { .file = x->cluster };
	struct one_rule r = { .dir = 'I', .action = "drop", .proto = -1, .icmp_type = -1 };
	static const char *const smurfs[] = { "224.0.0.0/4", "255.255.255.255" };
	struct pve_prefix p;
	char why[512];
	int ret;

	if (x->cluster && pve_fw_ipset(x->cluster, "blacklist")) {
		struct pve_addrs a = { 0 };

		snprintf(rc.where, sizeof(rc.where), "%s: ipset blacklist", x->cluster->path);
		ret = pve_ipset_addrs(x, &rc, "blacklist", "+blacklist", &a);
		for (unsigned int i = 0; ret == 0 && i < a.n; i++) {
			r.src = &a.v[i];
			ret = pve_write_rule(x, &rc, "ipset blacklist", &r);
		}
		free(a.v);
		if (ret < 0)
			return ret;
	}
	for (size_t i = 0; i < sizeof(smurfs) / sizeof(smurfs[0]); i++) {
		snprintf(rc.where, sizeof(rc.where), "Proxmox VE's smurf filter (host.fw nosmurfs)");
		pve_prefix(smurfs[i], &p, why, sizeof(why));
		r.src = &p;
		if ((ret = pve_write_rule(x, &rc, "smurfs", &r)))
			return ret;
	}
	return 0;
}

/* What Proxmox VE does that a two-way policy cannot undo: refused. */
static int check_options(struct xlate *x)
{
	const struct pve_fw *fw = x->vmfw;

	if (fw->ips.value == 1)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: ips: 1 hands accepted traffic to an "
					 "intrusion prevention system (NFQUEUE), which tap-accel "
					 "cannot: set ips: 0 to import this firewall", fw->path,
					 fw->ips.line);
	if (fw->dhcp.value == 0)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: dhcp: 0 leaves DHCP to the rules, and "
					 "a tap-accel two-way policy always lets DHCP to and from "
					 "the guest through (docs/proxmox.md): set dhcp: 1 to import "
					 "this firewall", fw->path, fw->dhcp.line);
	if (fw->ndp.value == 0)
		return ta_error_input_at(x->e, EINVAL, "%s:%u: ndp: 0 leaves neighbour discovery to "
					 "the rules, and a tap-accel two-way policy always lets it "
					 "through (docs/proxmox.md): set ndp: 1 to import this "
					 "firewall", fw->path, fw->ndp.line);
	return 0;
}

static void write_default(struct xlate *x, bool in)
{
	const struct pve_fw *fw = x->vmfw;
	const char *policy = in ? fw->policy_in : fw->policy_out;
	unsigned int line = in ? fw->policy_in_line : fw->policy_out_line;
	char where[256];

	if (line)
		snprintf(where, sizeof(where), "%s:%u", fw->path, line);
	else
		snprintf(where, sizeof(where), "%s: policy_%s, Proxmox VE's default %s", fw->path,
			 in ? "in" : "out", in ? "DROP" : "ACCEPT");
	if (!*policy)
		policy = in ? "DROP" : "ACCEPT";
	ta_import_statement(x->im, where, "default %s %s", in ? "in" : "out", pve_action_word(policy));
}

/* The firewall filters nothing: say why, pass everything. */
static int write_off(struct xlate *x, const char *why)
{
	ta_import_comment(x->im, "the firewall of %s is off: %s", x->netid, why);
	ta_import_statement(x->im, why, "default pass");
	return 0;
}

static int translate(struct xlate *x, const struct ta_pve_conf *conf)
{
	const struct ta_pve_net *net = conf ? &conf->net[x->vm->iface] : NULL;
	char why[512];
	int ret;

	if (x->cluster && x->cluster->enable.value != 1) {
		snprintf(why, sizeof(why), "%s: enable is not 1, the datacenter's firewall is off",
			 x->cluster->path);
		return write_off(x, why);
	}
	if (!x->vm->fw_path) {
		snprintf(why, sizeof(why), "the VM has no firewall configuration");
		return write_off(x, why);
	}
	if (x->vmfw->enable.value != 1) {
		snprintf(why, sizeof(why), "%s: enable is not 1 (Proxmox VE's default is 0)",
			 x->vmfw->path);
		return write_off(x, why);
	}
	if (net && !net->present)
		return ta_error_input(x->e, ENOENT, "%s has no %s: give the interface with --iface "
				      "netN", x->vm->conf_path, x->netid);
	if (net && !net->firewall) {
		snprintf(why, sizeof(why), "%s:%u: %s has no firewall=1", x->vm->conf_path,
			 net->line, x->netid);
		return write_off(x, why);
	}
	if ((ret = check_options(x)))
		return ret;
	ta_import_comment(x->im, "Proxmox VE firewall of %s, %s (tap-accel policy import pve)",
			  x->vmfw->path, x->netid);
	if (x->vmfw->radv.value != 1)
		ta_import_comment(x->im, "radv is not 1: Proxmox VE drops router advertisements the "
				  "guest sends, tap-accel lets them through (docs/proxmox.md)");
	if ((ret = write_guard(x, net)))
		return ret;
	if ((ret = write_cluster_filters(x)) || (ret = pve_translate_rules(x)))
		return ret;
	write_default(x, true);
	write_default(x, false);
	return 0;
}

int ta_import_pve(const struct ta_pve_vm *vm, struct ta_import *im, struct ta_error *e)
{
	struct pve_fw vmfw = { 0 }, cluster = { 0 };
	struct ta_pve_conf conf;
	struct xlate x = { .vm = vm, .im = im, .e = e };
	int ret = 0;

	if (vm->iface >= TA_PVE_MAX_NETS)
		return ta_error_input(e, EINVAL, "net%u: Proxmox VE's interfaces are net0 to net%d",
				      vm->iface, TA_PVE_MAX_NETS - 1);
	snprintf(x.netid, sizeof(x.netid), "net%u", vm->iface);
	if (vm->cluster_path && (ret = pve_fw_read(vm->cluster_path, true, &cluster, e)))
		return ret;
	if (vm->fw_path && (ret = pve_fw_read(vm->fw_path, false, &vmfw, e)))
		goto out;
	if (vm->conf_path && (ret = ta_pve_conf_read(vm->conf_path, &conf, e)))
		goto out;
	x.vmfw = &vmfw;
	x.cluster = vm->cluster_path ? &cluster : NULL;
	ret = translate(&x, vm->conf_path ? &conf : NULL);
	for (unsigned int i = 0; i < x.nr_rules; i++)
		free(x.seen[i]);
	free(x.seen);
out:
	pve_fw_free(&vmfw);
	pve_fw_free(&cluster);
	return ret;
}
