// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-filter TUN_NODE TAPX_NODE - tun's filters on the frames the stack
 * transmits to a tap's reader, on stock tun.ko and on tapx in one boot:
 * TUNSETTXFILTER (exact MAC addresses, the multicast hash, ALLMULTI, the
 * unicast address that turns it off), TUNATTACHFILTER/TUNGETFILTER/
 * TUNDETACHFILTER (classic BPF: drop all, cut to 20 bytes),
 * TUNSETFILTEREBPF (an eBPF socket filter that cuts and one that drops)
 * and TUNSETSTEERINGEBPF (the queue a program picks). Frames go in by an
 * AF_PACKET socket on the device and are read from the tap fd. For each
 * case the frames delivered (and their lengths) are checked against what
 * the filter must do, and tapx's against tun's.
 */
#include <linux/filter.h>

#include "tapx-test.h"

#define FRAME_LEN 60
#define NFRAMES 6

/* Destinations of the frames each case sends, one frame per address. */
static const uint8_t dests[NFRAMES][ETH_ALEN] = {
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0xaa }, /* A: unicast, in filters */
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0xbb }, /* B: unicast, never */
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }, /* broadcast */
	{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, /* M: multicast, hashed */
	{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }, /* another multicast */
	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0xcc }, /* C: unicast, exact #2 */
};
#define A 0
#define M 3
#define C 5

/* The kernel's multicast hash bit of @a: ether_crc()'s top six bits. */
static unsigned int mcast_bit(const uint8_t *a)
{
	uint32_t crc = ~0U, rev = 0;
	int i, b;

	for (i = 0; i < ETH_ALEN; i++) {
		crc ^= a[i];
		for (b = 0; b < 8; b++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320 : 0);
	}
	for (b = 0; b < 32; b++)
		rev |= ((crc >> b) & 1) << (31 - b);
	return rev >> 26;
}

/* Frames a hash holding M's bit lets through besides M: its collisions. */
static int hash_mates(void)
{
	int i, got = 0;

	for (i = 0; i < NFRAMES; i++)
		if ((dests[i][0] & 1) && mcast_bit(dests[i]) == mcast_bit(dests[M]))
			got |= 1 << i;
	return got;
}

struct dev {
	const char *node;
	char name[IFNAMSIZ];
	int fd[2]; /* queue fds; fd[1] only for the steering case */
	int pkt;   /* AF_PACKET socket on the device, to transmit */
};

/* Bits of the frames delivered to queue q: bit i = frame to dests[i]. */
static int drain(struct dev *d, int q, int lens[NFRAMES])
{
	uint8_t buf[2048];
	int got = 0, n, i;
	struct pollfd p = { .fd = d->fd[q], .events = POLLIN };

	while (poll(&p, 1, 200) > 0) {
		n = read(d->fd[q], buf, sizeof(buf));
		if (n <= 0)
			break;
		if (n < 14 || buf[12] != (ETHERTYPE_TEST >> 8) ||
		    buf[13] != (ETHERTYPE_TEST & 0xff))
			continue;
		for (i = 0; i < NFRAMES; i++)
			if (!memcmp(buf, dests[i], ETH_ALEN)) {
				got |= 1 << i;
				if (lens)
					lens[i] = n;
			}
	}
	return got;
}

/* One frame to each destination through the stack; frames delivered. */
static int send_all(struct dev *d, int q, int lens[NFRAMES])
{
	uint8_t f[FRAME_LEN];
	int i;

	drain(d, 0, NULL);
	if (d->fd[1] >= 0)
		drain(d, 1, NULL);
	for (i = 0; i < NFRAMES; i++) {
		test_frame(f, FRAME_LEN, i);
		memcpy(f, dests[i], ETH_ALEN);
		if (send(d->pkt, f, sizeof(f), 0) != sizeof(f))
			return -1;
	}
	return drain(d, q, lens);
}

static int dev_open(struct dev *d, const char *node, char tag, int mq)
{
	int flags = IFF_TAP | IFF_NO_PI | (mq ? IFF_MULTI_QUEUE : 0);

	d->node = node;
	snprintf(d->name, sizeof(d->name), "flt%s%c", mq ? "mq" : "", tag);
	d->fd[1] = -1;
	d->fd[0] = tap_open(node, d->name, flags, 0);
	if (d->fd[0] < 0)
		return -1;
	if (mq && (d->fd[1] = tap_open(node, d->name, flags, 0)) < 0)
		return -1;
	if (if_up(d->name, 1) || if_wait_tx_ready(d->name, 5000))
		return -1;
	d->pkt = packet_open(d->name);
	return d->pkt < 0 ? -1 : 0;
}

static void dev_close(struct dev *d)
{
	close(d->pkt);
	close(d->fd[0]);
	if (d->fd[1] >= 0)
		close(d->fd[1]);
}

/* TUNSETTXFILTER with @n addresses of @addrs: its return or -errno. */
static int set_txfilter(struct dev *d, unsigned int flags, int n,
			const uint8_t (*addrs)[ETH_ALEN])
{
	struct {
		struct tun_filter f;
		uint8_t a[16][ETH_ALEN];
	} req = { .f = { .flags = flags, .count = n } };
	int r;

	memcpy(req.a, addrs, n * ETH_ALEN);
	r = ioctl(d->fd[0], TUNSETTXFILTER, &req);
	return r < 0 ? -errno : r;
}

static int set_ebpf(struct dev *d, unsigned long cmd, int prog_fd)
{
	return ioctl(d->fd[0], cmd, &prog_fd) < 0 ? -errno : 0;
}

/* The outcome of one case on one driver. */
struct outcome {
	int ret;  /* the ioctl's answer */
	int got;  /* frames delivered, bits of dests[] */
	int lens[NFRAMES];
};

static void compare(const char *what, const struct outcome *t,
		    const struct outcome *x, int want_ret, int want_got,
		    int want_len)
{
	int i, lens_ok = 1;

	for (i = 0; i < NFRAMES; i++)
		if ((x->got & (1 << i)) && want_len && x->lens[i] != want_len)
			lens_ok = 0;
	check(x->ret == want_ret && t->ret == want_ret,
	      "filter %s: ioctl tun %d, tapx %d (want %d)", what, t->ret,
	      x->ret, want_ret);
	check(x->got == want_got && t->got == want_got,
	      "filter %s: frames delivered tun 0x%02x, tapx 0x%02x (want 0x%02x)",
	      what, t->got, x->got, want_got);
	if (want_len)
		check(lens_ok && !memcmp(t->lens, x->lens, sizeof(x->lens)),
		      "filter %s: every frame cut to %d bytes, as on tun", what,
		      want_len);
}

enum kase {
	K_EXACT, K_HASH, K_ALLMULTI, K_UNICAST_OFF, K_OFF, K_CLASSIC_DROP,
	K_CLASSIC_CUT, K_CLASSIC_DETACH, K_EBPF_CUT, K_EBPF_DROP, K_EBPF_DETACH,
	K_NR
};

static int run_case(struct dev *d, enum kase k, struct outcome *o)
{
	/* A, then seven more unicast ones: eight exact; then M (hashed). */
	static const uint8_t nine[9][ETH_ALEN] = {
		{ 0x02, 0, 0, 0, 0, 0xaa }, { 0x02, 0, 0, 0, 0, 0xcc },
		{ 0x02, 0, 0, 0, 1, 1 },    { 0x02, 0, 0, 0, 1, 2 },
		{ 0x02, 0, 0, 0, 1, 3 },    { 0x02, 0, 0, 0, 1, 4 },
		{ 0x02, 0, 0, 0, 1, 5 },    { 0x02, 0, 0, 0, 1, 6 },
		{ 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 },
	};
	uint8_t unicast9[9][ETH_ALEN];
	struct sock_filter drop_all[] = { BPF_STMT(BPF_RET | BPF_K, 0) };
	struct sock_filter cut20[] = { BPF_STMT(BPF_RET | BPF_K, 20) };
	struct sock_fprog fp = { 1, drop_all }, got_fp = { 0 };
	int pfd;

	memset(o, 0, sizeof(*o));
	switch (k) {
	case K_EXACT:
		o->ret = set_txfilter(d, 0, 1, nine);
		break;
	case K_HASH:
		o->ret = set_txfilter(d, 0, 9, nine);
		break;
	case K_ALLMULTI:
		o->ret = set_txfilter(d, TUN_FLT_ALLMULTI, 1, nine);
		break;
	case K_UNICAST_OFF:
		memcpy(unicast9, nine, sizeof(unicast9));
		unicast9[8][0] = 0x02; /* a unicast address past the exact ones */
		o->ret = set_txfilter(d, 0, 9, (const uint8_t(*)[ETH_ALEN])unicast9);
		break;
	case K_OFF:
		set_txfilter(d, 0, 1, nine);
		o->ret = set_txfilter(d, 0, 0, nine);
		break;
	case K_CLASSIC_DROP:
		o->ret = ioctl(d->fd[0], TUNATTACHFILTER, &fp) < 0 ? -errno : 0;
		break;
	case K_CLASSIC_CUT:
		fp.filter = cut20;
		o->ret = ioctl(d->fd[0], TUNATTACHFILTER, &fp) < 0 ? -errno : 0;
		/* TUNGETFILTER: the sock_fprog as given. */
		if (!o->ret && (ioctl(d->fd[0], TUNGETFILTER, &got_fp) < 0 ||
				got_fp.len != 1 || got_fp.filter != cut20))
			o->ret = -1000;
		break;
	case K_CLASSIC_DETACH:
		o->ret = ioctl(d->fd[0], TUNDETACHFILTER, &fp) < 0 ? -errno : 0;
		break;
	case K_EBPF_CUT:
	case K_EBPF_DROP:
		pfd = socket_filter_load(k == K_EBPF_CUT ? 30 : 0);
		if (pfd < 0)
			return -1;
		o->ret = set_ebpf(d, TUNSETFILTEREBPF, pfd);
		close(pfd); /* the device holds the program */
		break;
	case K_EBPF_DETACH:
		o->ret = set_ebpf(d, TUNSETFILTEREBPF, -1);
		break;
	default:
		return -1;
	}
	o->got = send_all(d, 0, o->lens);
	return 0;
}

static struct {
	const char *name;
	int ret, got, len;
} cases[K_NR] = {
	[K_EXACT] = { "TX exact A", 1, 1 << A, 0 },
	/* Eight exact addresses (A, C among them), M hashed. */
	[K_HASH] = { "TX 8 exact + multicast hash", 8, 1 << A | 1 << C | 1 << M, 0 },
	[K_ALLMULTI] = { "TX ALLMULTI", 1, 1 << A | 1 << 2 | 1 << M | 1 << 4, 0 },
	[K_UNICAST_OFF] = { "TX 9th unicast turns it off", 0, 0x3f, 0 },
	[K_OFF] = { "TX count 0 turns it off", 0, 0x3f, 0 },
	[K_CLASSIC_DROP] = { "classic ret 0", 0, 0, 0 },
	[K_CLASSIC_CUT] = { "classic ret 20", 0, 0x3f, 20 },
	[K_CLASSIC_DETACH] = { "classic detached", 0, 0x3f, FRAME_LEN },
	[K_EBPF_CUT] = { "eBPF r0 = 30", 0, 0x3f, 30 },
	[K_EBPF_DROP] = { "eBPF r0 = 0", 0, 0, 0 },
	[K_EBPF_DETACH] = { "eBPF detached", 0, 0x3f, FRAME_LEN },
};

/* Steering: a program returning @q sends every frame to queue q. */
static void steering(const char *tun, const char *tapx)
{
	struct dev t, x;
	int q, pfd, gt[2], gx[2], rt, rx;

	if (dev_open(&t, tun, 't', 1) || dev_open(&x, tapx, 'x', 1)) {
		check(0, "filter steering: two-queue taps (%s)", strerror(errno));
		return;
	}
	for (q = 0; q < 2; q++) {
		/* 2 % 2 = 0, 3 % 2 = 1: the modulo too */
		pfd = socket_filter_load(q + 2);
		rt = set_ebpf(&t, TUNSETSTEERINGEBPF, pfd);
		rx = set_ebpf(&x, TUNSETSTEERINGEBPF, pfd);
		close(pfd);
		gt[q] = send_all(&t, q, NULL);
		gx[q] = send_all(&x, q, NULL);
		check(!rt && !rx && gt[q] == 0x3f && gx[q] == 0x3f,
		      "filter steering r0 = %d: every frame on queue %d: tun 0x%02x (ioctl %d), tapx 0x%02x (ioctl %d)",
		      q + 2, q, gt[q], rt, gx[q], rx);
	}
	rt = set_ebpf(&t, TUNSETSTEERINGEBPF, -1);
	rx = set_ebpf(&x, TUNSETSTEERINGEBPF, -1);
	check(!rt && !rx, "filter steering detached: tun %d, tapx %d", rt, rx);
	dev_close(&t);
	dev_close(&x);
}

int main(int argc, char **argv)
{
	struct outcome ot, ox;
	struct dev t, x;
	int k;

	if (argc != 3) {
		fprintf(stderr, "usage: tapx-filter TUN_NODE TAPX_NODE\n");
		return 2;
	}
	if (dev_open(&t, argv[1], 't', 0) || dev_open(&x, argv[2], 'x', 0)) {
		check(0, "filter: taps on %s and %s (%s)", argv[1], argv[2],
		      strerror(errno));
		return 1;
	}
	cases[K_HASH].got |= hash_mates();
	for (k = 0; k < K_NR; k++) {
		if (run_case(&t, k, &ot) || run_case(&x, k, &ox)) {
			check(0, "filter %s: setup (%s)", cases[k].name,
			      strerror(errno));
			continue;
		}
		compare(cases[k].name, &ot, &ox, cases[k].ret, cases[k].got,
			cases[k].len);
	}
	/* Filters left on at close: the device's deletion releases them. */
	run_case(&t, K_CLASSIC_CUT, &ot);
	run_case(&x, K_CLASSIC_CUT, &ox);
	run_case(&t, K_EBPF_CUT, &ot);
	run_case(&x, K_EBPF_CUT, &ox);
	run_case(&t, K_EXACT, &ot);
	run_case(&x, K_EXACT, &ox);
	dev_close(&t);
	dev_close(&x);
	steering(argv[1], argv[2]);
	return failures ? 1 : 0;
}
