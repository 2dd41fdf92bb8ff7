// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost bench: ns per frame through vhost-net, one line a cell.
 */
#include "../icount.h"
#include "vhost.h"

/* Frames in flight in a bench cell: fewer than the RX ring's buffers, and
 * than any tap's queue, so that no cell drops a frame. */
#define BENCH_BURST 32

/* Where every bench frame goes: another guest's MAC. */
static const uint8_t bench_dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };

/* The bench's frame: IPv4 from the guest's own addresses (test_src,
 * 10.0.0.1), to bench_dst, UDP, or a TCP GSO super-frame at 64 KiB. */
static void bench_frame(struct frameset *s, int size)
{
	frames_make(s, 1, size, size_is_gso(size), !size_is_gso(size));
	memcpy(s->f[0], bench_dst, 6);
}

/* Fills every free TX descriptor with the frame, once: the guest's own
 * copy is not timed. */
static void tx_prefill(struct vring_q *q, const uint8_t *frame, int len,
		       const struct virtio_net_hdr_mrg_rxbuf *hdr)
{
	tx_reap(q);
	for (int k = 0; k < q->nfree; k++) {
		int id = q->free_ids[k];
		uint8_t *b = buf_of(q, id);

		memcpy(b, hdr, VNET_HLEN);
		memcpy(b + VNET_HLEN, frame, len);
		q->desc[id].addr = (uintptr_t)b;
		q->desc[id].len = VNET_HLEN + len;
		q->desc[id].flags = 0;
		q->desc[id].next = 0;
	}
}

/* Publishes up to k prefilled TX descriptors (of those free after the
 * last tx_reap()) and kicks; how many. */
static int tx_push(struct vring_q *q, int k)
{
	int n = 0;

	while (q->nfree && n < k) {
		publish(q, q->free_ids[--q->nfree]);
		n++;
	}
	if (n)
		kick(q);
	return n;
}

/*
 * Guest TX in ns per frame: descriptors given back to the ring as vhost
 * uses them, kicked once per round. -1 if vhost stopped using them.
 */
static double tx_bench(struct vnet *v, const struct frameset *s, long n)
{
	struct vring_q *q = &v->tx;
	long sent = 0, done = 0;
	double t0;

	tx_prefill(q, s->f[0], s->len[0], &s->hdr);
	t0 = now_ns();
	while (done < n) {
		int before;

		sent += tx_push(q, n - sent);
		if (!wait_used(q, WAIT_MS))
			return -1;
		before = q->nfree;
		tx_reap(q);
		done += q->nfree - before;
	}
	return (now_ns() - t0) / n;
}

/* Guest TX on two queue pairs of one tap, n frames between them. */
static double tx2_bench(struct vnet **v, const struct frameset *s, long n)
{
	long sent[2] = { 0, 0 }, done[2] = { 0, 0 }, half[2] = { n / 2, n - n / 2 };
	double t0;

	for (int i = 0; i < 2; i++)
		tx_prefill(&v[i]->tx, s->f[0], s->len[0], &s->hdr);
	t0 = now_ns();
	while (done[0] + done[1] < n) {
		int waited = 0;

		for (int i = 0; i < 2; i++) {
			struct vring_q *q = &v[i]->tx;
			int before = q->nfree;

			tx_reap(q);
			done[i] += q->nfree - before;
			sent[i] += tx_push(q, half[i] - sent[i]);
		}
		for (int i = 0; i < 2 && !waited; i++)
			if (done[i] < sent[i]) {
				if (!wait_used(&v[i]->tx, WAIT_MS))
					return -1;
				waited = 1;
			}
	}
	return (now_ns() - t0) / n;
}

/* Where an RX cell's frames come from. */
enum rx_from { FROM_STACK, FROM_REDIRECT, FROM_GUEST };

struct rx_source {
	enum rx_from from;
	int ps; /* FROM_STACK: a packet socket, sending on the tap */
	int ifindex;
	int tap; /* FROM_REDIRECT: another tap, written to */
	struct vnet *guest; /* FROM_GUEST: the other guest, its TX ring */
	const struct frameset *s;
	unsigned int next; /* the frame of s sent next */
};

/* Sends k frames from the source; how many went. */
static int rx_source_send(struct rx_source *src, int k)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	const uint8_t *f;
	int len = src->s->len[0], i;

	if (src->from == FROM_GUEST) {
		tx_reap(&src->guest->tx);
		return tx_push(&src->guest->tx, k);
	}
	to.sll_ifindex = src->ifindex;
	for (i = 0; i < k; i++) {
		/* A frameset of several flows: one after the other. */
		f = src->s->f[src->next++ % src->s->n];
		ssize_t w = src->from == FROM_STACK ?
			sendto(src->ps, f, len, 0, (void *)&to, sizeof(to)) :
			write(src->tap, f, len);

		if (w != len)
			break;
	}
	return i;
}

/* The first RX frame of a wrong length in a run: shown when the cell fails. */
static struct {
	int len;
	uint8_t head[34]; /* Ethernet and IPv4 headers */
} odd_frame;

/*
 * RX frames of a run not ours(): the host's own, such as the IGMP reports
 * a bridge sends when it gains a port. Not the cell's, so neither counted
 * nor failed; the checked tx counters grew by them too.
 */
static long foreign;

static void odd_frame_keep(struct vring_q *q, const struct vring_used_elem *e)
{
	int len = (int)e->len - VNET_HLEN;

	odd_frame.len = len;
	memset(odd_frame.head, 0, sizeof(odd_frame.head));
	if (len > 0)
		memcpy(odd_frame.head, buf_of(q, e->id) + VNET_HLEN,
		       len < (int)sizeof(odd_frame.head) ? len : (int)sizeof(odd_frame.head));
}

/*
 * Takes the used RX buffers of v, counting the host's own frames in
 * foreign, ours of exactly 12 + len bytes in *got and any other in *bad
 * (the first one kept in odd_frame), and gives them back to the ring.
 */
static void rx_take(struct vnet *v, int len, long *got, long *bad)
{
	struct vring_q *q = &v->rx;
	uint16_t end = used_idx(q);
	int posted = 0;

	for (; q->last_used != end; q->last_used++) {
		struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];

		int flen = (int)e->len - VNET_HLEN;

		if (flen >= 14 && !ours(buf_of(q, e->id) + VNET_HLEN, flen))
			foreign++;
		else if ((int)e->len == VNET_HLEN + len)
			++*got;
		else if (!(*bad)++)
			odd_frame_keep(q, e);
		rx_post(q, e->id);
		posted = 1;
	}
	if (posted)
		kick(q);
}

/* Until an RX ring of v[0..nv) has a used buffer, or ms pass; 1 if one has. */
static int rx_wait_any(struct vnet **v, int nv, int ms)
{
	struct pollfd p[2];
	uint64_t c;

	for (int i = 0; i < nv && i < 2; i++) {
		p[i].fd = v[i]->rx.call;
		p[i].events = POLLIN;
	}
	for (double end = now_ns() + ms * 1e6; now_ns() < end;) {
		for (int i = 0; i < nv; i++)
			if (used_idx(&v[i]->rx) != v[i]->rx.last_used)
				return 1;
		if (poll(p, nv, 50) <= 0)
			continue;
		for (int i = 0; i < nv; i++)
			if ((p[i].revents & POLLIN) && read(p[i].fd, &c, sizeof(c)) < 0)
				c = 0; /* nonblocking: nothing to take */
	}
	return 0;
}

/*
 * Guest RX in ns per frame: n frames from the source, at most BENCH_BURST
 * in flight, each counted in an RX ring of v[0..nv) (the queue pairs of
 * one tap). -1 if one went missing (a
 * frame not sent, not received within WAIT_MS, or of a wrong length).
 */
static double rx_bench(struct vnet **v, int nv, struct rx_source *src, long n)
{
	long sent = 0, got = 0, bad = 0;
	double t0;

	if (src->from == FROM_GUEST)
		tx_prefill(&src->guest->tx, src->s->f[0], src->s->len[0], &src->s->hdr);
	t0 = now_ns();
	while (got < n) {
		long k = n - sent < BENCH_BURST - (sent - got) ?
				 n - sent : BENCH_BURST - (sent - got);
		int moved = 0;

		if (k > 0)
			sent += rx_source_send(src, k);
		for (int i = 0; i < nv; i++)
			moved |= used_idx(&v[i]->rx) != v[i]->rx.last_used;
		if (!moved && !rx_wait_any(v, nv, WAIT_MS))
			break;
		for (int i = 0; i < nv; i++)
			rx_take(v[i], src->s->len[0], &got, &bad);
		if (bad)
			break;
	}
	if (src->from == FROM_GUEST)
		tx_reap(&src->guest->tx);
	return got == n && !bad ? (now_ns() - t0) / n : -1;
}

/* The bench's cells: name, what is timed, the program or policy. */
enum cell_kind { CELL_TX, CELL_RX_STACK, CELL_RX_REDIRECT, CELL_G2G, CELL_TX2Q,
		 CELL_RX2Q };
enum cell_prog { PROG_NONE, PROG_PIN, PROG_GUARD, PROG_BRIDGE, PROG_FWD };

struct cell {
	const char *name;
	enum cell_kind kind;
	enum cell_prog how;
	const char *pin; /* PROG_PIN: xdp_basic's program */
	int max_size; /* the largest size it runs at */
};

static const struct cell cells[] = {
	{ "tx-drop", CELL_TX, PROG_PIN, "xdp_drop", 65535 },
	{ "tx-pass", CELL_TX, PROG_PIN, "xdp_pass", 65535 },
	{ "tx-noprog", CELL_TX, PROG_NONE, NULL, 65535 },
	{ "tx-guard", CELL_TX, PROG_GUARD, NULL, 65535 },
	{ "rx-stack", CELL_RX_STACK, PROG_NONE, NULL, 9000 },
	{ "rx-redirect", CELL_RX_REDIRECT, PROG_PIN, "xdp_redirect", 9000 },
	{ "g2g-bridge", CELL_G2G, PROG_BRIDGE, NULL, 65535 },
	{ "g2g-fwd", CELL_G2G, PROG_FWD, NULL, 9000 },
	{ "tx2q-noprog", CELL_TX2Q, PROG_NONE, NULL, 65535 },
	{ "rx2q-stack", CELL_RX2Q, PROG_NONE, NULL, 9000 },
};
#define NCELLS ((int)(sizeof(cells) / sizeof(cells[0])))

struct bench_env {
	struct vnet a, b; /* guest A (bv0), guest B (bv0b) */
	struct vnet q[2]; /* a guest with two queue pairs (bv0q) */
	int ps; /* packet socket on A's tap */
	int src; /* the tap redirected from (bv0r) */
	char src_name[IFNAMSIZ], br[IFNAMSIZ];
	int have_cli; /* tap-accel in PATH */
};

/* Sets up a cell's program, policy or bridge; 0, or -1 after a FAIL. */
static int cell_on(struct bench_env *e, const struct cell *c)
{
	int rc = 0;

	switch (c->how) {
	case PROG_NONE:
		break;
	case PROG_PIN:
		if (c->kind == CELL_RX_REDIRECT)
			rc = set_redirect_port(e->a.ifname) ||
			     xdp_set(e->src_name, c->pin);
		else
			rc = xdp_set(e->a.ifname, c->pin);
		break;
	case PROG_GUARD:
		rc = run_cmd("tap-accel attach %s --policy %s --mode native >/dev/null",
			     e->a.ifname, GUARD_POLICY);
		break;
	case PROG_FWD:
		rc = run_cmd("tap-accel attach %s --policy %s --mode native >/dev/null",
			     e->a.ifname, FWD_POLICY);
		break;
	case PROG_BRIDGE:
		rc = run_cmd("ip link set %s master %s && ip link set %s master %s",
			     e->a.ifname, e->br, e->b.ifname, e->br);
		break;
	}
	if (rc)
		check(0, "%s%s: set up: %s", prefix, c->name, strerror(errno));
	return rc;
}

static void cell_off(struct bench_env *e, const struct cell *c)
{
	switch (c->how) {
	case PROG_NONE:
		break;
	case PROG_PIN:
		xdp_set(c->kind == CELL_RX_REDIRECT ? e->src_name : e->a.ifname, NULL);
		break;
	case PROG_GUARD:
	case PROG_FWD:
		/* Unloaded too: a policy keeps the interface indexes it was
		 * loaded with, and the next driver's taps have others. */
		run_cmd("tap-accel detach %s >/dev/null && tap-accel policy unload %s >/dev/null",
			e->a.ifname, c->how == PROG_GUARD ? GUARD_NAME : FWD_NAME);
		break;
	case PROG_BRIDGE:
		run_cmd("ip link set %s nomaster && ip link set %s nomaster",
			e->a.ifname, e->b.ifname);
		break;
	}
}

/* --check: each cell's frames in the counters of the taps they crossed. */
static int bench_check;

/*
 * Takes what the rings of an RX cell hold after a pause: before its run,
 * the host's own frames since they were last read (c NULL: set aside);
 * after it, before its counters are read, those that came after its last
 * frame (in foreign), where a frame of the cell's is one more than it sent.
 */
static void rx_settle(struct vnet **v, int nv, int len, const struct cell *c)
{
	long got = 0, bad = 0;

	usleep(20 * 1000); /* far longer than vhost takes for a frame */
	for (int i = 0; i < nv; i++)
		rx_take(v[i], len, &got, &bad);
	if (c)
		check(!got && !bad, "%s%s %d: no frame of the cell's after its last (%ld)",
		      prefix, c->name, len, got + bad);
}
/*
 * The counters a cell's frames go through, each to grow by exactly its
 * frames: the guest's tap receives what the guest sends (rx_packets) and
 * transmits what the guest receives (tx_packets); the redirect source
 * receives what it redirects.
 */
struct cell_counters {
	const char *ifname[2], *what[2];
	long before[2];
};

static void counters_pick(struct bench_env *e, const struct cell *c, struct cell_counters *k)
{
	memset(k, 0, sizeof(*k));
	switch (c->kind) {
	case CELL_TX:
		k->ifname[0] = e->a.ifname, k->what[0] = "rx_packets";
		break;
	case CELL_RX_STACK:
		k->ifname[0] = e->a.ifname, k->what[0] = "tx_packets";
		break;
	case CELL_RX_REDIRECT:
		k->ifname[0] = e->src_name, k->what[0] = "rx_packets";
		k->ifname[1] = e->a.ifname, k->what[1] = "tx_packets";
		break;
	case CELL_G2G:
		k->ifname[0] = e->a.ifname, k->what[0] = "rx_packets";
		k->ifname[1] = e->b.ifname, k->what[1] = "tx_packets";
		break;
	case CELL_TX2Q:
		k->ifname[0] = e->q[0].ifname, k->what[0] = "rx_packets";
		break;
	case CELL_RX2Q:
		k->ifname[0] = e->q[0].ifname, k->what[0] = "tx_packets";
		break;
	}
	for (int i = 0; i < 2; i++)
		if (k->ifname[i])
			k->before[i] = if_stat(k->ifname[i], k->what[i]);
}

static void counters_check(const struct cell *c, int size, long n, struct cell_counters *k)
{
	for (int i = 0; i < 2; i++) {
		long d, want;

		if (!k->ifname[i])
			continue;
		/* A tx counter also counts the host's own frames. */
		want = n + (strcmp(k->what[i], "tx_packets") ? 0 : foreign);
		d = if_stat(k->ifname[i], k->what[i]) - k->before[i];
		check(d == want, "%s%s %d: %s %s grew by %ld, the cell's frames %ld%s", prefix,
		      c->name, size, k->ifname[i], k->what[i], d, n,
		      want > n ? " and the host's own" : "");
	}
}

/* The instructions per frame of the last bench_cell() (tests/vm/icount),
 * negative where QEMU does not count them: the kernel's on bench_cpu,
 * where guests and workers run (every vCPU's without --cpu); not the
 * guests' own, which spin while they wait. */
static double cell_insns;

/* One run of one cell at one size: ns per frame, or -1 after a FAIL. */
static double bench_cell(struct bench_env *e, const struct cell *c, int size, long n)
{
	struct icount ic;
	struct cell_counters k;
	struct rx_source src = { .ps = e->ps, .tap = e->src, .guest = &e->a };
	struct vnet *va = &e->a, *vb = &e->b, *vq[2] = { &e->q[0], &e->q[1] };
	struct vnet **rings = NULL; /* an RX cell's: the rings it counts on */
	int nrings = 1;
	struct frameset s;
	double ns = -1;

	if (cell_on(e, c))
		return -1;
	if (c->kind == CELL_RX2Q) {
		/* 16 UDP flows, spread over the queues by their hash. */
		frames_make(&s, 16, size, 0, 16);
		for (int i = 0; i < s.n; i++)
			memcpy(s.f[i], bench_dst, 6);
	} else {
		bench_frame(&s, size);
	}
	src.s = &s;
	src.ifindex = if_nametoindex(e->a.ifname);
	switch (c->kind) {
	case CELL_TX:
	case CELL_TX2Q:
		break;
	case CELL_RX_STACK:
		src.from = FROM_STACK;
		rings = &va;
		break;
	case CELL_RX_REDIRECT:
		src.from = FROM_REDIRECT;
		rings = &va;
		break;
	case CELL_G2G:
		src.from = FROM_GUEST;
		rings = &vb;
		break;
	case CELL_RX2Q:
		src.from = FROM_STACK;
		src.ifindex = if_nametoindex(e->q[0].ifname);
		rings = vq;
		nrings = 2;
		break;
	}
	/* The host's own frames that reached these rings since they were last
	 * read (a bridge's report on guest A during g2g-bridge) are not in
	 * this cell's counters; a timed run just sets them aside. */
	if (bench_check && rings)
		rx_settle(rings, nrings, s.len[0], NULL);
	odd_frame.len = 0;
	foreign = 0;
	if (bench_check)
		counters_pick(e, c, &k);
	icount_begin();
	if (c->kind == CELL_TX)
		ns = tx_bench(&e->a, &s, n);
	else if (c->kind == CELL_TX2Q)
		ns = tx2_bench(vq, &s, n);
	else
		ns = rx_bench(rings, nrings, &src, n);
	cell_insns = icount_end(&ic) < 0 ? -1 : icount_of(&ic, bench_cpu, 1) / n;
	if (bench_check && ns >= 0) {
		if (rings)
			rx_settle(rings, nrings, s.len[0], c);
		counters_check(c, size, n, &k);
	}
	frames_free(&s);
	if (ns < 0) {
		check(0, "%s%s %d: a frame went missing (%ld frames)", prefix, c->name, size, n);
		if (odd_frame.len) {
			printf("# first frame of another length: %d B, ", odd_frame.len);
			for (int i = 0; i < (int)sizeof(odd_frame.head); i++)
				printf("%02x", odd_frame.head[i]);
			printf("\n");
		}
		if (c->how == PROG_GUARD || c->how == PROG_FWD)
			run_cmd("tap-accel stats %s", e->a.ifname);
		run_cmd("ethtool -S %s | grep -v ': 0$'", e->a.ifname);
		if (c->kind == CELL_G2G)
			run_cmd("ethtool -S %s | grep -v ': 0$'", e->b.ifname);
	}
	cell_off(e, c);
	return ns;
}

/* Whether the comma list has the word (or is "all"). */
static int csv_has(const char *list, const char *word)
{
	char *dup = strdup(list), *x, *save;
	int yes = !strcmp(list, "all");

	for (x = strtok_r(dup, ",", &save); x; x = strtok_r(NULL, ",", &save))
		if (!strcmp(x, word))
			yes = 1;
	free(dup);
	return yes;
}

static int cell_wanted(const struct cell *c, const char *list, int have_cli)
{
	if ((c->how == PROG_GUARD || c->how == PROG_FWD) && !have_cli)
		return 0;
	return csv_has(list, c->name);
}

/* The guest with two queue pairs; 0 or -1 after a FAIL. */
static int bench_env_open_q(struct bench_env *e)
{
	char name[IFNAMSIZ];

	snprintf(name, IFNAMSIZ, "%sq", base_name);
	for (int i = 0; i < 2; i++)
		if (vnet_open(&e->q[i], name, IFF_MULTI_QUEUE, RING_NUM))
			return -1;
	return 0;
}

/* Guest B, the redirect source and the bridge; 0 or -1 after a FAIL. */
static int bench_env_open(struct bench_env *e, int need_b)
{
	char b_name[IFNAMSIZ];

	/* Protocol 0: it sends, and no frame the cells pass is cloned to it. */
	e->ps = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	snprintf(e->src_name, IFNAMSIZ, "%sr", base_name);
	e->src = tap_open(node, e->src_name, IFF_TAP | IFF_NO_PI, O_CLOEXEC);
	if (e->ps < 0 || e->src < 0 || if_set_mtu(e->src_name, MAX_FRAME - 14) ||
	    if_up(e->src_name, 1)) {
		check(0, "%s%s: packet socket and redirect source: %s", prefix,
		      e->a.ifname, strerror(errno));
		return -1;
	}
	if (!need_b)
		return 0;
	snprintf(b_name, IFNAMSIZ, "%sb", base_name);
	if (vnet_open(&e->b, b_name, 0, RING_NUM))
		return -1;
	/* Guest B's offloads, as QEMU sets them: GSO frames reach it whole. */
	if (ioctl(e->b.tap, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6)) {
		check(0, "%s%s: TUNSETOFFLOAD: %s", prefix, b_name, strerror(errno));
		return -1;
	}
	snprintf(e->br, IFNAMSIZ, "%sbr", base_name);
	if (run_cmd("ip link add %s type bridge && ip link set %s up", e->br, e->br)) {
		check(0, "%s%s: bridge", prefix, e->br);
		return -1;
	}
	return 0;
}

static void bench_env_close(struct bench_env *e)
{
	xdp_set(e->a.ifname, NULL);
	if (e->br[0])
		run_cmd("ip link del %s", e->br);
	if (e->ps >= 0)
		close(e->ps);
	if (e->src >= 0)
		close(e->src);
	if (e->b.ifname[0])
		vnet_close(&e->b);
	for (int i = 0; i < 2; i++)
		if (e->q[i].ifname[0])
			vnet_close(&e->q[i]);
	vnet_close(&e->a);
	unlink(GUARD_POLICY);
	unlink(FWD_POLICY);
}

int cmd_bench(int argc, char **argv)
{
	static const int sizes[] = { 64, 1500, 9000, 65535 };
	static const char *const size_names[] = { "64", "1500", "9000", "65535" };
	enum { NSIZES = 4 };
	static double best[NCELLS][NSIZES], best_insns[NCELLS][NSIZES];
	const char *cells_opt = "all";
	char text[256];
	const char *bench_sizes = "64,1500,9000,65535";
	int reps = 5, need_b = 0, need_q = 0, bad = 0;
	long frames = 4000;
	const struct topt opts[] = {
		{ "node", 's', &node },	    { "name", 's', &base_name },
		{ "reps", 'i', &reps },	    { "frames", 'l', &frames },
		{ "pins", 's', &pins },	    { "maps", 's', &maps },
		{ "gso-size", 'i', &gso_size }, { "cells", 's', &cells_opt },
		{ "cpu", 'i', &bench_cpu }, { "sizes", 's', &bench_sizes },
		{ "check", 'f', &bench_check },
		{ NULL, 0, NULL },
	};
	struct bench_env e;

	bench_cpu = 0;
	if (parse_topts(argc, argv, 2, opts))
		return 1;
	if (bench_cpu >= 0 && pin_cpu(bench_cpu))
		bench_cpu = -1;
	snprintf(prefix, sizeof(prefix), "vhost-bench ");
	memset(&e, 0, sizeof(e));
	e.ps = e.src = -1;
	e.b.tap = e.b.vhost = -1;
	e.have_cli = !system("command -v tap-accel >/dev/null 2>&1");
	for (int c = 0; c < NCELLS; c++)
		if (cell_wanted(&cells[c], cells_opt, e.have_cli)) {
			need_b |= cells[c].kind == CELL_G2G;
			need_q |= cells[c].kind == CELL_TX2Q || cells[c].kind == CELL_RX2Q;
		}
	if (vnet_open(&e.a, base_name, 0, RING_NUM)) {
		bench_env_close(&e);
		return 2;
	}
	snprintf(text, sizeof(text), "guard mac 02:00:00:00:00:01 ip 10.0.0.1\ndefault pass\n");
	if (policy_write(GUARD_POLICY, text) || bench_env_open(&e, need_b) ||
	    (need_q && bench_env_open_q(&e))) {
		bench_env_close(&e);
		return 1;
	}
	if (need_b) {
		snprintf(text, sizeof(text), "rule redirect %s ethertype 0x0800\ndefault pass\n",
			 e.b.ifname);
		policy_write(FWD_POLICY, text);
	}
	/* Interleaved: every cell once per round, so that drift of a shared
	 * host hits all of them; the minimum is the least disturbed run. */
	for (int r = 0; r < reps; r++)
		for (int c = 0; c < NCELLS; c++)
			for (int i = 0; i < NSIZES; i++) {
				long n = sizes[i] > 9000 ? frames / 8 :
					 sizes[i] > 1500 ? frames / 4 : frames;
				double ns;

				if (!cell_wanted(&cells[c], cells_opt, e.have_cli) ||
				    sizes[i] > cells[c].max_size ||
				    !csv_has(bench_sizes, size_names[i]))
					continue;
				ns = bench_cell(&e, &cells[c], sizes[i], n);
				if (ns < 0)
					bad = 1;
				else if (!best[c][i] || ns < best[c][i])
					best[c][i] = ns;
				if (ns >= 0 && cell_insns > 0 &&
				    (!best_insns[c][i] || cell_insns < best_insns[c][i]))
					best_insns[c][i] = cell_insns;
			}
	bench_env_close(&e);
	printf("--- tapx-vhost bench on %s: ns per frame, min of %d interleaved runs\n",
	       node, reps);
	/* One line a cell and size: CELL SIZE PATH NS [INSTRUCTIONS], the
	 * instructions per frame where QEMU counts them (the minimum). */
	for (int c = 0; c < NCELLS; c++)
		for (int i = 0; i < NSIZES; i++) {
			const char *path = batched_size(sizes[i], cells[c].how != PROG_NONE) ?
						   "batched" :
					   size_is_gso(sizes[i]) ? "gso" : "perpkt";

			if (cell_wanted(&cells[c], cells_opt, e.have_cli) &&
			    sizes[i] <= cells[c].max_size &&
			    csv_has(bench_sizes, size_names[i])) {
				printf("%s %s %s %.0f", cells[c].name,
				       size_is_gso(sizes[i]) ? "64k" : size_names[i],
				       cells[c].kind == CELL_TX || cells[c].kind == CELL_G2G ||
						       cells[c].kind == CELL_TX2Q ?
					       path : "-",
				       best[c][i]);
				if (best_insns[c][i] > 0)
					printf(" %.1f", best_insns[c][i]);
				printf("\n");
			}
		}
	check(!bad, "%s%s: every run completed, every frame counted where it arrived",
	      prefix, node);
	return bad;
}
