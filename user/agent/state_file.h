/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* state_file.h - the agent's lock and state file, beside its runtime folder (state.c). */
#ifndef TA_AGENT_STATE_FILE_H
#define TA_AGENT_STATE_FILE_H

#include "agent/state.h"

/* a->state_dir: the folder above the runtime folder. 0 or -errno. */
int agent_state_dir(struct agent *a);
/* Hold AGENT_LOCK_FILE (its fd in *lock_fd) for as long as the agent
 * runs, or say which agent holds it: 0, or -errno (said; -EAGAIN: another
 * agent holds it). */
int agent_lock(struct agent *a, int *lock_fd);
/* AGENT_STATE_FILE written anew, atomically; a->health's tap counts too. */
void agent_state_write(struct agent *a);

#endif /* TA_AGENT_STATE_FILE_H */
