/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * names.h - the names of the program's counters (verdicts, guard reasons,
 * parse classes, events) as `tap-accel stats`, `--json` and the tests
 * print them, the words of actions and match fields, and how MACs and
 * prefixes are written. One table each, indexed by the enums of
 * tap_accel.h and policy.h; every other file uses these.
 */
#ifndef TA_NAMES_H
#define TA_NAMES_H

#include <stdint.h>

#include "../../../bpf/tap_accel.h"
#include "spec.h"

extern const char *const ta_verdict_names[TA_NR_VERDICTS];
extern const char *const ta_guard_names[TA_GUARD_MAX];
extern const char *const ta_parse_names[TA_PARSE_MAX];
extern const char *const ta_event_names[TA_EV_MAX];
/* Two-way policies' counters (enum ta_ct_counter): "in_pass", ... */
extern const char *const ta_ct_counter_names[TA_CT_C_MAX];

/* The name, or "?" for a verdict out of range; the others take -1 (or
 * any value out of range) for "nothing to report" and return "ok". */
const char *ta_verdict_name(uint32_t verdict);
const char *ta_parse_name(int class);
const char *ta_guard_name(int reason);
/* "mac,ip4,ip6": the guard checks TA_GUARD_F_* `flags` turn on; "-" for none. */
const char *ta_guard_words(uint32_t flags, char *buf, size_t size);

/* The words of the policy language for actions and match fields. */
extern const char *const ta_action_names[TA_ACT_MAX];
extern const char *const ta_field_words[TA_F_MAX];
/* The words of directions ("out", "in") and of connection states ("new",
 * "established", "related", "invalid", "untracked"), by enum. */
extern const char *const ta_dir_names[TA_DIR_MAX];
extern const char *const ta_ct_state_names[TA_CT_STATE_MAX];
/* A tracked connection's state (enum ta_ct_conn): "syn_sent", ...,
 * "unreplied"/"replied" (UDP-like), "echo", "other". */
extern const char *const ta_ct_conn_names[TA_CT_CONN_MAX];
/* "pass", "drop", "tx", "redirect", "forward", "reject". */
const char *ta_action_name(uint32_t action);
/* The word of a match field in the language: "vlan", "smac", ... */
const char *ta_field_name(uint32_t field);

/* "52:54:00:12:34:56" (or with '-') into 6 bytes; 0 or -EINVAL. */
int ta_parse_mac(const char *s, uint8_t mac[6]);
/* MAC as "52:54:00:12:34:56"; buf must hold 18 bytes. */
const char *ta_format_mac(const uint8_t mac[6], char *buf);
/* Address or prefix of `p`, IPv4 shown as such; buf of 64 bytes. */
const char *ta_format_prefix(const struct ta_prefix *p, char *buf);

/* A word of the language for a number: IP protocols ("tcp" 6) and
 * ethertypes ("ipv4" 0x0800), each list ending with a NULL name. */
struct ta_name_value {
	const char *name;
	uint64_t value;
};
extern const struct ta_name_value ta_protocol_names[];
extern const struct ta_name_value ta_ethertype_names[];
/* The name of `value` in `names`, or NULL if it has none. */
const char *ta_name_of(const struct ta_name_value *names, uint64_t value);

#endif /* TA_NAMES_H */
