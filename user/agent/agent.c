// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * agent.c - `tap-accel agent`: the poll loop (agent.h). One thread, so
 * that entering another namespace to bind its taps (setns) concerns no
 * one else. Each turn reads every event queued (link messages of each
 * namespace, files of the runtime folder, namespaces of /run/netns,
 * signals) and then reconciles once: a burst of new taps is bound in one
 * opening of the plane.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "agent/ctevents.h"
#include "agent/log.h"
#include "agent/metrics.h"
#include "agent/netns.h"
#include "agent/pve.h"
#include "agent/reconcile.h"
#include "agent/state_file.h"
#include "lib/base/error.h"
#include "lib/sys/util.h"

#define NETNS_DIR "/run/netns"
/* While a namespace of agent.conf is not there: how often to look. */
#define MISSING_MS 250
/* After a pass that could not open the plane, or left a tap unbound
 * (its policy not loaded yet, another XDP program on it): when to try
 * again, quietly (each error is told once). */
#define RETRY_MS 1000
#define UNSETTLED_MS 5000

/* ---- errors of files: said once ------------------------------------------------ */

static bool said_has(const struct agent_said *s, const char *text)
{
	for (uint32_t i = 0; i < s->nr; i++)
		if (!strcmp(s->texts[i], text))
			return true;
	return false;
}

static void said_free(struct agent_said *s)
{
	for (uint32_t i = 0; i < s->nr; i++)
		free(s->texts[i]);
	free(s->texts);
	memset(s, 0, sizeof(*s));
}

/* An error of a file: said unless the last reading said it already (the
 * runtime folder is read again at each change in it), but at the start
 * and at SIGHUP, where the operator asks. */
static void log_config_error(void *arg, bool error, const char *text)
{
	struct agent *a = arg;
	char **more;

	if (!error) {
		agent_log("warning: %s", text);
		return;
	}
	if (a->say_all || !said_has(&a->said, text))
		agent_log_at(AGENT_ERR, "%s", text);
	more = realloc(a->saying.texts, (a->saying.nr + 1) * sizeof(*more));
	if (more && (more[a->saying.nr] = strdup(text)))
		a->saying.nr++;
	if (more)
		a->saying.texts = more;
}

/* A reading is over: its errors are the ones said. */
static void said_done(struct agent *a)
{
	said_free(&a->said);
	a->said = a->saying;
	memset(&a->saying, 0, sizeof(a->saying));
	a->say_all = false;
}

/* systemd's readiness protocol (sd_notify(3)), without libsystemd: one
 * datagram to $NOTIFY_SOCKET, when there is one. */
static void notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t n = path ? strlen(path) : 0;
	int fd;

	if (!n || n >= sizeof(sa.sun_path) || (path[0] != '/' && path[0] != '@'))
		return;
	memcpy(sa.sun_path, path, n);
	if (path[0] == '@')
		sa.sun_path[0] = 0; /* an abstract socket */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
	       offsetof(struct sockaddr_un, sun_path) + n);
	close(fd);
}

static void notifyf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void notifyf(const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	notify(text);
}

static void log_summary(const struct agent *a)
{
	const struct agent_config *cfg = &a->cfg;
	char watched[1024];
	size_t n = snprintf(watched, sizeof(watched), "%s", AGENT_HOST_NETNS);
	uint32_t from_run = 0;
	char ct[512] = "", pve[PATH_MAX + 16] = "";

	if (cfg->conntrack.given) {
		strcpy(ct, "; conntrack ");
		ta_ct_settings_words(&cfg->conntrack, ct + strlen(ct), sizeof(ct) - strlen(ct));
	}
	if (cfg->pve_dir)
		snprintf(pve, sizeof(pve), "; source pve %s", cfg->pve_dir);
	for (uint32_t i = 0; i < cfg->nr_netns && n < sizeof(watched); i++)
		n += snprintf(watched + n, sizeof(watched) - n, ", netns %s", cfg->netns[i]);
	for (uint32_t i = 0; i < cfg->nr_order; i++)
		from_run += cfg->order[i] >= cfg->run.v && cfg->order[i] < cfg->run.v + cfg->run.nr;
	agent_log("configuration %s: %u policies, %u bindings in %u files (%u from %s), unbound "
		  "%s%s; watching %s%s%s", cfg->dir, cfg->nr_policies, cfg->nr_binds, cfg->nr_order,
		  from_run, cfg->run_dir,
		  cfg->unbound == TA_UNBOUND_POLICY ? "policy " : "",
		  cfg->unbound == TA_UNBOUND_POLICY ? cfg->unbound_policy
		  : cfg->unbound == TA_UNBOUND_DROP ? "drop" : "pass", watched, ct, pve);
}

/* ---- the runtime folder and /run/netns ---------------------------------------- */

struct watches {
	int fd;	   /* inotify */
	int run;   /* the runtime folder's watch, or -1 */
	uint64_t run_told; /* its last error, said once */
	bool run_lost;	   /* it was removed or moved away */
	int netns; /* /run/netns's, or -1 */
};

/* mkdir -p, with folders of mode 0755: adapters write there as root,
 * and anyone may read what they wrote. 0 or -errno. */
static int make_dirs(const char *path)
{
	char *copy = strdup(path);
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (char *slash = copy + 1; !err; slash++) {
		bool last = !*slash;

		if (*slash != '/' && !last)
			continue;
		*slash = 0;
		if (mkdir(copy, 0755) && errno != EEXIST)
			err = -errno;
		if (last)
			break;
		*slash = '/';
	}
	free(copy);
	return err;
}

static void watch_run_dir(struct agent *a, struct watches *w)
{
	char text[PATH_MAX + 160];
	int err = make_dirs(a->o->run_dir);

	w->run = err ? -1 : inotify_add_watch(w->fd, a->o->run_dir,
					      IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM |
						      IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF |
						      IN_ONLYDIR);
	if (w->run >= 0) {
		if (w->run_lost)
			agent_log("warning: %s was removed (its files' bindings with it): made again "
				  "and watched", a->o->run_dir);
		w->run_told = 0;
		w->run_lost = false;
		return;
	}
	snprintf(text, sizeof(text), "error: cannot watch %s for the adapters' bindings: %s; "
		 "trying again every %d ms", a->o->run_dir, strerror(err ? -err : errno),
		 MISSING_MS);
	if (agent_news(&w->run_told, text))
		agent_log("%s", text);
}

/* /run/netns: watched once it is there (`ip netns add` makes it). */
static void watch_netns_dir(struct watches *w)
{
	if (w->netns < 0)
		w->netns = inotify_add_watch(w->fd, NETNS_DIR,
					     IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM |
						     IN_ONLYDIR);
}

/* Which watches have news: bit 0 the runtime folder, bit 1 /run/netns. */
static int read_watches(struct watches *w)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	int news = 0;
	ssize_t n;

	while ((n = read(w->fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (ev->mask & IN_Q_OVERFLOW)
				news |= 3;
			else if (ev->wd == w->run)
				news |= 1;
			else if (ev->wd == w->netns)
				news |= 2;
			/* the runtime folder removed or moved away: made again */
			if (ev->wd == w->run && ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) {
				if (!(ev->mask & IN_IGNORED))
					inotify_rm_watch(w->fd, w->run);
				w->run = -1;
				w->run_lost = true;
			}
			if (ev->mask & IN_IGNORED && ev->wd == w->netns)
				w->netns = -1; /* /run/netns removed */
		}
	return news;
}

/* ---- configuration ------------------------------------------------------------ */

static void reload(struct agent *a)
{
	struct agent_report r = {.say = log_config_error, .arg = a};
	struct agent_config cfg;

	notify("RELOADING=1");
	agent_log("reloading the configuration (SIGHUP)");
	a->say_all = true;
	a->health.reload_time = time(NULL);
	a->health.reload_refused = agent_config_load(a->o->config_dir, a->o->run_dir, &a->cfg,
						     &cfg, &r);
	said_done(a);
	if (a->health.reload_refused) {
		agent_log("reload refused: %u errors above; the configuration running stays",
			  r.errors);
		notifyf("READY=1\nSTATUS=reload refused: %u errors in the configuration; the one "
			"before runs", r.errors);
		return;
	}
	agent_config_free(&a->cfg);
	a->cfg = cfg;
	agent_pve_sync(a);
	log_summary(a);
	agent_metrics_sync(a);
	if (agent_ns_sync(a))
		agent_log("error: cannot watch the agent's own namespace again");
	a->full = true;
	notify("READY=1");
}

static void reload_run(struct agent *a)
{
	struct agent_report r = {.say = log_config_error, .arg = a};
	char text[PATH_MAX + 80];
	int ret = agent_config_reload_run(&a->cfg, &r);

	said_done(a);
	if (ret) {
		snprintf(text, sizeof(text), "error: cannot read %s again; its bindings stay as they "
			 "were", a->o->run_dir);
		if (agent_news(&a->run_told, text))
			agent_log("%s", text);
		return;
	}
	a->run_told = 0;
	agent_log("%s: read again: %u bindings in %u files in all%s", a->o->run_dir,
		  a->cfg.nr_binds, a->cfg.nr_order,
		  r.errors ? " (files with errors left out as said above)" : "");
	a->full = true;
}

/* ---- the loop ------------------------------------------------------------------ */

static int64_t now_ms(void)
{
	return (int64_t)(ta_monotonic_ns() / 1000000);
}

static bool any_unsettled(const struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		for (uint32_t l = 0; l < a->ns[i].nr_links; l++)
			if (!a->ns[i].links[l].settled)
				return true;
	return false;
}

static bool any_dirty(const struct agent *a)
{
	for (uint32_t i = 0; i < a->nr_ns; i++)
		if (a->ns[i].dirty)
			return true;
	return a->nr_gone || (a->full && !agent_ns_dumping(a));
}

struct loop {
	struct agent *a;
	struct watches w;
	int sig;
	int64_t ping_every, next_ping; /* systemd's watchdog (WATCHDOG_USEC); 0: none */
	uint64_t status_told;
	int64_t retry_at; /* when to reconcile without news; 0: never */
	bool stop;
};

/* Signals: 0 goes on, or the signal that stops the agent. */
static void read_signals(struct loop *l)
{
	struct signalfd_siginfo si;

	while (read(l->sig, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			reload(l->a);
			continue;
		}
		agent_log("stopping on %s; the taps stay bound",
			  si.ssi_signo == SIGTERM ? "SIGTERM" : "SIGINT");
		l->stop = true;
	}
}

static int poll_timeout(const struct loop *l)
{
	int64_t wait = agent_metrics_timeout(l->a);
	int pve = agent_pve_timeout(l->a);

	if (l->ping_every) {
		int64_t until = l->next_ping - now_ms();

		until = until < 0 ? 0 : until;
		wait = wait < 0 || until < wait ? until : wait;
	}
	if (agent_ns_missing(l->a) || (l->a->nr_ns > 1 && l->w.netns < 0) || l->w.run < 0)
		wait = wait < 0 || MISSING_MS < wait ? MISSING_MS : wait;
	if (pve >= 0)
		wait = wait < 0 || pve < wait ? pve : wait;
	if (l->retry_at) {
		int64_t until = l->retry_at - now_ms();

		until = until < 0 ? 0 : until;
		wait = wait < 0 || until < wait ? until : wait;
	}
	return (int)wait;
}

/* STATUS= for systemctl status, when it changed. */
static void tell_status(struct loop *l)
{
	const struct agent_health *h = &l->a->health;
	char text[256];

	snprintf(text, sizeof(text), "STATUS=%u taps seen, %u bound, %u not (tap-accel status "
		 "--all says why)%s", h->taps_seen, h->taps_bound, h->taps_seen - h->taps_bound,
		 h->reload_refused ? "; the last reload was refused" : "");
	if (agent_news(&l->status_told, text))
		notify(text);
}

/* systemd's watchdog: a ping at each half of WatchdogSec=, from the loop
 * itself, so that a loop that hangs is restarted. */
static void watchdog_setup(struct loop *l)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	long long us = usec ? atoll(usec) : 0;

	if (us <= 0 || (pid && atoll(pid) != (long long)getpid()))
		return;
	l->ping_every = us / 2000 ?: 1;
	l->next_ping = now_ms();
}

static void watchdog_ping(struct loop *l)
{
	if (!l->ping_every || now_ms() < l->next_ping)
		return;
	notify("WATCHDOG=1");
	l->next_ping = now_ms() + l->ping_every;
}

/* Bind and unbind what changed; readiness after the first full pass. */
static void reconcile(struct loop *l)
{
	struct agent *a = l->a;

	l->retry_at = 0;
	if (agent_reconcile(a))
		l->retry_at = now_ms() + RETRY_MS;
	else if (any_unsettled(a))
		l->retry_at = now_ms() + UNSETTLED_MS;
	agent_state_write(a);
	if (!a->ready && !a->full) {
		a->ready = true;
		agent_log("ready");
		notify("READY=1");
	}
	tell_status(l);
}

/* One turn: wait, read all there is, reconcile once, metrics. */
static void turn(struct loop *l)
{
	struct agent *a = l->a;
	struct pollfd fds[5 + AGENT_MAX_CLIENTS + a->nr_ns];
	int n = 0, m, news;

	fds[n++] = (struct pollfd){.fd = l->sig, .events = POLLIN};
	fds[n++] = (struct pollfd){.fd = l->w.fd, .events = POLLIN};
	fds[n++] = (struct pollfd){.fd = agent_pve_fd(a), .events = POLLIN};
	for (uint32_t i = 0; i < a->nr_ns; i++)
		fds[n++] = (struct pollfd){.fd = a->ns[i].nl, .events = POLLIN};
	n += agent_ct_events_fds(a, fds + n);
	m = agent_metrics_fds(a, fds + n);
	if (poll(fds, n + m, poll_timeout(l)) < 0 && errno != EINTR) {
		agent_log("fatal: poll: %s", strerror(errno));
		l->stop = true;
		return;
	}
	read_signals(l);
	if (l->stop)
		return;
	news = read_watches(&l->w);
	if (l->w.run < 0) {
		watch_run_dir(a, &l->w);
		news |= l->w.run >= 0;
	}
	if (news & 1) {
		reload_run(a);
		agent_state_write(a);
	}
	if (news & 2 || agent_ns_missing(a) || (a->nr_ns > 1 && l->w.netns < 0)) {
		watch_netns_dir(&l->w);
		agent_ns_recheck(a);
	}
	for (uint32_t i = 0; i < a->nr_ns; i++)
		agent_ns_read(a, &a->ns[i]);
	agent_ct_events_read(a);
	agent_pve_check(a);
	if (any_dirty(a) || (l->retry_at && now_ms() >= l->retry_at))
		reconcile(l);
	agent_metrics_turn(a, fds + n, m);
	watchdog_ping(l);
}

static int loop_setup(struct loop *l)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	l->sig = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	l->w.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	l->w.run = l->w.netns = -1;
	if (l->sig < 0 || l->w.fd < 0)
		return -errno;
	watch_run_dir(l->a, &l->w);
	watch_netns_dir(&l->w);
	watchdog_setup(l);
	return 0;
}

int agent_run(const struct agent_opts *o)
{
	struct agent a = {.o = o, .full = true, .say_all = true, .ct_tap_info = -1,
			  .pve = {.fd = -1, .wd_fw = -1, .wd_conf = -1}};
	struct agent_report r = {.say = log_config_error, .arg = &a};
	struct loop l = {.a = &a, .sig = -1, .w = {.fd = -1}};
	int ret, err, lock_fd = -1;

	agent_log("tap-accel agent %s: configuration %s, bindings also in %s", TA_VERSION,
		  o->config_dir, o->run_dir);
	/* one agent at a time: a second would unbind the first one's taps
	 * as those of namespaces it does not watch */
	err = agent_state_dir(&a) ?: make_dirs(o->run_dir);
	if (err) {
		agent_log("not started: cannot make %s: %s", o->run_dir, strerror(-err));
		return err == -EINVAL ? -EIO : err;
	}
	ret = agent_lock(&a, &lock_fd);
	if (ret)
		return ret;
	a.health.reload_time = time(NULL);
	ret = agent_config_load(o->config_dir, o->run_dir, NULL, &a.cfg, &r);
	said_done(&a);
	if (ret) {
		agent_log("not started: %u errors in the configuration (above); 'tap-accel agent "
			  "--check' checks it", r.errors);
		return ret;
	}
	agent_pve_sync(&a);
	log_summary(&a);
	agent_metrics_init(&a.metrics);
	err = loop_setup(&l);
	err = err ?: agent_ns_sync(&a);
	if (err) {
		agent_log("not started: cannot watch signals, files or links: %s", strerror(-err));
		ret = err == -EINVAL ? -EIO : err;
	}
	if (!ret)
		agent_metrics_sync(&a);
	while (!ret && !l.stop)
		turn(&l);
	notify("STOPPING=1");
	agent_metrics_close(&a);
	agent_ct_events_close(&a);
	agent_ns_close_all(&a);
	agent_pve_free(&a);
	agent_config_free(&a.cfg);
	said_free(&a.said);
	free(a.gone);
	if (lock_fd >= 0)
		close(lock_fd); /* the state file stays: the lock says no agent runs */
	if (l.sig >= 0)
		close(l.sig);
	if (l.w.fd >= 0)
		close(l.w.fd);
	return ret;
}
