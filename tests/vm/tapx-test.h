/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-test.h - what the VM's static test tools share: the PASS/FAIL line
 * that suite-all.sh counts, and opening a tap. Header-only: every tool is
 * one .c file built alone by tests/vm/run.sh.
 */
#ifndef TAPX_TEST_H
#define TAPX_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int failures;
static int quiet; /* print failures only */

/* One check: a "PASS ..." or "FAIL ..." line; failures are counted. */
static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok && quiet)
		return;
	printf("%s ", ok ? "PASS" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

/* A fresh fd of NODE attached to tap NAME (NULL: a new name); fd or -errno. */
static int tap_open(const char *node, const char *name, int flags, int oflags)
{
	struct ifreq ifr;
	int fd = open(node, O_RDWR | oflags);

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	if (name)
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

#endif /* TAPX_TEST_H */
