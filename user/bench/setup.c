// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * setup.c - everything a cell needs around the writer: a private network
 * namespace, two taps (the writer's and a far one), the program under test,
 * reader threads that drain taps, and the counters that say what happened.
 *
 * Nothing is pinned and no tap is persistent: the taps die with their fds
 * and the namespace (with any bridge in it) dies with this process, so an
 * interrupted run leaves nothing behind. Only ioctls and libbpf's netlink
 * are used, never `ip` or `tc`, so it works in a busybox VM too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bench.h"
#include "bpf/tap_accel.h"
#include "bpf/xdp_basic.skel.h"
#include "kmod/uapi/tapx.h"

#define ETH_HDR_LEN 14
#define DEFAULT_MTU 1500
#define READ_BUF    65536
/* A forwarding cell waits this many times 1 ms for a frame still on its
 * way before it gives the rest of a chunk up (they count as lost). */
#define READ_BACK_WAITS 2

enum { TAP_WRITER, TAP_FAR, NR_TAPS };

/* Drains one tap so that TX and redirect have somewhere to go. */
struct reader {
	pthread_t thread;
	int fd;
	int stop_fd;	/* eventfd: stop polling */
	int cpu;	/* -1: not pinned */
	bool drain_all; /* own nonblocking fd: plain read() until EAGAIN */
	bool nowait_unsupported;
	bool running;
	size_t frame_size; /* count only frames of the cell's size */
	_Atomic uint64_t frames;
	_Atomic uint64_t strays; /* anything else the stack sent there */
};

struct bench_env {
	enum bench_driver driver;
	const char *dev; /* the driver's device node */
	int tag;  /* in interface names: one env per program */
	int sock; /* AF_INET datagram socket for interface ioctls */
	int tap_fd[NR_TAPS];
	int ifindex[NR_TAPS];
	char ifname[NR_TAPS][IFNAMSIZ];
	unsigned int mtu;
	char bridge[IFNAMSIZ];
	bool bridge_up;
	struct xdp_basic *basic;
	struct bpf_tc_hook tc_hook;
	struct policy_cell *policy;
	struct reader reader[NR_TAPS];
	uint8_t *own_frame[NR_SIZES]; /* PASS: to this tap's own address */
	/* Forwarding cells read frames back from the far tap themselves. */
	uint8_t *rbuf;
	size_t rbuf_slot;
	unsigned int rbuf_slots;
	struct tapx_desc rdesc[TAPX_BATCH_MAX];
};

static void say(char *why, size_t len, const char *what, int err)
{
	snprintf(why, len, "%s: %s", what, strerror(err));
}

static void write_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, value, strlen(value)) < 0) {
		/* best effort: only keeps IPv6 chatter off the taps */
	}
	close(fd);
}

int env_enter_netns(char *why, size_t len)
{
	if (unshare(CLONE_NEWNET) < 0) {
		say(why, len, "unshare(CLONE_NEWNET) (needs root)", errno);
		return -1;
	}
	/* No router solicitations or DAD frames queued on the taps. */
	write_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	write_sysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	return 0;
}

/* ---- interfaces --------------------------------------------------------- */

static int tap_open(const char *dev, const char *name, char ifname[IFNAMSIZ],
		    char *why, size_t len)
{
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		say(why, len, dev, errno);
		return -1;
	}
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		say(why, len, "TUNSETIFF", errno);
		close(fd);
		return -1;
	}
	memcpy(ifname, ifr.ifr_name, IFNAMSIZ);
	return fd;
}

static int if_set_flag(int sock, const char *name, short flag, bool on)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(sock, SIOCGIFFLAGS, &ifr) < 0)
		return -errno;
	ifr.ifr_flags = on ? (ifr.ifr_flags | flag) : (ifr.ifr_flags & ~flag);
	return ioctl(sock, SIOCSIFFLAGS, &ifr) < 0 ? -errno : 0;
}

static int if_set_mtu(int sock, const char *name, unsigned int mtu)
{
	struct ifreq ifr = {.ifr_mtu = (int)mtu};

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	return ioctl(sock, SIOCSIFMTU, &ifr) < 0 ? -errno : 0;
}

static int if_index(int sock, const char *name)
{
	struct ifreq ifr = {0};

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	return ioctl(sock, SIOCGIFINDEX, &ifr) < 0 ? -errno : ifr.ifr_ifindex;
}

static int set_nonblock(int fd, bool on)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -errno;
	flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
	return fcntl(fd, F_SETFL, flags) < 0 ? -errno : 0;
}

static int env_open_taps(struct bench_env *env, char *why, size_t len)
{
	static const char *const suffix[NR_TAPS] = {"w", "f"};

	for (int t = 0; t < NR_TAPS; t++) {
		char name[IFNAMSIZ];
		int err;

		snprintf(name, sizeof(name), "%s%d%s",
			 bench_driver_name[env->driver], env->tag, suffix[t]);
		env->tap_fd[t] = tap_open(env->dev, name,
					  env->ifname[t], why, len);
		if (env->tap_fd[t] < 0)
			return -1;
		env->ifindex[t] = if_index(env->sock, env->ifname[t]);
		err = if_set_flag(env->sock, env->ifname[t], IFF_UP, true);
		if (env->ifindex[t] < 0 || err) {
			say(why, len, "bringing the tap up",
			    err ? -err : -env->ifindex[t]);
			return -1;
		}
	}
	/* The far tap has one reader of its own, which never blocks. */
	set_nonblock(env->tap_fd[TAP_FAR], true);
	env->mtu = DEFAULT_MTU;
	return 0;
}

struct bench_env *env_new(enum bench_driver d, const char *dev, int tag, char *why, size_t len)
{
	struct bench_env *env = calloc(1, sizeof(*env));
	__u32 key = 0;

	if (!env) {
		snprintf(why, len, "out of memory");
		return NULL;
	}
	env->driver = d;
	env->dev = dev;
	env->tag = tag;
	env->tap_fd[0] = env->tap_fd[1] = -1;
	env->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (env->sock < 0) {
		say(why, len, "socket", errno);
		goto fail;
	}
	if (env_open_taps(env, why, len))
		goto fail;
	env->basic = xdp_basic__open_and_load();
	if (!env->basic) {
		say(why, len, "loading xdp_basic", errno);
		goto fail;
	}
	/* xdp_redirect sends everything to the far tap. */
	if (bpf_map_update_elem(bpf_map__fd(env->basic->maps.basic_ports), &key,
				&env->ifindex[TAP_FAR], BPF_ANY)) {
		say(why, len, "filling basic_ports", errno);
		goto fail;
	}
	return env;
fail:
	env_free(env);
	return NULL;
}

void env_free(struct bench_env *env)
{
	if (!env)
		return;
	env_stop_readers(env);
	for (int t = 0; t < NR_TAPS; t++)
		if (env->tap_fd[t] >= 0)
			close(env->tap_fd[t]);
	xdp_basic__destroy(env->basic);
	for (int i = 0; i < NR_SIZES; i++)
		free(env->own_frame[i]);
	free(env->rbuf);
	if (env->sock >= 0)
		close(env->sock);
	free(env);
}

int env_set_frame_size(struct bench_env *env, size_t size, unsigned int *mtu,
		       char *why, size_t len)
{
	unsigned int want = size > DEFAULT_MTU + ETH_HDR_LEN
				    ? size - ETH_HDR_LEN
				    : DEFAULT_MTU;

	*mtu = want;
	if (want == env->mtu)
		return 0;
	for (int t = 0; t < NR_TAPS; t++) {
		int err = if_set_mtu(env->sock, env->ifname[t], want);

		if (err) {
			snprintf(why, len,
				 "%zu B frames need MTU %u, which %s refuses: "
				 "%s",
				 size, want, bench_driver_name[env->driver],
				 strerror(-err));
			/* Keep the taps alike: put the first one back. */
			if (t)
				if_set_mtu(env->sock, env->ifname[0], env->mtu);
			return -1;
		}
	}
	env->mtu = want;
	return 0;
}

int env_writer_fd(struct bench_env *env, bool nonblock)
{
	set_nonblock(env->tap_fd[TAP_WRITER], nonblock);
	return env->tap_fd[TAP_WRITER];
}

/* ---- programs ----------------------------------------------------------- */

static int xdp_attach(struct bench_env *env, struct bpf_program *prog,
		      __u32 mode, char *why, size_t len)
{
	int err = bpf_xdp_attach(env->ifindex[TAP_WRITER],
				 bpf_program__fd(prog), mode, NULL);

	if (err) {
		snprintf(why, len, "%s XDP attach refused: %s",
			 mode == XDP_FLAGS_DRV_MODE ? "native" : "generic",
			 strerror(-err));
		return -1;
	}
	return 0;
}

static int tc_attach(struct bench_env *env, char *why, size_t len)
{
	LIBBPF_OPTS(bpf_tc_opts, opts,
		    .prog_fd = bpf_program__fd(env->basic->progs.tc_drop));
	int err;

	env->tc_hook = (struct bpf_tc_hook){.sz = sizeof(env->tc_hook),
					    .ifindex = env->ifindex[TAP_WRITER],
					    .attach_point = BPF_TC_INGRESS};
	err = bpf_tc_hook_create(&env->tc_hook);
	if (err && err != -EEXIST) {
		snprintf(why, len, "tc clsact qdisc: %s%s", strerror(-err),
			 err == -ENOENT ? " (sch_ingress not in this kernel)"
					: "");
		return -1;
	}
	err = bpf_tc_attach(&env->tc_hook, &opts);
	if (err) {
		snprintf(why, len, "tc ingress attach: %s", strerror(-err));
		return -1;
	}
	return 0;
}

static void tc_detach(struct bench_env *env)
{
	/* Destroying the clsact qdisc takes its filters with it. */
	env->tc_hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&env->tc_hook);
}

/* A Linux bridge with both taps as ports, through the bridge ioctls that
 * need no netlink attribute building. STP is off, so ports forward at once. */
static int bridge_create(struct bench_env *env, char *why, size_t len)
{
	snprintf(env->bridge, IFNAMSIZ, "%s%dbr",
		 bench_driver_name[env->driver], env->tag);
	if (ioctl(env->sock, SIOCBRADDBR, env->bridge) < 0) {
		say(why, len,
		    errno == ENOPKG
			    ? "creating a bridge (bridge module not loaded)"
			    : "creating a bridge",
		    errno);
		return -1;
	}
	env->bridge_up = true;
	for (int t = 0; t < NR_TAPS; t++) {
		struct ifreq ifr = {.ifr_ifindex = env->ifindex[t]};

		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", env->bridge);
		if (ioctl(env->sock, SIOCBRADDIF, &ifr) < 0) {
			say(why, len, "adding a tap to the bridge", errno);
			return -1;
		}
	}
	if (if_set_flag(env->sock, env->bridge, IFF_UP, true)) {
		say(why, len, "bringing the bridge up", errno);
		return -1;
	}
	return 0;
}

static void bridge_destroy(struct bench_env *env)
{
	if (!env->bridge_up)
		return;
	if_set_flag(env->sock, env->bridge, IFF_UP, false);
	for (int t = 0; t < NR_TAPS; t++) {
		struct ifreq ifr = {.ifr_ifindex = env->ifindex[t]};

		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", env->bridge);
		ioctl(env->sock, SIOCBRDELIF, &ifr);
	}
	ioctl(env->sock, SIOCBRDELBR, env->bridge);
	env->bridge_up = false;
}

static int if_set_inet(int sock, const char *name, unsigned long req,
		       const uint8_t addr[4])
{
	struct ifreq ifr = {0};
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	sin->sin_family = AF_INET;
	memcpy(&sin->sin_addr, addr, 4);
	return ioctl(sock, req, &ifr) < 0 ? -errno : 0;
}

/*
 * PASS into the stack, the same way for every driver: the writer tap gets
 * 10.99.<driver>.1/24 and the frames are UDP from 10.99.<driver>.2 to that
 * address and its MAC, port 9, where nothing listens. Each one is routed,
 * delivered locally and dropped by UDP for want of a socket (the port
 * unreachable it would answer is rate-limited to a few per second).
 */
static int stack_setup(struct bench_env *env, char *why, size_t len)
{
	const uint8_t host[4] = {10, 99, env->driver, 1};
	const uint8_t guest[4] = {10, 99, env->driver, 2};
	const uint8_t mask[4] = {255, 255, 255, 0};
	const char *name = env->ifname[TAP_WRITER];
	struct ifreq ifr = {0};
	int err;

	err = if_set_inet(env->sock, name, SIOCSIFADDR, host);
	if (!err)
		err = if_set_inet(env->sock, name, SIOCSIFNETMASK, mask);
	if (err) {
		say(why, len, "setting the tap's IPv4 address", -err);
		return -1;
	}
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(env->sock, SIOCGIFHWADDR, &ifr) < 0) {
		say(why, len, "reading the tap's MAC address", errno);
		return -1;
	}
	for (int s = 0; s < NR_SIZES; s++) {
		uint8_t *f = build_udp_frame(bench_size[s], guest, host);

		if (!f) {
			snprintf(why, len, "out of memory");
			return -1;
		}
		set_frame_macs(f, (uint8_t *)ifr.ifr_hwaddr.sa_data, fwd_mac_a);
		env->own_frame[s] = f;
	}
	return 0;
}

const uint8_t *env_frame(struct bench_env *env, enum bench_prog p, int s)
{
	return p == PROG_STACK_UDP ? env->own_frame[s] : NULL;
}

int env_attach(struct bench_env *env, enum bench_prog p, char *why, size_t len)
{
	struct xdp_basic *progs = env->basic;

	switch (p) {
	case PROG_FLOOR:
	case PROG_NONE:
		return 0;
	case PROG_XDP_DROP_NATIVE:
		return xdp_attach(env, progs->progs.xdp_drop,
				  XDP_FLAGS_DRV_MODE, why, len);
	case PROG_XDP_DROP_GENERIC:
		return xdp_attach(env, progs->progs.xdp_drop,
				  XDP_FLAGS_SKB_MODE, why, len);
	case PROG_XDP_TX:
		return xdp_attach(env, progs->progs.xdp_tx, XDP_FLAGS_DRV_MODE,
				  why, len);
	case PROG_XDP_REDIRECT:
	case PROG_FWD_REDIRECT:
		return xdp_attach(env, progs->progs.xdp_redirect,
				  XDP_FLAGS_DRV_MODE, why, len);
	case PROG_TC_DROP:
		return tc_attach(env, why, len);
	case PROG_STACK_UDP:
		return stack_setup(env, why, len);
	case PROG_BRIDGE:
	case PROG_FWD_BRIDGE:
		if (bridge_create(env, why, len)) {
			bridge_destroy(env);
			return -1;
		}
		return 0;
	default:
		env->policy =
			policy_attach(env->ifindex[TAP_WRITER], p, why, len);
		return env->policy ? 0 : -1;
	}
}

void env_detach(struct bench_env *env, enum bench_prog p)
{
	switch (p) {
	case PROG_FLOOR:
	case PROG_NONE:
	case PROG_STACK_UDP: /* the address goes with the tap */
		break;
	case PROG_XDP_DROP_GENERIC:
		bpf_xdp_detach(env->ifindex[TAP_WRITER], XDP_FLAGS_SKB_MODE,
			       NULL);
		break;
	case PROG_TC_DROP:
		tc_detach(env);
		break;
	case PROG_BRIDGE:
	case PROG_FWD_BRIDGE:
		bridge_destroy(env);
		break;
	default:
		bpf_xdp_detach(env->ifindex[TAP_WRITER], XDP_FLAGS_DRV_MODE,
			       NULL);
		policy_detach(env->policy);
		env->policy = NULL;
		break;
	}
}

/* ---- readers ------------------------------------------------------------ */

static void pin_to(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Read one frame without blocking, whatever the fd's O_NONBLOCK says (tun
 * honours RWF_NOWAIT); falls back to read() once poll said there is one. */
static ssize_t read_nowait(struct reader *r, void *buf, size_t len)
{
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	ssize_t n;

	if (r->drain_all)
		return read(r->fd, buf, len);
	n = preadv2(r->fd, &iov, 1, -1, RWF_NOWAIT);
	if (n < 0 && errno == EOPNOTSUPP) {
		r->nowait_unsupported = true;
		return read(r->fd, buf, len);
	}
	return n;
}

static void *reader_main(void *arg)
{
	struct reader *r = arg;
	struct pollfd pfd[2] = {{.fd = r->fd, .events = POLLIN},
				{.fd = r->stop_fd, .events = POLLIN}};
	static __thread uint8_t buf[READ_BUF];

	pin_to(r->cpu);
	for (;;) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		/* Drain until the queue is empty; one frame per wake-up if
		 * this fd can only block. */
		do {
			ssize_t n = read_nowait(r, buf, sizeof(buf));

			if (n < 0)
				break;
			atomic_fetch_add_explicit((size_t)n == r->frame_size
							  ? &r->frames
							  : &r->strays,
						  1, memory_order_relaxed);
		} while (!r->nowait_unsupported);
	}
	return NULL;
}

static int reader_start(struct reader *r, int fd, bool drain_all, int cpu,
			size_t frame_size)
{
	r->fd = fd;
	r->frame_size = frame_size;
	r->drain_all = drain_all;
	r->cpu = cpu;
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (r->stop_fd < 0)
		return -errno;
	if (pthread_create(&r->thread, NULL, reader_main, r)) {
		close(r->stop_fd);
		return -EAGAIN;
	}
	r->running = true;
	return 0;
}

/* Which tap's queue the frames of a program end up in, if any. */
static int drained_tap(enum bench_prog p)
{
	switch (p) {
	case PROG_XDP_TX:
		return TAP_WRITER;
	case PROG_XDP_REDIRECT:
	case PROG_BRIDGE:
	case PROG_FWD_REDIRECT:
	case PROG_FWD_BRIDGE:
		return TAP_FAR;
	default:
		return -1;
	}
}

int env_start_readers(struct bench_env *env, enum bench_prog p, int cpu,
		      size_t frame_size)
{
	int t = drained_tap(p);

	int err;

	/* Forwarding cells read back in the writer's own thread. */
	if (t < 0 || forward_prog(p))
		return 0;
	err = reader_start(&env->reader[t], env->tap_fd[t], t == TAP_FAR, cpu,
			   frame_size);
	/* Whatever was queued before this cell is not part of it. */
	if (!err)
		env_quiesce_readers(env);
	return err;
}

static uint64_t reader_total(struct bench_env *env)
{
	uint64_t n = 0;

	for (int t = 0; t < NR_TAPS; t++)
		n += atomic_load(&env->reader[t].frames) +
		     atomic_load(&env->reader[t].strays);
	return n;
}

static uint64_t reader_frames(struct bench_env *env)
{
	uint64_t n = 0;

	for (int t = 0; t < NR_TAPS; t++)
		n += atomic_load(&env->reader[t].frames);
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {.tv_sec = ms / 1000,
			      .tv_nsec = (ms % 1000) * 1000000L};

	nanosleep(&ts, NULL);
}

/* Whether a running reader's tap still has frames queued. */
static bool readers_behind(struct bench_env *env)
{
	for (int t = 0; t < NR_TAPS; t++) {
		struct pollfd pfd = {.fd = env->reader[t].fd, .events = POLLIN};

		if (env->reader[t].running && poll(&pfd, 1, 0) > 0 &&
		    (pfd.revents & POLLIN))
			return true;
	}
	return false;
}

/* Wait until the readers have drained their queues: nothing queued and
 * nothing read for two rounds of 10 ms (a frame may be in flight in a
 * qdisc), at most two seconds. */
void env_quiesce_readers(struct bench_env *env)
{
	uint64_t last = reader_total(env);

	for (int idle = 0, round = 0; idle < 2 && round < 200; round++) {
		sleep_ms(10);
		uint64_t now = reader_total(env);

		idle = now == last && !readers_behind(env) ? idle + 1 : 0;
		last = now;
	}
}

void env_stop_readers(struct bench_env *env)
{
	bool any = false;

	for (int t = 0; t < NR_TAPS; t++)
		any |= env->reader[t].running;
	if (!any)
		return;
	env_quiesce_readers(env);
	for (int t = 0; t < NR_TAPS; t++) {
		struct reader *r = &env->reader[t];
		uint64_t one = 1;

		if (!r->running)
			continue;
		if (write(r->stop_fd, &one, sizeof(one)) < 0) {
			/* an eventfd write cannot fail here */
		}
		pthread_join(r->thread, NULL);
		close(r->stop_fd);
		r->running = false;
	}
}

/* ---- forwarding: read back in the writer's thread ----------------------- */

static void count_read(struct reader *r, size_t got, size_t size)
{
	atomic_fetch_add_explicit(got == size ? &r->frames : &r->strays, 1,
				  memory_order_relaxed);
}

static int rbuf_reserve(struct bench_env *env, unsigned int slots, size_t size)
{
	size_t slot = (size + 64 + 63) & ~(size_t)63;
	uint8_t *buf;

	if (env->rbuf && env->rbuf_slots >= slots && env->rbuf_slot >= slot)
		return 0;
	if (slots < env->rbuf_slots)
		slots = env->rbuf_slots;
	if (slot < env->rbuf_slot)
		slot = env->rbuf_slot;
	buf = malloc(slots * slot);
	if (!buf)
		return -ENOMEM;
	free(env->rbuf);
	env->rbuf = buf;
	env->rbuf_slots = slots;
	env->rbuf_slot = slot;
	return 0;
}

/* One frame by read(); the far fd never blocks. Returns 1 for a frame of
 * the cell, 0 for anything else, -1 (errno) when there is none. */
static int recv_one(struct bench_env *env, size_t size)
{
	ssize_t n = read(env->tap_fd[TAP_FAR], env->rbuf, env->rbuf_slot);

	if (n < 0)
		return -1;
	count_read(&env->reader[TAP_FAR], n, size);
	return (size_t)n == size;
}

/* Up to `batch` frames with one TAPXRECV. Returns the frames of the cell
 * among them, -1 (errno) when none was taken. */
static int recv_batch(struct bench_env *env, unsigned int batch, size_t size)
{
	struct tapx_batch b = {.descs = (uintptr_t)env->rdesc, .count = batch};
	struct reader *r = &env->reader[TAP_FAR];
	int rc, mine = 0;

	for (unsigned int i = 0; i < batch; i++)
		env->rdesc[i] = (struct tapx_desc){
			.addr = (uintptr_t)(env->rbuf + i * env->rbuf_slot),
			.len = env->rbuf_slot};
	rc = ioctl(env->tap_fd[TAP_FAR], TAPXRECV, &b);
	if (b.done > batch)
		b.done = 0;
	if (rc < 0 && !b.done)
		return -1;
	for (unsigned int i = 0; i < b.done; i++) {
		size_t got = env->rdesc[i].status ? 0 : env->rdesc[i].len;

		count_read(r, got, size);
		mine += got == size;
	}
	return mine;
}

static bool far_readable(struct bench_env *env, int timeout_ms)
{
	struct pollfd pfd = {.fd = env->tap_fd[TAP_FAR], .events = POLLIN};

	return poll(&pfd, 1, timeout_ms) > 0 && (pfd.revents & POLLIN);
}

/* Read `want` frames back from the far tap, batched like the writer (0: one
 * read() each). A frame that does not come is lost: the far tap's
 * tx_dropped says so, or the final drain finds it late. */
static void read_back(struct bench_env *env, unsigned int batch, size_t size,
		      unsigned long want)
{
	int idle = 0;

	while (want && idle < READ_BACK_WAITS) {
		int got = batch ? recv_batch(env, batch, size)
				: recv_one(env, size);

		if (got > 0) {
			want -= (unsigned long)got < want ? (unsigned long)got
							  : want;
			idle = 0;
		} else if (got < 0) {
			if (errno != EAGAIN)
				break;
			if (!far_readable(env, 1))
				idle++;
		}
	}
}

static void drain_far(struct bench_env *env, size_t size, int quiet_ms)
{
	do {
		while (recv_one(env, size) >= 0)
			;
	} while (quiet_ms && far_readable(env, quiet_ms));
}

/* A frame from FWD_MAC_B into tap B: the bridge learns that FWD_MAC_B is
 * behind B and forwards the cell's frames to B alone. */
static void bridge_teach(struct bench_env *env)
{
	static const uint8_t b_ip[4] = {10, 0, 0, 2}, a_ip[4] = {10, 0, 0, 1};
	uint8_t *f = build_udp_frame(64, b_ip, a_ip);

	if (!f)
		return;
	set_frame_macs(f, fwd_mac_a, fwd_mac_b);
	if (write(env->tap_fd[TAP_FAR], f, 64) < 0) {
		/* the next repetition teaches again; losses would show */
	}
	free(f);
}

void env_forward_prepare(struct bench_env *env, enum bench_prog p, size_t size)
{
	if (!forward_prog(p) || rbuf_reserve(env, 1, size))
		return;
	drain_far(env, size, 0);
	if (p == PROG_FWD_BRIDGE)
		bridge_teach(env);
}

void env_forward_finish(struct bench_env *env, enum bench_prog p, size_t size)
{
	if (forward_prog(p) && !rbuf_reserve(env, 1, size))
		drain_far(env, size, 10);
}

unsigned long env_forward(struct bench_env *env, enum bench_writer w,
			  const uint8_t *frame, size_t size, unsigned long n,
			  struct uring_writer *u, uint64_t *errors)
{
	unsigned int batch = bench_batch[w];
	unsigned int chunk = batch ? batch : FWD_CHUNK;
	unsigned long done = 0;

	if (rbuf_reserve(env, batch ? batch : 1, size)) {
		*errors += n;
		errno = ENOMEM;
		return 0;
	}
	while (n) {
		unsigned long k = n < chunk ? n : chunk;
		unsigned long in = write_frames(w, env->tap_fd[TAP_WRITER],
						frame, size, k, u, errors);

		read_back(env, batch, size, in);
		done += in;
		n -= k;
	}
	return done;
}

/* ---- counters ----------------------------------------------------------- */

/* Sum a per-CPU array of struct ta_counter, `n` keys, packets only. */
static void sum_percpu(int map_fd, unsigned int n, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus();
	struct ta_counter *vals;

	if (ncpu <= 0 || map_fd < 0)
		return;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return;
	for (__u32 key = 0; key < n; key++) {
		out[key] = 0;
		if (bpf_map_lookup_elem(map_fd, &key, vals))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[key] += vals[c].packets;
	}
	free(vals);
}

struct link_stats {
	uint64_t rx, rx_dropped, tx_dropped;
};

static void link_stats(const char *ifname, struct link_stats *s)
{
	struct ifaddrs *list, *ifa;

	memset(s, 0, sizeof(*s));
	if (getifaddrs(&list))
		return;
	for (ifa = list; ifa; ifa = ifa->ifa_next) {
		const struct rtnl_link_stats *st = ifa->ifa_data;

		if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_PACKET ||
		    !st || strcmp(ifa->ifa_name, ifname))
			continue;
		s->rx = st->rx_packets;
		s->rx_dropped = st->rx_dropped;
		s->tx_dropped = st->tx_dropped;
		break;
	}
	freeifaddrs(list);
}

/* Absolute counter values now; the caller subtracts two readings. */
void env_counts(struct bench_env *env, enum bench_prog p, struct cell_counts *c)
{
	struct link_stats w, d;
	int t = drained_tap(p);

	memset(c, 0, sizeof(*c));
	if (policy_prog(p))
		policy_counts(env->policy, c->verdict);
	else
		sum_percpu(bpf_map__fd(env->basic->maps.basic_count),
			   TA_NR_VERDICTS, c->verdict);
	link_stats(env->ifname[TAP_WRITER], &w);
	c->tap_rx = w.rx;
	c->tap_rx_dropped = w.rx_dropped;
	c->read = reader_frames(env);
	if (t >= 0) {
		link_stats(env->ifname[t], &d);
		c->read_lost = d.tx_dropped;
	}
}
