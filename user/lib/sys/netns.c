// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* netns.c - network and mount namespaces (see netns.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "netns.h"

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

int ta_netns_cookie(unsigned long long *cookie)
{
	socklen_t len = sizeof(*cookie);
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, cookie, &len))
		err = -errno;
	close(fd);
	return err;
}

int ta_netns_inode(unsigned long *inode)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st))
		return -errno;
	*inode = (unsigned long)st.st_ino;
	return 0;
}

struct ns_search {
	unsigned long long cookie;
	ino_t *seen;
	size_t nr_seen, cap_seen;
	int found;
};

/* Whether `path` is the namespace searched for; each namespace is entered
 * once however many names and processes it has. 1 (the fd is kept in
 * search->found), 0, or -errno when nothing more can be tried. */
static int ns_try(struct ns_search *search, const char *path)
{
	unsigned long long cookie;
	struct stat st;
	int fd;

	if (stat(path, &st))
		return 0; /* gone meanwhile, or not ours to see */
	for (size_t i = 0; i < search->nr_seen; i++)
		if (search->seen[i] == st.st_ino)
			return 0;
	if (search->nr_seen == search->cap_seen) {
		size_t cap = search->cap_seen ? search->cap_seen * 2 : 64;
		ino_t *seen = realloc(search->seen, cap * sizeof(*seen));

		if (!seen)
			return -ENOMEM;
		search->seen = seen;
		search->cap_seen = cap;
	}
	search->seen[search->nr_seen++] = st.st_ino;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (setns(fd, CLONE_NEWNET) || ta_netns_cookie(&cookie) || cookie != search->cookie) {
		close(fd);
		return 0;
	}
	search->found = fd;
	return 1;
}

static int ns_search_dir(struct ns_search *search, const char *dir, const char *suffix,
			 bool pids_only)
{
	char path[PATH_MAX];
	struct dirent *d;
	DIR *dp = opendir(dir);
	int ret = 0;

	if (!dp)
		return 0; /* no /run/netns: nothing named */
	while (!ret && (d = readdir(dp))) {
		if (d->d_name[0] == '.' || (pids_only && !strspn(d->d_name, "0123456789")))
			continue;
		snprintf(path, sizeof(path), "%s/%s%s", dir, d->d_name, suffix);
		ret = ns_try(search, path);
	}
	closedir(dp);
	return ret;
}

int ta_netns_open_cookie(unsigned long long cookie)
{
	struct ns_search search = {.cookie = cookie, .found = -1};
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), ret;

	if (home < 0)
		return -errno;
	ret = ns_search_dir(&search, "/run/netns", "", false);
	if (!ret)
		ret = ns_search_dir(&search, "/proc", "/ns/net", true);
	/* back home whatever was entered; failing that, the caller would
	 * act in the wrong namespace */
	if (setns(home, CLONE_NEWNET)) {
		ret = -errno;
		if (search.found >= 0)
			close(search.found);
		search.found = -1;
	}
	close(home);
	free(search.seen);
	if (ret < 0)
		return ret;
	return search.found >= 0 ? search.found : -ENOENT;
}

int ta_netns_enter(const char *name, struct ta_error *e)
{
	char path[4096];
	int fd, err;

	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return ta_error_input(e, EINVAL, "'%s' is not a network namespace name", name);
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return ta_error_input(e, ENOENT, "network namespace %s not found (no %s); list them with 'ip netns'",
				      name, path);
	if (fd < 0)
		return ta_error_errno(e, errno, "cannot open network namespace %s", path);
	err = setns(fd, CLONE_NEWNET) ? errno : 0;
	close(fd);
	if (err == EINVAL)
		return ta_error_input(e, EINVAL, "%s is not a network namespace", path);
	if (err)
		return ta_error_errno(e, err, "cannot enter network namespace %s", path);
	return 0;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* The parent of `pid` from /proc/PID/stat, 0 if unknown. */
static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
		sscanf(p + 1, " %*c %d", &ppid);
	fclose(f);
	return ppid;
}

static int mntns_of(pid_t pid, struct stat *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return stat(path, st) ? -errno : 0;
}

int ta_mntns_enter_callers(const char *bpffs)
{
	struct stat self, st;
	pid_t pid, chosen = 0;
	char path[4200];
	int fd, cwd, err = 0;

	if (is_bpffs(bpffs) || mntns_of(getpid(), &self))
		return 0;
	for (pid = getppid(); pid > 0; pid = parent_of(pid)) {
		if (mntns_of(pid, &st))
			break; /* not ours to look into, or gone */
		if (st.st_ino == self.st_ino && st.st_dev == self.st_dev)
			continue;
		chosen = pid;
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, bpffs);
		if (is_bpffs(path))
			break;
	}
	if (!chosen)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)chosen);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* setns() moves root and working directory to the namespace's root;
	 * relative paths on the command line must still mean what they did. */
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (setns(fd, CLONE_NEWNS))
		err = -errno;
	else if (cwd >= 0 && fchdir(cwd))
		err = -errno;
	close(fd);
	if (cwd >= 0)
		close(cwd);
	return err ? err : 1;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev;
}

bool ta_mntns_lasting(void)
{
	pid_t me = getpid(), line[64];
	struct stat self, st;
	struct dirent *de;
	bool found = false;
	int n = 0;
	DIR *d;

	if (mntns_of(me, &self))
		return true; /* cannot tell: as it always was */
	if (me != 1 && !mntns_of(1, &st) && same_file(&st, &self))
		return true;
	/* this process's ancestors: a shell that runs us here ends with us */
	for (pid_t pid = getppid(); pid > 0 && n < 64; pid = parent_of(pid))
		line[n++] = pid;
	d = opendir("/proc");
	if (!d)
		return true;
	while (!found && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		bool ancestor = false;

		if (*end || pid <= 0 || pid == me)
			continue;
		for (int i = 0; i < n; i++)
			ancestor |= line[i] == pid;
		found = !ancestor && !mntns_of((pid_t)pid, &st) && same_file(&st, &self);
	}
	closedir(d);
	return found;
}
