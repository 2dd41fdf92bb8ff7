// SPDX-License-Identifier: GPL-2.0
/*
 * tapx's side of vhost-net: what tapx_tun.ko's tun_* exports answer
 * (kmod/README.md, "vhost-net", lists what vhost-net relies on). Each tapx
 * file has a socket for as long as it is open; vhost-net sends the guest's
 * frames through its sendmsg (one frame as one write(), or a batch of
 * page-sized xdp_buffs, each run through XDP like a written frame), and
 * takes frames for the guest straight off the file's reader ring
 * (tapx_ring.h), then hands each entry back to recvmsg to be copied out.
 * The file's socket and ring reach vhost-net through tapx_chr.c's exports.
 */
#include <linux/err.h>
#include <linux/if_tun.h>
#include <linux/module.h>
#include <net/sock.h>

#include "compat.h"
#include "tapx.h"
#include "tapx_ring.h"
#include "tapx_exports.h"

/* Largest batch vhost-net sends (its VHOST_NET_BATCH). */
#define TAPX_VHOST_BATCH 64

static struct proto tapx_proto = {
	.name = TAPX_DRV_NAME,
	.owner = THIS_MODULE,
	.obj_size = sizeof(struct sock),
};

static struct tapx_file *tapx_sock_file(struct socket *sock)
{
	return container_of(sock, struct tapx_file, sock);
}

/* A batch of vhost's xdp_buffs (TUN_MSG_PTR); all are consumed on >= 0. */
static int tapx_sendmsg_batch(struct tapx_file *tfile, struct xdp_buff *xbuffs,
			      unsigned int n)
{
	struct tapx_xdp_section xs __uninitialized;
	struct tapx_dev *tapx;
	bool flush = false;
	int ret = 0;

	if (n > TAPX_VHOST_BATCH)
		return -EINVAL;
	tapx = tapx_bound_begin(&xs, tfile);
	if (likely(tapx))
		flush = tapx_vhost_bufs_run(tfile, tapx, xbuffs, n);
	else
		ret = -EBADFD; /* vhost frees the buffers */
	tapx_bound_end(&xs, tfile, tapx, flush);
	return ret;
}

static int tapx_sendmsg(struct socket *sock, struct msghdr *m, size_t len)
{
	struct tapx_file *tfile = tapx_sock_file(sock);
	struct tun_msg_ctl *ctl = m->msg_control;

	if (ctl && m->msg_controllen == sizeof(*ctl) &&
	    ctl->type == TUN_MSG_PTR)
		return tapx_sendmsg_batch(tfile, ctl->ptr, ctl->num);
	/*
	 * One frame over guest memory, vnet header first: a write(). Never
	 * -EAGAIN (a write does not wait for room), so vhost does not stall.
	 */
	return tapx_write(tfile, &m->msg_iter);
}

/*
 * msg_control is the entry vhost took off the ring itself (NULL: take one
 * here). Header and frame are copied out and the entry freed on every path.
 */
static int tapx_recvmsg(struct socket *sock, struct msghdr *m, size_t len,
			int flags)
{
	struct tapx_file *tfile = tapx_sock_file(sock);
	void *ptr = m->msg_control;
	struct tapx_dev *tapx;
	bool truncated;
	int ret;

	tapx = tapx_get(tfile);
	if (!tapx) {
		tapx_ptr_free(ptr);
		return -EBADFD;
	}
	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC)) {
		tapx_ptr_free(ptr);
		ret = -EINVAL;
		goto out;
	}
	if (!ptr) {
		ptr = tapx_ring_take(tfile, tapx, flags & MSG_DONTWAIT, NULL,
				     0);
		if (IS_ERR(ptr)) {
			ret = PTR_ERR(ptr);
			goto out;
		}
	}
	ret = tapx_copy_ptr(tapx, ptr, &m->msg_iter, &truncated);
	if (ret >= 0 && truncated)
		m->msg_flags |= MSG_TRUNC;
	if (ret >= 0 && m->msg_control) {
		/* Per-CPU counters: not from a preemptible section. */
		local_bh_disable();
		tapx_stat_inc(tapx, TAPX_STAT(vhost_rx));
		local_bh_enable();
	}
out:
	dev_put(tapx->dev);
	return ret;
}

static int tapx_peek_len(struct socket *sock)
{
	struct tapx_file *tfile = tapx_sock_file(sock);

	if (!rcu_access_pointer(tfile->tapx))
		return 0;
	return tapx_ring_peek_len(tfile);
}

static const struct proto_ops tapx_sock_ops = {
	.peek_len = tapx_peek_len,
	.sendmsg = tapx_sendmsg,
	.recvmsg = tapx_recvmsg,
};

/* At open: the socket and sock that live as long as @file. */
int tapx_sock_init(struct tapx_file *tfile, struct file *file)
{
	struct sock *sk;

	sk = sk_alloc(tfile->net, AF_UNSPEC, GFP_KERNEL, &tapx_proto, 0);
	if (!sk)
		return -ENOMEM;
	/* sock_def_write_space() and friends look at it. */
	init_waitqueue_head(&tfile->sock.wq.wait);
	tfile->sock.file = file;
	tfile->sock.ops = &tapx_sock_ops;
	sock_init_data_uid(&tfile->sock, sk, current_fsuid());
	/*
	 * vhost batches TX only with INT_MAX; tapx never throttles writers.
	 * SOCK_ZEROCOPY stays clear: no TUN_MSG_UBUF to complete.
	 */
	sk->sk_sndbuf = INT_MAX;
	tfile->sk = sk;
	return 0;
}

/* At close, after the file is unbound and its ring emptied. */
void tapx_sock_release(struct tapx_file *tfile)
{
	sock_orphan(tfile->sk);
	sock_put(tfile->sk);
}

/*
 * SOCK_XDP: a program is attached, so vhost leaves XDP headroom in the
 * buffers of its batches. Under rtnl.
 */
void tapx_sock_xdp(struct tapx_file *tfile, bool on)
{
	if (on)
		sock_set_flag(tfile->sk, SOCK_XDP);
	else
		sock_reset_flag(tfile->sk, SOCK_XDP);
}

/* Every file bound to @tapx, attached or detached. Under rtnl. */
void tapx_dev_sock_xdp(struct tapx_dev *tapx, bool on)
{
	struct tapx_file *tfile;
	unsigned int i;

	for (i = 0; i < tapx->numqueues; i++)
		tapx_sock_xdp(rtnl_dereference(tapx->tfiles[i]), on);
	list_for_each_entry(tfile, &tapx->disabled, next)
		tapx_sock_xdp(tfile, on);
}
