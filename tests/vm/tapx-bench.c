// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-bench - ns per frame written into a tap (tapx or stock tun), or into
 * /dev/null (the floor). Static, for the VM.
 *   tapx-bench NODE NAME SIZE WRITER COUNT
 *   tapx-bench floor - SIZE block|nonblock|writev|uring COUNT
 *   tapx-bench copyfloor - SIZE WRITER COUNT
 * floor writes to /dev/null; copyfloor to /dev/copyfloor, which copies each
 * write or submitted frame once and drops it (tests/vm/copyfloor).
 * WRITER: block and nonblock: one write() per frame; writev: one writev()
 * per frame, Ethernet header and payload in two iovecs (as QEMU and
 * user/bench's writev writer pass a frame); uring: io_uring writes, 32
 * queued per io_uring_enter() (as user/bench's io_uring writer);
 * batchN: N frames per TAPXSUBMIT (tapx and copyfloor). All but block use
 * a nonblocking fd.
 *   tapx-bench -r NODE NAME SIZE nonblock COUNT
 * -r: a reader on CPU 1 takes the frames back from the tap, whose program
 * sends them there (XDP_TX), while the writer writes on CPU 0. The reader
 * polls, then reads without blocking until the queue is empty, as
 * user/bench's readers do.
 * Prints: ns_per_frame failed_writes [frames_not_read, with -r]
 *         [instructions_per_frame, where QEMU counts them: tests/vm/icount]
 * The writer runs on CPU 0; the instructions are CPU 0's (-r: and the
 * reader's CPU 1's).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/tapx.h>

#include "icount.h"
#include "tapx-test.h"

enum { W_WRITE, W_WRITEV, W_URING, W_BATCH };

#define URING_BATCH 32
static struct io_uring ring;

static long put_writev(int fd, const unsigned char *f, int size, long count)
{
	struct iovec iov[2] = {
		{.iov_base = (void *)f, .iov_len = 14},
		{.iov_base = (void *)(f + 14), .iov_len = size - 14},
	};
	long bad = 0;

	for (long i = 0; i < count; i++)
		if (writev(fd, iov, 2) != size)
			bad++;
	return bad;
}

static long put_uring(int fd, const unsigned char *f, int size, long count)
{
	struct io_uring_cqe *cqe;
	long bad = 0;

	while (count > 0) {
		unsigned int k = count < URING_BATCH ? count : URING_BATCH;
		unsigned int i, head, seen = 0, got;

		for (i = 0; i < k; i++)
			io_uring_prep_write(io_uring_get_sqe(&ring), fd, f,
					    size, 0);
		if (io_uring_submit_and_wait(&ring, k) < 0)
			return bad + count;
		while (seen < k) {
			got = 0;
			io_uring_for_each_cqe(&ring, head, cqe)
			{
				bad += cqe->res != size;
				got++;
			}
			io_uring_cq_advance(&ring, got);
			seen += got;
			if (seen < k && io_uring_wait_cqe(&ring, &cqe) < 0)
				return bad + count;
		}
		count -= k;
	}
	return bad;
}

/* count frames written the writer's way (batch frames per TAPXSUBMIT);
 * returns the frames not taken. */
static long put(int fd, const unsigned char *f, int size, long count,
		int writer, unsigned int batch)
{
	static struct tapx_desc d[TAPX_BATCH_MAX];
	long bad = 0;

	if (writer == W_WRITEV)
		return put_writev(fd, f, size, count);
	if (writer == W_URING)
		return put_uring(fd, f, size, count);
	if (writer == W_WRITE) {
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

struct reader {
	int fd, stop_fd;
	int size;
	atomic_long frames;
	pthread_t thread;
};

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = {{.fd = r->fd, .events = POLLIN},
				{.fd = r->stop_fd, .events = POLLIN}};
	static unsigned char buf[65536];
	ssize_t n;

	pin_cpu(1);
	while (poll(pfd, 2, -1) >= 0 || errno == EINTR) {
		if (pfd[1].revents)
			break;
		while ((n = read(r->fd, buf, sizeof(buf))) > 0)
			atomic_fetch_add(&r->frames, n == r->size);
	}
	return NULL;
}

/* Waits until the reader has taken all it will get: nothing new for 50 ms. */
static long reader_stop(struct reader *r)
{
	long last = -1, now;
	struct timespec ms10 = {.tv_nsec = 10000000};
	int idle = 0;

	while (idle < 5) {
		nanosleep(&ms10, NULL);
		now = atomic_load(&r->frames);
		idle = now == last ? idle + 1 : 0;
		last = now;
	}
	eventfd_write(r->stop_fd, 1);
	pthread_join(r->thread, NULL);
	return last;
}

static int reader_start(struct reader *r, int fd, int size)
{
	r->fd = fd;
	r->size = size;
	atomic_init(&r->frames, 0);
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0 || pthread_create(&r->thread, NULL, reader_main, r)) {
		fprintf(stderr, "tapx-bench: cannot start the reader\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static unsigned char f[65536];
	int size, nonblock, fd, writer = W_WRITE;
	struct reader reader;
	unsigned int batch = 0;
	long count, bad = 0;
	bool with_reader;
	double t0, t1, insns;
	struct icount ic;

	with_reader = argc > 1 && !strcmp(argv[1], "-r");
	argc -= with_reader;
	argv += with_reader;
	if (argc != 6 ||
	    (with_reader && (strcmp(argv[4], "nonblock") ||
			     !strcmp(argv[1], "floor") ||
			     !strcmp(argv[1], "copyfloor")))) {
		fprintf(stderr, "usage: tapx-bench NODE|floor|copyfloor NAME SIZE "
				"block|nonblock|writev|uring|batchN COUNT\n"
				"       tapx-bench -r NODE NAME SIZE nonblock COUNT\n");
		return 2;
	}
	size = atoi(argv[3]);
	nonblock = strcmp(argv[4], "block") != 0;
	if (!strcmp(argv[4], "writev")) {
		writer = W_WRITEV;
	} else if (!strcmp(argv[4], "uring")) {
		writer = W_URING;
		if (io_uring_queue_init(URING_BATCH, &ring, 0) < 0) {
			fprintf(stderr, "tapx-bench: io_uring_queue_init\n");
			return 1;
		}
	} else if (!strncmp(argv[4], "batch", 5)) {
		writer = W_BATCH;
		batch = atoi(argv[4] + 5);
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
	if (with_reader) {
		if (sysconf(_SC_NPROCESSORS_ONLN) < 2 || pin_cpu(0) < 0) {
			fprintf(stderr, "tapx-bench: -r needs CPUs 0 and 1\n");
			return 1;
		}
		if (reader_start(&reader, fd, size) < 0)
			return 1;
	} else if (icount_on() && pin_cpu(0) < 0) {
		fprintf(stderr, "tapx-bench: cannot run on CPU 0\n");
		return 1;
	}

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	f[12] = 0x08;
	f[13] = 0x00;
	/* Warm up, then measure. */
	bad += put(fd, f, size, count / 10, writer, batch);
	icount_begin();
	t0 = now_ns();
	bad += put(fd, f, size, count, writer, batch);
	t1 = now_ns();
	insns = icount_end(&ic) < 0 ? -1 : icount_of(&ic, with_reader ? -1 : 0, 0);
	if (with_reader) {
		long unread = count + count / 10 - bad - reader_stop(&reader);

		printf("%.0f %ld %ld", (t1 - t0) / count, bad, unread);
	} else {
		printf("%.0f %ld", (t1 - t0) / count, bad);
	}
	if (insns >= 0)
		printf(" %.1f", insns / count);
	printf("\n");
	close(fd);
	return bad ? 1 : 0;
}
