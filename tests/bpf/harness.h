/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * harness.h - one private policy plane shared by every test, its test tap
 * (lo) bound to policy "test", reset to a blank state (no rules, default
 * pass, guard and rate off, empty fdb, no ports, counters zero) before
 * each test; runs frames through it with BPF_PROG_TEST_RUN and checks
 * verdicts and counters.
 */
#ifndef TA_TEST_HARNESS_H
#define TA_TEST_HARNESS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>

#include "user/lib/plane/counters.h"
#include "user/lib/plane/plane.h"
#include "user/lib/plane/taps.h"
#include "user/lib/policy/spec.h"
#include "frames.h"

struct test {
	const char *name;
	int (*fn)(void);
};

struct env {
	struct ta_plane pl; /* a private plane: nothing pinned */
	int prog;
	struct ta_tap_state tap; /* the test tap, lo, bound to "test" */
	uint32_t policy;    /* index of policy "test" */
	struct ta_guard_spec guard; /* the test tap's guard */
	struct ta_rate_spec rate;   /* rate of the next install() */
	struct ta_error e;  /* of the last failed call */
};

extern struct env env;
extern char fail_msg[2048];

int env_open(void);
void env_close(void);
int env_reset(void);

/* Run a frame; 0 and *verdict, or -errno from the kernel. Frames arrive on
 * lo, the test tap, as BPF_PROG_TEST_RUN gives them. */
int run_frame(const struct pkt *p, uint32_t *verdict);
/* The same with only the first `linear` bytes in the linear part (the
 * rest in a fragment), as a multi-buffer frame arrives. */
int run_frame_split(const struct pkt *p, uint32_t linear, uint32_t *verdict);

/* Load rules (copied into a spec; redirect targets by ifindex) with a
 * default action and env.rate as a new version of policy "test": 0 or
 * -errno, its message in env.e. */
int install(const struct ta_rule_spec *rules, uint32_t nr, uint32_t default_action);
int install_spec(struct ta_policy_spec *spec);
/* A new version of policy "test", blank but for this rate. */
int rate_set(const struct ta_rate_spec *rate);
/* The test tap's guard (NULL: none). */
int guard_set(const struct ta_guard_spec *g);
/* The test tap's fdb: to `ifindex` (its port made as needed), or gone. */
int fdb_add(const uint8_t mac[6], uint32_t ifindex);
int fdb_del(const uint8_t mac[6]);
/* The port of interface `ifindex`, 0 if it has none. */
uint32_t port_of(uint32_t ifindex);
/* The slot policy "test" runs in. */
uint32_t active_slot(void);
const char *verdict_name(uint32_t verdict);

#define F(field) (1u << (field))
struct ta_prefix pfx4(uint32_t addr, uint8_t len);
struct ta_prefix pfx6(const uint8_t addr[16], uint8_t len);

#define FAIL(...)                                                              \
	do {                                                                   \
		snprintf(fail_msg, sizeof(fail_msg), __VA_ARGS__);             \
		return -1;                                                     \
	} while (0)

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			FAIL(__VA_ARGS__);                                     \
	} while (0)

/* Call returning 0 or -errno; fails the test with its line otherwise. */
#define OK(call)                                                               \
	do {                                                                   \
		int ok_ret_ = (call);                                          \
		if (ok_ret_)                                                   \
			FAIL("%s:%d: %s = %d (%s)", __FILE__, __LINE__, #call, \
			     ok_ret_, strerror(-ok_ret_));                     \
	} while (0)

int expect_verdict_at(const char *where, const struct pkt *p, uint32_t verdict);
/* Counter `key` (TA_STAT_*) of the test tap, or rule `rule` of the active
 * version (TA_MAX_RULES: the default). */
int expect_stat_at(const char *where, uint32_t key, uint64_t packets, uint64_t bytes);
int expect_rule_at(const char *where, int which, uint32_t rule, uint64_t packets,
		   uint64_t bytes);

#define STR2(x) #x
#define STR(x)	STR2(x)
#define WHERE	__FILE__ ":" STR(__LINE__)

/* The frame gets this XDP verdict. */
#define EXPECT_VERDICT(p, v)                                                   \
	do {                                                                   \
		if (expect_verdict_at(WHERE, (p), (v)))                        \
			return -1;                                             \
	} while (0)

/* The test tap's counter TA_STAT_... is exactly this. */
#define EXPECT_STAT(key, packets, bytes)                                       \
	do {                                                                   \
		if (expect_stat_at(WHERE " " #key, (key), (packets), (bytes))) \
			return -1;                                             \
	} while (0)

/* Rule `rule` of the active version (TA_MAX_RULES: the default), or of
 * the version it replaced. */
#define EXPECT_RULE(rule, packets, bytes)                                      \
	do {                                                                   \
		if (expect_rule_at(WHERE " rule " #rule, 0, (rule), (packets), \
				   (bytes)))                                   \
			return -1;                                             \
	} while (0)
#define EXPECT_PREV_RULE(rule, packets, bytes)                                 \
	do {                                                                   \
		if (expect_rule_at(WHERE " previous rule " #rule, 1, (rule),   \
				   (packets), (bytes)))                        \
			return -1;                                             \
	} while (0)

#endif /* TA_TEST_HARNESS_H */
