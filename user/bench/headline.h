/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* headline.h - the rows of a run an operator reads first (headline.c). */
#ifndef TA_BENCH_HEADLINE_H
#define TA_BENCH_HEADLINE_H

#include <stdio.h>

#include "matrix.h"

struct json_writer;

/* tun's cell (tun_prog) beside tapx's (tapx_prog), same writer and size. */
struct headline_row {
	const char *key, *label;
	enum bench_writer writer;
	int size_idx;
	enum bench_prog tun_prog, tapx_prog;
};

#define NR_HEADLINE 12
extern const struct headline_row headline_rows[NR_HEADLINE];

/* Row i's figures in this run; 0 where there is none. */
struct headline_values {
	bool planned; /* either cell is in the matrix */
	const struct cell *cell[DRV_MAX];
	double ns[DRV_MAX], spread[DRV_MAX], x_floor[DRV_MAX];
	double ratio, floor; /* tapx / tun; the floor's ns */
	double copy;	     /* the copy floor's ns, where measured */
	/* Guest instructions per frame (tests/vm/icount), tapx / tun. */
	double insns[DRV_MAX], insns_ratio;
};

void headline_values(const struct bench_run *run, int i,
		     struct headline_values *v);
bool headline_planned(const struct bench_run *run);
void headline_table(const struct bench_run *run, FILE *out);
void headline_csv(const struct bench_run *run, FILE *out);
void headline_json(const struct bench_run *run, struct json_writer *jw);
/* chart.dat rows; the range of the figures in lo and hi; whether tapx has
 * any. */
bool headline_chart_data(const struct bench_run *run, FILE *out,
			 double *lo, double *hi);

#endif /* TA_BENCH_HEADLINE_H */
