// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * gtool - traffic for the guest tests (static, runs inside the guests).
 *
 *   gtool na IFACE TARGET LLADDR COUNT [SRC]
 *       COUNT unsolicited neighbour advertisements (override flag) to
 *       ff02::1 from IFACE's own MAC: "TARGET is at LLADDR". SRC is the
 *       IPv6 source (default: TARGET). Correct ICMPv6 checksum, hop limit
 *       255, so a receiver without protection would take it.
 *   gtool udp-send DST PORT COUNT PPS [SIZE]
 *       COUNT datagrams of SIZE bytes (default 64) paced at PPS; prints
 *       "sent N elapsed_us U".
 *   gtool udp-recv PORT SECONDS
 *       counts datagrams on PORT (IPv4 and IPv6) for SECONDS; prints
 *       "recv N".
 *   gtool udp-echo PORT SECONDS
 *       sends every datagram on PORT back to its sender for SECONDS;
 *       prints "listen PORT" once bound, then "recv TOTAL" as each
 *       arrives (the last line is the count).
 *   gtool udp-talk DST PORT COUNT
 *       COUNT datagrams, each waiting up to 1 s for its echo; prints
 *       "echoed N of COUNT", exits 0 when all came back.
 *   gtool tcp-echo PORT SECONDS
 *       accepts TCP connections on PORT (IPv4 and IPv6) for SECONDS and
 *       sends back what they send; prints "listen PORT" once bound,
 *       "accept PEER" for each and "data PEER TOTAL" as bytes arrive
 *       (flushed: readable meanwhile).
 *   gtool tcp-talk DST PORT COUNT [SIZE]
 *       connects (2 s at most), sends COUNT messages of SIZE bytes (default
 *       100), each waiting up to 3 s for its echo; prints "connected",
 *       then "echoed N of COUNT bytes B"; exits 0 when all came back
 *       intact, 1 otherwise ("connect failed: ..." when it never opened).
 *   gtool tx-csum IFACE on|off
 *       turns IFACE's transmit checksum offload on or off (ethtool -K
 *       IFACE tx on|off; off, the stack finishes every checksum itself);
 *       prints "tx-csum IFACE on|off" as read back.
 *   gtool tcp-hold DST PORT
 *       connects as tcp-talk, then sends each line read on stdin and
 *       waits up to 3 s for its echo: "echo ok LINE" or "echo lost LINE".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip6.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int parse_mac(const char *s, uint8_t m[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)b[i];
	return 0;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t csum_add(uint32_t sum, const void *data, size_t len)
{
	const uint8_t *p = data;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

static int cmd_na(int argc, char **argv)
{
	uint8_t frame[14 + 40 + 24 + 8] = { 0 };
	uint8_t *eth = frame, *ip6 = frame + 14, *icmp = ip6 + 40;
	const size_t icmp_len = 24 + 8;
	struct sockaddr_ll sll = { 0 };
	struct in6_addr target, src, dst;
	uint8_t lladdr[6];
	struct ifreq ifr = { 0 };
	uint32_t sum = 0;
	uint8_t pseudo[8] = { 0 };
	int fd, count;

	if (argc < 6)
		return fprintf(stderr, "usage: gtool na IFACE TARGET LLADDR COUNT [SRC]\n"), 1;
	if (inet_pton(AF_INET6, argv[3], &target) != 1 || parse_mac(argv[4], lladdr))
		return fprintf(stderr, "gtool na: bad TARGET or LLADDR\n"), 1;
	count = atoi(argv[5]);
	src = target;
	if (argc > 6 && inet_pton(AF_INET6, argv[6], &src) != 1)
		return fprintf(stderr, "gtool na: bad SRC\n"), 1;
	inet_pton(AF_INET6, "ff02::1", &dst);

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0)
		die("socket(AF_PACKET)");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[2]);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr))
		die("SIOCGIFHWADDR");

	/* Ethernet: 33:33:00:00:00:01 <- own MAC, IPv6 */
	memcpy(eth, "\x33\x33\x00\x00\x00\x01", 6);
	memcpy(eth + 6, ifr.ifr_hwaddr.sa_data, 6);
	eth[12] = 0x86;
	eth[13] = 0xdd;
	/* IPv6 */
	ip6[0] = 0x60;
	ip6[4] = 0;
	ip6[5] = (uint8_t)icmp_len;
	ip6[6] = IPPROTO_ICMPV6;
	ip6[7] = 255;
	memcpy(ip6 + 8, &src, 16);
	memcpy(ip6 + 24, &dst, 16);
	/* NA: type 136, flags O (override), target, option TLLA */
	icmp[0] = ND_NEIGHBOR_ADVERT;
	icmp[4] = 0x20;
	memcpy(icmp + 8, &target, 16);
	icmp[24] = ND_OPT_TARGET_LINKADDR;
	icmp[25] = 1;
	memcpy(icmp + 26, lladdr, 6);
	/* checksum over the pseudo-header and the message */
	sum = csum_add(sum, ip6 + 8, 32);
	pseudo[3] = (uint8_t)icmp_len;
	pseudo[7] = IPPROTO_ICMPV6;
	sum = csum_add(sum, pseudo, 8);
	sum = csum_add(sum, icmp, icmp_len);
	uint16_t c = csum_fold(sum);
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;

	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = (int)if_nametoindex(argv[2]);
	sll.sll_halen = 6;
	memcpy(sll.sll_addr, eth, 6);
	for (int i = 0; i < count; i++) {
		if (sendto(fd, frame, sizeof(frame), 0, (struct sockaddr *)&sll, sizeof(sll)) < 0)
			die("sendto");
		usleep(20000);
	}
	printf("sent %d\n", count);
	return 0;
}

static int udp_addr(const char *host, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return 0;
	}
	return -1;
}

static int cmd_udp_send(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char buf[2048] = { 0 };
	long count, pps, size = 64;
	uint64_t start, gap, next;
	long sent = 0;
	int fd;

	if (argc < 6)
		return fprintf(stderr, "usage: gtool udp-send DST PORT COUNT PPS [SIZE]\n"), 1;
	if (udp_addr(argv[2], atoi(argv[3]), &ss, &sl))
		return fprintf(stderr, "gtool udp-send: bad DST\n"), 1;
	count = atol(argv[4]);
	pps = atol(argv[5]);
	if (argc > 6)
		size = atol(argv[6]);
	if (pps <= 0 || size < 1 || size > (long)sizeof(buf))
		return fprintf(stderr, "gtool udp-send: bad PPS or SIZE\n"), 1;
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	gap = 1000000000ull / (uint64_t)pps;
	start = next = now_ns();
	for (long i = 0; i < count; i++) {
		uint64_t t = now_ns();

		if (t < next) {
			struct timespec ts = { 0, (long)(next - t) };

			nanosleep(&ts, NULL);
		}
		next += gap;
		snprintf(buf, sizeof(buf), "%ld", i);
		if (sendto(fd, buf, (size_t)size, 0, (struct sockaddr *)&ss, sl) == size)
			sent++;
		else if (errno != ENOBUFS && errno != EAGAIN)
			die("sendto");
	}
	printf("sent %ld elapsed_us %llu\n", sent,
	       (unsigned long long)((now_ns() - start) / 1000));
	return 0;
}

/* A socket of `type` on PORT of every address, IPv4 and IPv6 alike. */
static int bound_socket(int type, const char *port)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
	int fd = socket(AF_INET6, type, 0), off = 0, on = 1;

	if (fd < 0)
		die("socket");
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	a.sin6_port = htons((uint16_t)atoi(port));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	return fd;
}

static int cmd_udp_recv(int argc, char **argv)
{
	char buf[2048];
	uint64_t end;
	long n = 0;
	int fd;

	if (argc < 4)
		return fprintf(stderr, "usage: gtool udp-recv PORT SECONDS\n"), 1;
	fd = bound_socket(SOCK_DGRAM, argv[2]);
	end = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	for (;;) {
		uint64_t t = now_ns();
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (t >= end)
			break;
		if (poll(&p, 1, (int)((end - t) / 1000000) + 1) > 0 &&
		    recv(fd, buf, sizeof(buf), 0) >= 0)
			n++;
	}
	printf("recv %ld\n", n);
	return 0;
}

static int cmd_udp_echo(int argc, char **argv)
{
	char buf[2048];
	uint64_t end;
	long n = 0;
	int fd;

	if (argc < 4)
		return fprintf(stderr, "usage: gtool udp-echo PORT SECONDS\n"), 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = bound_socket(SOCK_DGRAM, argv[2]);
	printf("listen %s\n", argv[2]);
	end = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	for (;;) {
		struct sockaddr_in6 from;
		socklen_t fl = sizeof(from);
		uint64_t t = now_ns();
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t len;

		if (t >= end)
			break;
		if (poll(&p, 1, (int)((end - t) / 1000000) + 1) <= 0)
			continue;
		len = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (len < 0)
			continue;
		printf("recv %ld\n", ++n);
		sendto(fd, buf, (size_t)len, 0, (struct sockaddr *)&from, fl);
	}
	return 0;
}

/* Up to timeout_ms for fd to become readable: 1 readable, 0 not. */
static int wait_in(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) > 0;
}

static int cmd_udp_talk(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	char out[64], in[2048];
	long count, echoed = 0;
	int fd;

	if (argc < 5)
		return fprintf(stderr, "usage: gtool udp-talk DST PORT COUNT\n"), 1;
	if (udp_addr(argv[2], atoi(argv[3]), &ss, &sl))
		return fprintf(stderr, "gtool udp-talk: bad DST\n"), 1;
	count = atol(argv[4]);
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	/* connected: only the far side's answers are read */
	if (connect(fd, (struct sockaddr *)&ss, sl))
		die("connect");
	for (long i = 0; i < count; i++) {
		uint64_t end = now_ns() + 1000000000ull;
		int len = snprintf(out, sizeof(out), "gtool udp %ld", i);

		if (send(fd, out, (size_t)len, 0) != len)
			continue; /* refused by an ICMP error: not echoed */
		while (now_ns() < end && wait_in(fd, (int)((end - now_ns()) / 1000000) + 1)) {
			ssize_t got = recv(fd, in, sizeof(in), 0);

			if (got == len && !memcmp(in, out, (size_t)len)) {
				echoed++;
				break;
			}
		}
	}
	printf("echoed %ld of %ld\n", echoed, count);
	return echoed == count ? 0 : 1;
}

static int cmd_tcp_echo(int argc, char **argv)
{
	enum { MAX_CONNS = 32 };
	struct pollfd p[1 + MAX_CONNS];
	char peer[MAX_CONNS][64];
	long total[MAX_CONNS];
	char buf[4096];
	uint64_t end;
	int fd, n = 1;

	if (argc < 4)
		return fprintf(stderr, "usage: gtool tcp-echo PORT SECONDS\n"), 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = bound_socket(SOCK_STREAM, argv[2]);
	if (listen(fd, 16))
		die("listen");
	printf("listen %s\n", argv[2]);
	p[0] = (struct pollfd){ .fd = fd, .events = POLLIN };
	end = now_ns() + (uint64_t)(atof(argv[3]) * 1e9);
	for (;;) {
		uint64_t t = now_ns();

		if (t >= end)
			break;
		if (poll(p, (nfds_t)n, (int)((end - t) / 1000000) + 1) <= 0)
			continue;
		for (int i = 1; i < n; i++) {
			ssize_t got;

			if (!p[i].revents)
				continue;
			got = read(p[i].fd, buf, sizeof(buf));
			if (got <= 0) {
				printf("close %s\n", peer[i - 1]);
				close(p[i].fd);
				p[i].fd = -1; /* poll skips it */
				continue;
			}
			total[i - 1] += got;
			printf("data %s %ld\n", peer[i - 1], total[i - 1]);
			if (write(p[i].fd, buf, (size_t)got) != got)
				printf("short echo %s\n", peer[i - 1]);
		}
		if ((p[0].revents & POLLIN) && n < 1 + MAX_CONNS) {
			struct sockaddr_in6 from;
			socklen_t fl = sizeof(from);
			char addr[INET6_ADDRSTRLEN];
			int c = accept(fd, (struct sockaddr *)&from, &fl);

			if (c < 0)
				continue;
			inet_ntop(AF_INET6, &from.sin6_addr, addr, sizeof(addr));
			/* as "ADDR:PORT", IPv4 without its ::ffff: */
			snprintf(peer[n - 1], sizeof(peer[0]), "%s:%u",
				 strncmp(addr, "::ffff:", 7) ? addr : addr + 7, ntohs(from.sin6_port));
			total[n - 1] = 0;
			printf("accept %s\n", peer[n - 1]);
			p[n++] = (struct pollfd){ .fd = c, .events = POLLIN };
		}
	}
	return 0;
}

/* A TCP connection to DST PORT within 2 s, or -1 (said on stdout). */
static int tcp_connect(const char *dst, const char *port)
{
	struct sockaddr_storage ss;
	socklen_t sl, el = sizeof(int);
	struct pollfd p;
	int fd, err = 0;

	if (udp_addr(dst, atoi(port), &ss, &sl))
		return fprintf(stderr, "gtool: bad DST %s\n", dst), -1;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
	if (fd < 0)
		die("socket");
	if (connect(fd, (struct sockaddr *)&ss, sl) && errno != EINPROGRESS)
		err = errno;
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (!err && poll(&p, 1, 2000) <= 0)
		err = ETIMEDOUT;
	if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		err = errno;
	if (err) {
		printf("connect failed: %s\n", strerror(err));
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, 0); /* blocking again */
	printf("connected\n");
	return fd;
}

/* Sends len bytes of msg on fd and reads them back within 3 s: 1 when
 * they came back unchanged. */
static int tcp_echoed(int fd, const char *msg, size_t len)
{
	char in[4096];
	size_t have = 0;
	uint64_t end = now_ns() + 3000000000ull;

	if (len > sizeof(in) || send(fd, msg, len, MSG_NOSIGNAL) != (ssize_t)len)
		return 0;
	while (have < len && now_ns() < end) {
		ssize_t got;

		if (!wait_in(fd, (int)((end - now_ns()) / 1000000) + 1))
			break;
		got = recv(fd, in + have, len - have, 0);
		if (got <= 0)
			break;
		have += (size_t)got;
	}
	return have == len && !memcmp(in, msg, len);
}

static int cmd_tcp_talk(int argc, char **argv)
{
	char msg[4096];
	long count, size = 100, echoed = 0;
	int fd;

	if (argc < 5)
		return fprintf(stderr, "usage: gtool tcp-talk DST PORT COUNT [SIZE]\n"), 1;
	count = atol(argv[4]);
	if (argc > 5)
		size = atol(argv[5]);
	if (size < 1 || size > (long)sizeof(msg))
		return fprintf(stderr, "gtool tcp-talk: bad SIZE\n"), 1;
	fd = tcp_connect(argv[2], argv[3]);
	if (fd < 0)
		return 1;
	for (long i = 0; i < count; i++) {
		for (long j = 0; j < size; j++)
			msg[j] = (char)('a' + (i + j) % 26);
		if (!tcp_echoed(fd, msg, (size_t)size))
			break;
		echoed++;
	}
	printf("echoed %ld of %ld bytes %ld\n", echoed, count, echoed * size);
	close(fd);
	return echoed == count ? 0 : 1;
}

static int cmd_tcp_hold(int argc, char **argv)
{
	char line[512];
	int fd;

	if (argc < 4)
		return fprintf(stderr, "usage: gtool tcp-hold DST PORT\n"), 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	fd = tcp_connect(argv[2], argv[3]);
	if (fd < 0)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		size_t len = strlen(line);

		printf("echo %s %s", tcp_echoed(fd, line, len) ? "ok" : "lost", line);
	}
	close(fd);
	return 0;
}

static int cmd_tx_csum(int argc, char **argv)
{
	struct ethtool_value ev = { 0 };
	struct ifreq ifr = { 0 };
	int fd;

	if (argc < 4 || (strcmp(argv[3], "on") && strcmp(argv[3], "off")))
		return fprintf(stderr, "usage: gtool tx-csum IFACE on|off\n"), 1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[2]);
	ifr.ifr_data = (char *)&ev;
	ev.cmd = ETHTOOL_STXCSUM;
	ev.data = !strcmp(argv[3], "on");
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		die("ETHTOOL_STXCSUM");
	ev.cmd = ETHTOOL_GTXCSUM;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		die("ETHTOOL_GTXCSUM");
	printf("tx-csum %s %s\n", argv[2], ev.data ? "on" : "off");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "na"))
		return cmd_na(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-send"))
		return cmd_udp_send(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-recv"))
		return cmd_udp_recv(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-echo"))
		return cmd_udp_echo(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-talk"))
		return cmd_udp_talk(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "tcp-echo"))
		return cmd_tcp_echo(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "tcp-talk"))
		return cmd_tcp_talk(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "tcp-hold"))
		return cmd_tcp_hold(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "tx-csum"))
		return cmd_tx_csum(argc, argv);
	fprintf(stderr, "usage: gtool na|udp-send|udp-recv|udp-echo|udp-talk|tcp-echo|tcp-talk|tcp-hold|tx-csum ...\n");
	return 1;
}
