// SPDX-License-Identifier: GPL-2.0
/*
 * tapx write path, first stage: write()/writev()/io_uring writes enter here.
 * The PI and vnet headers in front of a frame are read and checked, the
 * frame is copied once into buffers with XDP headroom (tapx_buf.c) and
 * handed to XDP (tapx_xdp.c), which decides what becomes of it.
 *
 * TAPXSUBMIT (tapx_batch.c) uses the same parsing and copy for each frame;
 * tapx_wframe_copy() is inlined into both callers (tapx.h).
 */
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/uio.h>
#include <linux/virtio_net.h>

#include "compat.h"
#include "tapx.h"

/* Validates the vnet header the way a virtio device would see it. */
int tapx_check_vnet(struct tapx_dev *tapx, struct virtio_net_hdr *h, size_t len)
{
	bool le = tapx_vnet_le(tapx);
	u16 hdr_len = __virtio16_to_cpu(le, h->hdr_len);
	u16 start = __virtio16_to_cpu(le, h->csum_start);
	u16 off = __virtio16_to_cpu(le, h->csum_offset);

	if (h->flags &
	    ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return -EINVAL;

	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if ((size_t)start + off + 2 > len)
			return -EINVAL;
		if (start + off + 2 > hdr_len)
			hdr_len = start + off + 2;
		h->hdr_len = __cpu_to_virtio16(le, hdr_len);
	}
	if (hdr_len > len)
		return -EINVAL;

	switch (h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		if (h->gso_type & VIRTIO_NET_HDR_GSO_ECN)
			return -EINVAL;
		break;
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
		if (!h->gso_size)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* Reads the PI and vnet headers that precede the frame. */
int tapx_parse_meta(struct tapx_dev *tapx, struct iov_iter *from,
		    struct tapx_wframe *f)
{
	size_t len = iov_iter_count(from);
	int err;

	f->has_vnet = false;
	if (!(tapx->flags & IFF_NO_PI)) {
		struct tun_pi pi;

		if (len < sizeof(pi))
			return -EINVAL;
		if (!copy_from_iter_full(&pi, sizeof(pi), from))
			return -EFAULT;
		len -= sizeof(pi);
	}

	if (tapx->flags & IFF_VNET_HDR) {
		int sz = READ_ONCE(tapx->vnet_hdr_sz);

		if (len < sz)
			return -EINVAL;
		if (!copy_from_iter_full(&f->vnet, sizeof(f->vnet), from))
			return -EFAULT;
		iov_iter_advance(from, sz - sizeof(f->vnet));
		len -= sz;
		err = tapx_check_vnet(tapx, &f->vnet, len);
		if (err)
			return err;
		f->has_vnet = f->vnet.flags || f->vnet.gso_type;
	}

	if (len < TAPX_MIN_FRAME || len > TAPX_MAX_FRAME)
		return -EINVAL;
	f->len = len;
	return 0;
}

ssize_t tapx_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct tapx_file *tfile = iocb->ki_filp->private_data;
	size_t total = iov_iter_count(from);
	struct tapx_xdp_section xs;
	struct tapx_wframe f;
	struct tapx_dev *tapx;
	ssize_t ret;

	/*
	 * A device reference, not a lock, keeps the device while we copy: the
	 * copy may wait on a page fault for as long as userspace likes, and
	 * detach (under rtnl) must not wait for it.
	 */
	tapx = tapx_get(tfile);
	if (!tapx)
		return -EBADFD;

	mutex_lock(&tfile->write_lock);
	ret = tapx_wframe_copy(tfile, tapx, from, &f);
	if (ret) {
		if (ret != -EINVAL)
			tapx_stat_inc(tapx, TAPX_RX_DROPPED);
		goto unlock;
	}

	tapx_xdp_section_enter(&xs);
	rcu_read_lock();
	/* Detached while we copied: the ring may be purged already. */
	if (unlikely(rcu_access_pointer(tfile->tapx) != tapx)) {
		tapx_wframe_drop(tfile, &f);
		ret = -EBADFD;
	} else {
		if (tapx_wframes_run(tfile, tapx, &f, 1))
			xdp_do_flush();
		tapx_napi_flush(tfile);
		ret = total;
	}
	rcu_read_unlock();
	tapx_xdp_section_exit(&xs);
unlock:
	mutex_unlock(&tfile->write_lock);
	dev_put(tapx->dev);
	return ret;
}
