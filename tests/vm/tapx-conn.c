// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-conn - connections through tapx taps, for the two-way policies
 * (suite-twoway.sh): one end is a guest, whose frames this tool writes into
 * a tap and reads from it, the other the stack's own sockets or another
 * tap's guest. The steps run in order in one process, which keeps its taps
 * and sockets open from one step to the next (a connection outlives a
 * step, and a policy can be replaced under it):
 *
 *   tap NAME MAC IP        attach to tap NAME of $TAPX_NODE (/dev/net/tapx)
 *                          as the guest of address MAC, IP behind it
 *   listen IP PORT         a TCP listener of the stack
 *   connect IP PORT        the stack opens a connection (the one it opened
 *                          before is closed)
 *   sockwrite              the stack sends data on that connection
 *   ping IP                the stack sends an ICMP echo request
 *   send TAP FLAGS SPORT IP DPORT [MAC]
 *                          TAP's guest writes a TCP segment (FLAGS: letters
 *                          of SAFRP) from its port SPORT to IP:DPORT, to MAC
 *                          (by default the tap's own: to the stack)
 *   reply TAP FLAGS        TAP's guest answers the last segment it read,
 *                          acknowledging it
 *   recv TAP N tcp FLAGS PORT
 *   recv TAP N icmp TYPE   a check: exactly N frames of this kind read from
 *                          TAP (PORT: the guest's, FLAGS exactly these)
 *   devmap MAP IFNAME PROG entry 0 of the devmap pinned at MAP: IFNAME, with
 *                          the program pinned at PROG run on what goes there
 *   run CMD                sh -c CMD; a check that it exits 0
 *
 * A tap's frames that no recv asked for are printed ("other: ..."), not
 * counted. PASS/FAIL lines; exit status 0 when every check passed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tapx-test.h"

#define MAX_TAPS 4
#define MAX_CONNS 16
#define FRAME_MAX 2048
/* the guest's initial sequence numbers, any will do */
#define GUEST_ISN 1000

enum { F_FIN = 0x01, F_SYN = 0x02, F_RST = 0x04, F_PSH = 0x08, F_ACK = 0x10 };

/* A TCP segment as read or written: the guest's end is "my". */
struct seg {
	uint8_t peer_mac[6];
	uint32_t peer_ip, my_ip; /* network order */
	uint16_t peer_port, my_port;
	uint32_t seq, ack;
	uint8_t flags;
	int len; /* payload */
};

/* The guest's side of one connection. */
struct conn {
	uint32_t peer_ip;
	uint16_t peer_port, my_port;
	uint32_t snd_nxt, rcv_nxt;
};

struct tap {
	char name[IFNAMSIZ];
	int fd;
	uint8_t mac[6], dev_mac[6];
	uint32_t ip;
	struct seg last; /* the last segment recv counted */
	int have_last;
	struct conn conns[MAX_CONNS];
	int nr_conns;
};

static struct tap taps[MAX_TAPS];
static int nr_taps;
static int client = -1; /* the stack's connection */

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6];

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static int parse_flags(const char *s)
{
	int f = 0;

	for (; *s; s++) {
		const char *p = strchr("FSRPA", *s);

		if (!p)
			return -1;
		f |= 1 << (p - "FSRPA");
	}
	return f;
}

static const char *flag_text(int f)
{
	static char buf[8];
	int n = 0;

	for (int i = 0; i < 5; i++)
		if (f & (1 << i))
			buf[n++] = "FSRPA"[i];
	buf[n] = 0;
	return buf;
}

static struct tap *tap_named(const char *name)
{
	for (int i = 0; i < nr_taps; i++)
		if (!strcmp(taps[i].name, name))
			return &taps[i];
	fprintf(stderr, "tapx-conn: no tap %s (a tap step first)\n", name);
	exit(2);
}

static struct conn *conn_of(struct tap *t, uint32_t peer_ip, uint16_t peer_port, uint16_t my_port)
{
	for (int i = 0; i < t->nr_conns; i++) {
		struct conn *c = &t->conns[i];

		if (c->peer_ip == peer_ip && c->peer_port == peer_port && c->my_port == my_port)
			return c;
	}
	if (t->nr_conns == MAX_CONNS) {
		fprintf(stderr, "tapx-conn: more than %d connections on %s\n", MAX_CONNS, t->name);
		exit(2);
	}
	t->conns[t->nr_conns] = (struct conn){ .peer_ip = peer_ip, .peer_port = peer_port,
					       .my_port = my_port, .snd_nxt = GUEST_ISN };
	return &t->conns[t->nr_conns++];
}

static uint16_t csum_done(uint32_t sum)
{
	return htons((uint16_t)~frame_csum_fold(sum));
}

/* Writes the guest's segment: flags, and its connection's numbers. */
static void write_seg(struct tap *t, const struct seg *s)
{
	uint8_t f[64] = { 0 }, *ip = f + 14, *tcp = ip + 20, pseudo[12];
	struct conn *c = conn_of(t, s->peer_ip, s->peer_port, s->my_port);
	uint32_t seq, ack;
	uint16_t sum;
	int len = 14 + 20 + 20;

	if (s->flags & F_SYN)
		c->snd_nxt = GUEST_ISN;
	seq = htonl(c->snd_nxt);
	ack = htonl(s->flags & F_ACK ? c->rcv_nxt : 0);
	c->snd_nxt += !!(s->flags & F_SYN) + !!(s->flags & F_FIN);

	memcpy(f, s->peer_mac, 6);
	memcpy(f + 6, t->mac, 6);
	f[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 40;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	memcpy(ip + 12, &t->ip, 4);
	memcpy(ip + 16, &s->peer_ip, 4);
	sum = csum_done(frame_csum_add(0, ip, 20));
	memcpy(ip + 10, &sum, 2);
	tcp[0] = s->my_port >> 8;
	tcp[1] = s->my_port & 0xff;
	tcp[2] = s->peer_port >> 8;
	tcp[3] = s->peer_port & 0xff;
	memcpy(tcp + 4, &seq, 4);
	memcpy(tcp + 8, &ack, 4);
	tcp[12] = 5 << 4;
	tcp[13] = s->flags;
	tcp[14] = 0xff; /* window */
	tcp[15] = 0xff;
	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_TCP;
	pseudo[10] = 0;
	pseudo[11] = 20;
	sum = csum_done(frame_csum_add(frame_csum_add(0, pseudo, 12), tcp, 20));
	memcpy(tcp + 16, &sum, 2);
	if (write(t->fd, f, len) != len)
		check(0, "%s: write a %s segment: %s", t->name, flag_text(s->flags), strerror(errno));
}

/* What a frame read from a tap is: 1 TCP (in *s), 2 ICMP (type in *s.flags), 0 other. */
static int parse_read(const uint8_t *f, int n, struct seg *s)
{
	const uint8_t *ip = f + 14, *l4;
	int ihl, tot;

	if (n < 34 || f[12] != 0x08 || f[13] != 0 || (ip[0] >> 4) != 4)
		return 0;
	ihl = (ip[0] & 15) * 4;
	tot = ip[2] << 8 | ip[3];
	if (n < 14 + ihl + 8 || tot > n - 14)
		return 0;
	l4 = ip + ihl;
	memset(s, 0, sizeof(*s));
	memcpy(s->peer_mac, f + 6, 6);
	memcpy(&s->peer_ip, ip + 12, 4);
	memcpy(&s->my_ip, ip + 16, 4);
	if (ip[9] == IPPROTO_ICMP) {
		s->flags = l4[0];
		return 2;
	}
	if (ip[9] != IPPROTO_TCP || n < 14 + ihl + 20)
		return 0;
	s->peer_port = l4[0] << 8 | l4[1];
	s->my_port = l4[2] << 8 | l4[3];
	memcpy(&s->seq, l4 + 4, 4);
	memcpy(&s->ack, l4 + 8, 4);
	s->seq = ntohl(s->seq);
	s->ack = ntohl(s->ack);
	s->flags = l4[13] & (F_FIN | F_SYN | F_RST | F_PSH | F_ACK);
	s->len = tot - ihl - (l4[12] >> 4) * 4;
	return 1;
}

static void print_other(const struct tap *t, int kind, const struct seg *s, int n)
{
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &s->peer_ip, a, sizeof(a));
	inet_ntop(AF_INET, &s->my_ip, b, sizeof(b));
	if (kind == 1)
		printf("%s: other: tcp %s %s:%u > %s:%u len %d\n", t->name, flag_text(s->flags), a,
		       s->peer_port, b, s->my_port, s->len);
	else if (kind == 2)
		printf("%s: other: icmp type %u %s > %s\n", t->name, s->flags, a, b);
	else
		printf("%s: other: a frame of %d bytes\n", t->name, n);
}

/* recv: counts the frames of the kind asked for within the wait: until N
 * came and a little more (one too many is a failure), or a while for none. */
static void recv_step(struct tap *t, int want, int icmp, int flags, int port)
{
	static uint8_t f[FRAME_MAX];
	double start = now_ns(), quiet_ms = 300, limit_ms = 3000;
	double last_ms = 0;
	int got = 0;

	for (;;) {
		double ms = (now_ns() - start) / 1e6;
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		struct seg s;
		int n, kind;

		if (ms > limit_ms || (got >= want && ms - last_ms > quiet_ms))
			break;
		if (poll(&p, 1, 20) != 1)
			continue;
		n = read(t->fd, f, sizeof(f));
		if (n <= 0)
			continue;
		kind = parse_read(f, n, &s);
		if (kind == 1 && !icmp && s.flags == flags && s.my_port == port) {
			struct conn *c = conn_of(t, s.peer_ip, s.peer_port, s.my_port);

			c->rcv_nxt = s.seq + s.len + !!(s.flags & F_SYN) + !!(s.flags & F_FIN);
			t->last = s;
			t->have_last = 1;
			got++;
			last_ms = (now_ns() - start) / 1e6;
		} else if (kind == 2 && icmp && s.flags == flags) {
			got++;
			last_ms = (now_ns() - start) / 1e6;
		} else {
			print_other(t, kind, &s, n);
		}
	}
	if (icmp)
		check(got == want, "%s: %d icmp type %d read (want %d)", t->name, got, flags, want);
	else
		check(got == want, "%s: %d tcp %s to port %d read (want %d)", t->name, got,
		      flag_text(flags), port, want);
}

static uint32_t addr_of(const char *s)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1) {
		fprintf(stderr, "tapx-conn: not an IPv4 address: %s\n", s);
		exit(2);
	}
	return a.s_addr;
}

static struct sockaddr_in sin_of(const char *ip, const char *port)
{
	return (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = htons(atoi(port)),
				     .sin_addr.s_addr = addr_of(ip) };
}

static void step_tap(char **a)
{
	struct tap *t = &taps[nr_taps];
	const char *node = getenv("TAPX_NODE");
	struct ifreq ifr = { 0 };
	int s;

	if (nr_taps == MAX_TAPS) {
		fprintf(stderr, "tapx-conn: at most %d taps\n", MAX_TAPS);
		exit(2);
	}
	snprintf(t->name, sizeof(t->name), "%s", a[0]);
	if (parse_mac(a[1], t->mac)) {
		fprintf(stderr, "tapx-conn: not a MAC: %s\n", a[1]);
		exit(2);
	}
	t->ip = addr_of(a[2]);
	t->fd = tap_open(node && *node ? node : "/dev/net/tapx", t->name, IFF_TAP | IFF_NO_PI,
			 O_NONBLOCK);
	if (t->fd < 0) {
		check(0, "attach to %s: %s", t->name, strerror(-t->fd));
		exit(1);
	}
	s = socket(AF_INET, SOCK_DGRAM, 0);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", t->name);
	if (s < 0 || ioctl(s, SIOCGIFHWADDR, &ifr)) {
		check(0, "%s: its MAC address: %s", t->name, strerror(errno));
		exit(1);
	}
	memcpy(t->dev_mac, ifr.ifr_hwaddr.sa_data, 6);
	close(s);
	nr_taps++;
}

static void step_listen(char **a)
{
	struct sockaddr_in sin = sin_of(a[0], a[1]);
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	check(s >= 0 && !bind(s, (struct sockaddr *)&sin, sizeof(sin)) && !listen(s, 8),
	      "listen on %s:%s", a[0], a[1]);
}

static void step_connect(char **a)
{
	struct sockaddr_in sin = sin_of(a[0], a[1]);

	if (client >= 0)
		close(client);
	client = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	check(client >= 0 && connect(client, (struct sockaddr *)&sin, sizeof(sin)) &&
		      errno == EINPROGRESS,
	      "the stack connects to %s:%s", a[0], a[1]);
}

static void step_sockwrite(void)
{
	check(client >= 0 && write(client, "data", 4) == 4, "the stack sends data: %s",
	      client < 0 ? "no connection" : strerror(errno));
}

static void step_ping(char **a)
{
	struct sockaddr_in sin = sin_of(a[0], "0");
	uint8_t echo[16] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1, 'p', 'i', 'n', 'g' };
	uint16_t sum = csum_done(frame_csum_add(0, echo, sizeof(echo)));
	int s = socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);

	memcpy(echo + 2, &sum, 2);
	check(s >= 0 && sendto(s, echo, sizeof(echo), 0, (struct sockaddr *)&sin, sizeof(sin)) ==
				sizeof(echo),
	      "the stack sends an echo request to %s", a[0]);
	if (s >= 0)
		close(s);
}

static void step_send(char **a, int argc, int *used)
{
	struct tap *t = tap_named(a[0]);
	struct seg s = { .peer_ip = addr_of(a[3]) };
	int flags = parse_flags(a[1]);

	if (flags < 0) {
		fprintf(stderr, "tapx-conn: TCP flags are letters of SAFRP: %s\n", a[1]);
		exit(2);
	}
	s.flags = (uint8_t)flags;
	s.my_port = atoi(a[2]);
	s.peer_port = atoi(a[4]);
	memcpy(s.peer_mac, t->dev_mac, 6);
	*used = 5;
	if (argc > 5 && strchr(a[5], ':')) {
		if (parse_mac(a[5], s.peer_mac)) {
			fprintf(stderr, "tapx-conn: not a MAC: %s\n", a[5]);
			exit(2);
		}
		*used = 6;
	}
	write_seg(t, &s);
}

static void step_reply(char **a)
{
	struct tap *t = tap_named(a[0]);
	int flags = parse_flags(a[1]);

	if (flags < 0 || !t->have_last) {
		check(0, "%s: reply %s: %s", t->name, a[1],
		      flags < 0 ? "flags are letters of SAFRP" : "no segment read to answer");
		return;
	}
	t->last.flags = (uint8_t)flags;
	write_seg(t, &t->last);
}

static int bpf_pinned(const char *path)
{
	union bpf_attr attr = { 0 };

	attr.pathname = (uintptr_t)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
}

static void step_devmap(char **a)
{
	int map = bpf_pinned(a[0]), prog = bpf_pinned(a[2]), ok = 0;
	struct bpf_devmap_val val = { .ifindex = if_nametoindex(a[1]) };
	union bpf_attr attr = { 0 };
	uint32_t key = 0;

	if (map >= 0 && prog >= 0 && val.ifindex) {
		val.bpf_prog.fd = prog;
		attr.map_fd = map;
		attr.key = (uintptr_t)&key;
		attr.value = (uintptr_t)&val;
		ok = !syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &attr, sizeof(attr));
	}
	check(ok, "devmap %s: %s with %s: %s", a[0], a[1], a[2], ok ? "set" : strerror(errno));
	if (map >= 0)
		close(map);
	if (prog >= 0)
		close(prog);
}

static void step_run(const char *cmd)
{
	int st;

	fflush(stdout);
	st = system(cmd);
	check(st != -1 && WIFEXITED(st) && !WEXITSTATUS(st), "run %s", cmd);
}

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (i < argc) {
		char *step = argv[i], **a = argv + i + 1;
		int left = argc - i - 1, used = 0;

#define NEED(n)                                                                      \
	do {                                                                         \
		if (left < (n)) {                                                    \
			fprintf(stderr, "tapx-conn: %s takes %d arguments\n", step, n); \
			return 2;                                                    \
		}                                                                    \
		used = (n);                                                          \
	} while (0)
		if (!strcmp(step, "tap")) {
			NEED(3);
			step_tap(a);
		} else if (!strcmp(step, "listen")) {
			NEED(2);
			step_listen(a);
		} else if (!strcmp(step, "connect")) {
			NEED(2);
			step_connect(a);
		} else if (!strcmp(step, "sockwrite")) {
			step_sockwrite();
		} else if (!strcmp(step, "ping")) {
			NEED(1);
			step_ping(a);
		} else if (!strcmp(step, "send")) {
			NEED(5);
			step_send(a, left, &used);
		} else if (!strcmp(step, "reply")) {
			NEED(2);
			step_reply(a);
		} else if (!strcmp(step, "recv") && left >= 4 && !strcmp(a[2], "icmp")) {
			recv_step(tap_named(a[0]), atoi(a[1]), 1, atoi(a[3]), 0);
			used = 4;
		} else if (!strcmp(step, "recv")) {
			NEED(5);
			if (strcmp(a[2], "tcp") || parse_flags(a[3]) < 0) {
				fprintf(stderr, "tapx-conn: recv TAP N tcp FLAGS PORT | recv TAP N icmp TYPE\n");
				return 2;
			}
			recv_step(tap_named(a[0]), atoi(a[1]), 0, parse_flags(a[3]), atoi(a[4]));
		} else if (!strcmp(step, "devmap")) {
			NEED(3);
			step_devmap(a);
		} else if (!strcmp(step, "run")) {
			NEED(1);
			step_run(a[0]);
		} else {
			fprintf(stderr, "tapx-conn: unknown step %s (see the comment at the top of tapx-conn.c)\n",
				step);
			return 2;
		}
#undef NEED
		i += 1 + used;
	}
	return failures ? 1 : 0;
}
