/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ctevents.h - the agent's reader of ta_ct_events (bpf/tap_accel.h): each
 * new connection the program refused at the table's or a tap's limit (at
 * most one a second a tap) is a line of the log, with the tap's name,
 * the limit, the count at it and the connection's ends.
 */
#ifndef TA_AGENT_CTEVENTS_H
#define TA_AGENT_CTEVENTS_H

#include <poll.h>

#include "agent/state.h"
#include "lib/plane/plane.h"

/* Read the events of the plane `pl` (open): from now on if it is not the
 * plane read so far. Said in the log when it cannot. */
void agent_ct_events_watch(struct agent *a, const struct ta_plane *pl);
/* The descriptor to poll, in *fd: 1, or 0 when no plane is read. */
int agent_ct_events_fds(const struct agent *a, struct pollfd *fd);
/* Log what is there to read. */
void agent_ct_events_read(struct agent *a);
void agent_ct_events_close(struct agent *a);

#endif /* TA_AGENT_CTEVENTS_H */
