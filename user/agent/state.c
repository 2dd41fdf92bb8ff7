// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * state.c - the agent's own files beside its runtime folder: the lock that
 * keeps a second agent from undoing the first one's bindings, and the
 * state file `tap-accel status --all` reads to say why a tap has no
 * binding (docs/agent.md, "Why is this tap unbound?").
 *
 * The state file is text, one record a line, fields separated by tabs
 * (control bytes of a field are written \xNN, so a field holds none):
 *
 *   tap-accel agent state 1
 *   pid     PID
 *   prog    PROG_ID        the plane's program: a file of another plane is not ours
 *   netns   LABEL COOKIE   each namespace watched
 *   tap     LABEL COOKIE IFINDEX IFNAME bound|unbound|error TEXT
 *   refused TEXT           a file left out, and why
 */
#define _GNU_SOURCE /* mkostemp */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/state_file.h"
#include "lib/base/error.h"
#include "lib/base/lex.h"
#include "lib/sys/util.h"

int agent_state_dir(struct agent *a)
{
	char copy[PATH_MAX];

	if (snprintf(copy, sizeof(copy), "%s", a->o->run_dir) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	snprintf(a->state_dir, sizeof(a->state_dir), "%s", dirname(copy));
	return 0;
}

int agent_lock(struct agent *a, int *lock_fd)
{
	char path[PATH_MAX + 16], pid[32] = "";
	int fd, n, err;

	snprintf(path, sizeof(path), "%s/%s", a->state_dir, AGENT_LOCK_FILE);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = errno;
		agent_log("not started: cannot open %s, the lock that keeps one agent at a time: %s",
			  path, strerror(err));
		return err == EINVAL ? -EIO : -err;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		n = errno == EWOULDBLOCK ? pread(fd, pid, sizeof(pid) - 1, 0) : -1;
		pid[n > 0 ? n : 0] = 0;
		pid[strcspn(pid, "\n")] = 0;
		if (n > 0)
			agent_log("not started: another agent runs (pid %s, it holds %s); two would "
				  "unbind each other's taps: stop it first (systemctl stop tap-accel)",
				  pid, path);
		else
			agent_log("not started: cannot lock %s: %s", path,
				  errno == EWOULDBLOCK ? "another agent holds it" : strerror(errno));
		close(fd);
		return -EAGAIN;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, n, 0) != n)
		agent_log("warning: %s: cannot record this agent's pid: %s", path, strerror(errno));
	*lock_fd = fd;
	return 0;
}

static const char *const state_words[] = {"unbound", "bound", "unbound", "error"};

/* Of a tap no binding matches: a file left out whose name holds its name
 * (the adapters name theirs after the tap: 10-qemu-TAP.conf), or NULL. */
static const char *refused_file_of(const struct agent *a, const char *ifname)
{
	char part[IF_NAMESIZE + 8];

	snprintf(part, sizeof(part), "-%s.conf:", ifname);
	for (uint32_t i = 0; i < a->said.nr; i++)
		if (strstr(a->said.texts[i], part))
			return a->said.texts[i];
	return NULL;
}

static void field(FILE *f, const char *text)
{
	char shown[2048];

	fprintf(f, "\t%s", ta_escape_controls(text, shown, sizeof(shown)));
}

static void write_tap(FILE *f, const struct agent *a, const struct agent_ns *ns,
		      const struct agent_link *k)
{
	const char *refused = k->state == TAP_UNBOUND ? refused_file_of(a, k->nl.name) : NULL;
	char why[sizeof(k->why) + 2048];

	fprintf(f, "tap");
	field(f, ns->label);
	fprintf(f, "\t%llu\t%u", (unsigned long long)ns->cookie, k->nl.ifindex);
	field(f, k->nl.name);
	fprintf(f, "\t%s", state_words[k->state]);
	if (refused)
		snprintf(why, sizeof(why), "%s; its file was left out: %s", k->why, refused);
	else
		snprintf(why, sizeof(why), "%s", k->state == TAP_UNJUDGED ? "not judged yet" : k->why);
	field(f, why);
	fprintf(f, "\n");
}

/* The whole file into `f`; counts the taps seen and bound on the way. */
static void write_state(FILE *f, struct agent *a)
{
	struct agent_health *h = &a->health;

	h->taps_seen = h->taps_bound = 0;
	fprintf(f, "tap-accel agent state 1\npid\t%d\nprog\t%u\n", (int)getpid(), h->prog_id);
	for (uint32_t i = 0; i < a->nr_ns; i++) {
		const struct agent_ns *ns = &a->ns[i];

		if (ns->fd < 0)
			continue;
		fprintf(f, "netns");
		field(f, ns->label);
		fprintf(f, "\t%llu\n", (unsigned long long)ns->cookie);
		for (uint32_t l = 0; l < ns->nr_links; l++) {
			if (!ns->links[l].nl.ifindex)
				continue;
			h->taps_seen++;
			h->taps_bound += ns->links[l].state == TAP_BOUND;
			write_tap(f, a, ns, &ns->links[l]);
		}
	}
	for (uint32_t i = 0; i < a->said.nr; i++) {
		fprintf(f, "refused");
		field(f, a->said.texts[i]);
		fprintf(f, "\n");
	}
}

void agent_state_write(struct agent *a)
{
	char path[PATH_MAX + 16], tmp[PATH_MAX + 32], error[PATH_MAX + 128];
	FILE *f;
	int fd, err = 0;

	snprintf(path, sizeof(path), "%s/%s", a->state_dir, AGENT_STATE_FILE);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", a->state_dir, AGENT_STATE_FILE);
	fd = mkostemp(tmp, O_CLOEXEC);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (f) {
		write_state(f, a);
		err = fchmod(fd, 0644) || ferror(f) ? errno : 0;
		err = fclose(f) && !err ? errno : err;
		err = !err && rename(tmp, path) ? errno : err;
		if (err)
			unlink(tmp);
	} else {
		err = errno;
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	}
	if (!err) {
		a->state_told = 0;
		return;
	}
	snprintf(error, sizeof(error), "error: cannot write %s ('tap-accel status --all' reads it): %s",
		 path, strerror(err ? err : EIO));
	if (agent_news(&a->state_told, error))
		agent_log("%s", error);
}
