// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * pve_parse.c - a Proxmox VE .fw file as it is written (the
 * administration guide's firewall chapter, "Configuration Files"): one
 * statement a line, '#' comments, sections [OPTIONS], [ALIASES],
 * [IPSET name], [RULES] and, in cluster.fw, [group name]. A line that
 * cannot be read is an error naming FILE:LINE: the whole file is refused,
 * so that nothing is enforced from half of it. Whether a rule makes sense
 * (its macro, its aliases, its ports) is judged where it is used.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pve_parse.h"

enum section { S_NONE, S_OPTIONS, S_ALIASES, S_IPSET, S_RULES, S_GROUP };

struct reader {
	struct pve_fw *fw;
	const char *path;
	unsigned int line;
	enum section section;
	struct ta_error *e;
};

int pve_read_file(const char *path, size_t max, char **text, size_t *len, struct ta_error *e)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return ta_error_input(e, errno, "%s: cannot read it: %s", path, strerror(errno));
	buf = malloc(max + 1);
	if (!buf) {
		fclose(f);
		return ta_error_errno(e, ENOMEM, "%s: cannot read it", path);
	}
	n = fread(buf, 1, max + 1, f);
	if (ferror(f)) {
		int err = errno;

		free(buf);
		fclose(f);
		return ta_error_input(e, err, "%s: cannot read it: %s", path, strerror(err));
	}
	fclose(f);
	if (n > max) {
		free(buf);
		return ta_error_input(e, EFBIG, "%s: larger than %zu KiB, more than a firewall "
				      "configuration holds: is it the right file?", path, max >> 10);
	}
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static int fail(struct reader *r, const char *fmt, const char *what)
{
	char msg[PVE_MAX_LINE + 512];

	snprintf(msg, sizeof(msg), fmt, what);
	return ta_error_input_at(r->e, EINVAL, "%s:%u: %s", r->path, r->line, msg);
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n >= PVE_NAME_LEN || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = tolower((unsigned char)*s);
}

#define PUSH(r, arr, cnt)                                                          \
	({                                                                         \
		void *_p = realloc((arr), ((cnt) + 1) * sizeof(*(arr)));           \
		_p ? ((arr) = _p, memset(&(arr)[(cnt)], 0, sizeof(*(arr))), &(arr)[(cnt)++]) \
		   : NULL;                                                         \
	})

/* ---- sections ------------------------------------------------------------ */

/* "[KIND name] # comment": the name, lowercase, into name. */
static int section_name(struct reader *r, const char *line, size_t kind_len, char *name)
{
	const char *p = line + kind_len, *end;
	char buf[PVE_MAX_LINE];

	while (*p == ' ' || *p == '\t')
		p++;
	end = strchr(p, ']');
	if (!end || end == p)
		return fail(r, "expected '%s NAME]'", "[IPSET or [group");
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - p), p);
	for (char *q = buf + strlen(buf); q > buf && (q[-1] == ' ' || q[-1] == '\t');)
		*--q = '\0';
	if (!valid_name(buf))
		return fail(r, "'%s' is not a name Proxmox VE takes (a letter, then letters, digits, "
			    "'-' or '_', 2 to 63 of them)", buf);
	p = end + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p && *p != '#')
		return fail(r, "unexpected '%s' after the section's name", p);
	strcpy(name, buf);
	lower(name);
	return 0;
}

/* "[ipset ...", "[group ...": `kind` (lowercase) and a blank */
static bool is_section(const char *line, const char *kind)
{
	size_t n = strlen(kind);

	return !strncasecmp(line, kind, n) && (line[n] == ' ' || line[n] == '\t');
}

/* The name of a new [IPSET name] or [group name], not given before. */
static int named_section(struct reader *r, const char *line, const char *kind, char *name)
{
	bool ipset = kind[0] == 'I';
	char what[PVE_NAME_LEN + 16];
	int ret = section_name(r, line, strlen(kind) + 1, name);

	if (ret)
		return ret;
	if (ipset ? !pve_fw_ipset(r->fw, name) : !pve_fw_group(r->fw, name))
		return 0;
	snprintf(what, sizeof(what), "[%s %s]", kind, name);
	return fail(r, "a second %s", what);
}

static int read_section(struct reader *r, const char *line)
{
	struct pve_fw *fw = r->fw;
	char name[PVE_NAME_LEN];
	int ret;

	if (!strcasecmp(line, "[options]")) {
		r->section = S_OPTIONS;
		return 0;
	}
	if (!strcasecmp(line, "[aliases]")) {
		r->section = S_ALIASES;
		return 0;
	}
	if (!strcasecmp(line, "[rules]")) {
		r->section = S_RULES;
		return 0;
	}
	if (is_section(line, "[ipset")) {
		struct pve_ipset *s;

		if ((ret = named_section(r, line, "IPSET", name)))
			return ret;
		if (!(s = PUSH(r, fw->ipsets, fw->nr_ipsets)))
			return ta_error_errno(r->e, ENOMEM, "%s", r->path);
		strcpy(s->name, name);
		s->line = r->line;
		r->section = S_IPSET;
		return 0;
	}
	if (is_section(line, "[group")) {
		struct pve_group *g;

		if (!fw->cluster)
			return fail(r, "security groups are cluster.fw's: move %s there", line);
		if ((ret = named_section(r, line, "group", name)))
			return ret;
		if (!(g = PUSH(r, fw->groups, fw->nr_groups)))
			return ta_error_errno(r->e, ENOMEM, "%s", r->path);
		strcpy(g->name, name);
		g->line = r->line;
		r->section = S_GROUP;
		return 0;
	}
	return fail(r, "unknown section %s (Proxmox VE has [OPTIONS], [ALIASES], [IPSET name], "
		    "[RULES] and, in cluster.fw, [group name])", line);
}

/* ---- [OPTIONS] ----------------------------------------------------------- */

static int read_flag(struct reader *r, struct pve_flag *f, const char *key, const char *value)
{
	if (strcmp(value, "0") && strcmp(value, "1"))
		return fail(r, "option %s takes 0 or 1", key);
	f->value = value[0] - '0';
	f->line = r->line;
	return 0;
}

static const char *const log_levels[] = { "emerg", "alert", "crit", "err", "warning", "notice",
					   "info", "debug", "nolog", NULL };

static int read_option(struct reader *r, char *line)
{
	struct pve_fw *fw = r->fw;
	char *colon = strchr(line, ':'), *value, *key = line;
	struct {
		const char *name;
		struct pve_flag *flag;
	} flags[] = {
		{ "enable", &fw->enable }, { "macfilter", &fw->macfilter },
		{ "ipfilter", &fw->ipfilter }, { "dhcp", &fw->dhcp }, { "ndp", &fw->ndp },
		{ "radv", &fw->radv }, { "ips", &fw->ips },
	};

	if (!colon)
		return fail(r, "expected 'OPTION: VALUE', got '%s'", line);
	*colon = '\0';
	value = colon + 1;
	while (*value == ' ' || *value == '\t')
		value++;
	lower(key);
	if (fw->cluster) {
		/* the datacenter's options: only whether the firewall is on counts here */
		if (!strcmp(key, "enable"))
			return read_flag(r, &fw->enable, key, value);
		return 0;
	}
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (!strcmp(key, flags[i].name))
			return read_flag(r, flags[i].flag, key, value);
	if (!strcmp(key, "policy_in") || !strcmp(key, "policy_out")) {
		bool in = key[7] == 'i';

		if (strcmp(value, "ACCEPT") && strcmp(value, "DROP") && strcmp(value, "REJECT"))
			return fail(r, "%s takes ACCEPT, DROP or REJECT", key);
		strcpy(in ? fw->policy_in : fw->policy_out, value);
		*(in ? &fw->policy_in_line : &fw->policy_out_line) = r->line;
		return 0;
	}
	if (!strcmp(key, "log_level_in") || !strcmp(key, "log_level_out")) {
		for (int i = 0; log_levels[i]; i++)
			if (!strcmp(value, log_levels[i]))
				return 0; /* logging is not tap-accel's: docs/proxmox.md */
		return fail(r, "%s takes a log level (emerg ... debug, nolog)", key);
	}
	if (!strcmp(key, "ips_queues"))
		return 0;
	return fail(r, "unknown option '%s' (a VM's are enable, policy_in, policy_out, macfilter, "
		    "ipfilter, dhcp, ndp, radv, log_level_in, log_level_out, ips, ips_queues)", key);
}

/* ---- [ALIASES] and [IPSET] ----------------------------------------------- */

static char *strip_comment(char *line)
{
	char *hash = strchr(line, '#');

	if (hash)
		*hash = '\0';
	for (char *q = line + strlen(line); q > line && isspace((unsigned char)q[-1]);)
		*--q = '\0';
	return line;
}

static int read_alias(struct reader *r, char *line)
{
	char name[PVE_MAX_LINE], cidr[PVE_MAX_LINE], extra[8];
	struct pve_alias *a;

	strip_comment(line);
	if (sscanf(line, "%s %s %7s", name, cidr, extra) != 2)
		return fail(r, "expected 'NAME ADDRESS' in [ALIASES], got '%s'", line);
	if (!valid_name(name))
		return fail(r, "'%s' is not an alias name (a letter, then letters, digits, '-' or "
			    "'_')", name);
	if (strlen(cidr) >= sizeof(a->cidr))
		return fail(r, "'%s' is not an address or CIDR", cidr);
	lower(name);
	if (pve_fw_alias(r->fw, name))
		return fail(r, "a second alias %s", name);
	if (!(a = PUSH(r, r->fw->aliases, r->fw->nr_aliases)))
		return ta_error_errno(r->e, ENOMEM, "%s", r->path);
	strcpy(a->name, name);
	strcpy(a->cidr, cidr);
	a->line = r->line;
	return 0;
}

static int read_ipset_entry(struct reader *r, char *line)
{
	struct pve_ipset *s = &r->fw->ipsets[r->fw->nr_ipsets - 1];
	struct pve_ipset_entry *en;
	char *p = strip_comment(line);
	bool nomatch = false;

	if (*p == '!') {
		nomatch = true;
		p++;
		while (*p == ' ' || *p == '\t')
			p++;
	}
	if (!*p || strpbrk(p, " \t") || strlen(p) >= sizeof(en->text))
		return fail(r, "expected an address, a CIDR or an alias (with '!' to exclude it) in "
			    "[IPSET], got '%s'", line);
	if (!(en = PUSH(r, s->v, s->n)))
		return ta_error_errno(r->e, ENOMEM, "%s", r->path);
	en->line = r->line;
	en->nomatch = nomatch;
	strcpy(en->text, p);
	return 0;
}

/* ---- [RULES] and [group] ------------------------------------------------- */

static char **rule_field(struct pve_rule *rule, const char *opt)
{
	if (*opt == '-')
		opt++; /* --dport as -dport */
	if (!strcmp(opt, "p") || !strcmp(opt, "proto"))
		return &rule->proto;
	if (!strcmp(opt, "dport"))
		return &rule->dport;
	if (!strcmp(opt, "sport"))
		return &rule->sport;
	if (!strcmp(opt, "source"))
		return &rule->source;
	if (!strcmp(opt, "dest"))
		return &rule->dest;
	if (!strcmp(opt, "icmp-type"))
		return &rule->icmp_type;
	return NULL;
}

static int read_rule_options(struct reader *r, struct pve_rule *rule, char *save)
{
	char *opt, *val, **field;

	while ((opt = strtok_r(NULL, " \t", &save))) {
		if (opt[0] != '-')
			return fail(r, "expected a rule option (-i, -p, -dport, -sport, -source, "
				    "-dest, -icmp-type, -log), got '%s'", opt);
		val = strtok_r(NULL, " \t", &save);
		if (!val)
			return fail(r, "option %s needs a value", opt);
		if (!strcmp(opt, "-i")) {
			if (strlen(val) >= sizeof(rule->iface))
				return fail(r, "-i %s: not an interface netN", val);
			strcpy(rule->iface, val);
			continue;
		}
		if (rule->type == 'G')
			return fail(r, "a GROUP rule takes -i only, not %s", opt);
		if (!strcmp(opt, "-log") || !strcmp(opt, "--log")) {
			bool known = false;

			for (int i = 0; log_levels[i]; i++)
				known |= !strcmp(val, log_levels[i]);
			if (!known)
				return fail(r, "-log takes a log level (emerg ... debug, nolog), not '%s'",
					    val);
			rule->log = strcmp(val, "nolog");
			continue;
		}
		field = opt[1] == '-' || opt[1] ? rule_field(rule, opt + 1) : NULL;
		if (!field)
			return fail(r, "unknown rule option '%s'", opt);
		if (*field)
			return fail(r, "option %s given twice", opt);
		if (!(*field = strdup(val)))
			return ta_error_errno(r->e, ENOMEM, "%s", r->path);
	}
	return 0;
}

static int read_rule(struct reader *r, char *line, struct pve_rules *rules)
{
	char *save, *type, *action, *open;
	struct pve_rule *rule;
	char *p = strip_comment(line);

	if (!(rule = PUSH(r, rules->v, rules->n)))
		return ta_error_errno(r->e, ENOMEM, "%s", r->path);
	rule->line = r->line;
	rule->enabled = *p != '|';
	if (*p == '|')
		p++;
	type = strtok_r(p, " \t", &save);
	action = type ? strtok_r(NULL, " \t", &save) : NULL;
	if (!action)
		return fail(r, "expected 'IN|OUT ACTION [OPTIONS]' or 'GROUP NAME', got '%s'", line);
	snprintf(rule->type_word, sizeof(rule->type_word), "%s", type);
	rule->type = !strcasecmp(type, "in")	? 'I'
		     : !strcasecmp(type, "out")	? 'O'
		     : !strcasecmp(type, "group") ? 'G'
						  : '?';
	if (strlen(action) >= sizeof(rule->action))
		return fail(r, "'%s' is not an action", action);
	open = strchr(action, '(');
	if (rule->type != 'G' && open && open > action && action[strlen(action) - 1] == ')') {
		/* Macro(ACTION) */
		snprintf(rule->macro, sizeof(rule->macro), "%.*s", (int)(open - action), action);
		snprintf(rule->action, sizeof(rule->action), "%.*s",
			 (int)(strlen(open) - 2), open + 1);
	} else {
		strcpy(rule->action, action);
	}
	if (rule->type == 'G')
		lower(rule->action);
	return read_rule_options(r, rule, save);
}

/* ---- the file ------------------------------------------------------------- */

static int read_line(struct reader *r, char *line)
{
	struct pve_fw *fw = r->fw;

	if (line[0] == '[')
		return read_section(r, strip_comment(line));
	switch (r->section) {
	case S_NONE:
		return fail(r, "'%s' is in no section: start it with [OPTIONS], [RULES], ...", line);
	case S_OPTIONS:
		return read_option(r, strip_comment(line));
	case S_ALIASES:
		return read_alias(r, line);
	case S_IPSET:
		return read_ipset_entry(r, line);
	case S_RULES:
		return read_rule(r, line, &fw->rules);
	case S_GROUP:
		return read_rule(r, line, &fw->groups[fw->nr_groups - 1].rules);
	}
	return 0;
}

int pve_fw_parse(const char *text, size_t len, const char *path, bool cluster,
		 struct pve_fw *fw, struct ta_error *e)
{
	struct reader r = { .fw = fw, .path = path, .e = e };
	const char *p = text, *end = text + len;
	char line[PVE_MAX_LINE];
	int ret = 0;

	memset(fw, 0, sizeof(*fw));
	fw->path = path;
	fw->cluster = cluster;
	fw->enable.value = fw->macfilter.value = fw->ipfilter.value = -1;
	fw->dhcp.value = fw->ndp.value = fw->radv.value = fw->ips.value = -1;
	while (p < end && !ret) {
		const char *nl = memchr(p, '\n', end - p), *s, *t;
		size_t n;

		if (!nl)
			nl = end;
		r.line++;
		if (memchr(p, '\0', nl - p)) {
			ret = fail(&r, "%s", "a NUL byte: this is not a text file");
			break;
		}
		/* blanks around the line do not count */
		for (s = p; s < nl && isspace((unsigned char)*s); s++)
			;
		for (t = nl; t > s && isspace((unsigned char)t[-1]); t--)
			;
		n = t - s;
		p = nl + 1;
		if (n >= sizeof(line)) {
			ret = fail(&r, "a line longer than %s characters", "4095");
			break;
		}
		if (!n || *s == '#')
			continue;
		memcpy(line, s, n);
		line[n] = '\0';
		ret = read_line(&r, line);
	}
	if (ret)
		pve_fw_free(fw);
	return ret;
}

int pve_fw_read(const char *path, bool cluster, struct pve_fw *fw, struct ta_error *e)
{
	char *text;
	size_t len;
	int ret = pve_read_file(path, PVE_MAX_FILE_BYTES, &text, &len, e);

	if (ret)
		return ret;
	ret = pve_fw_parse(text, len, path, cluster, fw, e);
	free(text);
	return ret;
}

static void free_rules(struct pve_rules *rules)
{
	for (unsigned int i = 0; i < rules->n; i++) {
		struct pve_rule *r = &rules->v[i];

		free(r->proto);
		free(r->dport);
		free(r->sport);
		free(r->source);
		free(r->dest);
		free(r->icmp_type);
	}
	free(rules->v);
}

void pve_fw_free(struct pve_fw *fw)
{
	for (unsigned int i = 0; i < fw->nr_ipsets; i++)
		free(fw->ipsets[i].v);
	for (unsigned int i = 0; i < fw->nr_groups; i++)
		free_rules(&fw->groups[i].rules);
	free_rules(&fw->rules);
	free(fw->ipsets);
	free(fw->groups);
	free(fw->aliases);
	memset(fw, 0, sizeof(*fw));
}

const struct pve_alias *pve_fw_alias(const struct pve_fw *fw, const char *name)
{
	for (unsigned int i = 0; fw && i < fw->nr_aliases; i++)
		if (!strcasecmp(fw->aliases[i].name, name))
			return &fw->aliases[i];
	return NULL;
}

const struct pve_ipset *pve_fw_ipset(const struct pve_fw *fw, const char *name)
{
	for (unsigned int i = 0; fw && i < fw->nr_ipsets; i++)
		if (!strcasecmp(fw->ipsets[i].name, name))
			return &fw->ipsets[i];
	return NULL;
}

const struct pve_group *pve_fw_group(const struct pve_fw *fw, const char *name)
{
	for (unsigned int i = 0; fw && i < fw->nr_groups; i++)
		if (!strcasecmp(fw->groups[i].name, name))
			return &fw->groups[i];
	return NULL;
}
