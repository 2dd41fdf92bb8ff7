/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * prom.h - the counters of bound taps in Prometheus' text exposition
 * format (version 0.0.4), for `tap-accel stats --prometheus`, and for the
 * agent to write node_exporter's textfile or to serve at /metrics.
 *
 * Families (docs/cli.md, "Metrics", says what each counts):
 *
 *   tapaccel_taps_bound{state}                      gauge
 *   tapaccel_policy_info{policy,digest}             gauge, always 1
 *   tapaccel_tap_info{device,policy,mode,guard}     gauge, always 1
 *   tapaccel_frames_total{device,policy,verdict}    counter
 *   tapaccel_bytes_total{device,policy,verdict}     counter
 *   tapaccel_guard_drops_total{device,policy,reason} counter
 *   tapaccel_parse_total{device,policy,class}       counter
 *   tapaccel_events_total{device,policy,event}      counter
 *   tapaccel_conntrack_total{device,policy,counter} counter
 *   tapaccel_conntrack_tracked{device,policy}       gauge
 *   tapaccel_conntrack_table_tracked, _table_max, _tap_limit,
 *   _table_entries, _entry_bytes                    gauges of the host
 *   tapaccel_rule_frames_total{device,policy,digest,rule}
 *                                                   counter, opt-in
 *
 * A tap of another network namespace than the plane's (pl->netns_cookie)
 * has a `netns` label too, its namespace's cookie: its device name may be
 * one of this namespace's. Every family is written, with its HELP and TYPE,
 * even when it has no sample; every per-tap counter is written, zero or
 * not, so that a rate starts with the tap. No label holds an address, a
 * MAC or a port. A tap whose interface is gone is left out, as `stats`
 * leaves it out; it is counted in tapaccel_taps_bound{state="gone"}.
 *
 * Policy names are those `pl` read when it was opened (plane.h): a process
 * that keeps a plane open while others load policies opens it anew before
 * each write.
 */
#ifndef TA_PROM_H
#define TA_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/error.h"
#include "../plane/plane.h"

/* The file ta_prom_write_file() writes in its folder. */
#define TA_PROM_FILE "tap-accel.prom"

struct ta_prom_opts {
	/* The taps of every network namespace; else only the plane's own
	 * namespace's (pl->netns_cookie). */
	bool all;
	/* Only these taps (keys from ta_tap_key_of()); NULL: every tap of
	 * the namespaces above. A key named twice is written once. */
	const struct ta_tap_key *taps;
	uint32_t nr_taps;
	/* tapaccel_rule_frames_total too: one series per rule of the policy
	 * version each tap runs, and one for its default, so up to 1025 per
	 * tap. Off unless asked: with many taps this is most of the series. */
	bool rules;
};

/*
 * Write the exposition of the taps `o` selects to `out` (NULL `o`: every
 * namespace's taps, no rule counters). Counters are read tap by tap at
 * the time of the call; a tap unbound meanwhile is left out. The text
 * ends with a newline; `out` is flushed. 0, or -errno with
 * `e` (what could not be read, or written).
 */
int ta_prom_write(FILE *out, const struct ta_plane *pl, const struct ta_prom_opts *o,
		  struct ta_error *e);

/*
 * Write DIR/tap-accel.prom for node_exporter's textfile collector
 * (--collector.textfile.directory=DIR): every namespace's taps, no rule
 * counters, as ta_prom_write() with NULL options. Atomic, as the collector
 * requires: the text goes into a temporary file in DIR (".tap-accel.prom.
 * XXXXXX", which the collector does not read), is synced and renamed over
 * the file, so a reader sees the previous file or the new one, whole.
 * The file is 0644: node_exporter runs as a user of its own. On failure
 * the previous file stays and no temporary file is left. 0, or -errno
 * with `e`. The _extra form writes `extra` (NULL: nothing), text
 * of the exposition format, after the plane's: the agent's own families.
 */
int ta_prom_write_file(const char *dir, const struct ta_plane *pl, struct ta_error *e);
int ta_prom_write_file_extra(const char *dir, const struct ta_plane *pl, const char *extra,
			     struct ta_error *e);

#endif /* TA_PROM_H */
