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
 */
#include <arpa/inet.h>
#include <errno.h>
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

static int cmd_udp_recv(int argc, char **argv)
{
	struct sockaddr_in6 a = { 0 };
	char buf[2048];
	uint64_t end;
	long n = 0;
	int fd, off = 0;

	if (argc < 4)
		return fprintf(stderr, "usage: gtool udp-recv PORT SECONDS\n"), 1;
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0)
		die("socket");
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons((uint16_t)atoi(argv[2]));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
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

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "na"))
		return cmd_na(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-send"))
		return cmd_udp_send(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "udp-recv"))
		return cmd_udp_recv(argc, argv);
	fprintf(stderr, "usage: gtool na|udp-send|udp-recv ...\n");
	return 1;
}
