// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost's guest: one vhost-net instance, a tap queue and the
 * guest's two split rings laid out in our own memory, kicks and calls by
 * eventfd.
 */
#include "vhost.h"

/* The TX header length of the device vnet_open() makes next. */
int tx_hlen = VNET_HLEN;

static void mem_barrier(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

uint16_t used_idx(struct vring_q *q)
{
	uint16_t v = *(volatile uint16_t *)&q->used->idx;

	mem_barrier();
	return v;
}

void publish(struct vring_q *q, int id)
{
	q->avail->ring[q->avail_idx % RING_NUM] = id;
	mem_barrier(); /* the entry before the index that makes it visible */
	*(volatile uint16_t *)&q->avail->idx = ++q->avail_idx;
	mem_barrier();
}

void kick(struct vring_q *q)
{
	uint64_t one = 1;

	if (write(q->kick, &one, sizeof(one)) != sizeof(one))
		perror("kick");
}

/* Until the used index moves past last_used or ms pass; 1 if it moved. */
int wait_used(struct vring_q *q, int ms)
{
	double end = now_ns() + ms * 1e6;
	struct pollfd p = { .fd = q->call, .events = POLLIN };
	uint64_t v;

	while (used_idx(q) == q->last_used) {
		if (now_ns() > end)
			return 0;
		/* The call eventfd, but also the index itself: vhost may
		 * have skipped the signal (it coalesces them). */
		if (poll(&p, 1, 20) > 0 && read(q->call, &v, sizeof(v)) < 0)
			perror("call");
	}
	return 1;
}

uint8_t *buf_of(struct vring_q *q, int id)
{
	return q->bufs + (size_t)id * BUF_SIZE;
}

/* RX: hand descriptor id (a device-writable buffer) to vhost. */
void rx_post(struct vring_q *q, int id)
{
	q->desc[id].addr = (uintptr_t)buf_of(q, id);
	q->desc[id].len = BUF_SIZE;
	q->desc[id].flags = VRING_DESC_F_WRITE;
	q->desc[id].next = 0;
	publish(q, id);
}

static int vhost_call(struct vnet *v, unsigned long req, void *arg, const char *what)
{
	if (ioctl(v->vhost, req, arg) < 0) {
		int e = errno;

		check(0, "%s%s: %s: %s", prefix, v->ifname, what, strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

static int ring_setup(struct vnet *v, struct vring_q *q, uint8_t *area)
{
	struct vhost_vring_state num = { q->index, RING_NUM };
	struct vhost_vring_state base = { q->index, 0 };
	struct vhost_vring_addr addr = { .index = q->index };
	struct vhost_vring_file kf = { q->index, -1 }, cf = { q->index, -1 };

	/* desc, avail and used each in a page of their own: past any
	 * alignment either ring layout asks for. */
	q->desc = (void *)area;
	q->avail = (void *)(area + 4096);
	q->used = (void *)(area + 8192);
	q->bufs = area + 12288;
	q->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q->call = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	addr.desc_user_addr = (uintptr_t)q->desc;
	addr.avail_user_addr = (uintptr_t)q->avail;
	addr.used_user_addr = (uintptr_t)q->used;
	kf.fd = q->kick;
	cf.fd = q->call;
	if (vhost_call(v, VHOST_SET_VRING_NUM, &num, "VHOST_SET_VRING_NUM") ||
	    vhost_call(v, VHOST_SET_VRING_BASE, &base, "VHOST_SET_VRING_BASE") ||
	    vhost_call(v, VHOST_SET_VRING_ADDR, &addr, "VHOST_SET_VRING_ADDR") ||
	    vhost_call(v, VHOST_SET_VRING_KICK, &kf, "VHOST_SET_VRING_KICK") ||
	    vhost_call(v, VHOST_SET_VRING_CALL, &cf, "VHOST_SET_VRING_CALL"))
		return -1;
	for (int i = 0; i < RING_NUM; i++)
		q->free_ids[i] = RING_NUM - 1 - i;
	q->nfree = RING_NUM;
	return 0;
}

/*
 * --cpu: vhost's workers on the bench's CPU. 6.12's are threads of this
 * process and inherit its affinity; 6.1's are kthreads "vhost-PID" and are
 * moved here. One CPU for the guest and its worker: the frames of a cell
 * are handed over without waking another (emulated) CPU, whose wakeup
 * would time the host's scheduler, not the driver.
 */
static void workers_pin(void)
{
	char want[32], comm[32], path[300];
	struct dirent *d;
	cpu_set_t set;
	DIR *dir;

	if (bench_cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(bench_cpu, &set);
	snprintf(want, sizeof(want), "vhost-%d\n", (int)getpid());
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		FILE *f;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, want))
			sched_setaffinity(atoi(d->d_name), sizeof(set), &set);
		fclose(f);
	}
	if (dir)
		closedir(dir);
}

/*
 * A tap queue (name, a fresh fd of the node; an existing multi-queue
 * device when flags has IFF_MULTI_QUEUE) with a vhost-net instance bound to
 * it, RX buffers posted (rx_bufs of them). 0; -1 after a FAIL line, with
 * v->backend_errno set if only the backend was refused.
 */
int vnet_open(struct vnet *v, const char *name, int iff, int rx_bufs)
{
	struct vhost_memory *mt;
	uint64_t features, want = (1ULL << VIRTIO_NET_F_MRG_RXBUF) |
				  (1ULL << VIRTIO_F_VERSION_1);
	int hlen = tx_hlen, sndbuf = INT_MAX;
	struct vhost_vring_file be;

	memset(v, 0, sizeof(*v));
	v->vhost = -1;
	v->hlen = hlen;
	v->rx.kick = v->rx.call = v->tx.kick = v->tx.call = -1;
	snprintf(v->ifname, IFNAMSIZ, "%s", name);
	v->tap = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR | iff,
			  O_CLOEXEC);
	if (v->tap < 0) {
		check(0, "%s%s: open %s: %s", prefix, name, node, strerror(-v->tap));
		return -1;
	}
	/* As QEMU: the header vhost's features imply, sndbuf unlimited (the
	 * only case in which vhost batches TX). */
	if (ioctl(v->tap, TUNSETVNETHDRSZ, &hlen) || ioctl(v->tap, TUNSETSNDBUF, &sndbuf)) {
		check(0, "%s%s: TUNSETVNETHDRSZ/TUNSETSNDBUF: %s", prefix, name, strerror(errno));
		return -1;
	}
	if (if_set_mtu(name, MAX_FRAME - 14) || if_up(name, 1) ||
	    if_wait_tx_ready(name, 2000)) {
		check(0, "%s%s: MTU %d and up: %s", prefix, name, MAX_FRAME - 14, strerror(errno));
		return -1;
	}
	v->vhost = open("/dev/vhost-net", O_RDWR | O_CLOEXEC);
	if (v->vhost < 0) {
		check(0, "%s%s: open /dev/vhost-net: %s", prefix, name, strerror(errno));
		return -1;
	}
	v->mem_size = 2 * (12288 + (size_t)RING_NUM * BUF_SIZE);
	v->mem = mmap(NULL, v->mem_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (v->mem == MAP_FAILED) {
		check(0, "%s%s: mmap %zu: %s", prefix, name, v->mem_size, strerror(errno));
		v->mem = NULL;
		return -1;
	}
	if (vhost_call(v, VHOST_SET_OWNER, NULL, "VHOST_SET_OWNER") ||
	    vhost_call(v, VHOST_GET_FEATURES, &features, "VHOST_GET_FEATURES"))
		return -1;
	workers_pin();
	if ((features & want) != want) {
		check(0, "%s%s: vhost-net features 0x%llx lack 0x%llx", prefix, name,
		      (unsigned long long)features, (unsigned long long)want);
		return -1;
	}
	if (tx_hlen == TNL_HLEN) {
		uint64_t fa[3] = { 2, want, 1ULL << (TNL_F_HOST_UDP_TUNNEL_GSO - 64) };

		if (vhost_call(v, VHOST_SET_FEATURES_ARRAY, fa,
			       "VHOST_SET_FEATURES_ARRAY (HOST_UDP_TUNNEL_GSO)"))
			return -1;
	} else if (vhost_call(v, VHOST_SET_FEATURES, &want, "VHOST_SET_FEATURES")) {
		return -1;
	}
	/* Guest physical = our virtual: descriptors carry plain pointers. */
	mt = calloc(1, sizeof(*mt) + sizeof(mt->regions[0]));
	mt->nregions = 1;
	mt->regions[0].guest_phys_addr = (uintptr_t)v->mem;
	mt->regions[0].userspace_addr = (uintptr_t)v->mem;
	mt->regions[0].memory_size = v->mem_size;
	if (vhost_call(v, VHOST_SET_MEM_TABLE, mt, "VHOST_SET_MEM_TABLE")) {
		free(mt);
		return -1;
	}
	free(mt);
	v->rx.index = 0;
	v->tx.index = 1;
	if (ring_setup(v, &v->rx, v->mem) ||
	    ring_setup(v, &v->tx, v->mem + v->mem_size / 2))
		return -1;
	for (int i = 0; i < rx_bufs && i < RING_NUM; i++)
		rx_post(&v->rx, i);
	for (be.index = 0; be.index < 2; be.index++) {
		be.fd = v->tap;
		if (ioctl(v->vhost, VHOST_NET_SET_BACKEND, &be) < 0) {
			v->backend_errno = errno;
			check(0, "%s%s: VHOST_NET_SET_BACKEND vq %u on %s: %s%s", prefix, name,
			      be.index, node, strerror(v->backend_errno),
			      v->backend_errno == ENOTSOCK ? " (vhost-net found no tun socket behind this "
						  "fd: the driver does not serve vhost-net)" : "");
			return -1;
		}
	}
	kick(&v->rx);
	return 0;
}

void vnet_close(struct vnet *v)
{
	if (v->vhost >= 0)
		close(v->vhost);
	if (v->tap >= 0)
		close(v->tap);
	int fds[] = { v->rx.kick, v->rx.call, v->tx.kick, v->tx.call };

	for (unsigned int i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	if (v->mem)
		munmap(v->mem, v->mem_size);
	memset(v, 0, sizeof(*v));
	v->tap = v->vhost = -1;
	v->rx.kick = v->rx.call = v->tx.kick = v->tx.call = -1;
}

/* TX: returns the descriptors vhost has used to the free list. */
void tx_reap(struct vring_q *q)
{
	uint16_t end = used_idx(q);

	for (; q->last_used != end; q->last_used++)
		q->free_ids[q->nfree++] = q->used->ring[q->last_used % RING_NUM].id;
}

/*
 * Puts n frames (with header hdr) into the TX ring, as many per kick as
 * there are free descriptors (so that vhost sees batches), and waits for
 * vhost to use them all. Returns how many were not given back in time.
 */
int tx_frames(struct vnet *v, uint8_t **frames, const int *lens, int n,
	      const void *hdr)
{
	struct vring_q *q = &v->tx;
	int i = 0, target;

	/* Descriptors an earlier call lost (vhost drops a failed batch
	 * without using its descriptors) stay lost: wait only for ours. */
	tx_reap(q);
	target = q->nfree;
	while (i < n) {
		int queued = 0;

		tx_reap(q);
		while (i < n && q->nfree) {
			int id = q->free_ids[--q->nfree];
			uint8_t *b = buf_of(q, id);

			memcpy(b, hdr, v->hlen);
			memcpy(b + v->hlen, frames[i], lens[i]);
			q->desc[id].addr = (uintptr_t)b;
			q->desc[id].len = v->hlen + lens[i];
			q->desc[id].flags = 0;
			q->desc[id].next = 0;
			publish(q, id);
			i++;
			queued++;
		}
		if (queued)
			kick(q);
		if (i < n && !q->nfree && !wait_used(q, WAIT_MS))
			return n - i + target - q->nfree;
	}
	while (q->nfree < target) {
		tx_reap(q);
		if (q->nfree < target && !wait_used(q, WAIT_MS))
			break;
	}
	return target - q->nfree;
}
