// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * counters.c - blocks of the host's counters (counters.h). A chunk is a
 * PERCPU_ARRAY of TA_COUNTER_CHUNK counters; blocks are given out first-fit
 * and recorded in ta_counter_blocks, so that any tap-accel process can tell
 * what is free. A PERCPU_ARRAY lookup returns one value per possible CPU.
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

int ta_outer_clear(int outer, uint32_t index)
{
	return bpf_map_delete_elem(outer, &index) && errno != ENOENT ? -errno : 0;
}

/* A batch goes on after the key it is given. */
int ta_array_read(int fd, uint32_t first, uint32_t n, void *values, size_t size)
{
	uint32_t *keys = malloc((n ?: 1) * sizeof(*keys)), count = n, in = first - 1, out;
	int ret = 0;

	if (!keys)
		return -ENOMEM;
	if (!bpf_map_lookup_batch(fd, first ? &in : NULL, &out, keys, values, &count, NULL) ||
	    (errno == ENOENT && count == n))
		goto out;
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
	percpu = calloc((size_t)(n ?: 1) * ncpus, sizeof(*percpu));
	if (!percpu)
		return -ENOMEM;
	ret = ta_array_read(fd, first, n, percpu, ncpus * sizeof(*percpu));
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

/* The chunk map holding counter `n`, opened; -ENOENT if there is none. */
static int chunk_open(const struct ta_plane *pl, uint32_t n)
{
	__u32 chunk = n / TA_COUNTER_CHUNK, id;
	int fd;

	if (bpf_map_lookup_elem(pl->maps.ta_counters, &chunk, &id))
		return -errno;
	fd = bpf_map_get_fd_by_id(id);
	return fd < 0 ? -errno : fd;
}

int ta_counters_sum(const struct ta_plane *pl, uint32_t base, uint32_t n,
		    struct ta_counter *sums)
{
	int fd = chunk_open(pl, base), ret;

	if (fd < 0)
		return fd;
	ret = ta_counters_read(fd, base % TA_COUNTER_CHUNK, n, sums);
	close(fd);
	return ret;
}

/* ---- blocks ----------------------------------------------------------------- */

static int cmp_block(const void *a, const void *b)
{
	const struct ta_counter_block *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

/* Make room for one more block in the plane's list. */
static int blocks_grow(struct ta_plane *pl)
{
	uint32_t cap = pl->cap_blocks ? 2 * pl->cap_blocks : 256;
	struct ta_counter_block *more;

	if (pl->nr_blocks < pl->cap_blocks)
		return 0;
	more = realloc(pl->blocks, cap * sizeof(*more));
	if (!more)
		return -ENOMEM;
	pl->blocks = more;
	pl->cap_blocks = cap;
	return 0;
}

static int blocks_load(struct ta_plane *pl)
{
	uint32_t *keys, *lens, n;
	int err;

	if (pl->blocks_known)
		return 0;
	pl->nr_blocks = 0;
	pl->chunk_blocks = calloc(TA_MAX_COUNTER_CHUNKS, sizeof(*pl->chunk_blocks));
	if (!pl->chunk_blocks)
		return -ENOMEM;
	err = ta_hash_dump(pl->maps.ta_counter_blocks, TA_MAX_COUNTER_BLOCKS, sizeof(*keys),
			   sizeof(*lens), (void **)&keys, (void **)&lens, &n);
	if (err)
		return err;
	for (uint32_t i = 0; i < n && !err; i++) {
		if (keys[i] / TA_COUNTER_CHUNK >= TA_MAX_COUNTER_CHUNKS)
			continue;
		if (blocks_grow(pl)) {
			err = -ENOMEM;
			break;
		}
		pl->blocks[pl->nr_blocks++] = (struct ta_counter_block){ keys[i], lens[i] };
		pl->chunk_blocks[keys[i] / TA_COUNTER_CHUNK]++;
	}
	free(keys);
	free(lens);
	if (err)
		return err;
	if (pl->nr_blocks) /* qsort() wants an array, even of none */
		qsort(pl->blocks, pl->nr_blocks, sizeof(*pl->blocks), cmp_block);
	pl->blocks_known = true;
	return 0;
}

/* Whether chunk c holds a block. */
static bool chunk_used(const struct ta_plane *pl, uint32_t c)
{
	return c < TA_MAX_COUNTER_CHUNKS && pl->chunk_blocks[c];
}

/* The first gap of n counters in a chunk that has blocks, else the start
 * of the first chunk without any (counter 0 is never given out). */
static int find_room(const struct ta_plane *pl, uint32_t n, uint32_t *base, bool *fresh)
{
	uint32_t at = 1;

	for (uint32_t i = 0; i <= pl->nr_blocks; i++) {
		uint32_t end = i < pl->nr_blocks ? pl->blocks[i].base : UINT32_MAX;

		/* a gap [at, end) in at's chunk, if that chunk has blocks */
		if (at / TA_COUNTER_CHUNK != (at + n - 1) / TA_COUNTER_CHUNK)
			at = (at / TA_COUNTER_CHUNK + 1) * TA_COUNTER_CHUNK;
		if (at + n <= end && chunk_used(pl, at / TA_COUNTER_CHUNK)) {
			*base = at;
			*fresh = false;
			return 0;
		}
		if (i < pl->nr_blocks)
			at = pl->blocks[i].base + pl->blocks[i].len;
	}
	for (uint32_t c = 0; c < TA_MAX_COUNTER_CHUNKS; c++)
		if (!chunk_used(pl, c)) {
			*base = c ? c * TA_COUNTER_CHUNK : 1;
			*fresh = true;
			return 0;
		}
	return -ENOSPC;
}

static int chunk_create(const struct ta_plane *pl, uint32_t c)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, "ta_counters", 4,
				sizeof(struct ta_counter), TA_COUNTER_CHUNK, NULL);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (bpf_map_update_elem(pl->maps.ta_counters, &c, &fd, BPF_ANY))
		err = -errno;
	close(fd);
	return err;
}

/* Zero n counters of a chunk: space given back keeps what it counted. */
static int zero(const struct ta_plane *pl, uint32_t base, uint32_t n)
{
	size_t per_key = pl->ncpus * sizeof(struct ta_counter);
	uint32_t *keys = malloc(n * sizeof(*keys)), count = n;
	void *zeros = calloc(n, per_key);
	int fd = chunk_open(pl, base), err = 0;

	if (fd < 0 || !keys || !zeros) {
		err = fd < 0 ? fd : -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		keys[i] = base % TA_COUNTER_CHUNK + i;
	if (bpf_map_update_batch(fd, keys, zeros, &count, NULL)) {
		if (errno != EINVAL && errno != ENOTSUPP && errno != EOPNOTSUPP)
			err = -errno;
		for (uint32_t i = 0; !err && i < n; i++)
			if (bpf_map_update_elem(fd, &keys[i], zeros, BPF_ANY))
				err = -errno;
	}
out:
	if (fd >= 0)
		close(fd);
	free(keys);
	free(zeros);
	return err;
}

int ta_counters_alloc(struct ta_plane *pl, uint32_t n, uint32_t *base)
{
	bool fresh;
	uint32_t i;
	int err;

	if (!n || n > TA_COUNTER_CHUNK - 1)
		return -EINVAL;
	err = blocks_load(pl);
	err = err ?: find_room(pl, n, base, &fresh);
	err = err ?: fresh ? chunk_create(pl, *base / TA_COUNTER_CHUNK) : zero(pl, *base, n);
	err = err ?: blocks_grow(pl);
	if (err)
		return err;
	if (bpf_map_update_elem(pl->maps.ta_counter_blocks, base, &n, BPF_ANY))
		return -errno;
	/* kept sorted by base: inserted in place */
	for (i = pl->nr_blocks; i > 0 && pl->blocks[i - 1].base > *base; i--)
		pl->blocks[i] = pl->blocks[i - 1];
	pl->blocks[i] = (struct ta_counter_block){ *base, n };
	pl->nr_blocks++;
	pl->chunk_blocks[*base / TA_COUNTER_CHUNK]++;
	return 0;
}

void ta_counters_free(struct ta_plane *pl, uint32_t base)
{
	uint32_t i;

	if (!base || blocks_load(pl))
		return;
	bpf_map_delete_elem(pl->maps.ta_counter_blocks, &base);
	for (i = 0; i < pl->nr_blocks && pl->blocks[i].base != base; i++)
		;
	if (i == pl->nr_blocks)
		return;
	memmove(&pl->blocks[i], &pl->blocks[i + 1], (pl->nr_blocks - i - 1) * sizeof(*pl->blocks));
	pl->nr_blocks--;
	pl->chunk_blocks[base / TA_COUNTER_CHUNK]--;
	if (!chunk_used(pl, base / TA_COUNTER_CHUNK))
		ta_outer_clear(pl->maps.ta_counters, base / TA_COUNTER_CHUNK);
}
