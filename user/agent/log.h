/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* log.h - the agent's log: one line an event, on stderr (the journal). */
#ifndef TA_AGENT_LOG_H
#define TA_AGENT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/state.h"

void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "vmtap0 (host)", "vmtap0 (netns guests)": how the log names a tap. */
const char *agent_tap_name(const struct agent_ns *ns, const char *ifname, char *buf,
			   size_t size);

/* Errors are told once: whether `text` is not the one *last recorded
 * (which it becomes). *last = 0 forgets it. */
bool agent_news(uint64_t *last, const char *text);

#endif /* TA_AGENT_LOG_H */
