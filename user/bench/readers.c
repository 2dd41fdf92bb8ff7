// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * readers.c - reader threads that drain a cell's taps, so that TX and
 * redirect have somewhere to go, and count what they took.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "env.h"

#define READ_BUF 65536

/* ---- readers ------------------------------------------------------------ */

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Read one frame without blocking, whatever the fd's O_NONBLOCK says (tun
 * honours RWF_NOWAIT); falls back to read() once poll said there is one. */
static ssize_t read_nowait(struct reader *r, void *buf, size_t len)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	ssize_t n;

	if (r->drain_all)
		return read(r->fd, buf, len);
	n = preadv2(r->fd, &iov, 1, -1, RWF_NOWAIT);
	if (n < 0 && errno == EOPNOTSUPP) {
		r->nowait_unsupported = true;
		return read(r->fd, buf, len);
	}
	return n;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = {{.fd = r->fd, .events = POLLIN},
				{.fd = r->stop_fd, .events = POLLIN}};
	static __thread uint8_t buf[READ_BUF];

	pin_to(r->cpu);
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* Drain until the queue is empty; one frame per wake-up if
		 * this fd can only block. */
		do {
			ssize_t n = read_nowait(r, buf, sizeof(buf));

			if (n < 0)
				break;
			atomic_fetch_add_explicit((size_t)n == r->frame_size
							  ? &r->frames
							  : &r->strays,
						  1, memory_order_relaxed);
		} while (!r->nowait_unsupported);
	}
	return NULL;
}

static int reader_start(struct reader *r, int fd, bool drain_all, int cpu,
			size_t frame_size)
{
	r->fd = fd;
	r->frame_size = frame_size;
	r->drain_all = drain_all;
	r->cpu = cpu;
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0)
		return -errno;
	if (pthread_create(&r->thread, NULL, reader_main, r)) {
		close(r->stop_fd);
		return -EAGAIN;
	}
	r->running = true;
	return 0;
}

/* Which tap's queue the frames of a program end up in, if any. */
int drained_tap(enum bench_prog p)
{
	switch (p) {
	case PROG_XDP_TX:
		return TAP_WRITER;
	case PROG_XDP_REDIRECT:
	case PROG_BRIDGE:
	case PROG_FWD_REDIRECT:
	case PROG_FWD_BRIDGE:
		return TAP_FAR;
	default:
		return -1;
	}
}

int env_start_readers(struct bench_env *env, enum bench_prog p, int cpu,
		      size_t frame_size)
{
	int t = drained_tap(p);

	int err;

	/* Forwarding cells read back in the writer's own thread. */
	if (t < 0 || forward_prog(p))
		return 0;
	err = reader_start(&env->reader[t], env->tap_fd[t], t == TAP_FAR, cpu,
			   frame_size);
	/* Whatever was queued before this cell is not part of it. */
	if (!err)
		env_quiesce_readers(env);
	return err;
}

static uint64_t reader_total(struct bench_env *env)
{
	uint64_t n = 0;

	for (int t = 0; t < NR_TAPS; t++)
		n += atomic_load(&env->reader[t].frames) +
		     atomic_load(&env->reader[t].strays);
	return n;
}

uint64_t reader_frames(struct bench_env *env)
{
	uint64_t n = 0;

	for (int t = 0; t < NR_TAPS; t++)
		n += atomic_load(&env->reader[t].frames);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Whether a running reader's tap still has frames queued. */
static bool readers_behind(struct bench_env *env)
{
	for (int t = 0; t < NR_TAPS; t++) {
		struct pollfd pfd = {.fd = env->reader[t].fd, .events = POLLIN};

		if (env->reader[t].running && poll(&pfd, 1, 0) > 0 &&
		    (pfd.revents & POLLIN))
			return true;
	}
	return false;
}

/* Wait until the readers have drained their queues: nothing queued and
 * nothing read for two rounds of 10 ms (a frame may be in flight in a
 * qdisc), at most two seconds. */
void env_quiesce_readers(struct bench_env *env)
{
	uint64_t last = reader_total(env);

	for (int idle = 0, round = 0; idle < 2 && round < 200; round++) {
		sleep_ms(10);
		uint64_t now = reader_total(env);

		idle = now == last && !readers_behind(env) ? idle + 1 : 0;
		last = now;
	}
}

void env_stop_readers(struct bench_env *env)
{
	bool any = false;

	for (int t = 0; t < NR_TAPS; t++)
		any |= env->reader[t].running;
	if (!any)
		return;
	env_quiesce_readers(env);
	for (int t = 0; t < NR_TAPS; t++) {
		struct reader *r = &env->reader[t];
		uint64_t one = 1;

		if (!r->running)
			continue;
		if (write(r->stop_fd, &one, sizeof(one)) < 0) {
			/* an eventfd write cannot fail here */
		}
		pthread_join(r->thread, NULL);
		close(r->stop_fd);
		r->running = false;
	}
}
