// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* log.c - the agent's log (log.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "lib/base/lex.h"
#include "lib/policy/digest.h"
#include "lib/policy/parse.h"
#include "lib/sys/util.h"

enum log_style { STYLE_UNKNOWN, STYLE_PLAIN, STYLE_JOURNAL, STYLE_TERMINAL };

/* Where stderr goes: the journal when JOURNAL_STREAM is stderr's
 * "DEVICE:INODE" (systemd.exec(5)), a terminal, or anything else. */
static enum log_style log_style(void)
{
	static enum log_style style = STYLE_UNKNOWN;
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (style != STYLE_UNKNOWN)
		return style;
	style = STYLE_PLAIN;
	if (js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && !fstat(STDERR_FILENO, &st) &&
	    st.st_dev == dev && st.st_ino == ino)
		style = STYLE_JOURNAL;
	else if (isatty(STDERR_FILENO))
		style = STYLE_TERMINAL;
	return style;
}

static void log_line(enum agent_level level, const char *fmt, va_list ap)
{
	char line[2048], shown[4096], head[48] = "";
	struct timeval tv;
	struct tm tm;

	vsnprintf(line, sizeof(line), fmt, ap);
	ta_escape_controls(line, shown, sizeof(shown));
	if (log_style() == STYLE_JOURNAL) {
		snprintf(head, sizeof(head), "<%d>", level);
	} else if (log_style() == STYLE_TERMINAL) {
		gettimeofday(&tv, NULL);
		localtime_r(&tv.tv_sec, &tm);
		strftime(head, sizeof(head), "%F %T", &tm);
		snprintf(head + strlen(head), sizeof(head) - strlen(head), ".%03ld ",
			 (long)tv.tv_usec / 1000);
	}
	/* one write a line: lines of a burst never mix in the journal */
	fprintf(stderr, "%s%s\n", head, shown);
}

void agent_log_at(enum agent_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_line(level, fmt, ap);
	va_end(ap);
}

void agent_log(const char *fmt, ...)
{
	enum agent_level level = AGENT_INFO;
	va_list ap;

	if (!strncmp(fmt, "error:", 6) || !strncmp(fmt, "fatal:", 6))
		level = AGENT_ERR;
	else if (!strncmp(fmt, "warning:", 8))
		level = AGENT_WARNING;
	va_start(ap, fmt);
	log_line(level, fmt, ap);
	va_end(ap);
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
