// SPDX-License-Identifier: GPL-2.0
/*
 * tapx write path, XDP stage: a copied frame becomes an xdp_buff, meets the
 * attached program, and its verdict is carried out here: DROP recycles its
 * buffers (tapx_buf.h), TX queues it to this tap's reader (tapx_ring.c),
 * REDIRECT hands it to xdp_do_redirect(), and PASS builds an skb around the
 * same buffer and delivers it (tapx_napi.c). The verdicts and rx counters
 * of one write call are tallied and added to the counters once.
 *
 * The per-frame half (the program's run, DROP, the tally) is inlined from
 * tapx_xdp.h into the loops here and into the write path; what is here is
 * the rest of TX, REDIRECT and PASS, and the loops over a batch's frames
 * and vhost-net's buffers.
 */
#include <linux/bpf.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/skbuff.h>
#include <linux/virtio_net.h>
#include <net/checksum.h>

#include "tapx.h"
#include "tapx_buf.h"
#include "tapx_parse.h"
#include "tapx_ring.h"
#include "tapx_xdp.h"

/* Finishes a partial checksum in place (single-buffer frames only). */
static int tapx_finish_csum(struct tapx_dev *tapx, struct xdp_buff *xdp,
			    const struct tapx_wframe *f)
{
	bool le = tapx_vnet_le(tapx);
	unsigned int start = __virtio16_to_cpu(le, f->vnet.csum_start);
	unsigned int off = __virtio16_to_cpu(le, f->vnet.csum_offset);
	unsigned int len = xdp->data_end - xdp->data;
	__sum16 *field;

	if (xdp_buff_has_frags(xdp) || start + off + TAPX_CSUM_LEN > len)
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
 * frame, or a checksum we cannot finish, is dropped and counted
 * (tapx_frame_ok(), tapx_xdp.h).
 */
bool tapx_vnet_frame_ok(struct tapx_dev *tapx, struct xdp_buff *xdp,
			const struct tapx_wframe *f)
{
	if (f->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		return false;
	if ((f->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	    tapx_finish_csum(tapx, xdp, f))
		return false;
	return true;
}

/*
 * A passed skb of a vhost-net batch (@pass) waits on the batch's list for
 * tapx_pass_list(); without NAPI that is one netif_receive_skb_list() per
 * batch instead of a netif_receive_skb() per frame. With NAPI the skb goes
 * to the file's queue and GRO, as any passed frame.
 */
static void tapx_pass_skb(struct tapx_file *tfile, struct sk_buff *skb,
			  struct list_head *pass)
{
	if (pass && !tfile->napi_on)
		list_add_tail(&skb->list, pass);
	else
		tapx_napi_receive(tfile, skb);
}

/* The batch's passed skbs to the stack, in the bound section. */
static void tapx_pass_list(struct list_head *pass)
{
	if (!list_empty(pass))
		netif_receive_skb_list(pass);
}

/*
 * XDP_PASS: an skb around the same buffer, vnet metadata applied; on
 * @pass (a vhost-net batch's list) or delivered now.
 */
void tapx_xdp_pass(struct tapx_file *tfile, struct tapx_dev *tapx,
		   struct xdp_buff *xdp, const struct tapx_wframe *f,
		   void *orig_data, unsigned int orig_len,
		   struct list_head *pass)
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
		tapx_stat_inc(tapx, TAPX_STAT(xdp_gso_drops));
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
		tapx_stat_inc(tapx, TAPX_STAT(rx_dropped));
		xdp_return_buff(xdp);
		return;
	}
	skb_reserve(skb, xdp->data - xdp->data_hard_start);
	__skb_put(skb, xdp->data_end - xdp->data);
	metalen = xdp->data - xdp->data_meta;
	if (metalen)
		skb_metadata_set(skb, metalen);
	if (nr_frags)
		tapx_skb_set_frags(skb, nr_frags, frags_size,
				   nr_frags * PAGE_SIZE);

	/*
	 * Before eth_type_trans: the header's offsets count from the frame's
	 * start, and it resets the MAC header to skb->data. The skb has its
	 * device first: a GSO frame without NEEDS_CSUM is probed through it.
	 */
	skb->dev = dev;
	if (f->has_vnet &&
	    unlikely(tapx_vnet_to_skb(skb, f, tapx_vnet_le(tapx), ETH_HLEN))) {
		tapx_stat_inc(tapx, TAPX_STAT(rx_errors));
		kfree_skb(skb);
		return;
	}
	skb->protocol = eth_type_trans(skb, dev);
	/* Keeps a transport header the vnet checksum offsets set. */
	skb_probe_transport_header(skb);
	tapx_pass_skb(tfile, skb, pass);
}

/* Queues the bulk's frames to the reader; what does not fit is dropped. */
static void tapx_tx_flush(struct tapx_file *tfile, struct tapx_tx_bulk *bq,
			  struct tapx_tally *t)
{
	unsigned int done, i;

	done = tapx_ring_produce_frames(tfile, bq->frames, bq->n, &t->tx_bytes);
	t->outcome[TAPX_V_TX] += done;
	if (unlikely(done < bq->n)) {
		for (i = done; i < bq->n; i++)
			xdp_return_frame(bq->frames[i]);
		t->ring_full += bq->n - done;
		t->tx_errors += bq->n - done;
	}
	bq->n = 0;
}

void tapx_xdp_tx(struct tapx_file *tfile, struct xdp_buff *xdp,
		 struct tapx_tx_bulk *bq, struct tapx_tally *t)
{
	struct xdp_frame *frame;

	frame = xdp_convert_buff_to_frame(xdp);
	if (unlikely(!frame)) {
		t->tx_errors++;
		xdp_return_buff(xdp);
		return;
	}
	if (bq->n == TAPX_TX_BULK)
		tapx_tx_flush(tfile, bq, t);
	bq->frames[bq->n++] = frame;
}

/* After the last frame of a call: XDP_TX's queueing, counters, wakeup. */
void tapx_tx_done(struct tapx_file *tfile, struct tapx_dev *tapx,
		  struct tapx_tx_bulk *bq, struct tapx_tally *t)
{
	unsigned int n;

	if (bq->n)
		tapx_tx_flush(tfile, bq, t);
	n = t->outcome[TAPX_V_TX];
	if (n) {
		tapx_stat_tx(tapx, tfile, n, t->tx_bytes, false);
		tapx_wake_reader(tfile);
	}
	if (unlikely(t->tx_errors)) {
		tapx_stat_add(tapx, TAPX_STAT(xdp_tx_errors), t->tx_errors);
		if (t->ring_full)
			tapx_stat_add(tapx, TAPX_STAT(ring_full_drops),
				      t->ring_full);
	}
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
 * XDP_TX frames too (for vhost-net), in xdp_tx_linearized, xdp_tx_errors.
 */
int tapx_linearize(struct tapx_dev *tapx, struct xdp_buff *xdp, size_t done,
		   size_t err)
{
	unsigned int len = xdp_get_buff_len(xdp);
	unsigned int size = TAPX_HEADROOM + len + TAPX_SHINFO;
	unsigned int order = get_order(size);
	struct xdp_rxq_info *rxq = xdp->rxq;
	struct page *page;
	void *buf;

	page = alloc_pages(GFP_ATOMIC | __GFP_NOWARN | __GFP_COMP, order);
	if (unlikely(!page)) {
		tapx_stat_inc(tapx, err);
		xdp_return_buff(xdp);
		return -ENOMEM;
	}
	buf = page_address(page);
	tapx_copy_buff(xdp, buf + TAPX_HEADROOM);
	xdp_return_buff(xdp);

	xdp_init_buff(xdp, PAGE_SIZE << order, rxq);
	xdp_prepare_buff(xdp, buf, TAPX_HEADROOM, len, true);
	tapx_stat_inc(tapx, done);
	return 0;
}

/**
 * tapx_wframes_run - run XDP on copied frames and carry out their verdicts
 * @tfile: the file written to
 * @tapx: its device, found bound to @tfile in this section
 * @f: copied frames [0, n); those without a buffer (malformed) are
 *     counted in rx_errors, the others handed on or recycled
 * @n: number of frames
 *
 * Called in a bound section (tapx_bound_begin()). Returns true when any
 * frame was redirected: the caller hands that to tapx_bound_end(), which
 * flushes once, after the last frame.
 */
bool tapx_wframes_run(struct tapx_file *tfile, struct tapx_dev *tapx,
		      struct tapx_wframe *f, unsigned int n)
{
	return __tapx_wframes_run(tfile, tapx, f, n);
}

/*
 * One of vhost-net's batch buffers as a frame: its vnet header at
 * data_hard_start (read before XDP, which may write over it) and the
 * buffer's length (compat.h: where each kernel keeps them). The program runs on vhost's own
 * xdp_buff, as tun's does: vhost-net set its data pointers, so only its
 * size and this queue's rxq are filled in (MEM_TYPE_PAGE_SHARED: a drop
 * or a converted frame puts vhost's page reference). A plain vnet header
 * (tapx_vnet_plain()) is neither copied nor checked: it has nothing to
 * refuse or apply. -EINVAL for a runt or a bad vnet header.
 */
static int tapx_vhost_buf_frame(struct tapx_file *tfile,
				const struct tapx_write_cfg *cfg,
				struct xdp_buff *xdp, struct tapx_wframe *f)
{
	struct virtio_net_hdr *vnet = tapx_vhost_vnet(xdp);
	unsigned int len = xdp->data_end - xdp->data;

	f->len = len;
	f->has_vnet = false;
	if (len < TAPX_MIN_FRAME)
		return -EINVAL;
	if ((cfg->flags & IFF_VNET_HDR) && !tapx_vnet_plain(vnet)) {
		f->vnet = *vnet;
		/* vhost copied the whole header there (sock_hlen). */
		if (tapx_vnet_has_tnl(vnet, cfg->vnet_hdr_sz))
			memcpy(&f->tnl, (void *)vnet + TAPX_VNET_TNL_OFF,
			       sizeof(f->tnl));
		if (tapx_parse_vnet(cfg->flags, cfg->vnet_hdr_sz, f))
			return -EINVAL;
	}
	xdp_init_buff(xdp, tapx_vhost_buflen(xdp), &tfile->xdp_rxq);
	return 0;
}

/**
 * tapx_vhost_bufs_run - run XDP on a batch of vhost-net's buffers
 * @tfile: the file whose socket vhost sends on
 * @tapx: its device, found bound to @tfile in this section
 * @xbuffs: vhost's xdp_buffs, each one page reference of its page frag
 * @n: number of buffers
 *
 * Every buffer is consumed: malformed ones (runts, bad vnet headers) are
 * counted in rx_errors and their page reference dropped, the others meet
 * the program with the counters and verdicts of a written frame. Passed
 * frames reach the stack as one list at the end (tapx_pass_skb()), and
 * dropped ones put their page references per page (tapx_page_refs). Called
 * like tapx_wframes_run(), whose return value this shares.
 */
bool tapx_vhost_bufs_run(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct xdp_buff *xbuffs, unsigned int n)
{
	struct tapx_tally t __uninitialized;
	struct tapx_tx_bulk bq __uninitialized;
	struct tapx_page_refs refs = {};
	struct tapx_wframe f __uninitialized;
	bool flush = false;
	struct tapx_write_cfg cfg;
	LIST_HEAD(pass);
	unsigned int i;

	tapx_write_cfg_get(tapx, &cfg);
	tapx_tally_init(&t);
	t.pass = &pass;
	t.refs = &refs;
	bq.n = 0;
	for (i = 0; i < n; i++) {
		if (unlikely(tapx_vhost_buf_frame(tfile, &cfg, &xbuffs[i],
						  &f))) {
			tapx_page_refs_put(&refs,
					   virt_to_head_page(xbuffs[i].data));
			t.rx_errors++;
			continue;
		}
		flush |= tapx_xdp_run(tfile, tapx, &xbuffs[i], &f, &bq, &t,
				      true);
	}
	tapx_page_refs_flush(&refs);
	tapx_pass_list(&pass);
	tapx_run_done(tfile, tapx, &bq, &t, false);
	return flush;
}
