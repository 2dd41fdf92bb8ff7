// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-unbound: a namespace's default XDP program (TAPXSETDEFPROG,
 * TAPXGETDEFPROG) from user space, for suite-unbound.sh.
 *
 *   tapx-unbound race NODE NAME MS
 *       a packet socket on every interface first, then a new persistent
 *       tap NAME of NODE, and from the instant TUNSETIFF returns a spoofed
 *       frame and a guest's frame in turn for MS ms; counts what the stack
 *       received from NAME (the packet socket sees every frame that reaches
 *       it, from the first) and prints one "race ..." line of counts
 *   tapx-unbound get               the default's id (0: none)
 *   tapx-unbound set-new           loads an XDP program (xdp.frags, XDP_PASS)
 *                                  held only by the default; prints its id
 *   tapx-unbound set-pinned PATH   the program pinned at PATH as the default
 *   tapx-unbound clear             clears the default
 *   tapx-unbound refuse NODE       the refusals, as PASS/FAIL lines
 *   tapx-unbound netns-exit        a namespace of its own with a default
 *                                  held only there and a persistent tap that
 *                                  ran it; once the namespace is gone, so is
 *                                  the program (PASS/FAIL lines)
 */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/tapx.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "tapx-test.h"

/* The guest's addresses (the guard's), and a spoofer's. */
static const uint8_t guest_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x0a, 0x01 };
static const uint8_t spoof_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x66, 0x66 };
#define GUEST_IP 0x0a090001 /* 10.9.0.1 */
#define SPOOF_IP 0x0a420042 /* 10.66.0.66 */
#define FRAME_LEN 60

static uint16_t ip_csum(const uint8_t *h)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (h[i] << 8) | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* Broadcast IPv4/UDP from mac/ip to 10.9.0.254:7777. */
static void udp_frame(uint8_t *f, const uint8_t *mac, uint32_t ip)
{
	uint8_t *h = f + 14, *u = h + 20;
	uint16_t c;

	memset(f, 0, FRAME_LEN);
	memset(f, 0xff, 6);
	memcpy(f + 6, mac, 6);
	f[12] = 0x08;
	h[0] = 0x45;
	h[3] = FRAME_LEN - 14;
	h[8] = 64;
	h[9] = 17;
	*(uint32_t *)(h + 12) = htonl(ip);
	*(uint32_t *)(h + 16) = htonl(0x0a0900fe);
	c = ip_csum(h);
	h[10] = c >> 8;
	h[11] = c & 0xff;
	u[0] = 0x1e;
	u[1] = 0x61;
	u[2] = 0x1e;
	u[3] = 0x61;
	u[5] = FRAME_LEN - 34;
}

static double ms_since(double t0)
{
	return (now_ns() - t0) / 1e6;
}

struct seen {
	unsigned int spoof, guest, other;
	double first_guest, last_spoof;
};

/* Every frame queued on the packet socket from tap ifindex. */
static void drain(int s, int ifindex, double t0, struct seen *n)
{
	uint8_t buf[2048];
	struct sockaddr_ll from;
	socklen_t fl;
	int len;

	for (;;) {
		fl = sizeof(from);
		len = recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, (void *)&from, &fl);
		if (len < 0)
			return;
		if (from.sll_pkttype == PACKET_OUTGOING || len < 12 ||
		    (ifindex && from.sll_ifindex != ifindex))
			continue;
		if (!memcmp(buf + 6, spoof_mac, 6)) {
			n->spoof++;
			n->last_spoof = ms_since(t0);
		} else if (!memcmp(buf + 6, guest_mac, 6)) {
			if (!n->guest++)
				n->first_guest = ms_since(t0);
		} else {
			n->other++;
		}
	}
}

static int race(const char *node, const char *name, int ms)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	uint8_t spoof[FRAME_LEN], guest[FRAME_LEN];
	unsigned int wrote_spoof = 0, wrote_guest = 0, failed = 0;
	struct tpacket_stats ps;
	socklen_t psl = sizeof(ps);
	struct seen n = { 0 };
	struct ifreq ifr;
	int s, fd, ifindex = 0, sz = 16 << 20;
	double t0;

	udp_frame(spoof, spoof_mac, SPOOF_IP);
	udp_frame(guest, guest_mac, GUEST_IP);
	/* Every interface: the tap's first frame cannot come before it. */
	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0 || bind(s, (void *)&sll, sizeof(sll)) ||
	    setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz))) {
		perror("race: packet socket");
		return 1;
	}
	fd = open(node, O_RDWR);
	if (fd < 0) {
		perror(node);
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		perror("race: TUNSETIFF");
		return 1;
	}
	t0 = now_ns();
	while (ms_since(t0) < ms) {
		if (write(fd, spoof, FRAME_LEN) == FRAME_LEN)
			wrote_spoof++;
		else
			failed++;
		if (write(fd, guest, FRAME_LEN) == FRAME_LEN)
			wrote_guest++;
		else
			failed++;
		if (!ifindex) {
			/*
			 * After the first frames, nothing before them: up, as
			 * QEMU's helpers set a guest's tap (tun drops what is
			 * written to a tap that is down), and persistent, for
			 * the suite's look at its counters.
			 */
			ifindex = if_nametoindex(name);
			if (if_up(name, 1) || ioctl(fd, TUNSETPERSIST, 1))
				perror("race: up, persist");
		}
		drain(s, ifindex, t0, &n);
		usleep(200);
	}
	usleep(200000);
	drain(s, ifindex, t0, &n);
	if (getsockopt(s, SOL_PACKET, PACKET_STATISTICS, &ps, &psl))
		ps.tp_drops = ~0u;
	printf("race %s: wrote %u spoofed + %u guest frames in %d ms (%u writes failed); "
	       "the stack saw %u spoofed, %u guest, %u other; first guest at %.1f ms, "
	       "last spoofed at %.1f ms; packet socket drops %u\n",
	       name, wrote_spoof, wrote_guest, ms, failed, n.spoof, n.guest, n.other,
	       n.guest ? n.first_guest : -1.0, n.spoof ? n.last_spoof : -1.0, ps.tp_drops);
	printf("counts wrote=%u seen_spoof=%u seen_guest=%u drops=%u failed=%u\n",
	       wrote_spoof + wrote_guest, n.spoof, n.guest, ps.tp_drops, failed);
	close(fd);
	close(s);
	return 0;
}

/* XDP returning XDP_PASS; frags: with BPF_F_XDP_HAS_FRAGS; attach: its
 * expected_attach_type. Its fd, or -1. */
static int xdp_load(int frags, int attach)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.expected_attach_type = attach;
	attr.prog_flags = frags ? BPF_F_XDP_HAS_FRAGS : 0;
	attr.insns = (uint64_t)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(unsigned long)"GPL";
	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

static int prog_id(int fd)
{
	struct bpf_prog_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(unsigned long)&info;
	if (syscall(__NR_bpf, BPF_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)))
		return -1;
	return info.id;
}

static int node_open(void)
{
	int fd = open("/dev/net/tapx", O_RDWR);

	if (fd < 0)
		perror("/dev/net/tapx");
	return fd;
}

static int set_default(int node, int prog)
{
	return ioctl(node, TAPXSETDEFPROG, &prog) ? -errno : 0;
}

static int get_default(int node, uint32_t *id)
{
	return ioctl(node, TAPXGETDEFPROG, id) ? -errno : 0;
}

/* Without CAP_NET_ADMIN (and the rest) from here on. */
static int drop_caps(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d);
}

static void expect_err(int got, int want, const char *what)
{
	check(got == -want, "unbound: %s: %s (got %s)", what, strerror(want),
	      got ? strerror(-got) : "success");
}

static int refuse(const char *node)
{
	int fd = node_open(), ok, sf, tap, st;
	uint32_t id = 1;
	pid_t pid;

	if (fd < 0)
		return 1;
	sf = socket_filter_load(0);
	expect_err(set_default(fd, sf), EINVAL, "a socket filter's fd");
	close(sf);
	ok = xdp_load(0, 0);
	expect_err(set_default(fd, ok), ERANGE, "an XDP program without xdp.frags");
	close(ok);
	ok = xdp_load(1, BPF_XDP_DEVMAP);
	check(ok >= 0, "unbound: a devmap XDP program loads (%s)", ok < 0 ? strerror(errno) : "ok");
	expect_err(set_default(fd, ok), EINVAL, "a devmap XDP program");
	close(ok);
	expect_err(set_default(fd, open("/dev/null", O_RDONLY)), EINVAL, "an fd that is no program");
	expect_err(set_default(fd, 1000), EBADF, "a closed fd");
	check(!get_default(fd, &id) && id == 0, "unbound: still no default (id %u)", id);

	/* A file bound to a device is a tap's, not the namespace's. */
	tap = tap_open(node, "ubbusy0", IFF_TAP | IFF_NO_PI, 0);
	ok = xdp_load(1, 0);
	expect_err(set_default(tap, ok), EBUSY, "on a file bound to a tap");
	close(tap);

	/* The same calls without CAP_NET_ADMIN, on a file opened with it. */
	pid = fork();
	if (!pid) {
		int set, get;

		if (drop_caps())
			_exit(100);
		set = set_default(fd, ok);
		get = get_default(fd, &id);
		_exit((set == -EPERM) | (get == -EPERM) << 1);
	}
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 3,
	      "unbound: without CAP_NET_ADMIN: set and get EPERM (child status %d)",
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	check(!get_default(fd, &id) && id == 0, "unbound: no default after the refusals (id %u)",
	      id);
	close(ok);
	close(fd);
	return failures != 0;
}

static int prog_alive(uint32_t id)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	fd = syscall(__NR_bpf, BPF_PROG_GET_FD_BY_ID, &attr, sizeof(attr));
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

/* In the child: the namespace, its default, a tap that runs it. */
static int netns_child(int out)
{
	uint8_t f[FRAME_LEN];
	uint32_t id = 0;
	int node, prog, tap;

	if (unshare(CLONE_NEWNET))
		return 1;
	node = node_open();
	prog = xdp_load(1, 0);
	if (node < 0 || prog < 0 || set_default(node, prog) || get_default(node, &id))
		return 2;
	close(prog);
	tap = tap_open("/dev/net/tapx", "ubns0", IFF_TAP | IFF_NO_PI, 0);
	if (tap < 0 || ioctl(tap, TUNSETPERSIST, 1))
		return 3;
	udp_frame(f, guest_mac, GUEST_IP);
	if (write(tap, f, FRAME_LEN) != FRAME_LEN)
		return 4;
	if (write(out, &id, sizeof(id)) != sizeof(id))
		return 5;
	return 0;
}

static int netns_exit(void)
{
	uint32_t id = 0;
	int p[2], st, i;
	pid_t pid;

	if (pipe(p))
		return 1;
	pid = fork();
	if (!pid)
		_exit(netns_child(p[1]));
	close(p[1]);
	if (read(p[0], &id, sizeof(id)) != sizeof(id))
		id = 0;
	waitpid(pid, &st, 0);
	check(id && WIFEXITED(st) && !WEXITSTATUS(st),
	      "unbound: a namespace's default set (id %u), its tap wrote (child status %d)", id,
	      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	if (!id)
		return 1;
	/* The namespace goes in a workqueue after its last process. */
	for (i = 0; i < 200 && prog_alive(id); i++)
		usleep(50000);
	check(!prog_alive(id), "unbound: program %u freed once its namespace is gone (%.1f s)", id,
	      i * 0.05);
	return failures != 0;
}

static int set_pinned(const char *path)
{
	union bpf_attr attr;
	int fd = node_open(), prog, err;

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(unsigned long)path;
	prog = syscall(__NR_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (fd < 0 || prog < 0) {
		perror(path);
		return 1;
	}
	err = set_default(fd, prog);
	if (err)
		fprintf(stderr, "tapx-unbound set-pinned: %s\n", strerror(-err));
	return !!err;
}

int main(int argc, char **argv)
{
	uint32_t id = 0;
	int fd, prog, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "race"))
		return race(argv[2], argv[3], atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "refuse"))
		return refuse(argv[2]);
	if (argc == 2 && !strcmp(argv[1], "netns-exit"))
		return netns_exit();
	if (argc == 3 && !strcmp(argv[1], "set-pinned"))
		return set_pinned(argv[2]);
	if (argc != 2)
		goto usage;
	fd = node_open();
	if (fd < 0)
		return 1;
	if (!strcmp(argv[1], "get")) {
		err = get_default(fd, &id);
	} else if (!strcmp(argv[1], "clear")) {
		err = set_default(fd, -1);
	} else if (!strcmp(argv[1], "set-new")) {
		prog = xdp_load(1, 0);
		if (prog < 0) {
			perror("set-new: BPF_PROG_LOAD");
			return 1;
		}
		id = prog_id(prog);
		err = set_default(fd, prog);
		close(prog);
	} else {
		goto usage;
	}
	if (err) {
		fprintf(stderr, "tapx-unbound %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	if (strcmp(argv[1], "clear"))
		printf("%u\n", id);
	return 0;
usage:
	fprintf(stderr, "usage: tapx-unbound race NODE NAME MS | get | set-new | clear | "
			"set-pinned PATH | refuse NODE | netns-exit\n");
	return 2;
}
