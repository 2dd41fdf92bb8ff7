/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * parse.h - the policy file language (docs/policy.md) into a
 * struct ta_policy_spec. Parsing never touches the kernel: interface
 * names are kept as text and resolved by the caller at load time.
 */
#ifndef TA_POLICY_PARSE_H
#define TA_POLICY_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/error.h"
#include "names.h"
#include "spec.h"

/*
 * Parse `len` bytes of policy text. `filename` only names the source in
 * messages. 0, or -errno with "FILE:LINE:COL: message" in `e`;
 * `spec` is then empty. Free a parsed spec with ta_policy_spec_free().
 */
int ta_policy_parse(const char *text, size_t len, const char *filename,
		    struct ta_policy_spec *spec, struct ta_error *e);

/* The same for a file; -errno too when it cannot be read. */
int ta_policy_parse_file(const char *path, struct ta_policy_spec *spec, struct ta_error *e);

/* A two-way policy (spec.h) starts with rules the parser adds (the
 * security group's replies, invalid frames, neighbours: docs/policy.md),
 * marked implicit; how many. */
uint32_t ta_policy_implicit_rules(const struct ta_policy_spec *spec);
/* Mark the first rules of a two-way spec read back from the maps implicit
 * when they are what the parser adds (plane/decode.c). */
void ta_policy_mark_implicit(struct ta_policy_spec *spec);

/* Names of actions and fields, and MAC and prefix formats: names.h. */

#endif /* TA_POLICY_PARSE_H */
