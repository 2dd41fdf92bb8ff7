/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tapx file's reader ring (tapx_ring.c): a ptr_ring of what the device
 * sends to userspace, skbs from the stack and xdp_frames from XDP_TX and
 * ndo_xdp_xmit. An xdp_frame's entry is its pointer with TAPX_PTR_XDP set,
 * tun's tag (TUN_XDP_FLAG), since vhost-net takes entries off this ring
 * itself. Producers run with BH disabled; read(), TAPXRECV and vhost-net's
 * recvmsg take entries with tapx_ring_take().
 */
#ifndef TAPX_RING_H
#define TAPX_RING_H

#include <linux/ptr_ring.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "tapx.h"

/* Ring entries with this bit set are xdp_frames, others are skbs. */
#define TAPX_PTR_XDP 0x1UL

static inline bool tapx_ptr_is_frame(const void *ptr)
{
	return (unsigned long)ptr & TAPX_PTR_XDP;
}

static inline struct xdp_frame *tapx_ptr_to_frame(void *ptr)
{
	return (void *)((unsigned long)ptr & ~TAPX_PTR_XDP);
}

static inline void *tapx_frame_to_ptr(struct xdp_frame *frame)
{
	return (void *)((unsigned long)frame | TAPX_PTR_XDP);
}

/* tapx_ring.c: producers, with BH disabled */
int tapx_ring_produce_xmit(struct tapx_dev *tapx, struct tapx_file *tfile,
			   struct sk_buff *skb, u16 index);
unsigned int tapx_ring_produce_frames(struct tapx_file *tfile,
				      struct xdp_frame **frames,
				      unsigned int n, u64 *bytes);
int tapx_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		  u32 flags);

/* tapx_ring.c: the reader's side */
void *tapx_ring_take(struct tapx_file *tfile, struct tapx_dev *tapx,
		     bool noblock, void __user *buf, size_t len);
void tapx_ring_consumed(struct tapx_dev *tapx, struct tapx_file *tfile,
			unsigned int n);
int tapx_ring_peek_len(struct tapx_file *tfile);
void tapx_ring_purge(struct tapx_file *tfile);
ssize_t tapx_copy_ptr(struct tapx_dev *tapx, void *ptr, struct iov_iter *to,
		      bool *truncated);
ssize_t tapx_read_iter(struct kiocb *iocb, struct iov_iter *to);

/*
 * After a produce: skip the wait queue's lock when nobody waits, which is
 * the common case for a reader that polls or reads in batches. The barrier
 * in wq_has_sleeper() pairs with the one in the waiter's prepare_to_wait.
 */
static inline void tapx_wake_reader(struct tapx_file *tfile)
{
	if (wq_has_sleeper(&tfile->wq))
		wake_up_interruptible_poll(&tfile->wq, EPOLLIN | EPOLLRDNORM);
}

#endif /* TAPX_RING_H */
