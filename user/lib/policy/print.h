/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* print.h - a policy spec as text in the policy language (docs/policy.md). */
#ifndef TA_POLICY_PRINT_H
#define TA_POLICY_PRINT_H

#include <stdio.h>

#include "spec.h"

/* Write a spec in the policy language, one statement per line: guard,
 * rate, fdb, rules, default. Parsing the text gives the same spec. */
void ta_policy_write(FILE *out, const struct ta_policy_spec *spec);

/* One rule as a line of the language; with its direction in a two-way
 * policy (ta_policy_two_way), as written before there were two otherwise. */
void ta_rule_write(FILE *out, const struct ta_rule_spec *r, bool two_way);

#endif /* TA_POLICY_PRINT_H */
