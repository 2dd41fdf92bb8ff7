/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* ct.h - the differential test of two-way, stateful policies (ct.c). */
#ifndef TA_DIFF_CT_H
#define TA_DIFF_CT_H

#include <stdint.h>

#include "gen.h"
#include "user/lib/plane/plane.h"

/* `sequences` random security groups on the test tap (lo, which the
 * caller's plane serves), each with a sequence of frames both ways
 * through the program and the model; then `pairs` sequences between the
 * test tap and a second bound tap, each redirecting to the other and
 * judged by the other's in policy. 0: they agree; 1: the first
 * disagreement was printed. */
int ct_diff(struct ta_plane *pl, struct rng *r, uint32_t sequences, uint32_t pairs, int quiet);

#endif /* TA_DIFF_CT_H */
