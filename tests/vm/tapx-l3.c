// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-l3 - IFF_TUN devices used the way a VPN daemon uses them, run on
 * stock tun.ko and on tapx alike (suite-l3.sh):
 *   tapx-l3 run NODE NET   every case on devices l3<NET>*, addresses
 *                          10.NET.0.1/24 and fd00:NET::1/64 on the device,
 *                          the peer (what the fd writes from) at .2 / ::2
 *   tapx-l3 mk NODE NAME   a persistent IFF_TUN device (for bpftool)
 *   tapx-l3 rm NODE NAME   removes it
 * Packets written into the fd are answered by the stack (ICMP echo) or
 * received on a socket (UDP); what the guest sends to the peer is read
 * back from the fd, behind the PI (with the protocol) or the vnet header.
 */
#include <linux/virtio_net.h>
#include <net/if_arp.h>
#include <netinet/in.h>

#include "tapx-test.h"

static int net;
static char v4_self[16], v4_peer[16], v6_self[40], v6_peer[40];

/* Internet checksum over @n bytes, starting from @sum. */
static uint16_t csum(const void *p, size_t n, uint32_t sum)
{
	const uint8_t *b = p;

	for (; n > 1; n -= 2, b += 2)
		sum += b[0] << 8 | b[1];
	if (n)
		sum += b[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum & 0xffff;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* An IPv4 header for @len bytes of @proto from the peer to us. */
static void ip4_hdr(uint8_t *p, int len, int proto)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put16(p + 2, 20 + len);
	p[8] = 64;
	p[9] = proto;
	inet_pton(AF_INET, v4_peer, p + 12);
	inet_pton(AF_INET, v4_self, p + 16);
	put16(p + 10, csum(p, 20, 0));
}

static void ip6_hdr(uint8_t *p, int len, int proto)
{
	memset(p, 0, 40);
	p[0] = 0x60;
	put16(p + 4, len);
	p[6] = proto;
	p[7] = 64;
	inet_pton(AF_INET6, v6_peer, p + 8);
	inet_pton(AF_INET6, v6_self, p + 24);
}

/* Checksum of an IPv6 upper-layer packet at p + 40 (pseudo-header). */
static uint16_t csum6(const uint8_t *p, int len, int proto)
{
	uint8_t ph[40] = { 0 };

	memcpy(ph, p + 8, 32);
	put16(ph + 34, len);
	ph[39] = proto;
	return csum(p + 40, len, 0xffff & ~csum(ph, 40, 0));
}

#define PAYLOAD 32
#define ECHO_ID 0x7a70

/* An echo request (v4 or v6) with seq @seq; returns its length. */
static int echo_req(uint8_t *p, int v6, int seq)
{
	int hl = v6 ? 40 : 20, len = 8 + PAYLOAD, i;
	uint8_t *icmp = p + hl;

	if (v6)
		ip6_hdr(p, len, IPPROTO_ICMPV6);
	else
		ip4_hdr(p, len, IPPROTO_ICMP);
	memset(icmp, 0, len);
	icmp[0] = v6 ? 128 : 8;
	put16(icmp + 4, ECHO_ID);
	put16(icmp + 6, seq);
	for (i = 0; i < PAYLOAD; i++)
		icmp[8 + i] = seq + i;
	put16(icmp + 2, v6 ? csum6(p, len, IPPROTO_ICMPV6) : csum(icmp, len, 0));
	return hl + len;
}

/* A UDP datagram from peer port 6000 to our @port, payload "l3-N". */
static int udp_req(uint8_t *p, int v6, int port)
{
	int hl = v6 ? 40 : 20, len = 8 + PAYLOAD;
	uint8_t *u = p + hl;

	if (v6)
		ip6_hdr(p, len, IPPROTO_UDP);
	else
		ip4_hdr(p, len, IPPROTO_UDP);
	memset(u, 0, len);
	put16(u, 6000);
	put16(u + 2, port);
	put16(u + 4, len);
	snprintf((char *)u + 8, PAYLOAD, "l3-%d-%s", net, v6 ? "v6" : "v4");
	if (v6)
		put16(u + 6, csum6(p, len, IPPROTO_UDP));
	return hl + len;
}

/* What a packet read from the fd must be. */
struct want {
	int v6;
	int proto; /* IPPROTO_* */
	int type; /* ICMP type, or the UDP destination port */
	int seq; /* echo sequence, -1 for UDP */
};

/* Does the IP packet at @p (of @n bytes) match @w? */
static int match(const uint8_t *p, int n, const struct want *w)
{
	int hl = w->v6 ? 40 : 20;
	const uint8_t *l4 = p + hl;

	if (n < hl + 8 || (p[0] >> 4) != (w->v6 ? 6 : 4))
		return 0;
	if (p[w->v6 ? 6 : 9] != w->proto)
		return 0;
	if (w->proto == IPPROTO_UDP)
		return (l4[2] << 8 | l4[3]) == w->type;
	return l4[0] == w->type && (l4[4] << 8 | l4[5]) == ECHO_ID &&
	       (l4[6] << 8 | l4[7]) == w->seq;
}

/*
 * Reads from @fd (any of @nfd fds) into @buf until a packet whose IP part,
 * @off bytes in, matches @w; returns its length (the read()'s result), 0 on
 * timeout; *which is the fd's index. IPv6 router solicitations and MLD
 * reports of the stack's are skipped.
 */
static int read_match(const int *fd, int nfd, uint8_t *buf, int len, int off,
		      const struct want *w, int *which)
{
	struct pollfd p[4];
	int i, n, tries;

	for (i = 0; i < nfd; i++)
		p[i] = (struct pollfd){ .fd = fd[i], .events = POLLIN };
	for (tries = 0; tries < 64; tries++) {
		if (poll(p, nfd, 2000) <= 0)
			return 0;
		for (i = 0; i < nfd; i++) {
			if (!(p[i].revents & POLLIN))
				continue;
			n = read(fd[i], buf, len);
			if (n > off && match(buf + off, n - off, w)) {
				if (which)
					*which = i;
				return n;
			}
		}
	}
	return 0;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

/*
 * Addresses on the device and up, as a VPN daemon configures its tun
 * (iproute2 by its path: busybox's sh prefers its own ip, without nodad).
 * init.sh disables IPv6 on new devices: enabled on this one.
 */
static int configure(const char *name)
{
	return sh("echo 0 >/proc/sys/net/ipv6/conf/%s/disable_ipv6 && "
		  "/bin/ip addr add %s/24 dev %s && "
		  "/bin/ip -6 addr add %s/64 dev %s nodad && "
		  "/bin/ip link set %s up",
		  name, v4_self, name, v6_self, name, name);
}

static int open_l3(const char *node, const char *name, int flags)
{
	int fd = tap_open(node, name, IFF_TUN | flags, 0);

	check(fd >= 0, "l3 %s: TUNSETIFF IFF_TUN%s%s%s (%s)", name,
	      flags & IFF_NO_PI ? "|NO_PI" : "",
	      flags & IFF_VNET_HDR ? "|VNET_HDR" : "",
	      flags & IFF_MULTI_QUEUE ? "|MULTI_QUEUE" : "",
	      fd < 0 ? strerror(-fd) : "ok");
	return fd;
}

static long sysfs_long(const char *name, const char *attr)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/%s", name, attr);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%li", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The device as tun makes it for IFF_TUN. */
static void case_netdev(const char *name, int fd)
{
	struct ifreq ifr = { 0 };
	long fl = sysfs_long(name, "flags");

	check(sysfs_long(name, "type") == ARPHRD_NONE,
	      "l3 %s: type ARPHRD_NONE", name);
	check(sysfs_long(name, "addr_len") == 0, "l3 %s: addr_len 0", name);
	check(sysfs_long(name, "mtu") == 1500, "l3 %s: mtu 1500", name);
	check(fl >= 0 && (fl & (IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST)) ==
				 (IFF_POINTOPOINT | IFF_NOARP | IFF_MULTICAST) &&
		      !(fl & IFF_BROADCAST),
	      "l3 %s: flags %#lx POINTOPOINT|NOARP|MULTICAST", name, fl);
	check(!ioctl(fd, TUNGETIFF, &ifr) && (ifr.ifr_flags & IFF_TUN) &&
		      !(ifr.ifr_flags & IFF_TAP) && !strcmp(ifr.ifr_name, name),
	      "l3 %s: TUNGETIFF flags %#x", name, (unsigned short)ifr.ifr_flags);
}

/* Echo request written, echo reply read; @off: PI or vnet header bytes. */
static void case_echo(const char *name, int fd, int v6, int off, int pi)
{
	uint8_t req[128], buf[2048];
	struct want w = { v6, v6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP,
			  v6 ? 129 : 0, 100 + v6 };
	int n, len;

	memset(req, 0, off);
	if (pi)
		put16(req + 2, v6 ? ETH_P_IPV6 : ETH_P_IP);
	len = off + echo_req(req + off, v6, w.seq);
	n = write(fd, req, len);
	check(n == len, "l3 %s: write echo%s request (%d of %d bytes)", name,
	      v6 ? "6" : "", n, len);
	n = read_match(&fd, 1, buf, sizeof(buf), off, &w, NULL);
	check(n == len && !memcmp(buf + off + (v6 ? 48 : 28),
				   req + off + (v6 ? 48 : 28), PAYLOAD),
	      "l3 %s: echo%s reply read back (%d bytes, want %d)", name,
	      v6 ? "6" : "", n, len);
	if (pi && n)
		check(buf[0] == 0 && buf[1] == 0 &&
			      (buf[2] << 8 | buf[3]) == (v6 ? ETH_P_IPV6 : ETH_P_IP),
		      "l3 %s: reply's PI flags 0, proto %#x", name,
		      buf[2] << 8 | buf[3]);
}

static int udp_socket(int v6, const char *addr, int port)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(port) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	struct timeval tv = { .tv_sec = 2 };
	int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0);

	if (s < 0)
		return -1;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	inet_pton(AF_INET6, addr, &a6.sin6_addr);
	inet_pton(AF_INET, addr, &a4.sin_addr);
	if (v6 ? bind(s, (void *)&a6, sizeof(a6)) :
		 bind(s, (void *)&a4, sizeof(a4))) {
		close(s);
		return -1;
	}
	return s;
}

/* UDP written into the fd, received on a socket bound in the guest. */
static void case_udp_in(const char *name, int fd, int v6, int off, int pi)
{
	int s = udp_socket(v6, v6 ? v6_self : v4_self, 5000), n, len;
	uint8_t req[128];
	char got[64] = "";

	check(s >= 0, "l3 %s: UDP%s socket bound", name, v6 ? "6" : "");
	memset(req, 0, off);
	if (pi)
		put16(req + 2, v6 ? ETH_P_IPV6 : ETH_P_IP);
	len = off + udp_req(req + off, v6, 5000);
	n = write(fd, req, len);
	check(n == len, "l3 %s: write UDP%s datagram (%d bytes)", name,
	      v6 ? "6" : "", n);
	n = s >= 0 ? recv(s, got, sizeof(got), 0) : -1;
	check(n == PAYLOAD &&
		      !memcmp(got, req + off + (v6 ? 48 : 28), PAYLOAD),
	      "l3 %s: UDP%s datagram received on the socket (%d bytes)", name,
	      v6 ? "6" : "", n);
	if (s >= 0)
		close(s);
}

/* UDP sent from a guest socket to the peer, read back from the fd. */
static void case_udp_out(const char *name, int fd, int v6, int off, int pi)
{
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(7000) };
	struct sockaddr_in a4 = { .sin_family = AF_INET,
				  .sin_port = htons(7000) };
	struct want w = { v6, IPPROTO_UDP, 7000, -1 };
	int s = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM, 0), n, hl = v6 ? 40 : 20;
	const char msg[] = "from-the-guest";
	uint8_t buf[2048];

	inet_pton(AF_INET6, v6_peer, &a6.sin6_addr);
	inet_pton(AF_INET, v4_peer, &a4.sin_addr);
	n = v6 ? sendto(s, msg, sizeof(msg), 0, (void *)&a6, sizeof(a6)) :
		 sendto(s, msg, sizeof(msg), 0, (void *)&a4, sizeof(a4));
	check(n == (int)sizeof(msg), "l3 %s: UDP%s sendto the peer (%d)", name,
	      v6 ? "6" : "", n);
	n = read_match(&fd, 1, buf, sizeof(buf), off, &w, NULL);
	check(n == off + hl + 8 + (int)sizeof(msg) &&
		      !memcmp(buf + off + hl + 8, msg, sizeof(msg)),
	      "l3 %s: UDP%s datagram read from the fd (%d bytes)", name,
	      v6 ? "6" : "", n);
	if (pi && n)
		check((buf[2] << 8 | buf[3]) == (v6 ? ETH_P_IPV6 : ETH_P_IP),
		      "l3 %s: its PI proto %#x", name, buf[2] << 8 | buf[3]);
	close(s);
}

/* A read too short for the packet: cut, TUN_PKT_STRIP in the PI. */
static void case_strip(const char *name, int fd)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(7000) };
	struct want w = { 0, IPPROTO_UDP, 7000, -1 };
	int s = socket(AF_INET, SOCK_DGRAM, 0), n;
	char msg[200] = "strip";
	uint8_t buf[4 + 28];

	inet_pton(AF_INET, v4_peer, &a.sin_addr);
	sendto(s, msg, sizeof(msg), 0, (void *)&a, sizeof(a));
	n = read_match(&fd, 1, buf, sizeof(buf), 4, &w, NULL);
	check(n == sizeof(buf) && (buf[0] | buf[1] << 8) == TUN_PKT_STRIP,
	      "l3 %s: short read %d bytes of %zu, PI flags %#x (TUN_PKT_STRIP)",
	      name, n, 4 + 28 + sizeof(msg), n ? buf[0] | buf[1] << 8 : 0);
	close(s);
}

/* A write IFF_NO_PI cannot give a protocol: EINVAL. */
static void case_bad_version(const char *name, int fd)
{
	uint8_t p[64];
	int n, len;

	len = udp_req(p, 0, 5000);
	p[0] = 0x55;
	n = write(fd, p, len);
	check(n < 0 && errno == EINVAL, "l3 %s: IP version 5 -> EINVAL", name);
}

/*
 * A GSO vnet header without a partial checksum in front of a packet whose
 * PI says protocol 0: written, as tun takes it (the stack drops it then).
 */
static void case_gso_pi0(const char *name, int fd)
{
	uint8_t p[4 + 10 + 60] = { 0 };
	struct virtio_net_hdr *h = (void *)(p + 4);
	int n;

	h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	h->gso_size = 1000;
	h->hdr_len = 40;
	ip4_hdr(p + 14, 60, IPPROTO_TCP);
	n = write(fd, p, sizeof(p));
	check(n == (int)sizeof(p),
	      "l3 %s: GSO vnet header, PI protocol 0: written (%d of %zu bytes)",
	      name, n, sizeof(p));
}

/* With PI, no PI, and vnet header: both directions, IPv4 and IPv6. */
static void case_variant(const char *node, const char *sfx, int flags)
{
	int pi = !(flags & IFF_NO_PI), vnet = !!(flags & IFF_VNET_HDR);
	int off = (pi ? 4 : 0) + (vnet ? 10 : 0), fd, v6;
	char name[IFNAMSIZ];

	snprintf(name, sizeof(name), "l3%d%s", net, sfx);
	fd = open_l3(node, name, flags);
	if (fd < 0)
		return;
	check(!configure(name), "l3 %s: addresses, up", name);
	if (!pi && !vnet)
		case_netdev(name, fd);
	for (v6 = 0; v6 < 2; v6++) {
		case_echo(name, fd, v6, off, pi);
		case_udp_in(name, fd, v6, off, pi);
		case_udp_out(name, fd, v6, off, pi);
	}
	if (pi && !vnet)
		case_strip(name, fd);
	if (!pi && !vnet)
		case_bad_version(name, fd);
	if (pi && vnet)
		case_gso_pi0(name, fd);
	close(fd);
	check(!if_exists(name), "l3 %s: gone with its last fd", name);
}

/* Two queues: echo requests written on each, both replies read back. */
static void case_mq(const char *node)
{
	int flags = IFF_NO_PI | IFF_MULTI_QUEUE, fd[2], i, n, which, got = 0;
	uint8_t req[128], buf[2048];
	char name[IFNAMSIZ];

	snprintf(name, sizeof(name), "l3%dm", net);
	fd[0] = open_l3(node, name, flags);
	fd[1] = open_l3(node, name, flags);
	if (fd[0] < 0 || fd[1] < 0)
		goto out;
	i = tap_open(node, name, IFF_TUN | IFF_NO_PI, 0);
	check(i == -EINVAL, "l3 %s: joining without IFF_MULTI_QUEUE -> EINVAL",
	      name);
	check(!configure(name), "l3 %s: addresses, up", name);
	for (i = 0; i < 2; i++) {
		struct want w = { 0, IPPROTO_ICMP, 0, 200 + i };
		int len = echo_req(req, 0, w.seq);

		n = write(fd[i], req, len);
		check(n == len, "l3 %s: echo request on queue %d", name, i);
		n = read_match(fd, 2, buf, sizeof(buf), 0, &w, &which);
		check(n == len, "l3 %s: reply to queue %d's request (%d bytes, on queue %d)",
		      name, i, n, n ? which : -1);
		got += n == len;
	}
	check(got == 2, "l3 %s: %d of 2 replies", name, got);
out:
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* TUNSETLINK: EBUSY while up; while down the type changes. */
static void case_link(const char *node)
{
	char name[IFNAMSIZ];
	int fd;

	snprintf(name, sizeof(name), "l3%dk", net);
	fd = open_l3(node, name, IFF_NO_PI);
	if (fd < 0)
		return;
	if_up(name, 1);
	check(ioctl(fd, TUNSETLINK, ARPHRD_PPP) < 0 && errno == EBUSY,
	      "l3 %s: TUNSETLINK while up -> EBUSY", name);
	if_up(name, 0);
	check(!ioctl(fd, TUNSETLINK, ARPHRD_PPP) &&
		      sysfs_long(name, "type") == ARPHRD_PPP,
	      "l3 %s: TUNSETLINK ARPHRD_PPP while down, type %ld", name,
	      sysfs_long(name, "type"));
	check(!ioctl(fd, TUNSETLINK, ARPHRD_NONE) &&
		      sysfs_long(name, "type") == ARPHRD_NONE,
	      "l3 %s: TUNSETLINK back to ARPHRD_NONE", name);
	close(fd);
}

/* Persist, owner and group, the tun rules. */
static void case_persist(const char *node)
{
	int flags = IFF_TUN | IFF_NO_PI, fd, r;
	char name[IFNAMSIZ];

	snprintf(name, sizeof(name), "l3%dp", net);
	fd = open_l3(node, name, IFF_NO_PI);
	if (fd < 0)
		return;
	check(!ioctl(fd, TUNSETPERSIST, 1) && !ioctl(fd, TUNSETOWNER, 4242) &&
		      !ioctl(fd, TUNSETGROUP, 4343),
	      "l3 %s: TUNSETPERSIST, TUNSETOWNER, TUNSETGROUP", name);
	close(fd);
	check(if_exists(name), "l3 %s: persists without an fd", name);
	r = child_attach(node, name, flags, 4242, 4343);
	check(r == 0, "l3 %s: owner and group attach (%d)", name, r);
	r = child_attach(node, name, flags, 4242, 1);
	check(r == EPERM, "l3 %s: owner, other group -> EPERM (%d)", name, r);
	r = child_attach(node, name, flags, 1, 4343);
	check(r == EPERM, "l3 %s: group, other owner -> EPERM (%d)", name, r);
	r = child_attach(node, name, IFF_TAP | IFF_NO_PI, 4242, 4343);
	check(r == EINVAL, "l3 %s: joined as a tap -> EINVAL (%d)", name, r);
	fd = tap_open(node, name, flags, 0);
	check(fd >= 0 && !ioctl(fd, TUNSETPERSIST, 0),
	      "l3 %s: reattach, TUNSETPERSIST 0", name);
	if (fd >= 0)
		close(fd);
	check(!if_exists(name), "l3 %s: gone after its last close", name);
}

static int cmd_run(const char *node)
{
	snprintf(v4_self, sizeof(v4_self), "10.%d.0.1", net);
	snprintf(v4_peer, sizeof(v4_peer), "10.%d.0.2", net);
	snprintf(v6_self, sizeof(v6_self), "fd00:%d::1", net);
	snprintf(v6_peer, sizeof(v6_peer), "fd00:%d::2", net);
	case_variant(node, "pi", 0);
	case_variant(node, "n", IFF_NO_PI);
	case_variant(node, "v", IFF_NO_PI | IFF_VNET_HDR);
	case_variant(node, "pv", IFF_VNET_HDR);
	case_mq(node);
	case_link(node);
	case_persist(node);
	return failures ? 1 : 0;
}

/* A persistent device for the shell's checks, and its removal. */
static int cmd_mk(const char *node, const char *name, int persist)
{
	int fd = tap_open(node, name, IFF_TUN | IFF_NO_PI, 0);

	if (fd < 0) {
		fprintf(stderr, "tapx-l3: %s: %s\n", name, strerror(-fd));
		return 1;
	}
	if (ioctl(fd, TUNSETPERSIST, persist) < 0) {
		perror("tapx-l3: TUNSETPERSIST");
		return 1;
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "run")) {
		net = atoi(argv[3]);
		return cmd_run(argv[2]);
	}
	if (argc == 4 && !strcmp(argv[1], "mk"))
		return cmd_mk(argv[2], argv[3], 1);
	if (argc == 4 && !strcmp(argv[1], "rm"))
		return cmd_mk(argv[2], argv[3], 0);
	fprintf(stderr, "usage: tapx-l3 run NODE NET | mk NODE NAME | rm NODE NAME\n");
	return 2;
}
