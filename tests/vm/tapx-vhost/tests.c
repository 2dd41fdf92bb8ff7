// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost run: the cases, each a PASS/FAIL line.
 */
#include "vhost.h"

int size_is_gso(int size)
{
	return size > 9000;
}

/* Guest TX of n frames of size; every one byte-exact on the far side
 * (want_seen) or none of them. */
static void case_tx(struct vnet *v, int ps, int size, const char *xdp, int want_seen)
{
	struct frameset s;
	int left, stray = 0;

	long hits = probe_active ? probe_hits() : 0;

	frames_make(&s, count, size, size_is_gso(size), 0);
	far_drain(ps);
	left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
	if (probe_active) {
		int prog = strncmp(xdp, "none", 4) != 0, batch = batched_size(size, prog);

		hits = probe_hits() - hits;
		check(batch ? hits >= 1 && hits < s.n : hits == s.n,
		      "%s%s tx %d xdp=%s: %s path, %ld %s calls for %d frames", prefix,
		      v->ifname, size, xdp, batch ? "batched" : "per-packet", hits,
		      sendmsg_probe, s.n);
	}
	far_collect(ps, &s, want_seen ? WAIT_MS : QUIET_MS, &stray);
	check(!left && frames_seen(&s) == (want_seen ? s.n : 0) && !stray,
	      "%s%s tx %d%s xdp=%s: %d/%d seen on the far side byte-exact (want %d), "
	      "%d descriptors not used, %d stray", prefix, v->ifname, size,
	      size_is_gso(size) ? " gso" : "", xdp, frames_seen(&s), s.n,
	      want_seen ? s.n : 0, left, stray);
	frames_free(&s);
}

/* Frames sent into the tap; every one in the RX ring of dst, byte-exact. */
static void case_rx(struct vnet *v, struct vnet *dst, int ps, int size, const char *xdp)
{
	struct frameset s;
	struct rx_result r = { 0 };
	int e;

	frames_make(&s, count, size, 0, 0);
	e = far_send(ps, v->ifname, &s);
	rx_collect(dst, &s, WAIT_MS, 1, &r);
	/* Plain frames from the stack: num_buffers 1, no GSO in the header. */
	check(!e && r.got == s.n && !r.bad_len && !r.bad_hdr && !r.gso_hdr && !r.stray,
	      "%s%s rx %d xdp=%s: %d/%d in the RX ring, length 12 + frame, byte-exact "
	      "(%d bad length, %d bad num_buffers, %d with gso_type, %d stray%s%s)", prefix,
	      v->ifname, size, xdp, r.got, s.n, r.bad_len, r.bad_hdr, r.gso_hdr, r.stray,
	      e ? ", send: " : "",
	      e ? strerror(e) : "");
	frames_free(&s);
}

static int parse_sizes(int *out, int max)
{
	char *dup = strdup(sizes_opt), *t, *save;
	int n = 0;

	for (t = strtok_r(dup, ",", &save); t && n < max; t = strtok_r(NULL, ",", &save))
		out[n++] = atoi(t);
	free(dup);
	return n;
}

static void test_sizes(struct vnet *v, int ps)
{
	int sizes[32], n = parse_sizes(sizes, 32);
	const char *progs[] = { NULL, "xdp_pass" };

	for (int p = 0; p < 2; p++) {
		const char *xdp = progs[p] ? progs[p] : "none";

		/* With a program attached the socket has SOCK_XDP and vhost
		 * batches only up to 3380 B, without up to 3636 B. */
		if (progs[p] && xdp_set(v->ifname, progs[p])) {
			check(0, "%s%s: attach %s: %s", prefix, v->ifname, progs[p],
			      strerror(errno));
			continue;
		}
		for (int i = 0; i < n; i++) {
			case_tx(v, ps, sizes[i], xdp, 1);
			if (!size_is_gso(sizes[i]))
				case_rx(v, v, ps, sizes[i], xdp);
		}
		/* A 64 KiB frame without GSO into the tap, too. */
		case_rx(v, v, ps, MAX_FRAME, xdp);
		if (progs[p])
			xdp_set(v->ifname, NULL);
	}
}

/* One `ethtool -S IF` counter; -1 if it is not there. */
static long ethtool_stat(const char *ifname, const char *key)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "ethtool -S %s 2>/dev/null", ifname);
	return keyed_value(popen(cmd, "r"), pclose, " %127[^:]: %ld", key);
}

/*
 * --gso-tx-drops: a GSO frame sent back or redirected is dropped and
 * counted; true when it was (and the check is printed), false to check
 * delivery as usual.
 */
static int gso_dropped(struct vnet *v, int size, int gso, const char *what,
		       int left, int got, long drops_before)
{
	long drops;

	if (!gso_tx_drops || !gso)
		return 0;
	drops = ethtool_stat(v->ifname, "xdp_gso_drops") - drops_before;
	check(!left && !got && drops == count,
	      "%s%s tx %d %s: GSO frame dropped, as documented: %d delivered, "
	      "xdp_gso_drops +%ld (want +%d), %d descriptors not used",
	      prefix, v->ifname, size, what, got, drops, count, left);
	return 1;
}

/* The verdicts on both TX paths: 60 and 1500 B batched, 9000 and 64 KiB
 * GSO per packet. */
static void test_verdicts(struct vnet *v, int ps)
{
	static const int vsizes[] = { 60, 1500, 9000, 65535 };
	struct vnet peer;
	char peer_name[IFNAMSIZ + 1];
	int peer_ps;

	snprintf(peer_name, sizeof(peer_name), "%.14sr", v->ifname);
	if (vnet_open(&peer, peer_name, 0, RING_NUM)) {
		vnet_close(&peer);
		return;
	}
	peer_ps = packet_open(peer_name);
	for (unsigned int i = 0; i < sizeof(vsizes) / sizeof(vsizes[0]); i++) {
		int size = vsizes[i], gso = size_is_gso(size);
		struct frameset s;
		struct rx_result r;
		long before;
		int left, stray;

		/* DROP: not on the far side, counted. PASS: seen, counted. */
		for (int verdict = XDP_DROP; verdict <= XDP_PASS; verdict++) {
			const char *prog = verdict == XDP_DROP ? "xdp_drop" : "xdp_pass";

			if (xdp_set(v->ifname, prog)) {
				check(0, "%s%s: attach %s: %s", prefix, v->ifname, prog,
				      strerror(errno));
				continue;
			}
			before = xdp_count(verdict);
			case_tx(v, ps, size, prog, verdict == XDP_PASS);
			check(xdp_count(verdict) - before == count,
			      "%s%s tx %d %s: counted %ld, want %d", prefix, v->ifname, size,
			      prog, xdp_count(verdict) - before, count);
		}

		/* TX: the frame comes back into our own RX ring. */
		if (!xdp_set(v->ifname, "xdp_tx")) {
			long gso_before = ethtool_stat(v->ifname, "xdp_gso_drops");

			frames_make(&s, count, size, gso, 0);
			before = xdp_count(XDP_TX);
			memset(&r, 0, sizeof(r));
			far_drain(ps);
			left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
			rx_collect(v, &s, gso && gso_tx_drops ? QUIET_MS : WAIT_MS, 1, &r);
			if (!gso_dropped(v, size, gso, "xdp_tx", left, r.got, gso_before))
				check(!left && r.got == s.n && !r.bad_len,
				      "%s%s tx %d xdp_tx: %d/%d back in the RX ring byte-exact (%d bad "
				      "length, %d stray, %d descriptors not used), counted %ld",
				      prefix, v->ifname, size, r.got, s.n, r.bad_len, r.stray, left,
				      xdp_count(XDP_TX) - before);
			frames_free(&s);
		} else {
			check(0, "%s%s: attach xdp_tx: %s", prefix, v->ifname, strerror(errno));
		}

		/* REDIRECT: into the peer tap, whose vhost instance has them. */
		if (!set_redirect_port(peer_name) && !xdp_set(v->ifname, "xdp_redirect")) {
			long gso_before = ethtool_stat(v->ifname, "xdp_gso_drops");

			frames_make(&s, count, size, gso, 0);
			before = xdp_count(XDP_REDIRECT);
			memset(&r, 0, sizeof(r));
			stray = 0;
			far_drain(ps);
			left = tx_frames(v, s.f, s.len, s.n, &s.hdr);
			rx_collect(&peer, &s, gso && gso_tx_drops ? QUIET_MS : WAIT_MS, 1, &r);
			if (!gso_dropped(v, size, gso, "xdp_redirect", left, r.got, gso_before))
				check(!left && r.got == s.n && !r.bad_len,
				      "%s%s tx %d xdp_redirect to %s: %d/%d in its RX ring byte-exact "
				      "(%d bad length, %d descriptors not used), counted %ld", prefix,
				      v->ifname, size, peer_name, r.got, s.n, r.bad_len, left,
				      xdp_count(XDP_REDIRECT) - before);
			far_collect(ps, &s, QUIET_MS, &stray);
			frames_free(&s);
		} else {
			check(0, "%s%s: xdp_redirect to %s: %s", prefix, v->ifname, peer_name,
			      strerror(errno));
		}
		xdp_set(v->ifname, NULL);
	}
	if (peer_ps >= 0)
		close(peer_ps);
	vnet_close(&peer);
}

/*
 * Few RX buffers: the tap's queue fills, the driver drops (and counts) what
 * does not fit, nothing breaks, and once buffers are back the frames held
 * are delivered, in order and byte-exact, and new ones too.
 */
static void test_ringfull(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s, s2;
	struct rx_result r = { 0 }, r2 = { 0 };
	const int nbufs = 4, burst = 2000;
	double t0;
	long drops0, drops1;
	char path[96];
	FILE *f;
	int ps, e, tail_drop = 1, late = 0;

	snprintf(name, sizeof(name), "%sf", base_name);
	if (vnet_open(&v, name, 0, nbufs)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/tx_dropped", name);
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &drops0) != 1)
		drops0 = -1;
	if (f)
		fclose(f);
	frames_make(&s, burst, 60, 0, 0);
	t0 = now_ns();
	e = far_send(ps, name, &s);
	printf("INFO %sring full: %d frames sent in %.0f ms\n", prefix, burst,
	       (now_ns() - t0) / 1e6);
	/* The first nbufs are delivered into the posted buffers. */
	rx_collect(&v, &s, QUIET_MS, 0, &r);
	check(r.got == nbufs && !e, "%sring full: %d frames in %d buffers (want %d)%s%s", prefix,
	      r.got, nbufs, nbufs, e ? ", send: " : "", e ? strerror(e) : "");
	f = fopen(path, "r");
	if (!f || fscanf(f, "%ld", &drops1) != 1)
		drops1 = -1;
	if (f)
		fclose(f);
	rx_refill(&v, 0, RING_NUM);
	rx_collect(&v, &s, WAIT_MS, 1, &r);
	check(drops1 > drops0 && r.got + (drops1 - drops0) == burst && !r.bad_len && !r.stray,
	      "%sring full: %d of %d delivered after refill, %ld counted in tx_dropped, "
	      "sum %ld", prefix, r.got, burst, drops1 - drops0, r.got + drops1 - drops0);
	/*
	 * tun drops at the tail. While the burst is sent, vhost takes one
	 * batch off the queue (up to VHOST_NET_BATCH, 64, into its own array
	 * once it has a buffer to fill; the nbufs posted ones are filled from
	 * it), which then holds as many later frames: whenever it ran (late
	 * on a slow kernel), all but that batch of the delivered are the
	 * burst's first, and at most the batch come after them.
	 */
	for (int i = 0; i < s.n; i++) {
		if (i < r.got - VHOST_RX_BATCH && !s.seen[i])
			tail_drop = 0;
		late += i >= r.got && s.seen[i];
	}
	check(tail_drop && late <= VHOST_RX_BATCH,
	      "%sring full: the %d delivered are the burst's first, %d of them later "
	      "ones (tail drop; want at most %d later)", prefix, r.got, late, VHOST_RX_BATCH);
	frames_make(&s2, count, 1500, 0, 0);
	e = far_send(ps, name, &s2);
	rx_collect(&v, &s2, WAIT_MS, 1, &r2);
	check(r2.got == s2.n && !e, "%sring full: then %d/%d new frames delivered", prefix,
	      r2.got, s2.n);
	frames_free(&s);
	frames_free(&s2);
	close(ps);
	vnet_close(&v);
}

/*
 * IFF_BACKPRESSURE (0x80; 7.3's tun) with a qdisc: the burst of
 * test_ringfull into as few buffers, but the tap's queue stops when its
 * ring is full and the qdisc holds the rest; vhost-net taking entries off
 * the ring itself (tun_wake_queue) restarts it, so after the refill every
 * frame is delivered and nothing is dropped. Only where the kernel's tun
 * has the flag (suite-backpressure.sh checks that both drivers lack it
 * elsewhere).
 */
static void test_backpressure(int unused)
{
	const int nbufs = 4, burst = 2000;
	int fd, ps, e, sz = 64 << 20;
	struct rx_result r = { 0 };
	unsigned int feat = 0;
	char name[IFNAMSIZ], cmd[96];
	long drops0, drops1;
	struct frameset s;
	struct vnet v;

	fd = open(node, O_RDWR);
	if (fd < 0 || ioctl(fd, TUNGETFEATURES, &feat) < 0)
		check(0, "%sbackpressure: TUNGETFEATURES: %s", prefix, strerror(errno));
	if (fd >= 0)
		close(fd);
	if (!(feat & 0x80))
		return;
	snprintf(name, sizeof(name), "%sb", base_name);
	if (vnet_open(&v, name, 0x80, nbufs)) {
		vnet_close(&v);
		return;
	}
	snprintf(cmd, sizeof(cmd), "/bin/tc qdisc replace dev %s root pfifo limit 5000",
		 name);
	ps = packet_open(name);
	if (system(cmd) || ps < 0) {
		check(0, "%sbackpressure: %s, packet socket", prefix, cmd);
		vnet_close(&v);
		return;
	}
	/* What the qdisc holds stays charged to the sender. */
	setsockopt(ps, SOL_SOCKET, SO_SNDBUFFORCE, &sz, sizeof(sz));
	drops0 = if_stat(name, "tx_dropped");
	frames_make(&s, burst, 60, 0, 0);
	e = far_send(ps, name, &s);
	rx_collect(&v, &s, QUIET_MS, 0, &r);
	check(r.got == nbufs && !e, "%sbackpressure: %d frames in %d buffers (want %d)%s%s",
	      prefix, r.got, nbufs, nbufs, e ? ", send: " : "", e ? strerror(e) : "");
	rx_refill(&v, 0, RING_NUM);
	rx_collect(&v, &s, WAIT_MS, 1, &r);
	drops1 = if_stat(name, "tx_dropped");
	check(r.got == burst && drops0 >= 0 && drops1 == drops0 && !r.bad_len && !r.stray,
	      "%sbackpressure: %d of %d delivered after refill, %ld dropped", prefix,
	      r.got, burst, drops1 - drops0);
	frames_free(&s);
	close(ps);
	vnet_close(&v);
}

/* A plain TX and RX round on v: 60 and 1500 B. */
static void round_trip(struct vnet *v, int ps, const char *what)
{
	static const int sz[] = { 60, 1500 };

	for (int i = 0; i < 2; i++) {
		case_tx(v, ps, sz[i], what, 1);
		case_rx(v, v, ps, sz[i], what);
	}
}

/*
 * The device deleted while vhost holds the tap fd: TX gives nothing on a far
 * side that is gone and must not hang; closing vhost and the tap is clean;
 * a new device of the same name then works.
 */
static void test_delete(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	int ps, left, e, gone;

	snprintf(name, sizeof(name), "%sd", base_name);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none");
	close(ps);
	e = dellink(name) ? errno : 0;
	gone = !if_exists(name);
	check(!e && gone, "%sdelete %s while vhost holds its fd: %s%s%s", prefix, name,
	      gone ? "gone" : "still there", e ? ", RTM_DELLINK: " : "", e ? strerror(e) : "");
	frames_make(&s, count, 60, 0, 0);
	left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
	/* Batched, tun's sendmsg says EBADFD and vhost drops the batch
	 * without using its descriptors: a guest loses them (informative:
	 * a driver that took the buffers would give them back). */
	printf("INFO %sdelete: TX of %d 60 B frames after deletion, %d descriptors not "
	       "given back\n", prefix, s.n, left);
	frames_free(&s);
	/* Per packet, vhost uses the descriptor whatever sendmsg said. */
	frames_make(&s, count, 9000, 0, 0);
	left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
	check(!left, "%sdelete: TX of %d 9000 B frames after deletion: %d descriptors not "
	      "given back (want 0)", prefix, s.n, left);
	frames_free(&s);
	vnet_close(&v);
	check(1, "%sdelete: vhost and tap fds closed after deletion", prefix);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none(recreated)");
	close(ps);
	vnet_close(&v);
}

/*
 * Queue detach (TUNSETQUEUE) while vhost holds the fd, then attach again.
 * tun.ko's behaviour, which tapx is to match: a detached queue still
 * transmits (its fd still names the device, so the guest's TX reaches the
 * stack), but the device no longer hands it frames (RX gets nothing).
 */
static void test_detach(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	struct rx_result r;
	struct ifreq ifr;
	int ps, left, stray, e;

	snprintf(name, sizeof(name), "%sq", base_name);
	if (vnet_open(&v, name, IFF_MULTI_QUEUE, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	round_trip(&v, ps, "none");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_DETACH_QUEUE;
	e = ioctl(v.tap, TUNSETQUEUE, &ifr) ? errno : 0;
	check(!e, "%sdetach: TUNSETQUEUE IFF_DETACH_QUEUE with vhost bound%s%s", prefix,
	      e ? ": " : "", e ? strerror(e) : "");
	for (int size = 60; size <= 9000; size += 8940) {
		frames_make(&s, count, size, 0, 0);
		far_drain(ps);
		stray = 0;
		left = tx_frames(&v, s.f, s.len, s.n, &s.hdr);
		far_collect(ps, &s, WAIT_MS, &stray);
		check(frames_seen(&s) == s.n && !left,
		      "%sdetach: TX %d B on the detached queue still reaches the stack: "
		      "%d/%d seen, %d descriptors not used", prefix, size, frames_seen(&s),
		      s.n, left);
		frames_free(&s);
	}
	frames_make(&s, count, 60, 0, 0);
	memset(&r, 0, sizeof(r));
	e = far_send(ps, name, &s);
	rx_collect(&v, &s, QUIET_MS, 1, &r);
	check(!r.got, "%sdetach: RX while detached: %d/%d frames in the RX ring (want 0)%s%s",
	      prefix, r.got, s.n, e ? ", send: " : "", e ? strerror(e) : "");
	frames_free(&s);
	ifr.ifr_flags = IFF_ATTACH_QUEUE;
	e = ioctl(v.tap, TUNSETQUEUE, &ifr) ? errno : 0;
	check(!e, "%sdetach: TUNSETQUEUE IFF_ATTACH_QUEUE with vhost bound%s%s", prefix,
	      e ? ": " : "", e ? strerror(e) : "");
	if_wait_tx_ready(name, 2000);
	round_trip(&v, ps, "none(reattached)");
	close(ps);
	vnet_close(&v);
	check(1, "%sdetach: vhost and tap fds closed", prefix);
}

/*
 * Host to guest GSO: with the guest's offloads on the tap (TUNSETOFFLOAD, as
 * QEMU sets them), a 64 KiB TCP super-frame sent into the device reaches
 * the RX ring whole, its vnet header written by the driver: TCPv4 GSO with
 * the sender's gso_size, NEEDS_CSUM at the TCP checksum.
 */
static void test_rxgso(int unused)
{
	struct vnet v;
	char name[IFNAMSIZ];
	struct frameset s;
	struct vring_q *q;
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned int offload = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6;
	static uint8_t out[sizeof(struct virtio_net_hdr) + MAX_FRAME];
	int ps, one = 1, got = 0, hdr_ok = 0, sent = 0;

	snprintf(name, sizeof(name), "%sg", base_name);
	if (vnet_open(&v, name, 0, RING_NUM)) {
		vnet_close(&v);
		return;
	}
	if (ioctl(v.tap, TUNSETOFFLOAD, offload)) {
		check(0, "%srx gso: TUNSETOFFLOAD: %s", prefix, strerror(errno));
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	if (ps < 0 || setsockopt(ps, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		check(0, "%srx gso: packet socket with PACKET_VNET_HDR: %s", prefix,
		      strerror(errno));
		if (ps >= 0)
			close(ps);
		vnet_close(&v);
		return;
	}
	frames_make(&s, count, MAX_FRAME, 1, 0);
	to.sll_ifindex = if_nametoindex(name);
	for (int i = 0; i < s.n; i++) {
		memcpy(out, &s.hdr.hdr, sizeof(s.hdr.hdr));
		memcpy(out + sizeof(s.hdr.hdr), s.f[i], s.len[i]);
		if (sendto(ps, out, sizeof(s.hdr.hdr) + s.len[i], 0, (void *)&to, sizeof(to)) > 0)
			sent++;
	}
	q = &v.rx;
	while (got < s.n && wait_used(q, WAIT_MS)) {
		uint16_t end = used_idx(q);

		for (; q->last_used != end; q->last_used++) {
			struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];
			struct virtio_net_hdr_mrg_rxbuf *h = (void *)buf_of(q, e->id);
			int flen = (int)e->len - VNET_HLEN;

			if (flen > 0 && frames_match(&s, buf_of(q, e->id) + VNET_HLEN, flen)) {
				got++;
				hdr_ok += h->hdr.gso_type == VIRTIO_NET_HDR_GSO_TCPV4 &&
					  h->hdr.gso_size == gso_size &&
					  (h->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
					  h->hdr.csum_start == 34 && h->hdr.csum_offset == 16 &&
					  h->num_buffers == 1;
			}
			rx_post(q, e->id);
		}
		kick(q);
	}
	check(sent == s.n && got == s.n && hdr_ok == s.n,
	      "%s%s rx 65535 gso (offloads on): %d sent, %d whole in the RX ring byte-exact, "
	      "%d with the TCPv4 GSO header (gso_size %d, csum 34+16)", prefix, name, sent, got,
	      hdr_ok, gso_size);
	frames_free(&s);
	close(ps);
	vnet_close(&v);
}

/* Two queue pairs: one tap fd and one vhost instance each. */
static void test_mq(int unused)
{
	struct vnet v[2];
	char name[IFNAMSIZ];
	struct frameset s;
	struct rx_result r[2];
	int ps, left[2], stray = 0, e;

	snprintf(name, sizeof(name), "%sm", base_name);
	if (vnet_open(&v[0], name, IFF_MULTI_QUEUE, RING_NUM) || vnet_open(&v[1], name, IFF_MULTI_QUEUE, RING_NUM)) {
		vnet_close(&v[0]);
		vnet_close(&v[1]);
		return;
	}
	ps = packet_open(name);
	frames_make(&s, 2 * count, 1500, 0, 0);
	left[0] = tx_frames(&v[0], s.f, s.len, count, &s.hdr);
	left[1] = tx_frames(&v[1], s.f + count, s.len + count, count, &s.hdr);
	far_collect(ps, &s, WAIT_MS, &stray);
	check(!left[0] && !left[1] && frames_seen(&s) == s.n && !stray,
	      "%smq: TX on both queue pairs, %d/%d seen on the far side byte-exact", prefix,
	      frames_seen(&s), s.n);
	frames_free(&s);
	/* RX: UDP flows spread by the driver's flow hash over both queues. */
	frames_make(&s, 4 * count, 1500, 0, 64);
	memset(r, 0, sizeof(r));
	e = far_send(ps, name, &s);
	rx_collect(&v[0], &s, QUIET_MS * 2, 1, &r[0]);
	rx_collect(&v[1], &s, QUIET_MS * 2, 1, &r[1]);
	rx_collect(&v[0], &s, QUIET_MS, 1, &r[0]);
	check(!e && r[0].got + r[1].got == s.n && r[0].got && r[1].got && !r[0].bad_len &&
	      !r[1].bad_len, "%smq: RX of %d UDP frames over 64 flows: %d + %d in the two RX "
	      "rings byte-exact", prefix, s.n, r[0].got, r[1].got);
	frames_free(&s);
	close(ps);
	vnet_close(&v[0]);
	vnet_close(&v[1]);
}

/*
 * tnl (6.17 on): vhost-net with VIRTIO_NET_F_HOST_UDP_TUNNEL_GSO hands the
 * tap a struct virtio_net_hdr_v1_hash_tunnel (24 bytes) before each TX
 * frame, at data_hard_start of its batched buffers. The guest sends
 * --count VXLAN frames around a TCPv4 segment of 2000 bytes with a
 * UDP-tunnel GSO header (gso_size 1000, the offsets of tnl_frame()) in one
 * batch; a packet socket with PACKET_VNET_HDR on the tap must see each as
 * one TCPv4 GSO skb with the inner checksum's offsets, as from tun. Before
 * 6.17 vhost-net has no such feature: not run, and said so.
 */
static void test_tnl(int unused)
{
	static uint8_t f[14 + 20 + 16 + 14 + 40 + 2000], b[8192];
	static const uint8_t to[6] = { 2, 0, 0, 0, 0, 3 };
	uint8_t *frames[RING_NUM];
	int lens[RING_NUM], n = count < RING_NUM ? count : RING_NUM;
	struct tnl_vnet h = tnl_vnet_hdr(1000);
	struct virtio_net_hdr want_h = h.h, *got;
	char name[IFNAMSIZ];
	int ps, one = 1, len, left, seen = 0, same = 0, r, i;
	struct vnet v;

	if (!tnl_kernel()) {
		printf("INFO %stnl: no GSO over UDP tunnels in vhost-net before 6.17: not run\n",
		       prefix);
		return;
	}
	snprintf(name, sizeof(name), "%su", base_name);
	tx_hlen = TNL_HLEN;
	r = vnet_open(&v, name, 0, 0);
	tx_hlen = VNET_HLEN;
	if (r) {
		vnet_close(&v);
		return;
	}
	ps = packet_open(name);
	if (ps < 0 || setsockopt(ps, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one))) {
		check(0, "%stnl: packet socket with PACKET_VNET_HDR: %s", prefix,
		      strerror(errno));
		if (ps >= 0)
			close(ps);
		vnet_close(&v);
		return;
	}
	len = tnl_frame(f, to, 2000);
	for (i = 0; i < n; i++) {
		frames[i] = f;
		lens[i] = len;
	}
	left = tx_frames(&v, frames, lens, n, &h);
	/* What the stack's skb says: GSO over TCPv4, linear, the inner offsets. */
	want_h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	want_h.hdr_len = len;
	while (seen < n) {
		struct pollfd p = { .fd = ps, .events = POLLIN };

		if (poll(&p, 1, WAIT_MS) <= 0)
			break;
		r = recv(ps, b, sizeof(b), MSG_DONTWAIT);
		if (r != (int)sizeof(*got) + len)
			continue;
		got = (struct virtio_net_hdr *)b;
		seen++;
		same += !memcmp(got, &want_h, sizeof(want_h));
	}
	check(!left && seen == n && same == n,
	      "%stnl: %d VXLAN frames with a UDP-tunnel GSO header (24 bytes, one batch): "
	      "%d not given back, %d reached the stack, %d as TCPv4 GSO (gso_size 1000, "
	      "NEEDS_CSUM at %d+16)", prefix, n, left, seen, same, TNL_INNER_TH);
	close(ps);
	vnet_close(&v);
}

int want(const char *t)
{
	char *dup = strdup(tests_opt), *x, *save;
	int yes = 0;

	for (x = strtok_r(dup, ",", &save); x; x = strtok_r(NULL, ",", &save))
		if (!strcmp(x, t) || (!strcmp(x, "all") && strcmp(t, "basic")))
			yes = 1;
	free(dup);
	return yes;
}

int cmd_run(int argc, char **argv)
{
	const struct topt opts[] = {
		{ "node", 's', &node },	       { "name", 's', &base_name },
		{ "label", 's', &label },      { "count", 'i', &count },
		{ "sizes", 's', &sizes_opt },  { "gso-size", 'i', &gso_size },
		{ "tests", 's', &tests_opt },  { "pins", 's', &pins },
		{ "maps", 's', &maps },	       { "sendmsg-probe", 's', &sendmsg_probe },
		{ "gso-tx-drops", 'f', &gso_tx_drops }, { NULL, 0, NULL },
	};
	struct vnet v;
	int ps;

	if (parse_topts(argc, argv, 2, opts))
		return 1;
	if (*label)
		snprintf(prefix, sizeof(prefix), "vhost(%s) ", label);
	else
		snprintf(prefix, sizeof(prefix), "vhost ");
	if (count > RING_NUM * 8)
		count = RING_NUM * 8;
	signal(SIGPIPE, SIG_IGN);

	/* The main device first: if the driver does not serve vhost-net,
	 * that is the one result, loud, and nothing else can run. */
	if (vnet_open(&v, base_name, 0, RING_NUM)) {
		int e = v.backend_errno;

		vnet_close(&v);
		return e ? 2 : 1;
	}
	check(1, "%s%s: vhost-net bound to a tap of %s (12-byte vnet header, MRG_RXBUF + "
	      "VERSION_1)", prefix, base_name, node);
	ps = packet_open(base_name);
	probe_on();
	if (want("basic"))
		round_trip(&v, ps, "none");
	if (want("sizes"))
		test_sizes(&v, ps);
	if (want("verdicts"))
		test_verdicts(&v, ps);
	probe_off();
	close(ps);
	vnet_close(&v);
	if (want("ringfull"))
		test_ringfull(0);
	if (want("backpressure"))
		test_backpressure(0);
	if (want("delete"))
		test_delete(0);
	if (want("detach"))
		test_detach(0);
	if (want("rxgso"))
		test_rxgso(0);
	if (want("mq"))
		test_mq(0);
	if (want("tnl"))
		test_tnl(0);
	return failures ? 1 : 0;
}
