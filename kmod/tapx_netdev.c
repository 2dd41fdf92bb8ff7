// SPDX-License-Identifier: GPL-2.0
/*
 * tapx network device: netdev ops (transmit to the reader, XDP program
 * install, stats), the device's queues (files attached to it and detached
 * from it, under rtnl) and the rtnl link ops that let `ip link del` and
 * module unload remove tapx devices.
 */
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_arp.h>
#include <linux/if_tun.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/ip_tunnels.h>
#include <net/rtnetlink.h>

#include "compat.h"
#include "tapx.h"
#include "tapx_ring.h"

static int tapx_init(struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	int cpu;

	tapx->stats = alloc_percpu(struct tapx_pcpu_stats);
	if (!tapx->stats)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(tapx->stats, cpu)->syncp);
	return 0;
}

static void tapx_free_netdev(struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);

	free_percpu(tapx->stats);
	tapx->stats = NULL;
}

static void tapx_uninit(struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	struct bpf_prog *prog = rtnl_dereference(tapx->xdp_prog);

	/* Device deletion with fds still open: unbind them all. */
	tapx_detach_all(tapx);
	if (prog) {
		RCU_INIT_POINTER(tapx->xdp_prog, NULL);
		bpf_prog_put(prog);
	}
	tapx_filters_release(tapx);
}

/**
 * tapx_queue_restart - restart the tx queue of the slot a file has (had)
 * @tapx: its device
 * @tfile: the file, in its slot
 * @if_empty: only if the file's ring is empty
 *
 * For the slot's new owner (an attach, a file moved into a freed slot),
 * which the last one may have left stopped by IFF_BACKPRESSURE, and for a
 * slot its last owner left. Under both ring locks, so that neither the
 * transmit path nor the reader stops or restarts it meanwhile; not while
 * the device is down, which leaves it as tapx_stop() did (tapx_open()
 * starts every queue). Under rtnl.
 */
static void tapx_queue_restart(struct tapx_dev *tapx, struct tapx_file *tfile,
			       bool if_empty)
{
	spin_lock_bh(&tfile->ring.consumer_lock);
	spin_lock(&tfile->ring.producer_lock);
	tfile->consumed = 0;
	if (netif_running(tapx->dev) &&
	    (!if_empty || __ptr_ring_empty(&tfile->ring)))
		netif_wake_subqueue(tapx->dev, tfile->queue_index);
	spin_unlock(&tfile->ring.producer_lock);
	spin_unlock_bh(&tfile->ring.consumer_lock);
}

static int tapx_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

static int tapx_stop(struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int i;

	/*
	 * netif_running() is false already: once each ring's locks have been
	 * taken, no reader or sender that saw the device up is left to
	 * restart a queue after the stop below.
	 */
	for (i = 0; i < tapx->numqueues; i++)
		tapx_queue_restart(tapx, rtnl_dereference(tapx->tfiles[i]),
				   false);
	netif_tx_stop_all_queues(dev);
	return 0;
}

/* Spreads flows over the attached queues; the core caps it to real_num. */
static u16 tapx_select_queue(struct net_device *dev, struct sk_buff *skb,
			     struct net_device *sb_dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int n;
	u16 queue;

	/* Attach counts the queue before the stack does: the lower count. */
	n = min(READ_ONCE(tapx->numqueues), READ_ONCE(dev->real_num_tx_queues));
	if (n <= 1)
		return 0;
	if (tapx_steer(tapx, skb, n, &queue))
		return queue;
	return reciprocal_scale(skb_get_hash(skb), n);
}

static netdev_tx_t tapx_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	struct tapx_file *tfile;
	unsigned int len;

	rcu_read_lock();
	tfile = tapx_queue_get(tapx, skb_get_queue_mapping(skb));
	if (unlikely(!tfile))
		goto drop;
	len = tapx_filter_skb(tapx, skb);
	if (!len || pskb_trim(skb, len))
		goto drop;
	if (unlikely(skb_orphan_frags_rx(skb, GFP_ATOMIC)))
		goto drop;
	skb_tx_timestamp(skb);
	skb_orphan(skb);
	nf_reset_ct(skb);

	if (unlikely(tapx_ring_produce_xmit(tapx, tfile, skb,
					    skb_get_queue_mapping(skb)))) {
		/* Once: the stack's tx_dropped adds ring_full_drops. */
		tapx_stat_inc(tapx, TAPX_STAT(ring_full_drops));
		goto free;
	}
	tapx_stat_tx(tapx, tfile, 1, len, false);
	tapx_wake_reader(tfile);
	rcu_read_unlock();
	return NETDEV_TX_OK;

drop:
	tapx_stat_inc(tapx, TAPX_STAT(tx_dropped));
free:
	rcu_read_unlock();
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static netdev_features_t tapx_fix_features(struct net_device *dev,
					   netdev_features_t features)
{
	struct tapx_dev *tapx = netdev_priv(dev);

	return (features & tapx->offload) | (features & ~TAPX_USER_FEATURES);
}

int tapx_set_offload(struct tapx_dev *tapx, unsigned long arg)
{
	netdev_features_t features = 0;

	/* Segmentation offloads only make sense with checksums. */
	if (arg & TUN_F_CSUM) {
		features |= NETIF_F_HW_CSUM;
		if (arg & (TUN_F_TSO4 | TUN_F_TSO6)) {
			if (arg & TUN_F_TSO4)
				features |= NETIF_F_TSO;
			if (arg & TUN_F_TSO6)
				features |= NETIF_F_TSO6;
			if (arg & TUN_F_TSO_ECN)
				features |= NETIF_F_TSO_ECN;
			arg &= ~(TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN);
		}
		/*
		 * USO (6.2 on): the stack has one feature for both IP
		 * versions, so as in tun they come together or not at all.
		 */
		if (TAPX_TUN_F_USO &&
		    (arg & TAPX_TUN_F_USO) == TAPX_TUN_F_USO) {
			features |= TAPX_F_USO;
			arg &= ~TAPX_TUN_F_USO;
		}
		/*
		 * GSO over UDP tunnels (6.17 on), as tun: beside a TSO or USO
		 * offload, and its outer checksum only with it.
		 */
		if ((features & TAPX_PLAIN_GSO) &&
		    (arg & TAPX_TUN_F_UDP_TUNNEL_GSO)) {
			features |= NETIF_F_GSO_UDP_TUNNEL;
			if (arg & TAPX_TUN_F_UDP_TUNNEL_GSO_CSUM)
				features |= NETIF_F_GSO_UDP_TUNNEL_CSUM;
			arg &= ~(TAPX_TUN_F_UDP_TUNNEL_GSO |
				 TAPX_TUN_F_UDP_TUNNEL_GSO_CSUM);
		}
		arg &= ~(TUN_F_CSUM | TUN_F_UFO);
	}
	/*
	 * Unknown bits fail, so userspace can probe for newer offloads; so do
	 * ECN without TSO, USO4 or USO6 alone, a UDP tunnel's without TSO or
	 * USO or its checksum alone, anything without CSUM.
	 */
	if (arg)
		return -EINVAL;

	tapx->offload = features;
	tapx->dev->wanted_features &= ~TAPX_USER_FEATURES;
	tapx->dev->wanted_features |= features;
	netdev_update_features(tapx->dev);
	return 0;
}

/*
 * A program without xdp.frags sees frames of one buffer only: as veth
 * does, it is refused while the MTU says larger frames are to be expected,
 * and while it is attached the MTU stays within one buffer. (Writers are
 * not bound by the MTU: a larger frame written anyway is dropped before
 * the program and counted in xdp_frags_drops.)
 */
static int tapx_xdp_set(struct net_device *dev, struct bpf_prog *prog,
			struct netlink_ext_ack *extack)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	struct bpf_prog *old = rtnl_dereference(tapx->xdp_prog);
	bool linear = prog && !prog->aux->xdp_has_frags;

	if (linear && dev->mtu > TAPX_LINEAR_MTU) {
		NL_SET_ERR_MSG_MOD(extack,
				   "MTU too large for a program without xdp.frags");
		return -ERANGE;
	}
	dev->max_mtu = linear ? TAPX_LINEAR_MTU : TAPX_MAX_MTU;

	rcu_assign_pointer(tapx->xdp_prog, prog);
	if (old)
		bpf_prog_put(old);
	tapx_dev_sock_xdp(tapx, tapx_runs_xdp(tapx));
	return 0;
}

static int tapx_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return tapx_xdp_set(dev, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}

static const struct net_device_ops tapx_netdev_ops = {
	.ndo_init = tapx_init,
	.ndo_uninit = tapx_uninit,
	.ndo_open = tapx_open,
	.ndo_stop = tapx_stop,
	.ndo_select_queue = tapx_select_queue,
	.ndo_start_xmit = tapx_start_xmit,
	.ndo_get_stats64 = tapx_get_stats64,
	.ndo_fix_features = tapx_fix_features,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_bpf = tapx_bpf,
	.ndo_xdp_xmit = tapx_xdp_xmit,
};

/*
 * Whether @tapx's writes meet a program: its own, or its namespace's
 * default (a tap's only: L3 devices have no XDP). Under rtnl.
 */
bool tapx_runs_xdp(struct tapx_dev *tapx)
{
	struct net_device *dev = tapx->dev;

	if (rtnl_dereference(tapx->xdp_prog))
		return true;
	return dev->netdev_ops == &tapx_netdev_ops &&
	       rtnl_dereference(tapx_net(dev_net(dev))->def_prog);
}

/* @net's default program changed: SOCK_XDP on its taps' files. Under rtnl. */
void tapx_net_sock_xdp(struct net *net)
{
	struct net_device *dev;
	struct tapx_dev *tapx;

	for_each_netdev(net, dev) {
		if (dev->netdev_ops != &tapx_netdev_ops)
			continue;
		tapx = netdev_priv(dev);
		tapx_dev_sock_xdp(tapx, tapx_runs_xdp(tapx));
	}
}

/* tun has no XDP on L3 devices, and neither has tapx. */
static int tapx_l3_bpf(struct net_device *dev, struct netdev_bpf *bpf)
{
	if (bpf->command != XDP_SETUP_PROG)
		return -EINVAL;
	if (!bpf->prog)
		return 0;
	NL_SET_ERR_MSG_MOD(bpf->extack,
			   "no XDP on an IFF_TUN device: only IFF_TAP has it");
	return -EOPNOTSUPP;
}

/* IFF_TUN devices: no MAC address, no program, no ndo_xdp_xmit. */
static const struct net_device_ops tapx_l3_netdev_ops = {
	.ndo_init = tapx_init,
	.ndo_uninit = tapx_uninit,
	.ndo_open = tapx_open,
	.ndo_stop = tapx_stop,
	.ndo_select_queue = tapx_select_queue,
	.ndo_start_xmit = tapx_start_xmit,
	.ndo_get_stats64 = tapx_get_stats64,
	.ndo_fix_features = tapx_fix_features,
	.ndo_bpf = tapx_l3_bpf,
};

/* The stack's queue counts follow the attached queues (never zero). */
static void tapx_set_real_queues(struct tapx_dev *tapx)
{
	if (!tapx->numqueues)
		return;
	netif_set_real_num_tx_queues(tapx->dev, tapx->numqueues);
	netif_set_real_num_rx_queues(tapx->dev, tapx->numqueues);
}

static int tapx_rxq_reg(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	int err;

	err = xdp_rxq_info_reg(&tfile->xdp_rxq, tapx->dev, tfile->queue_index,
			       0);
	if (err)
		return err;
	err = xdp_rxq_info_reg_mem_model(&tfile->xdp_rxq, MEM_TYPE_PAGE_SHARED,
					 NULL);
	if (err)
		xdp_rxq_info_unreg(&tfile->xdp_rxq);
	return err;
}

/*
 * Attaches a new file, or reattaches a detached one (TUNSETQUEUE), as the
 * last queue. A detached file keeps its xdp_rxq_info registration (its
 * writes still run XDP), so only its queue index changes.
 */
int tapx_attach(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	int err;

	if (rtnl_dereference(tfile->tapx) && !tfile->detached)
		return -EINVAL;
	if (!(tapx->flags & IFF_MULTI_QUEUE) && tapx->numqueues == 1)
		return -EBUSY;
	if (!tfile->detached &&
	    tapx->numqueues + tapx->numdisabled >= TAPX_MAX_QUEUES)
		return -E2BIG;

	spin_lock(&tfile->ring.consumer_lock);
	tfile->queue_index = tapx->numqueues;
	spin_unlock(&tfile->ring.consumer_lock);
	if (tfile->detached) {
		/* Its writes run XDP, whose ctx reads the index. */
		WRITE_ONCE(tfile->xdp_rxq.queue_index, tfile->queue_index);
		list_del_init(&tfile->next);
		tapx->numdisabled--;
		tfile->detached = false;
	} else {
		err = tapx_rxq_reg(tfile, tapx);
		if (err)
			return err;
		/* For as long as the file is bound: detached queues write too. */
		tapx_napi_attach(tfile, tapx);
	}

	tapx_sock_xdp(tfile, tapx_runs_xdp(tapx));
	/* Publish only the fully set up file. */
	rcu_assign_pointer(tfile->tapx, tapx);
	rcu_assign_pointer(tapx->tfiles[tapx->numqueues], tfile);
	WRITE_ONCE(tapx->numqueues, tapx->numqueues + 1);
	tapx_set_real_queues(tapx);
	/* Once the queue takes frames: what its qdisc sends finds it. */
	tapx_queue_restart(tapx, tfile, false);
	netif_carrier_on(tapx->dev);
	return 0;
}

/*
 * Takes an attached queue out of the array: the last queue moves into its
 * slot (under each one's consumer lock: a reader restarts its slot's tx
 * queue, tapx_ring_consumed()). Data paths may still see it until the
 * caller's grace period; then tapx_queue_settle().
 */
static struct tapx_file *tapx_queue_unlink(struct tapx_file *tfile,
					   struct tapx_dev *tapx)
{
	unsigned int last = tapx->numqueues - 1;
	struct tapx_file *moved = rtnl_dereference(tapx->tfiles[last]);
	u16 index = tfile->queue_index;

	spin_lock(&tfile->ring.consumer_lock);
	rcu_assign_pointer(tapx->tfiles[index], moved);
	spin_unlock(&tfile->ring.consumer_lock);
	spin_lock(&moved->ring.consumer_lock);
	moved->queue_index = index;
	moved->consumed = 0;
	spin_unlock(&moved->ring.consumer_lock);
	WRITE_ONCE(moved->xdp_rxq.queue_index, index);
	RCU_INIT_POINTER(tapx->tfiles[last], NULL);
	WRITE_ONCE(tapx->numqueues, last);
	return moved;
}

/*
 * After an unlink's grace period: @tfile's ring is purged, and the slot's
 * queue restarts if its new owner has nothing queued (with entries queued,
 * its reader restarts it as it takes them). A slot left without an owner
 * (@tfile was the last, @moved is @tfile) restarts too, as tun's does:
 * what its qdisc held goes on to the queues left, or is dropped and
 * counted when none is, instead of waiting for a reader to come.
 */
static void tapx_queue_settle(struct tapx_file *tfile, struct tapx_dev *tapx,
			      struct tapx_file *moved)
{
	tapx_ring_purge(tfile);
	tapx_queue_restart(tapx, moved, true);
	tapx_set_real_queues(tapx);
}

/* TUNSETQUEUE IFF_DETACH_QUEUE: the file stays bound to the device. */
void tapx_queue_detach(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	struct tapx_file *moved = tapx_queue_unlink(tfile, tapx);

	tfile->detached = true;
	list_add_tail(&tfile->next, &tapx->disabled);
	tapx->numdisabled++;

	/* No transmitter or redirect reaches the ring after this. */
	synchronize_net();
	tapx_queue_settle(tfile, tapx, moved);
}

/*
 * close(): unbinds the file from its device, attached or detached. The
 * last queue of a non-persistent device takes the device with it.
 */
void tapx_file_unbind(struct tapx_file *tfile)
{
	struct tapx_dev *tapx = rtnl_dereference(tfile->tapx);
	struct net_device *dev;

	if (!tapx)
		return;
	dev = tapx->dev;
	if (tfile->detached) {
		list_del_init(&tfile->next);
		tapx->numdisabled--;
		tfile->detached = false;
		RCU_INIT_POINTER(tfile->tapx, NULL);
	} else {
		struct tapx_file *moved = tapx_queue_unlink(tfile, tapx);

		RCU_INIT_POINTER(tfile->tapx, NULL);
		synchronize_net();
		tapx_queue_settle(tfile, tapx, moved);
	}
	/* close(): no writer of this file is left. */
	tapx_napi_detach(tfile);
	xdp_rxq_info_unreg(&tfile->xdp_rxq);

	if (tapx->numqueues || tapx->numdisabled)
		return;
	netif_carrier_off(dev);
	if (!(tapx->flags & IFF_PERSIST) && dev->reg_state == NETREG_REGISTERED)
		unregister_netdevice(dev);
}

/* Wakes a file whose device went away; blocked readers get -EBADFD. */
static void tapx_file_orphan(struct tapx_file *tfile)
{
	tapx_napi_detach(tfile);
	tapx_ring_purge(tfile);
	xdp_rxq_info_unreg(&tfile->xdp_rxq);
	wake_up_interruptible_poll(&tfile->wq, EPOLLERR);
}

/*
 * Device deletion (ndo_uninit, under rtnl) with files still open, attached
 * or detached: every file is unbound and gets -EBADFD from then on. After
 * the grace period no data path can reach any ring, so what is queued can
 * be freed; the files themselves are freed by their close().
 */
void tapx_detach_all(struct tapx_dev *tapx)
{
	unsigned int i, n = tapx->numqueues;
	struct tapx_file *tfile, *tmp;

	for (i = 0; i < n; i++) {
		tfile = rtnl_dereference(tapx->tfiles[i]);
		RCU_INIT_POINTER(tfile->tapx, NULL);
	}
	WRITE_ONCE(tapx->numqueues, 0);
	list_for_each_entry(tfile, &tapx->disabled, next)
		RCU_INIT_POINTER(tfile->tapx, NULL);
	netif_carrier_off(tapx->dev);
	synchronize_net();

	for (i = 0; i < n; i++) {
		tfile = rtnl_dereference(tapx->tfiles[i]);
		RCU_INIT_POINTER(tapx->tfiles[i], NULL);
		tapx_file_orphan(tfile);
	}
	list_for_each_entry_safe(tfile, tmp, &tapx->disabled, next) {
		list_del_init(&tfile->next);
		tfile->detached = false;
		tapx_file_orphan(tfile);
	}
	tapx->numdisabled = 0;
}

void tapx_setup(struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);

	ether_setup(dev);
	tapx->dev = dev;
	INIT_LIST_HEAD(&tapx->disabled);
	tapx->owner = INVALID_UID;
	tapx->group = INVALID_GID;
	tapx->vnet_hdr_sz = sizeof(struct virtio_net_hdr);

	dev->netdev_ops = &tapx_netdev_ops;
	dev->ethtool_ops = &tapx_ethtool_ops;
	dev->needs_free_netdev = true;
	dev->priv_destructor = tapx_free_netdev;
	dev->priv_flags &= ~IFF_TX_SKB_SHARING;
	/*
	 * No default qdisc, as veth: xmit never stops a queue (a full ring
	 * drops), so a qdisc would never hold a frame, only add its lock and
	 * dequeue to every frame the stack sends. tc can still add one.
	 */
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE | IFF_NO_QUEUE;
	dev->hw_features = NETIF_F_SG | NETIF_F_FRAGLIST | TAPX_USER_FEATURES;
	dev->features = dev->hw_features;
	/*
	 * Where the UDP-tunnel offloads are (6.17), encapsulated skbs may
	 * keep every offload, as tun's: the stack hands the reader a
	 * tunnel's GSO skb whole.
	 */
	if (TAPX_HAVE_UDP_TUNNEL)
		dev->hw_enc_features = dev->hw_features;
	tapx_set_lltx(dev);
	tapx_set_xdp_features(dev);
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = TAPX_MAX_MTU;
	eth_hw_addr_random(dev);
}

/*
 * After tapx_setup(), for IFF_TUN: a point-to-point device without link
 * header or address, as tun makes it (the header ops tell AF_PACKET the
 * protocol from the IP version).
 */
void tapx_l3_setup(struct net_device *dev)
{
	/* tun's queue length for L3 devices (its taps keep Ethernet's). */
	if (tapx_tun_compat)
		dev->tx_queue_len = TAPX_TUN_QLEN;
	dev->netdev_ops = &tapx_l3_netdev_ops;
	dev->header_ops = &ip_tunnel_header_ops;
	dev->type = ARPHRD_NONE;
	dev->hard_header_len = 0;
	dev->addr_len = 0;
	dev->mtu = ETH_DATA_LEN;
	dev->max_mtu = TAPX_MAX_FRAME;
	dev->flags = IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST;
	dev->priv_flags &= ~IFF_LIVE_ADDR_CHANGE;
	tapx_clear_xdp_features(dev);
}

/* Address length of a link type TUNSETLINK sets (0 for unknown ones). */
static unsigned char tapx_link_addr_len(unsigned long type)
{
	switch (type) {
	case ARPHRD_ETHER:
		return ETH_ALEN;
	case ARPHRD_TUNNEL:
	case ARPHRD_IPGRE:
	case ARPHRD_SIT:
		return sizeof(struct in_addr);
	case ARPHRD_TUNNEL6:
	case ARPHRD_IP6GRE:
		return sizeof(struct in6_addr);
	default:
		return 0;
	}
}

/*
 * TUNSETLINK: the link type the device reports, while it is down (EBUSY
 * otherwise, as in tun); the data paths do not change. Under rtnl.
 */
int tapx_set_link(struct net_device *dev, unsigned long type)
{
	int err;

	if (dev->flags & IFF_UP)
		return -EBUSY;
	err = call_netdevice_notifiers(NETDEV_PRE_TYPE_CHANGE, dev);
	err = notifier_to_errno(err);
	if (err)
		return err;
	dev->type = type;
	dev->addr_len = tapx_link_addr_len(type);
	call_netdevice_notifiers(NETDEV_POST_TYPE_CHANGE, dev);
	return 0;
}

/*
 * tapx devices are created through the character device only, like tun's:
 * with tun_compat, `ip link add type tun` gets tun's answer word for word.
 */
static int tapx_validate(struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	if (tapx_tun_compat)
		NL_SET_ERR_MSG(
			extack,
			"tun/tap creation via rtnetlink is not supported.");
	else
		NL_SET_ERR_MSG(extack, "tapx devices are created with "
				       "TUNSETIFF on /dev/net/tapx");
	return -EOPNOTSUPP;
}

static size_t tapx_get_size(const struct net_device *dev)
{
	return 2 * nla_total_size(sizeof(u32)) + /* OWNER, GROUP */
	       5 * nla_total_size(sizeof(u8)) + /* TYPE, PI, VNET_HDR, ... */
	       2 * nla_total_size(sizeof(u32)); /* NUM_QUEUES, NUM_DISABLED */
}

/* IFLA_INFO_DATA: tun's attributes, which `ip -d link` and `ip tuntap` read. */
static int tapx_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	const struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int flags = tapx->flags;
	struct user_namespace *ns = current_user_ns();

	if (nla_put_u8(skb, IFLA_TUN_TYPE, flags & TAPX_TYPE_MASK))
		return -EMSGSIZE;
	if (uid_valid(tapx->owner) &&
	    nla_put_u32(skb, IFLA_TUN_OWNER, from_kuid_munged(ns, tapx->owner)))
		return -EMSGSIZE;
	if (gid_valid(tapx->group) &&
	    nla_put_u32(skb, IFLA_TUN_GROUP, from_kgid_munged(ns, tapx->group)))
		return -EMSGSIZE;
	if (nla_put_u8(skb, IFLA_TUN_PI, !(flags & IFF_NO_PI)) ||
	    nla_put_u8(skb, IFLA_TUN_VNET_HDR, !!(flags & IFF_VNET_HDR)) ||
	    nla_put_u8(skb, IFLA_TUN_PERSIST, !!(flags & IFF_PERSIST)) ||
	    nla_put_u8(skb, IFLA_TUN_MULTI_QUEUE, !!(flags & IFF_MULTI_QUEUE)))
		return -EMSGSIZE;
	if (!(flags & IFF_MULTI_QUEUE))
		return 0;
	if (nla_put_u32(skb, IFLA_TUN_NUM_QUEUES, tapx->numqueues) ||
	    nla_put_u32(skb, IFLA_TUN_NUM_DISABLED_QUEUES, tapx->numdisabled))
		return -EMSGSIZE;
	return 0;
}

struct rtnl_link_ops tapx_link_ops __read_mostly = {
	.kind = TAPX_DRV_NAME,
	.priv_size = sizeof(struct tapx_dev),
	.setup = tapx_setup,
	.validate = tapx_validate,
	.get_size = tapx_get_size,
	.fill_info = tapx_fill_info,
};

/*
 * The link kind: tun's with tun_compat, where tapx serves /dev/net/tun in
 * its place (the host's tools match on it); else tapx's own, so that tapx
 * loads beside tun.ko (two drivers cannot register one kind).
 */
int tapx_link_register(void)
{
	int err;

	tapx_link_ops.kind = tapx_tun_compat ? "tun" : TAPX_DRV_NAME;
	err = rtnl_link_register(&tapx_link_ops);
	if (err == -EEXIST)
		pr_err("rtnl link kind %s is taken (is tun loaded?)\n",
		       tapx_link_ops.kind);
	return err;
}

/* tun's sysfs attributes of a device, /sys/class/net/DEV/{tun_flags,...} */
static ssize_t tun_flags_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct tapx_dev *tapx = netdev_priv(to_net_dev(d));

	return sysfs_emit(buf, "0x%x\n", tapx_iff_flags(tapx));
}

static ssize_t owner_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct tapx_dev *tapx = netdev_priv(to_net_dev(d));

	if (!uid_valid(tapx->owner))
		return sysfs_emit(buf, "-1\n");
	return sysfs_emit(buf, "%u\n",
			  from_kuid_munged(current_user_ns(), tapx->owner));
}

static ssize_t group_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct tapx_dev *tapx = netdev_priv(to_net_dev(d));

	if (!gid_valid(tapx->group))
		return sysfs_emit(buf, "-1\n");
	return sysfs_emit(buf, "%u\n",
			  from_kgid_munged(current_user_ns(), tapx->group));
}

static DEVICE_ATTR_RO(tun_flags);
static DEVICE_ATTR_RO(owner);
static DEVICE_ATTR_RO(group);

static struct attribute *tapx_dev_attrs[] = {
	&dev_attr_tun_flags.attr,
	&dev_attr_owner.attr,
	&dev_attr_group.attr,
	NULL,
};

const struct attribute_group tapx_attr_group = {
	.attrs = tapx_dev_attrs,
};
