// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * icount.c - guest instructions per cell from QEMU's instruction counter
 * (icount.h). The writer runs pinned to one CPU, and a cell counts that
 * vCPU alone: the other vCPU's housekeeping grows with wall time and would
 * make the figure as noisy as the clock.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "icount.h"
#include "icount_proto.h"

/* The plugin answers at once; a port this slow is not the plugin's. */
#define ICOUNT_ANSWER_MS 10000

static int icount_fd = -1;
static char icount_port[128];

int bench_icount_open(const char *port, struct ta_error *e)
{
	struct termios t;

	if (!port)
		port = getenv("vmicount");
	if (!port || !*port)
		return 0;
#ifndef __x86_64__
	return ta_error_system(e, ENOTSUP, "%s: the instruction counter's markers are x86-64 only",
			       port);
#endif
	snprintf(icount_port, sizeof(icount_port), "%s", port);
	icount_fd = open(port, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (icount_fd < 0 || tcgetattr(icount_fd, &t)) {
		int err = errno;

		bench_icount_close();
		return ta_error_system(e, err, "instruction counter on %s (vmicount= or --icount): %s",
				       port, strerror(err));
	}
	cfmakeraw(&t);
	cfsetspeed(&t, B115200);
	tcsetattr(icount_fd, TCSANOW, &t);
	return 0;
}

bool bench_icount_on(void)
{
	return icount_fd >= 0;
}

void bench_icount_begin(void)
{
	if (icount_fd < 0)
		return;
	/* Whatever a previous interval left unread is not this one's. */
	tcflush(icount_fd, TCIFLUSH);
#ifdef __x86_64__
	icount_mark_begin();
#endif
}

double bench_icount_end(int cpu, struct ta_error *e)
{
	char line[512];
	struct icount c;
	size_t at = 0;
	double n;

	if (icount_fd < 0)
		return -1;
#ifdef __x86_64__
	icount_mark_end();
#endif
	while (at < sizeof(line) - 1 && !memchr(line, '\n', at)) {
		struct pollfd p = {.fd = icount_fd, .events = POLLIN};
		ssize_t got;

		if (poll(&p, 1, ICOUNT_ANSWER_MS) <= 0)
			break;
		got = read(icount_fd, line + at, sizeof(line) - 1 - at);
		if (got <= 0)
			break;
		at += got;
	}
	line[at] = '\0';
	line[strcspn(line, "\r\n")] = '\0';
	if (icount_parse(line, &c)) {
		ta_error_system(e, EIO, "no count from the instruction counter on %s (got '%.60s')",
				icount_port, line);
		return -1;
	}
	n = icount_of(&c, cpu, 0);
	if (n < 0)
		ta_error_system(e, ERANGE, "the instruction counter knows %d vCPUs, not CPU %d",
				c.n_vcpus, cpu);
	return n;
}

void bench_icount_close(void)
{
	if (icount_fd >= 0)
		close(icount_fd);
	icount_fd = -1;
}
