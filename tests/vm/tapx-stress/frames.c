// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's frames: made, written to and read from the stable
 * devices, each write's outcome predicted.
 */
#include "stress.h"

unsigned char *pool; /* random bytes, shared read-only */
unsigned char *wbuf;
unsigned char *rbuf;

/* Mirrors tapx_check_vnet (little-endian host, no TUNSETVNETBE). */
/* UDP segmentation (GSO_UDP_L4) from a vnet header: taken from 6.2 on. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_L4
#define VIRTIO_NET_HDR_GSO_UDP_L4 5
#endif
int uso;

int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

static int vnet_valid(const struct virtio_net_hdr *h, size_t len)
{
	uint16_t hdr_len = h->hdr_len;
	unsigned int start = h->csum_start, off = h->csum_offset;

	if (h->flags &
	    ~(VIRTIO_NET_HDR_F_NEEDS_CSUM | VIRTIO_NET_HDR_F_DATA_VALID))
		return 0;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		if ((size_t)start + off + 2 > len)
			return 0;
		if (start + off + 2 > hdr_len)
			hdr_len = start + off + 2;
	}
	if (hdr_len > len)
		return 0;
	switch (h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_NONE:
		return !(h->gso_type & VIRTIO_NET_HDR_GSO_ECN);
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
	case VIRTIO_NET_HDR_GSO_UDP:
		return h->gso_size != 0;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		return uso && h->gso_size != 0;
	}
	return 0;
}

/*
 * Whether the PASS path (virtio_net_hdr_to_skb, which tapx calls after
 * eth_type_trans, so offsets count from the L3 header) drops a header that
 * vnet_valid accepted: such a write is accepted (rx_packets) *and* counted
 * in rx_errors when the verdict is PASS, which the workers cannot know.
 * Once tapx applies the header before eth_type_trans (as tun does), what
 * it refuses is a subset of this, so the accounting stays exact.
 */
static int vnet_pass_rejects(const struct virtio_net_hdr *h, size_t flen)
{
	unsigned int start = h->csum_start, off = h->csum_offset;
	unsigned int gso = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	size_t L = flen - 14, thlen = 0, need;

	if (!h->flags && !h->gso_type)
		return 0;
	if (gso == VIRTIO_NET_HDR_GSO_TCPV4 || gso == VIRTIO_NET_HDR_GSO_TCPV6)
		thlen = 20;
	else if (gso == VIRTIO_NET_HDR_GSO_UDP || gso == VIRTIO_NET_HDR_GSO_UDP_L4)
		thlen = 8;
	/* USO: a checksum to offload into the UDP header, no ECN, at most
	 * 128 segments (UDP_MAX_SEGMENTS) */
	if (gso == VIRTIO_NET_HDR_GSO_UDP_L4 &&
	    (!(h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || off != 6 ||
	     h->gso_type & VIRTIO_NET_HDR_GSO_ECN ||
	     (start + thlen < L && L - (start + thlen) > (size_t)h->gso_size * 128)))
		return 1;
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		need = start + (thlen > off + 2 ? thlen : off + 2);
		if (need > L || PASS_HEADROOM + start >= 65535 ||
		    start + thlen > L)
			return 1;
		if (thlen == 20 && off != 16)
			return 1;
	} else if (gso && thlen > L) {
		return 1;
	}
	return gso && h->gso_size == 0xffff;
}

/* IPv4/TCP headers after the Ethernet header, for the valid vnet kinds. */
void put_l3(unsigned char *f, size_t flen)
{
	if (flen < 54)
		return;
	frame_ip4_tcp(f, flen, 6);
	f[34] = 0x30; /* TCP ports 12288 > 80 */
	f[36] = 0x00;
	f[37] = 0x50;
}

/* Fills a vnet header: mostly valid kinds, sometimes garbage. */
static void gen_vnet(struct virtio_net_hdr *h, unsigned char *f, size_t flen)
{
	unsigned int k = rn(10);

	memset(h, 0, sizeof(*h));
	switch (k) {
	case 0:
	case 1:
	case 2:
		break;
	case 3:
		h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
		break;
	case 4: /* checksum offload of a TCP frame */
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 5: /* TSO with checksum offload */
		put_l3(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h->gso_size = 1448;
		h->hdr_len = 54;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 6: /* invalid on purpose: each field in turn */
		switch (rn(5)) {
		case 0:
			h->flags = 0x4;
			break;
		case 1:
			h->gso_type = 2;
			break;
		case 2:
			h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
			break;
		case 3:
			h->gso_type = VIRTIO_NET_HDR_GSO_ECN;
			break;
		default:
			h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
			h->csum_start = 65000;
			h->csum_offset = 6;
			break;
		}
		break;
	default: /* random bytes */
		memcpy(h, pool + rn(POOL - 16), sizeof(*h));
		break;
	}
}

/* Frame sizes: small ones often, page-sized and multi-buffer ones too. */
size_t gen_size(void)
{
	switch (rn(10)) {
	case 0:
		return rn(20);
	case 1:
	case 2:
	case 3:
	case 4:
		return rn(1600);
	case 5:
	case 6:
		return rn(9100);
	default:
		return rn(MAXT + 1);
	}
}

/* Ethernet header: unicast, broadcast, multicast or random. */
static void gen_eth(unsigned char *f, size_t flen)
{
	if (flen < 14)
		return;
	switch (rn(4)) {
	case 0:
		memset(f, 0xff, 6);
		break;
	case 1:
		f[0] = 0x01;
		break;
	case 2:
		f[0] = 0x02;
		break;
	default:
		break;
	}
	f[6] &= 0xfe;
}

/*
 * The bytes of one write of T bytes at buf: random content, an Ethernet
 * header, a zero PI or a vnet header (of the kinds gen_vnet makes; the
 * ones the PASS path would refuse after the write check took them are
 * zeroed and counted, see vnet_pass_rejects).
 */
void fill_frame(unsigned char *buf, size_t T, int meta, int vnet,
		struct sacct *acct, int *fixed_gap)
{
	size_t flen = T > (size_t)meta ? T - meta : 0;
	unsigned char *f = buf + meta;

	memcpy(buf, pool + rn(POOL - T), T);
	gen_eth(f, flen);
	if (meta >= PI_SZ && !vnet && T >= PI_SZ)
		memset(buf, 0, PI_SZ);
	if (vnet && T >= VNET_SZ) {
		struct virtio_net_hdr h;

		gen_vnet(&h, f, flen);
		if (vnet_valid(&h, flen) && flen >= 14 && flen <= 65535 &&
		    vnet_pass_rejects(&h, flen)) {
			memset(&h, 0, sizeof(h));
			*fixed_gap = 1;
			if (acct)
				acct->w_gap++;
		}
		memcpy(buf, &h, sizeof(h));
	}
}

/*
 * Builds a write of T bytes in wbuf and splits it in iovs; one may point
 * to unmapped (user) or kernel memory. *bad_at is the offset of the first
 * unreadable byte (T if none), *vfs whether the VFS refuses it first.
 */
int gen_write(struct iovec *iov, size_t T, int meta, int vnet,
	      struct sacct *acct, size_t *bad_at, int *vfs,
	      int *fixed_gap)
{
	size_t off, n;
	int niov = 1 + rn(4), i, badi = -1;

	fill_frame(wbuf, T, meta, vnet, acct, fixed_gap);
	if (rn(20) == 0 && T)
		badi = rn(niov);
	*bad_at = T;
	*vfs = 0;
	for (i = 0, off = 0; i < niov; i++) {
		n = i == niov - 1 ? T - off : rn(T - off + 1);
		iov[i].iov_base = wbuf + off;
		iov[i].iov_len = n;
		if (i == badi && n) {
			if (rn(2)) {
				iov[i].iov_base = bad_user;
				if (off < *bad_at)
					*bad_at = off;
			} else {
				iov[i].iov_base = BAD_KERNEL;
				*vfs = 1;
			}
		}
		off += n;
	}
	return niov;
}

ssize_t do_write(int fd, struct iovec *iov, int niov)
{
	if (niov == 1 && rn(2))
		return write(fd, iov[0].iov_base, iov[0].iov_len);
	return writev(fd, iov, niov);
}

/* The outcome tapx must give a write to a stable device (see tapx_write.c). */
enum wres predict_buf(const struct stable *s, const unsigned char *buf,
		      size_t T, size_t bad_at, int vfs, int niov)
{
	int pi = !(s->flags & IFF_NO_PI), vnet = !!(s->flags & IFF_VNET_HDR);
	size_t need = 0, flen;

	if (vfs)
		return WR_VFS;
	if (T == 0 && niov > 1)
		return WR_ZERO; /* writev of nothing never reaches the driver */
	if (T == 0 && niov == 1)
		return WR_EINVAL; /* decided by do_write; see op_write_stable */
	if (pi) {
		if (T < PI_SZ)
			return WR_EINVAL;
		if (bad_at < PI_SZ)
			return WR_EFAULT_META;
		need = PI_SZ;
	}
	if (vnet) {
		if (T - need < VNET_SZ)
			return WR_EINVAL;
		if (bad_at < need + VNET_SZ)
			return WR_EFAULT_META;
		need += VNET_SZ;
		if (!vnet_valid((const struct virtio_net_hdr *)(buf + need -
								 VNET_SZ),
				T - need))
			return WR_EINVAL;
	}
	flen = T - need;
	if (flen < 14 || flen > 65535)
		return WR_EINVAL;
	if (bad_at < T)
		return WR_EFAULT_FILL;
	return WR_OK;
}

static enum wres predict(const struct stable *s, size_t T, size_t bad_at,
			 int vfs, int niov)
{
	return predict_buf(s, wbuf, T, bad_at, vfs, niov);
}

void op_write_stable(void)
{
	int d = rn(NSTABLE), niov, vfs, gap = 0, err;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	size_t T = gen_size(), bad_at;
	struct iovec iov[4];
	enum wres want;
	ssize_t r;
	char ctx[96];

	niov = gen_write(iov, T, s->meta, !!(s->flags & IFF_VNET_HDR), a,
			 &bad_at, &vfs, &gap);
	/* A single iov goes through write() or writev() at random. */
	if (niov == 1 && rn(2))
		r = write(s->fd, iov[0].iov_base, iov[0].iov_len);
	else
		r = writev(s->fd, iov, niov), niov = niov == 1 ? 2 : niov;
	want = predict(s, T, bad_at, vfs, niov);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s len %zu niov %d bad_at %zu want %d ret %zd",
		 s->name, T, niov, bad_at, want, r);
	switch (want) {
	case WR_OK:
		if (r == (ssize_t)T) {
			a->w_ok++;
			me->bytes_written += T;
			outcome(OP_WRITE_S, 0, NULL, ctx);
			return;
		}
		break;
	case WR_ZERO:
		if (r == 0) {
			outcome(OP_WRITE_S, 0, NULL, ctx);
			return;
		}
		break;
	case WR_EINVAL:
		if (err == EINVAL) {
			a->w_einval++;
			outcome(OP_WRITE_S, err, EXP(EINVAL), ctx);
			return;
		}
		break;
	case WR_EFAULT_META:
	case WR_EFAULT_FILL:
	case WR_VFS:
		if (err == EFAULT) {
			if (want == WR_EFAULT_META)
				a->w_efault_meta++;
			else if (want == WR_EFAULT_FILL)
				a->w_efault_fill++;
			else
				a->w_vfs++;
			outcome(OP_WRITE_S, err, EXP(EFAULT), ctx);
			return;
		}
		break;
	}
	/* Wrong outcome: counted as unexpected, never as accepted. */
	outcome(OP_WRITE_S, err ? err : EPROTO, NULL, ctx);
}

void op_read_stable(void)
{
	int d = rn(NSTABLE), err, kern = 0;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	size_t len;
	void *buf = rbuf;
	ssize_t r;
	char ctx[64];

	poll(&p, 1, rn(10));
	switch (rn(8)) {
	case 0:
		len = rn(16);
		break;
	case 1:
		len = 1 + rn(200);
		buf = bad_user;
		break;
	case 2:
		len = 1 + rn(200);
		buf = BAD_KERNEL;
		kern = 1;
		break;
	default:
		len = MAXT;
		break;
	}
	r = read(s->fd, buf, len);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s len %zu ret %zd", s->name, len, r);
	if (r > 0) {
		a->r_ok++;
		a->r_consumed++;
		outcome(OP_READ_S, 0, NULL, ctx);
		return;
	}
	if (r == 0) {
		/* A frame whose copy faulted returns its meta length, 0. */
		if (len)
			a->r_consumed++;
		outcome(OP_READ_S, 0, NULL, ctx);
		return;
	}
	if (!kern && (err == EINVAL || err == EFAULT))
		a->r_consumed++;
	if (err == EINVAL && len >= (size_t)s->meta)
		err = EPROTO; /* a whole header fits: must not be refused */
	outcome(OP_READ_S, err, kern ? EXP(EFAULT) : EXP(EAGAIN, EINVAL, EFAULT),
		ctx);
}
