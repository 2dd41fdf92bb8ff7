/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * goals.h - the goals a table of tap-accel-bench is judged against
 * (--scale, --firewall): judged on the rows that ran, printed under the
 * table and in its JSON; and the CSV cells of its figures.
 */
#ifndef TA_BENCH_GOALS_H
#define TA_BENCH_GOALS_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/output/json.h"

struct bench_goal {
	bool measured; /* false: no row that ran could judge it */
	bool met;
	char value[64]; /* the figure it was judged on */
};

/* "TITLE" then a line a goal: its text (padded to `width`), the figure,
 * met / not met / not measured. */
void bench_goals_print(FILE *out, const char *title, const char *const *text,
		       const struct bench_goal *g, int n, int width);
/* "goals": [{"goal", "met" (null: not measured), "measured"}, ...] */
void bench_goals_json(struct json_writer *w, const char *const *text,
		      const struct bench_goal *g, int n);
/* ",FIGURE" in a CSV line; "," for one not measured (NaN, infinite). */
void bench_csv_num(FILE *out, double v);

#endif /* TA_BENCH_GOALS_H */
