/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * openstack_int.h - what the two halves of the OpenStack importer share:
 * openstack.c (the rules) and openstack_port.c (the port: its guard, its
 * groups, its port security). Not an interface of the library.
 */
#ifndef TA_IMPORT_OPENSTACK_INT_H
#define TA_IMPORT_OPENSTACK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/json_read.h"
#include "openstack.h"

#define RULE_LIST "`openstack security group rule list --long -f json`"

struct prefix {
	int family; /* AF_INET, AF_INET6 */
	unsigned char addr[16];
	int len;
};

struct remote_group {
	const char *arg; /* "ID=PREFIX,...", for messages */
	char id[128];
	struct prefix *prefixes;
	size_t nr;
};

struct translation {
	const struct ta_openstack_input *in;
	struct ta_import *im;
	struct ta_error *e;
	const char *path;		/* the file being read */
	struct remote_group *groups;	/* from in->remote_groups */
	size_t nr_groups;
	struct ta_json port;		/* the port's JSON, or empty */
	const struct ta_json *port_groups; /* its security_group_ids, or NULL */
	const char *file_group;		/* a group's own file: its ID, else NULL */
	char **written;			/* the rules written, to leave out repeats */
	size_t nr_written, cap_written;
	uint32_t room;			/* how many a two-way policy holds */
};

/* "ADDRESS[/LEN]": 0, or -1 when it is neither. *host_bits: bits set past
 * the length (cleared in p). */
int ta_os_prefix_parse(const char *s, struct prefix *p, bool *host_bits);
const char *ta_os_prefix_str(const struct prefix *p, char *buf, size_t size);

/* "FILE:LINE:COL: MSG" at value v of the file being read; -EINVAL. */
int ta_os_fail_at(struct translation *t, const struct ta_json *v, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Read the port (t->in->port_path): 1 when its port security is off
 * (Neutron then filters nothing: `default pass` written), else 0 with
 * its guard written and its groups in t->port_groups; or -errno. */
int ta_os_read_port(struct translation *t);
/* Whether the port (if given) has group `id`. */
bool ta_os_port_has_group(const struct translation *t, const char *id);

#endif /* TA_IMPORT_OPENSTACK_INT_H */
