/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * bench.h - tap-accel-bench, the benchmark harness, as its main sees it:
 * write N identical frames into a tap and time them per frame, across a
 * matrix of driver x program x writer x frame size, with the /dev/null
 * floor measured in the same run. The command line is main.c's;
 * everything else gets its options as a parameter.
 *
 *   main.c          the command line, --help
 *   options.c       the vocabulary: dimensions, names, options (options.h)
 *   bench.c         the matrix, the driver loop, timing (matrix.h)
 *   writers.c       the ways of writing frames, the frames (writers.h)
 *   env.c           private netns, taps, bridge, programs (env.h)
 *   readers.c       reader threads that drain taps (env.h)
 *   forward.c       forwarding cells: write into A, read back from B (env.h)
 *   counters.c      what the counters say of a cell (env.h)
 *   policy_cells.c  the tap-accel policy with 1/100/1000 rules (policy_cells.h)
 *   headline.c      the rows an operator reads first, tun beside tapx
 *   report.c        terminal table, CSV, JSON, gnuplot chart (report.h)
 *   files.c         the results folder, gnuplot (files.h)
 *   scale.c         --scale: what many taps bound to one policy cost (scale.h)
 */
#ifndef TA_BENCH_H
#define TA_BENCH_H

#include "options.h"

/* bench.c: run the matrix `o` describes, print and write the results.
 * 0, or -errno if something failed (said on stderr) or it was
 * interrupted (-EINTR). */
int bench_run(const struct bench_opts *o);

#endif /* TA_BENCH_H */
