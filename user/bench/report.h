/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* report.h - a run's results: terminal table, CSV, JSON, chart. */
#ifndef TA_BENCH_REPORT_H
#define TA_BENCH_REPORT_H

#include <stdio.h>

#include "matrix.h"

void report_table(const struct bench_run *run, FILE *out);
int report_files(const struct bench_run *run);
void report_json(const struct bench_run *run, FILE *out, bool pretty);

#endif /* TA_BENCH_REPORT_H */
