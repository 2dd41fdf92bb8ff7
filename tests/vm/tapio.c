// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tapio in the guest: tests/host/tapio.c, the host suite's frame writer
 * and reader, unchanged, built static for the busybox guest, with its taps
 * opened through the character device $TAPIO_NODE (/dev/net/tapx) instead
 * of /dev/net/tun when that is set. Same options, same report ("sent N tx
 * N redirect N pass N"), so suite-plane.sh judges tapx taps as the host
 * suite judges stock tun's.
 *
 * One more verb, for the hundreds of taps suite-plane.sh binds (a process
 * per tap would cost seconds under TCG):
 *   tapio --mk NODE PREFIX N     persistent taps PREFIX1..PREFIXN, up
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "tapx-test.h"

static int node_open(const char *path, int flags, ...);
static int tapio_main(int argc, char **argv);

#define open node_open
#define main tapio_main
#include "../host/tapio.c"
#undef open
#undef main

static int node_open(const char *path, int flags, ...)
{
	const char *node = getenv("TAPIO_NODE");

	if (node && *node && !strcmp(path, "/dev/net/tun"))
		path = node;
	return open(path, flags);
}

static int mk_taps(const char *node, const char *prefix, int n)
{
	char name[IFNAMSIZ];

	for (int i = 1; i <= n; i++) {
		int fd;

		snprintf(name, sizeof(name), "%s%d", prefix, i);
		fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, 0);
		if (fd < 0) {
			fprintf(stderr, "tapio --mk %s: %s\n", name, strerror(-fd));
			return 1;
		}
		if (ioctl(fd, TUNSETPERSIST, 1) < 0) {
			fprintf(stderr, "tapio --mk %s: TUNSETPERSIST: %s\n", name, strerror(errno));
			return 1;
		}
		close(fd);
		if (if_up(name, 1)) {
			fprintf(stderr, "tapio --mk %s: up: %s\n", name, strerror(errno));
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--mk"))
		return mk_taps(argv[2], argv[3], atoi(argv[4]));
	return tapio_main(argc, argv);
}
