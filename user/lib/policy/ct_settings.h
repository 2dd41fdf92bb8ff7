/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * ct_settings.h - the operator's settings of the connection table of
 * two-way policies (struct ta_ct_config of bpf/tap_accel.h), as words:
 * `tap-accel conntrack set` takes them on its command line and the agent
 * on agent.conf's `conntrack` lines, in the same grammar:
 *
 *   max N|default              new connections of the host stop at N
 *   tap-limit N|none           ... of one tap at N
 *   timeout NAME SECS|default [NAME SECS|default ...]
 *
 * NAME is one of ta_ct_timeout_names; SECS a number of seconds, or of
 * minutes, hours or days with the suffix m, h or d. Only the words are
 * checked here (no kernel): the limits against the table's size are
 * plane/conntrack.h's ta_ct_settings_apply().
 */
#ifndef TA_CT_SETTINGS_H
#define TA_CT_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "../../../bpf/tap_accel.h"
#include "../base/error.h"

/* struct ta_ct_settings.given */
#define TA_CTS_MAX (1u << 0)
#define TA_CTS_TAP_LIMIT (1u << 1)
#define TA_CTS_TIMEOUT(conn) (1u << (2 + (conn)))

struct ta_ct_settings {
	uint32_t given;	      /* TA_CTS_*: what the words set */
	uint32_t max_tracked; /* 0: the default, the table's size less TA_CT_HEADROOM */
	uint32_t tap_limit;   /* 0: none */
	uint32_t timeout[TA_CT_CONN_MAX]; /* seconds; 0: Linux conntrack's */
};

/* The timeouts' names, by enum ta_ct_conn: "syn_sent", "syn_recv",
 * "established", "fin_wait", "time_wait", "close" (TCP), "udp" (no
 * answer yet), "udp_stream" (answered), "icmp", "other". */
extern const char *const ta_ct_timeout_names[TA_CT_CONN_MAX];
/* Linux conntrack's, in seconds (TA_CT_TIMEOUTS_DEFAULT). */
extern const uint32_t ta_ct_timeout_defaults[TA_CT_CONN_MAX];

/* The enum ta_ct_conn of a timeout's name, or -1. */
int ta_ct_timeout_of(const char *name);

/* "120", "90s", "2m", "12h", "5d" in seconds, 1 to UINT32_MAX. 0 or
 * -EINVAL (not a duration) or -ERANGE (0, or too long). */
int ta_ct_seconds_parse(const char *text, uint32_t *seconds);

/*
 * The words argv[0..argc-1] into s, on top of what s holds (the agent
 * reads several lines into one): a setting given twice is refused. 0, or
 * -EINVAL with the error (the input's) and *at the index of the word at
 * fault (argc: a word was missing at the end).
 */
int ta_ct_settings_parse(struct ta_ct_settings *s, int argc, char *const *argv, int *at,
			 struct ta_error *e);

/* The settings s gives, as the words that give them ("max 200000
 * tap-limit none timeout udp 60 icmp default"; "" for none), cut to fit
 * buf. Returns buf. */
const char *ta_ct_settings_words(const struct ta_ct_settings *s, char *buf, size_t size);

#endif /* TA_CT_SETTINGS_H */
