/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-test.h - what the VM's static test tools share: the PASS/FAIL line
 * of a check, which the suites count (lib.sh's tool), opening a tap (and
 * from another user), packet sockets for test frames, the test frame
 * itself, interface flags, CPU pinning, option tables, and trace marks for
 * the no-skb proofs. Defined once in tapx-test.c, which tests/vm/Makefile
 * links into every tool.
 */
#ifndef TAPX_TEST_H
#define TAPX_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nlreq.h"

/* Checks failed so far; with quiet set, only failures are printed. */
extern int failures;
extern int quiet;
/* Printed after PASS/FAIL on every line ("stress: "), "" by default. */
extern const char *check_prefix;

/* One check: a "PASS ..." or "FAIL ..." line; failures are counted. */
void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A fresh fd of NODE attached to tap NAME (NULL: a new name); fd or -errno. */
int tap_open(const char *node, const char *name, int flags, int oflags);
/* tap_open() in a child that runs as uid/gid: 0, its errno, 100 if the
 * child could not change user, 255 if it died. */
int child_attach(const char *node, const char *name, int flags, uid_t uid, gid_t gid);
/* "NODE:NAME" into its two parts (in place); 0 or -1. */
int split_spec(char *spec, char **node, char **name);

/* Frames of the tests carry this ethertype (IEEE local experimental). */
#define ETHERTYPE_TEST 0x88b5

/* Test frame seq: broadcast from 02:00:00:00:00:01, the test ethertype,
 * seq in bytes 14-17 (frames of 18 bytes or more), then a pattern. */
void test_frame(uint8_t *f, int size, uint32_t seq);
/* A packet socket on NAME that sees every frame; -1 on error. */
int packet_open(const char *name);
/* Receives test frames (not our own transmissions) from a packet socket. */
int packet_recv(int s, uint8_t *buf, int len, int timeout_ms);

/* A BPF_PROG_TYPE_SOCKET_FILTER program returning r0; its fd, or -1. */
int socket_filter_load(int r0);
/* Set the MTU of NAME; 0 or -1. */
int if_set_mtu(const char *name, int mtu);
/* Set or clear IFF_UP on NAME; 0 or -1. */
int if_up(const char *name, int up);
int if_wait_tx_ready(const char *name, int timeout_ms);
int if_exists(const char *name);

/* CLOCK_MONOTONIC in ns. */
double now_ns(void);
/* Runs the calling thread on CPU cpu only; sched_setaffinity's result. */
int pin_cpu(int cpu);
/* The value of KEY=value on the kernel command line (the last one) in
 * val; 1, or 0 when KEY= is not there. */
int cmdline_value(const char *key, char *val, size_t len);
/* Prints "WHO PID kernel stack:" and /proc/PID/stack: what a stuck
 * process waits for in the kernel. */
void kernel_stack_print(const char *who, pid_t pid);
/* A pointer the kernel must refuse (EFAULT), not one the compiler knows. */
void *bad_ptr(void);
/* Set by on_alarm(), the SIGALRM handler of the timed loops. */
extern volatile sig_atomic_t stop;
void on_alarm(int sig);

/*
 * The options of a command, "--name VALUE" or "--name": a table ending
 * with a NULL name. kind: 's' (const char *), 'l' (long), 'i' (int), 'f'
 * (int set to 1, no value). Parses argv[first..argc-1]; 0, or -1 after
 * saying which option is unknown or lacks its value.
 */
struct topt {
	const char *name;
	char kind;
	void *dst;
};
int parse_topts(int argc, char **argv, int first, const struct topt *t);

/* With $ENV set, writes M into the trace buffer (begin/end of a loop). */
void trace_mark(const char *env, const char *m);


/*
 * Frames of IPv4 (tapx-test.c): a 16-bit ones' complement sum and its
 * fold; the Ethernet and IPv4 headers of a frame to a MAC, 10.99.0.2 ->
 * 10.99.0.1, with the transport header's ports FRAME_PORT - 1 ->
 * FRAME_PORT (returns the transport header).
 */
#define FRAME_PORT 9999
uint16_t frame_csum_fold(uint32_t sum);
uint32_t frame_csum_add(uint32_t sum, const void *p, int len);
uint8_t *frame_ip4_head(uint8_t *f, const uint8_t *mac, int proto, int iplen);
/* An IPv4 header (10.0.0.1 > 10.0.0.2, TTL 64, protocol proto) and a TCP
 * one (ACK, ports 0) after the Ethernet addresses of a frame of flen >= 54
 * bytes: the vnet offloads' frame. */
void frame_ip4_tcp(uint8_t *f, size_t flen, int proto);

/* A struct virtio_net_hdr_v1_hash_tunnel (6.17's <linux/virtio_net.h>). */
struct tnl_vnet {
	struct virtio_net_hdr h;
	uint16_t num_buffers, hash_lo, hash_hi, hash_report, padding;
	uint16_t outer_th, inner_nh;
};

/*
 * tnl_frame()'s headers: the outer transport (UDP) and the inner network
 * and transport header's offsets, as its vnet header gives them.
 */
#define TNL_OUTER_TH (14 + 20)
#define TNL_INNER_NH (TNL_OUTER_TH + 8 + 8 + 14)
#define TNL_INNER_TH (TNL_INNER_NH + 20)
int tnl_frame(uint8_t *f, const uint8_t *mac, int payload);
/*
 * tnl_frame()'s vnet header: GSO over a UDP tunnel (UDP_TUNNEL_IPV4|TCPV4,
 * @gso_size), NEEDS_CSUM at the inner TCP checksum, the offsets above.
 */
struct tnl_vnet tnl_vnet_hdr(uint16_t gso_size);
/* The running kernel is 6.17 or later: tun has GSO over UDP tunnels. */
int tnl_kernel(void);

#endif /* TAPX_TEST_H */
