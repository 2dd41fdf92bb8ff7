// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * env.c - the environment of a cell: a private network namespace, two taps
 * (the writer's and a far one), a bridge or an address where the program
 * needs one, and the program under test.
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

#include "bpf/tap_accel.h"
#include "bpf/xdp_basic.skel.h"
#include "env.h"
#include "policy_cells.h"
#include "writers.h"

#define ETH_HDR_LEN 14
#define DEFAULT_MTU 1500

/* "WHAT: strerror" as the system's fault; returns -err. */
static int say(struct ta_error *e, const char *what, int err)
{
	return ta_error_system(e, err, "%s: %s", what, strerror(err));
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

int env_enter_netns(struct ta_error *e)
{
	if (unshare(CLONE_NEWNET) < 0)
		return say(e, "unshare(CLONE_NEWNET) (needs root)", errno);
	/* No router solicitations or DAD frames queued on the taps. */
	write_sysctl("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	write_sysctl("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	return 0;
}

/* ---- interfaces --------------------------------------------------------- */

static int tap_open(const char *dev, const char *name, char ifname[IFNAMSIZ],
		    struct ta_error *e)
{
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	int fd = open(dev, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return say(e, dev, errno);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int err = say(e, "TUNSETIFF", errno);

		close(fd);
		return err;
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

static int env_open_taps(struct bench_env *env, struct ta_error *e)
{
	static const char *const suffix[NR_TAPS] = {"w", "f"};

	for (int t = 0; t < NR_TAPS; t++) {
		char name[IFNAMSIZ];
		int err;

		snprintf(name, sizeof(name), "%s%d%s",
			 bench_driver_name[env->driver], env->tag, suffix[t]);
		env->tap_fd[t] = tap_open(env->dev, name,
					  env->ifname[t], e);
		if (env->tap_fd[t] < 0)
			return env->tap_fd[t];
		env->ifindex[t] = if_index(env->sock, env->ifname[t]);
		err = if_set_flag(env->sock, env->ifname[t], IFF_UP, true);
		if (env->ifindex[t] < 0 || err)
			return say(e, "bringing the tap up",
				   err ? -err : -env->ifindex[t]);
	}
	/* The far tap has one reader of its own, which never blocks. */
	set_nonblock(env->tap_fd[TAP_FAR], true);
	env->mtu = DEFAULT_MTU;
	return 0;
}

struct bench_env *env_new(enum bench_driver d, const char *dev, int tag, struct ta_error *e)
{
	struct bench_env *env = calloc(1, sizeof(*env));
	__u32 key = 0;

	if (!env) {
		ta_error_system(e, ENOMEM, "out of memory");
		return NULL;
	}
	env->driver = d;
	env->dev = dev;
	env->tag = tag;
	env->tap_fd[0] = env->tap_fd[1] = -1;
	env->sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (env->sock < 0) {
		say(e, "socket", errno);
		goto fail;
	}
	if (env_open_taps(env, e))
		goto fail;
	env->basic = xdp_basic__open_and_load();
	if (!env->basic) {
		say(e, "loading xdp_basic", errno);
		goto fail;
	}
	/* xdp_redirect sends everything to the far tap. */
	if (bpf_map_update_elem(bpf_map__fd(env->basic->maps.basic_ports), &key,
				&env->ifindex[TAP_FAR], BPF_ANY)) {
		say(e, "filling basic_ports", errno);
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
		       struct ta_error *e)
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
			/* Keep the taps alike: put the first one back. */
			if (t)
				if_set_mtu(env->sock, env->ifname[0], env->mtu);
			return ta_error_system(e, -err,
					       "%zu B frames need MTU %u, which %s refuses: "
					       "%s",
					       size, want, bench_driver_name[env->driver],
					       strerror(-err));
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
		      __u32 mode, struct ta_error *e)
{
	int err = bpf_xdp_attach(env->ifindex[TAP_WRITER],
				 bpf_program__fd(prog), mode, NULL);

	if (err)
		return ta_error_system(e, -err, "%s XDP attach refused: %s",
				       mode == XDP_FLAGS_DRV_MODE ? "native" : "generic",
				       strerror(-err));
	return 0;
}

static int tc_attach(struct bench_env *env, struct ta_error *e)
{
	LIBBPF_OPTS(bpf_tc_opts, opts,
		    .prog_fd = bpf_program__fd(env->basic->progs.tc_drop));
	int err;

	env->tc_hook = (struct bpf_tc_hook){.sz = sizeof(env->tc_hook),
					    .ifindex = env->ifindex[TAP_WRITER],
					    .attach_point = BPF_TC_INGRESS};
	err = bpf_tc_hook_create(&env->tc_hook);
	if (err && err != -EEXIST)
		return ta_error_system(e, -err, "tc clsact qdisc: %s%s", strerror(-err),
				       err == -ENOENT ? " (sch_ingress not in this kernel)"
						      : "");
	err = bpf_tc_attach(&env->tc_hook, &opts);
	if (err)
		return ta_error_system(e, -err, "tc ingress attach: %s", strerror(-err));
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
static int bridge_create(struct bench_env *env, struct ta_error *e)
{
	int err;

	snprintf(env->bridge, IFNAMSIZ, "%s%dbr",
		 bench_driver_name[env->driver], env->tag);
	if (ioctl(env->sock, SIOCBRADDBR, env->bridge) < 0)
		return say(e,
			   errno == ENOPKG
				   ? "creating a bridge (bridge module not loaded)"
				   : "creating a bridge",
			   errno);
	env->bridge_up = true;
	for (int t = 0; t < NR_TAPS; t++) {
		struct ifreq ifr = {.ifr_ifindex = env->ifindex[t]};

		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", env->bridge);
		if (ioctl(env->sock, SIOCBRADDIF, &ifr) < 0)
			return say(e, "adding a tap to the bridge", errno);
	}
	err = if_set_flag(env->sock, env->bridge, IFF_UP, true);
	if (err)
		return say(e, "bringing the bridge up", -err);
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
static int stack_setup(struct bench_env *env, struct ta_error *e)
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
	if (err)
		return say(e, "setting the tap's IPv4 address", -err);
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(env->sock, SIOCGIFHWADDR, &ifr) < 0)
		return say(e, "reading the tap's MAC address", errno);
	for (int s = 0; s < NR_SIZES; s++) {
		uint8_t *f = build_udp_frame(bench_size[s], guest, host);

		if (!f)
			return ta_error_system(e, ENOMEM, "out of memory");
		set_frame_macs(f, (uint8_t *)ifr.ifr_hwaddr.sa_data, fwd_mac_a);
		env->own_frame[s] = f;
	}
	return 0;
}

const uint8_t *env_frame(struct bench_env *env, enum bench_prog p, int s)
{
	return p == PROG_STACK_UDP ? env->own_frame[s] : NULL;
}

int env_attach(struct bench_env *env, enum bench_prog p, struct ta_error *e)
{
	struct xdp_basic *progs = env->basic;
	int err;

	switch (p) {
	case PROG_FLOOR:
	case PROG_NONE:
		return 0;
	case PROG_XDP_DROP_NATIVE:
		return xdp_attach(env, progs->progs.xdp_drop,
				  XDP_FLAGS_DRV_MODE, e);
	case PROG_XDP_DROP_GENERIC:
		return xdp_attach(env, progs->progs.xdp_drop,
				  XDP_FLAGS_SKB_MODE, e);
	case PROG_XDP_TX:
		return xdp_attach(env, progs->progs.xdp_tx, XDP_FLAGS_DRV_MODE, e);
	case PROG_XDP_REDIRECT:
	case PROG_FWD_REDIRECT:
		return xdp_attach(env, progs->progs.xdp_redirect,
				  XDP_FLAGS_DRV_MODE, e);
	case PROG_TC_DROP:
		return tc_attach(env, e);
	case PROG_STACK_UDP:
		return stack_setup(env, e);
	case PROG_BRIDGE:
	case PROG_FWD_BRIDGE:
		err = bridge_create(env, e);
		if (err)
			bridge_destroy(env);
		return err;
	default:
		env->policy = policy_attach(env->ifindex[TAP_WRITER], p, e);
		return env->policy ? 0 : -e->err;
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
