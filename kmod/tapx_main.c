// SPDX-License-Identifier: GPL-2.0
/*
 * tapx character device: /dev/net/tapx (or /dev/net/tun with tun_compat=1)
 * with tun's ioctl ABI for tap devices, attach/detach of files to devices,
 * and module init/exit.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/etherdevice.h>
#include <linux/if_tun.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/rtnetlink.h>
#include <linux/virtio_net.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "tapx.h"

static bool tun_compat;
module_param(tun_compat, bool, 0444);
MODULE_PARM_DESC(
	tun_compat,
	"register as /dev/net/tun (misc minor 200) instead of /dev/net/tapx");

static unsigned int ring_size = 1024;
module_param(ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size,
		 "frames queued per reader before drops (default 1024)");

/* TUNGETFEATURES: what TUNSETIFF accepts. */
#define TAPX_FEATURES TAPX_IFF_FEATURES

/* Owner/group rules of tun: either matches, or CAP_NET_ADMIN. */
static bool tapx_not_capable(struct tapx_dev *tapx)
{
	const struct cred *cred = current_cred();
	struct net *net = dev_net(tapx->dev);

	return ((uid_valid(tapx->owner) && !uid_eq(cred->euid, tapx->owner)) ||
		(gid_valid(tapx->group) && !in_egroup_p(tapx->group))) &&
	       !ns_capable(net->user_ns, CAP_NET_ADMIN);
}

/* The stack's queue counts follow the attached queues (never zero). */
static void tapx_set_real_queues(struct tapx_dev *tapx)
{
	if (!tapx->numqueues)
		return;
	netif_set_real_num_tx_queues(tapx->dev, tapx->numqueues);
	netif_set_real_num_rx_queues(tapx->dev, tapx->numqueues);
}

static int tapx_rxq_reg(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	int err;

	err = xdp_rxq_info_reg(&tfile->xdp_rxq, tapx->dev, tfile->queue_index,
			       0);
	if (err)
		return err;
	err = xdp_rxq_info_reg_mem_model(&tfile->xdp_rxq, MEM_TYPE_PAGE_SHARED,
					 NULL);
	if (err)
		xdp_rxq_info_unreg(&tfile->xdp_rxq);
	return err;
}

/*
 * Attaches a new file, or reattaches a detached one (TUNSETQUEUE), as the
 * last queue. A detached file keeps its xdp_rxq_info registration (its
 * writes still run XDP), so only its queue index changes.
 */
static int tapx_attach(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	int err;

	if (rtnl_dereference(tfile->tapx) && !tfile->detached)
		return -EINVAL;
	if (!(tapx->flags & IFF_MULTI_QUEUE) && tapx->numqueues == 1)
		return -EBUSY;
	if (!tfile->detached &&
	    tapx->numqueues + tapx->numdisabled >= TAPX_MAX_QUEUES)
		return -E2BIG;

	tfile->queue_index = tapx->numqueues;
	if (tfile->detached) {
		tfile->xdp_rxq.queue_index = tfile->queue_index;
		list_del_init(&tfile->next);
		tapx->numdisabled--;
		tfile->detached = false;
	} else {
		err = tapx_rxq_reg(tfile, tapx);
		if (err)
			return err;
		/* For as long as the file is bound: detached queues write too. */
		tapx_napi_attach(tfile, tapx);
	}

	/* Publish only the fully set up file. */
	rcu_assign_pointer(tfile->tapx, tapx);
	rcu_assign_pointer(tapx->tfiles[tapx->numqueues], tfile);
	WRITE_ONCE(tapx->numqueues, tapx->numqueues + 1);
	tapx_set_real_queues(tapx);
	netif_carrier_on(tapx->dev);
	return 0;
}

/*
 * Takes an attached queue out of the array: the last queue moves into its
 * slot. Data paths may still see it until the caller's grace period.
 */
static void tapx_queue_unlink(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	unsigned int last = tapx->numqueues - 1;
	struct tapx_file *moved = rtnl_dereference(tapx->tfiles[last]);
	u16 index = tfile->queue_index;

	rcu_assign_pointer(tapx->tfiles[index], moved);
	moved->queue_index = index;
	moved->xdp_rxq.queue_index = index;
	RCU_INIT_POINTER(tapx->tfiles[last], NULL);
	WRITE_ONCE(tapx->numqueues, last);
}

/* TUNSETQUEUE IFF_DETACH_QUEUE: the file stays bound to the device. */
static void tapx_queue_detach(struct tapx_file *tfile, struct tapx_dev *tapx)
{
	tapx_queue_unlink(tfile, tapx);
	tfile->detached = true;
	list_add_tail(&tfile->next, &tapx->disabled);
	tapx->numdisabled++;

	/* No transmitter or redirect reaches the ring after this. */
	synchronize_net();
	tapx_ring_purge(tfile);
	tapx_set_real_queues(tapx);
}

/*
 * close(): unbinds the file from its device, attached or detached. The
 * last queue of a non-persistent device takes the device with it.
 */
static void tapx_file_unbind(struct tapx_file *tfile)
{
	struct tapx_dev *tapx = rtnl_dereference(tfile->tapx);
	struct net_device *dev;

	if (!tapx)
		return;
	dev = tapx->dev;
	if (tfile->detached) {
		list_del_init(&tfile->next);
		tapx->numdisabled--;
		tfile->detached = false;
		RCU_INIT_POINTER(tfile->tapx, NULL);
	} else {
		tapx_queue_unlink(tfile, tapx);
		RCU_INIT_POINTER(tfile->tapx, NULL);
		synchronize_net();
		tapx_ring_purge(tfile);
		tapx_set_real_queues(tapx);
	}
	/* close(): no writer of this file is left. */
	tapx_napi_detach(tfile);
	xdp_rxq_info_unreg(&tfile->xdp_rxq);

	if (tapx->numqueues || tapx->numdisabled)
		return;
	netif_carrier_off(dev);
	if (!(tapx->flags & IFF_PERSIST) && dev->reg_state == NETREG_REGISTERED)
		unregister_netdevice(dev);
}

/* Wakes a file whose device went away; blocked readers get -EBADFD. */
static void tapx_file_orphan(struct tapx_file *tfile)
{
	tapx_napi_detach(tfile);
	tapx_ring_purge(tfile);
	xdp_rxq_info_unreg(&tfile->xdp_rxq);
	wake_up_interruptible_poll(&tfile->wq, EPOLLERR);
}

/*
 * Device deletion (ndo_uninit, under rtnl) with files still open, attached
 * or detached: every file is unbound and gets -EBADFD from then on. After
 * the grace period no data path can reach any ring, so what is queued can
 * be freed; the files themselves are freed by their close().
 */
void tapx_detach_all(struct tapx_dev *tapx)
{
	unsigned int i, n = tapx->numqueues;
	struct tapx_file *tfile, *tmp;

	for (i = 0; i < n; i++) {
		tfile = rtnl_dereference(tapx->tfiles[i]);
		RCU_INIT_POINTER(tfile->tapx, NULL);
	}
	WRITE_ONCE(tapx->numqueues, 0);
	list_for_each_entry(tfile, &tapx->disabled, next)
		RCU_INIT_POINTER(tfile->tapx, NULL);
	netif_carrier_off(tapx->dev);
	synchronize_net();

	for (i = 0; i < n; i++) {
		tfile = rtnl_dereference(tapx->tfiles[i]);
		RCU_INIT_POINTER(tapx->tfiles[i], NULL);
		tapx_file_orphan(tfile);
	}
	list_for_each_entry_safe(tfile, tmp, &tapx->disabled, next) {
		list_del_init(&tfile->next);
		tfile->detached = false;
		tapx_file_orphan(tfile);
	}
	tapx->numdisabled = 0;
}

static int tapx_create(struct net *net, struct tapx_file *tfile,
		       struct ifreq *ifr)
{
	const char *name = ifr->ifr_name[0] ? ifr->ifr_name : "tapx%d";
	struct net_device *dev;
	struct tapx_dev *tapx;
	unsigned int queues;
	int err;

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;

	queues = (ifr->ifr_flags & IFF_MULTI_QUEUE) ? TAPX_MAX_QUEUES : 1;
	dev = alloc_netdev_mqs(sizeof(struct tapx_dev), name, NET_NAME_UNKNOWN,
			       tapx_setup, queues, queues);
	if (!dev)
		return -ENOMEM;
	dev_net_set(dev, net);
	dev->rtnl_link_ops = &tapx_link_ops;
	tapx = netdev_priv(dev);
	tapx->flags = ifr->ifr_flags & TAPX_FEATURES;

	err = register_netdevice(dev);
	if (err)
		goto err_free;

	err = tapx_attach(tfile, tapx);
	if (err)
		goto err_unregister;
	return 0;

err_unregister:
	unregister_netdevice(dev);
	return err;
err_free:
	free_netdev(dev);
	return err;
}

static int tapx_set_iff(struct net *net, struct tapx_file *tfile,
			struct ifreq *ifr)
{
	unsigned int flags = ifr->ifr_flags, old_flags;
	struct net_device *dev;
	struct tapx_dev *tapx;
	int err;

	if (flags & IFF_TUN) {
		pr_info_ratelimited(
			"tapx: IFF_TUN is not supported, only IFF_TAP\n");
		return -EINVAL;
	}
	if (!(flags & IFF_TAP) || (flags & ~(TAPX_FEATURES | IFF_PERSIST)))
		return -EINVAL;

	dev = __dev_get_by_name(net, ifr->ifr_name);
	if (!dev)
		return tapx_create(net, tfile, ifr);

	if (dev->rtnl_link_ops != &tapx_link_ops)
		return -EINVAL;
	tapx = netdev_priv(dev);
	/* Queues of one device agree on being multi-queue, as in tun. */
	if (!!(flags & IFF_MULTI_QUEUE) != !!(tapx->flags & IFF_MULTI_QUEUE))
		return -EINVAL;
	if (tapx_not_capable(tapx))
		return -EPERM;
	/*
	 * The first queue sets the flags (before it binds: IFF_NAPI decides
	 * its delivery); later ones join as they are.
	 */
	old_flags = tapx->flags;
	if (!tapx->numqueues && !tapx->numdisabled)
		tapx->flags = (tapx->flags & ~TAPX_FEATURES) |
			      (flags & TAPX_FEATURES);
	err = tapx_attach(tfile, tapx);
	if (err) {
		tapx->flags = old_flags;
		return err;
	}
	netdev_state_change(dev);
	return 0;
}

static void tapx_get_iff(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct ifreq *ifr)
{
	strscpy(ifr->ifr_name, tapx->dev->name, IFNAMSIZ);
	ifr->ifr_flags = tapx->flags & (TAPX_FEATURES | IFF_PERSIST);
	if (tfile->detached)
		ifr->ifr_flags |= IFF_DETACH_QUEUE;
}

/* TUNSETQUEUE; tun's errors: EINVAL for every request that does not apply. */
static int tapx_set_queue(struct tapx_file *tfile, struct ifreq *ifr)
{
	struct tapx_dev *tapx;
	int ret = -EINVAL;

	rtnl_lock();
	tapx = rtnl_dereference(tfile->tapx);
	if (!tapx)
		goto unlock;
	if (ifr->ifr_flags & IFF_ATTACH_QUEUE) {
		if (!tfile->detached)
			goto unlock;
		ret = tapx_attach(tfile, tapx);
	} else if (ifr->ifr_flags & IFF_DETACH_QUEUE) {
		if (!(tapx->flags & IFF_MULTI_QUEUE) || tfile->detached)
			goto unlock;
		tapx_queue_detach(tfile, tapx);
		ret = 0;
	}
	if (!ret)
		netdev_state_change(tapx->dev);
unlock:
	rtnl_unlock();
	return ret;
}

/* The ioctls that need an attached device; called under rtnl. */
static long tapx_dev_ioctl(struct tapx_file *tfile, struct tapx_dev *tapx,
			   unsigned int cmd, unsigned long arg)
{
	void __user *argp = (void __user *)arg;
	struct net_device *dev = tapx->dev;
	struct ifreq ifr;
	kuid_t owner;
	kgid_t group;
	int val;

	switch (cmd) {
	case TUNGETIFF:
		memset(&ifr, 0, sizeof(ifr));
		tapx_get_iff(tfile, tapx, &ifr);
		return copy_to_user(argp, &ifr, sizeof(ifr)) ? -EFAULT : 0;

	case TUNSETPERSIST:
		if (arg)
			tapx->flags |= IFF_PERSIST;
		else
			tapx->flags &= ~IFF_PERSIST;
		return 0;

	case TUNSETOWNER:
		owner = make_kuid(current_user_ns(), arg);
		if (!uid_valid(owner))
			return -EINVAL;
		tapx->owner = owner;
		return 0;

	case TUNSETGROUP:
		group = make_kgid(current_user_ns(), arg);
		if (!gid_valid(group))
			return -EINVAL;
		tapx->group = group;
		return 0;

	case TUNSETOFFLOAD:
		return tapx_set_offload(tapx, arg);

	case TUNGETVNETHDRSZ:
		return put_user(tapx->vnet_hdr_sz, (int __user *)argp);

	case TUNSETVNETHDRSZ:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val < (int)sizeof(struct virtio_net_hdr) || val > 256)
			return -EINVAL;
		WRITE_ONCE(tapx->vnet_hdr_sz, val);
		return 0;

	case TUNGETVNETLE:
		return put_user(!!(tapx->flags & TAPX_VNET_LE),
				(int __user *)argp);

	case TUNSETVNETLE:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val)
			tapx->flags |= TAPX_VNET_LE;
		else
			tapx->flags &= ~TAPX_VNET_LE;
		return 0;

	case TUNGETVNETBE:
		return put_user(!!(tapx->flags & TAPX_VNET_BE),
				(int __user *)argp);

	case TUNSETVNETBE:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val)
			tapx->flags |= TAPX_VNET_BE;
		else
			tapx->flags &= ~TAPX_VNET_BE;
		return 0;

	case TUNGETSNDBUF:
		return put_user(tfile->sndbuf, (int __user *)argp);

	case TUNSETSNDBUF:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val <= 0)
			return -EINVAL;
		tfile->sndbuf = val;
		return 0;

	case TUNSETCARRIER:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val)
			netif_carrier_on(dev);
		else
			netif_carrier_off(dev);
		return 0;

	default:
		return -EINVAL;
	}
}

static long tapx_chr_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct tapx_file *tfile = file->private_data;
	void __user *argp = (void __user *)arg;
	struct tapx_dev *tapx;
	struct ifreq ifr;
	long ret;

	if (cmd == TAPXSUBMIT || cmd == TAPXRECV)
		return tapx_batch_ioctl(file, cmd, argp);
	if (cmd == TUNGETFEATURES)
		return put_user(TAPX_FEATURES, (unsigned int __user *)argp);

	if (cmd == TUNSETIFF || cmd == TUNSETQUEUE) {
		if (copy_from_user(&ifr, argp, sizeof(ifr)))
			return -EFAULT;
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
	}
	if (cmd == TUNSETQUEUE)
		return tapx_set_queue(tfile, &ifr);

	rtnl_lock();
	tapx = rtnl_dereference(tfile->tapx);
	if (cmd == TUNSETIFF) {
		ret = -EINVAL;
		if (tapx)
			goto unlock;
		ret = tapx_set_iff(tfile->net, tfile, &ifr);
		if (ret)
			goto unlock;
		tapx = rtnl_dereference(tfile->tapx);
		tapx_get_iff(tfile, tapx, &ifr);
		if (copy_to_user(argp, &ifr, sizeof(ifr)))
			ret = -EFAULT;
		goto unlock;
	}

	ret = -EBADFD;
	if (!tapx)
		goto unlock;
	ret = tapx_dev_ioctl(tfile, tapx, cmd, arg);
unlock:
	rtnl_unlock();
	return ret;
}

static __poll_t tapx_chr_poll(struct file *file, poll_table *wait)
{
	struct tapx_file *tfile = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &tfile->wq, wait);
	/* Pairs with wq_has_sleeper() in tapx_wake_reader(). */
	smp_mb();

	if (!rcu_access_pointer(tfile->tapx))
		return EPOLLERR;
	if (!ptr_ring_empty(&tfile->ring))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Writes never wait for buffer space. */
	mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static int tapx_chr_open(struct inode *inode, struct file *file)
{
	struct tapx_file *tfile;
	int cpu, err;

	tfile = kzalloc(sizeof(*tfile), GFP_KERNEL);
	if (!tfile)
		return -ENOMEM;
	err = -ENOMEM;
	tfile->qstats = alloc_percpu(struct tapx_pcpu_qstats);
	if (!tfile->qstats)
		goto err_free;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(tfile->qstats, cpu)->syncp);
	err = ptr_ring_init(&tfile->ring, ring_size, GFP_KERNEL);
	if (err)
		goto err_stats;

	INIT_LIST_HEAD(&tfile->next);
	init_waitqueue_head(&tfile->wq);
	mutex_init(&tfile->write_lock);
	tfile->net = get_net(current->nsproxy->net_ns);
	tfile->sndbuf = INT_MAX;
	file->private_data = tfile;
	return stream_open(inode, file);

err_stats:
	free_percpu(tfile->qstats);
err_free:
	kfree(tfile);
	return err;
}

static int tapx_chr_release(struct inode *inode, struct file *file)
{
	struct tapx_file *tfile = file->private_data;

	rtnl_lock();
	tapx_file_unbind(tfile);
	rtnl_unlock();

	ptr_ring_cleanup(&tfile->ring, tapx_ptr_free);
	while (tfile->nr_spare)
		page_frag_free(tfile->spare[--tfile->nr_spare]);
	while (tfile->nr_spare_frags)
		page_frag_free(tfile->spare_frags[--tfile->nr_spare_frags]);
	if (tfile->frag.va)
		__page_frag_cache_drain(virt_to_head_page(tfile->frag.va),
					tfile->frag.pagecnt_bias);
	put_net(tfile->net);
	free_percpu(tfile->qstats);
	kfree(tfile);
	return 0;
}

static const struct file_operations tapx_fops = {
	.owner = THIS_MODULE,
	.llseek = no_llseek,
	.read_iter = tapx_read_iter,
	.write_iter = tapx_write_iter,
	.poll = tapx_chr_poll,
	.unlocked_ioctl = tapx_chr_ioctl,
	.open = tapx_chr_open,
	.release = tapx_chr_release,
};

static struct miscdevice tapx_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "tapx",
	.nodename = "net/tapx",
	.mode = 0666,
	.fops = &tapx_fops,
};

static int __init tapx_module_init(void)
{
	int err;

	if (!ring_size || ring_size > 65536) {
		pr_err("tapx: ring_size must be 1..65536\n");
		return -EINVAL;
	}
	if (tun_compat) {
		tapx_misc.minor = TUN_MINOR;
		tapx_misc.name = "tun";
		tapx_misc.nodename = "net/tun";
	}

	err = rtnl_link_register(&tapx_link_ops);
	if (err)
		return err;
	err = misc_register(&tapx_misc);
	if (err) {
		if (tun_compat && err == -EBUSY)
			pr_err("tapx: misc minor %d is taken (is tun loaded?)\n",
			       TUN_MINOR);
		goto err_link;
	}
	pr_info("tapx: %s ready\n",
		tun_compat ? "/dev/net/tun" : "/dev/net/tapx");
	return 0;

err_link:
	rtnl_link_unregister(&tapx_link_ops);
	return err;
}

static void __exit tapx_module_exit(void)
{
	misc_deregister(&tapx_misc);
	/* Deletes every tapx device left, persistent ones included. */
	rtnl_link_unregister(&tapx_link_ops);
}

module_init(tapx_module_init);
module_exit(tapx_module_exit);

MODULE_DESCRIPTION("tun-compatible tap driver with an XDP-first write path");
MODULE_AUTHOR("tap-accel project");
MODULE_LICENSE("GPL");
MODULE_ALIAS_RTNL_LINK(TAPX_DRV_NAME);
