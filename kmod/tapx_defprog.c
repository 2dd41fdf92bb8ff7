// SPDX-License-Identifier: GPL-2.0
/*
 * The default XDP program of a network namespace: what a tap of that
 * namespace runs on its writes while it has no program of its own, from
 * the moment TUNSETIFF creates it. Set and read with TAPXSETDEFPROG and
 * TAPXGETDEFPROG on a tapx file bound to no device; held per namespace
 * (pernet), released when the namespace goes and at module unload.
 *
 * Writers read it under RCU in their bound section (tapx_def_prog(),
 * tapx.h); it is replaced under rtnl, and the old program is put after
 * the pointer is: bpf_prog_put() frees it after a grace period.
 */
#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "tapx.h"

unsigned int tapx_net_id __read_mostly;

static void __net_exit tapx_net_exit(struct net *net)
{
	struct tapx_net *tn = net_generic(net, tapx_net_id);
	struct bpf_prog *prog;

	/* No device is left in @net and no file holds it: no setter. */
	prog = rcu_replace_pointer(tn->def_prog, NULL, true);
	if (prog)
		bpf_prog_put(prog);
}

static struct pernet_operations tapx_net_ops = {
	.exit = tapx_net_exit,
	.id = &tapx_net_id,
	.size = sizeof(struct tapx_net),
};

int tapx_defprog_init(void)
{
	return register_pernet_subsys(&tapx_net_ops);
}

/* After every tapx device is gone: releases every namespace's program. */
void tapx_defprog_exit(void)
{
	unregister_pernet_subsys(&tapx_net_ops);
}

/*
 * What a tap's own program may be, and more: an XDP program (of that type:
 * bpf_prog_get_type_dev() refuses others with EINVAL) not made for a
 * devmap or cpumap entry, bound to no device, and one that takes
 * multi-buffer frames, since it cannot keep every tap's MTU within one
 * buffer as a tap's own program does.
 */
static int tapx_defprog_check(const struct bpf_prog *prog)
{
	if (prog->expected_attach_type == BPF_XDP_DEVMAP ||
	    prog->expected_attach_type == BPF_XDP_CPUMAP)
		return -EINVAL;
	if (bpf_prog_is_dev_bound(prog->aux))
		return -EOPNOTSUPP;
	if (!prog->aux->xdp_has_frags)
		return -ERANGE;
	return 0;
}

/* Under rtnl. @fd -1 clears the default. */
static int tapx_defprog_set(struct net *net, int fd)
{
	struct tapx_net *tn = net_generic(net, tapx_net_id);
	struct bpf_prog *prog = NULL, *old;
	int err;

	if (fd != -1) {
		/* Device-bound ones too, refused with their own errno. */
		prog = bpf_prog_get_type_dev(fd, BPF_PROG_TYPE_XDP, true);
		if (IS_ERR(prog))
			return PTR_ERR(prog);
		err = tapx_defprog_check(prog);
		if (err)
			goto err_put;
	}
	old = rcu_replace_pointer(tn->def_prog, prog, lockdep_rtnl_is_held());
	if (old)
		bpf_prog_put(old);
	tapx_net_sock_xdp(net);
	return 0;

err_put:
	bpf_prog_put(prog);
	return err;
}

/**
 * tapx_defprog_ioctl - TAPXSETDEFPROG, TAPXGETDEFPROG
 * @tfile: a file bound to no device; its namespace (the opener's, where
 *         its TUNSETIFF would create a device) is the one set or read
 * @cmd: the ioctl
 * @argp: an int: the program's fd, -1 to clear (set); a __u32 for its id,
 *        0 for none (get)
 *
 * Both need CAP_NET_ADMIN over that namespace. EBUSY on a bound file.
 */
long tapx_defprog_ioctl(struct tapx_file *tfile, unsigned int cmd,
			void __user *argp)
{
	struct net *net = tfile->net;
	struct bpf_prog *prog;
	long ret;
	int fd;

	if (!ns_capable(net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (cmd == TAPXSETDEFPROG && get_user(fd, (int __user *)argp))
		return -EFAULT;

	rtnl_lock();
	ret = -EBUSY;
	if (rtnl_dereference(tfile->tapx))
		goto unlock;
	if (cmd == TAPXSETDEFPROG) {
		ret = tapx_defprog_set(net, fd);
		goto unlock;
	}
	prog = rtnl_dereference(tapx_net(net)->def_prog);
	ret = put_user(prog ? prog->aux->id : 0, (__u32 __user *)argp);
unlock:
	rtnl_unlock();
	return ret;
}
