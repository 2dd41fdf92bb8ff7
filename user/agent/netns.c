// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * netns.c - the network namespaces the agent watches and their links
 * (agent.h). A namespace is watched through an rtnetlink socket made
 * inside it (setns there, socket, setns back): the socket keeps the
 * namespace alive, so when its /run/netns name goes the agent lets it go
 * at once (agent_ns_recheck()), and the kernel can remove its taps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/netns.h"
#include "lib/sys/netns.h"

/* ---- links ----------------------------------------------------------------- */

/* The link of `ifindex`, or NULL; *pos: where it is or would go. */
static struct agent_link *link_find(struct agent_ns *ns, uint32_t ifindex, uint32_t *pos)
{
	uint32_t lo = 0, hi = ns->nr_links;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ns->links[mid].nl.ifindex < ifindex)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return lo < ns->nr_links && ns->links[lo].nl.ifindex == ifindex ? &ns->links[lo] : NULL;
}

static struct agent_link *link_insert(struct agent_ns *ns, uint32_t pos)
{
	if (ns->nr_links == ns->cap_links) {
		uint32_t cap = ns->cap_links ? 2 * ns->cap_links : 64;
		struct agent_link *more = realloc(ns->links, cap * sizeof(*more));

		if (!more)
			return NULL;
		ns->links = more;
		ns->cap_links = cap;
	}
	memmove(&ns->links[pos + 1], &ns->links[pos], (ns->nr_links - pos) * sizeof(*ns->links));
	ns->nr_links++;
	memset(&ns->links[pos], 0, sizeof(ns->links[pos]));
	return &ns->links[pos];
}

/* The link went: its binding goes at the next reconcile. */
static void link_gone(struct agent *a, struct agent_ns *ns, uint32_t pos)
{
	struct agent_gone *g;

	if (a->nr_gone == a->cap_gone) {
		uint32_t cap = a->cap_gone ? 2 * a->cap_gone : 64;
		struct agent_gone *more = realloc(a->gone, cap * sizeof(*more));

		if (!more) {
			a->full = true; /* the stale pass finds it instead */
			goto remove;
		}
		a->gone = more;
		a->cap_gone = cap;
	}
	g = &a->gone[a->nr_gone++];
	g->key = (struct ta_tap_key){.netns_cookie = ns->cookie, .ifindex = ns->links[pos].nl.ifindex};
	agent_tap_name(ns, ns->links[pos].nl.name, g->name, sizeof(g->name));
remove:
	ns->nr_links--;
	memmove(&ns->links[pos], &ns->links[pos + 1], (ns->nr_links - pos) * sizeof(*ns->links));
}

static bool link_changed(const struct nl_link *was, const struct nl_link *now)
{
	return strcmp(was->name, now->name) || was->has_owner != now->has_owner ||
	       was->has_group != now->has_group || (was->has_owner && was->owner != now->owner) ||
	       (was->has_group && was->group != now->group);
}

struct reading {
	struct agent *a;
	struct agent_ns *ns;
};

/* One RTM_NEWLINK or RTM_DELLINK. Only taps are kept. */
static void on_link(void *arg, const struct nl_link *l)
{
	struct reading *r = arg;
	struct agent_ns *ns = r->ns;
	uint32_t pos;
	struct agent_link *k = link_find(ns, l->ifindex, &pos);

	if (l->deleted || !l->tap) {
		if (k)
			link_gone(r->a, ns, pos);
		return;
	}
	if (!k) {
		k = link_insert(ns, pos);
		if (!k) {
			agent_log("error: out of memory for the links of %s", ns->label);
			return;
		}
		k->nl = *l;
	} else if (link_changed(&k->nl, l)) {
		k->nl = *l;
		k->settled = false;
	}
	k->seen = true;
	ns->dirty |= !k->settled;
}

/* ---- dumps ----------------------------------------------------------------- */

static void dump_start(struct agent *a, struct agent_ns *ns)
{
	int err;

	ns->dump_seq = ++a->next_seq ?: ++a->next_seq;
	ns->redump = ns->interrupted = false;
	for (uint32_t i = 0; i < ns->nr_links; i++)
		ns->links[i].seen = false;
	err = nl_dump(ns->nl, ns->dump_seq);
	if (err) {
		agent_log("error: %s: cannot ask for its links (rtnetlink: %s); asking again at its "
			  "next event", ns->label, strerror(-err));
		ns->dump_seq = 0;
		ns->redump = true;
	}
}

/* The dump ended: links it did not show are gone, unless it may have
 * skipped some. Then everything is looked at again. */
static void dump_end(struct agent *a, struct agent_ns *ns)
{
	ns->dump_seq = 0;
	for (uint32_t i = ns->nr_links; !ns->interrupted && i-- > 0;)
		if (!ns->links[i].seen)
			link_gone(a, ns, i);
	if (ns->interrupted)
		ns->redump = true;
	if (ns->redump)
		dump_start(a, ns);
	a->full = true;
}

void agent_ns_read(struct agent *a, struct agent_ns *ns)
{
	struct reading r = {a, ns};
	int news;

	if (ns->nl < 0)
		return;
	news = nl_read(ns->nl, ns->dump_seq, on_link, &r);
	if (news < 0) {
		agent_log("error: %s: rtnetlink: %s; dumping its links again", ns->label,
			  strerror(-news));
		news = NL_OVERRUN;
	}
	if (news & NL_OVERRUN)
		agent_log("%s: link events lost (the socket overran): dumping its links again",
			  ns->label);
	ns->interrupted |= !!(news & NL_DUMP_AGAIN);
	if (news & NL_OVERRUN && ns->dump_seq)
		ns->redump = true;
	else if (news & NL_OVERRUN || (ns->redump && !ns->dump_seq))
		dump_start(a, ns);
	if (news & NL_DUMP_DONE)
		dump_end(a, ns);
}

bool agent_ns_dumping(const struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].dump_seq)
			return true;
	return false;
}

/* ---- entering ------------------------------------------------------------- */

int agent_ns_enter(const struct agent *a, const struct agent_ns *ns)
{
	if (ns == &a->ns[0])
		return 0;
	return setns(ns->fd, CLONE_NEWNET) ? -errno : 0;
}

void agent_ns_leave(const struct agent *a)
{
	/* in another namespace than its own, the agent would bind the wrong
	 * taps: there is no going on from here */
	if (setns(a->ns[0].fd, CLONE_NEWNET)) {
		agent_log("fatal: cannot go back to the agent's own network namespace: %s",
			  strerror(errno));
		exit(2); /* the CLI's EXIT_SYSTEM (cli/common.h) */
	}
}

/* ---- namespaces ------------------------------------------------------------ */

static void ns_path(const struct agent_ns *ns, char *buf, size_t size)
{
	snprintf(buf, size, "/run/netns/%s", ns->name);
}

static void ns_close(struct agent_ns *ns)
{
	if (ns->nl >= 0)
		close(ns->nl);
	if (ns->fd >= 0)
		close(ns->fd);
	ns->nl = ns->fd = -1;
	ns->tapx_told = 0;
	free(ns->links);
	ns->links = NULL;
	ns->nr_links = ns->cap_links = 0;
	ns->dump_seq = 0;
	ns->dirty = false;
}

/* Its cookie and a socket made inside it, then the dump. 0, -EINVAL if
 * ns->fd is no network namespace, or -errno. */
static int ns_watch(struct agent *a, struct agent_ns *ns)
{
	unsigned long long cookie;
	int err = agent_ns_enter(a, ns);

	if (err)
		return err;
	err = ta_netns_cookie(&cookie);
	ns->nl = err ? -1 : nl_open(a->o->rcvbuf);
	if (ns != &a->ns[0])
		agent_ns_leave(a);
	if (err || ns->nl < 0)
		return err ?: ns->nl;
	ns->cookie = cookie;
	dump_start(a, ns);
	return 0;
}

/* Open a namespace of agent.conf where it is: 0, or 1 if it is not there
 * (yet: `ip netns add` makes the file before it mounts the namespace on
 * it, and setns() refuses the file until then). */
static int ns_open(struct agent *a, struct agent_ns *ns)
{
	char path[NAME_MAX + 16];
	struct stat st;
	int err = 0;

	ns_path(ns, path, sizeof(path));
	ns->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0 || fstat(ns->fd, &st))
		err = -ENOENT;
	else
		err = ns_watch(a, ns);
	if (err && err != -ENOENT && err != -EINVAL)
		agent_log("error: %s: cannot watch its links: %s", ns->label, strerror(-err));
	else if (err && !ns->told_missing)
		agent_log("%s: not there (no namespace at %s); watching for it", ns->label, path);
	if (err) {
		ns->told_missing = true;
		ns_close(ns);
		return 1;
	}
	ns->dev = st.st_dev;
	ns->ino = st.st_ino;
	ns->told_missing = false;
	agent_log("watching %s", ns->label);
	return 0;
}

static int ns_open_own(struct agent *a, struct agent_ns *ns)
{
	ns->fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (ns->fd < 0)
		return -errno;
	return ns_watch(a, ns);
}

static struct agent_ns *ns_find(struct agent_ns *list, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(list[i].name, name))
			return &list[i];
	return NULL;
}

static void ns_init(struct agent_ns *ns, const char *name, bool own)
{
	memset(ns, 0, sizeof(*ns));
	ns->fd = ns->nl = -1;
	snprintf(ns->name, sizeof(ns->name), "%s", own ? AGENT_HOST_NETNS : name);
	snprintf(ns->label, sizeof(ns->label), own ? AGENT_HOST_NETNS : "netns %s", name);
}

int agent_ns_sync(struct agent *a)
{
	uint32_t n = a->cfg.nr_netns + 1;
	struct agent_ns *now = calloc(n, sizeof(*now)), *was;
	int err = 0;

	if (!now)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = i ? a->cfg.netns[i - 1] : AGENT_HOST_NETNS;

		was = ns_find(a->ns, a->nr_ns, name);
		if (was) {
			now[i] = *was;
			ns_init(was, "", false); /* moved */
		} else {
			ns_init(&now[i], name, !i);
		}
	}
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].fd >= 0) {
			agent_log("%s: no longer watched", a->ns[i].label);
			ns_close(&a->ns[i]);
			a->full = true;
		}
	free(a->ns);
	a->ns = now;
	a->nr_ns = n;
	if (a->ns[0].fd < 0)
		err = ns_open_own(a, &a->ns[0]);
	for (uint32_t i = 1; i < n; i++)
		if (a->ns[i].fd < 0)
			ns_open(a, &a->ns[i]);
	return err;
}

void agent_ns_recheck(struct agent *a)
{
	char path[NAME_MAX + 16];
	struct stat st;

	for (uint32_t i = 1; i < a->nr_ns; i++) {
		struct agent_ns *ns = &a->ns[i];

		ns_path(ns, path, sizeof(path));
		if (ns->fd >= 0 && !stat(path, &st) && st.st_dev == ns->dev && st.st_ino == ns->ino)
			continue;
		if (ns->fd >= 0) {
			agent_log("%s: gone from /run/netns: no longer watched", ns->label);
			ns_close(ns);
			a->full = true;
		}
		ns_open(a, ns);
	}
}

bool agent_ns_missing(const struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].fd < 0)
			return true;
	return false;
}

void agent_ns_close_all(struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		ns_close(&a->ns[i]);
	free(a->ns);
	a->ns = NULL;
	a->nr_ns = 0;
}
