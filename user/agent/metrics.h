/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* metrics.h - agent.conf's `metrics`: node_exporter's textfile and /metrics (metrics.c). */
#ifndef TA_AGENT_METRICS_H
#define TA_AGENT_METRICS_H

#include <poll.h>

#include "agent/state.h"

void agent_metrics_init(struct agent_exporter *x);
/* Serve and write what a.cfg's `metrics` asks for, from now on. */
void agent_metrics_sync(struct agent *a);
/* The fds to poll (fill at most 1 + AGENT_MAX_CLIENTS), and when the
 * loop must come back at the latest (ms, -1: never). */
int agent_metrics_fds(const struct agent *a, struct pollfd *fds);
int agent_metrics_timeout(const struct agent *a);
/* After poll: answer clients, accept one, write the textfile when due. */
void agent_metrics_turn(struct agent *a, const struct pollfd *fds, int n);
void agent_metrics_close(struct agent *a);

#endif /* TA_AGENT_METRICS_H */
