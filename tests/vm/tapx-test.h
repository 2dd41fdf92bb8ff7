/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-test.h - what the VM's static test tools share: the PASS/FAIL line
 * that suite-all.sh counts, opening a tap, packet sockets for test
 * frames, and trace marks for the no-skb proofs. Header-only: every tool is
 * one .c file built alone by tests/vm/run.sh.
 */
#ifndef TAPX_TEST_H
#define TAPX_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <stdint.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
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

/* Frames of the tests carry this ethertype (IEEE local experimental). */
#define ETHERTYPE_TEST 0x88b5

/* A packet socket on NAME that sees every frame; -1 on error. */
static inline int packet_open(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int s, sz = 16 << 20;

	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0)
		return -1;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(name);
	if (bind(s, (void *)&sll, sizeof(sll)) < 0) {
		close(s);
		return -1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	return s;
}

/* Receives test frames (not our own transmissions) from a packet socket. */
static inline int packet_recv(int s, uint8_t *buf, int len, int timeout_ms)
{
	struct sockaddr_ll from;
	socklen_t fl = sizeof(from);
	struct pollfd p = { .fd = s, .events = POLLIN };
	int n;

	for (;;) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recvfrom(s, buf, len, MSG_DONTWAIT, (void *)&from, &fl);
		if (n < 0)
			return -1;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (n >= 14 && buf[12] == ETHERTYPE_TEST >> 8 &&
		    buf[13] == (ETHERTYPE_TEST & 0xff))
			return n;
	}
}

/* With $ENV set, writes M into the trace buffer (begin/end of a loop). */
static inline void trace_mark(const char *env, const char *m)
{
	int fd;

	if (!getenv(env))
		return;
	fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	if (fd < 0)
		fd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, m, strlen(m)) < 0)
			perror("trace_marker");
		close(fd);
	}
}

#endif /* TAPX_TEST_H */
