// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * counters.c - a tap's counter maps (counters.h). A PERCPU_ARRAY lookup
 * returns one value per possible CPU; the rule counters are a plain array
 * with a row per CPU instead (bpf/tap_accel.h says why). Both are read in
 * one batch where the kernel has batches.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "counters.h"

/* Kernel-internal errno of a batch operation a map type lacks. */
#define ENOTSUPP 524

/* Values of keys first..first+n-1 of an array map into `values` (value
 * size `size`, already per-CPU wide for per-CPU maps). */
static int array_read(int fd, uint32_t first, uint32_t n, void *values, size_t size)
{
	uint32_t *keys = malloc(n * sizeof(*keys)), count = n, batch;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	if (first == 0 && !bpf_map_lookup_batch(fd, NULL, &batch, keys, values, &count, NULL) &&
	    count == n)
		goto out;
	if (first == 0 && errno == ENOENT && count == n)
		goto out; /* the batch ended at the last entry */
	for (uint32_t i = 0; i < n && !ret; i++) {
		uint32_t key = first + i;

		if (bpf_map_lookup_elem(fd, &key, (char *)values + i * size))
			ret = -errno;
	}
out:
	free(keys);
	return ret;
}

int ta_counters_read(int fd, uint32_t first, uint32_t n, struct ta_counter *sums)
{
	int ncpus = libbpf_num_possible_cpus();
	struct ta_counter *percpu;
	int ret;

	if (ncpus < 0)
		return ncpus;
	percpu = calloc((size_t)n * ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	ret = array_read(fd, first, n, percpu, ncpus * sizeof(*percpu));
	for (uint32_t i = 0; !ret && i < n; i++) {
		memset(&sums[i], 0, sizeof(sums[i]));
		for (int cpu = 0; cpu < ncpus; cpu++) {
			sums[i].packets += percpu[i * ncpus + cpu].packets;
			sums[i].bytes += percpu[i * ncpus + cpu].bytes;
		}
	}
	free(percpu);
	return ret;
}

/* Install `fd` at `index` of an ARRAY_OF_MAPS, then close it. */
static int install(int outer, uint32_t index, int fd)
{
	int err = 0;

	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(outer, &index, &fd, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

int ta_outer_clear(int outer, uint32_t index)
{
	return bpf_map_delete_elem(outer, &index) && errno != ENOENT ? -errno : 0;
}

/* The map at `index` of an ARRAY_OF_MAPS, opened; -ENOENT if none. */
static int inner_open(int outer, uint32_t index)
{
	__u32 id;
	int fd;

	if (bpf_map_lookup_elem(outer, &index, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

int ta_tap_stats_create(const struct ta_plane *pl, uint32_t id)
{
	return install(pl->maps.ta_st_tap, id,
		       bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ta_st_tap", 4,
				      sizeof(struct ta_counter), TA_TAP_STATS, NULL));
}

int ta_tap_stats_read(const struct ta_plane *pl, uint32_t id, struct ta_counter *sums)
{
	int fd = inner_open(pl->maps.ta_st_tap, id), ret;

	if (fd < 0)
		return fd;
	ret = ta_counters_read(fd, 0, TA_TAP_STATS, sums);
	close(fd);
	return ret;
}

int ta_rule_counters_create(const struct ta_plane *pl, uint32_t index, uint32_t nr_rules)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_INNER_MAP);

	return install(pl->maps.ta_st_rule, index,
		       bpf_map_create(BPF_MAP_TYPE_ARRAY, "ta_st_rule", 4,
				      sizeof(struct ta_counter),
				      pl->ncpus * TA_RULE_ROW(nr_rules), &opts));
}

int ta_rule_counters_read(const struct ta_plane *pl, uint32_t index, uint32_t nr_rules,
			  struct ta_counter *sums)
{
	uint32_t row = TA_RULE_ROW(nr_rules), n = pl->ncpus * row;
	struct ta_counter *all = calloc(n, sizeof(*all));
	int fd = inner_open(pl->maps.ta_st_rule, index), ret;

	if (fd < 0 || !all) {
		ret = fd < 0 ? fd : -ENOMEM;
		goto out;
	}
	ret = array_read(fd, 0, n, all, sizeof(*all));
	for (uint32_t r = 0; !ret && r <= nr_rules; r++) {
		memset(&sums[r], 0, sizeof(sums[r]));
		for (int cpu = 0; cpu < pl->ncpus; cpu++) {
			sums[r].packets += all[cpu * row + r].packets;
			sums[r].bytes += all[cpu * row + r].bytes;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(all);
	return ret;
}
