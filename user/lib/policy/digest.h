/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * digest.h - the digest of a policy that `status` shows and a reload
 * compares: of what the policy says, not of how its file is written.
 */
#ifndef TA_POLICY_DIGEST_H
#define TA_POLICY_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* 64-bit FNV-1a of `len` bytes. */
uint64_t ta_digest(const void *data, size_t len);

/* Set spec->digest to the digest of its canonical text (print.h). 0 or
 * -ENOMEM. */
int ta_policy_digest(struct ta_policy_spec *spec);

#endif /* TA_POLICY_DIGEST_H */
