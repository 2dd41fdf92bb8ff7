// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* harness.c - the shared program instance and its checks (harness.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "user/lib/maps.h"
#include "tap_accel.skel.h"

struct env env = {.prog = -1};
char fail_msg[512];

int env_open(void)
{
	char err[256];
	int ret;

	env.skel = tap_accel__open_and_load();
	if (!env.skel)
		return -errno;
	ret = ta_maps_from_object(env.skel->obj, &env.maps, err, sizeof(err));
	if (!ret)
		ret = ta_maps_init(&env.maps);
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return ret;
	}
	env.prog = bpf_program__fd(env.skel->progs.tap_accel_policy);
	return 0;
}

void env_close(void)
{
	ta_maps_close(&env.maps);
	tap_accel__destroy(env.skel);
}

static int counters_zero(int fd, uint32_t entries)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ta_counter *zeros = calloc(ncpus, sizeof(*zeros));
	uint32_t key;
	int ret = 0;

	if (!zeros)
		return -ENOMEM;
	for (key = 0; key < entries && !ret; key++)
		if (bpf_map_update_elem(fd, &key, zeros, BPF_ANY))
			ret = -errno;
	free(zeros);
	return ret;
}

static int map_empty(int fd)
{
	char key[64];

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return 0;
}

int env_reset(void)
{
	struct ta_guard_spec guard = {};
	struct ta_rate_spec rate = {};
	const struct ta_maps *m = &env.maps;
	int ret;

	ret = install(NULL, 0, TA_ACT_PASS);
	ret = ret ?: ta_guard_install(m, &guard);
	ret = ret ?: ta_rate_install(m, &rate);
	ret = ret ?: map_empty(m->ta_fdb);
	ret = ret ?: map_empty(m->ta_ports);
	ret = ret ?: counters_zero(m->ta_st_verdict, TA_NR_VERDICTS);
	ret = ret ?: counters_zero(m->ta_st_rule, TA_SLOTS * TA_RULE_STAT_SLOT);
	ret = ret ?: counters_zero(m->ta_st_guard, TA_GUARD_MAX);
	ret = ret ?: counters_zero(m->ta_st_parse, TA_PARSE_MAX);
	ret = ret ?: counters_zero(m->ta_st_event, TA_EV_MAX);
	return ret;
}

static int test_run(const struct pkt *p, struct xdp_md *ctx, uint32_t *verdict)
{
	static uint8_t out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d,
		    .data_size_in = p->len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);

	if (ctx) {
		opts.ctx_in = ctx;
		opts.ctx_size_in = sizeof(*ctx);
	}
	if (bpf_prog_test_run_opts(env.prog, &opts))
		return -errno;
	*verdict = opts.retval;
	return 0;
}

int run_frame(const struct pkt *p, uint32_t *verdict)
{
	return test_run(p, NULL, verdict);
}

int run_frame_split(const struct pkt *p, uint32_t linear, uint32_t *verdict)
{
	struct xdp_md ctx = {.data = 0, .data_end = linear};

	return test_run(p, &ctx, verdict);
}

int install(const struct ta_rule_spec *rules, uint32_t nr,
	    uint32_t default_action)
{
	struct ta_policy_spec spec = {
		.rules = (struct ta_rule_spec *)rules,
		.nr_rules = nr,
		.default_action = default_action,
	};

	return ta_policy_install(&env.maps, &spec);
}

uint32_t active_slot(void)
{
	struct ta_config cfg = {};
	uint32_t zero = 0;

	bpf_map_lookup_elem(env.maps.ta_config, &zero, &cfg);
	return cfg.active_slot;
}

const char *verdict_name(uint32_t verdict)
{
	static const char *const names[] = {"ABORTED", "DROP", "PASS", "TX",
					    "REDIRECT"};

	return verdict < 5 ? names[verdict] : "?";
}

struct ta_prefix pfx4(uint32_t addr, uint8_t len)
{
	struct ta_prefix p = {.prefixlen = 96 + len};

	p.addr[10] = 0xff;
	p.addr[11] = 0xff;
	memcpy(p.addr + 12, &addr, 4);
	return p;
}

struct ta_prefix pfx6(const uint8_t addr[16], uint8_t len)
{
	struct ta_prefix p = {.prefixlen = len};

	memcpy(p.addr, addr, 16);
	return p;
}

int expect_verdict_at(const char *where, const struct pkt *p, uint32_t verdict)
{
	uint32_t got;
	int ret = run_frame(p, &got);

	if (ret)
		FAIL("%s: test run: %s", where, strerror(-ret));
	if (got != verdict)
		FAIL("%s: verdict %s, expected %s", where, verdict_name(got),
		     verdict_name(verdict));
	return 0;
}

int expect_count_at(const char *where, int map_fd, uint32_t key,
		    uint64_t packets, uint64_t bytes)
{
	struct ta_counter c;
	int ret = ta_counter_read(map_fd, key, &c);

	if (ret)
		FAIL("%s: read: %s", where, strerror(-ret));
	if (c.packets != packets || c.bytes != bytes)
		FAIL("%s: %llu packets %llu bytes, expected %llu and %llu",
		     where, (unsigned long long)c.packets,
		     (unsigned long long)c.bytes, (unsigned long long)packets,
		     (unsigned long long)bytes);
	return 0;
}
