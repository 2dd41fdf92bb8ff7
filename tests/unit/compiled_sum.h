/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * compiled_sum.h - one number for everything the compiler makes of a
 * policy: the header up to COMPILED_HEAD_BYTES, wildcards, every stored
 * bit-vector, keyed entries, value tables, port tables and rule actions.
 * examples-compiled.txt holds the sums of the example policies as the
 * compiler made them before policies had directions; a policy of one
 * direction must still compile to exactly that (test_compile.c).
 */
#ifndef TA_TEST_COMPILED_SUM_H
#define TA_TEST_COMPILED_SUM_H

#include <stdint.h>

#include "lib/policy/compile.h"

static inline uint64_t sum_bytes(uint64_t h, const void *data, size_t len)
{
	const uint8_t *b = data;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static inline uint64_t sum_keyed(uint64_t h, const struct ta_keyed *k)
{
	h = sum_bytes(h, &k->nr, sizeof(k->nr));
	h = sum_bytes(h, k->keys, k->nr * sizeof(k->keys[0]));
	return sum_bytes(h, k->values, k->nr * sizeof(k->values[0]));
}

static inline uint64_t sum_ports(uint64_t h, const struct ta_port_table *p)
{
	h = sum_bytes(h, &p->size, sizeof(p->size));
	return sum_bytes(h, p->table, p->size * sizeof(p->table[0]));
}

static inline uint64_t compiled_sum(const struct ta_compiled *c, size_t head_bytes)
{
	uint64_t h = 0xcbf29ce484222325ull;

	h = sum_bytes(h, &c->head, head_bytes);
	h = sum_bytes(h, c->wildcard, sizeof(c->wildcard));
	h = sum_bytes(h, &c->bvs.nr, sizeof(c->bvs.nr));
	h = sum_bytes(h, c->bvs.vecs, c->bvs.nr * sizeof(c->bvs.vecs[0]));
	h = sum_keyed(h, &c->vlan);
	h = sum_keyed(h, &c->ethertype);
	h = sum_keyed(h, &c->src_mac);
	h = sum_keyed(h, &c->dst_mac);
	h = sum_keyed(h, &c->src_ip);
	h = sum_keyed(h, &c->dst_ip);
	h = sum_bytes(h, c->ip_proto, sizeof(c->ip_proto));
	h = sum_bytes(h, c->icmp_type, sizeof(c->icmp_type));
	h = sum_ports(h, &c->src_port);
	h = sum_ports(h, &c->dst_port);
	return sum_bytes(h, c->rules, c->head.nr_rules * sizeof(c->rules[0]));
}

#endif /* TA_TEST_COMPILED_SUM_H */
