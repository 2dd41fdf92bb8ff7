// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* guard.c - a tap's guard addresses (guard.h). */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

int ta_guard_write(const struct ta_plane *pl, uint32_t id, const struct ta_guard_spec *g)
{
	struct ta_guard_ip4_key k4 = {.tap = id}, n4, *p4 = NULL;
	struct ta_guard_ip6_key k6 = {.tap = id}, n6, *p6 = NULL;
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
	while (!bpf_map_get_next_key(pl->maps.ta_guard_ip4, p4, &n4)) {
		bool keep = n4.tap != id;

		for (i = 0; g && i < g->nr_ip4 && !keep; i++)
			keep = g->ip4[i] == n4.addr;
		if (!keep && !bpf_map_delete_elem(pl->maps.ta_guard_ip4, &n4)) {
			p4 = NULL; /* deleted: restart the walk */
			continue;
		}
		k4 = n4;
		p4 = &k4;
	}
	while (!bpf_map_get_next_key(pl->maps.ta_guard_ip6, p6, &n6)) {
		bool keep = n6.tap != id;

		for (i = 0; g && i < g->nr_ip6 && !keep; i++)
			keep = !memcmp(g->ip6[i], n6.addr, 16);
		if (!keep && !bpf_map_delete_elem(pl->maps.ta_guard_ip6, &n6)) {
			p6 = NULL;
			continue;
		}
		k6 = n6;
		p6 = &k6;
	}
	return 0;
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
	struct ta_guard_ip4_key k4, n4, *p4 = NULL;
	struct ta_guard_ip6_key k6, n6, *p6 = NULL;

	g->nr_ip4 = g->nr_ip6 = 0;
	while (!bpf_map_get_next_key(pl->maps.ta_guard_ip4, p4, &n4)) {
		k4 = n4;
		p4 = &k4;
		if (k4.tap == id && g->nr_ip4 < TA_MAX_GUARD_ADDRS)
			g->ip4[g->nr_ip4++] = k4.addr;
	}
	while (!bpf_map_get_next_key(pl->maps.ta_guard_ip6, p6, &n6)) {
		k6 = n6;
		p6 = &k6;
		if (k6.tap == id && g->nr_ip6 < TA_MAX_GUARD_ADDRS)
			memcpy(g->ip6[g->nr_ip6++], k6.addr, 16);
	}
	/* Hash maps have no order; sorted output is stable and comparable. */
	qsort(g->ip4, g->nr_ip4, sizeof(g->ip4[0]), cmp_ip4);
	qsort(g->ip6, g->nr_ip6, sizeof(g->ip6[0]), cmp_ip6);
	return 0;
}
