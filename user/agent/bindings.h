/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bindings.h - the bindings.d/ *.conf files (bindings.c), as config_load.c
 * reads them into an agent_config; agent_config_match() (config.h) then
 * says which binding decides for a tap.
 */
#ifndef TA_AGENT_BINDINGS_H
#define TA_AGENT_BINDINGS_H

#include <stdbool.h>

#include "agent/config.h"

/*
 * Every binding file of `dir` into fs. A file with an error is said; with
 * `lenient` (the run folder) it is left out and the result is 0 all
 * the same, its last good version taken from `keep` if that has one.
 */
int bindings_load(struct agent_config *cfg, const char *dir, struct agent_files *fs,
		  bool lenient, struct agent_files *keep, struct agent_report *r);
/* cfg->order: both folders' files in the order they are read. 0 or -ENOMEM. */
int bindings_order(struct agent_config *cfg);
void bindings_free(struct agent_files *fs);

#endif /* TA_AGENT_BINDINGS_H */
