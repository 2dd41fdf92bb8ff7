// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bindings.c - the bindings.d grammar (docs/agent.md): the `bind` lines of
 * the configuration folder's bindings.d/ and of the runtime folder the
 * adapters write to, and which binding decides for a tap (bindings.h,
 * config.h).
 */
#include <dirent.h>
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/bindings.h"
#include "agent/config_read.h"
#include "lib/base/lex.h"
#include "lib/plane/guard.h"
#include "lib/plane/policies.h"
#include "lib/policy/guard_parse.h"

/* ---- bindings.d ------------------------------------------------------------ */

static int is_binding_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 5 && !strcmp(d->d_name + n - 5, ".conf");
}

/* A user or group: a name of the system's, or a number. */
static int id_of(struct ta_lex *lx, const struct ta_word *w, bool group, uint32_t *id)
{
	struct passwd *pw = NULL;
	struct group *gr = NULL;
	char name[256], *end;
	unsigned long n;

	if (config_word(lx, w, name, sizeof(name), group ? "a group" : "a user"))
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

	if (config_netns_name(&p->lx, w, name))
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

	if (config_word(&p->lx, w, params, sizeof(params), "mac=MAC,ip=ADDRESS,..."))
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

void bindings_free(struct agent_files *fs)
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
		config_warn(r, "%s:%d: namespace %s is not watched: add 'netns %s' to agent.conf, "
			    "or this binding matches nothing", b->path, b->line, b->netns, b->netns);
	if (!strchr(b->policy, '{') && !agent_config_policy(cfg, b->policy))
		config_warn(r, "%s:%d: no policy %s in %s/policies: it must be loaded by hand "
			    "('tap-accel policy load %s FILE')", b->path, b->line, b->policy,
			    cfg->dir, b->policy);
}

/* One bindings.d file into f. 0, or -errno as config_failure() gives it
 * (said). */
static int load_file(struct agent_config *cfg, struct agent_file *f, const char *dir,
		     const char *name, struct agent_report *r)
{
	struct bindings p = {.cfg = cfg, .file = f, .r = r};
	struct ta_error e;
	char *text = NULL;
	size_t len;
	int ret, more = 0;

	f->name = strdup(name);
	f->path = config_path(dir, name);
	ret = f->name && f->path ? 0 : ta_error_system(&e, ENOMEM, "out of memory");
	ret = ret ?: config_read(f->path, "binding file", CONFIG_MAX_BYTES, &text, &len, &e);
	if (!ret) {
		ta_lex_init(&p.lx, text, len, f->path, &e);
		while ((more = ta_lex_line(&p.lx)) > 0)
			if (parse_binding_line(&p) || ta_lex_line_end(&p.lx))
				break;
		ret = more ? -EINVAL : 0;
	}
	free(text);
	if (ret) {
		config_say(r, true, &e);
		return config_failure(&e);
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
int bindings_load(struct agent_config *cfg, const char *dir, struct agent_files *fs,
		  bool lenient, struct agent_files *keep, struct agent_report *r)
{
	struct agent_file *last;
	struct dirent **names;
	struct ta_error e;
	int n = config_list(dir, is_binding_file, &names, &e), ret = 0, one;

	if (n > 0 && !(fs->v = calloc(n, sizeof(*fs->v))))
		n = -1, ta_error_system(&e, ENOMEM, "out of memory");
	if (n < 0) {
		config_say(r, true, &e);
		return config_system_failure(&e);
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
	config_names_free(names, n);
	return ret;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp((*(const struct agent_file *const *)a)->name,
		      (*(const struct agent_file *const *)b)->name);
}

/* Both folders' files in the order they are read: by name, a file of
 * /run hiding its namesake of /etc. */
int bindings_order(struct agent_config *cfg)
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
