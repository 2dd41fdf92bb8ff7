/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * agent.h - `tap-accel agent` (docs/agent.md): one thread and one poll
 * loop that watch the links of the agent's own network namespace and of
 * those agent.conf names (rtnetlink), the adapters' runtime folder
 * (inotify) and signals, and bind each tap its configuration matches.
 * The plane (lib/) holds every binding; the agent keeps only what the
 * kernel told it of each namespace's links, to know what changed.
 *
 *   agent.c      the loop, signals, the runtime folder
 *   state.h      what the agent keeps; log.c its log
 *   netns.c      the namespaces watched and their links
 *   reconcile.c  the plane made what the configuration asks for
 *   config_load.c the configuration as a whole: settings.c agent.conf and
 *                policies/, bindings.c bindings.d and which binding
 *                decides for a tap, config_read.c what both read with;
 *                pattern.c the name patterns
 *   netlink.c    rtnetlink
 *   metrics.c    node_exporter's textfile and /metrics
 */
#ifndef TA_AGENT_AGENT_H
#define TA_AGENT_AGENT_H

#include "agent/state.h"

/* Run the agent until SIGTERM or SIGINT: 0, or when it cannot start
 * (said on stderr) -EINVAL for a configuration with errors, another
 * -errno when the system failed. */
int agent_run(const struct agent_opts *o);

#endif /* TA_AGENT_AGENT_H */
