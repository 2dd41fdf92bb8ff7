/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * names.h - the names of the program's counters (verdicts, guard reasons,
 * parse classes, events) as `tap-accel stats`, `--json` and the tests
 * print them. One table each, indexed by the enums of tap_accel.h.
 */
#ifndef TA_NAMES_H
#define TA_NAMES_H

#include <stdint.h>

#include "../../bpf/tap_accel.h"

extern const char *const ta_verdict_names[TA_NR_VERDICTS];
extern const char *const ta_guard_names[TA_GUARD_MAX];
extern const char *const ta_parse_names[TA_PARSE_MAX];
extern const char *const ta_event_names[TA_EV_MAX];

/* The name, or "?" for a verdict out of range; the others take -1 (or
 * any value out of range) for "nothing to report" and return "ok". */
const char *ta_verdict_name(uint32_t verdict);
const char *ta_parse_name(int class);
const char *ta_guard_name(int reason);

#endif /* TA_NAMES_H */
