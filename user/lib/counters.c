// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * counters.c - sum per-CPU counters. A PERCPU_ARRAY lookup returns one
 * value per possible CPU, each rounded up to 8 bytes (16 already is).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counters.h"

static int read_summed(int fd, uint32_t key, struct ta_counter *percpu,
		       int ncpus, struct ta_counter *sum)
{
	int cpu;

	if (bpf_map_lookup_elem(fd, &key, percpu))
		return -errno;
	memset(sum, 0, sizeof(*sum));
	for (cpu = 0; cpu < ncpus; cpu++) {
		sum->packets += percpu[cpu].packets;
		sum->bytes += percpu[cpu].bytes;
	}
	return 0;
}

int ta_counters_read(int fd, uint32_t first, uint32_t n,
		     struct ta_counter *sums)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ta_counter *percpu;
	uint32_t i;
	int ret = 0;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc(ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	for (i = 0; i < n && !ret; i++)
		ret = read_summed(fd, first + i, percpu, ncpus, &sums[i]);
	free(percpu);
	return ret;
}

int ta_counter_read(int fd, uint32_t key, struct ta_counter *sum)
{
	return ta_counters_read(fd, key, 1, sum);
}
