// SPDX-License-Identifier: GPL-2.0
/*
 * tapx write path, first stage: write()/writev()/io_uring writes enter here.
 * The PI and vnet headers in front of a frame are read and checked
 * (tapx_parse.h), the frame is copied once into buffers with XDP headroom
 * (tapx_buf.c) and handed to XDP (tapx_xdp.c), which decides what becomes
 * of it.
 *
 * No lock and no device reference: a frame that fits one page is written
 * in one bound section (tapx_bound_begin(), tapx.h), copied with page
 * faults disabled (tapx_write_fast()); anything that may have to sleep
 * takes tapx_write_slow(), whose bound section looks the device up again
 * after its copy.
 *
 * TAPXSUBMIT (tapx_batch.c) uses the same parsing and copy for each frame;
 * tapx_wframe_copy() is inlined into both callers (tapx_parse.h), and the
 * XDP stage's per-frame half into the write path (tapx_xdp.h).
 */
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "compat.h"
#include "tapx.h"
#include "tapx_buf.h"
#include "tapx_parse.h"
#include "tapx_xdp.h"

/* tapx_write_fast(): the frame needs tapx_write_slow(). */
#define TAPX_WRITE_SLOW (-EAGAIN)

/*
 * A frame of up to TAPX_LINEAR_MAX bytes, in one bound section from the
 * lookup of the binding to the verdict: no device reference, and a buffer
 * of this CPU's cache. The headers and the frame are copied with page
 * faults disabled, so nothing here sleeps; a fault, a larger frame or a
 * cache that cannot give a buffer without sleeping returns TAPX_WRITE_SLOW
 * with @from as it was, and nothing counted.
 */
static __always_inline ssize_t tapx_write_fast(struct tapx_file *tfile,
					       struct iov_iter *from)
{
	size_t total = iov_iter_count(from);
	struct tapx_xdp_section xs __uninitialized;
	struct tapx_wframe f;
	struct tapx_dev *tapx;
	struct tapx_write_cfg cfg;
	bool flush = false;
	ssize_t ret;

	tapx = tapx_bound_begin(&xs, tfile);
	if (unlikely(!tapx)) {
		ret = -EBADFD;
		goto out;
	}
	tapx_write_cfg_get(tapx, &cfg);
	/* L3 packets become skbs (tapx_l3.c), in a section that may sleep. */
	if (unlikely(cfg.flags & IFF_TUN)) {
		ret = TAPX_WRITE_SLOW;
		goto out;
	}

	pagefault_disable();
	ret = __tapx_parse_meta(&cfg, from, &f);
	if (unlikely(ret == -EINVAL)) {
		pagefault_enable();
		tapx_write_failed(tapx, ret);
		goto out;
	}
	if (unlikely(ret) || f.len > TAPX_LINEAR_MAX)
		goto slow;
	f.buflen = tapx_buf_bytes(f.len);
	f.buf = tapx_buf_get(tapx_bufs_lock(), f.buflen);
	tapx_bufs_unlock();
	if (unlikely(!f.buf))
		goto slow;
	if (unlikely(!tapx_copy_in(f.buf + TAPX_HEADROOM, f.len, from))) {
		tapx_buf_put(tapx_bufs_lock(), f.buf, f.buflen);
		tapx_bufs_unlock();
		goto slow;
	}
	pagefault_enable();

	flush = __tapx_wframes_run(tfile, tapx, &f, 1);
	ret = total;
out:
	tapx_bound_end(&xs, tfile, tapx, flush);
	return ret;

slow:
	pagefault_enable();
	iov_iter_revert(from, total - iov_iter_count(from));
	ret = TAPX_WRITE_SLOW;
	goto out;
}

/*
 * The write path that may sleep. What it needs of the device is read
 * under RCU first; the copy then runs outside any RCU section and touches
 * no device, and the bound section looks the binding up anew before XDP
 * runs, so a detach or a deletion during the copy neither waits for it nor
 * is raced by it.
 * A file rebound to another device meanwhile gets -EBADFD. (Only the
 * pointers are compared: were the device freed and another allocated at
 * the same address and bound to this file during one copy, the frame would
 * meet the new device's program, parsed with the old one's flags: a frame
 * written concurrently with TUNSETIFF, whose order is not defined anyway.)
 */
static noinline ssize_t tapx_write_slow(struct tapx_file *tfile,
					struct iov_iter *from)
{
	size_t total = iov_iter_count(from);
	struct tapx_xdp_section xs __uninitialized;
	struct tapx_dev *tapx, *now;
	struct tapx_wframe f;
	struct tapx_write_cfg cfg;
	bool flush = false;
	ssize_t ret;
	int err;

	tapx = tapx_write_cfg_bound(tfile, &cfg);
	if (!tapx)
		return -EBADFD;
	if (cfg.flags & IFF_TUN)
		return tapx_l3_write(tfile, tapx, &cfg, from);

	err = tapx_wframe_copy(&cfg, from, &f);

	now = tapx_bound_begin(&xs, tfile);
	if (unlikely(err)) {
		if (now == tapx)
			tapx_write_failed(now, err);
		ret = err;
	} else if (unlikely(now != tapx)) {
		/* Detached while we copied: the ring may be purged already. */
		tapx_wframe_drop(&f);
		ret = -EBADFD;
	} else {
		/* The XDP stage out of line: the fast path has it inlined. */
		flush = tapx_wframes_run(tfile, now, &f, 1);
		ret = total;
	}
	tapx_bound_end(&xs, tfile, now, flush);
	return ret;
}

/* One frame; inlined into write(), which per-frame writers call most. */
static __always_inline ssize_t __tapx_write(struct tapx_file *tfile,
					    struct iov_iter *from)
{
	ssize_t ret;

	ret = tapx_write_fast(tfile, from);
	if (likely(ret != TAPX_WRITE_SLOW))
		return ret;
	return tapx_write_slow(tfile, from);
}

/* writev(), io_uring writes and vhost-net's per-packet sendmsg. */
ssize_t tapx_write(struct tapx_file *tfile, struct iov_iter *from)
{
	return __tapx_write(tfile, from);
}

/* writev(), io_uring and aio writes. */
ssize_t tapx_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	return tapx_write(iocb->ki_filp->private_data, from);
}

/*
 * write(): the same, without the kiocb new_sync_write() would set up for
 * tapx_write_iter() (it needs none), as /dev/null has its .write.
 */
ssize_t tapx_chr_write(struct file *file, const char __user *buf, size_t len,
		       loff_t *ppos)
{
	struct iov_iter from;

	iov_iter_ubuf(&from, ITER_SOURCE, (void __user *)buf, len);
	return __tapx_write(file->private_data, &from);
}
