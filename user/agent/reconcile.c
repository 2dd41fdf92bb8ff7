// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * reconcile.c - the plane made what the configuration asks for (agent.h).
 *
 * One pass opens the plane once (its lock held only for the pass) and
 * goes in three steps: what each tap to look at asks for is worked out in
 * the agent's own namespace, where policies load (their interfaces are
 * looked up there); then every binding to go is unbound in one call,
 * which waits for frames in flight once; last, in each namespace in turn,
 * the taps are bound (by name: the library binds in the namespace it
 * runs in). Unbinding first matters: a tap that went and a new one given
 * its ifindex have the same key.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/if_link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/log.h"
#include "agent/netns.h"
#include "agent/pve.h"
#include "agent/reconcile.h"
#include "agent/ctevents.h"
#include "lib/plane/conntrack.h"
#include "lib/plane/policies.h"
#include "lib/plane/taps.h"
#include "lib/policy/names.h"
#include "lib/policy/parse.h"

/* What one tap is to be bound to. */
struct plan {
	struct agent_ns *ns;
	struct agent_link *link;
	const struct agent_binding *by; /* NULL: `source pve` */
	const char *source;		/* then what it says of the VM */
	uint32_t policy;
	const struct ta_guard_spec *guard; /* NULL: none */
	bool has_state;
	struct ta_tap_state state; /* its binding now */
};

/* A binding to go, and what the log says of it. */
struct unbinding {
	struct ta_tap_key key;
	char what[IF_NAMESIZE + NAME_MAX + 80];
};

struct pass {
	struct agent *a;
	struct ta_plane pl;
	bool full;
	/* full: every binding on the host, sorted, and which of them a
	 * link of a watched namespace accounts for */
	struct ta_tap_state *states;
	bool *accounted;
	uint32_t nr_states;
	struct plan *plans;
	uint32_t nr_plans;
	struct unbinding *unbind;
	uint32_t nr_unbind, cap_unbind;
	/* policies of policies/ whose load failed in this pass */
	const struct agent_policy **failed;
	uint32_t nr_failed;
	unsigned bound, serving, errors;
};

/* ---- errors ----------------------------------------------------------------- */

/* Tell an error of a tap once: its next attempts fail quietly until the
 * error is another. The tap is looked at again at the next pass. */
static void tap_error(struct pass *p, struct agent_link *k, const char *who, const char *text)
{
	p->errors++;
	p->a->health.bind_errors++;
	k->settled = false;
	k->state = TAP_ERROR;
	snprintf(k->why, sizeof(k->why), "%s", text);
	if (agent_news(&k->error_hash, text))
		agent_log("error: %s: %s", who, text);
}

/* ---- policies --------------------------------------------------------------- */

static bool load_failed(const struct pass *p, const struct agent_policy *pol)
{
	for (uint32_t i = 0; i < p->nr_failed; i++)
		if (p->failed[i] == pol)
			return true;
	return false;
}

/* Load a policy of policies/ (its interfaces looked up in the agent's own
 * namespace): 0, or -1 with the error said. */
static int policy_load(struct pass *p, struct agent_policy *pol)
{
	struct ta_load_result res;
	struct ta_error e;
	const struct agent_policy **more;
	int ret;

	if (load_failed(p, pol))
		return -1;
	ret = ta_policy_resolve(pol->path, &pol->spec, &e) ?:
	      ta_policy_load(&p->pl, pol->name, &pol->spec, false, &res, &e);
	if (!ret && res.created)
		agent_log("policy %s: loaded from %s (%u rules, default %s)", pol->name, pol->path,
			  pol->spec.nr_rules, ta_action_name(pol->spec.default_action));
	else if (!ret && !res.unchanged)
		agent_log("policy %s: replaced from %s for %u taps (%u rules, default %s)",
			  pol->name, pol->path, res.nr_taps, pol->spec.nr_rules,
			  ta_action_name(pol->spec.default_action));
	if (!ret) {
		pol->error_hash = 0;
		return 0;
	}
	if (agent_news(&pol->error_hash, e.text))
		agent_log("error: policy %s not loaded: %s", pol->name, e.text);
	more = realloc(p->failed, (p->nr_failed + 1) * sizeof(*more));
	if (more) {
		p->failed = more;
		p->failed[p->nr_failed++] = pol;
	}
	return -1;
}

/* The index of policy `name`, loaded from policies/ if the plane lacks
 * it: 0, or -1 with why in `why`. */
static int policy_index(struct pass *p, const char *name, uint32_t *index, char *why,
			size_t size)
{
	struct agent_policy *pol = (struct agent_policy *)agent_config_policy(&p->a->cfg, name);

	if (!ta_policy_find(&p->pl, name, index))
		return 0;
	if (!pol) {
		snprintf(why, size, "no policy %s is loaded, and %s/policies has no %s.policy; "
			 "add it there, or load it with 'tap-accel policy load %s FILE'", name,
			 p->a->cfg.dir, name, name);
		return -1;
	}
	if (policy_load(p, pol) || ta_policy_find(&p->pl, name, index)) {
		snprintf(why, size, "its policy %s did not load (above)", name);
		return -1;
	}
	return 0;
}

static void load_policies(struct pass *p)
{
	for (uint32_t i = 0; i < p->a->cfg.nr_policies; i++)
		policy_load(p, &p->a->cfg.policies[i]);
}

static const char *unbound_words(uint32_t action, const char *policy, char *buf, size_t size)
{
	if (action == TA_UNBOUND_POLICY)
		snprintf(buf, size, "policy %s", policy);
	else
		snprintf(buf, size, "%s", action == TA_UNBOUND_DROP ? "drop" : "pass");
	return buf;
}

/* What the program does with taps it serves unbound (agent.conf). */
static void set_unbound(struct pass *p)
{
	const struct agent_config *cfg = &p->a->cfg;
	uint32_t action = cfg->unbound, index = 0, was, was_index;
	char why[512], now_words[96], was_words[96];
	int err;

	if (action == TA_UNBOUND_POLICY &&
	    policy_index(p, cfg->unbound_policy, &index, why, sizeof(why))) {
		agent_log("error: unbound taps: %s; what they get stays as it is", why);
		return;
	}
	err = ta_plane_get_unbound(&p->pl, &was, &was_index);
	if (!err && was == action && (action != TA_UNBOUND_POLICY || was_index == index))
		return;
	err = ta_plane_set_unbound(&p->pl, action, index);
	if (err) {
		agent_log("error: unbound taps: cannot set what they get: %s", strerror(-err));
		return;
	}
	agent_log("unbound taps: %s (was %s)",
		  unbound_words(action, cfg->unbound_policy, now_words, sizeof(now_words)),
		  unbound_words(was, ta_policy_name(&p->pl, was_index), was_words,
				sizeof(was_words)));
}

/* The settings of ta_ct_config as words: the limits, and the timeouts of
 * `given` (TA_CTS_TIMEOUT bits): to say what changed. */
static const char *ct_config_words(const struct ta_ct_config *c, uint32_t given, char *buf,
				   size_t size)
{
	struct ta_ct_settings s = {.given = given | TA_CTS_MAX | TA_CTS_TAP_LIMIT,
				   .max_tracked = c->max_tracked, .tap_limit = c->tap_limit};

	memcpy(s.timeout, c->timeout, sizeof(s.timeout));
	return ta_ct_settings_words(&s, buf, size);
}

/* The connection table's settings (agent.conf's conntrack lines): what
 * they name, and the defaults of the rest. No line: left as they are. */
static void set_conntrack(struct pass *p)
{
	const struct ta_ct_settings *s = &p->a->cfg.conntrack;
	struct ta_ct_config was, now;
	char was_words[512], now_words[512];
	uint32_t zero = 0, timeouts = 0;
	struct ta_error e;

	if (!s->given)
		return;
	if (ta_ct_settings_apply(&p->pl, s, true, &was, &e)) {
		if (agent_news(&p->a->ct_told, e.text))
			agent_log("error: conntrack: %s/agent.conf: %s; the table's settings stay as "
				  "they are", p->a->cfg.dir, e.text);
		return;
	}
	p->a->ct_told = 0;
	if (bpf_map_lookup_elem(p->pl.maps.ta_ct_config, &zero, &now) ||
	    !memcmp(&was, &now, sizeof(now)))
		return;
	/* the timeouts either sets */
	for (int i = 0; i < TA_CT_CONN_MAX; i++)
		if (was.timeout[i] || now.timeout[i])
			timeouts |= TA_CTS_TIMEOUT(i);
	agent_log("conntrack: %s (was %s)",
		  ct_config_words(&now, timeouts, now_words, sizeof(now_words)),
		  ct_config_words(&was, timeouts, was_words, sizeof(was_words)));
}

/* tapx gives the taps it makes in a namespace that namespace's default
 * program from their creation: the plane's, so that unbound taps get
 * `unbound` before the agent hears of them. Said once per namespace;
 * nothing where tapx is not. */
static void tapx_default(struct pass *p, struct agent_ns *ns)
{
	const struct agent_config *cfg = &p->a->cfg;
	char words[96];
	uint32_t id = 0;
	int err;

	err = agent_ns_enter(p->a, ns);
	if (!err) {
		err = ta_tapx_default(TA_TAPX_GET, &id);
		if (!err && id != p->pl.prog_id)
			err = ta_tapx_default(p->pl.prog_fd, NULL);
		if (ns != &p->a->ns[0])
			agent_ns_leave(p->a);
	}
	if (err == -ENODEV || (err ? err : 1) == ns->tapx_told)
		return;
	ns->tapx_told = err ? err : 1;
	if (err)
		agent_log("error: tapx: cannot give the taps of %s the program: %s", ns->label,
			  strerror(-err));
	else
		agent_log("tapx: unbound taps of %s get the program from their creation (unbound %s)",
			  ns->label,
			  unbound_words(cfg->unbound, cfg->unbound_policy, words, sizeof(words)));
}

static void tapx_defaults(struct pass *p)
{
	for (uint32_t i = 0; i < p->a->nr_ns; i++)
		if (p->a->ns[i].fd >= 0)
			tapx_default(p, &p->a->ns[i]);
}

/* ---- bindings as they are ------------------------------------------------------- */

static int cmp_key(const struct ta_tap_key *x, const struct ta_tap_key *y)
{
	if (x->netns_cookie != y->netns_cookie)
		return x->netns_cookie < y->netns_cookie ? -1 : 1;
	return x->ifindex < y->ifindex ? -1 : x->ifindex > y->ifindex;
}

/* The binding of `key` into *st: true if there is one. A full pass looks
 * it up in the list it read (and marks it accounted for), any other
 * reads it. */
static bool state_of(struct pass *p, const struct ta_tap_key *key, struct ta_tap_state *st)
{
	uint32_t lo = 0, hi = p->nr_states;

	if (!p->full)
		return !ta_tap_read(&p->pl, key, st);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = cmp_key(&p->states[mid].key, key);

		if (!c) {
			*st = p->states[mid];
			p->accounted[mid] = true;
			return true;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

static bool guard_has_ip4(const struct ta_guard_spec *g, uint32_t ip)
{
	for (uint32_t i = 0; i < g->nr_ip4; i++)
		if (g->ip4[i] == ip)
			return true;
	return false;
}

static bool guard_has_ip6(const struct ta_guard_spec *g, const uint8_t ip[16])
{
	for (uint32_t i = 0; i < g->nr_ip6; i++)
		if (!memcmp(g->ip6[i], ip, 16))
			return true;
	return false;
}

/* Whether the tap's guard is `want` (NULL: none): its checks, MAC and the
 * addresses, as sets (a binding may list one twice). */
static bool guard_same(struct pass *p, const struct ta_tap_state *st,
		       const struct ta_guard_spec *want)
{
	struct ta_guard_spec now;

	if (!want)
		return !st->tap.guard_flags;
	if (st->tap.guard_flags != want->flags ||
	    (want->flags & TA_GUARD_F_MAC && memcmp(st->tap.mac, want->mac, 6)) ||
	    ta_tap_guard_read(&p->pl, st, &now))
		return false;
	for (uint32_t i = 0; i < want->nr_ip4; i++)
		if (!guard_has_ip4(&now, want->ip4[i]))
			return false;
	for (uint32_t i = 0; i < want->nr_ip6; i++)
		if (!guard_has_ip6(&now, want->ip6[i]))
			return false;
	for (uint32_t i = 0; i < now.nr_ip4; i++)
		if (!guard_has_ip4(want, now.ip4[i]))
			return false;
	for (uint32_t i = 0; i < now.nr_ip6; i++)
		if (!guard_has_ip6(want, now.ip6[i]))
			return false;
	return true;
}

/* ---- what goes ------------------------------------------------------------------- */

static void unbind_add(struct pass *p, const struct ta_tap_key *key, const char *who,
		       const char *why)
{
	struct unbinding *u;

	if (p->nr_unbind == p->cap_unbind) {
		uint32_t cap = p->cap_unbind ? 2 * p->cap_unbind : 64;
		struct unbinding *more = realloc(p->unbind, cap * sizeof(*more));

		if (!more) {
			agent_log("error: %s: out of memory; not unbound", who);
			return;
		}
		p->unbind = more;
		p->cap_unbind = cap;
	}
	u = &p->unbind[p->nr_unbind++];
	u->key = *key;
	snprintf(u->what, sizeof(u->what), "%s: %s", who, why);
}

/* Taps that went: their bindings go if the agent made them. */
static void gone_taps(struct pass *p)
{
	struct agent *a = p->a;
	struct ta_tap_state st;

	for (uint32_t i = 0; i < a->nr_gone; i++)
		if (state_of(p, &a->gone[i].key, &st) && st.info.flags & TA_TAP_F_AGENT)
			unbind_add(p, &st.key, a->gone[i].name, "deleted");
	a->nr_gone = 0;
}

/* The namespace of the configuration whose cookie this is, watched now
 * or last time it was there; NULL if none. */
static const struct agent_ns *ns_of_cookie(const struct agent *a, uint64_t cookie)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].cookie == cookie)
			return &a->ns[i];
	return NULL;
}

/* A full pass: what the agent bound that no link of a watched namespace
 * accounts for: a tap gone while no one looked, or of a namespace gone or
 * no longer watched. */
static void stale_bindings(struct pass *p)
{
	char who[IF_NAMESIZE + NAME_MAX + 32];

	for (uint32_t i = 0; i < p->nr_states; i++) {
		const struct ta_tap_state *st = &p->states[i];
		const struct agent_ns *ns = ns_of_cookie(p->a, st->key.netns_cookie);

		if (p->accounted[i] || !(st->info.flags & TA_TAP_F_AGENT))
			continue;
		if (ns)
			agent_tap_name(ns, st->info.ifname, who, sizeof(who));
		else
			snprintf(who, sizeof(who), "%s (net:%llu)", st->info.ifname,
				 (unsigned long long)st->key.netns_cookie);
		unbind_add(p, &st->key, who,
			   !ns ? "its namespace is not watched"
			   : ns->fd < 0 ? "its namespace is gone" : "its tap is gone");
	}
}

static void unbind_all(struct pass *p)
{
	struct ta_tap_key *keys;
	struct ta_error e;

	if (!p->nr_unbind)
		return;
	keys = calloc(p->nr_unbind, sizeof(*keys));
	if (!keys) {
		agent_log("error: out of memory: %u bindings not removed", p->nr_unbind);
		return;
	}
	for (uint32_t i = 0; i < p->nr_unbind; i++)
		keys[i] = p->unbind[i].key;
	if (ta_taps_unbind(&p->pl, keys, p->nr_unbind, &e)) {
		agent_log("error: cannot unbind %u taps: %s", p->nr_unbind, e.text);
	} else {
		for (uint32_t i = 0; i < p->nr_unbind; i++)
			agent_log("unbound %s", p->unbind[i].what);
	}
	free(keys);
}

/* ---- what each tap asks for ----------------------------------------------------------- */

/* What decided a plan, for the log: "FILE:LINE" of its binding, or the
 * VM of `source pve`. */
static const char *plan_by(const struct plan *pl, char *buf, size_t size)
{
	if (!pl->by)
		return pl->source;
	snprintf(buf, size, "%s:%d", pl->by->path, pl->by->line);
	return buf;
}

/* A tap of a Proxmox VM that no binding matches, with `source pve`: its
 * VM's translated policy and guard. */
static bool plan_pve(struct pass *p, struct agent_ns *ns, struct agent_link *k, const char *who)
{
	struct plan *pl = &p->plans[p->nr_plans];
	struct agent_pve_want w;
	uint32_t vmid, iface;
	char why[512];

	if (!p->a->cfg.pve_dir || !agent_pve_tap(k->nl.name, &vmid, &iface))
		return false;
	if (agent_pve_want(p->a, &p->pl, vmid, iface, &w, why, sizeof(why))) {
		tap_error(p, k, who, why);
		return true;
	}
	pl->ns = ns;
	pl->link = k;
	pl->source = w.by;
	pl->policy = w.policy;
	pl->guard = w.guard;
	p->nr_plans++;
	return true;
}

/* Work out what link k asks for: a plan to bind it, a binding to go, or
 * nothing to do. In the agent's own namespace. */
static void plan_link(struct pass *p, struct agent_ns *ns, struct agent_link *k)
{
	struct agent_tap tap = {k->nl.name, ns->name, k->nl.has_owner, k->nl.has_group,
				k->nl.owner, k->nl.group};
	struct ta_tap_key key = {.netns_cookie = ns->cookie, .ifindex = k->nl.ifindex};
	char who[IF_NAMESIZE + NAME_MAX + 16], why[512];
	struct plan *pl = &p->plans[p->nr_plans];
	struct agent_want w;

	agent_tap_name(ns, k->nl.name, who, sizeof(who));
	agent_config_match(&p->a->cfg, &tap, &w);
	memset(pl, 0, sizeof(*pl));
	pl->has_state = state_of(p, &key, &pl->state);
	if (!w.by && plan_pve(p, ns, k, who))
		return;
	if (!w.by) {
		if (pl->has_state && pl->state.info.flags & TA_TAP_F_AGENT)
			unbind_add(p, &key, who, "no binding matches it");
		k->settled = true;
		k->state = TAP_UNBOUND;
		snprintf(k->why, sizeof(k->why), "no binding matches it");
		return;
	}
	if (w.policy_bad) {
		snprintf(why, sizeof(why), "%s:%d: its captures make the policy name '%s', which "
			 "is none (letters, digits, '.', '_', '-')", w.by->path, w.by->line, w.policy);
		tap_error(p, k, who, why);
		return;
	}
	if (policy_index(p, w.policy, &pl->policy, why, sizeof(why))) {
		tap_error(p, k, who, why);
		return;
	}
	pl->ns = ns;
	pl->link = k;
	pl->by = w.by;
	pl->guard = w.by->has_guard && w.by->guard.flags ? &w.by->guard : NULL;
	p->nr_plans++;
}

static int plan_all(struct pass *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->a->nr_ns; i++)
		n += p->a->ns[i].nr_links;
	p->plans = calloc(n ?: 1, sizeof(*p->plans));
	if (!p->plans)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->a->nr_ns; i++) {
		struct agent_ns *ns = &p->a->ns[i];

		for (uint32_t l = 0; l < ns->nr_links; l++)
			if (p->full || !ns->links[l].settled)
				plan_link(p, ns, &ns->links[l]);
		ns->dirty = false;
	}
	return 0;
}

/* ---- binding --------------------------------------------------------------------- */

/* A binding made by hand is what the configuration asks for: it becomes
 * the agent's (which unbinds it once the configuration no longer asks
 * for it). 0 or -1 (said). */
static int take_over(struct pass *p, struct plan *pl, const char *who, const char *guard)
{
	struct ta_tap_state st = pl->state;
	char by[PATH_MAX + 16];

	if (ta_tap_mark(&p->pl, &st, TA_TAP_F_AGENT)) {
		tap_error(p, pl->link, who, "cannot record the binding as the agent's");
		return -1;
	}
	agent_log("took over %s: bound by hand to policy %s, guard %s, as %s asks", who,
		  ta_policy_name(&p->pl, pl->policy), guard, plan_by(pl, by, sizeof(by)));
	return 0;
}

/* Bind one tap as its plan says; in the tap's namespace. */
static void bind_one(struct pass *p, struct plan *pl)
{
	const struct ta_tap_state *st = pl->has_state ? &pl->state : NULL;
	bool live = st && st->link == TA_LINK_LIVE;
	struct ta_bind b = {.ifname = pl->link->nl.name, .policy = pl->policy, .guard = pl->guard,
			    .xdp_flags = live ? st->info.xdp_flags : XDP_FLAGS_DRV_MODE,
			    .flags = TA_TAP_F_AGENT};
	char who[IF_NAMESIZE + NAME_MAX + 16], guard[16], by[PATH_MAX + 16];
	enum ta_bind_result r;
	struct ta_error e;

	agent_tap_name(pl->ns, pl->link->nl.name, who, sizeof(who));
	/* renamed or deleted since its message: its next one says what now */
	if (if_nametoindex(b.ifname) != pl->link->nl.ifindex) {
		pl->link->settled = false;
		return;
	}
	ta_guard_words(pl->guard ? pl->guard->flags : 0, guard, sizeof(guard));
	if (live && st->tap.policy == pl->policy && guard_same(p, st, pl->guard)) {
		if (!(st->info.flags & TA_TAP_F_AGENT) && take_over(p, pl, who, guard))
			return;
	} else if (ta_tap_bind(&p->pl, &b, &r, &e)) {
		tap_error(p, pl->link, who, e.text);
		return;
	} else {
		agent_log("%s %s: policy %s, guard %s, by %s", r == TA_BOUND ? "bound" : "rebound",
			  who, ta_policy_name(&p->pl, pl->policy), guard, plan_by(pl, by, sizeof(by)));
		p->bound++;
	}
	pl->link->settled = true;
	pl->link->error_hash = 0;
	pl->link->state = TAP_BOUND;
	/* the state file's line: cut where it must be */
	snprintf(pl->link->why, sizeof(pl->link->why), "policy %s, guard %s, by %.300s",
		 ta_policy_name(&p->pl, pl->policy), guard, plan_by(pl, by, sizeof(by)));
	p->serving++;
}

static void bind_all(struct pass *p)
{
	struct agent *a = p->a;
	char why[NAME_MAX + 160];
	int err;

	for (uint32_t i = 0; i < a->nr_ns; i++) {
		struct agent_ns *ns = &a->ns[i];
		bool any = false;

		for (uint32_t j = 0; j < p->nr_plans && !any; j++)
			any = p->plans[j].ns == ns;
		if (!any)
			continue;
		err = agent_ns_enter(a, ns);
		/* the plane's keys are the namespace's own, for the library */
		p->pl.netns_cookie = ns->cookie;
		for (uint32_t j = 0; j < p->nr_plans && !err; j++)
			if (p->plans[j].ns == ns)
				bind_one(p, &p->plans[j]);
		p->pl.netns_cookie = a->ns[0].cookie;
		if (err) {
			snprintf(why, sizeof(why), "cannot enter %s: %s", ns->label, strerror(-err));
			for (uint32_t j = 0; j < p->nr_plans; j++)
				if (p->plans[j].ns == ns)
					tap_error(p, p->plans[j].link, ns->label, why);
		} else if (ns != &a->ns[0]) {
			agent_ns_leave(a);
		}
	}
}

/* ---- a pass ---------------------------------------------------------------------- */

static int plane_open(struct pass *p)
{
	const struct ta_reclaimed *r;
	struct ta_error e;
	bool mounted;

	if (ta_plane_open(&p->pl, TA_PLANE_CREATE, &mounted, &e)) {
		agent_log("error: %s; trying again in a second", e.text);
		return -1;
	}
	if (mounted)
		agent_log("mounted a bpffs at %s", TA_BPFFS);
	r = &p->pl.reclaimed;
	if (r->ids || r->blocks || r->guard || r->fdb)
		agent_log("freed what a writer killed in the middle left: %u tap records, "
			  "%u counter blocks, %u guard entries, %u fdb entries",
			  r->ids, r->blocks, r->guard, r->fdb);
	p->a->health.prog_id = p->pl.prog_id;
	agent_ct_events_watch(p->a, &p->pl);
	if (p->pl.created) {
		agent_log("loaded the tap-accel program (%s) and pinned it under %s",
			  ta_plane_variant(), TA_PIN_ROOT);
		p->full = true; /* a new plane: nothing of before is in it */
	}
	return 0;
}

static void pass_free(struct pass *p)
{
	free(p->states);
	free(p->accounted);
	free(p->plans);
	free(p->unbind);
	free(p->failed);
	ta_plane_close(&p->pl);
}

/* A host where the package is installed and nothing is configured loads
 * no program and mounts nothing: the agent waits for a binding, or for
 * an `unbound` other than pass, and serves a plane someone else made. */
static bool plane_wanted(const struct agent *a)
{
	return a->cfg.nr_binds || a->cfg.pve_dir || a->cfg.unbound != TA_UNBOUND_PASS ||
	       ta_plane_exists();
}

/* Every link judged: none is the configuration's. */
static void idle(struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++) {
		for (uint32_t l = 0; l < a->ns[i].nr_links; l++)
			a->ns[i].links[l].settled = true;
		a->ns[i].dirty = false;
	}
	a->nr_gone = 0;
	if (a->full && !agent_ns_dumping(a)) {
		agent_log("the configuration binds no tap: no program loaded until it does");
		a->full = false;
	}
}

int agent_reconcile(struct agent *a)
{
	/* a full pass waits for the dumps: links they have not shown yet
	 * would pass for gone */
	struct pass p = {.a = a, .full = a->full && !agent_ns_dumping(a)};
	int err;

	if (!plane_wanted(a)) {
		idle(a);
		return 0;
	}
	if (plane_open(&p))
		return -1;
	if (p.full) {
		load_policies(&p);
		set_unbound(&p);
		set_conntrack(&p);
		tapx_defaults(&p);
		err = ta_taps_read(&p.pl, &p.states, &p.nr_states);
		p.accounted = calloc(p.nr_states ?: 1, sizeof(*p.accounted));
		if (err || !p.accounted) {
			agent_log("error: cannot read the bindings: %s; trying again in a second",
				  strerror(err ? -err : ENOMEM));
			pass_free(&p);
			return -1;
		}
	}
	gone_taps(&p);
	if (plan_all(&p)) {
		agent_log("error: out of memory; trying again in a second");
		pass_free(&p);
		return -1;
	}
	if (p.full)
		stale_bindings(&p);
	unbind_all(&p);
	bind_all(&p);
	if (p.full)
		agent_pve_sweep(a, &p.pl);
	if (p.full)
		agent_log("reconciled: %u taps bound by the agent (%u bound now, %u unbound), %u "
			  "errors", p.serving, p.bound, p.nr_unbind, p.errors);
	if (p.full)
		a->full = false;
	pass_free(&p);
	return 0;
}
