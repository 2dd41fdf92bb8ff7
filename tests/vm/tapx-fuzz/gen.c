// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz's random arguments: the worker's generator, the record of
 * every call, hostile pointers, frames, fds and device names.
 */
#include "fuzz.h"

__thread struct thr *T;

uint64_t rnd(void)
{
	uint64_t x = T->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	T->rng = x;
	return x * 2685821657736338717ULL;
}

unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

int chance(unsigned int n) /* 1 in n */
{
	return rn(n) == 0;
}

void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(T->desc, sizeof(T->desc), fmt, ap);
	va_end(ap);
}

struct callrec *call_begin(int kind)
{
	struct wshared *s = T->sh;
	struct callrec *c = &s->ring[s->pos % ring_n];

	c->seq = s->calls;
	c->kind = kind;
	c->done = 0;
	c->ret = 0;
	c->err = 0;
	memcpy(c->desc, T->desc, sizeof(c->desc));
	s->cur_kind = kind;
	__atomic_store_n(&s->busy_since, (int64_t)now_ns(), __ATOMIC_SEQ_CST);
	return c;
}

void call_end(struct callrec *c, long ret, int err)
{
	struct wshared *s = T->sh;
	int64_t t = now_ns() - s->busy_since;

	__atomic_store_n(&s->busy_since, 0, __ATOMIC_SEQ_CST);
	s->ns[c->kind] += t;
	if ((uint64_t)t > s->max_ns[c->kind])
		s->max_ns[c->kind] = t;
	c->ret = ret;
	c->err = ret < 0 ? err : 0;
	c->done = 1;
	s->count[c->kind]++;
	s->errs[c->kind][c->err < NERR ? c->err : NERR - 1]++;
	s->pos++;
	s->calls++;
}

/* ---- memory: hostile pointers ---- */

/* A pointer for a buffer of len bytes: mostly good, sometimes not. */
void *hostile(void *good, size_t len, int writable, const char **what)
{
	unsigned char *a = T->arena;

	/* One in six is bad. */
	switch (rn(48)) {
	case 0:
		*what = "NULL";
		return NULL;
	case 1:
		*what = "unmapped";
		return unmapped;
	case 2:
		*what = "kernel";
		return (void *)BAD_KERNEL;
	case 3:
		/* Runs into the guard page after the arena. */
		*what = "into-guard";
		return a + ARENA - (len ? rn(len < ARENA ? len : ARENA) : 0);
	case 4:
		*what = "flaky";
		return flaky + rn(PG);
	case 5:
		*what = writable ? "read-only" : "ro-ok";
		return ro_page + rn(64);
	case 6:
		*what = "odd";
		return (unsigned char *)good + 1;
	case 7:
		*what = "noncanonical";
		return (void *)0x0000800000000000UL;
	default:
		*what = "ok";
		return good;
	}
}

/* ---- frames ---- */

/*
 * A random frame length: runts, boundaries (one page's buffer, one jumbo
 * buffer: 3520, 15808), page and 64 KiB sizes.
 */
static size_t gen_len(void)
{
	static const size_t edge[] = { 0,     1,     13,    14,    15,
				       60,    255,   256,   257,   270,
				       3519,  3520,  3521,  4096,  9000,
				       15808, 15809, 65535, 65536, 65549,
				       65550 };

	switch (rn(8)) {
	case 0:
		return edge[rn(sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return rn(20);
	case 2:
	case 3:
		return 14 + rn(300);
	case 4:
		return rn(1600);
	case 5:
		return rn(9100);
	default:
		return rn(65551);
	}
}

static void put_ipv4_tcp(unsigned char *f, size_t flen)
{
	if (flen < 54)
		return;
	frame_ip4_tcp(f, flen, rn(3) ? 6 : 17);
	/* Keep the XDP programs' control bytes (14..19) random half the time. */
	if (rn(2))
		for (int i = 15; i < 20; i++)
			f[i] = rnd();
}

/* A vnet header: valid kinds, GSO, each invalid field, random bytes. */
static void gen_vnet(struct virtio_net_hdr *h, unsigned char *f, size_t flen)
{
	memset(h, 0, sizeof(*h));
	switch (rn(12)) {
	case 0:
	case 1:
		break;
	case 2:
		h->flags = VIRTIO_NET_HDR_F_DATA_VALID;
		break;
	case 3:
		put_ipv4_tcp(f, flen);
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 34;
		h->csum_offset = 16;
		break;
	case 4:
	case 5:
		put_ipv4_tcp(f, flen);
		h->flags = rn(4) ? VIRTIO_NET_HDR_F_NEEDS_CSUM : 0;
		h->gso_type = (const uint8_t[]){ VIRTIO_NET_HDR_GSO_TCPV4,
						 VIRTIO_NET_HDR_GSO_TCPV6,
						 VIRTIO_NET_HDR_GSO_UDP,
						 VIRTIO_NET_HDR_GSO_TCPV4 |
							 VIRTIO_NET_HDR_GSO_ECN }[rn(4)];
		h->gso_size = rn(3) ? 1448 : (uint16_t)rnd();
		h->hdr_len = rn(2) ? 54 : (uint16_t)rn(200);
		h->csum_start = rn(4) ? 34 : (uint16_t)rn(flen + 10);
		h->csum_offset = rn(4) ? 16 : (uint16_t)rn(40);
		break;
	case 6:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = rn(flen + 4);
		h->csum_offset = rn(64);
		break;
	case 7:
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = 65000 + rn(500);
		h->csum_offset = rn(1000);
		break;
	case 8:
		h->gso_type = rn(256);
		h->gso_size = rnd();
		break;
	case 9:
		h->hdr_len = rnd();
		h->flags = rn(8);
		break;
	default:
		for (size_t i = 0; i < sizeof(*h); i++)
			((unsigned char *)h)[i] = rnd();
		break;
	}
}

/*
 * Builds one write's bytes at buf: PI (random or zero), vnet header of
 * vsz bytes (random kinds), then an Ethernet frame of random content.
 * Returns the total length.
 */
size_t gen_frame(unsigned char *buf, size_t max, int pi, int vsz)
{
	size_t flen = gen_len(), meta = (pi ? 4 : 0) + vsz, t = meta + flen;
	unsigned char *f;

	if (chance(16)) /* headers alone, or cut inside them */
		t = rn(meta + 1);
	if (t > max)
		t = max;
	flen = t > meta ? t - meta : 0;
	f = buf + meta;
	for (size_t i = 0; i < t; i += 8) {
		uint64_t r = rnd();

		memcpy(buf + i, &r, t - i < 8 ? t - i : 8);
	}
	if (flen >= 14) {
		switch (rn(4)) {
		case 0:
			memset(f, 0xff, 6);
			break;
		case 1:
			f[0] = 0x01;
			break;
		default:
			f[0] &= 0xfe;
			break;
		}
		f[6] &= 0xfe;
		if (rn(3) == 0)
			put_ipv4_tcp(f, flen);
	}
	if (pi && t >= 4 && rn(2))
		memset(buf, 0, 4);
	if (vsz && t >= (size_t)meta && !chance(8)) {
		struct virtio_net_hdr h;

		gen_vnet(&h, f, flen);
		memcpy(buf + (pi ? 4 : 0), &h, sizeof(h));
	}
	return t;
}

/* Guessed layout (the fd's flags are not tracked: any guess is fine). */
void guess_meta(int *pi, int *vsz)
{
	static const int sz[] = { 10, 12, 10, 20, 0, 256 };

	*pi = chance(3);
	*vsz = rn(2) ? sz[rn(sizeof(sz) / sizeof(sz[0]))] : 0;
}

/* ---- fds ---- */

/*
 * An fd of this process: the first open one of four random slots (four
 * draws whatever happens, so that the sequence of draws, and so the
 * replay, does not depend on which fds are open).
 */
int slot_fd(void)
{
	unsigned int c[4];
	int i, fd;

	for (i = 0; i < 4; i++)
		c[i] = rn(NSLOTS);
	for (i = 0; i < 4; i++) {
		fd = __atomic_load_n(&slots[c[i]], __ATOMIC_RELAXED);
		if (fd >= 0)
			return fd;
	}
	return fd;
}

const char *pick_name(char *buf)
{
	static const char *const names[] = {
		"xf0", "xf1", "xf2", "xf3", "xf4", "xfm0", "xfm1", "xfm2",
		"xf0", "xf1", "xfm0", "",   "xa",  "ta",   "lo",   "tapx%d",
		"x/y", "%d%d",
	};
	unsigned int i = rn(sizeof(names) / sizeof(names[0]));

	if (chance(40)) {
		for (int k = 0; k < IFNAMSIZ; k++)
			buf[k] = 'a' + rn(26);
		return buf; /* not terminated: the kernel must cut it */
	}
	snprintf(buf, IFNAMSIZ, "%s", names[i]);
	return buf;
}

const char *dev_name(char *buf)
{
	static const char *const names[] = { "xf0",  "xf1",  "xf2",  "xf3",
					     "xf4",  "xfm0", "xfm1", "xfm2",
					     "tapx0", "tapx1" };

	snprintf(buf, IFNAMSIZ, "%s", names[rn(sizeof(names) / sizeof(names[0]))]);
	return buf;
}
