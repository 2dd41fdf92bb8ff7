// SPDX-License-Identifier: GPL-2.0
/*
 * tapx read path: the file's ring holds what the device sends to userspace,
 * skbs from the stack (ndo_start_xmit) and xdp_frames from XDP_TX and
 * ndo_xdp_xmit, which never become skbs. Its entries are taken here for
 * read(), TAPXRECV and vhost-net's recvmsg, and stored as read() returns
 * them: one frame behind a PI header (without IFF_NO_PI) and a vnet header
 * (IFF_VNET_HDR). ndo_xdp_xmit, which feeds the ring with frames redirected
 * into this device, is here too.
 */
#include <linux/if_tun.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include <linux/skb_array.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>

#include "tapx.h"
#include "tapx_ring.h"
#include "tapx_exports.h"

/* vhost-net takes the entries off the ring and tells them apart by it. */
static_assert(TAPX_PTR_XDP == TUN_XDP_FLAG);

/* Frees a ring entry; vhost-net's destructor for the ones it gives back. */
void tapx_ptr_free(void *ptr)
{
	if (!ptr)
		return;
	if (tapx_ptr_is_frame(ptr))
		xdp_return_frame(tapx_ptr_to_frame(ptr));
	else
		kfree_skb(ptr);
}
EXPORT_SYMBOL_GPL(tapx_ptr_free);

/*
 * Whether @txq has a qdisc that queues (not noqueue, a tap's default):
 * what holds the stack's frames while the queue is stopped. Without one,
 * a stopped queue would only move the drop from the ring into the stack.
 */
static bool tapx_txq_queues(const struct netdev_queue *txq)
{
	return rcu_access_pointer(txq->qdisc)->enqueue;
}

/**
 * tapx_ring_produce_xmit - queue an skb the stack sends for the reader
 * @tapx: the device
 * @tfile: the queue picked for the skb
 * @skb: the skb
 * @index: the tx queue the stack sent it on
 *
 * With IFF_BACKPRESSURE, the skb that fills the ring stops the tx queue,
 * so that its qdisc holds the next ones until the reader has made room
 * (tapx_ring_consumed()): only the queue @tfile owns, only with a qdisc
 * that queues, and never on a device going down (ndo_stop owns its queues'
 * state then). Called with BH disabled. Returns 0, or -ENOSPC: the ring
 * was full (a sender that raced past the stop), the skb is the caller's.
 */
int tapx_ring_produce_xmit(struct tapx_dev *tapx, struct tapx_file *tfile,
			   struct sk_buff *skb, u16 index)
{
	struct ptr_ring *ring = &tfile->ring;
	struct netdev_queue *txq;
	int err;

	spin_lock(&ring->producer_lock);
	err = __ptr_ring_produce(ring, skb);
	if ((READ_ONCE(tapx->flags) & TAPX_IFF_BACKPRESSURE) &&
	    netif_running(tapx->dev) &&
	    rcu_access_pointer(tapx->tfiles[index]) == tfile) {
		txq = netdev_get_tx_queue(tapx->dev, index);
		if (tapx_txq_queues(txq) && __ptr_ring_full(ring)) {
			netif_tx_stop_queue(txq);
			/*
			 * Pairs with the reader's smp_mb(): either it sees
			 * the queue stopped, or this sees the room it made.
			 */
			smp_mb__after_atomic();
			if (!__ptr_ring_full(ring))
				netif_tx_wake_queue(txq);
		}
	}
	spin_unlock(&ring->producer_lock);
	return err;
}

/**
 * tapx_ring_consumed - the reader took entries off a file's ring
 * @tapx: the device the file is bound to
 * @tfile: the file, its ring's consumer lock held
 * @n: how many entries
 *
 * IFF_BACKPRESSURE's other half: a tx queue that a full ring stopped
 * restarts once its reader has taken half a ring since, or emptied it.
 * Only the file that owns the queue's slot restarts it (a detached or
 * moved one does not), and not while the device is down.
 */
void tapx_ring_consumed(struct tapx_dev *tapx, struct tapx_file *tfile,
			unsigned int n)
{
	u16 index = tfile->queue_index;
	struct netdev_queue *txq;

	lockdep_assert_held(&tfile->ring.consumer_lock);
	if (!(READ_ONCE(tapx->flags) & TAPX_IFF_BACKPRESSURE) ||
	    !netif_running(tapx->dev) ||
	    rcu_access_pointer(tapx->tfiles[index]) != tfile)
		return;
	txq = netdev_get_tx_queue(tapx->dev, index);
	/* Pairs with the barrier after the stop in tapx_ring_produce_xmit(). */
	smp_mb();
	if (!netif_tx_queue_stopped(txq))
		return;
	tfile->consumed += n;
	if (tfile->consumed >= tfile->ring.size / 2 ||
	    __ptr_ring_empty(&tfile->ring)) {
		tfile->consumed = 0;
		netif_tx_wake_queue(txq);
	}
}

/*
 * Queues xdp_frames for the reader under one producer lock; returns how
 * many fit (the others stay the caller's) and adds their bytes to *bytes.
 * Called with BH disabled.
 */
unsigned int tapx_ring_produce_frames(struct tapx_file *tfile,
				      struct xdp_frame **frames,
				      unsigned int n, u64 *bytes)
{
	unsigned int i;

	spin_lock(&tfile->ring.producer_lock);
	for (i = 0; i < n; i++) {
		void *ptr = tapx_frame_to_ptr(frames[i]);
		unsigned int len = xdp_get_frame_len(frames[i]);

		/* Once produced, the reader may free the frame at any time. */
		if (__ptr_ring_produce(&tfile->ring, ptr))
			break;
		*bytes += len;
	}
	spin_unlock(&tfile->ring.producer_lock);
	return i;
}

void tapx_ring_purge(struct tapx_file *tfile)
{
	void *ptr;

	while ((ptr = ptr_ring_consume(&tfile->ring)))
		tapx_ptr_free(ptr);
}

static bool tapx_attached(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	return rcu_access_pointer(tfile->tapx) == tapx;
}

/*
 * Waits until the ring holds a frame (or returns -EAGAIN without waiting
 * when @noblock). A signal or a detach ends the wait.
 */
static int tapx_ring_wait(struct tapx_file *tfile, struct tapx_dev *tapx,
			  bool noblock)
{
	int err;

	while (ptr_ring_empty(&tfile->ring)) {
		if (noblock)
			return -EAGAIN;
		err = wait_event_interruptible(
			tfile->wq, !ptr_ring_empty(&tfile->ring) ||
					   !tapx_attached(tfile, tapx));
		if (err)
			return err;
		if (!tapx_attached(tfile, tapx))
			return -EBADFD;
	}
	return 0;
}

/* Bytes read() would return for a ring entry: headers and the frame. */
static size_t tapx_ptr_size(struct tapx_dev *tapx, void *ptr)
{
	unsigned int flags = READ_ONCE(tapx->flags);
	size_t n = 0;

	if (!(flags & IFF_NO_PI))
		n += sizeof(struct tun_pi);
	if (flags & IFF_VNET_HDR)
		n += READ_ONCE(tapx->vnet_hdr_sz);
	if (tapx_ptr_is_frame(ptr))
		return n + xdp_get_frame_len(tapx_ptr_to_frame(ptr));
	return n + ((struct sk_buff *)ptr)->len;
}

/*
 * Size of the frame at the head of the ring, 0 if empty. Under the consumer
 * lock: another reader of the same file cannot free it while we look.
 */
static size_t tapx_ring_next_size(struct tapx_file *tfile,
				  struct tapx_dev *tapx)
{
	size_t n = 0;
	void *ptr;

	spin_lock(&tfile->ring.consumer_lock);
	ptr = __ptr_ring_peek(&tfile->ring);
	if (ptr)
		n = tapx_ptr_size(tapx, ptr);
	spin_unlock(&tfile->ring.consumer_lock);
	return n;
}

/**
 * tapx_ring_take - take the next entry off a file's ring
 * @tfile: the file whose ring it is
 * @tapx: its device, held by the caller
 * @noblock: -EAGAIN on an empty ring instead of waiting for an entry
 * @buf: NULL, or the user buffer the entry will be stored in: faulted in
 *       for the entry's size before the entry is taken, so that a bad
 *       buffer fails (-EFAULT) without losing the entry
 * @len: the size of @buf
 *
 * A wait ends with a signal or a detach (-EBADFD). Another reader of the
 * same file may take the entry waited for; then this waits again. Returns
 * the entry (an skb or a tagged xdp_frame, now the caller's) or ERR_PTR().
 */
void *tapx_ring_take(struct tapx_file *tfile, struct tapx_dev *tapx,
		     bool noblock, void __user *buf, size_t len)
{
	size_t need;
	void *ptr;
	int err;

	do {
		err = tapx_ring_wait(tfile, tapx, noblock);
		if (err)
			return ERR_PTR(err);
		if (buf) {
			need = tapx_ring_next_size(tfile, tapx);
			if (need && fault_in_writeable(buf, min(len, need)))
				return ERR_PTR(-EFAULT);
		}
		spin_lock(&tfile->ring.consumer_lock);
		ptr = __ptr_ring_consume(&tfile->ring);
		if (ptr)
			tapx_ring_consumed(tapx, tfile, 1);
		spin_unlock(&tfile->ring.consumer_lock);
	} while (!ptr);
	return ptr;
}

/* What vhost-net sizes a guest's buffer by: an xdp_frame's linear part. */
static int tapx_ptr_peek_len(void *ptr)
{
	if (!ptr)
		return 0;
	if (tapx_ptr_is_frame(ptr))
		return tapx_ptr_to_frame(ptr)->len;
	return __skb_array_len_with_tag(ptr);
}

/* vhost-net's peek_len: the length of the entry it would take next. */
int tapx_ring_peek_len(struct tapx_file *tfile)
{
	return PTR_RING_PEEK_CALL(&tfile->ring, tapx_ptr_peek_len);
}

/*
 * The vnet header read() writes: its fields, and how many bytes of it
 * carry them, sizeof(struct virtio_net_hdr) or, for an skb of a device
 * with the UDP-tunnel offload, TAPX_VNET_TNL_SIZE (compat.h).
 */
struct tapx_vnet_out {
	union {
		u8 bytes[TAPX_VNET_TNL_SIZE];
		struct virtio_net_hdr hdr;
	};
	unsigned int len;
};

/* Writes the PI and vnet headers; returns their length or an error. */
static int tapx_copy_hdrs(struct tapx_dev *tapx, struct iov_iter *to,
			  __be16 proto, size_t len,
			  const struct tapx_vnet_out *vnet)
{
	unsigned int flags = READ_ONCE(tapx->flags);
	int done = 0;

	if (!(flags & IFF_NO_PI)) {
		struct tun_pi pi = { .proto = proto };

		if (iov_iter_count(to) < sizeof(pi))
			return -EINVAL;
		if (iov_iter_count(to) < sizeof(pi) + len)
			pi.flags |= TUN_PKT_STRIP;
		if (copy_to_iter(&pi, sizeof(pi), to) != sizeof(pi))
			return -EFAULT;
		done += sizeof(pi);
	}

	if (flags & IFF_VNET_HDR) {
		int sz = READ_ONCE(tapx->vnet_hdr_sz);

		if (iov_iter_count(to) < sz)
			return -EINVAL;
		/*
		 * A header too small for the fields the device's offloads
		 * call for: tun's read() fails with -EFAULT (and drops the
		 * frame), so this does too, having written nothing.
		 */
		if (sz < vnet->len)
			return -EFAULT;
		if (copy_to_iter(vnet->bytes, vnet->len, to) != vnet->len)
			return -EFAULT;
		/*
		 * The rest of a larger header (num_buffers, hash and tunnel
		 * fields) is all zero, as 7.x's tun writes it (6.x's skips
		 * it): no reader is left with whatever its buffer held.
		 */
		if (iov_iter_zero(sz - vnet->len, to) != sz - vnet->len)
			return -EFAULT;
		done += sz;
	}
	return done;
}

/* xdp_frame data is page memory: bounded by the page, as on the write side. */
static size_t tapx_copy_out(const void *from, size_t n, struct iov_iter *to)
{
	return copy_page_to_iter(virt_to_page(from), offset_in_page(from), n,
				 to);
}

static ssize_t tapx_copy_frame(struct tapx_dev *tapx,
			       struct xdp_frame *frame, struct iov_iter *to)
{
	struct tapx_vnet_out vnet = { .len = sizeof(vnet.hdr) };
	struct skb_shared_info *sinfo;
	struct ethhdr *eth = frame->data;
	ssize_t ret, copied;
	int i;

	ret = tapx_copy_hdrs(tapx, to, eth->h_proto, xdp_get_frame_len(frame),
			     &vnet);
	if (ret < 0)
		return ret;

	copied = tapx_copy_out(frame->data, frame->len, to);
	if (xdp_frame_has_frags(frame) && copied == frame->len) {
		sinfo = xdp_get_shared_info_from_frame(frame);
		for (i = 0; i < sinfo->nr_frags && iov_iter_count(to); i++) {
			const skb_frag_t *f = &sinfo->frags[i];

			copied += copy_page_to_iter(skb_frag_page(f),
						    skb_frag_off(f),
						    skb_frag_size(f), to);
		}
	}
	return ret + copied;
}

static ssize_t tapx_copy_skb(struct tapx_dev *tapx, struct sk_buff *skb,
			     struct iov_iter *to)
{
	struct tapx_vnet_out vnet = { .len = sizeof(vnet.hdr) };
	size_t len;
	ssize_t ret;

	if (READ_ONCE(tapx->flags) & IFF_VNET_HDR) {
		/* As tun: the tunnel's fields with the device's offload. */
		bool tnl = READ_ONCE(tapx->dev->features) &
			   NETIF_F_GSO_UDP_TUNNEL & TAPX_F_UDP_TUNNEL;

		if (tnl)
			vnet.len = TAPX_VNET_TNL_SIZE;
		if (tapx_vnet_from_skb(skb, vnet.bytes, tapx_vnet_le(tapx),
				       tnl))
			return -EINVAL;
	}

	ret = tapx_copy_hdrs(tapx, to, skb->protocol, skb->len, &vnet);
	if (ret < 0)
		return ret;

	len = min_t(size_t, skb->len, iov_iter_count(to));
	if (skb_copy_datagram_iter(skb, 0, to, len))
		return -EFAULT;
	return ret + len;
}

/*
 * A jumbo frame read (one buffer of more than a page, as tapx writes
 * them): the buffer goes to this CPU's cache for the next writes, as a
 * dropped frame's does, if it is on this node and not from the emergency
 * reserves. A shared page's piece holds one page reference, as a buffer in
 * the cache does. A new one would be a piece of a compound page, which
 * kernels that zero every allocation (init_on_alloc, Debian's default)
 * clear at about the cost of the frame's copy. Any other frame goes back
 * to its owner.
 */
static void tapx_frame_done(struct xdp_frame *frame)
{
	struct page *page = virt_to_head_page(frame);

	if (tapx_frame_mem_type(frame) == MEM_TYPE_PAGE_SHARED &&
	    frame->frame_sz > PAGE_SIZE && frame->frame_sz <= TAPX_JUMBO_BUF &&
	    !xdp_frame_has_frags(frame) && !page_is_pfmemalloc(page) &&
	    page_to_nid(page) == numa_mem_id()) {
		/* The buffer starts with the frame (xdp_convert_buff_to_frame). */
		tapx_buf_free(frame, frame->frame_sz);
		return;
	}
	xdp_return_frame(frame);
}

/**
 * tapx_copy_ptr - store one ring entry as read() returns it
 * @tapx: the device the entry was queued on
 * @ptr: an skb or a tagged xdp_frame taken off the ring; always consumed
 * @to: where to store headers and frame; a frame that does not fit is cut
 * @truncated: set when the frame did not fit in @to
 *
 * Returns the bytes stored or -errno (-EINVAL: @to cannot hold the headers,
 * or the skb's metadata has no vnet form; -EFAULT).
 */
ssize_t tapx_copy_ptr(struct tapx_dev *tapx, void *ptr, struct iov_iter *to,
		      bool *truncated)
{
	ssize_t ret;

	*truncated = iov_iter_count(to) < tapx_ptr_size(tapx, ptr);
	if (tapx_ptr_is_frame(ptr)) {
		struct xdp_frame *frame = tapx_ptr_to_frame(ptr);

		ret = tapx_copy_frame(tapx, frame, to);
		tapx_frame_done(frame);
	} else {
		struct sk_buff *skb = ptr;

		ret = tapx_copy_skb(tapx, skb, to);
		if (ret < 0)
			kfree_skb(skb);
		else
			consume_skb(skb);
	}
	return ret;
}

ssize_t tapx_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct tapx_file *tfile = file->private_data;
	bool noblock = (file->f_flags & O_NONBLOCK) ||
		       (iocb->ki_flags & IOCB_NOWAIT);
	struct tapx_dev *tapx;
	bool truncated;
	ssize_t ret;
	void *ptr;

	tapx = tapx_get(tfile);
	if (!tapx)
		return -EBADFD;

	ret = 0;
	if (!iov_iter_count(to))
		goto out;

	ptr = tapx_ring_take(tfile, tapx, noblock, NULL, 0);
	if (IS_ERR(ptr)) {
		ret = PTR_ERR(ptr);
		goto out;
	}
	ret = tapx_copy_ptr(tapx, ptr, to, &truncated);
out:
	dev_put(tapx->dev);
	return ret;
}

/*
 * ndo_xdp_xmit: frames redirected into this tap go to a reader as is. The
 * sending CPU picks the queue, which spreads redirects from several CPUs
 * over the attached queues and keeps one CPU's frames in order.
 */
int tapx_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames,
		  u32 flags)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	struct tapx_file *tfile;
	u64 bytes = 0;
	int i = 0;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;

	rcu_read_lock();
	tfile = tapx_queue_get(tapx, smp_processor_id());
	if (unlikely(!tfile))
		goto out;

	i = tapx_ring_produce_frames(tfile, frames, n, &bytes);
	if (i) {
		tapx_stat_tx(tapx, tfile, i, bytes, true);
		tapx_wake_reader(tfile);
	}
	if (i < n)
		tapx_stat_add(tapx, TAPX_STAT(ring_full_drops), n - i);
out:
	if (i < n)
		tapx_stat_add(tapx, TAPX_STAT(xdp_xmit_errors), n - i);
	rcu_read_unlock();
	return i;
}
