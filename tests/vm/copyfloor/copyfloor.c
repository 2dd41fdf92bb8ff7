// SPDX-License-Identifier: GPL-2.0
/*
 * copyfloor: a second benchmark floor beside write() to /dev/null. Each
 * write() to /dev/copyfloor is copied into the file's buffer the way tapx
 * copies a frame (copy_page_from_iter() into page memory) and forgotten:
 * no device, no lock, no XDP, and the plain .write entry /dev/null has.
 * writev() and io_uring writes take .write_iter, as they do on tapx, and
 * copy the same way from the iterator.
 * TAPXSUBMIT (kmod/uapi/linux/tapx.h) does the same for each frame of a batch.
 * A driver that must copy every written frame once cannot take less per
 * write, or per frame of a batch, than this; tests/vm/bench.sh reports it
 * next to tapx.
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "uapi/linux/tapx.h"

/* Room for the largest frame tapx takes (64 KiB) in one compound page. */
#define COPYFLOOR_MAX 65536
#define COPYFLOOR_ORDER get_order(COPYFLOOR_MAX)

struct copyfloor_file {
	struct page *page;
	struct tapx_desc descs[TAPX_BATCH_MAX];
};

static int copyfloor_open(struct inode *inode, struct file *file)
{
	struct copyfloor_file *cf;

	cf = kzalloc(sizeof(*cf), GFP_KERNEL);
	if (!cf)
		return -ENOMEM;
	cf->page = alloc_pages(GFP_KERNEL | __GFP_COMP, COPYFLOOR_ORDER);
	if (!cf->page) {
		kfree(cf);
		return -ENOMEM;
	}
	file->private_data = cf;
	return 0;
}

static int copyfloor_release(struct inode *inode, struct file *file)
{
	struct copyfloor_file *cf = file->private_data;

	__free_pages(cf->page, COPYFLOOR_ORDER);
	kfree(cf);
	return 0;
}

/* Copies one frame into the buffer: 0, -EINVAL (too long) or -EFAULT. */
static int copyfloor_copy(struct copyfloor_file *cf, void __user *buf,
			  size_t len)
{
	struct iov_iter from;

	if (len > COPYFLOOR_MAX)
		return -EINVAL;
	iov_iter_ubuf(&from, ITER_SOURCE, buf, len);
	if (copy_page_from_iter(cf->page, 0, len, &from) != len)
		return -EFAULT;
	return 0;
}

static ssize_t copyfloor_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	int err = copyfloor_copy(file->private_data, (void __user *)buf, len);

	return err ? err : len;
}

static ssize_t copyfloor_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct copyfloor_file *cf = iocb->ki_filp->private_data;
	size_t len = iov_iter_count(from);

	if (len > COPYFLOOR_MAX)
		return -EINVAL;
	if (copy_page_from_iter(cf->page, 0, len, from) != len)
		return -EFAULT;
	return len;
}

/* TAPXSUBMIT's ABI and contract, minus everything but the copies. */
static long copyfloor_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct tapx_batch __user *ub = (void __user *)arg;
	struct copyfloor_file *cf = file->private_data;
	struct tapx_desc *d = cf->descs;
	struct tapx_batch b;
	long err = 0;
	u32 n;

	if (cmd != TAPXSUBMIT)
		return -ENOTTY;
	if (copy_from_user(&b, ub, sizeof(b)))
		return -EFAULT;
	if (!b.count || b.count > TAPX_BATCH_MAX || b.flags || b.reserved)
		return -EINVAL;
	if (copy_from_user(d, u64_to_user_ptr(b.descs), b.count * sizeof(*d)))
		return -EFAULT;
	for (n = 0; n < b.count; n++) {
		d[n].status = copyfloor_copy(cf, u64_to_user_ptr(d[n].addr),
					     d[n].len);
		if (d[n].status == -EFAULT) {
			err = -EFAULT;
			break;
		}
	}
	if (n && copy_to_user(u64_to_user_ptr(b.descs), d, n * sizeof(*d)))
		err = -EFAULT;
	if (put_user(n, &ub->done))
		err = -EFAULT;
	return err;
}

static const struct file_operations copyfloor_fops = {
	.owner = THIS_MODULE,
	.open = copyfloor_open,
	.release = copyfloor_release,
	.write = copyfloor_write,
	.write_iter = copyfloor_write_iter,
	.unlocked_ioctl = copyfloor_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice copyfloor_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "copyfloor",
	.fops = &copyfloor_fops,
};

module_misc_device(copyfloor_misc);

MODULE_DESCRIPTION("Benchmark floor: copy each write once, then drop it");
MODULE_LICENSE("GPL");
