/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest's side of the instruction counter (tests/vm/icount/icount.c,
 * a QEMU TCG plugin): icount_begin() and icount_end() around the work to
 * count; icount_end() returns the instructions every vCPU executed
 * between them. The plugin answers on the serial port the kernel argument
 * vmicount= names (tests/vm/run.sh sets it when it loads the plugin);
 * without it icount_on() is false and icount_end() returns -1.
 * A cell pinned to one CPU reads that vCPU's count (icount_of()): the
 * other vCPU's housekeeping, whose count grows with the run's wall time,
 * stays out of it. The markers, struct icount and icount_of() are the
 * protocol's, shared with tap-accel-bench (user/bench/icount_proto.h).
 */
#ifndef TAPX_ICOUNT_H
#define TAPX_ICOUNT_H

#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "../../user/bench/icount_proto.h"

static int icount_fd = -2;

/* Whether the plugin counts; opens its port the first time. */
static inline int icount_on(void)
{
	const char *port = getenv("vmicount");
	struct termios t;

	if (icount_fd != -2)
		return icount_fd >= 0;
	icount_fd = -1;
	if (!port || !*port)
		return 0;
	icount_fd = open(port, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (icount_fd < 0 || tcgetattr(icount_fd, &t)) {
		fprintf(stderr, "icount: cannot open %s (vmicount=): %m\n", port);
		exit(1);
	}
	cfmakeraw(&t);
	cfsetspeed(&t, B115200);
	tcsetattr(icount_fd, TCSANOW, &t);
	return 1;
}

/* The markers: long NOPs whose displacement the plugin looks for. */
static inline void icount_begin(void)
{
	if (!icount_on())
		return;
	tcflush(icount_fd, TCIFLUSH);
	icount_mark_begin();
}

/* The instructions since icount_begin(), or -1 without the plugin. */
static inline double icount_end(struct icount *c)
{
	char line[512];
	size_t at = 0;

	if (!icount_on())
		return -1;
	icount_mark_end();
	while (at < sizeof(line) - 1) {
		struct pollfd p = {.fd = icount_fd, .events = POLLIN};
		ssize_t n;

		if (poll(&p, 1, 10000) <= 0)
			break;
		n = read(icount_fd, line + at, sizeof(line) - 1 - at);
		if (n <= 0)
			break;
		at += n;
		if (memchr(line, '\n', at))
			break;
	}
	line[at] = 0;
	if (icount_parse(line, c)) {
		fprintf(stderr, "icount: no count from the plugin on %s (got '%s')\n",
			getenv("vmicount"), line);
		exit(1);
	}
	return c->total;
}

#endif
