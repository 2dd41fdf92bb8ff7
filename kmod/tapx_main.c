// SPDX-License-Identifier: GPL-2.0
/*
 * tapx module init and exit. A written frame's way through the files:
 * tapx_write.c (entry, headers) -> tapx_buf.c (buffers) -> tapx_xdp.c
 * (program, verdicts) -> tapx_ring.c (reader ring, read(), ndo_xdp_xmit) or
 * tapx_napi.c (PASS delivery); tapx_batch.c does the same for many frames
 * per call; tapx_netdev.c, tapx_ethtool.c and tapx_chr.c are the device,
 * its counters and the character device around them.
 */
#include <linux/module.h>
#include <net/rtnetlink.h>

#include "tapx.h"

static int __init tapx_module_init(void)
{
	int err;

	err = tapx_bufs_init();
	if (err)
		return err;
	err = tapx_defprog_init();
	if (err)
		goto err_bufs;
	err = tapx_link_register();
	if (err)
		goto err_defprog;
	err = tapx_chr_register();
	if (err)
		goto err_link;
	return 0;

err_link:
	rtnl_link_unregister(&tapx_link_ops);
err_defprog:
	tapx_defprog_exit();
err_bufs:
	tapx_bufs_exit();
	return err;
}

static void __exit tapx_module_exit(void)
{
	tapx_chr_unregister();
	/* Deletes every tapx device left, persistent ones included. */
	rtnl_link_unregister(&tapx_link_ops);
	/* Then every namespace's default program. */
	tapx_defprog_exit();
	/* The socket filters those devices freed after a grace period. */
	rcu_barrier();
	/* No file is open and no device left: no writer either. */
	tapx_bufs_exit();
}

module_init(tapx_module_init);
module_exit(tapx_module_exit);

MODULE_DESCRIPTION("tun-compatible tap driver with an XDP-first write path");
MODULE_AUTHOR("tap-accel project");
MODULE_LICENSE("GPL");
TAPX_IMPORT_NETDEV_INTERNAL();
MODULE_ALIAS_RTNL_LINK(TAPX_DRV_NAME);
