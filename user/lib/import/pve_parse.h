/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * pve_parse.h - the files of a Proxmox VE firewall as read, before any
 * translation: a .fw file (cluster.fw or VMID.fw: [OPTIONS], [ALIASES],
 * [IPSET name], [RULES], [group name]), the macros rules may name, and
 * the netN lines of a VM's configuration. Names of aliases, ipsets and
 * groups are kept lowercase, as Proxmox VE compares them.
 */
#ifndef TA_IMPORT_PVE_PARSE_H
#define TA_IMPORT_PVE_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"

/* What one file may hold; past these, the file is refused. */
#define PVE_MAX_FILE_BYTES (4u << 20)
#define PVE_MAX_LINE 4096
#define PVE_NAME_LEN 64

struct pve_rule {
	unsigned int line;
	bool enabled;		/* no leading '|' */
	char type;		/* 'I' IN, 'O' OUT, 'G' GROUP, '?' another word */
	char type_word[16];	/* as written */
	char action[PVE_NAME_LEN]; /* ACCEPT, DROP, REJECT, or the group's name */
	char macro[PVE_NAME_LEN];  /* "" or the macro of NAME(ACTION) */
	char iface[16];		/* -i, or "" */
	char *proto, *dport, *sport, *source, *dest, *icmp_type; /* NULL if absent */
	bool log;
};

struct pve_rules {
	struct pve_rule *v;
	unsigned int n;
};

struct pve_ipset_entry {
	unsigned int line;
	bool nomatch;		/* '!' */
	char text[80];		/* an address, a CIDR or an alias */
};

struct pve_ipset {
	char name[PVE_NAME_LEN];
	unsigned int line;
	struct pve_ipset_entry *v;
	unsigned int n;
};

struct pve_alias {
	char name[PVE_NAME_LEN];
	char cidr[80];
	unsigned int line;
};

struct pve_group {
	char name[PVE_NAME_LEN];
	unsigned int line;
	struct pve_rules rules;
};

/* An option given: its value and line (0: not given). */
struct pve_flag {
	int value; /* -1 not given */
	unsigned int line;
};

struct pve_fw {
	const char *path;
	bool cluster;	/* cluster.fw: its own options, groups allowed */
	struct pve_flag enable, macfilter, ipfilter, dhcp, ndp, radv, ips;
	char policy_in[8], policy_out[8]; /* "" when not given */
	unsigned int policy_in_line, policy_out_line;
	struct pve_alias *aliases;
	unsigned int nr_aliases;
	struct pve_ipset *ipsets;
	unsigned int nr_ipsets;
	struct pve_group *groups;
	unsigned int nr_groups;
	struct pve_rules rules;
};

/* Read a .fw file. A line Proxmox VE could not read at all is an error
 * ("FILE:LINE: ..."); rules are checked later, in their context. */
int pve_fw_read(const char *path, bool cluster, struct pve_fw *fw, struct ta_error *e);
/* The same from text (the tests). */
int pve_fw_parse(const char *text, size_t len, const char *path, bool cluster,
		 struct pve_fw *fw, struct ta_error *e);
/* Read a whole file of at most `max` bytes into *text (NUL-ended, the
 * caller's to free()). */
int pve_read_file(const char *path, size_t max, char **text, size_t *len, struct ta_error *e);
void pve_fw_free(struct pve_fw *fw);

const struct pve_alias *pve_fw_alias(const struct pve_fw *fw, const char *name);
const struct pve_ipset *pve_fw_ipset(const struct pve_fw *fw, const char *name);
const struct pve_group *pve_fw_group(const struct pve_fw *fw, const char *name);

/* ---- macros ------------------------------------------------------------ */

enum pve_family { PVE_ANY = 0, PVE_V4 = 4, PVE_V6 = 6 };

struct pve_macro_entry {
	const char *proto;	/* a name or number as a rule's -p takes it */
	const char *dport, *sport; /* NULL, or as -dport takes them */
	const char *icmp;	/* an ICMP(v6) type name, or NULL */
	enum pve_family family;	/* the entry only applies to this family */
};

/* The entries of macro `name` (any case), or NULL if there is none;
 * *canonical gets its name as Proxmox VE writes it. */
const struct pve_macro_entry *pve_macro(const char *name, unsigned int *nr,
					const char **canonical);

#endif /* TA_IMPORT_PVE_PARSE_H */
