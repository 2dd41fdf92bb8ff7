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
#include "verbs.h"

static const char bench_usage[] =
	"Usage: tap-accel bench [--quick|--full] [--frames N] [--reps N] "
	"[--out DIR]\n"
	"                       [--json] [--vm] [--cpu N] [--frame "
	"baseline|udp]\n"
	"                       [--drivers tun|tun,tapx] [--tapx-dev PATH]\n"
	"                       [--programs LIST] [--writers LIST] [--sizes "
	"LIST]\n"
	"\n"
	"Write N identical frames into a tap, per program, writer and frame "
	"size;\n"
	"report ns per frame (median of the repetitions), Mpps, the ratio to "
	"the\n"
	"/dev/null floor and to stock tun without a program, and what the "
	"counters\n"
	"say happened to the frames. Runs in a private network namespace.\n"
	"\n"
	"  --quick        the default: frames of 64 and 1500 B, about 2 "
	"minutes per driver\n"
	"  --full         every program, writer and frame size (64 ... 65535 "
	"B)\n"
	"  --frames N     frames per repetition (large frames get fewer, same "
	"bytes)\n"
	"  --reps N       timed repetitions per cell (the median is reported)\n"
	"  --out DIR      results folder (default build/bench/<timestamp>/)\n"
	"  --json         the results as JSON on stdout (the table goes to "
	"stderr)\n"
	"  --vm           stock tun and tapx (/dev/net/tapx) side by side, "
	"small\n"
	"  --drivers L    tun (the default outside --vm) or tun,tapx: tapx.ko\n"
	"                 loaded on /dev/net/tapx, both drivers in one run\n"
	"                 (with its batch writer, batch64)\n"
	"  --cpu N        pin the writer to CPU N\n"
	"  --tapx-dev P   tapx's device node (default /dev/net/tapx; with\n"
	"                 /dev/net/tun, --vm becomes an A/A check of the "
	"method)\n"
	"  --frame KIND   baseline (default): broadcast, IPv4 ethertype, "
	"zeros, the\n"
	"                 seeds' frame; udp: a valid UDP broadcast (always for "
	"the\n"
	"                 policy and bridge cells)\n"
	"  --programs, --writers, --sizes   comma lists narrowing the matrix;\n"
	"                 the floor and 'none' are always run (the "
	"references)\n"
	"  programs: floor copy-floor none xdp-drop-native xdp-drop-generic "
	"xdp-tx\n"
	"            xdp-redirect\n"
	"            policy-1 policy-100 policy-1000 tc-drop bridge stack-udp\n"
	"            fwd-redirect fwd-bridge\n"
	"  writers:  block nonblock writev io_uring batch1 batch8 batch64 "
	"batch256\n"
	"            (batchN: N frames per TAPXSUBMIT, tapx only; tun's cells "
	"write\n"
	"            one frame per nonblocking write())\n"
	"  sizes:    64 1500 9000 65535\n";

static int parse_count(const char *arg, const char *what, long lo, long hi, long *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < lo || v > hi)
		return user_error("bench: %s must be %ld..%ld, not '%s'", what, lo, hi, arg);
	*out = v;
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	enum { QUICK, FULL, FRAMES, REPS, OUT, VM, CPU, PROGRAMS, WRITERS, SIZES, FRAME, TAPX_DEV,
	       DRIVERS };
	struct verb_option opts[] = {
		[QUICK] = { "quick", false, NULL, 0 },
		[FULL] = { "full", false, NULL, 0 },
		[FRAMES] = { "frames", true, NULL, 0 },
		[REPS] = { "reps", true, NULL, 0 },
		[OUT] = { "out", true, NULL, 0 },
		[VM] = { "vm", false, NULL, 0 },
		[CPU] = { "cpu", true, NULL, 0 },
		[PROGRAMS] = { "programs", true, NULL, 0 },
		[WRITERS] = { "writers", true, NULL, 0 },
		[SIZES] = { "sizes", true, NULL, 0 },
		[FRAME] = { "frame", true, NULL, 0 },
		[TAPX_DEV] = { "tapx-dev", true, NULL, 0 },
		[DRIVERS] = { "drivers", true, NULL, 0 },
		{ NULL, false, NULL, 0 },
	};
	struct bench_args a = { 0 };
	struct bench_opts o;
	long cpu = -1;
	char err[160];
	int n, ret;

	n = parse_verb_options(argc, argv, bench_usage, opts, &ret);
	if (n < 0)
		return ret;
	if (n > 0)
		return user_error("bench: unexpected argument '%s'", argv[1]);
	memset(&o, 0, sizeof(o));
	o.quick = opts[QUICK].value;
	o.full = opts[FULL].value;
	o.vm = opts[VM].value;
	o.json = cli.json; /* tap-accel --json bench, or bench --json */
	o.pretty = cli.pretty;
	o.out_dir = opts[OUT].value;
	memcpy(o.dev, bench_default_dev, sizeof(o.dev));
	if (opts[TAPX_DEV].value)
		o.dev[DRV_TAPX] = opts[TAPX_DEV].value;
	if (opts[FRAME].value) {
		if (bench_name_index(opts[FRAME].value, bench_frame_name, NR_FRAMES) < 0)
			return user_error("bench: --frame is baseline or udp");
		o.udp_frames = !strcmp(opts[FRAME].value, "udp");
	}
	if ((opts[FRAMES].value &&
	     (ret = parse_count(opts[FRAMES].value, "--frames", 10, 100000000, &a.frames))) ||
	    (opts[REPS].value &&
	     (ret = parse_count(opts[REPS].value, "--reps", 1, BENCH_MAX_REPS, &a.reps))) ||
	    (opts[CPU].value && (ret = parse_count(opts[CPU].value, "--cpu", 0, CPU_SETSIZE - 1, &cpu))))
		return ret;
	if (o.quick && o.full)
		return user_error("bench: --quick and --full exclude each other");
	o.cpu = (int)cpu;
	a.programs = opts[PROGRAMS].value;
	a.writers = opts[WRITERS].value;
	a.sizes = opts[SIZES].value;
	a.drivers = opts[DRIVERS].value;
	if (bench_opts_finish(&o, &a, err, sizeof(err)))
		return user_error("bench: %s", err);
	return bench_run(&o);
}
