/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx - a tun-compatible tap driver whose write path is XDP-first.
 *
 * Objects:
 *   struct tapx_file  one open /dev/net/tapx = one queue; owns the reader
 *                     ring, the wait queue, the xdp_rxq_info and the
 *                     queue's counters, and the socket vhost-net sends
 *                     and receives on (tapx_vhost.c), which lives as long
 *                     as the file. (Buffers of written frames come from a
 *                     per-CPU cache, tapx_buf.h.)
 *                     Bound to at most one device, as an attached queue
 *                     (in tapx->tfiles[]) or a detached one (TUNSETQUEUE
 *                     IFF_DETACH_QUEUE; on tapx->disabled, still bound).
 *   struct tapx_dev   netdev_priv() of a tapx interface: flags, owner,
 *                     vnet header settings, the XDP program, counters and
 *                     the RCU array of attached queues.
 *
 * Locking:
 *   rtnl             attach, detach, device creation and deletion, ioctls
 *                    that change the device, the XDP program pointer, the
 *                    queue array's writers, numdisabled and the disabled list.
 *   RCU              tapx->tfiles[], tapx->numqueues (READ_ONCE),
 *                    tfile->tapx and tapx->xdp_prog for the data paths.
 *   Writers take no lock and no device reference. Every writer meets its
 *                    device in a bound section (tapx_bound_begin(): BH
 *                    disabled, which is an RCU read-side section), from
 *                    looking up tfile->tapx to the verdict. A write of one
 *                    frame up to a page is one bound section, its copy
 *                    made with page faults disabled. A copy that may sleep
 *                    (a fault, a larger frame, a batch) reads what it
 *                    needs of the device first (struct tapx_write_cfg, under
 *                    RCU), copies without touching the device, then opens
 *                    the bound section and compares the device it finds
 *                    with the one it copied for: detach and deletion never
 *                    wait for a sleeping writer, and a writer never uses a
 *                    device it did not find in its current section.
 *                    Several writers of one fd run concurrently; each
 *                    buffer is its writer's alone.
 *   tapx_bufs_lock() this CPU's buffer cache (a local_lock, tapx_buf.h).
 *   ptr_ring locks   producers (xmit, XDP_TX, ndo_xdp_xmit) and the reader;
 *                    with IFF_BACKPRESSURE, xmit stops a tx queue under the
 *                    producer lock and the reader restarts it under the
 *                    consumer lock (tapx_ring.c); whoever else touches
 *                    that queue's state takes both (tapx_queue_restart()).
 */
#ifndef TAPX_H
#define TAPX_H

#include <linux/if_tun.h>
#include <linux/netdevice.h>
#include <linux/net.h>
#include <linux/ptr_ring.h>
#include <linux/sizes.h>
#include <linux/u64_stats_sync.h>
#include <linux/uio.h>
#include <linux/virtio_byteorder.h>
#include <linux/virtio_net.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <net/netns/generic.h>
#include <net/xdp.h>

#include "compat.h"
#include "uapi/linux/tapx.h"

#define TAPX_DRV_NAME "tapx"
/* TAPX_DRV_VERSION comes from the project's VERSION file (Kbuild). */

/*
 * Flags userspace may set with TUNSETIFF and that tapx supports; what
 * TUNGETFEATURES reports.
 */
#define TAPX_IFF_FEATURES                                                      \
	(IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE | IFF_VNET_HDR |        \
	 IFF_MULTI_QUEUE | IFF_NAPI | IFF_NAPI_FRAGS | TAPX_IFF_BACKPRESSURE)
/* The device type: L3 (IFF_TUN, tapx_l3.c) or Ethernet (IFF_TAP). */
#define TAPX_TYPE_MASK (IFF_TUN | IFF_TAP)

/* tun's tx_queue_len of L3 devices, theirs with tun_compat (the qdisc's). */
#define TAPX_TUN_QLEN 500

/* Queues (files) per device, attached plus detached; tun's limit. */
#define TAPX_MAX_QUEUES 256
/* Offloads userspace can accept on read (TUNSETOFFLOAD). */
#define TAPX_USER_FEATURES                                                     \
	(NETIF_F_HW_CSUM | NETIF_F_TSO_ECN | NETIF_F_TSO | NETIF_F_TSO6 |      \
	 TAPX_F_USO | TAPX_F_UDP_TUNNEL)
/* The segmentation offloads a UDP-tunnel one needs beside it, as tun. */
#define TAPX_PLAIN_GSO (NETIF_F_TSO | NETIF_F_TSO6 | TAPX_F_USO)

/* Private flag bits kept in tapx_dev.flags next to the IFF_* ones. */
#define TAPX_VNET_LE 0x80000000
#define TAPX_VNET_BE 0x40000000

/* Largest frame userspace may write (without vnet header / PI). */
#define TAPX_MAX_FRAME 65535
#define TAPX_MIN_FRAME ETH_HLEN

/* The checksum field a vnet header's csum_offset points at. */
#define TAPX_CSUM_LEN sizeof(__sum16)

/* Headroom and tailroom of a written frame's first buffer. */
#define TAPX_HEADROOM XDP_PACKET_HEADROOM
#define TAPX_SHINFO SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
/* Largest frame that fits a one-page buffer, as an xdp_buff's first one. */
#define TAPX_LINEAR_MAX (PAGE_SIZE - TAPX_HEADROOM - TAPX_SHINFO)
/*
 * Jumbo frames (up to TAPX_JUMBO_MAX, a 9000 B MTU with room to spare) are
 * still written into one buffer, of a compound page (tapx_buf.c), so that
 * a redirect or XDP_TX needs no copy into one and the skb of a PASS is
 * linear; larger frames, or when no compound page is to be had, go in page
 * fragments (XDP multi-buffer). Either way only a program with xdp.frags
 * sees a frame larger than TAPX_LINEAR_MAX.
 */
#define TAPX_JUMBO_BUF SZ_16K
#define TAPX_JUMBO_PAGE SZ_32K
#define TAPX_JUMBO_MAX (TAPX_JUMBO_BUF - TAPX_HEADROOM - TAPX_SHINFO)

/* MTUs: any frame size, and frames one buffer holds (no xdp.frags). */
#define TAPX_MAX_MTU (TAPX_MAX_FRAME - ETH_HLEN)
#define TAPX_LINEAR_MTU (TAPX_LINEAR_MAX - ETH_HLEN)

/*
 * Buffers of dropped frames (and of jumbo frames read) kept for reuse per
 * CPU (tapx_buf.h): head buffers for a full batch of small frames,
 * page-sized fragments for a round of large ones (tapx_wframes_copy), at
 * most TAPX_SPARE_BYTES.
 */
#define TAPX_SPARE_MAX TAPX_BATCH_MAX
#define TAPX_SPARE_BYTES (256 * 1024)
#define TAPX_SPARE_FRAGS (TAPX_SPARE_BYTES / PAGE_SIZE)

/*
 * The verdicts as counted (xdp[] below; the tally, tapx_xdp.h): unknown
 * ones count as ABORTED.
 */
enum tapx_verdict {
	TAPX_V_PASS,
	TAPX_V_DROP,
	TAPX_V_TX,
	TAPX_V_REDIRECT,
	TAPX_V_ABORTED,
	TAPX_NR_V
};

/*
 * A device's counters, per CPU; each is named in ethtool -S as its field
 * is (tapx_ethtool.c), and ip -s link shows the rx_* and tx_* ones.
 */
struct tapx_pcpu_stats {
	/* Frames written by userspace and accepted. */
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	/* Written frames dropped by the driver (not XDP). */
	u64_stats_t rx_dropped;
	/* Malformed writes: runt, oversize, bad vnet header. */
	u64_stats_t rx_errors;
	u64_stats_t tx_packets; /* frames queued to the reader */
	u64_stats_t tx_bytes;
	/* Frames for the reader dropped (no reader, errors). */
	u64_stats_t tx_dropped;
	/* Frames each verdict was carried out for: xdp_pass..xdp_aborted. */
	u64_stats_t xdp[TAPX_NR_V];
	u64_stats_t xdp_tx_errors; /* XDP_TX frames that could not be queued */
	u64_stats_t xdp_redirect_errors; /* xdp_do_redirect() failed */
	/* Multi-buffer frames copied into one buffer for a redirect. */
	u64_stats_t xdp_redirect_linearized;
	/* GSO frames with a TX or REDIRECT verdict (README). */
	u64_stats_t xdp_gso_drops;
	/* Frames over a page, for a program without xdp.frags. */
	u64_stats_t xdp_frags_drops;
	u64_stats_t xdp_xmit; /* frames received through ndo_xdp_xmit */
	u64_stats_t xdp_xmit_errors; /* ndo_xdp_xmit frames refused */
	u64_stats_t ring_full_drops; /* reader ring full: frame dropped */
	u64_stats_t vhost_rx; /* ring entries vhost-net copied to its guest */
	u64_stats_t xdp_tx_linearized; /* multi-buffer XDP_TX frames copied */
	struct u64_stats_sync syncp;
};

/* A device counter, for tapx_stat_add() and the tables that name them. */
#define TAPX_STAT(field) offsetof(struct tapx_pcpu_stats, field)

/*
 * A queue's counters, per CPU (ethtool -S queue_N_*). The xdp[] ones count
 * the program's verdicts on frames written to this queue; tx_* count
 * frames queued to this queue's reader.
 */
struct tapx_pcpu_qstats {
	u64_stats_t rx_packets;
	u64_stats_t rx_bytes;
	u64_stats_t tx_packets;
	u64_stats_t tx_bytes;
	u64_stats_t xdp[TAPX_NR_V]; /* xdp_pass..xdp_aborted */
	u64_stats_t xdp_xmit; /* frames received through ndo_xdp_xmit */
	struct u64_stats_sync syncp;
};

#define TAPX_QSTAT(field) offsetof(struct tapx_pcpu_qstats, field)

struct tapx_dev;

struct tapx_file {
	/* Bound device (attached or detached queue) or NULL. */
	struct tapx_dev __rcu *tapx;
	struct net *net;
	struct ptr_ring ring; /* skbs and tagged xdp_frames for read() */
	wait_queue_head_t wq;
	struct xdp_rxq_info xdp_rxq;
	/*
	 * vhost-net's view of the file (tapx_vhost.c): sock.file is the file,
	 * sk lives as long as it; sk->sk_sndbuf is TUNSETSNDBUF's value.
	 */
	struct socket sock;
	struct sock *sk;
	int ifindex; /* TUNSETIFINDEX: of the device TUNSETIFF creates */
	/*
	 * Multi-queue; changed under rtnl, queue_index also under the ring's
	 * consumer lock (the reader restarts the tx queue of its slot).
	 */
	u16 queue_index; /* slot in tapx->tfiles[] while attached */
	/* IFF_BACKPRESSURE: entries read since the queue stopped (consumer lock) */
	unsigned int consumed;
	bool detached; /* bound but detached: on tapx->disabled */
	struct list_head next; /* tapx->disabled */
	struct tapx_pcpu_qstats __percpu *qstats;
	/* PASS delivery through NAPI (tapx_napi.c); napi_on is set at bind. */
	bool napi_on;
	struct sk_buff_head napi_queue;
	struct napi_struct napi;
};

struct tapx_dev {
	struct net_device *dev;
	/* Attached queues: slots 0..numqueues-1, packed (detach moves the last). */
	struct tapx_file __rcu *tfiles[TAPX_MAX_QUEUES];
	unsigned int numqueues;
	unsigned int numdisabled;
	struct list_head disabled; /* detached but still bound files */
	struct bpf_prog __rcu *xdp_prog;
	unsigned int flags; /* IFF_* and TAPX_VNET_*; WRITE_ONCE under rtnl */
	int vnet_hdr_sz;
	kuid_t owner;
	kgid_t group;
	netdev_features_t offload; /* TUNSETOFFLOAD: what the reader accepts */
	struct tapx_pcpu_stats __percpu *stats;
	/* tun's filters on transmitted frames (tapx_filter.c). */
	struct tapx_txfilter __rcu *txfilter;
	struct tapx_sock_filter __rcu *sock_filter;
	struct sock_fprog sock_fprog; /* as TUNATTACHFILTER gave it */
	struct bpf_prog __rcu *filter_prog;
	struct bpf_prog __rcu *steering_prog;
};

/*
 * What a write needs of its device to parse and copy a frame, read under
 * RCU before a copy that may sleep: the copy then never touches the device.
 */
struct tapx_write_cfg {
	unsigned int flags; /* tapx->flags: IFF_NO_PI, IFF_VNET_HDR, VNET_LE/BE */
	unsigned int vnet_hdr_sz; /* with IFF_VNET_HDR, else 0 */
};

/*
 * One written frame between its copy into a buffer (may sleep) and its XDP
 * run (BH disabled, RCU).
 */
struct tapx_wframe {
	void *buf; /* head buffer: headroom, data, skb_shared_info */
	unsigned int buflen;
	unsigned int len; /* frame length, without PI and vnet header */
	struct virtio_net_hdr vnet;
	/* The header's UDP-tunnel offsets, read with a UDP-tunnel GSO type. */
	struct tapx_vnet_tnl tnl;
	bool has_vnet; /* vnet metadata (checksum, GSO) to apply */
};

/*
 * The stages of the data path, one file each, in the order a written frame
 * goes through them; then the device and the character device around them.
 */

/* tapx_write.c: write() entry (the headers: tapx_parse.h) */
ssize_t tapx_write(struct tapx_file *tfile, struct iov_iter *from);
ssize_t tapx_write_iter(struct kiocb *iocb, struct iov_iter *from);
ssize_t tapx_chr_write(struct file *file, const char __user *buf, size_t len,
		       loff_t *ppos);

/* tapx_l3.c: writes to IFF_TUN devices (skbs, no XDP) */
ssize_t tapx_l3_write(struct tapx_file *tfile, struct tapx_dev *tapx,
		      const struct tapx_write_cfg *cfg, struct iov_iter *from);

/* tapx_buf.c: buffers of written frames (fast path in tapx_buf.h) */
int tapx_bufs_init(void);
void tapx_bufs_exit(void);
void *tapx_buf_alloc(unsigned int *buflen);
void tapx_buf_free(void *buf, unsigned int buflen);
int tapx_fill(struct iov_iter *from, struct tapx_wframe *f);
void tapx_wframe_drop(struct tapx_wframe *f);

/* tapx_xdp.c: the program and its verdicts */
bool tapx_wframes_run(struct tapx_file *tfile, struct tapx_dev *tapx,
		      struct tapx_wframe *f, unsigned int n);
bool tapx_vhost_bufs_run(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct xdp_buff *xbuffs, unsigned int n);

/* tapx_ring.c: the reader ring, read(), ndo_xdp_xmit (tapx_ring.h) */

/* tapx_napi.c: PASS delivery */
void tapx_napi_attach(struct tapx_file *tfile, struct tapx_dev *tapx);
void tapx_napi_detach(struct tapx_file *tfile);
void tapx_napi_receive(struct tapx_file *tfile, struct sk_buff *skb);

/*
 * End of a write or batch: let the poll run when the writer re-enables BH.
 * Called with BH disabled, with the file bound. Inline: without NAPI (the
 * default) it is one test per write.
 */
static inline void tapx_napi_flush(struct tapx_file *tfile)
{
	if (tfile->napi_on && !skb_queue_empty_lockless(&tfile->napi_queue))
		napi_schedule(&tfile->napi);
}

/* tapx_batch.c: TAPXSUBMIT, TAPXRECV */
long tapx_batch_ioctl(struct file *file, unsigned int cmd,
		      struct tapx_batch __user *ub);

/* tapx_netdev.c: netdev ops, queues, link ops */
extern struct rtnl_link_ops tapx_link_ops;
extern const struct attribute_group tapx_attr_group;
int tapx_link_register(void);
void tapx_setup(struct net_device *dev);
void tapx_l3_setup(struct net_device *dev);
int tapx_set_link(struct net_device *dev, unsigned long type);
int tapx_set_offload(struct tapx_dev *tapx, unsigned long arg);
int tapx_attach(struct tapx_file *tfile, struct tapx_dev *tapx);
void tapx_queue_detach(struct tapx_file *tfile, struct tapx_dev *tapx);
void tapx_file_unbind(struct tapx_file *tfile);
void tapx_detach_all(struct tapx_dev *tapx);

bool tapx_runs_xdp(struct tapx_dev *tapx);
void tapx_net_sock_xdp(struct net *net);

/*
 * tapx_defprog.c: a namespace's default XDP program, which its taps run
 * while they have none of their own.
 */
struct tapx_net {
	struct bpf_prog __rcu *def_prog;
};

extern unsigned int tapx_net_id;
int tapx_defprog_init(void);
void tapx_defprog_exit(void);
long tapx_defprog_ioctl(struct tapx_file *tfile, unsigned int cmd,
			void __user *argp);

static inline struct tapx_net *tapx_net(const struct net *net)
{
	return net_generic(net, tapx_net_id);
}

/* In a bound section (BH disabled): the default of @tapx's namespace. */
static inline struct bpf_prog *tapx_def_prog(const struct tapx_dev *tapx)
{
	return rcu_dereference_bh(tapx_net(dev_net(tapx->dev))->def_prog);
}

/* tapx_ethtool.c: counters */
extern const struct ethtool_ops tapx_ethtool_ops;
void tapx_get_stats64(struct net_device *dev, struct rtnl_link_stats64 *s);

/* tapx_chr.c: the character device */
extern bool tapx_tun_compat;
int tapx_chr_register(void);
void tapx_chr_unregister(void);

/* tapx_vhost.c: the socket vhost-net uses */
int tapx_sock_init(struct tapx_file *tfile, struct file *file);
void tapx_sock_release(struct tapx_file *tfile);
void tapx_sock_xdp(struct tapx_file *tfile, bool on);
void tapx_dev_sock_xdp(struct tapx_dev *tapx, bool on);

/* tapx_filter.c */
unsigned int tapx_filter_skb(struct tapx_dev *tapx, struct sk_buff *skb);
bool tapx_steer(struct tapx_dev *tapx, struct sk_buff *skb,
		unsigned int nqueues, u16 *queue);
long tapx_filter_ioctl(struct tapx_dev *tapx, unsigned int cmd,
		       void __user *argp);
void tapx_filters_release(struct tapx_dev *tapx);

/* Adds @n to the device counter at @stat, a TAPX_STAT(). */
static inline void tapx_stat_add(struct tapx_dev *tapx, size_t stat, u64 n)
{
	struct tapx_pcpu_stats *st = this_cpu_ptr(tapx->stats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_add((u64_stats_t *)((void *)st + stat), n);
	u64_stats_update_end(&st->syncp);
}

static inline void tapx_stat_inc(struct tapx_dev *tapx, size_t stat)
{
	tapx_stat_add(tapx, stat, 1);
}

/*
 * @n frames of @bytes queued to @tfile's reader: the device's and the
 * queue's tx counters, and xdp_xmit too for ndo_xdp_xmit, in one update
 * each.
 */
static inline void tapx_stat_tx(struct tapx_dev *tapx, struct tapx_file *tfile,
				u32 n, u64 bytes, bool xmit)
{
	struct tapx_pcpu_stats *st = this_cpu_ptr(tapx->stats);
	struct tapx_pcpu_qstats *q = this_cpu_ptr(tfile->qstats);

	u64_stats_update_begin(&st->syncp);
	u64_stats_add(&st->tx_packets, n);
	u64_stats_add(&st->tx_bytes, bytes);
	if (xmit)
		u64_stats_add(&st->xdp_xmit, n);
	u64_stats_update_end(&st->syncp);

	u64_stats_update_begin(&q->syncp);
	u64_stats_add(&q->tx_packets, n);
	u64_stats_add(&q->tx_bytes, bytes);
	if (xmit)
		u64_stats_add(&q->xdp_xmit, n);
	u64_stats_update_end(&q->syncp);
}

/* One user buffer of a batch descriptor as an iov_iter. */
static inline int tapx_ubuf(unsigned int dir, u64 addr, u32 len,
			    struct iov_iter *i)
{
	void __user *p = u64_to_user_ptr(addr);

	if (unlikely(!access_ok(p, len)))
		return -EFAULT;
	iov_iter_ubuf(i, dir, p, len);
	return 0;
}

/*
 * The device's flags as tun reports them: TUNGETIFF, sysfs tun_flags (the
 * type, the TUNSETIFF features, IFF_PERSIST).
 */
static inline unsigned int tapx_iff_flags(const struct tapx_dev *tapx)
{
	return READ_ONCE(tapx->flags) & (TAPX_IFF_FEATURES | IFF_PERSIST);
}

/*
 * The vnet header's byte order, as tun's: TUNSETVNETLE wins; otherwise a
 * legacy (pre-virtio 1.0) header is in the host's order, or big-endian
 * after TUNSETVNETBE.
 */
static inline bool tapx_flags_vnet_le(unsigned int flags)
{
	if (flags & TAPX_VNET_LE)
		return true;
	return flags & TAPX_VNET_BE ? false : virtio_legacy_is_little_endian();
}

static inline bool tapx_vnet_le(const struct tapx_dev *tapx)
{
	return tapx_flags_vnet_le(READ_ONCE(tapx->flags));
}

/* Under RCU, with tapx found there. */
static inline void tapx_write_cfg_get(const struct tapx_dev *tapx,
				      struct tapx_write_cfg *cfg)
{
	cfg->flags = READ_ONCE(tapx->flags);
	cfg->vnet_hdr_sz =
		cfg->flags & IFF_VNET_HDR ? READ_ONCE(tapx->vnet_hdr_sz) : 0;
}

/*
 * The device @tfile is bound to, and in @cfg what a write needs of it; NULL
 * if unbound. For the writes whose copy may sleep: after the copy the
 * pointer is only compared with the binding again, never dereferenced.
 */
static inline struct tapx_dev *tapx_write_cfg_bound(struct tapx_file *tfile,
						    struct tapx_write_cfg *cfg)
{
	struct tapx_dev *tapx;

	rcu_read_lock();
	tapx = rcu_dereference(tfile->tapx);
	if (tapx)
		tapx_write_cfg_get(tapx, cfg);
	rcu_read_unlock();
	return tapx;
}

/*
 * The device a file is bound to, with a reference; NULL if unbound. For
 * the read side, which may sleep in the middle of a frame; writers use
 * RCU alone (see Locking above).
 */
static inline struct tapx_dev *tapx_get(struct tapx_file *tfile)
{
	struct tapx_dev *tapx;

	rcu_read_lock();
	tapx = rcu_dereference(tfile->tapx);
	if (tapx)
		dev_hold(tapx->dev);
	rcu_read_unlock();
	return tapx;
}

/* Counts a write that failed before XDP (-EINVAL: malformed); bound. */
static inline void tapx_write_failed(struct tapx_dev *tapx, int err)
{
	tapx_stat_inc(tapx, err == -EINVAL ? TAPX_STAT(rx_errors) :
					     TAPX_STAT(rx_dropped));
}

/**
 * tapx_bound_begin - open the section in which a writer meets its device
 * @xs: the writer's XDP section, declared __uninitialized (compat.h)
 * @tfile: the file written to
 *
 * Disables BH and sets up the XDP section, then looks up the device
 * @tfile is bound to. A BH-disabled section is an RCU read-side critical
 * section of its own (synchronize_rcu() and synchronize_net() wait for
 * it), as a driver's NAPI poll is, where XDP runs without rcu_read_lock()
 * since Linux 5.14: every lookup in it is rcu_dereference_bh(), and no
 * writer takes rcu_read_lock() on top (__rcu_read_lock() is a call with
 * PREEMPT_RCU, on every write).
 *
 * Returns that device, or NULL if @tfile is unbound. A writer whose copy
 * slept found its device before (tapx_write_cfg_bound()) and compares it with
 * this one. Close the section with tapx_bound_end().
 */
static __always_inline struct tapx_dev *
tapx_bound_begin(struct tapx_xdp_section *xs, struct tapx_file *tfile)
{
	tapx_xdp_section_enter(xs);
	return rcu_dereference_bh(tfile->tapx);
}

/*
 * Closes a bound section: redirects flushed once (@flush: a frame was
 * redirected), the file's NAPI poll scheduled for what was delivered while
 * it is bound (@tapx: what tapx_bound_begin() returned), BH enabled.
 */
static __always_inline void tapx_bound_end(struct tapx_xdp_section *xs,
					   struct tapx_file *tfile,
					   const struct tapx_dev *tapx,
					   bool flush)
{
	if (flush)
		xdp_do_flush();
	if (tapx)
		tapx_napi_flush(tfile);
	tapx_xdp_section_exit(xs);
}

/*
 * The attached queue for an index chosen from an earlier numqueues: a
 * queue detached meanwhile leaves its slot to another or to NULL. Slot 0
 * is NULL only when no queue is attached. Under RCU.
 */
static inline struct tapx_file *tapx_queue_get(struct tapx_dev *tapx, u32 index)
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

#endif /* TAPX_H */
