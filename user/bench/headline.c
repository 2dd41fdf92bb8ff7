// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * headline.c - the dozen rows of a run an operator reads first: each one
 * a cell of stock tun beside a cell of tapx (usually the same program and
 * writer; for forwarding, tapx's XDP redirect beside tun's Linux bridge,
 * which is what it replaces), with their ratio and each one's ratio to the
 * floor. Table, CSV, JSON and the chart all come from the same rows.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "headline.h"
#include "lib/output/json.h"

const struct headline_row headline_rows[NR_HEADLINE] = {
	{"xdp-drop-block", "XDP_DROP, blocking write()", WR_BLOCK, SIZE_64,
	 PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-drop-nonblock", "XDP_DROP, nonblocking write()", WR_NONBLOCK,
	 SIZE_64, PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-drop-writev", "XDP_DROP, writev()", WR_WRITEV, SIZE_64,
	 PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-drop-io_uring", "XDP_DROP, io_uring", WR_URING, SIZE_64,
	 PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-drop-batch64", "XDP_DROP, batches of 64", WR_BATCH64, SIZE_64,
	 PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-drop-block-1500", "XDP_DROP, blocking, 1500 B", WR_BLOCK,
	 SIZE_1500, PROG_XDP_DROP_NATIVE, PROG_XDP_DROP_NATIVE},
	{"xdp-tx", "XDP_TX back to the writer's tap", WR_NONBLOCK, SIZE_64,
	 PROG_XDP_TX, PROG_XDP_TX},
	{"xdp-redirect", "XDP redirect to another tap", WR_NONBLOCK, SIZE_64,
	 PROG_XDP_REDIRECT, PROG_XDP_REDIRECT},
	{"fwd-vs-bridge", "tap to tap: XDP vs tun's bridge", WR_NONBLOCK,
	 SIZE_64, PROG_FWD_BRIDGE, PROG_FWD_REDIRECT},
	{"fwd-batch64-vs-bridge", "tap to tap, batches of 64, vs bridge",
	 WR_BATCH64, SIZE_64, PROG_FWD_BRIDGE, PROG_FWD_REDIRECT},
	{"pass-stack", "PASS to the stack (UDP)", WR_NONBLOCK, SIZE_64,
	 PROG_STACK_UDP, PROG_STACK_UDP},
	{"pass-stack-batch64", "PASS to the stack, batches of 64", WR_BATCH64,
	 SIZE_64, PROG_STACK_UDP, PROG_STACK_UDP},
};

static const struct cell *row_cell(const struct bench_run *run,
				   const struct headline_row *h, int d)
{
	const struct cell *c =
		&run->cells[d][d == DRV_TUN ? h->tun_prog : h->tapx_prog]
			   [h->writer][h->size_idx];

	return c->status == CELL_SKIPPED ? NULL : c;
}

static double ok_ns(const struct cell *c)
{
	return c && c->status == CELL_OK ? c->median : 0;
}

static double spread(const struct cell *c)
{
	return ok_ns(c) ? 100 * (c->max - c->min) / c->median : 0;
}

void headline_values(const struct bench_run *run, int i,
		     struct headline_values *v)
{
	const struct headline_row *h = &headline_rows[i];
	const struct cell *fl = floor_cell(run, h->writer, h->size_idx);
	const struct cell *cf = copy_cell(run, h->writer, h->size_idx);

	memset(v, 0, sizeof(*v));
	v->cell[DRV_TUN] = row_cell(run, h, DRV_TUN);
	v->cell[DRV_TAPX] = row_cell(run, h, DRV_TAPX);
	v->planned = v->cell[DRV_TUN] || v->cell[DRV_TAPX];
	v->floor = fl ? fl->median : 0;
	v->copy = cf ? cf->median : 0;
	for (int d = 0; d < DRV_MAX; d++) {
		v->ns[d] = ok_ns(v->cell[d]);
		v->spread[d] = spread(v->cell[d]);
		v->x_floor[d] = v->ns[d] && v->floor ? v->ns[d] / v->floor : 0;
		v->insns[d] = cell_insns(v->cell[d]);
	}
	v->insns_ratio = v->insns[DRV_TUN] && v->insns[DRV_TAPX]
				 ? v->insns[DRV_TAPX] / v->insns[DRV_TUN]
				 : 0;
	v->ratio = v->ns[DRV_TUN] && v->ns[DRV_TAPX]
			   ? v->ns[DRV_TAPX] / v->ns[DRV_TUN]
			   : 0;
}

bool headline_planned(const struct bench_run *run)
{
	struct headline_values v;

	for (int i = 0; i < NR_HEADLINE; i++) {
		headline_values(run, i, &v);
		if (v.planned)
			return true;
	}
	return false;
}

/* "1234 ±5%", or why there is no figure, in a field of 13. */
static void print_ns(FILE *out, const struct cell *c)
{
	char buf[32];

	if (!c)
		snprintf(buf, sizeof(buf), "-");
	else if (c->status == CELL_OK)
		snprintf(buf, sizeof(buf), "%.0f ±%.0f%%", c->median,
			 spread(c));
	else
		snprintf(buf, sizeof(buf), "%s",
			 c->status == CELL_ABSENT ? "ABSENT" : "n/a");
	fprintf(out, " %13s", buf);
}

static void print_x(FILE *out, double x, int width)
{
	if (x)
		fprintf(out, " %*.2f", width, x);
	else
		fprintf(out, " %*s", width, "-");
}

static void print_insns(FILE *out, double n)
{
	if (n)
		fprintf(out, " %10.1f", n);
	else
		fprintf(out, " %10s", "-");
}

void headline_table(const struct bench_run *run, FILE *out)
{
	/* The copy floor's column where /dev/copyfloor was there. */
	bool copy = run->opts.want_prog[PROG_COPY];
	struct headline_values v;

	fprintf(out,
		"\nheadline: ns per frame written into a tap (median ±spread; "
		"64 B unless said)%s\n"
		"%-37s %-8s %13s %13s %8s %7s %7s%s",
		run->icount ? ",\nguest instructions per frame on the writer's vCPU (median)" : "",
		"", "writer", "tun", "tapx", "tapx/tun", "tun", "tapx",
		copy ? "    copy" : "");
	if (run->icount)
		fprintf(out, " %10s %10s %8s", "tun", "tapx", "tapx/tun");
	fprintf(out, "\n%-37s %-8s %13s %13s %8s %7s %7s%s", "", "", "", "",
		"", "x floor", "x floor", copy ? " x floor" : "");
	if (run->icount)
		fprintf(out, " %10s %10s %8s", "insn", "insn", "insn");
	fputc('\n', out);
	for (int i = 0; i < NR_HEADLINE; i++) {
		const struct headline_row *h = &headline_rows[i];

		headline_values(run, i, &v);
		if (!v.planned)
			continue;
		fprintf(out, "%-37s %-8s", h->label,
			bench_writer_name[h->writer]);
		print_ns(out, v.cell[DRV_TUN]);
		print_ns(out, v.cell[DRV_TAPX]);
		print_x(out, v.ratio, 8);
		print_x(out, v.x_floor[DRV_TUN], 7);
		print_x(out, v.x_floor[DRV_TAPX], 7);
		if (copy)
			print_x(out, v.copy && v.floor ? v.copy / v.floor : 0,
				7);
		if (run->icount) {
			print_insns(out, v.insns[DRV_TUN]);
			print_insns(out, v.insns[DRV_TAPX]);
			print_x(out, v.insns_ratio, 8);
		}
		fputc('\n', out);
	}
	fprintf(out, "floor: write() to /dev/null, same writer (batches: one "
		     "write() per frame)\n");
	if (copy)
		fprintf(out, "copy: write() to /dev/copyfloor, which only copies "
			     "each frame: the least a driver\n"
			     "that copies every frame once can take (batches: "
			     "TAPXSUBMIT of 64, as tapx)\n");
	fprintf(out, "batches: tapx submits 64 frames per TAPXSUBMIT, tun "
		     "writes one per nonblocking write()\n");
}

/* ",VALUE" to `decimals` places, or an empty field for 0 (not measured). */
static void csv_num(FILE *out, int decimals, double v)
{
	fputc(',', out);
	if (v)
		fprintf(out, "%.*f", decimals, v);
}

void headline_csv(const struct bench_run *run, FILE *out)
{
	struct headline_values v;

	fprintf(out, "row,label,writer,size,tun_program,tapx_program,tun_ns,"
		     "tun_spread_pct,tapx_ns,tapx_spread_pct,tapx_per_tun,"
		     "floor_ns,tun_x_floor,tapx_x_floor,copy_floor_ns,tun_insns,"
		     "tapx_insns,tapx_per_tun_insns\n");
	for (int i = 0; i < NR_HEADLINE; i++) {
		const struct headline_row *h = &headline_rows[i];

		headline_values(run, i, &v);
		if (!v.planned)
			continue;
		fprintf(out, "%s,\"%s\",%s,%d,%s,%s", h->key, h->label,
			bench_writer_name[h->writer], bench_size[h->size_idx],
			bench_prog_name[h->tun_prog],
			bench_prog_name[h->tapx_prog]);
		for (int d = 0; d < DRV_MAX; d++)
			if (v.ns[d])
				fprintf(out, ",%.1f,%.1f", v.ns[d],
					v.spread[d]);
			else
				fprintf(out, ",,");
		csv_num(out, 3, v.ratio);
		csv_num(out, 1, v.floor);
		for (int d = 0; d < DRV_MAX; d++)
			csv_num(out, 3, v.x_floor[d]);
		csv_num(out, 1, v.copy);
		for (int d = 0; d < DRV_MAX; d++)
			csv_num(out, 1, v.insns[d]);
		csv_num(out, 4, v.insns_ratio);
		fputc('\n', out);
	}
}

/* The headline keeps 0 for "not measured"; JSON says null. */
static double or_nan(double v)
{
	return v ? v : NAN;
}

void headline_json(const struct bench_run *run, struct json_writer *jw)
{
	struct headline_values v;

	jw_key(jw, "headline");
	jw_array_begin(jw);
	for (int i = 0; i < NR_HEADLINE; i++) {
		const struct headline_row *h = &headline_rows[i];

		headline_values(run, i, &v);
		if (!v.planned)
			continue;
		jw_object_begin(jw);
		jw_kv_string(jw, "row", h->key);
		jw_kv_string(jw, "label", h->label);
		jw_kv_string(jw, "writer", bench_writer_name[h->writer]);
		jw_kv_u64(jw, "size", bench_size[h->size_idx]);
		for (int d = 0; d < DRV_MAX; d++) {
			jw_key(jw, bench_driver_name[d]);
			jw_object_begin(jw);
			jw_kv_string(jw, "program",
				     bench_prog_name[d == DRV_TUN
							     ? h->tun_prog
							     : h->tapx_prog]);
			jw_kv_string(jw, "status",
				     v.cell[d] ? (v.cell[d]->status == CELL_OK
							  ? "ok"
							  : v.cell[d]->why)
					       : "not in the matrix");
			jw_kv_double(jw, "median_ns", or_nan(v.ns[d]));
			jw_kv_double(jw, "spread_pct", or_nan(v.spread[d]));
			jw_kv_double(jw, "x_floor", or_nan(v.x_floor[d]));
			if (run->icount)
				jw_kv_double(jw, "insns_per_frame",
					     or_nan(v.insns[d]));
			jw_object_end(jw);
		}
		jw_kv_double(jw, "tapx_per_tun", or_nan(v.ratio));
		if (run->icount)
			jw_kv_double(jw, "tapx_per_tun_insns",
				     or_nan(v.insns_ratio));
		jw_kv_double(jw, "floor_ns", or_nan(v.floor));
		jw_kv_double(jw, "copy_floor_ns", or_nan(v.copy));
		jw_object_end(jw);
	}
	jw_array_end(jw);
}

/* chart.dat of the headline: one row per headline row, tun and tapx.
 * Whether tapx has a figure in any row. */
bool headline_chart_data(const struct bench_run *run, FILE *out, double *lo,
			 double *hi)
{
	struct headline_values v;
	bool tapx = false;

	*lo = 1e300;
	*hi = 0;
	fprintf(out, "# row\ttun\ttapx\n");
	for (int i = 0; i < NR_HEADLINE; i++) {
		headline_values(run, i, &v);
		if (!v.planned)
			continue;
		fprintf(out, "%s", headline_rows[i].label);
		for (int d = 0; d < DRV_MAX; d++) {
			if (v.ns[d]) {
				fprintf(out, "\t%.1f", v.ns[d]);
				*lo = v.ns[d] < *lo ? v.ns[d] : *lo;
				*hi = v.ns[d] > *hi ? v.ns[d] : *hi;
				tapx |= d == DRV_TAPX;
			} else {
				fprintf(out, "\tNaN");
			}
		}
		fputc('\n', out);
	}
	return tapx;
}
