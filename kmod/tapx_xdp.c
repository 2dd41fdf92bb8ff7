// SPDX-License-Identifier: GPL-2.0
/*
 * tapx write path: every frame userspace writes is copied once into a buffer
 * with XDP headroom, becomes an xdp_buff, meets the attached program and only
 * then, on XDP_PASS, an skb built around the same buffer.
 *
 * Buffers come from the file's page_frag_cache: a frame up to
 * TAPX_LINEAR_MAX bytes gets one fragment sized for headroom, data and
 * skb_shared_info; a larger frame gets a page-sized head plus page-sized
 * fragments (XDP multi-buffer). Freed fragments return their reference to
 * the cache's page, which the cache reuses once all its fragments are gone.
 */
#include <linux/bpf.h>
#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>
#include <net/checksum.h>
#include <trace/events/xdp.h>
#include <asm/unaligned.h>

#include "tapx.h"

/*
 * What one write call's frames did, added to the per-CPU counters once at
 * the end of the call: four counter updates per frame were a measurable
 * part of a batched XDP_DROP. verdict[] counts the program's verdicts (the
 * queue's xdp_* counters), outcome[] the device's xdp_pass..xdp_aborted;
 * both are indexed like those counters, from PASS to ABORTED.
 */
enum {
	TAPX_V_PASS,
	TAPX_V_DROP,
	TAPX_V_TX,
	TAPX_V_REDIRECT,
	TAPX_V_ABORTED,
	TAPX_NR_V
};

struct tapx_tally {
	u64 rx_bytes;
	u32 rx_packets;
	u32 verdict[TAPX_NR_V];
	u32 outcome[TAPX_NR_V];
};

static unsigned int tapx_verdict_slot(u32 act)
{
	switch (act) {
	case XDP_PASS:
		return TAPX_V_PASS;
	case XDP_DROP:
		return TAPX_V_DROP;
	case XDP_TX:
		return TAPX_V_TX;
	case XDP_REDIRECT:
		return TAPX_V_REDIRECT;
	default:
		return TAPX_V_ABORTED; /* and unknown verdicts */
	}
}

/*
 * Adds a tally to one set of per-CPU counters: v[rx] and v[rx + 1] are its
 * packets and bytes, v[xdp..xdp + TAPX_NR_V) its verdict counters.
 */
static void tapx_tally_add(struct u64_stats_sync *syncp, u64_stats_t *v,
			   unsigned int rx, unsigned int xdp,
			   const struct tapx_tally *t, const u32 *counts)
{
	int i;

	u64_stats_update_begin(syncp);
	u64_stats_add(&v[rx], t->rx_packets);
	u64_stats_add(&v[rx + 1], t->rx_bytes);
	for (i = 0; i < TAPX_NR_V; i++)
		u64_stats_add(&v[xdp + i], counts[i]);
	u64_stats_update_end(syncp);
}

static void tapx_tally_flush(struct tapx_file *tfile, struct tapx_dev *tapx,
			     const struct tapx_tally *t)
{
	struct tapx_pcpu_qstats *q = this_cpu_ptr(tfile->qstats);
	struct tapx_pcpu_stats *d = this_cpu_ptr(tapx->stats);

	BUILD_BUG_ON(TAPX_RX_BYTES != TAPX_RX_PACKETS + 1);
	BUILD_BUG_ON(TAPX_Q_RX_BYTES != TAPX_Q_RX_PACKETS + 1);
	BUILD_BUG_ON(TAPX_XDP_ABORTED - TAPX_XDP_PASS != TAPX_V_ABORTED);
	BUILD_BUG_ON(TAPX_Q_XDP_ABORTED - TAPX_Q_XDP_PASS != TAPX_V_ABORTED);

	tapx_tally_add(&d->syncp, d->v, TAPX_RX_PACKETS, TAPX_XDP_PASS, t,
		       t->outcome);
	tapx_tally_add(&q->syncp, q->v, TAPX_Q_RX_PACKETS, TAPX_Q_XDP_PASS, t,
		       t->verdict);
}

/* Validates the vnet header the way a virtio device would see it. */
static int tapx_check_vnet(struct tapx_dev *tapx, struct virtio_net_hdr *h,
			   size_t len)
{
	bool le = tapx_vnet_le(tapx);
	u16 hdr_len = __virtio16_to_cpu(le, h->hdr_len);
	u16 start = __virtio16_to_cpu(le, h->csum_start);
	u16 off = __virtio16_to_cpu(le, h->csum_offset);

	if (h->flags &
	    ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return -EINVAL;

	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if ((size_t)start + off + 2 > len)
			return -EINVAL;
		if (start + off + 2 > hdr_len)
			hdr_len = start + off + 2;
		h->hdr_len = __cpu_to_virtio16(le, hdr_len);
	}
	if (hdr_len > len)
		return -EINVAL;

	switch (h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (h->gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
		if (!h->gso_size)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* Reads the PI and vnet headers that precede the frame. */
static int tapx_parse_meta(struct tapx_dev *tapx, struct iov_iter *from,
			   struct tapx_wframe *f)
{
	size_t len = iov_iter_count(from);
	int err;

	f->has_vnet = false;
	if (!(tapx->flags & IFF_NO_PI)) {
		struct tun_pi pi;

		if (len < sizeof(pi))
			return -EINVAL;
		if (!copy_from_iter_full(&pi, sizeof(pi), from))
			return -EFAULT;
		len -= sizeof(pi);
	}

	if (tapx->flags & IFF_VNET_HDR) {
		int sz = READ_ONCE(tapx->vnet_hdr_sz);

		if (len < sz)
			return -EINVAL;
		if (!copy_from_iter_full(&f->vnet, sizeof(f->vnet), from))
			return -EFAULT;
		iov_iter_advance(from, sz - sizeof(f->vnet));
		len -= sz;
		err = tapx_check_vnet(tapx, &f->vnet, len);
		if (err)
			return err;
		f->has_vnet = f->vnet.flags || f->vnet.gso_type;
	}

	if (len < TAPX_MIN_FRAME || len > TAPX_MAX_FRAME)
		return -EINVAL;
	f->len = len;
	return 0;
}

/* Memory a frame of len bytes takes: head buffer and page fragments. */
static unsigned int tapx_buf_bytes(unsigned int len)
{
	if (len <= TAPX_LINEAR_MAX)
		return SKB_DATA_ALIGN(TAPX_HEADROOM + len) + TAPX_SHINFO;
	return PAGE_SIZE + round_up(len - TAPX_LINEAR_MAX, PAGE_SIZE);
}

/* A head buffer: the last dropped one if its size fits, else a new one. */
static void *tapx_buf_get(struct tapx_file *tfile, unsigned int buflen)
{
	unsigned int n = tfile->nr_spare;

	if (n && tfile->spare_len[n - 1] == buflen) {
		tfile->nr_spare = n - 1;
		tfile->spare_bytes -= buflen;
		return tfile->spare[n - 1];
	}
	return page_frag_alloc(&tfile->frag, buflen, GFP_KERNEL);
}

static void tapx_buf_put(struct tapx_file *tfile, void *buf,
			 unsigned int buflen)
{
	unsigned int n = tfile->nr_spare;

	if (n < TAPX_SPARE_MAX &&
	    tfile->spare_bytes + buflen <= TAPX_SPARE_BYTES) {
		tfile->spare[n] = buf;
		tfile->spare_len[n] = buflen;
		tfile->nr_spare = n + 1;
		tfile->spare_bytes += buflen;
	} else {
		page_frag_free(buf);
	}
}

/* A page-sized fragment for a frame larger than a page. */
static void *tapx_frag_get(struct tapx_file *tfile)
{
	if (!tfile->nr_spare_frags)
		return page_frag_alloc(&tfile->frag, PAGE_SIZE, GFP_KERNEL);
	tfile->spare_bytes -= PAGE_SIZE;
	return tfile->spare_frags[--tfile->nr_spare_frags];
}

static void tapx_frag_put(struct tapx_file *tfile, void *va)
{
	if (tfile->nr_spare_frags < TAPX_SPARE_FRAGS &&
	    tfile->spare_bytes + PAGE_SIZE <= TAPX_SPARE_BYTES) {
		tfile->spare_frags[tfile->nr_spare_frags++] = va;
		tfile->spare_bytes += PAGE_SIZE;
	} else {
		page_frag_free(va);
	}
}

/* The xdp_buff of a copied frame, built where the program runs. */
static void tapx_wframe_xdp(struct tapx_file *tfile,
			    const struct tapx_wframe *f, struct xdp_buff *xdp)
{
	xdp_init_buff(xdp, f->buflen, &tfile->xdp_rxq);
	xdp_prepare_buff(xdp, f->buf, TAPX_HEADROOM,
			 min_t(unsigned int, f->len, TAPX_LINEAR_MAX), true);
	if (unlikely(f->len > TAPX_LINEAR_MAX))
		xdp_buff_set_frags_flag(xdp);
}

/*
 * A dropped frame's buffers are ours alone (a program cannot take page
 * references): keep them for the next writes instead of freeing them, which
 * saves the allocation, the refcounting and keeps the memory cache-hot.
 * Called under write_lock.
 */
static __always_inline void tapx_recycle(struct tapx_file *tfile,
					 struct xdp_buff *xdp)
{
	struct skb_shared_info *sinfo;
	int i;

	if (unlikely(xdp_buff_has_frags(xdp))) {
		sinfo = xdp_get_shared_info_from_buff(xdp);
		for (i = 0; i < sinfo->nr_frags; i++)
			tapx_frag_put(tfile,
				      skb_frag_address(&sinfo->frags[i]));
	}
	tapx_buf_put(tfile, xdp->data_hard_start, xdp->frame_sz);
}

/*
 * Buffers are page fragments, so the copy goes through copy_page_from_iter():
 * it bounds the copy by the (compound) page, the check hardened usercopy
 * would otherwise make on every frame at several times the cost (the
 * heap/stack/text walk of check_object_size(): a quarter of a batched
 * 64-byte XDP_DROP, measured in the VM).
 */
static bool tapx_copy_in(void *to, size_t n, struct iov_iter *from)
{
	return copy_page_from_iter(virt_to_page(to), offset_in_page(to), n,
				   from) == n;
}

/* Copies the rest of a frame larger than a page into page fragments. */
static int tapx_fill_frags(struct tapx_file *tfile, struct iov_iter *from,
			   struct tapx_wframe *f)
{
	struct skb_shared_info *sinfo = f->buf + f->buflen - TAPX_SHINFO;
	size_t left = f->len - TAPX_LINEAR_MAX;
	int i;

	sinfo->nr_frags = 0;
	sinfo->xdp_frags_size = left;
	for (i = 0; left; i++) {
		size_t n = min_t(size_t, left, PAGE_SIZE);
		struct page *page;
		void *va;

		va = tapx_frag_get(tfile);
		if (unlikely(!va))
			return -ENOMEM;
		page = virt_to_head_page(va);
		__skb_fill_page_desc_noacc(sinfo, i, page,
					   va - page_address(page), n);
		sinfo->nr_frags = i + 1;
		if (unlikely(!tapx_copy_in(va, n, from)))
			return -EFAULT;
		left -= n;
	}
	return 0;
}

/*
 * Copies the frame into a head buffer with XDP headroom and, for a frame
 * larger than TAPX_LINEAR_MAX, page-sized fragments (XDP multi-buffer).
 */
static int tapx_fill(struct tapx_file *tfile, struct iov_iter *from,
		     struct tapx_wframe *f)
{
	unsigned int head_len = min_t(unsigned int, f->len, TAPX_LINEAR_MAX);
	int err;

	f->buflen = min_t(unsigned int, tapx_buf_bytes(f->len), PAGE_SIZE);

	f->buf = tapx_buf_get(tfile, f->buflen);
	if (unlikely(!f->buf))
		return -ENOMEM;
	if (unlikely(!tapx_copy_in(f->buf + TAPX_HEADROOM, head_len, from))) {
		tapx_buf_put(tfile, f->buf, f->buflen);
		f->buf = NULL;
		return -EFAULT;
	}
	if (likely(f->len == head_len))
		return 0;

	err = tapx_fill_frags(tfile, from, f);
	if (unlikely(err)) {
		tapx_wframe_drop(tfile, f);
		return err;
	}
	return 0;
}

/*
 * Parses one written frame's headers and copies it; f->buf is NULL unless 0
 * is returned. Caller holds tfile->write_lock and a device reference. May
 * sleep (page faults, allocation). A malformed frame is counted in
 * rx_errors here and reported as -EINVAL; -EFAULT and -ENOMEM are left to
 * the caller to count.
 */
static __always_inline int tapx_wframe_copy(struct tapx_file *tfile,
					    struct tapx_dev *tapx,
					    struct iov_iter *from,
					    struct tapx_wframe *f)
{
	int err;

	f->buf = NULL;
	err = tapx_parse_meta(tapx, from, f);
	if (unlikely(err)) {
		if (err == -EINVAL)
			tapx_stat_inc(tapx, TAPX_RX_ERRORS);
		return err;
	}
	return tapx_fill(tfile, from, f);
}

/*
 * Frames up to this size are copied a word at a time, several in one
 * user-access window (tapx_wframes_copy_short()).
 */
#define TAPX_SHORT_COPY 256

/*
 * Counts a frame into a round of a batch: false once the round's buffers
 * would pass TAPX_SPARE_BYTES (a round's first frame always goes in).
 */
static bool tapx_round_add(unsigned int *bytes, u32 len, bool first)
{
	/* The length with PI and vnet headers: a little over. */
	*bytes += tapx_buf_bytes(min_t(u32, len, TAPX_MAX_FRAME));
	return first || *bytes <= TAPX_SPARE_BYTES;
}

/*
 * Inside a user-access window: copies @n >= 8 bytes a word at a time, the
 * tail as one more word that overlaps the one before. False on a fault.
 */
static __always_inline bool tapx_get_words(void *to, const void __user *from,
					   size_t n)
{
	size_t off;
	u64 w;

	for (off = 0; off + sizeof(w) < n; off += sizeof(w)) {
		unsafe_get_user(w, (const u64 __user *)(from + off), fault);
		put_unaligned(w, (u64 *)(to + off));
	}
	off = n - sizeof(w);
	unsafe_get_user(w, (const u64 __user *)(from + off), fault);
	put_unaligned(w, (u64 *)(to + off));
	return true;
fault:
	return false;
}

/*
 * The run of short frames (TAPX_SHORT_COPY) at the front of @d, each long
 * enough for its headers and an Ethernet header, addresses checked. A runt
 * ends the run: the per-frame path fails it exactly as write() would.
 * Returns the run's length; *errp is set if the frame after it faults.
 */
static u32 tapx_short_run(struct tapx_desc *d, u32 count, unsigned int meta,
			  unsigned int *bytes, bool first, int *errp)
{
	u32 n;

	for (n = 0; n < count; n++) {
		const void __user *p = u64_to_user_ptr(d[n].addr);

		if (d[n].len < meta + TAPX_MIN_FRAME ||
		    d[n].len > meta + TAPX_SHORT_COPY)
			break;
		if (!tapx_round_add(bytes, d[n].len, first && !n))
			break;
		if (unlikely(!access_ok(p, d[n].len))) {
			*errp = -EFAULT;
			break;
		}
	}
	return n;
}

/*
 * Reads the PI and vnet headers of frames [0, n) in one user-access window
 * (the PI only to fault where write() would). The window opens on the
 * first frame; all of them passed access_ok(). Returns the index of the
 * frame that faulted, or n.
 */
static u32 tapx_short_headers(struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			      unsigned int pi, unsigned int vnet_sz)
{
	u32 i, word;

	if (!user_read_access_begin(u64_to_user_ptr(d[0].addr), d[0].len))
		return 0;
	for (i = 0; i < n; i++) {
		const void __user *p = u64_to_user_ptr(d[i].addr);

		if (pi)
			unsafe_get_user(word, (const u32 __user *)p, fault);
		if (vnet_sz &&
		    !tapx_get_words(&f[i].vnet, p + pi, sizeof(f[i].vnet)))
			goto fault;
	}
	user_read_access_end();
	return n;
fault:
	user_read_access_end();
	return i;
}

/*
 * Takes a buffer for each frame of [0, n) whose vnet header is good; a
 * frame with a bad one gets none (malformed). Returns n, or the index of
 * the frame no memory was left for (*errp = -ENOMEM).
 */
static u32 tapx_short_bufs(struct tapx_file *tfile, struct tapx_dev *tapx,
			   struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			   unsigned int meta, bool vnet, int *errp)
{
	u32 i;

	for (i = 0; i < n; i++) {
		f[i].len = d[i].len - meta;
		f[i].buf = NULL;
		f[i].has_vnet = false;
		if (vnet) {
			if (tapx_check_vnet(tapx, &f[i].vnet, f[i].len))
				continue;
			f[i].has_vnet = f[i].vnet.flags || f[i].vnet.gso_type;
		}
		f[i].buflen = tapx_buf_bytes(f[i].len);
		f[i].buf = tapx_buf_get(tfile, f[i].buflen);
		if (unlikely(!f[i].buf)) {
			*errp = -ENOMEM;
			break;
		}
	}
	return i;
}

/*
 * Copies the frames of [0, n) that have a buffer in one user-access
 * window. Returns the index of the frame that faulted, or n.
 */
static u32 tapx_short_bodies(struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			     unsigned int meta)
{
	u32 i;

	if (!user_read_access_begin(u64_to_user_ptr(d[0].addr), d[0].len))
		return 0;
	for (i = 0; i < n; i++) {
		const void __user *p = u64_to_user_ptr(d[i].addr) + meta;

		if (f[i].buf &&
		    !tapx_get_words(f[i].buf + TAPX_HEADROOM, p, f[i].len))
			goto fault;
	}
	user_read_access_end();
	return n;
fault:
	user_read_access_end();
	return i;
}

/*
 * Copies the run of short frames at the front of a round: no string copy,
 * no iov_iter, and one STAC/CLAC for the run's headers and one for their
 * bodies instead of one for each, which in the VM is a third of a batched
 * 64-byte XDP_DROP. Nothing may be called in a window, so buffers are
 * taken and vnet headers checked between the two. Each frame fails as
 * write() would fail it: unreadable headers, then a bad vnet header, then
 * an unreadable body. Returns the frames consumed and sets *errp as
 * tapx_wframes_copy().
 */
static u32 tapx_wframes_copy_short(struct tapx_file *tfile,
				   struct tapx_dev *tapx, struct tapx_desc *d,
				   struct tapx_wframe *f, u32 count,
				   unsigned int *bytes, bool first, int *errp)
{
	unsigned int pi = tapx->flags & IFF_NO_PI ? 0 : sizeof(struct tun_pi);
	unsigned int vnet_sz = 0, meta;
	u32 n, k, i;

	if (tapx->flags & IFF_VNET_HDR)
		vnet_sz = READ_ONCE(tapx->vnet_hdr_sz);
	meta = pi + vnet_sz;

	n = tapx_short_run(d, count, meta, bytes, first, errp);
	if (n && meta) {
		k = tapx_short_headers(d, f, n, pi, vnet_sz);
		if (unlikely(k < n)) {
			n = k;
			*errp = -EFAULT;
		}
	}
	n = tapx_short_bufs(tfile, tapx, d, f, n, meta, vnet_sz, errp);
	k = n ? tapx_short_bodies(d, f, n, meta) : 0;
	if (unlikely(k < n)) {
		/* Frame k faulted: it and those after it stay unconsumed. */
		for (i = k; i < n; i++)
			if (f[i].buf)
				tapx_buf_put(tfile, f[i].buf, f[i].buflen);
		*errp = -EFAULT;
	}

	for (i = 0; i < k; i++) {
		d[i].status = f[i].buf ? 0 : -EINVAL;
		if (unlikely(!f[i].buf))
			tapx_stat_inc(tapx, TAPX_RX_ERRORS);
	}
	return k;
}

/**
 * tapx_wframes_copy - copy one round of a batch's frames (TAPXSUBMIT)
 * @tfile: the file written to; caller holds tfile->write_lock
 * @tapx: its device; caller holds a reference
 * @d: the batch's descriptors; d[i].status is set for each frame consumed
 * @f: filled in for each frame consumed; buf is NULL for a malformed one
 * @count: number of descriptors
 * @errp: 0, or why the batch stopped early (-EFAULT, -ENOMEM)
 *
 * Returns the number of frames consumed: all of them, or fewer once their
 * buffers reach TAPX_SPARE_BYTES. The caller runs XDP on those before the
 * next round, so that a batch of large (GSO) frames holds a bounded amount
 * of memory and the buffers dropped in one round are reused in the next.
 * A malformed frame is consumed with status -EINVAL and the batch goes on.
 * Here rather than in tapx_batch.c so that the per-frame copy is inlined.
 */
u32 tapx_wframes_copy(struct tapx_file *tfile, struct tapx_dev *tapx,
		      struct tapx_desc *d, struct tapx_wframe *f, u32 count,
		      int *errp)
{
	unsigned int bytes = 0;
	struct iov_iter from;
	int err = 0;
	u32 n = 0, k;

	while (n < count && !err) {
		k = tapx_wframes_copy_short(tfile, tapx, d + n, f + n,
					    count - n, &bytes, !n, &err);
		n += k;
		if (k || err || n == count)
			continue;

		/* A frame too large for the short copy. */
		if (!tapx_round_add(&bytes, d[n].len, !n))
			break;
		err = tapx_ubuf(ITER_SOURCE, d[n].addr, d[n].len, &from);
		if (unlikely(err))
			break;
		err = tapx_wframe_copy(tfile, tapx, &from, &f[n]);
		if (unlikely(err == -EINVAL)) {
			d[n].status = -EINVAL;
			err = 0;
		} else if (unlikely(err)) {
			break;
		} else {
			d[n].status = 0;
		}
		n++;
	}
	*errp = err;
	return n;
}

/* Gives a copied frame's buffers back to the file's caches, unsent. */
void tapx_wframe_drop(struct tapx_file *tfile, struct tapx_wframe *f)
{
	struct xdp_buff xdp;

	tapx_wframe_xdp(tfile, f, &xdp);
	tapx_recycle(tfile, &xdp);
	f->buf = NULL;
}

/* Finishes a partial checksum in place (single-buffer frames only). */
static int tapx_finish_csum(struct tapx_dev *tapx, struct xdp_buff *xdp,
			    const struct tapx_wframe *f)
{
	bool le = tapx_vnet_le(tapx);
	unsigned int start = __virtio16_to_cpu(le, f->vnet.csum_start);
	unsigned int off = __virtio16_to_cpu(le, f->vnet.csum_offset);
	unsigned int len = xdp->data_end - xdp->data;
	__sum16 *field;

	if (xdp_buff_has_frags(xdp) || start + off + 2 > len)
		return -EINVAL;
	field = xdp->data + start + off;
	*field = csum_fold(csum_partial(xdp->data + start, len - start, 0));
	if (!*field)
		*field = CSUM_MANGLED_0;
	return 0;
}

/*
 * TX and REDIRECT hand the buffer on as an xdp_frame, which has no room for
 * vnet metadata. A frame that still needs its checksum gets it here; a GSO
 * frame, or a checksum we cannot finish, is dropped and counted.
 */
static bool tapx_frame_ok(struct tapx_dev *tapx, struct xdp_buff *xdp,
			  const struct tapx_wframe *f)
{
	if (!f->has_vnet)
		return true;
	if (f->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		return false;
	if ((f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    tapx_finish_csum(tapx, xdp, f))
		return false;
	return true;
}

/* XDP_PASS: an skb around the same buffer, vnet metadata applied. */
static void tapx_xdp_pass(struct tapx_file *tfile, struct tapx_dev *tapx,
			  struct xdp_buff *xdp, const struct tapx_wframe *f,
			  void *orig_data, unsigned int orig_len)
{
	struct net_device *dev = tapx->dev;
	unsigned int nr_frags = 0, frags_size = 0;
	struct skb_shared_info *sinfo;
	struct sk_buff *skb;
	int metalen;

	/*
	 * Offsets in the vnet header are relative to the frame as written; if
	 * the program moved or resized it they no longer hold.
	 */
	if (f->has_vnet &&
	    (xdp->data != orig_data || xdp_get_buff_len(xdp) != orig_len)) {
		tapx_stat_inc(tapx, TAPX_XDP_GSO_DROPS);
		xdp_return_buff(xdp);
		return;
	}

	if (unlikely(xdp_buff_has_frags(xdp))) {
		sinfo = xdp_get_shared_info_from_buff(xdp);
		nr_frags = sinfo->nr_frags;
		frags_size = sinfo->xdp_frags_size;
	}

	skb = napi_build_skb(xdp->data_hard_start, xdp->frame_sz);
	if (unlikely(!skb)) {
		tapx_stat_inc(tapx, TAPX_RX_DROPPED);
		xdp_return_buff(xdp);
		return;
	}
	skb_reserve(skb, xdp->data - xdp->data_hard_start);
	__skb_put(skb, xdp->data_end - xdp->data);
	metalen = xdp->data - xdp->data_meta;
	if (metalen)
		skb_metadata_set(skb, metalen);
	if (nr_frags)
		xdp_update_skb_shared_info(skb, nr_frags, frags_size,
					   nr_frags * PAGE_SIZE, false);

	/*
	 * Before eth_type_trans: the header's offsets count from the frame's
	 * start, and it resets the MAC header to skb->data.
	 */
	if (f->has_vnet) {
		if (unlikely(virtio_net_hdr_to_skb(skb, &f->vnet,
						   tapx_vnet_le(tapx)))) {
			tapx_stat_inc(tapx, TAPX_RX_ERRORS);
			kfree_skb(skb);
			return;
		}
	}
	skb->protocol = eth_type_trans(skb, dev);
	/* Keeps a transport header the vnet checksum offsets set. */
	skb_probe_transport_header(skb);
	tapx_napi_receive(tfile, skb);
}

static void tapx_xdp_tx(struct tapx_file *tfile, struct tapx_dev *tapx,
			struct xdp_buff *xdp)
{
	unsigned int len = xdp_get_buff_len(xdp);
	struct xdp_frame *frame;

	frame = xdp_convert_buff_to_frame(xdp);
	if (unlikely(!frame))
		goto err;
	if (unlikely(tapx_ring_produce(tfile, (void *)((unsigned long)frame |
						       TAPX_PTR_XDP)))) {
		tapx_stat_inc(tapx, TAPX_RING_FULL);
		goto err;
	}
	tapx_stat_inc(tapx, TAPX_XDP_TX);
	tapx_stat_pkt(tapx, TAPX_TX_PACKETS, TAPX_TX_BYTES, len);
	tapx_qstat_pkt(tfile, TAPX_Q_TX_PACKETS, TAPX_Q_TX_BYTES, len);
	tapx_wake_reader(tfile);
	return;
err:
	tapx_stat_inc(tapx, TAPX_XDP_TX_ERRORS);
	xdp_return_buff(xdp);
}

/* Copies a multi-buffer frame into one contiguous area. */
static void tapx_copy_buff(struct xdp_buff *xdp, void *to)
{
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(xdp);
	unsigned int n = xdp->data_end - xdp->data;
	int i;

	memcpy(to, xdp->data, n);
	for (i = 0; i < sinfo->nr_frags; i++) {
		const skb_frag_t *f = &sinfo->frags[i];

		memcpy(to + n, skb_frag_address(f), skb_frag_size(f));
		n += skb_frag_size(f);
	}
}

/*
 * The 6.1 core refuses to redirect multi-buffer frames into a devmap
 * (xdp_do_redirect returns -EOPNOTSUPP for anything but a cpumap), so a
 * redirected frame larger than a page is copied once more into one
 * contiguous compound page. Counted in xdp_redirect_linearized; the frame
 * is dropped and counted in xdp_redirect_errors if that allocation fails.
 */
static int tapx_linearize(struct tapx_dev *tapx, struct xdp_buff *xdp)
{
	unsigned int len = xdp_get_buff_len(xdp);
	unsigned int size = TAPX_HEADROOM + len + TAPX_SHINFO;
	unsigned int order = get_order(size);
	struct xdp_rxq_info *rxq = xdp->rxq;
	struct page *page;
	void *buf;

	page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN | __GFP_COMP, order);
	if (unlikely(!page)) {
		tapx_stat_inc(tapx, TAPX_XDP_REDIRECT_ERRORS);
		xdp_return_buff(xdp);
		return -ENOMEM;
	}
	buf = page_address(page);
	tapx_copy_buff(xdp, buf + TAPX_HEADROOM);
	xdp_return_buff(xdp);

	xdp_init_buff(xdp, PAGE_SIZE << order, rxq);
	xdp_prepare_buff(xdp, buf, TAPX_HEADROOM, len, true);
	tapx_stat_inc(tapx, TAPX_XDP_REDIRECT_LINEAR);
	return 0;
}

/*
 * Runs the program on one frame and carries out the verdict. Inlined into
 * the loop over a batch: per-frame calls are a large part of the cost.
 * Returns true when the frame was redirected (xdp_do_flush() needed).
 */
static __always_inline bool tapx_xdp_run(struct tapx_file *tfile,
					 struct tapx_dev *tapx,
					 struct xdp_buff *xdp,
					 const struct tapx_wframe *f,
					 struct tapx_tally *t)
{
	void *orig_data = xdp->data;
	unsigned int orig_len = f->len;
	struct bpf_prog *prog;
	u32 act;

	t->rx_packets++;
	t->rx_bytes += f->len;

	prog = rcu_dereference(tapx->xdp_prog);
	if (!prog) {
		tapx_xdp_pass(tfile, tapx, xdp, f, orig_data, orig_len);
		return false;
	}
	if (unlikely(xdp_buff_has_frags(xdp) && !prog->aux->xdp_has_frags)) {
		tapx_stat_inc(tapx, TAPX_XDP_FRAGS_DROPS);
		tapx_recycle(tfile, xdp);
		return false;
	}

	act = bpf_prog_run_xdp(prog, xdp);
	t->verdict[tapx_verdict_slot(act)]++;
	switch (act) {
	case XDP_PASS:
		t->outcome[TAPX_V_PASS]++;
		tapx_xdp_pass(tfile, tapx, xdp, f, orig_data, orig_len);
		return false;
	case XDP_DROP:
		t->outcome[TAPX_V_DROP]++;
		tapx_recycle(tfile, xdp);
		return false;
	case XDP_TX:
		if (!tapx_frame_ok(tapx, xdp, f))
			break;
		tapx_xdp_tx(tfile, tapx, xdp);
		return false;
	case XDP_REDIRECT:
		if (!tapx_frame_ok(tapx, xdp, f))
			break;
		if (unlikely(xdp_buff_has_frags(xdp)) &&
		    tapx_linearize(tapx, xdp))
			return false;
		if (unlikely(xdp_do_redirect(tapx->dev, xdp, prog))) {
			tapx_stat_inc(tapx, TAPX_XDP_REDIRECT_ERRORS);
			xdp_return_buff(xdp);
			return false;
		}
		t->outcome[TAPX_V_REDIRECT]++;
		return true;
	default:
		bpf_warn_invalid_xdp_action(tapx->dev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(tapx->dev, prog, act);
		t->outcome[TAPX_V_ABORTED]++;
		tapx_recycle(tfile, xdp);
		return false;
	}

	/* TX or REDIRECT of a frame whose vnet metadata cannot travel. */
	tapx_stat_inc(tapx, TAPX_XDP_GSO_DROPS);
	tapx_recycle(tfile, xdp);
	return false;
}

/**
 * tapx_wframes_run - run XDP on copied frames and carry out their verdicts
 * @tfile: the file written to; caller holds tfile->write_lock
 * @tapx: its device, checked still attached to @tfile in this section
 * @f: copied frames [0, n); those without a buffer (malformed) are
 *     skipped, the others handed on or recycled
 * @n: number of frames
 *
 * Called with BH disabled and in an RCU read-side section. Returns true
 * when any frame was redirected: the caller calls xdp_do_flush() once,
 * after its last frame, before it enables BH again.
 */
bool tapx_wframes_run(struct tapx_file *tfile, struct tapx_dev *tapx,
		      struct tapx_wframe *f, unsigned int n)
{
	struct tapx_tally t = {};
	struct xdp_buff xdp;
	bool flush = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (!f[i].buf)
			continue;
		tapx_wframe_xdp(tfile, &f[i], &xdp);
		f[i].buf = NULL;
		flush |= tapx_xdp_run(tfile, tapx, &xdp, &f[i], &t);
	}
	if (t.rx_packets)
		tapx_tally_flush(tfile, tapx, &t);
	return flush;
}

struct tapx_dev *tapx_get(struct tapx_file *tfile)
{
	struct tapx_dev *tapx;

	rcu_read_lock();
	tapx = rcu_dereference(tfile->tapx);
	if (tapx)
		dev_hold(tapx->dev);
	rcu_read_unlock();
	return tapx;
}

ssize_t tapx_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct tapx_file *tfile = iocb->ki_filp->private_data;
	size_t total = iov_iter_count(from);
	struct tapx_wframe f;
	struct tapx_dev *tapx;
	ssize_t ret;

	/*
	 * A device reference, not a lock, keeps the device while we copy: the
	 * copy may wait on a page fault for as long as userspace likes, and
	 * detach (under rtnl) must not wait for it.
	 */
	tapx = tapx_get(tfile);
	if (!tapx)
		return -EBADFD;

	mutex_lock(&tfile->write_lock);
	ret = tapx_wframe_copy(tfile, tapx, from, &f);
	if (ret) {
		if (ret != -EINVAL)
			tapx_stat_inc(tapx, TAPX_RX_DROPPED);
		goto unlock;
	}

	local_bh_disable();
	rcu_read_lock();
	/* Detached while we copied: the ring may be purged already. */
	if (unlikely(rcu_access_pointer(tfile->tapx) != tapx)) {
		tapx_wframe_drop(tfile, &f);
		ret = -EBADFD;
	} else {
		if (tapx_wframes_run(tfile, tapx, &f, 1))
			xdp_do_flush();
		tapx_napi_flush(tfile);
		ret = total;
	}
	rcu_read_unlock();
	local_bh_enable();
unlock:
	mutex_unlock(&tfile->write_lock);
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

	spin_lock(&tfile->ring.producer_lock);
	for (; i < n; i++) {
		void *ptr = (void *)((unsigned long)frames[i] | TAPX_PTR_XDP);
		unsigned int len = xdp_get_frame_len(frames[i]);

		/* Once produced, the reader may free the frame at any time. */
		if (__ptr_ring_produce(&tfile->ring, ptr))
			break;
		bytes += len;
	}
	spin_unlock(&tfile->ring.producer_lock);

	if (i) {
		tapx_stat_add(tapx, TAPX_XDP_XMIT, i);
		tapx_stat_add(tapx, TAPX_TX_PACKETS, i);
		tapx_stat_add(tapx, TAPX_TX_BYTES, bytes);
		tapx_qstat_add(tfile, TAPX_Q_XDP_XMIT, i);
		tapx_qstat_add(tfile, TAPX_Q_TX_PACKETS, i);
		tapx_qstat_add(tfile, TAPX_Q_TX_BYTES, bytes);
		tapx_wake_reader(tfile);
	}
	if (i < n)
		tapx_stat_add(tapx, TAPX_RING_FULL, n - i);
out:
	if (i < n)
		tapx_stat_add(tapx, TAPX_XDP_XMIT_ERRORS, n - i);
	rcu_read_unlock();
	return i;
}
