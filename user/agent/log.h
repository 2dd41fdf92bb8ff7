/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* log.h - the agent's log: one line an event, on stderr (the journal). */
#ifndef TA_AGENT_LOG_H
#define TA_AGENT_LOG_H

#include <stddef.h>

#include "agent/state.h"

void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "vmtap0 (host)", "vmtap0 (netns guests)": how the log names a tap. */
const char *agent_tap_name(const struct agent_ns *ns, const char *ifname, char *buf,
			   size_t size);

#endif /* TA_AGENT_LOG_H */
