// SPDX-License-Identifier: GPL-2.0
/*
 * tapx-stress's batches (TAPXSUBMIT, TAPXRECV) on the stable devices.
 */
#include "stress.h"

unsigned char *bbuf;
struct tapx_desc *bdesc; /* TAPX_BATCH_MAX + 1 */

/* Now and then a call the driver refuses whole, consuming nothing: the
 * errno it must fail with, or 0. */
static int submit_refusal(struct tapx_batch *b)
{
	switch (rn(40)) {
	case 0:
		b->count = rn(2) ? 0 : TAPX_BATCH_MAX + 1 + rn(100);
		return EINVAL;
	case 1:
		b->flags = 1 + rn(1000);
		return EINVAL;
	case 2:
		b->reserved = 1;
		return EINVAL;
	case 3:
		b->descs = (uintptr_t)bad_user;
		return EFAULT;
	}
	return 0;
}

/*
 * Fills n descriptors of frames for s, now and then one whose bytes cannot
 * be read, with what write() of each would do in want[]; returns the first
 * that stops the batch with -EFAULT, n when none does.
 */
static unsigned int submit_descs(struct stable *s, struct sacct *a,
				 unsigned int n, enum wres *want)
{
	int vnet = !!(s->flags & IFF_VNET_HDR), gap = 0;
	unsigned int i, stop = n, straddle = 0;
	size_t used = 0, T;

	for (i = 0; i < n; i++) {
		size_t bad_at;
		unsigned char *p;
		int kern = 0;

		/* Up to half the room in frames of any size, then small ones:
		 * at most 4 MiB + 70 KiB + 256 x 1.6 KiB, below the straddle. */
		T = used > BATCH_ROOM / 2 ? rn(1600) : gen_size();
		p = bbuf + used;
		bad_at = T;
		switch (rn(30)) {
		case 0: /* unmapped */
			p = (unsigned char *)bad_user;
			bad_at = 0;
			break;
		case 1: /* kernel memory: access_ok() refuses it */
			p = BAD_KERNEL;
			kern = 1;
			break;
		case 2: /* runs into the unmapped page after bbuf */
			if (straddle || !T)
				break;
			straddle = 1;
			bad_at = rn(T);
			p = bbuf + BATCH_ROOM - bad_at;
			break;
		}
		if (p != (unsigned char *)bad_user && !kern) {
			unsigned char tmp[MAXT];

			fill_frame(tmp, T, s->meta, vnet, a, &gap);
			memcpy(p, tmp, bad_at);
			if (p == bbuf + used)
				used += T + rn(16);
			want[i] = predict_buf(s, tmp, T, bad_at, 0, 1);
		} else {
			/* Unreadable from the first byte: only a runt that
			 * write() would refuse before reading is consumed. */
			want[i] = kern ? WR_EFAULT_META :
				  predict_buf(s, pool, T, 0, 0, 1);
		}
		bdesc[i] = (struct tapx_desc){ .addr = (uintptr_t)p, .len = T,
					       .status = 12345 };
		if (i < stop && (want[i] == WR_EFAULT_META ||
				 want[i] == WR_EFAULT_FILL))
			stop = i;
	}
	return stop;
}

/* Counts the frames a batch consumed, each with the status its prediction
 * wants, and none written after the stop; ctx names the first mismatch. */
static void submit_count(struct stable *s, struct sacct *a, unsigned int n,
			 const enum wres *want, unsigned int stop, char *ctx,
			 size_t ctxlen)
{
	unsigned int i;

	for (i = 0; i < stop; i++) {
		int st_want = want[i] == WR_OK ? 0 : -EINVAL;

		if (bdesc[i].status != st_want) {
			snprintf(ctx, ctxlen,
				 "%s desc %u of %u: status %d, want %d (len %u)",
				 s->name, i, n, bdesc[i].status, st_want,
				 bdesc[i].len);
			outcome(OP_SUBMIT_S, EPROTO, NULL, ctx);
		}
		if (bdesc[i].status == 0) {
			a->w_ok++;
			a->b_ok++;
			me->bytes_written += bdesc[i].len;
		} else if (bdesc[i].status == -EINVAL) {
			a->w_einval++;
			a->b_einval++;
		}
	}
	for (i = stop; i < n; i++)
		if (bdesc[i].status != 12345)
			outcome(OP_SUBMIT_S, EPROTO, NULL,
				"a descriptor after the stop was written");
	if (stop < n)
		a->b_stop++;
}

/*
 * TAPXSUBMIT of 1..64 frames (sometimes 256) to a stable device, each
 * predicted as write() of the same bytes is (predict_buf), with what the
 * batch changes (docs/batch.md): a descriptor whose bytes cannot be read
 * (header or frame, unmapped or kernel memory) stops the batch there with
 * -EFAULT and is counted nowhere; the frames before it were consumed, each
 * with status 0 (rx_packets) or -EINVAL (rx_errors). Now and then the
 * whole call is refused (count 0 or > 256, flags or reserved set, bad
 * descriptor array), consuming nothing.
 */
void op_submit_stable(void)
{
	int d = rn(NSTABLE), refuse, stop_err, err;
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	enum wres want[TAPX_BATCH_MAX];
	unsigned int n = rn(8) ? 1 + rn(16) : rn(4) ? 1 + rn(64) : TAPX_BATCH_MAX;
	struct tapx_batch b = { .descs = (uintptr_t)bdesc, .count = n };
	unsigned int i, stop;
	char ctx[128];
	long r;

	refuse = submit_refusal(&b);
	stop = submit_descs(s, a, n, want);
	stop_err = stop < n ? EFAULT : 0;
	b.done = 0xdead;
	r = ioctl(s->fd, TAPXSUBMIT, &b);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx),
		 "%s count %u refuse %d stop %u ret %ld errno %d done %u", s->name,
		 b.count, refuse, stop, r, err, b.done);
	if (refuse) {
		if (err == refuse && (b.done == 0 || refuse == EFAULT)) {
			outcome(OP_SUBMIT_S, err, EXP(EINVAL, EFAULT), ctx);
			return;
		}
		outcome(OP_SUBMIT_S, err ? err : EPROTO, NULL, ctx);
		return;
	}
	if (err != stop_err || b.done != stop) {
		/* Count what the driver says it consumed, and fail. */
		for (i = 0; i < b.done && i < n; i++)
			if (bdesc[i].status == 0)
				a->w_ok++, a->b_ok++;
			else if (bdesc[i].status == -EINVAL)
				a->w_einval++, a->b_einval++;
		outcome(OP_SUBMIT_S, err ? err : EPROTO, NULL, ctx);
		return;
	}
	submit_count(s, a, n, want, stop, ctx, sizeof(ctx));
	outcome(OP_SUBMIT_S, err, EXP(EFAULT), ctx);
}

/*
 * TAPXRECV of 1..32 buffers from a stable device (nonblocking): every
 * descriptor before batch.done took one frame off the ring (status 0,
 * -EMSGSIZE when cut, -EINVAL when its buffer cannot hold the headers),
 * as one read() each; a bad buffer (unmapped, kernel) stops the batch at
 * itself with -EFAULT without taking a frame, and an empty ring ends it
 * (-EAGAIN only at the first descriptor).
 */
void op_recv_stable(void)
{
	int d = rn(NSTABLE), err, bad[32] = { 0 };
	size_t blen[32];
	struct stable *s = &st[d];
	struct sacct *a = &me->s[d];
	unsigned int n = 1 + rn(rn(4) ? 8 : 32), i;
	struct tapx_batch b = { .descs = (uintptr_t)bdesc, .count = n };
	size_t per = (BATCH_ROOM / 32) & ~63UL;
	char ctx[128];
	long r;

	for (i = 0; i < n; i++) {
		void *p = bbuf + i * per;
		size_t len = MAXT;

		switch (rn(12)) {
		case 0:
			len = rn(16);
			break;
		case 1:
			len = 14 + rn(200);
			break;
		case 2:
			p = bad_user;
			len = 1 + rn(200);
			bad[i] = 1;
			break;
		case 3:
			if (rn(3) == 0) {
				p = BAD_KERNEL;
				len = 1 + rn(200);
				bad[i] = 1;
			}
			break;
		}
		bdesc[i] = (struct tapx_desc){ .addr = (uintptr_t)p, .len = len,
					       .status = 12345 };
		blen[i] = len;
	}
	b.done = 0xdead;
	r = ioctl(s->fd, TAPXRECV, &b);
	err = r < 0 ? errno : 0;
	snprintf(ctx, sizeof(ctx), "%s count %u ret %ld errno %d done %u",
		 s->name, n, r, err, b.done);
	if (b.done > n) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	for (i = 0; i < b.done; i++) {
		int stt = bdesc[i].status;

		a->r_consumed++;
		a->b_recv++;
		if (bdesc[i].len > 0)
			a->r_ok++;
		if (bad[i]) {
			snprintf(ctx, sizeof(ctx),
				 "%s desc %u: a bad buffer took a frame", s->name,
				 i);
			outcome(OP_RECV_S, EPROTO, NULL, ctx);
		}
		/*
		 * -EINVAL: the buffer cannot hold the headers, or (vnet
		 * header) the skb's offloads have no vnet form; nothing stored.
		 */
		if (stt != 0 && stt != -EMSGSIZE &&
		    !(stt == -EINVAL && bdesc[i].len == 0 &&
		      (blen[i] < (size_t)s->meta || (s->flags & IFF_VNET_HDR)))) {
			snprintf(ctx, sizeof(ctx),
				 "%s desc %u: status %d len %u (buffer %zu)",
				 s->name, i, stt, bdesc[i].len, blen[i]);
			outcome(OP_RECV_S, EPROTO, NULL, ctx);
		}
	}
	if (err == EFAULT && !(b.done < n && bad[b.done])) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	if (err == EAGAIN && b.done) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	if (!err && !b.done) {
		outcome(OP_RECV_S, EPROTO, NULL, ctx);
		return;
	}
	outcome(OP_RECV_S, err, EXP(EAGAIN, EFAULT), ctx);
}
