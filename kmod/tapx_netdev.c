// SPDX-License-Identifier: GPL-2.0
/*
 * tapx network device: netdev ops (transmit to the reader, XDP program
 * install, stats), ethtool counters and the rtnl link ops that let
 * `ip link del` and module unload remove tapx devices.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/netdevice.h>
#include <net/rtnetlink.h>

#include "tapx.h"

static const char tapx_stat_names[TAPX_NR_STATS][ETH_GSTRING_LEN] = {
	[TAPX_RX_PACKETS] = "rx_packets",
	[TAPX_RX_BYTES] = "rx_bytes",
	[TAPX_RX_DROPPED] = "rx_dropped",
	[TAPX_RX_ERRORS] = "rx_errors",
	[TAPX_TX_PACKETS] = "tx_packets",
	[TAPX_TX_BYTES] = "tx_bytes",
	[TAPX_TX_DROPPED] = "tx_dropped",
	[TAPX_XDP_PASS] = "xdp_pass",
	[TAPX_XDP_DROP] = "xdp_drop",
	[TAPX_XDP_TX] = "xdp_tx",
	[TAPX_XDP_REDIRECT] = "xdp_redirect",
	[TAPX_XDP_ABORTED] = "xdp_aborted",
	[TAPX_XDP_TX_ERRORS] = "xdp_tx_errors",
	[TAPX_XDP_REDIRECT_ERRORS] = "xdp_redirect_errors",
	[TAPX_XDP_REDIRECT_LINEAR] = "xdp_redirect_linearized",
	[TAPX_XDP_GSO_DROPS] = "xdp_gso_drops",
	[TAPX_XDP_FRAGS_DROPS] = "xdp_frags_drops",
	[TAPX_XDP_XMIT] = "xdp_xmit",
	[TAPX_XDP_XMIT_ERRORS] = "xdp_xmit_errors",
	[TAPX_RING_FULL] = "ring_full_drops",
};

static const char *const tapx_qstat_names[TAPX_NR_QSTATS] = {
	[TAPX_Q_RX_PACKETS] = "rx_packets",
	[TAPX_Q_RX_BYTES] = "rx_bytes",
	[TAPX_Q_TX_PACKETS] = "tx_packets",
	[TAPX_Q_TX_BYTES] = "tx_bytes",
	[TAPX_Q_XDP_PASS] = "xdp_pass",
	[TAPX_Q_XDP_DROP] = "xdp_drop",
	[TAPX_Q_XDP_TX] = "xdp_tx",
	[TAPX_Q_XDP_REDIRECT] = "xdp_redirect",
	[TAPX_Q_XDP_ABORTED] = "xdp_aborted",
	[TAPX_Q_XDP_XMIT] = "xdp_xmit",
};

void tapx_stats_sum(struct tapx_dev *tapx, u64 *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(u64) * TAPX_NR_STATS);
	for_each_possible_cpu(cpu) {
		struct tapx_pcpu_stats *st = per_cpu_ptr(tapx->stats, cpu);
		u64 v[TAPX_NR_STATS];
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			for (i = 0; i < TAPX_NR_STATS; i++)
				v[i] = u64_stats_read(&st->v[i]);
		} while (u64_stats_fetch_retry(&st->syncp, start));

		for (i = 0; i < TAPX_NR_STATS; i++)
			sum[i] += v[i];
	}
}

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
}

static int tapx_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

static int tapx_stop(struct net_device *dev)
{
	netif_tx_stop_all_queues(dev);
	return 0;
}

/* Spreads flows over the attached queues; the core caps it to real_num. */
static u16 tapx_select_queue(struct net_device *dev, struct sk_buff *skb,
			     struct net_device *sb_dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int n;

	/* Attach counts the queue before the stack does: the lower count. */
	n = min(READ_ONCE(tapx->numqueues), READ_ONCE(dev->real_num_tx_queues));
	if (n <= 1)
		return 0;
	return reciprocal_scale(skb_get_hash(skb), n);
}

/*
 * The attached queue for an index chosen from an earlier numqueues: a
 * queue detached meanwhile leaves its slot to another or to NULL. Slot 0
 * is NULL only when no queue is attached. Under RCU.
 */
struct tapx_file *tapx_queue_get(struct tapx_dev *tapx, u32 index)
{
	unsigned int n = READ_ONCE(tapx->numqueues);
	struct tapx_file *tfile;

	if (unlikely(!n))
		return NULL;
	if (unlikely(index >= n))
		index %= n;
	tfile = rcu_dereference(tapx->tfiles[index]);
	if (unlikely(!tfile))
		tfile = rcu_dereference(tapx->tfiles[0]);
	return tfile;
}

static netdev_tx_t tapx_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int len = skb->len;
	struct tapx_file *tfile;

	rcu_read_lock();
	tfile = tapx_queue_get(tapx, skb_get_queue_mapping(skb));
	if (unlikely(!tfile))
		goto drop;
	if (unlikely(skb_orphan_frags_rx(skb, GFP_ATOMIC)))
		goto drop;
	skb_tx_timestamp(skb);
	skb_orphan(skb);
	nf_reset_ct(skb);

	if (unlikely(tapx_ring_produce(tfile, skb))) {
		/* Once: the stack's tx_dropped adds ring_full_drops. */
		tapx_stat_inc(tapx, TAPX_RING_FULL);
		goto free;
	}
	tapx_stat_pkt(tapx, TAPX_TX_PACKETS, TAPX_TX_BYTES, len);
	tapx_qstat_pkt(tfile, TAPX_Q_TX_PACKETS, TAPX_Q_TX_BYTES, len);
	tapx_wake_reader(tfile);
	rcu_read_unlock();
	return NETDEV_TX_OK;

drop:
	tapx_stat_inc(tapx, TAPX_TX_DROPPED);
free:
	rcu_read_unlock();
	kfree_skb(skb);
	return NETDEV_TX_OK;
}

static void tapx_get_stats64(struct net_device *dev,
			     struct rtnl_link_stats64 *s)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	u64 sum[TAPX_NR_STATS];

	tapx_stats_sum(tapx, sum);
	s->rx_packets = sum[TAPX_RX_PACKETS];
	s->rx_bytes = sum[TAPX_RX_BYTES];
	s->rx_dropped = sum[TAPX_RX_DROPPED];
	s->rx_errors = sum[TAPX_RX_ERRORS];
	s->tx_packets = sum[TAPX_TX_PACKETS];
	s->tx_bytes = sum[TAPX_TX_BYTES];
	s->tx_dropped = sum[TAPX_TX_DROPPED] + sum[TAPX_RING_FULL];
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

	if (arg & TUN_F_CSUM) {
		features |= NETIF_F_HW_CSUM;
		/* Segmentation offloads only make sense with checksums. */
		if (arg & TUN_F_TSO4)
			features |= NETIF_F_TSO;
		if (arg & TUN_F_TSO6)
			features |= NETIF_F_TSO6;
		if ((arg & TUN_F_TSO_ECN) && (arg & (TUN_F_TSO4 | TUN_F_TSO6)))
			features |= NETIF_F_TSO_ECN;
		arg &= ~(TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN |
			 TUN_F_UFO);
	}
	/* Unknown bits fail, so userspace can probe for newer offloads. */
	if (arg)
		return -EINVAL;

	tapx->offload = features;
	tapx->dev->wanted_features &= ~TAPX_USER_FEATURES;
	tapx->dev->wanted_features |= features;
	netdev_update_features(tapx->dev);
	return 0;
}

static int tapx_xdp_set(struct net_device *dev, struct bpf_prog *prog,
			struct netlink_ext_ack *extack)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	struct bpf_prog *old = rtnl_dereference(tapx->xdp_prog);

	rcu_assign_pointer(tapx->xdp_prog, prog);
	if (old)
		bpf_prog_put(old);
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

static void tapx_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	strscpy(info->driver, TAPX_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, TAPX_DRV_VERSION, sizeof(info->version));
	strscpy(info->bus_info, "tapx", sizeof(info->bus_info));
}

static void tapx_qstats_sum(struct tapx_file *tfile, u64 *sum)
{
	int cpu, i;

	memset(sum, 0, sizeof(u64) * TAPX_NR_QSTATS);
	for_each_possible_cpu(cpu) {
		struct tapx_pcpu_qstats *st = per_cpu_ptr(tfile->qstats, cpu);
		u64 v[TAPX_NR_QSTATS];
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&st->syncp);
			for (i = 0; i < TAPX_NR_QSTATS; i++)
				v[i] = u64_stats_read(&st->v[i]);
		} while (u64_stats_fetch_retry(&st->syncp, start));

		for (i = 0; i < TAPX_NR_QSTATS; i++)
			sum[i] += v[i];
	}
}

/*
 * Device-wide counters first (names unchanged), then queue_N_* for each
 * attached queue N. The ethtool core holds rtnl across count, strings and
 * values, so the number of queues cannot change in between.
 */
static int tapx_get_sset_count(struct net_device *dev, int sset)
{
	struct tapx_dev *tapx = netdev_priv(dev);

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	return TAPX_NR_STATS + tapx->numqueues * TAPX_NR_QSTATS;
}

static void tapx_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;
	memcpy(buf, tapx_stat_names, sizeof(tapx_stat_names));
	buf += sizeof(tapx_stat_names);
	for (q = 0; q < tapx->numqueues; q++)
		for (i = 0; i < TAPX_NR_QSTATS; i++)
			ethtool_sprintf(&buf, "queue_%u_%s", q,
					tapx_qstat_names[i]);
}

static void tapx_get_ethtool_stats(struct net_device *dev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int q;

	tapx_stats_sum(tapx, data);
	data += TAPX_NR_STATS;
	for (q = 0; q < tapx->numqueues; q++, data += TAPX_NR_QSTATS)
		tapx_qstats_sum(rtnl_dereference(tapx->tfiles[q]), data);
}

static int tapx_get_link_ksettings(struct net_device *dev,
				   struct ethtool_link_ksettings *cmd)
{
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	ethtool_link_ksettings_zero_link_mode(cmd, advertising);
	cmd->base.speed = SPEED_10000;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_TP;
	cmd->base.phy_address = 0;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static const struct ethtool_ops tapx_ethtool_ops = {
	.get_drvinfo = tapx_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = tapx_get_link_ksettings,
	.get_sset_count = tapx_get_sset_count,
	.get_strings = tapx_get_strings,
	.get_ethtool_stats = tapx_get_ethtool_stats,
};

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
	dev->priv_flags |= IFF_LIVE_ADDR_CHANGE;
	dev->hw_features = NETIF_F_SG | NETIF_F_FRAGLIST | TAPX_USER_FEATURES;
	dev->features = dev->hw_features | NETIF_F_LLTX;
	dev->min_mtu = ETH_MIN_MTU;
	dev->max_mtu = TAPX_MAX_FRAME - ETH_HLEN;
	eth_hw_addr_random(dev);
}

/* tapx devices are created through /dev/net/tapx only, like tun's. */
static int tapx_newlink(struct net *net, struct net_device *dev,
			struct nlattr *tb[], struct nlattr *data[],
			struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG(
		extack,
		"tapx devices are created with TUNSETIFF on /dev/net/tapx");
	return -EOPNOTSUPP;
}

struct rtnl_link_ops tapx_link_ops __read_mostly = {
	.kind = TAPX_DRV_NAME,
	.priv_size = sizeof(struct tapx_dev),
	.setup = tapx_setup,
	.newlink = tapx_newlink,
};
