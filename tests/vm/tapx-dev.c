// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-dev - the VM suites' device tool: makes tap devices (tapx or stock
 * tun), writes frames through them and counts where they arrive, and
 * checks the ioctl ABI. Static, no libraries: runs in the busybox guest.
 *
 *   tapx-dev abi NODE                    the ioctl ABI, permissions, bad
 *                                        input, round trips; PASS/FAIL lines
 *   tapx-dev mk NODE NAME [MTU]          persistent tap (IFF_TAP|IFF_NO_PI), up
 *   tapx-dev run OPTIONS                 write frames, count where they arrive
 *       --src NODE:NAME  --mode block|nonblock|writev  --size S  --count N
 *       [--vnet] [--gso] [--self N] [--dst tap:NODE:NAME|packet:NAME]
 *       [--expect N] [--quiet]
 *   tapx-dev flood NODE:NAME SECONDS SIZE   write until time is up; prints count
 *   tapx-dev teardown NODE NAME          queued frames + device deletion under
 *                                        open fds (expects xdp_tx attached)
 *   tapx-dev hold NODE NAME SECONDS      keep a tap attached (rmmod with open fd)
 * Exit status: 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tapx-test.h"

#define MAXF 65535
#define VNET_SZ ((int)sizeof(struct virtio_net_hdr))

static int read_sys(const char *name, const char *attr, char *buf, int len)
{
	char path[128];
	int fd, n;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, attr);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

static int frame_ok(const uint8_t *f, int len, int size, uint32_t seq)
{
	static uint8_t want[MAXF];

	if (len != size)
		return 0;
	test_frame(want, size, seq);
	return !memcmp(f, want, size);
}

static int do_write(int fd, const char *mode, const uint8_t *hdr, int hlen,
		    const uint8_t *f, int size)
{
	struct iovec iov[4];
	int n = 0;

	if (!strcmp(mode, "writev")) {
		if (hlen)
			iov[n++] = (struct iovec){ (void *)hdr, hlen };
		iov[n++] = (struct iovec){ (void *)f, 14 };
		iov[n++] = (struct iovec){ (void *)(f + 14), (size - 14) / 2 };
		iov[n++] = (struct iovec){ (void *)(f + 14 + (size - 14) / 2),
					   size - 14 - (size - 14) / 2 };
		return writev(fd, iov, n);
	}
	if (hlen) {
		static uint8_t buf[MAXF + 64];

		memcpy(buf, hdr, hlen);
		memcpy(buf + hlen, f, size);
		return write(fd, buf, hlen + size);
	}
	return write(fd, f, size);
}

/* ---- abi ---- */

static void abi_noattach(const char *node)
{
	unsigned int feat = 0;
	struct ifreq ifr;
	uint8_t f[64];
	int fd, v, r;

	fd = open(node, O_RDWR);
	check(fd >= 0, "abi: open %s", node);
	if (fd < 0)
		return;
	/*
	 * And IFF_BACKPRESSURE (0x80) where the kernel's tun has it (7.3),
	 * which tapx-ioctl and suite-backpressure.sh compare with tun's.
	 */
	r = ioctl(fd, TUNGETFEATURES, &feat);
	check(!r && (feat & ~0x80u) == (IFF_TUN | IFF_TAP | IFF_NO_PI |
					 IFF_ONE_QUEUE | IFF_VNET_HDR |
					 IFF_MULTI_QUEUE | IFF_NAPI |
					 IFF_NAPI_FRAGS | IFF_NO_CARRIER),
	      "abi: TUNGETFEATURES = %#x", feat);
	check(ioctl(fd, TUNGETFEATURES, NULL) < 0 && errno == EFAULT,
	      "abi: TUNGETFEATURES bad pointer -> EFAULT");
	test_frame(f, 60, 0);
	check(write(fd, f, 60) < 0 && errno == EBADFD,
	      "abi: write before TUNSETIFF -> EBADFD");
	check(read(fd, f, 60) < 0 && errno == EBADFD,
	      "abi: read before TUNSETIFF -> EBADFD");
	check(ioctl(fd, TUNGETIFF, &ifr) < 0 && errno == EBADFD,
	      "abi: TUNGETIFF before TUNSETIFF -> EBADFD");
	check(ioctl(fd, TUNSETPERSIST, 1) < 0 && errno == EBADFD,
	      "abi: TUNSETPERSIST before TUNSETIFF -> EBADFD");
	v = 12;
	check(ioctl(fd, TUNSETVNETHDRSZ, &v) < 0 && errno == EBADFD,
	      "abi: TUNSETVNETHDRSZ before TUNSETIFF -> EBADFD");
	check(ioctl(fd, TUNSETIFF, NULL) < 0 && errno == EFAULT,
	      "abi: TUNSETIFF bad pointer -> EFAULT");
	close(fd);

	v = tap_open(node, "abitap", IFF_TAP | IFF_NO_PI, 0);
	fd = tap_open(node, "abitap", IFF_TUN | IFF_NO_PI, 0);
	check(v >= 0 && fd == -EINVAL, "abi: IFF_TUN on a tap -> EINVAL");
	if (v >= 0)
		close(v);
	fd = tap_open(node, "abibad", IFF_TAP | IFF_NAPI_FRAGS, 0);
	check(fd == -EINVAL && !if_exists("abibad"),
	      "abi: IFF_NAPI_FRAGS -> EINVAL");
	fd = tap_open(node, "abibad", 0, 0);
	check(fd == -EINVAL, "abi: no IFF_TAP -> EINVAL");
	fd = tap_open(node, "lo", IFF_TAP, 0);
	check(fd == -EINVAL, "abi: TUNSETIFF on a non-tapx device -> EINVAL");
}

static void abi_ioctls(const char *node)
{
	char buf[64];
	struct ifreq ifr;
	int fd, fd2, v;

	fd = tap_open(node, "abi0", IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE, 0);
	check(fd >= 0 && if_exists("abi0"), "abi: TUNSETIFF creates abi0");
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	check(!ioctl(fd, TUNGETIFF, &ifr) && !strcmp(ifr.ifr_name, "abi0") &&
		      ifr.ifr_flags == (IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE),
	      "abi: TUNGETIFF name %s flags %#x", ifr.ifr_name, ifr.ifr_flags);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP;
	strcpy(ifr.ifr_name, "abi1");
	check(ioctl(fd, TUNSETIFF, &ifr) < 0 && errno == EEXIST,
	      "abi: second TUNSETIFF on one fd -> EEXIST (as tun)");
	fd2 = tap_open(node, "abi0", IFF_TAP | IFF_NO_PI, 0);
	check(fd2 == -EBUSY, "abi: second fd on an attached tap -> EBUSY (%d)",
	      fd2);
	check(read_sys("abi0", "tun_flags", buf, sizeof(buf)) >= 0 &&
		      !strcmp(buf, "0x3002\n"),
	      "abi: abi0 has tun's sysfs tun_flags 0x3002");

	v = 8;
	check(ioctl(fd, TUNSETVNETHDRSZ, &v) < 0 && errno == EINVAL,
	      "abi: TUNSETVNETHDRSZ 8 -> EINVAL");
	v = 12;
	check(!ioctl(fd, TUNSETVNETHDRSZ, &v), "abi: TUNSETVNETHDRSZ 12");
	v = 0;
	check(!ioctl(fd, TUNGETVNETHDRSZ, &v) && v == 12,
	      "abi: TUNGETVNETHDRSZ = %d", v);
	check(ioctl(fd, TUNSETVNETHDRSZ, NULL) < 0 && errno == EFAULT,
	      "abi: TUNSETVNETHDRSZ bad pointer -> EFAULT");
	v = 10;
	ioctl(fd, TUNSETVNETHDRSZ, &v);

	v = 4096;
	check(!ioctl(fd, TUNSETSNDBUF, &v), "abi: TUNSETSNDBUF 4096");
	v = 0;
	check(!ioctl(fd, TUNGETSNDBUF, &v) && v == 4096,
	      "abi: TUNGETSNDBUF = %d", v);
	v = 0;
	check(ioctl(fd, TUNSETSNDBUF, &v) < 0 && errno == EINVAL,
	      "abi: TUNSETSNDBUF 0 -> EINVAL");

	v = 1;
	check(!ioctl(fd, TUNSETVNETLE, &v), "abi: TUNSETVNETLE 1");
	v = 0;
	check(!ioctl(fd, TUNGETVNETLE, &v) && v == 1, "abi: TUNGETVNETLE = %d",
	      v);
	v = 1;
	check(!ioctl(fd, TUNSETVNETBE, &v), "abi: TUNSETVNETBE 1");
	v = 0;
	check(!ioctl(fd, TUNGETVNETBE, &v) && v == 1, "abi: TUNGETVNETBE = %d",
	      v);
	v = 0;
	ioctl(fd, TUNSETVNETLE, &v);
	ioctl(fd, TUNSETVNETBE, &v);

	check(!ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6),
	      "abi: TUNSETOFFLOAD csum|tso4|tso6");
	check(ioctl(fd, TUNSETOFFLOAD, 0x4000) < 0 && errno == EINVAL,
	      "abi: TUNSETOFFLOAD unknown bit -> EINVAL");
	check(!ioctl(fd, TUNSETOFFLOAD, 0), "abi: TUNSETOFFLOAD 0");

	if_up("abi0", 1);
	v = 0;
	check(!ioctl(fd, TUNSETCARRIER, &v) &&
		      read_sys("abi0", "carrier", buf, sizeof(buf)) > 0 &&
		      buf[0] == '0',
	      "abi: TUNSETCARRIER 0 -> carrier 0");
	v = 1;
	check(!ioctl(fd, TUNSETCARRIER, &v) &&
		      read_sys("abi0", "carrier", buf, sizeof(buf)) > 0 &&
		      buf[0] == '1',
	      "abi: TUNSETCARRIER 1 -> carrier 1");
	check(ioctl(fd, 0x5499, 0) < 0 && errno == EINVAL,
	      "abi: unknown ioctl -> EINVAL");

	/* Persist: the device outlives its fd. */
	check(!ioctl(fd, TUNSETPERSIST, 1), "abi: TUNSETPERSIST 1");
	memset(&ifr, 0, sizeof(ifr));
	ioctl(fd, TUNGETIFF, &ifr);
	check(ifr.ifr_flags & IFF_PERSIST, "abi: TUNGETIFF shows IFF_PERSIST");
	close(fd);
	check(if_exists("abi0"), "abi: persistent abi0 survives close");

	/*
	 * Owner and group rules, as an unprivileged user: with neither set,
	 * only CAP_NET_ADMIN attaches (tun's rule in 6.12 and 7.3).
	 */
	v = child_attach(node, "abi0", IFF_TAP | IFF_NO_PI, 1000, 1000);
	check(v == EPERM, "abi: no owner or group: uid 1000 -> EPERM (%d)", v);
	fd = tap_open(node, "abi0", IFF_TAP | IFF_NO_PI, 0);
	check(fd >= 0, "abi: root reattaches abi0");
	check(ioctl(fd, TUNSETOWNER, 1000) == 0, "abi: TUNSETOWNER 1000");
	check(ioctl(fd, TUNSETOWNER, -1L) < 0 && errno == EINVAL,
	      "abi: TUNSETOWNER -1 -> EINVAL");
	close(fd);
	v = child_attach(node, "abi0", IFF_TAP | IFF_NO_PI, 1000, 1000);
	check(v == 0, "abi: owner uid 1000 attaches (%d)", v);
	v = child_attach(node, "abi0", IFF_TAP | IFF_NO_PI, 1001, 1001);
	check(v == EPERM, "abi: uid 1001 -> EPERM (%d)", v);
	v = child_attach(node, "abinew", IFF_TAP | IFF_NO_PI, 1000, 1000);
	check(v == EPERM && !if_exists("abinew"),
	      "abi: unprivileged create -> EPERM (%d)", v);

	fd = tap_open(node, "abi0", IFF_TAP | IFF_NO_PI, 0);
	check(ioctl(fd, TUNSETGROUP, 2000) == 0, "abi: TUNSETGROUP 2000");
	close(fd);
	v = child_attach(node, "abi0", IFF_TAP | IFF_NO_PI, 1000, 2000);
	check(v == 0, "abi: owner 1000 in group 2000 attaches (%d)", v);
	v = child_attach(node, "abi0", IFF_TAP | IFF_NO_PI, 1000, 3000);
	check(v == EPERM, "abi: owner 1000 outside group 2000 -> EPERM (%d)",
	      v);

	fd = tap_open(node, "abi0", IFF_TAP | IFF_NO_PI, 0);
	check(!ioctl(fd, TUNSETPERSIST, 0), "abi: TUNSETPERSIST 0");
	close(fd);
	usleep(100000);
	check(!if_exists("abi0"), "abi: non-persistent abi0 gone on close");
}



/* The frame written and the buffer read into by the data cases. */
static struct {
	uint8_t f[MAXF + 64], r[MAXF + 64];
} ab;

/*
 * Frames both ways on abi2 without vnet header or PI, and bad input; -1
 * when abi2 cannot be made, else 0 with *ps the packet socket on it.
 */
static int data_plain(const char *node, int *ps)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct pollfd p;
	int fd, n;

	fd = tap_open(node, "abi2", IFF_TAP | IFF_NO_PI, O_NONBLOCK);
	check(fd >= 0, "data: create abi2");
	if (fd < 0)
		return -1;
	check(!if_up("abi2", 1) && !if_wait_tx_ready("abi2", 10000),
	      "data: abi2 up and transmitting");
	*ps = packet_open("abi2");
	check(*ps >= 0, "data: packet socket on abi2");

	/* Bad input. */
	test_frame(ab.f, 1500, 1);
	check(write(fd, ab.f, 13) < 0 && errno == EINVAL,
	      "bad: runt 13 B -> EINVAL");
	check(write(fd, ab.f, 0) < 0 && errno == EINVAL, "bad: empty -> EINVAL");
	check(write(fd, ab.f, MAXF + 1) < 0 && errno == EINVAL,
	      "bad: 65536 B -> EINVAL");
	check(write(fd, bad_ptr(), 100) < 0 && errno == EFAULT,
	      "bad: NULL buffer -> EFAULT");
	check(read(fd, ab.r, 100) < 0 && errno == EAGAIN,
	      "data: nonblocking read of an empty ring -> EAGAIN");
	p = (struct pollfd){ .fd = fd, .events = POLLIN | POLLOUT };
	check(poll(&p, 1, 0) == 1 && p.revents == POLLOUT,
	      "data: poll empty ring -> POLLOUT only (%#x)", p.revents);

	/* User -> stack, no program: the frame arrives unchanged. */
	check(write(fd, ab.f, 1500) == 1500, "data: write 1500 B");
	n = packet_recv(*ps, ab.r, sizeof(ab.r), 1000);
	check(frame_ok(ab.r, n, 1500, 1), "data: stack got the frame (%d B)", n);

	/* Stack -> user: inject through a packet socket, read it back. */
	test_frame(ab.f, 200, 2);
	sll.sll_ifindex = if_nametoindex("abi2");
	sll.sll_halen = 6;
	check(sendto(*ps, ab.f, 200, 0, (void *)&sll, sizeof(sll)) == 200,
	      "data: inject 200 B into abi2");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	check(poll(&p, 1, 1000) == 1 && (p.revents & POLLIN),
	      "data: poll -> POLLIN");
	n = read(fd, ab.r, sizeof(ab.r));
	check(frame_ok(ab.r, n, 200, 2), "data: read the injected frame (%d B)",
	      n);
	close(fd);
	return 0;
}

/* vnet headers write() refuses, ahead of a 200-byte frame. */
static const struct {
	struct virtio_net_hdr vh;
	const char *what;
} bad_vnet[] = {
	{ { .gso_type = 7, .gso_size = 100 }, "unknown gso_type" },
	{ { .hdr_len = 500 }, "hdr_len > frame" },
	{ { .flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
	    .csum_start = 190,
	    .csum_offset = 16 },
	  "csum beyond frame" },
	{ { .flags = 0x80 }, "unknown flag" },
	{ { .gso_type = VIRTIO_NET_HDR_GSO_TCPV4 }, "GSO with gso_size 0" },
};

/* The same with a vnet header, and bad vnet headers; the packet socket on
 * the recreated abi2 (ps, the old one, closed). */
static int data_vnet(const char *node, int ps)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	struct virtio_net_hdr vh;
	struct pollfd p;
	int fd, n;

	fd = tap_open(node, "abi2", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
		      O_NONBLOCK);
	check(fd >= 0 && if_exists("abi2"), "vnet: reattach abi2 (recreated)");
	if_up("abi2", 1);
	close(ps);
	ps = packet_open("abi2");
	memset(&vh, 0, sizeof(vh));
	test_frame(ab.f + VNET_SZ, 1000, 3);
	memcpy(ab.f, &vh, VNET_SZ);
	check(write(fd, ab.f, VNET_SZ + 1000) == VNET_SZ + 1000,
	      "vnet: write hdr + 1000 B");
	n = packet_recv(ps, ab.r, sizeof(ab.r), 1000);
	check(frame_ok(ab.r, n, 1000, 3), "vnet: stack got the frame (%d B)", n);
	test_frame(ab.f, 300, 4);
	sll.sll_ifindex = if_nametoindex("abi2");
	sendto(ps, ab.f, 300, 0, (void *)&sll, sizeof(sll));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	poll(&p, 1, 1000);
	n = read(fd, ab.r, sizeof(ab.r));
	memset(&vh, 0, sizeof(vh));
	check(n == VNET_SZ + 300 && !memcmp(ab.r, &vh, VNET_SZ) &&
		      frame_ok(ab.r + VNET_SZ, n - VNET_SZ, 300, 4),
	      "vnet: read hdr + injected frame (%d B)", n);

	/* Bad vnet headers. */
	test_frame(ab.f + VNET_SZ, 200, 5);
	for (unsigned int i = 0; i < sizeof(bad_vnet) / sizeof(bad_vnet[0]); i++) {
		memcpy(ab.f, &bad_vnet[i].vh, VNET_SZ);
		check(write(fd, ab.f, VNET_SZ + 200) < 0 && errno == EINVAL,
		      "bad: vnet %s -> EINVAL", bad_vnet[i].what);
	}
	check(write(fd, ab.f, 5) < 0 && errno == EINVAL,
	      "bad: write shorter than the vnet header -> EINVAL");
	close(fd);
	return ps;
}

/* PI framing both ways; closes ps. */
static void data_pi(const char *node, int ps)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	struct pollfd p;
	int fd, n;

	/* PI framing: 4-byte header before the frame in both directions. */
	fd = tap_open(node, "abi2", IFF_TAP, O_NONBLOCK);
	check(fd >= 0, "pi: attach abi2 without IFF_NO_PI");
	if_up("abi2", 1);
	close(ps);
	ps = packet_open("abi2");
	memset(ab.f, 0, 4);
	test_frame(ab.f + 4, 500, 6);
	check(write(fd, ab.f, 504) == 504, "pi: write pi + 500 B");
	n = packet_recv(ps, ab.r, sizeof(ab.r), 1000);
	check(frame_ok(ab.r, n, 500, 6), "pi: stack got the frame (%d B)", n);
	check(write(fd, ab.f, 3) < 0 && errno == EINVAL, "bad: pi runt -> EINVAL");
	test_frame(ab.f, 300, 7);
	sll.sll_ifindex = if_nametoindex("abi2");
	sendto(ps, ab.f, 300, 0, (void *)&sll, sizeof(sll));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	poll(&p, 1, 1000);
	n = read(fd, ab.r, sizeof(ab.r));
	check(n == 304 && ab.r[2] == (ETHERTYPE_TEST >> 8) && ab.r[0] == 0 &&
		      frame_ok(ab.r + 4, n - 4, 300, 7),
	      "pi: read pi + frame (%d B)", n);
	close(ps);
	close(fd);
}

static void abi_data(const char *node)
{
	int ps;

	if (data_plain(node, &ps))
		return;
	ps = data_vnet(node, ps);
	data_pi(node, ps);
}

static int cmd_abi(int argc, char **argv)
{
	const char *node = argv[2];

	abi_noattach(node);
	abi_ioctls(node);
	abi_data(node);
	return failures ? 1 : 0;
}

static int cmd_mk(int argc, char **argv)
{
	int fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI, 0);

	if (fd < 0) {
		fprintf(stderr, "mk %s: %s\n", argv[3], strerror(-fd));
		return 1;
	}
	if (ioctl(fd, TUNSETPERSIST, 1) < 0) {
		perror("TUNSETPERSIST");
		return 1;
	}
	close(fd);
	if (argc > 4 && if_set_mtu(argv[3], atoi(argv[4]))) {
		perror("mtu");
		return 1;
	}
	if (if_up(argv[3], 1)) {
		perror("up");
		return 1;
	}
	return 0;
}

/* ---- run ---- */

struct dst {
	int fd;
	int is_packet;
	int vnet;
	long got, bad;
};

static void dst_drain(struct dst *d, int size, long *next, int wait_ms)
{
	static uint8_t r[MAXF + 64];
	int n, off = d->vnet ? VNET_SZ : 0;

	for (;;) {
		if (d->is_packet) {
			n = packet_recv(d->fd, r, sizeof(r), wait_ms);
		} else {
			struct pollfd p = { .fd = d->fd, .events = POLLIN };

			n = -1;
			if (poll(&p, 1, wait_ms) == 1)
				n = read(d->fd, r, sizeof(r));
		}
		if (n < 0)
			return;
		/* Only the test's frames count (not stray stack traffic). */
		if (n < off + 14 || r[off + 12] != ETHERTYPE_TEST >> 8 ||
		    r[off + 13] != (ETHERTYPE_TEST & 0xff))
			continue;
		if (frame_ok(r + off, n - off, size, *next))
			d->got++;
		else
			d->bad++;
		(*next)++;
	}
}

static int cmd_run(int argc, char **argv)
{
	static uint8_t f[MAXF];
	const char *mode = "block", *src = NULL, *dstspec = NULL;
	long count = 1, expect_self = -1, expect_dst = -1, i, written = 0;
	long next_self = 0, next_dst = 0;
	int size = 60, vnet = 0, gso = 0, fd, flags, hlen = 0, err = 0;
	struct dst self = { .fd = -1 }, dst = { .fd = -1 };
	struct virtio_net_hdr vh = {};
	char buf[256], *node, *name;

	const struct topt opts[] = {
		{ "src", 's', &src },	      { "mode", 's', &mode },
		{ "size", 'i', &size },	      { "count", 'l', &count },
		{ "vnet", 'f', &vnet },	      { "gso", 'f', &gso },
		{ "self", 'l', &expect_self }, { "dst", 's', &dstspec },
		{ "expect", 'l', &expect_dst }, { "quiet", 'f', &quiet },
		{ NULL, 0, NULL },
	};

	if (parse_topts(argc, argv, 2, opts))
		return 2;
	if (!src || size < 14 || size > MAXF)
		return 2;
	snprintf(buf, sizeof(buf), "%s", src);
	if (split_spec(buf, &node, &name))
		return 2;

	if (dstspec) {
		static char db[256];
		char *dnode, *dname;

		snprintf(db, sizeof(db), "%s", dstspec);
		if (!strncmp(db, "packet:", 7)) {
			dst.fd = packet_open(db + 7);
			dst.is_packet = 1;
		} else if (!strncmp(db, "tap:", 4) &&
			   !split_spec(db + 4, &dnode, &dname)) {
			dst.fd = tap_open(dnode, dname, IFF_TAP | IFF_NO_PI,
					  O_NONBLOCK);
		}
		if (dst.fd < 0) {
			check(0, "run: open destination %s", dstspec);
			return 1;
		}
	}

	flags = IFF_TAP | IFF_NO_PI | (vnet ? IFF_VNET_HDR : 0);
	fd = tap_open(node, name, flags,
		      !strcmp(mode, "nonblock") ? O_NONBLOCK : 0);
	if (fd < 0) {
		check(0, "run: attach %s: %s", src, strerror(-fd));
		return 1;
	}
	self.fd = fd;
	self.vnet = vnet;
	if (vnet) {
		hlen = VNET_SZ;
		if (gso) {
			vh.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
			vh.gso_size = 1448;
			vh.hdr_len = 54;
		}
	}

	trace_mark("TAPX_DEV_MARK", "tapx-dev-begin");
	for (i = 0; i < count; i++) {
		int n;

		test_frame(f, size, i);
		n = do_write(fd, mode, (uint8_t *)&vh, hlen, f, size);
		if (n != size + hlen) {
			if (!err++)
				fprintf(stderr, "write %ld: %d (%s)\n", i, n,
					n < 0 ? strerror(errno) : "short");
			continue;
		}
		written++;
		/* Keep the rings from filling up. */
		if (expect_self >= 0 && ((i & 63) == 63 || size > 4000))
			dst_drain(&self, size, &next_self, 0);
		if (dst.fd >= 0 && ((i & 63) == 63 || size > 4000))
			dst_drain(&dst, size, &next_dst, 0);
	}
	trace_mark("TAPX_DEV_MARK", "tapx-dev-end");
	if (expect_self >= 0)
		dst_drain(&self, size, &next_self, 200);
	if (dst.fd >= 0)
		dst_drain(&dst, size, &next_dst, 200);

	check(written == count, "%s %s %d B: %ld/%ld writes", src, mode, size,
	      written, count);
	if (expect_self >= 0)
		check(self.got == expect_self && !self.bad,
		      "%s %s %d B: read back %ld (want %ld), %ld bad", src,
		      mode, size, self.got, expect_self, self.bad);
	if (expect_dst >= 0)
		check(dst.got == expect_dst && !dst.bad,
		      "%s %s %d B: %s got %ld (want %ld), %ld bad", src, mode,
		      size, dstspec, dst.got, expect_dst, dst.bad);
	close(fd);
	if (dst.fd >= 0)
		close(dst.fd);
	return failures ? 1 : 0;
}

static int cmd_flood(int argc, char **argv)
{
	static uint8_t f[MAXF];
	char *node, *name;
	long n = 0, bad = 0;
	int fd, size = atoi(argv[4]);

	if (split_spec(argv[2], &node, &name))
		return 2;
	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, 0);
	if (fd < 0)
		return 1;
	test_frame(f, size, 0);
	signal(SIGALRM, on_alarm);
	alarm(atoi(argv[3]));
	while (!stop) {
		if (write(fd, f, size) == size)
			n++;
		else
			bad++;
	}
	printf("%ld %ld\n", n, bad);
	close(fd);
	return bad ? 1 : 0;
}

static int cmd_teardown(int argc, char **argv)
{
	static uint8_t f[2000];
	const char *node = argv[2], *name = argv[3];
	char cmd[128], other[IFNAMSIZ];
	struct pollfd p;
	int fd, rd, i, n, st;
	pid_t pid;

	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, O_NONBLOCK);
	check(fd >= 0, "teardown: attach %s", name);
	if (fd < 0)
		return 1;
	/* XDP_TX queues these on our own ring; they stay unread. */
	for (i = 0, n = 0; i < 200; i++) {
		test_frame(f, 1500, i);
		n += write(fd, f, 1500) == 1500;
	}
	check(n == 200, "teardown: 200 frames queued by XDP_TX (%d)", n);

	/* A reader blocked on an empty second tap, woken by its deletion. */
	snprintf(other, sizeof(other), "%sb", name);
	rd = tap_open(node, other, IFF_TAP | IFF_NO_PI, 0);
	check(rd >= 0, "teardown: attach %s", other);
	pid = fork();
	if (!pid) {
		uint8_t b[2000];

		n = read(rd, b, sizeof(b));
		_exit(n < 0 && errno == EBADFD ? 0 : 1);
	}
	usleep(300000);
	snprintf(cmd, sizeof(cmd), "ip link del dev %s && ip link del dev %s",
		 name, other);
	check(system(cmd) == 0, "teardown: %s", cmd);
	check(!if_exists(name) && !if_exists(other),
	      "teardown: devices deleted under open fds");
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "teardown: blocked reader woken with EBADFD");
	check(write(fd, f, 60) < 0 && errno == EBADFD,
	      "teardown: write after deletion -> EBADFD");
	check(read(fd, f, 60) < 0 && errno == EBADFD,
	      "teardown: read after deletion -> EBADFD");
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	check(poll(&p, 1, 0) == 1 && (p.revents & POLLERR),
	      "teardown: poll after deletion -> POLLERR");
	check(ioctl(fd, TUNGETIFF, f) < 0 && errno == EBADFD,
	      "teardown: ioctl after deletion -> EBADFD");
	close(rd);
	close(fd);
	return failures ? 1 : 0;
}

static int cmd_hold(int argc, char **argv)
{
	static uint8_t f[2000];
	int fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI, O_NONBLOCK), i;

	if (fd < 0)
		return 1;
	for (i = 0; i < 50; i++) {
		test_frame(f, 1000, i);
		if (write(fd, f, 1000) != 1000)
			return 1;
	}
	printf("holding\n");
	fflush(stdout);
	sleep(atoi(argv[4]));
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "abi"))
		return cmd_abi(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "mk"))
		return cmd_mk(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "flood"))
		return cmd_flood(argc, argv);
	if (argc >= 4 && !strcmp(argv[1], "teardown"))
		return cmd_teardown(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "hold"))
		return cmd_hold(argc, argv);
	fprintf(stderr, "usage: see the comment at the top of tapx-dev.c\n");
	return 2;
}
