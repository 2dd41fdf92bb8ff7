/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * tap_key.bpf.h - the network namespace of the device a frame arrived on.
 *
 * XDP gives a program the ifindex, which repeats across namespaces, and no
 * helper for the namespace: the program follows xdp_buff -> rxq -> dev ->
 * nd_net -> net_cookie itself (the cookie is what SO_NETNS_COOKIE reports
 * to user space). tc programs follow sk_buff -> dev, devmap egress
 * programs xdp_buff -> txq -> dev, the same way. From Linux 6.3 bpf_cast_to_kern_ctx makes that four
 * plain loads; before it, TA_COMPAT builds read them with
 * bpf_probe_read_kernel, a helper call each. The field offsets come from
 * the running kernel's BTF (CO-RE), not from headers.
 */
#ifndef TA_TAP_KEY_BPF_H
#define TA_TAP_KEY_BPF_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

struct net___ta {
	__u64 net_cookie;
} __attribute__((preserve_access_index));

struct net_device___ta {
	struct {
		struct net___ta *net;
	} nd_net;
} __attribute__((preserve_access_index));

struct xdp_rxq_info___ta {
	struct net_device___ta *dev;
} __attribute__((preserve_access_index));

struct xdp_txq_info___ta {
	struct net_device___ta *dev;
} __attribute__((preserve_access_index));

struct xdp_buff___ta {
	struct xdp_rxq_info___ta *rxq;
	struct xdp_txq_info___ta *txq;
} __attribute__((preserve_access_index));

struct sk_buff___ta {
	struct net_device___ta *dev;
} __attribute__((preserve_access_index));

#ifdef TA_COMPAT
static __always_inline __u64 ta_netns_cookie(struct xdp_md *ctx)
{
	struct xdp_buff___ta *xdp = (void *)ctx;

	return BPF_CORE_READ(xdp, rxq, dev, nd_net.net, net_cookie);
}

/* A devmap egress program's device: the one it transmits on. */
static __always_inline __u64 ta_netns_cookie_tx(struct xdp_md *ctx)
{
	struct xdp_buff___ta *xdp = (void *)ctx;

	return BPF_CORE_READ(xdp, txq, dev, nd_net.net, net_cookie);
}

static __always_inline __u64 ta_netns_cookie_skb(struct __sk_buff *ctx)
{
	struct sk_buff___ta *skb = (void *)ctx;

	return BPF_CORE_READ(skb, dev, nd_net.net, net_cookie);
}
#else
extern void *bpf_cast_to_kern_ctx(void *) __ksym;

static __always_inline __u64 ta_netns_cookie(struct xdp_md *ctx)
{
	struct xdp_buff___ta *xdp = bpf_cast_to_kern_ctx(ctx);

	return xdp->rxq->dev->nd_net.net->net_cookie;
}

static __always_inline __u64 ta_netns_cookie_tx(struct xdp_md *ctx)
{
	struct xdp_buff___ta *xdp = bpf_cast_to_kern_ctx(ctx);

	return xdp->txq->dev->nd_net.net->net_cookie;
}

static __always_inline __u64 ta_netns_cookie_skb(struct __sk_buff *ctx)
{
	struct sk_buff___ta *skb = bpf_cast_to_kern_ctx(ctx);

	return skb->dev->nd_net.net->net_cookie;
}
#endif

#endif /* TA_TAP_KEY_BPF_H */
