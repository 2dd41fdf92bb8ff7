// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-ioctl TUN_NODE TAPX_NODE - every TUN* ioctl of linux/if_tun.h, and
 * the SIOC[GS]IFHWADDR and SIOCGSKNS that tun answers on its fd too, asked
 * of stock tun.ko and of tapx in the same states (before TUNSETIFF, on a
 * tap, on an L3 device) with the same harmless arguments: the answers
 * (0 or the errno) must agree, but for tapx's documented differences
 * (kmod/README.md, "tun's ioctls"), where tapx's own answer is checked;
 * then TUNSETIFF with the flags beyond the features (setiff_flags), and
 * the values both give for features, offloads, vnet header sizes and the
 * TUNSETIFF flags they keep (compare_values).
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <linux/filter.h>
#include <linux/sockios.h>
#include <limits.h>

#include "tapx-test.h"

/* Arguments: 0; a pointer to an int 0, -1, INT_MAX or 10; an empty
 * sock_fprog; a tun_filter of no address; an ifreq; an invalid uid/gid
 * (-1); the link type ARPHRD_NONE. */
enum arg {
	A_ZERO, A_INT0, A_INTM1, A_INTMAX, A_INT10, A_FPROG, A_TXF, A_IFR,
	A_BADID, A_LINK,
};

struct ioc {
	const char *name;
	unsigned long cmd;
	enum arg arg;
};

#define IOC(c, a) { #c, c, a }
static const struct ioc iocs[] = {
	IOC(TUNSETNOCSUM, A_ZERO),	IOC(TUNSETDEBUG, A_ZERO),
	IOC(TUNSETOWNER, A_BADID), IOC(TUNSETGROUP, A_BADID),
	IOC(TUNSETOFFLOAD, A_ZERO),	IOC(TUNSETTXFILTER, A_TXF),
	IOC(TUNGETIFF, A_IFR),		IOC(TUNGETSNDBUF, A_INT0),
	IOC(TUNSETSNDBUF, A_INTMAX),	IOC(TUNATTACHFILTER, A_FPROG),
	IOC(TUNDETACHFILTER, A_FPROG),	IOC(TUNGETVNETHDRSZ, A_INT0),
	IOC(TUNSETVNETHDRSZ, A_INT10),	IOC(TUNGETFILTER, A_FPROG),
	IOC(TUNSETVNETLE, A_INT0),	IOC(TUNGETVNETLE, A_INT0),
	IOC(TUNSETVNETBE, A_INT0),	IOC(TUNGETVNETBE, A_INT0),
	IOC(TUNSETSTEERINGEBPF, A_INTM1), IOC(TUNSETFILTEREBPF, A_INTM1),
	IOC(TUNSETCARRIER, A_INT10),	IOC(TUNGETDEVNETNS, A_ZERO),
	IOC(TUNSETIFINDEX, A_INT0),	IOC(TUNSETLINK, A_LINK),
	{ "'T' 228", _IOW('T', 228, int), A_INT0 },
	/* An all-zero address of family 0: refused by both (EINVAL). */
	IOC(SIOCGIFHWADDR, A_IFR),	IOC(SIOCSIFHWADDR, A_IFR),
	IOC(SIOCGSKNS, A_ZERO),
};

/* The states an fd is asked in. */
enum state { S_UNBOUND, S_TAP, S_L3, S_NR };
static const char *const state_name[] = { "before TUNSETIFF", "tap", "L3" };

/*
 * tapx's documented differences from Debian's tun: the answer tapx gives
 * (-1: none, tapx answers as tun). TUNSETVNETBE/TUNGETVNETBE: tapx has
 * big-endian vnet headers, Debian's tun (no CONFIG_TUN_VNET_CROSS_LE) does
 * not.
 */
static int tapx_differs(const struct ioc *c, enum state st)
{
	if (st != S_UNBOUND &&
	    (c->cmd == TUNSETVNETBE || c->cmd == TUNGETVNETBE))
		return 0;
	return -1;
}

/* One ioctl with its harmless argument: 0 or the errno. */
static int ask(int fd, const struct ioc *c)
{
	struct {
		struct tun_filter f;
		uint8_t addr[ETH_ALEN];
	} txf;
	struct sock_fprog fprog = { 0, NULL };
	struct ifreq ifr = { 0 };
	long arg = 0;
	int v = 0, r;

	switch (c->arg) {
	case A_ZERO:
		break;
	case A_INT0:
	case A_INTM1:
	case A_INTMAX:
	case A_INT10:
		v = c->arg == A_INTM1 ? -1 : c->arg == A_INTMAX ? INT_MAX :
		    c->arg == A_INT10 ? 10 : 0;
		arg = (long)&v;
		break;
	case A_FPROG:
		arg = (long)&fprog;
		break;
	case A_TXF:
		arg = (long)&txf;
		break;
	case A_IFR:
		arg = (long)&ifr;
		break;
	case A_BADID:
		arg = -1L;
		break;
	case A_LINK:
		arg = 65534; /* ARPHRD_NONE */
		break;
	}
	memset(&txf, 0, sizeof(txf));
	r = ioctl(fd, c->cmd, arg);
	if (r < 0)
		return errno;
	if (c->cmd == TUNGETDEVNETNS || c->cmd == SIOCGSKNS)
		close(r);
	return 0;
}

/* A fresh fd of NODE in state @st (device l3io<tag>); -1 on failure. */
static int fd_in(const char *node, enum state st, char tag)
{
	char name[IFNAMSIZ];
	int fd;

	if (st == S_UNBOUND)
		return open(node, O_RDWR);
	snprintf(name, sizeof(name), "l3io%c", tag);
	fd = tap_open(node, name, (st == S_TAP ? IFF_TAP : IFF_TUN) | IFF_NO_PI,
		      0);
	return fd < 0 ? -1 : fd;
}

static const char *err_name(int e)
{
	static char buf[8][16];
	static int i;

	if (!e)
		return "0";
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s", strerrorname_np(e));
	return buf[i];
}

/* The carrier of @name as sysfs has it ("0" or "1"); -1 unreadable. */
static int carrier_of(const char *name)
{
	char path[64];
	int c = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/carrier", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &c) != 1)
			c = -1;
		fclose(f);
	}
	return c;
}

/*
 * TUNSETIFF's flags beyond the features, as iproute2 and others send
 * them: IFF_TUN_EXCL (a new name; an existing one: EBUSY), IFF_NO_CARRIER
 * (the carrier stays off), IFF_NOFILTER. Each answer, and the carrier,
 * must agree between the drivers.
 */
static void setiff_flags(const char *node, char tag, int *carrier, int *ex)
{
	char name[IFNAMSIZ];
	struct ifreq ifr = { 0 };
	int fd, fd2;

	snprintf(name, sizeof(name), "flagio%c", tag);
	ex[0] = ex[1] = ex[2] = -1;
	*carrier = -1;
	fd = open(node, O_RDWR);
	fd2 = open(node, O_RDWR);
	if (fd < 0 || fd2 < 0)
		goto out;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_TUN_EXCL | IFF_NO_CARRIER |
			IFF_NOFILTER;
	ex[0] = ioctl(fd, TUNSETIFF, &ifr) < 0 ? errno : 0;
	/* sysfs has the carrier of a device that is up only. */
	if (!ex[0] && !if_up(name, 1))
		*carrier = carrier_of(name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_TUN_EXCL;
	ex[1] = ioctl(fd2, TUNSETIFF, &ifr) < 0 ? errno : 0;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NOFILTER;
	ex[2] = ioctl(fd2, TUNSETIFF, &ifr) < 0 ? errno : 0;
out:
	if (fd >= 0)
		close(fd);
	if (fd2 >= 0)
		close(fd2);
}

/* The offloads QEMU and others ask for, and bits no kernel knows. */
static const unsigned int offloads[] = {
	0,
	TUN_F_CSUM,
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_UFO,
	TUN_F_CSUM | TUN_F_TSO_ECN, /* ECN without TSO */
	TUN_F_TSO4,		    /* TSO without CSUM */
	TUN_F_UFO,
	TUN_F_CSUM | 0x20 | 0x40, /* USO4|USO6: 6.2 on */
	TUN_F_CSUM | 0x20,	  /* USO4 alone */
	TUN_F_CSUM | 0x40,	  /* USO6 alone */
	0x20 | 0x40,		  /* USO without CSUM */
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN | TUN_F_UFO |
		0x20 | 0x40,	  /* QEMU's probe, 8.x */
	TUN_F_CSUM | 0x80,
	TUN_F_CSUM | 0x100,
	0x80000000,
};

/*
 * GSO over UDP tunnels (TUN_F_UDP_TUNNEL_GSO 0x80, TUN_F_UDP_TUNNEL_GSO_CSUM
 * 0x100), which tun takes from 6.17 on beside a TSO or USO offload, its
 * checksum only with it; before, it refuses them (EINVAL), as QEMU's probe
 * expects. tapx answers as tun for each; on a kernel that has them the
 * first one must be taken (then TUNGETFEATURES-style probes find them).
 */
static const unsigned int tunnel_offloads[] = {
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | 0x80,
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | 0x80 | 0x100,
	TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO_ECN | 0x80 | 0x100,
	TUN_F_CSUM | TUN_F_TSO6 | 0x80,
	TUN_F_CSUM | 0x20 | 0x40 | 0x80,
	TUN_F_CSUM | 0x20 | 0x40 | 0x80 | 0x100,
	TUN_F_CSUM | TUN_F_TSO4 | 0x100,
	TUN_F_CSUM | TUN_F_UFO | 0x80,
	TUN_F_CSUM | TUN_F_TSO_ECN | 0x80,
	TUN_F_TSO4 | 0x80,
	0x80,
	0x80 | 0x100,
};

/* TUNSETVNETHDRSZ values: under, at and over virtio's sizes, huge. */
static const int vnet_sizes[] = { -1, 0, 9, 10, 12, 20, 256, 257, 4096,
				  INT_MAX };

/* TUNSETIFF's features, as tun and tapx keep and report them. */
static const struct {
	const char *name;
	int flags;
} iff_cases[] = {
	{ "tap", IFF_TAP | IFF_NO_PI },
	{ "tap pi vnet_hdr", IFF_TAP | IFF_VNET_HDR },
	{ "tap one_queue", IFF_TAP | IFF_NO_PI | IFF_ONE_QUEUE },
	{ "tap multi_queue", IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE },
	{ "tun", IFF_TUN | IFF_NO_PI },
	{ "tun napi", IFF_TUN | IFF_NAPI },
	{ "tap napi", IFF_TAP | IFF_NO_PI | IFF_NAPI },
	{ "tap napi napi_frags", IFF_TAP | IFF_NO_PI | IFF_NAPI |
					 IFF_NAPI_FRAGS },
	{ "tap napi_frags without napi", IFF_TAP | IFF_NO_PI |
						 IFF_NAPI_FRAGS },
	{ "tun napi napi_frags", IFF_TUN | IFF_NAPI | IFF_NAPI_FRAGS },
	{ "tap with bits no kernel knows", IFF_TAP | IFF_NO_PI | 0x8c },
	{ "tap with IFF_ATTACH_QUEUE", IFF_TAP | IFF_NO_PI | IFF_ATTACH_QUEUE },
	{ "tap multi_queue vnet_hdr napi", IFF_TAP | IFF_NO_PI |
						   IFF_MULTI_QUEUE |
						   IFF_VNET_HDR | IFF_NAPI },
};

/* sysfs tun_flags of @name as a number; -1 if unreadable. */
static long tun_flags_of(const char *name)
{
	char path[64];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/tun_flags", name);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%lx", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* What one driver answers for the values of features and offloads. */
struct answers {
	unsigned int features;
	int offload[sizeof(offloads) / sizeof(offloads[0])];
	int tunnel[sizeof(tunnel_offloads) / sizeof(tunnel_offloads[0])];
	int vnet_set[sizeof(vnet_sizes) / sizeof(vnet_sizes[0])];
	int vnet_get[sizeof(vnet_sizes) / sizeof(vnet_sizes[0])];
	int iff[sizeof(iff_cases) / sizeof(iff_cases[0])];
	int getiff[sizeof(iff_cases) / sizeof(iff_cases[0])];
	int setiff_ret[sizeof(iff_cases) / sizeof(iff_cases[0])];
	long sysfs[sizeof(iff_cases) / sizeof(iff_cases[0])];
	int getiff_filtered; /* TUNGETIFF after TUNATTACHFILTER (PI) */
};

static void ask_values(const char *node, char tag, struct answers *a)
{
	/* One accept-all classic BPF instruction. */
	struct sock_filter ret = BPF_STMT(BPF_RET | BPF_K, 0xffff);
	struct sock_fprog prog = { 1, &ret };
	char name[IFNAMSIZ];
	struct ifreq ifr;
	unsigned int i;
	int fd, v;

	memset(a, 0xff, sizeof(*a));
	fd = open(node, O_RDWR);
	if (fd >= 0 && ioctl(fd, TUNGETFEATURES, &a->features) < 0)
		a->features = 0;
	if (fd >= 0)
		close(fd);

	snprintf(name, sizeof(name), "offio%c", tag);
	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, 0);
	for (i = 0; fd >= 0 && i < sizeof(offloads) / sizeof(offloads[0]); i++)
		a->offload[i] =
			ioctl(fd, TUNSETOFFLOAD, offloads[i]) < 0 ? errno : 0;
	for (i = 0; fd >= 0 &&
		    i < sizeof(tunnel_offloads) / sizeof(tunnel_offloads[0]);
	     i++)
		a->tunnel[i] = ioctl(fd, TUNSETOFFLOAD, tunnel_offloads[i]) < 0 ?
				       errno :
				       0;
	for (i = 0; fd >= 0 && i < sizeof(vnet_sizes) / sizeof(vnet_sizes[0]);
	     i++) {
		v = vnet_sizes[i];
		a->vnet_set[i] = ioctl(fd, TUNSETVNETHDRSZ, &v) < 0 ? errno : 0;
		a->vnet_get[i] = ioctl(fd, TUNGETVNETHDRSZ, &v) < 0 ? -errno : v;
	}
	if (fd >= 0)
		close(fd);

	for (i = 0; i < sizeof(iff_cases) / sizeof(iff_cases[0]); i++) {
		snprintf(name, sizeof(name), "iffio%u%c", i, tag);
		fd = open(node, O_RDWR);
		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
		ifr.ifr_flags = iff_cases[i].flags;
		a->iff[i] = fd < 0 ? -1 : ioctl(fd, TUNSETIFF, &ifr) < 0 ? errno : 0;
		if (!a->iff[i]) {
			/* The flags TUNSETIFF wrote back. */
			a->setiff_ret[i] = (unsigned short)ifr.ifr_flags;
			a->sysfs[i] = tun_flags_of(name);
			memset(&ifr, 0, sizeof(ifr));
			a->getiff[i] = ioctl(fd, TUNGETIFF, &ifr) < 0 ?
					       -errno :
					       (unsigned short)ifr.ifr_flags;
			if (i == 1 && !ioctl(fd, TUNATTACHFILTER, &prog) &&
			    !ioctl(fd, TUNGETIFF, &ifr))
				a->getiff_filtered = (unsigned short)ifr.ifr_flags;
		}
		if (fd >= 0)
			close(fd);
	}
}

/*
 * The values tun and tapx give: TUNGETFEATURES, TUNSETOFFLOAD's answer to
 * each set of offloads (USO from 6.2 on), TUNSETVNETHDRSZ's bounds, and
 * for TUNSETIFF's feature flags (IFF_NAPI_FRAGS among them) the answer,
 * TUNGETIFF's flags (IFF_NOFILTER until a filter is attached) and sysfs
 * tun_flags. Each must agree between the drivers.
 */
static void compare_values(const char *tun, const char *tapx)
{
	static struct answers t, x;
	unsigned int i;

	ask_values(tun, 't', &t);
	ask_values(tapx, 'x', &x);
	check(t.features == x.features,
	      "TUNGETFEATURES: tun 0x%x, tapx 0x%x", t.features, x.features);
	for (i = 0; i < sizeof(offloads) / sizeof(offloads[0]); i++)
		check(t.offload[i] == x.offload[i],
		      "TUNSETOFFLOAD 0x%x: tun %s, tapx %s", offloads[i],
		      err_name(t.offload[i]), err_name(x.offload[i]));
	for (i = 0; i < sizeof(tunnel_offloads) / sizeof(tunnel_offloads[0]);
	     i++)
		check(t.tunnel[i] == x.tunnel[i],
		      "TUNSETOFFLOAD 0x%x (UDP tunnel GSO): tun %s, tapx %s",
		      tunnel_offloads[i], err_name(t.tunnel[i]),
		      err_name(x.tunnel[i]));
	check(!tnl_kernel() || !x.tunnel[0],
	      "TUNSETOFFLOAD 0x%x on a kernel with UDP tunnel GSO (6.17 on): "
	      "tapx %s, want 0", tunnel_offloads[0], err_name(x.tunnel[0]));
	for (i = 0; i < sizeof(vnet_sizes) / sizeof(vnet_sizes[0]); i++)
		check(t.vnet_set[i] == x.vnet_set[i] &&
			      t.vnet_get[i] == x.vnet_get[i],
		      "TUNSETVNETHDRSZ %d: tun %s (then %d), tapx %s (then %d)",
		      vnet_sizes[i], err_name(t.vnet_set[i]), t.vnet_get[i],
		      err_name(x.vnet_set[i]), x.vnet_get[i]);
	for (i = 0; i < sizeof(iff_cases) / sizeof(iff_cases[0]); i++)
		check(t.iff[i] == x.iff[i] && t.getiff[i] == x.getiff[i] &&
			      t.sysfs[i] == x.sysfs[i] &&
			      t.setiff_ret[i] == x.setiff_ret[i],
		      "TUNSETIFF %s: tun %s (0x%x back) TUNGETIFF 0x%x "
		      "tun_flags 0x%lx, tapx %s (0x%x back) TUNGETIFF 0x%x "
		      "tun_flags 0x%lx",
		      iff_cases[i].name, err_name(t.iff[i]), t.setiff_ret[i],
		      t.getiff[i], t.sysfs[i], err_name(x.iff[i]),
		      x.setiff_ret[i], x.getiff[i], x.sysfs[i]);
	check(t.getiff_filtered == x.getiff_filtered &&
		      !(x.getiff_filtered & IFF_NOFILTER),
	      "TUNGETIFF after TUNATTACHFILTER: tun 0x%x, tapx 0x%x (no "
	      "IFF_NOFILTER)",
	      t.getiff_filtered, x.getiff_filtered);
	/* IFF_NOFILTER is IFF_NO_PI's bit: seen on a device with PI only. */
	check(x.getiff[1] >= 0 && (x.getiff[1] & IFF_NOFILTER),
	      "TUNGETIFF without a filter: tapx 0x%x has IFF_NOFILTER",
	      x.getiff[1]);
}

int main(int argc, char **argv)
{
	static const char *const flag_case[] = {
		"IFF_TUN_EXCL|IFF_NO_CARRIER|IFF_NOFILTER, new device",
		"IFF_TUN_EXCL, existing device",
		"IFF_NOFILTER, existing device",
	};
	int ct, cx, et3[3], ex3[3];
	const char *tun = argv[1], *tapx = argv[2];
	unsigned int i;
	int st;

	if (argc != 3) {
		fprintf(stderr, "usage: tapx-ioctl TUN_NODE TAPX_NODE\n");
		return 2;
	}
	for (st = 0; st < S_NR; st++) {
		for (i = 0; i < sizeof(iocs) / sizeof(iocs[0]); i++) {
			const struct ioc *c = &iocs[i];
			/* A fresh fd per question: no answer sees another's. */
			int ft = fd_in(tun, st, 't'), fx = fd_in(tapx, st, 'x');
			int et, ex, want;

			if (ft < 0 || fx < 0) {
				check(0, "ioctl %s %s: open (%s)", c->name,
				      state_name[st], strerror(errno));
				goto next;
			}
			et = ask(ft, c);
			ex = ask(fx, c);
			want = tapx_differs(c, st);
			if (want < 0)
				check(et == ex, "ioctl %s %s: tun %s, tapx %s",
				      c->name, state_name[st], err_name(et),
				      err_name(ex));
			else
				check(ex == want,
				      "ioctl %s %s: tapx %s (documented; tun %s)",
				      c->name, state_name[st], err_name(ex),
				      err_name(et));
next:
			if (ft >= 0)
				close(ft);
			if (fx >= 0)
				close(fx);
		}
	}
	setiff_flags(tun, 't', &ct, et3);
	setiff_flags(tapx, 'x', &cx, ex3);
	for (i = 0; i < 3; i++)
		check(et3[i] == ex3[i], "TUNSETIFF %s: tun %s, tapx %s",
		      flag_case[i], err_name(et3[i]), err_name(ex3[i]));
	check(ct == 0 && cx == 0, "TUNSETIFF IFF_NO_CARRIER: carrier tun %d, tapx %d (want 0)",
	      ct, cx);
	compare_values(tun, tapx);
	return failures ? 1 : 0;
}
