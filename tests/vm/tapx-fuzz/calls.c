// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz's calls: one function a call kind, one_call() draws one.
 */
#include "fuzz.h"

const char *const kname[NK] = {
#define X(k, w) #k,
	KINDS(X)
#undef X
};
static const int kweight[NK] = {
#define X(k, w) w,
	KINDS(X)
#undef X
};

/* ---- the calls ---- */

static void setiff_on(int fd, int up);

static void k_open(void)
{
	int i = rn(NSLOTS), nb = rn(2), fd, old;

	int attach = rn(4), up = rn(2);

	say("open %s%s -> slot %d", node, nb ? " O_NONBLOCK" : "", i);
	fd = CALL(K_OPEN, open(node, O_RDWR | O_CLOEXEC | (nb ? O_NONBLOCK : 0)));
	if (fd >= 0) {
		old = __atomic_exchange_n(&slots[i], fd, __ATOMIC_SEQ_CST);
		if (old >= 0)
			close(old);
	}
	/* Mostly attach it right away (two more calls, in the ring too). */
	if (attach)
		setiff_on(fd, up);
}

static void k_close(void)
{
	int i = rn(NSLOTS), fd;

	fd = __atomic_exchange_n(&slots[i], -1, __ATOMIC_SEQ_CST);
	say("close slot %d fd %d", i, fd);
	CALL(K_CLOSE, fd >= 0 ? close(fd) : (errno = EBADF, -1));
}

static void k_dup(void)
{
	int i = rn(NSLOTS), fd = slot_fd(), nfd, old;

	say("dup fd %d -> slot %d", fd, i);
	nfd = CALL(K_DUP, fcntl(fd, F_DUPFD_CLOEXEC, 0));
	if (nfd < 0)
		return;
	old = __atomic_exchange_n(&slots[i], nfd, __ATOMIC_SEQ_CST);
	if (old >= 0)
		close(old);
}

static short gen_flags(void)
{
	static const short bits[] = { IFF_TAP,	       IFF_NO_PI,  IFF_VNET_HDR,
				      IFF_MULTI_QUEUE, IFF_NAPI,   IFF_ONE_QUEUE,
				      IFF_PERSIST,     IFF_TUN,	   IFF_NAPI_FRAGS,
				      IFF_ATTACH_QUEUE, IFF_DETACH_QUEUE,
				      IFF_NOFILTER };
	short f = 0;

	if (rn(4)) {
		/* What tapx takes: IFF_TAP and a subset of its features. */
		f = IFF_TAP;
		if (rn(2))
			f |= IFF_NO_PI;
		if (rn(2))
			f |= IFF_VNET_HDR;
		if (chance(4))
			f |= IFF_NAPI;
		if (chance(6))
			f |= IFF_ONE_QUEUE;
		if (chance(8))
			f |= IFF_PERSIST;
		return f;
	}
	if (chance(10))
		return rnd();
	for (unsigned int i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (rn(i < 3 ? 2 : 7) == 0)
			f |= bits[i];
	if (!chance(10))
		f |= IFF_TAP;
	if (chance(12))
		f &= ~IFF_TUN;
	return f;
}

static void k_setiff(void)
{
	setiff_on(slot_fd(), 0);
}

static void setiff_on(int fd, int up)
{
	unsigned char *a = T->arena;
	struct ifreq *ifr = (void *)(a + rn(64));
	const char *what;
	char nm[IFNAMSIZ + 1], name[IFNAMSIZ + 1];
	void *p;
	long r;

	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, pick_name(nm), IFNAMSIZ);
	ifr->ifr_flags = gen_flags();
	/* Multi-queue names get the flag (mostly), the others not. */
	if (!strncmp(ifr->ifr_name, "xfm", 3) && rn(8))
		ifr->ifr_flags |= IFF_MULTI_QUEUE;
	else if (rn(8))
		ifr->ifr_flags &= ~IFF_MULTI_QUEUE;
	p = hostile(ifr, sizeof(*ifr), 1, &what);
	say("TUNSETIFF fd %d name %.16s flags 0x%x ifr %s", fd, ifr->ifr_name,
	    (unsigned short)ifr->ifr_flags, what);
	r = CALL(K_SETIFF, ioctl(fd, TUNSETIFF, p));
	if (r || !up || p != ifr)
		return;
	/* The name the kernel gave it: link up, so the stack sends to it. */
	{
		struct nlreq q;

		snprintf(name, sizeof(name), "%.16s", ifr->ifr_name);
		nl_init(&q, RTM_SETLINK, name);
		q.ifi.ifi_change = IFF_UP;
		q.ifi.ifi_flags = IFF_UP;
		say("link %s up", name);
		CALL(K_LINK, nl_talk(&q));
	}
}

static void k_getiff(void)
{
	struct ifreq ifr;
	int fd = slot_fd();
	const char *what;
	void *p = hostile(&ifr, sizeof(ifr), 1, &what);

	say("TUNGETIFF fd %d buf %s", fd, what);
	CALL(K_GETIFF, ioctl(fd, TUNGETIFF, p));
}

static unsigned long gen_ulong(void)
{
	static const unsigned long v[] = { 0, 1, 2, 0xffffffffUL, ~0UL, 65534,
					   0x7fffffff, 0x80000000UL };

	return rn(3) ? v[rn(sizeof(v) / sizeof(v[0]))] : rnd();
}

static void k_byval(int kind, unsigned long cmd, const char *name)
{
	int fd = slot_fd();
	unsigned long v = gen_ulong();

	say("%s fd %d arg 0x%lx", name, fd, v);
	CALL(kind, ioctl(fd, cmd, v));
}

/* Get or set an int through a pointer. */
static void k_byptr(int kind, unsigned long set, unsigned long get,
		    const char *name, const int *vals, int nvals)
{
	int fd = slot_fd(), *v = (int *)(T->arena + 8 * rn(8));
	int is_get = rn(3) == 0;
	const char *what;
	void *p;

	*v = rn(4) ? vals[rn(nvals)] : (int)rnd();
	p = hostile(v, sizeof(*v), is_get, &what);
	say("%s%s fd %d val %d ptr %s", is_get ? "GET" : "SET", name, fd, *v, what);
	CALL(kind, ioctl(fd, is_get ? get : set, p));
}

static void k_queue(void)
{
	struct ifreq *ifr = (void *)(T->arena + 256);
	int fd = slot_fd();
	const char *what;
	void *p;

	memset(ifr, 0, sizeof(*ifr));
	switch (rn(6)) {
	case 0:
	case 1:
		ifr->ifr_flags = IFF_ATTACH_QUEUE;
		break;
	case 2:
	case 3:
		ifr->ifr_flags = IFF_DETACH_QUEUE;
		break;
	case 4:
		ifr->ifr_flags = IFF_ATTACH_QUEUE | IFF_DETACH_QUEUE;
		break;
	default:
		ifr->ifr_flags = rnd();
		break;
	}
	p = hostile(ifr, sizeof(*ifr), 0, &what);
	say("TUNSETQUEUE fd %d flags 0x%x ifr %s", fd,
	    (unsigned short)ifr->ifr_flags, what);
	CALL(K_QUEUE, ioctl(fd, TUNSETQUEUE, p));
}

/*
 * The rest of tun's ioctls (filters, checksum and debug switches) with
 * whatever argument, and 'T' numbers tapx does not know. (Not
 * TUNGETDEVNETNS, whose fds would pile up, nor TUNSETIFINDEX, which would
 * pick the ifindex of the next device.)
 */
static void k_tunother(void)
{
	static const unsigned long cmds[] = {
		TUNSETNOCSUM,	    TUNSETDEBUG,
		TUNATTACHFILTER,    TUNDETACHFILTER,	TUNGETFILTER,
		TUNSETTXFILTER,	    TUNSETSTEERINGEBPF,
		TUNSETFILTEREBPF,   _IOW('T', 228, int),
		_IOW('T', 239, int), _IOWR('T', 242, struct tapx_batch),
		_IOR('T', 241, struct tapx_batch), _IOW('T', 240, int),
	};
	unsigned long cmd = cmds[rn(sizeof(cmds) / sizeof(cmds[0]))];
	int fd = slot_fd();
	const char *what;
	void *p = hostile(T->arena + 512, 64, 1, &what);
	struct sock_fprog *sf = (void *)(T->arena + 512);

	memset(T->arena + 512, 0, 64);
	sf->len = rn(4);
	sf->filter = (void *)(T->arena + 600);
	say("tun ioctl 0x%lx fd %d arg %s", cmd, fd, what);
	CALL(K_TUNOTHER, ioctl(fd, cmd, rn(4) ? p : (void *)gen_ulong()));
}

static void k_randioctl(void)
{
	unsigned long cmd;
	int fd = slot_fd();

	if (rn(2))
		cmd = _IOC(rn(4), 'T', rn(256), rn(64));
	else
		cmd = (unsigned int)rnd();
	/* Never FIONBIO & co. with a bad pointer: they are the VFS's. */
	say("ioctl fd %d cmd 0x%lx", fd, cmd);
	CALL(K_RANDIOCTL, ioctl(fd, cmd, T->arena + 1024));
}

/* One frame in the arena at a random (odd) offset. */
static unsigned char *frame_at(size_t *t, size_t room)
{
	int pi, vsz;
	size_t off = rn(2) ? rn(PG) : 0;
	unsigned char *b = T->arena + off;

	guess_meta(&pi, &vsz);
	*t = gen_frame(b, room - off, pi, vsz);
	return b;
}

static void k_write(void)
{
	int fd = slot_fd();
	size_t t;
	unsigned char *b = frame_at(&t, 70000 + PG);
	const char *what;
	void *p = hostile(b, t, 0, &what);
	size_t len = chance(40) ? (size_t)gen_ulong() : t;

	say("write fd %d len %zu buf %s", fd, len, what);
	CALL(K_WRITE, write(fd, p, len));
}

static int gen_iov(struct iovec *iov, int max, unsigned char *b, size_t t,
		   const char **what)
{
	int n = 1 + rn(max), i;
	size_t off = 0, k;

	*what = "ok";
	for (i = 0; i < n; i++) {
		k = i == n - 1 ? t - off : rn(t - off + 1);
		iov[i].iov_base = b + off;
		iov[i].iov_len = k;
		off += k;
	}
	if (chance(6)) {
		i = rn(n);
		iov[i].iov_base = hostile(iov[i].iov_base, iov[i].iov_len,
					  0, what);
	}
	return n;
}

static void k_writev(void)
{
	int fd = slot_fd(), n;
	size_t t;
	unsigned char *b = frame_at(&t, 70000 + PG);
	struct iovec iov[8];
	const char *what;

	n = gen_iov(iov, 8, b, t, &what);
	say("writev fd %d len %zu niov %d bad %s", fd, t, n, what);
	CALL(K_WRITEV, writev(fd, iov, n));
}

static size_t read_len(void)
{
	static const size_t v[] = { 0, 1, 3, 4, 9, 10, 13, 14, 60, 100, 1514,
				    3520, 65535, 65549, 70000 };

	return rn(3) ? 70000 : v[rn(sizeof(v) / sizeof(v[0]))];
}

static void k_read(void)
{
	int fd = slot_fd(), block = 1; /* the fd may be a blocking one */
	unsigned char *b = T->arena + 72 * 1024;
	size_t len = read_len();
	const char *what;
	void *p = hostile(b, len > ARENA - 72 * 1024 ? 0 : len, 1, &what);

	if (len > ARENA - 72 * 1024 && !strcmp(what, "ok"))
		len = ARENA - 72 * 1024;
	say("read fd %d len %zu buf %s%s", fd, len, what, block ? " timer" : "");
	if (block)
		arm(10 + rn(60));
	CALL(K_READ, read(fd, p, len));
	if (block)
		disarm();
}

static void k_readv(void)
{
	int fd = slot_fd(), n;
	unsigned char *b = T->arena + 72 * 1024;
	struct iovec iov[4];
	const char *what;

	n = gen_iov(iov, 4, b, read_len() % (ARENA - 72 * 1024), &what);
	say("readv fd %d niov %d bad %s timer", fd, n, what);
	arm(10 + rn(60));
	CALL(K_READV, readv(fd, iov, n));
	disarm();
}

static void k_poll(void)
{
	struct pollfd p[3];
	int n = 1 + rn(3), i;

	for (i = 0; i < n; i++) {
		p[i].fd = slot_fd();
		p[i].events = rn(2) ? POLLIN : (POLLIN | POLLOUT | POLLERR);
		p[i].revents = 0;
	}
	say("poll %d fds (%d..) %d ms", n, p[0].fd, 20);
	CALL(K_POLL, poll(p, n, rn(2) ? 0 : 20));
}

/*
 * A descriptor array for TAPXSUBMIT or TAPXRECV, in the arena's first
 * page-aligned 8 KiB after 128 KiB; frames or buffers after it.
 */
static struct tapx_batch *gen_batch(int recv, const char **what, char *info,
				    size_t infolen)
{
	unsigned char *a = T->arena;
	struct tapx_desc *d = (void *)(a + 128 * 1024);
	/* after the 256 descriptors */
	struct tapx_batch *b = (void *)(a + 132 * 1024 + 64);
	unsigned int count, i, nbad = 0, nbig = 0;
	unsigned char *fr = a; /* frames: the first 128 KiB */
	size_t used = 0;

	switch (rn(10)) {
	case 0:
		count = (const unsigned int[]){ 0, 257, 1000, 0xffffffffU,
						256 }[rn(5)];
		break;
	case 1:
	case 2:
		count = 1 + rn(256);
		break;
	default:
		count = 1 + rn(16);
		break;
	}
	memset(b, 0, sizeof(*b));
	b->descs = (uintptr_t)d;
	b->count = count;
	if (chance(30))
		b->flags = rnd();
	if (chance(30))
		b->reserved = rnd();
	if (chance(12)) {
		const char *dw;

		b->descs = (uintptr_t)hostile(d, count * sizeof(*d), !recv, &dw);
		if (chance(2)) /* the array runs into the guard page */
			b->descs = (uintptr_t)(a + ARENA - 16 * (1 + rn(8)));
	}
	for (i = 0; i < count && i < 256; i++) {
		size_t t;
		const char *w;

		if (recv) {
			size_t len = read_len();
			/* buffers share the frame area (they may overlap) */
			size_t off = rn(128 * 1024 - (len < 65536 ? len : 65536));

			d[i].addr = (uintptr_t)(fr + off);
			d[i].len = len;
		} else {
			int pi, vsz;
			size_t room = used < 128 * 1024 ? 128 * 1024 - used : 0;

			guess_meta(&pi, &vsz);
			if (room < 300 || (nbig > 2 && rn(4))) {
				/* reuse an earlier frame's bytes */
				size_t off = rn(used ? used : 1);
				d[i].addr = (uintptr_t)(fr + off);
				d[i].len = rn(2) ? 60 : rn(300);
			} else {
				t = gen_frame(fr + used, room, pi, vsz);
				d[i].addr = (uintptr_t)(fr + used);
				d[i].len = t;
				used += t + rn(8);
				if (t > 4096)
					nbig++;
			}
		}
		if (chance(12)) {
			d[i].addr = (uintptr_t)hostile((void *)(uintptr_t)d[i].addr,
						       d[i].len, recv, &w);
			nbad++;
		}
		if (chance(40))
			d[i].len = gen_ulong();
		d[i].status = rnd();
	}
	*what = (void *)b->descs == d ? "ok" : "bad";
	snprintf(info, infolen, "count %u flags %u res %u descs %s bad %u",
		 count, b->flags, b->reserved, *what, nbad);
	return b;
}

static void k_batch(int recv)
{
	int fd = slot_fd(), block = recv;
	const char *what, *bw;
	char info[80];
	struct tapx_batch *b = gen_batch(recv, &what, info, sizeof(info));
	void *p = hostile(b, sizeof(*b), 1, &bw);

	say("%s fd %d %s batch %s%s", recv ? "TAPXRECV" : "TAPXSUBMIT", fd,
	    info, bw, block ? " timer" : "");
	if (block)
		arm(10 + rn(60));
	CALL(recv ? K_RECV : K_SUBMIT,
	     ioctl(fd, recv ? TAPXRECV : TAPXSUBMIT, p));
	if (block)
		disarm();
}

static void k_uring(int w)
{
	int fd = slot_fd(), v = rn(2);
	unsigned char *b;
	size_t t;
	int n;
	const char *what = "ok";
	struct iovec *iov;

	if (w) {
		b = frame_at(&t, 70000 + PG);
	} else {
		b = T->arena + 72 * 1024;
		t = read_len() % (ARENA - 72 * 1024);
	}
	iov = T->uiov[T->sh->calls % 8];
	n = gen_iov(iov, 4, b, t, &what);
	say("io_uring %s%s fd %d len %zu bad %s", w ? "write" : "read",
	    v ? "v" : "", fd, t, what);
	if (v)
		CALL(w ? K_URING_W : K_URING_R,
		     uring_rw(w ? IORING_OP_WRITEV : IORING_OP_READV, fd, iov, n));
	else
		CALL(w ? K_URING_W : K_URING_R,
		     uring_rw(w ? IORING_OP_WRITE : IORING_OP_READ, fd, iov[0].iov_base,
			      iov[0].iov_len));
}

static void k_uring_reset(void)
{
	say("io_uring close ring %d (%u in flight)", T->ring, T->inflight);
	CALL(K_URING_RESET, (uring_close(), 0));
}

static void k_xdp(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	struct rtattr *nest;
	int prog = nprog ? progs[rn(nprog)] : -1;
	unsigned int flags = 0;

	switch (rn(8)) {
	case 0:
		prog = -1; /* detach */
		break;
	case 1:
		flags = XDP_FLAGS_SKB_MODE;
		break;
	case 2:
		flags = XDP_FLAGS_UPDATE_IF_NOEXIST;
		break;
	case 3:
		flags = rnd() & 0x1f;
		break;
	}
	if (!(flags & (XDP_FLAGS_SKB_MODE | XDP_FLAGS_HW_MODE)))
		flags |= XDP_FLAGS_DRV_MODE;
	if (no_generic_frags && (flags & XDP_FLAGS_SKB_MODE) &&
	    prog == fd_fuzz_frags)
		prog = fd_fuzz_linear;
	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nest = (struct rtattr *)((char *)&r + NLMSG_ALIGN(r.nh.nlmsg_len));
	nest->rta_type = IFLA_XDP | NLA_F_NESTED;
	r.nh.nlmsg_len = NLMSG_ALIGN(r.nh.nlmsg_len) + RTA_LENGTH(0);
	nl_put(&r, IFLA_XDP_FD, &prog, sizeof(prog));
	nl_put(&r, IFLA_XDP_FLAGS, &flags, sizeof(flags));
	nest->rta_len = (char *)&r + r.nh.nlmsg_len - (char *)nest;
	say("xdp %s prog fd %d flags 0x%x", nm, prog, flags);
	CALL(K_XDP, nl_talk(&r));
}

static void k_mapset(void)
{
	char nm[IFNAMSIZ];
	unsigned int ifi = if_nametoindex(dev_name(nm));
	uint32_t key = rn(8);

	int l = rn(2); /* the frags program's maps or the linear one's */

	switch (rn(5)) {
	case 0:
		say("fuzz_ports%s[%u] = %s (%u)", l ? "_linear" : "", key, nm, ifi);
		CALL(K_MAPSET, map_set(map_ports[l], key, ifi));
		break;
	case 1:
		say("fuzz_ports%s[%u] deleted", l ? "_linear" : "", key);
		CALL(K_MAPSET, map_del(map_ports[l], key));
		break;
	case 2:
		key &= 1;
		ifi = rn(2) ? 0 : 16 + rn(512);
		say("fuzz_cpus%s[%u] qsize %u", l ? "_linear" : "", key, ifi);
		CALL(K_MAPSET, ifi ? map_set(map_cpus[l], key, ifi) :
				     map_del(map_cpus[l], key));
		break;
	case 3:
		if (rn(2))
			ifi = rn(64);
		say("fuzz_ifindex[%u] = %u", key, ifi);
		CALL(K_MAPSET, map_set(map_ifindex, key, ifi));
		break;
	default:
		ifi = rnd();
		say("fuzz_ctl[0] = 0x%x", ifi);
		CALL(K_MAPSET, map_set(map_ctl, 0, ifi));
		break;
	}
}

static void k_link(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	int up = rn(2);

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	r.ifi.ifi_change = IFF_UP;
	r.ifi.ifi_flags = up ? IFF_UP : 0;
	say("link %s %s", nm, up ? "up" : "down");
	CALL(K_LINK, nl_talk(&r));
}

static void k_mtu(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	static const int v[] = { 0, 67, 68, 1500, 3500, 9000, 65521, 65522,
				 65535, -1 };
	int mtu = v[rn(sizeof(v) / sizeof(v[0]))];

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_MTU, &mtu, sizeof(mtu));
	say("mtu %s %d", nm, mtu);
	CALL(K_MTU, nl_talk(&r));
}

static void k_mac(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	unsigned char mac[6];

	for (int i = 0; i < 6; i++)
		mac[i] = rnd();
	if (rn(2))
		mac[0] = 0x02;
	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_ADDRESS, mac, 6);
	say("mac %s %02x:..", nm, mac[0]);
	CALL(K_MAC, nl_talk(&r));
}

static void k_dellink(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];

	nl_init(&r, RTM_DELLINK, dev_name(nm));
	say("dellink %s", nm);
	CALL(K_DELLINK, nl_talk(&r));
}

/* Moves a device to the other network namespace (if there is one). */
static void k_netns(void)
{
	struct nlreq r;
	char nm[IFNAMSIZ];
	uint32_t pid = g->netns_pid[proc_id == 1 ? 0 : 1];

	nl_init(&r, RTM_SETLINK, dev_name(nm));
	nl_put(&r, IFLA_NET_NS_PID, &pid, sizeof(pid));
	say("move %s to the netns of pid %u", nm, pid);
	CALL(K_NETNS, pid ? nl_talk(&r) : (errno = ESRCH, -1));
}

static void k_dump(void)
{
	struct nlreq r;

	nl_init(&r, RTM_GETLINK, NULL);
	r.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	say("RTM_GETLINK dump");
	CALL(K_DUMP, nl_talk(&r));
}

static int ethtool_call(const char *nm, void *data)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", nm);
	ifr.ifr_data = data;
	r = ioctl(s, SIOCETHTOOL, &ifr);
	close(s);
	return r;
}

static void k_ethtool(void)
{
	char nm[IFNAMSIZ];
	unsigned char *a = T->arena + 140 * 1024;
	struct ethtool_stats *st = (void *)a;
	struct ethtool_gstrings *gs = (void *)a;
	struct ethtool_drvinfo *di = (void *)a;
	struct ethtool_link_settings *ks = (void *)a;

	dev_name(nm);
	memset(a, 0, 4096);
	switch (rn(4)) {
	case 0:
		st->cmd = ETHTOOL_GSTATS;
		st->n_stats = rn(2) ? 600 : rn(1000);
		say("ethtool GSTATS %s", nm);
		break;
	case 1:
		gs->cmd = ETHTOOL_GSTRINGS;
		gs->string_set = rn(2) ? ETH_SS_STATS : rn(8);
		say("ethtool GSTRINGS %s set %u", nm, gs->string_set);
		break;
	case 2:
		di->cmd = ETHTOOL_GDRVINFO;
		say("ethtool GDRVINFO %s", nm);
		break;
	default:
		ks->cmd = ETHTOOL_GLINKSETTINGS;
		say("ethtool GLINKSETTINGS %s", nm);
		break;
	}
	CALL(K_ETHTOOL, ethtool_call(nm, a));
}

/* A frame from the stack into a tapx device: what read() returns. */
static void k_pktsend(void)
{
	char nm[IFNAMSIZ];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int vnet = rn(2);
	size_t t;
	unsigned char *b;

	if (T->pkt < 0) {
		T->pkt = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (T->pkt < 0) {
			say("socket AF_PACKET");
			CALL(K_PKTSEND, -1);
			return;
		}
	}
	setsockopt(T->pkt, SOL_PACKET, PACKET_VNET_HDR, &vnet, sizeof(vnet));
	sll.sll_ifindex = if_nametoindex(dev_name(nm));
	sll.sll_halen = 6;
	b = T->arena + 64;
	t = gen_frame(b, 66000, 0, vnet ? 10 : 0);
	say("packet send %s (%d) len %zu vnet %d", nm, sll.sll_ifindex, t, vnet);
	CALL(K_PKTSEND, sendto(T->pkt, b, t, MSG_DONTWAIT, (void *)&sll,
			       sizeof(sll)));
}

static void k_mprotect(void)
{
	int on = rn(2);

	say("mprotect flaky page %s", on ? "rw" : "none");
	CALL(K_MPROTECT,
	     mprotect(flaky, PG, on ? PROT_READ | PROT_WRITE : PROT_NONE));
}

int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = write(fd, s, strlen(s));
	close(fd);
	return r < 0 ? -1 : 0;
}

static void k_napiparam(void)
{
	int v = rn(2);

	say("napi param = %d", v);
	CALL(K_NAPIPARAM,
	     write_file("/sys/module/tapx/parameters/napi", v ? "1" : "0"));
}

int load_tapx(const char *params)
{
	int fd = open(ko, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -1;
	r = syscall(__NR_finit_module, fd, params, 0);
	close(fd);
	return r;
}

/* Expected to fail while fds are open; if it worked, load tapx again. */
static void k_rmmod(void)
{
	long r;

	say("delete_module tapx (then finit_module if it went)");
	r = CALL(K_RMMOD, syscall(__NR_delete_module, "tapx", O_NONBLOCK));
	if (!r)
		load_tapx("");
}

/*
 * Kinds that take no rtnl: what the data threads (every odd thread of a
 * process) do, so that frames keep flowing while the control threads
 * create, change and delete the devices under them (on a debug kernel an
 * rtnl holder can take seconds, and a control thread mostly waits).
 */
static int data_kind(int k)
{
	switch (k) {
	case K_DUP: case K_FEATURES: case K_WRITE: case K_WRITEV: case K_READ:
	case K_READV: case K_POLL: case K_SUBMIT: case K_RECV: case K_URING_W:
	case K_URING_R: case K_URING_RESET: case K_MAPSET: case K_PKTSEND:
	case K_MPROTECT:
		return 1;
	}
	return 0;
}

void one_call(void)
{
	static int total[2];
	int k, r, data = T->w % 2;

	if (!total[data])
		for (k = 0; k < NK; k++)
			total[data] += data && !data_kind(k) ? 0 : kweight[k];
	r = rn(total[data]);
	for (k = 0; k < NK - 1; k++) {
		int wk = data && !data_kind(k) ? 0 : kweight[k];

		if (r < wk)
			break;
		r -= wk;
	}

	switch (k) {
	case K_OPEN: k_open(); break;
	case K_CLOSE: k_close(); break;
	case K_DUP: k_dup(); break;
	case K_SETIFF: k_setiff(); break;
	case K_GETIFF: k_getiff(); break;
	case K_PERSIST: k_byval(k, TUNSETPERSIST, "TUNSETPERSIST"); break;
	case K_OWNER: k_byval(k, TUNSETOWNER, "TUNSETOWNER"); break;
	case K_GROUP: k_byval(k, TUNSETGROUP, "TUNSETGROUP"); break;
	case K_OFFLOAD: k_byval(k, TUNSETOFFLOAD, "TUNSETOFFLOAD"); break;
	case K_VNETHDRSZ:
		k_byptr(k, TUNSETVNETHDRSZ, TUNGETVNETHDRSZ, "VNETHDRSZ",
			(const int[]){ 10, 12, 10, 12, 20, 256, 9, 257, 0, -1 }, 10);
		break;
	case K_SNDBUF:
		k_byptr(k, TUNSETSNDBUF, TUNGETSNDBUF, "SNDBUF",
			(const int[]){ 0, -1, 1, 65536, 0x7fffffff }, 5);
		break;
	case K_VNETLE:
		k_byptr(k, TUNSETVNETLE, TUNGETVNETLE, "VNETLE",
			(const int[]){ 0, 1, 0, 1, 0, -1 }, 6);
		break;
	case K_VNETBE:
		k_byptr(k, TUNSETVNETBE, TUNGETVNETBE, "VNETBE",
			(const int[]){ 0, 0, 0, 1 }, 4);
		break;
	case K_CARRIER:
		k_byptr(k, TUNSETCARRIER, TUNSETCARRIER, "CARRIER",
			(const int[]){ 0, 1, 1 }, 3);
		break;
	case K_FEATURES: {
		unsigned int *v = (void *)(T->arena + 32);
		const char *what;
		void *p = hostile(v, 4, 1, &what);
		int fd = slot_fd();

		say("TUNGETFEATURES fd %d ptr %s", fd, what);
		CALL(k, ioctl(fd, TUNGETFEATURES, p));
		break;
	}
	case K_QUEUE: k_queue(); break;
	case K_TUNOTHER: k_tunother(); break;
	case K_RANDIOCTL: k_randioctl(); break;
	case K_WRITE: k_write(); break;
	case K_WRITEV: k_writev(); break;
	case K_READ: k_read(); break;
	case K_READV: k_readv(); break;
	case K_POLL: k_poll(); break;
	case K_SUBMIT: k_batch(0); break;
	case K_RECV: k_batch(1); break;
	case K_URING_W: k_uring(1); break;
	case K_URING_R: k_uring(0); break;
	case K_URING_RESET: k_uring_reset(); break;
	case K_XDP: k_xdp(); break;
	case K_MAPSET: k_mapset(); break;
	case K_LINK: k_link(); break;
	case K_MTU: k_mtu(); break;
	case K_MAC: k_mac(); break;
	case K_DELLINK: k_dellink(); break;
	case K_DUMP: k_dump(); break;
	case K_ETHTOOL: k_ethtool(); break;
	case K_PKTSEND: k_pktsend(); break;
	case K_MPROTECT: k_mprotect(); break;
	case K_NAPIPARAM: k_napiparam(); break;
	case K_NETNS: k_netns(); break;
	case K_RMMOD: k_rmmod(); break;
	}
}
