// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-ioctl TUN_NODE TAPX_NODE - every TUN* ioctl of linux/if_tun.h, and
 * the SIOC[GS]IFHWADDR that tun answers on its fd too, asked
 * of stock tun.ko and of tapx in the same states (before TUNSETIFF, on a
 * tap, on an L3 device) with the same harmless arguments: the answers
 * (0 or the errno) must agree, but for tapx's documented differences
 * (kmod/README.md, "tun's ioctls"), where tapx's own answer is checked;
 * then TUNSETIFF with the flags beyond the features (setiff_flags).
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <linux/filter.h>
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
	if (c->cmd == TUNGETDEVNETNS)
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
	return failures ? 1 : 0;
}
