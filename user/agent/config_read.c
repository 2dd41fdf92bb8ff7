// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * config_read.c - what agent.conf (settings.c) and bindings.d (bindings.c)
 * share: reading the agent's files only when root could have written them,
 * listing its folders, the words both grammars take, and saying errors
 * and warnings (config_read.h).
 */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config_read.h"
#include "lib/base/lex.h"

/* ---- messages ---------------------------------------------------------- */

void config_say(struct agent_report *r, bool error, const struct ta_error *e)
{
	if (error)
		r->errors++;
	else
		r->warned++;
	if (error || r->warnings)
		r->say(r->arg, error, e->text);
}

void config_warn(struct agent_report *r, const char *fmt, ...)
{
	struct ta_error e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e.text, sizeof(e.text), fmt, ap);
	va_end(ap);
	config_say(r, false, &e);
}

int config_failure(const struct ta_error *e)
{
	if (e->input)
		return -EINVAL;
	return e->err == EINVAL ? -EIO : -e->err;
}

int config_system_failure(const struct ta_error *e)
{
	return e->err == EINVAL || !e->err ? -EIO : -e->err;
}

char *config_path(const char *dir, const char *name)
{
	char *path;

	return asprintf(&path, "%s/%s", dir, name) < 0 ? NULL : path;
}

/* ---- files the agent trusts ---------------------------------------------------- */

/*
 * What the agent reads decides which guest gets which guard, so it reads
 * only what root could have written: a file or folder owned by root (or
 * by the agent's own uid), writable by no group and no other user. A
 * symbolic link in a folder is not followed, whatever it points to.
 */
int config_owner_check(const char *path, const struct stat *st, const char *what,
		       struct ta_error *e)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return ta_error_input_at(e, EPERM, "%s: %s owned by uid %u: the agent reads only "
					 "what root owns (chown root %s)", path, what,
					 (unsigned)st->st_uid, path);
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return ta_error_input_at(e, EPERM, "%s: %s writable by its group or others "
					 "(mode %04o): the agent reads none such (chmod go-w %s)",
					 path, what, (unsigned)(st->st_mode & 07777), path);
	return 0;
}

/* A folder the agent reads (that one missing has no files): 0 or -errno
 * with e. */
int config_folder_check(const char *dir, struct ta_error *e)
{
	struct stat st;

	if (stat(dir, &st))
		return errno == ENOENT ? 0
				       : ta_error_system_at(e, errno, "%s: cannot read the folder: %s",
							    dir, strerror(errno));
	return config_owner_check(dir, &st, "a folder", e);
}

/*
 * Read a file of the agent's folders, `what` naming it: never blocking
 * (a FIFO or a device is refused, not opened for good), never following
 * a symbolic link, and only if it passes config_owner_check(). 0, or -errno
 * with e, which never holds a word of the file's.
 */
int config_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		struct ta_error *e)
{
	char kind[64];
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC), ret;

	*text = NULL;
	*len = 0;
	if (fd < 0 && errno == ELOOP)
		return ta_error_input_at(e, ELOOP, "%s: a symbolic link: the agent follows none "
					 "in its folders; put the %s itself there", path, what);
	if (fd < 0 || fstat(fd, &st)) {
		int err = errno;

		ret = err == ENOENT ? ta_error_input_at(e, err, "%s: cannot read the %s: %s", path,
							what, strerror(err))
				    : ta_error_system_at(e, err, "%s: cannot read the %s: %s", path,
							 what, strerror(err));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	snprintf(kind, sizeof(kind), "a %s", what);
	ret = S_ISREG(st.st_mode) ? config_owner_check(path, &st, kind, e) : 0;
	ret = ret ?: ta_text_read_fd(fd, &st, path, what, max, text, len, e);
	close(fd);
	return ret;
}

/* The file names of `dir` that `filter` takes, sorted. A folder that is
 * not there has none. The count, or -1 with the error in e. */
int config_list(const char *dir, int (*filter)(const struct dirent *), struct dirent ***names,
		struct ta_error *e)
{
	int n;

	*names = NULL;
	if (config_folder_check(dir, e))
		return -1;
	n = scandir(dir, names, filter, alphasort);
	*names = n < 0 ? NULL : *names;
	if (n >= 0 || errno == ENOENT)
		return n < 0 ? 0 : n;
	ta_error_system_at(e, errno, "%s: cannot list the folder: %s", dir, strerror(errno));
	return -1;
}

void config_names_free(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* ---- words ---------------------------------------------------------------- */

/* The word as a string of at most `size` - 1 bytes: 0, or -EINVAL with
 * "expected WHAT". */
int config_word(struct ta_lex *lx, const struct ta_word *w, char *buf, size_t size,
		const char *what)
{
	char got[96];

	if ((size_t)w->len < size) {
		ta_word_str(w, buf, size);
		return 0;
	}
	return ta_lex_fail(lx, w->col, "expected %s (at most %zu characters), %s", what, size - 1,
			   ta_word_got(w, got, sizeof(got)));
}

/* A network namespace as `ip netns` names it (/run/netns/NAME). */
int config_netns_name(struct ta_lex *lx, const struct ta_word *w, char buf[NAME_MAX + 1])
{
	if (config_word(lx, w, buf, NAME_MAX + 1, "a network namespace name"))
		return -EINVAL;
	if (strchr(buf, '/') || !strcmp(buf, ".") || !strcmp(buf, ".."))
		return ta_lex_fail(lx, w->col,
				   "expected a network namespace name as 'ip netns' lists it, got '%s'",
				   buf);
	return 0;
}
