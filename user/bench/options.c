// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * options.c - the names of the matrix's dimensions, the command line of
 * `tap-accel bench`, and the matrix each mode runs.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cli/verbs.h"

const char *const bench_driver_name[DRV_MAX] = {"tun", "tapx"};

const char *const bench_prog_name[PROG_MAX] = {
	[PROG_FLOOR] = "floor",
	[PROG_NONE] = "none",
	[PROG_XDP_DROP_NATIVE] = "xdp-drop-native",
	[PROG_XDP_DROP_GENERIC] = "xdp-drop-generic",
	[PROG_XDP_TX] = "xdp-tx",
	[PROG_XDP_REDIRECT] = "xdp-redirect",
	[PROG_POLICY_1] = "policy-1",
	[PROG_POLICY_100] = "policy-100",
	[PROG_POLICY_1000] = "policy-1000",
	[PROG_TC_DROP] = "tc-drop",
	[PROG_BRIDGE] = "bridge",
	[PROG_STACK_UDP] = "stack-udp",
	[PROG_FWD_REDIRECT] = "fwd-redirect",
	[PROG_FWD_BRIDGE] = "fwd-bridge",
};

const char *const bench_prog_label[PROG_MAX] = {
	[PROG_FLOOR] = "write() to /dev/null",
	[PROG_NONE] = "none",
	[PROG_XDP_DROP_NATIVE] = "XDP drop, native",
	[PROG_XDP_DROP_GENERIC] = "XDP drop, generic",
	[PROG_XDP_TX] = "XDP tx",
	[PROG_XDP_REDIRECT] = "XDP redirect to tap",
	[PROG_POLICY_1] = "policy, 1 rule",
	[PROG_POLICY_100] = "policy, 100 rules",
	[PROG_POLICY_1000] = "policy, 1000 rules",
	[PROG_TC_DROP] = "tc ingress bpf drop",
	[PROG_BRIDGE] = "bridge tap to tap",
	[PROG_STACK_UDP] = "none, UDP to host",
	[PROG_FWD_REDIRECT] = "fwd: XDP redirect",
	[PROG_FWD_BRIDGE] = "fwd: bridge",
};

const char *const bench_writer_name[WR_MAX] = {
	"block",  "nonblock", "writev",	 "io_uring",
	"batch1", "batch8",   "batch64", "batch256",
};

const int bench_batch[WR_MAX] = {
	[WR_BATCH1] = 1,
	[WR_BATCH8] = 8,
	[WR_BATCH64] = 64,
	[WR_BATCH256] = 256,
};

const int bench_size[NR_SIZES] = {64, 1500, 9000, 65535};

const char *const bench_frame_name[NR_FRAMES] = {"baseline", "udp", "fwd"};

#define QUICK_FRAMES  50000
#define QUICK_REPS    7
#define FULL_FRAMES   200000
#define FULL_REPS     7
#define VM_FRAMES     10000
#define VM_MAX_FRAMES 50000
#define VM_REPS	      5

static const char usage[] =
	"Usage: tap-accel bench [--quick|--full] [--frames N] [--reps N] "
	"[--out DIR]\n"
	"                       [--json] [--vm] [--cpu N] [--frame "
	"baseline|udp]\n"
	"                       [--tapx-dev PATH]\n"
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
	"minutes\n"
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
	"  --cpu N        pin the writer to CPU N\n"
	"  --tapx-dev P   tapx's device node (default /dev/net/tapx; with\n"
	"                 /dev/net/tun, --vm becomes an A/A check of the "
	"method)\n"
	"  --frame KIND   baseline (default): broadcast, IPv4 ethertype, "
	"zeros, as in\n"
	"                 baseline.md; udp: a valid UDP broadcast (always for "
	"the\n"
	"                 policy and bridge cells)\n"
	"  --programs, --writers, --sizes   comma lists narrowing the matrix;\n"
	"                 the floor and 'none' are always run (the "
	"references)\n"
	"  programs: floor none xdp-drop-native xdp-drop-generic xdp-tx "
	"xdp-redirect\n"
	"            policy-1 policy-100 policy-1000 tc-drop bridge stack-udp\n"
	"            fwd-redirect fwd-bridge\n"
	"  writers:  block nonblock writev io_uring batch1 batch8 batch64 "
	"batch256\n"
	"            (batchN: N frames per TAPXSUBMIT, tapx only; tun's cells "
	"write\n"
	"            one frame per nonblocking write())\n"
	"  sizes:    64 1500 9000 65535\n";

/* ---- options ------------------------------------------------------------ */

static int name_index(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* Parse a comma list of names into want[]; returns -1 on an unknown name. */
static int parse_list(const char *arg, const char *const *names, int n,
		      bool *want, const char *what)
{
	char *copy = strdup(arg), *save = NULL;
	int err = 0;

	memset(want, 0, n * sizeof(*want));
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i = name_index(tok, names, n);

		if (i < 0) {
			fprintf(stderr, "tap-accel bench: unknown %s '%s'\n",
				what, tok);
			err = -1;
			break;
		}
		want[i] = true;
	}
	free(copy);
	return err;
}

static int parse_sizes(const char *arg, bool *want)
{
	static const char *const names[NR_SIZES] = {"64", "1500", "9000",
						    "65535"};

	return parse_list(arg, names, NR_SIZES, want, "frame size");
}

static int parse_count(const char *arg, const char *what, long lo, long hi,
		       long *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*arg == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr,
			"tap-accel bench: %s must be %ld..%ld, not '%s'\n",
			what, lo, hi, arg);
		return -1;
	}
	*out = v;
	return 0;
}

static void set_all(bool *want, int n, bool on)
{
	for (int i = 0; i < n; i++)
		want[i] = on;
}

/* The matrix of each mode, before --programs/--writers/--sizes narrow it. */
static void default_matrix(struct bench_opts *o)
{
	set_all(o->want_prog, PROG_MAX, true);
	set_all(o->want_writer, WR_MAX, false);
	/* Stock tun has no batch ABI: on the host, the per-frame writers. */
	for (int w = WR_BLOCK; w <= WR_URING; w++)
		o->want_writer[w] = true;
	set_all(o->want_size, NR_SIZES, false);
	o->want_size[SIZE_64] = o->want_size[SIZE_1500] = true;
	o->want_driver[DRV_TUN] = true;
	o->frames = QUICK_FRAMES;
	o->reps = QUICK_REPS;
	if (o->full) {
		set_all(o->want_size, NR_SIZES, true);
		o->frames = FULL_FRAMES;
		o->reps = FULL_REPS;
	}
	if (o->vm) {
		/* Emulated CPU: the cells of baseline.md's VM table, both
		 * drivers. */
		o->want_driver[DRV_TAPX] = true;
		set_all(o->want_writer, WR_MAX, false);
		o->want_writer[WR_BLOCK] = o->want_writer[WR_NONBLOCK] = true;
		o->want_writer[WR_URING] = true;
		for (int w = WR_BATCH1; w <= WR_BATCH256; w++)
			o->want_writer[w] = true;
		o->want_prog[PROG_POLICY_100] = o->want_prog[PROG_POLICY_1000] =
			false;
		o->frames = VM_FRAMES;
		o->reps = VM_REPS;
	}
}

int parse_options(int argc, char **argv, struct bench_opts *o)
{
	enum { O_PROGRAMS = 256, O_WRITERS, O_SIZES, O_FRAME, O_TAPX_DEV };
	static const struct option longopts[] = {
		{"quick", no_argument, NULL, 'q'},
		{"full", no_argument, NULL, 'f'},
		{"frames", required_argument, NULL, 'n'},
		{"reps", required_argument, NULL, 'r'},
		{"out", required_argument, NULL, 'o'},
		{"json", no_argument, NULL, 'j'},
		{"vm", no_argument, NULL, 'v'},
		{"cpu", required_argument, NULL, 'c'},
		{"programs", required_argument, NULL, O_PROGRAMS},
		{"writers", required_argument, NULL, O_WRITERS},
		{"sizes", required_argument, NULL, O_SIZES},
		{"frame", required_argument, NULL, O_FRAME},
		{"tapx-dev", required_argument, NULL, O_TAPX_DEV},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *programs = NULL, *writers = NULL, *sizes = NULL;
	long frames = 0, reps = 0, cpu = -1;
	int c;

	memset(o, 0, sizeof(*o));
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'q':
			o->quick = true;
			break;
		case 'f':
			o->full = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'v':
			o->vm = true;
			break;
		case 'o':
			o->out_dir = optarg;
			break;
		case O_PROGRAMS:
			programs = optarg;
			break;
		case O_WRITERS:
			writers = optarg;
			break;
		case O_SIZES:
			sizes = optarg;
			break;
		case O_TAPX_DEV:
			bench_driver_dev[DRV_TAPX] = optarg;
			break;
		case O_FRAME:
			if (name_index(optarg, bench_frame_name, NR_FRAMES) <
			    0) {
				fprintf(stderr, "tap-accel bench: --frame is "
						"baseline or udp\n");
				return EXIT_USER;
			}
			o->udp_frames = !strcmp(optarg, "udp");
			break;
		case 'n':
			if (parse_count(optarg, "--frames", 10, 100000000,
					&frames))
				return EXIT_USER;
			break;
		case 'r':
			if (parse_count(optarg, "--reps", 1, BENCH_MAX_REPS,
					&reps))
				return EXIT_USER;
			break;
		case 'c':
			if (parse_count(optarg, "--cpu", 0, CPU_SETSIZE - 1,
					&cpu))
				return EXIT_USER;
			break;
		case 'h':
			fputs(usage, stdout);
			return -1;
		default:
			fputs(usage, stderr);
			return EXIT_USER;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "tap-accel bench: unexpected argument '%s'\n",
			argv[optind]);
		return EXIT_USER;
	}
	if (o->quick && o->full) {
		fprintf(stderr, "tap-accel bench: --quick and --full exclude "
				"each other\n");
		return EXIT_USER;
	}
	o->quick = !o->full;
	default_matrix(o);
	if ((programs && parse_list(programs, bench_prog_name, PROG_MAX,
				    o->want_prog, "program")) ||
	    (writers && parse_list(writers, bench_writer_name, WR_MAX,
				   o->want_writer, "writer")) ||
	    (sizes && parse_sizes(sizes, o->want_size)))
		return EXIT_USER;
	/* Every ratio needs its references. */
	o->want_prog[PROG_FLOOR] = o->want_prog[PROG_NONE] = true;
	if (frames)
		o->frames = frames;
	if (o->vm && o->frames > VM_MAX_FRAMES)
		o->frames = VM_MAX_FRAMES;
	if (reps)
		o->reps = reps;
	o->cpu = cpu;
	o->warmup_pct = 10;
	o->json |= cli.json; /* tap-accel --json bench */
	return 0;
}
