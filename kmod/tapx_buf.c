// SPDX-License-Identifier: GPL-2.0
/*
 * tapx buffer cache: where a written frame's bytes live from the copy to
 * their verdict.
 *
 * Buffers come from the file's page_frag_cache: a frame up to
 * TAPX_LINEAR_MAX bytes gets one fragment sized for headroom, data and
 * skb_shared_info; a larger frame gets a page-sized head plus page-sized
 * fragments (XDP multi-buffer). Freed fragments return their reference to
 * the cache's page, which the cache reuses once all its fragments are gone.
 * The buffers of dropped frames are kept by the file and reused by its
 * next writes; the per-frame half of that is inlined from tapx_buf.h.
 */
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/uio.h>

#include "tapx.h"
#include "tapx_buf.h"

/* A page-sized fragment for a frame larger than a page. */
static void *tapx_frag_get(struct tapx_file *tfile)
{
	if (!tfile->nr_spare_frags)
		return page_frag_alloc(&tfile->frag, PAGE_SIZE, GFP_KERNEL);
	tfile->spare_bytes -= PAGE_SIZE;
	return tfile->spare_frags[--tfile->nr_spare_frags];
}

void tapx_frag_put(struct tapx_file *tfile, void *va)
{
	if (tfile->nr_spare_frags < TAPX_SPARE_FRAGS &&
	    tfile->spare_bytes + PAGE_SIZE <= TAPX_SPARE_BYTES) {
		tfile->spare_frags[tfile->nr_spare_frags++] = va;
		tfile->spare_bytes += PAGE_SIZE;
	} else {
		page_frag_free(va);
	}
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
int tapx_fill(struct tapx_file *tfile, struct iov_iter *from,
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

/* Gives a copied frame's buffers back to the file's caches, unsent. */
void tapx_wframe_drop(struct tapx_file *tfile, struct tapx_wframe *f)
{
	struct xdp_buff xdp;

	tapx_wframe_xdp(tfile, f, &xdp);
	tapx_recycle(tfile, &xdp);
	f->buf = NULL;
}

/* close(): frees the kept buffers and the fragment cache's page. */
void tapx_buf_drain(struct tapx_file *tfile)
{
	while (tfile->nr_spare)
		page_frag_free(tfile->spare[--tfile->nr_spare]);
	while (tfile->nr_spare_frags)
		page_frag_free(tfile->spare_frags[--tfile->nr_spare_frags]);
	if (tfile->frag.va)
		__page_frag_cache_drain(virt_to_head_page(tfile->frag.va),
					tfile->frag.pagecnt_bias);
}
