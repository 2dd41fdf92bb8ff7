/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * matrix.h - the cells of a run and the run itself: what bench.c measures
 * and report.c prints.
 */
#ifndef TA_BENCH_MATRIX_H
#define TA_BENCH_MATRIX_H

#include "options.h"
#include "env.h"

enum cell_status {
	CELL_SKIPPED, /* not in this run's matrix */
	CELL_PENDING, /* planned, not run yet */
	CELL_OK,
	CELL_NA,     /* impossible here; why says what is missing */
	CELL_ABSENT, /* the driver itself is missing */
	CELL_FAILED, /* setup or writes failed; why says how */
};

struct cell {
	enum bench_driver driver;
	enum bench_prog prog;
	enum bench_writer writer;
	int size_idx;
	enum bench_frame frame;
	enum cell_status status;
	char why[128];
	unsigned long frames; /* per repetition */
	int reps;
	/* Per-frame ns of each repetition: wall time minus the time the
	 * writer waited for its CPU while another process ran there. */
	double ns[BENCH_MAX_REPS];
	double wall_ns[BENCH_MAX_REPS]; /* per-frame wall time, as measured */
	double median, min, max;	/* over ns[] */
	double median_wall;		/* over wall_ns[] */
	/* Guest instructions per frame of each repetition on the writer's
	 * vCPU, where QEMU counts them (icount.h); median_insns < 0: not
	 * counted. */
	double insns[BENCH_MAX_REPS];
	double median_insns;
	unsigned int mtu;
	struct cell_counts counts;
	bool accounted; /* counters explain every frame written */
	char fate[64];	/* counters in a few words, for the table */
};

struct bench_run {
	struct bench_opts opts;
	struct cell cells[DRV_MAX][PROG_MAX][WR_MAX][NR_SIZES];
	char out_dir[512];
	char started[32]; /* UTC, ISO 8601 */
	char kernel[160];
	char cpu_model[96];		   /* /proc/cpuinfo's model name */
	int nr_cpus;			   /* online */
	char load_start[32], load_end[32]; /* /proc/loadavg, first 3 */
	int writer_cpu, reader_cpu;
	bool icount; /* instructions counted on the writer's vCPU */
	double seconds;
};

static inline struct cell *cell_at(struct bench_run *run, int d, int p, int w,
				   int s)
{
	return &run->cells[d][p][w][s];
}

/* How a cell really writes: tun, and the floor, have no batch ABI. */
static inline enum bench_writer effective_writer(const struct cell *c)
{
	/* /dev/copyfloor takes TAPXSUBMIT as tapx does. */
	if (!batch_writer(c->writer) || c->driver == DRV_TAPX ||
	    c->prog == PROG_COPY)
		return c->writer;
	return c->prog == PROG_FLOOR ? WR_BLOCK : WR_NONBLOCK;
}

/* The cell's guest instructions per frame, or 0 where not counted. */
static inline double cell_insns(const struct cell *c)
{
	return c && c->status == CELL_OK && c->median_insns > 0 ? c->median_insns : 0;
}

/* Stock tun's cell of program p in (writer, size), if it ran: the
 * references other cells are compared with. The floors and "none" are
 * measured once, under DRV_TUN. */
const struct cell *tun_cell(const struct bench_run *run, int p, int w, int s);

/* The cell every other cell of (writer, size) is compared with. */
static inline const struct cell *floor_cell(const struct bench_run *run, int w, int s)
{
	return tun_cell(run, PROG_FLOOR, w, s);
}

static inline const struct cell *copy_cell(const struct bench_run *run, int w, int s)
{
	return tun_cell(run, PROG_COPY, w, s);
}

static inline const struct cell *stock_cell(const struct bench_run *run, int w, int s)
{
	return tun_cell(run, PROG_NONE, w, s);
}

#define NR_CELLS (DRV_MAX * PROG_MAX * WR_MAX * NR_SIZES)

/* Cell i of the run in table order (writer, size, program, driver), or NULL
 * if it is not part of the plan. */
const struct cell *planned_cell(const struct bench_run *run, int i);

#endif /* TA_BENCH_MATRIX_H */
