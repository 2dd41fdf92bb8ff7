/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * options.h - the benchmark's vocabulary, which every part of the harness
 * speaks: the dimensions of the matrix (driver, program, writer, frame,
 * size), their names, and the options of a run (options.c).
 */
#ifndef TA_BENCH_OPTIONS_H
#define TA_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

enum bench_driver { DRV_TUN, DRV_TAPX, DRV_MAX };

/* Rows of the table, in print order. FLOOR is write() to /dev/null. */
enum bench_prog {
	PROG_FLOOR,
	PROG_COPY, /* write() to /dev/copyfloor, where it is loaded */
	PROG_NONE,
	PROG_XDP_DROP_NATIVE,
	PROG_XDP_DROP_GENERIC,
	PROG_XDP_TX,
	PROG_XDP_REDIRECT,
	PROG_POLICY_1,
	PROG_POLICY_100,
	PROG_POLICY_1000,
	PROG_TC_DROP,
	PROG_BRIDGE,
	PROG_STACK_UDP,	   /* no program: UDP to the tap's own address */
	PROG_FWD_REDIRECT, /* XDP redirect A -> B, read back from B */
	PROG_FWD_BRIDGE,   /* Linux bridge A -> B, read back from B */
	PROG_MAX,
};

/*
 * The batch writers submit `bench_batch[w]` frames per TAPXSUBMIT (tapx
 * only). Stock tun has no batch ABI: in their groups its cells write one
 * frame per nonblocking write() and the floor is one write() per frame to
 * /dev/null, the references the batch is measured against.
 */
enum bench_writer {
	WR_BLOCK,
	WR_NONBLOCK,
	WR_WRITEV,
	WR_URING,
	WR_BATCH1,
	WR_BATCH8,
	WR_BATCH64,
	WR_BATCH256,
	WR_MAX
};

/* FRAME_FWD: unicast UDP from FWD_MAC_A to FWD_MAC_B, the frame the
 * forwarding cells send; a bridge has learned FWD_MAC_B behind tap B. */
enum bench_frame { FRAME_BASELINE, FRAME_UDP, FRAME_FWD, NR_FRAMES };

enum { SIZE_64, SIZE_1500, SIZE_9000, SIZE_65535, NR_SIZES };

#define BENCH_MAX_REPS 32

struct bench_opts {
	bool quick, full, json, pretty, vm;
	bool udp_frames;      /* --frame udp */
	unsigned long frames; /* per repetition, for frames of 1500 B or less */
	int reps;
	int warmup_pct;
	int cpu; /* writer CPU; -1 = choose */
	const char *icount_port; /* instruction counter; NULL: $vmicount */
	const char *out_dir;
	bool want_prog[PROG_MAX];
	bool want_writer[WR_MAX];
	bool want_size[NR_SIZES];
	bool want_driver[DRV_MAX];
	const char *dev[DRV_MAX]; /* each driver's device node */
};

/* What the command line gives as text or counts, before the matrix is
 * known; 0 and NULL: not given. */
struct bench_args {
	const char *programs, *writers, *sizes, *drivers;
	long frames, reps;
};

extern const char *const bench_driver_name[DRV_MAX];
/* Device node of each driver unless the options say otherwise. */
extern const char *const bench_default_dev[DRV_MAX];
extern const char *const bench_prog_name[PROG_MAX];
extern const char *const bench_prog_label[PROG_MAX];
extern const char *const bench_writer_name[WR_MAX];
extern const int bench_batch[WR_MAX]; /* frames per TAPXSUBMIT, or 0 */
extern const int bench_size[NR_SIZES];
extern const char *const bench_frame_name[NR_FRAMES];

static inline bool batch_writer(int w)
{
	return bench_batch[w] > 0;
}

/* The floors: no driver, no tap; measured once per (writer, size). */
static inline bool floor_prog(int p)
{
	return p == PROG_FLOOR || p == PROG_COPY;
}

/* Whether the cell forwards A -> B and reads the frames back itself. */
static inline bool forward_prog(int p)
{
	return p == PROG_FWD_REDIRECT || p == PROG_FWD_BRIDGE;
}

/* options.c: the index of `name` in names[n], or -1. */
int bench_name_index(const char *name, const char *const *names, int n);
/* The matrix of the mode `o` is in (quick, full, vm), narrowed by `a`.
 * 0, or -errno with the error in e. */
int bench_opts_finish(struct bench_opts *o, const struct bench_args *a, struct ta_error *e);

#endif /* TA_BENCH_OPTIONS_H */
