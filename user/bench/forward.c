// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * forward.c - the forwarding cells: write into tap A in chunks and read
 * each chunk back from tap B in the writer's own thread.
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
#include "writers.h"

/* A forwarding cell waits this many times 1 ms for a frame still on its
 * way before it gives the rest of a chunk up (they count as lost). */
#define READ_BACK_WAITS 2

/* ---- forwarding: read back in the writer's thread ----------------------- */

static void count_read(struct reader *r, size_t got, size_t size)
{
	atomic_fetch_add_explicit(got == size ? &r->frames : &r->strays, 1,
				  memory_order_relaxed);
}

static int rbuf_reserve(struct bench_env *env, unsigned int slots, size_t size)
{
	size_t slot = (size + 64 + 63) & ~(size_t)63;
	uint8_t *buf;

	if (env->rbuf && env->rbuf_slots >= slots && env->rbuf_slot >= slot)
		return 0;
	if (slots < env->rbuf_slots)
		slots = env->rbuf_slots;
	if (slot < env->rbuf_slot)
		slot = env->rbuf_slot;
	buf = malloc(slots * slot);
	if (!buf)
		return -ENOMEM;
	free(env->rbuf);
	env->rbuf = buf;
	env->rbuf_slots = slots;
	env->rbuf_slot = slot;
	return 0;
}

/* One frame by read(); the far fd never blocks. Returns 1 for a frame of
 * the cell, 0 for anything else, -1 (errno) when there is none. */
static int recv_one(struct bench_env *env, size_t size)
{
	ssize_t n = read(env->tap_fd[TAP_FAR], env->rbuf, env->rbuf_slot);

	if (n < 0)
		return -1;
	count_read(&env->reader[TAP_FAR], n, size);
	return (size_t)n == size;
}

/* Up to `batch` frames with one TAPXRECV. Returns the frames of the cell
 * among them, -1 (errno) when none was taken. */
static int recv_batch(struct bench_env *env, unsigned int batch, size_t size)
{
	struct tapx_batch b = {.descs = (uintptr_t)env->rdesc, .count = batch};
	struct reader *r = &env->reader[TAP_FAR];
	int rc, mine = 0;

	for (unsigned int i = 0; i < batch; i++)
		env->rdesc[i] = (struct tapx_desc){
			.addr = (uintptr_t)(env->rbuf + i * env->rbuf_slot),
			.len = env->rbuf_slot};
	rc = ioctl(env->tap_fd[TAP_FAR], TAPXRECV, &b);
	if (b.done > batch)
		b.done = 0;
	if (rc < 0 && !b.done)
		return -1;
	for (unsigned int i = 0; i < b.done; i++) {
		size_t got = env->rdesc[i].status ? 0 : env->rdesc[i].len;

		count_read(r, got, size);
		mine += got == size;
	}
	return mine;
}

static bool far_readable(struct bench_env *env, int timeout_ms)
{
	struct pollfd pfd = {.fd = env->tap_fd[TAP_FAR], .events = POLLIN};

	return poll(&pfd, 1, timeout_ms) > 0 && (pfd.revents & POLLIN);
}

/* Read `want` frames back from the far tap, batched like the writer (0: one
 * read() each). A frame that does not come is lost: the far tap's
 * tx_dropped says so, or the final drain finds it late. */
static void read_back(struct bench_env *env, unsigned int batch, size_t size,
		      unsigned long want)
{
	int idle = 0;

	while (want && idle < READ_BACK_WAITS) {
		int got = batch ? recv_batch(env, batch, size)
				: recv_one(env, size);

		if (got > 0) {
			want -= (unsigned long)got < want ? (unsigned long)got
							  : want;
			idle = 0;
		} else if (got < 0) {
			if (errno != EAGAIN)
				break;
			if (!far_readable(env, 1))
				idle++;
		}
	}
}

static void drain_far(struct bench_env *env, size_t size, int quiet_ms)
{
	do {
		while (recv_one(env, size) >= 0)
			;
	} while (quiet_ms && far_readable(env, quiet_ms));
}

/* A frame from FWD_MAC_B into tap B: the bridge learns that FWD_MAC_B is
 * behind B and forwards the cell's frames to B alone. */
static void bridge_teach(struct bench_env *env)
{
	static const uint8_t b_ip[4] = {10, 0, 0, 2}, a_ip[4] = {10, 0, 0, 1};
	uint8_t *f = build_udp_frame(64, b_ip, a_ip);

	if (!f)
		return;
	set_frame_macs(f, fwd_mac_a, fwd_mac_b);
	if (write(env->tap_fd[TAP_FAR], f, 64) < 0) {
		/* the next repetition teaches again; losses would show */
	}
	free(f);
}

void env_forward_prepare(struct bench_env *env, enum bench_prog p, size_t size)
{
	if (!forward_prog(p) || rbuf_reserve(env, 1, size))
		return;
	drain_far(env, size, 0);
	if (p == PROG_FWD_BRIDGE)
		bridge_teach(env);
}

void env_forward_finish(struct bench_env *env, enum bench_prog p, size_t size)
{
	if (forward_prog(p) && !rbuf_reserve(env, 1, size))
		drain_far(env, size, 10);
}

unsigned long env_forward(struct bench_env *env, enum bench_writer w,
			  const uint8_t *frame, size_t size, unsigned long n,
			  struct uring_writer *u, uint64_t *errors)
{
	unsigned int batch = bench_batch[w];
	unsigned int chunk = batch ? batch : FWD_CHUNK;
	unsigned long done = 0;

	if (rbuf_reserve(env, batch ? batch : 1, size)) {
		*errors += n;
		errno = ENOMEM;
		return 0;
	}
	while (n) {
		unsigned long k = n < chunk ? n : chunk;
		unsigned long in = write_frames(w, env->tap_fd[TAP_WRITER],
						frame, size, k, u, errors);

		read_back(env, batch, size, in);
		done += in;
		n -= k;
	}
	return done;
}
