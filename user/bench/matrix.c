// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* matrix.c - finding cells of a run: the references a cell is compared
 * with, and the cells of the plan in table order (matrix.h). */
#include "matrix.h"

const struct cell *tun_cell(const struct bench_run *run, int p, int w, int s)
{
	const struct cell *c = &run->cells[DRV_TUN][p][w][s];

	return c->status == CELL_OK ? c : NULL;
}

/* Cell i of the run in table order (writer, size, program, driver), or NULL
 * if it is not part of the plan. */
const struct cell *planned_cell(const struct bench_run *run, int i)
{
	int d = i % DRV_MAX, p = i / DRV_MAX % PROG_MAX;
	int s = i / (DRV_MAX * PROG_MAX) % NR_SIZES;
	int w = i / (DRV_MAX * PROG_MAX * NR_SIZES);
	const struct cell *c = &run->cells[d][p][w][s];

	return c->status == CELL_SKIPPED ? NULL : c;
}
