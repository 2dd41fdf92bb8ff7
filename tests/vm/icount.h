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
 * stays out of it.
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

#define ICOUNT_VCPUS 16

struct icount {
	double total, user, kernel;
	double vcpu_user[ICOUNT_VCPUS], vcpu_kernel[ICOUNT_VCPUS];
	int n_vcpus;
};

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
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 'N', 'C', 'B', 'N'" ::: "memory");
}

/* The instructions since icount_begin(), or -1 without the plugin. */
static inline double icount_end(struct icount *c)
{
	char line[512], *p;
	size_t at = 0;
	int n = 0;

	if (!icount_on())
		return -1;
	__asm__ volatile(".byte 0x0f, 0x1f, 0x80, 'N', 'C', 'E', 'N'" ::: "memory");
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
	memset(c, 0, sizeof(*c));
	if (sscanf(line, "icount %lf %lf %lf%n", &c->total, &c->user, &c->kernel, &n) != 3) {
		fprintf(stderr, "icount: no count from the plugin on %s (got '%s')\n",
			getenv("vmicount"), line);
		exit(1);
	}
	for (p = line + n; c->n_vcpus < ICOUNT_VCPUS; p += n)
		if (sscanf(p, " %lf %lf%n", &c->vcpu_user[c->n_vcpus],
			   &c->vcpu_kernel[c->n_vcpus], &n) == 2)
			c->n_vcpus++;
		else
			break;
	return c->total;
}

/* The instructions of vCPU cpu in c, or every vCPU's where cpu < 0; with
 * kernel_only, kernel space's alone (a cell whose user space waits by
 * spinning, as tapx-vhost's guests do, would count its waiting). */
static inline double icount_of(const struct icount *c, int cpu, int kernel_only)
{
	if (cpu < 0)
		return kernel_only ? c->kernel : c->total;
	if (cpu >= c->n_vcpus)
		return -1;
	return c->vcpu_kernel[cpu] + (kernel_only ? 0 : c->vcpu_user[cpu]);
}

#endif
