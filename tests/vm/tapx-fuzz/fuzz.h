/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tapx-fuzz: what its files share. Its files:
 *   main.c    usage, options, the run
 *   gen.c     the generator, the call record, hostile pointers, frames, fds
 *   sys.c     rtnetlink, bpf maps, timers, io_uring
 *   calls.c   one function a call kind
 *   worker.c  per-process and per-thread state, the workers
 *   parent.c  kernel log, watchdog, epochs, report
 */
#ifndef TAPX_FUZZ_H
#define TAPX_FUZZ_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/io_uring.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/tapx.h>

#include "../tapx-test.h"

#define MAXP 8
#define MAXT 4
#define MAXW (MAXP * MAXT)
#define RINGMAX 128
#define NSLOTS 12 /* fds per process, shared by its threads */
#define ARENA (192 * 1024) /* per thread: frames and read buffers */
#define PG 4096
#define DESC_LEN 120
#define BAD_KERNEL 0xffff888000000000UL

/* ---- call kinds ---- */

#define KINDS(X)                                                              \
	X(OPEN, 6) X(CLOSE, 4) X(DUP, 2) X(SETIFF, 10) X(GETIFF, 2)          \
	X(PERSIST, 2) X(OWNER, 1) X(GROUP, 1) X(VNETHDRSZ, 3) X(OFFLOAD, 2)  \
	X(SNDBUF, 1) X(VNETLE, 1) X(VNETBE, 1) X(CARRIER, 1) X(FEATURES, 1)  \
	X(QUEUE, 4) X(TUNOTHER, 3) X(RANDIOCTL, 2) X(WRITE, 20) X(WRITEV, 8) \
	X(READ, 8) X(READV, 3) X(POLL, 2) X(SUBMIT, 14) X(RECV, 8)           \
	X(URING_W, 3) X(URING_R, 2) X(URING_RESET, 1) X(XDP, 4) X(MAPSET, 3) \
	X(LINK, 2) X(MTU, 1) X(MAC, 1) X(DELLINK, 2) X(DUMP, 1)              \
	X(ETHTOOL, 2) X(PKTSEND, 4) X(MPROTECT, 1) X(NAPIPARAM, 1)          \
	X(NETNS, 1) X(RMMOD, 1)

enum kind {
#define X(k, w) K_##k,
	KINDS(X)
#undef X
	NK
};

struct callrec {
	uint64_t seq;
	int kind;
	int done;
	long ret;
	int err;
	char desc[DESC_LEN];
};

#define NERR 140 /* errnos counted per kind; 0 = success */
struct wshared {
	volatile uint64_t calls;
	volatile int64_t busy_since; /* ns, 0 when between calls */
	volatile int cur_kind;
	volatile int tid;
	volatile int paused; /* epoch acknowledged */
	volatile unsigned int pos;
	struct callrec ring[RINGMAX];
	uint64_t count[NK];
	uint64_t ns[NK], max_ns[NK]; /* time in calls of each kind */
	uint64_t errs[NK][NERR];
};

struct gshared {
	volatile int stop;
	volatile pid_t netns_pid[2]; /* a process in the first netns, the second */
	volatile int epoch; /* odd: pause requested */
	volatile int closed[MAXP]; /* per process: its fds are closed */
	volatile uint64_t pause_closes; /* fds closed for pauses so far */
	struct wshared w[MAXW];
};

struct thr {
	int w; /* worker index */
	uint64_t rng;
	unsigned char *arena; /* ARENA bytes, then a PROT_NONE guard page */
	struct wshared *sh;
	timer_t timer;
	int have_timer;
	int nl; /* rtnetlink */
	int pkt; /* AF_PACKET */
	/* io_uring */
	int ring;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqes;
	void *sq_map, *cq_map;
	size_t sq_len, cq_len, sqe_len;
	unsigned int entries, inflight;
	struct iovec uiov[8][4];
	char desc[DESC_LEN];
};

/* Runs expression E as one recorded call of kind K; yields its result. */
#define CALL(K, E)                                                   \
	({                                                           \
		struct callrec *_c = call_begin(K);                  \
		long _r = (long)(E);                                 \
		call_end(_c, _r, errno);                             \
		_r;                                                  \
	})

/* main.c */
extern double opt_time;
extern uint64_t opt_seed;
extern int have_seed;
extern int nprocs;
extern int nthreads;
extern int ring_n;
extern int only;
extern uint64_t max_calls;
extern const char *node;
extern const char *ko;
extern const char *progdir;
extern const char *mapdir;
extern const char *basicdir;

/* gen.c */
extern __thread struct thr *T;
uint64_t rnd(void);
unsigned int rn(unsigned int n);
int chance(unsigned int n); /* 1 in n */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct callrec *call_begin(int kind);
void call_end(struct callrec *c, long ret, int err);
void *hostile(void *good, size_t len, int writable, const char **what);
size_t gen_frame(unsigned char *buf, size_t max, int pi, int vsz);
void guess_meta(int *pi, int *vsz);
int slot_fd(void);
const char *pick_name(char *buf);
const char *dev_name(char *buf);

/* sys.c */
int nl_talk(struct nlreq *r);
int bpf_obj_get(const char *path);
int map_set(int fd, uint32_t key, uint32_t val);
int map_del(int fd, uint32_t key);
void on_sig(int sig);
void arm(long ms);
void disarm(void);
void uring_close(void);
long uring_rw(int op, int fd, void *addr, unsigned int len);

/* calls.c */
extern const char *const kname[NK];
int write_file(const char *path, const char *s);
int load_tapx(const char *params);
void one_call(void);

/* worker.c */
extern struct gshared *g;
extern int proc_id;
extern int unpriv;
extern int slots[NSLOTS];
extern int nprog;
extern int progs[8];
extern int fd_fuzz_frags;
extern int fd_fuzz_linear;
extern int no_generic_frags;
extern int map_ports[2];
extern int map_cpus[2];
extern int map_ctl;
extern int map_ifindex;
extern unsigned char *flaky; /* one page mprotect()ed on and off */
extern unsigned char *ro_page; /* read-only, for writes into it */
extern void *unmapped; /* an address with nothing mapped */
void proc_main(int p, uint64_t seed, int64_t end);

/* parent.c */
extern int kmsg;
int scan_kmsg(void);
extern uint64_t seed;
void fail_report(const char *why);
extern pid_t pids[MAXP];
int children_alive(void);
extern int64_t HANG_NS;
int check_hang(void);
int do_epoch(int n, char *why, size_t whylen);
void summary(void);

#endif /* TAPX_FUZZ_H */
