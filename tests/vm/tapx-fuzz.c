// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz - a seeded random ABI fuzzer for tapx.ko (static, for the VM).
 *
 *   tapx-fuzz [--time S] [--seed N] [--procs P] [--threads T] [--calls N]
 *             [--only W] [--node PATH] [--ko PATH] [--progs DIR]
 *             [--maps DIR] [--ring N] [--epoch S] [--no-generic-frags]
 *             [--quiet]
 *
 * P processes of T threads each (default 4 x 2; the second one runs in a
 * network namespace of its own, the last drops to uid/gid 65534 without
 * capabilities when P >= 3) make random calls for S
 * seconds (default vmfuzz= on /proc/cmdline, else 60) against tapx: every
 * call kind of the op table below, with random and hostile arguments (bad,
 * kernel, unaligned, read-only and partly unmapped pointers, huge sizes),
 * on a shared set of device names so that processes collide. Odd-numbered
 * workers are data threads: only the calls that take no rtnl (I/O, batches,
 * io_uring, packet sends, map updates), so that frames keep flowing while
 * the even ones change devices under them. Every few
 * seconds (--epoch, default 15) the parent pauses the workers, they close
 * everything, tapx is removed and loaded again (random ring_size and napi).
 *
 * Worker w draws its calls from seed ^ f(w), and a call's arguments never
 * depend on what an earlier call returned, so the same --seed (and the same
 * --procs/--threads) makes every worker issue the same sequence of calls
 * again (the interleaving of workers differs); --only W runs only worker
 * W's sequence, single-threaded, for a deterministic replay; --calls N
 * stops every worker after N calls.
 *
 * It fails (exit 1) and prints the seed and every worker's last --ring
 * (default 32) calls when:
 *   - the kernel log (/dev/kmsg) shows a KASAN, lockdep, WARN, BUG,
 *     refcount, kmemleak, Oops, hung-task or RCU-stall report;
 *   - a call has not returned after --hang seconds (default 120: on the
 *     debug kernel under TCG an rtnl holder may take 10 s and several may
 *     queue; the watchdog prints the call's kernel stack, sysrq-w the
 *     blocked tasks);
 *   - a worker dies of a signal, tapx cannot be removed once every fd is
 *     closed, or cannot be loaded again.
 * A summary of calls per kind (with the errnos seen) is printed at the end.
 * --no-generic-frags attaches the single-buffer program where a generic
 * (XDP_FLAGS_SKB_MODE) attach drew the multi-buffer one: from 6.9 on,
 * generic XDP frees the fragments a tail cut releases with the wrong
 * memory type (stock tun.ko too: suite-pagepool.sh shows it).
 * Its verdict is one check of tapx-test.h, PASS or FAIL; --quiet leaves out
 * the epoch lines and, as in the other tools, a passing check's line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/tapx.h>

#include "tapx-test.h"

#define MAXP 8
#define MAXT 4
#define MAXW (MAXP * MAXT)
#define RINGMAX 128
#define NSLOTS 12 /* fds per process, shared by its threads */
#define ARENA (192 * 1024) /* per thread: frames and read buffers */
#define PG 4096
#define DESC_LEN 120
#define BAD_KERNEL 0xffff888000000000UL

/* ---- call kinds ---- */

#define KINDS(X)                                                              \
	X(OPEN, 6) X(CLOSE, 4) X(DUP, 2) X(SETIFF, 10) X(GETIFF, 2)          \
	X(PERSIST, 2) X(OWNER, 1) X(GROUP, 1) X(VNETHDRSZ, 3) X(OFFLOAD, 2)  \
	X(SNDBUF, 1) X(VNETLE, 1) X(VNETBE, 1) X(CARRIER, 1) X(FEATURES, 1)  \
	X(QUEUE, 4) X(TUNOTHER, 3) X(RANDIOCTL, 2) X(WRITE, 20) X(WRITEV, 8) \
	X(READ, 8) X(READV, 3) X(POLL, 2) X(SUBMIT, 14) X(RECV, 8)           \
	X(URING_W, 3) X(URING_R, 2) X(URING_RESET, 1) X(XDP, 4) X(MAPSET, 3) \
	X(LINK, 2) X(MTU, 1) X(MAC, 1) X(DELLINK, 2) X(DUMP, 1)              \
	X(ETHTOOL, 2) X(PKTSEND, 4) X(MPROTECT, 1) X(NAPIPARAM, 1)          \
	X(NETNS, 1) X(RMMOD, 1)

enum kind {
#define X(k, w) K_##k,
	KINDS(X)
#undef X
	NK
};
static const char *const kname[NK] = {
#define X(k, w) #k,
	KINDS(X)
#undef X
};
static const int kweight[NK] = {
#define X(k, w) w,
	KINDS(X)
#undef X
};

/* ---- shared state (parent and every worker) ---- */

struct callrec {
	uint64_t seq;
	int kind;
	int done;
	long ret;
	int err;
	char desc[DESC_LEN];
};

#define NERR 140 /* errnos counted per kind; 0 = success */

struct wshared {
	volatile uint64_t calls;
	volatile int64_t busy_since; /* ns, 0 when between calls */
	volatile int cur_kind;
	volatile int tid;
	volatile int paused; /* epoch acknowledged */
	volatile unsigned int pos;
	struct callrec ring[RINGMAX];
	uint64_t count[NK];
	uint64_t ns[NK], max_ns[NK]; /* time in calls of each kind */
	uint64_t errs[NK][NERR];
};

struct gshared {
	volatile int stop;
	volatile pid_t netns_pid[2]; /* a process in the first netns, the second */
	volatile int epoch; /* odd: pause requested */
	volatile int closed[MAXP]; /* per process: its fds are closed */
	volatile uint64_t pause_closes; /* fds closed for pauses so far */
	struct wshared w[MAXW];
};

static struct gshared *g;

/* ---- options ---- */

static double opt_time = 60;
static uint64_t opt_seed;
static int have_seed;
static int nprocs = 4, nthreads = 2, ring_n = 32, only = -1;
static uint64_t max_calls;
static double epoch_s = 15;
static const char *node = "/dev/net/tapx";
static const char *ko = "/modules/tapx.ko";
static const char *progdir = "/sys/fs/bpf/xf";
static const char *mapdir = "/sys/fs/bpf/xfm";
static const char *basicdir = "/sys/fs/bpf/xb";

/* ---- per-process state ---- */

static int proc_id, unpriv;
static int slots[NSLOTS];
static int nprog;
static int progs[8];
static int fd_fuzz_frags = -1, fd_fuzz_linear = -1, no_generic_frags;
static const char *const prog_names[] = {
	"xf/xdp_fuzz", "xf/xdp_fuzz_linear", "xb/xdp_pass", "xb/xdp_drop",
	"xb/xdp_tx",   "xb/xdp_redirect",
};
static int map_ports[2] = { -1, -1 }, map_cpus[2] = { -1, -1 };
static int map_ctl = -1, map_ifindex = -1;
static unsigned char *flaky; /* one page mprotect()ed on and off */
static unsigned char *ro_page; /* read-only, for writes into it */
static void *unmapped; /* an address with nothing mapped */

/* ---- per-thread state ---- */

struct thr {
	int w; /* worker index */
	uint64_t rng;
	unsigned char *arena; /* ARENA bytes, then a PROT_NONE guard page */
	struct wshared *sh;
	timer_t timer;
	int have_timer;
	int nl; /* rtnetlink */
	int pkt; /* AF_PACKET */
	/* io_uring */
	int ring;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqe_len;
	unsigned int entries, inflight;
	struct iovec uiov[8][4];
	char desc[DESC_LEN];
};

static __thread struct thr *T;

static uint64_t rnd(void)
{
	uint64_t x = T->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	T->rng = x;
	return x * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

static int chance(unsigned int n) /* 1 in n */
{
	return rn(n) == 0;
}

/* Describes the call about to be made (the ring keeps it). */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(T->desc, sizeof(T->desc), fmt, ap);
	va_end(ap);
}

static struct callrec *call_begin(int kind)
{
	struct wshared *s = T->sh;
	struct callrec *c = &s->ring[s->pos % ring_n];

	c->seq = s->calls;
	c->kind = kind;
	c->done = 0;
	c->ret = 0;
	c->err = 0;
	memcpy(c->desc, T->desc, sizeof(c->desc));
	s->cur_kind = kind;
	__atomic_store_n(&s->busy_since, (int64_t)now_ns(), __ATOMIC_SEQ_CST);
	return c;
}

static void call_end(struct callrec *c, long ret, int err)
{
	struct wshared *s = T->sh;
	int64_t t = now_ns() - s->busy_since;

	__atomic_store_n(&s->busy_since, 0, __ATOMIC_SEQ_CST);
	s->ns[c->kind] += t;
	if ((uint64_t)t > s->max_ns[c->kind])
		s->max_ns[c->kind] = t;
	c->ret = ret;
	c->err = ret < 0 ? err : 0;
	c->done = 1;
	s->count[c->kind]++;
	s->errs[c->kind][c->err < NERR ? c->err : NERR - 1]++;
	s->pos++;
	s->calls++;
}

/* Runs expression E as one recorded call of kind K; yields its result. */
#define CALL(K, E)                                                   \
	({                                                           \
		struct callrec *_c = call_begin(K);                  \
		long _r = (long)(E);                                 \
		call_end(_c, _r, errno);                             \
		_r;                                                  \
	})

/* ---- memory: hostile pointers ---- */

/* A pointer for a buffer of len bytes: mostly good, sometimes not. */
static void *hostile(void *good, size_t len, int writable, const char **what)
{
	unsigned char *a = T->arena;

	/* One in six is bad. */
	switch (rn(48)) {
	case 0:
		*what = "NULL";
		return NULL;
	case 1:
		*what = "unmapped";
		return unmapped;
	case 2:
		*what = "kernel";
		return (void *)BAD_KERNEL;
	case 3:
		/* Runs into the guard page after the arena. */
		*what = "into-guard";
		return a + ARENA - (len ? rn(len < ARENA ? len : ARENA) : 0);
	case 4:
		*what = "flaky";
		return flaky + rn(PG);
	case 5:
		*what = writable ? "read-only" : "ro-ok";
		return ro_page + rn(64);
	case 6:
		*what = "odd";
		return (unsigned char *)good + 1;
	case 7:
		*what = "noncanonical";
		return (void *)0x0000800000000000UL;
	default:
		*what = "ok";
		return good;
	}
}

/* ---- frames ---- */

/*
 * A random frame length: runts, boundaries (one page's buffer, one jumbo
 * buffer: 3520, 15808), page and 64 KiB sizes.
 */
static size_t gen_len(void)
{
	static const size_t edge[] = { 0,     1,     13,    14,    15,
				       60,    255,   256,   257,   270,
				       3519,  3520,  3521,  4096,  9000,
				       15808, 15809, 65535, 65536, 65549,
				       65550 };

	switch (rn(8)) {
	case 0:
		return edge[rn(sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return rn(20);
	case 2:
	case 3:
		return 14 + rn(300);
	case 4:
		return rn(1600);
	case 5:
		return rn(9100);
	default:
		return rn(65551);
	}
}

static void put_ipv4_tcp(unsigned char *f, size_t flen)
{
	unsigned int tot = flen - 14;

	if (flen < 54)
		return;
	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 40);
	f[14] = 0x45;
	f[16] = tot >> 8;
	f[17] = tot;
	f[22] = 64;
	f[23] = rn(3) ? 6 : 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[46] = 0x50;
	f[47] = 0x10;
	/* Keep the XDP programs' control bytes (14..19) random half the time. */
	if (rn(2))
		for (int i = 15; i < 20; i++)
			f[i] = rnd();
}

/* A vnet header: valid kinds, GSO, each invalid field, random bytes. */
static void gen_vnet(struct virtio_net_hdr *h, unsigned char *f, size_t flen)
{
	memset(h, 0, sizeof(*h));
	switch (rn(12)) {
	case 0:
	case 1:
		break;
	case 2:
		h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
		break;
	case 3:
		put_ipv4_tcp(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 4:
	case 5:
		put_ipv4_tcp(f, flen);
		h->flags = rn(4) ? VIRTIO_NET_HDR_F_NEEDS_CSUM : 0;
		h->gso_type = (const uint8_t[]){ VIRTIO_NET_HDR_GSO_TCPV4,
						 VIRTIO_NET_HDR_GSO_TCPV6,
						 VIRTIO_NET_HDR_GSO_UDP,
						 VIRTIO_NET_HDR_GSO_TCPV4 |
							 VIRTIO_NET_HDR_GSO_ECN }[rn(4)];
		h->gso_size = rn(3) ? 1448 : (uint16_t)rnd();
		h->hdr_len = rn(2) ? 54 : (uint16_t)rn(200);
		h->csum_start = rn(4) ? 34 : (uint16_t)rn(flen + 10);
		h->csum_offset = rn(4) ? 16 : (uint16_t)rn(40);
		break;
	case 6:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = rn(flen + 4);
		h->csum_offset = rn(64);
		break;
	case 7:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 65000 + rn(500);
		h->csum_offset = rn(1000);
		break;
	case 8:
		h->gso_type = rn(256);
		h->gso_size = rnd();
		break;
	case 9:
		h->hdr_len = rnd();
		h->flags = rn(8);
		break;
	default:
		for (size_t i = 0; i < sizeof(*h); i++)
			((unsigned char *)h)[i] = rnd();
		break;
	}
}

/*
 * Builds one write's bytes at buf: PI (random or zero), vnet header of
 * vsz bytes (random kinds), then an Ethernet frame of random content.
 * Returns the total length.
 */
static size_t gen_frame(unsigned char *buf, size_t max, int pi, int vsz)
{
	size_t flen = gen_len(), meta = (pi ? 4 : 0) + vsz, t = meta + flen;
	unsigned char *f;

	if (chance(16)) /* headers alone, or cut inside them */
		t = rn(meta + 1);
	if (t > max)
		t = max;
	flen = t > meta ? t - meta : 0;
	f = buf + meta;
	for (size_t i = 0; i < t; i += 8) {
		uint64_t r = rnd();

		memcpy(buf + i, &r, t - i < 8 ? t - i : 8);
	}
	if (flen >= 14) {
		switch (rn(4)) {
		case 0:
			memset(f, 0xff, 6);
			break;
		case 1:
			f[0] = 0x01;
			break;
		default:
			f[0] &= 0xfe;
			break;
		}
		f[6] &= 0xfe;
		if (rn(3) == 0)
			put_ipv4_tcp(f, flen);
	}
	if (pi && t >= 4 && rn(2))
		memset(buf, 0, 4);
	if (vsz && t >= (size_t)meta && !chance(8)) {
		struct virtio_net_hdr h;

		gen_vnet(&h, f, flen);
		memcpy(buf + (pi ? 4 : 0), &h, sizeof(h));
	}
	return t;
}

/* Guessed layout (the fd's flags are not tracked: any guess is fine). */
static void guess_meta(int *pi, int *vsz)
{
	static const int sz[] = { 10, 12, 10, 20, 0, 256 };

	*pi = chance(3);
	*vsz = rn(2) ? sz[rn(sizeof(sz) / sizeof(sz[0]))] : 0;
}

/* ---- fds ---- */

/*
 * An fd of this process: the first open one of four random slots (four
 * draws whatever happens, so that the sequence of draws, and so the
 * replay, does not depend on which fds are open).
 */
static int slot_fd(void)
{
	unsigned int c[4];
	int i, fd;

	for (i = 0; i < 4; i++)
		c[i] = rn(NSLOTS);
	for (i = 0; i < 4; i++) {
		fd = __atomic_load_n(&slots[c[i]], __ATOMIC_RELAXED);
		if (fd >= 0)
			return fd;
	}
	return fd;
}

static const char *pick_name(char *buf)
{
	static const char *const names[] = {
		"xf0", "xf1", "xf2", "xf3", "xf4", "xfm0", "xfm1", "xfm2",
		"xf0", "xf1", "xfm0", "",   "xa",  "ta",   "lo",   "tapx%d",
		"x/y", "%d%d",
	};
	unsigned int i = rn(sizeof(names) / sizeof(names[0]));

	if (chance(40)) {
		for (int k = 0; k < IFNAMSIZ; k++)
			buf[k] = 'a' + rn(26);
		return buf; /* not terminated: the kernel must cut it */
	}
	snprintf(buf, IFNAMSIZ, "%s", names[i]);
	return buf;
}

static const char *dev_name(char *buf)
{
	static const char *const names[] = { "xf0",  "xf1",  "xf2",  "xf3",
					     "xf4",  "xfm0", "xfm1", "xfm2",
					     "tapx0", "tapx1" };

	snprintf(buf, IFNAMSIZ, "%s", names[rn(sizeof(names) / sizeof(names[0]))]);
	return buf;
}

/* ---- netlink ---- */

/* 0 or -1 with errno from the kernel's answer. */
static int nl_talk(struct nlreq *r)
{
	static __thread unsigned int seq;
	char buf[8192];
	struct nlmsghdr *h;
	ssize_t n;

	if (T->nl < 0) {
		T->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (T->nl < 0)
			return -1;
		struct timeval tv = { .tv_sec = 5 };
		setsockopt(T->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(T->nl, r, r->nh.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(T->nl, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = -((struct nlmsgerr *)NLMSG_DATA(h))->error;

				errno = e;
				return e ? -1 : 0;
			}
		}
	}
}

/* ---- bpf ---- */

static int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

static int map_set(int fd, uint32_t key, uint32_t val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	a.value = (uint64_t)(unsigned long)&val;
	return syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
}

static int map_del(int fd, uint32_t key)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	return syscall(__NR_bpf, BPF_MAP_DELETE_ELEM, &a, sizeof(a));
}

/* ---- timers: blocking calls end by a signal ---- */

static void on_sig(int sig)
{
	(void)sig;
}

/*
 * Periodic until disarmed: a signal that lands before the call starts to
 * wait (the thread preempted between here and the syscall) is followed by
 * another one, so a blocking call always ends.
 */
static void arm(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };
	struct itimerspec it = { .it_value = ts, .it_interval = ts };

	if (T->have_timer)
		timer_settime(T->timer, 0, &it, NULL);
}

static void disarm(void)
{
	struct itimerspec it = {};

	if (T->have_timer)
		timer_settime(T->timer, 0, &it, NULL);
}

/* ---- io_uring (raw syscalls) ---- */

static void uring_close(void)
{
	if (T->ring < 0)
		return;
	munmap(T->sq_map, T->sq_len);
	munmap(T->cq_map, T->cq_len);
	munmap(T->sqes, T->sqe_len);
	close(T->ring);
	T->ring = -1;
	T->inflight = 0;
}

static int uring_open(void)
{
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 8, &p);
	if (fd < 0)
		return -1;
	T->entries = p.sq_entries;
	T->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	T->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	T->sqe_len = p.sq_entries * sizeof(struct io_uring_sqe);
	T->sq_map = mmap(NULL, T->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, IORING_OFF_SQ_RING);
	T->cq_map = mmap(NULL, T->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, IORING_OFF_CQ_RING);
	T->sqes = mmap(NULL, T->sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       IORING_OFF_SQES);
	if (T->sq_map == MAP_FAILED || T->cq_map == MAP_FAILED ||
	    T->sqes == MAP_FAILED) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	T->sq_head = (void *)((char *)T->sq_map + p.sq_off.head);
	T->sq_tail = (void *)((char *)T->sq_map + p.sq_off.tail);
	T->sq_mask = (void *)((char *)T->sq_map + p.sq_off.ring_mask);
	T->sq_array = (void *)((char *)T->sq_map + p.sq_off.array);
	T->cq_head = (void *)((char *)T->cq_map + p.cq_off.head);
	T->cq_tail = (void *)((char *)T->cq_map + p.cq_off.tail);
	T->cq_mask = (void *)((char *)T->cq_map + p.cq_off.ring_mask);
	T->cqes = (void *)((char *)T->cq_map + p.cq_off.cqes);
	T->ring = fd;
	T->inflight = 0;
	return 0;
}

static void uring_reap(void)
{
	unsigned int head = *T->cq_head, tail;

	tail = __atomic_load_n(T->cq_tail, __ATOMIC_ACQUIRE);
	while (head != tail) {
		head++;
		if (T->inflight)
			T->inflight--;
	}
	__atomic_store_n(T->cq_head, head, __ATOMIC_RELEASE);
}

/* Queues one read or write and submits it; waits a little for it. */
static long uring_rw(int op, int fd, void *addr, unsigned int len)
{
	unsigned int tail, idx;
	struct io_uring_sqe *sqe;
	long r;

	if (T->ring < 0 && uring_open() < 0)
		return -1;
	uring_reap();
	if (T->inflight >= T->entries) {
		errno = EBUSY;
		return -1;
	}
	tail = *T->sq_tail;
	idx = tail & *T->sq_mask;
	sqe = &T->sqes[idx];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (unsigned long)addr;
	sqe->len = len;
	sqe->off = rn(2) ? 0 : (uint64_t)-1;
	sqe->user_data = T->sh->calls;
	T->sq_array[idx] = idx;
	__atomic_store_n(T->sq_tail, tail + 1, __ATOMIC_RELEASE);
	T->inflight++;
	arm(100);
	r = syscall(__NR_io_uring_enter, T->ring, 1, rn(2), IORING_ENTER_GETEVENTS,
		    NULL, 0);
	disarm();
	uring_reap();
	return r;
}

/* ---- the calls ---- */

static void setiff_on(int fd, int up);

static void k_open(void)
{
	int i = rn(NSLOTS), nb = rn(2), fd, old;

	int attach = rn(4), up = rn(2);

	say("open %s%s -> slot %d", node, nb ? " O_NONBLOCK" : "", i);
	fd = CALL(K_OPEN, open(node, O_RDWR | O_CLOEXEC | (nb ? O_NONBLOCK : 0)));
	if (fd >= 0) {
		old = __atomic_exchange_n(&slots[i], fd, __ATOMIC_SEQ_CST);
		if (old >= 0)
			close(old);
	}
	/* Mostly attach it right away (two more calls, in the ring too). */
	if (attach)
		setiff_on(fd, up);
}

static void k_close(void)
{
	int i = rn(NSLOTS), fd;

	fd = __atomic_exchange_n(&slots[i], -1, __ATOMIC_SEQ_CST);
	say("close slot %d fd %d", i, fd);
	CALL(K_CLOSE, fd >= 0 ? close(fd) : (errno = EBADF, -1));
}

static void k_dup(void)
{
	int i = rn(NSLOTS), fd = slot_fd(), nfd, old;

	say("dup fd %d -> slot %d", fd, i);
	nfd = CALL(K_DUP, fcntl(fd, F_DUPFD_CLOEXEC, 0));
	if (nfd < 0)
		return;
	old = __atomic_exchange_n(&slots[i], nfd, __ATOMIC_SEQ_CST);
	if (old >= 0)
		close(old);
}

static short gen_flags(void)
{
	static const short bits[] = { IFF_TAP,	       IFF_NO_PI,  IFF_VNET_HDR,
				      IFF_MULTI_QUEUE, IFF_NAPI,   IFF_ONE_QUEUE,
				      IFF_PERSIST,     IFF_TUN,	   IFF_NAPI_FRAGS,
				      IFF_ATTACH_QUEUE, IFF_DETACH_QUEUE,
				      IFF_NOFILTER };
	short f = 0;

	if (rn(4)) {
		/* What tapx takes: IFF_TAP and a subset of its features. */
		f = IFF_TAP;
		if (rn(2))
			f |= IFF_NO_PI;
		if (rn(2))
			f |= IFF_VNET_HDR;
		if (chance(4))
			f |= IFF_NAPI;
		if (chance(6))
			f |= IFF_ONE_QUEUE;
		if (chance(8))
			f |= IFF_PERSIST;
		return f;
	}
	if (chance(10))
		return rnd();
	for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (rn(i < 3 ? 2 : 7) == 0)
			f |= bits[i];
	if (!chance(10))
		f |= IFF_TAP;
	if (chance(12))
		f &= ~IFF_TUN;
	return f;
}

static void k_setiff(void)
{
	setiff_on(slot_fd(), 0);
}

static void setiff_on(int fd, int up)
{
	unsigned char *a = T->arena;
	struct ifreq *ifr = (void *)(a + rn(64));
	const char *what;
	char nm[IFNAMSIZ + 1], name[IFNAMSIZ + 1];
	void *p;
	long r;

	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, pick_name(nm), IFNAMSIZ);
	ifr->ifr_flags = gen_flags();
	/* Multi-queue names get the flag (mostly), the others not. */
	if (!strncmp(ifr->ifr_name, "xfm", 3) && rn(8))
		ifr->ifr_flags |= IFF_MULTI_QUEUE;
	else if (rn(8))
		ifr->ifr_flags &= ~IFF_MULTI_QUEUE;
	p = hostile(ifr, sizeof(*ifr), 1, &what);
	say("TUNSETIFF fd %d name %.16s flags 0x%x ifr %s", fd, ifr->ifr_name,
	    (unsigned short)ifr->ifr_flags, what);
	r = CALL(K_SETIFF, ioctl(fd, TUNSETIFF, p));
	if (r || !up || p != ifr)
		return;
	/* The name the kernel gave it: link up, so the stack sends to it. */
	{
		struct nlreq q;

		snprintf(name, sizeof(name), "%.16s", ifr->ifr_name);
		nl_init(&q, RTM_SETLINK, name);
		q.ifi.ifi_change = IFF_UP;
		q.ifi.ifi_flags = IFF_UP;
		say("link %s up", name);
		CALL(K_LINK, nl_talk(&q));
	}
}

static void k_getiff(void)
{
	struct ifreq ifr;
	int fd = slot_fd();
	const char *what;
	void *p = hostile(&ifr, sizeof(ifr), 1, &what);

	say("TUNGETIFF fd %d buf %s", fd, what);
	CALL(K_GETIFF, ioctl(fd, TUNGETIFF, p));
}

static unsigned long gen_ulong(void)
{
	static const unsigned long v[] = { 0, 1, 2, 0xffffffffUL, ~0UL, 65534,
					   0x7fffffff, 0x80000000UL };

	return rn(3) ? v[rn(sizeof(v) / sizeof(v[0]))] : rnd();
}

static void k_byval(int kind, unsigned long cmd, const char *name)
{
	int fd = slot_fd();
	unsigned long v = gen_ulong();

	say("%s fd %d arg 0x%lx", name, fd, v);
	CALL(kind, ioctl(fd, cmd, v));
}

/* Get or set an int through a pointer. */
static void k_byptr(int kind, unsigned long set, unsigned long get,
		    const char *name, const int *vals, int nvals)
{
	int fd = slot_fd(), *v = (int *)(T->arena + 8 * rn(8));
	int is_get = rn(3) == 0;
	const char *what;
	void *p;

	*v = rn(4) ? vals[rn(nvals)] : (int)rnd();
	p = hostile(v, sizeof(*v), is_get, &what);
	say("%s%s fd %d val %d ptr %s", is_get ? "GET" : "SET", name, fd, *v, what);
	CALL(kind, ioctl(fd, is_get ? get : set, p));
}

static void k_queue(void)
{
	struct ifreq *ifr = (void *)(T->arena + 256);
	int fd = slot_fd();
	const char *what;
	void *p;

	memset(ifr, 0, sizeof(*ifr));
	switch (rn(6)) {
	case 0:
	case 1:
		ifr->ifr_flags = IFF_ATTACH_QUEUE;
		break;
	case 2:
	case 3:
		ifr->ifr_flags = IFF_DETACH_QUEUE;
		break;
	case 4:
		ifr->ifr_flags = IFF_ATTACH_QUEUE | IFF_DETACH_QUEUE;
		break;
	default:
		ifr->ifr_flags = rnd();
		break;
	}
	p = hostile(ifr, sizeof(*ifr), 0, &what);
	say("TUNSETQUEUE fd %d flags 0x%x ifr %s", fd,
	    (unsigned short)ifr->ifr_flags, what);
	CALL(K_QUEUE, ioctl(fd, TUNSETQUEUE, p));
}

/*
 * The rest of tun's ioctls (filters, checksum and debug switches) with
 * whatever argument, and 'T' numbers tapx does not know. (Not
 * TUNGETDEVNETNS, whose fds would pile up, nor TUNSETIFINDEX, which would
 * pick the ifindex of the next device.)
 */
static void k_tunother(void)
{
	static const unsigned long cmds[] = {
		TUNSETNOCSUM,	    TUNSETDEBUG,
		TUNATTACHFILTER,    TUNDETACHFILTER,	TUNGETFILTER,
		TUNSETTXFILTER,	    TUNSETSTEERINGEBPF,
		TUNSETFILTEREBPF,   _IOW('T', 228, int),
		_IOW('T', 239, int), _IOWR('T', 242, struct tapx_batch),
		_IOR('T', 241, struct tapx_batch), _IOW('T', 240, int),
	};
	unsigned long cmd = cmds[rn(sizeof(cmds) / sizeof(cmds[0]))];
	int fd = slot_fd();
	const char *what;
	void *p = hostile(T->arena + 512, 64, 1, &what);
	struct sock_fprog *sf = (void *)(T->arena + 512);

	memset(T->arena + 512, 0, 64);
	sf->len = rn(4);
	sf->filter = (void *)(T->arena + 600);
	say("tun ioctl 0x%lx fd %d arg %s", cmd, fd, what);
	CALL(K_TUNOTHER, ioctl(fd, cmd, rn(4) ? p : (void *)gen_ulong()));
}

static void k_randioctl(void)
{
	unsigned long cmd;
	int fd = slot_fd();

	if (rn(2))
		cmd = _IOC(rn(4), 'T', rn(256), rn(64));
	else
		cmd = (unsigned int)rnd();
	/* Never FIONBIO & co. with a bad pointer: they are the VFS's. */
	say("ioctl fd %d cmd 0x%lx", fd, cmd);
	CALL(K_RANDIOCTL, ioctl(fd, cmd, T->arena + 1024));
}

/* One frame in the arena at a random (odd) offset. */
static unsigned char *frame_at(size_t *t, size_t room)
{
	int pi, vsz;
	size_t off = rn(2) ? rn(PG) : 0;
	unsigned char *b = T->arena + off;

	guess_meta(&pi, &vsz);
	*t = gen_frame(b, room - off, pi, vsz);
	return b;
}

static void k_write(void)
{
	int fd = slot_fd();
	size_t t;
	unsigned char *b = frame_at(&t, 70000 + PG);
	const char *what;
	void *p = hostile(b, t, 0, &what);
	size_t len = chance(40) ? (size_t)gen_ulong() : t;

	say("write fd %d len %zu buf %s", fd, len, what);
	CALL(K_WRITE, write(fd, p, len));
}

static int gen_iov(struct iovec *iov, int max, unsigned char *b, size_t t,
		   const char **what)
{
	int n = 1 + rn(max), i;
	size_t off = 0, k;

	*what = "ok";
	for (i = 0; i < n; i++) {
		k = i == n - 1 ? t - off : rn(t - off + 1);
		iov[i].iov_base = b + off;
		iov[i].iov_len = k;
		off += k;
	}
	if (chance(6)) {
		i = rn(n);
		iov[i].iov_base = hostile(iov[i].iov_base, iov[i].iov_len,
					  0, what);
	}
	return n;
}

static void k_writev(void)
{
	int fd = slot_fd(), n;
	size_t t;
	unsigned char *b = frame_at(&t, 70000 + PG);
	struct iovec iov[8];
	const char *what;

	n = gen_iov(iov, 8, b, t, &what);
	say("writev fd %d len %zu niov %d bad %s", fd, t, n, what);
	CALL(K_WRITEV, writev(fd, iov, n));
}

static size_t read_len(void)
{
	static const size_t v[] = { 0, 1, 3, 4, 9, 10, 13, 14, 60, 100, 1514,
				    3520, 65535, 65549, 70000 };

	return rn(3) ? 70000 : v[rn(sizeof(v) / sizeof(v[0]))];
}

static void k_read(void)
{
	int fd = slot_fd(), block = 1; /* the fd may be a blocking one */
	unsigned char *b = T->arena + 72 * 1024;
	size_t len = read_len();
	const char *what;
	void *p = hostile(b, len > ARENA - 72 * 1024 ? 0 : len, 1, &what);

	if (len > ARENA - 72 * 1024 && !strcmp(what, "ok"))
		len = ARENA - 72 * 1024;
	say("read fd %d len %zu buf %s%s", fd, len, what, block ? " timer" : "");
	if (block)
		arm(10 + rn(60));
	CALL(K_READ, read(fd, p, len));
	if (block)
		disarm();
}

static void k_readv(void)
{
	int fd = slot_fd(), n;
	unsigned char *b = T->arena + 72 * 1024;
	struct iovec iov[4];
	const char *what;

	n = gen_iov(iov, 4, b, read_len() % (ARENA - 72 * 1024), &what);
	say("readv fd %d niov %d bad %s timer", fd, n, what);
	arm(10 + rn(60));
	CALL(K_READV, readv(fd, iov, n));
	disarm();
}

static void k_poll(void)
{
	struct pollfd p[3];
	int n = 1 + rn(3), i;

	for (i = 0; i < n; i++) {
		p[i].fd = slot_fd();
		p[i].events = rn(2) ? POLLIN : (POLLIN | POLLOUT | POLLERR);
		p[i].revents = 0;
	}
	say("poll %d fds (%d..) %d ms", n, p[0].fd, 20);
	CALL(K_POLL, poll(p, n, rn(2) ? 0 : 20));
}

/*
 * A descriptor array for TAPXSUBMIT or TAPXRECV, in the arena's first
 * page-aligned 8 KiB after 128 KiB; frames or buffers after it.
 */
static struct tapx_batch *gen_batch(int recv, const char **what, char *info,
				    size_t infolen)
{
	unsigned char *a = T->arena;
	struct tapx_desc *d = (void *)(a + 128 * 1024);
	/* after the 256 descriptors */
	struct tapx_batch *b = (void *)(a + 132 * 1024 + 64);
	unsigned int count, i, nbad = 0, nbig = 0;
	unsigned char *fr = a; /* frames: the first 128 KiB */
	size_t used = 0;

	switch (rn(10)) {
	case 0:
		count = (const unsigned int[]){ 0, 257, 1000, 0xffffffffU,
						256 }[rn(5)];
		break;
	case 1:
	case 2:
		count = 1 + rn(256);
		break;
	default:
		count = 1 + rn(16);
		break;
	}
	memset(b, 0, sizeof(*b));
	b->descs = (uintptr_t)d;
	b->count = count;
	if (chance(30))
		b->flags = rnd();
	if (chance(30))
		b->reserved = rnd();
	if (chance(12)) {
		const char *dw;

		b->descs = (uintptr_t)hostile(d, count * sizeof(*d), !recv, &dw);
		if (chance(2)) /* the array runs into the guard page */
			b->descs = (uintptr_t)(a + ARENA - 16 * (1 + rn(8)));
	}
	for (i = 0; i < count && i < 256; i++) {
		size_t t;
		const char *w;

		if (recv) {
			size_t len = read_len();
			/* buffers share the frame area (they may overlap) */
			size_t off = rn(128 * 1024 - (len < 65536 ? len : 65536));

			d[i].addr = (uintptr_t)(fr + off);
			d[i].len = len;
		} else {
			int pi, vsz;
			size_t room = used < 128 * 1024 ? 128 * 1024 - used : 0;

			guess_meta(&pi, &vsz);
			if (room < 300 || (nbig > 2 && rn(4))) {
				/* reuse an earlier frame's bytes */
				size_t off = rn(used ? used : 1);
				d[i].addr = (uintptr_t)(fr + off);
				d[i].len = rn(2) ? 60 : rn(300);
			} else {
				t = gen_frame(fr + used, room, pi, vsz);
				d[i].addr = (uintptr_t)(fr + used);
				d[i].len = t;
				used += t + rn(8);
				if (t > 4096)
					nbig++;
			}
		}
		if (chance(12)) {
			d[i].addr = (uintptr_t)hostile((void *)(uintptr_t)d[i].addr,
						       d[i].len, recv, &w);
			nbad++;
		}
		if (chance(40))
			d[i].len = gen_ulong();
		d[i].status = rnd();
	}
	*what = (void *)b->descs == d ? "ok" : "bad";
	snprintf(info, infolen, "count %u flags %u res %u descs %s bad %u",
		 count, b->flags, b->reserved, *what, nbad);
	return b;
}

static void k_batch(int recv)
{
	int fd = slot_fd(), block = recv;
	const char *what, *bw;
	char info[80];
	struct tapx_batch *b = gen_batch(recv, &what, info, sizeof(info));
	void *p = hostile(b, sizeof(*b), 1, &bw);

	say("%s fd %d %s batch %s%s", recv ? "TAPXRECV" : "TAPXSUBMIT", fd,
	    info, bw, block ? " timer" : "");
	if (block)
		arm(10 + rn(60));
	CALL(recv ? K_RECV : K_SUBMIT,
	     ioctl(fd, recv ? TAPXRECV : TAPXSUBMIT, p));
	if (block)
		disarm();
}

static void k_uring(int w)
{
	int fd = slot_fd(), v = rn(2);
	unsigned char *b;
	size_t t;
	int n;
	const char *what = "ok";
	struct iovec *iov;

	if (w) {
		b = frame_at(&t, 70000 + PG);
	} else {
		b = T->arena + 72 * 1024;
		t = read_len() % (ARENA - 72 * 1024);
	}
	iov = T->uiov[T->sh->calls % 8];
	n = gen_iov(iov, 4, b, t, &what);
	say("io_uring %s%s fd %d len %zu bad %s", w ? "write" : "read",
	    v ? "v" : "", fd, t, what);
	if (v)
		CALL(w ? K_URING_W : K_URING_R,
		     uring_rw(w ? IORING_OP_WRITEV : IORING_OP_READV, fd, iov, n));
	else
		CALL(w ? K_URING_W : K_URING_R,
		     uring_rw(w ? IORING_OP_WRITE : IORING_OP_READ, fd, iov[0].iov_base,
			      iov[0].iov_len));
}

static void k_uring_reset(void)
{
	say("io_uring close ring %d (%u in flight)", T->ring, T->inflight);
	CALL(K_URING_RESET, (uring_close(), 0));
}

static void k_xdp(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	struct rtattr *nest;
	int prog = nprog ? progs[rn(nprog)] : -1;
	unsigned int flags = 0;

	switch (rn(8)) {
	case 0:
		prog = -1; /* detach */
		break;
	case 1:
		flags = XDP_FLAGS_SKB_MODE;
		break;
	case 2:
		flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
		break;
	case 3:
		flags = rnd() & 0x1f;
		break;
	}
	if (!(flags & (XDP_FLAGS_SKB_MODE | XDP_FLAGS_HW_MODE)))
		flags |= XDP_FLAGS_DRV_MODE;
	if (no_generic_frags && (flags & XDP_FLAGS_SKB_MODE) &&
	    prog == fd_fuzz_frags)
		prog = fd_fuzz_linear;
	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nest = (struct rtattr *)((char *)&r + NLMSG_ALIGN(r.nh.nlmsg_len));
	nest->rta_type = IFLA_XDP | NLA_F_NESTED;
	r.nh.nlmsg_len = NLMSG_ALIGN(r.nh.nlmsg_len) + RTA_LENGTH(0);
	nl_put(&r, IFLA_XDP_FD, &prog, sizeof(prog));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nest->rta_len = (char *)&r + r.nh.nlmsg_len - (char *)nest;
	say("xdp %s prog fd %d flags 0x%x", nm, prog, flags);
	CALL(K_XDP, nl_talk(&r));
}

static void k_mapset(void)
{
	char nm[IFNAMSIZ];
	unsigned int ifi = if_nametoindex(dev_name(nm));
	uint32_t key = rn(8);

	int l = rn(2); /* the frags program's maps or the linear one's */

	switch (rn(5)) {
	case 0:
		say("fuzz_ports%s[%u] = %s (%u)", l ? "_linear" : "", key, nm, ifi);
		CALL(K_MAPSET, map_set(map_ports[l], key, ifi));
		break;
	case 1:
		say("fuzz_ports%s[%u] deleted", l ? "_linear" : "", key);
		CALL(K_MAPSET, map_del(map_ports[l], key));
		break;
	case 2:
		key &= 1;
		ifi = rn(2) ? 0 : 16 + rn(512);
		say("fuzz_cpus%s[%u] qsize %u", l ? "_linear" : "", key, ifi);
		CALL(K_MAPSET, ifi ? map_set(map_cpus[l], key, ifi) :
				     map_del(map_cpus[l], key));
		break;
	case 3:
		if (rn(2))
			ifi = rn(64);
		say("fuzz_ifindex[%u] = %u", key, ifi);
		CALL(K_MAPSET, map_set(map_ifindex, key, ifi));
		break;
	default:
		ifi = rnd();
		say("fuzz_ctl[0] = 0x%x", ifi);
		CALL(K_MAPSET, map_set(map_ctl, 0, ifi));
		break;
	}
}

static void k_link(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	int up = rn(2);

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	r.ifi.ifi_change = IFF_UP;
	r.ifi.ifi_flags = up ? IFF_UP : 0;
	say("link %s %s", nm, up ? "up" : "down");
	CALL(K_LINK, nl_talk(&r));
}

static void k_mtu(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	static const int v[] = { 0, 67, 68, 1500, 3500, 9000, 65521, 65522,
				 65535, -1 };
	int mtu = v[rn(sizeof(v) / sizeof(v[0]))];

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	say("mtu %s %d", nm, mtu);
	CALL(K_MTU, nl_talk(&r));
}

static void k_mac(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	unsigned char mac[6];

	for (int i = 0; i < 6; i++)
		mac[i] = rnd();
	if (rn(2))
		mac[0] = 0x02;
	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_ADDRESS, mac, 6);
	say("mac %s %02x:..", nm, mac[0]);
	CALL(K_MAC, nl_talk(&r));
}

static void k_dellink(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];

	nl_init(&r, RTM_DELLINK, dev_name(nm));
	say("dellink %s", nm);
	CALL(K_DELLINK, nl_talk(&r));
}

/* Moves a device to the other network namespace (if there is one). */
static void k_netns(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	uint32_t pid = g->netns_pid[proc_id == 1 ? 0 : 1];

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_NET_NS_PID, &pid, sizeof(pid));
	say("move %s to the netns of pid %u", nm, pid);
	CALL(K_NETNS, pid ? nl_talk(&r) : (errno = ESRCH, -1));
}

static void k_dump(void)
{
	struct nlreq r;

	nl_init(&r, RTM_GETLINK, NULL);
	r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	say("RTM_GETLINK dump");
	CALL(K_DUMP, nl_talk(&r));
}

static int ethtool_call(const char *nm, void *data)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", nm);
	ifr.ifr_data = data;
	r = ioctl(s, SIOCETHTOOL, &ifr);
	close(s);
	return r;
}

static void k_ethtool(void)
{
	char nm[IFNAMSIZ];
	unsigned char *a = T->arena + 140 * 1024;
	struct ethtool_stats *st = (void *)a;
	struct ethtool_gstrings *gs = (void *)a;
	struct ethtool_drvinfo *di = (void *)a;
	struct ethtool_link_settings *ks = (void *)a;

	dev_name(nm);
	memset(a, 0, 4096);
	switch (rn(4)) {
	case 0:
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = rn(2) ? 600 : rn(1000);
		say("ethtool GSTATS %s", nm);
		break;
	case 1:
		gs->cmd = ETHTOOL_GSTRINGS;
		gs->string_set = rn(2) ? ETH_SS_STATS : rn(8);
		say("ethtool GSTRINGS %s set %u", nm, gs->string_set);
		break;
	case 2:
		di->cmd = ETHTOOL_GDRVINFO;
		say("ethtool GDRVINFO %s", nm);
		break;
	default:
		ks->cmd = ETHTOOL_GLINKSETTINGS;
		say("ethtool GLINKSETTINGS %s", nm);
		break;
	}
	CALL(K_ETHTOOL, ethtool_call(nm, a));
}

/* A frame from the stack into a tapx device: what read() returns. */
static void k_pktsend(void)
{
	char nm[IFNAMSIZ];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int vnet = rn(2);
	size_t t;
	unsigned char *b;

	if (T->pkt < 0) {
		T->pkt = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (T->pkt < 0) {
			say("socket AF_PACKET");
			CALL(K_PKTSEND, -1);
			return;
		}
	}
	setsockopt(T->pkt, SOL_PACKET, PACKET_VNET_HDR, &vnet, sizeof(vnet));
	sll.sll_ifindex = if_nametoindex(dev_name(nm));
	sll.sll_halen = 6;
	b = T->arena + 64;
	t = gen_frame(b, 66000, 0, vnet ? 10 : 0);
	say("packet send %s (%d) len %zu vnet %d", nm, sll.sll_ifindex, t, vnet);
	CALL(K_PKTSEND, sendto(T->pkt, b, t, MSG_DONTWAIT, (void *)&sll,
			       sizeof(sll)));
}

static void k_mprotect(void)
{
	int on = rn(2);

	say("mprotect flaky page %s", on ? "rw" : "none");
	CALL(K_MPROTECT,
	     mprotect(flaky, PG, on ? PROT_READ | PROT_WRITE : PROT_NONE));
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r < 0 ? -1 : 0;
}

static void k_napiparam(void)
{
	int v = rn(2);

	say("napi param = %d", v);
	CALL(K_NAPIPARAM,
	     write_file("/sys/module/tapx/parameters/napi", v ? "1" : "0"));
}

static int load_tapx(const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = syscall(__NR_finit_module, fd, params, 0);
	close(fd);
	return r;
}

/* Expected to fail while fds are open; if it worked, load tapx again. */
static void k_rmmod(void)
{
	long r;

	say("delete_module tapx (then finit_module if it went)");
	r = CALL(K_RMMOD, syscall(__NR_delete_module, "tapx", O_NONBLOCK));
	if (!r)
		load_tapx("");
}

/*
 * Kinds that take no rtnl: what the data threads (every odd thread of a
 * process) do, so that frames keep flowing while the control threads
 * create, change and delete the devices under them (on a debug kernel an
 * rtnl holder can take seconds, and a control thread mostly waits).
 */
static int data_kind(int k)
{
	switch (k) {
	case K_DUP: case K_FEATURES: case K_WRITE: case K_WRITEV: case K_READ:
	case K_READV: case K_POLL: case K_SUBMIT: case K_RECV: case K_URING_W:
	case K_URING_R: case K_URING_RESET: case K_MAPSET: case K_PKTSEND:
	case K_MPROTECT:
		return 1;
	}
	return 0;
}

static void one_call(void)
{
	static int total[2];
	int k, r, data = T->w % 2;

	if (!total[data])
		for (k = 0; k < NK; k++)
			total[data] += data && !data_kind(k) ? 0 : kweight[k];
	r = rn(total[data]);
	for (k = 0; k < NK - 1; k++) {
		int wk = data && !data_kind(k) ? 0 : kweight[k];

		if (r < wk)
			break;
		r -= wk;
	}

	switch (k) {
	case K_OPEN: k_open(); break;
	case K_CLOSE: k_close(); break;
	case K_DUP: k_dup(); break;
	case K_SETIFF: k_setiff(); break;
	case K_GETIFF: k_getiff(); break;
	case K_PERSIST: k_byval(k, TUNSETPERSIST, "TUNSETPERSIST"); break;
	case K_OWNER: k_byval(k, TUNSETOWNER, "TUNSETOWNER"); break;
	case K_GROUP: k_byval(k, TUNSETGROUP, "TUNSETGROUP"); break;
	case K_OFFLOAD: k_byval(k, TUNSETOFFLOAD, "TUNSETOFFLOAD"); break;
	case K_VNETHDRSZ:
		k_byptr(k, TUNSETVNETHDRSZ, TUNGETVNETHDRSZ, "VNETHDRSZ",
			(const int[]){ 10, 12, 10, 12, 20, 256, 9, 257, 0, -1 }, 10);
		break;
	case K_SNDBUF:
		k_byptr(k, TUNSETSNDBUF, TUNGETSNDBUF, "SNDBUF",
			(const int[]){ 0, -1, 1, 65536, 0x7fffffff }, 5);
		break;
	case K_VNETLE:
		k_byptr(k, TUNSETVNETLE, TUNGETVNETLE, "VNETLE",
			(const int[]){ 0, 1, 0, 1, 0, -1 }, 6);
		break;
	case K_VNETBE:
		k_byptr(k, TUNSETVNETBE, TUNGETVNETBE, "VNETBE",
			(const int[]){ 0, 0, 0, 1 }, 4);
		break;
	case K_CARRIER:
		k_byptr(k, TUNSETCARRIER, TUNSETCARRIER, "CARRIER",
			(const int[]){ 0, 1, 1 }, 3);
		break;
	case K_FEATURES: {
		unsigned int *v = (void *)(T->arena + 32);
		const char *what;
		void *p = hostile(v, 4, 1, &what);
		int fd = slot_fd();

		say("TUNGETFEATURES fd %d ptr %s", fd, what);
		CALL(k, ioctl(fd, TUNGETFEATURES, p));
		break;
	}
	case K_QUEUE: k_queue(); break;
	case K_TUNOTHER: k_tunother(); break;
	case K_RANDIOCTL: k_randioctl(); break;
	case K_WRITE: k_write(); break;
	case K_WRITEV: k_writev(); break;
	case K_READ: k_read(); break;
	case K_READV: k_readv(); break;
	case K_POLL: k_poll(); break;
	case K_SUBMIT: k_batch(0); break;
	case K_RECV: k_batch(1); break;
	case K_URING_W: k_uring(1); break;
	case K_URING_R: k_uring(0); break;
	case K_URING_RESET: k_uring_reset(); break;
	case K_XDP: k_xdp(); break;
	case K_MAPSET: k_mapset(); break;
	case K_LINK: k_link(); break;
	case K_MTU: k_mtu(); break;
	case K_MAC: k_mac(); break;
	case K_DELLINK: k_dellink(); break;
	case K_DUMP: k_dump(); break;
	case K_ETHTOOL: k_ethtool(); break;
	case K_PKTSEND: k_pktsend(); break;
	case K_MPROTECT: k_mprotect(); break;
	case K_NAPIPARAM: k_napiparam(); break;
	case K_NETNS: k_netns(); break;
	case K_RMMOD: k_rmmod(); break;
	}
}

/* ---- workers ---- */

/*
 * A pause's closes, each watched like a call (a last close deletes its
 * device: seconds under rtnl on the debug kernel) and counted, so that
 * the parent sees the pause progress. Also called by a process's main
 * thread at its end, which is no worker (T is NULL there).
 */
static void close_all(void)
{
	struct wshared *sh = T ? T->sh : NULL;

	for (int i = 0; i < NSLOTS; i++) {
		int fd = __atomic_exchange_n(&slots[i], -1, __ATOMIC_SEQ_CST);

		if (fd < 0)
			continue;
		if (sh) {
			sh->cur_kind = K_CLOSE;
			__atomic_store_n(&sh->busy_since, (int64_t)now_ns(),
					 __ATOMIC_SEQ_CST);
		}
		close(fd);
		if (sh)
			__atomic_store_n(&sh->busy_since, 0, __ATOMIC_SEQ_CST);
		__atomic_add_fetch(&g->pause_closes, 1, __ATOMIC_SEQ_CST);
	}
}

static void thread_close(void)
{
	uring_close();
	if (T->pkt >= 0)
		close(T->pkt);
	T->pkt = -1;
}

struct targ {
	int w;
	uint64_t seed;
	int64_t end;
};

static pthread_barrier_t pbar;

static void *thread_main(void *arg)
{
	struct targ *ta = arg;
	struct thr t;
	struct sigevent sev;
	int epoch = 0;

	memset(&t, 0, sizeof(t));
	T = &t;
	t.w = ta->w;
	t.sh = &g->w[t.w];
	t.sh->tid = syscall(SYS_gettid);
	t.rng = ta->seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(t.w + 1));
	if (!t.rng)
		t.rng = 1;
	t.nl = t.pkt = t.ring = -1;
	t.arena = mmap(NULL, ARENA + PG, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t.arena == MAP_FAILED)
		return NULL;
	mprotect(t.arena + ARENA, PG, PROT_NONE);
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGUSR1;
	sev._sigev_un._tid = t.sh->tid;
	t.have_timer = timer_create(CLOCK_MONOTONIC, &sev, &t.timer) == 0;

	for (;;) {
		int e = __atomic_load_n(&g->epoch, __ATOMIC_SEQ_CST);

		if (g->stop || now_ns() >= ta->end ||
		    (max_calls && t.sh->calls >= max_calls))
			break;
		if (e & 1) {
			/* Pause: close what this thread and process hold. */
			if (epoch != e) {
				epoch = e;
				thread_close();
				t.sh->paused = e;
				pthread_barrier_wait(&pbar);
				if (t.w % nthreads == 0) {
					close_all();
					g->closed[proc_id] = e;
				}
			}
			usleep(2000);
			continue;
		}
		one_call();
	}
	thread_close();
	t.sh->paused = -1;
	return NULL;
}

/* A fault in the fuzzer itself: say where, in the log the parent prints. */
static void on_fault(int sig, siginfo_t *si, void *uc)
{
	char buf[256];
	int n;

	(void)uc;
	n = snprintf(buf, sizeof(buf),
		     "fuzz: worker %d: signal %d at %p during %s: %s\n",
		     T ? T->w : -1, sig, si->si_addr,
		     T ? kname[T->sh->cur_kind] : "?", T ? T->desc : "?");
	if (write(2, buf, n) < 0)
		_exit(3);
	_exit(3);
}

static void proc_main(int p, uint64_t seed, int64_t end)
{
	struct sigaction fa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO };
	pthread_t th[MAXT];
	struct targ ta[MAXT];
	struct sigaction sa = { .sa_handler = on_sig };
	char path[256];
	int i, n = only >= 0 ? 1 : nthreads;

	proc_id = p;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigaction(SIGUSR1, &sa, NULL); /* no SA_RESTART: blocking calls end */
	sigaction(SIGSEGV, &fa, NULL);
	sigaction(SIGBUS, &fa, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < NSLOTS; i++)
		slots[i] = -1;
	for (i = 0; i < (int)(sizeof(prog_names) / sizeof(prog_names[0])); i++) {
		const char *n2 = strchr(prog_names[i], '/') + 1;
		const char *dir = prog_names[i][1] == 'f' ? progdir : basicdir;
		int fd;

		snprintf(path, sizeof(path), "%s/%s", dir, n2);
		fd = bpf_obj_get(path);
		if (fd < 0)
			continue;
		progs[nprog++] = fd;
		if (i == 0)
			fd_fuzz_frags = fd;
		else if (i == 1)
			fd_fuzz_linear = fd;
	}
	snprintf(path, sizeof(path), "%s/fuzz_ports", mapdir);
	map_ports[0] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ports_linear", mapdir);
	map_ports[1] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_cpus", mapdir);
	map_cpus[0] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_cpus_linear", mapdir);
	map_cpus[1] = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ctl", mapdir);
	map_ctl = bpf_obj_get(path);
	snprintf(path, sizeof(path), "%s/fuzz_ifindex", mapdir);
	map_ifindex = bpf_obj_get(path);

	/*
	 * The hostile pages sit in a reserved PROT_NONE area, 60 KiB of it on
	 * either side: a kernel copy that runs past the flaky or read-only
	 * page faults there instead of writing into whatever mapping is next
	 * (the shared state, a stack), and "unmapped" is never reused by a
	 * later mmap.
	 */
	{
		unsigned char *res = mmap(NULL, 192 * 1024, PROT_NONE,
					  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
					  -1, 0);

		flaky = res + 64 * 1024;
		ro_page = res + 128 * 1024;
		unmapped = res + 160 * 1024;
		mprotect(flaky, PG, PROT_READ | PROT_WRITE);
		mprotect(ro_page, PG, PROT_READ);
	}

	if (p == 1 && only < 0) {
		/*
		 * The second process lives in a network namespace of its own:
		 * its devices are other devices of the same names, the netns
		 * calls move devices between the two, and the namespace goes
		 * away (with what is left in it) when the process ends.
		 */
		if (unshare(CLONE_NEWNET))
			fprintf(stderr, "fuzz: unshare(CLONE_NEWNET): %s\n",
				strerror(errno));
		else
			g->netns_pid[1] = getpid();
	}
	if (unpriv && p == nprocs - 1 && only < 0) {
		/* The last process: another user, no capabilities. */
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			fprintf(stderr, "fuzz: cannot drop privileges: %s\n",
				strerror(errno));
	}
	pthread_barrier_init(&pbar, NULL, n);
	for (i = 0; i < n; i++) {
		ta[i].w = only >= 0 ? only : p * nthreads + i;
		ta[i].seed = seed;
		ta[i].end = end;
		pthread_create(&th[i], NULL, thread_main, &ta[i]);
	}
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	close_all();
	_exit(0);
}

/* ---- parent: kernel log, watchdog, epochs, report ---- */

static const char *const bad_pat[] = {
	"WARNING:", "BUG:", "Oops", "general protection", "KASAN",
	"scheduling while atomic", "sleeping function called", "refcount_t",
	"possible recursive locking", "circular locking", "lockdep",
	"inconsistent lock state", "unreferenced object", "ODEBUG",
	"Call Trace", "Kernel panic", "blocked for more than",
	"detected stall", "self-detected stall", "list_add corruption",
	"list_del corruption", "UBSAN", "kernel BUG", "soft lockup",
	"hard LOCKUP", "Driver BUG", "xdp_rxq_info",
};

static int kmsg = -1;
static char report[8192];
static size_t report_len;

/* Reads new kernel log lines; returns 1 if one is a report. */
static int scan_kmsg(void)
{
	char buf[2048];
	int found = 0;
	ssize_t n;

	if (kmsg < 0)
		return 0;
	while ((n = read(kmsg, buf, sizeof(buf) - 1)) > 0) {
		char *msg;

		buf[n] = 0;
		msg = strchr(buf, ';');
		msg = msg ? msg + 1 : buf;
		for (unsigned int i = 0; i < sizeof(bad_pat) / sizeof(bad_pat[0]); i++) {
			if (strstr(msg, bad_pat[i])) {
				found = 1;
				break;
			}
		}
		if ((found || report_len) && report_len < sizeof(report) - 256) {
			char *nl = strchr(msg, '\n');

			if (nl)
				*nl = 0;
			report_len += snprintf(report + report_len,
					       sizeof(report) - report_len,
					       "    kernel: %s\n", msg);
		}
	}
	return found;
}

static int nworkers(void)
{
	return only >= 0 ? 1 : nprocs * nthreads;
}

static int widx(int i)
{
	return only >= 0 ? only : i;
}

static void print_ring(int w)
{
	struct wshared *s = &g->w[w];
	unsigned int pos = s->pos, n = pos < (unsigned)ring_n ? pos : (unsigned)ring_n;

	printf("fuzz: worker %d (tid %d), %llu calls, last %u:\n", w, s->tid,
	       (unsigned long long)s->calls, n);
	for (unsigned int i = pos - n; i != pos; i++) {
		struct callrec *c = &s->ring[i % ring_n];

		if (c->done)
			printf("fuzz:   w%d #%llu %s: %s -> %ld%s%s\n", w,
			       (unsigned long long)c->seq, kname[c->kind],
			       c->desc, c->ret, c->err ? " " : "",
			       c->err ? strerror(c->err) : "");
		else
			printf("fuzz:   w%d #%llu %s: %s -> (in progress)\n", w,
			       (unsigned long long)c->seq, kname[c->kind],
			       c->desc);
	}
	/* The call in progress may be one the ring does not show yet. */
	if (s->busy_since) {
		struct callrec *c = &s->ring[pos % ring_n];

		printf("fuzz:   w%d #%llu %s: %s -> (in progress for %.1f s)\n", w,
		       (unsigned long long)c->seq, kname[c->kind], c->desc,
		       (now_ns() - s->busy_since) / 1e9);
	}
}

static void show_stack(int tid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", tid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("fuzz: tid %d kernel stack:\n%s", tid, buf);
}

static uint64_t seed;

static void fail_report(const char *why)
{
	int i;

	check(0, "fuzz: %s", why);
	printf("fuzz: seed %llu procs %d threads %d; replay: tapx-fuzz --seed %llu "
	       "--procs %d --threads %d (or vmfuzzseed=%llu), one worker alone: "
	       "--only W\n",
	       (unsigned long long)seed, nprocs, nthreads,
	       (unsigned long long)seed, nprocs, nthreads,
	       (unsigned long long)seed);
	if (report_len)
		printf("fuzz: kernel log:\n%s", report);
	for (i = 0; i < nworkers(); i++)
		print_ring(widx(i));
	fflush(stdout);
}

static void cmdline_defaults(void)
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
		if (!strncmp(tok, "vmfuzz=", 7))
			opt_time = atof(tok + 7);
		else if (!strncmp(tok, "vmfuzzseed=", 11)) {
			opt_seed = strtoull(tok + 11, NULL, 0);
			have_seed = 1;
		}
	}
}

static pid_t pids[MAXP];

static int children_alive(void)
{
	int status, alive = 0, bad = 0;

	for (int p = 0; p < (only >= 0 ? 1 : nprocs); p++) {
		if (!pids[p])
			continue;
		pid_t r = waitpid(pids[p], &status, WNOHANG);

		if (r == pids[p]) {
			pids[p] = 0;
			if (!WIFEXITED(status) || WEXITSTATUS(status)) {
				printf("fuzz: process %d ended with status 0x%x\n",
				       p, status);
				bad = 1;
			}
		} else {
			alive++;
		}
	}
	return bad ? -1 : alive;
}

/* One worker busy in a call for longer than this is a hang (--hang). */
static int64_t HANG_NS = 120LL * 1000000000LL;

static int check_hang(void)
{
	int64_t t = now_ns();

	for (int i = 0; i < nworkers(); i++) {
		struct wshared *s = &g->w[widx(i)];
		int64_t b = s->busy_since;

		if (b && t - b > HANG_NS) {
			printf("fuzz: worker %d in %s for %.0f s\n", widx(i),
			       kname[s->cur_kind], (t - b) / 1e9);
			show_stack(s->tid);
			write_file("/proc/sysrq-trigger", "w");
			return 1;
		}
	}
	return 0;
}

/* Calls made and pause closes so far: a pause that moves them progresses. */
static uint64_t pause_progress(void)
{
	uint64_t sum = g->pause_closes;

	for (int i = 0; i < nworkers(); i++)
		sum += g->w[widx(i)].calls;
	return sum;
}

/*
 * Pauses the workers, has them close everything, reloads tapx. A pause may
 * take minutes on a loaded debug kernel (each worker ends its call, each
 * last close deletes a device under rtnl); it fails when nothing has moved
 * for --hang seconds, or when one call or close takes that long.
 */
static int do_epoch(int n, char *why, size_t whylen)
{
	int e = g->epoch + 1, p, i, r = -1, tries;
	int64_t deadline = now_ns() + HANG_NS;
	uint64_t progress = pause_progress(), now_progress;
	char params[64];

	__atomic_store_n(&g->epoch, e, __ATOMIC_SEQ_CST);
	for (;;) {
		int all = 1;

		for (p = 0; p < (only >= 0 ? 1 : nprocs); p++)
			if (pids[p] && g->closed[p] != e)
				all = 0;
		if (all)
			break;
		now_progress = pause_progress();
		if (now_progress != progress) {
			progress = now_progress;
			deadline = now_ns() + HANG_NS;
		}
		if (scan_kmsg() || now_ns() > deadline || check_hang()) {
			snprintf(why, whylen, "epoch %d: workers did not pause", n);
			return -1;
		}
		if (children_alive() < 0) {
			snprintf(why, whylen, "a worker process died");
			return -1;
		}
		usleep(10000);
	}
	/* Files closed by io_uring's workers go a little later. */
	for (tries = 0; tries < 100; tries++) {
		r = syscall(__NR_delete_module, "tapx", O_NONBLOCK);
		if (!r || errno == ENOENT)
			break;
		usleep(100000);
	}
	if (r && errno != ENOENT) {
		snprintf(why, whylen,
			 "epoch %d: rmmod tapx failed with every fd closed: %s", n,
			 strerror(errno));
		return -1;
	}
	{
		uint64_t x = seed * 31 + n;

		x ^= x >> 17;
		x *= 0xbf58476d1ce4e5b9ULL;
		snprintf(params, sizeof(params), "ring_size=%u napi=%u",
			 (const unsigned int[]){ 1024, 1, 2, 7, 64, 4096 }[x % 6],
			 (unsigned int)(x >> 8) & 1);
	}
	if (load_tapx(params)) {
		snprintf(why, whylen, "epoch %d: insmod tapx %s: %s", n, params,
			 strerror(errno));
		return -1;
	}
	if (!quiet)
		printf("fuzz: epoch %d: tapx reloaded (%s), %llu calls so far\n", n,
		       params, ({
			       unsigned long long c = 0;
			       for (i = 0; i < nworkers(); i++)
				       c += g->w[widx(i)].calls;
			       c;
		       }));
	fflush(stdout);
	__atomic_store_n(&g->epoch, e + 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void summary(void)
{
	uint64_t total = 0, per[NK] = { 0 }, err[NK][NERR], ns[NK] = { 0 };
	uint64_t mx[NK] = { 0 };
	int kinds = 0, k, e, i;

	memset(err, 0, sizeof(err));
	for (i = 0; i < nworkers(); i++) {
		struct wshared *s = &g->w[widx(i)];

		total += s->calls;
		for (k = 0; k < NK; k++) {
			per[k] += s->count[k];
			ns[k] += s->ns[k];
			if (s->max_ns[k] > mx[k])
				mx[k] = s->max_ns[k];
			for (e = 0; e < NERR; e++)
				err[k][e] += s->errs[k][e];
		}
	}
	for (k = 0; k < NK; k++) {
		char line[512];
		size_t n = 0;

		if (per[k])
			kinds++;
		n += snprintf(line + n, sizeof(line) - n,
			      "fuzz: %-12s %9llu %7.2f ms avg %7.0f max ",
			      kname[k], (unsigned long long)per[k],
			      per[k] ? ns[k] / 1e6 / per[k] : 0.0, mx[k] / 1e6);
		for (e = 0; e < NERR && n < sizeof(line) - 40; e++) {
			if (!err[k][e])
				continue;
			n += snprintf(line + n, sizeof(line) - n, " %s:%llu",
				      e ? (strerrorname_np(e) ? strerrorname_np(e) : "?") :
					  "ok",
				      (unsigned long long)err[k][e]);
		}
		printf("%s\n", line);
	}
	{
		static const char *const seen[] = {
			"drop", "pass", "tx", "redirect(devmap)", "redirect(cpumap)",
			"redirect(ifindex)", "aborted", "unknown", "adjust_head",
			"adjust_tail", "adjust_meta", "store_bytes", "load_bytes",
		};
		char path[256], line[512];
		size_t n = 0;
		int fd, ncpu = sysconf(_SC_NPROCESSORS_CONF);
		uint64_t v[512];

		snprintf(path, sizeof(path), "%s/fuzz_seen", mapdir);
		fd = bpf_obj_get(path);
		n += snprintf(line, sizeof(line), "fuzz: XDP programs:");
		for (k = 0; fd >= 0 && k < 13 && ncpu > 0 && ncpu < 512; k++) {
			union bpf_attr a;
			uint32_t key = k;
			uint64_t sum = 0;

			memset(&a, 0, sizeof(a));
			a.map_fd = fd;
			a.key = (uint64_t)(unsigned long)&key;
			a.value = (uint64_t)(unsigned long)v;
			if (syscall(__NR_bpf, BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)))
				break;
			for (i = 0; i < ncpu; i++)
				sum += v[i];
			n += snprintf(line + n, sizeof(line) - n, " %s %llu", seen[k],
				      (unsigned long long)sum);
		}
		if (fd >= 0)
			printf("%s\n", line);
	}
	printf("fuzz: %llu calls, %d of %d call kinds\n",
	       (unsigned long long)total, kinds, NK);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: tapx-fuzz [--time S] [--seed N] [--procs P] [--threads T]\n"
		"       [--calls N] [--only W] [--ring N] [--epoch S] [--hang S]\n"
		"       [--node PATH]\n"
		"       [--ko PATH] [--progs DIR] [--maps DIR] [--no-generic-frags]\n"
		"       [--quiet]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int64_t start, end, next_epoch;
	int i, status = 0, epochs = 0;
	char why[256] = "";

	cmdline_defaults();
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--quiet")) {
			quiet = 1;
			continue;
		}
		if (!strcmp(a, "--no-generic-frags")) {
			no_generic_frags = 1;
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--time"))
			opt_time = atof(v);
		else if (!strcmp(a, "--seed"))
			opt_seed = strtoull(v, NULL, 0), have_seed = 1;
		else if (!strcmp(a, "--procs"))
			nprocs = atoi(v);
		else if (!strcmp(a, "--threads"))
			nthreads = atoi(v);
		else if (!strcmp(a, "--calls"))
			max_calls = strtoull(v, NULL, 0);
		else if (!strcmp(a, "--only"))
			only = atoi(v);
		else if (!strcmp(a, "--ring"))
			ring_n = atoi(v);
		else if (!strcmp(a, "--epoch"))
			epoch_s = atof(v);
		else if (!strcmp(a, "--hang"))
			HANG_NS = (int64_t)(atof(v) * 1e9);
		else if (!strcmp(a, "--node"))
			node = v;
		else if (!strcmp(a, "--ko"))
			ko = v;
		else if (!strcmp(a, "--progs"))
			progdir = v;
		else if (!strcmp(a, "--maps"))
			mapdir = v;
		else
			usage();
	}
	if (nprocs < 1 || nprocs > MAXP || nthreads < 1 || nthreads > MAXT ||
	    ring_n < 1 || ring_n > RINGMAX || only >= nprocs * nthreads)
		usage();
	unpriv = nprocs >= 3;
	seed = have_seed ? opt_seed : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("fuzz: seed %llu, %d processes x %d threads%s, %.0f s (replay: "
	       "vmfuzzseed=%llu or --seed %llu)\n",
	       (unsigned long long)seed, nprocs, nthreads,
	       only >= 0 ? " (one worker alone)" : "", opt_time,
	       (unsigned long long)seed, (unsigned long long)seed);

	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED) {
		perror("fuzz: mmap");
		return 1;
	}
	memset(g, 0, sizeof(*g));
	g->netns_pid[0] = getpid();
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg >= 0)
		lseek(kmsg, 0, SEEK_END);
	else
		printf("fuzz: no /dev/kmsg (%s): kernel reports not watched\n",
		       strerror(errno));

	start = now_ns();
	end = start + (int64_t)(opt_time * 1e9);
	next_epoch = epoch_s > 0 ? start + (int64_t)(epoch_s * 1e9) : INT64_MAX;
	fflush(stdout);
	for (i = 0; i < (only >= 0 ? 1 : nprocs); i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			if (kmsg >= 0)
				close(kmsg);
			proc_main(i, seed, end);
		}
	}

	for (;;) {
		int alive;

		usleep(50000);
		if (scan_kmsg()) {
			usleep(500000); /* the rest of the report */
			scan_kmsg();
			snprintf(why, sizeof(why), "kernel report in the log");
			status = 1;
			break;
		}
		if (check_hang()) {
			snprintf(why, sizeof(why), "a call did not return (hang)");
			status = 1;
			break;
		}
		alive = children_alive();
		if (alive < 0) {
			snprintf(why, sizeof(why), "a worker process died");
			status = 1;
			break;
		}
		if (!alive)
			break;
		if (now_ns() >= next_epoch && now_ns() < end - 3000000000LL) {
			if (do_epoch(++epochs, why, sizeof(why))) {
				status = 1;
				break;
			}
			next_epoch = now_ns() + (int64_t)(epoch_s * 1e9);
		}
	}
	g->stop = 1;
	if (status) {
		fail_report(why);
		for (i = 0; i < nprocs; i++)
			if (pids[i])
				kill(pids[i], SIGKILL);
	}
	/* Wait for the workers (a stuck one is reported, not waited for). */
	{
		int64_t dl = now_ns() + HANG_NS;

		while (children_alive() > 0 && now_ns() < dl) {
			if (!status && check_hang()) {
				fail_report("a call did not return after the end");
				status = 1;
				break;
			}
			usleep(50000);
		}
		if (children_alive() > 0 && !status) {
			fail_report("workers did not end");
			status = 1;
		}
	}
	if (!status && scan_kmsg()) {
		usleep(500000);
		scan_kmsg();
		fail_report("kernel report in the log");
		status = 1;
	}
	summary();
	printf("fuzz: %d epochs (rmmod + insmod), %.0f s\n", epochs,
	       (now_ns() - start) / 1e9);
	if (!status)
		check(1, "fuzz: seed %llu, no kernel report, no hang",
		      (unsigned long long)seed);
	return status;
}
