// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* guard.c - a tap's guard addresses in the maps (guard.h); their parameters
 * are guard_parse.c's. */
#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "maps.h"

/* Every key of a guard set, in one batch: the sets are of all taps. */
static int keys_dump(int fd, size_t key_size, void **keys, uint32_t *n)
{
	return ta_hash_dump(fd, TA_MAX_GUARD_ENTRIES, key_size, 1, keys, NULL, n);
}

static bool ip4_listed(const struct ta_guard_spec *g, uint32_t addr)
{
	for (uint32_t i = 0; g && i < g->nr_ip4; i++)
		if (g->ip4[i] == addr)
			return true;
	return false;
}

static bool ip6_listed(const struct ta_guard_spec *g, const uint8_t addr[16])
{
	for (uint32_t i = 0; g && i < g->nr_ip6; i++)
		if (!memcmp(g->ip6[i], addr, 16))
			return true;
	return false;
}

/* Remove tap id's addresses that `g` does not list (all of them for NULL). */
static int guard_prune(const struct ta_plane *pl, uint32_t id, const struct ta_guard_spec *g)
{
	struct ta_guard_ip4_key *k4;
	struct ta_guard_ip6_key *k6;
	uint32_t n4, n6;
	int err;

	err = keys_dump(pl->maps.ta_guard_ip4, sizeof(*k4), (void **)&k4, &n4);
	if (err)
		return err;
	for (uint32_t i = 0; i < n4; i++)
		if (k4[i].tap == id && !ip4_listed(g, k4[i].addr))
			bpf_map_delete_elem(pl->maps.ta_guard_ip4, &k4[i]);
	free(k4);
	err = keys_dump(pl->maps.ta_guard_ip6, sizeof(*k6), (void **)&k6, &n6);
	if (err)
		return err;
	for (uint32_t i = 0; i < n6; i++)
		if (k6[i].tap == id && !ip6_listed(g, k6[i].addr))
			bpf_map_delete_elem(pl->maps.ta_guard_ip6, &k6[i]);
	free(k6);
	return 0;
}

int ta_guard_write(const struct ta_plane *pl, uint32_t id, const struct ta_guard_spec *g)
{
	struct ta_guard_ip4_key k4 = { .tap = id };
	struct ta_guard_ip6_key k6 = { .tap = id };
	uint8_t one = 1;
	uint32_t i;

	for (i = 0; g && i < g->nr_ip4; i++) {
		k4.addr = g->ip4[i];
		if (bpf_map_update_elem(pl->maps.ta_guard_ip4, &k4, &one, BPF_ANY))
			return -errno;
	}
	for (i = 0; g && i < g->nr_ip6; i++) {
		memcpy(k6.addr, g->ip6[i], 16);
		if (bpf_map_update_elem(pl->maps.ta_guard_ip6, &k6, &one, BPF_ANY))
			return -errno;
	}
	return guard_prune(pl, id, g);
}

static int cmp_ip4(const void *a, const void *b)
{
	return memcmp(a, b, 4);
}

static int cmp_ip6(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

int ta_guard_read(const struct ta_plane *pl, uint32_t id, struct ta_guard_spec *g)
{
	struct ta_guard_ip4_key *k4;
	struct ta_guard_ip6_key *k6;
	uint32_t n4, n6;
	int err;

	g->nr_ip4 = g->nr_ip6 = 0;
	err = keys_dump(pl->maps.ta_guard_ip4, sizeof(*k4), (void **)&k4, &n4);
	if (err)
		return err;
	for (uint32_t i = 0; i < n4; i++)
		if (k4[i].tap == id && g->nr_ip4 < TA_MAX_GUARD_ADDRS)
			g->ip4[g->nr_ip4++] = k4[i].addr;
	free(k4);
	err = keys_dump(pl->maps.ta_guard_ip6, sizeof(*k6), (void **)&k6, &n6);
	if (err)
		return err;
	for (uint32_t i = 0; i < n6; i++)
		if (k6[i].tap == id && g->nr_ip6 < TA_MAX_GUARD_ADDRS)
			memcpy(g->ip6[g->nr_ip6++], k6[i].addr, 16);
	free(k6);
	/* Hash maps have no order; sorted output is stable and comparable. */
	qsort(g->ip4, g->nr_ip4, sizeof(g->ip4[0]), cmp_ip4);
	qsort(g->ip6, g->nr_ip6, sizeof(g->ip6[0]), cmp_ip6);
	return 0;
}
