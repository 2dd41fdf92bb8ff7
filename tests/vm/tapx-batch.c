// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-batch - the VM suite's driver for the batch ioctls of tapx
 * (TAPXSUBMIT, TAPXRECV; kmod/uapi/linux/tapx.h). Static, no libraries.
 *
 *   tapx-batch run --src NODE:NAME --size S[,S...] --count N --batch B
 *       [--pi] [--vnet]
 *       [--self N] [--dst tap:NODE:NAME|packet:NAME] [--expect N] [--quiet]
 *                 submit N frames in batches of B; read them back with
 *                 TAPXRECV (--self, tap dst) or a packet socket, in order
 *   tapx-batch mixed NODE:SRC NODE:DST SIZE N
 *                 frames choose DROP/TX/PASS/REDIRECT by byte 18 (program
 *                 xdp_by_byte), runts in the middle of batches; prints
 *                 "drop=D tx=T pass=P redirect=R malformed=M"
 *   tapx-batch efault NODE:NAME K N [SIZE[,SIZE...]] [tail]
 *                 a bad frame address at descs[K] (tail: only its first
 *                 30 bytes readable); frame i is SIZE[i % count] bytes
 *   tapx-batch errors NODE:NAME       bad batches, bad frames, recv cases
 *   tapx-batch recvmix NODE:NAME N    skbs and xdp_frames in one TAPXRECV,
 *                                     with vnet headers (needs xdp_tx)
 *   tapx-batch bench NODE NAME SIZE N ns per frame: /dev/null, write(),
 *                                     TAPXSUBMIT with batch 1, 8, 64, 256
 * With TAPXB_MARK=1, run brackets its submit loop in the trace buffer.
 * Exit status: 0 when every check passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/tapx.h>

#include "tapx-test.h"

#define MAXF 65535
#define VNET_SZ ((int)sizeof(struct virtio_net_hdr))
#define PI_SZ ((int)sizeof(struct tun_pi))
#define RBUF (MAXF + 64)
#define NRECV 64
/* Byte 18 of a frame: the verdict xdp_by_byte picks (0xff: none). */
enum { V_DROP, V_TX, V_PASS, V_REDIRECT, V_NONE = 0xff };






/* Sends a frame into NAME through a packet socket: it reaches the reader. */
static int inject(int s, const char *name, const uint8_t *f, int size)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };

	sll.sll_ifindex = if_nametoindex(name);
	return sendto(s, f, size, 0, (void *)&sll, sizeof(sll)) == size ? 0 :
									   -1;
}

/* Frame seq: broadcast, test ethertype, seq, verdict byte, a pattern. */
static void make_frame(uint8_t *f, int size, uint32_t seq, int verdict)
{
	test_frame(f, size, seq);
	f[18] = verdict;
}

static int frame_ok(const uint8_t *f, int len, int size, uint32_t seq,
		    int verdict)
{
	static uint8_t want[MAXF];

	if (len != size)
		return 0;
	make_frame(want, size, seq, verdict);
	return !memcmp(f, want, size);
}

static int batch_ioctl(int fd, unsigned long cmd, struct tapx_desc *d,
		       unsigned int n, unsigned int *done)
{
	struct tapx_batch b = { .descs = (uintptr_t)d, .count = n, .done = 77 };
	int r = ioctl(fd, cmd, &b);

	*done = b.done;
	return r < 0 ? -errno : r;
}

/*
 * A receiver: a tap fd read with TAPXRECV, or a packet socket. It expects
 * the sequence numbers in want[] in that order.
 */
struct sink {
	int fd, is_packet, pi, vnet, size, verdict;
	uint32_t *want;
	long nwant, got, bad, recvs;
};

static uint8_t rbufs[NRECV][RBUF];

/* run --size A,B,...: frame seq is sizes[seq % nsizes] bytes (size 0). */
static int sizes[16], nsizes;

static int size_of(int size, uint32_t seq)
{
	return size ? size : sizes[seq % nsizes];
}

/*
 * Parses SIZE or SIZE,SIZE,... (each min..MAXF) into sizes[]. Returns the
 * size, 0 for a list, -1 when malformed; *max gets the largest.
 */
static int parse_sizes(const char *arg, int min, int *max)
{
	char buf[256], *tok, *end;
	long sz;

	snprintf(buf, sizeof(buf), "%s", arg);
	*max = nsizes = 0;
	for (tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
		sz = strtol(tok, &end, 10);
		if (*end || sz < min || sz > MAXF ||
		    nsizes == (int)(sizeof(sizes) / sizeof(sizes[0])))
			return -1;
		sizes[nsizes++] = sz;
		*max = sz > *max ? sz : *max;
	}
	if (!nsizes)
		return -1;
	return nsizes > 1 ? 0 : sizes[0];
}

static void sink_take(struct sink *s, const uint8_t *r, int n)
{
	int pi = s->pi ? PI_SZ : 0, off = pi + (s->vnet ? VNET_SZ : 0);
	static const uint8_t zero[VNET_SZ];
	uint32_t seq = s->got < s->nwant ? s->want[s->got] : 0;

	/* Only the test's frames count (not the stack's own traffic). */
	if (n < off + 19 || r[off + 12] != ETHERTYPE_TEST >> 8 ||
	    r[off + 13] != (ETHERTYPE_TEST & 0xff))
		return;
	if (s->got < s->nwant && n >= off &&
	    (!s->vnet || !memcmp(r + pi, zero, VNET_SZ)) &&
	    frame_ok(r + off, n - off, size_of(s->size, seq), seq, s->verdict))
		s->got++;
	else
		s->bad++;
}

/* Reads what has arrived; waits up to wait_ms for the first frame. */
static void sink_drain(struct sink *s, int wait_ms)
{
	struct tapx_desc d[NRECV];
	unsigned int done, i;
	int n, r;

	for (;;) {
		if (s->is_packet) {
			n = packet_recv(s->fd, rbufs[0], RBUF, wait_ms);
			if (n < 0)
				return;
			sink_take(s, rbufs[0], n);
			continue;
		}
		if (wait_ms) {
			struct pollfd p = { .fd = s->fd, .events = POLLIN };

			if (poll(&p, 1, wait_ms) != 1)
				return;
		}
		for (i = 0; i < NRECV; i++)
			d[i] = (struct tapx_desc){ (uintptr_t)rbufs[i], RBUF,
						   1 };
		r = batch_ioctl(s->fd, TAPXRECV, d, NRECV, &done);
		if (r == -EAGAIN && !done)
			return;
		s->recvs++;
		if (r || !done || done > NRECV) {
			s->bad++;
			return;
		}
		for (i = 0; i < done; i++) {
			if (d[i].status)
				s->bad++;
			else
				sink_take(s, rbufs[i], d[i].len);
		}
	}
}

static int sink_open(struct sink *s, const char *spec, int size)
{
	static char db[256];
	char *node, *name;

	memset(s, 0, sizeof(*s));
	s->size = size;
	s->verdict = V_NONE;
	snprintf(db, sizeof(db), "%s", spec);
	if (!strncmp(db, "packet:", 7)) {
		s->fd = packet_open(db + 7);
		s->is_packet = 1;
	} else if (!strncmp(db, "tap:", 4) &&
		   !split_spec(db + 4, &node, &name)) {
		s->fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, O_NONBLOCK);
	} else {
		s->fd = -1;
	}
	return s->fd;
}

/* ---- run ---- */

static uint8_t *frames_alloc(long n, int size)
{
	uint8_t *f = malloc((size_t)n * (size + VNET_SZ));

	if (!f) {
		perror("malloc");
		exit(1);
	}
	return f;
}

static int cmd_run(int argc, char **argv)
{
	long count = 1, expect_self = -1, expect_dst = -1, i, j, ok = 0, calls = 0;
	int size, maxsize, pi = 0, vnet = 0, batch = 64, fd, hlen, stride;
	static const char *const hdrs[] = { "", " vnet", " PI", " PI+vnet" };
	const char *h;
	const char *src = NULL, *dstspec = NULL, *sizearg = "60";
	struct sink self = { .fd = -1 }, dst = { .fd = -1 };
	struct tapx_desc d[TAPX_BATCH_MAX];
	char buf[256], *node, *name;
	unsigned int done;
	uint32_t *seqs;
	uint8_t *fr;

	const struct topt opts[] = {
		{ "src", 's', &src },	      { "size", 's', &sizearg },
		{ "count", 'l', &count },     { "batch", 'i', &batch },
		{ "vnet", 'f', &vnet },	      { "pi", 'f', &pi },
		{ "self", 'l', &expect_self }, { "dst", 's', &dstspec },
		{ "expect", 'l', &expect_dst }, { "quiet", 'f', &quiet },
		{ NULL, 0, NULL },
	};

	if (parse_topts(argc, argv, 2, opts))
		return 2;
	/* One size, or a list that the frames cycle through in one batch. */
	size = parse_sizes(sizearg, 19, &maxsize);
	if (!src || size < 0 || batch < 1 || batch > TAPX_BATCH_MAX)
		return 2;
	snprintf(buf, sizeof(buf), "%s", src);
	if (split_spec(buf, &node, &name))
		return 2;

	seqs = calloc(count, sizeof(*seqs));
	for (i = 0; i < count; i++)
		seqs[i] = i;
	if (dstspec && sink_open(&dst, dstspec, size) < 0) {
		check(0, "batch run: open destination %s", dstspec);
		return 1;
	}
	dst.want = seqs;
	dst.nwant = count;
	fd = tap_open(node, name,
		      IFF_TAP | (pi ? 0 : IFF_NO_PI) | (vnet ? IFF_VNET_HDR : 0),
		      O_NONBLOCK);
	if (fd < 0) {
		check(0, "batch run: attach %s: %s", src, strerror(-fd));
		return 1;
	}
	self = (struct sink){ .fd = fd, .pi = pi, .vnet = vnet, .size = size,
			      .verdict = V_NONE, .want = seqs, .nwant = count };

	/* One buffer per frame of a batch: a batch is one system call. */
	hlen = (pi ? PI_SZ : 0) + (vnet ? VNET_SZ : 0);
	stride = hlen + maxsize;
	fr = frames_alloc(batch, PI_SZ + maxsize);
	trace_mark("TAPXB_MARK", "tapx-batch-begin");
	for (i = 0; i < count; i += batch) {
		int n = count - i < batch ? count - i : batch, r;

		for (j = 0; j < n; j++) {
			uint8_t *p = fr + j * stride;
			int sz = size_of(size, i + j);

			memset(p, 0, hlen);
			make_frame(p + hlen, sz, i + j, V_NONE);
			d[j] = (struct tapx_desc){ (uintptr_t)p, hlen + sz, 1 };
		}
		r = batch_ioctl(fd, TAPXSUBMIT, d, n, &done);
		calls++;
		if (!r && done == (unsigned int)n) {
			for (j = 0; j < n; j++)
				ok += !d[j].status;
		} else if (!failures++) {
			fprintf(stderr, "submit at %ld: %d done %u\n", i, r,
				done);
		}
		/* Keep the rings from filling up. */
		if (expect_self >= 0)
			sink_drain(&self, 0);
		if (dst.fd >= 0)
			sink_drain(&dst, 0);
	}
	trace_mark("TAPXB_MARK", "tapx-batch-end");
	if (expect_self >= 0)
		sink_drain(&self, 200);
	if (dst.fd >= 0)
		sink_drain(&dst, 200);

	h = hdrs[pi * 2 + vnet];
	check(ok == count, "batch %s %s B x%d%s: %ld/%ld frames status 0 in %ld calls",
	      src, sizearg, batch, h, ok, count, calls);
	if (expect_self >= 0)
		check(self.got == expect_self && !self.bad,
		      "batch %s %s B x%d%s: read back %ld in order (want %ld), %ld bad, %ld TAPXRECV",
		      src, sizearg, batch, h, self.got, expect_self,
		      self.bad, self.recvs);
	if (expect_dst >= 0)
		check(dst.got == expect_dst && !dst.bad,
		      "batch %s %s B x%d%s: %s got %ld in order (want %ld), %ld bad",
		      src, sizearg, batch, h, dstspec, dst.got, expect_dst,
		      dst.bad);
	close(fd);
	if (dst.fd >= 0)
		close(dst.fd);
	return failures ? 1 : 0;
}

/* ---- mixed verdicts ---- */

static int verdict_of(long seq)
{
	/* Not periodic in 4, so neighbours take different verdicts. */
	return (seq * 7 + seq / 5) % 4;
}

static int cmd_mixed(int argc, char **argv)
{
	long size, count, i, j, nv[4] = { 0 }, malformed = 0, calls = 0;
	struct sink tx = { 0 }, pass = { 0 }, redir = { 0 };
	struct tapx_desc d[64];
	char sb[256], db[256], *snode, *sname, *dnode, *dname;
	uint32_t *w[4];
	unsigned int done;
	int fd, bad_status = 0;
	uint8_t *fr;

	if (argc != 6)
		return 2;
	snprintf(sb, sizeof(sb), "%s", argv[2]);
	snprintf(db, sizeof(db), "%s", argv[3]);
	size = atol(argv[4]);
	count = atol(argv[5]);
	if (split_spec(sb, &snode, &sname) || split_spec(db, &dnode, &dname))
		return 2;
	for (i = 0; i < 4; i++)
		w[i] = calloc(count, sizeof(uint32_t));
	for (i = 0; i < count; i++) {
		int v = verdict_of(i);

		w[v][nv[v]++] = i;
	}

	fd = tap_open(snode, sname, IFF_TAP | IFF_NO_PI, O_NONBLOCK);
	tx = (struct sink){ .fd = fd, .size = size, .want = w[V_TX],
			    .nwant = nv[V_TX] };
	pass = (struct sink){ .fd = packet_open(sname), .is_packet = 1,
			      .size = size, .want = w[V_PASS],
			      .nwant = nv[V_PASS] };
	redir = (struct sink){ .fd = tap_open(dnode, dname, IFF_TAP | IFF_NO_PI,
					      O_NONBLOCK),
			       .size = size, .want = w[V_REDIRECT],
			       .nwant = nv[V_REDIRECT] };
	if (fd < 0 || pass.fd < 0 || redir.fd < 0) {
		check(0, "mixed: open %s, packet socket, %s", argv[2], argv[3]);
		return 1;
	}
	tx.verdict = V_TX;
	pass.verdict = V_PASS;
	redir.verdict = V_REDIRECT;

	/* 63 frames and, at index 31 of each batch, a 10-byte runt. */
	fr = frames_alloc(64, size);
	for (i = 0; i < count; i += 63) {
		int n = count - i < 63 ? count - i : 63, k = 0, r, mid = n / 2;

		for (j = 0; j < n; j++) {
			uint8_t *p = fr + (j + (j >= mid)) * size;

			make_frame(p, size, i + j, verdict_of(i + j));
			d[j + (j >= mid)] =
				(struct tapx_desc){ (uintptr_t)p, size, 1 };
		}
		d[mid] = (struct tapx_desc){ (uintptr_t)(fr + mid * size), 10,
					     1 };
		make_frame(fr + mid * size, 19, 0, V_DROP);
		r = batch_ioctl(fd, TAPXSUBMIT, d, n + 1, &done);
		calls++;
		if (r || done != (unsigned int)n + 1)
			bad_status++;
		for (k = 0; k <= n; k++)
			if (d[k].status != (k == mid ? -EINVAL : 0))
				bad_status++;
		malformed++;
		sink_drain(&tx, 0);
		sink_drain(&redir, 0);
		sink_drain(&pass, 0);
	}
	sink_drain(&tx, 200);
	sink_drain(&redir, 200);
	sink_drain(&pass, 200);

	check(!bad_status,
	      "mixed %ld B: %ld calls return 0, done = count, status 0 but -EINVAL for the runt",
	      size, calls);
	check(tx.got == nv[V_TX] && !tx.bad, "mixed %ld B: TX read back %ld/%ld in order, %ld bad",
	      size, tx.got, nv[V_TX], tx.bad);
	check(redir.got == nv[V_REDIRECT] && !redir.bad,
	      "mixed %ld B: REDIRECT arrived %ld/%ld in order, %ld bad", size,
	      redir.got, nv[V_REDIRECT], redir.bad);
	check(pass.got == nv[V_PASS] && !pass.bad,
	      "mixed %ld B: PASS reached the stack %ld/%ld in order, %ld bad",
	      size, pass.got, nv[V_PASS], pass.bad);
	printf("drop=%ld tx=%ld pass=%ld redirect=%ld malformed=%ld\n",
	       nv[V_DROP], nv[V_TX], nv[V_PASS], nv[V_REDIRECT], malformed);
	return failures ? 1 : 0;
}

/* ---- a bad frame address in the middle ---- */

static int cmd_efault(int argc, char **argv)
{
	struct tapx_desc d[TAPX_BATCH_MAX];
	char sb[256], *node, *name;
	unsigned int done, k, n, i;
	int fd, r, ok = 1, size = 60, maxsize = 60, tail = 0;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *fr, *pages;

	if (argc < 5 || argc > 7)
		return 2;
	snprintf(sb, sizeof(sb), "%s", argv[2]);
	k = atoi(argv[3]);
	n = atoi(argv[4]);
	if (argc >= 6)
		size = parse_sizes(argv[5], 60, &maxsize);
	if (argc == 7)
		tail = !strcmp(argv[6], "tail") ? 1 : -1;
	if (split_spec(sb, &node, &name) || k >= n || n > TAPX_BATCH_MAX ||
	    size < 0 || tail < 0)
		return 2;
	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, 0);
	fr = malloc(maxsize);
	/* A readable page, then one that is not: for the "tail" case. */
	pages = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fd < 0 || !fr || pages == MAP_FAILED ||
	    mprotect(pages + page, page, PROT_NONE))
		return 1;
	/* One frame for every descriptor: the program drops them all. */
	make_frame(fr, maxsize, 0, V_DROP);
	make_frame(pages + page - 30, 30, 0, V_DROP);
	for (i = 0; i < n; i++)
		d[i] = (struct tapx_desc){ (uintptr_t)fr, size_of(size, i),
					   12345 };
	/* Unmapped, or its first 30 bytes readable and the rest not. */
	d[k].addr = tail ? (uintptr_t)(pages + page - 30) :
			   (uintptr_t)bad_ptr();
	r = batch_ioctl(fd, TAPXSUBMIT, d, n, &done);
	for (i = 0; i < n; i++)
		ok &= d[i].status == (i < k ? 0 : 12345) &&
		      d[i].len == (unsigned int)size_of(size, i);
	check(r == -EFAULT && done == k,
	      "efault: bad %s %u B frame at descs[%u] of %u (%s B) -> %d (want %d), done %u",
	      tail ? "tail of a" : "address of a", d[k].len, k, n,
	      argc >= 6 ? argv[5] : "60", r, -EFAULT, done);
	check(ok, "efault: status 0 written for [0, %u), the rest untouched", k);
	munmap(pages, 2 * page);
	free(fr);
	close(fd);
	return failures ? 1 : 0;
}

/* ---- bad batches and the recv cases ---- */

static int raw_ioctl(int fd, unsigned long cmd, struct tapx_batch *b)
{
	return ioctl(fd, cmd, b) < 0 ? -errno : 0;
}

/*
 * A descriptor array that runs into an unmapped page cannot be read: no
 * frame is taken. One that cannot be written back: its frames were taken
 * (zeroed frames on a vnet fd: they count in rx_packets).
 */
static void errors_descs(int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	struct tapx_desc *d;
	struct tapx_batch b;
	uint8_t *m;
	int r;

	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE)) {
		check(0, "submit: map descriptor pages");
		return;
	}
	d = (struct tapx_desc *)(m + page) - 2;
	d[0] = d[1] = (struct tapx_desc){ (uintptr_t)m, 60, 7 };
	b = (struct tapx_batch){ .descs = (uintptr_t)d, .count = 3, .done = 9 };
	r = raw_ioctl(fd, TAPXSUBMIT, &b);
	check(r == -EFAULT && b.done == 0 && d[0].status == 7,
	      "submit: descriptors [2] unmapped -> %d, done %u, status %d", r,
	      b.done, d[0].status);
	b.count = 2;
	mprotect(m, 2 * page, PROT_READ);
	r = raw_ioctl(fd, TAPXSUBMIT, &b);
	check(r == -EFAULT && b.done == 2,
	      "submit: read-only descriptors -> %d, done %u (taken)", r, b.done);
	munmap(m, 2 * page);
}

/*
 * A bad frame fails in a batch where write() would fail it: a 6-byte one
 * whose PI header cannot be read faults (it is not a runt first); a bad
 * vnet header before an unreadable body is malformed (the body is not
 * read); a good one before it faults. Frame 0 of each batch is good.
 */
static void errors_order(const char *node, const char *name)
{
	static const struct {
		int flags, len, readable, vnet_ok, rc, done, status1;
		const char *what;
	} c[] = {
		{ IFF_TAP, 6, 0, 0, -EFAULT, 1, 7, "PI unreadable, 6 B" },
		{ IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, VNET_SZ + 60, VNET_SZ, 0,
		  0, 2, -EINVAL, "bad vnet header, body unreadable" },
		{ IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, VNET_SZ + 60, VNET_SZ, 1,
		  -EFAULT, 1, 7, "good vnet header, body unreadable" },
	};
	long page = sysconf(_SC_PAGESIZE);
	uint8_t good[PI_SZ + VNET_SZ + 60], *m;
	struct virtio_net_hdr vh = { 0 };
	struct tapx_desc d[2];
	unsigned int i, done;
	int fd, r, hl;

	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED || mprotect(m + page, page, PROT_NONE)) {
		check(0, "order: map frame pages");
		return;
	}
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fd = tap_open(node, name, c[i].flags, O_NONBLOCK);
		hl = c[i].flags & IFF_NO_PI ? 0 : PI_SZ;
		hl += c[i].flags & IFF_VNET_HDR ? VNET_SZ : 0;
		memset(good, 0, sizeof(good));
		make_frame(good + hl, 60, i, V_NONE);
		/* Frame 1: its first bytes readable, then an unmapped page. */
		vh.flags = c[i].vnet_ok ? 0 : 0x80;
		memcpy(m + page - VNET_SZ, &vh, VNET_SZ);
		d[0] = (struct tapx_desc){ (uintptr_t)good, hl + 60, 7 };
		d[1] = (struct tapx_desc){
			(uintptr_t)(m + page - c[i].readable), c[i].len, 7 };
		r = batch_ioctl(fd, TAPXSUBMIT, d, 2, &done);
		check(fd >= 0 && r == c[i].rc && done == (unsigned int)c[i].done &&
			      d[0].status == 0 && d[1].status == c[i].status1,
		      "order: [good, %s] -> %d done %u status %d %d (want %d, %d, %d)",
		      c[i].what, r, done, d[0].status, d[1].status, c[i].rc,
		      c[i].done, c[i].status1);
		close(fd);
	}
	munmap(m, 2 * page);
}

static void errors_batch(int fd, unsigned long cmd, const char *what)
{
	static uint8_t f[64];
	struct tapx_desc d[TAPX_BATCH_MAX + 1];
	struct tapx_batch b;
	int i, r;

	for (i = 0; i <= TAPX_BATCH_MAX; i++)
		d[i] = (struct tapx_desc){ (uintptr_t)f, 64, 0 };
	make_frame(f, 64, 0, V_DROP);

	b = (struct tapx_batch){ .descs = (uintptr_t)d, .count = 0, .done = 9 };
	r = raw_ioctl(fd, cmd, &b);
	check(r == -EINVAL && b.done == 0, "%s: count 0 -> %d, done %u", what,
	      r, b.done);
	b = (struct tapx_batch){ .descs = (uintptr_t)d,
				 .count = TAPX_BATCH_MAX + 1, .done = 9 };
	r = raw_ioctl(fd, cmd, &b);
	check(r == -EINVAL && b.done == 0, "%s: count %d -> %d, done %u", what,
	      TAPX_BATCH_MAX + 1, r, b.done);
	b = (struct tapx_batch){ .descs = (uintptr_t)d, .count = 1, .flags = 1,
				 .done = 9 };
	r = raw_ioctl(fd, cmd, &b);
	check(r == -EINVAL && b.done == 0, "%s: flags 1 -> %d, done %u", what,
	      r, b.done);
	b = (struct tapx_batch){ .descs = (uintptr_t)d, .count = 1,
				 .reserved = 1, .done = 9 };
	r = raw_ioctl(fd, cmd, &b);
	check(r == -EINVAL && b.done == 0, "%s: reserved 1 -> %d, done %u",
	      what, r, b.done);
	b = (struct tapx_batch){ .descs = (uintptr_t)bad_ptr(), .count = 4,
				 .done = 9 };
	r = raw_ioctl(fd, cmd, &b);
	check(r == -EFAULT && b.done == 0, "%s: bad descs pointer -> %d, done %u",
	      what, r, b.done);
	r = ioctl(fd, cmd, bad_ptr()) < 0 ? -errno : 0;
	check(r == -EFAULT, "%s: bad batch pointer -> %d", what, r);
	if (cmd == TAPXSUBMIT)
		errors_descs(fd);
}

/* The frames and receive buffers of the errors command's cases. */
static struct {
	uint8_t f[4][MAXF + 2 * VNET_SZ], r[4][512];
} eb;

/* Batches on an fd not attached to a device. */
static void errors_unattached(const char *node)
{
	struct tapx_desc d[1];
	unsigned int done;
	int fd, rc;

	fd = open(node, O_RDWR);
	d[0] = (struct tapx_desc){ (uintptr_t)eb.f[0], 60, 0 };
	make_frame(eb.f[0], 60, 0, V_DROP);
	rc = batch_ioctl(fd, TAPXSUBMIT, d, 1, &done);
	check(rc == -EBADFD && done == 0, "errors: submit before TUNSETIFF -> %d, done %u", rc, done);
	rc = batch_ioctl(fd, TAPXRECV, d, 1, &done);
	check(rc == -EBADFD && done == 0, "errors: recv before TUNSETIFF -> %d, done %u", rc, done);
	close(fd);
}

/* Submits on a device with a vnet header: the refused batches, malformed
 * frames among good ones, and the old ioctl numbers; 0, or -1 when the
 * device cannot be attached. */
static int errors_submit(const char *node, const char *name)
{
	struct tapx_desc d[8];
	struct virtio_net_hdr vh;
	unsigned int done, i;
	int fd, rc;

	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, O_NONBLOCK);
	check(fd >= 0, "errors: attach %s with IFF_VNET_HDR", name);
	if (fd < 0)
		return -1;
	errors_batch(fd, TAPXSUBMIT, "submit");
	errors_batch(fd, TAPXRECV, "recv");

	/* Malformed frames are consumed and reported; the batch goes on. */
	memset(&vh, 0, sizeof(vh));
	for (i = 0; i < 4; i++) {
		memcpy(eb.f[i], &vh, VNET_SZ);
		make_frame(eb.f[i] + VNET_SZ, 100, i, V_DROP);
		d[i] = (struct tapx_desc){ (uintptr_t)eb.f[i], VNET_SZ + 100, 1 };
	}
	vh.gso_type = 7;
	vh.gso_size = 100;
	memcpy(eb.f[1], &vh, VNET_SZ);
	d[2].len = VNET_SZ + MAXF + 1;
	rc = batch_ioctl(fd, TAPXSUBMIT, d, 4, &done);
	check(rc == 0 && done == 4 && d[0].status == 0 &&
		      d[1].status == -EINVAL && d[2].status == -EINVAL &&
		      d[3].status == 0,
	      "errors: [ok, bad vnet, 65536 B, ok] -> %d done %u status %d %d %d %d",
	      rc, done, d[0].status, d[1].status, d[2].status, d[3].status);

	/* tapx 0.1's numbers, on tun's 'T', still work (<linux/tapx.h>). */
	rc = batch_ioctl(fd, TAPXSUBMIT_T240, d, 1, &done);
	check(rc == 0 && done == 1 && d[0].status == 0,
	      "errors: TAPXSUBMIT's old number ('T' 240) -> %d done %u", rc,
	      done);
	d[0] = (struct tapx_desc){ (uintptr_t)eb.r[0], sizeof(eb.r[0]), 1 };
	rc = batch_ioctl(fd, TAPXRECV_T241, d, 1, &done);
	check(rc == 0 || rc == -EAGAIN,
	      "errors: TAPXRECV's old number ('T' 241) -> %d done %u", rc,
	      done);
	close(fd);
	return 0;
}

/* Nonblocking receives: an empty ring, a frame cut, a bad buffer; the
 * packet socket on the device, for the blocking ones. */
static int errors_recv(const char *node, const char *name)
{
	struct tapx_desc d[8];
	unsigned int done, i;
	int fd, ps, rc;

	/* Receive cases, without vnet header: an empty ring first. */
	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, O_NONBLOCK);
	ps = packet_open(name);
	check(fd >= 0 && ps >= 0, "recv: attach %s, packet socket", name);
	check(!if_wait_tx_ready(name, 10000), "recv: %s transmits", name);
	for (i = 0; i < 4; i++)
		d[i] = (struct tapx_desc){ (uintptr_t)eb.r[i], sizeof(eb.r[i]), 1 };
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	check(rc == -EAGAIN && done == 0,
	      "recv: nonblocking, empty ring -> %d, done %u", rc, done);

	/* Truncation: the frame is cut, reported and consumed. */
	make_frame(eb.f[0], 300, 1, V_NONE);
	inject(ps, name, eb.f[0], 300);
	make_frame(eb.f[1], 200, 2, V_NONE);
	inject(ps, name, eb.f[1], 200);
	usleep(100000);
	d[0].len = 100;
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	check(rc == 0 && done == 2 && d[0].status == -EMSGSIZE &&
		      d[0].len == 100 && !memcmp(eb.r[0], eb.f[0], 100) &&
		      d[1].status == 0 && frame_ok(eb.r[1], d[1].len, 200, 2, V_NONE),
	      "recv: 300 B into 100 -> %d done %u: status %d len %u, then %d len %u",
	      rc, done, d[0].status, d[0].len, d[1].status, d[1].len);

	/* A bad buffer stops the batch before it takes a frame. */
	for (i = 0; i < 3; i++) {
		make_frame(eb.f[i], 150, 10 + i, V_NONE);
		inject(ps, name, eb.f[i], 150);
	}
	usleep(100000);
	for (i = 0; i < 4; i++)
		d[i] = (struct tapx_desc){ (uintptr_t)eb.r[i], sizeof(eb.r[i]), 1 };
	d[1].addr = (uintptr_t)bad_ptr();
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	check(rc == -EFAULT && done == 1 && frame_ok(eb.r[0], d[0].len, 150, 10, V_NONE),
	      "recv: bad buffer at descs[1] -> %d, done %u", rc, done);
	d[1].addr = (uintptr_t)eb.r[1];
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	check(rc == 0 && done == 2 && frame_ok(eb.r[0], d[0].len, 150, 11, V_NONE) &&
		      frame_ok(eb.r[1], d[1].len, 150, 12, V_NONE),
	      "recv: retry gets the 2 frames left, in order (%d, done %u)", rc,
	      done);
	close(fd);
	return ps;
}

/* A blocking receive waits for the first frame only, then takes what is
 * queued. */
static void errors_recv_blocking(const char *node, const char *name, int ps)
{
	struct tapx_desc d[8];
	unsigned int done, i;
	int fd, rc, st;
	pid_t pid;

	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI, 0);
	pid = fork();
	if (!pid) {
		usleep(300000);
		make_frame(eb.f[0], 120, 20, V_NONE);
		_exit(inject(ps, name, eb.f[0], 120) ? 1 : 0);
	}
	for (i = 0; i < 4; i++)
		d[i] = (struct tapx_desc){ (uintptr_t)eb.r[i], sizeof(eb.r[i]), 1 };
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	waitpid(pid, &st, 0);
	check(rc == 0 && done == 1 && d[0].status == 0 &&
		      frame_ok(eb.r[0], d[0].len, 120, 20, V_NONE),
	      "recv: blocking recv woken by a frame -> %d, done %u", rc, done);
	for (i = 0; i < 3; i++) {
		make_frame(eb.f[i], 130, 30 + i, V_NONE);
		inject(ps, name, eb.f[i], 130);
	}
	usleep(100000);
	rc = batch_ioctl(fd, TAPXRECV, d, 4, &done);
	check(rc == 0 && done == 3 && frame_ok(eb.r[2], d[2].len, 130, 32, V_NONE),
	      "recv: blocking, 3 queued, count 4 -> %d, done %u", rc, done);
	close(fd);
}

static int cmd_errors(int argc, char **argv)
{
	char sb[256], *node, *name;
	int ps;

	if (argc != 3)
		return 2;
	snprintf(sb, sizeof(sb), "%s", argv[2]);
	if (split_spec(sb, &node, &name))
		return 2;

	errors_unattached(node);
	if (errors_submit(node, name))
		return 1;
	errors_order(node, name);
	ps = errors_recv(node, name);
	errors_recv_blocking(node, name, ps);
	close(ps);
	return failures ? 1 : 0;
}

/* ---- skbs and xdp_frames in one batched read ---- */

static int cmd_recvmix(int argc, char **argv)
{
	static uint8_t f[VNET_SZ + 2000];
	struct sink xs, ss;
	char sb[256], *node, *name;
	uint32_t *wx, *wsk;
	long n, i, other = 0;
	struct tapx_desc d[NRECV];
	unsigned int done, j;
	int fd, ps, rc, calls = 0;
	static const uint8_t zero[VNET_SZ];

	if (argc != 4)
		return 2;
	snprintf(sb, sizeof(sb), "%s", argv[2]);
	n = atol(argv[3]);
	if (split_spec(sb, &node, &name) || n > 400)
		return 2;
	fd = tap_open(node, name, IFF_TAP | IFF_NO_PI | IFF_VNET_HDR, O_NONBLOCK);
	ps = packet_open(name);
	if (fd < 0 || ps < 0) {
		check(0, "recvmix: attach %s", name);
		return 1;
	}
	wx = calloc(n, sizeof(*wx));
	wsk = calloc(n, sizeof(*wsk));
	for (i = 0; i < n; i++)
		wx[i] = wsk[i] = i;
	xs = (struct sink){ .vnet = 1, .size = 700, .verdict = 0xfd,
			    .want = wx, .nwant = n };
	ss = (struct sink){ .vnet = 1, .size = 500, .verdict = 0xfe,
			    .want = wsk, .nwant = n };
	/* Written frames come back as xdp_frames (XDP_TX), injected as skbs. */
	for (i = 0; i < n; i++) {
		memset(f, 0, VNET_SZ);
		make_frame(f + VNET_SZ, 700, i, 0xfd);
		if (write(fd, f, VNET_SZ + 700) != VNET_SZ + 700)
			other++;
		make_frame(f, 500, i, 0xfe);
		if (inject(ps, name, f, 500))
			other++;
	}
	usleep(300000);
	for (;;) {
		for (j = 0; j < NRECV; j++)
			d[j] = (struct tapx_desc){ (uintptr_t)rbufs[j], RBUF, 1 };
		rc = batch_ioctl(fd, TAPXRECV, d, NRECV, &done);
		if (rc == -EAGAIN)
			break;
		calls++;
		if (rc) {
			other++;
			break;
		}
		for (j = 0; j < done; j++) {
			uint8_t *p = rbufs[j] + VNET_SZ;

			if (d[j].status == 0 && d[j].len >= VNET_SZ + 14 &&
			    (p[12] != ETHERTYPE_TEST >> 8 ||
			     p[13] != (ETHERTYPE_TEST & 0xff)))
				continue; /* the stack's own traffic */
			if (d[j].status || d[j].len < VNET_SZ + 19 ||
			    memcmp(rbufs[j], zero, VNET_SZ))
				other++;
			else if (p[18] == 0xfd)
				sink_take(&xs, rbufs[j], d[j].len);
			else if (p[18] == 0xfe)
				sink_take(&ss, rbufs[j], d[j].len);
			else
				other++;
		}
	}
	check(xs.got == n && !xs.bad && ss.got == n && !ss.bad && !other &&
		      calls >= (2 * n + NRECV - 1) / NRECV,
	      "recvmix: %ld xdp_frames and %ld skbs read in order with vnet headers in %d TAPXRECV (bad %ld %ld, other %ld)",
	      xs.got, ss.got, calls, xs.bad, ss.bad, other);
	close(fd);
	close(ps);
	return failures ? 1 : 0;
}

/* ---- bench ---- */

static double bench_write(int fd, const uint8_t *f, int size, long count)
{
	long i, bad = 0;
	double t0;

	for (i = 0; i < count / 10; i++)
		bad += write(fd, f, size) != size;
	t0 = now_ns();
	for (i = 0; i < count; i++)
		bad += write(fd, f, size) != size;
	t0 = (now_ns() - t0) / count;
	return bad ? -1 : t0;
}

static double bench_submit(int fd, const uint8_t *f, int size, long count,
			   int batch)
{
	static struct tapx_desc d[TAPX_BATCH_MAX];
	struct tapx_batch b = { .descs = (uintptr_t)d, .count = batch };
	long i, calls = count / batch, bad = 0;
	double t0;
	int j;

	for (j = 0; j < batch; j++)
		d[j] = (struct tapx_desc){ (uintptr_t)f, size, 0 };
	for (i = 0; i < calls / 10 + 1; i++)
		bad += ioctl(fd, TAPXSUBMIT, &b) || b.done != (unsigned int)batch;
	t0 = now_ns();
	for (i = 0; i < calls; i++)
		bad += ioctl(fd, TAPXSUBMIT, &b) || b.done != (unsigned int)batch;
	t0 = (now_ns() - t0) / (calls * batch);
	return bad ? -1 : t0;
}

/*
 * The host is shared and the VM emulated: each figure is the best of
 * several rounds, and the rounds interleave the cases so that a slow spell
 * hits them all alike.
 */
static int cmd_bench(int argc, char **argv)
{
	static uint8_t f[MAXF];
	static const int batches[] = { 1, 8, 64, 256 };
	enum { NB = sizeof(batches) / sizeof(batches[0]), ROUNDS = 25 };
	double best[NB + 3], t;
	int size, fd, nul, r, i;
	long count;

	if (argc != 6)
		return 2;
	size = atoi(argv[4]);
	count = atol(argv[5]);
	fd = tap_open(argv[2], argv[3], IFF_TAP | IFF_NO_PI, 0);
	nul = open("/dev/null", O_WRONLY);
	if (fd < 0 || nul < 0)
		return 1;
	make_frame(f, size, 0, V_DROP);
	for (i = 0; i < NB + 3; i++)
		best[i] = 1e18;
	for (r = 0; r < ROUNDS; r++) {
		for (i = 0; i < NB + 3; i++) {
			if (i == 0)
				t = bench_write(nul, f, size, count);
			else if (i == 1)
				t = bench_write(fd, f, size, count);
			else if (i == NB + 2) /* runts: the batch without XDP */
				t = bench_submit(fd, f, 10, count, 64);
			else
				t = bench_submit(fd, f, size, count,
						 batches[i - 2]);
			if (t < 0) {
				check(0, "bench: a write or submit failed");
				return 1;
			}
			if (t < best[i])
				best[i] = t;
		}
	}
	printf("bench %d B, best of %d x %ld frames: write /dev/null %.0f ns\n",
	       size, ROUNDS, count, best[0]);
	printf("bench %d B: write %.0f ns/frame (%.2fx floor)\n", size,
	       best[1], best[1] / best[0]);
	for (i = 0; i < NB; i++)
		printf("bench %d B: TAPXSUBMIT x%d %.0f ns/frame (%.2fx floor)\n",
		       size, batches[i], best[i + 2], best[i + 2] / best[0]);
	printf("bench 10 B runts (rejected before XDP): TAPXSUBMIT x64 %.0f ns/frame (%.2fx floor)\n",
	       best[NB + 2], best[NB + 2] / best[0]);
	close(fd);
	close(nul);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		goto usage;
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	if (!strcmp(argv[1], "mixed"))
		return cmd_mixed(argc, argv);
	if (!strcmp(argv[1], "efault"))
		return cmd_efault(argc, argv);
	if (!strcmp(argv[1], "errors"))
		return cmd_errors(argc, argv);
	if (!strcmp(argv[1], "recvmix"))
		return cmd_recvmix(argc, argv);
	if (!strcmp(argv[1], "bench"))
		return cmd_bench(argc, argv);
usage:
	fprintf(stderr, "usage: tapx-batch run|mixed|efault|errors|recvmix|bench ...\n");
	return 2;
}
