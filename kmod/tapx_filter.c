// SPDX-License-Identifier: GPL-2.0
/*
 * tun's filters on the frames the stack transmits to the reader, all
 * optional, run by tapx_start_xmit in this order:
 *   TUNSETTXFILTER    destination MAC addresses (taps only)
 *   TUNATTACHFILTER   a classic BPF socket filter (taps only)
 *   TUNSETFILTEREBPF  an eBPF socket-filter program
 * and TUNSETSTEERINGEBPF, an eBPF program that picks the queue. A filter
 * returns how many bytes of the frame to keep, 0 to drop it. As in tun,
 * XDP_TX and ndo_xdp_xmit frames pass none of them. Set under rtnl, read
 * under RCU.
 */
#include <linux/bpf.h>
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "tapx.h"

/* The TX filter: exact addresses first, then a hash of multicast ones. */
#define TAPX_TXFILTER_EXACT 8

struct tapx_txfilter {
	unsigned int count; /* exact addresses in addr[] */
	u8 addr[TAPX_TXFILTER_EXACT][ETH_ALEN];
	u32 mcast_hash[2]; /* bit per top 6 bits of the address's CRC */
	struct rcu_head rcu;
};

struct tapx_sock_filter {
	struct bpf_prog *prog;
	struct rcu_head rcu;
};

static unsigned int tapx_mcast_bit(const u8 *addr)
{
	return ether_crc(ETH_ALEN, addr) >> 26;
}

static bool tapx_txfilter_pass(const struct tapx_txfilter *f,
			       const struct ethhdr *eth)
{
	unsigned int i, bit;

	for (i = 0; i < f->count; i++)
		if (ether_addr_equal(eth->h_dest, f->addr[i]))
			return true;
	if (!is_multicast_ether_addr(eth->h_dest))
		return false;
	bit = tapx_mcast_bit(eth->h_dest);
	return f->mcast_hash[bit >> 5] & (1U << (bit & 31));
}

/*
 * The length of @skb to deliver after the filters: 0 drops it. Called
 * under RCU, with skb->data at the Ethernet (or IP) header.
 */
unsigned int tapx_filter_skb(struct tapx_dev *tapx, struct sk_buff *skb)
{
	const struct tapx_txfilter *txf = rcu_dereference(tapx->txfilter);
	const struct tapx_sock_filter *sf = rcu_dereference(tapx->sock_filter);
	struct bpf_prog *prog = rcu_dereference(tapx->filter_prog);
	unsigned int len = skb->len;

	if (txf && (skb_headlen(skb) < ETH_HLEN ||
		    !tapx_txfilter_pass(txf, (struct ethhdr *)skb->data)))
		return 0;
	/* A socket filter keeps at least one byte, as sk_filter() does. */
	if (sf) {
		len = bpf_prog_run_save_cb(sf->prog, skb);
		if (!len)
			return 0;
		len = min(len, skb->len);
	}
	if (prog)
		len = min(len, bpf_prog_run_clear_cb(prog, skb));
	return len;
}

/*
 * The steering program's choice for @skb, below @nqueues (> 1); false
 * without a program.
 */
bool tapx_steer(struct tapx_dev *tapx, struct sk_buff *skb,
		unsigned int nqueues, u16 *queue)
{
	struct bpf_prog *prog;

	rcu_read_lock();
	prog = rcu_dereference(tapx->steering_prog);
	if (prog)
		*queue = bpf_prog_run_clear_cb(prog, skb) % nqueues;
	rcu_read_unlock();
	return prog;
}

/*
 * TUNSETTXFILTER: struct tun_filter and its addresses. count 0 turns the
 * filter off; a unicast address past the exact ones too (tun's rule: it
 * cannot be hashed). Returns the number of exact addresses.
 */
static long tapx_set_txfilter(struct tapx_dev *tapx, void __user *argp)
{
	struct tapx_txfilter *f = NULL, *old;
	struct tun_filter uf;
	u8 (*addr)[ETH_ALEN];
	unsigned int n;
	long ret;

	if (copy_from_user(&uf, argp, sizeof(uf)))
		return -EFAULT;
	if (uf.count) {
		addr = memdup_user(argp + sizeof(uf), (size_t)uf.count * ETH_ALEN);
		if (IS_ERR(addr))
			return PTR_ERR(addr);
		f = kzalloc(sizeof(*f), GFP_KERNEL);
		if (!f) {
			kfree(addr);
			return -ENOMEM;
		}
		for (n = 0; n < uf.count && n < TAPX_TXFILTER_EXACT; n++)
			ether_addr_copy(f->addr[n], addr[n]);
		f->count = n;
		for (; n < uf.count; n++) {
			unsigned int bit = tapx_mcast_bit(addr[n]);

			if (!is_multicast_ether_addr(addr[n]))
				break;
			f->mcast_hash[bit >> 5] |= 1U << (bit & 31);
		}
		if (uf.flags & TUN_FLT_ALLMULTI)
			memset(f->mcast_hash, 0xff, sizeof(f->mcast_hash));
		kfree(addr);
		if (n < uf.count) {
			kfree(f);
			f = NULL;
		}
	}
	ret = f ? f->count : 0;
	old = rtnl_dereference(tapx->txfilter);
	rcu_assign_pointer(tapx->txfilter, f);
	if (old)
		kfree_rcu(old, rcu);
	return ret;
}

static void tapx_sock_filter_free(struct rcu_head *head)
{
	struct tapx_sock_filter *sf =
		container_of(head, struct tapx_sock_filter, rcu);

	bpf_prog_destroy(sf->prog);
	kfree(sf);
}

static void tapx_set_sock_filter(struct tapx_dev *tapx,
				 struct tapx_sock_filter *sf)
{
	struct tapx_sock_filter *old = rtnl_dereference(tapx->sock_filter);

	rcu_assign_pointer(tapx->sock_filter, sf);
	if (old)
		call_rcu(&old->rcu, tapx_sock_filter_free);
}

/*
 * TUNATTACHFILTER: a classic BPF program, as SO_ATTACH_FILTER takes it.
 * Like tun, the sock_fprog given is what TUNGETFILTER returns afterwards,
 * even when the program is refused or later detached.
 */
static long tapx_attach_sock_filter(struct tapx_dev *tapx, void __user *argp)
{
	struct tapx_sock_filter *sf;
	int err;

	if (copy_from_user(&tapx->sock_fprog, argp, sizeof(tapx->sock_fprog)))
		return -EFAULT;
	sf = kzalloc(sizeof(*sf), GFP_KERNEL);
	if (!sf)
		return -ENOMEM;
	err = bpf_prog_create_from_user(&sf->prog, &tapx->sock_fprog, NULL,
					false);
	if (err) {
		kfree(sf);
		return err;
	}
	tapx_set_sock_filter(tapx, sf);
	return 0;
}

static void tapx_replace_prog(struct bpf_prog __rcu **slot,
			      struct bpf_prog *prog)
{
	struct bpf_prog *old = rtnl_dereference(*slot);

	rcu_assign_pointer(*slot, prog);
	/* bpf_prog_put() frees after a grace period. */
	if (old)
		bpf_prog_put(old);
}

/* TUNSETSTEERINGEBPF, TUNSETFILTEREBPF: a program fd, or -1 to detach. */
static long tapx_set_ebpf(struct bpf_prog __rcu **slot, void __user *argp)
{
	struct bpf_prog *prog = NULL;
	int fd;

	if (get_user(fd, (int __user *)argp))
		return -EFAULT;
	if (fd != -1) {
		prog = bpf_prog_get_type(fd, BPF_PROG_TYPE_SOCKET_FILTER);
		if (IS_ERR(prog))
			return PTR_ERR(prog);
	}
	tapx_replace_prog(slot, prog);
	return 0;
}

/* The filter ioctls; under rtnl. The MAC and socket filters are a tap's. */
long tapx_filter_ioctl(struct tapx_dev *tapx, unsigned int cmd,
		       void __user *argp)
{
	bool tap = tapx->flags & IFF_TAP;

	switch (cmd) {
	case TUNSETTXFILTER:
		return tap ? tapx_set_txfilter(tapx, argp) : -EINVAL;
	case TUNATTACHFILTER:
		return tap ? tapx_attach_sock_filter(tapx, argp) : -EINVAL;
	case TUNDETACHFILTER:
		if (!tap)
			return -EINVAL;
		tapx_set_sock_filter(tapx, NULL);
		return 0;
	case TUNGETFILTER:
		if (!tap)
			return -EINVAL;
		return copy_to_user(argp, &tapx->sock_fprog,
				    sizeof(tapx->sock_fprog)) ?
			       -EFAULT :
			       0;
	case TUNSETSTEERINGEBPF:
		return tapx_set_ebpf(&tapx->steering_prog, argp);
	case TUNSETFILTEREBPF:
		return tapx_set_ebpf(&tapx->filter_prog, argp);
	}
	return -EINVAL;
}

/* Device teardown (ndo_uninit, under rtnl): every filter goes. */
void tapx_filters_release(struct tapx_dev *tapx)
{
	struct tapx_txfilter *txf = rtnl_dereference(tapx->txfilter);

	RCU_INIT_POINTER(tapx->txfilter, NULL);
	if (txf)
		kfree_rcu(txf, rcu);
	tapx_set_sock_filter(tapx, NULL);
	tapx_replace_prog(&tapx->filter_prog, NULL);
	tapx_replace_prog(&tapx->steering_prog, NULL);
}
