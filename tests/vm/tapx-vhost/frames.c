// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-vhost's frames: made and matched, sent and collected on the
 * tap's far side (a packet socket) and the guest's RX ring.
 */
#include "vhost.h"

static const uint8_t test_src[6] = { 2, 0, 0, 0, 0, 1 };

static uint16_t ip_csum(const void *p, int len)
{
	const uint16_t *w = p;
	uint32_t s = 0;

	for (; len > 1; len -= 2)
		s += *w++;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

/* An IPv4 frame of size bytes, TCP (a GSO super-frame's layout) or UDP
 * with source port sport (to spread flows over queues). */
static void ip_frame(uint8_t *f, int size, uint32_t seq, int tcp, int sport)
{
	struct iphdr *ip = (void *)(f + 14);

	test_frame(f, size, seq);
	f[12] = 0x08;
	f[13] = 0x00;
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->tot_len = htons(size - 14);
	ip->protocol = tcp ? IPPROTO_TCP : IPPROTO_UDP;
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	ip->check = ip_csum(ip, sizeof(*ip));
	if (tcp) {
		struct tcphdr *th = (void *)(ip + 1);

		memset(th, 0, sizeof(*th));
		th->source = htons(sport);
		th->dest = htons(5001);
		th->seq = htonl(seq);
		th->doff = 5;
		th->ack = 1;
	} else {
		struct udphdr *uh = (void *)(ip + 1);

		uh->source = htons(sport);
		uh->dest = htons(5001);
		uh->len = htons(size - 34);
		uh->check = 0;
	}
	memcpy(f + 54, &seq, 4); /* keeps frames of one case distinct */
}

void frames_free(struct frameset *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->f[i]);
	free(s->f);
	free(s->len);
	free(s->seen);
	memset(s, 0, sizeof(*s));
}

/* n frames of size bytes; 65535 (or gso) ones are TCPv4 GSO super-frames,
 * udp_flows > 0 makes UDP frames over that many source ports. */
void frames_make(struct frameset *s, int n, int size, int gso, int udp_flows)
{
	static uint32_t seq = 1;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->f = calloc(n, sizeof(*s->f));
	s->len = calloc(n, sizeof(*s->len));
	s->seen = calloc(n, sizeof(*s->seen));
	for (int i = 0; i < n; i++) {
		s->f[i] = malloc(size);
		s->len[i] = size;
		if (gso)
			ip_frame(s->f[i], size, seq++, 1, 40000);
		else if (udp_flows)
			ip_frame(s->f[i], size, seq++, 0, 40000 + i % udp_flows);
		else
			test_frame(s->f[i], size, seq++);
	}
	if (gso) {
		s->hdr.hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		s->hdr.hdr.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		s->hdr.hdr.gso_size = gso_size;
		s->hdr.hdr.hdr_len = 54;
		s->hdr.hdr.csum_start = 34;
		s->hdr.hdr.csum_offset = 16;
	}
}

/* Marks the frame of s equal to (p, len); 1 if there was one not seen yet. */
int frames_match(struct frameset *s, const uint8_t *p, int len)
{
	for (int i = 0; i < s->n; i++)
		if (!s->seen[i] && s->len[i] == len && !memcmp(s->f[i], p, len)) {
			s->seen[i] = 1;
			return 1;
		}
	return 0;
}

int frames_seen(struct frameset *s)
{
	int n = 0;

	for (int i = 0; i < s->n; i++)
		n += s->seen[i];
	return n;
}

int ours(const uint8_t *p, int len)
{
	return len >= 14 && !memcmp(p + 6, test_src, 6);
}

/* ---- the tap's far side: a packet socket on the interface ---- */

static uint8_t rbuf[MAX_FRAME + 4096];

/* Drains what is queued on the packet socket. */
void far_drain(int ps)
{
	while (recv(ps, rbuf, sizeof(rbuf), MSG_DONTWAIT) > 0)
		;
}

/*
 * Receives frames on the far side until every frame of s was seen or ms
 * pass without a new one; counts ours that match nothing in *stray.
 */
void far_collect(int ps, struct frameset *s, int ms, int *stray)
{
	struct pollfd p = { .fd = ps, .events = POLLIN };
	struct sockaddr_ll from;
	socklen_t fl;
	int n;

	while (frames_seen(s) < s->n && poll(&p, 1, ms) > 0) {
		fl = sizeof(from);
		n = recvfrom(ps, rbuf, sizeof(rbuf), MSG_DONTWAIT, (void *)&from, &fl);
		if (n <= 0 || from.sll_pkttype == PACKET_OUTGOING || !ours(rbuf, n))
			continue;
		if (!frames_match(s, rbuf, n))
			++*stray;
	}
}

/* Sends the frames of s into the tap (its transmit side, which the tap
 * driver hands to vhost's RX queue). 0 or the errno of the first failure. */
int far_send(int ps, const char *name, struct frameset *s)
{
	struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };

	to.sll_ifindex = if_nametoindex(name);
	for (int i = 0; i < s->n; i++)
		if (sendto(ps, s->f[i], s->len[i], 0, (void *)&to, sizeof(to)) != s->len[i])
			return errno;
	return 0;
}

/* ---- RX ring ---- */

/*
 * Takes used RX buffers until every frame of s was matched or ms pass
 * without a new one, checks each (used length = 12 + frame, num_buffers 1,
 * frame byte-exact) and gives the buffer back when repost is set.
 */
void rx_collect(struct vnet *v, struct frameset *s, int ms, int repost,
		struct rx_result *r)
{
	struct vring_q *q = &v->rx;
	int posted = 0;

	while (frames_seen(s) < s->n) {
		if (used_idx(q) == q->last_used) {
			if (posted) {
				kick(q);
				posted = 0;
			}
			if (!wait_used(q, ms))
				break;
		}
		uint16_t end = used_idx(q);

		for (; q->last_used != end; q->last_used++) {
			struct vring_used_elem *e = &q->used->ring[q->last_used % RING_NUM];
			uint8_t *b = buf_of(q, e->id);
			struct virtio_net_hdr_mrg_rxbuf *h = (void *)b;
			int flen = (int)e->len - VNET_HLEN;

			if (flen >= 14 && ours(b + VNET_HLEN, flen)) {
				if (frames_match(s, b + VNET_HLEN, flen)) {
					r->got++;
					if (h->num_buffers != 1)
						r->bad_hdr++;
					if (h->hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
						r->gso_hdr++;
				} else {
					int i;

					/* A frame of s that arrived with a wrong
					 * length says more than "stray". */
					for (i = 0; i < s->n; i++)
						if (!memcmp(s->f[i], b + VNET_HLEN, 18))
							break;
					if (i < s->n)
						r->bad_len++;
					else
						r->stray++;
				}
			}
			if (repost) {
				rx_post(q, e->id);
				posted = 1;
			}
		}
	}
	if (posted)
		kick(q);
}

/* RX buffers given back (up to RING_NUM posted); for the ring-full case. */
void rx_refill(struct vnet *v, int from, int to)
{
	for (int i = from; i < to; i++)
		rx_post(&v->rx, i);
	kick(&v->rx);
}
