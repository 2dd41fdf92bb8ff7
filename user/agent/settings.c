// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * settings.c - agent.conf and the policies/ folder (settings.h), in the
 * policy language's lexical rules (lib/base/lex.h); each file stops at its
 * first error, and every file is read, so that one pass names every file
 * at fault.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "agent/config_read.h"
#include "agent/settings.h"
#include "lib/base/lex.h"
#include "lib/plane/policies.h"
#include "lib/policy/parse.h"

/* A policy file: as `tap-accel policy load` takes. */
#define POLICY_MAX_BYTES (16u << 20)

/* ---- agent.conf ------------------------------------------------------------ */

struct settings {
	struct ta_lex lx;
	struct agent_config *cfg;
	int unbound_line, textfile_line, listen_line, source_line;
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
	    config_word(lx, &name, s->cfg->unbound_policy, TA_POLICY_NAME_LEN, "a policy name"))
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

	if (config_netns_name(&s->lx, w, name))
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

	if (config_word(&s->lx, w, text, sizeof(text), "ADDR:PORT"))
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

/* conntrack SETTING...: the words of `tap-accel conntrack set`, on as many
 * lines as wanted, each setting once in the file. */
static int parse_conntrack(struct settings *s, const struct ta_word *kw)
{
	struct ta_word words[64];
	char *argv[64];
	struct ta_error e;
	int argc = 0, at, ret, end_col;
	bool oom = false;

	while (argc < 64 && !oom && ta_lex_word(&s->lx, &words[argc])) {
		argv[argc] = strndup(words[argc].s, words[argc].len);
		oom = !argv[argc];
		argc += !oom;
	}
	end_col = argc ? words[argc - 1].col + words[argc - 1].len : kw->col + kw->len;
	if (oom)
		ret = ta_lex_fail(&s->lx, kw->col, "out of memory");
	else if (argc == 64)
		ret = ta_lex_fail(&s->lx, words[63].col, "a conntrack line of more than 63 words; "
				  "split it over more lines");
	else if (ta_ct_settings_parse(&s->cfg->conntrack, argc, argv, &at, &e))
		ret = ta_lex_fail(&s->lx, at < argc ? words[at].col : end_col, "conntrack: %s",
				  e.text);
	else
		ret = 0;
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return ret;
}

/* source pve DIR: the firewalls of Proxmox VE's VMs (pve.c), DIR its
 * /etc/pve. Another platform would be another word after `source`. */
static int parse_source(struct settings *s, const struct ta_word *kw)
{
	struct ta_lex *lx = &s->lx;
	struct ta_word what, dir;
	char got[96];

	if (s->source_line)
		return ta_lex_fail(lx, kw->col, "'source' given twice (first at line %d)",
				   s->source_line);
	s->source_line = lx->line;
	if (ta_lex_expect(lx, &what, "pve DIR", kw))
		return -EINVAL;
	if (!ta_word_is(&what, "pve"))
		return ta_lex_fail(lx, what.col, "expected pve DIR after 'source' (the one platform "
				   "the agent reads), %s", ta_word_got(&what, got, sizeof(got)));
	if (ta_lex_expect(lx, &dir, "a folder (/etc/pve)", &what))
		return -EINVAL;
	if (dir.s[0] != '/' || dir.len >= PATH_MAX)
		return ta_lex_fail(lx, dir.col, "expected the absolute path of Proxmox VE's "
				   "configuration folder (/etc/pve), got '%.*s'", dir.len, dir.s);
	s->cfg->pve_dir = strndup(dir.s, dir.len);
	return s->cfg->pve_dir ? 0 : ta_lex_fail(lx, dir.col, "out of memory");
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
	if (ta_word_is(&w, "conntrack"))
		return parse_conntrack(s, &w);
	if (ta_word_is(&w, "source"))
		return parse_source(s, &w);
	return ta_lex_fail(&s->lx, w.col, "expected a setting (unbound, netns, metrics, "
			   "conntrack or source), %s",
			   ta_word_got(&w, got, sizeof(got)));
}

int settings_load(struct agent_config *cfg, struct agent_report *r)
{
	struct settings s = {.cfg = cfg};
	struct ta_error e;
	char *path = config_path(cfg->dir, "agent.conf"), *text = NULL;
	size_t len;
	int ret = path ? 0 : ta_error_system(&e, ENOMEM, "out of memory"), more;

	struct stat st;

	if (!ret && lstat(path, &st) && errno == ENOENT)
		goto out;
	ret = ret ?: config_read(path, "configuration file", CONFIG_MAX_BYTES, &text, &len,
				 &e);
	if (!ret) {
		ta_lex_init(&s.lx, text, len, path, &e);
		while ((more = ta_lex_line(&s.lx)) > 0)
			if (parse_setting(&s) || ta_lex_line_end(&s.lx))
				break;
		ret = more ? -EINVAL : 0;
	}
	if (ret) {
		config_say(r, true, &e);
		ret = config_failure(&e);
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

static int load_policy(struct agent_policy *p, const char *dir, const char *file,
		       struct ta_error *e)
{
	char *text = NULL;
	size_t len = 0;
	int ret;

	p->path = config_path(dir, file);
	if (!p->path)
		return ta_error_system(e, ENOMEM, "out of memory");
	if (ta_policy_name_of_file(file, p->name))
		return ta_error_input_at(e, EINVAL,
					 "%s: its file name makes no policy name (1 to %d letters, digits, "
					 "'.', '_' or '-' before .policy); rename it", p->path,
					 TA_POLICY_NAME_LEN - 1);
	ret = config_read(p->path, "policy file", POLICY_MAX_BYTES, &text, &len, e);
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
	config_warn(r, "%s here: policy %s loads only once it is there", e.text, p->name);
}

int policies_load(struct agent_config *cfg, struct agent_report *r)
{
	struct dirent **names;
	struct ta_error e;
	char *dir = config_path(cfg->dir, "policies");
	int n = dir ? config_list(dir, is_policy_file, &names, &e) : -1, ret = 0;

	if (!dir)
		ta_error_system(&e, ENOMEM, "out of memory");
	if (n > 0 && !(cfg->policies = calloc(n, sizeof(*cfg->policies))))
		ta_error_system(&e, ENOMEM, "out of memory");
	if (n < 0 || (n > 0 && !cfg->policies)) {
		config_say(r, true, &e);
		ret = config_system_failure(&e);
		n = n < 0 ? 0 : n;
	}
	for (int i = 0; i < n && cfg->policies; i++) {
		struct agent_policy *p = &cfg->policies[cfg->nr_policies++];

		if (load_policy(p, dir, names[i]->d_name, &e)) {
			config_say(r, true, &e);
			ret = ret ?: config_failure(&e);
		} else {
			policy_lookups(p, r);
		}
	}
	config_names_free(names, n);
	free(dir);
	return ret;
}

const struct agent_policy *agent_config_policy(const struct agent_config *cfg, const char *name)
{
	for (uint32_t i = 0; i < cfg->nr_policies; i++)
		if (!strcmp(cfg->policies[i].name, name))
			return &cfg->policies[i];
	return NULL;
}
