// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-napi - real IPv4 traffic written into a tap, received by the local
 * stack: the checks of suite-napi.sh and its measurement. Static, for the VM.
 * The device must be up with an IPv4 address (the local end); the peer is
 * that address + 1 with MAC 02:00:00:00:00:02 (the suite adds the
 * neighbour entry).
 *
 *   tapx-napi udp NODE NAME SIZE COUNT [--napi-id 0|1] [--hold 1]
 *       COUNT frames of SIZE bytes (UDP to a socket on the local address);
 *       each must arrive once, in order, intact. --napi-id 1: the socket saw
 *       a NAPI id (delivered by NAPI), 0: it saw none. --hold 1: all are
 *       written before any is read, so the socket still holds the buffers
 *       of the first while the last are written into new ones.
 *   tapx-napi tcp NODE NAME SEGS [--gso K] [--merged 0|1]
 *       a TCP connection to a local listener; SEGS MSS-sized segments of
 *       data (as frames of K segments with a TCPv4 GSO vnet header when
 *       --gso), within the advertised window. Checks that the socket reads
 *       every byte in order; counts the skbs a packet socket on NAME sees.
 *       --merged 1: fewer skbs than frames written (GRO merged), 0: as many.
 *   tapx-napi hold NODE NAME SEGS [--linger S] [--seen-below N]
 *       writes SEGS segments of one TCP flow (no listener needed) and
 *       closes: with gro_flush_timeout set, GRO still holds them.
 *   tapx-napi bench NODE NAME SIZE COUNT [--tun-napi]
 *       ns per blocking write() of a UDP frame to a local port with no
 *       socket; prints "ns failed_writes". --tun-napi: attach with IFF_NAPI.
 * PASS/FAIL lines; exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tapx-test.h"

#ifndef SO_INCOMING_NAPI_ID
#define SO_INCOMING_NAPI_ID 56
#endif

#define MAXF	  65535
#define VNET_SZ	  ((int)sizeof(struct virtio_net_hdr))
#define MSS	  1448
#define PORT	  7000
#define PEER_PORT 40000

static const uint8_t peer_mac[6] = {2, 0, 0, 0, 0, 2};
static uint8_t dev_mac[6];
static uint32_t local_ip, peer_ip; /* network order */



/* The device's MAC and IPv4 address; the peer is the next address. */
static int dev_info(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	r = ioctl(s, SIOCGIFHWADDR, &ifr);
	if (!r)
		memcpy(dev_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (!r)
		r = ioctl(s, SIOCGIFADDR, &ifr);
	if (!r) {
		local_ip =
			((struct sockaddr_in *)&ifr.ifr_addr)->sin_addr.s_addr;
		peer_ip = htonl(ntohl(local_ip) + 1);
	}
	close(s);
	if (r)
		fprintf(stderr, "%s: no MAC or IPv4 address\n", name);
	return r;
}

static uint32_t csum_add(uint32_t sum, const void *p, int len)
{
	const uint8_t *b = p;
	int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (b[i] << 8) | b[i + 1];
	if (len & 1)
		sum += b[len - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Pseudo header sum (not folded, not inverted). */
static uint32_t csum_pseudo(int proto, int l4len)
{
	uint32_t sum = 0;

	sum = csum_add(sum, &peer_ip, 4);
	sum = csum_add(sum, &local_ip, 4);
	return sum + proto + l4len;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static uint16_t get16(const uint8_t *p)
{
	return (p[0] << 8) | p[1];
}

static uint32_t get32(const uint8_t *p)
{
	return ((uint32_t)get16(p) << 16) | get16(p + 2);
}

/* Ethernet + IPv4 (peer -> local) headers; returns the L4 offset. */
static int put_eth_ip(uint8_t *f, int proto, int l4len)
{
	static uint16_t id;
	uint8_t *ip = f + 14;

	memcpy(f, dev_mac, 6);
	memcpy(f + 6, peer_mac, 6);
	put16(f + 12, ETH_P_IP);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, 20 + l4len);
	put16(ip + 4, id++);
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &peer_ip, 4);
	memcpy(ip + 16, &local_ip, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	return 34;
}

/* A UDP frame of SIZE bytes to PORT carrying SEQ and a pattern. */
static void udp_frame(uint8_t *f, int size, uint32_t seq, int port)
{
	int l4 = put_eth_ip(f, IPPROTO_UDP, size - 34), i;
	uint8_t *u = f + l4;

	put16(u, PEER_PORT);
	put16(u + 2, port);
	put16(u + 4, size - 34);
	put16(u + 6, 0); /* no checksum (IPv4) */
	for (i = 42; i < size; i++)
		f[i] = (uint8_t)(seq * 7 + i);
	if (size >= 46)
		memcpy(f + 42, &seq, 4);
}

static uint8_t pattern(uint64_t off)
{
	return (uint8_t)(off % 251);
}

/* ---- udp ---- */

static int cmd_udp(int argc, char **argv)
{
	static uint8_t f[MAXF], r[MAXF];
	int size = atoi(argv[4]), want_id = -1, hold = 0, fd, s, sz = 64 << 20, i;
	long count = atol(argv[5]), n, got = 0, bad = 0, next = 0;
	struct sockaddr_in a = {.sin_family = AF_INET};
	unsigned int napi_id = 0;
	socklen_t il = sizeof(napi_id);

	for (i = 6; i + 1 < argc; i += 2)
		if (!strcmp(argv[i], "--napi-id"))
			want_id = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold"))
			hold = atoi(argv[i + 1]);
	if (size < 46 || size > MAXF || dev_info(argv[3]))
		return 2;

	s = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	a.sin_addr.s_addr = local_ip;
	a.sin_port = htons(PORT);
	if (bind(s, (void *)&a, sizeof(a)) < 0) {
		perror("bind");
		return 1;
	}
	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI, 0);
	if (fd < 0) {
		perror("attach");
		return 1;
	}

	for (i = 0; i <= count; i++) {
		int wait = i == count ? 500 : 0;
		struct pollfd p = {.fd = s, .events = POLLIN};

		if (i < count) {
			udp_frame(f, size, i, PORT);
			if (write(fd, f, size) != size)
				bad++;
		}
		/* Drain as we go so the socket buffer never overflows. */
		while ((!hold || i == count) && poll(&p, 1, wait) == 1) {
			uint32_t seq;

			n = recv(s, r, sizeof(r), MSG_DONTWAIT);
			if (n < 0)
				break;
			memcpy(&seq, r, 4);
			udp_frame(f, size, seq, PORT);
			if (n == size - 42 && seq == next &&
			    !memcmp(r, f + 42, n))
				got++;
			else
				bad++;
			next = seq + 1;
		}
	}
	getsockopt(s, SOL_SOCKET, SO_INCOMING_NAPI_ID, &napi_id, &il);
	check(got == count && !bad,
	      "udp %s %d B%s: socket got %ld of %ld in order, %ld bad", argv[3],
	      size, hold ? ", all held" : "", got, count, bad);
	if (want_id >= 0)
		check(!!napi_id == want_id, "udp %s %d B: NAPI id %u (want %s)",
		      argv[3], size, napi_id, want_id ? "non-zero" : "0");
	close(fd);
	close(s);
	return failures ? 1 : 0;
}

/* ---- tcp ---- */

struct flow {
	int fd;		   /* tap, with IFF_VNET_HDR */
	uint32_t iss, irs; /* our and the listener's initial sequence */
	int wscale;	   /* the listener's window scale */
};

/* Writes one TCP segment (PLEN bytes from stream offset OFF) as a frame. */
static int tcp_write(struct flow *fl, int flags, uint32_t seq, uint32_t ack,
		     const uint8_t *opt, int optlen, uint64_t off, int plen,
		     int gso)
{
	static uint8_t buf[VNET_SZ + MAXF];
	struct virtio_net_hdr *vh = (void *)buf;
	uint8_t *f = buf + VNET_SZ, *t;
	int hl = 20 + optlen, l4 = put_eth_ip(f, IPPROTO_TCP, hl + plen), i;

	memset(vh, 0, sizeof(*vh));
	t = f + l4;
	memset(t, 0, hl);
	put16(t, PEER_PORT);
	put16(t + 2, PORT);
	put32(t + 4, seq);
	put32(t + 8, ack);
	t[12] = (hl / 4) << 4;
	t[13] = flags;
	put16(t + 14, 65535);
	memcpy(t + 20, opt, optlen);
	for (i = 0; i < plen; i++)
		t[hl + i] = pattern(off + i);
	if (gso) {
		/* The writer leaves the checksum to the receiver's side. */
		vh->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		vh->gso_size = MSS;
		vh->hdr_len = l4 + hl;
		vh->csum_start = l4;
		vh->csum_offset = 16;
		put16(t + 16, ~csum_fold(csum_pseudo(IPPROTO_TCP, hl + plen)));
	} else {
		put16(t + 16,
		      csum_fold(csum_add(csum_pseudo(IPPROTO_TCP, hl + plen), t,
					 hl + plen)));
	}
	i = VNET_SZ + l4 + hl + plen;
	return write(fl->fd, buf, i) == i ? 0 : -1;
}

/* Reads the next TCP segment from the listener; returns its flags or -1. */
static int tcp_read(struct flow *fl, int wait_ms, uint32_t *seq, uint32_t *ack,
		    uint32_t *win, int *wscale)
{
	static uint8_t r[VNET_SZ + MAXF];
	struct pollfd p = {.fd = fl->fd, .events = POLLIN};
	uint8_t *f = r + VNET_SZ, *t;
	int n, ihl, i;

	for (;;) {
		if (poll(&p, 1, wait_ms) != 1)
			return -1;
		n = read(fl->fd, r, sizeof(r)) - VNET_SZ;
		if (n < 54 || get16(f + 12) != ETH_P_IP || f[23] != IPPROTO_TCP)
			continue;
		ihl = (f[14] & 15) * 4;
		t = f + 14 + ihl;
		if (get16(t) != PORT || get16(t + 2) != PEER_PORT)
			continue;
		*seq = get32(t + 4);
		*ack = get32(t + 8);
		*win = get16(t + 14);
		/* Options: only the window scale matters here. */
		for (i = 20; wscale && i < (t[12] >> 4) * 4;) {
			if (t[i] == 0)
				break;
			if (t[i] == 1) {
				i++;
				continue;
			}
			if (t[i] == 3)
				*wscale = t[i + 2];
			i += t[i + 1] ? t[i + 1] : 1;
		}
		return t[13];
	}
}

struct pstat {
	long skbs, bytes, gso_bad, errs;
	int err;
};

/* Counts the data skbs a packet socket on the device sees. */
static void packet_drain(int ps, struct pstat *st, int gso)
{
	static uint8_t r[VNET_SZ + MAXF + 64];
	struct sockaddr_ll from;
	socklen_t fl = sizeof(from);
	struct virtio_net_hdr *vh = (void *)r;
	uint8_t *f = r + VNET_SZ, *t;
	int n, ihl, plen;

	for (;;) {
		n = recvfrom(ps, r, sizeof(r), MSG_DONTWAIT, (void *)&from,
			     &fl);
		if (n < 0 && errno != EAGAIN) {
			/* The skb is gone (e.g. no vnet header for it). */
			st->errs++;
			st->err = errno;
			continue;
		}
		if (n < 0)
			return;
		n -= VNET_SZ;
		if (getenv("TAPX_NAPI_DEBUG"))
			fprintf(stderr,
				"pkt type %d len %d proto %d gso %d/%d\n",
				from.sll_pkttype, n, f[23], vh->gso_type,
				vh->gso_size);
		if (from.sll_pkttype == PACKET_OUTGOING || n < 54 ||
		    f[23] != IPPROTO_TCP)
			continue;
		ihl = (f[14] & 15) * 4;
		t = f + 14 + ihl;
		if (get16(t + 2) != PORT)
			continue;
		plen = get16(f + 16) - ihl - (t[12] >> 4) * 4;
		if (plen <= 0)
			continue;
		st->skbs++;
		st->bytes += plen;
		/*
		 * Larger than one segment: must still say how to cut it; a
		 * checksum left to do must start at the TCP header.
		 */
		if (gso && plen > MSS &&
		    (vh->gso_type != VIRTIO_NET_HDR_GSO_TCPV4 ||
		     vh->gso_size != MSS))
			st->gso_bad++;
		if (gso && (vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    (vh->csum_start != 14 + ihl || vh->csum_offset != 16))
			st->gso_bad++;
	}
}

static int packet_open_vnet(const char *name)
{
	struct sockaddr_ll sll = {.sll_family = AF_PACKET};
	int s, sz = 64 << 20, one = 1;

	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_IP));
	if (s < 0)
		return -1;
	setsockopt(s, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one));
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	sll.sll_protocol = htons(ETH_P_IP);
	sll.sll_ifindex = if_nametoindex(name);
	if (bind(s, (void *)&sll, sizeof(sll)) < 0) {
		close(s);
		return -1;
	}
	return s;
}

/* Reads what the listener's socket has; checks the byte pattern. */
static void sock_drain(int cs, uint64_t *rcvd, long *badbytes)
{
	static uint8_t r[1 << 16];
	int n, i;

	while ((n = recv(cs, r, sizeof(r), MSG_DONTWAIT)) > 0) {
		for (i = 0; i < n; i++)
			if (r[i] != pattern(*rcvd + i))
				(*badbytes)++;
		*rcvd += n;
	}
}

static int listener(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	int s = socket(AF_INET, SOCK_STREAM, 0), one = 1, sz = 16 << 20;

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	a.sin_addr.s_addr = local_ip;
	a.sin_port = htons(PORT);
	if (bind(s, (void *)&a, sizeof(a)) < 0 || listen(s, 4) < 0) {
		perror("listen");
		return -1;
	}
	return s;
}

/* SYN, SYN-ACK, ACK; returns the accepted socket or -1. */
static int handshake(struct flow *fl, int ls, uint32_t *win)
{
	static const uint8_t syn_opt[8] = {2, 4, MSS >> 8, MSS & 0xff,
					   1, 3, 3,	   7};
	uint32_t seq, ack;
	struct pollfd p = {.fd = ls, .events = POLLIN};
	int fl_, cs;

	fl->iss = 1000000;
	fl->wscale = 0;
	if (tcp_write(fl, 0x02, fl->iss, 0, syn_opt, 8, 0, 0, 0))
		return -1;
	do {
		fl_ = tcp_read(fl, 2000, &seq, &ack, win, &fl->wscale);
	} while (fl_ >= 0 && (fl_ & 0x12) != 0x12);
	if (fl_ < 0 || ack != fl->iss + 1) {
		fprintf(stderr, "tcp: no SYN-ACK\n");
		return -1;
	}
	fl->irs = seq;
	if (tcp_write(fl, 0x10, fl->iss + 1, fl->irs + 1, NULL, 0, 0, 0, 0))
		return -1;
	if (poll(&p, 1, 2000) != 1)
		return -1;
	cs = accept(ls, NULL, NULL);
	if (cs >= 0)
		fcntl(cs, F_SETFL, O_NONBLOCK);
	return cs;
}

static int cmd_tcp(int argc, char **argv)
{
	long segs = atol(argv[4]), frames = 0, rexmit = 0, badbytes = 0;
	int gso = 0, merged = -1, ls, cs, ps, i;
	uint64_t total, una = 0, nxt = 0, rcvd = 0;
	uint32_t win, seq, ack, w;
	struct pstat st = {0};
	struct flow fl;
	double last = now_ns(), start = last;

	for (i = 5; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--gso"))
			gso = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--merged"))
			merged = atoi(argv[i + 1]);
	}
	if (segs < 1 || gso < 0 || gso > 40 || dev_info(argv[3]))
		return 2;
	total = (uint64_t)segs * MSS;

	ls = listener();
	ps = packet_open_vnet(argv[3]);
	fl.fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 0);
	if (ls < 0 || ps < 0 || fl.fd < 0) {
		check(0, "tcp %s: setup", argv[3]);
		return 1;
	}
	cs = handshake(&fl, ls, &win);
	check(cs >= 0, "tcp %s: handshake", argv[3]);
	if (cs < 0)
		return 1;

	while (rcvd < total && now_ns() - start < 30e9) {
		/* Send what the window allows, each segment its own write. */
		while (nxt < total) {
			int plen = gso ? gso * MSS : MSS;

			if ((uint64_t)plen > total - nxt)
				plen = total - nxt;
			if (nxt + plen > una + win)
				break;
			/* ACK only: PSH would make GRO flush at once. */
			if (tcp_write(&fl, 0x10, fl.iss + 1 + nxt, fl.irs + 1,
				      NULL, 0, nxt, plen, gso))
				break;
			nxt += plen;
			frames++;
		}
		sock_drain(cs, &rcvd, &badbytes);
		packet_drain(ps, &st, gso);
		/* ACKs from the listener open the window. */
		while ((i = tcp_read(&fl, 5, &seq, &ack, &w, NULL)) >= 0) {
			uint64_t a = (uint32_t)(ack - fl.iss - 1);

			if (!(i & 0x10))
				continue;
			if (a > una) {
				una = a;
				last = now_ns();
			}
			win = w << fl.wscale;
		}
		/* Nothing acknowledged for 3 s (an emulated CPU on a busy host
		 * can be a second late): go back and resend. */
		if (una < nxt && now_ns() - last > 3e9) {
			nxt = una;
			rexmit++;
			last = now_ns();
		}
	}
	usleep(100000);
	sock_drain(cs, &rcvd, &badbytes);
	packet_drain(ps, &st, gso);
	/* Reset the connection so nothing lingers after the test. */
	tcp_write(&fl, 0x14, fl.iss + 1 + nxt, fl.irs + 1, NULL, 0, 0, 0, 0);

	check(rcvd == total && !badbytes,
	      "tcp %s%s: socket read %llu of %llu bytes, %ld bad", argv[3],
	      gso ? " gso" : "", (unsigned long long)rcvd,
	      (unsigned long long)total, badbytes);
	check(!rexmit, "tcp %s: %ld frames written, %ld resends", argv[3],
	      frames, rexmit);
	check(st.bytes == (long)total && !st.errs,
	      "tcp %s: packet socket saw %ld data bytes in %ld skbs, %ld "
	      "errors (%s)",
	      argv[3], st.bytes, st.skbs, st.errs, strerror(st.err));
	if (gso)
		check(!st.gso_bad,
		      "tcp %s gso: skbs over one MSS kept gso TCPv4/%d, "
		      "checksums start at TCP (%ld bad)",
		      argv[3], MSS, st.gso_bad);
	if (merged == 1)
		check(st.skbs < frames,
		      "tcp %s: GRO merged %ld frames into %ld skbs", argv[3],
		      frames, st.skbs);
	else if (merged == 0)
		check(st.skbs == frames,
		      "tcp %s: %ld frames -> %ld skbs (no GRO)", argv[3],
		      frames, st.skbs);
	close(cs);
	close(ls);
	close(ps);
	close(fl.fd);
	return failures ? 1 : 0;
}

/*
 * Segments of one flow, then close at once (GRO may still hold them).
 * --linger S keeps the fd S seconds first (the device may go meanwhile);
 * --seen-below N checks that a packet socket saw fewer than N of them.
 */
static int cmd_hold(int argc, char **argv)
{
	long segs = atol(argv[4]), i, linger = 0, below = -1;
	struct pstat st = {0};
	struct flow fl;
	int ps = -1;

	for (i = 5; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--linger"))
			linger = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "--seen-below"))
			below = atol(argv[i + 1]);
	}
	if (dev_info(argv[3]))
		return 2;
	if (below >= 0)
		ps = packet_open_vnet(argv[3]);
	fl.fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 0);
	if (fl.fd < 0)
		return 1;
	fl.iss = 5000;
	fl.irs = 0;
	for (i = 0; i < segs; i++)
		if (tcp_write(&fl, 0x10, fl.iss + i * MSS, 1, NULL, 0, i * MSS,
			      MSS, 0))
			return 1;
	if (linger)
		sleep(linger);
	close(fl.fd);
	if (ps >= 0) {
		usleep(200000);
		packet_drain(ps, &st, 0);
		check(st.skbs < below,
		      "hold %s: %ld segments written, %ld skbs (%ld bytes) "
		      "delivered before close",
		      argv[3], segs, st.skbs, st.bytes);
		close(ps);
	}
	return failures ? 1 : 0;
}

/* ---- bench ---- */

static int cmd_bench(int argc, char **argv)
{
	static uint8_t f[MAXF];
	int size = atoi(argv[4]), flags = IFF_TAP | IFF_NO_PI, fd;
	long count = atol(argv[5]), i, bad = 0;
	double t0, t1;

	if (argc > 6 && !strcmp(argv[6], "--tun-napi"))
		flags |= IFF_NAPI;
	if (size < 46 || size > MAXF || dev_info(argv[3]))
		return 2;
	fd = tap_open(argv[2], argv[3], flags, 0);
	if (fd < 0) {
		perror("attach");
		return 1;
	}
	/* Port 9 has no socket: the stack looks it up and drops the frame. */
	udp_frame(f, size, 0, 9);
	for (i = 0; i < count / 10; i++)
		if (write(fd, f, size) != size)
			bad++;
	t0 = now_ns();
	for (i = 0; i < count; i++)
		if (write(fd, f, size) != size)
			bad++;
	t1 = now_ns();
	printf("%.0f %ld\n", (t1 - t0) / count, bad);
	close(fd);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && !strcmp(argv[1], "udp"))
		return cmd_udp(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "tcp"))
		return cmd_tcp(argc, argv);
	if (argc >= 5 && !strcmp(argv[1], "hold"))
		return cmd_hold(argc, argv);
	if (argc >= 6 && !strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
	fprintf(stderr, "usage: see the comment at the top of tapx-napi.c\n");
	return 2;
}
