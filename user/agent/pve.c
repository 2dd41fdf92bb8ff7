// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve.c - `source pve DIR` (pve.h): each Proxmox VM interface whose tap
 * is here, its translation, and noticing when its files change.
 *
 * DIR is /etc/pve, pmxcfs: a FUSE file system that corosync keeps the
 * same on every node of the cluster. inotify reports the changes made
 * through this node's kernel (an edit here, a write of the GUI or the API
 * served here), but not those pmxcfs receives from another node: FUSE
 * tells the kernel's fsnotify nothing of them, which is why pve-firewall
 * itself rereads its files every 10 s instead of watching them. So both:
 * inotify for a change made here, at once; the files' size, mtime and
 * inode looked at every second; and every 10 s, as pve-firewall, each
 * VM translated again whatever they say (pmxcfs keeps mtimes in whole
 * seconds: an edit of the same size within the second shows in neither),
 * the translation's digest saying whether anything is to be done.
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config_read.h"
#include "agent/log.h"
#include "agent/pve.h"
#include "lib/import/pve.h"
#include "lib/plane/policies.h"
#include "lib/policy/digest.h"
#include "lib/policy/parse.h"
#include "lib/sys/util.h"

#define STAT_MS 1000	   /* the files' size, mtime and inode */
#define TRANSLATE_MS 10000 /* every VM translated again, as pve-firewall does */

/* What stat() said of a file: a change to any of it is a change. */
struct stamp {
	bool there;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
};

enum { F_FW, F_CLUSTER, F_CONF, F_MAX };

/* One interface, netN, of one VM. */
struct pve_iface {
	uint32_t vmid, iface;
	char name[TA_POLICY_NAME_LEN]; /* pve-VMID-netN */
	char by[96];		       /* "source pve: VM 100 net0" */
	char *path[F_MAX];
	struct stamp stamp[F_MAX]; /* of the last translation */
	bool good;		   /* a translation was: spec and guard hold it */
	struct ta_policy_spec spec; /* its guard taken out */
	struct ta_guard_spec guard;
	uint64_t digest;	/* of what it says, guard included (translate()) */
	uint64_t loaded;	/* the digest loaded on the plane; 0: none */
	uint64_t error_hash;	/* its last error, told once */
	char error[sizeof(((struct ta_error *)0)->text)]; /* and its text, for the taps */
	bool stale;		/* of a `source pve` agent.conf no longer says */
};

/* ---- names ---------------------------------------------------------------- */

static bool decimal(const char **s, uint32_t *n)
{
	unsigned long long v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((v = v * 10 + (*p - '0')) > UINT32_MAX)
			return false;
	*n = (uint32_t)v;
	*s = p;
	return true;
}

bool agent_pve_tap(const char *ifname, uint32_t *vmid, uint32_t *iface)
{
	const char *p = ifname + 3;

	return !strncmp(ifname, "tap", 3) && decimal(&p, vmid) && *p++ == 'i' &&
	       decimal(&p, iface) && !*p;
}

/* ---- files ------------------------------------------------------------------ */

static void stamp_of(const char *path, struct stamp *s)
{
	struct stat st;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st))
		return;
	*s = (struct stamp){true, st.st_dev, st.st_ino, st.st_size, st.st_mtim, st.st_ctim};
}

static bool stamps_differ(const struct pve_iface *v)
{
	struct stamp now;

	for (int i = 0; i < F_MAX; i++) {
		stamp_of(v->path[i], &now);
		if (memcmp(&now, &v->stamp[i], sizeof(now)))
			return true;
	}
	return false;
}

static void iface_free(struct pve_iface *v)
{
	for (int i = 0; i < F_MAX; i++)
		free(v->path[i]);
	ta_policy_spec_free(&v->spec);
	free(v);
}

static struct pve_iface *iface_new(const char *dir, uint32_t vmid, uint32_t iface)
{
	struct pve_iface *v = calloc(1, sizeof(*v));

	if (!v)
		return NULL;
	v->vmid = vmid;
	v->iface = iface;
	snprintf(v->name, sizeof(v->name), "pve-%u-net%u", vmid, iface);
	snprintf(v->by, sizeof(v->by), "source pve: VM %u net%u", vmid, iface);
	if (asprintf(&v->path[F_FW], "%s/firewall/%u.fw", dir, vmid) < 0)
		v->path[F_FW] = NULL;
	if (asprintf(&v->path[F_CLUSTER], "%s/firewall/cluster.fw", dir) < 0)
		v->path[F_CLUSTER] = NULL;
	if (asprintf(&v->path[F_CONF], "%s/qemu-server/%u.conf", dir, vmid) < 0)
		v->path[F_CONF] = NULL;
	if (!v->path[F_FW] || !v->path[F_CLUSTER] || !v->path[F_CONF]) {
		iface_free(v);
		return NULL;
	}
	return v;
}

/* ---- translating ---------------------------------------------------------- */

/* The importer's warnings: told when the translation they belong to is
 * taken, not at each check that finds it the same. */
struct warnings {
	char **texts;
	uint32_t nr;
};

static void warn_keep(void *ctx, const char *msg)
{
	struct warnings *w = ctx;
	char **more = realloc(w->texts, (w->nr + 1) * sizeof(*more));

	if (!more)
		return;
	w->texts = more;
	if ((w->texts[w->nr] = strdup(msg)))
		w->nr++;
}

static void warnings_free(struct warnings *w)
{
	for (uint32_t i = 0; i < w->nr; i++)
		free(w->texts[i]);
	free(w->texts);
}

/*
 * The policy text of v into spec and guard (split: a policy refuses
 * guard lines, a guard is the tap's), into *digest the digest of what
 * both say (the canonical text's, docs/policy.md: not of the comments
 * naming each line's place, which an edit elsewhere in cluster.fw
 * shifts for every VM). A VM without its VMID.conf here is on another
 * node, or removed: no translation. 0, or -errno with e.
 */
static int translate(struct pve_iface *v, struct ta_policy_spec *spec, struct ta_guard_spec *guard,
		     uint64_t *digest, struct warnings *w, struct ta_error *e)
{
	struct ta_pve_vm vm = {.iface = v->iface};
	struct ta_import im = {.warn = warn_keep, .warn_ctx = w};
	int ret;

	if (!v->stamp[F_CONF].there)
		return ta_error_input_at(e, ENOENT, "%s: no such file: VM %u is not on this node, "
					 "or was removed", v->path[F_CONF], v->vmid);
	vm.conf_path = v->path[F_CONF];
	/* no VMID.fw: the VM has no firewall of its own, as Proxmox reads it */
	vm.fw_path = v->stamp[F_FW].there ? v->path[F_FW] : NULL;
	vm.cluster_path = v->stamp[F_CLUSTER].there ? v->path[F_CLUSTER] : NULL;
	ret = ta_import_open(&im, e);
	if (ret)
		return ret;
	ret = ta_import_pve(&vm, &im, e);
	if (!ret)
		ret = ta_import_close(&im, v->name, e);
	else
		ta_import_close(&im, v->name, &(struct ta_error){0}); /* its error is said */
	if (!ret)
		ret = ta_policy_parse(im.text, im.len, v->name, spec, e);
	if (!ret) {
		*digest = spec->digest | 1; /* with the guard */
		*guard = spec->guard;
		memset(&spec->guard, 0, sizeof(spec->guard));
		ret = ta_policy_digest(spec) ? ta_error_system(e, ENOMEM, "out of memory") : 0;
	}
	ta_import_free(&im);
	return ret;
}

/* A translation that failed: told once, with what the taps keep. */
static void translate_failed(const struct agent *a, struct pve_iface *v, const char *text)
{
	char line[sizeof(v->error) + 200];

	snprintf(v->error, sizeof(v->error), "%s", text);
	if (v->good)
		snprintf(line, sizeof(line), "%s; its last good policy %s stays", text, v->name);
	else
		snprintf(line, sizeof(line), "%s; its taps keep the binding they have (an agent's "
			 "before this one), or else are served as unbound taps (unbound %s)", text,
			 a->cfg.unbound == TA_UNBOUND_POLICY ? a->cfg.unbound_policy
			 : a->cfg.unbound == TA_UNBOUND_DROP ? "drop" : "pass");
	if (agent_news(&v->error_hash, line))
		agent_log("error: %s: %s", v->by, line);
}

/* Translate v again: true when the policy or the guard changed. */
static bool retranslate(const struct agent *a, struct pve_iface *v)
{
	struct ta_policy_spec spec = {0};
	struct ta_guard_spec guard;
	struct warnings w = {0};
	struct ta_error e;
	uint64_t digest = 0;
	bool was_failing = v->error_hash != 0;

	for (int i = 0; i < F_MAX; i++)
		stamp_of(v->path[i], &v->stamp[i]);
	if (translate(v, &spec, &guard, &digest, &w, &e)) {
		translate_failed(a, v, e.text);
		ta_policy_spec_free(&spec);
		warnings_free(&w);
		return false;
	}
	v->error_hash = 0;
	v->error[0] = 0;
	if (v->good && digest == v->digest) {
		if (was_failing)
			agent_log("%s: its files translate again, as before", v->by);
		ta_policy_spec_free(&spec);
		warnings_free(&w);
		return false;
	}
	for (uint32_t i = 0; i < w.nr; i++)
		agent_log("warning: %s: %s", v->by, w.texts[i]);
	warnings_free(&w);
	agent_log("%s: %s %s (%u rules, guard %s)", v->by, v->good ? "translated again into" :
		  "translated into", v->name, spec.nr_rules, guard.flags ? "yes" : "none");
	ta_policy_spec_free(&v->spec);
	v->spec = spec;
	v->guard = guard;
	v->digest = digest;
	v->good = true;
	return true;
}

/* ---- the VMs known ---------------------------------------------------------- */

static struct pve_iface *iface_find(struct agent *a, uint32_t vmid, uint32_t iface)
{
	for (uint32_t i = 0; i < a->pve.nr; i++)
		if (a->pve.v[i]->vmid == vmid && a->pve.v[i]->iface == iface && !a->pve.v[i]->stale)
			return a->pve.v[i];
	return NULL;
}

static void watch_dirs(struct agent *a);

static struct pve_iface *iface_get(struct agent *a, uint32_t vmid, uint32_t iface)
{
	struct pve_iface *v = iface_find(a, vmid, iface), **more;

	if (v)
		return v;
	more = realloc(a->pve.v, (a->pve.nr + 1) * sizeof(*more));
	if (!more)
		return NULL;
	a->pve.v = more;
	v = iface_new(a->cfg.pve_dir, vmid, iface);
	if (!v)
		return NULL;
	a->pve.v[a->pve.nr++] = v;
	watch_dirs(a);
	retranslate(a, v);
	return v;
}

/* Load v's last good translation where the plane has another or none. */
static int load(struct ta_plane *pl, struct pve_iface *v, char *why, size_t size)
{
	struct ta_load_result res;
	struct ta_error e;
	uint32_t index;
	int ret;

	if (v->loaded == v->digest && !ta_policy_find(pl, v->name, &index))
		return 0;
	ret = ta_policy_resolve(v->path[F_FW], &v->spec, &e) ?:
	      ta_policy_load(pl, v->name, &v->spec, false, &res, &e);
	if (ret) {
		snprintf(why, size, "policy %s did not load: %s", v->name, e.text);
		return -1;
	}
	if (res.created)
		agent_log("policy %s: loaded for %s (%u rules, default %s)", v->name, v->by,
			  v->spec.nr_rules, ta_action_name(v->spec.default_action));
	else if (!res.unchanged)
		agent_log("policy %s: replaced for %s, %u taps use it now (%u rules)", v->name,
			  v->by, res.nr_taps, v->spec.nr_rules);
	v->loaded = v->digest;
	return 0;
}

int agent_pve_want(struct agent *a, struct ta_plane *pl, uint32_t vmid, uint32_t iface,
		   struct agent_pve_want *w, char *why, size_t size)
{
	struct pve_iface *v = iface_get(a, vmid, iface);

	if (!v) {
		snprintf(why, size, "source pve: out of memory");
		return -1;
	}
	if (!v->good) {
		snprintf(why, size, "%s: not translated yet: %s", v->by, v->error);
		return -1;
	}
	if (load(pl, v, why, size) || ta_policy_find(pl, v->name, &w->policy))
		return -1;
	w->guard = v->guard.flags ? &v->guard : NULL;
	w->by = v->by;
	return 0;
}

/* ---- noticing changes -------------------------------------------------------- */

/* inotify on DIR/firewall and DIR/qemu-server (a symbolic link to this
 * node's folder on Proxmox: followed), once they are there.
 * TAP_ACCEL_AGENT_PVE_INOTIFY=0 leaves it out, as pmxcfs leaves out what
 * another node wrote: for the tests of what notices that. */
static void watch_dirs(struct agent *a)
{
	const char *inotify = getenv("TAP_ACCEL_AGENT_PVE_INOTIFY");

	struct agent_pve *p = &a->pve;
	const uint32_t mask = IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE |
			      IN_DELETE | IN_ATTRIB | IN_ONLYDIR;
	char path[PATH_MAX];

	if (!a->cfg.pve_dir || (inotify && !strcmp(inotify, "0")))
		return;
	if (p->fd < 0)
		p->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (p->fd < 0)
		return;
	if (p->wd_fw < 0) {
		snprintf(path, sizeof(path), "%s/firewall", a->cfg.pve_dir);
		p->wd_fw = inotify_add_watch(p->fd, path, mask);
	}
	if (p->wd_conf < 0) {
		snprintf(path, sizeof(path), "%s/qemu-server", a->cfg.pve_dir);
		p->wd_conf = inotify_add_watch(p->fd, path, mask);
	}
}

/* Whether inotify said anything (a folder gone: watched again later). */
static bool read_events(struct agent_pve *p)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	bool news = false;
	ssize_t n;

	while (p->fd >= 0 && (n = read(p->fd, buf, sizeof(buf))) > 0)
		for (char *c = buf; c < buf + n; c += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)c;
			news = true;
			if (ev->mask & IN_IGNORED && ev->wd == p->wd_fw)
				p->wd_fw = -1;
			if (ev->mask & IN_IGNORED && ev->wd == p->wd_conf)
				p->wd_conf = -1;
		}
	return news;
}

/* Whether a link of a watched namespace is a tap of v. */
static bool tap_here(const struct agent *a, const struct pve_iface *v)
{
	uint32_t vmid, iface;

	if (v->stale)
		return false;
	for (uint32_t i = 0; i < a->nr_ns; i++)
		for (uint32_t l = 0; l < a->ns[i].nr_links; l++)
			if (agent_pve_tap(a->ns[i].links[l].nl.name, &vmid, &iface) &&
			    vmid == v->vmid && iface == v->iface)
				return true;
	return false;
}

void agent_pve_check(struct agent *a)
{
	struct agent_pve *p = &a->pve;
	int64_t now = (int64_t)(ta_monotonic_ns() / 1000000);
	bool news = read_events(p), all = now >= p->next_translate;

	if (!a->cfg.pve_dir || (!news && now < p->next_stat))
		return;
	watch_dirs(a);
	p->next_stat = now + STAT_MS;
	if (all)
		p->next_translate = now + TRANSLATE_MS;
	for (uint32_t i = 0; i < p->nr; i++) {
		struct pve_iface *v = p->v[i];
		bool here = tap_here(a, v);

		if (v->stale)
			continue;
		if (here && (all || stamps_differ(v)) && retranslate(a, v))
			a->full = true; /* its taps rebound, its policy loaded */
		if (!here)
			a->full = true; /* agent_pve_sweep() unloads its policy */
	}
}

int agent_pve_fd(const struct agent *a)
{
	return a->cfg.pve_dir ? a->pve.fd : -1;
}

int agent_pve_timeout(const struct agent *a)
{
	int64_t now = (int64_t)(ta_monotonic_ns() / 1000000), until;

	if (!a->cfg.pve_dir || !a->pve.nr)
		return -1;
	until = a->pve.next_stat - now;
	return until < 0 ? 0 : (int)until;
}

/* ---- --check ------------------------------------------------------------------- */

static int is_vm_conf(const struct dirent *d)
{
	const char *p = d->d_name;
	uint32_t vmid;

	return decimal(&p, &vmid) && !strcmp(p, ".conf");
}

/* One VM interface, translated as the agent would: a warning if it fails. */
static void check_iface(const char *dir, uint32_t vmid, uint32_t iface, struct agent_report *r)
{
	struct pve_iface *v = iface_new(dir, vmid, iface);
	struct ta_policy_spec spec = {0};
	struct ta_guard_spec guard;
	struct warnings w = {0};
	struct ta_error e;
	uint64_t digest;

	if (!v)
		return;
	for (int i = 0; i < F_MAX; i++)
		stamp_of(v->path[i], &v->stamp[i]);
	if (translate(v, &spec, &guard, &digest, &w, &e))
		config_warn(r, "%s: %s: its tap tap%ui%u would not be bound", v->by, e.text, vmid,
			    iface);
	for (uint32_t i = 0; i < w.nr; i++)
		config_warn(r, "%s: %s", v->by, w.texts[i]);
	warnings_free(&w);
	ta_policy_spec_free(&spec);
	iface_free(v);
}

void agent_pve_check_dir(const char *dir, struct agent_report *r)
{
	char path[PATH_MAX];
	struct dirent **names;
	struct ta_error e;
	struct stat st;
	int n;

	snprintf(path, sizeof(path), "%s/firewall", dir);
	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		config_warn(r, "%s: not a folder: is %s Proxmox VE's /etc/pve? (no VM has a "
			    "firewall there)", path, dir);
	snprintf(path, sizeof(path), "%s/qemu-server", dir);
	n = config_list(path, is_vm_conf, &names, &e);
	if (n < 0) {
		config_warn(r, "%s", e.text);
		return;
	}
	for (int i = 0; i < n; i++) {
		char *conf = config_path(path, names[i]->d_name);
		uint32_t vmid = (uint32_t)strtoul(names[i]->d_name, NULL, 10);
		struct ta_pve_conf nets;

		if (conf && ta_pve_conf_read(conf, &nets, &e))
			config_warn(r, "%s: VM %u's taps would not be bound", e.text, vmid);
		else if (conf)
			for (uint32_t iface = 0; iface < TA_PVE_MAX_NETS; iface++)
				if (nets.net[iface].present)
					check_iface(dir, vmid, iface, r);
		free(conf);
	}
	config_names_free(names, n);
}

/* ---- forgetting ------------------------------------------------------------- */

/* A VM interface none of whose taps is here any more is forgotten, its
 * policy unloaded: a VM migrated away or stopped leaves nothing behind,
 * and one that comes back is translated anew. */

static void forget(struct agent *a, uint32_t i)
{
	iface_free(a->pve.v[i]);
	a->pve.v[i] = a->pve.v[--a->pve.nr];
}

void agent_pve_sweep(struct agent *a, struct ta_plane *pl)
{
	struct ta_error e;
	uint32_t index;

	for (uint32_t i = 0; i < a->pve.nr;) {
		struct pve_iface *v = a->pve.v[i];

		if (tap_here(a, v)) {
			i++;
			continue;
		}
		/* refused while a tap is bound to it (by hand): it stays; the
		 * policy of a stale VM of another folder may be this one's */
		if (ta_policy_find(pl, v->name, &index) ||
		    (v->stale && iface_find(a, v->vmid, v->iface)))
			;
		else if (ta_policy_unload(pl, v->name, &e))
			agent_log("warning: policy %s stays: %s", v->name, e.text);
		else if (v->stale)
			agent_log("policy %s: unloaded, agent.conf's 'source pve' changed", v->name);
		else
			agent_log("policy %s: unloaded, no tap of VM %u net%u is here any more",
				  v->name, v->vmid, v->iface);
		forget(a, i);
	}
}

void agent_pve_sync(struct agent *a)
{
	const char *now = a->cfg.pve_dir;

	if (a->pve.dir && now && !strcmp(a->pve.dir, now))
		return;
	/* their policies unloaded by the full pass that follows, once no
	 * tap is bound to them any more */
	for (uint32_t i = 0; i < a->pve.nr; i++)
		a->pve.v[i]->stale = true;
	free(a->pve.dir);
	a->pve.dir = now ? strdup(now) : NULL;
	if (a->pve.fd >= 0)
		close(a->pve.fd);
	a->pve.fd = a->pve.wd_fw = a->pve.wd_conf = -1;
	watch_dirs(a);
}

void agent_pve_free(struct agent *a)
{
	struct agent_pve *p = &a->pve;

	while (p->nr)
		forget(a, p->nr - 1);
	free(p->v);
	free(p->dir);
	if (p->fd >= 0)
		close(p->fd);
	memset(p, 0, sizeof(*p));
	p->fd = p->wd_fw = p->wd_conf = -1;
}
