/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * log.h - the agent's log: one line an event, on stderr (the journal).
 * Control bytes of a line (a file name's, a file's words) are written as
 * \xNN. Under systemd (JOURNAL_STREAM names stderr) each line starts with
 * its syslog level, <3> to <6>, which journald keeps; on a terminal, with
 * the time.
 */
#ifndef TA_AGENT_LOG_H
#define TA_AGENT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/state.h"

/* syslog(3)'s levels, as the journal reads them */
enum agent_level { AGENT_ERR = 3, AGENT_WARNING = 4, AGENT_INFO = 6 };

/* A line of level AGENT_ERR if it starts with "error:" or "fatal:",
 * AGENT_WARNING with "warning:", else AGENT_INFO. */
void agent_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void agent_log_at(enum agent_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "vmtap0 (host)", "vmtap0 (netns guests)": how the log names a tap. */
const char *agent_tap_name(const struct agent_ns *ns, const char *ifname, char *buf,
			   size_t size);

/* Errors are told once: whether `text` is not the one *last recorded
 * (which it becomes). *last = 0 forgets it. */
bool agent_news(uint64_t *last, const char *text);

#endif /* TA_AGENT_LOG_H */
