// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* log.c - the agent's log (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "agent/log.h"
#include "lib/policy_parse.h"

void agent_log(const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* one write a line: lines of a burst never mix in the journal */
	fprintf(stderr, "%s\n", line);
}

const char *agent_tap_name(const struct agent_ns *ns, const char *ifname, char *buf,
			   size_t size)
{
	snprintf(buf, size, "%s (%s)", ifname, ns->label);
	return buf;
}

bool agent_news(uint64_t *last, const char *text)
{
	uint64_t hash = ta_digest(text, strlen(text)) | 1;
	bool news = hash != *last;

	*last = hash;
	return news;
}
