// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * policy_cells.c - the tap-accel policy program as a benchmark program:
 * 1, 100 or 1000 rules, the frame matching only the last one (drop), so
 * the cell shows what the number of rules costs per frame.
 */
#include <stdio.h>

#include "bench.h"

bool policy_prog(enum bench_prog p)
{
	return p == PROG_POLICY_1 || p == PROG_POLICY_100 || p == PROG_POLICY_1000;
}

bool policy_available(char *why, size_t len)
{
	snprintf(why, len, "the policy program is not built yet");
	return false;
}

int policy_attach(int ifindex, enum bench_prog p, char *why, size_t len)
{
	policy_available(why, len);
	return -1;
}

void policy_detach(int ifindex)
{
}

void policy_counts(uint64_t verdict[5])
{
}
