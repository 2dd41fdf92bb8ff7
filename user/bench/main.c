// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * main.c - tap-accel-bench: the benchmark of the tap write path, a tool of
 * its own beside tap-accel (as xdp-bench is beside xdp-loader). Reads the
 * command line into the harness's options (options.h, scale.h) and runs
 * the matrix or, with --scale, the scale table.
 */
#define _GNU_SOURCE
#include <bpf/libbpf.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "firewall.h"
#include "scale.h"
#include "lib/base/error.h"
#include "lib/base/exit.h"
#include "lib/output/json.h"

#ifndef TA_VERSION
#error "TA_VERSION comes from the VERSION file, through user/Makefile"
#endif

#define PROG "tap-accel-bench"

enum opt_kind { FLAG, TEXT, COUNT };

struct bench_cmdline {
	bool quick, full, vm, scale, firewall, json, pretty, verbose, udp;
	long frames, reps, cpu, singles;
	const char *out, *programs, *writers, *sizes, *drivers, *tapx_dev, *taps, *frame,
		   *nft_family, *pve;
	const char *icount;
	const char *rules, *conns;
};

struct opt {
	const char *name;
	char short_name;
	enum opt_kind kind;
	size_t offset; /* in struct bench_cmdline */
	const char *metavar, *help;
	long min, max; /* COUNT */
};

#define AT(field) offsetof(struct bench_cmdline, field)

static const struct opt opts[] = {
	{ "quick", 0, FLAG, AT(quick), NULL,
	  "the default: frames of 64 and 1500 B, about 2 minutes per driver", 0, 0 },
	{ "full", 0, FLAG, AT(full), NULL, "every program, writer and frame size (64 ... 65535 B)",
	  0, 0 },
	{ "frames", 0, COUNT, AT(frames), "N",
	  "frames per repetition (large frames get fewer, same bytes)", 10, 100000000 },
	{ "reps", 0, COUNT, AT(reps), "N", "timed repetitions per cell (the median is reported)",
	  1, BENCH_MAX_REPS },
	{ "out", 0, TEXT, AT(out), "DIR", "results folder (default build/bench/<timestamp>/)", 0,
	  0 },
	{ "vm", 0, FLAG, AT(vm), NULL, "stock tun and tapx (/dev/net/tapx) side by side, small",
	  0, 0 },
	{ "drivers", 0, TEXT, AT(drivers), "LIST",
	  "tun (the default outside --vm) or tun,tapx: tapx.ko loaded on /dev/net/tapx, both "
	  "drivers in one run (with its batch writers); --firewall: tun or tapx, the taps of "
	  "both sides", 0, 0 },
	{ "cpu", 0, COUNT, AT(cpu), "N", "pin the writer to CPU N", 0, CPU_SETSIZE - 1 },
	{ "icount", 0, TEXT, AT(icount), "PORT",
	  "in a QEMU guest with the instruction counter (tests/vm/icount): its serial port "
	  "(default: $vmicount, none outside such a guest); adds instructions per frame on the "
	  "writer's vCPU to every cell", 0, 0 },
	{ "tapx-dev", 0, TEXT, AT(tapx_dev), "PATH",
	  "tapx's device node (default /dev/net/tapx; with /dev/net/tun, --vm becomes an A/A "
	  "check of the method)", 0, 0 },
	{ "frame", 0, TEXT, AT(frame), "KIND",
	  "baseline (default): broadcast, IPv4 ethertype, zeros after the Ethernet header; udp: "
	  "a valid UDP broadcast (always for the policy and bridge cells)", 0, 0 },
	{ "programs", 0, TEXT, AT(programs), "LIST",
	  "programs to run, comma-separated: floor copy-floor none xdp-drop-native "
	  "xdp-drop-generic xdp-tx xdp-redirect policy-1 policy-100 policy-1000 tc-drop bridge "
	  "stack-udp fwd-redirect fwd-bridge (the floor and none always run: they are the "
	  "references)", 0, 0 },
	{ "writers", 0, TEXT, AT(writers), "LIST",
	  "block nonblock writev io_uring batch1 batch8 batch64 batch256 (batchN: N frames per "
	  "TAPXSUBMIT, tapx only)", 0, 0 },
	{ "sizes", 0, TEXT, AT(sizes), "LIST", "frame sizes: 64 1500 9000 65535", 0, 0 },
	{ "scale", 0, FLAG, AT(scale), NULL,
	  "instead of the matrix: kernel memory and time to bind, list and count taps bound to "
	  "one policy, 1, 100 and 1000 of them (--full: and 4096), through the tap-accel beside "
	  "this program", 0, 0 },
	{ "taps", 0, TEXT, AT(taps), "LIST",
	  "--scale: the numbers of taps, ascending (e.g. 1,100,1000,4096)", 0, 0 },
	{ "singles", 0, COUNT, AT(singles), "N",
	  "--scale: taps bound one call each, per row (default 100; --full: all)", 0,
	  SCALE_MAX_TAPS },
	{ "firewall", 0, FLAG, AT(firewall), NULL,
	  "instead of the matrix: one security group enforced by tap-accel and by nftables "
	  "(taps in a bridge, br_netfilter, an inet table), side by side on stock tun: "
	  "established flows guest to guest and to and from the stack, new connections per "
	  "second, memory per connection; 1, 100 and 1000 rules, 10^3, 10^5 and 10^6 "
	  "connections in the table", 0, 0 },
	{ "rules", 0, TEXT, AT(rules), "LIST",
	  "--firewall: the rule counts (default 1,100,1000), each row with every --conns", 0,
	  0 },
	{ "conns", 0, TEXT, AT(conns), "LIST",
	  "--firewall: connections in the table (e.g. 1000,100000,1000000)", 0, 0 },
	{ "nft-family", 0, TEXT, AT(nft_family), "FAMILY",
	  "--firewall: nftables' table: inet (default: the taps in a bridge with br_netfilter) "
	  "or bridge (the bridge family's own conntrack, nf_conntrack_bridge, Linux 5.3+)", 0,
	  0 },
	{ "pve", 0, TEXT, AT(pve), "DIR/VMID.fw",
	  "--firewall: a row more, that Proxmox VE VM's firewall (cluster.fw and VMID.conf "
	  "beside it): tap-accel enforcing its translation against nftables in Proxmox VE's "
	  "shape (e.g. tests/import/pve/104.fw)", 0, 0 },
	{ "json", 'j', FLAG, AT(json), NULL,
	  "the results as JSON on stdout, the table on stderr", 0, 0 },
	{ "pretty", 'p', FLAG, AT(pretty), NULL, "JSON, indented", 0, 0 },
	{ "verbose", 'd', FLAG, AT(verbose), NULL, "libbpf's and the verifier's messages on stderr",
	  0, 0 },
	{ NULL, 0, FLAG, 0, NULL, NULL, 0, 0 },
};

static const char about[] =
	"Write N identical frames into a tap, per driver, program, writer and frame size;\n"
	"report ns per frame (median of the repetitions), Mpps, the ratio to the\n"
	"/dev/null floor and to stock tun without a program, and what the counters\n"
	"say happened to the frames. Runs in a private network namespace; needs root.\n"
	"With --scale: 1, 100 and 1000 taps (--full: and 4096) bound to one policy\n"
	"on stock tun, with their kernel memory per tap and the time to bind, list\n"
	"and count them. With --firewall: one security group enforced by tap-accel\n"
	"and by bridge + br_netfilter + nftables, side by side, as ratios.\n"
	"`make bench` runs it on both drivers (mk/bench.sh); man tap-accel-bench.\n";

/* With --json or --pretty anywhere, errors too are JSON, on stdout, as the
 * tap-accel CLI says them. */
static bool json_errors, pretty_errors;

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	struct json_writer w;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!json_errors) {
		fprintf(stderr, PROG ": %s\n", msg);
		return EXIT_USER;
	}
	jw_init(&w, stdout, pretty_errors);
	jw_object_begin(&w);
	jw_kv_string(&w, "error", msg);
	jw_object_end(&w);
	jw_end_document(&w);
	return EXIT_USER;
}

/* `text` word-wrapped at 80 columns, every line from column `indent`. */
static void wrap(const char *text, int col, int indent)
{
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + (int)word > 80) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", (int)word, text);
		col += word;
		text += word;
		text += strspn(text, " ");
	}
	putchar('\n');
}

static void usage(void)
{
	printf("Usage: " PROG " [OPTIONS]\n\n%s\nOptions:\n", about);
	for (const struct opt *o = opts; o->name; o++) {
		char words[48];
		int n = o->short_name ? snprintf(words, sizeof(words), "-%c, --%s", o->short_name,
						 o->name)
				      : snprintf(words, sizeof(words), "    --%s", o->name);

		if (o->metavar)
			snprintf(words + n, sizeof(words) - n, " %s", o->metavar);
		n = printf("  %s", words);
		if (n >= 27)
			printf("\n%27s", "");
		else
			printf("%*s", 27 - n, "");
		wrap(o->help, 27, 27);
	}
	printf("  -h, --help               this text\n"
	       "  -V, --version            the version\n"
	       "\nExit status: 0 ok, 1 wrong command line, 2 the run failed or was "
	       "interrupted.\n");
}

static const struct opt *find_opt(const char *arg, size_t len)
{
	for (const struct opt *o = opts; o->name; o++)
		if (arg[1] == '-' ? strlen(o->name) == len && !strncmp(o->name, arg + 2, len)
				  : o->short_name && o->short_name == arg[1] && !arg[2])
			return o;
	return NULL;
}

/* The option at argv[*i] (and its value) into c. 0, -1 for --help or
 * --version (done), or an exit code (said). */
static int parse_one(int argc, char **argv, int *i, struct bench_cmdline *c)
{
	const char *arg = argv[*i], *eq = strchr(arg, '='), *value;
	size_t len = arg[1] == '-' ? (eq ? (size_t)(eq - arg - 2) : strlen(arg + 2)) : 0;
	const struct opt *o;
	char *end;
	double v;

	if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
		usage();
		return -1;
	}
	if (!strcmp(arg, "-V") || !strcmp(arg, "--version")) {
		printf(PROG " %s (libbpf %s)\n", TA_VERSION, libbpf_version_string());
		return -1;
	}
	o = find_opt(arg, len);
	if (!o)
		return usage_error("unknown option '%s'; see " PROG " --help", arg);
	if (o->kind == FLAG) {
		if (eq && arg[1] == '-')
			return usage_error("option --%s takes no value", o->name);
		*(bool *)((char *)c + o->offset) = true;
		return 0;
	}
	if (eq && arg[1] == '-')
		value = eq + 1;
	else if (*i + 1 < argc)
		value = argv[++*i];
	else
		return usage_error("option --%s needs a value (%s)", o->name, o->metavar);
	if (o->kind == TEXT) {
		*(const char **)((char *)c + o->offset) = value;
		return 0;
	}
	v = strtod(value, &end);
	if (!*value || *end || isnan(v) || v < o->min || v > o->max || v != (long)v)
		return usage_error("--%s expects a whole number from %ld to %ld, not '%s'", o->name,
				   o->min, o->max, value);
	*(long *)((char *)c + o->offset) = (long)v;
	return 0;
}

static int run_scale(const struct bench_cmdline *c)
{
	struct scale_opts o;
	struct ta_error e;

	if (c->programs || c->writers || c->sizes || c->drivers || c->vm || c->tapx_dev ||
	    c->frames || c->reps || c->cpu >= 0 || c->frame || c->icount || c->rules || c->conns ||
	    c->nft_family)
		return usage_error("--scale takes --taps, --singles, --full, --out and --json, "
				   "not the matrix's options");
	scale_opts_default(&o, c->full);
	if (c->taps && scale_parse_taps(&o, c->taps, &e))
		return usage_error("%s", e.text);
	if (c->singles >= 0)
		o.single_max = c->singles;
	o.json = c->json;
	o.pretty = c->pretty;
	o.out_dir = c->out;
	return scale_run(&o) ? EXIT_SYSTEM : EXIT_OK;
}

static int run_firewall(const struct bench_cmdline *c)
{
	struct fw_opts o;
	struct ta_error e;

	if (c->programs || c->writers || c->sizes || c->vm || c->cpu >= 0 || c->frame ||
	    c->taps || c->singles >= 0 || c->scale)
		return usage_error("--firewall takes --rules, --conns, --frames, --reps, --drivers, "
				   "--tapx-dev, --nft-family, --pve, --icount, --full, --out and --json, "
				   "not the matrix's or --scale's options");
	fw_opts_default(&o, c->full);
	/* One driver per run: the taps of both firewalls are on it. */
	if (c->drivers && strcmp(c->drivers, "tun") && strcmp(c->drivers, "tapx"))
		return usage_error("--firewall --drivers is tun or tapx (one per run), not '%s'",
				   c->drivers);
	o.tapx = c->drivers && !strcmp(c->drivers, "tapx");
	if (c->tapx_dev && !o.tapx)
		return usage_error("--tapx-dev goes with --drivers tapx");
	o.tap_dev = o.tapx ? (c->tapx_dev ? c->tapx_dev : "/dev/net/tapx") : "/dev/net/tun";
	if (c->nft_family && strcmp(c->nft_family, "inet") && strcmp(c->nft_family, "bridge"))
		return usage_error("--nft-family is inet or bridge, not '%s'", c->nft_family);
	o.nft_bridge = c->nft_family && !strcmp(c->nft_family, "bridge");
	o.icount_port = c->icount;
	o.pve = c->pve;
	if ((c->rules || c->conns) && fw_parse_grid(&o, c->rules, c->conns, &e))
		return usage_error("%s", e.text);
	if (c->frames)
		o.frames = c->frames;
	if (c->reps)
		o.reps = c->reps;
	o.json = c->json;
	o.pretty = c->pretty;
	o.out_dir = c->out;
	return fw_run(&o) ? EXIT_SYSTEM : EXIT_OK;
}

static int run_matrix(const struct bench_cmdline *c)
{
	struct bench_args a = {
		.programs = c->programs, .writers = c->writers, .sizes = c->sizes,
		.drivers = c->drivers, .frames = c->frames, .reps = c->reps,
	};
	struct bench_opts o = {
		.quick = c->quick, .full = c->full, .vm = c->vm, .json = c->json,
		.pretty = c->pretty, .out_dir = c->out, .cpu = (int)c->cpu,
		.icount_port = c->icount,
	};
	struct ta_error e;

	if (c->taps || c->singles >= 0)
		return usage_error("--taps and --singles go with --scale");
	if (c->rules || c->conns || c->nft_family || c->pve)
		return usage_error("--rules, --conns, --nft-family and --pve go with --firewall");
	if (c->frame && strcmp(c->frame, "baseline") && strcmp(c->frame, "udp"))
		return usage_error("--frame is baseline or udp, not '%s'", c->frame);
	o.udp_frames = c->frame && !strcmp(c->frame, "udp");
	memcpy(o.dev, bench_default_dev, sizeof(o.dev));
	if (c->tapx_dev)
		o.dev[DRV_TAPX] = c->tapx_dev;
	if (o.quick && o.full)
		return usage_error("--quick and --full exclude each other");
	if (bench_opts_finish(&o, &a, &e))
		return usage_error("%s", e.text);
	return bench_run(&o) ? EXIT_SYSTEM : EXIT_OK;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_cmdline c = { .cpu = -1, .singles = -1 };
	int ret;

	for (int i = 1; i < argc; i++) {
		pretty_errors |= !strcmp(argv[i], "-p") || !strcmp(argv[i], "--pretty");
		json_errors |= pretty_errors || !strcmp(argv[i], "-j") || !strcmp(argv[i], "--json");
	}
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] != '-' || !argv[i][1])
			return usage_error("expected no arguments, got '%s'; see " PROG " --help",
					   argv[i]);
		ret = parse_one(argc, argv, &i, &c);
		if (ret)
			return ret < 0 ? EXIT_OK : ret;
	}
	c.json |= c.pretty;
	libbpf_set_print(c.verbose ? print_libbpf : quiet_libbpf);
	return c.firewall ? run_firewall(&c) : c.scale ? run_scale(&c) : run_matrix(&c);
}
