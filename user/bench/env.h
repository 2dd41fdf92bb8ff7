/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * env.h - everything a cell needs around the writer (env.c), the reader
 * threads that drain its taps (readers.c), the forwarding loop of the
 * forwarding cells (forward.c) and the counters that say what happened
 * (counters.c). struct bench_env is theirs alone; bench.c sees its API.
 */
#ifndef TA_BENCH_ENV_H
#define TA_BENCH_ENV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/if.h>
#include <linux/tapx.h>
#include <bpf/libbpf.h>

#include "options.h"
#include "bpf/tap_accel.h"
#include "lib/base/error.h"

/* Per-frame writers of a forwarding cell write this many, then read them
 * back. */
#define FWD_CHUNK 64

/* What the counters say happened to the frames of one cell (warm-up and
 * every repetition), as deltas over the cell. */
struct cell_counts {
	uint64_t written;      /* write calls that returned the frame size */
	uint64_t write_errors; /* short writes and errors */
	uint64_t verdict[TA_NR_VERDICTS]; /* program counters, key = XDP verdict */
	uint64_t tap_rx;       /* writer tap: frames taken into the stack */
	uint64_t tap_rx_dropped;
	uint64_t read; /* frames read back (TX, redirect, bridge, forwarding) */
	uint64_t read_lost; /* tx_dropped of the tap the reader drains */
};

struct uring_writer;

struct bench_env;
int env_enter_netns(struct ta_error *e);
struct bench_env *env_new(enum bench_driver d, const char *dev, int tag,
			   struct ta_error *e);
void env_free(struct bench_env *env);
int env_attach(struct bench_env *env, enum bench_prog p, struct ta_error *e);
void env_detach(struct bench_env *env, enum bench_prog p);
int env_set_frame_size(struct bench_env *env, size_t size, unsigned int *mtu,
		       struct ta_error *e);
int env_writer_fd(struct bench_env *env, bool nonblock);
int env_start_readers(struct bench_env *env, enum bench_prog p, int cpu,
		      size_t frame_size);
void env_quiesce_readers(struct bench_env *env);
void env_stop_readers(struct bench_env *env);
void env_counts(struct bench_env *env, enum bench_prog p,
		struct cell_counts *c);
/* The frame of a program that needs its own (PASS to the tap's address),
 * else NULL. */
const uint8_t *env_frame(struct bench_env *env, enum bench_prog p, int s);
/* Forwarding cells: before a timed loop (drain tap B, remind the bridge
 * where FWD_MAC_B is), after the last (drain what is late), and the loop
 * itself (write n frames into tap A in chunks, read each chunk back from
 * tap B). No-ops for other programs. */
void env_forward_prepare(struct bench_env *env, enum bench_prog p, size_t size);
void env_forward_finish(struct bench_env *env, enum bench_prog p, size_t size);
unsigned long env_forward(struct bench_env *env, enum bench_writer w,
			  const uint8_t *frame, size_t size, unsigned long n,
			  struct uring_writer *u, uint64_t *errors);


/* ---- inside the environment (env.c, readers.c, forward.c, counters.c) -- */

enum { TAP_WRITER, TAP_FAR, NR_TAPS };

/* Drains one tap so that TX and redirect have somewhere to go. */
struct reader {
	pthread_t thread;
	int fd;
	int stop_fd;	/* eventfd: stop polling */
	int cpu;	/* -1: not pinned */
	bool drain_all; /* own nonblocking fd: plain read() until EAGAIN */
	bool nowait_unsupported;
	bool running;
	size_t frame_size; /* count only frames of the cell's size */
	_Atomic uint64_t frames;
	_Atomic uint64_t strays; /* anything else the stack sent there */
};

struct bench_env {
	enum bench_driver driver;
	const char *dev; /* the driver's device node */
	int tag;  /* in interface names: one env per program */
	int sock; /* AF_INET datagram socket for interface ioctls */
	int tap_fd[NR_TAPS];
	int ifindex[NR_TAPS];
	char ifname[NR_TAPS][IFNAMSIZ];
	unsigned int mtu;
	char bridge[IFNAMSIZ];
	bool bridge_up;
	struct xdp_basic *basic;
	struct bpf_tc_hook tc_hook;
	struct policy_cell *policy;
	struct reader reader[NR_TAPS];
	uint8_t *own_frame[NR_SIZES]; /* PASS: to this tap's own address */
	/* Forwarding cells read frames back from the far tap themselves. */
	uint8_t *rbuf;
	size_t rbuf_slot;
	unsigned int rbuf_slots;
	struct tapx_desc rdesc[TAPX_BATCH_MAX];
};

/* readers.c: which tap's queue the frames of a program end up in (-1:
 * none), and the frames of the cell's size its readers took so far. */
int drained_tap(enum bench_prog p);
uint64_t reader_frames(struct bench_env *env);

#endif /* TA_BENCH_ENV_H */
