// SPDX-License-Identifier: GPL-2.0
/*
 * tapx write path, the headers in front of a frame: what write(),
 * TAPXSUBMIT and vhost-net's batches write before the frame (a PI header,
 * a vnet header), read and checked the way a virtio device would see them.
 * The per-frame half for Ethernet frames is inlined from tapx_parse.h.
 */
#include <linux/if_tun.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>

#include "tapx.h"
#include "tapx_parse.h"

/*
 * A UDP-tunnel GSO header (6.17 on), refused as tun refuses it before it
 * looks at the frame (virtio_net_hdr_tnl_to_skb()): from a header too
 * small for its offsets, with both outer IP versions, around no GSO or
 * UFO, without NEEDS_CSUM, or with offsets out of order (outer transport
 * header past an Ethernet and IP header, inner network header past the
 * outer UDP header, inner transport header, csum_start, past an inner IP
 * header). The rest is checked against the frame when its skb is built.
 */
static int tapx_check_vnet_tnl(const struct virtio_net_hdr *h,
			       const struct tapx_vnet_tnl *tnl,
			       unsigned int vnet_hdr_sz, bool le)
{
	u8 tunnel = h->gso_type & TAPX_GSO_UDP_TUNNEL;
	u8 inner = h->gso_type & ~(TAPX_GSO_UDP_TUNNEL | VIRTIO_NET_HDR_GSO_ECN);
	unsigned int outer_th, inner_nh, inner_th, outer_l3, inner_l3;

	/* Without the offsets (a smaller header) tnl was not read. */
	if (!TAPX_HAVE_UDP_TUNNEL || vnet_hdr_sz < TAPX_VNET_TNL_SIZE ||
	    tunnel == TAPX_GSO_UDP_TUNNEL ||
	    inner == VIRTIO_NET_HDR_GSO_NONE || inner == VIRTIO_NET_HDR_GSO_UDP ||
	    !(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return -EINVAL;
	outer_th = le16_to_cpu(tnl->outer_th);
	inner_nh = le16_to_cpu(tnl->inner_nh);
	inner_th = __virtio16_to_cpu(le, h->csum_start);
	outer_l3 = tunnel == TAPX_GSO_UDP_TUNNEL_IPV6 ? sizeof(struct ipv6hdr) :
						       sizeof(struct iphdr);
	inner_l3 = inner == VIRTIO_NET_HDR_GSO_TCPV6 ? sizeof(struct ipv6hdr) :
						      sizeof(struct iphdr);
	if (outer_th < ETH_HLEN + outer_l3 ||
	    inner_nh < outer_th + sizeof(struct udphdr) ||
	    inner_th < inner_nh + inner_l3)
		return -EINVAL;
	return 0;
}

/* Validates the vnet header the way a virtio device would see it. */
static int tapx_check_vnet(unsigned int flags, unsigned int vnet_hdr_sz,
			   struct virtio_net_hdr *h,
			   const struct tapx_vnet_tnl *tnl, size_t len)
{
	bool le = tapx_flags_vnet_le(flags);
	u16 hdr_len = __virtio16_to_cpu(le, h->hdr_len);
	u16 start = __virtio16_to_cpu(le, h->csum_start);
	u16 off = __virtio16_to_cpu(le, h->csum_offset);
	u8 gso_type = h->gso_type;
	u8 known = VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID;

	if (unlikely(gso_type & TAPX_GSO_UDP_TUNNEL)) {
		if (tapx_check_vnet_tnl(h, tnl, vnet_hdr_sz, le))
			return -EINVAL;
		/* The outer UDP checksum: only with a tunnel to put it in. */
		known |= TAPX_VNET_F_UDP_TUNNEL_CSUM;
		gso_type &= ~TAPX_GSO_UDP_TUNNEL;
	}
	if (h->flags & ~known)
		return -EINVAL;

	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if ((size_t)start + off + TAPX_CSUM_LEN > len)
			return -EINVAL;
		if (start + off + TAPX_CSUM_LEN > hdr_len)
			hdr_len = start + off + TAPX_CSUM_LEN;
		h->hdr_len = __cpu_to_virtio16(le, hdr_len);
	}
	if (hdr_len > len)
		return -EINVAL;

	switch (gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
		if (!h->gso_size)
			return -EINVAL;
		break;
	case TAPX_GSO_UDP_L4:
		/* USO, where the kernel has it (6.2); 6.1's tun refuses it. */
		if (!TAPX_HAVE_USO || !h->gso_size)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/**
 * tapx_parse_vnet - check a frame's vnet header
 * @flags: the device's flags (the header's byte order)
 * @vnet_hdr_sz: the device's vnet header size (whether it holds a UDP
 *               tunnel's offsets)
 * @f: the frame, f->vnet read (and f->tnl, where tapx_vnet_has_tnl()) and
 *     f->len set to the bytes after the header
 *
 * Sets f->has_vnet when the header carries metadata (checksum, GSO) to
 * apply. Returns 0, or -EINVAL for a header a virtio device would refuse.
 * Every writer's vnet header goes through here: write(), TAPXSUBMIT and
 * vhost-net's batches.
 */
int tapx_parse_vnet(unsigned int flags, unsigned int vnet_hdr_sz,
		    struct tapx_wframe *f)
{
	int err;

	err = tapx_check_vnet(flags, vnet_hdr_sz, &f->vnet, &f->tnl, f->len);
	if (err)
		return err;
	f->has_vnet = f->vnet.flags || f->vnet.gso_type;
	return 0;
}

/**
 * tapx_vnet_to_skb - apply a written frame's vnet header to its skb
 * @skb: the frame from its first byte, skb->dev set: the protocol probe of
 *       a GSO frame without NEEDS_CSUM asks the device's header ops
 * @f: the frame, its header (and UDP-tunnel offsets) as tapx_parse_vnet()
 *     passed them
 * @le: the header's byte order
 * @nh: the network header's offset (ETH_HLEN on a tap, 0 on an L3 device)
 *
 * Where the kernel's tun sets the network header first, so does this
 * (compat.h, TAPX_VNET_AFTER_NH). Returns 0, or -EINVAL for metadata that
 * does not fit the frame. Called in the writer's bound section (BH
 * disabled): its pulls allocate atomically.
 */
int tapx_vnet_to_skb(struct sk_buff *skb, const struct tapx_wframe *f, bool le,
		     unsigned int nh)
{
	if (TAPX_VNET_AFTER_NH)
		skb_set_network_header(skb, nh);
	if (unlikely(f->vnet.gso_type & TAPX_GSO_UDP_TUNNEL))
		return tapx_vnet_tnl_to_skb(skb, &f->vnet, &f->tnl, le);
	return virtio_net_hdr_to_skb(skb, &f->vnet, le) ? -EINVAL : 0;
}

/* For the copies that may sleep (tapx_wframe_copy()). */
int tapx_parse_meta(const struct tapx_write_cfg *cfg, struct iov_iter *from,
		    struct tapx_wframe *f)
{
	return __tapx_parse_meta(cfg, from, f);
}

/*
 * The headers of an IP packet (IFF_TUN): no minimum length, as in tun;
 * *proto is the PI's, left alone with IFF_NO_PI.
 */
int tapx_parse_l3(const struct tapx_write_cfg *cfg, struct iov_iter *from,
		  struct tapx_wframe *f, __be16 *proto)
{
	int err;

	err = tapx_parse_hdrs(cfg, from, f, proto);
	if (!err && f->len > TAPX_MAX_FRAME)
		err = -EINVAL;
	return err;
}
