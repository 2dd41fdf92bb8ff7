// SPDX-License-Identifier: GPL-2.0
/*
 * tapx batch ioctls (uapi/tapx.h): TAPXSUBMIT writes many frames and
 * TAPXRECV reads many in one system call, each frame exactly as write()
 * and read() would take or return it.
 *
 * Submit copies the batch's frames into their buffers first (that may
 * fault and sleep), then runs XDP on all of them in one BH-disabled RCU
 * section and flushes redirects once; large frames go in rounds of at most
 * TAPX_ROUND_BYTES of buffers. Submit takes no lock and no device
 * reference: what the copy needs of the device is read under RCU first,
 * and each round's bound section looks the binding up again (as
 * tapx_write_slow() does). One descriptor copy in each direction per
 * batch.
 */
#include <linux/if_tun.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "compat.h"
#include "tapx.h"
#include "tapx_buf.h"
#include "tapx_parse.h"
#include "tapx_ring.h"

/* Batches up to this size keep their descriptors on the stack. */
#define TAPX_BATCH_ONSTACK 8

/*
 * Frames up to this size are copied a word at a time, several in one
 * user-access window (tapx_wframes_copy_short()).
 */
#define TAPX_SHORT_COPY 256

/*
 * Buffers one round of a batch copies before its frames meet XDP. Small
 * enough that the round's buffers are still in the CPU's cache when the
 * program reads them and when the next round reuses them: a round as
 * large as the spare cache outgrows it, and large frames would then cost
 * more in a batch than in write()s of their own.
 */
#define TAPX_ROUND_BYTES (64 * 1024)

/*
 * Counts a frame into a round of a batch: false once the round's buffers
 * would pass TAPX_ROUND_BYTES (a round's first frame always goes in).
 */
static bool tapx_round_add(unsigned int *bytes, u32 len, bool first)
{
	BUILD_BUG_ON(TAPX_ROUND_BYTES > TAPX_SPARE_BYTES);
	/* The length with PI and vnet headers: a little over. */
	*bytes += tapx_buf_bytes(min_t(u32, len, TAPX_MAX_FRAME));
	return first || *bytes <= TAPX_ROUND_BYTES;
}

/*
 * Inside a user-access window: copies @n >= 8 bytes a word at a time, the
 * tail as one more word that overlaps the one before. False on a fault.
 */
static __always_inline bool tapx_get_words(void *to, const void __user *from,
					   size_t n)
{
	size_t off;
	u64 w;

	for (off = 0; off + sizeof(w) < n; off += sizeof(w)) {
		unsafe_get_user(w, (const u64 __user *)(from + off), fault);
		put_unaligned(w, (u64 *)(to + off));
	}
	off = n - sizeof(w);
	unsafe_get_user(w, (const u64 __user *)(from + off), fault);
	put_unaligned(w, (u64 *)(to + off));
	return true;
fault:
	return false;
}

/*
 * The run of short frames (TAPX_SHORT_COPY) at the front of @d, each long
 * enough for its headers and an Ethernet header, addresses checked. A runt
 * ends the run: the per-frame path fails it exactly as write() would.
 * Returns the run's length; *errp is set if the frame after it faults.
 */
static u32 tapx_short_run(struct tapx_desc *d, u32 count, unsigned int meta,
			  unsigned int *bytes, bool first, int *errp)
{
	u32 n;

	for (n = 0; n < count; n++) {
		const void __user *p = u64_to_user_ptr(d[n].addr);

		if (d[n].len < meta + TAPX_MIN_FRAME ||
		    d[n].len > meta + TAPX_SHORT_COPY)
			break;
		if (!tapx_round_add(bytes, d[n].len, first && !n))
			break;
		if (unlikely(!access_ok(p, d[n].len))) {
			*errp = -EFAULT;
			break;
		}
	}
	return n;
}

/*
 * Reads the PI and vnet headers of frames [0, n) in one user-access window
 * (the PI only to fault where write() would). The window opens on the
 * first frame; all of them passed access_ok(). Returns the index of the
 * frame that faulted, or n.
 */
static u32 tapx_short_headers(struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			      unsigned int pi, unsigned int vnet_sz)
{
	u32 i, word;

	if (!user_read_access_begin(u64_to_user_ptr(d[0].addr), d[0].len))
		return 0;
	for (i = 0; i < n; i++) {
		const void __user *p = u64_to_user_ptr(d[i].addr);

		if (pi)
			unsafe_get_user(word, (const u32 __user *)p, fault);
		if (vnet_sz &&
		    !tapx_get_words(&f[i].vnet, p + pi, sizeof(f[i].vnet)))
			goto fault;
		if (tapx_vnet_has_tnl(&f[i].vnet, vnet_sz)) {
			unsafe_get_user(word,
					(const u32 __user *)(p + pi +
							     TAPX_VNET_TNL_OFF),
					fault);
			memcpy(&f[i].tnl, &word, sizeof(f[i].tnl));
		}
	}
	user_read_access_end();
	return n;
fault:
	user_read_access_end();
	return i;
}

/*
 * Takes a buffer for each frame of [0, n) whose vnet header is good; a
 * frame with a bad one gets none (malformed). Returns n, or the index of
 * the frame no memory was left for (*errp = -ENOMEM).
 */
static u32 tapx_short_bufs(const struct tapx_write_cfg *cfg,
			   struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			   unsigned int meta, int *errp)
{
	struct tapx_buf_cache *c = tapx_bufs_lock();
	u32 i;

	for (i = 0; i < n; i++) {
		f[i].len = d[i].len - meta;
		f[i].buf = NULL;
		f[i].has_vnet = false;
		if (cfg->vnet_hdr_sz &&
		    tapx_parse_vnet(cfg->flags, cfg->vnet_hdr_sz, &f[i]))
			continue;
		f[i].buflen = tapx_buf_bytes(f[i].len);
		f[i].buf = tapx_buf_get(c, f[i].buflen);
		if (unlikely(!f[i].buf)) {
			/* None without sleeping: one that may sleep. */
			tapx_bufs_unlock();
			f[i].buf = tapx_buf_alloc(&f[i].buflen);
			c = tapx_bufs_lock();
			if (!f[i].buf) {
				*errp = -ENOMEM;
				break;
			}
		}
	}
	tapx_bufs_unlock();
	return i;
}

/*
 * Copies the frames of [0, n) that have a buffer in one user-access
 * window. Returns the index of the frame that faulted, or n.
 */
static u32 tapx_short_bodies(struct tapx_desc *d, struct tapx_wframe *f, u32 n,
			     unsigned int meta)
{
	u32 i;

	if (!user_read_access_begin(u64_to_user_ptr(d[0].addr), d[0].len))
		return 0;
	for (i = 0; i < n; i++) {
		const void __user *p = u64_to_user_ptr(d[i].addr) + meta;

		if (f[i].buf &&
		    !tapx_get_words(f[i].buf + TAPX_HEADROOM, p, f[i].len))
			goto fault;
	}
	user_read_access_end();
	return n;
fault:
	user_read_access_end();
	return i;
}

/*
 * Copies the run of short frames at the front of a round: no string copy,
 * no iov_iter, and one STAC/CLAC for the run's headers and one for their
 * bodies instead of one for each, which for frames this short would weigh
 * as much as their copy. Nothing may be called in a window, so buffers are
 * taken and vnet headers checked between the two. Each frame fails as
 * write() would fail it: unreadable headers, then a bad vnet header, then
 * an unreadable body. Returns the frames consumed and sets *errp as
 * tapx_wframes_copy().
 */
static u32 tapx_wframes_copy_short(const struct tapx_write_cfg *cfg,
				   struct tapx_desc *d, struct tapx_wframe *f,
				   u32 count, unsigned int *bytes, bool first,
				   int *errp)
{
	unsigned int pi = cfg->flags & IFF_NO_PI ? 0 : sizeof(struct tun_pi);
	unsigned int vnet_sz = cfg->vnet_hdr_sz, meta = pi + vnet_sz;
	u32 n, k, i;

	n = tapx_short_run(d, count, meta, bytes, first, errp);
	if (n && meta) {
		k = tapx_short_headers(d, f, n, pi, vnet_sz);
		if (unlikely(k < n)) {
			n = k;
			*errp = -EFAULT;
		}
	}
	n = tapx_short_bufs(cfg, d, f, n, meta, errp);
	k = n ? tapx_short_bodies(d, f, n, meta) : 0;
	if (unlikely(k < n)) {
		/* Frame k faulted: it and those after it stay unconsumed. */
		for (i = k; i < n; i++)
			if (f[i].buf)
				tapx_buf_free(f[i].buf, f[i].buflen);
		*errp = -EFAULT;
	}

	/* Malformed frames are counted in rx_errors when the round runs. */
	for (i = 0; i < k; i++)
		d[i].status = f[i].buf ? 0 : -EINVAL;
	return k;
}

/**
 * tapx_wframes_copy - copy one round of a batch's frames (TAPXSUBMIT)
 * @cfg: what the copy needs of the device, read under RCU before; the copy
 *     may sleep and touches no device
 * @d: the batch's descriptors; d[i].status is set for each frame consumed
 * @f: filled in for each frame consumed; buf is NULL for a malformed one
 * @count: number of descriptors
 * @errp: 0, or why the batch stopped early (-EFAULT, -ENOMEM)
 *
 * Returns the number of frames consumed: all of them, or fewer once their
 * buffers reach TAPX_ROUND_BYTES. The caller runs XDP on those before the
 * next round, so that a batch of large (GSO) frames holds a bounded amount
 * of memory and the buffers dropped in one round are reused in the next.
 * A malformed frame is consumed with status -EINVAL and the batch goes on;
 * it is counted in rx_errors when its round runs (tapx_wframes_run()).
 * The per-frame copy (tapx_wframe_copy) and the buffer cache's fast path
 * are inlined from tapx_parse.h and tapx_buf.h: they run for every frame.
 */
static u32 tapx_wframes_copy(const struct tapx_write_cfg *cfg,
			     struct tapx_desc *d, struct tapx_wframe *f,
			     u32 count, int *errp)
{
	unsigned int bytes = 0;
	struct iov_iter from;
	int err = 0;
	u32 n = 0, k;

	while (n < count && !err) {
		k = tapx_wframes_copy_short(cfg, d + n, f + n, count - n,
					    &bytes, !n, &err);
		n += k;
		if (k || err || n == count)
			continue;

		/* A frame too large for the short copy. */
		if (!tapx_round_add(&bytes, d[n].len, !n))
			break;
		err = tapx_ubuf(ITER_SOURCE, d[n].addr, d[n].len, &from);
		if (unlikely(err))
			break;
		err = tapx_wframe_copy(cfg, &from, &f[n]);
		if (unlikely(err == -EINVAL)) {
			d[n].status = -EINVAL;
			err = 0;
		} else if (unlikely(err)) {
			break;
		} else {
			d[n].status = 0;
		}
		n++;
	}
	*errp = err;
	return n;
}

/*
 * Runs XDP on frames [0, n) of a batch; returns false if the file is no
 * longer bound to @tapx, the device the batch's copy was made for (only
 * compared, never dereferenced unless found bound here).
 */
static bool tapx_submit_run(struct tapx_file *tfile, struct tapx_dev *tapx,
			    struct tapx_wframe *f, u32 n)
{
	struct tapx_xdp_section xs __uninitialized;
	bool flush = false, attached;
	struct tapx_dev *now;
	u32 i;

	now = tapx_bound_begin(&xs, tfile);
	/* Detached while we copied: the ring may be purged already. */
	attached = now == tapx;
	if (likely(attached)) {
		flush = tapx_wframes_run(tfile, now, f, n);
	} else {
		for (i = 0; i < n; i++)
			if (f[i].buf)
				tapx_wframe_drop(&f[i]);
	}
	tapx_bound_end(&xs, tfile, now, flush);
	return attached;
}

/* Copies and runs the batch in rounds (see tapx_wframes_copy()). */
static int tapx_submit(struct tapx_file *tfile, struct tapx_desc *d,
		       struct tapx_wframe *f, u32 count, u32 *done)
{
	struct tapx_dev *tapx;
	struct tapx_write_cfg cfg;
	int err = 0;
	u32 n, k;

	tapx = tapx_write_cfg_bound(tfile, &cfg);
	*done = 0;
	if (!tapx)
		return -EBADFD;
	/* Batches run XDP, which L3 devices do not have. */
	if (cfg.flags & IFF_TUN)
		return -EOPNOTSUPP;

	for (n = 0; n < count && !err; n += k) {
		k = tapx_wframes_copy(&cfg, d + n, f + n, count - n, &err);
		if (k && !tapx_submit_run(tfile, tapx, f + n, k)) {
			/* This round's frames were dropped, not consumed. */
			err = -EBADFD;
			break;
		}
	}
	*done = n;
	return err;
}

/*
 * Fills one descriptor with the next frame. Only the first descriptor
 * waits (unless @noblock); later ones return -EAGAIN on an empty ring,
 * which ends the batch. The buffer is faulted in before the frame is
 * taken, so that a bad buffer stops the batch without losing a frame.
 */
static int tapx_recv_one(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct tapx_desc *d, bool noblock)
{
	struct iov_iter to;
	bool truncated;
	ssize_t ret;
	void *ptr;
	int err;

	err = tapx_ubuf(ITER_DEST, d->addr, d->len, &to);
	if (err)
		return err;
	ptr = tapx_ring_take(tfile, tapx, noblock, u64_to_user_ptr(d->addr),
			     d->len);
	if (IS_ERR(ptr))
		return PTR_ERR(ptr);

	ret = tapx_copy_ptr(tapx, ptr, &to, &truncated);
	if (ret == -EFAULT)
		return -EFAULT; /* unmapped since the fault-in: frame lost */
	if (ret < 0) {
		d->len = 0;
		d->status = ret;
	} else {
		d->len = ret;
		d->status = truncated ? -EMSGSIZE : 0;
	}
	return 0;
}

static int tapx_recv(struct tapx_file *tfile, struct tapx_dev *tapx,
		     struct tapx_desc *d, u32 count, bool noblock, u32 *done)
{
	int err = 0;
	u32 n;

	for (n = 0; n < count; n++) {
		err = tapx_recv_one(tfile, tapx, &d[n], n || noblock);
		if (err)
			break;
	}
	*done = n;
	/* A later descriptor found the ring empty: the batch is complete. */
	if (err == -EAGAIN && n)
		err = 0;
	return err;
}

/*
 * The descriptors are read, and their results written back, in one
 * user-access window each: the fields one by one cost less than a string
 * copy and hardened usercopy's check of the array.
 */
static int tapx_descs_read(struct tapx_desc *d,
			   const struct tapx_desc __user *ud, u32 n)
{
	u32 i;

	if (!user_read_access_begin(ud, n * sizeof(*ud)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		unsafe_get_user(d[i].addr, &ud[i].addr, fault);
		unsafe_get_user(d[i].len, &ud[i].len, fault);
	}
	user_read_access_end();
	return 0;
fault:
	user_read_access_end();
	return -EFAULT;
}

/* Writes back status, and for TAPXRECV len, of descriptors [0, n). */
static int tapx_descs_write(struct tapx_desc __user *ud,
			    const struct tapx_desc *d, u32 n, bool len)
{
	u32 i;

	if (!user_write_access_begin(ud, n * sizeof(*ud)))
		return -EFAULT;
	for (i = 0; i < n; i++) {
		if (len)
			unsafe_put_user(d[i].len, &ud[i].len, fault);
		unsafe_put_user(d[i].status, &ud[i].status, fault);
	}
	user_write_access_end();
	return 0;
fault:
	user_write_access_end();
	return -EFAULT;
}

/*
 * TAPXSUBMIT or TAPXRECV, as @cmd says (their old numbers mapped to these
 * by the caller); no rtnl: the data paths need none.
 */
long tapx_batch_ioctl(struct file *file, unsigned int cmd,
		      struct tapx_batch __user *ub)
{
	struct tapx_wframe frames_stack[TAPX_BATCH_ONSTACK], *frames;
	struct tapx_desc descs_stack[TAPX_BATCH_ONSTACK], *descs;
	struct tapx_file *tfile = file->private_data;
	struct tapx_desc __user *udescs;
	bool submit = cmd == TAPXSUBMIT;
	struct tapx_dev *tapx;
	struct tapx_batch b;
	void *mem = NULL;
	u32 done = 0;
	long ret;

	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	udescs = u64_to_user_ptr(b.descs);
	ret = -EINVAL;
	if (!b.count || b.count > TAPX_BATCH_MAX || b.flags || b.reserved)
		goto out_done;
	/* Submit looks the binding up by itself, without a reference. */
	ret = -EBADFD;
	tapx = NULL;
	if (!submit) {
		tapx = tapx_get(tfile);
		if (!tapx)
			goto out_done;
	} else if (!rcu_access_pointer(tfile->tapx)) {
		goto out_done;
	}

	descs = descs_stack;
	frames = frames_stack;
	if (b.count > TAPX_BATCH_ONSTACK) {
		size_t one = sizeof(*descs) + (submit ? sizeof(*frames) : 0);

		ret = -ENOMEM;
		mem = kmalloc_array(b.count, one, GFP_KERNEL);
		if (!mem)
			goto out_put;
		frames = mem;
		descs = mem + (submit ? b.count * sizeof(*frames) : 0);
	}

	ret = tapx_descs_read(descs, udescs, b.count);
	if (ret)
		goto out_free;

	if (submit)
		ret = tapx_submit(tfile, descs, frames, b.count, &done);
	else
		ret = tapx_recv(tfile, tapx, descs, b.count,
				file->f_flags & O_NONBLOCK, &done);

	if (done && tapx_descs_write(udescs, descs, done, !submit))
		ret = -EFAULT;
out_free:
	kfree(mem);
out_put:
	if (tapx)
		dev_put(tapx->dev);
out_done:
	if (put_user(done, &ub->done))
		ret = -EFAULT;
	return ret;
}
