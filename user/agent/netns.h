/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* netns.h - the network namespaces the agent watches and their links (netns.c). */
#ifndef TA_AGENT_NETNS_H
#define TA_AGENT_NETNS_H

#include <stdbool.h>

#include "agent/state.h"

/* The namespaces of a.cfg: the agent's own first, then agent.conf's,
 * opened where they are. The ones of before that a.cfg keeps stay as
 * they are; the others close. -errno when the agent's own fails. */
int agent_ns_sync(struct agent *a);
/* Look at /run/netns again: a namespace gone closes, one come (or made
 * anew under its name) opens. */
void agent_ns_recheck(struct agent *a);
/* Whether a namespace of the configuration is not there. */
bool agent_ns_missing(const struct agent *a);
/* Read what the kernel queued on the namespace's socket into its links. */
void agent_ns_read(struct agent *a, struct agent_ns *ns);
/* Whether a dump is under way anywhere. */
bool agent_ns_dumping(const struct agent *a);
/* Enter the namespace (0 or -errno), and come back to the agent's own. */
int agent_ns_enter(const struct agent *a, const struct agent_ns *ns);
void agent_ns_leave(const struct agent *a);
void agent_ns_close_all(struct agent *a);

#endif /* TA_AGENT_NETNS_H */
