/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* reconcile.h - the plane made what the configuration asks for (reconcile.c). */
#ifndef TA_AGENT_RECONCILE_H
#define TA_AGENT_RECONCILE_H

#include "agent/state.h"

/*
 * Make the plane what the configuration asks for: with a->full every
 * policy, the unbound taps' action and every link of every namespace (and
 * what the agent bound that nothing asks for any more goes); else the
 * links that changed and the taps that went. 0, or -1 when the plane
 * could not be opened (said; the caller tries again later).
 */
int agent_reconcile(struct agent *a);

#endif /* TA_AGENT_RECONCILE_H */
