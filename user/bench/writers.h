/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* writers.h - the frames of a cell and the ways of writing them. */
#ifndef TA_BENCH_WRITERS_H
#define TA_BENCH_WRITERS_H

#include "options.h"
#include "lib/base/error.h"

#define URING_BATCH 32

uint8_t *build_frame(size_t size, enum bench_frame kind);
/* Guest A (the writer's side) and guest B (behind the far tap). */
extern const uint8_t fwd_mac_a[6];
extern const uint8_t fwd_mac_b[6];
struct uring_writer;
struct uring_writer *uring_writer_new(struct ta_error *e);
void uring_writer_free(struct uring_writer *u);
/* Write `n` copies of frame; returns how many went in whole. */
unsigned long write_frames(enum bench_writer w, int fd, const uint8_t *frame,
			   size_t size, unsigned long n, struct uring_writer *u,
			   uint64_t *errors);

/* Submit `n` frames in batches of `batch` with TAPXSUBMIT. */
unsigned long submit_frames(int fd, const uint8_t *frame, size_t size,
			    unsigned long n, unsigned int batch,
			    uint64_t *errors);
void set_frame_macs(uint8_t *frame, const uint8_t dst[6], const uint8_t src[6]);
/* A valid UDP/IPv4 frame, port 9 to port 9; the MACs are set by the
 * caller. */
uint8_t *build_udp_frame(size_t size, const uint8_t src_ip[4],
			 const uint8_t dst_ip[4]);

#endif /* TA_BENCH_WRITERS_H */
