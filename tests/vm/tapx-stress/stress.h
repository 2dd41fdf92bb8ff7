/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-stress: what its files share. Its files:
 *   main.c    usage, options, the run
 *   record.c  operation kinds, outcomes, the stable devices, the generator
 *   sys.c     rtnetlink, ethtool -S, devices, pinned BPF objects
 *   frames.c  frames written to and read from the stable devices
 *   batch.c   TAPXSUBMIT and TAPXRECV on the stable devices
 *   churn.c   the churn devices' operations
 *   worker.c  which operation next, the workers' loop
 *   parent.c  setup, the workers' end, accounting, cleanup
 *   probe.c   --probe-vnet
 */
#ifndef TAPX_STRESS_H
#define TAPX_STRESS_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <arpa/inet.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/tapx.h>

#include "../tapx-test.h"

#define MAXW 8
#define NSLOT 3
#define NSTABLE 3
#define POOL 140000
#define MAXT 70000
#define VNET_SZ 10
#define PI_SZ 4
/* Headroom of a passed skb after eth_type_trans (256 + ETH_HLEN). */
#define PASS_HEADROOM 270
/* Kernel memory: access_ok() refuses it. */
#define BAD_KERNEL ((void *)0xffff888000000000UL)

enum op {
	OP_WRITE_S,
	OP_READ_S,
	OP_WRITE_C,
	OP_READ_C,
	OP_SETIFF,
	OP_GETIFF,
	OP_PERSIST,
	OP_OWNER,
	OP_GROUP,
	OP_VNETHDRSZ,
	OP_OFFLOAD,
	OP_SNDBUF,
	OP_VNETLE,
	OP_VNETBE,
	OP_CARRIER,
	OP_GETTERS,
	OP_BADIOCTL,
	OP_XDP,
	OP_QUEUE,
	OP_LINK,
	OP_DELLINK,
	OP_CLOSE,
	OP_RMMOD,
	OP_SUBMIT_S,
	OP_RECV_S,
	OP_FILTER,
	NR_OPS,
};

/* What one worker saw on one stable device. */
struct sacct {
	uint64_t w_ok; /* full length returned */
	uint64_t w_einval; /* malformed: rx_errors */
	uint64_t w_efault_meta; /* header unreadable: rx_dropped */
	uint64_t w_efault_fill; /* frame unreadable: rx_dropped */
	uint64_t w_vfs; /* refused before the driver: no counter */
	uint64_t w_gap; /* headers turned to zero (see gen_vnet) */
	uint64_t r_ok; /* frames read (ret > 0) */
	uint64_t r_consumed; /* reads that took a frame off the ring */
	/* TAPXSUBMIT/TAPXRECV: their frames are also in w_ok, w_einval,
	 * r_ok and r_consumed */
	uint64_t b_ok, b_einval; /* submitted frames consumed: 0, -EINVAL */
	uint64_t b_stop; /* frames a submit stopped at (-EFAULT): uncounted */
	uint64_t b_recv; /* frames taken by TAPXRECV */
};

struct wstats {
	uint64_t ok[NR_OPS], exp[NR_OPS], unexp[NR_OPS];
	struct sacct s[NSTABLE];
	uint64_t bytes_written;
	int nreports;
};

struct shared {
	struct wstats w[MAXW];
};

struct stable {
	const char *name;
	short flags;
	int detach; /* may be left without a program */
	int fd;
	int meta; /* PI + vnet header bytes in front of every frame */
};

#define EXP(...) ((const int[]){ __VA_ARGS__, 0 })
struct estats {
	int n;
	char (*names)[ETH_GSTRING_LEN];
	uint64_t *v;
};

enum wres { WR_OK, WR_EINVAL, WR_EFAULT_META, WR_EFAULT_FILL, WR_VFS, WR_ZERO };

/* Frames of one TAPXSUBMIT: BATCH_ROOM bytes (touched as needed), then an
 * unmapped page. */
#define BATCH_ROOM (8 << 20)
struct slot {
	int fd;
	char name[IFNAMSIZ];
};

/* main.c */
extern const char *node;
extern const char *progdir;
extern const char *portmap;
extern int nworkers;
extern unsigned int features;
extern int prog_fd[4]; /* pass, drop, tx, redirect */
extern const char *const prog_name[4];

/* record.c */
/* An address userspace may pass but is not mapped (see main). */
extern char *bad_user;
extern const char *const op_name[NR_OPS];
extern const int op_weight[NR_OPS];
int op_only_fails(int op);
int op_never_fails(int op);
extern struct shared *sh;
extern struct wstats *me;
extern int worker_id;
extern struct stable st[NSTABLE];
extern uint64_t rng;
uint64_t rnd(void);
unsigned int rn(unsigned int n);
void outcome(int op, int err, const int *exp, const char *ctx);

/* sys.c */
extern int nl_fd; /* one per process: never shared across fork */
int xdp_set(const char *dev, int prog, unsigned int flags);
int link_up(const char *dev, int up);
int link_del(const char *dev);
int set_mtu(const char *dev, int mtu);
int ethtool_stats(const char *dev, struct estats *e);
uint64_t est(const struct estats *e, const char *dev, const char *k);
int node_open(int nonblock);
int set_iff(int fd, const char *name, short flags);
int bpf_obj_get(const char *path);

/* frames.c */
extern unsigned char *pool; /* random bytes, shared read-only */
extern unsigned char *wbuf;
extern unsigned char *rbuf;
extern int uso;
int kernel_at_least(int major, int minor);
void put_l3(unsigned char *f, size_t flen);
size_t gen_size(void);
void fill_frame(unsigned char *buf, size_t T, int meta, int vnet,
		struct sacct *acct, int *fixed_gap);
int gen_write(struct iovec *iov, size_t T, int meta, int vnet,
	      struct sacct *acct, size_t *bad_at, int *vfs,
	      int *fixed_gap);
ssize_t do_write(int fd, struct iovec *iov, int niov);
enum wres predict_buf(const struct stable *s, const unsigned char *buf,
		      size_t T, size_t bad_at, int vfs, int niov);
void op_write_stable(void);
void op_read_stable(void);

/* batch.c */
extern unsigned char *bbuf;
extern struct tapx_desc *bdesc; /* TAPX_BATCH_MAX + 1 */
void op_submit_stable(void);
void op_recv_stable(void);

/* churn.c */
extern struct slot slots[NSLOT];
extern int scratch_fd; /* never attached */
extern int mq_fd[2];
extern char mq_name[IFNAMSIZ];
void churn_name(char *buf, int w, int s);
void slot_close(struct slot *sl);
void op_setiff(void);
void op_dev_ioctl(int op);
void op_getiff(void);
void op_getters(void);
void op_badioctl(void);
void op_filter(void);
void op_write_churn(void);
void alarm_wake(int sig);
void op_read_churn(void);
void op_xdp(void);
void op_queue(void);
void op_link(void);
void op_dellink(void);
void op_close(void);
void op_rmmod(void);

/* worker.c */
double now(void);
void worker(int w, uint64_t seed, double end, double hard_end);

/* parent.c */
int setup(void);
void reap(pid_t *pid, double deadline);
void print_table(struct wstats *t);
void account(struct wstats *t);
void cleanup(void);

/* probe.c */
int probe_vnet(void);

#endif /* TAPX_STRESS_H */
