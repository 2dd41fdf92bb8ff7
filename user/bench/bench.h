/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bench.h - the benchmark harness behind `tap-accel bench`: the seeds'
 * "runsend" (write N identical frames into a tap, time per frame) across a
 * matrix of driver x program x writer x frame size, with the /dev/null
 * floor measured in the same run.
 *
 *   bench.c   the matrix, the driver loop, timing, counters
 *   options.c names, command line, the matrix of each mode
 *   writers.c the ways of writing frames (write, writev, io_uring), the frame
 *   policy_cells.c  the tap-accel policy with 1/100/1000 rules
 *   setup.c   private netns, taps, bridge, programs, readers, counters
 *   report.c  terminal table, CSV, JSON, gnuplot chart
 */
#ifndef TA_BENCH_H
#define TA_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum bench_driver { DRV_TUN, DRV_TAPX, DRV_MAX };

/* Rows of the table, in print order. FLOOR is write() to /dev/null. */
enum bench_prog {
	PROG_FLOOR,
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
#define URING_BATCH    32
/* Per-frame writers of a forwarding cell write this many, then read them
 * back. */
#define FWD_CHUNK 64

enum cell_status {
	CELL_SKIPPED, /* not in this run's matrix */
	CELL_PENDING, /* planned, not run yet */
	CELL_OK,
	CELL_NA,     /* impossible here; why says what is missing */
	CELL_ABSENT, /* the driver itself is missing */
	CELL_FAILED, /* setup or writes failed; why says how */
};

/* What the counters say happened to the frames of one cell (warm-up and
 * every repetition), as deltas over the cell. */
struct cell_counts {
	uint64_t written;      /* write calls that returned the frame size */
	uint64_t write_errors; /* short writes and errors */
	uint64_t verdict[5];   /* program counters, key = XDP verdict */
	uint64_t tap_rx;       /* writer tap: frames taken into the stack */
	uint64_t tap_rx_dropped;
	uint64_t read; /* frames read back (TX, redirect, bridge, forwarding) */
	uint64_t read_lost; /* tx_dropped of the tap the reader drains */
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
	unsigned int mtu;
	struct cell_counts counts;
	bool accounted; /* counters explain every frame written */
	char fate[64];	/* counters in a few words, for the table */
};

struct bench_opts {
	bool quick, full, json, pretty, vm;
	bool udp_frames;      /* --frame udp */
	unsigned long frames; /* per repetition, for frames of 1500 B or less */
	int reps;
	int warmup_pct;
	int cpu; /* writer CPU; -1 = choose */
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
	const char *programs, *writers, *sizes;
	long frames, reps;
};

struct bench_run {
	struct bench_opts opts;
	struct cell cells[DRV_MAX][PROG_MAX][WR_MAX][NR_SIZES];
	char out_dir[512];
	char started[32]; /* UTC, ISO 8601 */
	char kernel[160];
	int writer_cpu, reader_cpu;
	double seconds;
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

static inline struct cell *cell_at(struct bench_run *run, int d, int p, int w,
				   int s)
{
	return &run->cells[d][p][w][s];
}

static inline bool batch_writer(int w)
{
	return bench_batch[w] > 0;
}

/* Whether the cell forwards A -> B and reads the frames back itself. */
static inline bool forward_prog(int p)
{
	return p == PROG_FWD_REDIRECT || p == PROG_FWD_BRIDGE;
}

/* How a cell really writes: tun, and the floor, have no batch ABI. */
static inline enum bench_writer effective_writer(const struct cell *c)
{
	if (!batch_writer(c->writer) || c->driver == DRV_TAPX)
		return c->writer;
	return c->prog == PROG_FLOOR ? WR_BLOCK : WR_NONBLOCK;
}

/* The cell every other cell of (writer, size) is compared with. */
const struct cell *floor_cell(const struct bench_run *run, int w, int s);
const struct cell *stock_cell(const struct bench_run *run, int w, int s);
/* Stock tun's bridge and XDP redirect forwarding in the same group. */
const struct cell *fwd_ref_cell(const struct bench_run *run, int p, int w,
				int s);

/* options.c: the index of `name` in names[n], or -1. */
int bench_name_index(const char *name, const char *const *names, int n);
/* The matrix of the mode `o` is in (quick, full, vm), narrowed by `a`.
 * 0, or -1 with the error in err. */
int bench_opts_finish(struct bench_opts *o, const struct bench_args *a, char *err, size_t errlen);

/* bench.c: run the matrix `o` describes, print and write the results.
 * EXIT_OK, or EXIT_SYSTEM if something failed or it was interrupted. */
int bench_run(const struct bench_opts *o);

/* writers.c */
uint8_t *build_frame(size_t size, enum bench_frame kind);
/* Guest A (the writer's side) and guest B (behind the far tap). */
extern const uint8_t fwd_mac_a[6];
extern const uint8_t fwd_mac_b[6];
struct uring_writer;
struct uring_writer *uring_writer_new(char *why, size_t len);
void uring_writer_free(struct uring_writer *u);
/* Write `n` copies of frame; returns how many went in whole. */
unsigned long write_frames(enum bench_writer w, int fd, const uint8_t *frame,
			   size_t size, unsigned long n, struct uring_writer *u,
			   uint64_t *errors);

/* Submit `n` frames in batches of `batch` with TAPXSUBMIT. */
unsigned long submit_frames(int fd, const uint8_t *frame, size_t size,
			    unsigned long n, unsigned int batch,
			    uint64_t *errors);
void set_frame_macs(uint8_t *frame, const uint8_t dst[6], const uint8_t src[6]);
/* A valid UDP/IPv4 frame, port 9 to port 9; the MACs are set by the
 * caller. */
uint8_t *build_udp_frame(size_t size, const uint8_t src_ip[4],
			 const uint8_t dst_ip[4]);

/* setup.c */
struct bench_env;
int env_enter_netns(char *why, size_t len);
struct bench_env *env_new(enum bench_driver d, const char *dev, int tag, char *why, size_t len);
void env_free(struct bench_env *env);
int env_attach(struct bench_env *env, enum bench_prog p, char *why, size_t len);
void env_detach(struct bench_env *env, enum bench_prog p);
int env_set_frame_size(struct bench_env *env, size_t size, unsigned int *mtu,
		       char *why, size_t len);
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

/* policy_cells.c: the tap-accel policy program with 1, 100 or 1000 rules.
 * One instance per tap, attached natively to the writer tap. */
bool policy_prog(enum bench_prog p);
struct policy_cell;
struct policy_cell *policy_attach(int ifindex, enum bench_prog p, char *why,
				  size_t len);
void policy_detach(struct policy_cell *policy);
void policy_counts(struct policy_cell *policy, uint64_t verdict[5]);

/* report.c */
void report_table(const struct bench_run *run, FILE *out);
int report_files(const struct bench_run *run);
void report_json(const struct bench_run *run, FILE *out, bool pretty);

#endif /* TA_BENCH_H */
