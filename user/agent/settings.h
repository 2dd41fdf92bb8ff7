/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * settings.h - agent.conf and policies/NAME.policy (settings.c), as
 * config_load.c reads them into an agent_config.
 */
#ifndef TA_AGENT_SETTINGS_H
#define TA_AGENT_SETTINGS_H

#include "agent/config.h"

/* agent.conf, which may be missing: every setting then has its default.
 * 0, or -errno as config_failure() gives it (said through r). */
int settings_load(struct agent_config *cfg, struct agent_report *r);
/* Every policy file of policies/; the same results. */
int policies_load(struct agent_config *cfg, struct agent_report *r);

#endif /* TA_AGENT_SETTINGS_H */
