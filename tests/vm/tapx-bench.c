// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-bench - ns per frame written into a tap (tapx or stock tun), or into
 * /dev/null (the floor). Static, for the VM.
 *   tapx-bench NODE NAME SIZE block|nonblock|batchN COUNT
 *   tapx-bench floor - SIZE block|nonblock COUNT
 *   tapx-bench copyfloor - SIZE block|nonblock|batchN COUNT
 * floor writes to /dev/null; copyfloor to /dev/copyfloor, which copies each
 * write or submitted frame once and drops it (tests/vm/copyfloor).
 * block and nonblock: one write() per frame; batchN: N frames per
 * TAPXSUBMIT (tapx and copyfloor, nonblocking fd).
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

#include "tapx-test.h"
#include "tapx.h"

/* count frames, batch per TAPXSUBMIT (batch 0: one write() each); returns
 * the frames not taken. */
static long put(int fd, const unsigned char *f, int size, long count,
		unsigned int batch)
{
	static struct tapx_desc d[TAPX_BATCH_MAX];
	long bad = 0;

	if (!batch) {
		for (long i = 0; i < count; i++)
			if (write(fd, f, size) != size)
				bad++;
		return bad;
	}
	for (unsigned int i = 0; i < batch; i++)
		d[i] = (struct tapx_desc){.addr = (unsigned long)f,
					  .len = size};
	while (count > 0) {
		unsigned int k = count < batch ? count : batch;
		struct tapx_batch b = {.descs = (unsigned long)d, .count = k};

		ioctl(fd, TAPXSUBMIT, &b);
		bad += k - (b.done <= k ? b.done : 0);
		for (unsigned int i = 0; i < b.done && i < k; i++)
			bad += d[i].status != 0;
		count -= k;
	}
	return bad;
}

int main(int argc, char **argv)
{
	static unsigned char f[65536];
	int size, nonblock, fd;
	unsigned int batch = 0;
	long count, bad = 0;
	double t0, t1;

	if (argc != 6) {
		fprintf(stderr, "usage: tapx-bench NODE|floor|copyfloor NAME SIZE "
				"block|nonblock|batchN COUNT\n");
		return 2;
	}
	size = atoi(argv[3]);
	nonblock = !strcmp(argv[4], "nonblock");
	if (!strncmp(argv[4], "batch", 5)) {
		batch = atoi(argv[4] + 5);
		nonblock = 1;
		if (!batch || batch > TAPX_BATCH_MAX) {
			fprintf(stderr, "tapx-bench: batch 1..%d\n",
				TAPX_BATCH_MAX);
			return 2;
		}
	}
	count = atol(argv[5]);

	if (!strcmp(argv[1], "floor") || !strcmp(argv[1], "copyfloor")) {
		fd = open(argv[1][0] == 'f' ? "/dev/null" : "/dev/copyfloor",
			  O_WRONLY | (nonblock ? O_NONBLOCK : 0));
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
	bad += put(fd, f, size, count / 10, batch);
	t0 = now_ns();
	bad += put(fd, f, size, count, batch);
	t1 = now_ns();
	printf("%.0f %ld\n", (t1 - t0) / count, bad);
	close(fd);
	return bad ? 1 : 0;
}
