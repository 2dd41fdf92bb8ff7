/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * scale.h - `tap-accel-bench --scale`: what a host of many taps bound to
 * one policy pays for them, in kernel memory and in time to bind, list and
 * count them through the tap-accel CLI.
 */
#ifndef TA_BENCH_SCALE_H
#define TA_BENCH_SCALE_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/error.h"

#define SCALE_MAX_ROWS 8
#define SCALE_MAX_TAPS 16384

struct scale_opts {
	unsigned int taps[SCALE_MAX_ROWS]; /* a row per count, ascending */
	int nr_rows;
	unsigned int single_max; /* taps bound one call each, per row */
	bool json, pretty;
	const char *out_dir;
};

/* The default rows: 1, 100, 1000 (quick) or 1, 100, 1000, 4096 (full). */
void scale_opts_default(struct scale_opts *o, bool full);
/* "1,100,1000" into o->taps. 0, or -EINVAL with the error in e. */
int scale_parse_taps(struct scale_opts *o, const char *list, struct ta_error *e);

/* Measure, print the table (stderr with --json, which puts the JSON on
 * stdout) and write the results folder. 0, or -errno said on stderr. */
int scale_run(const struct scale_opts *o);

/* The tap-accel CLI beside this program (build/user/, or where make
 * install and the package put both) into path. 0, or -errno with e. */
int scale_find_cli(char *path, size_t size, struct ta_error *e);

#endif /* TA_BENCH_SCALE_H */
