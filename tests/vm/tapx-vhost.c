// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost - plays a virtio-net guest on /dev/vhost-net, with a tap fd as
 * its backend, so that the kernel's vhost-net moves frames through the tap
 * driver exactly as it does for a QEMU guest with vhost=on, and as QEMU sets
 * it up (12-byte vnet header, sndbuf unlimited). No nested guest: our own
 * memory is the one region of the mem table, the split virtqueues RX (0)
 * and TX (1) are laid out in it, kicks and calls are eventfds.
 *
 *   tapx-vhost run [--node PATH] [--name IF] [--label L] [--count N]
 *                  [--sizes 60,1500,...] [--gso-size N] [--tests LIST]
 *                  [--pins DIR] [--maps DIR] [--sendmsg-probe FUNC]
 *                  [--gso-tx-drops]
 *
 * --node: the char device the tap is opened on (/dev/net/tun); --name: the
 * base interface name (vh0; subtests add suffixes); --label: printed after
 * PASS/FAIL ("tun", "tapx"); --count: frames per case (20); --sizes: frame
 * sizes of the size cases, 65535 carries a TCPv4 GSO header (gso_size
 * --gso-size, 1448); --tests: a comma list of sizes, verdicts, ringfull,
 * backpressure (IFF_BACKPRESSURE, where the kernel has it),
 * delete, detach, rxgso, mq, tnl (all by default; "basic" is 60 and 1500 B both ways,
 * for a quick reuse check; the setup of the main device always runs);
 * --pins, --maps: where the xdp_basic programs and their maps are pinned
 * (/sys/fs/bpf/xb, /sys/fs/bpf/xbm);
 * --sendmsg-probe FUNC: the driver's socket sendmsg, kprobed to check
 * which TX path each size took (batched, or one call per frame);
 * --gso-tx-drops: the driver drops a GSO frame that the program sends back
 * (XDP_TX) or redirects, and counts it in ethtool's xdp_gso_drops (tapx,
 * kmod/README.md), where tun.ko delivers it through generic XDP.
 *
 *   tapx-vhost bench [--node PATH] [--name IF] [--reps N] [--frames N]
 *                    [--pins DIR] [--maps DIR] [--gso-size N] [--cells LIST]
 *                    [--sizes LIST] [--cpu N] [--check]
 *
 * The bench: ns per frame through vhost-net at 64, 1500, 9000 B and 64 KiB
 * GSO super-frames (--frames per run at 64 and 1500 B, a quarter at 9000,
 * an eighth at 64 KiB; --sizes a comma list of them, 65535 for 64 KiB), --reps interleaved runs,
 * the minimum; one line "CELL SIZE PATH NS" each. Cells (--cells, a comma
 * list, all by default): guest TX with xdp_drop, xdp_pass, no program and
 * the guard (tx-drop tx-pass tx-noprog tx-guard); guest RX of frames the
 * stack sends into the tap and of frames redirected into it from another
 * tap (rx-stack rx-redirect); guest to guest through a Linux bridge and
 * through tap-accel's forwarding (g2g-bridge g2g-fwd); guest TX with no
 * program and guest RX from the stack (16 UDP flows) on a tap with two
 * queue pairs, each with its vhost-net (tx2q-noprog rx2q-stack). The guard
 * and the forwarding need tap-accel in PATH. Every frame is counted where it
 * arrives (the RX ring, exact length); a missing one fails the cell. Frames
 * there not from the guest's MAC are the host's own (a bridge's IGMP
 * reports): set aside, not counted. The guests and their vhost workers
 * run on CPU --cpu (0; -1: anywhere).
 * --check (the suites' smoke run): each cell's frames must also be exactly
 * what the counters of the taps they crossed grew by (the host's own
 * frames added to a tap's tx_packets).
 *
 * A backend the node's driver does not serve (VHOST_NET_SET_BACKEND says
 * ENOTSOCK: vhost-net found no tun_get_socket() file) fails loudly, once,
 * and the tool exits 2: the remaining cases cannot run without it.
 */
#define _GNU_SOURCE /* sched_setaffinity() and CPU_SET */
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/vhost.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_config.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>

#include "icount.h"
#include "tapx-test.h"

/* The vnet header of VERSION_1 / MRG_RXBUF: what QEMU sets on the tap. */
#define VNET_HLEN 12
/*
 * The tnl case's header, struct virtio_net_hdr_v1_hash_tunnel: what
 * vhost-net (6.17 on) gives the tap with VIRTIO_NET_F_HOST_UDP_TUNNEL_GSO
 * (feature 67, set through the feature array).
 */
#define TNL_HLEN 24
#define TNL_F_HOST_UDP_TUNNEL_GSO 67
#ifndef VHOST_SET_FEATURES_ARRAY
#define VHOST_SET_FEATURES_ARRAY _IOW(VHOST_VIRTIO, 0x83, __u64)
#endif
/* The TX header length of the device vnet_open() makes next. */
static int tx_hlen = VNET_HLEN;
/* Ring size of both queues, and the buffer behind every descriptor: one
 * buffer holds a header and a 64 KiB frame, so every RX frame is one used
 * element (num_buffers 1) and can be compared in place. */
#define RING_NUM 64
#define BUF_SIZE (65536 + 4096)
#define MAX_FRAME 65535
#define WAIT_MS 3000
/* What vhost-net's RX side takes off a tap's ring at once (VHOST_NET_BATCH). */
#define VHOST_RX_BATCH 64
#define QUIET_MS 400

static const char *node = "/dev/net/tun";
static const char *base_name = "vh0";
static const char *label = "";
static int gso_tx_drops;

static const char *sizes_opt = "60,1500,3380,3381,3636,3637,9000,65535";
static const char *tests_opt = "all";
static const char *pins = "/sys/fs/bpf/xb";
static const char *maps = "/sys/fs/bpf/xbm";
static const char *sendmsg_probe = "";
static int count = 20;
static int gso_size = 1448;
static char prefix[64];
/* The bench's CPU (--cpu): its vhost workers are put there too; -1 none. */
static int bench_cpu = -1;

/* ---- one vhost-net instance: a tap queue and the guest's two rings ---- */

struct vring_q {
	unsigned int index; /* 0 RX, 1 TX */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint8_t *bufs; /* RING_NUM buffers of BUF_SIZE */
	uint16_t avail_idx, last_used;
	int kick, call;
	int free_ids[RING_NUM], nfree; /* TX: descriptors not in flight */
};

struct vnet {
	char ifname[IFNAMSIZ];
	int tap, vhost;
	uint8_t *mem;
	size_t mem_size;
	struct vring_q rx, tx;
	int backend_errno; /* of VHOST_NET_SET_BACKEND, 0 if bound */
	int hlen; /* the TX vnet header's length: VNET_HLEN, or TNL_HLEN */
};

static void mem_barrier(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static uint16_t used_idx(struct vring_q *q)
{
	uint16_t v = *(volatile uint16_t *)&q->used->idx;

	mem_barrier();
	return v;
}

static void publish(struct vring_q *q, int id)
{
	q->avail->ring[q->avail_idx % RING_NUM] = id;
	mem_barrier(); /* the entry before the index that makes it visible */
	*(volatile uint16_t *)&q->avail->idx = ++q->avail_idx;
	mem_barrier();
}

static void kick(struct vring_q *q)
{
	uint64_t one = 1;

	if (write(q->kick, &one, sizeof(one)) != sizeof(one))
		perror("kick");
}

/* Until the used index moves past last_used or ms pass; 1 if it moved. */
static int wait_used(struct vring_q *q, int ms)
{
	double end = now_ns() + ms * 1e6;
	struct pollfd p = { .fd = q->call, .events = POLLIN };
	uint64_t v;

	while (used_idx(q) == q->last_used) {
		if (now_ns() > end)
			return 0;
		/* The call eventfd, but also the index itself: vhost may
		 * have skipped the signal (it coalesces them). */
		if (poll(&p, 1, 20) > 0 && read(q->call, &v, sizeof(v)) < 0)
			perror("call");
	}
	return 1;
}

static uint8_t *buf_of(struct vring_q *q, int id)
{
	return q->bufs + (size_t)id * BUF_SIZE;
}

/* RX: hand descriptor id (a device-writable buffer) to vhost. */
static void rx_post(struct vring_q *q, int id)
{
	q->desc[id].addr = (uintptr_t)buf_of(q, id);
	q->desc[id].len = BUF_SIZE;
	q->desc[id].flags = VRING_DESC_F_WRITE;
	q->desc[id].next = 0;
	publish(q, id);
}

static int vhost_call(struct vnet *v, unsigned long req, void *arg, const char *what)
{
	if (ioctl(v->vhost, req, arg) < 0) {
		int e = errno;

		check(0, "%s%s: %s: %s", prefix, v->ifname, what, strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static int ring_setup(struct vnet *v, struct vring_q *q, uint8_t *area)
{
	struct vhost_vring_state num = { q->index, RING_NUM };
	struct vhost_vring_state base = { q->index, 0 };
	struct vhost_vring_addr addr = { .index = q->index };
	struct vhost_vring_file kf = { q->index, -1 }, cf = { q->index, -1 };

	/* desc, avail and used each in a page of their own: past any
	 * alignment either ring layout asks for. */
	q->desc = (void *)area;
	q->avail = (void *)(area + 4096);
	q->used = (void *)(area + 8192);
	q->bufs = area + 12288;
	q->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	addr.desc_user_addr = (uintptr_t)q->desc;
	addr.avail_user_addr = (uintptr_t)q->avail;
	addr.used_user_addr = (uintptr_t)q->used;
	kf.fd = q->kick;
	cf.fd = q->call;
	if (vhost_call(v, VHOST_SET_VRING_NUM, &num, "VHOST_SET_VRING_NUM") ||
	    vhost_call(v, VHOST_SET_VRING_BASE, &base, "VHOST_SET_VRING_BASE") ||
	    vhost_call(v, VHOST_SET_VRING_ADDR, &addr, "VHOST_SET_VRING_ADDR") ||
	    vhost_call(v, VHOST_SET_VRING_KICK, &kf, "VHOST_SET_VRING_KICK") ||
	    vhost_call(v, VHOST_SET_VRING_CALL, &cf, "VHOST_SET_VRING_CALL"))
		return -1;
	for (int i = 0; i < RING_NUM; i++)
		q->free_ids[i] = RING_NUM - 1 - i;
	q->nfree = RING_NUM;
	return 0;
}

/*
 * --cpu: vhost's workers on the bench's CPU. 6.12's are threads of this
 * process and inherit its affinity; 6.1's are kthreads "vhost-PID" and are
 * moved here. One CPU for the guest and its worker: the frames of a cell
 * are handed over without waking another (emulated) CPU, whose wakeup
 * would time the host's scheduler, not the driver.
 */
static void workers_pin(void)
{
	char want[32], comm[32], path[300];
	struct dirent *d;
	cpu_set_t set;
	DIR *dir;

	if (bench_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(bench_cpu, &set);
	snprintf(want, sizeof(want), "vhost-%d\n", (int)getpid());
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			sched_setaffinity(atoi(d->d_name), sizeof(set), &set);
		fclose(f);
	}
	if (dir)
		closedir(dir);
}

/*
 * A tap queue (name, a fresh fd of the node; an existing multi-queue
 * device when flags has IFF_MULTI_QUEUE) with a vhost-net instance bound to
 * it, RX buffers posted (rx_bufs of them). 0; -1 after a FAIL line, with
 * v->backend_errno set if only the backend was refused.
 */
static int vnet_open(struct vnet *v, const char *name, int iff, int rx_bufs)
{
	struct vhost_memory *mt;
	uint64_t features, want = (1ULL << VIRTIO_NET_F_MRG_RXBUF) |
				  (1ULL << VIRTIO_F_VERSION_1);
	int hlen = tx_hlen, sndbuf = INT_MAX;
	struct vhost_vring_file be;

	memset(v, 0, sizeof(*v));
	v->vhost = -1;
	v->hlen = hlen;
	v->rx.kick = v->rx.call = v->tx.kick = v->tx.call = -1;
	snprintf(v->ifname, IFNAMSIZ, "%s", name);
	v->tap = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | iff,
			  O_CLOEXEC);
	if (v->tap < 0) {
		check(0, "%s%s: open %s: %s", prefix, name, node, strerror(-v->tap));
		return -1;
	}
	/* As QEMU: the header vhost's features imply, sndbuf unlimited (the
	 * only case in which vhost batches TX). */
	if (ioctl(v->tap, TUNSETVNETHDRSZ, &hlen) || ioctl(v->tap, TUNSETSNDBUF, &sndbuf)) {
		check(0, "%s%s: TUNSETVNETHDRSZ/TUNSETSNDBUF: %s", prefix, name, strerror(errno));
		return -1;
	}
	if (if_set_mtu(name, MAX_FRAME - 14) || if_up(name, 1) ||
	    if_wait_tx_ready(name, 2000)) {
		check(0, "%s%s: MTU %d and up: %s", prefix, name, MAX_FRAME - 14, strerror(errno));
		return -1;
	}
	v->vhost = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
	if (v->vhost < 0) {
		check(0, "%s%s: open /dev/vhost-net: %s", prefix, name, strerror(errno));
		return -1;
	}
	v->mem_size = 2 * (12288 + (size_t)RING_NUM * BUF_SIZE);
	v->mem = mmap(NULL, v->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (v->mem == MAP_FAILED) {
		check(0, "%s%s: mmap %zu: %s", prefix, name, v->mem_size, strerror(errno));
		v->mem = NULL;
		return -1;
	}
	if (vhost_call(v, VHOST_SET_OWNER, NULL, "VHOST_SET_OWNER") ||
	    vhost_call(v, VHOST_GET_FEATURES, &features, "VHOST_GET_FEATURES"))
		return -1;
	workers_pin();
	if ((features & want) != want) {
		check(0, "%s%s: vhost-net features 0x%llx lack 0x%llx", prefix, name,
		      (unsigned long long)features, (unsigned long long)want);
		return -1;
	}
	if (tx_hlen == TNL_HLEN) {
		uint64_t fa[3] = { 2, want, 1ULL << (TNL_F_HOST_UDP_TUNNEL_GSO - 64) };

		if (vhost_call(v, VHOST_SET_FEATURES_ARRAY, fa,
			       "VHOST_SET_FEATURES_ARRAY (HOST_UDP_TUNNEL_GSO)"))
			return -1;
	} else if (vhost_call(v, VHOST_SET_FEATURES, &want, "VHOST_SET_FEATURES")) {
		return -1;
	}
	/* Guest physical = our virtual: descriptors carry plain pointers. */
	mt = calloc(1, sizeof(*mt) + sizeof(mt->regions[0]));
	mt->nregions = 1;
	mt->regions[0].guest_phys_addr = (uintptr_t)v->mem;
	mt->regions[0].userspace_addr = (uintptr_t)v->mem;
	mt->regions[0].memory_size = v->mem_size;
	if (vhost_call(v, VHOST_SET_MEM_TABLE, mt, "VHOST_SET_MEM_TABLE")) {
		free(mt);
		return -1;
	}
	free(mt);
	v->rx.index = 0;
	v->tx.index = 1;
	if (ring_setup(v, &v->rx, v->mem) ||
	    ring_setup(v, &v->tx, v->mem + v->mem_size / 2))
		return -1;
	for (int i = 0; i < rx_bufs && i < RING_NUM; i++)
		rx_post(&v->rx, i);
	for (be.index = 0; be.index < 2; be.index++) {
		be.fd = v->tap;
		if (ioctl(v->vhost, VHOST_NET_SET_BACKEND, &be) < 0) {
			v->backend_errno = errno;
			check(0, "%s%s: VHOST_NET_SET_BACKEND vq %u on %s: %s%s", prefix, name,
			      be.index, node, strerror(v->backend_errno),
			      v->backend_errno == ENOTSOCK ? " (vhost-net found no tun socket behind this "
						  "fd: the driver does not serve vhost-net)" : "");
			return -1;
		}
	}
	kick(&v->rx);
	return 0;
}

static void vnet_close(struct vnet *v)
{
	if (v->vhost >= 0)
		close(v->vhost);
	if (v->tap >= 0)
		close(v->tap);
	int fds[] = { v->rx.kick, v->rx.call, v->tx.kick, v->tx.call };

	for (unsigned int i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (v->mem)
		munmap(v->mem, v->mem_size);
	memset(v, 0, sizeof(*v));
	v->tap = v->vhost = -1;
	v->rx.kick = v->rx.call = v->tx.kick = v->tx.call = -1;
}

/* TX: returns the descriptors vhost has used to the free list. */
static void tx_reap(struct vring_q *q)
{
	uint16_t end = used_idx(q);

	for (; q->last_used != end; q->last_used++)
		q->free_ids[q->nfree++] = q->used->ring[q->last_used % RING_NUM].id;
}

/*
 * Puts n frames (with header hdr) into the TX ring, as many per kick as
 * there are free descriptors (so that vhost sees batches), and waits for
 * vhost to use them all. Returns how many were not given back in time.
 */
static int tx_frames(struct vnet *v, uint8_t **frames, const int *lens, int n,
		     const void *hdr)
{
	struct vring_q *q = &v->tx;
	int i = 0, target;

	/* Descriptors an earlier call lost (vhost drops a failed batch
	 * without using its descriptors) stay lost: wait only for ours. */
	tx_reap(q);
	target = q->nfree;
	while (i < n) {
		int queued = 0;

		tx_reap(q);
		while (i < n && q->nfree) {
			int id = q->free_ids[--q->nfree];
			uint8_t *b = buf_of(q, id);

			memcpy(b, hdr, v->hlen);
			memcpy(b + v->hlen, frames[i], lens[i]);
			q->desc[id].addr = (uintptr_t)b;
			q->desc[id].len = v->hlen + lens[i];
			q->desc[id].flags = 0;
			q->desc[id].next = 0;
			publish(q, id);
			i++;
			queued++;
		}
		if (queued)
			kick(q);
		if (i < n && !q->nfree && !wait_used(q, WAIT_MS))
			return n - i + target - q->nfree;
	}
	while (q->nfree < target) {
		tx_reap(q);
		if (q->nfree < target && !wait_used(q, WAIT_MS))
			break;
	}
	return target - q->nfree;
}

/* ---- frames ---- */

static const uint8_t test_src[6] = { 2, 0, 0, 0, 0, 1 };

static uint16_t ip_csum(const void *p, int len)
{
	const uint16_t *w = p;
	uint32_t s = 0;

	for (; len > 1; len -= 2)
		s += *w++;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* An IPv4 frame of size bytes, TCP (a GSO super-frame's layout) or UDP
 * with source port sport (to spread flows over queues). */
static void ip_frame(uint8_t *f, int size, uint32_t seq, int tcp, int sport)
{
	struct iphdr *ip = (void *)(f + 14);

	test_frame(f, size, seq);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->tot_len = htons(size - 14);
	ip->protocol = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	ip->check = ip_csum(ip, sizeof(*ip));
	if (tcp) {
		struct tcphdr *th = (void *)(ip + 1);

		memset(th, 0, sizeof(*th));
		th->source = htons(sport);
		th->dest = htons(5001);
		th->seq = htonl(seq);
		th->doff = 5;
		th->ack = 1;
	} else {
		struct udphdr *uh = (void *)(ip + 1);

		uh->source = htons(sport);
		uh->dest = htons(5001);
		uh->len = htons(size - 34);
		uh->check = 0;
	}
	memcpy(f + 54, &seq, 4); /* keeps frames of one case distinct */
}

struct frameset {
	int n;
	uint8_t **f;
	int *len;
	int *seen;
	struct virtio_net_hdr_mrg_rxbuf hdr; /* TX header of every frame */
};

static void frames_free(struct frameset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->f[i]);
	free(s->f);
	free(s->len);
	free(s->seen);
	memset(s, 0, sizeof(*s));
}

/* n frames of size bytes; 65535 (or gso) ones are TCPv4 GSO super-frames,
 * udp_flows > 0 makes UDP frames over that many source ports. */
static void frames_make(struct frameset *s, int n, int size, int gso, int udp_flows)
{
	static uint32_t seq = 1;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->f = calloc(n, sizeof(*s->f));
	s->len = calloc(n, sizeof(*s->len));
	s->seen = calloc(n, sizeof(*s->seen));
	for (int i = 0; i < n; i++) {
		s->f[i] = malloc(size);
		s->len[i] = size;
		if (gso)
			ip_frame(s->f[i], size, seq++, 1, 40000);
		else if (udp_flows)
			ip_frame(s->f[i], size, seq++, 0, 40000 + i % udp_flows);
		else
			test_frame(s->f[i], size, seq++);
	}
	if (gso) {
		s->hdr.hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		s->hdr.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		s->hdr.hdr.gso_size = gso_size;
		s->hdr.hdr.hdr_len = 54;
		s->hdr.hdr.csum_start = 34;
		s->hdr.hdr.csum_offset = 16;
	}
}

/* Marks the frame of s equal to (p, len); 1 if there was one not seen yet. */
static int frames_match(struct frameset *s, const uint8_t *p, int len)
{
	for (int i = 0; i < s->n; i++)
		if (!s->seen[i] && s->len[i] == len && !memcmp(s->f[i], p, len)) {
			s->seen[i] = 1;
			return 1;
		}
	return 0;
}

static int frames_seen(struct frameset *s)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		n += s->seen[i];
	return n;
}

static int ours(const uint8_t *p, int len)
{
	return len >= 14 && !memcmp(p + 6, test_src, 6);
}

/* ---- the tap's far side: a packet socket on the interface ---- */

static uint8_t rbuf[MAX_FRAME + 4096];

/* Drains what is queued on the packet socket. */
static void far_drain(int ps)
{
	while (recv(ps, rbuf, sizeof(rbuf), MSG_DONTWAIT) > 0)
		;
}

/*
 * Receives frames on the far side until every frame of s was seen or ms
 * pass without a new one; counts ours that match nothing in *stray.
 */
static void far_collect(int ps, struct frameset *s, int ms, int *stray)
{
	struct pollfd p = { .fd = ps, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t fl;
	int n;

	while (frames_seen(s) < s->n && poll(&p, 1, ms) > 0) {
		fl = sizeof(from);
		n = recvfrom(ps, rbuf, sizeof(rbuf), MSG_DONTWAIT, (void *)&from, &fl);
		if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING || !ours(rbuf, n))
			continue;
		if (!frames_match(s, rbuf, n))
			++*stray;
	}
}

/* Sends the frames of s into the tap (its transmit side, which the tap
 * driver hands to vhost's RX queue). 0 or the errno of the first failure. */
static int far_send(int ps, const char *name, struct frameset *s)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };

	to.sll_ifindex = if_nametoindex(name);
	for (int i = 0; i < s->n; i++)
		if (sendto(ps, s->f[i], s->len[i], 0, (void *)&to, sizeof(to)) != s->len[i])
			return errno;
	return 0;
}

/* ---- RX ring ---- */

struct rx_result {
	int got, stray, bad_len, bad_hdr;
	int gso_hdr; /* frames whose vnet header has a gso_type */
};

/*
 * Takes used RX buffers until every frame of s was matched or ms pass
 * without a new one, checks each (used length = 12 + frame, num_buffers 1,
 * frame byte-exact) and gives the buffer back when repost is set.
 */
static void rx_collect(struct vnet *v, struct frameset *s, int ms, int repost,
		       struct rx_result *r)
{
	struct vring_q *q = &v->rx;
	int posted = 0;

	while (frames_seen(s) < s->n) {
		if (used_idx(q) == q->last_used) {
			if (posted) {
				kick(q);
				posted = 0;
			}
			if (!wait_used(q, ms))
				break;
		}
		uint16_t end = used_idx(q);

		for (; q->last_used != end; q->last_used++) {
			struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];
			uint8_t *b = buf_of(q, e->id);
			struct virtio_net_hdr_mrg_rxbuf *h = (void *)b;
			int flen = (int)e->len - VNET_HLEN;

			if (flen >= 14 && ours(b + VNET_HLEN, flen)) {
				if (frames_match(s, b + VNET_HLEN, flen)) {
					r->got++;
					if (h->num_buffers != 1)
						r->bad_hdr++;
					if (h->hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
						r->gso_hdr++;
				} else {
					int i;

					/* A frame of s that arrived with a wrong
					 * length says more than "stray". */
					for (i = 0; i < s->n; i++)
						if (!memcmp(s->f[i], b + VNET_HLEN, 18))
							break;
					if (i < s->n)
						r->bad_len++;
					else
						r->stray++;
				}
			}
			if (repost) {
				rx_post(q, e->id);
				posted = 1;
			}
		}
	}
	if (posted)
		kick(q);
}

/* RX buffers given back (up to RING_NUM posted); for the ring-full case. */
static void rx_refill(struct vnet *v, int from, int to)
{
	for (int i = from; i < to; i++)
		rx_post(&v->rx, i);
	kick(&v->rx);
}

/* ---- XDP: attach by netlink, counters from the pinned map ---- */

static int nl_fd = -1;

static int nl_talk(struct nlreq *r)
{
	static unsigned int seq;
	char buf[8192];
	struct nlmsghdr *h;
	ssize_t n;

	if (nl_fd < 0) {
		struct timeval tv = { .tv_sec = 5 };

		nl_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (nl_fd < 0)
			return -1;
		setsockopt(nl_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(nl_fd, r, r->nh.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(nl_fd, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			errno = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			return errno ? -1 : 0;
		}
	}
}

static int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

/* Native XDP program pins/PROG on NAME (NULL: detach); 0 or -1. */
static int xdp_set(const char *name, const char *prog)
{
	struct nlreq r;
	struct rtattr *nest;
	char path[256];
	int fd = -1, rc;
	uint32_t flags = XDP_FLAGS_DRV_MODE;

	if (prog) {
		snprintf(path, sizeof(path), "%s/%s", pins, prog);
		fd = bpf_obj_get(path);
		if (fd < 0)
			return -1;
	}
	nl_init(&r, RTM_SETLINK, name);
	nest = nl_nest(&r, IFLA_XDP);
	nl_put(&r, IFLA_XDP_FD, &fd, sizeof(fd));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nl_end(&r, nest);
	rc = nl_talk(&r);
	if (fd >= 0)
		close(fd);
	return rc;
}

static int dellink(const char *name)
{
	struct nlreq r;

	nl_init(&r, RTM_DELLINK, name);
	return nl_talk(&r);
}

static int ncpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int a = 0, b = 0;

	if (f) {
		if (fscanf(f, "%d-%d", &a, &b) < 2)
			b = a;
		fclose(f);
	}
	return b + 1;
}

/* Packets xdp_basic counted under verdict (summed over CPUs); -1 on error. */
static long xdp_count(int verdict)
{
	char path[256];
	int fd, n = ncpus();
	struct { uint64_t packets, bytes; } val[n];
	uint32_t key = verdict;
	union bpf_attr a;
	long sum = 0;

	snprintf(path, sizeof(path), "%s/basic_count", maps);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)val;
	if (syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	close(fd);
	for (int i = 0; i < n; i++)
		sum += val[i].packets;
	return sum;
}

static int set_redirect_port(const char *name)
{
	char path[256];
	uint32_t key = 0, ifi = if_nametoindex(name);
	union bpf_attr a;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/basic_ports", maps);
	fd = bpf_obj_get(path);
	if (fd < 0)
		return -1;
	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&ifi;
	rc = syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
	close(fd);
	return rc;
}

/*
 * Which TX path vhost took, seen from the driver: a kprobe on the driver's
 * sendmsg (--sendmsg-probe FUNC, tun_sendmsg for tun.ko) counts its calls.
 * Per packet, vhost calls it once a frame; batched, once for up to 64
 * frames (all of a case's frames, published before one kick).
 */
#define PROBE_EVENT "tapxvh_sendmsg"
static const char *tracefs;
static int probe_active;

static int tracefs_write(const char *file, const char *text)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

static void probe_on(void)
{
	char def[160];

	if (!*sendmsg_probe)
		return;
	tracefs = access("/sys/kernel/tracing/kprobe_events", F_OK) ? "/sys/kernel/debug/tracing"
								  : "/sys/kernel/tracing";
	snprintf(def, sizeof(def), "p:tapxvh/" PROBE_EVENT " %s", sendmsg_probe);
	tracefs_write("kprobe_events", "-:tapxvh/" PROBE_EVENT);
	probe_active = !tracefs_write("kprobe_events", def) &&
		       !tracefs_write("events/tapxvh/" PROBE_EVENT "/enable", "1");
	check(probe_active, "%skprobe on %s (to tell the TX paths apart)%s", prefix,
	      sendmsg_probe, probe_active ? "" : ": cannot set it");
}

static void probe_off(void)
{
	if (!probe_active)
		return;
	tracefs_write("events/tapxvh/" PROBE_EVENT "/enable", "0");
	tracefs_write("kprobe_events", "-:tapxvh/" PROBE_EVENT);
	probe_active = 0;
}

/*
 * The value of @key in a listing of "name value" lines, as @fmt (two
 * conversions: a name of at most 127 characters, a long) reads them; -1 if
 * it is not there.
 */
static long keyed_value(FILE *f, const char *fmt, const char *key)
{
	char line[256], k[128];
	long v, found = -1;

	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, k, &v) == 2 && !strcmp(k, key))
			found = v;
	return found;
}

/* Hits of the probe so far (kprobe_profile: name, hits, misses). */
static long probe_hits(void)
{
	char path[128];
	long hits;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	hits = keyed_value(f, "%127s %ld", PROBE_EVENT);
	fclose(f);
	return hits;
}

/* Whether vhost batches a frame of size: header and frame in a page with
 * its headroom (larger with a program attached: SOCK_XDP) and tailroom;
 * x86-64 numbers, from vhost_net_build_xdp's arithmetic. */
static int batched_size(int size, int prog)
{
	return size <= (prog ? 3380 : 3636);
}

/* ---- the cases ---- */

static int size_is_gso(int size)
{
	return size > 9000;
}

/* Guest TX of n frames of size; every one byte-exact on the far side
 * (want_seen) or none of them. */
static void case_tx(struct vnet *v, int ps, int size, const char *xdp, int want_seen)
{
	struct frameset s;
	int left, stray = 0;

	long hits = probe_active ? probe_hits() : 0;

	frames_make(&s, count, size, size_is_gso(size), 0);
	far_drain(ps);
	left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
	if (probe_active) {
		int prog = strncmp(xdp, "none", 4) != 0, batch = batched_size(size, prog);

		hits = probe_hits() - hits;
		check(batch ? hits >= 1 && hits < s.n : hits == s.n,
		      "%s%s tx %d xdp=%s: %s path, %ld %s calls for %d frames", prefix,
		      v->ifname, size, xdp, batch ? "batched" : "per-packet", hits,
		      sendmsg_probe, s.n);
	}
	far_collect(ps, &s, want_seen ? WAIT_MS : QUIET_MS, &stray);
	check(!left && frames_seen(&s) == (want_seen ? s.n : 0) && !stray,
	      "%s%s tx %d%s xdp=%s: %d/%d seen on the far side byte-exact (want %d), "
	      "%d descriptors not used, %d stray", prefix, v->ifname, size,
	      size_is_gso(size) ? " gso" : "", xdp, frames_seen(&s), s.n,
	      want_seen ? s.n : 0, left, stray);
	frames_free(&s);
}

/* Frames sent into the tap; every one in the RX ring of dst, byte-exact. */
static void case_rx(struct vnet *v, struct vnet *dst, int ps, int size, const char *xdp)
{
	struct frameset s;
	struct rx_result r = { 0 };
	int e;

	frames_make(&s, count, size, 0, 0);
	e = far_send(ps, v->ifname, &s);
	rx_collect(dst, &s, WAIT_MS, 1, &r);
	/* Plain frames from the stack: num_buffers 1, no GSO in the header. */
	check(!e && r.got == s.n && !r.bad_len && !r.bad_hdr && !r.gso_hdr && !r.stray,
	      "%s%s rx %d xdp=%s: %d/%d in the RX ring, length 12 + frame, byte-exact "
	      "(%d bad length, %d bad num_buffers, %d with gso_type, %d stray%s%s)", prefix,
	      v->ifname, size, xdp, r.got, s.n, r.bad_len, r.bad_hdr, r.gso_hdr, r.stray,
	      e ? ", send: " : "",
	      e ? strerror(e) : "");
	frames_free(&s);
}

static int parse_sizes(int *out, int max)
{
	char *dup = strdup(sizes_opt), *t, *save;
	int n = 0;

	for (t = strtok_r(dup, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		out[n++] = atoi(t);
	free(dup);
	return n;
}

static void test_sizes(struct vnet *v, int ps)
{
	int sizes[32], n = parse_sizes(sizes, 32);
	const char *progs[] = { NULL, "xdp_pass" };

	for (int p = 0; p < 2; p++) {
		const char *xdp = progs[p] ? progs[p] : "none";

		/* With a program attached the socket has SOCK_XDP and vhost
		 * batches only up to 3380 B, without up to 3636 B. */
		if (progs[p] && xdp_set(v->ifname, progs[p])) {
			check(0, "%s%s: attach %s: %s", prefix, v->ifname, progs[p],
			      strerror(errno));
			continue;
		}
		for (int i = 0; i < n; i++) {
			case_tx(v, ps, sizes[i], xdp, 1);
			if (!size_is_gso(sizes[i]))
				case_rx(v, v, ps, sizes[i], xdp);
		}
		/* A 64 KiB frame without GSO into the tap, too. */
		case_rx(v, v, ps, MAX_FRAME, xdp);
		if (progs[p])
			xdp_set(v->ifname, NULL);
	}
}

/* One `ethtool -S IF` counter; -1 if it is not there. */
static long ethtool_stat(const char *ifname, const char *key)
{
	char cmd[64];
	long v;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ethtool -S %s 2>/dev/null", ifname);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	v = keyed_value(f, " %127[^:]: %ld", key);
	pclose(f);
	return v;
}

/*
 * --gso-tx-drops: a GSO frame sent back or redirected is dropped and
 * counted; true when it was (and the check is printed), false to check
 * delivery as usual.
 */
static int gso_dropped(struct vnet *v, int size, int gso, const char *what,
		       int left, int got, long drops_before)
{
	long drops;

	if (!gso_tx_drops || !gso)
		return 0;
	drops = ethtool_stat(v->ifname, "xdp_gso_drops") - drops_before;
	check(!left && !got && drops == count,
	      "%s%s tx %d %s: GSO frame dropped, as documented: %d delivered, "
	      "xdp_gso_drops +%ld (want +%d), %d descriptors not used",
	      prefix, v->ifname, size, what, got, drops, count, left);
	return 1;
}

/* The verdicts on both TX paths: 60 and 1500 B batched, 9000 and 64 KiB
 * GSO per packet. */
static void test_verdicts(struct vnet *v, int ps)
{
	static const int vsizes[] = { 60, 1500, 9000, 65535 };
	struct vnet peer;
	char peer_name[IFNAMSIZ + 1];
	int peer_ps;

	snprintf(peer_name, sizeof(peer_name), "%.14sr", v->ifname);
	if (vnet_open(&peer, peer_name, 0, RING_NUM)) {
		vnet_close(&peer);
		return;
	}
	peer_ps = packet_open(peer_name);
	for (unsigned int i = 0; i < sizeof(vsizes) / sizeof(vsizes[0]); i++) {
		int size = vsizes[i], gso = size_is_gso(size);
		struct frameset s;
		struct rx_result r;
		long before;
		int left, stray;

		/* DROP: not on the far side, counted. PASS: seen, counted. */
		for (int verdict = XDP_DROP; verdict <= XDP_PASS; verdict++) {
			const char *prog = verdict == XDP_DROP ? "xdp_drop" : "xdp_pass";

			if (xdp_set(v->ifname, prog)) {
				check(0, "%s%s: attach %s: %s", prefix, v->ifname, prog,
				      strerror(errno));
				continue;
			}
			before = xdp_count(verdict);
			case_tx(v, ps, size, prog, verdict == XDP_PASS);
			check(xdp_count(verdict) - before == count,
			      "%s%s tx %d %s: counted %ld, want %d", prefix, v->ifname, size,
			      prog, xdp_count(verdict) - before, count);
		}

		/* TX: the frame comes back into our own RX ring. */
		if (!xdp_set(v->ifname, "xdp_tx")) {
			long gso_before = ethtool_stat(v->ifname, "xdp_gso_drops");

			frames_make(&s, count, size, gso, 0);
			before = xdp_count(XDP_TX);
			memset(&r, 0, sizeof(r));
			far_drain(ps);
			left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
			rx_collect(v, &s, gso && gso_tx_drops ? QUIET_MS : WAIT_MS, 1, &r);
			if (!gso_dropped(v, size, gso, "xdp_tx", left, r.got, gso_before))
				check(!left && r.got == s.n && !r.bad_len,
				      "%s%s tx %d xdp_tx: %d/%d back in the RX ring byte-exact (%d bad "
				      "length, %d stray, %d descriptors not used), counted %ld",
				      prefix, v->ifname, size, r.got, s.n, r.bad_len, r.stray, left,
				      xdp_count(XDP_TX) - before);
			frames_free(&s);
		} else {
			check(0, "%s%s: attach xdp_tx: %s", prefix, v->ifname, strerror(errno));
		}

		/* REDIRECT: into the peer tap, whose vhost instance has them. */
		if (!set_redirect_port(peer_name) && !xdp_set(v->ifname, "xdp_redirect")) {
			long gso_before = ethtool_stat(v->ifname, "xdp_gso_drops");

			frames_make(&s, count, size, gso, 0);
			before = xdp_count(XDP_REDIRECT);
			memset(&r, 0, sizeof(r));
			stray = 0;
			far_drain(ps);
			left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
			rx_collect(&peer, &s, gso && gso_tx_drops ? QUIET_MS : WAIT_MS, 1, &r);
			if (!gso_dropped(v, size, gso, "xdp_redirect", left, r.got, gso_before))
				check(!left && r.got == s.n && !r.bad_len,
				      "%s%s tx %d xdp_redirect to %s: %d/%d in its RX ring byte-exact "
				      "(%d bad length, %d descriptors not used), counted %ld", prefix,
				      v->ifname, size, peer_name, r.got, s.n, r.bad_len, left,
				      xdp_count(XDP_REDIRECT) - before);
			far_collect(ps, &s, QUIET_MS, &stray);
			frames_free(&s);
		} else {
			check(0, "%s%s: xdp_redirect to %s: %s", prefix, v->ifname, peer_name,
			      strerror(errno));
		}
		xdp_set(v->ifname, NULL);
	}
	if (peer_ps >= 0)
		close(peer_ps);
	vnet_close(&peer);
}

/*
 * Few RX buffers: the tap's queue fills, the driver drops (and counts) what
 * does not fit, nothing breaks, and once buffers are back the frames held
 * are delivered, in order and byte-exact, and new ones too.
 */
static void test_ringfull(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s, s2;
	struct rx_result r = { 0 }, r2 = { 0 };
	const int nbufs = 4, burst = 2000;
	double t0;
	long drops0, drops1;
	char path[96];
	FILE *f;
	int ps, e, tail_drop = 1, late = 0;

	snprintf(name, sizeof(name), "%sf", base_name);
	if (vnet_open(&v, name, 0, nbufs)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &drops0) != 1)
		drops0 = -1;
	if (f)
		fclose(f);
	frames_make(&s, burst, 60, 0, 0);
	t0 = now_ns();
	e = far_send(ps, name, &s);
	printf("INFO %sring full: %d frames sent in %.0f ms\n", prefix, burst,
	       (now_ns() - t0) / 1e6);
	/* The first nbufs are delivered into the posted buffers. */
	rx_collect(&v, &s, QUIET_MS, 0, &r);
	check(r.got == nbufs && !e, "%sring full: %d frames in %d buffers (want %d)%s%s", prefix,
	      r.got, nbufs, nbufs, e ? ", send: " : "", e ? strerror(e) : "");
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &drops1) != 1)
		drops1 = -1;
	if (f)
		fclose(f);
	rx_refill(&v, 0, RING_NUM);
	rx_collect(&v, &s, WAIT_MS, 1, &r);
	check(drops1 > drops0 && r.got + (drops1 - drops0) == burst && !r.bad_len && !r.stray,
	      "%sring full: %d of %d delivered after refill, %ld counted in tx_dropped, "
	      "sum %ld", prefix, r.got, burst, drops1 - drops0, r.got + drops1 - drops0);
	/*
	 * tun drops at the tail. While the burst is sent, vhost takes one
	 * batch off the queue (up to VHOST_NET_BATCH, 64, into its own array
	 * once it has a buffer to fill; the nbufs posted ones are filled from
	 * it), which then holds as many later frames: whenever it ran (late
	 * on a slow kernel), all but that batch of the delivered are the
	 * burst's first, and at most the batch come after them.
	 */
	for (int i = 0; i < s.n; i++) {
		if (i < r.got - VHOST_RX_BATCH && !s.seen[i])
			tail_drop = 0;
		late += i >= r.got && s.seen[i];
	}
	check(tail_drop && late <= VHOST_RX_BATCH,
	      "%sring full: the %d delivered are the burst's first, %d of them later "
	      "ones (tail drop; want at most %d later)", prefix, r.got, late, VHOST_RX_BATCH);
	frames_make(&s2, count, 1500, 0, 0);
	e = far_send(ps, name, &s2);
	rx_collect(&v, &s2, WAIT_MS, 1, &r2);
	check(r2.got == s2.n && !e, "%sring full: then %d/%d new frames delivered", prefix,
	      r2.got, s2.n);
	frames_free(&s);
	frames_free(&s2);
	close(ps);
	vnet_close(&v);
}

static long if_stat(const char *ifname, const char *what);

/*
 * IFF_BACKPRESSURE (0x80; 7.3's tun) with a qdisc: the burst of
 * test_ringfull into as few buffers, but the tap's queue stops when its
 * ring is full and the qdisc holds the rest; vhost-net taking entries off
 * the ring itself (tun_wake_queue) restarts it, so after the refill every
 * frame is delivered and nothing is dropped. Only where the kernel's tun
 * has the flag (suite-backpressure.sh checks that both drivers lack it
 * elsewhere).
 */
static void test_backpressure(int unused)
{
	const int nbufs = 4, burst = 2000;
	int fd, ps, e, sz = 64 << 20;
	struct rx_result r = { 0 };
	unsigned int feat = 0;
	char name[IFNAMSIZ], cmd[96];
	long drops0, drops1;
	struct frameset s;
	struct vnet v;

	fd = open(node, O_RDWR);
	if (fd < 0 || ioctl(fd, TUNGETFEATURES, &feat) < 0)
		check(0, "%sbackpressure: TUNGETFEATURES: %s", prefix, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!(feat & 0x80))
		return;
	snprintf(name, sizeof(name), "%sb", base_name);
	if (vnet_open(&v, name, 0x80, nbufs)) {
		vnet_close(&v);
		return;
	}
	snprintf(cmd, sizeof(cmd), "/bin/tc qdisc replace dev %s root pfifo limit 5000",
		 name);
	ps = packet_open(name);
	if (system(cmd) || ps < 0) {
		check(0, "%sbackpressure: %s, packet socket", prefix, cmd);
		vnet_close(&v);
		return;
	}
	/* What the qdisc holds stays charged to the sender. */
	setsockopt(ps, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	drops0 = if_stat(name, "tx_dropped");
	frames_make(&s, burst, 60, 0, 0);
	e = far_send(ps, name, &s);
	rx_collect(&v, &s, QUIET_MS, 0, &r);
	check(r.got == nbufs && !e, "%sbackpressure: %d frames in %d buffers (want %d)%s%s",
	      prefix, r.got, nbufs, nbufs, e ? ", send: " : "", e ? strerror(e) : "");
	rx_refill(&v, 0, RING_NUM);
	rx_collect(&v, &s, WAIT_MS, 1, &r);
	drops1 = if_stat(name, "tx_dropped");
	check(r.got == burst && drops0 >= 0 && drops1 == drops0 && !r.bad_len && !r.stray,
	      "%sbackpressure: %d of %d delivered after refill, %ld dropped", prefix,
	      r.got, burst, drops1 - drops0);
	frames_free(&s);
	close(ps);
	vnet_close(&v);
}

/* A plain TX and RX round on v: 60 and 1500 B. */
static void round_trip(struct vnet *v, int ps, const char *what)
{
	static const int sz[] = { 60, 1500 };

	for (int i = 0; i < 2; i++) {
		case_tx(v, ps, sz[i], what, 1);
		case_rx(v, v, ps, sz[i], what);
	}
}

/*
 * The device deleted while vhost holds the tap fd: TX gives nothing on a far
 * side that is gone and must not hang; closing vhost and the tap is clean;
 * a new device of the same name then works.
 */
static void test_delete(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	int ps, left, e, gone;

	snprintf(name, sizeof(name), "%sd", base_name);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none");
	close(ps);
	e = dellink(name) ? errno : 0;
	gone = !if_exists(name);
	check(!e && gone, "%sdelete %s while vhost holds its fd: %s%s%s", prefix, name,
	      gone ? "gone" : "still there", e ? ", RTM_DELLINK: " : "", e ? strerror(e) : "");
	frames_make(&s, count, 60, 0, 0);
	left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
	/* Batched, tun's sendmsg says EBADFD and vhost drops the batch
	 * without using its descriptors: a guest loses them (informative:
	 * a driver that took the buffers would give them back). */
	printf("INFO %sdelete: TX of %d 60 B frames after deletion, %d descriptors not "
	       "given back\n", prefix, s.n, left);
	frames_free(&s);
	/* Per packet, vhost uses the descriptor whatever sendmsg said. */
	frames_make(&s, count, 9000, 0, 0);
	left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
	check(!left, "%sdelete: TX of %d 9000 B frames after deletion: %d descriptors not "
	      "given back (want 0)", prefix, s.n, left);
	frames_free(&s);
	vnet_close(&v);
	check(1, "%sdelete: vhost and tap fds closed after deletion", prefix);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none(recreated)");
	close(ps);
	vnet_close(&v);
}

/*
 * Queue detach (TUNSETQUEUE) while vhost holds the fd, then attach again.
 * tun.ko's behaviour, which tapx is to match: a detached queue still
 * transmits (its fd still names the device, so the guest's TX reaches the
 * stack), but the device no longer hands it frames (RX gets nothing).
 */
static void test_detach(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	struct rx_result r;
	struct ifreq ifr;
	int ps, left, stray, e;

	snprintf(name, sizeof(name), "%sq", base_name);
	if (vnet_open(&v, name, IFF_MULTI_QUEUE, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_DETACH_QUEUE;
	e = ioctl(v.tap, TUNSETQUEUE, &ifr) ? errno : 0;
	check(!e, "%sdetach: TUNSETQUEUE IFF_DETACH_QUEUE with vhost bound%s%s", prefix,
	      e ? ": " : "", e ? strerror(e) : "");
	for (int size = 60; size <= 9000; size += 8940) {
		frames_make(&s, count, size, 0, 0);
		far_drain(ps);
		stray = 0;
		left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
		far_collect(ps, &s, WAIT_MS, &stray);
		check(frames_seen(&s) == s.n && !left,
		      "%sdetach: TX %d B on the detached queue still reaches the stack: "
		      "%d/%d seen, %d descriptors not used", prefix, size, frames_seen(&s),
		      s.n, left);
		frames_free(&s);
	}
	frames_make(&s, count, 60, 0, 0);
	memset(&r, 0, sizeof(r));
	e = far_send(ps, name, &s);
	rx_collect(&v, &s, QUIET_MS, 1, &r);
	check(!r.got, "%sdetach: RX while detached: %d/%d frames in the RX ring (want 0)%s%s",
	      prefix, r.got, s.n, e ? ", send: " : "", e ? strerror(e) : "");
	frames_free(&s);
	ifr.ifr_flags = IFF_ATTACH_QUEUE;
	e = ioctl(v.tap, TUNSETQUEUE, &ifr) ? errno : 0;
	check(!e, "%sdetach: TUNSETQUEUE IFF_ATTACH_QUEUE with vhost bound%s%s", prefix,
	      e ? ": " : "", e ? strerror(e) : "");
	if_wait_tx_ready(name, 2000);
	round_trip(&v, ps, "none(reattached)");
	close(ps);
	vnet_close(&v);
	check(1, "%sdetach: vhost and tap fds closed", prefix);
}

/*
 * Host to guest GSO: with the guest's offloads on the tap (TUNSETOFFLOAD, as
 * QEMU sets them), a 64 KiB TCP super-frame sent into the device reaches
 * the RX ring whole, its vnet header written by the driver: TCPv4 GSO with
 * the sender's gso_size, NEEDS_CSUM at the TCP checksum.
 */
static void test_rxgso(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	struct vring_q *q;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned int offload = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	static uint8_t out[sizeof(struct virtio_net_hdr) + MAX_FRAME];
	int ps, one = 1, got = 0, hdr_ok = 0, sent = 0;

	snprintf(name, sizeof(name), "%sg", base_name);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	if (ioctl(v.tap, TUNSETOFFLOAD, offload)) {
		check(0, "%srx gso: TUNSETOFFLOAD: %s", prefix, strerror(errno));
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	if (ps < 0 || setsockopt(ps, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		check(0, "%srx gso: packet socket with PACKET_VNET_HDR: %s", prefix,
		      strerror(errno));
		if (ps >= 0)
			close(ps);
		vnet_close(&v);
		return;
	}
	frames_make(&s, count, MAX_FRAME, 1, 0);
	to.sll_ifindex = if_nametoindex(name);
	for (int i = 0; i < s.n; i++) {
		memcpy(out, &s.hdr.hdr, sizeof(s.hdr.hdr));
		memcpy(out + sizeof(s.hdr.hdr), s.f[i], s.len[i]);
		if (sendto(ps, out, sizeof(s.hdr.hdr) + s.len[i], 0, (void *)&to, sizeof(to)) > 0)
			sent++;
	}
	q = &v.rx;
	while (got < s.n && wait_used(q, WAIT_MS)) {
		uint16_t end = used_idx(q);

		for (; q->last_used != end; q->last_used++) {
			struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];
			struct virtio_net_hdr_mrg_rxbuf *h = (void *)buf_of(q, e->id);
			int flen = (int)e->len - VNET_HLEN;

			if (flen > 0 && frames_match(&s, buf_of(q, e->id) + VNET_HLEN, flen)) {
				got++;
				hdr_ok += h->hdr.gso_type == VIRTIO_NET_HDR_GSO_TCPV4 &&
					  h->hdr.gso_size == gso_size &&
					  (h->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
					  h->hdr.csum_start == 34 && h->hdr.csum_offset == 16 &&
					  h->num_buffers == 1;
			}
			rx_post(q, e->id);
		}
		kick(q);
	}
	check(sent == s.n && got == s.n && hdr_ok == s.n,
	      "%s%s rx 65535 gso (offloads on): %d sent, %d whole in the RX ring byte-exact, "
	      "%d with the TCPv4 GSO header (gso_size %d, csum 34+16)", prefix, name, sent, got,
	      hdr_ok, gso_size);
	frames_free(&s);
	close(ps);
	vnet_close(&v);
}

/* Two queue pairs: one tap fd and one vhost instance each. */
static void test_mq(int unused)
{
	struct vnet v[2];
	char name[IFNAMSIZ];
	struct frameset s;
	struct rx_result r[2];
	int ps, left[2], stray = 0, e;

	snprintf(name, sizeof(name), "%sm", base_name);
	if (vnet_open(&v[0], name, IFF_MULTI_QUEUE, RING_NUM) || vnet_open(&v[1], name, IFF_MULTI_QUEUE, RING_NUM)) {
		vnet_close(&v[0]);
		vnet_close(&v[1]);
		return;
	}
	ps = packet_open(name);
	frames_make(&s, 2 * count, 1500, 0, 0);
	left[0] = tx_frames(&v[0], s.f, s.len, count, &s.hdr);
	left[1] = tx_frames(&v[1], s.f + count, s.len + count, count, &s.hdr);
	far_collect(ps, &s, WAIT_MS, &stray);
	check(!left[0] && !left[1] && frames_seen(&s) == s.n && !stray,
	      "%smq: TX on both queue pairs, %d/%d seen on the far side byte-exact", prefix,
	      frames_seen(&s), s.n);
	frames_free(&s);
	/* RX: UDP flows spread by the driver's flow hash over both queues. */
	frames_make(&s, 4 * count, 1500, 0, 64);
	memset(r, 0, sizeof(r));
	e = far_send(ps, name, &s);
	rx_collect(&v[0], &s, QUIET_MS * 2, 1, &r[0]);
	rx_collect(&v[1], &s, QUIET_MS * 2, 1, &r[1]);
	rx_collect(&v[0], &s, QUIET_MS, 1, &r[0]);
	check(!e && r[0].got + r[1].got == s.n && r[0].got && r[1].got && !r[0].bad_len &&
	      !r[1].bad_len, "%smq: RX of %d UDP frames over 64 flows: %d + %d in the two RX "
	      "rings byte-exact", prefix, s.n, r[0].got, r[1].got);
	frames_free(&s);
	close(ps);
	vnet_close(&v[0]);
	vnet_close(&v[1]);
}

/*
 * tnl (6.17 on): vhost-net with VIRTIO_NET_F_HOST_UDP_TUNNEL_GSO hands the
 * tap a struct virtio_net_hdr_v1_hash_tunnel (24 bytes) before each TX
 * frame, at data_hard_start of its batched buffers. The guest sends
 * --count VXLAN frames around a TCPv4 segment of 2000 bytes with a
 * UDP-tunnel GSO header (gso_size 1000, the offsets of tnl_frame()) in one
 * batch; a packet socket with PACKET_VNET_HDR on the tap must see each as
 * one TCPv4 GSO skb with the inner checksum's offsets, as from tun. Before
 * 6.17 vhost-net has no such feature: not run, and said so.
 */
static void test_tnl(int unused)
{
	static uint8_t f[14 + 20 + 16 + 14 + 40 + 2000], b[8192];
	static const uint8_t to[6] = { 2, 0, 0, 0, 0, 3 };
	uint8_t *frames[RING_NUM];
	int lens[RING_NUM], n = count < RING_NUM ? count : RING_NUM;
	struct tnl_vnet h = tnl_vnet_hdr(1000);
	struct virtio_net_hdr want_h = h.h, *got;
	char name[IFNAMSIZ];
	int ps, one = 1, len, left, seen = 0, same = 0, r, i;
	struct vnet v;

	if (!tnl_kernel()) {
		printf("INFO %stnl: no GSO over UDP tunnels in vhost-net before 6.17: not run\n",
		       prefix);
		return;
	}
	snprintf(name, sizeof(name), "%su", base_name);
	tx_hlen = TNL_HLEN;
	r = vnet_open(&v, name, 0, 0);
	tx_hlen = VNET_HLEN;
	if (r) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	if (ps < 0 || setsockopt(ps, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		check(0, "%stnl: packet socket with PACKET_VNET_HDR: %s", prefix,
		      strerror(errno));
		if (ps >= 0)
			close(ps);
		vnet_close(&v);
		return;
	}
	len = tnl_frame(f, to, 2000);
	for (i = 0; i < n; i++) {
		frames[i] = f;
		lens[i] = len;
	}
	left = tx_frames(&v, frames, lens, n, &h);
	/* What the stack's skb says: GSO over TCPv4, linear, the inner offsets. */
	want_h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	want_h.hdr_len = len;
	while (seen < n) {
		struct pollfd p = { .fd = ps, .events = POLLIN };

		if (poll(&p, 1, WAIT_MS) <= 0)
			break;
		r = recv(ps, b, sizeof(b), MSG_DONTWAIT);
		if (r != (int)sizeof(*got) + len)
			continue;
		got = (struct virtio_net_hdr *)b;
		seen++;
		same += !memcmp(got, &want_h, sizeof(want_h));
	}
	check(!left && seen == n && same == n,
	      "%stnl: %d VXLAN frames with a UDP-tunnel GSO header (24 bytes, one batch): "
	      "%d not given back, %d reached the stack, %d as TCPv4 GSO (gso_size 1000, "
	      "NEEDS_CSUM at %d+16)", prefix, n, left, seen, same, TNL_INNER_TH);
	close(ps);
	vnet_close(&v);
}

static int want(const char *t)
{
	char *dup = strdup(tests_opt), *x, *save;
	int yes = 0;

	for (x = strtok_r(dup, ",", &save); x; x = strtok_r(NULL, ",", &save))
		if (!strcmp(x, t) || (!strcmp(x, "all") && strcmp(t, "basic")))
			yes = 1;
	free(dup);
	return yes;
}

static int cmd_run(int argc, char **argv)
{
	const struct topt opts[] = {
		{ "node", 's', &node },	       { "name", 's', &base_name },
		{ "label", 's', &label },      { "count", 'i', &count },
		{ "sizes", 's', &sizes_opt },  { "gso-size", 'i', &gso_size },
		{ "tests", 's', &tests_opt },  { "pins", 's', &pins },
		{ "maps", 's', &maps },	       { "sendmsg-probe", 's', &sendmsg_probe },
		{ "gso-tx-drops", 'f', &gso_tx_drops }, { NULL, 0, NULL },
	};
	struct vnet v;
	int ps;

	if (parse_topts(argc, argv, 2, opts))
		return 1;
	if (*label)
		snprintf(prefix, sizeof(prefix), "vhost(%s) ", label);
	else
		snprintf(prefix, sizeof(prefix), "vhost ");
	if (count > RING_NUM * 8)
		count = RING_NUM * 8;
	signal(SIGPIPE, SIG_IGN);

	/* The main device first: if the driver does not serve vhost-net,
	 * that is the one result, loud, and nothing else can run. */
	if (vnet_open(&v, base_name, 0, RING_NUM)) {
		int e = v.backend_errno;

		vnet_close(&v);
		return e ? 2 : 1;
	}
	check(1, "%s%s: vhost-net bound to a tap of %s (12-byte vnet header, MRG_RXBUF + "
	      "VERSION_1)", prefix, base_name, node);
	ps = packet_open(base_name);
	probe_on();
	if (want("basic"))
		round_trip(&v, ps, "none");
	if (want("sizes"))
		test_sizes(&v, ps);
	if (want("verdicts"))
		test_verdicts(&v, ps);
	probe_off();
	close(ps);
	vnet_close(&v);
	if (want("ringfull"))
		test_ringfull(0);
	if (want("backpressure"))
		test_backpressure(0);
	if (want("delete"))
		test_delete(0);
	if (want("detach"))
		test_detach(0);
	if (want("rxgso"))
		test_rxgso(0);
	if (want("mq"))
		test_mq(0);
	if (want("tnl"))
		test_tnl(0);
	return failures ? 1 : 0;
}

/* ---- the bench ---- */

/* Frames in flight in a bench cell: fewer than the RX ring's buffers, and
 * than any tap's queue, so that no cell drops a frame. */
#define BENCH_BURST 32

/* Where every bench frame goes: another guest's MAC. */
static const uint8_t bench_dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* The bench's frame: IPv4 from the guest's own addresses (test_src,
 * 10.0.0.1), to bench_dst, UDP, or a TCP GSO super-frame at 64 KiB. */
static void bench_frame(struct frameset *s, int size)
{
	frames_make(s, 1, size, size_is_gso(size), !size_is_gso(size));
	memcpy(s->f[0], bench_dst, 6);
}

/* Fills every free TX descriptor with the frame, once: the guest's own
 * copy is not timed. */
static void tx_prefill(struct vring_q *q, const uint8_t *frame, int len,
		       const struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	tx_reap(q);
	for (int k = 0; k < q->nfree; k++) {
		int id = q->free_ids[k];
		uint8_t *b = buf_of(q, id);

		memcpy(b, hdr, VNET_HLEN);
		memcpy(b + VNET_HLEN, frame, len);
		q->desc[id].addr = (uintptr_t)b;
		q->desc[id].len = VNET_HLEN + len;
		q->desc[id].flags = 0;
		q->desc[id].next = 0;
	}
}

/* Publishes up to k prefilled TX descriptors (of those free after the
 * last tx_reap()) and kicks; how many. */
static int tx_push(struct vring_q *q, int k)
{
	int n = 0;

	while (q->nfree && n < k) {
		publish(q, q->free_ids[--q->nfree]);
		n++;
	}
	if (n)
		kick(q);
	return n;
}

/*
 * Guest TX in ns per frame: descriptors given back to the ring as vhost
 * uses them, kicked once per round. -1 if vhost stopped using them.
 */
static double tx_bench(struct vnet *v, const struct frameset *s, long n)
{
	struct vring_q *q = &v->tx;
	long sent = 0, done = 0;
	double t0;

	tx_prefill(q, s->f[0], s->len[0], &s->hdr);
	t0 = now_ns();
	while (done < n) {
		int before;

		sent += tx_push(q, n - sent);
		if (!wait_used(q, WAIT_MS))
			return -1;
		before = q->nfree;
		tx_reap(q);
		done += q->nfree - before;
	}
	return (now_ns() - t0) / n;
}

/* Guest TX on two queue pairs of one tap, n frames between them. */
static double tx2_bench(struct vnet **v, const struct frameset *s, long n)
{
	long sent[2] = { 0, 0 }, done[2] = { 0, 0 }, half[2] = { n / 2, n - n / 2 };
	double t0;

	for (int i = 0; i < 2; i++)
		tx_prefill(&v[i]->tx, s->f[0], s->len[0], &s->hdr);
	t0 = now_ns();
	while (done[0] + done[1] < n) {
		int waited = 0;

		for (int i = 0; i < 2; i++) {
			struct vring_q *q = &v[i]->tx;
			int before = q->nfree;

			tx_reap(q);
			done[i] += q->nfree - before;
			sent[i] += tx_push(q, half[i] - sent[i]);
		}
		for (int i = 0; i < 2 && !waited; i++)
			if (done[i] < sent[i]) {
				if (!wait_used(&v[i]->tx, WAIT_MS))
					return -1;
				waited = 1;
			}
	}
	return (now_ns() - t0) / n;
}

/* Where an RX cell's frames come from. */
enum rx_from { FROM_STACK, FROM_REDIRECT, FROM_GUEST };

struct rx_source {
	enum rx_from from;
	int ps; /* FROM_STACK: a packet socket, sending on the tap */
	int ifindex;
	int tap; /* FROM_REDIRECT: another tap, written to */
	struct vnet *guest; /* FROM_GUEST: the other guest, its TX ring */
	const struct frameset *s;
	unsigned int next; /* the frame of s sent next */
};

/* Sends k frames from the source; how many went. */
static int rx_source_send(struct rx_source *src, int k)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	const uint8_t *f;
	int len = src->s->len[0], i;

	if (src->from == FROM_GUEST) {
		tx_reap(&src->guest->tx);
		return tx_push(&src->guest->tx, k);
	}
	to.sll_ifindex = src->ifindex;
	for (i = 0; i < k; i++) {
		/* A frameset of several flows: one after the other. */
		f = src->s->f[src->next++ % src->s->n];
		ssize_t w = src->from == FROM_STACK ?
			sendto(src->ps, f, len, 0, (void *)&to, sizeof(to)) :
			write(src->tap, f, len);

		if (w != len)
			break;
	}
	return i;
}

/* The first RX frame of a wrong length in a run: shown when the cell fails. */
static struct {
	int len;
	uint8_t head[34]; /* Ethernet and IPv4 headers */
} odd_frame;

/*
 * RX frames of a run not ours(): the host's own, such as the IGMP reports
 * a bridge sends when it gains a port. Not the cell's, so neither counted
 * nor failed; the checked tx counters grew by them too.
 */
static long foreign;

static void odd_frame_keep(struct vring_q *q, const struct vring_used_elem *e)
{
	int len = (int)e->len - VNET_HLEN;

	odd_frame.len = len;
	memset(odd_frame.head, 0, sizeof(odd_frame.head));
	if (len > 0)
		memcpy(odd_frame.head, buf_of(q, e->id) + VNET_HLEN,
		       len < (int)sizeof(odd_frame.head) ? len : (int)sizeof(odd_frame.head));
}

/*
 * Takes the used RX buffers of v, counting the host's own frames in
 * foreign, ours of exactly 12 + len bytes in *got and any other in *bad
 * (the first one kept in odd_frame), and gives them back to the ring.
 */
static void rx_take(struct vnet *v, int len, long *got, long *bad)
{
	struct vring_q *q = &v->rx;
	uint16_t end = used_idx(q);
	int posted = 0;

	for (; q->last_used != end; q->last_used++) {
		struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];

		int flen = (int)e->len - VNET_HLEN;

		if (flen >= 14 && !ours(buf_of(q, e->id) + VNET_HLEN, flen))
			foreign++;
		else if ((int)e->len == VNET_HLEN + len)
			++*got;
		else if (!(*bad)++)
			odd_frame_keep(q, e);
		rx_post(q, e->id);
		posted = 1;
	}
	if (posted)
		kick(q);
}

/* Until an RX ring of v[0..nv) has a used buffer, or ms pass; 1 if one has. */
static int rx_wait_any(struct vnet **v, int nv, int ms)
{
	struct pollfd p[2];
	uint64_t c;

	for (int i = 0; i < nv && i < 2; i++) {
		p[i].fd = v[i]->rx.call;
		p[i].events = POLLIN;
	}
	for (double end = now_ns() + ms * 1e6; now_ns() < end;) {
		for (int i = 0; i < nv; i++)
			if (used_idx(&v[i]->rx) != v[i]->rx.last_used)
				return 1;
		if (poll(p, nv, 50) <= 0)
			continue;
		for (int i = 0; i < nv; i++)
			if ((p[i].revents & POLLIN) && read(p[i].fd, &c, sizeof(c)) < 0)
				c = 0; /* nonblocking: nothing to take */
	}
	return 0;
}

/*
 * Guest RX in ns per frame: n frames from the source, at most BENCH_BURST
 * in flight, each counted in an RX ring of v[0..nv) (the queue pairs of
 * one tap). -1 if one went missing (a
 * frame not sent, not received within WAIT_MS, or of a wrong length).
 */
static double rx_bench(struct vnet **v, int nv, struct rx_source *src, long n)
{
	long sent = 0, got = 0, bad = 0;
	double t0;

	if (src->from == FROM_GUEST)
		tx_prefill(&src->guest->tx, src->s->f[0], src->s->len[0], &src->s->hdr);
	t0 = now_ns();
	while (got < n) {
		long k = n - sent < BENCH_BURST - (sent - got) ?
				 n - sent : BENCH_BURST - (sent - got);
		int moved = 0;

		if (k > 0)
			sent += rx_source_send(src, k);
		for (int i = 0; i < nv; i++)
			moved |= used_idx(&v[i]->rx) != v[i]->rx.last_used;
		if (!moved && !rx_wait_any(v, nv, WAIT_MS))
			break;
		for (int i = 0; i < nv; i++)
			rx_take(v[i], src->s->len[0], &got, &bad);
		if (bad)
			break;
	}
	if (src->from == FROM_GUEST)
		tx_reap(&src->guest->tx);
	return got == n && !bad ? (now_ns() - t0) / n : -1;
}

/* Runs a shell command; 0 if it exited 0. */
static int run_cmd(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	return rc == 0 ? 0 : -1;
}

/* The guard (examples/guest-guard.policy) for the bench frame's guest:
 * its MAC and address, every frame passes; tap-accel attaches it. */
#define GUARD_NAME "tapx-vhost-guard"
#define GUARD_POLICY "/tmp/" GUARD_NAME ".policy"
/* tap-accel forwarding from one guest's tap to the other's. */
#define FWD_NAME "tapx-vhost-fwd"
#define FWD_POLICY "/tmp/" FWD_NAME ".policy"

static int policy_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -1;
	fputs(text, f);
	return fclose(f);
}

/* The bench's cells: name, what is timed, the program or policy. */
enum cell_kind { CELL_TX, CELL_RX_STACK, CELL_RX_REDIRECT, CELL_G2G, CELL_TX2Q,
		 CELL_RX2Q };
enum cell_prog { PROG_NONE, PROG_PIN, PROG_GUARD, PROG_BRIDGE, PROG_FWD };

struct cell {
	const char *name;
	enum cell_kind kind;
	enum cell_prog how;
	const char *pin; /* PROG_PIN: xdp_basic's program */
	int max_size; /* the largest size it runs at */
};

static const struct cell cells[] = {
	{ "tx-drop", CELL_TX, PROG_PIN, "xdp_drop", 65535 },
	{ "tx-pass", CELL_TX, PROG_PIN, "xdp_pass", 65535 },
	{ "tx-noprog", CELL_TX, PROG_NONE, NULL, 65535 },
	{ "tx-guard", CELL_TX, PROG_GUARD, NULL, 65535 },
	{ "rx-stack", CELL_RX_STACK, PROG_NONE, NULL, 9000 },
	{ "rx-redirect", CELL_RX_REDIRECT, PROG_PIN, "xdp_redirect", 9000 },
	{ "g2g-bridge", CELL_G2G, PROG_BRIDGE, NULL, 65535 },
	{ "g2g-fwd", CELL_G2G, PROG_FWD, NULL, 9000 },
	{ "tx2q-noprog", CELL_TX2Q, PROG_NONE, NULL, 65535 },
	{ "rx2q-stack", CELL_RX2Q, PROG_NONE, NULL, 9000 },
};
#define NCELLS ((int)(sizeof(cells) / sizeof(cells[0])))

struct bench_env {
	struct vnet a, b; /* guest A (bv0), guest B (bv0b) */
	struct vnet q[2]; /* a guest with two queue pairs (bv0q) */
	int ps; /* packet socket on A's tap */
	int src; /* the tap redirected from (bv0r) */
	char src_name[IFNAMSIZ], br[IFNAMSIZ];
	int have_cli; /* tap-accel in PATH */
};

/* Sets up a cell's program, policy or bridge; 0, or -1 after a FAIL. */
static int cell_on(struct bench_env *e, const struct cell *c)
{
	int rc = 0;

	switch (c->how) {
	case PROG_NONE:
		break;
	case PROG_PIN:
		if (c->kind == CELL_RX_REDIRECT)
			rc = set_redirect_port(e->a.ifname) ||
			     xdp_set(e->src_name, c->pin);
		else
			rc = xdp_set(e->a.ifname, c->pin);
		break;
	case PROG_GUARD:
		rc = run_cmd("tap-accel attach %s --policy %s --mode native >/dev/null",
			     e->a.ifname, GUARD_POLICY);
		break;
	case PROG_FWD:
		rc = run_cmd("tap-accel attach %s --policy %s --mode native >/dev/null",
			     e->a.ifname, FWD_POLICY);
		break;
	case PROG_BRIDGE:
		rc = run_cmd("ip link set %s master %s && ip link set %s master %s",
			     e->a.ifname, e->br, e->b.ifname, e->br);
		break;
	}
	if (rc)
		check(0, "%s%s: set up: %s", prefix, c->name, strerror(errno));
	return rc;
}

static void cell_off(struct bench_env *e, const struct cell *c)
{
	switch (c->how) {
	case PROG_NONE:
		break;
	case PROG_PIN:
		xdp_set(c->kind == CELL_RX_REDIRECT ? e->src_name : e->a.ifname, NULL);
		break;
	case PROG_GUARD:
	case PROG_FWD:
		/* Unloaded too: a policy keeps the interface indexes it was
		 * loaded with, and the next driver's taps have others. */
		run_cmd("tap-accel detach %s >/dev/null && tap-accel policy unload %s >/dev/null",
			e->a.ifname, c->how == PROG_GUARD ? GUARD_NAME : FWD_NAME);
		break;
	case PROG_BRIDGE:
		run_cmd("ip link set %s nomaster && ip link set %s nomaster",
			e->a.ifname, e->b.ifname);
		break;
	}
}

/* --check: each cell's frames in the counters of the taps they crossed. */
static int bench_check;

/*
 * Takes what the rings of an RX cell hold after a pause: before its run,
 * the host's own frames since they were last read (c NULL: set aside);
 * after it, before its counters are read, those that came after its last
 * frame (in foreign), where a frame of the cell's is one more than it sent.
 */
static void rx_settle(struct vnet **v, int nv, int len, const struct cell *c)
{
	long got = 0, bad = 0;

	usleep(20 * 1000); /* far longer than vhost takes for a frame */
	for (int i = 0; i < nv; i++)
		rx_take(v[i], len, &got, &bad);
	if (c)
		check(!got && !bad, "%s%s %d: no frame of the cell's after its last (%ld)",
		      prefix, c->name, len, got + bad);
}

static long if_stat(const char *ifname, const char *what)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, what);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/*
 * The counters a cell's frames go through, each to grow by exactly its
 * frames: the guest's tap receives what the guest sends (rx_packets) and
 * transmits what the guest receives (tx_packets); the redirect source
 * receives what it redirects.
 */
struct cell_counters {
	const char *ifname[2], *what[2];
	long before[2];
};

static void counters_pick(struct bench_env *e, const struct cell *c, struct cell_counters *k)
{
	memset(k, 0, sizeof(*k));
	switch (c->kind) {
	case CELL_TX:
		k->ifname[0] = e->a.ifname, k->what[0] = "rx_packets";
		break;
	case CELL_RX_STACK:
		k->ifname[0] = e->a.ifname, k->what[0] = "tx_packets";
		break;
	case CELL_RX_REDIRECT:
		k->ifname[0] = e->src_name, k->what[0] = "rx_packets";
		k->ifname[1] = e->a.ifname, k->what[1] = "tx_packets";
		break;
	case CELL_G2G:
		k->ifname[0] = e->a.ifname, k->what[0] = "rx_packets";
		k->ifname[1] = e->b.ifname, k->what[1] = "tx_packets";
		break;
	case CELL_TX2Q:
		k->ifname[0] = e->q[0].ifname, k->what[0] = "rx_packets";
		break;
	case CELL_RX2Q:
		k->ifname[0] = e->q[0].ifname, k->what[0] = "tx_packets";
		break;
	}
	for (int i = 0; i < 2; i++)
		if (k->ifname[i])
			k->before[i] = if_stat(k->ifname[i], k->what[i]);
}

static void counters_check(const struct cell *c, int size, long n, struct cell_counters *k)
{
	for (int i = 0; i < 2; i++) {
		long d, want;

		if (!k->ifname[i])
			continue;
		/* A tx counter also counts the host's own frames. */
		want = n + (strcmp(k->what[i], "tx_packets") ? 0 : foreign);
		d = if_stat(k->ifname[i], k->what[i]) - k->before[i];
		check(d == want, "%s%s %d: %s %s grew by %ld, the cell's frames %ld%s", prefix,
		      c->name, size, k->ifname[i], k->what[i], d, n,
		      want > n ? " and the host's own" : "");
	}
}

/* The instructions per frame of the last bench_cell() (tests/vm/icount),
 * negative where QEMU does not count them: the kernel's on bench_cpu,
 * where guests and workers run (every vCPU's without --cpu); not the
 * guests' own, which spin while they wait. */
static double cell_insns;

/* One run of one cell at one size: ns per frame, or -1 after a FAIL. */
static double bench_cell(struct bench_env *e, const struct cell *c, int size, long n)
{
	struct icount ic;
	struct cell_counters k;
	struct rx_source src = { .ps = e->ps, .tap = e->src, .guest = &e->a };
	struct vnet *va = &e->a, *vb = &e->b, *vq[2] = { &e->q[0], &e->q[1] };
	struct vnet **rings = NULL; /* an RX cell's: the rings it counts on */
	int nrings = 1;
	struct frameset s;
	double ns = -1;

	if (cell_on(e, c))
		return -1;
	if (c->kind == CELL_RX2Q) {
		/* 16 UDP flows, spread over the queues by their hash. */
		frames_make(&s, 16, size, 0, 16);
		for (int i = 0; i < s.n; i++)
			memcpy(s.f[i], bench_dst, 6);
	} else {
		bench_frame(&s, size);
	}
	src.s = &s;
	src.ifindex = if_nametoindex(e->a.ifname);
	switch (c->kind) {
	case CELL_TX:
	case CELL_TX2Q:
		break;
	case CELL_RX_STACK:
		src.from = FROM_STACK;
		rings = &va;
		break;
	case CELL_RX_REDIRECT:
		src.from = FROM_REDIRECT;
		rings = &va;
		break;
	case CELL_G2G:
		src.from = FROM_GUEST;
		rings = &vb;
		break;
	case CELL_RX2Q:
		src.from = FROM_STACK;
		src.ifindex = if_nametoindex(e->q[0].ifname);
		rings = vq;
		nrings = 2;
		break;
	}
	/* The host's own frames that reached these rings since they were last
	 * read (a bridge's report on guest A during g2g-bridge) are not in
	 * this cell's counters; a timed run just sets them aside. */
	if (bench_check && rings)
		rx_settle(rings, nrings, s.len[0], NULL);
	odd_frame.len = 0;
	foreign = 0;
	if (bench_check)
		counters_pick(e, c, &k);
	icount_begin();
	if (c->kind == CELL_TX)
		ns = tx_bench(&e->a, &s, n);
	else if (c->kind == CELL_TX2Q)
		ns = tx2_bench(vq, &s, n);
	else
		ns = rx_bench(rings, nrings, &src, n);
	cell_insns = icount_end(&ic) < 0 ? -1 : icount_of(&ic, bench_cpu, 1) / n;
	if (bench_check && ns >= 0) {
		if (rings)
			rx_settle(rings, nrings, s.len[0], c);
		counters_check(c, size, n, &k);
	}
	frames_free(&s);
	if (ns < 0) {
		check(0, "%s%s %d: a frame went missing (%ld frames)", prefix, c->name, size, n);
		if (odd_frame.len) {
			printf("# first frame of another length: %d B, ", odd_frame.len);
			for (int i = 0; i < (int)sizeof(odd_frame.head); i++)
				printf("%02x", odd_frame.head[i]);
			printf("\n");
		}
		if (c->how == PROG_GUARD || c->how == PROG_FWD)
			run_cmd("tap-accel stats %s", e->a.ifname);
		run_cmd("ethtool -S %s | grep -v ': 0$'", e->a.ifname);
		if (c->kind == CELL_G2G)
			run_cmd("ethtool -S %s | grep -v ': 0$'", e->b.ifname);
	}
	cell_off(e, c);
	return ns;
}

/* Whether the comma list has the word (or is "all"). */
static int csv_has(const char *list, const char *word)
{
	char *dup = strdup(list), *x, *save;
	int yes = !strcmp(list, "all");

	for (x = strtok_r(dup, ",", &save); x; x = strtok_r(NULL, ",", &save))
		if (!strcmp(x, word))
			yes = 1;
	free(dup);
	return yes;
}

static int cell_wanted(const struct cell *c, const char *list, int have_cli)
{
	if ((c->how == PROG_GUARD || c->how == PROG_FWD) && !have_cli)
		return 0;
	return csv_has(list, c->name);
}

/* The guest with two queue pairs; 0 or -1 after a FAIL. */
static int bench_env_open_q(struct bench_env *e)
{
	char name[IFNAMSIZ];

	snprintf(name, IFNAMSIZ, "%sq", base_name);
	for (int i = 0; i < 2; i++)
		if (vnet_open(&e->q[i], name, IFF_MULTI_QUEUE, RING_NUM))
			return -1;
	return 0;
}

/* Guest B, the redirect source and the bridge; 0 or -1 after a FAIL. */
static int bench_env_open(struct bench_env *e, int need_b)
{
	char b_name[IFNAMSIZ];

	/* Protocol 0: it sends, and no frame the cells pass is cloned to it. */
	e->ps = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	snprintf(e->src_name, IFNAMSIZ, "%sr", base_name);
	e->src = tap_open(node, e->src_name, IFF_TAP | IFF_NO_PI, O_CLOEXEC);
	if (e->ps < 0 || e->src < 0 || if_set_mtu(e->src_name, MAX_FRAME - 14) ||
	    if_up(e->src_name, 1)) {
		check(0, "%s%s: packet socket and redirect source: %s", prefix,
		      e->a.ifname, strerror(errno));
		return -1;
	}
	if (!need_b)
		return 0;
	snprintf(b_name, IFNAMSIZ, "%sb", base_name);
	if (vnet_open(&e->b, b_name, 0, RING_NUM))
		return -1;
	/* Guest B's offloads, as QEMU sets them: GSO frames reach it whole. */
	if (ioctl(e->b.tap, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)) {
		check(0, "%s%s: TUNSETOFFLOAD: %s", prefix, b_name, strerror(errno));
		return -1;
	}
	snprintf(e->br, IFNAMSIZ, "%sbr", base_name);
	if (run_cmd("ip link add %s type bridge && ip link set %s up", e->br, e->br)) {
		check(0, "%s%s: bridge", prefix, e->br);
		return -1;
	}
	return 0;
}

static void bench_env_close(struct bench_env *e)
{
	xdp_set(e->a.ifname, NULL);
	if (e->br[0])
		run_cmd("ip link del %s", e->br);
	if (e->ps >= 0)
		close(e->ps);
	if (e->src >= 0)
		close(e->src);
	if (e->b.ifname[0])
		vnet_close(&e->b);
	for (int i = 0; i < 2; i++)
		if (e->q[i].ifname[0])
			vnet_close(&e->q[i]);
	vnet_close(&e->a);
	unlink(GUARD_POLICY);
	unlink(FWD_POLICY);
}

static int cmd_bench(int argc, char **argv)
{
	static const int sizes[] = { 64, 1500, 9000, 65535 };
	static const char *const size_names[] = { "64", "1500", "9000", "65535" };
	enum { NSIZES = 4 };
	static double best[NCELLS][NSIZES], best_insns[NCELLS][NSIZES];
	const char *cells_opt = "all";
	char text[256];
	const char *bench_sizes = "64,1500,9000,65535";
	int reps = 5, need_b = 0, need_q = 0, bad = 0;
	long frames = 4000;
	const struct topt opts[] = {
		{ "node", 's', &node },	    { "name", 's', &base_name },
		{ "reps", 'i', &reps },	    { "frames", 'l', &frames },
		{ "pins", 's', &pins },	    { "maps", 's', &maps },
		{ "gso-size", 'i', &gso_size }, { "cells", 's', &cells_opt },
		{ "cpu", 'i', &bench_cpu }, { "sizes", 's', &bench_sizes },
		{ "check", 'f', &bench_check },
		{ NULL, 0, NULL },
	};
	struct bench_env e;

	bench_cpu = 0;
	if (parse_topts(argc, argv, 2, opts))
		return 1;
	if (bench_cpu >= 0 && pin_cpu(bench_cpu))
		bench_cpu = -1;
	snprintf(prefix, sizeof(prefix), "vhost-bench ");
	memset(&e, 0, sizeof(e));
	e.ps = e.src = -1;
	e.b.tap = e.b.vhost = -1;
	e.have_cli = !system("command -v tap-accel >/dev/null 2>&1");
	for (int c = 0; c < NCELLS; c++)
		if (cell_wanted(&cells[c], cells_opt, e.have_cli)) {
			need_b |= cells[c].kind == CELL_G2G;
			need_q |= cells[c].kind == CELL_TX2Q || cells[c].kind == CELL_RX2Q;
		}
	if (vnet_open(&e.a, base_name, 0, RING_NUM)) {
		bench_env_close(&e);
		return 2;
	}
	snprintf(text, sizeof(text), "guard mac 02:00:00:00:00:01 ip 10.0.0.1\ndefault pass\n");
	if (policy_write(GUARD_POLICY, text) || bench_env_open(&e, need_b) ||
	    (need_q && bench_env_open_q(&e))) {
		bench_env_close(&e);
		return 1;
	}
	if (need_b) {
		snprintf(text, sizeof(text), "rule redirect %s ethertype 0x0800\ndefault pass\n",
			 e.b.ifname);
		policy_write(FWD_POLICY, text);
	}
	/* Interleaved: every cell once per round, so that drift of a shared
	 * host hits all of them; the minimum is the least disturbed run. */
	for (int r = 0; r < reps; r++)
		for (int c = 0; c < NCELLS; c++)
			for (int i = 0; i < NSIZES; i++) {
				long n = sizes[i] > 9000 ? frames / 8 :
					 sizes[i] > 1500 ? frames / 4 : frames;
				double ns;

				if (!cell_wanted(&cells[c], cells_opt, e.have_cli) ||
				    sizes[i] > cells[c].max_size ||
				    !csv_has(bench_sizes, size_names[i]))
					continue;
				ns = bench_cell(&e, &cells[c], sizes[i], n);
				if (ns < 0)
					bad = 1;
				else if (!best[c][i] || ns < best[c][i])
					best[c][i] = ns;
				if (ns >= 0 && cell_insns > 0 &&
				    (!best_insns[c][i] || cell_insns < best_insns[c][i]))
					best_insns[c][i] = cell_insns;
			}
	bench_env_close(&e);
	printf("--- tapx-vhost bench on %s: ns per frame, min of %d interleaved runs\n",
	       node, reps);
	/* One line a cell and size: CELL SIZE PATH NS [INSTRUCTIONS], the
	 * instructions per frame where QEMU counts them (the minimum). */
	for (int c = 0; c < NCELLS; c++)
		for (int i = 0; i < NSIZES; i++) {
			const char *path = batched_size(sizes[i], cells[c].how != PROG_NONE) ?
						   "batched" :
					   size_is_gso(sizes[i]) ? "gso" : "perpkt";

			if (cell_wanted(&cells[c], cells_opt, e.have_cli) &&
			    sizes[i] <= cells[c].max_size &&
			    csv_has(bench_sizes, size_names[i]))
			{
				printf("%s %s %s %.0f", cells[c].name,
				       size_is_gso(sizes[i]) ? "64k" : size_names[i],
				       cells[c].kind == CELL_TX || cells[c].kind == CELL_G2G ||
						       cells[c].kind == CELL_TX2Q ?
					       path : "-",
				       best[c][i]);
				if (best_insns[c][i] > 0)
					printf(" %.1f", best_insns[c][i]);
				printf("\n");
			}
		}
	check(!bad, "%s%s: every run completed, every frame counted where it arrived",
	      prefix, node);
	return bad;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	fprintf(stderr,
		"usage: tapx-vhost run [--node PATH] [--name IF] [--label L] [--count N]\n"
		"                      [--sizes LIST] [--gso-size N] [--tests LIST]\n"
		"                      [--pins DIR] [--maps DIR] [--sendmsg-probe FUNC]\n"
		"                      [--gso-tx-drops]\n"
		"  tests: sizes verdicts ringfull delete detach rxgso mq (all), basic\n"
		"       tapx-vhost bench [--node PATH] [--name IF] [--reps N] [--frames N]\n"
		"                        [--pins DIR] [--maps DIR] [--gso-size N] [--cells LIST]\n"
		"                        [--sizes LIST] [--cpu N] [--check]\n");
	return 1;
}
