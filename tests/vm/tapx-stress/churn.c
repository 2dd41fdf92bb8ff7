// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's churn devices: created, flagged, attached, deleted
 * and closed at random.
 */
#include "stress.h"

struct slot slots[NSLOT];
int scratch_fd; /* never attached */
int mq_fd[2] = { -1, -1 };
static int mq_attached; /* queue 1 state, if the device exists */
char mq_name[IFNAMSIZ];

void churn_name(char *buf, int w, int s)
{
	snprintf(buf, IFNAMSIZ, "xc%d%d", w, s);
}

/* Any device name a churn operation may aim at. */
static void any_churn_name(char *buf)
{
	switch (rn(8)) {
	case 0:
		snprintf(buf, IFNAMSIZ, "xnone%d", rn(4));
		break;
	case 1:
		snprintf(buf, IFNAMSIZ, "tapx%d", rn(4));
		break;
	default:
		churn_name(buf, rn(nworkers), rn(NSLOT));
		break;
	}
}

void slot_close(struct slot *sl)
{
	if (sl->fd >= 0)
		close(sl->fd);
	sl->fd = -1;
}

void op_setiff(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	short flags = IFF_TAP;
	char name[IFNAMSIZ], ctx[64];
	int v = rn(10), err;

	if (sl->fd < 0)
		sl->fd = node_open(rn(2));
	if (sl->fd < 0) {
		outcome(OP_SETIFF, errno, NULL, "open");
		return;
	}
	if (rn(2))
		flags |= IFF_NO_PI;
	if (rn(2))
		flags |= IFF_VNET_HDR;
	if (rn(4) == 0)
		flags |= IFF_ONE_QUEUE;
	if (rn(4) == 0)
		flags |= IFF_PERSIST;
	strcpy(name, sl->name);
	snprintf(ctx, sizeof(ctx), "variant %d", v);
	switch (v) {
	case 0: /* IFF_TUN joining a tap */
		flags = IFF_TUN | IFF_NO_PI;
		strcpy(name, st[rn(NSTABLE)].name);
		break;
	case 1: /* neither TUN nor TAP */
		flags = IFF_NO_PI;
		break;
	case 2: /* IFF_NAPI_FRAGS without IFF_NAPI: EINVAL, as in tun */
		flags = (flags & ~IFF_NAPI) | IFF_NAPI_FRAGS;
		break;
	case 3: /* attached by the parent */
		strcpy(name, st[rn(NSTABLE)].name);
		break;
	case 4: /* not a tapx device */
		strcpy(name, "lo");
		break;
	case 5: /* bad pointer */
		err = ioctl(sl->fd, TUNSETIFF, bad_user) < 0 ? errno : 0;
		outcome(OP_SETIFF, err, EXP(EFAULT), ctx);
		return;
	case 6: /* somebody else's churn device */
		any_churn_name(name);
		break;
	case 7: /* kernel-chosen name (tapx%d) */
		name[0] = 0;
		break;
	case 8: /* invalid name */
		strcpy(name, "bad/name");
		break;
	default:
		break;
	}
	err = set_iff(sl->fd, name, flags);
	/*
	 * EEXIST: fd already attached (EINVAL: as a detached queue);
	 * EINVAL: bad flags, bad name, not tapx; EBUSY: the device has a
	 * file; ENFILE never. EEXIST/ENODEV can also come from a name being
	 * deleted while we create it.
	 */
	switch (v) {
	case 0:
	case 1:
	case 2:
	case 4:
	case 8:
		if (!err)
			err = EPROTO;
		outcome(OP_SETIFF, err, EXP(EINVAL, EEXIST), ctx);
		break;
	case 3:
		if (!err)
			err = EPROTO;
		outcome(OP_SETIFF, err, EXP(EBUSY, EINVAL, EEXIST), ctx);
		break;
	default:
		outcome(OP_SETIFF, err, EXP(EINVAL, EBUSY, EEXIST, ENODEV), ctx);
		break;
	}
}

/* An fd for a device ioctl: a churn slot, a stable device or unattached. */
static int pick_fd(int *stable, int allow_xs0)
{
	unsigned int k = rn(10);

	*stable = 0;
	if (k < 3) {
		int d = allow_xs0 ? rn(NSTABLE) : 1 + rn(NSTABLE - 1);

		*stable = 1;
		return st[d].fd;
	}
	if (k == 3)
		return scratch_fd;
	k = rn(NSLOT);
	return slots[k].fd >= 0 ? slots[k].fd : scratch_fd;
}

/*
 * One device ioctl with an int argument: val by value (byptr 0) or
 * through a pointer; bad pointers and bad values included by the caller.
 * Unattached and deleted-under-us fds give EBADFD.
 */
static void dev_ioctl(int op, unsigned long cmd, int byptr, long val,
		      int bad_ptr, int valid, int allow_xs0)
{
	int stable, fd = pick_fd(&stable, allow_xs0), err, x = (int)val;
	unsigned long arg = byptr ? (unsigned long)&x : (unsigned long)val;
	char ctx[64];

	if (bad_ptr)
		arg = (unsigned long)bad_user;
	err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "val %ld bad %d stable %d", val, bad_ptr,
		 stable);
	if (!err && (bad_ptr || !valid))
		err = EPROTO;
	/* A valid value through a good pointer has no error but EBADFD. */
	if (stable)
		outcome(op, err,
			bad_ptr ? EXP(EFAULT) : valid ? NULL : EXP(EINVAL), ctx);
	else
		outcome(op, err,
			bad_ptr ? EXP(EFAULT, EBADFD) :
			valid	? EXP(EBADFD) :
				  EXP(EINVAL, EBADFD),
			ctx);
}

void op_dev_ioctl(int op)
{
	/* tun's bounds: at least 10 bytes, no upper one. */
	static const long hdrsz[] = { 10, 12, 20, 256, 257, 0, 9, -1 };
	static const long offl[] = {
		0,
		TUN_F_CSUM,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
		TUN_F_CSUM | TUN_F_UFO,
		TUN_F_TSO4,
		0x80,
	};
	static const long sndbuf[] = { 1, 65536, 0x7fffffff, 0, -1 };
	int bad = rn(8) == 0, i;

	switch (op) {
	case OP_PERSIST:
		dev_ioctl(op, TUNSETPERSIST, 0, rn(2), 0, 1, 1);
		break;
	case OP_OWNER:
	case OP_GROUP:
		i = rn(3);
		dev_ioctl(op, op == OP_OWNER ? TUNSETOWNER : TUNSETGROUP, 0,
			  i == 0 ? 0 : i == 1 ? 1000 : -1L, 0, i < 2, 1);
		break;
	case OP_VNETHDRSZ: /* never on xs0: its writes are predicted */
		i = rn(8);
		dev_ioctl(op, TUNSETVNETHDRSZ, 1, hdrsz[i], bad, i < 5, 0);
		break;
	case OP_OFFLOAD:
		i = rn(6);
		dev_ioctl(op, TUNSETOFFLOAD, 0, offl[i], 0, i < 4, 1);
		break;
	case OP_SNDBUF:
		i = rn(5);
		dev_ioctl(op, TUNSETSNDBUF, 1, sndbuf[i], bad, i < 3, 1);
		break;
	case OP_VNETLE:
		dev_ioctl(op, TUNSETVNETLE, 1, rn(2), bad, 1, 0);
		break;
	case OP_VNETBE:
		dev_ioctl(op, TUNSETVNETBE, 1, rn(2), bad, 1, 0);
		break;
	case OP_CARRIER:
		dev_ioctl(op, TUNSETCARRIER, 1, rn(2), bad, 1, 1);
		break;
	}
}

void op_getiff(void)
{
	int stable, fd = pick_fd(&stable, 1), bad = rn(6) == 0, err;
	struct ifreq ifr;

	err = ioctl(fd, TUNGETIFF, bad ? (void *)bad_user : (void *)&ifr) < 0 ?
		      errno :
		      0;
	if (!err && bad)
		err = EPROTO;
	outcome(OP_GETIFF, err,
		stable ? EXP(EFAULT) : EXP(EFAULT, EBADFD), "TUNGETIFF");
}

void op_getters(void)
{
	static const unsigned long cmds[] = { TUNGETFEATURES, TUNGETSNDBUF,
					      TUNGETVNETHDRSZ, TUNGETVNETLE,
					      TUNGETVNETBE };
	int stable, fd = pick_fd(&stable, 1), bad = rn(6) == 0, err, v;
	unsigned long cmd = cmds[rn(5)];

	err = ioctl(fd, cmd, bad ? (void *)bad_user : (void *)&v) < 0 ? errno :
									 0;
	if (!err && bad)
		err = EPROTO;
	outcome(OP_GETTERS, err, stable ? EXP(EFAULT) : EXP(EFAULT, EBADFD),
		"getter");
}

/* 'T' numbers nobody implements, past TAPXSUBMIT and TAPXRECV (240, 241). */
void op_badioctl(void)
{
	int stable, fd = pick_fd(&stable, 1), err;
	unsigned long cmd = _IOC(rn(4), 'T', 242 + rn(14), rn(64));

	err = ioctl(fd, cmd, rn(2) ? (unsigned long)bad_user : 0UL) < 0 ?
		      errno :
		      0;
	if (!err)
		err = EPROTO;
	outcome(OP_BADIOCTL, err,
		stable ? EXP(EINVAL) : EXP(EINVAL, EBADFD), "bad ioctl");
}

/* A socket filter that keeps every frame, one per process. */
static int keep_all_prog(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = socket_filter_load(0xffff);
	return fd;
}

/*
 * tun's filters set and cleared under traffic: only ones that keep every
 * frame, so the counts still add up and only the swaps race the transmit
 * path. Stable taps take each; others may be unbound (EBADFD) or L3
 * (EINVAL for the MAC and classic filters).
 */
void op_filter(void)
{
	struct sock_filter keep[] = { { 0x06, 0, 0, 0xffff } }; /* ret #0xffff */
	struct sock_fprog fp = { 1, keep };
	struct tun_filter off = { 0, 0 };
	int stable, fd = pick_fd(&stable, 1), err, pfd;
	unsigned long cmd;
	void *arg;

	switch (rn(6)) {
	case 0:
		cmd = TUNATTACHFILTER;
		arg = &fp;
		break;
	case 1:
		cmd = TUNDETACHFILTER;
		arg = &fp;
		break;
	case 2:
		cmd = TUNSETTXFILTER;
		arg = &off;
		break;
	case 3:
	case 4:
		pfd = rn(2) ? keep_all_prog() : -1;
		cmd = rn(2) ? TUNSETFILTEREBPF : TUNSETSTEERINGEBPF;
		arg = &pfd;
		break;
	default:
		pfd = -1;
		cmd = TUNSETFILTEREBPF;
		arg = &pfd;
		break;
	}
	err = ioctl(fd, cmd, arg) < 0 ? errno : 0;
	outcome(OP_FILTER, err, stable ? NULL : EXP(EBADFD, EINVAL), "filter");
}

void op_write_churn(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	int fd = sl->fd >= 0 ? sl->fd : scratch_fd, niov, vfs, gap, err;
	size_t T = gen_size(), bad_at;
	struct iovec iov[4];
	ssize_t r;

	/* The header layout is unknown (flags change): any split will do. */
	niov = gen_write(iov, T, rn(3) ? VNET_SZ : 0, rn(2), NULL, &bad_at,
			 &vfs, &gap);
	r = do_write(fd, iov, niov);
	err = r < 0 ? errno : 0;
	if (!err && r != (ssize_t)T)
		err = EPROTO;
	outcome(OP_WRITE_C, err, EXP(EINVAL, EFAULT, EBADFD), "churn write");
}

void alarm_wake(int sig)
{
	(void)sig;
}

void op_read_churn(void)
{
	struct slot *sl = &slots[rn(NSLOT)];
	int fd = sl->fd >= 0 ? sl->fd : scratch_fd, err;
	struct itimerval it = { .it_value = { 0, 20000 + rn(50000) } };
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	size_t len = rn(4) ? MAXT : rn(20);
	void *buf = rn(10) ? (void *)rbuf : (void *)bad_user;
	ssize_t r;

	/* Blocking reads end by a frame, a detach or this alarm (EINTR). */
	setitimer(ITIMER_REAL, &it, NULL);
	r = read(fd, buf, len);
	err = r < 0 ? errno : 0;
	setitimer(ITIMER_REAL, &off, NULL);
	outcome(OP_READ_C, err, EXP(EAGAIN, EINTR, EBADFD, EINVAL, EFAULT),
		"churn read");
}

void op_xdp(void)
{
	char name[IFNAMSIZ], ctx[64];
	int d, p, err, noexist = 0, prog, stable = 0;

	if (rn(10) < 4) {
		d = rn(NSTABLE);
		stable = 1;
		snprintf(name, sizeof(name), "%s", st[d].name);
		p = rn(st[d].detach ? 5 : 4);
		prog = p < 4 ? prog_fd[p] : -1;
	} else {
		any_churn_name(name);
		/* No redirect on churn devices: it would skew xs1's xdp_xmit. */
		p = rn(5);
		prog = p < 3 ? prog_fd[p] : p == 3 ? -1 : scratch_fd;
		noexist = p < 3 && rn(4) == 0;
	}
	err = xdp_set(name, prog, noexist ? XDP_FLAGS_UPDATE_IF_NOEXIST : 0);
	snprintf(ctx, sizeof(ctx), "%s prog %d noexist %d", name, p, noexist);
	if (stable)
		outcome(OP_XDP, err, NULL, ctx);
	else if (prog == scratch_fd)
		outcome(OP_XDP, err ? err : EPROTO, EXP(EINVAL, ENODEV), ctx);
	else
		outcome(OP_XDP, err, EXP(ENODEV, EBUSY), ctx);
}

/*
 * Multi-queue per the if_tun.h ABI: queue 0 and queue 1 of xq<w>, queue 1
 * detached and re-attached with TUNSETQUEUE. Without IFF_MULTI_QUEUE in
 * TUNGETFEATURES, TUNSETIFF refuses the flag (EINVAL, expected), so this
 * kind never succeeds and the run fails on it.
 */
void op_queue(void)
{
	short mq = IFF_TAP | IFF_NO_PI | IFF_MULTI_QUEUE;
	int mq_ok = !!(features & IFF_MULTI_QUEUE), err, i;
	struct ifreq ifr;
	char frame[60];

	if (mq_fd[0] < 0) {
		for (i = 0; i < 2; i++)
			mq_fd[i] = node_open(1);
		err = set_iff(mq_fd[0], mq_name, mq);
		if (!err)
			err = set_iff(mq_fd[1], mq_name, mq);
		if (err) {
			close(mq_fd[0]);
			close(mq_fd[1]);
			mq_fd[0] = mq_fd[1] = -1;
			if (mq_ok && err == EINVAL)
				err = EPROTO;
		}
		mq_attached = !err;
		outcome(OP_QUEUE, err, mq_ok ? NULL : EXP(EINVAL), "mq create");
		return;
	}
	memset(&ifr, 0, sizeof(ifr));
	switch (rn(6)) {
	case 0:
	case 1: /* detach; twice is EINVAL */
		ifr.ifr_flags = IFF_DETACH_QUEUE;
		err = ioctl(mq_fd[1], TUNSETQUEUE, &ifr) < 0 ? errno : 0;
		if (!err && !mq_attached)
			err = EPROTO;
		else if (err == EINVAL && mq_attached)
			err = EPROTO;
		if (!err)
			mq_attached = 0;
		outcome(OP_QUEUE, err, EXP(EINVAL), "detach queue");
		break;
	case 2:
	case 3: /* attach; twice is EINVAL */
		ifr.ifr_flags = IFF_ATTACH_QUEUE;
		err = ioctl(mq_fd[1], TUNSETQUEUE, &ifr) < 0 ? errno : 0;
		if (!err && mq_attached)
			err = EPROTO;
		else if (err == EINVAL && !mq_attached)
			err = EPROTO;
		if (!err)
			mq_attached = 1;
		outcome(OP_QUEUE, err, EXP(EINVAL), "attach queue");
		break;
	case 4: /* attached or detached, a queue writes (as in tun) */
		memcpy(frame, pool, sizeof(frame));
		frame[0] = 0x02;
		err = write(mq_fd[1], frame, sizeof(frame)) < 0 ? errno : 0;
		outcome(OP_QUEUE, err, NULL, "queue write");
		break;
	default: /* close both: the device goes */
		close(mq_fd[0]);
		close(mq_fd[1]);
		mq_fd[0] = mq_fd[1] = -1;
		outcome(OP_QUEUE, 0, NULL, "mq close");
		break;
	}
}

void op_link(void)
{
	char name[IFNAMSIZ];
	int stable = rn(4) == 0, err;

	if (stable)
		snprintf(name, sizeof(name), "%s", st[rn(NSTABLE)].name);
	else
		any_churn_name(name);
	err = link_up(name, rn(3) != 0);
	outcome(OP_LINK, err, stable ? NULL : EXP(ENODEV), name);
}

void op_dellink(void)
{
	char name[IFNAMSIZ];
	int err;

	any_churn_name(name);
	err = link_del(name);
	outcome(OP_DELLINK, err, EXP(ENODEV), name);
}

void op_close(void)
{
	struct slot *sl = &slots[rn(NSLOT)];

	slot_close(sl);
	outcome(OP_CLOSE, 0, NULL, "close");
}

void op_rmmod(void)
{
	int err = syscall(__NR_delete_module, "tapx", O_NONBLOCK) < 0 ? errno :
									0;

	outcome(OP_RMMOD, err, EXP(EAGAIN, EBUSY), "rmmod tapx");
}
