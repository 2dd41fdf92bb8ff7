// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * counters.c - what the counters say happened to a cell's frames: the
 * program's verdicts, the taps' link counters, what the readers took.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/tap_accel.h"
#include "bpf/xdp_basic.skel.h"
#include "env.h"
#include "policy_cells.h"

/* ---- counters ----------------------------------------------------------- */

/* Sum a per-CPU array of struct ta_counter, `n` keys, packets only. */
static void sum_percpu(int map_fd, unsigned int n, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct ta_counter *vals;

	if (ncpu <= 0 || map_fd < 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (__u32 key = 0; key < n; key++) {
		out[key] = 0;
		if (bpf_map_lookup_elem(map_fd, &key, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[key] += vals[c].packets;
	}
	free(vals);
}

struct link_stats {
	uint64_t rx, rx_dropped, tx_dropped;
};

static void link_stats(const char *ifname, struct link_stats *s)
{
	struct ifaddrs *list, *ifa;

	memset(s, 0, sizeof(*s));
	if (getifaddrs(&list))
		return;
	for (ifa = list; ifa; ifa = ifa->ifa_next) {
		const struct rtnl_link_stats *st = ifa->ifa_data;

		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_PACKET ||
		    !st || strcmp(ifa->ifa_name, ifname))
			continue;
		s->rx = st->rx_packets;
		s->rx_dropped = st->rx_dropped;
		s->tx_dropped = st->tx_dropped;
		break;
	}
	freeifaddrs(list);
}

/* Absolute counter values now; the caller subtracts two readings. */
void env_counts(struct bench_env *env, enum bench_prog p, struct cell_counts *c)
{
	struct link_stats w, d;
	int t = drained_tap(p);

	memset(c, 0, sizeof(*c));
	if (policy_prog(p))
		policy_counts(env->policy, c->verdict);
	else
		sum_percpu(bpf_map__fd(env->basic->maps.basic_count),
			   TA_NR_VERDICTS, c->verdict);
	link_stats(env->ifname[TAP_WRITER], &w);
	c->tap_rx = w.rx;
	c->tap_rx_dropped = w.rx_dropped;
	c->read = reader_frames(env);
	if (t >= 0) {
		link_stats(env->ifname[t], &d);
		c->read_lost = d.tx_dropped;
	}
}
