/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * compile.h - a policy spec into the form the program reads (bpf/tap_accel.h):
 * its rules into de-duplicated bit-vectors of rules, per field a keyed map
 * (hash or LPM) or a value table. In memory only, no BPF call: where it
 * goes in the plane's maps, and writing it there, is plane/install.h's.
 */
#ifndef TA_POLICY_COMPILE_H
#define TA_POLICY_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* The bit-vectors of one policy, each set once (open addressing). */
#define TA_BV_HASH_SIZE (2 * TA_MAX_BITVECS)
struct ta_bitvec_set {
	struct ta_bitvec vecs[TA_MAX_BITVECS];
	uint32_t hash[TA_BV_HASH_SIZE]; /* index + 1, 0 = free */
	uint32_t nr;
};

union ta_field_key {
	__u32 value;
	struct ta_mac mac;
	struct ta_key_ip ip;
};

/* The entries of one hash or LPM field map: key -> bit-vector index. */
struct ta_keyed {
	union ta_field_key keys[TA_MAX_RULES];
	uint32_t values[TA_MAX_RULES];
	uint32_t nr;
};

/* Ports in two levels (tap_accel.h): the directory, then the pages. */
struct ta_port_table {
	uint32_t flat[TA_PORT_SPACE]; /* port -> bit-vector index */
	uint32_t table[TA_PORT_DIR + TA_PORT_SPACE];
	uint32_t size; /* entries of table in use */
};

/*
 * A compiled policy. Bit-vector indices are into bvs; head holds the
 * counts, actions, rate and field_mask, and its wildcard[] indices, but
 * not yet where the version's data goes in the shared arrays (the *_base
 * and *_table fields): install.c fills those when it places it.
 */
struct ta_compiled {
	const struct ta_policy_spec *spec;
	struct ta_policy head;
	struct ta_bitvec wildcard[TA_F_MAX]; /* rules not constraining each field */
	struct ta_bitvec_set bvs;
	struct ta_keyed vlan, ethertype, src_mac, dst_mac, src_ip, dst_ip;
	uint32_t ip_proto[TA_BYTE_SPACE], icmp_type[TA_BYTE_SPACE];
	struct ta_port_table src_port, dst_port;
	struct ta_rule_action rules[TA_MAX_RULES];
};

/*
 * Compile `spec` (its redirect and fdb ports given): 0 and *out, the
 * caller's to free(); or -E2BIG (more than TA_MAX_RULES rules), -ENOSPC
 * (more distinct rule sets than TA_MAX_BITVECS), -EINVAL (an action or
 * field out of range, a redirect without a port, an action other than
 * pass, drop or reject in the in direction), -ERANGE (a burst the program
 * cannot scale) or -ENOMEM. `spec` must outlive *out.
 *
 * A two-way policy (ta_policy_two_way) gets TA_POL_F_CT, its default in,
 * and the bit-vectors of the rules of each direction and of each state;
 * its generation is the installer's to give. Any other compiles exactly
 * as it did before there were directions: those fields all 0.
 */
int ta_policy_compile(const struct ta_policy_spec *spec, struct ta_compiled **out);

/* Whether some rule of `c` matches on field f. */
static inline bool ta_compiled_uses(const struct ta_compiled *c, enum ta_field f)
{
	return c->head.field_mask & (1u << f);
}

/* The keyed entries of field f, or NULL for a field of value tables. */
const struct ta_keyed *ta_compiled_keyed(const struct ta_compiled *c, enum ta_field f);

/* IP fields are LPM keys; the other keyed fields exact ones. */
static inline bool ta_field_is_ip(enum ta_field f)
{
	return f == TA_F_SRC_IP || f == TA_F_DST_IP;
}

#endif /* TA_POLICY_COMPILE_H */
