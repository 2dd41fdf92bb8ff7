/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The headers in front of a written frame (tapx_parse.c): the PI header
 * (without IFF_NO_PI) and the vnet header (IFF_VNET_HDR), read and checked
 * before the frame is copied. The Ethernet frame's parse and its copy are
 * inlined from here into write() and TAPXSUBMIT's loop, which run them for
 * every frame.
 */
#ifndef TAPX_PARSE_H
#define TAPX_PARSE_H

#include <linux/if_tun.h>
#include <linux/uio.h>

#include "tapx.h"

/* tapx_parse.c */
int tapx_parse_vnet(unsigned int flags, unsigned int vnet_hdr_sz,
		    struct tapx_wframe *f);
int tapx_vnet_to_skb(struct sk_buff *skb, const struct tapx_wframe *f, bool le,
		     unsigned int nh);
int tapx_parse_meta(const struct tapx_write_cfg *cfg, struct iov_iter *from,
		    struct tapx_wframe *f);
int tapx_parse_l3(const struct tapx_write_cfg *cfg, struct iov_iter *from,
		  struct tapx_wframe *f, __be16 *proto);

/*
 * A vnet header with no flags, no GSO type and no hdr_len: nothing for
 * tapx_parse_vnet() to refuse (GSO_NONE, no checksum to place) and no
 * metadata to apply, so the frame needs neither the header nor the call.
 * The three fields are the header's first four bytes, read as one word.
 */
static __always_inline bool tapx_vnet_plain(const struct virtio_net_hdr *h)
{
	u32 w;

	BUILD_BUG_ON(offsetof(struct virtio_net_hdr, hdr_len) != 2);
	memcpy(&w, h, sizeof(w));
	return !w;
}

/*
 * A header of @sz bytes asks for GSO over a UDP tunnel and holds the
 * offsets of one (compat.h): tapx_parse_vnet() refuses the GSO type from a
 * smaller header, as tun does.
 */
static __always_inline bool tapx_vnet_has_tnl(const struct virtio_net_hdr *h,
					      unsigned int sz)
{
	return TAPX_HAVE_UDP_TUNNEL &&
	       unlikely(h->gso_type & TAPX_GSO_UDP_TUNNEL) &&
	       sz >= TAPX_VNET_TNL_SIZE;
}

/*
 * Reads the PI and vnet headers that precede the frame (the PI's protocol
 * into *proto) and sets f->len to what is left.
 */
static __always_inline int tapx_parse_hdrs(const struct tapx_write_cfg *cfg,
					   struct iov_iter *from,
					   struct tapx_wframe *f, __be16 *proto)
{
	size_t len = iov_iter_count(from);

	f->has_vnet = false;
	if (!(cfg->flags & IFF_NO_PI)) {
		struct tun_pi pi;

		if (len < sizeof(pi))
			return -EINVAL;
		if (!copy_from_iter_full(&pi, sizeof(pi), from))
			return -EFAULT;
		len -= sizeof(pi);
		*proto = pi.proto;
	}

	if (cfg->flags & IFF_VNET_HDR) {
		unsigned int sz = cfg->vnet_hdr_sz;

		if (len < sz)
			return -EINVAL;
		if (!copy_from_iter_full(&f->vnet, sizeof(f->vnet), from))
			return -EFAULT;
		if (tapx_vnet_has_tnl(&f->vnet, sz)) {
			iov_iter_advance(from,
					 TAPX_VNET_TNL_OFF - sizeof(f->vnet));
			if (!copy_from_iter_full(&f->tnl, sizeof(f->tnl), from))
				return -EFAULT;
			iov_iter_advance(from, sz - TAPX_VNET_TNL_OFF -
						       sizeof(f->tnl));
		} else {
			iov_iter_advance(from, sz - sizeof(f->vnet));
		}
		f->len = len - sz;
		return tapx_parse_vnet(cfg->flags, sz, f);
	}
	f->len = len;
	return 0;
}

/*
 * The headers of an Ethernet frame (IFF_TAP); the write path's own copy,
 * inlined. -EINVAL: malformed; -EFAULT.
 */
static __always_inline int __tapx_parse_meta(const struct tapx_write_cfg *cfg,
					     struct iov_iter *from,
					     struct tapx_wframe *f)
{
	__be16 proto;
	int err;

	err = tapx_parse_hdrs(cfg, from, f, &proto);
	if (err)
		return err;
	if (f->len < TAPX_MIN_FRAME || f->len > TAPX_MAX_FRAME)
		return -EINVAL;
	return 0;
}

/*
 * Parses one written frame's headers and copies it; f->buf is NULL unless 0
 * is returned. May sleep (page faults, allocation) and touches no device:
 * @cfg was read under RCU before. -EINVAL: malformed; -EFAULT, -ENOMEM. The
 * caller counts them, on the device it finds afterwards.
 */
static __always_inline int tapx_wframe_copy(const struct tapx_write_cfg *cfg,
					    struct iov_iter *from,
					    struct tapx_wframe *f)
{
	int err;

	f->buf = NULL;
	err = tapx_parse_meta(cfg, from, f);
	if (unlikely(err))
		return err;
	return tapx_fill(from, f);
}

#endif /* TAPX_PARSE_H */
