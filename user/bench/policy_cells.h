/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* policy_cells.h - the tap-accel policy program with 1, 100 or 1000 rules. */
#ifndef TA_BENCH_POLICY_CELLS_H
#define TA_BENCH_POLICY_CELLS_H

#include "options.h"
#include "bpf/tap_accel.h"
#include "lib/base/error.h"

/* The tap-accel policy program with 1, 100 or 1000 rules, the writer tap
 * bound with its guard on, attached natively. */
bool policy_prog(enum bench_prog p);
struct policy_cell;
struct policy_cell *policy_attach(int ifindex, enum bench_prog p, struct ta_error *e);
void policy_detach(struct policy_cell *policy);
void policy_counts(struct policy_cell *policy, uint64_t verdict[TA_NR_VERDICTS]);

#endif /* TA_BENCH_POLICY_CELLS_H */
