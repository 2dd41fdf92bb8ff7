// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt
/*
 * tapx character device: /dev/net/tapx (or /dev/net/tun with tun_compat=1)
 * with tun's ioctl ABI for tap and L3 (IFF_TUN) devices: open/close of a
 * file (one queue), TUNSETIFF creating or joining a device, the device
 * ioctls, poll, and the dispatch of read/write and the batch ioctls to the
 * data paths; and for tapx_tun.ko, the socket and the ring of a tapx file.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_tun.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>
#include <linux/virtio_net.h>
#include <net/net_namespace.h>
#include <net/rtnetlink.h>

#include "tapx.h"
#include "tapx_ring.h"
#include "tapx_exports.h"

bool tapx_tun_compat;
module_param_named(tun_compat, tapx_tun_compat, bool, 0444);
MODULE_PARM_DESC(
	tun_compat,
	"register as /dev/net/tun (misc minor 200) instead of /dev/net/tapx");

/* Frames queued per reader (module parameter ring_size). */
#define TAPX_RING_SIZE 1024
#define TAPX_RING_SIZE_MAX 65536

static unsigned int ring_size = TAPX_RING_SIZE;
module_param(ring_size, uint, 0444);
MODULE_PARM_DESC(ring_size, "frames queued per reader before drops "
			    "(default " __stringify(TAPX_RING_SIZE) ")");

/* Default names of new devices (TUNSETIFF without a name): tap, L3. */
#define TAPX_NAME_FMT TAPX_DRV_NAME "%d"
#define TAPX_L3_NAME_FMT "tun%d"

/*
 * tapx->flags is read on the data paths without rtnl (tapx_write_cfg_get(),
 * the read side): every change is one WRITE_ONCE of the whole word.
 */
static void tapx_set_flag(struct tapx_dev *tapx, unsigned int flag, bool on)
{
	unsigned int flags = tapx->flags;

	WRITE_ONCE(tapx->flags, on ? flags | flag : flags & ~flag);
}

/*
 * What TUNSETIFF takes besides TAPX_IFF_FEATURES, as tun does:
 * IFF_TUN_EXCL (only a new device), IFF_NO_CARRIER (attach with the
 * carrier off) and IFF_NOFILTER (there is no socket filter to skip);
 * IFF_PERSIST is ignored here.
 */
#define TAPX_IFF_ACCEPTED                                                      \
	(TAPX_IFF_FEATURES | IFF_PERSIST | IFF_TUN_EXCL | IFF_NO_CARRIER |    \
	 IFF_NOFILTER)

/*
 * Who may attach to an existing device, by tun's rule as 6.12 and 7.3
 * have it: a caller whom the device's owner and group, whichever are set,
 * both admit, when at least one is set; anyone else needs CAP_NET_ADMIN.
 * (tun before that fix, in Debian's 6.1 and 7.2, also lets anyone attach
 * to a device with neither set; tapx does not, on any kernel.)
 */
static bool tapx_permitted(struct tapx_dev *tapx)
{
	const struct cred *cred = current_cred();
	bool owner = uid_valid(tapx->owner), group = gid_valid(tapx->group);

	if ((owner || group) &&
	    (!owner || uid_eq(cred->euid, tapx->owner)) &&
	    (!group || in_egroup_p(tapx->group)))
		return true;
	return ns_capable(dev_net(tapx->dev)->user_ns, CAP_NET_ADMIN);
}

static int tapx_create(struct net *net, struct tapx_file *tfile,
		       struct ifreq *ifr)
{
	bool l3 = ifr->ifr_flags & IFF_TUN;
	const char *name = ifr->ifr_name[0] ? ifr->ifr_name :
			   l3		    ? TAPX_L3_NAME_FMT :
					      TAPX_NAME_FMT;
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
	if (l3)
		tapx_l3_setup(dev);
	dev_net_set(dev, net);
	dev->ifindex = tfile->ifindex;
	dev->rtnl_link_ops = &tapx_link_ops;
	dev->sysfs_groups[0] = &tapx_attr_group;
	tapx = netdev_priv(dev);
	tapx->flags = ifr->ifr_flags & TAPX_IFF_FEATURES;

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

/* A second queue (or the first of a persistent device) joins @tapx. */
static int tapx_join(struct tapx_file *tfile, struct tapx_dev *tapx,
		     unsigned int flags)
{
	unsigned int old_flags;
	int err;

	/* A tap is joined as a tap, an L3 device as one. */
	if ((flags & TAPX_TYPE_MASK) != (tapx->flags & TAPX_TYPE_MASK))
		return -EINVAL;
	/* Queues of one device agree on being multi-queue, as in tun. */
	if (!!(flags & IFF_MULTI_QUEUE) != !!(tapx->flags & IFF_MULTI_QUEUE))
		return -EINVAL;
	if (!tapx_permitted(tapx))
		return -EPERM;
	/*
	 * The first queue sets the flags (before it binds: IFF_NAPI decides
	 * its delivery); later ones join as they are.
	 */
	old_flags = tapx->flags;
	if (!tapx->numqueues && !tapx->numdisabled)
		WRITE_ONCE(tapx->flags, (old_flags & ~TAPX_IFF_FEATURES) |
						(flags & TAPX_IFF_FEATURES));
	err = tapx_attach(tfile, tapx);
	if (err) {
		WRITE_ONCE(tapx->flags, old_flags);
		return err;
	}
	netdev_state_change(tapx->dev);
	return 0;
}

/*
 * IFF_NAPI_FRAGS, on the terms tun sets: CAP_NET_ADMIN, a tap, IFF_NAPI.
 * In tun it builds the skb from the write's iovecs as page fragments; tapx
 * always builds it around its own copy, and the frame goes through NAPI and
 * GRO as with IFF_NAPI, which is what a writer sees of either.
 */
static int tapx_check_napi_frags(unsigned int flags)
{
	if (!(flags & IFF_NAPI_FRAGS))
		return 0;
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (!(flags & IFF_NAPI) || (flags & TAPX_TYPE_MASK) != IFF_TAP)
		return -EINVAL;
	return 0;
}

static int tapx_set_iff(struct net *net, struct tapx_file *tfile,
			struct ifreq *ifr)
{
	/* ifr_flags is a short: IFF_TUN_EXCL is its sign bit. */
	unsigned int flags = (u16)ifr->ifr_flags;
	struct net_device *dev;
	int err;

	/* Both type flags: IFF_TUN wins, as in tun. */
	if (flags & IFF_TUN)
		flags &= ~IFF_TAP;
	if (!(flags & TAPX_TYPE_MASK))
		return -EINVAL;
	/*
	 * tun ignores the flag bits it does not know instead of refusing
	 * them; tapx clears them and goes on, the same.
	 */
	flags &= TAPX_IFF_ACCEPTED;
	err = tapx_check_napi_frags(flags);
	if (err)
		return err;
	ifr->ifr_flags = flags;

	dev = __dev_get_by_name(net, ifr->ifr_name);
	if (!dev) {
		err = tapx_create(net, tfile, ifr);
	} else if (flags & IFF_TUN_EXCL) {
		/* iproute2's `ip tuntap add` asks for a new device. */
		return -EBUSY;
	} else if (dev->rtnl_link_ops != &tapx_link_ops) {
		return -EINVAL;
	} else {
		err = tapx_join(tfile, netdev_priv(dev), flags);
	}
	/* Attaching turned the carrier on; tun's flag keeps it off. */
	if (!err && (flags & IFF_NO_CARRIER))
		netif_carrier_off(rtnl_dereference(tfile->tapx)->dev);
	return err;
}

static void tapx_get_iff(struct tapx_file *tfile, struct tapx_dev *tapx,
			 struct ifreq *ifr)
{
	strscpy(ifr->ifr_name, tapx->dev->name, IFNAMSIZ);
	ifr->ifr_flags = tapx_iff_flags(tapx);
	if (tfile->detached)
		ifr->ifr_flags |= IFF_DETACH_QUEUE;
	/* As tun: no classic filter (TUNATTACHFILTER) on the queue. */
	if (!rcu_access_pointer(tapx->sock_filter))
		ifr->ifr_flags |= IFF_NOFILTER;
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

/* TUNGETDEVNETNS: an fd of the device's network namespace. */
static long tapx_get_netns(struct tapx_dev *tapx)
{
	struct net *net = dev_net(tapx->dev);

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	return open_related_ns(&net->ns, get_net_ns);
}

/*
 * SIOCGSKNS on the fd, as tun answers it: an fd of the network namespace
 * the file was opened in (its socket's), bound or not.
 */
static long tapx_get_file_netns(struct tapx_file *tfile)
{
	if (!ns_capable(tfile->net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	return open_related_ns(&tfile->net->ns, get_net_ns);
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
		tapx_set_flag(tapx, IFF_PERSIST, arg);
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
		/* As tun: no upper bound; writes shorter than it are EINVAL. */
		if (val < (int)sizeof(struct virtio_net_hdr))
			return -EINVAL;
		WRITE_ONCE(tapx->vnet_hdr_sz, val);
		return 0;

	case TUNGETVNETLE:
		return put_user(!!(tapx->flags & TAPX_VNET_LE),
				(int __user *)argp);

	case TUNSETVNETLE:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		tapx_set_flag(tapx, TAPX_VNET_LE, val);
		return 0;

	case TUNGETVNETBE:
		return put_user(!!(tapx->flags & TAPX_VNET_BE),
				(int __user *)argp);

	case TUNSETVNETBE:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		tapx_set_flag(tapx, TAPX_VNET_BE, val);
		return 0;

	case TUNGETSNDBUF:
		return put_user(READ_ONCE(tfile->sk->sk_sndbuf),
				(int __user *)argp);

	case TUNSETSNDBUF:
		if (get_user(val, (int __user *)argp))
			return -EFAULT;
		if (val <= 0)
			return -EINVAL;
		/* vhost-net batches its TX only while it is INT_MAX. */
		WRITE_ONCE(tfile->sk->sk_sndbuf, val);
		return 0;

	case TUNSETLINK:
		return tapx_set_link(dev, arg);

	case TUNSETNOCSUM:
	case TUNSETDEBUG:
		/* Accepted and ignored, as in tun. */
		return 0;

	case TUNSETTXFILTER:
	case TUNATTACHFILTER:
	case TUNDETACHFILTER:
	case TUNGETFILTER:
	case TUNSETSTEERINGEBPF:
	case TUNSETFILTEREBPF:
		return tapx_filter_ioctl(tapx, cmd, argp);

	case TUNGETDEVNETNS:
		return tapx_get_netns(tapx);

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

/*
 * TUNSETIFINDEX: the ifindex of the device the next TUNSETIFF creates (0:
 * the kernel's choice); only before TUNSETIFF (EPERM after), as in tun.
 */
static long tapx_set_ifindex(struct tapx_file *tfile, struct tapx_dev *tapx,
			     void __user *argp)
{
	int ifindex;

	if (tapx)
		return -EPERM;
	if (copy_from_user(&ifindex, argp, sizeof(ifindex)))
		return -EFAULT;
	if (ifindex < 0)
		return -EINVAL;
	tfile->ifindex = ifindex;
	return 0;
}

/*
 * SIOCGIFHWADDR, SIOCSIFHWADDR on the fd, as tun has them: programs that
 * drive vhost-net from userspace ask the tap fd for its address. Under rtnl.
 */
static long tapx_hwaddr_ioctl(struct tapx_dev *tapx, unsigned int cmd,
			      struct ifreq *ifr, void __user *argp)
{
	struct net_device *dev = tapx->dev;
	int err;

	if (cmd == SIOCSIFHWADDR)
		return tapx_set_mac_address_user(dev, &ifr->ifr_hwaddr);
	err = tapx_get_mac_address(dev, &ifr->ifr_hwaddr);
	if (err)
		return err;
	return copy_to_user(argp, ifr, sizeof(*ifr)) ? -EFAULT : 0;
}

static long tapx_chr_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct tapx_file *tfile = file->private_data;
	void __user *argp = (void __user *)arg;
	struct tapx_dev *tapx;
	struct ifreq ifr;
	short flags;
	long ret;

	switch (cmd) {
	case TAPXSUBMIT:
	case TAPXSUBMIT_T240:
		return tapx_batch_ioctl(file, TAPXSUBMIT, argp);
	case TAPXRECV:
	case TAPXRECV_T241:
		return tapx_batch_ioctl(file, TAPXRECV, argp);
	case TAPXSETDEFPROG:
	case TAPXGETDEFPROG:
		return tapx_defprog_ioctl(tfile, cmd, argp);
	}
	if (cmd == TUNGETFEATURES)
		return put_user(TAPX_IFF_FEATURES | IFF_NO_CARRIER,
				(unsigned int __user *)argp);
	if (cmd == SIOCGSKNS)
		return tapx_get_file_netns(tfile);

	if (cmd == TUNSETIFF || cmd == TUNSETQUEUE || cmd == SIOCGIFHWADDR ||
	    cmd == SIOCSIFHWADDR) {
		if (copy_from_user(&ifr, argp, sizeof(ifr)))
			return -EFAULT;
		ifr.ifr_name[IFNAMSIZ - 1] = '\0';
	}
	if (cmd == TUNSETQUEUE)
		return tapx_set_queue(tfile, &ifr);

	rtnl_lock();
	tapx = rtnl_dereference(tfile->tapx);
	if (cmd == TUNSETIFF) {
		/* tun's answers: a detached queue EINVAL, a bound fd EEXIST. */
		ret = tfile->detached ? -EINVAL : -EEXIST;
		if (tapx)
			goto unlock;
		flags = ifr.ifr_flags;
		ret = tapx_set_iff(tfile->net, tfile, &ifr);
		if (ret)
			goto unlock;
		/* As tun: the device's name, the flags as they were given. */
		tapx = rtnl_dereference(tfile->tapx);
		strscpy(ifr.ifr_name, tapx->dev->name, IFNAMSIZ);
		ifr.ifr_flags = flags;
		if (copy_to_user(argp, &ifr, sizeof(ifr)))
			ret = -EFAULT;
		goto unlock;
	}
	if (cmd == TUNSETIFINDEX) {
		ret = tapx_set_ifindex(tfile, tapx, argp);
		goto unlock;
	}

	ret = -EBADFD;
	if (!tapx)
		goto unlock;
	if (cmd == SIOCGIFHWADDR || cmd == SIOCSIFHWADDR)
		ret = tapx_hwaddr_ioctl(tapx, cmd, &ifr, argp);
	else
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
	tfile->net = get_net(current->nsproxy->net_ns);
	err = tapx_sock_init(tfile, file);
	if (err)
		goto err_net;
	file->private_data = tfile;
	return stream_open(inode, file);

err_net:
	put_net(tfile->net);
	ptr_ring_cleanup(&tfile->ring, NULL);
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
	tapx_sock_release(tfile);
	put_net(tfile->net);
	free_percpu(tfile->qstats);
	kfree(tfile);
	return 0;
}

#ifdef CONFIG_PROC_FS
/*
 * /proc/PID/fdinfo/FD: "iff:" and the bound device's name, as tun's, which
 * `ip -d tuntap show` reads to list the processes attached to a device.
 */
static void tapx_chr_show_fdinfo(struct seq_file *m, struct file *file)
{
	struct tapx_file *tfile = file->private_data;
	char name[IFNAMSIZ] = "";
	struct tapx_dev *tapx;

	rtnl_lock();
	tapx = rtnl_dereference(tfile->tapx);
	/* A detached queue names its device too, as in tun. */
	if (tapx)
		strscpy(name, tapx->dev->name, IFNAMSIZ);
	rtnl_unlock();
	seq_printf(m, "iff:\t%s\n", name);
}
#endif

static const struct file_operations tapx_fops = {
	.owner = THIS_MODULE,
	.read_iter = tapx_read_iter,
	.write = tapx_chr_write,
	.write_iter = tapx_write_iter,
	.poll = tapx_chr_poll,
	.unlocked_ioctl = tapx_chr_ioctl,
	.open = tapx_chr_open,
	.release = tapx_chr_release,
#ifdef CONFIG_PROC_FS
	.show_fdinfo = tapx_chr_show_fdinfo,
#endif
};

/* The tapx_file of an open tapx character device, else NULL. */
static struct tapx_file *tapx_file_of(struct file *file)
{
	return file->f_op == &tapx_fops ? file->private_data : NULL;
}

/* vhost-net's socket of a tapx file (tapx_vhost.c), for tapx_tun.ko. */
struct socket *tapx_vhost_socket(struct file *file)
{
	struct tapx_file *tfile = tapx_file_of(file);

	return tfile ? &tfile->sock : ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL_GPL(tapx_vhost_socket);

/* The ring vhost-net takes a tapx file's frames from, for tapx_tun.ko. */
struct ptr_ring *tapx_vhost_ring(struct file *file)
{
	struct tapx_file *tfile = tapx_file_of(file);

	return tfile ? &tfile->ring : ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL_GPL(tapx_vhost_ring);

/*
 * vhost-net took @consumed entries off the ring itself, under its consumer
 * lock: with IFF_BACKPRESSURE that may restart the queue (tapx_ring.c).
 */
void tapx_vhost_consumed(struct file *file, int consumed)
{
	struct tapx_file *tfile = tapx_file_of(file);
	struct tapx_dev *tapx;

	if (!tfile || consumed <= 0)
		return;
	rcu_read_lock();
	tapx = rcu_dereference(tfile->tapx);
	if (tapx)
		tapx_ring_consumed(tapx, tfile, consumed);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(tapx_vhost_consumed);

static struct miscdevice tapx_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = TAPX_DRV_NAME,
	.nodename = "net/" TAPX_DRV_NAME,
	.mode = 0666,
	.fops = &tapx_fops,
};

int tapx_chr_register(void)
{
	int err;

	if (!ring_size || ring_size > TAPX_RING_SIZE_MAX) {
		pr_err("ring_size must be 1.." __stringify(TAPX_RING_SIZE_MAX)
		       "\n");
		return -EINVAL;
	}
	if (tapx_tun_compat) {
		tapx_misc.minor = TUN_MINOR;
		tapx_misc.name = "tun";
		tapx_misc.nodename = "net/tun";
	}
	err = misc_register(&tapx_misc);
	if (err) {
		if (tapx_tun_compat && err == -EBUSY)
			pr_err("misc minor %d is taken (is tun loaded?)\n",
			       TUN_MINOR);
		return err;
	}
	pr_info("/dev/%s ready\n", tapx_misc.nodename);
	return 0;
}

void tapx_chr_unregister(void)
{
	misc_deregister(&tapx_misc);
}
