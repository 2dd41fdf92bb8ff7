// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * firewall.c - `tap-accel-bench --firewall`: one security group (two-way,
 * stateful: docs/policy.md, examples/security-group.policy) enforced by
 * tap-accel and by nftables as hosts write it today, on this host's
 * kernel and stock tun, side by side.
 *
 * tap-accel: two taps bound to the policy; guest to guest is the XDP
 * redirect (the receiver's in rules judged before it), guest to stack the
 * XDP program's out, stack to guest the in program on the tap's egress.
 * nftables: the same two taps in a Linux bridge with
 * net.bridge.bridge-nf-call-iptables=1 (br_netfilter, as iptables_hybrid
 * and pve-firewall do), an inet table on the forward, input and output
 * hooks: ct state established,related accept, ct state invalid drop, then
 * the guest's in rules, as a chain (N rules before the flow's) or with the
 * N-1 others in a set.
 * --pve DIR/VMID.fw adds a row: that Proxmox VE VM's firewall, tap-accel
 * enforcing its translation and nftables the same files in Proxmox VE's
 * shape (fw_pve.c), with flows its rules let in.
 * --drivers tapx puts the taps on tapx instead; --nft-family bridge has
 * nftables use the bridge family's own conntrack (nf_conntrack_bridge)
 * instead of br_netfilter and an inet table; in a QEMU guest with the
 * instruction counter every cell is counted in instructions per frame too
 * (tests/vm/bench.sh runs it so).
 *
 * Each firewall of each row runs in a child process of its own, in a new
 * network namespace (and, for tap-accel, a mount namespace with a bpffs of
 * its own): taps, bridge, nft table, sysctls and BPF state all go when the
 * child exits, Ctrl-C included. The one host setting a row may need is
 * net.netfilter.nf_conntrack_max (a namespace cannot go past the host's):
 * raised for the run when the rows need more, and put back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/if_link.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "files.h"
#include "fw_pve.h"
#include "goals.h"
#include "icount.h"
#include "firewall.h"
#include "scale.h"
#include "stop.h"
#include "bpf/tap_accel.h"
#include "bpf/xdp_basic.skel.h"
#include "bpf/xdp_table.skel.h"
#include "lib/output/json.h"
#include "lib/plane/plane.h"
#include "lib/sys/util.h"

#define FRAME_LEN 64	    /* what a guest writes */
#define STACK_PAYLOAD 18    /* stack to guest: a frame of 60 B */
#define STACK_LEN (14 + 20 + 8 + STACK_PAYLOAD)
#define CHUNK 64	    /* frames written before they are read back */
#define IDLE_WAITS 3	    /* 1 ms polls without a frame: the rest is lost */
#define FILL_LIMIT_S 90.0   /* a table not full by then is reported as such */
#define CT_TIMEOUT_S 3600   /* UDP in both tables: the fill must not expire */
#define LOST_MAX 0.01	    /* delivered below 99 %: the cell says so */
#define CONNTRACK_MAX "/proc/sys/net/netfilter/nf_conntrack_max"

/* Guests A and B and the host's address (on tap A for tap-accel, on the
 * bridge for nftables). */
#define HOST_IP 0x0a000001u /* 10.0.0.1 */
#define A_IP 0x0a000002u
#define B_IP 0x0a000003u
#define FILL_NET 0x0a400000u /* 10.64/10: the connections of the fill */
#define NEW_NET 0x0a800000u  /* 10.128/9: the new-connection cell's */
#define OTHER_IP 0x0a000063u /* 10.0.0.99: no one (tap-accel's fill) */
#define G2G_SPORT 5000
#define G2G_DPORT 7000	/* the port the guest's in rules let in */
#define STACK_SPORT 5001
#define STACK_PORT 6001
#define FILLER_PORT 10001 /* the other rules: drop these ports */
#define PORTS_PER_IP 60000
#define NR_TURNS 7 /* tap-accel, nft chain, nft set, both references, both floors */
#define FW_ROWS_MAPPED (FW_MAX_ROWS + 1) /* the grid and the Proxmox VE row */

/* The Proxmox VE row: VM 104's clients. The established flow is the
 * monitor's UDP to the VM's SNMP port (its admin group lets it in); the
 * new connections are TCP SYNs to PostgreSQL from the offices' ipset (its
 * database group's, past the base and admin groups' rules and ipsets). */
#define PVE_CONNS 1000
#define PVE_MONITOR 0xc6336407u	 /* 198.51.100.7 */
#define PVE_VM_IP 0x0a1e0004u	 /* 10.30.0.4: the VM itself */
#define PVE_FILL_NET 0x0a140000u /* 10.20.0/24, an office's */
#define PVE_NEW_NET 0x0a140c00u	 /* 10.20.12/24, another's */
#define PVE_OUTSIDER 0x0a630001u /* 10.99.0.1: in none of its ipsets */
#define PVE_SNMP 161
#define PVE_PGSQL 5432
/* Whom the nftables ruleset's maps send to the VM's chains: guest A's
 * addresses (the stack's, the monitor's, the offices') and B's. */
#define PVE_GUESTS "10.0.0.2,198.51.100.7,10.20.0.0/16,10.30.0.4"

static const uint8_t mac_a[6] = {0x02, 0, 0, 0, 0xfa, 0x01};
static const uint8_t mac_b[6] = {0x02, 0, 0, 0, 0xfa, 0x02};
static const uint8_t mac_other[6] = {0x02, 0, 0, 0, 0xfa, 0x99};

enum fw_side_kind { SIDE_TA, SIDE_NFT, NR_SIDES };
/* Variants of a side: tap-accel has one; nftables a chain and a set. */
enum { VAR_CHAIN, VAR_SET, NR_VARS };
enum fw_cell { CELL_G2G, CELL_G2S, CELL_S2G, CELL_NEW, NR_CELLS };
/* The floors: xdp_basic's bare programs; xdp_table's, the same with the
 * connection table's work alone. */
enum fw_floor { FLOOR_BARE, FLOOR_TABLE, NR_FLOORS };
/* Programs timed in a cell: tap-accel's two, then each floor's (PT_FLOOR + k) */
enum { PT_XDP, PT_TC, PT_FLOOR, PT_TABLE, NR_PT };

static const char *const cell_name[NR_CELLS] = {
	[CELL_G2G] = "established_g2g", [CELL_G2S] = "established_g2s",
	[CELL_S2G] = "established_s2g", [CELL_NEW] = "new_connections",
};

struct fw_meas {
	double ns; /* per frame, the fastest repetition; NAN: not measured */
	double delivered; /* the worst repetition's share of frames that came */
	double insns; /* per frame on the writer's vCPU, the fewest; NAN: not counted */
};

/* What one child measured; in memory shared with the parent. */
struct fw_side {
	bool ran;
	char error[256];
	/* the same path without a firewall, measured alternately with it:
	 * G2S and S2G */
	struct fw_meas none[NR_VARS][NR_CELLS];
	struct fw_meas m[NR_VARS][NR_CELLS];
	/* tap-accel's: the least any XDP program takes on the path, a bare
	 * redirect guest to guest (G2G, NEW) or a bare pass to the stack
	 * (G2S), and the least one that keeps ta_ct's table takes (FLOOR_*);
	 * nftables': none[][G2G, NEW] is the bridge without it */
	struct fw_meas floor[NR_FLOORS][NR_CELLS];
	/* tap-accel's: each program's own ns per run in a cell (PT_*), from
	 * the kernel's statistics; NAN: not measured */
	double prog_ns[NR_CELLS][NR_PT];
	unsigned long tracked;	   /* connections in the table after the fill */
	double fill_s;
	bool fill_short;	   /* the fill stopped at FILL_LIMIT_S */
	double bytes_per_conn;	   /* kernel memory of one tracked connection */
	unsigned long table_size;  /* tap-accel: entries; nftables: buckets */
	unsigned long after_new;   /* connections in the table at the end */
};

struct fw_row {
	bool pve; /* the Proxmox VE VM's firewall, not the security group */
	unsigned int rules;
	unsigned long conns;
	struct fw_side side[NR_SIDES];
};

struct fw {
	const struct fw_opts *o;
	char exe[PATH_MAX];
	char kernel[128], started[32];
	int ncpus;
	bool icount; /* the guest's instructions counted too */
	struct fw_row *rows; /* shared with the children */
	int nr_rows;	     /* the grid's, and the Proxmox VE row */
	struct fw_pve pve;
	char out_dir[PATH_MAX];
	bool interrupted;
};

/* ---- small things ------------------------------------------------------- */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int fail(struct ta_error *e, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct ta_error *e, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->text, sizeof(e->text), fmt, ap);
	va_end(ap);
	e->err = err ? err : EIO;
	return -e->err;
}

static int write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		ret = -errno;
	close(fd);
	return ret;
}

static long read_long(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/*
 * "ip() { '/usr/sbin/ip' \"$@\"; }; ..." for ip, bridge and nft as PATH
 * finds them: a busybox sh (a guest's initramfs) would run its own applets
 * of those names before PATH's, and busybox's ip lacks what run() asks.
 */
static const char *tools_prelude(void)
{
	static const char *const tools[] = {"ip", "bridge", "nft"};
	static char prelude[3 * (PATH_MAX + 32)];
	const char *path = getenv("PATH");

	if (prelude[0] || !path)
		return prelude;
	for (size_t t = 0; t < sizeof(tools) / sizeof(tools[0]); t++) {
		for (const char *p = path; *p;) {
			size_t len = strcspn(p, ":");
			char file[PATH_MAX];

			snprintf(file, sizeof(file), "%.*s/%s", (int)len, p, tools[t]);
			if (len && file[0] == '/' && !strchr(file, '\'') && !access(file, X_OK)) {
				snprintf(prelude + strlen(prelude), sizeof(prelude) - strlen(prelude),
					 "%s() { '%s' \"$@\"; }; ", tools[t], file);
				break;
			}
			p += len + (p[len] == ':');
		}
	}
	return prelude;
}

/*
 * `sh -c CMD` in the caller's namespaces; its output is kept and the first
 * line of its stderr is the error. Not system(): that ignores SIGINT while
 * it waits, and Ctrl-C must reach stop_requested().
 */
#define LOAD_NOTE "tap-accel: loaded the tap-accel program"

static int run(struct ta_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run(struct ta_error *e, const char *fmt, ...)
{
	int out = memfd_create("fw-run", MFD_CLOEXEC), status = -1;
	char cmd[1024], line[sizeof(cmd) + sizeof(((struct ta_error *)0)->text)];
	char text[256] = "", *first;
	va_list ap;
	ssize_t n;
	pid_t pid;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (out < 0)
		return fail(e, errno, "memfd: %s", strerror(errno));
	snprintf(line, sizeof(line), "%s%s", tools_prelude(), cmd);
	pid = fork();
	if (pid == 0) {
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		execl("/bin/sh", "sh", "-c", line, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || stop_wait_child(pid, &status)) {
		close(out);
		return fail(e, errno, "cannot run %s", cmd);
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status)) {
		close(out);
		return 0;
	}
	n = pread(out, text, sizeof(text) - 1, 0);
	close(out);
	text[n > 0 ? n : 0] = '\0';
	/* The CLI's note of the program it loaded (a child's bpffs is new)
	 * comes before its error. */
	first = text;
	if (!strncmp(first, LOAD_NOTE, strlen(LOAD_NOTE)) && strchr(first, '\n'))
		first = strchr(first, '\n') + 1;
	first[strcspn(first, "\n")] = '\0';
	if (stop_requested())
		return fail(e, EINTR, "interrupted");
	return fail(e, EIO, "%.120s: %s", cmd, first[0] ? first : "failed");
}

/* ---- frames ------------------------------------------------------------- */

struct flow {
	const uint8_t *dmac, *smac;
	uint32_t sip, dip; /* host order */
	uint16_t sport, dport;
	uint8_t proto; /* 0: UDP; IPPROTO_TCP: a SYN */
};

/* What a row's frames are: the guest-to-guest flow, the new connections'
 * (and, for nftables, the fill's: they must be let in to be tracked). */
struct fw_flows {
	struct flow g2g;
	uint32_t new_net;
	uint16_t new_dport;
	uint8_t new_proto;
	struct flow nft_fill; /* sip, sport: each connection's */
};

static uint16_t ip_sum(const uint8_t *h)
{
	uint32_t sum = 0;

	for (int i = 0; i < 20; i += 2)
		sum += h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return ~sum;
}

/* The TCP checksum of the segment after ip (conntrack checks it on
 * prerouting). */
static void tcp_sum(uint8_t *ip, unsigned int len)
{
	uint8_t *tcp = ip + 20;
	uint32_t sum = IPPROTO_TCP + len;

	for (int i = 12; i < 20; i += 2)
		sum += ip[i] << 8 | ip[i + 1];
	for (unsigned int i = 0; i < len; i += 2)
		sum += tcp[i] << 8 | (i + 1 < len ? tcp[i + 1] : 0);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	tcp[16] = sum >> 8;
	tcp[17] = sum & 0xff;
}

/* An IPv4 frame of FRAME_LEN bytes: UDP (checksum 0: none), or a TCP SYN
 * with the rest as its data (a SYN may carry some). */
static void frame_build(uint8_t *f, const struct flow *fl)
{
	uint8_t *ip = f + 14, *udp = ip + 20;
	uint32_t sip = htonl(fl->sip), dip = htonl(fl->dip);
	bool tcp = fl->proto == IPPROTO_TCP;
	uint16_t sum;

	memset(f, 0, FRAME_LEN);
	memcpy(f, fl->dmac, 6);
	memcpy(f + 6, fl->smac, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = FRAME_LEN - 14;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	memcpy(ip + 12, &sip, 4);
	memcpy(ip + 16, &dip, 4);
	sum = ip_sum(ip);
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
	udp[0] = fl->sport >> 8;
	udp[1] = fl->sport & 0xff;
	udp[2] = fl->dport >> 8;
	udp[3] = fl->dport & 0xff;
	if (!tcp) {
		udp[5] = FRAME_LEN - 14 - 20;
		return;
	}
	udp[7] = 1;	    /* seq */
	udp[12] = 5 << 4;   /* 20 B of header */
	udp[13] = 0x02;	    /* SYN */
	udp[14] = udp[15] = 0xff; /* window */
	tcp_sum(ip, FRAME_LEN - 14 - 20);
}

/* The i-th connection of a block of addresses: distinct 5-tuples. */
static void flow_nth(struct flow *fl, uint32_t net, unsigned long i)
{
	fl->sip = net + 1 + (uint32_t)(i / PORTS_PER_IP);
	fl->sport = 1024 + i % PORTS_PER_IP;
}

/* ---- the namespace of a child ------------------------------------------- */

struct side_env {
	enum fw_side_kind kind;
	int netns;		  /* its network namespace */
	int fd[2];		  /* taps of guests A and B, nonblocking */
	char name[2][IFNAMSIZ];
	uint8_t host_mac[6];	  /* where A's frames to the stack go */
	int sock;		  /* UDP, HOST_IP:STACK_PORT */
	uint8_t buf[4096];
	unsigned long new_next;	  /* the next new connection's number */
	const struct fw_opts *o;
	const char *exe;
	int cpu;	/* the writer's: every frame is handled there */
	bool icount;
	unsigned int rules;
	unsigned long conns;
	int policy_fd; /* the policy's text, in memory: /proc/self/fd/N */
	const struct fw_flows *fl;
	const struct fw_pve *pve; /* the Proxmox VE row's files, or NULL */
	/* a floor's: its object and its program of each cell, for tap A */
	struct xdp_basic *bare;
	struct xdp_table *table;
	struct bpf_program *floor_prog[NR_CELLS];
	int bare_ifindex;	  /* tap A's, where they go */
};

static int tap_open(struct side_env *v, int i, const char *name, struct ta_error *e)
{
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	int fd = open(v->o->tap_dev, O_RDWR | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return fail(e, errno, "%s: %s%s", v->o->tap_dev, strerror(errno),
			    v->o->tapx && errno == ENOENT ? " (insmod tapx.ko)" : "");
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		close(fd);
		return fail(e, errno, "tap %s: %s", name, strerror(errno));
	}
	v->fd[i] = fd;
	snprintf(v->name[i], IFNAMSIZ, "%s", ifr.ifr_name);
	return 0;
}

static int hw_addr(const char *name, uint8_t mac[6], struct ta_error *e)
{
	struct ifreq ifr = {0};
	int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), err = 0;

	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (sock < 0 || ioctl(sock, SIOCGIFHWADDR, &ifr) < 0)
		err = fail(e, errno, "%s: its MAC: %s", name, strerror(errno));
	else
		memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	if (sock >= 0)
		close(sock);
	return err;
}

static int host_socket(struct side_env *v, struct ta_error *e)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(STACK_PORT),
				 .sin_addr.s_addr = htonl(HOST_IP)};
	int size = 4 << 20;

	v->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (v->sock < 0)
		return fail(e, errno, "socket: %s", strerror(errno));
	setsockopt(v->sock, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size));
	setsockopt(v->sock, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size));
	if (bind(v->sock, (struct sockaddr *)&sa, sizeof(sa)))
		return fail(e, errno, "bind 10.0.0.1:%d: %s", STACK_PORT, strerror(errno));
	return 0;
}

static const char *mac_text(const uint8_t m[6], char buf[18])
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

/* A network namespace with taps A and B; for tap-accel the host's address
 * on A, for nftables both in bridge fwbr0 with the address on the bridge.
 * The taps' and the socket's fds work from any namespace: the cells of
 * every firewall and of their references take turns from one process. */
static int env_setup(struct side_env *v, struct ta_error *e)
{
	char ma[18], mb[18];
	const char *host_dev;

	if (unshare(CLONE_NEWNET) < 0)
		return fail(e, errno, "unshare(CLONE_NEWNET): %s (needs root)", strerror(errno));
	v->netns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (v->netns < 0)
		return fail(e, errno, "/proc/self/ns/net: %s", strerror(errno));
	/* No router solicitations or DAD frames in the taps' queues. */
	write_file("/proc/sys/net/ipv6/conf/default/disable_ipv6", "1");
	write_file("/proc/sys/net/ipv6/conf/all/disable_ipv6", "1");
	if (tap_open(v, 0, "fwa", e) || tap_open(v, 1, "fwb", e))
		return -e->err;
	mac_text(mac_a, ma);
	mac_text(mac_b, mb);
	if (v->kind == SIDE_TA) {
		host_dev = v->name[0];
		if (run(e, "ip link set lo up && ip link set fwa up && ip link set fwb up && "
			   "ip addr add 10.0.0.1/24 dev fwa"))
			return -e->err;
	} else {
		host_dev = "fwbr0";
		/* Not a bridged frame through netfilter until the firewall is on;
		 * the bridge family's table needs no br_netfilter (kept out if
		 * it is loaded). */
		if (write_file("/proc/sys/net/bridge/bridge-nf-call-iptables", "0") &&
		    !v->o->nft_bridge)
			return fail(e, ENOENT,
				    "/proc/sys/net/bridge/bridge-nf-call-iptables: absent (the "
				    "nftables side needs br_netfilter: modprobe br_netfilter)");
		if (run(e, "ip link set lo up && ip link add fwbr0 type bridge && "
			   "ip link set fwa master fwbr0 && ip link set fwb master fwbr0 && "
			   "ip link set fwa up && ip link set fwb up && ip link set fwbr0 up && "
			   "ip addr add 10.0.0.1/24 dev fwbr0 && "
			   "bridge fdb replace %s dev fwa master static && "
			   "bridge fdb replace %s dev fwb master static",
			   ma, mb))
			return -e->err;
	}
	if (run(e, "ip neigh replace 10.0.0.2 lladdr %s dev %s nud permanent", ma, host_dev) ||
	    hw_addr(host_dev, v->host_mac, e))
		return -e->err;
	return host_socket(v, e);
}

/* ---- reading back ------------------------------------------------------- */

static bool readable(int fd, int timeout_ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, timeout_ms) > 0 && (p.revents & POLLIN);
}

/* Up to `want` frames of `len` bytes from tap fd; what came. */
static unsigned long tap_read(struct side_env *v, int fd, unsigned long want, size_t len)
{
	unsigned long got = 0;
	int idle = 0;

	while (got < want && idle < IDLE_WAITS) {
		ssize_t n = read(fd, v->buf, sizeof(v->buf));

		if (n >= 0) {
			got += (size_t)n == len;
			idle = 0;
		} else if (errno == EAGAIN && !readable(fd, 1)) {
			idle++;
		} else if (errno != EAGAIN && errno != EINTR) {
			break;
		}
	}
	return got;
}

static unsigned long sock_read(struct side_env *v, unsigned long want)
{
	struct mmsghdr msgs[CHUNK];
	struct iovec iov[CHUNK];
	unsigned long got = 0;
	int idle = 0;

	for (int i = 0; i < CHUNK; i++) {
		iov[i] = (struct iovec){v->buf + i * 64, 64};
		msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &iov[i], .msg_iovlen = 1}};
	}
	while (got < want && idle < IDLE_WAITS) {
		int n = recvmmsg(v->sock, msgs, CHUNK, MSG_DONTWAIT, NULL);

		if (n > 0) {
			got += n;
			idle = 0;
		} else if (n < 0 && errno == EAGAIN && !readable(v->sock, 1)) {
			idle++;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
			break;
		}
	}
	return got;
}

static void drain(struct side_env *v)
{
	for (int i = 0; i < 2; i++)
		while (read(v->fd[i], v->buf, sizeof(v->buf)) >= 0)
			;
	while (recv(v->sock, v->buf, sizeof(v->buf), MSG_DONTWAIT) >= 0)
		;
}

/* ---- the cells ---------------------------------------------------------- */

static const struct fw_flows sg_flows = {
	.g2g = {mac_b, mac_a, A_IP, B_IP, G2G_SPORT, G2G_DPORT, 0},
	.new_net = NEW_NET, .new_dport = G2G_DPORT,
	.nft_fill = {mac_b, mac_a, FILL_NET, B_IP, 0, G2G_DPORT, 0},
};

static const struct fw_flows pve_flows = {
	.g2g = {mac_b, mac_a, PVE_MONITOR, PVE_VM_IP, G2G_SPORT, PVE_SNMP, 0},
	.new_net = PVE_NEW_NET, .new_dport = PVE_PGSQL, .new_proto = IPPROTO_TCP,
	.nft_fill = {mac_b, mac_a, PVE_FILL_NET, PVE_VM_IP, 0, PVE_PGSQL, IPPROTO_TCP},
};

/* n frames of cell c, in chunks, each read back where it goes; what came
 * back. */
static unsigned long cell_pass(struct side_env *v, enum fw_cell c, unsigned long n)
{
	struct flow fl = v->fl->g2g;
	uint8_t frame[FRAME_LEN];
	unsigned long got = 0;

	if (c == CELL_NEW) {
		fl.dport = v->fl->new_dport;
		fl.proto = v->fl->new_proto;
	}
	if (c == CELL_G2S)
		fl = (struct flow){v->host_mac, mac_a, A_IP, HOST_IP, STACK_SPORT, STACK_PORT, 0};
	frame_build(frame, &fl);
	for (unsigned long done = 0; done < n;) {
		unsigned long k = n - done < CHUNK ? n - done : CHUNK, in = 0;

		if (c == CELL_S2G) {
			struct sockaddr_in to = {.sin_family = AF_INET,
						 .sin_port = htons(STACK_SPORT),
						 .sin_addr.s_addr = htonl(A_IP)};
			struct mmsghdr msgs[CHUNK];
			struct iovec iov = {frame, STACK_PAYLOAD};
			int sent;

			for (unsigned long i = 0; i < k; i++)
				msgs[i] = (struct mmsghdr){.msg_hdr = {.msg_name = &to,
								       .msg_namelen = sizeof(to),
								       .msg_iov = &iov,
								       .msg_iovlen = 1}};
			sent = sendmmsg(v->sock, msgs, k, 0);
			in = sent > 0 ? sent : 0;
			got += tap_read(v, v->fd[0], in, STACK_LEN);
		} else {
			for (unsigned long i = 0; i < k; i++) {
				if (c == CELL_NEW) {
					flow_nth(&fl, v->fl->new_net, v->new_next++);
					frame_build(frame, &fl);
				}
				in += write(v->fd[0], frame, FRAME_LEN) == FRAME_LEN;
			}
			got += c == CELL_G2S ? sock_read(v, in) : tap_read(v, v->fd[1], in, FRAME_LEN);
		}
		done += k;
		if (stop_requested())
			break;
	}
	return got;
}

/* One namespace's part in a cell: where its frames go, where its time. */
struct turn {
	struct side_env *env;
	struct fw_meas *m;
};

/*
 * A cell: a warm-up of a tenth, then the repetitions; the fastest. The
 * firewalls and their references take turns repetition by repetition, so
 * that what else the machine does weighs on all of them alike.
 */
static int cell_measure(const struct turn *turns, int nr, enum fw_cell c, struct ta_error *e)
{
	const struct fw_opts *o = turns[0].env->o;
	double t[NR_TURNS][FW_MAX_REPS];
	unsigned long n = o->frames;

	for (int k = 0; k < nr; k++) {
		turns[k].m->delivered = 1;
		turns[k].m->insns = NAN;
		drain(turns[k].env);
		cell_pass(turns[k].env, c, n / 10 ? n / 10 : 1);
	}
	for (int r = 0; r < o->reps; r++)
		for (int k = 0; k < nr; k++) {
			double t0, insns;
			unsigned long got;

			if (turns[k].env->icount)
				bench_icount_begin();
			t0 = now_s();
			got = cell_pass(turns[k].env, c, n);
			t[k][r] = (now_s() - t0) * 1e9 / n;
			if (turns[k].env->icount) {
				insns = bench_icount_end(turns[k].env->cpu, e);
				if (insns < 0)
					return -e->err;
				/* the fewest: interrupts only add */
				if (!(insns / n >= turns[k].m->insns))
					turns[k].m->insns = insns / n;
			}
			if ((double)got / n < turns[k].m->delivered)
				turns[k].m->delivered = (double)got / n;
			if (stop_requested())
				return fail(e, EINTR, "interrupted");
		}
	/* The fastest: what other work on the machine does only adds time. */
	for (int k = 0; k < nr; k++) {
		qsort(t[k], o->reps, sizeof(*t[k]), cmp_double);
		turns[k].m->ns = t[k][0];
	}
	return 0;
}

/* ---- the connection tables ---------------------------------------------- */

static unsigned long ta_tracked(void)
{
	int fd = bpf_obj_get(TA_PIN_ROOT "/ta_ct_taps");
	uint32_t host = TA_MAX_TAPS;
	struct ta_ct_tap t = {0};

	if (fd < 0)
		return 0;
	bpf_map_lookup_elem(fd, &host, &t);
	close(fd);
	return t.tracked;
}

static unsigned long tracked(const struct side_env *v)
{
	long n;

	if (v->kind == SIDE_TA)
		return ta_tracked();
	/* /proc/sys/net is the reader's namespace's */
	if (setns(v->netns, CLONE_NEWNET))
		return 0;
	n = read_long("/proc/sys/net/netfilter/nf_conntrack_count");
	return n > 0 ? n : 0;
}

/*
 * Frames of distinct connections from A until the table holds v->conns:
 * tap-accel's to no one (the stack drops them; one connection, A's out),
 * nftables' to B through the bridge (one connection). B's queue overflows
 * meanwhile, after the connection is made.
 */
static int fill(struct side_env *v, struct fw_side *s, struct ta_error *e)
{
	struct flow fl = v->kind == SIDE_TA ? (struct flow){mac_other, mac_a, FILL_NET, OTHER_IP, 0,
							    G2G_DPORT, 0}
					    : v->fl->nft_fill;
	uint32_t net = fl.sip;
	unsigned long have = tracked(v), i = 0;
	uint8_t frame[FRAME_LEN];
	double t0 = now_s();

	while (have < v->conns) {
		for (unsigned long k = v->conns - have; k; k--, i++) {
			flow_nth(&fl, net, i);
			frame_build(frame, &fl);
			if (write(v->fd[0], frame, FRAME_LEN) != FRAME_LEN)
				return fail(e, errno, "writing the fill into %s: %s", v->name[0],
					    strerror(errno));
			if (!(i % 4096)) {
				if (stop_requested())
					return fail(e, EINTR, "interrupted");
				if (now_s() - t0 > FILL_LIMIT_S) {
					s->fill_short = true;
					goto out;
				}
				drain(v);
			}
		}
		/* Some did not make one (an LRU's per-CPU lists, a full queue):
		 * more until the table says so, within a tenth more frames. */
		if (tracked(v) <= have || i > v->conns * 11 / 10 + 10000)
			break;
		have = tracked(v);
	}
out:
	s->fill_s = now_s() - t0;
	drain(v);
	s->tracked = tracked(v);
	return 0;
}

/* The Proxmox VE row: a SYN to PostgreSQL from outside the VM's ipsets
 * (its own rule drops it, its policy rejects) must not reach it, or the
 * side would be measuring a firewall that lets everything in. */
static int pve_refused(struct side_env *v, struct ta_error *e)
{
	struct flow outsider = {mac_b, mac_a, PVE_OUTSIDER, PVE_VM_IP, G2G_SPORT, PVE_PGSQL,
				IPPROTO_TCP};
	uint8_t frame[FRAME_LEN];
	unsigned long got;

	drain(v);
	frame_build(frame, &outsider);
	if (write(v->fd[0], frame, FRAME_LEN) != FRAME_LEN)
		return fail(e, errno, "writing into %s: %s", v->name[0], strerror(errno));
	got = tap_read(v, v->fd[1], 1, FRAME_LEN);
	drain(v);
	return got ? fail(e, EIO, "%s: a SYN to port %d from outside its ipsets reached the VM",
			  v->kind == SIDE_TA ? "tap-accel" : "nftables", PVE_PGSQL)
		   : 0;
}

/* One frame each way of the guest-to-guest flow and of the flow to the
 * stack: both established in the firewall's table. */
static int establish(struct side_env *v, struct ta_error *e)
{
	const struct flow *there = &v->fl->g2g;
	struct flow back = {mac_a, mac_b, there->dip, there->sip, there->dport, there->sport, 0};
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(STACK_SPORT),
				 .sin_addr.s_addr = htonl(A_IP)};
	uint8_t frame[FRAME_LEN];

	if (v->pve && pve_refused(v, e))
		return -e->err;
	drain(v);
	frame_build(frame, there);
	if (write(v->fd[0], frame, FRAME_LEN) != FRAME_LEN || tap_read(v, v->fd[1], 1, FRAME_LEN) != 1)
		return fail(e, EIO, "the guest-to-guest flow's first frame did not reach B");
	frame_build(frame, &back);
	if (write(v->fd[1], frame, FRAME_LEN) != FRAME_LEN || tap_read(v, v->fd[0], 1, FRAME_LEN) != 1)
		return fail(e, EIO, "the guest-to-guest flow's reply did not reach A");
	if (cell_pass(v, CELL_G2S, 1) != 1)
		return fail(e, EIO, "the guest's frame to the stack did not reach the socket");
	if (sendto(v->sock, frame, STACK_PAYLOAD, 0, (struct sockaddr *)&to, sizeof(to)) < 0 ||
	    tap_read(v, v->fd[0], 1, STACK_LEN) != 1)
		return fail(e, EIO, "the stack's reply did not reach guest A");
	return 0;
}

/* ---- tap-accel ---------------------------------------------------------- */

/* The table's entries: all the row's connections, those the new-connection
 * cell makes (two each: the zones of A and B), and the headroom. */
static unsigned long ta_entries(const struct side_env *v)
{
	unsigned long need = v->conns + 2 * v->o->frames * (v->o->reps + 1) + TA_CT_HEADROOM + 64;
	unsigned long n = TA_CT_MIN_ENTRIES;

	while (n < need && n < TA_CT_MAX_ENTRIES)
		n *= 2;
	return n;
}

/*
 * A text the commands read as /proc/self/fd/N (a guest may have no
 * /dev/fd): a memfd that they inherit, so
 * that no file is left behind however the run ends. Its fd, or -1 with e.
 */
static int text_open(FILE **f, struct ta_error *e)
{
	int fd = memfd_create("tap-accel-bench-fw", 0), dup_fd = fd >= 0 ? dup(fd) : -1;

	if (dup_fd < 0 || !(*f = fdopen(dup_fd, "w"))) {
		fail(e, errno, "memfd: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		if (dup_fd >= 0)
			close(dup_fd);
		return -1;
	}
	return fd;
}

/* The Proxmox VE row's policy's forwarding entries: A's and B's MACs. */
static const char *pve_fdb(char buf[64])
{
	char ma[18], mb[18];

	snprintf(buf, 64, "fdb %s dev fwa\nfdb %s dev fwb\n", mac_text(mac_a, ma),
		 mac_text(mac_b, mb));
	return buf;
}

/* examples/security-group.policy, with the row's rules before the flow's. */
static int ta_policy(struct side_env *v, struct ta_error *e)
{
	char ma[18], mb[18];
	FILE *f;

	v->policy_fd = text_open(&f, e);
	if (v->policy_fd < 0)
		return -e->err;
	if (v->pve) {
		char fdb[64];

		if (fw_pve_policy(f, v->pve, pve_fdb(fdb), e)) {
			fclose(f);
			return -e->err;
		}
		return fclose(f) ? fail(e, errno, "the policy's text: %s", strerror(errno)) : 0;
	}
	fprintf(f, "# tap-accel-bench --firewall: a security group, %u in rules before the "
		   "flow's\nfdb %s dev fwa\nfdb %s dev fwb\nrule forward out\n",
		v->rules, mac_text(mac_a, ma), mac_text(mac_b, mb));
	for (unsigned int i = 1; i < v->rules; i++)
		fprintf(f, "rule drop in proto udp dport %u\n", FILLER_PORT + i - 1);
	fprintf(f, "rule pass in proto udp dport %d\n"
		   "rule pass in proto tcp dport 22\n"
		   "rule pass in proto icmp icmp-type 8\n"
		   "rule pass in proto icmpv6 icmp-type 128\n"
		   "rule reject in src 10.9.0.0/16\n"
		   "default in drop\n"
		   "default out forward\n",
		G2G_DPORT);
	return fclose(f) ? fail(e, errno, "the policy's text: %s", strerror(errno)) : 0;
}

/* UDP connections last CT_TIMEOUT_S (the fill's must outlive the row). */
static int ta_timeouts(struct ta_error *e)
{
	int fd = bpf_obj_get(TA_PIN_ROOT "/ta_ct_config");
	struct ta_ct_config cfg = {0};
	uint32_t zero = 0;
	int ret = 0;

	if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &cfg))
		ret = fail(e, errno, "ta_ct_config: %s", strerror(errno));
	cfg.timeout[TA_CT_UDP] = cfg.timeout[TA_CT_UDP_REPLIED] = CT_TIMEOUT_S;
	if (!ret && bpf_map_update_elem(fd, &zero, &cfg, BPF_EXIST))
		ret = fail(e, errno, "ta_ct_config: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	return ret;
}

/* The table's kernel memory (its memlock: the entries, preallocated, and
 * the buckets) per entry. */
static int ta_memory(struct fw_side *s, struct ta_error *e)
{
	int fd = bpf_obj_get(TA_PIN_ROOT "/ta_ct");
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);
	char path[64], line[128];
	long long memlock = -1;
	FILE *f;

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return fail(e, errno, "ta_ct: %s", strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %lld", &memlock) == 1)
			break;
	if (f)
		fclose(f);
	close(fd);
	if (memlock <= 0 || !info.max_entries)
		return fail(e, EIO, "ta_ct: no memlock in its fdinfo");
	s->bytes_per_conn = (double)memlock / info.max_entries;
	s->table_size = info.max_entries;
	return 0;
}

/* The policy loaded and both taps bound, in v's namespace (the current). */
static int ta_enable(struct side_env *v, struct ta_error *e)
{
	if (ta_policy(v, e) ||
	    run(e, "TAP_ACCEL_CT_ENTRIES=%lu '%s' policy load fw /proc/self/fd/%d", ta_entries(v),
		v->exe, v->policy_fd) ||
	    run(e, "'%s' attach fwa fwb --policy fw", v->exe) || ta_timeouts(e))
		return -e->err;
	return 0;
}

/* ---- the floor ----------------------------------------------------------- */

/* A floor's taps; its port map's entry 0: tap B. */
static int floor_ports(struct side_env *v, struct bpf_map *ports, struct ta_error *e)
{
	uint32_t zero = 0, b = if_nametoindex(v->name[1]);

	v->bare_ifindex = if_nametoindex(v->name[0]);
	if (!b || !v->bare_ifindex)
		return fail(e, errno, "%s, %s: %s", v->name[0], v->name[1], strerror(errno));
	if (bpf_map_update_elem(bpf_map__fd(ports), &zero, &b, BPF_ANY))
		return fail(e, errno, "%s: %s", bpf_map__name(ports), strerror(errno));
	return 0;
}

/* xdp_basic's programs, for tap A: a bare redirect to tap B, a bare pass. */
static int bare_enable(struct side_env *v, struct ta_error *e)
{
	v->bare = xdp_basic__open_and_load();
	if (!v->bare)
		return fail(e, errno, "loading xdp_basic (the floor's programs): %s",
			    strerror(errno));
	v->floor_prog[CELL_G2S] = v->bare->progs.xdp_pass;
	v->floor_prog[CELL_G2G] = v->floor_prog[CELL_NEW] = v->bare->progs.xdp_redirect;
	return floor_ports(v, v->bare->maps.basic_ports, e);
}

/* The table floor's table holds what tap-accel's does after the fill: as
 * many connections of the zone its frames are judged in first. */
static int table_fill(struct side_env *v, struct ta_error *e)
{
	int fd = bpf_map__fd(v->table->maps.table_ct);
	/* the table's clock, as tap-accel's entries have it */
	struct ta_ct_entry entry = {.last_ns = ta_monotonic_coarse_ns(), .state = TA_CT_UDP};
	/* zone 1: xdp_table's first (TABLE_ZONE_A) */
	struct ta_ct_key k = {.zone = 1, .proto = IPPROTO_UDP, .port_b = htons(G2G_DPORT)};

	k.addr_a[10] = k.addr_a[11] = k.addr_b[10] = k.addr_b[11] = 0xff;
	*(uint32_t *)&k.addr_b[12] = htonl(OTHER_IP);
	for (unsigned long i = 0; i < v->conns; i++) {
		*(uint32_t *)&k.addr_a[12] = htonl(FILL_NET + (uint32_t)(i / PORTS_PER_IP));
		k.port_a = htons(1024 + i % PORTS_PER_IP);
		if (bpf_map_update_elem(fd, &k, &entry, BPF_ANY))
			return fail(e, errno, "filling xdp_table's table: %s", strerror(errno));
		if (!(i % 65536) && stop_requested())
			return fail(e, EINTR, "interrupted");
	}
	return 0;
}

/* xdp_table's programs, their table as big as ta_ct and as full. */
static int table_enable(struct side_env *v, struct ta_error *e)
{
	int fd = bpf_obj_get(TA_PIN_ROOT "/ta_ct");
	struct bpf_map_info info = {0};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return fail(e, errno, "ta_ct (the table floor's size): %s", strerror(errno));
	close(fd);
	v->table = xdp_table__open();
	if (!v->table || bpf_map__set_max_entries(v->table->maps.table_ct, info.max_entries) ||
	    xdp_table__load(v->table))
		return fail(e, errno, "loading xdp_table (the table floor's programs): %s",
			    strerror(errno));
	v->floor_prog[CELL_G2S] = v->table->progs.table_pass;
	v->floor_prog[CELL_G2G] = v->floor_prog[CELL_NEW] = v->table->progs.table_redirect;
	return floor_ports(v, v->table->maps.table_ports, e) ?: table_fill(v, e);
}

/* A floor's program of cell c on tap A, in place of the one before. */
static int bare_attach(struct side_env *v, enum fw_cell c, struct ta_error *e)
{
	struct bpf_program *p = v->floor_prog[c];
	int err;

	/* the attach's netlink socket is the current namespace's */
	if (setns(v->netns, CLONE_NEWNET))
		return fail(e, errno, "entering the floor's namespace: %s", strerror(errno));
	err = bpf_xdp_attach(v->bare_ifindex, bpf_program__fd(p), XDP_FLAGS_DRV_MODE, NULL);
	if (err)
		return fail(e, -err, "%s on %s: %s", bpf_program__name(p), v->name[0],
			    strerror(-err));
	return 0;
}

/* ---- nftables ----------------------------------------------------------- */

/* The guest's in rules: a chain of N (N-1 others, then the flow's), or the
 * N-1 others in one set. */
static void nft_rules(FILE *f, const struct side_env *v, int var)
{
	const char *t = v->o->nft_bridge ? "bridge tap_accel_bench" : "inet tap_accel_bench";

	if (var == VAR_CHAIN) {
		for (unsigned int i = 1; i < v->rules; i++)
			fprintf(f, "add rule %s sg_in udp dport %u drop\n", t, FILLER_PORT + i - 1);
	} else if (v->rules > 1) {
		fprintf(f, "add rule %s sg_in udp dport { ", t);
		for (unsigned int i = 1; i < v->rules; i++)
			fprintf(f, "%s%u", i > 1 ? ", " : "", FILLER_PORT + i - 1);
		fprintf(f, " } drop\n");
	}
	/* The bridge family rejects only on its prerouting and input hooks:
	 * there the reject rule drops (no frame of the bench meets it). */
	fprintf(f, "add rule %s sg_in udp dport %d accept\n"
		   "add rule %s sg_in tcp dport 22 accept\n"
		   "add rule %s sg_in icmp type echo-request accept\n"
		   "add rule %s sg_in icmpv6 type echo-request accept\n"
		   "add rule %s sg_in ip saddr 10.9.0.0/16 %s\n"
		   "add rule %s sg_in drop\n",
		t, G2G_DPORT, t, t, t, t, v->o->nft_bridge ? "drop" : "reject", t);
}

/* The table with the guest's in rules as `var`, in one transaction. */
static int nft_load(struct side_env *v, int var, struct ta_error *e)
{
	static const char hooks[] =
		"table %s tap_accel_bench {\n"
		"  chain sg_in { }\n"
		"  chain forward {\n"
		"    type filter hook forward priority filter; policy accept;\n"
		"    ct state established,related accept\n"
		"    ct state invalid drop\n"
		"    ip daddr 10.0.0.0/24 jump sg_in\n"
		"  }\n"
		"  chain input {\n"
		"    type filter hook input priority filter; policy accept;\n"
		"    ct state established,related accept\n"
		"    ct state invalid drop\n"
		"  }\n"
		"  chain output {\n"
		"    type filter hook output priority filter; policy accept;\n"
		"    ct state established,related accept\n"
		"    ct state invalid drop\n"
		"    ip daddr 10.0.0.0/24 jump sg_in\n"
		"  }\n"
		"}\n";
	FILE *f;
	int fd = text_open(&f, e), ret;

	if (fd < 0)
		return -e->err;
	if (v->pve) {
		ret = fw_pve_nft(f, v->pve, PVE_GUESTS, e);
		if (ret) {
			fclose(f);
			close(fd);
			return ret;
		}
	} else {
		fprintf(f, hooks, v->o->nft_bridge ? "bridge" : "inet");
		nft_rules(f, v, var);
	}
	if (fclose(f))
		ret = fail(e, errno, "the ruleset's text: %s", strerror(errno));
	else
		ret = run(e, "nft -f /proc/self/fd/%d", fd);
	close(fd);
	/* "Protocol error": ct in the bridge family, without its conntrack. */
	if (ret && v->o->nft_bridge && !v->pve && strstr(e->text, "Protocol error"))
		snprintf(e->text + strlen(e->text), sizeof(e->text) - strlen(e->text),
			 " (no bridge conntrack in this kernel: modprobe nf_conntrack_bridge, "
			 "Linux 5.3+; or --nft-family inet)");
	return ret;
}

/* One nf_conntrack object as its slab holds it (page share included). */
static int nft_memory(struct fw_side *s, struct ta_error *e)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	unsigned long active, num, size, per_slab, pages;
	char line[512];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, "nf_conntrack %lu %lu %lu %lu %lu", &active, &num, &size,
			       &per_slab, &pages) == 5;
	if (f)
		fclose(f);
	if (!found || !per_slab)
		return fail(e, ENOENT, "/proc/slabinfo: no nf_conntrack cache");
	s->bytes_per_conn = (double)pages * sysconf(_SC_PAGESIZE) / per_slab;
	s->table_size = read_long("/proc/sys/net/netfilter/nf_conntrack_buckets");
	return 0;
}

/* br_netfilter and the table with the rules as `var`, in v's namespace
 * (the current). */
static int nft_enable(struct side_env *v, int var, struct ta_error *e)
{
	char timeout[16];

	snprintf(timeout, sizeof(timeout), "%d", CT_TIMEOUT_S);
	/* The Proxmox VE row's ruleset is an inet table on br_netfilter. */
	if ((!v->o->nft_bridge || v->pve) &&
	    write_file("/proc/sys/net/bridge/bridge-nf-call-iptables", "1"))
		return fail(e, errno, "bridge-nf-call-iptables: %s", strerror(errno));
	if (nft_load(v, var, e))
		return -e->err;
	write_file("/proc/sys/net/netfilter/nf_conntrack_udp_timeout", timeout);
	write_file("/proc/sys/net/netfilter/nf_conntrack_udp_timeout_stream", timeout);
	/* the Proxmox VE row's fill: SYNs that are not answered */
	write_file("/proc/sys/net/netfilter/nf_conntrack_tcp_timeout_syn_sent", timeout);
	return 0;
}

enum {
	ENV_TA,
	ENV_TA_NONE,
	ENV_TA_BARE,
	ENV_TA_TABLE,
	ENV_NFT_CHAIN,
	ENV_NFT_SET,
	ENV_NFT_NONE,
	NR_ENVS
};

/* Each floor's namespace */
static const int floor_env[NR_FLOORS] = {[FLOOR_BARE] = ENV_TA_BARE,
					 [FLOOR_TABLE] = ENV_TA_TABLE};

/* ---- each program's own time ------------------------------------------- */

static bool prog_stats(int fd, double *runs, double *ns)
{
	struct bpf_prog_info info = {0};
	__u32 len = sizeof(info);

	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return false;
	*runs = info.run_cnt;
	*ns = info.run_time_ns;
	return true;
}

/* n frames of cell c by env v; each program's ns per run over them. */
static void prog_pass(struct side_env *v, enum fw_cell c, unsigned long n, const int fd[NR_PT],
		      double out[NR_PT])
{
	double runs[NR_PT][2], ns[NR_PT][2];
	bool ok[NR_PT];

	for (int k = 0; k < NR_PT; k++)
		ok[k] = prog_stats(fd[k], &runs[k][0], &ns[k][0]);
	cell_pass(v, c, n);
	for (int k = 0; k < NR_PT; k++)
		if (ok[k] && prog_stats(fd[k], &runs[k][1], &ns[k][1]) && runs[k][1] > runs[k][0])
			out[k] = (ns[k][1] - ns[k][0]) / (runs[k][1] - runs[k][0]);
}

/*
 * Where tap-accel's time goes: its programs' own time per run in each
 * cell, and the floors', from the kernel's statistics (BPF_ENABLE_STATS).
 * A pass of its own after the cells: the statistics add clock reads to
 * every run, the floors' as tap-accel's.
 */
static void prog_times(struct side_env env[NR_ENVS], struct fw_side *ta)
{
	int stats = bpf_enable_stats(BPF_STATS_RUN_TIME);
	int fd[NR_PT] = {bpf_obj_get(TA_PROG_PIN), bpf_obj_get(TA_IN_TC_PIN), -1, -1};
	unsigned long n = env[ENV_TA].o->frames;
	struct ta_error e = {0};

	for (int c = 0; c < NR_CELLS; c++)
		for (int k = 0; k < NR_PT; k++)
			ta->prog_ns[c][k] = NAN;
	for (int c = 0; stats >= 0 && c < NR_CELLS; c++) {
		prog_pass(&env[ENV_TA], c, n, fd, ta->prog_ns[c]);
		for (int k = 0; c != CELL_S2G && k < NR_FLOORS; k++) {
			struct side_env *v = &env[floor_env[k]];
			int only[NR_PT] = {-1, -1, -1, -1};

			if (bare_attach(v, c, &e))
				continue;
			only[PT_FLOOR + k] = bpf_program__fd(v->floor_prog[c]);
			prog_pass(v, c, n, only, ta->prog_ns[c]);
		}
	}
	for (int k = 0; k < NR_PT; k++)
		if (fd[k] >= 0)
			close(fd[k]);
	if (stats >= 0)
		close(stats);
}

/* Every namespace of a row, each firewall enabled in its own. */
static int row_setup(struct side_env env[NR_ENVS], struct ta_error *e)
{
	for (int k = 0; k < NR_ENVS; k++) {
		/* Proxmox VE's ipsets are sets already: no set variant. */
		if (k == ENV_NFT_SET && env[k].pve)
			continue;
		if (env_setup(&env[k], e))
			return -e->err;
		if ((k == ENV_TA && ta_enable(&env[k], e)) ||
		    (k == ENV_TA_BARE && bare_enable(&env[k], e)) ||
		    (k == ENV_TA_TABLE && table_enable(&env[k], e)) ||
		    (k == ENV_NFT_CHAIN && nft_enable(&env[k], VAR_CHAIN, e)) ||
		    (k == ENV_NFT_SET && nft_enable(&env[k], VAR_SET, e)))
			return -e->err;
	}
	return 0;
}

static int row_measure(struct side_env env[NR_ENVS], struct fw_row *row, struct ta_error *e)
{
	struct fw_side *ta = &row->side[SIDE_TA], *nft = &row->side[SIDE_NFT], set = {0};

	if (row_setup(env, e) || establish(&env[ENV_TA], e) || fill(&env[ENV_TA], ta, e) ||
	    establish(&env[ENV_NFT_CHAIN], e) || fill(&env[ENV_NFT_CHAIN], nft, e) ||
	    (!row->pve &&
	     (establish(&env[ENV_NFT_SET], e) || fill(&env[ENV_NFT_SET], &set, e))))
		return -e->err;
	nft->fill_short |= set.fill_short;
	for (int c = 0; c < NR_CELLS; c++) {
		struct turn turns[NR_TURNS];
		bool reference = c == CELL_G2S || c == CELL_S2G;
		int nr = 0;

		turns[nr++] = (struct turn){&env[ENV_TA], &ta->m[VAR_CHAIN][c]};
		turns[nr++] = (struct turn){&env[ENV_NFT_CHAIN], &nft->m[VAR_CHAIN][c]};
		if (!row->pve)
			turns[nr++] = (struct turn){&env[ENV_NFT_SET], &nft->m[VAR_SET][c]};
		else
			nft->m[VAR_SET][c] = (struct fw_meas){NAN, 1, NAN};
		/* the same paths without the firewalls: the stack's without a
		 * program; guest to guest, the bridge alone */
		if (reference)
			turns[nr++] = (struct turn){&env[ENV_TA_NONE], &ta->none[VAR_CHAIN][c]};
		turns[nr++] = (struct turn){&env[ENV_NFT_NONE], &nft->none[VAR_CHAIN][c]};
		for (int k = 0; k < NR_FLOORS && c != CELL_S2G; k++) {
			struct side_env *floor = &env[floor_env[k]];

			if (bare_attach(floor, c, e))
				return -e->err;
			turns[nr++] = (struct turn){floor, &ta->floor[k][c]};
		}
		if (cell_measure(turns, nr, c, e))
			return -e->err;
		nft->none[VAR_SET][c] = nft->none[VAR_CHAIN][c];
	}
	ta->after_new = tracked(&env[ENV_TA]);
	nft->after_new = tracked(&env[ENV_NFT_CHAIN]);
	prog_times(env, ta);
	return ta_memory(ta, e) ?: nft_memory(nft, e);
}

/* The child of one row: its namespaces go when it exits. */
static int row_child(const struct fw *fw, struct fw_row *row)
{
	struct side_env env[NR_ENVS];
	struct ta_error e = {0};
	cpu_set_t cpus;
	int ret = 0;

	for (int k = 0; k < NR_ENVS; k++)
		env[k] = (struct side_env){
			.kind = k < ENV_NFT_CHAIN ? SIDE_TA : SIDE_NFT, .netns = -1,
			.fd = {-1, -1}, .sock = -1, .policy_fd = -1, .o = fw->o, .exe = fw->exe,
			.cpu = fw->ncpus - 1, .icount = fw->icount, .rules = row->rules,
			.conns = row->conns, .fl = row->pve ? &pve_flows : &sg_flows,
			.pve = row->pve ? &fw->pve : NULL};
	/* Every frame is handled in the writer's context: one CPU for it. */
	CPU_ZERO(&cpus);
	CPU_SET(fw->ncpus - 1, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	if (unshare(CLONE_NEWNS) < 0)
		ret = fail(&e, errno, "unshare(CLONE_NEWNS): %s (needs root)", strerror(errno));
	else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		ret = fail(&e, errno, "a private mount namespace: %s", strerror(errno));
	else if (mount("bpf", TA_BPFFS, "bpf", 0, "mode=0700") < 0)
		ret = fail(&e, errno, "a private bpffs on %s: %s", TA_BPFFS, strerror(errno));
	if (!ret)
		ret = row_measure(env, row, &e);
	if (env[ENV_TA].policy_fd >= 0)
		close(env[ENV_TA].policy_fd);
	for (int side = 0; ret && side < NR_SIDES; side++)
		snprintf(row->side[side].error, sizeof(row->side[side].error), "%.250s", e.text);
	row->side[SIDE_TA].ran = row->side[SIDE_NFT].ran = !ret;
	return ret ? 1 : 0;
}

/* ---- the host's conntrack limit ----------------------------------------- */

static long saved_ct_max = -1;
static char saved_ct_text[24];

/* Also the second Ctrl-C's last word: async-signal-safe. */
static void ct_max_restore(void)
{
	if (saved_ct_max >= 0)
		write_file(CONNTRACK_MAX, saved_ct_text);
}

/* A namespace's nf_conntrack_max starts at the host's and cannot pass it. */
static int ct_max_raise(const struct fw_opts *o, struct ta_error *e)
{
	unsigned long most = 0, need;
	long now = read_long(CONNTRACK_MAX);
	char text[24];

	for (int i = 0; i < o->nr_rows; i++)
		if (o->conns[i] > most)
			most = o->conns[i];
	need = most + 2 * o->frames * (o->reps + 1) + 10000;
	if (now < 0)
		return fail(e, ENOENT, "%s: absent (nftables' conntrack is not in this kernel)",
			    CONNTRACK_MAX);
	if ((unsigned long)now >= need)
		return 0;
	snprintf(saved_ct_text, sizeof(saved_ct_text), "%ld", now);
	saved_ct_max = now;
	stop_set_last_word(ct_max_restore);
	snprintf(text, sizeof(text), "%lu", need);
	if (write_file(CONNTRACK_MAX, text))
		return fail(e, errno, "%s: cannot raise it to %lu: %s", CONNTRACK_MAX, need,
			    strerror(errno));
	fprintf(stderr, "tap-accel-bench --firewall: net.netfilter.nf_conntrack_max %ld -> %lu "
			"for the run (put back at its end)\n", now, need);
	return 0;
}

/* ---- the report --------------------------------------------------------- */


/* What a cell is read in: ns per frame, or (in a QEMU guest with the
 * instruction counter) instructions per frame. */
enum fw_unit { UNIT_NS, UNIT_INSNS };

static double value(const struct fw_meas *m, enum fw_unit u)
{
	return u == UNIT_INSNS ? m->insns : m->ns;
}

static double meas(const struct fw_row *r, int side, int var, int c, enum fw_unit u)
{
	const struct fw_side *s = &r->side[side];

	return s->ran ? value(&s->m[var][c], u) : NAN;
}

/* What the firewall adds to a frame of cell c (G2S, S2G). */
static double added(const struct fw_row *r, int side, int var, int c, enum fw_unit u)
{
	const struct fw_side *s = &r->side[side];

	return s->ran ? value(&s->m[var][c], u) - value(&s->none[var][c], u) : NAN;
}

static double conn_rate(double ns)
{
	return isnan(ns) || ns <= 0 ? NAN : 1e9 / ns;
}

/* tap-accel / nftables of a row and cell: time per frame (G2G), what the
 * firewall adds (G2S, S2G), connections per second (NEW). */
static double ratio(const struct fw_row *r, int c, int var, enum fw_unit u)
{
	switch (c) {
	case CELL_G2G:
		return meas(r, SIDE_TA, VAR_CHAIN, c, u) / meas(r, SIDE_NFT, var, c, u);
	case CELL_NEW:
		return conn_rate(meas(r, SIDE_TA, VAR_CHAIN, c, u)) /
		       conn_rate(meas(r, SIDE_NFT, var, c, u));
	default: /* nothing measurably added by nftables: no ratio */
		return added(r, SIDE_NFT, var, c, u) > 0
			       ? added(r, SIDE_TA, VAR_CHAIN, c, u) / added(r, SIDE_NFT, var, c, u)
			       : NAN;
	}
}

/* Of the ratios of cell c to nftables' chain and set, the one against its
 * better way (the higher for costs, the lower for connections per second). */
static double against_best_nft(double chain, double set, int c)
{
	if (isnan(chain) || isnan(set))
		return isnan(chain) ? set : chain;
	return c == CELL_NEW ? (chain < set ? chain : set) : (chain > set ? chain : set);
}

/* The ratio a goal is judged on. */
static double ratio_best_nft(const struct fw_row *r, int c, enum fw_unit u)
{
	return against_best_nft(ratio(r, c, VAR_CHAIN, u), ratio(r, c, VAR_SET, u), c);
}

/*
 * A floor's ratio to nftables, as ratio() has tap-accel's: what a goal
 * would be at if tap-accel's program cost no more than a bare one (a
 * redirect guest to guest, a pass to the stack), or than one that only
 * keeps ta_ct's table. No XDP program (keeping that table) can go below
 * it on this path.
 */
static double floor_ratio(const struct fw_row *r, enum fw_floor k, int c, int var,
			  enum fw_unit u)
{
	const struct fw_side *ta = &r->side[SIDE_TA];
	double bare;

	if (!ta->ran || c == CELL_S2G)
		return NAN;
	bare = value(&ta->floor[k][c], u);
	switch (c) {
	case CELL_G2G:
		return bare / meas(r, SIDE_NFT, var, c, u);
	case CELL_NEW:
		return conn_rate(bare) / conn_rate(meas(r, SIDE_NFT, var, c, u));
	default:
		return added(r, SIDE_NFT, var, c, u) > 0
			       ? (bare - value(&ta->none[VAR_CHAIN][c], u)) /
					 added(r, SIDE_NFT, var, c, u)
			       : NAN;
	}
}

/* As ratio_best_nft, for a floor. */
static double floor_ratio_best(const struct fw_row *r, enum fw_floor k, int c, enum fw_unit u)
{
	return against_best_nft(floor_ratio(r, k, c, VAR_CHAIN, u),
				floor_ratio(r, k, c, VAR_SET, u), c);
}

enum { GOAL_G2G, GOAL_STACK, GOAL_NEW, GOAL_FLAT, GOAL_MEM, NR_GOALS };

static const char *const goal_text[NR_GOALS] = {
	[GOAL_G2G] = "established g2g <= 0.5x bridge+nftables",
	[GOAL_STACK] = "added to a frame to the stack <= 0.3x nftables'",
	[GOAL_NEW] = "new connections >= 2x nftables",
	[GOAL_FLAT] = "cost flat <= 5 % over rules and connections",
	[GOAL_MEM] = "<= 128 B per tracked connection",
};

/* Established g2g: at most 0.5x on stock tun's taps, 0.3x on tapx's. */
static double g2g_goal(const struct fw *fw)
{
	return fw->o->tapx ? 0.3 : 0.5;
}

static void goal_texts(const struct fw *fw, const char *text[NR_GOALS])
{
	memcpy(text, goal_text, sizeof(goal_text));
	if (fw->o->tapx)
		text[GOAL_G2G] = "established g2g <= 0.3x bridge+nftables (tapx)";
}

static bool row_ran(const struct fw_row *r)
{
	return r->side[SIDE_TA].ran && r->side[SIDE_NFT].ran;
}

/* What spread() spreads: tap-accel's cost; its cost over the same row's
 * floor, which has no rules and no table, so that what the machine did
 * while a row ran (rows run minutes apart) is taken out and what rules
 * and connections cost is not; the table floor's cost over the floor,
 * what the table alone does from row to row. */
enum spread_of { SPREAD_RAW, SPREAD_OVER_FLOOR, SPREAD_TABLE_FLOOR };

/* Spread of a cost of cell c over the rows: worst / best - 1. */
static double spread(const struct fw *fw, int c, enum fw_unit u, enum spread_of of)
{
	double lo = NAN, hi = NAN;

	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_meas *floor = fw->rows[i].side[SIDE_TA].floor[FLOOR_BARE];
		const struct fw_meas *table = fw->rows[i].side[SIDE_TA].floor[FLOOR_TABLE];
		double ns = of == SPREAD_TABLE_FLOOR ? value(&table[c], u)
						     : meas(&fw->rows[i], SIDE_TA, VAR_CHAIN, c, u);

		if (of != SPREAD_RAW)
			ns /= value(&floor[c], u);
		if (isnan(ns) || fw->rows[i].pve)
			continue;
		lo = isnan(lo) || ns < lo ? ns : lo;
		hi = isnan(hi) || ns > hi ? ns : hi;
	}
	return hi / lo - 1;
}

/* A ratio goal's figure: the worst row's, and both floors'. */
static void goal_value(char *buf, size_t size, double worst,
		       const double floor_worst[NR_FLOORS][NR_CELLS], int c)
{
	snprintf(buf, size, "%.2fx (worst row), floors %.2fx, %.2fx", worst,
		 floor_worst[FLOOR_BARE][c], floor_worst[FLOOR_TABLE][c]);
}

/* Keeps in *worst the worse of it and ratio x of cell c: the lower rate
 * of new connections, the higher cost of the others. */
static void worst_of(double *worst, double x, int c)
{
	if (isnan(*worst) || (c == CELL_NEW ? x < *worst : x > *worst))
		*worst = x;
}

/* Judged on the worst row that ran, against nftables' better way; in
 * instructions where they were counted (an emulated CPU's times are not
 * a real one's). */
static void goals_judge(const struct fw *fw, struct bench_goal g[NR_GOALS])
{
	double worst[NR_CELLS], floor_worst[NR_FLOORS][NR_CELLS], mem = NAN;
	double flat[2], raw[2], table[2];
	enum fw_unit u = fw->icount ? UNIT_INSNS : UNIT_NS;
	int rows = 0;

	memset(g, 0, NR_GOALS * sizeof(*g));
	for (int c = 0; c < NR_CELLS; c++)
		worst[c] = floor_worst[FLOOR_BARE][c] = floor_worst[FLOOR_TABLE][c] = NAN;
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];

		/* the goals are the security group's; the Proxmox VE row has none */
		if (!row_ran(r) || r->pve)
			continue;
		rows++;
		for (int c = 0; c < NR_CELLS; c++) {
			worst_of(&worst[c], ratio_best_nft(r, c, u), c);
			for (int k = 0; k < NR_FLOORS; k++)
				worst_of(&floor_worst[k][c], floor_ratio_best(r, k, c, u), c);
		}
		mem = r->side[SIDE_TA].bytes_per_conn;
	}
	if (!rows)
		return;
	g[GOAL_G2G].measured = true;
	g[GOAL_G2G].met = worst[CELL_G2G] <= g2g_goal(fw);
	goal_value(g[GOAL_G2G].value, sizeof(g->value), worst[CELL_G2G], floor_worst, CELL_G2G);
	g[GOAL_STACK].measured = true;
	g[GOAL_STACK].met = worst[CELL_G2S] <= 0.3;
	goal_value(g[GOAL_STACK].value, sizeof(g->value), worst[CELL_G2S], floor_worst, CELL_G2S);
	g[GOAL_NEW].measured = true;
	g[GOAL_NEW].met = worst[CELL_NEW] >= 2;
	goal_value(g[GOAL_NEW].value, sizeof(g->value), worst[CELL_NEW], floor_worst, CELL_NEW);
	for (int k = 0; k < 2; k++) {
		int c = k ? CELL_NEW : CELL_G2G;

		flat[k] = spread(fw, c, u, SPREAD_OVER_FLOOR);
		raw[k] = spread(fw, c, u, SPREAD_RAW);
		table[k] = spread(fw, c, u, SPREAD_TABLE_FLOOR);
	}
	g[GOAL_FLAT].measured = rows > 1;
	g[GOAL_FLAT].met = flat[0] <= 0.05 && flat[1] <= 0.05;
	snprintf(g[GOAL_FLAT].value, sizeof(g->value),
		 "g2g +%.0f %%, new +%.0f %% (raw +%.0f, +%.0f; table +%.0f, +%.0f)",
		 flat[0] * 100, flat[1] * 100, raw[0] * 100, raw[1] * 100, table[0] * 100,
		 table[1] * 100);
	g[GOAL_MEM].measured = !isnan(mem);
	g[GOAL_MEM].met = mem <= 128;
	snprintf(g[GOAL_MEM].value, sizeof(g->value), "%.0f B", mem);
}

static void fmt_ns(char *buf, size_t len, double ns)
{
	if (isnan(ns))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.0f", ns);
}

static void fmt_ratio(char *buf, size_t len, double x)
{
	if (isnan(x) || isinf(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f", x);
}

/* A row's first column: its rule count, or vmVMID for the Proxmox VE row. */
static const char *row_label(const struct fw *fw, const struct fw_row *r, char buf[16])
{
	if (r->pve)
		snprintf(buf, 16, "vm%u", fw->pve.vmid);
	else
		snprintf(buf, 16, "%u", r->rules);
	return buf;
}

static void fmt_count(char *buf, size_t len, unsigned long n)
{
	if (n >= 1000000 && n % 1000000 == 0)
		snprintf(buf, len, "%lum", n / 1000000);
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(buf, len, "%luk", n / 1000);
	else
		snprintf(buf, len, "%lu", n);
}

/* The lowest share of frames that came back of the row's measured cells. */
static double row_delivered(const struct fw_row *r)
{
	double worst = 1;

	for (int side = 0; side < NR_SIDES; side++)
		for (int var = 0; var < (side == SIDE_TA ? 1 : NR_VARS); var++)
			for (int c = 0; c < NR_CELLS; c++)
				if (r->side[side].ran && r->side[side].m[var][c].delivered < worst)
					worst = r->side[side].m[var][c].delivered;
	return worst;
}

/* The cells of every row in unit u, then the ratios. */
static void print_cells(const struct fw *fw, FILE *out, enum fw_unit u)
{
	int w = u == UNIT_INSNS ? 6 : 5, cw = 3 * (w + 1) - 1;
	const char *unit = u == UNIT_INSNS ? "insn" : "ns";
	char head[NR_CELLS][32];

	snprintf(head[CELL_G2G], sizeof(head[0]), "established g2g %s", unit);
	snprintf(head[CELL_G2S], sizeof(head[0]), "added g2stack %s", unit);
	snprintf(head[CELL_S2G], sizeof(head[0]), "added stack2g %s", unit);
	snprintf(head[CELL_NEW], sizeof(head[0]), u == UNIT_INSNS ? "insn per new conn"
								 : "new conns k/s");
	fprintf(out, "%5s %5s |", "", "");
	for (int c = 0; c < NR_CELLS; c++)
		fprintf(out, " %-*s |", cw, head[c]);
	fputc('\n', out);
	fprintf(out, "%5s %5s |", "rules", "conns");
	for (int c = 0; c < NR_CELLS; c++)
		fprintf(out, " %*s %*s %*s |", w, "t-a", w, "chain", w, "set");
	fputc('\n', out);
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		char conns[24], v[16], label[16];

		fmt_count(conns, sizeof(conns), r->conns);
		if (!row_ran(r)) {
			fprintf(out, "%5s %5s | not measured: %s\n", row_label(fw, r, label), conns,
				r->side[SIDE_TA].error[0]   ? r->side[SIDE_TA].error
				: r->side[SIDE_NFT].error[0] ? r->side[SIDE_NFT].error
							     : "not reached");
			continue;
		}
		fprintf(out, "%5s %5s |", row_label(fw, r, label), conns);
		for (int c = 0; c < NR_CELLS; c++) {
			for (int k = 0; k < 3; k++) {
				int side = k ? SIDE_NFT : SIDE_TA, var = k == 2 ? VAR_SET : VAR_CHAIN;
				double x = c == CELL_G2G || (c == CELL_NEW && u == UNIT_INSNS)
						   ? meas(r, side, var, c, u)
					   : c == CELL_NEW ? conn_rate(meas(r, side, var, c, u)) / 1e3
							   : added(r, side, var, c, u);

				fmt_ns(v, sizeof(v), x);
				fprintf(out, " %*s", w, v);
			}
			fprintf(out, " |");
		}
		fputc('\n', out);
	}
	fprintf(out, "\nratio tap-accel / nftables (chain, set)%s; new connections: %s\n",
		u == UNIT_INSNS ? ", instructions" : "",
		u == UNIT_INSNS ? "nftables' / tap-accel's" : "per second");
	fprintf(out, "%5s %5s | %-11s | %-11s | %-11s | %-11s\n", "rules", "conns",
		"g2g", "g2stack", "stack2g", "new conns");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		char conns[24], a[16], b[16], label[16];

		if (!row_ran(r))
			continue;
		fmt_count(conns, sizeof(conns), r->conns);
		fprintf(out, "%5s %5s |", row_label(fw, r, label), conns);
		for (int c = 0; c < NR_CELLS; c++) {
			fmt_ratio(a, sizeof(a), ratio(r, c, VAR_CHAIN, u));
			fmt_ratio(b, sizeof(b), ratio(r, c, VAR_SET, u));
			fprintf(out, " %5s %5s |", a, b);
		}
		fputc('\n', out);
	}
}

/* The floor of each row in unit u: what a bare XDP program takes where
 * tap-accel's runs, beside the bridge alone, and the ratios it allows. */
static void print_floor(const struct fw *fw, FILE *out, enum fw_unit u)
{
	int w = u == UNIT_INSNS ? 6 : 5;
	const char *unit = u == UNIT_INSNS ? "insn" : "ns";

	fprintf(out,
		"\nthe floor: xdp_basic's programs (a counter and the verdict) on tap-accel's taps:\n"
		"a bare redirect guest to guest and for new connections, a bare pass to the stack;\n"
		"the ratios tap-accel would have if its program cost no more (none can on this path);\n"
		"nftables' path without it: the bridge alone. added g2g: over those paths\n");
	fprintf(out, "%5s %5s | %-*s | %-*s | %-*s | %-*s\n", "", "", 2 * w + 13, "g2g", 2 * w + 1,
		"added g2g", w + 12, "added g2stack", w + 12, "new conns");
	fprintf(out, "%5s %5s | %*s %*s %5s %5s | %*s %*s | %*s %5s %5s | %*s %5s %5s\n", "rules",
		"conns", w, "floor", w, "bridge", "chain", "set", w, "t-a", w, "nft", w, "floor",
		"chain", "set", w, u == UNIT_INSNS ? "insn" : "k/s", "chain", "set");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		const struct fw_side *ta = &r->side[SIDE_TA], *nft = &r->side[SIDE_NFT];
		const struct fw_meas *bare = ta->floor[FLOOR_BARE];
		double bare_new = value(&bare[CELL_NEW], u);
		char conns[24], label[16], v[6][16], x[6][16];

		if (!row_ran(r))
			continue;
		fmt_count(conns, sizeof(conns), r->conns);
		fmt_ns(v[0], sizeof(v[0]), value(&bare[CELL_G2G], u));
		fmt_ns(v[1], sizeof(v[1]), value(&nft->none[VAR_CHAIN][CELL_G2G], u));
		fmt_ns(v[2], sizeof(v[2]),
		       meas(r, SIDE_TA, VAR_CHAIN, CELL_G2G, u) - value(&bare[CELL_G2G], u));
		fmt_ns(v[3], sizeof(v[3]),
		       meas(r, SIDE_NFT, VAR_CHAIN, CELL_G2G, u) -
			       value(&nft->none[VAR_CHAIN][CELL_G2G], u));
		fmt_ns(v[4], sizeof(v[4]),
		       value(&bare[CELL_G2S], u) - value(&ta->none[VAR_CHAIN][CELL_G2S], u));
		fmt_ns(v[5], sizeof(v[5]), u == UNIT_INSNS ? bare_new : conn_rate(bare_new) / 1e3);
		fmt_ratio(x[0], sizeof(x[0]), floor_ratio(r, FLOOR_BARE, CELL_G2G, VAR_CHAIN, u));
		fmt_ratio(x[1], sizeof(x[1]), floor_ratio(r, FLOOR_BARE, CELL_G2G, VAR_SET, u));
		fmt_ratio(x[2], sizeof(x[2]), floor_ratio(r, FLOOR_BARE, CELL_G2S, VAR_CHAIN, u));
		fmt_ratio(x[3], sizeof(x[3]), floor_ratio(r, FLOOR_BARE, CELL_G2S, VAR_SET, u));
		fmt_ratio(x[4], sizeof(x[4]), floor_ratio(r, FLOOR_BARE, CELL_NEW, VAR_CHAIN, u));
		fmt_ratio(x[5], sizeof(x[5]), floor_ratio(r, FLOOR_BARE, CELL_NEW, VAR_SET, u));
		fprintf(out, "%5s %5s | %*s %*s %5s %5s | %*s %*s | %*s %5s %5s | %*s %5s %5s\n",
			row_label(fw, r, label), conns, w, v[0], w, v[1], x[0], x[1], w, v[2], w,
			v[3], w, v[4], x[2], x[3], w, v[5], x[4], x[5]);
	}
	fprintf(out, "chain, set: the floor / nftables' chain, set%s; added g2g: nftables' chain; "
		     "%s per frame\n",
		u == UNIT_INSNS ? ", instructions; new connections: nftables' / the floor's"
				: "; new connections: per second",
		unit);
}

/* The table floor of each row in unit u: xdp_table's programs, which only
 * keep a table like ta_ct, as full; what they allow. */
static void print_table_floor(const struct fw *fw, FILE *out, enum fw_unit u)
{
	int w = u == UNIT_INSNS ? 6 : 5;

	fprintf(out,
		"\nthe table floor: the floor's programs with the connection table's work alone:\n"
		"the frame's key, a lookup in a table like ta_ct and as full, an entry made when\n"
		"there is none; one zone to the stack, both taps' zones guest to guest and for new\n"
		"connections, as tap-accel keeps them. No program that keeps this table is below it\n");
	fprintf(out, "%5s %5s | %-*s | %-*s | %-*s\n", "", "", w + 12, "g2g", w + 12,
		"added g2stack", w + 12, "new conns");
	fprintf(out, "%5s %5s | %*s %5s %5s | %*s %5s %5s | %*s %5s %5s\n", "rules", "conns", w,
		"table", "chain", "set", w, "table", "chain", "set", w,
		u == UNIT_INSNS ? "insn" : "k/s", "chain", "set");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		const struct fw_side *ta = &r->side[SIDE_TA];
		const struct fw_meas *table = ta->floor[FLOOR_TABLE];
		double table_new = value(&table[CELL_NEW], u);
		char conns[24], label[16], v[3][16], x[6][16];
		static const int cells[3] = {CELL_G2G, CELL_G2S, CELL_NEW};

		if (!row_ran(r))
			continue;
		fmt_count(conns, sizeof(conns), r->conns);
		fmt_ns(v[0], sizeof(v[0]), value(&table[CELL_G2G], u));
		fmt_ns(v[1], sizeof(v[1]),
		       value(&table[CELL_G2S], u) - value(&ta->none[VAR_CHAIN][CELL_G2S], u));
		fmt_ns(v[2], sizeof(v[2]), u == UNIT_INSNS ? table_new : conn_rate(table_new) / 1e3);
		for (int k = 0; k < 3; k++)
			for (int var = 0; var < NR_VARS; var++)
				fmt_ratio(x[2 * k + var], sizeof(x[0]),
					  floor_ratio(r, FLOOR_TABLE, cells[k], var, u));
		fprintf(out, "%5s %5s | %*s %5s %5s | %*s %5s %5s | %*s %5s %5s\n",
			row_label(fw, r, label), conns, w, v[0], x[0], x[1], w, v[1], x[2], x[3], w,
			v[2], x[4], x[5]);
	}
	fprintf(out, "chain, set: the table floor / nftables' chain, set%s; %s per frame\n",
		u == UNIT_INSNS ? ", instructions; new connections: nftables' / the table floor's"
				: "; new connections: per second",
		u == UNIT_INSNS ? "insn" : "ns");
}

/* Each program's own ns per frame of each cell, where they were taken. */
static void print_prog_times(const struct fw *fw, FILE *out)
{
	bool any = false;

	for (int i = 0; i < fw->nr_rows; i++)
		any |= row_ran(&fw->rows[i]) &&
		       !isnan(fw->rows[i].side[SIDE_TA].prog_ns[CELL_G2G][PT_XDP]);
	if (!any)
		return;
	fprintf(out, "\nwhere tap-accel's time goes: each program's own ns per frame (the kernel's\n"
		     "statistics, in a pass of their own: they add a clock read or two to every run)\n");
	fprintf(out, "%5s %5s | %-18s | %-18s | %-7s | %-18s\n", "", "", "g2g", "g2stack",
		"stack2g", "new conns");
	fprintf(out, "%5s %5s | %5s %6s %5s | %5s %6s %5s | %7s | %5s %6s %5s\n", "rules",
		"conns", "xdp", "floor", "table", "xdp", "floor", "table", "in tc", "xdp", "floor",
		"table");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		const double(*t)[NR_PT] = r->side[SIDE_TA].prog_ns;
		char conns[24], label[16], v[10][16];

		if (!row_ran(r))
			continue;
		fmt_count(conns, sizeof(conns), r->conns);
		fmt_ns(v[0], sizeof(v[0]), t[CELL_G2G][PT_XDP]);
		fmt_ns(v[1], sizeof(v[1]), t[CELL_G2G][PT_FLOOR]);
		fmt_ns(v[2], sizeof(v[2]), t[CELL_G2G][PT_TABLE]);
		fmt_ns(v[3], sizeof(v[3]), t[CELL_G2S][PT_XDP]);
		fmt_ns(v[4], sizeof(v[4]), t[CELL_G2S][PT_FLOOR]);
		fmt_ns(v[5], sizeof(v[5]), t[CELL_G2S][PT_TABLE]);
		fmt_ns(v[6], sizeof(v[6]), t[CELL_S2G][PT_TC]);
		fmt_ns(v[7], sizeof(v[7]), t[CELL_NEW][PT_XDP]);
		fmt_ns(v[8], sizeof(v[8]), t[CELL_NEW][PT_FLOOR]);
		fmt_ns(v[9], sizeof(v[9]), t[CELL_NEW][PT_TABLE]);
		fprintf(out, "%5s %5s | %5s %6s %5s | %5s %6s %5s | %7s | %5s %6s %5s\n",
			row_label(fw, r, label), conns, v[0], v[1], v[2], v[3], v[4], v[5], v[6],
			v[7], v[8], v[9]);
	}
}

static void print_table(const struct fw *fw, FILE *out)
{
	const struct fw_opts *o = fw->o;
	struct bench_goal g[NR_GOALS];
	const char *text[NR_GOALS];

	fprintf(out, "tap-accel-bench --firewall: %s, %d CPUs, %s UTC\n", fw->kernel, fw->ncpus,
		fw->started);
	fprintf(out,
		"one security group (examples/security-group.policy's, the flow's rule after N "
		"others) on %s\n"
		"tap-accel: XDP redirect, in rules before it; in program on the tap's egress (tcx,\n"
		"           clsact before Linux 6.6)\n"
		"nftables:  taps in a bridge, %s\n"
		"           on forward, input and output: ct state established,related accept,\n"
		"           invalid drop, the N rules as a chain or a set\n"
		"ns per 64 B frame, the fastest of %d x %lu frames; 'added': over the same path without "
		"a firewall\n"
		"ratio = tap-accel / nftables chain, set (for new connections: per second)\n\n",
		o->tapx ? "tapx" : "stock tun",
		o->nft_bridge ? "a bridge-family table with its own conntrack (nf_conntrack_bridge)"
			      : "br_netfilter, an inet table",
		o->reps, o->frames);
	if (o->pve)
		fprintf(out,
			"vm%u: Proxmox VE VM %u's firewall, %s with %s (groups, ipsets)\n"
			"      and %s; tap-accel: its translation (policy import pve) "
			"without the guard;\n"
			"      nftables: the same in Proxmox VE's shape (per-guest and group "
			"chains, ipsets\n"
			"      as sets, conntrack first; its 'chain' column; no 'set' variant); "
			"established:\n"
			"      UDP from the monitor alias to port 161; new: TCP SYNs to 5432 from "
			"the\n"
			"      offices' ipset\n\n",
			fw->pve.vmid, fw->pve.vmid, fw->pve.fw, fw->pve.cluster, fw->pve.conf);
	print_cells(fw, out, UNIT_NS);
	print_floor(fw, out, UNIT_NS);
	print_table_floor(fw, out, UNIT_NS);
	print_prog_times(fw, out);
	if (fw->icount) {
		fprintf(out, "\ninstructions per frame on the writer's vCPU %d, QEMU's count (the "
			     "fewest of the\nrepetitions): what an emulated CPU's ns stand for\n\n",
			fw->ncpus - 1);
		print_cells(fw, out, UNIT_INSNS);
		print_floor(fw, out, UNIT_INSNS);
		print_table_floor(fw, out, UNIT_INSNS);
	}
	fprintf(out, "\nthe tables of each row (tracked after the fill; after the new-connection "
		     "cells)\n");
	fprintf(out, "%5s %5s | %-40s | %-40s\n", "rules", "conns", "tap-accel ta_ct",
		"nftables nf_conntrack");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		char conns[24], col[NR_SIDES][96], label[16];

		if (!row_ran(r))
			continue;
		fmt_count(conns, sizeof(conns), r->conns);
		for (int side = 0; side < NR_SIDES; side++) {
			const struct fw_side *s = &r->side[side];

			snprintf(col[side], sizeof(col[side]), "%lu in %.1f s%s; %lu", s->tracked,
				 s->fill_s, s->fill_short ? " (STOPPED: too slow)" : "",
				 s->after_new);
		}
		fprintf(out, "%5s %5s | %-40s | %-40s\n", row_label(fw, r, label), conns, col[0],
			col[1]);
		if (row_delivered(r) < 1 - LOST_MAX)
			fprintf(out, "%11s   some cell delivered only %.1f %% of its frames\n", "",
				row_delivered(r) * 100);
	}
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];

		if (!row_ran(r))
			continue;
		fprintf(out,
			"\nmemory per tracked connection: tap-accel %.0f B (ta_ct's memlock / its "
			"%lu entries),\n  nftables %.0f B (an nf_conntrack slab object; its hash "
			"has %lu buckets besides)\n",
			r->side[SIDE_TA].bytes_per_conn, r->side[SIDE_TA].table_size,
			r->side[SIDE_NFT].bytes_per_conn, r->side[SIDE_NFT].table_size);
		break;
	}
	if (o->pve)
		fprintf(out, "goals are judged on the security group's rows, not on vm%u's.\n",
			fw->pve.vmid);
	fprintf(out,
		"a new connection guest to guest is one entry of nf_conntrack and two of ta_ct "
		"(the zones of\nboth taps); the fill makes one each (tap-accel's to the stack, "
		"nftables' to guest B).\n");
	goals_judge(fw, g);
	goal_texts(fw, text);
	bench_goals_print(out, fw->icount ? "goals (judged on the worst row, against nftables' "
					    "better way, in instructions)"
					  : "goals (judged on the worst row, against nftables' better way)",
			  text, g, NR_GOALS, 50);
}

static void write_csv(const struct fw *fw, FILE *out)
{
	fprintf(out, "rules,conns,firewall,cell,ns_per_frame,added_ns,delivered,"
		     "insns_per_frame,added_insns\n");
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];
		char label[16];

		for (int side = 0; side < NR_SIDES; side++)
			for (int var = 0; var < (side == SIDE_TA || r->pve ? 1 : NR_VARS); var++)
				for (int c = 0; c < NR_CELLS; c++) {
					const struct fw_side *s = &r->side[side];

					if (!s->ran)
						continue;
					fprintf(out, "%s,%lu,%s,%s", row_label(fw, r, label),
						r->conns,
						side == SIDE_TA ? "tap-accel"
						: var == VAR_CHAIN ? "nftables-chain"
								   : "nftables-set",
						cell_name[c]);
					bench_csv_num(out, s->m[var][c].ns);
					bench_csv_num(out, c == CELL_G2S || c == CELL_S2G
							     ? added(r, side, var, c, UNIT_NS)
							     : NAN);
					bench_csv_num(out, s->m[var][c].delivered);
					bench_csv_num(out, s->m[var][c].insns);
					bench_csv_num(out, c == CELL_G2S || c == CELL_S2G
							     ? added(r, side, var, c, UNIT_INSNS)
							     : NAN);
					fputc('\n', out);
				}
		/* the floors: xdp_basic's bare programs on tap-accel's path,
		 * xdp_table's with the table's work */
		for (int k = 0; k < NR_FLOORS && r->side[SIDE_TA].ran; k++)
			for (int c = 0; c < NR_CELLS; c++) {
				const struct fw_side *ta = &r->side[SIDE_TA];
				const struct fw_meas *f = &ta->floor[k][c], *none = &ta->none[VAR_CHAIN][c];

				if (c == CELL_S2G)
					continue;
				fprintf(out, "%s,%lu,%s,%s", row_label(fw, r, label), r->conns,
					k == FLOOR_BARE ? "floor" : "table-floor", cell_name[c]);
				bench_csv_num(out, f->ns);
				bench_csv_num(out, c == CELL_G2S ? f->ns - none->ns : NAN);
				bench_csv_num(out, f->delivered);
				bench_csv_num(out, f->insns);
				bench_csv_num(out, c == CELL_G2S ? f->insns - none->insns : NAN);
				fputc('\n', out);
			}
	}
}

#define CELL_BIT(c) (1u << (c))
#define CELLS_ALL (CELL_BIT(NR_CELLS) - 1)
#define CELLS_STACK (CELL_BIT(CELL_G2S) | CELL_BIT(CELL_S2G))
#define CELLS_FLOOR (CELLS_ALL & ~CELL_BIT(CELL_S2G))

/* "KEY": {cell: figure, ...} of the cells (CELL_BIT) a reference has. */
static void json_cells(struct json_writer *w, const char *key, const struct fw_meas *m,
		       unsigned int cells, bool insns)
{
	jw_key(w, key);
	jw_object_begin(w);
	for (int c = 0; c < NR_CELLS; c++)
		if (cells & CELL_BIT(c))
			jw_kv_double(w, cell_name[c], insns ? m[c].insns : m[c].ns);
	jw_object_end(w);
}

static void json_side(struct json_writer *w, const struct fw_row *r, int side, bool icount)
{
	const struct fw_side *s = &r->side[side];

	jw_key(w, side == SIDE_TA ? "tap_accel" : "nftables");
	if (!s->ran) {
		jw_object_begin(w);
		jw_kv_string(w, "error", s->error);
		jw_object_end(w);
		return;
	}
	jw_object_begin(w);
	jw_kv_u64(w, "tracked_after_fill", s->tracked);
	jw_kv_double(w, "fill_s", s->fill_s);
	jw_kv_bool(w, "fill_stopped_too_slow", s->fill_short);
	jw_kv_u64(w, "tracked_at_end", s->after_new);
	jw_kv_double(w, "bytes_per_connection", s->bytes_per_conn);
	jw_kv_u64(w, side == SIDE_TA ? "table_entries" : "hash_buckets", s->table_size);
	for (int var = 0; var < (side == SIDE_TA || r->pve ? 1 : NR_VARS); var++) {
		const char *name = side == SIDE_TA ? "" : var == VAR_CHAIN ? "chain_" : "set_";
		char key[32];

		snprintf(key, sizeof(key), "%sns", name);
		jw_key(w, key);
		jw_object_begin(w);
		for (int c = 0; c < NR_CELLS; c++)
			jw_kv_double(w, cell_name[c], s->m[var][c].ns);
		jw_object_end(w);
		snprintf(key, sizeof(key), "%sno_firewall_ns", name);
		json_cells(w, key, s->none[var], side == SIDE_NFT ? CELLS_ALL : CELLS_STACK, false);
		if (side == SIDE_TA) {
			json_cells(w, "floor_ns", s->floor[FLOOR_BARE], CELLS_FLOOR, false);
			json_cells(w, "table_floor_ns", s->floor[FLOOR_TABLE], CELLS_FLOOR, false);
		}
		if (!icount)
			continue;
		snprintf(key, sizeof(key), "%sinsns", name);
		jw_key(w, key);
		jw_object_begin(w);
		for (int c = 0; c < NR_CELLS; c++)
			jw_kv_double(w, cell_name[c], s->m[var][c].insns);
		jw_object_end(w);
		snprintf(key, sizeof(key), "%sno_firewall_insns", name);
		json_cells(w, key, s->none[var], side == SIDE_NFT ? CELLS_ALL : CELLS_STACK, true);
		if (side == SIDE_TA) {
			json_cells(w, "floor_insns", s->floor[FLOOR_BARE], CELLS_FLOOR, true);
			json_cells(w, "table_floor_insns", s->floor[FLOOR_TABLE], CELLS_FLOOR, true);
		}
	}
	jw_object_end(w);
}

static void write_json(const struct fw *fw, FILE *out, bool pretty)
{
	struct json_writer w;
	struct bench_goal g[NR_GOALS];
	const char *text[NR_GOALS];

	goals_judge(fw, g);
	jw_init(&w, out, pretty);
	jw_object_begin(&w);
	jw_kv_string(&w, "kernel", fw->kernel);
	jw_kv_u64(&w, "cpus", fw->ncpus);
	jw_kv_string(&w, "started", fw->started);
	jw_kv_u64(&w, "frames", fw->o->frames);
	jw_kv_u64(&w, "reps", fw->o->reps);
	jw_kv_string(&w, "taps", fw->o->tapx ? "tapx" : "tun");
	jw_kv_string(&w, "tap_device", fw->o->tap_dev);
	jw_kv_bool(&w, "instructions_counted", fw->icount);
	jw_kv_string(&w, "nftables", fw->o->nft_bridge ? "bridge-family" : "br_netfilter-inet");
	jw_key(&w, "rows");
	jw_array_begin(&w);
	for (int i = 0; i < fw->nr_rows; i++) {
		const struct fw_row *r = &fw->rows[i];

		jw_object_begin(&w);
		jw_kv_u64(&w, "rules", r->rules);
		jw_kv_u64(&w, "conns", r->conns);
		if (r->pve) {
			jw_key(&w, "proxmox");
			jw_object_begin(&w);
			jw_kv_u64(&w, "vmid", fw->pve.vmid);
			jw_kv_string(&w, "fw", fw->pve.fw);
			jw_kv_string(&w, "cluster", fw->pve.cluster);
			jw_kv_string(&w, "conf", fw->pve.conf);
			jw_object_end(&w);
		}
		json_side(&w, r, SIDE_TA, fw->icount);
		json_side(&w, r, SIDE_NFT, fw->icount);
		if (row_ran(r)) {
			jw_key(&w, "ratio");
			jw_object_begin(&w);
			for (int c = 0; c < NR_CELLS; c++) {
				char key[48];

				snprintf(key, sizeof(key), "%s_chain", cell_name[c]);
				jw_kv_double(&w, key, ratio(r, c, VAR_CHAIN, UNIT_NS));
				snprintf(key, sizeof(key), "%s_set", cell_name[c]);
				jw_kv_double(&w, key, ratio(r, c, VAR_SET, UNIT_NS));
			}
			jw_object_end(&w);
			if (fw->icount) {
				jw_key(&w, "ratio_insns");
				jw_object_begin(&w);
				for (int c = 0; c < NR_CELLS; c++) {
					char key[48];

					snprintf(key, sizeof(key), "%s_chain", cell_name[c]);
					jw_kv_double(&w, key, ratio(r, c, VAR_CHAIN, UNIT_INSNS));
					snprintf(key, sizeof(key), "%s_set", cell_name[c]);
					jw_kv_double(&w, key, ratio(r, c, VAR_SET, UNIT_INSNS));
				}
				jw_object_end(&w);
			}
		}
		jw_object_end(&w);
	}
	jw_array_end(&w);
	goal_texts(fw, text);
	bench_goals_json(&w, text, g, NR_GOALS);
	jw_object_end(&w);
	jw_end_document(&w);
}

/* What the Proxmox VE row ran, beside the figures: vmVMID.policy (what
 * tap-accel enforced) and vmVMID.nft (nftables' ruleset). */
static int pve_texts(const struct fw *fw)
{
	char name[32], fdb[64];
	struct ta_error e = {0};
	int ret = 0;
	FILE *f;

	snprintf(name, sizeof(name), "vm%u.policy", fw->pve.vmid);
	if (!(f = bench_open_in(fw->out_dir, name)))
		return -1;
	ret = fw_pve_policy(f, &fw->pve, pve_fdb(fdb), &e);
	fclose(f);
	snprintf(name, sizeof(name), "vm%u.nft", fw->pve.vmid);
	if (!ret && !(f = bench_open_in(fw->out_dir, name)))
		return -1;
	if (!ret) {
		ret = fw_pve_nft(f, &fw->pve, PVE_GUESTS, &e);
		fclose(f);
	}
	if (ret)
		fprintf(stderr, "tap-accel-bench --firewall: %s\n", e.text);
	return ret;
}

static int write_files(struct fw *fw)
{
	FILE *f;

	if (bench_results_dir(fw->o->out_dir, fw->out_dir, sizeof(fw->out_dir)))
		return -1;
	if (!(f = bench_open_in(fw->out_dir, "firewall.txt")))
		return -1;
	print_table(fw, f);
	fclose(f);
	if (!(f = bench_open_in(fw->out_dir, "firewall.csv")))
		return -1;
	write_csv(fw, f);
	fclose(f);
	if (!(f = bench_open_in(fw->out_dir, "firewall.json")))
		return -1;
	write_json(fw, f, true);
	fclose(f);
	if (fw->o->pve && pve_texts(fw))
		return -1;
	fprintf(stderr, "tap-accel-bench: results in %s/ (firewall.txt, firewall.csv, "
			"firewall.json%s)\n", fw->out_dir,
		fw->o->pve ? ", the Proxmox VE row's .policy and .nft" : "");
	return 0;
}

/* ---- the run ------------------------------------------------------------ */

void fw_opts_default(struct fw_opts *o, bool full)
{
	static const unsigned int rules[] = {1, 100, 1000};
	static const unsigned long conns[] = {1000, 100000, 1000000};

	memset(o, 0, sizeof(*o));
	if (full) {
		for (int c = 0; c < 3; c++)
			for (int r = 0; r < 3; r++, o->nr_rows++) {
				o->rules[o->nr_rows] = rules[r];
				o->conns[o->nr_rows] = conns[c];
			}
	} else {
		for (int r = 0; r < 3; r++, o->nr_rows++) {
			o->rules[o->nr_rows] = rules[r];
			o->conns[o->nr_rows] = conns[0];
		}
		for (int c = 1; c < 3; c++, o->nr_rows++) {
			o->rules[o->nr_rows] = 1;
			o->conns[o->nr_rows] = conns[c];
		}
	}
	o->frames = full ? 10000 : 3000;
	o->reps = FW_MAX_REPS;
	o->tap_dev = "/dev/net/tun";
}

static int parse_counts(const char *list, unsigned long max, unsigned long *v, int *n,
			const char *what, struct ta_error *e)
{
	const char *p = list;

	*n = 0;
	while (*p) {
		char *end;
		unsigned long x = strtoul(p, &end, 10);

		if (end == p || (*end && *end != ',') || x < 1 || x > max || *n == FW_MAX_ROWS)
			return fail(e, EINVAL,
				    "--%s '%s': up to %d counts from 1 to %lu, comma-separated",
				    what, list, FW_MAX_ROWS, max);
		v[(*n)++] = x;
		p = *end ? end + 1 : end;
	}
	return *n ? 0 : fail(e, EINVAL, "--%s: no count given", what);
}

int fw_parse_grid(struct fw_opts *o, const char *rules, const char *conns, struct ta_error *e)
{
	unsigned long r[FW_MAX_ROWS], c[FW_MAX_ROWS];
	int nr = 0, nc = 0;

	if (rules && parse_counts(rules, 10000, r, &nr, "rules", e))
		return -e->err;
	if (conns && parse_counts(conns, FW_MAX_CONNS, c, &nc, "conns", e))
		return -e->err;
	if (!rules) /* the default's rule counts */
		for (int i = 0; i < o->nr_rows; i++) {
			bool seen = false;

			for (int j = 0; j < nr; j++)
				seen |= r[j] == o->rules[i];
			if (!seen)
				r[nr++] = o->rules[i];
		}
	if (!conns)
		c[nc++] = 1000;
	if (nr * nc > FW_MAX_ROWS)
		return fail(e, EINVAL, "--rules x --conns: at most %d rows", FW_MAX_ROWS);
	o->nr_rows = 0;
	for (int j = 0; j < nc; j++)
		for (int i = 0; i < nr; i++, o->nr_rows++) {
			o->rules[o->nr_rows] = r[i];
			o->conns[o->nr_rows] = c[j];
		}
	return 0;
}

static int preflight(struct fw *fw, struct ta_error *e)
{
	if (fw->o->pve && fw_pve_find(fw->o->pve, &fw->pve, e))
		return -e->err;
	if (scale_find_cli(fw->exe, sizeof(fw->exe), e))
		return -e->err;
	if (access(fw->o->tap_dev, R_OK | W_OK))
		return fail(e, errno, "%s: %s%s", fw->o->tap_dev, strerror(errno),
			    fw->o->tapx && errno == ENOENT ? " (insmod tapx.ko; --tapx-dev names "
							    "another node)" : "");
	if (run(e, "nft --version"))
		return fail(e, ENOENT, "nft: %s (the nftables side needs it: apt-get install "
				       "nftables, or make deps)", e->text);
	/* the Proxmox VE row's ruleset is an inet table on br_netfilter */
	if ((!fw->o->nft_bridge || fw->o->pve) &&
	    access("/proc/sys/net/bridge/bridge-nf-call-iptables", F_OK))
		return fail(e, ENOENT, "no br_netfilter in this kernel (the nftables side needs "
				       "it: modprobe br_netfilter)");
	return ct_max_raise(fw->o, e);
}

static int run_row(struct fw *fw, struct fw_row *row)
{
	bool told = false;
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(row_child(fw, row));
	/* A Ctrl-C from the terminal reaches the child too; a signal to this
	 * process alone is passed on, so that the child stops at its next
	 * step (its namespaces go with it). */
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
		if (stop_requested() && !told) {
			kill(pid, SIGINT);
			told = true;
		}
	}
	if (stop_requested())
		return -EINTR;
	if (!WIFEXITED(status) && !row->side[SIDE_TA].error[0])
		snprintf(row->side[SIDE_TA].error, sizeof(row->side[SIDE_TA].error),
			 "the row's process ended on signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return 0;
}

static int measure(struct fw *fw)
{
	const struct fw_opts *o = fw->o;

	for (int i = 0; i < fw->nr_rows; i++) {
		struct fw_row *r = &fw->rows[i];

		r->pve = i == o->nr_rows;
		r->rules = r->pve ? 0 : o->rules[i];
		r->conns = r->pve ? PVE_CONNS : o->conns[i];
		if (r->pve)
			fprintf(stderr, "[%d/%d] Proxmox VE VM %u's firewall, %lu connections: "
					"tap-accel and nftables\n",
				i + 1, fw->nr_rows, fw->pve.vmid, r->conns);
		else
			fprintf(stderr,
				"[%d/%d] %u rules, %lu connections: tap-accel and nftables\n",
				i + 1, fw->nr_rows, r->rules, r->conns);
		if (run_row(fw, r))
			return -EINTR;
		if (r->side[SIDE_TA].error[0])
			fprintf(stderr, "  %s\n", r->side[SIDE_TA].error);
	}
	return 0;
}

int fw_run(const struct fw_opts *o)
{
	struct fw fw = {.o = o};
	struct ta_error e = {0};
	struct utsname u;
	time_t t = time(NULL);
	bool any = false;
	int ret;

	fw.ncpus = libbpf_num_possible_cpus();
	uname(&u);
	snprintf(fw.kernel, sizeof(fw.kernel), "Linux %s", u.release);
	strftime(fw.started, sizeof(fw.started), "%Y-%m-%d %H:%M:%S", gmtime(&t));
	stop_catch_signals();
	fw.nr_rows = o->nr_rows + (o->pve != NULL);
	fw.rows = mmap(NULL, FW_ROWS_MAPPED * sizeof(*fw.rows), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (fw.rows == MAP_FAILED) {
		fprintf(stderr, "tap-accel-bench --firewall: out of memory\n");
		return -ENOMEM;
	}
	memset(fw.rows, 0, FW_ROWS_MAPPED * sizeof(*fw.rows));
	if (bench_icount_open(o->icount_port, &e)) {
		fprintf(stderr, "tap-accel-bench --firewall: %s\n", e.text);
		munmap(fw.rows, FW_ROWS_MAPPED * sizeof(*fw.rows));
		return -e.err;
	}
	fw.icount = bench_icount_on();
	if (preflight(&fw, &e)) {
		bench_icount_close();
		fprintf(stderr, "tap-accel-bench --firewall: %s\n", e.text);
		ct_max_restore();
		munmap(fw.rows, FW_ROWS_MAPPED * sizeof(*fw.rows));
		return -e.err;
	}
	ret = measure(&fw);
	ct_max_restore();
	if (ret) {
		fprintf(stderr, "tap-accel-bench --firewall: interrupted\n");
		goto out;
	}
	for (int i = 0; i < fw.nr_rows; i++)
		any |= row_ran(&fw.rows[i]);
	print_table(&fw, o->json ? stderr : stdout);
	if (o->json)
		write_json(&fw, stdout, o->pretty);
	ret = write_files(&fw) ? -EIO : any ? 0 : -EIO;
	if (!any)
		fprintf(stderr, "tap-accel-bench --firewall: no row was measured\n");
out:
	bench_icount_close();
	munmap(fw.rows, FW_ROWS_MAPPED * sizeof(*fw.rows));
	return ret;
}
