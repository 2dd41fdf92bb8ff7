// SPDX-License-Identifier: GPL-2.0
/*
 * tapx counters: the per-CPU device and queue counters summed for
 * `ethtool -S` and ndo_get_stats64, and the rest of the ethtool ops.
 */
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

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
	[TAPX_VHOST_RX] = "vhost_rx",
	[TAPX_XDP_TX_LINEAR] = "xdp_tx_linearized",
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

static void tapx_get_drvinfo(struct net_device *dev,
			     struct ethtool_drvinfo *info)
{
	strscpy(info->driver, TAPX_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, TAPX_DRV_VERSION, sizeof(info->version));
	strscpy(info->bus_info, TAPX_DRV_NAME, sizeof(info->bus_info));
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

const struct ethtool_ops tapx_ethtool_ops = {
	.get_drvinfo = tapx_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_link_ksettings = tapx_get_link_ksettings,
	.get_sset_count = tapx_get_sset_count,
	.get_strings = tapx_get_strings,
	.get_ethtool_stats = tapx_get_ethtool_stats,
};
