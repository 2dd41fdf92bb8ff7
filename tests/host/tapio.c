// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * tapio - the frame writer of the host tests. It opens tap A (and the
 * redirect target tap B) as their reader, writes N frames into A and
 * counts where the frames end up:
 *   tx        read back from A (XDP_TX sends to the tap's own reader)
 *   redirect  read from B
 *   pass      seen entering the stack on A (a packet socket, incoming only)
 * Every frame carries a marker, so traffic of the kernel's own (router
 * solicitations and the like) is not counted.
 *
 *   tapio A [--peer B] [--count N] [--block] [frame options]
 *
 * --block writes with a blocking fd: stock tun then runs XDP as generic
 * XDP on an skb; without it (O_NONBLOCK) tun runs native XDP on frames
 * below a page. Output: "sent N tx N redirect N pass N".
 */
#define _GNU_SOURCE /* memmem */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MARKER "TAPACCEL"
#define MAX_FRAME 9000

struct frame_opts {
	uint8_t smac[6], dmac[6];
	int vlan; /* -1: untagged */
	const char *src, *dst;
	int proto; /* IPPROTO_*, or 0 for ARP */
	int sport, dport, icmp_type;
	int size;
};

static int open_tap(const char *name, bool block)
{
	struct ifreq ifr = { 0 };
	int fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | (block ? 0 : O_NONBLOCK));

	if (fd < 0) {
		perror("open /dev/net/tun");
		exit(2);
	}
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		fprintf(stderr, "tapio: TUNSETIFF %s: %s\n", name, strerror(errno));
		exit(2);
	}
	return fd;
}

/* A packet socket that sees what enters the stack on `ifname`. */
static int open_stack_probe(const char *ifname)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_ALL),
		.sll_ifindex = (int)if_nametoindex(ifname),
	};
	int one = 1, fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));

	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("tapio: packet socket");
		exit(2);
	}
	/* frames the kernel sends out of the tap are not "entering the stack" */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return fd;
}

static uint16_t csum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* The L4 header and marker payload at p; returns its length. */
static size_t build_l4(const struct frame_opts *o, uint8_t *p, size_t room, uint32_t seq)
{
	size_t hdr = o->proto == IPPROTO_TCP ? 20 : 8, len = hdr + strlen(MARKER) + 4;

	if (o->size > 0 && (size_t)o->size > len)
		len = (size_t)o->size;
	if (len > room)
		len = room;
	memset(p, 0, len);
	memcpy(p + hdr, MARKER, strlen(MARKER));
	memcpy(p + hdr + strlen(MARKER), &seq, 4);
	if (o->proto == IPPROTO_UDP || o->proto == IPPROTO_TCP || o->proto == IPPROTO_SCTP) {
		put16(p, (uint16_t)o->sport);
		put16(p + 2, (uint16_t)o->dport);
		if (o->proto == IPPROTO_UDP)
			put16(p + 4, (uint16_t)len);
		if (o->proto == IPPROTO_TCP) {
			p[12] = 5 << 4; /* data offset */
			p[13] = 0x02;	/* SYN */
		}
	} else if (o->proto == IPPROTO_ICMP || o->proto == IPPROTO_ICMPV6) {
		p[0] = (uint8_t)o->icmp_type;
	}
	return len;
}

static size_t build_frame(const struct frame_opts *o, uint8_t *f, uint32_t seq)
{
	uint8_t a4s[4], a4d[4], a6s[16], a6d[16];
	bool v6 = strchr(o->src, ':') != NULL;
	size_t off = 12, l4;

	memcpy(f, o->dmac, 6);
	memcpy(f + 6, o->smac, 6);
	if (o->vlan >= 0) {
		put16(f + off, 0x8100);
		put16(f + off + 2, (uint16_t)o->vlan);
		off += 4;
	}
	if (o->proto == 0) { /* ARP request: who has dst, tell src */
		inet_pton(AF_INET, o->src, a4s);
		inet_pton(AF_INET, o->dst, a4d);
		put16(f + off, 0x0806);
		off += 2;
		put16(f + off, 1);
		put16(f + off + 2, 0x0800);
		f[off + 4] = 6;
		f[off + 5] = 4;
		put16(f + off + 6, 1);
		memcpy(f + off + 8, o->smac, 6);
		memcpy(f + off + 14, a4s, 4);
		memset(f + off + 18, 0, 6);
		memcpy(f + off + 24, a4d, 4);
		memcpy(f + off + 28, MARKER, strlen(MARKER)); /* in the padding */
		memcpy(f + off + 28 + strlen(MARKER), &seq, 4);
		return off + 28 + strlen(MARKER) + 4;
	}
	if (v6) {
		inet_pton(AF_INET6, o->src, a6s);
		inet_pton(AF_INET6, o->dst, a6d);
		put16(f + off, 0x86dd);
		off += 2;
		l4 = build_l4(o, f + off + 40, MAX_FRAME - off - 40, seq);
		memset(f + off, 0, 40);
		f[off] = 0x60;
		put16(f + off + 4, (uint16_t)l4);
		f[off + 6] = (uint8_t)o->proto;
		f[off + 7] = 64;
		memcpy(f + off + 8, a6s, 16);
		memcpy(f + off + 24, a6d, 16);
		return off + 40 + l4;
	}
	inet_pton(AF_INET, o->src, a4s);
	inet_pton(AF_INET, o->dst, a4d);
	put16(f + off, 0x0800);
	off += 2;
	l4 = build_l4(o, f + off + 20, MAX_FRAME - off - 20, seq);
	memset(f + off, 0, 20);
	f[off] = 0x45;
	put16(f + off + 2, (uint16_t)(20 + l4));
	f[off + 8] = 64;
	f[off + 9] = (uint8_t)o->proto;
	memcpy(f + off + 12, a4s, 4);
	memcpy(f + off + 16, a4d, 4);
	memcpy(f + off + 10, &(uint16_t){ csum(f + off, 20) }, 2);
	return off + 20 + l4;
}

static bool has_marker(const uint8_t *f, ssize_t n)
{
	return n > 0 && memmem(f, (size_t)n, MARKER, strlen(MARKER));
}

/* Read what is ready on fd without blocking; count marked frames. */
static long drain(int fd)
{
	static uint8_t buf[65536];
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	long n = 0;

	if (fd < 0)
		return 0;
	while (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN)) {
		/* poll said readable, so a blocking fd does not block here */
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r <= 0)
			break;
		n += has_marker(buf, r);
	}
	return n;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int parse_proto(const char *s)
{
	if (!strcmp(s, "udp"))
		return IPPROTO_UDP;
	if (!strcmp(s, "tcp"))
		return IPPROTO_TCP;
	if (!strcmp(s, "icmp"))
		return IPPROTO_ICMP;
	if (!strcmp(s, "icmpv6"))
		return IPPROTO_ICMPV6;
	if (!strcmp(s, "arp"))
		return 0;
	return atoi(s);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "peer", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'n' },
		{ "block", no_argument, NULL, 'b' },
		{ "smac", required_argument, NULL, 'S' },
		{ "dmac", required_argument, NULL, 'D' },
		{ "vlan", required_argument, NULL, 'v' },
		{ "src", required_argument, NULL, 's' },
		{ "dst", required_argument, NULL, 'd' },
		{ "proto", required_argument, NULL, 'p' },
		{ "sport", required_argument, NULL, 'x' },
		{ "dport", required_argument, NULL, 'y' },
		{ "icmp-type", required_argument, NULL, 'i' },
		{ "size", required_argument, NULL, 'z' },
		{ "settle-ms", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	struct frame_opts o = {
		.smac = { 0x52, 0x54, 0, 0, 0, 1 }, .dmac = { 0x52, 0x54, 0, 0, 0, 2 },
		.vlan = -1, .src = "10.0.0.1", .dst = "10.0.0.2", .proto = IPPROTO_UDP,
		.sport = 1000, .dport = 2000, .icmp_type = 8,
	};
	const char *peer = NULL;
	long count = 1, sent = 0, tx = 0, redirected = 0, passed = 0;
	int c, fd, peer_fd = -1, probe, settle = 300;
	static uint8_t frame[MAX_FRAME];
	bool block = false;
	double idle_since;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'P': peer = optarg; break;
		case 'n': count = atol(optarg); break;
		case 'b': block = true; break;
		case 'S': if (parse_mac(optarg, o.smac)) return 2; break;
		case 'D': if (parse_mac(optarg, o.dmac)) return 2; break;
		case 'v': o.vlan = atoi(optarg); break;
		case 's': o.src = optarg; break;
		case 'd': o.dst = optarg; break;
		case 'p': o.proto = parse_proto(optarg); break;
		case 'x': o.sport = atoi(optarg); break;
		case 'y': o.dport = atoi(optarg); break;
		case 'i': o.icmp_type = atoi(optarg); break;
		case 'z': o.size = atoi(optarg); break;
		case 'w': settle = atoi(optarg); break;
		default: return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "usage: tapio TAP [--peer TAP] [--count N] [--block] [frame options]\n");
		return 2;
	}
	fd = open_tap(argv[optind], block);
	if (peer)
		peer_fd = open_tap(peer, false);
	probe = open_stack_probe(argv[optind]);
	for (uint32_t seq = 0; sent < count; seq++) {
		size_t len = build_frame(&o, frame, seq);

		if (write(fd, frame, len) != (ssize_t)len) {
			if (errno == EAGAIN)
				continue;
			fprintf(stderr, "tapio: write: %s\n", strerror(errno));
			return 2;
		}
		sent++;
		/* Keep the readers' queues short so nothing is lost to overflow. */
		tx += drain(fd);
		redirected += drain(peer_fd);
		passed += drain(probe);
	}
	for (idle_since = now_ms(); now_ms() - idle_since < settle;) {
		long n = drain(fd), r = drain(peer_fd), p = drain(probe);

		tx += n;
		redirected += r;
		passed += p;
		if (n || r || p)
			idle_since = now_ms();
		else
			usleep(1000);
	}
	printf("sent %ld tx %ld redirect %ld pass %ld\n", sent, tx, redirected, passed);
	return 0;
}
