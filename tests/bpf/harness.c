// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* harness.c - the shared private plane and its checks (harness.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "harness.h"
#include "user/lib/plane/fdb.h"
#include "user/lib/plane/policies.h"
#include "user/lib/plane/ports.h"
#include "user/lib/plane/taps.h"

#define TEST_TAP "lo"

struct env env = {.prog = -1};
char fail_msg[2048];

/* The test tap, bound (again) with the guard of env.guard. */
static int bind_test_tap(void)
{
	struct ta_bind b = {
		.ifname = TEST_TAP,
		.policy = env.policy,
		.guard = env.guard.flags ? &env.guard : NULL,
		.entry_only = true,
	};
	enum ta_bind_result result;
	struct ta_tap_key key;

	if (ta_tap_bind(&env.pl, &b, &result, &env.e))
		return -EIO;
	if (ta_tap_key_of(&env.pl, TEST_TAP, &key) || ta_tap_read(&env.pl, &key, &env.tap))
		return -ENOENT;
	return 0;
}

int env_open(void)
{
	struct ta_policy_spec empty = {};
	struct ta_load_result res;

	if (ta_plane_private(&env.pl, &env.e) ||
	    ta_policy_load(&env.pl, "test", &empty, true, &res, &env.e)) {
		fprintf(stderr, "%s\n", env.e.text);
		return -EIO;
	}
	env.prog = env.pl.prog_fd;
	env.policy = res.index;
	return bind_test_tap();
}

void env_close(void)
{
	ta_plane_close(&env.pl);
}

static int empty_map(int fd)
{
	char key[64];

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			return -errno;
	return 0;
}

/* A blank policy, no guard, no fdb, fresh counters. */
int env_reset(void)
{
	struct ta_tap_key key;
	int ret;

	memset(&env.guard, 0, sizeof(env.guard));
	memset(&env.rate, 0, sizeof(env.rate));
	ret = install(NULL, 0, TA_ACT_PASS) ? -EIO : 0;
	ret = ret ?: ta_plane_set_unbound(&env.pl, TA_UNBOUND_PASS, 0);
	/* unbound and bound again: new counters, empty fdb, no guard */
	ret = ret ?: ta_tap_key_of(&env.pl, TEST_TAP, &key);
	ret = ret ?: (ta_tap_unbind(&env.pl, &key, &env.e) ? -EIO : 0);
	ret = ret ?: empty_map(env.pl.maps.ta_ports);
	ret = ret ?: empty_map(env.pl.maps.ta_port_keys);
	return ret ?: bind_test_tap();
}

static int test_run(const struct pkt *p, struct xdp_md *ctx, uint32_t *verdict)
{
	static uint8_t out[PKT_MAX];
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = p->d, .data_size_in = p->len,
		    .data_out = out, .data_size_out = sizeof(out), .repeat = 1);

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

int install_spec(struct ta_policy_spec *spec)
{
	struct ta_load_result res;

	spec->rate = env.rate;
	return ta_policy_load(&env.pl, "test", spec, true, &res, &env.e);
}

int install(const struct ta_rule_spec *rules, uint32_t nr, uint32_t default_action)
{
	struct ta_policy_spec spec = {.nr_rules = nr, .default_action = default_action};
	int ret;

	spec.rules = calloc(nr ?: 1, sizeof(*rules));
	if (!spec.rules)
		return -ENOMEM;
	if (nr)
		memcpy(spec.rules, rules, nr * sizeof(*rules));
	ret = install_spec(&spec);
	free(spec.rules);
	return ret;
}

int rate_set(const struct ta_rate_spec *rate)
{
	env.rate = *rate;
	return install(NULL, 0, TA_ACT_PASS);
}

int guard_set(const struct ta_guard_spec *g)
{
	if (g)
		env.guard = *g;
	else
		memset(&env.guard, 0, sizeof(env.guard));
	return bind_test_tap();
}

int fdb_add(const uint8_t mac[6], uint32_t ifindex)
{
	uint32_t port;
	int err = ta_port_get(&env.pl, ifindex, &port);

	return err ?: ta_fdb_add(&env.pl, env.tap.tap.id, mac, port);
}

int fdb_del(const uint8_t mac[6])
{
	int err = ta_fdb_del(&env.pl, env.tap.tap.id, mac);

	if (!err)
		ta_ports_prune(&env.pl);
	return err;
}

uint32_t port_of(uint32_t ifindex)
{
	struct ta_tap_key key = {.netns_cookie = env.pl.netns_cookie, .ifindex = ifindex};
	uint32_t port = 0, devmap_value;

	if (bpf_map_lookup_elem(env.pl.maps.ta_port_keys, &key, &port) ||
	    bpf_map_lookup_elem(env.pl.maps.ta_ports, &port, &devmap_value))
		return 0;
	return port;
}

uint32_t active_slot(void)
{
	uint32_t slot = 0;

	bpf_map_lookup_elem(env.pl.maps.ta_policy_active, &env.policy, &slot);
	return slot;
}

const char *verdict_name(uint32_t verdict)
{
	static const char *const names[] = {"ABORTED", "DROP", "PASS", "TX", "REDIRECT"};

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

/* The test tap's binding as it is now (a policy load changes it). */
static int reread_tap(void)
{
	struct ta_tap_key key = env.tap.key;

	return ta_tap_read(&env.pl, &key, &env.tap);
}

static int expect_counter(const char *where, const struct ta_counter *c, uint64_t packets,
			  uint64_t bytes)
{
	if (c->packets != packets || c->bytes != bytes)
		FAIL("%s: %llu packets %llu bytes, expected %llu and %llu", where,
		     (unsigned long long)c->packets, (unsigned long long)c->bytes,
		     (unsigned long long)packets, (unsigned long long)bytes);
	return 0;
}

int expect_stat_at(const char *where, uint32_t key, uint64_t packets, uint64_t bytes)
{
	struct ta_counter stats[TA_TAP_STATS];
	int ret = reread_tap() ?: ta_tap_stats_read(&env.pl, &env.tap, stats);

	if (ret)
		FAIL("%s: read: %s", where, strerror(-ret));
	return expect_counter(where, &stats[key], packets, bytes);
}

int expect_rule_at(const char *where, int which, uint32_t rule, uint64_t packets,
		   uint64_t bytes)
{
	static struct ta_counter sums[TA_MAX_RULES + 1];
	struct ta_rule_counters info;
	int ret;

	ret = reread_tap();
	ret = ret ?: ta_tap_rule_counters(&env.pl, &env.tap, which, &info, sums);
	if (ret)
		FAIL("%s: read: %s", where, strerror(-ret));
	if (rule > info.nr_rules)
		rule = info.nr_rules; /* the default's */
	return expect_counter(where, &sums[rule], packets, bytes);
}
