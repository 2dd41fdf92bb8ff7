// SPDX-License-Identifier: GPL-2.0
/*
 * tapx batch ioctls (uapi/tapx.h): TAPXSUBMIT writes many frames and
 * TAPXRECV reads many in one system call, each frame exactly as write()
 * and read() would take or return it.
 *
 * Submit copies the batch's frames into their buffers first (that may
 * fault and sleep), then runs XDP on all of them in one BH-disabled RCU
 * section and flushes redirects once; large frames go in rounds of at most
 * TAPX_SPARE_BYTES of buffers. One device reference, one write_lock and
 * one descriptor copy in each direction per batch.
 */
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "tapx.h"

/* Batches up to this size keep their descriptors on the stack. */
#define TAPX_BATCH_ONSTACK 8

/* Runs XDP on frames [0, n) of a batch; returns false if detached. */
static bool tapx_submit_run(struct tapx_file *tfile, struct tapx_dev *tapx,
			    struct tapx_wframe *f, u32 n)
{
	bool flush = false, attached;
	u32 i;

	local_bh_disable();
	rcu_read_lock();
	/* Detached while we copied: the ring may be purged already. */
	attached = rcu_access_pointer(tfile->tapx) == tapx;
	if (likely(attached)) {
		flush = tapx_wframes_run(tfile, tapx, f, n);
		tapx_napi_flush(tfile);
	} else {
		for (i = 0; i < n; i++)
			if (f[i].buf)
				tapx_wframe_drop(tfile, &f[i]);
	}
	if (flush)
		xdp_do_flush();
	rcu_read_unlock();
	local_bh_enable();
	return attached;
}

/* Copies and runs the batch in rounds (see tapx_wframes_copy()). */
static int tapx_submit(struct tapx_file *tfile, struct tapx_dev *tapx,
		       struct tapx_desc *d, struct tapx_wframe *f, u32 count,
		       u32 *done)
{
	int err = 0;
	u32 n, k;

	mutex_lock(&tfile->write_lock);
	for (n = 0; n < count && !err; n += k) {
		k = tapx_wframes_copy(tfile, tapx, d + n, f + n, count - n,
				      &err);
		if (k && !tapx_submit_run(tfile, tapx, f + n, k)) {
			/* This round's frames were dropped, not consumed. */
			err = -EBADFD;
			break;
		}
	}
	*done = n;
	mutex_unlock(&tfile->write_lock);
	return err;
}

/*
 * Fills one descriptor with the next frame. Only the first descriptor
 * waits; later ones return -EAGAIN on an empty ring, which ends the batch.
 */
static int tapx_recv_one(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct tapx_desc *d, bool wait, bool noblock)
{
	void __user *ubuf = u64_to_user_ptr(d->addr);
	struct iov_iter to;
	bool truncated;
	size_t need;
	ssize_t ret;
	void *ptr;
	int err;

	err = tapx_ubuf(ITER_DEST, d->addr, d->len, &to);
	if (err)
		return err;

	for (;;) {
		err = wait ? tapx_ring_wait(tfile, tapx, noblock) : 0;
		if (err)
			return err;
		need = tapx_ring_next_size(tfile, tapx);
		if (!need && !wait)
			return -EAGAIN;
		/*
		 * Fault the buffer in before taking the frame, so that a bad
		 * buffer stops the batch without losing a frame.
		 */
		if (need &&
		    fault_in_writeable(ubuf, min_t(size_t, d->len, need)))
			return -EFAULT;
		ptr = ptr_ring_consume(&tfile->ring);
		if (ptr)
			break;
		if (!wait)
			return -EAGAIN;
	}

	ret = tapx_put_ptr(tapx, ptr, &to, &truncated);
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
		err = tapx_recv_one(tfile, tapx, &d[n], n == 0, noblock);
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
 * copy and hardened usercopy's check of the array (about 5 % of a batched
 * 64-byte XDP_DROP in the VM).
 */
static int tapx_descs_get(struct tapx_desc *d,
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
static int tapx_descs_put(struct tapx_desc __user *ud,
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

/* TAPXSUBMIT and TAPXRECV; no rtnl: the data paths do not need it. */
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
	ret = -EBADFD;
	tapx = tapx_get(tfile);
	if (!tapx)
		goto out_done;

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

	ret = tapx_descs_get(descs, udescs, b.count);
	if (ret)
		goto out_free;

	if (submit)
		ret = tapx_submit(tfile, tapx, descs, frames, b.count, &done);
	else
		ret = tapx_recv(tfile, tapx, descs, b.count,
				file->f_flags & O_NONBLOCK, &done);

	if (done && tapx_descs_put(udescs, descs, done, !submit))
		ret = -EFAULT;
out_free:
	kfree(mem);
out_put:
	dev_put(tapx->dev);
out_done:
	if (put_user(done, &ub->done))
		ret = -EFAULT;
	return ret;
}
