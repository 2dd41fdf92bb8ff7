/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * harness.h - one loaded policy program shared by every test, reset to a
 * blank state (no rules, default pass, guard/rate off, empty fdb/ports,
 * counters zero) before each test; runs frames through it with
 * BPF_PROG_TEST_RUN and checks verdicts and counters.
 */
#ifndef TA_TEST_HARNESS_H
#define TA_TEST_HARNESS_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/bpf.h>

#include "user/lib/policy.h"
#include "user/lib/counters.h"
#include "frames.h"

struct test {
	const char *name;
	int (*fn)(void);
};

struct env {
	struct tap_accel *skel;
	struct ta_maps maps;
	int prog;
};

extern struct env env;
extern char fail_msg[512];

int env_open(void);
void env_close(void);
int env_reset(void);

/* Run a frame; 0 and *verdict, or -errno from the kernel. */
int run_frame(const struct pkt *p, uint32_t *verdict);
/* The same with only the first `linear` bytes in the linear part (the
 * rest in a fragment), as a multi-buffer frame arrives. */
int run_frame_split(const struct pkt *p, uint32_t linear, uint32_t *verdict);

/* Install rules (copied into a spec) with a default action. */
int install(const struct ta_rule_spec *rules, uint32_t nr,
	    uint32_t default_action);
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
int expect_count_at(const char *where, int map_fd, uint32_t key,
		    uint64_t packets, uint64_t bytes);

#define STR2(x) #x
#define STR(x)	STR2(x)
#define WHERE	__FILE__ ":" STR(__LINE__)

/* The frame gets this XDP verdict. */
#define EXPECT_VERDICT(p, v)                                                   \
	do {                                                                   \
		if (expect_verdict_at(WHERE, (p), (v)))                        \
			return -1;                                             \
	} while (0)

/* Counter map `map` (a member of env.maps) entry key is exactly this. */
#define EXPECT_COUNT(map, key, packets, bytes)                                 \
	do {                                                                   \
		if (expect_count_at(WHERE " " #map "[" #key "]", env.maps.map, \
				    (key), (packets), (bytes)))                \
			return -1;                                             \
	} while (0)

/* Rule counter of the active slot. */
#define RULE_KEY(rule) (active_slot() * TA_RULE_STAT_SLOT + (rule))

#endif /* TA_TEST_HARNESS_H */
