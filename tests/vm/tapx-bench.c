// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-bench - ns per write() of one frame into a tap (tapx or stock tun),
 * or into /dev/null (the floor). Static, for the VM.
 *   tapx-bench NODE NAME SIZE block|nonblock COUNT
 *   tapx-bench floor - SIZE block|nonblock COUNT
 * Prints: ns_per_frame failed_writes
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static unsigned char f[65536];
	int size, nonblock, fd;
	long count, i, bad = 0;
	double t0, t1;

	if (argc != 6) {
		fprintf(stderr,
			"usage: tapx-bench NODE|floor NAME SIZE block|nonblock COUNT\n");
		return 2;
	}
	size = atoi(argv[3]);
	nonblock = !strcmp(argv[4], "nonblock");
	count = atol(argv[5]);

	if (!strcmp(argv[1], "floor")) {
		fd = open("/dev/null", O_WRONLY | (nonblock ? O_NONBLOCK : 0));
	} else {
		struct ifreq ifr;

		fd = open(argv[1], O_RDWR | (nonblock ? O_NONBLOCK : 0));
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[2]);
		if (fd >= 0 && ioctl(fd, TUNSETIFF, &ifr) < 0) {
			perror("TUNSETIFF");
			return 1;
		}
	}
	if (fd < 0) {
		perror("open");
		return 1;
	}

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	f[12] = 0x08;
	f[13] = 0x00;
	/* Warm up, then measure. */
	for (i = 0; i < count / 10; i++)
		if (write(fd, f, size) != size)
			bad++;
	t0 = now_ns();
	for (i = 0; i < count; i++)
		if (write(fd, f, size) != size)
			bad++;
	t1 = now_ns();
	printf("%.0f %ld\n", (t1 - t0) / count, bad);
	close(fd);
	return bad ? 1 : 0;
}
