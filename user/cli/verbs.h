/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * verbs.h - the command tables of the verbs, one file (or two) each; main.c
 * puts them in one list. What they share is in common.h and lib/.
 */
#ifndef TA_CLI_VERBS_H
#define TA_CLI_VERBS_H

#include "common.h"

extern const struct command attach_cmd, detach_cmd;	/* attach.c */
extern const struct command policy_cmd;			/* policy.c */
extern const struct command explain_cmd;		/* explain.c, a subverb of policy */
extern const struct command import_cmd;			/* import.c, a subverb of policy */
extern const struct command import_nwfilter_cmd;	/* import_nwfilter.c */
extern const struct command import_pve_cmd;		/* import_pve.c, a format of import */
extern const struct command import_openstack_cmd;	/* import_openstack.c, a format of import */
extern const struct command fdb_cmd;			/* fdb.c */
extern const struct command conntrack_cmd;		/* conntrack.c */
extern const struct command guard_cmd;			/* guard.c */
extern const struct command status_cmd;			/* status.c */
extern const struct command stats_cmd;			/* stats.c */
extern const struct command clean_cmd;			/* clean.c */
extern const struct command bench_cmd;			/* bench.c */
/* Run tap-accel-bench, beside this program, with argv[0..argc-1]. Returns
 * only if it cannot: the exit code, said. */
int bench_exec(int argc, char **argv);
extern const struct command agent_cmd;			/* agent.c */

#endif /* TA_CLI_VERBS_H */
