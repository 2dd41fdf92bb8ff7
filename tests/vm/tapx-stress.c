// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress - random concurrent operations against tapx.ko, then exact
 * accounting on devices that live through the whole run.
 *
 *   tapx-stress [--time S] [--seed N] [--workers N] [--node PATH]
 *               [--progs DIR] [--portmap PIN]
 *   tapx-stress --probe-vnet   a checksum-offload frame passed to the stack
 *                              arrives whole (see probe_vnet)
 *
 * --time and --seed default to vmstress= and vmseed= on /proc/cmdline
 * (60 s; a seed from the clock, printed so that vmseed= replays the same
 * operation choices; interleavings between workers are not replayed).
 *
 * Devices:
 *   xs0 (IFF_NO_PI|IFF_VNET_HDR), xs1 (PI, the target of xdp_redirect:
 *   basic_ports[0] must name it) and xs2 (IFF_NO_PI) are made by the
 *   parent before the workers fork and share its fds. They are never
 *   deleted and never re-flagged during the run; xs0 and xs1 always have a
 *   program (only attach/replace), xs2 also sees detach.
 *   xc<w><s> are each worker's churn devices, xq<w> its multi-queue
 *   device: created, re-attached, deleted, closed at random.
 *
 * Every operation is classified ok / expected error / unexpected error;
 * any unexpected error, an operation kind that never succeeded (or never
 * failed as expected where it has an error case) and any counter that does
 * not add up print FAIL lines. Exit status 0 when all checks passed.
 * The run goes on past its planned time, up to twice it, until every kind
 * has shown its outcomes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/tapx.h>

#include "tapx-test.h"

#define MAXW 8
#define NSLOT 3
#define NSTABLE 3
#define POOL 140000
#define MAXT 70000
#define VNET_SZ 10
#define PI_SZ 4
/* Headroom of a passed skb after eth_type_trans (256 + ETH_HLEN). */
#define PASS_HEADROOM 270
/* An address userspace may pass but is not mapped (see main). */
static char *bad_user;
#define BAD_KERNEL ((void *)0xffff888000000000UL)

enum op {
	OP_WRITE_S,
	OP_READ_S,
	OP_WRITE_C,
	OP_READ_C,
	OP_SETIFF,
	OP_GETIFF,
	OP_PERSIST,
	OP_OWNER,
	OP_GROUP,
	OP_VNETHDRSZ,
	OP_OFFLOAD,
	OP_SNDBUF,
	OP_VNETLE,
	OP_VNETBE,
	OP_CARRIER,
	OP_GETTERS,
	OP_BADIOCTL,
	OP_XDP,
	OP_QUEUE,
	OP_LINK,
	OP_DELLINK,
	OP_CLOSE,
	OP_RMMOD,
	OP_SUBMIT_S,
	OP_RECV_S,
	OP_FILTER,
	NR_OPS,
};

static const char *const op_name[NR_OPS] = {
	"write_stable", "read_stable", "write_churn", "read_churn",
	"TUNSETIFF",    "TUNGETIFF",   "TUNSETPERSIST", "TUNSETOWNER",
	"TUNSETGROUP",  "TUNSETVNETHDRSZ", "TUNSETOFFLOAD", "TUNSETSNDBUF",
	"TUNSETVNETLE", "TUNSETVNETBE", "TUNSETCARRIER", "getters",
	"bad_ioctl",    "xdp",         "queue",       "link_updown",
	"dellink",      "close",       "rmmod",       "TAPXSUBMIT_stable",
	"TAPXRECV_stable", "filters",
};

/* Relative frequencies. */
static const int op_weight[NR_OPS] = {
	[OP_WRITE_S] = 40, [OP_READ_S] = 20,   [OP_WRITE_C] = 12,
	[OP_READ_C] = 6,   [OP_SETIFF] = 8,    [OP_GETIFF] = 2,
	[OP_PERSIST] = 3,  [OP_OWNER] = 2,     [OP_GROUP] = 2,
	[OP_VNETHDRSZ] = 2, [OP_OFFLOAD] = 2,  [OP_SNDBUF] = 2,
	[OP_VNETLE] = 2,   [OP_VNETBE] = 2,    [OP_CARRIER] = 2,
	[OP_GETTERS] = 2,  [OP_BADIOCTL] = 3,  [OP_XDP] = 6,
	[OP_QUEUE] = 4,    [OP_LINK] = 3,      [OP_DELLINK] = 3,
	[OP_CLOSE] = 2,    [OP_RMMOD] = 1,     [OP_SUBMIT_S] = 12,
	[OP_RECV_S] = 8,   [OP_FILTER] = 3,
};

/* Kinds that must never succeed during the run. */
static int op_only_fails(int op)
{
	return op == OP_RMMOD || op == OP_BADIOCTL;
}

/* Kinds that have no error case to see. */
static int op_never_fails(int op)
{
	return op == OP_CLOSE;
}

/* What one worker saw on one stable device. */
struct sacct {
	uint64_t w_ok; /* full length returned */
	uint64_t w_einval; /* malformed: rx_errors */
	uint64_t w_efault_meta; /* header unreadable: rx_dropped */
	uint64_t w_efault_fill; /* frame unreadable: rx_dropped */
	uint64_t w_vfs; /* refused before the driver: no counter */
	uint64_t w_gap; /* headers turned to zero (see gen_vnet) */
	uint64_t r_ok; /* frames read (ret > 0) */
	uint64_t r_consumed; /* reads that took a frame off the ring */
	/* TAPXSUBMIT/TAPXRECV: their frames are also in w_ok, w_einval,
	 * r_ok and r_consumed */
	uint64_t b_ok, b_einval; /* submitted frames consumed: 0, -EINVAL */
	uint64_t b_stop; /* frames a submit stopped at (-EFAULT): uncounted */
	uint64_t b_recv; /* frames taken by TAPXRECV */
};

struct wstats {
	uint64_t ok[NR_OPS], exp[NR_OPS], unexp[NR_OPS];
	struct sacct s[NSTABLE];
	uint64_t bytes_written;
	int nreports;
};

struct shared {
	struct wstats w[MAXW];
};

static struct shared *sh;
static struct wstats *me;
static int worker_id;

struct stable {
	const char *name;
	short flags;
	int detach; /* may be left without a program */
	int fd;
	int meta; /* PI + vnet header bytes in front of every frame */
};

static struct stable st[NSTABLE] = {
	{ "xs0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 0, -1, VNET_SZ },
	{ "xs1", IFF_TAP, 0, -1, PI_SZ },
	{ "xs2", IFF_TAP | IFF_NO_PI, 1, -1, 0 },
};

static const char *node = "/dev/net/tapx";
static const char *progdir = "/sys/fs/bpf/xb";
static const char *portmap = "/sys/fs/bpf/xbm/basic_ports";
static int nworkers = 4;
static unsigned int features;
static int prog_fd[4]; /* pass, drop, tx, redirect */
static const char *const prog_name[4] = { "xdp_pass", "xdp_drop", "xdp_tx",
					  "xdp_redirect" };
static volatile sig_atomic_t stop_flag;

/* xorshift64*: small, seedable, good enough to pick operations. */
static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/*
 * Records one outcome. err is 0 on success, else the errno; exp lists the
 * errnos this call may return (0-terminated). An unexpected one is printed
 * (first few per worker) with its context.
 */
static void outcome(int op, int err, const int *exp, const char *ctx)
{
	int i;

	if (!err) {
		if (op_only_fails(op))
			goto unexpected;
		me->ok[op]++;
		return;
	}
	for (i = 0; exp && exp[i]; i++) {
		if (exp[i] == err) {
			me->exp[op]++;
			return;
		}
	}
unexpected:
	me->unexp[op]++;
	if (me->nreports++ < 8)
		fprintf(stderr, "stress: worker %d: %s (%s): unexpected %s\n",
			worker_id, op_name[op], ctx,
			err ? strerror(err) : "success");
}

#define EXP(...) ((const int[]){ __VA_ARGS__, 0 })

/* ---- netlink ---- */

/* Sends one request; returns 0 or the errno of the kernel's answer. */
static int nl_fd = -1; /* one per process: never shared across fork */

static int nl_talk(struct nlreq *r)
{
	static unsigned int seq;
	int fd = nl_fd;
	char buf[4096];
	struct nlmsghdr *h;
	ssize_t n;

	if (fd < 0) {
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (fd < 0)
			return errno;
		nl_fd = fd;
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(fd, r, r->nh.nlmsg_len, 0) < 0)
		return errno;
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0)
			return errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
		}
	}
}

/* XDP in native mode; prog -1 detaches. */
static int xdp_set(const char *dev, int prog, unsigned int flags)
{
	struct nlreq r;
	struct rtattr *nest;

	flags |= XDP_FLAGS_DRV_MODE;
	nl_init(&r, RTM_SETLINK, dev);
	nest = nl_nest(&r, IFLA_XDP);
	nl_put(&r, IFLA_XDP_FD, &prog, sizeof(prog));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nl_end(&r, nest);
	return nl_talk(&r);
}

static int link_up(const char *dev, int up)
{
	struct nlreq r;

	nl_init(&r, RTM_SETLINK, dev);
	r.ifi.ifi_change = IFF_UP;
	r.ifi.ifi_flags = up ? IFF_UP : 0;
	return nl_talk(&r);
}

static int link_del(const char *dev)
{
	struct nlreq r;

	nl_init(&r, RTM_DELLINK, dev);
	return nl_talk(&r);
}

static int set_mtu(const char *dev, int mtu)
{
	struct nlreq r;

	nl_init(&r, RTM_SETLINK, dev);
	nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	return nl_talk(&r);
}

/* ---- ethtool -S ---- */

struct estats {
	int n;
	char (*names)[ETH_GSTRING_LEN];
	uint64_t *v;
};

static int ethtool_stats(const char *dev, struct estats *e)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_gstrings *gs;
	struct ethtool_stats *gv;
	struct ifreq ifr;
	int s, ret = -1;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	ifr.ifr_data = (void *)&di;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	e->n = di.n_stats;
	gs = calloc(1, sizeof(*gs) + e->n * ETH_GSTRING_LEN);
	gv = calloc(1, sizeof(*gv) + e->n * sizeof(uint64_t));
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = e->n;
	ifr.ifr_data = (void *)gs;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	gv->cmd = ETHTOOL_GSTATS;
	gv->n_stats = e->n;
	ifr.ifr_data = (void *)gv;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	e->names = malloc(e->n * ETH_GSTRING_LEN);
	memcpy(e->names, gs->data, e->n * ETH_GSTRING_LEN);
	e->v = malloc(e->n * sizeof(uint64_t));
	memcpy(e->v, gv->data, e->n * sizeof(uint64_t));
	ret = 0;
out:
	close(s);
	return ret;
}

/* A counter by name; a missing one fails the run (returns 0). */
static uint64_t est(const struct estats *e, const char *dev, const char *k)
{
	int i;

	for (i = 0; i < e->n; i++)
		if (!strncmp(e->names[i], k, ETH_GSTRING_LEN))
			return e->v[i];
	check(0, "%s: ethtool -S has no counter %s", dev, k);
	return 0;
}

/* ---- devices ---- */

static int node_open(int nonblock)
{
	return open(node, O_RDWR | O_CLOEXEC | (nonblock ? O_NONBLOCK : 0));
}

static int set_iff(int fd, const char *name, short flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = flags;
	return ioctl(fd, TUNSETIFF, &ifr) < 0 ? errno : 0;
}

static int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

/* ---- frames ---- */

static unsigned char *pool; /* random bytes, shared read-only */
static unsigned char *wbuf, *rbuf;

/* Mirrors tapx_check_vnet (little-endian host, no TUNSETVNETBE). */
/* UDP segmentation (GSO_UDP_L4) from a vnet header: taken from 6.2 on. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
static int uso;

static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static int vnet_valid(const struct virtio_net_hdr *h, size_t len)
{
	uint16_t hdr_len = h->hdr_len;
	unsigned int start = h->csum_start, off = h->csum_offset;

	if (h->flags &
	    ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return 0;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if ((size_t)start + off + 2 > len)
			return 0;
		if (start + off + 2 > hdr_len)
			hdr_len = start + off + 2;
	}
	if (hdr_len > len)
		return 0;
	switch (h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN);
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
		return h->gso_size != 0;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		return uso && h->gso_size != 0;
	}
	return 0;
}

/*
 * Whether the PASS path (virtio_net_hdr_to_skb, which tapx calls after
 * eth_type_trans, so offsets count from the L3 header) drops a header that
 * vnet_valid accepted: such a write is accepted (rx_packets) *and* counted
 * in rx_errors when the verdict is PASS, which the workers cannot know.
 * Once tapx applies the header before eth_type_trans (as tun does), what
 * it refuses is a subset of this, so the accounting stays exact.
 */
static int vnet_pass_rejects(const struct virtio_net_hdr *h, size_t flen)
{
	unsigned int start = h->csum_start, off = h->csum_offset;
	unsigned int gso = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	size_t L = flen - 14, thlen = 0, need;

	if (!h->flags && !h->gso_type)
		return 0;
	if (gso == VIRTIO_NET_HDR_GSO_TCPV4 || gso == VIRTIO_NET_HDR_GSO_TCPV6)
		thlen = 20;
	else if (gso == VIRTIO_NET_HDR_GSO_UDP || gso == VIRTIO_NET_HDR_GSO_UDP_L4)
		thlen = 8;
	/* USO: a checksum to offload into the UDP header, no ECN, at most
	 * 128 segments (UDP_MAX_SEGMENTS) */
	if (gso == VIRTIO_NET_HDR_GSO_UDP_L4 &&
	    (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || off != 6 ||
	     h->gso_type & VIRTIO_NET_HDR_GSO_ECN ||
	     (start + thlen < L && L - (start + thlen) > (size_t)h->gso_size * 128)))
		return 1;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		need = start + (thlen > off + 2 ? thlen : off + 2);
		if (need > L || PASS_HEADROOM + start >= 65535 ||
		    start + thlen > L)
			return 1;
		if (thlen == 20 && off != 16)
			return 1;
	} else if (gso && thlen > L) {
		return 1;
	}
	return gso && h->gso_size == 0xffff;
}

/* IPv4/TCP headers after the Ethernet header, for the valid vnet kinds. */
static void put_l3(unsigned char *f, size_t flen)
{
	unsigned int tot = flen > 14 ? flen - 14 : 0;

	if (flen < 54)
		return;
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 40);
	f[14] = 0x45;
	f[16] = tot >> 8;
	f[17] = tot & 0xff;
	f[22] = 64;
	f[23] = 6;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0x30;
	f[36] = 0x00;
	f[37] = 0x50;
	f[46] = 0x50;
	f[47] = 0x10;
}

/* Fills a vnet header: mostly valid kinds, sometimes garbage. */
static void gen_vnet(struct virtio_net_hdr *h, unsigned char *f, size_t flen)
{
	unsigned int k = rn(10);

	memset(h, 0, sizeof(*h));
	switch (k) {
	case 0:
	case 1:
	case 2:
		break;
	case 3:
		h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
		break;
	case 4: /* checksum offload of a TCP frame */
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 5: /* TSO with checksum offload */
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h->gso_size = 1448;
		h->hdr_len = 54;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 6: /* invalid on purpose: each field in turn */
		switch (rn(5)) {
		case 0:
			h->flags = 0x4;
			break;
		case 1:
			h->gso_type = 2;
			break;
		case 2:
			h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
			break;
		case 3:
			h->gso_type = VIRTIO_NET_HDR_GSO_ECN;
			break;
		default:
			h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
			h->csum_start = 65000;
			h->csum_offset = 6;
			break;
		}
		break;
	default: /* random bytes */
		memcpy(h, pool + rn(POOL - 16), sizeof(*h));
		break;
	}
}

/* Frame sizes: small ones often, page-sized and multi-buffer ones too. */
static size_t gen_size(void)
{
	switch (rn(10)) {
	case 0:
		return rn(20);
	case 1:
	case 2:
	case 3:
	case 4:
		return rn(1600);
	case 5:
	case 6:
		return rn(9100);
	default:
		return rn(MAXT + 1);
	}
}

/* Ethernet header: unicast, broadcast, multicast or random. */
static void gen_eth(unsigned char *f, size_t flen)
{
	if (flen < 14)
		return;
	switch (rn(4)) {
	case 0:
		memset(f, 0xff, 6);
		break;
	case 1:
		f[0] = 0x01;
		break;
	case 2:
		f[0] = 0x02;
		break;
	default:
		break;
	}
	f[6] &= 0xfe;
}

enum wres { WR_OK, WR_EINVAL, WR_EFAULT_META, WR_EFAULT_FILL, WR_VFS, WR_ZERO };

/*
 * The bytes of one write of T bytes at buf: random content, an Ethernet
 * header, a zero PI or a vnet header (of the kinds gen_vnet makes; the
 * ones the PASS path would refuse after the write check took them are
 * zeroed and counted, see vnet_pass_rejects).
 */
static void fill_frame(unsigned char *buf, size_t T, int meta, int vnet,
		       struct sacct *acct, int *fixed_gap)
{
	size_t flen = T > (size_t)meta ? T - meta : 0;
	unsigned char *f = buf + meta;

	memcpy(buf, pool + rn(POOL - T), T);
	gen_eth(f, flen);
	if (meta >= PI_SZ && !vnet && T >= PI_SZ)
		memset(buf, 0, PI_SZ);
	if (vnet && T >= VNET_SZ) {
		struct virtio_net_hdr h;

		gen_vnet(&h, f, flen);
		if (vnet_valid(&h, flen) && flen >= 14 && flen <= 65535 &&
		    vnet_pass_rejects(&h, flen)) {
			memset(&h, 0, sizeof(h));
			*fixed_gap = 1;
			if (acct)
				acct->w_gap++;
		}
		memcpy(buf, &h, sizeof(h));
	}
}

/*
 * Builds a write of T bytes in wbuf and splits it in iovs; one may point
 * to unmapped (user) or kernel memory. *bad_at is the offset of the first
 * unreadable byte (T if none), *vfs whether the VFS refuses it first.
 */
static int gen_write(struct iovec *iov, size_t T, int meta, int vnet,
		     struct sacct *acct, size_t *bad_at, int *vfs,
		     int *fixed_gap)
{
	size_t off, n;
	int niov = 1 + rn(4), i, badi = -1;

	fill_frame(wbuf, T, meta, vnet, acct, fixed_gap);
	if (rn(20) == 0 && T)
		badi = rn(niov);
	*bad_at = T;
	*vfs = 0;
	for (i = 0, off = 0; i < niov; i++) {
		n = i == niov - 1 ? T - off : rn(T - off + 1);
		iov[i].iov_base = wbuf + off;
		iov[i].iov_len = n;
		if (i == badi && n) {
			if (rn(2)) {
				iov[i].iov_base = bad_user;
				if (off < *bad_at)
					*bad_at = off;
			} else {
				iov[i].iov_base = BAD_KERNEL;
				*vfs = 1;
			}
		}
		off += n;
	}
	return niov;
}

static ssize_t do_write(int fd, struct iovec *iov, int niov)
{
	if (niov == 1 && rn(2))
		return write(fd, iov[0].iov_base, iov[0].iov_len);
	return writev(fd, iov, niov);
}

/* The outcome tapx must give a write to a stable device (see tapx_write.c). */
static enum wres predict_buf(const struct stable *s, const unsigned char *buf,
			     size_t T, size_t bad_at, int vfs, int niov)
{
	int pi = !(s->flags & IFF_NO_PI), vnet = !!(s->flags & IFF_VNET_HDR);
	size_t need = 0, flen;

	if (vfs)
		return WR_VFS;
	if (T == 0 && niov > 1)
		return WR_ZERO; /* writev of nothing never reaches the driver */
	if (T == 0 && niov == 1)
		return WR_EINVAL; /* decided by do_write; see op_write_stable */
	if (pi) {
		if (T < PI_SZ)
			return WR_EINVAL;
		if (bad_at < PI_SZ)
			return WR_EFAULT_META;
		need = PI_SZ;
	}
	if (vnet) {
		if (T - need < VNET_SZ)
			return WR_EINVAL;
		if (bad_at < need + VNET_SZ)
			return WR_EFAULT_META;
		need += VNET_SZ;
		if (!vnet_valid((const struct virtio_net_hdr *)(buf + need -
								 VNET_SZ),
				T - need))
			return WR_EINVAL;
	}
	flen = T - need;
	if (flen < 14 || flen > 65535)
		return WR_EINVAL;
	if (bad_at < T)
		return WR_EFAULT_FILL;
	return WR_OK;
}

static enum wres predict(const struct stable *s, size_t T, size_t bad_at,
			 int vfs, int niov)
{
	return predict_buf(s, wbuf, T, bad_at, vfs, niov);
}

static void op_write_stable(void)
{
	int d = rn(NSTABLE), niov, vfs, gap = 0, err;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	size_t T = gen_size(), bad_at;
	struct iovec iov[4];
	enum wres want;
	ssize_t r;
	char ctx[96];

	niov = gen_write(iov, T, s->meta, !!(s->flags & IFF_VNET_HDR), a,
			 &bad_at, &vfs, &gap);
	/* A single iov goes through write() or writev() at random. */
	if (niov == 1 && rn(2))
		r = write(s->fd, iov[0].iov_base, iov[0].iov_len);
	else
		r = writev(s->fd, iov, niov), niov = niov == 1 ? 2 : niov;
	want = predict(s, T, bad_at, vfs, niov);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s len %zu niov %d bad_at %zu want %d ret %zd",
		 s->name, T, niov, bad_at, want, r);
	switch (want) {
	case WR_OK:
		if (r == (ssize_t)T) {
			a->w_ok++;
			me->bytes_written += T;
			outcome(OP_WRITE_S, 0, NULL, ctx);
			return;
		}
		break;
	case WR_ZERO:
		if (r == 0) {
			outcome(OP_WRITE_S, 0, NULL, ctx);
			return;
		}
		break;
	case WR_EINVAL:
		if (err == EINVAL) {
			a->w_einval++;
			outcome(OP_WRITE_S, err, EXP(EINVAL), ctx);
			return;
		}
		break;
	case WR_EFAULT_META:
	case WR_EFAULT_FILL:
	case WR_VFS:
		if (err == EFAULT) {
			if (want == WR_EFAULT_META)
				a->w_efault_meta++;
			else if (want == WR_EFAULT_FILL)
				a->w_efault_fill++;
			else
				a->w_vfs++;
			outcome(OP_WRITE_S, err, EXP(EFAULT), ctx);
			return;
		}
		break;
	}
	/* Wrong outcome: counted as unexpected, never as accepted. */
	outcome(OP_WRITE_S, err ? err : EPROTO, NULL, ctx);
}

static void op_read_stable(void)
{
	int d = rn(NSTABLE), err, kern = 0;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	size_t len;
	void *buf = rbuf;
	ssize_t r;
	char ctx[64];

	poll(&p, 1, rn(10));
	switch (rn(8)) {
	case 0:
		len = rn(16);
		break;
	case 1:
		len = 1 + rn(200);
		buf = bad_user;
		break;
	case 2:
		len = 1 + rn(200);
		buf = BAD_KERNEL;
		kern = 1;
		break;
	default:
		len = MAXT;
		break;
	}
	r = read(s->fd, buf, len);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s len %zu ret %zd", s->name, len, r);
	if (r > 0) {
		a->r_ok++;
		a->r_consumed++;
		outcome(OP_READ_S, 0, NULL, ctx);
		return;
	}
	if (r == 0) {
		/* A frame whose copy faulted returns its meta length, 0. */
		if (len)
			a->r_consumed++;
		outcome(OP_READ_S, 0, NULL, ctx);
		return;
	}
	if (!kern && (err == EINVAL || err == EFAULT))
		a->r_consumed++;
	if (err == EINVAL && len >= (size_t)s->meta)
		err = EPROTO; /* a whole header fits: must not be refused */
	outcome(OP_READ_S, err, kern ? EXP(EFAULT) : EXP(EAGAIN, EINVAL, EFAULT),
		ctx);
}

/* ---- batches on the stable devices ---- */

/* Frames of one TAPXSUBMIT: BATCH_ROOM bytes (touched as needed), then an
 * unmapped page. */
#define BATCH_ROOM (8 << 20)
static unsigned char *bbuf;
static struct tapx_desc *bdesc; /* TAPX_BATCH_MAX + 1 */

/*
 * TAPXSUBMIT of 1..64 frames (sometimes 256) to a stable device, each
 * predicted as write() of the same bytes is (predict_buf), with what the
 * batch changes (docs/batch.md): a descriptor whose bytes cannot be read
 * (header or frame, unmapped or kernel memory) stops the batch there with
 * -EFAULT and is counted nowhere; the frames before it were consumed, each
 * with status 0 (rx_packets) or -EINVAL (rx_errors). Now and then the
 * whole call is refused (count 0 or > 256, flags or reserved set, bad
 * descriptor array), consuming nothing.
 */
static void op_submit_stable(void)
{
	int d = rn(NSTABLE), gap = 0, vnet, stop_err = 0, err;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	enum wres want[TAPX_BATCH_MAX];
	unsigned int n = rn(8) ? 1 + rn(16) : rn(4) ? 1 + rn(64) : TAPX_BATCH_MAX;
	unsigned int i, stop = n, refuse = 0, straddle = 0;
	struct tapx_batch b = { .descs = (uintptr_t)bdesc, .count = n };
	size_t used = 0, T;
	char ctx[128];
	long r;

	vnet = !!(s->flags & IFF_VNET_HDR);
	switch (rn(40)) {
	case 0:
		b.count = rn(2) ? 0 : TAPX_BATCH_MAX + 1 + rn(100);
		refuse = EINVAL;
		break;
	case 1:
		b.flags = 1 + rn(1000);
		refuse = EINVAL;
		break;
	case 2:
		b.reserved = 1;
		refuse = EINVAL;
		break;
	case 3:
		b.descs = (uintptr_t)bad_user;
		refuse = EFAULT;
		break;
	}
	for (i = 0; i < n; i++) {
		size_t bad_at;
		unsigned char *p;
		int kern = 0;

		/* Up to half the room in frames of any size, then small ones:
		 * at most 4 MiB + 70 KiB + 256 x 1.6 KiB, below the straddle. */
		T = used > BATCH_ROOM / 2 ? rn(1600) : gen_size();
		p = bbuf + used;
		bad_at = T;
		switch (rn(30)) {
		case 0: /* unmapped */
			p = (unsigned char *)bad_user;
			bad_at = 0;
			break;
		case 1: /* kernel memory: access_ok() refuses it */
			p = BAD_KERNEL;
			kern = 1;
			break;
		case 2: /* runs into the unmapped page after bbuf */
			if (straddle || !T)
				break;
			straddle = 1;
			bad_at = rn(T);
			p = bbuf + BATCH_ROOM - bad_at;
			break;
		}
		if (p != (unsigned char *)bad_user && !kern) {
			unsigned char tmp[MAXT];

			fill_frame(tmp, T, s->meta, vnet, a, &gap);
			memcpy(p, tmp, bad_at);
			if (p == bbuf + used)
				used += T + rn(16);
			want[i] = predict_buf(s, tmp, T, bad_at, 0, 1);
		} else {
			/* Unreadable from the first byte: only a runt that
			 * write() would refuse before reading is consumed. */
			want[i] = kern ? WR_EFAULT_META :
				  predict_buf(s, pool, T, 0, 0, 1);
		}
		bdesc[i] = (struct tapx_desc){ .addr = (uintptr_t)p, .len = T,
					       .status = 12345 };
		if (i < stop && (want[i] == WR_EFAULT_META ||
				 want[i] == WR_EFAULT_FILL)) {
			stop = i;
			stop_err = EFAULT;
		}
	}
	b.done = 0xdead;
	r = ioctl(s->fd, TAPXSUBMIT, &b);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx),
		 "%s count %u refuse %d stop %u ret %ld errno %d done %u", s->name,
		 b.count, refuse, stop, r, err, b.done);
	if (refuse) {
		if (err == (int)refuse && (b.done == 0 || refuse == EFAULT)) {
			outcome(OP_SUBMIT_S, err, EXP(EINVAL, EFAULT), ctx);
			return;
		}
		outcome(OP_SUBMIT_S, err ? err : EPROTO, NULL, ctx);
		return;
	}
	if (err != stop_err || b.done != stop) {
		/* Count what the driver says it consumed, and fail. */
		for (i = 0; i < b.done && i < n; i++)
			if (bdesc[i].status == 0)
				a->w_ok++, a->b_ok++;
			else if (bdesc[i].status == -EINVAL)
				a->w_einval++, a->b_einval++;
		outcome(OP_SUBMIT_S, err ? err : EPROTO, NULL, ctx);
		return;
	}
	for (i = 0; i < stop; i++) {
		int st_want = want[i] == WR_OK ? 0 : -EINVAL;

		if (bdesc[i].status != st_want) {
			snprintf(ctx, sizeof(ctx),
				 "%s desc %u of %u: status %d, want %d (len %u)",
				 s->name, i, n, bdesc[i].status, st_want,
				 bdesc[i].len);
			outcome(OP_SUBMIT_S, EPROTO, NULL, ctx);
		}
		if (bdesc[i].status == 0) {
			a->w_ok++;
			a->b_ok++;
			me->bytes_written += bdesc[i].len;
		} else if (bdesc[i].status == -EINVAL) {
			a->w_einval++;
			a->b_einval++;
		}
	}
	for (i = stop; i < n; i++)
		if (bdesc[i].status != 12345)
			outcome(OP_SUBMIT_S, EPROTO, NULL,
				"a descriptor after the stop was written");
	if (stop < n)
		a->b_stop++;
	outcome(OP_SUBMIT_S, err, EXP(EFAULT), ctx);
}

/*
 * TAPXRECV of 1..32 buffers from a stable device (nonblocking): every
 * descriptor before batch.done took one frame off the ring (status 0,
 * -EMSGSIZE when cut, -EINVAL when its buffer cannot hold the headers),
 * as one read() each; a bad buffer (unmapped, kernel) stops the batch at
 * itself with -EFAULT without taking a frame, and an empty ring ends it
 * (-EAGAIN only at the first descriptor).
 */
static void op_recv_stable(void)
{
	int d = rn(NSTABLE), err, bad[32] = { 0 };
	size_t blen[32];
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	unsigned int n = 1 + rn(rn(4) ? 8 : 32), i;
	struct tapx_batch b = { .descs = (uintptr_t)bdesc, .count = n };
	size_t per = (BATCH_ROOM / 32) & ~63UL;
	char ctx[128];
	long r;

	for (i = 0; i < n; i++) {
		void *p = bbuf + i * per;
		size_t len = MAXT;

		switch (rn(12)) {
		case 0:
			len = rn(16);
			break;
		case 1:
			len = 14 + rn(200);
			break;
		case 2:
			p = bad_user;
			len = 1 + rn(200);
			bad[i] = 1;
			break;
		case 3:
			if (rn(3) == 0) {
				p = BAD_KERNEL;
				len = 1 + rn(200);
				bad[i] = 1;
			}
			break;
		}
		bdesc[i] = (struct tapx_desc){ .addr = (uintptr_t)p, .len = len,
					       .status = 12345 };
		blen[i] = len;
	}
	b.done = 0xdead;
	r = ioctl(s->fd, TAPXRECV, &b);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s count %u ret %ld errno %d done %u",
		 s->name, n, r, err, b.done);
	if (b.done > n) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	for (i = 0; i < b.done; i++) {
		int stt = bdesc[i].status;

		a->r_consumed++;
		a->b_recv++;
		if (bdesc[i].len > 0)
			a->r_ok++;
		if (bad[i]) {
			snprintf(ctx, sizeof(ctx),
				 "%s desc %u: a bad buffer took a frame", s->name,
				 i);
			outcome(OP_RECV_S, EPROTO, NULL, ctx);
		}
		/*
		 * -EINVAL: the buffer cannot hold the headers, or (vnet
		 * header) the skb's offloads have no vnet form; nothing stored.
		 */
		if (stt != 0 && stt != -EMSGSIZE &&
		    !(stt == -EINVAL && bdesc[i].len == 0 &&
		      (blen[i] < (size_t)s->meta || (s->flags & IFF_VNET_HDR)))) {
			snprintf(ctx, sizeof(ctx),
				 "%s desc %u: status %d len %u (buffer %zu)",
				 s->name, i, stt, bdesc[i].len, blen[i]);
			outcome(OP_RECV_S, EPROTO, NULL, ctx);
		}
	}
	if (err == EFAULT && !(b.done < n && bad[b.done])) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	if (err == EAGAIN && b.done) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	if (!err && !b.done) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	outcome(OP_RECV_S, err, EXP(EAGAIN, EFAULT), ctx);
}

/* ---- churn devices ---- */

struct slot {
	int fd;
	char name[IFNAMSIZ];
};

static struct slot slots[NSLOT];
static int scratch_fd; /* never attached */
static int mq_fd[2] = { -1, -1 };
static int mq_attached; /* queue 1 state, if the device exists */
static char mq_name[IFNAMSIZ];

static void churn_name(char *buf, int w, int s)
{
	snprintf(buf, IFNAMSIZ, "xc%d%d", w, s);
}

/* Any device name a churn operation may aim at. */
static void any_churn_name(char *buf)
{
	switch (rn(8)) {
	case 0:
		snprintf(buf, IFNAMSIZ, "xnone%d", rn(4));
		break;
	case 1:
		snprintf(buf, IFNAMSIZ, "tapx%d", rn(4));
		break;
	default:
		churn_name(buf, rn(nworkers), rn(NSLOT));
		break;
	}
}

static void slot_close(struct slot *sl)
{
	if (sl->fd >= 0)
		close(sl->fd);
	sl->fd = -1;
}

static void op_setiff(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	short flags = IFF_TAP;
	char name[IFNAMSIZ], ctx[64];
	int v = rn(10), err;

	if (sl->fd < 0)
		sl->fd = node_open(rn(2));
	if (sl->fd < 0) {
		outcome(OP_SETIFF, errno, NULL, "open");
		return;
	}
	if (rn(2))
		flags |= IFF_NO_PI;
	if (rn(2))
		flags |= IFF_VNET_HDR;
	if (rn(4) == 0)
		flags |= IFF_ONE_QUEUE;
	if (rn(4) == 0)
		flags |= IFF_PERSIST;
	strcpy(name, sl->name);
	snprintf(ctx, sizeof(ctx), "variant %d", v);
	switch (v) {
	case 0: /* IFF_TUN joining a tap */
		flags = IFF_TUN | IFF_NO_PI;
		strcpy(name, st[rn(NSTABLE)].name);
		break;
	case 1: /* neither TUN nor TAP */
		flags = IFF_NO_PI;
		break;
	case 2: /* IFF_NAPI_FRAGS without IFF_NAPI: EINVAL, as in tun */
		flags = (flags & ~IFF_NAPI) | IFF_NAPI_FRAGS;
		break;
	case 3: /* attached by the parent */
		strcpy(name, st[rn(NSTABLE)].name);
		break;
	case 4: /* not a tapx device */
		strcpy(name, "lo");
		break;
	case 5: /* bad pointer */
		err = ioctl(sl->fd, TUNSETIFF, bad_user) < 0 ? errno : 0;
		outcome(OP_SETIFF, err, EXP(EFAULT), ctx);
		return;
	case 6: /* somebody else's churn device */
		any_churn_name(name);
		break;
	case 7: /* kernel-chosen name (tapx%d) */
		name[0] = 0;
		break;
	case 8: /* invalid name */
		strcpy(name, "bad/name");
		break;
	default:
		break;
	}
	err = set_iff(sl->fd, name, flags);
	/*
	 * EEXIST: fd already attached (EINVAL: as a detached queue);
	 * EINVAL: bad flags, bad name, not tapx; EBUSY: the device has a
	 * file; ENFILE never. EEXIST/ENODEV can also come from a name being
	 * deleted while we create it.
	 */
	switch (v) {
	case 0:
	case 1:
	case 2:
	case 4:
	case 8:
		if (!err)
			err = EPROTO;
		outcome(OP_SETIFF, err, EXP(EINVAL, EEXIST), ctx);
		break;
	case 3:
		if (!err)
			err = EPROTO;
		outcome(OP_SETIFF, err, EXP(EBUSY, EINVAL, EEXIST), ctx);
		break;
	default:
		outcome(OP_SETIFF, err, EXP(EINVAL, EBUSY, EEXIST, ENODEV), ctx);
		break;
	}
}

/* An fd for a device ioctl: a churn slot, a stable device or unattached. */
static int pick_fd(int *stable, int allow_xs0)
{
	unsigned int k = rn(10);

	*stable = 0;
	if (k < 3) {
		int d = allow_xs0 ? rn(NSTABLE) : 1 + rn(NSTABLE - 1);

		*stable = 1;
		return st[d].fd;
	}
	if (k == 3)
		return scratch_fd;
	k = rn(NSLOT);
	return slots[k].fd >= 0 ? slots[k].fd : scratch_fd;
}

/*
 * One device ioctl with an int argument: val by value (byptr 0) or
 * through a pointer; bad pointers and bad values included by the caller.
 * Unattached and deleted-under-us fds give EBADFD.
 */
static void dev_ioctl(int op, unsigned long cmd, int byptr, long val,
		      int bad_ptr, int valid, int allow_xs0)
{
	int stable, fd = pick_fd(&stable, allow_xs0), err, x = (int)val;
	unsigned long arg = byptr ? (unsigned long)&x : (unsigned long)val;
	char ctx[64];

	if (bad_ptr)
		arg = (unsigned long)bad_user;
	err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "val %ld bad %d stable %d", val, bad_ptr,
		 stable);
	if (!err && (bad_ptr || !valid))
		err = EPROTO;
	/* A valid value through a good pointer has no error but EBADFD. */
	if (stable)
		outcome(op, err,
			bad_ptr ? EXP(EFAULT) : valid ? NULL : EXP(EINVAL), ctx);
	else
		outcome(op, err,
			bad_ptr ? EXP(EFAULT, EBADFD) :
			valid	? EXP(EBADFD) :
				  EXP(EINVAL, EBADFD),
			ctx);
}

static void op_dev_ioctl(int op)
{
	/* tun's bounds: at least 10 bytes, no upper one. */
	static const long hdrsz[] = { 10, 12, 20, 256, 257, 0, 9, -1 };
	static const long offl[] = {
		0,
		TUN_F_CSUM,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
		TUN_F_CSUM | TUN_F_UFO,
		TUN_F_TSO4,
		0x80,
	};
	static const long sndbuf[] = { 1, 65536, 0x7fffffff, 0, -1 };
	int bad = rn(8) == 0, i;

	switch (op) {
	case OP_PERSIST:
		dev_ioctl(op, TUNSETPERSIST, 0, rn(2), 0, 1, 1);
		break;
	case OP_OWNER:
	case OP_GROUP:
		i = rn(3);
		dev_ioctl(op, op == OP_OWNER ? TUNSETOWNER : TUNSETGROUP, 0,
			  i == 0 ? 0 : i == 1 ? 1000 : -1L, 0, i < 2, 1);
		break;
	case OP_VNETHDRSZ: /* never on xs0: its writes are predicted */
		i = rn(8);
		dev_ioctl(op, TUNSETVNETHDRSZ, 1, hdrsz[i], bad, i < 5, 0);
		break;
	case OP_OFFLOAD:
		i = rn(6);
		dev_ioctl(op, TUNSETOFFLOAD, 0, offl[i], 0, i < 4, 1);
		break;
	case OP_SNDBUF:
		i = rn(5);
		dev_ioctl(op, TUNSETSNDBUF, 1, sndbuf[i], bad, i < 3, 1);
		break;
	case OP_VNETLE:
		dev_ioctl(op, TUNSETVNETLE, 1, rn(2), bad, 1, 0);
		break;
	case OP_VNETBE:
		dev_ioctl(op, TUNSETVNETBE, 1, rn(2), bad, 1, 0);
		break;
	case OP_CARRIER:
		dev_ioctl(op, TUNSETCARRIER, 1, rn(2), bad, 1, 1);
		break;
	}
}

static void op_getiff(void)
{
	int stable, fd = pick_fd(&stable, 1), bad = rn(6) == 0, err;
	struct ifreq ifr;

	err = ioctl(fd, TUNGETIFF, bad ? (void *)bad_user : (void *)&ifr) < 0 ?
		      errno :
		      0;
	if (!err && bad)
		err = EPROTO;
	outcome(OP_GETIFF, err,
		stable ? EXP(EFAULT) : EXP(EFAULT, EBADFD), "TUNGETIFF");
}

static void op_getters(void)
{
	static const unsigned long cmds[] = { TUNGETFEATURES, TUNGETSNDBUF,
					      TUNGETVNETHDRSZ, TUNGETVNETLE,
					      TUNGETVNETBE };
	int stable, fd = pick_fd(&stable, 1), bad = rn(6) == 0, err, v;
	unsigned long cmd = cmds[rn(5)];

	err = ioctl(fd, cmd, bad ? (void *)bad_user : (void *)&v) < 0 ? errno :
									 0;
	if (!err && bad)
		err = EPROTO;
	outcome(OP_GETTERS, err, stable ? EXP(EFAULT) : EXP(EFAULT, EBADFD),
		"getter");
}

/* 'T' numbers nobody implements, past TAPXSUBMIT and TAPXRECV (240, 241). */
static void op_badioctl(void)
{
	int stable, fd = pick_fd(&stable, 1), err;
	unsigned long cmd = _IOC(rn(4), 'T', 242 + rn(14), rn(64));

	err = ioctl(fd, cmd, rn(2) ? (unsigned long)bad_user : 0UL) < 0 ?
		      errno :
		      0;
	if (!err)
		err = EPROTO;
	outcome(OP_BADIOCTL, err,
		stable ? EXP(EINVAL) : EXP(EINVAL, EBADFD), "bad ioctl");
}

/* A socket filter that keeps every frame, one per process. */
static int keep_all_prog(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = socket_filter_load(0xffff);
	return fd;
}

/*
 * tun's filters set and cleared under traffic: only ones that keep every
 * frame, so the counts still add up and only the swaps race the transmit
 * path. Stable taps take each; others may be unbound (EBADFD) or L3
 * (EINVAL for the MAC and classic filters).
 */
static void op_filter(void)
{
	struct sock_filter keep[] = { { 0x06, 0, 0, 0xffff } }; /* ret #0xffff */
	struct sock_fprog fp = { 1, keep };
	struct tun_filter off = { 0, 0 };
	int stable, fd = pick_fd(&stable, 1), err, pfd;
	unsigned long cmd;
	void *arg;

	switch (rn(6)) {
	case 0:
		cmd = TUNATTACHFILTER;
		arg = &fp;
		break;
	case 1:
		cmd = TUNDETACHFILTER;
		arg = &fp;
		break;
	case 2:
		cmd = TUNSETTXFILTER;
		arg = &off;
		break;
	case 3:
	case 4:
		pfd = rn(2) ? keep_all_prog() : -1;
		cmd = rn(2) ? TUNSETFILTEREBPF : TUNSETSTEERINGEBPF;
		arg = &pfd;
		break;
	default:
		pfd = -1;
		cmd = TUNSETFILTEREBPF;
		arg = &pfd;
		break;
	}
	err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
	outcome(OP_FILTER, err, stable ? NULL : EXP(EBADFD, EINVAL), "filter");
}

static void op_write_churn(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	int fd = sl->fd >= 0 ? sl->fd : scratch_fd, niov, vfs, gap, err;
	size_t T = gen_size(), bad_at;
	struct iovec iov[4];
	ssize_t r;

	/* The header layout is unknown (flags change): any split will do. */
	niov = gen_write(iov, T, rn(3) ? VNET_SZ : 0, rn(2), NULL, &bad_at,
			 &vfs, &gap);
	r = do_write(fd, iov, niov);
	err = r < 0 ? errno : 0;
	if (!err && r != (ssize_t)T)
		err = EPROTO;
	outcome(OP_WRITE_C, err, EXP(EINVAL, EFAULT, EBADFD), "churn write");
}

static void alarm_wake(int sig)
{
	(void)sig;
}

static void op_read_churn(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	int fd = sl->fd >= 0 ? sl->fd : scratch_fd, err;
	struct itimerval it = { .it_value = { 0, 20000 + rn(50000) } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	size_t len = rn(4) ? MAXT : rn(20);
	void *buf = rn(10) ? (void *)rbuf : (void *)bad_user;
	ssize_t r;

	/* Blocking reads end by a frame, a detach or this alarm (EINTR). */
	setitimer(ITIMER_REAL, &it, NULL);
	r = read(fd, buf, len);
	err = r < 0 ? errno : 0;
	setitimer(ITIMER_REAL, &off, NULL);
	outcome(OP_READ_C, err, EXP(EAGAIN, EINTR, EBADFD, EINVAL, EFAULT),
		"churn read");
}

static void op_xdp(void)
{
	char name[IFNAMSIZ], ctx[64];
	int d, p, err, noexist = 0, prog, stable = 0;

	if (rn(10) < 4) {
		d = rn(NSTABLE);
		stable = 1;
		snprintf(name, sizeof(name), "%s", st[d].name);
		p = rn(st[d].detach ? 5 : 4);
		prog = p < 4 ? prog_fd[p] : -1;
	} else {
		any_churn_name(name);
		/* No redirect on churn devices: it would skew xs1's xdp_xmit. */
		p = rn(5);
		prog = p < 3 ? prog_fd[p] : p == 3 ? -1 : scratch_fd;
		noexist = p < 3 && rn(4) == 0;
	}
	err = xdp_set(name, prog, noexist ? XDP_FLAGS_UPDATE_IF_NOEXIST : 0);
	snprintf(ctx, sizeof(ctx), "%s prog %d noexist %d", name, p, noexist);
	if (stable)
		outcome(OP_XDP, err, NULL, ctx);
	else if (prog == scratch_fd)
		outcome(OP_XDP, err ? err : EPROTO, EXP(EINVAL, ENODEV), ctx);
	else
		outcome(OP_XDP, err, EXP(ENODEV, EBUSY), ctx);
}

/*
 * Multi-queue per the if_tun.h ABI: queue 0 and queue 1 of xq<w>, queue 1
 * detached and re-attached with TUNSETQUEUE. Without IFF_MULTI_QUEUE in
 * TUNGETFEATURES, TUNSETIFF refuses the flag (EINVAL, expected), so this
 * kind never succeeds and the run fails on it.
 */
static void op_queue(void)
{
	short mq = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
	int mq_ok = !!(features & IFF_MULTI_QUEUE), err, i;
	struct ifreq ifr;
	char frame[60];

	if (mq_fd[0] < 0) {
		for (i = 0; i < 2; i++)
			mq_fd[i] = node_open(1);
		err = set_iff(mq_fd[0], mq_name, mq);
		if (!err)
			err = set_iff(mq_fd[1], mq_name, mq);
		if (err) {
			close(mq_fd[0]);
			close(mq_fd[1]);
			mq_fd[0] = mq_fd[1] = -1;
			if (mq_ok && err == EINVAL)
				err = EPROTO;
		}
		mq_attached = !err;
		outcome(OP_QUEUE, err, mq_ok ? NULL : EXP(EINVAL), "mq create");
		return;
	}
	memset(&ifr, 0, sizeof(ifr));
	switch (rn(6)) {
	case 0:
	case 1: /* detach; twice is EINVAL */
		ifr.ifr_flags = IFF_DETACH_QUEUE;
		err = ioctl(mq_fd[1], TUNSETQUEUE, &ifr) < 0 ? errno : 0;
		if (!err && !mq_attached)
			err = EPROTO;
		else if (err == EINVAL && mq_attached)
			err = EPROTO;
		if (!err)
			mq_attached = 0;
		outcome(OP_QUEUE, err, EXP(EINVAL), "detach queue");
		break;
	case 2:
	case 3: /* attach; twice is EINVAL */
		ifr.ifr_flags = IFF_ATTACH_QUEUE;
		err = ioctl(mq_fd[1], TUNSETQUEUE, &ifr) < 0 ? errno : 0;
		if (!err && mq_attached)
			err = EPROTO;
		else if (err == EINVAL && !mq_attached)
			err = EPROTO;
		if (!err)
			mq_attached = 1;
		outcome(OP_QUEUE, err, EXP(EINVAL), "attach queue");
		break;
	case 4: /* attached or detached, a queue writes (as in tun) */
		memcpy(frame, pool, sizeof(frame));
		frame[0] = 0x02;
		err = write(mq_fd[1], frame, sizeof(frame)) < 0 ? errno : 0;
		outcome(OP_QUEUE, err, NULL, "queue write");
		break;
	default: /* close both: the device goes */
		close(mq_fd[0]);
		close(mq_fd[1]);
		mq_fd[0] = mq_fd[1] = -1;
		outcome(OP_QUEUE, 0, NULL, "mq close");
		break;
	}
}

static void op_link(void)
{
	char name[IFNAMSIZ];
	int stable = rn(4) == 0, err;

	if (stable)
		snprintf(name, sizeof(name), "%s", st[rn(NSTABLE)].name);
	else
		any_churn_name(name);
	err = link_up(name, rn(3) != 0);
	outcome(OP_LINK, err, stable ? NULL : EXP(ENODEV), name);
}

static void op_dellink(void)
{
	char name[IFNAMSIZ];
	int err;

	any_churn_name(name);
	err = link_del(name);
	outcome(OP_DELLINK, err, EXP(ENODEV), name);
}

static void op_close(void)
{
	struct slot *sl = &slots[rn(NSLOT)];

	slot_close(sl);
	outcome(OP_CLOSE, 0, NULL, "close");
}

static void op_rmmod(void)
{
	int err = syscall(__NR_delete_module, "tapx", O_NONBLOCK) < 0 ? errno :
									0;

	outcome(OP_RMMOD, err, EXP(EAGAIN, EBUSY), "rmmod tapx");
}

/* A kind is covered once it has shown each outcome it must show. */
static int op_covered(int op)
{
	uint64_t ok = 0, exp = 0;
	int w;

	for (w = 0; w < nworkers; w++) {
		ok += sh->w[w].ok[op];
		exp += sh->w[w].exp[op];
	}
	return (op_only_fails(op) || ok) && (op_never_fails(op) || exp);
}

static int all_covered(void)
{
	int op;

	for (op = 0; op < NR_OPS; op++)
		if (!op_covered(op))
			return 0;
	return 1;
}

/*
 * After the planned time, half the picks go to the kinds not yet covered:
 * on a slow (debug) kernel a rare outcome, such as a read on a churned
 * device finding a frame, may not have come up yet.
 */
static int pick_uncovered(void)
{
	int op, n = 0, uncovered[NR_OPS];

	for (op = 0; op < NR_OPS; op++)
		if (!op_covered(op))
			uncovered[n++] = op;
	return n ? uncovered[rn(n)] : -1;
}

static int pick_op(int overtime)
{
	static int total;
	int i, r;

	if (overtime && rn(2)) {
		r = pick_uncovered();
		if (r >= 0)
			return r;
	}
	if (!total)
		for (i = 0; i < NR_OPS; i++)
			total += op_weight[i];
	r = rn(total);
	for (i = 0; i < NR_OPS; i++) {
		if (r < op_weight[i])
			return i;
		r -= op_weight[i];
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void worker(int w, uint64_t seed, double end, double hard_end)
{
	struct sigaction sa = { .sa_handler = alarm_wake };
	int s;

	worker_id = w;
	me = &sh->w[w];
	close(nl_fd);
	nl_fd = -1;
	rng = seed ^ (0x9e3779b97f4a7c15ULL * (w + 1));
	if (!rng)
		rng = 1;
	sigaction(SIGALRM, &sa, NULL); /* no SA_RESTART: reads get EINTR */
	for (s = 0; s < NSLOT; s++) {
		slots[s].fd = -1;
		churn_name(slots[s].name, w, s);
	}
	snprintf(mq_name, sizeof(mq_name), "xq%d", w);
	scratch_fd = node_open(1);
	wbuf = malloc(MAXT + 64);
	rbuf = malloc(MAXT + 64);
	for (;;) {
		double t = now();
		int op;

		if (t >= hard_end || (t >= end && all_covered()))
			break;
		op = pick_op(t >= end);

		switch (op) {
		case OP_WRITE_S:
			op_write_stable();
			break;
		case OP_READ_S:
			op_read_stable();
			break;
		case OP_WRITE_C:
			op_write_churn();
			break;
		case OP_READ_C:
			op_read_churn();
			break;
		case OP_SETIFF:
			op_setiff();
			break;
		case OP_GETIFF:
			op_getiff();
			break;
		case OP_GETTERS:
			op_getters();
			break;
		case OP_BADIOCTL:
			op_badioctl();
			break;
		case OP_XDP:
			op_xdp();
			break;
		case OP_QUEUE:
			op_queue();
			break;
		case OP_LINK:
			op_link();
			break;
		case OP_DELLINK:
			op_dellink();
			break;
		case OP_CLOSE:
			op_close();
			break;
		case OP_RMMOD:
			op_rmmod();
			break;
		case OP_SUBMIT_S:
			op_submit_stable();
			break;
		case OP_RECV_S:
			op_recv_stable();
			break;
		case OP_FILTER:
			op_filter();
			break;
		default:
			op_dev_ioctl(op);
			break;
		}
	}
	for (s = 0; s < NSLOT; s++)
		slot_close(&slots[s]);
	if (mq_fd[0] >= 0) {
		close(mq_fd[0]);
		close(mq_fd[1]);
	}
	close(scratch_fd);
	_exit(0);
}

/* ---- setup, accounting, cleanup ---- */

static void cmdline_defaults(double *secs, uint64_t *seed, int *have_seed)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n;

	if (!f)
		return;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(tok, "vmstress=", 9))
			*secs = atof(tok + 9);
		else if (!strncmp(tok, "vmseed=", 7)) {
			*seed = strtoull(tok + 7, NULL, 0);
			*have_seed = 1;
		}
	}
}

/* basic_ports[0] = dev: where xdp_redirect sends. */
static int set_port(const char *dev)
{
	unsigned int key = 0, ifindex = if_nametoindex(dev);
	union bpf_attr a;
	int fd = bpf_obj_get(portmap), r;

	if (fd < 0 || !ifindex)
		return errno;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	a.value = (uint64_t)(unsigned long)&ifindex;
	r = syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) < 0 ? errno :
									  0;
	close(fd);
	return r;
}

static int setup(void)
{
	char path[256];
	int i, err;

	for (i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", progdir, prog_name[i]);
		prog_fd[i] = bpf_obj_get(path);
		if (prog_fd[i] < 0) {
			fprintf(stderr, "stress: %s: %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	scratch_fd = node_open(1);
	if (scratch_fd < 0 || ioctl(scratch_fd, TUNGETFEATURES, &features)) {
		perror("stress: TUNGETFEATURES");
		return -1;
	}
	for (i = 0; i < NSTABLE; i++) {
		st[i].fd = node_open(1);
		err = st[i].fd < 0 ? errno : set_iff(st[i].fd, st[i].name,
						     st[i].flags);
		if (!err)
			err = set_mtu(st[i].name, 65521);
		if (!err)
			err = link_up(st[i].name, 1);
		if (!err && i == 1)
			err = set_port(st[i].name);
		/* xdp_redirect on xs0 (to xs1), the others at random. */
		if (!err)
			err = xdp_set(st[i].name, prog_fd[i ? rn(4) : 3], 0);
		if (err) {
			fprintf(stderr, "stress: setting up %s: %s\n",
				st[i].name, strerror(err));
			return -1;
		}
	}
	return 0;
}

/* Prints what a stuck worker waits for in the kernel. */
static void show_stuck(pid_t p)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", p);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("stress: worker pid %d kernel stack:\n%s", p, buf);
}

/*
 * Waits for the workers; one still running a minute after the end is
 * stuck (in the kernel or here): its stack is printed and it is killed.
 */
static void reap(pid_t *pid, double deadline)
{
	int w, status, left = nworkers, rounds = 0;
	pid_t p;

	while (left) {
		p = waitpid(-1, &status, WNOHANG);
		if (p > 0) {
			for (w = 0; w < nworkers; w++)
				if (pid[w] == p)
					break;
			check(WIFEXITED(status) && !WEXITSTATUS(status),
			      "worker %d exited cleanly (status 0x%x)", w, status);
			left--;
			continue;
		}
		if (now() < deadline) {
			usleep(100000);
			continue;
		}
		if (rounds++ == 3) {
			check(0, "%d workers cannot be killed: giving up", left);
			return;
		}
		for (w = 0; w < nworkers; w++) {
			if (kill(pid[w], 0))
				continue;
			check(0, "worker %d still running 60 s after the end", w);
			show_stuck(pid[w]);
			kill(pid[w], SIGKILL);
		}
		deadline += 30;
	}
}

static void print_table(struct wstats *t)
{
	int i;

	printf("stress: %-16s %10s %10s %10s\n", "op", "ok", "expected",
	       "unexpected");
	for (i = 0; i < NR_OPS; i++)
		printf("stress: %-16s %10llu %10llu %10llu\n", op_name[i],
		       (unsigned long long)t->ok[i],
		       (unsigned long long)t->exp[i],
		       (unsigned long long)t->unexp[i]);
}

/* Reads what is left in a stable device's ring; returns the count. */
static uint64_t drain(int fd)
{
	uint64_t n = 0;
	ssize_t r;

	/* Every answer but EAGAIN took a frame (see op_read_stable). */
	while ((r = read(fd, rbuf, MAXT)) >= 0 || errno != EAGAIN)
		n++;
	return n;
}

static void account(struct wstats *t)
{
	const char *v[] = { "xdp_pass",	    "xdp_drop",	    "xdp_tx",
			    "xdp_tx_errors", "xdp_redirect", "xdp_redirect_errors",
			    "xdp_aborted",   "xdp_gso_drops", "xdp_frags_drops" };
	uint64_t redirected = 0, xmit = 0, xmit_err = 0;
	struct estats e[NSTABLE];
	int i, k;

	for (i = 0; i < NSTABLE; i++) {
		struct sacct *a = &t->s[i];
		const char *n = st[i].name;
		uint64_t sum = 0, left, rxp, txp;

		left = drain(st[i].fd);
		if (ethtool_stats(n, &e[i])) {
			check(0, "%s: ethtool -S: %s", n, strerror(errno));
			continue;
		}
		rxp = est(&e[i], n, "rx_packets");
		txp = est(&e[i], n, "tx_packets");
		for (k = 0; k < 9; k++)
			sum += est(&e[i], n, v[k]);
		redirected += est(&e[i], n, "xdp_redirect");
		printf("stress: %s: writes ok %llu einval %llu efault(header) %llu "
		       "efault(frame) %llu efault(vfs) %llu gap headers zeroed %llu; "
		       "reads ok %llu consumed %llu drained %llu\n",
		       n, (unsigned long long)a->w_ok,
		       (unsigned long long)a->w_einval,
		       (unsigned long long)a->w_efault_meta,
		       (unsigned long long)a->w_efault_fill,
		       (unsigned long long)a->w_vfs,
		       (unsigned long long)a->w_gap,
		       (unsigned long long)a->r_ok,
		       (unsigned long long)a->r_consumed,
		       (unsigned long long)left);
		printf("stress: %s: of these by TAPXSUBMIT: ok %llu einval %llu, "
		       "batches stopped by a fault %llu; by TAPXRECV: %llu frames\n",
		       n, (unsigned long long)a->b_ok,
		       (unsigned long long)a->b_einval,
		       (unsigned long long)a->b_stop,
		       (unsigned long long)a->b_recv);
		printf("stress: %s:", n);
		for (k = 0; k < e[i].n; k++)
			printf(" %.*s=%llu", ETH_GSTRING_LEN, e[i].names[k],
			       (unsigned long long)e[i].v[k]);
		printf("\n");
		check(rxp == a->w_ok, "%s: rx_packets %llu == accepted writes %llu",
		      n, (unsigned long long)rxp, (unsigned long long)a->w_ok);
		check(est(&e[i], n, "rx_errors") == a->w_einval,
		      "%s: rx_errors %llu == malformed writes (EINVAL) %llu", n,
		      (unsigned long long)est(&e[i], n, "rx_errors"),
		      (unsigned long long)a->w_einval);
		check(est(&e[i], n, "rx_dropped") ==
			      a->w_efault_meta + a->w_efault_fill,
		      "%s: rx_dropped %llu == writes that faulted %llu (header "
		      "%llu + frame %llu)",
		      n, (unsigned long long)est(&e[i], n, "rx_dropped"),
		      (unsigned long long)(a->w_efault_meta + a->w_efault_fill),
		      (unsigned long long)a->w_efault_meta,
		      (unsigned long long)a->w_efault_fill);
		if (st[i].detach)
			/*
			 * tapx counts nothing for a frame that met no program
			 * (tapx_xdp_run's !prog branch), so on a device that
			 * was without one at times only >= holds.
			 */
			check(rxp >= sum,
			      "%s: rx_packets %llu >= sum of verdict counters %llu "
			      "(%llu frames met no program: no counter for them)",
			      n, (unsigned long long)rxp,
			      (unsigned long long)sum,
			      (unsigned long long)(rxp - sum));
		else
			check(rxp == sum,
			      "%s: rx_packets %llu == pass+drop+tx+tx_errors+redirect+"
			      "redirect_errors+aborted+gso_drops+frags_drops %llu",
			      n, (unsigned long long)rxp,
			      (unsigned long long)sum);
		check(a->r_ok <= txp, "%s: frames read %llu <= tx_packets %llu", n,
		      (unsigned long long)a->r_ok, (unsigned long long)txp);
		check(txp == a->r_consumed + left,
		      "%s: tx_packets %llu == frames taken by reads %llu + left "
		      "in the ring %llu",
		      n, (unsigned long long)txp,
		      (unsigned long long)a->r_consumed,
		      (unsigned long long)left);
		if (i == 1) {
			xmit = est(&e[i], n, "xdp_xmit");
			xmit_err = est(&e[i], n, "xdp_xmit_errors");
		}
	}
	check(redirected == xmit + xmit_err,
	      "xdp_redirect on xs0..xs2 %llu == xs1 xdp_xmit %llu + "
	      "xdp_xmit_errors %llu",
	      (unsigned long long)redirected, (unsigned long long)xmit,
	      (unsigned long long)xmit_err);
}

static void cleanup(void)
{
	struct if_nameindex *ni, *p;
	int i;

	for (i = 0; i < NSTABLE; i++) {
		ioctl(st[i].fd, TUNSETPERSIST, 0);
		close(st[i].fd);
	}
	close(scratch_fd);
	/* Persistent churn devices and tapx%d ones. */
	ni = if_nameindex();
	for (p = ni; p && p->if_index; p++)
		if (!strncmp(p->if_name, "xc", 2) ||
		    !strncmp(p->if_name, "xq", 2) ||
		    !strncmp(p->if_name, "tapx", 4))
			link_del(p->if_name);
	if (ni)
		if_freenameindex(ni);
	ni = if_nameindex();
	for (p = ni; p && p->if_index; p++)
		if (!strncmp(p->if_name, "xc", 2) ||
		    !strncmp(p->if_name, "xq", 2) ||
		    !strncmp(p->if_name, "xs", 2) ||
		    !strncmp(p->if_name, "tapx", 4))
			check(0, "cleanup: %s still exists", p->if_name);
	if (ni)
		if_freenameindex(ni);
}

/* ---- vnet probe ---- */

/*
 * A valid checksum-offload frame written with IFF_VNET_HDR and passed to
 * the stack (no program) must arrive whole: a packet socket sees its
 * Ethernet header, and a short frame is not dropped as malformed. Both
 * depend on the vnet header being applied before eth_type_trans, as tun
 * does; offsets in it count from the Ethernet header.
 */
static int probe_vnet(void)
{
	static const unsigned char dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct timeval tv = { 1, 0 };
	unsigned char buf[256], rx[256];
	struct virtio_net_hdr *h = (void *)buf;
	size_t sizes[2] = { 100, 60 }, k;
	struct estats e0, e1;
	int fd, ps;
	ssize_t r;

	fd = node_open(0);
	if (fd < 0 || set_iff(fd, "xp0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR) ||
	    link_up("xp0", 1)) {
		check(0, "probe: create xp0");
		return 1;
	}
	ps = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex("xp0");
	if (ps < 0 || bind(ps, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(ps, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		check(0, "probe: packet socket on xp0: %s", strerror(errno));
		return 1;
	}
	for (k = 0; k < 2; k++) {
		size_t flen = sizes[k];
		unsigned char *f = buf + VNET_SZ;

		memset(buf, 0, sizeof(buf));
		memcpy(f, dst, 6);
		memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		ethtool_stats("xp0", &e0);
		r = write(fd, buf, VNET_SZ + flen);
		check(r == (ssize_t)(VNET_SZ + flen),
		      "probe: %zu-byte TCP frame with NEEDS_CSUM 34/16 written "
		      "(ret %zd)",
		      flen, r);
		do
			r = recv(ps, rx, sizeof(rx), 0);
		while (r > 0 && memcmp(rx + 6, f + 6, 6) && memcmp(rx, f + 14, 4));
		ethtool_stats("xp0", &e1);
		check(est(&e1, "xp0", "rx_errors") == est(&e0, "xp0", "rx_errors"),
		      "probe: %zu-byte NEEDS_CSUM frame not counted in rx_errors "
		      "(%llu -> %llu)",
		      flen, (unsigned long long)est(&e0, "xp0", "rx_errors"),
		      (unsigned long long)est(&e1, "xp0", "rx_errors"));
		check(r == (ssize_t)flen && !memcmp(rx, f, 14),
		      "probe: %zu-byte NEEDS_CSUM frame reaches a packet socket "
		      "with its Ethernet header (got %zd bytes starting %02x%02x)",
		      flen, r, r > 1 ? rx[0] : 0, r > 1 ? rx[1] : 0);
	}
	close(ps);
	close(fd);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	double secs = 60, t0;
	uint64_t seed = 0;
	int have_seed = 0, i, w;
	struct wstats tot;
	pid_t pid[MAXW];

	check_prefix = "stress: ";
	uso = kernel_at_least(6, 2);
	cmdline_defaults(&secs, &seed, &have_seed);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--time") && i + 1 < argc)
			secs = atof(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = 1;
		} else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			nworkers = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--node") && i + 1 < argc)
			node = argv[++i];
		else if (!strcmp(argv[i], "--progs") && i + 1 < argc)
			progdir = argv[++i];
		else if (!strcmp(argv[i], "--probe-vnet"))
			return probe_vnet();
		else if (!strcmp(argv[i], "--portmap") && i + 1 < argc)
			portmap = argv[++i];
		else {
			fprintf(stderr, "usage: tapx-stress [--time S] [--seed N] "
					"[--workers N] [--node PATH] [--progs DIR] "
					"[--portmap PIN]\n");
			return 2;
		}
	}
	if (nworkers < 1 || nworkers > MAXW)
		nworkers = 4;
	if (!have_seed)
		seed = ((uint64_t)time(NULL) << 20) ^ getpid();
	printf("stress: seed %llu (replay with vmseed=%llu), %g s, %d workers\n",
	       (unsigned long long)seed, (unsigned long long)seed, secs,
	       nworkers);
	fflush(stdout);
	rng = seed ? seed : 1;

	/* Unmapped for 128 KiB: no write or read there can succeed. */
	bad_user = mmap(NULL, 1 << 17, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pool = malloc(POOL);
	rbuf = malloc(MAXT + 64);
	/* Forked workers each get their own copy (private mapping). */
	bbuf = mmap(NULL, BATCH_ROOM + 4096, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bdesc = calloc(TAPX_BATCH_MAX + 1, sizeof(*bdesc));
	if (bbuf == MAP_FAILED || !bdesc)
		return 1;
	munmap(bbuf + BATCH_ROOM, 4096);
	if (bad_user == MAP_FAILED || sh == MAP_FAILED || !pool || !rbuf)
		return 1;
	munmap(bad_user, 1 << 17);
	for (i = 0; i < POOL; i++)
		pool[i] = rnd() >> 56;
	i = setup();
	check(!i, "setup: xs0 xs1 xs2 with programs, basic_ports[0] = xs1");
	if (failures)
		return 1;
	printf("stress: multi-queue %s (TUNGETFEATURES 0x%x)\n",
	       features & IFF_MULTI_QUEUE ? "advertised" : "NOT advertised",
	       features);

	t0 = now();
	for (w = 0; w < nworkers; w++) {
		pid[w] = fork();
		if (pid[w] == 0)
			worker(w, seed, t0 + secs, t0 + 2 * secs);
	}
	reap(pid, t0 + 2 * secs + 60);
	printf("stress: workers done after %.1f s (planned %g s, longer until "
	       "every kind showed its outcomes, at most %g s)\n",
	       now() - t0, secs, 2 * secs);

	/* Quiescent: every writer and reader is gone. */
	memset(&tot, 0, sizeof(tot));
	for (w = 0; w < nworkers; w++) {
		for (i = 0; i < NR_OPS; i++) {
			tot.ok[i] += sh->w[w].ok[i];
			tot.exp[i] += sh->w[w].exp[i];
			tot.unexp[i] += sh->w[w].unexp[i];
		}
		for (i = 0; i < NSTABLE; i++) {
			struct sacct *a = &sh->w[w].s[i], *b = &tot.s[i];

			b->w_ok += a->w_ok;
			b->w_einval += a->w_einval;
			b->w_efault_meta += a->w_efault_meta;
			b->w_efault_fill += a->w_efault_fill;
			b->w_vfs += a->w_vfs;
			b->w_gap += a->w_gap;
			b->r_ok += a->r_ok;
			b->r_consumed += a->r_consumed;
			b->b_ok += a->b_ok;
			b->b_einval += a->b_einval;
			b->b_stop += a->b_stop;
			b->b_recv += a->b_recv;
		}
		tot.bytes_written += sh->w[w].bytes_written;
	}
	print_table(&tot);
	printf("stress: %llu bytes accepted by the stable devices\n",
	       (unsigned long long)tot.bytes_written);
	for (i = 0; i < NR_OPS; i++) {
		if (tot.unexp[i])
			check(0, "%s: %llu unexpected outcomes", op_name[i],
			      (unsigned long long)tot.unexp[i]);
		if (!op_only_fails(i) && !tot.ok[i])
			check(0, "%s: never succeeded%s", op_name[i],
			      i == OP_QUEUE && !(features & IFF_MULTI_QUEUE) ?
				      " (tapx does not advertise IFF_MULTI_QUEUE)" :
				      "");
		if (!op_never_fails(i) && !tot.exp[i])
			check(0, "%s: never failed as expected", op_name[i]);
	}
	check(!tot.unexp[0] && !tot.unexp[1], "stable writes and reads as predicted");
	account(&tot);
	cleanup();
	printf("stress: %d failed checks\n", failures);
	return failures ? 1 : 0;
}
