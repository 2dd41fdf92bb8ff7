// SPDX-License-Identifier: GPL-2.0
/*
 * tapx PASS delivery. With napi=0 every skb built for XDP_PASS (or for a
 * frame written with no program) goes to netif_receive_skb() in the
 * writer's context, one at a time. With napi=1 the writer only appends it
 * to its file's queue; at the end of the write (or batch) the file's NAPI
 * instance is scheduled and, when the writer re-enables BH, its poll hands
 * the queued skbs to GRO in budget-sized batches. GRO then merges TCP
 * segments written back to back (within one batch, or across writes when
 * the device's gro_flush_timeout holds them).
 *
 * The mode is read when a file binds to a device, so a file never mixes
 * both (which could reorder its frames); the parameter may change at any
 * time and applies to files that bind afterwards. IFF_NAPI at TUNSETIFF
 * asks for NAPI on that device regardless.
 *
 * Default 0: a write() carries one frame, so each poll sees one skb and
 * NAPI only adds the queue, a softirq round and a GRO lookup to its way
 * (as tun's IFF_NAPI adds them to plain tun's). It also drops when
 * softirqs wait for ksoftirqd and the writer runs ahead (queue bound
 * below), where direct delivery makes the writer wait.
 * napi=1 pays off for TCP streams with gro_flush_timeout, and for batches.
 *
 * Lifetime: the queue is filled only by writers that saw the file attached
 * in their bound section (BH disabled), and drained by the poll.
 * tapx_napi_detach() runs after the detach's grace period, so nothing is
 * queued after it starts; it disables the instance (waiting for a running
 * poll, and for a grace period so that no ending poll can re-arm the GRO
 * flush timer), deletes it (which frees what GRO still holds) and frees
 * what is left. Detach happens before the device is freed (ndo_uninit),
 * so queued skbs never outlive skb->dev.
 */
#include <linux/if_tun.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>

#include "compat.h"
#include "tapx.h"

static bool tapx_napi_param;
module_param_named(napi, tapx_napi_param, bool, 0644);
MODULE_PARM_DESC(napi, "deliver passed frames through NAPI and GRO "
		       "(read when a file attaches; default 0)");

static int tapx_napi_poll(struct napi_struct *napi, int budget)
{
	struct tapx_file *tfile = container_of(napi, struct tapx_file, napi);
	struct sk_buff_head *q = &tfile->napi_queue;
	struct sk_buff_head batch;
	struct sk_buff *skb;
	int done = 0;

	/* One lock round trip per poll; writers append meanwhile. */
	__skb_queue_head_init(&batch);
	spin_lock(&q->lock);
	while (done < budget && (skb = __skb_dequeue(q))) {
		__skb_queue_tail(&batch, skb);
		done++;
	}
	spin_unlock(&q->lock);

	while ((skb = __skb_dequeue(&batch)))
		napi_gro_receive(napi, skb);

	/* A writer that queued after we looked set NAPI_STATE_MISSED. */
	if (done < budget)
		napi_complete_done(napi, done);
	return done;
}

/*
 * Called under rtnl before the file is published to writers. A device made
 * with IFF_NAPI (as tun's) uses NAPI whatever the parameter says.
 */
void tapx_napi_attach(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	tfile->napi_on = READ_ONCE(tapx_napi_param) || (tapx->flags & IFF_NAPI);
	if (!tfile->napi_on)
		return;
	skb_queue_head_init(&tfile->napi_queue);
	netif_napi_add(tapx->dev, &tfile->napi, tapx_napi_poll);
	napi_enable(&tfile->napi);
}

/*
 * Called under rtnl once no writer can reach the file (after the grace
 * period).
 */
void tapx_napi_detach(struct tapx_file *tfile)
{
	if (!tfile->napi_on)
		return;
	napi_disable(&tfile->napi);
	/*
	 * napi_complete_done() arms the GRO flush timer (gro_flush_timeout)
	 * only after it has let go of the instance: a poll ending on another
	 * CPU can arm it just after napi_disable() cancelled it, and the timer
	 * would then fire in a freed file. Polls run with BH disabled (softirq,
	 * threaded NAPI, busy polling), so after a grace period none is left
	 * and the timer, if armed, is cancelled for good.
	 */
	synchronize_net();
	hrtimer_cancel(&tfile->napi.timer);
	netif_napi_del(&tfile->napi);
	skb_queue_purge(&tfile->napi_queue);
	tfile->napi_on = false;
}

/*
 * Delivers one passed skb (eth_type_trans and vnet metadata already
 * applied). Called in a bound section, with the file attached.
 */
void tapx_napi_receive(struct tapx_file *tfile, struct sk_buff *skb)
{
	struct sk_buff_head *q = &tfile->napi_queue;

	if (!tfile->napi_on) {
		netif_receive_skb(skb);
		return;
	}

	/*
	 * The poll runs when this writer re-enables BH, but softirq work may
	 * be deferred to ksoftirqd while the writer keeps writing: bound the
	 * queue as the stack bounds its backlog (netdev_max_backlog, >= one
	 * batch), counting drops in rx_dropped.
	 */
	spin_lock(&q->lock);
	if (unlikely(skb_queue_len(q) >= tapx_max_backlog())) {
		spin_unlock(&q->lock);
		tapx_stat_inc(netdev_priv(skb->dev), TAPX_STAT(rx_dropped));
		kfree_skb(skb);
		return;
	}
	__skb_queue_tail(q, skb);
	spin_unlock(&q->lock);
}
