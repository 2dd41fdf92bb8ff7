// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * report.c - what a run leaves behind: the table on the terminal, and in
 * the results folder results.csv, results.json, table.txt and a gnuplot
 * chart (chart.svg, from chart.gp and chart.dat, kept for re-plotting).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* net/if.h (through lib/policy/spec.h) before linux/if.h (through env.h) */
#include "lib/policy/names.h"
#include "files.h"
#include "headline.h"
#include "report.h"
#include "writers.h"
#include "lib/output/json.h"

static const char *const status_name[] = {
	[CELL_SKIPPED] = "skipped", [CELL_PENDING] = "pending",
	[CELL_OK] = "ok",	    [CELL_NA] = "n/a",
	[CELL_ABSENT] = "absent",   [CELL_FAILED] = "failed",
};

static double ratio(const struct cell *c, const struct cell *ref)
{
	return c->status == CELL_OK && ref ? c->median / ref->median : 0;
}

static double spread_pct(const struct cell *c)
{
	return c->median > 0 ? 100 * (c->max - c->min) / c->median : 0;
}

static int drivers_in_run(const struct bench_run *run)
{
	int n = 0;

	for (int d = 0; d < DRV_MAX; d++)
		n += run->opts.want_driver[d];
	return n;
}

/* ---- terminal table ----------------------------------------------------- */

static void table_header(const struct bench_run *run, FILE *out)
{
	const struct bench_opts *o = &run->opts;

	fprintf(out, "\ntap-accel-bench: %s, %s, %s mode\n", run->kernel,
		run->started,
		o->vm	  ? "vm"
		: o->full ? "full"
			  : "quick");
	fprintf(out,
		"%lu frames x %d repetitions per cell (frames over 1514 B: "
		"same bytes), "
		"median; writer on CPU %d, readers on CPU %d; %.0f s\n",
		o->frames, o->reps, run->writer_cpu, run->reader_cpu,
		run->seconds);
	fprintf(out, "cpu: %s, %d online; load average %s at the start, %s at the end\n",
		run->cpu_model, run->nr_cpus, run->load_start, run->load_end);
	fprintf(out, "frame: %s\n",
		o->udp_frames ? "valid UDP broadcast (--frame udp)"
			      : "broadcast, IPv4 ethertype, zeros after "
				"(--frame baseline); policy and bridge: valid UDP");
	fprintf(out, "ns/frame: median of the repetitions, each timed as wall "
		     "time minus the time\n"
		     "other processes held the writer's CPU; spread: (max - "
		     "min) / median;\n"
		     "x floor: / write() to /dev/null; x stock: / stock tun, "
		     "no program "
		     "(same writer and size)\n\n");
}

/* Guest instructions per frame, where counted, in a field of 10. */
static void print_insns(FILE *out, const struct cell *c)
{
	if (cell_insns(c))
		fprintf(out, " %10.1f", cell_insns(c));
	else
		fprintf(out, " %10s", "-");
}

static void table_row(const struct bench_run *run, const struct cell *c,
		      bool show_driver, FILE *out)
{
	fprintf(out, "%-8s %5d  ", bench_writer_name[c->writer],
		bench_size[c->size_idx]);
	if (show_driver)
		fprintf(out, "%-4s ",
			floor_prog(c->prog) ? ""
					      : bench_driver_name[c->driver]);
	fprintf(out, "%-21s ", bench_prog_label[c->prog]);
	if (c->status != CELL_OK) {
		fprintf(out, "%9s  %s\n",
			c->status == CELL_ABSENT ? "ABSENT"
						 : status_name[c->status],
			c->why);
		return;
	}
	fprintf(out, "%9.1f %6.1f%%", c->median, spread_pct(c));
	if (run->icount)
		print_insns(out, c);
	fprintf(out, " %6.2f %7.2f %7.2f  %s%s\n", 1000 / c->median,
		ratio(c, floor_cell(run, c->writer, c->size_idx)),
		ratio(c, stock_cell(run, c->writer, c->size_idx)), c->fate,
		c->accounted ? "" : " (!)");
}

/* The same figures as a matrix: programs down, writer and frame size
 * across, ns per frame. */
static void table_matrix(const struct bench_run *run, int d, FILE *out)
{
	bool col[WR_MAX][NR_SIZES] = {0};

	fprintf(out, "\n%s, ns per frame (median):\n%-22s",
		bench_driver_name[d], "program");
	for (int w = 0; w < WR_MAX; w++)
		for (int s = 0; s < NR_SIZES; s++) {
			col[w][s] = run->opts.want_writer[w] &&
				    run->opts.want_size[s];
			if (col[w][s]) {
				char h[24];

				snprintf(h, sizeof(h), "%d %s", bench_size[s],
					 bench_writer_name[w]);
				fprintf(out, " %14s", h);
			}
		}
	fputc('\n', out);
	for (int p = 0; p < PROG_MAX; p++) {
		if (!run->opts.want_prog[p])
			continue;
		fprintf(out, "%-22s", bench_prog_label[p]);
		for (int w = 0; w < WR_MAX; w++)
			for (int s = 0; s < NR_SIZES; s++) {
				const struct cell *c =
					&run->cells[floor_prog(p)
							    ? DRV_TUN
							    : d][p][w][s];

				if (!col[w][s])
					continue;
				if (c->status == CELL_OK)
					fprintf(out, " %14.0f", c->median);
				else
					fprintf(out, " %14s",
						c->status == CELL_ABSENT
							? "ABSENT"
							: "n/a");
			}
		fputc('\n', out);
	}
}

/* --vm: stock tun and tapx next to each other, one line per cell; ns and
 * spread. */
static void print_ns(FILE *out, const struct cell *c)
{
	if (c->status == CELL_OK)
		fprintf(out, " %9.0f %5.0f%%", c->median, spread_pct(c));
	else
		fprintf(out, " %9s %6s",
			c->status == CELL_ABSENT ? "ABSENT" : "n/a", "");
}

static void print_ratio(FILE *out, const struct cell *c, const struct cell *ref)
{
	if (c->status == CELL_OK && ref && ref->status == CELL_OK)
		fprintf(out, " %9.2f", c->median / ref->median);
	else
		fprintf(out, " %9s", "-");
}

/* One line of the side-by-side table: both drivers, their ratio, and each
 * one's ratio to the floor. */
static void side_by_side_row(const struct bench_run *run, int p, int w, int s,
			     FILE *out)
{
	const struct cell *t = &run->cells[DRV_TUN][p][w][s];
	const struct cell *x = &run->cells[DRV_TAPX][p][w][s];
	const struct cell *fl = floor_cell(run, w, s);

	fprintf(out, "%-8s %5d  %-21s", bench_writer_name[w], bench_size[s],
		bench_prog_label[p]);
	print_ns(out, t);
	print_ns(out, x);
	print_ratio(out, x, t);
	print_ratio(out, t, fl);
	print_ratio(out, x, fl);
	if (run->icount) {
		print_insns(out, t);
		print_insns(out, x);
		if (cell_insns(t) && cell_insns(x))
			fprintf(out, " %9.3f", cell_insns(x) / cell_insns(t));
		else
			fprintf(out, " %9s", "-");
	}
	fputc('\n', out);
}

/* --vm: stock tun and tapx next to each other, one line per cell. */
static void table_side_by_side(const struct bench_run *run, FILE *out)
{
	fprintf(out, "\ntun vs tapx, same boot, repetitions interleaved "
		     "(ns per frame, median, spread):\n"
		     "batchN: tapx submits N frames per TAPXSUBMIT; tun writes "
		     "one frame per\nnonblocking write() and the floor is one "
		     "write() per frame to /dev/null\n");
	if (run->icount)
		fprintf(out, "insn: guest instructions per frame on the "
			     "writer's vCPU (median), same cells\n");
	fprintf(out, "%-8s %5s  %-21s %9s %6s %9s %6s %9s %9s %9s", "writer",
		"size", "program", "tun", "spread", "tapx", "spread",
		"tapx/tun", "tun/floor", "tapx/floor");
	if (run->icount)
		fprintf(out, " %10s %10s %9s", "tun insn", "tapx insn",
			"insn x/t");
	fputc('\n', out);
	for (int w = 0; w < WR_MAX; w++)
		for (int s = 0; s < NR_SIZES; s++) {
			const struct cell *fl = floor_cell(run, w, s);

			if (run->cells[DRV_TUN][PROG_NONE][w][s].status ==
			    CELL_SKIPPED)
				continue;
			fprintf(out, "%-8s %5d  %-21s", bench_writer_name[w],
				bench_size[s], bench_prog_label[PROG_FLOOR]);
			if (fl && run->icount)
				fprintf(out, " %9.0f %5.0f%%%*s", fl->median,
					spread_pct(fl), 47, "");
			else if (fl)
				fprintf(out, " %9.0f %5.0f%%", fl->median,
					spread_pct(fl));
			else
				fprintf(out, " %9s", "n/a");
			if (fl && run->icount)
				print_insns(out, fl);
			fputc('\n', out);
			if (copy_cell(run, w, s)) {
				const struct cell *cf = copy_cell(run, w, s);

				fprintf(out, "%-8s %5d  %-21s %9.0f %5.0f%%",
					bench_writer_name[w], bench_size[s],
					bench_prog_label[PROG_COPY], cf->median,
					spread_pct(cf));
				fprintf(out, "%*s", 34, "");
				print_ratio(out, cf, fl);
				if (run->icount) {
					fprintf(out, "%*s", 3, "");
					print_insns(out, cf);
				}
				fputc('\n', out);
			}
			for (int p = PROG_NONE; p < PROG_MAX; p++)
				if (run->cells[DRV_TUN][p][w][s].status !=
				    CELL_SKIPPED)
					side_by_side_row(run, p, w, s, out);
		}
}

static bool group_forwards(const struct bench_run *run, int w, int s)
{
	for (int d = 0; d < DRV_MAX; d++)
		if (run->cells[d][PROG_FWD_REDIRECT][w][s].status !=
			    CELL_SKIPPED ||
		    run->cells[d][PROG_FWD_BRIDGE][w][s].status != CELL_SKIPPED)
			return true;
	return false;
}

static void fwd_row(const struct bench_run *run, const struct cell *c,
		    FILE *out)
{
	int w = c->writer, s = c->size_idx;

	fprintf(out, "%-8s %5d  %-4s %-17s", bench_writer_name[w],
		bench_size[s], bench_driver_name[c->driver],
		bench_prog_label[c->prog]);
	if (c->status != CELL_OK) {
		fprintf(out, " %9s  %s\n",
			c->status == CELL_ABSENT ? "ABSENT"
						 : status_name[c->status],
			c->why);
		return;
	}
	fprintf(out, " %9.0f %5.0f%%", c->median, spread_pct(c));
	print_ratio(out, c, floor_cell(run, w, s));
	print_ratio(out, c, tun_cell(run, PROG_FWD_BRIDGE, w, s));
	print_ratio(out, c, tun_cell(run, PROG_FWD_REDIRECT, w, s));
	fprintf(out, "  %s%s\n", c->fate, c->accounted ? "" : " (!)");
}

/* Forwarding between two taps, write to A through read from B, with the
 * ratios to stock tun's ways of forwarding: its bridge and its XDP
 * redirect. */
static void table_forwarding(const struct bench_run *run, FILE *out)
{
	static const int order[] = {PROG_FWD_BRIDGE, PROG_FWD_REDIRECT};

	fprintf(out,
		"\nforwarding: write into tap A, forwarded to tap B, read back "
		"from B in the\nwriter's thread (per-frame writers: chunks of "
		"%d; batchN: TAPXSUBMIT N, TAPXRECV N\non tapx, per-frame "
		"nonblocking write() and read() on tun); ns per frame, "
		"median,\n"
		"spread; x bridge, x tun redir: / stock tun's bridge and XDP "
		"redirect, same group\n",
		FWD_CHUNK);
	fprintf(out, "%-8s %5s  %-4s %-17s %9s %6s %9s %9s %9s  %s\n", "writer",
		"size", "drv", "path", "ns/frame", "spread", "x floor",
		"x bridge", "x tun redir", "counters");
	for (int w = 0; w < WR_MAX; w++)
		for (int s = 0; s < NR_SIZES; s++) {
			if (!group_forwards(run, w, s))
				continue;
			for (int d = 0; d < DRV_MAX; d++)
				for (int i = 0; i < 2; i++) {
					const struct cell *c =
						&run->cells[d][order[i]][w][s];

					if (c->status != CELL_SKIPPED)
						fwd_row(run, c, out);
				}
		}
}

void report_table(const struct bench_run *run, FILE *out)
{
	bool show_driver = drivers_in_run(run) > 1;
	const struct cell *c;
	int last_w = -1, last_s = -1;

	table_header(run, out);
	if (headline_planned(run)) {
		headline_table(run, out);
		fprintf(out, "\nthe full matrix:\n");
	}
	fprintf(out, "%-8s %5s  %s%-21s %9s %7s", "writer", "size",
		show_driver ? "drv  " : "", "program", "ns/frame", "spread");
	if (run->icount)
		fprintf(out, " %10s", "insn/frame");
	fprintf(out, " %6s %7s %7s  %s\n", "Mpps", "x floor", "x stock",
		"counters");
	for (int i = 0; i < NR_CELLS; i++) {
		if (!(c = planned_cell(run, i)))
			continue;
		if ((int)c->writer != last_w || c->size_idx != last_s) {
			if (last_w >= 0)
				fputc('\n', out);
			last_w = c->writer;
			last_s = c->size_idx;
		}
		table_row(run, c, show_driver, out);
	}
	for (int d = 0; d < DRV_MAX; d++)
		if (run->opts.want_driver[d])
			table_matrix(run, d, out);
	if (run->opts.want_driver[DRV_TAPX] && run->opts.want_driver[DRV_TUN])
		table_side_by_side(run, out);
	if (run->opts.want_prog[PROG_FWD_BRIDGE] ||
	    run->opts.want_prog[PROG_FWD_REDIRECT])
		table_forwarding(run, out);
	fputc('\n', out);
}

/* ---- JSON --------------------------------------------------------------- */

static void json_counts(struct json_writer *jw, const struct cell *c)
{
	const struct cell_counts *k = &c->counts;

	jw_key(jw, "counters");
	jw_object_begin(jw);
	jw_kv_u64(jw, "written", k->written);
	jw_kv_u64(jw, "write_errors", k->write_errors);
	jw_key(jw, "verdicts");
	jw_object_begin(jw);
	for (int v = 0; v < 5; v++)
		jw_kv_u64(jw, ta_verdict_names[v], k->verdict[v]);
	jw_object_end(jw);
	jw_kv_u64(jw, "tap_rx", k->tap_rx);
	jw_kv_u64(jw, "tap_rx_dropped", k->tap_rx_dropped);
	jw_kv_u64(jw, "read", k->read);
	jw_kv_u64(jw, "read_lost", k->read_lost);
	jw_object_end(jw);
}

/* One figure per repetition. */
static void json_reps(struct json_writer *jw, const char *key,
		      const double *v, int reps)
{
	jw_key(jw, key);
	jw_array_begin(jw);
	for (int r = 0; r < reps; r++)
		jw_double(jw, v[r]);
	jw_array_end(jw);
}

static void json_cell(struct json_writer *jw, const struct bench_run *run,
		      const struct cell *c)
{
	const struct cell *fl = floor_cell(run, c->writer, c->size_idx);
	const struct cell *st = stock_cell(run, c->writer, c->size_idx);

	jw_object_begin(jw);
	jw_kv_string(jw, "driver",
		     floor_prog(c->prog) ? "none"
					   : bench_driver_name[c->driver]);
	jw_kv_string(jw, "program", bench_prog_name[c->prog]);
	jw_kv_string(jw, "writer", bench_writer_name[c->writer]);
	jw_kv_string(jw, "writes_as", bench_writer_name[effective_writer(c)]);
	jw_kv_u64(jw, "size", bench_size[c->size_idx]);
	jw_kv_string(jw, "frame", bench_frame_name[c->frame]);
	jw_kv_string(jw, "status", status_name[c->status]);
	if (c->status != CELL_OK) {
		jw_kv_string(jw, "reason", c->why);
		jw_object_end(jw);
		return;
	}
	jw_kv_u64(jw, "frames", c->frames);
	jw_kv_u64(jw, "reps", c->reps);
	if (c->mtu)
		jw_kv_u64(jw, "mtu", c->mtu);
	json_reps(jw, "ns_per_frame", c->ns, c->reps);
	json_reps(jw, "wall_ns_per_frame", c->wall_ns, c->reps);
	jw_kv_double(jw, "median_ns", c->median);
	jw_kv_double(jw, "median_wall_ns", c->median_wall);
	jw_kv_double(jw, "min_ns", c->min);
	jw_kv_double(jw, "max_ns", c->max);
	jw_kv_double(jw, "mpps", 1000 / c->median);
	if (run->icount) {
		const struct cell *t =
			tun_cell(run, c->prog, c->writer, c->size_idx);

		json_reps(jw, "insns_per_frame_reps", c->insns, c->reps);
		jw_kv_double(jw, "insns_per_frame", c->median_insns);
		if (c->driver == DRV_TAPX && cell_insns(t) && cell_insns(c))
			jw_kv_double(jw, "tapx_per_tun_insns",
				     cell_insns(c) / cell_insns(t));
	}
	if (fl)
		jw_kv_double(jw, "ratio_floor", c->median / fl->median);
	if (st)
		jw_kv_double(jw, "ratio_stock", c->median / st->median);
	if (forward_prog(c->prog)) {
		const struct cell *br = tun_cell(run, PROG_FWD_BRIDGE,
						     c->writer, c->size_idx);
		const struct cell *rd = tun_cell(run, PROG_FWD_REDIRECT,
						     c->writer, c->size_idx);

		if (br)
			jw_kv_double(jw, "ratio_bridge",
				     c->median / br->median);
		if (rd)
			jw_kv_double(jw, "ratio_tun_redirect",
				     c->median / rd->median);
	}
	json_counts(jw, c);
	jw_kv_bool(jw, "accounted", c->accounted);
	jw_kv_string(jw, "fate", c->fate);
	jw_object_end(jw);
}

void report_json(const struct bench_run *run, FILE *out, bool pretty)
{
	const struct bench_opts *o = &run->opts;
	struct json_writer jw;
	const struct cell *c;

	jw_init(&jw, out, pretty);
	jw_object_begin(&jw);
	jw_kv_string(&jw, "started", run->started);
	jw_kv_string(&jw, "kernel", run->kernel);
	jw_kv_string(&jw, "mode", o->vm ? "vm" : o->full ? "full" : "quick");
	jw_kv_u64(&jw, "frames", o->frames);
	jw_kv_u64(&jw, "reps", o->reps);
	jw_kv_u64(&jw, "warmup_pct", o->warmup_pct);
	jw_key(&jw, "writer_cpu");
	jw_i64(&jw, run->writer_cpu);
	jw_key(&jw, "reader_cpu");
	jw_i64(&jw, run->reader_cpu);
	jw_kv_u64(&jw, "uring_batch", URING_BATCH);
	jw_kv_bool(&jw, "icount", run->icount);
	jw_kv_double(&jw, "seconds", run->seconds);
	jw_kv_string(&jw, "results", run->out_dir);
	jw_kv_string(&jw, "cpu", run->cpu_model);
	jw_kv_u64(&jw, "cpus", run->nr_cpus);
	jw_kv_string(&jw, "load_start", run->load_start);
	jw_kv_string(&jw, "load_end", run->load_end);
	jw_key(&jw, "drivers");
	jw_array_begin(&jw);
	for (int d = 0; d < DRV_MAX; d++)
		if (o->want_driver[d])
			jw_string(&jw, bench_driver_name[d]);
	jw_array_end(&jw);
	headline_json(run, &jw);
	jw_key(&jw, "cells");
	jw_array_begin(&jw);
	for (int i = 0; i < NR_CELLS; i++)
		if ((c = planned_cell(run, i)))
			json_cell(&jw, run, c);
	jw_array_end(&jw);
	jw_object_end(&jw);
	jw_end_document(&jw);
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

/* ",INSNS,TAPX/TUN" where counted, else two empty fields. */
static void csv_insns(const struct bench_run *run, const struct cell *c,
		      FILE *out)
{
	const struct cell *t = tun_cell(run, c->prog, c->writer, c->size_idx);

	if (cell_insns(c))
		fprintf(out, ",%.1f", cell_insns(c));
	else
		fputc(',', out);
	if (c->driver == DRV_TAPX && cell_insns(c) && cell_insns(t))
		fprintf(out, ",%.4f", cell_insns(c) / cell_insns(t));
	else
		fputc(',', out);
}

static void write_csv(const struct bench_run *run, FILE *out)
{
	const struct cell *c;

	fprintf(out, "driver,program,writer,size,frame,status,reason,frames,"
		     "reps,mtu,median_ns,"
		     "min_ns,max_ns,median_wall_ns,mpps,ratio_floor,ratio_"
		     "stock,insns_per_frame,tapx_per_tun_insns,written,write_"
		     "errors,"
		     "xdp_aborted,xdp_drop,xdp_pass,xdp_tx,xdp_redirect,tap_rx,"
		     "tap_rx_dropped,read,read_lost,accounted,writes_as\n");
	for (int i = 0; i < NR_CELLS; i++) {
		if (!(c = planned_cell(run, i)))
			continue;
		const struct cell_counts *k = &c->counts;
		bool ok = c->status == CELL_OK;

		fprintf(out, "%s,%s,%s,%d,%s,%s,",
			floor_prog(c->prog) ? "none"
					      : bench_driver_name[c->driver],
			bench_prog_name[c->prog], bench_writer_name[c->writer],
			bench_size[c->size_idx], bench_frame_name[c->frame],
			status_name[c->status]);
		csv_string(out, ok ? "" : c->why);
		if (!ok) {
			fprintf(out, ",,,,,,,,,,,,,,,,,,,,,,,,,%s\n",
				bench_writer_name[effective_writer(c)]);
			continue;
		}
		fprintf(out, ",%lu,%d,%u,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f",
			c->frames, c->reps, c->mtu, c->median, c->min, c->max,
			c->median_wall, 1000 / c->median,
			ratio(c, floor_cell(run, c->writer, c->size_idx)),
			ratio(c, stock_cell(run, c->writer, c->size_idx)));
		csv_insns(run, c, out);
		fprintf(out, ",%llu,%llu", (unsigned long long)k->written,
			(unsigned long long)k->write_errors);
		for (int v = 0; v < 5; v++)
			fprintf(out, ",%llu",
				(unsigned long long)k->verdict[v]);
		fprintf(out, ",%llu,%llu,%llu,%llu,%s,%s\n",
			(unsigned long long)k->tap_rx,
			(unsigned long long)k->tap_rx_dropped,
			(unsigned long long)k->read,
			(unsigned long long)k->read_lost,
			c->accounted ? "yes" : "no",
			bench_writer_name[effective_writer(c)]);
	}
}

/* ---- chart -------------------------------------------------------------- */

/* chart.dat: one row per program, one column per (driver, writer, size). */
static int write_chart_data(const struct bench_run *run, FILE *out)
{
	int cols = 0;

	fprintf(out, "program");
	for (int d = 0; d < DRV_MAX; d++)
		for (int w = 0; w < WR_MAX; w++)
			for (int s = 0; s < NR_SIZES; s++)
				if (run->opts.want_driver[d] &&
				    run->opts.want_writer[w] &&
				    run->opts.want_size[s]) {
					fprintf(out, "\t%s%s%s %d B",
						drivers_in_run(run) > 1
							? bench_driver_name[d]
							: "",
						drivers_in_run(run) > 1 ? " "
									: "",
						bench_writer_name[w],
						bench_size[s]);
					cols++;
				}
	fputc('\n', out);
	for (int p = 0; p < PROG_MAX; p++) {
		if (!run->opts.want_prog[p])
			continue;
		fprintf(out, "%s", bench_prog_label[p]);
		for (int d = 0; d < DRV_MAX; d++)
			for (int w = 0; w < WR_MAX; w++)
				for (int s = 0; s < NR_SIZES; s++) {
					const struct cell *c =
						&run->cells[floor_prog(p)
								    ? DRV_TUN
								    : d][p][w]
							   [s];

					if (!(run->opts.want_driver[d] &&
					      run->opts.want_writer[w] &&
					      run->opts.want_size[s]))
						continue;
					if (c->status == CELL_OK)
						fprintf(out, "\t%.1f",
							c->median);
					else
						fprintf(out, "\tNaN");
				}
		fputc('\n', out);
	}
	return cols;
}

static void write_chart_script(const struct bench_run *run, int cols,
			       bool log_scale, FILE *out)
{
	char plot[128];

	fprintf(out,
		"# gnuplot chart.gp  (re-plots chart.svg and chart.png from "
		"chart.dat)\n"
		"set title \"tap-accel-bench: ns per frame written into a tap "
		"(median, lower is better)\\n%s, %s\"\n"
		"set datafile separator tab\n"
		"set style data histograms\n"
		"set style histogram clustered gap 1\n"
		"set style fill solid 0.85 border -1\n"
		"set boxwidth 0.9\n"
		"set ylabel 'ns per frame'\n"
		"set xtics rotate by -30 nomirror\n"
		"set grid ytics\n"
		"set key outside right top\n"
		"%s\n",
		run->kernel, run->started,
		log_scale ? "set logscale y" : "set yrange [0:*]");
	snprintf(plot, sizeof(plot),
		 "plot for [i=2:%d] 'chart.dat' using i:xtic(1) title "
		 "columnheader(i)",
		 cols + 1);
	bench_chart_outputs(out, "chart", plot);
}

/* The headline's chart: per row, a tun bar and a tapx bar. */
static void write_headline_chart_script(const struct bench_run *run,
					bool log_scale, bool tapx, FILE *out)
{
	fprintf(out,
		"# gnuplot chart.gp  (re-plots chart.svg and chart.png from "
		"chart.dat)\n"
		"set title \"tap-accel-bench: stock tun%s, ns per frame "
		"written into a tap (median, lower is better)\\n%s, %s, %s%s\"\n"
		"set datafile separator tab\n"
		"set style data histograms\n"
		"set style histogram clustered gap 1\n"
		"set style fill solid 0.85 border -1\n"
		"set boxwidth 0.9\n"
		"set ylabel 'ns per frame%s'\n"
		"set xtics rotate by 30 right nomirror\n"
		"set bmargin 12\n"
		"set grid ytics\n"
		"set key inside left top\n"
		"%s\n",
		tapx ? " and tapx" : "", run->kernel, run->cpu_model,
		run->started,
		run->opts.vm ? "\\nin a VM (emulated CPU): compare ratios, "
			       "not times"
			     : "",
		log_scale ? " (log scale)" : "",
		log_scale ? "set logscale y" : "set yrange [0:*]");
	bench_chart_outputs(out, "chart",
		      tapx ? "plot 'chart.dat' using 2:xtic(1) title 'tun' lc "
			     "rgb '#888888', '' using 3 title 'tapx' lc rgb "
			     "'#1f77b4'"
			   : "plot 'chart.dat' using 2:xtic(1) title 'tun' lc "
			     "rgb '#888888'");
}

static bool wants_log_scale(const struct bench_run *run)
{
	double lo = 1e300, hi = 0;
	const struct cell *c;

	for (int i = 0; i < NR_CELLS; i++) {
		if (!(c = planned_cell(run, i)) || c->status != CELL_OK)
			continue;
		lo = c->median < lo ? c->median : lo;
		hi = c->median > hi ? c->median : hi;
	}
	return hi > 30 * lo;
}

/* ---- the results folder ------------------------------------------------- */

/* Whether chart.svg was drawn. */
static bool write_chart(const struct bench_run *run, const char *dir)
{
	FILE *dat, *gp;
	int cols;

	if (!bench_chart_open(dir, "chart", &dat, &gp))
		return false;
	if (headline_planned(run)) {
		double lo, hi;
		bool tapx = headline_chart_data(run, dat, &lo, &hi);

		write_headline_chart_script(run, hi > 10 * lo, tapx, gp);
	} else {
		cols = write_chart_data(run, dat);
		write_chart_script(run, cols, wants_log_scale(run), gp);
	}
	fclose(dat);
	fclose(gp);
	return bench_plot(dir, "chart");
}

int report_files(const struct bench_run *run)
{
	struct bench_run *r = (struct bench_run *)run;
	FILE *f;

	if (bench_results_dir(run->opts.out_dir, r->out_dir, sizeof(r->out_dir)))
		return -1;
	if (!(f = bench_open_in(run->out_dir, "results.csv")))
		return -1;
	write_csv(run, f);
	fclose(f);
	if (!(f = bench_open_in(run->out_dir, "results.json")))
		return -1;
	report_json(run, f, true);
	fclose(f);
	if (!(f = bench_open_in(run->out_dir, "table.txt")))
		return -1;
	report_table(run, f);
	fclose(f);
	if (headline_planned(run)) {
		if (!(f = bench_open_in(run->out_dir, "headline.csv")))
			return -1;
		headline_csv(run, f);
		fclose(f);
		if (!(f = bench_open_in(run->out_dir, "headline.txt")))
			return -1;
		headline_table(run, f);
		fclose(f);
	}
	fprintf(stderr,
		"tap-accel-bench: results in %s/ (results.csv, "
		"results.json, table.txt%s)\n",
		run->out_dir,
		write_chart(run, run->out_dir) ? ", chart.svg, chart.png" : "");
	return 0;
}
