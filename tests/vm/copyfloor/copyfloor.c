// SPDX-License-Identifier: GPL-2.0
/*
 * copyfloor: a second benchmark floor beside write() to /dev/null. Each
 * write() to /dev/copyfloor is copied into the file's buffer the way tapx
 * copies a frame (copy_page_from_iter() into page memory) and forgotten:
 * no device, no lock, no XDP, and the plain .write entry /dev/null has.
 * A driver that must copy every written frame once cannot take less per
 * write than this; tests/vm/bench.sh reports it next to tapx.
 */
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uio.h>

/* Room for the largest frame tapx takes (64 KiB) in one compound page. */
#define COPYFLOOR_MAX 65536
#define COPYFLOOR_ORDER get_order(COPYFLOOR_MAX)

static int copyfloor_open(struct inode *inode, struct file *file)
{
	struct page *page;

	page = alloc_pages(GFP_KERNEL | __GFP_COMP, COPYFLOOR_ORDER);
	if (!page)
		return -ENOMEM;
	file->private_data = page;
	return 0;
}

static int copyfloor_release(struct inode *inode, struct file *file)
{
	__free_pages(file->private_data, COPYFLOOR_ORDER);
	return 0;
}

static ssize_t copyfloor_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *ppos)
{
	struct iov_iter from;

	if (len > COPYFLOOR_MAX)
		return -EINVAL;
	iov_iter_ubuf(&from, ITER_SOURCE, (void __user *)buf, len);
	if (copy_page_from_iter(file->private_data, 0, len, &from) != len)
		return -EFAULT;
	return len;
}

static const struct file_operations copyfloor_fops = {
	.owner = THIS_MODULE,
	.open = copyfloor_open,
	.release = copyfloor_release,
	.write = copyfloor_write,
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
