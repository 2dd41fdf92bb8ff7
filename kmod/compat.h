/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - what differs between the kernels tapx builds for: Debian's 6.1
 * and 6.12, forky's 7.2 and trixie-backports' 7.3, and the releases between
 * them (Ubuntu's 6.8 takes the 6.3 shim and none of the later ones). Each
 * shim names the release that made the change, and tests the feature itself
 * where the headers give a way to; code outside this file has no
 * LINUX_VERSION_CODE checks.
 */
#ifndef TAPX_COMPAT_H
#define TAPX_COMPAT_H

#include <linux/version.h>
#include <linux/filter.h>
#include <linux/gfp.h>
#include <linux/if_tun.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/virtio_net.h>
#include <net/xdp.h>

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/* 6.9: netdev_max_backlog moved into net_hotdata. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
#include <net/hotdata.h>
#define tapx_max_backlog() READ_ONCE(net_hotdata.max_backlog)
#else
#define tapx_max_backlog() READ_ONCE(netdev_max_backlog)
#endif

/*
 * 6.9: page_frag_cache_drain() frees what a page_frag_cache holds. Before
 * it, a user drains the cache's current page through the cache's own
 * fields (which 6.13 encodes differently, behind that function).
 */
static inline void tapx_page_frag_cache_drain(struct page_frag_cache *nc)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	page_frag_cache_drain(nc);
#else
	if (nc->va)
		__page_frag_cache_drain(virt_to_head_page(nc->va),
					nc->pagecnt_bias);
	nc->va = NULL;
#endif
}

/* 6.12: NETIF_F_LLTX became the private flag dev->lltx. */
static inline void tapx_set_lltx(struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	dev->lltx = true;
#else
	dev->features |= NETIF_F_LLTX;
#endif
}

/* 6.3: a redirect target must say what it can do (xdp_features), or
 * devmap refuses every frame sent to it with -EOPNOTSUPP. No NDO_XMIT_SG:
 * tapx linearizes multi-buffer frames before they are redirected, so none
 * arrive, as on 6.1, whose devmap has no multi-buffer transmit at all.
 */
static inline void tapx_set_xdp_features(struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	dev->xdp_features = NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT |
			    NETDEV_XDP_ACT_NDO_XMIT | NETDEV_XDP_ACT_RX_SG;
#endif
}

/* L3 devices (IFF_TUN) have no XDP: nothing to advertise. */
static inline void tapx_clear_xdp_features(struct net_device *dev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	dev->xdp_features = 0;
#endif
}

/*
 * The section a write runs its XDP programs in: BH off, and since 6.11
 * current->bpf_net_context set, which holds the redirect state and the
 * flush lists that NAPI's softirq provides for drivers' receive paths.
 * Without it the first XDP_REDIRECT outside NAPI dereferences NULL.
 * Callers declare it __uninitialized: bpf_net_ctx_set() clears the one
 * field the rest is initialized by on first use, and Debian's
 * INIT_STACK_ALL_ZERO would clear all of it on every write() instead.
 */
struct tapx_xdp_section {
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	struct bpf_net_context ctx;
	struct bpf_net_context *set;
#endif
};

static inline void tapx_xdp_section_enter(struct tapx_xdp_section *s)
{
	local_bh_disable();
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	s->set = bpf_net_ctx_set(&s->ctx);
#endif
}

static inline void tapx_xdp_section_exit(struct tapx_xdp_section *s)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
	bpf_net_ctx_clear(s->set);
#endif
	local_bh_enable();
}

/*
 * 6.2: UDP segmentation offload from and to userspace (TUN_F_USO4/6,
 * VIRTIO_NET_HDR_GSO_UDP_L4 in virtio_net_hdr_to_skb()). Before it, tun
 * refuses both and so does tapx.
 */
#ifdef TUN_F_USO4
#define TAPX_HAVE_USO 1
#define TAPX_F_USO NETIF_F_GSO_UDP_L4
#define TAPX_GSO_UDP_L4 VIRTIO_NET_HDR_GSO_UDP_L4
#define TAPX_TUN_F_USO (TUN_F_USO4 | TUN_F_USO6)
#else
#define TAPX_HAVE_USO 0
#define TAPX_F_USO 0
#define TAPX_GSO_UDP_L4 5 /* virtio's number, refused here */
#define TAPX_TUN_F_USO 0
#endif

/*
 * 7.3: IFF_BACKPRESSURE, a TUNSETIFF flag that stops a tx queue whose
 * reader ring is full instead of dropping (tapx_ring.c). Offered only
 * where the kernel's tun offers it, so that TUNGETFEATURES agrees.
 */
#ifdef IFF_BACKPRESSURE
#define TAPX_IFF_BACKPRESSURE IFF_BACKPRESSURE
#else
#define TAPX_IFF_BACKPRESSURE 0
#endif

/*
 * 6.17 (GSO over UDP tunnels, which came with TUN_F_UDP_TUNNEL_GSO): tun
 * sets a written frame's network header before it applies the vnet
 * header, and virtio_net_hdr_to_skb() probes a GSO frame without
 * NEEDS_CSUM for its protocol from that header and skb->dev's header ops.
 * Before, tun set the network header afterwards and the probe ran only on
 * an skb that had one. tapx does as the kernel's tun (tapx_vnet_to_skb()).
 */
#ifdef TUN_F_UDP_TUNNEL_GSO
#define TAPX_VNET_AFTER_NH 1
#else
#define TAPX_VNET_AFTER_NH 0
#endif

/*
 * 6.17: GSO over UDP tunnels to and from userspace (TUN_F_UDP_TUNNEL_GSO,
 * _CSUM). A vnet header of sizeof(struct virtio_net_hdr_v1_hash_tunnel)
 * carries the outer transport and the inner network header's offsets of
 * a frame whose gso_type has VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 or _IPV6;
 * tun takes such frames from a header that large (whatever TUNSETOFFLOAD
 * said: that is what the reader accepts) and writes them for a reader
 * whose device has the offload. Before, tun refuses the offloads and the
 * GSO types, and so does tapx (virtio's numbers, for the refusals).
 */
struct tapx_vnet_tnl {
	__le16 outer_th;
	__le16 inner_nh;
};

#ifdef TUN_F_UDP_TUNNEL_GSO
#define TAPX_HAVE_UDP_TUNNEL 1
#define TAPX_F_UDP_TUNNEL (NETIF_F_GSO_UDP_TUNNEL | NETIF_F_GSO_UDP_TUNNEL_CSUM)
#define TAPX_TUN_F_UDP_TUNNEL_GSO TUN_F_UDP_TUNNEL_GSO
#define TAPX_TUN_F_UDP_TUNNEL_GSO_CSUM TUN_F_UDP_TUNNEL_GSO_CSUM
#define TAPX_VNET_F_UDP_TUNNEL_CSUM VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM
#define TAPX_VNET_TNL_SIZE sizeof(struct virtio_net_hdr_v1_hash_tunnel)
#define TAPX_VNET_TNL_OFF                                                      \
	offsetof(struct virtio_net_hdr_v1_hash_tunnel, outer_th_offset)
#else
#define TAPX_HAVE_UDP_TUNNEL 0
#define TAPX_F_UDP_TUNNEL 0
#define TAPX_TUN_F_UDP_TUNNEL_GSO 0
#define TAPX_TUN_F_UDP_TUNNEL_GSO_CSUM 0
#define TAPX_VNET_F_UDP_TUNNEL_CSUM 0
#define TAPX_VNET_TNL_SIZE 24
#define TAPX_VNET_TNL_OFF 20
#endif
#define TAPX_GSO_UDP_TUNNEL_IPV4 0x20
#define TAPX_GSO_UDP_TUNNEL_IPV6 0x40
#define TAPX_GSO_UDP_TUNNEL (TAPX_GSO_UDP_TUNNEL_IPV4 | TAPX_GSO_UDP_TUNNEL_IPV6)

/*
 * A UDP-tunnel GSO header applied to its skb as tun applies it: the checks
 * of the frame and the inner and outer headers are the kernel's own. The
 * header was checked against the header size before (tapx_parse.c), so
 * both offloads count as negotiated, as tun's guess from that size does.
 */
static inline int tapx_vnet_tnl_to_skb(struct sk_buff *skb,
				       const struct virtio_net_hdr *vnet,
				       const struct tapx_vnet_tnl *tnl, bool le)
{
#if TAPX_HAVE_UDP_TUNNEL
	struct virtio_net_hdr_v1_hash_tunnel h = {};

	memcpy(&h, vnet, sizeof(*vnet));
	h.outer_th_offset = tnl->outer_th;
	h.inner_nh_offset = tnl->inner_nh;
	return virtio_net_hdr_tnl_to_skb(skb, &h, true, true, le) ? -EINVAL : 0;
#else
	return -EINVAL;
#endif
}

/*
 * An skb's vnet header for the reader, as tun's read() makes it: a
 * UDP-tunnel GSO skb's with its offsets where the device has the offload
 * (@tnl), else none (-EINVAL). @h holds TAPX_VNET_TNL_SIZE zeroed bytes.
 */
static inline int tapx_vnet_from_skb(const struct sk_buff *skb, void *h,
				     bool le, bool tnl)
{
#if TAPX_HAVE_UDP_TUNNEL
	return virtio_net_hdr_tnl_from_skb(skb, h, tnl, le, 0, true, false);
#else
	return virtio_net_hdr_from_skb(skb, h, le, true, 0);
#endif
}

/*
 * 6.14: an xdp_frame keeps only its memory type (mem_type), no longer the
 * whole xdp_mem_info (mem.type, mem.id).
 */
static inline enum xdp_mem_type tapx_frame_mem_type(const struct xdp_frame *frame)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 14, 0)
	return frame->mem_type;
#else
	return frame->mem.type;
#endif
}

/*
 * 6.18: xdp_update_skb_shared_info() became xdp_update_skb_frags_info(),
 * which takes the buffer's flags instead of its pfmemalloc bit.
 */
static inline void tapx_skb_set_frags(struct sk_buff *skb, u8 nr_frags,
				      unsigned int size, unsigned int truesize)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
	xdp_update_skb_frags_info(skb, nr_frags, size, truesize, 0);
#else
	xdp_update_skb_shared_info(skb, nr_frags, size, truesize, false);
#endif
}

/*
 * 6.17: vhost-net's batch buffers lost struct tun_xdp_hdr. The vnet header
 * is at data_hard_start either way; the buffer's length moved from the
 * header's buflen into the xdp_buff's frame_sz, which vhost sets itself.
 */
static inline struct virtio_net_hdr *tapx_vhost_vnet(const struct xdp_buff *xdp)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	return xdp->data_hard_start;
#else
	return &((struct tun_xdp_hdr *)xdp->data_hard_start)->gso;
#endif
}

static inline unsigned int tapx_vhost_buflen(const struct xdp_buff *xdp)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	return xdp->frame_sz;
#else
	return ((struct tun_xdp_hdr *)xdp->data_hard_start)->buflen;
#endif
}

/*
 * SIOCSIFHWADDR and SIOCGIFHWADDR on the fd, as tun does them. 6.16:
 * dev_set_mac_address_user() takes a sockaddr_storage; the ifreq's
 * sockaddr is enough for every address a tap has (ETH_ALEN), as tun
 * checks before it casts. 6.17: dev_get_mac_address() became
 * netif_get_mac_address(), in the NETDEV_INTERNAL namespace (tapx_main.c
 * imports it).
 */
static inline int tapx_set_mac_address_user(struct net_device *dev,
					    struct sockaddr *sa)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
	if (dev->addr_len > sizeof(*sa))
		return -EINVAL;
	return dev_set_mac_address_user(dev, (struct sockaddr_storage *)sa, NULL);
#else
	return dev_set_mac_address_user(dev, sa, NULL);
#endif
}

static inline int tapx_get_mac_address(struct net_device *dev,
				       struct sockaddr *sa)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	return netif_get_mac_address(sa, dev_net(dev), dev->name);
#else
	return dev_get_mac_address(sa, dev_net(dev), dev->name);
#endif
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
#define TAPX_IMPORT_NETDEV_INTERNAL() MODULE_IMPORT_NS("NETDEV_INTERNAL")
#else
#define TAPX_IMPORT_NETDEV_INTERNAL()
#endif

#endif /* TAPX_COMPAT_H */
