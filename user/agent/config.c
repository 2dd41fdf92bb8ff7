// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * config.c - the agent's configuration, read (config.h). The files share
 * the policy language's lexical rules (lib/base/lex.h); each file stops at its
 * first error, and every file is read, so that one pass names every file
 * at fault.
 */
#define _GNU_SOURCE /* asprintf */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/config.h"
#include "lib/base/lex.h"
#include "lib/plane/guard.h"
#include "lib/plane/policies.h"
#include "lib/policy/guard_parse.h"
#include "lib/policy/parse.h"

/* A configuration file larger than this is certainly a mistake. */
#define CONFIG_MAX_BYTES (4u << 20)
/* A policy file: as `tap-accel policy load` takes. */
#define POLICY_MAX_BYTES (16u << 20)

/* ---- messages ---------------------------------------------------------- */

static void say(struct agent_report *r, bool error, const struct ta_error *e)
{
	if (error)
		r->errors++;
	else
		r->warned++;
	if (error || r->warnings)
		r->say(r->arg, error, e->text);
}

/* What a function that said an error returns (agent_config_load()):
 * -EINVAL when the configuration is wrong, else the system's errno, never
 * EINVAL, which says the former. */
static int failure(const struct ta_error *e)
{
	if (e->input)
		return -EINVAL;
	return e->err == EINVAL ? -EIO : -e->err;
}

/* The same for a failure the system's whatever `e` says. */
static int system_failure(const struct ta_error *e)
{
	return e->err == EINVAL || !e->err ? -EIO : -e->err;
}

static void warn(struct agent_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct agent_report *r, const char *fmt, ...)
{
	struct ta_error e;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e.text, sizeof(e.text), fmt, ap);
	va_end(ap);
	say(r, false, &e);
}

static char *path_join(const char *dir, const char *name)
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
static int owner_check(const char *path, const struct stat *st, const char *what,
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
static int folder_check(const char *dir, struct ta_error *e)
{
	struct stat st;

	if (stat(dir, &st))
		return errno == ENOENT ? 0
				       : ta_error_system_at(e, errno, "%s: cannot read the folder: %s",
							    dir, strerror(errno));
	return owner_check(dir, &st, "a folder", e);
}

/*
 * Read a file of the agent's folders, `what` naming it: never blocking
 * (a FIFO or a device is refused, not opened for good), never following
 * a symbolic link, and only if it passes owner_check(). 0, or -errno
 * with e, which never holds a word of the file's.
 */
static int trusted_read(const char *path, const char *what, size_t max, char **text,
			size_t *len, struct ta_error *e)
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
	ret = S_ISREG(st.st_mode) ? owner_check(path, &st, kind, e) : 0;
	ret = ret ?: ta_text_read_fd(fd, &st, path, what, max, text, len, e);
	close(fd);
	return ret;
}

/* ---- words ---------------------------------------------------------------- */

/* The word as a string of at most `size` - 1 bytes: 0, or -EINVAL with
 * "expected WHAT". */
static int word_copy(struct ta_lex *lx, const struct ta_word *w, char *buf, size_t size,
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
static int netns_name(struct ta_lex *lx, const struct ta_word *w, char buf[NAME_MAX + 1])
{
	if (word_copy(lx, w, buf, NAME_MAX + 1, "a network namespace name"))
		return -EINVAL;
	if (strchr(buf, '/') || !strcmp(buf, ".") || !strcmp(buf, ".."))
		return ta_lex_fail(lx, w->col,
				   "expected a network namespace name as 'ip netns' lists it, got '%s'",
				   buf);
	return 0;
}

/* A user or group: a name of the system's, or a number. */
static int id_of(struct ta_lex *lx, const struct ta_word *w, bool group, uint32_t *id)
{
	struct passwd *pw = NULL;
	struct group *gr = NULL;
	char name[256], *end;
	unsigned long n;

	if (word_copy(lx, w, name, sizeof(name), group ? "a group" : "a user"))
		return -EINVAL;
	errno = 0;
	n = strtoul(name, &end, 10);
	if (name[0] >= '0' && name[0] <= '9' && !*end && !errno && n < UINT32_MAX) {
		*id = (uint32_t)n;
		return 0;
	}
	if (group ? !!(gr = getgrnam(name)) : !!(pw = getpwnam(name))) {
		*id = group ? gr->gr_gid : pw->pw_uid;
		return 0;
	}
	return ta_lex_fail(lx, w->col, "expected a %s name or number, got '%s': no such %s",
			   group ? "group" : "user", name, group ? "group" : "user");
}

/* ---- agent.conf ------------------------------------------------------------ */

struct settings {
	struct ta_lex lx;
	struct agent_config *cfg;
	int unbound_line, textfile_line, listen_line;
	int *netns_lines;
};

static int parse_unbound(struct settings *s, const struct ta_word *kw)
{
	struct ta_lex *lx = &s->lx;
	struct ta_word w, name;
	char got[96];

	if (s->unbound_line)
		return ta_lex_fail(lx, kw->col, "'unbound' given twice (first at line %d)",
				   s->unbound_line);
	s->unbound_line = lx->line;
	if (ta_lex_expect(lx, &w, "pass, drop or policy NAME", kw))
		return -EINVAL;
	if (ta_word_is(&w, "pass") || ta_word_is(&w, "drop")) {
		s->cfg->unbound = ta_word_is(&w, "pass") ? TA_UNBOUND_PASS : TA_UNBOUND_DROP;
		return 0;
	}
	if (!ta_word_is(&w, "policy"))
		return ta_lex_fail(lx, w.col, "expected pass, drop or policy NAME after 'unbound', %s",
				   ta_word_got(&w, got, sizeof(got)));
	if (ta_lex_expect(lx, &name, "a policy name", &w) ||
	    word_copy(lx, &name, s->cfg->unbound_policy, TA_POLICY_NAME_LEN, "a policy name"))
		return -EINVAL;
	if (ta_policy_name_valid(s->cfg->unbound_policy))
		return ta_lex_fail(lx, name.col,
				   "'%s' is not a policy name: letters, digits, '.', '_' or '-'",
				   s->cfg->unbound_policy);
	s->cfg->unbound = TA_UNBOUND_POLICY;
	return 0;
}

static int add_netns(struct settings *s, const struct ta_word *w)
{
	struct agent_config *cfg = s->cfg;
	char name[NAME_MAX + 1], **more;
	int *lines;

	if (netns_name(&s->lx, w, name))
		return -EINVAL;
	if (!strcmp(name, AGENT_HOST_NETNS) || !strcmp(name, "*"))
		return ta_lex_fail(&s->lx, w->col,
				   "'%s' is not a namespace to list: the agent always watches its own "
				   "('host' in bindings)", name);
	for (uint32_t i = 0; i < cfg->nr_netns; i++)
		if (!strcmp(cfg->netns[i], name))
			return ta_lex_fail(&s->lx, w->col, "namespace %s listed twice (first at line %d)",
					   name, s->netns_lines[i]);
	more = realloc(cfg->netns, (cfg->nr_netns + 1) * sizeof(*more));
	if (more)
		cfg->netns = more;
	lines = realloc(s->netns_lines, (cfg->nr_netns + 1) * sizeof(*lines));
	if (lines)
		s->netns_lines = lines;
	if (!more || !lines || !(cfg->netns[cfg->nr_netns] = strdup(name)))
		return ta_lex_fail(&s->lx, w->col, "out of memory");
	s->netns_lines[cfg->nr_netns++] = s->lx.line;
	return 0;
}

static int parse_netns(struct settings *s, const struct ta_word *kw)
{
	struct ta_word w;

	if (ta_lex_expect(&s->lx, &w, "the names of network namespaces", kw))
		return -EINVAL;
	do {
		if (add_netns(s, &w))
			return -EINVAL;
	} while (ta_lex_word(&s->lx, &w));
	return 0;
}

/* ADDR:PORT, ADDR an IPv4 address or an IPv6 one in brackets. */
static int parse_listen(struct settings *s, const struct ta_word *w)
{
	struct agent_metrics *m = &s->cfg->metrics;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&m->listen_addr;
	struct sockaddr_in *in = (struct sockaddr_in *)&m->listen_addr;
	char text[80], *colon, *addr = text, *end;
	unsigned long port;

	if (word_copy(&s->lx, w, text, sizeof(text), "ADDR:PORT"))
		return -EINVAL;
	colon = strrchr(text, ':');
	if (colon)
		*colon = 0;
	if (colon && text[0] == '[' && colon[-1] == ']') {
		colon[-1] = 0;
		addr++;
	}
	port = colon ? strtoul(colon + 1, &end, 10) : 0;
	if (!colon || !colon[1] || *end || !port || port > 65535)
		goto bad;
	memset(&m->listen_addr, 0, sizeof(m->listen_addr));
	if (addr == text && inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		m->listen_len = sizeof(*in);
	} else if (addr != text && inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		m->listen_len = sizeof(*in6);
	} else {
		goto bad;
	}
	m->listen = strndup(w->s, w->len);
	return m->listen ? 0 : ta_lex_fail(&s->lx, w->col, "out of memory");
bad:
	return ta_lex_fail(&s->lx, w->col,
			   "expected ADDR:PORT, an IPv4 address or an IPv6 one in brackets and a "
			   "port 1..65535 (127.0.0.1:9469, [::1]:9469), got '%.*s'", w->len, w->s);
}

static bool is_loopback(const struct sockaddr_storage *ss)
{
	const struct in6_addr *a6 = &((const struct sockaddr_in6 *)ss)->sin6_addr;
	const uint8_t *v4 = ss->ss_family == AF_INET
				    ? (const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr
				    : IN6_IS_ADDR_V4MAPPED(a6) ? &a6->s6_addr[12] : NULL;

	return v4 ? v4[0] == 127 : IN6_IS_ADDR_LOOPBACK(a6);
}

/* /metrics names every tap and its counters, and answers anyone who
 * reaches it: an address other hosts reach only with `allow-remote`. */
static int listen_remote(struct settings *s, const struct ta_word *addr)
{
	struct agent_metrics *m = &s->cfg->metrics;
	struct ta_word w;
	char got[96];

	if (ta_lex_word(&s->lx, &w)) {
		if (!ta_word_is(&w, "allow-remote"))
			return ta_lex_fail(&s->lx, w.col, "expected allow-remote or end of line "
					   "after 'metrics listen ADDR:PORT', %s",
					   ta_word_got(&w, got, sizeof(got)));
		m->allow_remote = true;
		return 0;
	}
	if (is_loopback(&m->listen_addr))
		return 0;
	return ta_lex_fail(&s->lx, addr->col,
			   "%s is not a loopback address: whoever reaches it reads the names and "
			   "counters of every tap; listen on 127.0.0.1 or [::1], or write "
			   "'metrics listen %s allow-remote' to serve other hosts all the same",
			   m->listen, m->listen);
}

static int parse_metrics(struct settings *s, const struct ta_word *kw)
{
	struct ta_lex *lx = &s->lx;
	struct ta_word what, w;
	char got[96];
	int *line;

	if (ta_lex_expect(lx, &what, "textfile DIR or listen ADDR:PORT", kw))
		return -EINVAL;
	if (!ta_word_is(&what, "textfile") && !ta_word_is(&what, "listen"))
		return ta_lex_fail(lx, what.col,
				   "expected textfile DIR or listen ADDR:PORT after 'metrics', %s",
				   ta_word_got(&what, got, sizeof(got)));
	line = ta_word_is(&what, "textfile") ? &s->textfile_line : &s->listen_line;
	if (*line)
		return ta_lex_fail(lx, what.col, "'metrics %.*s' given twice (first at line %d)",
				   what.len, what.s, *line);
	*line = lx->line;
	if (ta_lex_expect(lx, &w, line == &s->listen_line ? "ADDR:PORT" : "a folder", &what))
		return -EINVAL;
	if (line == &s->listen_line)
		return parse_listen(s, &w) ?: listen_remote(s, &w);
	if (w.s[0] != '/')
		return ta_lex_fail(lx, w.col, "expected an absolute path for node_exporter's "
				   "textfile folder, got '%.*s'", w.len, w.s);
	s->cfg->metrics.textfile = strndup(w.s, w.len);
	return s->cfg->metrics.textfile ? 0 : ta_lex_fail(lx, w.col, "out of memory");
}

static int parse_setting(struct settings *s)
{
	struct ta_word w;
	char got[96];

	if (!ta_lex_word(&s->lx, &w))
		return 0;
	if (ta_word_is(&w, "unbound"))
		return parse_unbound(s, &w);
	if (ta_word_is(&w, "netns"))
		return parse_netns(s, &w);
	if (ta_word_is(&w, "metrics"))
		return parse_metrics(s, &w);
	return ta_lex_fail(&s->lx, w.col, "expected a setting (unbound, netns or metrics), %s",
			   ta_word_got(&w, got, sizeof(got)));
}

/* agent.conf, which may be missing: every setting then has its default. */
static int load_settings(struct agent_config *cfg, struct agent_report *r)
{
	struct settings s = {.cfg = cfg};
	struct ta_error e;
	char *path = path_join(cfg->dir, "agent.conf"), *text = NULL;
	size_t len;
	int ret = path ? 0 : ta_error_system(&e, ENOMEM, "out of memory"), more;

	struct stat st;

	if (!ret && lstat(path, &st) && errno == ENOENT)
		goto out;
	ret = ret ?: trusted_read(path, "configuration file", CONFIG_MAX_BYTES, &text, &len, &e);
	if (!ret) {
		ta_lex_init(&s.lx, text, len, path, &e);
		while ((more = ta_lex_line(&s.lx)) > 0)
			if (parse_setting(&s) || ta_lex_line_end(&s.lx))
				break;
		ret = more ? -EINVAL : 0;
	}
	if (ret) {
		say(r, true, &e);
		ret = failure(&e);
	}
out:
	free(s.netns_lines);
	free(text);
	free(path);
	return ret;
}

/* ---- policies/ ------------------------------------------------------------- */

static int is_policy_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 7 && !strcmp(d->d_name + n - 7, ".policy");
}

static int is_binding_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* The file names of `dir` that `filter` takes, sorted. A folder that is
 * not there has none. The count, or -1 with the error in e. */
static int list_dir(const char *dir, int (*filter)(const struct dirent *),
		    struct dirent ***names, struct ta_error *e)
{
	int n;

	*names = NULL;
	if (folder_check(dir, e))
		return -1;
	n = scandir(dir, names, filter, alphasort);
	*names = n < 0 ? NULL : *names;
	if (n >= 0 || errno == ENOENT)
		return n < 0 ? 0 : n;
	ta_error_system_at(e, errno, "%s: cannot list the folder: %s", dir, strerror(errno));
	return -1;
}

static void names_free(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static int load_policy(struct agent_policy *p, const char *dir, const char *file,
		       struct ta_error *e)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	p->path = path_join(dir, file);
	if (!p->path)
		return ta_error_system(e, ENOMEM, "out of memory");
	if (ta_policy_name_of_file(file, p->name))
		return ta_error_input_at(e, EINVAL,
					 "%s: its file name makes no policy name (1 to %d letters, digits, "
					 "'.', '_' or '-' before .policy); rename it", p->path,
					 TA_POLICY_NAME_LEN - 1);
	ret = trusted_read(p->path, "policy file", POLICY_MAX_BYTES, &text, &len, e);
	ret = ret ?: ta_policy_parse(text, len, p->path, &p->spec, e);
	free(text);
	if (!ret && p->spec.guard.flags)
		ret = ta_error_input_at(e, EINVAL,
					"%s: a guard holds one guest's addresses, so it belongs to a tap, "
					"not to a shared policy; give it on the binding (guard mac=...,ip=...)",
					p->path);
	return ret;
}

/* Where a policy's interfaces are missing here: a warning, for --check. */
static void policy_lookups(struct agent_policy *p, struct agent_report *r)
{
	struct ta_policy_spec spec = p->spec;
	struct ta_error e;

	if (!r->warnings || !r->lookups || !ta_policy_resolve(p->path, &spec, &e))
		return;
	warn(r, "%s here: policy %s loads only once it is there", e.text, p->name);
}

static int load_policies(struct agent_config *cfg, struct agent_report *r)
{
	struct dirent **names;
	struct ta_error e;
	char *dir = path_join(cfg->dir, "policies");
	int n = dir ? list_dir(dir, is_policy_file, &names, &e) : -1, ret = 0;

	if (!dir)
		ta_error_system(&e, ENOMEM, "out of memory");
	if (n > 0 && !(cfg->policies = calloc(n, sizeof(*cfg->policies))))
		ta_error_system(&e, ENOMEM, "out of memory");
	if (n < 0 || (n > 0 && !cfg->policies)) {
		say(r, true, &e);
		ret = system_failure(&e);
		n = n < 0 ? 0 : n;
	}
	for (int i = 0; i < n && cfg->policies; i++) {
		struct agent_policy *p = &cfg->policies[cfg->nr_policies++];

		if (load_policy(p, dir, names[i]->d_name, &e)) {
			say(r, true, &e);
			ret = ret ?: failure(&e);
		} else {
			policy_lookups(p, r);
		}
	}
	names_free(names, n);
	free(dir);
	return ret;
}

/* ---- bindings.d ------------------------------------------------------------ */

struct bindings {
	struct ta_lex lx;
	struct agent_config *cfg;
	struct agent_file *file;
	uint32_t cap;
	struct agent_report *r;
};

/* Where each word of a binding was, for "given twice" and what comes
 * after the line. */
enum bind_word { B_NAME, B_NETNS, B_OWNER, B_GROUP, B_POLICY, B_GUARD, B_MAX };
static const char *const bind_words[B_MAX] = {"name", "netns", "owner", "group", "policy",
					      "guard"};
/* What each takes, for "expected ... after 'WORD'". */
static const char *const bind_values[B_MAX] = {
	"a name pattern", "a network namespace name, host or *", "a user name or uid",
	"a group name or gid", "a policy name", "mac=MAC,ip=ADDRESS,... or none"};

static int bind_name(struct bindings *p, const struct ta_word *w, struct agent_binding *b)
{
	char why[160];
	size_t at;

	if (pattern_compile(w->s, w->len, &b->name, &at, why, sizeof(why)))
		return ta_lex_fail(&p->lx, w->col + (int)at, "name pattern '%.*s': %s", w->len, w->s,
				   why);
	return 0;
}

static int bind_netns(struct bindings *p, const struct ta_word *w, struct agent_binding *b)
{
	char name[NAME_MAX + 1];

	if (netns_name(&p->lx, w, name))
		return -EINVAL;
	if (!strcmp(name, AGENT_HOST_NETNS))
		return 0;
	b->netns = strdup(name);
	return b->netns ? 0 : ta_lex_fail(&p->lx, w->col, "out of memory");
}

static int bind_guard(struct bindings *p, const struct ta_word *w, struct agent_binding *b)
{
	char params[TA_GUARD_TEXT_MAX];
	struct ta_error e;
	size_t at = 0;

	if (word_copy(&p->lx, w, params, sizeof(params), "mac=MAC,ip=ADDRESS,..."))
		return -EINVAL;
	if (ta_guard_parse(params, &b->guard, &at, &e))
		return ta_lex_fail(&p->lx, w->col + (int)at, "guard: %s", e.text);
	b->has_guard = true;
	return 0;
}

/* The value of one word of a binding. */
static int bind_value(struct bindings *p, enum bind_word which, const struct ta_word *w,
		      struct agent_binding *b)
{
	switch (which) {
	case B_NAME:
		return bind_name(p, w, b);
	case B_NETNS:
		return bind_netns(p, w, b);
	case B_OWNER:
		b->has_owner = true;
		return id_of(&p->lx, w, false, &b->owner);
	case B_GROUP:
		b->has_group = true;
		return id_of(&p->lx, w, true, &b->group);
	case B_POLICY:
		b->policy = strndup(w->s, w->len);
		return b->policy ? 0 : ta_lex_fail(&p->lx, w->col, "out of memory");
	case B_GUARD:
	default:
		return bind_guard(p, w, b);
	}
}

/* The policy name must be one once its captures are filled in. */
static int check_policy(struct bindings *p, int col, struct agent_binding *b)
{
	char name[TA_POLICY_NAME_LEN];
	int err = pattern_expand(&b->name, NULL, b->policy, name, sizeof(name));

	if (err == -ENOENT)
		return ta_lex_fail(&p->lx, col,
				   "policy '%s': every {NAME} in it must be a capture of the name "
				   "pattern '%s'", b->policy, b->name.text);
	if (err || ta_policy_name_valid(name))
		return ta_lex_fail(&p->lx, col,
				   "'%s' is not a policy name: 1 to %d letters, digits, '.', '_' or "
				   "'-', and {NAME} for a capture", b->policy, TA_POLICY_NAME_LEN - 1);
	return 0;
}

static void binding_free(struct agent_binding *b)
{
	pattern_free(&b->name);
	free(b->netns);
	free(b->policy);
}

/* bind name PATTERN [netns N] [owner U] [group G] policy NAME [guard PARAMS] */
static int parse_bind(struct bindings *p, const struct ta_word *kw, struct agent_binding *b)
{
	int col[B_MAX] = {0};
	struct ta_word w, v;
	enum bind_word which;
	char got[96];

	while (ta_lex_word(&p->lx, &w)) {
		for (which = 0; which < B_MAX && !ta_word_is(&w, bind_words[which]); which++)
			;
		if (which == B_MAX)
			return ta_lex_fail(&p->lx, w.col,
					   "expected name, netns, owner, group, policy or guard, %s",
					   ta_word_got(&w, got, sizeof(got)));
		if (col[which])
			return ta_lex_fail(&p->lx, w.col, "'%s' given twice in one binding (first "
					   "at column %d)", bind_words[which], col[which]);
		col[which] = w.col;
		if (ta_lex_expect(&p->lx, &v, bind_values[which], &w) || bind_value(p, which, &v, b))
			return -EINVAL;
	}
	if (!col[B_NAME])
		return ta_lex_fail(&p->lx, kw->col, "expected 'name PATTERN' in the binding: the "
				   "taps it is for");
	if (!col[B_POLICY])
		return ta_lex_fail(&p->lx, kw->col, "expected 'policy NAME' in the binding");
	return check_policy(p, col[B_POLICY], b);
}

static int parse_binding_line(struct bindings *p)
{
	struct agent_file *f = p->file;
	struct agent_binding *b, *more;
	struct ta_word w;
	char got[96];

	if (!ta_lex_word(&p->lx, &w))
		return 0;
	if (!ta_word_is(&w, "bind"))
		return ta_lex_fail(&p->lx, w.col, "expected a statement (bind), %s",
				   ta_word_got(&w, got, sizeof(got)));
	if (f->nr_binds == p->cap) {
		more = realloc(f->binds, (p->cap ? 2 * p->cap : 8) * sizeof(*more));
		if (!more)
			return ta_lex_fail(&p->lx, w.col, "out of memory");
		f->binds = more;
		p->cap = p->cap ? 2 * p->cap : 8;
	}
	b = &f->binds[f->nr_binds];
	memset(b, 0, sizeof(*b));
	b->path = f->path;
	b->line = p->lx.line;
	if (parse_bind(p, &w, b)) {
		binding_free(b);
		return -EINVAL;
	}
	f->nr_binds++;
	return 0;
}

static void file_free(struct agent_file *f)
{
	for (uint32_t i = 0; i < f->nr_binds; i++)
		binding_free(&f->binds[i]);
	free(f->binds);
	free(f->name);
	free(f->path);
	memset(f, 0, sizeof(*f));
}

static void files_free(struct agent_files *fs)
{
	for (uint32_t i = 0; i < fs->nr; i++)
		file_free(&fs->v[i]);
	free(fs->v);
	memset(fs, 0, sizeof(*fs));
}

/* Warnings for --check: what a binding names that is not here. */
static void binding_warnings(const struct agent_config *cfg, const struct agent_binding *b,
			     struct agent_report *r)
{
	bool watched = !b->netns || !strcmp(b->netns, "*");

	for (uint32_t i = 0; i < cfg->nr_netns && !watched; i++)
		watched = !strcmp(cfg->netns[i], b->netns);
	if (!watched)
		warn(r, "%s:%d: namespace %s is not watched: add 'netns %s' to agent.conf, or "
		     "this binding matches nothing", b->path, b->line, b->netns, b->netns);
	if (!strchr(b->policy, '{') && !agent_config_policy(cfg, b->policy))
		warn(r, "%s:%d: no policy %s in %s/policies: it must be loaded by hand "
		     "('tap-accel policy load %s FILE')", b->path, b->line, b->policy, cfg->dir,
		     b->policy);
}

/* One bindings.d file into f. 0, or -errno as failure() gives it (said). */
static int load_file(struct agent_config *cfg, struct agent_file *f, const char *dir,
		     const char *name, struct agent_report *r)
{
	struct bindings p = {.cfg = cfg, .file = f, .r = r};
	struct ta_error e;
	char *text = NULL;
	size_t len;
	int ret, more = 0;

	f->name = strdup(name);
	f->path = path_join(dir, name);
	ret = f->name && f->path ? 0 : ta_error_system(&e, ENOMEM, "out of memory");
	ret = ret ?: trusted_read(f->path, "binding file", CONFIG_MAX_BYTES, &text, &len, &e);
	if (!ret) {
		ta_lex_init(&p.lx, text, len, f->path, &e);
		while ((more = ta_lex_line(&p.lx)) > 0)
			if (parse_binding_line(&p) || ta_lex_line_end(&p.lx))
				break;
		ret = more ? -EINVAL : 0;
	}
	free(text);
	if (ret) {
		say(r, true, &e);
		return failure(&e);
	}
	for (uint32_t i = 0; i < f->nr_binds; i++)
		binding_warnings(cfg, &f->binds[i], r);
	return 0;
}

/* The file of that name in fs, or NULL. */
static struct agent_file *file_named(struct agent_files *fs, const char *name)
{
	for (uint32_t i = 0; fs && i < fs->nr; i++)
		if (fs->v[i].name && !strcmp(fs->v[i].name, name))
			return &fs->v[i];
	return NULL;
}

/*
 * Every binding file of `dir` into fs. A file with an error is said; with
 * `lenient` (the run folder) it is left out and the result is 0 all
 * the same, its last good version taken from `keep` if that has one.
 */
static int load_files(struct agent_config *cfg, const char *dir, struct agent_files *fs,
		      bool lenient, struct agent_files *keep, struct agent_report *r)
{
	struct agent_file *last;
	struct dirent **names;
	struct ta_error e;
	int n = list_dir(dir, is_binding_file, &names, &e), ret = 0, one;

	if (n > 0 && !(fs->v = calloc(n, sizeof(*fs->v))))
		n = -1, ta_error_system(&e, ENOMEM, "out of memory");
	if (n < 0) {
		say(r, true, &e);
		return system_failure(&e);
	}
	for (int i = 0; i < n; i++) {
		struct agent_file *f = &fs->v[fs->nr];

		one = load_file(cfg, f, dir, names[i]->d_name, r);
		if (!one) {
			fs->nr++;
			continue;
		}
		last = keep ? file_named(keep, names[i]->d_name) : NULL;
		file_free(f);
		if (last) { /* taken over: keep is freed after this */
			*f = *last;
			memset(last, 0, sizeof(*last));
			fs->nr++;
		}
		if (!lenient)
			ret = ret ?: one;
	}
	names_free(names, n);
	return ret;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp((*(const struct agent_file *const *)a)->name,
		      (*(const struct agent_file *const *)b)->name);
}

/* Both folders' files in the order they are read: by name, a file of
 * /run hiding its namesake of /etc. */
static int order_files(struct agent_config *cfg)
{
	uint32_t n = 0;

	free(cfg->order);
	cfg->order = calloc(cfg->etc.nr + cfg->run.nr + 1, sizeof(*cfg->order));
	if (!cfg->order)
		return -ENOMEM;
	cfg->nr_binds = 0;
	for (uint32_t i = 0; i < cfg->run.nr; i++)
		cfg->order[n++] = &cfg->run.v[i];
	for (uint32_t i = 0; i < cfg->etc.nr; i++)
		if (!file_named(&cfg->run, cfg->etc.v[i].name))
			cfg->order[n++] = &cfg->etc.v[i];
	qsort(cfg->order, n, sizeof(*cfg->order), cmp_file);
	for (uint32_t i = 0; i < n; i++)
		cfg->nr_binds += cfg->order[i]->nr_binds;
	cfg->nr_order = n;
	return 0;
}

/* ---- the whole ------------------------------------------------------------- */

/* The configuration folder must be there, even empty: a --config that
 * names no folder is a mistake, not an empty configuration. */
static int config_dir_check(const char *dir, struct agent_report *r)
{
	struct ta_error e;
	struct stat st;
	int err = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;

	if (!err && owner_check(dir, &st, "a folder", &e)) {
		say(r, true, &e);
		return -EINVAL;
	}
	if (!err)
		return 0;
	ta_error_input_at(&e, err, "%s: cannot read the configuration folder: %s; make it "
			  "(mkdir -p %s), even empty", dir, strerror(err), dir);
	say(r, true, &e);
	return -EINVAL;
}

static void unbound_warning(const struct agent_config *cfg, struct agent_report *r)
{
	if (cfg->unbound == TA_UNBOUND_POLICY && !agent_config_policy(cfg, cfg->unbound_policy))
		warn(r, "%s/agent.conf: no policy %s in %s/policies: it must be loaded by "
		     "hand for unbound taps", cfg->dir, cfg->unbound_policy, cfg->dir);
}

int agent_config_load(const char *dir, const char *run_dir, struct agent_config *prev,
		      struct agent_config *cfg, struct agent_report *r)
{
	char *etc_bindings = path_join(dir, "bindings.d");
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->dir = strdup(dir);
	cfg->run_dir = run_dir ? strdup(run_dir) : NULL;
	if (!cfg->dir || (run_dir && !cfg->run_dir) || !etc_bindings) {
		free(etc_bindings);
		agent_config_free(cfg);
		return -ENOMEM;
	}
	/* /etc first, all of it: an error there leaves prev as it is (the run
	 * folder is read all the same, to say its errors too) */
	ret = config_dir_check(dir, r);
	if (ret) {
		free(etc_bindings);
		agent_config_free(cfg);
		return ret;
	}
	ret = load_settings(cfg, r);
	ret = load_policies(cfg, r) ?: ret;
	ret = load_files(cfg, etc_bindings, &cfg->etc, false, NULL, r) ?: ret;
	free(etc_bindings);
	if (run_dir)
		ret = load_files(cfg, run_dir, &cfg->run, true, !ret && prev ? &prev->run : NULL, r)
		      ?: ret;
	if (!ret)
		ret = order_files(cfg);
	if (ret) {
		agent_config_free(cfg);
		return ret;
	}
	unbound_warning(cfg, r);
	return 0;
}

int agent_config_reload_run(struct agent_config *cfg, struct agent_report *r)
{
	struct agent_files old = cfg->run;
	int ret;

	memset(&cfg->run, 0, sizeof(cfg->run));
	ret = cfg->run_dir ? load_files(cfg, cfg->run_dir, &cfg->run, true, &old, r) : 0;
	if (ret) {
		files_free(&cfg->run);
		cfg->run = old;
		return ret;
	}
	files_free(&old);
	return order_files(cfg);
}

void agent_config_free(struct agent_config *cfg)
{
	for (uint32_t i = 0; i < cfg->nr_policies; i++) {
		ta_policy_spec_free(&cfg->policies[i].spec);
		free(cfg->policies[i].path);
	}
	for (uint32_t i = 0; i < cfg->nr_netns; i++)
		free(cfg->netns[i]);
	files_free(&cfg->etc);
	files_free(&cfg->run);
	free(cfg->policies);
	free(cfg->netns);
	free(cfg->order);
	free(cfg->metrics.textfile);
	free(cfg->metrics.listen);
	free(cfg->dir);
	free(cfg->run_dir);
	memset(cfg, 0, sizeof(*cfg));
}

/* ---- matching -------------------------------------------------------------- */

static bool binding_matches(const struct agent_binding *b, const struct agent_tap *tap,
			    struct captures *c)
{
	if (b->netns ? strcmp(b->netns, "*") && strcmp(b->netns, tap->netns)
		     : strcmp(tap->netns, AGENT_HOST_NETNS))
		return false;
	if (b->has_owner && (!tap->has_owner || tap->owner != b->owner))
		return false;
	if (b->has_group && (!tap->has_group || tap->group != b->group))
		return false;
	return pattern_match(&b->name, tap->ifname, c);
}

void agent_config_match(const struct agent_config *cfg, const struct agent_tap *tap,
			struct agent_want *w)
{
	struct captures c;

	memset(w, 0, sizeof(*w));
	for (uint32_t f = 0; f < cfg->nr_order; f++) {
		const struct agent_file *file = cfg->order[f];

		for (uint32_t i = 0; i < file->nr_binds; i++) {
			if (!binding_matches(&file->binds[i], tap, &c))
				continue;
			w->by = &file->binds[i];
			w->policy_bad = pattern_expand(&w->by->name, &c, w->by->policy, w->policy,
						       sizeof(w->policy)) ||
					ta_policy_name_valid(w->policy);
			return;
		}
	}
}

const struct agent_policy *agent_config_policy(const struct agent_config *cfg, const char *name)
{
	for (uint32_t i = 0; i < cfg->nr_policies; i++)
		if (!strcmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}
