// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress --probe-vnet.
 */
#include "stress.h"

/*
 * A valid checksum-offload frame written with IFF_VNET_HDR and passed to
 * the stack (no program) must arrive whole: a packet socket sees its
 * Ethernet header, and a short frame is not dropped as malformed. Both
 * depend on the vnet header being applied before eth_type_trans, as tun
 * does; offsets in it count from the Ethernet header.
 */
int probe_vnet(void)
{
	static const unsigned char dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct timeval tv = { 1, 0 };
	unsigned char buf[256], rx[256];
	struct virtio_net_hdr *h = (void *)buf;
	size_t sizes[2] = { 100, 60 }, k;
	struct estats e0, e1;
	int fd, ps;
	ssize_t r;

	fd = node_open(0);
	if (fd < 0 || set_iff(fd, "xp0", IFF_TAP | IFF_NO_PI | IFF_VNET_HDR) ||
	    link_up("xp0", 1)) {
		check(0, "probe: create xp0");
		return 1;
	}
	ps = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex("xp0");
	if (ps < 0 || bind(ps, (struct sockaddr *)&sll, sizeof(sll)) ||
	    setsockopt(ps, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		check(0, "probe: packet socket on xp0: %s", strerror(errno));
		return 1;
	}
	for (k = 0; k < 2; k++) {
		size_t flen = sizes[k];
		unsigned char *f = buf + VNET_SZ;

		memset(buf, 0, sizeof(buf));
		memcpy(f, dst, 6);
		memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		ethtool_stats("xp0", &e0);
		r = write(fd, buf, VNET_SZ + flen);
		check(r == (ssize_t)(VNET_SZ + flen),
		      "probe: %zu-byte TCP frame with NEEDS_CSUM 34/16 written "
		      "(ret %zd)",
		      flen, r);
		do
			r = recv(ps, rx, sizeof(rx), 0);
		while (r > 0 && memcmp(rx + 6, f + 6, 6) && memcmp(rx, f + 14, 4));
		ethtool_stats("xp0", &e1);
		check(est(&e1, "xp0", "rx_errors") == est(&e0, "xp0", "rx_errors"),
		      "probe: %zu-byte NEEDS_CSUM frame not counted in rx_errors "
		      "(%llu -> %llu)",
		      flen, (unsigned long long)est(&e0, "xp0", "rx_errors"),
		      (unsigned long long)est(&e1, "xp0", "rx_errors"));
		check(r == (ssize_t)flen && !memcmp(rx, f, 14),
		      "probe: %zu-byte NEEDS_CSUM frame reaches a packet socket "
		      "with its Ethernet header (got %zd bytes starting %02x%02x)",
		      flen, r, r > 1 ? rx[0] : 0, r > 1 ? rx[1] : 0);
	}
	close(ps);
	close(fd);
	return failures ? 1 : 0;
}
