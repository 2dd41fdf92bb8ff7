// SPDX-License-Identifier: GPL-2.0
/*
 * tapx buffer cache: where a written frame's bytes live from the copy to
 * their verdict.
 *
 * Buffers come from a per-CPU page_frag_cache: a frame up to
 * TAPX_LINEAR_MAX bytes gets one fragment sized for headroom, data and
 * skb_shared_info. A jumbo frame (up to TAPX_JUMBO_MAX) gets one such
 * buffer too, a piece of one of the CPU's jumbo pages; a larger frame, or
 * a jumbo one when no compound page is to be had, a page-sized head plus
 * page-sized fragments (XDP multi-buffer), pieces of the CPU's fragment
 * pages. Every buffer holds one reference to its page, which
 * page_frag_free() drops; each cache reuses a page once all its buffers
 * are gone.
 * The buffers of dropped frames are kept per CPU and reused by the next
 * writes on that CPU; the per-frame half of that is inlined from
 * tapx_buf.h, which also says why the cache needs no lock.
 *
 * Memory: per CPU at most TAPX_SPARE_BYTES of kept buffers, the
 * page_frag_cache's current page and 2 * TAPX_CARVE_PAGES compound pages
 * of TAPX_JUMBO_PAGE (the last only where frames above a page were
 * written), all of it freed at module unload (tapx_bufs_exit()); buffers
 * in flight (rings, skbs) are freed by whoever holds them last, with
 * page_frag_free(), cache or not.
 */
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/uio.h>

#include "compat.h"
#include "tapx.h"
#include "tapx_buf.h"

struct tapx_buf_cache __percpu *tapx_bufs;

/*
 * A page of our own for a copy that may sleep, when the CPU's cache has
 * nothing without sleeping. page_frag_free() frees it like a fragment.
 */
static void *tapx_page_alloc(void)
{
	struct page *page = alloc_page(GFP_KERNEL);

	return page ? page_address(page) : NULL;
}

#define TAPX_CARVE_GFP (TAPX_BUF_GFP | __GFP_COMP | __GFP_NORETRY)

/*
 * The page of c to carve next, from its start. Each page is kept across
 * its pieces' lives: once all of them are freed (by tapx, or by the stack
 * for a passed frame), only c's reference is left and the page is carved
 * again, the one just carved first while the CPU's caches still hold it.
 * A new one would come zeroed from the page allocator (init_on_alloc,
 * Debian's default) at about the cost of the frames' copy. A page still
 * in use when its turn comes is let go and replaced, without sleeping or
 * reclaim; NULL when there is none.
 */
static struct page *tapx_carve_next(struct tapx_carver *c)
{
	struct page *page = c->page[c->cur];

	if (page && page_ref_count(page) == 1)
		return page;
	c->cur = (c->cur + 1) % TAPX_CARVE_PAGES;
	page = c->page[c->cur];
	if (page && page_ref_count(page) == 1)
		return page;
	if (page)
		put_page(page);
	page = alloc_pages(TAPX_CARVE_GFP, get_order(TAPX_JUMBO_PAGE));
	c->page[c->cur] = page;
	return page;
}

/* A piece of len bytes of one of c's compound pages, or NULL. */
static void *tapx_carve(struct tapx_carver *c, unsigned int len)
{
	struct page *page = c->page[c->cur];

	if (!page || c->offset + len > TAPX_JUMBO_PAGE) {
		page = tapx_carve_next(c);
		if (!page)
			return NULL;
		c->offset = 0;
	}
	get_page(page);
	c->offset += len;
	return page_address(page) + c->offset - len;
}

static void tapx_carver_free(struct tapx_carver *c)
{
	int i;

	for (i = 0; i < TAPX_CARVE_PAGES; i++)
		if (c->page[i])
			put_page(c->page[i]);
}

/* A jumbo frame's buffer, of more than a page: a spare one, or a new one. */
static void *tapx_jumbo_get(struct tapx_buf_cache *c, unsigned int buflen)
{
	void *buf = tapx_spare_get(c, buflen);

	return buf ? buf : tapx_carve(&c->jumbo, buflen);
}

/*
 * A head buffer for a frame to be copied by a caller that may sleep: from
 * this CPU's caches, else a page of its own. A jumbo buffer may come back
 * as a page (*buflen then PAGE_SIZE): the frame goes on in fragments.
 */
void *tapx_buf_alloc(unsigned int *buflen)
{
	struct tapx_buf_cache *c = tapx_bufs_lock();
	void *buf = NULL;

	if (*buflen > PAGE_SIZE) {
		buf = tapx_jumbo_get(c, *buflen);
		if (!buf)
			*buflen = PAGE_SIZE;
	}
	if (!buf)
		buf = tapx_buf_get(c, *buflen);
	tapx_bufs_unlock();
	if (likely(buf))
		return buf;
	*buflen = PAGE_SIZE;
	return tapx_page_alloc();
}

/* A head buffer given back unused by a caller that may sleep. */
void tapx_buf_free(void *buf, unsigned int buflen)
{
	tapx_buf_put(tapx_bufs_lock(), buf, buflen);
	tapx_bufs_unlock();
}

/* A page-sized fragment for a frame larger than a page; may sleep. */
static void *tapx_frag_alloc(void)
{
	struct tapx_buf_cache *c = tapx_bufs_lock();
	void *va;

	if (c->nr_spare_frags) {
		c->spare_bytes -= PAGE_SIZE;
		va = c->spare_frags[--c->nr_spare_frags];
	} else {
		va = tapx_carve(&c->frags, PAGE_SIZE);
	}
	tapx_bufs_unlock();
	return va ? va : tapx_page_alloc();
}

/* The caller holds tapx_bufs_lock(). */
void tapx_frag_put(struct tapx_buf_cache *c, void *va)
{
	if (c->nr_spare_frags < TAPX_SPARE_FRAGS &&
	    c->spare_bytes + PAGE_SIZE <= TAPX_SPARE_BYTES) {
		c->spare_frags[c->nr_spare_frags++] = va;
		c->spare_bytes += PAGE_SIZE;
	} else {
		page_frag_free(va);
	}
}

/* Copies the rest of a frame past its head buffer into page fragments. */
static int tapx_fill_frags(struct iov_iter *from, struct tapx_wframe *f)
{
	struct skb_shared_info *sinfo = f->buf + f->buflen - TAPX_SHINFO;
	size_t left = f->len - tapx_head_room(f->buflen);
	int i;

	sinfo->nr_frags = 0;
	sinfo->xdp_frags_size = left;
	for (i = 0; left; i++) {
		size_t n = min_t(size_t, left, PAGE_SIZE);
		struct page *page;
		void *va;

		va = tapx_frag_alloc();
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
 * Copies the frame into a head buffer with XDP headroom and, past what
 * that holds, page-sized fragments (XDP multi-buffer).
 * May sleep: the copy may fault, and a buffer may be allocated.
 */
int tapx_fill(struct iov_iter *from, struct tapx_wframe *f)
{
	unsigned int head_len;
	int err;

	f->buflen = tapx_buf_bytes(f->len);
	if (f->buflen > TAPX_JUMBO_BUF)
		f->buflen = PAGE_SIZE;
	f->buf = tapx_buf_alloc(&f->buflen);
	if (unlikely(!f->buf))
		return -ENOMEM;
	head_len = min(f->len, tapx_head_room(f->buflen));
	if (unlikely(!tapx_copy_in(f->buf + TAPX_HEADROOM, head_len, from))) {
		tapx_buf_free(f->buf, f->buflen);
		f->buf = NULL;
		return -EFAULT;
	}
	if (likely(f->len == head_len))
		return 0;

	err = tapx_fill_frags(from, f);
	if (unlikely(err)) {
		tapx_wframe_drop(f);
		return err;
	}
	return 0;
}

/* Gives a copied frame's buffers back to the cache, unsent. */
void tapx_wframe_drop(struct tapx_wframe *f)
{
	struct tapx_buf_cache *c = tapx_bufs_lock();
	struct skb_shared_info *sinfo;
	int i;

	if (unlikely(tapx_wframe_frags(f))) {
		sinfo = f->buf + f->buflen - TAPX_SHINFO;
		for (i = 0; i < sinfo->nr_frags; i++)
			tapx_frag_put(c, skb_frag_address(&sinfo->frags[i]));
	}
	tapx_buf_put(c, f->buf, f->buflen);
	tapx_bufs_unlock();
	f->buf = NULL;
}

int tapx_bufs_init(void)
{
	int cpu;

	tapx_bufs = alloc_percpu(struct tapx_buf_cache);
	if (!tapx_bufs)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		local_lock_init(&per_cpu_ptr(tapx_bufs, cpu)->lock);
	return 0;
}

/* Module unload: no writer is left, every CPU's cache is freed. */
void tapx_bufs_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct tapx_buf_cache *c = per_cpu_ptr(tapx_bufs, cpu);

		while (c->nr_spare)
			page_frag_free(c->spare[--c->nr_spare].buf);
		while (c->nr_spare_frags)
			page_frag_free(c->spare_frags[--c->nr_spare_frags]);
		tapx_page_frag_cache_drain(&c->frag);
		tapx_carver_free(&c->jumbo);
		tapx_carver_free(&c->frags);
	}
	free_percpu(tapx_bufs);
}
