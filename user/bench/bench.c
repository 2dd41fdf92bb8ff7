// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bench.c - `tap-accel-bench`: the matrix and the loop that times every
 * cell.
 *
 * A cell writes the same frame into its program's writer tap: a warm-up,
 * then `reps` timed repetitions of `frames` writes each. The cells of one
 * writer and frame size (the floor, every program, every driver) take turns
 * repetition by repetition, so load from elsewhere falls on all of them.
 * A cell's figure is the median per-frame time of its repetitions (min and
 * max kept as the spread). Counters read before and after the cell say
 * what became of every frame.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "env.h"
#include "icount.h"
#include "matrix.h"
#include "policy_cells.h"
#include "report.h"
#include "stop.h"
#include "writers.h"
#include "bpf/tap_accel.h"
#include "lib/base/error.h"

/* At least this many frames per repetition, whatever the frame size. */
#define MIN_FRAMES 1000

/* ---- timing and statistics ---------------------------------------------- */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Time this thread has spent runnable but waiting for a CPU, from the
 * scheduler (/proc/thread-self/schedstat, second field): the part of a
 * repetition's wall time that other processes on this shared machine took.
 * 0 where the kernel does not keep it (no CONFIG_SCHED_INFO).
 */
static double runq_wait_ns(void)
{
	static int fd = -2;
	char buf[96];
	unsigned long long run, wait;
	ssize_t n;

	if (fd == -2)
		fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? (double)wait : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(const double *v, int n, double *min, double *max)
{
	double sorted[BENCH_MAX_REPS];

	memcpy(sorted, v, n * sizeof(double));
	qsort(sorted, n, sizeof(double), cmp_double);
	if (min)
		*min = sorted[0];
	if (max)
		*max = sorted[n - 1];
	return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

static void summarize(struct cell *c, bool counted)
{
	c->median = median_of(c->ns, c->reps, &c->min, &c->max);
	c->median_wall = median_of(c->wall_ns, c->reps, NULL, NULL);
	c->median_insns = counted ? median_of(c->insns, c->reps, NULL, NULL) : -1;
}

static unsigned long frames_for(const struct bench_opts *o, size_t size)
{
	/* Large frames: as many bytes as a 1500 B cell, not as many frames. */
	unsigned long n = size <= 1514 ? o->frames : o->frames * 1500 / size;

	if (n < MIN_FRAMES)
		n = o->frames < MIN_FRAMES ? o->frames : MIN_FRAMES;
	return n;
}

/* ---- what the counters say ---------------------------------------------- */

static void counts_delta(struct cell_counts *after,
			 const struct cell_counts *before)
{
	for (int v = 0; v < TA_NR_VERDICTS; v++)
		after->verdict[v] -= before->verdict[v];
	after->tap_rx -= before->tap_rx;
	after->tap_rx_dropped -= before->tap_rx_dropped;
	after->read -= before->read;
	after->read_lost -= before->read_lost;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

/* Frames the stack itself sends to a drained tap (a bridge's own traffic)
 * that are lost with ours can only be counted among the losses. */
#define STRAY_ALLOWANCE 2

/* Every frame written was read or lost at the tap's queue, and no more. */
static bool drained_all(const struct cell_counts *k)
{
	uint64_t n = k->written, drained = k->read + k->read_lost;

	return k->read <= n && drained >= n && drained <= n + STRAY_ALLOWANCE;
}

/* Whether every frame written is accounted for, and a few words on where
 * the frames went. */
static void judge(struct cell *c)
{
	const struct cell_counts *k = &c->counts;
	uint64_t n = k->written;

	switch (c->prog) {
	case PROG_FLOOR:
	case PROG_COPY:
		c->accounted = k->write_errors == 0;
		snprintf(c->fate, sizeof(c->fate), "-");
		break;
	case PROG_NONE:
	case PROG_STACK_UDP:
		c->accounted = k->tap_rx + k->tap_rx_dropped == n;
		snprintf(c->fate, sizeof(c->fate), "stack %.0f%%",
			 pct(k->tap_rx, n));
		break;
	case PROG_XDP_TX:
		c->accounted = k->verdict[XDP_TX] == n && drained_all(k);
		snprintf(c->fate, sizeof(c->fate), "tx %.0f%%, read %.1f%%",
			 pct(k->verdict[XDP_TX], n), pct(k->read, n));
		break;
	case PROG_XDP_REDIRECT:
	case PROG_FWD_REDIRECT:
		c->accounted = k->verdict[XDP_REDIRECT] == n && drained_all(k);
		snprintf(c->fate, sizeof(c->fate),
			 "redirected %.0f%%, read %.1f%%",
			 pct(k->verdict[XDP_REDIRECT], n), pct(k->read, n));
		break;
	case PROG_BRIDGE:
	case PROG_FWD_BRIDGE:
		c->accounted = drained_all(k);
		snprintf(c->fate, sizeof(c->fate), "forwarded, read %.1f%%",
			 pct(k->read, n));
		break;
	default: /* every drop program */
		c->accounted = k->verdict[XDP_DROP] == n;
		snprintf(c->fate, sizeof(c->fate), "dropped %.0f%%",
			 pct(k->verdict[XDP_DROP], n));
		break;
	}
	if (effective_writer(c) != c->writer && !floor_prog(c->prog))
		snprintf(c->fate + strlen(c->fate),
			 sizeof(c->fate) - strlen(c->fate), ", per-frame %s",
			 bench_writer_name[effective_writer(c)]);
	if (k->write_errors)
		snprintf(c->fate + strlen(c->fate),
			 sizeof(c->fate) - strlen(c->fate),
			 ", %llu write errors",
			 (unsigned long long)k->write_errors);
}

/* ---- running cells ------------------------------------------------------ */

struct runner {
	struct bench_run *run;
	struct uring_writer *uring;
	struct ta_error uring_err; /* why there is no io_uring writer */
	uint8_t *frame[NR_FRAMES][NR_SIZES];
	int null_fd;
	int copy_fd; /* /dev/copyfloor, or -1 */
	int done, total;
	double started; /* now_ns() when the first cell began */
	struct bench_env *env[DRV_MAX][PROG_MAX]; /* taps per program */
};

/*
 * "[ n/N] ... ~Ts left": the time left is the time so far per cell done
 * times the cells to do; cells of a group end together, so it moves in
 * steps, and it is an estimate, not a promise.
 */
static void progress(struct runner *rn, const struct cell *c)
{
	double spent = rn->started ? (now_ns() - rn->started) / 1e9 : 0;
	char left[24] = "";

	rn->done++;
	if (rn->done < rn->total && spent > 1)
		snprintf(left, sizeof(left), "~%.0fs left",
			 spent / rn->done * (rn->total - rn->done));
	fprintf(stderr, "[%3d/%d] %10s  %-4s %-17s %-8s %5d B  ", rn->done,
		rn->total, left, bench_driver_name[c->driver],
		bench_prog_name[c->prog], bench_writer_name[c->writer],
		bench_size[c->size_idx]);
	if (c->status == CELL_OK)
		fprintf(stderr, "%8.1f ns  %s%s\n", c->median, c->fate,
			c->accounted ? "" : "  (counters do not add up)");
	else
		fprintf(stderr, "%s: %s\n",
			c->status == CELL_ABSENT ? "ABSENT" : "n/a", c->why);
}

static void mark(struct cell *c, enum cell_status st, const char *why)
{
	c->status = st;
	snprintf(c->why, sizeof(c->why), "%.*s", (int)sizeof(c->why) - 1, why);
}

/* One cell while it runs; env is NULL for the floors. */
struct cell_run {
	struct cell *c;
	struct bench_env *env;
	int fd;
	struct cell_counts before;
	uint64_t errors, written;
	int err;
	char icount_why[128]; /* the counter failed: why */
};

static const uint8_t *cell_frame(struct runner *rn, const struct cell_run *cr)
{
	const struct cell *c = cr->c;
	const uint8_t *own =
		cr->env ? env_frame(cr->env, c->prog, c->size_idx) : NULL;

	return own ? own : rn->frame[c->frame][c->size_idx];
}

/* Write n frames the cell's way: into the writer tap (or /dev/null), or
 * through to the far tap and back. */
static unsigned long cell_write(struct runner *rn, struct cell_run *cr,
				unsigned long n)
{
	struct cell *c = cr->c;
	enum bench_writer w = effective_writer(c);

	if (forward_prog(c->prog))
		return env_forward(cr->env, w, cell_frame(rn, cr),
				   bench_size[c->size_idx], n, rn->uring,
				   &cr->errors);
	return write_frames(w, cr->fd, cell_frame(rn, cr),
			    bench_size[c->size_idx], n, rn->uring, &cr->errors);
}

/* The writer's fd mode, readers, counters before. Each program has its
 * own taps, so nothing here disturbs the other cells of the group. */
static void cell_begin(struct runner *rn, struct cell_run *cr)
{
	struct cell *c = cr->c;

	cr->fd = c->prog == PROG_COPY ? rn->copy_fd : rn->null_fd;
	if (cr->env) {
		cr->fd =
			env_writer_fd(cr->env, effective_writer(c) != WR_BLOCK);
		env_start_readers(cr->env, c->prog, rn->run->reader_cpu,
				  bench_size[c->size_idx]);
		env_forward_prepare(cr->env, c->prog, bench_size[c->size_idx]);
		env_counts(cr->env, c->prog, &cr->before);
	}
}

/* Untimed: caches, slabs and queues in their steady state. */
static void cell_warm_up(struct runner *rn, struct cell_run *cr)
{
	struct cell *c = cr->c;
	unsigned long warm = c->frames * rn->run->opts.warmup_pct / 100;

	cr->written += cell_write(rn, cr, warm);
	if (cr->errors && !cr->err)
		cr->err = errno;
}

/* Repetition r: the timed loop. */
static void cell_rep(struct runner *rn, struct cell_run *cr, int r)
{
	struct cell *c = cr->c;
	double t0, wall, wait0, waited;

	if (cr->env)
		env_forward_prepare(cr->env, c->prog, bench_size[c->size_idx]);
	bench_icount_begin();
	wait0 = runq_wait_ns();
	t0 = now_ns();
	cr->written += cell_write(rn, cr, c->frames);
	wall = now_ns() - t0;
	waited = runq_wait_ns() - wait0;
	if (rn->run->icount) {
		struct ta_error e = {0};
		double n = bench_icount_end(rn->run->writer_cpu, &e);

		if (n < 0)
			snprintf(cr->icount_why, sizeof(cr->icount_why), "%.*s",
				 (int)sizeof(cr->icount_why) - 1, e.text);
		c->insns[r] = n < 0 ? -1 : n / c->frames;
	}
	c->wall_ns[r] = wall / c->frames;
	c->ns[r] = (waited < wall ? wall - waited : wall) / c->frames;
	if (cr->errors && !cr->err)
		cr->err = errno;
}

/* Drain, counters after, statistics, verdict. */
static void cell_end(struct runner *rn, struct cell_run *cr)
{
	struct cell *c = cr->c;

	if (cr->env) {
		env_forward_finish(cr->env, c->prog, bench_size[c->size_idx]);
		env_stop_readers(cr->env);
		env_counts(cr->env, c->prog, &c->counts);
		counts_delta(&c->counts, &cr->before);
	}
	c->counts.written = cr->written;
	c->counts.write_errors = cr->errors;
	if (stop_requested()) {
		mark(c, CELL_FAILED, "interrupted");
	} else if (!cr->written && batch_writer(effective_writer(c)) &&
		   (cr->err == ENOTTY || cr->err == EINVAL)) {
		/* How stock tun answers an ioctl it does not know. */
		c->status = CELL_NA;
		snprintf(c->why, sizeof(c->why), "no batch ABI: TAPXSUBMIT: %s",
			 strerror(cr->err));
	} else if (!cr->written) {
		c->status = CELL_FAILED;
		snprintf(c->why, sizeof(c->why), "every write failed: %s",
			 strerror(cr->err));
	} else if (rn->run->icount && cr->icount_why[0]) {
		mark(c, CELL_FAILED, cr->icount_why);
	} else {
		c->status = CELL_OK;
		summarize(c, rn->run->icount);
		judge(c);
	}
	progress(rn, c);
}

/*
 * Run cells side by side: their repetitions take turns (floor, none, XDP
 * drop, ..., on tun then tapx, and again), so a burst of load on this
 * shared machine falls on all of them alike instead of on whichever cell
 * happened to be running.
 */
static void run_group(struct runner *rn, struct cell_run *group, int n)
{
	int reps = 0;

	for (int i = 0; i < n; i++) {
		cell_begin(rn, &group[i]);
		if (group[i].c->reps > reps)
			reps = group[i].c->reps;
	}
	for (int i = 0; i < n; i++)
		cell_warm_up(rn, &group[i]);
	for (int r = 0; r < reps && !stop_requested(); r++)
		for (int i = 0; i < n; i++)
			if (r < group[i].c->reps)
				cell_rep(rn, &group[i], r);
	for (int i = 0; i < n; i++)
		cell_end(rn, &group[i]);
}

/* Cells that cannot run: say why, once. */
static bool cell_usable(struct runner *rn, struct cell *c)
{
	if (c->status != CELL_PENDING)
		return false;
	if (c->writer == WR_URING && !rn->uring) {
		mark(c, CELL_NA, rn->uring_err.text);
		progress(rn, c);
		return false;
	}
	return true;
}

/* Mark every pending cell of (driver, program); p < 0: every program. */
static void mark_cells(struct runner *rn, int d, int p, enum cell_status st,
		       const char *why, bool print)
{
	for (int q = 0; q < PROG_MAX; q++)
		for (int w = 0; w < WR_MAX; w++)
			for (int s = 0; s < NR_SIZES; s++) {
				struct cell *c = cell_at(rn->run, d, q, w, s);

				if ((p >= 0 && q != p) ||
				    c->status != CELL_PENDING)
					continue;
				mark(c, st, why);
				if (print)
					progress(rn, c);
				else
					rn->total--; /* covered by a banner */
			}
}

static bool program_planned(struct runner *rn, int d, int p)
{
	for (int w = 0; w < WR_MAX; w++)
		for (int s = 0; s < NR_SIZES; s++)
			if (cell_at(rn->run, d, p, w, s)->status ==
			    CELL_PENDING)
				return true;
	return false;
}

/*
 * Every program gets taps of its own, with the program attached for the
 * whole run, so that the cells of all programs can take turns. NULL (and
 * the cells marked) where it cannot be set up.
 */
static struct bench_env *open_program(struct runner *rn, int d, int p)
{
	struct ta_error e;
	struct bench_env *env = env_new(d, rn->run->opts.dev[d], p, &e);

	if (!env) {
		mark_cells(rn, d, p, CELL_FAILED, e.text, true);
		return NULL;
	}
	if (env_attach(env, p, &e)) {
		mark_cells(rn, d, p, CELL_NA, e.text, true);
		env_free(env);
		return NULL;
	}
	return env;
}

/* A driver's device node must exist; say so loudly if it does not. */
static bool driver_present(struct runner *rn, int d)
{
	char why[160];

	if (!rn->run->opts.want_driver[d])
		return false;
	if (access(rn->run->opts.dev[d], F_OK) == 0)
		return true;
	snprintf(why, sizeof(why), "%s: %s%s", rn->run->opts.dev[d],
		 strerror(errno), d == DRV_TAPX ? " (tapx.ko not loaded)" : "");
	fprintf(stderr, "\n*** %s: ABSENT: %s ***\n\n", bench_driver_name[d],
		why);
	mark_cells(rn, d, -1, CELL_ABSENT, why, false);
	return false;
}

static void open_envs(struct runner *rn)
{
	for (int d = 0; d < DRV_MAX; d++) {
		bool present = driver_present(rn, d);

		for (int p = PROG_NONE; p < PROG_MAX; p++)
			rn->env[d][p] = present && program_planned(rn, d, p)
						? open_program(rn, d, p)
						: NULL;
	}
}

static void close_envs(struct runner *rn)
{
	for (int d = 0; d < DRV_MAX; d++)
		for (int p = PROG_NONE; p < PROG_MAX; p++) {
			struct bench_env *env = rn->env[d][p];

			if (!env)
				continue;
			env_detach(env, p);
			env_free(env);
			rn->env[d][p] = NULL;
		}
}

/* Frame size s on every program's taps (MTU); cells of those that refuse
 * it are marked. */
static void set_size(struct runner *rn, int s, bool ok[DRV_MAX][PROG_MAX],
		     unsigned int mtu[DRV_MAX][PROG_MAX])
{
	for (int d = 0; d < DRV_MAX; d++)
		for (int p = PROG_NONE; p < PROG_MAX; p++) {
			struct bench_env *env = rn->env[d][p];
			struct ta_error e;

			ok[d][p] = env && !env_set_frame_size(
						  env, bench_size[s],
						  &mtu[d][p], &e);
			if (env && !ok[d][p])
				for (int w = 0; w < WR_MAX; w++) {
					struct cell *c =
						cell_at(rn->run, d, p, w, s);

					if (c->status == CELL_PENDING) {
						mark(c, CELL_NA, e.text);
						progress(rn, c);
					}
				}
		}
}

/*
 * The whole matrix: for each frame size and writer, one group of cells —
 * the floor and every program on every driver — whose repetitions take
 * turns.
 */
static void run_matrix(struct runner *rn)
{
	static struct cell_run group[DRV_MAX * PROG_MAX];

	for (int s = 0; s < NR_SIZES && !stop_requested(); s++) {
		bool ok[DRV_MAX][PROG_MAX];
		unsigned int mtu[DRV_MAX][PROG_MAX];

		set_size(rn, s, ok, mtu);
		for (int w = 0; w < WR_MAX && !stop_requested(); w++) {
			int n = 0;

			for (int p = PROG_FLOOR; p < PROG_NONE; p++) {
				struct cell *fl = cell_at(rn->run, DRV_TUN, p, w, s);

				if (cell_usable(rn, fl))
					group[n++] = (struct cell_run){.c = fl};
			}
			for (int d = 0; d < DRV_MAX; d++)
				for (int p = PROG_NONE; p < PROG_MAX; p++) {
					struct cell *c =
						cell_at(rn->run, d, p, w, s);

					if (!ok[d][p] || !cell_usable(rn, c))
						continue;
					c->mtu = mtu[d][p];
					group[n++] = (struct cell_run){
						.c = c, .env = rn->env[d][p]};
				}
			if (n)
				run_group(rn, group, n);
		}
	}
}

/* ---- the matrix --------------------------------------------------------- */

/* What a batch group measures: drop, PASS and forwarding, with their
 * references. The other programs are about per-frame writers. */
static bool batch_prog(enum bench_prog p)
{
	switch (p) {
	case PROG_FLOOR:
	case PROG_COPY:
	case PROG_NONE:
	case PROG_XDP_DROP_NATIVE:
	case PROG_STACK_UDP:
	case PROG_FWD_REDIRECT:
	case PROG_FWD_BRIDGE:
		return true;
	default:
		return false;
	}
}

/* The policy parses the frame and the bridge (with br_netfilter) checks the
 * IPv4 header: both drop the baseline frame before doing their real work. */
static bool wants_udp_frame(const struct bench_opts *o, enum bench_prog p)
{
	return o->udp_frames || policy_prog(p) || p == PROG_BRIDGE ||
	       p == PROG_STACK_UDP;
}

static enum bench_frame frame_of(const struct bench_opts *o, enum bench_prog p)
{
	if (forward_prog(p))
		return FRAME_FWD;
	return wants_udp_frame(o, p) ? FRAME_UDP : FRAME_BASELINE;
}

static void plan_matrix(struct bench_run *run, struct runner *rn)
{
	const struct bench_opts *o = &run->opts;

	if (rn->copy_fd < 0)
		run->opts.want_prog[PROG_COPY] = false;

	for (int d = 0; d < DRV_MAX; d++)
		for (int p = 0; p < PROG_MAX; p++)
			for (int w = 0; w < WR_MAX; w++)
				for (int s = 0; s < NR_SIZES; s++) {
					struct cell *c =
						cell_at(run, d, p, w, s);
					bool want = o->want_driver[d] &&
						    o->want_prog[p] &&
						    o->want_writer[w] &&
						    o->want_size[s] &&
						    (!batch_writer(w) ||
						     batch_prog(p));

					*c = (struct cell){.driver = d,
							   .prog = p,
							   .writer = w,
							   .size_idx = s};
					/* The floor has no driver: measured
					 * once. */
					if (!want ||
					    (floor_prog(p) && d != DRV_TUN))
						continue;
					c->status = CELL_PENDING;
					c->frames =
						frames_for(o, bench_size[s]);
					c->reps = o->reps;
					c->frame = frame_of(o, p);
					rn->total++;
				}
}

/* ---- the verb ----------------------------------------------------------- */

/* Writer on the last CPU we may use (CPU 0 takes most interrupts), readers
 * on another one when there is one. */
static void choose_cpus(struct bench_run *run)
{
	cpu_set_t set;
	int last = -1, other = -1;

	run->writer_cpu = run->reader_cpu = -1;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			last = i;
	if (run->opts.cpu >= 0) {
		if (!CPU_ISSET(run->opts.cpu, &set)) {
			fprintf(stderr,
				"tap-accel-bench: CPU %d is not ours, not "
				"pinning\n",
				run->opts.cpu);
			return;
		}
		last = run->opts.cpu;
	}
	for (int i = 0; i < CPU_SETSIZE && other < 0; i++)
		if (CPU_ISSET(i, &set) && i != last)
			other = i;
	CPU_ZERO(&set);
	CPU_SET(last, &set);
	if (sched_setaffinity(0, sizeof(set), &set) == 0)
		run->writer_cpu = last;
	run->reader_cpu = other;
}

/* The first three fields of /proc/loadavg, or "?". */
static void read_load(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a, b, c;

	if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
		snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
	else
		snprintf(buf, len, "?");
	if (f)
		fclose(f);
}

static void read_cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown CPU");
	while (f && fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !v)
			continue;
		v += 1 + strspn(v + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		break;
	}
	if (f)
		fclose(f);
}

static void describe_run(struct bench_run *run)
{
	struct utsname u;
	time_t t = time(NULL);

	read_cpu_model(run->cpu_model, sizeof(run->cpu_model));
	run->nr_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	read_load(run->load_start, sizeof(run->load_start));

	strftime(run->started, sizeof(run->started), "%Y-%m-%dT%H:%M:%SZ",
		 gmtime(&t));
	if (uname(&u) == 0)
		snprintf(run->kernel, sizeof(run->kernel), "%s %s", u.sysname,
			 u.release);
}

static int runner_init(struct runner *rn, struct bench_run *run)
{
	rn->run = run;
	rn->null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (rn->null_fd < 0) {
		int err = errno;

		perror("tap-accel-bench: /dev/null");
		return -err;
	}
	for (int s = 0; s < NR_SIZES; s++)
		for (int k = 0; k < NR_FRAMES; k++) {
			rn->frame[k][s] = build_frame(bench_size[s], k);
			if (!rn->frame[k][s]) {
				fprintf(stderr, "tap-accel-bench: out of memory\n");
				return -ENOMEM;
			}
		}
	rn->uring = uring_writer_new(&rn->uring_err);
	return 0;
}

static void runner_fini(struct runner *rn)
{
	uring_writer_free(rn->uring);
	for (int s = 0; s < NR_SIZES; s++)
		for (int k = 0; k < NR_FRAMES; k++)
			free(rn->frame[k][s]);
	if (rn->null_fd >= 0)
		close(rn->null_fd);
	if (rn->copy_fd >= 0)
		close(rn->copy_fd);
}

/* The instruction counter, where QEMU offers one: counted on the writer's
 * vCPU, so the writer must stay on one CPU. */
/* 0, or -errno (said). */
static int open_icount(struct bench_run *run)
{
	struct ta_error e;
	int err = bench_icount_open(run->opts.icount_port, &e);

	if (err) {
		fprintf(stderr, "tap-accel-bench: %s\n", e.text);
		return err;
	}
	if (!bench_icount_on())
		return 0;
	if (run->writer_cpu < 0) {
		fprintf(stderr, "tap-accel-bench: counting instructions needs "
				"the writer pinned to one CPU, and it is not "
				"(see --cpu)\n");
		bench_icount_close();
		return -EINVAL;
	}
	run->icount = true;
	return 0;
}

int bench_run(const struct bench_opts *o)
{
	struct bench_run *run = calloc(1, sizeof(*run));
	struct runner rn = {.null_fd = -1, .copy_fd = -1};
	struct ta_error e;
	double t0 = now_ns();
	int rc;

	if (!run) {
		fprintf(stderr, "tap-accel-bench: out of memory\n");
		return -ENOMEM;
	}
	run->opts = *o;
	describe_run(run);
	rc = env_enter_netns(&e);
	if (rc) {
		fprintf(stderr, "tap-accel-bench: %s\n", e.text);
		free(run);
		return rc;
	}
	stop_catch_signals();
	choose_cpus(run);
	/* The copy floor (tests/vm/copyfloor) is measured where it is loaded:
	 * the least a driver that copies every frame once can take. Opened
	 * nonblocking, or io_uring would hand every write to a worker thread
	 * (copyfloor does not say it can be tried without blocking); its
	 * writes never block anyway. */
	rn.copy_fd = open("/dev/copyfloor", O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	plan_matrix(run, &rn);
	rc = runner_init(&rn, run);
	rc = rc ?: open_icount(run);
	if (rc) {
		runner_fini(&rn);
		free(run);
		return rc;
	}
	fprintf(stderr,
		"tap-accel-bench: %d cells, %lu frames x %d reps, writer on "
		"CPU %d%s\n",
		rn.total, run->opts.frames, run->opts.reps, run->writer_cpu,
		run->icount ? ", its instructions counted" : "");
	rn.started = now_ns();
	open_envs(&rn);
	run_matrix(&rn);
	close_envs(&rn);
	runner_fini(&rn);
	bench_icount_close();
	run->seconds = (now_ns() - t0) / 1e9;
	read_load(run->load_end, sizeof(run->load_end));

	report_table(run, run->opts.json ? stderr : stdout);
	fflush(stdout);
	rc = report_files(run) ? -EIO : 0;
	if (run->opts.json)
		report_json(run, stdout, run->opts.pretty);
	if (stop_requested())
		rc = -EINTR;
	free(run);
	return rc;
}
