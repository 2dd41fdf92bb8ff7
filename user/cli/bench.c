// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bench.c - the command line of `tap-accel bench`: read by the one option
 * parser every verb uses (common.c) into the options of the benchmark
 * harness (user/bench/), which gets them as a parameter.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/scale.h"
#include "verbs.h"

struct bench_cli {
	bool quick, full, vm, json, scale;
	long frames, reps, cpu, old_max, singles;
	const char *out, *programs, *writers, *sizes, *drivers, *tapx_dev, *taps;
	int frame;
};

static const struct opt_choice frames[] = { { "baseline", 0 }, { "udp", 1 }, { NULL, 0 } };

static const struct option_spec bench_options[] = {
	{ "quick", 0, OPT_FLAG, offsetof(struct bench_cli, quick), NULL,
	  "the default: frames of 64 and 1500 B, about 2 minutes per driver", NULL, 0, 0 },
	{ "full", 0, OPT_FLAG, offsetof(struct bench_cli, full), NULL,
	  "every program, writer and frame size (64 ... 65535 B)", NULL, 0, 0 },
	{ "frames", 0, OPT_COUNT, offsetof(struct bench_cli, frames), "N",
	  "frames per repetition (large frames get fewer, same bytes)", NULL, 10, 1e8 },
	{ "reps", 0, OPT_COUNT, offsetof(struct bench_cli, reps), "N",
	  "timed repetitions per cell (the median is reported)", NULL, 1, BENCH_MAX_REPS },
	{ "out", 0, OPT_STRING, offsetof(struct bench_cli, out), "DIR",
	  "results folder (default build/bench/<timestamp>/)", NULL, 0, 0 },
	{ "vm", 0, OPT_FLAG, offsetof(struct bench_cli, vm), NULL,
	  "stock tun and tapx (/dev/net/tapx) side by side, small", NULL, 0, 0 },
	{ "drivers", 0, OPT_STRING, offsetof(struct bench_cli, drivers), "LIST",
	  "tun (the default outside --vm) or tun,tapx: tapx.ko loaded on\n"
	  "/dev/net/tapx, both drivers in one run (with its batch writers)", NULL, 0, 0 },
	{ "cpu", 0, OPT_COUNT, offsetof(struct bench_cli, cpu), "N",
	  "pin the writer to CPU N", NULL, 0, CPU_SETSIZE - 1 },
	{ "tapx-dev", 0, OPT_STRING, offsetof(struct bench_cli, tapx_dev), "PATH",
	  "tapx's device node (default /dev/net/tapx; with /dev/net/tun, --vm\n"
	  "becomes an A/A check of the method)", NULL, 0, 0 },
	{ "frame", 0, OPT_CHOICE, offsetof(struct bench_cli, frame), "KIND",
	  "baseline (default): broadcast, IPv4 ethertype, zeros after the Ethernet\n"
	  "header; udp: a valid UDP broadcast (always for the policy and bridge\n"
	  "cells)", frames, 0, 0 },
	{ "programs", 0, OPT_STRING, offsetof(struct bench_cli, programs), "LIST",
	  "programs to run, comma-separated: floor copy-floor none xdp-drop-native\n"
	  "xdp-drop-generic xdp-tx xdp-redirect policy-1 policy-100 policy-1000\n"
	  "tc-drop bridge stack-udp fwd-redirect fwd-bridge (the floor and none\n"
	  "always run: they are the references)", NULL, 0, 0 },
	{ "writers", 0, OPT_STRING, offsetof(struct bench_cli, writers), "LIST",
	  "block nonblock writev io_uring batch1 batch8 batch64 batch256 (batchN:\n"
	  "N frames per TAPXSUBMIT, tapx only)", NULL, 0, 0 },
	{ "sizes", 0, OPT_STRING, offsetof(struct bench_cli, sizes), "LIST",
	  "frame sizes: 64 1500 9000 65535", NULL, 0, 0 },
	{ "scale", 0, OPT_FLAG, offsetof(struct bench_cli, scale), NULL,
	  "instead of the matrix: kernel memory and time to bind, list and count\n"
	  "taps bound to one policy, 1, 100 and 1000 of them (--full: and 4096)", NULL, 0, 0 },
	{ "taps", 0, OPT_STRING, offsetof(struct bench_cli, taps), "LIST",
	  "--scale: the numbers of taps, ascending (e.g. 1,100,1000,4096)", NULL, 0, 0 },
	{ "per-tap-max", 0, OPT_COUNT, offsetof(struct bench_cli, old_max), "N",
	  "--scale: per-tap instances (a program and map set of its own each)\n"
	  "up to N taps (default 100: each costs about 14 MiB)", NULL, 0, SCALE_MAX_TAPS },
	{ "singles", 0, OPT_COUNT, offsetof(struct bench_cli, singles), "N",
	  "--scale: taps bound one call each, per row (default 100; --full: all)", NULL,
	  0, SCALE_MAX_TAPS },
	OPTIONS_END,
};

static const struct bench_cli bench_defaults = { .cpu = -1, .old_max = -1, .singles = -1 };

static int run_scale(const struct bench_cli *c)
{
	struct scale_opts o;
	char err[160];

	if (c->programs || c->writers || c->sizes || c->drivers || c->vm || c->tapx_dev ||
	    c->frames || c->reps || c->cpu >= 0)
		return user_error("bench: --scale takes --taps, --per-tap-max, --singles, --full, "
				  "--out and --json, not the matrix's options");
	scale_opts_default(&o, c->full);
	if (c->taps && scale_parse_taps(&o, c->taps, err, sizeof(err)))
		return user_error("bench: %s", err);
	if (c->old_max >= 0)
		o.old_max = c->old_max;
	if (c->singles >= 0)
		o.single_max = c->singles;
	o.json = cli.json;
	o.pretty = cli.pretty;
	o.out_dir = c->out;
	return scale_run(&o);
}

static int run_bench(const void *opts, int argc, char **argv)
{
	const struct bench_cli *c = opts;
	struct bench_args a = {
		.programs = c->programs, .writers = c->writers, .sizes = c->sizes,
		.drivers = c->drivers, .frames = c->frames, .reps = c->reps,
	};
	struct bench_opts o;
	char err[160];

	(void)argc;
	(void)argv;
	if (c->scale)
		return run_scale(c);
	if (c->taps || c->old_max >= 0 || c->singles >= 0)
		return user_error("bench: --taps, --per-tap-max and --singles go with --scale");
	memset(&o, 0, sizeof(o));
	o.quick = c->quick;
	o.full = c->full;
	o.vm = c->vm;
	o.json = cli.json; /* tap-accel --json bench, or bench --json */
	o.pretty = cli.pretty;
	o.out_dir = c->out;
	o.udp_frames = c->frame == 1;
	o.cpu = (int)c->cpu;
	memcpy(o.dev, bench_default_dev, sizeof(o.dev));
	if (c->tapx_dev)
		o.dev[DRV_TAPX] = c->tapx_dev;
	if (o.quick && o.full)
		return user_error("bench: --quick and --full exclude each other");
	if (bench_opts_finish(&o, &a, err, sizeof(err)))
		return user_error("bench: %s", err);
	return bench_run(&o);
}

const struct command bench_cmd = {
	.name = "bench",
	.summary = "time per frame on the tap write path, every mode, side by side",
	.help = "Write N identical frames into a tap, per program, writer and frame size;\n"
		"report ns per frame (median of the repetitions), Mpps, the ratio to the\n"
		"/dev/null floor and to stock tun without a program, and what the counters\n"
		"say happened to the frames. Runs in a private network namespace.\n"
		"With --scale: 1, 100 and 1000 taps (--full: and 4096) bound to one\n"
		"policy on stock tun, with their kernel memory per tap and the time to\n"
		"bind, list and count them, beside a program and map set per tap.\n",
	.options = bench_options,
	.opts_size = sizeof(struct bench_cli),
	.defaults = &bench_defaults,
	.max_args = 0,
	.run = run_bench,
};
