// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * bpf_test - runs tap_accel_policy in the kernel (BPF_PROG_TEST_RUN) on
 * frames built here, with policies installed through the library.
 *
 *   bpf_test            every test; one line each, then "N passed, N failed"
 *   bpf_test NAME...    only the tests whose name starts with NAME
 *   bpf_test --cost [REPEAT]
 *                       in-kernel ns per frame: the policy with 1, 100 and
 *                       1000 rules (the match last) beside xdp_basic's
 *                       xdp_drop, same frame, one run
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "xdp_basic.skel.h"

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

/* Average ns per run of prog over `repeat` runs of the frame, in each of
 * COST_ROUNDS rounds: the minimum and the median, as other load on the
 * machine only ever adds. */
static int cost_ns(int prog, const struct pkt *p, uint32_t repeat,
		   uint32_t expect, uint32_t *min, uint32_t *median)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d,
		    .data_size_in = p->len, .repeat = repeat);
	uint32_t ns[COST_ROUNDS];
	int i;

	for (i = 0; i < COST_ROUNDS; i++) {
		if (bpf_prog_test_run_opts(prog, &opts))
			return -errno;
		if (opts.retval != expect)
			return -EPROTO;
		ns[i] = opts.duration;
	}
	qsort(ns, COST_ROUNDS, sizeof(ns[0]), cmp_u32);
	*min = ns[0];
	*median = ns[COST_ROUNDS / 2];
	return 0;
}

static int run_cost(uint32_t repeat)
{
	static struct ta_rule_spec rules[1000];
	static const uint32_t sizes[] = {1, 100, 1000};
	struct xdp_basic *basic = xdp_basic__open_and_load();
	uint32_t min, median;
	struct pkt p;
	size_t i;
	int ret;

	if (!basic) {
		fprintf(stderr, "cannot load xdp_basic: %s\n", strerror(errno));
		return 1;
	}
	frame_udp4(&p, GUEST_IP4, PEER_IP4, 9, 53);
	printf("in-kernel ns per frame, %u-byte UDP frame, %d rounds of repeat "
	       "%u\n",
	       p.len, COST_ROUNDS, repeat);
	printf("%-28s %8s %8s\n", "program", "min", "median");
	ret = cost_ns(bpf_program__fd(basic->progs.xdp_drop), &p, repeat,
		      XDP_DROP, &min, &median);
	if (!ret)
		printf("%-28s %8u %8u\n", "xdp_basic xdp_drop", min, median);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && !ret; i++) {
		char name[64];

		many_rules(rules, sizes[i], TA_ACT_DROP);
		ret = install(rules, sizes[i], TA_ACT_PASS) ? -EIO
			      : cost_ns(env.prog, &p, repeat, XDP_DROP, &min, &median);
		snprintf(name, sizeof(name), "tap_accel_policy %u rules",
			 sizes[i]);
		if (!ret)
			printf("%-28s %8u %8u\n", name, min, median);
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
