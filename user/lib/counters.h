/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counters.h - read the per-CPU counter maps (struct ta_counter) of the
 * policy program, summed over every possible CPU.
 */
#ifndef TA_COUNTERS_H
#define TA_COUNTERS_H

#include <stdint.h>

#include "../../bpf/tap_accel.h"

/* Entry `key` of counter map `fd` into *sum. 0 or -errno. */
int ta_counter_read(int fd, uint32_t key, struct ta_counter *sum);

/* Entries first..first+n-1 into sums[0..n-1]. 0 or -errno. */
int ta_counters_read(int fd, uint32_t first, uint32_t n,
		     struct ta_counter *sums);

#endif /* TA_COUNTERS_H */
