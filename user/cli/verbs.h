/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * verbs.h - the verbs of the tap-accel CLI, one file (or two) each, and
 * the little they share: main.c calls cmd_*; attach.c reads and applies a
 * policy file through policy.c; policy.c hands 'policy explain' to
 * explain.c. Everything else is in common.h and lib/.
 */
#ifndef TA_CLI_VERBS_H
#define TA_CLI_VERBS_H

#include "common.h"
#include "lib/policy.h"

/* Parse a policy file and resolve its interfaces (policy.c); prints
 * errors. 0 or an exit code. */
int policy_read(const char *file, struct ta_policy_spec *spec);
/* Write a resolved policy into an instance's maps; prints errors. */
int policy_apply(const char *ifname, const struct ta_maps *maps,
		 const struct ta_policy_spec *spec);

int cmd_attach(int argc, char **argv);
int cmd_detach(int argc, char **argv);
int cmd_policy(int argc, char **argv);
/* policy explain, in explain.c. */
int cmd_policy_explain(int argc, char **argv);
int cmd_fdb(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_clean(int argc, char **argv);
/* bench.c: the command line of the benchmark (user/bench/). */
int cmd_bench(int argc, char **argv);

#endif /* TA_CLI_VERBS_H */
