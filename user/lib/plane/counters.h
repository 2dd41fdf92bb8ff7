/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * counters.h - blocks of the host's counters (bpf/tap_accel.h:
 * ta_counters): given out zeroed, taken back, read summed over every CPU.
 */
#ifndef TA_COUNTERS_H
#define TA_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "plane.h"

/* Entries first..first+n-1 of a PERCPU_ARRAY of struct ta_counter into
 * sums[0..n-1]. 0 or -errno. */
int ta_counters_read(int fd, uint32_t first, uint32_t n, struct ta_counter *sums);

/* A block of n counters (n <= TA_COUNTER_CHUNK), all zero: *base is its
 * first. A chunk is made when none has room. 0 or -errno (-ENOSPC). */
int ta_counters_alloc(struct ta_plane *pl, uint32_t n, uint32_t *base);
/* Give the block at `base` back; a chunk with no block left goes. Frames
 * must no longer count there (the caller waited for them). */
void ta_counters_free(struct ta_plane *pl, uint32_t base);

/* The n counters from `base`, summed over every CPU. 0 or -errno. */
int ta_counters_sum(const struct ta_plane *pl, uint32_t base, uint32_t n,
		    struct ta_counter *sums);

/* Values of keys first..first+n-1 of an array map into `values` (value
 * size `size`, per-CPU wide for per-CPU maps), in one batch where the
 * kernel has batches. 0 or -errno. */
int ta_array_read(int fd, uint32_t first, uint32_t n, void *values, size_t size);

/* Remove entry `index` of an ARRAY_OF_MAPS. 0 or -errno. */
int ta_outer_clear(int outer, uint32_t index);

#endif /* TA_COUNTERS_H */
