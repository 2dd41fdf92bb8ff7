// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-fuzz's system calls beside tapx's own: rtnetlink, bpf maps,
 * the timers that end a blocking call, io_uring by raw syscalls.
 */
#include "fuzz.h"

/* 0 or -1 with errno from the kernel's answer. */
int nl_talk(struct nlreq *r)
{
	static __thread unsigned int seq;
	char buf[8192];
	struct nlmsghdr *h;
	ssize_t n;

	if (T->nl < 0) {
		T->nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (T->nl < 0)
			return -1;
		struct timeval tv = { .tv_sec = 5 };
		setsockopt(T->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	}
	r->nh.nlmsg_seq = ++seq;
	if (send(T->nl, r, r->nh.nlmsg_len, 0) < 0)
		return -1;
	for (;;) {
		n = recv(T->nl, buf, sizeof(buf), 0);
		if (n < 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				int e = -((struct nlmsgerr *)NLMSG_DATA(h))->error;

				errno = e;
				return e ? -1 : 0;
			}
		}
	}
}

/* ---- bpf ---- */

int bpf_obj_get(const char *path)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.pathname = (uint64_t)(unsigned long)path;
	return syscall(__NR_bpf, BPF_OBJ_GET, &a, sizeof(a));
}

int map_set(int fd, uint32_t key, uint32_t val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	a.value = (uint64_t)(unsigned long)&val;
	return syscall(__NR_bpf, BPF_MAP_UPDATE_ELEM, &a, sizeof(a));
}

int map_del(int fd, uint32_t key)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uint64_t)(unsigned long)&key;
	return syscall(__NR_bpf, BPF_MAP_DELETE_ELEM, &a, sizeof(a));
}

/* ---- timers: blocking calls end by a signal ---- */

void on_sig(int sig)
{
	(void)sig;
}

/*
 * Periodic until disarmed: a signal that lands before the call starts to
 * wait (the thread preempted between here and the syscall) is followed by
 * another one, so a blocking call always ends.
 */
void arm(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (ms % 1000) * 1000000 };
	struct itimerspec it = { .it_value = ts, .it_interval = ts };

	if (T->have_timer)
		timer_settime(T->timer, 0, &it, NULL);
}

void disarm(void)
{
	struct itimerspec it = {};

	if (T->have_timer)
		timer_settime(T->timer, 0, &it, NULL);
}

/* ---- io_uring (raw syscalls) ---- */

void uring_close(void)
{
	if (T->ring < 0)
		return;
	munmap(T->sq_map, T->sq_len);
	munmap(T->cq_map, T->cq_len);
	munmap(T->sqes, T->sqe_len);
	close(T->ring);
	T->ring = -1;
	T->inflight = 0;
}

static int uring_open(void)
{
	struct io_uring_params p;
	int fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 8, &p);
	if (fd < 0)
		return -1;
	T->entries = p.sq_entries;
	T->sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	T->cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	T->sqe_len = p.sq_entries * sizeof(struct io_uring_sqe);
	T->sq_map = mmap(NULL, T->sq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, IORING_OFF_SQ_RING);
	T->cq_map = mmap(NULL, T->cq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 fd, IORING_OFF_CQ_RING);
	T->sqes = mmap(NULL, T->sqe_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       IORING_OFF_SQES);
	if (T->sq_map == MAP_FAILED || T->cq_map == MAP_FAILED ||
	    T->sqes == MAP_FAILED) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	T->sq_head = (void *)((char *)T->sq_map + p.sq_off.head);
	T->sq_tail = (void *)((char *)T->sq_map + p.sq_off.tail);
	T->sq_mask = (void *)((char *)T->sq_map + p.sq_off.ring_mask);
	T->sq_array = (void *)((char *)T->sq_map + p.sq_off.array);
	T->cq_head = (void *)((char *)T->cq_map + p.cq_off.head);
	T->cq_tail = (void *)((char *)T->cq_map + p.cq_off.tail);
	T->cq_mask = (void *)((char *)T->cq_map + p.cq_off.ring_mask);
	T->cqes = (void *)((char *)T->cq_map + p.cq_off.cqes);
	T->ring = fd;
	T->inflight = 0;
	return 0;
}

static void uring_reap(void)
{
	unsigned int head = *T->cq_head, tail;

	tail = __atomic_load_n(T->cq_tail, __ATOMIC_ACQUIRE);
	while (head != tail) {
		head++;
		if (T->inflight)
			T->inflight--;
	}
	__atomic_store_n(T->cq_head, head, __ATOMIC_RELEASE);
}

/* Queues one read or write and submits it; waits a little for it. */
long uring_rw(int op, int fd, void *addr, unsigned int len)
{
	unsigned int tail, idx;
	struct io_uring_sqe *sqe;
	long r;

	if (T->ring < 0 && uring_open() < 0)
		return -1;
	uring_reap();
	if (T->inflight >= T->entries) {
		errno = EBUSY;
		return -1;
	}
	tail = *T->sq_tail;
	idx = tail & *T->sq_mask;
	sqe = &T->sqes[idx];
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = op;
	sqe->fd = fd;
	sqe->addr = (unsigned long)addr;
	sqe->len = len;
	sqe->off = rn(2) ? 0 : (uint64_t)-1;
	sqe->user_data = T->sh->calls;
	T->sq_array[idx] = idx;
	__atomic_store_n(T->sq_tail, tail + 1, __ATOMIC_RELEASE);
	T->inflight++;
	arm(100);
	r = syscall(__NR_io_uring_enter, T->ring, 1, rn(2), IORING_ENTER_GETEVENTS,
		    NULL, 0);
	disarm();
	uring_reap();
	return r;
}
