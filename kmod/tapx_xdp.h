/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-frame half of the XDP stage (tapx_xdp.c), inlined into its
 * callers: the write path's one frame, a batch's loop and vhost-net's
 * buffers, so that what every frame runs costs no call and return. The
 * program runs and DROP is carried out here, and the verdicts are tallied;
 * the rest of TX, REDIRECT and PASS is out of line in tapx_xdp.c.
 */
#ifndef TAPX_XDP_H
#define TAPX_XDP_H

#include <linux/bpf_trace.h>
#include <linux/filter.h>
#include <linux/gfp.h>
#include <trace/events/xdp.h>

#include "tapx.h"
#include "tapx_buf.h"

/*
 * The page references of vhost-net's buffers that one batch drops: its
 * buffers are pieces of one page frag, one reference each, in order, so a
 * run of drops from one page puts its references in one atomic operation
 * instead of one each.
 */
struct tapx_page_refs {
	struct page *page;
	unsigned int count;
};

static inline void tapx_page_refs_flush(struct tapx_page_refs *r)
{
	if (r->count)
		__page_frag_cache_drain(r->page, r->count);
	r->page = NULL;
	r->count = 0;
}

static __always_inline void tapx_page_refs_put(struct tapx_page_refs *r,
					       struct page *page)
{
	if (r->page != page) {
		tapx_page_refs_flush(r);
		r->page = page;
	}
	r->count++;
}

/*
 * What one write call's frames did, added to the per-CPU counters once at
 * the end of the call, so that a batch updates each counter once, not
 * every frame four of them. verdict[] counts the program's verdicts (the
 * queue's xdp_* counters), outcome[] the device's xdp_pass..xdp_aborted:
 * the frames each verdict was carried out for (an XDP_TX frame once it is
 * on the reader's ring); both are indexed like those counters, by enum
 * tapx_verdict. Every verdict is counted here and nowhere else.
 */
struct tapx_tally {
	u64 rx_bytes;
	u32 rx_packets;
	u32 rx_errors; /* malformed frames of a batch, counted where it runs */
	u32 verdict[TAPX_NR_V];
	u32 outcome[TAPX_NR_V];
	u64 tx_bytes; /* XDP_TX frames queued to the reader */
	u32 tx_errors; /* XDP_TX frames not queued: no xdp_frame, ring full */
	u32 ring_full;
	/* The last verdict's index in verdict[]. */
	u32 slot;
	/*
	 * Passed skbs of a vhost-net batch, handed to the stack together at
	 * its end (tapx_pass_list()); NULL: each is delivered as it is built.
	 */
	struct list_head *pass;
	/* A vhost-net batch's dropped buffers' page references; or NULL. */
	struct tapx_page_refs *refs;
	/* A new field is cleared in tapx_tally_init() too. */
};

/*
 * XDP_TX frames of one call, queued to the reader's ring TAPX_TX_BULK at a
 * time under one producer lock, and the reader woken once per call (only
 * if it sleeps): the lock, the wakeup check's barrier and the counter
 * updates, most of what XDP_TX adds to XDP_DROP, are paid per bulk and per
 * call, not per frame.
 */
#define TAPX_TX_BULK 16

struct tapx_tx_bulk {
	unsigned int n;
	struct xdp_frame *frames[TAPX_TX_BULK];
};

/*
 * Debian's kernels are built with INIT_STACK_ALL_ZERO: an "= {}" struct,
 * and any local the compiler cannot prove written first, is cleared with
 * "rep stos" on every write(). The tally is cleared here with plain stores
 * instead, and declared __uninitialized, as are the bulk and the xdp_buff,
 * which are written before they are read.
 */
static __always_inline void tapx_tally_init(struct tapx_tally *t)
{
	int i;

	t->rx_bytes = 0;
	t->rx_packets = 0;
	t->rx_errors = 0;
	for (i = 0; i < TAPX_NR_V; i++)
		t->verdict[i] = t->outcome[i] = 0;
	t->tx_bytes = 0;
	t->tx_errors = 0;
	t->ring_full = 0;
	t->slot = TAPX_V_PASS;
	t->pass = NULL;
	t->refs = NULL;
}

static __always_inline unsigned int tapx_verdict_slot(u32 act)
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
 * Adds a tally to one set of per-CPU counters: its rx @packets and @bytes,
 * and its verdict counters @xdp[TAPX_NR_V] from @counts. The tally of one
 * frame (@one) has at most its verdict's slot set.
 */
static __always_inline void tapx_tally_add(struct u64_stats_sync *syncp,
					   u64_stats_t *packets,
					   u64_stats_t *bytes, u64_stats_t *xdp,
					   const struct tapx_tally *t,
					   const u32 *counts, bool one)
{
	u64_stats_update_begin(syncp);
	u64_stats_add(packets, t->rx_packets);
	u64_stats_add(bytes, t->rx_bytes);
	if (one) {
		u64_stats_add(&xdp[t->slot], counts[t->slot]);
		u64_stats_update_end(syncp);
		return;
	}
	/*
	 * The zeros too, unrolled: five adds to one cache line cost less
	 * than a loop, or a branch per counter to skip them.
	 */
	BUILD_BUG_ON(TAPX_NR_V != 5);
	u64_stats_add(&xdp[TAPX_V_PASS], counts[TAPX_V_PASS]);
	u64_stats_add(&xdp[TAPX_V_DROP], counts[TAPX_V_DROP]);
	u64_stats_add(&xdp[TAPX_V_TX], counts[TAPX_V_TX]);
	u64_stats_add(&xdp[TAPX_V_REDIRECT], counts[TAPX_V_REDIRECT]);
	u64_stats_add(&xdp[TAPX_V_ABORTED], counts[TAPX_V_ABORTED]);
	u64_stats_update_end(syncp);
}

static __always_inline void tapx_tally_flush(struct tapx_file *tfile,
					     struct tapx_dev *tapx,
					     const struct tapx_tally *t,
					     bool one)
{
	struct tapx_pcpu_qstats *q = this_cpu_ptr(tfile->qstats);
	struct tapx_pcpu_stats *d = this_cpu_ptr(tapx->stats);

	tapx_tally_add(&d->syncp, &d->rx_packets, &d->rx_bytes, d->xdp, t,
		       t->outcome, one);
	tapx_tally_add(&q->syncp, &q->rx_packets, &q->rx_bytes, q->xdp, t,
		       t->verdict, one);
}

/* tapx_xdp.c: the verdicts' out-of-line work */
bool tapx_vnet_frame_ok(struct tapx_dev *tapx, struct xdp_buff *xdp,
			const struct tapx_wframe *f);
void tapx_xdp_pass(struct tapx_file *tfile, struct tapx_dev *tapx,
		   struct xdp_buff *xdp, const struct tapx_wframe *f,
		   void *orig_data, unsigned int orig_len,
		   struct list_head *pass);
void tapx_xdp_tx(struct tapx_file *tfile, struct xdp_buff *xdp,
		 struct tapx_tx_bulk *bq, struct tapx_tally *t);
void tapx_tx_done(struct tapx_file *tfile, struct tapx_dev *tapx,
		  struct tapx_tx_bulk *bq, struct tapx_tally *t);
int tapx_linearize(struct tapx_dev *tapx, struct xdp_buff *xdp, size_t done,
		   size_t err);

/*
 * TX and REDIRECT hand the buffer on as an xdp_frame, which has no room for
 * vnet metadata: see tapx_vnet_frame_ok().
 */
static __always_inline bool tapx_frame_ok(struct tapx_dev *tapx,
					  struct xdp_buff *xdp,
					  const struct tapx_wframe *f)
{
	return !f->has_vnet || tapx_vnet_frame_ok(tapx, xdp, f);
}

/*
 * A dropped frame's buffer: back to tapx's cache, or, for one of vhost's
 * (@shared: a piece of its page frag holding one page reference), that
 * reference dropped (with the batch's others of its page, @refs): never
 * into tapx's cache, which would hand it out again.
 */
static __always_inline void tapx_xdp_drop(struct xdp_buff *xdp, bool shared,
					  struct tapx_page_refs *refs)
{
	if (!shared)
		tapx_recycle(xdp);
	else if (refs && !xdp_buff_has_frags(xdp))
		tapx_page_refs_put(refs, virt_to_head_page(xdp->data));
	else
		xdp_return_buff(xdp);
}

/*
 * Runs the program on one frame and carries out the verdict. Inlined into
 * the loops over frames and the write path: per-frame calls are a large
 * part of the cost.
 * Returns true when the frame was redirected (xdp_do_flush() needed).
 */
static __always_inline bool tapx_xdp_run(struct tapx_file *tfile,
					 struct tapx_dev *tapx,
					 struct xdp_buff *xdp,
					 const struct tapx_wframe *f,
					 struct tapx_tx_bulk *bq,
					 struct tapx_tally *t, bool shared)
{
	void *orig_data = xdp->data;
	unsigned int orig_len = f->len;
	struct bpf_prog *prog;
	u32 act;

	t->rx_packets++;
	t->rx_bytes += f->len;

	/* BH is disabled: an RCU read-side section (tapx_bound_begin()). */
	prog = rcu_dereference_bh(tapx->xdp_prog);
	/* None of its own: its namespace's default (tapx_defprog.c), if any. */
	if (!prog)
		prog = tapx_def_prog(tapx);
	if (!prog) {
		tapx_xdp_pass(tfile, tapx, xdp, f, orig_data, orig_len,
			      t->pass);
		return false;
	}
	/* A jumbo frame may sit in one buffer: its length is what counts. */
	if (unlikely(f->len > TAPX_LINEAR_MAX && !prog->aux->xdp_has_frags)) {
		tapx_stat_inc(tapx, TAPX_STAT(xdp_frags_drops));
		tapx_xdp_drop(xdp, shared, t->refs);
		return false;
	}

	act = bpf_prog_run_xdp(prog, xdp);
	t->slot = tapx_verdict_slot(act);
	t->verdict[t->slot]++;
	switch (act) {
	case XDP_PASS:
		t->outcome[TAPX_V_PASS]++;
		tapx_xdp_pass(tfile, tapx, xdp, f, orig_data, orig_len,
			      t->pass);
		return false;
	case XDP_DROP:
		t->outcome[TAPX_V_DROP]++;
		tapx_xdp_drop(xdp, shared, t->refs);
		return false;
	case XDP_TX:
		if (!tapx_frame_ok(tapx, xdp, f))
			break;
		/*
		 * vhost-net may take the frame off the ring, and it sizes the
		 * guest's buffer by the first buffer only: one buffer it is.
		 */
		if (unlikely(xdp_buff_has_frags(xdp)) &&
		    tapx_linearize(tapx, xdp, TAPX_STAT(xdp_tx_linearized),
				   TAPX_STAT(xdp_tx_errors)))
			return false;
		tapx_xdp_tx(tfile, xdp, bq, t);
		return false;
	case XDP_REDIRECT:
		if (!tapx_frame_ok(tapx, xdp, f))
			break;
		if (unlikely(xdp_buff_has_frags(xdp)) &&
		    tapx_linearize(tapx, xdp,
				   TAPX_STAT(xdp_redirect_linearized),
				   TAPX_STAT(xdp_redirect_errors)))
			return false;
		if (unlikely(xdp_do_redirect(tapx->dev, xdp, prog))) {
			tapx_stat_inc(tapx, TAPX_STAT(xdp_redirect_errors));
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
		tapx_xdp_drop(xdp, shared, t->refs);
		return false;
	}

	/* TX or REDIRECT of a frame whose vnet metadata cannot travel. */
	tapx_stat_inc(tapx, TAPX_STAT(xdp_gso_drops));
	tapx_xdp_drop(xdp, shared, t->refs);
	return false;
}

/*
 * After a call's last frame: XDP_TX's queueing and the counters; @one when
 * the call had one frame, whose tally needs three counter updates per set,
 * not seven (the write path's case: each update is a load and a store).
 */
static __always_inline void tapx_run_done(struct tapx_file *tfile,
					  struct tapx_dev *tapx,
					  struct tapx_tx_bulk *bq,
					  struct tapx_tally *t, bool one)
{
	if (t->verdict[TAPX_V_TX])
		tapx_tx_done(tfile, tapx, bq, t);
	if (t->rx_packets)
		tapx_tally_flush(tfile, tapx, t, one);
	if (unlikely(t->rx_errors))
		tapx_stat_add(tapx, TAPX_STAT(rx_errors), t->rx_errors);
}

/*
 * The loop of tapx_wframes_run() (tapx_xdp.c), which documents it; inlined
 * into it and into the write path's one frame (n = 1, the loop folds).
 */
static __always_inline bool __tapx_wframes_run(struct tapx_file *tfile,
					       struct tapx_dev *tapx,
					       struct tapx_wframe *f,
					       unsigned int n)
{
	struct tapx_tally t __uninitialized;
	struct tapx_tx_bulk bq __uninitialized;
	struct xdp_buff xdp __uninitialized;
	bool flush = false;
	unsigned int i;

	tapx_tally_init(&t);
	bq.n = 0;
	for (i = 0; i < n; i++) {
		if (unlikely(!f[i].buf)) {
			t.rx_errors++;
			continue;
		}
		tapx_wframe_xdp(tfile, &f[i], &xdp);
		f[i].buf = NULL;
		flush |= tapx_xdp_run(tfile, tapx, &xdp, &f[i], &bq, &t, false);
	}
	tapx_run_done(tfile, tapx, &bq, &t, n == 1);
	return flush;
}

#endif /* TAPX_XDP_H */
