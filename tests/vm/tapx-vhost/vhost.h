/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-vhost: what its files share. Its files:
 *   main.c    usage and options
 *   vnet.c    the emulated guest: rings in our memory, vhost-net set up
 *   frames.c  frames made, sent and collected on both sides
 *   host.c    XDP by netlink, the pinned maps, the sendmsg kprobe, counters
 *   tests.c   tapx-vhost run: the cases
 *   bench.c   tapx-vhost bench: the cells
 */
#ifndef TAPX_VHOST_H
#define TAPX_VHOST_H

#define _GNU_SOURCE /* sched_setaffinity() and CPU_SET */
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <linux/tcp.h>
#include <linux/vhost.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>
#include <linux/virtio_config.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <dirent.h>
#include <limits.h>
#include <sched.h>

#include "../tapx-test.h"

/* The vnet header of VERSION_1 / MRG_RXBUF: what QEMU sets on the tap. */
#define VNET_HLEN 12
/*
 * The tnl case's header, struct virtio_net_hdr_v1_hash_tunnel: what
 * vhost-net (6.17 on) gives the tap with VIRTIO_NET_F_HOST_UDP_TUNNEL_GSO
 * (feature 67, set through the feature array).
 */
#define TNL_HLEN 24
#define TNL_F_HOST_UDP_TUNNEL_GSO 67
#ifndef VHOST_SET_FEATURES_ARRAY
#define VHOST_SET_FEATURES_ARRAY _IOW(VHOST_VIRTIO, 0x83, __u64)
#endif
/* Ring size of both queues, and the buffer behind every descriptor: one
 * buffer holds a header and a 64 KiB frame, so every RX frame is one used
 * element (num_buffers 1) and can be compared in place. */
#define RING_NUM 64
#define BUF_SIZE (65536 + 4096)
#define MAX_FRAME 65535
#define WAIT_MS 3000
/* What vhost-net's RX side takes off a tap's ring at once (VHOST_NET_BATCH). */
#define VHOST_RX_BATCH 64
#define QUIET_MS 400

struct vring_q {
	unsigned int index; /* 0 RX, 1 TX */
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint8_t *bufs; /* RING_NUM buffers of BUF_SIZE */
	uint16_t avail_idx, last_used;
	int kick, call;
	int free_ids[RING_NUM], nfree; /* TX: descriptors not in flight */
};

struct vnet {
	char ifname[IFNAMSIZ];
	int tap, vhost;
	uint8_t *mem;
	size_t mem_size;
	struct vring_q rx, tx;
	int backend_errno; /* of VHOST_NET_SET_BACKEND, 0 if bound */
	int hlen; /* the TX vnet header's length: VNET_HLEN, or TNL_HLEN */
};

struct frameset {
	int n;
	uint8_t **f;
	int *len;
	int *seen;
	struct virtio_net_hdr_mrg_rxbuf hdr; /* TX header of every frame */
};

struct rx_result {
	int got, stray, bad_len, bad_hdr;
	int gso_hdr; /* frames whose vnet header has a gso_type */
};

/* The guard (examples/guest-guard.policy) for the bench frame's guest:
 * its MAC and address, every frame passes; tap-accel attaches it. */
#define GUARD_NAME "tapx-vhost-guard"
#define GUARD_POLICY "/tmp/" GUARD_NAME ".policy"
/* tap-accel forwarding from one guest's tap to the other's. */
#define FWD_NAME "tapx-vhost-fwd"
#define FWD_POLICY "/tmp/" FWD_NAME ".policy"

/* main.c */
extern const char *node;
extern const char *base_name;
extern const char *label;
extern int gso_tx_drops;
extern const char *sizes_opt;
extern const char *tests_opt;
extern const char *pins;
extern const char *maps;
extern const char *sendmsg_probe;
extern int count;
extern int gso_size;
extern char prefix[64];
extern int bench_cpu;

/* vnet.c */
extern int tx_hlen;
uint16_t used_idx(struct vring_q *q);
void publish(struct vring_q *q, int id);
void kick(struct vring_q *q);
int wait_used(struct vring_q *q, int ms);
uint8_t *buf_of(struct vring_q *q, int id);
void rx_post(struct vring_q *q, int id);
int vnet_open(struct vnet *v, const char *name, int iff, int rx_bufs);
void vnet_close(struct vnet *v);
void tx_reap(struct vring_q *q);
int tx_frames(struct vnet *v, uint8_t **frames, const int *lens, int n,
	      const void *hdr);

/* frames.c */
void frames_free(struct frameset *s);
void frames_make(struct frameset *s, int n, int size, int gso, int udp_flows);
int frames_match(struct frameset *s, const uint8_t *p, int len);
int frames_seen(struct frameset *s);
int ours(const uint8_t *p, int len);
void far_drain(int ps);
void far_collect(int ps, struct frameset *s, int ms, int *stray);
int far_send(int ps, const char *name, struct frameset *s);
void rx_collect(struct vnet *v, struct frameset *s, int ms, int repost,
		struct rx_result *r);
void rx_refill(struct vnet *v, int from, int to);

/* host.c */
int xdp_set(const char *name, const char *prog);
int dellink(const char *name);
long xdp_count(int verdict);
int set_redirect_port(const char *name);
extern int probe_active;
void probe_on(void);
void probe_off(void);
long keyed_value(FILE *f, int (*f_close)(FILE *), const char *fmt,
		 const char *key);
long probe_hits(void);
int batched_size(int size, int prog);
long if_stat(const char *ifname, const char *what);
int run_cmd(const char *fmt, ...);
int policy_write(const char *path, const char *text);

/* tests.c */
int size_is_gso(int size);
int want(const char *t);
int cmd_run(int argc, char **argv);

/* bench.c */
int cmd_bench(int argc, char **argv);

#endif /* TAPX_VHOST_H */
