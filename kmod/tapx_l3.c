// SPDX-License-Identifier: GPL-2.0
/*
 * tapx L3 devices (IFF_TUN): what a VPN daemon writes is an IP packet,
 * behind a PI header (without IFF_NO_PI) and a vnet header (IFF_VNET_HDR).
 * As in tun, an L3 device has no XDP: each packet is copied into an skb
 * here and handed to the stack (or to the queue's NAPI with IFF_NAPI).
 * The read side is the tap one (tapx_ring.c): the stack's skbs start at the
 * IP header, and the PI carries skb->protocol.
 *
 * Same rules as tapx_write_slow(): what the write needs of the device is
 * read under RCU first, the copy may sleep and touches no device, and the
 * bound section looks the binding up again before the skb meets the device.
 */
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>

#include "tapx.h"
#include "tapx_parse.h"

/* Bytes of a packet in the skb's head; the rest goes in page fragments. */
#define TAPX_L3_HEAD SKB_MAX_HEAD(NET_SKB_PAD)

/* An skb for @len bytes, at least @hdr_len (the vnet header's) linear. */
static struct sk_buff *tapx_l3_alloc(size_t len, size_t hdr_len, int *err)
{
	size_t head = len;
	struct sk_buff *skb;

	if (head > TAPX_L3_HEAD)
		head = max_t(size_t, hdr_len, TAPX_L3_HEAD);
	skb = alloc_skb_with_frags(NET_SKB_PAD + head, len - head,
				   PAGE_ALLOC_COSTLY_ORDER, err, GFP_KERNEL);
	if (!skb)
		return NULL;
	skb_reserve(skb, NET_SKB_PAD);
	skb_put(skb, head);
	skb->data_len = len - head;
	skb->len += len - head;
	return skb;
}

/* With IFF_NO_PI the protocol is the IP version's; 0 if it is neither. */
static __be16 tapx_l3_proto(const struct sk_buff *skb)
{
	if (!skb_headlen(skb))
		return 0;
	switch (skb->data[0] >> 4) {
	case 4:
		return htons(ETH_P_IP);
	case 6:
		return htons(ETH_P_IPV6);
	}
	return 0;
}

/*
 * Parses the headers and copies the packet into a new skb, typed by its
 * protocol; may sleep. The vnet header, in @f, is applied in the bound
 * section (tapx_l3_deliver()). -EINVAL: malformed; -EFAULT; -ENOBUFS and
 * the like from the allocation.
 */
static int tapx_l3_build(const struct tapx_write_cfg *cfg,
			 struct iov_iter *from, struct tapx_wframe *f,
			 struct sk_buff **skbp)
{
	bool le = tapx_flags_vnet_le(cfg->flags);
	struct sk_buff *skb;
	__be16 proto = 0;
	size_t hdr_len;
	int err;

	err = tapx_parse_l3(cfg, from, f, &proto);
	if (err)
		return err;
	hdr_len = f->has_vnet ? __virtio16_to_cpu(le, f->vnet.hdr_len) : 0;
	skb = tapx_l3_alloc(f->len, hdr_len, &err);
	if (!skb)
		return err;
	err = -EFAULT;
	if (skb_copy_datagram_from_iter(skb, 0, from, f->len))
		goto err_free;

	if (cfg->flags & IFF_NO_PI)
		proto = tapx_l3_proto(skb);
	err = -EINVAL;
	if (!proto && (cfg->flags & IFF_NO_PI))
		goto err_free;
	skb->protocol = proto;
	*skbp = skb;
	return 0;

err_free:
	kfree_skb(skb);
	return err;
}

/*
 * The built packet meets its device: skb->dev first, then the vnet header
 * as tun applies it (a GSO header without a partial checksum has its
 * protocol probed through the device's header ops where the kernel probes,
 * compat.h), then the headers the stack reads. -EINVAL (the skb freed):
 * the vnet metadata does not fit the packet. In the bound section.
 */
static int tapx_l3_deliver(struct tapx_dev *tapx,
			   const struct tapx_write_cfg *cfg,
			   const struct tapx_wframe *f, struct sk_buff *skb)
{
	skb->dev = tapx->dev;
	if (f->has_vnet &&
	    tapx_vnet_to_skb(skb, f, tapx_flags_vnet_le(cfg->flags), 0)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_reset_mac_header(skb);
	skb_reset_network_header(skb);
	skb_probe_transport_header(skb);
	return 0;
}

/* Counts a packet the stack gets; in the bound section. */
static void tapx_l3_count(struct tapx_file *tfile, struct tapx_dev *tapx,
			  unsigned int len)
{
	struct tapx_pcpu_stats *st = this_cpu_ptr(tapx->stats);
	struct tapx_pcpu_qstats *q = this_cpu_ptr(tfile->qstats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_inc(&st->rx_packets);
	u64_stats_add(&st->rx_bytes, len);
	u64_stats_update_end(&st->syncp);

	u64_stats_update_begin(&q->syncp);
	u64_stats_inc(&q->rx_packets);
	u64_stats_add(&q->rx_bytes, len);
	u64_stats_update_end(&q->syncp);
}

/* write() on an IFF_TUN device, from tapx_write_slow(). */
ssize_t tapx_l3_write(struct tapx_file *tfile, struct tapx_dev *tapx,
		      const struct tapx_write_cfg *cfg, struct iov_iter *from)
{
	size_t total = iov_iter_count(from);
	struct tapx_xdp_section xs __uninitialized;
	struct sk_buff *skb = NULL;
	struct tapx_wframe f;
	struct tapx_dev *now;
	ssize_t ret = total;
	int err;

	err = tapx_l3_build(cfg, from, &f, &skb);

	now = tapx_bound_begin(&xs, tfile);
	if (likely(!err) && unlikely(now != tapx)) {
		/* Detached or deleted while we copied. */
		kfree_skb(skb);
		ret = -EBADFD;
	} else {
		if (likely(!err))
			err = tapx_l3_deliver(now, cfg, &f, skb);
		if (unlikely(err)) {
			if (now == tapx)
				tapx_write_failed(now, err);
			ret = err;
		} else {
			skb_record_rx_queue(skb, tfile->queue_index);
			tapx_l3_count(tfile, now, skb->len);
			tapx_napi_receive(tfile, skb);
		}
	}
	tapx_bound_end(&xs, tfile, now, false);
	return ret;
}
