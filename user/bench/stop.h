/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * stop.h - Ctrl-C during a run. The first SIGINT, SIGTERM or SIGHUP asks
 * the run to stop after its current step (a cell, a row, a child process)
 * and still report what it measured; a second one leaves at once.
 */
#ifndef TA_BENCH_STOP_H
#define TA_BENCH_STOP_H

#include <stdbool.h>
#include <sys/types.h>

void stop_catch_signals(void);
bool stop_requested(void);
/* What the second signal does before it leaves (async-signal-safe calls
 * only): put back what the run changed outside its namespaces. */
void stop_set_last_word(void (*fn)(void));

/* waitpid() that a caught signal does not interrupt: a child is always
 * reaped, never left for init. 0, or -errno. */
int stop_wait_child(pid_t pid, int *status);

#endif /* TA_BENCH_STOP_H */
