/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * icount.h - guest instructions per cell, where QEMU counts them: a TCG
 * plugin (tests/vm/icount) answers on a serial port of the guest, which
 * the kernel argument vmicount= (exported to the environment by the
 * guest's init) or --icount names. The protocol is icount_proto.h.
 */
#ifndef TA_BENCH_ICOUNT_H
#define TA_BENCH_ICOUNT_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/base/error.h"

/* Open the counter's port: `port`, else $vmicount; no port, no counter
 * (0, and bench_icount_on() stays false). -errno with e if the port is
 * named but cannot be used. */
int bench_icount_open(const char *port, struct ta_error *e);
bool bench_icount_on(void);
/* Mark the start of an interval. */
void bench_icount_begin(void);
/* Mark its end: the instructions vCPU cpu executed since the start, or -1
 * with e if the plugin did not answer. */
double bench_icount_end(int cpu, struct ta_error *e);
void bench_icount_close(void);

#endif /* TA_BENCH_ICOUNT_H */
