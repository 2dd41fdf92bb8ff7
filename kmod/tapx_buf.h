/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-frame half of the buffer cache (tapx_buf.c), inlined into the
 * write path, the batch copy and the XDP verdicts: taking and giving back
 * a head buffer is a few loads and stores, and a call per frame was a
 * measurable part of a batched XDP_DROP. Callers hold tfile->write_lock.
 */
#ifndef TAPX_BUF_H
#define TAPX_BUF_H

#include <linux/gfp.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "tapx.h"

/* Memory a frame of len bytes takes: head buffer and page fragments. */
static __always_inline unsigned int tapx_buf_bytes(unsigned int len)
{
	if (len <= TAPX_LINEAR_MAX)
		return SKB_DATA_ALIGN(TAPX_HEADROOM + len) + TAPX_SHINFO;
	return PAGE_SIZE + round_up(len - TAPX_LINEAR_MAX, PAGE_SIZE);
}

/* A head buffer: the last dropped one if its size fits, else a new one. */
static __always_inline void *tapx_buf_get(struct tapx_file *tfile,
					  unsigned int buflen)
{
	unsigned int n = tfile->nr_spare;

	if (n && tfile->spare_len[n - 1] == buflen) {
		tfile->nr_spare = n - 1;
		tfile->spare_bytes -= buflen;
		return tfile->spare[n - 1];
	}
	return page_frag_alloc(&tfile->frag, buflen, GFP_KERNEL);
}

static __always_inline void tapx_buf_put(struct tapx_file *tfile, void *buf,
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

/* The xdp_buff of a copied frame, built where the program runs. */
static __always_inline void tapx_wframe_xdp(struct tapx_file *tfile,
					    const struct tapx_wframe *f,
					    struct xdp_buff *xdp)
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

#endif /* TAPX_BUF_H */
