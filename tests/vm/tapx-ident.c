// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-ident - what suite-ident.sh and suite-vnet.sh ask of a tun or tapx
 * device beyond ip, ethtool and sysfs:
 *
 *   tapx-ident hold NODE NAME FLAGS QUEUES DETACH
 *       attach QUEUES fds to NAME with TUNSETIFF FLAGS (a number), detach
 *       the last DETACH of them (TUNSETQUEUE), print "holding", and keep
 *       them until killed
 *   tapx-ident nl NAME
 *       the link's kind and IFLA_INFO_DATA as rtnetlink returns them, one
 *       line: "kind=K" then "attr=value" for each IFLA_TUN_* in order
 *   tapx-ident uso NODE NAME COUNT
 *       write COUNT IPv4/UDP frames of 8000 bytes of payload, each behind a
 *       vnet header asking for UDP segmentation (GSO_UDP_L4, gso_size
 *       1000), to 10.99.0.1:9999, which a UDP socket here is bound to; print
 *       "writes=N err=E udp=N bytes=N self=N": the writes that succeeded,
 *       the first write's errno name (0 if none failed), the datagrams and
 *       bytes the socket received, the frames read back from the tap
 *   tapx-ident gso NODE NAME
 *       write one IPv4/TCP frame of 3000 bytes of payload behind a vnet
 *       header asking for TCP segmentation (GSO_TCPV4, gso_size 1000)
 *       without a partial checksum, which the kernel probes for its
 *       protocol, to a tap with IFF_VNET_HDR; print "write=N|ERR seen=N
 *       len=N": the write's result, how many frames of that length an
 *       AF_PACKET socket on the tap saw arrive, and the first one's length
 *   tapx-ident hdrtail NODE NAME
 *       attach to NAME with IFF_VNET_HDR and a 20-byte vnet header, send
 *       one frame into it through an AF_PACKET socket, read it into a
 *       buffer filled with 0xff; print "len=N tail=HEX": what read()
 *       returned and the header's bytes after struct virtio_net_hdr
 *   tapx-ident bp NODE NAME FLAGS COUNT [noread]
 *       attach to NAME (IFF_TAP|IFF_NO_PI|FLAGS, e.g. 0x80 for
 *       IFF_BACKPRESSURE), send COUNT frames of 100 bytes into it through
 *       an AF_PACKET socket without reading, then read everything (with
 *       noread: nothing, and leave); print "features=0x.. sent=N got=N":
 *       the node's TUNGETFEATURES, the frames the stack took, the frames
 *       read back
 *   tapx-ident tnl NODE NAME HDRSZ OFFLOAD [PEER]
 *       attach to NAME (and PEER) with IFF_VNET_HDR, TUNSETVNETHDRSZ HDRSZ
 *       and TUNSETOFFLOAD OFFLOAD (a number); write to NAME one
 *       VXLAN-over-UDPv4 frame carrying a TCPv4 segment of 3000 bytes of
 *       payload behind a struct virtio_net_hdr_v1_hash_tunnel asking for
 *       GSO over the UDP tunnel (gso_type UDP_TUNNEL_IPV4|TCPV4, gso_size
 *       1000, NEEDS_CSUM at the inner TCP checksum, the outer transport
 *       and inner network header offsets); print "offload=0|ERR
 *       write=N|ERR seen=N
 *       vnet=FLAGS/GSO_TYPE/HDR_LEN/GSO_SIZE/CSUM_START/CSUM_OFFSET": how
 *       TUNSETOFFLOAD ended (for NAME and PEER alike), the write's result, how many frames of its length an AF_PACKET socket
 *       with PACKET_VNET_HDR on NAME saw arrive, and the first one's vnet
 *       header. With PEER (bridged with NAME by the caller), then
 *       " read=N|ERR hdr=F/G/HL/GS/CS/CO/OUTER_TH/INNER_NH": the first
 *       read of PEER that returns that frame (or fails), and its header
 *       (PEER:SZ: PEER's header is SZ bytes, not HDRSZ).
 *       With "submit" for PEER (tapx), the frame goes by TAPXSUBMIT after
 *       a short one (150 bytes of payload, gso_size 100), and "write=N" is
 *       "submit=RET/DONE/STATUS0/STATUS1", then " seen_short=N
 *       vnet_short=..." for the short one
 * Exit status: 0, or 1 when something could not be set up.
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <linux/if_link.h>
#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <sys/uio.h>

#include "tapx-test.h"
#include <linux/tapx.h>

#define USO_PAYLOAD 8000
#define USO_GSO 1000
#define USO_PORT FRAME_PORT
#define TNL_PAYLOAD 3000
/* A frame TAPXSUBMIT copies with the short ones (up to 256 bytes). */
#define TNL_SHORT_PAYLOAD 150
#define TNL_SHORT_LEN (TNL_INNER_TH + 20 + TNL_SHORT_PAYLOAD)

static int cmd_hold(char **argv)
{
	int flags = strtol(argv[4], NULL, 0), n = atoi(argv[5]);
	int detach = atoi(argv[6]), fds[16], i;

	if (n < 1 || n > 16 || detach > n)
		return 2;
	for (i = 0; i < n; i++) {
		fds[i] = tap_open(argv[2], argv[3], flags, 0);
		if (fds[i] < 0) {
			fprintf(stderr, "hold: attach %s: %s\n", argv[3],
				strerror(-fds[i]));
			return 1;
		}
	}
	for (i = n - detach; i < n; i++) {
		struct ifreq ifr = { .ifr_flags = IFF_DETACH_QUEUE };

		if (ioctl(fds[i], TUNSETQUEUE, &ifr) < 0) {
			perror("hold: TUNSETQUEUE");
			return 1;
		}
	}
	printf("holding\n");
	fflush(stdout);
	for (;;)
		pause();
}

static const char *const tun_attr[] = {
	[IFLA_TUN_OWNER] = "owner",
	[IFLA_TUN_GROUP] = "group",
	[IFLA_TUN_TYPE] = "type",
	[IFLA_TUN_PI] = "pi",
	[IFLA_TUN_VNET_HDR] = "vnet_hdr",
	[IFLA_TUN_PERSIST] = "persist",
	[IFLA_TUN_MULTI_QUEUE] = "multi_queue",
	[IFLA_TUN_NUM_QUEUES] = "num_queues",
	[IFLA_TUN_NUM_DISABLED_QUEUES] = "num_disabled_queues",
};

/* One IFLA_TUN_* attribute: its name and value (u8 or u32 by length). */
static void print_tun_attr(struct rtattr *a)
{
	unsigned int t = a->rta_type & NLA_TYPE_MASK, v;
	const char *name = t < sizeof(tun_attr) / sizeof(tun_attr[0]) &&
					   tun_attr[t] ?
				   tun_attr[t] :
				   "unknown";

	v = RTA_PAYLOAD(a) == 1 ? *(uint8_t *)RTA_DATA(a) :
				  *(uint32_t *)RTA_DATA(a);
	printf(" %s(%u)=%u", name, (unsigned int)RTA_PAYLOAD(a), v);
}

static void print_linkinfo(struct rtattr *li)
{
	int len = RTA_PAYLOAD(li);
	struct rtattr *a, *d;

	for (a = RTA_DATA(li); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		int dlen = RTA_PAYLOAD(a);

		switch (a->rta_type & NLA_TYPE_MASK) {
		case IFLA_INFO_KIND:
			printf("kind=%.*s", (int)RTA_PAYLOAD(a),
			       (char *)RTA_DATA(a));
			break;
		case IFLA_INFO_DATA:
			for (d = RTA_DATA(a); RTA_OK(d, dlen);
			     d = RTA_NEXT(d, dlen))
				print_tun_attr(d);
			break;
		}
	}
}

static int cmd_nl(const char *name)
{
	static char buf[65536];
	struct nlreq r;
	struct nlmsghdr *nh;
	int s, n, found = 0;

	s = socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
	if (s < 0)
		return 1;
	nl_init(&r, RTM_GETLINK, name);
	r.nh.nlmsg_flags = NLM_F_REQUEST;
	if (send(s, &r, r.nh.nlmsg_len, 0) < 0)
		return 1;
	n = recv(s, buf, sizeof(buf), 0);
	for (nh = (struct nlmsghdr *)buf; n > 0 && NLMSG_OK(nh, n);
	     nh = NLMSG_NEXT(nh, n)) {
		struct ifinfomsg *ifi = NLMSG_DATA(nh);
		struct rtattr *a = IFLA_RTA(ifi);
		int alen = IFLA_PAYLOAD(nh);

		if (nh->nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr *e = NLMSG_DATA(nh);

			printf("error=%s\n", strerrorname_np(-e->error));
			return 1;
		}
		if (nh->nlmsg_type != RTM_NEWLINK)
			continue;
		for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen))
			if (a->rta_type == IFLA_LINKINFO) {
				print_linkinfo(a);
				found = 1;
			}
	}
	printf("%s\n", found ? "" : "no IFLA_LINKINFO");
	close(s);
	return !found;
}

/*
 * An Ethernet/IPv4/UDP frame to @mac, 10.99.0.2:9998 -> 10.99.0.1:9999,
 * the UDP checksum field holding the pseudo header's sum, as a partial
 * checksum (NEEDS_CSUM) has it. Returns its length.
 */
static int uso_frame(uint8_t *f, const uint8_t *mac, uint32_t seq)
{
	int udplen = 8 + USO_PAYLOAD, iplen = 20 + udplen, i;
	uint8_t *ip = f + 14, *udp;
	uint32_t sum;

	udp = frame_ip4_head(f, mac, IPPROTO_UDP, iplen);
	udp[4] = udplen >> 8;
	udp[5] = udplen & 0xff;
	for (i = 0; i < USO_PAYLOAD; i++)
		udp[8 + i] = (uint8_t)(seq + i);
	/* The pseudo header: addresses, protocol, UDP length. */
	sum = frame_csum_add(0, ip + 12, 8) + IPPROTO_UDP + udplen;
	sum = frame_csum_fold(sum);
	udp[6] = sum >> 8;
	udp[7] = sum & 0xff;
	return 14 + iplen;
}

/* Reads what arrives on @fd until 500 ms pass without any; frames, bytes. */
static long drain(int fd, long *bytes)
{
	static uint8_t b[70000];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long n = 0;
	int r;

	while (poll(&p, 1, 500) > 0) {
		r = read(fd, b, sizeof(b));
		if (r < 0)
			break;
		n++;
		if (bytes)
			*bytes += r;
	}
	return n;
}

static int cmd_uso(char **argv)
{
	static uint8_t f[14 + 28 + USO_PAYLOAD];
	struct virtio_net_hdr vh = {
		.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
		.gso_type = 5, /* VIRTIO_NET_HDR_GSO_UDP_L4, 6.2 on */
		.hdr_len = 14 + 28,
		.gso_size = USO_GSO,
		.csum_start = 14 + 20,
		.csum_offset = 6,
	};
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(USO_PORT) };
	long count = atol(argv[4]), i, writes = 0, udp, self, bytes = 0;
	int s, fd, len, err = 0, rcvbuf = 8 << 20;
	struct ifreq ifr = { 0 };

	s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	inet_pton(AF_INET, "10.99.0.1", &sin.sin_addr);
	if (s < 0 || bind(s, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		perror("uso: bind 10.99.0.1:9999");
		return 1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
		      O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "uso: attach %s: %s\n", argv[3], strerror(-fd));
		return 1;
	}
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[3]);
	if (ioctl(s, SIOCGIFHWADDR, &ifr) < 0) {
		perror("uso: SIOCGIFHWADDR");
		return 1;
	}
	for (i = 0; i < count; i++) {
		struct iovec iov[2] = { { &vh, sizeof(vh) }, { f, 0 } };

		len = uso_frame(f, (uint8_t *)ifr.ifr_hwaddr.sa_data, i);
		iov[1].iov_len = len;
		if (writev(fd, iov, 2) == (ssize_t)(sizeof(vh) + len))
			writes++;
		else if (!err)
			err = errno;
	}
	udp = drain(s, &bytes);
	self = drain(fd, NULL);
	printf("writes=%ld err=%s udp=%ld bytes=%ld self=%ld\n", writes,
	       err ? strerrorname_np(err) : "0", udp, bytes, self);
	close(fd);
	close(s);
	return 0;
}

/*
 * An Ethernet/IPv4/TCP frame to @mac, 10.99.0.2:9998 -> 10.99.0.1:9999,
 * with @payload bytes of data and no checksum filled in (GSO without
 * NEEDS_CSUM: the segments' checksums are left to the receiver's check).
 * Returns its length.
 */
static int gso_frame(uint8_t *f, const uint8_t *mac, int payload)
{
	int iplen = 20 + 20 + payload;
	uint8_t *tcp = frame_ip4_head(f, mac, IPPROTO_TCP, iplen);

	memset(tcp + 4, 0, 16);
	tcp[12] = 5 << 4; /* data offset: 20 bytes */
	tcp[13] = 0x18;	  /* PSH, ACK */
	tcp[15] = 0xff;	  /* window */
	memset(tcp + 20, 0x5a, payload);
	return 14 + iplen;
}

/* A write's result as the commands print it: its count or errno's name. */
static void result_name(char *res, size_t size, ssize_t w)
{
	if (w < 0)
		snprintf(res, size, "%s", strerrorname_np(errno));
	else
		snprintf(res, size, "%zd", w);
}

/*
 * The next frame an AF_PACKET socket sees arrive (not sent) within 500 ms,
 * its length; -1 when none does.
 */
static int packet_next_in(int s, uint8_t *b, size_t size)
{
	struct pollfd p = { .fd = s, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t fl;
	int n;

	while (poll(&p, 1, 500) > 0) {
		fl = sizeof(from);
		n = recvfrom(s, b, size, MSG_DONTWAIT, (void *)&from, &fl);
		if (n < 0)
			return -1;
		if (from.sll_pkttype != PACKET_OUTGOING)
			return n;
	}
	return -1;
}

static int cmd_gso(char **argv)
{
	static uint8_t f[14 + 40 + 3000], b[8192];
	struct virtio_net_hdr vh = {
		.gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
		.hdr_len = 14 + 40,
		.gso_size = 1000,
	};
	struct ifreq ifr = { 0 };
	int fd, s, len, n, seen = 0, first = 0;
	char res[32];
	ssize_t w;

	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
		      O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "gso: attach %s: %s\n", argv[3], strerror(-fd));
		return 1;
	}
	if (if_up(argv[3], 1) < 0 || if_wait_tx_ready(argv[3], 2000) < 0) {
		fprintf(stderr, "gso: %s does not come up\n", argv[3]);
		return 1;
	}
	s = packet_open(argv[3]);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[3]);
	if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr) < 0) {
		perror("gso: packet socket on the tap");
		return 1;
	}
	len = gso_frame(f, (uint8_t *)ifr.ifr_hwaddr.sa_data, 3000);
	{
		struct iovec iov[2] = { { &vh, sizeof(vh) }, { f, len } };

		w = writev(fd, iov, 2);
	}
	result_name(res, sizeof(res), w);
	while ((n = packet_next_in(s, b, sizeof(b))) >= 0) {
		if (n == len && !seen++)
			first = n;
	}
	printf("write=%s seen=%d len=%d\n", res, seen, first);
	close(s);
	close(fd);
	return 0;
}

/* Attaches to @name; *offload_err is TUNSETOFFLOAD's errno, 0 if none. */
static int tnl_attach(const char *node, const char *name, int hdrsz,
		      unsigned int offload, int *offload_err)
{
	int fd = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
			  O_NONBLOCK);

	if (fd < 0) {
		fprintf(stderr, "tnl: attach %s: %s\n", name, strerror(-fd));
		return -1;
	}
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdrsz) < 0) {
		fprintf(stderr, "tnl: %s: TUNSETVNETHDRSZ %d: %s\n", name,
			hdrsz, strerror(errno));
		return -1;
	}
	*offload_err = ioctl(fd, TUNSETOFFLOAD, offload) < 0 ? errno : 0;
	if (if_up(name, 1) < 0 || if_wait_tx_ready(name, 2000) < 0) {
		fprintf(stderr, "tnl: %s does not come up\n", name);
		return -1;
	}
	return fd;
}

static void tnl_print_hdr(const struct virtio_net_hdr *h)
{
	printf("%u/0x%x/%u/%u/%u/%u", h->flags, h->gso_type, h->hdr_len,
	       h->gso_size, h->csum_start, h->csum_offset);
}

static int cmd_tnl(char **argv)
{
	static uint8_t f[14 + 20 + 16 + 14 + 40 + TNL_PAYLOAD], b[16384];
	int hdrsz = atoi(argv[4]), one = 1, fd, peer = -1, s, len, n;
	int peer_sz = hdrsz;
	unsigned int offload = strtoul(argv[5], NULL, 0);
	struct tnl_vnet vh = tnl_vnet_hdr(1000);
	struct virtio_net_hdr seen_h = { 0 };
	struct ifreq ifr = { 0 };
	struct pollfd p;
	int seen = 0, seen_short = 0, offload_err;
	int submit = argv[6] && !strcmp(argv[6], "submit");
	struct virtio_net_hdr short_h = { 0 };
	char res[32];
	ssize_t w;

	fd = tnl_attach(argv[2], argv[3], hdrsz, offload, &offload_err);
	if (fd < 0)
		return 1;
	if (argv[6] && !submit) {
		char *colon = strchr(argv[6], ':');

		/* PEER:SZ: the peer's header size, read with it. */
		if (colon) {
			*colon = 0;
			peer_sz = atoi(colon + 1);
		}
		peer = tnl_attach(argv[2], argv[6], peer_sz, offload,
				  &offload_err);
		if (peer < 0)
			return 1;
	}
	s = packet_open(argv[3]);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", argv[3]);
	if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr) < 0 ||
	    setsockopt(s, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
		perror("tnl: packet socket with PACKET_VNET_HDR on the tap");
		return 1;
	}
	/* To an address neither tap has: a bridge floods it to PEER. */
	len = tnl_frame(f, (const uint8_t *)"\x02\0\0\0\0\x01", TNL_PAYLOAD);
	if (submit) {
		/*
		 * A short frame first (TAPXSUBMIT's run of short copies), then
		 * this one (its per-frame copy), each behind a 24-byte header.
		 */
		static uint8_t sf[TNL_SHORT_LEN + sizeof(vh)], lf[sizeof(f) + sizeof(vh)];
		struct tapx_desc d[2] = {
			{ (uintptr_t)sf, sizeof(vh) + TNL_SHORT_LEN, 0 },
			{ (uintptr_t)lf, sizeof(vh) + len, 0 },
		};
		struct tapx_batch bt = { .descs = (uintptr_t)d, .count = 2 };
		struct tnl_vnet svh = tnl_vnet_hdr(100);

		memcpy(sf, &svh, sizeof(svh));
		tnl_frame(sf + sizeof(svh), (const uint8_t *)"\x02\0\0\0\0\x01",
			  TNL_SHORT_PAYLOAD);
		memcpy(lf, &vh, sizeof(vh));
		memcpy(lf + sizeof(vh), f, len);
		n = ioctl(fd, TAPXSUBMIT, &bt);
		snprintf(res, sizeof(res), "%s/%u/%s/%s",
			 n < 0 ? strerrorname_np(errno) : "0", bt.done,
			 d[0].status ? strerrorname_np(-d[0].status) : "0",
			 d[1].status ? strerrorname_np(-d[1].status) : "0");
		w = 0;
	} else {
		struct iovec iov[2] = { { &vh, hdrsz }, { f, len } };
		static uint8_t big[4096];

		/* A header larger than the struct: zeros after it. */
		if (hdrsz > (int)sizeof(vh)) {
			memcpy(big, &vh, sizeof(vh));
			iov[0].iov_base = big;
		}
		w = writev(fd, iov, 2);
	}
	if (!submit)
		result_name(res, sizeof(res), w);
	while ((n = packet_next_in(s, b, sizeof(b))) >= 0) {
		if (n == (int)sizeof(seen_h) + TNL_SHORT_LEN && !seen_short++)
			memcpy(&short_h, b, sizeof(short_h));
		if (n != (int)sizeof(seen_h) + len)
			continue;
		if (!seen++)
			memcpy(&seen_h, b, sizeof(seen_h));
	}
	printf("offload=%s %s=%s seen=%d vnet=",
	       offload_err ? strerrorname_np(offload_err) : "0",
	       submit ? "submit" : "write", res, seen);
	tnl_print_hdr(&seen_h);
	if (submit) {
		printf(" seen_short=%d vnet_short=", seen_short);
		tnl_print_hdr(&short_h);
	}
	if (peer >= 0) {
		struct tnl_vnet rh = { 0 };

		snprintf(res, sizeof(res), "none");
		p = (struct pollfd){ .fd = peer, .events = POLLIN };
		while (poll(&p, 1, 1000) > 0) {
			n = read(peer, b, sizeof(b));
			if (n < 0) {
				snprintf(res, sizeof(res), "%s",
					 strerrorname_np(errno));
				break;
			}
			if (n != peer_sz + len)
				continue;
			snprintf(res, sizeof(res), "%d", n);
			memcpy(&rh, b, peer_sz < (int)sizeof(rh) ? (size_t)peer_sz : sizeof(rh));
			break;
		}
		printf(" read=%s hdr=", res);
		tnl_print_hdr(&rh.h);
		printf("/%u/%u", rh.outer_th, rh.inner_nh);
		close(peer);
	}
	printf("\n");
	close(s);
	close(fd);
	return 0;
}

static int cmd_hdrtail(char **argv)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	struct pollfd p;
	uint8_t f[100], b[2048];
	int fd, s, hlen = 20, n = -1, i;

	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR,
		      O_NONBLOCK);
	if (fd < 0 || ioctl(fd, TUNSETVNETHDRSZ, &hlen) < 0) {
		fprintf(stderr, "hdrtail: attach %s, TUNSETVNETHDRSZ 20: %s\n",
			argv[3], strerror(fd < 0 ? -fd : errno));
		return 1;
	}
	s = socket(AF_PACKET, SOCK_RAW, 0);
	to.sll_ifindex = if_nametoindex(argv[3]);
	if (s < 0 || if_up(argv[3], 1) < 0 ||
	    if_wait_tx_ready(argv[3], 2000) < 0) {
		fprintf(stderr, "hdrtail: %s not up, or no packet socket\n",
			argv[3]);
		return 1;
	}
	memset(to.sll_addr, 0xff, 6);
	test_frame(f, sizeof(f), 1);
	if (sendto(s, f, sizeof(f), 0, (void *)&to, sizeof(to)) != sizeof(f)) {
		perror("hdrtail: send");
		return 1;
	}
	/* The frame sent, not what the kernel itself sends on a new link. */
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (poll(&p, 1, 1000) > 0) {
		memset(b, 0xff, sizeof(b));
		n = read(fd, b, sizeof(b));
		if (n == hlen + (int)sizeof(f) && !memcmp(b + hlen, f, sizeof(f)))
			break;
		n = -1;
	}
	printf("len=%d tail=", n);
	for (i = 10; i < hlen; i++)
		printf("%02x", b[i]);
	printf("\n");
	close(s);
	close(fd);
	return 0;
}

/*
 * Frames @name's qdiscs hold (tc -s's backlog), 0 without any; -1 if tc
 * cannot say.
 */
static long qdisc_backlog(const char *name)
{
	char cmd[64 + IFNAMSIZ], line[256], *b;
	long n = 0, p;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "/bin/tc -s qdisc show dev %s", name);
	f = popen(cmd, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if ((b = strstr(line, "backlog ")) &&
		    sscanf(b, "backlog %*s %ldp", &p) == 1)
			n += p;
	return pclose(f) ? -1 : n;
}

/*
 * Until the stack really transmits on @name: probe frames (another
 * ethertype, so that the count below never sees them) sent until one is
 * read. A busy guest can still have the noop qdisc of a carrier that was
 * off after if_wait_tx_ready(), which takes frames without a trace
 * (sendto() succeeds, no counter moves), so a burst sent then would lose
 * its first frames. 0, or -1 after 10 s.
 */
static int bp_wait_live(int s, int fd, const struct sockaddr_ll *to, const char *name)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	static uint8_t probe[100], b[2048];
	int i;

	test_frame(probe, sizeof(probe), 0);
	probe[13] ^= 1;
	/* A second for each probe: one that is late, not lost, is not sent again. */
	for (i = 0; i < 10; i++) {
		sendto(s, probe, sizeof(probe), MSG_DONTWAIT, (const void *)to, sizeof(*to));
		if (poll(&p, 1, 1000) <= 0)
			continue;
		/* Live: every probe still on its way is read before the burst. */
		do {
			while (read(fd, b, sizeof(b)) > 0)
				;
		} while (poll(&p, 1, 1000) > 0);
		return 0;
	}
	fprintf(stderr, "bp: %s: no probe frame came through in 10 s\n", name);
	return -1;
}

/*
 * Frames the stack sends into the tap faster than the reader reads: all
 * COUNT are sent before the first read. What the reader then gets tells a
 * queue that stopped (IFF_BACKPRESSURE with a qdisc: everything) from a
 * ring that dropped (one ring's worth).
 */
static int cmd_bp(char **argv)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	int flags = strtol(argv[4], NULL, 0), count = atoi(argv[5]);
	int noread = argv[6] && !strcmp(argv[6], "noread"), idle = 0;
	int fd, s, i, sent = 0, sz = 64 << 20, n;
	unsigned int features = 0;
	static uint8_t f[100], b[2048];
	struct pollfd p;
	long got = 0;

	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | flags, O_NONBLOCK);
	if (fd < 0) {
		fprintf(stderr, "bp: attach %s: %s\n", argv[3], strerror(-fd));
		return 1;
	}
	if (ioctl(fd, TUNGETFEATURES, &features) < 0) {
		perror("bp: TUNGETFEATURES");
		return 1;
	}
	if (if_wait_tx_ready(argv[3], 2000) < 0) {
		fprintf(stderr, "bp: %s is not up\n", argv[3]);
		return 1;
	}
	/* Protocol 0: this socket sends only, and never reads its own frames. */
	s = socket(AF_PACKET, SOCK_RAW, 0);
	to.sll_ifindex = if_nametoindex(argv[3]);
	if (s < 0 || !to.sll_ifindex) {
		perror("bp: packet socket");
		return 1;
	}
	/* Frames held by the qdisc stay charged to the sender. */
	setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	memset(to.sll_addr, 0xff, 6);
	/* A reader that reads, so that what it gets counts every frame. */
	if (!noread && bp_wait_live(s, fd, &to, argv[3]) < 0)
		return 1;
	for (i = 0; i < count; i++) {
		test_frame(f, sizeof(f), i);
		if (sendto(s, f, sizeof(f), MSG_DONTWAIT, (void *)&to,
			   sizeof(to)) == sizeof(f))
			sent++;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (!noread) {
		n = read(fd, b, sizeof(b));
		if (n < 0) {
			if (errno != EAGAIN)
				break;
			/*
			 * Done when a second passes with nothing to read and
			 * the qdisc holds nothing more (a busy guest's softirq
			 * may take that long to hand it on), or after 30 s.
			 */
			if (poll(&p, 1, 1000) <= 0 &&
			    (qdisc_backlog(argv[3]) <= 0 || ++idle >= 30))
				break;
			continue;
		}
		if (n >= 14 && b[12] == ETHERTYPE_TEST >> 8 &&
		    b[13] == (ETHERTYPE_TEST & 0xff))
			got++;
	}
	printf("features=0x%x sent=%d got=%ld\n", features, sent, got);
	close(s);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 7 && !strcmp(argv[1], "hold"))
		return cmd_hold(argv);
	if (argc == 3 && !strcmp(argv[1], "nl"))
		return cmd_nl(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "uso"))
		return cmd_uso(argv);
	if (argc == 4 && !strcmp(argv[1], "gso"))
		return cmd_gso(argv);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "tnl"))
		return cmd_tnl(argv);
	if (argc == 4 && !strcmp(argv[1], "hdrtail"))
		return cmd_hdrtail(argv);
	if ((argc == 6 || argc == 7) && !strcmp(argv[1], "bp"))
		return cmd_bp(argv);
	fprintf(stderr, "usage: see the comment at the top of tapx-ident.c\n");
	return 2;
}
