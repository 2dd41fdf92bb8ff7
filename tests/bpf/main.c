// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bpf_test - runs tap_accel_policy in the kernel (BPF_PROG_TEST_RUN) on
 * frames built here, with policies installed through the library.
 *
 *   bpf_test            every test; one line each, then "N passed, N failed"
 *   bpf_test NAME...    only the tests whose name starts with NAME
 *   bpf_test --cost [REPEAT]
 *                       in-kernel ns per frame: the policy with 0 (the
 *                       default), 1, 100 and 1000 rules (the match last),
 *                       and with none and a redirect the default, beside
 *                       xdp_basic's xdp_drop, same frame, one run;
 *                       in a VM under QEMU's instruction counter
 *                       (tests/vm/icount) the instructions per frame too
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "xdp_basic.skel.h"
#include "../vm/icount.h"

extern const struct test match_tests[], action_tests[], guard_tests[],
	state_tests[], malformed_tests[], maps_tests[], ct_tests[];
void many_rules(struct ta_rule_spec *r, uint32_t n, uint32_t last_action);

static const struct test *const suites[] = {
	match_tests, action_tests,    guard_tests,
	state_tests, malformed_tests, maps_tests,
	ct_tests,
};

static bool selected(const char *name, int argc, char **argv)
{
	int i;

	if (argc < 2)
		return true;
	for (i = 1; i < argc; i++)
		if (!strncmp(name, argv[i], strlen(argv[i])))
			return true;
	return false;
}

static int run_tests(int argc, char **argv)
{
	int passed = 0, failed = 0;
	size_t s;

	for (s = 0; s < sizeof(suites) / sizeof(suites[0]); s++) {
		const struct test *t;

		for (t = suites[s]; t->name; t++) {
			int ret;

			if (!selected(t->name, argc, argv))
				continue;
			fail_msg[0] = 0;
			ret = env_reset();
			if (ret)
				snprintf(fail_msg, sizeof(fail_msg),
					 "reset: %s", strerror(-ret));
			else
				ret = t->fn();
			if (ret) {
				printf("FAIL %s: %s\n", t->name, fail_msg);
				failed++;
			} else {
				printf("PASS %s\n", t->name);
				passed++;
			}
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#define COST_ROUNDS 5

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

#define ICOUNT_ROUNDS 40

/* One run of `repeat` runs of the frame: ns per run, and where QEMU's
 * instruction counter counts (vmicount=, tests/vm/icount) the kernel
 * instructions of this CPU meanwhile (else -1). */
static int cost_run(int prog, const struct pkt *p, uint32_t repeat,
		    uint32_t expect, uint32_t *ns, double *insn)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d,
		    .data_size_in = p->len, .repeat = repeat);
	struct icount c;
	int err;

	icount_begin();
	err = bpf_prog_test_run_opts(prog, &opts);
	*insn = icount_end(&c) < 0 ? -1 : icount_of(&c, 0, 1);
	if (err)
		return -errno;
	if (opts.retval != expect)
		return -EPROTO;
	*ns = opts.duration;
	return 0;
}

/* Average ns per run of prog over `repeat` runs of the frame, in each of
 * COST_ROUNDS rounds: the minimum and the median, as other load on the
 * machine only ever adds. Under QEMU's instruction counter also the
 * instructions per run: (the least count of `repeat` runs - the least
 * count of one run) / (repeat - 1), which takes the system call's own
 * out; the same kernel's counts differ only by the program's. */
static int cost_ns(int prog, const struct pkt *p, uint32_t repeat,
		   uint32_t expect, uint32_t *min, uint32_t *median,
		   double *insn)
{
	uint32_t ns[COST_ROUNDS], one, t;
	double n, n1, least = -1, least1 = -1;
	int i, ret;

	/* a round without an interrupt on the CPU counts the program alone,
	 * exactly: under the counter, many short rounds, and the least count
	 * of each */
	for (i = 0; i < (icount_on() ? ICOUNT_ROUNDS : COST_ROUNDS); i++) {
		ret = cost_run(prog, p, repeat, expect, i < COST_ROUNDS ? &ns[i] : &t, &n) ?:
		      cost_run(prog, p, 1, expect, &one, &n1);
		if (ret)
			return ret;
		if (least < 0 || n < least)
			least = n;
		if (least1 < 0 || n1 < least1)
			least1 = n1;
	}
	*insn = least >= 0 && least1 >= 0 && repeat > 1
			? (least - least1) / (repeat - 1) : -1;
	qsort(ns, COST_ROUNDS, sizeof(ns[0]), cmp_u32);
	*min = ns[0];
	*median = ns[COST_ROUNDS / 2];
	return 0;
}

static void cost_line(const char *name, uint32_t min, uint32_t median,
		      double insn)
{
	if (insn >= 0)
		printf("%-32s %8u %8u %10.1f\n", name, min, median, insn);
	else
		printf("%-32s %8u %8u\n", name, min, median);
}

static int run_cost(uint32_t repeat)
{
	static struct ta_rule_spec rules[1000];
	static const uint32_t sizes[] = {0, 1, 100, 1000};
	struct xdp_basic *basic = xdp_basic__open_and_load();
	uint32_t min, median;
	cpu_set_t cpu;
	struct pkt p;
	double insn;
	size_t i;
	int ret;

	if (!basic) {
		fprintf(stderr, "cannot load xdp_basic: %s\n", strerror(errno));
		return 1;
	}
	/* the counter's cells read CPU 0's count: the runs stay there */
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (icount_on() && sched_setaffinity(0, sizeof(cpu), &cpu)) {
		fprintf(stderr, "cannot run on CPU 0: %s\n", strerror(errno));
		xdp_basic__destroy(basic);
		return 1;
	}
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 9, 53);
	printf("in-kernel ns per frame, %u-byte UDP frame, %d rounds of repeat "
	       "%u%s\n",
	       p.len, COST_ROUNDS, repeat,
	       icount_on() ? "; kernel instructions per frame (QEMU's count)" : "");
	printf("%-32s %8s %8s%s\n", "program", "min", "median",
	       icount_on() ? "      insns" : "");
	ret = cost_ns(bpf_program__fd(basic->progs.xdp_drop), &p, repeat,
		      XDP_DROP, &min, &median, &insn);
	if (!ret)
		cost_line("xdp_basic xdp_drop", min, median, insn);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !ret; i++) {
		char name[64];

		/* no rule: the default, pass; else the match (drop) last */
		if (sizes[i])
			many_rules(rules, sizes[i], TA_ACT_DROP);
		ret = install(rules, sizes[i], TA_ACT_PASS) ? -EIO
			      : cost_ns(env.prog, &p, repeat,
					sizes[i] ? XDP_DROP : XDP_PASS, &min,
					&median, &insn);
		snprintf(name, sizeof(name), "tap_accel_policy %u rules",
			 sizes[i]);
		if (!ret)
			cost_line(name, min, median, insn);
	}
	if (!ret) {
		/* no rule, the default a redirect to another port */
		struct ta_policy_spec spec = {.default_action = TA_ACT_REDIRECT,
					      .default_ifindex = 1 /* lo */};

		ret = install_spec(&spec) ? -EIO
					  : cost_ns(env.prog, &p, repeat,
						    XDP_REDIRECT, &min,
						    &median, &insn);
		if (!ret)
			cost_line("tap_accel_policy redirect", min, median,
				  insn);
	}
	xdp_basic__destroy(basic);
	if (ret)
		fprintf(stderr, "cost run failed: %s\n", strerror(-ret));
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	int ret;

	ret = env_open();
	if (ret) {
		printf("FAIL load: cannot load tap_accel: %s\n",
		       strerror(-ret));
		printf("0 passed, 1 failed\n");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "--cost"))
		ret = env_reset()
			      ?: run_cost(argc > 2 ? strtoul(argv[2], NULL, 0)
						   : 1000000);
	else
		ret = run_tests(argc, argv);
	env_close();
	return ret;
}
