/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * config_read.h - what the agent.conf reader (settings.c) and the bindings.d
 * reader (bindings.c) share; nothing outside the agent's configuration
 * uses it.
 */
#ifndef TA_AGENT_CONFIG_READ_H
#define TA_AGENT_CONFIG_READ_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "agent/config.h"
#include "lib/base/error.h"
#include "lib/base/lex.h"

/* A configuration file larger than this is certainly a mistake. */
#define CONFIG_MAX_BYTES (4u << 20)

/* An error (counted in r->errors) or a warning (said only with r->warnings). */
void config_say(struct agent_report *r, bool error, const struct ta_error *e);
void config_warn(struct agent_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* What a reader that said an error returns (agent_config_load()): -EINVAL
 * when the configuration is wrong, else the system's errno, never EINVAL,
 * which says the former. */
int config_failure(const struct ta_error *e);
/* The same for a failure of the system's, whatever `e` says. */
int config_system_failure(const struct ta_error *e);

/* "DIR/NAME", to free; NULL when out of memory. */
char *config_path(const char *dir, const char *name);

/* A file or folder the agent may read: owned by root or by itself, and
 * writable by no one else. 0, or -errno with e. */
int config_owner_check(const char *path, const struct stat *st, const char *what,
		       struct ta_error *e);
/* A folder the agent reads (that one missing has no files): 0 or -errno
 * with e. */
int config_folder_check(const char *dir, struct ta_error *e);
/* A file of the agent's folders, never blocking and never followed
 * through a symbolic link, if config_owner_check() passes. 0, or -errno
 * with e, which never holds a word of the file's. */
int config_read(const char *path, const char *what, size_t max, char **text, size_t *len,
		struct ta_error *e);
/* The file names of `dir` that `filter` takes, sorted; a folder that is
 * not there has none. The count, or -1 with the error in e. */
int config_list(const char *dir, int (*filter)(const struct dirent *), struct dirent ***names,
		struct ta_error *e);
void config_names_free(struct dirent **names, int n);

/* The word as a string of at most `size` - 1 bytes: 0, or -EINVAL with
 * "expected WHAT". */
int config_word(struct ta_lex *lx, const struct ta_word *w, char *buf, size_t size,
		const char *what);
/* A network namespace as `ip netns` names it (/run/netns/NAME). */
int config_netns_name(struct ta_lex *lx, const struct ta_word *w, char buf[NAME_MAX + 1]);

#endif /* TA_AGENT_CONFIG_READ_H */
