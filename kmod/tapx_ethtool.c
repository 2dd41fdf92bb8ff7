// SPDX-License-Identifier: GPL-2.0
/*
 * tapx counters: the per-CPU device and queue counters summed for
 * `ethtool -S` and ndo_get_stats64, and the rest of the ethtool ops.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "tapx.h"

/*
 * A counter as ethtool -S names it: where the device's per-CPU copy keeps
 * it, and, for one also counted per queue (queue_N_<name>), where the
 * queue's does.
 */
struct tapx_stat_desc {
	char name[ETH_GSTRING_LEN];
	size_t offset;
	bool per_queue;
	size_t qoffset;
};

#define TAPX_DEV_STAT(name, field) { name, TAPX_STAT(field) }
#define TAPX_QUEUE_STAT(name, field)                                           \
	{ name, TAPX_STAT(field), true, TAPX_QSTAT(field) }

/* In ethtool -S's order; per queue, those marked, in the same order. */
static const struct tapx_stat_desc tapx_stats_desc[] = {
	TAPX_QUEUE_STAT("rx_packets", rx_packets),
	TAPX_QUEUE_STAT("rx_bytes", rx_bytes),
	TAPX_DEV_STAT("rx_dropped", rx_dropped),
	TAPX_DEV_STAT("rx_errors", rx_errors),
	TAPX_QUEUE_STAT("tx_packets", tx_packets),
	TAPX_QUEUE_STAT("tx_bytes", tx_bytes),
	TAPX_DEV_STAT("tx_dropped", tx_dropped),
	TAPX_QUEUE_STAT("xdp_pass", xdp[TAPX_V_PASS]),
	TAPX_QUEUE_STAT("xdp_drop", xdp[TAPX_V_DROP]),
	TAPX_QUEUE_STAT("xdp_tx", xdp[TAPX_V_TX]),
	TAPX_QUEUE_STAT("xdp_redirect", xdp[TAPX_V_REDIRECT]),
	TAPX_QUEUE_STAT("xdp_aborted", xdp[TAPX_V_ABORTED]),
	TAPX_DEV_STAT("xdp_tx_errors", xdp_tx_errors),
	TAPX_DEV_STAT("xdp_redirect_errors", xdp_redirect_errors),
	TAPX_DEV_STAT("xdp_redirect_linearized", xdp_redirect_linearized),
	TAPX_DEV_STAT("xdp_gso_drops", xdp_gso_drops),
	TAPX_DEV_STAT("xdp_frags_drops", xdp_frags_drops),
	TAPX_QUEUE_STAT("xdp_xmit", xdp_xmit),
	TAPX_DEV_STAT("xdp_xmit_errors", xdp_xmit_errors),
	TAPX_DEV_STAT("ring_full_drops", ring_full_drops),
	TAPX_DEV_STAT("vhost_rx", vhost_rx),
	TAPX_DEV_STAT("xdp_tx_linearized", xdp_tx_linearized),
};

#define TAPX_NR_STATS ARRAY_SIZE(tapx_stats_desc)

/* The counters of a queue, the ones marked per_queue. */
static unsigned int tapx_nr_qstats(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < TAPX_NR_STATS; i++)
		n += tapx_stats_desc[i].per_queue;
	return n;
}

/*
 * Sums every CPU's copy of the counters at @pcpu, a device's or (@queue) a
 * queue's, whose struct keeps its u64_stats_sync at offset @syncp, into
 * @data in ethtool -S's order. Returns how many it stored.
 */
static unsigned int tapx_stats_fold(const void __percpu *pcpu, size_t syncp,
				    bool queue, u64 *data)
{
	unsigned int start, i, n = 0;
	size_t offset[TAPX_NR_STATS];
	u64 v[TAPX_NR_STATS];
	int cpu;

	for (i = 0; i < TAPX_NR_STATS; i++) {
		const struct tapx_stat_desc *d = &tapx_stats_desc[i];

		if (!queue)
			offset[n++] = d->offset;
		else if (d->per_queue)
			offset[n++] = d->qoffset;
	}

	memset(data, 0, n * sizeof(*data));
	for_each_possible_cpu(cpu) {
		const void *base = per_cpu_ptr(pcpu, cpu);
		const struct u64_stats_sync *sync = base + syncp;

		do {
			start = u64_stats_fetch_begin(sync);
			for (i = 0; i < n; i++)
				v[i] = u64_stats_read(base + offset[i]);
		} while (u64_stats_fetch_retry(sync, start));

		for (i = 0; i < n; i++)
			data[i] += v[i];
	}
	return n;
}

/* ndo_get_stats64: the device's rx and tx counters, for ip -s link. */
void tapx_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	int cpu;

	for_each_possible_cpu(cpu) {
		const struct tapx_pcpu_stats *st;
		u64 rx_packets, rx_bytes, rx_dropped, rx_errors;
		u64 tx_packets, tx_bytes, tx_dropped;
		unsigned int start;

		st = per_cpu_ptr(tapx->stats, cpu);
		do {
			start = u64_stats_fetch_begin(&st->syncp);
			rx_packets = u64_stats_read(&st->rx_packets);
			rx_bytes = u64_stats_read(&st->rx_bytes);
			rx_dropped = u64_stats_read(&st->rx_dropped);
			rx_errors = u64_stats_read(&st->rx_errors);
			tx_packets = u64_stats_read(&st->tx_packets);
			tx_bytes = u64_stats_read(&st->tx_bytes);
			/* The stack's tx_dropped: ring-full drops too. */
			tx_dropped = u64_stats_read(&st->tx_dropped) +
				     u64_stats_read(&st->ring_full_drops);
		} while (u64_stats_fetch_retry(&st->syncp, start));

		s->rx_packets += rx_packets;
		s->rx_bytes += rx_bytes;
		s->rx_dropped += rx_dropped;
		s->rx_errors += rx_errors;
		s->tx_packets += tx_packets;
		s->tx_bytes += tx_bytes;
		s->tx_dropped += tx_dropped;
	}
}

static void tapx_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	struct tapx_dev *tapx = netdev_priv(dev);

	if (!tapx_tun_compat) {
		strscpy(info->driver, TAPX_DRV_NAME, sizeof(info->driver));
		strscpy(info->version, TAPX_DRV_VERSION, sizeof(info->version));
		strscpy(info->bus_info, TAPX_DRV_NAME, sizeof(info->bus_info));
		return;
	}
	/*
	 * In tun's place: tun's driver name and bus-info (udev's
	 * ID_NET_DRIVER, networkd's Driver=); the version says it is tapx.
	 */
	strscpy(info->driver, "tun", sizeof(info->driver));
	strscpy(info->version, TAPX_DRV_NAME " " TAPX_DRV_VERSION,
		sizeof(info->version));
	strscpy(info->bus_info, tapx->flags & IFF_TUN ? "tun" : "tap",
		sizeof(info->bus_info));
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
	return TAPX_NR_STATS + tapx->numqueues * tapx_nr_qstats();
}

static void tapx_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int q, i;

	if (sset != ETH_SS_STATS)
		return;
	for (i = 0; i < TAPX_NR_STATS; i++)
		ethtool_sprintf(&buf, "%s", tapx_stats_desc[i].name);
	for (q = 0; q < tapx->numqueues; q++)
		for (i = 0; i < TAPX_NR_STATS; i++)
			if (tapx_stats_desc[i].per_queue)
				ethtool_sprintf(&buf, "queue_%u_%s", q,
						tapx_stats_desc[i].name);
}

static void tapx_get_ethtool_stats(struct net_device *dev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct tapx_dev *tapx = netdev_priv(dev);
	unsigned int q;

	data += tapx_stats_fold(tapx->stats,
				offsetof(struct tapx_pcpu_stats, syncp), false,
				data);
	for (q = 0; q < tapx->numqueues; q++) {
		struct tapx_file *tfile = rtnl_dereference(tapx->tfiles[q]);
		size_t syncp = offsetof(struct tapx_pcpu_qstats, syncp);

		data += tapx_stats_fold(tfile->qstats, syncp, true, data);
	}
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

const struct ethtool_ops tapx_ethtool_ops = {
	.get_drvinfo = tapx_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = tapx_get_link_ksettings,
	.get_sset_count = tapx_get_sset_count,
	.get_strings = tapx_get_strings,
	.get_ethtool_stats = tapx_get_ethtool_stats,
};
