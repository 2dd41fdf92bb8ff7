/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* files.h - the results folder of a benchmark run and its gnuplot charts. */
#ifndef TA_BENCH_FILES_H
#define TA_BENCH_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The results folder, created: `given`, or build/bench/<UTC stamp> next to
 * build/user/tap-accel (else ./bench-results/<stamp>). 0, or -1 said on
 * stderr. */
int bench_results_dir(const char *given, char *buf, size_t len);
/* DIR/NAME open for writing, or NULL said on stderr. */
FILE *bench_open_in(const char *dir, const char *name);
/* The end of a gnuplot script: `plot` drawn as BASE.svg and BASE.png. */
void bench_chart_outputs(FILE *out, const char *base, const char *plot);
/* DIR/BASE.dat and DIR/BASE.gp open for writing: true, or false with
 * neither open (said on stderr). */
bool bench_chart_open(const char *dir, const char *base, FILE **dat, FILE **gp);
/* gnuplot BASE.gp run in DIR, which draws BASE.svg and BASE.png: whether
 * it did; why not is said on stderr. */
bool bench_plot(const char *dir, const char *base);

#endif /* TA_BENCH_FILES_H */
