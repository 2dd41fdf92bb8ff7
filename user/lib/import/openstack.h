/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * openstack.h - OpenStack security groups (Neutron) as a policy: the rules
 * as `openstack security group rule list -f json` prints them, from one
 * or more files (a port with several groups gets their union), and the
 * port as `openstack port show -f json` prints it, for its guard and to
 * pick its groups' rules. docs/guests.md says what is enforced, what is
 * refused and how it differs from Neutron's firewall drivers.
 */
#ifndef TA_IMPORT_OPENSTACK_H
#define TA_IMPORT_OPENSTACK_H

#include <stddef.h>

#include "import.h"

/* Larger files are refused: a project's whole rule list is far smaller. */
#define TA_OPENSTACK_MAX_FILE (16u << 20)

struct ta_openstack_input {
	const char *const *rule_paths;	/* the rule lists */
	size_t nr_rule_paths;
	const char *port_path;		/* the port, or NULL: no guard, every rule */
	/* "ID=PREFIX[,PREFIX...]": the addresses of the member ports of a
	 * remote security group, or of a remote address group, by its ID. */
	const char *const *remote_groups;
	size_t nr_remote_groups;
};

/*
 * Translate into `im` (opened by the caller, closed by it with
 * ta_import_close()). 0, or -errno with the place ("FILE:LINE:COL: rule
 * ID: ...") and the construct in `e`.
 */
int ta_import_openstack(const struct ta_openstack_input *in, struct ta_import *im,
			struct ta_error *e);

#endif /* TA_IMPORT_OPENSTACK_H */
