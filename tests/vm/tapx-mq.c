// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-mq - the VM suite's driver for multi-queue tapx (suite-mq.sh).
 * Static, no libraries: runs in the busybox guest.
 *
 *   tapx-mq mk NODE NAME              persistent multi-queue tap, up
 *   tapx-mq abi NODE                  IFF_MULTI_QUEUE/TUNSETQUEUE ABI, errors,
 *                                     owner/group, the queue limit
 *   tapx-mq verdict NODE NAME NQ N drop|tx
 *                                     N frames on each of NQ new queues;
 *                                     per-queue counters, XDP_TX comes back
 *                                     on the queue it was written on
 *   tapx-mq redirect NODE SRC DST NQ N
 *                                     two writers pinned to CPU 0 and 1, each
 *                                     on its own queue of SRC (xdp_redirect
 *                                     to DST); DST's NQ readers get 2N frames
 *   tapx-mq stack NODE NAME NQ N      N frames sent by the stack (packet
 *                                     socket, N flows) spread over NQ queues
 *   tapx-mq flood NODE NAME SECONDS   write on an own queue until time is up
 *                                     or the device goes; prints counts
 *   tapx-mq pflood NAME SECONDS       send through the stack until time is up
 *   tapx-mq orderings NODE NAME ROUNDS
 *                                     attach/detach/reattach/close orderings,
 *                                     then deletion with attached and
 *                                     detached queues open (expects xdp_tx)
 *   tapx-mq persist NODE NAME         all queues closed on a persistent
 *                                     device, then reattach (expects xdp_tx)
 *   tapx-mq bench NODE NAME SECONDS [REPS]
 *                                     1 writer on 1 queue vs 2 writers on 2
 *                                     queues and 2 CPUs (expects xdp_drop)
 * Exit status: 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tapx-test.h"

#define MQ (IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE)
#define FEATURES                                                               \
	(IFF_TUN | IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE | IFF_VNET_HDR |                  \
	 IFF_MULTI_QUEUE | IFF_NAPI | IFF_NAPI_FRAGS | IFF_NO_CARRIER)
#define MAXQ 256
#define FSIZE 100




static int set_queue(int fd, int flags)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	return ioctl(fd, TUNSETQUEUE, &ifr) < 0 ? -errno : 0;
}

/* TUNGETIFF flags, or -errno. */
static int get_flags(int fd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0)
		return -errno;
	return (unsigned short)ifr.ifr_flags;
}

/* Number of /sys/class/net/NAME/queues/tx-* (real_num_tx_queues). */
static int sys_txq(const char *name)
{
	char path[128];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", name);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		n += !strncmp(d->d_name, "tx-", 3);
	closedir(dir);
	return n;
}

/* One ethtool -S value by name; -1 if absent. */
static long long stat_of(const char *dev, const char *key)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_STATS } };
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	long long v = -1;
	struct ifreq ifr;
	uint32_t n, i;
	int s = socket(AF_INET, SOCK_DGRAM, 0);

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", dev);
	ifr.ifr_data = (void *)&info;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0 || !info.hdr.sset_mask)
		goto out;
	n = info.len;
	str = calloc(1, sizeof(*str) + n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + n * sizeof(uint64_t));
	if (!str || !st)
		goto out;
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_STATS;
	str->len = n;
	ifr.ifr_data = (void *)str;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		goto out;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	ifr.ifr_data = (void *)st;
	/* Queues attached in between change n: then the values are not ours. */
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0 || st->n_stats != n)
		goto out;
	for (i = 0; i < n; i++)
		if (!strncmp((char *)str->data + i * ETH_GSTRING_LEN, key,
			     ETH_GSTRING_LEN))
			v = st->data[i];
out:
	free(str);
	free(st);
	close(s);
	return v;
}

static long long qstat(const char *dev, int q, const char *key)
{
	char k[ETH_GSTRING_LEN];

	snprintf(k, sizeof(k), "queue_%d_%s", q, key);
	return stat_of(dev, k);
}

/* Number of queues ethtool -S shows (queue_N_rx_packets keys). */
static int stat_queues(const char *dev)
{
	int q = 0;

	while (q <= MAXQ && qstat(dev, q, "rx_packets") >= 0)
		q++;
	return q;
}

static int is_test(const uint8_t *f, int n)
{
	return n >= 18 && f[12] == ETHERTYPE_TEST >> 8 &&
	       f[13] == (ETHERTYPE_TEST & 0xff);
}

static uint32_t tag_of(const uint8_t *f)
{
	uint32_t t;

	memcpy(&t, f + 14, 4);
	return t;
}

/* Reads what is queued on a nonblocking fd; counts frames with TAG. */
static int drain(int fd, uint32_t tag, int *others)
{
	uint8_t b[2048];
	int n, mine = 0;

	while ((n = read(fd, b, sizeof(b))) > 0) {
		if (is_test(b, n) && tag_of(b) == tag)
			mine++;
		else if (others)
			(*others)++;
	}
	return mine;
}

/* Waits up to MS for a frame with TAG on fd, discarding others. */
static int wait_tag(int fd, uint32_t tag, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t b[2048];
	int n, left = 4096;

	/* Bounded: background traffic may keep the ring busy for ever. */
	while (left-- && poll(&p, 1, ms) == 1 && (p.revents & POLLIN)) {
		n = read(fd, b, sizeof(b));
		if (n > 0 && is_test(b, n) && tag_of(b) == tag)
			return 1;
		if (n < 0 && errno != EAGAIN)
			return 0;
	}
	return 0;
}

/*
 * XDP_TX round trip on one queue: the frame must come back on the fd it
 * was written on. Background traffic may fill the ring (the frame is then
 * dropped), so a few tries, each after draining.
 */
static int tx_roundtrip(int fd, uint32_t tag)
{
	uint8_t f[FSIZE];
	int i;

	test_frame(f, FSIZE, tag);
	for (i = 0; i < 20; i++) {
		drain(fd, ~0u, NULL);
		if (write(fd, f, FSIZE) != FSIZE)
			return 0;
		if (wait_tag(fd, tag, 200))
			return 1;
	}
	return 0;
}

static int ip_link(const char *what, const char *name)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link %s dev %s", what, name);
	return system(cmd);
}

/* ---- abi ---- */

/* A child with UID reattaches a detached fd it inherited; 0 or errno. */
static int child_reattach(int fd, uid_t uid)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(100);
		_exit(-set_queue(fd, IFF_ATTACH_QUEUE));
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

static void abi_flags(const char *node)
{
	unsigned int feat = 0;
	int fd, q[4], i, ok;

	fd = open(node, O_RDWR);
	i = ioctl(fd, TUNGETFEATURES, &feat);
	/* IFF_BACKPRESSURE (0x80) too where tun has it: suite-backpressure. */
	check(!i && (feat & ~0x80u) == FEATURES,
	      "mq abi: TUNGETFEATURES = %#x (want %#x)", feat, FEATURES);
	check(set_queue(fd, IFF_ATTACH_QUEUE) == -EINVAL,
	      "mq abi: TUNSETQUEUE attach before TUNSETIFF -> EINVAL");
	check(set_queue(fd, IFF_DETACH_QUEUE) == -EINVAL,
	      "mq abi: TUNSETQUEUE detach before TUNSETIFF -> EINVAL");
	close(fd);

	/* As tun: IFF_NAPI_FRAGS only with IFF_NAPI. */
	fd = tap_open(node, "mqa", IFF_TAP | IFF_NAPI_FRAGS, 0);
	check(fd == -EINVAL && !if_exists("mqa"),
	      "mq abi: IFF_NAPI_FRAGS without IFF_NAPI -> EINVAL (%d)", fd);

	q[0] = tap_open(node, "mqa", MQ | IFF_NAPI, 0);
	check(q[0] >= 0, "mq abi: create mqa with IFF_MULTI_QUEUE|IFF_NAPI");
	if (q[0] < 0)
		return;
	for (i = 1; i < 4; i++)
		q[i] = tap_open(node, "mqa", MQ | IFF_NAPI, 0);
	check(q[1] >= 0 && q[2] >= 0 && q[3] >= 0, "mq abi: 4 queues attach");
	for (i = 0, ok = 1; i < 4; i++)
		ok &= get_flags(q[i]) == (MQ | IFF_NAPI);
	check(ok, "mq abi: TUNGETIFF on every queue = %#x",
	      get_flags(q[3]));
	check(sys_txq("mqa") == 4, "mq abi: 4 tx queues in sysfs (%d)",
	      sys_txq("mqa"));
	check(stat_queues("mqa") == 4, "mq abi: ethtool -S shows 4 queues (%d)",
	      stat_queues("mqa"));

	fd = tap_open(node, "mqa", IFF_TAP | IFF_NO_PI, 0);
	check(fd == -EINVAL, "mq abi: single-queue attach to mqa -> EINVAL");
	check(set_queue(q[1], IFF_ATTACH_QUEUE) == -EINVAL,
	      "mq abi: attach an attached queue -> EINVAL");
	check(set_queue(q[1], 0) == -EINVAL,
	      "mq abi: TUNSETQUEUE without a flag -> EINVAL");
	check(set_queue(q[1], IFF_DETACH_QUEUE) == 0, "mq abi: detach queue");
	check(get_flags(q[1]) == (MQ | IFF_NAPI | IFF_DETACH_QUEUE),
	      "mq abi: TUNGETIFF of a detached queue has IFF_DETACH_QUEUE");
	check(set_queue(q[1], IFF_DETACH_QUEUE) == -EINVAL,
	      "mq abi: detach a detached queue -> EINVAL");
	check(sys_txq("mqa") == 3 && stat_queues("mqa") == 3,
	      "mq abi: 3 queues after detach (sysfs %d, ethtool %d)",
	      sys_txq("mqa"), stat_queues("mqa"));
	{
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_flags = MQ;
		strcpy(ifr.ifr_name, "mqa");
		check(ioctl(q[1], TUNSETIFF, &ifr) < 0 && errno == EINVAL,
		      "mq abi: TUNSETIFF on a detached queue -> EINVAL");
	}
	check(set_queue(q[1], IFF_ATTACH_QUEUE) == 0, "mq abi: reattach queue");
	check(get_flags(q[1]) == (MQ | IFF_NAPI),
	      "mq abi: reattached queue's TUNGETIFF has no IFF_DETACH_QUEUE");
	check(sys_txq("mqa") == 4, "mq abi: 4 tx queues after reattach");

	fd = tap_open(node, "mqs", IFF_TAP | IFF_NO_PI, 0);
	check(fd >= 0, "mq abi: create single-queue mqs");
	check(set_queue(fd, IFF_DETACH_QUEUE) == -EINVAL,
	      "mq abi: detach on a single-queue device -> EINVAL");
	check(tap_open(node, "mqs", MQ, 0) == -EINVAL,
	      "mq abi: multi-queue attach to mqs -> EINVAL");
	close(fd);
	for (i = 0; i < 4; i++)
		close(q[i]);
	usleep(100000);
	check(!if_exists("mqa") && !if_exists("mqs"),
	      "mq abi: non-persistent devices gone with their last queue");
}

static void abi_owner(const char *node)
{
	int fd, d, r;

	fd = tap_open(node, "mqo", MQ, 0);
	check(fd >= 0, "mq abi: create mqo");
	if (fd < 0)
		return;
	check(!ioctl(fd, TUNSETOWNER, 1000), "mq abi: TUNSETOWNER 1000");
	r = child_attach(node, "mqo", MQ, 1000, 1000);
	check(r == 0, "mq abi: owner 1000 attaches a queue (%d)", r);
	r = child_attach(node, "mqo", MQ, 1001, 1001);
	check(r == EPERM, "mq abi: uid 1001 attach -> EPERM (%d)", r);
	/* As in tun, an fd that was let in may reattach without a check. */
	d = tap_open(node, "mqo", MQ, 0);
	check(d >= 0 && set_queue(d, IFF_DETACH_QUEUE) == 0,
	      "mq abi: root detaches a second queue");
	r = child_reattach(d, 1001);
	check(r == 0, "mq abi: inherited detached fd reattaches as 1001 (%d)",
	      r);
	close(d);
	close(fd);

	fd = tap_open(node, "mqg", MQ, 0);
	check(fd >= 0 && !ioctl(fd, TUNSETGROUP, 2000),
	      "mq abi: create mqg, TUNSETGROUP 2000");
	r = child_attach(node, "mqg", MQ, 1001, 2000);
	check(r == 0, "mq abi: group 2000 attaches a queue (%d)", r);
	r = child_attach(node, "mqg", MQ, 1001, 2001);
	check(r == EPERM, "mq abi: group 2001 attach -> EPERM (%d)", r);
	close(fd);
}

/* 256 queues per device, attached plus detached; the 257th gets E2BIG. */
static void abi_limit(const char *node)
{
	static int q[MAXQ];
	int i, n = 0, fd;

	for (i = 0; i < MAXQ; i++) {
		q[i] = tap_open(node, "mqmax", MQ, 0);
		n += q[i] >= 0;
	}
	check(n == MAXQ, "mq abi: %d of %d queues attach", n, MAXQ);
	check(set_queue(q[7], IFF_DETACH_QUEUE) == 0,
	      "mq abi: detach one of 256");
	fd = tap_open(node, "mqmax", MQ, 0);
	check(fd == -E2BIG, "mq abi: queue 257 (one detached) -> E2BIG (%d)",
	      fd);
	check(set_queue(q[7], IFF_ATTACH_QUEUE) == 0,
	      "mq abi: reattach at the limit");
	check(sys_txq("mqmax") == MAXQ && stat_queues("mqmax") == MAXQ,
	      "mq abi: 256 queues in sysfs and ethtool -S");
	for (i = 0; i < MAXQ; i++)
		if (q[i] >= 0)
			close(q[i]);
}

static int cmd_abi(int argc, char **argv)
{
	abi_flags(argv[2]);
	abi_owner(argv[2]);
	abi_limit(argv[2]);
	usleep(100000);
	check(!if_exists("mqo") && !if_exists("mqg") && !if_exists("mqmax"),
	      "mq abi: devices gone");
	return failures ? 1 : 0;
}

static int cmd_mk(int argc, char **argv)
{
	int fd = tap_open(argv[2], argv[3], MQ, 0);

	if (fd < 0) {
		fprintf(stderr, "mk %s: %s\n", argv[3], strerror(-fd));
		return 1;
	}
	if (ioctl(fd, TUNSETPERSIST, 1) < 0 || if_up(argv[3], 1) < 0) {
		perror("mk");
		return 1;
	}
	close(fd);
	return 0;
}

/* ---- verdict: N frames on each queue ---- */

static int cmd_verdict(int argc, char **argv)
{
	const char *node = argv[2], *name = argv[3], *act = argv[6];
	int nq = atoi(argv[4]), n = atoi(argv[5]), tx = !strcmp(act, "tx");
	int fd[16], q, i, w, got, others;
	uint8_t f[FSIZE];

	if (nq > 16)
		return 2;
	for (q = 0; q < nq; q++) {
		fd[q] = tap_open(node, name, MQ, O_NONBLOCK);
		check(fd[q] >= 0, "mq %s: queue %d attaches", act, q);
		if (fd[q] < 0)
			return 1;
	}
	for (q = 0; q < nq; q++) {
		for (i = 0, w = 0; i < n; i++) {
			test_frame(f, FSIZE, q << 16 | i);
			w += write(fd[q], f, FSIZE) == FSIZE;
		}
		check(w == n, "mq %s: %d of %d frames written on queue %d", act,
		      w, n, q);
	}
	for (q = 0; q < nq; q++) {
		check(qstat(name, q, "rx_packets") == n &&
			      qstat(name, q, "rx_bytes") == (long long)n * FSIZE,
		      "mq %s: queue_%d_rx_packets = %lld (want %d)", act, q,
		      qstat(name, q, "rx_packets"), n);
		check(qstat(name, q, tx ? "xdp_tx" : "xdp_drop") == n &&
			      qstat(name, q, tx ? "xdp_drop" : "xdp_tx") == 0 &&
			      qstat(name, q, "xdp_pass") == 0,
		      "mq %s: queue_%d_xdp_%s = %lld (want %d)", act, q, act,
		      qstat(name, q, tx ? "xdp_tx" : "xdp_drop"), n);
		check(qstat(name, q, "tx_packets") == (tx ? n : 0),
		      "mq %s: queue_%d_tx_packets = %lld (want %d)", act, q,
		      qstat(name, q, "tx_packets"), tx ? n : 0);
	}
	/* XDP_TX: each queue reads back exactly its own frames, in order. */
	for (q = 0; q < nq && tx; q++) {
		uint8_t b[2048];
		int order = 1, r;

		got = others = 0;
		while ((r = read(fd[q], b, sizeof(b))) > 0) {
			if (is_test(b, r) && tag_of(b) >> 16 == (uint32_t)q) {
				order &= (tag_of(b) & 0xffff) == (uint32_t)got;
				got++;
			} else {
				others++;
			}
		}
		check(got == n && !others && order,
		      "mq tx: queue %d reads back its %d frames (%d, %d foreign)",
		      q, n, got, others);
	}
	for (q = 0; q < nq; q++)
		close(fd[q]);
	return failures ? 1 : 0;
}

/* ---- redirect: two CPUs into a multi-queue tap ---- */

static int cmd_redirect(int argc, char **argv)
{
	const char *node = argv[2], *src = argv[3], *dst = argv[4];
	int nq = atoi(argv[5]), n = atoi(argv[6]);
	int fd[16], q, c, st, total = 0, used = 0, per[16] = { 0 };
	long long xmit = 0;
	pid_t pid[2];

	if (nq > 16)
		return 2;
	for (q = 0; q < nq; q++) {
		fd[q] = tap_open(node, dst, MQ, O_NONBLOCK);
		if (fd[q] < 0) {
			check(0, "mq redirect: attach %s queue %d", dst, q);
			return 1;
		}
	}
	for (c = 0; c < 2; c++) {
		pid[c] = fork();
		if (!pid[c]) {
			uint8_t f[FSIZE];
			int s, i, w = 0;

			pin_cpu(c);
			s = tap_open(node, src, MQ, 0);
			if (s < 0)
				_exit(2);
			for (i = 0; i < n; i++) {
				test_frame(f, FSIZE, 0x5000 + c);
				w += write(s, f, FSIZE) == FSIZE;
			}
			_exit(w == n && sched_getcpu() == c ? 0 : 1);
		}
	}
	for (c = 0; c < 2; c++) {
		waitpid(pid[c], &st, 0);
		check(WIFEXITED(st) && !WEXITSTATUS(st),
		      "mq redirect: writer on CPU %d wrote %d frames", c, n);
	}
	for (q = 0; q < nq; q++) {
		per[q] = 0;
		drain(fd[q], ~0u, &per[q]);
		total += per[q];
		used += per[q] > 0;
		xmit += qstat(dst, q, "xdp_xmit");
	}
	check(total == 2 * n, "mq redirect: %d frames read on %s (want %d)",
	      total, dst, 2 * n);
	check(used > 1, "mq redirect: spread over %d queues (%d/%d/...)",
	      used, per[0], nq > 1 ? per[1] : 0);
	check(xmit == 2 * n, "mq redirect: sum of queue_N_xdp_xmit = %lld",
	      xmit);
	for (q = 0; q < nq; q++)
		close(fd[q]);
	return failures ? 1 : 0;
}

/* ---- stack: skbs spread by queue selection ---- */

/* An IPv4/UDP frame of flow I, marked with the test tag in the payload. */
static int udp_frame(uint8_t *f, int i)
{
	static const uint8_t ip[20] = { 0x45, 0,    0,	  64, 0,    0,	0,
					0,    64,   17,	  0,  0,    10, 0,
					0,    1,    10,	  0,  0,    2 };
	int sport = 1024 + i;

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memcpy(f + 14, ip, 20);
	f[34] = sport >> 8;
	f[35] = sport & 0xff;
	f[36] = 0x30;
	f[37] = 0x39;
	f[38] = 0;
	f[39] = 44;
	f[40] = f[41] = 0;
	memset(f + 42, 0xa5, 36);
	return 78;
}

static int pkt_socket(const char *name, struct sockaddr_ll *sll)
{
	int s = socket(AF_PACKET, SOCK_RAW, 0);

	memset(sll, 0, sizeof(*sll));
	sll->sll_family = AF_PACKET;
	sll->sll_ifindex = if_nametoindex(name);
	/* skb->protocol, so the flow hash sees the UDP ports. */
	sll->sll_protocol = htons(ETH_P_IP);
	sll->sll_halen = 6;
	return s;
}

static int cmd_stack(int argc, char **argv)
{
	const char *node = argv[2], *name = argv[3];
	int nq = atoi(argv[4]), n = atoi(argv[5]);
	int fd[16], q, i, s, sent = 0, total = 0, used = 0, per[16] = { 0 }, ok = 1;
	struct sockaddr_ll sll;
	uint8_t f[128], b[2048];

	if (nq > 16)
		return 2;
	for (q = 0; q < nq; q++) {
		fd[q] = tap_open(node, name, MQ, O_NONBLOCK);
		if (fd[q] < 0) {
			check(0, "mq stack: attach queue %d", q);
			return 1;
		}
	}
	check(!if_wait_tx_ready(name, 10000),
	      "mq stack: %s transmits (operstate up)", name);
	s = pkt_socket(name, &sll);
	for (i = 0; i < n; i++) {
		int len = udp_frame(f, i);

		sent += sendto(s, f, len, 0, (void *)&sll, sizeof(sll)) == len;
	}
	close(s);
	check(sent == n, "mq stack: %d of %d frames sent", sent, n);
	/* The qdisc may hand a frame over late, later still on one emulator
	 * thread (6.12's suites): up to 10 s for all of them. */
	for (i = 0; i < 50 && total < n; i++) {
		usleep(200000);
		for (q = 0; q < nq; q++) {
			int r, k = 0;

			while ((r = read(fd[q], b, sizeof(b))) > 0)
				k += r == 78 && b[12] == 8 && b[42] == 0xa5;
			per[q] += k;
			total += k;
		}
	}
	for (q = 0; q < nq; q++) {
		used += per[q] > 0;
		ok &= qstat(name, q, "tx_packets") == per[q];
	}
	check(total == n,
	      "mq stack: %d frames read over %d queues (want %d; tx_packets %lld tx_dropped %lld ring_full %lld)",
	      total, nq, n, stat_of(name, "tx_packets"),
	      stat_of(name, "tx_dropped"), stat_of(name, "ring_full_drops"));
	check(used > 1, "mq stack: spread over %d queues (%d/%d/...)", used,
	      per[0], nq > 1 ? per[1] : 0);
	check(ok, "mq stack: queue_N_tx_packets = frames read on queue N");
	for (q = 0; q < nq; q++)
		close(fd[q]);
	return failures ? 1 : 0;
}

/* ---- background traffic ---- */

/* Writes on an own queue; the device going away (EBADFD) ends it. */
static int cmd_flood(int argc, char **argv)
{
	long n = 0, bad = 0;
	uint8_t f[FSIZE];
	int fd = tap_open(argv[2], argv[3], MQ, O_NONBLOCK), gone = 0;

	if (fd < 0)
		return 1;
	test_frame(f, FSIZE, 0xf100d);
	signal(SIGALRM, on_alarm);
	alarm(atoi(argv[4]));
	while (!stop) {
		if (write(fd, f, FSIZE) == FSIZE) {
			n++;
		} else if (errno == EBADFD) {
			gone = 1;
			break;
		} else {
			bad++;
		}
		/* Keep the ring from staying full under xdp_tx. */
		if (!(n & 63))
			drain(fd, 0, NULL);
	}
	printf("%ld %ld %d\n", n, bad, gone);
	close(fd);
	return bad ? 1 : 0;
}

/* Sends through the stack until time is up (the device may go). */
static int cmd_pflood(int argc, char **argv)
{
	struct sockaddr_ll sll;
	uint8_t f[128];
	long n = 0, i = 0;
	int s = pkt_socket(argv[2], &sll);

	signal(SIGALRM, on_alarm);
	alarm(atoi(argv[3]));
	while (!stop) {
		int len = udp_frame(f, i++ & 1023);

		n += sendto(s, f, len, 0, (void *)&sll, sizeof(sll)) == len;
	}
	printf("%ld\n", n);
	close(s);
	return 0;
}

/* ---- orderings ---- */

static void one_round(const char *node, const char *name, int r)
{
	uint8_t f[FSIZE];
	int a, b, c;

	a = tap_open(node, name, MQ, O_NONBLOCK);
	b = tap_open(node, name, MQ, O_NONBLOCK);
	check(a >= 0 && b >= 0, "mq order: two queues attach");
	if (a < 0 || b < 0)
		goto out;
	check(tx_roundtrip(a, 0xa000 + r) && tx_roundtrip(b, 0xb000 + r),
	      "mq order: XDP_TX comes back on each queue");
	check(set_queue(b, IFF_DETACH_QUEUE) == 0, "mq order: detach");
	/* As in tun: a detached queue's writes still enter the device. */
	test_frame(f, FSIZE, 0xd000 + r);
	check(write(b, f, FSIZE) == FSIZE,
	      "mq order: write on a detached queue is accepted");
	check(set_queue(b, IFF_ATTACH_QUEUE) == 0, "mq order: reattach");
	check(tx_roundtrip(b, 0xc000 + r),
	      "mq order: reattached queue carries frames");
	check(set_queue(b, IFF_DETACH_QUEUE) == 0, "mq order: detach again");
	close(b);
	b = -1;
	c = tap_open(node, name, MQ, O_NONBLOCK);
	check(c >= 0 && set_queue(c, IFF_DETACH_QUEUE) == 0,
	      "mq order: third queue attached and detached");
	/* The attached queue closes first, then the detached one. */
	close(a);
	a = -1;
	check(set_queue(c, IFF_ATTACH_QUEUE) == 0 && tx_roundtrip(c, 0xe000 + r),
	      "mq order: detached queue reattaches after the other closed");
	close(c);
out:
	if (a >= 0)
		close(a);
	if (b >= 0)
		close(b);
}

static int cmd_orderings(int argc, char **argv)
{
	const char *node = argv[2], *name = argv[3];
	int rounds = atoi(argv[4]), r, d, e;
	struct pollfd p;
	uint8_t f[FSIZE];

	for (r = 0; r < rounds; r++) {
		one_round(node, name, r);
		quiet = 1;
	}
	quiet = 0;
	check(!failures, "mq order: %d rounds of attach/detach/reattach/close",
	      rounds);

	/* Deletion with an attached and a detached queue open. */
	d = tap_open(node, name, MQ, O_NONBLOCK);
	e = tap_open(node, name, MQ, O_NONBLOCK);
	check(d >= 0 && e >= 0 && set_queue(e, IFF_DETACH_QUEUE) == 0,
	      "mq order: attached and detached queue before deletion");
	if (d < 0 || e < 0)
		return 1;
	check(ip_link("del", name) == 0 && !if_exists(name),
	      "mq order: ip link del %s under traffic", name);
	test_frame(f, FSIZE, 0);
	check(write(d, f, FSIZE) < 0 && errno == EBADFD &&
		      write(e, f, FSIZE) < 0 && errno == EBADFD,
	      "mq order: writes after deletion -> EBADFD");
	check(read(d, f, FSIZE) < 0 && errno == EBADFD &&
		      read(e, f, FSIZE) < 0 && errno == EBADFD,
	      "mq order: reads after deletion -> EBADFD");
	p = (struct pollfd){ .fd = e, .events = POLLIN };
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLERR),
	      "mq order: poll of the detached queue -> POLLERR");
	check(set_queue(e, IFF_ATTACH_QUEUE) == -EINVAL &&
		      set_queue(d, IFF_DETACH_QUEUE) == -EINVAL,
	      "mq order: TUNSETQUEUE after deletion -> EINVAL");
	check(get_flags(d) == -EBADFD && get_flags(e) == -EBADFD,
	      "mq order: TUNGETIFF after deletion -> EBADFD");
	close(d);
	close(e);
	return failures ? 1 : 0;
}

/* ---- persist ---- */

static int cmd_persist(int argc, char **argv)
{
	const char *node = argv[2], *name = argv[3];
	int q[3], i;

	for (i = 0; i < 3; i++)
		q[i] = tap_open(node, name, MQ, O_NONBLOCK);
	check(q[0] >= 0 && q[1] >= 0 && q[2] >= 0 &&
		      set_queue(q[1], IFF_DETACH_QUEUE) == 0,
	      "mq persist: 3 queues, one detached");
	for (i = 0; i < 3; i++)
		close(q[i]);
	usleep(100000);
	check(if_exists(name) && stat_queues(name) == 0,
	      "mq persist: %s stays with no queue", name);
	for (i = 0; i < 2; i++)
		q[i] = tap_open(node, name, MQ, O_NONBLOCK);
	check(q[0] >= 0 && q[1] >= 0, "mq persist: 2 queues reattach");
	if (q[0] < 0 || q[1] < 0)
		return 1;
	check(get_flags(q[1]) == (MQ | IFF_PERSIST),
	      "mq persist: TUNGETIFF %#x", get_flags(q[1]));
	check(tx_roundtrip(q[0], 0x9000) && tx_roundtrip(q[1], 0x9001),
	      "mq persist: both queues carry frames");
	check(sys_txq(name) == 2, "mq persist: 2 tx queues");
	close(q[0]);
	close(q[1]);
	return failures ? 1 : 0;
}

/* ---- bench ---- */

/* Writers pinned to CPUs 0..n-1, one queue each; frames in total. */
static long run_writers(const char *node, const char *name, int n, int secs)
{
	int pfd[2], c, st;
	long total = 0, v;
	pid_t pid[2];

	if (pipe(pfd))
		return -1;
	for (c = 0; c < n; c++) {
		pid[c] = fork();
		if (!pid[c]) {
			uint8_t f[64];
			long k = 0;
			int fd;

			pin_cpu(c);
			fd = tap_open(node, name, MQ, 0);
			if (fd < 0)
				_exit(1);
			test_frame(f, 64, c);
			signal(SIGALRM, on_alarm);
			alarm(secs);
			while (!stop && write(fd, f, 64) == 64)
				k++;
			if (write(pfd[1], &k, sizeof(k)) != sizeof(k))
				_exit(1);
			_exit(stop ? 0 : 1);
		}
	}
	for (c = 0; c < n; c++) {
		waitpid(pid[c], &st, 0);
		if (!WIFEXITED(st) || WEXITSTATUS(st) ||
		    read(pfd[0], &v, sizeof(v)) != sizeof(v))
			total = -1;
		else if (total >= 0)
			total += v;
	}
	close(pfd[0]);
	close(pfd[1]);
	return total;
}

/*
 * Alternates the two cases so that a change in the host's load (the VM's
 * vCPUs are host threads) affects both alike; prints every pair's ratio.
 */
static int cmd_bench(int argc, char **argv)
{
	int secs = atoi(argv[4]), reps = argc > 5 ? atoi(argv[5]) : 3, i;
	long one, two, sum1 = 0, sum2 = 0;

	for (i = 0; i < reps; i++) {
		one = run_writers(argv[2], argv[3], 1, secs);
		two = run_writers(argv[2], argv[3], 2, secs);
		check(one > 0 && two > 0,
		      "mq bench: writers ran (%ld, %ld frames)", one, two);
		if (one <= 0 || two <= 0)
			continue;
		sum1 += one;
		sum2 += two;
		printf("MEASURE mq: run %d: 1 writer/1 queue %.0f fps, 2 writers/2 queues/2 CPUs %.0f fps, ratio %.2f\n",
		       i, (double)one / secs, (double)two / secs,
		       (double)two / one);
	}
	if (sum1)
		printf("MEASURE mq: total: 1 writer %.0f fps, 2 writers %.0f fps, ratio %.2f\n",
		       (double)sum1 / secs / reps, (double)sum2 / secs / reps,
		       (double)sum2 / sum1);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "mk"))
		return cmd_mk(argc, argv);
	if (argc >= 3 && !strcmp(argv[1], "abi"))
		return cmd_abi(argc, argv);
	if (argc >= 7 && !strcmp(argv[1], "verdict"))
		return cmd_verdict(argc, argv);
	if (argc >= 7 && !strcmp(argv[1], "redirect"))
		return cmd_redirect(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "stack"))
		return cmd_stack(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "flood"))
		return cmd_flood(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "pflood"))
		return cmd_pflood(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "orderings"))
		return cmd_orderings(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "persist"))
		return cmd_persist(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	fprintf(stderr, "usage: see the comment at the top of tapx-mq.c\n");
	return 2;
}
