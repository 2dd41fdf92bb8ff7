// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_addrs.c - what a Proxmox VE rule's -source and -dest name, as
 * prefixes: an address or CIDR, a list of them, an alias ([ALIASES] of the
 * VM's file, then cluster.fw's; "dc/" and "guest/" choose one), an ipset
 * ("+name", looked up the same way). Where Proxmox VE skips a rule the
 * rule is skipped with a warning; what a prefix cannot say (an ipset's
 * "!" exclusions, address ranges) is refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pve_xlate.h"

int pve_refuse(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why)
{
	return ta_error_input_at(x->e, EINVAL, "%s: %s: %s", rc->where, what, why);
}

void pve_skip(struct xlate *x, const struct rule_ctx *rc, const char *what, const char *why)
{
	ta_import_warn(x->im, "%s: %s: %s; the rule is skipped, as Proxmox VE skips it",
		       rc->where, what, why);
}

/* ---- addresses: an address, a CIDR list, an alias, an ipset --------------- */

static int push_addr(struct xlate *x, struct pve_addrs *a, const struct pve_prefix *p)
{
	void *v;

	if (a->n == PVE_MAX_ADDRS)
		return ta_error_input(x->e, E2BIG, "more than %d addresses in one -source or -dest",
				      PVE_MAX_ADDRS);
	v = realloc(a->v, (a->n + 1) * sizeof(*a->v));
	if (!v)
		return ta_error_errno(x->e, ENOMEM, "cannot translate");
	a->v = v;
	a->v[a->n++] = *p;
	return 0;
}

/* The alias `name` ("dc/NAME", "guest/NAME") from `local`'s [ALIASES], then
 * the cluster's, as Proxmox VE looks it up. */
static const struct pve_alias *find_alias(struct xlate *x, const struct pve_fw *local,
					  const char *name)
{
	const struct pve_alias *a = NULL;
	bool dc = !strncmp(name, "dc/", 3), guest = !strncmp(name, "guest/", 6);
	const char *bare = dc ? name + 3 : guest ? name + 6 : name;

	if (!dc && local)
		a = pve_fw_alias(local, bare);
	if (!a && !guest)
		a = pve_fw_alias(x->cluster, bare);
	return a;
}

static bool looks_like_alias(const char *s)
{
	if (!strncmp(s, "dc/", 3))
		s += 3;
	else if (!strncmp(s, "guest/", 6))
		s += 6;
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") ==
		       strlen(s) && strlen(s) > 1 && !strchr(s, ':');
}

/* An alias's or an address's prefix. PVE_OK, PVE_SKIP, PVE_REFUSE (why). */
int pve_entry_prefix(struct xlate *x, const struct pve_fw *local, const char *s,
			struct pve_prefix *p, char *why, size_t len)
{
	if (looks_like_alias(s)) {
		const struct pve_alias *a = find_alias(x, local, s);

		if (!a) {
			snprintf(why, len, "no such alias '%s'", s);
			return PVE_SKIP;
		}
		return pve_prefix(a->cidr, p, why, len);
	}
	return pve_prefix(s, p, why, len);
}

int pve_ipset_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt,
		       const char *ref, struct pve_addrs *out)
{
	const char *name = ref + 1;
	const struct pve_ipset *set = NULL;
	const struct pve_fw *home;
	bool dc = !strncmp(name, "dc/", 3), guest = !strncmp(name, "guest/", 6);
	char what[128], why[512];

	if (dc || guest)
		name = strchr(name, '/') + 1;
	if (!dc && rc->local)
		set = pve_fw_ipset(rc->local, name);
	home = rc->local;
	if (!set && !guest) {
		set = pve_fw_ipset(x->cluster, name);
		home = NULL; /* a cluster ipset's aliases are the cluster's */
	}
	snprintf(what, sizeof(what), "%s %s", opt, ref);
	if (!set) {
		snprintf(why, sizeof(why), "no such ipset '%s'", name);
		pve_skip(x, rc, what, why);
		return PVE_SKIP;
	}
	for (unsigned int i = 0; i < set->n; i++) {
		const struct pve_ipset_entry *en = &set->v[i];
		struct pve_prefix p;
		int ret;

		if (en->nomatch) {
			snprintf(why, sizeof(why), "ipset %s excludes %s (%s:%u), and a tap-accel rule "
				 "cannot leave addresses out of its match: list what the set "
				 "includes instead", set->name, en->text,
				 home ? home->path : x->cluster->path, en->line);
			return pve_refuse(x, rc, what, why);
		}
		ret = pve_entry_prefix(x, home, en->text, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return pve_refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			/* Proxmox VE leaves such an entry out of the set */
			ta_import_warn(x->im, "%s:%u: ipset %s: %s; the entry is skipped, as Proxmox "
				       "VE skips it", home ? home->path : x->cluster->path,
				       en->line, set->name, why);
			continue;
		}
		if (p.len == 0) {
			ta_import_warn(x->im, "%s:%u: ipset %s: a zero prefix is not allowed in ipset "
				       "entries; the entry is skipped, as Proxmox VE skips it",
				       home ? home->path : x->cluster->path, en->line, set->name);
			continue;
		}
		if ((ret = push_addr(x, out, &p)))
			return ret;
	}
	return PVE_OK;
}

/* -source/-dest `s` into `out`: PVE_OK, PVE_SKIP (warned) or -errno. */
int pve_rule_addrs(struct xlate *x, const struct rule_ctx *rc, const char *opt, const char *s,
		      struct pve_addrs *out)
{
	char what[128], why[512], buf[PVE_MAX_LINE], *save, *item;
	enum pve_family family = PVE_ANY;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!s) {
		out->any = true;
		return PVE_OK;
	}
	snprintf(what, sizeof(what), "%s %s", opt, s);
	if (s[0] == '+')
		return pve_ipset_addrs(x, rc, opt, s, out);
	if (looks_like_alias(s)) {
		struct pve_prefix p;

		ret = pve_entry_prefix(x, rc->local, s, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return pve_refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			pve_skip(x, rc, what, why);
			return PVE_SKIP;
		}
		return push_addr(x, out, &p);
	}
	if (strchr(s, '-'))
		return pve_refuse(x, rc, what, "an address range, which tap-accel does not match: "
			      "write it as CIDRs (-source 10.0.0.0/30,10.0.0.4)");
	snprintf(buf, sizeof(buf), "%s", s);
	if (strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ',') {
		pve_skip(x, rc, what, "extraneous commas in list");
		return PVE_SKIP;
	}
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		struct pve_prefix p;

		ret = pve_prefix(item, &p, why, sizeof(why));
		if (ret == PVE_REFUSE)
			return pve_refuse(x, rc, what, why);
		if (ret == PVE_SKIP) {
			pve_skip(x, rc, what, why);
			return PVE_SKIP;
		}
		if (family && p.family != family) {
			pve_skip(x, rc, what, "mixed IPv4 and IPv6 addresses in the list");
			return PVE_SKIP;
		}
		family = p.family;
		if ((ret = push_addr(x, out, &p)))
			return ret;
	}
	return PVE_OK;
}
