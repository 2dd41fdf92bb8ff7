/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counters.h - the counters of a tap (bpf/tap_accel.h: ta_st_tap and
 * ta_st_rule): making its maps and reading them, summed over every CPU.
 */
#ifndef TA_COUNTERS_H
#define TA_COUNTERS_H

#include <stdint.h>

#include "plane.h"

/* Entries first..first+n-1 of a PERCPU_ARRAY of struct ta_counter into
 * sums[0..n-1]. 0 or -errno. */
int ta_counters_read(int fd, uint32_t first, uint32_t n, struct ta_counter *sums);

/* A fresh map of a tap's TA_TAP_STATS counters, installed as tap `id`'s
 * (ta_st_tap). 0 or -errno. */
int ta_tap_stats_create(const struct ta_plane *pl, uint32_t id);
/* Tap `id`'s TA_TAP_STATS counters. 0 or -errno (-ENOENT: it has none). */
int ta_tap_stats_read(const struct ta_plane *pl, uint32_t id, struct ta_counter *sums);

/* A fresh map of rule counters for a version of nr_rules rules, installed
 * at entry `index` of ta_st_rule. 0 or -errno. */
int ta_rule_counters_create(const struct ta_plane *pl, uint32_t index, uint32_t nr_rules);
/* Those counters, summed over the CPUs: sums[0..nr_rules] (the last is
 * the default's). 0 or -errno (-ENOENT: no map there). */
int ta_rule_counters_read(const struct ta_plane *pl, uint32_t index, uint32_t nr_rules,
			  struct ta_counter *sums);

/* Remove entry `index` of an ARRAY_OF_MAPS (the map goes with its last
 * user). 0 or -errno. */
int ta_outer_clear(int outer, uint32_t index);

#endif /* TA_COUNTERS_H */
