/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-frame half of the buffer cache (tapx_buf.c), inlined into the
 * write path, the batch copy and the XDP verdicts: taking and giving back
 * a head buffer is a few loads and stores, less than a call around them.
 *
 * The cache is per CPU and used only by writers, in process context
 * (BH disabled or not), never from interrupt or softirq context: its
 * local_lock, which is preempt_disable() but on PREEMPT_RT, is all the
 * locking it needs. A buffer taken on one CPU may be given back on another:
 * it is only a page fragment.
 */
#ifndef TAPX_BUF_H
#define TAPX_BUF_H

#include <linux/gfp.h>
#include <linux/local_lock.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "tapx.h"

/*
 * Buffers of dropped frames kept for reuse, per CPU: head buffers for a
 * full batch of small frames, page-sized fragments for a round of large
 * ones (tapx_wframes_copy), at most TAPX_SPARE_BYTES of memory in all.
 * A spare is one head buffer and its length.
 */
struct tapx_spare {
	void *buf;
	unsigned int len;
};

/*
 * 32 KiB compound pages that buffers of more than a page, and page-sized
 * fragments, are carved from, in turn (tapx_carve()).
 */
#define TAPX_CARVE_PAGES 4

struct tapx_carver {
	struct page *page[TAPX_CARVE_PAGES];
	unsigned int cur; /* the page being carved */
	unsigned int offset; /* its first free byte */
};

/*
 * The counts come first and a spare's pointer sits beside its length, so
 * that taking or giving back the top buffer touches two cache lines.
 */
struct tapx_buf_cache {
	local_lock_t lock; /* tapx_bufs_lock() */
	unsigned int nr_spare;
	unsigned int spare_bytes; /* spare[].len and the spare fragments */
	unsigned int nr_spare_frags;
	struct page_frag_cache frag; /* new buffers */
	struct tapx_carver jumbo; /* new jumbo buffers */
	struct tapx_carver frags; /* new page-sized fragments */
	/* Head buffers of dropped frames: a stack of nr_spare. */
	struct tapx_spare spare[TAPX_SPARE_MAX];
	/* Page-sized fragments of dropped multi-buffer frames. */
	void *spare_frags[TAPX_SPARE_FRAGS];
};

extern struct tapx_buf_cache __percpu *tapx_bufs;

/* tapx_buf.c */
void tapx_frag_put(struct tapx_buf_cache *c, void *va);

/*
 * New buffers come from the CPU's page_frag_cache without sleeping; when
 * that fails, a caller that may sleep takes a page of its own
 * (tapx_buf_alloc()), and the lockless write path takes that way instead.
 */
#define TAPX_BUF_GFP (GFP_NOWAIT | __GFP_NOWARN)

/* This CPU's cache, for a few loads and stores; never sleep holding it. */
static __always_inline struct tapx_buf_cache *tapx_bufs_lock(void)
{
	local_lock(&tapx_bufs->lock);
	return this_cpu_ptr(tapx_bufs);
}

static __always_inline void tapx_bufs_unlock(void)
{
	local_unlock(&tapx_bufs->lock);
}

/*
 * Memory a frame of len bytes takes: one buffer, or beyond TAPX_JUMBO_MAX
 * a page-sized head buffer and page fragments.
 */
static __always_inline unsigned int tapx_buf_bytes(unsigned int len)
{
	if (len <= TAPX_JUMBO_MAX)
		return SKB_DATA_ALIGN(TAPX_HEADROOM + len) + TAPX_SHINFO;
	return PAGE_SIZE + round_up(len - TAPX_LINEAR_MAX, PAGE_SIZE);
}

/* Frame bytes a head buffer of buflen bytes holds. */
static __always_inline unsigned int tapx_head_room(unsigned int buflen)
{
	return buflen - TAPX_HEADROOM - TAPX_SHINFO;
}

/* The copied frame goes on past its head buffer, in page fragments. */
static __always_inline bool tapx_wframe_frags(const struct tapx_wframe *f)
{
	return f->len > tapx_head_room(f->buflen);
}

/* The last buffer given back, if it is of this size. */
static __always_inline void *tapx_spare_get(struct tapx_buf_cache *c,
					    unsigned int buflen)
{
	unsigned int n = c->nr_spare;

	if (n && c->spare[n - 1].len == buflen) {
		c->nr_spare = n - 1;
		c->spare_bytes -= buflen;
		return c->spare[n - 1].buf;
	}
	return NULL;
}

/* A head buffer of at most a page: a spare one if its size fits, or new. */
static __always_inline void *tapx_buf_get(struct tapx_buf_cache *c,
					  unsigned int buflen)
{
	void *buf = tapx_spare_get(c, buflen);

	return buf ? buf : page_frag_alloc(&c->frag, buflen, TAPX_BUF_GFP);
}

static __always_inline void tapx_buf_put(struct tapx_buf_cache *c, void *buf,
					 unsigned int buflen)
{
	unsigned int n = c->nr_spare;

	if (n < TAPX_SPARE_MAX && c->spare_bytes + buflen <= TAPX_SPARE_BYTES) {
		c->spare[n].buf = buf;
		c->spare[n].len = buflen;
		c->nr_spare = n + 1;
		c->spare_bytes += buflen;
	} else {
		page_frag_free(buf);
	}
}

/*
 * Buffers are page fragments, so the copy goes through copy_page_from_iter():
 * it bounds the copy by the (compound) page, the check hardened usercopy
 * would otherwise make on every frame at several times the cost (the
 * heap/stack/text walk of check_object_size(), longer than a short frame's
 * copy). With page faults disabled, a fault makes it copy less instead of
 * sleeping.
 */
static __always_inline bool tapx_copy_in(void *to, size_t n,
					 struct iov_iter *from)
{
	return copy_page_from_iter(virt_to_page(to), offset_in_page(to), n,
				   from) == n;
}

/* The xdp_buff of a copied frame, built where the program runs. */
static __always_inline void tapx_wframe_xdp(struct tapx_file *tfile,
					    const struct tapx_wframe *f,
					    struct xdp_buff *xdp)
{
	xdp_init_buff(xdp, f->buflen, &tfile->xdp_rxq);
	xdp->txq = NULL; /* the one field the two helpers leave */
	xdp_prepare_buff(xdp, f->buf, TAPX_HEADROOM,
			 min(f->len, tapx_head_room(f->buflen)), true);
	if (unlikely(tapx_wframe_frags(f)))
		xdp_buff_set_frags_flag(xdp);
}

/*
 * A dropped frame's buffers are ours alone (a program cannot take page
 * references): keep them for the next writes instead of freeing them, which
 * saves the allocation, the refcounting and keeps the memory cache-hot.
 */
static __always_inline void tapx_recycle(struct xdp_buff *xdp)
{
	struct tapx_buf_cache *c = tapx_bufs_lock();
	struct skb_shared_info *sinfo;
	int i;

	if (unlikely(xdp_buff_has_frags(xdp))) {
		sinfo = xdp_get_shared_info_from_buff(xdp);
		for (i = 0; i < sinfo->nr_frags; i++)
			tapx_frag_put(c, skb_frag_address(&sinfo->frags[i]));
	}
	tapx_buf_put(c, xdp->data_hard_start, xdp->frame_sz);
	tapx_bufs_unlock();
}

#endif /* TAPX_BUF_H */
