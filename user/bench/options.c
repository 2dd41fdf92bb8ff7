// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * options.c - the names of the matrix's dimensions and the matrix each
 * mode runs (the command line itself is cli/bench.c's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

const char *const bench_driver_name[DRV_MAX] = {"tun", "tapx"};

const char *const bench_prog_name[PROG_MAX] = {
	[PROG_FLOOR] = "floor",
	[PROG_COPY] = "copy-floor",
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
	[PROG_COPY] = "copy floor",
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

const uint8_t fwd_mac_a[6] = {0x02, 0, 0, 0, 0, 0x01};
const uint8_t fwd_mac_b[6] = {0x02, 0, 0, 0, 0, 0x02};

const char *const bench_default_dev[DRV_MAX] = {
	[DRV_TUN] = "/dev/net/tun",
	[DRV_TAPX] = "/dev/net/tapx",
};

#define QUICK_FRAMES  50000
#define QUICK_REPS    7
#define FULL_FRAMES   200000
#define FULL_REPS     7
#define VM_FRAMES     10000
#define VM_MAX_FRAMES 50000
#define VM_REPS	      5

/* ---- options ------------------------------------------------------------ */

int bench_name_index(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

/* Parse a comma list of names into want[]; -EINVAL on an unknown name. */
static int parse_list(const char *arg, const char *const *names, int n,
		      bool *want, const char *what, struct ta_error *e)
{
	char *copy = strdup(arg), *save = NULL;
	int err = 0;

	if (!copy)
		return ta_error_system(e, ENOMEM, "out of memory");
	memset(want, 0, n * sizeof(*want));
	for (char *tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i = bench_name_index(tok, names, n);

		if (i < 0) {
			err = ta_error_input(e, EINVAL, "unknown %s '%s'", what, tok);
			break;
		}
		want[i] = true;
	}
	free(copy);
	return err;
}

static int parse_sizes(const char *arg, bool *want, struct ta_error *e)
{
	static const char *const names[NR_SIZES] = {"64", "1500", "9000",
						    "65535"};

	return parse_list(arg, names, NR_SIZES, want, "frame size", e);
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
		/* Emulated CPU: few cells, both drivers. */
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

int bench_opts_finish(struct bench_opts *o, const struct bench_args *a, struct ta_error *e)
{
	int err = 0;

	o->quick = !o->full;
	default_matrix(o);
	if ((a->programs && (err = parse_list(a->programs, bench_prog_name, PROG_MAX,
					      o->want_prog, "program", e))) ||
	    (a->writers && (err = parse_list(a->writers, bench_writer_name, WR_MAX,
					     o->want_writer, "writer", e))) ||
	    (a->sizes && (err = parse_sizes(a->sizes, o->want_size, e))) ||
	    (a->drivers && (err = parse_list(a->drivers, bench_driver_name, DRV_MAX,
					     o->want_driver, "driver", e))))
		return err;
	/* tapx on the host: its batches too, unless the writers were named. */
	if (!o->vm && o->want_driver[DRV_TAPX] && !a->writers) {
		o->want_writer[WR_BATCH64] = true;
		if (o->full)
			for (int w = WR_BATCH1; w <= WR_BATCH256; w++)
				o->want_writer[w] = true;
	}
	if (!o->want_driver[DRV_TUN])
		return ta_error_input(e, EINVAL,
				      "--drivers must include tun (every ratio is to stock tun)");
	/* Every ratio needs its references. */
	o->want_prog[PROG_FLOOR] = o->want_prog[PROG_NONE] = true;
	o->want_prog[PROG_COPY] = true; /* where /dev/copyfloor is */
	if (a->frames)
		o->frames = a->frames;
	if (o->vm && o->frames > VM_MAX_FRAMES)
		o->frames = VM_MAX_FRAMES;
	if (a->reps)
		o->reps = a->reps;
	o->warmup_pct = 10;
	return 0;
}
