// SPDX-License-Identifier: GPL-2.0
/* tapx-test.c - what the VM's test tools share (see tapx-test.h). */
#define _GNU_SOURCE
#include <grp.h>
#include <linux/bpf.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include <sys/utsname.h>

#include "tapx-test.h"

int failures;
int quiet;
const char *check_prefix = "";
volatile sig_atomic_t stop;

void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok && quiet)
		return;
	printf("%s %s", ok ? "PASS" : "FAIL", check_prefix);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

int tap_open(const char *node, const char *name, int flags, int oflags)
{
	struct ifreq ifr;
	int fd = open(node, O_RDWR | oflags);

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	if (name)
		snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

int child_attach(const char *node, const char *name, int flags, uid_t uid, gid_t gid)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		int fd;

		if (setgroups(0, NULL) || setgid(gid) || setuid(uid))
			_exit(100);
		fd = tap_open(node, name, flags, 0);
		_exit(fd < 0 ? -fd : 0);
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 255;
}

int split_spec(char *spec, char **node, char **name)
{
	char *c = strrchr(spec, ':');

	if (!c)
		return -1;
	*c = 0;
	*node = spec;
	*name = c + 1;
	return 0;
}

void test_frame(uint8_t *f, int size, uint32_t seq)
{
	int i;

	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	f[12] = ETHERTYPE_TEST >> 8;
	f[13] = ETHERTYPE_TEST & 0xff;
	for (i = 14; i < size; i++)
		f[i] = (uint8_t)(seq + i);
	if (size >= 18)
		memcpy(f + 14, &seq, 4);
}

int packet_open(const char *name)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int s, sz = 16 << 20;

	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0)
		return -1;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(name);
	if (bind(s, (void *)&sll, sizeof(sll)) < 0) {
		close(s);
		return -1;
	}
	setsockopt(s, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz));
	return s;
}

int packet_recv(int s, uint8_t *buf, int len, int timeout_ms)
{
	struct sockaddr_ll from;
	socklen_t fl = sizeof(from);
	struct pollfd p = { .fd = s, .events = POLLIN };
	int n;

	for (;;) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recvfrom(s, buf, len, MSG_DONTWAIT, (void *)&from, &fl);
		if (n < 0)
			return -1;
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (n >= 14 && buf[12] == ETHERTYPE_TEST >> 8 &&
		    buf[13] == (ETHERTYPE_TEST & 0xff))
			return n;
	}
}

int socket_filter_load(int r0)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = r0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
	attr.insns = (uint64_t)(unsigned long)insns;
	attr.insn_cnt = 2;
	attr.license = (uint64_t)(unsigned long)"GPL";
	return syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
}

int if_set_mtu(const char *name, int mtu)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	ifr.ifr_mtu = mtu;
	r = ioctl(s, SIOCSIFMTU, &ifr);
	close(s);
	return r;
}

int if_up(const char *name, int up)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM, 0), r;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
	r = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (!r) {
		if (up)
			ifr.ifr_flags |= IFF_UP;
		else
			ifr.ifr_flags &= ~IFF_UP;
		r = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	return r;
}

/*
 * Until the stack transmits on NAME: a queue attach turns the carrier on,
 * but if the carrier was off the qdiscs replace noop (which drops what it
 * gets and reports congestion, so sendto() succeeds) only when the
 * linkwatch work has run, under rtnl, after it set operstate. Waits for
 * operstate "up" ("unknown": no carrier change was ever processed, so the
 * qdiscs were never taken down), then takes rtnl once (SIOCSIFFLAGS, flags
 * unchanged) to be behind that work.
 */
int if_wait_tx_ready(const char *name, int timeout_ms)
{
	char path[64 + IFNAMSIZ], state[16] = "";
	int waited;

	snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", name);
	for (waited = 0; waited <= timeout_ms; waited += 10) {
		FILE *f = fopen(path, "r");

		if (f) {
			if (!fgets(state, sizeof(state), f))
				state[0] = 0;
			fclose(f);
		}
		if (!strncmp(state, "up", 2) || !strncmp(state, "unknown", 7))
			return if_up(name, 1);
		usleep(10000);
	}
	return -1;
}

int if_exists(const char *name)
{
	return if_nametoindex(name) != 0;
}

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

int cmdline_value(const char *key, char *val, size_t len)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen("/proc/cmdline", "r");
	size_t n, klen = strlen(key);
	int found = 0;

	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save)) {
		if (!strncmp(tok, key, klen) && tok[klen] == '=') {
			snprintf(val, len, "%s", tok + klen + 1);
			found = 1;
		}
	}
	return found;
}

void frame_ip4_tcp(uint8_t *f, size_t flen, int proto)
{
	unsigned int tot = flen - 14;

	f[12] = 0x08;
	f[13] = 0x00;
	memset(f + 14, 0, 40);
	f[14] = 0x45;
	f[16] = tot >> 8;
	f[17] = tot;
	f[22] = 64;
	f[23] = proto;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[46] = 0x50;
	f[47] = 0x10;
}

void kernel_stack_print(const char *who, pid_t pid)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	printf("%s %d kernel stack:\n%s", who, pid, buf);
}

void *bad_ptr(void)
{
	static volatile uintptr_t p = 8;

	return (void *)p;
}

void on_alarm(int sig)
{
	stop = 1;
}

int parse_topts(int argc, char **argv, int first, const struct topt *t)
{
	for (int i = first; i < argc; i++) {
		const struct topt *o = t;

		while (o->name && (strncmp(argv[i], "--", 2) || strcmp(argv[i] + 2, o->name)))
			o++;
		if (!o->name) {
			fprintf(stderr, "%s: unknown option %s\n", argv[1] ? argv[1] : argv[0], argv[i]);
			return -1;
		}
		if (o->kind == 'f') {
			*(int *)o->dst = 1;
			continue;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "%s: option %s needs a value\n", argv[1] ? argv[1] : argv[0],
				argv[i]);
			return -1;
		}
		i++;
		if (o->kind == 's')
			*(const char **)o->dst = argv[i];
		else if (o->kind == 'l')
			*(long *)o->dst = atol(argv[i]);
		else
			*(int *)o->dst = atoi(argv[i]);
	}
	return 0;
}

void trace_mark(const char *env, const char *m)
{
	int fd;

	if (!getenv(env))
		return;
	fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
	if (fd < 0)
		fd = open("/sys/kernel/debug/tracing/trace_marker", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, m, strlen(m)) < 0)
			perror("trace_marker");
		close(fd);
	}
}

void nl_put(struct nlreq *r, unsigned short type, const void *data, int len)
{
	struct rtattr *rta =
		(struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

struct rtattr *nl_nest(struct nlreq *r, unsigned short type)
{
	struct rtattr *rta =
		(struct rtattr *)((char *)r + NLMSG_ALIGN(r->nh.nlmsg_len));

	rta->rta_type = type | NLA_F_NESTED;
	rta->rta_len = RTA_LENGTH(0);
	r->nh.nlmsg_len = NLMSG_ALIGN(r->nh.nlmsg_len) + RTA_LENGTH(0);
	return rta;
}

void nl_end(struct nlreq *r, struct rtattr *nest)
{
	nest->rta_len = (char *)r + r->nh.nlmsg_len - (char *)nest;
}

void nl_init(struct nlreq *r, int type, const char *name)
{
	memset(r, 0, sizeof(*r));
	r->nh.nlmsg_len = NLMSG_LENGTH(sizeof(r->ifi));
	r->nh.nlmsg_type = type;
	r->nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	r->ifi.ifi_family = AF_UNSPEC;
	if (name)
		nl_put(r, IFLA_IFNAME, name, strlen(name) + 1);
}

uint16_t frame_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

uint32_t frame_csum_add(uint32_t sum, const void *p, int len)
{
	const uint8_t *b = p;
	int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += b[i] << 8 | b[i + 1];
	if (len & 1)
		sum += b[len - 1] << 8;
	return sum;
}

/*
 * The Ethernet and IPv4 headers of a frame to @mac, 10.99.0.2 ->
 * 10.99.0.1, @proto, @iplen bytes from the IP header on; then the
 * transport header's ports, 9998 -> 9999. Returns the transport header.
 */
uint8_t *frame_ip4_head(uint8_t *f, const uint8_t *mac, int proto, int iplen)
{
	uint8_t *ip = f + 14, *l4 = ip + 20;
	uint32_t sum;

	memcpy(f, mac, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, 20);
	ip[0] = 0x45;
	ip[2] = iplen >> 8;
	ip[3] = iplen & 0xff;
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, "\x0a\x63\x00\x02\x0a\x63\x00\x01", 8);
	sum = ~frame_csum_fold(frame_csum_add(0, ip, 20)) & 0xffff;
	ip[10] = sum >> 8;
	ip[11] = sum & 0xff;
	l4[0] = (FRAME_PORT - 1) >> 8;
	l4[1] = (FRAME_PORT - 1) & 0xff;
	l4[2] = FRAME_PORT >> 8;
	l4[3] = FRAME_PORT & 0xff;
	return l4;
}

/*
 * Ethernet/IPv4/UDP to port 4789/VXLAN (VNI 1)/Ethernet/IPv4/TCP with
 * @payload bytes, to @mac; the inner TCP checksum holds the pseudo
 * header's sum (NEEDS_CSUM), the outer UDP one is 0, as VXLAN sends it.
 * Returns its length.
 */
int tnl_frame(uint8_t *f, const uint8_t *mac, int payload)
{
	int inner_ip = 20 + 20 + payload, outer_udp = 8 + 8 + 14 + inner_ip;
	uint8_t *udp, *tcp;
	uint32_t sum;

	udp = frame_ip4_head(f, mac, IPPROTO_UDP, 20 + outer_udp);
	udp[2] = 4789 >> 8;
	udp[3] = 4789 & 0xff;
	udp[4] = outer_udp >> 8;
	udp[5] = outer_udp & 0xff;
	udp[6] = udp[7] = 0;
	memset(udp + 8, 0, 8);
	udp[8] = 0x08; /* VXLAN: the VNI is valid */
	udp[14] = 1;
	tcp = frame_ip4_head(udp + 16, (const uint8_t *)"\x02\0\0\0\0\x11",
			     IPPROTO_TCP, inner_ip);
	memset(tcp + 4, 0, 16);
	tcp[12] = 5 << 4;
	tcp[13] = 0x18;
	tcp[15] = 0xff;
	memset(tcp + 20, 0x5a, payload);
	sum = frame_csum_add(0, tcp - 20 + 12, 8) + IPPROTO_TCP + 20 + payload;
	sum = frame_csum_fold(sum);
	tcp[16] = sum >> 8;
	tcp[17] = sum & 0xff;
	return 14 + 20 + outer_udp;
}

int tnl_kernel(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return 0;
	return major > 6 || (major == 6 && minor >= 17);
}

struct tnl_vnet tnl_vnet_hdr(uint16_t gso_size)
{
	struct tnl_vnet h = {
		.h = {
			.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM,
			.gso_type = 0x20 | VIRTIO_NET_HDR_GSO_TCPV4,
			.hdr_len = TNL_INNER_TH + 20,
			.gso_size = gso_size,
			.csum_start = TNL_INNER_TH,
			.csum_offset = 16,
		},
		.outer_th = TNL_OUTER_TH,
		.inner_nh = TNL_INNER_NH,
	};

	return h;
}
