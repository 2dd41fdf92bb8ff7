// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * writers.c - the ways a VM backend hands frames to a tap, each as a loop
 * that writes the same frame n times. The caller times the whole loop.
 *
 *   block, nonblock  one write() per frame (the fd's O_NONBLOCK decides)
 *   writev           one writev() per frame, header and payload in two
 *                    iovecs, the way QEMU passes a frame
 *   io_uring         URING_BATCH writes queued, one io_uring_enter() each batch
 *   batchN           N frames per TAPXSUBMIT ioctl (tapx's batch ABI)
 *
 * and the frames they write.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/tapx.h>
#include <liburing.h>

#include "writers.h"

#define ETH_HDR_LEN 14

struct uring_writer {
	struct io_uring ring;
};

struct uring_writer *uring_writer_new(struct ta_error *e)
{
	struct uring_writer *u = calloc(1, sizeof(*u));
	int err;

	if (!u) {
		ta_error_system(e, ENOMEM, "out of memory");
		return NULL;
	}
	err = io_uring_queue_init(URING_BATCH, &u->ring, 0);
	if (err) {
		ta_error_system(e, -err, "io_uring_queue_init: %s", strerror(-err));
		free(u);
		return NULL;
	}
	return u;
}

void uring_writer_free(struct uring_writer *u)
{
	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
}

static unsigned long write_loop(int fd, const uint8_t *frame, size_t size,
				unsigned long n, uint64_t *errors)
{
	unsigned long done = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (write(fd, frame, size) == (ssize_t)size)
			done++;
		else
			(*errors)++;
	}
	return done;
}

static unsigned long writev_loop(int fd, const uint8_t *frame, size_t size,
				 unsigned long n, uint64_t *errors)
{
	struct iovec iov[2] = {
		{.iov_base = (void *)frame, .iov_len = ETH_HDR_LEN},
		{.iov_base = (void *)(frame + ETH_HDR_LEN),
		 .iov_len = size - ETH_HDR_LEN},
	};
	unsigned long done = 0;

	for (unsigned long i = 0; i < n; i++) {
		if (writev(fd, iov, 2) == (ssize_t)size)
			done++;
		else
			(*errors)++;
	}
	return done;
}

/* Queue one batch of writes, submit it with one system call, reap it. */
static unsigned long uring_batch(struct io_uring *ring, int fd,
				 const uint8_t *frame, size_t size,
				 unsigned int batch, uint64_t *errors)
{
	struct io_uring_cqe *cqe;
	unsigned long done = 0;
	unsigned int queued = 0, head, seen = 0;

	while (queued < batch) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe)
			break;
		io_uring_prep_write(sqe, fd, frame, size, 0);
		queued++;
	}
	if (io_uring_submit_and_wait(ring, queued) < 0) {
		*errors += queued;
		return 0;
	}
	while (seen < queued) {
		unsigned int got = 0;

		io_uring_for_each_cqe(ring, head, cqe)
		{
			if (cqe->res == (int)size)
				done++;
			else
				(*errors)++;
			got++;
		}
		io_uring_cq_advance(ring, got);
		seen += got;
		if (seen < queued && io_uring_wait_cqe(ring, &cqe) < 0) {
			*errors += queued - seen;
			break;
		}
	}
	return done;
}

static unsigned long uring_loop(struct uring_writer *u, int fd,
				const uint8_t *frame, size_t size,
				unsigned long n, uint64_t *errors)
{
	unsigned long done = 0;

	while (n) {
		unsigned int batch = n < URING_BATCH ? n : URING_BATCH;

		done += uring_batch(&u->ring, fd, frame, size, batch, errors);
		n -= batch;
	}
	return done;
}

/*
 * One TAPXSUBMIT per `batch` frames, every descriptor naming the same
 * frame. A frame is in when the batch consumed it with status 0; what a
 * failed call left unconsumed counts as errors (not retried: the cell
 * reports it).
 */
unsigned long submit_frames(int fd, const uint8_t *frame, size_t size,
			    unsigned long n, unsigned int batch,
			    uint64_t *errors)
{
	static struct tapx_desc descs[TAPX_BATCH_MAX];
	unsigned long done = 0;

	if (batch > TAPX_BATCH_MAX)
		batch = TAPX_BATCH_MAX;
	for (unsigned int i = 0; i < batch; i++)
		descs[i] = (struct tapx_desc){.addr = (uintptr_t)frame,
					      .len = size};
	while (n) {
		unsigned int k = n < batch ? n : batch;
		struct tapx_batch b = {.descs = (uintptr_t)descs, .count = k};
		int rc = ioctl(fd, TAPXSUBMIT, &b);
		int err = errno;

		if (b.done > k) /* a driver that wrote nonsense back */
			b.done = 0;
		for (unsigned int i = 0; i < b.done; i++)
			if (descs[i].status)
				(*errors)++;
			else
				done++;
		if (rc < 0) {
			*errors += k - b.done;
			errno = err;
		}
		n -= k;
	}
	return done;
}

unsigned long write_frames(enum bench_writer w, int fd, const uint8_t *frame,
			   size_t size, unsigned long n, struct uring_writer *u,
			   uint64_t *errors)
{
	switch (w) {
	case WR_BLOCK:
	case WR_NONBLOCK:
		return write_loop(fd, frame, size, n, errors);
	case WR_WRITEV:
		return writev_loop(fd, frame, size, n, errors);
	case WR_URING:
		return uring_loop(u, fd, frame, size, n, errors);
	case WR_BATCH1:
	case WR_BATCH8:
	case WR_BATCH64:
	case WR_BATCH256:
		return submit_frames(fd, frame, size, n, bench_batch[w],
				     errors);
	default:
		*errors += n;
		return 0;
	}
}

/* ---- the frame ---------------------------------------------------------- */

static uint16_t ip_checksum(const uint8_t *hdr, size_t len)
{
	uint32_t sum = 0;

	for (size_t i = 0; i < len; i += 2)
		sum += (uint32_t)hdr[i] << 8 | hdr[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

void set_frame_macs(uint8_t *frame, const uint8_t dst[6], const uint8_t src[6])
{
	memcpy(frame, dst, 6);
	memcpy(frame + 6, src, 6);
}

/* Ethernet (addresses left to the caller), IPv4, UDP port 9 to port 9, a
 * counting payload. No UDP checksum (0: none, valid for IPv4). */
uint8_t *build_udp_frame(size_t size, const uint8_t src_ip[4],
			 const uint8_t dst_ip[4])
{
	uint8_t *f = calloc(1, size);
	uint8_t *ip = f + 14, *udp = ip + 20;
	size_t ip_len = size - 14;
	uint16_t sum;

	if (!f)
		return NULL;
	f[12] = 0x08; /* IPv4 */
	ip[0] = 0x45;
	ip[2] = ip_len >> 8;
	ip[3] = ip_len & 0xff;
	ip[8] = 64; /* TTL */
	ip[9] = 17; /* UDP */
	memcpy(ip + 12, src_ip, 4);
	memcpy(ip + 16, dst_ip, 4);
	sum = ip_checksum(ip, 20);
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
	udp[1] = udp[3] = 9;
	udp[4] = (ip_len - 20) >> 8;
	udp[5] = (ip_len - 20) & 0xff;
	for (size_t i = 42; i < size; i++)
		f[i] = i & 0xff;
	return f;
}

/*
 * The frames every cell of a kind writes:
 *  - baseline: broadcast, IPv4 ethertype, zeros after the Ethernet header.
 *    With no program the stack drops it at the IPv4 header check, so
 *    "none" is the cost of the tap path itself.
 *  - udp: a valid UDP datagram to 255.255.255.255 port 9, which travels the
 *    whole receive path. The policy and bridge cells always use it: the
 *    policy's parser and br_netfilter drop a malformed frame before they do
 *    the work being measured.
 *  - fwd: the same datagram, unicast from guest A to guest B (MACs
 *    FWD_MAC_A -> FWD_MAC_B, 10.0.0.1 -> 10.0.0.2): a bridge forwards it
 *    to B's port only, as between two VMs.
 */
uint8_t *build_frame(size_t size, enum bench_frame kind)
{
	static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const uint8_t a_ip[4] = {10, 0, 0, 1}, b_ip[4] = {10, 0, 0, 2};
	static const uint8_t all_ip[4] = {255, 255, 255, 255};
	uint8_t *f;

	switch (kind) {
	case FRAME_BASELINE:
		f = calloc(1, size);
		if (f)
			f[12] = 0x08;
		break;
	case FRAME_UDP:
		f = build_udp_frame(size, a_ip, all_ip);
		break;
	default:
		f = build_udp_frame(size, a_ip, b_ip);
		if (f)
			set_frame_macs(f, fwd_mac_b, fwd_mac_a);
		return f;
	}
	if (f)
		set_frame_macs(f, bcast, fwd_mac_a);
	return f;
}
